/* metrics.h: what the metrics share: checking their arguments (context, images, sizes, crop,
 * finite pixels), loading rows of a crop as display-encoded values and luma, and per-worker
 * scratch memory.
 *
 * Internal header. Every metric works on display-encoded values (see upframe.h, "Metrics"):
 * sRGB-encoded formats as stored, linear ones clamped to [0, 1] and sRGB-encoded, which is what
 * upf__row_to_display gives. Luma is Rec. 709 of those encoded values (upf_luma). */
#ifndef UPF_METRICS_H
#define UPF_METRICS_H

#include "core/color.h"
#include "core/core.h"
#include "core/image.h"

/* Checks `ref` and `test` (colour formats, `test` the size of `ref`), resolves `crop` against
 * them into `rect`, and checks that float pixels inside the crop are finite
 * (UPF_ERROR_BAD_DATA naming the image and the pixel's x,y in image coordinates). `fn` names
 * the public function in messages. The caller has checked `ctx`. */
upf_result upf__metric_check_pair(upf_context *ctx, const char *fn, const upf_image *ref,
                                  const upf_image *test, const upf_rect *crop, upf_rect *rect);

/* The same for one image: a colour format; when `width` > 0 exactly width x height (the size
 * of the first frame, for shimmer); and finite float pixels inside `rect`, which the caller
 * has already resolved. */
upf_result upf__metric_check_image(upf_context *ctx, const char *fn, const char *what,
                                   const upf_image *img, int width, int height,
                                   const upf_rect *rect);

/* Loads row `y` of the crop (0 = the crop's top row) as display-encoded values: planar R, G, B
 * and luma, each `rect->width` floats; any output may be NULL. `rgba` is scratch for
 * 4 * rect->width floats. The image has been checked (finite pixels). */
void upf__metric_load_row(const upf_image *img, const upf_rect *rect, int y, float *rgba,
                          float *r, float *g, float *b, float *luma);

/* The luma of the whole crop into `out` (rect->width * rect->height floats, row after row),
 * over the context's threads. Allocates only row scratch. */
upf_result upf__metric_luma_plane(upf_context *ctx, const char *fn, const upf_image *img,
                                  const upf_rect *rect, float *out);

/* Sums `n` doubles in index order: the one way the metrics pool per-row partial sums, so that
 * results do not depend on how rows were spread over threads. */
static inline double upf__metric_sum_in_order(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* Output rows handed to one task by the banded metrics (SSIM, FLIP), whose bands each need
 * `halo` extra input rows above and below and about `row_bytes` of scratch per row: about four
 * bands per worker so the workers balance, 32..128 rows each, fewer where rows are so wide
 * that a band would pass the scratch budget (256 MiB over all workers, at least 16 MiB each).
 * The split changes with the thread count; the results do not, because every output row is
 * computed from the same inputs in the same order whichever band holds it. */
static inline int upf__metric_band_rows(int rows, int threads, size_t row_bytes, int halo)
{
    size_t budget = UPF_MAX((size_t)16 << 20, ((size_t)256 << 20) / (size_t)threads);
    long fit = (long)(budget / row_bytes) - 2L * halo;
    int max_rows = (int)UPF_CLAMP(fit, 8L, 128L);
    int per = (rows + 4 * threads - 1) / (4 * threads);
    return UPF_CLAMP(per, UPF_MIN(32, max_rows), max_rows);
}

#endif /* UPF_METRICS_H */
