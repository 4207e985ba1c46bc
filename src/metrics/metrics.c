/* metrics.c: the checks and loaders every metric shares (see metrics.h). Reads the caller's
 * images; writes only the caller's buffers. */
#include <math.h>

#include "metrics/metrics.h"

/* The first pixel of row y inside [x0, x0 + n) with a NaN or Inf channel, or -1. Only float
 * formats can hold one. */
static int first_non_finite(const upf_image *img, int y, int x0, int n)
{
    if (img->format == UPF_FORMAT_RGBA32F) {
        const char *p = (const char *)upf__row(img, y) + (size_t)x0 * 16;
        for (int i = 0; i < n * 4; i++)
            if (!isfinite(upf__load_f32(p + 4 * i)))
                return x0 + i / 4;
    } else if (img->format == UPF_FORMAT_RGBA16F) {
        /* binary16: exponent bits all ones is Inf (mantissa 0) or NaN. */
        const char *p = (const char *)upf__row(img, y) + (size_t)x0 * 8;
        for (int i = 0; i < n * 4; i++)
            if ((upf__load_u16(p + 2 * i) & 0x7c00u) == 0x7c00u)
                return x0 + i / 4;
    }
    return -1;
}

upf_result upf__metric_check_image(upf_context *ctx, const char *fn, const char *what,
                                   const upf_image *img, int width, int height,
                                   const upf_rect *rect)
{
    upf_result r = upf__check_image(ctx, fn, what, img, UPF_FMTS_COLOR, width, height);
    if (r != UPF_OK)
        return r;
    if (rect) {
        for (int y = rect->y; y < rect->y + rect->height; y++) {
            int x = first_non_finite(img, y, rect->x, rect->width);
            if (x >= 0)
                return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: %s: pixel %d,%d is not finite "
                                 "(NaN or Inf); expected finite %s values", fn, what, x, y,
                                 upf_format_name(img->format));
        }
    }
    return UPF_OK;
}

upf_result upf__metric_check_pair(upf_context *ctx, const char *fn, const upf_image *ref,
                                  const upf_image *test, const upf_rect *crop, upf_rect *rect)
{
    upf_result r = upf__metric_check_image(ctx, fn, "reference image", ref, 0, 0, NULL);
    if (r != UPF_OK)
        return r;
    /* "test image is WxH; expected RxS": both sizes in the message. */
    r = upf__metric_check_image(ctx, fn, "test image", test, ref->width, ref->height, NULL);
    if (r != UPF_OK)
        return r;
    r = upf__resolve_crop(ctx, fn, crop, ref->width, ref->height, rect);
    if (r != UPF_OK)
        return r;
    r = upf__metric_check_image(ctx, fn, "reference image", ref, 0, 0, rect);
    if (r != UPF_OK)
        return r;
    return upf__metric_check_image(ctx, fn, "test image", test, 0, 0, rect);
}

void upf__metric_load_row(const upf_image *img, const upf_rect *rect, int y, float *rgba,
                          float *r, float *g, float *b, float *luma)
{
    int w = rect->width;
    upf__row_to_display(img, rect->y + y, rect->x, w, rgba);
    for (int x = 0; x < w; x++) {
        const float *p = rgba + 4 * x;
        if (r)
            r[x] = p[0];
        if (g)
            g[x] = p[1];
        if (b)
            b[x] = p[2];
        if (luma)
            luma[x] = upf_luma(p[0], p[1], p[2]);
    }
}

typedef struct luma_job {
    const upf_image *img;
    const upf_rect *rect;
    float *scratch; /* 4 * width floats per worker */
    float *out;
} luma_job;

static void luma_row_task(void *priv, int y, int worker)
{
    const luma_job *job = priv;
    size_t w = (size_t)job->rect->width;
    upf__metric_load_row(job->img, job->rect, y, job->scratch + (size_t)worker * 4 * w, NULL,
                         NULL, NULL, job->out + (size_t)y * w);
}

upf_result upf__metric_luma_plane(upf_context *ctx, const char *fn, const upf_image *img,
                                  const upf_rect *rect, float *out)
{
    int threads = upf_context_threads(ctx);
    luma_job job = { img, rect, NULL, out };
    job.scratch = upf__alloc_array(ctx, (size_t)threads * 4, (size_t)rect->width * sizeof(float),
                                   fn);
    if (!job.scratch)
        return UPF_ERROR_OUT_OF_MEMORY;
    upf__parallel_for(ctx, luma_row_task, &job, rect->height);
    upf__free(ctx, job.scratch);
    return UPF_OK;
}
