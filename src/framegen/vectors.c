/* vectors.c: the frame generation engine's vectors pass (docs/FRAMEGEN.md, "vectors"): the
 * game's motion vectors and depth of frame N as the engine's motion and splat priority, and
 * what frame N-1 saw of N's surfaces.
 *
 * Reads: motion in, depth in (host, motion size). Writes: motion, priority, splat prev and
 * its index, splat land, prev motion.
 *
 * Each output pixel takes the vector and depth of the motion-size pixel it falls in (nearest;
 * for vectors at a render size below the output size), its vector times the scale (stored
 * units -> output pixels). Its priority is its depth's (upf__fg_depth_priority: nearer wins).
 * Then N's pixels are splatted to t = 0 (upf__fg_splat, shift 1): the cell of N-1 at p + m
 * holds the nearest surface of N that was there, and its prev motion is minus that surface's
 * vector (from N-1 to N); cells nothing landed in hold a vector that is not known (N-1 showed
 * something there that N does not). A NaN or infinite vector or depth, or a negative depth,
 * fails with UPF_ERROR_BAD_DATA naming the pixel.
 * Work: one task per row (the splat: two). */
#include <math.h>

#include "framegen/framegen_passes.h"

typedef struct vec_job {
    const upf__fg_vectors_con *con;
    const upf_image *motion, *depth;
    float *out_motion;
    uint32_t *priority;
    const uint32_t *index;
    float *prev_motion;
    int *bad;      /* per motion row: x of the first bad vector or depth, or -1; and which */
} vec_job;

static void vec_row(void *priv, int y, int worker)
{
    (void)worker;
    const vec_job *j = priv;
    const upf__fg_vectors_con *c = j->con;
    const int W = c->width;
    const int my = (int)((long)y * c->motion_height / c->height);
    const char *mrow = (const char *)j->motion->data + (size_t)my * (j->motion->stride ?
                       j->motion->stride : (size_t)j->motion->width * 8);
    const char *drow = (const char *)j->depth->data + (size_t)my * (j->depth->stride ?
                       j->depth->stride : (size_t)j->depth->width * 4);
    j->bad[2 * y] = -1;
    for (int x = 0; x < W; x++) {
        const int mx = (int)((long)x * c->motion_width / W);
        float v[2], d;
        memcpy(v, mrow + (size_t)mx * 8, sizeof v);
        memcpy(&d, drow + (size_t)mx * 4, sizeof d);
        const size_t i = (size_t)y * W + x;
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(d) || d < 0.0f) {
            if (j->bad[2 * y] < 0) {
                j->bad[2 * y] = mx;
                j->bad[2 * y + 1] = isfinite(v[0]) && isfinite(v[1]) ? 1 : 0;
            }
            j->out_motion[2 * i] = UPF__FG_INVALID;
            j->out_motion[2 * i + 1] = 0.0f;
            j->priority[i] = 0xffffffffu;
            continue;
        }
        j->out_motion[2 * i] = v[0] * c->scale_x;
        j->out_motion[2 * i + 1] = v[1] * c->scale_y;
        j->priority[i] = upf__fg_depth_priority(d, c->depth_reversed != 0);
    }
}

static void prev_row(void *priv, int y, int worker)
{
    (void)worker;
    const vec_job *j = priv;
    const int W = j->con->width;
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        const uint32_t k = j->index[i];
        if (k == UPF__FG_NONE) {
            j->prev_motion[2 * i] = UPF__FG_INVALID;
            j->prev_motion[2 * i + 1] = 0.0f;
        } else {
            const size_t src = k;
            j->prev_motion[2 * i] = -j->out_motion[2 * src];
            j->prev_motion[2 * i + 1] = -j->out_motion[2 * src + 1];
        }
    }
}

size_t upf__fg_vectors_scratch_bytes(int height)
{
    return (size_t)height * 2 * sizeof(int);
}

upf_result upf__fg_vectors_pass(const upf__pass_args *a)
{
    const upf__fg_vectors_con *con = a->con;
    const upf__surface *s = a->surface;
    vec_job job = { con, s[UPF__FG_MOTION_IN].image, s[UPF__FG_DEPTH_IN].image,
                    s[UPF__FG_MOTION].data, s[UPF__FG_PRIORITY].data,
                    s[UPF__FG_SPLAT_PREV_INDEX].data, s[UPF__FG_PREV_MOTION].data, a->scratch };
    upf__parallel_for(a->ctx, vec_row, &job, con->height);
    for (int y = 0; y < con->height; y++)
        if (job.bad[2 * y] >= 0)
            return upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: %s at pixel (%d, %d) of the %dx%d "
                             "%s; expected finite %s", a->fn,
                             job.bad[2 * y + 1] ? "depth is NaN, infinite or negative"
                                                : "motion vector is NaN or infinite",
                             job.bad[2 * y], (int)((long)y * con->motion_height / con->height),
                             con->motion_width, con->motion_height,
                             job.bad[2 * y + 1] ? "depth" : "motion", job.bad[2 * y + 1] ?
                             "depth >= 0" : "vectors");
    upf__fg_splat(a->ctx, con->width, con->height, job.out_motion, job.priority, 1.0f, NULL,
                  s[UPF__FG_SPLAT_PREV].data, s[UPF__FG_SPLAT_PREV_INDEX].data,
                  s[UPF__FG_SPLAT_LAND].data);
    upf__parallel_for(a->ctx, prev_row, &job, con->height);
    return UPF_OK;
}
