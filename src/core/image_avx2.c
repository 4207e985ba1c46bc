/* image_avx2.c: linear float RGBA rows into 8-bit sRGB pixels with AVX2, for CPUs that have
 * it (the sRGB encode was a third of compose's time on one core).
 *
 * Reads: n linear RGBA float pixels and upf__srgb8_encode_tables's two tables (color.h).
 * Writes: n RGBA8 sRGB pixels. upf__row_from_linear_ctx (image.c, the writer the library's row
 * loops call) takes it on CPUs with AVX2, with the context's tables. The same codes as upf__row_from_linear's RGBA8_SRGB writer
 * (image.c) for every float, NaN and infinities included (tests/test_core.c compares them):
 *  - R, G, B: v clamped to [0, 1] (NaN to 0), the code of bucket (int)(v * 4096), plus one
 *    where v reaches the next step (one comparison is enough: at most one step falls inside a
 *    bucket, color.c), both looked up eight at a time by gathers;
 *  - alpha: the clamped v times 255 plus 0.5, truncated (upf_unorm_from_float), no FMA;
 *  - eight pixels (four registers of two) packed into 32 bytes.
 * Pixels past the last multiple of eight go through the C writer.
 *
 * Built with -mavx2 -mfma on x86-64 only (src/CMakeLists.txt), so nothing here may run on a CPU
 * without AVX2; elsewhere the function is the C writer itself. */
#include "core/color.h"
#include "core/image.h"

#if defined(UPF_HAVE_X86_AVX2)
#include <immintrin.h>

/* The codes of two pixels (eight values), as 32-bit integers. */
static inline __m256i codes2(const float *in, const int32_t *bucket, const float *thr)
{
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(in), zero), one);
    const __m256i b = _mm256_cvttps_epi32(_mm256_mul_ps(v, _mm256_set1_ps(UPF_SRGB8_BUCKETS)));
    __m256i code = _mm256_i32gather_epi32(bucket, b, 4);
    const __m256 step = _mm256_i32gather_ps(thr, code, 4);
    code = _mm256_sub_epi32(code, _mm256_castps_si256(_mm256_cmp_ps(v, step, _CMP_GE_OQ)));
    const __m256i alpha = _mm256_cvttps_epi32(
        _mm256_add_ps(_mm256_mul_ps(v, _mm256_set1_ps(255.0f)), _mm256_set1_ps(0.5f)));
    return _mm256_blend_epi32(code, alpha, 0x88);
}

void upf__row_to_srgb8_avx2(const upf_image *img, int y, int x0, int n, const float *in,
                            const int32_t *bucket, const float *thr)
{
    uint8_t *p = (uint8_t *)upf__row(img, y) + 4 * (size_t)x0;
    const int end = n & ~7;
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int x = 0; x < end; x += 8) {
        const float *q = in + 4 * x;
        const __m256i c01 = codes2(q, bucket, thr), c23 = codes2(q + 8, bucket, thr);
        const __m256i c45 = codes2(q + 16, bucket, thr), c67 = codes2(q + 24, bucket, thr);
        /* 16-bit: [px0 px2 | px1 px3] and [px4 px6 | px5 px7]; 8-bit: [0 2 4 6 | 1 3 5 7]. */
        const __m256i w = _mm256_packus_epi16(_mm256_packus_epi32(c01, c23),
                                              _mm256_packus_epi32(c45, c67));
        _mm256_storeu_si256((__m256i *)(p + 4 * (size_t)x), _mm256_permutevar8x32_epi32(w, order));
    }
    if (end < n)
        upf__row_from_linear(img, y, x0 + end, n - end, in + 4 * end);
}
#else
void upf__row_to_srgb8_avx2(const upf_image *img, int y, int x0, int n, const float *in,
                            const int32_t *bucket, const float *thr)
{
    (void)bucket;
    (void)thr;
    upf__row_from_linear(img, y, x0, n, in);
}
#endif
