/* pfm_io.c: PFM (portable float map) files, read and written.
 *
 * The format: "PF" (3 channels, RGB) or "Pf" (1 channel), whitespace, the width, whitespace,
 * the height, whitespace, a scale whose sign gives the byte order of the data (negative:
 * little endian, positive: big endian; its magnitude is not used), then exactly one
 * whitespace character and width * height * channels 32-bit IEEE floats, rows from the
 * bottom of the picture to the top.
 *
 * The reader is strict: no comments, a width and height of plain decimal digits, a finite
 * non-zero scale, and exactly width * height * channels * 4 bytes of data. Bytes after the
 * data are refused rather than ignored, because they usually mean the header's size or its
 * single whitespace after the scale (e.g. a "\r\n") is wrong, which would otherwise give a
 * shifted, silently wrong picture. The size is checked against the limits and against the
 * file's length before any pixel memory is allocated. NaN and Inf samples are refused,
 * naming the pixel (x, y counted from the top left, as in the image we return) and channel.
 *
 * "PF" is read as RGBA32F with alpha 1, "Pf" as R32F. The writer takes colour formats
 * (converted to linear light; alpha dropped) and RG32F (B = 0) as "PF", R32F as "Pf", and
 * always writes little endian (scale -1.0). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/image.h"
#include "imageio/image_io.h"
#include "imageio/imageio_internal.h"

static bool pfm_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool pfm_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* A header cursor over the file. */
typedef struct pfm_cursor {
    const unsigned char *p;
    size_t pos, size;
    const char *name;
    char *err;
} pfm_cursor;

/* The token at the cursor (up to whitespace or the end), quoted for a message: at most 24
 * characters, non-printable bytes as '?'. */
static const char *pfm_token(const pfm_cursor *c, char *buf, size_t size)
{
    size_t n = 0;
    for (size_t i = c->pos; i < c->size && !pfm_space(c->p[i]) && n + 4 < size && n < 24; i++)
        buf[n++] = c->p[i] >= 0x20 && c->p[i] < 0x7f ? (char)c->p[i] : '?';
    if (n == 0) {
        snprintf(buf, size, "%s", c->pos < c->size ? "whitespace" : "the end of the file");
        return buf;
    }
    buf[n] = '\0';
    return buf;
}

/* At least one whitespace character, then skips the rest of the run. */
static upf_result pfm_skip_space(pfm_cursor *c, const char *after)
{
    if (c->pos >= c->size)
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM header is truncated after "
                             "the %s; expected whitespace and more header", c->name, after);
    if (!pfm_space(c->p[c->pos])) {
        char tok[32];
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM header has '%s' after the "
                             "%s; expected whitespace", c->name, pfm_token(c, tok, sizeof tok),
                             after);
    }
    while (c->pos < c->size && pfm_space(c->p[c->pos]))
        c->pos++;
    return UPF_OK;
}

/* A width or height: 1 to 9 decimal digits (larger values are over every limit anyway). */
static upf_result pfm_dimension(pfm_cursor *c, const char *what, long long *out)
{
    char tok[32];
    if (c->pos >= c->size)
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM header is truncated before "
                             "the %s; expected a positive integer", c->name, what);
    size_t start = c->pos;
    long long v = 0;
    while (c->pos < c->size && pfm_digit(c->p[c->pos]) && c->pos - start < 10)
        v = v * 10 + (c->p[c->pos++] - '0');
    size_t len = c->pos - start;
    bool ends = c->pos >= c->size || pfm_space(c->p[c->pos]);
    if (len == 0 || len > 9 || !ends) {
        c->pos = start;
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM %s is '%s'; expected a "
                             "positive integer of at most 9 digits", c->name, what,
                             pfm_token(c, tok, sizeof tok));
    }
    *out = v;
    return UPF_OK;
}

/* The scale: a decimal number ([+-]digits[.digits][(e|E)[+-]digits]), finite and not zero.
 * Returns its sign in *negative. Parsed by hand, so the locale's decimal point cannot change
 * what a file means. */
static upf_result pfm_scale(pfm_cursor *c, bool *negative)
{
    char tok[32];
    const unsigned char *p = c->p;
    size_t i = c->pos;
    bool neg = false, seen_point = false;
    if (i < c->size && (p[i] == '+' || p[i] == '-'))
        neg = p[i++] == '-';
    /* value = mantissa * 10^(shift + exponent), mantissa the first 18 significant digits. */
    double mantissa = 0.0;
    long shift = 0, exponent = 0;
    int significant = 0, digits = 0;
    for (; i < c->size; i++) {
        if (pfm_digit(p[i])) {
            digits++;
            if (significant < 18 && (significant > 0 || p[i] != '0')) {
                mantissa = mantissa * 10.0 + (p[i] - '0');
                significant++;
                if (seen_point)
                    shift--;
            } else if (significant >= 18 && !seen_point) {
                shift++;
            } else if (significant == 0 && seen_point) {
                shift--; /* a leading zero after the point */
            }
        } else if (p[i] == '.' && !seen_point) {
            seen_point = true;
        } else {
            break;
        }
    }
    if (i >= c->size)
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM header is truncated in the "
                             "scale ('%s'); expected the scale, one whitespace character and "
                             "the pixel data", c->name, pfm_token(c, tok, sizeof tok));
    bool ok = digits > 0;
    if (ok && i < c->size && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        bool exp_neg = false;
        if (i < c->size && (p[i] == '+' || p[i] == '-'))
            exp_neg = p[i++] == '-';
        size_t first = i;
        for (; i < c->size && pfm_digit(p[i]); i++)
            if (exponent < 100000)
                exponent = exponent * 10 + (p[i] - '0');
        ok = i > first;
        if (exp_neg)
            exponent = -exponent;
    }
    if (i >= c->size)
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM header is truncated in the "
                             "scale ('%s'); expected the scale, one whitespace character and "
                             "the pixel data", c->name, pfm_token(c, tok, sizeof tok));
    if (!ok || (i < c->size && !pfm_space(p[i])))
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM scale is '%s'; expected a "
                             "finite non-zero number (negative: little endian, positive: big "
                             "endian)", c->name, pfm_token(c, tok, sizeof tok));
    if (mantissa == 0.0)
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM scale is '%s', zero; expected "
                             "a finite non-zero number (negative: little endian, positive: big "
                             "endian)", c->name, pfm_token(c, tok, sizeof tok));
    /* Underflow to 0 is fine (the sign is what counts); overflow is not finite. */
    if (!isfinite(mantissa * pow(10.0, (double)(shift + exponent))))
        return imageio__fail(c->err, UPF_ERROR_BAD_DATA, "%s: PFM scale is '%s', not finite; "
                             "expected a finite non-zero number", c->name,
                             pfm_token(c, tok, sizeof tok));
    c->pos = i;
    *negative = neg;
    return UPF_OK;
}

static uint32_t load_u32(const unsigned char *p, bool little)
{
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                  : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static const char *nonfinite_name(float v)
{
    return isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf";
}

upf_result imageio_read_pfm_mem(const void *data, size_t size, const char *name,
                                const imageio_limits *limits, imageio_image *out, char *err)
{
    upf_result begin = imageio__begin_read("imageio_read_pfm_mem", data, size, &name, out, err);
    if (begin != UPF_OK)
        return begin;
    pfm_cursor c = { data, 0, size, name, err };
    if (size == 0)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: file is empty; expected a PFM file "
                             "(\"PF\" or \"Pf\" ...)", name);
    if (imageio_detect(data, size) != IMAGEIO_PFM) {
        char tok[32];
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: not a PFM file (starts with '%s'); "
                             "expected \"PF\" or \"Pf\"", name, pfm_token(&c, tok, sizeof tok));
    }
    int channels = c.p[1] == 'F' ? 3 : 1;
    c.pos = 2;
    long long w = 0, h = 0;
    bool little = false;
    upf_result r = pfm_skip_space(&c, channels == 3 ? "\"PF\"" : "\"Pf\"");
    if (r == UPF_OK)
        r = pfm_dimension(&c, "width", &w);
    if (r == UPF_OK)
        r = pfm_skip_space(&c, "width");
    if (r == UPF_OK)
        r = pfm_dimension(&c, "height", &h);
    if (r == UPF_OK)
        r = pfm_skip_space(&c, "height");
    if (r == UPF_OK && c.pos >= c.size)
        r = imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: PFM header is truncated before the "
                          "scale; expected a finite non-zero number", name);
    if (r == UPF_OK)
        r = pfm_scale(&c, &little);
    if (r != UPF_OK)
        return r;
    if (c.pos >= c.size)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: PFM header is truncated after the "
                             "scale; expected one whitespace character and the pixel data", name);
    c.pos++; /* exactly one whitespace character (pfm_scale stopped at one) */
    r = imageio__check_size(name, limits, w, h, err);
    if (r != UPF_OK)
        return r;

    unsigned long long need = (unsigned long long)w * (unsigned long long)h * (unsigned)channels * 4;
    size_t have = size - c.pos;
    if (have < need)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: PFM data is truncated: %zu byte%s; "
                             "expected %llu (%lldx%lld pixels x %d channels x 4 bytes)", name,
                             have, have == 1 ? "" : "s", need, w, h, channels);
    if (have > need)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: PFM has %llu byte%s after the pixel "
                             "data; expected exactly %llu bytes of data (%lldx%lld pixels x %d "
                             "channels x 4 bytes) after one whitespace character", name,
                             (unsigned long long)have - need, have - need == 1 ? "" : "s", need,
                             w, h, channels);

    r = imageio_alloc(out, (int)w, (int)h, channels == 3 ? UPF_FORMAT_RGBA32F : UPF_FORMAT_R32F,
                      err);
    if (r != UPF_OK)
        return r;
    static const char *const channel_names[3] = { "R", "G", "B" };
    const unsigned char *src = c.p + c.pos;
    for (int y = 0; y < h; y++) {
        /* File rows run bottom to top. */
        const unsigned char *row = src + (size_t)(h - 1 - y) * (size_t)w * (size_t)channels * 4;
        float *dst = (float *)((char *)out->img.data + (size_t)y * out->img.stride);
        for (int x = 0; x < w; x++) {
            for (int ch = 0; ch < channels; ch++) {
                float v = bits_to_float(load_u32(row + ((size_t)x * channels + ch) * 4, little));
                if (!isfinite(v)) {
                    imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: PFM pixel %d,%d (x,y from the top "
                                  "left) channel %s is %s; expected finite values", name, x, y,
                                  channels == 3 ? channel_names[ch] : "Y", nonfinite_name(v));
                    imageio_free(out);
                    return UPF_ERROR_BAD_DATA;
                }
                if (channels == 3)
                    dst[(size_t)x * 4 + ch] = v;
                else
                    dst[x] = v;
            }
            if (channels == 3)
                dst[(size_t)x * 4 + 3] = 1.0f;
        }
    }
    out->type = IMAGEIO_PFM;
    out->bit_depth = 32;
    out->channels = channels;
    return UPF_OK;
}

/* ---- writing -------------------------------------------------------------------------- */

static void store_le32(unsigned char *p, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    p[0] = (unsigned char)u;
    p[1] = (unsigned char)(u >> 8);
    p[2] = (unsigned char)(u >> 16);
    p[3] = (unsigned char)(u >> 24);
}

/* Converts row y to `channels` floats a pixel in `vals`; returns the x of the first pixel
 * with a non-finite value (its channel in *bad_ch), or -1. */
static int pfm_row(const upf_image *img, int y, float *rgba, float *vals, int *bad_ch)
{
    int w = img->width;
    const char *p = (const char *)upf__row(img, y); /* any alignment: read through memcpy */
    if (img->format == UPF_FORMAT_R32F) {
        for (int x = 0; x < w; x++) {
            vals[x] = upf__load_f32(p + 4 * (size_t)x);
            if (!isfinite(vals[x])) {
                *bad_ch = 0;
                return x;
            }
        }
        return -1;
    }
    if (img->format == UPF_FORMAT_RG32F) {
        for (int x = 0; x < w; x++) {
            for (int ch = 0; ch < 2; ch++) {
                vals[3 * x + ch] = upf__load_f32(p + 4 * (2 * (size_t)x + ch));
                if (!isfinite(vals[3 * x + ch])) {
                    *bad_ch = ch;
                    return x;
                }
            }
            vals[3 * x + 2] = 0.0f;
        }
        return -1;
    }
    int bad = upf__row_to_linear(img, y, 0, w, rgba);
    if (bad >= 0) {
        /* upf__row_to_linear has converted the bad pixel: find its channel. */
        *bad_ch = 3;
        for (int ch = 3; ch >= 0; ch--)
            if (!isfinite(rgba[4 * bad + ch]))
                *bad_ch = ch;
        return bad;
    }
    for (int x = 0; x < w; x++)
        for (int ch = 0; ch < 3; ch++)
            vals[3 * x + ch] = rgba[4 * x + ch];
    return -1;
}

upf_result imageio_write_pfm_stream(FILE *f, const char *name, const upf_image *img, char *err)
{
    upf_result r = imageio__check_write(name, img, err);
    if (r != UPF_OK)
        return r;
    bool grey = img->format == UPF_FORMAT_R32F;
    if (!grey && img->format != UPF_FORMAT_RG32F &&
        !(UPF_FMTS_COLOR & UPF_FMT_BIT(img->format)))
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: cannot write a %s image as "
                             "PFM; expected a colour format, r32f or rg32f", name,
                             upf_format_name(img->format));
    int w = img->width, channels = grey ? 1 : 3;
    float *rgba = malloc((size_t)w * 4 * sizeof(float));
    float *vals = malloc((size_t)w * 3 * sizeof(float));
    unsigned char *bytes = malloc((size_t)w * 3 * 4);
    if (!rgba || !vals || !bytes) {
        free(rgba);
        free(vals);
        free(bytes);
        return imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory for a row", name);
    }
    errno = 0;
    if (fprintf(f, "%s\n%d %d\n-1.0\n", grey ? "Pf" : "PF", w, img->height) < 0)
        r = imageio__fail(err, UPF_ERROR_IO, "%s: write failed: %s", name,
                          strerror(errno ? errno : EIO));
    for (int y = img->height - 1; r == UPF_OK && y >= 0; y--) {
        int bad_ch = 0;
        int bad = pfm_row(img, y, rgba, vals, &bad_ch);
        if (bad >= 0) {
            static const char *const names_rgba[4] = { "R", "G", "B", "A" };
            float v = img->format == UPF_FORMAT_R32F   ? vals[bad]
                      : img->format == UPF_FORMAT_RG32F ? vals[3 * bad + bad_ch]
                                                        : rgba[4 * bad + bad_ch];
            r = imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: pixel %d,%d channel %s is %s; "
                              "expected finite values", name, bad, y,
                              grey ? "Y" : names_rgba[bad_ch], nonfinite_name(v));
            break;
        }
        for (int i = 0; i < w * channels; i++)
            store_le32(bytes + 4 * (size_t)i, vals[i]);
        errno = 0;
        if (fwrite(bytes, 4, (size_t)w * channels, f) != (size_t)w * channels)
            r = imageio__fail(err, UPF_ERROR_IO, "%s: write failed: %s", name,
                              strerror(errno ? errno : EIO));
    }
    free(rgba);
    free(vals);
    free(bytes);
    return r;
}

static upf_result write_pfm_stream(FILE *f, const char *name, const upf_image *img, int bits,
                                   const void *settings, char *err)
{
    (void)bits, (void)settings; /* PFM is always 32-bit float */
    return imageio_write_pfm_stream(f, name, img, err);
}

upf_result imageio_write_pfm(const char *path, const upf_image *img, char *err)
{
    return imageio__write_atomic(path, img, 0, NULL, write_pfm_stream, err);
}
