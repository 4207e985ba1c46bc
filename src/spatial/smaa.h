/* smaa.h: passes 1-3 of the spatial engine: SMAA 1x (Jimenez, Echevarria, Sousa, Gutierrez,
 * "SMAA: Enhanced Subpixel Morphological Antialiasing", Eurographics 2012) on the CPU, with
 * the edges packed into bit masks (docs/SPATIAL.md, "Pass 1"), and the 192x128 area
 * table our own code computes from SMAA's area model. docs/SMAA.md describes the rules and
 * the table layout; function names of the reference shader (SMAA.hlsl) are cited where the
 * rule they implement is written.
 *
 * Internal header. The passes never allocate and never fail: the engine checks sizes and
 * values and allocates every buffer once. They take `ctx` only for upf__parallel_for and
 * give the same bits for any number of threads.
 *
 *   pass 1  upf__smaa_edges    linear RGBA float -> luma scratch, packed edge words, and
 *                              the frame's unblended sqrt 10:10:10:2 pixels
 *   pass 2  upf__smaa_weights  edge words + area table -> blending weights (RGBA8)
 *   pass 3  upf__smaa_blend    linear RGBA float + weights -> the frame's blended pixels
 *
 * Pass 1 takes every channel's square root anyway (for the luma), so it also writes each
 * pixel's own encoding to the frame; pass 3 then rewrites only the pixels that blend (a few
 * percent) instead of taking every square root a second time. On its own pass 3 is not a
 * full pass: the frame must hold what pass 1 wrote.
 */
#ifndef UPF_SMAA_H
#define UPF_SMAA_H

#include <math.h>
#include <stdint.h>

#include "core/core.h"

/* x86-64 always has SSE2: the hot loops use it (exact IEEE operations, the same bits as the
 * scalar code, which stays as the definition and the path for other targets). */
#if defined(__SSE2__) || defined(_M_X64)
#define UPF_SMAA_SSE2 1
#include <emmintrin.h>
#else
#define UPF_SMAA_SSE2 0
#endif

/* ---- pass 1: edges ----------------------------------------------------------------------
 *
 * Edge words: the image is cut into 4x4 blocks, bw = ceil(W/4) across and bh = ceil(H/4)
 * down; block (bx, by) is word by*bw + bx. In it, bit y*4+x is the LEFT edge of the block's
 * pixel (x, y) (a step between that pixel and the one to its left) and bit 16+y*4+x its TOP
 * edge (between it and the pixel above). Bits of pixels beyond W or H are zero. */

#define UPF_SMAA_THRESHOLD 0.1f    /* SMAA_THRESHOLD, the HIGH preset's value */
#define UPF_SMAA_LCA_FACTOR 2.0f   /* SMAA_LOCAL_CONTRAST_ADAPTATION_FACTOR */

static inline int upf__smaa_blocks(int n)
{
    return (n + 3) >> 2;
}

/* Index of the lowest set bit of v != 0 (de Bruijn multiplication: C17 has no ctz). */
static inline int upf__smaa_lowest_bit(uint64_t v)
{
    static const unsigned char index[64] = {
        0,  1,  48, 2,  57, 49, 28, 3,  61, 58, 50, 42, 38, 29, 17, 4,
        62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
        63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
        46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9,  13, 8,  7,  6,
    };
    return index[((v & (0 - v)) * UINT64_C(0x03F79D71B4CB0A89)) >> 58];
}

/* The luma pass 1 compares: Rec. 709 luma of the square-root-encoded colour (a gamma-2
 * encoding: SMAA detects edges on gamma-encoded values, SMAA.hlsl integration notes).
 * Negative components count as 0. This scalar form is the definition; the products are
 * separate statements so that no compiler fuses them into FMAs, and the fast row version
 * (upf__smaa_luma_row) gives the same bits. */
static inline float upf__smaa_luma(float r, float g, float b)
{
    float lr = 0.2126f * sqrtf(r > 0.0f ? r : 0.0f);
    float lg = 0.7152f * sqrtf(g > 0.0f ? g : 0.0f);
    float lb = 0.0722f * sqrtf(b > 0.0f ? b : 0.0f);
    float sum = lr + lg;
    return sum + lb;
}

/* For n RGBA pixels: upf__smaa_luma into luma[] and upf_pack_sqrt1010102 into packed[],
 * bit for bit (SSE2 where the target has it). */
void upf__smaa_luma_row(const float *rgba, int n, float *luma, uint32_t *packed);

/* Pass 1 (SMAALumaEdgeDetectionPS). linear: W*H RGBA floats (linear light, tightly packed).
 * luma: W*H scratch floats, filled with upf__smaa_luma of each pixel. edges: bw*bh words.
 * frame: W*H words, filled with upf_pack_sqrt1010102 of each pixel (pass 3 completes it). */
void upf__smaa_edges(upf_context *ctx, const float *linear, int width, int height, float *luma,
                     uint32_t *edges, uint32_t *frame);

/* ---- the area table ---------------------------------------------------------------------
 *
 * 192 x 128 texels of two bytes (R, G), row-major: texel (tx, ty) at 2*(ty*192 + tx).
 *
 * Orthogonal part, tx < 128: a 4x4 grid of 32x32 tiles. Tile (cl, cr) holds the pattern
 * whose left (or top) end has crossing code cl and right (or bottom) end cr; inside it
 * tx = 32*cl + dl, ty = 32*cr + dr, dl and dr the distances in pixels (0..31, linear) from
 * the pixel to the run's left and right ends. Crossing code of a run end: bit 0 is set when
 * the crossing edge lies on the far side of the edge (above a horizontal edge, left of a
 * vertical one), bit 1 when it lies on the near side (the pixel's own row or column): 0 none,
 * 1 far ("up"), 2 near ("down"), 3 both. R is the coverage of the pixel itself by the other
 * side, G that of its neighbour across the edge by the pixel's side.
 *
 * Diagonal part, tx >= 128: two 64x64 halves stacked, orientation 0 (rows 0-63) for "/"
 * diagonals (lower left to upper right) and orientation 1 (rows 64-127) for "\" diagonals
 * (upper left to lower right), each a 4x4 grid of 16x16 tiles:
 * tx = 128 + 16*cl + dl, ty = 64*orientation + 16*cr + dr. dl is the distance (in diagonal
 * steps, 0..15) to the diagonal's left end (the lower-left one for "/", the upper-left one
 * for "\"), dr to its right end; cl, cr are those ends' codes: bit 0 set when the end's
 * crossing step is vertical, bit 1 when it is horizontal. R and G as above, for the pixel's
 * top edge. Orientation 1 is orientation 0 in a mirror: its (cl, cr, dl, dr) texel equals
 * orientation 0's (cr, cl, dr, dl). */

#define UPF_SMAA_AREA_WIDTH 192
#define UPF_SMAA_AREA_HEIGHT 128
#define UPF_SMAA_AREA_BYTES (UPF_SMAA_AREA_WIDTH * UPF_SMAA_AREA_HEIGHT * 2)
#define UPF_SMAA_ORTHO_DISTANCES 32
#define UPF_SMAA_DIAG_DISTANCES 16

/* Fills the table (UPF_SMAA_AREA_BYTES bytes). Values are floor(255 * coverage). */
void upf__smaa_area_table(uint8_t *table);

/* The area model itself, in double, for the tests: coverage pair (R, G) of the orthogonal
 * pattern (cl, cr) at distances (dl, dr) >= 0, and of the diagonal pattern. `samples` 0
 * integrates exactly; n > 1 counts an n x n grid of points spanning each pixel, borders
 * included, as SMAA's AreaTex.py does (30 there), to compare with the shipped table. */
void upf__smaa_area_ortho(int cl, int cr, int dl, int dr, double out[2]);
void upf__smaa_area_diag(int orientation, int cl, int cr, int dl, int dr, int samples,
                         double out[2]);

static inline const uint8_t *upf__smaa_area_ortho_texel(const uint8_t *table, int cl, int cr,
                                                        int dl, int dr)
{
    return table + 2 * ((32 * cr + dr) * UPF_SMAA_AREA_WIDTH + 32 * cl + dl);
}

static inline const uint8_t *upf__smaa_area_diag_texel(const uint8_t *table, int orientation,
                                                       int cl, int cr, int dl, int dr)
{
    return table + 2 * ((64 * orientation + 16 * cr + dr) * UPF_SMAA_AREA_WIDTH + 128 +
                        16 * cl + dl);
}

/* ---- pass 2: blending weights -----------------------------------------------------------
 *
 * weights: W*H*4 bytes, SMAA's blendTex: for pixel P, r = how far P blends toward the pixel
 * above, g = how far the pixel above blends toward P (both from P's top edge), b = how far P
 * blends toward its left neighbour, a = how far that neighbour blends toward P (from P's left
 * edge); 255 = 1. */

#define UPF_SMAA_MAX_SEARCH 32       /* pixels each way along a straight edge (HIGH: 16 steps) */
#define UPF_SMAA_MAX_SEARCH_DIAG 16  /* SMAA_MAX_SEARCH_STEPS_DIAG (ULTRA) */
#define UPF_SMAA_CORNER_ROUNDING 25  /* SMAA_CORNER_ROUNDING, percent */

/* Pass 2 (SMAABlendingWeightCalculationPS). edges: from pass 1. area_table: from
 * upf__smaa_area_table. weights: W*H*4 bytes, every byte written. */
void upf__smaa_weights(upf_context *ctx, const uint32_t *edges, int width, int height,
                       const uint8_t *area_table, uint8_t *weights);

/* ---- pass 3: blend ----------------------------------------------------------------------- */

/* Pass 3 (SMAANeighborhoodBlendingPS) in linear light, then each channel's square root
 * packed as 10:10:10:2 (bit for bit upf_pack_sqrt1010102). frame: W*H words as pass 1 left
 * them; the pixels with any blending weight are rewritten, the others already hold their
 * unblended value. */
void upf__smaa_blend(upf_context *ctx, const float *linear, const uint8_t *weights, int width,
                     int height, uint32_t *frame);

/* ---- viewable intermediates (--debug-passes) --------------------------------------------- */

/* RGBA8 (W*H*4, opaque): black, red where a pixel has a left edge, green a top edge, yellow
 * both. */
void upf__smaa_edges_visualise(const uint32_t *edges, int width, int height, uint8_t *rgba);

/* RGBA8 (W*H*4, opaque): red = r + g (blending across the pixel's top edge), green = b + a
 * (across its left edge), each doubled (the largest orthogonal weight is 0.5) and clamped. */
void upf__smaa_weights_visualise(const uint8_t *weights, int width, int height, uint8_t *rgba);

/* RGBA8 with sRGB-encoded colour (UPF_FORMAT_RGBA8_SRGB, W*H*4) of a sqrt 10:10:10:2 frame:
 * each channel squared back to linear light, then sRGB-encoded; alpha scaled to 0..255. */
void upf__smaa_frame_visualise(const uint32_t *frame, int width, int height, uint8_t *rgba);

#endif /* UPF_SMAA_H */
