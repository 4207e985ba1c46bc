/* resolve.c: the frame generation engine's resolve pass (docs/FRAMEGEN.md, "resolve"): each
 * pixel of the made frame fetched from both frames along its motion at t, weighted by how near
 * each frame is in time and by whether each frame sees that surface there; or the fallback
 * blend.
 *
 * Reads: linear prev, linear, motion t, motion, prev motion, camera, scene. Writes: resolved
 * (RGBA32F, alpha 1, or 0 where neither frame sees the pixel's surface).
 *
 * For pixel q with motion m at t (the surface is at a = q + t m in N-1 and at
 * b = q - (1 - t) m in N): A = N-1 and B = N sampled there (Lanczos-3:
 * upf__fg_sample4_lanczos), and
 *     c = ((1 - t) vA sA A + t vB sB B) / ((1 - t) vA sA + t vB sB),
 * with game vectors (visibility = 1) clamped to the range of the 2x2 texels nearest to a and
 * to b of the sides used, with optical flow each side clamped to its own (no ringing). v says
 * whether that frame sees the surface: B is seen where the splat put a pixel of N (it came
 * from there), and at a hole the fill filled when the motion of N at b (nearest pixel)
 * agrees with m; A when the motion of N-1 at a agrees with -m; "agrees" is 1 within
 * tol = tolerance + tolerance_rel |m| and falls to 0 at 2 tol (the other frame shows another
 * surface there: the disocclusion of that side). A vector that is not known counts 1/2; a
 * position off the frame 0. With optical flow (visibility = 0) only the frame's edge counts:
 * a side whose position is on the frame has weight 1, for flow's own vectors are too noisy to
 * judge visibility by (measured: docs/FRAMEGEN.md, "resolve"). s is 1 but with game vectors
 * where both sides see the surface: exp(-sharpness d^2), d the distance (px) of the side's
 * position from the nearest texel centre (an interpolated fetch blurs most half way between
 * texels, so the sharper side weighs more; it trusts the positions to a fraction of a pixel,
 * which flow's are not: docs/FRAMEGEN.md, "resolve"). With game vectors, where both sides see
 * the surface, each axis on which a and b lie on opposite sides of their nearest texel centres
 * first moves both positions toward those centres (snap_axis: the two frames' texel grids
 * interleave there, and a fetch nearer a texel is sharper), in opposite directions weighed so
 * that (1 - t) vA a + t vB b does not move. When both weights are 0 the pixel is a
 * hole for the inpaint. With a camera model (camera.c) the two positions follow the
 * camera's curve: with H(s) the homography's power s, a = H(t) q + t r and
 * b = H(t - 1) q - (1 - t) r, where r, the part of the motion the camera does not explain,
 * is what motion t holds then (fill.c), and m = a - b.
 * The blend is c = (1 - t) A + t B at q itself: when the host asks for it (blend = 1: a
 * reset, ids not consecutive, a missing input) or where the scene pass found the frames to be
 * of different scenes (its surface's first value is not 0; every pixel then blends, so the
 * decision is taken on the device in the frame it is made for).
 * Work: one task per row. */
#include <math.h>

#include "framegen/framegen_passes.h"

typedef struct resolve_job {
    const upf__fg_resolve_con *con;
    const float *prev, *cur, *mt, *motion, *prev_motion;
    const float *cam;          /* the camera model, or NULL */
    bool blend;                /* the host's blend or the scene pass's */
    float ga[9], gb[9];        /* its homography from t to N-1 and from t to N */
    float *out;
} resolve_job;

static float agree(const float *field, int W, int H, float x, float y, float mx, float my,
                   float sign, float tol)
{
    if (!(x >= 0.0f && x < (float)W && y >= 0.0f && y < (float)H))
        return 0.0f;
    const int ix = (int)x, iy = (int)y;
    const float *v = field + 2 * ((size_t)iy * W + ix);
    if (!(v[0] < UPF__FG_INVALID * 0.5f))
        return 0.5f;
    const float ex = v[0] - sign * mx, ey = v[1] - sign * my;
    const float d = sqrtf(ex * ex + ey * ey);
    const float w = 2.0f - d / tol;
    return w > 1.0f ? 1.0f : w > 0.0f ? w : 0.0f;
}

/* The squared distance (px^2) of position (x, y) from the nearest texel centre. */
static float off_centre2(float x, float y)
{
    const float dx = x - 0.5f - floorf(x), dy = y - 0.5f - floorf(y);
    const float ex = dx - roundf(dx), ey = dy - roundf(dy);
    return ex * ex + ey * ey;
}

/* The snap of one axis (docs/FRAMEGEN.md, "resolve"): positions pa in N-1 and pb in N with
 * weights wa, wb (> 0); da, db the signed distances to their nearest texel centres. Where they
 * have opposite signs, each moves toward its centre, wa's by k / wa and wb's by k / wb with
 * k = snap min(wa |da|, wb |db|), so the weighted mean wa pa + wb pb stays (snap 1: the one
 * nearer, in weight, lands on its centre). */
static void snap_axis(float *pa, float *pb, float wa, float wb, float snap)
{
    const float da = floorf(*pa) + 0.5f - *pa, db = floorf(*pb) + 0.5f - *pb;
    if (!(da * db < 0.0f))
        return;
    const float k = snap * fminf(wa * fabsf(da), wb * fabsf(db));
    const float sa = k / wa, sb = k / wb;
    *pa += da < 0.0f ? -sa : sa;
    *pb += db < 0.0f ? -sb : sb;
}

static void resolve_row(void *priv, int y, int worker)
{
    (void)worker;
    const resolve_job *j = priv;
    const upf__fg_resolve_con *c = j->con;
    const int W = c->width, H = c->height;
    const float t = c->t;
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        float *o = j->out + 4 * i;
        if (j->blend) {
            const float *a = j->prev + 4 * i, *b = j->cur + 4 * i;
            for (int k = 0; k < 3; k++)
                o[k] = (1.0f - t) * a[k] + t * b[k];
            o[3] = 1.0f;
            continue;
        }
        const float *mt = j->mt + 4 * i;
        float m[2] = { mt[0], mt[1] };
        const float qx = (float)x + 0.5f, qy = (float)y + 0.5f;
        float ax = qx + t * m[0], ay = qy + t * m[1];
        float bx = qx - (1.0f - t) * m[0], by = qy - (1.0f - t) * m[1];
        float cax, cay, cbx, cby;
        if (j->cam && upf__fg_camera_apply(j->cam, j->ga, qx, qy, &cax, &cay) &&
            upf__fg_camera_apply(j->cam, j->gb, qx, qy, &cbx, &cby)) {
            /* the camera's curve, and the residual r (motion t holds it) on the straight
             * line; m = a - b */
            ax = cax + t * mt[0], ay = cay + t * mt[1];
            bx = cbx - (1.0f - t) * mt[0], by = cby - (1.0f - t) * mt[1];
            m[0] = ax - bx, m[1] = ay - by;
        }
        const float tol = c->tolerance + c->tolerance_rel * sqrtf(m[0] * m[0] + m[1] * m[1]);
        const float va = agree(j->prev_motion, W, H, ax, ay, m[0], m[1], -1.0f, tol);
        /* a splatted pixel came from N at b: N sees it */
        const float vb = mt[3] == 0.0f && bx >= 0.0f && bx < (float)W && by >= 0.0f &&
                                 by < (float)H
                             ? 1.0f
                             : agree(j->motion, W, H, bx, by, m[0], m[1], 1.0f, tol);
        const bool a_in = ax >= 0.0f && ax < (float)W && ay >= 0.0f && ay < (float)H;
        const bool b_in = bx >= 0.0f && bx < (float)W && by >= 0.0f && by < (float)H;
        float wa = (1.0f - t) * (c->visibility ? va : (float)a_in);
        float wb = t * (c->visibility ? vb : (float)b_in);
        if (!(wa + wb > 1e-4f)) {
            o[0] = o[1] = o[2] = o[3] = 0.0f;
            continue;
        }
        float A[4] = { 0 }, Bc[4] = { 0 }, lo[4], hi[4], lo2[4], hi2[4];
        if (wa > 0.0f && wb > 0.0f) {
            if (c->visibility) {
                snap_axis(&ax, &bx, wa, wb, c->snap);
                snap_axis(&ay, &by, wa, wb, c->snap);
            }
            upf__fg_sample4_lanczos(j->prev, W, H, ax, ay, A, lo, hi);
            upf__fg_sample4_lanczos(j->cur, W, H, bx, by, Bc, lo2, hi2);
            if (c->visibility) {
                /* exact positions (game vectors): the fetch nearer a texel centre is the
                 * sharper one, and the mix is clamped to both sides' range */
                wa *= expf(-c->sharpness * off_centre2(ax, ay));
                wb *= expf(-c->sharpness * off_centre2(bx, by));
                for (int k = 0; k < 3; k++)
                    lo[k] = fminf(lo[k], lo2[k]), hi[k] = fmaxf(hi[k], hi2[k]);
            } else {
                /* each side clamped to its own range */
                for (int k = 0; k < 3; k++) {
                    A[k] = fminf(fmaxf(A[k], lo[k]), hi[k]);
                    Bc[k] = fminf(fmaxf(Bc[k], lo2[k]), hi2[k]);
                    lo[k] = -INFINITY, hi[k] = INFINITY;
                }
            }
        } else if (wa > 0.0f) {
            upf__fg_sample4_lanczos(j->prev, W, H, ax, ay, A, lo, hi);
        } else {
            upf__fg_sample4_lanczos(j->cur, W, H, bx, by, Bc, lo, hi);
        }
        const float n = 1.0f / (wa + wb);
        for (int k = 0; k < 3; k++) {
            const float v = (wa * A[k] + wb * Bc[k]) * n;
            o[k] = v < lo[k] ? lo[k] : v > hi[k] ? hi[k] : v;
        }
        o[3] = 1.0f;
    }
}

upf_result upf__fg_resolve_pass(const upf__pass_args *a)
{
    const upf__fg_resolve_con *con = a->con;
    const upf__surface *s = a->surface;
    resolve_job job = { con, s[UPF__FG_LINEAR_PREV].data, s[UPF__FG_LINEAR].data,
                        s[UPF__FG_MOTION_T].data, s[UPF__FG_MOTION].data,
                        s[UPF__FG_PREV_MOTION].data, NULL, false, { 0 }, { 0 },
                        s[UPF__FG_RESOLVED].data };
    const float *cam = s[UPF__FG_CAMERA].data;
    const float *scene = s[UPF__FG_SCENE].data;
    job.blend = con->blend || scene[0] != 0.0f;
    if (!job.blend && upf__fg_camera_has(cam)) {
        job.cam = cam;
        upf__fg_camera_power(cam, con->t, job.ga);
        upf__fg_camera_power(cam, -(1.0f - con->t), job.gb);
    }
    upf__parallel_for(a->ctx, resolve_row, &job, con->height);
    return UPF_OK;
}
