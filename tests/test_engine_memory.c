/* test_engine_memory.c: tools/common/engine_memory.h, the bytes an engine will take, told
 * from two small creations (issue 35 item 13: interpolate and temporal refuse up front what
 * would not fit). The estimate is checked against the bytes counted when the engine is made
 * at full size, for the frame generation engine (flow, vectors at a render size) and the
 * temporal engine (with and without the spatial fill), at sizes of odd proportions. */
#include <math.h>

#include "common/engine_memory.h"
#include "test_util.h"

typedef struct interp_spec {
    int w, h, mw, mh;
} interp_spec;

static int scaled(int n, double s)
{
    long v = lround(n * s);
    return v < 1 ? 1 : (int)v;
}

static void *make_interp(upf_context *ctx, double s, void *priv)
{
    const interp_spec *p = priv;
    return upf_interpolate_create(ctx, upf_interpolate_params(
        .width = scaled(p->w, s), .height = scaled(p->h, s),
        .motion_width = p->mw ? scaled(p->mw, s) : 0, .motion_height = p->mh ? scaled(p->mh, s)
                                                                              : 0));
}

static void destroy_interp(void *e)
{
    upf_interpolate *p = e;
    upf_interpolate_destroy(&p);
}

static void *make_temporal(upf_context *ctx, double s, void *priv)
{
    const upf_temporal_params *p = priv;
    upf_temporal_params q = *p;
    q.render_width = scaled(p->render_width, s);
    q.render_height = scaled(p->render_height, s);
    q.output_width = (int)fmin(4 * q.render_width, fmax(q.render_width,
                                                       lround(p->output_width * s)));
    q.output_height = (int)fmin(4 * q.render_height, fmax(q.render_height,
                                                         lround(p->output_height * s)));
    return upf_temporal_create(ctx, &q);
}

static void destroy_temporal(void *e)
{
    upf_temporal *t = e;
    upf_temporal_destroy(&t);
}

/* The estimate within 3% of the count (the planes round their sizes; fixed tables). */
static void check(const char *what, engine_memory_make make, engine_memory_destroy destroy,
                  void *priv, double pixels)
{
    double est = 0, real = 0;
    CHECK(engine_memory_bytes(make, destroy, priv, pixels, &est) == UPF_OK);
    CHECK(engine_memory_counted(make, destroy, priv, &real) == UPF_OK);
    CHECKF(real > 0 && fabs(est - real) <= 0.03 * real, "%s: estimated %.0f bytes, counted %.0f",
           what, est, real);
}

int main(void)
{
    interp_spec flow = { 1283, 719, 0, 0 }, vec = { 1280, 720, 961, 541 }, small = { 300, 200,
                                                                                     0, 0 };
    check("interpolate, flow", make_interp, destroy_interp, &flow, 1283.0 * 719);
    check("interpolate, vectors", make_interp, destroy_interp, &vec, 1280.0 * 720);
    check("interpolate, small (exact)", make_interp, destroy_interp, &small, 300.0 * 200);
    upf_temporal_params t = { .render_width = 853, .render_height = 481, .output_width = 1707,
                              .output_height = 962 };
    check("temporal", make_temporal, destroy_temporal, &t, 1707.0 * 962);
    t.flags = UPF_TEMPORAL_SPATIAL_FILL;
    check("temporal, spatial fill", make_temporal, destroy_temporal, &t, 1707.0 * 962);
    /* params the engine refuses are reported, not estimated */
    interp_spec bad = { 100, 100, 200, 200 };
    double b = 0;
    CHECK(engine_memory_bytes(make_interp, destroy_interp, &bad, 1e4, &b) != UPF_OK);
    return test_finish("engine_memory");
}
