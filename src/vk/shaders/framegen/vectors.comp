/* vectors.comp: the vectors pass on the GPU (CPU reference: src/framegen/vectors.c;
 * docs/FRAMEGEN.md, "vectors"). Reads: motion in (binding 2, RG32F) and depth in (binding 3,
 * R32F or a depth format's depth aspect), sampled images read with texelFetch at their
 * rectangles' offsets (the push constants' tail). Writes: motion (11), priority (12),
 * splat_prev (13) and splat_prev_index (14) (filled with 0xffffffff by the runner before the
 * pass), splat_land (20: where each pixel landed), prev motion (15), the shade flag (31,
 * UPF__VK_FG_SHADED: cleared to 0 by the runner before the pass).
 *
 * Nine dispatches, the step patched into the push constants (a barrier between each):
 *  0. each output pixel takes the vector and depth of the motion-size pixel it lies in
 *     (nearest: y * motion_height / height, integer), the vector times the scale, the
 *     priority the depth's float bits (complemented for reversed depth); a vector or depth
 *     that is NaN, infinite or (depth) negative gives a vector not known and the last
 *     priority: the CPU pass fails on it with UPF_ERROR_BAD_DATA, which a frame on the GPU
 *     cannot (nothing is read back), so the pixel is left out of the splat instead;
 *  1, 2. N splatted to t = 0 (splat.glsl, shift 1, no camera): priorities, then indices;
 *  3. each pixel of N-1: minus the vector of the surface of N that landed there, or a vector
 *     not known where none did;
 *  4. the shade rule (vectors.c, `shade`: a shadow moving over still ground) on each still
 *     pixel: the offset of the patch of N-1 (linear prev, binding 6; with BYTES the 8-bit
 *     frames, 30: frames.glsl) that matches its patch of N (linear, 7) as its vector, its
 *     priority one less, and the shade flag set;
 *  5. splat_prev and splat_prev_index cleared (0xffffffff), then 6, 7, 8: steps 1, 2, 3 again
 *     with the vectors the shade rule gave; all four only when the shade flag is set (the CPU
 *     pass skips them when it moved no pixel: the same cells).
 * One invocation per pixel, 8 x 8 a workgroup; grid ceil(W / 8) x ceil(H / 8). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 2) uniform texture2D motion_in;
layout(set = 0, binding = 3) uniform texture2D depth_in;
layout(set = 0, binding = 6, std430) readonly buffer Prev { vec4 prev[]; };
layout(set = 0, binding = 7, std430) readonly buffer Cur { vec4 cur[]; };
layout(set = 0, binding = 11, std430) buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 12, std430) buffer Priority { uint priority[]; };
layout(set = 0, binding = 13, std430) buffer SplatPrev { uint splat_prev[]; };
layout(set = 0, binding = 14, std430) buffer SplatPrevIndex { uint splat_prev_index[]; };
layout(set = 0, binding = 20, std430) buffer SplatLand { uint splat_land[]; };
layout(set = 0, binding = 15, std430) buffer PrevMotion { vec2 prev_motion[]; };
layout(set = 0, binding = 30, std430) readonly buffer Bytes { uint bytes[]; };
layout(set = 0, binding = 31, std430) buffer Shaded { uint shaded[]; }; /* UPF__VK_FG_SHADED */
layout(constant_id = 0) const bool BYTES = false;
layout(push_constant) uniform Push {
    int width, height;                 /* upf__fg_vectors_con */
    int motion_width, motion_height;
    float scale_x, scale_y;
    uint depth_reversed;
    float shade_threshold;
    int shade_radius;
    uint step;                         /* patched: 0 .. 8 */
    int motion_x, motion_y;            /* the host rectangles' offsets */
    int depth_x, depth_y;
    uint prev_table, cur_table;        /* BYTES: each frame's decode table */
} pc;

#define SPLAT_DEPTH splat_prev
#define SPLAT_INDEX splat_prev_index
#include "splat.glsl"

/* The game's vector at output pixel (x, y), in output pixels. */
vec2 game_vector(int x, int y)
{
    const int my = y * pc.motion_height / pc.height, mx = x * pc.motion_width / pc.width;
    const vec2 v = texelFetch(motion_in, ivec2(pc.motion_x + mx, pc.motion_y + my), 0).rg;
    precise vec2 m = vec2(v.x * pc.scale_x, v.y * pc.scale_y);
    return m;
}

bool still(vec2 v)
{
    precise float n = v.x * v.x + v.y * v.y;
    return n <= 0.0025;
}

#include "frames.glsl"

float luma_of(vec4 p)
{
    precise float l = 0.2126 * p.r + 0.7152 * p.g + 0.0722 * p.b;
    return l;
}

/* vectors.c's still_around: every pixel within e still in N and in N-1. */
bool still_around(int x, int y, int e)
{
    for (int py = y - e; py <= y + e; py++)
        for (int px = x - e; px <= x + e; px++)
            if (!still(game_vector(px, py)) || !still(prev_motion[py * pc.width + px]))
                return false;
    return true;
}

/* vectors.c's shade, word for word: the offset of the patch of N-1 that matches the 5 x 5
 * patch of N around a still pixel that changed, or false. */
bool shade(int x, int y, inout vec2 m)
{
    const int W = pc.width, H = pc.height, r = pc.shade_radius, e = r + 2;
    if (!(pc.shade_threshold > 0.0) || x < e || y < e || x >= W - e || y >= H - e)
        return false;
    float b[25];
    precise float e0 = 0.0;
    for (int k = 0; k < 25; k++) {
        const int i = (y + k / 5 - 2) * W + x + k % 5 - 2;
        b[k] = luma_of(frame_texel(false, i));
        e0 += abs(b[k] - luma_of(frame_texel(true, i)));
    }
    precise float gate = 25.0 * pc.shade_threshold;
    if (!(e0 > gate))
        return false;
    if (!still_around(x, y, e))
        return false;
    precise float best = 0.5 * e0;
    int bx = 0, by = 0;
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
            precise float sum = 0.0;
            for (int k = 0; k < 25; k++)
                sum += abs(b[k] - luma_of(frame_texel(true, (y + dy + k / 5 - 2) * W + x + dx
                                                                  + k % 5 - 2)));
            if (sum < best) {
                best = sum;
                bx = dx;
                by = dy;
            }
        }
    if (bx == 0 && by == 0)
        return false;
    m = vec2(float(bx), float(by));
    return true;
}

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
    if (pc.step >= 5u && shaded[0] == 0u)
        return; /* the shade rule moved nothing: round 1's cells stand (the CPU's skip) */
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= pc.width || y >= pc.height)
        return;
    const int i = y * pc.width + x;
    const uint step = pc.step < 5u ? pc.step : pc.step - 5u; /* 6, 7, 8: 1, 2, 3 again */
    if (pc.step == 0u) {
        take(x, y);
    } else if (pc.step == 4u) {
        vec2 m = motion[i];
        if (still(m) && shade(x, y, m)) {
            motion[i] = m;
            const uint pri = priority[i];
            priority[i] = pri - (pri > 0u ? 1u : 0u); /* over the still surface it moves on */
            atomicOr(shaded[0], 1u); /* steps 5 to 8 run */
        }
    } else if (pc.step == 5u) {
        splat_prev[i] = FG_NONE;
        splat_prev_index[i] = FG_NONE;
    } else if (step <= 2u) {
        splat_pixel(x, y, pc.width, pc.height, 1.0, step - 1u);
    } else {
        const uint k = splat_prev_index[i];
        prev_motion[i] = k == FG_NONE ? vec2(FG_INVALID, 0.0) : -motion[k];
    }
}
