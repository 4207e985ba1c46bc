/* fill.comp: the fill pass on the GPU (CPU reference: src/framegen/fill.c; docs/FRAMEGEN.md,
 * "fill"). Reads: splat (binding 18), splat_index (19), motion (11), camera (16). Writes:
 * motion_t (21: x, y, the priority's bits, 1 for a hole) and the motion pyramid (22: levels
 * 1.. stacked by rows, each as wide as level 0).
 *
 * Dispatches, the step patched into the push constants after the pass's constants (a barrier
 * between each): step 0 (or step 1 with its down: vk_framegen.h, upf__vk_fg_fill_dispatches)
 * decodes the splat (the landed pixel's motion, with a camera model what the camera's
 * homography G leaves of it, G as the splat's powers step wrote it into the camera surface;
 * a hole where nothing landed); steps l = 1, 6, 11, .. below levels make
 * levels l .. l + 4 (downs: five levels a dispatch, through shared memory), each pixel the
 * farthest (largest priority) of its 2x2 children that have a motion, the first of equals;
 * step `levels` fills each hole of level 0 from the first level whose ancestor has a motion
 * and the two above, the farthest of the 3x3 around the ancestor. With flow_rank (optical
 * flow: a priority is a speed) every consistent vector ranks alike and a lost one (FG_LOST)
 * below them (fill_rank). The buffers are read and written as words (uvec4), so the
 * priority's bits pass through as they are (a reversed depth's bits can be a NaN's). One
 * invocation per pixel of the level (the down step's first), 16 x 16 a workgroup (a
 * workgroup's launch costs about the same whatever its size: 256 pixels a workgroup, not 64,
 * launch a quarter of the workgroups). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 11, std430) readonly buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 16, std430) readonly buffer Camera { float cam[]; };
layout(set = 0, binding = 18, std430) readonly buffer Splat { uint splat[]; };
layout(set = 0, binding = 19, std430) readonly buffer SplatIndex { uint splat_index[]; };
layout(set = 0, binding = 21, std430) buffer MotionT { uvec4 motion_t[]; };
layout(set = 0, binding = 22, std430) buffer Pyramid { uvec4 pyramid[]; };
layout(push_constant) uniform Push {
    int width, height;
    int levels;         /* of the motion pyramid, level 0 included */
    uint flow_rank;     /* 1: rank by fill_rank's flow rule, not the priority */
    int step;           /* patched: 0 decode, 1 .. levels - 1 down, levels up */
} pc;

#include "camera.glsl"

#define FG_NONE 0xffffffffu
#define FG_LOST 0xfffffffeu /* the flow's priority of an inconsistent vector */
const uvec4 HOLE = uvec4(0u, 0u, 0u, 0x3f800000u); /* (0, 0, priority 0, 1.0) */

#define DOWN_FUSED 5 /* pyramid levels a down step makes (vk_framegen.h, UPF__VK_FG_DOWNS) */
shared uvec4 tile[341]; /* the down step's levels: 16 x 16, 8 x 8, 4 x 4, 2 x 2, 1 x 1 */
const int TILE_AT[5] = int[5](0, 256, 320, 336, 340);

int level_size(int size, int l)
{
    return (size + (1 << l) - 1) >> l;
}

/* the first element of level l (l >= 1) in the pyramid buffer */
int level_base(int l)
{
    int row = 0;
    for (int k = 1; k < l; k++)
        row += level_size(pc.height, k);
    return row * pc.width;
}

/* how far a surface is: its priority, or with flow_rank 1 consistent, 0 lost */
uint fill_rank(uint p)
{
    return pc.flow_rank != 0u ? (p == FG_LOST ? 0u : 1u) : p;
}

uvec4 level_at(int l, int x, int y)
{
    return l == 0 ? motion_t[y * pc.width + x] : pyramid[level_base(l) + y * pc.width + x];
}

float fill_g[9]; /* G (the splat's powers step wrote it: camera.glsl, CAM_POW) */
float fill_is;   /* 1 / the camera's scale, correctly rounded (cam_apply_is) */
bool fill_has;   /* a camera model */

/* the camera for decode_from, once an invocation */
void fill_camera_setup()
{
    fill_has = cam[CAM_HAS] != 0.0;
    fill_is = fill_has ? upf_rcp_rn(cam[CAM_S]) : 1.0;
    for (int j = 0; j < 9; j++)
        fill_g[j] = fill_has ? cam[CAM_POW_G + j] : 0.0;
}

/* level 0's pixel i from what landed there (k: its splat_index, m: motion[k], p: its splat
 * priority; k FG_NONE: a hole), written to motion_t and returned */
uvec4 decode_from(int i, uint k, vec2 m, uint p)
{
    if (k == FG_NONE) {
        motion_t[i] = HOLE;
        return HOLE;
    }
    float ox = m.x, oy = m.y;
    if (fill_has) {
        const float px = float(int(k) % pc.width) + 0.5, py = float(int(k) / pc.width) + 0.5;
        float gx, gy;
        if (cam_apply_is(cam[CAM_CX], cam[CAM_CY], cam[CAM_S], fill_is, fill_g, px, py, gx,
                          gy)) {
            precise float rx = m.x - (gx - px), ry = m.y - (gy - py);
            const bool alone = pc.flow_rank != 0u && cam_outside(pc.width, pc.height, gx, gy);
            ox = alone ? 0.0 : rx, oy = alone ? 0.0 : ry; /* fill.c: the camera alone */
        }
    }
    const uvec4 o = uvec4(floatBitsToUint(ox), floatBitsToUint(oy), p, 0u);
    motion_t[i] = o;
    return o;
}

/* level 0's pixel (x, y), written to motion_t and returned */
uvec4 decode(int x, int y)
{
    const int i = y * pc.width + x;
    const uint k = splat_index[i];
    return k == FG_NONE ? decode_from(i, k, vec2(0.0), 0u) : decode_from(i, k, motion[k], splat[i]);
}

/* the farthest of the children with a motion, the first of equals (fill.c's order) */
void consider(uvec4 c, inout uvec4 best, inout bool found)
{
    if (c.w == 0u && (!found || fill_rank(c.z) > fill_rank(best.z)))
        best = c, found = true;
}

/* child k of pixel (lx, ly) of the workgroup's tile at its level s + 1 (side n): its level
 * s's in the tile (an index in the tile only where s is one of the tile's levels) */
uvec4 tile_at(int s, int n, int lx, int ly, int k)
{
    return tile[TILE_AT[s] + (2 * ly + (k >> 1)) * 2 * n + 2 * lx + (k & 1)];
}

/* Step l0 (1 <= l0 < levels): levels l0 .. l0 + DOWN_FUSED - 1 (at most levels - 1) in one
 * dispatch. A workgroup makes 16 x 16 pixels of level l0 from level l0 - 1 in memory (step 1
 * from level 0 as it decodes it: each invocation its pixel's four children, the decode step's
 * very values, so level 0 is not read back), then from those (kept in shared memory) the
 * 8 x 8 of level l0 + 1 below them, 4 x 4, 2 x 2, 1 x 1: a pixel's children are in its
 * workgroup's tile, so each level is what a dispatch of its own gives, with a barrier
 * instead of a dispatch between levels. Every invocation calls this. */
void downs(int l0)
{
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int last = min(l0 + DOWN_FUSED - 1, pc.levels - 1);
    for (int l = l0; l <= last; l++) {
        const int s = l - l0, n = 16 >> s;              /* the tile's side at level l */
        const int cw = level_size(pc.width, l - 1), ch = level_size(pc.height, l - 1);
        const int x = int(gl_WorkGroupID.x) * n + lx, y = int(gl_WorkGroupID.y) * n + ly;
        if (lx < n && ly < n && x < level_size(pc.width, l) && y < level_size(pc.height, l)) {
            uvec4 best = HOLE;
            bool found = false;
            for (int k = 0; k < 4; k++) {
                const int cx = 2 * x + (k & 1), cy = 2 * y + (k >> 1);
                if (cx >= cw || cy >= ch)
                    continue;
                consider(s > 0  ? tile_at(s - 1, n, lx, ly, k)
                         : l == 1 ? decode(cx, cy)
                                  : level_at(l - 1, cx, cy),
                         best, found);
            }
            pyramid[level_base(l) + y * pc.width + x] = best;
            tile[TILE_AT[s] + ly * n + lx] = best;
        }
        barrier();
    }
}

/* A hole is where nothing landed (decode): told by splat_index's 4 bytes, not motion_t's 16 */
void up(int x, int y)
{
    const int i = y * pc.width + x;
    if (splat_index[i] != FG_NONE)
        return;
    /* the first level whose ancestor has a motion, the ancestors of four levels loaded
     * together (their addresses do not depend on each other: not a chain of dependent loads
     * up the pyramid) */
    int found = -1;
    for (int l0 = 1; l0 < pc.levels && found < 0; l0 += 4) {
        uint hole[4];
        for (int j = 0; j < 4; j++)
            hole[j] = l0 + j < pc.levels ? level_at(l0 + j, x >> (l0 + j), y >> (l0 + j)).w : 1u;
        for (int j = 3; j >= 0; j--)
            if (hole[j] == 0u)
                found = l0 + j;
    }
    if (found < 0)
        return;
    uvec4 best = uvec4(0u);
    bool have = false;
    for (int l = found; l < pc.levels && l <= found + 2; l++) {
        const int w = level_size(pc.width, l), h = level_size(pc.height, l);
        const int ax = x >> l, ay = y >> l;
        for (int k = 0; k < 9; k++) {
            const int sx = ax + k % 3 - 1, sy = ay + k / 3 - 1;
            if (sx < 0 || sy < 0 || sx >= w || sy >= h)
                continue;
            const uvec4 a = level_at(l, sx, sy);
            if (a.w == 0u && (!have || fill_rank(a.z) > fill_rank(best.z)))
                best = a, have = true;
        }
    }
    if (have)
        motion_t[i] = uvec4(best.xyz, HOLE.w);
}

void main()
{
    if (pc.step <= 1) /* the decode's */
        fill_camera_setup();
    if (pc.step > 0 && pc.step < pc.levels) {
        downs(pc.step);
        return;
    }
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= pc.width || y >= pc.height)
        return;
    if (pc.step == 0)
        decode(x, y);
    else
        up(x, y);
}
