/* detail.c: the spatial engine's detail pass, the first half of its upscale (docs/SPATIAL.md,
 * "The detail pass" and "Geometry"): the network over 16x16 luma windows of the frame, making
 * the detail map at the model's ratio 12/s.
 *
 * Reads: the frame (the sqrt-encoded 10:10:10:2 surface of passes 1-3) and the model's
 * weights (net.h). Writes: the detail map (reconstruct.h).
 *
 * For a model of step s (ratio r = 12 / s):
 *  - The map is ceil(W_in * r) x ceil(H_in * r) detail pixels, cut into tiles of 48x48. Tile
 *    (tx, ty) reads the 4s x 4s input block at (4s * tx, 4s * ty).
 *  - Its 16 windows (wx, wy in 0..3) are 16x16 luma windows whose s x s input block starts at
 *    4s * tile + s * window on each axis; the window itself starts floor((16 - s) / 2) pixels
 *    before that block. Pixels outside the frame repeat the edge pixel. Luma is Rec. 709 of
 *    the sqrt-encoded values (the network never sees colour).
 *  - Each window goes through the network (net_infer.c); the top-left 12x12 of its output is
 *    detail pixels 48 * tile + 12 * window + (0..11). So detail pixel X lies in tile X / 48,
 *    window (X % 48) / 12, column X % 12 (rows the same).
 *  - Each value is multiplied by the model's detail strength (1 as trained: copied as is).
 *    Stage 6 has no ReLU, so this is the same as scaling its A and C.
 *
 * One task per tile on the context's workers; every value is computed the same way whichever
 * worker runs it, so the map does not depend on their number. The window forward is the
 * fastest the context's CPU runs (net.h, upf__net_forward_for: AVX2 + FMA where the CPU has
 * them, which rounds each multiply-add once and so differs from the plain C one in the last
 * bits). Scratch is the caller's. */
#include <string.h>

#include "core/color.h"
#include "spatial/reconstruct.h"
#include "spatial/spatial_passes.h"

#define PATCH_SIZE(s) UPF_NET_TILE_LUMA(s)             /* a tile's luma: 4 windows s apart */
#define PATCH_MAX PATCH_SIZE(UPF_MODEL_STEP_MAX)       /* 46 */

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

upf_result upf__reconstruct_check_sizes(upf_context *ctx, const char *fn, int in_w, int in_h,
                                        int out_w, int out_h)
{
    if (in_w < 1 || in_h < 1 || in_w > UPF_MAX_IMAGE_DIMENSION || in_h > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: input is %dx%d; expected each "
                         "side in 1..%d", fn, in_w, in_h, UPF_MAX_IMAGE_DIMENSION);
    if (out_w < 1 || out_h < 1 || out_w > UPF_MAX_IMAGE_DIMENSION ||
        out_h > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: output is %dx%d; expected each "
                         "side in 1..%d", fn, out_w, out_h, UPF_MAX_IMAGE_DIMENSION);
    if (out_w < in_w || out_w > 4LL * in_w || out_h < in_h || out_h > 4LL * in_h)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: output %dx%d is %.4gx%.4g the "
                         "%dx%d input; expected a ratio of 1 to 4 on each axis", fn, out_w,
                         out_h, (double)out_w / in_w, (double)out_h / in_h, in_w, in_h);
    return UPF_OK;
}

/* ---- the detail map ---------------------------------------------------------------------- */

void upf__detail_map_init(upf__detail_map *map, int step, uint32_t flags, int in_w, int in_h,
                          float *data)
{
    map->data = data;
    map->step = step;
    map->flags = flags;
    map->in_width = in_w;
    map->in_height = in_h;
    map->zero = 0;
    map->width = (int)((12LL * in_w + step - 1) / step);   /* ceil(in_w * 12 / s) */
    map->height = (int)((12LL * in_h + step - 1) / step);
}

size_t upf__detail_map_bytes(int step, int in_w, int in_h)
{
    upf__detail_map m;
    upf__detail_map_init(&m, step, 0, in_w, in_h, NULL);
    return align64((size_t)m.width * (size_t)m.height * sizeof(float));
}

/* Per worker: the tile's luma patch, 16 input windows, 16 output windows. */
#define DETAIL_PATCH_BYTES align64(PATCH_MAX * PATCH_MAX * sizeof(float))
#define DETAIL_WINDOWS_BYTES (UPF_NET_TILE_WINDOWS * UPF_NET_WINDOW * sizeof(float))
#define DETAIL_WORKER_BYTES (DETAIL_PATCH_BYTES + 2 * DETAIL_WINDOWS_BYTES)

size_t upf__detail_scratch_bytes(int threads)
{
    return (size_t)(threads < 1 ? 1 : threads) * DETAIL_WORKER_BYTES;
}

typedef struct detail_job {
    const upf__net_model *model;
    upf__net_forward_fn forward;       /* the context's CPU's (upf__net_forward_for) */
    const upf__sqrt_frame *frame;
    const upf__detail_map *map;
    unsigned char *scratch;
    int tiles_x;
} detail_job;

/* The tile's luma: input pixels from 4s * tile - border, PATCH_SIZE(s) square, edges
 * repeated; Rec. 709 luma of the sqrt-encoded values. */
void upf__detail_tile_luma(const upf__sqrt_frame *frame, int s, int tx, int ty, float *patch)
{
    const int size = PATCH_SIZE(s), border = UPF_NET_WINDOW_BORDER(s);
    const int x0 = 4 * s * tx - border, y0 = 4 * s * ty - border;
    const size_t stride = frame->stride ? frame->stride : (size_t)frame->width;
    for (int py = 0; py < size; py++) {
        const uint32_t *row = frame->pixels + (size_t)clampi(y0 + py, 0, frame->height - 1) * stride;
        for (int px = 0; px < size; px++) {
            float r, g, b, a;
            upf_unpack_sqrt1010102(row[clampi(x0 + px, 0, frame->width - 1)], &r, &g, &b, &a);
            patch[py * size + px] = upf_luma(r, g, b);
        }
    }
}

/* Window (wx, wy) of a tile's luma patch: rows s * wy .., columns s * wx .. */
void upf__detail_window_of_tile(const float *patch, int s, int wx, int wy, float *window)
{
    const int size = PATCH_SIZE(s);
    for (int r = 0; r < UPF_NET_DIM; r++)
        memcpy(window + r * UPF_NET_DIM, patch + (s * wy + r) * size + s * wx,
               UPF_NET_DIM * sizeof(float));
}

static void detail_tile(void *priv, int index, int worker)
{
    const detail_job *job = priv;
    const upf__sqrt_frame *frame = job->frame;
    const upf__detail_map *map = job->map;
    const int s = job->model->step;
    const int tx = index % job->tiles_x, ty = index / job->tiles_x;
    unsigned char *mem = job->scratch + (size_t)worker * DETAIL_WORKER_BYTES;
    float *patch = (float *)mem;
    float *win_in = (float *)(mem + DETAIL_PATCH_BYTES);
    float *win_out = (float *)(mem + DETAIL_PATCH_BYTES + DETAIL_WINDOWS_BYTES);

    upf__detail_tile_luma(frame, s, tx, ty, patch);

    /* The windows whose block lies (at least partly) inside the map. */
    int n = 0, at_x[UPF_NET_TILE_WINDOWS], at_y[UPF_NET_TILE_WINDOWS];
    for (int wy = 0; wy < 4; wy++) {
        int dy = UPF_NET_TILE * ty + UPF_NET_BLOCK * wy;
        if (dy >= map->height)
            break;
        for (int wx = 0; wx < 4; wx++) {
            int dx = UPF_NET_TILE * tx + UPF_NET_BLOCK * wx;
            if (dx >= map->width)
                break;
            upf__detail_window_of_tile(patch, s, wx, wy, win_in + (size_t)n * UPF_NET_WINDOW);
            at_x[n] = dx;
            at_y[n] = dy;
            n++;
        }
    }
    job->forward(job->model, win_in, win_out, n);

    /* The top-left 12x12 of each output is the window's block of the map, times the model's
     * detail strength (at 1, as trained, the values are copied as they are). */
    const float strength = job->model->detail_strength;
    for (int k = 0; k < n; k++) {
        const float *o = win_out + (size_t)k * UPF_NET_WINDOW;
        int rows = UPF_MIN(UPF_NET_BLOCK, map->height - at_y[k]);
        int cols = UPF_MIN(UPF_NET_BLOCK, map->width - at_x[k]);
        for (int r = 0; r < rows; r++) {
            float *d = map->data + (size_t)(at_y[k] + r) * map->width + at_x[k];
            if (strength == 1.0f)
                memcpy(d, o + r * UPF_NET_DIM, (size_t)cols * sizeof(float));
            else
                for (int c = 0; c < cols; c++)
                    d[c] = strength * o[r * UPF_NET_DIM + c];
        }
    }
}

upf_result upf__check_sqrt_frame(upf_context *ctx, const char *fn, const upf__sqrt_frame *frame)
{
    if (!frame || !frame->pixels)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the sqrt frame is NULL", fn);
    if (frame->width < 1 || frame->height < 1 || frame->width > UPF_MAX_IMAGE_DIMENSION ||
        frame->height > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the sqrt frame is %dx%d; "
                         "expected each side in 1..%d", fn, frame->width, frame->height,
                         UPF_MAX_IMAGE_DIMENSION);
    if (frame->stride && frame->stride < (size_t)frame->width)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the sqrt frame's stride is %zu "
                         "pixels, less than its width %d", fn, frame->stride, frame->width);
    return UPF_OK;
}

upf_result upf__check_detail_map(upf_context *ctx, const char *fn, const upf__detail_map *map,
                            const upf__sqrt_frame *frame)
{
    if (!map || !map->data)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the detail map is NULL", fn);
    upf__detail_map want;
    upf__detail_map_init(&want, map->step, map->flags, frame->width, frame->height, NULL);
    if (map->step < UPF_MODEL_STEP_MIN || map->step > UPF_MODEL_STEP_MAX ||
        map->in_width != frame->width || map->in_height != frame->height ||
        map->width != want.width || map->height != want.height ||
        (map->flags & ~UPF_MODEL_FLAGS_KNOWN))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the detail map is %dx%d for a "
                         "%dx%d input at step %d, flags 0x%x; expected one made by "
                         "upf__detail_map_init for the %dx%d frame", fn, map->width, map->height,
                         map->in_width, map->in_height, map->step, (unsigned)map->flags,
                         frame->width, frame->height);
    return UPF_OK;
}

upf_result upf__make_detail_map(upf_context *ctx, const upf__net_model *model,
                                const upf__sqrt_frame *frame, const upf__detail_map *map,
                                void *scratch, size_t scratch_bytes)
{
    static const char fn[] = "upf__make_detail_map";
    upf_result r = upf__check_sqrt_frame(ctx, fn, frame);
    if (r != UPF_OK)
        return r;
    if (!model)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model is NULL", fn);
    if ((r = upf__check_detail_map(ctx, fn, map, frame)) != UPF_OK)
        return r;
    if (map->step != model->step)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the detail map is for step %d, "
                         "the model's step is %d", fn, map->step, model->step);
    size_t need = upf__detail_scratch_bytes(upf_context_threads(ctx));
    if (!scratch || scratch_bytes < need)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: scratch of %zu bytes; expected "
                         "%zu", fn, scratch ? scratch_bytes : 0, need);
    detail_job job = { model, upf__net_forward_for(ctx ? ctx->cpu_flags : 0), frame, map, scratch,
                       (map->width + UPF_NET_TILE - 1) / UPF_NET_TILE };
    int tiles_y = (map->height + UPF_NET_TILE - 1) / UPF_NET_TILE;
    upf__parallel_for(ctx, detail_tile, &job, job.tiles_x * tiles_y);
    return UPF_OK;
}


upf_result upf__detail_pass(const upf__pass_args *a)
{
    const upf__detail_con *con = a->con;
    const upf__spatial_cpu *cpu = a->engine;
    const upf__sqrt_frame frame = { a->surface[UPF__SP_FRAME].data, con->in_width,
                                    con->in_height, 0 };
    upf__detail_map map;
    upf__detail_map_init(&map, con->step, con->flags, con->in_width, con->in_height,
                         a->surface[UPF__SP_DETAIL].data);
    if (!con->network) {
        memset(map.data, 0, sizeof(float) * (size_t)map.width * (size_t)map.height);
        return UPF_OK;
    }
    return upf__make_detail_map(a->ctx, cpu->model, &frame, &map, a->scratch, a->scratch_bytes);
}
