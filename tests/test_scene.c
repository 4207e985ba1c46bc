/* test_scene.c: the scene renderer (tools/scene): determinism on 1 and 2 threads, exact
 * motion vectors (warping a frame onto the previous one), exact depth (against the
 * calibration scene's closed-form distances, both conventions), jitter (a jittered render is
 * the unjittered scene sampled at the shifted positions), convergence of the supersampled
 * reference and the aliasing of 1 spp, and bad arguments, in the API and through the tool.
 *
 * Sizes are small so the whole test runs in seconds under ASan. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/color.h"
#include "scene/scene.h"
#include "test_util.h"

/* ---- helpers ---------------------------------------------------------------------------- */

typedef struct frame {
    int w, h;
    float *color, *hud, *depth, *motion;
    scene_camera cam;
} frame;

static void frame_alloc(frame *f, int w, int h)
{
    memset(f, 0, sizeof *f);
    f->w = w;
    f->h = h;
    size_t n = (size_t)w * (size_t)h;
    f->color = calloc(4 * n, sizeof(float));
    f->hud = calloc(4 * n, sizeof(float));
    f->depth = calloc(n, sizeof(float));
    f->motion = calloc(2 * n, sizeof(float));
}

static void frame_free(frame *f)
{
    free(f->color);
    free(f->hud);
    free(f->depth);
    free(f->motion);
    memset(f, 0, sizeof *f);
}

static bool render(scene *s, frame *f, const scene_view_params *p)
{
    scene_view_params q = *p;
    q.width = f->w;
    q.height = f->h;
    scene_buffers b = { f->color, f->hud, f->depth, f->motion };
    upf_result r = scene_render(s, &q, &b, &f->cam);
    if (r != UPF_OK) {
        const char *m = "";
        upf_context_last_error(scene_context(s), &m);
        fprintf(stderr, "scene_render failed: %s\n", m);
        return false;
    }
    return true;
}

/* Display-encoded value of a linear one (what PSNR is computed on, as in the library). */
static double enc(float v)
{
    return upf_linear_to_srgb_d(v < 0.0f ? 0.0 : v > 1.0f ? 1.0 : v);
}

/* PSNR over R, G, B (display-encoded, peak 1) of the pixels where mask is non-zero (all if
 * mask is NULL); returns +inf for identical pixels. */
static double psnr_masked(const float *a, const float *b, const unsigned char *mask, int w, int h)
{
    double se = 0.0;
    long n = 0;
    for (long i = 0; i < (long)w * h; i++) {
        if (mask && !mask[i])
            continue;
        for (int k = 0; k < 3; k++) {
            double d = enc(a[4 * i + k]) - enc(b[4 * i + k]);
            se += d * d;
        }
        n += 3;
    }
    if (n == 0)
        return NAN;
    return se == 0.0 ? INFINITY : 10.0 * log10((double)n / se);
}

/* Bilinear sample of an RGBA float image at screen position (x, y) (pixel centres at +0.5);
 * false outside the image. */
static bool bilinear_rgba(const float *img, int w, int h, double x, double y, float out[4])
{
    double fx = x - 0.5, fy = y - 0.5;
    if (fx < 0.0 || fy < 0.0 || fx > w - 1 || fy > h - 1)
        return false;
    int x0 = (int)fx, y0 = (int)fy;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    double ax = fx - x0, ay = fy - y0;
    for (int k = 0; k < 4; k++) {
        double v00 = img[4 * ((size_t)y0 * w + x0) + k], v10 = img[4 * ((size_t)y0 * w + x1) + k];
        double v01 = img[4 * ((size_t)y1 * w + x0) + k], v11 = img[4 * ((size_t)y1 * w + x1) + k];
        out[k] = (float)((v00 * (1 - ax) + v10 * ax) * (1 - ay) + (v01 * (1 - ax) + v11 * ax) * ay);
    }
    return true;
}

/* View-space distance from a depth value (the inverse of scene.h's mappings). */
static double depth_to_distance(double d, double n, double f, bool reversed, bool infinite)
{
    if (infinite)
        return reversed ? n / d : n / (1.0 - d);
    if (reversed)
        return f * n / (n + d * (f - n));
    return f * n / (f - d * (f - n));
}

static scene *make_scene(upf_context *ctx, const char *name, uint32_t seed)
{
    scene *s = NULL;
    upf_result r = scene_create(ctx, name, seed, &s);
    if (r != UPF_OK) {
        const char *m = "";
        upf_context_last_error(ctx, &m);
        fprintf(stderr, "scene_create(%s) failed: %s\n", name, m);
    }
    return s;
}

/* ---- jitter sequence --------------------------------------------------------------------- */

static void test_jitter_sequence(void)
{
    double jx, jy;
    scene_halton_jitter(0, 8, &jx, &jy); /* H2(1) = 1/2, H3(1) = 1/3 */
    CHECK_NEAR(jx, 0.0, 1e-15);
    CHECK_NEAR(jy, 1.0 / 3.0 - 0.5, 1e-15);
    scene_halton_jitter(1, 8, &jx, &jy); /* H2(2) = 1/4, H3(2) = 2/3 */
    CHECK_NEAR(jx, -0.25, 1e-15);
    CHECK_NEAR(jy, 2.0 / 3.0 - 0.5, 1e-15);
    scene_halton_jitter(4, 8, &jx, &jy); /* H2(5) = 5/8, H3(5) = 7/9 */
    CHECK_NEAR(jx, 0.125, 1e-15);
    CHECK_NEAR(jy, 7.0 / 9.0 - 0.5, 1e-15);
    double jx8, jy8;
    scene_halton_jitter(8 + 4, 8, &jx8, &jy8); /* wraps with the phase count */
    scene_halton_jitter(4, 8, &jx, &jy);
    CHECK(jx8 == jx && jy8 == jy);
    /* every phase in [-0.5, 0.5), never (0, 0) */
    for (int i = 0; i < 72; i++) {
        scene_halton_jitter(i, 72, &jx, &jy);
        CHECK(jx >= -0.5 && jx < 0.5 && jy >= -0.5 && jy < 0.5);
        CHECK(!(jx == 0.0 && jy == 0.0));
    }
    /* FSR / DLSS phase counts: ceil(8 (out / render)^2) */
    CHECK_EQ_INT(scene_jitter_phases(1920, 1920), 8);
    CHECK_EQ_INT(scene_jitter_phases(1280, 1920), 18);  /* Quality 1.5x */
    CHECK_EQ_INT(scene_jitter_phases(960, 1920), 32);   /* Performance 2x */
    CHECK_EQ_INT(scene_jitter_phases(640, 1920), 72);   /* Ultra performance 3x */
    CHECK_EQ_INT(scene_jitter_phases(1114, 1920), 24);  /* Balanced ~1.72x: 23.77 -> 24 */
    CHECK_EQ_INT(scene_jitter_phases(1920, 960), 8);    /* downscale: the base 8 */
}

/* ---- API errors --------------------------------------------------------------------------- */

static void test_api_errors(upf_context *ctx)
{
    scene *s = NULL;
    CHECK_FAILS(ctx, scene_create(ctx, "nowhere", 1, &s), UPF_ERROR_INVALID_ARGUMENT,
                "unknown scene 'nowhere'");
    CHECK(s == NULL);
    CHECK_FAILS(ctx, scene_create(ctx, NULL, 1, &s), UPF_ERROR_INVALID_ARGUMENT, "name is NULL");
    s = make_scene(ctx, "calibration", 1);
    if (!s)
        return;
    float px[4 * 16], d[16], m[32];
    scene_buffers b = { px, NULL, d, m };
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 0, .height = 4), &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "size 0x4");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 20000), &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "size 4x20000");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4, .spp = -1), &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "spp -1");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4,
                                                       .spp = SCENE_MAX_SPP + 1), &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "spp 4097");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4, .path = "fly"),
                                  &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "unknown path 'fly'");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4, .time = NAN),
                                  &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "time nan");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4, .jitter_x = 0.5),
                                  &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "jitter (0.5, 0)");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4,
                                                       .mip_bias = INFINITY), &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "mip_bias inf");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4,
                                                       .frame_interval = -1), &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "frame_interval -1");
    CHECK_FAILS(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4,
                                                       .depth = (scene_depth_mode)7), &b, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "depth mode 7");
    CHECK_FAILS(ctx, scene_render(s, NULL, &b, NULL), UPF_ERROR_INVALID_ARGUMENT, "params is NULL");
    CHECK_OK(ctx, scene_render(s, scene_view_params(.width = 4, .height = 4), &b, NULL));
    scene_destroy(&s);
    CHECK(s == NULL);
    scene_destroy(&s); /* NULL is fine */
    scene_destroy(NULL);
}

/* ---- determinism ----------------------------------------------------------------------------- */

static bool frames_identical(const frame *a, const frame *b)
{
    size_t n = (size_t)a->w * (size_t)a->h;
    return memcmp(a->color, b->color, 4 * n * sizeof(float)) == 0 &&
           memcmp(a->hud, b->hud, 4 * n * sizeof(float)) == 0 &&
           memcmp(a->depth, b->depth, n * sizeof(float)) == 0 &&
           memcmp(a->motion, b->motion, 2 * n * sizeof(float)) == 0;
}

static void test_determinism(upf_context *ctx1, upf_context *ctx2)
{
    for (int i = 0; i < scene_count(); i++) {
        const char *name = scene_name(i);
        scene *s1 = make_scene(ctx1, name, 42), *s2 = make_scene(ctx2, name, 42);
        CHECKF(s1 && s2, "%s", name);
        if (!s1 || !s2) {
            scene_destroy(&s1);
            scene_destroy(&s2);
            continue;
        }
        frame a, b, c;
        frame_alloc(&a, 75, 43); /* not a multiple of the tile size */
        frame_alloc(&b, 75, 43);
        frame_alloc(&c, 75, 43);
        const scene_view_params *p = scene_view_params(.path = "walk", .time = 1.3, .spp = 4,
                                                       .jitter_x = 0.2, .jitter_y = -0.3);
        bool ok = render(s1, &a, p) && render(s2, &b, p) && render(s1, &c, p);
        CHECKF(ok && frames_identical(&a, &b), "%s: 1 and 2 threads differ", name);
        CHECKF(ok && frames_identical(&a, &c), "%s: two renders differ", name);
        /* a different seed is a different scene */
        scene *s3 = make_scene(ctx1, name, 43);
        if (s3 && render(s3, &c, p))
            CHECKF(!scene_is_test_only(i) ? memcmp(a.color, c.color, 4 * 75 * 43 * sizeof(float)) != 0
                                          : true,
                   "%s: seeds 42 and 43 give the same picture", name);
        scene_destroy(&s3);
        frame_free(&a);
        frame_free(&b);
        frame_free(&c);
        scene_destroy(&s1);
        scene_destroy(&s2);
    }
}

/* ---- depth --------------------------------------------------------------------------------- */

/* The calibration scene's still camera: eye 1.6 m above the floor plane y = 0, looking
 * along -z, level; a wall at z = -12. For pixel centre row sy (unjittered) the view ray's
 * direction has y = (1 - 2 sy / H) tan(fov / 2) per unit of distance along -z, so the floor
 * is at distance 1.6 / -y when y < 0, the wall at 12 when the floor is farther or not hit. */
static double calibration_distance(double sy, int h, double fov_y)
{
    double dy = (1.0 - 2.0 * sy / h) * tan(0.5 * fov_y);
    double floor_d = dy < 0.0 ? 1.6 / -dy : INFINITY;
    return floor_d < 12.0 ? floor_d : 12.0;
}

static void test_depth(upf_context *ctx)
{
    scene *s = make_scene(ctx, "calibration", 1);
    if (!s)
        return;
    enum { W = 96, H = 64 };
    frame fw, rv, ri, fi;
    frame_alloc(&fw, W, H);
    frame_alloc(&rv, W, H);
    frame_alloc(&ri, W, H);
    frame_alloc(&fi, W, H);
    bool ok = render(s, &fw, scene_view_params(.depth = SCENE_DEPTH_FORWARD)) &&
              render(s, &rv, scene_view_params(.depth = SCENE_DEPTH_REVERSED)) &&
              render(s, &ri, scene_view_params(.depth = SCENE_DEPTH_REVERSED, .infinite_far = true)) &&
              render(s, &fi, scene_view_params(.depth = SCENE_DEPTH_FORWARD, .infinite_far = true));
    CHECK(ok);
    if (ok) {
        double n = fw.cam.near_plane, f = fw.cam.far_plane;
        CHECK(isinf(ri.cam.far_plane) && !isinf(rv.cam.far_plane));
        CHECK(rv.cam.depth_reversed && !fw.cam.depth_reversed);
        long matched = 0, nearer = 0, bad = 0;
        double worst = 0.0, worst_conv = 0.0;
        for (int y = 0; y < H; y++) {
            double expect = calibration_distance(y + 0.5, H, fw.cam.fov_y);
            for (int x = 0; x < W; x++) {
                size_t i = (size_t)y * W + x;
                double zf = depth_to_distance(fw.depth[i], n, f, false, false);
                double zr = depth_to_distance(rv.depth[i], n, f, true, false);
                double zri = depth_to_distance(ri.depth[i], n, f, true, true);
                double zfi = depth_to_distance(fi.depth[i], n, f, false, true);
                /* all four conventions give the same distance, and reversed = 1 - forward */
                double conv = fmax(fmax(fabs(zr - zf), fabs(zri - zf)), fabs(zfi - zf) * 0.01) / zf;
                worst_conv = fmax(worst_conv, conv);
                CHECKF(fabs((double)rv.depth[i] - (1.0 - (double)fw.depth[i])) < 2e-7,
                       "reversed %.9g vs 1 - forward %.9g at (%d,%d)", rv.depth[i], fw.depth[i], x, y);
                double rel = fabs(zf - expect) / expect;
                if (rel < 1e-5) {
                    matched++;
                    worst = fmax(worst, rel);
                } else if (zf < expect) {
                    nearer++; /* the two boxes stand in front of the planes */
                } else {
                    bad++;
                }
            }
        }
        printf("depth: %ld of %d pixels at the analytic distance (worst relative error %.2g), "
               "%ld nearer (the boxes); conventions agree to %.2g\n", matched, W * H, worst,
               nearer, worst_conv);
        CHECK_EQ_INT(bad, 0);
        CHECKF(matched > W * H * 85 / 100, "only %ld pixels match the analytic depth", matched);
        CHECKF(worst_conv < 1e-5, "conventions differ by %.3g", worst_conv);
        /* a jittered render sees the floor at the shifted row */
        frame fj;
        frame_alloc(&fj, W, H);
        if (render(s, &fj, scene_view_params(.depth = SCENE_DEPTH_FORWARD, .jitter_y = 0.37))) {
            int y = H - 3;
            double expect = calibration_distance(y + 0.5 + 0.37, H, fw.cam.fov_y);
            double z = depth_to_distance(fj.depth[(size_t)y * W + 3], n, f, false, false);
            CHECK_NEAR(z / expect, 1.0, 1e-5);
        }
        frame_free(&fj);
    }
    frame_free(&fw);
    frame_free(&rv);
    frame_free(&ri);
    frame_free(&fi);
    scene_destroy(&s);
}

/* ---- motion ---------------------------------------------------------------------------------- */

typedef struct warp_result {
    double psnr, psnr_zero_motion;
    double kept;    /* share of pixels not excluded as disoccluded or off screen */
} warp_result;

/* Warps frame `cur` onto frame `prev` with its motion vectors: each pixel p of cur takes
 * prev's colour at p + mv(p) (bilinear), and the result is compared with cur's colour.
 * Excluded: samples that land off screen, and disoccluded ones: where any of the 4 bilinear
 * taps of prev's depth disagrees with cur's distance at p by more than 5% (the surface was
 * hidden, or the taps straddle an edge). The same mask is used for the zero-motion
 * comparison, the negative control. */
static warp_result warp_check(const frame *cur, const frame *prev)
{
    int w = cur->w, h = cur->h;
    double n = cur->cam.near_plane, f = cur->cam.far_plane;
    bool rev = cur->cam.depth_reversed, inf = isinf(f);
    float *warped = calloc(4 * (size_t)w * h, sizeof(float));
    unsigned char *mask = calloc((size_t)w * h, 1);
    long kept = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            double px = x + 0.5 + cur->motion[2 * i], py = y + 0.5 + cur->motion[2 * i + 1];
            if (!bilinear_rgba(prev->color, w, h, px, py, &warped[4 * i]))
                continue;
            double zc = depth_to_distance(cur->depth[i], n, f, rev, inf);
            bool sky = rev ? cur->depth[i] == 0.0f : cur->depth[i] == 1.0f;
            int x0 = (int)(px - 0.5), y0 = (int)(py - 0.5);
            bool agree = true;
            for (int k = 0; k < 4; k++) {
                int tx = x0 + (k & 1) < w ? x0 + (k & 1) : w - 1;
                int ty = y0 + (k >> 1) < h ? y0 + (k >> 1) : h - 1;
                float dp = prev->depth[(size_t)ty * w + tx];
                bool psky = rev ? dp == 0.0f : dp == 1.0f;
                if (sky || psky) {
                    agree = agree && sky == psky;
                    continue;
                }
                double zp = depth_to_distance(dp, n, f, rev, inf);
                agree = agree && fabs(zp - zc) <= 0.05 * zc;
            }
            if (agree) {
                mask[i] = 1;
                kept++;
            }
        }
    }
    warp_result r;
    r.psnr = psnr_masked(warped, cur->color, mask, w, h);
    r.psnr_zero_motion = psnr_masked(prev->color, cur->color, mask, w, h);
    r.kept = (double)kept / ((double)w * h);
    free(warped);
    free(mask);
    return r;
}

static void motion_case(upf_context *ctx, const char *name, const char *path, double t,
                        int spp, double threshold, double min_gap)
{
    scene *s = make_scene(ctx, name, 7);
    if (!s)
        return;
    enum { W = 160, H = 96 };
    const double fps = 30.0;
    frame cur, prev;
    frame_alloc(&cur, W, H);
    frame_alloc(&prev, W, H);
    bool ok = render(s, &prev, scene_view_params(.path = path, .time = t - 1.0 / fps,
                                                  .frame_interval = 1.0 / fps, .spp = spp)) &&
              render(s, &cur, scene_view_params(.path = path, .time = t,
                                                 .frame_interval = 1.0 / fps, .spp = spp));
    CHECK(ok);
    if (ok) {
        warp_result r = warp_check(&cur, &prev);
        printf("motion %-11s %-6s t=%.2f spp %d: warped PSNR %.2f dB (no motion %.2f dB) on "
               "%.1f%% of pixels\n", name, path, t, spp, r.psnr, r.psnr_zero_motion,
               100.0 * r.kept);
        CHECKF(r.psnr > threshold, "%s %s: warped PSNR %.2f dB <= %.1f", name, path, r.psnr,
               threshold);
        CHECKF(r.psnr - r.psnr_zero_motion > min_gap, "%s %s: motion vectors gain only %.2f dB "
               "over none", name, path, r.psnr - r.psnr_zero_motion);
        CHECKF(r.kept > 0.8, "%s %s: only %.1f%% of pixels compared", name, path, 100.0 * r.kept);
    }
    frame_free(&cur);
    frame_free(&prev);
    scene_destroy(&s);
}

/* Motion vectors of the sky and of static geometry under a still camera with jitter: zero
 * (they carry no jitter). */
static void test_motion_still(upf_context *ctx)
{
    scene *s = make_scene(ctx, "calibration", 1);
    if (!s)
        return;
    frame f;
    frame_alloc(&f, 40, 30);
    if (render(s, &f, scene_view_params(.path = "still", .time = 0.0, .jitter_x = 0.3,
                                         .jitter_y = -0.2))) {
        /* the sliding box is at rest at t = 0 (cosine ease); the spinning box moves */
        long zero = 0;
        for (int i = 0; i < 40 * 30; i++)
            zero += fabsf(f.motion[2 * i]) < 1e-4f && fabsf(f.motion[2 * i + 1]) < 1e-4f;
        CHECKF(zero > 40 * 30 * 9 / 10, "%ld of %d pixels have zero motion", zero, 40 * 30);
    }
    frame_free(&f);
    scene_destroy(&s);
}

/* ---- jitter ---------------------------------------------------------------------------------- */

/* A render at W x H with jitter (+-1/4, +-1/4) samples the scene at (x + 0.5 -+ 1/4, ...):
 * exactly the sample positions of pixels (2x + 1, 2y + 1) (or 2x, 2y) of an unjittered
 * 2W x 2H render. With the 2x render's mip bias +1 its texture level of detail is the same,
 * so colour, depth and motion (x2) must agree to float rounding. Any scene will do. */
static void test_jitter_exact(upf_context *ctx)
{
    scene *s = make_scene(ctx, "courtyard", 3);
    if (!s)
        return;
    enum { W = 48, H = 32 };
    frame lo, hi;
    frame_alloc(&lo, W, H);
    frame_alloc(&hi, 2 * W, 2 * H);
    for (int c = 0; c < 2; c++) {
        double j = c == 0 ? 0.25 : -0.25;
        int off = c == 0 ? 1 : 0;
        bool ok = render(s, &lo, scene_view_params(.path = "orbit", .time = 0.7, .jitter_x = j,
                                                    .jitter_y = j)) &&
                  render(s, &hi, scene_view_params(.path = "orbit", .time = 0.7, .mip_bias = 1.0));
        CHECK(ok);
        if (!ok)
            break;
        double worst_c = 0, worst_d = 0, worst_m = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                size_t i = (size_t)y * W + x;
                size_t k = (size_t)(2 * y + off) * (2 * W) + (size_t)(2 * x + off);
                for (int ch = 0; ch < 3; ch++)
                    worst_c = fmax(worst_c, fabs(lo.color[4 * i + ch] - hi.color[4 * k + ch]));
                worst_d = fmax(worst_d, fabs(lo.depth[i] - hi.depth[k]) / fmax(1e-3, hi.depth[k]));
                for (int ch = 0; ch < 2; ch++)
                    worst_m = fmax(worst_m, fabs(2.0 * lo.motion[2 * i + ch] - hi.motion[2 * k + ch]));
            }
        printf("jitter (%+.2f, %+.2f) vs 2x unjittered: max colour diff %.2g, depth %.2g "
               "(relative), motion %.2g px\n", j, j, worst_c, worst_d, worst_m);
        CHECKF(worst_c < 1e-3, "colour differs by %.3g", worst_c);
        CHECKF(worst_d < 1e-5, "depth differs by %.3g", worst_d);
        CHECKF(worst_m < 1e-3, "motion differs by %.3g", worst_m);
    }
    frame_free(&lo);
    frame_free(&hi);
    scene_destroy(&s);
}

/* On the smooth calibration scene, a render with any jitter equals the unjittered render
 * sampled (bilinearly) at the shifted positions, away from geometric edges; a render with
 * the jitter applied the wrong way round does not. */
static void test_jitter_smooth(upf_context *ctx)
{
    scene *s = make_scene(ctx, "calibration", 1);
    if (!s)
        return;
    enum { W = 128, H = 80 };
    const double jx = 0.3, jy = -0.35;
    frame un, ji, wrong;
    frame_alloc(&un, W, H);
    frame_alloc(&ji, W, H);
    frame_alloc(&wrong, W, H);
    bool ok = render(s, &un, scene_view_params(.time = 0.0)) &&
              render(s, &ji, scene_view_params(.time = 0.0, .jitter_x = jx, .jitter_y = jy)) &&
              render(s, &wrong, scene_view_params(.time = 0.0, .jitter_x = -jx, .jitter_y = -jy));
    CHECK(ok);
    if (ok) {
        double err = 0.0, err_wrong = 0.0;
        long n = 0;
        for (int y = 1; y < H - 1; y++)
            for (int x = 1; x < W - 1; x++) {
                size_t i = (size_t)y * W + x;
                /* away from depth edges: the 3x3 neighbourhood of the unjittered render
                 * varies smoothly (relative depth change below 10%) */
                bool smooth = true;
                for (int dy = -1; dy <= 1 && smooth; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        float a = un.depth[i], b = un.depth[(size_t)(y + dy) * W + x + dx];
                        if (fabsf(a - b) > 0.1f * a)
                            smooth = false;
                    }
                if (!smooth)
                    continue;
                float ref[4];
                if (!bilinear_rgba(un.color, W, H, x + 0.5 + jx, y + 0.5 + jy, ref))
                    continue;
                for (int k = 0; k < 3; k++) {
                    err += fabs(ji.color[4 * i + k] - ref[k]);
                    err_wrong += fabs(wrong.color[4 * i + k] - ref[k]);
                }
                n += 3;
            }
        err /= (double)n;
        err_wrong /= (double)n;
        printf("jitter (%.2f, %.2f) on the smooth scene: mean |jittered - shifted unjittered| "
               "%.2g (jitter negated: %.2g) over %ld values\n", jx, jy, err, err_wrong, n);
        CHECKF(err < 2e-3, "mean difference %.3g", err);
        CHECKF(err_wrong > 3.0 * err, "the negated jitter is not worse: %.3g vs %.3g", err_wrong, err);
    }
    frame_free(&un);
    frame_free(&ji);
    frame_free(&wrong);
    scene_destroy(&s);
}

/* ---- convergence and aliasing ----------------------------------------------------------------- */

/* RMS of the 4-neighbour Laplacian of display luma (0..255), over inner pixels. */
static double detail(const float *c, int w, int h)
{
    double se = 0;
    long n = 0;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            double l[5];
            const int ox[5] = { 0, -1, 1, 0, 0 }, oy[5] = { 0, 0, 0, -1, 1 };
            for (int k = 0; k < 5; k++) {
                const float *p = c + 4 * ((size_t)(y + oy[k]) * w + x + ox[k]);
                l[k] = 255.0 * (0.2126 * enc(p[0]) + 0.7152 * enc(p[1]) + 0.0722 * enc(p[2]));
            }
            double lap = 4 * l[0] - l[1] - l[2] - l[3] - l[4];
            se += lap * lap;
            n++;
        }
    return sqrt(se / (double)n);
}

static void test_convergence(upf_context *ctx)
{
    scene *s = make_scene(ctx, "courtyard", 5);
    if (!s)
        return;
    enum { W = 48, H = 32 };
    frame a, b, c;
    frame_alloc(&a, W, H);
    frame_alloc(&b, W, H);
    frame_alloc(&c, W, H);
    const char *path = "still";
    bool ok = render(s, &a, scene_view_params(.path = path, .spp = 64)) &&
              render(s, &b, scene_view_params(.path = path, .spp = 256)) &&
              render(s, &c, scene_view_params(.path = path, .spp = 1));
    CHECK(ok);
    if (ok) {
        double p64 = psnr_masked(a.color, b.color, NULL, W, H);
        double p1 = psnr_masked(c.color, b.color, NULL, W, H);
        double d1 = detail(c.color, W, H), d256 = detail(b.color, W, H);
        printf("convergence: PSNR 64 vs 256 spp %.2f dB; 1 vs 256 spp %.2f dB; detail (RMS "
               "Laplacian) 1 spp %.1f, 256 spp %.1f\n", p64, p1, d1, d256);
        CHECKF(p64 > 40.0, "64 vs 256 spp: %.2f dB", p64);
        CHECKF(p1 < p64 - 10.0, "1 spp is not aliased: %.2f dB vs %.2f", p1, p64);
        CHECKF(d1 > 1.3 * d256, "1 spp detail %.1f not above the reference's %.1f", d1, d256);
    }
    frame_free(&a);
    frame_free(&b);
    frame_free(&c);
    scene_destroy(&s);
}

int main(void)
{
    upf_context *ctx1 = test_context(1), *ctx2 = test_context(2);
    if (!ctx1 || !ctx2) {
        fprintf(stderr, "no context\n");
        return 1;
    }
    test_jitter_sequence();
    test_api_errors(ctx1);
    test_determinism(ctx1, ctx2);
    test_depth(ctx2);
    test_motion_still(ctx2);
    test_jitter_exact(ctx2);
    test_jitter_smooth(ctx2);
    motion_case(ctx2, "calibration", "orbit", 1.0, 1, 40.0, 10.0);
    test_convergence(ctx2);
    upf_context_destroy(&ctx1);
    upf_context_destroy(&ctx2);
    return test_finish("scene");
}
