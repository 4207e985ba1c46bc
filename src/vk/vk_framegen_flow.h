/* vk_framegen_flow.h: the optical flow's GPU passes (shaders src/vk/shaders/framegen/flow.comp,
 * flow_refine.comp, flow_choose.comp, flow_check.comp; CPU reference src/framegen/flow.c;
 * docs/FRAMEGEN.md, "flow"), for the frame generation backend to record between its scene and
 * camera passes.
 *
 * upf__vk_fg_flow_plans appends the flow's GPU passes to a runner's table (at `plan`: up to
 * UPF__VK_FG_FLOW_PLANS_MAX of them) and returns how many it wrote. Every one has
 * .pass = UPF__FG_FLOW and the CPU pass's masks (reads luma prev and luma; writes motion,
 * priority, prev motion, flow blocks, flow hist, flow global: the engine's surfaces, bound at
 * their surface indices), one pipeline each ("framegen/flow" for the first
 * UPF__VK_FG_FLOW_LEVEL_PLANS, then "framegen/flow_level0", "framegen/flow_refine",
 * "framegen/flow_choose", "framegen/flow_check": a SPIR-V per step, so that each step's
 * shared memory and registers set its own occupancy), push constants upf__vk_fg_flow_push
 * (the flow's constants, then the step code each dispatch patches); the last has the
 * timestamp. No clear: the search zeroes
 * the histograms itself.
 *
 * upf__vk_fg_flow_frames fills their per-frame descriptions pf[0 .. n - 1] (n as the plans
 * returned) and their push constants push[0 .. n - 1] from the CPU engine's tables `ps`
 * (upf__interpolate_passes of an engine made for the flow: its UPF__FG_FLOW constants, whose
 * width, height and levels give every dispatch): the dispatches in order (per level
 * from the coarsest: search, median (+ histograms), global (levels above 0; on a level that
 * upf__fg_flow_fused says is small one dispatch of one workgroup for both); then refine
 * (when the constants ask for it), choose and check on level 0), each with its grid and its
 * code (step | level << 4): the levels' dispatches cut into the first
 * UPF__VK_FG_FLOW_LEVEL_PLANS passes of UPF__VK_DISPATCH_MAX dispatches from the end (run =
 * false for a first one left empty), but level 0's search and median in the next pass
 * (flow_level0.comp) where level 0 takes its candidates only below a coarser level
 * (radius_fine 0; else flow.comp's, and that pass does not run), then refine, choose and
 * check a pass each (refine's not run without refine steps; the last, stamped pass always
 * runs). It
 * reads nothing else and writes only pf[0 .. n - 1] and push[0 .. n - 1]; pf must not be
 * freed before the record (it points into push).
 *
 * Internal header: not installed. */
#ifndef UPF_VK_FRAMEGEN_FLOW_H
#define UPF_VK_FRAMEGEN_FLOW_H

#include "framegen/framegen_passes.h"
#include "vk/vk_passes.h"

/* The flow's dispatches at most: 3 per level above 0, 2 on level 0, refine, choose, check
 * and the up step of a flow of the half-size frame (UPF__FG_LEVELS_MAX levels). The
 * levels' (search, median, global) go in passes of UPF__VK_DISPATCH_MAX (shader flow.comp);
 * level 0's search and median (flow_level0.comp, where it applies), refine, choose and check
 * take a pass each (their own shaders; the up step in check's). */
#define UPF__VK_FG_FLOW_DISPATCHES_MAX (3 * (UPF__FG_LEVELS_MAX - 1) + 6)
#define UPF__VK_FG_FLOW_LEVEL_PLANS \
    ((3 * (UPF__FG_LEVELS_MAX - 1) + 2 + UPF__VK_DISPATCH_MAX - 1) / UPF__VK_DISPATCH_MAX)
#define UPF__VK_FG_FLOW_PLANS_MAX (UPF__VK_FG_FLOW_LEVEL_PLANS + 4)

/* The steps of flow.comp (the low 4 bits of a dispatch's code; the level above them). */
enum upf__vk_fg_flow_step {
    UPF__VK_FG_FLOW_SEARCH = 0,
    UPF__VK_FG_FLOW_MEDIAN,
    UPF__VK_FG_FLOW_GLOBAL,
    UPF__VK_FG_FLOW_REFINE,
    UPF__VK_FG_FLOW_CHOOSE,
    UPF__VK_FG_FLOW_CHECK,
    UPF__VK_FG_FLOW_MEDIAN_GLOBAL, /* median and global in one workgroup (upf__fg_flow_fused) */
    UPF__VK_FG_FLOW_UP            /* base 1: the frame's fields from the half-size ones that
                                   * the check left in scratch, the vectors doubled
                                   * (flow_check.comp) */
};

/* flow.comp's push constants. */
typedef struct upf__vk_fg_flow_push {
    upf__fg_flow_con con;
    uint32_t code;                /* patched per dispatch: step | level << 4 */
} upf__vk_fg_flow_push;

int upf__vk_fg_flow_plans(upf__vk_pass_plan *plan);
void upf__vk_fg_flow_frames(const upf__passes *ps, upf__vk_pass_frame *pf,
                            uint8_t (*push)[UPF__VK_PUSH_MAX]);

/* The flow's dispatches for constants `con`, in order (codes and grids; at most
 * UPF__VK_FG_FLOW_DISPATCHES_MAX), as upf__vk_fg_flow_frames records them. For the tests and
 * the performance notes. */
int upf__vk_fg_flow_dispatches(const upf__fg_flow_con *con, uint32_t *code, upf__vk_grid *grid);

#endif /* UPF_VK_FRAMEGEN_FLOW_H */
