/* compose_taps.comp: the taps of the compose pass, made once a frame (CPU reference:
 * src/spatial/compose.c and src/resample/resampler.c, upf__tap_at and upf__tapk_at;
 * docs/SPATIAL.md, "Geometry"; docs/VULKAN.md, "Fused passes").
 *
 * Reads: nothing but its push constants (compose's: the frame's, the map's and the
 * destination's sizes, the model's step and base flags). Writes: the taps table (binding 11,
 * an entry per output column, then per output row, laid out as compose_taps.glsl says).
 * Every compose workgroup needs the taps of its tile's columns and rows; computed in each of
 * them they were the same arithmetic thousands of times over (a Lanczos-3 weight is two
 * sin(pi t) series and a division, the position a 64-bit product and a correctly rounded
 * division). The backend dispatches this right after the frame's first timestamp, before
 * convert, with no barrier of its own: it reads nothing convert writes, the two overlap on
 * the GPU, and the barrier after convert makes the table visible to compose.
 *
 * Sample positions are exact integers, ((2X + 1) num - den) / (2 den), with 64-bit
 * products (umulExtended), the tap fractions correctly rounded quotients and bilinear taps
 * the CPU's products ((1 - f) a + f b). The kernel weights are computed in float (the CPU:
 * double; sin(pi t) by its series, the GPU's sin() being too coarse).
 * One invocation per entry, local size 256; grid ceil((W_out + H_out) / 256) x 1. */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

#include "color.glsl"
#include "compose_taps.glsl"

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

layout(set = 0, binding = 11, std430) writeonly buffer Taps { uint taps[]; };

const uint UPF_MODEL_FLAG_CUBIC_BASE = 2u;        /* upframe.h */
const uint UPF_MODEL_FLAG_SQRT_LANCZOS_BASE = 4u; /* upframe.h */
const uint UPF_MODEL_FLAG_SRGB_LANCZOS_BASE = 16u; /* upframe.h */
#define TAPS 6

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

/* The base's taps at output coordinate x: n = 2 (bilinear), 4 (Catmull-Rom) or 6
 * (Lanczos-3). The kernel taps are upf__tapk_at's: pixels floor(u) - n/2 + 1 .. floor(u) +
 * n/2 clamped, weights k(i - u) normalised to sum 1 (here in float, the CPU in double). */
void base_taps(int x, uint num, uint den, int size, int n, out int idx[TAPS], out float w[TAPS])
{
    for (int j = 0; j < TAPS; j++) {
        idx[j] = 0;
        w[j] = 0.0;
    }
    if (n == 2) {
        ivec2 bi;
        float f;
        bilinear_tap(x, num, den, size, bi, f);
        idx[0] = bi.x;
        idx[1] = bi.y;
        w[0] = 1.0 - f;
        w[1] = f;
        return;
    }
    ivec2 pr = tap_position(x, num, den);
    float frac = upf_div_rn(uint(pr.y), 2u * den);
    int first = 1 - n / 2;
    float k[TAPS];
    float sum = 0.0;
    for (int j = 0; j < n; j++) {
        float d = frac - float(j + first);
        k[j] = n == 4 ? catmull_rom(d) : lanczos3(d);
        sum += k[j];
        idx[j] = clamp(pr.x + first + j, 0, size - 1);
    }
    for (int j = 0; j < n; j++)
        w[j] = k[j] / sum;
}

void main()
{
    const int e = int(gl_GlobalInvocationID.x);
    if (e >= pc.out_width + pc.out_height)
        return;
    const bool row = e >= pc.out_width;
    const int x = row ? e - pc.out_width : e;
    const int out_size = row ? pc.out_height : pc.out_width;
    const int in_size = row ? pc.in_height : pc.in_width;
    const bool cubic = (pc.flags & UPF_MODEL_FLAG_CUBIC_BASE) != 0u;
    const uint lanczos = UPF_MODEL_FLAG_SQRT_LANCZOS_BASE | UPF_MODEL_FLAG_SRGB_LANCZOS_BASE;
    const int n = cubic ? 4 : (pc.flags & lanczos) != 0u ? 6 : 2;
    int idx[TAPS];
    float w[TAPS];
    base_taps(x, uint(in_size), uint(out_size), in_size, n, idx, w);
    ivec2 di;
    float df;
    bilinear_tap(x, 12u * uint(in_size), uint(pc.step) * uint(out_size),
                 row ? pc.map_height : pc.map_width, di, df);
    const uint o = uint(e) * UPF_TAPS_WORDS;
    for (int j = 0; j < 3; j++)
        taps[o + uint(j)] = upf_taps_pack16(idx[2 * j], idx[2 * j + 1]);
    for (int j = 0; j < TAPS; j++)
        taps[o + UPF_TAPS_WEIGHTS + uint(j)] = floatBitsToUint(w[j]);
    taps[o + UPF_TAPS_DETAIL] = upf_taps_pack16(di.x, di.y);
    taps[o + UPF_TAPS_DETAIL_F] = floatBitsToUint(df);
    taps[o + UPF_TAPS_WORDS - 1u] = 0u;
}
