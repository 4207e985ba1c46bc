/* scene.comp: the scene pass on the GPU (CPU reference: src/framegen/scene.c; docs/FRAMEGEN.md,
 * "scene"). Reads: histograms (binding 10: r32ui, 2 frames x 17 x 32 bins, the whole frame
 * then 4 x 4 regions). Writes: scene (binding 26: r32f 4 x 1: 1 for a cut else 0, the whole
 * frame's distance, the median region's, 0: the cut pass's counter, zeroed here once a pair).
 *
 * One workgroup of 17 x 32 invocations, grid 1. Each loads one bin of both frames into shared
 * memory (every load at once, not 64 dependent ones in a loop); invocation k < 17 sums region
 * k's (0 the whole frame) L1 distance of the two frames' histograms as a share of its pixels,
 * bin by bin in the CPU's order (`precise`: the same floats); invocation k of the 16 regions
 * finds its rank among their distances (the smaller ones, and the equal ones of a lower
 * region: a sort's places, each once) and those of ranks 7 and 8 give the 8th and 9th
 * smallest, the values scene.c's insertion sort puts there (no sort in one invocation's local
 * memory); invocation 0 takes their mean and decides. */
#version 450

#extension GL_GOOGLE_include_directive : require
#include "exact.glsl"

#define BINS 32
#define REGIONS 17

layout(local_size_x = 544) in; /* REGIONS x BINS */
layout(set = 0, binding = 10, std430) readonly buffer Hist { uint hist[]; };
layout(set = 0, binding = 26, std430) writeonly buffer Scene { float scene[]; };
layout(push_constant) uniform Push {
    uint enabled;       /* 0: no decision (game vectors) */
    float global_cut, regions_cut;
} pc;

shared float ha[REGIONS * BINS], hb[REGIONS * BINS]; /* each frame's bins, as floats */
shared float dist[REGIONS];
shared float mid[2]; /* the 8th and 9th smallest of the regions' distances */

void main()
{
    const int t = int(gl_LocalInvocationIndex);
    ha[t] = float(hist[t]);
    hb[t] = float(hist[REGIONS * BINS + t]);
    barrier();
    if (t < REGIONS) {
        precise float d = 0.0, n = 0.0;
        for (int i = 0; i < BINS; i++) {
            const float a = ha[t * BINS + i], b = hb[t * BINS + i];
            d += abs(a - b);
            n += a;
        }
        precise float r = upf_fdiv_rn(0.5 * d, n);
        dist[t] = n > 0.0 ? r : 0.0;
    }
    barrier();
    if (t >= 1 && t < REGIONS) {
        const float v = dist[t];
        int rank = 0;
        for (int j = 1; j < REGIONS; j++)
            rank += dist[j] < v || (dist[j] == v && j < t) ? 1 : 0;
        if (rank == 7 || rank == 8)
            mid[rank - 7] = v;
    }
    barrier();
    if (t != 0)
        return;
    precise float regions = 0.5 * (mid[0] + mid[1]);
    const float global = dist[0];
    scene[0] = pc.enabled != 0u && global > pc.global_cut && regions > pc.regions_cut ? 1.0 : 0.0;
    scene[1] = global;
    scene[2] = regions;
    scene[3] = 0.0; /* the cut pass's counter (cut.comp, step 0): its bits 0 */
}
