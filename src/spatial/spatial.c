/* spatial.c: the spatial engine (upf_spatial_*): its pass list, its surfaces and the public
 * calls. The two tables below are the engine's whole data flow (spatial_passes.h lists them
 * with their files; docs/ARCHITECTURE.md draws them; docs/SPATIAL.md explains each pass).
 *
 * upf_spatial_create checks the sizes, picks the model, gives every surface its size, fills
 * each pass's constants and allocates every surface and scratch once (core/pass.h), so a run
 * allocates nothing. upf_spatial_run binds the caller's images and runs the list; the
 * intermediates stay until the next run, to be looked at (upf_spatial_debug_image). */
#include <stdatomic.h>
#include <string.h>

#include "core/color.h"
#include "core/image.h"
#include "spatial/reconstruct.h"
#include "spatial/smaa.h"
#include "spatial/spatial_passes.h"

struct upf_spatial {
    upf_context *ctx;
    upf__spatial_config cfg;
    upf_models *own_models;        /* the built-in set, when the caller gave none */
    upf__spatial_cpu cpu;          /* the model (the detail pass's CPU state) */
    upf__detail_map map;           /* the detail map's geometry */
    upf__passes passes;
    atomic_bool in_use;            /* a run is in progress (upf__enter) */
};

/* ---- pictures of the surfaces (--debug-passes) ------------------------------------------ */

static void picture_edges(const upf__passes *p, int s, uint8_t *rgba, int *w, int *h)
{
    *w = p->surface[UPF__SP_LINEAR].width;
    *h = p->surface[UPF__SP_LINEAR].height;
    if (rgba)
        upf__smaa_edges_visualise(p->surface[s].data, *w, *h, rgba);
}

static void picture_weights(const upf__passes *p, int s, uint8_t *rgba, int *w, int *h)
{
    *w = p->surface[s].width;
    *h = p->surface[s].height;
    if (rgba)
        upf__smaa_weights_visualise(p->surface[s].data, *w, *h, rgba);
}

static void picture_frame(const upf__passes *p, int s, uint8_t *rgba, int *w, int *h)
{
    *w = p->surface[s].width;
    *h = p->surface[s].height;
    if (rgba)
        upf__smaa_frame_visualise(p->surface[s].data, *w, *h, rgba);
}

/* The detail map: grey 0.5 is zero, 0..1 spans -0.25..+0.25. */
static void picture_detail(const upf__passes *p, int s, uint8_t *rgba, int *w, int *h)
{
    *w = p->surface[s].width;
    *h = p->surface[s].height;
    if (!rgba)
        return;
    const float *detail = p->surface[s].data;
    for (size_t i = 0; i < (size_t)*w * (size_t)*h; i++) {
        uint8_t v = (uint8_t)upf_unorm_from_float(0.5f + 2.0f * detail[i], 255);
        rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = v;
        rgba[4 * i + 3] = 255;
    }
}

/* ---- the tables ------------------------------------------------------------------------- */

static const upf__surface_info surfaces[UPF__SP_COUNT] = {
    [UPF__SP_SOURCE] = { "source", "source image", UPF__SURFACE_HOST, UPF__SURFACE_INPUT,
                         UPF_FMTS_COLOR, NULL },
    [UPF__SP_LINEAR] = { "linear", "the linear input", UPF__SURFACE_RGBA32F,
                         UPF__SURFACE_INTERMEDIATE, 0, NULL },
    [UPF__SP_LUMA] = { "luma", "the luma plane", UPF__SURFACE_R32F, UPF__SURFACE_SCRATCH, 0,
                       NULL },
    [UPF__SP_EDGES] = { "edges", "the edge words", UPF__SURFACE_R32UI,
                        UPF__SURFACE_INTERMEDIATE, 0, picture_edges },
    [UPF__SP_AREA] = { "area", "the area table", UPF__SURFACE_RG8, UPF__SURFACE_TABLE, 0, NULL },
    [UPF__SP_WEIGHTS] = { "weights", "the blending weights", UPF__SURFACE_RGBA8,
                          UPF__SURFACE_INTERMEDIATE, 0, picture_weights },
    [UPF__SP_FRAME] = { "frame", "the sqrt frame", UPF__SURFACE_RGB10A2,
                        UPF__SURFACE_INTERMEDIATE, 0, picture_frame },
    [UPF__SP_DETAIL] = { "detail", "the detail map", UPF__SURFACE_R32F,
                         UPF__SURFACE_INTERMEDIATE, 0, picture_detail },
    [UPF__SP_RANGE] = { "range", "the frame's range", UPF__SURFACE_RGBA32F,
                        UPF__SURFACE_INTERMEDIATE, 0, NULL },
    [UPF__SP_DEST] = { "destination", "destination image", UPF__SURFACE_HOST,
                       UPF__SURFACE_OUTPUT, UPF_FMTS_COLOR, NULL },
};

#define S UPF__SURF
static const upf__pass_info passes[UPF__SP_PASS_COUNT] = {
    [UPF__SP_CONVERT] = { "convert", "convert", S(UPF__SP_SOURCE),
                          S(UPF__SP_LINEAR) | S(UPF__SP_RANGE), -1, sizeof(upf__convert_con),
                          upf__convert_pass },
    [UPF__SP_EDGES_PASS] = { "edges", "smaa_edges", S(UPF__SP_LINEAR),
                             S(UPF__SP_LUMA) | S(UPF__SP_EDGES) | S(UPF__SP_FRAME),
                             UPF__SP_EDGES, sizeof(upf__smaa_edges_con), upf__smaa_edges_pass },
    [UPF__SP_WEIGHTS_PASS] = { "weights", "smaa_weights", S(UPF__SP_EDGES) | S(UPF__SP_AREA),
                               S(UPF__SP_WEIGHTS), UPF__SP_WEIGHTS,
                               sizeof(upf__smaa_weights_con), upf__smaa_weights_pass },
    [UPF__SP_BLEND] = { "blend", "smaa_blend",
                        S(UPF__SP_LINEAR) | S(UPF__SP_WEIGHTS) | S(UPF__SP_FRAME),
                        S(UPF__SP_FRAME), UPF__SP_FRAME, sizeof(upf__smaa_blend_con),
                        upf__smaa_blend_pass },
    [UPF__SP_DETAIL_PASS] = { "detail", "detail", S(UPF__SP_FRAME), S(UPF__SP_DETAIL),
                              UPF__SP_DETAIL, sizeof(upf__detail_con), upf__detail_pass },
    [UPF__SP_COMPOSE] = { "compose", "compose",
                          S(UPF__SP_FRAME) | S(UPF__SP_DETAIL) | S(UPF__SP_LINEAR) |
                              S(UPF__SP_RANGE),
                          S(UPF__SP_DEST), -1, sizeof(upf__compose_con), upf__compose_pass },
};
#undef S

const char *upf_spatial_pass_name(upf_spatial_pass pass)
{
    return (int)pass >= 0 && pass < UPF_SPATIAL_PASS_COUNT ? passes[pass].name : "unknown";
}

/* ---- creation ---------------------------------------------------------------------------- */

void upf_spatial_destroy(upf_spatial **ps)
{
    if (!ps || !*ps)
        return;
    upf_spatial *s = *ps;
    upf_context *ctx = s->ctx;
    upf__passes_free(&s->passes);
    upf_models_destroy(&s->own_models);
    upf__free(ctx, s);
    *ps = NULL;
}

void upf__spatial_surface_sizes(const upf__spatial_config *c, const upf__detail_map *m,
                                int width[UPF__SP_COUNT], int height[UPF__SP_COUNT])
{
    const int w = c->src_width, h = c->src_height, bw = upf__smaa_blocks(w),
              bh = upf__smaa_blocks(h);
    const bool smaa = !(c->flags & UPF_SPATIAL_NO_SMAA);
    const bool output = c->model && c->dst_width > 0;
    const struct { int index, width, height; } sizes[] = {
        { UPF__SP_SOURCE, w, h },       { UPF__SP_LINEAR, w, h },
        { UPF__SP_LUMA, w, h },         { UPF__SP_EDGES, smaa ? bw : 0, smaa ? bh : 0 },
        { UPF__SP_AREA, smaa ? UPF_SMAA_AREA_WIDTH : 0, smaa ? UPF_SMAA_AREA_HEIGHT : 0 },
        { UPF__SP_WEIGHTS, smaa ? w : 0, smaa ? h : 0 },
        { UPF__SP_FRAME, w, h },
        { UPF__SP_DETAIL, output ? m->width : 0, output ? m->height : 0 },
        { UPF__SP_RANGE, 1, 1 },
        { UPF__SP_DEST, output ? c->dst_width : 0, output ? c->dst_height : 0 },
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        width[sizes[i].index] = sizes[i].width;
        height[sizes[i].index] = sizes[i].height;
    }
}

/* Sizes, scratch and constants of every pass, from the configuration. */
static void plan(upf_spatial *s)
{
    const upf__spatial_config *c = &s->cfg;
    upf__passes *p = &s->passes;
    const int w = c->src_width, h = c->src_height;
    const int threads = upf_context_threads(s->ctx);
    const bool smaa = !(c->flags & UPF_SPATIAL_NO_SMAA);
    const bool output = c->model && c->dst_width > 0;

    int width[UPF__SP_COUNT], height[UPF__SP_COUNT];
    upf__spatial_surface_sizes(c, &s->map, width, height);
    for (int i = 0; i < UPF__SP_COUNT; i++) {
        p->surface[i].width = width[i];
        p->surface[i].height = height[i];
    }

    p->enabled[UPF__SP_WEIGHTS_PASS] = p->enabled[UPF__SP_BLEND] = smaa;
    p->enabled[UPF__SP_DETAIL_PASS] = p->enabled[UPF__SP_COMPOSE] = output;

    p->scratch_bytes[UPF__SP_CONVERT] = upf__convert_scratch_bytes(h);
    if (output && !(c->flags & UPF_SPATIAL_NO_NETWORK))
        p->scratch_bytes[UPF__SP_DETAIL_PASS] = upf__detail_scratch_bytes(threads);
    if (output)
        p->scratch_bytes[UPF__SP_COMPOSE] =
            upf__compose_scratch_bytes(threads, w, s->map.width, c->dst_width);
}

void upf__spatial_fill_constants(const upf__spatial_config *c, const upf__detail_map *m,
                                 void *const con[UPF__SP_PASS_COUNT])
{
    const int w = c->src_width, h = c->src_height, bw = upf__smaa_blocks(w),
              bh = upf__smaa_blocks(h);
    *(upf__convert_con *)con[UPF__SP_CONVERT] = (upf__convert_con){ w, h };
    *(upf__smaa_edges_con *)con[UPF__SP_EDGES_PASS] =
        (upf__smaa_edges_con){ w, h, bw, bh, !(c->flags & UPF_SPATIAL_NO_SMAA) };
    *(upf__smaa_weights_con *)con[UPF__SP_WEIGHTS_PASS] =
        (upf__smaa_weights_con){ w, h, bw, bh };
    *(upf__smaa_blend_con *)con[UPF__SP_BLEND] = (upf__smaa_blend_con){ w, h };
    if (!c->model)
        return;
    *(upf__detail_con *)con[UPF__SP_DETAIL_PASS] = (upf__detail_con){
        w, h, m->width, m->height, m->step, (m->width + UPF_NET_TILE - 1) / UPF_NET_TILE,
        (m->height + UPF_NET_TILE - 1) / UPF_NET_TILE, m->flags,
        !(c->flags & UPF_SPATIAL_NO_NETWORK)
    };
    *(upf__compose_con *)con[UPF__SP_COMPOSE] = (upf__compose_con){
        w, h, m->width, m->height, c->dst_width, c->dst_height, m->step, m->flags, c->sharpness
    };
}

const upf__pass_info *upf__spatial_pass_table(void)
{
    return passes;
}

const upf__surface_info *upf__spatial_surface_table(void)
{
    return surfaces;
}

/* The configuration, model geometry and plan of an engine, without taking anything: what
 * upf_spatial_memory measures. `s` is the caller's (not allocated). */
static upf_result describe(upf_spatial *s, upf_context *ctx, const upf__spatial_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->cfg = *cfg;
    s->cpu.model = cfg->model;
    if (cfg->model)
        upf__detail_map_init(&s->map, cfg->model->step, cfg->model->flags, cfg->src_width,
                             cfg->src_height, NULL);
    upf_result r = upf__passes_describe(&s->passes, ctx, passes, UPF__SP_PASS_COUNT, surfaces,
                                        UPF__SP_COUNT, &s->cpu);
    if (r == UPF_OK)
        plan(s);
    return r;
}

upf_spatial *upf__spatial_create(upf_context *ctx, const char *fn, const upf__spatial_config *cfg)
{
    upf_spatial *s = upf__alloc(ctx, sizeof *s, "the spatial engine");
    if (!s)
        return NULL;
    s->ctx = ctx;
    atomic_init(&s->in_use, false);
    s->cfg = *cfg;
    s->cpu.model = cfg->model;
    if (cfg->model)
        upf__detail_map_init(&s->map, cfg->model->step, cfg->model->flags, cfg->src_width,
                             cfg->src_height, NULL);
    if (upf__passes_init(&s->passes, ctx, passes, UPF__SP_PASS_COUNT, surfaces, UPF__SP_COUNT,
                         &s->cpu) != UPF_OK)
        goto fail;
    plan(s);
    if (cfg->area_table)
        upf__passes_lend(&s->passes, UPF__SP_AREA, (void *)cfg->area_table);
    if (upf__passes_alloc(&s->passes) != UPF_OK)
        goto fail;
    if (!cfg->area_table && s->passes.surface[UPF__SP_AREA].data)
        upf__smaa_area_table(s->passes.surface[UPF__SP_AREA].data);
    s->map.data = s->passes.surface[UPF__SP_DETAIL].data;
    upf__spatial_fill_constants(&s->cfg, &s->map, s->passes.con);
    upf__log(ctx, UPF_LOG_DEBUG, "%s: spatial engine %dx%d -> %dx%d, model step %d, sharpness "
             "%g, %zu bytes", fn, cfg->src_width, cfg->src_height, cfg->dst_width,
             cfg->dst_height, cfg->model ? cfg->model->step : 0, (double)cfg->sharpness,
             upf__passes_bytes(&s->passes));
    return s;
fail:
    upf_spatial_destroy(&s);
    return NULL;
}

/* The checks of upf_spatial_create's params (the pixel limit aside). */
upf_result upf__spatial_check_params(upf_context *ctx, const char *fn, const upf_spatial_params *p)
{
    if (!p)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the "
                         "input and output sizes", fn);
    upf_result r = upf__reconstruct_check_sizes(ctx, fn, p->src_width, p->src_height,
                                                p->dst_width, p->dst_height);
    if (r != UPF_OK)
        return r;
    if (!(p->sharpness >= 0.0f && p->sharpness <= UPF_SPATIAL_SHARPNESS_MAX))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: sharpness %g is out of range "
                         "(expected 0 .. %g; 1 is the design's look)", fn, (double)p->sharpness,
                         (double)UPF_SPATIAL_SHARPNESS_MAX);
    unsigned known = UPF_SPATIAL_NO_SMAA | UPF_SPATIAL_NO_NETWORK;
    if (p->flags & ~known)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: unknown flags 0x%x (expected "
                         "UPF_SPATIAL_NO_SMAA, UPF_SPATIAL_NO_NETWORK)", fn, p->flags & ~known);
    if (p->models && upf_models_count(p->models) < 1)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the model set is empty", fn);
    return UPF_OK;
}

/* The engine's configuration: the model for the sizes, and the caller's flags plus SMAA off
 * when that model says so (UPF_MODEL_FLAG_NO_SMAA: it was trained and measured without), and
 * the network off when the model's detail strength is 0 (its map would be all zeros: the
 * same picture without the network's work). */
upf__spatial_config upf__spatial_config_of(const upf_spatial_params *p, const upf_models *set)
{
    const upf__net_model *m = &set->model[upf__models_choose(set, p->src_width, p->src_height,
                                                             p->dst_width, p->dst_height)];
    return (upf__spatial_config){
        p->src_width, p->src_height, p->dst_width, p->dst_height, p->sharpness,
        p->flags | ((m->flags & UPF_MODEL_FLAG_NO_SMAA) ? UPF_SPATIAL_NO_SMAA : 0u) |
            (m->detail_strength == 0.0f ? UPF_SPATIAL_NO_NETWORK : 0u),
        m, NULL
    };
}

upf_result upf_spatial_memory(upf_context *ctx, const upf_spatial_params *p, size_t *bytes)
{
    static const char fn[] = "upf_spatial_memory";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!bytes)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: bytes is NULL; expected a "
                         "size_t to fill", fn);
    upf_result r = upf__spatial_check_params(ctx, fn, p);
    if (r != UPF_OK)
        return r;
    upf_models *own = NULL;
    const upf_models *set = p->models;
    if (!set && !(set = own = upf_models_default(ctx)))
        return upf_context_last_error(ctx, NULL);
    const upf__spatial_config cfg = upf__spatial_config_of(p, set);
    upf_spatial plan_only;
    r = describe(&plan_only, ctx, &cfg);
    if (r == UPF_OK)
        *bytes = sizeof(upf_spatial) + (own ? sizeof(upf_models) : 0) +
                 upf__passes_con_bytes(&plan_only.passes) + upf__passes_bytes(&plan_only.passes);
    upf_models_destroy(&own);
    return r;
}

upf_spatial *upf_spatial_create(upf_context *ctx, const upf_spatial_params *p)
{
    static const char fn[] = "upf_spatial_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (upf__spatial_check_params(ctx, fn, p) != UPF_OK ||
        upf__check_pixels(ctx, fn, "the source", p->src_width, p->src_height) != UPF_OK ||
        upf__check_pixels(ctx, fn, "the destination", p->dst_width, p->dst_height) != UPF_OK)
        return NULL;

    upf_models *own = NULL;
    const upf_models *set = p->models;
    if (!set) {
        if (!(own = upf_models_default(ctx)))
            return NULL;
        set = own;
    }
    const upf__spatial_config cfg = upf__spatial_config_of(p, set);
    upf_spatial *s = upf__spatial_create(ctx, fn, &cfg);
    if (s)
        s->own_models = own;
    else
        upf_models_destroy(&own);
    return s;
}

int upf_spatial_model_step(const upf_spatial *s)
{
    return s && s->cfg.model ? s->cfg.model->step : 0;
}

/* ---- running ----------------------------------------------------------------------------- */

upf_result upf__spatial_run_passes(upf_spatial *s, const char *fn, const upf_image *src,
                                   const upf_image *dst, int first, int last)
{
    const upf_image *images[UPF__SP_COUNT] = { 0 };
    images[UPF__SP_SOURCE] = src;
    images[UPF__SP_DEST] = dst;
    /* The host images a range needs must be there (the runner checks what is given). */
    if (first <= UPF__SP_CONVERT && !src)
        return upf__fail(s->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: source image is NULL", fn);
    if (last >= UPF__SP_COMPOSE && s->passes.enabled[UPF__SP_COMPOSE] && !dst)
        return upf__fail(s->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: destination image is NULL",
                         fn);
    /* Two runs at once would share every surface and scratch buffer: refuse the second. */
    upf_result r = upf__enter(s->ctx, &s->in_use, fn, "the spatial engine");
    if (r != UPF_OK)
        return r;
    r = upf__passes_run(&s->passes, fn, images, first, last);
    upf__leave(&s->in_use);
    return r;
}

upf_result upf_spatial_run(upf_spatial *s, const upf_image *src, const upf_image *dst)
{
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(s->ctx);
    return upf__spatial_run_passes(s, "upf_spatial_run", src, dst, 0, UPF__SP_PASS_COUNT - 1);
}

const upf__surface *upf__spatial_surface(const upf_spatial *s, int surface)
{
    return &s->passes.surface[surface];
}

const upf__passes *upf__spatial_passes(const upf_spatial *s)
{
    return &s->passes;
}

upf_result upf_spatial_timings(const upf_spatial *s, double ms[UPF_SPATIAL_PASS_COUNT])
{
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT; /* no context to hold a message */
    upf__clear_error(s->ctx);
    if (!ms)
        return upf__fail(s->ctx, UPF_ERROR_INVALID_ARGUMENT, "upf_spatial_timings: ms is NULL; "
                         "expected an array of UPF_SPATIAL_PASS_COUNT doubles");
    memcpy(ms, s->passes.ms, sizeof(double) * UPF_SPATIAL_PASS_COUNT);
    return UPF_OK;
}

/* ---- debug pictures --------------------------------------------------------------------- */

upf_result upf_spatial_debug_size(const upf_spatial *s, upf_spatial_pass pass, int *w, int *h)
{
    static const char fn[] = "upf_spatial_debug_size";
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT; /* no context to hold a message */
    upf__clear_error(s->ctx);
    if (!w || !h)
        return upf__fail(s->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL; expected an int "
                         "to fill", fn, !w ? "width" : "height");
    return upf__passes_picture_size(&s->passes, fn, (int)pass, w, h);
}

upf_result upf_spatial_debug_image(upf_spatial *s, upf_spatial_pass pass, const upf_image *out)
{
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(s->ctx);
    return upf__passes_picture(&s->passes, "upf_spatial_debug_image", (int)pass, out);
}
