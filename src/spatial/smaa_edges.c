/* smaa_edges.c: pass 1 of the spatial engine, SMAA luma edge detection
 * (SMAALumaEdgeDetectionPS, Jimenez et al. 2012 section 3.1), with the two edge flags of
 * each pixel packed into one 32-bit word per 4x4 block (docs/SPATIAL.md, "Pass 1").
 *
 * Reads the linear RGBA float frame. Writes the luma scratch (W*H floats), the edge words
 * (ceil(W/4) * ceil(H/4); layout in smaa.h), and every pixel's unblended sqrt 10:10:10:2
 * encoding into the frame (pass 3 completes it). Also the edges' debug picture.
 *
 * The rule, for pixel P with neighbours Left, Top, Right, Bottom, LeftLeft, TopTop:
 *   L = Rec. 709 luma of the square-root-encoded colour (upf__smaa_luma);
 *   dl = |L(P) - L(Left)|, dt = |L(P) - L(Top)|;
 *   a left edge when dl >= 0.1, a top edge when dt >= 0.1 (SMAA_THRESHOLD; SMAA's step(),
 *   so a difference of exactly the threshold is an edge);
 *   local contrast adaptation: with m = max(dl, dt, |L(P) - L(Right)|, |L(P) - L(Bottom)|,
 *   |L(Left) - L(LeftLeft)|, |L(Top) - L(TopTop)|), an edge survives only if
 *   2 * its own difference >= m (SMAA_LOCAL_CONTRAST_ADAPTATION_FACTOR 2.0: a much stronger
 *   step nearby hides a weak one).
 * At the border a neighbour beyond the image is the border pixel itself (clamp), so its
 * difference is 0: column 0 has no left edges, row 0 no top edges, and a missing Right,
 * Bottom, LeftLeft or TopTop adds nothing to m. Arithmetic is in float, as on a GPU. */
#include "core/color.h"
#include "spatial/smaa.h"
#include "spatial/spatial_passes.h"

typedef struct edges_job {
    const float *linear;
    float *luma;
    uint32_t *edges, *frame;
    int width, height, bw;
} edges_job;

void upf__smaa_luma_row(const float *rgba, int n, float *luma, uint32_t *packed)
{
    int x = 0;
#if UPF_SMAA_SSE2
    /* Four pixels at a time, transposed so that each register holds one channel of the four:
     * the square roots of the colour channels (negative ones as 0) serve both outputs. The
     * luma sums each pixel's terms in the scalar order, (r + g) + b. The encoding clamps
     * the roots (alpha as it is) to [0, 1], scales by 1023 (alpha 3), adds 0.5 and
     * truncates, as upf_unorm_from_float does, then shifts each channel into place. */
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), half = _mm_set1_ps(0.5f);
    const __m128 wr = _mm_set1_ps(0.2126f), wg = _mm_set1_ps(0.7152f), wb = _mm_set1_ps(0.0722f);
    const __m128 s10 = _mm_set1_ps(1023.0f), s2 = _mm_set1_ps(3.0f);
    for (; x + 4 <= n; x += 4) {
        __m128 r = _mm_loadu_ps(rgba + 4 * x), g = _mm_loadu_ps(rgba + 4 * x + 4);
        __m128 b = _mm_loadu_ps(rgba + 4 * x + 8), a = _mm_loadu_ps(rgba + 4 * x + 12);
        _MM_TRANSPOSE4_PS(r, g, b, a);
        r = _mm_sqrt_ps(_mm_max_ps(r, zero));
        g = _mm_sqrt_ps(_mm_max_ps(g, zero));
        b = _mm_sqrt_ps(_mm_max_ps(b, zero));
        __m128 sum = _mm_add_ps(_mm_mul_ps(wr, r), _mm_mul_ps(wg, g));
        _mm_storeu_ps(luma + x, _mm_add_ps(sum, _mm_mul_ps(wb, b)));
        __m128i qr = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(_mm_min_ps(r, one), s10), half));
        __m128i qg = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(_mm_min_ps(g, one), s10), half));
        __m128i qb = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(_mm_min_ps(b, one), s10), half));
        __m128 ca = _mm_min_ps(_mm_max_ps(a, zero), one);
        __m128i qa = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(ca, s2), half));
        __m128i word = _mm_or_si128(_mm_or_si128(qr, _mm_slli_epi32(qg, 10)),
                                    _mm_or_si128(_mm_slli_epi32(qb, 20), _mm_slli_epi32(qa, 30)));
        _mm_storeu_si128((__m128i *)(packed + x), word);
    }
#endif
    for (; x < n; x++) {
        const float *p = rgba + 4 * x;
        luma[x] = upf__smaa_luma(p[0], p[1], p[2]);
        packed[x] = upf_pack_sqrt1010102(p[0], p[1], p[2], p[3]);
    }
}

/* Luma and unblended frame pixels of the rows of block row `by`. */
static void luma_task(void *priv, int by, int worker)
{
    (void)worker;
    const edges_job *job = priv;
    int y1 = UPF_MIN(4 * by + 4, job->height);
    for (int y = 4 * by; y < y1; y++) {
        size_t row = (size_t)y * job->width;
        upf__smaa_luma_row(job->linear + row * 4, job->width, job->luma + row, job->frame + row);
    }
}

static inline float max2f(float a, float b)
{
    return a > b ? a : b;
}

/* Candidates among pixels x0 .. x0+n-1 (n <= 64) of a row: bit i of *el when
 * |L - L(Left)| >= threshold (never for x = 0), of *et when |L - L(Top)| >= threshold. */
static void candidates(const float *row, const float *up, int x0, int n, uint64_t *el_out,
                       uint64_t *et_out)
{
    uint64_t el = 0, et = 0;
    int i = 0;
    if (x0 == 0) { /* column 0: no left neighbour */
        et = fabsf(row[0] - up[0]) >= UPF_SMAA_THRESHOLD;
        i = 1;
    }
#if UPF_SMAA_SSE2
    const __m128 threshold = _mm_set1_ps(UPF_SMAA_THRESHOLD), sign = _mm_set1_ps(-0.0f);
    for (; i + 4 <= n; i += 4) {
        __m128 p = _mm_loadu_ps(row + x0 + i);
        __m128 dl = _mm_andnot_ps(sign, _mm_sub_ps(p, _mm_loadu_ps(row + x0 + i - 1)));
        __m128 dt = _mm_andnot_ps(sign, _mm_sub_ps(p, _mm_loadu_ps(up + x0 + i)));
        el |= (uint64_t)_mm_movemask_ps(_mm_cmpge_ps(dl, threshold)) << i;
        et |= (uint64_t)_mm_movemask_ps(_mm_cmpge_ps(dt, threshold)) << i;
    }
#endif
    for (; i < n; i++) {
        int x = x0 + i;
        el |= (uint64_t)(fabsf(row[x] - row[x - 1]) >= UPF_SMAA_THRESHOLD) << i;
        et |= (uint64_t)(fabsf(row[x] - up[x]) >= UPF_SMAA_THRESHOLD) << i;
    }
    *el_out = el;
    *et_out = et;
}

/* Edge words of block row `by`. Each row is scanned 64 pixels at a time: the two cheap
 * differences give the candidates, and only candidates read the four further neighbours. */
static void edges_task(void *priv, int by, int worker)
{
    (void)worker;
    const edges_job *job = priv;
    const int w = job->width, h = job->height;
    uint32_t *out = job->edges + (size_t)by * job->bw;
    for (int bx = 0; bx < job->bw; bx++)
        out[bx] = 0;

    for (int r = 0; r < 4; r++) {
        int y = 4 * by + r;
        if (y >= h)
            break;
        const float *row = job->luma + (size_t)y * w;
        const float *up = y > 0 ? row - w : row;       /* Top (clamped) */
        const float *up2 = y > 1 ? row - 2 * w : up;   /* TopTop (clamped) */
        const float *down = y + 1 < h ? row + w : row; /* Bottom (clamped) */
        for (int x0 = 0; x0 < w; x0 += 64) {
            uint64_t el, et;
#if UPF_SMAA_SSE2
            /* The row below is not streamed through the cache yet; the candidates read it
             * here and there, so ask for its lines now. */
            for (int i = 0; i < 64 && x0 + i < w; i += 16)
                _mm_prefetch((const char *)(down + x0 + i), _MM_HINT_T0);
#endif
            candidates(row, up, x0, UPF_MIN(64, w - x0), &el, &et);
            for (uint64_t any = el | et; any; any &= any - 1) {
                int i = upf__smaa_lowest_bit(any), x = x0 + i;
                float l = row[x];
                float dl = x > 0 ? fabsf(l - row[x - 1]) : 0.0f;
                float dt = fabsf(l - up[x]);
                /* Local contrast adaptation. */
                float dr = x + 1 < w ? fabsf(l - row[x + 1]) : 0.0f;
                float db = fabsf(l - down[x]);
                float dll = x > 1 ? fabsf(row[x - 1] - row[x - 2]) : 0.0f;
                float dtt = fabsf(up[x] - up2[x]);
                float m = max2f(max2f(max2f(dl, dt), max2f(dr, db)), max2f(dll, dtt));
                uint32_t keep_l = (uint32_t)((el >> i) & 1) & (UPF_SMAA_LCA_FACTOR * dl >= m);
                uint32_t keep_t = (uint32_t)((et >> i) & 1) & (UPF_SMAA_LCA_FACTOR * dt >= m);
                int bit = r * 4 + (x & 3);
                out[x >> 2] |= (keep_l << bit) | (keep_t << (16 + bit));
            }
        }
    }
}

void upf__smaa_edges(upf_context *ctx, const float *linear, int width, int height, float *luma,
                     uint32_t *edges, uint32_t *frame)
{
    edges_job job = { linear, luma, edges, frame, width, height, upf__smaa_blocks(width) };
    int bh = upf__smaa_blocks(height);
    /* Two sweeps: every row's luma must be there before its neighbours' edges are found. */
    upf__parallel_for(ctx, luma_task, &job, bh);
    upf__parallel_for(ctx, edges_task, &job, bh);
}

/* Without edge detection (UPF_SPATIAL_NO_SMAA): the frame is the sqrt encoding of the input as
 * it is. The luma is a by-product that nothing reads then: it goes to a buffer on the stack, a
 * piece of the row at a time, so the luma plane is never touched (its pages never taken). */
static void encode_task(void *priv, int y, int worker)
{
    (void)worker;
    const edges_job *job = priv;
    float luma[256];
    size_t off = (size_t)y * job->width;
    for (int x = 0; x < job->width; x += 256) {
        int n = UPF_MIN(256, job->width - x);
        upf__smaa_luma_row(job->linear + (off + (size_t)x) * 4, n, luma, job->frame + off + x);
    }
}

upf_result upf__smaa_edges_pass(const upf__pass_args *a)
{
    const upf__smaa_edges_con *con = a->con;
    const float *linear = a->surface[UPF__SP_LINEAR].data;
    float *luma = a->surface[UPF__SP_LUMA].data;
    uint32_t *frame = a->surface[UPF__SP_FRAME].data;
    if (con->detect) {
        upf__smaa_edges(a->ctx, linear, con->width, con->height, luma,
                        a->surface[UPF__SP_EDGES].data, frame);
    } else {
        edges_job job = { linear, luma, NULL, frame, con->width, con->height, con->blocks_x };
        upf__parallel_for(a->ctx, encode_task, &job, con->height);
    }
    return UPF_OK;
}

void upf__smaa_edges_visualise(const uint32_t *edges, int width, int height, uint8_t *rgba)
{
    int bw = upf__smaa_blocks(width);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            uint32_t word = edges[(size_t)(y >> 2) * bw + (x >> 2)];
            int bit = (y & 3) * 4 + (x & 3);
            uint8_t *p = rgba + ((size_t)y * width + x) * 4;
            p[0] = (word >> bit) & 1 ? 255 : 0;
            p[1] = (word >> (16 + bit)) & 1 ? 255 : 0;
            p[2] = 0;
            p[3] = 255;
        }
    }
}
