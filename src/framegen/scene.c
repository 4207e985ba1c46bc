/* scene.c: the frame generation engine's scene pass (docs/FRAMEGEN.md, "scene"): whether the
 * two frames show different scenes (a cut the host did not flag), decided from prepare's luma
 * histograms on the device, for the resolve to take: no read-back to the host in the middle
 * of a frame.
 *
 * Reads: histograms (r32ui). Writes: scene (r32f 4 x 1: 1 where the frames are of different
 * scenes, else 0; the whole frame's histogram distance; the median region's distance; 0, for
 * the cut pass, cut.c, to write after the flow).
 *
 * The distance of two histograms is their L1 distance as a share of their pixels (0: equal,
 * 1: disjoint). A cut: the whole frames' histograms differ by more than `global` and the
 * median of the 16 regions' distances (the mean of the 8th and 9th smallest) by more than
 * `regions`: a pan that brings a bright sky into view changes the whole frame's histogram, but
 * not that of most regions. With `enabled` 0 (game vectors: the host says when it cuts) the
 * decision is 0. One task (a shader: one workgroup, an invocation a region's sum and its
 * rank among the regions' distances in place of the sort: scene.comp). */
#include <math.h>

#include "framegen/framegen_passes.h"

static float hist_distance(const uint32_t *a, const uint32_t *b)
{
    float d = 0.0f, n = 0.0f;
    for (int i = 0; i < UPF__FG_HIST_BINS; i++) {
        d += fabsf((float)a[i] - (float)b[i]);
        n += (float)a[i];
    }
    return n > 0.0f ? 0.5f * d / n : 0.0f;
}

upf_result upf__fg_scene_pass(const upf__pass_args *a)
{
    const upf__fg_scene_con *con = a->con;
    const uint32_t *h = a->surface[UPF__FG_HISTOGRAMS].data;
    const uint32_t *h2 = h + UPF__FG_HIST_REGIONS * UPF__FG_HIST_BINS;
    float *out = a->surface[UPF__FG_SCENE].data;
    const float global = hist_distance(h, h2);
    float r[UPF__FG_HIST_REGIONS - 1];
    for (int i = 1; i < UPF__FG_HIST_REGIONS; i++) {
        const float d = hist_distance(h + i * UPF__FG_HIST_BINS, h2 + i * UPF__FG_HIST_BINS);
        int k = i - 1;
        while (k > 0 && r[k - 1] > d) {
            r[k] = r[k - 1];
            k--;
        }
        r[k] = d;
    }
    const float regions = 0.5f * (r[7] + r[8]);
    out[0] = con->enabled && global > con->global && regions > con->regions ? 1.0f : 0.0f;
    out[1] = global;
    out[2] = regions;
    out[3] = 0.0f;
    return UPF_OK;
}
