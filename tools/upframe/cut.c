/* cut.c: cut.h. Reads two frames (any colour format); writes a score. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cut.h"

#define CUT_W 64
#define CUT_H 36
#define CUT_SHIFT 4

/* The frame at 64x36, grey 0..1 (sRGB-encoded, as the eye compares). */
static bool small_grey(upf_context *ctx, const upf_image *src, float *grey)
{
    uint8_t px[CUT_W * CUT_H * 4];
    upf_image dst = { px, CUT_W, CUT_H, 0, UPF_FORMAT_RGBA8_SRGB };
    if (upf_resample(ctx, src, &dst, UPF_FILTER_BILINEAR) != UPF_OK)
        return false;
    for (int i = 0; i < CUT_W * CUT_H; i++)
        grey[i] = (float)(px[4 * i] + px[4 * i + 1] + px[4 * i + 2]) / (3.0f * 255.0f);
    return true;
}

/* Mean absolute difference of a and b shifted by (dx, dy), over their overlap. */
static double shifted_difference(const float *a, const float *b, int dx, int dy)
{
    double sum = 0;
    int n = 0;
    for (int y = dy > 0 ? dy : 0; y < CUT_H + (dy < 0 ? dy : 0); y++)
        for (int x = dx > 0 ? dx : 0; x < CUT_W + (dx < 0 ? dx : 0); x++, n++)
            sum += fabsf(a[y * CUT_W + x] - b[(y - dy) * CUT_W + (x - dx)]);
    return sum / n;
}

static double deviation(const float *g)
{
    double mean = 0, dev = 0;
    for (int i = 0; i < CUT_W * CUT_H; i++)
        mean += g[i];
    mean /= CUT_W * CUT_H;
    for (int i = 0; i < CUT_W * CUT_H; i++)
        dev += fabs(g[i] - mean);
    return dev / (CUT_W * CUT_H);
}

double cli_cut_score(upf_context *ctx, const upf_image *a, const upf_image *b)
{
    float ga[CUT_W * CUT_H], gb[CUT_W * CUT_H];
    if (!small_grey(ctx, a, ga) || !small_grey(ctx, b, gb))
        return -1;
    double best = INFINITY;
    for (int dy = -CUT_SHIFT; dy <= CUT_SHIFT; dy++)
        for (int dx = -CUT_SHIFT; dx <= CUT_SHIFT; dx++)
            best = fmin(best, shifted_difference(ga, gb, dx, dy));
    const double contrast = (deviation(ga) + deviation(gb)) / 2;
    return best / fmax(contrast, 1e-3);
}
