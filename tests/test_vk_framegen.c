/* test_vk_framegen.c: the frame generation passes' shaders (src/vk/shaders/framegen/) against
 * their CPU passes (src/framegen/), one pass at a time, on lavapipe with the validation layer
 * and synchronization validation (any message fails).
 *
 * Each case makes a pass runner (src/vk/vk_passes.h) over the CPU engine's own tables and
 * sizes with the one pass under test, uploads the surfaces it reads, records it, copies back
 * the surfaces it writes and compares them with the CPU function run on the same inputs:
 *   prepare random RGBA32F frames (negative values and above 1, a seventh of the pixels
 *           equal) for game vectors (no pyramid) and for the flow (the luma pyramids):
 *           linear, every level of the luma pyramids and the histograms, exactly. (The
 *           device's decoding of other formats and the sRGB transfer: not tested here.)
 *   camera  the fit on the engine's turn (a model; also with only its right third known,
 *           where the elimination swaps rows), on random vectors (none), the host's
 *           homography, no fit: the camera surface and the last round's sums exactly (the
 *           shaders' divisions, square and cube roots are correctly rounded: exact.glsl).
 *   splat   random vectors (quarter pixels, a twentieth not known) and priorities 0..3 (many
 *           ties), without a camera and with the camera the engine fitted to a turn; and the
 *           engine's own motion, priority and camera on a rendered turn with a near square.
 *           Splat, its index and where each pixel landed, exactly: the cells are integers and the landing positions are the CPU's floats
 *           (the shader's arithmetic is `precise`, in the CPU's order).
 *   vectors random host vectors and depth at a render size below the frames' (nearest
 *           sampling, the scale, reversed depth, -0 depth, ties) and the rendered turn with
 *           a near square at the frames' size, from RG32F and R32F sampled images: motion,
 *           priority, the splat to t = 0, its index and prev motion, exactly; the shade
 *           rule on a shadow over still ground (also from 8-bit frames) and at the frame's
 *           edge beside a moving square, at the engine's radius and the largest (8: the
 *           tile's stillness rows in two words), and the second splat's indirect grid:
 *           step 3's where the rule moved a pixel, empty where it moved none; step 3's own:
 *           the whole grid where a pixel is a candidate of the rule, empty where none is.
 *   fill    the engine's splat on the turn with its camera, and random blobs of holes with
 *           priorities that tie and whose bits are a NaN's, with and without the camera, and
 *           with priorities all apart, holes in two tiles only, no hole at all:
 *           motion_t and every level of the motion pyramid, exactly (word for word), and
 *           the tile list (each 16 x 16 tile with a hole listed once, no other).
 *   resolve the engine's surfaces on the turn with its camera, with visibility and without
 *           (as the flow), the scene pass's cut and the host's blend: within 2e-5 of the CPU
 *           on every channel (the positions are the CPU's floats; the Lanczos weights' sines
 *           and the sharpness's exponential are the device's, a few ulps from the C
 *           library's: lavapipe differs by 3e-7 at most, printed).
 *   inpaint a block of holes and scattered ones in random colour, holes in two tiles only,
 *           none (a copy), and the engine's resolved frame on the turn, as the engine runs
 *           it (inpaint.comp down and up to level 1, level 1 over the tile list, level 0 in
 *           the compose, compose.glsl, without the still-pixel rule): the compose's output
 *           against inpainted and every level of the colour pyramid, exactly (word for word;
 *           the shader's arithmetic is `precise`), and the tile list.
 *   compose (the resolved frame without holes: its level 0 is it) random colour with a band
 *           equal in both frames, a one-pixel line the very same,
 *           a band nearly equal, at t = 1/2 and 1/4 (the still-pixel rule), and an RGBA32F
 *           HUD layer with alphas 0, 1, 1/2, 1/4 and 1.5, into an RGBA32F storage image:
 *           exactly. (The other output and HUD formats and sRGB transfers: not tested here.)
 *   scene   random histograms: near ones, disjoint ones, a pan-like change of a few regions,
 *           empty ones, every region at one distance (ties: the shader's ranks); the
 *           decision and both distances exactly (the same sums in the same order).
 *   cut     random priorities with a fifth, half (rounded down), half and a pixel, all but
 *           3 and all of them lost (UPF__FG_LOST), at 61 x 37 (one workgroup of the count) and
 *           200 x 170 (five, their counts added by atomics): the decision exactly, the share
 *           within 2.5 ulp (a shader's division); the scene pass's cut kept; nothing written
 *           when not enabled. (The counter zeroed between pairs: test_vk_interpolate.)
 *   the vectors path: every pass above in one frame of one runner (prepare, scene,
 *           vectors, camera, splat, fill, resolve, inpaint down and up, compose), from the host's
 *           RGBA32F frames, RG32F vectors and R32F depth of the rendered turn with a near
 *           square into an RGBA32F storage image, against the CPU engine's upf_interpolate_run
 *           at t = 1/2: a mean absolute difference within 0.001 (lavapipe: 4.8e-8, the
 *           largest 3.6e-7, printed). Without the camera's fit it is 0.0079.
 *
 * UPF_VK_RESOLVE_TIMING=frames[:WxH] times the resolve alone instead of testing (at 1920x1080
 * and 3840x2160 unless a size is given; not in ctest): from game vectors, with a camera model,
 * without visibility (as from the flow) and from 8-bit colours, on a homography's vectors
 * with random colours; with -DUPF_VK_PROBE=ON and UPF_VK_SHADER_DIR, a variant of the shader
 * (scripts/vk_probe_resolve.py).
 *
 * UPF_VK_CAMERA_TIMING=frames[:WxH] times the camera pass's dispatches instead of testing (at
 * 1920x1080 and 3840x2160 unless a size is given; not in ctest): the fit on a homography's
 * motion with outliers, then the host's homography; per k the median GPU time of the first k
 * dispatches, the k interleaved within each frame after a warm-up (run with
 * UPF_VK_TEST_NO_VALIDATION=1 on a GPU). UPF_VK_VECTORS_TIMING=frames[:WxH] does the same for
 * the vectors pass's dispatches, on a walk (nothing still) and on a still camera with moving
 * shadows (the shade rule moves pixels: its second splat runs). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "vk_test_util.h"

#include "core/color.h"
#include "framegen/framegen_passes.h"
#include "vk/vk_framegen.h"
#include "vk/vk_passes.h"

#define W 61
#define H 37
#define N (W * H)

typedef struct gpu {
    vkt *t;
    upf_context *ctx;
    upf__vk_funcs vk;
    upf__vk_caps caps;
} gpu;

static const VkFormat host_formats[] = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32_SFLOAT,
                                         VK_FORMAT_R32_SFLOAT };

/* The one format each host image is given in: motion RG32F, depth R32F, colour RGBA32F. */
static const VkFormat *host_formats_of(int surface)
{
    return surface == UPF__FG_MOTION_IN ? &host_formats[1]
         : surface == UPF__FG_DEPTH_IN  ? &host_formats[2] : &host_formats[0];
}

static size_t surface_bytes(const upf__passes *ps, int i)
{
    return (size_t)ps->surface[i].width * (size_t)ps->surface[i].height *
           upf__surface_format_bytes(ps->surface_info[i].format);
}

/* A linear frame of n pixels as prepare leaves it: each value rounded (upf__fg_linear_round),
 * alpha 1. */
static void linear_frame(const float *src, float *dst, int n)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            dst[4 * i + k] = upf__fg_linear_round(src[4 * i + k]);
        dst[4 * i + 3] = 1.0f;
    }
}

/* Whether surface i is a linear frame: the GPU's 8 bytes a pixel (linear.glsl), packed from
 * the CPU's floats for an upload and unpacked after a download. */
static bool is_linear(int i)
{
    return i == UPF__FG_LINEAR_PREV || i == UPF__FG_LINEAR;
}

/* The GPU's words of linear frame `rgba` (n pixels, as linear_frame leaves them: checked). */
static uint32_t *linear_packed(const float *rgba, int n)
{
    uint32_t *w = calloc((size_t)n, 16); /* the surface's bytes: the second half unused */
    int unrounded = 0;
    for (int i = 0; w && i < n; i++) {
        for (int k = 0; k < 3; k++)
            unrounded += upf__fg_linear_round(rgba[4 * i + k]) != rgba[4 * i + k];
        unrounded += rgba[4 * i + 3] != 1.0f;
        upf__fg_linear_pack(rgba + 4 * i, w + 2 * i);
    }
    CHECKF(unrounded == 0, "a linear frame with %d values not as prepare leaves them", unrounded);
    return w;
}

/* Runs GPU pass `plan` of the engine's tables `ps` alone on the surfaces `src` (by index, NULL:
 * not uploaded) and copies every surface it writes into `dst` (by index, NULL: not wanted;
 * a linear frame unpacked). Returns 0 when it ran. */
/* When set, the 8-bit frames' extra buffer (UPF__VK_FG_BYTES) starts as these words: the
 * decode tables (written by run_pass_images), then N-1's codes and N's, one word a pixel. */
static uint32_t *bytes_in;

static int run_pass_images(gpu *g, const upf__passes *ps, const upf__vk_pass_plan *plan,
                           const upf__vk_pass_frame *pf, void *const *src, void **dst,
                           const upf_vk_image *const *images, int count,
                           const vkt_image *out_image, const vkt_buffer *out_down)
{
    static upf__vk_runner_params rp; /* large: not on the stack */
    rp = (upf__vk_runner_params){
        .ctx = g->ctx, .fn = "test", .dev = &g->t->lend, .vk = &g->vk, .caps = &g->caps,
        .pass = ps->pass, .pass_count = ps->pass_count, .surface = ps->surface_info,
        .surface_count = ps->surface_count, .slots = 1 };
    uint32_t *packed[UPF__SURFACES_MAX] = { 0 };
    for (int i = 0; i < ps->surface_count; i++) {
        rp.width[i] = ps->surface[i].width, rp.height[i] = ps->surface[i].height;
        if (i == UPF__FG_CAMERA_SUMS) /* the GPU's rows and totals, as the engine's */
            rp.height[i] = UPF__VK_FG_CAMERA_SUM_ROWS(rp.height[i]);
        const upf__surface_role role = ps->surface_info[i].role;
        if (i == UPF__FG_COLOR_PREV || i == UPF__FG_COLOR) /* the engine's: 8-bit too */
            rp.host[i] = upf__vk_rule_colour("a colour", "test");
        else if (role == UPF__SURFACE_INPUT || role == UPF__SURFACE_OUTPUT)
            rp.host[i] = (upf__vk_host_rule){ .formats = host_formats_of(i), .format_count = 1,
                                              .max_width = UPF_MAX(rp.width[i], 1),
                                              .max_height = UPF_MAX(rp.height[i], 1) };
        else if (src[i] && surface_bytes(ps, i))
            rp.surface_plan[i] = (upf__vk_surface_plan){
                .upload = is_linear(i) ? (packed[i] = linear_packed(src[i], (int)(
                                              surface_bytes(ps, i) / 16)))
                                       : src[i],
                .upload_bytes = surface_bytes(ps, i) };
        /* the splats start at "nothing landed", the histograms at 0 */
        rp.surface_plan[i].clear_value = i == UPF__FG_HISTOGRAMS ? 0 : UPF__FG_NONE;
    }
    static float table[UPF__VK_FG_TABLE];
    upf__vk_fg_bytes_extra(&rp, W, H, table); /* the engine's extra: the 8-bit frames */
    if (bytes_in) { /* the 8-bit frames' codes given: the tables, then the codes */
        memcpy(bytes_in, table, sizeof table);
        rp.extra[0].upload = bytes_in, rp.extra[0].upload_bytes = rp.extra[0].bytes;
    }
    for (int k = 0; k < count; k++)
        rp.gpu_pass[k] = plan[k];
    rp.gpu_pass_count = count;
    upf__vk_runner *run = upf__vk_runner_create(&rp);
    const char *m = "";
    upf_context_last_error(g->ctx, &m);
    CHECKF(run != NULL, "runner for %s: %s", ps->pass[plan->pass].name, m);
    if (!run) {
        for (int i = 0; i < ps->surface_count; i++)
            free(packed[i]);
        return 1;
    }
    static upf__vk_frame f;
    memset(&f, 0, sizeof f);
    for (int k = 0; k < count; k++)
        f.pass[k] = pf[k];
    for (int i = 0; images && i < ps->surface_count; i++)
        if (images[i]) {
            upf_rect rect;
            CHECK_OK(g->ctx, upf__vk_check_host_image(run, "test", ps->surface_info[i].name, i,
                                                      images[i], &rect));
            f.image[i] = images[i];
        }
    VkCommandBuffer cmd = vkt_begin(g->t);
    CHECK_OK(g->ctx, upf__vk_runner_record(run, "test", cmd, &f));
    vkt_buffer down[UPF__SURFACES_MAX] = { { 0 } };
    uint64_t writes = 0; /* what any of the passes writes */
    for (int k = 0; k < count; k++)
        writes |= ps->pass[plan[k].pass].writes | plan[k].writes;
    for (int i = 0; i <= UPF__VK_FG_SHADED; i++) { /* the surfaces, then the engine's extras */
        VkDeviceSize bytes = 0;
        VkBuffer b = upf__vk_runner_buffer(run, i, &bytes);
        if (i < ps->surface_count)
            bytes = surface_bytes(ps, i);
        if ((writes & UPF__VK_RES(i)) && dst[i] && bytes) {
            down[i] = vkt_buffer_make(g->t, bytes);
            vkt_record_copy(cmd, b, down[i].buffer, bytes);
        }
    }
    if (out_image)
        vkt_record_download(cmd, out_image, VK_IMAGE_LAYOUT_GENERAL, out_down);
    const int rc = vkt_submit(g->t);
    CHECK(rc == 0);
    for (int i = 0; i <= UPF__VK_FG_SHADED; i++)
        if (down[i].buffer) {
            if (rc == 0 && is_linear(i))
                for (size_t p = 0; p < (size_t)down[i].size / 16; p++)
                    upf__fg_linear_unpack((const uint32_t *)down[i].map + 2 * p,
                                          (float *)dst[i] + 4 * p);
            else if (rc == 0)
                memcpy(dst[i], down[i].map, (size_t)down[i].size);
            vkt_buffer_free(g->t, &down[i]);
        }
    upf__vk_runner_destroy(&run);
    for (int i = 0; i < ps->surface_count; i++) /* uploaded by the record */
        free(packed[i]);
    return rc;
}

static int run_pass(gpu *g, const upf__passes *ps, const upf__vk_pass_plan *plan,
                    const upf__vk_pass_frame *pf, void *const *src, void **dst)
{
    return run_pass_images(g, ps, plan, pf, src, dst, NULL, 1, NULL, NULL);
}

/* The CPU pass `pass` on the surfaces `data` and host images `images` (by index, either may
 * be NULL; the engine's sizes), with `scratch` bytes of scratch. */
static void cpu_pass_images(upf_context *ctx, const upf__passes *ps, int pass, const void *con,
                            void *const *data, const upf_image *const *images, void *scratch,
                            size_t scratch_bytes)
{
    upf__surface s[UPF__SURFACES_MAX];
    memcpy(s, ps->surface, sizeof s);
    for (int i = 0; i < ps->surface_count; i++) {
        s[i].data = data[i];
        s[i].image = images ? images[i] : NULL;
    }
    const upf__pass_args a = { ctx, "test", con, s, scratch, scratch_bytes, NULL };
    CHECK_OK(ctx, ps->pass[pass].cpu(&a));
}

static void cpu_pass(upf_context *ctx, const upf__passes *ps, int pass, const void *con,
                     void *const *data)
{
    cpu_pass_images(ctx, ps, pass, con, data, NULL, NULL, 0);
}

static int count_diff_u32(const uint32_t *a, const uint32_t *b, int n, int *first)
{
    int d = 0;
    *first = -1;
    for (int i = 0; i < n; i++)
        if (a[i] != b[i] && d++ == 0)
            *first = i;
    return d;
}

/* ---- inputs ------------------------------------------------------------------------------ */

/* A yaw turn of `a` radians seen by a camera of focal length f = W px: frame N's pixel centre
 * (x, y) was at the direction rotated by a in N-1 (a homography: the camera pass fits it),
 * plus, inside the square [sx, sx + 12) x [12, 24), a near surface moving 3 px right. */
static void turn_motion(float *motion, float *depth, double a)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const double u = (x + 0.5 - W / 2.0) / W, v = (y + 0.5 - H / 2.0) / W;
            const double X = u * cos(a) + sin(a), Z = -u * sin(a) + cos(a);
            const size_t i = (size_t)y * W + x;
            const bool sq = x >= 20 && x < 32 && y >= 12 && y < 24;
            motion[2 * i] = sq ? -3.0f : (float)(X / Z * W + W / 2.0 - (x + 0.5));
            motion[2 * i + 1] = sq ? 0.0f : (float)(v / Z * W + H / 2.0 - (y + 0.5));
            depth[i] = sq ? 0.1f : 0.8f;
        }
}

/* engine_on_turn's frames, vectors, depth and made frame */
static float turn_a[4 * N], turn_b[4 * N], turn_out[4 * N], turn_mv[2 * N], turn_depth[N];

typedef struct engine_run {
    upf_interpolate *e;
    const upf__passes *ps;
} engine_run;

/* The CPU engine at W x H with game vectors, run once at t = 1/2 on the turn (its surfaces
 * then hold that run's motion, priority, camera, splat, ...). */
static engine_run engine_on_turn(upf_context *ctx)
{
    engine_run r = { upf_interpolate_create(ctx, upf_interpolate_params(.width = W,
                                                                        .height = H)), NULL };
    CHECK(r.e != NULL);
    if (!r.e)
        return r;
    float *a = turn_a, *b = turn_b, *out = turn_out, *motion = turn_mv, *depth = turn_depth;
    test_rng rng = test_rng_make("test_vk_framegen colour");
    for (int i = 0; i < 4 * N; i++)
        a[i] = test_rand_float(&rng), b[i] = test_rand_float(&rng);
    turn_motion(motion, depth, 0.05);
    const upf_image ia = { a, W, H, 0, UPF_FORMAT_RGBA32F }, ib = { b, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image io = { out, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image im = { motion, W, H, 0, UPF_FORMAT_RG32F }, id = { depth, W, H, 0,
                                                                       UPF_FORMAT_R32F };
    const upf_interpolate_frames f = { .prev_color = &ia, .color = &ib, .motion = &im,
                                       .depth = &id, .prev_id = 0, .id = 1 };
    CHECK_OK(ctx, upf_interpolate_run(r.e, &f, 0.5, &io));
    r.ps = upf__interpolate_passes(r.e);
    return r;
}

/* ---- the engine's push constants and plans where a pass has the 8-bit frames' variant ---- */

/* As vk_framegen.c's: the constants, the step, the rectangles' offsets, the sRGB transfers,
 * the 8-bit frames' decode tables and which frame is an SRGB format. */
typedef struct prepare_push {
    upf__fg_prepare_con con;
    int32_t step, rect[4];
    uint32_t transfer[2], table[2], device[2];
} prepare_push;
typedef struct resolve_push {
    upf__fg_resolve_con con;
    uint32_t table[2];
    int32_t levels; /* the colour pyramid's: 2 or more, the resolve makes its level 1 */
} resolve_push;

static upf__vk_pass_plan prepare_plan(void)
{
    upf__vk_pass_plan p = {
        .pass = UPF__FG_PREPARE, .stamp = true, .clear = UPF__VK_RES(UPF__FG_HISTOGRAMS),
        .writes = UPF__VK_RES(UPF__VK_FG_BYTES), .push_bytes = sizeof(prepare_push),
        .patch_used = true, .patch_offset = sizeof(upf__fg_prepare_con) };
    upf__vk_fg_bytes_variants(&p, "framegen/prepare");
    return p;
}

static upf__vk_pass_plan resolve_plan(void)
{
    upf__vk_pass_plan p = { .pass = UPF__FG_RESOLVE, .stamp = true,
                            .push_bytes = sizeof(resolve_push) };
    upf__vk_fg_bytes_variants(&p, "framegen/resolve");
    return p;
}

/* ---- splat ------------------------------------------------------------------------------- */

/* The camera surface `cam` as the splat's powers step leaves it for phase t: with a model,
 * its powers G, G^(1 - t), G^t, G^-(1 - t) (camera.glsl, CAM_POW) as splat.c and resolve.c
 * compute them. Into out (UPF__FG_CAMERA_FLOATS floats); returns out. */
static float *camera_powers(const float *cam, float t, float *out)
{
    memcpy(out, cam, UPF__FG_CAMERA_FLOATS * sizeof *out);
    const float s[4] = { 1.0f, 1.0f - t, t, -(1.0f - t) };
    for (int k = 0; k < 4 && upf__fg_camera_has(cam); k++)
        upf__fg_camera_power(cam, s[k], out + UPF__FG_CAMERA_POWERS + 9 * k);
    return out;
}

/* The splat at t: splat, its index, where each pixel landed and the camera surface with the
 * phase's powers (the powers step runs as with game vectors) exactly. */
static void splat_case(gpu *g, const upf__passes *ps, const float *motion,
                       const uint32_t *priority, const float *cam, float t,
                       const uint32_t *engine_splat, const char *what)
{
    static uint32_t want_d[N], want_i[N], got_d[N], got_i[N], want_l[N], got_l[N];
    float want_c[UPF__FG_CAMERA_FLOATS], got_c[UPF__FG_CAMERA_FLOATS];
    upf__vk_fg_splat_push push = { .c = { W, H, 0.0f } };
    upf__vk_pass_frame pf;
    upf__vk_fg_splat_frame(&push, t, true, &pf);
    void *in[UPF__SURFACES_MAX] = { 0 }, *cpu[UPF__SURFACES_MAX] = { 0 };
    void *out[UPF__SURFACES_MAX] = { 0 };
    in[UPF__FG_MOTION] = cpu[UPF__FG_MOTION] = (void *)motion;
    in[UPF__FG_PRIORITY] = cpu[UPF__FG_PRIORITY] = (void *)priority;
    in[UPF__FG_CAMERA] = cpu[UPF__FG_CAMERA] = (void *)cam;
    cpu[UPF__FG_SPLAT] = want_d, cpu[UPF__FG_SPLAT_INDEX] = want_i;
    out[UPF__FG_SPLAT] = got_d, out[UPF__FG_SPLAT_INDEX] = got_i;
    cpu[UPF__FG_SPLAT_LAND] = want_l, out[UPF__FG_SPLAT_LAND] = got_l;
    out[UPF__FG_CAMERA] = got_c;
    cpu_pass(g->ctx, ps, UPF__FG_SPLAT_PASS, &push.c, cpu);
    const upf__vk_pass_plan plan = {
        .pass = UPF__FG_SPLAT_PASS, .stamp = true, .writes = UPF__VK_RES(UPF__FG_CAMERA),
        .clear = UPF__VK_RES(UPF__FG_SPLAT) | UPF__VK_RES(UPF__FG_SPLAT_INDEX),
        .push_bytes = sizeof push, .patch_used = true, .patch_offset = sizeof push.c,
        .variant_count = 1, .variant = { { "framegen/splat", NULL, NULL } } };
    if (run_pass(g, ps, &plan, &pf, in, out))
        return;
    camera_powers(cam, t, want_c);
    int first, landed = 0;
    int d = count_diff_u32((const uint32_t *)got_c, (const uint32_t *)want_c,
                           UPF__FG_CAMERA_FLOATS, &first);
    CHECKF(d == 0, "%s: the camera after the powers step: %d floats differ; first [%d]: GPU "
           "%.9g, CPU %.9g", what, d, first, d ? got_c[first] : 0.0, d ? want_c[first] : 0.0);
    for (int i = 0; i < N; i++)
        landed += want_i[i] != UPF__FG_NONE;
    CHECKF(landed > N / 2, "%s: only %d of %d cells landed in", what, landed, N);
    d = count_diff_u32(got_d, want_d, N, &first);
    CHECKF(d == 0, "%s: splat: %d of %d cells differ; first (%d, %d): GPU %08x, CPU %08x", what,
           d, N, first % W, first / W, d ? got_d[first] : 0, d ? want_d[first] : 0);
    d = count_diff_u32(got_i, want_i, N, &first);
    CHECKF(d == 0, "%s: splat index: %d of %d cells differ; first (%d, %d): GPU %u, CPU %u",
           what, d, N, first % W, first / W, d ? got_i[first] : 0, d ? want_i[first] : 0);
    d = count_diff_u32(got_l, want_l, N, &first);
    CHECKF(d == 0, "%s: splat land: %d of %d pixels differ; first (%d, %d): GPU %u, CPU %u",
           what, d, N, first % W, first / W, d ? got_l[first] : 0, d ? want_l[first] : 0);
    if (engine_splat) {
        d = count_diff_u32(got_d, engine_splat, N, &first);
        CHECKF(d == 0, "%s: %d cells differ from the engine's own splat", what, d);
    }
}

static void test_splat(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    const upf__passes *ps = er.ps;
    const float *cam = ps->surface[UPF__FG_CAMERA].data;
    CHECKF(upf__fg_camera_has(cam), "the engine fitted no camera to the turn");
    static float motion[2 * N];
    static uint32_t priority[N];
    static const float no_cam[UPF__FG_CAMERA_FLOATS];
    test_rng rng = test_rng_make("test_vk_framegen splat");
    for (int i = 0; i < N; i++) {
        const bool unknown = test_rand_int(&rng, 0, 19) == 0;
        motion[2 * i] = unknown ? UPF__FG_INVALID : (float)test_rand_int(&rng, -32, 32) / 4.0f;
        motion[2 * i + 1] = unknown ? 0.0f : (float)test_rand_int(&rng, -32, 32) / 4.0f;
        priority[i] = (uint32_t)test_rand_int(&rng, 0, 3);
    }
    splat_case(g, ps, motion, priority, no_cam, 0.5f, NULL, "random, t = 1/2");
    splat_case(g, ps, motion, priority, no_cam, 1.0f / 3.0f, NULL, "random, t = 1/3");
    splat_case(g, ps, motion, priority, cam, 0.75f, NULL, "random with the turn's camera, t = 3/4");
    splat_case(g, ps, motion, priority, cam, 0.3f, NULL, "random with the turn's camera, t = 0.3");
    splat_case(g, ps, ps->surface[UPF__FG_MOTION].data, ps->surface[UPF__FG_PRIORITY].data, cam,
               0.5f, ps->surface[UPF__FG_SPLAT].data, "the engine's turn, t = 1/2");
    upf_interpolate_destroy(&er.e);
}

/* ---- vectors ----------------------------------------------------------------------------- */

static void compare_u32(const void *got, const void *want, int n, int width, const char *what,
                        const char *surface)
{
    int first;
    const int d = count_diff_u32(got, want, n, &first);
    const int per = UPF_MAX(n / (width * H), 1), px = first < 0 ? 0 : first / per;
    CHECKF(d == 0, "%s: %s: %d of %d words differ; first %d (pixel %d, %d): GPU %08x, CPU "
           "%08x", what, surface, d, n, first, px % width, px / width,
           d ? ((const uint32_t *)got)[first] : 0, d ? ((const uint32_t *)want)[first] : 0);
}

/* The vectors pass of an engine made with `params` on host vectors and depth of its motion
 * size, and linear frames N-1 and N (RGBA; NULL: black, where the shade rule moves nothing);
 * `shaded`: the least number of pixels the shade rule must move; `radius`: its search radius
 * (0: the engine's). */
static void vectors_case(gpu *g, const upf_interpolate_params *params, const float *motion_in,
                         const float *depth_in, const float *lin_prev, const float *lin,
                         bool bytes, int shaded, int radius, const char *what)
{
    static const float black[4 * N];
    static float lp[4 * N], lc[4 * N]; /* as prepare leaves them */
    linear_frame(lin_prev ? lin_prev : black, lp, N);
    linear_frame(lin ? lin : black, lc, N);
    lin_prev = lp, lin = lc;
    upf_interpolate *e = upf_interpolate_create(g->ctx, params);
    CHECK(e != NULL);
    if (!e)
        return;
    const upf__passes *ps = upf__interpolate_passes(e);
    const int mw = params->motion_width ? params->motion_width : W;
    const int mh = params->motion_height ? params->motion_height : H;
    const upf_image cm = { (void *)motion_in, mw, mh, 0, UPF_FORMAT_RG32F };
    const upf_image cd = { (void *)depth_in, mw, mh, 0, UPF_FORMAT_R32F };
    const upf_image *cimg[UPF__SURFACES_MAX] = { 0 };
    cimg[UPF__FG_MOTION_IN] = &cm, cimg[UPF__FG_DEPTH_IN] = &cd;
    static float want_m[2 * N], want_pm[2 * N], got_m[2 * N], got_pm[2 * N];
    static uint32_t want_p[N], want_s[N], want_si[N], got_p[N], got_s[N], got_si[N];
    static uint32_t want_l[N], got_l[N];
    static int scratch[3 * H + 64 * 5 * W]; /* upf__fg_vectors_scratch_bytes: 64 workers */
    CHECK(upf__fg_vectors_scratch_bytes(upf_context_threads(g->ctx), W, H) <= sizeof scratch);
    void *cpu[UPF__SURFACES_MAX] = { 0 }, *out[UPF__SURFACES_MAX] = { 0 };
    void *in[UPF__SURFACES_MAX] = { 0 };
    in[UPF__FG_LINEAR_PREV] = cpu[UPF__FG_LINEAR_PREV] = (void *)lin_prev;
    in[UPF__FG_LINEAR] = cpu[UPF__FG_LINEAR] = (void *)lin;
    cpu[UPF__FG_MOTION] = want_m, cpu[UPF__FG_PRIORITY] = want_p;
    cpu[UPF__FG_SPLAT_PREV] = want_s, cpu[UPF__FG_SPLAT_PREV_INDEX] = want_si;
    cpu[UPF__FG_PREV_MOTION] = want_pm, cpu[UPF__FG_SPLAT_LAND] = want_l;
    out[UPF__FG_SPLAT_LAND] = got_l;
    out[UPF__FG_MOTION] = got_m, out[UPF__FG_PRIORITY] = got_p;
    out[UPF__FG_SPLAT_PREV] = got_s, out[UPF__FG_SPLAT_PREV_INDEX] = got_si;
    out[UPF__FG_PREV_MOTION] = got_pm;
    uint32_t flag[8] = { 0 }; /* the shade flag: steps 4 to 7's workgroups, step 3's */
    out[UPF__VK_FG_SHADED] = flag;
    upf__fg_vectors_con vc = *(const upf__fg_vectors_con *)ps->con[UPF__FG_VECTORS];
    vc.shade_radius = radius ? radius : vc.shade_radius;
    const upf__fg_vectors_con *con = &vc;
    cpu_pass_images(g->ctx, ps, UPF__FG_VECTORS, con, cpu, cimg, scratch, sizeof scratch);

    vkt_image mi = vkt_sampled_image(g->t, mw, mh, VK_FORMAT_R32G32_SFLOAT, 8, motion_in);
    vkt_image di = vkt_sampled_image(g->t, mw, mh, VK_FORMAT_R32_SFLOAT, 4, depth_in);
    const upf_vk_image lm = vkt_lend(&mi, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
    const upf_vk_image ld = vkt_lend(&di, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
    const upf_vk_image *images[UPF__SURFACES_MAX] = { 0 };
    images[UPF__FG_MOTION_IN] = &lm, images[UPF__FG_DEPTH_IN] = &ld;
    struct {
        upf__fg_vectors_con con;
        uint32_t step;
        int32_t rect[4];
        uint32_t table[2]; /* with the 8-bit frames: each frame's decode table */
    } push = { *con, 0, { 0 }, { UPF__VK_FG_TABLE_SRGB, UPF__VK_FG_TABLE_SRGB } };
    static uint32_t codes[UPF__VK_FG_TABLE + 2 * N]; /* bytes: the frames as sRGB codes */
    for (int f = 0; bytes && f < 2; f++)
        for (int i = 0; i < N; i++) {
            const float *p = (f ? lin : lin_prev) + 4 * i;
            codes[UPF__VK_FG_TABLE + f * N + i] = (uint32_t)upf_linear_to_srgb8(p[0]) |
                                                  (uint32_t)upf_linear_to_srgb8(p[1]) << 8 |
                                                  (uint32_t)upf_linear_to_srgb8(p[2]) << 16;
        }
    bytes_in = bytes ? codes : NULL;
    upf__vk_pass_plan plan = {
        .pass = UPF__FG_VECTORS, .stamp = true,
        .push_bytes = sizeof push, .patch_used = true, .patch_offset = sizeof *con };
    upf__vk_fg_vectors_plan(&plan); /* as the engine's */
    upf__vk_pass_frame pf = { .run = true, .push = &push,
                              .variant = bytes ? UPF__VK_FG_VARIANT_BYTES : 0 };
    upf__vk_fg_vectors_dispatches(&pf, W, H); /* as the engine's: steps 4 to 7 indirect */
    const int rc = run_pass_images(g, ps, &plan, &pf, in, out, images, 1, NULL, NULL);
    bytes_in = NULL;
    if (rc == 0) {
        int landed = 0, moved = 0;
        for (int i = 0; i < N; i++) {
            landed += want_si[i] != UPF__FG_NONE;
            const int mx = (i % W) * mw / W, my = (i / W) * mh / H;
            moved += want_m[2 * i] != motion_in[2 * (my * mw + mx)];
        }
        CHECKF(landed > N / 2 && landed <= N, "%s: %d of %d cells of N-1 seen by N", what,
               landed, N);
        CHECKF(moved >= shaded, "%s: the shade rule moved %d pixels (expected %d or more)", what,
               moved, shaded);
        /* the second splat's grid: step 3's where the rule moved a pixel, else empty (the
         * frames of the cases without `shaded` are black: it moves none) */
        const upf__vk_grid sg = pf.grid[UPF__VK_FG_VECTORS_SHADED_FROM];
        CHECKF(shaded ? flag[0] == sg.x && flag[1] == sg.y && flag[2] == 1
                      : !flag[0] && !flag[1] && !flag[2],
               "%s: the second splat's workgroups %u x %u x %u (expected %s)", what, flag[0],
               flag[1], flag[2], shaded ? "step 3's grid" : "none");
        /* step 3's grid: the whole grid where a pixel is a candidate of the shade rule (still,
         * radius + 2 from the edges), else empty (vectors.comp, step 0) */
        int candidates = 0;
        const int m = con->shade_radius + 2; /* the margin */
        for (int i = 0; i < N; i++) {
            const int x = i % W, y = i / W, mx = x * mw / W, my = y * mh / H;
            const float vx = motion_in[2 * (my * mw + mx)] * con->scale_x;
            const float vy = motion_in[2 * (my * mw + mx) + 1] * con->scale_y;
            candidates += con->shade_threshold > 0.0f && x >= m && y >= m && x < W - m &&
                          y < H - m && vx * vx + vy * vy <= 0.0025f;
        }
        const uint32_t *call = flag + UPF__VK_FG_SHADE_CALL / 4;
        CHECKF(candidates ? call[0] == sg.x && call[1] == sg.y && call[2] == 1
                          : !call[0] && !call[1] && !call[2],
               "%s: the shade step's workgroups %u x %u x %u (%d candidates)", what, call[0],
               call[1], call[2], candidates);
        CHECKF(!shaded || candidates, "%s: no candidate of the shade rule", what);
        compare_u32(got_m, want_m, 2 * N, W, what, "motion");
        compare_u32(got_p, want_p, N, W, what, "priority");
        compare_u32(got_s, want_s, N, W, what, "splat_prev");
        compare_u32(got_si, want_si, N, W, what, "splat_prev_index");
        compare_u32(got_l, want_l, N, W, what, "splat_land");
        compare_u32(got_pm, want_pm, 2 * N, W, what, "prev_motion");
    }
    vkt_image_free(g->t, &mi);
    vkt_image_free(g->t, &di);
    upf_interpolate_destroy(&e);
}

static void test_vectors(gpu *g)
{
    static float motion[2 * N], depth[N];
    enum { MW = 31, MH = 19 };
    test_rng rng = test_rng_make("test_vk_framegen vectors");
    for (int i = 0; i < MW * MH; i++) {
        motion[2 * i] = (float)test_rand_int(&rng, -24, 24) / 4.0f;
        motion[2 * i + 1] = (float)test_rand_int(&rng, -24, 24) / 4.0f;
        const int k = test_rand_int(&rng, 0, 9);
        depth[i] = k == 0 ? -0.0f : (float)k / 8.0f;
    }
    vectors_case(g, upf_interpolate_params(.width = W, .height = H, .motion_width = MW,
                                            .motion_height = MH,
                                            .flags = UPF_INTERPOLATE_DEPTH_REVERSED),
                 motion, depth, NULL, NULL, false, 0, 0, "random at 31x19, reversed depth");
    turn_motion(motion, depth, 0.05);
    vectors_case(g, upf_interpolate_params(.width = W, .height = H), motion, depth, NULL, NULL,
                 false, 0, 0, "the turn with a near square");
    /* the shade rule: still ground (random texture) under a disc of shadow that moves 2 px
     * right and 1 down, and a still square beside it that moves 3 px left */
    static float prev[4 * N], cur[4 * N];
    for (int i = 0; i < N; i++) {
        const int x = i % W, y = i / W;
        const float v = 0.3f + 0.3f * (float)test_rand_int(&rng, 0, 1000) / 1000.0f;
        const float d0 = (float)((x - 24) * (x - 24) + (y - 18) * (y - 18));
        const float d1 = (float)((x - 26) * (x - 26) + (y - 19) * (y - 19));
        const float lp = d0 < 64.0f ? 0.35f : 1.0f, lc = d1 < 64.0f ? 0.35f : 1.0f;
        for (int k = 0; k < 3; k++)
            prev[4 * i + k] = lp * v, cur[4 * i + k] = lc * v;
        prev[4 * i + 3] = cur[4 * i + 3] = 1.0f;
        const bool sq = x >= 44 && x < 52 && y >= 10 && y < 18;
        motion[2 * i] = sq ? 3.0f : 0.0f;
        motion[2 * i + 1] = 0.0f;
        depth[i] = sq ? 0.25f : 0.5f;
    }
    vectors_case(g, upf_interpolate_params(.width = W, .height = H), motion, depth, prev, cur,
                 false, 20, 0, "a shadow moving over still ground");
    /* the largest radius: the tile +- e 36 pixels wide, its rows' stillness in two words */
    vectors_case(g, upf_interpolate_params(.width = W, .height = H), motion, depth, prev, cur,
                 false, 20, UPF__FG_SHADE_RADIUS_MAX, "a shadow moving over still ground, "
                 "radius 8");
    /* the shadow at the frame's left edge (no candidate within radius + 2 of it) and beside the
     * moving square (a changed patch with a moving pixel in its window is left alone): the
     * GPU's tiles at an edge and the window test (vectors.comp, shade_tile) */
    static float prev2[4 * N], cur2[4 * N], motion2[2 * N];
    for (int i = 0; i < N; i++) {
        const int x = i % W, y = i / W;
        const float d0 = (float)((x - 9) * (x - 9) + (y - 18) * (y - 18));
        const float d1 = (float)((x - 11) * (x - 11) + (y - 20) * (y - 20));
        const float v = 0.3f + 0.3f * (float)test_rand_int(&rng, 0, 1000) / 1000.0f;
        const float lp = d0 < 64.0f ? 0.35f : 1.0f, lc = d1 < 64.0f ? 0.35f : 1.0f;
        for (int k = 0; k < 3; k++)
            prev2[4 * i + k] = lp * v, cur2[4 * i + k] = lc * v;
        prev2[4 * i + 3] = cur2[4 * i + 3] = 1.0f;
        const bool sq = x >= 24 && x < 32 && y >= 12 && y < 22;
        motion2[2 * i] = sq ? -3.0f : 0.0f;
        motion2[2 * i + 1] = 0.0f;
        depth[i] = sq ? 0.25f : 0.5f;
    }
    vectors_case(g, upf_interpolate_params(.width = W, .height = H), motion2, depth, prev2, cur2,
                 false, 10, 0, "a shadow at the frame's edge beside a moving square");
    /* the largest radius with the square at x = 23 moving right (N-1's cells 23 .. 25 not
     * seen by N): the windows of the shadow's pixels x = 13 .. 15 (the first tile's columns
     * 12 .. 15) reach them only in their rows' second words (vectors.comp, still_window) */
    for (int i = 0; i < N; i++) {
        const int x = i % W, y = i / W;
        const bool sq = x >= 23 && x < 31 && y >= 12 && y < 22;
        motion2[2 * i] = sq ? 3.0f : 0.0f;
        depth[i] = sq ? 0.25f : 0.5f;
    }
    vectors_case(g, upf_interpolate_params(.width = W, .height = H), motion2, depth, prev2, cur2,
                 false, 1, UPF__FG_SHADE_RADIUS_MAX, "a shadow at the frame's edge beside a "
                 "moving square, radius 8");
    for (int i = 0; i < N; i++) /* the square of the cases below again */
        depth[i] = motion[2 * i] != 0.0f ? 0.25f : 0.5f;
    /* the same from 8-bit frames (both host colours sRGB codes): the CPU on the codes' floats */
    for (int i = 0; i < 4 * N; i++) {
        prev[i] = upf_srgb8_to_linear_table[upf_linear_to_srgb8(prev[i])];
        cur[i] = upf_srgb8_to_linear_table[upf_linear_to_srgb8(cur[i])];
    }
    vectors_case(g, upf_interpolate_params(.width = W, .height = H), motion, depth, prev, cur,
                 true, 20, 0, "a shadow moving over still ground, 8-bit frames");
}

/* ---- fill -------------------------------------------------------------------------------- */

/* The fill on the GPU against the CPU's; `max_holes`: the most holes the case may have (it
 * must have some) */
static void fill_case_holes(gpu *g, const upf__passes *ps, const uint32_t *splat,
                            const uint32_t *index, const float *motion, const float *cam,
                            int max_holes, const char *what)
{
    const upf__fg_fill_con *con = ps->con[UPF__FG_FILL];
    const size_t pyr = surface_bytes(ps, UPF__FG_MOTION_PYRAMID);
    static float want_t[4 * N], got_t[4 * N];
    float *want_p = calloc(1, pyr), *got_p = calloc(1, pyr);
    void *in[UPF__SURFACES_MAX] = { 0 }, *out[UPF__SURFACES_MAX] = { 0 };
    void *cpu[UPF__SURFACES_MAX] = { 0 };
    in[UPF__FG_SPLAT] = cpu[UPF__FG_SPLAT] = (void *)splat;
    in[UPF__FG_SPLAT_INDEX] = cpu[UPF__FG_SPLAT_INDEX] = (void *)index;
    in[UPF__FG_MOTION] = cpu[UPF__FG_MOTION] = (void *)motion;
    float with_g[UPF__FG_CAMERA_FLOATS]; /* G as the splat's powers step leaves it */
    in[UPF__FG_CAMERA] = camera_powers(cam, 0.5f, with_g);
    cpu[UPF__FG_CAMERA] = (void *)cam;
    cpu[UPF__FG_MOTION_T] = want_t, cpu[UPF__FG_MOTION_PYRAMID] = want_p;
    out[UPF__FG_MOTION_T] = got_t, out[UPF__FG_MOTION_PYRAMID] = got_p;
    cpu_pass(g->ctx, ps, UPF__FG_FILL, con, cpu);
    struct { upf__fg_fill_con con; int32_t step; } push = { *con, 0 };
    const upf__vk_pass_plan plan = {
        .pass = UPF__FG_FILL, .stamp = true, .push_bytes = sizeof push, .patch_used = true,
        .patch_offset = sizeof *con, .variant_count = 1,
        .variant = { { "framegen/fill", NULL, NULL } } };
    /* as the engine records them: the down steps (five levels a dispatch, the first one
     * decoding level 0), up */
    upf__vk_pass_frame pf = { .run = true, .push = &push };
    upf__vk_fg_fill_dispatches(&pf, W, H, con->levels);
    CHECKF(con->levels >= 3, "%s: %d levels", what, con->levels);
    if (run_pass(g, ps, &plan, &pf, in, out) == 0) {
        int holes = 0;
        for (int i = 0; i < N; i++)
            holes += want_t[4 * i + 3] != 0.0f;
        CHECKF(holes > 0 && holes <= max_holes, "%s: %d holes", what, holes);
        compare_u32(got_t, want_t, 4 * N, W, what, "motion_t");
        /* each level's pixels (the atlas is as wide as level 0: the rest is not written) */
        for (int l = 1; l < con->levels; l++) {
            const int lw = upf__fg_level_size(W, l), lh = upf__fg_level_size(H, l);
            const size_t base = (size_t)(upf__fg_level_row(H, l) - H) * W * 4;
            int d = 0, first = -1;
            for (int y = 0; y < lh; y++) {
                int f;
                const size_t o = base + (size_t)y * W * 4;
                const int dr = count_diff_u32((const uint32_t *)got_p + o,
                                              (const uint32_t *)want_p + o, 4 * lw, &f);
                if (dr && d == 0)
                    first = y * lw + f / 4;
                d += dr;
            }
            CHECKF(d == 0, "%s: motion pyramid level %d: %d words differ; first pixel (%d, %d)",
                   what, l, d, first < 0 ? 0 : first % lw, first < 0 ? 0 : first / lw);
        }
    }
    free(want_p);
    free(got_p);
}

static void fill_case(gpu *g, const upf__passes *ps, const uint32_t *splat, const uint32_t *index,
                      const float *motion, const float *cam, const char *what)
{
    fill_case_holes(g, ps, splat, index, motion, cam, N / 2 - 1, what);
}

static void test_fill(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    const upf__passes *ps = er.ps;
    fill_case(g, ps, ps->surface[UPF__FG_SPLAT].data, ps->surface[UPF__FG_SPLAT_INDEX].data,
              ps->surface[UPF__FG_MOTION].data, ps->surface[UPF__FG_CAMERA].data,
              "the engine's turn, t = 1/2");
    /* random: blobs of holes, priorities with ties and with the high bit (reversed depth) */
    static uint32_t splat[N], index[N];
    static float motion[2 * N];
    static const float no_cam[UPF__FG_CAMERA_FLOATS];
    test_rng rng = test_rng_make("test_vk_framegen fill");
    for (int i = 0; i < N; i++) {
        const int x = i % W, y = i / W;
        const bool hole = ((x / 5) * 7 + (y / 4) * 3) % 11 == 0 || test_rand_int(&rng, 0, 30) == 0;
        splat[i] = (uint32_t)test_rand_int(&rng, 0, 3) * 0x40000000u + 0x3f000000u;
        index[i] = hole ? UPF__FG_NONE : (uint32_t)test_rand_int(&rng, 0, N - 1);
        motion[2 * i] = (float)test_rand_int(&rng, -40, 40) / 8.0f;
        motion[2 * i + 1] = (float)test_rand_int(&rng, -40, 40) / 8.0f;
    }
    fill_case(g, ps, splat, index, motion, no_cam, "random holes, no camera");
    fill_case(g, ps, splat, index, motion, ps->surface[UPF__FG_CAMERA].data,
              "random holes, the turn's camera");
    /* all priorities apart: a farther surface on the levels above the first one found */
    for (int i = 0; i < N; i++)
        splat[i] = test_rand_u32(&rng);
    fill_case(g, ps, splat, index, motion, no_cam, "random holes, priorities apart");
    /* the flow's rank: speeds and lost vectors (UPF__FG_LOST), consistent ones alike */
    for (int i = 0; i < N; i++)
        splat[i] = test_rand_int(&rng, 0, 3) == 0 ? UPF__FG_LOST : test_rand_u32(&rng) | 1u;
    upf__fg_fill_con *fc = ps->con[UPF__FG_FILL];
    fc->flow_rank = 1;
    fill_case(g, ps, splat, index, motion, no_cam, "random holes, the flow's rank");
    fc->flow_rank = 0;
    /* three pixels landed: most holes find a motion only on the coarsest levels (the up
     * step loads four levels' ancestors at a time: its second four) */
    for (int i = 0; i < N; i++)
        index[i] = UPF__FG_NONE;
    for (int k = 0; k < 3;) { /* three distinct pixels: a repeat would leave N - 2 holes */
        const int at = test_rand_int(&rng, 0, N - 1);
        if (index[at] == UPF__FG_NONE)
            index[at] = (uint32_t)test_rand_int(&rng, 0, N - 1), k++;
    }
    fill_case_holes(g, ps, splat, index, motion, no_cam, N - 3, "three pixels landed");
    upf_interpolate_destroy(&er.e);
}

/* ---- resolve ----------------------------------------------------------------------------- */

/* The CPU's inpaint of `got` (a resolved frame) with `levels` levels: its colour pyramid
 * (calloc'd). */
static float *cpu_pyramid(gpu *g, const upf__passes *ps, const float *got, int levels)
{
    upf__fg_inpaint_con con = *(const upf__fg_inpaint_con *)ps->con[UPF__FG_INPAINT];
    con.levels = levels;
    float *want_p = calloc(1, surface_bytes(ps, UPF__FG_COLOR_PYRAMID));
    static float inp[4 * N];
    void *cpu[UPF__SURFACES_MAX] = { 0 };
    cpu[UPF__FG_RESOLVED] = (void *)got, cpu[UPF__FG_COLOR_PYRAMID] = want_p;
    cpu[UPF__FG_INPAINTED] = inp;
    cpu_pass(g->ctx, ps, UPF__FG_INPAINT, &con, cpu);
    return want_p;
}

/* Level l of the colour pyramids a and b: the words that differ (`channels` of each pixel's
 * four), the first such pixel in *first. */
static int level_diff(const float *a, const float *b, int l, int channels, int *first)
{
    const int lw = upf__fg_level_size(W, l), lh = upf__fg_level_size(H, l);
    const size_t o = (size_t)(upf__fg_level_row(H, l) - H) * W * 4;
    int d = 0;
    *first = -1;
    for (int y = 0; y < lh; y++)
        for (int x = 0; x < lw; x++)
            for (int c = 0; c < channels; c++) {
                const size_t i = o + (size_t)y * W * 4 + 4 * (size_t)x + (size_t)c;
                if (memcmp(&a[i], &b[i], 4) != 0) {
                    *first = *first < 0 ? y * lw + x : *first;
                    d++;
                }
            }
    return d;
}

/* The colour pyramid the GPU made (`pyr`) from the frame it resolved (`got`), as the engine
 * leaves it: level 1 the down step's (the resolve's), levels 2 .. levels - 1 after their up
 * steps. Against the CPU's inpaint of those very floats, word for word: with `levels` levels
 * for levels 2 and above, with 2 (level 1 the coarsest, its alpha 1) for level 1's colour
 * (and its alpha too where `levels` is 2). */
static void check_pyramid(gpu *g, const upf__passes *ps, const float *got, const float *pyr,
                          int levels, const char *what)
{
    float *want_p = cpu_pyramid(g, ps, got, levels);
    float *want_1 = levels > 2 ? cpu_pyramid(g, ps, got, 2) : want_p;
    for (int l = 1; l < levels; l++) {
        int first;
        const int lw = upf__fg_level_size(W, l);
        const int d = level_diff(pyr, l == 1 ? want_1 : want_p, l, l == 1 && levels > 2 ? 3 : 4,
                                 &first);
        CHECKF(d == 0, "%s: colour pyramid level %d (of %d) from the GPU's resolved frame: %d "
               "words differ; first pixel (%d, %d)", what, l, levels, d,
               first < 0 ? 0 : first % lw, first < 0 ? 0 : first / lw);
    }
    if (want_1 != want_p)
        free(want_1);
    free(want_p);
}

/* The resolve of the engine's surfaces (its last run; motion_t instead of its own unless
 * NULL) with constants `con` and the scene decision `cut`, making the colour pyramid's level 1
 * too (check_pyramid); the largest difference from the CPU pass on any channel. */
static float resolve_case(gpu *g, const upf__passes *ps, const upf__fg_resolve_con *con,
                          float cut, const float *motion_t, const char *what)
{
    static float want[4 * N], got[4 * N];
    const float scene[4] = { cut, 0, 0, 0 };
    void *in[UPF__SURFACES_MAX] = { 0 }, *out[UPF__SURFACES_MAX] = { 0 };
    void *cpu[UPF__SURFACES_MAX] = { 0 };
    const int reads[] = { UPF__FG_LINEAR_PREV, UPF__FG_LINEAR, UPF__FG_MOTION_T, UPF__FG_MOTION,
                          UPF__FG_PREV_MOTION, UPF__FG_CAMERA };
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++)
        in[reads[k]] = cpu[reads[k]] = ps->surface[reads[k]].data;
    float with_pw[UPF__FG_CAMERA_FLOATS]; /* as the splat's powers step leaves it for t */
    in[UPF__FG_CAMERA] = camera_powers(ps->surface[UPF__FG_CAMERA].data, con->t, with_pw);
    in[UPF__FG_SCENE] = cpu[UPF__FG_SCENE] = (void *)scene;
    if (motion_t)
        in[UPF__FG_MOTION_T] = cpu[UPF__FG_MOTION_T] = (void *)motion_t;
    cpu[UPF__FG_RESOLVED] = want, out[UPF__FG_RESOLVED] = got;
    cpu_pass(g->ctx, ps, UPF__FG_RESOLVE, con, cpu);
    const resolve_push push = { *con, { 0 }, 2 };
    const upf__vk_pass_plan plan = resolve_plan();
    const upf__vk_pass_frame pf = { .run = true, .push = &push, .dispatches = 1,
                                    .grid = { upf__vk_fg_resolve_grid(W, H, false) } };
    float *pyr = calloc(1, surface_bytes(ps, UPF__FG_COLOR_PYRAMID));
    out[UPF__FG_COLOR_PYRAMID] = pyr;
    const int failed = run_pass(g, ps, &plan, &pf, in, out);
    if (!failed)
        check_pyramid(g, ps, got, pyr, 2, what); /* the resolve's level 1 */
    free(pyr);
    if (failed)
        return INFINITY;
    float worst = 0.0f;
    int holes = 0;
    for (int i = 0; i < 4 * N; i++) {
        const float d = fabsf(got[i] - want[i]);
        worst = d > worst || d != d ? d : worst;
        holes += (i & 3) == 3 && want[i] == 0.0f;
    }
    CHECKF(worst <= 2e-5f, "%s: resolved differs from the CPU's by up to %g", what, worst);
    CHECKF(holes < N / 4, "%s: %d holes", what, holes);
    return worst;
}

static void test_resolve(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    const upf__passes *ps = er.ps;
    upf__fg_resolve_con con = *(const upf__fg_resolve_con *)ps->con[UPF__FG_RESOLVE];
    CHECK(upf__fg_camera_has(ps->surface[UPF__FG_CAMERA].data));
    float worst[5];
    worst[0] = resolve_case(g, ps, &con, 0.0f, NULL, "the turn with its camera, t = 1/2");
    con.visibility = 0;
    worst[1] = resolve_case(g, ps, &con, 0.0f, NULL, "the turn, without visibility (as the flow)");
    /* the left half's motion random (-12 .. 12 px a pixel): neighbours' Lanczos windows far
     * apart, taps clamped at the frame's edges */
    static float mt[4 * N];
    memcpy(mt, ps->surface[UPF__FG_MOTION_T].data, sizeof mt);
    test_rng rng = test_rng_make("test_vk_framegen resolve");
    for (int i = 0; i < N; i++)
        if (i % W < W / 2)
            for (int k = 0; k < 2; k++)
                mt[4 * i + k] = (float)test_rand_int(&rng, -48, 48) / 4.0f;
    worst[4] = resolve_case(g, ps, &con, 0.0f, mt, "random motion in the left half");
    con.visibility = 1, con.t = 0.3f;
    worst[2] = resolve_case(g, ps, &con, 1.0f, NULL, "the scene pass's cut: the blend at t = 0.3");
    con.blend = 1;
    worst[3] = resolve_case(g, ps, &con, 0.0f, NULL, "the host's blend at t = 0.3");
    printf("resolve: largest differences %g %g %g %g %g\n", worst[0], worst[1], worst[2],
           worst[3], worst[4]);
    upf_interpolate_destroy(&er.e);
}

/* ---- inpaint ----------------------------------------------------------------------------- */

/* The compose's push constants (compose.glsl): its constants, the rectangles' offsets, the
 * transfers, the inpaint's levels (the compose makes its level 0). */
typedef struct compose_push {
    upf__fg_compose_con con;
    int32_t rect[4];
    uint32_t transfer[2];
    int32_t levels;
    uint32_t table[2];  /* with the 8-bit frames: each frame's decode table */
} compose_push;

/* The compose pass without a HUD layer, as the engine's, into an RGBA32F storage image. */
static upf__vk_pass_plan compose_plan(bool hud)
{
    const uint64_t no_hud = UPF__VK_RES(UPF__FG_RESOLVED) | UPF__VK_RES(UPF__FG_COLOR_PYRAMID) |
                            UPF__VK_RES(UPF__FG_LINEAR_PREV) | UPF__VK_RES(UPF__FG_LINEAR);
    upf__vk_pass_plan p = {
        .pass = UPF__FG_COMPOSE, .stamp = true, .own_masks = true,
        .reads = no_hud | (hud ? UPF__VK_RES(UPF__FG_HUD) : 0),
        .writes = UPF__VK_RES(UPF__FG_OUTPUT), .push_bytes = sizeof(compose_push),
        .variant_count = 1,
        .variant = { { hud ? "framegen/compose_hud" : "framegen/compose", NULL, NULL } } };
    upf__vk_fg_bytes_variants(&p, p.variant[0].shader); /* as the engine's */
    return p;
}

/* The inpaint as the engine runs it but for level 1's down step (the resolve's in the
 * engine): down from level 1, up to level 2 (inpaint.comp), and levels 1 and 0 up in the
 * compose (compose.glsl; no still-pixel rule, no HUD: the output is the inpainted frame). */
static void inpaint_case(gpu *g, const upf__passes *ps, const float *resolved, const char *what)
{
    const upf__fg_inpaint_con *con = ps->con[UPF__FG_INPAINT];
    const size_t pyr = surface_bytes(ps, UPF__FG_COLOR_PYRAMID);
    static float want[4 * N];
    float *want_p = calloc(1, pyr), *got_p = calloc(1, pyr);
    void *in[UPF__SURFACES_MAX] = { 0 }, *out[UPF__SURFACES_MAX] = { 0 };
    void *cpu[UPF__SURFACES_MAX] = { 0 };
    in[UPF__FG_RESOLVED] = cpu[UPF__FG_RESOLVED] = (void *)resolved;
    cpu[UPF__FG_INPAINTED] = want, cpu[UPF__FG_COLOR_PYRAMID] = want_p;
    out[UPF__FG_COLOR_PYRAMID] = got_p;
    cpu_pass(g->ctx, ps, UPF__FG_INPAINT, con, cpu);
    struct { upf__fg_inpaint_con con; int32_t step; } push = { *con, 0 };
    const upf__vk_pass_plan base = {
        .pass = UPF__FG_INPAINT, .push_bytes = sizeof push, .patch_used = true,
        .patch_offset = sizeof *con, .variant_count = 1,
        .variant = { { "framegen/inpaint", NULL, NULL } } };
    upf__vk_pass_plan plan[3] = { base, base, compose_plan(false) };
    plan[1].stamp = true;
    compose_push cp = { *(const upf__fg_compose_con *)ps->con[UPF__FG_COMPOSE], { 0 }, { 0 },
                        con->levels, { 0 } };
    cp.con.still_rule = 0, cp.con.hud = 0;
    const upf__vk_grid px = upf__vk_grid16(W, H); /* the compose's, as the engine's */
    upf__vk_pass_frame pf[3] = { { .run = true, .push = &push }, { .run = true, .push = &push },
                                 { .run = true, .push = &cp, .dispatches = 1, .grid = { px } } };
    const int L = con->levels;
    upf__vk_fg_down_dispatches(&pf[0], W, H, L, 1); /* five levels a dispatch, from level 1 */
    upf__vk_fg_up_dispatches(&pf[1], W, H, L, 2); /* the small levels in one workgroup */
    CHECKF(pf[1].dispatches < L - 2, "%s: the up steps' tail: %d dispatches for %d levels",
           what, pf[1].dispatches, L - 2);
    vkt_image oi = vkt_image_make(g->t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    vkt_buffer down = vkt_buffer_make(g->t, (VkDeviceSize)N * 16);
    const upf_vk_image lo = vkt_lend(&oi, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
    const upf_vk_image *images[UPF__SURFACES_MAX] = { 0 };
    images[UPF__FG_OUTPUT] = &lo;
    if (run_pass_images(g, ps, plan, pf, in, out, images, 3, &oi, &down) == 0) {
        compare_u32(down.map, want, 4 * N, W, what, "inpainted (the compose's output)");
        check_pyramid(g, ps, resolved, got_p, L, what);
    }
    vkt_buffer_free(g->t, &down);
    vkt_image_free(g->t, &oi);
    free(want_p);
    free(got_p);
}

static void test_inpaint(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    const upf__passes *ps = er.ps;
    static float res[4 * N];
    test_rng rng = test_rng_make("test_vk_framegen inpaint");
    int holes = 0;
    for (int i = 0; i < N; i++) {
        const int x = i % W, y = i / W;
        const bool hole = (x > 10 && x < 30 && y > 5 && y < 20) || test_rand_int(&rng, 0, 9) == 0;
        for (int k = 0; k < 3; k++)
            res[4 * i + k] = hole ? 0.0f : test_rand_float(&rng) * 2.0f;
        res[4 * i + 3] = hole ? 0.0f : 1.0f;
        holes += hole;
    }
    CHECKF(ps->con[UPF__FG_INPAINT] && ((const upf__fg_inpaint_con *)
           ps->con[UPF__FG_INPAINT])->levels >= 3, "inpaint levels");
    inpaint_case(g, ps, res, "a block of holes and scattered ones");
    for (int i = 0; i < N; i++)
        res[4 * i + 3] = 1.0f;
    inpaint_case(g, ps, res, "no holes (a copy)");
    inpaint_case(g, ps, ps->surface[UPF__FG_RESOLVED].data, "the engine's turn");
    CHECK(holes > 300);
    upf_interpolate_destroy(&er.e);
}

/* ---- compose ----------------------------------------------------------------------------- */

/* The compose of `inpainted` over the frames `prev`, `cur` with the HUD layer `hud` (RGBA32F,
 * or NULL: the still-pixel rule) at phase t into an RGBA32F storage image. The GPU's compose
 * makes the inpainted frame from the resolved one (the inpaint's level 0): `inpainted` has
 * alpha 1 everywhere, so the resolved frame is it (inpaint_case tests the holes). */
static void compose_case(gpu *g, const upf__passes *ps, const float *inpainted,
                         const float *prev, const float *cur, const float *hud, float t,
                         const char *what)
{
    upf__fg_compose_con con = *(const upf__fg_compose_con *)ps->con[UPF__FG_COMPOSE];
    con.t = t, con.hud = hud != NULL;
    static float lp[4 * N], lc[4 * N]; /* as prepare leaves them */
    linear_frame(prev, lp, N);
    linear_frame(cur, lc, N);
    prev = lp, cur = lc;
    static float want[4 * N];
    static int scratch_words[2 * 8 * W + H + 16];
    const upf_image want_im = { want, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image hud_im = { (void *)hud, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image *cimg[UPF__SURFACES_MAX] = { 0 };
    cimg[UPF__FG_OUTPUT] = &want_im, cimg[UPF__FG_HUD] = hud ? &hud_im : NULL;
    void *in[UPF__SURFACES_MAX] = { 0 }, *out[UPF__SURFACES_MAX] = { 0 };
    void *cpu[UPF__SURFACES_MAX] = { 0 };
    cpu[UPF__FG_INPAINTED] = (void *)inpainted;
    in[UPF__FG_RESOLVED] = (void *)inpainted;
    in[UPF__FG_LINEAR_PREV] = cpu[UPF__FG_LINEAR_PREV] = (void *)prev;
    in[UPF__FG_LINEAR] = cpu[UPF__FG_LINEAR] = (void *)cur;
    CHECK(upf__fg_compose_scratch_bytes(2, W, H) <= sizeof scratch_words);
    cpu_pass_images(g->ctx, ps, UPF__FG_COMPOSE, &con, cpu, cimg, scratch_words,
                    sizeof scratch_words);

    vkt_image oi = vkt_image_make(g->t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    vkt_buffer down = vkt_buffer_make(g->t, (VkDeviceSize)N * 16);
    vkt_image hi = { 0 };
    const upf_vk_image lo = vkt_lend(&oi, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
    const upf_vk_image *images[UPF__SURFACES_MAX] = { 0 };
    images[UPF__FG_OUTPUT] = &lo;
    upf_vk_image lh;
    if (hud) {
        hi = vkt_sampled_image(g->t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 16, hud);
        lh = vkt_lend(&hi, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
        images[UPF__FG_HUD] = &lh;
    }
    const int levels = ((const upf__fg_inpaint_con *)ps->con[UPF__FG_INPAINT])->levels;
    const compose_push push = { con, { 0 }, { 0 }, levels, { 0 } };
    const upf__vk_pass_plan plan = compose_plan(hud != NULL);
    const upf__vk_pass_frame pf = { .run = true, .push = &push, .dispatches = 1,
                                    .grid = { upf__vk_grid16(W, H) } }; /* as the engine's */
    void *dst[UPF__SURFACES_MAX] = { 0 };
    if (run_pass_images(g, ps, &plan, &pf, in, dst, images, 1, &oi, &down) == 0)
        compare_u32(down.map, want, 4 * N, W, what, "the output");
    (void)out;
    vkt_buffer_free(g->t, &down);
    vkt_image_free(g->t, &oi);
    if (hud)
        vkt_image_free(g->t, &hi);
}

static void test_compose(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    static float inp[4 * N], prev[4 * N], cur[4 * N], hud[4 * N];
    test_rng rng = test_rng_make("test_vk_framegen compose");
    static const float alphas[5] = { 0.0f, 1.0f, 0.5f, 0.25f, 1.5f };
    for (int i = 0; i < N; i++) {
        const int x = i % W, y = i / W;
        const bool band = y >= 10 && y < 16, line = x == 40, near = y >= 25 && y < 30;
        for (int k = 0; k < 4; k++) {
            inp[4 * i + k] = k == 3 ? 1.0f : test_rand_float(&rng); /* no holes */
            prev[4 * i + k] = test_rand_float(&rng);
            cur[4 * i + k] = band || line ? prev[4 * i + k]
                           : near ? prev[4 * i + k] * (1.0f + 0.001f * test_rand_float(&rng))
                           : test_rand_float(&rng);
            hud[4 * i + k] = k == 3 ? alphas[test_rand_int(&rng, 0, 4)] : test_rand_float(&rng);
        }
    }
    compose_case(g, er.ps, inp, prev, cur, NULL, 0.5f, "the still rule, t = 1/2");
    compose_case(g, er.ps, inp, prev, cur, NULL, 0.25f, "the still rule, t = 1/4");
    compose_case(g, er.ps, inp, prev, cur, hud, 0.5f, "a HUD layer");
    upf_interpolate_destroy(&er.e);
}

/* ---- the 8-bit frames -------------------------------------------------------------------- */

static bool bgra(VkFormat f)
{
    return f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_B8G8R8A8_SRGB;
}

static bool srgb_format(VkFormat f)
{
    return f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_B8G8R8A8_SRGB;
}

/* The passes from 8-bit colours as the engine records them (prepare, resolve, inpaint down
 * and up, compose with the still-pixel rule, each with the 8-bit frames where it has them) in
 * one runner frame, on the engine's turn (its motion at t = 1/2, its camera with the powers
 * for t), against the CPU's passes on upf_images of the same bytes (UPF_FORMAT_RGBA8_SRGB
 * where the host's image is an SRGB format or srgb = 1, else RGBA8_UNORM). Random codes, every
 * code in each channel somewhere, rows 10 .. 15 the same in both frames. */
static void bytes_case(gpu *g, const upf__passes *ps, VkFormat pfmt, int psrgb, VkFormat cfmt,
                       int csrgb, const char *what)
{
    static uint8_t a8[4 * N], b8[4 * N], a_up[4 * N], b_up[4 * N];
    test_rng rng = test_rng_make(what);
    for (int i = 0; i < 4 * N; i++) {
        const int y = i / 4 / W, k = i & 3;
        const int r = test_rand_int(&rng, 0, 255), p = i / 4; /* pixel p < 256: code p */
        a8[i] = (uint8_t)(p < 256 ? (k == 1 ? 255 - p : p) : r);
        b8[i] = (uint8_t)(y >= 10 && y < 16 ? a8[i] : p < 256 ? p : test_rand_int(&rng, 0, 255));
    }
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 4; k++) { /* the GPU's images in their byte order */
            const int s = k == 3 ? 3 : 2 - k;
            a_up[4 * i + k] = a8[4 * i + (bgra(pfmt) ? s : k)];
            b_up[4 * i + k] = b8[4 * i + (bgra(cfmt) ? s : k)];
        }
    const bool ps8 = psrgb || srgb_format(pfmt), cs8 = csrgb || srgb_format(cfmt);
    const upf_image ia = { a8, W, H, 0, ps8 ? UPF_FORMAT_RGBA8_SRGB : UPF_FORMAT_RGBA8_UNORM };
    const upf_image ib = { b8, W, H, 0, cs8 ? UPF_FORMAT_RGBA8_SRGB : UPF_FORMAT_RGBA8_UNORM };
    static float lin_a[4 * N], lin_b[4 * N], res[4 * N], inp[4 * N], want[4 * N];
    const size_t hb = surface_bytes(ps, UPF__FG_HISTOGRAMS);
    const size_t bb = (UPF__VK_FG_TABLE + 2 * (size_t)N) * 4;
    uint32_t *want_h = calloc(1, hb), *got_h = calloc(1, hb), *got_b = calloc(1, bb);
    float *pyr = calloc(1, surface_bytes(ps, UPF__FG_COLOR_PYRAMID) + 16);
    void *cpu[UPF__SURFACES_MAX] = { 0 }, *in[UPF__SURFACES_MAX] = { 0 };
    void *dst[UPF__SURFACES_MAX] = { 0 };
    const upf_image *cimg[UPF__SURFACES_MAX] = { 0 };

    upf__fg_prepare_con pcon = *(const upf__fg_prepare_con *)ps->con[UPF__FG_PREPARE];
    pcon.levels = 0;
    cpu[UPF__FG_LINEAR_PREV] = lin_a, cpu[UPF__FG_LINEAR] = lin_b;
    cpu[UPF__FG_HISTOGRAMS] = want_h;
    cimg[UPF__FG_COLOR_PREV] = &ia, cimg[UPF__FG_COLOR] = &ib;
    static int scratch[2 * H];
    cpu_pass_images(g->ctx, ps, UPF__FG_PREPARE, &pcon, cpu, cimg, scratch, sizeof scratch);
    const upf__fg_resolve_con rcon = *(const upf__fg_resolve_con *)ps->con[UPF__FG_RESOLVE];
    const float scene[4] = { 0 };
    const int reads[] = { UPF__FG_MOTION_T, UPF__FG_MOTION, UPF__FG_PREV_MOTION, UPF__FG_CAMERA };
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++)
        in[reads[k]] = cpu[reads[k]] = ps->surface[reads[k]].data;
    float with_pw[UPF__FG_CAMERA_FLOATS]; /* as the splat's powers step leaves it for t */
    in[UPF__FG_CAMERA] = camera_powers(ps->surface[UPF__FG_CAMERA].data, rcon.t, with_pw);
    in[UPF__FG_SCENE] = cpu[UPF__FG_SCENE] = (void *)scene;
    cpu[UPF__FG_RESOLVED] = res;
    cpu_pass(g->ctx, ps, UPF__FG_RESOLVE, &rcon, cpu);
    const upf__fg_inpaint_con *icon = ps->con[UPF__FG_INPAINT];
    cpu[UPF__FG_COLOR_PYRAMID] = pyr, cpu[UPF__FG_INPAINTED] = inp;
    cpu_pass(g->ctx, ps, UPF__FG_INPAINT, icon, cpu);
    upf__fg_compose_con ccon = *(const upf__fg_compose_con *)ps->con[UPF__FG_COMPOSE];
    ccon.t = rcon.t, ccon.hud = 0;
    CHECK(ccon.still_rule != 0);
    const upf_image want_im = { want, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image *oimg[UPF__SURFACES_MAX] = { 0 };
    oimg[UPF__FG_OUTPUT] = &want_im;
    static int scratch_words[2 * 8 * W + H + 16];
    CHECK(upf__fg_compose_scratch_bytes(2, W, H) <= sizeof scratch_words);
    cpu_pass_images(g->ctx, ps, UPF__FG_COMPOSE, &ccon, cpu, oimg, scratch_words,
                    sizeof scratch_words);

    vkt_image pi = vkt_sampled_image(g->t, W, H, pfmt, 4, a_up);
    vkt_image ci = vkt_sampled_image(g->t, W, H, cfmt, 4, b_up);
    vkt_image oi = vkt_image_make(g->t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    vkt_buffer down = vkt_buffer_make(g->t, (VkDeviceSize)N * 16);
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    const upf_vk_image lp = vkt_lend(&pi, ro, ro, psrgb), lc = vkt_lend(&ci, ro, ro, csrgb);
    const upf_vk_image lo = vkt_lend(&oi, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
    const upf_vk_image *images[UPF__SURFACES_MAX] = { 0 };
    images[UPF__FG_COLOR_PREV] = &lp, images[UPF__FG_COLOR] = &lc, images[UPF__FG_OUTPUT] = &lo;
    const uint32_t tp = ps8 ? UPF__VK_FG_TABLE_SRGB : UPF__VK_FG_TABLE_UNORM;
    const uint32_t tc = cs8 ? UPF__VK_FG_TABLE_SRGB : UPF__VK_FG_TABLE_UNORM;
    prepare_push pp = { pcon, 0, { 0 }, { (uint32_t)psrgb, (uint32_t)csrgb }, { tp, tc },
                        { srgb_format(pfmt), srgb_format(cfmt) } };
    const resolve_push rp = { rcon, { tp, tc }, icon->levels }; /* it makes level 1 */
    struct { upf__fg_inpaint_con con; int32_t step; } ip = { *icon, 0 };
    const compose_push cp = { ccon, { 0 }, { 0 }, icon->levels, { tp, tc } };
    upf__vk_pass_plan plan[5] = { prepare_plan(), resolve_plan(), { 0 }, { 0 },
                                  compose_plan(false) };
    plan[2] = (upf__vk_pass_plan){ .pass = UPF__FG_INPAINT, .push_bytes = sizeof ip,
                                   .patch_used = true, .patch_offset = sizeof *icon,
                                   .variant_count = 1,
                                   .variant = { { "framegen/inpaint", NULL, NULL } } };
    plan[3] = plan[2];
    plan[3].stamp = true;
    const upf__vk_grid px = { (W + 7) / 8, (H + 7) / 8, 1 };
    const int bytes = UPF__VK_FG_VARIANT_BYTES;
    upf__vk_pass_frame pf[5] = {
        { .run = true, .push = &pp, .dispatches = 1, .grid = { px }, .variant = bytes },
        { .run = true, .push = &rp, .dispatches = 1,
          .grid = { upf__vk_fg_resolve_grid(W, H, true) }, .variant = bytes },
        { .run = true, .push = &ip }, { .run = true, .push = &ip },
        { .run = true, .push = &cp, .dispatches = 1, .grid = { upf__vk_grid16(W, H) },
          .variant = bytes } };
    upf__vk_fg_down_dispatches(&pf[2], W, H, icon->levels, 2); /* as the engine */
    upf__vk_fg_up_dispatches(&pf[3], W, H, icon->levels, 2); /* 1 and 0: the compose's */
    dst[UPF__FG_HISTOGRAMS] = got_h, dst[UPF__VK_FG_BYTES] = got_b;
    static float got_res[4 * N];
    float *got_pyr = calloc(1, surface_bytes(ps, UPF__FG_COLOR_PYRAMID));
    dst[UPF__FG_RESOLVED] = got_res, dst[UPF__FG_COLOR_PYRAMID] = got_pyr;
    if (run_pass_images(g, ps, plan, pf, in, dst, images, 5, &oi, &down) == 0) {
        /* the 8-bit resolve's level 1, with the inpaint's levels above it */
        check_pyramid(g, ps, got_res, got_pyr, icon->levels, what);
        int wrong = 0;
        for (int i = 0; i < N; i++) {
            const uint32_t wa = a8[4 * i] | a8[4 * i + 1] << 8 | (uint32_t)a8[4 * i + 2] << 16;
            const uint32_t wb = b8[4 * i] | b8[4 * i + 1] << 8 | (uint32_t)b8[4 * i + 2] << 16;
            wrong += (got_b[UPF__VK_FG_TABLE + i] != wa) + (got_b[UPF__VK_FG_TABLE + N + i] != wb);
        }
        CHECKF(wrong == 0, "%s: %d of the 8-bit frames' codes are not the images' bytes", what,
               wrong);
        compare_u32(got_h, want_h, (int)(hb / 4), 32, what, "histograms");
        const float *got = down.map;
        float worst = 0.0f;
        for (int i = 0; i < 4 * N; i++) {
            const float d = fabsf(got[i] - want[i]);
            worst = d > worst || d != d ? d : worst;
        }
        printf("8-bit frames, %s: the made frame within %g of the CPU's\n", what, worst);
        CHECKF(worst <= 2e-5f, "%s: the made frame differs from the CPU's by up to %g", what,
               worst);
    }
    vkt_buffer_free(g->t, &down);
    vkt_image_free(g->t, &pi);
    vkt_image_free(g->t, &ci);
    vkt_image_free(g->t, &oi);
    free(want_h), free(got_h), free(got_b), free(pyr), free(got_pyr);
}

static void test_bytes(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    bytes_case(g, er.ps, VK_FORMAT_B8G8R8A8_UNORM, 1, VK_FORMAT_R8G8B8A8_UNORM, 1,
               "BGRA8 and RGBA8 UNORM views of sRGB values");
    bytes_case(g, er.ps, VK_FORMAT_R8G8B8A8_SRGB, 0, VK_FORMAT_B8G8R8A8_UNORM, 0,
               "an RGBA8 SRGB format (the device decodes) and BGRA8 UNORM (linear)");
    upf_interpolate_destroy(&er.e);
}

/* ---- prepare ----------------------------------------------------------------------------- */

static void prepare_case(gpu *g, upf_interpolate_motion motion, int w, int h, const char *what)
{
    upf_interpolate *e = upf_interpolate_create(g->ctx, upf_interpolate_params(
        .width = w, .height = h, .motion = motion));
    CHECK(e != NULL);
    if (!e)
        return;
    const upf__passes *ps = upf__interpolate_passes(e);
    upf__fg_prepare_con con = *(const upf__fg_prepare_con *)ps->con[UPF__FG_PREPARE];
    con.levels = 0;
    while (ps->surface[UPF__FG_LUMA].height > 0 &&
           upf__fg_atlas_rows(h, 0, con.levels) < ps->surface[UPF__FG_LUMA].height)
        con.levels++;
    float *a = malloc(sizeof(float) * 4 * (size_t)w * h), *b = malloc(sizeof(float) * 4 *
                                                                        (size_t)w * h);
    int *scratch = malloc(sizeof(int) * 2 * (size_t)h);
    CHECK(a && b && scratch);
    if (!a || !b || !scratch) {
        free(a), free(b), free(scratch);
        upf_interpolate_destroy(&e);
        return;
    }
    test_rng rng = test_rng_make("test_vk_framegen prepare");
    for (int i = 0; i < 4 * w * h; i++) {
        a[i] = test_rand_float(&rng) * 1.4f - 0.1f;
        b[i] = (i / 4) % 7 == 0 ? a[i] : test_rand_float(&rng);
    }
    /* greys at the bins' edges: luma near (k / 32)^2, up to 3 ulps either side (where the
     * shader's bin takes the correctly rounded root: prepare.comp, luma_bin) */
    for (int p = 0; p < w * h; p++)
        if (p % 13 == 6 || p % 13 == 9) {
            const int k = p / 13 % 33, n = p / 13 / 33 % 7 - 3;
            float grey = (float)(k * k) / 1024.0f;
            for (int u = 0; u < (n < 0 ? -n : n); u++)
                grey = nextafterf(grey, n < 0 ? 0.0f : 2.0f);
            float *px = p % 13 == 6 ? a + 4 * p : b + 4 * p;
            px[0] = px[1] = px[2] = grey;
        }
    const upf_image ia = { a, w, h, 0, UPF_FORMAT_RGBA32F }, ib = { b, w, h, 0,
                                                                   UPF_FORMAT_RGBA32F };
    const upf_image *cimg[UPF__SURFACES_MAX] = { 0 };
    cimg[UPF__FG_COLOR_PREV] = &ia, cimg[UPF__FG_COLOR] = &ib;
    const int outs[] = { UPF__FG_LINEAR_PREV, UPF__FG_LINEAR, UPF__FG_LUMA_PREV, UPF__FG_LUMA,
                         UPF__FG_HISTOGRAMS };
    void *want[UPF__SURFACES_MAX] = { 0 }, *got[UPF__SURFACES_MAX] = { 0 };
    void *in[UPF__SURFACES_MAX] = { 0 };
    for (int k = 0; k < 5; k++) {
        want[outs[k]] = calloc(1, surface_bytes(ps, outs[k]) + 16);
        got[outs[k]] = calloc(1, surface_bytes(ps, outs[k]) + 16);
    }
    cpu_pass_images(g->ctx, ps, UPF__FG_PREPARE, &con, want, cimg, scratch,
                    sizeof(int) * 2 * (size_t)h);

    vkt_image pi = vkt_sampled_image(g->t, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, 16, a);
    vkt_image ci = vkt_sampled_image(g->t, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, 16, b);
    const upf_vk_image lp = vkt_lend(&pi, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
    const upf_vk_image lc = vkt_lend(&ci, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
    const upf_vk_image *images[UPF__SURFACES_MAX] = { 0 };
    images[UPF__FG_COLOR_PREV] = &lp, images[UPF__FG_COLOR] = &lc;
    prepare_push push = { con, 0, { 0 }, { 0 }, { 0 }, { 0 } };
    const upf__vk_pass_plan plan = prepare_plan();
    upf__vk_pass_frame pf = { .run = true, .push = &push };
    upf__vk_fg_prepare_dispatches(&pf, w, h, con.levels); /* as the engine's */
    if (run_pass_images(g, ps, &plan, &pf, in, got, images, 1, NULL, NULL) == 0)
        for (int k = 0; k < 5; k++) {
            const size_t bytes = surface_bytes(ps, outs[k]);
            if (outs[k] == UPF__FG_LUMA_PREV || outs[k] == UPF__FG_LUMA) {
                /* each level's pixels: the atlas is as wide as level 0 */
                for (int l = 0; l < con.levels; l++)
                    for (int y = 0; y < upf__fg_level_size(h, l); y++) {
                        const size_t o = ((size_t)upf__fg_level_row(h, l) + y) * w;
                        char name[48];
                        snprintf(name, sizeof name, "%s level %d row %d",
                                 ps->surface_info[outs[k]].name, l, y);
                        compare_u32((const float *)got[outs[k]] + o,
                                    (const float *)want[outs[k]] + o, upf__fg_level_size(w, l),
                                    upf__fg_level_size(w, l), what, name);
                    }
            } else if (bytes) {
                compare_u32(got[outs[k]], want[outs[k]], (int)(bytes / 4), w, what,
                            ps->surface_info[outs[k]].name);
            }
        }
    CHECKF(motion != UPF_INTERPOLATE_MOTION_FLOW ||
           con.levels >= (w >= 300 ? 6 : w > 100 ? 5 : 3),
           "%s: %d levels", what, con.levels);
    free(a), free(b), free(scratch);
    for (int k = 0; k < 5; k++)
        free(want[outs[k]]), free(got[outs[k]]);
    vkt_image_free(g->t, &pi);
    vkt_image_free(g->t, &ci);
    upf_interpolate_destroy(&e);
}

static void test_prepare(gpu *g)
{
    prepare_case(g, UPF_INTERPOLATE_MOTION_VECTORS, W, H, "game vectors (no pyramid)");
    prepare_case(g, UPF_INTERPOLATE_MOTION_FLOW, W, H, "optical flow (luma pyramids)");
    /* under 64 x 64 (W x H too): a workgroup's pixels in up to 4 regions a side (prepare.comp's
     * slots); 203 x 141: at most 2 */
    prepare_case(g, UPF_INTERPOLATE_MOTION_VECTORS, 29, 13, "game vectors at 29 x 13");
    /* five levels: step 0 makes levels 1 to 4 */
    prepare_case(g, UPF_INTERPOLATE_MOTION_FLOW, 203, 141, "optical flow at 203 x 141");
    /* six levels: step 0 makes levels 1 to 4, a down step level 5 */
    prepare_case(g, UPF_INTERPOLATE_MOTION_FLOW, 300, 270, "optical flow at 300 x 270");
}

/* ---- camera ------------------------------------------------------------------------------ */

/* The camera pass on `motion` with constants `con`: the camera surface and the sums of the
 * last round equal the CPU's exactly (the divisions, square and cube roots correctly rounded
 * as the CPU's: exact.glsl). Returns whether the CPU kept a model. */
static bool camera_case(gpu *g, const upf__passes *ps, const upf__fg_camera_con *con,
                        const float *motion, const char *what)
{
    float want[UPF__FG_CAMERA_FLOATS], got[UPF__FG_CAMERA_FLOATS];
    const size_t sb = surface_bytes(ps, UPF__FG_CAMERA_SUMS);
    float *want_s = calloc(1, sb + 16), *got_s = calloc(1, sb + 16);
    void *in[UPF__SURFACES_MAX] = { 0 }, *out[UPF__SURFACES_MAX] = { 0 };
    void *cpu[UPF__SURFACES_MAX] = { 0 };
    in[UPF__FG_MOTION] = cpu[UPF__FG_MOTION] = (void *)motion;
    cpu[UPF__FG_CAMERA] = want, cpu[UPF__FG_CAMERA_SUMS] = want_s;
    out[UPF__FG_CAMERA] = got, out[UPF__FG_CAMERA_SUMS] = got_s;
    cpu_pass(g->ctx, ps, UPF__FG_CAMERA_PASS, con, cpu);
    struct { upf__fg_camera_con con; int32_t step; } push = { *con, 0 };
    const upf__vk_pass_plan plan = {
        .pass = UPF__FG_CAMERA_PASS, .stamp = true, .push_bytes = sizeof push,
        .patch_used = true, .patch_offset = sizeof *con, .variant_count = 1,
        .variant = { { "framegen/camera", NULL, NULL } } };
    upf__vk_pass_frame pf = { .push = &push };
    upf__vk_fg_camera_frame(con, &pf);
    if (run_pass(g, ps, &plan, &pf, in, out) == 0) {
        for (int k = 0; k < UPF__FG_CAMERA_FLOATS; k++) {
            CHECKF(memcmp(&got[k], &want[k], 4) == 0,
                   "%s: camera[%d]: GPU %.9g, CPU %.9g", what, k, got[k], want[k]);
        }
        if (con->fit && !con->given)
            compare_u32(got_s, want_s, (int)(sb / 4), UPF__FG_CAMERA_ROW, what, "camera_sums");
    }
    free(want_s);
    free(got_s);
    return want[0] != 0.0f;
}

/* A grid of 200 x 170 pixels (step 1): 133 blocks, so the solve's invocations add a second
 * block (i + 128) before the tree, where the turn's 9 blocks leave it zeros; a homography's
 * motion with every seventh pixel an outlier and a tenth invalid. */
/* A vectors engine of w x h and its camera pass's constants set to fit (not given). */
static upf_interpolate *camera_engine(gpu *g, int w, int h, upf__fg_camera_con *con)
{
    upf_interpolate *e = upf_interpolate_create(g->ctx, upf_interpolate_params(
        .width = w, .height = h, .motion = UPF_INTERPOLATE_MOTION_VECTORS));
    CHECK(e != NULL);
    if (!e)
        return NULL;
    *con = *(const upf__fg_camera_con *)upf__interpolate_passes(e)->con[UPF__FG_CAMERA_PASS];
    con->fit = 1, con->given = 0;
    return e;
}

/* w x h game vectors of a homography about the frame's centre (coordinates over half the
 * larger side), every seventh pixel an outlier and a tenth invalid, from rng. */
static void homography_motion(float *motion, int w, int h, test_rng *rng)
{
    const double sc = 0.5 * UPF_MAX(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double u = (x + 0.5 - 0.5 * w) / sc, v = (y + 0.5 - 0.5 * h) / sc;
            const double q = 1 + 0.02 * u - 0.01 * v;
            float *m = &motion[2 * ((size_t)y * w + x)];
            m[0] = (float)(((1.01 * u + 0.03 * v + 0.02) / q - u) * sc);
            m[1] = (float)(((-0.02 * u + 0.99 * v - 0.01) / q - v) * sc);
            const int k = test_rand_int(rng, 0, 69);
            if (k < 10)
                m[0] += (float)test_rand_int(rng, -80, 80) / 4.0f;
            else if (k < 17)
                m[0] = UPF__FG_INVALID;
        }
}

static void camera_large(gpu *g)
{
    enum { LW = 200, LH = 170 };
    upf__fg_camera_con con;
    upf_interpolate *e = camera_engine(g, LW, LH, &con);
    if (!e)
        return;
    const upf__passes *ps = upf__interpolate_passes(e);
    CHECK(con.step == 1 && upf__fg_camera_blocks(con.grid_w, con.grid_h) == 133);
    static float motion[2 * LW * LH];
    test_rng rng = test_rng_make("test_vk_framegen camera_large");
    homography_motion(motion, LW, LH, &rng);
    CHECK(camera_case(g, ps, &con, motion, "200 x 170, 133 blocks"));
    upf_interpolate_destroy(&e);
}

static void test_camera(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    const upf__passes *ps = er.ps;
    upf__fg_camera_con con = *(const upf__fg_camera_con *)ps->con[UPF__FG_CAMERA_PASS];
    CHECK(con.fit == 1 && con.given == 0);
    CHECK(camera_case(g, ps, &con, ps->surface[UPF__FG_MOTION].data, "the turn, fitted"));
    /* the flow's constants (within 1 px, spread 2), on the turn's vectors with noise: the
     * flow's vectors are fitted too (issue 35) */
    upf__fg_camera_con fc = con;
    fc.near = UPF__FG_CAMERA_NEAR_FLOW, fc.spread = UPF__FG_CAMERA_SPREAD_FLOW;
    static float noisy[2 * N];
    test_rng nr = test_rng_make("test_vk_framegen camera flow");
    for (int i = 0; i < 2 * N; i++)
        noisy[i] = ((const float *)ps->surface[UPF__FG_MOTION].data)[i] +
                   (float)test_rand_int(&nr, -8, 8) / 16.0f;
    CHECK(camera_case(g, ps, &fc, noisy, "the turn with noise, fitted as the flow's"));
    /* only the right third known (x > 0.33 in the normalised coordinates): the sum of u then
     * exceeds that of u^2, so the elimination swaps rows (its pivot search is tested) */
    static float right[2 * N];
    memcpy(right, ps->surface[UPF__FG_MOTION].data, sizeof right);
    for (int i = 0; i < N; i++)
        if (i % W < 2 * W / 3)
            right[2 * i] = UPF__FG_INVALID;
    CHECK(camera_case(g, ps, &con, right, "the turn, its right third known"));
    static float motion[2 * N];
    test_rng rng = test_rng_make("test_vk_framegen camera");
    for (int i = 0; i < 2 * N; i++)
        motion[i] = (float)test_rand_int(&rng, -40, 40) / 8.0f;
    CHECK(!camera_case(g, ps, &con, motion, "random vectors (no model)"));
    /* the host's homography: a small turn with a little pitch */
    const float c = cosf(0.03f), s = sinf(0.03f);
    const float given[9] = { c, 0.01f, s, -0.005f, 1.0f, 0.002f, -s, 0.0f, c };
    con.given = 1;
    memcpy(con.g, given, sizeof given);
    CHECK(camera_case(g, ps, &con, motion, "the host's matrices"));
    con.given = 0, con.fit = 0;
    CHECK(!camera_case(g, ps, &con, ps->surface[UPF__FG_MOTION].data, "no fit"));
    upf_interpolate_destroy(&er.e);
    camera_large(g);
}

/* ---- the vectors path, every pass in one frame -------------------------------------------- */

/* The GPU passes as the backend records them (src/vk/vk_framegen.c, upf__vk_fg_plans): prepare,
 * scene, vectors, camera, splat, fill, resolve, inpaint (down, up), compose, compose with a
 * HUD (not run here); at[] each one's index in the list. */
static int chain_plans(upf__vk_pass_plan *plan, int at[UPF__VK_FG_GP_COUNT], int *flow_count)
{
    int flow_first = 0;
    return upf__vk_fg_plans(plan, at, false, &flow_first, flow_count);
}

/* Push constants: the pass's constants then zeros (the step is patched; rects 0, transfer 0). */
static void *push_of(uint8_t buf[128], const void *con, size_t bytes)
{
    memset(buf, 0, 128);
    memcpy(buf, con, bytes);
    return buf;
}

static void test_chain(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    const upf__passes *ps = er.ps;
    upf__vk_pass_plan plan[UPF__VK_GPU_PASSES_MAX];
    int at[UPF__VK_FG_GP_COUNT], flow_count = 0;
    const int n = chain_plans(plan, at, &flow_count);
    static uint8_t push[12][128];
    upf__vk_pass_frame pf[12]; /* by role (UPF__VK_FG_GP_*), then by plan below */
    memset(pf, 0, sizeof pf);
    const upf__vk_grid px = { (W + 7) / 8, (H + 7) / 8, 1 };
    upf__fg_prepare_con pc = *(const upf__fg_prepare_con *)ps->con[UPF__FG_PREPARE];
    pc.levels = 0;
    pf[0] = (upf__vk_pass_frame){ .run = true, .push = push_of(push[0], &pc, sizeof pc),
                                  .dispatches = 1, .grid = { px } };
    pf[1] = (upf__vk_pass_frame){ .run = true, .dispatches = 1, .grid = { { 1, 1, 1 } },
        .push = push_of(push[1], ps->con[UPF__FG_SCENE_PASS], sizeof(upf__fg_scene_con)) };
    pf[2] = (upf__vk_pass_frame){ .run = true, .dispatches = 9,
        .grid = { px, px, px, px, px, px, px, px, px }, .patch = { 0, 1, 2, 3, 4, 5, 6, 7, 8 },
        .push = push_of(push[2], ps->con[UPF__FG_VECTORS], sizeof(upf__fg_vectors_con)) };
    const upf__fg_camera_con *cc = ps->con[UPF__FG_CAMERA_PASS];
    pf[3] = (upf__vk_pass_frame){ .push = push_of(push[3], cc, sizeof *cc) };
    upf__vk_fg_camera_frame(cc, &pf[3]);
    static union { uint8_t bytes[128]; upf__vk_fg_splat_push s; } sp; /* the plan's 128 bytes */
    memset(&sp, 0, sizeof sp);
    sp.s.c = *(const upf__fg_splat_con *)ps->con[UPF__FG_SPLAT_PASS];
    upf__vk_fg_splat_frame(&sp.s, ((const upf__fg_resolve_con *)ps->con[UPF__FG_RESOLVE])->t,
                           true, &pf[4]);
    const upf__fg_fill_con *fc = ps->con[UPF__FG_FILL];
    pf[5] = (upf__vk_pass_frame){ .run = true, .dispatches = fc->levels + 1,
                                  .push = push_of(push[5], fc, sizeof *fc) };
    for (int l = 0; l <= fc->levels; l++) {
        const int k = l == fc->levels ? 0 : l;
        pf[5].grid[l] = (upf__vk_grid){ (uint32_t)(upf__fg_level_size(W, k) + 7) / 8,
                                        (uint32_t)(upf__fg_level_size(H, k) + 7) / 8, 1 };
        pf[5].patch[l] = (uint32_t)l;
    }
    pf[6] = (upf__vk_pass_frame){ .run = true, .dispatches = 1, .grid = { px },
        .push = push_of(push[6], ps->con[UPF__FG_RESOLVE], sizeof(upf__fg_resolve_con)) };
    const upf__fg_inpaint_con *ic = ps->con[UPF__FG_INPAINT];
    for (int k = 0; k < 2; k++)
        pf[7 + k] = (upf__vk_pass_frame){ .run = true,
                                          .push = push_of(push[7 + k], ic, sizeof *ic) };
    for (int l = 1; l < ic->levels; l++) {
        pf[7].grid[pf[7].dispatches] = (upf__vk_grid){
            (uint32_t)(upf__fg_level_size(W, l) + 7) / 8,
            (uint32_t)(upf__fg_level_size(H, l) + 7) / 8, 1 };
        pf[7].patch[pf[7].dispatches++] = (uint32_t)l;
    }
    for (int l = ic->levels - 2; l >= 1; l--) { /* level 0: the compose's */
        pf[8].grid[pf[8].dispatches] = (upf__vk_grid){
            (uint32_t)(upf__fg_level_size(W, l) + 7) / 8,
            (uint32_t)(upf__fg_level_size(H, l) + 7) / 8, 1 };
        pf[8].patch[pf[8].dispatches++] = (uint32_t)-l;
    }
    const compose_push cp = { *(const upf__fg_compose_con *)ps->con[UPF__FG_COMPOSE], { 0 },
                              { 0 }, ic->levels, { 0 } };
    pf[9] = (upf__vk_pass_frame){ .run = true, .dispatches = 1, .grid = { px },
        .push = push_of(push[9], &cp, sizeof cp) };
    CHECK_EQ_INT(n, UPF__VK_FG_GP_COUNT - 1 + flow_count); /* no cut pass without the flow */
    static upf__vk_pass_frame by_plan[UPF__VK_GPU_PASSES_MAX];
    memset(by_plan, 0, sizeof by_plan);
    for (int k = 0; k <= UPF__VK_FG_GP_COMPOSE; k++)
        by_plan[at[k]] = pf[k];

    vkt_image ia = vkt_sampled_image(g->t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 16, turn_a);
    vkt_image ib = vkt_sampled_image(g->t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 16, turn_b);
    vkt_image im = vkt_sampled_image(g->t, W, H, VK_FORMAT_R32G32_SFLOAT, 8, turn_mv);
    vkt_image id = vkt_sampled_image(g->t, W, H, VK_FORMAT_R32_SFLOAT, 4, turn_depth);
    vkt_image io = vkt_image_make(g->t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    vkt_buffer down = vkt_buffer_make(g->t, (VkDeviceSize)N * 16);
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    const upf_vk_image la = vkt_lend(&ia, ro, ro, 0), lb = vkt_lend(&ib, ro, ro, 0);
    const upf_vk_image lm = vkt_lend(&im, ro, ro, 0), ld = vkt_lend(&id, ro, ro, 0);
    const upf_vk_image lo = vkt_lend(&io, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
    const upf_vk_image *images[UPF__SURFACES_MAX] = { 0 };
    images[UPF__FG_COLOR_PREV] = &la, images[UPF__FG_COLOR] = &lb;
    images[UPF__FG_MOTION_IN] = &lm, images[UPF__FG_DEPTH_IN] = &ld;
    images[UPF__FG_OUTPUT] = &lo;
    void *none[UPF__SURFACES_MAX] = { 0 }, *dst[UPF__SURFACES_MAX] = { 0 };
    if (run_pass_images(g, ps, plan, by_plan, none, dst, images, n, &io, &down) == 0) {
        const float *got = down.map;
        double sum = 0.0, worst = 0.0;
        for (int i = 0; i < N; i++)
            for (int k = 0; k < 3; k++) {
                const double d = fabs((double)got[4 * i + k] - turn_out[4 * i + k]);
                sum += d;
                worst = d > worst || d != d ? d : worst;
            }
        const double mad = sum / (3.0 * N);
        printf("vectors path on the GPU vs the CPU engine: mean abs diff %.3g, largest %.3g\n",
               mad, worst);
        CHECKF(mad <= 0.001, "the made frame: mean absolute difference %g from the CPU's", mad);
    }
    vkt_buffer_free(g->t, &down);
    vkt_image_free(g->t, &ia);
    vkt_image_free(g->t, &ib);
    vkt_image_free(g->t, &im);
    vkt_image_free(g->t, &id);
    vkt_image_free(g->t, &io);
    upf_interpolate_destroy(&er.e);
}

/* ---- scene ------------------------------------------------------------------------------- */

/* Returns the CPU's decision (-1 when the GPU did not run). */
static float scene_case(gpu *g, const upf__passes *ps, const uint32_t *hist, uint32_t enabled,
                        const char *what)
{
    float want[4], got[4] = { -1, -1, -1, -1 };
    const upf__fg_scene_con con = { enabled, 0.25f, 0.5f };
    void *in[UPF__SURFACES_MAX] = { 0 }, *cpu[UPF__SURFACES_MAX] = { 0 };
    void *out[UPF__SURFACES_MAX] = { 0 };
    in[UPF__FG_HISTOGRAMS] = cpu[UPF__FG_HISTOGRAMS] = (void *)hist;
    cpu[UPF__FG_SCENE] = want, out[UPF__FG_SCENE] = got;
    cpu_pass(g->ctx, ps, UPF__FG_SCENE_PASS, &con, cpu);
    const upf__vk_pass_plan plan = { .pass = UPF__FG_SCENE_PASS, .stamp = true,
                                     .push_bytes = sizeof con, .variant_count = 1,
                                     .variant = { { "framegen/scene", NULL, NULL } } };
    const upf__vk_pass_frame pf = { .run = true, .push = &con, .dispatches = 1,
                                    .grid = { { 1, 1, 1 } } };
    if (run_pass(g, ps, &plan, &pf, in, out))
        return -1.0f;
    for (int k = 0; k < 4; k++)
        CHECKF(got[k] == want[k], "%s: scene[%d]: GPU %.9g, CPU %.9g", what, k, got[k],
               want[k]);
    return want[0];
}

static void test_scene(gpu *g)
{
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    enum { B = UPF__FG_HIST_BINS, R = UPF__FG_HIST_REGIONS };
    static uint32_t hist[2 * R * B];
    test_rng rng = test_rng_make("test_vk_framegen scene");
    for (int c = 0; c < 6; c++) {
        /* 0: near; 1: disjoint (a cut); 2: 6 regions changed (a pan); 3: empty; 4: random;
         * 5: every region the same distance (ties: the shader's ranks) */
        for (int r = 0; r < R; r++)
            for (int b = 0; b < B; b++) {
                const uint32_t v = (uint32_t)test_rand_int(&rng, 0, 50);
                const int i = r * B + b, j = (R + r) * B + b;
                hist[i] = c == 3 ? 0 : v;
                hist[j] = c == 0 ? v + (uint32_t)test_rand_int(&rng, 0, 2)
                        : c == 1 ? (b < B / 2 ? 0 : 3 * v)
                        : c == 2 ? (r >= 1 && r <= 6 ? (uint32_t)test_rand_int(&rng, 0, 99) : v)
                        : c == 3 ? 0 : c == 5 ? 0 : (uint32_t)test_rand_int(&rng, 0, 50);
                if (c == 5) /* every region's distance 0.494: no cut */
                    hist[i] = (uint32_t)b, hist[j] = b < 8 ? 1 : 0;
                if (c == 1 && b < B / 2)
                    hist[i] = 3 * v;
                if (c == 1 && b >= B / 2)
                    hist[i] = 0;
            }
        char what[64];
        snprintf(what, sizeof what, "histograms %d", c);
        const float cut = scene_case(g, er.ps, hist, 1, what);
        CHECKF(cut == (c == 1 ? 1.0f : 0.0f), "%s: the CPU's decision %g", what, cut);
        if (c == 1)
            CHECK(scene_case(g, er.ps, hist, 0, "a cut, not enabled") == 0.0f);
    }
    upf_interpolate_destroy(&er.e);
}

/* ---- cut ---------------------------------------------------------------------------------- */

/* The cut pass on `priority` (the engine's size) with the scene surface holding `scene0`:
 * the decision exactly, the share within 2.5 ulp (a shader's division); returns the CPU's
 * decision (-1 when the GPU did not run). */
static float cut_case(gpu *g, const upf__passes *ps, const uint32_t *priority, float scene0,
                      uint32_t enabled, const char *what)
{
    const upf__fg_cut_con con = { ps->surface[UPF__FG_PRIORITY].width,
                                  ps->surface[UPF__FG_PRIORITY].height, enabled, 0.5f };
    const float in_scene[4] = { scene0, 0.25f, 0.5f, 0.0f };
    float want[4], got[4] = { -1, -1, -1, -1 };
    memcpy(want, in_scene, sizeof want);
    void *in[UPF__SURFACES_MAX] = { 0 }, *cpu[UPF__SURFACES_MAX] = { 0 };
    void *out[UPF__SURFACES_MAX] = { 0 };
    in[UPF__FG_PRIORITY] = cpu[UPF__FG_PRIORITY] = (void *)priority;
    in[UPF__FG_SCENE] = (void *)in_scene;
    cpu[UPF__FG_SCENE] = want, out[UPF__FG_SCENE] = got;
    cpu_pass(g->ctx, ps, UPF__FG_CUT, &con, cpu);
    struct { upf__fg_cut_con con; uint32_t step; } push = { con, 0 };
    const upf__vk_pass_plan plan = { .pass = UPF__FG_CUT, .stamp = true,
                                     .push_bytes = sizeof push, .patch_used = true,
                                     .patch_offset = sizeof con, .variant_count = 1,
                                     .variant = { { "framegen/cut", NULL, NULL } } };
    upf__vk_pass_frame pf = { .push = &push };
    upf__vk_fg_cut_frame(&con, &pf); /* the engine's dispatches: the count, the decision */
    if (run_pass(g, ps, &plan, &pf, in, out))
        return -1.0f;
    for (int k = 0; k < 3; k++)
        CHECKF(got[k] == want[k], "%s: scene[%d]: GPU %.9g, CPU %.9g", what, k, got[k],
               want[k]);
    CHECKF(fabsf(got[3] - want[3]) <= 2.5f * FLT_EPSILON * fabsf(want[3]),
           "%s: scene[3]: GPU %.9g, CPU %.9g", what, got[3], want[3]);
    return want[0];
}

/* The cut cases on an engine's size (ps): the count spread over ceil(n / 8192) workgroups. */
static void cut_cases(gpu *g, const upf__passes *ps, test_rng *rng)
{
    const int n = ps->surface[UPF__FG_PRIORITY].width * ps->surface[UPF__FG_PRIORITY].height;
    uint32_t *pri = malloc(sizeof(uint32_t) * (size_t)n);
    /* lost shares around the threshold (a half), exactly at it, and all */
    const int lost[5] = { n / 5, n / 2, n / 2 + 1, n - 3, n };
    for (int c = 0; c < 5; c++) {
        for (int i = 0; i < n; i++)
            pri[i] = test_rand_u32(rng) | 1u; /* odd: never UPF__FG_LOST */
        for (int k = 0; k < lost[c]; k++) { /* lost[c] distinct random pixels */
            int i = test_rand_int(rng, 0, n - 1);
            while (pri[i] == UPF__FG_LOST)
                i = (i + 1) % n;
            pri[i] = UPF__FG_LOST;
        }
        char what[64];
        snprintf(what, sizeof what, "%d of %d lost", lost[c], n);
        const float cut = cut_case(g, ps, pri, 0.0f, 1, what);
        CHECKF(cut == (2 * lost[c] > n ? 2.0f : 0.0f), "%s: the CPU's decision %g", what, cut);
        if (c == 4) {
            CHECK(cut_case(g, ps, pri, 1.0f, 1, "the scene pass's cut kept") == 1.0f);
            CHECK(cut_case(g, ps, pri, 0.0f, 0, "a cut, not enabled") == 0.0f);
        }
    }
    free(pri);
}

/* The engine's 61 x 37 (one workgroup of the count) and 200 x 170 (34000 pixels: five, the
 * last one partly outside the frame). */
static void test_cut(gpu *g)
{
    test_rng rng = test_rng_make("test_vk_framegen cut");
    engine_run er = engine_on_turn(g->ctx);
    if (!er.ps)
        return;
    cut_cases(g, er.ps, &rng);
    upf_interpolate_destroy(&er.e);
    upf_interpolate *e = upf_interpolate_create(g->ctx, upf_interpolate_params(
        .width = 200, .height = 170, .motion = UPF_INTERPOLATE_MOTION_FLOW));
    CHECK(e != NULL);
    if (e)
        cut_cases(g, upf__interpolate_passes(e), &rng);
    upf_interpolate_destroy(&e);
}

/* ---- timing (UPF_VK_CAMERA_TIMING, not in ctest) ------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* rp for timing one pass alone: the surfaces `used` (by index) at the engine's sizes, the
 * rest none; the host's images 1 x 1, or at their sizes with `host_sized`; every surface cleared
 * to UPF__FG_NONE; timestamps on. */
static void timing_params(upf__vk_runner_params *rp, gpu *g, const upf__passes *ps,
                          const bool *used, bool host_sized)
{
    *rp = (upf__vk_runner_params){
        .ctx = g->ctx, .fn = "test", .dev = &g->t->lend, .vk = &g->vk, .caps = &g->caps,
        .pass = ps->pass, .pass_count = ps->pass_count, .surface = ps->surface_info,
        .surface_count = ps->surface_count, .slots = 1, .timestamps = true };
    for (int i = 0; i < ps->surface_count; i++) {
        const upf__surface_role role = ps->surface_info[i].role;
        const bool host = role == UPF__SURFACE_INPUT || role == UPF__SURFACE_OUTPUT;
        rp->width[i] = used[i] || (host && host_sized) ? ps->surface[i].width : 0;
        rp->height[i] = used[i] || (host && host_sized) ? ps->surface[i].height : 0;
        if (host)
            rp->host[i] = (upf__vk_host_rule){
                .formats = host_formats_of(i), .format_count = 1,
                .max_width = host_sized ? UPF_MAX(rp->width[i], 1) : 1,
                .max_height = host_sized ? UPF_MAX(rp->height[i], 1) : 1 };
        rp->surface_plan[i].clear_value = UPF__FG_NONE;
    }
}

/* The GPU milliseconds of the first k dispatches of pass frame pf on `run` (host images
 * `images`, by surface). */
static double time_dispatches_k(gpu *g, upf__vk_runner *run, const upf__vk_pass_frame *pf,
                                int k, const upf_vk_image *const *images)
{
    static upf__vk_frame f;
    memset(&f, 0, sizeof f);
    f.pass[0] = *pf;
    f.pass[0].dispatches = k;
    for (int i = 0; images && i < UPF__SURFACES_MAX; i++)
        f.image[i] = images[i];
    VkCommandBuffer cmd = vkt_begin(g->t);
    CHECK_OK(g->ctx, upf__vk_runner_record(run, "test", cmd, &f));
    CHECK(vkt_submit(g->t) == 0);
    double ms[UPF__PASSES_MAX] = { 0 }, total = 0.0;
    CHECK_OK(g->ctx, upf__vk_runner_timings(run, "test", ms, &total));
    return total;
}

/* The prefix times of pass frame pf: `frames` untimed frames of the whole pass (the clocks
 * up), then per frame the first k dispatches for k = 1 .. n in turn (into t, n x frames); one
 * row per k (dispatch, step, workgroups with "i" where indirect: at most, the median ms, what
 * dispatch k adds). Returns the median of the whole pass. */
static double time_prefixes(gpu *g, upf__vk_runner *run, const upf__vk_pass_frame *pf,
                            const upf_vk_image *const *images, int frames, double *t)
{
    const int n = pf->dispatches;
    for (int i = 0; i < frames; i++)
        (void)time_dispatches_k(g, run, pf, n, images);
    for (int i = 0; i < frames; i++)
        for (int k = 1; k <= n; k++)
            t[(size_t)(k - 1) * (size_t)frames + (size_t)i] =
                time_dispatches_k(g, run, pf, k, images);
    double last = 0.0;
    for (int k = 1; k <= n; k++) {
        double *tk = t + (size_t)(k - 1) * (size_t)frames;
        qsort(tk, (size_t)frames, sizeof *tk, cmp_double);
        printf("  %2d  %u  %6u%s  %.4f  %+.4f\n", k, pf->patch[k - 1],
               pf->grid[k - 1].x * pf->grid[k - 1].y * pf->grid[k - 1].z,
               pf->indirect[k - 1] ? "i" : " ", tk[frames / 2], tk[frames / 2] - last);
        last = tk[frames / 2];
    }
    return last;
}

/* The camera pass's GPU time at w x h: the fit (game vectors' constants) on a homography's
 * motion (a small turn with some pitch and zoom) with every seventh grid pixel an outlier and
 * a tenth invalid, then the host's homography (one dispatch). For each k, the median over
 * `frames` frames of the time of the first k dispatches, printed with the difference from
 * k - 1 (what dispatch k adds: its work and its barrier). The k are interleaved within each
 * frame (frame i times k = 1 .. n one after another) after `frames` untimed frames of the
 * whole pass, so that the GPU's clocks ramping up from idle fall on no k more than another
 * (timed one k after another, the first k ran at lower clocks: at 1920x1080, the first case
 * timed, the prefix times went 0.32, 0.59, 0.87, then 0.22 ms on an H100). */
static void time_camera(gpu *g, int w, int h, int frames)
{
    upf__fg_camera_con con;
    upf_interpolate *e = camera_engine(g, w, h, &con);
    if (!e)
        return;
    const upf__passes *ps = upf__interpolate_passes(e);
    float *motion = malloc(sizeof(float) * 2 * (size_t)w * (size_t)h);
    test_rng rng = test_rng_make("test_vk_framegen camera timing");
    if (motion)
        homography_motion(motion, w, h, &rng);
    static upf__vk_runner_params rp; /* large: not on the stack */
    bool used[UPF__SURFACES_MAX] = { 0 };
    used[UPF__FG_MOTION] = used[UPF__FG_CAMERA] = used[UPF__FG_CAMERA_SUMS] = true;
    timing_params(&rp, g, ps, used, false);
    rp.height[UPF__FG_CAMERA_SUMS] = UPF__VK_FG_CAMERA_SUM_ROWS(rp.height[UPF__FG_CAMERA_SUMS]);
    rp.surface_plan[UPF__FG_MOTION] = (upf__vk_surface_plan){
        .upload = motion, .upload_bytes = surface_bytes(ps, UPF__FG_MOTION) };
    static float table[UPF__VK_FG_TABLE];
    upf__vk_fg_bytes_extra(&rp, 1, 1, table);
    struct { upf__fg_camera_con con; int32_t step; } push = { con, 0 };
    rp.gpu_pass[0] = (upf__vk_pass_plan){
        .pass = UPF__FG_CAMERA_PASS, .stamp = true, .push_bytes = sizeof push,
        .patch_used = true, .patch_offset = sizeof con, .variant_count = 1,
        .variant = { { "framegen/camera", NULL, NULL } } };
    rp.gpu_pass_count = 1;
    upf__vk_runner *run = motion ? upf__vk_runner_create(&rp) : NULL;
    CHECK(run != NULL);
    double *t = calloc((size_t)frames * UPF__VK_FG_CAMERA_STEPS, sizeof *t);
    for (int given = 0; run && t && given < 2; given++) {
        push.con.given = (uint32_t)given;
        const float turn[9] = { 0.9995f, 0.01f, 0.03f, -0.005f, 1.0f, 0.002f, -0.03f, 0.0f,
                                0.9995f };
        memcpy(push.con.g, turn, sizeof turn);
        upf__vk_pass_frame pf = { .push = &push };
        upf__vk_fg_camera_frame(&push.con, &pf);
        printf("camera timing at %dx%d (%s; grid %d x %d every %d px, %d blocks; %s): "
               "dispatch, step, workgroups, median ms of the first k, what it adds\n", w, h,
               given ? "the host's homography" : "the fit", con.grid_w, con.grid_h, con.step,
               upf__fg_camera_blocks(con.grid_w, con.grid_h), g->caps.props.deviceName);
        const double last = time_prefixes(g, run, &pf, NULL, frames, t);
        printf("camera (%s) at %dx%d: %.4f ms (median of %d frames)\n",
               given ? "the host's homography" : "the fit", w, h, last, frames);
    }
    free(t);
    upf__vk_runner_destroy(&run);
    free(motion);
    upf_interpolate_destroy(&e);
}

/* ---- timing (UPF_VK_VECTORS_TIMING, not in ctest) ----------------------------------------- */

/* The bench pair's kind of vectors at w x h for time_vectors: `walk`, a forward step with a
 * small turn (every pixel moves away from a point 0.2 w left of the frame, at least 0.5 px:
 * none still, as on the courtyard walk), depth a ramp below a far plane (the top 30%, one
 * depth: its splat's priorities tie, as a sky's); else a still camera (every vector 0) over
 * a random texture with a disc of shadow every 64 x 64 px that moves 2 px right and 1 down
 * (the shade rule moves pixels: steps 4 to 7 run). Into motion (2 w h), depth, prev and cur
 * (4 w h). */
static void timing_scene(int w, int h, bool walk, float *motion, float *depth, float *prev,
                         float *cur, test_rng *rng)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            const float u = (float)x + 0.2f * (float)w, v = (float)y - 0.5f * (float)h;
            motion[2 * i] = walk ? 0.5f + 0.004f * u : 0.0f;
            motion[2 * i + 1] = walk ? 0.004f * v : 0.0f;
            depth[i] = 10 * y < 3 * h ? 1.0f : 0.25f + 0.5f * (float)y / (float)h;
            const float t = 0.3f + 0.3f * (float)test_rand_int(rng, 0, 1000) / 1000.0f;
            const int cx = x % 64 - 32, cy = y % 64 - 32;
            const bool d0 = cx * cx + cy * cy < 64;
            const bool d1 = (cx - 2) * (cx - 2) + (cy - 1) * (cy - 1) < 64;
            for (int k = 0; k < 3; k++)
                prev[4 * i + k] = (d0 ? 0.35f : 1.0f) * t, cur[4 * i + k] = (d1 ? 0.35f : 1.0f) * t;
            prev[4 * i + 3] = cur[4 * i + 3] = 1.0f;
        }
}

/* The vectors pass's GPU time at w x h (game vectors at the frames' size, float frames), as
 * time_camera: per k the median over `frames` frames of the first k dispatches (the runner's
 * clear of splat_prev, its index and the shade flag counts in k = 1), k interleaved within
 * each frame after `frames` untimed frames of the whole pass; on the walk (nothing still:
 * steps 4 to 7 are empty indirect dispatches) and on a still camera with moving shadows. */
static void time_vectors(gpu *g, int w, int h, int frames, bool walk)
{
    upf_interpolate *e = upf_interpolate_create(g->ctx, upf_interpolate_params(
        .width = w, .height = h, .motion = UPF_INTERPOLATE_MOTION_VECTORS));
    CHECK(e != NULL);
    if (!e)
        return;
    const upf__passes *ps = upf__interpolate_passes(e);
    const size_t n = (size_t)w * (size_t)h;
    float *motion = malloc(n * 8), *depth = malloc(n * 4), *prev = malloc(n * 16);
    float *cur = malloc(n * 16);
    double *t = calloc((size_t)frames * UPF__VK_FG_VECTORS_STEPS, sizeof *t);
    test_rng rng = test_rng_make("test_vk_framegen vectors timing");
    upf__vk_runner *run = NULL;
    vkt_image mi = { 0 }, di = { 0 };
    uint32_t *prev_packed = NULL, *cur_packed = NULL; /* the GPU's linear frames (linear.glsl) */
    if (!motion || !depth || !prev || !cur || !t)
        goto done;
    timing_scene(w, h, walk, motion, depth, prev, cur, &rng);
    linear_frame(prev, prev, (int)n);
    linear_frame(cur, cur, (int)n);
    if (!(prev_packed = linear_packed(prev, (int)n)) || !(cur_packed = linear_packed(cur, (int)n)))
        goto done;
    static upf__vk_runner_params rp; /* large: not on the stack */
    bool used[UPF__SURFACES_MAX] = { 0 };
    used[UPF__FG_MOTION] = used[UPF__FG_PRIORITY] = used[UPF__FG_SPLAT_PREV] = true;
    used[UPF__FG_SPLAT_PREV_INDEX] = used[UPF__FG_SPLAT_LAND] = used[UPF__FG_PREV_MOTION] = true;
    used[UPF__FG_LINEAR_PREV] = used[UPF__FG_LINEAR] = true;
    timing_params(&rp, g, ps, used, true);
    rp.surface_plan[UPF__FG_LINEAR_PREV] = (upf__vk_surface_plan){
        .upload = prev_packed, .upload_bytes = surface_bytes(ps, UPF__FG_LINEAR_PREV) };
    rp.surface_plan[UPF__FG_LINEAR] = (upf__vk_surface_plan){
        .upload = cur_packed, .upload_bytes = surface_bytes(ps, UPF__FG_LINEAR) };
    static float table[UPF__VK_FG_TABLE];
    upf__vk_fg_bytes_extra(&rp, w, h, table);
    struct {
        upf__fg_vectors_con con;
        uint32_t step;
        int32_t rect[4];
        uint32_t table[2];
    } push = { *(const upf__fg_vectors_con *)ps->con[UPF__FG_VECTORS], 0, { 0 },
               { UPF__VK_FG_TABLE_SRGB, UPF__VK_FG_TABLE_SRGB } };
    rp.gpu_pass[0] = (upf__vk_pass_plan){
        .pass = UPF__FG_VECTORS, .stamp = true, .push_bytes = sizeof push, .patch_used = true,
        .patch_offset = sizeof push.con };
    upf__vk_fg_vectors_plan(&rp.gpu_pass[0]); /* as the engine's */
    rp.gpu_pass_count = 1;
    run = upf__vk_runner_create(&rp);
    CHECK(run != NULL);
    if (!run)
        goto done;
    mi = vkt_sampled_image(g->t, w, h, VK_FORMAT_R32G32_SFLOAT, 8, motion);
    di = vkt_sampled_image(g->t, w, h, VK_FORMAT_R32_SFLOAT, 4, depth);
    const upf_vk_image lm = vkt_lend(&mi, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
    const upf_vk_image ld = vkt_lend(&di, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
    const upf_vk_image *images[UPF__SURFACES_MAX] = { 0 };
    images[UPF__FG_MOTION_IN] = &lm, images[UPF__FG_DEPTH_IN] = &ld;
    upf_rect rect;
    CHECK_OK(g->ctx, upf__vk_check_host_image(run, "test", "motion", UPF__FG_MOTION_IN, &lm,
                                              &rect));
    CHECK_OK(g->ctx, upf__vk_check_host_image(run, "test", "depth", UPF__FG_DEPTH_IN, &ld,
                                              &rect));
    upf__vk_pass_frame pf = { .run = true, .push = &push };
    upf__vk_fg_vectors_dispatches(&pf, w, h);
    printf("vectors timing at %dx%d (%s; %s): dispatch, step, workgroups (indirect: at most), "
           "median ms of the first k, what it adds\n", w, h,
           walk ? "the walk: nothing still" : "a still camera, moving shadows: the shade rule "
           "moves pixels", g->caps.props.deviceName);
    const double last = time_prefixes(g, run, &pf, images, frames, t);
    /* the shade flag after a whole pass: steps 4 to 7's workgroups and step 3's (none on the
     * walk) */
    VkDeviceSize fb = 0;
    const VkBuffer flag = upf__vk_runner_buffer(run, UPF__VK_FG_SHADED, &fb);
    vkt_buffer down = vkt_buffer_make(g->t, sizeof(uint32_t[8]));
    static upf__vk_frame f;
    memset(&f, 0, sizeof f);
    f.pass[0] = pf;
    f.image[UPF__FG_MOTION_IN] = &lm, f.image[UPF__FG_DEPTH_IN] = &ld;
    VkCommandBuffer cmd = vkt_begin(g->t);
    CHECK_OK(g->ctx, upf__vk_runner_record(run, "test", cmd, &f));
    vkt_record_copy(cmd, flag, down.buffer, sizeof(uint32_t[8]));
    uint32_t shaded[8] = { 0 };
    if (vkt_submit(g->t) == 0)
        memcpy(shaded, down.map, sizeof shaded);
    vkt_buffer_free(g->t, &down);
    CHECKF(walk ? !shaded[0] && !shaded[4] : shaded[0] == pf.grid[0].x && shaded[4] ==
           pf.grid[0].x, "%s: the shade flag %u x %u, %u x %u", walk ? "the walk" : "still",
           shaded[0], shaded[1], shaded[4], shaded[5]);
    printf("vectors (%s) at %dx%d: %.4f ms (median of %d frames); step 3: %u x %u workgroups, "
           "steps 4 to 7: %u x %u\n", walk ? "the walk" : "still, shadows", w, h, last, frames,
           shaded[4], shaded[5], shaded[0], shaded[1]);
done:
    upf__vk_runner_destroy(&run);
    vkt_image_free(g->t, &mi);
    vkt_image_free(g->t, &di);
    free(motion), free(depth), free(prev), free(cur), free(t);
    free(prev_packed), free(cur_packed);
    upf_interpolate_destroy(&e);
}

/* ---- timing (UPF_VK_RESOLVE_TIMING, not in ctest) ----------------------------------------- */

/* The resolve's inputs for timing at w x h: random colours (and their 8-bit codes), a
 * homography's game vectors as N's (N-1's the other way) and the motion at t (every pixel
 * splatted), the camera fitted to them by the CPU with its powers at t (or none). */
typedef struct resolve_timing_in {
    float *prev, *cur, *mt, *mt_res, *motion, *prev_motion, *cam, *cam_none;
    uint32_t *bytes, *prev_packed, *cur_packed;
} resolve_timing_in;

static bool resolve_timing_inputs(gpu *g, int w, int h, float t, resolve_timing_in *in)
{
    const size_t n = (size_t)w * (size_t)h;
    in->prev = malloc(16 * n), in->cur = malloc(16 * n), in->mt = malloc(16 * n);
    in->mt_res = calloc(4 * n, 4), in->motion = malloc(8 * n), in->prev_motion = malloc(8 * n);
    in->bytes = malloc(4 * (UPF__VK_FG_TABLE + 2 * n));
    in->cam = calloc(UPF__FG_CAMERA_FLOATS, 4), in->cam_none = calloc(UPF__FG_CAMERA_FLOATS, 4);
    if (!in->prev || !in->cur || !in->mt || !in->mt_res || !in->motion || !in->prev_motion ||
        !in->bytes || !in->cam || !in->cam_none)
        return false;
    test_rng rng = test_rng_make("test_vk_framegen resolve timing");
    for (size_t i = 0; i < 4 * n; i++)
        in->prev[i] = test_rand_float(&rng), in->cur[i] = test_rand_float(&rng);
    linear_frame(in->prev, in->prev, (int)n);
    linear_frame(in->cur, in->cur, (int)n);
    if (!(in->prev_packed = linear_packed(in->prev, (int)n)) ||
        !(in->cur_packed = linear_packed(in->cur, (int)n)))
        return false;
    for (size_t i = 0; i < 2 * n; i++)
        in->bytes[UPF__VK_FG_TABLE + i] = (uint32_t)test_rand_int(&rng, 0, 0xffffff);
    homography_motion(in->motion, w, h, &rng);
    for (size_t i = 0; i < n; i++) {
        const bool ok = in->motion[2 * i] < UPF__FG_INVALID * 0.5f;
        in->mt[4 * i] = ok ? in->motion[2 * i] : 0.0f;
        in->mt[4 * i + 1] = ok ? in->motion[2 * i + 1] : 0.0f;
        in->mt[4 * i + 2] = 0.0f, in->mt[4 * i + 3] = 0.0f;
        for (int k = 0; k < 2; k++) /* N-1's, to N: the other way */
            in->prev_motion[2 * i + k] = ok ? -in->motion[2 * i + k] : UPF__FG_INVALID;
    }
    upf__fg_camera_con con;
    upf_interpolate *e = camera_engine(g, w, h, &con);
    if (!e)
        return false;
    const upf__passes *ps = upf__interpolate_passes(e);
    float *sums = calloc(1, surface_bytes(ps, UPF__FG_CAMERA_SUMS) + 16);
    float cam[UPF__FG_CAMERA_FLOATS];
    if (sums)
        upf__fg_camera_run(g->ctx, &con, in->motion, cam, sums);
    free(sums);
    upf_interpolate_destroy(&e);
    if (!sums || !upf__fg_camera_has(cam))
        return false;
    camera_powers(cam, t, in->cam);
    return true;
}

static void resolve_timing_free(resolve_timing_in *in)
{
    free(in->prev), free(in->cur), free(in->mt), free(in->mt_res), free(in->motion);
    free(in->prev_motion), free(in->bytes), free(in->prev_packed), free(in->cur_packed);
    free(in->cam), free(in->cam_none);
}

/* A runner of the resolve alone at w x h on `in`, timestamps on; with `cam` (a camera model)
 * the motion at t is its residual (0: the camera explains every pixel), else the vectors. */
static upf__vk_runner *resolve_timing_runner(gpu *g, const upf__passes *ps, int w, int h,
                                             const resolve_timing_in *in, const float *cam)
{
    static upf__vk_runner_params rp; /* large: not on the stack */
    const float scene[4] = { 0, 0, 0, 0 };
    const void *up[UPF__SURFACES_MAX] = { 0 };
    up[UPF__FG_LINEAR_PREV] = in->prev_packed, up[UPF__FG_LINEAR] = in->cur_packed;
    up[UPF__FG_MOTION_T] = cam[0] != 0.0f ? in->mt_res : in->mt, up[UPF__FG_MOTION] = in->motion;
    up[UPF__FG_PREV_MOTION] = in->prev_motion, up[UPF__FG_CAMERA] = cam;
    up[UPF__FG_SCENE] = scene;
    bool used[UPF__SURFACES_MAX] = { 0 };
    for (int i = 0; i < ps->surface_count; i++)
        used[i] = up[i] || i == UPF__FG_RESOLVED || i == UPF__FG_COLOR_PYRAMID;
    timing_params(&rp, g, ps, used, false);
    for (int i = 0; i < ps->surface_count; i++) {
        const upf__surface_role role = ps->surface_info[i].role;
        if (up[i] && role != UPF__SURFACE_INPUT && role != UPF__SURFACE_OUTPUT)
            rp.surface_plan[i] = (upf__vk_surface_plan){
                .upload = up[i], .upload_bytes = surface_bytes(ps, i),
                .clear_value = UPF__FG_NONE };
    }
    static float table[UPF__VK_FG_TABLE];
    upf__vk_fg_bytes_extra(&rp, w, h, table);
    memcpy(in->bytes, table, sizeof table);
    rp.extra[0].upload = in->bytes, rp.extra[0].upload_bytes = rp.extra[0].bytes;
    rp.gpu_pass[0] = resolve_plan();
    rp.gpu_pass_count = 1;
    return upf__vk_runner_create(&rp);
}

/* The resolve's GPU time at w x h at t = 1/2: from game vectors without a camera model, with
 * one (fitted by the CPU), without visibility (as from the flow), and from 8-bit colours (the
 * BYTES pipeline); the median over `frames` frames, the four interleaved within each frame
 * after `frames` untimed ones. With UPF_VK_SHADER_DIR (-DUPF_VK_PROBE=ON) it times a variant
 * of resolve.comp (scripts/vk_probe_resolve.py). */
static void time_resolve(gpu *g, int w, int h, int frames)
{
    upf_interpolate *e = upf_interpolate_create(g->ctx, upf_interpolate_params(
        .width = w, .height = h, .motion = UPF_INTERPOLATE_MOTION_VECTORS));
    CHECK(e != NULL);
    resolve_timing_in in = { 0 };
    const float t = 0.5f;
    if (!e || !resolve_timing_inputs(g, w, h, t, &in)) {
        CHECK(!"the resolve timing's inputs");
        resolve_timing_free(&in);
        upf_interpolate_destroy(&e);
        return;
    }
    const upf__passes *ps = upf__interpolate_passes(e);
    enum { CASES = 4 };
    static const char *const name[CASES] = { "vectors", "vec+cam", "flow", "vec8" };
    upf__vk_runner *run[2] = { resolve_timing_runner(g, ps, w, h, &in, in.cam_none),
                               resolve_timing_runner(g, ps, w, h, &in, in.cam) };
    CHECK(run[0] && run[1]);
    double *ms = calloc((size_t)frames * CASES, sizeof *ms);
    for (int i = -frames; run[0] && run[1] && ms && i < frames; i++)
        for (int c = 0; c < CASES; c++) {
            resolve_push push = { *(const upf__fg_resolve_con *)ps->con[UPF__FG_RESOLVE],
                                  { UPF__VK_FG_TABLE_SRGB, UPF__VK_FG_TABLE_SRGB }, 8 };
            push.con.t = t, push.con.blend = 0;
            push.con.visibility = c != 2;
            static upf__vk_frame f;
            memset(&f, 0, sizeof f);
            f.pass[0] = (upf__vk_pass_frame){ .run = true, .push = &push, .dispatches = 1,
                                              .grid = { upf__vk_fg_resolve_grid(w, h, c == 3) },
                                              .variant = c == 3 ? UPF__VK_FG_VARIANT_BYTES : 0 };
            upf__vk_runner *r = run[c == 1];
            VkCommandBuffer cmd = vkt_begin(g->t);
            CHECK_OK(g->ctx, upf__vk_runner_record(r, "test", cmd, &f));
            CHECK(vkt_submit(g->t) == 0);
            double pass_ms[UPF__PASSES_MAX] = { 0 }, total = 0.0;
            CHECK_OK(g->ctx, upf__vk_runner_timings(r, "test", pass_ms, &total));
            if (i >= 0)
                ms[(size_t)c * (size_t)frames + (size_t)i] = total;
        }
    printf("resolve timing at %dx%d (%s; median us of %d frames):", w, h,
           g->caps.props.deviceName, frames);
    for (int c = 0; ms && c < CASES; c++) {
        double *mc = ms + (size_t)c * (size_t)frames;
        qsort(mc, (size_t)frames, sizeof *mc, cmp_double);
        printf(" %s %.1f", name[c], mc[frames / 2] * 1e3);
    }
    printf("\n");
    free(ms);
    upf__vk_runner_destroy(&run[0]);
    upf__vk_runner_destroy(&run[1]);
    resolve_timing_free(&in);
    upf_interpolate_destroy(&e);
}

/* ---- the timing modes' sizes ------------------------------------------------------------ */

typedef void (*timing_fn)(gpu *g, int w, int h, int frames);

/* time_vectors on both of its scenes: the walk, then the still camera with moving shadows */
static void time_vectors_cases(gpu *g, int w, int h, int frames)
{
    time_vectors(g, w, h, frames, true);
    time_vectors(g, w, h, frames, false);
}

/* A timing mode's value `frames[:WxH]`: fn at W x H, else at 1920x1080 and 3840x2160 (the
 * tests skipped). */
static void run_timing(gpu *g, const char *timing, timing_fn fn)
{
    const int frames = UPF_MAX(atoi(timing), 1);
    int w = 0, h = 0;
    const char *at = strchr(timing, ':');
    if (at && sscanf(at + 1, "%dx%d", &w, &h) == 2) {
        fn(g, w, h, frames);
        return;
    }
    fn(g, 1920, 1080, frames);
    fn(g, 3840, 2160, frames);
}

/* ---- a phase's workgroups --------------------------------------------------------------- */

static uint64_t workgroups(const upf__vk_pass_frame *pf)
{
    uint64_t n = 0;
    for (int d = 0; d < pf->dispatches; d++)
        n += (uint64_t)pf->grid[d].x * pf->grid[d].y * pf->grid[d].z;
    return n;
}

/* The workgroups and dispatches of a phase (game vectors, float colours) as the engine
 * records them at 1920x1080 and 3840x2160, printed (docs/FRAMEGEN.md, "On the GPU": a
 * workgroup's launch costs about 0.7 ns on an H100 whatever its size): every per-pixel pass
 * in workgroups of 256 pixels, so a phase launches under 50,000 / 200,000 of them (with 64
 * pixels a workgroup: 221,701 / 885,971). */
static void test_phase_workgroups(void)
{
    for (int k = 0; k < 2; k++) {
        const int w = k ? 3840 : 1920, h = k ? 2160 : 1080, L = upf__fg_levels(w, h, 1);
        upf__vk_pass_frame pf[5];
        memset(pf, 0, sizeof pf);
        upf__vk_fg_splat_push sp = { .c = { .width = w, .height = h } };
        upf__vk_fg_splat_frame(&sp, 0.5f, true, &pf[0]);
        upf__vk_fg_fill_dispatches(&pf[1], w, h, L);
        pf[2].dispatches = 1, pf[2].grid[0] = upf__vk_fg_resolve_grid(w, h, false);
        upf__vk_fg_down_dispatches(&pf[3], w, h, L, 2);
        upf__vk_fg_up_dispatches(&pf[3], w, h, L, 2);
        pf[4].dispatches = 1, pf[4].grid[0] = upf__vk_grid16(w, h); /* compose_pass's */
        const upf__vk_grid bytes = upf__vk_fg_resolve_grid(w, h, true);
        uint64_t total = 0;
        int dispatches = 0;
        for (int p = 0; p < 5; p++)
            total += workgroups(&pf[p]), dispatches += pf[p].dispatches;
        printf("a phase at %dx%d (%d levels): workgroups (dispatches) splat %llu (%d), fill "
               "%llu (%d), resolve %llu (8-bit: %llu), inpaint %llu (%d), compose %llu; "
               "%llu in %d dispatches, about %.1f us of launches at 0.7 ns each\n",
               w, h, L, (unsigned long long)workgroups(&pf[0]), pf[0].dispatches,
               (unsigned long long)workgroups(&pf[1]), pf[1].dispatches,
               (unsigned long long)workgroups(&pf[2]),
               (unsigned long long)bytes.x * bytes.y, (unsigned long long)workgroups(&pf[3]),
               pf[3].dispatches, (unsigned long long)workgroups(&pf[4]),
               (unsigned long long)total, dispatches, (double)total * 0.7e-3);
        CHECKF(total < (k ? 200000u : 50000u), "%dx%d: %llu workgroups a phase", w, h,
               (unsigned long long)total);
        CHECKF((uint64_t)bytes.x * bytes.y * 256 < (uint64_t)(w + 256) * (h + 256),
               "%dx%d: the 8-bit resolve's workgroups of %u x %u", w, h,
               UPF__VK_FG_RESOLVE_BYTES_W, UPF__VK_FG_RESOLVE_BYTES_H);
    }
}

int main(void)
{
    upf_context *ctx = test_context(2);
    test_phase_workgroups(); /* no device needed */
    vkt t;
    const int rc = vkt_init(&t, ctx);
    if (rc) {
        upf_context_destroy(&ctx);
        return rc;
    }
    gpu g = { .t = &t, .ctx = ctx };
    if (upf__vk_load(ctx, "test", &t.lend, &g.vk) != UPF_OK ||
        upf__vk_check(ctx, "test", &t.lend, &g.vk, &g.caps) != UPF_OK) {
        CHECK(!"the device loads");
    } else if (getenv("UPF_VK_RESOLVE_TIMING")) {
        run_timing(&g, getenv("UPF_VK_RESOLVE_TIMING"), time_resolve);
    } else if (getenv("UPF_VK_CAMERA_TIMING")) {
        run_timing(&g, getenv("UPF_VK_CAMERA_TIMING"), time_camera);
    } else if (getenv("UPF_VK_VECTORS_TIMING")) {
        run_timing(&g, getenv("UPF_VK_VECTORS_TIMING"), time_vectors_cases);
    } else {
        test_prepare(&g);
        test_camera(&g);
        test_splat(&g);
        test_vectors(&g);
        test_fill(&g);
        test_resolve(&g);
        test_inpaint(&g);
        test_compose(&g);
        test_bytes(&g);
        test_scene(&g);
        test_cut(&g);
        test_chain(&g);
    }
    vkt_finish(&t);
    upf_context_destroy(&ctx);
    return test_finish("test_vk_framegen");
}
