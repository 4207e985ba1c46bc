/* temporal.c: the temporal engine (upf_temporal_*): its pass list, its surfaces and the public
 * calls. The two tables below are the engine's whole data flow (temporal_passes.h lists them
 * with their files; docs/TEMPORAL.md explains each pass).
 *
 * upf_temporal_create checks the sizes and flags, gives every surface its size, fills the
 * Lanczos table and each pass's fixed constants, makes the spatial engine of the spatial fill,
 * and allocates every surface (the two history pairs included) once (core/pass.h), so a run
 * allocates nothing. upf_temporal_run checks the frame, fills the per-frame constants (jitter,
 * exposure, camera, reset), binds the caller's images and runs the list; the runner then swaps
 * the history pairs. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/image.h"
#include "spatial/spatial_passes.h"
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

struct upf_temporal {
    upf_context *ctx;
    upf_temporal_params params;
    int phases;                    /* the jitter cycle for these sizes */
    upf_models *own_models;        /* the built-in set for the fill, when none was given */
    upf__temporal_cpu cpu;
    upf__passes passes;
    long frames;                   /* successful runs since creation */
    atomic_bool in_use;            /* a run is in progress (upf__enter) */
    float history_exposure;        /* the exposure the history was accumulated at */
};

/* ---- the tables ------------------------------------------------------------------------- */

#define R UPF__SURFACE_INTERMEDIATE
static const upf__surface_info surfaces[UPF__TP_COUNT] = {
    [UPF__TP_COLOR_IN] = { "color_in", "colour image", UPF__SURFACE_HOST, UPF__SURFACE_INPUT,
                           UPF_FMTS_COLOR, NULL },
    [UPF__TP_DEPTH] = { "depth", "depth image", UPF__SURFACE_HOST, UPF__SURFACE_INPUT,
                        UPF_FMT_BIT(UPF_FORMAT_R32F), NULL },
    [UPF__TP_MOTION] = { "motion", "motion image", UPF__SURFACE_HOST, UPF__SURFACE_INPUT,
                         UPF_FMT_BIT(UPF_FORMAT_RG32F), NULL },
    [UPF__TP_REACTIVE] = { "reactive", "reactive mask", UPF__SURFACE_HOST, UPF__SURFACE_INPUT,
                           UPF_FMT_BIT(UPF_FORMAT_R32F), NULL },
    [UPF__TP_CAMERA_MOTION] = { "camera_motion", "the camera motion", UPF__SURFACE_RG32F, R, 0,
                                NULL },
    [UPF__TP_COLOR] = { "color", "the working colour", UPF__SURFACE_RGBA32F, R, 0, NULL },
    [UPF__TP_FILL_SOURCE] = { "fill_source", "the fill's source", UPF__SURFACE_RGBA32F, R, 0,
                              NULL },
    [UPF__TP_DILATED_MOTION] = { "dilated_motion", "the dilated motion", UPF__SURFACE_RG32F, R,
                                 0, NULL },
    [UPF__TP_DILATED_DEPTH] = { "dilated_depth", "the dilated depth", UPF__SURFACE_R32F, R, 0,
                                NULL },
    [UPF__TP_PREV_DEPTH] = { "prev_depth", "the previous depth", UPF__SURFACE_R32UI, R, 0,
                             NULL },
    [UPF__TP_REACTIVITY] = { "reactivity", "disocclusion and reactivity", UPF__SURFACE_RG32F, R,
                             0, NULL },
    [UPF__TP_LOCKS] = { "locks", "the locks", UPF__SURFACE_R32F, R, 0, NULL },
    [UPF__TP_LANCZOS] = { "lanczos", "the Lanczos table", UPF__SURFACE_R32F, UPF__SURFACE_TABLE,
                          0, NULL },
    [UPF__TP_FILL] = { "fill", "the spatial fill", UPF__SURFACE_RGBA32F, R, 0, NULL },
    [UPF__TP_HISTORY] = { "history", "the history", UPF__SURFACE_RGBA32F, UPF__SURFACE_HISTORY,
                          0, NULL },
    [UPF__TP_HISTORY_NEXT] = { "history_next", "the next history", UPF__SURFACE_RGBA32F,
                               UPF__SURFACE_HISTORY_NEXT, 0, NULL },
    [UPF__TP_STATE] = { "state", "the lock and luma record", UPF__SURFACE_R32UI,
                        UPF__SURFACE_HISTORY, 0, NULL },
    [UPF__TP_STATE_NEXT] = { "state_next", "the next lock and luma record", UPF__SURFACE_R32UI,
                             UPF__SURFACE_HISTORY_NEXT, 0, NULL },
    [UPF__TP_OUTPUT] = { "output", "output image", UPF__SURFACE_HOST, UPF__SURFACE_OUTPUT,
                         UPF_FMTS_COLOR, NULL },
};
#undef R

#define S UPF__SURF
static const upf__pass_info passes[UPF__TP_PASS_COUNT] = {
    [UPF__TP_CAMERA_MOTION_PASS] = { "camera_motion", "camera_motion", S(UPF__TP_DEPTH),
                                     S(UPF__TP_CAMERA_MOTION), -1,
                                     sizeof(upf__camera_motion_con), upf__camera_motion_pass },
    [UPF__TP_RECONSTRUCT] = { "reconstruct", "reconstruct_dilate",
                              S(UPF__TP_COLOR_IN) | S(UPF__TP_DEPTH) | S(UPF__TP_MOTION) |
                                  S(UPF__TP_CAMERA_MOTION),
                              S(UPF__TP_COLOR) | S(UPF__TP_FILL_SOURCE) |
                                  S(UPF__TP_DILATED_MOTION) | S(UPF__TP_DILATED_DEPTH) |
                                  S(UPF__TP_PREV_DEPTH),
                              -1, sizeof(upf__reconstruct_con), upf__reconstruct_pass },
    [UPF__TP_DISOCCLUSION] = { "disocclusion", "disocclusion",
                               S(UPF__TP_DILATED_MOTION) | S(UPF__TP_DILATED_DEPTH) |
                                   S(UPF__TP_PREV_DEPTH) | S(UPF__TP_REACTIVE),
                               S(UPF__TP_REACTIVITY), -1, sizeof(upf__disocclusion_con),
                               upf__disocclusion_pass },
    [UPF__TP_LOCKS_PASS] = { "locks", "locks", S(UPF__TP_COLOR), S(UPF__TP_LOCKS), -1,
                             sizeof(upf__locks_con), upf__locks_pass },
    [UPF__TP_SPATIAL_FILL] = { "spatial_fill", "spatial_fill", S(UPF__TP_FILL_SOURCE),
                               S(UPF__TP_FILL), -1, sizeof(upf__spatial_fill_con),
                               upf__spatial_fill_pass },
    [UPF__TP_ACCUMULATE] = { "accumulate", "accumulate",
                             S(UPF__TP_COLOR) | S(UPF__TP_DILATED_MOTION) | S(UPF__TP_REACTIVITY) |
                                 S(UPF__TP_LOCKS) | S(UPF__TP_FILL) | S(UPF__TP_LANCZOS) |
                                 S(UPF__TP_HISTORY) | S(UPF__TP_STATE),
                             S(UPF__TP_HISTORY_NEXT) | S(UPF__TP_STATE_NEXT), -1,
                             sizeof(upf__accumulate_con), upf__accumulate_pass },
    [UPF__TP_SHARPEN] = { "sharpen", "sharpen", S(UPF__TP_HISTORY_NEXT), S(UPF__TP_OUTPUT), -1,
                          sizeof(upf__sharpen_con), upf__sharpen_pass },
};
#undef S

const char *upf_temporal_pass_name(upf_temporal_pass pass)
{
    return (int)pass >= 0 && pass < UPF_TEMPORAL_PASS_COUNT ? passes[pass].name : "unknown";
}

void upf__lanczos_table(float *table)
{
    /* L2(x) = sinc(x) sinc(x / 2), sinc(x) = sin(pi x) / (pi x), sampled in x^2. */
    const int n = UPF__LANCZOS_SIZE - 2;
    for (int i = 0; i <= n; i++) {
        double x = sqrt(4.0 * i / n), v = 1.0;
        if (x > 0.0) {
            const double pi = 3.14159265358979323846;
            v = sin(pi * x) / (pi * x) * sin(pi * x / 2.0) / (pi * x / 2.0);
        }
        table[i] = i == n ? 0.0f : (float)v;
    }
    table[n + 1] = 0.0f;
}

/* ---- creation ---------------------------------------------------------------------------- */

void upf_temporal_destroy(upf_temporal **pt)
{
    if (!pt || !*pt)
        return;
    upf_temporal *t = *pt;
    upf_context *ctx = t->ctx;
    upf__passes_free(&t->passes);
    upf_spatial_destroy(&t->cpu.spatial);
    upf_models_destroy(&t->own_models);
    upf__free(ctx, t);
    *pt = NULL;
}

static void plan(upf_temporal *t)
{
    const upf_temporal_params *p = &t->params;
    upf__passes *ps = &t->passes;
    const int rw = p->render_width, rh = p->render_height;
    const int ow = p->output_width, oh = p->output_height;
    const bool fill = p->flags & UPF_TEMPORAL_SPATIAL_FILL;
    for (int i = 0; i < UPF__TP_COUNT; i++) {
        bool out = i >= UPF__TP_FILL && i <= UPF__TP_OUTPUT;
        ps->surface[i].width = out ? ow : rw;
        ps->surface[i].height = out ? oh : rh;
    }
    ps->surface[UPF__TP_LANCZOS].width = UPF__LANCZOS_SIZE;
    ps->surface[UPF__TP_LANCZOS].height = 1;
    if (!fill) {
        ps->surface[UPF__TP_FILL_SOURCE].width = ps->surface[UPF__TP_FILL_SOURCE].height = 0;
        ps->surface[UPF__TP_FILL].width = ps->surface[UPF__TP_FILL].height = 0;
    }
    ps->enabled[UPF__TP_SPATIAL_FILL] = fill;
    ps->scratch_bytes[UPF__TP_RECONSTRUCT] = upf__tp_reconstruct_scratch_bytes(rh);
    ps->scratch_bytes[UPF__TP_SHARPEN] =
        (size_t)UPF_MAX(upf_context_threads(t->ctx), 1) * (size_t)ow * 4 * sizeof(float);
}

static unsigned encoding_of(unsigned flags)
{
    return flags & UPF_TEMPORAL_COLOR_SRGB   ? UPF__ENCODING_SRGB
           : flags & UPF_TEMPORAL_COLOR_SQRT ? UPF__ENCODING_SQRT
                                             : UPF__ENCODING_LINEAR;
}

/* The constants that do not change from frame to frame. */
static void constants(upf_temporal *t)
{
    const upf_temporal_params *p = &t->params;
    upf__passes *ps = &t->passes;
    const int rw = p->render_width, rh = p->render_height;
    const int ow = p->output_width, oh = p->output_height;
    const float rx = (float)ow / (float)rw, ry = (float)oh / (float)rh;
    upf__reconstruct_con *rc = ps->con[UPF__TP_RECONSTRUCT];
    rc->width = rw, rc->height = rh;
    rc->encoding = encoding_of(p->flags);
    rc->fill_source = (p->flags & UPF_TEMPORAL_SPATIAL_FILL) != 0;
    upf__disocclusion_con *dc = ps->con[UPF__TP_DISOCCLUSION];
    dc->width = rw, dc->height = rh;
    dc->separation = SEPARATION;
    dc->slope_pixels = SLOPE_PIXELS;
    *(upf__locks_con *)ps->con[UPF__TP_LOCKS_PASS] =
        (upf__locks_con){ rw, rh, LOCK_CONTRAST, LOCK_SIMILAR };
    *(upf__spatial_fill_con *)ps->con[UPF__TP_SPATIAL_FILL] =
        (upf__spatial_fill_con){ rw, rh, ow, oh };
    upf__accumulate_con *ac = ps->con[UPF__TP_ACCUMULATE];
    ac->in_width = rw, ac->in_height = rh, ac->out_width = ow, ac->out_height = oh;
    ac->ratio_x = rx, ac->ratio_y = ry;
    ac->fill = (p->flags & UPF_TEMPORAL_SPATIAL_FILL) != 0;
    ac->history_scale = 1.0f;
    ac->weight_max = WEIGHT_MAX;
    ac->weight_ramp = RAMP_FRAMES / (rx * ry);
    ac->speed_half = SPEED_HALF;
    ac->box_still = BOX_STILL;
    ac->box_moving = BOX_MOVING;
    ac->lock_decay = 1.0f / (float)t->phases;
    upf__sharpen_con *sc = ps->con[UPF__TP_SHARPEN];
    sc->width = ow, sc->height = oh;
    sc->sharpness = p->sharpness;
    sc->encoding = encoding_of(p->flags);
}

upf_temporal *upf_temporal_create(upf_context *ctx, const upf_temporal_params *p)
{
    static const char fn[] = "upf_temporal_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (!p) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the render and "
                  "output sizes", fn);
        return NULL;
    }
    const int sizes[4] = { p->render_width, p->render_height, p->output_width, p->output_height };
    static const char *const names[4] = { "render_width", "render_height", "output_width",
                                          "output_height" };
    for (int i = 0; i < 4; i++)
        if (sizes[i] < 1 || sizes[i] > UPF_MAX_IMAGE_DIMENSION) {
            upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s %d; expected 1..%d", fn,
                      names[i], sizes[i], UPF_MAX_IMAGE_DIMENSION);
            return NULL;
        }
    for (int a = 0; a < 2; a++) {
        const int r = sizes[a], o = sizes[a + 2];
        if (o < r || o > 4 * r) {
            upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s %d for %s %d is a ratio of %.3g; "
                      "expected output / render from 1 to 4", fn, names[a + 2], o, names[a], r,
                      (double)o / r);
            return NULL;
        }
    }
    if (upf__check_pixels(ctx, fn, "the render size", p->render_width, p->render_height) != UPF_OK ||
        upf__check_pixels(ctx, fn, "the output size", p->output_width, p->output_height) != UPF_OK)
        return NULL;
    if (!(p->sharpness >= 0.0f && p->sharpness <= UPF_TEMPORAL_SHARPNESS_MAX)) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: sharpness %g is out of range (expected "
                  "0 .. %g)", fn, (double)p->sharpness, (double)UPF_TEMPORAL_SHARPNESS_MAX);
        return NULL;
    }
    const unsigned known = UPF_TEMPORAL_COLOR_SRGB | UPF_TEMPORAL_COLOR_SQRT |
                           UPF_TEMPORAL_MOTION_UV | UPF_TEMPORAL_SPATIAL_FILL;
    if (p->flags & ~known) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: unknown flags 0x%x (expected "
                  "UPF_TEMPORAL_COLOR_SRGB, _COLOR_SQRT, _MOTION_UV, _SPATIAL_FILL)", fn,
                  p->flags & ~known);
        return NULL;
    }
    if ((p->flags & UPF_TEMPORAL_COLOR_SRGB) && (p->flags & UPF_TEMPORAL_COLOR_SQRT)) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: UPF_TEMPORAL_COLOR_SRGB and _COLOR_SQRT "
                  "both set; expected one colour encoding", fn);
        return NULL;
    }
    upf_temporal *t = upf__alloc(ctx, sizeof *t, "the temporal engine");
    if (!t)
        return NULL;
    t->ctx = ctx;
    t->params = *p;
    atomic_init(&t->in_use, false);
    upf_jitter_phase_count(NULL, p->render_width, p->output_width, &t->phases);
    t->history_exposure = 1.0f;
    if (p->flags & UPF_TEMPORAL_SPATIAL_FILL) {
        const upf_models *set = p->models;
        if (!set && !(set = t->own_models = upf_models_default(ctx)))
            goto fail;
        t->cpu.spatial = upf_spatial_create(ctx, upf_spatial_params(
            .src_width = p->render_width, .src_height = p->render_height,
            .dst_width = p->output_width, .dst_height = p->output_height, .models = set));
        if (!t->cpu.spatial)
            goto fail;
    }
    if (upf__passes_init(&t->passes, ctx, passes, UPF__TP_PASS_COUNT, surfaces, UPF__TP_COUNT,
                         &t->cpu) != UPF_OK)
        goto fail;
    plan(t);
    if (upf__passes_alloc(&t->passes) != UPF_OK)
        goto fail;
    upf__lanczos_table(t->passes.surface[UPF__TP_LANCZOS].data);
    constants(t);
    upf__log(ctx, UPF_LOG_DEBUG, "%s: temporal engine %dx%d -> %dx%d, %d jitter phases, flags "
             "0x%x, %zu bytes", fn, p->render_width, p->render_height, p->output_width,
             p->output_height, t->phases, p->flags, upf__passes_bytes(&t->passes));
    return t;
fail:
    upf_temporal_destroy(&t);
    return NULL;
}

/* ---- running ----------------------------------------------------------------------------- */

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

/* Checks the frame and fills the per-frame constants. */
static upf_result prepare(upf_temporal *t, const char *fn, const upf_temporal_frame *f)
{
    upf_context *ctx = t->ctx;
    upf__passes *ps = &t->passes;
    const upf_temporal_params *p = &t->params;
    if (!f->color || !f->depth)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame %s is NULL; expected the "
                         "%s at %dx%d", fn, !f->color ? "color" : "depth",
                         !f->color ? "colour image" : "R32F depth image", p->render_width,
                         p->render_height);
    if (!f->motion && (!f->view_projection || !f->prev_view_projection))
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
    const double exposure = f->exposure == 0.0f ? 1.0 : f->exposure;
    const double pre = f->pre_exposure == 0.0f ? 1.0 : f->pre_exposure;
    if (r == UPF_OK)
        r = check_positive(ctx, fn, "exposure", exposure);
    if (r == UPF_OK)
        r = check_positive(ctx, fn, "pre_exposure", pre);
    upf_camera cam = f->camera;
    if (r == UPF_OK && f->projection) {
        r = upf_camera_from_projection(ctx, f->projection, f->clip_depth, &cam);
        if (r != UPF_OK) {
            const char *why = "";
            upf_context_last_error(ctx, &why);
            char copy[UPF_ERROR_MESSAGE_SIZE];
            snprintf(copy, sizeof copy, "%s", why);
            return upf__fail(ctx, r, "%s: frame projection: %s", fn, copy);
        }
    }
    if (r == UPF_OK)
        r = check_camera(ctx, fn, &cam);
    if (r != UPF_OK)
        return r;
    if (f->frame_time_ms < 1.0)
        upf__log(ctx, UPF_LOG_WARN, "%s: frame_time_ms %g is under a millisecond; expected "
                 "milliseconds (16.7 at 60 frames a second), not seconds", fn, f->frame_time_ms);

    const int rw = p->render_width, rh = p->render_height;
    if (!f->motion) {
        r = upf__camera_motion_setup(ctx, fn, f->view_projection, f->prev_view_projection,
                                     f->jitter_x, f->jitter_y, f->clip_depth, f->ndc_y_down, rw,
                                     rh, ps->con[UPF__TP_CAMERA_MOTION_PASS]);
        if (r != UPF_OK)
            return r;
    }
    ps->enabled[UPF__TP_CAMERA_MOTION_PASS] = !f->motion;

    double scale, offset;
    upf__camera_depth_factors(&cam, &scale, &offset);
    const bool uv = p->flags & UPF_TEMPORAL_MOTION_UV;
    upf__reconstruct_con *rc = ps->con[UPF__TP_RECONSTRUCT];
    rc->exposure = (float)(exposure / pre);
    rc->depth_scale = (float)scale;
    rc->depth_offset = (float)offset;
    rc->depth_reversed = cam.depth_reversed != 0;
    rc->camera_motion = !f->motion;
    rc->motion_scale_x = (float)((f->motion_scale_x == 0.0 ? 1.0 : f->motion_scale_x) *
                                 (uv ? rw : 1));
    rc->motion_scale_y = (float)((f->motion_scale_y == 0.0 ? 1.0 : f->motion_scale_y) *
                                 (uv ? rh : 1));
    rc->jitter_x = (float)f->jitter_x;
    rc->jitter_y = (float)f->jitter_y;
    upf__disocclusion_con *dc = ps->con[UPF__TP_DISOCCLUSION];
    dc->jitter_x = rc->jitter_x, dc->jitter_y = rc->jitter_y;
    dc->has_reactive = f->reactive != NULL;
    upf__accumulate_con *ac = ps->con[UPF__TP_ACCUMULATE];
    ac->jitter_x = rc->jitter_x, ac->jitter_y = rc->jitter_y;
    ac->reset = f->reset || t->frames == 0;
    ac->history_scale = ac->reset ? 1.0f : (float)(exposure / t->history_exposure);
    upf__sharpen_con *sc = ps->con[UPF__TP_SHARPEN];
    sc->exposure = (float)(pre / exposure);
    return UPF_OK;
}

upf_result upf_temporal_run(upf_temporal *t, const upf_temporal_frame *frame,
                            const upf_image *output)
{
    static const char fn[] = "upf_temporal_run";
    if (!t)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(t->ctx);
    if (!frame)
        return upf__fail(t->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame is NULL", fn);
    if (!output)
        return upf__fail(t->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: output image is NULL", fn);
    upf_result r = upf__enter(t->ctx, &t->in_use, fn, "the temporal engine");
    if (r != UPF_OK)
        return r;
    r = prepare(t, fn, frame);
    if (r != UPF_OK) {
        upf__leave(&t->in_use);
        return r;
    }
    const upf_image *images[UPF__TP_COUNT] = { 0 };
    images[UPF__TP_COLOR_IN] = frame->color;
    images[UPF__TP_DEPTH] = frame->depth;
    images[UPF__TP_MOTION] = frame->motion;
    images[UPF__TP_REACTIVE] = frame->reactive;
    images[UPF__TP_OUTPUT] = output;
    r = upf__passes_run(&t->passes, fn, images, 0, UPF__TP_PASS_COUNT - 1);
    if (r == UPF_OK) {
        t->frames++;
        t->history_exposure = frame->exposure == 0.0f ? 1.0f : frame->exposure;
    }
    upf__leave(&t->in_use);
    return r;
}

upf_result upf_temporal_timings(const upf_temporal *t, double ms[UPF_TEMPORAL_PASS_COUNT])
{
    if (!t || !ms)
        return UPF_ERROR_INVALID_ARGUMENT;
    memcpy(ms, t->passes.ms, sizeof(double) * UPF_TEMPORAL_PASS_COUNT);
    return UPF_OK;
}

const upf__passes *upf__temporal_passes(const upf_temporal *t)
{
    return &t->passes;
}
