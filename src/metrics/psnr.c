/* psnr.c: peak signal-to-noise ratio of a test image against a reference (upf_metric_psnr).
 *
 * Reads the crop of both images as display-encoded values in [0, 1] (peak 1), writes a
 * upf_psnr_result:
 *   MSE_rgb  = sum over pixels and R, G, B of (test - ref)^2 / (3 N)
 *   MSE_luma = sum over pixels of (Y_test - Y_ref)^2 / N, Y = Rec. 709 luma of the encoded values
 *   PSNR     = 10 log10(peak^2 / MSE) dB = -10 log10(MSE), +inf when MSE = 0.
 * Squared differences are summed in double per row, then the rows in order, so the result does
 * not depend on the thread count. */
#include <math.h>

#include "metrics/metrics.h"

typedef struct psnr_job {
    const upf_image *ref, *test;
    upf_rect rect;
    float *scratch;        /* per worker: rgba (4w) + 4 planes (R G B Y) x 2 images */
    size_t scratch_floats; /* per worker */
    double *row_rgb;       /* per row: sum of squared R, G, B differences */
    double *row_luma;      /* per row: sum of squared luma differences */
} psnr_job;

static void psnr_row_task(void *priv, int y, int worker)
{
    const psnr_job *job = priv;
    int w = job->rect.width;
    float *rgba = job->scratch + (size_t)worker * job->scratch_floats;
    float *a = rgba + 4 * (size_t)w; /* ref planes R G B Y, then test planes R G B Y */
    float *b = a + 4 * (size_t)w;
    upf__metric_load_row(job->ref, &job->rect, y, rgba, a, a + w, a + 2 * w, a + 3 * w);
    upf__metric_load_row(job->test, &job->rect, y, rgba, b, b + w, b + 2 * w, b + 3 * w);

    double rgb = 0.0, luma = 0.0;
    for (int x = 0; x < w; x++) {
        for (int c = 0; c < 3; c++) {
            double d = (double)b[c * w + x] - (double)a[c * w + x];
            rgb += d * d;
        }
        double d = (double)b[3 * w + x] - (double)a[3 * w + x];
        luma += d * d;
    }
    job->row_rgb[y] = rgb;
    job->row_luma[y] = luma;
}

/* PSNR in dB for peak 1 from a mean squared error. */
static double psnr_from_mse(double mse)
{
    return mse > 0.0 ? -10.0 * log10(mse) : INFINITY;
}

upf_result upf_metric_psnr(upf_context *ctx, const upf_image *ref, const upf_image *test,
                           const upf_rect *crop, upf_psnr_result *out)
{
    static const char fn[] = "upf_metric_psnr";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!out)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: out is NULL; expected a "
                         "upf_psnr_result to write", fn);
    psnr_job job = { .ref = ref, .test = test };
    upf_result r = upf__metric_check_pair(ctx, fn, ref, test, crop, &job.rect);
    if (r != UPF_OK)
        return r;

    int w = job.rect.width, h = job.rect.height, threads = upf_context_threads(ctx);
    job.scratch_floats = 12 * (size_t)w;
    job.scratch = upf__alloc_array(ctx, (size_t)threads * job.scratch_floats, sizeof(float),
                                   "upf_metric_psnr: row scratch");
    job.row_rgb = upf__alloc_array(ctx, 2 * (size_t)h, sizeof(double),
                                   "upf_metric_psnr: row sums");
    if (!job.scratch || !job.row_rgb) {
        upf__free(ctx, job.scratch);
        upf__free(ctx, job.row_rgb);
        return UPF_ERROR_OUT_OF_MEMORY;
    }
    job.row_luma = job.row_rgb + h;
    upf__parallel_for(ctx, psnr_row_task, &job, h);

    double n = (double)w * (double)h;
    out->mse_rgb = upf__metric_sum_in_order(job.row_rgb, h) / (3.0 * n);
    out->mse_luma = upf__metric_sum_in_order(job.row_luma, h) / n;
    out->rgb = psnr_from_mse(out->mse_rgb);
    out->luma = psnr_from_mse(out->mse_luma);
    upf__free(ctx, job.scratch);
    upf__free(ctx, job.row_rgb);
    return UPF_OK;
}
