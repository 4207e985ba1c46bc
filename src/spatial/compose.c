/* compose.c: the spatial engine's compose pass, the second half of its upscale
 * (docs/SPATIAL.md, "The compose pass" and "Geometry"): the base (a sample of the frame at the
 * output's pixels) plus the detail map, back to linear light, sharpened, into the host's
 * destination image in any colour format and any size of ratio 1..4.
 *
 * Reads: the frame (sqrt-encoded 10:10:10:2) and the detail map. Writes: the destination.
 *
 * Output pixel (X, Y) of a W_out x H_out output:
 *  - base: the frame sampled at x = (X + 0.5) * W_in / W_out - 0.5 (y likewise). The shipped
 *    design samples the sqrt values bilinearly, positions outside [0, W_in - 1] clamped to the
 *    edge. A model with UPF_MODEL_FLAG_CUBIC_BASE asks for a sharper base (the design leaves
 *    the base to the model, docs/SPATIAL.md): the frame in linear light (sqrt values squared), Catmull-Rom over
 *    the 4x4 pixels around the position (edge pixels repeated), clamped at 0 and back to sqrt
 *    by a square root. Catmull-Rom interpolates (it passes through the pixels) and keeps edges
 *    steeper than bilinear, which blurs a one-pixel step over a whole input pixel; in linear
 *    light, so a dark line on a bright ground keeps its weight, as the classic resamplers
 *    (src/resample) filter. A model with UPF_MODEL_FLAG_SQRT_LANCZOS_BASE: Lanczos-3 over the
 *    6x6 pixels around the position on the sqrt values themselves (no squaring, no clamp):
 *    games that average in gamma-encoded values, as most do, look more like this than like a
 *    filter in linear light (docs/SPATIAL.md, "The base"). A model with
 *    UPF_MODEL_FLAG_SRGB_LANCZOS_BASE: Lanczos-3 as that, on each pixel's sRGB-encoded value
 *    (upf__srgb_of_code of its 10-bit code), the sum taken back to sqrt space
 *    (upf__sqrt_of_srgb): with no detail this is Lanczos-3 on the sRGB values, what image
 *    tools do and the best classic filter on real games (docs/QUALITY.md);
 *  - detail: the map sampled bilinearly at x = (X + 0.5) * (W_in * r) / W_out - 0.5 (y
 *    likewise), clamped to [0, map width - 1]; when W_out = W_in * r this is detail pixel X
 *    itself. For any other size this is "the shader resamples to cover the gap";
 *  - o = max(base + detail, 0)^2 on R, G and B alike: back from sqrt to linear light. The
 *    clamp keeps a negative sum from squaring into a bright pixel; a sum above 1 stays (the
 *    output format clamps it if it must);
 *  - the sharpen on o: R, G, B += k * (1.25 * L - 0.3125 * (L_left + L_right + L_up + L_down)),
 *    L the Rec. 709 luma of o, neighbours at the frame's edge repeating the edge pixel, k the
 *    sharpness (1 the design's look, 0 off); then clamped at 0, since linear light is never
 *    negative. The weights sum to 0, so flat areas are unchanged;
 *  - alpha: the base's filter (bilinear, or Catmull-Rom or Lanczos-3 clamped to [0, 1]) on the alpha of the
 *    linear input at full precision, not on the frame's 2 bits; not squared, not sharpened
 *    (upf__compose_output without the linear input: the frame's alpha, as the trainer uses);
 *  - when convert tone-mapped the frame (range: the largest value M above 1), the output's
 *    colour is mapped back: c = c' / (1 - max(c')), the scale held at most 1 + M so that a
 *    value overshooting in the filters cannot blow up (docs/SPATIAL.md).
 * Sample positions are computed exactly in integers, ((2X + 1) * num - den) / (2 * den), so a
 * ratio of 1 or W_out = W_in * r lands on whole pixels. Bilinear means vertical first, then
 * horizontal, each as (1 - f) * a + f * b.
 *
 * Work: one task per band of output rows.
 * Every value is computed the same way whichever worker runs it, so the result does not
 * depend on the number of threads. Scratch memory is the caller's (sized by the *_bytes
 * functions); nothing here allocates. */
#include <math.h>
#include <string.h>

#include "core/color.h"
#include "core/image.h"
#include "resample/resample.h"
#include "spatial/reconstruct.h"
#include "spatial/spatial_passes.h"

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ---- the base ------------------------------------------------------------------------------ */

int upf__tapk_at(int x, long long num, long long den, int size, upf_filter filter,
                 upf__tapk *tap)
{
    /* u = t / d2 exactly; i = floor(u) by integer division rounded down; frac = u - i. */
    const long long t = (2LL * x + 1) * num - den, d2 = 2 * den;
    const long long i = t >= 0 ? t / d2 : -((-t + d2 - 1) / d2);
    const double frac = (double)(t - i * d2) / (double)d2;
    const upf__kernel *k = upf__kernel_get(filter);
    const int n = filter == UPF_FILTER_LANCZOS3 ? 6 : 4, first = 1 - n / 2;
    double w[UPF_BASE_TAPS_MAX], sum = 0.0;
    for (int j = 0; j < n; j++) {
        w[j] = k->eval(frac - (double)(j + first)); /* pixel i + first + j is that far from u */
        sum += w[j];
        tap->i[j] = clampi((int)(i + first + j), 0, size - 1);
    }
    for (int j = 0; j < n; j++)
        tap->w[j] = (float)(w[j] / sum);
    return n;
}

float upf__sqrt_of_srgb(float e)
{
    /* sqrt(((e + 0.055) / 1.055)^2.4) = ((e + 0.055) / 1.055)^1.2: one powf a channel; the
     * shader takes the same power. */
    if (e < 0.0f)
        return -sqrtf(-e / 12.92f);
    if (e <= 0.04045f)
        return sqrtf(e / 12.92f);
    return powf((e + 0.055f) / 1.055f, 1.2f);
}

size_t upf__base_cols_bytes(int out_w)
{
    return align64((size_t)out_w * UPF_MAX(sizeof(upf__tap), sizeof(upf__tapk)));
}

upf__base_cols upf__base_cols_init(const upf_context *ctx, uint32_t flags, int in_w, int out_w,
                                   void *mem)
{
    upf__base_cols c = { flags, in_w, out_w, NULL, NULL, 0, 0, UPF_FILTER_BILINEAR, NULL, NULL,
                         0, ctx->cpu_flags };
    if (flags & UPF_MODEL_FLAGS_BASE) {
        upf__tapk *t = mem;
        c.filter = (flags & UPF_MODEL_FLAG_CUBIC_BASE) ? UPF_FILTER_BICUBIC : UPF_FILTER_LANCZOS3;
        c.linear = (flags & UPF_MODEL_FLAG_CUBIC_BASE) != 0;
        for (int x = 0; x < out_w; x++)
            c.taps = upf__tapk_at(x, in_w, out_w, in_w, c.filter, &t[x]);
        c.kernel = t;
        if (flags & UPF_MODEL_FLAG_SRGB_LANCZOS_BASE) { /* the context's tables */
            c.srgb = ctx->srgb_of_code;
            c.srgb_pow = ctx->srgb_pow;
        }
    } else {
        upf__tap *t = mem;
        for (int x = 0; x < out_w; x++)
            t[x] = upf__tap_at(x, in_w, out_w, in_w);
        c.bilinear = t;
    }
    return c;
}

/* The shipped design's base: sqrt space, bilinear, rows blended, then columns. */
static void base_row_bilinear(const upf__sqrt_frame *frame, const upf__base_cols *cols,
                              int out_h, int y, float *vrow, float *base)
{
    const size_t stride = frame->stride ? frame->stride : (size_t)frame->width;
    const upf__tap ty = upf__tap_at(y, frame->height, out_h, frame->height);
    const uint32_t *r0 = frame->pixels + (size_t)ty.i0 * stride;
    const uint32_t *r1 = frame->pixels + (size_t)ty.i1 * stride;
    for (int x = 0; x < frame->width; x++) {
        float a[4], b[4];
        upf_unpack_sqrt1010102(r0[x], &a[0], &a[1], &a[2], &a[3]);
        upf_unpack_sqrt1010102(r1[x], &b[0], &b[1], &b[2], &b[3]);
        for (int c = 0; c < 4; c++)
            vrow[4 * x + c] = upf__lerp(a[c], b[c], ty.f);
    }
    for (int x = 0; x < cols->out_w; x++) {
        const upf__tap t = cols->bilinear[x];
        for (int c = 0; c < 4; c++)
            base[4 * x + c] = upf__lerp(vrow[4 * t.i0 + c], vrow[4 * t.i1 + c], t.f);
    }
}

/* The three kernel bases, separable, rows first (n taps down, then n across, each sum from tap
 * 0 in order):
 *  - cubic (cols->linear): Catmull-Rom on the squared sqrt values (linear light), the colour
 *    clamped at 0 and square-rooted back to sqrt space;
 *  - sqrt Lanczos: Lanczos-3 on the sqrt values as they are; the colour is not clamped (its
 *    lobes may take it a little below 0 or above 1: compose clamps base + detail at 0);
 *  - sRGB Lanczos (cols->srgb): Lanczos-3 on each code's sRGB value (the table), the sum
 *    taken to sqrt space by upf__sqrt_of_srgb_fast (the power from a table), sign kept, not
 *    clamped.
 * Alpha: the same taps on the unsquared alpha, clamped to [0, 1]. */
void upf__base_kernel_vertical(const upf__base_cols *cols, const uint32_t *const *rows,
                               const upf__tapk *ty, int x0, int x1, float *vrow)
{
    const int n = cols->taps;
    for (int x = x0; x < x1; x++) {
        float acc[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        for (int j = 0; j < n; j++) {
            float p[4];
            upf_unpack_sqrt1010102(rows[j][x], &p[0], &p[1], &p[2], &p[3]);
            if (cols->srgb)
                for (int c = 0; c < 3; c++)
                    p[c] = cols->srgb[(rows[j][x] >> (10 * c)) & 1023u];
            for (int c = 0; c < 3; c++)
                acc[c] += ty->w[j] * (cols->linear ? p[c] * p[c] : p[c]);
            acc[3] += ty->w[j] * p[3];
        }
        for (int c = 0; c < 4; c++)
            vrow[4 * x + c] = acc[c];
    }
}

void upf__base_kernel_horizontal(const upf__base_cols *cols, const float *vrow, int x0, int x1,
                                 float *base)
{
    const int n = cols->taps;
    for (int x = x0; x < x1; x++) {
        const upf__tapk *t = &cols->kernel[x];
        float acc[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        for (int j = 0; j < n; j++)
            for (int c = 0; c < 4; c++)
                acc[c] += t->w[j] * vrow[4 * t->i[j] + c];
        for (int c = 0; c < 3; c++)
            base[4 * x + c] = cols->srgb_sums ? acc[c]
                              : cols->srgb    ? upf__sqrt_of_srgb_fast(cols->srgb_pow, acc[c])
                              : !cols->linear ? acc[c]
                              : acc[c] > 0.0f ? sqrtf(acc[c]) : 0.0f;
        base[4 * x + 3] = acc[3] > 0.0f ? (acc[3] < 1.0f ? acc[3] : 1.0f) : 0.0f;
    }
}

static void base_row_kernel(const upf__sqrt_frame *frame, const upf__base_cols *cols,
                            int out_h, int y, float *vrow, float *base)
{
    const size_t stride = frame->stride ? frame->stride : (size_t)frame->width;
    upf__tapk ty;
    upf__tapk_at(y, frame->height, out_h, frame->height, cols->filter, &ty);
    const uint32_t *rows[UPF_BASE_TAPS_MAX];
    for (int j = 0; j < cols->taps; j++)
        rows[j] = frame->pixels + (size_t)ty.i[j] * stride;
#if defined(UPF_HAVE_X86_AVX2)
    if (cols->cpu_flags & UPF__CPU_X86_AVX2_FMA) {
        upf__base_kernel_row_avx2(cols, rows, &ty, frame->width, vrow, base);
        return;
    }
#endif
    upf__base_kernel_vertical(cols, rows, &ty, 0, frame->width, vrow);
    upf__base_kernel_horizontal(cols, vrow, 0, cols->out_w, base);
}

void upf__base_row(const upf__sqrt_frame *frame, const upf__base_cols *cols, int out_h, int y,
                   float *vrow, float *base)
{
    if (cols->bilinear)
        base_row_bilinear(frame, cols, out_h, y, vrow, base);
    else
        base_row_kernel(frame, cols, out_h, y, vrow, base);
}

/* ---- the output ---------------------------------------------------------------------------- */

/* Per worker: a vertically filtered input row (RGBA), the base row (RGBA), a vertically
 * blended detail row, three rows of the squared output (RGBA) and their luma (rows y-1, y, y+1
 * of the sharpen), and the row handed to the output format. */
typedef struct compose_layout {
    size_t in_row, base_row, detail_row, rgba_rows, luma_rows, out_row, worker;
} compose_layout;

static compose_layout compose_sizes(int in_w, int detail_w, int out_w)
{
    compose_layout L;
    L.in_row = align64((size_t)in_w * 4 * sizeof(float));
    L.base_row = align64((size_t)out_w * 4 * sizeof(float));
    L.detail_row = align64((size_t)detail_w * sizeof(float));
    L.rgba_rows = 3 * align64((size_t)out_w * 4 * sizeof(float));
    L.luma_rows = 3 * align64((size_t)out_w * sizeof(float));
    L.out_row = align64((size_t)out_w * 4 * sizeof(float));
    L.worker = L.in_row + L.base_row + L.detail_row + L.rgba_rows + L.luma_rows + L.out_row;
    return L;
}

/* Shared: the column taps, for the base and for the detail map. */
static size_t compose_shared_bytes(int out_w)
{
    return upf__base_cols_bytes(out_w) + align64((size_t)out_w * sizeof(upf__tap));
}

size_t upf__compose_scratch_bytes(int threads, int in_w, int detail_w, int out_w)
{
    compose_layout L = compose_sizes(in_w, detail_w, out_w);
    return compose_shared_bytes(out_w) + (size_t)(threads < 1 ? 1 : threads) * L.worker;
}

typedef struct compose_job {
    const upf__sqrt_frame *frame;
    const upf__detail_map *map;
    const upf_image *dst;
    float sharpness;
    const float *alpha_src;      /* the linear input (RGBA, frame size), or NULL */
    float tone_max;              /* M > 1: undo the tone map; 0: none */
    upf__base_cols base_cols;
    const upf__tap *col_detail;
    unsigned char *workers;
    compose_layout L;
    int band_rows;
    int direct;                  /* the sRGB base's sums stored as they are (compose_band) */
    const upf_context *ctx;      /* for the row writer (upf__row_from_linear_ctx) */
} compose_job;

typedef struct compose_worker {
    float *in_row, *base_row, *detail_row, *rgba[3], *luma[3], *out_row;
    int tag[3]; /* the output row each slot holds, -1 none */
} compose_worker;

/* Row y of the output's alpha from the linear input, with the base's filter: the same taps
 * and order of operations as upf__base_row's alpha, on the full-precision values. */
static void alpha_row(const compose_job *job, int out_h, int y, float *vrow, float *rgba)
{
    const int in_w = job->frame->width, in_h = job->frame->height, out_w = job->dst->width;
    const float *a = job->alpha_src;
    const upf__base_cols *cols = &job->base_cols;
    if (cols->bilinear) {
        const upf__tap ty = upf__tap_at(y, in_h, out_h, in_h);
        const float *r0 = a + (size_t)ty.i0 * in_w * 4, *r1 = a + (size_t)ty.i1 * in_w * 4;
        for (int x = 0; x < in_w; x++)
            vrow[x] = upf__lerp(r0[4 * x + 3], r1[4 * x + 3], ty.f);
        for (int x = 0; x < out_w; x++) {
            const upf__tap t = cols->bilinear[x];
            rgba[4 * x + 3] = upf__lerp(vrow[t.i0], vrow[t.i1], t.f);
        }
        return;
    }
    upf__tapk ty;
    const int n = upf__tapk_at(y, in_h, out_h, in_h, cols->filter, &ty);
    for (int x = 0; x < in_w; x++) {
        float acc = 0.0f;
        for (int j = 0; j < n; j++)
            acc += ty.w[j] * a[((size_t)ty.i[j] * in_w + (size_t)x) * 4 + 3];
        vrow[x] = acc;
    }
    for (int x = 0; x < out_w; x++) {
        const upf__tapk *t = &cols->kernel[x];
        float acc = 0.0f;
        for (int j = 0; j < n; j++)
            acc += t->w[j] * vrow[t->i[j]];
        rgba[4 * x + 3] = acc > 0.0f ? (acc < 1.0f ? acc : 1.0f) : 0.0f;
    }
}

/* Row y of the squared, unsharpened output and its luma (luma NULL: not wanted, as without
 * the sharpen). */
static void squared_row(const compose_job *job, compose_worker *w, int y, float *rgba,
                        float *luma)
{
    const upf__detail_map *map = job->map;
    const int out_w = job->dst->width, out_h = job->dst->height;

    /* The base row, then the vertical blend of the two map rows. */
    const float *base = w->base_row;
    upf__base_row(job->frame, &job->base_cols, out_h, y, w->in_row, w->base_row);
    upf__tap td = upf__tap_at(y, 12LL * map->in_height, (long long)map->step * out_h,
                              map->height);
    const float *d0 = map->data + (size_t)td.i0 * map->width;
    const float *d1 = map->data + (size_t)td.i1 * map->width;
    float *vd = w->detail_row;
    for (int x = 0; x < map->width; x++)
        vd[x] = upf__lerp(d0[x], d1[x], td.f);

    /* Horizontal: base + detail, clamped at 0, squared. */
    for (int x = 0; x < out_w; x++) {
        const upf__tap tdx = job->col_detail[x];
        const float detail = upf__lerp(vd[tdx.i0], vd[tdx.i1], tdx.f);
        float *o = rgba + 4 * x;
        for (int c = 0; c < 3; c++) {
            float v = base[4 * x + c] + detail;
            v = v > 0.0f ? v : 0.0f;
            o[c] = v * v;
        }
        o[3] = base[4 * x + 3];
        if (luma)
            luma[x] = upf_luma(o[0], o[1], o[2]);
    }
    if (job->alpha_src) /* after the base: its input row is free again */
        alpha_row(job, out_h, y, w->in_row, rgba);
}

/* The slot holding row y (computing it if needed). Rows y-1, y, y+1 fall in distinct slots. */
static int row_slot(const compose_job *job, compose_worker *w, int y)
{
    int k = y % 3;
    if (w->tag[k] != y) {
        squared_row(job, w, y, w->rgba[k], job->sharpness == 0.0f ? NULL : w->luma[k]);
        w->tag[k] = y;
    }
    return k;
}

static void compose_band(void *priv, int band, int worker)
{
    const compose_job *job = priv;
    const int out_w = job->dst->width, out_h = job->dst->height;
    const float k = job->sharpness;
    unsigned char *mem = job->workers + (size_t)worker * job->L.worker;
    compose_worker w;
    w.in_row = (float *)mem;
    mem += job->L.in_row;
    w.base_row = (float *)mem;
    mem += job->L.base_row;
    w.detail_row = (float *)mem;
    mem += job->L.detail_row;
    for (int i = 0; i < 3; i++) {
        w.rgba[i] = (float *)mem;
        mem += job->L.rgba_rows / 3;
    }
    for (int i = 0; i < 3; i++) {
        w.luma[i] = (float *)mem;
        mem += job->L.luma_rows / 3;
    }
    w.out_row = (float *)mem;
    w.tag[0] = w.tag[1] = w.tag[2] = -1;

    const int y_end = UPF_MIN(out_h, (band + 1) * job->band_rows);
    if (job->direct) {
        /* The sRGB base with nothing added into an sRGB-encoded image: the row's sRGB sums
         * are the output's colour, stored as they are (the way to linear light and back,
         * two powers a channel, gives the same codes but at rounding ties). */
        for (int y = band * job->band_rows; y < y_end; y++) {
            upf__base_row(job->frame, &job->base_cols, out_h, y, w.in_row, w.base_row);
            if (job->alpha_src)
                alpha_row(job, out_h, y, w.in_row, w.base_row);
            upf__row_from_encoded(job->dst, y, 0, out_w, w.base_row);
        }
        return;
    }
    for (int y = band * job->band_rows; y < y_end; y++) {
        const int c = row_slot(job, &w, y);
        const float *o = w.rgba[c];
        float *out = w.out_row;
        if (k == 0.0f && job->tone_max <= 0.0f) {
            /* Nothing to add or undo: the squared row is the output's. */
            upf__row_from_linear_ctx(job->ctx, job->dst, y, 0, out_w, o);
            continue;
        }
        if (k == 0.0f) {
            memcpy(out, o, (size_t)out_w * 4 * sizeof(float));
        } else {
            const float *L = w.luma[c];
            const float *Lu = w.luma[row_slot(job, &w, y > 0 ? y - 1 : 0)];
            const float *Ld = w.luma[row_slot(job, &w, y < out_h - 1 ? y + 1 : y)];
            for (int x = 0; x < out_w; x++) {
                const float left = L[x > 0 ? x - 1 : 0], right = L[x < out_w - 1 ? x + 1 : x];
                const float sharpen = k * (1.25f * L[x] - 0.3125f * (left + right + Lu[x] + Ld[x]));
                for (int ch = 0; ch < 3; ch++) {
                    float v = o[4 * x + ch] + sharpen;
                    out[4 * x + ch] = v > 0.0f ? v : 0.0f;
                }
                out[4 * x + 3] = o[4 * x + 3];
            }
        }
        if (job->tone_max > 0.0f) {
            /* Back from the tone map: c = c' / (1 - m'), m' the largest of R, G, B. */
            const float most = 1.0f + job->tone_max;
            for (int x = 0; x < out_w; x++) {
                float *p = out + 4 * x;
                float m = p[0] > p[1] ? p[0] : p[1];
                m = m > p[2] ? m : p[2];
                float scale = m < 1.0f ? 1.0f / (1.0f - m) : most;
                scale = scale < most ? scale : most;
                for (int ch = 0; ch < 3; ch++)
                    p[ch] *= scale;
            }
        }
        upf__row_from_linear_ctx(job->ctx, job->dst, y, 0, out_w, out);
    }
}

upf_result upf__compose_output(upf_context *ctx, const upf__sqrt_frame *frame,
                               const upf__detail_map *map, const upf_image *dst,
                               float sharpness, void *scratch, size_t scratch_bytes)
{
    return upf__compose_output_with(ctx, frame, map, dst, sharpness, NULL, 0.0f, scratch,
                                    scratch_bytes);
}

upf_result upf__compose_output_with(upf_context *ctx, const upf__sqrt_frame *frame,
                                    const upf__detail_map *map, const upf_image *dst,
                                    float sharpness, const float *alpha_src, float tone_max,
                                    void *scratch, size_t scratch_bytes)
{
    static const char fn[] = "upf__compose_output";
    upf_result r = upf__check_sqrt_frame(ctx, fn, frame);
    if (r != UPF_OK)
        return r;
    if ((r = upf__check_detail_map(ctx, fn, map, frame)) != UPF_OK)
        return r;
    if ((r = upf__check_image(ctx, fn, "destination image", dst, UPF_FMTS_COLOR, 0, 0)) != UPF_OK)
        return r;
    if ((r = upf__reconstruct_check_sizes(ctx, fn, frame->width, frame->height, dst->width,
                                          dst->height)) != UPF_OK)
        return r;
    if (!(sharpness >= 0.0f && sharpness <= UPF_SHARPNESS_MAX)) /* also NaN */
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: sharpness %g; expected 0 (off) "
                         "to %g (1 is the design's look)", fn, (double)sharpness,
                         (double)UPF_SHARPNESS_MAX);
    const int threads = upf_context_threads(ctx);
    size_t need = upf__compose_scratch_bytes(threads, frame->width, map->width, dst->width);
    if (!scratch || scratch_bytes < need)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: scratch of %zu bytes; expected "
                         "%zu", fn, scratch ? scratch_bytes : 0, need);

    const int out_w = dst->width, out_h = dst->height;
    unsigned char *mem = scratch;
    upf__tap *col_detail = (upf__tap *)(mem + upf__base_cols_bytes(out_w));
    for (int x = 0; x < out_w; x++)
        col_detail[x] = upf__tap_at(x, 12LL * map->in_width, (long long)map->step * out_w,
                                    map->width);
    compose_job job = { frame, map, dst, sharpness, alpha_src, tone_max,
                        upf__base_cols_init(ctx, map->flags, frame->width, out_w, mem),
                        col_detail,
                        mem + compose_shared_bytes(out_w),
                        compose_sizes(frame->width, map->width, out_w), 0, 0, ctx };
    /* The direct store (compose_band): the sRGB base, a map of zeros, no sharpen, no tone
     * map, an sRGB-encoded destination. */
    job.direct = job.base_cols.srgb && map->zero && sharpness == 0.0f && !(tone_max > 0.0f) &&
                 (dst->format == UPF_FORMAT_RGBA8_SRGB || dst->format == UPF_FORMAT_RGBA16_SRGB);
    job.base_cols.srgb_sums = job.direct;
    /* Bands of at least 16 rows, about four per worker: each band recomputes the two rows
     * around it for the sharpen. Values do not depend on the banding. */
    job.band_rows = UPF_MAX(16, (out_h + 4 * threads - 1) / (4 * threads));
    upf__parallel_for(ctx, compose_band, &job, (out_h + job.band_rows - 1) / job.band_rows);
    return UPF_OK;
}

upf_result upf__compose_pass(const upf__pass_args *a)
{
    const upf__compose_con *con = a->con;
    const upf__sqrt_frame frame = { a->surface[UPF__SP_FRAME].data, con->in_width,
                                    con->in_height, 0 };
    upf__detail_map map;
    upf__detail_map_init(&map, con->step, con->flags, con->in_width, con->in_height,
                         a->surface[UPF__SP_DETAIL].data);
    /* A model of strength 0: the detail pass made (or left) a map of zeros. */
    const upf__spatial_cpu *cpu = a->engine;
    map.zero = cpu && cpu->model && cpu->model->detail_strength == 0.0f;
    /* An opaque frame's alpha is 1 in the frame too: the full-precision path only when some
     * alpha is below 1 (range B), the tone map only when convert applied one (range R). */
    const float *range = a->surface[UPF__SP_RANGE].data;
    return upf__compose_output_with(a->ctx, &frame, &map, a->surface[UPF__SP_DEST].image,
                                    con->sharpness,
                                    range[2] > 0.0f ? a->surface[UPF__SP_LINEAR].data : NULL,
                                    range[0] > 0.0f ? range[1] : 0.0f, a->scratch,
                                    a->scratch_bytes);
}

/* ---- both ------------------------------------------------------------------------------- */

size_t upf__reconstruct_scratch_bytes(int threads, int step, int in_w, int in_h, int out_w)
{
    upf__detail_map m;
    upf__detail_map_init(&m, step, 0, in_w, in_h, NULL);
    size_t detail = upf__detail_scratch_bytes(threads);
    size_t compose = upf__compose_scratch_bytes(threads, in_w, m.width, out_w);
    return upf__detail_map_bytes(step, in_w, in_h) + UPF_MAX(detail, compose);
}

upf_result upf__reconstruct(upf_context *ctx, const upf__net_model *model,
                            const upf__sqrt_frame *frame, const upf_image *dst, float sharpness,
                            void *scratch, size_t scratch_bytes)
{
    static const char fn[] = "upf__reconstruct";
    upf_result r = upf__check_sqrt_frame(ctx, fn, frame);
    if (r != UPF_OK)
        return r;
    if (!model)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model is NULL", fn);
    if ((r = upf__check_image(ctx, fn, "destination image", dst, UPF_FMTS_COLOR, 0, 0)) != UPF_OK)
        return r;
    if ((r = upf__reconstruct_check_sizes(ctx, fn, frame->width, frame->height, dst->width,
                                          dst->height)) != UPF_OK)
        return r;
    size_t need = upf__reconstruct_scratch_bytes(upf_context_threads(ctx), model->step,
                                                 frame->width, frame->height, dst->width);
    if (!scratch || scratch_bytes < need)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: scratch of %zu bytes; expected "
                         "%zu", fn, scratch ? scratch_bytes : 0, need);
    upf__detail_map map;
    upf__detail_map_init(&map, model->step, model->flags, frame->width, frame->height, scratch);
    size_t map_bytes = upf__detail_map_bytes(model->step, frame->width, frame->height);
    unsigned char *rest = (unsigned char *)scratch + map_bytes;
    if ((r = upf__make_detail_map(ctx, model, frame, &map, rest, scratch_bytes - map_bytes)) != UPF_OK)
        return r;
    return upf__compose_output(ctx, frame, &map, dst, sharpness, rest, scratch_bytes - map_bytes);
}
