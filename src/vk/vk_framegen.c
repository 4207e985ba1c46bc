/* vk_framegen.c: frame generation on the GPU (upf_vk_interpolate_*, docs/VULKAN.md "Frame
 * generation"), on the pass runner (vk_passes.h), one shader per CPU pass of
 * src/framegen/ (src/vk/shaders/framegen/).
 *
 * What is the engine's own: its GPU pass table (vk_framegen.h lists it), the host images'
 * rules, and per record the checks, the method (the CPU engine's choice,
 * upf__interpolate_method), the constants (the CPU engine's, upf__interpolate_describe, with
 * this record's phases) with each shader's push-constant tail, and the grids. A record is
 * one runner frame per phase: the first runs the pair's passes (prepare, scene, vectors,
 * camera) and phase 0's (splat, fill, resolve, inpaint, compose), each further one phase k's
 * into outputs[k]; the runner's barriers order them, so the phases share the intermediate
 * surfaces. Surfaces, memory, pipelines, barriers and timestamps are the runner's. Reads:
 * the host's colours, motion, depth, HUD layers. Writes: the host's outputs. */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/color.h"
#include "framegen/framegen_passes.h"
#include "vk/vk_framegen.h"
#include "vk/vk_framegen_flow.h"

/* The push constants: each pass's constants struct, its step (patched) and its shader's tail
 * (the rectangles' offsets, the sRGB transfers), in UPF__VK_PUSH_MAX bytes. */
typedef struct {
    upf__fg_prepare_con c;
    int32_t step, prev_x, prev_y, cur_x, cur_y;
    uint32_t prev_transfer, cur_transfer;
    uint32_t prev_table, cur_table;   /* the 8-bit frames: each one's decode table */
    uint32_t prev_device, cur_device; /* 1: an SRGB format, which the device decodes */
} prepare_push;
typedef struct {
    upf__fg_resolve_con c;
    uint32_t prev_table, cur_table;   /* the 8-bit frames: each one's decode table */
    int32_t levels;                   /* the inpaint's: the resolve makes its level 1 */
} resolve_push;
typedef struct {
    upf__fg_vectors_con c;
    uint32_t step;
    int32_t motion_x, motion_y, depth_x, depth_y;
    uint32_t prev_table, cur_table;   /* the 8-bit frames: each one's decode table */
} vectors_push;
typedef struct {
    upf__fg_compose_con c;
    int32_t out_x, out_y, hud_x, hud_y;
    uint32_t out_transfer, hud_transfer;
    int32_t levels;                   /* the inpaint's: the compose makes its levels 1, 0 up */
    uint32_t prev_table, cur_table;   /* the 8-bit frames: each one's decode table */
} compose_push;
typedef union {
    uint8_t bytes[UPF__VK_PUSH_MAX];
    prepare_push prepare;
    vectors_push vectors;
    upf__vk_fg_splat_push splat;
    resolve_push resolve;
    compose_push compose;
} push_block;

struct upf_vk_interpolate {
    upf_context *ctx;
    upf_vk_interpolate_params params;  /* with the defaults filled */
    upf__interpolate_plan plan;        /* the CPU engine's configuration */
    upf__passes ps;                    /* its tables, sizes and fixed constants (no memory) */
    upf__vk_funcs vk;
    upf__vk_caps caps;
    upf__vk_runner *run;
    int at[UPF__VK_FG_GP_COUNT];       /* each role's GPU pass */
    int flow_first, flow_count;
    uint64_t records;                  /* records made */
    uint64_t first_frame[UPF__VK_FRAMES_IN_FLIGHT_MAX]; /* per recent record (by records %
                                                         * frames_in_flight): its first runner
                                                         * frame and how many */
    int frame_count[UPF__VK_FRAMES_IN_FLIGHT_MAX];
    upf__vk_frame vf;                  /* a runner frame being described (large) */
    float table[UPF__VK_FG_TABLE];     /* the 8-bit frames' decode tables (uploaded) */
    atomic_bool in_use;
};

/* push[] of a record: a block per role, then the flow's passes' blocks. */
#define FLOW_PUSH UPF__VK_FG_GP_COUNT
_Static_assert(sizeof(push_block) == UPF__VK_PUSH_MAX, "a push block is the push constants");

#define DOCS "docs/VULKAN.md, \"Frame generation\""
#define RES UPF__VK_RES

/* ---- the GPU table ------------------------------------------------------------------------ */

static upf__vk_pass_plan plan_of(int pass, const char *shader, uint32_t step_at, bool stamp)
{
    return (upf__vk_pass_plan){ .pass = pass, .stamp = stamp, .push_bytes = UPF__VK_PUSH_MAX,
                                .patch_used = step_at > 0, .patch_offset = step_at,
                                .variant_count = 1, .variant = { { .shader = shader } } };
}

bool upf__vk_fg_is_8bit(VkFormat format)
{
    return format == VK_FORMAT_R8G8B8A8_UNORM || format == VK_FORMAT_R8G8B8A8_SRGB ||
           format == VK_FORMAT_B8G8R8A8_UNORM || format == VK_FORMAT_B8G8R8A8_SRGB;
}

void upf__vk_fg_bytes_extra(upf__vk_runner_params *rp, int W, int H,
                            float table[UPF__VK_FG_TABLE])
{
    for (int c = 0; c < 256; c++) { /* upf__row_to_linear's, rounded as prepare.c rounds */
        table[UPF__VK_FG_TABLE_SRGB + (unsigned)c] =
            upf__fg_linear_round(upf_srgb8_to_linear_table[c]);
        table[UPF__VK_FG_TABLE_UNORM + (unsigned)c] = upf__fg_linear_round((float)c / 255.0f);
    }
    rp->extra[0] = (upf__vk_extra_plan){
        .name = "the 8-bit frames", .kind = UPF__VK_EXTRA_STORAGE,
        .bytes = ((VkDeviceSize)UPF__VK_FG_TABLE + 2 * (VkDeviceSize)W * (VkDeviceSize)H) * 4,
        .upload = table, .upload_bytes = UPF__VK_FG_TABLE * sizeof(float) };
    rp->extra[UPF__VK_FG_SHADED - UPF__FG_COUNT] = (upf__vk_extra_plan){
        .name = "the shade flag", .kind = UPF__VK_EXTRA_STORAGE, .bytes = 32, .clear_value = 0 };
    rp->extra_count = 2;
}

upf__vk_grid upf__vk_fg_resolve_grid(int W, int H, bool bytes)
{
    const uint32_t gw = UPF__VK_FG_RESOLVE_BYTES_W, gh = UPF__VK_FG_RESOLVE_BYTES_H;
    if (!bytes)
        return upf__vk_grid16(W, H);
    return (upf__vk_grid){ ((uint32_t)W + gw - 1) / gw, ((uint32_t)H + gh - 1) / gh, 1 };
}

void upf__vk_fg_bytes_variants(upf__vk_pass_plan *plan, const char *shader)
{
    static const VkSpecializationMapEntry entry[3] = { { 0, 0, sizeof(VkBool32) },
                                                       { 1, 4, 4 }, { 2, 8, 4 } };
    static const uint32_t on[3] = { VK_TRUE, UPF__VK_FG_RESOLVE_BYTES_W,
                                    UPF__VK_FG_RESOLVE_BYTES_H };
    static const VkSpecializationInfo bytes = { 1, entry, 4, on };
    static const VkSpecializationInfo resolve = { 3, entry, sizeof on, on };
    plan->variant_count = 2;
    plan->variant[0] = (upf__vk_variant){ .shader = shader };
    const bool is_resolve = strcmp(shader, "framegen/resolve") == 0;
    plan->variant[UPF__VK_FG_VARIANT_BYTES] = (upf__vk_variant){
        .shader = shader, .spec = is_resolve ? &resolve : &bytes };
    plan->reads |= RES(UPF__VK_FG_BYTES);
    if (is_resolve) /* the colour pyramid's level 1 (resolve.comp) */
        plan->writes |= RES(UPF__FG_COLOR_PYRAMID);
}

void upf__vk_fg_vectors_plan(upf__vk_pass_plan *plan)
{
    upf__vk_fg_bytes_variants(plan, "framegen/vectors"); /* the shade rule's patches */
    plan->clear = RES(UPF__FG_SPLAT_PREV) | RES(UPF__FG_SPLAT_PREV_INDEX) |
                  RES(UPF__VK_FG_SHADED);
    plan->reads |= RES(UPF__VK_FG_SHADED);
    plan->writes |= RES(UPF__VK_FG_SHADED);
    plan->indirect = RES(UPF__VK_FG_SHADED); /* steps 4 to 7's workgroups */
}

void upf__vk_fg_vectors_dispatches(upf__vk_pass_frame *pf, int W, int H)
{
    pf->dispatches = UPF__VK_FG_VECTORS_STEPS;
    for (int d = 0; d < UPF__VK_FG_VECTORS_STEPS; d++) {
        pf->grid[d] = upf__vk_grid16(W, H);
        pf->patch[d] = (uint32_t)d;
        /* the shade flag's counts: step 3's from step 0, steps 4 to 7's from step 3 */
        pf->indirect[d] = d == UPF__VK_FG_VECTORS_SHADE || d >= UPF__VK_FG_VECTORS_SHADED_FROM;
        pf->indirect_at[d] = d == UPF__VK_FG_VECTORS_SHADE ? UPF__VK_FG_SHADE_CALL : 0;
    }
}

int upf__vk_fg_plans(upf__vk_pass_plan *plan, int at[UPF__VK_FG_GP_COUNT], bool flow,
                     int *flow_first, int *flow_count)
{
    int n = 0;
    at[UPF__VK_FG_GP_PREPARE] = n;
    plan[n] = plan_of(UPF__FG_PREPARE, "framegen/prepare", sizeof(upf__fg_prepare_con), true);
    upf__vk_fg_bytes_variants(&plan[n], "framegen/prepare");
    plan[n].writes = RES(UPF__VK_FG_BYTES);
    plan[n++].clear = RES(UPF__FG_HISTOGRAMS);
    at[UPF__VK_FG_GP_SCENE] = n;
    plan[n++] = plan_of(UPF__FG_SCENE_PASS, "framegen/scene", 0, true);
    at[UPF__VK_FG_GP_VECTORS] = n;
    plan[n] = plan_of(UPF__FG_VECTORS, "framegen/vectors", sizeof(upf__fg_vectors_con), true);
    upf__vk_fg_vectors_plan(&plan[n++]);
    /* The flow's GPU passes (vk_framegen_flow.c), where the CPU engine runs `flow`: after
     * prepare and scene, before camera; only in an engine made for the flow. */
    *flow_first = n;
    *flow_count = flow ? upf__vk_fg_flow_plans(plan + n) : 0;
    n += *flow_count;
    at[UPF__VK_FG_GP_CUT] = flow ? n : -1;
    if (flow)
        plan[n++] = plan_of(UPF__FG_CUT, "framegen/cut", sizeof(upf__fg_cut_con), true);
    at[UPF__VK_FG_GP_CAMERA] = n;
    plan[n++] = plan_of(UPF__FG_CAMERA_PASS, "framegen/camera", sizeof(upf__fg_camera_con), true);
    at[UPF__VK_FG_GP_SPLAT] = n;
    plan[n] = plan_of(UPF__FG_SPLAT_PASS, "framegen/splat", sizeof(upf__fg_splat_con), true);
    plan[n].writes = RES(UPF__FG_CAMERA); /* the phase's powers (upf__vk_fg_splat_frame) */
    plan[n++].clear = RES(UPF__FG_SPLAT) | RES(UPF__FG_SPLAT_INDEX);
    at[UPF__VK_FG_GP_FILL] = n;
    plan[n++] = plan_of(UPF__FG_FILL, "framegen/fill", sizeof(upf__fg_fill_con), true);
    at[UPF__VK_FG_GP_RESOLVE] = n;
    plan[n] = plan_of(UPF__FG_RESOLVE, "framegen/resolve", 0, true);
    upf__vk_fg_bytes_variants(&plan[n++], "framegen/resolve");
    at[UPF__VK_FG_GP_INPAINT_DOWN] = n;
    plan[n++] = plan_of(UPF__FG_INPAINT, "framegen/inpaint", sizeof(upf__fg_inpaint_con), false);
    at[UPF__VK_FG_GP_INPAINT_UP] = n;
    plan[n++] = plan_of(UPF__FG_INPAINT, "framegen/inpaint", sizeof(upf__fg_inpaint_con), true);
    /* the compose makes the inpaint's up steps at levels 1 and 0 (compose.glsl): it reads the
     * resolved frame and the colour pyramid, not the inpainted frame, which no GPU pass
     * writes */
    const uint64_t compose_reads = RES(UPF__FG_RESOLVED) | RES(UPF__FG_COLOR_PYRAMID) |
                                   RES(UPF__FG_LINEAR_PREV) | RES(UPF__FG_LINEAR);
    for (int hud = 0; hud < 2; hud++) {
        at[hud ? UPF__VK_FG_GP_COMPOSE_HUD : UPF__VK_FG_GP_COMPOSE] = n;
        plan[n] = plan_of(UPF__FG_COMPOSE, hud ? "framegen/compose_hud" : "framegen/compose", 0,
                          true);
        plan[n].own_masks = true; /* the HUD layer is bound only by the variant that reads it */
        plan[n].reads = compose_reads | (hud ? RES(UPF__FG_HUD) : 0);
        upf__vk_fg_bytes_variants(&plan[n], hud ? "framegen/compose_hud" : "framegen/compose");
        plan[n++].writes = RES(UPF__FG_OUTPUT);
    }
    return n;
}

void upf__vk_fg_prepare_dispatches(upf__vk_pass_frame *pf, int W, int H, int levels)
{
    pf->grid[pf->dispatches] = upf__vk_grid16(W, H);
    pf->patch[pf->dispatches++] = 0;
    for (int l = 1 + UPF__VK_FG_PREPARE_FUSED; l < levels; l += UPF__VK_FG_PREPARE_DOWN_FUSED) {
        pf->grid[pf->dispatches] = upf__vk_grid16(upf__fg_level_size(W, l),
                                                  upf__fg_level_size(H, l));
        pf->patch[pf->dispatches++] = (uint32_t)l;
    }
}

void upf__vk_fg_down_dispatches(upf__vk_pass_frame *pf, int W, int H, int levels, int first)
{
    for (int l = first; l < levels; l += UPF__VK_FG_DOWNS) {
        pf->grid[pf->dispatches] = upf__vk_grid16(upf__fg_level_size(W, l),
                                                  upf__fg_level_size(H, l));
        pf->patch[pf->dispatches++] = (uint32_t)l;
    }
}

void upf__vk_fg_fill_dispatches(upf__vk_pass_frame *pf, int W, int H, int levels)
{
    if (levels < 2) { /* no down step to decode level 0 */
        pf->grid[pf->dispatches] = upf__vk_grid16(W, H);
        pf->patch[pf->dispatches++] = 0;
    }
    upf__vk_fg_down_dispatches(pf, W, H, levels, 1);
    pf->grid[pf->dispatches] = upf__vk_grid16(W, H); /* the last step fills level 0 */
    pf->patch[pf->dispatches++] = (uint32_t)levels;
}

void upf__vk_fg_up_dispatches(upf__vk_pass_frame *pf, int W, int H, int levels, int least)
{
    int lo = levels - 1; /* the least level of the tail */
    while (lo > least && (int64_t)upf__fg_level_size(W, lo - 1) * upf__fg_level_size(H, lo - 1) <=
                         UPF__VK_FG_UP_TAIL)
        lo--;
    int l = levels - 2;
    if (lo < l) {
        pf->grid[pf->dispatches] = (upf__vk_grid){ 1, 1, 1 };
        pf->patch[pf->dispatches++] = (uint32_t)-(UPF__VK_FG_UP_TAIL_STEP + lo);
        l = lo - 1;
    }
    for (; l >= least; l--) {
        pf->grid[pf->dispatches] = upf__vk_grid16(upf__fg_level_size(W, l),
                                                  upf__fg_level_size(H, l));
        pf->patch[pf->dispatches++] = (uint32_t)-l;
    }
}

static void host_rules(upf__vk_runner_params *rp, int w, int h)
{
    const upf__vk_host_rule colour = upf__vk_rule_colour("a colour", DOCS);
    rp->host[UPF__FG_COLOR_PREV] = rp->host[UPF__FG_COLOR] = colour;
    rp->host[UPF__FG_HUD] = colour;
    rp->host[UPF__FG_HUD].optional = true;
    rp->host[UPF__FG_HUD].as = "a HUD layer";
    rp->host[UPF__FG_MOTION_IN] = upf__vk_rule_motion(DOCS);
    rp->host[UPF__FG_DEPTH_IN] = upf__vk_rule_depth(true, DOCS);
    rp->host[UPF__FG_OUTPUT] = upf__vk_rule_output(w, h, "an output", DOCS);
}

/* ---- making ------------------------------------------------------------------------------- */

static upf_result check_params(upf_context *ctx, const char *fn,
                               const upf_vk_interpolate_params *p)
{
    if (!p)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the "
                         "device, the frames' size, the motion source and the largest factor",
                         fn);
    upf_result r = upf__vk_check_engine_params(ctx, fn, p->device, p->frames_in_flight);
    if (r != UPF_OK)
        return r;
    if ((unsigned)p->motion > UPF_VK_MOTION_BOTH)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: motion %d; expected "
                         "UPF_VK_MOTION_VECTORS, _FLOW or _BOTH", fn, (int)p->motion);
    if (p->max_factor != 0 && (p->max_factor < 2 || p->max_factor > UPF_INTERPOLATE_FACTOR_MAX))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: max_factor %d; expected 2..%d "
                         "(0: 2)", fn, p->max_factor, UPF_INTERPOLATE_FACTOR_MAX);
    return UPF_OK;
}

void upf_vk_interpolate_destroy(upf_vk_interpolate **pfg)
{
    if (!pfg || !*pfg)
        return;
    upf_vk_interpolate *fg = *pfg;
    upf__vk_runner_destroy(&fg->run);
    upf__passes_free(&fg->ps);
    upf__free(fg->ctx, fg);
    *pfg = NULL;
}

static upf_result make_runner(upf_vk_interpolate *fg, const char *fn)
{
    upf_context *ctx = fg->ctx;
    upf__vk_runner_params *rp = upf__alloc(ctx, sizeof *rp, "the runner's params");
    if (!rp)
        return UPF_ERROR_OUT_OF_MEMORY;
    const upf__passes *ps = &fg->ps;
    *rp = (upf__vk_runner_params){ .ctx = ctx, .fn = fn, .dev = fg->params.device,
                                   .vk = &fg->vk, .caps = &fg->caps, .pass = ps->pass,
                                   .pass_count = ps->pass_count, .surface = ps->surface_info,
                                   .surface_count = ps->surface_count,
                                   .slots = fg->params.frames_in_flight *
                                            (fg->params.max_factor - 1),
                                   .timestamps = fg->params.timestamps != 0 };
    for (int i = 0; i < ps->surface_count; i++) {
        rp->width[i] = ps->surface[i].width, rp->height[i] = ps->surface[i].height;
        /* the splats start at "nothing landed", the histograms at 0 */
        rp->surface_plan[i].clear_value = i == UPF__FG_HISTOGRAMS ? 0 : UPF__FG_NONE;
    }
    /* no GPU pass writes or reads the inpainted frame (the compose makes it): its least buffer */
    rp->width[UPF__FG_INPAINTED] = rp->height[UPF__FG_INPAINTED] = 0;
    /* the linear frames: 8 bytes a pixel (linear.glsl), half an RGBA32F row's */
    rp->width[UPF__FG_LINEAR_PREV] = rp->width[UPF__FG_LINEAR] = (fg->params.width + 1) / 2;
    rp->height[UPF__FG_CAMERA_SUMS] = UPF__VK_FG_CAMERA_SUM_ROWS(rp->height[UPF__FG_CAMERA_SUMS]);
    host_rules(rp, fg->params.width, fg->params.height);
    upf__vk_fg_bytes_extra(rp, fg->params.width, fg->params.height, fg->table);
    rp->gpu_pass_count = upf__vk_fg_plans(rp->gpu_pass, fg->at,
                                          fg->params.motion != UPF_VK_MOTION_VECTORS,
                                          &fg->flow_first, &fg->flow_count);
    fg->run = upf__vk_runner_create(rp);
    upf__free(ctx, rp);
    return fg->run ? UPF_OK : UPF_ERROR_INTERNAL; /* the runner's message is set */
}

upf_vk_interpolate *upf_vk_interpolate_create(upf_context *ctx,
                                              const upf_vk_interpolate_params *p)
{
    static const char fn[] = "upf_vk_interpolate_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (check_params(ctx, fn, p) != UPF_OK)
        return NULL;
    upf_vk_interpolate *fg = upf__alloc(ctx, sizeof *fg, "the Vulkan frame generation engine");
    if (!fg)
        return NULL;
    memset(fg, 0, sizeof *fg);
    fg->ctx = ctx;
    atomic_init(&fg->in_use, false);
    fg->params = *p;
    fg->params.frames_in_flight = p->frames_in_flight ? p->frames_in_flight : 2;
    fg->params.max_factor = p->max_factor ? p->max_factor : 2;
    static const upf_interpolate_motion cpu_motion[] = { UPF_INTERPOLATE_MOTION_VECTORS,
                                                         UPF_INTERPOLATE_MOTION_FLOW,
                                                         UPF_INTERPOLATE_MOTION_AUTO };
    const upf_interpolate_params ip = { p->width, p->height, p->motion_width, p->motion_height,
                                        cpu_motion[p->motion], p->motion_scale_x,
                                        p->motion_scale_y, p->flags };
    if (upf__interpolate_describe(ctx, fn, &ip, &fg->ps, &fg->plan) != UPF_OK)
        goto fail;
    fg->params.motion_width = fg->plan.params.motion_width;
    fg->params.motion_height = fg->plan.params.motion_height;
    if (upf__vk_load(ctx, fn, p->device, &fg->vk) != UPF_OK ||
        upf__vk_check(ctx, fn, p->device, &fg->vk, &fg->caps) != UPF_OK ||
        make_runner(fg, fn) != UPF_OK)
        goto fail;
    upf__log(ctx, UPF_LOG_DEBUG, "%s: frame generation %dx%d (motion %dx%d) on the GPU, factor "
             "up to %d, %d frames in flight, %llu bytes", fn, p->width, p->height,
             fg->params.motion_width, fg->params.motion_height, fg->params.max_factor,
             fg->params.frames_in_flight,
             (unsigned long long)upf__vk_runner_total_bytes(fg->run));
    return fg;
fail:
    upf_vk_interpolate_destroy(&fg);
    return NULL;
}

/* ---- a record ---------------------------------------------------------------------------- */

/* Checks an input and that its rectangle holds w x h; *at: the rectangle. */
static upf_result check_input(upf_vk_interpolate *fg, const char *fn, const char *what,
                              int surface, const upf_vk_image *im, int w, int h, upf_rect *at)
{
    upf_rect rect = { 0, 0, 0, 0 };
    upf_result r = upf__vk_check_host_image(fg->run, fn, what, surface, im, &rect);
    if (r != UPF_OK || !im)
        return r;
    if (rect.width < w || rect.height < h)
        return upf__fail(fg->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: its rectangle is %dx%d, "
                         "smaller than the %s size %dx%d (expected at least that)", fn, what,
                         rect.width, rect.height, surface == UPF__FG_MOTION_IN ||
                         surface == UPF__FG_DEPTH_IN ? "motion" : "frames'", w, h);
    *at = rect;
    return UPF_OK;
}

/* The phases and outputs: counts, values, the output images. */
static upf_result check_phases(upf_vk_interpolate *fg, const char *fn, const double *phases,
                               int phase_count, const upf_vk_image *const *outputs,
                               int output_count, upf_rect *rect)
{
    upf_context *ctx = fg->ctx;
    const int most = fg->params.max_factor - 1, w = fg->params.width, h = fg->params.height;
    if (phase_count < 1 || phase_count > most)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %d phases; expected 1 .. %d "
                         "(max_factor %d given at create, less one)", fn, phase_count, most,
                         most + 1);
    if (!phases || !outputs)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL; expected %d of them",
                         fn, !phases ? "phases" : "outputs", phase_count);
    if (output_count != phase_count)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %d outputs for %d phases; "
                         "expected one output image per phase", fn, output_count, phase_count);
    for (int k = 0; k < phase_count; k++) {
        if (!(phases[k] > 0.0 && phases[k] < 1.0))
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: phase %d is %g; expected t "
                             "strictly between 0 (frame N-1) and 1 (frame N)", fn, k,
                             phases[k]);
        char what[32];
        snprintf(what, sizeof what, "outputs[%d]", k);
        if (!outputs[k])
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL; expected an "
                             "image of %dx%d", fn, what, w, h);
        upf_result r = upf__vk_check_host_image(fg->run, fn, what, UPF__FG_OUTPUT, outputs[k],
                                                &rect[k]);
        if (r != UPF_OK)
            return r;
        if (rect[k].width != w || rect[k].height != h)
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: its rectangle is %dx%d; "
                             "expected the frames' size %dx%d", fn, what, rect[k].width,
                             rect[k].height, w, h);
    }
    return UPF_OK;
}

/* The host images of a pair, checked; rc[] their rectangles by surface (prev_hud's in
 * rc[UPF__FG_COUNT]). */
static upf_result check_frame(upf_vk_interpolate *fg, const char *fn,
                             const upf_vk_interpolate_frame *f, upf_rect *rc)
{
    const int w = fg->params.width, h = fg->params.height;
    const int mw = fg->params.motion_width, mh = fg->params.motion_height;
    upf_result r = check_input(fg, fn, "prev_color", UPF__FG_COLOR_PREV, f->prev_color, w, h,
                               &rc[UPF__FG_COLOR_PREV]);
    if (r == UPF_OK)
        r = check_input(fg, fn, "color", UPF__FG_COLOR, f->color, w, h, &rc[UPF__FG_COLOR]);
    if (r == UPF_OK)
        r = check_input(fg, fn, "motion", UPF__FG_MOTION_IN, f->motion, mw, mh,
                        &rc[UPF__FG_MOTION_IN]);
    if (r == UPF_OK)
        r = check_input(fg, fn, "depth", UPF__FG_DEPTH_IN, f->depth, mw, mh,
                        &rc[UPF__FG_DEPTH_IN]);
    if (r == UPF_OK)
        r = check_input(fg, fn, "hud", UPF__FG_HUD, f->hud, w, h, &rc[UPF__FG_HUD]);
    if (r == UPF_OK)
        r = check_input(fg, fn, "prev_hud", UPF__FG_HUD, f->prev_hud, w, h, &rc[UPF__FG_COUNT]);
    if (r == UPF_OK && (f->view_projection != NULL) != (f->prev_view_projection != NULL))
        r = upf__fail(fg->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame %s is given without %s; "
                      "expected both cameras or neither", fn,
                      f->view_projection ? "view_projection" : "prev_view_projection",
                      f->view_projection ? "prev_view_projection" : "view_projection");
    return r;
}

/* Says why the record blends, as the CPU engine does. */
static void log_blend(upf_context *ctx, const char *fn, const upf_vk_interpolate_frame *f,
                      upf_interpolate_fallback why)
{
    if (why == UPF_INTERPOLATE_FALLBACK_NOT_CONSECUTIVE)
        upf__log(ctx, UPF_LOG_WARN, "%s: frame ids %lld and %lld are not consecutive: the "
                 "blend, not a frame made against a stale one", fn, (long long)f->prev_id,
                 (long long)f->id);
    else if (why == UPF_INTERPOLATE_FALLBACK_MISSING_INPUT)
        upf__log(ctx, UPF_LOG_WARN, "%s: %s given without %s: the blend", fn,
                 f->motion ? "motion" : f->depth ? "depth" : "no motion vectors",
                 f->motion ? "depth" : f->depth ? "motion" : "(UPF_VK_MOTION_VECTORS asks for "
                 "them)");
    else if (why == UPF_INTERPOLATE_FALLBACK_RESET)
        upf__log(ctx, UPF_LOG_INFO, "%s: reset: the blend", fn);
}

/* What a record does, decided before anything is recorded. */
typedef struct record_plan {
    upf_interpolate_method method;
    upf_interpolate_fallback why;
    bool given;                       /* the camera from the host's matrices */
    float g[9];
    upf_rect rc[UPF__FG_COUNT + 1];   /* the host images' rectangles (prev_hud's last) */
    bool bytes;                       /* both colours 8-bit: the 8-bit frames' variants */
    uint32_t prev_table, cur_table;   /* their decode tables (table_of) */
} record_plan;

static uint32_t srgb_format(VkFormat format)
{
    return format == VK_FORMAT_R8G8B8A8_SRGB || format == VK_FORMAT_B8G8R8A8_SRGB;
}

/* An 8-bit colour's decode table: sRGB (an SRGB format, or a UNORM view of sRGB values) or
 * UNORM. */
static uint32_t table_of(const upf_vk_image *im)
{
    return im->srgb || srgb_format(im->format) ? UPF__VK_FG_TABLE_SRGB : UPF__VK_FG_TABLE_UNORM;
}

/* The pair's prepare (the colours to linear light, or to the 8-bit frames when both are 8-bit;
 * the luma pyramids for the flow) and scene (the cut decided for the flow only). */
static void prepare_passes(const upf_vk_interpolate *fg, const upf_vk_interpolate_frame *f,
                           const record_plan *rp, push_block *push, upf__vk_frame *vf)
{
    const int W = fg->params.width, H = fg->params.height;
    const bool flow = rp->method == UPF_INTERPOLATE_USED_FLOW;
    vf->image[UPF__FG_COLOR_PREV] = f->prev_color;
    vf->image[UPF__FG_COLOR] = f->color;
    prepare_push *pp = &push[UPF__VK_FG_GP_PREPARE].prepare;
    pp->c = *(const upf__fg_prepare_con *)fg->ps.con[UPF__FG_PREPARE];
    pp->c.levels = flow ? fg->plan.flow_levels : 0;
    pp->prev_x = rp->rc[UPF__FG_COLOR_PREV].x, pp->prev_y = rp->rc[UPF__FG_COLOR_PREV].y;
    pp->cur_x = rp->rc[UPF__FG_COLOR].x, pp->cur_y = rp->rc[UPF__FG_COLOR].y;
    pp->prev_transfer = f->prev_color->srgb ? 1u : 0u;
    pp->cur_transfer = f->color->srgb ? 1u : 0u;
    pp->prev_table = rp->prev_table, pp->cur_table = rp->cur_table;
    pp->prev_device = srgb_format(f->prev_color->format);
    pp->cur_device = srgb_format(f->color->format);
    upf__vk_pass_frame *pf = &vf->pass[fg->at[UPF__VK_FG_GP_PREPARE]];
    *pf = (upf__vk_pass_frame){ .run = true, .push = pp,
                                .variant = rp->bytes ? UPF__VK_FG_VARIANT_BYTES : 0 };
    upf__vk_fg_prepare_dispatches(pf, W, H, pp->c.levels); /* the luma pyramids (the flow) */
    upf__fg_scene_con *sc = (upf__fg_scene_con *)push[UPF__VK_FG_GP_SCENE].bytes;
    *sc = *(const upf__fg_scene_con *)fg->ps.con[UPF__FG_SCENE_PASS];
    sc->enabled = flow;
    vf->pass[fg->at[UPF__VK_FG_GP_SCENE]] = (upf__vk_pass_frame){
        .run = true, .push = sc, .dispatches = 1, .grid = { { 1, 1, 1 } } };
}

/* The pair's vectors (the host's motion and depth to the engine's surfaces; vectors only). */
static void vectors_pass(const upf_vk_interpolate *fg, const upf_vk_interpolate_frame *f,
                         const record_plan *rp, push_block *push, upf__vk_frame *vf)
{
    vectors_push *vp = &push[UPF__VK_FG_GP_VECTORS].vectors;
    vp->c = *(const upf__fg_vectors_con *)fg->ps.con[UPF__FG_VECTORS];
    vp->motion_x = rp->rc[UPF__FG_MOTION_IN].x, vp->motion_y = rp->rc[UPF__FG_MOTION_IN].y;
    vp->depth_x = rp->rc[UPF__FG_DEPTH_IN].x, vp->depth_y = rp->rc[UPF__FG_DEPTH_IN].y;
    vp->prev_table = rp->prev_table, vp->cur_table = rp->cur_table;
    vf->image[UPF__FG_MOTION_IN] = f->motion;
    vf->image[UPF__FG_DEPTH_IN] = f->depth;
    upf__vk_pass_frame *pf = &vf->pass[fg->at[UPF__VK_FG_GP_VECTORS]];
    *pf = (upf__vk_pass_frame){ .run = true, .push = vp,
                                .variant = rp->bytes ? UPF__VK_FG_VARIANT_BYTES : 0 };
    upf__vk_fg_vectors_dispatches(pf, fg->params.width, fg->params.height);
}

/* The pair's camera (not for the blend): the host's homography, or the fit to the vectors or
 * to the flow's (interpolate.c's rule). */
static void camera_pass(const upf_vk_interpolate *fg, const record_plan *rp, push_block *push,
                        upf__vk_frame *vf)
{
    const bool vec = rp->method == UPF_INTERPOLATE_USED_VECTORS;
    upf__fg_camera_con *cc = (upf__fg_camera_con *)push[UPF__VK_FG_GP_CAMERA].bytes;
    *cc = *(const upf__fg_camera_con *)fg->ps.con[UPF__FG_CAMERA_PASS];
    cc->fit = !vec || !rp->given;
    cc->given = vec && rp->given;
    cc->near = vec ? UPF__FG_CAMERA_NEAR : UPF__FG_CAMERA_NEAR_FLOW;
    cc->spread = vec ? UPF__FG_CAMERA_SPREAD : UPF__FG_CAMERA_SPREAD_FLOW;
    if (cc->given)
        memcpy(cc->g, rp->g, sizeof cc->g);
    vf->pass[fg->at[UPF__VK_FG_GP_CAMERA]] = (upf__vk_pass_frame){ .push = cc };
    upf__vk_fg_camera_frame(cc, &vf->pass[fg->at[UPF__VK_FG_GP_CAMERA]]);
}

void upf__vk_fg_camera_frame(const upf__fg_camera_con *cc, upf__vk_pass_frame *cf)
{
    const bool fit = cc->fit && !cc->given;
    const uint32_t blocks = (uint32_t)upf__fg_camera_blocks(cc->grid_w, cc->grid_h);
    cf->run = true;
    cf->dispatches = fit ? UPF__VK_FG_CAMERA_STEPS : 1;
    for (int k = 0; k < cf->dispatches; k++)
        cf->grid[k] = (upf__vk_grid){ fit ? blocks : 1, 1, 1 },
        cf->patch[k] = (uint32_t)k;
}

void upf__vk_fg_cut_frame(const upf__fg_cut_con *cc, upf__vk_pass_frame *cf)
{
    const uint64_t n = (uint64_t)cc->width * (uint64_t)cc->height;
    cf->run = true;
    cf->dispatches = 2;
    cf->grid[0] = (upf__vk_grid){ (uint32_t)UPF_MAX((n + UPF__VK_FG_CUT_PIXELS - 1) /
                                                    UPF__VK_FG_CUT_PIXELS, 1), 1, 1 };
    cf->patch[0] = 0;
    cf->grid[1] = (upf__vk_grid){ 1, 1, 1 };
    cf->patch[1] = 1;
}

/* The pair's passes into vf (push blocks in push[]): prepare, scene, vectors (or the flow's),
 * camera. */
static void pair_passes(const upf_vk_interpolate *fg, const upf_vk_interpolate_frame *f,
                        const record_plan *rp, push_block *push, upf__vk_frame *vf)
{
    prepare_passes(fg, f, rp, push, vf);
    if (rp->method == UPF_INTERPOLATE_USED_VECTORS)
        vectors_pass(fg, f, rp, push, vf);
    if (rp->method == UPF_INTERPOLATE_USED_FLOW) {
        upf__vk_fg_flow_frames(&fg->ps, &vf->pass[fg->flow_first],
                               (uint8_t (*)[UPF__VK_PUSH_MAX])push[FLOW_PUSH].bytes);
        upf__fg_cut_con *cc = (upf__fg_cut_con *)push[UPF__VK_FG_GP_CUT].bytes;
        *cc = *(const upf__fg_cut_con *)fg->ps.con[UPF__FG_CUT];
        cc->enabled = 1;
        vf->pass[fg->at[UPF__VK_FG_GP_CUT]] = (upf__vk_pass_frame){ .push = cc };
        upf__vk_fg_cut_frame(cc, &vf->pass[fg->at[UPF__VK_FG_GP_CUT]]);
    }
    if (rp->method != UPF_INTERPOLATE_USED_BLEND)
        camera_pass(fg, rp, push, vf);
}

void upf__vk_fg_splat_frame(upf__vk_fg_splat_push *sp, float t, bool camera,
                            upf__vk_pass_frame *pf)
{
    const upf__vk_grid px = upf__vk_grid16(sp->c.width, sp->c.height);
    sp->c.shift = 1.0f - t;
    sp->t = t;
    *pf = (upf__vk_pass_frame){ .run = true, .push = sp };
    if (camera) {
        pf->grid[pf->dispatches] = (upf__vk_grid){ 1, 1, 1 };
        pf->patch[pf->dispatches++] = UPF__VK_FG_SPLAT_POWERS;
    }
    for (uint32_t step = 0; step < 2; step++) {
        pf->grid[pf->dispatches] = px;
        pf->patch[pf->dispatches++] = step;
    }
}

/* A phase's splat and fill (not for the blend). */
static void motion_passes(const upf_vk_interpolate *fg, const record_plan *rp, float t,
                          push_block *push, upf__vk_frame *vf)
{
    const upf__passes *ps = &fg->ps;
    const int W = fg->params.width, H = fg->params.height;
    upf__vk_fg_splat_push *sp = &push[UPF__VK_FG_GP_SPLAT].splat;
    sp->c = *(const upf__fg_splat_con *)ps->con[UPF__FG_SPLAT_PASS];
    sp->c.flow = rp->method == UPF_INTERPOLATE_USED_FLOW;
    upf__vk_fg_splat_frame(sp, t, true, &vf->pass[fg->at[UPF__VK_FG_GP_SPLAT]]);
    upf__fg_fill_con *fc = (upf__fg_fill_con *)push[UPF__VK_FG_GP_FILL].bytes;
    *fc = *(const upf__fg_fill_con *)ps->con[UPF__FG_FILL];
    fc->flow_rank = rp->method == UPF_INTERPOLATE_USED_FLOW;
    upf__vk_pass_frame *ff = &vf->pass[fg->at[UPF__VK_FG_GP_FILL]];
    *ff = (upf__vk_pass_frame){ .run = true, .push = fc };
    upf__vk_fg_fill_dispatches(ff, W, H, fc->levels);
}

/* A phase's resolve and inpaint (down to each level, then up). */
static void resolve_passes(const upf_vk_interpolate *fg, const record_plan *rp, float t,
                           push_block *push, upf__vk_frame *vf)
{
    const upf__passes *ps = &fg->ps;
    const int W = fg->params.width, H = fg->params.height;
    resolve_push *rs = &push[UPF__VK_FG_GP_RESOLVE].resolve;
    upf__fg_resolve_con *rc = &rs->c;
    *rc = *(const upf__fg_resolve_con *)ps->con[UPF__FG_RESOLVE];
    rc->t = t;
    rc->blend = rp->method == UPF_INTERPOLATE_USED_BLEND;
    rc->visibility = rp->method == UPF_INTERPOLATE_USED_VECTORS;
    rs->prev_table = rp->prev_table, rs->cur_table = rp->cur_table;
    const upf__fg_inpaint_con *ic = ps->con[UPF__FG_INPAINT];
    rs->levels = ic->levels; /* it makes level 1 */
    vf->pass[fg->at[UPF__VK_FG_GP_RESOLVE]] = (upf__vk_pass_frame){
        .run = true, .push = rs, .dispatches = 1,
        .grid = { upf__vk_fg_resolve_grid(W, H, rp->bytes) },
        .variant = rp->bytes ? UPF__VK_FG_VARIANT_BYTES : 0 };
    upf__vk_pass_frame *down = &vf->pass[fg->at[UPF__VK_FG_GP_INPAINT_DOWN]];
    upf__vk_pass_frame *up = &vf->pass[fg->at[UPF__VK_FG_GP_INPAINT_UP]];
    memcpy(push[UPF__VK_FG_GP_INPAINT_DOWN].bytes, ic, sizeof *ic);
    memcpy(push[UPF__VK_FG_GP_INPAINT_UP].bytes, ic, sizeof *ic);
    *down = (upf__vk_pass_frame){ .run = true, .push = push[UPF__VK_FG_GP_INPAINT_DOWN].bytes };
    *up = (upf__vk_pass_frame){ .run = true, .push = push[UPF__VK_FG_GP_INPAINT_UP].bytes };
    upf__vk_fg_down_dispatches(down, W, H, ic->levels, 2); /* level 1: the resolve's */
    upf__vk_fg_up_dispatches(up, W, H, ic->levels, 2); /* levels 1 and 0: the compose's */
}

/* A phase's compose into `out` (with the inpaint's last steps, levels 1's and 0's up): with
 * this phase's HUD layer, as the CPU engine takes it (both: N-1's below 0.5, N's from 0.5;
 * either alone: that one), or the still-pixel rule. */
static void compose_pass(const upf_vk_interpolate *fg, const upf_vk_interpolate_frame *f,
                         const record_plan *rp, float t, const upf_vk_image *out,
                         const upf_rect *out_rect, push_block *push, upf__vk_frame *vf)
{
    const bool both = f->hud && f->prev_hud;
    const upf_vk_image *hud = both ? (t < 0.5f ? f->prev_hud : f->hud)
                                   : f->hud ? f->hud : f->prev_hud;
    const upf_rect *hr = hud == f->hud ? &rp->rc[UPF__FG_HUD] : &rp->rc[UPF__FG_COUNT];
    compose_push *cp = &push[UPF__VK_FG_GP_COMPOSE].compose;
    cp->c = *(const upf__fg_compose_con *)fg->ps.con[UPF__FG_COMPOSE];
    cp->c.t = t;
    cp->c.hud = hud != NULL;
    cp->levels = ((const upf__fg_inpaint_con *)fg->ps.con[UPF__FG_INPAINT])->levels;
    cp->prev_table = rp->prev_table, cp->cur_table = rp->cur_table;
    cp->out_x = out_rect->x, cp->out_y = out_rect->y;
    cp->out_transfer = out->srgb ? 1u : 0u;
    if (hud) {
        cp->hud_x = hr->x, cp->hud_y = hr->y;
        cp->hud_transfer = hud->srgb ? 1u : 0u;
    }
    vf->image[UPF__FG_OUTPUT] = out;
    vf->image[UPF__FG_HUD] = hud;
    vf->pass[fg->at[hud ? UPF__VK_FG_GP_COMPOSE_HUD : UPF__VK_FG_GP_COMPOSE]] =
        (upf__vk_pass_frame){ .run = true, .push = cp, .dispatches = 1,
                              .grid = { upf__vk_grid16(fg->params.width, fg->params.height) },
                              .variant = rp->bytes ? UPF__VK_FG_VARIANT_BYTES : 0 };
}

/* Phase k's passes into vf: splat, fill (not for the blend), resolve, inpaint, compose. */
static void phase_passes(const upf_vk_interpolate *fg, const upf_vk_interpolate_frame *f,
                         const record_plan *rp, float t, const upf_vk_image *out,
                         const upf_rect *out_rect, push_block *push, upf__vk_frame *vf)
{
    if (rp->method != UPF_INTERPOLATE_USED_BLEND)
        motion_passes(fg, rp, t, push, vf);
    resolve_passes(fg, rp, t, push, vf);
    compose_pass(fg, f, rp, t, out, out_rect, push, vf);
}

/* Decides the method and the camera; nothing recorded. */
static upf_result decide(upf_vk_interpolate *fg, const char *fn, const upf_vk_interpolate_frame *f,
                         record_plan *rp)
{
    upf__interpolate_method(fg->plan.params.motion, f->motion != NULL, f->depth != NULL,
                            f->reset, f->prev_id, f->id, &rp->method, &rp->why);
    rp->bytes = upf__vk_fg_is_8bit(f->prev_color->format) &&
                upf__vk_fg_is_8bit(f->color->format);
    rp->prev_table = table_of(f->prev_color), rp->cur_table = table_of(f->color);
    rp->given = f->view_projection != NULL;
    if (rp->given) {
        upf_result r = upf__fg_camera_from_matrices(fg->ctx, fn, fg->params.width,
                                                    fg->params.height, f->view_projection,
                                                    f->prev_view_projection, f->ndc_y_down,
                                                    rp->g);
        if (r != UPF_OK)
            return r;
    }
    if (rp->why != UPF_INTERPOLATE_FALLBACK_NONE)
        rp->method = UPF_INTERPOLATE_USED_BLEND;
    return UPF_OK;
}

/* Records the runner frames: the pair's passes with phase 0's, then each further phase's.
 * Everything the runner checks (host images bound for the passes that run, variants,
 * dispatch counts) holds by construction once the record's checks passed, so a runner frame
 * after the first does not fail. */
static upf_result record_frames(upf_vk_interpolate *fg, const char *fn, VkCommandBuffer cmd,
                                const upf_vk_interpolate_frame *f, const record_plan *rp,
                                const double *phases, int count,
                                const upf_vk_image *const *outputs, const upf_rect *out_rect)
{
    upf__vk_frame *vf = &fg->vf;
    push_block push[FLOW_PUSH + UPF__VK_FG_FLOW_PLANS_MAX];
    const uint64_t first = upf__vk_runner_frames(fg->run);
    upf_result r = UPF_OK;
    for (int k = 0; k < count && r == UPF_OK; k++) {
        memset(vf, 0, sizeof *vf);
        memset(push, 0, sizeof push);
        if (k == 0)
            pair_passes(fg, f, rp, push, vf);
        phase_passes(fg, f, rp, (float)phases[k], outputs[k], &out_rect[k], push, vf);
        r = upf__vk_runner_record(fg->run, fn, cmd, vf);
    }
    const int slot = (int)(fg->records % (uint64_t)fg->params.frames_in_flight);
    fg->first_frame[slot] = first;
    fg->frame_count[slot] = (int)(upf__vk_runner_frames(fg->run) - first);
    fg->records++;
    return r;
}

upf_result upf_vk_interpolate_record(upf_vk_interpolate *fg, VkCommandBuffer cmd,
                                     const upf_vk_interpolate_frame *f, const double *phases,
                                     int phase_count, const upf_vk_image *const *outputs,
                                     int output_count)
{
    static const char fn[] = "upf_vk_interpolate_record";
    if (!fg)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf_context *ctx = fg->ctx;
    upf__clear_error(ctx);
    if (!cmd)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: cmd is NULL; expected a command "
                         "buffer in the recording state", fn);
    if (!f)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame is NULL", fn);
    if (!f->prev_color || !f->color)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame %s is NULL; expected "
                         "frame %s at %dx%d", fn, !f->prev_color ? "prev_color" : "color",
                         !f->prev_color ? "N-1" : "N", fg->params.width, fg->params.height);
    upf_result r = upf__enter(ctx, &fg->in_use, fn, "the Vulkan frame generation engine");
    if (r != UPF_OK)
        return r;
    record_plan rp;
    memset(&rp, 0, sizeof rp);
    upf_rect out_rect[UPF_INTERPOLATE_FACTOR_MAX];
    r = check_phases(fg, fn, phases, phase_count, outputs, output_count, out_rect);
    if (r == UPF_OK)
        r = check_frame(fg, fn, f, rp.rc);
    if (r == UPF_OK)
        r = decide(fg, fn, f, &rp);
    if (r == UPF_OK) {
        log_blend(ctx, fn, f, rp.why);
        r = record_frames(fg, fn, cmd, f, &rp, phases, phase_count, outputs, out_rect);
    }
    upf__leave(&fg->in_use);
    return r;
}

upf_result upf_vk_interpolate_timings(upf_vk_interpolate *fg,
                                      double ms[UPF_INTERPOLATE_PASS_COUNT], double *total_ms)
{
    static const char fn[] = "upf_vk_interpolate_timings";
    if (!fg || !ms)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(fg->ctx);
    if (!fg->params.timestamps)
        return upf__fail(fg->ctx, UPF_ERROR_UNSUPPORTED, "%s: the engine was made without "
                         "timestamps", fn);
    const int fif = fg->params.frames_in_flight;
    for (uint64_t back = 0; back < (uint64_t)fif && back < fg->records; back++) {
        const int slot = (int)((fg->records - 1 - back) % (uint64_t)fif);
        double sum[UPF_INTERPOLATE_PASS_COUNT] = { 0 }, one[UPF__PASSES_MAX];
        double total = 0.0, t = 0.0;
        bool all = fg->frame_count[slot] > 0;
        for (int k = 0; k < fg->frame_count[slot] && all; k++) {
            all = upf__vk_runner_frame_timings(fg->run, fg->first_frame[slot] + (uint64_t)k,
                                               one, &t);
            for (int p = 0; all && p < UPF_INTERPOLATE_PASS_COUNT; p++)
                sum[p] += one[p] + (p == UPF__FG_FLOW ? one[UPF__FG_CUT] : 0.0); /* as the CPU's */
            total += t;
        }
        if (!all)
            continue;
        memcpy(ms, sum, sizeof sum);
        if (total_ms)
            *total_ms = total;
        return UPF_OK;
    }
    return upf__fail(fg->ctx, UPF_ERROR_UNSUPPORTED, "%s: no recorded frame has finished on the "
                     "GPU yet (ask after the fence of a submitted record)", fn);
}

upf__vk_runner *upf__vk_interpolate_runner(upf_vk_interpolate *fg)
{
    return fg ? fg->run : NULL;
}
