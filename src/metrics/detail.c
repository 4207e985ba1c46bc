/* detail.c: two no-reference measures of a picture: detail (upf_metric_detail) and shimmer
 * (upf_metric_shimmer). Both use luma Y = Rec. 709 of the display-encoded values, in 0..255
 * units (255 Y).
 *
 * Detail: the RMS of the 4-neighbour Laplacian over the crop's inner pixels (those whose four
 * neighbours lie inside the crop):
 *   D = sqrt(mean over 1 <= x <= W-2, 1 <= y <= H-2 of (4 Y(x,y) - Y(x-1,y) - Y(x+1,y)
 *                                                     - Y(x,y-1) - Y(x,y+1))^2)
 * Fine texture raises it; blur lowers it.
 *
 * Shimmer: for frames of a still camera, the mean absolute change of luma from each frame to
 * the next, over every pixel of the crop and every one of the count - 1 consecutive pairs:
 *   S = sum over t < count-1, pixels p of |Y_{t+1}(p) - Y_t(p)| / ((count - 1) N)
 * A stable picture scores near 0 (a DLSS-upscaled still scene measures about 0.1 to 0.2).
 *
 * Reads the crops of the images; writes one double. Luma planes are computed over the
 * context's threads; sums are kept in double per row and added in row order, so results do
 * not depend on the thread count. */
#include <math.h>
#include <stdio.h>

#include "metrics/metrics.h"

/* ---- detail ------------------------------------------------------------------------- */

typedef struct detail_job {
    const float *luma; /* the crop's luma, W x H */
    int w;
    double *row_sums;  /* per inner row y (index y - 1): sum of Laplacian^2 */
} detail_job;

static void detail_row_task(void *priv, int i, int worker)
{
    (void)worker;
    const detail_job *job = priv;
    int w = job->w, y = i + 1;
    const float *up = job->luma + (size_t)(y - 1) * w, *row = up + w, *down = row + w;
    double sum = 0.0;
    for (int x = 1; x < w - 1; x++) {
        double lap = 4.0 * row[x] - (double)row[x - 1] - (double)row[x + 1] - (double)up[x] -
                     (double)down[x];
        lap *= 255.0;
        sum += lap * lap;
    }
    job->row_sums[i] = sum;
}

upf_result upf_metric_detail(upf_context *ctx, const upf_image *img, const upf_rect *crop,
                             double *out)
{
    static const char fn[] = "upf_metric_detail";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!out)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: out is NULL; expected a double "
                         "to write", fn);
    upf_result r = upf__metric_check_image(ctx, fn, "image", img, 0, 0, NULL);
    if (r != UPF_OK)
        return r;
    upf_rect rect;
    r = upf__resolve_crop(ctx, fn, crop, img->width, img->height, &rect);
    if (r != UPF_OK)
        return r;
    if (rect.width < 3 || rect.height < 3)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the measured area is %dx%d; "
                         "expected at least 3x3 (one pixel with four neighbours)", fn,
                         rect.width, rect.height);
    r = upf__metric_check_image(ctx, fn, "image", img, 0, 0, &rect);
    if (r != UPF_OK)
        return r;

    int w = rect.width, h = rect.height;
    float *luma = upf__alloc_array(ctx, (size_t)w * h, sizeof(float), "upf_metric_detail: luma");
    double *row_sums = luma ? upf__alloc_array(ctx, (size_t)h, sizeof(double),
                                               "upf_metric_detail: row sums") : NULL;
    if (!row_sums || upf__metric_luma_plane(ctx, fn, img, &rect, luma) != UPF_OK) {
        upf__free(ctx, row_sums);
        upf__free(ctx, luma);
        return UPF_ERROR_OUT_OF_MEMORY;
    }
    detail_job job = { luma, w, row_sums };
    upf__parallel_for(ctx, detail_row_task, &job, h - 2);
    *out = sqrt(upf__metric_sum_in_order(row_sums, h - 2) / ((double)(w - 2) * (h - 2)));
    upf__free(ctx, row_sums);
    upf__free(ctx, luma);
    return UPF_OK;
}

/* ---- shimmer ------------------------------------------------------------------------ */

typedef struct shimmer_job {
    const float *a, *b; /* luma of two consecutive frames, W x H */
    int w;
    double *row_sums;   /* per row: sum of |b - a| */
} shimmer_job;

static void shimmer_row_task(void *priv, int y, int worker)
{
    (void)worker;
    const shimmer_job *job = priv;
    const float *a = job->a + (size_t)y * job->w, *b = job->b + (size_t)y * job->w;
    double sum = 0.0;
    for (int x = 0; x < job->w; x++)
        sum += fabs((double)b[x] - (double)a[x]);
    job->row_sums[y] = sum;
}

upf_result upf_metric_shimmer(upf_context *ctx, const upf_image *frames, int count,
                              const upf_rect *crop, double *out)
{
    static const char fn[] = "upf_metric_shimmer";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!out)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: out is NULL; expected a double "
                         "to write", fn);
    if (!frames)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames is NULL; expected an "
                         "array of %d images", fn, count);
    if (count < 2)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: count is %d; expected at least "
                         "2 frames", fn, count);
    upf_result r = upf__metric_check_image(ctx, fn, "frame 0", &frames[0], 0, 0, NULL);
    if (r != UPF_OK)
        return r;
    upf_rect rect;
    r = upf__resolve_crop(ctx, fn, crop, frames[0].width, frames[0].height, &rect);
    if (r != UPF_OK)
        return r;
    for (int t = 0; t < count; t++) {
        char what[32];
        snprintf(what, sizeof what, "frame %d", t);
        r = upf__metric_check_image(ctx, fn, what, &frames[t], frames[0].width,
                                    frames[0].height, &rect);
        if (r != UPF_OK)
            return r;
    }

    int w = rect.width, h = rect.height;
    float *luma = upf__alloc_array(ctx, 2 * (size_t)w * h, sizeof(float),
                                   "upf_metric_shimmer: luma");
    double *row_sums = luma ? upf__alloc_array(ctx, (size_t)h, sizeof(double),
                                               "upf_metric_shimmer: row sums") : NULL;
    if (!row_sums) {
        upf__free(ctx, luma);
        return UPF_ERROR_OUT_OF_MEMORY;
    }
    float *planes[2] = { luma, luma + (size_t)w * h };
    double total = 0.0;
    r = upf__metric_luma_plane(ctx, fn, &frames[0], &rect, planes[0]);
    for (int t = 1; t < count && r == UPF_OK; t++) {
        float *prev = planes[(t - 1) & 1], *cur = planes[t & 1];
        r = upf__metric_luma_plane(ctx, fn, &frames[t], &rect, cur);
        if (r != UPF_OK)
            break;
        shimmer_job job = { prev, cur, w, row_sums };
        upf__parallel_for(ctx, shimmer_row_task, &job, h);
        total += upf__metric_sum_in_order(row_sums, h);
    }
    upf__free(ctx, row_sums);
    upf__free(ctx, luma);
    if (r != UPF_OK)
        return r;
    *out = 255.0 * total / ((double)(count - 1) * w * h);
    return UPF_OK;
}
