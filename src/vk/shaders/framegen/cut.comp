/* cut.comp: the cut pass on the GPU (CPU reference: src/framegen/cut.c; docs/FRAMEGEN.md,
 * "cut"). Reads: priority (binding 12: r32ui, FG_LOST where the flow's vector failed its
 * forward/backward check), scene (26). Writes: scene (26): its first value 2 where this pass
 * finds a cut and the scene pass found none, its fourth the share of lost vectors.
 *
 * Two steps (patched after the pass's constants; a barrier between them,
 * vk_framegen.c's upf__vk_fg_cut_frame gives the grids):
 * - step 0, the count, over the whole frame: workgroup w of PER_GROUP pixels from
 *   w PER_GROUP, invocation k its pixels k, k + 256, ... (PER loads in flight, coalesced),
 *   the workgroup's counts summed in shared memory by halving, and one atomicAdd of the sum
 *   into scene's fourth word, read as an integer: the counter, which the scene pass of the
 *   same pair set to 0 (scene.comp writes 0.0, whose bits are 0) before this step runs.
 *   An exact integer count, whatever the order of the workgroups;
 * - step 1, the decision, one invocation (grid 1): lost = the counter; a cut when
 *   float(lost) > lost_cut x float(n) (a conversion and a product, both correctly rounded, so
 *   the decision is cut.c's), and the counter replaced by the share float(lost) / float(n) (a
 *   division: within 2.5 ulp of the CPU's).
 * With `enabled` 0 neither step writes anything. (Before: one workgroup looped over the whole
 * frame, latency-bound on one SM: some 0.47 ms at 1920x1080 and 3.1 ms at 3840x2160 on an
 * H200, the bench's flow column less test_vk_flow's flow.) */
#version 450

layout(local_size_x = 256) in;
layout(set = 0, binding = 12, std430) readonly buffer Priority { uint priority[]; };
layout(set = 0, binding = 26, std430) buffer Scene { uint scene[]; }; /* the floats' bits */
layout(push_constant) uniform Push {
    int width, height;
    uint enabled;       /* 0: no decision (not the flow) */
    float lost_cut;     /* a cut: more than this share of N's vectors lost */
    uint step;          /* patched: 0 the count, 1 the decision */
} pc;

#define FG_LOST 0xfffffffeu
#define GROUP 256
#define PER 32                    /* pixels per invocation in step 0 */
#define PER_GROUP (GROUP * PER)   /* UPF__VK_FG_CUT_PIXELS: pixels per workgroup */

shared uint counts[GROUP];

void count_step()
{
    const uint k = gl_LocalInvocationIndex;
    const uint n = uint(pc.width) * uint(pc.height);
    const uint base = gl_WorkGroupID.x * PER_GROUP + k;
    uint c = 0u;
    for (uint j = 0u; j < PER; j++) {
        const uint i = base + j * GROUP;
        if (i < n)
            c += priority[i] == FG_LOST ? 1u : 0u;
    }
    counts[k] = c;
    barrier();
    for (uint h = GROUP / 2; h > 0u; h >>= 1) {
        if (k < h)
            counts[k] += counts[k + h];
        barrier();
    }
    if (k == 0u && counts[0] != 0u)
        atomicAdd(scene[3], counts[0]);
}

void decide()
{
    if (gl_LocalInvocationIndex != 0u || gl_WorkGroupID.x != 0u)
        return;
    const uint n = uint(pc.width) * uint(pc.height);
    const uint lost = scene[3];
    precise float limit = pc.lost_cut * float(n);
    scene[3] = floatBitsToUint(n > 0u ? float(lost) / float(n) : 0.0);
    if (uintBitsToFloat(scene[0]) == 0.0 && float(lost) > limit)
        scene[0] = floatBitsToUint(2.0);
}

void main()
{
    if (pc.enabled == 0u)
        return;
    if (pc.step == 0u)
        count_step();
    else
        decide();
}
