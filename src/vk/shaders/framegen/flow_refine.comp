/* flow_refine.comp: the optical flow's step 3 on level 0 (flow.c's refine_row; docs/FRAMEGEN.md,
 * "flow"): `refine` Lucas-Kanade steps per block over the block and 2 pixels around it.
 * Reads luma (9), luma prev (8) and level 0's searched block vectors (27); writes level 0's
 * vectors (27). Level 0's vector median (flow.c's median_row) is this dispatch's too: each
 * block's lanes take its median first (flow_median.glsl), the vector its steps start from,
 * a dispatch and its barrier fewer (the CPU counts the two as one step).
 *
 * Four blocks a workgroup, 16 invocations each (lane r: row r of the block's region, at most
 * 12 of them; eight blocks of 128 invocations, 32 KB of shared memory, measured slower on an
 * H100: 0.297 -> 0.494 ms at 1080p with the median, 1.25 -> 2.04 at 4K). First every luma value the block can need goes to shared memory, all loads at once
 * (a branch on the frame per loop, not per load): the own frame's region and the pixel
 * around it (14 x 14), and the other frame's window that the bilinear samples of the region
 * can reach while the vector moves at most a pixel per component a step (the region + 4
 * texels each side around the vector's floor: 20 x 20, edges repeated); a row whose samples
 * leave it (more steps than 3, or a rounding) reads its texels from the buffer instead (the
 * same texels). The gradients and their row sums (hxx, hxy, hyy) do not depend on the vector:
 * each lane computes its row's once from the tile, in the CPU's order along the row, keeping
 * the gradients in shared memory; the rows' are added once (the same floats as the CPU's,
 * which recomputes the identical sums every step). Per step each lane sums only its row's
 * mismatch terms (gx, gy), the bilinear sample of the other frame at the moved vector from
 * the window, and every lane of the block then adds the rows in order and takes the step
 * itself (the same floats in each: one barrier a step, the rows' sums kept apart by the
 * step's parity). Shared memory is laid out for a lane a row: the tiles' rows at an odd
 * stride and the gradients by column, so that a load of the block's 12 lanes touches 12
 * banks.
 * `precise` sums, a correctly rounded reciprocal (exact.glsl). Directions by z. Its own SPIR-V
 * (flow.glsl says why). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;
#include "flow.glsl"
#include "flow_median.glsl"

#define M 2           /* flow.c's REFINE_MARGIN */
#define SIDE (B + 2 * M)
#define OT (SIDE + 2) /* the own tile: the region and a pixel around it */
#define OTP (OT + 1)  /* its rows' stride: odd, so a lane a row reads a bank each */
#define WM 4          /* the window's margin around the region at the first vector's floor */
#define WS (SIDE + 2 * WM)
#define WSP (WS + 1)  /* the window's rows' stride: odd, as OTP */
#define BLOCKS 4      /* blocks a workgroup */

shared float r_h[BLOCKS][SIDE][3];     /* per row: hxx, hxy, hyy */
shared float r_g[2][BLOCKS][SIDE][2];  /* per row, by the step's parity: gx, gy */
shared vec2 r_grad[BLOCKS][SIDE][SIDE]; /* (ix, iy) of the region's pixels, by column then row */
shared float r_own[BLOCKS][OT * OTP];  /* own frame, rows y0 - 1 .., columns x0 - 1 .. */
shared float r_win[BLOCKS][WS * WSP];  /* other frame, rows wy0 .., columns wx0 .. (clamped) */

/* Block blk's tiles: its 16 lanes load them, the own frame's (tile origin (ox, oy)) and the
 * other's (origin (wx, wy)), every coordinate clamped into the frame (no clamps where a tile
 * lies inside it). */
#define STAGE_TILE(DST, BUF, SIDE_, STRIDE_, X, Y)                                            \
    if ((X) >= 0 && (Y) >= 0 && (X) + SIDE_ <= W && (Y) + SIDE_ <= H) {                       \
        [[unroll]] for (int i = int(lane); i < SIDE_ * SIDE_; i += 16)                       \
            DST[i / SIDE_ * STRIDE_ + i % SIDE_] = BUF[((Y) + i / SIDE_) * W + (X) + i % SIDE_]; \
    } else {                                                                                  \
        [[unroll]] for (int i = int(lane); i < SIDE_ * SIDE_; i += 16)                       \
            DST[i / SIDE_ * STRIDE_ + i % SIDE_] =                                            \
                BUF[clamp((Y) + i / SIDE_, 0, H - 1) * W + clamp((X) + i % SIDE_, 0, W - 1)]; \
    }
#define STAGE(OWNBUF, OTHERBUF)                                                               \
    STAGE_TILE(r_own[blk], OWNBUF, OT, OTP, ox, oy)                                           \
    STAGE_TILE(r_win[blk], OTHERBUF, WS, WSP, wx, wy)

/* Column x of upf__fg_sample1 at horizontal position px: its first texel unclamped (the
 * second is one more) and weight. */
void column(float px, out int ua, out float wx)
{
    precise float sx = px - 0.5;
    const float fx0 = floor(sx);
    precise float w = sx - fx0;
    ua = int(fx0);
    wx = w;
}

/* Row y's mismatch sums (gx, gy) at vector vec: its n <= SIDE pixels from x0 left to right,
 * each e = sample1(other, x + 0.5 + vec) - own as the CPU's; the texels from the window
 * (origin wx, wy) where the row's samples lie in it, else from the buffer (clamped as
 * upf__fg_sample1's). */
vec2 row_mismatch(int d, uint blk, uint lane, int x0, int n, int y, vec2 vec, int wx, int wy)
{
    const int W = pc.width, H = pc.height, f = 1 - d;
    precise float py = float(y) + 0.5 + vec.y;
    precise float sy = py - 0.5;
    const float fy0 = floor(sy);
    precise float wy_ = sy - fy0;
    const int va = int(fy0);
    /* the columns' first texels grow with x: the row's lie between the first and the last */
    int u_first, u_last;
    float w_unused;
    column(float(x0) + 0.5 + vec.x, u_first, w_unused);
    column(float(x0 + n - 1) + 0.5 + vec.x, u_last, w_unused);
    const bool inside = u_first >= wx && u_last + 1 < wx + WS && va >= wy && va + 1 < wy + WS;
    const int own0 = (int(lane) + 1) * OTP + 1; /* the row's own pixels in the tile */
    precise float gx = 0.0, gy = 0.0;
    if (inside) {
        const int r0 = (va - wy) * WSP - wx, r1 = r0 + WSP;
        [[unroll]] for (int c = 0; c < SIDE; c++)
            if (c < n) {
                int ua;
                float wx_;
                precise float px = float(x0 + c) + 0.5 + vec.x;
                column(px, ua, wx_);
                const float a = r_win[blk][r0 + ua], b = r_win[blk][r0 + ua + 1];
                const float e = r_win[blk][r1 + ua], g = r_win[blk][r1 + ua + 1];
                precise float top = a + wx_ * (b - a);
                precise float bot = e + wx_ * (g - e);
                precise float o = top + wy_ * (bot - top);
                const vec2 q = r_grad[blk][c][lane];
                precise float err = o - r_own[blk][own0 + c];
                gx += q.x * err, gy += q.y * err;
            }
    } else {
        const int ya = clamp(va, 0, H - 1) * W, yb = clamp(va + 1, 0, H - 1) * W;
        for (int c = 0; c < n; c++) {
            int ua;
            float wx_;
            precise float px = float(x0 + c) + 0.5 + vec.x;
            column(px, ua, wx_);
            const int xa = clamp(ua, 0, W - 1), xb = clamp(ua + 1, 0, W - 1);
            const float a = lum0(f, ya + xa), b = lum0(f, ya + xb);
            const float e = lum0(f, yb + xa), g = lum0(f, yb + xb);
            precise float top = a + wx_ * (b - a);
            precise float bot = e + wx_ * (g - e);
            precise float o = top + wy_ * (bot - top);
            const vec2 q = r_grad[blk][c][lane];
            precise float err = o - r_own[blk][own0 + c];
            gx += q.x * err, gy += q.y * err;
        }
    }
    return vec2(gx, gy);
}

void main()
{
    const uint t = gl_LocalInvocationIndex, blk = t >> 4u, lane = t & 15u;
    const int bx = int(gl_WorkGroupID.x) * BLOCKS + int(blk), by = int(gl_WorkGroupID.y);
    const int d = int(gl_WorkGroupID.z);
    const view v = view_of(0);
    const bool valid = bx < v.bw && by < v.bh;
    const int W = pc.width, H = pc.height;
    const int at = buf(d, cur_of(0)) + by * blocks_of(W) + bx;
    const int x0 = max(bx * B - M, 1), y0 = max(by * B - M, 1);
    const int x1 = min(bx * B + B + M, v.w - 1), y1 = min(by * B + B + M, v.h - 1);
    const int n = x1 - x0, rows = y1 - y0;
    const int y = y0 + int(lane);
    const bool row = valid && int(lane) < rows; /* this lane's row is in the region */
    /* level 0's vector median of the block (flow_median.glsl; every lane the same, from the
     * search's vectors): the vector the steps start from, written at the end with them */
    const vec2 first = valid ? median_of(bx, by, d, 0) : vec2(0.0);
    const int ox = x0 - 1, oy = y0 - 1;
    const int wx = x0 + int(floor(first.x)) - WM, wy = y0 + int(floor(first.y)) - WM;
    if (valid) {
        if (d == 0) {
            STAGE(luma_cur, luma_prev)
        } else {
            STAGE(luma_prev, luma_cur)
        }
    }
    barrier();
    if (row) {
        /* the region's row y: tile row lane + 1, columns 1 .. n */
        const int o = (int(lane) + 1) * OTP + 1;
        precise float hxx = 0.0, hxy = 0.0, hyy = 0.0;
        [[unroll]] for (int c = 0; c < SIDE; c++)
            if (c < n) {
                precise float ix = 0.5 * (r_own[blk][o + c + 1] - r_own[blk][o + c - 1]);
                precise float iy = 0.5 * (r_own[blk][o + c + OTP] - r_own[blk][o + c - OTP]);
                hxx += ix * ix, hxy += ix * iy, hyy += iy * iy;
                r_grad[blk][c][lane] = vec2(ix, iy);
            }
        r_h[blk][lane][0] = hxx, r_h[blk][lane][1] = hxy, r_h[blk][lane][2] = hyy;
    }
    barrier();
    /* every lane of the block: the rows' sums of the gradient products, once, and each step
     * (the same floats in every lane: no second barrier a step, nothing to share) */
    precise float hxx = 0.0, hxy = 0.0, hyy = 0.0;
    [[unroll]] for (int r = 0; r < SIDE; r++)
        if (r < rows)
            hxx += r_h[blk][r][0], hxy += r_h[blk][r][1], hyy += r_h[blk][r][2];
    vec2 vec = first;
    bool done = !valid;
    for (int it = 0; it < pc.refine; it++) {
        const int par = it & 1; /* the step's sums, apart from the next step's */
        if (!done && row) {
            const vec2 g = row_mismatch(d, blk, lane, x0, n, y, vec, wx, wy);
            r_g[par][blk][lane][0] = g.x, r_g[par][blk][lane][1] = g.y;
        }
        barrier();
        if (!done) {
            precise float gx = 0.0, gy = 0.0;
            [[unroll]] for (int r = 0; r < SIDE; r++)
                if (r < rows)
                    gx += r_g[par][blk][r][0], gy += r_g[par][blk][r][1];
            precise float det = hxx * hyy - hxy * hxy;
            precise float tr = hxx + hyy;
            precise float lim = 1e-4 * tr * tr;
            if (!(det > lim) || !(tr > 1e-6)) {
                done = true;
            } else {
                const float inv = upf_rcp_rn(det);
                precise float dx = -(hyy * gx - hxy * gy) * inv;
                precise float dy = -(hxx * gy - hxy * gx) * inv;
                dx = clamp(dx, -1.0, 1.0);
                dy = clamp(dy, -1.0, 1.0);
                precise vec2 nv = vec + vec2(dx, dy);
                vec = nv;
                precise float step_len = abs(dx) + abs(dy);
                done = step_len < 0.01;
            }
        }
    }
    if (lane == 0u && valid)
        blocks[at] = vec;
}
