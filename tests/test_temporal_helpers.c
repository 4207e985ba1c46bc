/* test_temporal_helpers.c: the temporal helpers of include/upframe.h against known values.
 *
 *  - Jitter: Halton(2,3) points worked by hand, the wrap with the phase count, every phase in
 *    [-0.5, 0.5) and never (0, 0); phase counts 18 / 24 / 32 / 72 at 1.5 / 1.7 / 2 / 3x.
 *  - Modes: ratios and render sizes; mip biases -1.58 / -1.77 / -2 / -2.58 (native 0, offset -1).
 *  - Camera from a projection: the FSR 3.1 port's OpenGL matrix (p22 -1.0002, p23 -0.20002:
 *    near 0.1, far 1000.5, 45 degrees), also with float-rounded entries; Vulkan-style matrices
 *    of all four depth conventions (near, far, direction, infinite far, and the factors against
 *    each convention's own formula); left-handed and y-down matrices; jitter from the
 *    translation; bad matrices.
 *  - Camera motion from depth against the scene renderer's own motion vectors, on the static
 *    geometry of moving-camera views (the renderer's vectors are exact there), and bad
 *    arguments. */
#include "scene/scene.h"
#include "sequence/sequence.h"
#include "temporal/temporal_passes.h"
#include "test_util.h"

static void test_jitter(void)
{
    double jx, jy;
    CHECK_OK(NULL, upf_jitter_offset(NULL, 0, 8, &jx, &jy)); /* H2(1) = 1/2, H3(1) = 1/3 */
    CHECK_NEAR(jx, 0.0, 1e-15);
    CHECK_NEAR(jy, 1.0 / 3.0 - 0.5, 1e-15);
    CHECK_OK(NULL, upf_jitter_offset(NULL, 1, 8, &jx, &jy)); /* H2(2) = 1/4, H3(2) = 2/3 */
    CHECK_NEAR(jx, -0.25, 1e-15);
    CHECK_NEAR(jy, 2.0 / 3.0 - 0.5, 1e-15);
    CHECK_OK(NULL, upf_jitter_offset(NULL, 4, 8, &jx, &jy)); /* H2(5) = 5/8, H3(5) = 7/9 */
    CHECK_NEAR(jx, 0.125, 1e-15);
    CHECK_NEAR(jy, 7.0 / 9.0 - 0.5, 1e-15);
    /* H2(11) = 1101b -> 0.1101b = 13/16; H3(11) = 102 base 3 -> 0.201 = 2/3 + 1/27 = 19/27 */
    CHECK_OK(NULL, upf_jitter_offset(NULL, 10, 32, &jx, &jy));
    CHECK_NEAR(jx, 13.0 / 16.0 - 0.5, 1e-15);
    CHECK_NEAR(jy, 19.0 / 27.0 - 0.5, 1e-15);
    double jx8, jy8;
    CHECK_OK(NULL, upf_jitter_offset(NULL, 8 + 4, 8, &jx8, &jy8)); /* wraps */
    CHECK_OK(NULL, upf_jitter_offset(NULL, 4, 8, &jx, &jy));
    CHECK(jx8 == jx && jy8 == jy);
    CHECK_OK(NULL, upf_jitter_offset(NULL, (int64_t)1 << 40, 72, &jx8, &jy8)); /* 2^40 mod 72 */
    CHECK_OK(NULL, upf_jitter_offset(NULL, (int64_t)(((int64_t)1 << 40) % 72), 72, &jx, &jy));
    CHECK(jx8 == jx && jy8 == jy);
    int zero = 0, outside = 0;
    for (int i = 0; i < 1 << 16; i++) {
        upf_jitter_offset(NULL, i, 1 << 20, &jx, &jy);
        outside += !(jx >= -0.5 && jx < 0.5 && jy >= -0.5 && jy < 0.5);
        zero += jx == 0.0 && jy == 0.0;
    }
    CHECK_EQ_INT(outside, 0);
    CHECK_EQ_INT(zero, 0);

    int n;
    static const struct { int render, output, phases; } counts[] = {
        { 1920, 1920, 8 },  { 2560, 3840, 18 }, /* Quality 1.5x: exactly 18 */
        { 2258, 3840, 24 }, /* Balanced 1.7x (render 2258): 8 * 1.7006^2 = 23.14 -> 24 */
        { 1920, 3840, 32 }, { 1280, 3840, 72 }, { 1114, 1920, 24 }, { 1920, 960, 8 },
        { 1, 16384, 1 << 20 },
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        CHECK_OK(NULL, upf_jitter_phase_count(NULL, counts[i].render, counts[i].output, &n));
        CHECKF(n == counts[i].phases, "%d -> %d: %d phases, expected %d", counts[i].render,
               counts[i].output, n, counts[i].phases);
    }
    /* 1.7 itself: 8 * 2.89 = 23.12, the ceiling 24 (FSR's code truncates to 23) */
    CHECK_OK(NULL, upf_jitter_phase_count(NULL, 10, 17, &n));
    CHECK_EQ_INT(n, 24);

    upf_context *ctx = test_context(1);
    CHECK_FAILS(ctx, upf_jitter_offset(ctx, -1, 8, &jx, &jy), UPF_ERROR_INVALID_ARGUMENT,
                "negative");
    CHECK_FAILS(ctx, upf_jitter_offset(ctx, 0, 0, &jx, &jy), UPF_ERROR_INVALID_ARGUMENT,
                "phases 0");
    CHECK_FAILS(ctx, upf_jitter_offset(ctx, 0, 8, NULL, &jy), UPF_ERROR_INVALID_ARGUMENT, "jx");
    CHECK_FAILS(ctx, upf_jitter_phase_count(ctx, 0, 8, &n), UPF_ERROR_INVALID_ARGUMENT,
                "render width 0");
    CHECK_FAILS(ctx, upf_jitter_phase_count(ctx, 8, 20000, &n), UPF_ERROR_INVALID_ARGUMENT,
                "output width 20000");
    CHECK_FAILS(ctx, upf_jitter_phase_count(ctx, 8, 8, NULL), UPF_ERROR_INVALID_ARGUMENT,
                "NULL");
    upf_context_destroy(&ctx);
}

static void test_modes(void)
{
    static const struct { upf_temporal_mode mode; const char *name; double ratio, bias;
                          int w, h; } m[] = {
        { UPF_TEMPORAL_MODE_NATIVE_AA, "native", 1.0, -1.0, 3840, 2160 },
        { UPF_TEMPORAL_MODE_QUALITY, "quality", 1.5, -1.585, 2560, 1440 },
        { UPF_TEMPORAL_MODE_BALANCED, "balanced", 1.7, -1.766, 2258, 1270 },
        { UPF_TEMPORAL_MODE_PERFORMANCE, "performance", 2.0, -2.0, 1920, 1080 },
        { UPF_TEMPORAL_MODE_ULTRA_PERFORMANCE, "ultra-performance", 3.0, -2.585, 1280, 720 },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        double ratio = 0, bias = 0;
        int w = 0, h = 0;
        CHECK(strcmp(upf_temporal_mode_name(m[i].mode), m[i].name) == 0);
        CHECK_OK(NULL, upf_temporal_mode_ratio(NULL, m[i].mode, &ratio));
        CHECK_NEAR(ratio, m[i].ratio, 1e-15);
        CHECK_OK(NULL, upf_temporal_render_size(NULL, m[i].mode, 3840, 2160, &w, &h));
        CHECKF(w == m[i].w && h == m[i].h, "%s: %dx%d", m[i].name, w, h);
        CHECK_OK(NULL, upf_mip_bias(NULL, 0.0, w, 3840, UPF_MIP_BIAS_OFFSET, &bias));
        /* against log2(1 / ratio) - 1 at the mode's own ratio, to the render size's rounding */
        CHECK_NEAR(bias, -log2(m[i].ratio) - 1.0, 1e-3);
        CHECK_NEAR(bias, m[i].bias, 1e-3);
    }
    /* the rounded values, and the native bias adding */
    double b;
    CHECK_OK(NULL, upf_mip_bias(NULL, 0.0, 2, 3, -1.0, &b));
    CHECK_NEAR(b, -1.58, 0.005);
    CHECK_OK(NULL, upf_mip_bias(NULL, 0.0, 10, 17, -1.0, &b));
    CHECK_NEAR(b, -1.76, 0.01); /* -1.7655 */
    CHECK_OK(NULL, upf_mip_bias(NULL, 0.0, 1, 2, -1.0, &b));
    CHECK_NEAR(b, -2.0, 1e-15);
    CHECK_OK(NULL, upf_mip_bias(NULL, 0.0, 1, 3, -1.0, &b));
    CHECK_NEAR(b, -2.58, 0.005);
    CHECK_OK(NULL, upf_mip_bias(NULL, -0.5, 3, 4, 0.0, &b)); /* a game's own -0.5 at 3/4 */
    CHECK_NEAR(b, -0.5 + log2(0.75), 1e-15);
    CHECK(strcmp(upf_temporal_mode_name((upf_temporal_mode)0), "unknown") == 0);

    upf_context *ctx = test_context(1);
    double r;
    int w, h;
    CHECK_FAILS(ctx, upf_temporal_mode_ratio(ctx, (upf_temporal_mode)9, &r),
                UPF_ERROR_INVALID_ARGUMENT, "mode 9");
    CHECK_FAILS(ctx, upf_temporal_render_size(ctx, UPF_TEMPORAL_MODE_QUALITY, 0, 10, &w, &h),
                UPF_ERROR_INVALID_ARGUMENT, "output width 0");
    CHECK_OK(ctx, upf_temporal_render_size(ctx, UPF_TEMPORAL_MODE_ULTRA_PERFORMANCE, 2, 1, &w,
                                           &h));
    CHECK(w == 1 && h == 1); /* at least 1 */
    CHECK_FAILS(ctx, upf_mip_bias(ctx, NAN, 1, 2, -1, &b), UPF_ERROR_INVALID_ARGUMENT,
                "native bias");
    CHECK_FAILS(ctx, upf_mip_bias(ctx, 0, 1, 2, 100, &b), UPF_ERROR_INVALID_ARGUMENT, "offset");
    CHECK_FAILS(ctx, upf_mip_bias(ctx, 0, 1, 0, -1, &b), UPF_ERROR_INVALID_ARGUMENT,
                "output width");
    upf_context_destroy(&ctx);
}

/* ---- camera from a projection ------------------------------------------------------------ */

/* A perspective projection, right-handed view (looking down -z), row-major, of one depth
 * convention: clip depth 0..1 (`gl` false) or OpenGL's -1..1 (forward finite only). */
static void projection(double n, double f, double fovy, double aspect, bool reversed,
                       bool infinite, bool gl, double *m)
{
    memset(m, 0, 16 * sizeof *m);
    double c = 1.0 / tan(fovy / 2.0);
    m[0] = c / aspect;
    m[5] = c;
    m[14] = -1.0;
    if (gl) {
        m[10] = -(f + n) / (f - n);
        m[11] = -2.0 * f * n / (f - n);
    } else if (infinite) {
        m[10] = reversed ? 0.0 : -1.0;
        m[11] = reversed ? n : -n;
    } else if (reversed) {
        m[10] = n / (f - n);
        m[11] = n * f / (f - n);
    } else {
        m[10] = -f / (f - n);
        m[11] = -n * f / (f - n);
    }
}

/* Device depth of view distance z in a convention (docs: upf_camera's table). */
static double depth_of(double z, double n, double f, bool reversed, bool infinite)
{
    if (infinite)
        return reversed ? n / z : 1.0 - n / z;
    return reversed ? n * (f - z) / (z * (f - n)) : f * (z - n) / (z * (f - n));
}

static void test_camera(void)
{
    const double deg = 3.14159265358979323846 / 180.0;
    upf_camera c;
    double m[16];
    /* The FSR 3.1 port's scene: OpenGL projection, near 0.1, far 1000.5, 45 degrees */
    projection(0.1, 1000.5, 45.0 * deg, 16.0 / 9.0, false, false, true, m);
    CHECK_NEAR(m[10], -1.0002, 5e-5); /* as the port printed it */
    CHECK_NEAR(m[11], -0.20002, 5e-6);
    CHECK_OK(NULL, upf_camera_from_projection(NULL, m, UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE, &c));
    CHECK_NEAR(c.near_plane, 0.1, 1e-12);
    CHECK_NEAR(c.far_plane, 1000.5, 1e-7);
    CHECK_NEAR(c.fov_y / deg, 45.0, 1e-12);
    CHECK_NEAR(c.aspect, 16.0 / 9.0, 1e-12);
    CHECK(!c.depth_reversed && !c.far_infinite);
    /* ... as the GPU's floats hold it: the far plane is sensitive to p22 (the port logged
     * 1000.53), the rest is not */
    double mf[16];
    for (int i = 0; i < 16; i++)
        mf[i] = (float)m[i];
    CHECK_OK(NULL, upf_camera_from_projection(NULL, mf, UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE, &c));
    CHECK_NEAR(c.near_plane, 0.1, 1e-6);
    CHECK_NEAR(c.far_plane, 1000.5, 1.0);
    CHECK_NEAR(c.fov_y / deg, 45.0, 1e-5);
    /* read as if its clip depth were 0..1 the same matrix says something else: near 0.19998 */
    CHECK_OK(NULL, upf_camera_from_projection(NULL, m, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c));
    CHECK_NEAR(c.near_plane, 0.2, 1e-3);

    /* the four conventions, Vulkan-style; factors against each convention's formula */
    for (int k = 0; k < 4; k++) {
        bool rev = k & 1, inf = k & 2;
        projection(0.05, 500.0, 60.0 * deg, 1.5, rev, inf, false, m);
        CHECK_OK(NULL, upf_camera_from_projection(NULL, m, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c));
        CHECKF(c.depth_reversed == rev && c.far_infinite == inf, "convention %d: reversed %d "
               "infinite %d", k, c.depth_reversed, c.far_infinite);
        CHECK_NEAR(c.near_plane, 0.05, 1e-12);
        if (inf)
            CHECK(isinf(c.far_plane));
        else
            CHECK_NEAR(c.far_plane, 500.0, 1e-9);
        CHECK_NEAR(c.fov_y / deg, 60.0, 1e-12);
        double worst = 0;
        for (double z = 0.05; z < 400.0; z *= 1.37) {
            double d = depth_of(z, 0.05, 500.0, rev, inf);
            double back = 1.0 / (c.depth_to_view_scale * d + c.depth_to_view_offset);
            worst = fmax(worst, fabs(back - z) / z);
        }
        CHECKF(worst < 1e-9, "convention %d: factors off by %g relative", k, worst);
        /* the engine's own factors (from near, far and the flags a host fills) agree */
        upf_camera hand = { 0.05, 500.0, 60.0 * deg, rev, inf, 0, 0, 0, 0, 0 };
        double scale, offset;
        upf__camera_depth_factors(&hand, &scale, &offset);
        CHECK_NEAR(scale, c.depth_to_view_scale, 1e-9 * fabs(scale));
        CHECK_NEAR(offset, c.depth_to_view_offset, 1e-9 * fabs(scale));
    }
    /* left-handed (looking down +z: m[14] = +1, depth row negated) */
    projection(0.1, 100.0, 50.0 * deg, 1.0, true, false, false, m);
    m[10] = -m[10], m[14] = 1.0;
    CHECK_OK(NULL, upf_camera_from_projection(NULL, m, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c));
    CHECK(c.depth_reversed && !c.far_infinite);
    CHECK_NEAR(c.near_plane, 0.1, 1e-12);
    CHECK_NEAR(c.far_plane, 100.0, 1e-9);
    /* y down (Vulkan's flip) and a jitter of (0.25, -0.125) px at 640x360 */
    projection(0.1, 100.0, 50.0 * deg, 16.0 / 9.0, true, true, false, m);
    m[5] = -m[5];
    m[2] = -2.0 * 0.25 / 640 * -1.0; /* translated by (-2 jx / W, +2 jy / H), times w = -z */
    m[6] = 2.0 * -0.125 / 360 * -1.0;
    CHECK_OK(NULL, upf_camera_from_projection(NULL, m, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c));
    CHECK_NEAR(c.fov_y / deg, 50.0, 1e-12);
    CHECK_NEAR(-c.center_x * 640 / 2, 0.25, 1e-12);
    CHECK_NEAR(c.center_y * 360 / 2, -0.125, 1e-12);
    /* a far plane beyond 10^7 near planes counts as infinite */
    projection(0.1, 1e7, 50.0 * deg, 1.0, false, false, false, m);
    CHECK_OK(NULL, upf_camera_from_projection(NULL, m, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c));
    CHECK(c.far_infinite && isinf(c.far_plane));

    upf_context *ctx = test_context(1);
    projection(0.1, 100.0, 50.0 * deg, 1.0, false, false, false, m);
    double bad[16];
    memcpy(bad, m, sizeof bad);
    bad[15] = 1.0; /* orthographic-like */
    CHECK_FAILS(ctx, upf_camera_from_projection(ctx, bad, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c),
                UPF_ERROR_INVALID_ARGUMENT, "row 3");
    memcpy(bad, m, sizeof bad);
    bad[7] = NAN;
    CHECK_FAILS(ctx, upf_camera_from_projection(ctx, bad, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c),
                UPF_ERROR_INVALID_ARGUMENT, "projection[7] is not finite");
    memcpy(bad, m, sizeof bad);
    bad[11] = 0.0;
    CHECK_FAILS(ctx, upf_camera_from_projection(ctx, bad, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c),
                UPF_ERROR_INVALID_ARGUMENT, "does not vary");
    memcpy(bad, m, sizeof bad);
    bad[8] = 0.5;
    CHECK_FAILS(ctx, upf_camera_from_projection(ctx, bad, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c),
                UPF_ERROR_INVALID_ARGUMENT, "oblique");
    memcpy(bad, m, sizeof bad);
    bad[10] = -bad[10]; /* a near plane behind the camera */
    CHECK_FAILS(ctx, upf_camera_from_projection(ctx, bad, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c),
                UPF_ERROR_INVALID_ARGUMENT, "near plane");
    CHECK_FAILS(ctx, upf_camera_from_projection(ctx, m, (upf_clip_depth)5, &c),
                UPF_ERROR_INVALID_ARGUMENT, "clip depth 5");
    CHECK_FAILS(ctx, upf_camera_from_projection(ctx, NULL, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c),
                UPF_ERROR_INVALID_ARGUMENT, "projection is NULL");
    upf_context_destroy(&ctx);
}

/* ---- camera motion from depth ------------------------------------------------------------ */

/* Renders a moving-camera view and compares upf_camera_motion with the renderer's vectors.
 * The renderer's are exact for everything; ours are the camera's only, so the movers differ:
 * at least `share` of the pixels must agree to 0.01 px (the float kernel's rounding). */
static void camera_motion_against_renderer(upf_context *ctx, const char *name, const char *path,
                                           scene_depth_mode depth_mode, bool infinite,
                                           double share)
{
    enum { W = 160, H = 96 };
    scene *s;
    CHECK_OK(ctx, scene_create(ctx, name, 7, &s));
    if (!s)
        return;
    static float color[4 * W * H], depth[W * H], motion[2 * W * H], ours[2 * W * H];
    scene_buffers b = { color, NULL, depth, motion };
    scene_camera cam;
    const double jx = 0.3125, jy = -0.1875;
    CHECK_OK(ctx, scene_render(s, scene_view_params(.path = path, .time = 1.5,
                                                    .frame_interval = 0.1, .width = W,
                                                    .height = H, .jitter_x = jx, .jitter_y = jy,
                                                    .depth = depth_mode,
                                                    .infinite_far = infinite),
                               &b, &cam));
    double vp[16], prev_vp[16];
    seq_mat4_mul(cam.proj, cam.view, vp);
    seq_mat4_mul(cam.prev_proj, cam.prev_view, prev_vp);
    upf_image di = { depth, W, H, 0, UPF_FORMAT_R32F }, mi = { ours, W, H, 0, UPF_FORMAT_RG32F };
    CHECK_OK(ctx, upf_camera_motion(ctx, upf_camera_motion_params(
        .view_projection = vp, .prev_view_projection = prev_vp, .jitter_x = jx,
        .jitter_y = jy), &di, &mi));
    /* The sky has the far plane's depth: a finite far plane puts it there, the renderer moves
     * it as points at infinity; the difference is the camera's translation seen from 500 or
     * 1000 m, a few hundredths of a pixel. Compared apart, to 0.1 px. */
    const float sky_depth = depth_mode == SCENE_DEPTH_FORWARD ? 1.0f : 0.0f;
    int agree = 0, ground = 0, sky_off = 0;
    double moving = 0;
    for (int i = 0; i < W * H; i++) {
        double e = fmax(fabs(ours[2 * i] - motion[2 * i]), fabs(ours[2 * i + 1] - motion[2 * i + 1]));
        if (depth[i] == sky_depth) {
            sky_off += e > 0.1;
            continue;
        }
        ground++;
        agree += e <= 0.01;
        moving += hypot(motion[2 * i], motion[2 * i + 1]);
    }
    printf("camera motion: %s %s: %.1f%% of the %d pixels not sky within 0.01 px of the "
           "renderer's (mean motion %.2f px); %d sky pixels off by more than 0.1 px\n", name,
           path, 100.0 * agree / ground, ground, moving / ground, sky_off);
    CHECKF(agree >= share * ground, "%s %s: %d of %d pixels agree", name, path, agree, ground);
    CHECK_EQ_INT(sky_off, 0);
    CHECK(moving / ground > 0.5); /* the camera does move: the test can fail */
    /* The same with NDC y pointing down (row 1 of both projections negated): the same vectors */
    static float flipped[2 * W * H];
    for (int k = 4; k < 8; k++)
        vp[k] = -vp[k], prev_vp[k] = -prev_vp[k];
    upf_image fi = { flipped, W, H, 0, UPF_FORMAT_RG32F };
    CHECK_OK(ctx, upf_camera_motion(ctx, upf_camera_motion_params(
        .view_projection = vp, .prev_view_projection = prev_vp, .jitter_x = jx,
        .jitter_y = jy, .ndc_y_down = 1), &di, &fi));
    double worst = 0;
    for (int i = 0; i < 2 * W * H; i++)
        worst = fmax(worst, fabs(flipped[i] - ours[i]));
    CHECKF(worst < 1e-3, "%s %s: y-down matrices differ by %g px", name, path, worst);
    scene_destroy(&s);
}

static void test_camera_motion(void)
{
    upf_context *ctx = test_context(2);
    camera_motion_against_renderer(ctx, "courtyard", "walk", SCENE_DEPTH_REVERSED, false, 0.98);
    camera_motion_against_renderer(ctx, "street", "orbit", SCENE_DEPTH_FORWARD, false, 0.98);
    camera_motion_against_renderer(ctx, "forest", "turn", SCENE_DEPTH_REVERSED, true, 0.98);
    camera_motion_against_renderer(ctx, "interior", "orbit", SCENE_DEPTH_FORWARD, true, 0.98);

    /* the identity: the same camera in both frames gives no motion (to float rounding) */
    float depth[4 * 3], mv[2 * 4 * 3];
    for (int i = 0; i < 12; i++)
        depth[i] = 0.1f + 0.07f * i;
    double m[16], bad[16];
    projection(0.1, 100.0, 1.0, 4.0 / 3.0, true, false, false, m);
    upf_image di = { depth, 4, 3, 0, UPF_FORMAT_R32F }, mi = { mv, 4, 3, 0, UPF_FORMAT_RG32F };
    CHECK_OK(ctx, upf_camera_motion(ctx, upf_camera_motion_params(.view_projection = m,
                                                                  .prev_view_projection = m),
                                    &di, &mi));
    double worst = 0;
    for (int i = 0; i < 24; i++)
        worst = fmax(worst, fabs(mv[i]));
    CHECK(worst < 1e-4);
    /* bad arguments */
    CHECK_FAILS(ctx, upf_camera_motion(ctx, upf_camera_motion_params(.view_projection = m),
                                       &di, &mi), UPF_ERROR_INVALID_ARGUMENT,
                "prev_view_projection is NULL");
    memset(bad, 0, sizeof bad);
    CHECK_FAILS(ctx, upf_camera_motion(ctx, upf_camera_motion_params(.view_projection = bad,
                                                                     .prev_view_projection = m),
                                       &di, &mi), UPF_ERROR_INVALID_ARGUMENT, "singular");
    CHECK_FAILS(ctx, upf_camera_motion(ctx, upf_camera_motion_params(.view_projection = m,
                                                                     .prev_view_projection = m,
                                                                     .jitter_x = 2),
                                       &di, &mi), UPF_ERROR_INVALID_ARGUMENT, "jitter");
    upf_image small = { mv, 3, 3, 0, UPF_FORMAT_RG32F };
    CHECK_FAILS(ctx, upf_camera_motion(ctx, upf_camera_motion_params(.view_projection = m,
                                                                     .prev_view_projection = m),
                                       &di, &small), UPF_ERROR_INVALID_ARGUMENT, "expected 4x3");
    depth[5] = NAN;
    CHECK_FAILS(ctx, upf_camera_motion(ctx, upf_camera_motion_params(.view_projection = m,
                                                                     .prev_view_projection = m),
                                       &di, &mi), UPF_ERROR_BAD_DATA, "x=1, y=1");
    CHECK_FAILS(ctx, upf_camera_motion(ctx, NULL, &di, &mi), UPF_ERROR_INVALID_ARGUMENT,
                "params is NULL");
    upf_context_destroy(&ctx);
}

int main(void)
{
    test_jitter();
    test_modes();
    test_camera();
    test_camera_motion();
    return test_finish("temporal_helpers");
}
