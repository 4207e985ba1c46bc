/* ssim.c: mean structural similarity of a test image against a reference (upf_metric_ssim).
 *
 * Z. Wang, A. C. Bovik, H. R. Sheikh, E. P. Simoncelli, "Image quality assessment: from error
 * visibility to structural similarity", IEEE TIP 13(4), 2004, eq. (13) with the parameters of
 * section III-C: for the window around each pixel, with weights w (11x11 circular-symmetric
 * Gaussian, sigma 1.5, normalised to sum 1),
 *   mu_x = sum w x,  sigma_x^2 = sum w (x - mu_x)^2 = sum w x^2 - mu_x^2   (population)
 *   sigma_xy = sum w x y - mu_x mu_y
 *   SSIM = (2 mu_x mu_y + C1)(2 sigma_xy + C2) / ((mu_x^2 + mu_y^2 + C1)(sigma_x^2 + sigma_y^2 + C2))
 * with C1 = (K1 L)^2, C2 = (K2 L)^2, K1 = 0.01, K2 = 0.03, L = 1 (values in [0, 1]); the
 * result is the mean of the SSIM map over the windows that fit inside the crop ("valid"
 * windows, (W - 10) x (H - 10) of them), with no downsampling. x and y are Rec. 709 luma of
 * the display-encoded values.
 *
 * Reads the crop of both images; writes one double. The window is separable (the 2-D
 * Gaussian is the outer product of the 1-D one), so each band of output rows first filters
 * its input rows horizontally, then the columns; everything in double, because
 * sum w x^2 - mu_x^2 cancels. Per-row sums of the map are added in row order, so the result
 * does not depend on the thread count. */
#include <math.h>

#include "metrics/metrics.h"

#define SSIM_WINDOW 11
#define SSIM_RADIUS 5
#define SSIM_SIGMA 1.5
#define SSIM_C1 (0.01 * 0.01) /* (K1 L)^2 */
#define SSIM_C2 (0.03 * 0.03) /* (K2 L)^2 */
#define SSIM_STATS 5          /* sum w x, w y, w x^2, w y^2, w x y */

typedef struct ssim_job {
    const upf_image *ref, *test;
    upf_rect rect;
    int out_w, out_h;   /* valid windows: (W - 10) x (H - 10) */
    int band;           /* output rows per task */
    double weights[SSIM_WINDOW];
    char *scratch;      /* per worker, scratch_bytes each */
    size_t scratch_bytes;
    double *row_sums;   /* per output row: sum of the SSIM map */
} ssim_job;

/* Horizontal pass of one input row: the five window statistics along x, for every valid
 * window position. `in` holds x, y, x^2, y^2, x y (w doubles each). */
static void ssim_filter_row(const ssim_job *job, const double *in, double *out)
{
    int w = job->rect.width, ow = job->out_w;
    for (int s = 0; s < SSIM_STATS; s++) {
        const double *src = in + (size_t)s * w;
        double *dst = out + (size_t)s * ow;
        for (int j = 0; j < ow; j++)
            dst[j] = 0.0;
        for (int k = 0; k < SSIM_WINDOW; k++) {
            double wk = job->weights[k];
            for (int j = 0; j < ow; j++)
                dst[j] += wk * src[j + k];
        }
    }
}

static void ssim_band_task(void *priv, int band_index, int worker)
{
    const ssim_job *job = priv;
    int w = job->rect.width, ow = job->out_w;
    int o0 = band_index * job->band, o1 = UPF_MIN(o0 + job->band, job->out_h);
    int rows_in = o1 - o0 + SSIM_WINDOW - 1; /* input rows o0 .. o1 + 9 */

    char *base = job->scratch + (size_t)worker * job->scratch_bytes;
    float *rgba = (float *)base;                        /* 4w */
    float *lx = rgba + 4 * (size_t)w, *ly = lx + w;     /* w each */
    double *in = (double *)(ly + w);                    /* 5w (6w floats: 8-byte aligned) */
    double *acc = in + SSIM_STATS * (size_t)w;          /* 5 ow */
    double *hrows = acc + SSIM_STATS * (size_t)ow;      /* rows_in x 5 ow */

    for (int i = 0; i < rows_in; i++) {
        upf__metric_load_row(job->ref, &job->rect, o0 + i, rgba, NULL, NULL, NULL, lx);
        upf__metric_load_row(job->test, &job->rect, o0 + i, rgba, NULL, NULL, NULL, ly);
        for (int x = 0; x < w; x++) {
            double a = lx[x], b = ly[x];
            in[x] = a;
            in[w + x] = b;
            in[2 * w + x] = a * a;
            in[3 * w + x] = b * b;
            in[4 * w + x] = a * b;
        }
        ssim_filter_row(job, in, hrows + (size_t)i * SSIM_STATS * ow);
    }

    for (int oy = o0; oy < o1; oy++) {
        for (size_t j = 0; j < SSIM_STATS * (size_t)ow; j++)
            acc[j] = 0.0;
        for (int k = 0; k < SSIM_WINDOW; k++) {
            const double *src = hrows + (size_t)(oy - o0 + k) * SSIM_STATS * ow;
            double wk = job->weights[k];
            for (size_t j = 0; j < SSIM_STATS * (size_t)ow; j++)
                acc[j] += wk * src[j];
        }
        const double *mx = acc, *my = acc + ow, *exx = acc + 2 * ow, *eyy = acc + 3 * ow,
                     *exy = acc + 4 * ow;
        double sum = 0.0;
        for (int j = 0; j < ow; j++) {
            double mxy = mx[j] * my[j], mxx = mx[j] * mx[j], myy = my[j] * my[j];
            double vx = exx[j] - mxx, vy = eyy[j] - myy, cxy = exy[j] - mxy;
            sum += ((2.0 * mxy + SSIM_C1) * (2.0 * cxy + SSIM_C2)) /
                   ((mxx + myy + SSIM_C1) * (vx + vy + SSIM_C2));
        }
        job->row_sums[oy] = sum;
    }
}

upf_result upf_metric_ssim(upf_context *ctx, const upf_image *ref, const upf_image *test,
                           const upf_rect *crop, double *out)
{
    static const char fn[] = "upf_metric_ssim";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!out)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: out is NULL; expected a double "
                         "to write", fn);
    ssim_job job = { .ref = ref, .test = test };
    upf_result r = upf__metric_check_pair(ctx, fn, ref, test, crop, &job.rect);
    if (r != UPF_OK)
        return r;
    int w = job.rect.width, h = job.rect.height;
    if (w < SSIM_WINDOW || h < SSIM_WINDOW)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the compared area is %dx%d; "
                         "expected at least %dx%d (one SSIM window)", fn, w, h, SSIM_WINDOW,
                         SSIM_WINDOW);

    /* The 1-D Gaussian, normalised; the 2-D window w(i, j) = g(i) g(j) then sums to 1. */
    double gsum = 0.0;
    for (int k = 0; k < SSIM_WINDOW; k++) {
        double d = k - SSIM_RADIUS;
        job.weights[k] = exp(-d * d / (2.0 * SSIM_SIGMA * SSIM_SIGMA));
        gsum += job.weights[k];
    }
    for (int k = 0; k < SSIM_WINDOW; k++)
        job.weights[k] /= gsum;

    int threads = upf_context_threads(ctx);
    job.out_w = w - (SSIM_WINDOW - 1);
    job.out_h = h - (SSIM_WINDOW - 1);
    job.band = upf__metric_band_rows(job.out_h, threads,
                                     SSIM_STATS * sizeof(double) * (size_t)job.out_w,
                                     SSIM_RADIUS);
    int bands = (job.out_h + job.band - 1) / job.band;
    size_t ow = (size_t)job.out_w, rows_in = (size_t)job.band + SSIM_WINDOW - 1;
    job.scratch_bytes = 6 * (size_t)w * sizeof(float) +
                        SSIM_STATS * ((size_t)w + ow + rows_in * ow) * sizeof(double);
    job.scratch_bytes = (job.scratch_bytes + 63) / 64 * 64;
    job.scratch = upf__alloc_array(ctx, (size_t)threads, job.scratch_bytes,
                                   "upf_metric_ssim: band scratch");
    job.row_sums = upf__alloc_array(ctx, (size_t)job.out_h, sizeof(double),
                                    "upf_metric_ssim: row sums");
    if (!job.scratch || !job.row_sums) {
        upf__free(ctx, job.scratch);
        upf__free(ctx, job.row_sums);
        return UPF_ERROR_OUT_OF_MEMORY;
    }
    upf__parallel_for(ctx, ssim_band_task, &job, bands);
    *out = upf__metric_sum_in_order(job.row_sums, job.out_h) / ((double)ow * job.out_h);
    upf__free(ctx, job.scratch);
    upf__free(ctx, job.row_sums);
    return UPF_OK;
}
