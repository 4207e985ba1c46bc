/* compose_base_avx2.c: one row of compose's kernel bases (Catmull-Rom in linear light,
 * Lanczos-3 on sqrt values or on sRGB values) with AVX2, for CPUs that have it.
 *
 * Reads: the frame rows of the row's vertical taps (10:10:10:2 sqrt codes), the taps, the
 * sRGB table of the sRGB-Lanczos base. Writes: the vertically filtered row (RGBA floats, the
 * caller's scratch) and the base row (RGBA, sqrt-space colour or sRGB sums, and alpha).
 *
 * The same arithmetic as upf__base_kernel_vertical and upf__base_kernel_horizontal
 * (compose.c), in the same order, with no fused multiply-add: the values are the same bit for
 * bit (tests/test_net.c compares them), so a picture does not depend on the CPU it was made on.
 *  - Vertical, eight frame columns a step: each tap's eight codes unpacked at once (a code
 *    divided by 1023 and alpha by 3, as upf_unpack_sqrt1010102 divides; the sRGB base's
 *    values gathered from its table), times the tap's weight, added in tap order; then the
 *    four channel vectors transposed into eight RGBA pixels.
 *  - Horizontal, two output pixels a step: a pixel's RGBA is one 4-float lane group, each tap
 *    a load of the source pixel's four values; the sum's end (the square root of the cubic
 *    base, the sRGB base's way back to sqrt space, upf__sqrt_of_srgb_fast, with its table
 *    gathered, the alpha's clamp to [0, 1]) as the C does.
 * Columns past the last multiple of eight (vertical) or two (horizontal) go through the C.
 *
 * Built with -mavx2 -mfma on x86-64 only (src/CMakeLists.txt; the FMA instructions are not
 * used here); elsewhere this file is empty. */
#include "spatial/reconstruct.h"

#if defined(UPF_HAVE_X86_AVX2)
#include <immintrin.h>

static void vertical(const upf__base_cols *cols, const uint32_t *const *rows,
                     const upf__tapk *ty, int x_end, float *vrow)
{
    const int n = cols->taps;
    const __m256i low10 = _mm256_set1_epi32(1023);
    const __m256 code_max = _mm256_set1_ps(1023.0f), alpha_max = _mm256_set1_ps(3.0f);
    for (int x = 0; x < x_end; x += 8) {
        __m256 acc[4] = { _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                          _mm256_setzero_ps() };
        for (int j = 0; j < n; j++) {
            const __m256i p = _mm256_loadu_si256((const __m256i *)(rows[j] + x));
            const __m256i code[3] = { _mm256_and_si256(p, low10),
                                      _mm256_and_si256(_mm256_srli_epi32(p, 10), low10),
                                      _mm256_and_si256(_mm256_srli_epi32(p, 20), low10) };
            const __m256 w = _mm256_set1_ps(ty->w[j]);
            for (int c = 0; c < 3; c++) {
                __m256 v = cols->srgb ? _mm256_i32gather_ps(cols->srgb, code[c], 4)
                                      : _mm256_div_ps(_mm256_cvtepi32_ps(code[c]), code_max);
                if (cols->linear)
                    v = _mm256_mul_ps(v, v);
                acc[c] = _mm256_add_ps(acc[c], _mm256_mul_ps(w, v));
            }
            const __m256 a = _mm256_div_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(p, 30)),
                                           alpha_max);
            acc[3] = _mm256_add_ps(acc[3], _mm256_mul_ps(w, a));
        }
        /* R, G, B, A of eight pixels -> eight RGBA pixels. */
        const __m256 rg_lo = _mm256_unpacklo_ps(acc[0], acc[1]); /* r0 g0 r1 g1 | r4 g4 r5 g5 */
        const __m256 rg_hi = _mm256_unpackhi_ps(acc[0], acc[1]); /* r2 g2 r3 g3 | r6 g6 r7 g7 */
        const __m256 ba_lo = _mm256_unpacklo_ps(acc[2], acc[3]);
        const __m256 ba_hi = _mm256_unpackhi_ps(acc[2], acc[3]);
        const __m256 p04 = _mm256_shuffle_ps(rg_lo, ba_lo, 0x44); /* pixel 0 | pixel 4 */
        const __m256 p15 = _mm256_shuffle_ps(rg_lo, ba_lo, 0xee);
        const __m256 p26 = _mm256_shuffle_ps(rg_hi, ba_hi, 0x44);
        const __m256 p37 = _mm256_shuffle_ps(rg_hi, ba_hi, 0xee);
        float *o = vrow + 4 * x;
        _mm256_storeu_ps(o, _mm256_permute2f128_ps(p04, p15, 0x20));
        _mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(p26, p37, 0x20));
        _mm256_storeu_ps(o + 16, _mm256_permute2f128_ps(p04, p15, 0x31));
        _mm256_storeu_ps(o + 24, _mm256_permute2f128_ps(p26, p37, 0x31));
    }
}

/* upf__sqrt_of_srgb_fast (reconstruct.h) of eight sums, with the same operations: the
 * table's interpolation on [0.04045, 2), sign(e) * sqrt(|e| / 12.92) below (-0 stays -0, as
 * sqrtf(-0) is -0); sums from 2 up, and NaN, through the C function one by one. Lanes whose
 * `keep` bit is clear (alpha) are computed but not looked at. */
static __m256 sqrt_of_srgb8(const float *pow_table, __m256 e, int keep)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256 low = _mm256_cmp_ps(e, _mm256_set1_ps(0.04045f), _CMP_LE_OQ);
    const int high = _mm256_movemask_ps(_mm256_cmp_ps(e, _mm256_set1_ps(2.0f), _CMP_NLT_UQ)) &
                     keep;
    const __m256 s = _mm256_mul_ps(e, _mm256_set1_ps((float)UPF_SRGB_POW_STEPS));
    /* Outside [0, 2) the index is clamped only to keep the gathers inside the table. */
    const __m256i i = _mm256_max_epi32(_mm256_min_epi32(_mm256_cvttps_epi32(s),
                                                        _mm256_set1_epi32(UPF_SRGB_POW_COUNT - 2)),
                                       _mm256_setzero_si256());
    const __m256 f = _mm256_sub_ps(s, _mm256_cvtepi32_ps(i));
    const __m256 t0 = _mm256_i32gather_ps(pow_table, i, 4);
    const __m256 t1 = _mm256_i32gather_ps(pow_table + 1, i, 4);
    const __m256 table = _mm256_add_ps(t0, _mm256_mul_ps(f, _mm256_sub_ps(t1, t0)));
    const __m256 root = _mm256_sqrt_ps(_mm256_div_ps(_mm256_andnot_ps(sign, e),
                                                     _mm256_set1_ps(12.92f)));
    __m256 v = _mm256_blendv_ps(table, _mm256_or_ps(root, _mm256_and_ps(sign, e)), low);
    if (high) {
        float lane[8], out[8];
        _mm256_storeu_ps(lane, e);
        _mm256_storeu_ps(out, v);
        for (int k = 0; k < 8; k++)
            if (high & (1 << k))
                out[k] = upf__sqrt_of_srgb(lane[k]);
        v = _mm256_loadu_ps(out);
    }
    return v;
}

static void horizontal(const upf__base_cols *cols, const float *vrow, int x_end, float *base)
{
    const int n = cols->taps;
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    for (int x = 0; x < x_end; x += 2) {
        const upf__tapk *t0 = &cols->kernel[x], *t1 = &cols->kernel[x + 1];
        __m256 acc = zero;
        for (int j = 0; j < n; j++) {
            const __m256 v = _mm256_set_m128(_mm_loadu_ps(vrow + 4 * t1->i[j]),
                                             _mm_loadu_ps(vrow + 4 * t0->i[j]));
            const __m256 w = _mm256_set_m128(_mm_set1_ps(t1->w[j]), _mm_set1_ps(t0->w[j]));
            acc = _mm256_add_ps(acc, _mm256_mul_ps(w, v));
        }
        /* Alpha (lanes 3 and 7): acc > 0 ? min(acc, 1) : 0, NaN to 0 as in C (max and min
         * return their second operand when either is NaN or both are zeros). */
        const __m256 alpha = _mm256_min_ps(_mm256_max_ps(acc, zero), one);
        __m256 colour = acc;
        if (cols->srgb && !cols->srgb_sums)
            colour = sqrt_of_srgb8(cols->srgb_pow, acc, 0x77);
        else if (cols->linear && !cols->srgb) /* acc > 0 ? sqrt(acc) : 0 */
            colour = _mm256_sqrt_ps(_mm256_max_ps(acc, zero));
        _mm256_storeu_ps(base + 4 * x, _mm256_blend_ps(colour, alpha, 0x88));
    }
}

void upf__base_kernel_row_avx2(const upf__base_cols *cols, const uint32_t *const *rows,
                               const upf__tapk *ty, int in_w, float *vrow, float *base)
{
    const int v_end = in_w & ~7, h_end = cols->out_w & ~1;
    vertical(cols, rows, ty, v_end, vrow);
    upf__base_kernel_vertical(cols, rows, ty, v_end, in_w, vrow);
    horizontal(cols, vrow, h_end, base);
    upf__base_kernel_horizontal(cols, vrow, h_end, cols->out_w, base);
}
#endif
