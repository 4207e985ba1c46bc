/* png_bands.c: the PNG writer's parallel path, for one filter type on every row. Reads rows
 * through the caller's row function; writes the whole PNG (signature, IHDR, sRGB, IDAT, IEND)
 * to a stream.
 *
 * The picture is cut into horizontal bands, one per thread. Each thread filters its rows
 * (PNG spec, section 9: None, Sub, Up, Average, Paeth; the row above a band's first row is
 * made again by that thread) and compresses them as its own raw deflate stream (RFC 1951),
 * ended on a byte boundary by Z_SYNC_FLUSH, the last band by Z_FINISH. Deflate blocks may
 * follow one another across such a flush, so the bands' streams joined after one zlib header
 * (RFC 1950) make one valid stream; its Adler-32 is the bands' checksums joined with
 * adler32_combine. A band's matches cannot reach into the band before (pigz does the same
 * without its shared dictionary); with run-length matches (Z_RLE) nothing is lost, as they
 * reach back one pixel only. The IDAT chunks are one per band. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/core.h"
#include "imageio/imageio_internal.h"

#define MAX_BANDS 8
#define MIN_BAND_ROWS 64

typedef struct band {
    const imageio_png_bands *job;
    int y0, y1;               /* the rows [y0, y1) */
    unsigned char *out;       /* the band's compressed bytes */
    size_t len, cap;
    bool mapped;              /* out is upf__pages_calloc's (else malloc's) */
    uLong adler;              /* of the filtered bytes */
    size_t raw_len;           /* filtered bytes (filter type byte + row, per row) */
    int error;                /* 0, or a zlib error / Z_MEM_ERROR */
} band;

/* The Paeth predictor of a (left), b (above), c (above left): PNG spec, section 9.4. With
 * p = a + b - c, the distances |p - a|, |p - b|, |p - c| are |b - c|, |a - c|, |a + b - 2c|;
 * written without branches so that the compiler can run it on vectors. */
static inline int paeth(int a, int b, int c)
{
    const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* One row filtered: out[0] is the filter type, out[1..n] the filtered bytes of x (prev: the
 * row above, zeros for the first row). bpp: bytes per pixel, for Sub, Average and Paeth. One
 * loop per type, the first pixel (no left neighbour: a = c = 0) apart. */
static void filter_row(int type, const unsigned char *restrict x,
                       const unsigned char *restrict prev, size_t n, size_t bpp,
                       unsigned char *restrict out)
{
    out[0] = (unsigned char)type;
    unsigned char *restrict o = out + 1;
    const size_t first = bpp < n ? bpp : n;
    switch (type) {
    case 1: /* Sub */
        memcpy(o, x, first);
        for (size_t i = first; i < n; i++)
            o[i] = (unsigned char)(x[i] - x[i - bpp]);
        break;
    case 2: /* Up */
        for (size_t i = 0; i < n; i++)
            o[i] = (unsigned char)(x[i] - prev[i]);
        break;
    case 3: /* Average */
        for (size_t i = 0; i < first; i++)
            o[i] = (unsigned char)(x[i] - prev[i] / 2);
        for (size_t i = first; i < n; i++)
            o[i] = (unsigned char)(x[i] - (x[i - bpp] + prev[i]) / 2);
        break;
    case 4: /* Paeth: the first pixel's predictor is b */
        for (size_t i = 0; i < first; i++)
            o[i] = (unsigned char)(x[i] - prev[i]);
        for (size_t i = first; i < n; i++)
            o[i] = (unsigned char)(x[i] - paeth(x[i - bpp], prev[i], prev[i - bpp]));
        break;
    default: /* None */
        memcpy(o, x, n);
        break;
    }
}

/* Appends the stream's output to the band's buffer, growing it. */
static int drain(band *b, z_stream *zs, unsigned char *buf, size_t size, int flush)
{
    int ret;
    do {
        zs->next_out = buf;
        zs->avail_out = (uInt)size;
        ret = deflate(zs, flush);
        if (ret == Z_STREAM_ERROR)
            return ret;
        size_t have = size - zs->avail_out;
        if (b->len + have > b->cap) { /* past deflateBound, or no room reserved */
            size_t cap = b->cap ? b->cap * 2 : (size_t)1 << 20;
            while (cap < b->len + have)
                cap *= 2;
            unsigned char *p = b->mapped ? malloc(cap) : realloc(b->out, cap);
            if (!p)
                return Z_MEM_ERROR;
            if (b->mapped) {
                memcpy(p, b->out, b->len);
                upf__pages_free(b->out);
                b->mapped = false;
            }
            b->out = p, b->cap = cap;
        }
        if (have) /* b->out is still NULL before the first bytes */
            memcpy(b->out + b->len, buf, have);
        b->len += have;
    } while (zs->avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
    return Z_OK;
}

/* Rows y0..y1 of the band: made, filtered, compressed. */
static void *run_band(void *arg)
{
    band *b = arg;
    const imageio_png_bands *j = b->job;
    size_t n = j->row_bytes, chunk = (size_t)64 << 10;
    /* The row function writes RGBA before dropping alpha: room for 4 channels of 2 bytes. */
    unsigned char *rows = calloc(2, (size_t)j->width * 8), *filtered = malloc(n + 1), *buf = malloc(chunk);
    float *scratch = malloc((size_t)j->width * 4 * sizeof(float));
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    b->adler = adler32(0L, Z_NULL, 0);
    b->error = !rows || !filtered || !buf || !scratch ? Z_MEM_ERROR
             : deflateInit2(&zs, j->level, Z_DEFLATED, -15, 8, j->strategy);
    if (b->error) {
        free(rows), free(filtered), free(buf), free(scratch);
        return NULL;
    }
    /* Room for the most the band can take (deflateBound), reserved and not touched: the
     * pages the output fills are taken in huge pages, and it is never copied to grow. Where
     * the reservation fails, drain grows a buffer instead. */
    const uLong raw = (uLong)(b->y1 - b->y0) * (uLong)(n + 1);
    const uLong bound = deflateBound(&zs, raw) + 64; /* + the last flush's marker */
    if ((b->out = upf__pages_calloc(bound)) != NULL)
        b->cap = bound, b->mapped = true;
    unsigned char *cur = rows, *prev = rows + (size_t)j->width * 8; /* zeros above row 0 */
    if (b->y0 > 0)
        j->row(j->src, b->y0 - 1, prev, scratch);
    for (int y = b->y0; y < b->y1 && !b->error; y++) {
        j->row(j->src, y, cur, scratch);
        filter_row(j->filter, cur, prev, n, j->bpp, filtered);
        b->adler = adler32(b->adler, filtered, (uInt)(n + 1));
        b->raw_len += n + 1;
        zs.next_in = filtered;
        zs.avail_in = (uInt)(n + 1);
        b->error = drain(b, &zs, buf, chunk, Z_NO_FLUSH);
        unsigned char *t = prev;
        prev = cur, cur = t;
    }
    if (!b->error)
        b->error = drain(b, &zs, buf, chunk, b->y1 == j->height ? Z_FINISH : Z_SYNC_FLUSH);
    deflateEnd(&zs);
    free(rows), free(filtered), free(buf), free(scratch);
    return NULL;
}

static void store_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* A chunk of `type` whose data is a then b (either may be empty); false on a write error. */
static bool put_chunk(FILE *f, const char *type, const unsigned char *a, size_t na,
                      const unsigned char *b, size_t nb)
{
    unsigned char head[8];
    store_be32(head, (uint32_t)(na + nb));
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, head + 4, 4);
    if (na)
        crc = crc32(crc, a, (uInt)na);
    if (nb)
        crc = crc32(crc, b, (uInt)nb);
    unsigned char tail[4];
    store_be32(tail, (uint32_t)crc);
    return fwrite(head, 1, 8, f) == 8 && (!na || fwrite(a, 1, na, f) == na) &&
           (!nb || fwrite(b, 1, nb, f) == nb) && fwrite(tail, 1, 4, f) == 4;
}

/* The bands' count: one per CPU (at most MAX_BANDS), each of at least MIN_BAND_ROWS rows, and
 * each band's output under a chunk's 2^31 - 1 bytes (a band of n raw bytes deflates to at most
 * about n + n / 1000 + 64). */
static int band_count(const imageio_png_bands *j)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cpus < 1 ? 1 : cpus > MAX_BANDS ? MAX_BANDS : (int)cpus;
    if (n > j->height / MIN_BAND_ROWS)
        n = j->height / MIN_BAND_ROWS > 0 ? j->height / MIN_BAND_ROWS : 1;
    double raw = (double)j->height * (double)(j->row_bytes + 1);
    while (raw / n > 1.9e9 && n < 1 << 20)
        n++;
    return n;
}

int imageio__png_bands(FILE *f, const imageio_png_bands *j, int *write_errno)
{
    int nb = band_count(j);
    band *b = calloc((size_t)nb, sizeof *b);
    pthread_t *t = calloc((size_t)nb, sizeof *t);
    bool *started = calloc((size_t)nb, sizeof *started);
    if (!b || !t || !started) {
        free(b), free(t), free(started);
        return Z_MEM_ERROR;
    }
    for (int i = 0; i < nb; i++)
        b[i] = (band){ j, (int)((long long)j->height * i / nb),
                       (int)((long long)j->height * (i + 1) / nb), NULL, 0, 0, false, 0, 0, 0 };
    for (int i = 1; i < nb; i++)
        started[i] = pthread_create(&t[i], NULL, run_band, &b[i]) == 0;
    run_band(&b[0]);
    for (int i = 1; i < nb; i++) {
        if (started[i])
            pthread_join(t[i], NULL);
        else
            run_band(&b[i]); /* no thread: this one does it */
    }
    int ret = 0;
    uLong adler = b[0].adler;
    for (int i = 0; i < nb; i++) {
        if (b[i].error && !ret)
            ret = b[i].error;
        if (i > 0)
            adler = adler32_combine(adler, b[i].adler, (z_off_t)b[i].raw_len);
    }
    if (!ret) {
        errno = 0;
        unsigned char ihdr[13], srgb[1] = { 0 }, zhead[2] = { 0x78, 0x01 }, ztail[4];
        store_be32(ihdr, (uint32_t)j->width);
        store_be32(ihdr + 4, (uint32_t)j->height);
        ihdr[8] = (unsigned char)j->bits;
        ihdr[9] = j->opaque ? 2 : 6; /* truecolour, or truecolour with alpha */
        ihdr[10] = ihdr[11] = ihdr[12] = 0; /* deflate, adaptive filtering, no interlace */
        store_be32(ztail, (uint32_t)adler);
        bool ok = fwrite("\x89PNG\r\n\x1a\n", 1, 8, f) == 8 &&
                  put_chunk(f, "IHDR", ihdr, 13, NULL, 0) &&
                  put_chunk(f, "sRGB", srgb, 1, NULL, 0); /* perceptual intent */
        for (int i = 0; i < nb && ok; i++)
            ok = put_chunk(f, "IDAT", i == 0 ? zhead : NULL, i == 0 ? 2 : 0, b[i].out,
                           b[i].len) &&
                 (i < nb - 1 || put_chunk(f, "IDAT", ztail, 4, NULL, 0));
        ok = ok && put_chunk(f, "IEND", NULL, 0, NULL, 0);
        if (!ok) {
            *write_errno = errno ? errno : EIO;
            ret = Z_ERRNO;
        }
    }
    for (int i = 0; i < nb; i++) {
        if (b[i].mapped)
            upf__pages_free(b[i].out);
        else
            free(b[i].out);
    }
    free(b), free(t), free(started);
    return ret;
}
