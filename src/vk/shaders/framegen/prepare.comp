/* prepare.comp: the prepare pass on the GPU (CPU reference: src/framegen/prepare.c;
 * docs/FRAMEGEN.md, "prepare"). Reads: colour prev (binding 0) and colour (1), sampled images
 * read with texelFetch at their rectangles' offsets. Writes: linear prev (6) and linear (7)
 * (8 bytes a pixel: linear.glsl), luma prev (8) and luma (9) (r32f atlases, only with levels
 * > 0: the flow; levels pc.first .., atlas_at), histograms (10: r32ui 2 x 17 x 32, zeroed
 * by the runner before the pass); with BYTES the 8-bit frames' codes (30) instead of linear.
 *
 * Step 0 (the step patched into the push constants after the pass's constants): each pixel to
 * linear light (what texelFetch gives: the device decodes sRGB formats; sRGB values in a UNORM view
 * decoded here, transfer = 1), its luma sqrt(clamp(Rec. 709 luma, 0, 1)) into level 0 as a 12-bit
 * code (luma_code: prepare.c says why) and a count in its bin of the whole frame's histogram and
 * its region's (4 x 4 regions: x * 4 / W, y * 4 / H). With BYTES (specialisation constant 0: both
 * host colours 8-bit) each pixel's 8-bit codes instead of its linear values, into the 8-bit frames
 * (30, vk_framegen.h UPF__VK_FG_BYTES: the decode tables, then N-1's codes, then N's), the codes
 * read back from what texelFetch gives (a UNORM view: c / 255, rounded; an SRGB format, which the
 * device decodes: the code whose table value is nearest, by bisection on the midpoints), and its
 * linear colour table[code], the CPU's floats, for the luma (the tables read from the buffer:
 * staging them in shared memory once a workgroup, 496a9a8, made every row of the bench slower on an
 * H100, by 12 us on the flow path at 1080p: docs/PERFORMANCE.md). Luma and histograms: counted in
 * shared memory into the workgroup's bins of the regions its pixels lie in (one shared atomic a
 * pixel and frame, at most 2 x 2 regions a workgroup: 256 counters to clear and read, not the 1088
 * of both whole histograms), then each non-zero bin added once per workgroup to the surface, and
 * the whole frame's bins as the sums of the regions' (one global atomic per bin and workgroup, not
 * two per pixel on a few hundred addresses; counts, so the order does not matter and the sums are
 * exact). A NaN or infinite float pixel, which the CPU pass refuses with UPF_ERROR_BAD_DATA, is
 * black here (nothing is read back). Step 0 also makes levels 1 .. 4 of each luma pyramid below its
 * 16 x 16 pixels (from its level 0 in shared memory), steps l = 5, 10, .. levels l .. l + 4 (downs:
 * five levels a dispatch, through shared memory; upf__vk_fg_prepare_dispatches), each the 2x2 mean
 * of the level below (last row or column repeated) rounded to a code. The arithmetic is `precise`,
 * in the CPU's order. One invocation per pixel of the level (of the down step's first), 16 x 16 a
 * workgroup (256 pixels: launching a workgroup costs the same whatever its size, docs/FRAMEGEN.md
 * "On the GPU"). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) uniform texture2D colour_prev;
layout(set = 0, binding = 1) uniform texture2D colour;
/* the linear frames, 8 bytes a pixel (linear.glsl) */
layout(set = 0, binding = 6, std430) writeonly buffer LinearPrev { uvec2 linear_prev[]; };
layout(set = 0, binding = 7, std430) writeonly buffer Linear { uvec2 linear_cur[]; };
layout(set = 0, binding = 8, std430) buffer LumaPrev { float luma_prev[]; };
layout(set = 0, binding = 9, std430) buffer Luma { float luma_cur[]; };
layout(set = 0, binding = 10, std430) buffer Hist { uint hist[]; };
layout(set = 0, binding = 30, std430) buffer Bytes { uint bytes[]; };
layout(constant_id = 0) const bool BYTES = false;
layout(push_constant) uniform Push {
    int width, height;
    int levels;          /* luma pyramid levels (0: none) */
    int first;           /* the first level the atlases hold (upf__fg_prepare_con) */
    int step;            /* patched */
    int prev_x, prev_y, cur_x, cur_y;   /* the host rectangles' offsets */
    uint prev_transfer, cur_transfer;   /* 1: decode sRGB */
    uint prev_table, cur_table;         /* BYTES: each frame's decode table */
    uint prev_device, cur_device;       /* BYTES: 1, an SRGB format (the device decodes) */
} pc;

#include "color.glsl"
#include "linear.glsl"

#define BINS 32
#define REGIONS 17
#define TILE 16 /* a workgroup's pixels a side */
#define GROUP (TILE * TILE) /* invocations of a workgroup */

/* Step 0: this workgroup's counts, per frame, per region its 16 x 16 pixels touch (at most 2
 * x 2 slots when the regions are at least 16 pixels wide and high, a frame of 64 x 64 or
 * more; else at most 4 a side) and bin; the whole frame's bins are the sums of its regions'
 * (made when the workgroup adds its counts to the surface). */
#define SLOTS_MAX 16
/* One counter a frame, slot and bin. b6fb90b kept each in 8 copies, so that a warp's
 * same-bin atomics fell on 8 addresses, not 1; but clearing them and adding them up (a warp's
 * lanes reading counters 8 words apart: 8-way bank conflicts; 32 loads a lane for the whole
 * frame's bins) took some 1090 shared-memory passes a workgroup besides the atomics, not 24,
 * and prepare became slower on an H100 (docs/FRAMEGEN.md, "prepare's histogram counts";
 * scripts/vk_probe_prepare.py makes both to time). */
shared uint counts[2 * SLOTS_MAX * BINS];

#define DOWN_FUSED 5 /* levels a down step makes (vk_framegen.h, UPF__VK_FG_PREPARE_DOWN_FUSED) */
shared float tile[2][341]; /* the down step's levels of each pyramid: 16 x 16, 8 x 8 .. 1 x 1 */
const int TILE_AT[5] = int[5](0, 256, 320, 336, 340);

int level_size(int size, int l)
{
    return (size + (1 << l) - 1) >> l;
}

/* Pixel (x, y) of level l >= pc.first in an atlas: at the rows of level l - first of the
 * level-`first` frame, as wide as that frame (prepare.c) */
int atlas_at(int l, int x, int y)
{
    int row = 0;
    for (int k = pc.first; k < l; k++)
        row += level_size(pc.height, k);
    return (row + y) * level_size(pc.width, pc.first) + x;
}

vec4 to_linear(vec4 c, uint transfer)
{
    if (transfer == 1u)
        c.rgb = vec3(upf_srgb_to_linear(c.r), upf_srgb_to_linear(c.g), upf_srgb_to_linear(c.b));
    if (any(isnan(c)) || any(isinf(c)))
        c = vec4(0.0);
    return vec4(linear_round(c.rgb), 1.0); /* as prepare.c: upf__fg_linear_round */
}

#define TABLE 512 /* the 8-bit frames' decode tables (vk_framegen.h UPF__VK_FG_TABLE) */

float table_at(uint k)
{
    return uintBitsToFloat(bytes[k]);
}

/* the midpoint of the sRGB table's values k - 1 and k (1 <= k <= 255) */
float midpoint(int k)
{
    return 0.5 * (table_at(uint(k - 1)) + table_at(uint(k)));
}

/* the 8-bit code of a channel that texelFetch gave as v (device: an SRGB format, decoded):
 * the largest k with v at or above midpoint(k) (0 for none, NaN), the code whose table value
 * is nearest. The midpoints rise with k, so a walk from any start ends there; it starts at
 * the sRGB encoding of v (IEC 61966-2-1), a step or two away, not at a bisection's 8 steps
 * of two dependent loads each. */
uint code_of(float v, uint device)
{
    if (device == 0u)
        return uint(clamp(v, 0.0, 1.0) * 255.0 + 0.5);
    if (!(v >= midpoint(1)))
        return 0u;
    const float s = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(min(v, 1.0), 1.0 / 2.4) - 0.055;
    int k = clamp(int(s * 255.0 + 0.5), 1, 255);
    while (k < 255 && v >= midpoint(k + 1))
        k++;
    while (k > 1 && !(v >= midpoint(k)))
        k--;
    return uint(k);
}

/* BYTES: frame f's pixel (x, y) to its codes in the 8-bit frames; its linear colour */
vec4 to_bytes(int f, int x, int y)
{
    const vec4 c = f == 0 ? texelFetch(colour_prev, ivec2(pc.prev_x + x, pc.prev_y + y), 0)
                          : texelFetch(colour, ivec2(pc.cur_x + x, pc.cur_y + y), 0);
    const uint device = f == 0 ? pc.prev_device : pc.cur_device;
    const uint table = f == 0 ? pc.prev_table : pc.cur_table;
    const uvec3 k = uvec3(code_of(c.r, device), code_of(c.g, device), code_of(c.b, device));
    bytes[TABLE + f * pc.width * pc.height + y * pc.width + x] = k.r | k.g << 8 | k.b << 16;
    return vec4(table_at(table + k.r), table_at(table + k.g), table_at(table + k.b), 1.0);
}

/* The region slots a workgroup keeps, a side: 2 where a region is at least 16 pixels wide
 * (high), else 4 (every region of that side). */
ivec2 slot_sides()
{
    return ivec2(pc.width >= 4 * TILE ? 2 : 4, pc.height >= 4 * TILE ? 2 : 4);
}

/* upf__fg_luma_code: luma v as a 12-bit code k / 4096, k = round(4095 v) */
float luma_code(float v)
{
    precise float k = v * 4095.0 + 0.5;
    precise float r = floor(k) * (1.0 / 4096.0);
    return r;
}

/* upf__fg_luma_mean: the mean of four codes rounded half up to a code (every step exact) */
float luma_mean(float c[4])
{
    precise float k = 0.25 * (c[0] + c[1] + c[2] + c[3]) * 4096.0 + 0.5;
    precise float r = floor(k) * (1.0 / 4096.0);
    return r;
}

/* The luma a pixel stores and counts, from the correctly rounded root of its clamped Rec. 709
 * luma (the CPU's sqrtf): its 12-bit code (luma_code). */
float luma_value(float root)
{
    return luma_code(root);
}

/* the histogram bin of luma v */
int bin_of(float v)
{
    return clamp(int(v * float(BINS)), 0, BINS - 1);
}

/* bin_of(luma_value(the correctly rounded root of l)) for l in [0, 1] without that root where
 * it cannot matter: the device's sqrt is a few ulps from it (exact.glsl), and luma_value and
 * bin_of rise with the root, so when the bins of the device's root 1e-5 (about 80 ulps)
 * below and above agree, that is the bin; only else (a pixel in some thousands, near a
 * bin's edge) is the root made exactly (upf_sqrt_rn: a residual test in integers). */
int luma_bin(float l)
{
    const float r = sqrt(l);
    const int lo = bin_of(luma_value(r * (1.0 - 1e-5))), hi = bin_of(luma_value(r * (1.0 + 1e-5)));
    return lo == hi ? lo : bin_of(luma_value(upf_sqrt_rn(l)));
}

void frame(int f, int x, int y)
{
    const int i = y * pc.width + x;
    vec4 c;
    if (BYTES)
        c = to_bytes(f, x, y);
    else if (f == 0)
        c = to_linear(texelFetch(colour_prev, ivec2(pc.prev_x + x, pc.prev_y + y), 0),
                      pc.prev_transfer);
    else
        c = to_linear(texelFetch(colour, ivec2(pc.cur_x + x, pc.cur_y + y), 0), pc.cur_transfer);
    const float l = upf_luma(c.r, c.g, c.b), lc = l > 0.0 ? (l < 1.0 ? l : 1.0) : 0.0;
    /* the luma pyramids (the flow) store luma_value; without them only its bin is needed */
    const float v = pc.levels > 0 ? luma_value(upf_sqrt_rn(lc)) : 0.0;
    if (f == 0) {
        if (!BYTES)
            linear_prev[i] = linear_pack(c.rgb);
        if (pc.levels > 0 && pc.first == 0)
            luma_prev[i] = v;
    } else {
        if (!BYTES)
            linear_cur[i] = linear_pack(c.rgb);
        if (pc.levels > 0 && pc.first == 0)
            luma_cur[i] = v;
    }
    if (pc.levels > 1) /* level 0 of the tile, for the levels step 0 makes (downs) */
        tile[f][gl_LocalInvocationIndex] = v;
    const int bin = pc.levels > 0 ? bin_of(v) : luma_bin(lc);
    const ivec2 o = ivec2(gl_WorkGroupID.xy) * TILE, sides = slot_sides();
    const int sx = x * 4 / pc.width - o.x * 4 / pc.width, sy = y * 4 / pc.height - o.y * 4 / pc.height;
    atomicAdd(counts[((f * sides.y + sy) * sides.x + sx) * BINS + bin], 1u);
}


/* Step l0 >= 1: levels l0 .. l0 + DOWN_FUSED - 1 (at most levels - 1) of both pyramids in one
 * dispatch. A workgroup makes 16 x 16 pixels of level l0 from level l0 - 1 in memory, then
 * from those (kept in shared memory) the 8 x 8 of level l0 + 1 below them, 4 x 4, 2 x 2,
 * 1 x 1: a pixel's children (the last row or column repeated) are in its workgroup's tile, so
 * each level is what a dispatch of its own gives. `fused` (step 0, l0 = 1): level 0's 16 x 16
 * are in the tile already (frame), and levels 1 .. 4 (UPF__VK_FG_PREPARE_FUSED) are its
 * 8 x 8 .. 1 x 1. Every invocation calls this. */
void downs(int l0, bool fused)
{
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int last = min(l0 + DOWN_FUSED - (fused ? 2 : 1), pc.levels - 1);
    for (int l = l0; l <= last; l++) {
        const int s = l - l0 + (fused ? 1 : 0), n = TILE >> s; /* the tile's side at level l */
        const int w = level_size(pc.width, l - 1), h = level_size(pc.height, l - 1);
        const int x = int(gl_WorkGroupID.x) * n + lx, y = int(gl_WorkGroupID.y) * n + ly;
        if (lx < n && ly < n && x < level_size(pc.width, l) && y < level_size(pc.height, l)) {
            const int y0 = 2 * y, y1 = min(2 * y + 1, h - 1);
            const int x0 = 2 * x, x1 = min(2 * x + 1, w - 1);
            float A[4], B[4]; /* (x0, y0), (x1, y0), (x0, y1), (x1, y1) */
            for (int k = 0; k < 4; k++) {
                const int cx = (k & 1) != 0 ? x1 : x0, cy = (k & 2) != 0 ? y1 : y0;
                const int ci = TILE_AT[s > 0 ? s - 1 : 0] +
                               (cy - int(gl_WorkGroupID.y) * 2 * n) * 2 * n +
                               cx - int(gl_WorkGroupID.x) * 2 * n;
                A[k] = s == 0 ? luma_prev[atlas_at(l - 1, cx, cy)] : tile[0][ci];
                B[k] = s == 0 ? luma_cur[atlas_at(l - 1, cx, cy)] : tile[1][ci];
            }
            const float a = luma_mean(A), b = luma_mean(B);
            luma_prev[atlas_at(l, x, y)] = a;
            luma_cur[atlas_at(l, x, y)] = b;
            tile[0][TILE_AT[s] + ly * n + lx] = a;
            tile[1][TILE_AT[s] + ly * n + lx] = b;
        }
        barrier();
    }
}

/* step 0: every invocation of the workgroup reaches the barriers */
void frames(int x, int y)
{
    const int me = int(gl_LocalInvocationIndex);
    const ivec2 sides = slot_sides(), r0 = ivec2(gl_WorkGroupID.xy) * TILE * 4 /
                                           ivec2(pc.width, pc.height); /* the first region */
    const int slots = sides.x * sides.y, used = 2 * slots * BINS;
    for (int k = me; k < used; k += GROUP)
        counts[k] = 0u;
    barrier();
    if (x < pc.width && y < pc.height) {
        frame(0, x, y);
        frame(1, x, y);
    }
    barrier();
    if (pc.levels > 1)
        downs(1, true);
    for (int k = me; k < used; k += GROUP) { /* each region's bins */
        const uint n = counts[k];
        const int f = k / (slots * BINS), s = k / BINS % slots;
        const int region = 1 + (r0.y + s / sides.x) * 4 + r0.x + s % sides.x;
        if (n != 0u)
            atomicAdd(hist[(f * REGIONS + region) * BINS + k % BINS], n);
    }
    for (int k = me; k < 2 * BINS; k += GROUP) { /* the whole frame's: the regions' sums */
        uint n = 0u;
        for (int s = 0; s < slots; s++)
            n += counts[(k / BINS * slots + s) * BINS + k % BINS];
        if (n != 0u)
            atomicAdd(hist[k / BINS * REGIONS * BINS + k % BINS], n);
    }
}

void main()
{
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (pc.step == 0)
        frames(x, y);
    else
        downs(pc.step, false);
}
