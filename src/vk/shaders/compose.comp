/* compose.comp: the compose pass on the GPU, the second half of the upscale (CPU reference:
 * src/spatial/compose.c; docs/SPATIAL.md, "Pass 4" and "Geometry").
 *
 * Reads: the frame (binding 6), the detail map (binding 7), linear (binding 1, for alpha at
 * full precision when range B > 0), range (binding 8). Writes: the destination (binding 9, a
 * storage image, at the destination rectangle's offset + pixel; sRGB-encoded in the shader
 * when dst_transfer = 1).
 *
 * Output pixel (X, Y), as compose.c:
 *  - base: the frame at x = (X + 0.5) * W_in / W_out - 0.5 (y likewise), by the model's base
 *    flags (docs/SPATIAL.md): bilinear in sqrt space (none); Catmull-Rom in linear light, the
 *    result clamped at 0 and square-rooted (UPF_MODEL_FLAG_CUBIC_BASE); Lanczos-3 in sqrt
 *    space, not clamped (UPF_MODEL_FLAG_SQRT_LANCZOS_BASE). Separable, rows first, every sum
 *    in tap order from 0 as the CPU's; a kernel base clamps alpha to [0, 1];
 *  - detail: the map bilinearly at (X + 0.5) * (W_in * 12 / s) / W_out - 0.5;
 *  - o = max(base + detail, 0)^2 on R, G, B; alpha the base's (or linear's alpha through the
 *    same filter when range B > 0);
 *  - the sharpen: + k * (1.25 L - 0.3125 (L_left + L_right + L_up + L_down)), L the luma of
 *    o, neighbours clamped to the output; clamped at 0 (k = 0: o as it is);
 *  - when convert tone-mapped (range R > 0): c = c' * min(1 / (1 - max(c')), 1 + M).
 * Sample positions are exact integers, ((2X + 1) num - den) / (2 den), with 64-bit
 * products (umulExtended), the tap fractions correctly rounded quotients and bilinear taps
 * the CPU's products ((1 - f) a + f b). The kernel weights are computed in float (the CPU:
 * double; sin(pi t) by its series, the GPU's sin() being too coarse), the frame's codes are
 * unpacked as code * (1 / 1023) (an ulp from the CPU's quotient, for a tenth of the
 * instructions of the exact one) and the cubic base's square root is the hardware's: the
 * output agrees with the CPU to a few float ulps before
 * the output format rounds it (tests/test_vk_passes.c).
 *
 * One workgroup of 16 x 16 invocations per 16 x 16 output pixels, in shared memory: the taps
 * of the tile and a one-pixel border (18 columns, 18 rows: the base's by the first two
 * subgroups, the detail's by the next two, at once), the input footprint (unpacked; its alpha
 * linear's when range B > 0) and the detail map's footprint (both loaded in one phase, every
 * load of an invocation issued before the first is used), the vertical sums, then o: each
 * invocation its own pixel's, kept in registers for the sharpen, and its luma, the first 68
 * invocations the luma of the one-pixel border too (with an 18 x 18 array of o, walked row by
 * row, compose took 198 us at 1536x864 -> 2048x1152 on the H200, this way 120:
 * docs/PERFORMANCE.md). The tap loops are written out for each tap count. Shared
 * memory 22432 bytes. Grid ceil(W_out / 16) x ceil(H_out / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "color.glsl"

layout(push_constant, std430) uniform Push {
    int in_width;
    int in_height;
    int map_width;
    int map_height;
    int out_width;
    int out_height;
    int step;
    uint flags;
    float sharpness;
    UPF_PUSH_TAIL
} pc;

layout(set = 0, binding = 1, std430) readonly buffer Linear { vec4 linear[]; };
layout(set = 0, binding = 6, std430) readonly buffer Frame { uint frame[]; };
layout(set = 0, binding = 7, std430) readonly buffer Detail { float detail[]; };
layout(set = 0, binding = 8, std430) readonly buffer Range { float range[4]; };
layout(set = 0, binding = 9) uniform writeonly image2D dst;

const uint UPF_MODEL_FLAG_CUBIC_BASE = 2u;        /* upframe.h */
const uint UPF_MODEL_FLAG_SQRT_LANCZOS_BASE = 4u; /* upframe.h */

#define APRON 18
#define FOOT 24    /* the footprint of 18 outputs at ratio >= 1: at most 17 + 6 pixels */
#define DFOOT 26   /* the map's footprint of 18 outputs: at most 17 * 1.25 + 3 pixels (the map
                    * is 12 / s times the input, s the largest step with 12 / s >= the ratio,
                    * so at most 5/4 of the output's size) */
#define FOOT_LOADS 3  /* ceil(FOOT * FOOT / 256) */
#define DFOOT_LOADS 3 /* ceil(DFOOT * DFOOT / 256) */
#define TAPS 6
/* Taps of the apron's columns (index 0..17) and rows (18..35): the base's n taps (bilinear
 * as two taps weighted 1 - f and f: the same products as upf__lerp) and the detail map's. */
shared int base_idx[2 * APRON][TAPS];
shared float base_w[2 * APRON][TAPS];
shared ivec2 det_idx[2 * APRON];
shared float det_w[2 * APRON][2];
shared vec4 foot[FOOT][FOOT];   /* the frame over the footprint, as the base filters it; its
                                 * alpha linear's when range B > 0 (full_alpha) */
shared float dfoot[DFOOT][DFOOT]; /* the detail map over its footprint */
shared vec4 vsum[APRON][FOOT];       /* the vertical sums: apron row x footprint column */
shared float lum[APRON][APRON];

/* Catmull-Rom (resample/filters.c, Mitchell-Netravali with B = 0, C = 0.5). */
float catmull_rom(float x)
{
    x = abs(x);
    if (x < 1.0)
        return (1.5 * x - 2.5) * x * x + 1.0;
    if (x < 2.0)
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0;
    return 0.0;
}

/* sin(pi t), to about 1e-7: t reduced to [-1/2, 1/2] around the nearest integer, then the
 * Taylor series to the 13th power (the GPU's sin() is only held to 2^-11). */
float sin_pi(float t)
{
    float k = round(t);
    float r = t - k;
    float x = 3.14159265358979 * r, z = x * x;
    float s = x * (1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 +
              z * (1.0 / 362880.0 + z * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0)))))));
    return mod(k, 2.0) != 0.0 ? -s : s;
}

/* sinc with its exact zeros, and Lanczos-3 (resample/filters.c). */
float sinc(float x)
{
    if (x == 0.0)
        return 1.0;
    if (x == round(x))
        return 0.0;
    return sin_pi(x) / (3.14159265358979 * x);
}

float lanczos3(float x)
{
    x = abs(x);
    return x < 3.0 ? sinc(x) * sinc(x / 3.0) : 0.0;
}

/* t = (2X + 1) * num - den and d2 = 2 * den, exactly: i = floor(t / d2) and the remainder,
 * for t >= -den. Returns (i, rem). */
ivec2 tap_position(int x, uint num, uint den)
{
    uint d2 = 2u * den;
    uvec2 prod = upf_mul64(2u * uint(x) + 1u, num);
    if (upf_lt64(prod, uvec2(0u, den)))
        return ivec2(-1, int(d2 - (den - prod.y))); /* -d2 < t < 0 */
    if (prod.x == 0u) { /* t fits 32 bits (every size but the largest): one division */
        uint t32 = prod.y - den, i32 = t32 / d2;
        return ivec2(int(i32), int(t32 - i32 * d2));
    }
    uint lo = prod.y - den;
    uvec2 t = uvec2(prod.x - (prod.y < den ? 1u : 0u), lo);
    float tf = float(t.x) * 4294967296.0 + float(t.y);
    int i = max(int(tf / float(d2)), 0);
    /* The estimate is a few units off at most: step until i * d2 <= t < (i + 1) * d2. */
    while (i > 0 && upf_lt64(t, upf_mul64(uint(i), d2)))
        i--;
    uvec2 base = upf_mul64(uint(i), d2);
    uint rem = t.y - base.y; /* t - i * d2 < 2^32 from here on */
    while (rem >= d2) {
        rem -= d2;
        i++;
    }
    return ivec2(i, int(rem));
}

/* upf__tap_at: bilinear taps (i0, i1) and the weight f of i1. */
void bilinear_tap(int x, uint num, uint den, int size, out ivec2 idx, out float f)
{
    ivec2 pr = tap_position(x, num, den);
    if (pr.x < 0 || (pr.x == 0 && pr.y == 0)) { /* t <= 0 */
        idx = ivec2(0);
        f = 0.0;
    } else if (pr.x >= size - 1) {
        idx = ivec2(size - 1);
        f = 0.0;
    } else {
        idx = ivec2(pr.x, pr.x + 1);
        f = upf_div_rn(uint(pr.y), 2u * den);
    }
}

/* The base's taps of apron entry `slot` at output coordinate x: n = 2 (bilinear), 4
 * (Catmull-Rom) or 6 (Lanczos-3). The kernel taps are upf__tapk_at's: pixels
 * floor(u) - n/2 + 1 .. floor(u) + n/2 clamped, weights k(i - u) normalised to sum 1 (here in
 * float, the CPU in double). */
void base_taps(uint slot, int x, uint num, uint den, int size, int n)
{
    if (n == 2) {
        ivec2 idx;
        float f;
        bilinear_tap(x, num, den, size, idx, f);
        base_idx[slot][0] = idx.x;
        base_idx[slot][1] = idx.y;
        base_w[slot][0] = 1.0 - f;
        base_w[slot][1] = f;
        return;
    }
    ivec2 pr = tap_position(x, num, den);
    float frac = upf_div_rn(uint(pr.y), 2u * den);
    int first = 1 - n / 2;
    float w[TAPS];
    float sum = 0.0;
    for (int j = 0; j < n; j++) {
        float d = frac - float(j + first);
        w[j] = n == 4 ? catmull_rom(d) : lanczos3(d);
        sum += w[j];
        base_idx[slot][j] = clamp(pr.x + first + j, 0, size - 1);
    }
    for (int j = 0; j < n; j++)
        base_w[slot][j] = w[j] / sum;
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const ivec2 tile = ivec2(gl_WorkGroupID.xy) * 16;
    const bool cubic = (pc.flags & UPF_MODEL_FLAG_CUBIC_BASE) != 0u;
    const int n = cubic ? 4 : (pc.flags & UPF_MODEL_FLAG_SQRT_LANCZOS_BASE) != 0u ? 6 : 2;
    const bool full_alpha = range[2] > 0.0;

    /* 1. The taps of the apron's 18 columns and 18 rows. */
    const uint slot = tid & 63u;
    if (slot < uint(2 * APRON) && tid < 128u) {
        const bool row = slot >= uint(APRON);
        const int k = int(slot) - (row ? APRON : 0);
        const int out_size = row ? pc.out_height : pc.out_width;
        const int in_size = row ? pc.in_height : pc.in_width;
        const int map_size = row ? pc.map_height : pc.map_width;
        const int x = clamp((row ? tile.y : tile.x) - 1 + k, 0, out_size - 1);
        if (tid < 64u) {
            base_taps(slot, x, uint(in_size), uint(out_size), in_size, n);
        } else {
            ivec2 di;
            float df;
            bilinear_tap(x, 12u * uint(in_size), uint(pc.step) * uint(out_size), map_size, di, df);
            det_idx[slot] = di;
            det_w[slot][0] = 1.0 - df;
            det_w[slot][1] = df;
        }
    }
    barrier();

    /* 2. The footprints: every frame pixel the base's taps name and every map pixel the
     * detail's taps name (both grow with X). Each invocation issues all its loads (at most
     * 3 + 3) before it uses any, so that their latencies overlap; the frame unpacked and
     * squared for the cubic base (it filters linear light). */
    const ivec2 f0 = ivec2(base_idx[0][0], base_idx[APRON][0]);
    const ivec2 f1 = ivec2(base_idx[APRON - 1][n - 1], base_idx[2 * APRON - 1][n - 1]);
    const ivec2 fsize = min(f1 - f0 + 1, ivec2(FOOT));
    const ivec2 m0 = ivec2(det_idx[0].x, det_idx[APRON].x);
    const ivec2 msize = min(ivec2(det_idx[APRON - 1].y, det_idx[2 * APRON - 1].y) - m0 + 1,
                            ivec2(DFOOT));
    /* The slots run over the arrays' whole FOOT (DFOOT) columns, so that a slot's column and
     * row are a division by a constant (a division by fsize.x, which the compiler cannot
     * turn into a multiply, cost this phase most of its time on the H200); slots beyond the
     * footprint load nothing. */
    uint fword[FOOT_LOADS];
    float falpha[FOOT_LOADS];
    float dval[DFOOT_LOADS];
    for (int r = 0; r < FOOT_LOADS; r++) {
        const uint k = tid + uint(r) * 256u;
        const ivec2 l = ivec2(int(k % uint(FOOT)), int(k / uint(FOOT)));
        const bool in_foot = all(lessThan(l, fsize));
        const ivec2 q = f0 + l;
        const uint i = uint(q.y) * uint(pc.in_width) + uint(q.x);
        fword[r] = in_foot ? frame[i] : 0u;
        falpha[r] = in_foot && full_alpha ? linear[i].a : 0.0;
    }
    for (int r = 0; r < DFOOT_LOADS; r++) {
        const uint k = tid + uint(r) * 256u;
        const ivec2 l = ivec2(int(k % uint(DFOOT)), int(k / uint(DFOOT)));
        const ivec2 q = m0 + l;
        dval[r] = all(lessThan(l, msize)) ? detail[uint(q.y) * uint(pc.map_width) + uint(q.x)]
                                          : 0.0;
    }
    for (int r = 0; r < FOOT_LOADS; r++) {
        const uint k = tid + uint(r) * 256u;
        const ivec2 l = ivec2(int(k % uint(FOOT)), int(k / uint(FOOT)));
        if (all(lessThan(l, fsize))) {
            vec4 p = upf_unpack_sqrt1010102_fast(fword[r]);
            if (cubic) {
                precise vec3 p2 = p.rgb * p.rgb;
                p.rgb = p2;
            }
            if (full_alpha)
                p.a = falpha[r];
            foot[l.y][l.x] = p;
        }
    }
    for (int r = 0; r < DFOOT_LOADS; r++) {
        const uint k = tid + uint(r) * 256u;
        const ivec2 l = ivec2(int(k % uint(DFOOT)), int(k / uint(DFOOT)));
        if (all(lessThan(l, msize)))
            dfoot[l.y][l.x] = dval[r];
    }
    barrier();

    /* 3. The vertical sums (rows first, in tap order from 0) for each apron row and
     * footprint column; the tap loop written out for each n so that it unrolls. */
#define VSUM(N)                                                                              \
    for (uint k = tid; k < uint(APRON * FOOT); k += 256u) {                                   \
        const int ay = int(k / uint(FOOT)), fx = int(k % uint(FOOT));                          \
        if (fx < fsize.x) {                                                                    \
            precise vec4 acc = vec4(0.0);                                                      \
            for (int j = 0; j < N; j++)                                                        \
                acc += base_w[APRON + ay][j] * foot[base_idx[APRON + ay][j] - f0.y][fx];       \
            vsum[ay][fx] = acc;                                                                \
        }                                                                                      \
    }
    if (n == 4) {
        VSUM(4)
    } else if (n == 6) {
        VSUM(6)
    } else {
        VSUM(2)
    }
    barrier();

    /* 4. o and its luma: each invocation its own pixel's (kept in registers), then the
     * first 68 the one-pixel border's luma. */
#define HSUM(N)                                                                              \
    for (int j = 0; j < N; j++)                                                                \
        acc += base_w[ax][j] * vsum[ay][base_idx[ax][j] - f0.x];
#define COMPOSE_O(AX, AY, O)                                                                 \
    {                                                                                          \
        const int ax = (AX), ay = (AY);                                                        \
        precise vec4 acc = vec4(0.0);                                                          \
        if (n == 4) {                                                                          \
            HSUM(4)                                                                            \
        } else if (n == 6) {                                                                   \
            HSUM(6)                                                                            \
        } else {                                                                               \
            HSUM(2)                                                                            \
        }                                                                                      \
        vec4 base = acc;                                                                       \
        if (cubic)                                                                             \
            base.rgb = vec3(acc.r > 0.0 ? sqrt(acc.r) : 0.0, acc.g > 0.0 ? sqrt(acc.g) : 0.0,  \
                            acc.b > 0.0 ? sqrt(acc.b) : 0.0);                                  \
        if (n != 2)                                                                            \
            base.a = clamp(base.a, 0.0, 1.0);                                                  \
        const ivec2 dx = det_idx[ax] - m0.x, dy = det_idx[APRON + ay] - m0.y;                  \
        precise float d0 = det_w[APRON + ay][0] * dfoot[dy.x][dx.x] +                          \
                           det_w[APRON + ay][1] * dfoot[dy.y][dx.x];                           \
        precise float d1 = det_w[APRON + ay][0] * dfoot[dy.x][dx.y] +                          \
                           det_w[APRON + ay][1] * dfoot[dy.y][dx.y];                           \
        precise float d = det_w[ax][0] * d0 + det_w[ax][1] * d1;                               \
        for (int c = 0; c < 3; c++) {                                                          \
            precise float v = base[c] + d;                                                     \
            v = v > 0.0 ? v : 0.0;                                                             \
            precise float v2 = v * v;                                                          \
            O[c] = v2;                                                                         \
        }                                                                                      \
        O.a = base.a;                                                                          \
        lum[ay][ax] = upf_luma(O.r, O.g, O.b);                                                 \
    }
    const ivec2 lp = ivec2(gl_LocalInvocationID.xy);
    vec4 own;
    COMPOSE_O(lp.x + 1, lp.y + 1, own)
    if (tid < 68u) { /* the border: rows 0 and 17 (18 each), columns 0 and 17 (16 each) */
        const int t = int(tid);
        const ivec2 at = t < 36 ? ivec2(t % 18, t < 18 ? 0 : 17)
                                : ivec2(t < 52 ? 0 : 17, 1 + (t - 36) % 16);
        vec4 ring;
        COMPOSE_O(at.x, at.y, ring)
    }
    barrier();

    /* 5. The sharpen, the tone map undone, the store. */
    const ivec2 p = tile + lp;
    if (p.x >= pc.out_width || p.y >= pc.out_height)
        return;
    const int ax = lp.x + 1, ay = lp.y + 1;
    /* The border entries of lum are the clamped neighbours already. */
    vec4 o = own;
    const float k = pc.sharpness;
    if (k != 0.0) {
        precise float around = ((lum[ay][ax - 1] + lum[ay][ax + 1]) + lum[ay - 1][ax]) + lum[ay + 1][ax];
        precise float sharpen = k * (1.25 * lum[ay][ax] - 0.3125 * around);
        for (int c = 0; c < 3; c++) {
            precise float v = o[c] + sharpen;
            o[c] = v > 0.0 ? v : 0.0;
        }
    }
    if (range[0] > 0.0) {
        precise float most = 1.0 + range[1];
        float m = max(max(o.r, o.g), o.b);
        precise float gap = 1.0 - m;
        float scale = m < 1.0 ? upf_rcp_rn(gap) : most;
        scale = scale < most ? scale : most;
        precise vec3 undone = o.rgb * scale;
        o.rgb = undone;
    }
    if (pc.dst_transfer == 1u)
        o.rgb = vec3(upf_linear_to_srgb(clamp(o.r, 0.0, 1.0)),
                     upf_linear_to_srgb(clamp(o.g, 0.0, 1.0)),
                     upf_linear_to_srgb(clamp(o.b, 0.0, 1.0)));
    imageStore(dst, ivec2(pc.dst_x, pc.dst_y) + p, o);
}
