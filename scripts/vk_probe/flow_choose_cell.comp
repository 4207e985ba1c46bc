/* flow_choose_cell.comp: a probe variant of flow_choose.comp (scripts/vk_probe_flow.py's
 * ch_cell; exact: test_vk_flow passes with it on lavapipe), the optical flow's step 4 on level 0
 * (flow.c's choose_cells) by cells. Every quad of a cell (the 4 x 4 quads, 8 x 8 pixels, whose
 * centres lie between the same four block centres: quad x0 with floor((x0 + 1) / 8 - 0.5) =
 * floor((x0 - 3) / 8) = b, likewise down) has the same five candidates, so the cell's per-pixel
 * differences |own(p) - other(p + m)| over the 10 x 10 pixels its quads' windows cover are made
 * once per candidate (500 bilinear samples a cell where its 16 quads take 16 x 80) into shared
 * memory, and each quad sums its 16 in the CPU's order (flow.c's choose_quad: the same terms,
 * the same sums) and compares the five in the CPU's order. It runs on the host's grid for
 * flow_choose.comp (48 quads of a row a workgroup), taken as a list of workgroups, 4 cells
 * each (enough at every size: about W H / 48 cells' room for W H / 64 cells). On an H200 it
 * was slower than flow_choose.comp (choose 0.190 -> 0.282 ms at 1080p, 2026-12-07); the CPU's
 * choice (flow.c) works this way. Reads luma (9),
 * luma prev (8) and level 0's block vectors (27); writes motion (11) and prev motion (15). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
#include "flow.glsl"

#define CELLS 4
#define LANES 256
#define SPAN 10 /* a cell's window: pixels 8b + 3 .. 8b + 12 */

shared float s_d[CELLS][5][SPAN * SPAN];
shared vec2 s_vec[CELLS][5];

#define EDGE_SLACK 1.0
bool beyond(int x0, int y0, int x1, int y1, vec2 m)
{
    precise float ax = float(x0) + m.x, ay = float(y0) + m.y;
    precise float bx = float(x1) + m.x, by = float(y1) + m.y;
    precise float xe = float(pc.width) + EDGE_SLACK, ye = float(pc.height) + EDGE_SLACK;
    return ax < -EDGE_SLACK || bx > xe || ay < -EDGE_SLACK || by > ye;
}

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

/* the cells across and down: b = -1 .. floor((x_last - 3) / 8), x_last the last quad's x */
int cells_of(int size)
{
    const int last = 2 * ((size + 1) / 2) - 2;
    return (last - 3 >= 0 ? (last - 3) / 8 : -1) + 2;
}

void main()
{
    const int t = int(gl_LocalInvocationIndex);
    const int W = pc.width, H = pc.height, d = int(gl_WorkGroupID.z);
    const view v = view_of(0);
    const int ncx = cells_of(W), ncy = cells_of(H);
    const int wg = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    /* the candidates: four blocks and zero, per cell */
    if (t < CELLS * 5) {
        const int cell = wg * CELLS + t / 5, k = t % 5;
        vec2 m = vec2(0.0);
        if (cell < ncx * ncy && k < 4) {
            const int b = cell % ncx - 1, c = cell / ncx - 1;
            const int bx = clamp(b + (k & 1), 0, v.bw - 1), by = clamp(c + (k >> 1), 0, v.bh - 1);
            m = blocks[buf(d, cur_of(0)) + by * blocks_of(W) + bx];
        }
        s_vec[t / 5][k] = m;
    }
    barrier();
    /* the differences, a cell's candidates' windows one after the other */
    for (int j = t; j < CELLS * 5 * SPAN * SPAN; j += LANES) {
        const int ci = j / (5 * SPAN * SPAN), k = j / (SPAN * SPAN) % 5, p = j % (SPAN * SPAN);
        const int cell = wg * CELLS + ci;
        if (cell >= ncx * ncy)
            break;
        const int b = cell % ncx - 1, c = cell / ncx - 1;
        const int x = 8 * b + 3 + p % SPAN, y = 8 * c + 3 + p / SPAN;
        const vec2 m = s_vec[ci][k];
        precise float px = float(x) + 0.5 + m.x, py = float(y) + 0.5 + m.y;
        const float o = sample1(1 - d, px, py);
        precise float diff = abs(lum(d, v, x, y) - o);
        s_d[ci][k][p] = diff;
    }
    barrier();
    if (t >= CELLS * 16)
        return;
    const int ci = t / 16, i = t % 16, cell = wg * CELLS + ci;
    if (cell >= ncx * ncy)
        return;
    const int b = cell % ncx - 1, c = cell / ncx - 1;
    const int x0 = 8 * b + 4 + 2 * (i % 4), y0 = 8 * c + 4 + 2 * (i / 4);
    if (x0 < 0 || y0 < 0 || x0 >= W || y0 >= H)
        return;
    const int own = (x0 / B == clamp(b + 1, 0, v.bw - 1) ? 1 : 0) +
                    (y0 / B == clamp(c + 1, 0, v.bh - 1) ? 2 : 0);
    bool past;
    const vec2 e = edge_vector(d, v, x0, y0, clamp(b + (own & 1), 0, v.bw - 1),
                               clamp(c + (own >> 1), 0, v.bh - 1), past);
    vec2 best_m = past ? e : s_vec[ci][own];
    if (!past) {
        /* the quad's window starts at column x0 - 1 - (8b + 3), row likewise */
        const int at = (y0 - 1 - (8 * c + 3)) * SPAN + x0 - 1 - (8 * b + 3);
        float sads[5];
        [[unroll]] for (int k = 0; k < 5; k++) {
            precise float sum = 0.0;
            [[unroll]] for (int r = 0; r < 4; r++)
                [[unroll]] for (int q = 0; q < 4; q++)
                    sum += s_d[ci][k][at + r * SPAN + q];
            sads[k] = sum;
        }
        int best = own;
        float best_sad = sads[own];
        [[unroll]] for (int k = 0; k < 5; k++)
            if (k != own && sads[k] < best_sad)
                best_sad = sads[k], best = k;
        best_m = s_vec[ci][best];
    }
    [[unroll]] for (int k = 0; k < 4; k++) {
        const int x = x0 + (k & 1), y = y0 + (k >> 1);
        if (x < W && y < H) {
            if (d == 0)
                motion[y * W + x] = best_m;
            else
                prev_motion[y * W + x] = best_m;
        }
    }
}
