/* splat.glsl: the splat of frame N's pixels to a phase (CPU reference: src/framegen/splat.c,
 * upf__fg_splat; docs/FRAMEGEN.md, "splat"), shared by splat.comp (to t, into splat and
 * splat_index) and vectors.comp (to t = 0, into splat_prev and its index). The including
 * shader declares `motion` (vec2[]), `priority` (uint[]), `splat_land` (uint[]: binding 20),
 * the camera surface `cam` (float[], when SPLAT_CAMERA is defined), and the targets as the
 * macros SPLAT_DEPTH and SPLAT_INDEX.
 *
 * Step 0: each pixel with a known vector lands at q = p + shift m (on the camera's curve with
 * a model: where G^shift takes p, plus shift times what G leaves of m) and writes its
 * priority to the four cells around q by atomicMin, and where it landed (the four cells'
 * top-left corner as (y0 + 1) (W + 1) + x0 + 1, or 0xffffffff) to splat_land; step 1 (a
 * dispatch after a barrier) reads that and, in each cell whose priority equals its own,
 * writes its index by atomicMin: the least 64-bit key (priority << 32) | index with 32-bit
 * atomics, both steps on the same cells whatever the compiler does with the arithmetic. The
 * landing position is `precise`, the CPU's operations in its order: the CPU's cells.
 * splat_pixel makes either step for one pixel; with SPLAT_GROUPED, splat_priorities makes
 * step 0 for a workgroup through its cells in shared memory (splat.comp). */
#ifndef UPF_FG_SPLAT_GLSL
#define UPF_FG_SPLAT_GLSL

#include "camera.glsl"

#define FG_INVALID 1e30
#define FG_NONE 0xffffffffu

#ifdef SPLAT_CAMERA
float splat_g[9], splat_pw[9]; /* each invocation's own copy of G and G^shift */
float splat_is;                 /* 1 / the camera's scale, correctly rounded (cam_apply_is) */
bool splat_has;
bool splat_flow; /* the flow's vectors: outside N-1 by the camera, the camera alone */

/* Every invocation calls this first: the model and the phase's powers G and G^shift from the
 * camera surface (the splat's powers step wrote them: splat.comp). */
void splat_camera_setup(bool flow)
{
    splat_has = cam[CAM_HAS] != 0.0;
    splat_flow = flow;
    splat_is = splat_has ? upf_rcp_rn(cam[CAM_S]) : 1.0;
    if (splat_has)
        for (int i = 0; i < 9; i++)
            splat_g[i] = cam[CAM_POW_G + i], splat_pw[i] = cam[CAM_POW_SHIFT + i];
}
#endif

bool splat_landing(int x, int y, int W, int H, float shift, out int x0, out int y0)
{
    x0 = 0, y0 = 0;
    const vec2 m = motion[y * W + x];
    if (!(m.x < FG_INVALID * 0.5))
        return false;
    precise float qx = float(x) + shift * m.x, qy = float(y) + shift * m.y;
#ifdef SPLAT_CAMERA
    if (splat_has) {
        const float px = float(x) + 0.5, py = float(y) + 0.5;
        const float cx = cam[CAM_CX], cy = cam[CAM_CY], s = cam[CAM_S];
        float gx, gy, sx, sy;
        if (cam_apply_is(cx, cy, s, splat_is, splat_g, px, py, gx, gy) &&
            cam_apply_is(cx, cy, s, splat_is, splat_pw, px, py, sx, sy)) {
            const bool alone = splat_flow && cam_outside(W, H, gx, gy);
            precise float ax = sx - 0.5 + (alone ? 0.0 : shift * (m.x - (gx - px)));
            precise float ay = sy - 0.5 + (alone ? 0.0 : shift * (m.y - (gy - py)));
            qx = ax, qy = ay;
        }
    }
#endif
    if (!(qx > -1.0 && qx < float(W) && qy > -1.0 && qy < float(H)))
        return false;
    x0 = int(floor(qx)), y0 = int(floor(qy));
    return true;
}

/* step 0: priorities; step 1: the winners' indices */
void splat_pixel(int x, int y, int W, int H, float shift, uint step)
{
    int x0, y0;
    const uint i = uint(y * W + x);
    if (step == 0u) {
        const bool landed = splat_landing(x, y, W, H, shift, x0, y0);
        splat_land[i] = landed ? uint(y0 + 1) * uint(W + 1) + uint(x0 + 1) : FG_NONE;
        if (!landed)
            return;
    } else {
        const uint l = splat_land[i];
        if (l == FG_NONE)
            return;
        x0 = int(l % uint(W + 1)) - 1, y0 = int(l / uint(W + 1)) - 1;
    }
    const uint p = priority[i];
    for (int k = 0; k < 4; k++) {
        const int tx = x0 + (k & 1), ty = y0 + (k >> 1);
        if (tx < 0 || tx >= W || ty < 0 || ty >= H)
            continue;
        const int c = ty * W + tx;
        if (step == 0u)
            atomicMin(SPLAT_DEPTH[c], p);
        else if (SPLAT_DEPTH[c] == p)
            atomicMin(SPLAT_INDEX[c], i);
    }
}

#ifdef SPLAT_GROUPED
#define SPLAT_TILE 24 /* the side of a workgroup's shared cells (its pixels' side + 8) */
#define SPLAT_GROUP (gl_WorkGroupSize.x * gl_WorkGroupSize.y) /* invocations of a workgroup */
shared uint splat_cells[SPLAT_TILE * SPLAT_TILE];
shared int splat_anchor[2]; /* the tile's top-left cell */
shared uint splat_miss;      /* 1: a landing's cells outside the tile */

/* The workgroup's tile of cells (every invocation calls it, `landed`: its pixel landed with
 * its four cells' top-left corner at (x0, y0)): SPLAT_TILE x SPLAT_TILE cells from (bx, by),
 * centred on where the workgroup's centre pixel landed (else on the workgroup); true when
 * every landing's cells are in it. Neighbours land near each other (a surface's motion is
 * smooth): it fits where the motion spreads less than +-11 px about the centre's across 16 x
 * 16 pixels. Each invocation tests its own cells and only one that misses writes (an atomic
 * or): not four atomics on four shared words from every invocation (a box's least and largest
 * corners), all of them on the same words. Any tile gives the same cells: the least of a set.
 * Two barriers; the tile holds until the workgroup calls it again. */
bool splat_group_tile(bool landed, int x0, int y0, out int bx, out int by)
{
    const uint me = gl_LocalInvocationIndex;
    const uint centre = (gl_WorkGroupSize.y / 2u) * gl_WorkGroupSize.x + gl_WorkGroupSize.x / 2u;
    if (me == 0u)
        splat_miss = 0u;
    if (me == centre) {
        const ivec2 own = ivec2(gl_WorkGroupID.xy * gl_WorkGroupSize.xy) - 4;
        splat_anchor[0] = landed ? x0 - SPLAT_TILE / 2 + 1 : own.x;
        splat_anchor[1] = landed ? y0 - SPLAT_TILE / 2 + 1 : own.y;
    }
    barrier();
    bx = splat_anchor[0], by = splat_anchor[1];
    if (landed && (x0 < bx || x0 > bx + SPLAT_TILE - 2 || y0 < by || y0 > by + SPLAT_TILE - 2))
        atomicOr(splat_miss, 1u);
    barrier();
    return splat_miss == 0u;
}

/* Step 0 of splat_pixel for a whole workgroup (every invocation calls it; `in_frame`: (x, y) is
 * in the frame): the same landings and cells, but the priorities go first into the
 * workgroup's own copy of the cells, in shared memory, where its landings' cells fit
 * SPLAT_TILE x SPLAT_TILE (neighbours land on the same cells: about 289 global atomics for
 * 256 pixels, not 1024), each non-empty one then into SPLAT_DEPTH once; straight into SPLAT_DEPTH
 * otherwise. The least of a set is the same whatever the order: the same cells. */
void splat_priorities(int x, int y, int W, int H, float shift, bool in_frame)
{
    const uint me = gl_LocalInvocationIndex;
    for (uint k = me; k < SPLAT_TILE * SPLAT_TILE; k += SPLAT_GROUP)
        splat_cells[k] = FG_NONE;
    int x0 = 0, y0 = 0, bx, by;
    const uint i = uint(y * W + x);
    const bool landed = in_frame && splat_landing(x, y, W, H, shift, x0, y0);
    if (in_frame)
        splat_land[i] = landed ? uint(y0 + 1) * uint(W + 1) + uint(x0 + 1) : FG_NONE;
    const bool fits = splat_group_tile(landed, x0, y0, bx, by);
    if (landed) {
        const uint p = priority[i];
        for (int k = 0; k < 4; k++) {
            const int tx = x0 + (k & 1), ty = y0 + (k >> 1);
            if (tx < 0 || tx >= W || ty < 0 || ty >= H)
                continue;
            if (fits)
                atomicMin(splat_cells[(ty - by) * SPLAT_TILE + tx - bx], p);
            else
                atomicMin(SPLAT_DEPTH[ty * W + tx], p);
        }
    }
    barrier();
    if (!fits)
        return;
    for (uint k = me; k < SPLAT_TILE * SPLAT_TILE; k += SPLAT_GROUP) {
        const uint p = splat_cells[k]; /* FG_NONE: no change (the surface starts there) */
        if (p != FG_NONE)
            atomicMin(SPLAT_DEPTH[(by + int(k) / SPLAT_TILE) * W + bx + int(k) % SPLAT_TILE], p);
    }
}
#endif

#endif
