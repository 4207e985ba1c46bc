/* temporal.c: the temporal engine (upf_temporal_*): its pass list, its surfaces and the public
 * calls. The two tables below are the engine's whole data flow (temporal_passes.h lists them
 * with their files; docs/TEMPORAL.md explains each pass).
 *
 * upf_temporal_create checks the sizes and flags, gives every surface its size, fills the
 * Lanczos table and each pass's fixed constants (both from plan.c), makes the spatial engine of
 * the spatial fill, and allocates every surface (the two history pairs included) once (core/pass.h), so a run
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
    [UPF__TP_DISPLAY] = { "display", "the shown colour's offset", UPF__SURFACE_R32UI,
                          UPF__SURFACE_HISTORY, 0, NULL },
    [UPF__TP_DISPLAY_NEXT] = { "display_next", "the next shown colour's offset",
                               UPF__SURFACE_R32UI, UPF__SURFACE_HISTORY_NEXT, 0, NULL },
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
                                 S(UPF__TP_HISTORY) | S(UPF__TP_STATE) | S(UPF__TP_DISPLAY),
                             S(UPF__TP_HISTORY_NEXT) | S(UPF__TP_STATE_NEXT) |
                                 S(UPF__TP_DISPLAY_NEXT), -1,
                             sizeof(upf__accumulate_con), upf__accumulate_pass },
    [UPF__TP_SHARPEN] = { "sharpen", "sharpen", S(UPF__TP_HISTORY_NEXT) | S(UPF__TP_DISPLAY_NEXT),
                          S(UPF__TP_OUTPUT), -1,
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
    upf__temporal_plan plan;
    upf__temporal_plan_of(p, &plan);
    for (int i = 0; i < UPF__TP_COUNT; i++) {
        ps->surface[i].width = plan.width[i];
        ps->surface[i].height = plan.height[i];
    }
    for (int i = 0; i < UPF__TP_PASS_COUNT; i++)
        ps->enabled[i] = plan.enabled[i];
    ps->scratch_bytes[UPF__TP_RECONSTRUCT] = upf__tp_reconstruct_scratch_bytes(p->render_height);
    ps->scratch_bytes[UPF__TP_SHARPEN] = (size_t)UPF_MAX(upf_context_threads(t->ctx), 1) *
                                         (size_t)p->output_width * 4 * sizeof(float);
}

upf_result upf__temporal_check_params(upf_context *ctx, const char *fn,
                                      const upf_temporal_params *p)
{
    const upf_result bad = UPF_ERROR_INVALID_ARGUMENT;
    if (!p)
        return upf__fail(ctx, bad, "%s: params is NULL; expected the render and output sizes",
                         fn);
    const int sizes[4] = { p->render_width, p->render_height, p->output_width, p->output_height };
    static const char *const names[4] = { "render_width", "render_height", "output_width",
                                          "output_height" };
    for (int i = 0; i < 4; i++)
        if (sizes[i] < 1 || sizes[i] > UPF_MAX_IMAGE_DIMENSION)
            return upf__fail(ctx, bad, "%s: %s %d; expected 1..%d", fn, names[i], sizes[i],
                             UPF_MAX_IMAGE_DIMENSION);
    for (int a = 0; a < 2; a++) {
        const int r = sizes[a], o = sizes[a + 2];
        if (o < r || o > 4 * r)
            return upf__fail(ctx, bad, "%s: %s %d for %s %d is a ratio of %.3g; expected "
                             "output / render from 1 to 4", fn, names[a + 2], o, names[a], r,
                             (double)o / r);
    }
    upf_result r = upf__check_pixels(ctx, fn, "the render size", p->render_width,
                                     p->render_height);
    if (r == UPF_OK)
        r = upf__check_pixels(ctx, fn, "the output size", p->output_width, p->output_height);
    if (r != UPF_OK)
        return r;
    if (!(p->sharpness >= 0.0f && p->sharpness <= UPF_TEMPORAL_SHARPNESS_MAX))
        return upf__fail(ctx, bad, "%s: sharpness %g is out of range (expected 0 .. %g)", fn,
                         (double)p->sharpness, (double)UPF_TEMPORAL_SHARPNESS_MAX);
    const unsigned known = UPF_TEMPORAL_COLOR_SRGB | UPF_TEMPORAL_COLOR_SQRT |
                           UPF_TEMPORAL_MOTION_UV | UPF_TEMPORAL_SPATIAL_FILL;
    if (p->flags & ~known)
        return upf__fail(ctx, bad, "%s: unknown flags 0x%x (expected UPF_TEMPORAL_COLOR_SRGB, "
                         "_COLOR_SQRT, _MOTION_UV, _SPATIAL_FILL)", fn, p->flags & ~known);
    if ((p->flags & UPF_TEMPORAL_COLOR_SRGB) && (p->flags & UPF_TEMPORAL_COLOR_SQRT))
        return upf__fail(ctx, bad, "%s: UPF_TEMPORAL_COLOR_SRGB and _COLOR_SQRT both set; "
                         "expected one colour encoding", fn);
    return UPF_OK;
}

upf_temporal *upf_temporal_create(upf_context *ctx, const upf_temporal_params *p)
{
    static const char fn[] = "upf_temporal_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (upf__temporal_check_params(ctx, fn, p) != UPF_OK)
        return NULL;
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
    upf__temporal_constants(p, p->render_width, p->render_height, t->passes.con);
    upf__log(ctx, UPF_LOG_DEBUG, "%s: temporal engine %dx%d -> %dx%d, %d jitter phases, flags "
             "0x%x, %zu bytes", fn, p->render_width, p->render_height, p->output_width,
             p->output_height, t->phases, p->flags, upf__passes_bytes(&t->passes));
    return t;
fail:
    upf_temporal_destroy(&t);
    return NULL;
}

/* ---- running ----------------------------------------------------------------------------- */

/* Checks the frame and fills the per-frame constants. */
static upf_result prepare(upf_temporal *t, const char *fn, const upf_temporal_frame *f)
{
    const upf_temporal_params *p = &t->params;
    if (!f->color || !f->depth)
        return upf__fail(t->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame %s is NULL; expected "
                         "the %s at %dx%d", fn, !f->color ? "color" : "depth",
                         !f->color ? "colour image" : "R32F depth image", p->render_width,
                         p->render_height);
    const upf__temporal_frame_info info = { p->render_width, p->render_height, f->motion != NULL,
                                            f->reactive != NULL, t->frames == 0,
                                            t->history_exposure };
    bool camera_motion = false;
    upf_result r = upf__temporal_frame_constants(t->ctx, fn, p, f, &info, t->passes.con,
                                                 &camera_motion);
    if (r == UPF_OK)
        t->passes.enabled[UPF__TP_CAMERA_MOTION_PASS] = camera_motion;
    return r;
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
        t->history_exposure = upf__temporal_exposure(frame);
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

const upf__pass_info *upf__temporal_pass_table(void)
{
    return passes;
}

const upf__surface_info *upf__temporal_surface_table(void)
{
    return surfaces;
}

const upf__passes *upf__temporal_passes(const upf_temporal *t)
{
    return &t->passes;
}
