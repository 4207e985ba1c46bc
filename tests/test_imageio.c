/* test_imageio.c: the tools' image files (tools/imageio): PNG, JPEG and PFM round trips and
 * decodes of files made here with libspng's and libjpeg's own encoders or by hand; then bad
 * input of every kind (truncated, corrupt, wrong magic, zero and huge sizes, NaN/Inf,
 * unwritable paths), each checked for its error code and the words of its message, and for
 * failing writes, that no output or temporary file is left behind. */
#include <dirent.h>
#include <errno.h>
#include <spng.h>
#include <zlib.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>


#include "imageio/image_io.h"
#include "test_util.h"
#include "jpeg_make.h"

static char tmpdir[1024];
static char faildir[1100]; /* failing writes go here; it must stay empty */
static char err[IMAGEIO_ERR_SIZE];

static const char *tmp_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
    return buf;
}

static bool verbose;

/* A call that must fail with `code` and a message containing `needle` (and naming `who`).
 * UPF_TEST_VERBOSE=1 prints every message, to read them. */
#define CHECK_IO_FAILS(call, code, who, needle)                                               \
    do {                                                                                      \
        err[0] = '\0';                                                                        \
        upf_result r_ = (call);                                                               \
        if (verbose)                                                                          \
            printf("  %s -> %s\n", upf_result_string(r_), err);                               \
        CHECKF(r_ == (code) && strstr(err, (needle)) != NULL && strstr(err, (who)) != NULL,   \
               "%s returned %s (\"%s\"); expected %s with \"%s\" and \"%s\"", #call,          \
               upf_result_string(r_), err, upf_result_string(code), (who), (needle));         \
    } while (0)

#define CHECK_IO_OK(call)                                                                     \
    do {                                                                                      \
        err[0] = '\0';                                                                        \
        upf_result r_ = (call);                                                               \
        CHECKF(r_ == UPF_OK, "%s returned %s: %s", #call, upf_result_string(r_), err);        \
    } while (0)

/* ---- helpers ---------------------------------------------------------------------------- */

static void rmtree_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[2048];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
}

/* Entries in a folder other than . and .., listed into `names` for messages. */
static int dir_count(const char *dir, char *names, size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    names[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        size_t len = strlen(names);
        snprintf(names + len, size - len, "%s ", e->d_name);
    }
    closedir(d);
    return n;
}

/* After a failing write: the fail folder holds only what the test put there on purpose. */
#define CHECK_FAILDIR_HOLDS(n)                                                                \
    do {                                                                                      \
        char names_[1024];                                                                    \
        int n_ = dir_count(faildir, names_, sizeof names_);                                   \
        CHECKF(n_ == (n), "%s holds %d entries (%s); expected %d", faildir, n_, names_, (n)); \
    } while (0)

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void *read_all(const char *path, size_t *size)
{
    void *data = NULL;
    if (imageio_slurp(path, (size_t)1 << 30, &data, size, err) != UPF_OK)
        return NULL;
    return data;
}

static imageio_image make_image(int w, int h, upf_format f)
{
    imageio_image im;
    upf_result r = imageio_alloc(&im, w, h, f, err);
    CHECKF(r == UPF_OK, "imageio_alloc: %s", err);
    return im;
}

static void fill_random(imageio_image *im, test_rng *rng)
{
    size_t bytes = im->img.stride * (size_t)im->img.height;
    unsigned char *p = im->img.data;
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)test_rand_u32(rng);
}

static void set_opaque(imageio_image *im)
{
    size_t n = (size_t)im->img.width * im->img.height;
    if (im->img.format == UPF_FORMAT_RGBA8_SRGB)
        for (size_t i = 0; i < n; i++)
            ((uint8_t *)im->img.data)[4 * i + 3] = 255;
    else
        for (size_t i = 0; i < n; i++)
            ((uint16_t *)im->img.data)[4 * i + 3] = 65535;
}

static bool same_pixels(const upf_image *a, const upf_image *b)
{
    if (a->width != b->width || a->height != b->height || a->format != b->format)
        return false;
    size_t row = (size_t)a->width * upf_format_bytes_per_pixel(a->format);
    for (int y = 0; y < a->height; y++) {
        size_t sa = a->stride ? a->stride : row, sb = b->stride ? b->stride : row;
        if (memcmp((char *)a->data + y * sa, (char *)b->data + y * sb, row) != 0)
            return false;
    }
    return true;
}

/* sRGB encode, IEC 61966-2-1:1999 5.3, written out here independently of core/color.h. */
static double srgb_encode_def(double l)
{
    if (l <= 0.0)
        return 0.0;
    if (l >= 1.0)
        return 1.0;
    return l <= 0.0031308 ? 12.92 * l : 1.055 * exp(log(l) / 2.4) - 0.055;
}

static double srgb_decode_def(double v)
{
    return v <= 0.04045 ? v / 12.92 : exp(2.4 * log((v + 0.055) / 1.055));
}

/* CRC-32 of PNG chunks (ISO 3309 polynomial, as the PNG spec's annex D), bit by bit. */
static uint32_t crc32_png(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* The offset of the first chunk of a type in a PNG (its length field), or 0. */
static size_t png_find_chunk(const unsigned char *png, size_t size, const char *type)
{
    size_t pos = 8;
    while (pos + 12 <= size) {
        uint32_t len = be32(png + pos);
        if (memcmp(png + pos + 4, type, 4) == 0)
            return pos;
        pos += 12 + (size_t)len;
    }
    return 0;
}

/* Recomputes the CRC of the chunk at `pos`. */
static void png_fix_crc(unsigned char *png, size_t pos)
{
    uint32_t len = be32(png + pos);
    put_be32(png + pos + 8 + len, crc32_png(png + pos + 4, 4 + (size_t)len));
}

/* Encodes a PNG with libspng's encoder, from samples in the PNG's own layout. */
static unsigned char *spng_make(const struct spng_ihdr *ihdr, const struct spng_plte *plte,
                                const struct spng_trns *trns, const void *samples,
                                size_t bytes, size_t *size)
{
    spng_ctx *e = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr h = *ihdr;
    int ret = spng_set_option(e, SPNG_ENCODE_TO_BUFFER, 1);
    if (!ret)
        ret = spng_set_ihdr(e, &h);
    if (!ret && plte) {
        struct spng_plte p = *plte;
        ret = spng_set_plte(e, &p);
    }
    if (!ret && trns) {
        struct spng_trns t = *trns;
        ret = spng_set_trns(e, &t);
    }
    if (!ret)
        ret = spng_encode_image(e, samples, bytes, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    unsigned char *buf = NULL;
    if (!ret)
        buf = spng_get_png_buffer(e, size, &ret);
    CHECKF(ret == 0 && buf, "libspng encoder: %s", spng_strerror(ret));
    spng_ctx_free(e);
    return buf;
}

/* A small valid RGB PNG (for the corruption tests), 8x6, from libspng's encoder. */
static unsigned char *small_png(size_t *size)
{
    uint8_t rgb[8 * 6 * 3];
    for (int i = 0; i < (int)sizeof rgb; i++)
        rgb[i] = (uint8_t)(i * 37 + 11);
    struct spng_ihdr ih = { .width = 8, .height = 6, .bit_depth = 8,
                            .color_type = SPNG_COLOR_TYPE_TRUECOLOR };
    return spng_make(&ih, NULL, NULL, rgb, sizeof rgb, size);
}

/* A smooth colour picture for JPEG (smooth, so quality 95 keeps it within a few codes). */
static void jpeg_picture(uint8_t *rgb, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + 3 * ((size_t)y * w + x);
            p[0] = (uint8_t)(40 + 160 * x / (w - 1));
            p[1] = (uint8_t)(200 - 120 * y / (h - 1));
            p[2] = (uint8_t)(90 + 40 * (x + y) / (w + h - 2));
        }
}

/* A PFM in memory: header text then the given floats, little or big endian. */
static unsigned char *pfm_make(const char *header, const float *vals, size_t count, bool little,
                               size_t *size)
{
    size_t hl = strlen(header);
    unsigned char *buf = malloc(hl + count * 4);
    memcpy(buf, header, hl);
    for (size_t i = 0; i < count; i++) {
        uint32_t u;
        memcpy(&u, &vals[i], 4);
        unsigned char *p = buf + hl + 4 * i;
        for (int k = 0; k < 4; k++)
            p[little ? k : 3 - k] = (unsigned char)(u >> (8 * k));
    }
    *size = hl + count * 4;
    return buf;
}

/* ---- PNG -------------------------------------------------------------------------------- */

static void test_png_round_trips(test_rng *rng)
{
    char path[1200];
    imageio_image in, back;
    /* 8-bit RGBA with varied alpha: bit-exact, 4 channels. */
    in = make_image(37, 23, UPF_FORMAT_RGBA8_SRGB);
    fill_random(&in, rng);
    ((uint8_t *)in.img.data)[3] = 7; /* at least one pixel is not opaque */
    CHECK_IO_OK(imageio_write_png(tmp_path(path, sizeof path, "rgba8.png"), &in.img, 8, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.type == IMAGEIO_PNG && back.channels == 4 && back.bit_depth == 8);
    CHECK(same_pixels(&in.img, &back.img));
    imageio_free(&back);

    /* Opaque: stored as RGB (3 channels), still bit-exact. */
    set_opaque(&in);
    CHECK_IO_OK(imageio_write_png(tmp_path(path, sizeof path, "rgb8.png"), &in.img, 8, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.channels == 3 && back.bit_depth == 8);
    CHECK(same_pixels(&in.img, &back.img));
    imageio_free(&back);

    /* 8-bit source written as 16 bits: each code c becomes c * 257 (c/255 of 65535). */
    CHECK_IO_OK(imageio_write_png(tmp_path(path, sizeof path, "rgb8as16.png"), &in.img, 16, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.img.format == UPF_FORMAT_RGBA16_SRGB && back.bit_depth == 16);
    int wrong = 0;
    for (size_t i = 0; i < (size_t)37 * 23 * 4; i++)
        wrong += ((uint16_t *)back.img.data)[i] != ((uint8_t *)in.img.data)[i] * 257;
    CHECK_EQ_INT(wrong, 0);
    imageio_free(&back);
    imageio_free(&in);

    /* 16-bit RGBA and RGB: bit-exact; the file holds big-endian samples as PNG requires,
     * checked with libspng's raw (file-order) decode, not our reader. */
    for (int opaque = 0; opaque < 2; opaque++) {
        in = make_image(19, 11, UPF_FORMAT_RGBA16_SRGB);
        fill_random(&in, rng);
        if (opaque)
            set_opaque(&in);
        else
            ((uint16_t *)in.img.data)[3] = 65534;
        tmp_path(path, sizeof path, opaque ? "rgb16.png" : "rgba16.png");
        CHECK_IO_OK(imageio_write_png(path, &in.img, 16, err));
        CHECK_IO_OK(imageio_read(path, NULL, &back, err));
        CHECK(back.img.format == UPF_FORMAT_RGBA16_SRGB && back.bit_depth == 16);
        CHECK_EQ_INT(back.channels, opaque ? 3 : 4);
        CHECK(same_pixels(&in.img, &back.img));
        imageio_free(&back);

        size_t size;
        void *file = read_all(path, &size);
        spng_ctx *d = spng_ctx_new(0);
        spng_set_png_buffer(d, file, size);
        int ch = opaque ? 3 : 4;
        size_t raw_size = (size_t)19 * 11 * ch * 2;
        unsigned char *raw = malloc(raw_size);
        size_t need = 0;
        spng_decoded_image_size(d, SPNG_FMT_RAW, &need);
        CHECK_EQ_INT(need, raw_size);
        CHECK_EQ_INT(spng_decode_image(d, raw, raw_size, SPNG_FMT_RAW, 0), 0);
        wrong = 0;
        for (size_t px = 0; px < (size_t)19 * 11; px++)
            for (int c = 0; c < ch; c++) {
                const unsigned char *s = raw + 2 * (px * ch + c);
                wrong += ((unsigned)s[0] << 8 | s[1]) != ((uint16_t *)in.img.data)[4 * px + c];
            }
        CHECK_EQ_INT(wrong, 0);
        free(raw);
        spng_ctx_free(d);
        free(file);
        imageio_free(&in);
    }

    /* A strided view (stride larger than a row) writes only the view's pixels. */
    in = make_image(10, 4, UPF_FORMAT_RGBA8_SRGB);
    fill_random(&in, rng);
    upf_image view = { (uint8_t *)in.img.data + 8, 6, 3, in.img.stride, UPF_FORMAT_RGBA8_SRGB };
    CHECK_IO_OK(imageio_write_png(tmp_path(path, sizeof path, "view.png"), &view, 8, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(same_pixels(&view, &back.img));
    imageio_free(&back);
    imageio_free(&in);
}

/* Whether the file's IDAT data is one complete zlib stream whose Adler-32 matches (zlib's
 * inflate checks it; libspng may stop before the trailer). */
static bool zlib_stream_ok(const char *path)
{
    size_t size = 0, len = 0;
    unsigned char *file = read_all(path, &size), *data = file ? malloc(size) : NULL;
    for (size_t pos = 8; data && pos + 12 <= size;) {
        size_t n = (size_t)file[pos] << 24 | (size_t)file[pos + 1] << 16 |
                   (size_t)file[pos + 2] << 8 | file[pos + 3];
        if (pos + 12 + n > size)
            break;
        if (memcmp(file + pos + 4, "IDAT", 4) == 0)
            memcpy(data + len, file + pos + 8, n), len += n;
        pos += 12 + n;
    }
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    int ret = data && inflateInit(&zs) == Z_OK ? Z_OK : Z_MEM_ERROR;
    unsigned char out[1 << 14];
    zs.next_in = data;
    zs.avail_in = (uInt)len;
    while (ret == Z_OK) {
        zs.next_out = out;
        zs.avail_out = sizeof out;
        ret = inflate(&zs, Z_NO_FLUSH);
    }
    bool ok = ret == Z_STREAM_END && zs.avail_in == 0;
    if (data)
        inflateEnd(&zs);
    free(data);
    free(file);
    return ok;
}

/* A picture the filters and levels make a difference on: smooth ramps, hard blocks and a
 * little noise; alpha varies unless `opaque`. 8- or 16-bit sRGB. */
static imageio_image make_smooth(int w, int h, upf_format f, bool opaque, test_rng *rng)
{
    imageio_image im = make_image(w, h, f);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                unsigned v = c == 3 ? (opaque ? 65535u : (unsigned)(x * 65535 / w))
                                    : (unsigned)((x * (c + 1) * 401 + y * 211) % 65536);
                if (c < 3 && ((x / 16 + y / 16) & 1))
                    v ^= 0x8000;
                if (c < 3)
                    v = (v + (test_rand_u32(rng) & 0x3ff)) & 0xffff;
                if (f == UPF_FORMAT_RGBA8_SRGB)
                    ((uint8_t *)im.img.data)[((size_t)y * w + x) * 4 + c] = (uint8_t)(v >> 8);
                else
                    ((uint16_t *)im.img.data)[((size_t)y * w + x) * 4 + c] = (uint16_t)v;
            }
    return im;
}

/* Every compression setting writes the same pixels back (8 and 16 bits, RGB and RGBA, an
 * 8-bit image written from float too); the presets differ (SMALL makes the smaller file, so
 * the settings reach the encoder); settings out of range are refused by name. */
static void test_png_settings(test_rng *rng)
{
    char path[1200];
    static const imageio_png_settings grid[] = {
        { 0, SPNG_FILTER_CHOICE_NONE, 0 }, { 1, SPNG_FILTER_CHOICE_SUB, 0 },
        { 1, SPNG_FILTER_CHOICE_SUB, 3 },  { 3, SPNG_FILTER_CHOICE_UP, 1 },
        { 6, SPNG_FILTER_CHOICE_AVG, 2 },  { 9, SPNG_FILTER_CHOICE_PAETH, 4 },
        { 9, SPNG_FILTER_CHOICE_ALL, 0 },  { 4, SPNG_FILTER_CHOICE_SUB | SPNG_FILTER_CHOICE_UP, 0 },
    };
    const int ng = (int)(sizeof grid / sizeof grid[0]);
    for (int bits = 8; bits <= 16; bits += 8) {
        upf_format f = bits == 8 ? UPF_FORMAT_RGBA8_SRGB : UPF_FORMAT_RGBA16_SRGB;
        for (int opaque = 0; opaque < 2; opaque++) {
            imageio_image in = make_smooth(173, 61, f, opaque, rng), back;
            for (int g = 0; g < ng + 2; g++) {
                imageio_png_settings set = g < ng ? grid[g]
                                                  : imageio_png_preset(g == ng ? IMAGEIO_PNG_FAST
                                                                               : IMAGEIO_PNG_SMALL);
                tmp_path(path, sizeof path, "settings.png");
                CHECK_IO_OK(imageio_write_png_with(path, &in.img, bits, &set, err));
                CHECK_IO_OK(imageio_read(path, NULL, &back, err));
                CHECKF(same_pixels(&in.img, &back.img) && back.channels == (opaque ? 3 : 4) &&
                           back.bit_depth == bits,
                       "%d bits, opaque %d, level %d filters 0x%x strategy %d", bits, opaque,
                       set.level, (unsigned)set.filters, set.strategy);
                imageio_free(&back);
            }
            /* Through imageio_write_with, the presets: each compresses (smaller than zlib's
             * level 0, stored), and they differ (the settings reach the encoder). Which is
             * smaller on game frames is measured by bench/bench_png.c, not here. */
            long size[3];
            void *bytes[3];
            for (int c = 0; c < 3; c++) {
                tmp_path(path, sizeof path, c == 2 ? "stored.png" : c ? "small.png" : "fast.png");
                const imageio_png_settings stored = { 0, SPNG_FILTER_CHOICE_NONE, 0 };
                if (c == 2)
                    CHECK_IO_OK(imageio_write_png_with(path, &in.img, bits, &stored, err));
                else
                    CHECK_IO_OK(imageio_write_with(path, &in.img, bits, c ? IMAGEIO_PNG_SMALL
                                                                          : IMAGEIO_PNG_FAST, err));
                CHECK_IO_OK(imageio_read(path, NULL, &back, err));
                CHECK(same_pixels(&in.img, &back.img));
                imageio_free(&back);
                size_t n = 0;
                bytes[c] = read_all(path, &n);
                size[c] = bytes[c] ? (long)n : -1;
            }
            CHECKF(size[0] > 0 && size[1] > 0 && size[0] < size[2] && size[1] < size[2] &&
                       (size[0] != size[1] || memcmp(bytes[0], bytes[1], (size_t)size[0]) != 0),
                   "%d bits: fast %ld bytes, small %ld, stored %ld", bits, size[0], size[1],
                   size[2]);
            for (int c = 0; c < 3; c++)
                free(bytes[c]);
            imageio_free(&in);
        }
    }
    /* One filter for every row goes through the bands in parallel (png_bands.c): a picture
     * tall enough for several bands (64 rows or more each, one per CPU), each filter type,
     * RGB and RGBA, 8 and 16 bits, reads back the same (the reader checks the zlib stream's
     * Adler-32 and every chunk's CRC). */
    for (int bits = 8; bits <= 16; bits += 8)
        for (int opaque = 0; opaque < 2; opaque++) {
            upf_format f = bits == 8 ? UPF_FORMAT_RGBA8_SRGB : UPF_FORMAT_RGBA16_SRGB;
            imageio_image in = make_smooth(97, 517, f, opaque, rng), back;
            for (int t = 0; t < 5; t++) {
                imageio_png_settings set = { t == 0 ? 0 : 1 + 2 * t, SPNG_FILTER_CHOICE_NONE << t,
                                             t % 2 ? 3 : 0 };
                tmp_path(path, sizeof path, "bands.png");
                CHECK_IO_OK(imageio_write_png_with(path, &in.img, bits, &set, err));
                CHECK_IO_OK(imageio_read(path, NULL, &back, err));
                CHECKF(same_pixels(&in.img, &back.img) && back.channels == (opaque ? 3 : 4) &&
                           zlib_stream_ok(path),
                       "bands: %d bits, opaque %d, filter %d", bits, opaque, t);
                imageio_free(&back);
            }
            imageio_free(&in);
        }

    /* Float through the writer's conversion, every row, with a preset: as the default. */
    imageio_image fl = make_image(67, 29, UPF_FORMAT_RGBA32F), a, b;
    for (size_t i = 0; i < (size_t)67 * 29 * 4; i++)
        ((float *)fl.img.data)[i] = (float)(test_rand_u32(rng) % 1000) / 999.0f;
    imageio_png_settings small = imageio_png_preset(IMAGEIO_PNG_SMALL);
    CHECK_IO_OK(imageio_write_png(tmp_path(path, sizeof path, "float_a.png"), &fl.img, 16, err));
    CHECK_IO_OK(imageio_read(path, NULL, &a, err));
    CHECK_IO_OK(imageio_write_png_with(tmp_path(path, sizeof path, "float_b.png"), &fl.img, 16,
                                       &small, err));
    CHECK_IO_OK(imageio_read(path, NULL, &b, err));
    CHECK(a.channels == 4 && same_pixels(&a.img, &b.img));
    imageio_free(&a);
    imageio_free(&b);
    imageio_free(&fl);

    imageio_image im = make_image(4, 4, UPF_FORMAT_RGBA8_SRGB);
    const imageio_png_settings bad[] = { { 10, SPNG_FILTER_CHOICE_SUB, 0 },
                                         { -1, SPNG_FILTER_CHOICE_SUB, 0 },
                                         { 1, 0x100, 0 }, { 1, SPNG_FILTER_CHOICE_SUB, 5 } };
    for (int i = 0; i < 4; i++) {
        tmp_path(path, sizeof path, "bad_settings.png");
        CHECK_IO_FAILS(imageio_write_png_with(path, &im.img, 8, &bad[i], err),
                       UPF_ERROR_INVALID_ARGUMENT, path, "expected a zlib level 0..9");
        CHECK(!file_exists(path));
    }
    imageio_free(&im);
}

/* Linear and float formats are sRGB-encoded, clamped to [0, 1] and rounded. */
static void test_png_from_linear(void)
{
    char path[1200];
    imageio_image in = make_image(8, 1, UPF_FORMAT_RGBA32F), back;
    const float vals[8] = { -0.5f, 0.0f, 0.001f, 0.0031308f, 0.18f, 0.5f, 1.0f, 3.0f };
    float *p = in.img.data;
    for (int x = 0; x < 8; x++) {
        p[4 * x + 0] = vals[x];
        p[4 * x + 1] = vals[7 - x];
        p[4 * x + 2] = 0.25f;
        p[4 * x + 3] = x == 2 ? 0.5f : 1.0f;
    }
    CHECK_IO_OK(imageio_write(tmp_path(path, sizeof path, "linear.png"), &in.img, 8, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.img.format == UPF_FORMAT_RGBA8_SRGB && back.channels == 4);
    const uint8_t *q = back.img.data;
    for (int x = 0; x < 8; x++) {
        CHECK_EQ_INT(q[4 * x + 0], (int)floor(255.0 * srgb_encode_def(vals[x]) + 0.5));
        CHECK_EQ_INT(q[4 * x + 1], (int)floor(255.0 * srgb_encode_def(vals[7 - x]) + 0.5));
        CHECK_EQ_INT(q[4 * x + 2], (int)floor(255.0 * srgb_encode_def(0.25) + 0.5));
        CHECK_EQ_INT(q[4 * x + 3], x == 2 ? 128 : 255); /* alpha stays linear */
    }
    imageio_free(&back);
    /* The same at 16 bits, through imageio_write's png_bits. */
    CHECK_IO_OK(imageio_write(tmp_path(path, sizeof path, "linear16.PNG"), &in.img, 16, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.img.format == UPF_FORMAT_RGBA16_SRGB);
    const uint16_t *q16 = back.img.data;
    for (int x = 0; x < 8; x++)
        CHECK_NEAR(q16[4 * x + 0], floor(65535.0 * srgb_encode_def(vals[x]) + 0.5), 1);
    imageio_free(&back);
    imageio_free(&in);

    /* RGBA8 linear: code c is light c/255. */
    in = make_image(256, 1, UPF_FORMAT_RGBA8_UNORM);
    for (int x = 0; x < 256; x++) {
        uint8_t *px = (uint8_t *)in.img.data + 4 * x;
        px[0] = px[1] = px[2] = (uint8_t)x;
        px[3] = 255;
    }
    CHECK_IO_OK(imageio_write_png(tmp_path(path, sizeof path, "unorm8.png"), &in.img, 8, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    int wrong = 0;
    for (int x = 0; x < 256; x++)
        wrong += ((uint8_t *)back.img.data)[4 * x] != (int)floor(255.0 * srgb_encode_def(x / 255.0) + 0.5);
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(back.channels, 3);
    imageio_free(&back);
    imageio_free(&in);
}

/* Other colour types and depths, made with libspng's encoder: grey 1/4/8/16 bit, grey +
 * alpha, palette with tRNS, interlaced RGB. */
static void test_png_colour_types(void)
{
    imageio_image im;
    size_t size;
    unsigned char *png;

    /* Grey 8-bit, 5x3: value v -> (v, v, v, 255). */
    uint8_t grey[15];
    for (int i = 0; i < 15; i++)
        grey[i] = (uint8_t)(i * 17);
    struct spng_ihdr ih = { .width = 5, .height = 3, .bit_depth = 8,
                            .color_type = SPNG_COLOR_TYPE_GRAYSCALE };
    png = spng_make(&ih, NULL, NULL, grey, sizeof grey, &size);
    CHECK_IO_OK(imageio_read_png_mem(png, size, "grey8", NULL, &im, err));
    CHECK(im.channels == 1 && im.bit_depth == 8 && im.img.format == UPF_FORMAT_RGBA8_SRGB);
    int wrong = 0;
    for (int i = 0; i < 15; i++) {
        const uint8_t *p = (uint8_t *)im.img.data + 4 * i;
        wrong += p[0] != grey[i] || p[1] != grey[i] || p[2] != grey[i] || p[3] != 255;
    }
    CHECK_EQ_INT(wrong, 0);
    imageio_free(&im);
    free(png);

    /* Grey 1-bit, 10x2 (rows of 2 bytes, MSB first): 0 -> 0, 1 -> 255. */
    uint8_t bits1[4] = { 0xA5, 0x80, 0x3C, 0x40 };
    ih = (struct spng_ihdr){ .width = 10, .height = 2, .bit_depth = 1,
                             .color_type = SPNG_COLOR_TYPE_GRAYSCALE };
    png = spng_make(&ih, NULL, NULL, bits1, sizeof bits1, &size);
    CHECK_IO_OK(imageio_read_png_mem(png, size, "grey1", NULL, &im, err));
    CHECK(im.channels == 1 && im.bit_depth == 8);
    wrong = 0;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 10; x++) {
            int bit = bits1[2 * y + x / 8] >> (7 - x % 8) & 1;
            wrong += ((uint8_t *)im.img.data)[4 * (10 * y + x)] != (bit ? 255 : 0);
        }
    CHECK_EQ_INT(wrong, 0);
    imageio_free(&im);
    free(png);

    /* Grey 4-bit, 4x1: v -> v * 17. */
    uint8_t bits4[2] = { 0x0F, 0x7A };
    ih = (struct spng_ihdr){ .width = 4, .height = 1, .bit_depth = 4,
                             .color_type = SPNG_COLOR_TYPE_GRAYSCALE };
    png = spng_make(&ih, NULL, NULL, bits4, sizeof bits4, &size);
    CHECK_IO_OK(imageio_read_png_mem(png, size, "grey4", NULL, &im, err));
    const int want4[4] = { 0, 15, 7, 10 };
    for (int x = 0; x < 4; x++)
        CHECK_EQ_INT(((uint8_t *)im.img.data)[4 * x + 1], want4[x] * 17);
    imageio_free(&im);
    free(png);

    /* Grey + alpha 8-bit, 2x1. */
    uint8_t ga[4] = { 10, 20, 200, 255 };
    ih = (struct spng_ihdr){ .width = 2, .height = 1, .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_GRAYSCALE_ALPHA };
    png = spng_make(&ih, NULL, NULL, ga, sizeof ga, &size);
    CHECK_IO_OK(imageio_read_png_mem(png, size, "ga8", NULL, &im, err));
    CHECK_EQ_INT(im.channels, 2);
    const uint8_t *p = im.img.data;
    CHECK(p[0] == 10 && p[2] == 10 && p[3] == 20 && p[4] == 200 && p[7] == 255);
    imageio_free(&im);
    free(png);

    /* Palette, 2-bit indices, with tRNS: 4x2 pixels of entries 0..3. */
    struct spng_plte plte = { .n_entries = 4 };
    for (int i = 0; i < 4; i++)
        plte.entries[i] = (struct spng_plte_entry){ (uint8_t)(60 * i), (uint8_t)(255 - 50 * i),
                                                    (uint8_t)(7 * i), 255 };
    struct spng_trns trns = { .n_type3_entries = 2, .type3_alpha = { 0, 128 } };
    uint8_t idx[2] = { 0x1B, 0xE4 }; /* 0 1 2 3 / 3 2 1 0 */
    ih = (struct spng_ihdr){ .width = 4, .height = 2, .bit_depth = 2,
                             .color_type = SPNG_COLOR_TYPE_INDEXED };
    png = spng_make(&ih, &plte, &trns, idx, sizeof idx, &size);
    CHECK_IO_OK(imageio_read_png_mem(png, size, "palette", NULL, &im, err));
    CHECK(im.channels == 4 && im.bit_depth == 8);
    const int order[8] = { 0, 1, 2, 3, 3, 2, 1, 0 };
    wrong = 0;
    for (int i = 0; i < 8; i++) {
        const uint8_t *q = (uint8_t *)im.img.data + 4 * i;
        int e = order[i];
        int alpha = e == 0 ? 0 : e == 1 ? 128 : 255;
        wrong += q[0] != 60 * e || q[1] != 255 - 50 * e || q[2] != 7 * e || q[3] != alpha;
    }
    CHECK_EQ_INT(wrong, 0);
    imageio_free(&im);
    free(png);

    /* Grey 16-bit with a tRNS grey value: RGBA16, that value transparent. */
    uint16_t g16[3] = { 0x1234, 0xABCD, 0x0001 }; /* 3x1; libspng takes host-endian samples */
    struct spng_trns trns16 = { .gray = 0xABCD };
    ih = (struct spng_ihdr){ .width = 3, .height = 1, .bit_depth = 16,
                             .color_type = SPNG_COLOR_TYPE_GRAYSCALE };
    png = spng_make(&ih, NULL, &trns16, g16, sizeof g16, &size);
    CHECK_IO_OK(imageio_read_png_mem(png, size, "grey16", NULL, &im, err));
    CHECK(im.img.format == UPF_FORMAT_RGBA16_SRGB && im.bit_depth == 16 && im.channels == 2);
    const uint16_t *q16 = im.img.data;
    CHECK(q16[0] == 0x1234 && q16[2] == 0x1234 && q16[3] == 65535);
    CHECK(q16[4] == 0xABCD && q16[7] == 0);
    CHECK(q16[8] == 0x0001 && q16[11] == 65535);
    imageio_free(&im);
    free(png);

    /* Adam7-interlaced RGB, 9x7: deinterlaced to the same pixels as a plain encode. */
    uint8_t rgb[9 * 7 * 3];
    for (int i = 0; i < (int)sizeof rgb; i++)
        rgb[i] = (uint8_t)(i * 13 + 5);
    ih = (struct spng_ihdr){ .width = 9, .height = 7, .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_TRUECOLOR,
                             .interlace_method = SPNG_INTERLACE_ADAM7 };
    png = spng_make(&ih, NULL, NULL, rgb, sizeof rgb, &size);
    if (png) {
        CHECK_IO_OK(imageio_read_png_mem(png, size, "adam7", NULL, &im, err));
        wrong = 0;
        for (int i = 0; i < 63; i++)
            for (int c = 0; c < 3; c++)
                wrong += ((uint8_t *)im.img.data)[4 * i + c] != rgb[3 * i + c];
        CHECK_EQ_INT(wrong, 0);
        imageio_free(&im);
        free(png);
    }
}

static void test_png_bad(void)
{
    size_t size;
    unsigned char *good = small_png(&size);
    unsigned char *buf = malloc(size + 16);
    imageio_image im;

    size_t idat = png_find_chunk(good, size, "IDAT");
    size_t iend = png_find_chunk(good, size, "IEND");
    CHECK(idat > 0 && iend > idat);
    uint32_t idat_len = be32(good + idat);

    /* Truncated at several points: in the signature's wake, in IHDR, before / inside IDAT,
     * before IEND, inside IEND. */
    const size_t cuts[] = { 8, 12, 20, 30, idat, idat + 8, idat + 8 + idat_len / 2,
                            idat + 8 + idat_len, iend, iend + 8, size - 1 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        memcpy(buf, good, cuts[i]);
        im.img.data = (void *)1;
        CHECK_IO_FAILS(imageio_read_png_mem(buf, cuts[i], "cut.png", NULL, &im, err),
                       UPF_ERROR_BAD_DATA, "cut.png", "truncated");
        CHECK(im.img.data == NULL);
    }
    /* A signature alone, or fewer bytes: not even a PNG. */
    CHECK_IO_FAILS(imageio_read_png_mem(good, 7, "sig.png", NULL, &im, err), UPF_ERROR_BAD_DATA,
                   "sig.png", "not a PNG");

    /* A flipped byte in the IDAT data: the CRC or zlib catches it (libspng inflates a chunk
     * before it reaches the CRC at its end). */
    memcpy(buf, good, size);
    buf[idat + 8 + idat_len / 2] ^= 0x20;
    CHECK_IO_FAILS(imageio_read_png_mem(buf, size, "flip.png", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "flip.png", "corrupt PNG");
    /* The same with the CRC recomputed: zlib's checks catch it. */
    png_fix_crc(buf, idat);
    CHECK_IO_FAILS(imageio_read_png_mem(buf, size, "zlib.png", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "zlib.png", "corrupt");
    /* A flipped byte in a CRC (IHDR's, IEND's). */
    memcpy(buf, good, size);
    buf[8 + 8 + 13] ^= 1;
    CHECK_IO_FAILS(imageio_read_png_mem(buf, size, "crc.png", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "crc.png", "CRC");
    memcpy(buf, good, size);
    buf[size - 1] ^= 0x80;
    CHECK_IO_FAILS(imageio_read_png_mem(buf, size, "crc2.png", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "crc2.png", "CRC");
    /* IEND missing (the file ends right after IDAT's CRC): truncated. */
    CHECK_IO_FAILS(imageio_read_png_mem(good, iend, "noiend.png", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "noiend.png", "truncated");
    /* Wrong magic. */
    memcpy(buf, good, size);
    buf[1] = 'Q';
    CHECK_IO_FAILS(imageio_read_png_mem(buf, size, "magic.png", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "magic.png", "not a PNG");

    /* Sizes, hand-made in IHDR with a correct CRC: zero, huge, over caller limits. */
    const struct { uint32_t w, h; const char *needle; } sizes[] = {
        { 0, 6, "0x6 pixels" },
        { 8, 0, "8x0 pixels" },
        { 100000, 100000, "100000x100000 pixels" },
        { 16385, 1, "16385x1 pixels" },
        { 0x80000000u, 1, "2147483648x1" },
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        memcpy(buf, good, size);
        put_be32(buf + 16, sizes[i].w);
        put_be32(buf + 20, sizes[i].h);
        png_fix_crc(buf, 8);
        CHECK_IO_FAILS(imageio_read_png_mem(buf, size, "size.png", NULL, &im, err),
                       UPF_ERROR_BAD_DATA, "size.png", sizes[i].needle);
        CHECK(strstr(err, "expected 1..") != NULL);
    }
    imageio_limits lim = { .max_width = 4, .max_height = 100 };
    CHECK_IO_FAILS(imageio_read_png_mem(good, size, "lim.png", &lim, &im, err),
                   UPF_ERROR_BAD_DATA, "lim.png", "expected 1..4 wide");
    lim = (imageio_limits){ .max_pixels = 47 };
    CHECK_IO_FAILS(imageio_read_png_mem(good, size, "px.png", &lim, &im, err),
                   UPF_ERROR_BAD_DATA, "px.png", "48 pixels; expected at most 47");
    lim.max_pixels = 48;
    CHECK_IO_OK(imageio_read_png_mem(good, size, "px.png", &lim, &im, err));
    imageio_free(&im);
    /* An unknown critical chunk, with a correct CRC: refused. */
    memcpy(buf, good, size);
    memcpy(buf + idat + 4, "IDAx", 4);
    png_fix_crc(buf, idat);
    CHECK_IO_FAILS(imageio_read_png_mem(buf, size, "chunk.png", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "chunk.png", "corrupt PNG");
    free(buf);
    free(good);
}

/* ---- JPEG ------------------------------------------------------------------------------- */

static void test_jpeg_read(void)
{
    enum { W = 24, H = 16 };
    uint8_t rgb[W * H * 3];
    jpeg_picture(rgb, W, H);
    imageio_image im;
    for (int progressive = 0; progressive < 2; progressive++) {
        size_t size;
        unsigned char *jpg = jpeg_make(rgb, W, H, 3, 95, progressive, &size);
        CHECK_IO_OK(imageio_read_jpeg_mem(jpg, size, "pic.jpg", NULL, &im, err));
        CHECK(im.img.width == W && im.img.height == H && im.img.format == UPF_FORMAT_RGBA8_SRGB);
        CHECK(im.type == IMAGEIO_JPEG && im.channels == 3 && im.bit_depth == 8);
        int worst = 0, alpha_wrong = 0;
        for (int i = 0; i < W * H; i++) {
            const uint8_t *p = (uint8_t *)im.img.data + 4 * i;
            for (int c = 0; c < 3; c++) {
                int d = abs(p[c] - rgb[3 * i + c]);
                worst = d > worst ? d : worst;
            }
            alpha_wrong += p[3] != 255;
        }
        /* Quality 95 with 4:2:0 chroma on a smooth ramp: within a few codes. */
        CHECKF(worst <= 6, "JPEG error %d codes", worst);
        CHECK_EQ_INT(alpha_wrong, 0);
        imageio_free(&im);
        /* The same through the file reader, chosen by content. */
        char path[1200];
        tmp_path(path, sizeof path, "pic.jpeg.bin");
        CHECK_IO_OK(imageio_write_file_atomic(path, jpg, size, err));
        CHECK_IO_OK(imageio_read(path, NULL, &im, err));
        CHECK(im.type == IMAGEIO_JPEG && im.img.width == W);
        imageio_free(&im);
        free(jpg);
    }

    /* Greyscale: expanded to R = G = B, 1 channel in the file. */
    uint8_t grey[W * H];
    for (int i = 0; i < W * H; i++)
        grey[i] = (uint8_t)(30 + i % W * 8);
    size_t size;
    unsigned char *jpg = jpeg_make(grey, W, H, 1, 95, false, &size);
    CHECK_IO_OK(imageio_read_jpeg_mem(jpg, size, "grey.jpg", NULL, &im, err));
    CHECK_EQ_INT(im.channels, 1);
    int worst = 0, unequal = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = (uint8_t *)im.img.data + 4 * i;
        worst = abs(p[0] - grey[i]) > worst ? abs(p[0] - grey[i]) : worst;
        unequal += p[0] != p[1] || p[1] != p[2];
    }
    CHECKF(worst <= 4, "grey JPEG error %d codes", worst);
    CHECK_EQ_INT(unequal, 0);
    imageio_free(&im);
    free(jpg);

    /* CMYK: valid, but refused as unsupported. */
    uint8_t cmyk[8 * 8 * 4];
    memset(cmyk, 90, sizeof cmyk);
    jpg = jpeg_make(cmyk, 8, 8, 4, 90, false, &size);
    CHECK_IO_FAILS(imageio_read_jpeg_mem(jpg, size, "cmyk.jpg", NULL, &im, err),
                   UPF_ERROR_UNSUPPORTED, "cmyk.jpg", "CMYK");
    CHECK(im.img.data == NULL);
    free(jpg);
}

/* A progressive grey 8x8 JPEG whose scan script sends each AC coefficient k = 1..bands on
 * its own, first at Al = 8 then refined bit by bit (Ah = 8..1): 1 + 9 * bands scans. */
static unsigned char *jpeg_many_scans(int bands, size_t *size)
{
    jpeg_enc e;
    jpeg_enc_begin(&e, 8, 8, 1);
    static jpeg_scan_info scans[1 + 9 * 63];
    int n = 0;
    scans[n++] = (jpeg_scan_info){ 1, { 0 }, 0, 0, 0, 0 };
    for (int k = 1; k <= bands; k++) {
        scans[n++] = (jpeg_scan_info){ 1, { 0 }, k, k, 0, 8 };
        for (int ah = 8; ah >= 1; ah--)
            scans[n++] = (jpeg_scan_info){ 1, { 0 }, k, k, ah, ah - 1 };
    }
    e.c.scan_info = scans;
    e.c.num_scans = n;
    uint8_t pix[64];
    for (int i = 0; i < 64; i++)
        pix[i] = (uint8_t)(i * 3);
    return jpeg_enc_end(&e, pix, size);
}

/* The offset of a JPEG marker (FF xx) after the header, or 0. */
static size_t jpeg_find_marker(const unsigned char *p, size_t size, unsigned char marker)
{
    for (size_t i = 2; i + 1 < size; i++)
        if (p[i] == 0xff && p[i + 1] == marker)
            return i;
    return 0;
}

static void test_jpeg_bad(void)
{
    enum { W = 32, H = 32 };
    uint8_t rgb[W * H * 3];
    jpeg_picture(rgb, W, H);
    size_t size;
    unsigned char *good = jpeg_make(rgb, W, H, 3, 90, false, &size);
    unsigned char *buf = malloc(size + 64);
    imageio_image im;
    size_t sos = jpeg_find_marker(good, size, 0xDA);
    size_t sof = jpeg_find_marker(good, size, 0xC0);
    CHECK(sos > 0 && sof > 0);

    /* Truncated in the headers, at the start of the scan, in the middle, just before EOI. */
    const size_t cuts[] = { 3, 10, sof + 5, sos, sos + 20, (sos + size) / 2, size - 2 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        memcpy(buf, good, cuts[i]);
        im.img.data = (void *)1;
        CHECK_IO_FAILS(imageio_read_jpeg_mem(buf, cuts[i], "cut.jpg", NULL, &im, err),
                       UPF_ERROR_BAD_DATA, "cut.jpg", "truncated");
        CHECK(im.img.data == NULL);
    }
    /* Scan data cut short and followed by EOI: "premature end of data segment". */
    size_t mid = (sos + size) / 2;
    memcpy(buf, good, mid);
    buf[mid] = 0xff, buf[mid + 1] = 0xd9;
    CHECK_IO_FAILS(imageio_read_jpeg_mem(buf, mid + 2, "short.jpg", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "short.jpg", "corrupt JPEG");
    /* A stray restart marker in the scan data (the file has no restart interval). */
    memcpy(buf, good, size);
    buf[mid] = 0xff, buf[mid + 1] = 0xd3;
    CHECK_IO_FAILS(imageio_read_jpeg_mem(buf, size, "rst.jpg", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "rst.jpg", "corrupt JPEG");
    /* Garbage bytes between the scan and EOI: libjpeg warns of extraneous bytes. */
    memcpy(buf, good, size - 2);
    memcpy(buf + size - 2, "\x12\x34\xff\xd9", 4);
    CHECK_IO_FAILS(imageio_read_jpeg_mem(buf, size + 2, "extra.jpg", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "extra.jpg", "corrupt JPEG");
    /* A bad marker in the headers. */
    memcpy(buf, good, size);
    buf[sof + 1] = 0x01;
    CHECK_IO_FAILS(imageio_read_jpeg_mem(buf, size, "marker.jpg", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "marker.jpg", "corrupt JPEG");
    /* Wrong magic. */
    memcpy(buf, good, size);
    buf[1] = 0xd9;
    CHECK_IO_FAILS(imageio_read_jpeg_mem(buf, size, "magic.jpg", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "magic.jpg", "not a JPEG");

    /* SOF0: FF C0, length (2), precision (1), height (2), width (2). */
    const struct { unsigned w, h; upf_result code; const char *needle; } sizes[] = {
        { 0, 32, UPF_ERROR_BAD_DATA, "corrupt JPEG" }, /* libjpeg: empty image */
        { 32, 0, UPF_ERROR_BAD_DATA, "corrupt JPEG" },
        { 60000, 60000, UPF_ERROR_BAD_DATA, "60000x60000 pixels; expected 1..16384" },
        { 16385, 8, UPF_ERROR_BAD_DATA, "16385x8 pixels" },
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        memcpy(buf, good, size);
        buf[sof + 5] = (unsigned char)(sizes[i].h >> 8), buf[sof + 6] = (unsigned char)sizes[i].h;
        buf[sof + 7] = (unsigned char)(sizes[i].w >> 8), buf[sof + 8] = (unsigned char)sizes[i].w;
        CHECK_IO_FAILS(imageio_read_jpeg_mem(buf, size, "size.jpg", NULL, &im, err),
                       sizes[i].code, "size.jpg", sizes[i].needle);
    }
    /* The scan limit: 1 + 9 * 55 = 496 scans decode, 1 + 9 * 63 = 568 do not. */
    size_t many_size;
    unsigned char *many = jpeg_many_scans(55, &many_size);
    CHECK_IO_OK(imageio_read_jpeg_mem(many, many_size, "scans.jpg", NULL, &im, err));
    CHECK(im.img.width == 8 && im.channels == 1);
    imageio_free(&im);
    free(many);
    many = jpeg_many_scans(63, &many_size);
    CHECK_IO_FAILS(imageio_read_jpeg_mem(many, many_size, "scans.jpg", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "scans.jpg", "more than 500 scans");
    CHECK(im.img.data == NULL);
    free(many);

    imageio_limits lim = { .max_width = 16, .max_height = 16 };
    CHECK_IO_FAILS(imageio_read_jpeg_mem(good, size, "lim.jpg", &lim, &im, err),
                   UPF_ERROR_BAD_DATA, "lim.jpg", "32x32 pixels; expected 1..16 wide");
    free(buf);
    free(good);
}

/* ---- PFM -------------------------------------------------------------------------------- */

static void test_pfm_round_trips(test_rng *rng)
{
    char path[1200];
    imageio_image in, back;

    /* RGBA32F: RGB exact, alpha dropped (read back as 1). Includes values far outside [0,1]. */
    in = make_image(13, 7, UPF_FORMAT_RGBA32F);
    float *p = in.img.data;
    for (int i = 0; i < 13 * 7 * 4; i++)
        p[i] = (test_rand_float(rng) - 0.25f) * 1000.0f;
    p[0] = -0.0f, p[1] = 1e-40f, p[2] = 3.4e38f; /* negative zero, subnormal, near max */
    CHECK_IO_OK(imageio_write_pfm(tmp_path(path, sizeof path, "rgb.pfm"), &in.img, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.type == IMAGEIO_PFM && back.channels == 3 && back.bit_depth == 32);
    CHECK(back.img.format == UPF_FORMAT_RGBA32F);
    int wrong = 0;
    for (int i = 0; i < 13 * 7; i++) {
        const float *a = p + 4 * i, *b = (float *)back.img.data + 4 * i;
        wrong += memcmp(a, b, 12) != 0 || b[3] != 1.0f;
    }
    CHECK_EQ_INT(wrong, 0);
    imageio_free(&back);

    /* The file: header exactly as documented, rows bottom first, little endian. */
    size_t size;
    unsigned char *file = read_all(path, &size);
    const char *hdr = "PF\n13 7\n-1.0\n";
    CHECK(file && size == strlen(hdr) + 13 * 7 * 12 && memcmp(file, hdr, strlen(hdr)) == 0);
    if (file) {
        const float *bottom_left = p + 4 * (13 * 6);
        uint32_t u;
        memcpy(&u, &bottom_left[0], 4);
        const unsigned char *d = file + strlen(hdr);
        CHECK(d[0] == (u & 0xff) && d[3] == u >> 24);
        free(file);
    }
    imageio_free(&in);

    /* RGBA8 sRGB: written as linear light, the sRGB curve's values. */
    in = make_image(16, 16, UPF_FORMAT_RGBA8_SRGB);
    for (int i = 0; i < 256; i++) {
        uint8_t *px = (uint8_t *)in.img.data + 4 * i;
        px[0] = (uint8_t)i, px[1] = (uint8_t)(255 - i), px[2] = 128, px[3] = 0;
    }
    CHECK_IO_OK(imageio_write(tmp_path(path, sizeof path, "srgb.pfm"), &in.img, 0, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    double worst = 0;
    for (int i = 0; i < 256; i++) {
        const float *b = (float *)back.img.data + 4 * i;
        worst = fmax(worst, fabs(b[0] - srgb_decode_def(i / 255.0)));
        worst = fmax(worst, fabs(b[1] - srgb_decode_def((255 - i) / 255.0)));
        worst = fmax(worst, fabs(b[3] - 1.0));
    }
    CHECK_NEAR(worst, 0, 1e-6);
    imageio_free(&back);
    imageio_free(&in);

    /* R32F (depth): "Pf", exact. */
    in = make_image(9, 5, UPF_FORMAT_R32F);
    p = in.img.data;
    for (int i = 0; i < 45; i++)
        p[i] = test_rand_float(rng) * 100.0f + 0.01f;
    CHECK_IO_OK(imageio_write_pfm(tmp_path(path, sizeof path, "depth.pfm"), &in.img, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.channels == 1 && back.img.format == UPF_FORMAT_R32F);
    CHECK(same_pixels(&in.img, &back.img));
    file = read_all(path, &size);
    CHECK(file && memcmp(file, "Pf\n9 5\n-1.0\n", 12) == 0);
    free(file);
    imageio_free(&back);
    imageio_free(&in);

    /* RG32F (motion): "PF" with B = 0. */
    in = make_image(6, 4, UPF_FORMAT_RG32F);
    p = in.img.data;
    for (int i = 0; i < 48; i++)
        p[i] = (test_rand_float(rng) - 0.5f) * 64.0f;
    CHECK_IO_OK(imageio_write_pfm(tmp_path(path, sizeof path, "motion.pfm"), &in.img, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.channels == 3 && back.img.format == UPF_FORMAT_RGBA32F);
    wrong = 0;
    for (int i = 0; i < 24; i++) {
        const float *b = (float *)back.img.data + 4 * i;
        wrong += b[0] != p[2 * i] || b[1] != p[2 * i + 1] || b[2] != 0.0f || b[3] != 1.0f;
    }
    CHECK_EQ_INT(wrong, 0);
    imageio_free(&back);
    imageio_free(&in);

    /* Hand-made big-endian file, 2x2, rows bottom first, with tabs and runs of whitespace. */
    const float vals[12] = { 1, 2, 3, 4, 5, 6, /* bottom row */ 7, 8, 9, 10, 11, 12 /* top */ };
    unsigned char *pfm = pfm_make("PF \t2\n\n 2\r\n+12.5e-1\n", vals, 12, false, &size);
    CHECK_IO_OK(imageio_read_pfm_mem(pfm, size, "be.pfm", NULL, &back, err));
    const float *b = back.img.data;
    CHECK(b[0] == 7 && b[1] == 8 && b[2] == 9 && b[4] == 10 && b[6] == 12); /* top row first */
    CHECK(b[8] == 1 && b[12] == 4 && b[14] == 6 && b[15] == 1);
    imageio_free(&back);
    free(pfm);
    /* Little endian, grey, any negative scale. */
    pfm = pfm_make("Pf\n3 1\n-0.004\n", vals, 3, true, &size);
    CHECK_IO_OK(imageio_read_pfm_mem(pfm, size, "le.pfm", NULL, &back, err));
    b = back.img.data;
    CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3);
    imageio_free(&back);
    free(pfm);
}

static void test_pfm_bad(void)
{
    imageio_image im;
    const float vals[12] = { 0.5f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
    size_t size;
    unsigned char *good = pfm_make("PF\n2 2\n-1.0\n", vals, 12, true, &size);
    const size_t good_size = size;
    const size_t header = strlen("PF\n2 2\n-1.0\n");

    /* Truncated: in the header at every byte, and in the data at several points. */
    for (size_t cut = 0; cut <= header; cut++) {
        im.img.data = (void *)1;
        CHECK_IO_FAILS(imageio_read_pfm_mem(good, cut, "cut.pfm", NULL, &im, err),
                       UPF_ERROR_BAD_DATA, "cut.pfm", cut == 0 ? "empty" : cut < 2 ? "not a PFM" : "truncated");
        CHECK(im.img.data == NULL);
    }
    const size_t data_cuts[] = { header + 1, header + 4, header + 24, size - 1 };
    for (size_t i = 0; i < 4; i++)
        CHECK_IO_FAILS(imageio_read_pfm_mem(good, data_cuts[i], "short.pfm", NULL, &im, err),
                       UPF_ERROR_BAD_DATA, "short.pfm", "truncated");
    CHECK_IO_FAILS(imageio_read_pfm_mem(good, size - 1, "short.pfm", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "short.pfm", "expected 48 (2x2 pixels x 3 channels");

    /* Headers that are wrong, each with the words its message must hold. */
    static const struct { const char *header; const char *needle; } bad[] = {
        { "PX\n2 2\n-1.0\n", "not a PFM" },
        { "P6\n2 2\n255\n", "not a PFM" },
        { "pf\n2 2\n-1.0\n", "not a PFM" },
        { "PFF\n2 2\n-1.0\n", "'F' after the \"PF\"; expected whitespace" },
        { "PF\nabc 2\n-1.0\n", "width is 'abc'; expected a positive integer" },
        { "PF\n-2 2\n-1.0\n", "width is '-2'" },
        { "PF\n2x 2\n-1.0\n", "width is '2x'" },
        { "PF\n2 +2\n-1.0\n", "height is '+2'" },
        { "PF\n0 2\n-1.0\n", "0x2 pixels; expected 1..16384" },
        { "PF\n2 0\n-1.0\n", "2x0 pixels" },
        { "PF\n100000 100000\n-1.0\n", "100000x100000 pixels; expected 1..16384" },
        { "PF\n1234567890 1\n-1.0\n", "width is '1234567890'" },
        { "PF\n2 2\n0.0\n", "scale is '0.0', zero" },
        { "PF\n2 2\n-0\n", "scale is '-0', zero" },
        { "PF\n2 2\nnan\n", "scale is 'nan'; expected a finite non-zero number" },
        { "PF\n2 2\ninf\n", "scale is 'inf'; expected a finite" },
        { "PF\n2 2\n-1e999\n", "not finite" },
        { "PF\n2 2\n-1.0.0\n", "scale is '-1.0.0'" },
        { "PF\n2 2\n-1.0e\n", "scale is '-1.0e'" },
        { "PF\n2 2\n- 1\n", "scale is '-'" },
        { "PF\n2 2\n-1,0\n", "scale is '-1,0'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char *f = pfm_make(bad[i].header, vals, 12, true, &size);
        im.img.data = (void *)1;
        CHECK_IO_FAILS(imageio_read_pfm_mem(f, size, "bad.pfm", NULL, &im, err),
                       UPF_ERROR_BAD_DATA, "bad.pfm", bad[i].needle);
        CHECK(im.img.data == NULL);
        free(f);
    }
    /* Headers that end early (no data after them). */
    static const struct { const char *header; const char *needle; } early[] = {
        { "PF\n2\n\n\n", "truncated before the height" },
        { "PF\n2 2\n-1.0", "truncated in the scale ('-1.0')" },
        { "PF\n2 2\n-1.0\n", "data is truncated: 0 bytes; expected 48" },
        { "PF\n2 2\n", "truncated before the scale" },
        { "PF\n2 2", "truncated after the height" },
        { "PF", "truncated after the \"PF\"" },
    };
    for (size_t i = 0; i < sizeof early / sizeof early[0]; i++)
        CHECK_IO_FAILS(imageio_read_pfm_mem(early[i].header, strlen(early[i].header), "early.pfm",
                                            NULL, &im, err),
                       UPF_ERROR_BAD_DATA, "early.pfm", early[i].needle);
    /* CR LF after the scale: two whitespace characters, so the data is a byte out. */
    unsigned char *f = pfm_make("PF\n2 2\n-1.0\r\n", vals, 12, true, &size);
    CHECK_IO_FAILS(imageio_read_pfm_mem(f, size, "crlf.pfm", NULL, &im, err), UPF_ERROR_BAD_DATA,
                   "crlf.pfm", "has 1 byte after the pixel data");
    free(f);
    /* Trailing bytes after the data are refused. */
    f = malloc(good_size + 3);
    memcpy(f, good, good_size);
    memcpy(f + good_size, "xyz", 3);
    CHECK_IO_FAILS(imageio_read_pfm_mem(f, good_size + 3, "tail.pfm", NULL, &im, err),
                   UPF_ERROR_BAD_DATA, "tail.pfm", "3 bytes after the pixel data");
    free(f);
    /* Caller limits. */
    imageio_limits lim = { .max_height = 1 };
    CHECK_IO_FAILS(imageio_read_pfm_mem(good, good_size, "lim.pfm", &lim, &im, err),
                   UPF_ERROR_BAD_DATA, "lim.pfm", "2x2 pixels; expected 1..16384 wide and 1..1 high");

    /* NaN, +Inf, -Inf: refused, naming the pixel (from the top left) and the channel. The
     * file's sample k is pixel (k/3 % 2, 1 - k/6) channel k % 3: rows are bottom first. */
    static const struct { int sample; float v; const char *needle; } nf[] = {
        { 4, NAN, "pixel 1,1 (x,y from the top left) channel G is NaN" },
        { 6, INFINITY, "pixel 0,0 (x,y from the top left) channel R is +Inf" },
        { 11, -INFINITY, "pixel 1,0 (x,y from the top left) channel B is -Inf" },
    };
    for (int i = 0; i < 3; i++) {
        float v2[12];
        memcpy(v2, vals, sizeof v2);
        v2[nf[i].sample] = nf[i].v;
        for (int little = 0; little < 2; little++) {
            f = pfm_make(little ? "PF\n2 2\n-1.0\n" : "PF\n2 2\n1.0\n", v2, 12, little, &size);
            im.img.data = (void *)1;
            CHECK_IO_FAILS(imageio_read_pfm_mem(f, size, "nan.pfm", NULL, &im, err),
                           UPF_ERROR_BAD_DATA, "nan.pfm", nf[i].needle);
            CHECK(im.img.data == NULL);
            free(f);
        }
    }
    float g[3] = { 1, NAN, 2 };
    f = pfm_make("Pf\n3 1\n-1\n", g, 3, true, &size);
    CHECK_IO_FAILS(imageio_read_pfm_mem(f, size, "grey.pfm", NULL, &im, err), UPF_ERROR_BAD_DATA,
                   "grey.pfm", "pixel 1,0 (x,y from the top left) channel Y is NaN");
    free(f);
    free(good);
}

/* ---- dispatch, files, failing writes -------------------------------------------------- */

static void test_dispatch_and_files(test_rng *rng)
{
    char path[1200], path2[1200];
    imageio_image im = make_image(4, 3, UPF_FORMAT_RGBA8_SRGB), back;
    fill_random(&im, rng);

    CHECK(imageio_type_from_path("a/b.Png") == IMAGEIO_PNG);
    CHECK(imageio_type_from_path("x.JPEG") == IMAGEIO_JPEG);
    CHECK(imageio_type_from_path("x.jpg") == IMAGEIO_JPEG);
    CHECK(imageio_type_from_path("x.pfm") == IMAGEIO_PFM);
    CHECK(imageio_type_from_path("x.png/y") == IMAGEIO_UNKNOWN);
    CHECK(imageio_type_from_path("png") == IMAGEIO_UNKNOWN);

    /* Reads go by content: a PFM named .png is read as a PFM. */
    tmp_path(path, sizeof path, "really_a_pfm.png");
    CHECK_IO_OK(imageio_write_pfm(path, &im.img, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(back.type == IMAGEIO_PFM);
    imageio_free(&back);

    /* Other formats are named (issue 10: they were "not a PNG, JPEG or PFM file" with hex);
     * unknown content shows its first bytes. */
    static const struct {
        const char *bytes;
        size_t size;
        const char *name;
    } others[] = {
        { "GIF89a\x01\x02", 8, "a GIF image" },
        { "GIF87a\x01\x02", 8, "a GIF image" },
        { "RIFF\x10\0\0\0WEBPVP8 ", 16, "a WebP image" },
        { "BM\x3a\0\0\0\0\0\0\0\x36\0\0\0", 14, "a BMP image" },
        { "P6\n2 2\n255\n", 11, "a PPM image" },
        { "P5 2 2 255\n", 11, "a PGM image" },
        { "P4\n8 1\n\xff", 9, "a PBM image" },
        { "II*\0\x08\0\0\0", 8, "a TIFF image" },
        { "qoif\0\0\0\x01", 8, "a QOI image" },
        { "v/1\x01\x02\0\0\0", 8, "an OpenEXR image" },
        { "UPFMODEL\x01\0", 10, "an upframe model file" },
    };
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        tmp_path(path, sizeof path, "other.bin");
        CHECK_IO_OK(imageio_write_file_atomic(path, others[k].bytes, others[k].size, err));
        CHECK_IO_FAILS(imageio_read(path, NULL, &back, err), UPF_ERROR_UNSUPPORTED, path,
                       "expected a PNG, JPEG or PFM file");
        CHECKF(strstr(err, others[k].name) != NULL, "%s: %s", others[k].name, err);
    }
    tmp_path(path, sizeof path, "pic.xyz");
    CHECK_IO_OK(imageio_write_file_atomic(path, "XYZ\x01\x02\x03\x04\x05", 8, err));
    CHECK_IO_FAILS(imageio_read(path, NULL, &back, err), UPF_ERROR_BAD_DATA, path,
                   "not a PNG, JPEG or PFM file (first bytes 58 59 5a 01 02 03 04 05)");
    tmp_path(path, sizeof path, "empty.png");
    CHECK_IO_OK(imageio_write_file_atomic(path, "", 0, err));
    CHECK_IO_FAILS(imageio_read(path, NULL, &back, err), UPF_ERROR_BAD_DATA, path, "empty");
    CHECK_IO_FAILS(imageio_read_mem("P", 1, "p1", NULL, &back, err), UPF_ERROR_BAD_DATA, "p1",
                   "first bytes 50)");
    tmp_path(path, sizeof path, "missing.png");
    CHECK_IO_FAILS(imageio_read(path, NULL, &back, err), UPF_ERROR_IO, path, "cannot open");
    CHECK_IO_FAILS(imageio_read(tmpdir, NULL, &back, err), UPF_ERROR_IO, tmpdir,
                   "not a regular file");
    /* Each reader takes only its own type. */
    unsigned char pfm[] = "Pf\n1 1\n-1\n\0\0\0\0";
    CHECK_IO_FAILS(imageio_read_png_mem(pfm, sizeof pfm - 1, "x", NULL, &back, err),
                   UPF_ERROR_BAD_DATA, "x", "not a PNG");
    CHECK_IO_FAILS(imageio_read_jpeg_mem(pfm, sizeof pfm - 1, "x", NULL, &back, err),
                   UPF_ERROR_BAD_DATA, "x", "not a JPEG");
    CHECK_IO_OK(imageio_read_pfm_mem(pfm, sizeof pfm - 1, "x", NULL, &back, err));
    imageio_free(&back);
    CHECK_IO_FAILS(imageio_read_mem(NULL, 5, "null", NULL, &back, err),
                   UPF_ERROR_INVALID_ARGUMENT, "null", "data is NULL");
    CHECK_IO_FAILS(imageio_read(NULL, NULL, &back, err), UPF_ERROR_INVALID_ARGUMENT,
                   "imageio_read", "path is NULL");
    CHECK_IO_FAILS(imageio_read(path, NULL, NULL, err), UPF_ERROR_INVALID_ARGUMENT,
                   "imageio_read", "out is NULL");
    CHECK_IO_FAILS(imageio_write(NULL, &im.img, 8, err), UPF_ERROR_INVALID_ARGUMENT, "output",
                   "path is NULL");
    CHECK_IO_FAILS(imageio_write_pfm("x.pfm", NULL, err), UPF_ERROR_INVALID_ARGUMENT, "x.pfm",
                   "image is NULL");

    /* Overwriting: the new file replaces the old whole. */
    tmp_path(path, sizeof path, "over.png");
    CHECK_IO_OK(imageio_write(path, &im.img, 8, err));
    imageio_image big = make_image(40, 30, UPF_FORMAT_RGBA8_SRGB);
    fill_random(&big, rng);
    CHECK_IO_OK(imageio_write(path, &big.img, 8, err));
    CHECK_IO_OK(imageio_read(path, NULL, &back, err));
    CHECK(same_pixels(&big.img, &back.img));
    imageio_free(&back);
    imageio_free(&big);

    /* Failing writes: each leaves the fail folder empty (no output, no temporary file). */
    CHECK_FAILDIR_HOLDS(0);
    snprintf(path, sizeof path, "%s/x.bmp", faildir);
    CHECK_IO_FAILS(imageio_write(path, &im.img, 8, err), UPF_ERROR_INVALID_ARGUMENT, path,
                   "expected a name ending in .png or .pfm");
    CHECK_FAILDIR_HOLDS(0);
    snprintf(path, sizeof path, "%s/x.jpg", faildir);
    CHECK_IO_FAILS(imageio_write(path, &im.img, 8, err), UPF_ERROR_UNSUPPORTED, path,
                   "writing JPEG is not supported");
    snprintf(path, sizeof path, "%s/noext", faildir);
    CHECK_IO_FAILS(imageio_write(path, &im.img, 8, err), UPF_ERROR_INVALID_ARGUMENT, path,
                   ".png or .pfm");
    CHECK_FAILDIR_HOLDS(0);
    snprintf(path, sizeof path, "%s/x.png", faildir);
    CHECK_IO_FAILS(imageio_write_png(path, &im.img, 12, err), UPF_ERROR_INVALID_ARGUMENT, path,
                   "expected 8 or 16");
    imageio_image depth = make_image(3, 2, UPF_FORMAT_R32F);
    CHECK_IO_FAILS(imageio_write(path, &depth.img, 8, err), UPF_ERROR_INVALID_ARGUMENT, path,
                   "cannot write a r32f image as PNG");
    upf_image nodata = { NULL, 4, 3, 0, UPF_FORMAT_RGBA8_SRGB };
    CHECK_IO_FAILS(imageio_write(path, &nodata, 8, err), UPF_ERROR_INVALID_ARGUMENT, path,
                   "data is NULL");
    upf_image zero = { im.img.data, 0, 3, 0, UPF_FORMAT_RGBA8_SRGB };
    CHECK_IO_FAILS(imageio_write(path, &zero, 8, err), UPF_ERROR_INVALID_ARGUMENT, path,
                   "0x3; expected each side in 1..16384");
    upf_image thin = { im.img.data, 4, 3, 8, UPF_FORMAT_RGBA8_SRGB };
    CHECK_IO_FAILS(imageio_write(path, &thin, 8, err), UPF_ERROR_INVALID_ARGUMENT, path,
                   "stride is 8 bytes");
    CHECK_FAILDIR_HOLDS(0);

    /* Non-finite pixels: PNG refuses before opening anything; PFM finds them mid-file (rows
     * are written bottom up; this one is in the top row) and must remove its temporary file. */
    imageio_image f32 = make_image(5, 4, UPF_FORMAT_RGBA32F);
    ((float *)f32.img.data)[4 * 2 + 1] = NAN; /* pixel 2,0 channel G */
    snprintf(path, sizeof path, "%s/nan.png", faildir);
    CHECK_IO_FAILS(imageio_write(path, &f32.img, 8, err), UPF_ERROR_BAD_DATA, path,
                   "pixel 2,0 is NaN or infinite");
    snprintf(path, sizeof path, "%s/nan.pfm", faildir);
    CHECK_IO_FAILS(imageio_write(path, &f32.img, 8, err), UPF_ERROR_BAD_DATA, path,
                   "pixel 2,0 channel G is NaN");
    CHECK_FAILDIR_HOLDS(0);
    ((float *)f32.img.data)[4 * 2 + 1] = 0.0f;
    ((float *)f32.img.data)[4 * 19 + 3] = -INFINITY; /* alpha too must be finite */
    CHECK_IO_FAILS(imageio_write(path, &f32.img, 8, err), UPF_ERROR_BAD_DATA, path,
                   "pixel 4,3 channel A is -Inf");
    imageio_image h16 = make_image(2, 2, UPF_FORMAT_RGBA16F);
    ((uint16_t *)h16.img.data)[4 * 3 + 2] = 0x7c00; /* +Inf in pixel 1,1 channel B */
    CHECK_IO_FAILS(imageio_write(path, &h16.img, 8, err), UPF_ERROR_BAD_DATA, path,
                   "pixel 1,1 channel B is +Inf");
    ((float *)depth.img.data)[4] = INFINITY;
    CHECK_IO_FAILS(imageio_write(path, &depth.img, 8, err), UPF_ERROR_BAD_DATA, path,
                   "pixel 1,1 channel Y is +Inf");
    imageio_image mv = make_image(3, 3, UPF_FORMAT_RG32F);
    ((float *)mv.img.data)[2 * 4 + 1] = NAN;
    CHECK_IO_FAILS(imageio_write(path, &mv.img, 8, err), UPF_ERROR_BAD_DATA, path,
                   "pixel 1,1 channel G is NaN");
    CHECK_FAILDIR_HOLDS(0);

    /* Paths that cannot be written: a missing folder, a folder under a regular file, and a
     * target that is a folder (the rename fails after the file is complete). */
    snprintf(path, sizeof path, "%s/missing/x.png", faildir);
    CHECK_IO_FAILS(imageio_write(path, &im.img, 8, err), UPF_ERROR_IO, path, "cannot create");
    snprintf(path, sizeof path, "%s/missing/x.pfm", faildir);
    CHECK_IO_FAILS(imageio_write(path, &im.img, 8, err), UPF_ERROR_IO, path, "cannot create");
    CHECK_IO_FAILS(imageio_write("/etc/passwd/x.png", &im.img, 8, err), UPF_ERROR_IO,
                   "/etc/passwd/x.png", "cannot create");
    CHECK_IO_FAILS(imageio_write("/etc/passwd/x.pfm", &im.img, 8, err), UPF_ERROR_IO,
                   "/etc/passwd/x.pfm", "cannot create");
    CHECK(!file_exists("/etc/passwd/x.png"));
    CHECK_FAILDIR_HOLDS(0);
    snprintf(path, sizeof path, "%s/dir.png", faildir);
    CHECK(mkdir(path, 0755) == 0);
    CHECK_IO_FAILS(imageio_write(path, &im.img, 8, err), UPF_ERROR_IO, path,
                   "cannot rename the finished file into place");
    snprintf(path2, sizeof path2, "%s/dir.pfm", faildir);
    CHECK(mkdir(path2, 0755) == 0);
    CHECK_IO_FAILS(imageio_write(path2, &im.img, 8, err), UPF_ERROR_IO, path2,
                   "cannot rename the finished file into place");
    CHECK_FAILDIR_HOLDS(2); /* just the two folders */
    rmdir(path);
    rmdir(path2);

    /* A read-only folder (meaningless as root, who may write anywhere). */
    if (geteuid() != 0) {
        snprintf(path2, sizeof path2, "%s/ro", faildir);
        CHECK(mkdir(path2, 0555) == 0);
        snprintf(path, sizeof path, "%s/ro/x.png", faildir);
        CHECK_IO_FAILS(imageio_write(path, &im.img, 8, err), UPF_ERROR_IO, path,
                       "cannot create");
        char names[256];
        CHECK_EQ_INT(dir_count(path2, names, sizeof names), 0);
        rmdir(path2);
    }
    CHECK_FAILDIR_HOLDS(0);

    imageio_free(&mv);
    imageio_free(&h16);
    imageio_free(&f32);
    imageio_free(&depth);
    imageio_free(&im);
}

int main(void)
{
    test_rng rng = test_rng_make("imageio");
    verbose = getenv("UPF_TEST_VERBOSE") != NULL;
    snprintf(tmpdir, sizeof tmpdir, "%s", UPF_TEST_TMPDIR);
    snprintf(faildir, sizeof faildir, "%s/fail", tmpdir);
    mkdir(tmpdir, 0755);
    rmtree_files(faildir);
    rmdir(faildir);
    rmtree_files(tmpdir);
    if (mkdir(faildir, 0755) != 0) {
        fprintf(stderr, "cannot create %s: %s\n", faildir, strerror(errno));
        return 1;
    }
    test_png_round_trips(&rng);
    test_png_settings(&rng);
    test_png_from_linear();
    test_png_colour_types();
    test_png_bad();
    test_jpeg_read();
    test_jpeg_bad();
    test_pfm_round_trips(&rng);
    test_pfm_bad();
    test_dispatch_and_files(&rng);
    return test_finish("imageio");
}
