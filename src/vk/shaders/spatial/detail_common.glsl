/* detail_common.glsl: what the three variants of the detail pass share (detail.comp fp32,
 * detail_fp16.comp, detail_coopmat.comp): the push constants, the tile's luma patch (fp32)
 * or each window's pixels read straight from the frame (fp16, coopmat), and the geometry of
 * docs/SPATIAL.md, "Geometry" (CPU reference: src/spatial/detail.c).
 *
 * One workgroup per 48 x 48 tile of the detail map; tile (tx, ty) = gl_WorkGroupID.xy.
 *  - The patch: luma of the sqrt frame over input pixels 4s * tile - border .. + 3s + 16
 *    (border floor((16 - s) / 2)), edge pixels repeated: luma_patch[py * size + px].
 *  - Window wi = 4 * wy + wx (wx, wy in 0..3): its 16 x 16 luma starts at (s * wx, s * wy) in
 *    the patch; its output's top-left 12 x 12, times the model's detail strength, is map
 *    pixels 48 * tile + 12 * window + (0..11), clipped to the map. */
#ifndef UPF_DETAIL_COMMON_GLSL
#define UPF_DETAIL_COMMON_GLSL

#include "color.glsl"

layout(push_constant, std430) uniform Push {
    int in_width;
    int in_height;
    int map_width;
    int map_height;
    int step;
    int tiles_x;
    int tiles_y;
    uint flags;
    uint network;
    UPF_PUSH_TAIL
} pc;

layout(set = 0, binding = 6, std430) readonly buffer Frame { uint frame[]; };
layout(set = 0, binding = 7, std430) writeonly buffer Detail { float detail[]; };

const uint UPF_MODEL_FLAG_WINDOW_MEAN = 1u;     /* upframe.h */
const float UPF_NET_WINDOW_MEAN_SCALE = 4.0;    /* net.h */
#define PATCH_MAX 46                            /* 3 * 10 + 16 */

shared float luma_patch[PATCH_MAX * PATCH_MAX];

int patch_size()
{
    return 3 * pc.step + 16;
}

/* The patch's first pixel, before clamping: 4 s * tile - border. */
ivec2 patch_origin()
{
    const int s = pc.step;
    return ivec2(gl_WorkGroupID.xy) * (4 * s) - (16 - s) / 2;
}

/* The frame's word at input pixel p, edge pixels repeated. */
uint frame_word_clamped(ivec2 p)
{
    const ivec2 q = clamp(p, ivec2(0), ivec2(pc.in_width - 1, pc.in_height - 1));
    return frame[uint(q.y) * uint(pc.in_width) + uint(q.x)];
}

/* A frame word's luma. exact: the sqrt values rounded as the CPU divides (exact.glsl); else
 * code * (1 / 1023), within an ulp of it (the fp16 variants round far more than that anyway). */
float frame_word_luma(uint w, bool exact)
{
    const vec3 c = exact ? upf_unpack_sqrt1010102(w).rgb : upf_unpack_sqrt1010102_fast(w).rgb;
    return upf_luma(c.r, c.g, c.b);
}

/* Fills `luma_patch` (all invocations take part; a barrier follows), each pixel's luma by
 * frame_word_luma(exact). */
void detail_load_patch(uint tid, uint threads, bool exact)
{
    const int size = patch_size();
    const ivec2 o = patch_origin();
    const uint count = uint(size * size);
    /* A slot's row and column without an integer division by the run-time size (a long
     * instruction sequence): row = floor((k + 0.5) / size) in float, exact here since
     * (k + 0.5) / size stays at least 0.5 / 46 = 0.011 from an integer and the product's
     * rounding is below 46 * 2^-23 = 5.5e-6 (k < 46 * 46). Slots run over size x size only (laying them over PATCH_MAX
     * columns instead ran twice the rounds for a 34 x 34 patch: step 6, fp32 6 % slower on
     * the H200). Eight loads an invocation in flight at once (issued before the first is
     * used). */
    const float inv_size = 1.0 / float(size);
    for (uint k0 = tid; k0 < count; k0 += 8u * threads) {
        uint v[8];
        for (uint r = 0u; r < 8u; r++) {
            const int k = int(k0 + r * threads);
            const int y = int((float(k) + 0.5) * inv_size);
            v[r] = uint(k) < count ? frame_word_clamped(o + ivec2(k - y * size, y)) : 0u;
        }
        for (uint r = 0u; r < 8u; r++) {
            const uint k = k0 + r * threads;
            if (k >= count)
                break;
            luma_patch[k] = frame_word_luma(v[r], exact);
        }
    }
}

/* The frame's word that window wi's input (r, c) is the luma of, read straight from the frame:
 * the pixel detail_load_patch puts at window_input(wi, r, c) (the window starts at
 * (s * wx, s * wy) in the patch). */
uint window_frame_word(int wi, int r, int c)
{
    return frame_word_clamped(patch_origin() + pc.step * ivec2(wi & 3, wi >> 2) + ivec2(c, r));
}

/* Luma (r, c) of window wi's 16 x 16 input. */
float window_input(int wi, int r, int c)
{
    const int s = pc.step;
    return luma_patch[(s * (wi >> 2) + r) * patch_size() + s * (wi & 3) + c];
}

/* Map pixel of window wi's output (r, c), or ivec2(-1) when it is not in the map (r or c
 * beyond the 12 x 12 block, or beyond the map's edge). */
ivec2 window_map_pixel(int wi, int r, int c)
{
    ivec2 p = ivec2(gl_WorkGroupID.xy) * 48 + ivec2(wi & 3, wi >> 2) * 12 + ivec2(c, r);
    if (r >= 12 || c >= 12 || p.x >= pc.map_width || p.y >= pc.map_height)
        return ivec2(-1);
    return p;
}

/* A map value: the network's output times the model's detail strength (1 as trained, and
 * a product by 1 is exact, as detail.c's copy). */
void detail_store(ivec2 p, float v)
{
    precise float s = pc.detail_strength * v;
    detail[uint(p.y) * uint(pc.map_width) + uint(p.x)] = s;
}

/* network = 0: the map's zeros, written as they are. */
void detail_store_zero(ivec2 p)
{
    detail[uint(p.y) * uint(pc.map_width) + uint(p.x)] = 0.0;
}

/* network = 0 (UPF_SPATIAL_NO_NETWORK): the tile's map pixels are 0. */
void detail_zero_tile(uint tid, uint threads)
{
    for (uint k = tid; k < 48u * 48u; k += threads) {
        ivec2 p = ivec2(gl_WorkGroupID.xy) * 48 + ivec2(int(k % 48u), int(k / 48u));
        if (p.x < pc.map_width && p.y < pc.map_height)
            detail_store_zero(p);
    }
}

#endif
