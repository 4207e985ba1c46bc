/* test_scene.c: the scene renderer (tools/scene): determinism on 1 and 2 threads, exact
 * motion vectors (warping a frame onto the previous one), exact depth (against the
 * calibration scene's closed-form distances, both conventions), jitter (a jittered render is
 * the unjittered scene sampled at the shifted positions), convergence of the supersampled
 * reference and the aliasing of 1 spp, and bad arguments, in the API and through the tool.
 *
 * Sizes are small so the whole test runs in seconds under ASan. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/color.h"
#include "imageio/image_io.h"
#include "scene/scene.h"
#include "test_util.h"

extern char **environ;

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

/* Scenes are built once per (context, name, seed) and shared by the tests (building is
 * the slow part); release_scenes() frees them at the end. */
static struct cached_scene {
    upf_context *ctx;
    const char *name;
    uint32_t seed;
    scene *s;
} scene_cache[32];
static int scene_cache_count;

static scene *make_scene(upf_context *ctx, const char *name, uint32_t seed)
{
    for (int i = 0; i < scene_cache_count; i++)
        if (scene_cache[i].ctx == ctx && strcmp(scene_cache[i].name, name) == 0 &&
            scene_cache[i].seed == seed)
            return scene_cache[i].s;
    scene *s = NULL;
    upf_result r = scene_create(ctx, name, seed, &s);
    if (r != UPF_OK) {
        const char *m = "";
        upf_context_last_error(ctx, &m);
        fprintf(stderr, "scene_create(%s) failed: %s\n", name, m);
        return NULL;
    }
    if (scene_cache_count < 32)
        scene_cache[scene_cache_count++] = (struct cached_scene){ ctx, name, seed, s };
    return s;
}

static void release_scenes(void)
{
    for (int i = 0; i < scene_cache_count; i++)
        scene_destroy(&scene_cache[i].s);
    scene_cache_count = 0;
}

/* ---- API errors --------------------------------------------------------------------------- */

static void test_api_errors(upf_context *ctx)
{
    scene *s = NULL;
    CHECK_FAILS(ctx, scene_create(ctx, "nowhere", 1, &s), UPF_ERROR_INVALID_ARGUMENT,
                "unknown scene 'nowhere'");
    CHECK(s == NULL);
    CHECK_FAILS(ctx, scene_create(ctx, NULL, 1, &s), UPF_ERROR_INVALID_ARGUMENT, "name is NULL");
    CHECK_OK(ctx, scene_create(ctx, "calibration", 1, &s));
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
        scene *s1 = make_scene(ctx1, name, 7), *s2 = make_scene(ctx2, name, 7);
        CHECKF(s1 && s2, "%s", name);
        if (!s1 || !s2)
            continue;
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
        if (strcmp(name, "courtyard") == 0) {
            scene *s3 = make_scene(ctx2, name, 43);
            CHECKF(s3 && render(s3, &c, p) && memcmp(a.color, c.color, 4 * 75 * 43 * sizeof(float)) != 0,
                   "%s: seeds 7 and 43 give the same picture", name);
        }
        frame_free(&a);
        frame_free(&b);
        frame_free(&c);
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
    scene *s = make_scene(ctx, "calibration", 7);
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
}

/* ---- motion ---------------------------------------------------------------------------------- */

/* Small float64 matrix helpers (row-major 4x4, column vectors). */
static void mat_vec(const double *m, const double *v, double *o)
{
    for (int i = 0; i < 4; i++)
        o[i] = m[4 * i] * v[0] + m[4 * i + 1] * v[1] + m[4 * i + 2] * v[2] + m[4 * i + 3] * v[3];
}

/* Inverse by Gauss-Jordan elimination with partial pivoting. */
static void mat_inverse(const double *m, double *inv)
{
    double a[4][8];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            a[i][j] = m[4 * i + j];
            a[i][j + 4] = i == j;
        }
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        for (int j = 0; j < 8; j++) {
            double t = a[c][j];
            a[c][j] = a[p][j];
            a[p][j] = t;
        }
        double d = a[c][c];
        for (int j = 0; j < 8; j++)
            a[c][j] /= d;
        for (int r = 0; r < 4; r++)
            if (r != c) {
                double k = a[r][c];
                for (int j = 0; j < 8; j++)
                    a[r][j] -= k * a[c][j];
            }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            inv[4 * i + j] = a[i][j + 4];
}

static bool is_sky(const frame *f, size_t i)
{
    return f->cam.depth_reversed ? f->depth[i] == 0.0f : f->depth[i] == 1.0f;
}

/* The world point (w = 1) or, for the sky, world direction (w = 0) seen at pixel i of f:
 * from the depth, the unjittered projection and the inverse view. */
static void pixel_world(const frame *f, size_t i, double out[4])
{
    const scene_camera *c = &f->cam;
    double sx = (double)(i % (size_t)f->w) + 0.5 + c->jitter_x;
    double sy = (double)(i / (size_t)f->w) + 0.5 + c->jitter_y;
    double th = tan(0.5 * c->fov_y);
    double dx = (2.0 * sx / f->w - 1.0) * th * c->aspect, dy = (1.0 - 2.0 * sy / f->h) * th;
    double v[4];
    if (is_sky(f, i)) {
        v[0] = dx, v[1] = dy, v[2] = -1.0, v[3] = 0.0;
    } else {
        double z = depth_to_distance(f->depth[i], c->near_plane, c->far_plane, c->depth_reversed,
                                     isinf(c->far_plane));
        v[0] = dx * z, v[1] = dy * z, v[2] = -z, v[3] = 1.0;
    }
    double iv[16];
    mat_inverse(c->view, iv);
    mat_vec(iv, v, out);
}

/* The previous frame's screen position of a world point (or direction), minus the current
 * sample position: the motion vector it must have. */
static void expected_motion(const frame *f, size_t i, const double world_prev[4], double mv[2])
{
    const scene_camera *c = &f->cam;
    double q[4], r[4];
    mat_vec(c->prev_view, world_prev, q);
    mat_vec(c->prev_proj, q, r);
    double sx = (double)(i % (size_t)f->w) + 0.5 + c->jitter_x;
    double sy = (double)(i / (size_t)f->w) + 0.5 + c->jitter_y;
    mv[0] = (r[0] / r[3] * 0.5 + 0.5) * f->w - sx;
    mv[1] = (0.5 - r[1] / r[3] * 0.5) * f->h - sy;
}

/* The calibration scene's movers (scene_calibration.c): a box of half size 0.6 placed at
 * (0, 0.6, -6) sliding along x by -3 + 6 (1 - cos(2 pi t / 4)) / 2; a box of half size
 * (0.8, 1, 0.8) at (3.5, 1, -8) spinning about its vertical axis at 1.2 rad/s. */
static double slide_x(double t)
{
    return -3.0 + 6.0 * 0.5 * (1.0 - cos(2.0 * 3.14159265358979323846 * t / 4.0));
}

/* Each pixel's motion against the analytic motion of whatever it shows (static world, the
 * sliding box, the spinning box), the camera moving too. */
static void test_motion_analytic(upf_context *ctx)
{
    scene *s = make_scene(ctx, "calibration", 7);
    if (!s)
        return;
    enum { W = 128, H = 80 };
    const char *paths[2] = { "orbit", "still" };
    for (int pi = 0; pi < 2; pi++) {
        frame f;
        frame_alloc(&f, W, H);
        const double t = 1.3, dt = 0.1;
        if (render(s, &f, scene_view_params(.path = paths[pi], .time = t, .frame_interval = dt,
                                             .jitter_x = 0.31, .jitter_y = -0.17))) {
            long n = 0, good = 0, n_slide = 0, n_spin = 0, n_sky = 0;
            double worst = 0.0;
            for (size_t i = 0; i < (size_t)W * H; i++) {
                double p[4], prev[4];
                pixel_world(&f, i, p);
                memcpy(prev, p, sizeof prev);
                if (p[3] == 0.0) {
                    n_sky++;
                } else if (fabs(p[0] - slide_x(t)) < 0.6 + 1e-4 && fabs(p[1] - 0.6) < 0.6 + 1e-4 &&
                           fabs(p[2] + 6.0) < 0.6 + 1e-4 && p[1] > 1e-3) {
                    prev[0] += slide_x(t - dt) - slide_x(t); /* it moved along x */
                    n_slide++;
                } else {
                    /* in the spinning box's frame: rotate back by its angle now */
                    double a = 1.2 * t, lx = p[0] - 3.5, lz = p[2] + 8.0;
                    double bx = cos(a) * lx - sin(a) * lz, bz = sin(a) * lx + cos(a) * lz;
                    if (fabs(bx) < 0.8 + 1e-4 && fabs(p[1] - 1.0) < 1.0 + 1e-4 && fabs(bz) < 0.8 + 1e-4 &&
                        p[1] > 1e-3) {
                        double b = 1.2 * (t - dt); /* and forward by its angle then */
                        prev[0] = 3.5 + cos(b) * bx + sin(b) * bz;
                        prev[2] = -8.0 - sin(b) * bx + cos(b) * bz;
                        n_spin++;
                    }
                }
                double mv[2];
                expected_motion(&f, i, prev, mv);
                double e = hypot(mv[0] - f.motion[2 * i], mv[1] - f.motion[2 * i + 1]);
                worst = e > worst && e < 1.0 ? e : worst;
                good += e < 2e-3;
                n++;
            }
            printf("motion (analytic) calibration %-5s: %ld of %ld pixels within 0.002 px "
                   "(%ld on the sliding box, %ld on the spinning box, %ld sky); worst below "
                   "1 px %.2g\n", paths[pi], good, n, n_slide, n_spin, n_sky, worst);
            CHECKF(n_slide > 100 && n_spin > 100, "movers not in view: %ld, %ld", n_slide, n_spin);
            /* the only misses allowed: pixels on an edge of a mover that the test's box
             * classification (1e-4 m) puts on the wrong side */
            CHECKF(good >= n - n / 500, "%ld of %ld pixels off by more than 0.002 px", n - good, n);
        }
        frame_free(&f);
    }
}

/* In the real scenes, every pixel of static geometry and of the sky moves exactly as the
 * camera does: the motion vector is the depth-based reprojection into the previous camera
 * (what an upscaler computes itself when a game gives no vectors). Pixels of moving objects
 * differ, so at least 90% (and all but the movers) must match to 0.001 px. */
static void test_motion_reprojection(upf_context *ctx)
{
    const char *names[4] = { "courtyard", "forest", "street", "interior" };
    const char *paths[3] = { "walk", "orbit", "turn" };
    enum { W = 96, H = 64 };
    for (int si = 0; si < 4; si++) {
        scene *s = make_scene(ctx, names[si], 7);
        if (!s)
            continue;
        for (int pi = 0; pi < 3; pi++) {
            frame f;
            frame_alloc(&f, W, H);
            if (render(s, &f, scene_view_params(.path = paths[pi], .time = 2.2, .frame_interval = 0.05,
                                                 .depth = SCENE_DEPTH_FORWARD, .jitter_x = -0.2,
                                                 .jitter_y = 0.4))) {
                long good = 0, sky = 0, sky_good = 0;
                for (size_t i = 0; i < (size_t)W * H; i++) {
                    double p[4], mv[2];
                    pixel_world(&f, i, p);
                    expected_motion(&f, i, p, mv);
                    bool ok = hypot(mv[0] - f.motion[2 * i], mv[1] - f.motion[2 * i + 1]) < 1e-3;
                    good += ok;
                    if (p[3] == 0.0) {
                        sky++;
                        sky_good += ok;
                    }
                }
                printf("motion (reprojection) %-9s %-5s: %.2f%% of pixels within 0.001 px "
                       "(sky %ld of %ld)\n", names[si], paths[pi], 100.0 * good / (W * H), sky_good, sky);
                CHECKF(good >= W * H * 9 / 10, "%s %s: %ld of %d", names[si], paths[pi], good, W * H);
                CHECKF(sky_good == sky, "%s %s: sky %ld of %ld", names[si], paths[pi], sky_good, sky);
            }
            frame_free(&f);
        }
    }
}

typedef struct warp_result {
    double psnr, psnr_zero_motion, psnr_offset;
    double kept;    /* share of pixels not excluded as disoccluded or off screen */
} warp_result;

/* Warps frame `prev` onto frame `cur` with cur's motion vectors: each pixel p of cur takes
 * prev's colour at p + mv(p) (bilinear), and the result is compared with cur's colour.
 * Excluded: samples that land off screen, and disoccluded ones: where any of the 4 bilinear
 * taps of prev's depth disagrees by more than 5% with the distance the point had from the
 * previous camera (the surface was hidden, or the taps straddle an edge). The same pixels
 * are compared with no motion and with the motion shifted by half a pixel (controls). */
static warp_result warp_check(const frame *cur, const frame *prev, const unsigned char *select)
{
    int w = cur->w, h = cur->h;
    double n = cur->cam.near_plane, f = cur->cam.far_plane;
    bool rev = cur->cam.depth_reversed, inf = isinf(f);
    float *warped = calloc(4 * (size_t)w * h, sizeof(float));
    float *offset = calloc(4 * (size_t)w * h, sizeof(float));
    unsigned char *mask = calloc((size_t)w * h, 1);
    long kept = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (select && !select[i])
                continue;
            double px = x + 0.5 + cur->cam.jitter_x + cur->motion[2 * i];
            double py = y + 0.5 + cur->cam.jitter_y + cur->motion[2 * i + 1];
            /* prev's pixel centres sit at its own jitter */
            px -= prev->cam.jitter_x;
            py -= prev->cam.jitter_y;
            if (!bilinear_rgba(prev->color, w, h, px, py, &warped[4 * i]) ||
                !bilinear_rgba(prev->color, w, h, px + 0.5, py + 0.5, &offset[4 * i]))
                continue;
            bool sky = is_sky(cur, i);
            double zp_expect = 0.0;
            if (!sky) {
                double p[4], q[4];
                pixel_world(cur, i, p);
                mat_vec(cur->cam.prev_view, p, q);
                zp_expect = -q[2];
            }
            int x0 = (int)floor(px - 0.5), y0 = (int)floor(py - 0.5);
            bool agree = true;
            for (int k = 0; k < 4; k++) {
                int tx = x0 + (k & 1), ty = y0 + (k >> 1);
                tx = tx < 0 ? 0 : tx >= w ? w - 1 : tx;
                ty = ty < 0 ? 0 : ty >= h ? h - 1 : ty;
                size_t ti = (size_t)ty * w + tx;
                bool psky = is_sky(prev, ti);
                if (sky || psky) {
                    agree = agree && sky == psky;
                    continue;
                }
                double zp = depth_to_distance(prev->depth[ti], n, f, rev, inf);
                agree = agree && fabs(zp - zp_expect) <= 0.05 * zp_expect;
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
    r.psnr_offset = psnr_masked(offset, cur->color, mask, w, h);
    long total = (long)w * h;
    if (select) {
        total = 0;
        for (long i = 0; i < (long)w * h; i++)
            total += select[i] != 0;
    }
    r.kept = total ? (double)kept / (double)total : 0.0;
    free(warped);
    free(offset);
    free(mask);
    return r;
}

/* Two frames 0.1 s apart (motion of several pixels) with different jitters, each of `spp`
 * samples (mip bias +1 for spp > 1: less texture aliasing) and view-independent shading,
 * warped onto each other. The threshold: bilinear resampling cannot reproduce a frame
 * exactly (edges and fine texture differ by up to their contrast at a sub-pixel shift), so
 * the yardstick is the resampling floor, the PSNR of the same warp with perfect motion: the
 * same view and time rendered with prev's jitter, shifted by the jitter difference alone. The
 * warp must come within 4 dB of it (what else differs between two frames: perspective
 * changes of scale, texture levels of detail that change with the view, shadows that move
 * over static surfaces), and beat no motion by 2 dB and a half-pixel error by 1 dB. On the
 * calibration scene (smooth, lit from the sky alone) a still camera isolates the movers. */
static void motion_case(upf_context *ctx, const char *name, const char *path, double t, int spp)
{
    scene *s = make_scene(ctx, name, 7);
    if (!s)
        return;
    enum { W = 160, H = 96 };
    const double dt = 0.1;
    frame cur, prev;
    frame_alloc(&cur, W, H);
    frame_alloc(&prev, W, H);
    double bias = spp > 1 ? 1.0 : 0.0;
    bool ok = render(s, &prev, scene_view_params(.path = path, .time = t - dt, .frame_interval = dt,
                                                  .spp = spp, .mip_bias = bias, .matte = true,
                                                  .jitter_x = -0.25, .jitter_y = 0.125)) &&
              render(s, &cur, scene_view_params(.path = path, .time = t, .frame_interval = dt,
                                                 .spp = spp, .mip_bias = bias, .matte = true,
                                                 .jitter_x = 0.25, .jitter_y = -0.375));
    /* The resampling floor: the same view at time t with prev's jitter, warped onto cur with
     * no motion but the jitter difference: what a perfect warp by bilinear resampling
     * reaches on these frames. */
    frame same;
    frame_alloc(&same, W, H);
    ok = ok && render(s, &same, scene_view_params(.path = path, .time = t, .frame_interval = dt,
                                                   .spp = spp, .mip_bias = bias, .matte = true,
                                                   .jitter_x = -0.25, .jitter_y = 0.125));
    CHECK(ok);
    if (ok) {
        /* a still camera: only the moving objects' pixels say anything about the vectors */
        unsigned char *select = NULL;
        long movers = 0;
        if (strcmp(path, "still") == 0) {
            select = calloc((size_t)W * H, 1);
            for (size_t i = 0; i < (size_t)W * H; i++) {
                select[i] = hypot(cur.motion[2 * i], cur.motion[2 * i + 1]) > 1e-3;
                movers += select[i];
            }
            CHECKF(movers > 50, "%s: only %ld moving pixels", name, movers);
        }
        warp_result r = warp_check(&cur, &prev, select);
        float *mv = cur.motion;
        cur.motion = calloc(2 * (size_t)W * H, sizeof(float));
        warp_result fl = warp_check(&cur, &same, select);
        free(cur.motion);
        cur.motion = mv;
        printf("motion (warp) %-11s %-5s spp %2d: PSNR %.2f dB (resampling floor %.2f; no motion "
               "%.2f, half a pixel off %.2f) on %.1f%% of the %s\n", name, path, spp, r.psnr,
               fl.psnr, r.psnr_zero_motion, r.psnr_offset, 100.0 * r.kept,
               select ? "moving pixels" : "pixels");
        CHECKF(r.psnr > fl.psnr - 4.0, "%s %s: warped PSNR %.2f dB, more than 4 dB under the "
               "resampling floor %.2f", name, path, r.psnr, fl.psnr);
        CHECKF(r.psnr - r.psnr_zero_motion > 2.0, "%s %s: motion vectors gain only %.2f dB "
               "over none", name, path, r.psnr - r.psnr_zero_motion);
        CHECKF(r.psnr - r.psnr_offset > 1.0, "%s %s: half a pixel off is as good (%.2f vs %.2f)",
               name, path, r.psnr_offset, r.psnr);
        CHECKF(r.kept > 0.6, "%s %s: only %.1f%% of pixels compared", name, path, 100.0 * r.kept);
        free(select);
    }
    frame_free(&cur);
    frame_free(&prev);
    frame_free(&same);
}

/* Motion vectors of the sky and of static geometry under a still camera with jitter: zero
 * (they carry no jitter). */
static void test_motion_still(upf_context *ctx)
{
    scene *s = make_scene(ctx, "calibration", 7);
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
}

/* ---- jitter ---------------------------------------------------------------------------------- */

/* A render at W x H with jitter (+-1/4, +-1/4) samples the scene at (x + 0.5 -+ 1/4, ...):
 * exactly the sample positions of pixels (2x + 1, 2y + 1) (or 2x, 2y) of an unjittered
 * 2W x 2H render. With the 2x render's mip bias +1 its texture level of detail is the same,
 * so colour, depth and motion (x2) must agree to float rounding. Any scene will do. */
static void test_jitter_exact(upf_context *ctx)
{
    scene *s = make_scene(ctx, "courtyard", 7);
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
}

/* On the smooth calibration scene, a render with any jitter equals the unjittered render
 * sampled (bilinearly) at the shifted positions, away from geometric edges; a render with
 * the jitter applied the wrong way round does not. */
static void test_jitter_smooth(upf_context *ctx)
{
    scene *s = make_scene(ctx, "calibration", 7);
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
    scene *s = make_scene(ctx, "courtyard", 7);
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
}

/* ---- the tool, end to end ------------------------------------------------------------------- */

/* Runs the tool and checks its exit code and that stderr mentions `needle`. */
#define TOOL(expect, needle, ...)                                                             \
    do {                                                                                      \
        const char *a_[] = { __VA_ARGS__, NULL };                                             \
        int rc_ = test_run_tool(a_);                                                               \
        CHECKF(rc_ == (expect) && strstr(test_tool_err(), (needle)) != NULL,                         \
               "exit %d (expected %d), stderr \"%s\" (expected \"%s\")", rc_, (expect),       \
               test_tool_err(), (needle));                                                            \
    } while (0)

#define TMP(name) UPF_TEST_TMPDIR "/" name

static bool path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static bool same_file(const char *a, const char *b)
{
    void *da = NULL, *db = NULL;
    size_t na = 0, nb = 0;
    char err[IMAGEIO_ERR_SIZE];
    bool ok = imageio_slurp(a, 1u << 26, &da, &na, err) == UPF_OK &&
              imageio_slurp(b, 1u << 26, &db, &nb, err) == UPF_OK && na == nb &&
              memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return ok;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[1024];
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (rmdir(p) != 0)
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void test_tool(void)
{
    mkdir(UPF_TEST_TMPDIR, 0777);
    remove_tree(TMP("r1"));
    remove_tree(TMP("r2"));
    remove_tree(TMP("r3"));
    remove_tree(TMP("partial"));
    remove_tree(TMP("bad"));

    /* bad arguments: exit 1 (usage) or 2 (an output that cannot be written), a message that
     * says what, and nothing made */
    TOOL(1, "unknown scene 'nowhere'", "render", "nowhere", "--size", "8x8", "-o", TMP("bad"));
    TOOL(1, "--size '0x8'", "render", "courtyard", "--size", "0x8", "-o", TMP("bad"));
    TOOL(1, "--size 'big'", "render", "courtyard", "--size", "big", "-o", TMP("bad"));
    TOOL(1, "--spp '0'", "render", "courtyard", "--size", "8x8", "--spp", "0", "-o", TMP("bad"));
    TOOL(1, "--frames '0'", "render", "courtyard", "--size", "8x8", "--frames", "0", "-o", TMP("bad"));
    TOOL(1, "--path 'fly'", "render", "courtyard", "--size", "8x8", "--path", "fly", "-o", TMP("bad"));
    TOOL(1, "--jitter 'sobol'", "render", "courtyard", "--size", "8x8", "--jitter", "sobol", "-o", TMP("bad"));
    TOOL(1, "--mip-bias '9'", "render", "courtyard", "--size", "8x8", "--mip-bias", "9", "-o", TMP("bad"));
    TOOL(1, "--fps '0'", "render", "courtyard", "--size", "8x8", "--fps", "0", "-o", TMP("bad"));
    TOOL(1, "--depth 'up'", "render", "courtyard", "--size", "8x8", "--depth", "up", "-o", TMP("bad"));
    TOOL(1, "needs -o", "render", "courtyard", "--size", "8x8");
    TOOL(1, "needs --size", "render", "courtyard", "-o", TMP("bad"));
    TOOL(1, "needs a scene", "render", "--size", "8x8", "-o", TMP("bad"));
    TOOL(1, "unknown option '--colour'", "render", "courtyard", "--size", "8x8", "--colour", "-o", TMP("bad"));
    TOOL(1, "need --jitter halton", "render", "courtyard", "--size", "8x8", "--phases", "4", "-o", TMP("bad"));
    CHECK(!path_exists(TMP("bad")));
    /* an output folder that cannot be made or written: a file stands in the way */
    FILE *f = fopen(TMP("file"), "wb");
    if (f)
        fclose(f);
    TOOL(2, "cannot use the folder", "render", "courtyard", "--size", "8x8", "-o", TMP("file/sub"));
    TOOL(2, "cannot make the folder", "render", "courtyard", "--size", "8x8", "-o", TMP("no/such/dir"));
    TOOL(2, "not a folder", "render", "courtyard", "--size", "8x8", "-o", TMP("file"));
    TOOL(0, "", "render", "--list");

    /* a run that fails part way (frame 1's colour file cannot replace a folder of that
     * name) removes the frames it had written, and leaves what was there */
    mkdir(TMP("partial"), 0777);
    mkdir(TMP("partial/0001.color.pfm"), 0777);
    TOOL(2, "0001.color.pfm", "render", "calibration", "--size", "16x8", "--frames", "3",
         "--quiet", "-o", TMP("partial"));
    CHECKF(count_entries(TMP("partial")) == 1, "%d entries left in the folder",
           count_entries(TMP("partial")));
    CHECK(path_exists(TMP("partial/0001.color.pfm")) && !path_exists(TMP("partial/0000.color.pfm")));

    /* the same command twice, and on 1 and 2 threads: byte-identical files */
    const char *common[] = { "render", "interior", "--size", "40x24", "--frames", "2", "--fps", "24",
                             "--path", "walk", "--time", "0.5", "--jitter", "halton", "--spp", "2",
                             "--mip-bias", "-1", "--quiet" };
    const char *dirs[3] = { TMP("r1"), TMP("r2"), TMP("r3") };
    const char *threads[3] = { "1", "2", "1" };
    for (int k = 0; k < 3; k++) {
        const char *a[32];
        int n = 0;
        for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
            a[n++] = common[i];
        a[n++] = "--threads";
        a[n++] = threads[k];
        a[n++] = "-o";
        a[n++] = dirs[k];
        a[n] = NULL;
        int rc = test_run_tool(a);
        CHECKF(rc == 0, "render exit %d: %s", rc, test_tool_err());
    }
    CHECK_EQ_INT(count_entries(TMP("r1")), 14);
    static const char *const files[] = { "0000.color.pfm", "0000.color.png", "0000.hud.png",
                                         "0000.final.png", "0000.depth.pfm", "0000.motion.pfm",
                                         "0000.json", "0001.color.pfm", "0001.json", "0001.final.png" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char a[512], b[512], c[512];
        snprintf(a, sizeof a, "%s/%s", dirs[0], files[i]);
        snprintf(b, sizeof b, "%s/%s", dirs[1], files[i]);
        snprintf(c, sizeof c, "%s/%s", dirs[2], files[i]);
        CHECKF(same_file(a, b), "%s differs between 1 and 2 threads", files[i]);
        CHECKF(same_file(a, c), "%s differs between two runs", files[i]);
    }
    /* the files read back: sizes and formats, the JSON's jitter (Halton index 1: (-1/4, 1/6)) */
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_read(TMP("r1/0001.depth.pfm"), NULL, &img, err) == UPF_OK) {
        CHECK(img.img.width == 40 && img.img.height == 24 && img.img.format == UPF_FORMAT_R32F);
        imageio_free(&img);
    } else {
        CHECKF(false, "%s", err);
    }
    if (imageio_read(TMP("r1/0001.hud.png"), NULL, &img, err) == UPF_OK) {
        CHECK(img.img.width == 40 && img.channels == 4);
        imageio_free(&img);
    } else {
        CHECKF(false, "%s", err);
    }
    void *json = NULL;
    size_t jn = 0;
    if (imageio_slurp(TMP("r1/0001.json"), 1 << 20, &json, &jn, err) == UPF_OK) {
        char *j = realloc(json, jn + 1);
        j[jn] = '\0';
        CHECKF(strstr(j, "\"jitter\": [-0.25, 0.1666666666666666") != NULL, "%s", j);
        CHECK(strstr(j, "\"time\": 0.5416666666666666") != NULL);
        CHECK(strstr(j, "\"depth\": \"reversed\"") != NULL);
        CHECK(strstr(j, "\"projection_jittered\"") != NULL);
        free(j);
    } else {
        CHECKF(false, "%s", err);
    }
}

int main(void)
{
    upf_context *ctx1 = test_context(1), *ctx2 = test_context(2);
    if (!ctx1 || !ctx2) {
        fprintf(stderr, "no context\n");
        return 1;
    }
    test_api_errors(ctx1);
    test_determinism(ctx1, ctx2);
    test_depth(ctx2);
    test_motion_still(ctx2);
    test_jitter_exact(ctx2);
    test_jitter_smooth(ctx2);
    test_motion_analytic(ctx2);
    test_motion_reprojection(ctx2);
    motion_case(ctx2, "calibration", "orbit", 1.0, 1);
    motion_case(ctx2, "calibration", "still", 1.0, 1);
    const char *sc[4] = { "courtyard", "forest", "street", "interior" };
    for (int i = 0; i < 4; i++) {
        motion_case(ctx2, sc[i], "walk", 1.5, 16);
        motion_case(ctx2, sc[i], "orbit", 1.5, 16);
    }
    test_convergence(ctx2);
    test_tool();
    release_scenes();
    upf_context_destroy(&ctx1);
    upf_context_destroy(&ctx2);
    return test_finish("scene");
}
