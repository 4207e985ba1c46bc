/* cut.c: the frame generation engine's cut pass (docs/FRAMEGEN.md, "cut"): whether the
 * optical flow found the two frames to be of different shots, decided on the device from the
 * flow's own check, for the resolve to take as it takes the scene pass's decision (no
 * read-back to the host in the middle of a frame).
 *
 * Reads: priority (r32ui: the flow's, UPF__FG_LOST where a vector failed the forward/backward
 * check), scene. Writes: scene (its first value 2 where this pass finds a cut and the scene
 * pass found none; its fourth the share of lost vectors).
 *
 * Two frames of one map from different shots have the same colours (the scene pass's
 * histograms do not tell them apart) but no motion between them: where the flow matches a
 * block in the other frame, the match does not come back. A cut: more than `lost` of N's
 * pixels fail the check (measured: docs/QUALITY.md, "Frame generation"). With `enabled` 0
 * (game vectors) the pass writes nothing. One task, the pixels in order (the shader,
 * cut.comp: an exact integer count in any order, spread over the whole GPU, each workgroup's
 * count added atomically, then one invocation decides as here). */
#include "framegen/framegen_passes.h"

upf_result upf__fg_cut_pass(const upf__pass_args *a)
{
    const upf__fg_cut_con *con = a->con;
    if (!con->enabled)
        return UPF_OK;
    const uint32_t *pri = a->surface[UPF__FG_PRIORITY].data;
    float *scene = a->surface[UPF__FG_SCENE].data;
    const uint32_t n = (uint32_t)con->width * (uint32_t)con->height;
    uint32_t lost = 0;
    for (uint32_t i = 0; i < n; i++)
        lost += pri[i] == UPF__FG_LOST;
    /* in fp32 as a shader decides: float(lost) > lost x float(n), both correctly rounded */
    const float limit = con->lost * (float)n;
    scene[3] = n ? (float)lost / (float)n : 0.0f;
    if (scene[0] == 0.0f && (float)lost > limit)
        scene[0] = 2.0f;
    return UPF_OK;
}
