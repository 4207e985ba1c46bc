/* flow_refine.comp: the optical flow's step 3 on level 0 (flow.c's refine_row; docs/FRAMEGEN.md,
 * "flow"): `refine` Lucas-Kanade steps per block over the block and 2 pixels around it.
 * Reads luma (9), luma prev (8) and level 0's block vectors (27); writes those vectors.
 *
 * Four blocks a workgroup, 16 invocations each (lane r: row r of the block's region, at most
 * 12 of them). The gradients and their row sums (hxx, hxy, hyy) do not depend on the vector:
 * each lane computes its row's once, in the CPU's order along the row, keeps the gradients in
 * shared memory and per step sums only the mismatch terms (gx, gy), the bilinear sample of the
 * other frame at the moved vector; lane 0 adds the rows in order and takes the step (the same
 * floats as the CPU, which recomputes the identical sums every step). `precise` sums, a
 * correctly rounded reciprocal (exact.glsl). Directions by z. Its own SPIR-V (flow.glsl says
 * why). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
#include "flow.glsl"

#define M 2           /* flow.c's REFINE_MARGIN */
#define SIDE (B + 2 * M)

shared vec2 r_vec[4];
shared bool r_done[4];
shared float r_h[4][SIDE][3];  /* per row: hxx, hxy, hyy */
shared float r_g[4][SIDE][2];  /* per row and step: gx, gy */
shared vec2 r_grad[4][SIDE][SIDE]; /* (ix, iy) of the region's pixels */

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
            r_grad[blk][lane][x - x0] = vec2(ix, iy);
        }
        r_h[blk][lane][0] = hxx, r_h[blk][lane][1] = hxy, r_h[blk][lane][2] = hyy;
    }
    barrier();
    for (int it = 0; it < pc.refine; it++) {
        const vec2 vec = r_vec[blk];
        const bool done = r_done[blk];
        if (!done && row) {
            precise float gx = 0.0, gy = 0.0;
            for (int x = x0; x < x1; x++) {
                const vec2 g = r_grad[blk][lane][x - x0];
                precise float px = float(x) + 0.5 + vec.x, py = float(y) + 0.5 + vec.y;
                precise float e = sample1(1 - d, px, py) - lum0(d, y * W + x);
                gx += g.x * e, gy += g.y * e;
            }
            r_g[blk][lane][0] = gx, r_g[blk][lane][1] = gy;
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
