/* reconstruct.h: the spatial engine's upscale (docs/SPATIAL.md, "The detail pass", "The
 * compose pass" and "Geometry"): the network's detail map, then the output (the base, a
 * sample of the sqrt frame, + detail, squared, sharpened).
 *
 * Two passes, so --debug-passes can save the detail map between them:
 *   upf__make_detail_map   sqrt frame -> detail map (W_in*12/s x H_in*12/s, rounded up)
 *                          (detail.c, the detail pass)
 *   upf__compose_output    sqrt frame + detail map -> output image of any size and format
 *                          (compose.c, the compose pass)
 * and upf__reconstruct, which runs both (compose.c). No call allocates: scratch comes from the caller,
 * sized by the *_bytes functions for the context's number of workers.
 *
 * Internal header: not installed. */
#ifndef UPF_SPATIAL_RECONSTRUCT_H
#define UPF_SPATIAL_RECONSTRUCT_H

#include "core/color.h"
#include "spatial/net.h"

/* The frame passes 1-3 leave: one uint32 per pixel, sqrt-encoded 10:10:10:2
 * (upf_pack_sqrt1010102 in core/color.h). `stride` counts pixels, not bytes (0: width). */
typedef struct upf__sqrt_frame {
    const uint32_t *pixels;
    int width, height;
    size_t stride;
} upf__sqrt_frame;

/* A detail map: one float per detail pixel, row-major, `width` floats a row. For a model of
 * step s over an input of in_width x in_height it is ceil(in_width * 12 / s) x
 * ceil(in_height * 12 / s) (upf__detail_map_init); its pixel centres are those of an image
 * in_width * 12 / s wide, which need not be a whole number. */
typedef struct upf__detail_map {
    float *data;
    int width, height;
    int step;
    uint32_t flags;           /* the model's UPF_MODEL_FLAG_*: the base the detail goes on */
    int in_width, in_height;
    int zero;                 /* 1: every value is 0 (a model of strength 0: no network ran);
                               * upf__detail_map_init sets 0 */
} upf__detail_map;

/* The luma window of a block of step s starts this many input pixels before the block:
 * floor((16 - s) / 2) (docs/SPATIAL.md, "Geometry"). */
#define UPF_NET_WINDOW_BORDER(s) ((UPF_NET_DIM - (s)) / 2)

/* A bilinear tap pair: source pixels i0, i1 and the weight f of i1. */
typedef struct upf__tap {
    int i0, i1;
    float f;
} upf__tap;

/* The sample of output pixel X at source position ((2X + 1) * num - den) / (2 * den), i.e.
 * (X + 0.5) * num / den - 0.5, in a source of `size` pixels, clamped to [0, size - 1];
 * computed exactly in integers, so a ratio of 1 or a whole ratio lands on whole pixels.
 * Pass 4 samples the frame with (num, den) = (W_in, W_out) and the detail map with
 * (12 * W_in, s * W_out); the trainer uses the same taps for its targets. */
static inline upf__tap upf__tap_at(int x, long long num, long long den, int size)
{
    long long t = (2LL * x + 1) * num - den, d2 = 2 * den;
    if (t <= 0)
        return (upf__tap){ 0, 0, 0.0f };
    long long i = t / d2;
    if (i >= size - 1)
        return (upf__tap){ size - 1, size - 1, 0.0f };
    return (upf__tap){ (int)i, (int)i + 1, (float)((double)(t - i * d2) / (double)d2) };
}

/* Pass 4's linear blend: (1 - f) * a + f * b (vertical first, then horizontal). */
static inline float upf__lerp(float a, float b, float f)
{
    return (1.0f - f) * a + f * b;
}

/* A kernel tap set of the sharper bases: source pixels i[0..n-1] (clamped to the source) and
 * their weights, n = 4 for Catmull-Rom, 6 for Lanczos-3 (upf__base_cols.taps). */
#define UPF_BASE_TAPS_MAX 6
typedef struct upf__tapk {
    int i[UPF_BASE_TAPS_MAX];
    float w[UPF_BASE_TAPS_MAX];
} upf__tapk;

/* The taps of `filter` (UPF_FILTER_BICUBIC: Catmull-Rom, 4 taps; UPF_FILTER_LANCZOS3: 6 taps;
 * the kernels of resample/filters.c) for output pixel X: the n source pixels around
 * u = (X + 0.5) * num / den - 0.5, floor(u) - n/2 + 1 .. floor(u) + n/2 (edges repeated),
 * weights computed in double, normalised to sum 1, then rounded to float. u is exact, as in
 * upf__tap_at. Returns n. */
int upf__tapk_at(int x, long long num, long long den, int size, upf_filter filter,
                 upf__tapk *tap);

/* ---- the base: the frame sampled at the output's pixels, before the detail is added ---- */

/* The model's base flags choose one of three (docs/SPATIAL.md, "The base"; each one function
 * below, so a GPU port can follow them one by one):
 *  - none (the shipped design): the frame's sqrt values sampled bilinearly (upf__tap_at, rows
 *    blended first, then columns);
 *  - UPF_MODEL_FLAG_CUBIC_BASE: the frame in linear light (the sqrt values squared) sampled
 *    with Catmull-Rom (4x4 taps, rows first), clamped at 0 and taken back to sqrt space;
 *  - UPF_MODEL_FLAG_SQRT_LANCZOS_BASE: the sqrt values themselves sampled with Lanczos-3 (6x6
 *    taps, rows first), not clamped (compose clamps base + detail at 0 before squaring);
 *  - UPF_MODEL_FLAG_SRGB_LANCZOS_BASE: the frame's sRGB-encoded values (each 10-bit code's,
 *    upf__srgb_of_code) sampled with Lanczos-3 as above, then taken to sqrt space by the sRGB
 *    curve and a square root, the sign kept (upf__sqrt_of_srgb): with no detail it gives
 *    Lanczos-3 on the sRGB values, as image tools resample.
 * Alpha is sampled with the same taps, unsquared, and clamped to [0, 1] by the kernel bases.
 * Both pass 4 and the trainer's targets use these functions. */
typedef struct upf__base_cols {
    uint32_t flags;
    int in_w, out_w;
    const upf__tap *bilinear;  /* out_w column taps of the bilinear base, else NULL */
    const upf__tapk *kernel;   /* out_w column taps of a kernel base, else NULL */
    int taps;                  /* the kernel base's taps per axis: 4 or 6 */
    int linear;                /* 1: the kernel base filters in linear light (cubic) */
    upf_filter filter;         /* the kernel base's filter */
    const float *srgb;         /* the sRGB-Lanczos base: upf__srgb_of_code's table, else NULL */
    const float *srgb_pow;     /* and upf__srgb_pow_table's (upf__sqrt_of_srgb_fast) */
    int srgb_sums;             /* 1: that base's colour stays the sRGB sums (compose's direct
                                * store into an sRGB-encoded image), not taken to sqrt space */
    unsigned cpu_flags;        /* UPF__CPU_*: the kernel bases' rows with AVX2 where set (the
                                * same values, bit for bit); the context's */
} upf__base_cols;

/* A sum of sRGB values back to sqrt space: the square root of the sRGB curve's linear value,
 * ((e + 0.055) / 1.055)^1.2 by powf above the curve's linear segment, sqrt(e / 12.92) on it; a
 * negative sum (a Lanczos lobe below black) gives -sqrt(-e / 12.92), so that the sign survives
 * as the sqrt-Lanczos base's does. */
float upf__sqrt_of_srgb(float e);

/* The same, fast: the power read from a table of it at e = k / 4096, k = 0..8192 (in double,
 * rounded to float; upf__srgb_pow_table, core/color.h, kept in the context), interpolated linearly, for sums in [0.04045, 2);
 * below, the square roots as upf__sqrt_of_srgb; from 2 up (a Lanczos lobe could not reach
 * there from values in [0, 1]) and for NaN, upf__sqrt_of_srgb itself. Within 2.6e-7 of the
 * power, relative (about 4 fp32 units in the last place; the measured worst over a sweep of
 * 2 million sums), against 1 for powf: far below the 2^-16 step of a 16-bit output. Compose's
 * sRGB-Lanczos base takes this one (a powf a channel cost half of compose's time);
 * compose_base_avx2.c computes the same values eight at a time. */

static inline float upf__sqrt_of_srgb_fast(const float *pow_table, float e)
{
    if (e <= 0.04045f || !(e < 2.0f))
        return upf__sqrt_of_srgb(e);
    const float s = e * (float)UPF_SRGB_POW_STEPS; /* exact: a power of two */
    const int i = (int)s;
    const float f = s - (float)i;
    return pow_table[i] + f * (pow_table[i + 1] - pow_table[i]);
}

/* Bytes upf__base_cols_init needs for an output out_w wide. */
size_t upf__base_cols_bytes(int out_w);

/* The column taps for `flags`, a frame in_w wide and an output out_w wide, kept in `mem`
 * (upf__base_cols_bytes); the sRGB base's tables and the CPU flags (the AVX2 rows) are the
 * context's (non-NULL). */
upf__base_cols upf__base_cols_init(const upf_context *ctx, uint32_t flags, int in_w, int out_w,
                                   void *mem);

/* Row y of the base of an output `out_h` high: out_w RGBA values (sqrt-space colour, alpha) into
 * `base`; `vrow` is scratch of frame->width * 4 floats. */
void upf__base_row(const upf__sqrt_frame *frame, const upf__base_cols *cols, int out_h, int y,
                   float *vrow, float *base);

/* The two halves of a kernel base's row (compose.c), for the SIMD version's edges:
 *  - vertical: for frame columns x0..x1-1, the n taps of rows[] (the frame rows of `ty`)
 *    summed into vrow[4x..4x+3] (sqrt, squared-sqrt or sRGB values, and alpha);
 *  - horizontal: output pixels x0..x1-1 from vrow, with the columns' taps, into base.
 * upf__base_kernel_row_avx2 (compose_base_avx2.c, x86-64 with AVX2 only) computes the whole
 * row with the same operations in the same order, so the same values bit for bit. */
void upf__base_kernel_vertical(const upf__base_cols *cols, const uint32_t *const *rows,
                               const upf__tapk *ty, int x0, int x1, float *vrow);
void upf__base_kernel_horizontal(const upf__base_cols *cols, const float *vrow, int x0, int x1,
                                 float *base);
void upf__base_kernel_row_avx2(const upf__base_cols *cols, const uint32_t *const *rows,
                               const upf__tapk *ty, int in_w, float *vrow, float *base);

/* Sharpness accepted by upf__compose_output: 0 (off) .. 4; 1 is the design's look. */
#define UPF_SHARPNESS_MAX 4.0f

/* Checks an upscale's sizes: each side 1..UPF_MAX_IMAGE_DIMENSION and a ratio out / in of 1 to
 * 4 on each axis. `fn` names the call in the message. */
upf_result upf__reconstruct_check_sizes(upf_context *ctx, const char *fn, int in_w, int in_h,
                                        int out_w, int out_h);

/* Fills in a detail map's sizes for a model step and input size, and the model's flags (the
 * base it goes on), with `data` (which must hold upf__detail_map_bytes). */
void upf__detail_map_init(upf__detail_map *map, int step, uint32_t flags, int in_w, int in_h,
                          float *data);
size_t upf__detail_map_bytes(int step, int in_w, int in_h);

/* Check a frame and a map given to the two passes; `fn` names the caller. */
upf_result upf__check_sqrt_frame(upf_context *ctx, const char *fn, const upf__sqrt_frame *frame);
upf_result upf__check_detail_map(upf_context *ctx, const char *fn, const upf__detail_map *map,
                                 const upf__sqrt_frame *frame);

/* Scratch for upf__make_detail_map with `threads` workers. */
size_t upf__detail_scratch_bytes(int threads);

/* The detail pass's input, piece by piece (detail.c; the web page's view of a window calls
 * them too): the luma of tile (tx, ty) for a model of step s, UPF_NET_TILE_LUMA(s) values
 * square (3s + 16: four windows s apart), and window (wx, wy) (0..3 each) of that patch, 256
 * values. */
#define UPF_NET_TILE_LUMA(s) (3 * (s) + UPF_NET_DIM)
void upf__detail_tile_luma(const upf__sqrt_frame *frame, int s, int tx, int ty, float *patch);
void upf__detail_window_of_tile(const float *patch, int s, int wx, int wy, float *window);

/* The detail map of `model` over `frame` (map initialised by upf__detail_map_init for this
 * model's step and the frame's size). One task per 48x48 tile on the context's workers; the
 * result does not depend on their number. */
upf_result upf__make_detail_map(upf_context *ctx, const upf__net_model *model,
                                const upf__sqrt_frame *frame, const upf__detail_map *map,
                                void *scratch, size_t scratch_bytes);

/* Scratch for upf__compose_output with `threads` workers, an input in_w wide, a detail map
 * detail_w wide and an output out_w wide. */
size_t upf__compose_scratch_bytes(int threads, int in_w, int detail_w, int out_w);

/* The output: for each pixel, the base of `frame` (upf__base_row, as the map's flags say) plus
 * the bilinear sample of the detail map on R, G and B, clamped at 0 and squared (linear light);
 * then the sharpen `+ sharpness * (1.25 L - 0.3125 * (sum of the 4 neighbours' L))` on R, G, B
 * (L the Rec. 709 luma of the squared output), clamped at 0. Alpha is the base's alpha (the
 * frame's 2 bits; the engine uses upf__compose_output_with for full precision).
 * `dst` is any colour format, any size with a ratio of 1..4 to the frame on each axis.
 * Bands of rows run as tasks on the context's workers. */
upf_result upf__compose_output(upf_context *ctx, const upf__sqrt_frame *frame,
                               const upf__detail_map *map, const upf_image *dst,
                               float sharpness, void *scratch, size_t scratch_bytes);

/* The same, with alpha taken at full precision from `alpha_src` (the linear input: RGBA
 * floats of the frame's size) instead of the frame's 2 bits, and, when `tone_max` M > 1, the
 * tone map c / (1 + max(c)) of the convert pass undone on the colour (compose.c). NULL and 0
 * give upf__compose_output. */
upf_result upf__compose_output_with(upf_context *ctx, const upf__sqrt_frame *frame,
                                    const upf__detail_map *map, const upf_image *dst,
                                    float sharpness, const float *alpha_src, float tone_max,
                                    void *scratch, size_t scratch_bytes);

/* Scratch for upf__reconstruct (the detail map and both steps' scratch). */
size_t upf__reconstruct_scratch_bytes(int threads, int step, int in_w, int in_h, int out_w);

/* Pass 4 whole: upf__make_detail_map with `model`, then upf__compose_output into `dst`. */
upf_result upf__reconstruct(upf_context *ctx, const upf__net_model *model,
                            const upf__sqrt_frame *frame, const upf_image *dst, float sharpness,
                            void *scratch, size_t scratch_bytes);

#endif /* UPF_SPATIAL_RECONSTRUCT_H */
