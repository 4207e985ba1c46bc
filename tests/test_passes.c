/* test_passes.c: the pass lists (src/core/pass.h) and their runner.
 *
 *  - The spatial engine's tables (src/spatial/spatial.c): names unique, every pass's CPU file
 *    exists, constants are 32-bit fields, and the data flow holds in every configuration:
 *    a surface a pass reads is a host input, a table, or written by an earlier enabled pass;
 *    nothing writes an input or a table; every surface an enabled pass touches is made.
 *  - The runner: a run in two parts gives the same output as one, bit for bit; passes outside
 *    the range or disabled take no time; a failing pass stops the run and leaves the last
 *    timings; host images are checked against their surfaces; upf__passes_bytes counts what
 *    was allocated.
 *  - The list against the kernels: the frame and edge words the engine's passes convert ..
 *    blend make equal those of the SMAA kernels called one after the other by hand.
 *  - History pairs (a toy engine): the runner swaps HISTORY and HISTORY_NEXT after a run that
 *    wrote the partner, not after one that did not or that failed; a table whose history
 *    surface has no partner is refused. */
#include <sys/stat.h>

#include "core/image.h"
#include "spatial/smaa.h"
#include "spatial/spatial_passes.h"
#include "test_util.h"

static float *random_frame(test_rng *rng, int w, int h)
{
    float *p = malloc(sizeof(float) * 4 * (size_t)w * h);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        /* flat patches with hard steps, so SMAA has work */
        float v = ((i / 7) % 3 == 0) ? 0.9f : test_rand_float(rng) * 0.3f;
        for (int c = 0; c < 3; c++)
            p[4 * i + c] = v * (0.5f + 0.5f * (float)c / 2.0f);
        p[4 * i + 3] = 1.0f;
    }
    return p;
}

static void check_data_flow(const upf__passes *p, const char *what, bool spatial)
{
    uint32_t written = 0;
    for (int s = 0; s < p->surface_count; s++) {
        upf__surface_role role = p->surface_info[s].role;
        if (role == UPF__SURFACE_INPUT || role == UPF__SURFACE_TABLE ||
            role == UPF__SURFACE_HISTORY)
            written |= UPF__SURF(s);
    }
    for (int i = 0; i < p->pass_count; i++) {
        const upf__pass_info *ps = &p->pass[i];
        if (!p->enabled[i])
            continue;
        for (int s = 0; s < p->surface_count; s++) {
            upf__surface_role role = p->surface_info[s].role;
            if (ps->reads & UPF__SURF(s))
                CHECKF(written & UPF__SURF(s), "%s: pass %s reads %s before any pass wrote it",
                       what, ps->name, p->surface_info[s].name);
            if (ps->writes & UPF__SURF(s))
                CHECKF(role != UPF__SURFACE_INPUT && role != UPF__SURFACE_TABLE,
                       "%s: pass %s writes the %s %s", what, ps->name,
                       role == UPF__SURFACE_INPUT ? "input" : "table", p->surface_info[s].name);
            /* A surface an enabled pass uses must exist, except the edge words with NO_SMAA
             * (the edges pass only encodes then, and says so in its constants). */
            if ((ps->reads | ps->writes) & UPF__SURF(s)) {
                bool encode_only = spatial && i == UPF__SP_EDGES_PASS &&
                                   !((const upf__smaa_edges_con *)p->con[i])->detect &&
                                   s == UPF__SP_EDGES;
                CHECKF(encode_only || (p->surface[s].width > 0 && p->surface[s].height > 0),
                       "%s: pass %s uses %s, which is not made", what, ps->name,
                       p->surface_info[s].name);
            }
        }
        written |= ps->writes;
    }
}

static void test_tables(void)
{
    upf_context *ctx = test_context(1);
    const upf__spatial_config cfg = { .src_width = 37, .src_height = 23 };
    upf_spatial *s = upf__spatial_create(ctx, "test", &cfg);
    CHECK(s != NULL);
    if (!s) {
        upf_context_destroy(&ctx);
        return;
    }
    const upf__passes *p = upf__spatial_passes(s);
    CHECK_EQ_INT(p->pass_count, UPF_SPATIAL_PASS_COUNT);
    CHECK_EQ_INT(p->surface_count, UPF__SP_COUNT);
    for (int i = 0; i < p->pass_count; i++) {
        CHECK(strcmp(p->pass[i].name, upf_spatial_pass_name((upf_spatial_pass)i)) == 0);
        CHECKF(p->pass[i].con_size % 4 == 0, "pass %s: constants of %zu bytes",
               p->pass[i].name, p->pass[i].con_size);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(p->pass[i].name, p->pass[j].name) != 0);
        char path[4096];
        snprintf(path, sizeof path, "%s/src/spatial/%s.c", UPF_SOURCE_DIR, p->pass[i].file);
        struct stat st;
        CHECKF(stat(path, &st) == 0, "pass %s: no file %s", p->pass[i].name, path);
        CHECK(p->pass[i].writes != 0);
        CHECK(p->pass[i].picture < 0 || p->surface_info[p->pass[i].picture].picture);
    }
    for (int a = 0; a < p->surface_count; a++) {
        CHECK(p->surface_info[a].name && p->surface_info[a].what);
        CHECK((p->surface_info[a].format == UPF__SURFACE_HOST) ==
              (p->surface_info[a].role == UPF__SURFACE_INPUT ||
               p->surface_info[a].role == UPF__SURFACE_OUTPUT));
        for (int b = 0; b < a; b++)
            CHECK(strcmp(p->surface_info[a].name, p->surface_info[b].name) != 0);
    }
    upf_spatial_destroy(&s);

    /* The data flow in every configuration of the public engine, with the built-in models as
     * they ship and with SMAA's blending on whatever they say (UPF_MODEL_FLAG_NO_SMAA). */
    upf_models *set = upf_models_default(ctx);
    if (!set) {
        printf("passes: no built-in models in this build; data flow with a model skipped\n");
    } else {
        for (unsigned config = 0; config < 8; config++) {
            const unsigned flags = config & 3;
            if (config == 4)
                for (int i = 0; i < set->count; i++)
                    set->model[i].flags &= ~UPF_MODEL_FLAG_NO_SMAA;
            const bool model_smaa = !(set->model[0].flags & UPF_MODEL_FLAG_NO_SMAA);
            upf_spatial *e = upf_spatial_create(ctx, upf_spatial_params(
                .src_width = 40, .src_height = 30, .dst_width = 80, .dst_height = 60,
                .models = set, .flags = flags));
            CHECK(e != NULL);
            if (!e)
                continue;
            char what[64];
            snprintf(what, sizeof what, "flags 0x%x, models %s", flags,
                     model_smaa ? "with SMAA" : "without SMAA");
            check_data_flow(upf__spatial_passes(e), what, true);
            const upf__passes *q = upf__spatial_passes(e);
            CHECK_EQ_INT(q->enabled[UPF_SPATIAL_PASS_WEIGHTS],
                         model_smaa && !(flags & UPF_SPATIAL_NO_SMAA));
            CHECK_EQ_INT(((const upf__detail_con *)q->con[UPF_SPATIAL_PASS_DETAIL])->network,
                         !(flags & UPF_SPATIAL_NO_NETWORK));
            upf_spatial_destroy(&e);
        }
        upf_models_destroy(&set);
    }
    upf_context_destroy(&ctx);
}

/* Bytes each surface of a 37x23 front half takes, counted by hand. */
static void test_bytes(void)
{
    upf_context *ctx = test_context(2);
    const int w = 37, h = 23;
    const upf__spatial_config cfg = { .src_width = w, .src_height = h };
    upf_spatial *s = upf__spatial_create(ctx, "test", &cfg);
    CHECK(s != NULL);
    if (s) {
        size_t px = (size_t)w * h, words = (size_t)10 * 6;
        size_t want = px * 16 + px * 4 + words * 4 + 192 * 128 * 2 + px * 4 + px * 4 + 16 +
                      (size_t)h * 6 * 4; /* linear, luma, edges, area, weights, frame, range
                                            (rgba32f, 1x1), convert's scratch (six 4-byte
                                            fields a row, convert.c) */
        CHECK_EQ_INT(upf__passes_bytes(upf__spatial_passes(s)), want);
        upf_spatial_destroy(&s);
    }
    upf_context_destroy(&ctx);
}

static void test_runner(upf_context *ctx, test_rng *rng)
{
    upf_models *set = upf_models_default(ctx);
    if (!set) {
        printf("passes: no built-in models in this build; runner test skipped\n");
        return;
    }
    const int w = 53, h = 31, ow = 106, oh = 62;
    float *in = random_frame(rng, w, h);
    uint8_t *a = malloc((size_t)ow * oh * 4), *b = malloc((size_t)ow * oh * 4);
    upf_image src = { in, w, h, 0, UPF_FORMAT_RGBA32F };
    upf_image da = { a, ow, oh, 0, UPF_FORMAT_RGBA8_SRGB }, db = { b, ow, oh, 0, UPF_FORMAT_RGBA8_SRGB };
    upf_spatial *s = upf_spatial_create(ctx, upf_spatial_params(
        .src_width = w, .src_height = h, .dst_width = ow, .dst_height = oh, .sharpness = 1.0f,
        .models = set));
    CHECK(s != NULL);
    if (s) {
        CHECK_OK(ctx, upf_spatial_run(s, &src, &da));
        memset(b, 0x55, (size_t)ow * oh * 4);
        CHECK_OK(ctx, upf__spatial_run_passes(s, "test", &src, NULL, 0, UPF_SPATIAL_PASS_WEIGHTS));
        const double *ms = upf__spatial_passes(s)->ms;
        CHECK(ms[UPF_SPATIAL_PASS_BLEND] == 0.0 && ms[UPF_SPATIAL_PASS_COMPOSE] == 0.0);
        CHECK_OK(ctx, upf__spatial_run_passes(s, "test", NULL, &db, UPF_SPATIAL_PASS_BLEND,
                                              UPF_SPATIAL_PASS_COMPOSE));
        CHECK(ms[UPF_SPATIAL_PASS_CONVERT] == 0.0);
        CHECK(memcmp(a, b, (size_t)ow * oh * 4) == 0);

        /* Host images are checked against their surfaces, named by what they are. */
        upf_image small = { a, ow - 1, oh, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_FAILS(ctx, upf_spatial_run(s, &src, &small), UPF_ERROR_INVALID_ARGUMENT,
                    "upf_spatial_run: destination image is 105x62; expected 106x62");
        CHECK_FAILS(ctx, upf__spatial_run_passes(s, "test", NULL, &da, 0, 5),
                    UPF_ERROR_INVALID_ARGUMENT, "source image is NULL");
        /* A failing pass (convert, on a NaN) stops the run; the last timings stay. */
        double before[UPF_SPATIAL_PASS_COUNT];
        memcpy(before, ms, sizeof before);
        in[4 * 5 + 2] = NAN;
        CHECK_FAILS(ctx, upf_spatial_run(s, &src, &da), UPF_ERROR_BAD_DATA, "x=5, y=0");
        CHECK(memcmp(before, ms, sizeof before) == 0);
        upf_spatial_destroy(&s);
    }

    /* NO_SMAA: weights and blend take no time; the edges picture is not made. */
    s = upf_spatial_create(ctx, upf_spatial_params(.src_width = w, .src_height = h,
                                                   .dst_width = ow, .dst_height = oh,
                                                   .models = set, .flags = UPF_SPATIAL_NO_SMAA));
    CHECK(s != NULL);
    if (s) {
        in[4 * 5 + 2] = 0.5f;
        CHECK_OK(ctx, upf_spatial_run(s, &src, &da));
        double ms[UPF_SPATIAL_PASS_COUNT];
        CHECK_OK(ctx, upf_spatial_timings(s, ms));
        CHECK(ms[UPF_SPATIAL_PASS_WEIGHTS] == 0.0 && ms[UPF_SPATIAL_PASS_BLEND] == 0.0);
        int pw, ph;
        /* a pass that does not run has no picture, known before any is asked for */
        CHECK_FAILS(ctx, upf_spatial_debug_size(s, UPF_SPATIAL_PASS_EDGES, &pw, &ph),
                    UPF_ERROR_UNSUPPORTED, "the edges pass does not run in this configuration");
        CHECK_OK(ctx, upf_spatial_debug_size(s, UPF_SPATIAL_PASS_BLEND, &pw, &ph));
        uint8_t *pic = malloc((size_t)pw * ph * 4);
        upf_image pimg = { pic, pw, ph, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_FAILS(ctx, upf_spatial_debug_image(s, UPF_SPATIAL_PASS_EDGES, &pimg),
                    UPF_ERROR_UNSUPPORTED, "does not run in this configuration");
        CHECK_OK(ctx, upf_spatial_debug_image(s, UPF_SPATIAL_PASS_BLEND, &pimg));
        free(pic);
        upf_spatial_destroy(&s);
    }
    upf_models_destroy(&set);
    free(in);
    free(a);
    free(b);
}

/* The engine's convert .. blend against the SMAA kernels called by hand on the same input. */
static void test_against_kernels(upf_context *ctx, test_rng *rng)
{
    const int w = test_rand_int(rng, 5, 90), h = test_rand_int(rng, 5, 70);
    float *in = random_frame(rng, w, h);
    const size_t px = (size_t)w * h;
    const int bw = upf__smaa_blocks(w), bh = upf__smaa_blocks(h);
    float *linear = malloc(px * 16), *luma = malloc(px * 4);
    uint32_t *edges = malloc((size_t)bw * bh * 4), *frame = malloc(px * 4);
    uint8_t *weights = malloc(px * 4), *area = malloc(UPF_SMAA_AREA_BYTES);
    for (size_t i = 0; i < px * 4; i++) /* what convert does: clamp to [0, 1] */
        linear[i] = in[i] < 0.0f ? 0.0f : in[i] > 1.0f ? 1.0f : in[i];
    upf__smaa_area_table(area);
    upf__smaa_edges(ctx, linear, w, h, luma, edges, frame);
    upf__smaa_weights(ctx, edges, w, h, area, weights);
    upf__smaa_blend(ctx, linear, weights, w, h, frame);

    const upf__spatial_config cfg = { .src_width = w, .src_height = h };
    upf_spatial *s = upf__spatial_create(ctx, "test", &cfg);
    CHECK(s != NULL);
    if (s) {
        upf_image src = { in, w, h, 0, UPF_FORMAT_RGBA32F };
        CHECK_OK(ctx, upf__spatial_run_passes(s, "test", &src, NULL, UPF_SPATIAL_PASS_CONVERT,
                                              UPF_SPATIAL_PASS_BLEND));
        CHECKF(memcmp(upf__spatial_surface(s, UPF__SP_FRAME)->data, frame, px * 4) == 0,
               "%dx%d: the frame differs", w, h);
        CHECKF(memcmp(upf__spatial_surface(s, UPF__SP_EDGES)->data, edges,
                      (size_t)bw * bh * 4) == 0, "%dx%d: the edge words differ", w, h);
        CHECKF(memcmp(upf__spatial_surface(s, UPF__SP_AREA)->data, area,
                      UPF_SMAA_AREA_BYTES) == 0, "the area table differs");
        upf_spatial_destroy(&s);
    }
    free(in);
    free(linear);
    free(luma);
    free(edges);
    free(frame);
    free(weights);
    free(area);
}

/* ---- history pairs: a toy engine counting runs ------------------------------------------ */

enum { TOY_HISTORY, TOY_NEXT, TOY_OUT, TOY_COUNT };

static upf_result toy_count(const upf__pass_args *a)
{
    const float *prev = a->surface[TOY_HISTORY].data;
    float *next = a->surface[TOY_NEXT].data;
    const int fail = *(const int *)a->con;
    for (int i = 0; i < 4; i++)
        next[i] = prev[i] + 1.0f + (float)i;
    return fail ? upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: told to fail", a->fn) : UPF_OK;
}

static upf_result toy_copy(const upf__pass_args *a)
{
    memcpy(a->surface[TOY_OUT].data, a->surface[TOY_NEXT].data, 4 * sizeof(float));
    return UPF_OK;
}

static void test_history(void)
{
    upf_context *ctx = test_context(1);
    static const upf__surface_info surf[TOY_COUNT] = {
        [TOY_HISTORY] = { "history", "the history", UPF__SURFACE_R32F, UPF__SURFACE_HISTORY, 0,
                          NULL },
        [TOY_NEXT] = { "next", "the next history", UPF__SURFACE_R32F,
                       UPF__SURFACE_HISTORY_NEXT, 0, NULL },
        [TOY_OUT] = { "out", "the copy", UPF__SURFACE_R32F, UPF__SURFACE_INTERMEDIATE, 0, NULL },
    };
    static const upf__pass_info pass[2] = {
        { "count", "count", UPF__SURF(TOY_HISTORY), UPF__SURF(TOY_NEXT), -1, sizeof(int),
          toy_count },
        { "copy", "copy", UPF__SURF(TOY_NEXT), UPF__SURF(TOY_OUT), -1, 0, toy_copy },
    };
    upf__passes p;
    CHECK_OK(ctx, upf__passes_init(&p, ctx, pass, 2, surf, TOY_COUNT, NULL));
    for (int i = 0; i < TOY_COUNT; i++)
        p.surface[i].width = 4, p.surface[i].height = 1;
    CHECK_OK(ctx, upf__passes_alloc(&p));
    check_data_flow(&p, "toy", false);
    for (int run = 1; run <= 3; run++)
        CHECK_OK(ctx, upf__passes_run(&p, "toy", NULL, 0, 1));
    const float *h = p.surface[TOY_HISTORY].data, *out = p.surface[TOY_OUT].data;
    for (int i = 0; i < 4; i++) { /* three runs, each adding 1 + i, all swapped in */
        CHECK_NEAR(h[i], 3.0f * (1.0f + (float)i), 0.0);
        CHECK_NEAR(out[i], h[i], 0.0);
    }
    /* a run of the copy alone writes no partner: no swap */
    CHECK_OK(ctx, upf__passes_run(&p, "toy", NULL, 1, 1));
    CHECK_NEAR(((const float *)p.surface[TOY_HISTORY].data)[0], 3.0f, 0.0);
    /* a failing run leaves the history as it was */
    *(int *)p.con[0] = 1;
    CHECK_FAILS(ctx, upf__passes_run(&p, "toy", NULL, 0, 1), UPF_ERROR_BAD_DATA, "told to fail");
    CHECK_NEAR(((const float *)p.surface[TOY_HISTORY].data)[0], 3.0f, 0.0);
    upf__passes_free(&p);

    /* a history without its partner right after it is a bug in the table */
    static const upf__surface_info orphan[2] = {
        { "history", "the history", UPF__SURFACE_R32F, UPF__SURFACE_HISTORY, 0, NULL },
        { "out", "the copy", UPF__SURFACE_R32F, UPF__SURFACE_INTERMEDIATE, 0, NULL },
    };
    CHECK_FAILS(ctx, upf__passes_init(&p, ctx, pass, 1, orphan, 2, NULL), UPF_ERROR_INTERNAL,
                "no partner");
    static const upf__surface_info mixed[2] = {
        { "history", "the history", UPF__SURFACE_R32F, UPF__SURFACE_HISTORY, 0, NULL },
        { "next", "the next", UPF__SURFACE_RGBA32F, UPF__SURFACE_HISTORY_NEXT, 0, NULL },
    };
    CHECK_FAILS(ctx, upf__passes_init(&p, ctx, pass, 1, mixed, 2, NULL), UPF_ERROR_INTERNAL,
                "same format");
    upf_context_destroy(&ctx);
}

int main(void)
{
    test_rng rng = test_rng_make("passes");
    upf_context *c1 = test_context(1), *c3 = test_context(3);
    test_tables();
    test_bytes();
    test_history();
    test_runner(c1, &rng);
    test_runner(c3, &rng);
    for (int k = 0; k < 4; k++)
        test_against_kernels(k & 1 ? c3 : c1, &rng);
    upf_context_destroy(&c1);
    upf_context_destroy(&c3);
    return test_finish("passes");
}
