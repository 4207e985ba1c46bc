/* reconstruct_dilate.c: the temporal engine's reconstruct pass (docs/TEMPORAL.md,
 * "reconstruct"): this frame's colour into the working space, the motion and depth of the
 * nearest surface in each 3x3 neighbourhood, and this frame's depth scattered to where it was
 * in the previous frame.
 *
 * Reads: colour, depth, motion (host) or the camera motion. Writes: colour (working space),
 * fill source (with the spatial fill), dilated motion, dilated depth, previous depth.
 *
 *  - Colour: decoded to linear light (the format's own curve, then the flags' sRGB or square
 *    root), negatives to 0, times exposure / pre-exposure, tonemapped (T(c) = c / (1 + max c))
 *    and stored as YCoCg with the Rec. 709 luma of the tonemapped colour in A. NaN or Inf
 *    fails the run naming the pixel.
 *  - Dilation: of the 3x3 depths around a pixel (edges repeated), the nearest (the smallest
 *    depth, or the largest when reversed; the first in row order on ties) gives the pixel's
 *    motion and depth, so a thin object's motion covers its whole silhouette. The motion is
 *    the nearest's only where it is another surface, nearer in view distance by more than
 *    UPF__DILATE_SEPARATION of the pixel's own; else the pixel keeps its own (on a sloping
 *    floor the nearest is always the row below, whose motion differs from the pixel's by the
 *    parallax of one row: an orbit's history was fetched from the wrong place). The motion is
 *    scaled to render pixels; NaN or Inf becomes UPF__MV_INVALID (counted in a warning),
 *    anything longer than UPF__MV_MAX is clamped. The depth is stored as the view distance
 *    z = 1 / (scale d + offset), UPF__Z_FAR for the sky.
 *  - Previous depth: each pixel's z goes to the four cells around its previous position
 *    q = (x + 0.5 + jx, y + 0.5 + jy) + mv (cells centred at i + 0.5) that take a bilinear
 *    weight above UPF__SCATTER_MIN, keeping the nearest: an atomic minimum of the float's bits
 *    (order-preserving for z > 0), so the result is the same whatever order the threads run
 *    in. The surface is cleared first, row by row, before any pixel scatters.
 * Work: one task per row, then one per row for the scatter. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "core/color.h"
#include "core/image.h"
#include "temporal/temporal_passes.h"

typedef struct row_info {
    int bad_color_x, bad_depth_x;
    long invalid_motion;
} row_info;

_Static_assert(sizeof(_Atomic uint32_t) == sizeof(uint32_t), "atomic uint32_t is 4 bytes");

size_t upf__tp_reconstruct_scratch_bytes(int height)
{
    return (size_t)height * sizeof(row_info);
}

typedef struct rec_job {
    const upf__reconstruct_con *con;
    const upf_image *color_in, *depth, *motion;
    const float *camera_motion;
    float *color, *fill_source, *motion_out, *z_out;
    uint32_t *prev_depth;
    row_info *rows;
} rec_job;

/* Decoded, exposed linear colour of one row into `rgba` (in place); returns the first
 * non-finite pixel's x or -1. */
static int color_row(const rec_job *job, int y, float *rgba)
{
    const upf__reconstruct_con *c = job->con;
    int bad = upf__row_to_linear(job->color_in, y, 0, c->width, rgba);
    if (bad >= 0)
        return bad;
    for (int x = 0; x < c->width; x++) {
        float *p = rgba + 4 * x;
        for (int k = 0; k < 3; k++) {
            float v = p[k] > 0.0f ? p[k] : 0.0f;
            if (c->encoding == UPF__ENCODING_SRGB)
                v = upf_srgb_to_linear(v);
            else if (c->encoding == UPF__ENCODING_SQRT)
                v = v * v;
            p[k] = v * c->exposure;
        }
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
            return x; /* finite in, but too large once squared or exposed */
    }
    return -1;
}

/* View distance of a device depth (clamped to [0, 1]); UPF__Z_FAR for the sky. */
static float view_z(const upf__reconstruct_con *c, float d)
{
    float dd = d < 0.0f ? 0.0f : d > 1.0f ? 1.0f : d;
    float inv = c->depth_scale * dd + c->depth_offset;
    return inv > 1.0f / UPF__Z_FAR ? 1.0f / inv : UPF__Z_FAR;
}

static void rec_row(void *priv, int y, int worker)
{
    (void)worker;
    const rec_job *job = priv;
    const upf__reconstruct_con *c = job->con;
    const int W = c->width, H = c->height;
    row_info *info = &job->rows[y];
    info->bad_color_x = info->bad_depth_x = -1;
    info->invalid_motion = 0;

    for (int x = 0; x < W; x++)
        job->prev_depth[(size_t)y * W + x] = UPF__NO_DEPTH;

    /* colour */
    float *col = job->color + (size_t)y * W * 4;
    info->bad_color_x = color_row(job, y, col);
    if (info->bad_color_x >= 0)
        return;
    for (int x = 0; x < W; x++) {
        float *p = col + 4 * x;
        if (job->fill_source) {
            float *f = job->fill_source + ((size_t)y * W + x) * 4;
            for (int k = 0; k < 3; k++)
                f[k] = p[k] < 1.0f ? p[k] : 1.0f;
            f[3] = 1.0f;
        }
        upf__tonemap(p);
        float luma = upf_luma(p[0], p[1], p[2]), ycc[3];
        upf__rgb_to_ycocg(p, ycc);
        p[0] = ycc[0], p[1] = ycc[1], p[2] = ycc[2], p[3] = luma;
    }

    /* depth check, then the dilation */
    const float *drow[3];
    for (int k = 0; k < 3; k++)
        drow[k] = (const float *)upf__row(job->depth, UPF_CLAMP(y - 1 + k, 0, H - 1));
    for (int x = 0; x < W; x++)
        if (!isfinite(drow[1][x])) {
            info->bad_depth_x = x;
            return;
        }
    for (int x = 0; x < W; x++) {
        int bx = x, by = y;
        float best = drow[1][x];
        for (int k = 0; k < 9; k++) {
            int dx = k % 3 - 1, dy = k / 3 - 1;
            int sx = UPF_CLAMP(x + dx, 0, W - 1);
            float v = drow[dy + 1][sx];
            if (c->depth_reversed ? v > best : v < best) {
                best = v;
                bx = sx;
                by = UPF_CLAMP(y + dy, 0, H - 1);
            }
        }
        const float z = view_z(c, best), z_own = view_z(c, drow[1][x]);
        if (!(z_own - z > UPF__DILATE_SEPARATION * z_own))
            bx = x, by = y; /* the same surface: its own motion */
        float mx, my;
        if (c->camera_motion) {
            const float *m = job->camera_motion + ((size_t)by * W + bx) * 2;
            mx = m[0], my = m[1];
        } else {
            const float *m = (const float *)upf__row(job->motion, by) + 2 * bx;
            mx = m[0] * c->motion_scale_x;
            my = m[1] * c->motion_scale_y;
        }
        if (!isfinite(mx) || !isfinite(my)) {
            mx = my = UPF__MV_INVALID;
            info->invalid_motion++;
        } else {
            mx = UPF_CLAMP(mx, -UPF__MV_MAX, UPF__MV_MAX);
            my = UPF_CLAMP(my, -UPF__MV_MAX, UPF__MV_MAX);
        }
        float *mo = job->motion_out + ((size_t)y * W + x) * 2;
        mo[0] = mx, mo[1] = my;
        job->z_out[(size_t)y * W + x] = z;
    }
}

/* Keeps the smaller of *cell and v (as unsigned bits: the order of positive floats). */
static void atomic_min_u32(uint32_t *cell, uint32_t v)
{
    _Atomic uint32_t *a = (_Atomic uint32_t *)cell;
    uint32_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (v < cur && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

static void scatter_row(void *priv, int y, int worker)
{
    (void)worker;
    const rec_job *job = priv;
    const upf__reconstruct_con *c = job->con;
    const int W = c->width, H = c->height;
    for (int x = 0; x < W; x++) {
        const float *mv = job->motion_out + ((size_t)y * W + x) * 2;
        float qx = (float)x + 0.5f + c->jitter_x + mv[0] - 0.5f;
        float qy = (float)y + 0.5f + c->jitter_y + mv[1] - 0.5f;
        if (!(qx > -1.0f && qx < (float)W && qy > -1.0f && qy < (float)H))
            continue;
        int i0 = (int)floorf(qx), j0 = (int)floorf(qy);
        float fx = qx - (float)i0, fy = qy - (float)j0;
        float z = job->z_out[(size_t)y * W + x];
        uint32_t bits;
        memcpy(&bits, &z, sizeof bits);
        for (int k = 0; k < 4; k++) {
            int i = i0 + (k & 1), j = j0 + (k >> 1);
            float w = ((k & 1) ? fx : 1.0f - fx) * ((k >> 1) ? fy : 1.0f - fy);
            if (w > UPF__SCATTER_MIN && i >= 0 && i < W && j >= 0 && j < H)
                atomic_min_u32(&job->prev_depth[(size_t)j * W + i], bits);
        }
    }
}

upf_result upf__reconstruct_pass(const upf__pass_args *a)
{
    const upf__reconstruct_con *con = a->con;
    const upf__surface *s = a->surface;
    rec_job job = { con, s[UPF__TP_COLOR_IN].image, s[UPF__TP_DEPTH].image,
                    s[UPF__TP_MOTION].image, s[UPF__TP_CAMERA_MOTION].data,
                    s[UPF__TP_COLOR].data, con->fill_source ? s[UPF__TP_FILL_SOURCE].data : NULL,
                    s[UPF__TP_DILATED_MOTION].data, s[UPF__TP_DILATED_DEPTH].data,
                    s[UPF__TP_PREV_DEPTH].data, a->scratch };
    upf__parallel_for(a->ctx, rec_row, &job, con->height);
    long invalid = 0;
    for (int y = 0; y < con->height; y++) {
        const row_info *r = &job.rows[y];
        if (r->bad_color_x >= 0)
            return upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: colour pixel x=%d, y=%d is not "
                             "finite (NaN or Inf, or too large once decoded and exposed); "
                             "expected finite light", a->fn, r->bad_color_x, y);
        if (r->bad_depth_x >= 0)
            return upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: depth pixel x=%d, y=%d is not "
                             "finite (NaN or Inf); expected depth in [0, 1]", a->fn,
                             r->bad_depth_x, y);
        invalid += r->invalid_motion;
    }
    if (invalid)
        upf__log(a->ctx, UPF_LOG_WARN, "%s: %ld motion vectors are NaN or infinite; those "
                 "pixels are treated as having no history", a->fn, invalid);
    upf__parallel_for(a->ctx, scatter_row, &job, con->height);
    return UPF_OK;
}
