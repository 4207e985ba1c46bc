/* smaa_blend.c: pass 3 of the spatial engine, SMAA neighbourhood blending
 * (SMAANeighborhoodBlendingPS, Jimenez et al. 2012 section 3.5) in linear light, then the
 * frame stored as the square root of each channel in 10:10:10:2 (docs/SPATIAL.md, "Pass 3").
 *
 * Reads the linear RGBA float frame and the weights of pass 2. Writes the frame (W*H words
 * of upf_pack_sqrt1010102): pass 1 already stored every pixel's unblended encoding there, so
 * only the pixels that blend are written.
 *
 * For pixel P the four weights that concern it are (names by the direction P moves in):
 *   right = a of the pixel to the right   (P toward its right neighbour)
 *   below = g of the pixel below          (P toward the pixel below)
 *   left  = b of P                        (P toward its left neighbour)
 *   above = r of P                        (P toward the pixel above)
 * All zero: P is kept (pass 1's value stays). Otherwise P blends horizontally when max(right, left) >
 * max(below, above), else vertically, taking both sides of that axis into account (SMAA
 * since commit e86fd6c):
 *   out = (w1 * lerp(P, N1, w1) + w2 * lerp(P, N2, w2)) / (w1 + w2)
 * with (w1, N1), (w2, N2) the two sides' weights (uint8 / 255) and neighbours. SMAA makes
 * each lerp with one bilinear fetch of an sRGB texture, i.e. in linear light; we lerp the
 * linear floats. Weights of pixels beyond the image are 0; a neighbour beyond the image is
 * the border pixel (clamp), as a GPU's sampler would read it. All four channels blend alike. */
#include "core/color.h"
#include "spatial/smaa.h"
#include "spatial/spatial_passes.h"

/* upf_pack_sqrt1010102 of c[0..3], bit for bit (SSE2 where the target has it): each colour
 * channel clamped at 0, its square root, then every channel clamped to [0, 1], scaled by
 * 1023 (alpha by 3), + 0.5 and truncated. */
static inline uint32_t pack_sqrt(const float *c)
{
#if UPF_SMAA_SSE2
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), half = _mm_set1_ps(0.5f);
    const __m128 scale = _mm_set_ps(3.0f, 1023.0f, 1023.0f, 1023.0f);
    const __m128 rgb = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    __m128 v = _mm_loadu_ps(c);
    __m128 s = _mm_sqrt_ps(_mm_max_ps(v, zero));
    s = _mm_or_ps(_mm_and_ps(rgb, s), _mm_andnot_ps(rgb, v)); /* alpha is not encoded */
    __m128 q = _mm_add_ps(_mm_mul_ps(_mm_min_ps(_mm_max_ps(s, zero), one), scale), half);
    int32_t u[4];
    _mm_storeu_si128((__m128i *)u, _mm_cvttps_epi32(q));
    return (uint32_t)u[0] | (uint32_t)u[1] << 10 | (uint32_t)u[2] << 20 | (uint32_t)u[3] << 30;
#else
    return upf_pack_sqrt1010102(c[0], c[1], c[2], c[3]);
#endif
}

typedef struct blend_job {
    const float *linear;
    const uint8_t *weights;
    uint32_t *frame;
    int width, height;
} blend_job;

/* Bit i set when pixel x0+i (i < n <= 64) of a row has any of its four weights: its own r
 * or b, the a of the pixel to its right, the g of the pixel below (wbelow NULL: last row). */
static uint64_t blend_mask(const uint8_t *wrow, const uint8_t *wbelow, int x0, int n, int w)
{
    uint64_t mask = 0;
    int i = 0;
#if UPF_SMAA_SSE2
    const __m128i own = _mm_set1_epi32(0x00FF00FF), right = _mm_set1_epi32((int)0xFF000000u);
    const __m128i below = _mm_set1_epi32(0x0000FF00), zero = _mm_setzero_si128();
    for (; i + 4 <= n && x0 + i + 4 < w; i += 4) { /* pixels x .. x+3, and x+4 for their a */
        const uint8_t *p = wrow + 4 * (x0 + i);
        __m128i m = _mm_or_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)p), own),
                                 _mm_and_si128(_mm_loadu_si128((const __m128i *)(p + 4)), right));
        if (wbelow)
            m = _mm_or_si128(m, _mm_and_si128(
                _mm_loadu_si128((const __m128i *)(wbelow + 4 * (x0 + i))), below));
        int none = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(m, zero)));
        mask |= (uint64_t)(~none & 15) << i;
    }
#endif
    for (; i < n; i++) {
        int x = x0 + i;
        int any = wrow[4 * x] | wrow[4 * x + 2] | (x + 1 < w ? wrow[4 * x + 7] : 0) |
                  (wbelow ? wbelow[4 * x + 1] : 0);
        mask |= (uint64_t)(any != 0) << i;
    }
    return mask;
}

static void blend_task(void *priv, int by, int worker)
{
    (void)worker;
    const blend_job *job = priv;
    const int w = job->width, h = job->height;
    int y1 = UPF_MIN(4 * by + 4, h);
    for (int y = 4 * by; y < y1; y++) {
        const float *row = job->linear + (size_t)y * w * 4;
        const uint8_t *wrow = job->weights + (size_t)y * w * 4;
        const uint8_t *wbelow = y + 1 < h ? wrow + (size_t)w * 4 : NULL;
        uint32_t *out = job->frame + (size_t)y * w;
        for (int x0 = 0; x0 < w; x0 += 64) {
            uint64_t mask = blend_mask(wrow, wbelow, x0, UPF_MIN(64, w - x0), w);
#if UPF_SMAA_SSE2
            /* The pixels that blend are scattered: ask for their lines (and the rows above
             * and below) first, so that the misses overlap instead of queueing. */
            for (uint64_t m = mask; m; m &= m - 1) {
                const float *p = row + 4 * (x0 + upf__smaa_lowest_bit(m));
                _mm_prefetch((const char *)p, _MM_HINT_T0);
                if (y > 0)
                    _mm_prefetch((const char *)(p - (size_t)w * 4), _MM_HINT_T0);
                if (y + 1 < h)
                    _mm_prefetch((const char *)(p + (size_t)w * 4), _MM_HINT_T0);
            }
#endif
            for (; mask; mask &= mask - 1) {
                int x = x0 + upf__smaa_lowest_bit(mask);
                const float *p = row + 4 * x;
                int right = x + 1 < w ? wrow[4 * (x + 1) + 3] : 0;
                int below = wbelow ? wbelow[4 * x + 1] : 0;
                int left = wrow[4 * x + 2], above = wrow[4 * x + 0];
                const float *n1, *n2;
                int i1, i2;
                if (UPF_MAX(right, left) > UPF_MAX(below, above)) {
                    i1 = right;
                    i2 = left;
                    n1 = row + 4 * (x + 1 < w ? x + 1 : x);
                    n2 = row + 4 * (x > 0 ? x - 1 : x);
                } else {
                    i1 = below;
                    i2 = above;
                    n1 = p + (y + 1 < h ? (size_t)w * 4 : 0);
                    n2 = p - (y > 0 ? (size_t)w * 4 : 0);
                }
                float w1 = (float)i1 / 255.0f, w2 = (float)i2 / 255.0f, inv = 1.0f / (w1 + w2);
                float c[4];
                for (int k = 0; k < 4; k++) {
                    float a = p[k] + w1 * (n1[k] - p[k]); /* lerp(P, N1, w1) */
                    float b = p[k] + w2 * (n2[k] - p[k]); /* lerp(P, N2, w2) */
                    c[k] = (w1 * a + w2 * b) * inv;
                }
                out[x] = pack_sqrt(c);
            }
        }
    }
}

void upf__smaa_blend(upf_context *ctx, const float *linear, const uint8_t *weights, int width,
                     int height, uint32_t *frame)
{
    blend_job job = { linear, weights, frame, width, height };
    upf__parallel_for(ctx, blend_task, &job, upf__smaa_blocks(height));
}

upf_result upf__smaa_blend_pass(const upf__pass_args *a)
{
    const upf__smaa_blend_con *con = a->con;
    upf__smaa_blend(a->ctx, a->surface[UPF__SP_LINEAR].data, a->surface[UPF__SP_WEIGHTS].data,
                    con->width, con->height, a->surface[UPF__SP_FRAME].data);
    return UPF_OK;
}

void upf__smaa_frame_visualise(const uint32_t *frame, int width, int height, uint8_t *rgba)
{
    for (size_t i = 0; i < (size_t)width * height; i++) {
        float c[4];
        upf_unpack_sqrt1010102(frame[i], &c[0], &c[1], &c[2], &c[3]);
        for (int k = 0; k < 3; k++)
            rgba[4 * i + k] = upf_linear_to_srgb8(c[k] * c[k]);
        rgba[4 * i + 3] = (uint8_t)(c[3] * 255.0f + 0.5f);
    }
}
