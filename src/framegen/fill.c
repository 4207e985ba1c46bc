/* fill.c: the frame generation engine's fill pass (docs/FRAMEGEN.md, "fill"): the motion at
 * the phase t from the splat, and where nothing landed (a region that comes into view between
 * the frames), the motion of the farther surface around it, from a motion pyramid.
 *
 * Reads: splat, splat index, motion, camera. Writes: motion t (RGBA32F: x, y, priority bits,
 * hole flag), motion pyramid (levels 1.. of the same).
 *
 * A pixel whose splat cell holds a pixel of N (its index) takes that pixel's motion; with a
 * camera model (camera.c) what the camera's homography leaves of it (the
 * residual: parallax, moving objects), so that a hole takes its neighbours' residual and the
 * resolve the camera's motion at the hole itself (under a turn the motion changes across the
 * frame: a neighbour's whole vector is off by that change, most at the sides, where the
 * holes of what comes into view are); with the flow a source pixel that the camera puts
 * outside N-1 keeps none (splat.c: it moves by the camera alone). A pixel of
 * level l + 1 of the pyramid is, of its 2x2 children that have a motion, the one with the
 * largest priority value: the farthest surface, for what a moving surface uncovers is
 * what lies behind it (FSR 3.1's frame interpolation fills its vector holes from a pyramid
 * the same way). A hole of level 0 finds the first level whose ancestor has a motion and
 * takes the farthest motion in the 3x3 around its ancestor on that level and the two above
 * (a surface's own edge pixels are the only ones a small ancestor sees; a few levels up the
 * background beyond the hole is seen too). It is flagged, so the resolve knows only one
 * frame may see it. With optical flow (flow_rank) a priority is a speed, not a depth: the
 * fill ranks every consistent vector alike (the first of equals wins) and a lost one
 * (UPF__FG_LOST: it failed the flow's forward/backward check) behind them. Taken as the
 * farthest, the slowest and the lost vectors (an aperture problem's zero in flat sky, a still
 * HUD pixel, a wrong match) filled what a pan brings into view at the frame's edge: a seam
 * where that strip began (docs/FRAMEGEN.md, "fill"). With no motion anywhere the motion is
 * zero.
 * Work: one task per row of each level. */
#include <string.h>

#include "framegen/framegen_passes.h"

typedef struct fill_job {
    const upf__fg_fill_con *con;
    const uint32_t *depth, *index;
    const float *motion;
    const float *cam;  /* the camera model, or NULL */
    float g[9];        /* its homography N -> N-1 */
    float *level0;     /* motion t */
    float *atlas;      /* motion pyramid: level l at row upf__fg_level_row(H, l) - H */
    int level;         /* the level being made (down) */
} fill_job;

/* How far a surface is, for the fill: its priority (depth order), or with flow_rank 1 for a
 * consistent flow vector and 0 for a lost one. */
static uint32_t fill_rank(const fill_job *j, uint32_t p)
{
    return j->con->flow_rank ? (p == UPF__FG_LOST ? 0u : 1u) : p;
}

static float *level_ptr(const fill_job *j, int l)
{
    const int W = j->con->width, H = j->con->height;
    if (l == 0)
        return j->level0;
    return j->atlas + (size_t)(upf__fg_level_row(H, l) - H) * W * 4;
}

static void decode_row(void *priv, int y, int worker)
{
    (void)worker;
    const fill_job *j = priv;
    const int W = j->con->width;
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        float *o = j->level0 + 4 * i;
        const uint32_t k = j->index[i];
        if (k == UPF__FG_NONE) {
            o[0] = o[1] = 0.0f;
            o[2] = upf__fg_bits_float(0);
            o[3] = 1.0f; /* a hole */
        } else {
            const size_t src = k;
            o[0] = j->motion[2 * src];
            o[1] = j->motion[2 * src + 1];
            if (j->cam) {
                /* what the camera leaves of the source's vector */
                const float px = (float)(src % (size_t)W) + 0.5f, py = (float)(src / (size_t)W) + 0.5f;
                float gx, gy;
                if (upf__fg_camera_apply(j->cam, j->g, px, py, &gx, &gy)) {
                    if (j->con->flow_rank && upf__fg_camera_outside(W, j->con->height, gx, gy))
                        o[0] = o[1] = 0.0f; /* came into view: the camera alone (splat.c) */
                    else
                        o[0] -= gx - px, o[1] -= gy - py;
                }
            }
            o[2] = upf__fg_bits_float(j->depth[i]);
            o[3] = 0.0f;
        }
    }
}

static void down_row(void *priv, int y, int worker)
{
    (void)worker;
    const fill_job *j = priv;
    const int W = j->con->width, H = j->con->height, l = j->level;
    const int cw = upf__fg_level_size(W, l - 1), ch = upf__fg_level_size(H, l - 1);
    const int nw = upf__fg_level_size(W, l);
    const float *src = level_ptr(j, l - 1);
    float *dst = level_ptr(j, l) + (size_t)y * W * 4;
    for (int x = 0; x < nw; x++) {
        const float *best = NULL;
        uint32_t best_p = 0;
        for (int k = 0; k < 4; k++) {
            int cx = 2 * x + (k & 1), cy = 2 * y + (k >> 1);
            if (cx >= cw || cy >= ch)
                continue;
            const float *c = src + ((size_t)cy * W + cx) * 4;
            if (c[3] != 0.0f)
                continue;
            uint32_t p = fill_rank(j, upf__fg_float_bits(c[2]));
            if (!best || p > best_p)
                best = c, best_p = p;
        }
        float *o = dst + 4 * x;
        if (best) {
            memcpy(o, best, 4 * sizeof(float));
        } else {
            o[0] = o[1] = 0.0f;
            o[2] = upf__fg_bits_float(0);
            o[3] = 1.0f;
        }
    }
}

static void up_row(void *priv, int y, int worker)
{
    (void)worker;
    const fill_job *j = priv;
    const int W = j->con->width, H = j->con->height, L = j->con->levels;
    for (int x = 0; x < W; x++) {
        float *o = j->level0 + ((size_t)y * W + x) * 4;
        if (o[3] == 0.0f)
            continue;
        /* the first level whose ancestor has a motion, and the two above it: the farthest
         * of the 3x3 around the ancestor on each */
        const float *best = NULL;
        uint32_t best_p = 0;
        int found = -1;
        for (int l = 1; l < L && (found < 0 || l <= found + 2); l++) {
            const int w = upf__fg_level_size(W, l), h = upf__fg_level_size(H, l);
            const float *lev = level_ptr(j, l);
            const int ax = x >> l, ay = y >> l;
            if (found < 0 && lev[((size_t)ay * W + ax) * 4 + 3] != 0.0f)
                continue;
            if (found < 0)
                found = l;
            for (int k = 0; k < 9; k++) {
                int sx = ax + k % 3 - 1, sy = ay + k / 3 - 1;
                if (sx < 0 || sy < 0 || sx >= w || sy >= h)
                    continue;
                const float *a = lev + ((size_t)sy * W + sx) * 4;
                uint32_t p = fill_rank(j, upf__fg_float_bits(a[2]));
                if (a[3] == 0.0f && (!best || p > best_p))
                    best = a, best_p = p;
            }
        }
        if (best)
            o[0] = best[0], o[1] = best[1], o[2] = best[2];
        /* o[3] stays 1: a filled hole */
    }
}

upf_result upf__fg_fill_pass(const upf__pass_args *a)
{
    const upf__fg_fill_con *con = a->con;
    const upf__surface *s = a->surface;
    fill_job job = { con, s[UPF__FG_SPLAT].data, s[UPF__FG_SPLAT_INDEX].data,
                     s[UPF__FG_MOTION].data, NULL, { 0 },
                     s[UPF__FG_MOTION_T].data, s[UPF__FG_MOTION_PYRAMID].data, 0 };
    const float *cam = s[UPF__FG_CAMERA].data;
    if (upf__fg_camera_has(cam)) {
        job.cam = cam;
        upf__fg_camera_power(cam, 1.0f, job.g);
    }
    upf__parallel_for(a->ctx, decode_row, &job, con->height);
    for (int l = 1; l < con->levels; l++) {
        job.level = l;
        upf__parallel_for(a->ctx, down_row, &job, upf__fg_level_size(con->height, l));
    }
    upf__parallel_for(a->ctx, up_row, &job, con->height);
    return UPF_OK;
}
