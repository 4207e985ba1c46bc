/* spatial.c: the spatial engine (upf_spatial_*): chains the passes of DESIGN.md "The spatial
 * engine" over intermediate images allocated once at creation.
 *
 *   src (any colour format)
 *    -> convert   linear RGBA float, W*H*4 (clamped to [0, 1])            this file
 *    -> edges     luma W*H, edge words ceil(W/4)*ceil(H/4), sqrt frame    smaa_edges.c
 *    -> weights   RGBA8 blending weights W*H*4                            smaa_weights.c
 *    -> blend     the sqrt 10:10:10:2 frame W*H (blended pixels rewritten) smaa_blend.c
 *    -> detail    the network's detail map (model ratio 12/s)             reconstruct.c
 *    -> compose   bilinear(frame) + detail, squared, sharpened -> dst     reconstruct.c
 *
 * Each pass is timed (upf_spatial_timings) and the intermediates stay until the next run, so
 * they can be looked at (upf_spatial_debug_image). */
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/color.h"
#include "core/image.h"
#include "spatial/reconstruct.h"
#include "spatial/smaa.h"

struct upf_spatial {
    upf_context *ctx;
    int src_w, src_h, dst_w, dst_h;
    float sharpness;
    unsigned flags;
    upf_models *own_models;        /* the built-in set, when the caller gave none */
    const upf__net_model *model;

    float *linear;                 /* W*H*4 */
    float *luma;                   /* W*H (pass 1's scratch) */
    uint32_t *edges;               /* ceil(W/4)*ceil(H/4) */
    uint8_t *area;                 /* the 192x128 RG area table */
    uint8_t *weights;              /* W*H*4 */
    uint32_t *frame;               /* W*H: the sqrt frame */
    float *detail;                 /* the detail map */
    upf__detail_map map;
    void *detail_scratch, *compose_scratch;
    size_t detail_scratch_bytes, compose_scratch_bytes;

    int *bad_x;                    /* per row: the first non-finite pixel's x, or -1 */
    const upf_image *src;          /* during a run: the input being converted */
    double ms[UPF_SPATIAL_PASS_COUNT];
    bool has_run;
};

const char *upf_spatial_pass_name(upf_spatial_pass pass)
{
    static const char *const names[UPF_SPATIAL_PASS_COUNT] = {
        "convert", "edges", "weights", "blend", "detail", "compose"
    };
    return (int)pass >= 0 && pass < UPF_SPATIAL_PASS_COUNT ? names[pass] : "unknown";
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void upf_spatial_destroy(upf_spatial **ps)
{
    if (!ps || !*ps)
        return;
    upf_spatial *s = *ps;
    upf_context *ctx = s->ctx;
    upf_models_destroy(&s->own_models);
    void *bufs[] = { s->linear, s->luma, s->edges, s->area, s->weights, s->frame, s->detail,
                     s->detail_scratch, s->compose_scratch, s->bad_x };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        upf__free(ctx, bufs[i]);
    upf__free(ctx, s);
    *ps = NULL;
}

upf_spatial *upf_spatial_create(upf_context *ctx, const upf_spatial_params *p)
{
    static const char fn[] = "upf_spatial_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (!p) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the input and "
                  "output sizes", fn);
        return NULL;
    }
    if (upf__reconstruct_check_sizes(ctx, fn, p->src_width, p->src_height, p->dst_width,
                                     p->dst_height) != UPF_OK)
        return NULL;
    if (!(p->sharpness >= 0.0f && p->sharpness <= UPF_SPATIAL_SHARPNESS_MAX)) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: sharpness %g is out of range (expected "
                  "0 .. %g; 1 is the shipped look)", fn, (double)p->sharpness,
                  (double)UPF_SPATIAL_SHARPNESS_MAX);
        return NULL;
    }
    unsigned known = UPF_SPATIAL_NO_SMAA | UPF_SPATIAL_NO_NETWORK;
    if (p->flags & ~known) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: unknown flags 0x%x (expected "
                  "UPF_SPATIAL_NO_SMAA, UPF_SPATIAL_NO_NETWORK)", fn, p->flags & ~known);
        return NULL;
    }

    upf_spatial *s = upf__alloc(ctx, sizeof *s, "the spatial engine");
    if (!s)
        return NULL;
    s->ctx = ctx;
    s->src_w = p->src_width;
    s->src_h = p->src_height;
    s->dst_w = p->dst_width;
    s->dst_h = p->dst_height;
    s->sharpness = p->sharpness;
    s->flags = p->flags;

    const upf_models *set = p->models;
    if (!set) {
        s->own_models = upf_models_default(ctx);
        if (!s->own_models)
            goto fail;
        set = s->own_models;
    }
    if (upf_models_count(set) < 1) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the model set is empty", fn);
        goto fail;
    }
    s->model = &set->model[upf__models_choose(set, s->src_w, s->src_h, s->dst_w, s->dst_h)];

    size_t px = (size_t)s->src_w * (size_t)s->src_h;
    size_t words = (size_t)upf__smaa_blocks(s->src_w) * (size_t)upf__smaa_blocks(s->src_h);
    int threads = upf_context_threads(ctx);
    s->detail_scratch_bytes = upf__detail_scratch_bytes(threads);
    upf__detail_map_init(&s->map, s->model->step, s->model->flags, s->src_w, s->src_h, NULL);
    s->compose_scratch_bytes = upf__compose_scratch_bytes(threads, s->src_w, s->map.width,
                                                          s->dst_w);
    if (!(s->linear = upf__alloc_array(ctx, px, 16, "the linear input")) ||
        !(s->luma = upf__alloc_array(ctx, px, 4, "the luma plane")) ||
        !(s->edges = upf__alloc_array(ctx, words, 4, "the edge words")) ||
        !(s->area = upf__alloc(ctx, UPF_SMAA_AREA_BYTES, "the area table")) ||
        !(s->weights = upf__alloc_array(ctx, px, 4, "the blending weights")) ||
        !(s->frame = upf__alloc_array(ctx, px, 4, "the sqrt frame")) ||
        !(s->detail = upf__alloc(ctx, upf__detail_map_bytes(s->model->step, s->src_w, s->src_h),
                                 "the detail map")) ||
        !(s->detail_scratch = upf__alloc(ctx, s->detail_scratch_bytes, "the network scratch")) ||
        !(s->compose_scratch = upf__alloc(ctx, s->compose_scratch_bytes, "the compose scratch")) ||
        !(s->bad_x = upf__alloc_array(ctx, (size_t)s->src_h, sizeof(int), "row flags")))
        goto fail;
    upf__detail_map_init(&s->map, s->model->step, s->model->flags, s->src_w, s->src_h, s->detail);
    upf__smaa_area_table(s->area);
    upf__log(ctx, UPF_LOG_DEBUG, "spatial engine %dx%d -> %dx%d: model step %d (ratio %.3f), "
             "sharpness %g", s->src_w, s->src_h, s->dst_w, s->dst_h, s->model->step,
             12.0 / s->model->step, (double)s->sharpness);
    return s;
fail:
    upf_spatial_destroy(&s);
    return NULL;
}

int upf_spatial_model_step(const upf_spatial *s)
{
    return s ? s->model->step : 0;
}

/* ---- convert: any colour format -> linear RGBA in [0, 1] ------------------------------- */

static void convert_row(void *priv, int y, int worker)
{
    (void)worker;
    upf_spatial *s = priv;
    float *row = s->linear + (size_t)y * s->src_w * 4;
    s->bad_x[y] = upf__row_to_linear(s->src, y, 0, s->src_w, row);
    /* Clamp: the frame format holds [0, 1]; negative light is not light (documented). */
    for (int i = 0; i < s->src_w * 4; i++)
        row[i] = row[i] > 0.0f ? (row[i] < 1.0f ? row[i] : 1.0f) : 0.0f;
}

/* UPF_SPATIAL_NO_SMAA: the frame is the sqrt encoding of the input as it is. */
static void encode_row(void *priv, int y, int worker)
{
    (void)worker;
    upf_spatial *s = priv;
    size_t off = (size_t)y * s->src_w;
    upf__smaa_luma_row(s->linear + off * 4, s->src_w, s->luma + off, s->frame + off);
}

upf_result upf_spatial_run(upf_spatial *s, const upf_image *src, const upf_image *dst)
{
    static const char fn[] = "upf_spatial_run";
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf_context *ctx = s->ctx;
    upf__clear_error(ctx);
    upf_result r = upf__check_image(ctx, fn, "source image", src, UPF_FMTS_COLOR, s->src_w,
                                    s->src_h);
    if (r == UPF_OK)
        r = upf__check_image(ctx, fn, "destination image", dst, UPF_FMTS_COLOR, s->dst_w,
                             s->dst_h);
    if (r != UPF_OK)
        return r;

    double ms[UPF_SPATIAL_PASS_COUNT] = { 0 };
    double t = now_ms();
    s->src = src;
    upf__parallel_for(ctx, convert_row, s, s->src_h);
    s->src = NULL;
    for (int y = 0; y < s->src_h; y++) {
        if (s->bad_x[y] >= 0)
            return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: source pixel x=%d, y=%d is not "
                             "finite (NaN or Inf); expected finite linear light", fn,
                             s->bad_x[y], y);
    }
    ms[UPF_SPATIAL_PASS_CONVERT] = now_ms() - t;

    if (s->flags & UPF_SPATIAL_NO_SMAA) {
        t = now_ms();
        upf__parallel_for(ctx, encode_row, s, s->src_h);
        ms[UPF_SPATIAL_PASS_EDGES] = now_ms() - t;
    } else {
        t = now_ms();
        upf__smaa_edges(ctx, s->linear, s->src_w, s->src_h, s->luma, s->edges, s->frame);
        ms[UPF_SPATIAL_PASS_EDGES] = now_ms() - t;
        t = now_ms();
        upf__smaa_weights(ctx, s->edges, s->src_w, s->src_h, s->area, s->weights);
        ms[UPF_SPATIAL_PASS_WEIGHTS] = now_ms() - t;
        t = now_ms();
        upf__smaa_blend(ctx, s->linear, s->weights, s->src_w, s->src_h, s->frame);
        ms[UPF_SPATIAL_PASS_BLEND] = now_ms() - t;
    }

    upf__sqrt_frame frame = { s->frame, s->src_w, s->src_h, 0 };
    t = now_ms();
    if (s->flags & UPF_SPATIAL_NO_NETWORK) {
        memset(s->detail, 0, sizeof(float) * (size_t)s->map.width * (size_t)s->map.height);
    } else {
        r = upf__make_detail_map(ctx, s->model, &frame, &s->map, s->detail_scratch,
                                 s->detail_scratch_bytes);
        if (r != UPF_OK)
            return r;
    }
    ms[UPF_SPATIAL_PASS_DETAIL] = now_ms() - t;
    t = now_ms();
    r = upf__compose_output(ctx, &frame, &s->map, dst, s->sharpness, s->compose_scratch,
                            s->compose_scratch_bytes);
    if (r != UPF_OK)
        return r;
    ms[UPF_SPATIAL_PASS_COMPOSE] = now_ms() - t;
    memcpy(s->ms, ms, sizeof ms);
    s->has_run = true;
    return UPF_OK;
}

upf_result upf_spatial_timings(const upf_spatial *s, double ms[UPF_SPATIAL_PASS_COUNT])
{
    if (!s || !ms)
        return UPF_ERROR_INVALID_ARGUMENT;
    memcpy(ms, s->ms, sizeof s->ms);
    return UPF_OK;
}

/* ---- debug pictures --------------------------------------------------------------------- */

upf_result upf_spatial_debug_size(const upf_spatial *s, upf_spatial_pass pass, int *w, int *h)
{
    if (!s || !w || !h)
        return UPF_ERROR_INVALID_ARGUMENT;
    switch (pass) {
    case UPF_SPATIAL_PASS_EDGES:
    case UPF_SPATIAL_PASS_WEIGHTS:
    case UPF_SPATIAL_PASS_BLEND:
        *w = s->src_w;
        *h = s->src_h;
        return UPF_OK;
    case UPF_SPATIAL_PASS_DETAIL:
        *w = s->map.width;
        *h = s->map.height;
        return UPF_OK;
    default:
        return upf__fail(s->ctx, UPF_ERROR_INVALID_ARGUMENT, "upf_spatial_debug_size: pass %d "
                         "has no picture (expected edges, weights, blend or detail)", (int)pass);
    }
}

upf_result upf_spatial_debug_image(upf_spatial *s, upf_spatial_pass pass, const upf_image *out)
{
    static const char fn[] = "upf_spatial_debug_image";
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf_context *ctx = s->ctx;
    upf__clear_error(ctx);
    int w, h;
    upf_result r = upf_spatial_debug_size(s, pass, &w, &h);
    if (r != UPF_OK)
        return r;
    r = upf__check_image(ctx, fn, "picture", out, UPF_FMT_BIT(UPF_FORMAT_RGBA8_SRGB), w, h);
    if (r != UPF_OK)
        return r;
    if (!s->has_run)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the engine has not run yet; "
                         "call upf_spatial_run first", fn);
    if ((s->flags & UPF_SPATIAL_NO_SMAA) &&
        (pass == UPF_SPATIAL_PASS_EDGES || pass == UPF_SPATIAL_PASS_WEIGHTS))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the %s pass did not run "
                         "(UPF_SPATIAL_NO_SMAA)", fn, upf_spatial_pass_name(pass));
    /* The visualisers write tightly packed rows; copy row by row for a strided picture. */
    size_t row_bytes = (size_t)w * 4;
    bool packed = upf__stride(out) == row_bytes;
    uint8_t *dst = packed ? out->data : NULL;
    uint8_t *tmp = NULL;
    if (!packed) {
        tmp = upf__alloc_array(ctx, (size_t)h, row_bytes, "a debug picture");
        if (!tmp)
            return UPF_ERROR_OUT_OF_MEMORY;
        dst = tmp;
    }
    switch (pass) {
    case UPF_SPATIAL_PASS_EDGES:
        upf__smaa_edges_visualise(s->edges, w, h, dst);
        break;
    case UPF_SPATIAL_PASS_WEIGHTS:
        upf__smaa_weights_visualise(s->weights, w, h, dst);
        break;
    case UPF_SPATIAL_PASS_BLEND:
        upf__smaa_frame_visualise(s->frame, w, h, dst);
        break;
    default: /* detail: grey 0.5 is zero, 0..1 spans -0.25..+0.25 */
        for (size_t i = 0; i < (size_t)w * h; i++) {
            uint8_t v = (uint8_t)upf_unorm_from_float(0.5f + 2.0f * s->detail[i], 255);
            dst[4 * i] = dst[4 * i + 1] = dst[4 * i + 2] = v;
            dst[4 * i + 3] = 255;
        }
        break;
    }
    if (tmp) {
        for (int y = 0; y < h; y++)
            memcpy(upf__row(out, y), tmp + (size_t)y * row_bytes, row_bytes);
        upf__free(ctx, tmp);
    }
    return UPF_OK;
}
