/* test_spatial.c: the spatial engine as a whole (upf_spatial_*): argument and content checks,
 * the pass chain against a float64 reference where it reduces to one (no SMAA, no network),
 * SMAA reducing aliasing end to end, alpha at full precision, HDR through the tone map and
 * negative input (pictures in [0, 1] bit for bit as the kernels by hand), tiny sizes, thread
 * independence, model choice, timings and the debug pictures. The passes themselves are
 * tested in test_smaa.c and test_net.c. */
#include "core/color.h"
#include "scene/scene.h"
#include "spatial/net.h"
#include "spatial/reconstruct.h"
#include "spatial/smaa.h"
#include "test_util.h"

/* A set of models with the given steps and small random weights (in-memory file, loaded). */
static upf_models *random_models_flags(upf_context *ctx, test_rng *rng, const int *steps,
                                       int count, float scale, uint32_t flags)
{
    static upf__net_model m[7];
    const upf__net_model *ptrs[7];
    for (int k = 0; k < count; k++) {
        memset(&m[k], 0, sizeof m[k]);
        m[k].step = steps[k];
        m[k].flags = flags;
        m[k].detail_strength = 1.0f;
        for (int s = 0; s < UPF_NET_STAGES; s++)
            for (int a = 0; a < UPF_NET_MATRICES; a++)
                for (int i = 0; i < UPF_NET_WINDOW; i++)
                    m[k].w[s][a][i] = (test_rand_float(rng) - 0.5f) * scale;
        ptrs[k] = &m[k];
    }
    size_t size = upf__net_file_size(ptrs, count);
    void *buf = malloc(size);
    upf_models *set = NULL;
    if (upf__net_write(ctx, ptrs, count, buf, size) == UPF_OK)
        set = upf_models_load(ctx, buf, size);
    free(buf);
    CHECK(set != NULL);
    return set;
}

static upf_models *random_models(upf_context *ctx, test_rng *rng, const int *steps, int count,
                                 float scale)
{
    return random_models_flags(ctx, rng, steps, count, scale, 0);
}

static float *random_image(test_rng *rng, int w, int h)
{
    float *p = malloc(sizeof(float) * 4 * (size_t)w * h);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        for (int c = 0; c < 3; c++)
            p[4 * i + c] = test_rand_float(rng);
        p[4 * i + 3] = 1.0f;
    }
    return p;
}

static upf_result run_once(upf_context *ctx, const upf_spatial_params *params, const float *in,
                           float *out)
{
    upf_spatial *sp = upf_spatial_create(ctx, params);
    if (!sp)
        return upf_context_last_error(ctx, NULL);
    upf_image src = { (void *)in, params->src_width, params->src_height, 0, UPF_FORMAT_RGBA32F };
    upf_image dst = { out, params->dst_width, params->dst_height, 0, UPF_FORMAT_RGBA32F };
    upf_result r = upf_spatial_run(sp, &src, &dst);
    upf_spatial_destroy(&sp);
    return r;
}

static void test_arguments(upf_context *ctx, const upf_models *set)
{
    CHECK(upf_spatial_create(ctx, NULL) == NULL);
    CHECK_EQ_INT(upf_context_last_error(ctx, NULL), UPF_ERROR_INVALID_ARGUMENT);
    const struct {
        upf_spatial_params p;
        const char *needle;
    } bad[] = {
        { { 64, 32, 32, 16, 0, set, 0 }, "1 to 4" },
        { { 64, 32, 257, 128, 0, set, 0 }, "1 to 4" },
        { { 0, 32, 64, 64, 0, set, 0 }, "0x32" },
        { { 64, 32, 128, 64, -1.0f, set, 0 }, "sharpness -1 is out of range" },
        { { 64, 32, 128, 64, NAN, set, 0 }, "sharpness nan is out of range" },
        { { 64, 32, 128, 64, 4.5f, set, 0 }, "expected 0 .. 4" },
        { { 64, 32, 128, 64, 1, set, 0x10 }, "unknown flags 0x10" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        upf_spatial *sp = upf_spatial_create(ctx, &bad[i].p);
        const char *msg;
        upf_result r = upf_context_last_error(ctx, &msg);
        CHECKF(!sp && r == UPF_ERROR_INVALID_ARGUMENT && strstr(msg, bad[i].needle),
               "case %zu: %s (%s)", i, msg, upf_result_string(r));
        upf_spatial_destroy(&sp);
    }
    /* The built-in set: present or clearly absent. */
    upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(.src_width = 8, .src_height = 8,
                                                                 .dst_width = 16, .dst_height = 16));
    if (upf__default_models_size == 0) {
        const char *msg;
        CHECK(sp == NULL && upf_context_last_error(ctx, &msg) == UPF_ERROR_UNSUPPORTED &&
              strstr(msg, "no built-in models"));
    } else {
        CHECK(sp != NULL);
        CHECK_EQ_INT(upf_spatial_model_step(sp), 6);
    }
    upf_spatial_destroy(&sp);
    upf_spatial_destroy(&sp);
    upf_spatial_destroy(NULL);

    /* Run-time checks: sizes, formats, NaN/Inf (named). */
    sp = upf_spatial_create(ctx, upf_spatial_params(.src_width = 8, .src_height = 6,
                                                    .dst_width = 16, .dst_height = 12, .models = set));
    CHECK(sp != NULL);
    static float in[8 * 6 * 4], out[16 * 12 * 4];
    upf_image src = { in, 8, 6, 0, UPF_FORMAT_RGBA32F }, dst = { out, 16, 12, 0, UPF_FORMAT_RGBA32F };
    CHECK_OK(ctx, upf_spatial_run(sp, &src, &dst));
    upf_image wrong = { in, 8, 5, 0, UPF_FORMAT_RGBA32F };
    CHECK_FAILS(ctx, upf_spatial_run(sp, &wrong, &dst), UPF_ERROR_INVALID_ARGUMENT,
                "source image is 8x5; expected 8x6");
    upf_image depth = { out, 16, 12, 0, UPF_FORMAT_R32F };
    CHECK_FAILS(ctx, upf_spatial_run(sp, &src, &depth), UPF_ERROR_INVALID_ARGUMENT,
                "destination image has format r32f");
    in[(2 * 8 + 3) * 4 + 1] = NAN;
    CHECK_FAILS(ctx, upf_spatial_run(sp, &src, &dst), UPF_ERROR_BAD_DATA, "x=3, y=2 is not finite");
    in[(2 * 8 + 3) * 4 + 1] = 0;
    in[(5 * 8 + 7) * 4 + 3] = -INFINITY;
    CHECK_FAILS(ctx, upf_spatial_run(sp, &src, &dst), UPF_ERROR_BAD_DATA, "x=7, y=5");
    in[(5 * 8 + 7) * 4 + 3] = 1;
    CHECK_FAILS(ctx, upf_spatial_run(NULL, &src, &dst), UPF_ERROR_INVALID_ARGUMENT, "");
    upf_spatial_destroy(&sp);
}

/* With no SMAA and no network the engine is: sqrt-encode (10 bits), bilinear at
 * ((X + 0.5) * W_in / W_out - 0.5) with edge clamp, square. Checked in float64. */
static void test_against_reference(upf_context *ctx, const upf_models *set, test_rng *rng)
{
    const int sizes[][4] = { { 17, 9, 34, 18 }, { 20, 12, 33, 31 }, { 5, 7, 20, 28 }, { 30, 20, 30, 20 } };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int w = sizes[k][0], h = sizes[k][1], ow = sizes[k][2], oh = sizes[k][3];
        float *in = random_image(rng, w, h);
        float *out = malloc(sizeof(float) * 4 * (size_t)ow * oh);
        CHECK_OK(ctx, run_once(ctx, upf_spatial_params(.src_width = w, .src_height = h,
                     .dst_width = ow, .dst_height = oh, .models = set,
                     .flags = UPF_SPATIAL_NO_SMAA | UPF_SPATIAL_NO_NETWORK), in, out));
        double maxerr = 0;
        for (int y = 0; y < oh; y++) {
            for (int x = 0; x < ow; x++) {
                double u = (x + 0.5) * w / ow - 0.5, v = (y + 0.5) * h / oh - 0.5;
                u = u < 0 ? 0 : u;
                v = v < 0 ? 0 : v;
                int x0 = (int)floor(u), y0 = (int)floor(v);
                double fx = u - x0, fy = v - y0;
                int x1 = x0 + 1 < w ? x0 + 1 : w - 1, y1 = y0 + 1 < h ? y0 + 1 : h - 1;
                for (int c = 0; c < 3; c++) {
                    double s[2][2];
                    for (int j = 0; j < 2; j++)
                        for (int i = 0; i < 2; i++) {
                            const float *p = in + 4 * ((size_t)(j ? y1 : y0) * w + (i ? x1 : x0));
                            float q[4];
                            upf_unpack_sqrt1010102(upf_pack_sqrt1010102(p[0], p[1], p[2], p[3]),
                                                   &q[0], &q[1], &q[2], &q[3]);
                            s[j][i] = q[c];
                        }
                    double b = (s[0][0] * (1 - fx) + s[0][1] * fx) * (1 - fy) +
                               (s[1][0] * (1 - fx) + s[1][1] * fx) * fy;
                    double e = fabs(b * b - out[4 * ((size_t)y * ow + x) + c]);
                    maxerr = e > maxerr ? e : maxerr;
                }
            }
        }
        /* float32 bilinear of values <= 1 and one square: a few ulp of 1 */
        CHECKF(maxerr < 2e-6, "%dx%d -> %dx%d: max error %g", w, h, ow, oh, maxerr);
        free(in);
        free(out);
    }
}

/* SMAA end to end: a hard 20-degree edge upscaled 2x without the network is closer to the
 * exact coverage with SMAA than without. */
static void test_smaa_helps(upf_context *ctx, const upf_models *set, const upf_models *no_smaa)
{
    const int w = 64, h = 48, ow = 128, oh = 96;
    const double slope = tan(20.0 * 3.14159265358979 / 180.0);
    float *in = malloc(sizeof(float) * 4 * w * h), *out = malloc(sizeof(float) * 4 * ow * oh);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = (y + 0.5) > 20.3 + slope * (x + 0.5) ? 1.0f : 0.0f;
            for (int c = 0; c < 3; c++)
                in[4 * (y * w + x) + c] = v;
            in[4 * (y * w + x) + 3] = 1;
        }
    double err[2];
    float *without = malloc(sizeof(float) * 4 * ow * oh);
    for (int with = 0; with < 2; with++) {
        unsigned flags = UPF_SPATIAL_NO_NETWORK | (with ? 0 : UPF_SPATIAL_NO_SMAA);
        CHECK_OK(ctx, run_once(ctx, upf_spatial_params(.src_width = w, .src_height = h,
                     .dst_width = ow, .dst_height = oh, .models = set, .flags = flags), in, out));
        if (!with)
            memcpy(without, out, sizeof(float) * 4 * ow * oh);
        double sum = 0;
        int n = 0;
        for (int y = 8; y < oh - 8; y++)
            for (int x = 8; x < ow - 8; x++) {
                /* exact coverage of the output pixel, 16x16 samples, in input coordinates */
                int hits = 0;
                for (int j = 0; j < 16; j++)
                    for (int i = 0; i < 16; i++) {
                        double ix = (x + (i + 0.5) / 16) * w / ow, iy = (y + (j + 0.5) / 16) * h / oh;
                        hits += iy > 20.3 + slope * ix;
                    }
                double cov = hits / 256.0;
                if ((cov > 0 && cov < 1) || fabs(out[4 * (y * ow + x)] - cov) > 0.02) {
                    sum += fabs(out[4 * (y * ow + x)] - cov);
                    n++;
                }
            }
        err[with] = sum / (n ? n : 1);
    }
    printf("spatial: 20-degree edge at 2x, mean error near the edge: bilinear %.4f, SMAA + "
           "bilinear %.4f\n", err[0], err[1]);
    CHECK(err[1] < 0.8 * err[0]);
    /* A model with UPF_MODEL_FLAG_NO_SMAA runs as UPF_SPATIAL_NO_SMAA does, bit for bit. */
    CHECK_OK(ctx, run_once(ctx, upf_spatial_params(.src_width = w, .src_height = h,
                 .dst_width = ow, .dst_height = oh, .models = no_smaa,
                 .flags = UPF_SPATIAL_NO_NETWORK), in, out));
    CHECK(memcmp(out, without, sizeof(float) * 4 * ow * oh) == 0);
    free(without);
    free(in);
    free(out);
}

/* The log's last warning, for the checks on what the engine says. */
typedef struct log_catch {
    char last[512];
    int warnings;
} log_catch;

static void catch_log(void *priv, upf_log_level level, const char *msg)
{
    log_catch *c = priv;
    if (level == UPF_LOG_WARN) {
        c->warnings++;
        snprintf(c->last, sizeof c->last, "%s", msg);
    }
}

/* The engine's output computed by hand from its kernels: convert (clamp to [0, 1]), the three
 * SMAA passes, then pass 4 (upf__reconstruct), which takes alpha from the 2-bit frame. */
static void by_hand(upf_context *ctx, const upf_models *set, const float *in, int w, int h,
                    int ow, int oh, float sharpness, float *out)
{
    const size_t px = (size_t)w * h;
    float *linear = malloc(px * 16), *luma = malloc(px * 4);
    uint32_t *edges = malloc((size_t)upf__smaa_blocks(w) * upf__smaa_blocks(h) * 4);
    uint32_t *frame = malloc(px * 4);
    uint8_t *weights = malloc(px * 4), *area = malloc(UPF_SMAA_AREA_BYTES);
    for (size_t i = 0; i < px * 4; i++)
        linear[i] = in[i] > 0.0f ? (in[i] < 1.0f ? in[i] : 1.0f) : 0.0f;
    upf__smaa_area_table(area);
    upf__smaa_edges(ctx, linear, w, h, luma, edges, frame);
    upf__smaa_weights(ctx, edges, w, h, area, weights);
    upf__smaa_blend(ctx, linear, weights, w, h, frame);
    const upf__net_model *model = &set->model[upf__models_choose(set, w, h, ow, oh)];
    size_t bytes = upf__reconstruct_scratch_bytes(upf_context_threads(ctx), model->step, w, h, ow);
    void *scratch = malloc(bytes);
    const upf__sqrt_frame f = { frame, w, h, 0 };
    upf_image dst = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    CHECK_OK(ctx, upf__reconstruct(ctx, model, &f, &dst, sharpness, scratch, bytes));
    free(scratch);
    free(linear), free(luma), free(edges), free(frame), free(weights), free(area);
}

/* Catmull-Rom (B = 0, C = 0.5). */
static double catmull_rom(double x)
{
    x = fabs(x);
    return x < 1 ? 1.5 * x * x * x - 2.5 * x * x + 1
           : x < 2 ? -0.5 * x * x * x + 2.5 * x * x - 4 * x + 2
                   : 0;
}

/* The float64 reference of the output's alpha: the base's filter on the input's alpha
 * (bilinear with positions clamped to the picture, or Catmull-Rom with edge pixels repeated
 * and the result clamped to [0, 1]), at u = (X + 0.5) * in / out - 0.5. */
static double alpha_reference(const float *in, int w, int h, int ow, int oh, int x, int y,
                              bool cubic)
{
    double u = ((2.0 * x + 1) * w - ow) / (2.0 * ow), v = ((2.0 * y + 1) * h - oh) / (2.0 * oh);
    if (!cubic) {
        u = fmin(fmax(u, 0), w - 1);
        v = fmin(fmax(v, 0), h - 1);
        int x0 = (int)floor(u), y0 = (int)floor(v);
        int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
        double fx = u - x0, fy = v - y0;
#define A(px, py) (double)in[4 * ((size_t)(py) * w + (px)) + 3]
        double top = (1 - fy) * A(x0, y0) + fy * A(x0, y1);
        double bottom = (1 - fy) * A(x1, y0) + fy * A(x1, y1);
        return (1 - fx) * top + fx * bottom;
    }
    int xi = (int)floor(u), yi = (int)floor(v);
    double wx[4], wy[4], sx = 0, sy = 0;
    for (int j = 0; j < 4; j++) {
        wx[j] = catmull_rom(u - (xi - 1 + j));
        wy[j] = catmull_rom(v - (yi - 1 + j));
        sx += wx[j];
        sy += wy[j];
    }
    double acc = 0;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
            int px = xi - 1 + i, py = yi - 1 + j;
            px = px < 0 ? 0 : px >= w ? w - 1 : px;
            py = py < 0 ? 0 : py >= h ? h - 1 : py;
            acc += wx[i] / sx * wy[j] / sy * A(px, py);
        }
#undef A
    return fmin(fmax(acc, 0), 1);
}

/* Issue 10, items 1 and 2: what the 10:10:10:2 frame cannot hold (alpha beyond 2 bits, values
 * above 1) is neither cut nor clipped; pictures in [0, 1] are exactly as before. */
static void test_alpha_and_range(upf_context *ctx, const upf_models *bilinear_set,
                                 const upf_models *cubic_set, test_rng *rng)
{
    const int w = 26, h = 17, ow = 52, oh = 31;
    const upf_models *sets[2] = { bilinear_set, cubic_set };
    float *in = random_image(rng, w, h), *out = malloc(sizeof(float) * 4 * ow * oh);
    float *hand = malloc(sizeof(float) * 4 * ow * oh);
    for (int k = 0; k < 2; k++) {
        if (!sets[k])
            continue;
        const upf_spatial_params *p = upf_spatial_params(.src_width = w, .src_height = h,
            .dst_width = ow, .dst_height = oh, .models = sets[k], .sharpness = 1);
        /* Opaque, within [0, 1]: bit for bit what the kernels give by hand. */
        for (int i = 0; i < w * h; i++)
            in[4 * i + 3] = 1.0f;
        CHECK_OK(ctx, run_once(ctx, p, in, out));
        by_hand(ctx, sets[k], in, w, h, ow, oh, 1.0f, hand);
        CHECKF(memcmp(out, hand, sizeof(float) * 4 * ow * oh) == 0,
               "%s base: a picture in [0, 1] differs from the kernels by hand", k ? "cubic" : "bilinear");
        /* Translucent: the colour as before; alpha at full precision (it came out in 18
         * distinct values from the 10:10:10:2 frame's 2 bits). */
        for (int i = 0; i < w * h; i++)
            in[4 * i + 3] = (float)((i % w) * 7 % w) / (float)(w - 1) * 0.99f + (i / w) * 1e-4f;
        CHECK_OK(ctx, run_once(ctx, p, in, out));
        by_hand(ctx, sets[k], in, w, h, ow, oh, 1.0f, hand);
        bool rgb_same = true;
        double worst = 0;
        for (int i = 0; i < ow * oh; i++) {
            rgb_same &= memcmp(out + 4 * i, hand + 4 * i, 3 * sizeof(float)) == 0;
            double want = alpha_reference(in, w, h, ow, oh, i % ow, i / ow, k == 1);
            worst = fmax(worst, fabs(out[4 * i + 3] - want));
        }
        CHECKF(rgb_same, "%s base: translucent picture's colour changed", k ? "cubic" : "bilinear");
        /* float32 sums of at most 16 taps of values <= 1, against float64: a few ulps */
        CHECKF(worst < 1e-5, "%s base: alpha off by %.3g from the float64 filter",
               k ? "cubic" : "bilinear", worst);
    }

    /* HDR: a flat frame at 50 comes out at 50 (it was clipped to 1), a gradient 0..100 keeps
     * its highlights, and the log says nothing (a tone map is not a warning). */
    const upf_models *set = cubic_set ? cubic_set : bilinear_set;
    log_catch lc = { "", 0 };
    upf_context *lctx = upf_context_create(upf_context_params(.threads = 2, .log = catch_log,
                                                              .log_priv = &lc));
    const upf_spatial_params *p = upf_spatial_params(.src_width = w, .src_height = h,
        .dst_width = ow, .dst_height = oh, .models = set, .sharpness = 1);
    for (int i = 0; i < w * h; i++)
        in[4 * i] = in[4 * i + 1] = in[4 * i + 2] = 50.0f, in[4 * i + 3] = 1.0f;
    CHECK_OK(lctx, run_once(lctx, p, in, out));
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < ow * oh; i++)
        for (int c = 0; c < 3; c++)
            lo = fmin(lo, out[4 * i + c]), hi = fmax(hi, out[4 * i + c]);
    /* The frame's 10-bit sqrt code near the top of the tone curve (50/51 = 0.98) moves the
     * value by up to ~1.5%; the network's detail on a flat window is small. */
    CHECKF(lo > 49.0 * 0.97 && hi < 51.0 * 1.03, "flat 50 came out in %g..%g", lo, hi);
    for (int i = 0; i < w * h; i++)
        for (int c = 0; c < 3; c++)
            in[4 * i + c] = 100.0f * (float)(i % w) / (float)(w - 1) * (c == 1 ? 0.5f : 1.0f);
    CHECK_OK(lctx, run_once(lctx, p, in, out));
    hi = 0;
    for (int i = 0; i < ow * oh; i++)
        hi = fmax(hi, out[4 * i]);
    CHECKF(hi > 90 && hi < 110, "a gradient to 100 peaks at %g", hi);
    CHECK_EQ_INT(lc.warnings, 0);
    /* Negative values are clamped to 0, exactly as 0 input, and the log says so. */
    float *clamped = malloc(sizeof(float) * 4 * w * h);
    float *o2 = malloc(sizeof(float) * 4 * ow * oh);
    for (int i = 0; i < w * h * 4; i++) {
        in[i] = test_rand_float(rng);
        if (i % 7 == 0 && i % 4 != 3)
            in[i] = -in[i];
        clamped[i] = in[i] < 0 ? 0 : in[i];
    }
    CHECK_OK(lctx, run_once(lctx, p, in, out));
    CHECK(lc.warnings == 1 && strstr(lc.last, "below 0") && strstr(lc.last, "taken as 0"));
    CHECK_OK(lctx, run_once(lctx, p, clamped, o2));
    CHECK(memcmp(out, o2, sizeof(float) * 4 * ow * oh) == 0);
    upf_context_destroy(&lctx);
    free(clamped), free(o2);
    free(in), free(out), free(hand);
}

typedef struct spatial_run_args {
    upf_spatial *sp;
    const upf_image *src, *dst;
    upf_result result;
} spatial_run_args;

static void *spatial_run_thread(void *arg)
{
    spatial_run_args *a = arg;
    a->result = upf_spatial_run(a->sp, a->src, a->dst);
    return NULL;
}

/* Issue 10, items 6 and 7 for the engine: a second run while one is in progress on another
 * thread fails (it shared every buffer: wrong output, crashes); the memory query says what
 * create then takes; the pixel limit holds; calls with a NULL output say so instead of
 * leaving the last failure's message. */
static void test_limits_and_misuse(const upf_models *set, test_rng *rng)
{
    test_hold h = TEST_HOLD_INIT;
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 1,
        .parallel_for = test_hold_parallel_for, .parallel_for_priv = &h));
    const int w = 20, hh = 14, ow = 40, oh = 28;
    upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(.src_width = w,
        .src_height = hh, .dst_width = ow, .dst_height = oh, .models = set, .sharpness = 1));
    CHECK(sp != NULL);
    float *in = random_image(rng, w, hh);
    float *o1 = malloc(sizeof(float) * 4 * ow * oh), *o2 = malloc(sizeof(float) * 4 * ow * oh);
    upf_image src = { in, w, hh, 0, UPF_FORMAT_RGBA32F };
    upf_image d1 = { o1, ow, oh, 0, UPF_FORMAT_RGBA32F }, d2 = { o2, ow, oh, 0, UPF_FORMAT_RGBA32F };
    spatial_run_args first = { sp, &src, &d1, UPF_ERROR_INTERNAL };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, spatial_run_thread, &first) == 0);
    test_hold_wait(&h);
    CHECK_FAILS(ctx, upf_spatial_run(sp, &src, &d2), UPF_ERROR_INVALID_ARGUMENT,
                "upf_spatial_run: the spatial engine is already running a call on another "
                "thread");
    test_hold_release(&h);
    pthread_join(t, NULL);
    CHECK_EQ_INT(first.result, UPF_OK);
    CHECK_OK(ctx, upf_spatial_run(sp, &src, &d2));
    CHECK(memcmp(o1, o2, sizeof(float) * 4 * ow * oh) == 0);

    /* A NULL output names itself (it returned INVALID_ARGUMENT with the previous message). */
    double ms[UPF_SPATIAL_PASS_COUNT];
    int pw;
    upf_context_destroy(&ctx); /* refused: the engine lives */
    CHECK(ctx != NULL);
    CHECK_FAILS(ctx, upf_spatial_timings(sp, NULL), UPF_ERROR_INVALID_ARGUMENT,
                "upf_spatial_timings: ms is NULL");
    CHECK_OK(ctx, upf_spatial_timings(sp, ms));
    CHECK_EQ_INT(upf_context_last_error(ctx, NULL), UPF_OK);
    CHECK_FAILS(ctx, upf_spatial_debug_size(sp, UPF_SPATIAL_PASS_EDGES, &pw, NULL),
                UPF_ERROR_INVALID_ARGUMENT, "upf_spatial_debug_size: height is NULL");
    upf_spatial_destroy(&sp);
    upf_context_destroy(&ctx);
    CHECK(ctx == NULL);
    free(in), free(o1), free(o2);

    /* The memory query against what create takes, with the caller's models and the
     * built-in ones. */
    const upf_allocator a = TEST_SIZING_ALLOCATOR;
    for (int threads = 1; threads <= 3; threads += 2) {
        upf_context *mc = upf_context_create(upf_context_params(.threads = threads, .allocator = &a));
        upf_models *own = upf_models_default(mc);
        const upf_models *sets[2] = { set, NULL };
        for (int k = 0; k < (own ? 2 : 1); k++) {
            int iw = test_rand_int(rng, 8, 120), ih = test_rand_int(rng, 8, 90);
            const upf_spatial_params *p = upf_spatial_params(.src_width = iw, .src_height = ih,
                .dst_width = iw * 2 - test_rand_int(rng, 0, iw / 2), .dst_height = ih * 2,
                .models = sets[k], .sharpness = 1, .flags = (unsigned)test_rand_int(rng, 0, 3));
            size_t bytes = 0;
            CHECK_OK(mc, upf_spatial_memory(mc, p, &bytes));
            long long before = atomic_load(&test_live_bytes);
            upf_spatial *e = upf_spatial_create(mc, p);
            CHECK(e != NULL);
            long long held = atomic_load(&test_live_bytes) - before;
            CHECKF(held == (long long)bytes, "%dx%d -> %dx%d flags %u, %s models: memory query "
                   "%zu, holds %lld", p->src_width, p->src_height, p->dst_width, p->dst_height,
                   p->flags, k ? "built-in" : "given", bytes, held);
            upf_spatial_destroy(&e);
        }
        upf_models_destroy(&own);
        /* 16384^2 -> 16384^2: the query answers (gigabytes); create refuses, by the limit. */
        size_t big = 0;
        const upf_spatial_params *huge = upf_spatial_params(.src_width = 16384,
            .src_height = 16384, .dst_width = 16384, .dst_height = 16384, .models = set);
        CHECK_OK(mc, upf_spatial_memory(mc, huge, &big));
        CHECK(big > ((size_t)4 << 30));
        long long before = atomic_load(&test_live_bytes);
        CHECK(upf_spatial_create(mc, huge) == NULL);
        CHECK_FAILS(mc, upf_context_last_error(mc, NULL), UPF_ERROR_INVALID_ARGUMENT,
                    "upf_spatial_create: the source is 16384x16384 = 268435456 pixels");
        CHECK_EQ_INT(atomic_load(&test_live_bytes), before); /* nothing was taken */
        CHECK_FAILS(mc, upf_spatial_memory(mc, upf_spatial_params(.src_width = 8,
                    .src_height = 8, .dst_width = 4, .dst_height = 4, .models = set), &big),
                    UPF_ERROR_INVALID_ARGUMENT, "1 to 4");
        upf_context_destroy(&mc);
    }
    CHECK_EQ_INT(atomic_load(&test_live_bytes), 0);
}

static void test_clamp_and_tiny(upf_context *ctx, const upf_models *set, test_rng *rng)
{
    float *o1 = NULL, *o2 = NULL;

    /* Tiny and odd sizes work and give finite, non-negative output. */
    const int tiny[][4] = { { 1, 1, 1, 1 }, { 1, 1, 4, 4 }, { 3, 5, 6, 10 }, { 2, 9, 7, 30 }, { 5, 3, 20, 12 } };
    for (size_t k = 0; k < sizeof tiny / sizeof tiny[0]; k++) {
        float *ti = random_image(rng, tiny[k][0], tiny[k][1]);
        float to[30 * 30 * 4];
        CHECK_OK(ctx, run_once(ctx, upf_spatial_params(.src_width = tiny[k][0],
                     .src_height = tiny[k][1], .dst_width = tiny[k][2], .dst_height = tiny[k][3],
                     .models = set, .sharpness = 1), ti, to));
        int bad = 0;
        for (int i = 0; i < tiny[k][2] * tiny[k][3] * 4; i++)
            bad += !(to[i] >= 0 && isfinite(to[i]));
        CHECKF(bad == 0, "%dx%d -> %dx%d: %d bad values", tiny[k][0], tiny[k][1], tiny[k][2],
               tiny[k][3], bad);
        free(ti);
    }
    free(o1);
    free(o2);
}

static void test_threads_choice_debug(upf_models *set, test_rng *rng)
{
    upf_context *c1 = test_context(1), *c3 = test_context(3);
    int w = 70, h = 45, ow = 140, oh = 90;
    float *in = random_image(rng, w, h);
    /* some hard edges, so SMAA has work */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if ((x * 3 + y * 2) % 29 < 9)
                in[4 * (y * w + x)] = in[4 * (y * w + x) + 1] = in[4 * (y * w + x) + 2] = 0.9f;
    uint8_t *o1 = malloc(4 * (size_t)ow * oh), *o3 = malloc(4 * (size_t)ow * oh);
    upf_image src = { in, w, h, 0, UPF_FORMAT_RGBA32F };
    upf_spatial_params p = { w, h, ow, oh, 1.0f, set, 0 };
    upf_spatial *s1 = upf_spatial_create(c1, &p), *s3 = upf_spatial_create(c3, &p);
    CHECK(s1 && s3);
    upf_image d1 = { o1, ow, oh, 0, UPF_FORMAT_RGBA8_SRGB }, d3 = { o3, ow, oh, 0, UPF_FORMAT_RGBA8_SRGB };
    if (s1 && s3) {
        int pw, ph;
        uint8_t pic[4];
        upf_image tiny_pic = { pic, 1, 1, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_FAILS(c1, upf_spatial_debug_image(s1, UPF_SPATIAL_PASS_EDGES, &tiny_pic),
                    UPF_ERROR_INVALID_ARGUMENT, "is 1x1; expected 70x45");
        CHECK_OK(c1, upf_spatial_run(s1, &src, &d1));
        CHECK_OK(c3, upf_spatial_run(s3, &src, &d3));
        CHECK(memcmp(o1, o3, 4 * (size_t)ow * oh) == 0);
        CHECK_EQ_INT(upf_spatial_model_step(s1), 6);
        double ms[UPF_SPATIAL_PASS_COUNT];
        CHECK_OK(c1, upf_spatial_timings(s1, ms));
        for (int i = 0; i < UPF_SPATIAL_PASS_COUNT; i++)
            CHECK(ms[i] >= 0);
        /* Debug pictures: sizes, and the edge picture marks edges. */
        CHECK_OK(c1, upf_spatial_debug_size(s1, UPF_SPATIAL_PASS_DETAIL, &pw, &ph));
        CHECK(pw == 140 && ph == 90);
        CHECK_FAILS(c1, upf_spatial_debug_size(s1, UPF_SPATIAL_PASS_COMPOSE, &pw, &ph),
                    UPF_ERROR_INVALID_ARGUMENT, "has no picture");
        upf_spatial_pass passes[] = { UPF_SPATIAL_PASS_EDGES, UPF_SPATIAL_PASS_WEIGHTS,
                                      UPF_SPATIAL_PASS_BLEND, UPF_SPATIAL_PASS_DETAIL };
        for (int k = 0; k < 4; k++) {
            CHECK_OK(c1, upf_spatial_debug_size(s1, passes[k], &pw, &ph));
            /* padded rows: the picture honours the stride */
            size_t stride = (size_t)pw * 4 + 12;
            uint8_t *buf = calloc(stride, (size_t)ph);
            upf_image pic_img = { buf, pw, ph, stride, UPF_FORMAT_RGBA8_SRGB };
            CHECK_OK(c1, upf_spatial_debug_image(s1, passes[k], &pic_img));
            int lit = 0;
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++)
                    lit += buf[y * stride + 4 * x] > 0 || buf[y * stride + 4 * x + 1] > 0;
            CHECKF(lit > 0, "%s picture is empty", upf_spatial_pass_name(passes[k]));
            CHECK(buf[stride - 1] == 0); /* padding untouched */
            free(buf);
        }
    }
    upf_spatial_destroy(&s1);
    upf_spatial_destroy(&s3);

    /* Model choice with a partial set: only step 6 -> used for 1.5x (documented clamp). */
    const int only6[] = { 6 };
    upf_models *one = random_models(c1, rng, only6, 1, 0.1f);
    s1 = upf_spatial_create(c1, upf_spatial_params(.src_width = 20, .src_height = 20,
                                                   .dst_width = 30, .dst_height = 30, .models = one));
    CHECK(s1 && upf_spatial_model_step(s1) == 6);
    upf_spatial_destroy(&s1);
    upf_models_destroy(&one);
    /* The full set: 1.5x takes step 8, 1.25x step 9, 3.5x step 4. */
    const struct { int ow; int step; } choice[] = { { 30, 8 }, { 25, 9 }, { 70, 4 }, { 20, 10 }, { 40, 6 } };
    for (size_t k = 0; k < sizeof choice / sizeof choice[0]; k++) {
        s1 = upf_spatial_create(c1, upf_spatial_params(.src_width = 20, .src_height = 20,
                                                       .dst_width = choice[k].ow,
                                                       .dst_height = choice[k].ow, .models = set));
        CHECKF(s1 && upf_spatial_model_step(s1) == choice[k].step, "20 -> %d: step %d, expected %d",
               choice[k].ow, upf_spatial_model_step(s1), choice[k].step);
        upf_spatial_destroy(&s1);
    }
    free(in);
    free(o1);
    free(o3);
    upf_context_destroy(&c1);
    upf_context_destroy(&c3);
}

/* End to end on an evaluation view (docs/SCENES.md: street-walk, seed 1000304, frame 30)
 * rendered at 288x162, one sample per pixel at the upscalers' mip bias (log2(render/output) =
 * -1), upscaled 2x at sharpness 0 against the 576x324 reference at 16 samples per pixel:
 *  - models/rendered.upfm, trained on such rendered frames (SMAA, Catmull-Rom base), beats
 *    bilinear, the best classic filter on these scenes (docs/QUALITY.md);
 *  - the built-in set, trained on real games for their frames (sqrt-space Lanczos base, no
 *    SMAA: models/README.md), is not below its own base without the network and beats
 *    Lanczos-3 (linear light): its network still adds detail on a kind of frame it never saw. */
static void test_evaluation_frame(void)
{
    if (upf__default_models_size == 0) {
        printf("spatial: the evaluation frame check needs the built-in models; this build has "
               "none\n");
        return;
    }
    upf_context *ctx = test_context(0);
    scene *sc = NULL;
    CHECK_OK(ctx, scene_create(ctx, "street", 1000304, &sc));
    if (!sc) {
        upf_context_destroy(&ctx);
        return;
    }
    enum { W = 288, H = 162, OW = 576, OH = 324 };
    float *in = malloc(sizeof(float) * 4 * W * H), *ref = malloc(sizeof(float) * 4 * OW * OH);
    scene_buffers bin = { in, NULL, NULL, NULL }, bref = { ref, NULL, NULL, NULL };
    CHECK_OK(ctx, scene_render(sc, scene_view_params(.path = "walk", .time = 1.0, .width = W,
                                                     .height = H, .mip_bias = -1.0), &bin, NULL));
    CHECK_OK(ctx, scene_render(sc, scene_view_params(.path = "walk", .time = 1.0, .width = OW,
                                                     .height = OH, .spp = 16), &bref, NULL));
    static uint8_t in8[W * H * 4], ref8[OW * OH * 4], out8[OW * OH * 4];
    upf_image lin_in = { in, W, H, 0, UPF_FORMAT_RGBA32F }, lin_ref = { ref, OW, OH, 0, UPF_FORMAT_RGBA32F };
    upf_image src = { in8, W, H, 0, UPF_FORMAT_RGBA8_SRGB }, reference = { ref8, OW, OH, 0, UPF_FORMAT_RGBA8_SRGB };
    upf_image out = { out8, OW, OH, 0, UPF_FORMAT_RGBA8_SRGB };
    CHECK_OK(ctx, upf_resample(ctx, &lin_in, &src, UPF_FILTER_BILINEAR));     /* 1x: 8-bit copy */
    CHECK_OK(ctx, upf_resample(ctx, &lin_ref, &reference, UPF_FILTER_BILINEAR));
    upf_psnr_result bilinear, lanczos;
    CHECK_OK(ctx, upf_resample(ctx, &src, &out, UPF_FILTER_BILINEAR));
    CHECK_OK(ctx, upf_metric_psnr(ctx, &reference, &out, NULL, &bilinear));
    CHECK_OK(ctx, upf_resample(ctx, &src, &out, UPF_FILTER_LANCZOS3));
    CHECK_OK(ctx, upf_metric_psnr(ctx, &reference, &out, NULL, &lanczos));

    upf_models *rendered = NULL;
    {
        static unsigned char file[1 << 18];
        FILE *f = fopen(UPF_SOURCE_DIR "/models/rendered.upfm", "rb");
        const size_t n = f ? fread(file, 1, sizeof file, f) : 0;
        if (f)
            fclose(f);
        CHECKF(n > 0 && n < sizeof file, "cannot read models/rendered.upfm");
        rendered = upf_models_load(ctx, file, n);
        CHECK(rendered != NULL);
    }
    /* [0]: the rendered-data set; [1]: the built-in set; [2]: the built-in set's base. */
    const upf_models *sets[3] = { rendered, NULL, NULL };
    const unsigned flags[3] = { 0, 0, UPF_SPATIAL_NO_NETWORK };
    double psnr[3] = { 0, 0, 0 };
    for (int k = 0; k < 3; k++) {
        if (k == 0 && !rendered)
            continue;
        upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(.src_width = W,
            .src_height = H, .dst_width = OW, .dst_height = OH, .models = sets[k],
            .flags = flags[k]));
        CHECK(sp != NULL);
        upf_psnr_result r = { 0 };
        if (sp) {
            CHECK_OK(ctx, upf_spatial_run(sp, &src, &out));
            CHECK_OK(ctx, upf_metric_psnr(ctx, &reference, &out, NULL, &r));
        }
        psnr[k] = r.rgb;
        upf_spatial_destroy(&sp);
    }
    printf("spatial: evaluation frame street-walk at 2x, PSNR: bilinear %.2f, Lanczos-3 %.2f, "
           "rendered-data models %.2f, built-in models %.2f (their base %.2f) dB\n",
           bilinear.rgb, lanczos.rgb, psnr[0], psnr[1], psnr[2]);
    if (rendered)
        CHECK(psnr[0] > bilinear.rgb);
    CHECK(psnr[1] >= psnr[2] - 0.01);
    CHECK(psnr[1] > lanczos.rgb);
    upf_models_destroy(&rendered);
    scene_destroy(&sc);
    free(in);
    free(ref);
    upf_context_destroy(&ctx);
}

/* The sRGB-Lanczos base where the network is off (strength 0, as the built-in set has it at
 * five ratios): into an 8-bit sRGB image the engine stores the base's sRGB sums as they are
 * (compose.c's direct store); that must be the codes the general path gives (linear RGBA32F,
 * then encoded) but at rounding ties, and Lanczos-3 on the file's own values, the classic
 * resampler on the bytes as if linear, away from the border (the resampler's edge taps are
 * its own), within a code. */
static void test_srgb_base_direct(upf_context *ctx, test_rng *rng)
{
    const int steps[] = { 4, 5, 6, 7, 8, 9, 10 };
    upf_models *set = random_models_flags(ctx, rng, steps, 7, 0.2f,
                                          UPF_MODEL_FLAG_SRGB_LANCZOS_BASE |
                                              UPF_MODEL_FLAG_NO_SMAA);
    for (int i = 0; set && i < set->count; i++)
        set->model[i].detail_strength = 0.0f;
    const int w = 61, h = 37, ow = 97, oh = 59;
    uint8_t *in = malloc((size_t)w * h * 4), *got = malloc((size_t)ow * oh * 4),
            *lz = malloc((size_t)ow * oh * 4);
    float *lin = malloc(sizeof(float) * 4 * (size_t)ow * oh);
    for (int i = 0; i < w * h * 4; i++) /* smooth areas, edges and noise */
        in[i] = (uint8_t)((i % 4 == 3) ? 255
                          : ((i / 4) % w < w / 2) ? test_rand_int(rng, 0, 255)
                                                  : (((i / 4) / w) * 7 + (i % 4) * 40) % 256);
    const upf_image src = { in, w, h, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image d8 = { got, ow, oh, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image df = { lin, ow, oh, 0, UPF_FORMAT_RGBA32F };
    upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(.src_width = w, .src_height = h,
                                                                  .dst_width = ow,
                                                                  .dst_height = oh,
                                                                  .models = set,
                                                                  .sharpness = 0));
    CHECK(sp != NULL);
    CHECK_OK(ctx, upf_spatial_run(sp, &src, &d8));
    CHECK_OK(ctx, upf_spatial_run(sp, &src, &df));
    upf_spatial_destroy(&sp);
    upf_image s_raw = src, l_raw = { lz, ow, oh, 0, UPF_FORMAT_RGBA8_UNORM };
    s_raw.format = UPF_FORMAT_RGBA8_UNORM;
    CHECK_OK(ctx, upf_resample(ctx, &s_raw, &l_raw, UPF_FILTER_LANCZOS3));
    int worst_general = 0, ties = 0, worst_lanczos = 0;
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++)
            for (int c = 0; c < 3; c++) {
                const size_t i = 4 * ((size_t)y * ow + x) + (size_t)c;
                const int g = got[i], general = upf_linear_to_srgb8(lin[i]);
                worst_general = UPF_MAX(worst_general, abs(g - general));
                ties += g != general;
                if (x >= 5 && y >= 5 && x < ow - 5 && y < oh - 5)
                    worst_lanczos = UPF_MAX(worst_lanczos, abs(g - (int)lz[i]));
            }
    printf("sRGB base, strength 0: direct store against the general path: largest %d code, %d "
           "of %d values; against Lanczos-3 on the bytes: largest %d\n", worst_general, ties,
           3 * ow * oh, worst_lanczos);
    CHECK(worst_general <= 1 && ties <= 3 * ow * oh / 100);
    CHECK(worst_lanczos <= 1);
    free(in);
    free(got);
    free(lz);
    free(lin);
    upf_models_destroy(&set);
}

int main(void)
{
    test_rng rng = test_rng_make("spatial");
    upf_context *ctx = test_context(2);
    const int steps[] = { 4, 5, 6, 7, 8, 9, 10 };
    upf_models *set = random_models(ctx, &rng, steps, 7, 0.2f);
    test_arguments(ctx, set);
    test_against_reference(ctx, set, &rng);
    upf_models *no_smaa = random_models_flags(ctx, &rng, steps, 7, 0.2f, UPF_MODEL_FLAG_NO_SMAA);
    test_smaa_helps(ctx, set, no_smaa);
    upf_models_destroy(&no_smaa);
    upf_models *cubic = random_models_flags(ctx, &rng, steps, 7, 0.2f, UPF_MODEL_FLAG_CUBIC_BASE);
    test_alpha_and_range(ctx, set, cubic, &rng);
    upf_models_destroy(&cubic);
    test_limits_and_misuse(set, &rng);
    test_clamp_and_tiny(ctx, set, &rng);
    test_threads_choice_debug(set, &rng);
    test_evaluation_frame();
    test_srgb_base_direct(ctx, &rng);
    CHECK(strcmp(upf_spatial_pass_name(UPF_SPATIAL_PASS_DETAIL), "detail") == 0);
    CHECK(strcmp(upf_spatial_pass_name((upf_spatial_pass)42), "unknown") == 0);
    upf_models_destroy(&set);
    upf_context_destroy(&ctx);
    return test_finish("spatial");
}
