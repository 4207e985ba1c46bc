/* resampler.c: the classic resampler object: separable bilinear / bicubic / Lanczos-3
 * scaling of a colour image, in linear light, over the context's threads.
 *
 * Reads: a source image of the size given at creation, any colour format. Writes: the
 * destination image, any colour format. Created once per pair of sizes; run allocates
 * nothing.
 *
 * Two passes, horizontal then vertical (the taps are in resample.h / filters.c):
 *
 *   1. For each source row: convert it to linear float RGBA (sRGB decoded, integers
 *      scaled to [0, 1], NaN/Inf rejected), filter it horizontally, and store the
 *      dst_width-wide result in the intermediate image (src_height rows).
 *   2. For each destination row: the weighted sum of the intermediate rows its vertical
 *      taps name, converted to the destination format (sRGB encoded, clamped and rounded
 *      for integer formats).
 *
 * Why horizontal first, always: with taps T_x, T_y per output pixel, horizontal-first costs
 * src_h * dst_w * T_x + dst_h * dst_w * T_y multiply-adds, vertical-first
 * dst_h * src_w * T_y + dst_h * dst_w * T_x. For the same ratio on both axes (a game frame)
 * the two are equal; vertical-first only wins when the height shrinks, which upscaling
 * never does. Horizontal-first converts each source row to linear exactly once, and its
 * second pass runs over whole contiguous rows, the loop that vectorises best.
 *
 * Alpha is filtered like the colour channels, straight (not premultiplied): game frames are
 * opaque, where the two agree. For translucent images the colour of fully transparent
 * pixels bleeds into their neighbours; premultiply first if that matters.
 *
 * Threads: each pass is a parallel-for over blocks of rows. Every output value is computed
 * by one fixed sequence of float operations (taps in order, accumulator started from the
 * first product), whichever worker runs it, so the result is bit-identical for any thread
 * count or host scheduler. Each worker has its own row of scratch, allocated at creation.
 *
 * NaN/Inf: a row with a non-finite float pixel stops its block; after the pass, the first
 * such pixel in raster order is reported (blocks after it may have been skipped). The
 * destination is then left unspecified (not written by this call, in fact, since the check
 * happens in pass 1). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/color.h"
#include "core/image.h"
#include "resample/resample.h"

/* Rows per parallel task: enough work to amortise hand-out, small enough to balance. */
#define ROWS_PER_BLOCK 8
/* Floats per chunk of the vertical pass: the output chunk stays in L1 while every tap row
 * is added to it. */
#define VERTICAL_CHUNK 1024

struct upf_resampler {
    upf_context *ctx;
    int src_w, src_h, dst_w, dst_h;
    const upf__kernel *kernel;
    upf__taps tx, ty;

    float *inter;            /* src_h rows of dst_w RGBA floats: the horizontal pass's result */
    size_t inter_stride;     /* floats per intermediate row (a multiple of 16: 64 bytes) */

    int workers;
    float *scratch;          /* workers rows of scratch_floats: a linear row per worker */
    size_t scratch_floats;

    int h_blocks, v_blocks;  /* tasks of pass 1 (source rows) and pass 2 (destination rows) */
    int *bad_x, *bad_y;      /* [h_blocks]: the first non-finite pixel a block found */

    atomic_bool in_use;      /* a run is in progress (upf__enter) */
};

static size_t round_up16(size_t n)
{
    return (n + 15) / 16 * 16;
}

/* ---- the two filters: the scalar definitions ----------------------------------------- */

/* One row horizontally: out[x] = sum_t w[x][t] * in[first[x] + t], four channels at a time.
 * The accumulator starts from the first product (so a single weight of 1 copies exactly,
 * -0 included). */
static void filter_row_horizontal(const upf__taps *restrict tx, const float *restrict in,
                                  float *restrict out)
{
    const int stride = tx->stride;
    for (int x = 0; x < tx->dst_size; x++) {
        const float *restrict w = tx->weights + (size_t)x * (size_t)stride;
        const float *restrict p = in + (size_t)tx->first[x] * 4;
        const int n = tx->count[x];
        float acc[4];
        for (int c = 0; c < 4; c++)
            acc[c] = w[0] * p[c];
        for (int t = 1; t < n; t++) {
            const float wt = w[t];
            const float *restrict q = p + 4 * t;
            for (int c = 0; c < 4; c++)
                acc[c] += wt * q[c];
        }
        for (int c = 0; c < 4; c++)
            out[4 * x + c] = acc[c];
    }
}

/* One destination row vertically: out[i] = sum_t w[t] * rows[first + t][i] for the
 * row's `len` floats, in chunks so the output chunk stays in cache. Per element the
 * operations are the same sequence as in the horizontal filter. */
static void filter_row_vertical(const float *restrict w, int n, const float *restrict rows,
                                size_t row_stride, size_t len, float *restrict out)
{
    for (size_t c0 = 0; c0 < len; c0 += VERTICAL_CHUNK) {
        const size_t c1 = UPF_MIN(len, c0 + VERTICAL_CHUNK);
        const float w0 = w[0];
        const float *restrict r0 = rows;
        for (size_t i = c0; i < c1; i++)
            out[i] = w0 * r0[i];
        for (int t = 1; t < n; t++) {
            const float wt = w[t];
            const float *restrict rt = rows + (size_t)t * row_stride;
            for (size_t i = c0; i < c1; i++)
                out[i] += wt * rt[i];
        }
    }
}

/* ---- the passes as parallel tasks ------------------------------------------------------ */

typedef struct run_job {
    upf_resampler *r;
    const upf_image *src;
    const upf_image *dst;
    atomic_int first_bad_block; /* the lowest block index that found a non-finite pixel */
} run_job;

static float *worker_scratch(const upf_resampler *r, int worker)
{
    return r->scratch + (size_t)worker * r->scratch_floats;
}

static void horizontal_task(void *priv, int block, int worker)
{
    run_job *job = priv;
    upf_resampler *r = job->r;
    /* A block after one that already failed has nothing to add: the error reported is the
     * first in raster order, which lies in the lowest failing block. */
    if (block > atomic_load(&job->first_bad_block))
        return;
    float *line = worker_scratch(r, worker);
    const int y1 = UPF_MIN(r->src_h, (block + 1) * ROWS_PER_BLOCK);
    for (int y = block * ROWS_PER_BLOCK; y < y1; y++) {
        int bad = upf__row_to_linear(job->src, y, 0, r->src_w, line);
        if (bad >= 0) {
            r->bad_x[block] = bad;
            r->bad_y[block] = y;
            int seen = atomic_load(&job->first_bad_block);
            while (block < seen &&
                   !atomic_compare_exchange_weak(&job->first_bad_block, &seen, block)) {
            }
            return;
        }
        filter_row_horizontal(&r->tx, line, r->inter + (size_t)y * r->inter_stride);
    }
}

static void vertical_task(void *priv, int block, int worker)
{
    run_job *job = priv;
    upf_resampler *r = job->r;
    float *line = worker_scratch(r, worker);
    const int y1 = UPF_MIN(r->dst_h, (block + 1) * ROWS_PER_BLOCK);
    for (int y = block * ROWS_PER_BLOCK; y < y1; y++) {
        const float *w = r->ty.weights + (size_t)y * (size_t)r->ty.stride;
        const float *rows = r->inter + (size_t)r->ty.first[y] * r->inter_stride;
        /* Float output needs no conversion: write the row in place when it is aligned for
         * floats (the same values either way; this only saves a copy). */
        void *row = upf__row(job->dst, y);
        bool direct = job->dst->format == UPF_FORMAT_RGBA32F &&
                      (uintptr_t)row % _Alignof(float) == 0;
        filter_row_vertical(w, r->ty.count[y], rows, r->inter_stride, (size_t)r->dst_w * 4,
                            direct ? (float *)row : line);
        if (!direct)
            upf__row_from_linear_ctx(r->ctx, job->dst, y, 0, r->dst_w, line);
    }
}

/* ---- the object ----------------------------------------------------------------------- */

static upf_result check_size(upf_context *ctx, const char *fn, const char *what, int v)
{
    if (v < 1 || v > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is %d; expected 1..%d", fn,
                         what, v, UPF_MAX_IMAGE_DIMENSION);
    return UPF_OK;
}

/* Checks the params (sizes and filter; not the pixel limit) and gives the kernel. */
static const upf__kernel *check_params(upf_context *ctx, const char *fn,
                                       const upf_resampler_params *params)
{
    if (!params) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the source "
                  "and destination sizes", fn);
        return NULL;
    }
    if (check_size(ctx, fn, "params->src_width", params->src_width) ||
        check_size(ctx, fn, "params->src_height", params->src_height) ||
        check_size(ctx, fn, "params->dst_width", params->dst_width) ||
        check_size(ctx, fn, "params->dst_height", params->dst_height))
        return NULL;
    const upf__kernel *kernel = upf__kernel_get(params->filter);
    if (!kernel)
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params->filter is %d; expected 0 "
                  "(default), %d (bilinear), %d (bicubic) or %d (lanczos)", fn,
                  (int)params->filter, (int)UPF_FILTER_BILINEAR, (int)UPF_FILTER_BICUBIC,
                  (int)UPF_FILTER_LANCZOS3);
    return kernel;
}

/* The bytes a resampler for `p` holds once made, on `workers` threads: exactly what
 * resampler_create allocates and keeps (tests/test_resample.c counts it). */
static size_t resampler_bytes(const upf__kernel *kernel, const upf_resampler_params *p,
                              int workers)
{
    size_t h_blocks = (size_t)(p->src_height + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    size_t taps = 0;
    const int src[2] = { p->src_width, p->src_height }, dst[2] = { p->dst_width, p->dst_height };
    for (int axis = 0; axis < 2; axis++)
        taps += (size_t)dst[axis] * (2 * sizeof(int32_t) +
                                     (size_t)upf__taps_stride(kernel, src[axis], dst[axis]) *
                                         sizeof(float));
    return sizeof(upf_resampler) + taps +
           (size_t)p->src_height * round_up16((size_t)p->dst_width * 4) * sizeof(float) +
           (size_t)workers * round_up16((size_t)UPF_MAX(p->src_width, p->dst_width) * 4) *
               sizeof(float) +
           2 * h_blocks * sizeof(int);
}

upf_result upf_resampler_memory(upf_context *ctx, const upf_resampler_params *params,
                                size_t *bytes)
{
    static const char fn[] = "upf_resampler_memory";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!bytes)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: bytes is NULL; expected a "
                         "size_t to fill", fn);
    const upf__kernel *kernel = check_params(ctx, fn, params);
    if (!kernel)
        return ctx->last_result;
    *bytes = resampler_bytes(kernel, params, upf_context_threads(ctx));
    return UPF_OK;
}

static upf_resampler *resampler_create(upf_context *ctx, const char *fn,
                                       const upf_resampler_params *params)
{
    const upf__kernel *kernel = check_params(ctx, fn, params);
    if (!kernel)
        return NULL;
    if (upf__check_pixels(ctx, fn, "the source", params->src_width, params->src_height) ||
        upf__check_pixels(ctx, fn, "the destination", params->dst_width, params->dst_height))
        return NULL;
    upf__log(ctx, UPF_LOG_INFO, "%s: %dx%d -> %dx%d (%s) takes %zu bytes", fn,
             params->src_width, params->src_height, params->dst_width, params->dst_height,
             kernel->name, resampler_bytes(kernel, params, upf_context_threads(ctx)));

    upf_resampler *r = upf__alloc(ctx, sizeof *r, "the resampler");
    if (!r)
        return NULL;
    r->ctx = ctx;
    atomic_init(&r->in_use, false);
    r->src_w = params->src_width;
    r->src_h = params->src_height;
    r->dst_w = params->dst_width;
    r->dst_h = params->dst_height;
    r->kernel = kernel;
    r->workers = upf_context_threads(ctx);
    r->h_blocks = (r->src_h + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    r->v_blocks = (r->dst_h + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    r->inter_stride = round_up16((size_t)r->dst_w * 4);
    r->scratch_floats = round_up16((size_t)UPF_MAX(r->src_w, r->dst_w) * 4);

    if (upf__taps_build(ctx, fn, kernel, r->src_w, r->dst_w, &r->tx) ||
        upf__taps_build(ctx, fn, kernel, r->src_h, r->dst_h, &r->ty))
        goto fail;
    r->inter = upf__alloc_array(ctx, (size_t)r->src_h, r->inter_stride * sizeof(float),
                                "the resampler's intermediate image");
    r->scratch = upf__alloc_array(ctx, (size_t)r->workers, r->scratch_floats * sizeof(float),
                                  "the resampler's per-thread rows");
    r->bad_x = upf__alloc_array(ctx, (size_t)r->h_blocks, sizeof(int), "resampler blocks");
    r->bad_y = upf__alloc_array(ctx, (size_t)r->h_blocks, sizeof(int), "resampler blocks");
    if (!r->inter || !r->scratch || !r->bad_x || !r->bad_y)
        goto fail;
    upf__log(ctx, UPF_LOG_DEBUG, "resampler %dx%d -> %dx%d, %s: up to %d x %d taps, "
             "%.1f MiB", r->src_w, r->src_h, r->dst_w, r->dst_h, kernel->name,
             r->tx.max_count, r->ty.max_count,
             ((double)r->src_h * (double)r->inter_stride * 4.0 +
              (double)r->workers * (double)r->scratch_floats * 4.0) / (1024.0 * 1024.0));
    return r;

fail:
    upf_resampler_destroy(&r);
    return NULL;
}

upf_resampler *upf_resampler_create(upf_context *ctx, const upf_resampler_params *params)
{
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    return resampler_create(ctx, "upf_resampler_create", params);
}

void upf_resampler_destroy(upf_resampler **resampler)
{
    if (!resampler || !*resampler)
        return;
    upf_resampler *r = *resampler;
    upf_context *ctx = r->ctx;
    upf__taps_free(ctx, &r->tx);
    upf__taps_free(ctx, &r->ty);
    upf__free(ctx, r->inter);
    upf__free(ctx, r->scratch);
    upf__free(ctx, r->bad_x);
    upf__free(ctx, r->bad_y);
    upf__free(ctx, r);
    *resampler = NULL;
}


/* Describes a pixel's four channels as floats for an error message. */
static void describe_pixel(const upf_image *img, int x, int y, char *buf, size_t size)
{
    float v[4];
    if (img->format == UPF_FORMAT_RGBA32F) {
        memcpy(v, (const char *)upf__row(img, y) + (size_t)x * 16, sizeof v);
    } else if (img->format == UPF_FORMAT_RGBA16F) {
        const char *p = (const char *)upf__row(img, y) + (size_t)x * 8;
        for (int c = 0; c < 4; c++)
            v[c] = upf_half_to_float(upf__load_u16(p + 2 * c));
    } else {
        snprintf(buf, size, "?");
        return;
    }
    snprintf(buf, size, "%g, %g, %g, %g", (double)v[0], (double)v[1], (double)v[2],
             (double)v[3]);
}

static upf_result resampler_run(upf_resampler *r, const char *fn, const upf_image *src,
                                const upf_image *dst)
{
    upf_context *ctx = r->ctx;
    upf_result res = upf__check_image(ctx, fn, "source image", src, UPF_FMTS_COLOR, r->src_w,
                                      r->src_h);
    if (res)
        return res;
    res = upf__check_image(ctx, fn, "destination image", dst, UPF_FMTS_COLOR, r->dst_w,
                           r->dst_h);
    if (res)
        return res;
    if (upf__images_overlap(src, dst))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the source and destination "
                         "images overlap in memory (rows of %p, stride %zu and of %p, stride "
                         "%zu share bytes); expected separate pixels", fn, src->data,
                         upf__stride(src), dst->data, upf__stride(dst));

    run_job job = { .r = r, .src = src, .dst = dst };
    atomic_init(&job.first_bad_block, r->h_blocks);
    upf__parallel_for(ctx, horizontal_task, &job, r->h_blocks);
    int bad_block = atomic_load(&job.first_bad_block);
    if (bad_block < r->h_blocks) {
        int x = r->bad_x[bad_block], y = r->bad_y[bad_block];
        char values[96];
        describe_pixel(src, x, y, values, sizeof values);
        return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: source pixel x=%d, y=%d is not finite "
                         "(%s); expected finite values", fn, x, y, values);
    }
    upf__parallel_for(ctx, vertical_task, &job, r->v_blocks);
    return UPF_OK;
}

upf_result upf_resampler_run(upf_resampler *resampler, const upf_image *src,
                             const upf_image *dst)
{
    static const char fn[] = "upf_resampler_run";
    if (!resampler)
        return UPF_ERROR_INVALID_ARGUMENT; /* no context to hold a message */
    upf__clear_error(resampler->ctx);
    upf_result r = upf__enter(resampler->ctx, &resampler->in_use, fn, "the resampler");
    if (r != UPF_OK)
        return r;
    r = resampler_run(resampler, fn, src, dst);
    upf__leave(&resampler->in_use);
    return r;
}

upf_result upf_resample(upf_context *ctx, const upf_image *src, const upf_image *dst,
                        upf_filter filter)
{
    static const char fn[] = "upf_resample";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    upf_result res = upf__check_image(ctx, fn, "source image", src, UPF_FMTS_COLOR, 0, 0);
    if (res)
        return res;
    res = upf__check_image(ctx, fn, "destination image", dst, UPF_FMTS_COLOR, 0, 0);
    if (res)
        return res;
    upf_resampler *r = resampler_create(ctx, fn, upf_resampler_params(
        .src_width = src->width, .src_height = src->height,
        .dst_width = dst->width, .dst_height = dst->height, .filter = filter));
    if (!r)
        return upf_context_last_error(ctx, NULL);
    res = resampler_run(r, fn, src, dst);
    upf_resampler_destroy(&r);
    return res;
}
