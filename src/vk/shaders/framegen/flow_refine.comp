/* flow_refine.comp: the optical flow's step 3 on level 0 (flow.c's refine_row; docs/FRAMEGEN.md,
 * "flow"): `refine` Lucas-Kanade steps per block over the block and 2 pixels around it.
 * Reads luma (9), luma prev (8) and level 0's block vectors (27); writes those vectors.
 *
 * Four blocks a workgroup, 16 invocations each (lane r: row r of the block's region, at most
 * 12 of them). The gradients and their row sums (hxx, hxy, hyy) do not depend on the vector:
 * each lane computes its row's once, in the CPU's order along the row, keeps the gradients (and
 * the own pixels) in shared memory and per step sums only the mismatch terms (gx, gy), the
 * bilinear sample of the other frame at the moved vector (row_mismatch: its texels loaded once
 * where they form a grid); lane 0 adds the rows in order and takes the step (the same
 * floats as the CPU, which recomputes the identical sums every step). `precise` sums, a
 * correctly rounded reciprocal (exact.glsl). Directions by z. Its own SPIR-V (flow.glsl says
 * why). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;
#include "flow.glsl"

#define M 2           /* flow.c's REFINE_MARGIN */
#define SIDE (B + 2 * M)

shared vec2 r_vec[4];
shared bool r_done[4];
shared float r_h[4][SIDE][3];  /* per row: hxx, hxy, hyy */
shared float r_g[4][SIDE][2];  /* per row and step: gx, gy */
shared vec3 r_grad[4][SIDE][SIDE]; /* (ix, iy, own luma) of the region's pixels */

/* Column x of upf__fg_sample1 at horizontal position px: its texels xa, xb and weight. */
void column(float px, out int xa, out int xb, out float wx)
{
    precise float sx = px - 0.5;
    const float fx0 = floor(sx);
    precise float w = sx - fx0;
    xa = clamp(int(fx0), 0, pc.width - 1), xb = clamp(int(fx0) + 1, 0, pc.width - 1);
    wx = w;
}

/* Row y's mismatch sums (gx, gy) at vector vec: its n <= SIDE pixels from x0 left to right,
 * each e = sample1(other, x + 0.5 + vec) - own as the CPU's. The row's samples share their
 * two texel rows; where the columns' texels run on without a gap (xa of one is xb of the one
 * before: everywhere but where rounding moves a floor) the row reads n + 1 texels of each,
 * loaded once, else four a sample. The same texels and arithmetic either way. */
vec2 row_mismatch(int d, uint blk, uint lane, int x0, int n, int y, vec2 vec)
{
    const int W = pc.width, H = pc.height, f = 1 - d;
    precise float py = float(y) + 0.5 + vec.y;
    precise float sy = py - 0.5;
    const float fy0 = floor(sy);
    precise float wy = sy - fy0;
    const int ya = clamp(int(fy0), 0, H - 1) * W, yb = clamp(int(fy0) + 1, 0, H - 1) * W;
    bool grid = true;
    int prev_b = 0;
    [[unroll]] for (int c = 0; c < SIDE; c++)
        if (c < n) {
            int xa, xb;
            float wx;
            precise float px = float(x0 + c) + 0.5 + vec.x;
            column(px, xa, xb, wx);
            grid = grid && (c == 0 || xa == prev_b);
            prev_b = xb;
        }
    float ta[SIDE + 1], tb[SIDE + 1];
    if (grid) {
        int last = 0;
        [[unroll]] for (int c = 0; c < SIDE; c++)
            if (c < n) {
                int xa, xb;
                float wx;
                precise float px = float(x0 + c) + 0.5 + vec.x;
                column(px, xa, xb, wx);
                ta[c] = lum0(f, ya + xa), tb[c] = lum0(f, yb + xa);
                last = xb;
            }
        [[unroll]] for (int c = 1; c <= SIDE; c++)
            if (c == n)
                ta[c] = lum0(f, ya + last), tb[c] = lum0(f, yb + last);
    }
    precise float gx = 0.0, gy = 0.0;
    [[unroll]] for (int c = 0; c < SIDE; c++)
        if (c < n) {
            int xa, xb;
            float wx;
            precise float px = float(x0 + c) + 0.5 + vec.x;
            column(px, xa, xb, wx);
            float a, b, e, g;
            if (grid) {
                a = ta[c], b = ta[c + 1], e = tb[c], g = tb[c + 1];
            } else {
                a = lum0(f, ya + xa), b = lum0(f, ya + xb);
                e = lum0(f, yb + xa), g = lum0(f, yb + xb);
            }
            precise float top = a + wx * (b - a);
            precise float bot = e + wx * (g - e);
            precise float o = top + wy * (bot - top);
            const vec3 q = r_grad[blk][lane][c];
            precise float err = o - q.z;
            gx += q.x * err, gy += q.y * err;
        }
    return vec2(gx, gy);
}

void main()
{
    const uint t = gl_LocalInvocationIndex, blk = t >> 4u, lane = t & 15u;
    const int bx = int(gl_WorkGroupID.x) * 4 + int(blk), by = int(gl_WorkGroupID.y);
    const int d = int(gl_WorkGroupID.z);
    const view v = view_of(0);
    const bool valid = bx < v.bw && by < v.bh;
    const int W = pc.width;
    const int at = buf(d, cur_of(0)) + by * blocks_of(W) + bx;
    const int x0 = max(bx * B - M, 1), y0 = max(by * B - M, 1);
    const int x1 = min(bx * B + B + M, v.w - 1), y1 = min(by * B + B + M, v.h - 1);
    const int y = y0 + int(lane);
    const bool row = valid && y < y1; /* this lane's row is in the region */
    if (lane == 0u) {
        r_vec[blk] = valid ? blocks[at] : vec2(0.0);
        r_done[blk] = !valid;
    }
    if (row) {
        precise float hxx = 0.0, hxy = 0.0, hyy = 0.0;
        for (int x = x0; x < x1; x++) {
            const int i = y * W + x;
            precise float ix = 0.5 * (lum0(d, i + 1) - lum0(d, i - 1));
            precise float iy = 0.5 * (lum0(d, i + W) - lum0(d, i - W));
            hxx += ix * ix, hxy += ix * iy, hyy += iy * iy;
            r_grad[blk][lane][x - x0] = vec3(ix, iy, lum0(d, i));
        }
        r_h[blk][lane][0] = hxx, r_h[blk][lane][1] = hxy, r_h[blk][lane][2] = hyy;
    }
    barrier();
    for (int it = 0; it < pc.refine; it++) {
        const vec2 vec = r_vec[blk];
        const bool done = r_done[blk];
        if (!done && row) {
            const vec2 g = row_mismatch(d, blk, lane, x0, x1 - x0, y, vec);
            r_g[blk][lane][0] = g.x, r_g[blk][lane][1] = g.y;
        }
        barrier();
        if (lane == 0u && !done) {
            precise float hxx = 0.0, hxy = 0.0, hyy = 0.0, gx = 0.0, gy = 0.0;
            for (int r = 0; r < y1 - y0; r++) {
                hxx += r_h[blk][r][0], hxy += r_h[blk][r][1], hyy += r_h[blk][r][2];
                gx += r_g[blk][r][0], gy += r_g[blk][r][1];
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
