/* resample.h: the classic resamplers' internals: the filter kernels (filters.c) and the
 * per-axis tap tables built from them (filters.c), used by the resampler object
 * (resampler.c).
 *
 * A tap table says, for every output column (or row) X of one axis, which source pixels it
 * reads and with what weights:
 *
 *   out[X] = sum_{t < count[X]} weight[X][t] * in[first[X] + t]
 *
 * The weights are the kernel sampled around the source coordinate of X's centre,
 *
 *   u = (X + 0.5) * src / dst - 0.5                      (pixel centres aligned)
 *
 * at every source pixel i with |i - u| < radius * s, where s = max(src / dst, 1) stretches
 * the kernel when shrinking, to the output's sample spacing, so that it also low-passes
 * what the smaller grid cannot hold (the usual decimation filter; see Turkowski, "Filters
 * for common resampling tasks", Graphics Gems I, 1990):
 *
 *   w_i = k((i - u) / s).
 *
 * A source index outside [0, src) adds its weight to the nearest edge pixel (the edge
 * repeats), exact zeros at both ends are dropped, and the weights are divided by their sum
 * (in double, then rounded to float once) so a constant image stays constant. All tap
 * indices lie inside the source, so the filter loops need no bounds checks.
 *
 * Internal header: not installed. */
#ifndef UPF_RESAMPLE_H
#define UPF_RESAMPLE_H

#include "core/core.h"

/* A 1-D reconstruction kernel k(x), even, zero for |x| >= radius. */
typedef struct upf__kernel {
    upf_filter filter;   /* the enum value it implements (never UPF_FILTER_DEFAULT) */
    const char *name;    /* as upf_filter_name() gives it */
    double radius;       /* support: k(x) = 0 for |x| >= radius */
    double (*eval)(double x);
} upf__kernel;

/* The kernel of a filter (UPF_FILTER_DEFAULT resolves to Lanczos-3), or NULL for a value
 * that is not a upf_filter. */
const upf__kernel *upf__kernel_get(upf_filter filter);

/* One axis's taps (see the top of this file). */
typedef struct upf__taps {
    int src_size, dst_size;
    int stride;          /* floats from one output's weights to the next's */
    int max_count;       /* the largest count[X] */
    int32_t *first;      /* [dst_size]: first source index read, in [0, src_size) */
    int32_t *count;      /* [dst_size]: taps read, >= 1, first + count <= src_size */
    float *weights;      /* [dst_size * stride]: X's weights start at weights + X * stride */
} upf__taps;

/* Builds the taps of `kernel` for one axis of `src` -> `dst` pixels (both in
 * 1..UPF_MAX_IMAGE_DIMENSION, checked by the caller). Allocates from ctx; on failure records
 * the error and leaves `taps` empty. `fn` names the public call for messages. */
upf_result upf__taps_build(upf_context *ctx, const char *fn, const upf__kernel *kernel, int src,
                           int dst, upf__taps *taps);

/* The weights a tap table keeps per output pixel (its `stride`): what upf__taps_build
 * allocates, dst * stride floats of weights. */
int upf__taps_stride(const upf__kernel *kernel, int src, int dst);

/* Frees what upf__taps_build allocated (accepts an empty table). */
void upf__taps_free(upf_context *ctx, upf__taps *taps);

#endif /* UPF_RESAMPLE_H */
