/* scene.comp: the scene pass on the GPU (CPU reference: src/framegen/scene.c; docs/FRAMEGEN.md,
 * "scene"). Reads: histograms (binding 10: r32ui, 2 frames x 17 x 32 bins, the whole frame
 * then 4 x 4 regions). Writes: scene (binding 26: r32f 4 x 1: 1 for a cut else 0, the whole
 * frame's distance, the median region's, 0: the cut pass's counter, zeroed here once a pair).
 *
 * One workgroup of 17 invocations: invocation k the L1 distance of the two frames' histograms
 * of region k (0 the whole frame) as a share of its pixels, summed bin by bin in the CPU's
 * order (`precise`: the same floats); then invocation 0 sorts the 16 regions' distances by
 * insertion as scene.c does, takes the mean of the 8th and 9th smallest and decides. Grid 1. */
#version 450

#extension GL_GOOGLE_include_directive : require
#include "exact.glsl"

layout(local_size_x = 17) in;
layout(set = 0, binding = 10, std430) readonly buffer Hist { uint hist[]; };
layout(set = 0, binding = 26, std430) writeonly buffer Scene { float scene[]; };
layout(push_constant) uniform Push {
    uint enabled;       /* 0: no decision (game vectors) */
    float global_cut, regions_cut;
} pc;

#define BINS 32
#define REGIONS 17

shared float dist[REGIONS];

void main()
{
    const int k = int(gl_LocalInvocationIndex);
    precise float d = 0.0, n = 0.0;
    for (int i = 0; i < BINS; i++) {
        const float a = float(hist[k * BINS + i]), b = float(hist[(REGIONS + k) * BINS + i]);
        d += abs(a - b);
        n += a;
    }
    precise float r = upf_fdiv_rn(0.5 * d, n);
    dist[k] = n > 0.0 ? r : 0.0;
    barrier();
    if (k != 0)
        return;
    float s[REGIONS - 1];
    for (int i = 1; i < REGIONS; i++) {
        const float v = dist[i];
        int j = i - 1;
        while (j > 0 && s[j - 1] > v) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = v;
    }
    precise float regions = 0.5 * (s[7] + s[8]);
    const float global = dist[0];
    scene[0] = pc.enabled != 0u && global > pc.global_cut && regions > pc.regions_cut ? 1.0 : 0.0;
    scene[1] = global;
    scene[2] = regions;
    scene[3] = 0.0; /* the cut pass's counter (cut.comp, step 0): its bits 0 */
}
