/* inpaint.c: the frame generation engine's inpaint pass (docs/FRAMEGEN.md, "inpaint"): the
 * pixels of the made frame that neither frame sees, filled from the colours around them.
 *
 * Reads: resolved (alpha 1 where resolved, 0 in a hole). Writes: colour pyramid (levels 1..),
 * inpainted (alpha 1).
 *
 * Push-pull (Gortler, Grzeszczuk, Szeliski and Cohen 1996, "The lumigraph", section 3.3):
 * down, each pixel of level l + 1 is the alpha-weighted mean of its 2x2 children, with alpha
 * the children's summed alpha capped at 1; up, from the coarsest level, each pixel keeps
 * alpha of itself and takes 1 - alpha of the bilinear sample of the filled level above. A
 * hole thus takes the colours at its rim, smoothly, however large. Without holes it is a copy
 * (every pixel has alpha 1 and keeps itself). The structure is fixed: every level is made on
 * every run, holes or not, with no scan of the frame first (a GPU records one dispatch a level
 * down and one a level up without reading anything back).
 * Work: one task per row of each level. */
#include <string.h>

#include "framegen/framegen_passes.h"

typedef struct inpaint_job {
    const upf__fg_inpaint_con *con;
    const float *resolved;
    float *atlas, *out;
    int level;
} inpaint_job;

static float *level_ptr(const inpaint_job *j, int l)
{
    const int W = j->con->width, H = j->con->height;
    if (l == 0)
        return (float *)j->resolved;
    return j->atlas + (size_t)(upf__fg_level_row(H, l) - H) * W * 4;
}

static void down_row(void *priv, int y, int worker)
{
    (void)worker;
    const inpaint_job *j = priv;
    const int W = j->con->width, H = j->con->height, l = j->level;
    const int cw = upf__fg_level_size(W, l - 1), ch = upf__fg_level_size(H, l - 1);
    const float *src = level_ptr(j, l - 1);
    float *dst = level_ptr(j, l) + (size_t)y * W * 4;
    for (int x = 0; x < upf__fg_level_size(W, l); x++) {
        float sum[4] = { 0 };
        for (int k = 0; k < 4; k++) {
            int cx = 2 * x + (k & 1), cy = 2 * y + (k >> 1);
            if (cx >= cw || cy >= ch)
                continue;
            const float *c = src + ((size_t)cy * W + cx) * 4;
            for (int ch_ = 0; ch_ < 3; ch_++)
                sum[ch_] += c[ch_] * c[3];
            sum[3] += c[3];
        }
        float *o = dst + 4 * x;
        if (sum[3] > 0.0f) {
            for (int c = 0; c < 3; c++)
                o[c] = sum[c] / sum[3];
            o[3] = sum[3] < 1.0f ? sum[3] : 1.0f;
        } else {
            o[0] = o[1] = o[2] = o[3] = 0.0f;
        }
    }
}

/* Bilinear sample of level l (w x h pixels in rows of W) at the centre of pixel (x, y) of
 * level l - 1. */
static void sample_parent(const float *lev, int W, int w, int h, int x, int y, float *o)
{
    float px = ((float)x + 0.5f) * 0.5f, py = ((float)y + 0.5f) * 0.5f;
    float fx = px - 0.5f, fy = py - 0.5f;
    int x0 = (int)(fx < 0.0f ? -1 : fx), y0 = (int)(fy < 0.0f ? -1 : fy);
    float ax = fx - (float)x0, ay = fy - (float)y0;
    int xa = UPF_CLAMP(x0, 0, w - 1), xb = UPF_CLAMP(x0 + 1, 0, w - 1);
    int ya = UPF_CLAMP(y0, 0, h - 1), yb = UPF_CLAMP(y0 + 1, 0, h - 1);
    const float *p00 = lev + ((size_t)ya * W + xa) * 4, *p01 = lev + ((size_t)ya * W + xb) * 4;
    const float *p10 = lev + ((size_t)yb * W + xa) * 4, *p11 = lev + ((size_t)yb * W + xb) * 4;
    for (int k = 0; k < 3; k++) {
        float top = p00[k] + ax * (p01[k] - p00[k]);
        float bot = p10[k] + ax * (p11[k] - p10[k]);
        o[k] = top + ay * (bot - top);
    }
}

static void up_row(void *priv, int y, int worker)
{
    (void)worker;
    const inpaint_job *j = priv;
    const int W = j->con->width, H = j->con->height, l = j->level;
    const int w = upf__fg_level_size(W, l);
    const float *parent = level_ptr(j, l + 1);
    const int pw = upf__fg_level_size(W, l + 1), ph = upf__fg_level_size(H, l + 1);
    float *row = l == 0 ? j->out + (size_t)y * W * 4 : level_ptr(j, l) + (size_t)y * W * 4;
    const float *src = level_ptr(j, l) + (size_t)y * W * 4;
    for (int x = 0; x < w; x++) {
        const float *c = src + 4 * x;
        float *o = row + 4 * x;
        if (c[3] >= 1.0f) {
            memcpy(o, c, 4 * sizeof(float));
            continue;
        }
        float p[3];
        sample_parent(parent, W, pw, ph, x, y, p);
        for (int k = 0; k < 3; k++)
            o[k] = c[3] * c[k] + (1.0f - c[3]) * p[k];
        o[3] = 1.0f;
    }
}

upf_result upf__fg_inpaint_pass(const upf__pass_args *a)
{
    const upf__fg_inpaint_con *con = a->con;
    const upf__surface *s = a->surface;
    const int W = con->width, H = con->height;
    const float *res = s[UPF__FG_RESOLVED].data;
    float *out = s[UPF__FG_INPAINTED].data;
    if (con->levels < 2) {
        /* a 1 x 1 frame: nothing to pull from */
        for (size_t i = 0; i < (size_t)W * H; i++) {
            memcpy(out + 4 * i, res + 4 * i, 3 * sizeof(float));
            out[4 * i + 3] = 1.0f;
        }
        return UPF_OK;
    }
    inpaint_job job = { con, res, s[UPF__FG_COLOR_PYRAMID].data, out, 0 };
    for (int l = 1; l < con->levels; l++) {
        job.level = l;
        upf__parallel_for(a->ctx, down_row, &job, upf__fg_level_size(H, l));
    }
    float *top = level_ptr(&job, con->levels - 1);
    const int tw = upf__fg_level_size(W, con->levels - 1);
    const int th = upf__fg_level_size(H, con->levels - 1);
    for (int y = 0; y < th; y++)
        for (int x = 0; x < tw; x++)
            top[((size_t)y * W + x) * 4 + 3] = 1.0f; /* no information at all: black */
    for (int l = con->levels - 2; l >= 0; l--) {
        job.level = l;
        upf__parallel_for(a->ctx, up_row, &job, upf__fg_level_size(H, l));
    }
    return UPF_OK;
}
