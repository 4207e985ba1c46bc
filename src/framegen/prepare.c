/* prepare.c: the frame generation engine's first pass (docs/FRAMEGEN.md, "prepare"): both
 * frames to linear light, their luma pyramids for the optical flow, and their luma histograms
 * for the scene pass.
 *
 * Reads: colour prev, colour (host, any colour format). Writes: linear prev, linear (RGBA32F,
 * alpha 1, each value rounded to 12 bits of mantissa: upf__fg_linear_round, which the GPU
 * keeps in 8 bytes a pixel), luma prev, luma (r32f atlases; only when the flow runs: levels >
 * 0), histograms.
 *
 * Luma is the square root of the Rec. 709 luma of the (rounded) linear colour clamped to
 * [0, 1] (close to how bright it looks, so block matching weighs dark and bright detail
 * alike), stored as a 12-bit code k / 4096, k = round(4095 v) (upf__fg_luma_code): every
 * sum of luma differences or of their products is then a sum of integers (or of multiples of
 * 2^-12), exact in any order, so the flow's GPU shaders may sum over lanes in any layout and still give the CPU's
 * floats (docs/FRAMEGEN.md, "flow"). A step of 1/4095 is under a tenth of the step between
 * any two neighbouring 8-bit sRGB greys in this scale (the least, 0.0028, between codes 10
 * and 11), well below the contrast block matching relies on. Level l + 1 of a pyramid is the
 * 2x2 box mean of level l (the last row or column repeated on an odd side), rounded to a code
 * (half up). The histograms count level-0 luma (or, without a pyramid, the luma of each
 * pixel, as a code too) in 32 bins: the whole frame, then each of a 4 x 4 grid of regions. A
 * float frame with a NaN or infinite value fails with UPF_ERROR_BAD_DATA naming the pixel.
 * Work: one task per row, then one per row of each level; the histograms serially (a GPU:
 * atomic adds). */
#include <math.h>
#include <string.h>

#include "core/color.h"
#include "core/image.h"
#include "framegen/framegen_passes.h"

typedef struct prep_job {
    const upf__fg_prepare_con *con;
    const upf_image *in[2];
    float *lin[2];
    float *luma[2]; /* level 0 of each pyramid, width floats a row: the atlases', or with
                     * first > 0 the scratch's (the atlases hold levels first ..) */
    int *bad;      /* per row and frame: the x of the first non-finite pixel, or -1 */
} prep_job;

static void prep_row(void *priv, int y, int worker)
{
    (void)worker;
    const prep_job *job = priv;
    const int W = job->con->width;
    for (int f = 0; f < 2; f++) {
        float *row = job->lin[f] + (size_t)y * W * 4;
        int bad = upf__row_to_linear(job->in[f], y, 0, W, row);
        job->bad[2 * y + f] = bad;
        if (bad >= 0)
            continue;
        for (int x = 0; x < W; x++) { /* the GPU's 8 bytes a pixel: upf__fg_linear_round */
            for (int k = 0; k < 3; k++)
                row[4 * x + k] = upf__fg_linear_round(row[4 * x + k]);
            row[4 * x + 3] = 1.0f;
        }
        if (job->luma[f]) {
            float *l = job->luma[f] + (size_t)y * W;
            for (int x = 0; x < W; x++) {
                float v = upf_luma(row[4 * x], row[4 * x + 1], row[4 * x + 2]);
                l[x] = upf__fg_luma_code(sqrtf(v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f));
            }
        }
    }
}

typedef struct down_job {
    int w, h, nw;          /* level l's size and level l + 1's width */
    int src_stride, dst_stride; /* floats a row of level l's rows and of level l + 1's */
    const float *src[2];
    float *dst[2];
} down_job;

static void down_row(void *priv, int y, int worker)
{
    (void)worker;
    const down_job *j = priv;
    int y0 = 2 * y, y1 = UPF_MIN(2 * y + 1, j->h - 1);
    for (int f = 0; f < 2; f++) {
        const float *r0 = j->src[f] + (size_t)y0 * j->src_stride;
        const float *r1 = j->src[f] + (size_t)y1 * j->src_stride;
        float *o = j->dst[f] + (size_t)y * j->dst_stride;
        for (int x = 0; x < j->nw; x++) {
            int x0 = 2 * x, x1 = UPF_MIN(2 * x + 1, j->w - 1);
            o[x] = upf__fg_luma_mean(r0[x0], r0[x1], r1[x0], r1[x1]);
        }
    }
}

size_t upf__fg_prepare_scratch_bytes(int width, int height, int first)
{
    const size_t level0 = first > 0 ? 2 * (size_t)width * height * sizeof(float) : 0;
    return (size_t)height * 2 * sizeof(int) + level0;
}

static void histograms(const prep_job *job, uint32_t *hist)
{
    const int W = job->con->width, H = job->con->height;
    memset(hist, 0, sizeof(uint32_t) * 2 * UPF__FG_HIST_REGIONS * UPF__FG_HIST_BINS);
    for (int f = 0; f < 2; f++) {
        uint32_t *h = hist + (size_t)f * UPF__FG_HIST_REGIONS * UPF__FG_HIST_BINS;
        for (int y = 0; y < H; y++) {
            const float *lrow = job->luma[f] ? job->luma[f] + (size_t)y * W : NULL;
            const float *crow = job->lin[f] + (size_t)y * W * 4;
            int ry = (int)((long)y * 4 / H);
            for (int x = 0; x < W; x++) {
                float v;
                if (lrow) {
                    v = lrow[x];
                } else {
                    float l = upf_luma(crow[4 * x], crow[4 * x + 1], crow[4 * x + 2]);
                    v = upf__fg_luma_code(sqrtf(l > 0.0f ? (l < 1.0f ? l : 1.0f) : 0.0f));
                }
                int bin = (int)(v * UPF__FG_HIST_BINS);
                bin = UPF_CLAMP(bin, 0, UPF__FG_HIST_BINS - 1);
                int region = 1 + ry * 4 + (int)((long)x * 4 / W);
                h[bin]++;
                h[region * UPF__FG_HIST_BINS + bin]++;
            }
        }
    }
}

upf_result upf__fg_prepare_pass(const upf__pass_args *a)
{
    const upf__fg_prepare_con *con = a->con;
    const upf__surface *s = a->surface;
    const bool pyr = con->levels > 0;
    const int W = con->width, H = con->height, first = pyr ? con->first : 0;
    float *atlas[2] = { pyr ? s[UPF__FG_LUMA_PREV].data : NULL, pyr ? s[UPF__FG_LUMA].data : NULL };
    float *level0 = (float *)((int *)a->scratch + 2 * (size_t)H); /* first > 0: level 0 */
    prep_job job = { con, { s[UPF__FG_COLOR_PREV].image, s[UPF__FG_COLOR].image },
                     { s[UPF__FG_LINEAR_PREV].data, s[UPF__FG_LINEAR].data },
                     { first > 0 ? level0 : atlas[0],
                       first > 0 ? level0 + (size_t)W * H : atlas[1] },
                     a->scratch };
    upf__parallel_for(a->ctx, prep_row, &job, con->height);
    for (int y = 0; y < con->height; y++)
        for (int f = 0; f < 2; f++)
            if (job.bad[2 * y + f] >= 0)
                return upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: %s has a NaN or infinite "
                                 "value at pixel (%d, %d); expected finite colour", a->fn,
                                 f ? "color (frame N)" : "prev_color (frame N-1)",
                                 job.bad[2 * y + f], y);
    /* level l + 1 from level l: level k >= first at the atlas's rows of level k - first of
     * the level-`first` frame, its width a row; level 0 below first in job.luma */
    const int aw = upf__fg_level_size(W, first), ah = upf__fg_level_size(H, first);
    for (int l = 0; pyr && l + 1 < con->levels; l++) {
        const int w = upf__fg_level_size(W, l), h = upf__fg_level_size(H, l);
        const bool in_atlas = l >= first;
        const size_t r0 = in_atlas ? (size_t)upf__fg_level_row(ah, l - first) * aw : 0;
        const size_t r1 = (size_t)upf__fg_level_row(ah, l + 1 - first) * aw;
        const float *src[2] = { in_atlas ? atlas[0] + r0 : job.luma[0],
                                in_atlas ? atlas[1] + r0 : job.luma[1] };
        down_job d = { w, h, upf__fg_level_size(W, l + 1), in_atlas ? aw : W, aw,
                       { src[0], src[1] }, { atlas[0] + r1, atlas[1] + r1 } };
        upf__parallel_for(a->ctx, down_row, &d, upf__fg_level_size(H, l + 1));
    }
    histograms(&job, s[UPF__FG_HISTOGRAMS].data);
    return UPF_OK;
}
