/* flow.glsl: what the optical flow's shaders share (flow.comp: search, median, global;
 * flow_refine.comp, flow_choose.comp, flow_check.comp): the bindings, the push constants
 * (upf__vk_fg_flow_push: the flow's constants, then the dispatch's code step | level << 4),
 * the levels' geometry in the luma atlases and the block buffers, the edge-repeating luma
 * reads and flow.c's bilinear sample (upf__fg_sample1). Reads and writes nothing itself.
 * Each step is its own SPIR-V (its own pipeline) so that one step's shared memory and
 * registers do not limit another's occupancy. */
#ifndef UPF_FLOW_GLSL
#define UPF_FLOW_GLSL

layout(set = 0, binding = 8, std430) readonly buffer LumaPrev { float luma_prev[]; };
layout(set = 0, binding = 9, std430) readonly buffer Luma { float luma_cur[]; };
layout(set = 0, binding = 11, std430) buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 12, std430) buffer Priority { uint priority[]; };
layout(set = 0, binding = 15, std430) buffer PrevMotion { vec2 prev_motion[]; };
layout(set = 0, binding = 27, std430) buffer Blocks { vec2 blocks[]; };
layout(set = 0, binding = 28, std430) coherent buffer Hist { uint hist[]; };
layout(set = 0, binding = 29, std430) buffer Global { float global_v[]; };
layout(push_constant) uniform Push {
    int width, height;                 /* upf__fg_flow_con */
    int levels;
    int radius_coarse, radius;
    int radius_fine;
    int refine;
    float penalty, flat_;
    float consistency, consistency_rel;
    int base;                          /* 1: the flow of the half-size frame (width, height) */
    int frame_width, frame_height;     /* the frame's size */
    uint code;                         /* patched: step | level << 4 */
} pc;

#include "exact.glsl"

#define B 8
#define BINS 4096
#define STEP_SEARCH 0u
#define STEP_MEDIAN 1u
#define STEP_GLOBAL 2u
#define STEP_REFINE 3u
#define STEP_CHOOSE 4u
#define STEP_CHECK 5u
#define STEP_MEDIAN_GLOBAL 6u /* median and global in one workgroup */
#define STEP_UP 7u            /* base 1: the frame's fields from the half-size ones that the
                               * check left in scratch (flow_check.comp) */

int level_size(int size, int l)
{
    return (size + (1 << l) - 1) >> l;
}

int level_row(int l)
{
    int row = 0;
    for (int k = 0; k < l; k++)
        row += level_size(pc.height, k);
    return row;
}

int blocks_of(int size)
{
    return (size + B - 1) / B;
}

/* The level being worked on: its size, where it starts in the atlas, its blocks. */
struct view {
    int w, h, off, bw, bh;
};

view view_of(int l)
{
    view v;
    v.w = level_size(pc.width, l), v.h = level_size(pc.height, l);
    v.off = level_row(l) * pc.width;
    v.bw = blocks_of(v.w), v.bh = blocks_of(v.h);
    return v;
}

/* Frame f's luma (0: N, 1: N-1) at (x, y) of the level, edges repeated. Direction d reads
 * its own frame f = d and the other f = 1 - d. */
float lum(int f, view v, int x, int y)
{
    x = clamp(x, 0, v.w - 1), y = clamp(y, 0, v.h - 1);
    const int i = v.off + y * pc.width + x;
    return f == 0 ? luma_cur[i] : luma_prev[i];
}

/* Level 0's row-major luma at (x, y) inside the frame (no clamp). */
float lum0(int f, int i)
{
    return f == 0 ? luma_cur[i] : luma_prev[i];
}

/* The block vectors' buffers: per direction d, k = 0, 1 (this level's and the parent's,
 * alternating) and 2 (the search's), each level 0's blocks across x their rows. */
int buf(int d, int k)
{
    return (3 * d + k) * blocks_of(pc.width) * blocks_of(pc.height);
}

/* which of k = 0, 1 holds level l's vectors */
int cur_of(int l)
{
    return (pc.levels - 1 - l) & 1;
}

float inf()
{
    return uintBitsToFloat(0x7f800000u);
}

/* upf__fg_sample1 of frame f's level 0 at pixel position (x, y) (centres at +0.5). */
float sample1(int f, float x, float y)
{
    precise float sx = x - 0.5, sy = y - 0.5;
    const float fx0 = floor(sx), fy0 = floor(sy);
    const int x0 = int(fx0), y0 = int(fy0);
    precise float fx = sx - fx0, fy = sy - fy0;
    const int W = pc.width, H = pc.height;
    const int xa = clamp(x0, 0, W - 1), xb = clamp(x0 + 1, 0, W - 1);
    const int ya = clamp(y0, 0, H - 1), yb = clamp(y0 + 1, 0, H - 1);
    const float a = lum0(f, ya * W + xa), b = lum0(f, ya * W + xb);
    const float c = lum0(f, yb * W + xa), e = lum0(f, yb * W + xb);
    precise float top = a + fx * (b - a);
    precise float bot = c + fx * (e - c);
    precise float r = top + fy * (bot - top);
    return r;
}

#endif /* UPF_FLOW_GLSL */
