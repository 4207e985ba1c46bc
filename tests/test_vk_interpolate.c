/* test_vk_interpolate.c: frame generation on the GPU through its public API
 * (upf_vk_interpolate_*, src/vk/vk_framegen.c) against the CPU engine (upf_interpolate_run on
 * the same inputs), on lavapipe with the validation layer and synchronization validation (any
 * message fails).
 *
 * Pairs rendered by the scene renderer (courtyard, 64 x 40, reversed depth, its own vectors,
 * depth, HUD layer and matrices), RGBA32F colours, RG32F vectors, R32F depth sampled images,
 * RGBA32F storage outputs; each made frame within a mean absolute difference of 0.001 of
 * the CPU's (printed):
 *   turn, factor 3 (t = 1/3, 2/3), vectors and depth (the camera fitted on the GPU);
 *   turn, factor 3, with the frames' view-projections (the camera from the matrices);
 *   turn, factor 8 (seven phases in one record);
 *   pan, factor 2;
 *   pan, factor 3 with both HUD layers over HUD-less colours (N-1's at 1/3, N's at 2/3; N-1's
 *   colours inverted so that each phase must take its own);
 *   motion without depth, and neither (UPF_VK_MOTION_VECTORS): the blend;
 *   ids not consecutive: the blend; reset: the blend;
 *   a cut (frames of the turn and of the walk, unrelated): as the CPU (with game vectors the
 *   host says reset: the scene pass decides only for the flow);
 *   the optical flow (engines for UPF_VK_MOTION_FLOW and _BOTH against the CPU's _FLOW and
 *   _AUTO): turn at factor 3 and pan at 2 without vectors, the both engine with vectors (the
 *   vectors' frame) and without (the flow's), the flow engine given vectors (ignored), and
 *   the cut, where the flow path's scene pass blends, and two shots of one map (the forest's
 *   cut), which only the flow's cut pass blends, then the turn through the same engine (not
 *   a cut: the cut pass's counter zeroed between pairs);
 *   two records before a wait (frames in flight 2, factor 3), different pairs: both right;
 *   and timings (per pass, summed over the phases) after the wait;
 *   8-bit sRGB colours and HUD layers (an SRGB view, UNORM views with srgb = 1) into RGBA8
 *   outputs with srgb = 1, against the CPU on RGBA8_SRGB images;
 *   vectors and depth at a render size (32x20, UV units) for 64x40 frames;
 *   depth in a D32_SFLOAT image (its depth aspect) left in DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
 *   half floats: RGBA16F colours and outputs, RG16F vectors, R16F depth.
 * The blend cases are also checked to differ from the vectors' frame on the same pair, so a
 * backend that ignored the host's decision would fail.
 * Bad input (test_bad_input): create's params, then records that must fail with a clear
 * message and record nothing (formats, usage, sizes, layouts, NULL handles, phases 0, 1,
 * NaN, more than max_factor - 1, output count != phase count, a camera without the other,
 * a non-finite matrix); the same command buffer then records a good pair, is submitted and
 * its frame is right. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "vk_test_util.h"

#include "core/color.h"
#include "framegen/framegen_passes.h"
#include "scene/scene.h"
#include "sequence/sequence.h"

#define W 64
#define H 40
#define N (W * H)

/* A rendered pair: N-1 (a) and N (b), HUD-less colours and HUD layers, N's vectors, depth
 * and the two view-projections. */
typedef struct pair {
    float a[4 * N], b[4 * N], hud_a[4 * N], hud_b[4 * N], mv[2 * N], depth[N];
    double vp[16], prev_vp[16];
} pair;

/* Frames n - 1 and n of `path` (n2 of path2 for N when path2 is set: a cut). */
static bool render_pair(scene *sc, const char *path, int n, const char *path2, pair *p)
{
    scene_camera cam;
    const scene_buffers ba = { p->a, p->hud_a, NULL, NULL };
    const scene_buffers bb = { p->b, p->hud_b, p->depth, p->mv };
    if (scene_render(sc, scene_view_params(.path = path, .time = (n - 1) / 30.0, .width = W,
                                           .height = H), &ba, NULL) != UPF_OK ||
        scene_render(sc, scene_view_params(.path = path2 ? path2 : path, .time = n / 30.0,
                                           .width = W, .height = H), &bb, &cam) != UPF_OK)
        return false;
    seq_mat4_mul(cam.proj, cam.view, p->vp);
    seq_mat4_mul(cam.prev_proj, cam.prev_view, p->prev_vp);
    return true;
}

/* ---- device images ------------------------------------------------------------------------ */

static vkt_image sampled_image(vkt *t, VkFormat format, size_t bytes, const void *data)
{
    return vkt_sampled_image(t, W, H, format, bytes, data);
}

/* A pair on the device. */
typedef struct dev_pair {
    vkt_image a, b, hud_a, hud_b, mv, depth;
    upf_vk_image la, lb, lha, lhb, lmv, ldepth;
} dev_pair;

static void dev_pair_make(vkt *t, const pair *p, dev_pair *d)
{
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    d->a = sampled_image(t, VK_FORMAT_R32G32B32A32_SFLOAT, 16, p->a);
    d->b = sampled_image(t, VK_FORMAT_R32G32B32A32_SFLOAT, 16, p->b);
    d->hud_a = sampled_image(t, VK_FORMAT_R32G32B32A32_SFLOAT, 16, p->hud_a);
    d->hud_b = sampled_image(t, VK_FORMAT_R32G32B32A32_SFLOAT, 16, p->hud_b);
    d->mv = sampled_image(t, VK_FORMAT_R32G32_SFLOAT, 8, p->mv);
    d->depth = sampled_image(t, VK_FORMAT_R32_SFLOAT, 4, p->depth);
    d->la = vkt_lend(&d->a, ro, ro, 0), d->lb = vkt_lend(&d->b, ro, ro, 0);
    d->lha = vkt_lend(&d->hud_a, ro, ro, 0), d->lhb = vkt_lend(&d->hud_b, ro, ro, 0);
    d->lmv = vkt_lend(&d->mv, ro, ro, 0), d->ldepth = vkt_lend(&d->depth, ro, ro, 0);
}

static void dev_pair_free(vkt *t, dev_pair *d)
{
    vkt_image *im[] = { &d->a, &d->b, &d->hud_a, &d->hud_b, &d->mv, &d->depth };
    for (int k = 0; k < 6; k++)
        vkt_image_free(t, im[k]);
}

/* The made frames' images and their read-back buffers. */
enum { OUTS = 7 };
typedef struct outs {
    vkt_image im[OUTS];
    upf_vk_image lend[OUTS];
    const upf_vk_image *ptr[OUTS];
    vkt_buffer down[OUTS];
} outs;

static void outs_make(vkt *t, outs *o)
{
    for (int k = 0; k < OUTS; k++) {
        o->im[k] = vkt_image_make(t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
        o->lend[k] = vkt_lend(&o->im[k], VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
        o->ptr[k] = &o->lend[k];
        o->down[k] = vkt_buffer_make(t, (VkDeviceSize)N * 16);
    }
}

static void outs_free(vkt *t, outs *o)
{
    for (int k = 0; k < OUTS; k++) {
        vkt_image_free(t, &o->im[k]);
        vkt_buffer_free(t, &o->down[k]);
    }
}

/* ---- the CPU's frames and the comparison -------------------------------------------------- */

/* What a case gives: which inputs, the ids, reset, the cameras. */
typedef struct inputs {
    bool motion, depth, hud, cameras;
    upf_vk_motion source;          /* the engine's motion source (UPF_VK_MOTION_VECTORS: g->fg) */
    int64_t prev_id, id;
    int reset;
} inputs;

static void cpu_frames(upf_context *ctx, const pair *p, const inputs *in, const double *phases,
                       int count, float (*want)[4 * N])
{
    static const upf_interpolate_motion cpu_motion[] = { UPF_INTERPOLATE_MOTION_VECTORS,
                                                         UPF_INTERPOLATE_MOTION_FLOW,
                                                         UPF_INTERPOLATE_MOTION_AUTO };
    upf_interpolate *e = upf_interpolate_create(ctx, upf_interpolate_params(
        .width = W, .height = H, .motion = cpu_motion[in->source],
        .flags = UPF_INTERPOLATE_DEPTH_REVERSED));
    CHECK(e != NULL);
    if (!e)
        return;
    const upf_image ia = { (void *)p->a, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image ib = { (void *)p->b, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image iha = { (void *)p->hud_a, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image ihb = { (void *)p->hud_b, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image im = { (void *)p->mv, W, H, 0, UPF_FORMAT_RG32F };
    const upf_image id = { (void *)p->depth, W, H, 0, UPF_FORMAT_R32F };
    const upf_interpolate_frames f = {
        .prev_color = &ia, .color = &ib, .motion = in->motion ? &im : NULL,
        .depth = in->depth ? &id : NULL, .prev_hud = in->hud ? &iha : NULL,
        .hud = in->hud ? &ihb : NULL, .prev_id = in->prev_id, .id = in->id,
        .reset = in->reset, .view_projection = in->cameras ? p->vp : NULL,
        .prev_view_projection = in->cameras ? p->prev_vp : NULL };
    for (int k = 0; k < count; k++) {
        const upf_image io = { want[k], W, H, 0, UPF_FORMAT_RGBA32F };
        CHECK_OK(ctx, upf_interpolate_run(e, &f, phases[k], &io));
    }
    upf_interpolate_destroy(&e);
}

static upf_vk_interpolate_frame vk_frame(const pair *p, const dev_pair *d, const inputs *in)
{
    return (upf_vk_interpolate_frame){
        .prev_color = &d->la, .color = &d->lb, .motion = in->motion ? &d->lmv : NULL,
        .depth = in->depth ? &d->ldepth : NULL, .prev_hud = in->hud ? &d->lha : NULL,
        .hud = in->hud ? &d->lhb : NULL, .prev_id = in->prev_id, .id = in->id,
        .reset = in->reset, .view_projection = in->cameras ? p->vp : NULL,
        .prev_view_projection = in->cameras ? p->prev_vp : NULL };
}

static double mean_abs_diff(const float *got, const float *want)
{
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 4; k++) {
            const double d = fabs((double)got[4 * i + k] - want[4 * i + k]);
            sum += d == d ? d : 1e9;
        }
    return sum / (4.0 * N);
}

/* Compares the read-back outputs with the CPU's frames; returns the largest difference. */
static double compare(const outs *o, int first, float (*want)[4 * N], int count,
                      const char *what)
{
    double worst = 0.0;
    for (int k = 0; k < count; k++) {
        const double mad = mean_abs_diff(o->down[first + k].map, want[k]);
        CHECKF(mad <= 0.001, "%s, phase %d: mean abs diff %g from the CPU's", what, k, mad);
        worst = mad > worst ? mad : worst;
    }
    printf("%-40s mean abs diff from the CPU %.3g\n", what, worst);
    return worst;
}

typedef struct gpu {
    vkt *t;
    upf_context *ctx;
    upf_vk_interpolate *fg;       /* factor up to 3, 2 in flight, timestamps */
    upf_vk_interpolate *fg_flow[2]; /* the same for UPF_VK_MOTION_FLOW and _BOTH */
    outs o;
} gpu;

/* One record of a pair at `phases`, submitted and compared; want[] gets the CPU's frames. */
static void run_case(gpu *g, const pair *p, const inputs *in, const double *phases, int count,
                     const char *what, float (*want)[4 * N])
{
    cpu_frames(g->ctx, p, in, phases, count, want);
    dev_pair d;
    dev_pair_make(g->t, p, &d);
    const upf_vk_interpolate_frame f = vk_frame(p, &d, in);
    VkCommandBuffer cmd = vkt_begin(g->t);
    upf_vk_interpolate *fg = in->source == UPF_VK_MOTION_VECTORS ? g->fg
                                                                 : g->fg_flow[in->source - 1];
    CHECK_OK(g->ctx, upf_vk_interpolate_record(fg, cmd, &f, phases, count, g->o.ptr, count));
    for (int k = 0; k < count; k++)
        vkt_record_download(cmd, &g->o.im[k], VK_IMAGE_LAYOUT_GENERAL, &g->o.down[k]);
    if (vkt_submit(g->t) == 0)
        compare(&g->o, 0, want, count, what);
    dev_pair_free(g->t, &d);
}

static float (*frames_alloc(void))[4 * N]
{
    return malloc(sizeof(float[OUTS][4 * N]));
}

/* ---- the cases ---------------------------------------------------------------------------- */

static void test_pairs(gpu *g, scene *sc)
{
    pair *turn = malloc(sizeof *turn), *pan = malloc(sizeof *pan), *cut = malloc(sizeof *cut);
    float(*want)[4 * N] = frames_alloc(), (*vec)[4 * N] = frames_alloc();
    if (!turn || !pan || !cut || !want || !vec || !render_pair(sc, "turn", 5, NULL, turn) ||
        !render_pair(sc, "pan", 9, NULL, pan) || !render_pair(sc, "turn", 5, "walk", cut)) {
        CHECK(!"the pairs render");
        free(turn), free(pan), free(cut), free(want), free(vec);
        return;
    }
    const double third[2] = { 1.0 / 3.0, 2.0 / 3.0 }, half[1] = { 0.5 };
    const inputs v = { .motion = true, .depth = true, .prev_id = 4, .id = 5 };
    run_case(g, turn, &v, third, 2, "turn, factor 3", vec);
    inputs c = v;
    c.cameras = true;
    run_case(g, turn, &c, third, 2, "turn, factor 3, the cameras given", want);
    run_case(g, pan, &v, half, 1, "pan, factor 2", want);
    inputs h = v;
    h.hud = true;
    for (int i = 0; i < 4 * N; i++) /* N-1's HUD unlike N's: each phase must take its own */
        pan->hud_a[i] = i % 4 == 3 ? pan->hud_a[i] : 1.0f - pan->hud_a[i];
    run_case(g, pan, &h, third, 2, "pan, factor 3, HUD layers", want);
    /* the blends: each must also differ from the vectors' frame of the turn */
    const struct { inputs in; const char *what; } blends[] = {
        { { .motion = true, .prev_id = 4, .id = 5 }, "turn, motion without depth: blend" },
        { { .prev_id = 4, .id = 5 }, "turn, no vectors: blend" },
        { { .motion = true, .depth = true, .prev_id = 3, .id = 5 }, "turn, ids 3, 5: blend" },
        { { .motion = true, .depth = true, .prev_id = 4, .id = 5, .reset = 1 },
          "turn, reset: blend" },
    };
    for (int k = 0; k < 4; k++) {
        run_case(g, turn, &blends[k].in, third, 2, blends[k].what, want);
        const double d = mean_abs_diff(want[0], vec[0]);
        CHECKF(d > 0.002, "%s: the blend is %g from the vectors' frame (expected apart)",
               blends[k].what, d);
    }
    run_case(g, cut, &v, third, 2, "a cut (turn, then walk), vectors", want);
    free(turn), free(pan), free(cut), free(want), free(vec);
}

/* The optical flow (engines made for UPF_VK_MOTION_FLOW and _BOTH, against the CPU engine
 * with UPF_INTERPOLATE_MOTION_FLOW and _AUTO): pairs without vectors, the flow engine given
 * vectors (it ignores them, as the CPU's), the both engine given vectors (the vectors' path),
 * and a cut between two paths, which the flow path's scene pass takes. */
static void test_flow(gpu *g, scene *sc)
{
    pair *turn = malloc(sizeof *turn), *pan = malloc(sizeof *pan), *cut = malloc(sizeof *cut);
    float(*want)[4 * N] = frames_alloc(), (*vec)[4 * N] = frames_alloc();
    if (!turn || !pan || !cut || !want || !vec || !render_pair(sc, "turn", 5, NULL, turn) ||
        !render_pair(sc, "pan", 9, NULL, pan) || !render_pair(sc, "turn", 5, "walk", cut)) {
        CHECK(!"the pairs render");
        free(turn), free(pan), free(cut), free(want), free(vec);
        return;
    }
    const double third[2] = { 1.0 / 3.0, 2.0 / 3.0 }, half[1] = { 0.5 };
    const inputs flow = { .source = UPF_VK_MOTION_FLOW, .prev_id = 4, .id = 5 };
    const inputs both = { .source = UPF_VK_MOTION_BOTH, .prev_id = 4, .id = 5 };
    const inputs both_v = { .source = UPF_VK_MOTION_BOTH, .motion = true, .depth = true,
                            .prev_id = 4, .id = 5 };
    const inputs vectors = { .motion = true, .depth = true, .prev_id = 4, .id = 5 };
    run_case(g, turn, &flow, third, 2, "turn, factor 3, flow", want);
    run_case(g, pan, &flow, half, 1, "pan, factor 2, flow", want);
    run_case(g, turn, &both, third, 2, "turn, factor 3, both: no vectors", vec);
    const double d = mean_abs_diff(want[0], vec[0]);
    run_case(g, turn, &vectors, third, 2, "turn, factor 3, vectors", vec);
    run_case(g, turn, &both_v, third, 2, "turn, factor 3, both: vectors", want);
    CHECKF(mean_abs_diff(want[0], vec[0]) == 0.0 && d > 0.0,
           "both with vectors is the vectors' frame, without them the flow's");
    inputs fv = flow;
    fv.motion = fv.depth = true;
    run_case(g, pan, &fv, half, 1, "pan, flow engine given vectors", want);
    run_case(g, cut, &flow, third, 2, "a cut (turn, then walk), flow", want);
    /* two shots of one map (the forest's cut path across its cut), whose histograms are alike:
     * the flow's cut pass must blend (the CPU does: checked), as on the CPU */
    scene *forest = NULL;
    CHECK_OK(g->ctx, scene_create(g->ctx, "forest", 2, &forest));
    const double tc = scene_cut_time();
    const scene_buffers ba = { cut->a, NULL, NULL, NULL }, bb = { cut->b, NULL, NULL, NULL };
    if (forest &&
        scene_render(forest, scene_view_params(.path = "cut", .time = tc - 1.0 / 60.0,
                                               .width = W, .height = H), &ba, NULL) == UPF_OK &&
        scene_render(forest, scene_view_params(.path = "cut", .time = tc + 1.0 / 60.0,
                                               .width = W, .height = H), &bb, NULL) == UPF_OK) {
        run_case(g, cut, &flow, half, 1, "two shots of one map, flow", want);
        for (int i = 0; i < 4 * N; i++) /* the frames as prepare rounds them */
            vec[0][i] = 0.5f * upf__fg_linear_round(cut->a[i]) +
                        0.5f * upf__fg_linear_round(cut->b[i]);
        CHECKF(mean_abs_diff(want[0], vec[0]) < 1e-6, "two shots of one map: the CPU's frame "
               "is %g from the blend (expected the blend)", mean_abs_diff(want[0], vec[0]));
        /* the next pair through the same engine, the turn: no cut, as on the CPU, only if its
         * scene pass zeroed the cut pass's counter (the scene surface's fourth word, which
         * the last pair left holding its share's bits: counted on, the turn would blend) */
        run_case(g, turn, &flow, half, 1, "turn after the two shots, flow", want);
        for (int i = 0; i < 4 * N; i++)
            vec[0][i] = 0.5f * turn->a[i] + 0.5f * turn->b[i];
        CHECKF(mean_abs_diff(want[0], vec[0]) > 0.002, "the turn's frame is %g from the blend "
               "(expected apart)", mean_abs_diff(want[0], vec[0]));
    }
    scene_destroy(&forest);
    free(turn), free(pan), free(cut), free(want), free(vec);
}

/* Two records before a wait (frames in flight 2), different pairs, then the timings. */
static void test_in_flight(gpu *g, scene *sc)
{
    pair *p[2] = { malloc(sizeof(pair)), malloc(sizeof(pair)) };
    float(*want)[4 * N] = frames_alloc();
    if (!p[0] || !p[1] || !want || !render_pair(sc, "turn", 7, NULL, p[0]) ||
        !render_pair(sc, "pan", 3, NULL, p[1])) {
        CHECK(!"the pairs render");
        free(p[0]), free(p[1]), free(want);
        return;
    }
    const double third[2] = { 1.0 / 3.0, 2.0 / 3.0 };
    const inputs in[2] = { { .motion = true, .depth = true, .prev_id = 6, .id = 7 },
                           { .motion = true, .depth = true, .hud = true, .prev_id = 2,
                             .id = 3 } };
    dev_pair d[2];
    for (int r = 0; r < 2; r++)
        dev_pair_make(g->t, p[r], &d[r]); /* uploads submitted and waited for */
    VkCommandBuffer cmd = vkt_begin(g->t);
    for (int r = 0; r < 2; r++) {
        const upf_vk_interpolate_frame f = vk_frame(p[r], &d[r], &in[r]);
        CHECK_OK(g->ctx, upf_vk_interpolate_record(g->fg, cmd, &f, third, 2, g->o.ptr + 2 * r,
                                                   2));
    }
    for (int k = 0; k < 4; k++)
        vkt_record_download(cmd, &g->o.im[k], VK_IMAGE_LAYOUT_GENERAL, &g->o.down[k]);
    if (vkt_submit(g->t) == 0)
        for (int r = 0; r < 2; r++) {
            cpu_frames(g->ctx, p[r], &in[r], third, 2, want);
            compare(&g->o, 2 * r, want, 2, r ? "in flight: the second record (pan, HUD)"
                                             : "in flight: the first record (turn)");
        }
    double ms[UPF_INTERPOLATE_PASS_COUNT], total = 0.0;
    CHECK_OK(g->ctx, upf_vk_interpolate_timings(g->fg, ms, &total));
    double sum = 0.0;
    for (int k = 0; k < UPF_INTERPOLATE_PASS_COUNT; k++)
        sum += ms[k];
    CHECKF(total > 0.0 && fabs(sum - total) <= 1e-9 * (1.0 + total) && ms[UPF_INTERPOLATE_PASS_COMPOSE] > 0.0 &&
               ms[UPF_INTERPOLATE_PASS_FLOW] == 0.0,
           "timings: total %g, sum %g, compose %g, flow %g", total, sum,
           ms[UPF_INTERPOLATE_PASS_COMPOSE], ms[UPF_INTERPOLATE_PASS_FLOW]);
    printf("timings of a record of 2 phases on this device: %.3f ms\n", total);
    for (int r = 0; r < 2; r++)
        dev_pair_free(g->t, &d[r]);
    free(p[0]), free(p[1]), free(want);
}

/* ---- factor 8 ------------------------------------------------------------------------------ */

/* The turn at factor 8 (seven phases, seven runner frames in one record) on an engine made for
 * it, each frame against the CPU's. */
static void test_factor8(gpu *g, scene *sc)
{
    pair *p = malloc(sizeof *p);
    float(*want)[4 * N] = frames_alloc();
    upf_vk_interpolate *fg = upf_vk_interpolate_create(g->ctx, upf_vk_interpolate_params(
        .device = &g->t->lend, .width = W, .height = H, .max_factor = 8,
        .flags = UPF_INTERPOLATE_DEPTH_REVERSED));
    CHECK(fg != NULL);
    if (!p || !want || !fg || !render_pair(sc, "turn", 5, NULL, p)) {
        CHECK(p && want && fg);
        upf_vk_interpolate_destroy(&fg);
        free(p), free(want);
        return;
    }
    double phases[7];
    for (int k = 0; k < 7; k++)
        phases[k] = (k + 1) / 8.0;
    upf_vk_interpolate *keep = g->fg;
    g->fg = fg;
    const inputs v = { .motion = true, .depth = true, .prev_id = 4, .id = 5 };
    run_case(g, p, &v, phases, 7, "turn, factor 8", want);
    g->fg = keep;
    upf_vk_interpolate_destroy(&fg);
    free(p), free(want);
}

/* ---- depth in a depth image ------------------------------------------------------------- */

/* The turn at factor 3 with its depth in a D32_SFLOAT image read through a view of its depth
 * aspect, left in DEPTH_STENCIL_ATTACHMENT_OPTIMAL as a depth pass leaves it. */
static void test_depth_format(gpu *g, scene *sc)
{
    vkt *t = g->t;
    pair *p = malloc(sizeof *p);
    float(*want)[4 * N] = frames_alloc();
    if (!p || !want || !render_pair(sc, "turn", 5, NULL, p)) {
        CHECK(!"the pair renders");
        free(p), free(want);
        return;
    }
    vkt_image dim = { .format = VK_FORMAT_D32_SFLOAT, .view_format = VK_FORMAT_D32_SFLOAT,
                      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                               VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                      .width = W, .height = H };
    const VkImageCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
        .format = dim.format, .extent = { W, H, 1 }, .mipLevels = 1, .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = dim.usage };
    CHECK(vkCreateImage(t->device, &ci, NULL, &dim.image) == VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(t->device, dim.image, &req);
    dim.memory = vkt_alloc(t, req, 0);
    vkBindImageMemory(t->device, dim.image, dim.memory, 0);
    const VkImageViewCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = dim.image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = dim.format,
        .subresourceRange = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1 } };
    vkCreateImageView(t->device, &vi, NULL, &dim.view);
    /* the depth values into it, then the layout a depth pass leaves */
    vkt_buffer up = vkt_buffer_make(t, (VkDeviceSize)4 * N);
    memcpy(up.map, p->depth, (size_t)4 * N);
    VkCommandBuffer cmd = vkt_begin(t);
    const VkImageLayout att = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkImageMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = 0,
        .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT, .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = dim.image,
        .subresourceRange = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1 } };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         0, 0, NULL, 0, NULL, 1, &b);
    const VkBufferImageCopy r = { .imageSubresource = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1 },
                                  .imageExtent = { W, H, 1 } };
    vkCmdCopyBufferToImage(cmd, up.buffer, dim.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                           &r);
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, b.newLayout = att;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         0, 0, NULL, 0, NULL, 1, &b);
    CHECK(vkt_submit(t) == 0);
    vkt_buffer_free(t, &up);
    const inputs v = { .motion = true, .depth = true, .prev_id = 4, .id = 5 };
    const double third[2] = { 1.0 / 3.0, 2.0 / 3.0 };
    cpu_frames(g->ctx, p, &v, third, 2, want);
    dev_pair d;
    dev_pair_make(t, p, &d);
    const upf_vk_image ld = vkt_lend(&dim, att, att, 0);
    upf_vk_interpolate_frame f = vk_frame(p, &d, &v);
    f.depth = &ld;
    cmd = vkt_begin(t);
    CHECK_OK(g->ctx, upf_vk_interpolate_record(g->fg, cmd, &f, third, 2, g->o.ptr, 2));
    for (int k = 0; k < 2; k++)
        vkt_record_download(cmd, &g->o.im[k], VK_IMAGE_LAYOUT_GENERAL, &g->o.down[k]);
    if (vkt_submit(t) == 0)
        compare(&g->o, 0, want, 2, "turn, depth in a D32_SFLOAT image");
    vkt_image_free(t, &dim);
    dev_pair_free(t, &d);
    free(p), free(want);
}

/* ---- 8-bit sRGB images ------------------------------------------------------------------- */

/* The pan at factor 3 with 8-bit sRGB colours and HUD layers: N-1 through an R8G8B8A8_SRGB
 * view (the device decodes), N and the HUD layers through UNORM views of the same bytes
 * (srgb = 1: decoded in the shader), the outputs R8G8B8A8_UNORM with srgb = 1 (encoded in the
 * shader); the CPU engine on UPF_FORMAT_RGBA8_SRGB images of those bytes. Within 0.001 on
 * [0, 1] (a byte's rounding apart at most, printed). */
static void test_srgb8(gpu *g, scene *sc)
{
    vkt *t = g->t;
    pair *p = malloc(sizeof *p);
    uint8_t *bytes = malloc((size_t)4 * 4 * N), *got = malloc((size_t)2 * 4 * N);
    uint8_t *want = malloc((size_t)2 * 4 * N);
    if (!p || !bytes || !got || !want || !render_pair(sc, "pan", 9, NULL, p)) {
        CHECK(!"the pair renders");
        free(p), free(bytes), free(got), free(want);
        return;
    }
    const float *src[4] = { p->a, p->b, p->hud_a, p->hud_b };
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 4 * N; i++)
            bytes[(size_t)k * 4 * N + i] = i % 4 == 3 ? (uint8_t)lrintf(255.0f *
                                               fminf(fmaxf(src[k][i], 0.0f), 1.0f))
                                                      : upf_linear_to_srgb8(src[k][i]);
    /* the CPU */
    upf_interpolate *e = upf_interpolate_create(g->ctx, upf_interpolate_params(
        .width = W, .height = H, .motion = UPF_INTERPOLATE_MOTION_VECTORS,
        .flags = UPF_INTERPOLATE_DEPTH_REVERSED));
    upf_image im8[4];
    for (int k = 0; k < 4; k++)
        im8[k] = (upf_image){ bytes + (size_t)k * 4 * N, W, H, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image im = { p->mv, W, H, 0, UPF_FORMAT_RG32F };
    const upf_image id = { p->depth, W, H, 0, UPF_FORMAT_R32F };
    const upf_interpolate_frames cf = { .prev_color = &im8[0], .color = &im8[1], .motion = &im,
                                        .depth = &id, .prev_hud = &im8[2], .hud = &im8[3],
                                        .prev_id = 8, .id = 9 };
    const double third[2] = { 1.0 / 3.0, 2.0 / 3.0 };
    for (int k = 0; k < 2 && e; k++) {
        const upf_image io = { want + (size_t)k * 4 * N, W, H, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_OK(g->ctx, upf_interpolate_run(e, &cf, third[k], &io));
    }
    upf_interpolate_destroy(&e);
    /* the GPU */
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    vkt_image a = vkt_image_make(t, W, H, VK_FORMAT_R8G8B8A8_SRGB, 0,
                                 VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    vkt_buffer up = vkt_buffer_make(t, (VkDeviceSize)4 * N);
    memcpy(up.map, bytes, (size_t)4 * N);
    vkt_record_upload(vkt_begin(t), &up, &a, ro);
    CHECK(vkt_submit(t) == 0);
    vkt_buffer_free(t, &up);
    vkt_image rest[3], out[2];
    vkt_buffer down[2];
    upf_vk_image lrest[3], lout[2];
    const upf_vk_image *pout[2];
    for (int k = 0; k < 3; k++) {
        rest[k] = sampled_image(t, VK_FORMAT_R8G8B8A8_UNORM, 4, bytes + (size_t)(k + 1) * 4 * N);
        lrest[k] = vkt_lend(&rest[k], ro, ro, 1);
    }
    for (int k = 0; k < 2; k++) {
        out[k] = vkt_image_make(t, W, H, VK_FORMAT_R8G8B8A8_UNORM, 0,
                                VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
        lout[k] = vkt_lend(&out[k], VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 1);
        pout[k] = &lout[k];
        down[k] = vkt_buffer_make(t, (VkDeviceSize)4 * N);
    }
    dev_pair d;
    dev_pair_make(t, p, &d);
    const upf_vk_image la = vkt_lend(&a, ro, ro, 0);
    const upf_vk_interpolate_frame f = { .prev_color = &la, .color = &lrest[0],
                                         .motion = &d.lmv, .depth = &d.ldepth,
                                         .prev_hud = &lrest[1], .hud = &lrest[2],
                                         .prev_id = 8, .id = 9 };
    VkCommandBuffer cmd = vkt_begin(t);
    CHECK_OK(g->ctx, upf_vk_interpolate_record(g->fg, cmd, &f, third, 2, pout, 2));
    for (int k = 0; k < 2; k++)
        vkt_record_download(cmd, &out[k], VK_IMAGE_LAYOUT_GENERAL, &down[k]);
    if (vkt_submit(t) == 0)
        for (int k = 0; k < 2; k++) {
            const uint8_t *gb = down[k].map, *wb = want + (size_t)k * 4 * N;
            double sum = 0.0;
            int worst = 0;
            for (int i = 0; i < 4 * N; i++) {
                const int dd = abs((int)gb[i] - (int)wb[i]);
                sum += dd;
                worst = dd > worst ? dd : worst;
            }
            const double mad = sum / (4.0 * N * 255.0);
            CHECKF(mad <= 0.001, "8-bit sRGB, phase %d: mean abs diff %g", k, mad);
            printf("8-bit sRGB, phase %d: mean abs diff from the CPU %.3g, largest %d/255\n", k,
                   mad, worst);
        }
    vkt_image_free(t, &a);
    for (int k = 0; k < 3; k++)
        vkt_image_free(t, &rest[k]);
    for (int k = 0; k < 2; k++) {
        vkt_image_free(t, &out[k]);
        vkt_buffer_free(t, &down[k]);
    }
    dev_pair_free(t, &d);
    free(p), free(bytes), free(got), free(want);
}

/* ---- half-float images -------------------------------------------------------------------- */

/* The turn at factor 3 with every image in half floats: RGBA16F colours and outputs, RG16F
 * vectors, R16F depth; the CPU engine on RGBA16F colours and outputs and on the vectors and
 * depth rounded to halves (it takes RG32F and R32F), so both read the same values. */
static void test_half(gpu *g, scene *sc)
{
    vkt *t = g->t;
    pair *p = malloc(sizeof *p);
    uint16_t *h = malloc(sizeof(uint16_t) * (4 * N * 2 + 2 * N + N));
    uint16_t *want = malloc(sizeof(uint16_t) * 2 * 4 * N);
    if (!p || !h || !want || !render_pair(sc, "turn", 5, NULL, p)) {
        CHECK(!"the pair renders");
        free(p), free(h), free(want);
        return;
    }
    uint16_t *ha = h, *hb = h + 4 * N, *hmv = h + 8 * N, *hd = h + 10 * N;
    for (int i = 0; i < 4 * N; i++)
        ha[i] = upf_float_to_half(p->a[i]), hb[i] = upf_float_to_half(p->b[i]);
    for (int i = 0; i < 2 * N; i++) {
        hmv[i] = upf_float_to_half(p->mv[i]);
        p->mv[i] = upf_half_to_float(hmv[i]);
    }
    for (int i = 0; i < N; i++) {
        hd[i] = upf_float_to_half(p->depth[i]);
        p->depth[i] = upf_half_to_float(hd[i]);
    }
    upf_interpolate *e = upf_interpolate_create(g->ctx, upf_interpolate_params(
        .width = W, .height = H, .motion = UPF_INTERPOLATE_MOTION_VECTORS,
        .flags = UPF_INTERPOLATE_DEPTH_REVERSED));
    const upf_image ia = { ha, W, H, 0, UPF_FORMAT_RGBA16F };
    const upf_image ib = { hb, W, H, 0, UPF_FORMAT_RGBA16F };
    const upf_image im = { p->mv, W, H, 0, UPF_FORMAT_RG32F };
    const upf_image id = { p->depth, W, H, 0, UPF_FORMAT_R32F };
    const upf_interpolate_frames cf = { .prev_color = &ia, .color = &ib, .motion = &im,
                                        .depth = &id, .prev_id = 4, .id = 5 };
    const double third[2] = { 1.0 / 3.0, 2.0 / 3.0 };
    for (int k = 0; k < 2 && e; k++) {
        const upf_image io = { want + (size_t)k * 4 * N, W, H, 0, UPF_FORMAT_RGBA16F };
        CHECK_OK(g->ctx, upf_interpolate_run(e, &cf, third[k], &io));
    }
    upf_interpolate_destroy(&e);
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    vkt_image in[4] = { sampled_image(t, VK_FORMAT_R16G16B16A16_SFLOAT, 8, ha),
                        sampled_image(t, VK_FORMAT_R16G16B16A16_SFLOAT, 8, hb),
                        sampled_image(t, VK_FORMAT_R16G16_SFLOAT, 4, hmv),
                        sampled_image(t, VK_FORMAT_R16_SFLOAT, 2, hd) };
    upf_vk_image lin[4];
    for (int k = 0; k < 4; k++)
        lin[k] = vkt_lend(&in[k], ro, ro, 0);
    vkt_image out[2];
    vkt_buffer down[2];
    upf_vk_image lout[2];
    const upf_vk_image *pout[2];
    for (int k = 0; k < 2; k++) {
        out[k] = vkt_image_make(t, W, H, VK_FORMAT_R16G16B16A16_SFLOAT, 0,
                                VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
        lout[k] = vkt_lend(&out[k], VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
        pout[k] = &lout[k];
        down[k] = vkt_buffer_make(t, (VkDeviceSize)8 * N);
    }
    const upf_vk_interpolate_frame f = { .prev_color = &lin[0], .color = &lin[1],
                                         .motion = &lin[2], .depth = &lin[3], .prev_id = 4,
                                         .id = 5 };
    VkCommandBuffer cmd = vkt_begin(t);
    CHECK_OK(g->ctx, upf_vk_interpolate_record(g->fg, cmd, &f, third, 2, pout, 2));
    for (int k = 0; k < 2; k++)
        vkt_record_download(cmd, &out[k], VK_IMAGE_LAYOUT_GENERAL, &down[k]);
    if (vkt_submit(t) == 0)
        for (int k = 0; k < 2; k++) {
            const uint16_t *gh = down[k].map, *wh = want + (size_t)k * 4 * N;
            double sum = 0.0;
            for (int i = 0; i < 4 * N; i++) {
                const double d = fabs((double)upf_half_to_float(gh[i]) -
                                      upf_half_to_float(wh[i]));
                sum += d == d ? d : 1e9;
            }
            const double mad = sum / (4.0 * N);
            CHECKF(mad <= 0.001, "half floats, phase %d: mean abs diff %g", k, mad);
            printf("half floats, phase %d: mean abs diff from the CPU %.3g\n", k, mad);
        }
    for (int k = 0; k < 4; k++)
        vkt_image_free(t, &in[k]);
    for (int k = 0; k < 2; k++) {
        vkt_image_free(t, &out[k]);
        vkt_buffer_free(t, &down[k]);
    }
    free(p), free(h), free(want);
}

/* ---- vectors at a render size -------------------------------------------------------------- */

/* The turn at factor 3 with vectors and depth rendered at half the frames' size (an engine
 * made for motion 32x20, in UV units): the vectors pass's nearest sampling and scale. */
static void test_render_size(gpu *g, scene *sc)
{
    enum { RW = W / 2, RH = H / 2 };
    vkt *t = g->t;
    pair *p = malloc(sizeof *p);
    float *mv = malloc(sizeof(float) * 2 * RW * RH), *depth = malloc(sizeof(float) * RW * RH);
    float(*want)[4 * N] = frames_alloc();
    const scene_buffers rb = { NULL, NULL, depth, mv };
    if (!p || !mv || !depth || !want || !render_pair(sc, "turn", 5, NULL, p) ||
        scene_render(sc, scene_view_params(.path = "turn", .time = 5 / 30.0, .width = RW,
                                           .height = RH), &rb, NULL) != UPF_OK) {
        CHECK(!"the pair renders");
        free(p), free(mv), free(depth), free(want);
        return;
    }
    for (int i = 0; i < 2 * RW * RH; i++)
        mv[i] /= i % 2 ? (float)RH : (float)RW; /* render pixels -> UV */
    const unsigned flags = UPF_INTERPOLATE_DEPTH_REVERSED | UPF_INTERPOLATE_MOTION_UV;
    upf_interpolate *e = upf_interpolate_create(g->ctx, upf_interpolate_params(
        .width = W, .height = H, .motion_width = RW, .motion_height = RH,
        .motion = UPF_INTERPOLATE_MOTION_VECTORS, .flags = flags));
    upf_vk_interpolate *fg = upf_vk_interpolate_create(g->ctx, upf_vk_interpolate_params(
        .device = &t->lend, .width = W, .height = H, .motion_width = RW, .motion_height = RH,
        .max_factor = 3, .flags = flags));
    CHECK(e != NULL && fg != NULL);
    const upf_image ia = { p->a, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image ib = { p->b, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image im = { mv, RW, RH, 0, UPF_FORMAT_RG32F };
    const upf_image id = { depth, RW, RH, 0, UPF_FORMAT_R32F };
    const upf_interpolate_frames cf = { .prev_color = &ia, .color = &ib, .motion = &im,
                                        .depth = &id, .prev_id = 4, .id = 5 };
    const double third[2] = { 1.0 / 3.0, 2.0 / 3.0 };
    for (int k = 0; k < 2 && e; k++) {
        const upf_image io = { want[k], W, H, 0, UPF_FORMAT_RGBA32F };
        CHECK_OK(g->ctx, upf_interpolate_run(e, &cf, third[k], &io));
    }
    /* motion and depth images of the render size */
    vkt_buffer up[2] = { vkt_buffer_make(t, (VkDeviceSize)8 * RW * RH),
                         vkt_buffer_make(t, (VkDeviceSize)4 * RW * RH) };
    memcpy(up[0].map, mv, (size_t)8 * RW * RH);
    memcpy(up[1].map, depth, (size_t)4 * RW * RH);
    const VkImageUsageFlags use = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    vkt_image rmv = vkt_image_make(t, RW, RH, VK_FORMAT_R32G32_SFLOAT, 0, use);
    vkt_image rdepth = vkt_image_make(t, RW, RH, VK_FORMAT_R32_SFLOAT, 0, use);
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    VkCommandBuffer cmd = vkt_begin(t);
    vkt_record_upload(cmd, &up[0], &rmv, ro);
    vkt_record_upload(cmd, &up[1], &rdepth, ro);
    CHECK(vkt_submit(t) == 0);
    dev_pair d;
    dev_pair_make(t, p, &d);
    const upf_vk_image lmv = vkt_lend(&rmv, ro, ro, 0), ldepth = vkt_lend(&rdepth, ro, ro, 0);
    const upf_vk_interpolate_frame f = { .prev_color = &d.la, .color = &d.lb, .motion = &lmv,
                                         .depth = &ldepth, .prev_id = 4, .id = 5 };
    if (fg) {
        cmd = vkt_begin(t);
        CHECK_OK(g->ctx, upf_vk_interpolate_record(fg, cmd, &f, third, 2, g->o.ptr, 2));
        for (int k = 0; k < 2; k++)
            vkt_record_download(cmd, &g->o.im[k], VK_IMAGE_LAYOUT_GENERAL, &g->o.down[k]);
        if (vkt_submit(t) == 0)
            compare(&g->o, 0, want, 2, "turn, vectors at 32x20 (UV)");
    }
    upf_vk_interpolate_destroy(&fg);
    upf_interpolate_destroy(&e);
    for (int k = 0; k < 2; k++)
        vkt_buffer_free(t, &up[k]);
    vkt_image_free(t, &rmv);
    vkt_image_free(t, &rdepth);
    dev_pair_free(t, &d);
    free(p), free(mv), free(depth), free(want);
}

/* ---- bad input --------------------------------------------------------------------------- */

/* A create that must fail with a message holding `needle`. */
static void create_fails(upf_context *ctx, const upf_vk_interpolate_params *p,
                         upf_result code, const char *needle)
{
    upf_vk_interpolate *fg = upf_vk_interpolate_create(ctx, p);
    const char *m = "";
    upf_context_last_error(ctx, &m);
    CHECKF(fg == NULL && upf_context_last_error(ctx, NULL) == code && strstr(m, needle),
           "create: \"%s\"; expected %s with \"%s\"", m, upf_result_string(code), needle);
    upf_vk_interpolate_destroy(&fg);
}

static void test_bad_create(gpu *g)
{
    upf_context *ctx = g->ctx;
    const upf_vk_device *dev = &g->t->lend;
    create_fails(ctx, NULL, UPF_ERROR_INVALID_ARGUMENT, "params is NULL");
    create_fails(ctx, upf_vk_interpolate_params(.width = W, .height = H),
                 UPF_ERROR_INVALID_ARGUMENT, "device is NULL");
    create_fails(ctx, upf_vk_interpolate_params(.device = dev, .width = W, .height = H,
                                                .max_factor = 1),
                 UPF_ERROR_INVALID_ARGUMENT, "max_factor 1; expected 2..8");
    create_fails(ctx, upf_vk_interpolate_params(.device = dev, .width = W, .height = H,
                                                .max_factor = 9),
                 UPF_ERROR_INVALID_ARGUMENT, "max_factor 9; expected 2..8");
    create_fails(ctx, upf_vk_interpolate_params(.device = dev, .width = W, .height = H,
                                                .frames_in_flight = 9),
                 UPF_ERROR_INVALID_ARGUMENT, "frames_in_flight 9");
    create_fails(ctx, upf_vk_interpolate_params(.device = dev, .width = W, .height = H,
                                                .motion = (upf_vk_motion)7),
                 UPF_ERROR_INVALID_ARGUMENT, "motion 7");
    create_fails(ctx, upf_vk_interpolate_params(.device = dev, .width = 0, .height = H),
                 UPF_ERROR_INVALID_ARGUMENT, "size 0x40");
    create_fails(ctx, upf_vk_interpolate_params(.device = dev, .width = W, .height = H,
                                                .motion_width = W + 1, .motion_height = H),
                 UPF_ERROR_INVALID_ARGUMENT, "motion size 65x40");
    create_fails(ctx, upf_vk_interpolate_params(.device = dev, .width = W, .height = H,
                                                .flags = 0x100),
                 UPF_ERROR_INVALID_ARGUMENT, "unknown flags 0x100");
    create_fails(ctx, upf_vk_interpolate_params(.device = dev, .width = W, .height = H,
                                                .flags = UPF_INTERPOLATE_FLOW_FULL |
                                                         UPF_INTERPOLATE_FLOW_HALF),
                 UPF_ERROR_INVALID_ARGUMENT, "_FLOW_FULL and _FLOW_HALF together");
    /* the largest: 8 frames in flight of 7 phases each take 56 of the runner's slots */
    upf_vk_interpolate *big = upf_vk_interpolate_create(ctx, upf_vk_interpolate_params(
        .device = dev, .width = W, .height = H, .max_factor = 8, .frames_in_flight = 8));
    CHECK(big != NULL);
    upf_vk_interpolate_destroy(&big);
    CHECK(big == NULL);
}

/* A record that must fail with `needle` and record nothing (a format the engine does not
 * take: UPF_ERROR_UNSUPPORTED, as the other engines). */
#define RECORD_FAILS_WITH(g, cmd, f, ph, n, out, on, code, needle)                            \
    CHECK_FAILS((g)->ctx, upf_vk_interpolate_record((g)->fg, cmd, f, ph, n, out, on), code,   \
                needle)
#define RECORD_FAILS(g, cmd, f, ph, n, out, on, needle)                                       \
    RECORD_FAILS_WITH(g, cmd, f, ph, n, out, on, UPF_ERROR_INVALID_ARGUMENT, needle)

static void test_bad_record(gpu *g, scene *sc)
{
    vkt *t = g->t;
    pair *p = malloc(sizeof *p);
    float(*want)[4 * N] = frames_alloc();
    if (!p || !want || !render_pair(sc, "turn", 5, NULL, p)) {
        CHECK(!"the pair renders");
        free(p), free(want);
        return;
    }
    dev_pair d;
    dev_pair_make(t, p, &d);
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    const VkImageUsageFlags use_in = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    vkt_image r8 = vkt_image_make(t, W, H, VK_FORMAT_R8_UNORM, 0, use_in);
    vkt_image storage_only = vkt_image_make(t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                            VK_IMAGE_USAGE_STORAGE_BIT);
    vkt_image small = vkt_image_make(t, W / 2, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                     use_in | VK_IMAGE_USAGE_STORAGE_BIT);
    vkt_image sampled_out = vkt_image_make(t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0, use_in);
    vkt_image small_depth = vkt_image_make(t, W, H / 2, VK_FORMAT_R32_SFLOAT, 0, use_in);
    const upf_vk_image l_r8 = vkt_lend(&r8, ro, ro, 0);
    const upf_vk_image l_storage = vkt_lend(&storage_only, VK_IMAGE_LAYOUT_GENERAL,
                                            VK_IMAGE_LAYOUT_GENERAL, 0);
    const upf_vk_image l_small = vkt_lend(&small, ro, ro, 0);
    const upf_vk_image l_small_depth = vkt_lend(&small_depth, ro, ro, 0);
    const upf_vk_image l_small_out = vkt_lend(&small, VK_IMAGE_LAYOUT_UNDEFINED,
                                              VK_IMAGE_LAYOUT_GENERAL, 0);
    const upf_vk_image l_sampled_out = vkt_lend(&sampled_out, VK_IMAGE_LAYOUT_UNDEFINED,
                                                VK_IMAGE_LAYOUT_GENERAL, 0);
    upf_vk_image undefined_in = d.la;
    undefined_in.layout = VK_IMAGE_LAYOUT_UNDEFINED;
    upf_vk_image null_view = d.lb;
    null_view.view = VK_NULL_HANDLE;
    upf_vk_image srgb_float = d.la;
    srgb_float.srgb = 1;
    const inputs v = { .motion = true, .depth = true, .prev_id = 4, .id = 5 };
    const upf_vk_interpolate_frame good = vk_frame(p, &d, &v);
    const double third[2] = { 1.0 / 3.0, 2.0 / 3.0 };
    const upf_vk_image *const *o = g->o.ptr;

    VkCommandBuffer cmd = vkt_begin(t);
    /* NULL handles and counts */
    CHECK(upf_vk_interpolate_record(NULL, cmd, &good, third, 2, o, 2) ==
          UPF_ERROR_INVALID_ARGUMENT);
    RECORD_FAILS(g, VK_NULL_HANDLE, &good, third, 2, o, 2, "cmd is NULL");
    RECORD_FAILS(g, cmd, NULL, third, 2, o, 2, "frame is NULL");
    upf_vk_interpolate_frame f = good;
    f.prev_color = NULL;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "frame prev_color is NULL");
    RECORD_FAILS(g, cmd, &good, NULL, 2, o, 2, "phases is NULL");
    RECORD_FAILS(g, cmd, &good, third, 2, NULL, 2, "outputs is NULL");
    RECORD_FAILS(g, cmd, &good, third, 0, o, 0, "0 phases; expected 1 .. 2");
    const double three[3] = { 0.25, 0.5, 0.75 };
    RECORD_FAILS(g, cmd, &good, three, 3, o, 3, "3 phases; expected 1 .. 2");
    RECORD_FAILS(g, cmd, &good, third, 2, o, 1, "1 outputs for 2 phases");
    const upf_vk_image *one_null[2] = { o[0], NULL };
    RECORD_FAILS(g, cmd, &good, third, 2, one_null, 2, "outputs[1] is NULL");
    /* phases outside (0, 1) */
    const double bad_phase[4] = { 0.0, 1.0, NAN, -0.5 };
    const char *bad_name[4] = { "phase 1 is 0;", "phase 1 is 1;", "phase 1 is nan",
                                "phase 1 is -0.5" };
    for (int k = 0; k < 4; k++) {
        const double ph[2] = { 0.5, bad_phase[k] };
        RECORD_FAILS(g, cmd, &good, ph, 2, o, 2, bad_name[k]);
    }
    /* images: formats, usage, sizes, layouts, handles, srgb */
    f = good, f.color = &l_r8;
    RECORD_FAILS_WITH(g, cmd, &f, third, 2, o, 2, UPF_ERROR_UNSUPPORTED, "color: format "
                      "VK_FORMAT_R8_UNORM (9) is not one upframe takes as a colour");
    f = good, f.prev_color = &l_storage;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "prev_color");
    f = good, f.color = &l_small;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "smaller than the frames' size 64x40");
    f = good, f.prev_color = &undefined_in;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "prev_color");
    f = good, f.color = &null_view;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "color");
    f = good, f.prev_color = &srgb_float;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "prev_color");
    f = good, f.motion = &l_r8;
    RECORD_FAILS_WITH(g, cmd, &f, third, 2, o, 2, UPF_ERROR_UNSUPPORTED, "motion: format "
                      "VK_FORMAT_R8_UNORM (9) is not one upframe takes as the motion vectors");
    f = good, f.depth = &l_small_depth;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "smaller than the motion size 64x40");
    f = good, f.hud = &l_r8;
    RECORD_FAILS_WITH(g, cmd, &f, third, 2, o, 2, UPF_ERROR_UNSUPPORTED, "hud: format "
                      "VK_FORMAT_R8_UNORM (9) is not one upframe takes as a HUD layer");
    const upf_vk_image *out_sampled[2] = { o[0], &l_sampled_out };
    RECORD_FAILS(g, cmd, &good, third, 2, out_sampled, 2, "outputs[1]");
    const upf_vk_image *out_small[2] = { &l_small_out, o[1] };
    RECORD_FAILS(g, cmd, &good, third, 2, out_small, 2, "outputs[0]");
    /* cameras */
    f = good, f.view_projection = p->vp;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "view_projection is given without "
                 "prev_view_projection");
    double nan_vp[16];
    memcpy(nan_vp, p->vp, sizeof nan_vp);
    nan_vp[5] = NAN;
    f = good, f.view_projection = nan_vp, f.prev_view_projection = p->prev_vp;
    RECORD_FAILS(g, cmd, &f, third, 2, o, 2, "view_projection[5] is nan");

    /* nothing was recorded: the same command buffer records a good pair and is right */
    cpu_frames(g->ctx, p, &v, third, 2, want);
    CHECK_OK(g->ctx, upf_vk_interpolate_record(g->fg, cmd, &good, third, 2, o, 2));
    for (int k = 0; k < 2; k++)
        vkt_record_download(cmd, &g->o.im[k], VK_IMAGE_LAYOUT_GENERAL, &g->o.down[k]);
    if (vkt_submit(t) == 0)
        compare(&g->o, 0, want, 2, "after the bad records");
    vkt_image_free(t, &r8);
    vkt_image_free(t, &storage_only);
    vkt_image_free(t, &small);
    vkt_image_free(t, &sampled_out);
    vkt_image_free(t, &small_depth);
    dev_pair_free(t, &d);
    free(p), free(want);
}

int main(void)
{
    upf_context *ctx = test_context(2);
    vkt t;
    const int rc = vkt_init(&t, ctx);
    if (rc) {
        upf_context_destroy(&ctx);
        return rc;
    }
    scene *sc = NULL;
    CHECK_OK(ctx, scene_create(ctx, "courtyard", 3, &sc));
    gpu g = { .t = &t, .ctx = ctx };
    g.fg = upf_vk_interpolate_create(ctx, upf_vk_interpolate_params(
        .device = &t.lend, .width = W, .height = H, .max_factor = 3, .frames_in_flight = 2,
        .flags = UPF_INTERPOLATE_DEPTH_REVERSED, .timestamps = 1));
    const char *msg = "";
    upf_context_last_error(ctx, &msg);
    CHECKF(g.fg != NULL, "upf_vk_interpolate_create: %s", msg);
    if (g.fg && sc) {
        outs_make(&t, &g.o);
        test_pairs(&g, sc);
        for (int m = 0; m < 2; m++) {
            g.fg_flow[m] = upf_vk_interpolate_create(ctx, upf_vk_interpolate_params(
                .device = &t.lend, .width = W, .height = H, .max_factor = 3,
                .motion = m ? UPF_VK_MOTION_BOTH : UPF_VK_MOTION_FLOW,
                .flags = UPF_INTERPOLATE_DEPTH_REVERSED));
            upf_context_last_error(ctx, &msg);
            CHECKF(g.fg_flow[m] != NULL, "upf_vk_interpolate_create (flow): %s", msg);
        }
        if (g.fg_flow[0] && g.fg_flow[1])
            test_flow(&g, sc);
        upf_vk_interpolate_destroy(&g.fg_flow[0]);
        upf_vk_interpolate_destroy(&g.fg_flow[1]);
        test_in_flight(&g, sc);
        test_factor8(&g, sc);
        test_srgb8(&g, sc);
        test_depth_format(&g, sc);
        test_half(&g, sc);
        test_render_size(&g, sc);
        test_bad_create(&g);
        test_bad_record(&g, sc);
        outs_free(&t, &g.o);
    }
    upf_vk_interpolate_destroy(&g.fg);
    scene_destroy(&sc);
    vkt_finish(&t);
    upf_context_destroy(&ctx);
    return test_finish("test_vk_interpolate");
}
