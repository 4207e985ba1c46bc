/* test_temporal.c: the temporal engine (src/temporal).
 *
 *  - Tables: names, files, 32-bit constants, and the data flow in each configuration (with and
 *    without the spatial fill, with motion vectors or camera motion from depth).
 *  - Each kernel against a float64 reference written here, on fresh random inputs: the colour
 *    conversion (linear, sRGB, sqrt; exposure), the 3x3 nearest-depth dilation and the
 *    previous-depth scatter, the disocclusion, the locks, the first frame's accumulation (a
 *    Lanczos-2 upsample in render pixels, clamped to the 3x3 range), and the sharpen.
 *  - Properties: a constant frame stays constant; a static scene converges (PSNR rises well
 *    above the first frame's); the same frames on 1 and 3 threads give the same bytes; a reset
 *    gives what a new engine gives; camera motion from the matrices gives what its vectors
 *    give; UV motion with its scale what pixel motion gives; the projection what the camera
 *    gives; an exposure that the colour carries comes out again.
 *  - Ghosting: a square moving over a textured background; four frames after it uncovered a
 *    region, that region's error is within the bound of a fresh upsample (see test_ghosting).
 *  - Issue 34's rules on synthetic cases: still-camera shimmer of the static wall (the
 *    display's dead band), the PSNR of a pan over it, and what a moving shadow leaves on a
 *    still camera.
 *  - Bad input: every argument of create and run, NaN colour and depth, NaN and huge motion,
 *    a frame time in seconds, sizes that do not match. */
#include <sys/stat.h>

#include "core/color.h"
#include "temporal/temporal_passes.h"
#include "test_util.h"

#define PI 3.14159265358979323846
#define NEAR_PLANE 0.1
#define FAR_PLANE 100.0

/* ---- a synthetic scene: a textured wall at 10 m, a square at 5 m moving across it --------- */

typedef struct synth {
    int w, h;             /* render size */
    double jx, jy;
    double t;             /* time, seconds; the square's centre moves at `speed` (render px/s) */
    double speed;
    bool square;
    float *color, *depth, *motion;
    double scale;         /* the wall's texture is sampled at (x, y) times this (1: as made) */
} synth;

/* The wall's colour at a point (render pixels of a 1x grid, scaled by `scale` for output-size
 * references): smooth stripes and a checker of 4-pixel cells, in linear light. */
static void wall(double x, double y, double *rgb)
{
    double a = 0.5 + 0.4 * sin(0.9 * x + 0.3 * y), b = ((int)floor(x / 4) + (int)floor(y / 4)) & 1;
    rgb[0] = 0.15 + 0.6 * a * (0.5 + 0.5 * b);
    rgb[1] = 0.2 + 0.5 * (1 - a) * (0.4 + 0.6 * b);
    rgb[2] = 0.1 + 0.3 * b;
}

static double square_x(const synth *s, double t)
{
    return 0.2 * s->w + s->speed * t;
}

static bool in_square(const synth *s, double x, double y, double t)
{
    double cx = square_x(s, t), cy = 0.5 * s->h, r = 0.12 * s->h;
    return s->square && fabs(x - cx) < r && fabs(y - cy) < r;
}

static float depth_of(double z)
{
    return (float)(NEAR_PLANE * (FAR_PLANE - z) / (z * (FAR_PLANE - NEAR_PLANE)));
}

/* One frame: every pixel point-sampled at (x + 0.5 + jx, y + 0.5 + jy). */
static void synth_render(synth *s)
{
    const double dt = 1.0 / 30.0;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            size_t i = (size_t)y * s->w + x;
            double px = x + 0.5 + s->jx, py = y + 0.5 + s->jy, rgb[3];
            bool sq = in_square(s, px, py, s->t);
            if (sq)
                rgb[0] = 0.9, rgb[1] = 0.9, rgb[2] = 0.95;
            else
                wall(px * s->scale, py * s->scale, rgb);
            for (int c = 0; c < 3; c++)
                s->color[4 * i + c] = (float)rgb[c];
            s->color[4 * i + 3] = 1.0f;
            s->depth[i] = depth_of(sq ? 5.0 : 10.0);
            s->motion[2 * i] = sq ? (float)(-s->speed * dt) : 0.0f;
            s->motion[2 * i + 1] = 0.0f;
        }
}

static synth synth_make(int w, int h, double speed, bool square)
{
    synth s = { w, h, 0, 0, 0, speed, square, malloc(16 * (size_t)w * h),
                malloc(4 * (size_t)w * h), malloc(8 * (size_t)w * h), 1.0 };
    return s;
}

static void synth_free(synth *s)
{
    free(s->color);
    free(s->depth);
    free(s->motion);
}

static upf_temporal_frame synth_frame(const synth *s, upf_image img[3])
{
    img[0] = (upf_image){ s->color, s->w, s->h, 0, UPF_FORMAT_RGBA32F };
    img[1] = (upf_image){ s->depth, s->w, s->h, 0, UPF_FORMAT_R32F };
    img[2] = (upf_image){ s->motion, s->w, s->h, 0, UPF_FORMAT_RG32F };
    upf_temporal_frame f = { .color = &img[0], .depth = &img[1], .motion = &img[2],
                             .jitter_x = s->jx, .jitter_y = s->jy,
                             .camera = { NEAR_PLANE, FAR_PLANE, 1.0, 1, 0, 0, 0, 0, 0, 0 },
                             .frame_time_ms = 33.3 };
    return f;
}

static upf_temporal *make_engine(upf_context *ctx, int w, int h, int ow, int oh, float sharp,
                                 unsigned flags)
{
    upf_temporal *t = upf_temporal_create(ctx, upf_temporal_params(
        .render_width = w, .render_height = h, .output_width = ow, .output_height = oh,
        .sharpness = sharp, .flags = flags));
    const char *m = "";
    upf_context_last_error(ctx, &m);
    CHECKF(t != NULL, "upf_temporal_create: %s", m);
    return t;
}

static const upf__surface *surf(const upf_temporal *t, int i)
{
    return &upf__temporal_passes(t)->surface[i];
}

/* ---- the tables ------------------------------------------------------------------------ */

static void check_flow(const upf__passes *p, const char *what)
{
    uint32_t written = 0;
    for (int s = 0; s < p->surface_count; s++) {
        upf__surface_role role = p->surface_info[s].role;
        if (role == UPF__SURFACE_INPUT || role == UPF__SURFACE_TABLE ||
            role == UPF__SURFACE_HISTORY)
            written |= UPF__SURF(s);
    }
    const upf__reconstruct_con *rc = p->con[UPF__TP_RECONSTRUCT];
    const upf__accumulate_con *ac = p->con[UPF__TP_ACCUMULATE];
    for (int i = 0; i < p->pass_count; i++) {
        if (!p->enabled[i])
            continue;
        const upf__pass_info *ps = &p->pass[i];
        for (int s = 0; s < p->surface_count; s++) {
            /* the reads a pass's constants switch off in this configuration */
            bool off = (i == UPF__TP_RECONSTRUCT && s == UPF__TP_CAMERA_MOTION && !rc->camera_motion) ||
                       (i == UPF__TP_RECONSTRUCT && s == UPF__TP_MOTION && rc->camera_motion) ||
                       (i == UPF__TP_RECONSTRUCT && s == UPF__TP_FILL_SOURCE && !rc->fill_source) ||
                       (i == UPF__TP_ACCUMULATE && s == UPF__TP_FILL && !ac->fill);
            if (off)
                continue;
            if (ps->reads & UPF__SURF(s))
                CHECKF(written & UPF__SURF(s), "%s: pass %s reads %s before any pass wrote it",
                       what, ps->name, p->surface_info[s].name);
            if (ps->writes & UPF__SURF(s)) {
                upf__surface_role role = p->surface_info[s].role;
                CHECKF(role != UPF__SURFACE_INPUT && role != UPF__SURFACE_TABLE &&
                       role != UPF__SURFACE_HISTORY, "%s: pass %s writes %s", what, ps->name,
                       p->surface_info[s].name);
            }
            if (((ps->reads | ps->writes) & UPF__SURF(s)) && s != UPF__TP_REACTIVE &&
                s != UPF__TP_MOTION)
                CHECKF(p->surface[s].width > 0, "%s: pass %s uses %s, which is not made", what,
                       ps->name, p->surface_info[s].name);
        }
        written |= ps->writes;
    }
}

static void test_tables(upf_context *ctx)
{
    synth s = synth_make(24, 16, 0, false);
    synth_render(&s);
    static const double id[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    for (int cfg = 0; cfg < 4; cfg++) {
        bool fill = cfg & 1, cam = cfg & 2;
        upf_temporal *t = make_engine(ctx, 24, 16, 48, 32, 0.5f,
                                      fill ? UPF_TEMPORAL_SPATIAL_FILL : 0);
        if (!t) {
            printf("temporal: configuration %d not made (no built-in models?)\n", cfg);
            continue;
        }
        const upf__passes *p = upf__temporal_passes(t);
        if (cfg == 0) {
            CHECK_EQ_INT(p->pass_count, UPF_TEMPORAL_PASS_COUNT);
            for (int i = 0; i < p->pass_count; i++) {
                CHECK(strcmp(p->pass[i].name, upf_temporal_pass_name((upf_temporal_pass)i)) == 0);
                CHECKF(p->pass[i].con_size % 4 == 0, "pass %s", p->pass[i].name);
                for (int j = 0; j < i; j++)
                    CHECK(strcmp(p->pass[i].name, p->pass[j].name) != 0);
                char path[4096];
                struct stat st;
                snprintf(path, sizeof path, "%s/src/temporal/%s.c", UPF_SOURCE_DIR,
                         p->pass[i].file);
                CHECKF(stat(path, &st) == 0, "pass %s: no file %s", p->pass[i].name, path);
            }
            for (int a = 0; a < p->surface_count; a++)
                for (int b = 0; b < a; b++)
                    CHECK(strcmp(p->surface_info[a].name, p->surface_info[b].name) != 0);
            CHECK(strcmp(upf_temporal_pass_name(UPF_TEMPORAL_PASS_COUNT), "unknown") == 0);
        }
        upf_image img[3], out = { malloc(16 * 48 * 32), 48, 32, 0, UPF_FORMAT_RGBA32F };
        upf_temporal_frame f = synth_frame(&s, img);
        if (cam) {
            f.motion = NULL;
            f.view_projection = f.prev_view_projection = id;
        }
        CHECK_OK(ctx, upf_temporal_run(t, &f, &out));
        char what[64];
        snprintf(what, sizeof what, "fill %d, camera motion %d", fill, cam);
        check_flow(p, what);
        CHECK_EQ_INT(p->enabled[UPF__TP_CAMERA_MOTION_PASS], cam);
        CHECK_EQ_INT(p->enabled[UPF__TP_SPATIAL_FILL], fill);
        double ms[UPF_TEMPORAL_PASS_COUNT];
        CHECK_OK(ctx, upf_temporal_timings(t, ms));
        CHECK(cam || ms[UPF_TEMPORAL_PASS_CAMERA_MOTION] == 0.0);
        free(out.data);
        upf_temporal_destroy(&t);
        CHECK(t == NULL);
    }
    synth_free(&s);
}

/* ---- float64 references of the kernels ---------------------------------------------------- */

static double lanczos2(double x)
{
    x = fabs(x);
    if (x >= 2.0)
        return 0.0;
    if (x < 1e-12)
        return 1.0;
    return sin(PI * x) / (PI * x) * sin(PI * x / 2) / (PI * x / 2);
}

/* The working colour: linear -> x exposure -> tonemap -> YCoCg. */
static void ref_working(const double *lin, double exposure, double *ycc)
{
    double c[3], m = 0;
    for (int k = 0; k < 3; k++) {
        c[k] = fmax(lin[k], 0.0) * exposure;
        m = fmax(m, c[k]);
    }
    for (int k = 0; k < 3; k++)
        c[k] /= 1.0 + m;
    ycc[0] = 0.25 * c[0] + 0.5 * c[1] + 0.25 * c[2];
    ycc[1] = 0.5 * c[0] - 0.5 * c[2];
    ycc[2] = -0.25 * c[0] + 0.5 * c[1] - 0.25 * c[2];
}

static void ref_linear_of_working(const double *ycc, double *lin)
{
    double c[3] = { ycc[0] + ycc[1] - ycc[2], ycc[0] + ycc[2], ycc[0] - ycc[1] - ycc[2] }, m = 0;
    for (int k = 0; k < 3; k++) {
        c[k] = fmax(c[k], 0.0);
        m = fmax(m, c[k]);
    }
    for (int k = 0; k < 3; k++)
        lin[k] = c[k] / fmax(1.0 - m, 1.0 / 4096);
}

static void test_lanczos_table(void)
{
    float table[UPF__LANCZOS_SIZE];
    upf__lanczos_table(table);
    double worst = 0;
    for (double x = 0; x < 2.2; x += 0.0007)
        worst = fmax(worst, fabs(upf__lanczos2(table, (float)(x * x)) - lanczos2(x)));
    CHECKF(worst < 1e-5, "Lanczos table off by %g", worst);
}

/* Reconstruct: colour, dilation and scatter against references, on random frames. */
static void test_reconstruct(upf_context *ctx, test_rng *rng)
{
    for (int round = 0; round < 3; round++) {
        const int w = test_rand_int(rng, 5, 40), h = test_rand_int(rng, 5, 30);
        const unsigned enc = (unsigned[]){ 0, UPF_TEMPORAL_COLOR_SRGB, UPF_TEMPORAL_COLOR_SQRT }[round];
        upf_temporal *t = make_engine(ctx, w, h, w * 2, h * 2, 0, enc);
        if (!t)
            return;
        float *col = malloc(16 * (size_t)w * h), *dep = malloc(4 * (size_t)w * h);
        float *mot = malloc(8 * (size_t)w * h), *out = malloc(64 * (size_t)w * h);
        for (int i = 0; i < w * h; i++) {
            for (int c = 0; c < 3; c++)
                col[4 * i + c] = test_rand_float(rng) * (c == 0 ? 3.0f : 1.0f) - 0.05f;
            col[4 * i + 3] = 1.0f;
            dep[i] = 0.001f + 0.5f * test_rand_float(rng) * test_rand_float(rng);
            mot[2 * i] = (test_rand_float(rng) - 0.5f) * 6.0f;
            mot[2 * i + 1] = (test_rand_float(rng) - 0.5f) * 6.0f;
        }
        const double exposure = 1.5, pre = 0.75, scale_x = 0.5, scale_y = -2.0;
        const double jx = test_rand_float(rng) - 0.5, jy = test_rand_float(rng) - 0.5;
        upf_image ci = { col, w, h, 0, UPF_FORMAT_RGBA32F }, di = { dep, w, h, 0, UPF_FORMAT_R32F };
        upf_image mi = { mot, w, h, 0, UPF_FORMAT_RG32F }, oi = { out, 2 * w, 2 * h, 0, UPF_FORMAT_RGBA32F };
        upf_temporal_frame f = { .color = &ci, .depth = &di, .motion = &mi, .jitter_x = jx,
                                 .jitter_y = jy, .motion_scale_x = scale_x,
                                 .motion_scale_y = scale_y,
                                 .camera = { NEAR_PLANE, FAR_PLANE, 1.0, 1, 0, 0, 0, 0, 0, 0 },
                                 .frame_time_ms = 16.7, .exposure = (float)exposure,
                                 .pre_exposure = (float)pre };
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
        const float *wc = surf(t, UPF__TP_COLOR)->data, *dm = surf(t, UPF__TP_DILATED_MOTION)->data;
        const float *dz = surf(t, UPF__TP_DILATED_DEPTH)->data;
        const uint32_t *pd = surf(t, UPF__TP_PREV_DEPTH)->data;
        double worst_c = 0, worst_z = 0;
        int motion_wrong = 0, scatter_wrong = 0;
        uint32_t *want = malloc(4 * (size_t)w * h);
        unsigned char *unsure = calloc((size_t)w * h, 1); /* a tap at the threshold reaches it */
        for (int i = 0; i < w * h; i++)
            want[i] = UPF__NO_DEPTH;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                double lin[3], ycc[3];
                for (int c = 0; c < 3; c++) {
                    double v = fmax(col[4 * i + c], 0.0);
                    lin[c] = round == 1 ? upf_srgb_to_linear_d(v) : round == 2 ? v * v : v;
                }
                ref_working(lin, exposure / pre, ycc);
                for (int c = 0; c < 3; c++)
                    worst_c = fmax(worst_c, fabs(wc[4 * i + c] - ycc[c]));
                /* nearest of the 3x3: the largest reversed depth, first in row order */
                int bx = x, by = y;
                for (int k = 0; k < 9; k++) {
                    int sx = UPF_CLAMP(x + k % 3 - 1, 0, w - 1), sy = UPF_CLAMP(y + k / 3 - 1, 0, h - 1);
                    if (dep[(size_t)sy * w + sx] > dep[(size_t)by * w + bx])
                        bx = sx, by = sy;
                }
                size_t b = (size_t)by * w + bx;
                double d = dep[b], n = NEAR_PLANE, fa = FAR_PLANE;
                double z = fa * n / (n + d * (fa - n));
                /* its motion only if another surface, nearer by the separation; a case
                 * within float rounding of it may go either way */
                double d0 = dep[i], z0 = fa * n / (n + d0 * (fa - n));
                double margin = (z0 - z) / z0 - UPF__DILATE_SEPARATION;
                size_t mb = margin > 0 ? b : i;
                if (fabs(margin) > 1e-5)
                    motion_wrong += dm[2 * i] != (float)(mot[2 * mb] * (float)scale_x) ||
                                    dm[2 * i + 1] != (float)(mot[2 * mb + 1] * (float)scale_y);
                worst_z = fmax(worst_z, fabs(dz[i] - z) / z);
                /* scatter */
                double qx = x + 0.5 + (float)jx + dm[2 * i] - 0.5, qy = y + 0.5 + (float)jy + dm[2 * i + 1] - 0.5;
                int i0 = (int)floor(qx), j0 = (int)floor(qy);
                double fx = qx - i0, fy = qy - j0;
                uint32_t bits;
                memcpy(&bits, &dz[i], 4);
                for (int k = 0; k < 4; k++) {
                    int tx = i0 + (k & 1), ty = j0 + (k >> 1);
                    double wt = ((k & 1) ? fx : 1 - fx) * ((k >> 1) ? fy : 1 - fy);
                    if (tx < 0 || tx >= w || ty < 0 || ty >= h)
                        continue;
                    /* a weight within float rounding of the threshold may count or not: the
                     * cell it reaches is not checked (seed 24341375920199 had three taps of
                     * 0.0200097, which the engine's float weights keep) */
                    if (fabs(wt - UPF__SCATTER_MIN) < 1e-5)
                        unsure[(size_t)ty * w + tx] = 1;
                    else if (wt > UPF__SCATTER_MIN && bits < want[(size_t)ty * w + tx])
                        want[(size_t)ty * w + tx] = bits;
                }
            }
        for (int i = 0; i < w * h; i++)
            scatter_wrong += !unsure[i] && pd[i] != want[i];
        CHECKF(worst_c < 2e-6, "round %d: working colour off by %g", round, worst_c);
        CHECKF(worst_z < 1e-5, "round %d: view depth off by %g relative", round, worst_z);
        CHECK_EQ_INT(motion_wrong, 0);
        CHECKF(scatter_wrong <= w * h / 200, "round %d: %d scatter cells differ", round,
               scatter_wrong);
        free(want);
        free(unsure);
        free(col);
        free(dep);
        free(mot);
        free(out);
        upf_temporal_destroy(&t);
    }
}

/* Dilation on a sloping floor (issue 34, orbits): view distance 20 / (1 + 0.02 y), so each row
 * is under 2% nearer than the one above, moving by 8 / z px (an orbit's parallax: the nearer,
 * the faster), with a box at 2 m moving by 3 px. A floor pixel keeps its own motion (the
 * nearest of its 3x3, always the row below, would give it that row's: 0.008 px off, a
 * history fetched from the wrong place every frame); a floor pixel next to the box takes the
 * box's. */
static void test_dilation_slope(upf_context *ctx)
{
    const int w = 24, h = 40;
    upf_temporal *t = make_engine(ctx, w, h, 2 * w, 2 * h, 0, 0);
    if (!t)
        return;
    float *col = malloc(16 * (size_t)w * h), *dep = malloc(4 * (size_t)w * h);
    float *mot = malloc(8 * (size_t)w * h), *out = malloc(64 * (size_t)w * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            bool box = x >= 10 && x < 14 && y >= 10 && y < 14;
            double z = box ? 2.0 : 20.0 / (1.0 + 0.02 * y);
            for (int c = 0; c < 4; c++)
                col[4 * i + c] = 0.5f;
            dep[i] = depth_of(z);
            mot[2 * i] = (float)(box ? 3.0 : 8.0 / z);
            mot[2 * i + 1] = 0.0f;
        }
    upf_image ci = { col, w, h, 0, UPF_FORMAT_RGBA32F }, di = { dep, w, h, 0, UPF_FORMAT_R32F };
    upf_image mi = { mot, w, h, 0, UPF_FORMAT_RG32F };
    upf_image oi = { out, 2 * w, 2 * h, 0, UPF_FORMAT_RGBA32F };
    upf_temporal_frame f = { .color = &ci, .depth = &di, .motion = &mi,
                             .camera = { NEAR_PLANE, FAR_PLANE, 1.0, 1, 0, 0, 0, 0, 0, 0 },
                             .frame_time_ms = 33.3 };
    CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    const float *dm = surf(t, UPF__TP_DILATED_MOTION)->data;
    int floor_wrong = 0, edge_wrong = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            bool near_box = x >= 9 && x < 15 && y >= 9 && y < 15;
            if (near_box)
                edge_wrong += dm[2 * i] != 3.0f;
            else
                floor_wrong += dm[2 * i] != mot[2 * i];
        }
    CHECKF(floor_wrong == 0, "%d floor pixels took a neighbour's motion", floor_wrong);
    CHECKF(edge_wrong == 0, "%d pixels next to the box did not take its motion", edge_wrong);
    free(col);
    free(dep);
    free(mot);
    free(out);
    upf_temporal_destroy(&t);
}

/* Disocclusion: the square moved right by 6 px since last frame; the wall it uncovered (on its
 * left) is disoccluded, everything else is not. Then the formula against a reference. */
static void test_disocclusion(upf_context *ctx)
{
    const int w = 64, h = 40;
    synth s = synth_make(w, h, 6.0 * 30.0, true);
    s.t = 0.1;
    s.jx = 0.125, s.jy = -0.25;
    synth_render(&s);
    upf_temporal *t = make_engine(ctx, w, h, w, h, 0, 0);
    if (!t)
        return;
    upf_image img[3], out = { malloc(16 * (size_t)w * h), w, h, 0, UPF_FORMAT_RGBA32F };
    upf_temporal_frame f = synth_frame(&s, img);
    CHECK_OK(ctx, upf_temporal_run(t, &f, &out));
    const float *r = surf(t, UPF__TP_REACTIVITY)->data;
    const float *dz = surf(t, UPF__TP_DILATED_DEPTH)->data, *dm = surf(t, UPF__TP_DILATED_MOTION)->data;
    const uint32_t *pd = surf(t, UPF__TP_PREV_DEPTH)->data;
    int wrong = 0, uncovered = 0;
    double worst = 0;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            double px = x + 0.5 + s.jx, py = y + 0.5 + s.jy;
            /* the wall there now, under the square a frame ago (not next to an edge) */
            bool now_wall = !in_square(&s, px, py, s.t);
            bool was_sq = in_square(&s, px, py, s.t - 1.0 / 30);
            bool clear = true;
            for (int k = 0; k < 9; k++) {
                double ex = px + (k % 3 - 1) * 1.5, ey = py + (k / 3 - 1) * 1.5;
                clear = clear && in_square(&s, ex, ey, s.t) == in_square(&s, px, py, s.t) &&
                        in_square(&s, ex, ey, s.t - 1.0 / 30) == was_sq;
            }
            float d = r[2 * ((size_t)y * w + x)];
            if (clear) {
                bool expect = now_wall && was_sq;
                uncovered += expect;
                wrong += expect ? d < 0.99f : d > 0.01f;
            }
            /* the formula, in double, from the pass's own inputs */
            size_t i = (size_t)y * w + x;
            double qx = x + 0.5 + (float)s.jx + dm[2 * i] - 0.5, qy = y + 0.5 + (float)s.jy + dm[2 * i + 1] - 0.5;
            int i0 = (int)floor(qx), j0 = (int)floor(qy);
            double fx = qx - i0, fy = qy - j0, z = dz[i];
            double gx = fmin(fabs(z - dz[i - 1]), fabs(dz[i + 1] - z));
            double gy = fmin(fabs(z - dz[i - w]), fabs(dz[i + w] - z));
            const upf__disocclusion_con *dc = upf__temporal_passes(t)->con[UPF__TP_DISOCCLUSION];
            double sep = dc->separation * z + dc->slope_pixels * (gx + gy), least = 1;
            int taps = 0;
            for (int k = 0; k < 4; k++) {
                int tx = i0 + (k & 1), ty = j0 + (k >> 1);
                double wt = ((k & 1) ? fx : 1 - fx) * ((k >> 1) ? fy : 1 - fy);
                if (!(wt > UPF__SCATTER_MIN) || tx < 0 || ty < 0 || tx >= w || ty >= h)
                    continue;
                float zt;
                memcpy(&zt, &pd[(size_t)ty * w + tx], 4);
                least = fmin(least, fmin(fmax((z - zt - sep) / sep, 0.0), 1.0));
                taps++;
            }
            double want = taps ? least : 1.0;
            if (qx + 0.5 < 0 || qy + 0.5 < 0 || qx + 0.5 > w || qy + 0.5 > h)
                want = 1.0;
            worst = fmax(worst, fabs(d - want));
        }
    printf("disocclusion: %d uncovered pixels, %d wrong\n", uncovered, wrong);
    CHECK(uncovered > 15);
    CHECK_EQ_INT(wrong, 0);
    CHECKF(worst < 1e-4, "disocclusion off its formula by %g", worst);
    free(out.data);
    upf_temporal_destroy(&t);
    synth_free(&s);
}

/* Locks: a one-pixel bright line and point lock; a wide bar and an edge do not. */
static void test_locks(upf_context *ctx)
{
    const int w = 40, h = 24;
    float *col = malloc(16 * (size_t)w * h), *dep = malloc(4 * (size_t)w * h);
    float *mot = calloc(2 * (size_t)w * h, 4);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            float v = 0.1f;
            if (y == 5 && x >= 2 && x < 18)
                v = 0.9f; /* a thin line */
            if (y >= 12 && y < 16 && x >= 2 && x < 18)
                v = 0.9f; /* a 4-pixel bar */
            if (x >= 30)
                v = 0.9f; /* an edge */
            if (x == 24 && y == 20)
                v = 0.9f; /* a point */
            col[4 * i] = col[4 * i + 1] = col[4 * i + 2] = v;
            col[4 * i + 3] = 1;
            dep[i] = 0.5f;
        }
    upf_temporal *t = make_engine(ctx, w, h, w, h, 0, 0);
    if (!t)
        return;
    upf_image ci = { col, w, h, 0, UPF_FORMAT_RGBA32F }, di = { dep, w, h, 0, UPF_FORMAT_R32F };
    upf_image mi = { mot, w, h, 0, UPF_FORMAT_RG32F }, oi = { malloc(16 * (size_t)w * h), w, h, 0, UPF_FORMAT_RGBA32F };
    upf_temporal_frame f = { .color = &ci, .depth = &di, .motion = &mi,
                             .camera = { NEAR_PLANE, FAR_PLANE, 1.0, 1, 0, 0, 0, 0, 0, 0 },
                             .frame_time_ms = 16.7 };
    CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    const float *L = surf(t, UPF__TP_LOCKS)->data;
    int line = 0, other = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            bool on_line = y == 5 && x >= 3 && x < 17, point = x == 24 && y == 20;
            float v = L[(size_t)y * w + x];
            if (on_line || point)
                line += v == 1.0f;
            else if (!(y == 5 && (x == 2 || x == 17)))
                other += v != 0.0f;
        }
    CHECK_EQ_INT(line, 15);
    CHECK_EQ_INT(other, 0);
    free(col);
    free(dep);
    free(mot);
    free(oi.data);
    upf_temporal_destroy(&t);
}

/* The first frame: Lanczos-2 in render pixels over the 4x4 samples, clamped to the range of
 * the 3x3 around the nearest; sharpness 0; then back to linear. */
static void test_first_frame(upf_context *ctx, test_rng *rng)
{
    const int w = test_rand_int(rng, 8, 30), h = test_rand_int(rng, 8, 24);
    const int ow = w + test_rand_int(rng, 0, 3 * w), oh = h + test_rand_int(rng, 0, 3 * h);
    synth s = synth_make(w, h, 0, false);
    s.jx = test_rand_float(rng) - 0.5, s.jy = test_rand_float(rng) - 0.5;
    synth_render(&s);
    for (int i = 0; i < w * h; i++) /* some HDR */
        if (test_rand_int(rng, 0, 9) == 0)
            s.color[4 * i] = 4.0f;
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t)
        return;
    float *out = malloc(16 * (size_t)ow * oh);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    upf_temporal_frame f = synth_frame(&s, img);
    CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    double *ycc = malloc(24 * (size_t)w * h), worst = 0;
    for (int i = 0; i < w * h; i++) {
        double lin[3] = { s.color[4 * i], s.color[4 * i + 1], s.color[4 * i + 2] };
        ref_working(lin, 1.0, ycc + 3 * i);
    }
    const double rx = (double)ow / w, ry = (double)oh / h;
    for (int Y = 0; Y < oh; Y++)
        for (int X = 0; X < ow; X++) {
            double sx = (X + 0.5) / rx, sy = (Y + 0.5) / ry, acc[3] = { 0 }, ws = 0;
            int ix = UPF_CLAMP((int)floor(sx - (float)s.jx), 0, w - 1);
            int iy = UPF_CLAMP((int)floor(sy - (float)s.jy), 0, h - 1);
            for (int j = -3; j <= 3; j++)
                for (int i = -3; i <= 3; i++) {
                    int px = (int)floor(sx - 0.5 - (float)s.jx) + i, py = (int)floor(sy - 0.5 - (float)s.jy) + j;
                    double wt = lanczos2(px + 0.5 + (float)s.jx - sx) * lanczos2(py + 0.5 + (float)s.jy - sy);
                    const double *c = ycc + 3 * ((size_t)UPF_CLAMP(py, 0, h - 1) * w + UPF_CLAMP(px, 0, w - 1));
                    for (int k = 0; k < 3; k++)
                        acc[k] += wt * c[k];
                    ws += wt;
                }
            double e[3], lin[3];
            for (int k = 0; k < 3; k++) {
                double lo = INFINITY, hi = -INFINITY;
                for (int n = 0; n < 9; n++) {
                    const double *c = ycc + 3 * ((size_t)UPF_CLAMP(iy + n / 3 - 1, 0, h - 1) * w +
                                                 UPF_CLAMP(ix + n % 3 - 1, 0, w - 1));
                    lo = fmin(lo, c[k]);
                    hi = fmax(hi, c[k]);
                }
                e[k] = fmin(fmax(acc[k] / ws, lo), hi);
            }
            ref_linear_of_working(e, lin);
            const float *o = out + ((size_t)Y * ow + X) * 4;
            for (int k = 0; k < 3; k++)
                worst = fmax(worst, fabs(o[k] - lin[k]) / (1.0 + lin[k]));
        }
    CHECKF(worst < 2e-4, "%dx%d -> %dx%d: first frame off its reference by %g", w, h, ow, oh,
           worst);
    free(ycc);
    free(out);
    upf_temporal_destroy(&t);
    synth_free(&s);
}

/* The spatial fill held to the samples' range (accumulate.c step 4): on the first frame (no
 * history, so every pixel takes the fill whole) of the synthetic scene at 2x, each output
 * pixel's working colour lies in the range of the 3x3 samples around its nearest one, as the
 * plain estimate does. Without the clamp the spatial engine's edges overshot it. */
static void test_fill_range(upf_context *ctx)
{
    const int w = 32, h = 24, ow = 64, oh = 48;
    synth s = synth_make(w, h, 0, false);
    s.jx = 0.23, s.jy = -0.31;
    synth_render(&s);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, UPF_TEMPORAL_SPATIAL_FILL);
    float *out = malloc(16 * (size_t)ow * oh);
    if (!t || !out)
        goto done;
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    upf_temporal_frame f = synth_frame(&s, img);
    CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    const float *col = surf(t, UPF__TP_COLOR)->data, *hist = surf(t, UPF__TP_HISTORY)->data;
    double worst = 0;
    long outside = 0;
    for (int Y = 0; Y < oh; Y++)
        for (int X = 0; X < ow; X++) {
            const float sx = (X + 0.5f) / 2.0f, sy = (Y + 0.5f) / 2.0f;
            const int ix = UPF_CLAMP((int)floorf(sx - (float)s.jx), 0, w - 1);
            const int iy = UPF_CLAMP((int)floorf(sy - (float)s.jy), 0, h - 1);
            for (int k = 0; k < 3; k++) {
                float lo = INFINITY, hi = -INFINITY;
                for (int n = 0; n < 9; n++) {
                    const float v = col[4 * ((size_t)UPF_CLAMP(iy + n / 3 - 1, 0, h - 1) * w +
                                             UPF_CLAMP(ix + n % 3 - 1, 0, w - 1)) + k];
                    lo = fminf(lo, v), hi = fmaxf(hi, v);
                }
                const float v = hist[4 * ((size_t)Y * ow + X) + k];
                const double e = fmax(lo - v, v - hi);
                outside += e > 1e-6;
                worst = fmax(worst, e);
            }
        }
    CHECKF(outside == 0, "fill: %ld channels outside the 3x3 samples' range, by up to %.4g",
           outside, worst);
done:
    free(out);
    upf_temporal_destroy(&t);
    synth_free(&s);
}

/* The sharpen against its formula (second frame of a static scene, so the history is not a
 * plain upsample), and its properties: identity at 0, never outside the cross's range. */
static void test_sharpen(upf_context *ctx)
{
    const int w = 20, h = 14, ow = 40, oh = 28;
    synth s = synth_make(w, h, 0, false);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0.8f, 0);
    if (!t)
        return;
    float *out = malloc(16 * (size_t)ow * oh);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    for (int n = 0; n < 2; n++) {
        upf_jitter_offset(NULL, n, 32, &s.jx, &s.jy);
        synth_render(&s);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    }
    const float *hist = surf(t, UPF__TP_HISTORY)->data; /* swapped in after the run */
    const uint32_t *disp = surf(t, UPF__TP_DISPLAY)->data; /* the shown colour's offset */
    double worst = 0;
    int outside = 0; /* channels the sharpen changed */
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            double tap[5][3], L[5];
            static const int dx[5] = { 0, 0, -1, 1, 0 }, dy[5] = { 0, -1, 0, 0, 1 };
            for (int k = 0; k < 5; k++) {
                size_t i = (size_t)UPF_CLAMP(y + dy[k], 0, oh - 1) * ow +
                           UPF_CLAMP(x + dx[k], 0, ow - 1);
                const float *p = hist + i * 4;
                float off[3];
                upf__display_unpack(disp[i], off);
                double yy = p[0] + off[0], co = p[1] + off[1], cg = p[2] + off[2];
                tap[k][0] = fmax(yy + co - cg, 0), tap[k][1] = fmax(yy + cg, 0);
                tap[k][2] = fmax(yy - co - cg, 0);
                L[k] = 0.2126 * tap[k][0] + 0.7152 * tap[k][1] + 0.0722 * tap[k][2];
            }
            double lmin = L[0], lmax = L[0];
            for (int k = 1; k < 5; k++)
                lmin = fmin(lmin, L[k]), lmax = fmax(lmax, L[k]);
            double a = sqrt(fmin(fmax(fmin(lmin, 1 - lmax) / fmax(lmax, 1.0 / 256), 0), 1));
            double lobe = -0.8 * 3.0 / 16.0 * a, o[3], lin[3];
            for (int c = 0; c < 3; c++) {
                double v = (tap[0][c] + lobe * (tap[1][c] + tap[2][c] + tap[3][c] + tap[4][c])) /
                           (1 + 4 * lobe), lo = tap[0][c], hi = tap[0][c];
                for (int k = 1; k < 5; k++)
                    lo = fmin(lo, tap[k][c]), hi = fmax(hi, tap[k][c]);
                o[c] = fmin(fmax(v, lo), hi);
            }
            double m = fmax(o[0], fmax(o[1], o[2]));
            for (int c = 0; c < 3; c++)
                lin[c] = o[c] / fmax(1 - m, 1.0 / 4096);
            const float *q = out + ((size_t)y * ow + x) * 4;
            for (int c = 0; c < 3; c++)
                worst = fmax(worst, fabs(q[c] - lin[c]) / (1 + lin[c]));
            /* it does sharpen: somewhere the lobe moves the centre */
            for (int c = 0; c < 3; c++)
                outside += fabs(o[c] - tap[0][c]) > 1e-3;
        }
    CHECKF(worst < 1e-5, "sharpen off its formula by %g", worst);
    CHECK(outside > 10);
    free(out);
    upf_temporal_destroy(&t);
    synth_free(&s);
}

/* ---- properties --------------------------------------------------------------------------- */

static double psnr_rgb(const float *a, const float *b, int n)
{
    double se = 0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            double d = upf_linear_to_srgb_d(fmin(fmax(a[4 * i + c], 0), 1)) -
                       upf_linear_to_srgb_d(fmin(fmax(b[4 * i + c], 0), 1));
            se += d * d;
        }
    return -10 * log10(se / (3.0 * n));
}

/* The wall at the output size shifted by (ox, oy) render pixels, supersampled 8x8 per output
 * pixel (the reference). */
static float *wall_reference_at(int ow, int oh, double ratio, double ox, double oy)
{
    float *ref = malloc(16 * (size_t)ow * oh);
    for (int Y = 0; Y < oh; Y++)
        for (int X = 0; X < ow; X++) {
            double acc[3] = { 0 };
            for (int k = 0; k < 64; k++) {
                double rgb[3];
                wall((X + (k % 8 + 0.5) / 8) / ratio - ox, (Y + (k / 8 + 0.5) / 8) / ratio - oy,
                     rgb);
                for (int c = 0; c < 3; c++)
                    acc[c] += rgb[c] / 64;
            }
            float *p = ref + ((size_t)Y * ow + X) * 4;
            p[0] = (float)acc[0], p[1] = (float)acc[1], p[2] = (float)acc[2], p[3] = 1;
        }
    return ref;
}

static float *wall_reference(int ow, int oh, double ratio)
{
    return wall_reference_at(ow, oh, ratio, 0, 0);
}

/* A camera pan over the wall: frame n shows the wall moved by n (vx, vy) render pixels; every
 * pixel's motion is (-vx, -vy) (previous minus current position). */
static void pan_render(synth *s, int n, double vx, double vy)
{
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            size_t i = (size_t)y * s->w + x;
            double rgb[3];
            wall(x + 0.5 + s->jx - n * vx, y + 0.5 + s->jy - n * vy, rgb);
            for (int c = 0; c < 3; c++)
                s->color[4 * i + c] = (float)rgb[c];
            s->color[4 * i + 3] = 1.0f;
            s->depth[i] = depth_of(10.0);
            s->motion[2 * i] = (float)-vx;
            s->motion[2 * i + 1] = (float)-vy;
        }
}

/* Sum of |luma change| in 8-bit sRGB codes between two outputs, over pixels `border` or more
 * from the edges; *count gets their number. */
static double luma_change(const float *a, const float *b, int ow, int oh, int border, long *count)
{
    double sum = 0;
    for (int Y = border; Y < oh - border; Y++)
        for (int X = border; X < ow - border; X++) {
            size_t i = (size_t)Y * ow + X;
            double la = 0, lb = 0;
            static const double k709[3] = { 0.2126, 0.7152, 0.0722 };
            for (int c = 0; c < 3; c++) {
                la += k709[c] * 255 * upf_linear_to_srgb_d(fmin(fmax(a[4 * i + c], 0), 1));
                lb += k709[c] * 255 * upf_linear_to_srgb_d(fmin(fmax(b[4 * i + c], 0), 1));
            }
            sum += fabs(la - lb);
            (*count)++;
        }
    return sum;
}

/* PSNR of the output against a reference over pixels `border` or more from the edges. */
static double psnr_inner(const float *a, const float *b, int ow, int oh, int border)
{
    double se = 0;
    long n = 0;
    for (int Y = border; Y < oh - border; Y++)
        for (int X = border; X < ow - border; X++)
            for (int c = 0; c < 3; c++) {
                size_t i = ((size_t)Y * ow + X) * 4 + c;
                double d = upf_linear_to_srgb_d(fmin(fmax(a[i], 0), 1)) -
                           upf_linear_to_srgb_d(fmin(fmax(b[i], 0), 1));
                se += d * d;
                n++;
            }
    return -10 * log10(se / (double)n);
}

/* Still-camera shimmer (docs/TEMPORAL.md, RANGE_STILL, SAMPLE_SHARE_STILL and the display's
 * dead band): the static wall at 2x for 64 frames; from frame 9 on, the mean frame-to-frame
 * change of the output's luma in 8-bit codes. The 3x3 samples around a pixel's nearest one
 * move by a render pixel as the jitter crosses a pixel boundary; cutting the box to their
 * range clipped right histories next to the checker's edges back and forth: 0.171 codes with
 * the range as it was, 0.160 widened. A still, confident pixel's new samples at half their
 * weight: 0.128 (each new frame moves a young history less). The shown colour held within
 * 1.25 codes of the history (accumulate.c step 8) with the samples at 0.75: 0.028; without
 * the band (DISPLAY_KEEP 0) 0.143. The kernel widened along edges (edge_widen): 0.023. */
static void test_still_shimmer(upf_context *ctx)
{
    const int w = 48, h = 32, ow = 96, oh = 64, frames = 64;
    synth s = synth_make(w, h, 0, false);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t)
        return;
    float *out[2] = { malloc(16 * (size_t)ow * oh), malloc(16 * (size_t)ow * oh) };
    upf_image img[3];
    double sum = 0;
    long count = 0;
    for (int n = 0; n < frames; n++) {
        upf_image oi = { out[n & 1], ow, oh, 0, UPF_FORMAT_RGBA32F };
        upf_jitter_offset(NULL, n, 32, &s.jx, &s.jy);
        synth_render(&s);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
        if (n > 8)
            sum += luma_change(out[n & 1], out[!(n & 1)], ow, oh, 4, &count);
    }
    double shimmer = sum / (double)count;
    printf("still shimmer: static wall 2x, %.3f codes a frame over frames 9..%d\n", shimmer,
           frames - 1);
    CHECKF(shimmer < 0.06, "still shimmer %.3f codes a frame", shimmer);
    free(out[0]);
    free(out[1]);
    upf_temporal_destroy(&t);
    synth_free(&s);
}

/* 8-bit sRGB luma (BT.709 weights on the encoded channels) of output pixel i. */
static double luma_code(const float *a, size_t i)
{
    static const double k709[3] = { 0.2126, 0.7152, 0.0722 };
    double l = 0;
    for (int c = 0; c < 3; c++)
        l += k709[c] * 255 * upf_linear_to_srgb_d(fmin(fmax(a[4 * i + c], 0), 1));
    return l;
}

/* A still edge at render coordinate e across axis `axis` (0: a vertical edge at x = e; 1: a
 * horizontal one at y = e), bright (0.6) before it and dark (0.05) after, point-sampled. */
static void edge_render(synth *s, int axis, double e)
{
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            size_t i = (size_t)y * s->w + x;
            double p = axis ? y + 0.5 + s->jy : x + 0.5 + s->jx;
            float v = p < e ? 0.6f : 0.05f;
            s->color[4 * i] = s->color[4 * i + 1] = s->color[4 * i + 2] = v;
            s->color[4 * i + 3] = 1.0f;
            s->depth[i] = depth_of(10.0);
            s->motion[2 * i] = s->motion[2 * i + 1] = 0.0f;
        }
}

/* The comb along an edge (issue 35, edge_widen in accumulate.c): a still edge at 2x, 16
 * Halton phases, the output after the 16th frame; along the edge, each output line (row of a
 * horizontal edge, column of a vertical one) within 3 pixels of it, the mean over its pixels
 * of (-1)^i (p_i - (p_(i-1) + p_(i+1)) / 2) in 8-bit sRGB luma codes, the largest such line.
 * At 2x a sample falls in the even output pixel of its render pixel when the jitter on that
 * axis is negative, and a confident kernel one output pixel wide gives each parity its own 8
 * phases; at the edge heights below (0.31 past a pixel centre: where the halves' shares of
 * phases that sample before the edge differ most, by 0.25) that drew the edge as a comb, even
 * and odd pixels 28.52 (horizontal) and 8.36 (vertical) codes apart without the widening
 * along the edge, 0.43 and 0.15 with it. */
static double edge_comb(upf_context *ctx, int axis, double e)
{
    const int w = 48, h = 32, ow = 96, oh = 64, frames = 16;
    synth s = synth_make(w, h, 0, false);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t)
        return INFINITY;
    float *out = malloc(16 * (size_t)ow * oh);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    for (int n = 0; n < frames; n++) {
        upf_jitter_offset(NULL, n, 16, &s.jx, &s.jy);
        edge_render(&s, axis, e);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    }
    const int at = (int)floor(e * 2), len = axis ? ow : oh;
    double worst = 0;
    for (int k = at - 3; k <= at + 3; k++) {
        double sum = 0;
        for (int i = 4; i < len - 4; i++) {
            size_t c = axis ? (size_t)k * ow + i : (size_t)i * ow + k;
            size_t step = axis ? 1 : (size_t)ow;
            double d = luma_code(out, c) - 0.5 * (luma_code(out, c - step) + luma_code(out, c + step));
            sum += (i & 1 ? -d : d);
        }
        worst = fmax(worst, fabs(sum / (len - 8)));
    }
    free(out);
    upf_temporal_destroy(&t);
    synth_free(&s);
    return worst;
}

static void test_edge_comb(upf_context *ctx)
{
    double hc = edge_comb(ctx, 1, 16.81), vc = edge_comb(ctx, 0, 24.81);
    printf("edge comb: still edge 2x, horizontal %.2f codes, vertical %.2f\n", hc, vc);
    CHECKF(hc < 2.0, "the horizontal edge's comb along it: %.2f codes", hc);
    CHECKF(vc < 2.0, "the vertical edge's comb along it: %.2f codes", vc);
}

/* A still grating of thin bars across x: bars GRATING_BAR render pixels wide every
 * GRATING_PERIOD (1.25: 2.5 output pixels at 2x, as the courtyard's railing), bright (0.3) on
 * dark (0.05), point-sampled. */
#define GRATING_PERIOD 1.25
#define GRATING_BAR 0.25

static double grating_at(double x)
{
    return fmod(x, GRATING_PERIOD) < GRATING_BAR ? 0.3 : 0.05;
}

static void grating_render(synth *s)
{
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            size_t i = (size_t)y * s->w + x;
            float v = (float)grating_at(x + 0.5 + s->jx);
            s->color[4 * i] = s->color[4 * i + 1] = s->color[4 * i + 2] = v;
            s->color[4 * i + 3] = 1.0f;
            s->depth[i] = depth_of(10.0);
            s->motion[2 * i] = s->motion[2 * i + 1] = 0.0f;
        }
}

/* The grating's contrast kept (EDGE_SHARPEN in accumulate.c): a still grating at 2x, 16 Halton
 * phases, the output after the 16th frame against the reference (each output pixel's box
 * average, supersampled), in 8-bit sRGB luma codes over the inner columns of every inner row:
 * the projection of the output's deviation from its row mean on the reference's, over the
 * reference's own (1: the grating as the reference draws it, 0: flat). The confident kernel
 * at the output scale kept 0.557 of it, EDGE_SHARPEN's narrower one across the bars 0.636
 * (0.658 at 1.3, 0.701 at 1.5). */
static double grating_kept(upf_context *ctx)
{
    const int w = 48, h = 16, ow = 96, oh = 32, frames = 16;
    synth s = synth_make(w, h, 0, false);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t)
        return 0;
    float *out = malloc(16 * (size_t)ow * oh), *ref = malloc(16 * (size_t)ow * oh);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    for (int n = 0; n < frames; n++) {
        upf_jitter_offset(NULL, n, 16, &s.jx, &s.jy);
        grating_render(&s);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    }
    for (int x = 0; x < ow; x++) { /* the box average of output column x, 256 samples */
        double sum = 0;
        for (int k = 0; k < 256; k++)
            sum += grating_at((x + (k + 0.5) / 256) / 2);
        for (int y = 0; y < oh; y++)
            for (int c = 0; c < 4; c++)
                ref[4 * ((size_t)y * ow + x) + c] = c == 3 ? 1.0f : (float)(sum / 256);
    }
    double dot = 0, norm = 0;
    for (int y = 4; y < oh - 4; y++) {
        double mo = 0, mr = 0;
        for (int x = 8; x < ow - 8; x++)
            mo += luma_code(out, (size_t)y * ow + x), mr += luma_code(ref, (size_t)y * ow + x);
        mo /= ow - 16, mr /= ow - 16;
        for (int x = 8; x < ow - 8; x++) {
            double r = luma_code(ref, (size_t)y * ow + x) - mr;
            dot += (luma_code(out, (size_t)y * ow + x) - mo) * r, norm += r * r;
        }
    }
    free(out);
    free(ref);
    upf_temporal_destroy(&t);
    synth_free(&s);
    return norm > 0 ? dot / norm : 0;
}

static void test_grating(upf_context *ctx)
{
    double kept = grating_kept(ctx);
    printf("grating: still, 2.5 output pixels apart at 2x, %.3f of the reference's contrast\n",
           kept);
    CHECKF(kept > 0.6 && kept < 1.2, "the still grating's contrast kept: %.3f", kept);
}

/* The still samples' share follows the ratio (docs/TEMPORAL.md, still_share in accumulate.c):
 * at 1.5x a still, confident pixel's samples keep their whole weight. The static wall at 1.5x
 * (64x40 -> 96x60, 18 phases), PSNR of frames 24..31 against the supersampled wall, away from
 * the border: with the samples at half their weight at 1.5x as at 2x, the first frames' smooth
 * upsample keeps a larger share of the history and the wall converges lower: 33.44 dB against
 * 33.73 before the display's dead band; with it (the band holds the shown wall up to 1.25
 * codes behind a history still converging) 32.76 against 33.22; 33.15 with the kernel widened
 * along edges (edge_widen). */
static void test_still_share_ratio(upf_context *ctx)
{
    const int w = 64, h = 40, ow = 96, oh = 60, frames = 32;
    synth s = synth_make(w, h, 0, false);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t)
        return;
    float *out = malloc(16 * (size_t)ow * oh), *ref = wall_reference(ow, oh, 1.5);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    double last = 0;
    for (int n = 0; n < frames; n++) {
        upf_jitter_offset(NULL, n, 18, &s.jx, &s.jy);
        synth_render(&s);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
        if (n >= frames - 8)
            last += psnr_inner(out, ref, ow, oh, 4) / 8;
    }
    printf("still share: static wall 1.5x, PSNR %.2f dB over frames %d..%d\n", last,
           frames - 8, frames - 1);
    CHECKF(last > 33.0, "the still wall at 1.5x: %.2f dB", last); /* 33.15; 32.76 at half before edge_widen */
    free(out);
    free(ref);
    upf_temporal_destroy(&t);
    synth_free(&s);
}

/* The edges' sharpness: sums over the output pixels `border` or more from the edges where the
 * reference's luma gradient (central differences, 8-bit sRGB codes) is above 16 codes (the
 * checker's edges) of the output's gradient magnitude (g[0]) and the reference's (g[1]). */
static void edge_gradients(const float *a, const float *ref, int ow, int oh, int border,
                           double g[2])
{
    for (int Y = border; Y < oh - border; Y++)
        for (int X = border; X < ow - border; X++) {
            const float *img[2] = { a, ref };
            double m[2];
            for (int k = 0; k < 2; k++) {
                size_t i = (size_t)Y * ow + X;
                double gx = (luma_code(img[k], i + 1) - luma_code(img[k], i - 1)) / 2;
                double gy = (luma_code(img[k], i + ow) - luma_code(img[k], i - ow)) / 2;
                m[k] = sqrt(gx * gx + gy * gy);
            }
            if (m[1] > 16) {
                g[0] += m[0];
                g[1] += m[1];
            }
        }
}

/* PSNR of a camera pan over the wall at 2x: the wall moving by (vx, vy) render pixels a frame;
 * frames 12..23 against the supersampled wall, away from the edge the new wall comes in from.
 * *grad (if not NULL): the output's gradient over the reference's at the checker's edges. */
static double pan_psnr(upf_context *ctx, double vx, double vy, double *grad)
{
    const int w = 48, h = 32, ow = 96, oh = 64, frames = 24;
    synth s = synth_make(w, h, 0, false);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t)
        return 0;
    float *out = malloc(16 * (size_t)ow * oh);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    double psnr = 0, g[2] = { 0, 0 };
    for (int n = 0; n < frames; n++) {
        upf_jitter_offset(NULL, n, 32, &s.jx, &s.jy);
        pan_render(&s, n, vx, vy);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
        if (n >= 12) {
            float *ref = wall_reference_at(ow, oh, 2.0, n * vx, n * vy);
            psnr += psnr_inner(out, ref, ow, oh, 12) / (frames - 12);
            edge_gradients(out, ref, ow, oh, 12, g);
            free(ref);
        }
    }
    printf("pan: wall at (%.2f, %.2f) render px a frame, 2x, PSNR %.3f dB over frames 12..%d, "
           "edges' gradient %.4f of the reference's\n",
           vx, vy, psnr, frames - 1, g[0] / g[1]);
    if (grad)
        *grad = g[0] / g[1];
    free(out);
    upf_temporal_destroy(&t);
    synth_free(&s);
    return psnr;
}

/* A pan (docs/TEMPORAL.md, BOX_MOVING and CLIP_DISTRUST) at (1.37, 0.29) render pixels a
 * frame. A box of 1 standard deviation on a moving pixel and a clipped history's weight
 * divided by 1 + 32 x its move gave 29.00 dB (the history clipped and thrown away nearly every
 * frame); the box at 2 alone 30.16, the distrust at 8 alone 29.61, both 30.34 (30.42 with
 * KERNEL_MOVING, 30.46 with the moving clamp). The moving history's softer resample
 * (HISTORY_SOFT) 30.74, the checker's edges' gradient 0.765 of the reference's. EDGE_MOVING
 * (edge_kernel on a moving pixel): 30.92 dB, gradient 0.778; its part across the edge alone
 * (KERNEL_MOVING undone there) 30.85, its part along the edge alone 30.79. EDGE_ACROSS (the
 * part across by sat(2a), a steeper axis): 30.907 dB, gradient 0.7781 -> 0.7812. */
static void test_pan(upf_context *ctx)
{
    double grad = 0;
    double psnr = pan_psnr(ctx, 1.37, 0.29, &grad);
    CHECKF(psnr > 30.83, "pan PSNR %.3f dB", psnr);
    CHECKF(grad > 0.7795, "pan: the edges' gradient %.4f of the reference's", grad);
}

/* A fast pan (docs/TEMPORAL.md, KERNEL_MOVING and the moving clamp): the wall at (3.1, -0.4)
 * render pixels a frame (6.3 output pixels, where KERNEL_FAST fades the rule to 0.43 of
 * itself). With the confident estimate's kernel at the full output scale on a moving pixel
 * 32.27 dB, with the rule 32.40; with the moving history clamped into the box channel by
 * channel instead of clipped toward its centre 32.47 (the pan above: 30.42 -> 30.46); with
 * HISTORY_SOFT too 32.455 (without the clamp 32.40); with EDGE_MOVING (edge_kernel on a
 * moving pixel) 32.73, its part across the edge alone 32.48, along it alone 32.70; with
 * EDGE_ACROSS (sat(2a) across) 32.745, the edges' gradient 0.8455 -> 0.8472.
 * This clean analytic wall does not show the rule's gain in general: of nine pan speeds it
 * gained at four and lost at five (down to -0.84 dB at (1.8, 0)), and with a texture finer
 * than the render pixels it lost at all nine; the renderer's tuning pans and orbits gained
 * (docs/TEMPORAL.md). */
static void test_fast_pan(upf_context *ctx)
{
    double grad = 0;
    double psnr = pan_psnr(ctx, 3.1, -0.4, &grad);
    CHECKF(psnr > 32.6, "fast pan PSNR %.3f dB", psnr);
    CHECKF(grad > 0.8463, "fast pan: the edges' gradient %.4f of the reference's", grad);
}

/* A moving shadow on a still camera (docs/TEMPORAL.md, CLIP_DISTRUST_STILL): a band of the wall
 * darkened to 0.35 moves right at 1.5 render pixels a frame with no motion vectors (a shadow
 * has none); where it left the wall 3 to 6 frames ago the history must have let it go. Mean
 * error there against the supersampled wall, 2x: 0.0889 with the still distrust of 32, 0.0972
 * with 8 (the moving value) there too; with the display's dead band (the shown colour up to
 * 1.25 codes behind the history) 0.0938 and 0.1019; with edge_widen 0.0942 (distrust 32). */
static void test_moving_shadow(upf_context *ctx)
{
    const int w = 64, h = 32, ow = 128, oh = 64, frames = 24;
    const double speed = 1.5, half = 4.0;
    synth s = synth_make(w, h, 0, false);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t)
        return;
    float *out = malloc(16 * (size_t)ow * oh), *ref = wall_reference(ow, oh, 2.0);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    double cx = 0;
    for (int n = 0; n < frames; n++) {
        upf_jitter_offset(NULL, n, 32, &s.jx, &s.jy);
        synth_render(&s);
        cx = 8 + speed * n;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (fabs(x + 0.5 + s.jx - cx) < half)
                    for (int c = 0; c < 3; c++)
                        s.color[4 * ((size_t)y * w + x) + c] *= 0.35f;
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    }
    /* output pixels the band covered 3 to 6 frames ago, clear of it now by 2 render px */
    double err = 0;
    int count = 0;
    for (int Y = 0; Y < oh; Y++)
        for (int X = 0; X < ow; X++) {
            double x = (X + 0.5) / 2;
            if (x < cx - 6 * speed - half + 1 || x > cx - 3 * speed + half - 1 || x > cx - half - 2)
                continue;
            size_t i = (size_t)Y * ow + X;
            for (int c = 0; c < 3; c++)
                err += fabs(out[4 * i + c] - ref[4 * i + c]) / 3;
            count++;
        }
    err /= count;
    printf("moving shadow: %d pixels it left 3 to 6 frames ago, mean error %.4f\n", count, err);
    CHECK(count > 100);
    CHECKF(err < 0.097, "the shadow's trail: mean error %.4f", err);
    free(out);
    free(ref);
    upf_temporal_destroy(&t);
    synth_free(&s);
}

static void test_convergence(upf_context *ctx)
{
    const int w = 48, h = 32, ow = 96, oh = 64, frames = 32;
    synth s = synth_make(w, h, 0, false);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t)
        return;
    float *out = malloc(16 * (size_t)ow * oh), *ref = wall_reference(ow, oh, 2.0);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    double first = 0, last = 0;
    for (int n = 0; n < frames; n++) {
        upf_jitter_offset(NULL, n, 32, &s.jx, &s.jy);
        synth_render(&s);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
        double p = psnr_rgb(out, ref, ow * oh);
        if (n == 0)
            first = p;
        if (n >= frames - 8)
            last += p / 8;
    }
    printf("convergence: static wall 2x, PSNR %.2f dB at frame 0, %.2f over frames %d..%d\n",
           first, last, frames - 8, frames - 1);
    CHECKF(last > first + 5.0, "converged %.2f vs first %.2f", last, first);
    free(out);
    free(ref);
    upf_temporal_destroy(&t);
    synth_free(&s);

    /* a constant frame stays constant, whatever the jitter and motion */
    s = synth_make(16, 12, 0, false);
    t = make_engine(ctx, 16, 12, 40, 30, 1.0f, 0);
    out = malloc(16 * 40 * 30);
    oi = (upf_image){ out, 40, 30, 0, UPF_FORMAT_RGBA32F };
    double worst = 0;
    for (int n = 0; n < 6 && t; n++) {
        synth_render(&s);
        for (int i = 0; i < 16 * 12; i++) {
            s.color[4 * i] = 0.3f, s.color[4 * i + 1] = 2.5f, s.color[4 * i + 2] = 0.05f;
            s.motion[2 * i] = 0.37f * n, s.motion[2 * i + 1] = -0.2f;
        }
        upf_jitter_offset(NULL, n, 8, &s.jx, &s.jy);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
        for (int i = 0; i < 40 * 30; i++)
            worst = fmax(worst, fmax(fabs(out[4 * i] - 0.3), fmax(fabs(out[4 * i + 1] - 2.5) / 2.5,
                                                                  fabs(out[4 * i + 2] - 0.05))));
    }
    CHECKF(worst < 1e-4, "a constant frame changed by %g", worst);
    free(out);
    upf_temporal_destroy(&t);
    synth_free(&s);
}

/* Runs `frames` frames of the moving square on an engine of `threads` (and options) and
 * returns the last output (RGBA32F, caller frees). */
static float *run_square(int threads, int frames, unsigned flags, bool camera_motion, bool uv,
                         bool projection, float pre_exposure)
{
    upf_context *ctx = test_context(threads);
    const int w = 40, h = 28, ow = 100, oh = 70;
    synth s = synth_make(w, h, 60.0, true);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0.5f, flags);
    float *out = malloc(16 * (size_t)ow * oh);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    static const double id[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    /* the camera as a projection: reversed finite, near 0.1, far 100, vertical fov 1 */
    double proj[16] = { 0 };
    proj[0] = 1 / tan(0.5) / ((double)w / h), proj[5] = 1 / tan(0.5), proj[14] = -1;
    proj[10] = NEAR_PLANE / (FAR_PLANE - NEAR_PLANE);
    proj[11] = NEAR_PLANE * FAR_PLANE / (FAR_PLANE - NEAR_PLANE);
    float *uvm = malloc(8 * (size_t)w * h);
    upf_image uvi = { uvm, w, h, 0, UPF_FORMAT_RG32F };
    for (int n = 0; n < frames && t; n++) {
        s.t = n / 30.0;
        upf_jitter_offset(NULL, n, 13, &s.jx, &s.jy);
        synth_render(&s);
        for (int i = 0; i < w * h * 4; i++)
            s.color[i] *= pre_exposure;
        upf_temporal_frame f = synth_frame(&s, img);
        f.pre_exposure = pre_exposure;
        if (camera_motion) { /* a still camera: the motion of the depth alone is 0 */
            f.motion = NULL;
            f.view_projection = f.prev_view_projection = id;
        }
        if (uv) {
            for (int i = 0; i < w * h; i++)
                uvm[2 * i] = s.motion[2 * i] / w * 4, uvm[2 * i + 1] = s.motion[2 * i + 1] / h * 4;
            f.motion = &uvi;
            f.motion_scale_x = f.motion_scale_y = 0.25;
        }
        if (projection) {
            memset(&f.camera, 0, sizeof f.camera);
            f.projection = proj;
        }
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    }
    free(uvm);
    upf_temporal_destroy(&t);
    synth_free(&s);
    upf_context_destroy(&ctx);
    return out;
}

static double max_diff(const float *a, const float *b, size_t n)
{
    double d = 0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static void test_equivalences(void)
{
    const size_t n = 4 * 100 * 70;
    float *one = run_square(1, 8, 0, false, false, false, 1);
    float *three = run_square(3, 8, 0, false, false, false, 1);
    CHECK(memcmp(one, three, n * sizeof(float)) == 0);
    float *uv = run_square(1, 8, UPF_TEMPORAL_MOTION_UV, false, false, false, 1);
    (void)uv;
    float *uv2 = run_square(2, 8, UPF_TEMPORAL_MOTION_UV, false, true, false, 1);
    CHECKF(max_diff(one, uv2, n) < 1e-4, "UV motion differs by %g", max_diff(one, uv2, n));
    float *proj = run_square(2, 8, 0, false, false, true, 1);
    CHECKF(max_diff(one, proj, n) < 1e-4, "projection camera differs by %g",
           max_diff(one, proj, n));
    float *pre = run_square(2, 8, 0, false, false, false, 4.0f);
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        if (i % 4 != 3) /* alpha is 1 either way */
            worst = fmax(worst, fabs(pre[i] / 4.0 - one[i]) / (1 + one[i]));
    CHECKF(worst < 1e-4, "pre-exposure 4 comes back off by %g", worst);
    /* camera motion from identity matrices = zero vectors: same as a still square */
    float *cam = run_square(2, 1, 0, true, false, false, 1);
    float *first = run_square(1, 1, 0, false, false, false, 1);
    CHECK(memcmp(cam, first, n * sizeof(float)) == 0); /* frame 0: no history either way */
    free(one);
    free(three);
    free(uv);
    free(uv2);
    free(proj);
    free(pre);
    free(cam);
    free(first);
}

/* A reset gives exactly what a new engine gives on that frame. */
static void test_reset(upf_context *ctx)
{
    const int w = 30, h = 20, ow = 60, oh = 40;
    synth s = synth_make(w, h, 30.0, true);
    upf_temporal *a = make_engine(ctx, w, h, ow, oh, 0.3f, 0);
    upf_temporal *b = make_engine(ctx, w, h, ow, oh, 0.3f, 0);
    float *oa = malloc(16 * (size_t)ow * oh), *ob = malloc(16 * (size_t)ow * oh);
    upf_image img[3], ia = { oa, ow, oh, 0, UPF_FORMAT_RGBA32F }, ib = { ob, ow, oh, 0, UPF_FORMAT_RGBA32F };
    for (int n = 0; n < 5 && a && b; n++) {
        s.t = n / 30.0;
        upf_jitter_offset(NULL, n, 8, &s.jx, &s.jy);
        synth_render(&s);
        upf_temporal_frame f = synth_frame(&s, img);
        if (n == 4)
            f.reset = 1;
        CHECK_OK(ctx, upf_temporal_run(a, &f, &ia));
    }
    if (b) {
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(b, &f, &ib));
        CHECK(memcmp(oa, ob, 16 * (size_t)ow * oh) == 0);
    }
    free(oa);
    free(ob);
    upf_temporal_destroy(&a);
    upf_temporal_destroy(&b);
    synth_free(&s);
}

/* Colour encodings: a grey frame in sRGB or sqrt values (in a float image) comes out in the
 * same encoding; 8-bit sRGB in and out keeps its code. */
static void test_encodings(upf_context *ctx)
{
    const int w = 8, h = 6;
    float col[4 * 8 * 6], dep[8 * 6], mot[2 * 8 * 6] = { 0 }, out[4 * 16 * 12];
    uint8_t c8[4 * 8 * 6], o8[4 * 16 * 12];
    for (int i = 0; i < w * h; i++) {
        col[4 * i] = col[4 * i + 1] = col[4 * i + 2] = 0.6f, col[4 * i + 3] = 1;
        c8[4 * i] = c8[4 * i + 1] = c8[4 * i + 2] = 147, c8[4 * i + 3] = 255;
        dep[i] = 0.3f;
    }
    upf_image di = { dep, w, h, 0, UPF_FORMAT_R32F }, mi = { mot, w, h, 0, UPF_FORMAT_RG32F };
    const unsigned flags[3] = { 0, UPF_TEMPORAL_COLOR_SRGB, UPF_TEMPORAL_COLOR_SQRT };
    for (int k = 0; k < 4; k++) {
        upf_temporal *t = make_engine(ctx, w, h, 16, 12, 0.7f, k < 3 ? flags[k] : 0);
        if (!t)
            continue;
        upf_image ci = { col, w, h, 0, UPF_FORMAT_RGBA32F }, oi = { out, 16, 12, 0, UPF_FORMAT_RGBA32F };
        if (k == 3) {
            ci = (upf_image){ c8, w, h, 0, UPF_FORMAT_RGBA8_SRGB };
            oi = (upf_image){ o8, 16, 12, 0, UPF_FORMAT_RGBA8_SRGB };
        }
        upf_temporal_frame f = { .color = &ci, .depth = &di, .motion = &mi,
                                 .camera = { NEAR_PLANE, FAR_PLANE, 1.0, 1, 0, 0, 0, 0, 0, 0 },
                                 .frame_time_ms = 16.7 };
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
        double worst = 0;
        for (int i = 0; i < 16 * 12 * 4; i++)
            worst = fmax(worst, k == 3 ? abs(o8[i] - (i % 4 == 3 ? 255 : 147))
                                       : fabs(out[i] - (i % 4 == 3 ? 1.0 : 0.6)));
        CHECKF(worst <= (k == 3 ? 0 : 1e-5), "encoding %d: off by %g", k, worst);
        upf_temporal_destroy(&t);
    }
}

/* ---- ghosting --------------------------------------------------------------------------- */

/* The square (bright, at 5 m) crosses the textured wall (10 m) at 1.5 render px a frame,
 * 2x. Four frames after a stretch of wall came out from behind it, that stretch must look like
 * the wall: its mean error against the supersampled wall at most 1.25 times (plus 0.005) that
 * of a fresh upsample of the same frame (an engine reset on it: no history at all), which is
 * what four frames of samples are worth at worst; and no pixel there may keep as much as a
 * third of the square's contrast against the wall (a trail would). */
static void test_ghosting(upf_context *ctx)
{
    const int w = 64, h = 40, ow = 128, oh = 80, frames = 20;
    synth s = synth_make(w, h, 1.5 * 30.0, true);
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    upf_temporal *fresh = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t || !fresh)
        return;
    float *out = malloc(16 * (size_t)ow * oh), *up = malloc(16 * (size_t)ow * oh);
    float *ref = wall_reference(ow, oh, 2.0);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F }, ui = { up, ow, oh, 0, UPF_FORMAT_RGBA32F };
    for (int n = 0; n < frames; n++) {
        s.t = n / 30.0;
        upf_jitter_offset(NULL, n, 32, &s.jx, &s.jy);
        synth_render(&s);
        upf_temporal_frame f = synth_frame(&s, img);
        CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    }
    upf_temporal_frame f = synth_frame(&s, img);
    f.reset = 1;
    CHECK_OK(ctx, upf_temporal_run(fresh, &f, &ui));
    /* the trail: output pixels the square covered 4 to 8 frames ago, wall now (and not within
     * 2 render px of the square's edge then or now) */
    double e_trail = 0, e_fresh = 0, worst = 0;
    int count = 0;
    const double r = 0.12 * h;
    for (int Y = 0; Y < oh; Y++)
        for (int X = 0; X < ow; X++) {
            double x = (X + 0.5) / 2, y = (Y + 0.5) / 2, cy = 0.5 * h;
            double now = square_x(&s, s.t), then_a = square_x(&s, s.t - 8 / 30.0),
                   then_b = square_x(&s, s.t - 4 / 30.0);
            bool trail = fabs(y - cy) < r - 2 && x > then_a - r + 2 && x < then_b + r - 2 &&
                         x < now - r - 2;
            if (!trail)
                continue;
            size_t i = (size_t)Y * ow + X;
            double a = 0, b = 0;
            for (int c = 0; c < 3; c++) {
                a += fabs(out[4 * i + c] - ref[4 * i + c]) / 3;
                b += fabs(up[4 * i + c] - ref[4 * i + c]) / 3;
                worst = fmax(worst, fabs(out[4 * i + c] - ref[4 * i + c]));
            }
            e_trail += a, e_fresh += b;
            count++;
        }
    e_trail /= count, e_fresh /= count;
    printf("ghosting: %d trail pixels, mean error %.4f (a fresh upsample %.4f), worst %.3f\n",
           count, e_trail, e_fresh, worst);
    CHECK(count > 100);
    CHECKF(e_trail <= 1.25 * e_fresh + 0.005, "trail error %.4f vs fresh %.4f", e_trail,
           e_fresh);
    CHECKF(worst < 0.9 / 3, "a trail pixel is off by %.3f", worst); /* square 0.9 vs wall <= 0.6 */
    free(out);
    free(up);
    free(ref);
    upf_temporal_destroy(&t);
    upf_temporal_destroy(&fresh);
    synth_free(&s);
}

/* ---- bad input ---------------------------------------------------------------------------- */

static int warnings;

static void count_warnings(void *priv, upf_log_level level, const char *message)
{
    (void)priv;
    (void)message;
    warnings += level == UPF_LOG_WARN;
}

static void test_bad_input(void)
{
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 2, .log = count_warnings,
                                                             .log_level = UPF_LOG_WARN));
    CHECK(upf_temporal_create(NULL, upf_temporal_params(.render_width = 1)) == NULL);
    CHECK(upf_temporal_create(ctx, NULL) == NULL);
    const char *m;
    CHECK(upf_context_last_error(ctx, &m) == UPF_ERROR_INVALID_ARGUMENT && strstr(m, "params"));
    struct { upf_temporal_params p; const char *needle; } bad[] = {
        { { 0, 10, 20, 20, 0, 0, NULL }, "render_width 0" },
        { { 10, 10, 50, 20, 0, 0, NULL }, "expected output / render from 1 to 4" },
        { { 10, 10, 9, 10, 0, 0, NULL }, "ratio of 0.9" },
        { { 10, 10, 20, 20, 1.5f, 0, NULL }, "sharpness 1.5" },
        { { 10, 10, 20, 20, NAN, 0, NULL }, "sharpness" },
        { { 10, 10, 20, 20, 0, 0x100, NULL }, "unknown flags 0x100" },
        { { 10, 10, 20, 20, 0, UPF_TEMPORAL_COLOR_SRGB | UPF_TEMPORAL_COLOR_SQRT, NULL },
          "one colour encoding" },
        { { 10, 10, 20, 20000, 0, 0, NULL }, "output_height 20000" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(upf_temporal_create(ctx, &bad[i].p) == NULL);
        upf_result r = upf_context_last_error(ctx, &m);
        CHECKF(r == UPF_ERROR_INVALID_ARGUMENT && strstr(m, bad[i].needle), "case %zu: %s", i, m);
    }

    upf_context *small_ctx = upf_context_create(upf_context_params(.threads = 1,
                                                                   .max_pixels = 1000));
    CHECK(upf_temporal_create(small_ctx, upf_temporal_params(.render_width = 20,
        .render_height = 20, .output_width = 40, .output_height = 40)) == NULL);
    upf_context_last_error(small_ctx, &m);
    CHECKF(strstr(m, "output size") && strstr(m, "1600"), "%s", m);
    upf_context_destroy(&small_ctx);

    const int w = 16, h = 12, ow = 32, oh = 24;
    upf_temporal *t = make_engine(ctx, w, h, ow, oh, 0, 0);
    if (!t) {
        upf_context_destroy(&ctx);
        return;
    }
    synth s = synth_make(w, h, 30.0, true);
    synth_render(&s);
    float *out = malloc(16 * (size_t)ow * oh);
    upf_image img[3], oi = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    upf_temporal_frame good = synth_frame(&s, img), f;
    CHECK_OK(ctx, upf_temporal_run(t, &good, &oi));
    CHECK(upf_temporal_run(NULL, &good, &oi) == UPF_ERROR_INVALID_ARGUMENT);
    CHECK_FAILS(ctx, upf_temporal_run(t, NULL, &oi), UPF_ERROR_INVALID_ARGUMENT, "frame is NULL");
    CHECK_FAILS(ctx, upf_temporal_run(t, &good, NULL), UPF_ERROR_INVALID_ARGUMENT,
                "output image is NULL");
    f = good, f.color = NULL;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT,
                "frame color is NULL");
    f = good, f.depth = NULL;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT,
                "frame depth is NULL");
    f = good, f.motion = NULL;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT,
                "expected motion vectors, or both view-projection matrices");
    f = good, f.jitter_x = 1.5;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT, "jitter (1.5");
    f = good, f.frame_time_ms = 0;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT, "frame_time_ms 0");
    f = good, f.exposure = -1;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT, "exposure -1");
    f = good, f.camera.near_plane = 0;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT, "near plane 0");
    f = good, f.camera.far_plane = 0.05;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT, "far plane");
    f = good, f.camera.fov_y = 4;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT, "field of view");
    double badproj[16] = { 0 };
    f = good, f.projection = badproj;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT,
                "frame projection: upf_camera_from_projection");
    /* sizes: a frame of another size is refused (the tool makes a new engine for it) */
    upf_image small = { s.color, w - 1, h, 0, UPF_FORMAT_RGBA32F };
    f = good, f.color = &small;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT,
                "colour image is 15x12; expected 16x12");
    upf_image wrong = { s.depth, w, h, 0, UPF_FORMAT_RG32F };
    f = good, f.depth = &wrong;
    CHECK_FAILS(ctx, upf_temporal_run(t, &f, &oi), UPF_ERROR_INVALID_ARGUMENT, "format rg32f");
    upf_image osmall = { out, ow, oh - 1, 0, UPF_FORMAT_RGBA32F };
    CHECK_FAILS(ctx, upf_temporal_run(t, &good, &osmall), UPF_ERROR_INVALID_ARGUMENT,
                "output image is 32x23; expected 32x24");
    /* NaN colour and depth: errors naming the pixel; the history is kept */
    float *hist = malloc(16 * (size_t)ow * oh);
    memcpy(hist, surf(t, UPF__TP_HISTORY)->data, 16 * (size_t)ow * oh);
    s.color[4 * (3 * w + 5) + 1] = NAN;
    CHECK_FAILS(ctx, upf_temporal_run(t, &good, &oi), UPF_ERROR_BAD_DATA,
                "colour pixel x=5, y=3 is not finite");
    s.color[4 * (3 * w + 5) + 1] = 0.5f;
    s.depth[2 * w + 7] = INFINITY;
    CHECK_FAILS(ctx, upf_temporal_run(t, &good, &oi), UPF_ERROR_BAD_DATA,
                "depth pixel x=7, y=2 is not finite");
    CHECK(memcmp(hist, surf(t, UPF__TP_HISTORY)->data, 16 * (size_t)ow * oh) == 0);
    s.depth[2 * w + 7] = 0.01f;
    /* NaN and huge motion: a warning, those pixels without history, a finite output */
    warnings = 0;
    s.motion[2 * (1 * w + 12)] = NAN; /* on the wall, away from the square */
    s.motion[2 * (5 * w + 9) + 1] = 1e30f;
    CHECK_OK(ctx, upf_temporal_run(t, &good, &oi));
    CHECK(warnings == 1);
    int finite = 1;
    for (int i = 0; i < 4 * ow * oh; i++)
        finite &= isfinite(out[i]);
    CHECK(finite);
    CHECK_EQ_INT(((const float *)surf(t, UPF__TP_REACTIVITY)->data)[2 * (1 * w + 12)] == 1.0f, 1);
    CHECK(fabs(((const float *)surf(t, UPF__TP_DILATED_MOTION)->data)[2 * (5 * w + 9) + 1]) <=
          UPF__MV_MAX);
    s.motion[2 * (1 * w + 12)] = 0.0f;
    s.motion[2 * (5 * w + 9) + 1] = 0.0f;
    /* a frame time in seconds draws a warning */
    warnings = 0;
    f = good, f.frame_time_ms = 0.0166;
    CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    CHECK(warnings == 1);
    /* NaN in the reactive mask counts as 1 */
    float *react = calloc((size_t)w * h, 4);
    react[w + 1] = NAN;
    upf_image ri = { react, w, h, 0, UPF_FORMAT_R32F };
    f = good, f.reactive = &ri;
    CHECK_OK(ctx, upf_temporal_run(t, &f, &oi));
    CHECK(((const float *)surf(t, UPF__TP_REACTIVITY)->data)[2 * (2 * w + 2) + 1] == 1.0f);
    CHECK(((const float *)surf(t, UPF__TP_REACTIVITY)->data)[2 * (5 * w + 8) + 1] == 0.0f);
    free(react);
    free(hist);
    free(out);
    synth_free(&s);
    upf_temporal_destroy(&t);
    upf_temporal_destroy(&t); /* a second destroy of NULL is fine */
    upf_temporal_destroy(NULL);
    CHECK(upf_temporal_timings(NULL, NULL) == UPF_ERROR_INVALID_ARGUMENT);
    upf_context_destroy(&ctx);
}

int main(void)
{
    test_rng rng = test_rng_make("temporal");
    upf_context *c1 = test_context(1), *c2 = test_context(2);
    test_lanczos_table();
    test_tables(c1);
    test_reconstruct(c2, &rng);
    test_dilation_slope(c2);
    test_disocclusion(c1);
    test_locks(c2);
    for (int k = 0; k < 3; k++)
        test_first_frame(k & 1 ? c2 : c1, &rng);
    test_sharpen(c2);
    test_fill_range(c2);
    test_convergence(c2);
    test_equivalences();
    test_reset(c2);
    test_encodings(c1);
    test_ghosting(c2);
    test_still_shimmer(c2);
    test_still_share_ratio(c2);
    test_edge_comb(c2);
    test_grating(c2);
    test_pan(c2);
    test_fast_pan(c2);
    test_moving_shadow(c2);
    test_bad_input();
    upf_context_destroy(&c1);
    upf_context_destroy(&c2);
    return test_finish("temporal");
}
