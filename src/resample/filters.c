/* filters.c: the resampling kernels (triangle, Catmull-Rom, Lanczos-3) and the per-axis tap
 * tables built from them (see resample.h for the sampling geometry).
 *
 * Reads: the filter enum and the two sizes of an axis. Writes: a upf__taps table (first
 * index, tap count and normalised float weights per output pixel), built once when a
 * resampler is created. Everything here is in double; only the final weights are floats. */
#include <math.h>

#include "resample/resample.h"

/* ---- kernels ------------------------------------------------------------------------ */

/* Triangle (tent), radius 1: linear interpolation between the two nearest samples when
 * enlarging; when shrinking, stretched, it averages with weights falling off linearly. */
static double kernel_triangle(double x)
{
    x = fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

/* Mitchell & Netravali, "Reconstruction Filters in Computer Graphics", SIGGRAPH 1988: the
 * two-parameter family of piecewise cubics (radius 2),
 *
 *   k(x) = 1/6 * { (12 - 9B - 6C)|x|^3 + (-18 + 12B + 6C)|x|^2 + (6 - 2B)           |x| < 1
 *                { (-B - 6C)|x|^3 + (6B + 30C)|x|^2 + (-12B - 48C)|x| + (8B + 24C)  1 <= |x| < 2
 *
 * With B = 0, C = 0.5 it is the Catmull-Rom spline, the one member that interpolates
 * (k(0) = 1, k(1) = k(2) = 0) and reproduces quadratics; it overshoots slightly at edges:
 *
 *   k(x) = 1.5|x|^3 - 2.5|x|^2 + 1               |x| < 1
 *          -0.5|x|^3 + 2.5|x|^2 - 4|x| + 2       1 <= |x| < 2
 *
 * Written as the general formula so the constants can be checked against the paper. */
#define CUBIC_B 0.0
#define CUBIC_C 0.5
static double kernel_catmull_rom(double x)
{
    const double B = CUBIC_B, C = CUBIC_C;
    x = fabs(x);
    if (x < 1.0)
        return ((12.0 - 9.0 * B - 6.0 * C) * x * x * x + (-18.0 + 12.0 * B + 6.0 * C) * x * x +
                (6.0 - 2.0 * B)) / 6.0;
    if (x < 2.0)
        return ((-B - 6.0 * C) * x * x * x + (6.0 * B + 30.0 * C) * x * x +
                (-12.0 * B - 48.0 * C) * x + (8.0 * B + 24.0 * C)) / 6.0;
    return 0.0;
}

/* Normalised sinc, sin(pi x) / (pi x), with its exact zeros: at a nonzero integer it is 0
 * (sin() of a multiple of pi rounds to about 1e-16 instead), so interpolating kernels give
 * exactly zero weight to the neighbours of a sample they pass through. */
static double sinc(double x)
{
    if (x == 0.0)
        return 1.0;
    if (x == nearbyint(x))
        return 0.0;
    const double pi = 3.14159265358979323846;
    return sin(pi * x) / (pi * x);
}

/* Lanczos-3: the sinc windowed by a sinc three times wider (Duchon, "Lanczos filtering in
 * one and two dimensions", J. Applied Meteorology 18, 1979; for images Turkowski, "Filters
 * for common resampling tasks", Graphics Gems I, 1990):
 *
 *   k(x) = sinc(x) sinc(x / 3)    |x| < 3,   0 beyond.  */
static double kernel_lanczos3(double x)
{
    x = fabs(x);
    return x < 3.0 ? sinc(x) * sinc(x / 3.0) : 0.0;
}

static const upf__kernel kernels[] = {
    { UPF_FILTER_BILINEAR, "bilinear", 1.0, kernel_triangle },
    { UPF_FILTER_BICUBIC, "bicubic", 2.0, kernel_catmull_rom },
    { UPF_FILTER_LANCZOS3, "lanczos", 3.0, kernel_lanczos3 },
};

const upf__kernel *upf__kernel_get(upf_filter filter)
{
    if (filter == UPF_FILTER_DEFAULT)
        filter = UPF_FILTER_LANCZOS3;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i].filter == filter)
            return &kernels[i];
    return NULL;
}

const char *upf_filter_name(upf_filter filter)
{
    const upf__kernel *k = upf__kernel_get(filter);
    return k ? k->name : "unknown";
}

/* ---- tap tables --------------------------------------------------------------------- */

void upf__taps_free(upf_context *ctx, upf__taps *taps)
{
    upf__free(ctx, taps->first);
    upf__free(ctx, taps->count);
    upf__free(ctx, taps->weights);
    *taps = (upf__taps){ 0 };
}

int upf__taps_stride(const upf__kernel *kernel, int src, int dst)
{
    /* s: the kernel's stretch (1 when enlarging, src/dst when shrinking); support: the
     * half-width in source pixels. Taps are the integers i with |i - u| < support, at most
     * floor(2 * support) + 1 of them, and never more than the source has once clamped. */
    const double scale = (double)src / (double)dst;
    const double s = scale > 1.0 ? scale : 1.0;
    const double support = kernel->radius * s;
    const double span = floor(2.0 * support) + 2.0; /* one spare for rounding of u */
    return span < (double)src ? (int)span : src;
}

upf_result upf__taps_build(upf_context *ctx, const char *fn, const upf__kernel *kernel, int src,
                           int dst, upf__taps *taps)
{
    *taps = (upf__taps){ .src_size = src, .dst_size = dst };
    const int stride = upf__taps_stride(kernel, src, dst);
    const double scale = (double)src / (double)dst;
    const double s = scale > 1.0 ? scale : 1.0;     /* as in upf__taps_stride */
    const double support = kernel->radius * s;

    taps->stride = stride;
    taps->first = upf__alloc_array(ctx, (size_t)dst, sizeof *taps->first, "resampler taps");
    taps->count = upf__alloc_array(ctx, (size_t)dst, sizeof *taps->count, "resampler taps");
    taps->weights = upf__alloc_array(ctx, (size_t)dst * (size_t)stride, sizeof *taps->weights,
                                     "resampler weights");
    double *acc = upf__alloc_array(ctx, (size_t)stride, sizeof *acc, "resampler tap scratch");
    if (!taps->first || !taps->count || !taps->weights || !acc) {
        upf__free(ctx, acc);
        upf__taps_free(ctx, taps);
        return UPF_ERROR_OUT_OF_MEMORY; /* upf__alloc recorded the message */
    }

    for (int x = 0; x < dst; x++) {
        /* u = (x + 0.5) * src / dst - 0.5 = ((2x + 1) src - dst) / (2 dst): an exact integer
         * over an exact integer, so one rounding, and u is exact whenever it is a whole
         * number (every output pixel at 1x, every third one at 3x, ...). */
        const double u = (double)((2 * (int64_t)x + 1) * src - dst) / (2.0 * (double)dst);
        const int lo = (int)floor(u - support) + 1;  /* first i with i > u - support */
        const int hi = (int)ceil(u + support) - 1;   /* last i with i < u + support */
        const int clo = UPF_CLAMP(lo, 0, src - 1);
        const int chi = UPF_CLAMP(hi, 0, src - 1);
        int n = chi - clo + 1;
        if (n > stride) {
            upf__free(ctx, acc);
            upf__taps_free(ctx, taps);
            return upf__fail(ctx, UPF_ERROR_INTERNAL, "%s: %d taps for output %d of %d -> %d, "
                             "more than the %d reserved", fn, n, x, src, dst, stride);
        }
        for (int t = 0; t < n; t++)
            acc[t] = 0.0;
        double sum = 0.0;
        for (int i = lo; i <= hi; i++) {
            double w = kernel->eval(((double)i - u) / s);
            acc[UPF_CLAMP(i, 0, src - 1) - clo] += w;  /* the edge pixel repeats */
            sum += w;
        }
        /* Drop exact zeros at both ends (the neighbours of a sample that is passed through),
         * so such outputs read one pixel with weight 1 and copy it exactly. */
        int t0 = 0;
        while (n > 1 && acc[t0] == 0.0)
            t0++, n--;
        while (n > 1 && acc[t0 + n - 1] == 0.0)
            n--;
        if (!(sum > 0.0)) {
            upf__free(ctx, acc);
            upf__taps_free(ctx, taps);
            return upf__fail(ctx, UPF_ERROR_INTERNAL, "%s: %s weights for output %d of %d -> "
                             "%d sum to %g; expected a positive sum", fn, kernel->name, x, src,
                             dst, sum);
        }
        taps->first[x] = clo + t0;
        taps->count[x] = n;
        taps->max_count = UPF_MAX(taps->max_count, n);
        float *w = taps->weights + (size_t)x * (size_t)stride;
        for (int t = 0; t < n; t++)
            w[t] = (float)(acc[t0 + t] / sum);
    }
    upf__free(ctx, acc);
    return UPF_OK;
}
