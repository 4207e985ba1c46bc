/* inpaint.comp: the inpaint pass on the GPU (CPU reference: src/framegen/inpaint.c;
 * docs/FRAMEGEN.md, "inpaint") but for its last step. Reads: resolved (binding 23: alpha 1
 * where resolved, 0 in a hole). Writes: the colour pyramid (24: levels 1.. stacked by rows,
 * each as wide as level 0).
 *
 * Push-pull (Gortler et al. 1996, "The lumigraph", 3.3), the step patched into the push
 * constants after the pass's constants: step l = 1, 6, 11, .. (below levels) makes levels
 * l .. l + 4 down in one dispatch (downs, through shared memory), each pixel the
 * alpha-weighted mean of its 2x2 children, alpha their sum capped at 1 (the coarsest level's
 * alpha then set to 1: no information at all is black); step -l (l >= 1) goes up at level l,
 * one dispatch a level (inpaint.glsl, up_value); the small levels' up steps (those of at most
 * UPF__VK_FG_UP_TAIL pixels) go in one dispatch of one workgroup (up_tail). Level 1's down
 * step is the resolve's (resolve.comp), levels 1's and 0's up steps the compose's
 * (compose.glsl, inpaint.glsl up_value0): the inpainted frame, which only the compose reads,
 * is never written. The backend records the down steps and the up steps as two GPU passes of
 * this shader (upf__vk_fg_down_dispatches from level 2, upf__vk_fg_up_dispatches down to
 * level 2; this shader still makes level 1 both ways where asked: step 1, step -1). Every
 * operation `precise`, in the CPU's order. One invocation per pixel of the level (of the down
 * step's first), 16 x 16 a workgroup (a workgroup's launch costs about the same whatever its
 * size: 256 pixels a workgroup, not 64, launch a quarter of the workgroups). */
#version 450

#extension GL_GOOGLE_include_directive : require
#include "exact.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 23, std430) readonly buffer Resolved { vec4 resolved[]; };
layout(set = 0, binding = 24, std430) coherent buffer Pyramid { vec4 pyramid[]; };
layout(push_constant) uniform Push {
    int width, height;
    int levels;         /* of the colour pyramid, level 0 included */
    int step;           /* patched: l >= 1 down to level l, -l up at level l */
} pc;

#define DOWN_FUSED 5 /* pyramid levels a down step makes (vk_framegen.h, UPF__VK_FG_DOWNS) */
#define UP_TAIL 256  /* the up steps' tail step: -(UP_TAIL + lo) (UPF__VK_FG_UP_TAIL_STEP) */
#define GROUP 256    /* invocations of a workgroup */
shared vec4 tile[341]; /* the down step's levels: 16 x 16, 8 x 8, 4 x 4, 2 x 2, 1 x 1 */
const int TILE_AT[5] = int[5](0, 256, 320, 336, 340);

#include "inpaint.glsl"
#include "inpaint_down.glsl"

/* child k of pixel (lx, ly) of the workgroup's tile at its level s + 1 (side n): its level
 * s's in the tile (an index in the tile only where s is one of the tile's levels) */
vec4 tile_at(int s, int n, int lx, int ly, int k)
{
    return tile[TILE_AT[s] + (2 * ly + (k >> 1)) * 2 * n + 2 * lx + (k & 1)];
}

/* Step l0 >= 1: levels l0 .. l0 + DOWN_FUSED - 1 (at most levels - 1) in one dispatch. A
 * workgroup makes 16 x 16 pixels of level l0 from level l0 - 1 in memory, then from those
 * (kept in shared memory) the 8 x 8 of level l0 + 1 below them, 4 x 4, 2 x 2, 1 x 1: a pixel's
 * children are in its workgroup's tile, so each level is what a dispatch of its own gives,
 * with a barrier instead of a dispatch between levels. Every invocation calls this. */
void downs(int l0)
{
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int last = min(l0 + DOWN_FUSED - 1, pc.levels - 1);
    for (int l = l0; l <= last; l++) {
        const int s = l - l0, n = 16 >> s;              /* the tile's side at level l */
        const int cw = level_size(pc.width, l - 1), ch = level_size(pc.height, l - 1);
        const int x = int(gl_WorkGroupID.x) * n + lx, y = int(gl_WorkGroupID.y) * n + ly;
        if (lx < n && ly < n && x < level_size(pc.width, l) && y < level_size(pc.height, l)) {
            vec4 c[4];
            bool ok[4];
            for (int k = 0; k < 4; k++) {
                const int cx = 2 * x + (k & 1), cy = 2 * y + (k >> 1);
                ok[k] = cx < cw && cy < ch;
                c[k] = !ok[k] ? vec4(0.0)
                       : s == 0 ? level_at(l - 1, cx, cy) : tile_at(s - 1, n, lx, ly, k);
            }
            const vec4 o = inpaint_down(c, ok, l == pc.levels - 1);
            pyramid[level_base(l) + y * pc.width + x] = o;
            tile[TILE_AT[s] + ly * n + lx] = o;
        }
        barrier();
    }
}

/* up at level l >= 1, into the pyramid (the engine's levels 1 and 0: the compose's) */
void up(int l, int x, int y)
{
    pyramid[level_base(l) + y * pc.width + x] = up_value(l, x, y);
}

/* Step -(UP_TAIL + lo): up at levels levels - 2 .. lo, all small, by this one workgroup, a
 * barrier between levels (the pyramid is `coherent`: the next level reads what other
 * invocations wrote) instead of a dispatch each. */
void up_tail(int lo)
{
    for (int l = pc.levels - 2; l >= lo; l--) {
        const int w = level_size(pc.width, l), h = level_size(pc.height, l);
        for (int i = int(gl_LocalInvocationIndex); i < w * h; i += GROUP)
            up(l, i % w, i / w);
        memoryBarrierBuffer();
        barrier();
    }
}

void main()
{
    if (pc.step > 0) {
        downs(pc.step);
        return;
    }
    if (-pc.step >= UP_TAIL) {
        up_tail(-pc.step - UP_TAIL);
        return;
    }
    const int l = -pc.step; /* >= 1 */
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x < level_size(pc.width, l) && y < level_size(pc.height, l))
        up(l, x, y);
}
