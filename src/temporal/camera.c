/* camera.c: the camera helpers (docs/TEMPORAL.md, "Helpers"): a camera read from a perspective
 * projection matrix, the device-to-view-depth factors, and the public camera motion from depth
 * (whose kernel is the camera_motion pass, camera_motion.c).
 *
 * A perspective projection (column vectors, clip = P * view) puts the view distance into w:
 * w = m[14] * z_view, with z_view = -z for a right-handed view looking down -z (m[14] = -1) or
 * +z for a left-handed one (m[14] = +1). NDC depth is (m[10] z_view + m[11]) / w
 * = m[10] / m[14] + (m[11] / |m[14]|) / z for the distance z = w / |m[14]|. The depth buffer
 * holds d = ndc (clip depth 0..1) or (ndc + 1) / 2 (OpenGL's -1..1 and its default depth
 * range), so every convention is
 *
 *     d = alpha + beta / z,        z = beta / (d - alpha) = 1 / (d / beta - alpha / beta),
 *
 * with beta < 0 for forward depth (d grows with z) and beta > 0 for reversed. Forward: near at
 * d = 0 (z = -beta / alpha), far at d = 1 (z = beta / (1 - alpha); alpha = 1 is an infinite far
 * plane). Reversed: near at d = 1 (beta / (1 - alpha)), far at d = 0 (-beta / alpha; alpha = 0
 * is infinite). The field of view is 2 atan(1 / |m[5]|). */
#include <math.h>
#include <string.h>

#include "core/image.h"
#include "temporal/temporal_passes.h"

/* Far planes beyond this many near planes count as infinite (docs: float matrices cannot tell
 * them apart). */
#define INFINITE_RATIO 1e7

void upf__camera_depth_factors(const upf_camera *c, double *scale, double *offset)
{
    /* alpha, beta of the four conventions (upf_camera's table). */
    double n = c->near_plane, f = c->far_plane, alpha, beta;
    if (c->far_infinite) {
        alpha = c->depth_reversed ? 0.0 : 1.0;
        beta = c->depth_reversed ? n : -n;
    } else if (c->depth_reversed) {
        alpha = -n / (f - n);
        beta = n * f / (f - n);
    } else {
        alpha = f / (f - n);
        beta = -n * f / (f - n);
    }
    *scale = 1.0 / beta;
    *offset = -alpha / beta;
}

upf_result upf_camera_from_projection(upf_context *ctx, const double m[16],
                                      upf_clip_depth clip_depth, upf_camera *camera)
{
    static const char fn[] = "upf_camera_from_projection";
    upf__clear_error(ctx);
    if (!m || !camera)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                         !m ? "projection" : "camera");
    if (clip_depth != UPF_CLIP_DEPTH_ZERO_TO_ONE && clip_depth != UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: clip depth %d; expected "
                         "UPF_CLIP_DEPTH_ZERO_TO_ONE or _MINUS_ONE_TO_ONE", fn, (int)clip_depth);
    for (int i = 0; i < 16; i++)
        if (!isfinite(m[i]))
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: projection[%d] is not finite",
                             fn, i);
    /* w must be the view depth alone: row 3 = (0, 0, +-s, 0). */
    const double s = fabs(m[14]);
    if (!(s > 0.0) || fabs(m[12]) > 1e-6 * s || fabs(m[13]) > 1e-6 * s || fabs(m[15]) > 1e-6 * s)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: row 3 is (%g, %g, %g, %g); "
                         "expected (0, 0, +-1, 0) of a perspective projection", fn, m[12], m[13],
                         m[14], m[15]);
    if (fabs(m[8]) > 1e-6 * (fabs(m[10]) + s) || fabs(m[9]) > 1e-6 * (fabs(m[10]) + s))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the depth row mixes in x or y "
                         "(projection[8] = %g, [9] = %g); expected 0 (no oblique near plane)",
                         fn, m[8], m[9]);
    if (!(fabs(m[0]) > 0.0) || !(fabs(m[5]) > 0.0))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: projection[0] = %g, [5] = %g; "
                         "expected non-zero scales", fn, m[0], m[5]);
    double A = m[10] / m[14], B = m[11] / s;
    double alpha = A, beta = B;
    if (clip_depth == UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE) {
        alpha = 0.5 * (A + 1.0);
        beta = 0.5 * B;
    }
    if (beta == 0.0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: depth does not vary with "
                         "distance (projection[11] = 0); expected a perspective depth row", fn);
    upf_camera c;
    memset(&c, 0, sizeof c);
    c.depth_reversed = beta > 0.0;
    double near_plane = c.depth_reversed ? beta / (1.0 - alpha) : -beta / alpha;
    double far_plane = c.depth_reversed ? -beta / alpha : beta / (1.0 - alpha);
    if (!(near_plane > 0.0) || !isfinite(near_plane))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the near plane comes out as %g "
                         "(projection[10] = %g, [11] = %g, %s); expected a positive distance: "
                         "is the clip depth range right?", fn, near_plane, m[10], m[11],
                         clip_depth == UPF_CLIP_DEPTH_ZERO_TO_ONE ? "clip depth 0..1"
                                                                  : "clip depth -1..1");
    c.near_plane = near_plane;
    c.far_infinite = !(far_plane > near_plane) || !isfinite(far_plane) ||
                     far_plane > INFINITE_RATIO * near_plane;
    c.far_plane = c.far_infinite ? INFINITY : far_plane;
    c.fov_y = 2.0 * atan(1.0 / fabs(m[5]));
    c.aspect = fabs(m[5]) / fabs(m[0]);
    c.center_x = m[2] / m[14];
    c.center_y = m[6] / m[14];
    if (c.far_infinite) {
        upf__camera_depth_factors(&c, &c.depth_to_view_scale, &c.depth_to_view_offset);
    } else {
        /* The matrix's own factors, exact for it (the finite formula of the convention gives
         * the same up to rounding). */
        c.depth_to_view_scale = 1.0 / beta;
        c.depth_to_view_offset = -alpha / beta;
    }
    *camera = c;
    return UPF_OK;
}

upf_result upf_camera_motion(upf_context *ctx, const upf_camera_motion_params *p,
                             const upf_image *depth, const upf_image *motion)
{
    static const char fn[] = "upf_camera_motion";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!p)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the two "
                         "view-projection matrices", fn);
    upf_result r = upf__check_image(ctx, fn, "depth image", depth, UPF_FMT_BIT(UPF_FORMAT_R32F),
                                    0, 0);
    if (r == UPF_OK)
        r = upf__check_image(ctx, fn, "motion image", motion, UPF_FMT_BIT(UPF_FORMAT_RG32F),
                             depth->width, depth->height);
    if (r != UPF_OK)
        return r;
    if (upf__stride(depth) % 4 || upf__stride(motion) % 4)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: image strides %zu and %zu; "
                         "expected multiples of 4 bytes", fn, upf__stride(depth),
                         upf__stride(motion));
    if (p->clip_depth != UPF_CLIP_DEPTH_ZERO_TO_ONE &&
        p->clip_depth != UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: clip depth %d; expected "
                         "UPF_CLIP_DEPTH_ZERO_TO_ONE or _MINUS_ONE_TO_ONE", fn,
                         (int)p->clip_depth);
    if (!(fabs(p->jitter_x) <= 1.0) || !(fabs(p->jitter_y) <= 1.0))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: jitter (%g, %g); expected render "
                         "pixels in -1..1", fn, p->jitter_x, p->jitter_y);
    upf__camera_motion_con con;
    r = upf__camera_motion_setup(ctx, fn, p->view_projection, p->prev_view_projection,
                                 p->jitter_x, p->jitter_y, p->clip_depth, p->ndc_y_down,
                                 depth->width, depth->height, &con);
    if (r != UPF_OK)
        return r;
    return upf__camera_motion_run(ctx, fn, &con, depth, motion->data, upf__stride(motion));
}
