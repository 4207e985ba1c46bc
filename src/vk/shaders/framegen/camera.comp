/* camera.comp: the camera pass on the GPU (CPU reference: src/framegen/camera.c;
 * docs/FRAMEGEN.md, "camera"). Reads: motion (binding 11). Writes: camera (16: the model,
 * the fit's state) and camera_sums (17: a row of partial sums per block of 256 grid pixels).
 *
 * Workgroups of 256 invocations; the step patched into the push constants after the pass's
 * constants (a barrier between the dispatches; vk_framegen.c's upf__vk_fg_camera_frame gives
 * them). Step 0 initialises the camera surface (workgroup 0's first invocation; with the
 * host's homography (given) its model at once: one dispatch of one workgroup). With fit, step
 * 0 is also round 0's reduction; steps r = 1 .. 4 run in every workgroup of the reduction
 * the solve of round r - 1 (each workgroup the same floats from the same rows and state;
 * workgroup 0 stores the state) and then its block of round r's reduction: round r's rows
 * go to buffer r & 1 of the sums (two buffers: a step reads the one and writes the other,
 * the last round's rows in the CPU's place) and the state after round r to slot r & 1 of
 * the camera surface (ST_*), so that no workgroup reads what another writes in the same
 * dispatch; in step 4 the workgroup that finishes round 4's reduction last (a count of the
 * workgroups done) makes the last solve and the model (before: a sixth dispatch of one
 * workgroup; before that ten dispatches, each solve a dispatch of its own):
 * - reduction: one workgroup per block of 256 grid pixels (row-major), invocation i its pixel
 *   i (its load and position computed before the step's solve), the terms and counts (used,
 *   near, all: 0 or 1) of pixels i < 128 stored, then those of i + 128 added (the tree's first
 *   level) in shared memory, then the rest of camera.c's pairwise tree (h = 64 .. 1, in two
 *   passes); the residual histogram by integer atomics in shared memory (exact), from round 1
 *   on the counts also added to the round's totals in the sums surface (global integer
 *   atomics; step 0 zeroes them);
 * - solve: one workgroup, the blocks' rows by the same tree (slot i: blocks i, i + 256, ...
 *   plus i + 128, i + 384, ...; 22 or 24 slots' sums an invocation, their loads in flight
 *   together), the counts from the round's totals (NCNT loads, not every row's: round 0's
 *   count of used pixels by the tree with the sums), the median bin as the number of bins
 *   whose running count is under half (the last bin of that prefix writes it), the next
 *   threshold, a new fit by Gaussian elimination with partial pivoting (rounds 0-3: an
 *   invocation per element of the matrix and right-hand side, one barrier a column), and at
 *   the end the model when a third of the pixels lie within pc.near: det 1 and its logarithm
 *   (two Denman-Beavers square roots of eight steps, log(I + X) to 16 terms, times 4: an
 *   invocation per element, one barrier a step; the series' coefficients each by its own
 *   invocation before the series).
 * Arrays outside shared memory are indexed only in unrolled loops (constant indices, so that
 * they can live in registers): before, NVIDIA's compiler put 944 bytes an invocation in local
 * memory (arrays indexed at run time, passed to functions), each access in the serial chain
 * a round trip to memory. The other loops are kept rolled ([[dont_unroll]], exact.glsl's
 * too): each workgroup runs its code once a step, so every instruction it runs is fetched
 * cold (on main b5b50e0, fully unrolled, NVIDIA's binary was 407 KB).
 * The arithmetic is `precise`, in camera.c's order, the divisions and roots correctly rounded
 * (exact.glsl), so lavapipe gives the CPU's floats bit for bit. */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
layout(set = 0, binding = 11, std430) readonly buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 16, std430) coherent buffer Camera { float cam[]; };
layout(set = 0, binding = 17, std430) coherent buffer Sums { uint sums[]; }; /* floats' bits */
layout(push_constant) uniform Push {
    int width, height;
    int step_px, grid_w, grid_h;
    uint fit, given;
    float g[9];
    float near;        /* px: a pixel agrees with the fit within this */
    float spread;      /* the next threshold: max(0.5, spread x the median residual) */
    int step;          /* patched: 0 .. 4 */
} pc;

#define UPF_EXACT_LOOP [[dont_unroll]] /* one copy of each division's steps (exact.glsl) */
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
#define WG 256
#define HALF 128               /* the tree's slots: a block's pixels i and i + HALF added first */
#define HALF_LOG 7
#define BLOCK 256
#define NSUM 44                /* the float sums of a row: SUM_ATA and SUM_ATB */
#define NRED 47                /* ... and the counts used, near, all (a reduction's tree) */
#define NCNT (3 + BINS)        /* used, near, all, the histogram */
#if 3 + BINS > 2 * WG || BLOCK != 2 * HALF || WG != BLOCK
#error "an invocation per grid pixel of a block; the solve loads the NCNT totals two an invocation"
#endif
#define GROUPS 16              /* the median's groups of BINS / GROUPS bins */

#define RS (HALF + 1)           /* red's stride: sum k of slot i at k RS + i (not k HALF + i:
                                * items that read sum k's slot 0 for many k, the tree's last
                                * pass, the rows' stores, the matrix's loads, would all hit
                                * one bank of shared memory) */
shared float red[NRED * RS];   /* the tree's values */
shared uint cnt[NCNT];
shared float st[ST_COUNT];     /* the fit's state (ST_*) */
shared uint below;             /* bins whose running count is under half */
shared uint gsum[GROUPS];      /* the histogram's counts by groups of BINS / GROUPS bins */

/* camera.c's mat_det of the matrix m0 .. m8 (row-major), its operations in its order */
float det9(float m0, float m1, float m2, float m3, float m4, float m5, float m6, float m7,
           float m8)
{
    precise float d = m0 * (m4 * m8 - m5 * m7) - m1 * (m3 * m8 - m5 * m6) +
                      m2 * (m3 * m7 - m4 * m6);
    return d;
}

/* camera.c's mat_log's matrices, in two buffers each (a step reads the one and writes the
 * other: one barrier a step): Y and Z (the Denman-Beavers iterates: buffer b's Y at YZ[18 b],
 * its Z at YZ[18 b + 9]), P (the series' power: buffer b at P[9 b]), X = Y - I */
shared float YZ[36], P[18], X[9];
shared float C[17];            /* the series' coefficients (k odd ? 1 : -1) / k, k = 2 .. 16 */
shared uint bad;               /* 1: no model (camera.c's false) */

/* The entries of m whose products make element j of camera.c's mat_inv's cofactor matrix:
 * m[e.x] m[e.y] - m[e.z] m[e.w] (a switch, not an array indexed at run time: no local
 * memory). */
ivec4 cofactor(int j)
{
    switch (j) {
    case 0: return ivec4(4, 8, 5, 7);
    case 1: return ivec4(2, 7, 1, 8);
    case 2: return ivec4(1, 5, 2, 4);
    case 3: return ivec4(5, 6, 3, 8);
    case 4: return ivec4(0, 8, 2, 6);
    case 5: return ivec4(2, 3, 0, 5);
    case 6: return ivec4(3, 7, 4, 6);
    case 7: return ivec4(1, 6, 0, 7);
    default: return ivec4(0, 4, 1, 3);
    }
}

/* Element e of the inverse of the matrix YZ[b .. b + 8] as camera.c's mat_inv (its cofactor
 * over the determinant); false where the matrix has none. */
bool inv3(int b, ivec4 e, out float q)
{
    q = 0.0;
    const float d = det9(YZ[b], YZ[b + 1], YZ[b + 2], YZ[b + 3], YZ[b + 4], YZ[b + 5],
                         YZ[b + 6], YZ[b + 7], YZ[b + 8]);
    if (!(abs(d) > 1e-20) || isinf(d) || isnan(d))
        return false;
    precise float r = YZ[b + e.x] * YZ[b + e.y] - YZ[b + e.z] * YZ[b + e.w];
    q = upf_fdiv_rn(r, d);
    return true;
}

/* camera.c's finish and mat_log of G (the host's pc.g when `given`, else the fit's st), by
 * the whole workgroup: invocation 0 the determinant and the scaled G; in each Denman-Beavers
 * step invocation j < 9 element j of Y's inverse and then element j of the next Z (Z's own
 * plus it, halved), invocation 9 + j element j of Z's inverse and then of the next Y; in
 * each step of the series invocation j < 9 element j of the next power and of the sum (the
 * sum in its registers); one barrier a step. Each element by camera.c's operations: the same
 * floats. camera.c returns at the first failure; here each invocation notes its failures and
 * the steps run on (a fixed count, nothing written), one shared flag at the end. Writes the
 * logarithm to the camera surface and returns true (in invocation 0) when there is a model;
 * call in uniform control flow. */
bool finish(bool given)
{
    const int lid = int(gl_LocalInvocationIndex);
    bool ok = true;
    if (lid >= 2 && lid <= 16) /* each by its own invocation, not in the series' chain */
        C[lid] = upf_fdiv_rn((lid & 1) != 0 ? 1.0 : -1.0, float(lid));
    if (lid == 0) {
        float g[9];
        [[unroll]] for (int i = 0; i < 9; i++)
            g[i] = given ? pc.g[i] : st[ST_G + i];
        const float d = det9(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8]);
        bad = !(abs(d) > 1e-6) || isinf(d) || isnan(d) ? 1u : 0u;
        const float k = upf_fdiv_rn(1.0, upf_cbrt_rn(d)); /* camera.c: 1 / cbrt(d) */
        [[unroll]] for (int i = 0; i < 9; i++) {
            precise float y = g[i] * k;
            YZ[i] = y;
        }
    }
    if (lid < 9)
        YZ[9 + lid] = lid % 4 == 0 ? 1.0 : 0.0;
    barrier();
    if (bad != 0u)
        return false;
    /* invocation lid < 18: element j of the inverse of matrix m (0: Y, 1: Z) */
    const int m = lid < 9 ? 0 : 1, j = lid - 9 * m;
    const ivec4 e = cofactor(j);
    int cur = 0;
    [[dont_unroll]] for (int r = 0; r < 2; r++) {
        if (r == 1) { /* the second root starts again from Z = I */
            if (lid < 9)
                YZ[18 * cur + 9 + lid] = lid % 4 == 0 ? 1.0 : 0.0;
            barrier();
        }
        [[dont_unroll]] for (int it = 0; it < 8; it++, cur ^= 1) {
            if (lid < 18) {
                float q;
                ok = inv3(18 * cur + 9 * m, e, q) && ok;
                /* camera.c: y = (y + zi) / 2, z = (z + yi) / 2 */
                const int o = 9 * (1 - m) + j; /* the other matrix's element j */
                precise float v = 0.5 * (YZ[18 * cur + o] + q);
                YZ[18 * (cur ^ 1) + o] = v;
            }
            barrier();
        }
    }
    /* 16 steps: the result in buffer cur = 0 */
    float sum = 0.0;
    if (lid < 9) {
        const float x = lid % 4 == 0 ? YZ[lid] - 1.0 : YZ[lid];
        X[lid] = x, P[lid] = x, sum = x;
    }
    barrier();
    if (lid == 0) {
        precise float n = 0.0;
        [[unroll]] for (int i = 0; i < 9; i++)
            n += X[i] * X[i];
        ok = ok && n < 0.25;
    }
    int pb = 0;
    [[dont_unroll]] for (int k = 2; k <= 16; k++, pb ^= 1) {
        if (lid < 9) {
            const int i = lid / 3, c = lid - 3 * i, a = 9 * pb + 3 * i;
            precise float r = P[a] * X[c] + P[a + 1] * X[3 + c] + P[a + 2] * X[6 + c];
            precise float v = sum + C[k] * r;
            P[9 * (pb ^ 1) + lid] = r, sum = v;
        }
        barrier();
    }
    precise float out_v = 4.0 * sum;
    if (lid < 9 && (isinf(out_v) || isnan(out_v)))
        ok = false;
    if (!ok)
        atomicOr(bad, 1u);
    barrier();
    if (bad != 0u)
        return false;
    if (lid < 9)
        cam[CAM_LOG + lid] = out_v;
    return lid == 0;
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
    if (pc.given != 0u && finish(true))
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

/* Term k of this invocation's slot of red (lid mod HALF): q stored, or with `add` added to
 * what is there (the tree's first level: camera.c's l[i][k] + l2[k], the same float
 * addition). */
void put(int k, float q, bool add)
{
    const int i = k * RS + (int(gl_LocalInvocationIndex) & (HALF - 1));
    if (add) {
        precise float v = red[i] + q;
        red[i] = v;
    } else {
        red[i] = q;
    }
}

/* Grid pixel p's normalised position (u, v) and motion (du, dv) into uvd (camera.c's
 * pixel_terms up to its residual), valid: in the grid with a valid vector. Nothing of it
 * depends on the fit, so a step computes it (its load of the motion and its correctly rounded
 * reciprocal) before the solve that the reduction waits for. */
void pixel(int p, out bool valid, out vec4 uvd)
{
    float cx, cy, s;
    norm(cx, cy, s);
    precise float is = upf_rcp_rn(s);
    const int x = pc.step_px / 2 + (p % pc.grid_w) * pc.step_px;
    const int y = pc.step_px / 2 + (p / pc.grid_w) * pc.step_px;
    vec2 m = vec2(0.0);
    valid = p < pc.grid_w * pc.grid_h;
    if (valid)
        m = motion[y * pc.width + x];
    valid = valid && m.x < FG_INVALID * 0.5;
    precise float u = (float(x) + 0.5 - cx) * is, v = (float(y) + 0.5 - cy) * is;
    precise float du = m.x * is, dv = m.y * is;
    uvd = vec4(u, v, du, dv);
}

/* A valid pixel's residual against the fit and threshold in st (rounds 1 .. 4; camera.c's
 * pixel_terms): its histogram bin, nr whether it is within pc.near, use whether its terms go
 * into the sums. */
void residual(vec4 uvd, out int bin, out bool nr, out bool use)
{
    float cx, cy, s;
    norm(cx, cy, s);
    precise float u = uvd.x, v = uvd.y, u2 = u + uvd.z, v2 = v + uvd.w;
    const float g0 = st[ST_G], g1 = st[ST_G + 1], g2 = st[ST_G + 2], g3 = st[ST_G + 3];
    const float g4 = st[ST_G + 4], g5 = st[ST_G + 5], g6 = st[ST_G + 6];
    const float g7 = st[ST_G + 7], g8 = st[ST_G + 8];
    precise float w = g6 * u + g7 * v + g8;
    precise float e = 1.0 / 0.0;
    if (w > 1e-6) {
        precise float ex = upf_fdiv_rn(g0 * u + g1 * v + g2, w) - u2;
        precise float ey = upf_fdiv_rn(g3 * u + g4 * v + g5, w) - v2;
        e = upf_sqrt_rn(ex * ex + ey * ey) * s;
    }
    precise float b = upf_fdiv_rn(e, RESID_STEP);
    bin = b < float(BINS - 1) ? int(b) : BINS - 1;
    nr = e <= pc.near;
    use = e <= st[ST_THR];
}

/* The pixel's terms of the normal equations (zeros where it is left out) and its counts
 * (used, near, all: 1 or 0, summed by the tree with the terms, exact: integers below 2^24)
 * into red's slot of this invocation (stored, or with `add` added). The loops unrolled, every
 * array index a constant: registers, no local memory. */
void terms(bool use, bool counted, bool nr, vec4 uvd, bool add)
{
    put(SUM_USED, use ? 1.0 : 0.0, add);
    put(SUM_NEAR, counted && nr ? 1.0 : 0.0, add);
    put(SUM_ALL, counted ? 1.0 : 0.0, add);
    precise float u = uvd.x, v = uvd.y, du = uvd.z, dv = uvd.w, u2 = u + du, v2 = v + dv;
    precise float nu = -u * u2, nv = -v * u2, mu = -u * v2, mv = -v * v2;
    const float rx[8] = float[8](u, v, 1, 0, 0, 0, nu, nv);
    const float ry[8] = float[8](0, 0, 0, u, v, 1, mu, mv);
    [[unroll]] for (int a = 0; a < 8; a++) {
        [[unroll]] for (int b = a; b < 8; b++) {
            precise float q = rx[a] * rx[b] + ry[a] * ry[b];
            put(SUM_ATA + 8 * a - a * (a - 1) / 2 + b - a, use ? q : 0.0, add);
        }
        precise float q = rx[a] * du + ry[a] * dv;
        put(SUM_ATB + a, use ? q : 0.0, add);
    }
}

/* camera.c's pairwise tree of 8 values a0 .. a7 (levels h = 4, 2, 1: a_j + a_(j + h)), the
 * same additions grouped the same way */
float fold8(float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7)
{
    precise float b0 = a0 + a4, b1 = a1 + a5, b2 = a2 + a6, b3 = a3 + a7;
    precise float c0 = b0 + b2, c1 = b1 + b3;
    precise float d = c0 + c1;
    return d;
}

/* camera.c's tree_sum on the first `rows` sums of red (its first level, h = HALF, already
 * added by the caller) in two passes, a barrier each, not one a level: levels 64, 32 and 16 by
 * an item per sum k and slot i < 16 (fold8 of slots i, i + 16, ..., i + 112, written to slot
 * i, which no other item reads), then levels 8 .. 1 by an item per sum (slots j + 8 added to
 * slots j, then fold8): each item's loads in flight together, each addition the tree's own. */
void tree(int rows)
{
    const int lid = int(gl_LocalInvocationIndex);
    barrier();
    [[unroll]] for (int n = 0; n < (16 * NRED + WG - 1) / WG; n++) {
        const int q = lid + n * WG, i = (q >> 4) * RS + (q & 15);
        if (q < 16 * rows)
            red[i] = fold8(red[i], red[i + 16], red[i + 32], red[i + 48], red[i + 64],
                           red[i + 80], red[i + 96], red[i + 112]);
    }
    barrier();
    if (lid < rows) {
        const int i = lid * RS;
        precise float e0 = red[i] + red[i + 8], e1 = red[i + 1] + red[i + 9];
        precise float e2 = red[i + 2] + red[i + 10], e3 = red[i + 3] + red[i + 11];
        precise float e4 = red[i + 4] + red[i + 12], e5 = red[i + 5] + red[i + 13];
        precise float e6 = red[i + 6] + red[i + 14], e7 = red[i + 7] + red[i + 15];
        red[i] = fold8(e0, e1, e2, e3, e4, e5, e6, e7);
    }
    barrier();
}

/* Where round r's counts (r = 1 .. 4: used, near, all, the histogram; NCNT uints) are added
 * up: after the sums' two buffers of rows (UPF__VK_FG_CAMERA_TOTAL_ROWS rows; after round 4's,
 * at totals(1) + 4 NCNT, step 4's count of workgroups done) */
int totals(int r)
{
    return 2 * blocks() * ROW + (r - 1) * NCNT;
}

/* Round `round`'s row of camera sums for block blk (camera.c's reduce_block): invocation i
 * its grid pixel i; the tree's first level by the pixels i < HALF storing their terms, then
 * the pixels i + HALF adding theirs (one copy of the code, in a loop of two); from round 1 on
 * the counts also added to the round's totals (integer atomics: exact in any order; the solve
 * then loads NCNT totals, not the counts of every row). */
void reduce(int round, int blk, bool valid, vec4 uvd)
{
    const int lid = int(gl_LocalInvocationIndex);
    for (int c = 3 + lid; c < NCNT; c += WG)
        cnt[c] = 0u;
    bool use = valid, nr = false;
    int bin = -1;
    if (valid && round > 0)
        residual(uvd, bin, nr, use);
    barrier(); /* cnt zeroed; red free (the solve's reads of it done) */
    if (bin >= 0)
        atomicAdd(cnt[3 + bin], 1u);
    [[dont_unroll]] for (int part = 0; part < 2; part++) {
        if ((lid >= HALF ? 1 : 0) == part)
            terms(use, bin >= 0, nr, uvd, part == 1);
        if (part == 0)
            barrier();
    }
    tree(NRED); /* begins with a barrier */
    const int o = ((round & 1) * blocks() + blk) * ROW; /* buffer round & 1 */
    for (int k = lid; k < ROW; k += WG) {
        float v = 0.0;
        if (k < NRED)
            v = red[k * RS];
        else if (k >= SUM_HIST)
            v = float(cnt[3 + k - SUM_HIST]);
        sums[o + k] = floatBitsToUint(v);
    }
    if (round > 0)
        for (int c = lid; c < NCNT; c += WG) {
            const uint n = c < 3 ? uint(red[(SUM_USED + c) * RS]) : cnt[c];
            if (n != 0u)
                atomicAdd(sums[totals(round) + c], n);
        }
}

/* The normal equations being solved, in two buffers (buffer b's matrix at AM[64 b], its
 * right-hand side at BM[8 b]: a column's step reads the one and writes the other) */
shared float AM[128], BM[16], XS[8]; /* XS: the back substitution's unknowns */
shared uint keep;                 /* 1: the last round keeps a model (a third within near) */
shared uint last;                 /* 1: this workgroup finished round 4's reduction last */

/* camera.c's solve8 on AM and BM (buffer 0), one barrier a column: every invocation makes
 * camera.c's pivot search (the same comparisons in its order, the same row), then invocation
 * 9 r + k (r, k < 8; k = 8 the right-hand side) element k of row r after the column's swap
 * and row update, into the other buffer (a row below the column: its factor, the quotient of
 * its element of the column and the pivot's, by each of its invocations, the same float;
 * each element by camera.c's operations: the same floats); then the back substitution by
 * invocation 0, which writes the fit G = I + D to st. */
void solve8()
{
    const int lid = int(gl_LocalInvocationIndex);
    const int r = lid / 9, k = lid - 9 * r; /* row r, column k (8: the right-hand side) */
    int cur = 0;
    [[dont_unroll]] for (int col = 0; col < 8; col++, cur ^= 1) {
        const int a = 64 * cur, bb = 8 * cur;
        int piv = col;
        float best = abs(AM[a + 8 * col + col]);
        [[unroll]] for (int q = 1; q < 8; q++) { /* q > col: constant bounds, loads together */
            const float v = abs(AM[a + 8 * q + col]);
            if (q > col && v > best)
                piv = q, best = v;
        }
        if (!(best > 1e-12))
            return; /* the same in every invocation */
        if (r < 8) {
            /* row r after the swap of rows col and piv was row src */
            const int src = r == col ? piv : r == piv ? col : r;
            const float old = k < 8 ? AM[a + 8 * src + k] : BM[bb + src];
            float nv = old;
            if (r > col && k >= col) {
                precise float f = upf_fdiv_rn(AM[a + 8 * src + col], AM[a + 8 * piv + col]);
                const float pv = k < 8 ? AM[a + 8 * piv + k] : BM[bb + piv];
                precise float q = old - f * pv;
                nv = q;
            }
            if (k < 8)
                AM[64 - a + 8 * r + k] = nv;
            else
                BM[8 - bb + r] = nv;
        }
        barrier();
    }
    if (lid != 0)
        return;
    /* eight columns: the result in buffer 0; the unknowns in shared memory (a loop with one
     * copy of the correctly rounded division, not eight unrolled, and no local memory) */
    [[dont_unroll]] for (int i = 7; i >= 0; i--) {
        precise float v = BM[i];
        [[unroll]] for (int j = 1; j < 8; j++) /* j > i, in camera.c's order */
            if (j > i)
                v -= AM[8 * i + j] * XS[j];
        precise float q = upf_fdiv_rn(v, AM[8 * i + i]);
        XS[i] = q;
        if (isinf(q) || isnan(q))
            return;
    }
    precise float g0 = 1.0 + XS[0], g4 = 1.0 + XS[4];
    st[ST_G] = g0, st[ST_G + 1] = XS[1], st[ST_G + 2] = XS[2], st[ST_G + 3] = XS[3];
    st[ST_G + 4] = g4, st[ST_G + 5] = XS[5], st[ST_G + 6] = XS[6], st[ST_G + 7] = XS[7];
    st[ST_G + 8] = 1.0;
}

/* The solve step of round `round` (camera.c's solve_step), in every invocation of the
 * workgroup. */
void solve(int round)
{
    const int lid = int(gl_LocalInvocationIndex), nb = blocks(), at = (round & 1) * nb * ROW;
    /* the last round only measures: its normal equations are not summed (nor solved) */
    const bool fits = round < ROUNDS - 1;
    /* the loads that do not depend on each other first, all in flight together: the state
     * after the round before (into st below, before the first barrier: nothing reads st
     * sooner), the round's totals (NCNT = WG + 3), then the rows */
    const float sv = lid < ST_COUNT ? cam[((round & 1) == 0 ? CAM_SLOT1 : CAM_SLOT0) + lid]
                                    : 0.0;
    uint t0 = 0u, t1 = 0u;
    if (round > 0) {
        t0 = sums[totals(round) + lid];
        if (lid + WG < NCNT)
            t1 = sums[totals(round) + lid + WG];
    }
    if (lid == 0)
        below = 0u;
    /* round 0's count of used pixels summed with the rows' sums (exact: integers below
     * 2^24), a later round's from its totals */
    const int rows = round == 0 ? NRED : NSUM;
    /* camera.c's first level of the tree: slot i's sum k = a (rows i, i + BLOCK, ...) + b (rows
     * i + HALF, i + HALF + BLOCK, ...), item q = lid + n WG of the `rows` HALF (sum k of
     * slot i); where there are at most BLOCK rows (every grid of at most 65536 pixels: camera.c's
     * grids keep under that) a and b have a row each at most, the loop unrolled and its loads
     * in flight together; else the general loop */
    if (fits && nb <= BLOCK) {
        [[unroll]] for (int n = 0; n < (NRED * HALF + WG - 1) / WG; n++) {
            const int q = lid + n * WG, k = q >> HALF_LOG, i = q & (HALF - 1);
            precise float a = 0.0, b = 0.0;
            if (i < nb && q < rows * HALF)
                a = a + uintBitsToFloat(sums[at + i * ROW + k]);
            if (i + HALF < nb && q < rows * HALF)
                b = b + uintBitsToFloat(sums[at + (i + HALF) * ROW + k]);
            precise float v = a + b;
            if (q < rows * HALF)
                red[k * RS + i] = v;
        }
    } else if (fits) {
        for (int q = lid; q < rows * HALF; q += WG) {
            const int k = q >> HALF_LOG, i = q & (HALF - 1);
            precise float a = 0.0, b = 0.0;
            for (int j = i; j < nb; j += BLOCK)
                a = a + uintBitsToFloat(sums[at + j * ROW + k]);
            for (int j = i + HALF; j < nb; j += BLOCK)
                b = b + uintBitsToFloat(sums[at + j * ROW + k]);
            precise float v = a + b;
            red[k * RS + i] = v;
        }
    }
    if (lid < ST_COUNT)
        st[lid] = sv;
    if (round > 0) { /* the counts: exact integers, any order */
        cnt[lid] = t0;
        if (lid + WG < NCNT)
            cnt[lid + WG] = t1;
    }
    if (fits)
        tree(rows); /* begins and ends with a barrier */
    else
        barrier();
    const uint used = round == 0 ? uint(red[SUM_USED * RS]) : cnt[0];
    if (round > 0) {
        /* camera.c's median bin b: the bins 0 .. BINS - 2 whose running count n has 2 n < all
         * (a prefix, the counts being >= 0: the last bin c of it writes c + 1, no atomics) */
        if (lid < GROUPS) {
            uint n = 0u;
            [[unroll]] for (int q = 0; q < BINS / GROUPS; q++) /* loads together */
                n += cnt[3 + lid * (BINS / GROUPS) + q];
            gsum[lid] = n;
        }
        barrier();
        [[unroll]] for (int u = 0; u < (BINS - 1 + WG - 1) / WG; u++) {
            const int c = lid + u * WG, gc = c / (BINS / GROUPS), g0 = gc * (BINS / GROUPS);
            /* constant bounds, the terms outside the prefix zero (integers: any order) */
            uint n = 0u;
            [[unroll]] for (int q = 0; q < GROUPS; q++)
                n += q < gc ? gsum[q] : 0u;
            [[unroll]] for (int q = 0; q < BINS / GROUPS; q++)
                n += g0 + q <= c ? cnt[3 + min(g0 + q, BINS - 1)] : 0u;
            const uint next = c < BINS - 2 ? n + cnt[3 + c + 1] : 0u;
            if (c < BINS - 1 && 2u * n < cnt[2] && (c == BINS - 2 || !(2u * next < cnt[2])))
                below = uint(c + 1);
        }
        barrier();
    }
    if (lid == 0 && round > 0) {
        st[ST_NEAR] = float(cnt[1]), st[ST_ALL] = float(cnt[2]);
        precise float thr = pc.spread * float(int(below) + 1) * RESID_STEP;
        st[ST_THR] = max(0.5, thr);
    }
    /* the last round only measures; too few pixels keep the fit (the same in every
     * invocation) */
    if (!fits || float(used) < 16.0)
        return;
    if (lid < 64) { /* the symmetric matrix from its upper triangle, the right-hand side */
        const int r = lid >> 3, q = lid & 7, lo = min(r, q), hi = max(r, q);
        AM[lid] = red[(SUM_ATA + 8 * lo - lo * (lo - 1) / 2 + hi - lo) * RS];
        if (lid < 8)
            BM[lid] = red[(SUM_ATB + lid) * RS];
    }
    barrier();
    solve8();
}

/* The state after round r's solve from st into its slot (solve loads the one before). */
void store_state(int r)
{
    const int lid = int(gl_LocalInvocationIndex);
    if (lid < ST_COUNT)
        cam[((r & 1) == 0 ? CAM_SLOT0 : CAM_SLOT1) + lid] = st[lid];
}

/* The last solve and the model (one workgroup): after round 4's reduction, by the last
 * workgroup to finish it (step 4). */
void last_solve()
{
    const int lid = int(gl_LocalInvocationIndex);
    solve(ROUNDS - 1);
    barrier();
    store_state(ROUNDS - 1); /* slot 0, camera.c's layout */
    if (lid < ST_COUNT)
        cam[CAM_SLOT1 + lid] = 0.0;
    if (lid == 0)
        keep = st[ST_ALL] > 0.0 && st[ST_NEAR] * 3.0 >= st[ST_ALL] ? 1u : 0u;
    barrier();
    if (keep != 0u && finish(false))
        cam[CAM_HAS] = 1.0;
}

void main()
{
    const int wg = int(gl_WorkGroupID.x), lid = int(gl_LocalInvocationIndex);
    const bool fit = pc.fit != 0u && pc.given == 0u;
    if (pc.step == 0) {
        if (wg == 0)
            init();
        if (fit && wg == 0) /* rounds 1 .. 4's totals, which steps 1 .. 4 add to, and the count
                             * of step 4's workgroups done */
            for (int c = lid; c <= 4 * NCNT; c += WG)
                sums[totals(1) + c] = 0u;
        if (fit) {
            bool valid;
            vec4 uvd;
            pixel(BLOCK * wg + lid, valid, uvd);
            reduce(0, wg, valid, uvd); /* reads nothing init writes */
        }
        return;
    }
    if (!fit)
        return;
    /* step s: the solve of round s - 1 (every workgroup the same floats), then round s's
     * reduction */
    const int round = pc.step - 1;
    bool valid;
    vec4 uvd;
    pixel(BLOCK * wg + lid, valid, uvd);
    solve(round);
    barrier();
    if (wg == 0)
        store_state(round);
    reduce(round + 1, wg, valid, uvd);
    if (round + 1 < ROUNDS - 1)
        return;
    /* Round 4's reduction (it only measures): the workgroup that finishes it last, seeing the
     * others' counts (coherent buffers: each workgroup's writes made visible before its count
     * of done, as FidelityFX's single-pass downsampler's last workgroup), makes the last solve
     * and the model in this dispatch, not in a sixth. */
    memoryBarrierBuffer();
    barrier();
    if (lid == 0)
        last = atomicAdd(sums[totals(1) + 4 * NCNT], 1u) == uint(blocks() - 1) ? 1u : 0u;
    barrier();
    if (last == 0u)
        return;
    memoryBarrierBuffer();
    last_solve();
}
