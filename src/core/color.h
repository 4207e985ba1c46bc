/* color.h: colour maths shared by every engine: the sRGB transfer curve, Rec. 709 luma,
 * IEEE half floats, and the square-root-encoded 10:10:10:2 pixel of the spatial engine.
 * Scalar and exact: these are the definitions the fast paths are tested against. */
#ifndef UPF_COLOR_H
#define UPF_COLOR_H

#include <math.h>
#include <stdint.h>

/* Rec. 709 / sRGB luma weights (ITU-R BT.709-6, item 3.2). */
#define UPF_LUMA_R 0.2126f
#define UPF_LUMA_G 0.7152f
#define UPF_LUMA_B 0.0722f

static inline float upf_luma(float r, float g, float b)
{
    return UPF_LUMA_R * r + UPF_LUMA_G * g + UPF_LUMA_B * b;
}

/* sRGB transfer curve, IEC 61966-2-1:1999 section 5.2 (encoded -> linear) and 5.3 (linear ->
 * encoded): a linear segment of slope 12.92 near black, a 2.4 power above. In double so that
 * 8- and 16-bit round trips are exact; float wrappers below. */
static inline double upf_srgb_to_linear_d(double e)
{
    return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

static inline double upf_linear_to_srgb_d(double l)
{
    return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

static inline float upf_srgb_to_linear(float e)
{
    return (float)upf_srgb_to_linear_d(e);
}

static inline float upf_linear_to_srgb(float l)
{
    return (float)upf_linear_to_srgb_d(l);
}

/* Decoded 8-bit sRGB values, indexed by the code value. */
extern const float upf_srgb8_to_linear_table[256];

/* Linear light -> 8-bit sRGB code, rounded to nearest, clamped; equal to
 * round(255 * upf_linear_to_srgb_d(v)) but without pow(). */
uint8_t upf_linear_to_srgb8(float v);

/* upf_linear_to_srgb8's tables for a vector version (image_avx2.c) that gathers them:
 * bucket[b] = the code of b / 4096 for b = 0..4096 (4096: 255), and thr[k] = the smallest
 * float at or above the linear value where the code steps from k to k + 1, k = 0..254
 * (thr[255] = +Inf), so that for a float v, v >= thr[k] exactly when v reaches that step.
 * The code of v in [0, 1] is bucket[(int)(v * 4096)], plus one where v >= thr of it. */
#define UPF_SRGB8_BUCKETS 4096
void upf__srgb8_encode_tables(int32_t bucket[UPF_SRGB8_BUCKETS + 1], float thr[256]);

/* The sRGB-Lanczos base's values: out[c] = the sRGB encoding (IEC 61966-2-1, in double) of the
 * frame's 10-bit code c taken to linear light, (c / 1023)^2, rounded to float; c = 0..1023;
 * except that the code of each 8-bit sRGB value b (upf_pack_sqrt1010102 of its linear value)
 * holds b / 255 itself, so that an 8-bit source's base is Lanczos-3 on its own values. Each
 * context keeps one (core.h); the Vulkan backend uploads the same table (src/vk/ABI.md, binding 12). */
#define UPF_SRGB_OF_CODE_COUNT 1024
void upf__srgb_of_code(float out[UPF_SRGB_OF_CODE_COUNT]);

/* ((e + 0.055) / 1.055)^1.2, the square root of the sRGB curve's linear value of e, at
 * e = k / UPF_SRGB_POW_STEPS for k = 0..UPF_SRGB_POW_COUNT - 1 (e = 0 .. 2), in double rounded
 * to float: the table of upf__sqrt_of_srgb_fast (spatial/reconstruct.h). Each context keeps
 * one. */
#define UPF_SRGB_POW_STEPS 4096                        /* table entries per unit of e */
#define UPF_SRGB_POW_COUNT (2 * UPF_SRGB_POW_STEPS + 1) /* e = 0 .. 2 */
void upf__srgb_pow_table(float out[UPF_SRGB_POW_COUNT]);

/* IEEE 754 binary16 <-> binary32, round to nearest even, with subnormals, Inf and NaN. */
float upf_half_to_float(uint16_t h);
uint16_t upf_float_to_half(float f);

/* The spatial engine's frame format: each of R, G, B as sqrt(linear) in 10-bit unorm
 * (bits 0-9 R, 10-19 G, 20-29 B), alpha in the top 2 bits. The square root is a perceptual
 * (gamma 2) encoding; see docs/SPATIAL.md, "Pass 3". Inputs are clamped to [0,1]. */
uint32_t upf_pack_sqrt1010102(float r, float g, float b, float a);
void upf_unpack_sqrt1010102(uint32_t p, float *r, float *g, float *b, float *a); /* sqrt values */

/* Rounds v * max to the nearest integer after clamping v to [0, 1]. */
static inline uint32_t upf_unorm_from_float(float v, uint32_t max)
{
    if (!(v > 0.0f)) /* also NaN */
        return 0;
    if (v >= 1.0f)
        return max;
    return (uint32_t)(v * (float)max + 0.5f);
}

#endif /* UPF_COLOR_H */
