/* test_vk_interpolate_tool.c: frame generation on the GPU in managed mode
 * (src/vk/vk_framegen_managed.c) and `upframe interpolate --backend vulkan`, against the CPU
 * engine and `--backend cpu`, on whatever Vulkan device is here (lavapipe in CI).
 *
 *  - Managed mode in-process, on the scene renderer's turn (vectors at the frames' size and at
 *    a render size below it, reversed depth, the camera fit): 8-bit sRGB frames with an 8-bit
 *    HUD layer into RGBA16F outputs, and float frames into 8-bit sRGB outputs, factor 4 (three
 *    phases in one record), a single phase, the blend on a reset and on ids not consecutive:
 *    every made frame within a mean absolute difference of 0.001 on [0, 1] of
 *    upf_interpolate_run_factor's on the same images (the API's promise), and the method and
 *    fallback the CPU engine reports. Bad input: a wrong format or size, too many phases, a
 *    HUD given to an engine made without one: a clear error, and the engine still runs.
 *  - The tool: a rendered walk (with its HUD layers) made 4 times as long with the vectors, the
 *    blend (--blend) and optical flow (--no-motion), and two images into a PFM at phase 0.3: `--backend vulkan`'s PNGs a mean of
 *    at most 1 code (1/255) from `--backend cpu`'s, the PFM within 0.001; the JSON's pairs by
 *    method equal; a bad --backend or UPF_VK_DEVICE is an error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imageio/image_io.h"
#include "sequence/json.h"
#include "scene/scene.h"
#include "test_util.h"
#include "vk/vk_framegen_managed.h"

#define TMP UPF_TEST_TMPDIR
#define W 64
#define H 36

/* ---- managed mode ------------------------------------------------------------------------ */

typedef struct pair {
    float a[W * H * 4], b[W * H * 4], hud[W * H * 4];
    float depth[W * H], motion[W * H * 2];            /* at the frames' size */
    float depth_r[(W / 2) * (H / 2)], motion_r[(W / 2) * (H / 2) * 2]; /* at half of it */
    uint8_t a8[W * H * 4], b8[W * H * 4], hud8[W * H * 4];
} pair;

static void render_pair(upf_context *ctx, pair *p)
{
    scene *sc = NULL;
    CHECK_OK(ctx, scene_create(ctx, "courtyard", 3, &sc));
    for (int k = 0; sc && k < 2; k++) {
        const scene_buffers full = { k ? p->b : p->a, k ? p->hud : NULL, k ? p->depth : NULL,
                                     k ? p->motion : NULL };
        CHECK_OK(ctx, scene_render(sc, scene_view_params(.path = "turn", .time = 0.5 + k / 30.0,
                                                         .frame_interval = 1.0 / 30.0,
                                                         .width = W, .height = H), &full,
                                   NULL));
    }
    const scene_buffers half = { NULL, NULL, p->depth_r, p->motion_r };
    if (sc)
        CHECK_OK(ctx, scene_render(sc, scene_view_params(.path = "turn", .time = 0.5 + 1 / 30.0,
                                                         .frame_interval = 1.0 / 30.0,
                                                         .width = W / 2, .height = H / 2),
                                   &half, NULL));
    scene_destroy(&sc);
    /* 8-bit sRGB copies (upf_resample at 1x converts exactly) */
    const float *src[3] = { p->a, p->b, p->hud };
    uint8_t *dst[3] = { p->a8, p->b8, p->hud8 };
    for (int k = 0; k < 3; k++) {
        const upf_image s = { (void *)src[k], W, H, 0, UPF_FORMAT_RGBA32F };
        const upf_image d = { dst[k], W, H, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_OK(ctx, upf_resample(ctx, &s, &d, UPF_FILTER_BILINEAR));
    }
}

/* Mean absolute difference of two images' RGB on [0, 1] (any colour formats). */
static double mean_diff(upf_context *ctx, const upf_image *x, const upf_image *y)
{
    static float fx[W * H * 4], fy[W * H * 4];
    const upf_image ox = { fx, W, H, 0, UPF_FORMAT_RGBA32F }, oy = { fy, W, H, 0, UPF_FORMAT_RGBA32F };
    if (upf_resample(ctx, x, &ox, UPF_FILTER_BILINEAR) != UPF_OK ||
        upf_resample(ctx, y, &oy, UPF_FILTER_BILINEAR) != UPF_OK)
        return INFINITY;
    double sum = 0;
    for (int i = 0; i < W * H; i++)
        for (int c = 0; c < 3; c++) {
            const double e = fabs((double)fx[4 * i + c] - fy[4 * i + c]);
            sum += e == e ? e : 1e9;
        }
    return sum / (3.0 * W * H);
}

typedef struct mcase {
    const char *name;
    bool eight_bit, hud, render_size, reset, stale;
    int factor;                 /* 0: one phase, 0.3 */
    upf_format out;
} mcase;

static double worst_managed;

static void managed_case(upf_context *ctx, const pair *p, const mcase *c)
{
    const int mw = c->render_size ? W / 2 : W, mh = c->render_size ? H / 2 : H;
    const upf_format cf = c->eight_bit ? UPF_FORMAT_RGBA8_SRGB : UPF_FORMAT_RGBA32F;
    const upf_interpolate_params ip = { .width = W, .height = H, .motion_width = mw,
                                        .motion_height = mh,
                                        .flags = UPF_INTERPOLATE_DEPTH_REVERSED };
    upf__vk_interpolate_managed *m = upf__vk_interpolate_managed_create(ctx,
        &(upf__vk_interpolate_managed_params){ .device_index = -1, .width = W, .height = H,
            .motion_width = mw, .motion_height = mh, .motion = UPF_INTERPOLATE_MOTION_VECTORS,
            .max_factor = 4,
            .flags = UPF_INTERPOLATE_DEPTH_REVERSED, .color_format = cf,
            .hud_format = c->hud ? UPF_FORMAT_RGBA8_SRGB : (upf_format)0,
            .output_format = c->out });
    upf_interpolate *cpu = upf_interpolate_create(ctx, &ip);
    CHECKF(m && cpu, "%s: %s", c->name, upf_context_last_error(ctx, NULL) ? "create failed" : "");
    if (!m || !cpu) {
        upf__vk_interpolate_managed_destroy(&m);
        upf_interpolate_destroy(&cpu);
        return;
    }
    const upf_image ia = { c->eight_bit ? (void *)p->a8 : (void *)p->a, W, H, 0, cf };
    const upf_image ib = { c->eight_bit ? (void *)p->b8 : (void *)p->b, W, H, 0, cf };
    const upf_image ih = { (void *)p->hud8, W, H, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image imo = { c->render_size ? (void *)p->motion_r : (void *)p->motion, mw, mh, 0,
                            UPF_FORMAT_RG32F };
    const upf_image idp = { c->render_size ? (void *)p->depth_r : (void *)p->depth, mw, mh, 0,
                            UPF_FORMAT_R32F };
    const upf_interpolate_frames f = { &ia, &ib, &imo, &idp, NULL, c->hud ? &ih : NULL,
                                       c->stale ? 5 : 6, 7, c->reset, NULL, NULL, 0 };
    const int count = c->factor ? c->factor - 1 : 1;
    const size_t bpp = upf_format_bytes_per_pixel(c->out);
    uint8_t *gbuf = calloc((size_t)count * W * H, bpp), *cbuf = calloc((size_t)count * W * H, bpp);
    upf_image g[3], cp[3];
    const upf_image *gp[3], *cpp[3];
    double phases[3];
    for (int k = 0; k < count; k++) {
        g[k] = (upf_image){ gbuf + (size_t)k * W * H * bpp, W, H, 0, c->out };
        cp[k] = (upf_image){ cbuf + (size_t)k * W * H * bpp, W, H, 0, c->out };
        gp[k] = &g[k], cpp[k] = &cp[k];
        phases[k] = c->factor ? (double)(k + 1) / c->factor : 0.3;
    }
    CHECK_OK(ctx, upf__vk_interpolate_managed_run(m, &f, phases, count, gp));
    if (c->factor)
        CHECK_OK(ctx, upf_interpolate_run_factor(cpu, &f, c->factor, cpp));
    else
        CHECK_OK(ctx, upf_interpolate_run(cpu, &f, 0.3, cpp[0]));
    for (int k = 0; k < count; k++) {
        const double d = mean_diff(ctx, &g[k], &cp[k]);
        CHECKF(d <= 0.001, "managed %s phase %g: mean abs difference %.3g (bar 0.001)", c->name,
               phases[k], d);
        worst_managed = d > worst_managed ? d : worst_managed;
    }
    upf_interpolate_method gm, cm;
    upf_interpolate_fallback gf, cfb;
    CHECK_OK(ctx, upf__vk_interpolate_managed_last_method(m, &gm, &gf));
    CHECK_OK(ctx, upf_interpolate_last_method(cpu, &cm, &cfb));
    CHECKF(gm == cm && gf == cfb, "managed %s: method %d/%d, fallback %d/%d", c->name, gm, cm,
           gf, cfb);
    free(gbuf);
    free(cbuf);
    upf__vk_interpolate_managed_destroy(&m);
    upf_interpolate_destroy(&cpu);
}

/* Bad input: a clear error naming what, and the engine still runs afterwards. */
static void managed_errors(upf_context *ctx, const pair *p)
{
    upf__vk_interpolate_managed *m = upf__vk_interpolate_managed_create(ctx,
        &(upf__vk_interpolate_managed_params){ .device_index = -1, .width = W, .height = H,
            .motion = UPF_INTERPOLATE_MOTION_VECTORS, .max_factor = 2, .color_format = UPF_FORMAT_RGBA32F,
            .output_format = UPF_FORMAT_RGBA8_SRGB });
    CHECK(m != NULL);
    if (!m)
        return;
    static uint8_t out8[W * H * 4];
    const upf_image ia = { (void *)p->a, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image ib = { (void *)p->b, W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image i8 = { (void *)p->b8, W, H, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image small = { (void *)p->b, W / 2, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image ih = { (void *)p->hud8, W, H, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image io = { out8, W, H, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image *op[2] = { &io, &io };
    const double ph[2] = { 0.25, 0.75 };
    upf_interpolate_frames f = { &ia, &i8, NULL, NULL, NULL, NULL, 0, 1, 0, NULL, NULL, 0 };
    CHECK_FAILS(ctx, upf__vk_interpolate_managed_run(m, &f, ph, 1, op),
                UPF_ERROR_INVALID_ARGUMENT, "color is 64x36 rgba8-srgb; expected 64x36 rgba32f");
    f.color = &small;
    CHECK_FAILS(ctx, upf__vk_interpolate_managed_run(m, &f, ph, 1, op),
                UPF_ERROR_INVALID_ARGUMENT, "color is 32x36");
    f.color = &ib;
    CHECK_FAILS(ctx, upf__vk_interpolate_managed_run(m, &f, ph, 2, op),
                UPF_ERROR_INVALID_ARGUMENT, "2 phases; expected 1..1");
    f.hud = &ih;
    CHECK_FAILS(ctx, upf__vk_interpolate_managed_run(m, &f, ph, 1, op),
                UPF_ERROR_INVALID_ARGUMENT, "made without HUD images");
    f.hud = NULL;
    CHECK_OK(ctx, upf__vk_interpolate_managed_run(m, &f, ph, 1, op));
    upf__vk_interpolate_managed_destroy(&m);
}

static void test_managed(void)
{
    upf_context *ctx = test_context(2);
    static pair p;
    render_pair(ctx, &p);
    const mcase cases[] = {
        { "8-bit + HUD -> rgba16f, factor 4", true, true, false, false, false, 4,
          UPF_FORMAT_RGBA16F },
        { "float, render-size vectors -> 8-bit, factor 4", false, false, true, false, false, 4,
          UPF_FORMAT_RGBA8_SRGB },
        { "float -> float, phase 0.3", false, false, false, false, false, 0,
          UPF_FORMAT_RGBA32F },
        { "reset: the blend", false, false, false, true, false, 3, UPF_FORMAT_RGBA32F },
        { "ids not consecutive: the blend", false, false, false, false, true, 2,
          UPF_FORMAT_RGBA32F },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        managed_case(ctx, &p, &cases[k]);
    managed_errors(ctx, &p);
    printf("managed mode against the CPU engine (%zu cases, 64x36): mean abs difference at most "
           "%.3g (bar 0.001)\n", sizeof cases / sizeof cases[0], worst_managed);
    upf_context_destroy(&ctx);
}

/* ---- the tool ---------------------------------------------------------------------------- */

/* Mean absolute difference on [0, 1] of two pictures' RGB (PNG codes / 255 or PFM floats);
 * INFINITY when either cannot be read or the sizes differ. */
static double file_diff(const char *a, const char *b)
{
    imageio_image ia, ib;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_read(a, NULL, &ia, err) != UPF_OK)
        return INFINITY;
    if (imageio_read(b, NULL, &ib, err) != UPF_OK) {
        imageio_free(&ia);
        return INFINITY;
    }
    double sum = INFINITY;
    const size_t n = (size_t)ia.img.width * ia.img.height;
    if (ia.img.width == ib.img.width && ia.img.height == ib.img.height &&
        ia.img.format == ib.img.format) {
        sum = 0;
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++)
                sum += ia.img.format == UPF_FORMAT_RGBA32F
                           ? fabs((double)((const float *)ia.img.data)[4 * i + c] -
                                  ((const float *)ib.img.data)[4 * i + c])
                           : abs((int)((const uint8_t *)ia.img.data)[4 * i + c] -
                                 (int)((const uint8_t *)ib.img.data)[4 * i + c]) / 255.0;
        sum /= 3.0 * (double)n;
    }
    imageio_free(&ia);
    imageio_free(&ib);
    return sum;
}

/* The JSON summary's pairs_by_method, as "v/f/b". */
static void methods(const char *out, char *s, size_t size)
{
    const char *p = strstr(out, "\"pairs_by_method\"");
    int v = -1, f = -1, b = -1;
    if (p)
        sscanf(p, "\"pairs_by_method\": {\"vectors\": %d, \"flow\": %d, \"blend\": %d", &v, &f,
               &b);
    snprintf(s, size, "%d/%d/%d", v, f, b);
}

/* A sequence 4 times as long on both backends: every output PNG a mean of at most 1/255 apart
 * (the made frames within the API's 0.001, the rest the 8-bit rounding of values that close),
 * the same methods. */
static void tool_sequence(const char *name, const char *extra, double *worst)
{
    char mc[64], mg[64];
    CHECK_EQ_INT(test_run_tool_cmdline("interpolate %s/seq -o %s/cpu_%s --factor 4 %s --json "
                                       "--quiet", TMP, TMP, name, extra), 0);
    methods(test_tool_out(), mc, sizeof mc);
    const int rc = test_run_tool_cmdline("interpolate %s/seq -o %s/gpu_%s --factor 4 %s "
                                         "--backend vulkan --json --quiet", TMP, TMP, name,
                                         extra);
    CHECKF(rc == 0, "upframe interpolate --backend vulkan %s: exit %d: %s", extra, rc,
           test_tool_out());
    methods(test_tool_out(), mg, sizeof mg);
    CHECKF(strcmp(mc, mg) == 0, "%s: pairs by method %s (cpu) and %s (vulkan)", name, mc, mg);
    for (int n = 0; rc == 0 && n <= 4 * 3; n++) {
        char a[512], b[512];
        snprintf(a, sizeof a, "%s/cpu_%s/%04d.png", TMP, name, n);
        snprintf(b, sizeof b, "%s/gpu_%s/%04d.png", TMP, name, n);
        const double d = file_diff(a, b);
        CHECKF(d <= 1.0 / 255, "%s output %d: mean abs difference %.3g (bar 1/255)", name, n, d);
        *worst = d > *worst ? d : *worst;
    }
}

static void test_tool(void)
{
    if (access(UPF_TOOL_PATH, X_OK) != 0) {
        printf("tool checks skipped: no %s here\n", UPF_TOOL_PATH); /* a copied test binary */
        return;
    }
    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0) {
        CHECKF(false, "could not make %s", TMP);
        return;
    }
    CHECK_EQ_INT(test_run_tool_cmdline("render courtyard --size 64x36 --frames 4 --path walk "
                                       "--quiet -o %s/seq", TMP), 0);
    double worst = 0;
    tool_sequence("vectors", "", &worst);
    tool_sequence("blend", "--blend", &worst);
    tool_sequence("flow", "--no-motion", &worst);
    /* two images at one phase into a PFM (float) */
    CHECK_EQ_INT(test_run_tool_cmdline("interpolate %s/seq/0001.color.pfm %s/seq/0002.color.pfm "
                                       "--motion-b %s/seq/0002.motion.pfm --depth-b "
                                       "%s/seq/0002.depth.pfm --phase 0.3 -o %s/cpu.pfm -q",
                                       TMP, TMP, TMP, TMP, TMP), 0);
    const int rc = test_run_tool_cmdline("interpolate %s/seq/0001.color.pfm "
                                         "%s/seq/0002.color.pfm --motion-b %s/seq/0002.motion.pfm "
                                         "--depth-b %s/seq/0002.depth.pfm --phase 0.3 -o "
                                         "%s/gpu.pfm -q --backend vulkan", TMP, TMP, TMP, TMP,
                                         TMP);
    CHECKF(rc == 0, "--phase 0.3 into a PFM: exit %d: %s", rc, test_tool_out());
    const double d = file_diff(TMP "/cpu.pfm", TMP "/gpu.pfm");
    CHECKF(d <= 0.001, "--phase 0.3 into a PFM: mean abs difference %.3g (bar 0.001)", d);
    /* A an 8-bit PNG, B a float PFM: the GPU's images take B's format, A converted first */
    double dm = INFINITY;
    CHECK_EQ_INT(test_run_tool_cmdline("interpolate %s/seq/0001.color.png %s/seq/0002.color.pfm "
                                       "--motion-b %s/seq/0002.motion.pfm --depth-b "
                                       "%s/seq/0002.depth.pfm -o %s/cpu_mixed.png -q", TMP, TMP,
                                       TMP, TMP, TMP), 0);
    if (test_run_tool_cmdline("interpolate %s/seq/0001.color.png %s/seq/0002.color.pfm "
                              "--motion-b %s/seq/0002.motion.pfm --depth-b %s/seq/0002.depth.pfm "
                              "-o %s/gpu_mixed.png -q --backend vulkan", TMP, TMP, TMP, TMP,
                              TMP) == 0)
        dm = file_diff(TMP "/cpu_mixed.png", TMP "/gpu_mixed.png");
    CHECKF(dm <= 1.0 / 255, "A a PNG, B a PFM: mean abs difference %.3g (bar 1/255): %s", dm,
           test_tool_out());
    printf("upframe interpolate --backend vulkan against cpu (a 64x36 walk of 4 frames made 4 "
           "times as long with its HUD layers: vectors, --blend, --no-motion): PNGs a mean of at most "
           "%.3g apart (bar %.3g); two images at phase 0.3 into a PFM: %.3g (bar 0.001); A a PNG and B a PFM: %.3g\n",
           worst, 1.0 / 255, d, dm);
    CHECK_EQ_INT(test_run_tool_cmdline("interpolate %s/seq -o %s/bad --factor 2 --backend metal",
                                       TMP, TMP), 1);
    CHECK(strstr(test_tool_out(), "--backend 'metal': expected cpu or vulkan") != NULL);
    setenv("UPF_VK_DEVICE", "x", 1);
    CHECK_EQ_INT(test_run_tool_cmdline("interpolate %s/seq -o %s/bad --factor 2 --backend vulkan",
                                       TMP, TMP), 2);
    CHECK(strstr(test_tool_out(), "UPF_VK_DEVICE='x': expected a device number") != NULL);
    unsetenv("UPF_VK_DEVICE");
}

/* Whether managed mode gets a device here (no Vulkan loader or device: the test is skipped). */
static bool device_here(void)
{
    upf_context *ctx = test_context(1);
    upf__vk_interpolate_managed *m = upf__vk_interpolate_managed_create(ctx,
        &(upf__vk_interpolate_managed_params){ .device_index = -1, .width = 8, .height = 8,
            .motion = UPF_INTERPOLATE_MOTION_VECTORS, .color_format = UPF_FORMAT_RGBA32F, .output_format = UPF_FORMAT_RGBA32F });
    const char *msg = "";
    const bool here = m || upf_context_last_error(ctx, &msg) != UPF_ERROR_UNSUPPORTED;
    if (!here)
        printf("skipped: %s\n", msg);
    upf__vk_interpolate_managed_destroy(&m);
    upf_context_destroy(&ctx);
    return here;
}

static json_doc doc_bench;

/* The number at `key` of object `obj`, NAN when absent. */
static double json_num(const json_doc *d, int obj, const char *key)
{
    const int v = obj > 0 ? json_get(d, obj, key) : -1;
    return v > 0 && d->v[v].type == JSON_NUMBER ? d->v[v].number : NAN;
}

/* `upframe bench --backend vulkan`'s frame generation rows at one tiny size: the vectors (the
 * camera fitted, then the host's cameras), the flow, and the vectors from 8-bit sRGB colours
 * (`vec8`) at factor 2 and 4, times above 0, the per-pass sums and the made frame's time as
 * their parts say, each floor its bytes over --bandwidth, the surfaces' bytes; the vectors'
 * rows without a flow time, the flow's without a vectors time; the 8-bit rows' resolve 24
 * bytes a pixel below the float rows' (it reads the 8-bit frames). */
static void test_bench(void)
{
    if (access(UPF_TOOL_PATH, X_OK) != 0)
        return;
    const int rc = test_run_tool_cmdline("bench --backend vulkan --size 16x9 --scale 1 --frames 2 "
                                         "--no-spatial --no-temporal --bandwidth 100 --json");
    CHECKF(rc == 0, "bench: exit %d: %s", rc, test_tool_out());
    json_doc *d = &doc_bench;
    char err[200];
    if (rc != 0 || !json_parse(test_tool_out(), strlen(test_tool_out()), d, err, sizeof err)) {
        CHECKF(false, "bench's JSON: %s", rc ? "no run" : err);
        return;
    }
    const int rows = json_get(d, 0, "framegen_rows");
    CHECK(rows > 0);
    int made = 0, flows = 0, given = 0, srgb8 = 0;
    double resolve_bytes[2] = { 0, 0 }; /* rows 1 and 7: float and 8-bit colours */
    for (int k = 0; rows > 0 && k < d->v[rows].count; k++) {
        const int row = json_at(d, rows, k);
        if (json_get(d, row, "skipped") > 0) /* {"motion": "flow", "skipped": ...} */
            continue;
        const double fv = json_num(d, row, "factor");
        const int factor = fv == 2 || fv == 4 ? (int)fv : 0;
        CHECKF(factor, "bench row %d: factor %g; expected 2 or 4", k, fv);
        if (!factor)
            continue;
        made++;
        const int mo = json_get(d, row, "motion");
        const bool flow = mo > 0 && d->v[mo].string && strcmp(d->v[mo].string, "flow") == 0;
        flows += flow;
        const int ca = json_get(d, row, "camera");
        const char *cam = ca > 0 && d->v[ca].string ? d->v[ca].string : "";
        CHECKF(strcmp(cam, flow ? "none" : made == 3 || made == 4 ? "given" : "fit") == 0,
               "bench row %d: camera \"%s\"", k, cam);
        given += strcmp(cam, "given") == 0;
        const int co = json_get(d, row, "colour");
        const char *colour = co > 0 && d->v[co].string ? d->v[co].string : "";
        CHECKF(strcmp(colour, made >= 7 ? "rgba8-srgb" : "rgba32f") == 0,
               "bench row %d: colour \"%s\"", k, colour);
        srgb8 += made >= 7;
        const int pu = json_get(d, row, "passes_us"), pb = json_get(d, row, "pass_bytes");
        /* the 8-bit frames: the resolve reads 4 + 4 bytes a pixel of them, not 16 + 16 */
        if (pb > 0 && (made == 1 || made == 7))
            resolve_bytes[made == 7] = json_num(d, pb, "resolve");
        const int fl = json_get(d, row, "floor_us");
        double sum_pair = 0, sum_phase = 0;
        for (int p = 0; pu > 0 && pb > 0 && fl > 0 && p < UPF_INTERPOLATE_PASS_COUNT; p++) {
            const char *name = upf_interpolate_pass_name((upf_interpolate_pass)p);
            const double us = json_num(d, pu, name), bytes = json_num(d, pb, name);
            const int unused = flow ? UPF_INTERPOLATE_PASS_VECTORS : UPF_INTERPOLATE_PASS_FLOW;
            CHECKF(p == unused ? us == 0 : us > 0, "bench %s, %s: %g us", flow ? "flow" : "vectors",
                   name, us);
            CHECK_NEAR(json_num(d, fl, name), bytes / 100e9 * 1e6, 0.006);
            *(p <= UPF_INTERPOLATE_PASS_CAMERA ? &sum_pair : &sum_phase) += us;
        }
        CHECK_NEAR(json_num(d, row, "per_pair_us"), sum_pair, 0.05);
        CHECK_NEAR(json_num(d, row, "per_phase_us"), sum_phase, 0.05);
        CHECK_NEAR(json_num(d, row, "per_made_frame_us") * (factor - 1),
                   json_num(d, row, "total_us"), 0.01 * factor);
        CHECK(json_num(d, row, "record_us") > 0);
        if (factor == 2) {
            const int mem = json_get(d, row, "memory_bytes");
            CHECK(mem > 0 && json_num(d, mem, "linear") == 8 * 16 * 9 && /* linear.glsl */
                  json_num(d, mem, "engine_total") > 0);
        }
    }
    CHECKF(made == 8 && flows == 2 && given == 2 && srgb8 == 2, "bench: %d frame generation "
           "rows, %d of the flow, %d with the host's cameras, %d from 8-bit colours; expected 8, "
           "2, 2, 2 (one size with --scale 1, the vectors, with the host's cameras, the flow, "
           "the vectors from 8-bit sRGB; factor 2 and 4)", made, flows, given, srgb8);
    /* the resolve reads both frames' 4-byte codes instead of 8-byte linear pixels */
    CHECK_NEAR(resolve_bytes[1], resolve_bytes[0] - 8.0 * 16 * 9, 0.5);
    printf("upframe bench --backend vulkan --size 16x9: %d frame generation rows\n", made);
}

int main(void)
{
    if (!device_here())
        return 77;
    test_managed();
    test_tool();
    test_bench();
    return test_finish("vk_interpolate_tool");
}
