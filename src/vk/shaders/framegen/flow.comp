/* flow.comp: the optical flow's steps per pyramid level (CPU reference: src/framegen/flow.c,
 * whose comment explains every step; docs/FRAMEGEN.md, "flow"): 0 search, 1 median
 * (+ histograms), 2 global; level 0's refine, choose and check are flow_refine.comp,
 * flow_choose.comp and flow_check.comp, each its own SPIR-V (flow.glsl: what they share).
 * Reads: luma prev (binding 8) and luma (9), the r32f pyramid atlases. Writes: flow blocks
 * (27: per direction this level's vectors, the parent's and the search's, as the CPU lays
 * them out), flow hist (28: r32ui 4 x 4096), flow global (29: the medians).
 *
 * The step and level are patched into the push constants after the pass's constants
 * (step | level << 4; 15: no step), one dispatch each with a barrier between
 * (src/vk/vk_framegen_flow.c lists them): per level from the coarsest,
 *  0 search  two blocks a workgroup, 32 lanes each, directions by z: the candidates, their
 *            costs, the +-radius search around the cheapest; above level 0 also zeroes the
 *            histograms (the level's step 1 counts into them; the previous level's step 2
 *            has read them; level 0 leaves level 1's, as the CPU does);
 *  1 median  the 3x3 vector median of the searched vectors (an invocation per block, 8x8
 *            a workgroup), and on levels above 0 each component counted into its histogram
 *            by atomicAdd (the CPU's separate histogram step fused: the counts do not depend
 *            on the order);
 *  2 global  (levels above 0) four workgroups, one per histogram: its median, the value of
 *            sorted index n / 2 (upf__fg_hist_median);
 The small levels (those above 0 that upf__fg_flow_fused says are small: a few blocks, where
 * a dispatch and its barrier cost more than the work) are not these steps' but
 * flow_small.comp's: all of them in one dispatch of one workgroup.
 *
 * Same results as the CPU, word for word: the block vectors are integers here; every sum is
 * `precise`, in the CPU's order (a SAD or a texture: each row's sum left to right, then the
 * rows' in order, as flow.c's block_sad and block_textured; one lane sums a whole block, so
 * it follows that order exactly). The CPU's early exit of a SAD once it reaches the best cost
 * changes no choice (its partial sum is already >= the best, the whole one no smaller), so
 * the GPU sums every SAD whole. 64 invocations a workgroup; the steps are flow_levels.glsl's
 * (with flow_small.comp's). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;
#define NBLK 2 /* blocks a workgroup searches at once, 32 lanes each */
#define RMAX 8 /* the search windows staged in shared memory up to +-RMAX */
#include "flow.glsl"
#include "flow_levels.glsl"
