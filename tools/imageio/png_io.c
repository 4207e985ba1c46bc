/* png_io.c: PNG files. Reads any PNG (every colour type and bit depth, interlaced or not)
 * from memory with libspng into RGBA8_SRGB (bit depths 1..8) or RGBA16_SRGB (16 bit,
 * host-endian); writes any colour image as an 8- or 16-bit PNG (RGB when every alpha is
 * opaque, else RGBA) through a temporary file renamed into place.
 *
 * Reading is strict: the size is checked against the caller's limits before any pixel
 * memory is allocated, libspng runs under chunk limits, every CRC (critical and ancillary)
 * and the zlib Adler-32 are verified, and the file must run to its IEND chunk. A file that
 * fails any of this is an error; the caller never sees a partly decoded image. Colour
 * management chunks (gAMA, cHRM, iCCP) are not applied: samples are taken as sRGB, which is
 * what nearly every game capture and screenshot is. Bytes after IEND are ignored. */
#include <errno.h>
#include <spng.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/color.h"
#include "core/image.h"
#include "imageio/image_io.h"
#include "imageio/imageio_internal.h"

/* libspng's limits on what it caches beside the pixels: one chunk of at most 16 MiB, and
 * 64 MiB of ancillary chunk data in all (text, ICC profiles, unknown chunks). */
#define PNG_CHUNK_LIMIT ((size_t)16 << 20)
#define PNG_CACHE_LIMIT ((size_t)64 << 20)

static uint32_t load_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A libspng error code as a message naming the file, what was wrong and what was expected. */
static upf_result png_error(const char *name, int code, char *err)
{
    switch (code) {
    case SPNG_IO_EOF:
    case SPNG_EOF:
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: PNG file is truncated (it ends before "
                             "its IEND chunk); expected a complete PNG file", name);
    case SPNG_ECHUNK_CRC:
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: corrupt PNG: a chunk's CRC does not "
                             "match its data; expected an undamaged PNG file", name);
    case SPNG_EZLIB:
    case SPNG_EZLIB_INIT:
    case SPNG_EIDAT_STREAM:
    case SPNG_EIDAT_TOO_SHORT:
    case SPNG_EFILTER:
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: corrupt PNG: the compressed image "
                             "data is damaged or short (%s); expected an undamaged PNG file",
                             name, spng_strerror(code));
    case SPNG_ECHUNK_LIMITS:
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: PNG has chunks over the reader's "
                             "limits; expected chunks of at most %zu MiB and at most %zu MiB of "
                             "ancillary data in all", name, PNG_CHUNK_LIMIT >> 20,
                             PNG_CACHE_LIMIT >> 20);
    case SPNG_EMEM:
        return imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory decoding the PNG",
                             name);
    case SPNG_ESIGNATURE:
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: not a PNG file (bad signature); "
                             "expected a file starting with the 8-byte PNG signature", name);
    default:
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: corrupt PNG: %s (libspng error "
                             "%d); expected a valid PNG file", name, spng_strerror(code), code);
    }
}

/* Checks that the file holds a whole IEND chunk, CRC included: libspng 0.7.3 accepts a file
 * that ends after IEND's type. Walks the chunk lengths (libspng has checked the chunks). */
static upf_result check_iend(const unsigned char *png, size_t size, const char *name, char *err)
{
    static const unsigned char iend_crc[4] = { 0xae, 0x42, 0x60, 0x82 }; /* CRC of "IEND" */
    size_t pos = 8;
    for (;;) {
        if (size - pos < 12)
            break;
        uint32_t len = load_be32(png + pos);
        if (len > 0x7fffffffu || size - pos - 12 < len)
            break;
        if (memcmp(png + pos + 4, "IEND", 4) == 0) {
            if (len == 0 && memcmp(png + pos + 8, iend_crc, 4) == 0)
                return UPF_OK;
            return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: corrupt PNG: the IEND chunk is "
                                 "damaged; expected an undamaged PNG file", name);
        }
        pos += 12 + (size_t)len;
    }
    return png_error(name, SPNG_IO_EOF, err);
}

/* Channels the file holds: those of its colour type, plus alpha if a tRNS chunk is there. */
static int png_channels(spng_ctx *ctx, const struct spng_ihdr *ihdr)
{
    int channels;
    switch (ihdr->color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE: channels = 1; break;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: channels = 2; break;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: channels = 4; break;
    default: channels = 3; break; /* truecolour, or a palette of RGB entries */
    }
    struct spng_trns trns;
    if ((channels == 1 || channels == 3) && spng_get_trns(ctx, &trns) == 0)
        channels++;
    return channels;
}

upf_result imageio_read_png_mem(const void *data, size_t size, const char *name,
                                const imageio_limits *limits, imageio_image *out, char *err)
{
    upf_result begin = imageio__begin_read("imageio_read_png_mem", data, size, &name, out, err);
    if (begin != UPF_OK)
        return begin;
    if (imageio_detect(data, size) != IMAGEIO_PNG)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: not a PNG file (no PNG signature); "
                             "expected a file starting with the 8-byte PNG signature", name);

    spng_ctx *ctx = spng_ctx_new(0);
    if (!ctx)
        return imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory for the PNG "
                             "decoder", name);
    int max_w = limits && limits->max_width > 0 ? limits->max_width : UPF_MAX_IMAGE_DIMENSION;
    int max_h = limits && limits->max_height > 0 ? limits->max_height : UPF_MAX_IMAGE_DIMENSION;
    upf_result r = UPF_OK;
    int ret = spng_set_crc_action(ctx, SPNG_CRC_ERROR, SPNG_CRC_ERROR);
    if (!ret)
        ret = spng_set_chunk_limits(ctx, PNG_CHUNK_LIMIT, PNG_CACHE_LIMIT);
    if (!ret)
        ret = spng_set_image_limits(ctx, (uint32_t)max_w, (uint32_t)max_h);
    if (!ret)
        ret = spng_set_png_buffer(ctx, data, size);
    struct spng_ihdr ihdr;
    if (!ret)
        ret = spng_get_ihdr(ctx, &ihdr);
    if (ret == SPNG_EUSER_WIDTH || ret == SPNG_EUSER_HEIGHT || ret == SPNG_EWIDTH ||
        ret == SPNG_EHEIGHT) {
        /* libspng refused the size (over our limits, zero, or over 2^31 - 1); say what it
         * was. IHDR is the first chunk, at offset 8: length, "IHDR", width, height. */
        r = size >= 24 ? imageio__check_size(name, limits, load_be32((const unsigned char *)data + 16),
                                             load_be32((const unsigned char *)data + 20), err)
                       : UPF_OK;
        if (r == UPF_OK)
            r = png_error(name, ret, err);
        goto done;
    }
    if (ret) {
        r = png_error(name, ret, err);
        goto done;
    }
    r = imageio__check_size(name, limits, ihdr.width, ihdr.height, err);
    if (r != UPF_OK)
        goto done;

    int fmt = ihdr.bit_depth == 16 ? SPNG_FMT_RGBA16 : SPNG_FMT_RGBA8;
    upf_format format = ihdr.bit_depth == 16 ? UPF_FORMAT_RGBA16_SRGB : UPF_FORMAT_RGBA8_SRGB;
    size_t need = 0;
    ret = spng_decoded_image_size(ctx, fmt, &need);
    if (ret) {
        r = png_error(name, ret, err);
        goto done;
    }
    size_t expect = (size_t)ihdr.width * ihdr.height * upf_format_bytes_per_pixel(format);
    if (need != expect) {
        r = imageio__fail(err, UPF_ERROR_INTERNAL, "%s: libspng wants %zu bytes for a %ux%u "
                          "image; expected %zu", name, need, ihdr.width, ihdr.height, expect);
        goto done;
    }
    r = imageio_alloc(out, (int)ihdr.width, (int)ihdr.height, format, err);
    if (r != UPF_OK)
        goto done;
    ret = spng_decode_image(ctx, out->img.data, need, fmt, SPNG_DECODE_TRNS);
    /* The chunks after the image, up to IEND: a file cut after its last IDAT is truncated. */
    if (!ret)
        ret = spng_decode_chunks(ctx);
    if (ret) {
        r = png_error(name, ret, err);
        goto done;
    }
    r = check_iend(data, size, name, err);
    if (r != UPF_OK)
        goto done;
    out->type = IMAGEIO_PNG;
    out->bit_depth = ihdr.bit_depth == 16 ? 16 : 8;
    out->channels = png_channels(ctx, &ihdr);

done:
    if (r != UPF_OK)
        imageio_free(out);
    spng_ctx_free(ctx);
    return r;
}

/* ---- writing -------------------------------------------------------------------------- */

/* The encoder works a row at a time (libspng's progressive encode): no copy of the whole
 * picture is made, only one row of samples, and a row of floats for formats converted. */
typedef struct png_rows {
    const upf_image *img;
    int bits;            /* 8 or 16 */
    bool direct;         /* the samples are the image's own (sRGB of the same depth) */
    float *rgba;         /* one row of display-encoded floats, when not direct */
} png_rows;

/* Row y as display-encoded RGBA samples of `bits` in `dst` (w * 4 samples). Returns the x of
 * a non-finite pixel, or -1. */
static int row_samples(const png_rows *pr, int y, void *dst, float *rgba)
{
    const upf_image *img = pr->img;
    int w = img->width;
    if (pr->direct) {
        memcpy(dst, upf__row(img, y), (size_t)w * 4 * (size_t)(pr->bits / 8));
        return -1;
    }
    int bad = upf__row_to_display(img, y, 0, w, rgba);
    if (bad >= 0)
        return bad;
    if (pr->bits == 8) {
        uint8_t *p = dst;
        for (int i = 0; i < w * 4; i++)
            p[i] = (uint8_t)upf_unorm_from_float(rgba[i], 255);
    } else {
        uint16_t *p = dst;
        for (int i = 0; i < w * 4; i++)
            p[i] = (uint16_t)upf_unorm_from_float(rgba[i], 65535);
    }
    return -1;
}

/* Whether a row of RGBA samples is opaque (every alpha the maximum). The alphas are ANDed
 * together without an early exit, a loop the compiler runs on vectors. */
static bool row_opaque(const void *row, int w, int bits)
{
    if (bits == 8) {
        const uint8_t *p = row;
        unsigned all = 255;
        for (int x = 0; x < w; x++)
            all &= p[4 * x + 3];
        return all == 255;
    }
    const uint16_t *p = row;
    unsigned all = 65535;
    for (int x = 0; x < w; x++)
        all &= p[4 * x + 3];
    return all == 65535;
}

/* RGBA -> RGB in place, for an opaque picture stored without alpha. */
static void row_drop_alpha(void *row, int w, int bits)
{
    if (bits == 8) {
        uint8_t *p = row;
        for (int x = 0; x < w; x++)
            p[3 * x] = p[4 * x], p[3 * x + 1] = p[4 * x + 1], p[3 * x + 2] = p[4 * x + 2];
    } else {
        uint16_t *p = row;
        for (int x = 0; x < w; x++)
            p[3 * x] = p[4 * x], p[3 * x + 1] = p[4 * x + 1], p[3 * x + 2] = p[4 * x + 2];
    }
}

/* The first pass: whether every alpha is opaque, and the first non-finite pixel (*bad_x,
 * *bad_y, returning false). `row` holds one row of samples. */
static bool scan_rows(const png_rows *pr, void *row, bool *opaque, int *bad_x, int *bad_y)
{
    *opaque = true;
    for (int y = 0; y < pr->img->height; y++) {
        if (pr->direct) {
            /* No conversion: the alpha is read where it is; the copy would be wasted. */
            if (*opaque && !row_opaque(upf__row(pr->img, y), pr->img->width, pr->bits))
                *opaque = false;
            if (!*opaque)
                return true;
            continue;
        }
        int bad = row_samples(pr, y, row, pr->rgba);
        if (bad >= 0) {
            *bad_x = bad;
            *bad_y = y;
            return false;
        }
        if (*opaque && !row_opaque(row, pr->img->width, pr->bits))
            *opaque = false;
    }
    return true;
}

/* The parallel path's rows (png_bands.c): as the file stores them, 16-bit samples
 * big-endian. */
typedef struct band_src {
    png_rows pr;
    bool opaque;
} band_src;

static void band_row(const void *src, int y, unsigned char *dst, float *scratch)
{
    const band_src *b = src;
    int w = b->pr.img->width;
    if (b->pr.direct && b->opaque && b->pr.bits == 8) {
        /* The image's own 8-bit samples, RGB taken straight from them. */
        const uint8_t *p = upf__row(b->pr.img, y);
        for (int x = 0; x < w; x++)
            dst[3 * x] = p[4 * x], dst[3 * x + 1] = p[4 * x + 1], dst[3 * x + 2] = p[4 * x + 2];
        return;
    }
    row_samples(&b->pr, y, dst, scratch); /* finite: the first pass checked */
    if (b->opaque)
        row_drop_alpha(dst, w, b->pr.bits);
    if (b->pr.bits == 16) {
        size_t n = (size_t)w * (b->opaque ? 3 : 4);
        for (size_t i = 0; i < n; i++) {
            uint16_t v;
            memcpy(&v, dst + 2 * i, 2);
            dst[2 * i] = (unsigned char)(v >> 8), dst[2 * i + 1] = (unsigned char)v;
        }
    }
}

/* The filter type when `filters` names exactly one (0..4), else -1. */
static int single_filter(int filters)
{
    for (int t = 0; t < 5; t++)
        if (filters == (SPNG_FILTER_CHOICE_NONE << t))
            return t;
    return -1;
}

/* libspng's output: fwrite into the stream, keeping errno of the first failure so the
 * message can say why (a full disk, a file size limit, a closed pipe). */
typedef struct png_sink {
    FILE *f;
    int error; /* errno of the first failed write, or 0 */
} png_sink;

static int png_write_fn(spng_ctx *ctx, void *user, void *data, size_t length)
{
    (void)ctx;
    png_sink *sink = user;
    errno = 0;
    if (fwrite(data, 1, length, sink->f) != length) {
        sink->error = errno ? errno : EIO;
        return SPNG_IO_ERROR;
    }
    return 0;
}

imageio_png_settings imageio_png_preset(imageio_png_compression c)
{
    /* The choice and its measurements (bench/bench_png.c): docs/PERFORMANCE.md, "PNG
     * compression". fast: zlib level 1, the Paeth filter on every row, run-length matches
     * only (Z_RLE, 3): on 4K game frames as small as level 6 with the best filter of each row
     * at a sixth of its time. small: level 9, the best filter of each row. */
    if (c == IMAGEIO_PNG_SMALL)
        return (imageio_png_settings){ 9, SPNG_FILTER_CHOICE_ALL, 0 };
    return (imageio_png_settings){ 1, SPNG_FILTER_CHOICE_PAETH, 3 };
}

/* The encoder's settings: the header, sRGB, zlib level, filters and strategy, the sink. */
static int png_setup(spng_ctx *ctx, const upf_image *img, int bits, bool opaque,
                     const imageio_png_settings *set, png_sink *sink)
{
    struct spng_ihdr ihdr = {
        .width = (uint32_t)img->width,
        .height = (uint32_t)img->height,
        .bit_depth = (uint8_t)bits,
        .color_type = opaque ? SPNG_COLOR_TYPE_TRUECOLOR : SPNG_COLOR_TYPE_TRUECOLOR_ALPHA,
    };
    int ret = spng_set_ihdr(ctx, &ihdr);
    /* The samples are sRGB-encoded: say so (rendering intent 0, perceptual). */
    if (!ret)
        ret = spng_set_srgb(ctx, 0);
    if (!ret)
        ret = spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, set->level);
    if (!ret)
        ret = spng_set_option(ctx, SPNG_FILTER_CHOICE, set->filters);
    if (!ret)
        ret = spng_set_option(ctx, SPNG_IMG_COMPRESSION_STRATEGY, set->strategy);
    if (!ret)
        ret = spng_set_png_stream(ctx, png_write_fn, sink);
    /* SPNG_FMT_PNG: samples as the PNG holds them, 16-bit ones host-endian. */
    if (!ret)
        ret = spng_encode_image(ctx, NULL, 0, SPNG_FMT_PNG,
                                SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE);
    return ret;
}

/* The second pass: every row through the encoder. Returns libspng's code. */
static int encode_rows(spng_ctx *ctx, const png_rows *pr, void *row, bool opaque)
{
    const upf_image *img = pr->img;
    size_t len = (size_t)img->width * (opaque ? 3 : 4) * (size_t)(pr->bits / 8);
    for (int y = 0; y < img->height; y++) {
        const void *src = row;
        if (pr->direct && !opaque)
            src = upf__row(img, y); /* the image's own row, as it is */
        else
            row_samples(pr, y, row, pr->rgba); /* finite: the first pass checked */
        if (opaque)
            row_drop_alpha(row, img->width, pr->bits);
        int ret = spng_encode_row(ctx, src, len);
        if (ret == SPNG_EOI)
            return y == img->height - 1 ? 0 : ret;
        if (ret)
            return ret;
    }
    return SPNG_EOI; /* libspng wanted more rows than the image has */
}

upf_result imageio_write_png_stream_with(FILE *f, const char *name, const upf_image *img,
                                         int bits, const imageio_png_settings *settings,
                                         char *err)
{
    upf_result r = imageio__check_write(name, img, err);
    if (r != UPF_OK)
        return r;
    if (bits != 8 && bits != 16)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: PNG bit depth %d; expected "
                             "8 or 16", name, bits);
    if (!(UPF_FMTS_COLOR & UPF_FMT_BIT(img->format)))
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: cannot write a %s image as "
                             "PNG; expected a colour format (write depth and motion as .pfm)",
                             name, upf_format_name(img->format));
    imageio_png_settings set = settings ? *settings : imageio_png_preset(IMAGEIO_PNG_FAST);
    if (set.level < 0 || set.level > 9 || set.filters & ~SPNG_FILTER_CHOICE_ALL ||
        set.strategy < 0 || set.strategy > 4)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: PNG settings level %d, "
                             "filters 0x%x, strategy %d; expected a zlib level 0..9, "
                             "SPNG_FILTER_CHOICE bits and a zlib strategy 0..4", name,
                             set.level, (unsigned)set.filters, set.strategy);

    png_rows pr = { img, bits, (bits == 8 && img->format == UPF_FORMAT_RGBA8_SRGB) ||
                                   (bits == 16 && img->format == UPF_FORMAT_RGBA16_SRGB),
                    NULL };
    size_t row_bytes = (size_t)img->width * 4 * (size_t)(bits / 8);
    void *row = malloc(row_bytes);
    if (!pr.direct)
        pr.rgba = malloc((size_t)img->width * 4 * sizeof(float));
    if (!row || (!pr.direct && !pr.rgba)) {
        free(row);
        free(pr.rgba);
        return imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory for a row of "
                             "PNG samples", name);
    }
    bool opaque;
    int bad_x = 0, bad_y = 0;
    if (!scan_rows(&pr, row, &opaque, &bad_x, &bad_y)) {
        free(row);
        free(pr.rgba);
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: pixel %d,%d is NaN or infinite; "
                             "expected finite values", name, bad_x, bad_y);
    }

    png_sink sink = { f, 0 };
    int ret, filter = single_filter(set.filters);
    if (filter >= 0) {
        /* One filter for every row: the bands in parallel (png_bands.c). */
        const band_src src = { pr, opaque };
        const size_t bpp = (size_t)(opaque ? 3 : 4) * (size_t)(bits / 8);
        const imageio_png_bands job = { img->width, img->height, bits, opaque,
                                        bpp * (size_t)img->width, bpp, filter, set.level,
                                        set.strategy, band_row, &src };
        ret = imageio__png_bands(f, &job, &sink.error);
        if (ret)
            ret = ret == Z_MEM_ERROR ? SPNG_EMEM : SPNG_EZLIB;
    } else {
        spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
        ret = ctx ? png_setup(ctx, img, bits, opaque, &set, &sink) : SPNG_EMEM;
        if (!ret)
            ret = encode_rows(ctx, &pr, row, opaque);
        spng_ctx_free(ctx);
    }
    free(row);
    free(pr.rgba);
    if (ret && sink.error)
        return imageio__fail(err, UPF_ERROR_IO, "%s: write failed: %s", name,
                             strerror(sink.error));
    if (ret) {
        upf_result code = ret == SPNG_EMEM ? UPF_ERROR_OUT_OF_MEMORY : UPF_ERROR_IO;
        return imageio__fail(err, code, "%s: PNG encoding failed: %s", name, spng_strerror(ret));
    }
    return UPF_OK;
}

upf_result imageio_write_png_stream(FILE *f, const char *name, const upf_image *img, int bits,
                                    char *err)
{
    return imageio_write_png_stream_with(f, name, img, bits, NULL, err);
}

/* imageio_write_png_stream_with as an imageio_stream_writer. */
static upf_result write_png_stream(FILE *f, const char *name, const upf_image *img, int bits,
                                   const void *settings, char *err)
{
    return imageio_write_png_stream_with(f, name, img, bits, settings, err);
}

upf_result imageio_write_png_with(const char *path, const upf_image *img, int bits,
                                  const imageio_png_settings *settings, char *err)
{
    return imageio__write_atomic(path, img, bits, settings, write_png_stream, err);
}

upf_result imageio_write_png(const char *path, const upf_image *img, int bits, char *err)
{
    return imageio_write_png_with(path, img, bits, NULL, err);
}
