/* cut.comp: the cut pass on the GPU (CPU reference: src/framegen/cut.c; docs/FRAMEGEN.md,
 * "cut"). Reads: priority (binding 12: r32ui, FG_LOST where the flow's vector failed its
 * forward/backward check), scene (26). Writes: scene (26): its first value 2 where this pass
 * finds a cut and the scene pass found none, its fourth the share of lost vectors.
 *
 * One workgroup of 256 invocations: invocation k counts the lost pixels k, k + 256, ... (an
 * exact integer count, whatever the order), the counts are summed in shared memory by
 * halving; invocation 0 decides as cut.c does: a cut when float(lost) > lost_cut x float(n)
 * (a conversion and a product, both correctly rounded, so the decision is the CPU's) and
 * writes the share float(lost) / float(n) (a division: within 2.5 ulp of the CPU's). With
 * `enabled` 0 it writes nothing. Grid 1. */
#version 450

layout(local_size_x = 256) in;
layout(set = 0, binding = 12, std430) readonly buffer Priority { uint priority[]; };
layout(set = 0, binding = 26, std430) buffer Scene { float scene[]; };
layout(push_constant) uniform Push {
    int width, height;
    uint enabled;       /* 0: no decision (not the flow) */
    float lost_cut;     /* a cut: more than this share of N's vectors lost */
} pc;

#define FG_LOST 0xfffffffeu
#define GROUP 256

shared uint counts[GROUP];

void main()
{
    if (pc.enabled == 0u)
        return;
    const uint k = gl_LocalInvocationIndex;
    const uint n = uint(pc.width) * uint(pc.height);
    uint c = 0u;
    for (uint i = k; i < n; i += GROUP)
        c += priority[i] == FG_LOST ? 1u : 0u;
    counts[k] = c;
    barrier();
    for (uint h = GROUP / 2; h > 0u; h >>= 1) {
        if (k < h)
            counts[k] += counts[k + h];
        barrier();
    }
    if (k != 0u)
        return;
    const uint lost = counts[0];
    precise float limit = pc.lost_cut * float(n);
    scene[3] = n > 0u ? float(lost) / float(n) : 0.0;
    if (scene[0] == 0.0 && float(lost) > limit)
        scene[0] = 2.0;
}
