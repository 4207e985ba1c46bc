/* jitter.c: the temporal helpers that set up a host's frames: the Halton(2,3) jitter and its
 * phase count, the quality modes (ratio, render size) and the mip-bias rule
 * (docs/TEMPORAL.md, "Helpers"). Pure functions of their arguments; the scene renderer and the
 * trainer use them too.
 *
 * Halton sequence: the radical inverse of n in base b (Halton 1960, "On the efficiency of
 * certain quasi-random sequences of points in evaluating multi-dimensional integrals"). Index
 * i + 1 skips the origin, so the offsets are never (0, 0): H2(n) = 1/2 only for n = 1, where
 * H3(1) = 1/3. Mip bias: sampling textures one level finer than the output's own level keeps
 * the detail the accumulated frames resolve (docs/TEMPORAL.md measures it). */
#include <math.h>

#include "core/core.h"

#define PHASES_MAX (1 << 20)

static const struct {
    upf_temporal_mode mode;
    const char *name;
    double ratio;
} modes[] = {
    { UPF_TEMPORAL_MODE_NATIVE_AA, "native", 1.0 },
    { UPF_TEMPORAL_MODE_QUALITY, "quality", 1.5 },
    { UPF_TEMPORAL_MODE_BALANCED, "balanced", 1.7 },
    { UPF_TEMPORAL_MODE_PERFORMANCE, "performance", 2.0 },
    { UPF_TEMPORAL_MODE_ULTRA_PERFORMANCE, "ultra-performance", 3.0 },
};
#define MODE_COUNT (int)(sizeof modes / sizeof modes[0])

static int mode_index(upf_temporal_mode mode)
{
    for (int i = 0; i < MODE_COUNT; i++)
        if (modes[i].mode == mode)
            return i;
    return -1;
}

/* The radical inverse of n in base b. */
static double radical_inverse(int64_t n, int b)
{
    double inv = 1.0 / b, f = inv, r = 0.0;
    while (n > 0) {
        r += f * (double)(n % b);
        n /= b;
        f *= inv;
    }
    return r;
}

upf_result upf_jitter_offset(upf_context *ctx, int64_t index, int phases, double *jx, double *jy)
{
    static const char fn[] = "upf_jitter_offset";
    upf__clear_error(ctx);
    if (!jx || !jy)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, !jx ? "jx" : "jy");
    if (index < 0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: index %lld is negative; expected "
                         "the frame's index, 0 or more", fn, (long long)index);
    if (phases < 1 || phases > PHASES_MAX)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: phases %d; expected 1..%d "
                         "(upf_jitter_phase_count)", fn, phases, PHASES_MAX);
    int64_t i = index % phases;
    *jx = radical_inverse(i + 1, 2) - 0.5;
    *jy = radical_inverse(i + 1, 3) - 0.5;
    return UPF_OK;
}

static upf_result check_width(upf_context *ctx, const char *fn, const char *what, int w)
{
    if (w < 1 || w > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s %d; expected 1..%d", fn, what,
                         w, UPF_MAX_IMAGE_DIMENSION);
    return UPF_OK;
}

upf_result upf_jitter_phase_count(upf_context *ctx, int render_width, int output_width,
                                  int *phases)
{
    static const char fn[] = "upf_jitter_phase_count";
    upf__clear_error(ctx);
    upf_result r = check_width(ctx, fn, "render width", render_width);
    if (r == UPF_OK)
        r = check_width(ctx, fn, "output width", output_width);
    if (r == UPF_OK && !phases)
        r = upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: phases is NULL", fn);
    if (r != UPF_OK)
        return r;
    if (output_width <= render_width) {
        *phases = 8;
        return UPF_OK;
    }
    /* ceil(8 o^2 / r^2) in integers: 1.5x gives exactly 18, 2x 32, 3x 72. At most
     * 8 * 16384^2 < 2^31, and more than PHASES_MAX only for ratios above 362. */
    long long o = output_width, rw = render_width;
    long long n = (8 * o * o + rw * rw - 1) / (rw * rw);
    *phases = n > PHASES_MAX ? PHASES_MAX : (int)n;
    return UPF_OK;
}

const char *upf_temporal_mode_name(upf_temporal_mode mode)
{
    int i = mode_index(mode);
    return i < 0 ? "unknown" : modes[i].name;
}

static upf_result check_mode(upf_context *ctx, const char *fn, upf_temporal_mode mode, int *index)
{
    *index = mode_index(mode);
    if (*index < 0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: mode %d; expected "
                         "UPF_TEMPORAL_MODE_NATIVE_AA (1) .. ULTRA_PERFORMANCE (5)", fn, (int)mode);
    return UPF_OK;
}

upf_result upf_temporal_mode_ratio(upf_context *ctx, upf_temporal_mode mode, double *ratio)
{
    static const char fn[] = "upf_temporal_mode_ratio";
    upf__clear_error(ctx);
    int i;
    upf_result r = check_mode(ctx, fn, mode, &i);
    if (r != UPF_OK)
        return r;
    if (!ratio)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: ratio is NULL", fn);
    *ratio = modes[i].ratio;
    return UPF_OK;
}

upf_result upf_temporal_render_size(upf_context *ctx, upf_temporal_mode mode, int output_width,
                                    int output_height, int *render_width, int *render_height)
{
    static const char fn[] = "upf_temporal_render_size";
    upf__clear_error(ctx);
    int i;
    upf_result r = check_mode(ctx, fn, mode, &i);
    if (r == UPF_OK)
        r = check_width(ctx, fn, "output width", output_width);
    if (r == UPF_OK)
        r = check_width(ctx, fn, "output height", output_height);
    if (r == UPF_OK && (!render_width || !render_height))
        r = upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                      !render_width ? "render_width" : "render_height");
    if (r != UPF_OK)
        return r;
    /* Rounded down, as a renderer's viewport is; exact for the ratios that divide the size
     * (1.5 = 3/2: 3840 -> 2560). 1.7 is not exact in binary: 10 * output / 17 in integers. */
    static const int num[] = { 1, 2, 10, 1, 1 }, den[] = { 1, 3, 17, 2, 3 };
    long long w = (long long)output_width * num[i] / den[i];
    long long h = (long long)output_height * num[i] / den[i];
    *render_width = w < 1 ? 1 : (int)w;
    *render_height = h < 1 ? 1 : (int)h;
    return UPF_OK;
}

upf_result upf_mip_bias(upf_context *ctx, double native_bias, int render_width, int output_width,
                        double offset, double *bias)
{
    static const char fn[] = "upf_mip_bias";
    upf__clear_error(ctx);
    upf_result r = check_width(ctx, fn, "render width", render_width);
    if (r == UPF_OK)
        r = check_width(ctx, fn, "output width", output_width);
    if (r == UPF_OK && !(fabs(native_bias) <= 16.0))
        r = upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: native bias %g; expected -16..16",
                      fn, native_bias);
    if (r == UPF_OK && !(fabs(offset) <= 16.0))
        r = upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: offset %g; expected -16..16 "
                      "(UPF_MIP_BIAS_OFFSET, -1, is the rule's)", fn, offset);
    if (r == UPF_OK && !bias)
        r = upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: bias is NULL", fn);
    if (r != UPF_OK)
        return r;
    *bias = native_bias + log2((double)render_width / (double)output_width) + offset;
    return UPF_OK;
}
