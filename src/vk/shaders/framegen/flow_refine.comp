/* flow_refine.comp: the optical flow's step 3 on level 0 (flow.c's refine_block; docs/FRAMEGEN.md,
 * "flow"): `refine` Lucas-Kanade steps per block over the block and 2 pixels around it.
 * Reads luma (9), luma prev (8) and level 0's searched block vectors (27); writes level 0's
 * vectors (27). Level 0's vector median (flow.c's median_row) is this dispatch's too: each
 * block's lanes take its median first (flow_median.glsl's arithmetic, lane a < 9 summing
 * candidate a's distances, every lane then taking the first least: 9 distances a lane, not
 * 81), the vector its steps start from, a dispatch and its barrier fewer (the CPU counts the
 * two as one step).
 *
 * Four blocks a workgroup, 16 invocations each (eight blocks of 128 invocations measured
 * slower on an H100: 0.297 -> 0.494 ms at 1080p). The own frame's region and the pixel around
 * it (14 x 14) go to shared memory first (a branch on the frame per loop, not per load),
 * beside the median's sums; the steps' bilinear samples of the other frame read its buffer.
 * (They read a 20 x 20 window of it staged in shared memory before, the texels the samples
 * can reach in three steps: 17.3 KB of shared memory a workgroup, not 4.3, and a tile's loads
 * and a barrier more; without it the pass took 0.179 ms at 1080p on an H200 instead of 0.346,
 * test_vk_flow's timing, scripts/vk_probe_flow.py's rf_global.) The sums are flow.c's over
 * integers (luma codes: exact in any order), so the region's 12 x 12 pixels are spread over the
 * block's 16 lanes, 9 each (pixel i = lane + 16 k, row-major): each lane keeps its pixels'
 * gradients and own codes in registers (they do not depend on the vector) and per step sums
 * only its 9 mismatch terms; the block's 16 partial sums meet in shared memory (one barrier
 * a step, kept apart by the step's parity; the gradient products' with the first step's),
 * and every lane adds them (integers: any order) and takes the step itself. Before, a lane
 * summed a row of 12 in the CPU's float order, 12 of 16 lanes busy, and then the 12 rows.
 * `precise` floats, a correctly rounded reciprocal (exact.glsl). Directions by z. Its own
 * SPIR-V (flow.glsl says why). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;
#include "flow.glsl"

#define M 2           /* flow.c's REFINE_MARGIN */
#define SIDE (B + 2 * M)
#define OT (SIDE + 2) /* the own tile: the region and a pixel around it */
#define OTP (OT + 1)  /* its rows' stride */
#define BLOCKS 4      /* blocks a workgroup */
#define LANES 16      /* lanes a block */
#define PIX ((SIDE * SIDE + LANES - 1) / LANES) /* pixels a lane: 9 */
#define H_UNIT 2.98023223876953125e-8 /* 2^-25: flow.c's sums as floats */
#define G_UNIT 5.9604644775390625e-8  /* 2^-24 */

shared float r_m[BLOCKS][9];           /* the median's candidates' sums of distances */
shared ivec4 r_h[BLOCKS][LANES];       /* per lane: its sums of (dx dx, dx dy, dy dy) >> 1 */
shared ivec2 r_g[2][BLOCKS][LANES];    /* per lane, by the step's parity: (dx E, dy E) >> 1 */
shared float r_own[BLOCKS][OT * OTP];  /* own frame, rows y0 - 1 .., columns x0 - 1 .. */

/* Block blk's own tile (origin (X, Y)): its 16 lanes load it, every coordinate clamped into
 * the frame (no clamps where the tile lies inside it). */
#define STAGE_TILE(DST, BUF, SIDE_, STRIDE_, X, Y)                                            \
    if ((X) >= 0 && (Y) >= 0 && (X) + SIDE_ <= W && (Y) + SIDE_ <= H) {                       \
        [[unroll]] for (int i = int(lane); i < SIDE_ * SIDE_; i += LANES)                    \
            DST[i / SIDE_ * STRIDE_ + i % SIDE_] = BUF[((Y) + i / SIDE_) * W + (X) + i % SIDE_]; \
    } else {                                                                                  \
        [[unroll]] for (int i = int(lane); i < SIDE_ * SIDE_; i += LANES)                    \
            DST[i / SIDE_ * STRIDE_ + i % SIDE_] =                                            \
                BUF[clamp((Y) + i / SIDE_, 0, H - 1) * W + clamp((X) + i % SIDE_, 0, W - 1)]; \
    }

/* flow.c's luma_int: a luma value's 12-bit code, exactly */
int code_of(float v)
{
    return int(v * 4096.0);
}

/* One coordinate of upf__fg_sample1 at position p: its first texel unclamped (the second is
 * one more) and weight. */
void axis(float p, out int ua, out float w)
{
    precise float s = p - 0.5;
    const float f0 = floor(s);
    precise float t = s - f0;
    ua = int(f0);
    w = t;
}

/* The mismatch in codes of pixel (x, y) at vector vec, E = round(4096 (sample1(other, (x, y)
 * + 0.5 + vec) - own)), the texels from frame f's buffer (clamped as upf__fg_sample1's). */
int mismatch(int f, int x, int y, float own, vec2 vec)
{
    const int W = pc.width, H = pc.height;
    int ua, va;
    float fx, fy;
    precise float px = float(x) + 0.5 + vec.x;
    precise float py = float(y) + 0.5 + vec.y;
    axis(px, ua, fx);
    axis(py, va, fy);
    const int ya = clamp(va, 0, H - 1) * W, yb = clamp(va + 1, 0, H - 1) * W;
    const int xa = clamp(ua, 0, W - 1), xb = clamp(ua + 1, 0, W - 1);
    const float a = lum0(f, ya + xa), b = lum0(f, ya + xb);
    const float c = lum0(f, yb + xa), e = lum0(f, yb + xb);
    precise float top = a + fx * (b - a);
    precise float bot = c + fx * (e - c);
    precise float o = top + fy * (bot - top);
    precise float k = (o - own) * 4096.0 + 0.5;
    return int(floor(k));
}

/* Level 0's vector median of block (bx, by) (flow_median.glsl's median_of, the same floats),
 * its 81 distances spread over the block's lanes: lane a < 9 sums candidate a's distances to
 * the nine into r_m (infinity outside the level) before a barrier, and median_pick takes the
 * first least after it, as median_of's walk. Every lane loads the nine vectors (c). */
void median_sums(int bx, int by, int d, uint blk, uint lane, out vec2 c[9])
{
    const view v = view_of(0);
    const int bs = blocks_of(pc.width), raw = buf(d, 2);
    bool in_[9];
    [[unroll]] for (int k = 0; k < 9; k++) {
        const int x = bx + k % 3 - 1, y = by + k / 3 - 1;
        in_[k] = x >= 0 && y >= 0 && x < v.bw && y < v.bh;
        c[k] = in_[k] ? blocks[raw + y * bs + x] : vec2(0.0);
    }
    [[unroll]] for (int a = 0; a < 9; a++)
        if (uint(a) == lane) {
            precise float sum = 0.0;
            [[unroll]] for (int b = 0; b < 9; b++)
                if (in_[b])
                    sum += abs(c[a].x - c[b].x) + abs(c[a].y - c[b].y);
            r_m[blk][a] = in_[a] ? sum : inf();
        }
}

vec2 median_pick(uint blk, vec2 c[9])
{
    vec2 best = c[4]; /* the block itself: always inside */
    float best_sum = inf();
    [[unroll]] for (int a = 0; a < 9; a++)
        if (r_m[blk][a] < best_sum)
            best_sum = r_m[blk][a], best = c[a];
    return best;
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
    /* level 0's vector median of the block (from the search's vectors; its sums over the
     * lanes): the vector the steps start from, written at the end with them; meanwhile the
     * own frame's tile */
    vec2 c[9];
    if (valid)
        median_sums(bx, by, d, blk, lane, c);
    const int ox = x0 - 1, oy = y0 - 1;
    if (valid) {
        if (d == 0) {
            STAGE_TILE(r_own[blk], luma_cur, OT, OTP, ox, oy)
        } else {
            STAGE_TILE(r_own[blk], luma_prev, OT, OTP, ox, oy)
        }
    }
    barrier();
    const vec2 first = valid ? median_pick(blk, c) : vec2(0.0);
    /* this lane's pixels: their gradients (zero outside the region: their terms vanish), own
     * values, and its share of the gradient products */
    int gdx[PIX], gdy[PIX];
    float own[PIX];
    ivec3 hs = ivec3(0);
    [[unroll]] for (int k = 0; k < PIX; k++) {
        const int i = int(lane) + LANES * k, r = i / SIDE, c = i % SIDE;
        gdx[k] = 0, gdy[k] = 0, own[k] = 0.0;
        if (valid && r < rows && c < n) {
            const int o = (r + 1) * OTP + 1 + c;
            own[k] = r_own[blk][o];
            gdx[k] = code_of(r_own[blk][o + 1]) - code_of(r_own[blk][o - 1]);
            gdy[k] = code_of(r_own[blk][o + OTP]) - code_of(r_own[blk][o - OTP]);
            hs += ivec3(gdx[k] * gdx[k], gdx[k] * gdy[k], gdy[k] * gdy[k]) >> 1;
        }
    }
    vec2 vec = first;
    bool done = !valid;
    float hxx = 0.0, hxy = 0.0, hyy = 0.0;
    for (int it = 0; it < pc.refine; it++) {
        const int par = it & 1; /* the step's sums, apart from the next step's */
        if (!done) {
            ivec2 g = ivec2(0);
            [[unroll]] for (int k = 0; k < PIX; k++) {
                const int i = int(lane) + LANES * k, r = i / SIDE, c = i % SIDE;
                if (r < rows && c < n) {
                    const int e = mismatch(1 - d, x0 + c, y0 + r, own[k], vec);
                    g += ivec2(gdx[k] * e, gdy[k] * e) >> 1;
                }
            }
            r_g[par][blk][lane] = g;
            if (it == 0)
                r_h[blk][lane] = ivec4(hs, 0);
        }
        barrier();
        if (!done) {
            if (it == 0) {
                ivec3 h = ivec3(0);
                [[unroll]] for (int l = 0; l < LANES; l++)
                    h += r_h[blk][l].xyz;
                hxx = float(h.x) * H_UNIT, hxy = float(h.y) * H_UNIT, hyy = float(h.z) * H_UNIT;
            }
            ivec2 s = ivec2(0);
            [[unroll]] for (int l = 0; l < LANES; l++)
                s += r_g[par][blk][l];
            const float gx = float(s.x) * G_UNIT, gy = float(s.y) * G_UNIT;
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
