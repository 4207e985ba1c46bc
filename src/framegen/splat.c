/* splat.c: the frame generation engine's splat pass (docs/FRAMEGEN.md, "splat"): every pixel
 * of frame N moved forward along its motion to the phase t, the nearer surface winning where
 * two land on one pixel.
 *
 * Reads: motion, priority, camera. Writes: splat (r32ui: the least priority that landed in
 * each cell), splat index (r32ui: the least index of the pixels of that priority that landed
 * there, UPF__FG_NONE where nothing did), splat land (r32ui: where each pixel landed).
 *
 * A pixel p of N whose surface was at p + m in N-1 is at q = p + (1 - t) m at phase t (the
 * surface moves in a straight line at constant speed between the frames). It is written to
 * the four pixels whose centres surround q (so a surface that grows between the frames leaves
 * no cracks). Which pixel a cell keeps is the least of the 64-bit keys (priority << 32) |
 * index(p): the nearest surface, and between equals the lower index, whatever order the writes
 * come in. The key is made with 32-bit atomics only, in two steps (the form a GPU without
 * 64-bit image atomics, shaderImageInt64Atomics, runs; one with them gets the same cells from
 * an R64UI atomic minimum of the key): first every pixel writes its priority to its four cells
 * by an atomic minimum; then every pixel whose priority equals what a cell holds writes its
 * index there by an atomic minimum. The first step also writes where the pixel landed (its
 * four cells' top-left corner, or UPF__FG_NONE) to splat land, which the second reads: the
 * two steps agree on the cells whatever a compiler does with the arithmetic, and the position
 * (with a camera model, two homographies) is computed once. (FSR
 * 3.1's frame interpolation packs its priorities into 32-bit atomics too.) Pixels whose vector
 * is not known are not written. With a camera model (camera.c) the straight line
 * is the camera's curve instead: p lands where the homography to the power 1 - t takes it,
 * plus (1 - t) times what the homography leaves of m (parallax, moving objects). With the
 * flow, a pixel that the homography puts outside N-1 (content that came into view: the flow
 * had nothing to match it with, its vector is the edge rule's guess) keeps nothing of m and
 * moves by the camera alone (docs/FRAMEGEN.md, "camera").
 * Work: one task per row to clear, one per row for each of the two steps. */
#include <math.h>

#include "framegen/framegen_passes.h"

typedef struct splat_job {
    int width, height;
    const float *motion;
    const uint32_t *priority;
    float shift;
    const float *cam;          /* the camera model, or NULL: the straight line */
    bool flow;                 /* the flow's vectors: the camera alone outside N-1 */
    float g[9], pw[9];         /* its homography N -> N-1 and the power `shift` of it */
    uint32_t *depth, *index, *land;
} splat_job;

static void clear_row(void *priv, int y, int worker)
{
    (void)worker;
    const splat_job *j = priv;
    const size_t o = (size_t)y * j->width;
    for (int x = 0; x < j->width; x++)
        j->depth[o + x] = j->index[o + x] = UPF__FG_NONE;
}

static void atomic_min32(uint32_t *cell, uint32_t v)
{
    uint32_t old = __atomic_load_n(cell, __ATOMIC_RELAXED);
    while (v < old &&
           !__atomic_compare_exchange_n(cell, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* Where pixel (x, y) lands: the top-left of the four cells around it, false when it has no
 * known vector or lands off the frame. */
static bool landing(const splat_job *j, int x, int y, int *x0, int *y0)
{
    const int W = j->width, H = j->height;
    const size_t i = (size_t)y * W + x;
    const float mx = j->motion[2 * i], my = j->motion[2 * i + 1];
    if (!(mx < UPF__FG_INVALID * 0.5f))
        return false;
    float qx = (float)x + j->shift * mx, qy = (float)y + j->shift * my;
    if (j->cam) {
        /* on the camera's curve, plus the shift of what the camera leaves */
        const float px = (float)x + 0.5f, py = (float)y + 0.5f;
        float gx, gy, sx, sy;
        if (upf__fg_camera_apply(j->cam, j->g, px, py, &gx, &gy) &&
            upf__fg_camera_apply(j->cam, j->pw, px, py, &sx, &sy)) {
            const bool alone = j->flow && upf__fg_camera_outside(W, H, gx, gy);
            qx = sx - 0.5f + (alone ? 0.0f : j->shift * (mx - (gx - px)));
            qy = sy - 0.5f + (alone ? 0.0f : j->shift * (my - (gy - py)));
        }
    }
    if (!(qx > -1.0f && qx < (float)W && qy > -1.0f && qy < (float)H))
        return false;
    *x0 = (int)floorf(qx), *y0 = (int)floorf(qy);
    return true;
}

/* step 1 (index false) writes priorities and where each pixel landed, step 2 (index true)
 * the indices of the winners; a landing is stored as (y0 + 1) (W + 1) + x0 + 1 */
static void splat_row(const splat_job *j, int y, bool index)
{
    const int W = j->width, H = j->height;
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        int x0, y0;
        if (!index) {
            const bool in = landing(j, x, y, &x0, &y0);
            j->land[i] = in ? (uint32_t)(y0 + 1) * (uint32_t)(W + 1) + (uint32_t)(x0 + 1)
                            : UPF__FG_NONE;
            if (!in)
                continue;
        } else {
            const uint32_t l = j->land[i];
            if (l == UPF__FG_NONE)
                continue;
            x0 = (int)(l % (uint32_t)(W + 1)) - 1, y0 = (int)(l / (uint32_t)(W + 1)) - 1;
        }
        const uint32_t p = j->priority[i];
        for (int k = 0; k < 4; k++) {
            const int tx = x0 + (k & 1), ty = y0 + (k >> 1);
            if (tx < 0 || tx >= W || ty < 0 || ty >= H)
                continue;
            const size_t c = (size_t)ty * W + tx;
            if (!index)
                atomic_min32(&j->depth[c], p);
            else if (__atomic_load_n(&j->depth[c], __ATOMIC_RELAXED) == p)
                atomic_min32(&j->index[c], (uint32_t)i);
        }
    }
}

static void depth_row(void *priv, int y, int worker)
{
    (void)worker;
    splat_row(priv, y, false);
}

static void index_row(void *priv, int y, int worker)
{
    (void)worker;
    splat_row(priv, y, true);
}

void upf__fg_splat(upf_context *ctx, int width, int height, const float *motion,
                   const uint32_t *priority, float shift, const float *cam, bool flow,
                   uint32_t *depth, uint32_t *index, uint32_t *land)
{
    splat_job job = { width, height, motion, priority, shift, NULL, flow, { 0 }, { 0 }, depth,
                      index, land };
    if (upf__fg_camera_has(cam)) {
        job.cam = cam;
        upf__fg_camera_power(cam, 1.0f, job.g);
        upf__fg_camera_power(cam, shift, job.pw);
    }
    upf__parallel_for(ctx, clear_row, &job, height);
    upf__parallel_for(ctx, depth_row, &job, height);
    upf__parallel_for(ctx, index_row, &job, height);
}

upf_result upf__fg_splat_pass(const upf__pass_args *a)
{
    const upf__fg_splat_con *con = a->con;
    const upf__surface *s = a->surface;
    upf__fg_splat(a->ctx, con->width, con->height, s[UPF__FG_MOTION].data,
                  s[UPF__FG_PRIORITY].data, con->shift, s[UPF__FG_CAMERA].data,
                  con->flow != 0, s[UPF__FG_SPLAT].data, s[UPF__FG_SPLAT_INDEX].data,
                  s[UPF__FG_SPLAT_LAND].data);
    return UPF_OK;
}
