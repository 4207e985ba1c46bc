/* camera.comp: the camera pass on the GPU (CPU reference: src/framegen/camera.c;
 * docs/FRAMEGEN.md, "camera"). Reads: motion (binding 11). Writes: camera (16: the model,
 * the fit's state) and camera_sums (17: a row of partial sums per block of 256 grid pixels).
 *
 * Workgroups of 128 invocations; the step patched into the push constants after the pass's
 * constants (a barrier between the dispatches; vk_framegen.c's upf__vk_fg_camera_frame gives
 * them). Step 0 initialises the camera surface (workgroup 0's first invocation; with the
 * host's homography (given) its model at once: one dispatch of one workgroup). With fit, step
 * 0 is also round 0's reduction, then steps 2r - 1 (the solve of round r - 1) and 2r (the
 * reduction of round r), step 9 the last solve and the model:
 * - reduction: one workgroup per block of 256 grid pixels (row-major), invocation i its pixels
 *   i and i + 128, the terms of their normal equations added (the tree's first level) into
 *   shared memory, then the rest of camera.c's pairwise tree (h = 64 .. 1, the 44 sums spread
 *   over the invocations); counts and the residual histogram by integer atomics in shared
 *   memory (exact);
 * - solve: one workgroup, the blocks' rows by the same tree (invocation i blocks i, i + 256,
 *   ... and i + 128, i + 384, ...), the counts by integer sums, the median bin as the number
 *   of bins whose running count is under half (each invocation its bins'), then one
 *   invocation: the next threshold, a new fit by Gaussian elimination with partial pivoting
 *   (rounds 0-3), and at the end the model when a third of the pixels lie within 0.5 px: det
 *   1 and its logarithm (two Denman-Beavers square roots of eight steps, log(I + X) to 16
 *   terms, times 4).
 * The arithmetic is `precise`, in camera.c's order, the divisions and roots correctly rounded
 * (exact.glsl), so lavapipe gives the CPU's floats bit for bit. */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 128) in;
layout(set = 0, binding = 11, std430) readonly buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 16, std430) buffer Camera { float cam[]; };
layout(set = 0, binding = 17, std430) buffer Sums { float sums[]; };
layout(push_constant) uniform Push {
    int width, height;
    int step_px, grid_w, grid_h;
    uint fit, given;
    float g[9];
    int step;          /* patched: 0 .. 11 */
} pc;

#include "camera.glsl"

#define CAM_THR 13
#define CAM_NEAR 14
#define CAM_ALL 15
#define CAM_G 16
#define CAM_FLOATS 32
#define SUM_ATA 0
#define SUM_ATB 36
#define SUM_USED 44
#define SUM_NEAR 45
#define SUM_ALL 46
#define SUM_HIST 48
#define BINS 256
#define ROW (48 + BINS)
#define RESID_STEP 0.05
#define ROUNDS 5
#define FG_INVALID 1e30
#define WG 128
#define BLOCK 256
#define NSUM 44                /* the float sums of a row: SUM_ATA and SUM_ATB */
#define NCNT (3 + BINS)        /* used, near, all, the histogram */

shared float red[NSUM * WG];  /* the tree's values: sum k of slot i at k WG + i */
shared uint cnt[NCNT];
shared uint below;             /* bins whose running count is under half */

float det3(in float m[9])
{
    precise float d = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                      m[2] * (m[3] * m[7] - m[4] * m[6]);
    return d;
}

bool inv3(in float m[9], out float o[9])
{
    o = m;
    const float d = det3(m);
    if (!(abs(d) > 1e-20) || isinf(d) || isnan(d))
        return false;
    float r[9];
    precise float r0 = m[4] * m[8] - m[5] * m[7], r1 = m[2] * m[7] - m[1] * m[8];
    precise float r2 = m[1] * m[5] - m[2] * m[4], r3 = m[5] * m[6] - m[3] * m[8];
    precise float r4 = m[0] * m[8] - m[2] * m[6], r5 = m[2] * m[3] - m[0] * m[5];
    precise float r6 = m[3] * m[7] - m[4] * m[6], r7 = m[1] * m[6] - m[0] * m[7];
    precise float r8 = m[0] * m[4] - m[1] * m[3];
    r = float[9](r0, r1, r2, r3, r4, r5, r6, r7, r8);
    for (int i = 0; i < 9; i++) {
        precise float q = upf_fdiv_rn(r[i], d);
        o[i] = q;
    }
    return true;
}

bool log3(in float g[9], out float outm[9])
{
    outm = g;
    float y[9] = g;
    for (int r = 0; r < 2; r++) {
        float z[9] = float[9](1, 0, 0, 0, 1, 0, 0, 0, 1);
        for (int it = 0; it < 8; it++) {
            float yi[9], zi[9];
            if (!inv3(y, yi) || !inv3(z, zi))
                return false;
            for (int i = 0; i < 9; i++) {
                precise float a = 0.5 * (y[i] + zi[i]), b = 0.5 * (z[i] + yi[i]);
                y[i] = a, z[i] = b;
            }
        }
    }
    float x[9] = y;
    x[0] -= 1.0, x[4] -= 1.0, x[8] -= 1.0;
    precise float n = 0.0;
    for (int i = 0; i < 9; i++)
        n += x[i] * x[i];
    if (!(n < 0.25))
        return false;
    float p[9] = x, s[9] = x;
    for (int k = 2; k <= 16; k++) {
        float q[9];
        cam_mul(p, x, q);
        p = q;
        const float c = upf_fdiv_rn((k & 1) != 0 ? 1.0 : -1.0, float(k));
        for (int i = 0; i < 9; i++) {
            precise float v = s[i] + c * p[i];
            s[i] = v;
        }
    }
    for (int i = 0; i < 9; i++) {
        precise float v = 4.0 * s[i];
        outm[i] = v;
        if (isinf(v) || isnan(v))
            return false;
    }
    return true;
}

bool finish(in float g0[9])
{
    float g[9] = g0;
    const float d = det3(g);
    if (!(abs(d) > 1e-6) || isinf(d) || isnan(d))
        return false;
    const float k = upf_fdiv_rn(1.0, upf_cbrt_rn(d)); /* camera.c: 1 / cbrt(d) */
    for (int i = 0; i < 9; i++)
        g[i] *= k;
    float l[9];
    if (!log3(g, l))
        return false;
    for (int i = 0; i < 9; i++)
        cam[CAM_LOG + i] = l[i];
    return true;
}

void init()
{
    for (int i = 0; i < CAM_FLOATS; i++)
        cam[i] = 0.0;
    cam[CAM_CX] = 0.5 * float(pc.width), cam[CAM_CY] = 0.5 * float(pc.height);
    cam[CAM_S] = 0.5 * float(max(pc.width, pc.height));
    cam[CAM_THR] = 1.0 / 0.0;
    cam[CAM_G] = 1.0, cam[CAM_G + 4] = 1.0, cam[CAM_G + 8] = 1.0;
    if (pc.given != 0u && finish(pc.g))
        cam[CAM_HAS] = 1.0;
}

/* The normalisation (camera.c's init: the camera surface's centre and scale). */
void norm(out float cx, out float cy, out float s)
{
    cx = 0.5 * float(pc.width), cy = 0.5 * float(pc.height);
    s = 0.5 * float(max(pc.width, pc.height));
}

/* Grid pixel p's terms of the normal equations (zeros where it is left out) into l; its
 * counts and histogram bin into cnt (camera.c's pixel_terms). */
void pixel_terms(int round, int p, out float l[NSUM])
{
    for (int k = 0; k < NSUM; k++)
        l[k] = 0.0;
    if (p >= pc.grid_w * pc.grid_h)
        return;
    float cx, cy, s;
    norm(cx, cy, s);
    precise float is = upf_rcp_rn(s);
    const int x = pc.step_px / 2 + (p % pc.grid_w) * pc.step_px;
    const int y = pc.step_px / 2 + (p / pc.grid_w) * pc.step_px;
    const vec2 m = motion[y * pc.width + x];
    if (!(m.x < FG_INVALID * 0.5))
        return;
    precise float u = (float(x) + 0.5 - cx) * is, v = (float(y) + 0.5 - cy) * is;
    precise float du = m.x * is, dv = m.y * is, u2 = u + du, v2 = v + dv;
    if (round > 0) {
        float g[9];
        for (int i = 0; i < 9; i++)
            g[i] = cam[CAM_G + i];
        precise float w = g[6] * u + g[7] * v + g[8];
        precise float e = 1.0 / 0.0;
        if (w > 1e-6) {
            precise float ex = upf_fdiv_rn(g[0] * u + g[1] * v + g[2], w) - u2;
            precise float ey = upf_fdiv_rn(g[3] * u + g[4] * v + g[5], w) - v2;
            e = upf_sqrt_rn(ex * ex + ey * ey) * s;
        }
        precise float b = upf_fdiv_rn(e, RESID_STEP);
        atomicAdd(cnt[3 + (b < float(BINS - 1) ? int(b) : BINS - 1)], 1u);
        atomicAdd(cnt[2], 1u);
        if (e <= 0.5)
            atomicAdd(cnt[1], 1u);
        if (!(e <= cam[CAM_THR]))
            return;
    }
    precise float nu = -u * u2, nv = -v * u2, mu = -u * v2, mv = -v * v2;
    const float rx[8] = float[8](u, v, 1, 0, 0, 0, nu, nv);
    const float ry[8] = float[8](0, 0, 0, u, v, 1, mu, mv);
    int k = 0;
    for (int a = 0; a < 8; a++) {
        for (int b = a; b < 8; b++, k++) {
            precise float q = rx[a] * rx[b] + ry[a] * ry[b];
            l[SUM_ATA + k] = q;
        }
        precise float q = rx[a] * du + ry[a] * dv;
        l[SUM_ATB + a] = q;
    }
    atomicAdd(cnt[0], 1u);
}

/* camera.c's tree_sum on red (its first level, h = 128, already added by the caller). */
void tree()
{
    const int lid = int(gl_LocalInvocationIndex);
    for (int h = WG / 2; h >= 1; h /= 2) {
        barrier();
        for (int q = lid; q < h * NSUM; q += WG) {
            const int k = q / h, i = q - k * h;
            precise float v = red[k * WG + i] + red[k * WG + i + h];
            red[k * WG + i] = v;
        }
    }
    barrier();
}

/* Round `round`'s row of camera sums for block blk (camera.c's reduce_block). */
void reduce(int round, int blk)
{
    const int lid = int(gl_LocalInvocationIndex);
    for (int c = lid; c < NCNT; c += WG)
        cnt[c] = 0u;
    barrier();
    float l0[NSUM], l1[NSUM];
    pixel_terms(round, BLOCK * blk + lid, l0);
    pixel_terms(round, BLOCK * blk + lid + WG, l1);
    for (int k = 0; k < NSUM; k++) {
        precise float v = l0[k] + l1[k];
        red[k * WG + lid] = v;
    }
    tree();
    const int o = blk * ROW;
    for (int k = lid; k < ROW; k += WG) {
        float v = 0.0;
        if (k < NSUM)
            v = red[k * WG];
        else if (k >= SUM_USED && k <= SUM_ALL)
            v = float(cnt[k - SUM_USED]);
        else if (k >= SUM_HIST)
            v = float(cnt[3 + k - SUM_HIST]);
        sums[o + k] = v;
    }
}

bool solve8(inout float a[64], inout float b[8], out float x[8])
{
    x = float[8](0, 0, 0, 0, 0, 0, 0, 0);
    for (int col = 0; col < 8; col++) {
        int piv = col;
        for (int r = col + 1; r < 8; r++)
            if (abs(a[8 * r + col]) > abs(a[8 * piv + col]))
                piv = r;
        if (!(abs(a[8 * piv + col]) > 1e-12))
            return false;
        for (int k = 0; k < 8; k++) {
            const float t = a[8 * col + k];
            a[8 * col + k] = a[8 * piv + k], a[8 * piv + k] = t;
        }
        const float tb = b[col];
        b[col] = b[piv], b[piv] = tb;
        for (int r = col + 1; r < 8; r++) {
            precise float f = upf_fdiv_rn(a[8 * r + col], a[8 * col + col]);
            for (int k = col; k < 8; k++) {
                precise float q = a[8 * r + k] - f * a[8 * col + k];
                a[8 * r + k] = q;
            }
            precise float q = b[r] - f * b[col];
            b[r] = q;
        }
    }
    for (int r = 7; r >= 0; r--) {
        precise float v = b[r];
        for (int k = r + 1; k < 8; k++)
            v -= a[8 * r + k] * x[k];
        precise float q = upf_fdiv_rn(v, a[8 * r + r]);
        x[r] = q;
        if (isinf(q) || isnan(q))
            return false;
    }
    return true;
}

int blocks()
{
    return max((pc.grid_w * pc.grid_h + BLOCK - 1) / BLOCK, 1);
}

/* The solve step of round `round` (camera.c's solve_step); false in all but invocation 0. */
bool solve(int round)
{
    const int lid = int(gl_LocalInvocationIndex), nb = blocks();
    for (int k = 0; k < NSUM; k++) {
        precise float a = 0.0, b = 0.0;
        for (int j = lid; j < nb; j += BLOCK)
            a = a + sums[j * ROW + k];
        for (int j = lid + WG; j < nb; j += BLOCK)
            b = b + sums[j * ROW + k];
        precise float v = a + b;
        red[k * WG + lid] = v;
    }
    for (int c = lid; c < NCNT; c += WG) {
        const int k = c < 3 ? SUM_USED + c : SUM_HIST + c - 3;
        uint n = 0u;
        for (int j = 0; j < nb; j++)
            n += uint(sums[j * ROW + k]);
        cnt[c] = n;
    }
    if (lid == 0)
        below = 0u;
    tree();
    if (round > 0) {
        /* camera.c's median bin b: the bins 0 .. BINS - 2 whose running count n has 2 n < all
         * (a prefix, the counts being >= 0) */
        for (int c = lid; c < BINS - 1; c += WG) {
            uint n = 0u;
            for (int q = 0; q <= c; q++)
                n += cnt[3 + q];
            if (2u * n < cnt[2])
                atomicAdd(below, 1u);
        }
        barrier();
    }
    if (lid != 0)
        return false;
    float t[48];
    for (int k = 0; k < NSUM; k++)
        t[k] = red[k * WG];
    t[SUM_USED] = float(cnt[0]), t[SUM_NEAR] = float(cnt[1]), t[SUM_ALL] = float(cnt[2]);
    if (round > 0) {
        cam[CAM_NEAR] = t[SUM_NEAR], cam[CAM_ALL] = t[SUM_ALL];
        const int b = int(below);
        precise float thr = 3.0 * float(b + 1) * RESID_STEP;
        cam[CAM_THR] = max(0.5, thr);
    }
    if (round == ROUNDS - 1 || t[SUM_USED] < 16.0)
        return true;
    float a[64], rhs[8], d[8];
    int k = 0;
    for (int r = 0; r < 8; r++)
        for (int q = r; q < 8; q++, k++)
            a[8 * r + q] = a[8 * q + r] = t[SUM_ATA + k];
    for (int r = 0; r < 8; r++)
        rhs[r] = t[SUM_ATB + r];
    if (!solve8(a, rhs, d))
        return true;
    const float gn[9] = float[9](1.0 + d[0], d[1], d[2], d[3], 1.0 + d[4], d[5], d[6], d[7], 1.0);
    for (int i = 0; i < 9; i++)
        cam[CAM_G + i] = gn[i];
    return true;
}

void main()
{
    const int wg = int(gl_WorkGroupID.x), lid = int(gl_LocalInvocationIndex);
    const bool fit = pc.fit != 0u && pc.given == 0u;
    if (pc.step == 0) {
        if (wg == 0 && lid == 0)
            init();
        if (fit)
            reduce(0, wg); /* reads nothing init writes */
        return;
    }
    if (!fit)
        return;
    const int round = pc.step / 2;
    if ((pc.step & 1) == 0) {
        reduce(round, wg);
        return;
    }
    if (!solve(round) || round < ROUNDS - 1)
        return;
    float g[9];
    for (int k = 0; k < 9; k++)
        g[k] = cam[CAM_G + k];
    if (cam[CAM_ALL] > 0.0 && cam[CAM_NEAR] * 3.0 >= cam[CAM_ALL] && finish(g))
        cam[CAM_HAS] = 1.0;
}
