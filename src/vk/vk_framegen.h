/* vk_framegen.h: the Vulkan frame generation engine's internals that its tests reach (the GPU
 * pass table, the runner).
 *
 * Internal header: not installed. */
#ifndef UPF_VK_FRAMEGEN_H
#define UPF_VK_FRAMEGEN_H

#include "framegen/framegen_passes.h"
#include "vk/vk_passes.h"

/* The engine's GPU passes, by role. upf__vk_fg_plans gives each one's index in the plan list
 * (the flow's passes, in an engine made for the flow, sit between vectors and camera, as the
 * CPU engine runs flow there). Per pair: prepare, scene, vectors or the flow's, camera; per phase: splat,
 * fill, resolve (and the inpaint's level 1 down), inpaint down (from level 2), inpaint up (to
 * level 2), compose (the inpaint's levels 1 and 0 up, and the still-pixel rule) or compose
 * with the HUD layer. */
enum {
    UPF__VK_FG_GP_PREPARE = 0,
    UPF__VK_FG_GP_SCENE,
    UPF__VK_FG_GP_VECTORS,
    UPF__VK_FG_GP_CAMERA,
    UPF__VK_FG_GP_SPLAT,
    UPF__VK_FG_GP_FILL,
    UPF__VK_FG_GP_RESOLVE,
    UPF__VK_FG_GP_INPAINT_DOWN,
    UPF__VK_FG_GP_INPAINT_UP,
    UPF__VK_FG_GP_COMPOSE,
    UPF__VK_FG_GP_COMPOSE_HUD,
    UPF__VK_FG_GP_CUT,        /* the flow's cut decision (cut.comp, after the flow's passes):
                               * only in an engine made for the flow, else at[] -1 */
    UPF__VK_FG_GP_COUNT
};

/* The plan list into plan[] (at most UPF__VK_GPU_PASSES_MAX), each role's index into at[],
 * the flow's first pass and count into *flow_first, *flow_count (0 unless `flow`: an engine
 * made for the flow, vk_framegen_flow.h). Returns
 * the number of plans. Every pass's push constants are UPF__VK_PUSH_MAX bytes: its constants
 * struct, then its step (patched) and the tail its shader declares. */
int upf__vk_fg_plans(upf__vk_pass_plan *plan, int at[UPF__VK_FG_GP_COUNT], bool flow,
                     int *flow_first, int *flow_count);

/* The camera pass's dispatches into *cf (run, grids, steps; its push constants are the
 * caller's): with `fit` (and not `given`) UPF__VK_FG_CAMERA_STEPS over the blocks of the fit's
 * grid, steps 0 .. 4: step 0 round 0's reduction, steps 1 .. 4 in each workgroup the solve of
 * the round before (the same floats in all) then its block of this round's reduction, and in
 * step 4 the workgroup that finishes last the last solve and the model; else one workgroup at
 * step 0 (the host's homography, or no model). On the GPU the camera sums surface has
 * UPF__VK_FG_CAMERA_SUM_BUFFERS times the CPU's rows (round r's rows in buffer r & 1: a step
 * reads the one and writes the other; the last round's in the CPU's place) and then
 * UPF__VK_FG_CAMERA_TOTAL_ROWS rows where rounds 1 .. 4 add up their counts (4 x (3 +
 * UPF__FG_CAMERA_BINS) integers) and step 4 counts its workgroups done (one more; step 0
 * zeroes them all): UPF__VK_FG_CAMERA_SUM_ROWS of the CPU's rows; the engine's runner and a
 * test's that runs the pass make it so. */
#define UPF__VK_FG_CAMERA_STEPS 5
#define UPF__VK_FG_CAMERA_SUM_BUFFERS 2
#define UPF__VK_FG_CAMERA_TOTAL_ROWS \
    ((4 * (3 + UPF__FG_CAMERA_BINS) + 1 + UPF__FG_CAMERA_ROW - 1) / UPF__FG_CAMERA_ROW)
#define UPF__VK_FG_CAMERA_SUM_ROWS(cpu_rows) \
    (UPF__VK_FG_CAMERA_SUM_BUFFERS * (cpu_rows) + UPF__VK_FG_CAMERA_TOTAL_ROWS)
void upf__vk_fg_camera_frame(const upf__fg_camera_con *cc, upf__vk_pass_frame *cf);

/* The cut pass's dispatches into *cf (run, grids, steps; its push constants are the
 * caller's: the pass's constants, then the step): step 0 the count of lost pixels,
 * UPF__VK_FG_CUT_PIXELS a workgroup, added with one atomic per workgroup into the scene
 * surface's fourth word (which the scene pass zeroes), then step 1 the decision, one
 * workgroup (cut.comp). */
#define UPF__VK_FG_CUT_PIXELS 8192
void upf__vk_fg_cut_frame(const upf__fg_cut_con *cc, upf__vk_pass_frame *cf);

/* The splat's push constants (splat.comp): its constants, the step (patched), the phase. */
typedef struct upf__vk_fg_splat_push {
    upf__fg_splat_con c;
    uint32_t step;
    float t;
} upf__vk_fg_splat_push;
#define UPF__VK_FG_SPLAT_POWERS 2u /* splat.comp's powers step */
/* The splat's dispatches for phase t into *pf (its push constants are *sp: sp->c the pass's
 * constants, shift and t set here): with `camera` (vectors or flow: a camera model may be on)
 * first the powers step, one workgroup (patch UPF__VK_FG_SPLAT_POWERS: the phase's powers of
 * the model into the camera surface, for the splat, fill and resolve), then the priorities
 * (patch 0) and the indices (1), 16 x 16 pixels a workgroup. */
void upf__vk_fg_splat_frame(upf__vk_fg_splat_push *sp, float t, bool camera,
                            upf__vk_pass_frame *pf);
/* The down steps of the fill's motion pyramid and the inpaint's colour pyramid (fill.comp,
 * inpaint.comp: downs): one dispatch makes UPF__VK_FG_DOWNS levels, l .. l + 4, each workgroup
 * 16 x 16 pixels of level l and the pixels below them. Appends to pf the dispatches that make
 * levels first .. levels - 1 of a W x H frame's pyramid (grid: level l's 16 x 16 tiles,
 * patch: l). The engine's first: the fill's 1, the inpaint's 2 (the resolve makes level 1:
 * resolve.comp, its push constants' `levels`). */
#define UPF__VK_FG_DOWNS 5
void upf__vk_fg_down_dispatches(upf__vk_pass_frame *pf, int W, int H, int levels, int first);
/* The fill's dispatches (fill.comp) for a W x H frame's motion pyramid of `levels` levels,
 * appended to pf: the down steps (upf__vk_fg_down_dispatches; step 1 also decodes the splat
 * into level 0, so no decode step of its own but for a one-level pyramid: patch 0), then the
 * up step (patch levels), 16 x 16 pixels a workgroup. */
void upf__vk_fg_fill_dispatches(upf__vk_pass_frame *pf, int W, int H, int levels);
/* prepare's luma pyramids (prepare.comp), 16 x 16 pixels a workgroup: its step 0 also makes
 * levels 1 .. 4 of its tile (UPF__VK_FG_PREPARE_FUSED), each down step from level 5 on
 * UPF__VK_FG_PREPARE_DOWN_FUSED levels (l .. l + 4: 16 x 16 pixels of level l and those below
 * them). Appends step 0 and the down steps (grid: level l's 16 x 16 tiles, patch: l). */
#define UPF__VK_FG_PREPARE_FUSED 4
#define UPF__VK_FG_PREPARE_DOWN_FUSED 5
void upf__vk_fg_prepare_dispatches(upf__vk_pass_frame *pf, int W, int H, int levels);

/* The inpaint's up steps (inpaint.comp): levels levels - 2 .. least, one dispatch a level
 * (grid: the level's 16 x 16 tiles, patch: -l), except that the levels of at most
 * UPF__VK_FG_UP_TAIL pixels, when two or more, go in one dispatch of one workgroup (patch:
 * -(UPF__VK_FG_UP_TAIL_STEP + the least of them)). Appends them to pf. The engine's least is
 * 2: levels 1's and 0's up steps are the compose's (compose.glsl), which writes the output
 * directly. */
#define UPF__VK_FG_UP_TAIL 256
#define UPF__VK_FG_UP_TAIL_STEP 256
void upf__vk_fg_up_dispatches(upf__vk_pass_frame *pf, int W, int H, int levels, int least);

/* The 8-bit frames (issue 33 item 4: the resolve and the compose read 8 bytes a pixel of both
 * frames, not the 32 of their linear RGBA32F surfaces, when both host colours are 8-bit), the
 * engine's one extra binding: resource and shader binding UPF__VK_FG_BYTES. Its words:
 * UPF__VK_FG_TABLE floats' bits, the decode tables the CPU uses (from UPF__VK_FG_TABLE_SRGB:
 * upf_srgb8_to_linear_table; from UPF__VK_FG_TABLE_UNORM: c / 255.0f, as upf__row_to_linear),
 * then N-1's pixels' codes (R | G << 8 | B << 16, a word a pixel), then N's. The passes that
 * read or write it (prepare, resolve, compose) have a second pipeline,
 * UPF__VK_FG_VARIANT_BYTES (specialisation constant 0, BYTES, true), in which prepare writes
 * the codes instead of the linear surfaces and the resolve and the compose decode them:
 * linear = table[code], the CPU's very floats. */
#define UPF__VK_FG_BYTES UPF__FG_COUNT
/* The engine's second extra binding: two VkDispatchIndirectCommand the vectors pass clears
 * (0: no workgroups). Its shade step (3) sets the first (bytes 0 .. 11) to its own grid when
 * the shade rule moved a pixel; its steps 4 to 7 (the second splat to t = 0) are indirect
 * dispatches of those counts, so an empty grid when it moved none, as the CPU pass skips them
 * (vectors.comp). Its step 0 sets the second (bytes 16 .. 27, UPF__VK_FG_SHADE_CALL) to the
 * grid when a pixel is a candidate of the rule (still, far enough from the edges, the rule
 * on); step 3 is an indirect dispatch of those, an empty grid when none is (the CPU's
 * shade_row then moves none). 32 bytes. */
#define UPF__VK_FG_SHADED (UPF__FG_COUNT + 1)
#define UPF__VK_FG_SHADE_CALL 16u
/* The vectors pass's dispatches (vectors.comp): UPF__VK_FG_VECTORS_STEPS steps (patch: the
 * step), 16 x 16 pixels a workgroup, step UPF__VK_FG_VECTORS_SHADE and those from
 * UPF__VK_FG_VECTORS_SHADED_FROM on indirect from the shade flag. Sets pf's dispatches. */
#define UPF__VK_FG_VECTORS_STEPS 8
#define UPF__VK_FG_VECTORS_SHADE 3
#define UPF__VK_FG_VECTORS_SHADED_FROM 4
void upf__vk_fg_vectors_dispatches(upf__vk_pass_frame *pf, int W, int H);
#define UPF__VK_FG_TABLE 512
#define UPF__VK_FG_TABLE_SRGB 0u
#define UPF__VK_FG_TABLE_UNORM 256u
#define UPF__VK_FG_VARIANT_BYTES 1
/* Fills table[] and makes the 8-bit frames rp's extra 0 for W x H frames (the caller keeps
 * `table` while the runner lives: its first record uploads it), and the shade flag its extra
 * 1 (UPF__VK_FG_SHADED). */
void upf__vk_fg_bytes_extra(upf__vk_runner_params *rp, int W, int H,
                            float table[UPF__VK_FG_TABLE]);
/* The two pipelines of pass `shader` (prepare, resolve, compose, compose_hud) into *plan;
 * the resolve's writes with the colour pyramid (its level 1) and its BYTES pipeline with
 * workgroups of UPF__VK_FG_RESOLVE_BYTES_W x UPF__VK_FG_RESOLVE_BYTES_H (specialisation
 * constants 1 and 2: a warp a row of 32 pixels, each tap's codes then one or two cache
 * lines), whose grid upf__vk_fg_resolve_grid gives. */
void upf__vk_fg_bytes_variants(upf__vk_pass_plan *plan, const char *shader);
#define UPF__VK_FG_RESOLVE_BYTES_W 32
#define UPF__VK_FG_RESOLVE_BYTES_H 8
upf__vk_grid upf__vk_fg_resolve_grid(int W, int H, bool bytes);
/* The vectors pass's plan beyond its pipelines: the 8-bit frames' variants, the splat to t = 0
 * cleared before it and the shade flag (cleared, read and written; its indirect buffer). */
void upf__vk_fg_vectors_plan(upf__vk_pass_plan *plan);
/* 1 for an 8-bit colour format (R8G8B8A8 or B8G8R8A8, UNORM or SRGB), else 0. */
bool upf__vk_fg_is_8bit(VkFormat format);

/* The engine's runner: its surfaces' buffers (upf__vk_runner_buffer, by UPF__FG_* index). */
upf__vk_runner *upf__vk_interpolate_runner(upf_vk_interpolate *fg);

#endif /* UPF_VK_FRAMEGEN_H */
