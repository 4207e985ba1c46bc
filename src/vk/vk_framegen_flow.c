/* vk_framegen_flow.c: the optical flow's GPU passes and their per-frame descriptions
 * (vk_framegen_flow.h; the shaders: src/vk/shaders/framegen/flow.comp for the levels' steps,
 * flow_level0.comp, flow_refine.comp, flow_choose.comp, flow_check.comp for level 0's). Reads
 * the flow's constants of the CPU engine's tables; writes the runner's plans and frames. */
#include <stddef.h>
#include <string.h>

#include "vk/vk_framegen_flow.h"

static int blocks_of(int size)
{
    return (size + UPF__FG_BLOCK - 1) / UPF__FG_BLOCK;
}

/* Whether level 0's search and median are flow_level0.comp's: its candidates only (no window)
 * below a coarser level. */
static bool level0_own(const upf__fg_flow_con *con)
{
    return con->levels > 1 && con->radius_fine == 0;
}

/* Whether dispatch `code` is flow_level0.comp's. */
static bool in_level0(const upf__fg_flow_con *con, uint32_t code)
{
    const uint32_t step = code & 15u;
    return level0_own(con) && code >> 4 == 0 &&
           (step == UPF__VK_FG_FLOW_SEARCH || step == UPF__VK_FG_FLOW_MEDIAN);
}

int upf__vk_fg_flow_dispatches(const upf__fg_flow_con *con, uint32_t *code, upf__vk_grid *grid)
{
    int n = 0;
    for (int l = con->levels - 1; l >= 0; l--) {
        const int bw = blocks_of(upf__fg_level_size(con->width, l));
        const int bh = blocks_of(upf__fg_level_size(con->height, l));
        const uint32_t lv = (uint32_t)l << 4;
        code[n] = UPF__VK_FG_FLOW_SEARCH | lv;
        grid[n++] = (upf__vk_grid){ (uint32_t)(bw + 7) / 8, (uint32_t)bh, 2 }; /* 8 blocks */
        if (l == 0 && con->refine > 0)
            continue; /* level 0's median: flow_refine.comp's, before its steps */
        if (l > 0 && upf__fg_flow_fused(bw, bh)) { /* one workgroup: median and global */
            code[n] = UPF__VK_FG_FLOW_MEDIAN_GLOBAL | lv, grid[n++] = (upf__vk_grid){ 1, 1, 1 };
            continue;
        }
        code[n] = UPF__VK_FG_FLOW_MEDIAN | lv; /* 16x16 blocks */
        grid[n++] = (upf__vk_grid){ (uint32_t)(bw + 15) / 16, (uint32_t)(bh + 15) / 16, 2 };
        if (l > 0)
            code[n] = UPF__VK_FG_FLOW_GLOBAL | lv, grid[n++] = (upf__vk_grid){ 4, 1, 1 };
    }
    const int bw = blocks_of(con->width), bh = blocks_of(con->height);
    if (con->refine > 0) /* 4 blocks a workgroup */
        code[n] = UPF__VK_FG_FLOW_REFINE, grid[n++] = (upf__vk_grid){ (uint32_t)(bw + 3) / 4,
                                                                      (uint32_t)bh, 2 };
    code[n] = UPF__VK_FG_FLOW_CHOOSE; /* 48 quads of a row a workgroup */
    grid[n++] = (upf__vk_grid){ (uint32_t)((con->width + 1) / 2 + 47) / 48,
                                (uint32_t)(con->height + 1) / 2, 2 };
    code[n] = UPF__VK_FG_FLOW_CHECK; /* 16x16 pixels a workgroup */
    grid[n++] = upf__vk_grid16(con->width, con->height);
    if (con->base > 0) { /* the half-size frame's fields onto the frame (flow.c, step 6) */
        code[n] = UPF__VK_FG_FLOW_UP;
        grid[n++] = upf__vk_grid16(con->frame_width, con->frame_height);
    }
    return n;
}

/* Plan k's shader: the levels' steps in the first UPF__VK_FG_FLOW_LEVEL_PLANS, then level 0's
 * search and median (flow_level0.comp, two dispatches) and one each for refine, choose and
 * check (a dispatch each). */
static const char *shader_of(int k)
{
    static const char *const tail[4] = { "framegen/flow_level0", "framegen/flow_refine",
                                         "framegen/flow_choose", "framegen/flow_check" };
    return k < UPF__VK_FG_FLOW_LEVEL_PLANS ? "framegen/flow"
                                           : tail[k - UPF__VK_FG_FLOW_LEVEL_PLANS];
}

int upf__vk_fg_flow_plans(upf__vk_pass_plan *plan)
{
    for (int k = 0; k < UPF__VK_FG_FLOW_PLANS_MAX; k++)
        plan[k] = (upf__vk_pass_plan){
            .pass = UPF__FG_FLOW, .stamp = k == UPF__VK_FG_FLOW_PLANS_MAX - 1,
            .push_bytes = sizeof(upf__vk_fg_flow_push), .patch_used = true,
            .patch_offset = offsetof(upf__vk_fg_flow_push, code), .variant_count = 1,
            .variant = { { shader_of(k), NULL, NULL } } };
    return UPF__VK_FG_FLOW_PLANS_MAX;
}

/* Dispatch (code, grid) appended to pass frame pf. */
static void add(upf__vk_pass_frame *pf, uint32_t code, upf__vk_grid grid)
{
    pf->grid[pf->dispatches] = grid;
    pf->patch[pf->dispatches++] = code;
    pf->run = true;
}

void upf__vk_fg_flow_frames(const upf__passes *ps, upf__vk_pass_frame *pf,
                            uint8_t (*push)[UPF__VK_PUSH_MAX])
{
    const upf__fg_flow_con *con = ps->con[UPF__FG_FLOW];
    uint32_t code[UPF__VK_FG_FLOW_DISPATCHES_MAX];
    upf__vk_grid grid[UPF__VK_FG_FLOW_DISPATCHES_MAX];
    const int n = upf__vk_fg_flow_dispatches(con, code, grid);
    int levels = 0; /* the levels' dispatches (search, median, global) come first */
    while (levels < n && !in_level0(con, code[levels]) &&
           ((code[levels] & 15u) < UPF__VK_FG_FLOW_REFINE ||
            (code[levels] & 15u) == UPF__VK_FG_FLOW_MEDIAN_GLOBAL))
        levels++;
    for (int k = 0; k < UPF__VK_FG_FLOW_PLANS_MAX; k++) {
        upf__vk_fg_flow_push p;
        memset(&p, 0, sizeof p);
        p.con = *con;
        memset(push[k], 0, UPF__VK_PUSH_MAX);
        memcpy(push[k], &p, sizeof p);
        memset(&pf[k], 0, sizeof pf[k]);
        pf[k].push = push[k];
    }
    /* the levels' last pass takes their last UPF__VK_DISPATCH_MAX dispatches, the one before
     * it those before, ...: the first ones may be left empty */
    const int skip = UPF__VK_FG_FLOW_LEVEL_PLANS * UPF__VK_DISPATCH_MAX - levels;
    for (int j = 0; j < levels; j++)
        add(&pf[(j + skip) / UPF__VK_DISPATCH_MAX], code[j], grid[j]);
    /* level 0's search and median (flow_level0.comp, when its own), refine, choose, check: a
     * pass each (refine's left out without refine steps); the up step in check's pass */
    for (int j = levels; j < n; j++) {
        const int step = (int)(code[j] & 15u);
        const int tail = step == UPF__VK_FG_FLOW_UP ? UPF__VK_FG_FLOW_CHECK : step;
        add(&pf[UPF__VK_FG_FLOW_LEVEL_PLANS +
                (in_level0(con, code[j]) ? 0 : 1 + tail - UPF__VK_FG_FLOW_REFINE)],
            code[j], grid[j]);
    }
}
