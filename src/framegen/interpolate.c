/* interpolate.c: the frame generation engine (upf_interpolate_*): its pass list, its surfaces
 * and the public calls. The two tables below are the engine's whole data flow
 * (framegen_passes.h lists them with their files; docs/FRAMEGEN.md explains each pass).
 *
 * upf_interpolate_create checks the params, gives every surface its size (the pyramids'
 * atlases from the number of levels the size allows), fills each pass's fixed constants and
 * allocates everything once. A run checks the frames, chooses the method (the game's vectors,
 * optical flow, or the fallback blend and why), runs prepare, scene, then vectors or flow,
 * and camera once, then splat .. compose once per phase with that phase's constants. The
 * host chooses the blend on a reset, on frame ids that are not consecutive and on a missing
 * input; the scene pass chooses it on the device when prepare's histograms say the two frames
 * are of different scenes, and the cut pass after the flow when most of the flow's vectors
 * fail its forward/backward check (a cut between two shots of one map; both flow only: with
 * vectors the host says reset), and the resolve takes it, so nothing is read back in the
 * middle of a frame. The engine reads the scene
 * surface after the run only to report the method (upf_interpolate_last_method, the log):
 * what a GPU backend reads after the frame's fence. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/image.h"
#include "framegen/framegen_passes.h"

/* Tuning (docs/FRAMEGEN.md says what each does). */
#define FLOW_LEAST 8           /* the flow pyramid's smallest level: at least 8 pixels */
#define FLOW_LEVELS_MAX 8      /* ... and at most 8 levels (motions to about 10 x 2^7 px) */
#define FLOW_RADIUS_COARSE 8   /* block search on the coarsest level, +- pixels */
#define FLOW_RADIUS 2          /* ... on the others above level 0 */
#define FLOW_RADIUS_FINE 0     /* ... on level 0: none, its candidates only (docs/FRAMEGEN.md) */
#define FLOW_REFINE 3          /* Lucas-Kanade steps on level 0 */
#define FLOW_PENALTY 0.002f    /* a pixel of distance from the parent's vector costs as much as
                                * 0.002 of luma difference on every pixel of the block */
#define FLOW_FLAT 0.004f       /* a flat block: mean |gradient| below 0.004 (1/250) */
#define FLOW_CONSISTENCY 1.5f  /* forward + backward within 1.5 px ... */
#define FLOW_CONSISTENCY_REL 0.1f /* ... + 10% of the vector */
#define FLOW_HALF_ABOVE (1280 * 720) /* frames of more pixels: the flow of the half-size frame
                                      * (UPF_INTERPOLATE_FLOW_FULL, _HALF) */
#define RESOLVE_TOLERANCE 1.0f /* a side sees the surface: vectors within 1 px ... */
#define RESOLVE_TOLERANCE_REL 0.1f /* ... + 10% */
#define RESOLVE_SHARPNESS 6.0f /* the fetch nearer a texel centre weighs more: exp(-6 d^2) */
#define RESOLVE_SNAP 0.4f      /* vectors: positions toward their texel centres (resolve) */
#define SHADE_THRESHOLD 0.01f  /* vectors: a still pixel's 5x5 patch differs by 0.01 of linear
                                * luma on average between the frames: searched ... */
#define SHADE_RADIUS 4         /* ... +- 4 px for what moved over it (a shadow) */
_Static_assert(SHADE_RADIUS <= UPF__FG_SHADE_RADIUS_MAX, "vectors.comp's tiles");
#define STILL_THRESHOLD (2.0f / 255.0f) /* still pixels: within 2/255 (square-root light) */
#define CUT_GLOBAL 0.25f       /* a cut: the whole frame's histograms differ by a quarter ... */
#define CUT_REGIONS 0.5f       /* ... and the median region's by half */
#define CUT_LOST 0.5f          /* or more than half of the flow's vectors lost: a cut */

struct upf_interpolate {
    upf_context *ctx;
    upf_interpolate_params params;
    upf__passes passes;
    int flow_levels, pyramid_levels;
    atomic_bool in_use;
    upf_interpolate_method method;
    upf_interpolate_fallback fallback;
    double ms[UPF__FG_PASS_COUNT];
};

/* ---- the tables ------------------------------------------------------------------------- */

#define R UPF__SURFACE_INTERMEDIATE
static const upf__surface_info surfaces[UPF__FG_COUNT] = {
    [UPF__FG_COLOR_PREV] = { "color_prev", "prev_color image (frame N-1)", UPF__SURFACE_HOST,
                             UPF__SURFACE_INPUT, UPF_FMTS_COLOR, NULL },
    [UPF__FG_COLOR] = { "color", "color image (frame N)", UPF__SURFACE_HOST, UPF__SURFACE_INPUT,
                        UPF_FMTS_COLOR, NULL },
    [UPF__FG_MOTION_IN] = { "motion_in", "motion image", UPF__SURFACE_HOST, UPF__SURFACE_INPUT,
                            UPF_FMT_BIT(UPF_FORMAT_RG32F), NULL },
    [UPF__FG_DEPTH_IN] = { "depth_in", "depth image", UPF__SURFACE_HOST, UPF__SURFACE_INPUT,
                           UPF_FMT_BIT(UPF_FORMAT_R32F), NULL },
    [UPF__FG_HUD] = { "hud", "HUD layer", UPF__SURFACE_HOST, UPF__SURFACE_INPUT, UPF_FMTS_COLOR,
                      NULL },
    [UPF__FG_OUTPUT] = { "output", "output image", UPF__SURFACE_HOST, UPF__SURFACE_OUTPUT,
                         UPF_FMTS_COLOR, NULL },
    [UPF__FG_LINEAR_PREV] = { "linear_prev", "frame N-1 in linear light", UPF__SURFACE_RGBA32F,
                              R, 0, NULL },
    [UPF__FG_LINEAR] = { "linear", "frame N in linear light", UPF__SURFACE_RGBA32F, R, 0, NULL },
    [UPF__FG_LUMA_PREV] = { "luma_prev", "the luma pyramid of N-1", UPF__SURFACE_R32F, R, 0,
                            NULL },
    [UPF__FG_LUMA] = { "luma", "the luma pyramid of N", UPF__SURFACE_R32F, R, 0, NULL },
    [UPF__FG_HISTOGRAMS] = { "histograms", "the luma histograms", UPF__SURFACE_R32UI, R, 0,
                             NULL },
    [UPF__FG_MOTION] = { "motion", "the motion of N", UPF__SURFACE_RG32F, R, 0, NULL },
    [UPF__FG_PRIORITY] = { "priority", "the splat priority", UPF__SURFACE_R32UI, R, 0, NULL },
    [UPF__FG_SPLAT_PREV] = { "splat_prev", "N splatted to N-1", UPF__SURFACE_R32UI, R, 0, NULL },
    [UPF__FG_SPLAT_PREV_INDEX] = { "splat_prev_index", "N splatted to N-1 (index)",
                                   UPF__SURFACE_R32UI, R, 0, NULL },
    [UPF__FG_PREV_MOTION] = { "prev_motion", "the motion of N-1", UPF__SURFACE_RG32F, R, 0,
                              NULL },
    [UPF__FG_CAMERA] = { "camera", "the camera model", UPF__SURFACE_R32F, R, 0, NULL },
    [UPF__FG_CAMERA_SUMS] = { "camera_sums", "the camera fit's sums", UPF__SURFACE_R32F, R, 0,
                              NULL },
    [UPF__FG_SPLAT] = { "splat", "N splatted to t", UPF__SURFACE_R32UI, R, 0, NULL },
    [UPF__FG_SPLAT_INDEX] = { "splat_index", "N splatted to t (index)", UPF__SURFACE_R32UI, R,
                              0, NULL },
    [UPF__FG_SPLAT_LAND] = { "splat_land", "where each pixel landed", UPF__SURFACE_R32UI, R, 0,
                             NULL },
    [UPF__FG_MOTION_T] = { "motion_t", "the motion at t", UPF__SURFACE_RGBA32F, R, 0, NULL },
    [UPF__FG_MOTION_PYRAMID] = { "motion_pyramid", "the motion pyramid", UPF__SURFACE_RGBA32F,
                                 R, 0, NULL },
    [UPF__FG_RESOLVED] = { "resolved", "the resolved frame", UPF__SURFACE_RGBA32F, R, 0, NULL },
    [UPF__FG_COLOR_PYRAMID] = { "color_pyramid", "the colour pyramid", UPF__SURFACE_RGBA32F, R,
                                0, NULL },
    [UPF__FG_INPAINTED] = { "inpainted", "the inpainted frame", UPF__SURFACE_RGBA32F, R, 0,
                            NULL },
    [UPF__FG_SCENE] = { "scene", "the scene-change decision", UPF__SURFACE_R32F, R, 0, NULL },
    [UPF__FG_FLOW_BLOCKS] = { "flow_blocks", "the flow's block vectors", UPF__SURFACE_RG32F, R,
                              0, NULL },
    [UPF__FG_FLOW_HIST] = { "flow_hist", "the flow's vector histograms", UPF__SURFACE_R32UI, R,
                            0, NULL },
    [UPF__FG_FLOW_GLOBAL] = { "flow_global", "the flow's global motion", UPF__SURFACE_RG32F, R,
                              0, NULL },
};
#undef R

#define S UPF__SURF
static const upf__pass_info passes[UPF__FG_PASS_COUNT] = {
    [UPF__FG_PREPARE] = { "prepare", "prepare", S(UPF__FG_COLOR_PREV) | S(UPF__FG_COLOR),
                          S(UPF__FG_LINEAR_PREV) | S(UPF__FG_LINEAR) | S(UPF__FG_LUMA_PREV) |
                              S(UPF__FG_LUMA) | S(UPF__FG_HISTOGRAMS),
                          -1, sizeof(upf__fg_prepare_con), upf__fg_prepare_pass },
    [UPF__FG_SCENE_PASS] = { "scene", "scene", S(UPF__FG_HISTOGRAMS), S(UPF__FG_SCENE), -1,
                             sizeof(upf__fg_scene_con), upf__fg_scene_pass },
    [UPF__FG_VECTORS] = { "vectors", "vectors",
                          S(UPF__FG_MOTION_IN) | S(UPF__FG_DEPTH_IN) | S(UPF__FG_LINEAR_PREV) |
                              S(UPF__FG_LINEAR),
                          S(UPF__FG_MOTION) | S(UPF__FG_PRIORITY) | S(UPF__FG_SPLAT_PREV) |
                              S(UPF__FG_SPLAT_PREV_INDEX) | S(UPF__FG_SPLAT_LAND) |
                              S(UPF__FG_PREV_MOTION),
                          -1, sizeof(upf__fg_vectors_con), upf__fg_vectors_pass },
    [UPF__FG_FLOW] = { "flow", "flow", S(UPF__FG_LUMA_PREV) | S(UPF__FG_LUMA),
                       S(UPF__FG_MOTION) | S(UPF__FG_PRIORITY) | S(UPF__FG_PREV_MOTION) |
                           S(UPF__FG_FLOW_BLOCKS) | S(UPF__FG_FLOW_HIST) | S(UPF__FG_FLOW_GLOBAL) |
                           S(UPF__FG_MOTION_T) | S(UPF__FG_SPLAT_LAND), /* base 1: its up steps' */
                       -1, sizeof(upf__fg_flow_con), upf__fg_flow_pass },
    [UPF__FG_CAMERA_PASS] = { "camera", "camera", S(UPF__FG_MOTION),
                              S(UPF__FG_CAMERA) | S(UPF__FG_CAMERA_SUMS), -1,
                              sizeof(upf__fg_camera_con), upf__fg_camera_pass },
    [UPF__FG_SPLAT_PASS] = { "splat", "splat",
                             S(UPF__FG_MOTION) | S(UPF__FG_PRIORITY) | S(UPF__FG_CAMERA),
                             S(UPF__FG_SPLAT) | S(UPF__FG_SPLAT_INDEX) | S(UPF__FG_SPLAT_LAND), -1,
                             sizeof(upf__fg_splat_con), upf__fg_splat_pass },
    [UPF__FG_FILL] = { "fill", "fill",
                       S(UPF__FG_SPLAT) | S(UPF__FG_SPLAT_INDEX) | S(UPF__FG_MOTION) |
                           S(UPF__FG_CAMERA),
                       S(UPF__FG_MOTION_T) | S(UPF__FG_MOTION_PYRAMID), -1,
                       sizeof(upf__fg_fill_con), upf__fg_fill_pass },
    [UPF__FG_RESOLVE] = { "resolve", "resolve",
                          S(UPF__FG_LINEAR_PREV) | S(UPF__FG_LINEAR) | S(UPF__FG_MOTION_T) |
                              S(UPF__FG_MOTION) | S(UPF__FG_PREV_MOTION) | S(UPF__FG_CAMERA) |
                              S(UPF__FG_SCENE),
                          S(UPF__FG_RESOLVED), -1, sizeof(upf__fg_resolve_con),
                          upf__fg_resolve_pass },
    [UPF__FG_INPAINT] = { "inpaint", "inpaint", S(UPF__FG_RESOLVED),
                          S(UPF__FG_COLOR_PYRAMID) | S(UPF__FG_INPAINTED), -1,
                          sizeof(upf__fg_inpaint_con), upf__fg_inpaint_pass },
    [UPF__FG_COMPOSE] = { "compose", "compose",
                          S(UPF__FG_INPAINTED) | S(UPF__FG_LINEAR_PREV) | S(UPF__FG_LINEAR) |
                              S(UPF__FG_HUD),
                          S(UPF__FG_OUTPUT), -1, sizeof(upf__fg_compose_con),
                          upf__fg_compose_pass },
    [UPF__FG_CUT] = { "cut", "cut", S(UPF__FG_PRIORITY) | S(UPF__FG_SCENE), S(UPF__FG_SCENE), -1,
                      sizeof(upf__fg_cut_con), upf__fg_cut_pass },
};
#undef S

const char *upf_interpolate_pass_name(upf_interpolate_pass pass)
{
    return (int)pass >= 0 && pass < UPF_INTERPOLATE_PASS_COUNT ? passes[pass].name : "unknown";
}

const char *upf_interpolate_fallback_name(upf_interpolate_fallback f)
{
    static const char *const names[] = { "none", "asked", "reset", "not consecutive",
                                         "missing input", "scene change" };
    return (int)f >= 0 && f <= UPF_INTERPOLATE_FALLBACK_SCENE_CHANGE ? names[f] : "unknown";
}

/* ---- making --------------------------------------------------------------------------- */

void upf_interpolate_destroy(upf_interpolate **pe)
{
    if (!pe || !*pe)
        return;
    upf_interpolate *e = *pe;
    upf_context *ctx = e->ctx;
    upf__passes_free(&e->passes);
    upf__free(ctx, e);
    *pe = NULL;
}

/* The flow's first level of the frame's pyramid (upf__fg_flow_con.base): 1 (the half-size
 * frame) above FLOW_HALF_ABOVE pixels or with UPF_INTERPOLATE_FLOW_HALF, 0 with _FLOW_FULL;
 * 0 where the pyramid has a single level. */
static int flow_base(const upf_interpolate_params *p, int flow_levels)
{
    if (flow_levels < 2 || (p->flags & UPF_INTERPOLATE_FLOW_FULL))
        return 0;
    return (p->flags & UPF_INTERPOLATE_FLOW_HALF) ||
           (long)p->width * p->height > FLOW_HALF_ABOVE;
}

static void plan(upf__passes *ps, const upf_interpolate_params *p, int flow_levels,
                 int pyramid_levels, int threads)
{
    const int W = p->width, H = p->height, base = flow_base(p, flow_levels);
    const int fw = upf__fg_level_size(W, base), fh = upf__fg_level_size(H, base);
    for (int i = 0; i < UPF__FG_COUNT; i++) {
        ps->surface[i].width = W;
        ps->surface[i].height = H;
    }
    ps->surface[UPF__FG_MOTION_IN].width = ps->surface[UPF__FG_DEPTH_IN].width = p->motion_width;
    ps->surface[UPF__FG_MOTION_IN].height = ps->surface[UPF__FG_DEPTH_IN].height =
        p->motion_height;
    const bool flow = p->motion != UPF_INTERPOLATE_MOTION_VECTORS &&
                      p->motion != UPF_INTERPOLATE_MOTION_BLEND;
    const bool vectors = p->motion == UPF_INTERPOLATE_MOTION_AUTO ||
                         p->motion == UPF_INTERPOLATE_MOTION_VECTORS;
    const int lrows = upf__fg_atlas_rows(H, base, flow_levels); /* the flow's levels */
    ps->surface[UPF__FG_LUMA_PREV].height = ps->surface[UPF__FG_LUMA].height = flow ? lrows : 0;
    ps->surface[UPF__FG_LUMA_PREV].width = ps->surface[UPF__FG_LUMA].width = flow ? fw : 0;
    if (!vectors)
        for (int i = UPF__FG_SPLAT_PREV; i <= UPF__FG_SPLAT_PREV_INDEX; i++)
            ps->surface[i].width = ps->surface[i].height = 0;
    ps->surface[UPF__FG_HISTOGRAMS].width = 2 * UPF__FG_HIST_REGIONS * UPF__FG_HIST_BINS;
    ps->surface[UPF__FG_HISTOGRAMS].height = 1;
    ps->surface[UPF__FG_CAMERA].width = UPF__FG_CAMERA_FLOATS;
    ps->surface[UPF__FG_CAMERA].height = 1;
    int step, gw, gh;
    upf__fg_camera_grid(W, H, &step, &gw, &gh);
    ps->surface[UPF__FG_CAMERA_SUMS].width = vectors || flow ? UPF__FG_CAMERA_ROW : 0;
    ps->surface[UPF__FG_CAMERA_SUMS].height = vectors || flow ? upf__fg_camera_blocks(gw, gh) : 0;
    ps->surface[UPF__FG_SCENE].width = 4;
    ps->surface[UPF__FG_SCENE].height = 1;
    int bw, bh;
    upf__fg_flow_sizes(fw, fh, &bw, &bh);
    ps->surface[UPF__FG_FLOW_BLOCKS].width = flow ? bw : 0;
    ps->surface[UPF__FG_FLOW_BLOCKS].height = flow ? bh : 0;
    ps->surface[UPF__FG_FLOW_HIST].width = flow ? UPF__FG_FLOW_BINS : 0;
    ps->surface[UPF__FG_FLOW_HIST].height = flow ? 4 : 0;
    ps->surface[UPF__FG_FLOW_GLOBAL].width = flow ? 2 : 0;
    ps->surface[UPF__FG_FLOW_GLOBAL].height = flow ? 1 : 0;
    const int prow = pyramid_levels > 1 ? upf__fg_atlas_rows(H, 1, pyramid_levels) : 1;
    ps->surface[UPF__FG_MOTION_PYRAMID].height = prow;
    ps->surface[UPF__FG_COLOR_PYRAMID].height = prow;
    ps->scratch_bytes[UPF__FG_PREPARE] = upf__fg_prepare_scratch_bytes(W, H, flow ? base : 0);
    ps->scratch_bytes[UPF__FG_VECTORS] = vectors ? upf__fg_vectors_scratch_bytes(threads, W, H)
                                                 : 0;
    ps->scratch_bytes[UPF__FG_COMPOSE] = upf__fg_compose_scratch_bytes(threads, W, H);
}

static void constants(upf__passes *ps, const upf_interpolate_params *p, int flow_levels,
                      int pyramid_levels)
{
    const int W = p->width, H = p->height, base = flow_base(p, flow_levels);
    *(upf__fg_prepare_con *)ps->con[UPF__FG_PREPARE] = (upf__fg_prepare_con){ W, H, 0, base };
    *(upf__fg_scene_con *)ps->con[UPF__FG_SCENE_PASS] =
        (upf__fg_scene_con){ 0, CUT_GLOBAL, CUT_REGIONS };
    *(upf__fg_cut_con *)ps->con[UPF__FG_CUT] = (upf__fg_cut_con){ W, H, 0, CUT_LOST };
    upf__fg_camera_con *cc = ps->con[UPF__FG_CAMERA_PASS];
    cc->width = W, cc->height = H;
    upf__fg_camera_grid(W, H, &cc->step, &cc->grid_w, &cc->grid_h);
    cc->near = UPF__FG_CAMERA_NEAR, cc->spread = UPF__FG_CAMERA_SPREAD;
    const bool uv = p->flags & UPF_INTERPOLATE_MOTION_UV;
    const double sx = p->motion_scale_x == 0.0 ? 1.0 : p->motion_scale_x;
    const double sy = p->motion_scale_y == 0.0 ? 1.0 : p->motion_scale_y;
    *(upf__fg_vectors_con *)ps->con[UPF__FG_VECTORS] = (upf__fg_vectors_con){
        W, H, p->motion_width, p->motion_height,
        (float)(sx * (uv ? p->motion_width : 1) * W / p->motion_width),
        (float)(sy * (uv ? p->motion_height : 1) * H / p->motion_height),
        (p->flags & UPF_INTERPOLATE_DEPTH_REVERSED) != 0, SHADE_THRESHOLD, SHADE_RADIUS };
    *(upf__fg_flow_con *)ps->con[UPF__FG_FLOW] = (upf__fg_flow_con){
        upf__fg_level_size(W, base), upf__fg_level_size(H, base), flow_levels - base,
        FLOW_RADIUS_COARSE, FLOW_RADIUS, FLOW_RADIUS_FINE, FLOW_REFINE, FLOW_PENALTY, FLOW_FLAT,
        /* the check on the half-size frame: the same 1.5 pixels of the frame */
        base ? 0.5f * FLOW_CONSISTENCY : FLOW_CONSISTENCY, FLOW_CONSISTENCY_REL, base, W, H };
    *(upf__fg_splat_con *)ps->con[UPF__FG_SPLAT_PASS] = (upf__fg_splat_con){ W, H, 0.5f, 0 };
    *(upf__fg_fill_con *)ps->con[UPF__FG_FILL] = (upf__fg_fill_con){ W, H, pyramid_levels, 0 };
    *(upf__fg_resolve_con *)ps->con[UPF__FG_RESOLVE] = (upf__fg_resolve_con){
        W, H, 0.5f, 0, 1, RESOLVE_TOLERANCE, RESOLVE_TOLERANCE_REL, RESOLVE_SHARPNESS,
        RESOLVE_SNAP };
    *(upf__fg_inpaint_con *)ps->con[UPF__FG_INPAINT] =
        (upf__fg_inpaint_con){ W, H, pyramid_levels };
    *(upf__fg_compose_con *)ps->con[UPF__FG_COMPOSE] = (upf__fg_compose_con){
        W, H, 0.5f, 0, (p->flags & UPF_INTERPOLATE_NO_STILL_RULE) == 0, STILL_THRESHOLD };
}

/* Checks the params as upf_interpolate_create documents; *out the params with their
 * defaults filled. */
static upf_result check_params(upf_context *ctx, const char *fn,
                               const upf_interpolate_params *params, upf_interpolate_params *out)
{
    if (!params)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the "
                         "frames' size", fn);
    upf_interpolate_params p = *params;
    if (p.width < 1 || p.width > UPF_MAX_IMAGE_DIMENSION || p.height < 1 ||
        p.height > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: size %dx%d; expected 1..%d on "
                         "each side", fn, p.width, p.height, UPF_MAX_IMAGE_DIMENSION);
    if (!p.motion_width && !p.motion_height)
        p.motion_width = p.width, p.motion_height = p.height;
    if (p.motion_width < 1 || p.motion_width > p.width || p.motion_height < 1 ||
        p.motion_height > p.height)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: motion size %dx%d for frames of "
                         "%dx%d; expected 1 up to the frames' size on each side (0x0: the "
                         "frames' size)", fn, params->motion_width, params->motion_height,
                         p.width, p.height);
    if ((unsigned)p.motion > UPF_INTERPOLATE_MOTION_BLEND)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: motion %d; expected "
                         "UPF_INTERPOLATE_MOTION_AUTO, _VECTORS, _FLOW or _BLEND", fn,
                         (int)p.motion);
    if (!isfinite(p.motion_scale_x) || !isfinite(p.motion_scale_y))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: motion scale (%g, %g); expected "
                         "finite values (0: 1)", fn, p.motion_scale_x, p.motion_scale_y);
    const unsigned known = UPF_INTERPOLATE_MOTION_UV | UPF_INTERPOLATE_DEPTH_REVERSED |
                           UPF_INTERPOLATE_NO_STILL_RULE | UPF_INTERPOLATE_FLOW_FULL |
                           UPF_INTERPOLATE_FLOW_HALF;
    if (p.flags & ~known)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: unknown flags 0x%x (expected "
                         "UPF_INTERPOLATE_MOTION_UV, _DEPTH_REVERSED, _NO_STILL_RULE, _FLOW_FULL, "
                         "_FLOW_HALF)", fn, p.flags & ~known);
    if ((p.flags & UPF_INTERPOLATE_FLOW_FULL) && (p.flags & UPF_INTERPOLATE_FLOW_HALF))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: flags UPF_INTERPOLATE_FLOW_FULL "
                         "and _FLOW_HALF together; expected one of them at most", fn);
    upf_result r = upf__check_pixels(ctx, fn, "the frame size", p.width, p.height);
    if (r == UPF_OK)
        *out = p;
    return r;
}

upf_result upf__interpolate_describe(upf_context *ctx, const char *fn,
                                     const upf_interpolate_params *params, upf__passes *ps,
                                     upf__interpolate_plan *plan_out)
{
    upf__interpolate_plan pl;
    upf_result r = check_params(ctx, fn, params, &pl.params);
    if (r != UPF_OK)
        return r;
    const upf_interpolate_params *p = &pl.params;
    pl.flow_levels = UPF_MIN(upf__fg_levels(p->width, p->height, FLOW_LEAST), FLOW_LEVELS_MAX);
    pl.pyramid_levels = upf__fg_levels(p->width, p->height, 1);
    r = upf__passes_init(ps, ctx, passes, UPF__FG_PASS_COUNT, surfaces, UPF__FG_COUNT, NULL);
    if (r != UPF_OK)
        return r;
    plan(ps, p, pl.flow_levels, pl.pyramid_levels, UPF_MAX(upf_context_threads(ctx), 1));
    constants(ps, p, pl.flow_levels, pl.pyramid_levels);
    *plan_out = pl;
    return UPF_OK;
}

upf_interpolate *upf_interpolate_create(upf_context *ctx, const upf_interpolate_params *params)
{
    static const char fn[] = "upf_interpolate_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    upf__interpolate_plan pl;
    upf__passes ps;
    memset(&ps, 0, sizeof ps);
    if (upf__interpolate_describe(ctx, fn, params, &ps, &pl) != UPF_OK) {
        upf__passes_free(&ps);
        return NULL;
    }
    upf_interpolate *e = upf__alloc(ctx, sizeof *e, "the frame generation engine");
    if (!e) {
        upf__passes_free(&ps);
        return NULL;
    }
    memset(e, 0, sizeof *e);
    e->ctx = ctx;
    e->params = pl.params;
    atomic_init(&e->in_use, false);
    e->flow_levels = pl.flow_levels;
    e->pyramid_levels = pl.pyramid_levels;
    e->passes = ps;
    if (upf__passes_alloc(&e->passes) != UPF_OK)
        goto fail;
    const upf_interpolate_params *p = &e->params;
    upf__log(ctx, UPF_LOG_DEBUG, "%s: frame generation %dx%d (motion %dx%d), %d flow levels, "
             "%zu bytes", fn, p->width, p->height, p->motion_width, p->motion_height,
             e->flow_levels, upf__passes_bytes(&e->passes));
    return e;
fail:
    upf_interpolate_destroy(&e);
    return NULL;
}

/* ---- running ----------------------------------------------------------------------------- */

/* The camera's homography from the host's view-projections (the camera pass's `g`): the
 * points at infinity, a direction D, project to clip (x, y, w) = A D with A rows 0, 1, 3 and
 * columns 0..2 of projection * view, so N's (x, y, w) maps to N-1's by A_prev A^-1 (Hartley
 * and Zisserman, 8.4.2, the infinite homography); conjugated by the map from the camera's
 * normalised coordinates (centre, half the larger side) to NDC. Computed on the host, as a
 * pass's constants are. */
upf_result upf__fg_camera_from_matrices(upf_context *ctx, const char *fn, int width,
                                       int height, const double *view_projection,
                                       const double *prev_view_projection, int ndc_y_down,
                                       float g[9])
{
    const double *m[2] = { view_projection, prev_view_projection };
    static const char *const name[2] = { "view_projection", "prev_view_projection" };
    double a[2][9], inv[9];
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 16; i++)
            if (!isfinite(m[k][i]))
                return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames %s[%d] is %g; "
                                 "expected finite values", fn, name[k], i, m[k][i]);
        static const int rows[3] = { 0, 1, 3 };
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 3; col++)
                a[k][3 * r + col] = m[k][4 * rows[r] + col];
    }
    const double *x = a[0];
    const double det = x[0] * (x[4] * x[8] - x[5] * x[7]) - x[1] * (x[3] * x[8] - x[5] * x[6]) +
                       x[2] * (x[3] * x[7] - x[4] * x[6]);
    double scale = 0.0;
    for (int i = 0; i < 9; i++)
        scale = fmax(scale, fabs(x[i]));
    if (!(fabs(det) > 1e-9 * scale * scale * scale))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames view_projection maps "
                         "directions to a plane (rows 0, 1 and 3 of its columns 0..2 are "
                         "singular); expected a perspective projection times a view", fn);
    const double adj[9] = { x[4] * x[8] - x[5] * x[7], x[2] * x[7] - x[1] * x[8],
                            x[1] * x[5] - x[2] * x[4], x[5] * x[6] - x[3] * x[8],
                            x[0] * x[8] - x[2] * x[6], x[2] * x[3] - x[0] * x[5],
                            x[3] * x[7] - x[4] * x[6], x[1] * x[6] - x[0] * x[7],
                            x[0] * x[4] - x[1] * x[3] };
    for (int i = 0; i < 9; i++)
        inv[i] = adj[i] / det;
    const double W = width, H = height, s = 0.5 * fmax(W, H);
    const double dn[3] = { 2.0 * s / W, (ndc_y_down ? 2.0 : -2.0) * s / H, 1.0 };
    for (int r = 0; r < 3; r++)
        for (int col = 0; col < 3; col++) {
            double v = 0.0;
            for (int k = 0; k < 3; k++)
                v += a[1][3 * r + k] * inv[3 * k + col];
            g[3 * r + col] = (float)(v * dn[col] / dn[r]); /* D^-1 G D */
        }
    return UPF_OK;
}

void upf__interpolate_method(upf_interpolate_motion motion, bool motion_given, bool depth_given,
                             int reset, int64_t prev_id, int64_t id,
                             upf_interpolate_method *method, upf_interpolate_fallback *why)
{
    *method = UPF_INTERPOLATE_USED_FLOW;
    *why = UPF_INTERPOLATE_FALLBACK_NONE;
    const bool has_v = motion_given && depth_given, half = motion_given != depth_given;
    switch (motion) {
    case UPF_INTERPOLATE_MOTION_AUTO:
        if (has_v)
            *method = UPF_INTERPOLATE_USED_VECTORS;
        else if (half)
            *why = UPF_INTERPOLATE_FALLBACK_MISSING_INPUT;
        break;
    case UPF_INTERPOLATE_MOTION_VECTORS:
        *method = UPF_INTERPOLATE_USED_VECTORS;
        if (!has_v)
            *why = UPF_INTERPOLATE_FALLBACK_MISSING_INPUT;
        break;
    case UPF_INTERPOLATE_MOTION_FLOW:
        break;
    case UPF_INTERPOLATE_MOTION_BLEND:
        *why = UPF_INTERPOLATE_FALLBACK_ASKED;
        break;
    }
    if (reset)
        *why = UPF_INTERPOLATE_FALLBACK_RESET;
    else if (prev_id == INT64_MAX || id != prev_id + 1) /* no overflow */
        *why = UPF_INTERPOLATE_FALLBACK_NOT_CONSECUTIVE;
}

static upf_result check_phase(upf_context *ctx, const char *fn, double t, int k)
{
    if (!(t > 0.0 && t < 1.0))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: phase %d is %g; expected t "
                         "strictly between 0 (frame N-1) and 1 (frame N)", fn, k, t);
    return UPF_OK;
}

static void add_ms(upf_interpolate *e, int first, int last)
{
    for (int i = first; i <= last; i++)
        e->ms[i] += e->passes.ms[i];
}

static upf_result run_phases(upf_interpolate *e, const char *fn, const upf_interpolate_frames *f,
                             int count, const double *phases, const upf_image *const *outputs)
{
    upf_context *ctx = e->ctx;
    upf__passes *ps = &e->passes;
    const upf_interpolate_params *p = &e->params;
    if (!f->prev_color || !f->color)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames %s is NULL; expected "
                         "frame %s at %dx%d", fn, !f->prev_color ? "prev_color" : "color",
                         !f->prev_color ? "N-1" : "N", p->width, p->height);
    for (int k = 0; k < count; k++) {
        upf_result r = check_phase(ctx, fn, phases[k], k);
        if (r != UPF_OK)
            return r;
        if (!outputs[k])
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: output %d is NULL; expected "
                             "an image of %dx%d", fn, k, p->width, p->height);
    }
    upf_interpolate_method method;
    upf_interpolate_fallback why;
    upf__interpolate_method(p->motion, f->motion != NULL, f->depth != NULL, f->reset,
                            f->prev_id, f->id, &method, &why);

    const upf_image *images[UPF__FG_COUNT] = { 0 };
    images[UPF__FG_COLOR_PREV] = f->prev_color;
    images[UPF__FG_COLOR] = f->color;
    /* every given image is checked, used or not: a wrong size is an error, not a blend */
    images[UPF__FG_MOTION_IN] = f->motion;
    images[UPF__FG_DEPTH_IN] = f->depth;
    images[UPF__FG_HUD] = f->hud ? f->hud : f->prev_hud;
    images[UPF__FG_OUTPUT] = outputs[0];
    if (f->hud && f->prev_hud) {
        /* check the other HUD layer's size too */
        upf_result r = upf__check_image(ctx, fn, "prev_hud image", f->prev_hud, UPF_FMTS_COLOR,
                                        p->width, p->height);
        if (r != UPF_OK)
            return r;
    }
    for (int k = 1; k < count; k++) {
        upf_result r = upf__check_image(ctx, fn, "output image", outputs[k], UPF_FMTS_COLOR,
                                        p->width, p->height);
        if (r != UPF_OK)
            return r;
    }
    if (why == UPF_INTERPOLATE_FALLBACK_NONE && method == UPF_INTERPOLATE_USED_FLOW &&
        !ps->surface[UPF__FG_LUMA].data)
        why = UPF_INTERPOLATE_FALLBACK_MISSING_INPUT; /* cannot happen: flow is planned */
    if (why == UPF_INTERPOLATE_FALLBACK_NONE && method == UPF_INTERPOLATE_USED_VECTORS &&
        !ps->surface[UPF__FG_SPLAT_PREV].data)
        why = UPF_INTERPOLATE_FALLBACK_MISSING_INPUT;
    if ((f->view_projection != NULL) != (f->prev_view_projection != NULL))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames %s is given without %s; "
                         "expected both cameras or neither", fn,
                         f->view_projection ? "view_projection" : "prev_view_projection",
                         f->view_projection ? "prev_view_projection" : "view_projection");
    upf__fg_camera_con *cc = ps->con[UPF__FG_CAMERA_PASS];
    cc->given = f->view_projection != NULL;
    if (cc->given) {
        upf_result r = upf__fg_camera_from_matrices(ctx, fn, p->width, p->height,
                                                    f->view_projection,
                                                    f->prev_view_projection, f->ndc_y_down,
                                                    cc->g);
        if (r != UPF_OK)
            return r;
    }
    const bool flow = why == UPF_INTERPOLATE_FALLBACK_NONE && method == UPF_INTERPOLATE_USED_FLOW;
    memset(e->ms, 0, sizeof e->ms);
    ((upf__fg_prepare_con *)ps->con[UPF__FG_PREPARE])->levels = flow ? e->flow_levels : 0;
    ((upf__fg_scene_con *)ps->con[UPF__FG_SCENE_PASS])->enabled = flow;
    upf_result r = upf__passes_run(ps, fn, images, UPF__FG_PREPARE, UPF__FG_SCENE_PASS);
    if (r != UPF_OK)
        return r;
    add_ms(e, UPF__FG_PREPARE, UPF__FG_SCENE_PASS);
    if (why == UPF_INTERPOLATE_FALLBACK_NONE) {
        const bool vec = method == UPF_INTERPOLATE_USED_VECTORS;
        const int pass = vec ? UPF__FG_VECTORS : UPF__FG_FLOW;
        /* the flow's camera is fitted to its vectors (the host's matrices come with game
         * vectors), with the flow's tolerance */
        cc->fit = !vec || !cc->given;
        cc->given = vec && cc->given;
        cc->near = vec ? UPF__FG_CAMERA_NEAR : UPF__FG_CAMERA_NEAR_FLOW;
        cc->spread = vec ? UPF__FG_CAMERA_SPREAD : UPF__FG_CAMERA_SPREAD_FLOW;
        r = upf__passes_run(ps, fn, images, pass, pass);
        if (r != UPF_OK)
            return r;
        add_ms(e, pass, pass);
        /* the flow's cut decision, into the scene surface (its time in the flow's) */
        ((upf__fg_cut_con *)ps->con[UPF__FG_CUT])->enabled = !vec;
        r = upf__passes_run(ps, fn, images, UPF__FG_CUT, UPF__FG_CUT);
        if (r != UPF_OK)
            return r;
        e->ms[UPF__FG_FLOW] += vec ? 0.0 : ps->ms[UPF__FG_CUT];
        r = upf__passes_run(ps, fn, images, UPF__FG_CAMERA_PASS, UPF__FG_CAMERA_PASS);
        if (r != UPF_OK)
            return r;
        add_ms(e, UPF__FG_CAMERA_PASS, UPF__FG_CAMERA_PASS);
    } else {
        method = UPF_INTERPOLATE_USED_BLEND;
        const bool warn = why == UPF_INTERPOLATE_FALLBACK_MISSING_INPUT ||
                          why == UPF_INTERPOLATE_FALLBACK_NOT_CONSECUTIVE;
        if (why == UPF_INTERPOLATE_FALLBACK_NOT_CONSECUTIVE)
            upf__log(ctx, UPF_LOG_WARN, "%s: frame ids %lld and %lld are not consecutive: the "
                     "blend, not a frame made against a stale one", fn, (long long)f->prev_id,
                     (long long)f->id);
        else if (why == UPF_INTERPOLATE_FALLBACK_MISSING_INPUT)
            upf__log(ctx, UPF_LOG_WARN, "%s: %s given without %s: the blend", fn,
                     f->motion ? "motion" : f->depth ? "depth" : "no motion vectors",
                     f->motion ? "depth" : f->depth ? "motion" : "(UPF_INTERPOLATE_MOTION_"
                     "VECTORS asks for them)");
        else
            upf__log(ctx, warn ? UPF_LOG_WARN : UPF_LOG_INFO, "%s: %s: the blend", fn,
                     why == UPF_INTERPOLATE_FALLBACK_RESET ? "reset"
                     : why == UPF_INTERPOLATE_FALLBACK_SCENE_CHANGE
                         ? "a scene change between the frames"
                         : "the blend was asked for");
    }
    const bool blend = method == UPF_INTERPOLATE_USED_BLEND;
    ps->enabled[UPF__FG_SPLAT_PASS] = ps->enabled[UPF__FG_FILL] = !blend;
    for (int k = 0; k < count && r == UPF_OK; k++) {
        const float t = (float)phases[k];
        ((upf__fg_splat_con *)ps->con[UPF__FG_SPLAT_PASS])->shift = 1.0f - t;
        ((upf__fg_splat_con *)ps->con[UPF__FG_SPLAT_PASS])->flow =
            method == UPF_INTERPOLATE_USED_FLOW;
        upf__fg_resolve_con *rc = ps->con[UPF__FG_RESOLVE];
        rc->t = t;
        rc->blend = blend;
        rc->visibility = method == UPF_INTERPOLATE_USED_VECTORS;
        ((upf__fg_fill_con *)ps->con[UPF__FG_FILL])->flow_rank =
            method == UPF_INTERPOLATE_USED_FLOW;
        upf__fg_compose_con *co = ps->con[UPF__FG_COMPOSE];
        co->t = t;
        const upf_image *hud = f->hud && f->prev_hud ? (t < 0.5f ? f->prev_hud : f->hud)
                                                     : f->hud ? f->hud : f->prev_hud;
        co->hud = hud != NULL;
        const upf_image *ph[UPF__FG_COUNT] = { 0 };
        ph[UPF__FG_HUD] = hud;
        ph[UPF__FG_OUTPUT] = outputs[k];
        r = upf__passes_run(ps, fn, ph, UPF__FG_SPLAT_PASS, UPF__FG_COMPOSE);
        if (r == UPF_OK)
            add_ms(e, UPF__FG_SPLAT_PASS, UPF__FG_COMPOSE);
    }
    ps->enabled[UPF__FG_SPLAT_PASS] = ps->enabled[UPF__FG_FILL] = true;
    if (r == UPF_OK && flow) {
        /* what the scene pass decided and the resolve took (read after the frame, to report) */
        const float *sc = ps->surface[UPF__FG_SCENE].data;
        upf__log(ctx, UPF_LOG_DEBUG, "%s: histogram distance %.3f, median region %.3f, "
                 "flow vectors lost %.3f", fn, sc[1], sc[2], sc[3]);
        if (sc[0] != 0.0f) {
            method = UPF_INTERPOLATE_USED_BLEND;
            why = UPF_INTERPOLATE_FALLBACK_SCENE_CHANGE;
            if (sc[0] == 2.0f)
                upf__log(ctx, UPF_LOG_INFO, "%s: a cut between two shots (%.0f%% of the optical "
                         "flow's vectors fail its forward/backward check; a cut: over %.0f%%): "
                         "the blend", fn, 100.0 * sc[3], 100.0 * CUT_LOST);
            else
                upf__log(ctx, UPF_LOG_INFO, "%s: a scene change between the frames: the blend",
                         fn);
        }
    }
    if (r == UPF_OK) {
        e->method = method;
        e->fallback = why;
    }
    return r;
}

static upf_result enter_and_run(upf_interpolate *e, const char *fn,
                                const upf_interpolate_frames *frames, int count,
                                const double *phases, const upf_image *const *outputs)
{
    upf_result r = upf__enter(e->ctx, &e->in_use, fn, "the frame generation engine");
    if (r != UPF_OK)
        return r;
    r = run_phases(e, fn, frames, count, phases, outputs);
    upf__leave(&e->in_use);
    return r;
}

upf_result upf_interpolate_run(upf_interpolate *e, const upf_interpolate_frames *frames,
                               double t, const upf_image *output)
{
    static const char fn[] = "upf_interpolate_run";
    if (!e)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(e->ctx);
    if (!frames)
        return upf__fail(e->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames is NULL", fn);
    if (!output)
        return upf__fail(e->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: output image is NULL", fn);
    if (!(t > 0.0 && t < 1.0))
        return upf__fail(e->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: phase t = %g; expected t "
                         "strictly between 0 (frame N-1) and 1 (frame N)", fn, t);
    return enter_and_run(e, fn, frames, 1, &t, &output);
}

upf_result upf_interpolate_run_factor(upf_interpolate *e, const upf_interpolate_frames *frames,
                                      int factor, const upf_image *const *outputs)
{
    static const char fn[] = "upf_interpolate_run_factor";
    if (!e)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(e->ctx);
    if (!frames || !outputs)
        return upf__fail(e->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                         !frames ? "frames" : "outputs");
    if (factor < 2 || factor > UPF_INTERPOLATE_FACTOR_MAX)
        return upf__fail(e->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: factor %d; expected 2..%d "
                         "(factor - 1 frames made between each pair)", fn, factor,
                         UPF_INTERPOLATE_FACTOR_MAX);
    double phases[UPF_INTERPOLATE_FACTOR_MAX];
    for (int k = 1; k < factor; k++)
        phases[k - 1] = (double)k / factor;
    return enter_and_run(e, fn, frames, factor - 1, phases, outputs);
}

upf_result upf_interpolate_last_method(const upf_interpolate *e, upf_interpolate_method *method,
                                       upf_interpolate_fallback *fallback)
{
    if (!e)
        return UPF_ERROR_INVALID_ARGUMENT;
    if (method)
        *method = e->method;
    if (fallback)
        *fallback = e->fallback;
    return UPF_OK;
}

upf_result upf_interpolate_timings(const upf_interpolate *e, double ms[UPF_INTERPOLATE_PASS_COUNT])
{
    if (!e || !ms)
        return UPF_ERROR_INVALID_ARGUMENT;
    memcpy(ms, e->ms, sizeof(double) * UPF_INTERPOLATE_PASS_COUNT);
    return UPF_OK;
}

const upf__passes *upf__interpolate_passes(const upf_interpolate *e)
{
    return &e->passes;
}
