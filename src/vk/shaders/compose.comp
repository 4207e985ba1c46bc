/* compose.comp: the compose pass on the GPU, the second half of the upscale (CPU reference:
 * src/spatial/compose.c; docs/SPATIAL.md, "Pass 4" and "Geometry").
 *
 * Reads: the frame (binding 6), the detail map (binding 7), linear (binding 1, for alpha at
 * full precision when range B > 0), range (binding 8). Writes: the destination (binding 9, a
 * storage image, at the destination rectangle's offset + pixel; sRGB-encoded in the shader
 * when dst_transfer = 1).
 *
 * Output pixel (X, Y), as compose.c:
 *  - base: the frame at x = (X + 0.5) * W_in / W_out - 0.5 (y likewise), bilinear in sqrt
 *    space, or with UPF_MODEL_FLAG_CUBIC_BASE Catmull-Rom in linear light (squared values)
 *    clamped at 0 and square-rooted; rows first, then columns, in the CPU's order;
 *  - detail: the map bilinearly at (X + 0.5) * (W_in * 12 / s) / W_out - 0.5;
 *  - o = max(base + detail, 0)^2 on R, G, B; alpha the base's (or linear's alpha through the
 *    same filter when range B > 0);
 *  - the sharpen: + k * (1.25 L - 0.3125 (L_left + L_right + L_up + L_down)), L the luma of
 *    o, neighbours clamped to the output; clamped at 0 (k = 0: o as it is);
 *  - when convert tone-mapped (range R > 0): c = c' * min(1 / (1 - max(c')), 1 + M).
 * Sample positions are exact integers, ((2X + 1) num - den) / (2 den), with 64-bit
 * products (umulExtended); the tap fractions are correctly rounded quotients. The cubic
 * weights are computed in float (the CPU: double), so the output agrees with the CPU to a
 * few float ulps before the output format rounds it.
 *
 * One workgroup of 16 x 16 invocations per 16 x 16 output pixels: the tile's taps, then its
 * input footprint (unpacked) in shared memory, then o and L for the tile and a one-pixel
 * border (18 x 18) in shared memory, then the sharpen. Grid ceil(W_out / 16) x
 * ceil(H_out / 16). */
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

const uint UPF_MODEL_FLAG_CUBIC_BASE = 2u; /* upframe.h */

#define APRON 18
#define FOOT 24
/* Taps of the apron's columns (index 0..17) and rows (18..35). */
shared ivec4 base_idx[2 * APRON];
shared vec4 base_w[2 * APRON];  /* cubic: four weights; bilinear: x = the fraction */
shared ivec2 det_idx[2 * APRON];
shared float det_f[2 * APRON];
shared ivec2 foot_origin;
shared vec4 foot[FOOT][FOOT];   /* the frame's sqrt values over the footprint */
shared float foot_alpha[FOOT][FOOT];
shared vec4 sq[APRON][APRON];   /* o: the squared colour and the alpha */
shared float lum[APRON][APRON];

float lerp_f(float a, float b, float f)
{
    precise float r = (1.0 - f) * a + f * b; /* upf__lerp */
    return r;
}

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

/* t = (2X + 1) * num - den and d2 = 2 * den, exactly: i = floor(t / d2) and the remainder,
 * for t >= -den. Returns (i, rem). */
ivec2 tap_position(int x, uint num, uint den)
{
    uint d2 = 2u * den;
    uvec2 prod = upf_mul64(2u * uint(x) + 1u, num);
    if (upf_lt64(prod, uvec2(0u, den)))
        return ivec2(-1, int(d2 - (den - prod.y))); /* -d2 < t < 0 */
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

/* upf__tap_at: bilinear taps (i0, i1) and the weight of i1. */
void bilinear_tap(int x, uint num, uint den, int size, out ivec2 idx, out float f)
{
    ivec2 pr = tap_position(x, num, den);
    uint d2 = 2u * den;
    if (pr.x < 0 || (pr.x == 0 && pr.y == 0)) { /* t <= 0 */
        idx = ivec2(0);
        f = 0.0;
    } else if (pr.x >= size - 1) {
        idx = ivec2(size - 1);
        f = 0.0;
    } else {
        idx = ivec2(pr.x, pr.x + 1);
        f = upf_div_rn(uint(pr.y), d2);
    }
}

/* upf__tap4_at: the cubic base's four pixels (clamped) and weights normalised to sum 1. */
void cubic_tap(int x, uint num, uint den, int size, out ivec4 idx, out vec4 w)
{
    ivec2 pr = tap_position(x, num, den);
    float frac = upf_div_rn(uint(pr.y), 2u * den);
    float sum = 0.0;
    for (int j = 0; j < 4; j++) {
        w[j] = catmull_rom(frac - float(j - 1));
        sum += w[j];
        idx[j] = clamp(pr.x - 1 + j, 0, size - 1);
    }
    w /= sum;
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const ivec2 tile = ivec2(gl_WorkGroupID.xy) * 16;
    const bool cubic = (pc.flags & UPF_MODEL_FLAG_CUBIC_BASE) != 0u;
    const bool full_alpha = range[2] > 0.0;

    /* 1. The taps of the apron's 18 columns and 18 rows. */
    if (tid < uint(2 * APRON)) {
        const bool row = tid >= uint(APRON);
        const int n = int(tid) - (row ? APRON : 0);
        const int out_size = row ? pc.out_height : pc.out_width;
        const int in_size = row ? pc.in_height : pc.in_width;
        const int map_size = row ? pc.map_height : pc.map_width;
        const int x = clamp((row ? tile.y : tile.x) - 1 + n, 0, out_size - 1);
        if (cubic) {
            ivec4 idx;
            vec4 w;
            cubic_tap(x, uint(in_size), uint(out_size), in_size, idx, w);
            base_idx[tid] = idx;
            base_w[tid] = w;
        } else {
            ivec2 idx;
            float f;
            bilinear_tap(x, uint(in_size), uint(out_size), in_size, idx, f);
            base_idx[tid] = idx.xyyy;
            base_w[tid] = vec4(f, 0.0, 0.0, 0.0);
        }
        ivec2 di;
        float df;
        bilinear_tap(x, 12u * uint(in_size), uint(pc.step) * uint(out_size), map_size, di, df);
        det_idx[tid] = di;
        det_f[tid] = df;
    }
    barrier();

    /* 2. The footprint: every frame pixel the taps name (they grow with X). */
    const ivec2 f0 = ivec2(base_idx[0].x, base_idx[APRON].x);
    const ivec2 f1 = ivec2(base_idx[APRON - 1].w, base_idx[2 * APRON - 1].w);
    const ivec2 fsize = min(f1 - f0 + 1, ivec2(FOOT));
    for (uint k = tid; k < uint(fsize.x * fsize.y); k += 256u) {
        ivec2 l = ivec2(int(k % uint(fsize.x)), int(k / uint(fsize.x)));
        ivec2 q = f0 + l;
        uint i = uint(q.y) * uint(pc.in_width) + uint(q.x);
        foot[l.y][l.x] = upf_unpack_sqrt1010102(frame[i]);
        if (full_alpha)
            foot_alpha[l.y][l.x] = linear[i].a;
    }
    barrier();

    /* 3. o and its luma over the tile and a one-pixel border. */
    for (uint k = tid; k < uint(APRON * APRON); k += 256u) {
        const int ax = int(k % uint(APRON)), ay = int(k / uint(APRON));
        const ivec4 cx = base_idx[ax] - f0.x, cy = base_idx[APRON + ay] - f0.y;
        const vec4 wx = base_w[ax], wy = base_w[APRON + ay];
        vec4 base;
        float alpha = 0.0;
        if (cubic) {
            /* Rows first (each column's vertical sum), then the columns. */
            precise vec4 acc = vec4(0.0);
            precise float acc_a = 0.0;
            for (int i = 0; i < 4; i++) {
                precise vec4 v = vec4(0.0);
                precise float va = 0.0;
                for (int j = 0; j < 4; j++) {
                    vec4 p = foot[cy[j]][cx[i]];
                    precise vec3 p2 = p.rgb * p.rgb;
                    v += wy[j] * vec4(p2, p.a);
                    if (full_alpha)
                        va += wy[j] * foot_alpha[cy[j]][cx[i]];
                }
                acc += wx[i] * v;
                acc_a += wx[i] * va;
            }
            base.rgb = vec3(acc.r > 0.0 ? upf_sqrt_rn(acc.r) : 0.0,
                            acc.g > 0.0 ? upf_sqrt_rn(acc.g) : 0.0,
                            acc.b > 0.0 ? upf_sqrt_rn(acc.b) : 0.0);
            base.a = clamp(acc.a, 0.0, 1.0);
            alpha = clamp(acc_a, 0.0, 1.0);
        } else {
            vec4 a0 = foot[cy.x][cx.x], a1 = foot[cy.x][cx.y];
            vec4 b0 = foot[cy.y][cx.x], b1 = foot[cy.y][cx.y];
            for (int c = 0; c < 4; c++)
                base[c] = lerp_f(lerp_f(a0[c], b0[c], wy.x), lerp_f(a1[c], b1[c], wy.x), wx.x);
            if (full_alpha)
                alpha = lerp_f(lerp_f(foot_alpha[cy.x][cx.x], foot_alpha[cy.y][cx.x], wy.x),
                               lerp_f(foot_alpha[cy.x][cx.y], foot_alpha[cy.y][cx.y], wy.x),
                               wx.x);
        }
        const ivec2 dx = det_idx[ax], dy = det_idx[APRON + ay];
        const float fy = det_f[APRON + ay];
        const uint mw = uint(pc.map_width);
        float d0 = lerp_f(detail[uint(dy.x) * mw + uint(dx.x)], detail[uint(dy.y) * mw + uint(dx.x)], fy);
        float d1 = lerp_f(detail[uint(dy.x) * mw + uint(dx.y)], detail[uint(dy.y) * mw + uint(dx.y)], fy);
        const float d = lerp_f(d0, d1, det_f[ax]);
        vec4 o;
        for (int c = 0; c < 3; c++) {
            precise float v = base[c] + d;
            v = v > 0.0 ? v : 0.0;
            precise float v2 = v * v;
            o[c] = v2;
        }
        o.a = full_alpha ? alpha : base.a;
        sq[ay][ax] = o;
        lum[ay][ax] = upf_luma(o.r, o.g, o.b);
    }
    barrier();

    /* 4. The sharpen, the tone map undone, the store. */
    const ivec2 lp = ivec2(gl_LocalInvocationID.xy);
    const ivec2 p = tile + lp;
    if (p.x >= pc.out_width || p.y >= pc.out_height)
        return;
    const int ax = lp.x + 1, ay = lp.y + 1;
    /* The border entries of sq/lum are the clamped neighbours already. */
    vec4 o = sq[ay][ax];
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
