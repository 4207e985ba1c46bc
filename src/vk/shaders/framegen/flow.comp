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
 *  0 search  eight blocks of a row a workgroup, 32 lanes each, directions by z: the candidates, their
 *            costs, the +-radius search around the cheapest; above level 0 also zeroes the
 *            histograms (the level's step 1 counts into them; the previous level's step 2
 *            has read them; level 0 leaves level 1's, as the CPU does);
 *  1 median  the 3x3 vector median of the searched vectors (an invocation per block, 16x16
 *            a workgroup: flow_median.glsl), and on levels above 0 each component counted into its histogram
 *            by atomicAdd (the CPU's separate histogram step fused: the counts do not depend
 *            on the order);
 *  2 global  (levels above 0) four workgroups, one per histogram: its median, the value of
 *            sorted index n / 2 (upf__fg_hist_median);
 *  6 median + global  on a level above 0 that upf__fg_flow_fused says is small (a few
 *            blocks: a dispatch and barrier cost more than the work), both in one workgroup,
 *            the medians from the level's vectors (at most 64 a direction) instead of the
 *            4096 bins of each histogram (the same values: median_global says why).
 *
 * Same results as the CPU, word for word: the block vectors are integers here, and the luma
 * 12-bit codes (prepare.c), so a SAD or a texture sum is a sum of multiples of 2^-12 far
 * below 2^24 of them: exact in any order, whichever lanes add which terms (`precise` all the
 * same). The CPU's early exit of a SAD once it reaches the best cost
 * changes no choice (its partial sum is already >= the best, the whole one no smaller), so
 * the GPU sums every SAD whole. 256 invocations a workgroup (launching a workgroup costs
 * about the same whatever its size: a quarter as many as with 64). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
#define GROUP 256 /* invocations a workgroup */
#include "flow.glsl"
#include "flow_search.glsl"
#include "flow_median.glsl"

/* ---- 0: search ----------------------------------------------------------------------------- */

/* Eight blocks a workgroup, 32 lanes each. The block's own pixels (and the row and column after
 * them, for its texture) are staged in shared memory, and lane k < n loads candidate k (into
 * shared memory: no array indexed by lane). Lanes 0 .. 27 each sum two rows of a
 * candidate's SAD (4 lanes a candidate; the other frame read from the buffer: candidates lie
 * anywhere), lanes 28 .. 31 two rows each of the texture; lane k < n then adds candidate k's
 * rows in order, lane 31 the texture's; every lane then takes the cheapest candidate (the
 * first of equals, the CPU's walk), and with a radius of 0 (level 0 by default: no window)
 * that is the block's vector. In a textured block the other frame's window (block + radius
 * on every side, edges repeated) is staged and lane i costs window positions i, i + 32, ...,
 * keeping its least cost and, among equals, its least position: up to +-RROW (2, every level
 * but the coarsest by default) each position's SAD from the rows' partial sums of
 * window_rows (a lane sums one block row against one window row at every horizontal offset:
 * 20 loads for 40 terms, not 80 for 40, few registers), beyond it a whole block SAD from
 * shared memory; a tree over the lanes then takes the least by (cost, position), and lane 0
 * keeps the candidate unless that cost is strictly less: the CPU's walk over the window in
 * order, which replaces only on a strictly lower cost, picks that same position. Loads: the frame
 * (luma or luma prev) is chosen once a loop, not a load (the workgroup's direction decides it), and
 * a whole block (all but the frame's right and bottom edge) takes loops without a test a pixel, so
 * that every load of a loop is issued at once. */
#define LANES 32
#define BLOCKS (GROUP / LANES) /* blocks a workgroup */
#define OWN (B + 1)                /* the staged own tile's side */
#define RMAX 8                     /* windows staged up to +-RMAX (wider ones: from the buffer) */
#define WMAX (B + 2 * RMAX)
shared float s_own[BLOCKS][OWN * OWN];
shared float s_win[BLOCKS][WMAX * WMAX];
shared float s_crow[BLOCKS][7][B];      /* the candidates' row sums */
shared float s_trow[BLOCKS][B];         /* the texture's row sums */
shared float s_cost[BLOCKS][8];         /* the candidates' costs */
shared ivec2 s_cand[BLOCKS][8];         /* the candidates */
shared uint s_tex[BLOCKS];              /* the block is textured */
shared float s_lc[BLOCKS][LANES];       /* each lane's least window cost and its position */
#define RROW 2                          /* windows up to +-RROW: by rows (window_rows) */
#define SROW (2 * RROW + 1)
/* Row r's SAD at window position (px, py) of block blk, for a window of +-RROW at most: in
 * s_win after the window (its first (B + 2 RROW)^2 values; SROW B SROW more fit in WMAX^2). */
#if (B + 2 * RROW) * (B + 2 * RROW) + SROW * B * SROW > WMAX * WMAX
#error "PART does not fit in s_win"
#endif
#define PART(blk, py, r, px)                                                                  \
    s_win[blk][(B + 2 * RROW) * (B + 2 * RROW) + ((py) * B + (r)) * SROW + (px)]
shared int s_lj[BLOCKS][LANES];

/* Row y of the SAD of the block (bw x bh at (x0, y0), staged) against frame BUF at offset o,
 * edges repeated (the pixels outside a partial block skipped): a function per frame. */
#define ROW_BUFFER(NAME, BUF)                                                                \
    float NAME(view v, int blk, int x0, int y0, int y, int bw, ivec2 o)                       \
    {                                                                                         \
        precise float row = 0.0;                                                              \
        const int ry = v.off + clamp(y0 + y + o.y, 0, v.h - 1) * pc.width;                    \
        const int s0 = y * OWN;                                                               \
        if (bw == B && x0 + o.x >= 0 && x0 + o.x + B <= v.w) {                                \
            const int r = ry + x0 + o.x;                                                      \
            [[unroll]] for (int x = 0; x < B; x++)                                            \
                row += abs(s_own[blk][s0 + x] - BUF[r + x]);                                  \
        } else {                                                                              \
            [[unroll]] for (int x = 0; x < B; x++)                                            \
                if (x < bw)                                                                   \
                    row += abs(s_own[blk][s0 + x] - BUF[ry + clamp(x0 + x + o.x, 0, v.w - 1)]); \
        }                                                                                     \
        return row;                                                                           \
    }
ROW_BUFFER(row_buffer_cur, luma_cur)
ROW_BUFFER(row_buffer_prev, luma_prev)

/* The same in the other frame of direction d. */
float row_buffer(int d, view v, int blk, int x0, int y0, int y, int bw, ivec2 o)
{
    return d == 0 ? row_buffer_prev(v, blk, x0, y0, y, bw, o)
                  : row_buffer_cur(v, blk, x0, y0, y, bw, o);
}

float sad_buffer(int d, view v, int blk, int x0, int y0, int bw, int bh, ivec2 o)
{
    precise float sum = 0.0;
    for (int y = 0; y < bh; y++)
        sum += row_buffer(d, v, blk, x0, y0, y, bw, o);
    return sum;
}

/* The same against the staged window (side ws), the block at (p.x, p.y) of it; a whole
 * block without a test a pixel. */
float sad_window(int blk, int bw, int bh, int ws, ivec2 p)
{
    precise float sum = 0.0;
    if (bw == B && bh == B) {
        [[unroll]] for (int y = 0; y < B; y++) {
            precise float row = 0.0;
            const int w0 = (y + p.y) * ws + p.x;
            [[unroll]] for (int x = 0; x < B; x++)
                row += abs(s_own[blk][y * OWN + x] - s_win[blk][w0 + x]);
            sum += row;
        }
        return sum;
    }
    [[unroll]] for (int y = 0; y < B; y++)
        if (y < bh) {
            precise float row = 0.0;
            const int w0 = (y + p.y) * ws + p.x;
            [[unroll]] for (int x = 0; x < B; x++)
                if (x < bw)
                    row += abs(s_own[blk][y * OWN + x] - s_win[blk][w0 + x]);
            sum += row;
        }
    return sum;
}

/* A window of +-radius <= RROW, staged, by rows: task t = (py, r) (t / B, t % B) sums row r of
 * the block against window row r + py at every column offset px (the row's 8 own pixels and
 * the window row's loaded once for all side offsets, not once an offset), into
 * PART(blk, py, r, px) (0 for a row below a partial block). A window position's SAD is
 * then its rows' partial sums, added in any order: every value is a multiple of 2^-12 (the
 * luma codes) and a SAD at most 64, so every sum is exact (flow.c's, bit for bit). */
void window_rows(int blk, int lane, int bw, int bh, int side, int ws)
{
    for (int t = lane; t < side * B; t += LANES) {
        const int py = t / B, r = t % B;
        float o[B];
        [[unroll]] for (int c = 0; c < B; c++)
            o[c] = c < bw ? s_own[blk][r * OWN + c] : 0.0;
        /* the window row streamed once, each value into the offsets that take it: 8 own
         * values, 5 sums and the value live (an own pixel right of a partial block: a term
         * skipped) */
        float acc[SROW];
        [[unroll]] for (int px = 0; px < SROW; px++)
            acc[px] = 0.0;
        const int w0 = (r + py) * ws;
        [[unroll]] for (int c = 0; c < B + 2 * RROW; c++)
            if (c < ws) {
                const float wv = s_win[blk][w0 + c];
                [[unroll]] for (int px = 0; px < SROW; px++)
                    if (c - px >= 0 && c - px < B && px < side && c - px < bw) {
                        precise float a = acc[px] + abs(o[c - px] - wv);
                        acc[px] = a;
                    }
            }
        [[unroll]] for (int px = 0; px < SROW; px++)
            if (px < side)
                PART(blk, py, r, px) = r < bh ? acc[px] : 0.0;
    }
}

/* Row y of flow.c's block_textured on the staged tile: the |gradient|s of its first tw
 * pixels. */
float row_texture(int blk, int y, int tw)
{
    precise float row = 0.0;
    [[unroll]] for (int x = 0; x < B; x++)
        if (x < tw) {
            const float r = s_own[blk][y * OWN + x];
            row += abs(s_own[blk][y * OWN + x + 1] - r) + abs(s_own[blk][(y + 1) * OWN + x] - r);
        }
    return row;
}

/* Frame BUF's level (view v) at tile origin (x, y) + (i % side, i / side) into shared array
 * DST from lane `lane` on, LANES apart, edges repeated (no clamps for a tile inside the
 * level). */
#define STAGE_TILE(DST, BUF, count, side, x, y)                                               \
    if ((x) >= 0 && (y) >= 0 && (x) + (side) <= v.w && (y) + (side) <= v.h) {                \
        for (int i = lane; i < (count); i += LANES)                                           \
            DST[i] = BUF[v.off + ((y) + i / (side)) * pc.width + (x) + i % (side)];            \
    } else {                                                                                  \
        for (int i = lane; i < (count); i += LANES)                                           \
            DST[i] = BUF[v.off + clamp((y) + i / (side), 0, v.h - 1) * pc.width +             \
                         clamp((x) + i % (side), 0, v.w - 1)];                                \
    }

/* Workgroup (x, y, d): blocks BLOCKS x .. BLOCKS x + BLOCKS - 1 of row y, direction d. */
void search(int l)
{
    const int t = int(gl_LocalInvocationIndex), blk = t >> 5, lane = t & (LANES - 1);
    const int bx = int(gl_WorkGroupID.x) * BLOCKS + blk, by = int(gl_WorkGroupID.y);
    const int d = int(gl_WorkGroupID.z);
    const view v = view_of(l);
    const bool valid = bx < v.bw && by < v.bh;
    const bool coarsest = l == pc.levels - 1;
    const int radius = coarsest ? pc.radius_coarse : l == 0 ? pc.radius_fine : pc.radius;
    const int x0 = bx * B, y0 = by * B;
    const int bw = valid ? min(x0 + B, v.w) - x0 : 0, bh = valid ? min(y0 + B, v.h) - y0 : 0;
    precise float lambda = coarsest ? 0.0 : pc.penalty * float(bw * bh);
    if (!valid) {
        for (int i = lane; i < OWN * OWN; i += LANES)
            s_own[blk][i] = 0.0;
    } else if (d == 0) {
        STAGE_TILE(s_own[blk], luma_cur, OWN * OWN, OWN, x0, y0)
    } else {
        STAGE_TILE(s_own[blk], luma_prev, OWN * OWN, OWN, x0, y0)
    }
    const int n = coarsest ? 1 : 7;
    if (lane < n)
        s_cand[blk][lane] = candidate(lane, bx, by, d, l);
    /* the texture's rows y0 .. ty1 - 1, columns x0 .. tx1 - 1 */
    const int tw = min(x0 + B, v.w - 1) - x0, th = min(y0 + B, v.h - 1) - y0;
    barrier();
    const ivec2 pred = s_cand[blk][0]; /* the parent's own vector (zero on the coarsest level) */
    if (lane < 28) {
        const int k = lane >> 2;
        const ivec2 ck = s_cand[blk][min(k, n - 1)];
        for (int r = 2 * (lane & 3); k < n && r < 2 * (lane & 3) + 2; r++)
            s_crow[blk][k][r] = valid && r < bh ? row_buffer(d, v, blk, x0, y0, r, bw, ck)
                                                : 0.0;
    } else {
        for (int r = 2 * (lane - 28); r < 2 * (lane - 28) + 2; r++)
            s_trow[blk][r] = valid && r < th ? row_texture(blk, r, tw) : 0.0;
    }
    barrier();
    /* each row's sum, then the rows' in order (flow.c's block_sad and block_textured) */
    if (lane < n) {
        precise float sum = 0.0;
        for (int r = 0; r < bh; r++)
            sum += s_crow[blk][lane][r];
        s_cost[blk][lane] = valid ? cost_of(sum, s_cand[blk][lane], pred, lambda) : inf();
    }
    if (lane == LANES - 1) {
        precise float sum = 0.0;
        for (int r = 0; r < th; r++)
            sum += s_trow[blk][r];
        const int tn = max(tw, 0) * max(th, 0);
        precise float tlim = pc.flat_ * float(tn);
        s_tex[blk] = valid && (tn > 0 ? sum >= tlim : 0.0 >= pc.flat_) ? 1u : 0u;
    }
    barrier();
    /* the cheapest candidate, the first of equals */
    int b1 = 0;
    float bc = inf();
    for (int k = 0; k < n; k++)
        if (s_cost[blk][k] < bc)
            bc = s_cost[blk][k], b1 = k;
    const ivec2 centre = s_cand[blk][b1];
    if (radius == 0) { /* no window (level 0 by default): the cheapest candidate; the radius
                        * is the dispatch's, so every lane returns before the barriers */
        if (lane == 0 && valid)
            blocks[buf(d, 2) + by * blocks_of(pc.width) + bx] = vec2(centre);
        return;
    }
    const bool textured = s_tex[blk] != 0u;
    const int side = 2 * radius + 1, count = side * side, ws = B + 2 * radius;
    const bool staged = radius <= RMAX;
    if (textured && staged) {
        const int wx = x0 + centre.x - radius, wy = y0 + centre.y - radius;
        if (d == 0) {
            STAGE_TILE(s_win[blk], luma_prev, ws * ws, ws, wx, wy)
        } else {
            STAGE_TILE(s_win[blk], luma_cur, ws * ws, ws, wx, wy)
        }
    }
    barrier();
    const bool by_rows = staged && radius <= RROW; /* the dispatch's: uniform */
    if (by_rows) {
        if (textured)
            window_rows(blk, lane, bw, bh, side, ws);
        barrier();
    }
    /* this lane's window positions, in order, skipping the centre */
    float lc = inf();
    int lj = count;
    for (int j = lane; textured && j < count; j += LANES) {
        if (j == count / 2)
            continue;
        const ivec2 p = ivec2(j % side, j / side), o = centre + p - ivec2(radius);
        float sad;
        if (by_rows) {
            precise float a = 0.0, b = 0.0; /* exact: any order */
            [[unroll]] for (int r = 0; r < B; r += 2)
                a += PART(blk, p.y, r, p.x), b += PART(blk, p.y, r + 1, p.x);
            precise float s = a + b;
            sad = s;
        } else {
            sad = staged ? sad_window(blk, bw, bh, ws, p)
                         : sad_buffer(d, v, blk, x0, y0, bw, bh, o);
        }
        const float c = cost_of(sad, o, pred, lambda);
        if (c < lc)
            lc = c, lj = j;
    }
    s_lc[blk][lane] = lc, s_lj[blk][lane] = lj;
    barrier();
    /* the least (cost, position) over the lanes, pairwise in a tree (a total order: any
     * grouping gives the same) */
    for (int h = LANES / 2; h > 0; h >>= 1) {
        if (lane < h) {
            const float c = s_lc[blk][lane + h];
            const int j = s_lj[blk][lane + h];
            if (c < lc || (c == lc && j < lj))
                lc = c, lj = j;
            s_lc[blk][lane] = lc, s_lj[blk][lane] = lj;
        }
        barrier();
    }
    if (lane == 0 && valid) {
        const ivec2 best = lc < bc ? centre + ivec2(lj % side, lj / side) - ivec2(radius)
                                   : centre;
        blocks[buf(d, 2) + by * blocks_of(pc.width) + bx] = vec2(best);
    }
}

/* Every invocation of the dispatch zeroes its share of the four histograms. */
void zero_hist()
{
    const uvec3 g = gl_NumWorkGroups, w = gl_WorkGroupID;
    const uint threads = g.x * g.y * g.z * uint(GROUP);
    const uint id = ((w.z * g.y + w.y) * g.x + w.x) * uint(GROUP) + gl_LocalInvocationIndex;
    for (uint i = id; i < 4u * BINS; i += threads)
        hist[i] = 0u;
}

/* ---- 1: median (+ histograms): flow_median.glsl ------------------------------------------- */

/* ---- 2: global (the histograms' medians) --------------------------------------------------- */

shared uint part[GROUP];
shared uint part16[GROUP / 16];
shared uint g_count;

/* Workgroup k (0..3): histogram k's median over the level's n blocks, into global[k]. The CPU
 * walks the bins (upf__fg_hist_median): the first bin b of 0 .. BINS - 2 whose count and those
 * below exceed n / 2, else BINS - 1. The running count never falls, so the bins it walks past
 * (those whose count and those below are at most n / 2) are a prefix of 0 .. BINS - 2, and b is
 * how many they are: each invocation loads its 16 bins at once, sums them, adds the sums of
 * the chunks below its own (shared memory: those of the groups of 16 chunks below its group's,
 * then those of its group below its own) and counts its bins the walk passes, and the counts
 * are added (integers: the order does not matter). No serial walk: a latency or two. */
void global_median(uint k, int l)
{
    const uint t = gl_LocalInvocationIndex;
    const uint per = BINS / uint(GROUP);
    uint h[BINS / GROUP];
    uint s = 0u;
    [[unroll]] for (uint b = 0u; b < per; b++) {
        h[b] = hist[k * BINS + t * per + b];
        s += h[b];
    }
    part[t] = s;
    if (t == 0u)
        g_count = 0u;
    barrier();
    if (t < uint(GROUP / 16)) {
        uint g = 0u;
        [[unroll]] for (uint i = 0u; i < 16u; i++)
            g += part[16u * t + i];
        part16[t] = g;
    }
    barrier();
    const view v = view_of(l);
    const uint n = uint(v.bw * v.bh), half_n = n / 2u;
    uint c = 0u;
    [[unroll]] for (uint i = 0u; i < uint(GROUP / 16); i++)
        c += i < t / 16u ? part16[i] : 0u;
    [[unroll]] for (uint i = 0u; i < 16u; i++)
        c += 16u * (t / 16u) + i < t ? part[16u * (t / 16u) + i] : 0u;
    uint passed = 0u;
    [[unroll]] for (uint b = 0u; b < per; b++) {
        c += h[b];
        passed += t * per + b < uint(BINS - 1) && c <= half_n ? 1u : 0u;
    }
    atomicAdd(g_count, passed);
    barrier();
    if (t == 0u)
        global_v[k] = n > 0u ? float(int(g_count) - BINS / 2) : 0.0;
}

/* ---- 1 + 2 on a small level: one workgroup ------------------------------------------------ */

#define FUSE_MAX 128 /* UPF__FG_FLOW_FUSE_MAX: the blocks of both directions on a small level */
shared int s_bin[4][FUSE_MAX / 2]; /* histogram k's bin of each block's vector */

/* The level's vector medians (both directions, its blocks in turn over the invocations) with
 * their histograms, then the four histograms' medians, from the vectors themselves rather
 * than the 4096 bins: histogram k (2d + component) holds one bin b_j per block j of the n
 * (at most FUSE_MAX / 2: upf__fg_flow_fused), and the bin upf__fg_hist_median
 * walks to, the first whose count and those below exceed n / 2, is the sorted b's element
 * n / 2 (the counts through bin c exceed n / 2 exactly when that element is at most c): the
 * block whose bin has fewer than n / 2 + 1 bins below it and more than n / 2 at or below it
 * (the first such block where several share the bin) writes it. Integers: exact. */
void median_global(int l)
{
    const view v = view_of(l);
    const int nb = v.bw * v.bh, t = int(gl_LocalInvocationIndex);
    for (int i = t; i < 2 * nb; i += GROUP) {
        const int j = i % nb, d = i / nb;
        const vec2 o = median(j % v.bw, j / v.bw, d, l);
        s_bin[2 * d][j] = hist_bin(o.x), s_bin[2 * d + 1][j] = hist_bin(o.y);
    }
    barrier();
    const int half_n = nb / 2;
    for (int k = 0; k < 4 && t < nb; k++) {
        const int b = s_bin[k][t];
        int below = 0, at_most = 0, same_before = 0;
        for (int j = 0; j < nb; j++) {
            const int c = s_bin[k][j];
            below += c < b ? 1 : 0;
            at_most += c <= b ? 1 : 0;
            same_before += c == b && j < t ? 1 : 0;
        }
        if (below <= half_n && half_n < at_most && same_before == 0)
            global_v[k] = float(b - BINS / 2);
    }
}

void main()
{
    const uint step = pc.code & 15u;
    const int l = int(pc.code >> 4u);
    if (step == STEP_SEARCH) {
        if (l > 0)
            zero_hist();
        search(l);
    } else if (step == STEP_MEDIAN) {
        /* 16x16 blocks a workgroup */
        const uint t = gl_LocalInvocationIndex;
        const int x = int(gl_WorkGroupID.x * 16u + (t & 15u));
        const int y = int(gl_WorkGroupID.y * 16u + (t >> 4u));
        median(x, y, int(gl_WorkGroupID.z), l);
    } else if (step == STEP_GLOBAL) {
        global_median(gl_WorkGroupID.x, l);
    } else if (step == STEP_MEDIAN_GLOBAL) {
        median_global(l);
    }
}
