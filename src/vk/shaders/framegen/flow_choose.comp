/* flow_choose.comp: the optical flow's step 4 on level 0 (flow.c's choose_row; docs/FRAMEGEN.md,
 * "flow"): each 2x2 quad of pixels takes, of the vectors of the four blocks nearest it and
 * zero, the one with the least SAD over the 4x4 pixels around it (the other frame bilinear).
 * Reads luma (9), luma prev (8) and the level's block vectors (27); writes motion (11) and
 * prev motion (15).
 *
 * A lane per quad and candidate, the quads by regions: region (rx, ry) is the 8x8 pixels
 * from (8 rx - 4, 8 ry - 4), whose 16 quads all take the same four blocks (bx0 = rx - 1,
 * by0 = ry - 1: a quad's centre x0 + 1 lies 3 to 7 pixels past block rx - 1's centre) and
 * zero; two regions side by side a workgroup of 160 lanes, 80 a region (16 quads, 5 lanes
 * each), so that a lane's chain is one candidate's 16 bilinear samples rather than the CPU's
 * 80. The region's own pixels (10 x 10, the quads' 4x4 windows) and, per candidate, the other
 * frame's texels its 16 quads' samples reach (13 x 13 from the region's corner - 6 + the
 * vector's floor: a pixel of slack each side for a floor that rounding moves; edges
 * repeated) go to shared memory first, every load at once and row after row (a candidate's
 * texels were 25 scattered loads a lane, of them about 3 in 4 shared with the region's
 * other quads); a quad whose samples leave its window (a rounding the slack does not cover)
 * reads the buffer instead, the same texels. Each lane sums its candidate's whole SAD in the
 * CPU's order (quad_sad's one running sum, row by row, left to right); the
 * CPU's early exit once the sum reaches the best cost changes no choice (its partial sum is
 * already >= the best, the whole one no smaller: adding values >= 0 never lowers a rounded
 * sum), so every lane sums all 16. Through shared
 * memory the quad's lanes then take the CPU's choice: its own block's vector first, then the
 * others in order, the first of the least (strictly less replaces); four of them write a
 * pixel of the quad each. A quad whose 4x4 window, moved by its own block's vector, lies
 * wholly outside the frame takes flow.c's edge_vector (the first block inward whose vector
 * stays inside) without a comparison, as the CPU does. Directions by z. Its own SPIR-V
 * (flow.glsl says why); shared memory about 9.6 KB. */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 160) in;
#include "flow.glsl"

#define REGIONS 2 /* regions a workgroup, side by side */
#define RL 80     /* lanes a region: 16 quads, 5 candidates each */
#define OSIDE 10  /* the region's own pixels, from (8 rx - 5, 8 ry - 5) */
#define WSIDE 13  /* a candidate's window of the other frame */

shared float s_sad[REGIONS * RL];
shared vec2 s_vec[REGIONS * RL];
shared vec2 s_cand[REGIONS][5];
shared float s_own[REGIONS][OSIDE * OSIDE];
shared float s_win[REGIONS][5][WSIDE * WSIDE];

/* Region (rx, ry)'s window for vector m: its samples' texels are x + floor(m.x) (one more or
 * less where rounding moves the floor) and one after, for x from 8 rx - 5 to 8 rx + 4. */
ivec2 window_origin(int rx, int ry, vec2 m)
{
    return ivec2(8 * rx - 6 + int(floor(m.x)), 8 * ry - 6 + int(floor(m.y)));
}

#define QUAD_SAD quad_sad_prev
#define STAGE_WINDOWS stage_windows_prev
#define OTHER luma_prev
#include "flow_choose_sad.glsl"
#undef QUAD_SAD
#undef STAGE_WINDOWS
#undef OTHER
#define QUAD_SAD quad_sad_cur
#define STAGE_WINDOWS stage_windows_cur
#define OTHER luma_cur
#include "flow_choose_sad.glsl"
#undef QUAD_SAD
#undef STAGE_WINDOWS
#undef OTHER

/* The quad's SAD at candidate k's vector m from the staged window when its samples lie in
 * it (the same texels and arithmetic as QUAD_SAD's), else from direction d's other frame. */
float quad_sad(int d, int x0, int y0, int reg, int o0, int k, vec2 m, ivec2 wo)
{
    int ua[4], va[4];
    float fx[4], fy[4];
    [[unroll]] for (int c = 0; c < 4; c++) {
        precise float px = float(x0 - 1 + c) + 0.5 + m.x, py = float(y0 - 1 + c) + 0.5 + m.y;
        precise float sx = px - 0.5, sy = py - 0.5;
        const float fx0 = floor(sx), fy0 = floor(sy);
        precise float wx = sx - fx0, wy = sy - fy0;
        fx[c] = wx, fy[c] = wy;
        ua[c] = int(fx0) - wo.x, va[c] = int(fy0) - wo.y;
    }
    if (ua[0] < 0 || ua[3] + 1 >= WSIDE || va[0] < 0 || va[3] + 1 >= WSIDE)
        return d == 0 ? quad_sad_prev(x0, y0, reg, o0, m) : quad_sad_cur(x0, y0, reg, o0, m);
    precise float sum = 0.0;
    [[unroll]] for (int r = 0; r < 4; r++)
        [[unroll]] for (int c = 0; c < 4; c++) {
            const int i = va[r] * WSIDE + ua[c];
            const float a = s_win[reg][k][i], b = s_win[reg][k][i + 1];
            const float e = s_win[reg][k][i + WSIDE], g = s_win[reg][k][i + WSIDE + 1];
            precise float top = a + fx[c] * (b - a);
            precise float bot = e + fx[c] * (g - e);
            precise float o = top + fy[r] * (bot - top);
            sum += abs(s_own[reg][o0 + r * OSIDE + c] - o);
        }
    return sum;
}

/* flow.c's beyond: whether the pixels x0 .. x1, y0 .. y1 (edges) of level 0 moved by m leave
 * the other frame, with a pixel's slack. */
#define EDGE_SLACK 1.0
bool beyond(int x0, int y0, int x1, int y1, vec2 m)
{
    precise float ax = float(x0) + m.x, ay = float(y0) + m.y;
    precise float bx = float(x1) + m.x, by = float(y1) + m.y;
    precise float xe = float(pc.width) + EDGE_SLACK, ye = float(pc.height) + EDGE_SLACK;
    return ax < -EDGE_SLACK || bx > xe || ay < -EDGE_SLACK || by > ye;
}

/* flow.c's edge_vector: for a quad whose 4x4 window, moved by its own block's vector, lies
 * wholly outside the frame (`past`), the vector of the first block towards the inside (at
 * most EDGE_WALK away) that stays inside, else its own. */
#define EDGE_WALK 32
vec2 edge_vector(int d, view v, int qx0, int qy0, int bx, int by, out bool past)
{
    const int base = buf(d, cur_of(0)), bs = blocks_of(pc.width);
    const vec2 own = blocks[base + by * bs + bx];
    precise float ax = float(qx0 - 1) + own.x, ay = float(qy0 - 1) + own.y;
    precise float bx1 = float(qx0 + 3) + own.x, by1 = float(qy0 + 3) + own.y;
    const int sx = bx1 <= 0.0 ? -1 : ax >= float(pc.width) ? 1 : 0;
    const int sy = by1 <= 0.0 ? -1 : ay >= float(pc.height) ? 1 : 0;
    past = sx != 0 || sy != 0;
    if (!past)
        return own;
    for (int k = 1; k <= EDGE_WALK; k++) {
        const int x = bx - k * sx, y = by - k * sy;
        if (x < 0 || y < 0 || x >= v.bw || y >= v.bh)
            break;
        const vec2 m = blocks[base + y * bs + x];
        if (!beyond(x * B, y * B, min(x * B + B, pc.width), min(y * B + B, pc.height), m))
            return m;
    }
    return own;
}

void main()
{
    const int t = int(gl_LocalInvocationIndex), reg = t / RL, u = t - RL * reg;
    const int q = u / 5, k = u - 5 * q;
    const int W = pc.width, H = pc.height, d = int(gl_WorkGroupID.z);
    const int rx = int(gl_WorkGroupID.x) * REGIONS + reg, ry = int(gl_WorkGroupID.y);
    const int x0 = 8 * rx - 4 + 2 * (q & 3), y0 = 8 * ry - 4 + 2 * (q >> 2);
    const bool valid = x0 >= 0 && y0 >= 0 && x0 < W && y0 < H;
    const view v = view_of(0);
    /* the region's four blocks and zero, and its own pixels */
    if (u < 5)
        s_cand[reg][u] = u == 4 ? vec2(0.0)
                                : blocks[buf(d, cur_of(0)) +
                                         clamp(ry - 1 + (u >> 1), 0, v.bh - 1) * blocks_of(W) +
                                         clamp(rx - 1 + (u & 1), 0, v.bw - 1)];
    for (int i = u; i < OSIDE * OSIDE; i += RL)
        s_own[reg][i] = lum(d, v, 8 * rx - 5 + i % OSIDE, 8 * ry - 5 + i / OSIDE);
    /* the four blocks whose centres surround the quad's centre (bx0 = rx - 1, by0 = ry - 1) */
    precise float cx = (float(x0) + 1.0) * 0.125 - 0.5, cy = (float(y0) + 1.0) * 0.125 - 0.5;
    const int bx0 = int(floor(cx)), by0 = int(floor(cy));
    const int own = (x0 / B == clamp(bx0 + 1, 0, v.bw - 1) ? 1 : 0) +
                    (y0 / B == clamp(by0 + 1, 0, v.bh - 1) ? 2 : 0);
    /* a quad whose window its own block moves beyond the frame: the edge's vector, no SAD */
    bool past = false;
    vec2 e = vec2(0.0);
    if (valid)
        e = edge_vector(d, v, x0, y0, clamp(bx0 + (own & 1), 0, v.bw - 1),
                        clamp(by0 + (own >> 1), 0, v.bh - 1), past);
    barrier();
    if (d == 0)
        stage_windows_prev(reg, u, rx, ry);
    else
        stage_windows_cur(reg, u, rx, ry);
    barrier();
    const vec2 m = past && k == own ? e : s_cand[reg][k];
    if (valid) {
        const int o0 = 2 * (q >> 2) * OSIDE + 2 * (q & 3); /* (x0 - 1, y0 - 1) in s_own */
        s_vec[t] = m;
        s_sad[t] = past ? 0.0 : quad_sad(d, x0, y0, reg, o0, k, m,
                                         window_origin(rx, ry, s_cand[reg][k]));
    }
    barrier();
    if (!valid || k == 4)
        return;
    /* the quad's own block first (ties keep it), then the others in order */
    const int at = RL * reg + 5 * q;
    int best = own;
    float best_sad = s_sad[at + own];
    for (int c = 0; c < (past ? 0 : 5); c++)
        if (c != own && s_sad[at + c] < best_sad)
            best_sad = s_sad[at + c], best = c;
    const int x = x0 + (k & 1), y = y0 + (k >> 1);
    if (x < W && y < H) {
        if (d == 0)
            motion[y * W + x] = s_vec[at + best];
        else
            prev_motion[y * W + x] = s_vec[at + best];
    }
}
