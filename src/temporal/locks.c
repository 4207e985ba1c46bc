/* locks.c: the temporal engine's locks pass (docs/TEMPORAL.md, "locks"): thin features (wires,
 * railings, distant poles, single bright points) found in this frame, so that accumulation
 * keeps their history instead of clipping it away in the frames whose samples miss them.
 *
 * Reads: colour (its A: the luma of the tonemapped colour). Writes: locks (1 or 0).
 *
 * Over the 3x3 neighbourhood of a pixel (edges repeated), with range = max - min of the luma:
 *  - no lock below a range of `contrast` (flat or noisy areas);
 *  - a neighbour is similar when |L_n - L_c| <= similar * range;
 *  - the centre must be a ridge: above every dissimilar neighbour, or below every one;
 *  - none of the four 2x2 blocks holding the centre may be all similar (that would be part of
 *    a wider area, not a line one pixel across).
 * Work: one task per row. */
#include <math.h>

#include "temporal/temporal_passes.h"

typedef struct locks_job {
    const upf__locks_con *con;
    const float *color;
    float *locks;
} locks_job;

static void locks_row(void *priv, int y, int worker)
{
    (void)worker;
    const locks_job *job = priv;
    const upf__locks_con *c = job->con;
    const int W = c->width, H = c->height;
    for (int x = 0; x < W; x++) {
        float L[9], lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k < 9; k++) {
            int sx = UPF_CLAMP(x + k % 3 - 1, 0, W - 1), sy = UPF_CLAMP(y + k / 3 - 1, 0, H - 1);
            L[k] = job->color[((size_t)sy * W + sx) * 4 + 3];
            lo = L[k] < lo ? L[k] : lo;
            hi = L[k] > hi ? L[k] : hi;
        }
        float range = hi - lo, lock = 0.0f;
        if (range >= c->contrast) {
            const float centre = L[4], tol = c->similar * range;
            bool similar[9], above = true, below = true;
            for (int k = 0; k < 9; k++) {
                similar[k] = fabsf(L[k] - centre) <= tol;
                if (k != 4 && !similar[k]) {
                    above = above && centre > L[k];
                    below = below && centre < L[k];
                }
            }
            /* The 2x2 blocks around the centre: its corner k and the two edge neighbours. */
            static const int quad[4][3] = { { 0, 1, 3 }, { 1, 2, 5 }, { 3, 6, 7 }, { 5, 7, 8 } };
            bool wide = false;
            for (int q = 0; q < 4; q++)
                wide = wide || (similar[quad[q][0]] && similar[quad[q][1]] && similar[quad[q][2]]);
            lock = (above || below) && !wide ? 1.0f : 0.0f;
        }
        job->locks[(size_t)y * W + x] = lock;
    }
}

upf_result upf__locks_pass(const upf__pass_args *a)
{
    const upf__locks_con *con = a->con;
    locks_job job = { con, a->surface[UPF__TP_COLOR].data, a->surface[UPF__TP_LOCKS].data };
    upf__parallel_for(a->ctx, locks_row, &job, con->height);
    return UPF_OK;
}
