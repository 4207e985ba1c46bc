/* vectors.comp: the vectors pass on the GPU (CPU reference: src/framegen/vectors.c;
 * docs/FRAMEGEN.md, "vectors"). Reads: motion in (binding 2, RG32F) and depth in (binding 3,
 * R32F or a depth format's depth aspect), sampled images read with texelFetch at their
 * rectangles' offsets (the push constants' tail). Writes: motion (11), priority (12),
 * splat_prev (13) and splat_prev_index (14) (filled with 0xffffffff by the runner before the
 * pass), splat_land (20: where each pixel landed), prev motion (15).
 *
 * Four dispatches, the step patched into the push constants (a barrier between each):
 *  0. each output pixel takes the vector and depth of the motion-size pixel it lies in
 *     (nearest: y * motion_height / height, integer), the vector times the scale, the
 *     priority the depth's float bits (complemented for reversed depth); a vector or depth
 *     that is NaN, infinite or (depth) negative gives a vector not known and the last
 *     priority: the CPU pass fails on it with UPF_ERROR_BAD_DATA, which a frame on the GPU
 *     cannot (nothing is read back), so the pixel is left out of the splat instead;
 *  1, 2. N splatted to t = 0 (splat.glsl, shift 1, no camera): priorities, then indices;
 *  3. each pixel of N-1: minus the vector of the surface of N that landed there, or a vector
 *     not known where none did.
 * One invocation per pixel, 8 x 8 a workgroup; grid ceil(W / 8) x ceil(H / 8). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 2) uniform texture2D motion_in;
layout(set = 0, binding = 3) uniform texture2D depth_in;
layout(set = 0, binding = 11, std430) buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 12, std430) buffer Priority { uint priority[]; };
layout(set = 0, binding = 13, std430) buffer SplatPrev { uint splat_prev[]; };
layout(set = 0, binding = 14, std430) buffer SplatPrevIndex { uint splat_prev_index[]; };
layout(set = 0, binding = 20, std430) buffer SplatLand { uint splat_land[]; };
layout(set = 0, binding = 15, std430) writeonly buffer PrevMotion { vec2 prev_motion[]; };
layout(push_constant) uniform Push {
    int width, height;                 /* upf__fg_vectors_con */
    int motion_width, motion_height;
    float scale_x, scale_y;
    uint depth_reversed;
    uint step;                         /* patched: 0 .. 3 */
    int motion_x, motion_y;            /* the host rectangles' offsets */
    int depth_x, depth_y;
} pc;

#define SPLAT_DEPTH splat_prev
#define SPLAT_INDEX splat_prev_index
#include "splat.glsl"

void take(int x, int y)
{
    const int my = y * pc.motion_height / pc.height, mx = x * pc.motion_width / pc.width;
    const vec2 v = texelFetch(motion_in, ivec2(pc.motion_x + mx, pc.motion_y + my), 0).rg;
    const float d = texelFetch(depth_in, ivec2(pc.depth_x + mx, pc.depth_y + my), 0).r;
    const int i = y * pc.width + x;
    if (isnan(v.x) || isinf(v.x) || isnan(v.y) || isinf(v.y) || isnan(d) || isinf(d) ||
        d < 0.0) {
        motion[i] = vec2(FG_INVALID, 0.0);
        priority[i] = FG_NONE;
        return;
    }
    precise vec2 m = vec2(v.x * pc.scale_x, v.y * pc.scale_y);
    motion[i] = m;
    const uint bits = floatBitsToUint(d > 0.0 ? d : 0.0);
    priority[i] = pc.depth_reversed != 0u ? ~bits : bits;
}

void main()
{
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= pc.width || y >= pc.height)
        return;
    if (pc.step == 0u) {
        take(x, y);
    } else if (pc.step <= 2u) {
        splat_pixel(x, y, pc.width, pc.height, 1.0, pc.step - 1u);
    } else {
        const int i = y * pc.width + x;
        const uint k = splat_prev_index[i];
        prev_motion[i] = k == FG_NONE ? vec2(FG_INVALID, 0.0) : -motion[k];
    }
}
