/* camera_motion.c: the temporal engine's camera_motion pass, for frames that come without
 * motion vectors, and the kernel behind the public upf_camera_motion: every pixel's depth
 * sample unprojected with this frame's view-projection and projected with the previous one.
 *
 * Reads: depth (host, R32F). Writes: camera motion (RG32F, render pixels, previous - current).
 *
 * Pixel (x, y) sampled the unjittered screen position s = (x + 0.5 + jx, y + 0.5 + jy); its NDC
 * is (2 sx / W - 1, +-(1 - 2 sy / H), a d + b) with (a, b) = (1, 0) for clip depth 0..1 and
 * (2, -1) for OpenGL's -1..1. One matrix, R = VP_prev * VP^-1 (made in double on the host),
 * takes it to the previous clip space, c = R (ndc, 1); the previous screen position is
 * ((c.x / c.w + 1) W / 2, (1 -+ c.y / c.w) H / 2) and the motion that minus s. This is the
 * "clip to previous clip" reprojection of a static world; a point at infinity (reversed
 * infinite depth 0) moves with the camera's rotation alone. A point behind the previous camera
 * (c.w <= 0) has its w raised to 1e-6, sending it far off the screen. */
#include <math.h>
#include <limits.h>
#include <stdatomic.h>

#include "core/image.h"
#include "temporal/temporal_passes.h"

/* Inverts a 4x4 row-major matrix by Gauss-Jordan elimination with partial pivoting; false when
 * it is singular (a pivot below 1e-300 times the largest entry). */
static bool invert4(const double *m, double *inv)
{
    double a[4][8], big = 0.0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            a[r][c] = m[4 * r + c];
            a[r][c + 4] = r == c ? 1.0 : 0.0;
            big = fmax(big, fabs(m[4 * r + c]));
        }
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (!(fabs(a[piv][c]) > 1e-300 * big) || big == 0.0)
            return false;
        for (int k = 0; k < 8; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = t;
        }
        double d = a[c][c];
        for (int k = 0; k < 8; k++)
            a[c][k] /= d;
        for (int r = 0; r < 4; r++) {
            if (r == c)
                continue;
            double f = a[r][c];
            for (int k = 0; k < 8; k++)
                a[r][k] -= f * a[c][k];
        }
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            inv[4 * r + c] = a[r][c + 4];
    return true;
}

upf_result upf__camera_motion_setup(upf_context *ctx, const char *fn, const double *vp,
                                    const double *prev_vp, double jx, double jy,
                                    upf_clip_depth clip_depth, int ndc_y_down, int width,
                                    int height, upf__camera_motion_con *con)
{
    if (!vp || !prev_vp)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL; expected 16 values "
                         "(row-major, clip = projection * view)", fn,
                         !vp ? "view_projection" : "prev_view_projection");
    for (int i = 0; i < 16; i++)
        if (!isfinite(vp[i]) || !isfinite(prev_vp[i]))
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s[%d] is not finite", fn,
                             !isfinite(vp[i]) ? "view_projection" : "prev_view_projection", i);
    double inv[16];
    if (!invert4(vp, inv))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: view_projection is singular; "
                         "expected an invertible perspective view-projection", fn);
    con->width = width;
    con->height = height;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            double v = 0.0;
            for (int k = 0; k < 4; k++)
                v += prev_vp[4 * r + k] * inv[4 * k + c];
            con->reproject[4 * r + c] = (float)v;
        }
    con->ndc_z_scale = clip_depth == UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE ? 2.0f : 1.0f;
    con->ndc_z_offset = clip_depth == UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE ? -1.0f : 0.0f;
    con->ndc_y_sign = ndc_y_down ? -1.0f : 1.0f;
    con->jitter_x = (float)jx;
    con->jitter_y = (float)jy;
    return UPF_OK;
}

typedef struct motion_job {
    const upf__camera_motion_con *con;
    const upf_image *depth;
    char *motion;
    size_t stride;
    atomic_long first_bad; /* lowest y * W + x of a non-finite depth, or LONG_MAX */
} motion_job;

static void motion_row(void *priv, int y, int worker)
{
    (void)worker;
    motion_job *job = priv;
    const upf__camera_motion_con *c = job->con;
    const float *R = c->reproject;
    const float *d = (const float *)upf__row(job->depth, y);
    float *out = (float *)(job->motion + (size_t)y * job->stride);
    const float W = (float)c->width, H = (float)c->height;
    const float sy = (float)y + 0.5f + c->jitter_y;
    const float ny = c->ndc_y_sign * (1.0f - 2.0f * sy / H);
    for (int x = 0; x < c->width; x++) {
        float dv = d[x];
        if (!isfinite(dv)) {
            long at = (long)y * c->width + x, cur = atomic_load(&job->first_bad);
            while (at < cur && !atomic_compare_exchange_weak(&job->first_bad, &cur, at))
                ;
            out[2 * x] = out[2 * x + 1] = 0.0f;
            continue;
        }
        dv = dv < 0.0f ? 0.0f : dv > 1.0f ? 1.0f : dv;
        const float sx = (float)x + 0.5f + c->jitter_x;
        const float nx = 2.0f * sx / W - 1.0f, nz = dv * c->ndc_z_scale + c->ndc_z_offset;
        float cx = R[0] * nx + R[1] * ny + R[2] * nz + R[3];
        float cy = R[4] * nx + R[5] * ny + R[6] * nz + R[7];
        float cw = R[12] * nx + R[13] * ny + R[14] * nz + R[15];
        if (!(cw > 1e-6f))
            cw = 1e-6f;
        float px = (cx / cw + 1.0f) * 0.5f * W;
        float py = (1.0f - c->ndc_y_sign * cy / cw) * 0.5f * H;
        out[2 * x] = px - sx;
        out[2 * x + 1] = py - sy;
    }
}

upf_result upf__camera_motion_run(upf_context *ctx, const char *fn,
                                  const upf__camera_motion_con *con, const upf_image *depth,
                                  float *motion, size_t motion_stride)
{
    motion_job job = { con, depth, (char *)motion, motion_stride, LONG_MAX };
    upf__parallel_for(ctx, motion_row, &job, con->height);
    long bad = atomic_load(&job.first_bad);
    if (bad != LONG_MAX)
        return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: depth pixel x=%ld, y=%ld is not finite "
                         "(NaN or Inf); expected depth in [0, 1]", fn, bad % con->width,
                         bad / con->width);
    return UPF_OK;
}

upf_result upf__camera_motion_pass(const upf__pass_args *a)
{
    const upf__camera_motion_con *con = a->con;
    return upf__camera_motion_run(a->ctx, a->fn, con, a->surface[UPF__TP_DEPTH].image,
                                  a->surface[UPF__TP_CAMERA_MOTION].data,
                                  (size_t)con->width * 2 * sizeof(float));
}
