/* smaa_blend.comp: pass 3 of the spatial engine on the GPU, SMAA neighbourhood blending in
 * linear light, then the blended pixels stored sqrt-encoded as 10:10:10:2 (CPU reference:
 * src/spatial/smaa_blend.c; docs/SMAA.md, "Pass 3"; Jimenez et al., "SMAA", 3.5,
 * SMAANeighborhoodBlendingPS).
 *
 * Reads: linear (binding 1; convert's tone map applied to the loaded pixels when range G,
 * M, is above 1: tone_map.glsl), weights (binding 5), range (binding 8). Writes: the frame (binding 6), only the
 * pixels that blend; the others keep what the edges pass stored there.
 *
 * For P: right = a of the pixel to its right, below = g of the pixel below, left = b of P,
 * above = r of P (0 beyond the image). All zero: P is kept. Else horizontal when
 * max(right, left) > max(below, above), else vertical, both sides of that axis counted:
 *   out = (w1 * lerp(P, N1, w1) + w2 * lerp(P, N2, w2)) * (1 / (w1 + w2)),
 * weights byte / 255, neighbours beyond the image clamped. The roundings are the CPU's:
 * byte / 255 and the reciprocal correctly rounded (exact.glsl), every product and sum
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

#include "smaa_blend_px.glsl"

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.width || p.y >= pc.height)
        return;
    const uint i = uint(p.y) * uint(pc.width) + uint(p.x);
    upf_blend_pixel(p, pc.width, pc.height, weights[i],
                    p.x + 1 < pc.width ? weights[i + 1u] >> 24u : 0u,
                    p.y + 1 < pc.height ? (weights[i + uint(pc.width)] >> 8u) & 0xffu : 0u);
}
