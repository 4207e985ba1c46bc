/* vk_temporal.c: the temporal engine on the GPU (upf_vk_temporal_*, docs/VULKAN.md "The
 * temporal engine"), on the pass runner (vk_passes.h).
 *
 * What is the engine's own: its GPU pass table (one shader per CPU pass of temporal.c, two
 * where an optional input decides the bindings: the reconstruct pass with the host's vectors
 * or the camera's, the disocclusion pass with or without a reactive mask), the host images'
 * rules, and per frame the checks, the constants (plan.c, the CPU engine's pure functions, at
 * this frame's render size) with each shader's push-constant tail (src/vk/ABI.md) and the
 * grids. Surfaces, memory, pipelines, barriers, history parity and timestamps are the
 * runner's. Reads: the host's colour, depth, motion, reactive. Writes: the host's output. */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "temporal/temporal_passes.h"
#include "vk/vk_passes.h"
#include "vk/vk_temporal.h"

/* The GPU passes, in the order they record. */
enum {
    GP_CAMERA_MOTION = 0,
    GP_RECONSTRUCT,        /* the host's motion vectors */
    GP_RECONSTRUCT_CAMERA, /* the camera_motion pass's */
    GP_DISOCCLUSION,       /* no reactive mask */
    GP_DISOCCLUSION_REACTIVE,
    GP_LOCKS,
    GP_ACCUMULATE,
    GP_SHARPEN,
    GP_COUNT
};

/* The push constants: each pass's constants struct, then its tail (ABI.md). */
typedef struct { upf__camera_motion_con c; int32_t depth_x, depth_y; } camera_motion_push;
typedef struct {
    upf__reconstruct_con c;
    int32_t color_x, color_y, depth_x, depth_y, motion_x, motion_y;
    uint32_t color_transfer;
} reconstruct_push;
typedef struct { upf__disocclusion_con c; int32_t reactive_x, reactive_y; } disocclusion_push;
typedef struct { upf__sharpen_con c; int32_t dst_x, dst_y; uint32_t dst_transfer; } sharpen_push;

struct upf_vk_temporal {
    upf_context *ctx;
    upf_temporal_params params;     /* at the largest render size */
    upf__vk_funcs vk;
    upf__vk_caps caps;
    upf__vk_runner *run;
    float lanczos[UPF__LANCZOS_SIZE];
    uint64_t frames;                /* frames recorded */
    bool has_fill;                  /* UPF_TEMPORAL_SPATIAL_FILL: two runner records a frame,
                                     * the fill between them */
    upf__vk_temporal_fill fill;
    float history_exposure;
    atomic_bool in_use;
};

static const VkFormat reactive_formats[] = { VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT,
                                             VK_FORMAT_R32_SFLOAT };
#define N(a) (int)(sizeof(a) / sizeof((a)[0]))
#define DOCS "docs/VULKAN.md, \"The temporal engine\""

static void host_rules(upf__vk_runner_params *rp, int ow, int oh)
{
    rp->host[UPF__TP_COLOR_IN] = upf__vk_rule_colour("the colour", DOCS);
    rp->host[UPF__TP_DEPTH] = upf__vk_rule_depth(false, DOCS);
    rp->host[UPF__TP_MOTION] = upf__vk_rule_motion(DOCS);
    rp->host[UPF__TP_REACTIVE] = (upf__vk_host_rule){
        .formats = reactive_formats, .format_count = N(reactive_formats), .optional = true,
        .max_width = UPF_MAX_IMAGE_DIMENSION, .max_height = UPF_MAX_IMAGE_DIMENSION,
        .as = "the reactive mask", .docs = DOCS };
    rp->host[UPF__TP_OUTPUT] = upf__vk_rule_output(ow, oh, "the output", DOCS);
}

static upf__vk_pass_plan gpu_pass(int pass, const char *shader, uint32_t push_bytes)
{
    return (upf__vk_pass_plan){ .pass = pass, .stamp = true, .push_bytes = push_bytes,
                                .variant_count = 1, .variant = { { .shader = shader } } };
}

#define RES UPF__VK_RES
static void gpu_passes(upf__vk_runner_params *rp)
{
    upf__vk_pass_plan *g = rp->gpu_pass;
    g[GP_CAMERA_MOTION] = gpu_pass(UPF__TP_CAMERA_MOTION_PASS, "temporal/camera_motion",
                                   sizeof(camera_motion_push));
    const uint64_t rec_writes = RES(UPF__TP_COLOR) | RES(UPF__TP_FILL_SOURCE) |
                                RES(UPF__TP_DILATED_MOTION) | RES(UPF__TP_DILATED_DEPTH) |
                                RES(UPF__TP_PREV_DEPTH);
    for (int k = 0; k < 2; k++) {
        upf__vk_pass_plan *p = &g[GP_RECONSTRUCT + k];
        *p = gpu_pass(UPF__TP_RECONSTRUCT, k ? "temporal/reconstruct_dilate_camera"
                                             : "temporal/reconstruct_dilate",
                      sizeof(reconstruct_push));
        p->own_masks = true;
        p->reads = RES(UPF__TP_COLOR_IN) | RES(UPF__TP_DEPTH) |
                   RES(k ? UPF__TP_CAMERA_MOTION : UPF__TP_MOTION);
        p->writes = rec_writes;
        p->clear = RES(UPF__TP_PREV_DEPTH);
    }
    for (int k = 0; k < 2; k++) {
        upf__vk_pass_plan *p = &g[GP_DISOCCLUSION + k];
        *p = gpu_pass(UPF__TP_DISOCCLUSION, k ? "temporal/disocclusion_reactive"
                                              : "temporal/disocclusion",
                      sizeof(disocclusion_push));
        p->own_masks = true;
        p->reads = RES(UPF__TP_DILATED_MOTION) | RES(UPF__TP_DILATED_DEPTH) |
                   RES(UPF__TP_PREV_DEPTH) | (k ? RES(UPF__TP_REACTIVE) : 0);
        p->writes = RES(UPF__TP_REACTIVITY);
    }
    g[GP_LOCKS] = gpu_pass(UPF__TP_LOCKS_PASS, "temporal/locks", sizeof(upf__locks_con));
    g[GP_ACCUMULATE] = gpu_pass(UPF__TP_ACCUMULATE, "temporal/accumulate",
                                sizeof(upf__accumulate_con));
    g[GP_SHARPEN] = gpu_pass(UPF__TP_SHARPEN, "temporal/sharpen", sizeof(sharpen_push));
    rp->gpu_pass_count = GP_COUNT;
}
#undef RES

static upf_result check_params(upf_context *ctx, const char *fn, const upf_vk_temporal_params *p)
{
    if (!p)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the "
                         "device, the largest render size and the output size", fn);
    upf_result r = upf__vk_check_engine_params(ctx, fn, p->device, p->frames_in_flight);
    if (r != UPF_OK)
        return r;
    if ((p->flags & UPF_TEMPORAL_SPATIAL_FILL) && p->frames_in_flight > UPF__VK_FRAMES_IN_FLIGHT_MAX / 2)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames_in_flight %d with "
                         "UPF_TEMPORAL_SPATIAL_FILL; expected at most %d (a frame takes two of "
                         "the runner's slots)", fn, p->frames_in_flight, UPF__VK_FRAMES_IN_FLIGHT_MAX / 2);
    const upf_temporal_params tp = { p->max_render_width, p->max_render_height,
                                     p->output_width, p->output_height, p->sharpness, p->flags,
                                     NULL };
    return upf__temporal_check_params(ctx, fn, &tp);
}

void upf_vk_temporal_destroy(upf_vk_temporal **pt)
{
    if (!pt || !*pt)
        return;
    upf_vk_temporal *t = *pt;
    upf__vk_runner_destroy(&t->run);
    upf__vk_temporal_fill_destroy(&t->fill);
    upf__free(t->ctx, t);
    *pt = NULL;
}

upf_vk_temporal *upf_vk_temporal_create(upf_context *ctx, const upf_vk_temporal_params *p)
{
    static const char fn[] = "upf_vk_temporal_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (check_params(ctx, fn, p) != UPF_OK)
        return NULL;
    upf_vk_temporal *t = upf__alloc(ctx, sizeof *t, "the Vulkan temporal engine");
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    atomic_init(&t->in_use, false);
    t->params = (upf_temporal_params){ p->max_render_width, p->max_render_height,
                                       p->output_width, p->output_height, p->sharpness,
                                       p->flags, NULL };
    t->history_exposure = 1.0f;
    t->has_fill = (p->flags & UPF_TEMPORAL_SPATIAL_FILL) != 0;
    upf__lanczos_table(t->lanczos);
    if (upf__vk_load(ctx, fn, p->device, &t->vk) != UPF_OK ||
        upf__vk_check(ctx, fn, p->device, &t->vk, &t->caps) != UPF_OK)
        goto fail;

    upf__vk_runner_params *rp = upf__alloc(ctx, sizeof *rp, "the runner's params");
    if (!rp)
        goto fail;
    memset(rp, 0, sizeof *rp);
    *rp = (upf__vk_runner_params){ .ctx = ctx, .fn = fn, .dev = p->device, .vk = &t->vk,
                                   .caps = &t->caps, .pass = upf__temporal_pass_table(),
                                   .pass_count = UPF__TP_PASS_COUNT,
                                   .surface = upf__temporal_surface_table(),
                                   .surface_count = UPF__TP_COUNT,
                                   .slots = (p->frames_in_flight ? p->frames_in_flight : 2) *
                                            (t->has_fill ? 2 : 1),
                                   .timestamps = p->timestamps != 0 };
    upf__temporal_plan plan;
    upf__temporal_plan_of(&t->params, &plan);
    memcpy(rp->width, plan.width, sizeof plan.width);
    memcpy(rp->height, plan.height, sizeof plan.height);
    rp->surface_plan[UPF__TP_LANCZOS] = (upf__vk_surface_plan){
        .upload = t->lanczos, .upload_bytes = sizeof t->lanczos };
    rp->surface_plan[UPF__TP_PREV_DEPTH].clear_value = UPF__NO_DEPTH;
    host_rules(rp, p->output_width, p->output_height);
    gpu_passes(rp);
    t->run = upf__vk_runner_create(rp);
    upf__free(ctx, rp);
    if (!t->run)
        goto fail;
    const int fill_size[4] = { p->max_render_width, p->max_render_height, p->output_width,
                               p->output_height };
    if (t->has_fill &&
        upf__vk_temporal_fill_create(ctx, fn, p->device, &t->vk, &t->caps, fill_size,
                                     p->frames_in_flight ? p->frames_in_flight : 2,
                                     p->timestamps, &t->fill) != UPF_OK)
        goto fail;
    upf__log(ctx, UPF_LOG_DEBUG, "%s: temporal engine %dx%d -> %dx%d on the GPU, flags 0x%x, "
             "%llu bytes", fn, p->max_render_width, p->max_render_height, p->output_width,
             p->output_height, p->flags,
             (unsigned long long)upf__vk_runner_total_bytes(t->run));
    return t;
fail:
    upf_vk_temporal_destroy(&t);
    return NULL;
}

/* ---- a frame ------------------------------------------------------------------------------ */

/* Checks a host input and that its rectangle holds the render size; *at: its top-left. */
static upf_result check_input(upf_vk_temporal *t, const char *fn, const char *what, int surface,
                              const upf_vk_image *im, int rw, int rh, upf_rect *at)
{
    upf_rect rect = { 0, 0, 0, 0 };
    upf_result r = upf__vk_check_host_image(t->run, fn, what, surface, im, &rect);
    if (r != UPF_OK || !im)
        return r;
    if (rect.width < rw || rect.height < rh)
        return upf__fail(t->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: its rectangle is %dx%d, "
                         "smaller than this frame's render size %dx%d (expected at least "
                         "that)", fn, what, rect.width, rect.height, rw, rh);
    *at = rect;
    return UPF_OK;
}

/* This frame's render size: the frame's, or the largest; checked. */
static upf_result render_size(upf_vk_temporal *t, const char *fn, const upf_vk_temporal_frame *f,
                              int *rw, int *rh)
{
    const upf_temporal_params *p = &t->params;
    *rw = f->render_width ? f->render_width : p->render_width;
    *rh = f->render_height ? f->render_height : p->render_height;
    if (*rw < 1 || *rh < 1 || *rw > p->render_width || *rh > p->render_height)
        return upf__fail(t->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame render size %dx%d; "
                         "expected 1x1 .. the largest, %dx%d, given at create", fn, *rw, *rh,
                         p->render_width, p->render_height);
    const int o[2] = { p->output_width, p->output_height }, r[2] = { *rw, *rh };
    for (int a = 0; a < 2; a++)
        if (o[a] > 4 * r[a])
            return upf__fail(t->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame render %s %d is "
                             "below a quarter of the output's %d (expected output / render "
                             "from 1 to 4)", fn, a ? "height" : "width", r[a], o[a]);
    return UPF_OK;
}

/* The frame's constants and tails into the pushes, and which passes run. */
typedef struct frame_push {
    camera_motion_push cm;
    reconstruct_push rec;
    disocclusion_push dis;
    upf__locks_con locks;
    upf__spatial_fill_con fill;
    upf__accumulate_con acc;
    sharpen_push sharpen;
} frame_push;

static void describe(const frame_push *push, const upf_vk_temporal_frame *f,
                     const upf_vk_image *out, bool camera_motion, int rw, int rh, int ow, int oh,
                     upf__vk_frame *vf)
{
    vf->image[UPF__TP_COLOR_IN] = f->color;
    vf->image[UPF__TP_DEPTH] = f->depth;
    vf->image[UPF__TP_MOTION] = f->motion;
    vf->image[UPF__TP_REACTIVE] = f->reactive;
    vf->image[UPF__TP_OUTPUT] = out;
    /* accumulate keeps 8 x 8: at 16 x 16 it measured slower on an H100 (142.4 -> 145.1 us at
     * 2048x1152, 471.4 -> 479.9 at 4K; docs/TEMPORAL.md "On the GPU"): a heavy pass hides its
     * launches behind its work, and its larger workgroups cost it occupancy. */
    const upf__vk_grid rg = upf__vk_grid16(rw, rh), og = upf__vk_grid16(ow, oh), acc = upf__vk_grid8(ow, oh);
    const struct { int gp; bool run; const void *push; upf__vk_grid grid; } on[GP_COUNT] = {
        { GP_CAMERA_MOTION, camera_motion, &push->cm, rg },
        { GP_RECONSTRUCT, !camera_motion, &push->rec, rg },
        { GP_RECONSTRUCT_CAMERA, camera_motion, &push->rec, rg },
        { GP_DISOCCLUSION, !f->reactive, &push->dis, rg },
        { GP_DISOCCLUSION_REACTIVE, f->reactive != NULL, &push->dis, rg },
        { GP_LOCKS, true, &push->locks, rg },
        { GP_ACCUMULATE, true, &push->acc, acc },
        { GP_SHARPEN, true, &push->sharpen, og },
    };
    for (int k = 0; k < GP_COUNT; k++)
        vf->pass[on[k].gp] = (upf__vk_pass_frame){ .run = on[k].run, .push = on[k].push,
                                                   .dispatches = 1, .grid = { on[k].grid } };
}

/* With the spatial fill: the passes up to locks, the fill, then accumulate and sharpen, as two
 * records of the runner (the history's parity flips after the second, the one that writes
 * it). */
static upf_result record_with_fill(upf_vk_temporal *t, const char *fn, VkCommandBuffer cmd,
                                   const upf__vk_frame *vf, int rw, int rh)
{
    upf__vk_frame *first = &(upf__vk_frame){ 0 }, *second = &(upf__vk_frame){ 0 };
    *first = *vf, *second = *vf;
    first->image[UPF__TP_OUTPUT] = NULL;
    first->pass[GP_ACCUMULATE].run = first->pass[GP_SHARPEN].run = false;
    for (int s = 0; s < UPF__TP_COUNT; s++)
        second->image[s] = s == UPF__TP_OUTPUT ? vf->image[s] : NULL;
    for (int g = 0; g < GP_COUNT; g++)
        second->pass[g].run = vf->pass[g].run && (g == GP_ACCUMULATE || g == GP_SHARPEN);
    second->reset = false;
    upf_result r = upf__vk_runner_record(t->run, fn, cmd, first);
    VkDeviceSize bytes = 0;
    VkBuffer source = upf__vk_runner_buffer(t->run, UPF__TP_FILL_SOURCE, &bytes);
    VkBuffer fill = upf__vk_runner_buffer(t->run, UPF__TP_FILL, &bytes);
    if (r == UPF_OK)
        r = upf__vk_temporal_fill_record(&t->fill, fn, cmd, source, fill, rw, rh);
    if (r == UPF_OK)
        r = upf__vk_runner_record(t->run, fn, cmd, second);
    return r;
}

upf_result upf_vk_temporal_record(upf_vk_temporal *t, VkCommandBuffer cmd,
                                  const upf_vk_temporal_frame *f, const upf_vk_image *out)
{
    static const char fn[] = "upf_vk_temporal_record";
    if (!t)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf_context *ctx = t->ctx;
    upf__clear_error(ctx);
    if (!cmd)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL; expected a command "
                         "buffer in the recording state", fn);
    if (!f)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame is NULL", fn);
    if (!f->color || !f->depth)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame %s is NULL; expected the "
                         "%s", fn, !f->color ? "color" : "depth",
                         !f->color ? "colour image" : "depth image");
    upf_result r = upf__enter(ctx, &t->in_use, fn, "the Vulkan temporal engine");
    if (r != UPF_OK)
        return r;
    int rw = 0, rh = 0;
    const int ow = t->params.output_width, oh = t->params.output_height;
    upf_rect rc = { 0 }, rd = { 0 }, rm = { 0 }, rr = { 0 }, ro = { 0 };
    r = render_size(t, fn, f, &rw, &rh);
    if (r == UPF_OK)
        r = check_input(t, fn, "color", UPF__TP_COLOR_IN, f->color, rw, rh, &rc);
    if (r == UPF_OK)
        r = check_input(t, fn, "depth", UPF__TP_DEPTH, f->depth, rw, rh, &rd);
    if (r == UPF_OK)
        r = check_input(t, fn, "motion", UPF__TP_MOTION, f->motion, rw, rh, &rm);
    if (r == UPF_OK)
        r = check_input(t, fn, "reactive", UPF__TP_REACTIVE, f->reactive, rw, rh, &rr);
    if (r == UPF_OK)
        r = upf__vk_check_host_image(t->run, fn, "output", UPF__TP_OUTPUT, out, &ro);
    if (r == UPF_OK && (ro.width != ow || ro.height != oh))
        r = upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: output: its rectangle is %dx%d; "
                      "expected the output size %dx%d", fn, ro.width, ro.height, ow, oh);
    frame_push push;
    memset(&push, 0, sizeof push);
    bool camera_motion = false;
    if (r == UPF_OK) {
        void *const con[UPF__TP_PASS_COUNT] = { &push.cm.c, &push.rec.c, &push.dis.c,
                                                &push.locks, &push.fill, &push.acc,
                                                &push.sharpen.c };
        upf__temporal_constants(&t->params, rw, rh, con);
        const upf__temporal_frame_info info = { rw, rh, f->motion != NULL, f->reactive != NULL,
                                                t->frames == 0, t->history_exposure };
        r = upf__temporal_frame_constants(ctx, fn, &t->params, &f->values, &info, con,
                                          &camera_motion);
    }
    if (r == UPF_OK) {
        push.cm.depth_x = rd.x, push.cm.depth_y = rd.y;
        push.rec.color_x = rc.x, push.rec.color_y = rc.y;
        push.rec.depth_x = rd.x, push.rec.depth_y = rd.y;
        push.rec.motion_x = rm.x, push.rec.motion_y = rm.y;
        push.rec.color_transfer = f->color->srgb                              ? 1u
                                  : f->color->format == VK_FORMAT_R8G8B8A8_SRGB ||
                                          f->color->format == VK_FORMAT_B8G8R8A8_SRGB
                                      ? 2u
                                      : 0u;
        push.dis.reactive_x = rr.x, push.dis.reactive_y = rr.y;
        push.sharpen.dst_x = ro.x, push.sharpen.dst_y = ro.y;
        push.sharpen.dst_transfer = out->srgb ? 1u : 0u;
        upf__vk_frame vf;
        memset(&vf, 0, sizeof vf);
        describe(&push, f, out, camera_motion, rw, rh, ow, oh, &vf);
        vf.reset = f->values.reset || t->frames == 0;
        r = t->has_fill ? record_with_fill(t, fn, cmd, &vf, rw, rh)
                        : upf__vk_runner_record(t->run, fn, cmd, &vf);
    }
    if (r == UPF_OK) {
        t->frames++;
        t->history_exposure = upf__temporal_exposure(&f->values);
    }
    upf__leave(&t->in_use);
    return r;
}

upf_result upf_vk_temporal_timings(upf_vk_temporal *t, double ms[UPF_TEMPORAL_PASS_COUNT],
                                   double *total_ms)
{
    static const char fn[] = "upf_vk_temporal_timings";
    if (!t || !ms)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(t->ctx);
    double total = 0.0, fill_ms = 0.0, spatial[UPF_SPATIAL_PASS_COUNT];
    upf_result r = upf__vk_runner_timings(t->run, fn, ms, &total);
    if (r == UPF_OK && t->has_fill) /* the spatial engine's frame, recorded between */
        r = upf_vk_spatial_timings(t->fill.spatial, spatial, &fill_ms);
    if (r == UPF_OK) {
        ms[UPF__TP_SPATIAL_FILL] = fill_ms;
        total += fill_ms;
    }
    if (r == UPF_OK && total_ms)
        *total_ms = total;
    return r;
}

upf__vk_runner *upf__vk_temporal_runner(upf_vk_temporal *t)
{
    return t ? t->run : NULL;
}
