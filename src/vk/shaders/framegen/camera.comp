/* camera.comp: the camera pass on the GPU (CPU reference: src/framegen/camera.c;
 * docs/FRAMEGEN.md, "camera"). Reads: motion (binding 11). Writes: camera (16: the model,
 * the fit's state) and camera_sums (17: a row of partial sums per block of 256 grid pixels).
 *
 * Workgroups of 128 invocations; the step patched into the push constants after the pass's
 * constants (a barrier between the dispatches; vk_framegen.c's upf__vk_fg_camera_frame gives
 * them). Step 0 initialises the camera surface (workgroup 0's first invocation; with the
 * host's homography (given) its model at once: one dispatch of one workgroup). With fit, step
 * 0 is also round 0's reduction; steps r = 1 .. 4 run in every workgroup of the reduction
 * the solve of round r - 1 (each workgroup the same floats from the same rows and state;
 * workgroup 0 stores the state) and then its block of round r's reduction: round r's rows
 * go to buffer r & 1 of the sums (two buffers: a step reads the one and writes the other,
 * the last round's rows in the CPU's place) and the state after round r to slot r & 1 of
 * the camera surface (ST_*), so that no workgroup reads what another writes in the same
 * dispatch; step 5, one workgroup, the last solve and the model (before: ten dispatches,
 * each solve a dispatch of its own):
 * - reduction: one workgroup per block of 256 grid pixels (row-major), invocation i its pixels
 *   i and i + 128, the terms of their normal equations added (the tree's first level) into
 *   shared memory, then the rest of camera.c's pairwise tree (h = 64 .. 1, the 44 sums spread
 *   over the invocations); counts and the residual histogram by integer atomics in shared
 *   memory (exact);
 * - solve: one workgroup, the blocks' rows by the same tree (invocation i blocks i, i + 256,
 *   ... and i + 128, i + 384, ...; rows i and i + 128 loaded before any sum, so that the
 *   loads are in flight together), the counts by integer sums (any order: 32 loads in
 *   flight an invocation, added by shared atomics), the median bin as the number of bins
 *   whose running count is under half (each invocation its bins', the running count from 16
 *   groups' sums), then one invocation: the next threshold, a new fit by Gaussian
 *   elimination with partial pivoting (rounds 0-3), and at the end the model when a third of
 *   the pixels lie within pc.near: det 1 and its logarithm (two Denman-Beavers square roots
 *   of eight steps, log(I + X) to 16 terms, times 4; the series' coefficients each by its
 *   own invocation before the series, not in its chain).
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
    float near;        /* px: a pixel agrees with the fit within this */
    float spread;      /* the next threshold: max(0.5, spread x the median residual) */
    int step;          /* patched: 0 .. 5 */
} pc;

#include "camera.glsl"

#define CAM_THR 13
#define CAM_NEAR 14
#define CAM_ALL 15
#define CAM_G 16
/* The fit's state (threshold, near, all, G) by the workgroup in shared memory (st), between
 * the steps in one of two slots of the camera surface: the state after round r's solve in
 * slot r & 1, slot 0 camera.c's layout (CAM_THR .. CAM_G + 8), slot 1 in the powers' floats
 * (zeroed again by the last step, as camera.c leaves them) */
#define ST_THR 0
#define ST_NEAR 1
#define ST_ALL 2
#define ST_G 3
#define ST_COUNT 12
#define CAM_SLOT0 CAM_THR
#define CAM_SLOT1 40
#define CAM_FLOATS 64 /* UPF__FG_CAMERA_FLOATS: the model, then the powers (camera.glsl) */
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
#define WG_LOG 7
#define BLOCK 256
#define NSUM 44                /* the float sums of a row: SUM_ATA and SUM_ATB */
#define NCNT (3 + BINS)        /* used, near, all, the histogram */
#define CBATCH 32              /* the solve's count loads in flight an invocation */
#define GROUPS 16              /* the median's groups of BINS / GROUPS bins */

shared float red[NSUM * WG];  /* the tree's values: sum k of slot i at k WG + i */
shared uint cnt[NCNT];
shared float st[ST_COUNT];     /* the fit's state (ST_*) */
shared uint below;             /* bins whose running count is under half */
shared uint gsum[GROUPS];      /* the histogram's counts by groups of BINS / GROUPS bins */

float det3(in float m[9])
{
    precise float d = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                      m[2] * (m[3] * m[7] - m[4] * m[6]);
    return d;
}

shared float Y[9], Z[9], YI[9], ZI[9], X[9], P[9], S[9]; /* camera.c's mat_log's matrices */
shared float C[17];            /* the series' coefficients (k odd ? 1 : -1) / k, k = 2 .. 16 */
shared uint bad;               /* 1: no model (camera.c's false) */

/* Element j of the inverse of m as camera.c's mat_inv (its cofactor over the determinant);
 * false where m has none. */
bool inv3(in float m[9], int j, out float q)
{
    q = 0.0;
    const float d = det3(m);
    if (!(abs(d) > 1e-20) || isinf(d) || isnan(d))
        return false;
    const ivec4 c[9] = ivec4[9](ivec4(4, 8, 5, 7), ivec4(2, 7, 1, 8), ivec4(1, 5, 2, 4),
                                ivec4(5, 6, 3, 8), ivec4(0, 8, 2, 6), ivec4(2, 3, 0, 5),
                                ivec4(3, 7, 4, 6), ivec4(1, 6, 0, 7), ivec4(0, 4, 1, 3));
    const ivec4 e = c[j];
    precise float r = m[e.x] * m[e.y] - m[e.z] * m[e.w];
    q = upf_fdiv_rn(r, d);
    return true;
}

/* camera.c's finish and mat_log of g0, by the whole workgroup: invocation 0 the determinant
 * and the sums, invocations 0 .. 17 the elements of the two inverses of each Denman-Beavers
 * step, invocations 0 .. 8 the elements of the matrix products and sums (each element by
 * camera.c's operations: the same floats). Writes the logarithm to the camera surface and
 * returns true (in invocation 0) when there is a model; call in uniform control flow. */
bool finish(in float g0[9])
{
    const int lid = int(gl_LocalInvocationIndex);
    if (lid >= 2 && lid <= 16) /* each by its own invocation, not in the series' chain */
        C[lid] = upf_fdiv_rn((lid & 1) != 0 ? 1.0 : -1.0, float(lid));
    if (lid == 0) {
        const float d = det3(g0);
        bad = !(abs(d) > 1e-6) || isinf(d) || isnan(d) ? 1u : 0u;
        const float k = upf_fdiv_rn(1.0, upf_cbrt_rn(d)); /* camera.c: 1 / cbrt(d) */
        for (int i = 0; i < 9; i++)
            Y[i] = g0[i] * k;
    }
    barrier();
    if (bad != 0u)
        return false;
    for (int r = 0; r < 2; r++) {
        if (lid < 9)
            Z[lid] = lid % 4 == 0 ? 1.0 : 0.0;
        barrier();
        for (int it = 0; it < 8; it++) {
            if (lid < 18) {
                float m[9];
                for (int i = 0; i < 9; i++)
                    m[i] = lid < 9 ? Y[i] : Z[i];
                float q;
                if (!inv3(m, lid % 9, q))
                    atomicOr(bad, 1u);
                if (lid < 9)
                    YI[lid] = q;
                else
                    ZI[lid - 9] = q;
            }
            barrier();
            if (bad != 0u)
                return false;
            if (lid < 9) {
                precise float a = 0.5 * (Y[lid] + ZI[lid]), b = 0.5 * (Z[lid] + YI[lid]);
                Y[lid] = a, Z[lid] = b;
            }
            barrier();
        }
    }
    if (lid < 9) {
        const float x = lid % 4 == 0 ? Y[lid] - 1.0 : Y[lid];
        X[lid] = x, P[lid] = x, S[lid] = x;
    }
    barrier();
    if (lid == 0) {
        precise float n = 0.0;
        for (int i = 0; i < 9; i++)
            n += X[i] * X[i];
        bad = n < 0.25 ? 0u : 1u;
    }
    barrier();
    if (bad != 0u)
        return false;
    for (int k = 2; k <= 16; k++) {
        float q = 0.0;
        if (lid < 9) {
            const int i = lid / 3, j = lid - 3 * i;
            precise float r = P[3 * i] * X[j] + P[3 * i + 1] * X[3 + j] + P[3 * i + 2] * X[6 + j];
            q = r;
        }
        barrier();
        if (lid < 9) {
            precise float v = S[lid] + C[k] * q;
            P[lid] = q, S[lid] = v;
        }
        barrier();
    }
    if (lid < 9) {
        precise float v = 4.0 * S[lid];
        X[lid] = v;
        if (isinf(v) || isnan(v))
            atomicOr(bad, 1u);
    }
    barrier();
    if (bad != 0u || lid != 0)
        return false;
    for (int i = 0; i < 9; i++)
        cam[CAM_LOG + i] = X[i];
    return true;
}

/* camera.c's init (invocation 0), and with the host's homography its model (the workgroup). */
void init()
{
    if (gl_LocalInvocationIndex == 0) {
        for (int i = 0; i < CAM_FLOATS; i++)
            cam[i] = 0.0;
        cam[CAM_CX] = 0.5 * float(pc.width), cam[CAM_CY] = 0.5 * float(pc.height);
        cam[CAM_S] = 0.5 * float(max(pc.width, pc.height));
        cam[CAM_THR] = 1.0 / 0.0;
        cam[CAM_G] = 1.0, cam[CAM_G + 4] = 1.0, cam[CAM_G + 8] = 1.0;
        if (pc.fit != 0u && pc.given == 0u) { /* the state before round 0, for step 1 */
            cam[CAM_SLOT1 + ST_THR] = 1.0 / 0.0;
            cam[CAM_SLOT1 + ST_G] = 1.0, cam[CAM_SLOT1 + ST_G + 4] = 1.0;
            cam[CAM_SLOT1 + ST_G + 8] = 1.0;
        }
    }
    if (pc.given != 0u && finish(pc.g))
        cam[CAM_HAS] = 1.0;
}

/* The fit's blocks of BLOCK grid pixels (upf__fg_camera_blocks). */
int blocks()
{
    return max((pc.grid_w * pc.grid_h + BLOCK - 1) / BLOCK, 1);
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
            g[i] = st[ST_G + i];
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
        if (e <= pc.near)
            atomicAdd(cnt[1], 1u);
        if (!(e <= st[ST_THR]))
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
    for (int lg = WG_LOG - 1; lg >= 0; lg--) {
        const int h = 1 << lg;
        barrier();
        for (int q = lid; q < h * NSUM; q += WG) {
            const int k = q >> lg, i = q & (h - 1);
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
    const int o = ((round & 1) * blocks() + blk) * ROW; /* buffer round & 1 */
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

shared float A[64], Bv[8], F[8]; /* the normal equations being solved, the row factors */
shared int pivot;                 /* the column's pivot row, -1: singular */
shared uint go;                   /* 1: a new fit this round */
shared uint keep;                 /* 1: the last round keeps a model (a third within near) */

/* camera.c's solve8 on A and Bv, each column's pivot search by invocation 0, its swap, row
 * factors and row updates in parallel (each element by camera.c's operations: the same
 * floats), then the back substitution by invocation 0, which writes the fit G = I + D. */
void solve8()
{
    const int lid = int(gl_LocalInvocationIndex);
    for (int col = 0; col < 8; col++) {
        if (lid == 0) {
            /* the column loaded at once, then camera.c's comparisons in its order (best is
             * always |A[piv][col]|) on registers, not a load after each choice */
            float v[8];
            for (int r = 0; r < 8; r++)
                v[r] = abs(A[8 * r + col]);
            int piv = col;
            float best = abs(A[8 * col + col]);
            for (int r = 0; r < 8; r++) /* constant bounds: v in registers */
                if (r > col && v[r] > best)
                    piv = r, best = v[r];
            pivot = best > 1e-12 ? piv : -1;
        }
        barrier();
        const int piv = pivot;
        if (piv < 0)
            return;
        if (lid < 8) {
            const float t = A[8 * col + lid];
            A[8 * col + lid] = A[8 * piv + lid], A[8 * piv + lid] = t;
        } else if (lid == 8) {
            const float t = Bv[col];
            Bv[col] = Bv[piv], Bv[piv] = t;
        }
        barrier();
        if (lid > col && lid < 8) {
            precise float f = upf_fdiv_rn(A[8 * lid + col], A[8 * col + col]);
            F[lid] = f;
        }
        barrier();
        const int r = lid / 9, k = lid - 9 * r; /* row r, column k (8: the right-hand side) */
        if (r < 8 && r > col && k >= col) {
            if (k < 8) {
                precise float q = A[8 * r + k] - F[r] * A[8 * col + k];
                A[8 * r + k] = q;
            } else {
                precise float q = Bv[r] - F[r] * Bv[col];
                Bv[r] = q;
            }
        }
        barrier();
    }
    if (lid != 0)
        return;
    float x[8] = float[8](0, 0, 0, 0, 0, 0, 0, 0);
    for (int r = 7; r >= 0; r--) {
        precise float v = Bv[r];
        for (int k = r + 1; k < 8; k++)
            v -= A[8 * r + k] * x[k];
        precise float q = upf_fdiv_rn(v, A[8 * r + r]);
        x[r] = q;
        if (isinf(q) || isnan(q))
            return;
    }
    const float gn[9] = float[9](1.0 + x[0], x[1], x[2], x[3], 1.0 + x[4], x[5], x[6], x[7], 1.0);
    for (int i = 0; i < 9; i++)
        st[ST_G + i] = gn[i];
}

/* The solve step of round `round` (camera.c's solve_step), in every invocation of the
 * workgroup; true in invocation 0. */
bool solve(int round)
{
    const int lid = int(gl_LocalInvocationIndex), nb = blocks(), at = (round & 1) * nb * ROW;
    /* the last round only measures: its normal equations are not summed (nor solved) */
    const bool fits = round < ROUNDS - 1;
    for (int c = lid; c < NCNT; c += WG)
        cnt[c] = 0u;
    if (lid == 0)
        below = 0u;
    /* rows lid and lid + WG (nb <= BLOCK but for grids above 65536 pixels) loaded before any
     * sum, so that their loads are in flight together */
    const int j0 = min(lid, nb - 1), j1 = min(lid + WG, nb - 1);
    if (fits) {
        float x0[NSUM], x1[NSUM];
        for (int k = 0; k < NSUM; k++)
            x0[k] = sums[at + j0 * ROW + k], x1[k] = sums[at + j1 * ROW + k];
        for (int k = 0; k < NSUM; k++) {
            precise float a = 0.0, b = 0.0;
            if (lid < nb)
                a = a + x0[k];
            for (int j = lid + BLOCK; j < nb; j += BLOCK)
                a = a + sums[at + j * ROW + k];
            if (lid + WG < nb)
                b = b + x1[k];
            for (int j = lid + WG + BLOCK; j < nb; j += BLOCK)
                b = b + sums[at + j * ROW + k];
            precise float v = a + b;
            red[k * WG + lid] = v;
        }
    }
    barrier(); /* cnt zeroed */
    /* the counts (exact integers, any order): item q = row q / NCNT, count q % NCNT, CBATCH
     * loads in flight an invocation, added by shared atomics */
    const int items = nb * NCNT;
    for (int q0 = 0; q0 < items; q0 += WG * CBATCH) {
        uint v[CBATCH];
        for (int u = 0; u < CBATCH; u++) {
            const int q = min(q0 + u * WG + lid, items - 1), j = q / NCNT, c = q - j * NCNT;
            v[u] = uint(sums[at + j * ROW + (c < 3 ? SUM_USED + c : SUM_HIST + c - 3)]);
        }
        for (int u = 0; u < CBATCH; u++) {
            const int q = q0 + u * WG + lid;
            if (q < items && v[u] != 0u)
                atomicAdd(cnt[q % NCNT], v[u]);
        }
    }
    if (fits)
        tree(); /* ends with a barrier */
    else
        barrier();
    if (round > 0) {
        /* camera.c's median bin b: the bins 0 .. BINS - 2 whose running count n has 2 n < all
         * (a prefix, the counts being >= 0) */
        if (lid < GROUPS) {
            uint n = 0u;
            for (int q = 0; q < BINS / GROUPS; q++)
                n += cnt[3 + lid * (BINS / GROUPS) + q];
            gsum[lid] = n;
        }
        barrier();
        for (int c = lid; c < BINS - 1; c += WG) {
            const int gc = c / (BINS / GROUPS);
            uint n = 0u;
            for (int q = 0; q < gc; q++)
                n += gsum[q];
            for (int q = gc * (BINS / GROUPS); q <= c; q++)
                n += cnt[3 + q];
            if (2u * n < cnt[2])
                atomicAdd(below, 1u);
        }
        barrier();
    }
    if (lid == 0) {
        const float used = float(cnt[0]);
        if (round > 0) {
            st[ST_NEAR] = float(cnt[1]), st[ST_ALL] = float(cnt[2]);
            precise float thr = pc.spread * float(int(below) + 1) * RESID_STEP;
            st[ST_THR] = max(0.5, thr);
        }
        /* the last round only measures; too few pixels keep the fit */
        go = !fits || used < 16.0 ? 0u : 1u;
        int k = 0;
        for (int r = 0; r < 8 && go != 0u; r++) {
            for (int q = r; q < 8; q++, k++)
                A[8 * r + q] = A[8 * q + r] = red[(SUM_ATA + k) * WG];
            Bv[r] = red[(SUM_ATB + r) * WG];
        }
    }
    barrier();
    if (go != 0u)
        solve8();
    return lid == 0;
}

/* The state after round r's solve: from its slot into st, and from st into its slot. */
void load_state(int r)
{
    const int lid = int(gl_LocalInvocationIndex);
    if (lid < ST_COUNT)
        st[lid] = cam[((r & 1) == 0 ? CAM_SLOT0 : CAM_SLOT1) + lid];
    barrier();
}

void store_state(int r)
{
    const int lid = int(gl_LocalInvocationIndex);
    if (lid < ST_COUNT)
        cam[((r & 1) == 0 ? CAM_SLOT0 : CAM_SLOT1) + lid] = st[lid];
}

void main()
{
    const int wg = int(gl_WorkGroupID.x), lid = int(gl_LocalInvocationIndex);
    const bool fit = pc.fit != 0u && pc.given == 0u;
    if (pc.step == 0) {
        if (wg == 0)
            init();
        if (fit)
            reduce(0, wg); /* reads nothing init writes */
        return;
    }
    if (!fit)
        return;
    /* step s: the solve of round s - 1 (every workgroup the same floats), then round s's
     * reduction, or at step ROUNDS (one workgroup) the model */
    const int round = pc.step - 1;
    load_state(round - 1);
    solve(round);
    barrier();
    if (round < ROUNDS - 1) {
        if (wg == 0)
            store_state(round);
        reduce(round + 1, wg);
        return;
    }
    store_state(round); /* round 4: slot 0, camera.c's layout */
    if (lid < ST_COUNT)
        cam[CAM_SLOT1 + lid] = 0.0;
    float g[9];
    for (int k = 0; k < 9; k++)
        g[k] = st[ST_G + k];
    if (lid == 0)
        keep = st[ST_ALL] > 0.0 && st[ST_NEAR] * 3.0 >= st[ST_ALL] ? 1u : 0u;
    barrier();
    if (keep != 0u && finish(g))
        cam[CAM_HAS] = 1.0;
}
