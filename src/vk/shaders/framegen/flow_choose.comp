/* flow_choose.comp: the optical flow's step 4 on level 0 (flow.c's choose_cells; docs/FRAMEGEN.md,
 * "flow"): each 2x2 quad of pixels takes, of the vectors of the four blocks nearest it and
 * zero, the one with the least SAD over the 4x4 pixels around it (the other frame bilinear).
 * Reads luma (9), luma prev (8) and the level's block vectors (27); writes motion (11) and
 * prev motion (15).
 *
 * A lane per quad and candidate: 48 quads of a row a workgroup (96 pixels), five lanes each
 * (lanes 240 .. 255 idle), so that a lane's chain is one candidate's 16 bilinear samples
 * rather than 80; the workgroup's own pixels in shared memory. (Launching a workgroup costs
 * about the same whatever its size: 256 invocations launch a quarter as many workgroups as the
 * 64 of twelve quads did.) Each lane sums its candidate's SAD in the CPU's order (choose_quad's
 * running sum of the 16 differences, row by row, left to right; the CPU makes them once per
 * cell of 16 quads, which on an H200 was slower here: scripts/vk_probe_flow.py's ch_cell).
 * Through shared
 * memory the quad's lanes then take the CPU's choice: its own block's vector first, then the
 * others in order, the first of the least (strictly less replaces); four of them write a
 * pixel of the quad each. A quad whose 4x4 window, moved by its own block's vector, lies
 * wholly outside the frame takes flow.c's edge_vector (the first block inward whose vector
 * stays inside) without a comparison, as the CPU does. Directions by z. Its own SPIR-V
 * (flow.glsl says why). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
#include "flow.glsl"

#define QUADS 48 /* quads a workgroup, 5 lanes each */
#define LANES 256

shared float s_sad[QUADS * 5];
shared vec2 s_vec[QUADS * 5];

/* The own frame's 4 rows around the workgroup's quads (98 pixels of each: 48 quads, a pixel
 * either side), edges repeated. */
shared float s_own[4][2 * QUADS + 2];

#define QUAD_SAD quad_sad_prev
#define OTHER luma_prev
#include "flow_choose_sad.glsl"
#undef QUAD_SAD
#undef OTHER
#define QUAD_SAD quad_sad_cur
#define OTHER luma_cur
#include "flow_choose_sad.glsl"
#undef QUAD_SAD
#undef OTHER

/* Direction d's quad SAD (flow_choose_sad.glsl), against the other frame. */
float quad_sad(int d, int x0, int y0, int c0, vec2 m)
{
    return d == 0 ? quad_sad_prev(x0, y0, c0, m) : quad_sad_cur(x0, y0, c0, m);
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
    const int t = int(gl_LocalInvocationIndex), q = t / 5, k = t - 5 * q;
    const int W = pc.width, H = pc.height, d = int(gl_WorkGroupID.z);
    const int qx0 = 2 * int(gl_WorkGroupID.x) * QUADS; /* the first quad's x */
    const int x0 = qx0 + 2 * q, y0 = 2 * int(gl_WorkGroupID.y);
    const bool valid = q < QUADS && x0 < W && y0 < H;
    const view v = view_of(0);
    for (int i = t; i < 4 * (2 * QUADS + 2); i += LANES)
        s_own[i / (2 * QUADS + 2)][i % (2 * QUADS + 2)] =
            lum(d, v, qx0 - 1 + i % (2 * QUADS + 2), y0 - 1 + i / (2 * QUADS + 2));
    /* the four blocks whose centres surround the quad's centre, and zero */
    precise float cx = (float(x0) + 1.0) * 0.125 - 0.5, cy = (float(y0) + 1.0) * 0.125 - 0.5;
    const int bx0 = int(floor(cx)), by0 = int(floor(cy));
    const int own = (x0 / B == clamp(bx0 + 1, 0, v.bw - 1) ? 1 : 0) +
                    (y0 / B == clamp(by0 + 1, 0, v.bh - 1) ? 2 : 0);
    vec2 m = vec2(0.0);
    if (valid && k < 4) {
        const int bx = clamp(bx0 + (k & 1), 0, v.bw - 1);
        const int by = clamp(by0 + (k >> 1), 0, v.bh - 1);
        m = blocks[buf(d, cur_of(0)) + by * blocks_of(W) + bx];
    }
    /* a quad whose window its own block moves beyond the frame: the edge's vector, no SAD */
    bool past = false;
    if (valid) {
        const vec2 e = edge_vector(d, v, x0, y0, clamp(bx0 + (own & 1), 0, v.bw - 1),
                                   clamp(by0 + (own >> 1), 0, v.bh - 1), past);
        if (past && k == own)
            m = e;
    }
    barrier();
    if (valid) {
        s_vec[t] = m;
        s_sad[t] = past ? 0.0 : quad_sad(d, x0, y0, 2 * q, m);
    }
    barrier();
    if (!valid || k == 4)
        return;
    /* the quad's own block first (ties keep it), then the others in order */
    const int at = 5 * q;
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
