/* flow_level0.comp: the optical flow's search and vector median on level 0 when the level takes
 * its cheapest candidate without a search around it (radius_fine 0, the default, below a
 * coarser level: flow.c's search_row and median_row; docs/FRAMEGEN.md, "flow"). Elsewhere
 * (a window on level 0, or level 0 the only level) flow.comp does both, as on every other
 * level. Reads luma prev (8), luma (9), level 1's block vectors and medians (27, 29); writes
 * level 0's searched and filtered vectors (27).
 *
 * Its own SPIR-V, 256 invocations a workgroup: without flow.comp's window, texture and
 * histogram code its registers set its own occupancy, and a workgroup of 256 covers four
 * times the blocks of flow.comp's 64 (launching a workgroup costs about the same whatever
 * its size). The step is patched into the push constants as flow.comp's (step | level << 4,
 * level 0):
 *  0 search  eight blocks of a row a workgroup, 32 lanes each, directions by z: the block's
 *            pixels staged in shared memory, lane k < 7 loads candidate k (flow_search.glsl),
 *            lanes 0 .. 27 sum two rows each of a candidate's SAD (4 lanes a candidate; the
 *            other frame read from the buffer: candidates lie anywhere), and lane 0 adds each
 *            candidate's four partial sums, adds its penalty and keeps the cheapest (the first
 *            of equals). The luma is 12-bit codes (prepare.c), so a SAD is a sum of multiples
 *            of 2^-12 under 64: exact in any order, flow.c's bit for bit however the lanes
 *            split it (before: each row, then the rows in flow.c's order, 56 dependent adds
 *            in lane 0).
 *  1 median  the 3x3 vector median (flow_median.glsl), 16x16 blocks a workgroup, where the
 *            constants ask for no refine steps (else flow_refine.comp takes it).
 * The CPU's early exit of a SAD once it reaches the best cost changes no choice (flow.comp
 * says why), so every SAD is summed whole. */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
#include "flow.glsl"
#include "flow_search.glsl"
#include "flow_median.glsl"

#define LANES 32  /* a block's lanes */
#define BLOCKS 8  /* blocks a workgroup */
#define CANDS 7   /* candidates below the coarsest level */

shared float s_own[BLOCKS][B * B];     /* the block's own pixels */
shared float s_crow[BLOCKS][CANDS][4]; /* the candidates' sums of two rows */
shared ivec2 s_cand[BLOCKS][CANDS];

/* Row y of the SAD of block blk (bw wide at (x0, y0), staged) against frame BUF at offset o,
 * edges repeated (the pixels right of a partial block skipped): a function per frame, so
 * that the loads of a row read one buffer without a branch a load. */
#define ROW_SAD(NAME, BUF)                                                                    \
    float NAME(int blk, int x0, int y0, int y, int bw, ivec2 o)                               \
    {                                                                                         \
        const int W = pc.width, H = pc.height;                                                \
        precise float row = 0.0;                                                              \
        const int ry = clamp(y0 + y + o.y, 0, H - 1) * W;                                     \
        if (bw == B && x0 + o.x >= 0 && x0 + o.x + B <= W) {                                  \
            const int r = ry + x0 + o.x;                                                      \
            [[unroll]] for (int x = 0; x < B; x++)                                            \
                row += abs(s_own[blk][y * B + x] - BUF[r + x]);                               \
        } else {                                                                              \
            [[unroll]] for (int x = 0; x < B; x++)                                            \
                if (x < bw)                                                                   \
                    row += abs(s_own[blk][y * B + x] - BUF[ry + clamp(x0 + x + o.x, 0, W - 1)]); \
        }                                                                                     \
        return row;                                                                           \
    }
ROW_SAD(row_sad_cur, luma_cur)
ROW_SAD(row_sad_prev, luma_prev)

/* Workgroup (x, y, d): blocks 8x .. 8x + 7 of row y, direction d. */
void search0()
{
    const int t = int(gl_LocalInvocationIndex), blk = t >> 5, lane = t & (LANES - 1);
    const int bx = int(gl_WorkGroupID.x) * BLOCKS + blk, by = int(gl_WorkGroupID.y);
    const int d = int(gl_WorkGroupID.z);
    const int W = pc.width, H = pc.height;
    const view v = view_of(0);
    const bool valid = bx < v.bw && by < v.bh;
    const int x0 = bx * B, y0 = by * B;
    const int bw = valid ? min(x0 + B, W) - x0 : 0, bh = valid ? min(y0 + B, H) - y0 : 0;
    [[unroll]] for (int i = lane; i < B * B; i += LANES) {
        const int x = min(x0 + (i & (B - 1)), W - 1), y = min(y0 + i / B, H - 1);
        s_own[blk][i] = !valid ? 0.0 : d == 0 ? luma_cur[y * W + x] : luma_prev[y * W + x];
    }
    if (lane < CANDS)
        s_cand[blk][lane] = valid ? candidate(lane, bx, by, d, 0) : ivec2(0);
    barrier();
    if (lane < 4 * CANDS) {
        const int k = lane >> 2, r0 = 2 * (lane & 3);
        const ivec2 ck = s_cand[blk][k];
        float row[2];
        [[unroll]] for (int i = 0; i < 2; i++)
            row[i] = r0 + i >= bh ? 0.0
                   : d == 0 ? row_sad_prev(blk, x0, y0, r0 + i, bw, ck)
                            : row_sad_cur(blk, x0, y0, r0 + i, bw, ck);
        precise float two = row[0] + row[1];
        s_crow[blk][k][lane & 3] = two;
    }
    barrier();
    if (lane != 0 || !valid)
        return;
    /* each candidate's rows in order, its cost (flow.c's COST), the cheapest (the first of
     * equals: strictly less replaces) */
    precise float lambda = pc.penalty * float(bw * bh);
    const ivec2 pred = s_cand[blk][0]; /* the parent's own vector */
    ivec2 best = pred;
    float best_cost = inf();
    [[unroll]] for (int k = 0; k < CANDS; k++) {
        precise float sum = (s_crow[blk][k][0] + s_crow[blk][k][1]) +
                            (s_crow[blk][k][2] + s_crow[blk][k][3]);
        const ivec2 c = s_cand[blk][k];
        const float cost = cost_of(sum, c, pred, lambda);
        if (cost < best_cost)
            best_cost = cost, best = c;
    }
    blocks[buf(d, 2) + by * blocks_of(W) + bx] = vec2(best);
}

void main()
{
    if ((pc.code & 15u) == STEP_SEARCH) {
        search0();
    } else if ((pc.code & 15u) == STEP_MEDIAN) {
        /* 16x16 blocks a workgroup */
        const uint t = gl_LocalInvocationIndex;
        const int x = int(gl_WorkGroupID.x * 16u + (t & 15u));
        const int y = int(gl_WorkGroupID.y * 16u + (t >> 4u));
        median(x, y, int(gl_WorkGroupID.z), 0);
    }
}
