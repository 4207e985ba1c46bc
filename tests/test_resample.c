/* test_resample.c: the classic resamplers (bilinear, bicubic, Lanczos-3).
 *
 * Checked against a float64 reference written here from the definitions (the kernels, the
 * pixel-centre mapping, edge clamping, normalisation), evaluated directly in 2-D; against
 * hand-worked values; and for known properties: constants stay constant, 1x is exact,
 * interpolating kernels pass through samples, filtering happens in linear light, results do
 * not depend on the thread count, run allocates nothing, and bad input fails with a message
 * that says what was wrong. */
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>

#include "core/color.h"
#include "test_util.h"

static const upf_filter all_filters[] = { UPF_FILTER_BILINEAR, UPF_FILTER_BICUBIC,
                                          UPF_FILTER_LANCZOS3 };
static const upf_format color_formats[] = { UPF_FORMAT_RGBA8_SRGB, UPF_FORMAT_RGBA8_UNORM,
                                            UPF_FORMAT_RGBA16_SRGB, UPF_FORMAT_RGBA16_UNORM,
                                            UPF_FORMAT_RGBA16F, UPF_FORMAT_RGBA32F };
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- test images ---------------------------------------------------------------------- */

#define PAD_BYTE 0xA5

/* An image with `pad` bytes after each row (filled with PAD_BYTE, so writes into the
 * padding can be caught). The library reads 16-bit rows as uint16_t, so for those pad must
 * be even; float rows may start anywhere (they are copied with memcpy). */
static upf_image image_new(int w, int h, upf_format f, size_t pad)
{
    size_t bpp = upf_format_bytes_per_pixel(f);
    size_t stride = (size_t)w * bpp + pad;
    upf_image img = { malloc(stride * (size_t)h), w, h, pad ? stride : 0, f };
    memset(img.data, PAD_BYTE, stride * (size_t)h);
    return img;
}

static size_t image_stride(const upf_image *img)
{
    return img->stride ? img->stride : (size_t)img->width * upf_format_bytes_per_pixel(img->format);
}

static size_t image_bytes(const upf_image *img)
{
    return image_stride(img) * (size_t)img->height;
}

static void *pixel_ptr(const upf_image *img, int x, int y)
{
    return (char *)img->data + (size_t)y * image_stride(img) +
           (size_t)x * upf_format_bytes_per_pixel(img->format);
}

/* True if every padding byte still holds PAD_BYTE. */
static int padding_intact(const upf_image *img)
{
    size_t row = (size_t)img->width * upf_format_bytes_per_pixel(img->format);
    for (int y = 0; y < img->height; y++) {
        const unsigned char *p = (const unsigned char *)img->data + (size_t)y * image_stride(img);
        for (size_t i = row; i < image_stride(img); i++)
            if (p[i] != PAD_BYTE)
                return 0;
    }
    return 1;
}

/* sRGB (IEC 61966-2-1:1999, 5.2 and 5.3), written out here. */
static double srgb_decode(double v)
{
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double srgb_encode(double l)
{
    return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

static int is_srgb(upf_format f)
{
    return f == UPF_FORMAT_RGBA8_SRGB || f == UPF_FORMAT_RGBA16_SRGB;
}

/* The stored value of channel c: the integer code for integer formats, the float otherwise.
 * (Through memcpy: a row may start at any byte.) */
static double get_raw(const upf_image *img, int x, int y, int c)
{
    const char *p = pixel_ptr(img, x, y);
    uint16_t u16;
    float f;
    switch (img->format) {
    case UPF_FORMAT_RGBA8_SRGB:
    case UPF_FORMAT_RGBA8_UNORM: return ((const uint8_t *)p)[c];
    case UPF_FORMAT_RGBA16_SRGB:
    case UPF_FORMAT_RGBA16_UNORM: memcpy(&u16, p + 2 * c, 2); return u16;
    case UPF_FORMAT_RGBA16F: memcpy(&u16, p + 2 * c, 2); return upf_half_to_float(u16);
    case UPF_FORMAT_RGBA32F: memcpy(&f, p + 4 * c, 4); return f;
    default: return NAN;
    }
}

/* Channel c of pixel (x, y), decoded to linear light in double. */
static double get_linear(const upf_image *img, int x, int y, int c)
{
    const void *p = pixel_ptr(img, x, y);
    double v;
    switch (img->format) {
    case UPF_FORMAT_RGBA8_SRGB:
    case UPF_FORMAT_RGBA8_UNORM: v = ((const uint8_t *)p)[c] / 255.0; break;
    case UPF_FORMAT_RGBA16_SRGB:
    case UPF_FORMAT_RGBA16_UNORM: v = ((const uint16_t *)p)[c] / 65535.0; break;
    case UPF_FORMAT_RGBA16F: return get_raw(img, x, y, c);
    case UPF_FORMAT_RGBA32F: return get_raw(img, x, y, c);
    default: return NAN;
    }
    return is_srgb(img->format) && c < 3 ? srgb_decode(v) : v;
}


/* Stores a value: a code for integer formats (v is the code), a float otherwise. */
static void set_raw(const upf_image *img, int x, int y, int c, double v)
{
    char *p = pixel_ptr(img, x, y);
    uint16_t u16;
    float f = (float)v;
    switch (img->format) {
    case UPF_FORMAT_RGBA8_SRGB:
    case UPF_FORMAT_RGBA8_UNORM: ((uint8_t *)p)[c] = (uint8_t)v; break;
    case UPF_FORMAT_RGBA16_SRGB:
    case UPF_FORMAT_RGBA16_UNORM: u16 = (uint16_t)v, memcpy(p + 2 * c, &u16, 2); break;
    case UPF_FORMAT_RGBA16F: u16 = upf_float_to_half(f), memcpy(p + 2 * c, &u16, 2); break;
    case UPF_FORMAT_RGBA32F: memcpy(p + 4 * c, &f, 4); break;
    default: break;
    }
}

/* Random content: any code for integer formats; floats in [lo, hi) otherwise. */
static void fill_random(test_rng *rng, const upf_image *img, double lo, double hi)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < 4; c++) {
                double v;
                switch (img->format) {
                case UPF_FORMAT_RGBA8_SRGB:
                case UPF_FORMAT_RGBA8_UNORM: v = test_rand_int(rng, 0, 255); break;
                case UPF_FORMAT_RGBA16_SRGB:
                case UPF_FORMAT_RGBA16_UNORM: v = test_rand_int(rng, 0, 65535); break;
                default: v = lo + (hi - lo) * test_rand_float(rng); break;
                }
                set_raw(img, x, y, c, v);
            }
}

/* ---- the float64 reference --------------------------------------------------------------- */

/* The kernels, from their definitions: the triangle; Catmull-Rom, the Mitchell-Netravali
 * cubic with B = 0, C = 1/2, multiplied out; Lanczos-3, sinc(x) sinc(x/3). */
static double ref_kernel(upf_filter f, double x)
{
    const double pi = 3.14159265358979323846;
    x = fabs(x);
    switch (f) {
    case UPF_FILTER_BILINEAR: return x < 1 ? 1 - x : 0;
    case UPF_FILTER_BICUBIC:
        if (x < 1)
            return 1.5 * x * x * x - 2.5 * x * x + 1;
        if (x < 2)
            return -0.5 * x * x * x + 2.5 * x * x - 4 * x + 2;
        return 0;
    default:
        if (x == 0)
            return 1;
        return x < 3 ? 3 * sin(pi * x) * sin(pi * x / 3) / (pi * pi * x * x) : 0;
    }
}

static double ref_radius(upf_filter f)
{
    return f == UPF_FILTER_BILINEAR ? 1 : f == UPF_FILTER_BICUBIC ? 2 : 3;
}

/* Dense weights of output X over the `src` source pixels: the kernel (stretched by the ratio
 * when shrinking) at every source position around u = (X + 0.5) * src/dst - 0.5, positions
 * outside moved onto the nearest edge pixel, normalised to sum 1. Also returns the span from
 * the first to the last nonzero weight (the number of terms a sum over them adds). */
static void ref_weights(upf_filter f, int src, int dst, int X, double *w, int *span)
{
    double scale = (double)src / dst, s = scale > 1 ? scale : 1;
    double u = (X + 0.5) * scale - 0.5, support = ref_radius(f) * s, sum = 0;
    for (int i = 0; i < src; i++)
        w[i] = 0;
    for (int i = (int)floor(u - support) - 2; i <= (int)ceil(u + support) + 2; i++) {
        double k = ref_kernel(f, (i - u) / s);
        w[i < 0 ? 0 : i >= src ? src - 1 : i] += k;
        sum += k;
    }
    int first = -1, last = -1;
    for (int i = 0; i < src; i++) {
        w[i] /= sum;
        if (w[i] != 0) {
            if (first < 0)
                first = i;
            last = i;
        }
    }
    *span = last - first + 1;
}

typedef struct reference {
    int w, h;
    double *value;  /* [h][w][4] linear */
    double *bound;  /* [h][w][4] the float32 error bound of the resampler's two-pass sum */
} reference;

/* Out(X, Y) = sum_j sum_i wy_j wx_i in(i, j), evaluated directly in 2-D in double.
 *
 * Error bound of the float32 implementation: with u = 2^-24 the unit roundoff, a sum of n
 * products computed left to right in float is within n u sum |w_i p_i| of the exact one
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2002, eq. 3.4-3.5); rounding the
 * normalised weights to float adds u per weight, and decoding 8-bit sRGB through a float
 * table u per pixel. The horizontal pass sums span_x terms into float, the vertical pass
 * span_y of those, so to first order
 *   |out - ref| <= (span_x + span_y + 3) u sum_ij |wx_i| |wy_j| |in_ij|,
 * taken here with 3 more u of margin for the second-order terms. */
static reference reference_make(const upf_image *src, int dw, int dh, upf_filter f)
{
    reference ref = { dw, dh, calloc((size_t)dw * dh * 4, sizeof(double)),
                      calloc((size_t)dw * dh * 4, sizeof(double)) };
    double *wx = malloc((size_t)dw * src->width * sizeof(double));
    double *wy = malloc((size_t)dh * src->height * sizeof(double));
    int *sx = malloc((size_t)dw * sizeof(int)), *sy = malloc((size_t)dh * sizeof(int));
    for (int X = 0; X < dw; X++)
        ref_weights(f, src->width, dw, X, wx + (size_t)X * src->width, &sx[X]);
    for (int Y = 0; Y < dh; Y++)
        ref_weights(f, src->height, dh, Y, wy + (size_t)Y * src->height, &sy[Y]);
    double *lin = malloc((size_t)src->width * src->height * 4 * sizeof(double));
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < 4; c++)
                lin[((size_t)y * src->width + x) * 4 + c] = get_linear(src, x, y, c);
    const double u = 0x1p-24;
    for (int Y = 0; Y < dh; Y++)
        for (int X = 0; X < dw; X++)
            for (int c = 0; c < 4; c++) {
                double v = 0, m = 0;
                for (int j = 0; j < src->height; j++) {
                    double b = wy[(size_t)Y * src->height + j];
                    if (b == 0)
                        continue;
                    for (int i = 0; i < src->width; i++) {
                        double a = wx[(size_t)X * src->width + i];
                        double p = lin[((size_t)j * src->width + i) * 4 + c];
                        v += a * b * p;
                        m += fabs(a * b * p);
                    }
                }
                size_t k = ((size_t)Y * dw + X) * 4 + c;
                ref.value[k] = v;
                ref.bound[k] = (sx[X] + sy[Y] + 6) * u * m;
            }
    free(wx), free(wy), free(sx), free(sy), free(lin);
    return ref;
}

static void reference_free(reference *ref)
{
    free(ref->value), free(ref->bound);
}

/* Compares `dst` with the reference: float formats within the error bound (plus the
 * format's own rounding for half floats); integer formats within one code of the exactly
 * encoded reference (clamped to [0, 1], sRGB-encoded for sRGB colour channels).
 * Returns the largest error found as a fraction of what was allowed. */
static double compare_with_reference(const upf_image *dst, const reference *ref,
                                     const char *what)
{
    double worst = 0;
    int failures = 0;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++)
            for (int c = 0; c < 4; c++) {
                size_t k = ((size_t)y * dst->width + x) * 4 + c;
                double want = ref->value[k], got = get_raw(dst, x, y, c), err, allowed;
                if (dst->format == UPF_FORMAT_RGBA32F) {
                    err = fabs(got - want);
                    allowed = ref->bound[k];
                } else if (dst->format == UPF_FORMAT_RGBA16F) {
                    /* half: relative 2^-11 of the value (round to nearest), or 2^-25 absolute
                     * in the subnormal range */
                    err = fabs(got - want);
                    allowed = ref->bound[k] + fabs(want) * 0x1p-11 + 0x1p-25;
                } else {
                    double max = dst->format == UPF_FORMAT_RGBA8_SRGB ||
                                 dst->format == UPF_FORMAT_RGBA8_UNORM ? 255 : 65535;
                    double l = want < 0 ? 0 : want > 1 ? 1 : want;
                    double e = is_srgb(dst->format) && c < 3 ? srgb_encode(l) : l;
                    err = fabs(got - e * max);
                    allowed = 1.0;
                }
                double ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0);
                if (ratio > worst)
                    worst = ratio;
                if (err > allowed && failures++ < 5)
                    CHECKF(err <= allowed, "%s: pixel (%d,%d) channel %d: got %.9g, reference "
                           "%.9g, error %.3g > allowed %.3g", what, x, y, c, got, want, err,
                           allowed);
            }
    CHECKF(failures == 0, "%s: %d values outside the allowed error", what, failures);
    return worst;
}

/* ---- helpers ----------------------------------------------------------------------------- */

static upf_result resample_with(upf_context *ctx, const upf_image *src, const upf_image *dst,
                                upf_filter f)
{
    upf_resampler *r = upf_resampler_create(ctx, upf_resampler_params(
        .src_width = src->width, .src_height = src->height, .dst_width = dst->width,
        .dst_height = dst->height, .filter = f));
    if (!r)
        return upf_context_last_error(ctx, NULL);
    upf_result res = upf_resampler_run(r, src, dst);
    upf_resampler_destroy(&r);
    CHECK(r == NULL);
    return res;
}

static int verbose(void)
{
    return getenv("UPF_TEST_VERBOSE") != NULL;
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_names(void)
{
    CHECK(strcmp(upf_filter_name(UPF_FILTER_BILINEAR), "bilinear") == 0);
    CHECK(strcmp(upf_filter_name(UPF_FILTER_BICUBIC), "bicubic") == 0);
    CHECK(strcmp(upf_filter_name(UPF_FILTER_LANCZOS3), "lanczos") == 0);
    CHECK(strcmp(upf_filter_name(UPF_FILTER_DEFAULT), "lanczos") == 0);
    CHECK(strcmp(upf_filter_name((upf_filter)4), "unknown") == 0);
    CHECK(strcmp(upf_filter_name((upf_filter)-1), "unknown") == 0);
}

/* A constant image stays constant: the weights sum to 1 for every output pixel, at every
 * ratio, edges included. 8-bit sRGB exactly (after rounding), float to 1e-6 relative. */
static void test_constant(upf_context *ctx, test_rng *rng)
{
    static const int sizes[][4] = { { 7, 5, 19, 11 }, { 19, 11, 7, 5 }, { 10, 10, 13, 7 },
                                    { 13, 7, 10, 23 }, { 30, 4, 4, 30 }, { 3, 2, 64, 1 } };
    static const upf_format formats[] = { UPF_FORMAT_RGBA8_SRGB, UPF_FORMAT_RGBA32F };
    for (int fi = 0; fi < COUNT(all_filters); fi++)
        for (int si = 0; si < COUNT(sizes); si++)
            for (int ff = 0; ff < COUNT(formats); ff++) {
                upf_format fmt = formats[ff];
                upf_image src = image_new(sizes[si][0], sizes[si][1], fmt, 0);
                upf_image dst = image_new(sizes[si][2], sizes[si][3], fmt, 0);
                double cval[4];
                for (int c = 0; c < 4; c++)
                    cval[c] = fmt == UPF_FORMAT_RGBA32F ? 2.0 * test_rand_float(rng)
                                                        : test_rand_int(rng, 0, 255);
                for (int y = 0; y < src.height; y++)
                    for (int x = 0; x < src.width; x++)
                        for (int c = 0; c < 4; c++)
                            set_raw(&src, x, y, c, cval[c]);
                CHECK_OK(ctx, resample_with(ctx, &src, &dst, all_filters[fi]));
                int bad = 0;
                for (int y = 0; y < dst.height; y++)
                    for (int x = 0; x < dst.width; x++)
                        for (int c = 0; c < 4; c++) {
                            double got = get_raw(&dst, x, y, c);
                            double tol = fmt == UPF_FORMAT_RGBA32F ? 1e-6 * fmax(1, cval[c]) : 0;
                            if (fabs(got - cval[c]) > tol && bad++ < 3)
                                CHECKF(0, "%s %dx%d -> %dx%d %s: (%d,%d,%d) = %.9g, expected "
                                       "%.9g", upf_filter_name(all_filters[fi]), src.width,
                                       src.height, dst.width, dst.height, upf_format_name(fmt),
                                       x, y, c, got, cval[c]);
                        }
                CHECK_EQ_INT(bad, 0);
                free(src.data), free(dst.data);
            }
}

/* At 1x every filter copies the image bit for bit, in every colour format: the output pixel
 * sits exactly on its source pixel, where all three kernels are 1 and their other samples
 * exactly 0, and the format conversions round-trip. */
static void test_identity(upf_context *ctx, test_rng *rng)
{
    for (int fi = 0; fi < COUNT(all_filters); fi++)
        for (int ff = 0; ff < COUNT(color_formats); ff++) {
            upf_format fmt = color_formats[ff];
            upf_image src = image_new(17, 9, fmt, 16), dst = image_new(17, 9, fmt, 32);
            if (fmt == UPF_FORMAT_RGBA16F) {
                /* every finite half: any bits but an all-ones exponent */
                for (int y = 0; y < src.height; y++)
                    for (int x = 0; x < src.width; x++)
                        for (int c = 0; c < 4; c++) {
                            uint16_t h = (uint16_t)test_rand_u32(rng);
                            if ((h & 0x7c00) == 0x7c00)
                                h &= 0xbfff;
                            ((uint16_t *)pixel_ptr(&src, x, y))[c] = h;
                        }
            } else if (fmt == UPF_FORMAT_RGBA32F) {
                fill_random(rng, &src, -2.0, 5.0);
                set_raw(&src, 3, 4, 1, -0.0); /* signed zero too */
                set_raw(&src, 5, 2, 2, 1e-40); /* a subnormal */
            } else {
                fill_random(rng, &src, 0, 1);
            }
            CHECK_OK(ctx, resample_with(ctx, &src, &dst, all_filters[fi]));
            size_t row = (size_t)src.width * upf_format_bytes_per_pixel(fmt);
            int differ = 0;
            for (int y = 0; y < src.height; y++)
                differ += memcmp(pixel_ptr(&src, 0, y), pixel_ptr(&dst, 0, y), row) != 0;
            CHECKF(differ == 0, "%s %s at 1x: %d rows differ from the input",
                   upf_filter_name(all_filters[fi]), upf_format_name(fmt), differ);
            CHECK(padding_intact(&dst));
            free(src.data), free(dst.data);
        }
}

/* Random float images against the float64 reference: up, down, non-integer and mixed. */
static void test_reference(upf_context *ctx, test_rng *rng)
{
    static const int sizes[][4] = {
        { 23, 17, 46, 34 },  /* 2x */
        { 23, 17, 69, 51 },  /* 3x */
        { 23, 17, 32, 23 },  /* ~1.37x */
        { 40, 30, 20, 15 },  /* 0.5x */
        { 40, 30, 12, 9 },   /* 0.3x */
        { 20, 30, 37, 11 },  /* up x, down y */
        { 30, 20, 11, 37 },  /* down x, up y */
    };
    double worst = 0;
    for (int fi = 0; fi < COUNT(all_filters); fi++)
        for (int si = 0; si < COUNT(sizes); si++) {
            upf_image src = image_new(sizes[si][0], sizes[si][1], UPF_FORMAT_RGBA32F, 0);
            upf_image dst = image_new(sizes[si][2], sizes[si][3], UPF_FORMAT_RGBA32F, 0);
            fill_random(rng, &src, -1.0, 3.0);
            CHECK_OK(ctx, resample_with(ctx, &src, &dst, all_filters[fi]));
            reference ref = reference_make(&src, dst.width, dst.height, all_filters[fi]);
            char what[96];
            snprintf(what, sizeof what, "%s %dx%d -> %dx%d float", upf_filter_name(all_filters[fi]),
                     src.width, src.height, dst.width, dst.height);
            double r = compare_with_reference(&dst, &ref, what);
            worst = fmax(worst, r);
            reference_free(&ref);
            free(src.data), free(dst.data);
        }
    if (verbose())
        printf("resample: float reference: worst error %.3f of the bound\n", worst);

    /* The same with 8-bit sRGB input (decoded to linear by the library, by the formula
     * here) into float output. */
    for (int fi = 0; fi < COUNT(all_filters); fi++) {
        upf_image src = image_new(23, 17, UPF_FORMAT_RGBA8_SRGB, 0);
        upf_image dst = image_new(32, 11, UPF_FORMAT_RGBA32F, 0);
        fill_random(rng, &src, 0, 1);
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, all_filters[fi]));
        reference ref = reference_make(&src, dst.width, dst.height, all_filters[fi]);
        compare_with_reference(&dst, &ref, "srgb8 -> float");
        reference_free(&ref);
        free(src.data), free(dst.data);
    }
}

/* Hand-worked values. */
static void test_known_values(upf_context *ctx)
{
    /* Bilinear 2x of a 2-pixel row [a, b]: output centres fall at u = -0.25, 0.25, 0.75,
     * 1.25: a (edge repeats), 0.75a + 0.25b, 0.25a + 0.75b, b. */
    {
        upf_image src = image_new(2, 1, UPF_FORMAT_RGBA32F, 0);
        upf_image dst = image_new(4, 1, UPF_FORMAT_RGBA32F, 0);
        const double a = 0.2, b = 1.0;
        for (int c = 0; c < 4; c++)
            set_raw(&src, 0, 0, c, a), set_raw(&src, 1, 0, c, b);
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, UPF_FILTER_BILINEAR));
        const double want[4] = { a, 0.75 * a + 0.25 * b, 0.25 * a + 0.75 * b, b };
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < 4; c++)
                CHECK_NEAR(get_raw(&dst, x, 0, c), want[x], 1e-7);
        free(src.data), free(dst.data);
    }
    /* A step [0, 0, 1, 1] enlarged 2x. Output 2 sits at u = 0.75, output 3 at u = 1.25.
     * Catmull-Rom weights for a sample at fraction t past p1 (from the B = 0, C = 1/2
     * cubic): w0 = (-t^3 + 2t^2 - t)/2, w1 = (3t^3 - 5t^2 + 2)/2, w2 = (-3t^3 + 4t^2 + t)/2,
     * w3 = (t^3 - t^2)/2. At u = 0.75 only the tap at 2 (w3, t = 0.75) sees the step:
     * (0.421875 - 0.5625)/2 = -0.0703125, an undershoot; at u = 1.25 (t = 0.25) w2 + w3 =
     * 0.2265625 - 0.0234375 = 0.203125. Bilinear gives 0 and 0.25 there. */
    {
        upf_image src = image_new(4, 1, UPF_FORMAT_RGBA32F, 0);
        upf_image dst = image_new(8, 1, UPF_FORMAT_RGBA32F, 0);
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < 4; c++)
                set_raw(&src, x, 0, c, x < 2 ? 0.0 : 1.0);
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, UPF_FILTER_BICUBIC));
        CHECK_NEAR(get_raw(&dst, 2, 0, 0), -0.0703125, 1e-7);
        CHECK_NEAR(get_raw(&dst, 3, 0, 0), 0.203125, 1e-7);
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, UPF_FILTER_BILINEAR));
        CHECK_NEAR(get_raw(&dst, 2, 0, 0), 0.0, 1e-7);
        CHECK_NEAR(get_raw(&dst, 3, 0, 0), 0.25, 1e-7);
        /* Lanczos-3 undershoots before the step too (its negative lobe). */
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, UPF_FILTER_LANCZOS3));
        CHECK(get_raw(&dst, 2, 0, 0) < -0.01);
        free(src.data), free(dst.data);
    }
    /* Interpolation: at 3x, output 3k + 1 lies exactly on source pixel k
     * ((3k + 1.5)/3 - 0.5 = k), and every filter here passes through its samples there,
     * bit for bit, in 2-D. */
    for (int fi = 0; fi < COUNT(all_filters); fi++) {
        test_rng rng = { { 1, 2, 3, 4 } };
        upf_image src = image_new(7, 5, UPF_FORMAT_RGBA32F, 0);
        upf_image dst = image_new(21, 15, UPF_FORMAT_RGBA32F, 0);
        fill_random(&rng, &src, -1, 2);
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, all_filters[fi]));
        int differ = 0;
        for (int y = 0; y < src.height; y++)
            for (int x = 0; x < src.width; x++)
                differ += memcmp(pixel_ptr(&src, x, y), pixel_ptr(&dst, 3 * x + 1, 3 * y + 1),
                                 16) != 0;
        CHECKF(differ == 0, "%s 3x: %d samples not passed through",
               upf_filter_name(all_filters[fi]), differ);
        free(src.data), free(dst.data);
    }
}

/* Filtering in linear light: a black/white checkerboard in 8-bit sRGB, halved, is 50% grey
 * in linear light, sRGB code round(255 * encode(0.5)) = round(187.52) = 188; averaging the
 * codes would give 128. Away from the edges (whose taps clamp) every filter, stretched 2x,
 * weights the two colours equally. */
static void test_linear_light(upf_context *ctx)
{
    CHECK_EQ_INT((int)floor(255 * srgb_encode(0.5) + 0.5), 188);
    for (int fi = 0; fi < COUNT(all_filters); fi++) {
        upf_image src = image_new(32, 32, UPF_FORMAT_RGBA8_SRGB, 0);
        upf_image dst = image_new(16, 16, UPF_FORMAT_RGBA8_SRGB, 0);
        for (int y = 0; y < 32; y++)
            for (int x = 0; x < 32; x++) {
                uint8_t v = (x + y) % 2 ? 255 : 0;
                uint8_t *p = pixel_ptr(&src, x, y);
                p[0] = p[1] = p[2] = v;
                p[3] = 255;
            }
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, all_filters[fi]));
        int bad = 0;
        for (int y = 4; y < 12; y++)
            for (int x = 4; x < 12; x++) {
                const uint8_t *p = pixel_ptr(&dst, x, y);
                if ((p[0] != 188 || p[1] != 188 || p[2] != 188 || p[3] != 255) && bad++ < 3)
                    CHECKF(0, "%s: (%d,%d) = %d %d %d %d, expected 188 188 188 255",
                           upf_filter_name(all_filters[fi]), x, y, p[0], p[1], p[2], p[3]);
            }
        CHECK_EQ_INT(bad, 0);
        free(src.data), free(dst.data);
    }
}

/* A host parallel-for that runs the indices backwards, cycling through worker numbers. */
static void reverse_parallel_for(void *host_priv, upf_task_fn task, void *task_priv, int count)
{
    int threads = *(const int *)host_priv;
    for (int i = count - 1; i >= 0; i--)
        task(task_priv, i, i % threads);
}

/* The same output, bit for bit, on 1, 2 and 3 threads and under a host scheduler. */
static void test_threads(test_rng *rng)
{
    static const struct { int sw, sh, dw, dh; upf_filter f; upf_format sf, df; } cases[] = {
        { 67, 45, 150, 101, UPF_FILTER_LANCZOS3, UPF_FORMAT_RGBA32F, UPF_FORMAT_RGBA32F },
        { 300, 200, 111, 77, UPF_FILTER_BICUBIC, UPF_FORMAT_RGBA8_SRGB, UPF_FORMAT_RGBA8_SRGB },
        { 97, 61, 61, 133, UPF_FILTER_BILINEAR, UPF_FORMAT_RGBA16F, UPF_FORMAT_RGBA16_UNORM },
    };
    int three = 3;
    upf_context *ctxs[4] = {
        test_context(1), test_context(2), test_context(3),
        upf_context_create(upf_context_params(.threads = 3, .parallel_for = reverse_parallel_for,
                                              .parallel_for_priv = &three)),
    };
    for (int k = 0; k < 4; k++)
        CHECK(ctxs[k] != NULL);
    for (int ci = 0; ci < COUNT(cases); ci++) {
        upf_image src = image_new(cases[ci].sw, cases[ci].sh, cases[ci].sf, 0);
        fill_random(rng, &src, -0.5, 2.0);
        upf_image out[4];
        for (int k = 0; k < 4; k++) {
            out[k] = image_new(cases[ci].dw, cases[ci].dh, cases[ci].df, 0);
            CHECK_OK(ctxs[k], resample_with(ctxs[k], &src, &out[k], cases[ci].f));
        }
        for (int k = 1; k < 4; k++)
            CHECKF(memcmp(out[0].data, out[k].data, image_bytes(&out[0])) == 0,
                   "case %d: output with context %d differs from 1 thread", ci, k);
        for (int k = 0; k < 4; k++)
            free(out[k].data);
        free(src.data);
    }
    for (int k = 0; k < 4; k++)
        upf_context_destroy(&ctxs[k]);
}

/* Odd sizes, every format in and out, strides with padding. */
static void test_sizes_and_formats(upf_context *ctx, test_rng *rng)
{
    /* 1x1 -> 7x3: every output is the one pixel, exactly (its weights all land on it). */
    for (int fi = 0; fi < COUNT(all_filters); fi++) {
        upf_image src = image_new(1, 1, UPF_FORMAT_RGBA32F, 0);
        upf_image dst = image_new(7, 3, UPF_FORMAT_RGBA32F, 16);
        fill_random(rng, &src, -1, 3);
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, all_filters[fi]));
        int differ = 0;
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 7; x++)
                differ += memcmp(src.data, pixel_ptr(&dst, x, y), 16) != 0;
        CHECK_EQ_INT(differ, 0);
        CHECK(padding_intact(&dst));
        free(src.data), free(dst.data);
    }
    /* Against the reference: degenerate shapes and every pair of formats, with padding. */
    static const int sizes[][4] = { { 5, 1, 1, 9 }, { 1, 9, 5, 1 }, { 7, 3, 1, 1 },
                                    { 13, 9, 29, 20 }, { 29, 20, 13, 9 } };
    for (int si = 0; si < COUNT(sizes); si++)
        for (int sf = 0; sf < COUNT(color_formats); sf++)
            for (int df = 0; df < COUNT(color_formats); df++) {
                upf_filter f = all_filters[(si + sf + df) % COUNT(all_filters)];
                upf_image src = image_new(sizes[si][0], sizes[si][1], color_formats[sf],
                                          16 * (size_t)(1 + sf));
                upf_image dst = image_new(sizes[si][2], sizes[si][3], color_formats[df],
                                          16 * (size_t)(1 + df));
                fill_random(rng, &src, -0.25, 1.5);
                CHECK_OK(ctx, resample_with(ctx, &src, &dst, f));
                reference ref = reference_make(&src, dst.width, dst.height, f);
                char what[128];
                snprintf(what, sizeof what, "%s %dx%d %s -> %dx%d %s", upf_filter_name(f),
                         src.width, src.height, upf_format_name(src.format), dst.width,
                         dst.height, upf_format_name(dst.format));
                compare_with_reference(&dst, &ref, what);
                CHECKF(padding_intact(&dst), "%s: the destination's row padding was written", what);
                reference_free(&ref);
                free(src.data), free(dst.data);
            }
    /* Float rows that are not 4-byte aligned (a stride of 16 w + 2 bytes): still right. */
    for (int fi = 0; fi < COUNT(all_filters); fi++) {
        upf_image src = image_new(11, 7, UPF_FORMAT_RGBA32F, 6);
        upf_image dst = image_new(19, 13, UPF_FORMAT_RGBA32F, 2);
        fill_random(rng, &src, -1, 2);
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, all_filters[fi]));
        reference ref = reference_make(&src, dst.width, dst.height, all_filters[fi]);
        compare_with_reference(&dst, &ref, "float, unaligned rows");
        CHECK(padding_intact(&dst));
        reference_free(&ref);
        free(src.data), free(dst.data);
    }
}

/* Counts allocations, to show that run allocates nothing. */
static atomic_int alloc_count;
static void *counting_alloc(void *priv, size_t size, size_t alignment)
{
    (void)priv;
    atomic_fetch_add(&alloc_count, 1);
    return aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
static void counting_free(void *priv, void *ptr)
{
    (void)priv;
    free(ptr);
}

static void test_no_allocation_in_run(test_rng *rng)
{
    const upf_allocator a = { NULL, counting_alloc, counting_free };
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 2, .allocator = &a));
    CHECK(ctx != NULL);
    upf_resampler *r = upf_resampler_create(ctx, upf_resampler_params(
        .src_width = 40, .src_height = 30, .dst_width = 90, .dst_height = 61));
    CHECK(r != NULL);
    upf_image src = image_new(40, 30, UPF_FORMAT_RGBA8_SRGB, 0);
    upf_image dst = image_new(90, 61, UPF_FORMAT_RGBA16F, 0);
    fill_random(rng, &src, 0, 1);
    int before = atomic_load(&alloc_count);
    CHECK(before > 0);
    for (int i = 0; i < 3; i++)
        CHECK_OK(ctx, upf_resampler_run(r, &src, &dst));
    CHECK_EQ_INT(atomic_load(&alloc_count), before);
    upf_resampler_destroy(&r);
    upf_context_destroy(&ctx);
    free(src.data), free(dst.data);
}

/* Issue 10, item 7: upf_resampler_memory says, before anything is taken, exactly the bytes
 * a resampler then holds. */
static void test_memory_query(test_rng *rng)
{
    const upf_allocator a = TEST_SIZING_ALLOCATOR;
    for (int threads = 1; threads <= 3; threads += 2) {
        upf_context *ctx = upf_context_create(upf_context_params(.threads = threads, .allocator = &a));
        CHECK(ctx != NULL);
        for (int k = 0; k < 6; k++) {
            upf_resampler_params p = { test_rand_int(rng, 1, 300), test_rand_int(rng, 1, 300),
                                       test_rand_int(rng, 1, 300), test_rand_int(rng, 1, 300),
                                       (upf_filter)test_rand_int(rng, 0, 3) };
            size_t bytes = 0;
            CHECK_OK(ctx, upf_resampler_memory(ctx, &p, &bytes));
            long long before = atomic_load(&test_live_bytes);
            upf_resampler *r = upf_resampler_create(ctx, &p);
            CHECK(r != NULL);
            long long held = atomic_load(&test_live_bytes) - before;
            CHECKF(held == (long long)bytes, "%dx%d -> %dx%d %s: memory query %zu, holds %lld",
                   p.src_width, p.src_height, p.dst_width, p.dst_height,
                   upf_filter_name(p.filter), bytes, held);
            upf_resampler_destroy(&r);
        }
        /* Over the pixel limit: the query still answers (8 GB and more), create refuses. */
        size_t big = 0;
        CHECK_OK(ctx, upf_resampler_memory(ctx, upf_resampler_params(.src_width = 16384,
                      .src_height = 16384, .dst_width = 16384, .dst_height = 16384), &big));
        CHECK(big > ((size_t)1 << 32));
        CHECK_FAILS(ctx, upf_resampler_memory(ctx, upf_resampler_params(.src_width = 0), &big),
                    UPF_ERROR_INVALID_ARGUMENT, "upf_resampler_memory: params->src_width is 0");
        CHECK_FAILS(ctx, upf_resampler_memory(ctx, upf_resampler_params(.src_width = 1), NULL),
                    UPF_ERROR_INVALID_ARGUMENT, "bytes is NULL");
        upf_context_destroy(&ctx);
    }
    CHECK_EQ_INT(atomic_load(&test_live_bytes), 0);
}

/* Issue 10, item 5: strided views whose rows interleave without touching (two fields of one
 * frame) are separate images; the span test refused them as overlapping. */
static void test_interleaved_rows(upf_context *ctx, test_rng *rng)
{
    const int w = 9, h = 6;
    upf_image frame = image_new(w, 2 * h, UPF_FORMAT_RGBA32F, 0);
    const size_t row = (size_t)w * 16;
    upf_image even = { frame.data, w, h, 2 * row, UPF_FORMAT_RGBA32F };
    upf_image odd = { (char *)frame.data + row, w, h, 2 * row, UPF_FORMAT_RGBA32F };
    upf_image packed = image_new(w, h, UPF_FORMAT_RGBA32F, 0);
    fill_random(rng, &even, 0, 1);
    fill_random(rng, &odd, 0, 1);
    upf_resampler *r = upf_resampler_create(ctx, upf_resampler_params(
        .src_width = w, .src_height = h, .dst_width = w, .dst_height = h,
        .filter = UPF_FILTER_BICUBIC));
    CHECK_OK(ctx, upf_resampler_run(r, &even, &packed)); /* the reference: a separate buffer */
    CHECK_OK(ctx, upf_resampler_run(r, &even, &odd));    /* into the other field */
    bool same = true;
    for (int y = 0; y < h; y++)
        same &= memcmp((char *)odd.data + (size_t)y * 2 * row,
                       (char *)packed.data + (size_t)y * row, row) == 0;
    CHECK(same);
    /* A field that does share bytes with the other is still refused. */
    upf_image shifted = odd;
    shifted.data = (char *)frame.data + row - 16;
    CHECK_FAILS(ctx, upf_resampler_run(r, &even, &shifted), UPF_ERROR_INVALID_ARGUMENT, "overlap");
    upf_resampler_destroy(&r);
    free(frame.data), free(packed.data);
}

/* Issue 10, item 6: a second run on a resampler while one is in progress on another thread
 * is refused instead of sharing its buffers (test_hold holds the first run inside). */
typedef struct run_args {
    upf_resampler *r;
    upf_image *src, *dst;
    upf_result result;
} run_args;
static void *run_thread(void *arg)
{
    run_args *a = arg;
    a->result = upf_resampler_run(a->r, a->src, a->dst);
    return NULL;
}
static void test_in_use(test_rng *rng)
{
    test_hold h = TEST_HOLD_INIT;
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 1,
        .parallel_for = test_hold_parallel_for, .parallel_for_priv = &h));
    upf_resampler *r = upf_resampler_create(ctx, upf_resampler_params(
        .src_width = 20, .src_height = 20, .dst_width = 30, .dst_height = 30));
    upf_image src = image_new(20, 20, UPF_FORMAT_RGBA8_SRGB, 0);
    upf_image dst = image_new(30, 30, UPF_FORMAT_RGBA8_SRGB, 0), dst2 = image_new(30, 30, UPF_FORMAT_RGBA8_SRGB, 0);
    fill_random(rng, &src, 0, 1);
    run_args first = { r, &src, &dst, UPF_ERROR_INTERNAL };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, run_thread, &first) == 0);
    test_hold_wait(&h); /* the first run is inside the resampler now */
    CHECK_FAILS(ctx, upf_resampler_run(r, &src, &dst2), UPF_ERROR_INVALID_ARGUMENT,
                "upf_resampler_run: the resampler is already running a call on another thread");
    test_hold_release(&h);
    pthread_join(t, NULL);
    CHECK_EQ_INT(first.result, UPF_OK);
    CHECK_OK(ctx, upf_resampler_run(r, &src, &dst2)); /* free again */
    CHECK(memcmp(dst.data, dst2.data, image_bytes(&dst)) == 0);
    upf_resampler_destroy(&r);
    upf_context_destroy(&ctx);
    free(src.data), free(dst.data), free(dst2.data);
}

static void test_one_shot(upf_context *ctx, test_rng *rng)
{
    upf_image src = image_new(31, 17, UPF_FORMAT_RGBA8_SRGB, 0);
    upf_image a = image_new(50, 40, UPF_FORMAT_RGBA8_SRGB, 0);
    upf_image b = image_new(50, 40, UPF_FORMAT_RGBA8_SRGB, 0);
    fill_random(rng, &src, 0, 1);
    CHECK_OK(ctx, upf_resample(ctx, &src, &a, UPF_FILTER_DEFAULT));
    CHECK_OK(ctx, resample_with(ctx, &src, &b, UPF_FILTER_LANCZOS3));
    CHECK(memcmp(a.data, b.data, image_bytes(&a)) == 0);
    CHECK_EQ_INT(upf_resample(NULL, &src, &a, UPF_FILTER_BILINEAR), UPF_ERROR_INVALID_ARGUMENT);
    CHECK_FAILS(ctx, upf_resample(ctx, NULL, &a, UPF_FILTER_BILINEAR), UPF_ERROR_INVALID_ARGUMENT,
                "upf_resample: source image is NULL");
    CHECK_FAILS(ctx, upf_resample(ctx, &src, NULL, UPF_FILTER_BILINEAR), UPF_ERROR_INVALID_ARGUMENT,
                "upf_resample: destination image is NULL");
    CHECK_FAILS(ctx, upf_resample(ctx, &src, &a, (upf_filter)9), UPF_ERROR_INVALID_ARGUMENT,
                "upf_resample: params->filter is 9");
    CHECK_FAILS(ctx, upf_resample(ctx, &src, &src, UPF_FILTER_BILINEAR), UPF_ERROR_INVALID_ARGUMENT,
                "overlap");
    free(src.data), free(a.data), free(b.data);
}

static void test_bad_input(upf_context *ctx)
{
    /* create */
    CHECK(upf_resampler_create(NULL, upf_resampler_params(
        .src_width = 4, .src_height = 4, .dst_width = 8, .dst_height = 8)) == NULL);
    CHECK(upf_resampler_create(ctx, NULL) == NULL);
    CHECK_FAILS(ctx, upf_context_last_error(ctx, NULL), UPF_ERROR_INVALID_ARGUMENT,
                "params is NULL");
    static const struct { int sw, sh, dw, dh; const char *needle; } bad_sizes[] = {
        { 0, 4, 8, 8, "params->src_width is 0; expected 1..16384" },
        { 4, -3, 8, 8, "params->src_height is -3" },
        { 4, 4, UPF_MAX_IMAGE_DIMENSION + 1, 8, "params->dst_width is 16385" },
        { 4, 4, 8, 0, "params->dst_height is 0" },
    };
    for (int i = 0; i < COUNT(bad_sizes); i++) {
        upf_resampler *r = upf_resampler_create(ctx, upf_resampler_params(
            .src_width = bad_sizes[i].sw, .src_height = bad_sizes[i].sh,
            .dst_width = bad_sizes[i].dw, .dst_height = bad_sizes[i].dh));
        CHECK(r == NULL);
        CHECK_FAILS(ctx, upf_context_last_error(ctx, NULL), UPF_ERROR_INVALID_ARGUMENT,
                    bad_sizes[i].needle);
    }
    for (int f = -1; f <= 5; f += 6) {
        upf_resampler *r = upf_resampler_create(ctx, upf_resampler_params(
            .src_width = 4, .src_height = 4, .dst_width = 8, .dst_height = 8,
            .filter = (upf_filter)f));
        CHECK(r == NULL);
        CHECK_FAILS(ctx, upf_context_last_error(ctx, NULL), UPF_ERROR_INVALID_ARGUMENT,
                    "params->filter is");
    }
    /* The largest sizes are accepted (16384 -> 1 needs every source pixel as a tap). */
    upf_resampler *big = upf_resampler_create(ctx, upf_resampler_params(
        .src_width = UPF_MAX_IMAGE_DIMENSION, .src_height = 1, .dst_width = 1, .dst_height = 3));
    CHECK(big != NULL);
    upf_resampler_destroy(&big);

    /* run */
    upf_resampler *r = upf_resampler_create(ctx, upf_resampler_params(
        .src_width = 8, .src_height = 6, .dst_width = 12, .dst_height = 10,
        .filter = UPF_FILTER_BICUBIC));
    CHECK(r != NULL);
    upf_image src = image_new(8, 6, UPF_FORMAT_RGBA32F, 0);
    upf_image dst = image_new(12, 10, UPF_FORMAT_RGBA32F, 0);
    memset(src.data, 0, image_bytes(&src));
    CHECK_OK(ctx, upf_resampler_run(r, &src, &dst));
    CHECK_EQ_INT(upf_resampler_run(NULL, &src, &dst), UPF_ERROR_INVALID_ARGUMENT);
    CHECK_FAILS(ctx, upf_resampler_run(r, NULL, &dst), UPF_ERROR_INVALID_ARGUMENT,
                "upf_resampler_run: source image is NULL");
    CHECK_FAILS(ctx, upf_resampler_run(r, &src, NULL), UPF_ERROR_INVALID_ARGUMENT,
                "upf_resampler_run: destination image is NULL");
    upf_image wrong = src;
    wrong.width = 9;
    CHECK_FAILS(ctx, upf_resampler_run(r, &wrong, &dst), UPF_ERROR_INVALID_ARGUMENT,
                "source image is 9x6; expected 8x6");
    wrong = dst;
    wrong.height = 11;
    CHECK_FAILS(ctx, upf_resampler_run(r, &src, &wrong), UPF_ERROR_INVALID_ARGUMENT,
                "destination image is 12x11; expected 12x10");
    wrong = src;
    wrong.format = UPF_FORMAT_R32F;
    CHECK_FAILS(ctx, upf_resampler_run(r, &wrong, &dst), UPF_ERROR_INVALID_ARGUMENT,
                "source image has format r32f");
    wrong = dst;
    wrong.format = UPF_FORMAT_RG32F;
    CHECK_FAILS(ctx, upf_resampler_run(r, &src, &wrong), UPF_ERROR_INVALID_ARGUMENT,
                "destination image has format rg32f");
    wrong = src;
    wrong.data = NULL;
    CHECK_FAILS(ctx, upf_resampler_run(r, &wrong, &dst), UPF_ERROR_INVALID_ARGUMENT,
                "data is NULL");
    wrong = src;
    wrong.stride = 8 * 16 - 4;
    CHECK_FAILS(ctx, upf_resampler_run(r, &wrong, &dst), UPF_ERROR_INVALID_ARGUMENT, "stride");
    wrong = src;
    wrong.width = 0;
    CHECK_FAILS(ctx, upf_resampler_run(r, &wrong, &dst), UPF_ERROR_INVALID_ARGUMENT,
                "source image is 0x6");

    /* Overlapping memory: the same buffer, and a destination that starts inside the source. */
    {
        upf_resampler *same = upf_resampler_create(ctx, upf_resampler_params(
            .src_width = 8, .src_height = 6, .dst_width = 8, .dst_height = 6));
        upf_image buf = image_new(8, 12, UPF_FORMAT_RGBA32F, 0);
        memset(buf.data, 0, image_bytes(&buf));
        upf_image a = { buf.data, 8, 6, 0, UPF_FORMAT_RGBA32F };
        upf_image b = a;
        CHECK_FAILS(ctx, upf_resampler_run(same, &a, &b), UPF_ERROR_INVALID_ARGUMENT, "overlap");
        b.data = (char *)buf.data + 5 * 8 * 16 + 16; /* inside a's last row */
        CHECK_FAILS(ctx, upf_resampler_run(same, &a, &b), UPF_ERROR_INVALID_ARGUMENT, "overlap");
        CHECK_FAILS(ctx, upf_resampler_run(same, &b, &a), UPF_ERROR_INVALID_ARGUMENT, "overlap");
        b.data = (char *)buf.data + 6 * 8 * 16; /* right after a: fine */
        CHECK_OK(ctx, upf_resampler_run(same, &a, &b));
        CHECK_OK(ctx, upf_resampler_run(same, &b, &a));
        upf_resampler_destroy(&same);
        free(buf.data);
    }
    upf_resampler_destroy(&r);
    upf_resampler_destroy(&r); /* NULL handle: nothing */
    upf_resampler_destroy(NULL);
    free(src.data), free(dst.data);
}

/* NaN/Inf: the first non-finite pixel in raster order is named, whatever the thread count;
 * non-finite bytes in the row padding are not pixels and are ignored. */
static void test_non_finite(void)
{
    for (int threads = 1; threads <= 3; threads++) {
        upf_context *ctx = test_context(threads);
        upf_image src = image_new(20, 40, UPF_FORMAT_RGBA32F, 16);
        upf_image dst = image_new(13, 50, UPF_FORMAT_RGBA8_SRGB, 0);
        for (int y = 0; y < 40; y++)
            for (int x = 0; x < 20; x++)
                for (int c = 0; c < 4; c++)
                    set_raw(&src, x, y, c, 0.5);
        for (int y = 0; y < 40; y++) /* NaN in every row's padding */
            ((float *)pixel_ptr(&src, 20, y))[1] = NAN;
        CHECK_OK(ctx, resample_with(ctx, &src, &dst, UPF_FILTER_LANCZOS3));
        set_raw(&src, 5, 30, 2, NAN);
        set_raw(&src, 19, 39, 0, -INFINITY);
        set_raw(&src, 2, 17, 3, INFINITY);
        set_raw(&src, 11, 17, 0, NAN);
        CHECK_FAILS(ctx, resample_with(ctx, &src, &dst, UPF_FILTER_LANCZOS3), UPF_ERROR_BAD_DATA,
                    "source pixel x=2, y=17 is not finite (0.5, 0.5, 0.5, inf)");
        set_raw(&src, 2, 17, 3, 0.5);
        CHECK_FAILS(ctx, resample_with(ctx, &src, &dst, UPF_FILTER_BILINEAR), UPF_ERROR_BAD_DATA,
                    "x=11, y=17");
        free(src.data), free(dst.data);

        /* half floats: Inf (0x7c00) and NaN (0x7e00) */
        upf_image h = image_new(9, 9, UPF_FORMAT_RGBA16F, 0);
        upf_image o = image_new(4, 4, UPF_FORMAT_RGBA16F, 0);
        memset(h.data, 0, image_bytes(&h));
        ((uint16_t *)pixel_ptr(&h, 8, 6))[0] = 0x7e00;
        ((uint16_t *)pixel_ptr(&h, 1, 7))[0] = 0x7c00;
        CHECK_FAILS(ctx, upf_resample(ctx, &h, &o, UPF_FILTER_BICUBIC), UPF_ERROR_BAD_DATA,
                    "upf_resample: source pixel x=8, y=6 is not finite");
        free(h.data), free(o.data);
        upf_context_destroy(&ctx);
    }
}

int main(void)
{
    test_rng rng = test_rng_make("resample");
    upf_context *ctx = test_context(2);
    CHECK(ctx != NULL);
    test_names();
    test_constant(ctx, &rng);
    test_identity(ctx, &rng);
    test_reference(ctx, &rng);
    test_known_values(ctx);
    test_linear_light(ctx);
    test_threads(&rng);
    test_sizes_and_formats(ctx, &rng);
    test_no_allocation_in_run(&rng);
    test_memory_query(&rng);
    test_interleaved_rows(ctx, &rng);
    test_in_use(&rng);
    test_one_shot(ctx, &rng);
    test_bad_input(ctx);
    test_non_finite();
    upf_context_destroy(&ctx);
    return test_finish("resample");
}
