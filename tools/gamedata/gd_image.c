/* gd_image.c: box reduction, area resampling, blur, phase correlation and the pair checks of
 * the game-capture tool (gd_image.h). Reads and writes only the memory it is given. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/color.h"
#include "gamedata/gd_image.h"

#define GD_PI 3.14159265358979323846

static const unsigned char *row_of(const upf_image *img, int y, size_t bpp)
{
    size_t stride = img->stride ? img->stride : (size_t)img->width * bpp;
    return (const unsigned char *)img->data + (size_t)y * stride;
}

int gd_box_reduce(const upf_image *src, int n, gd_average average, upf_image *out)
{
    memset(out, 0, sizeof *out);
    if (!src || !src->data || src->format != UPF_FORMAT_RGBA8_SRGB || n < 1 ||
        src->width < n || src->height < n || src->width % n || src->height % n ||
        (average != GD_AVERAGE_ENCODED && average != GD_AVERAGE_LINEAR))
        return -1;
    const int w = src->width / n, h = src->height / n;
    uint16_t *dst = malloc((size_t)w * h * 4 * sizeof *dst);
    double *acc = calloc((size_t)w * 3, sizeof *acc);
    if (!dst || !acc) {
        free(dst);
        free(acc);
        return -1;
    }
    const double count = (double)n * n;
    for (int y = 0; y < h; y++) {
        memset(acc, 0, (size_t)w * 3 * sizeof *acc);
        for (int sy = y * n; sy < (y + 1) * n; sy++) {
            const unsigned char *s = row_of(src, sy, 4);
            for (int x = 0; x < w; x++)
                for (int sx = x * n; sx < (x + 1) * n; sx++)
                    for (int c = 0; c < 3; c++) {
                        const unsigned char v = s[(size_t)sx * 4 + c];
                        acc[x * 3 + c] += average == GD_AVERAGE_LINEAR
                                              ? (double)upf_srgb8_to_linear_table[v]
                                              : v / 255.0;
                    }
        }
        for (int x = 0; x < w; x++) {
            uint16_t *d = dst + ((size_t)y * w + x) * 4;
            for (int c = 0; c < 3; c++) {
                double m = acc[x * 3 + c] / count;
                if (average == GD_AVERAGE_LINEAR)
                    m = upf_linear_to_srgb_d(m);
                m = m < 0 ? 0 : m > 1 ? 1 : m;
                d[c] = (uint16_t)lround(m * 65535.0);
            }
            d[3] = 65535;
        }
    }
    free(acc);
    *out = (upf_image){ dst, w, h, (size_t)w * 8, UPF_FORMAT_RGBA16_SRGB };
    return 0;
}

float *gd_luma(const upf_image *img)
{
    if (!img || !img->data || img->width < 1 || img->height < 1 ||
        (img->format != UPF_FORMAT_RGBA8_SRGB && img->format != UPF_FORMAT_RGBA16_SRGB))
        return NULL;
    const bool wide = img->format == UPF_FORMAT_RGBA16_SRGB;
    float *out = malloc((size_t)img->width * img->height * sizeof *out);
    if (!out)
        return NULL;
    for (int y = 0; y < img->height; y++) {
        const unsigned char *r = row_of(img, y, wide ? 8 : 4);
        for (int x = 0; x < img->width; x++) {
            float v[3];
            for (int c = 0; c < 3; c++) {
                if (wide) {
                    uint16_t s;
                    memcpy(&s, r + (size_t)x * 8 + (size_t)c * 2, 2);
                    v[c] = s / 65535.0f;
                } else {
                    v[c] = r[(size_t)x * 4 + c] / 255.0f;
                }
            }
            out[(size_t)y * img->width + x] = upf_luma(v[0], v[1], v[2]);
        }
    }
    return out;
}

/* The weights of an area resampling of n source samples to m (m <= n) on one axis: output i
 * covers [i n / m, (i + 1) n / m); first[i] is its first source sample, count[i] how many,
 * weight[i * span + k] the share of sample first[i] + k (the shares sum to 1). */
typedef struct area_axis {
    int *first, *count, span;
    double *weight;
} area_axis;

static void area_axis_free(area_axis *a)
{
    free(a->first);
    free(a->count);
    free(a->weight);
}

static int area_axis_make(int n, int m, area_axis *a)
{
    a->span = n / m + 2;
    a->first = malloc((size_t)m * sizeof *a->first);
    a->count = malloc((size_t)m * sizeof *a->count);
    a->weight = calloc((size_t)m * a->span, sizeof *a->weight);
    if (!a->first || !a->count || !a->weight) {
        area_axis_free(a);
        return -1;
    }
    const double scale = (double)n / m;
    for (int i = 0; i < m; i++) {
        const double lo = i * scale, hi = (i + 1) * scale;
        int s0 = (int)floor(lo), s1 = (int)ceil(hi);
        if (s1 > n)
            s1 = n;
        a->first[i] = s0;
        a->count[i] = s1 - s0;
        for (int s = s0; s < s1; s++) {
            const double l = s < lo ? lo : s, r = s + 1 > hi ? hi : s + 1;
            a->weight[(size_t)i * a->span + (s - s0)] = (r - l) / scale;
        }
    }
    return 0;
}

float *gd_area_resample(const float *src, int sw, int sh, int dw, int dh)
{
    if (!src || sw < 1 || sh < 1 || dw < 1 || dh < 1 || dw > sw || dh > sh)
        return NULL;
    area_axis ax = { 0 }, ay = { 0 };
    float *tmp = malloc((size_t)dw * sh * sizeof *tmp);
    float *out = malloc((size_t)dw * dh * sizeof *out);
    if (!tmp || !out || area_axis_make(sw, dw, &ax) || area_axis_make(sh, dh, &ay)) {
        free(tmp);
        free(out);
        area_axis_free(&ax);
        return NULL;
    }
    for (int y = 0; y < sh; y++)
        for (int x = 0; x < dw; x++) {
            double s = 0;
            for (int k = 0; k < ax.count[x]; k++)
                s += ax.weight[(size_t)x * ax.span + k] * src[(size_t)y * sw + ax.first[x] + k];
            tmp[(size_t)y * dw + x] = (float)s;
        }
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++) {
            double s = 0;
            for (int k = 0; k < ay.count[y]; k++)
                s += ay.weight[(size_t)y * ay.span + k] * tmp[(size_t)(ay.first[y] + k) * dw + x];
            out[(size_t)y * dw + x] = (float)s;
        }
    free(tmp);
    area_axis_free(&ax);
    area_axis_free(&ay);
    return out;
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

float *gd_blur(const float *src, int w, int h, double sigma)
{
    if (!src || w < 1 || h < 1 || !(sigma > 0) || sigma > 64)
        return NULL;
    const int r = (int)ceil(3 * sigma);
    double *k = malloc((size_t)(2 * r + 1) * sizeof *k);
    float *tmp = malloc((size_t)w * h * sizeof *tmp);
    float *out = malloc((size_t)w * h * sizeof *out);
    if (!k || !tmp || !out) {
        free(k);
        free(tmp);
        free(out);
        return NULL;
    }
    double sum = 0;
    for (int i = -r; i <= r; i++)
        sum += k[i + r] = exp(-0.5 * i * i / (sigma * sigma));
    for (int i = 0; i <= 2 * r; i++)
        k[i] /= sum;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0;
            for (int i = -r; i <= r; i++)
                s += k[i + r] * src[(size_t)y * w + clampi(x + i, 0, w - 1)];
            tmp[(size_t)y * w + x] = (float)s;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0;
            for (int i = -r; i <= r; i++)
                s += k[i + r] * tmp[(size_t)clampi(y + i, 0, h - 1) * w + x];
            out[(size_t)y * w + x] = (float)s;
        }
    free(k);
    free(tmp);
    return out;
}

/* ---- phase correlation ---------------------------------------------------------------------- */

/* In-place radix-2 FFT of n (a power of two) complex values spaced `step` apart; inverse
 * when `inverse` (unscaled). Cooley-Tukey, decimation in time. */
static void fft(double *re, double *im, int n, size_t step, bool inverse)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i * step];
            re[i * step] = re[j * step];
            re[j * step] = t;
            t = im[i * step];
            im[i * step] = im[j * step];
            im[j * step] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        const double ang = 2 * GD_PI / len * (inverse ? 1 : -1);
        for (int i = 0; i < n; i += len)
            for (int k = 0; k < len / 2; k++) {
                const double wr = cos(ang * k), wi = sin(ang * k);
                const size_t a = (size_t)(i + k) * step, b = (size_t)(i + k + len / 2) * step;
                const double xr = re[b] * wr - im[b] * wi, xi = re[b] * wi + im[b] * wr;
                re[b] = re[a] - xr;
                im[b] = im[a] - xi;
                re[a] += xr;
                im[a] += xi;
            }
    }
}

static void fft2(double *re, double *im, int w, int h, bool inverse)
{
    for (int y = 0; y < h; y++)
        fft(re + (size_t)y * w, im + (size_t)y * w, w, 1, inverse);
    for (int x = 0; x < w; x++)
        fft(re + x, im + x, h, (size_t)w, inverse);
}

static int pow2_below(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* The windowed, mean-free centred crop of a plane. */
static void load_crop(const float *src, int w, int h, int cw, int ch, double *re, double *im)
{
    const int x0 = (w - cw) / 2, y0 = (h - ch) / 2;
    double mean = 0;
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++)
            mean += src[(size_t)(y0 + y) * w + x0 + x];
    mean /= (double)cw * ch;
    for (int y = 0; y < ch; y++) {
        const double wy = 0.5 - 0.5 * cos(2 * GD_PI * (y + 0.5) / ch);
        for (int x = 0; x < cw; x++) {
            const double wx = 0.5 - 0.5 * cos(2 * GD_PI * (x + 0.5) / cw);
            re[(size_t)y * cw + x] = (src[(size_t)(y0 + y) * w + x0 + x] - mean) * wx * wy;
            im[(size_t)y * cw + x] = 0;
        }
    }
}

/* Sub-sample position of a peak from its two neighbours: a Gaussian through the three (a
 * parabola through their logarithms), or a parabola where a value is not positive. */
static double peak_offset(double l, double c, double r)
{
    if (l > 0 && c > 0 && r > 0) {
        l = log(l);
        r = log(r);
        c = log(c);
    }
    const double d = l - 2 * c + r;
    if (d >= 0)
        return 0;
    double off = 0.5 * (l - r) / d;
    return off < -0.5 ? -0.5 : off > 0.5 ? 0.5 : off;
}

/* The spectrum's Gaussian weight: standard deviation GD_PC_SIGMA_F cycles per pixel, which
 * makes the correlation peak of a pure shift a Gaussian of 1 / (2 pi GD_PC_SIGMA_F) = 1.3
 * pixels, so that three samples place it to a small fraction of a pixel, and quiets the
 * high frequencies where aliasing and noise make the phase meaningless. */
#define GD_PC_SIGMA_F 0.125

/* The peak's own neighbourhood, left out of the noise estimate: 3 samples, more than twice
 * the 1.3-pixel width of the peak of a pure shift. */
#define GD_PC_PEAK_RADIUS 3

int gd_phase_correlate(const float *a, const float *b, int w, int h, gd_shift *out)
{
    memset(out, 0, sizeof *out);
    if (!a || !b || w < 16 || h < 16)
        return -1;
    const int cw = pow2_below(w), ch = pow2_below(h);
    const size_t n = (size_t)cw * ch;
    double *ar = malloc(n * sizeof *ar), *ai = malloc(n * sizeof *ai);
    double *br = malloc(n * sizeof *br), *bi = malloc(n * sizeof *bi);
    if (!ar || !ai || !br || !bi) {
        free(ar);
        free(ai);
        free(br);
        free(bi);
        return -1;
    }
    load_crop(a, w, h, cw, ch, ar, ai);
    load_crop(b, w, h, cw, ch, br, bi);
    fft2(ar, ai, cw, ch, false);
    fft2(br, bi, cw, ch, false);
    /* The normalised cross-power spectrum A conj(B) / |A conj(B)|, Gaussian weighted; bins
     * below a floor of 1e-6 of the largest magnitude (no signal there) count with their
     * magnitude instead of being blown up to 1. */
    double top = 0, wsum = 0;
    for (size_t i = 0; i < n; i++) {
        const double re = ar[i] * br[i] + ai[i] * bi[i];
        const double im = ai[i] * br[i] - ar[i] * bi[i];
        ar[i] = re;
        ai[i] = im;
        const double mag = sqrt(re * re + im * im);
        top = mag > top ? mag : top;
    }
    for (size_t i = 0; i < n; i++) {
        const int kx = (int)(i % (size_t)cw), ky = (int)(i / (size_t)cw);
        const double fx = (kx <= cw / 2 ? kx : kx - cw) / (double)cw;
        const double fy = (ky <= ch / 2 ? ky : ky - ch) / (double)ch;
        const double g = exp(-0.5 * (fx * fx + fy * fy) / (GD_PC_SIGMA_F * GD_PC_SIGMA_F));
        const double mag = sqrt(ar[i] * ar[i] + ai[i] * ai[i]);
        const double div = mag > 1e-6 * top ? mag : 1e-6 * top;
        ar[i] = div > 0 ? g * ar[i] / div : 0;
        ai[i] = div > 0 ? g * ai[i] / div : 0;
        wsum += g;
    }
    fft2(ar, ai, cw, ch, true);
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (ar[i] > ar[best])
            best = i;
    const int px = (int)(best % (size_t)cw), py = (int)(best / (size_t)cw);
#define AT(x, y) ar[(size_t)(((y) + ch) % ch) * cw + (size_t)(((x) + cw) % cw)]
    const double c = AT(px, py);
    const double ox = peak_offset(AT(px - 1, py), c, AT(px + 1, py));
    const double oy = peak_offset(AT(px, py - 1), c, AT(px, py + 1));
#undef AT
    out->dx = (px > cw / 2 ? px - cw : px) + ox;
    out->dy = (py > ch / 2 ? py - ch : py) + oy;
    out->peak = wsum > 0 ? c / wsum : 0;
    /* The noise: the RMS of the surface away from the peak (more than GD_PC_PEAK_RADIUS
     * samples from it on either axis, circularly), in the peak's units. */
    double ss = 0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const int x = (int)(i % (size_t)cw), y = (int)(i / (size_t)cw);
        int ddx = abs(x - px), ddy = abs(y - py);
        ddx = ddx < cw - ddx ? ddx : cw - ddx;
        ddy = ddy < ch - ddy ? ddy : ch - ddy;
        if (ddx > GD_PC_PEAK_RADIUS || ddy > GD_PC_PEAK_RADIUS) {
            ss += ar[i] * ar[i];
            count++;
        }
    }
    out->noise = wsum > 0 && count && ss > 0 ? sqrt(ss / (double)count) / wsum : 1;
    free(ar);
    free(ai);
    free(br);
    free(bi);
    return 0;
}

double gd_psnr(const float *a, const float *b, size_t n)
{
    double se = 0;
    for (size_t i = 0; i < n; i++) {
        const double d = (double)a[i] - b[i];
        se += d * d;
    }
    if (n == 0 || se == 0)
        return 99;
    const double p = 10 * log10((double)n / se);
    return p > 99 ? 99 : p;
}

int gd_check_pair(const upf_image *lr, const upf_image *ref, gd_check *out)
{
    memset(out, 0, sizeof *out);
    if (!lr || !ref || lr->width > ref->width || lr->height > ref->height)
        return -1;
    int rc = -1;
    const int w = lr->width, h = lr->height;
    float *l = gd_luma(lr), *r = gd_luma(ref), *rs = NULL, *lb = NULL, *rb = NULL;
    if (!l || !r || !(rs = gd_area_resample(r, ref->width, ref->height, w, h)) ||
        !(lb = gd_blur(l, w, h, 1.0)) || !(rb = gd_blur(rs, w, h, 1.0)) ||
        gd_phase_correlate(l, rs, w, h, &out->shift) != 0)
        goto done;
    out->psnr = gd_psnr(l, rs, (size_t)w * h);
    out->psnr_blur = gd_psnr(lb, rb, (size_t)w * h);
    rc = 0;
done:
    free(l);
    free(r);
    free(rs);
    free(lb);
    free(rb);
    return rc;
}

int gd_check_verdict(const gd_check *c, double max_shift, double min_sigmas,
                     double min_psnr_blur, char *why, size_t size)
{
    size_t len = 0;
    if (why && size)
        why[0] = '\0';
    if (!c)
        return 0;
    const double sigmas = c->shift.noise > 0 ? c->shift.peak / c->shift.noise : 0;
#define GD_WHY(...)                                                                              \
    do {                                                                                         \
        if (why && len < size)                                                                   \
            len += (size_t)snprintf(why + len, size - len, __VA_ARGS__);                         \
        else                                                                                     \
            len++;                                                                               \
    } while (0)
    if (!(fabs(c->shift.dx) <= max_shift && fabs(c->shift.dy) <= max_shift))
        GD_WHY("%sshift above %g px", len ? ", " : "", max_shift);
    if (!(sigmas >= min_sigmas))
        GD_WHY("%speak %.1f noise deviations, below %g", len ? ", " : "", sigmas, min_sigmas);
    if (!(c->psnr_blur >= min_psnr_blur))
        GD_WHY("%sblurred PSNR below %g dB", len ? ", " : "", min_psnr_blur);
#undef GD_WHY
    return len == 0;
}
