/* splat.c: the frame generation engine's splat pass (docs/FRAMEGEN.md, "splat"): every pixel
 * of frame N moved forward along its motion to the phase t, the nearer surface winning where
 * two land on one pixel.
 *
 * Reads: motion, priority, camera. Writes: splat (r64ui keys).
 *
 * A pixel p of N whose surface was at p + m in N-1 is at q = p + (1 - t) m at phase t (the
 * surface moves in a straight line at constant speed between the frames). It is written to
 * the four pixels whose centres surround q (so a surface that grows between the frames leaves
 * no cracks) as the key (priority << 32) | index(p) by an atomic minimum: the nearest surface
 * wins, and between equals the lower index, whatever order the writes come in (the key a GPU
 * writes with a 64-bit image atomic; FSR 3.1's frame interpolation packs its priorities into
 * 32-bit atomics the same way). Pixels whose vector is not known are not written. With a
 * camera model (game vectors, camera.c) the straight line is the camera's curve instead: p
 * lands where the homography to the power 1 - t takes it, plus (1 - t) times what the
 * homography leaves of m (parallax, moving objects).
 * Work: one task per row to clear, one per row to splat. */
#include <math.h>

#include "framegen/framegen_passes.h"

typedef struct splat_job {
    int width, height;
    const float *motion;
    const uint32_t *priority;
    float shift;
    const float *cam;          /* the camera model, or NULL: the straight line */
    double g[9], pw[9];        /* its homography N -> N-1 and the power `shift` of it */
    uint64_t *keys;
} splat_job;

static void clear_row(void *priv, int y, int worker)
{
    (void)worker;
    const splat_job *j = priv;
    uint64_t *k = j->keys + (size_t)y * j->width;
    for (int x = 0; x < j->width; x++)
        k[x] = UPF__FG_EMPTY;
}

static void atomic_min64(uint64_t *cell, uint64_t key)
{
    uint64_t old = __atomic_load_n(cell, __ATOMIC_RELAXED);
    while (key < old &&
           !__atomic_compare_exchange_n(cell, &old, key, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static void splat_row(void *priv, int y, int worker)
{
    (void)worker;
    const splat_job *j = priv;
    const int W = j->width, H = j->height;
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        const float mx = j->motion[2 * i], my = j->motion[2 * i + 1];
        if (!(mx < UPF__FG_INVALID * 0.5f))
            continue;
        float qx = (float)x + j->shift * mx, qy = (float)y + j->shift * my;
        if (j->cam) {
            /* on the camera's curve, plus the shift of what the camera leaves */
            const float px = (float)x + 0.5f, py = (float)y + 0.5f;
            float gx, gy, sx, sy;
            if (upf__fg_camera_apply(j->cam, j->g, px, py, &gx, &gy) &&
                upf__fg_camera_apply(j->cam, j->pw, px, py, &sx, &sy)) {
                qx = sx - 0.5f + j->shift * (mx - (gx - px));
                qy = sy - 0.5f + j->shift * (my - (gy - py));
            }
        }
        if (!(qx > -1.0f && qx < (float)W && qy > -1.0f && qy < (float)H))
            continue;
        const int x0 = (int)floorf(qx), y0 = (int)floorf(qy);
        const uint64_t key = ((uint64_t)j->priority[i] << 32) | (uint64_t)i;
        for (int k = 0; k < 4; k++) {
            int tx = x0 + (k & 1), ty = y0 + (k >> 1);
            if (tx < 0 || tx >= W || ty < 0 || ty >= H)
                continue;
            atomic_min64(&j->keys[(size_t)ty * W + tx], key);
        }
    }
}

void upf__fg_splat(upf_context *ctx, int width, int height, const float *motion,
                   const uint32_t *priority, float shift, const float *cam, uint64_t *keys)
{
    splat_job job = { width, height, motion, priority, shift, NULL, { 0 }, { 0 }, keys };
    if (upf__fg_camera_has(cam)) {
        job.cam = cam;
        upf__fg_camera_power(cam, 1.0, job.g);
        upf__fg_camera_power(cam, shift, job.pw);
    }
    upf__parallel_for(ctx, clear_row, &job, height);
    upf__parallel_for(ctx, splat_row, &job, height);
}

upf_result upf__fg_splat_pass(const upf__pass_args *a)
{
    const upf__fg_splat_con *con = a->con;
    const upf__surface *s = a->surface;
    upf__fg_splat(a->ctx, con->width, con->height, s[UPF__FG_MOTION].data,
                  s[UPF__FG_PRIORITY].data, con->shift, s[UPF__FG_CAMERA].data,
                  s[UPF__FG_SPLAT].data);
    return UPF_OK;
}
