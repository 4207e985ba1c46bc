/* upf_web.c: the web page's entry points into the library (docs/WEB.md). Compiled with the
 * library's own sources by emcc (web/CMakeLists.txt) and called from web/worker.js; also
 * compiled natively into tests/test_web_ref.c's checker, so the page's numbers can be compared
 * with the native library's.
 *
 * Reads: an RGBA8 sRGB picture and, optionally, a model file, both in the module's memory.
 * Writes: the upscaled picture (upf_spatial_run, pass by pass for the page's progress), and
 * the views of the network, each taken from the library's internals rather than recomputed:
 * the engine's surfaces (frame, detail map), the window's input and six stage outputs
 * (upf__detail_tile_luma, upf__detail_window_of_tile, upf__net_window_input,
 * upf__net_stage_ref), the chosen model's weights, the tile at each step of the
 * reconstruction (upf__compose_output with a zero map, then the map, then the sharpen) and
 * the model file's blocks (docs/MODELS.md, walked after upf_models_load accepted the file).
 *
 * One session per page: an opaque handle the caller creates and destroys; no global state.
 * Every call returns 0 on success or a upf_result, with upfw_error() saying what went wrong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "spatial/net.h"
#include "spatial/reconstruct.h"
#include "spatial/spatial_passes.h"
#include "upf_web.h"

struct upfw_session {
    upf_context *ctx;
    upf_models *models;            /* the set the page runs: the built-in one or the user's */
    upf_spatial *sp;
    int in_w, in_h, out_w, out_h;
    float sharpness;
    unsigned flags;
    int model_index;               /* in `models`: the model the engine runs */
    uint8_t *src, *dst;            /* RGBA8 sRGB, in_w x in_h and out_w x out_h */
    uint8_t *steps;                /* 3 RGBA8 outputs: base, + detail, sharpened (lazy) */
    int next_pass;                 /* the next pass upfw_run_pass runs */
    char flags_text[128];
    char error[1024];
};

static int fail(upfw_session *s, int code, const char *msg)
{
    snprintf(s->error, sizeof s->error, "%s", msg);
    return code ? code : UPF_ERROR_INVALID_ARGUMENT;
}

static int fail_upf(upfw_session *s, upf_result r)
{
    const char *msg = NULL;
    upf_context_last_error(s->ctx, &msg);
    return fail(s, (int)r, msg && *msg ? msg : upf_result_string(r));
}

upfw_session *upfw_create(void)
{
    upfw_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* One worker: the page runs in one Web Worker (no threads in this build). */
    s->ctx = upf_context_create(upf_context_params(.threads = 1));
    if (!s->ctx || !(s->models = upf_models_default(s->ctx))) {
        upf_context_destroy(&s->ctx);
        free(s);
        return NULL;
    }
    return s;
}

upf_context *upfw_context(upfw_session *s)
{
    return s->ctx;
}

static void drop_engine(upfw_session *s)
{
    upf_spatial_destroy(&s->sp);
    free(s->src);
    free(s->dst);
    free(s->steps);
    s->src = s->dst = s->steps = NULL;
}

void upfw_destroy(upfw_session *s)
{
    if (!s)
        return;
    drop_engine(s);
    upf_models_destroy(&s->models);
    upf_context_destroy(&s->ctx);
    free(s);
}

const char *upfw_error(const upfw_session *s)
{
    return s ? s->error : "no session";
}

int upfw_load_models(upfw_session *s, const void *data, size_t size)
{
    upf_models *m = data ? upf_models_load(s->ctx, data, size) : upf_models_default(s->ctx);
    if (!m)
        return fail_upf(s, UPF_ERROR_BAD_DATA);
    drop_engine(s); /* the engine keeps a pointer to the set it was made with */
    upf_models_destroy(&s->models);
    s->models = m;
    return 0;
}

/* Makes the engine for these sizes and copies the picture in; upfw_run_pass then runs it. */
int upfw_begin(upfw_session *s, const uint8_t *rgba, int w, int h, int out_w, int out_h,
               float sharpness, unsigned flags)
{
    drop_engine(s);
    s->sp = upf_spatial_create(s->ctx, upf_spatial_params(.src_width = w, .src_height = h,
                                                          .dst_width = out_w,
                                                          .dst_height = out_h,
                                                          .sharpness = sharpness,
                                                          .models = s->models,
                                                          .flags = flags));
    if (!s->sp)
        return fail_upf(s, UPF_ERROR_INVALID_ARGUMENT);
    s->src = malloc((size_t)w * (size_t)h * 4);
    s->dst = malloc((size_t)out_w * (size_t)out_h * 4);
    if (!s->src || !s->dst) {
        drop_engine(s);
        return fail(s, UPF_ERROR_OUT_OF_MEMORY, "out of memory for the pictures");
    }
    memcpy(s->src, rgba, (size_t)w * (size_t)h * 4);
    s->in_w = w, s->in_h = h, s->out_w = out_w, s->out_h = out_h;
    s->sharpness = sharpness;
    s->flags = flags;
    s->model_index = upf__models_choose(s->models, w, h, out_w, out_h);
    s->next_pass = 0;
    return 0;
}

/* Runs the next pass (convert, edges, ...); returns 0 and sets *done when compose ran. */
int upfw_run_pass(upfw_session *s, int *done)
{
    if (!s->sp)
        return fail(s, UPF_ERROR_INVALID_ARGUMENT, "upfw_run_pass: no picture (upfw_begin)");
    const upf_image src = { s->src, s->in_w, s->in_h, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image dst = { s->dst, s->out_w, s->out_h, 0, UPF_FORMAT_RGBA8_SRGB };
    const int p = s->next_pass;
    upf_result r = upf__spatial_run_passes(s->sp, "upf_spatial_run", &src,
                                           p == UPF_SPATIAL_PASS_COMPOSE ? &dst : NULL, p, p);
    if (r != UPF_OK)
        return fail_upf(s, r);
    s->next_pass++;
    *done = s->next_pass == UPF_SPATIAL_PASS_COUNT;
    return 0;
}

const uint8_t *upfw_output(const upfw_session *s)
{
    return s->dst;
}

int upfw_model_step(const upfw_session *s)
{
    return s->sp ? upf_spatial_model_step(s->sp) : 0;
}

/* The pass's debug picture (upf_spatial_debug_image) into a buffer the caller frees. */
uint8_t *upfw_debug_picture(upfw_session *s, int pass, int *w, int *h)
{
    if (!s->sp || upf_spatial_debug_size(s->sp, (upf_spatial_pass)pass, w, h) != UPF_OK)
        return NULL;
    uint8_t *px = malloc((size_t)*w * (size_t)*h * 4);
    const upf_image img = { px, *w, *h, 0, UPF_FORMAT_RGBA8_SRGB };
    if (px && upf_spatial_debug_image(s->sp, (upf_spatial_pass)pass, &img) != UPF_OK) {
        free(px);
        return NULL;
    }
    return px;
}

/* ---- the network's views ------------------------------------------------------------------ */

static const upf__net_model *model_of(const upfw_session *s, int index)
{
    if (index < 0)
        index = s->model_index;
    return index < s->models->count ? &s->models->model[index] : NULL;
}

int upfw_models_count(const upfw_session *s)
{
    return s->models->count;
}

/* Model `index` (-1: the engine's): step, flags, strength, and its 6 x 4 x 256 weights. */
const float *upfw_model_weights(const upfw_session *s, int index)
{
    const upf__net_model *m = model_of(s, index);
    return m ? &m->w[0][0][0] : NULL;
}

int upfw_model_step_of(const upfw_session *s, int index)
{
    const upf__net_model *m = model_of(s, index);
    return m ? m->step : 0;
}

double upfw_model_strength(const upfw_session *s, int index)
{
    const upf__net_model *m = model_of(s, index);
    return m ? m->detail_strength : 0.0;
}

const char *upfw_model_flags(upfw_session *s, int index)
{
    const upf__net_model *m = model_of(s, index);
    if (!m)
        return "";
    upf__model_flags_text(m->flags, s->flags_text, sizeof s->flags_text);
    return s->flags_text;
}

const char *upfw_model_provenance(const upfw_session *s, int index)
{
    const upf__net_model *m = model_of(s, index);
    return m ? m->provenance : "";
}

/* Tiles of the detail map across and down (48x48 detail pixels, 4s x 4s input pixels). */
int upfw_tiles(upfw_session *s, int *tiles_x, int *tiles_y)
{
    if (!s->sp)
        return fail(s, UPF_ERROR_INVALID_ARGUMENT, "no upscale has run");
    const upf__surface *d = upf__spatial_surface(s->sp, UPF__SP_DETAIL);
    *tiles_x = (d->width + UPF_NET_TILE - 1) / UPF_NET_TILE;
    *tiles_y = (d->height + UPF_NET_TILE - 1) / UPF_NET_TILE;
    return 0;
}

/* Window (wx, wy) of tile (tx, ty) of the last run's frame: out[0..255] the window's luma,
 * out[256..511] stage 1's input (the window-mean flag's 4 * (Y - mean)), then the six stages'
 * outputs, 256 values each (8 x 256 in all), and block[0..143] the engine's own detail map
 * there (NaN beyond the map's edge). */
int upfw_window(upfw_session *s, int tx, int ty, int wx, int wy, float *out, float *block)
{
    int nx, ny;
    if (upfw_tiles(s, &nx, &ny) != 0)
        return UPF_ERROR_INVALID_ARGUMENT;
    if (tx < 0 || ty < 0 || tx >= nx || ty >= ny || wx < 0 || wy < 0 || wx > 3 || wy > 3)
        return fail(s, UPF_ERROR_INVALID_ARGUMENT, "no such tile or window");
    const upf__net_model *m = model_of(s, -1);
    const upf__surface *f = upf__spatial_surface(s->sp, UPF__SP_FRAME);
    const upf__sqrt_frame frame = { f->data, f->width, f->height, 0 };
    float patch[UPF_NET_TILE_LUMA(UPF_MODEL_STEP_MAX) * UPF_NET_TILE_LUMA(UPF_MODEL_STEP_MAX)];
    upf__detail_tile_luma(&frame, m->step, tx, ty, patch);
    upf__detail_window_of_tile(patch, m->step, wx, wy, out);
    upf__net_window_input(m->flags, out, out + UPF_NET_WINDOW);
    for (int k = 0; k < UPF_NET_STAGES; k++)
        upf__net_stage_ref(m, k, out + (k + 1) * UPF_NET_WINDOW, out + (k + 2) * UPF_NET_WINDOW);

    const upf__surface *d = upf__spatial_surface(s->sp, UPF__SP_DETAIL);
    const float *map = d->data;
    for (int r = 0; r < UPF_NET_BLOCK; r++) {
        for (int c = 0; c < UPF_NET_BLOCK; c++) {
            int x = UPF_NET_TILE * tx + UPF_NET_BLOCK * wx + c;
            int y = UPF_NET_TILE * ty + UPF_NET_BLOCK * wy + r;
            block[r * UPF_NET_BLOCK + c] = x < d->width && y < d->height
                                               ? map[(size_t)y * (size_t)d->width + (size_t)x]
                                               : NAN;
        }
    }
    return 0;
}

/* The reconstruction's steps over the whole output, each RGBA8 sRGB out_w x out_h: the base
 * alone (a map of zeros), the base plus the detail map squared back to linear light (no
 * sharpen), and that sharpened at `sharpness` (compose's own code, upf__compose_output, on the
 * engine's frame and map). Returns the three pictures one after the other. */
const uint8_t *upfw_steps(upfw_session *s, float sharpness)
{
    if (!s->sp) {
        fail(s, UPF_ERROR_INVALID_ARGUMENT, "no upscale has run");
        return NULL;
    }
    const upf__net_model *m = model_of(s, -1);
    const upf__surface *f = upf__spatial_surface(s->sp, UPF__SP_FRAME);
    const upf__surface *d = upf__spatial_surface(s->sp, UPF__SP_DETAIL);
    const upf__sqrt_frame frame = { f->data, f->width, f->height, 0 };
    const size_t pic = (size_t)s->out_w * (size_t)s->out_h * 4;
    size_t scratch_bytes = upf__compose_scratch_bytes(1, f->width, d->width, s->out_w);
    size_t zero_bytes = (size_t)d->width * (size_t)d->height * sizeof(float);
    free(s->steps);
    s->steps = malloc(3 * pic);
    void *scratch = malloc(scratch_bytes);
    float *zeros = calloc(1, zero_bytes);
    upf_result r = UPF_ERROR_OUT_OF_MEMORY;
    if (s->steps && scratch && zeros) {
        upf__detail_map zmap, map;
        upf__detail_map_init(&zmap, m->step, m->flags, f->width, f->height, zeros);
        zmap.zero = 1;
        upf__detail_map_init(&map, m->step, m->flags, f->width, f->height, d->data);
        map.zero = m->detail_strength == 0.0f; /* as the compose pass says (compose.c) */
        const float sharp[3] = { 0.0f, 0.0f, sharpness };
        for (int k = 0; k < 3 && (k == 0 || r == UPF_OK); k++) {
            const upf_image dst = { s->steps + k * pic, s->out_w, s->out_h, 0,
                                    UPF_FORMAT_RGBA8_SRGB };
            r = upf__compose_output(s->ctx, &frame, k ? &map : &zmap, &dst, sharp[k], scratch,
                                    scratch_bytes);
        }
    }
    free(scratch);
    free(zeros);
    if (r != UPF_OK) {
        free(s->steps);
        s->steps = NULL;
        fail_upf(s, r);
    }
    return s->steps;
}

/* ---- the model file's blocks (docs/MODELS.md, "The file, byte by byte") ------------------- */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Fills blocks[] with (kind, model, offset, size) for each block of a file upf_models_load
 * accepted: kind 0 the header, 1 a model's header, 2 its provenance, 3 its weights (one
 * block per stage), 4 the checksum. Returns the number of blocks, or -1 when the file does
 * not load. */
int upfw_file_blocks(upfw_session *s, const uint8_t *data, size_t size, int *blocks, int max)
{
    upf_models *check = upf_models_load(s->ctx, data, size);
    if (!check) {
        fail_upf(s, UPF_ERROR_BAD_DATA);
        return -1;
    }
    const int count = check->count;
    upf_models_destroy(&check);
    const size_t head = le32(data + 8) >= 2 ? 20 : 16;
    int n = 0;
#define BLOCK(kind, model, off, len)                                                       \
    do {                                                                                   \
        if (n < max) {                                                                     \
            blocks[4 * n] = (kind), blocks[4 * n + 1] = (model);                           \
            blocks[4 * n + 2] = (int)(off), blocks[4 * n + 3] = (int)(len);                \
        }                                                                                  \
        n++;                                                                               \
    } while (0)
    size_t at = 16;
    BLOCK(0, -1, 0, 16);
    for (int i = 0; i < count; i++) {
        size_t p = le32(data + at + 12);
        BLOCK(1, i, at, head);
        if (p)
            BLOCK(2, i, at + head, p);
        at += head + p;
        for (int st = 0; st < UPF_NET_STAGES; st++)
            BLOCK(3, i, at + (size_t)st * UPF_NET_MATRICES * UPF_NET_WINDOW * 2,
                  UPF_NET_MATRICES * UPF_NET_WINDOW * 2);
        at += (size_t)UPF_NET_WEIGHTS * 2;
    }
    BLOCK(4, -1, at, 4);
#undef BLOCK
    return n;
}

/* The built-in model file's bytes (the same bytes upf_models_default parses). */
const uint8_t *upfw_builtin_file(size_t *size)
{
    *size = upf__default_models_size;
    return upf__default_models_data;
}
