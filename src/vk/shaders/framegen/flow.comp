/* flow.comp: the optical flow pass on the GPU (CPU reference: src/framegen/flow.c, whose
 * comment explains every step; docs/FRAMEGEN.md, "flow"). Reads: luma prev (binding 8) and
 * luma (9), the r32f pyramid atlases. Writes: motion (11), priority (12), prev motion (15),
 * flow blocks (27: per direction this level's vectors, the parent's and the search's, as the
 * CPU lays them out), flow hist (28: r32ui 4 x 4096), flow global (29: the medians).
 *
 * One shader, its step and level patched into the push constants after the pass's constants
 * (step | level << 4), one dispatch each with a barrier between (src/vk/vk_framegen_flow.c
 * lists them): per level from the coarsest,
 *  0 search  eight blocks a workgroup (an invocation a row), directions by z: the
 *            candidates, their SADs, the +-radius search around the cheapest; above level 0
 *            also zeroes the histograms (the level's step 1 counts into them; the previous
 *            level's step 2 has read them; level 0 leaves level 1's, as the CPU does);
 *  1 median  the 3x3 vector median of the searched vectors, and on levels above 0 each
 *            component counted into its histogram by atomicAdd (the CPU's separate histogram
 *            step fused: the counts do not depend on the order);
 *  2 global  (levels above 0) four workgroups, one per histogram: its median, the value of
 *            sorted index n / 2 (upf__fg_hist_median);
 * then on level 0: 3 refine (Lucas-Kanade, 16 invocations a block: one a row), 4 choose
 * (one per 2x2 quad and direction), 5 check (one per pixel of N: consistency and priority).
 *
 * Same results as the CPU, word for word: the block vectors are integers until the refine;
 * every sum is `precise`, in the CPU's order (a SAD, a texture or the refine's sums: each
 * row's sum left to right, then the rows' in order, as flow.c's), the refine's division a
 * correctly rounded reciprocal and the check's square roots correctly rounded (exact.glsl);
 * the CPU's early exit of a SAD once it reaches the best cost changes no choice (the GPU's
 * search sums every row; the choice exits as the CPU). 64 invocations a workgroup. */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 8, std430) readonly buffer LumaPrev { float luma_prev[]; };
layout(set = 0, binding = 9, std430) readonly buffer Luma { float luma_cur[]; };
layout(set = 0, binding = 11, std430) buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 12, std430) writeonly buffer Priority { uint priority[]; };
layout(set = 0, binding = 15, std430) buffer PrevMotion { vec2 prev_motion[]; };
layout(set = 0, binding = 27, std430) buffer Blocks { vec2 blocks[]; };
layout(set = 0, binding = 28, std430) buffer Hist { uint hist[]; };
layout(set = 0, binding = 29, std430) buffer Global { float global_v[]; };
layout(push_constant) uniform Push {
    int width, height;                 /* upf__fg_flow_con */
    int levels;
    int radius_coarse, radius;
    int refine;
    float penalty, flat_;
    float consistency, consistency_rel;
    uint code;                         /* patched: step | level << 4 */
} pc;

#include "exact.glsl"

#define B 8
#define BINS 4096
#define STEP_SEARCH 0u
#define STEP_MEDIAN 1u
#define STEP_GLOBAL 2u
#define STEP_REFINE 3u
#define STEP_CHOOSE 4u
#define STEP_CHECK 5u

int level_size(int size, int l)
{
    return (size + (1 << l) - 1) >> l;
}

int level_row(int l)
{
    int row = 0;
    for (int k = 0; k < l; k++)
        row += level_size(pc.height, k);
    return row;
}

int blocks_of(int size)
{
    return (size + B - 1) / B;
}

/* The level being worked on: its size, where it starts in the atlas, its blocks. */
struct view {
    int w, h, off, bw, bh;
};

view view_of(int l)
{
    view v;
    v.w = level_size(pc.width, l), v.h = level_size(pc.height, l);
    v.off = level_row(l) * pc.width;
    v.bw = blocks_of(v.w), v.bh = blocks_of(v.h);
    return v;
}

/* Frame f's luma (0: N, 1: N-1) at (x, y) of the level, edges repeated. Direction d reads
 * its own frame f = d and the other f = 1 - d. */
float lum(int f, view v, int x, int y)
{
    x = clamp(x, 0, v.w - 1), y = clamp(y, 0, v.h - 1);
    const int i = v.off + y * pc.width + x;
    return f == 0 ? luma_cur[i] : luma_prev[i];
}

/* Level 0's row-major luma at (x, y) inside the frame (no clamp). */
float lum0(int f, int i)
{
    return f == 0 ? luma_cur[i] : luma_prev[i];
}

/* The block vectors' buffers: per direction d, k = 0, 1 (this level's and the parent's,
 * alternating) and 2 (the search's), each level 0's blocks across x their rows. */
int buf(int d, int k)
{
    return (3 * d + k) * blocks_of(pc.width) * blocks_of(pc.height);
}

/* which of k = 0, 1 holds level l's vectors */
int cur_of(int l)
{
    return (pc.levels - 1 - l) & 1;
}

float inf()
{
    return uintBitsToFloat(0x7f800000u);
}

/* upf__fg_sample1 of frame f's level 0 at pixel position (x, y) (centres at +0.5). */
float sample1(int f, float x, float y)
{
    precise float sx = x - 0.5, sy = y - 0.5;
    const float fx0 = floor(sx), fy0 = floor(sy);
    const int x0 = int(fx0), y0 = int(fy0);
    precise float fx = sx - fx0, fy = sy - fy0;
    const int W = pc.width, H = pc.height;
    const int xa = clamp(x0, 0, W - 1), xb = clamp(x0 + 1, 0, W - 1);
    const int ya = clamp(y0, 0, H - 1), yb = clamp(y0 + 1, 0, H - 1);
    const float a = lum0(f, ya * W + xa), b = lum0(f, ya * W + xb);
    const float c = lum0(f, yb * W + xa), e = lum0(f, yb * W + xb);
    precise float top = a + fx * (b - a);
    precise float bot = c + fx * (e - c);
    precise float r = top + fy * (bot - top);
    return r;
}

/* ---- 0: search ----------------------------------------------------------------------------- */

/* The search works on eight blocks of a row a workgroup, 8 invocations each (lane = a row of
 * the block): every lane sums its row of each candidate's SAD (and of the block's |gradient|),
 * in the CPU's order along the row; through shared memory each lane then adds the rows in
 * order (flow.c's block_sad and block_textured: each row's sum, then the rows') and walks the
 * candidates and window positions in the CPU's order, keeping the first of equal costs. The
 * CPU's early exit once a SAD reaches the best cost changes no choice (such a cost can
 * neither win nor tie earlier), so the GPU sums every row. Coherent: every lane of the
 * workgroup works on the same candidate at once. */
#define CHUNK 24   /* window positions a round (the +-2 window has 24 besides its centre) */
shared float s_r1[7][8][B];      /* [candidate][block][row] */
shared float s_r2[CHUNK][8][B];  /* [window position in the round][block][row] */
shared float s_tex[8][B];

/* Row y of the SAD of the block at x0 (its own pixels `own`, bw of them) against the other
 * frame at an integer offset, edges repeated. */
float row_sad(int d, view v, float own[B], int x0, int y, int bw, ivec2 o)
{
    precise float sum = 0.0;
    for (int x = 0; x < bw; x++)
        sum += abs(own[x] - lum(1 - d, v, x0 + x + o.x, y + o.y));
    return sum;
}

/* Row y of flow.c's block_textured: the |gradient|s of x0 .. x1 - 1. */
float row_texture(int d, view v, int x0, int x1, int y)
{
    precise float sum = 0.0;
    for (int x = x0; x < x1; x++) {
        const float r = lum(d, v, x, y);
        sum += abs(lum(d, v, x + 1, y) - r) + abs(lum(d, v, x, y + 1) - r);
    }
    return sum;
}

/* The rows' sum of a SAD in shared memory, plus the penalty: the CPU's cost. */
float rows_cost(float r[B], int bh, ivec2 c, ivec2 pred, float lambda)
{
    precise float sum = 0.0;
    for (int y = 0; y < bh; y++)
        sum += r[y];
    precise float s = sum + lambda * float(abs(c.x - pred.x) + abs(c.y - pred.y));
    return s;
}

/* The candidates of block (bx, by): 5 from the parent level, its global motion, zero (the
 * coarsest level: zero alone). Returns how many. */
int candidates(int bx, int by, int d, int l, out ivec2 cand[7])
{
    int n = 0;
    for (int k = 0; k < 7; k++)
        cand[k] = ivec2(0);
    if (l != pc.levels - 1) {
        const view p = view_of(l + 1);
        const ivec2 nb[5] = ivec2[5](ivec2(0, 0), ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1),
                                     ivec2(0, 1));
        const int base = buf(d, 1 - cur_of(l)), bs = blocks_of(pc.width);
        for (int k = 0; k < 5; k++) {
            const int px = clamp(bx / 2 + nb[k].x, 0, p.bw - 1);
            const int py = clamp(by / 2 + nb[k].y, 0, p.bh - 1);
            const vec2 pv = blocks[base + py * bs + px];
            cand[n++] = ivec2(int(round(2.0 * pv.x)), int(round(2.0 * pv.y)));
        }
        cand[n++] = ivec2(int(round(2.0 * global_v[2 * d])),
                          int(round(2.0 * global_v[2 * d + 1])));
    }
    cand[n++] = ivec2(0);
    return n;
}

/* Workgroup (x, y, d): blocks (8x .. 8x + 7, y) of direction d. */
void search(int l)
{
    const uint t = gl_LocalInvocationIndex, blk = t >> 3u;
    const int row = int(t & 7u);
    const int bx = int(gl_WorkGroupID.x) * 8 + int(blk), by = int(gl_WorkGroupID.y);
    const int d = int(gl_WorkGroupID.z);
    const view v = view_of(l);
    const bool valid = bx < v.bw && by < v.bh;
    const bool coarsest = l == pc.levels - 1;
    const int radius = coarsest ? pc.radius_coarse : pc.radius;
    ivec2 cand[7];
    const int n = candidates(bx, by, d, l, cand);
    const ivec2 pred = cand[0]; /* the parent's own vector (zero on the coarsest level) */
    const int x0 = bx * B, y0 = by * B, y = y0 + row;
    const int bw = valid ? min(x0 + B, v.w) - x0 : 0, bh = valid ? min(y0 + B, v.h) - y0 : 0;
    precise float lambda = coarsest ? 0.0 : pc.penalty * float(bw * bh);
    const bool mine = row < bh; /* this lane's row is in the block */
    float own[B]; /* its pixels, loaded once for every candidate */
    for (int x = 0; x < B; x++)
        own[x] = mine && x < bw ? lum(d, v, x0 + x, y) : 0.0;
    /* the candidates' rows, the texture's row */
    for (int k = 0; k < n; k++)
        s_r1[k][blk][row] = mine ? row_sad(d, v, own, x0, y, bw, cand[k]) : 0.0;
    const int tx1 = min(x0 + B, v.w - 1), ty1 = min(y0 + B, v.h - 1);
    s_tex[blk][row] = valid && y < ty1 ? row_texture(d, v, x0, tx1, y) : 0.0;
    barrier();
    /* the cheapest candidate, the first of equals */
    int b1 = 0;
    float bc = inf();
    for (int k = 0; k < n; k++) {
        const float c = rows_cost(s_r1[k][blk], bh, cand[k], pred, lambda);
        if (c < bc)
            bc = c, b1 = k;
    }
    const ivec2 centre = cand[b1];
    precise float tex = 0.0;
    for (int r = 0; r < ty1 - y0; r++)
        tex += s_tex[blk][r];
    const int tn = max(tx1 - x0, 0) * max(ty1 - y0, 0);
    precise float tlim = pc.flat_ * float(tn);
    const bool textured = valid && (tn > 0 ? tex >= tlim : 0.0 >= pc.flat_);
    /* the window around it, +-radius, in the CPU's order, CHUNK positions a round */
    const int side = 2 * radius + 1, count = side * side;
    int bi = -1;
    for (int j0 = 0; j0 < count; j0 += CHUNK) {
        for (int p = 0; p < CHUNK && j0 + p < count; p++) {
            const int j = j0 + p;
            const ivec2 o = centre + ivec2(j % side - radius, j / side - radius);
            const bool run = textured && mine && j != count / 2;
            s_r2[p][blk][row] = run ? row_sad(d, v, own, x0, y, bw, o) : 0.0;
        }
        barrier();
        for (int p = 0; textured && p < CHUNK && j0 + p < count; p++) {
            const int j = j0 + p;
            if (j == count / 2)
                continue; /* the centre */
            const ivec2 o = centre + ivec2(j % side - radius, j / side - radius);
            const float c = rows_cost(s_r2[p][blk], bh, o, pred, lambda);
            if (c < bc)
                bc = c, bi = j;
        }
        barrier();
    }
    if (row == 0 && valid) {
        const ivec2 best = bi < 0 ? centre
                         : centre + ivec2(bi % side - radius, bi / side - radius);
        blocks[buf(d, 2) + by * blocks_of(pc.width) + bx] = vec2(best);
    }
}

/* Every invocation of the dispatch zeroes its share of the four histograms. */
void zero_hist()
{
    const uvec3 g = gl_NumWorkGroups, w = gl_WorkGroupID;
    const uint threads = g.x * g.y * g.z * 64u;
    const uint id = ((w.z * g.y + w.y) * g.x + w.x) * 64u + gl_LocalInvocationIndex;
    for (uint i = id; i < 4u * BINS; i += threads)
        hist[i] = 0u;
}

/* ---- 1: median (+ histograms) -------------------------------------------------------------- */

/* flow.c's hist_bin: bins of 1 px centred on -BINS / 2 .. BINS / 2 - 1, the ends taking what
 * lies beyond. */
int hist_bin(float v)
{
    precise float b = floor(v + 0.5) + float(BINS / 2);
    return b <= 0.0 ? 0 : b >= float(BINS - 1) ? BINS - 1 : int(b);
}

void median(int bx, int by, int d, int l)
{
    const view v = view_of(l);
    if (bx >= v.bw || by >= v.bh)
        return;
    const int bs = blocks_of(pc.width), raw = buf(d, 2);
    vec2 c[9];
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            const int x = bx + dx, y = by + dy;
            if (x < 0 || y < 0 || x >= v.bw || y >= v.bh)
                continue;
            c[n++] = blocks[raw + y * bs + x];
        }
    int best = 0;
    float best_sum = inf();
    for (int a = 0; a < n; a++) {
        precise float sum = 0.0;
        for (int b = 0; b < n; b++)
            sum += abs(c[a].x - c[b].x) + abs(c[a].y - c[b].y);
        if (sum < best_sum)
            best_sum = sum, best = a;
    }
    const vec2 o = c[best];
    blocks[buf(d, cur_of(l)) + by * bs + bx] = o;
    if (l > 0) {
        atomicAdd(hist[(2 * d) * BINS + hist_bin(o.x)], 1u);
        atomicAdd(hist[(2 * d + 1) * BINS + hist_bin(o.y)], 1u);
    }
}

/* ---- 2: global (the histograms' medians) --------------------------------------------------- */

shared uint bins[BINS];
shared uint part[64];

/* Workgroup k (0..3): histogram k's median over the level's n blocks, into global[k]: the
 * histogram into shared memory (64 bins an invocation), the sums of its 64 chunks, then one
 * invocation finds the chunk and the bin (no global load in the serial part). */
void global_median(int l)
{
    const uint k = gl_WorkGroupID.x, t = gl_LocalInvocationIndex;
    const uint per = BINS / 64u;
    uint s = 0u;
    for (uint b = 0u; b < per; b++) {
        const uint i = b * 64u + t; /* neighbouring invocations, neighbouring bins */
        bins[i] = hist[k * BINS + i];
    }
    barrier();
    for (uint b = 0u; b < per; b++)
        s += bins[t * per + b];
    part[t] = s;
    barrier();
    if (t == 0u) {
        const view v = view_of(l);
        const uint n = uint(v.bw * v.bh), half_n = n / 2u;
        /* the first bin (of 0 .. BINS - 2) whose count and those below exceed n / 2, else the
         * last (upf__fg_hist_median) */
        uint c = 0u, ch = 0u;
        while (ch < 63u && c + part[ch] <= half_n)
            c += part[ch++];
        int b = int(ch * per);
        while (b < BINS - 1 && (c += bins[b]) <= half_n)
            b++;
        global_v[k] = n > 0u ? float(b - BINS / 2) : 0.0;
    }
}

/* ---- 3: refine (level 0) ------------------------------------------------------------------- */

/* Four blocks a workgroup, 16 invocations each (lane): lane r sums row r of the block's
 * region (the CPU's order along the row), lane 0 adds the rows in order and takes the step
 * (flow.c's refine_row: the same floats). */
shared vec2 r_vec[4];
shared bool r_done[4];
shared float r_rows[4][16][5];

void refine()
{
    const uint t = gl_LocalInvocationIndex, blk = t >> 4u, lane = t & 15u;
    const int bx = int(gl_WorkGroupID.x) * 4 + int(blk), by = int(gl_WorkGroupID.y);
    const int d = int(gl_WorkGroupID.z);
    const view v = view_of(0);
    const bool valid = bx < v.bw && by < v.bh;
    const int W = pc.width, M = 2; /* flow.c's REFINE_MARGIN */
    const int at = buf(d, cur_of(0)) + by * blocks_of(W) + bx;
    const int x0 = max(bx * B - M, 1), y0 = max(by * B - M, 1);
    const int x1 = min(bx * B + B + M, v.w - 1), y1 = min(by * B + B + M, v.h - 1);
    if (lane == 0u) {
        r_vec[blk] = valid ? blocks[at] : vec2(0.0);
        r_done[blk] = !valid;
    }
    barrier();
    for (int it = 0; it < pc.refine; it++) {
        const vec2 vec = r_vec[blk];
        const bool done = r_done[blk];
        const int y = y0 + int(lane);
        if (!done && y < y1) {
            precise float hxx = 0.0, hxy = 0.0, hyy = 0.0, gx = 0.0, gy = 0.0;
            for (int x = x0; x < x1; x++) {
                const int i = y * W + x;
                const float r = lum0(d, i);
                precise float ix = 0.5 * (lum0(d, i + 1) - lum0(d, i - 1));
                precise float iy = 0.5 * (lum0(d, i + W) - lum0(d, i - W));
                precise float px = float(x) + 0.5 + vec.x, py = float(y) + 0.5 + vec.y;
                precise float e = sample1(1 - d, px, py) - r;
                hxx += ix * ix, hxy += ix * iy, hyy += iy * iy;
                gx += ix * e, gy += iy * e;
            }
            r_rows[blk][lane][0] = hxx, r_rows[blk][lane][1] = hxy;
            r_rows[blk][lane][2] = hyy, r_rows[blk][lane][3] = gx, r_rows[blk][lane][4] = gy;
        }
        barrier();
        if (lane == 0u && !done) {
            precise float hxx = 0.0, hxy = 0.0, hyy = 0.0, gx = 0.0, gy = 0.0;
            for (int r = 0; r < y1 - y0; r++) {
                hxx += r_rows[blk][r][0], hxy += r_rows[blk][r][1];
                hyy += r_rows[blk][r][2], gx += r_rows[blk][r][3], gy += r_rows[blk][r][4];
            }
            precise float det = hxx * hyy - hxy * hxy;
            precise float tr = hxx + hyy;
            precise float lim = 1e-4 * tr * tr;
            if (!(det > lim) || !(tr > 1e-6)) {
                r_done[blk] = true;
            } else {
                const float inv = upf_rcp_rn(det);
                precise float dx = -(hyy * gx - hxy * gy) * inv;
                precise float dy = -(hxx * gy - hxy * gx) * inv;
                dx = clamp(dx, -1.0, 1.0);
                dy = clamp(dy, -1.0, 1.0);
                precise vec2 nv = vec + vec2(dx, dy);
                r_vec[blk] = nv;
                precise float step_len = abs(dx) + abs(dy);
                r_done[blk] = step_len < 0.01;
            }
        }
        barrier();
    }
    if (lane == 0u && valid)
        blocks[at] = r_vec[blk];
}

/* ---- 4: choose (level 0) ------------------------------------------------------------------- */

/* SAD of the 4x4 pixels around the quad at a sub-pixel vector, the other frame bilinear. */
float quad_sad(int d, float own[16], int x0, int y0, vec2 m, float limit)
{
    precise float sum = 0.0;
    for (int y = y0 - 1; y < y0 + 3; y++)
        for (int x = x0 - 1; x < x0 + 3; x++) {
            precise float px = float(x) + 0.5 + m.x, py = float(y) + 0.5 + m.y;
            const float o = sample1(1 - d, px, py);
            sum += abs(own[(y - y0 + 1) * 4 + x - x0 + 1] - o);
            if (sum >= limit)
                return sum;
        }
    return sum;
}

void choose(int qx, int qy, int d)
{
    const int W = pc.width, H = pc.height;
    if (2 * qx >= W || 2 * qy >= H)
        return;
    const view v = view_of(0);
    const int x0 = 2 * qx, y0 = 2 * qy, bs = blocks_of(W), base = buf(d, cur_of(0));
    precise float cx = (float(x0) + 1.0) * 0.125 - 0.5, cy = (float(y0) + 1.0) * 0.125 - 0.5;
    const int bx0 = int(floor(cx)), by0 = int(floor(cy));
    vec2 cand[5];
    for (int k = 0; k < 4; k++) {
        const int bx = clamp(bx0 + (k & 1), 0, v.bw - 1);
        const int by = clamp(by0 + (k >> 1), 0, v.bh - 1);
        cand[k] = blocks[base + by * bs + bx];
    }
    cand[4] = vec2(0.0);
    const int own = (x0 / B == clamp(bx0 + 1, 0, v.bw - 1) ? 1 : 0) +
                    (y0 / B == clamp(by0 + 1, 0, v.bh - 1) ? 2 : 0);
    float px16[16]; /* the 4x4 own pixels, loaded once for every candidate */
    for (int i = 0; i < 16; i++)
        px16[i] = lum(d, v, x0 - 1 + i % 4, y0 - 1 + i / 4);
    int best = own;
    float best_sad = quad_sad(d, px16, x0, y0, cand[own], inf());
    for (int k = 0; k < 5; k++) {
        if (k == own)
            continue;
        const float s = quad_sad(d, px16, x0, y0, cand[k], best_sad);
        if (s < best_sad)
            best_sad = s, best = k;
    }
    for (int y = y0; y < min(y0 + 2, H); y++)
        for (int x = x0; x < min(x0 + 2, W); x++) {
            if (d == 0)
                motion[y * W + x] = cand[best];
            else
                prev_motion[y * W + x] = cand[best];
        }
}

/* ---- 5: check (level 0) -------------------------------------------------------------------- */

/* upf__fg_motion_priority: the faster surface wins. */
uint motion_priority(vec2 m)
{
    precise float q2 = m.x * m.x + m.y * m.y;
    precise float s = upf_sqrt_rn(q2) * 256.0;
    const uint q = s < 2147483647.0 ? uint(s) : 2147483647u;
    return 0xffffffffu - q;
}

void check(int x, int y)
{
    const int W = pc.width, H = pc.height;
    if (x >= W || y >= H)
        return;
    const int i = y * W + x;
    const vec2 m = motion[i];
    precise float fx = float(x) + 0.5 + m.x, fy = float(y) + 0.5 + m.y;
    const int tx = int(floor(fx)), ty = int(floor(fy));
    bool ok = true;
    if (tx >= 0 && tx < W && ty >= 0 && ty < H) {
        const vec2 b = prev_motion[ty * W + tx];
        precise float ex = m.x + b.x, ey = m.y + b.y;
        precise float e2 = ex * ex + ey * ey, m2 = m.x * m.x + m.y * m.y;
        const float el = upf_sqrt_rn(e2), len = upf_sqrt_rn(m2);
        precise float lim = pc.consistency + pc.consistency_rel * len;
        ok = el <= lim;
    }
    priority[i] = ok ? motion_priority(m) : 0xfffffffeu;
}

void main()
{
    const uint step = pc.code & 15u;
    const int l = int(pc.code >> 4u);
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    const int d = int(gl_GlobalInvocationID.z);
    if (step == STEP_SEARCH) {
        if (l > 0)
            zero_hist();
        search(l);
    } else if (step == STEP_MEDIAN) {
        median(x, y, d, l);
    } else if (step == STEP_GLOBAL) {
        global_median(l);
    } else if (step == STEP_REFINE) {
        refine();
    } else if (step == STEP_CHOOSE) {
        choose(x, y, d);
    } else if (step == STEP_CHECK) {
        check(x, y);
    }
}
