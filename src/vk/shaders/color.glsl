/* color.glsl: the colour maths of src/core/color.h for the shaders, with the same roundings:
 * Rec. 709 luma, unorm quantisation, the sqrt-encoded 10:10:10:2 pixel, the sRGB curve.
 * Expressions are `precise` (no fused multiply-adds) so that they round as the CPU's ISO C
 * code does (no FP contraction); exact.glsl supplies the correctly rounded sqrt and quotients. */
#ifndef UPF_COLOR_GLSL
#define UPF_COLOR_GLSL

#include "exact.glsl"

/* Rec. 709 / sRGB luma weights (ITU-R BT.709-6, item 3.2), as UPF_LUMA_* in color.h. */
const float UPF_LUMA_R = 0.2126;
const float UPF_LUMA_G = 0.7152;
const float UPF_LUMA_B = 0.0722;

/* upf_luma: (0.2126 r + 0.7152 g) + 0.0722 b, each product and sum rounded. */
float upf_luma(float r, float g, float b)
{
    precise float lr = UPF_LUMA_R * r;
    precise float lg = UPF_LUMA_G * g;
    precise float lb = UPF_LUMA_B * b;
    precise float sum = lr + lg;
    precise float l = sum + lb;
    return l;
}

/* upf_unorm_from_float: v * max + 0.5 truncated, after clamping v to [0, 1] (NaN: 0). */
uint upf_unorm(float v, uint maxv)
{
    if (!(v > 0.0))
        return 0u;
    if (v >= 1.0)
        return maxv;
    precise float t = v * float(maxv) + 0.5;
    return uint(t);
}

/* upf_pack_sqrt1010102 of linear RGBA: sqrt of each colour channel (negative as 0), 10 bits
 * each (R bits 0-9, G 10-19, B 20-29), alpha in the top 2. `roots` gives the square roots of
 * R, G, B when the caller has them already. */
uint upf_pack_roots1010102(vec3 roots, float a)
{
    return upf_unorm(roots.r, 1023u) | (upf_unorm(roots.g, 1023u) << 10u) |
           (upf_unorm(roots.b, 1023u) << 20u) | (upf_unorm(a, 3u) << 30u);
}

uint upf_pack_sqrt1010102(vec4 c)
{
    vec3 roots = vec3(upf_sqrt_rn(c.r), upf_sqrt_rn(c.g), upf_sqrt_rn(c.b));
    return upf_pack_roots1010102(roots, c.a);
}

/* upf_unpack_sqrt1010102: the sqrt-space values code / 1023 (alpha code / 3), rounded as C
 * divides. */
vec4 upf_unpack_sqrt1010102(uint p)
{
    return vec4(upf_div_rn(p & 1023u, 1023u), upf_div_rn((p >> 10u) & 1023u, 1023u),
                upf_div_rn((p >> 20u) & 1023u, 1023u), upf_div_rn(p >> 30u, 3u));
}

/* The same within an ulp: code * (1 / 1023), for passes whose output is held to a tolerance
 * (the detail pass's fp16 variants, compose), at a fraction of the instructions. */
vec4 upf_unpack_sqrt1010102_fast(uint p)
{
    return vec4(vec3(uvec3(p, p >> 10u, p >> 20u) & 1023u) * (1.0 / 1023.0),
                float(p >> 30u) * (1.0 / 3.0));
}

/* The sRGB transfer curve, IEC 61966-2-1:1999 sections 5.2 and 5.3, in float (the CPU works in
 * double: the shaders' results differ in the last bits of the float). For views that hold
 * sRGB-encoded data under a UNORM format (ABI.md, src_transfer / dst_transfer). */
float upf_srgb_to_linear(float e)
{
    return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

float upf_linear_to_srgb(float l)
{
    return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

/* The push-constant fields every pass has after its constants struct (ABI.md). */
#define UPF_PUSH_TAIL                                                                         \
    int src_x;                                                                                 \
    int src_y;                                                                                 \
    int dst_x;                                                                                 \
    int dst_y;                                                                                 \
    uint src_transfer;                                                                         \
    uint dst_transfer;                                                                         \
    uint phase;                                                                                \
    float detail_strength; /* the model's (detail.c multiplies the map by it) */            \
    uint fuse; /* UPF_VK_FUSE_* below: work a pass takes over from one skipped */

/* The tail's fuse bits (src/vk/ABI.md, "Push constants"). */
const uint UPF_VK_FUSE_ENCODE = 1u; /* convert writes the frame (the edges pass is skipped) */
const uint UPF_VK_FUSE_NO_MAP = 2u; /* compose reads no detail map: it is 0 (no detail pass) */
const uint UPF_VK_FUSE_CODES = 4u;  /* convert writes the frame beside linear; edges reads it */
const uint UPF_VK_FUSE_AT_MOST_ONE = 8u; /* the source holds nothing above 1: convert leaves
                                          * range G (M) at 0 */

#endif
