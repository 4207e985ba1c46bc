/* vectors.comp: the vectors pass on the GPU (CPU reference: src/framegen/vectors.c;
 * docs/FRAMEGEN.md, "vectors"). Reads: motion in (binding 2, RG32F) and depth in (binding 3,
 * R32F or a depth format's depth aspect), sampled images read with texelFetch at their
 * rectangles' offsets (the push constants' tail). Writes: motion (11), priority (12),
 * splat_prev (13) and splat_prev_index (14) (filled with 0xffffffff by the runner before the
 * pass), splat_land (20: where each pixel landed), prev motion (15), the shade flag (31,
 * UPF__VK_FG_SHADED: an indirect dispatch's workgroup counts, cleared to 0 by the runner
 * before the pass).
 *
 * Eight dispatches, the step patched into the push constants (a barrier between each):
 *  0. each output pixel takes the vector and depth of the motion-size pixel it lies in
 *     (nearest: y * motion_height / height, integer), the vector times the scale, the
 *     priority the depth's float bits (complemented for reversed depth); a vector or depth
 *     that is NaN, infinite or (depth) negative gives a vector not known and the last
 *     priority: the CPU pass fails on it with UPF_ERROR_BAD_DATA, which a frame on the GPU
 *     cannot (nothing is read back), so the pixel is left out of the splat instead; then the
 *     invocation splats its own pixel to t = 0 (splat.glsl step 0, shift 1, no camera: the
 *     priorities; it reads back only what it wrote), and the workgroup sets the shade flag's
 *     words 4 .. 6 (step 3's grid) when one of its pixels is a candidate of the rule;
 *  1. the splat's indices (splat.glsl step 1);
 *  2. each pixel of N-1: minus the vector of the surface of N that landed there, or a vector
 *     not known where none did;
 *  3. the shade rule (vectors.c, `shade`: a shadow moving over still ground) on each still
 *     pixel (an indirect dispatch of the shade flag's words 4 .. 6, which step 0 sets to its
 *     grid when a pixel is a candidate: still, e = radius + 2 or more from the edges, the
 *     rule on; an empty grid on a moving camera, where no pixel is still): the offset of the
 *     patch of N-1 (linear prev, binding 6; with BYTES the 8-bit frames, 30: frames.glsl)
 *     that matches its patch of N (linear, 7) as its vector, its
 *     priority one less, and the shade flag set (shade_tile: a workgroup without a still
 *     pixel reads nothing more, the frames' luma and the stillness staged in shared memory);
 *  4. splat_prev and splat_prev_index cleared (0xffffffff), then 5, 6, 7: steps 0 (the splat
 *     alone), 1, 2 again with the vectors the shade rule gave. These four are indirect
 *     dispatches (vkCmdDispatchIndirect) whose workgroup counts are the shade flag's words 0
 *     .. 2: cleared to 0 by the runner, so an empty grid (the CPU pass skips them when the
 *     rule moved no pixel: the same cells), set by step 3 to its own grid when it moved one.
 * One invocation per pixel, 16 x 16 a workgroup (256 pixels: launching a workgroup costs the
 * same whatever its size, docs/FRAMEGEN.md "On the GPU"); grid ceil(W / 16) x ceil(H / 16)
 * (upf__vk_fg_vectors_dispatches). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 2) uniform texture2D motion_in;
layout(set = 0, binding = 3) uniform texture2D depth_in;
layout(set = 0, binding = 6, std430) readonly buffer Prev { uvec2 prev[]; }; /* linear.glsl */
layout(set = 0, binding = 7, std430) readonly buffer Cur { uvec2 cur[]; };
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
    uint step;                         /* patched: 0 .. 7 */
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

/* Step 3, the shade rule (vectors.c's `shade`), for the workgroup's 16 x 16 pixels; every
 * invocation calls it (barriers). What the CPU computes per pixel from the frames is staged
 * once per workgroup in shared memory: the luma of N over the tile +- 2 (the patches), of N-1
 * over the tile +- e (e = radius + 2: every patch the search compares) and, only when a
 * pixel passes the gate, a bit per pixel of the tile +- e: still in N and in N-1 (two words
 * a row, the tile +- e being up to 36 wide: still_around is 2e + 1 row masks). The sums are
 * the CPU's, in its order, over the same floats (luma_of is `precise`); the gate, the window
 * and the search are the CPU's tests. */
#define TILE 16
#define GROUP (TILE * TILE) /* invocations of a workgroup */
#define SHADE_RADIUS_MAX 8 /* framegen_passes.h UPF__FG_SHADE_RADIUS_MAX */
#define SIDE_N (TILE + 4)
#define SIDE_MAX (TILE + 2 * (SHADE_RADIUS_MAX + 2)) /* at most 64: a row mask in two words */
shared float lum_n[SIDE_N * SIDE_N];
shared float lum_p[SIDE_MAX * SIDE_MAX];
shared uint still_rows[2 * SIDE_MAX]; /* row j: bits 0 .. 31 in word 2j, 32 .. in 2j + 1 */
shared uint any_candidate, any_gate, any_moved;

/* Stages N's luma (side SIDE_N from o - 2) and N-1's (side `side` from o - e), edges clamped
 * (a pixel whose patches reach past an edge is not a candidate). */
void stage_luma(ivec2 o, int e, int side, int li)
{
    const int W = pc.width, H = pc.height;
    for (int k = li; k < SIDE_N * SIDE_N; k += GROUP) {
        const int tx = clamp(o.x - 2 + k % SIDE_N, 0, W - 1);
        const int ty = clamp(o.y - 2 + k / SIDE_N, 0, H - 1);
        lum_n[k] = luma_of(frame_texel(false, ty * W + tx));
    }
    for (int k = li; k < side * side; k += GROUP) {
        const int tx = clamp(o.x - e + k % side, 0, W - 1);
        const int ty = clamp(o.y - e + k / side, 0, H - 1);
        lum_p[k] = luma_of(frame_texel(true, ty * W + tx));
    }
}

/* Stages still_rows: bit c of row j when pixel o - e + (c, j) is still in N (the game's
 * vector) and in N-1 (prev motion known and still); still_rows was zeroed before a barrier. */
void stage_still(ivec2 o, int e, int side, int li)
{
    const int W = pc.width, H = pc.height;
    for (int k = li; k < side * side; k += GROUP) {
        const int tx = clamp(o.x - e + k % side, 0, W - 1);
        const int ty = clamp(o.y - e + k / side, 0, H - 1);
        if (still(game_vector(tx, ty)) && still(prev_motion[ty * W + tx]))
            atomicOr(still_rows[2 * (k / side) + (k % side) / 32], 1u << uint(k % side % 32));
    }
}

/* The CPU's patch sum: |N's patch at l - |N-1's patch at l + d|, k = 0 .. 24 in order (l: the
 * pixel's place in the tile; e: N-1's tile margin). */
float patch_sad(ivec2 l, ivec2 d, int e, int side)
{
    precise float sum = 0.0;
    for (int k = 0; k < 25; k++)
        sum += abs(lum_n[(l.y + k / 5) * SIDE_N + l.x + k % 5] -
                   lum_p[(l.y + e + d.y + k / 5 - 2) * side + l.x + e + d.x + k % 5 - 2]);
    return sum;
}

/* The mask of bits a .. b clipped to 0 .. 31 (0 when none): a row word's part of a span. */
uint bits(int a, int b)
{
    a = max(a, 0), b = min(b, 31);
    return a > b ? 0u : (0xffffffffu >> uint(31 - (b - a))) << uint(a);
}

/* vectors.c's still_around from the row masks: the 2e + 1 rows of the window all set (its
 * columns l.x .. l.x + 2e, in a row's two words). */
bool still_window(ivec2 l, int e)
{
    const uint lo = bits(l.x, l.x + 2 * e), hi = bits(l.x - 32, l.x + 2 * e - 32);
    for (int j = 0; j <= 2 * e; j++)
        if ((still_rows[2 * (l.y + j)] & lo) != lo || (still_rows[2 * (l.y + j) + 1] & hi) != hi)
            return false;
    return true;
}

/* Pixel (x, y) is a candidate of the shade rule: the rule on, the pixel e = radius + 2 or more
 * from every edge, its vector (motion) still. */
bool candidate(int x, int y)
{
    const int W = pc.width, H = pc.height, e = pc.shade_radius + 2;
    return pc.shade_threshold > 0.0 && x >= e && y >= e && x < W - e && y < H - e &&
           still(motion[y * W + x]);
}

void shade_tile()
{
    const int W = pc.width, H = pc.height, r = pc.shade_radius, e = r + 2, side = TILE + 2 * e;
    const ivec2 o = ivec2(gl_WorkGroupID.xy) * TILE, l = ivec2(gl_LocalInvocationID.xy);
    const int li = int(gl_LocalInvocationIndex), x = o.x + l.x, y = o.y + l.y, i = y * W + x;
    bool cand = candidate(x, y);
    if (li == 0)
        any_candidate = any_gate = any_moved = 0u;
    if (li < 2 * SIDE_MAX)
        still_rows[li] = 0u;
    barrier();
    if (cand)
        atomicOr(any_candidate, 1u);
    barrier();
    if (any_candidate == 0u) /* no still pixel: the common case of a moving camera */
        return;
    stage_luma(o, e, side, li);
    barrier();
    precise float e0 = 0.0; /* the gate: the patch's sum of |luma N - luma N-1| */
    for (int k = 0; k < 25; k++)
        e0 += abs(lum_n[(l.y + k / 5) * SIDE_N + l.x + k % 5] -
                  lum_p[(l.y + e + k / 5 - 2) * side + l.x + e + k % 5 - 2]);
    precise float gate = 25.0 * pc.shade_threshold;
    cand = cand && e0 > gate;
    if (cand)
        atomicOr(any_gate, 1u);
    barrier();
    if (any_gate == 0u) /* no patch changed */
        return;
    stage_still(o, e, side, li);
    barrier();
    int bx = 0, by = 0;
    if (cand && still_window(l, e)) {
        precise float best = 0.5 * e0;
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++) {
                const float sum = patch_sad(l, ivec2(dx, dy), e, side);
                if (sum < best) {
                    best = sum;
                    bx = dx;
                    by = dy;
                }
            }
    }
    if (bx == 0 && by == 0)
        return;
    motion[i] = vec2(float(bx), float(by));
    const uint pri = priority[i];
    priority[i] = pri - (pri > 0u ? 1u : 0u); /* over the still surface it moves on */
    if (atomicOr(any_moved, 1u) == 0u) { /* steps 4 to 7 run, on this grid */
        atomicMax(shaded[0], gl_NumWorkGroups.x);
        atomicMax(shaded[1], gl_NumWorkGroups.y);
        atomicMax(shaded[2], 1u);
    }
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
    if (pc.step == 3u) {
        shade_tile();
        return;
    }
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    const bool in_frame = x < pc.width && y < pc.height;
    if (pc.step == 0u) { /* every invocation: barriers */
        if (gl_LocalInvocationIndex == 0u)
            any_candidate = 0u;
        barrier();
        if (in_frame) {
            take(x, y);
            if (candidate(x, y))
                atomicOr(any_candidate, 1u);
            splat_pixel(x, y, pc.width, pc.height, 1.0, 0u);
        }
        barrier();
        if (gl_LocalInvocationIndex == 0u && any_candidate != 0u && shaded[4] == 0u) {
            atomicMax(shaded[4], gl_NumWorkGroups.x); /* step 3 runs, on this grid */
            atomicMax(shaded[5], gl_NumWorkGroups.y);
            atomicMax(shaded[6], 1u);
        }
        return;
    }
    if (!in_frame)
        return;
    const int i = y * pc.width + x;
    if (pc.step == 4u) {
        splat_prev[i] = FG_NONE;
        splat_prev_index[i] = FG_NONE;
        return;
    }
    if (pc.step == 1u || pc.step == 5u || pc.step == 6u) { /* 5, 6: steps 0 and 1 again */
        splat_pixel(x, y, pc.width, pc.height, 1.0, pc.step == 5u ? 0u : 1u);
    } else {
        const uint k = splat_prev_index[i];
        prev_motion[i] = k == FG_NONE ? vec2(FG_INVALID, 0.0) : -motion[k];
    }
}
