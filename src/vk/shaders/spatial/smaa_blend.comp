/* smaa_blend.comp: pass 3 of the spatial engine on the GPU, SMAA neighbourhood blending in
 * linear light, then the blended pixels stored sqrt-encoded as 10:10:10:2 (CPU reference:
 * src/spatial/smaa_blend.c; docs/SMAA.md, "Pass 3"; Jimenez et al., "SMAA", 3.5,
 * SMAANeighborhoodBlendingPS).
 *
 * Reads: linear (binding 1; convert's tone map applied to the loaded pixels when range G,
 * M, is above 1: tone_map.glsl), weights (binding 5), range (binding 8), the table of c / 255
 * (binding 12). Writes: the frame (binding 6), only the
 * pixels that blend; the others keep what the edges pass stored there.
 *
 * For P: right = a of the pixel to its right, below = g of the pixel below, left = b of P,
 * above = r of P (0 beyond the image). All zero: P is kept. Else horizontal when
 * max(right, left) > max(below, above), else vertical, both sides of that axis counted:
 *   out = (w1 * lerp(P, N1, w1) + w2 * lerp(P, N2, w2)) * (1 / (w1 + w2)),
 * weights byte / 255, neighbours beyond the image clamped. The roundings are the CPU's:
 * byte / 255 from convert's table of it (binding 12), the reciprocal correctly rounded
 * (exact.glsl), every product and sum
 * `precise`, then upf_pack_sqrt1010102's correctly rounded roots, so the words equal the
 * CPU's (the test allows one code per channel all the same, and reports how many differ).
 *
 * One invocation per pixel, local size 16 x 16; grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "color.glsl"
#include "tone_map.glsl"

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    UPF_PUSH_TAIL
} pc;

layout(set = 0, binding = 1, std430) readonly buffer Linear { vec4 linear[]; };
layout(set = 0, binding = 5, std430) readonly buffer Weights { uint weights[]; };
layout(set = 0, binding = 6, std430) writeonly buffer Frame { uint frame[]; };
layout(set = 0, binding = 8, std430) readonly buffer Range { float range[4]; };
/* convert's tables (vk_spatial.c): srgb8[512 + c] the float bits of c / 255, the CPU's
 * weight byte / 255.0f. */
layout(set = 0, binding = 12, std430) readonly buffer Srgb8 { uint srgb8[1792]; };

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.width || p.y >= pc.height)
        return;
    const uint w = uint(pc.width);
    const uint i = uint(p.y) * w + uint(p.x);
    const uint own = weights[i];
    const uint right = p.x + 1 < pc.width ? weights[i + 1u] >> 24u : 0u;
    const uint below = p.y + 1 < pc.height ? (weights[i + w] >> 8u) & 0xffu : 0u;
    const uint left = (own >> 16u) & 0xffu, above = own & 0xffu;
    if ((right | below | left | above) == 0u)
        return;

    uint i1, i2, n1, n2;
    if (max(right, left) > max(below, above)) {
        i1 = right;
        i2 = left;
        n1 = p.x + 1 < pc.width ? i + 1u : i;
        n2 = p.x > 0 ? i - 1u : i;
    } else {
        i1 = below;
        i2 = above;
        n1 = p.y + 1 < pc.height ? i + w : i;
        n2 = p.y > 0 ? i - w : i;
    }
    const float w1 = uintBitsToFloat(srgb8[512u + i1]), w2 = uintBitsToFloat(srgb8[512u + i2]);
    precise float sum = w1 + w2;
    const float inv = upf_rcp_rn(sum);
    vec4 c = linear[i], c1 = linear[n1], c2 = linear[n2];
    if (upf_tone_mapped(range[1])) {
        c = upf_tone_map(c);
        c1 = upf_tone_map(c1);
        c2 = upf_tone_map(c2);
    }
    vec4 o;
    for (int k = 0; k < 4; k++) {
        precise float a = c[k] + w1 * (c1[k] - c[k]); /* lerp(P, N1, w1) */
        precise float b = c[k] + w2 * (c2[k] - c[k]); /* lerp(P, N2, w2) */
        precise float v = (w1 * a + w2 * b) * inv;
        o[k] = v;
    }
    frame[i] = upf_pack_sqrt1010102(o);
}
