/* camera.comp: the camera pass on the GPU (CPU reference: src/framegen/camera.c;
 * docs/FRAMEGEN.md, "camera"). Reads: motion (binding 11). Writes: camera (16: the model,
 * the fit's state) and camera_sums (17: a row of partial sums per grid row).
 *
 * Twelve dispatches, the step patched into the push constants after the pass's constants (a
 * barrier between each): step 0 (one invocation) initialises the camera surface, and with
 * the host's homography (given) takes its model at once; steps 1 + 2r and 2 + 2r (r = 0..4)
 * are round r of the fit: the reduction, one invocation per grid row summing its pixels in
 * camera.c's order (the normal equations of those within the threshold, from the second
 * round the residual histogram), then the solve, one invocation summing the rows in order,
 * the next threshold from the histogram's median, a new fit by Gaussian elimination with
 * partial pivoting in the first four; step 11 keeps the model when a third of the pixels lie
 * within 0.5 px: det 1 and its logarithm (two Denman-Beavers square roots of eight steps,
 * log(I + X) to 16 terms, times 4). Only with fit or given set; otherwise no model. The
 * arithmetic is `precise`, in camera.c's order; the cube root of the determinant is
 * pow(d, 1/3), an ulp or two from cbrtf (test_vk_framegen's tolerance on the logarithm). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
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

void reduce(int round, int gy)
{
    const int o = gy * ROW;
    for (int k = 0; k < ROW; k++)
        sums[o + k] = 0.0;
    float g[9];
    for (int i = 0; i < 9; i++)
        g[i] = cam[CAM_G + i];
    const float cx = cam[CAM_CX], cy = cam[CAM_CY], s = cam[CAM_S], thr = cam[CAM_THR];
    precise float is = upf_rcp_rn(s);
    const int y = pc.step_px / 2 + gy * pc.step_px;
    for (int gx = 0; gx < pc.grid_w; gx++) {
        const int x = pc.step_px / 2 + gx * pc.step_px;
        const vec2 m = motion[y * pc.width + x];
        if (!(m.x < FG_INVALID * 0.5))
            continue;
        precise float u = (float(x) + 0.5 - cx) * is, v = (float(y) + 0.5 - cy) * is;
        precise float du = m.x * is, dv = m.y * is, u2 = u + du, v2 = v + dv;
        if (round > 0) {
            precise float w = g[6] * u + g[7] * v + g[8];
            precise float e = 1.0 / 0.0;
            if (w > 1e-6) {
                precise float ex = upf_fdiv_rn(g[0] * u + g[1] * v + g[2], w) - u2;
                precise float ey = upf_fdiv_rn(g[3] * u + g[4] * v + g[5], w) - v2;
                e = upf_sqrt_rn(ex * ex + ey * ey) * s;
            }
            precise float b = upf_fdiv_rn(e, RESID_STEP);
            const int bin = b < float(BINS - 1) ? int(b) : BINS - 1;
            sums[o + SUM_HIST + bin] += 1.0;
            sums[o + SUM_ALL] += 1.0;
            sums[o + SUM_NEAR] += e <= 0.5 ? 1.0 : 0.0;
            if (!(e <= thr))
                continue;
        }
        precise float nu = -u * u2, nv = -v * u2, mu = -u * v2, mv = -v * v2;
        const float rx[8] = float[8](u, v, 1, 0, 0, 0, nu, nv);
        const float ry[8] = float[8](0, 0, 0, u, v, 1, mu, mv);
        int k = 0;
        for (int a = 0; a < 8; a++) {
            for (int b = a; b < 8; b++, k++) {
                precise float q = sums[o + SUM_ATA + k] + (rx[a] * rx[b] + ry[a] * ry[b]);
                sums[o + SUM_ATA + k] = q;
            }
            precise float q = sums[o + SUM_ATB + a] + (rx[a] * du + ry[a] * dv);
            sums[o + SUM_ATB + a] = q;
        }
        sums[o + SUM_USED] += 1.0;
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

void solve(int round)
{
    float t[ROW];
    for (int k = 0; k < ROW; k++)
        t[k] = 0.0;
    for (int gy = 0; gy < pc.grid_h; gy++)
        for (int k = 0; k < ROW; k++) {
            precise float q = t[k] + sums[gy * ROW + k];
            t[k] = q;
        }
    if (round > 0) {
        cam[CAM_NEAR] = t[SUM_NEAR], cam[CAM_ALL] = t[SUM_ALL];
        precise float n = 0.0;
        int b = 0;
        while (b < BINS - 1) {
            n += t[SUM_HIST + b];
            if (!(n * 2.0 < t[SUM_ALL]))
                break;
            b++;
        }
        precise float thr = 3.0 * float(b + 1) * RESID_STEP;
        cam[CAM_THR] = max(0.5, thr);
    }
    if (round == ROUNDS - 1 || t[SUM_USED] < 16.0)
        return;
    float a[64], rhs[8], d[8];
    int k = 0;
    for (int r = 0; r < 8; r++)
        for (int q = r; q < 8; q++, k++)
            a[8 * r + q] = a[8 * q + r] = t[SUM_ATA + k];
    for (int r = 0; r < 8; r++)
        rhs[r] = t[SUM_ATB + r];
    if (!solve8(a, rhs, d))
        return;
    const float gn[9] = float[9](1.0 + d[0], d[1], d[2], d[3], 1.0 + d[4], d[5], d[6], d[7], 1.0);
    for (int i = 0; i < 9; i++)
        cam[CAM_G + i] = gn[i];
}

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (pc.step == 0) {
        if (i == 0)
            init();
        return;
    }
    if (pc.fit == 0u || pc.given != 0u)
        return;
    if (pc.step == 11) {
        if (i == 0) {
            float g[9];
            for (int k = 0; k < 9; k++)
                g[k] = cam[CAM_G + k];
            if (cam[CAM_ALL] > 0.0 && cam[CAM_NEAR] * 3.0 >= cam[CAM_ALL] && finish(g))
                cam[CAM_HAS] = 1.0;
        }
        return;
    }
    const int round = (pc.step - 1) / 2;
    if ((pc.step & 1) == 1) {
        if (i < pc.grid_h)
            reduce(round, i);
    } else if (i == 0) {
        solve(round);
    }
}
