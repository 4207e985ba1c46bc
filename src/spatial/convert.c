/* convert.c: the spatial engine's first pass, convert: the host's source image, in any colour
 * format, to the linear surface (linear-light RGBA float, one texel a pixel), clamped to
 * [0, 1], the range the sqrt-encoded 10:10:10:2 frame of the later passes holds.
 *
 * Reads: the source (host image). Writes: linear. Fails with UPF_ERROR_BAD_DATA naming the
 * first pixel (lowest row, then lowest column) that is NaN or infinite. */
#include "core/image.h"
#include "spatial/spatial_passes.h"

typedef struct convert_job {
    const upf_image *src;
    float *linear;
    int *bad_x;   /* per row: the first non-finite pixel's x, or -1 */
    int width;
} convert_job;

static void convert_row(void *priv, int y, int worker)
{
    (void)worker;
    const convert_job *job = priv;
    float *row = job->linear + (size_t)y * job->width * 4;
    job->bad_x[y] = upf__row_to_linear(job->src, y, 0, job->width, row);
    /* Clamp: the frame format holds [0, 1]; negative light is not light. */
    for (int i = 0; i < job->width * 4; i++)
        row[i] = row[i] > 0.0f ? (row[i] < 1.0f ? row[i] : 1.0f) : 0.0f;
}

size_t upf__convert_scratch_bytes(int height)
{
    return (size_t)height * sizeof(int);
}

upf_result upf__convert_pass(const upf__pass_args *a)
{
    const upf__convert_con *con = a->con;
    convert_job job = { a->surface[UPF__SP_SOURCE].image, a->surface[UPF__SP_LINEAR].data,
                        a->scratch, con->width };
    upf__parallel_for(a->ctx, convert_row, &job, con->height);
    for (int y = 0; y < con->height; y++) {
        if (job.bad_x[y] >= 0)
            return upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: source pixel x=%d, y=%d is not "
                             "finite (NaN or Inf); expected finite linear light", a->fn,
                             job.bad_x[y], y);
    }
    return UPF_OK;
}
