/* plan.c: the temporal engine's plan and constants as pure functions, the one place both
 * backends (temporal.c on the CPU, src/vk/vk_temporal.c on the GPU) take them from: every
 * surface's size, which passes run, each pass's fixed constants for a render size, and the
 * per-frame ones (jitter, motion scale, depth convention, exposure, reset and the history's
 * exposure scale) from a checked frame.
 *
 * Reads: the engine's params, a frame's scalar fields. Writes: upf__temporal_plan, the passes'
 * constants structs (temporal_passes.h). No state: the caller keeps what carries over from
 * frame to frame (the first frame, the history's exposure). */
#include <math.h>
#include <stdio.h>

#include "temporal/temporal_passes.h"

/* Tuning (docs/TEMPORAL.md says what each does and how they were chosen). */
#define SEPARATION 0.02f     /* disocclusion: another surface 2% of the depth in front */
#define SLOPE_PIXELS 2.0f    /* ... plus two pixels' worth of the surface's own slope */
#define LOCK_CONTRAST 0.05f  /* locks: least 3x3 range of the tonemapped luma */
#define LOCK_SIMILAR 0.25f   /* ... neighbours within a quarter of it are similar */
#define WEIGHT_MAX 8.0f      /* a still pixel's history: about one jitter cycle of samples */
#define RAMP_FRAMES 3.0f     /* confidence is full after about three frames of samples */
#define SPEED_HALF 2.0f      /* output pixels per frame at which the history's weight halves */
#define BOX_STILL 2.5f       /* rectification box, standard deviations: still and confident */
#define BOX_MOVING 2.0f      /* ... moving or new (1 clipped a pan's textures every frame) */

void upf__temporal_plan_of(const upf_temporal_params *p, upf__temporal_plan *plan)
{
    const int rw = p->render_width, rh = p->render_height;
    const int ow = p->output_width, oh = p->output_height;
    const bool fill = p->flags & UPF_TEMPORAL_SPATIAL_FILL;
    for (int i = 0; i < UPF__TP_COUNT; i++) {
        bool out = i >= UPF__TP_FILL && i <= UPF__TP_OUTPUT;
        plan->width[i] = out ? ow : rw;
        plan->height[i] = out ? oh : rh;
    }
    plan->width[UPF__TP_LANCZOS] = UPF__LANCZOS_SIZE;
    plan->height[UPF__TP_LANCZOS] = 1;
    if (!fill) {
        plan->width[UPF__TP_FILL_SOURCE] = plan->height[UPF__TP_FILL_SOURCE] = 0;
        plan->width[UPF__TP_FILL] = plan->height[UPF__TP_FILL] = 0;
    }
    for (int i = 0; i < UPF__TP_PASS_COUNT; i++)
        plan->enabled[i] = true;
    plan->enabled[UPF__TP_SPATIAL_FILL] = fill;
}

unsigned upf__temporal_encoding(unsigned flags)
{
    return flags & UPF_TEMPORAL_COLOR_SRGB   ? UPF__ENCODING_SRGB
           : flags & UPF_TEMPORAL_COLOR_SQRT ? UPF__ENCODING_SQRT
                                             : UPF__ENCODING_LINEAR;
}

void upf__temporal_constants(const upf_temporal_params *p, int rw, int rh,
                             void *const con[UPF__TP_PASS_COUNT])
{
    const int ow = p->output_width, oh = p->output_height;
    const float rx = (float)ow / (float)rw, ry = (float)oh / (float)rh;
    const unsigned fill = (p->flags & UPF_TEMPORAL_SPATIAL_FILL) != 0;
    int phases = 8;
    upf_jitter_phase_count(NULL, rw, ow, &phases);
    upf__reconstruct_con *rc = con[UPF__TP_RECONSTRUCT];
    rc->width = rw, rc->height = rh;
    rc->encoding = upf__temporal_encoding(p->flags);
    rc->fill_source = fill;
    upf__disocclusion_con *dc = con[UPF__TP_DISOCCLUSION];
    dc->width = rw, dc->height = rh;
    dc->separation = SEPARATION;
    dc->slope_pixels = SLOPE_PIXELS;
    *(upf__locks_con *)con[UPF__TP_LOCKS_PASS] =
        (upf__locks_con){ rw, rh, LOCK_CONTRAST, LOCK_SIMILAR };
    *(upf__spatial_fill_con *)con[UPF__TP_SPATIAL_FILL] = (upf__spatial_fill_con){ rw, rh, ow, oh };
    upf__accumulate_con *ac = con[UPF__TP_ACCUMULATE];
    ac->in_width = rw, ac->in_height = rh, ac->out_width = ow, ac->out_height = oh;
    ac->ratio_x = rx, ac->ratio_y = ry;
    ac->fill = fill;
    ac->history_scale = 1.0f;
    ac->weight_max = WEIGHT_MAX;
    ac->weight_ramp = RAMP_FRAMES / (rx * ry);
    ac->speed_half = SPEED_HALF;
    ac->box_still = BOX_STILL;
    ac->box_moving = BOX_MOVING;
    ac->lock_decay = 1.0f / (float)phases;
    upf__sharpen_con *sc = con[UPF__TP_SHARPEN];
    sc->width = ow, sc->height = oh;
    sc->sharpness = p->sharpness;
    sc->encoding = upf__temporal_encoding(p->flags);
}

static upf_result check_camera(upf_context *ctx, const char *fn, const upf_camera *c)
{
    if (!(c->near_plane > 0.0) || !isfinite(c->near_plane))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: camera near plane %g; expected a "
                         "positive distance (or give the projection matrix)", fn, c->near_plane);
    if (!c->far_infinite && !(c->far_plane > c->near_plane && isfinite(c->far_plane)))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: camera far plane %g with near %g; "
                         "expected far > near, or far_infinite", fn, c->far_plane, c->near_plane);
    if (!(c->fov_y > 0.0 && c->fov_y < 3.14159265358979))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: camera field of view %g; "
                         "expected radians in (0, pi)", fn, c->fov_y);
    return UPF_OK;
}

static upf_result check_positive(upf_context *ctx, const char *fn, const char *what, double v)
{
    if (!(v > 0.0) || !isfinite(v))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s %g; expected a positive "
                         "finite value (0: the default)", fn, what, v);
    return UPF_OK;
}

/* The frame's scalar fields checked; its camera (from the projection when given) into *cam. */
static upf_result check_frame(upf_context *ctx, const char *fn, const upf_temporal_frame *f,
                              bool has_motion, upf_camera *cam)
{
    if (!has_motion && (!f->view_projection || !f->prev_view_projection))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame motion is NULL and %s is "
                         "missing; expected motion vectors, or both view-projection matrices "
                         "to derive the camera's motion from the depth", fn,
                         !f->view_projection ? "view_projection" : "prev_view_projection");
    if (!(fabs(f->jitter_x) <= 1.0) || !(fabs(f->jitter_y) <= 1.0))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: jitter (%g, %g); expected render "
                         "pixels in -1..1 (upf_jitter_offset gives -0.5..0.5)", fn, f->jitter_x,
                         f->jitter_y);
    if (!isfinite(f->motion_scale_x) || !isfinite(f->motion_scale_y))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: motion scale (%g, %g) is not "
                         "finite", fn, f->motion_scale_x, f->motion_scale_y);
    if (f->clip_depth != UPF_CLIP_DEPTH_ZERO_TO_ONE &&
        f->clip_depth != UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: clip depth %d; expected "
                         "UPF_CLIP_DEPTH_ZERO_TO_ONE or _MINUS_ONE_TO_ONE", fn, (int)f->clip_depth);
    upf_result r = check_positive(ctx, fn, "frame_time_ms", f->frame_time_ms);
    if (r == UPF_OK)
        r = check_positive(ctx, fn, "exposure", f->exposure == 0.0f ? 1.0 : f->exposure);
    if (r == UPF_OK)
        r = check_positive(ctx, fn, "pre_exposure", f->pre_exposure == 0.0f ? 1.0 :
                           f->pre_exposure);
    *cam = f->camera;
    if (r == UPF_OK && f->projection) {
        r = upf_camera_from_projection(ctx, f->projection, f->clip_depth, cam);
        if (r != UPF_OK) {
            const char *why = "";
            upf_context_last_error(ctx, &why);
            char copy[UPF_ERROR_MESSAGE_SIZE];
            snprintf(copy, sizeof copy, "%s", why);
            return upf__fail(ctx, r, "%s: frame projection: %s", fn, copy);
        }
    }
    if (r == UPF_OK)
        r = check_camera(ctx, fn, cam);
    if (r == UPF_OK && f->frame_time_ms < 1.0)
        upf__log(ctx, UPF_LOG_WARN, "%s: frame_time_ms %g is under a millisecond; expected "
                 "milliseconds (16.7 at 60 frames a second), not seconds", fn, f->frame_time_ms);
    return r;
}

float upf__temporal_exposure(const upf_temporal_frame *f)
{
    return f->exposure == 0.0f ? 1.0f : f->exposure;
}

upf_result upf__temporal_frame_constants(upf_context *ctx, const char *fn,
                                         const upf_temporal_params *p,
                                         const upf_temporal_frame *f,
                                         const upf__temporal_frame_info *info,
                                         void *const con[UPF__TP_PASS_COUNT],
                                         bool *camera_motion)
{
    upf_camera cam;
    upf_result r = check_frame(ctx, fn, f, info->has_motion, &cam);
    if (r != UPF_OK)
        return r;
    const int rw = info->render_width, rh = info->render_height;
    if (!info->has_motion) {
        r = upf__camera_motion_setup(ctx, fn, f->view_projection, f->prev_view_projection,
                                     f->jitter_x, f->jitter_y, f->clip_depth, f->ndc_y_down, rw,
                                     rh, con[UPF__TP_CAMERA_MOTION_PASS]);
        if (r != UPF_OK)
            return r;
    }
    *camera_motion = !info->has_motion;
    const double exposure = upf__temporal_exposure(f);
    const double pre = f->pre_exposure == 0.0f ? 1.0 : f->pre_exposure;
    double scale, offset;
    upf__camera_depth_factors(&cam, &scale, &offset);
    const bool uv = p->flags & UPF_TEMPORAL_MOTION_UV;
    upf__reconstruct_con *rc = con[UPF__TP_RECONSTRUCT];
    rc->exposure = (float)(exposure / pre);
    rc->depth_scale = (float)scale;
    rc->depth_offset = (float)offset;
    rc->depth_reversed = cam.depth_reversed != 0;
    rc->camera_motion = !info->has_motion;
    rc->motion_scale_x = (float)((f->motion_scale_x == 0.0 ? 1.0 : f->motion_scale_x) *
                                 (uv ? rw : 1));
    rc->motion_scale_y = (float)((f->motion_scale_y == 0.0 ? 1.0 : f->motion_scale_y) *
                                 (uv ? rh : 1));
    rc->jitter_x = (float)f->jitter_x;
    rc->jitter_y = (float)f->jitter_y;
    upf__disocclusion_con *dc = con[UPF__TP_DISOCCLUSION];
    dc->jitter_x = rc->jitter_x, dc->jitter_y = rc->jitter_y;
    dc->has_reactive = info->has_reactive;
    upf__accumulate_con *ac = con[UPF__TP_ACCUMULATE];
    ac->jitter_x = rc->jitter_x, ac->jitter_y = rc->jitter_y;
    ac->reset = f->reset || info->first;
    ac->history_scale = ac->reset ? 1.0f : (float)(exposure / info->history_exposure);
    upf__sharpen_con *sc = con[UPF__TP_SHARPEN];
    sc->exposure = (float)(pre / exposure);
    return UPF_OK;
}
