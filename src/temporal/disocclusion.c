/* disocclusion.c: the temporal engine's disocclusion pass (docs/TEMPORAL.md, "disocclusion"):
 * which pixels show a surface that something nearer covered in the previous frame, from the
 * separation of depths, and the reactive mask dilated.
 *
 * Reads: dilated motion, dilated depth, previous depth, reactive (host, optional). Writes:
 * reactivity (R: disocclusion 0..1, G: reactive 0..1).
 *
 * The reconstruct pass scattered every pixel's depth to where its surface was last frame,
 * keeping the nearest. Pixel p looks at the same cells it wrote to (its previous position q,
 * the bilinear taps above UPF__SCATTER_MIN): each holds z_t <= z, the nearest of the surfaces
 * that were there. When a tap is nearer than p's own surface by more than the separation
 *
 *     s = separation * z + slope_pixels * g,     g = |dz/dx| + |dz/dy| of p's own surface
 *
 * another surface of this frame sat in front of p's at that spot last frame: p was hidden
 * there (the depth-separation test of Akeley and Su 2006, "Minimum triangle separation for
 * correct z-buffer occlusion", with a depth-relative tolerance). The slope term lets a steep
 * surface (a floor at a grazing angle) differ from itself between neighbouring samples; its
 * one-sided differences (the smaller of left/right, up/down) keep it small at a silhouette.
 * Each tap counts t = clamp((z - z_t - s) / s, 0, 1) and the disocclusion is the smallest t of
 * the taps: all of them must say so. (A pixel next to a nearer surface shares a cell with that
 * surface's dilated neighbours, whose depth is the nearer one: one tap alone would mark a band
 * around every foreground edge, moving or not.) A previous position off the screen is 1:
 * nothing there to take.
 *
 * The reactive mask (NaN counts as 1) becomes the maximum over 3x3, clamped to [0, 1].
 * Work: one task per row. */
#include <math.h>
#include <string.h>

#include "core/image.h"
#include "temporal/temporal_passes.h"

typedef struct dis_job {
    const upf__disocclusion_con *con;
    const float *motion, *z;
    const uint32_t *prev;
    const upf_image *reactive;
    float *out;
} dis_job;

static float one_sided(const float *z, int i, int step, int at, int size)
{
    float c = z[i];
    float a = at > 0 ? fabsf(c - z[i - step]) : INFINITY;
    float b = at < size - 1 ? fabsf(z[i + step] - c) : INFINITY;
    float g = a < b ? a : b;
    return isfinite(g) ? g : 0.0f;
}

static float reactive_at(const upf_image *img, int x, int y)
{
    float v = ((const float *)upf__row(img, y))[x];
    if (!(v == v))
        return 1.0f;
    return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

static void dis_row(void *priv, int y, int worker)
{
    (void)worker;
    const dis_job *job = priv;
    const upf__disocclusion_con *c = job->con;
    const int W = c->width, H = c->height;
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        const float *mv = job->motion + 2 * i;
        const float z = job->z[i];
        float qx = (float)x + 0.5f + c->jitter_x + mv[0];
        float qy = (float)y + 0.5f + c->jitter_y + mv[1];
        float dis = 1.0f;
        if (qx >= 0.0f && qx <= (float)W && qy >= 0.0f && qy <= (float)H) {
            float g = one_sided(job->z, (int)i, 1, x, W) + one_sided(job->z, (int)i, W, y, H);
            float s = c->separation * z + c->slope_pixels * g;
            float ux = qx - 0.5f, uy = qy - 0.5f;
            int i0 = (int)floorf(ux), j0 = (int)floorf(uy);
            float fx = ux - (float)i0, fy = uy - (float)j0;
            float least = 1.0f;
            int taps = 0;
            for (int k = 0; k < 4; k++) {
                int tx = i0 + (k & 1), ty = j0 + (k >> 1);
                float w = ((k & 1) ? fx : 1.0f - fx) * ((k >> 1) ? fy : 1.0f - fy);
                if (!(w > UPF__SCATTER_MIN) || tx < 0 || tx >= W || ty < 0 || ty >= H)
                    continue;
                uint32_t bits = job->prev[(size_t)ty * W + tx];
                float t = 0.0f;
                if (bits != UPF__NO_DEPTH) {
                    float zt;
                    memcpy(&zt, &bits, sizeof zt);
                    float excess = (z - zt - s) / s;
                    t = excess > 0.0f ? (excess < 1.0f ? excess : 1.0f) : 0.0f;
                }
                least = t < least ? t : least;
                taps++;
            }
            dis = taps ? least : 1.0f;
        }
        float react = 0.0f;
        if (job->reactive)
            for (int k = 0; k < 9; k++) {
                float v = reactive_at(job->reactive, UPF_CLAMP(x + k % 3 - 1, 0, W - 1),
                                      UPF_CLAMP(y + k / 3 - 1, 0, H - 1));
                react = v > react ? v : react;
            }
        job->out[2 * i] = dis;
        job->out[2 * i + 1] = react;
    }
}

upf_result upf__disocclusion_pass(const upf__pass_args *a)
{
    const upf__disocclusion_con *con = a->con;
    const upf__surface *s = a->surface;
    dis_job job = { con, s[UPF__TP_DILATED_MOTION].data, s[UPF__TP_DILATED_DEPTH].data,
                    s[UPF__TP_PREV_DEPTH].data,
                    con->has_reactive ? s[UPF__TP_REACTIVE].image : NULL,
                    s[UPF__TP_REACTIVITY].data };
    upf__parallel_for(a->ctx, dis_row, &job, con->height);
    return UPF_OK;
}
