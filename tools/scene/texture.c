/* texture.c: the renderer's textures: power-of-two RGBA float images with full mip chains,
 * sampled with wrap-around bilinear filtering within a level and linear blending between
 * levels (trilinear), at a level of detail from screen-space derivatives plus a bias.
 *
 * Reads level 0 written by texture_gen.c; writes the other levels. Texel (i, j) of a level
 * w x h covers u in [i / w, (i + 1) / w), its centre at (i + 0.5) / w (as in OpenGL). */
#include <math.h>
#include <string.h>

#include "scene/scene_internal.h"

static bool is_pow2(int v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

upf_result scene__texture_alloc(upf_context *ctx, scene_texture *t, int width, int height)
{
    memset(t, 0, sizeof *t);
    if (!is_pow2(width) || !is_pow2(height) || width > 4096 || height > 4096)
        return upf__fail(ctx, UPF_ERROR_INTERNAL, "scene texture: size %dx%d; expected powers "
                         "of two up to 4096", width, height);
    size_t total = 0;
    int w = width, h = height, levels = 0;
    for (;;) {
        t->w[levels] = w;
        t->h[levels] = h;
        total += (size_t)w * (size_t)h * 4;
        levels++;
        if (w == 1 && h == 1)
            break;
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : 1;
    }
    t->levels = levels;
    t->data = upf__alloc_array(ctx, total, sizeof(float), "scene texture");
    if (!t->data)
        return UPF_ERROR_OUT_OF_MEMORY;
    float *p = t->data;
    for (int l = 0; l < levels; l++) {
        t->level[l] = p;
        p += (size_t)t->w[l] * (size_t)t->h[l] * 4;
    }
    return UPF_OK;
}

void scene__texture_free(upf_context *ctx, scene_texture *t)
{
    upf__free(ctx, t->data);
    upf__free(ctx, t->alpha_data);
    memset(t, 0, sizeof *t);
}

/* Share of texels of a level whose alpha times `scale` reaches `cutoff`. */
static double coverage(const scene_texture *t, int l, float scale, float cutoff)
{
    const float *p = t->level[l];
    size_t n = (size_t)t->w[l] * (size_t)t->h[l], passed = 0;
    for (size_t i = 0; i < n; i++)
        passed += p[4 * i + 3] * scale >= cutoff;
    return (double)passed / (double)n;
}

upf_result scene__texture_build_mips(upf_context *ctx, scene_texture *t, float cutoff)
{
    for (int l = 1; l < t->levels; l++) {
        int w = t->w[l], h = t->h[l], pw = t->w[l - 1], ph = t->h[l - 1];
        const float *src = t->level[l - 1];
        float *dst = t->level[l];
        /* A 2x2 box (or 2x1 / 1x2 where one side has reached 1 texel): the average of the
         * parent texels this texel covers, in linear light. */
        int sx = pw > w ? 2 : 1, sy = ph > h ? 2 : 1;
        float norm = 1.0f / (float)(sx * sy);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                float acc[4] = { 0, 0, 0, 0 };
                for (int j = 0; j < sy; j++)
                    for (int i = 0; i < sx; i++) {
                        const float *q = src + 4 * ((size_t)(y * sy + j) * (size_t)pw +
                                                    (size_t)(x * sx + i));
                        for (int c = 0; c < 4; c++)
                            acc[c] += q[c];
                    }
                float *d = dst + 4 * ((size_t)y * (size_t)w + (size_t)x);
                for (int c = 0; c < 4; c++)
                    d[c] = acc[c] * norm;
            }
        }
    }
    t->alpha_tested = cutoff > 0.0f;
    if (!t->alpha_tested)
        return UPF_OK;
    /* Coverage-preserving alpha (Castano 2010): find the scale that keeps level 0's share of
     * passing texels, by bisection on a monotone function, and apply it. */
    double target = coverage(t, 0, 1.0f, cutoff);
    for (int l = 1; l < t->levels; l++) {
        float lo = 0.0f, hi = 8.0f;
        for (int it = 0; it < 24; it++) {
            float mid = 0.5f * (lo + hi);
            if (coverage(t, l, mid, cutoff) < target)
                lo = mid;
            else
                hi = mid;
        }
        float *p = t->level[l];
        size_t n = (size_t)t->w[l] * (size_t)t->h[l];
        for (size_t i = 0; i < n; i++)
            p[4 * i + 3] = fminf(1.0f, p[4 * i + 3] * hi);
    }
    /* the alpha planes */
    size_t total = 0;
    for (int l = 0; l < t->levels; l++)
        total += (size_t)t->w[l] * (size_t)t->h[l];
    t->alpha_data = upf__alloc_array(ctx, total, sizeof(float), "scene texture");
    if (!t->alpha_data)
        return UPF_ERROR_OUT_OF_MEMORY;
    float *a = t->alpha_data;
    for (int l = 0; l < t->levels; l++) {
        size_t n = (size_t)t->w[l] * (size_t)t->h[l];
        t->alpha[l] = a;
        for (size_t i = 0; i < n; i++)
            a[i] = t->level[l][4 * i + 3];
        a += n;
    }
    return UPF_OK;
}

float scene__texture_lod(const scene_texture *t, float dudx, float dvdx, float dudy, float dvdy)
{
    /* rho = max(|d(u,v)/dx|, |d(u,v)/dy|) in texels of level 0; lod = log2(rho). */
    float w = (float)t->w[0], h = (float)t->h[0];
    float ax = dudx * w, bx = dvdx * h, ay = dudy * w, by = dvdy * h;
    float rx = ax * ax + bx * bx, ry = ay * ay + by * by;
    float rho2 = rx > ry ? rx : ry;
    if (!(rho2 > 1e-30f))
        return -64.0f;
    return 0.5f * log2f(rho2);
}

/* Bilinear sample of level l at (u, v) with wrap-around: the four texels around
 * (u w - 0.5, v h - 0.5) weighted by their distances. */
static void bilinear(const scene_texture *t, int l, float u, float v, float out[4])
{
    int w = t->w[l], h = t->h[l];
    float x = (u - floorf(u)) * (float)w - 0.5f;
    float y = (v - floorf(v)) * (float)h - 0.5f;
    float fx0 = floorf(x), fy0 = floorf(y);
    float fx = x - fx0, fy = y - fy0;
    int x0 = ((int)fx0) & (w - 1), y0 = ((int)fy0) & (h - 1);
    int x1 = (x0 + 1) & (w - 1), y1 = (y0 + 1) & (h - 1);
    const float *p = t->level[l];
    const float *a = p + 4 * ((size_t)y0 * (size_t)w + (size_t)x0);
    const float *b = p + 4 * ((size_t)y0 * (size_t)w + (size_t)x1);
    const float *c = p + 4 * ((size_t)y1 * (size_t)w + (size_t)x0);
    const float *d = p + 4 * ((size_t)y1 * (size_t)w + (size_t)x1);
    float w00 = (1.0f - fx) * (1.0f - fy), w10 = fx * (1.0f - fy);
    float w01 = (1.0f - fx) * fy, w11 = fx * fy;
    for (int k = 0; k < 4; k++)
        out[k] = a[k] * w00 + b[k] * w10 + c[k] * w01 + d[k] * w11;
}

void scene__texture_sample(const scene_texture *t, float u, float v, float lod, float out[4])
{
    float maxl = (float)(t->levels - 1);
    if (!(lod > 0.0f)) /* magnification (and NaN): level 0 */
        lod = 0.0f;
    if (lod >= maxl) {
        bilinear(t, t->levels - 1, u, v, out);
        return;
    }
    int l0 = (int)lod;
    float f = lod - (float)l0;
    bilinear(t, l0, u, v, out);
    if (f > 0.0f) {
        float o1[4];
        bilinear(t, l0 + 1, u, v, o1);
        for (int k = 0; k < 4; k++)
            out[k] += (o1[k] - out[k]) * f;
    }
}

/* Alpha alone, bilinear in level l of the alpha planes (as bilinear() does for RGBA). */
static float bilinear_alpha(const scene_texture *t, int l, float u, float v)
{
    int w = t->w[l], h = t->h[l];
    float x = (u - floorf(u)) * (float)w - 0.5f;
    float y = (v - floorf(v)) * (float)h - 0.5f;
    float fx0 = floorf(x), fy0 = floorf(y);
    float fx = x - fx0, fy = y - fy0;
    int x0 = ((int)fx0) & (w - 1), y0 = ((int)fy0) & (h - 1);
    int x1 = (x0 + 1) & (w - 1), y1 = (y0 + 1) & (h - 1);
    const float *p = t->alpha[l];
    float a = p[(size_t)y0 * (size_t)w + (size_t)x0], b = p[(size_t)y0 * (size_t)w + (size_t)x1];
    float c = p[(size_t)y1 * (size_t)w + (size_t)x0], d = p[(size_t)y1 * (size_t)w + (size_t)x1];
    return (a * (1.0f - fx) + b * fx) * (1.0f - fy) + (c * (1.0f - fx) + d * fx) * fy;
}

float scene__texture_sample_alpha(const scene_texture *t, float u, float v, float lod)
{
    int l = lod > 0.0f ? (int)(lod + 0.5f) : 0; /* the nearest level */
    if (l > t->levels - 1)
        l = t->levels - 1;
    return bilinear_alpha(t, l, u, v);
}
