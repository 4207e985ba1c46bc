/* texture_gen.c: the procedural textures of the scenes (brick, stone, fine floor tiles,
 * wood, metal, bark, leaves, grass, ground, hills, asphalt, pavement, concrete, windows,
 * marble, plaster, books, a clock face, signs with text), each tileable (built from
 * lattice noise whose period divides the texture) and seeded. Writes level 0 of a texture
 * in linear light and builds its mips (texture.c).
 *
 * Alpha: for alpha-tested textures (leaves, grass) it is coverage; for the others it is a
 * gloss mask that scales the material's specular and sky reflection (1 = full). */
#include <math.h>
#include <string.h>

#include "core/color.h"
#include "scene/scene_internal.h"

vec3 scene__rgb(uint32_t hex)
{
    return v3(upf_srgb_to_linear((float)((hex >> 16) & 255) / 255.0f),
              upf_srgb_to_linear((float)((hex >> 8) & 255) / 255.0f),
              upf_srgb_to_linear((float)(hex & 255) / 255.0f));
}

/* ---- tileable value noise ---- */

static float lattice(int x, int y, int period, uint32_t seed)
{
    x = ((x % period) + period) % period;
    y = ((y % period) + period) % period;
    return scene_unit(scene_hash3((uint32_t)x, (uint32_t)y, seed));
}

/* Value noise in [0, 1) with `period` lattice cells across the texture (u, v in [0, 1)),
 * smoothstep-interpolated, so it tiles with the texture. */
static float vnoise(float u, float v, int period, uint32_t seed)
{
    float x = u * (float)period, y = v * (float)period;
    float fx0 = floorf(x), fy0 = floorf(y);
    int xi = (int)fx0, yi = (int)fy0;
    float fx = x - fx0, fy = y - fy0;
    fx = fx * fx * (3.0f - 2.0f * fx);
    fy = fy * fy * (3.0f - 2.0f * fy);
    float a = lattice(xi, yi, period, seed), b = lattice(xi + 1, yi, period, seed);
    float c = lattice(xi, yi + 1, period, seed), d = lattice(xi + 1, yi + 1, period, seed);
    return scene_lerpf(scene_lerpf(a, b, fx), scene_lerpf(c, d, fx), fy);
}

/* Value noise with different periods across (px) and down (py): stretched, still tileable. */
static float vnoise2(float u, float v, int px, int py, uint32_t seed)
{
    float x = u * (float)px, y = v * (float)py;
    float fx0 = floorf(x), fy0 = floorf(y);
    int xi = (int)fx0, yi = (int)fy0;
    float fx = x - fx0, fy = y - fy0;
    fx = fx * fx * (3.0f - 2.0f * fx);
    fy = fy * fy * (3.0f - 2.0f * fy);
    int x0 = ((xi % px) + px) % px, x1 = (x0 + 1) % px, y0 = ((yi % py) + py) % py, y1 = (y0 + 1) % py;
    float a = scene_unit(scene_hash3((uint32_t)x0, (uint32_t)y0, seed));
    float b = scene_unit(scene_hash3((uint32_t)x1, (uint32_t)y0, seed));
    float c = scene_unit(scene_hash3((uint32_t)x0, (uint32_t)y1, seed));
    float d = scene_unit(scene_hash3((uint32_t)x1, (uint32_t)y1, seed));
    return scene_lerpf(scene_lerpf(a, b, fx), scene_lerpf(c, d, fx), fy);
}

/* Fractal sum of `octaves` noises, periods period, 2 period, ..., amplitudes halving;
 * normalised to [0, 1). */
static float fbm(float u, float v, int period, int octaves, uint32_t seed)
{
    float sum = 0.0f, amp = 1.0f, norm = 0.0f;
    for (int o = 0; o < octaves; o++) {
        sum += amp * vnoise(u, v, period << o, seed + 7919u * (uint32_t)o);
        norm += amp;
        amp *= 0.5f;
    }
    return sum / norm;
}

/* Per-texel white noise in [0, 1). */
static float grain(int x, int y, uint32_t seed)
{
    return scene_unit(scene_hash3((uint32_t)x, (uint32_t)y, seed ^ 0x51ed27u));
}

static void put(float *p, vec3 c, float a)
{
    p[0] = fmaxf(c.x, 0.0f);
    p[1] = fmaxf(c.y, 0.0f);
    p[2] = fmaxf(c.z, 0.0f);
    p[3] = scene_clampf(a, 0.0f, 1.0f);
}

/* A random partition of [0, 1) into n parts of roughly equal size (+-spread). */
static void partition(scene_rng *rng, float *cuts, int n, float spread)
{
    float sum = 0.0f, w[64];
    for (int i = 0; i < n; i++) {
        w[i] = 1.0f + scene_rng_range(rng, -spread, spread);
        sum += w[i];
    }
    float acc = 0.0f;
    cuts[0] = 0.0f;
    for (int i = 0; i < n; i++) {
        acc += w[i] / sum;
        cuts[i + 1] = acc;
    }
    cuts[n] = 1.0f;
}

static int find_cell(const float *cuts, int n, float x)
{
    int i = 0;
    while (i < n - 1 && x >= cuts[i + 1])
        i++;
    return i;
}

/* ---- generators: each writes level 0 ---- */

/* The texels of rows [y0, y1) (a generator writes one band of rows per call). */
#define FOR_TEXELS(t)                                                                     \
    for (int y = y0; y < y1; y++)                                                         \
        for (int x = 0; x < (t)->w[0]; x++)

#define TEXEL(t) ((t)->level[0] + 4 * ((size_t)y * (size_t)(t)->w[0] + (size_t)x))
#define UCOORD(t) (((float)x + 0.5f) / (float)(t)->w[0])
#define VCOORD(t) (((float)y + 0.5f) / (float)(t)->h[0])

/* Bricks, 5 per course, 8 courses (one repeat = 1.2 m x 0.6 m), stretcher bond. */
static void gen_brick(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 mortar = scene__rgb(0xa39d8f), base = scene__rgb(0x9a4a32);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float cv = v * 8.0f;
        int course = (int)cv;
        float fv = cv - (float)course;
        float bu = u * 5.0f + ((course & 1) ? 0.5f : 0.0f);
        int brick = (int)bu;
        float fu = bu - (float)brick;
        brick %= 5;
        /* distance to the brick's edge in metres (bricks 0.24 x 0.075 m) */
        float edge = fminf(fminf(fu, 1.0f - fu) * 0.24f, fminf(fv, 1.0f - fv) * 0.075f);
        uint32_t h = scene_hash3((uint32_t)brick, (uint32_t)course, seed);
        float shade = 0.7f + 0.55f * scene_unit(h);
        float hue = scene_unit(scene_hash32(h)) - 0.5f;
        vec3 c = v3_mul(base, v3(shade * (1.0f + 0.25f * hue), shade, shade * (1.0f - 0.2f * hue)));
        float n = fbm(u, v, 16, 4, seed + 1);
        c = v3_scale(c, 0.75f + 0.5f * n * (0.8f + 0.4f * grain(x, y, seed)));
        float bevel = scene_smoothstep(0.005f, 0.013f, edge);
        vec3 m = v3_scale(mortar, 0.8f + 0.3f * grain(x, y, seed + 3));
        vec3 out = edge < 0.005f ? v3_scale(m, 0.75f) : v3_scale(c, 0.65f + 0.35f * bevel);
        put(TEXEL(t), out, 0.15f);
    }
}

/* Ashlar stone: rows of random height, blocks of random width, grey-beige, bevelled. */
static void gen_stone_wall(scene_texture *t, uint32_t seed, int y0, int y1)
{
    scene_rng rng = { seed * 0x9e3779b97f4a7c15ull + 11 };
    enum { ROWS = 5, COLS = 4 };
    float rows[ROWS + 1], cols[ROWS][COLS + 1];
    partition(&rng, rows, ROWS, 0.35f);
    float shift[ROWS];
    for (int r = 0; r < ROWS; r++) {
        partition(&rng, cols[r], COLS, 0.45f);
        shift[r] = scene_rng_range(&rng, 0.0f, 1.0f);
    }
    vec3 a = scene__rgb(0x8f887a), b = scene__rgb(0xb3aa96), mortar = scene__rgb(0x5d574c);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        int r = find_cell(rows, ROWS, v);
        float su = u + shift[r];
        su -= floorf(su);
        int c = find_cell(cols[r], COLS, su);
        float du = fminf(su - cols[r][c], cols[r][c + 1] - su);
        float dv = fminf(v - rows[r], rows[r + 1] - v);
        float edge = fminf(du, dv) * 2.0f; /* metres: one repeat is 2 m */
        uint32_t h = scene_hash3((uint32_t)r, (uint32_t)c, seed);
        vec3 col = v3_lerp(a, b, scene_unit(h));
        float n = fbm(u, v, 8, 5, seed + 5);
        col = v3_scale(col, 0.7f + 0.55f * n + 0.12f * (grain(x, y, seed) - 0.5f));
        float bevel = scene_smoothstep(0.008f, 0.03f, edge);
        vec3 out = edge < 0.008f ? v3_scale(mortar, 0.8f + 0.3f * n)
                                 : v3_scale(col, 0.6f + 0.4f * bevel);
        put(TEXEL(t), out, 0.1f);
    }
}

/* A fine tiled floor: 8 x 8 square tiles of 10 cm per repeat (0.8 m) with 3 mm dark grout,
 * two tones in a checker with small variations: a moire maker at distance. */
static void gen_floor_tiles(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 a = scene__rgb(0xb3a996), b = scene__rgb(0x7a6a58), grout = scene__rgb(0x3a3631);
    FOR_TEXELS(t) {
        float u = UCOORD(t) * 8.0f, v = VCOORD(t) * 8.0f;
        int tu = (int)u, tv = (int)v;
        float fu = u - (float)tu, fv = v - (float)tv;
        float edge = fminf(fminf(fu, 1.0f - fu), fminf(fv, 1.0f - fv)) * 0.1f;
        uint32_t h = scene_hash3((uint32_t)tu, (uint32_t)tv, seed);
        vec3 c = ((tu + tv) & 1) ? a : b;
        c = v3_scale(c, 0.88f + 0.2f * scene_unit(h) + 0.06f * (grain(x, y, seed) - 0.5f));
        vec3 out = edge < 0.0015f ? grout : c;
        put(TEXEL(t), out, edge < 0.0015f ? 0.0f : 0.6f);
    }
}

/* Planks 15 cm wide along u, with grain, knots and dark seams (one repeat 1.2 m). */
static void gen_wood(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 light = scene__rgb(0x9c6b3f), dark = scene__rgb(0x5e3b1e);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float pv = v * 8.0f;
        int plank = (int)pv;
        float fv = pv - (float)plank;
        uint32_t h = scene_hash3((uint32_t)plank, 77u, seed);
        float off = scene_unit(h);
        float g = fbm(u + off, v, 4, 3, seed + (uint32_t)plank);
        float lines = 0.5f + 0.5f * sinf((v * 8.0f * 18.0f + g * 9.0f) * 6.2831853f);
        vec3 c = v3_lerp(dark, light, 0.35f + 0.45f * lines * (0.7f + 0.6f * scene_unit(scene_hash32(h))));
        float seam = fminf(fv, 1.0f - fv);
        /* butt joints at a per-plank position */
        float ju = u + off;
        ju -= floorf(ju);
        float jd = fminf(ju, 1.0f - ju);
        if (seam < 0.025f || jd < 0.004f)
            c = v3_scale(dark, 0.45f);
        c = v3_scale(c, 0.9f + 0.2f * grain(x, y, seed));
        put(TEXEL(t), c, 0.5f);
    }
}

/* Painted metal: dark grey-green, brushed along u, a little rust. */
static void gen_metal(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 paint = scene__rgb(0x3b4340), rust = scene__rgb(0x7a4a2a);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float brush = vnoise(u, v, 64, seed) * 0.5f + vnoise(u * 1.0f, v, 256, seed + 1) * 0.5f;
        float r = fbm(u, v, 8, 4, seed + 2);
        vec3 c = v3_scale(paint, 0.8f + 0.35f * brush);
        float rm = scene_smoothstep(0.62f, 0.75f, r);
        c = v3_lerp(c, rust, rm);
        put(TEXEL(t), c, 1.0f - rm);
    }
}

/* Bark: vertical furrows (noise stretched along v), dark brown. */
static void gen_bark(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 a = scene__rgb(0x3d2c20), b = scene__rgb(0x6e5a48);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        /* furrows: noise 4x finer across than along the trunk */
        float f = (vnoise2(u, v, 16, 4, seed) + 0.5f * vnoise2(u, v, 32, 8, seed + 1) +
                   0.25f * vnoise2(u, v, 64, 16, seed + 2)) / 1.75f;
        float ridges = fabsf(sinf((u * 12.0f + f * 2.5f) * 3.14159265f));
        vec3 c = v3_lerp(a, b, ridges * (0.6f + 0.5f * fbm(u, v, 8, 3, seed + 9)));
        c = v3_scale(c, 0.85f + 0.3f * grain(x, y, seed));
        put(TEXEL(t), c, 0.0f);
    }
}

/* Leaves: ~180 elliptical leaves scattered over a rounded cluster, alpha = coverage (2x2
 * samples per texel), shades of green. */
static void gen_leaves(scene_texture *t, uint32_t seed, int y0, int y1)
{
    enum { N = 180 };
    float cx[N], cy[N], ca[N], sa[N], ra[N], rb[N];
    vec3 col[N];
    scene_rng rng = { seed * 0x2545f4914f6cdd1dull + 3 };
    vec3 g0 = scene__rgb(0x2f5a1e), g1 = scene__rgb(0x6b8f2a);
    for (int i = 0; i < N; i++) {
        /* inside a disc of radius 0.42 about the centre */
        float ang = scene_rng_range(&rng, 0.0f, 6.2831853f);
        float rad = 0.42f * sqrtf(scene_rng_range(&rng, 0.0f, 1.0f));
        cx[i] = 0.5f + rad * cosf(ang);
        cy[i] = 0.5f + rad * sinf(ang);
        float o = scene_rng_range(&rng, 0.0f, 3.14159265f);
        ca[i] = cosf(o);
        sa[i] = sinf(o);
        ra[i] = scene_rng_range(&rng, 0.035f, 0.06f);
        rb[i] = ra[i] * scene_rng_range(&rng, 0.35f, 0.5f);
        col[i] = v3_scale(v3_lerp(g0, g1, scene_rng_range(&rng, 0.0f, 1.0f)),
                          scene_rng_range(&rng, 0.7f, 1.15f));
    }
    /* Each leaf covers the 2x2 samples of the texels in its bounding box that fall inside
     * its ellipse; later leaves lie on top. Then each texel averages its covered samples. */
    int w = t->w[0], h = t->h[0];
    float *top = t->level[0]; /* per sample: the leaf on top + 1 (0: none) and its shade,
                               * kept in the texel's 4 floats until resolved */
    for (size_t i = (size_t)y0 * (size_t)w * 4; i < (size_t)y1 * (size_t)w * 4; i++)
        top[i] = 0.0f;
    for (int i = 0; i < N; i++) {
        int bx0 = (int)floorf((cx[i] - ra[i]) * (float)w) - 1, bx1 = (int)ceilf((cx[i] + ra[i]) * (float)w) + 1;
        int by0 = (int)floorf((cy[i] - ra[i]) * (float)h) - 1, by1 = (int)ceilf((cy[i] + ra[i]) * (float)h) + 1;
        bx0 = bx0 < 0 ? 0 : bx0;
        by0 = by0 < y0 ? y0 : by0;
        bx1 = bx1 > w ? w : bx1;
        by1 = by1 > y1 ? y1 : by1;
        for (int y = by0; y < by1; y++)
            for (int x = bx0; x < bx1; x++)
                for (int sm = 0; sm < 4; sm++) {
                    float u = ((float)x + 0.25f + 0.5f * (float)(sm & 1)) / (float)w;
                    float v = ((float)y + 0.25f + 0.5f * (float)(sm >> 1)) / (float)h;
                    float dx = u - cx[i], dy = v - cy[i];
                    float lx = dx * ca[i] + dy * sa[i], ly = -dx * sa[i] + dy * ca[i];
                    float e = (lx * lx) / (ra[i] * ra[i]) + (ly * ly) / (rb[i] * rb[i]);
                    if (e <= 1.0f) {
                        /* a midrib and a darker rim: the shade packs into the fraction */
                        float rib = fabsf(ly) < 0.12f * rb[i] ? 1.25f : 1.0f;
                        float shade = rib * (1.0f - 0.35f * e);
                        top[4 * ((size_t)y * (size_t)w + (size_t)x) + sm] = (float)(i + 1) + 0.25f * shade;
                    }
                }
    }
    FOR_TEXELS(t) {
        float *px = TEXEL(t);
        float acc = 0.0f;
        vec3 c = v3(0, 0, 0);
        for (int sm = 0; sm < 4; sm++) {
            if (px[sm] <= 0.0f)
                continue;
            int i = (int)px[sm] - 1;
            float shade = (px[sm] - (float)(i + 1)) * 4.0f;
            c = v3_add(c, v3_scale(col[i], shade));
            acc += 1.0f;
        }
        vec3 out = acc > 0.0f ? v3_scale(c, 1.0f / acc) : v3_scale(g0, 0.6f);
        put(px, out, acc / 4.0f);
    }
}

/* Grass: 46 tapered, curved blades from the bottom edge; alpha = coverage (2x2 samples). */
static void gen_grass_card(scene_texture *t, uint32_t seed, int y0, int y1)
{
    enum { N = 46 };
    float bx[N], top[N], bend[N], wid[N];
    vec3 col[N];
    scene_rng rng = { seed * 0x9e3779b97f4a7c15ull + 5 };
    vec3 g0 = scene__rgb(0x3d6b22), g1 = scene__rgb(0x9aa84a);
    for (int i = 0; i < N; i++) {
        bx[i] = scene_rng_range(&rng, 0.06f, 0.94f);
        top[i] = scene_rng_range(&rng, 0.05f, 0.55f);
        bend[i] = scene_rng_range(&rng, -0.25f, 0.25f);
        wid[i] = scene_rng_range(&rng, 0.008f, 0.02f);
        col[i] = v3_lerp(g0, g1, scene_rng_range(&rng, 0.0f, 1.0f));
    }
    FOR_TEXELS(t) {
        float acc = 0.0f;
        vec3 c = v3(0, 0, 0);
        for (int s = 0; s < 4; s++) {
            float u = ((float)x + 0.25f + 0.5f * (float)(s & 1)) / (float)t->w[0];
            float v = ((float)y + 0.25f + 0.5f * (float)(s >> 1)) / (float)t->h[0];
            for (int i = 0; i < N; i++) {
                if (v < top[i])
                    continue;
                float k = (1.0f - v) / (1.0f - top[i]); /* 0 at the root, 1 at the tip */
                float xc = bx[i] + bend[i] * k * k;
                if (fabsf(u - xc) < wid[i] * (1.0f - k)) {
                    c = v3_add(c, v3_scale(col[i], 0.55f + 0.6f * k));
                    acc += 1.0f;
                    break;
                }
            }
        }
        vec3 out = acc > 0.0f ? v3_scale(c, 1.0f / acc) : g0;
        put(TEXEL(t), out, acc / 4.0f);
    }
}

/* Forest floor: grass and dirt patches with leaf litter speckles (one repeat 4 m). */
static void gen_forest_ground(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 grass = scene__rgb(0x4c6b2b), dirt = scene__rgb(0x6b5438), litter = scene__rgb(0x8a6a3a);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float m = fbm(u, v, 4, 5, seed);
        vec3 c = v3_lerp(dirt, grass, scene_smoothstep(0.4f, 0.6f, m));
        float s = fbm(u, v, 64, 2, seed + 3);
        if (s > 0.68f)
            c = v3_lerp(c, litter, 0.7f);
        c = v3_scale(c, 0.75f + 0.5f * grain(x, y, seed) * (0.5f + 0.5f * m));
        put(TEXEL(t), c, 0.0f);
    }
}

/* Distant hills: mottled green and grey-green (forest cover and clearings). */
static void gen_hills(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 a = scene__rgb(0x2e4a2a), b = scene__rgb(0x6d7d4e);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float m = fbm(u, v, 8, 5, seed);
        vec3 c = v3_lerp(a, b, scene_smoothstep(0.35f, 0.7f, m));
        c = v3_scale(c, 0.85f + 0.3f * fbm(u, v, 64, 2, seed + 1));
        put(TEXEL(t), c, 0.0f);
    }
}

/* Asphalt: dark grey with aggregate speckles and tar patches (one repeat 2 m). */
static void gen_asphalt(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 a = scene__rgb(0x3a3a3c), b = scene__rgb(0x5a5856);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float m = fbm(u, v, 4, 4, seed);
        float g = grain(x, y, seed);
        vec3 c = v3_lerp(a, b, 0.3f * m + 0.5f * g * g);
        if (fbm(u, v, 8, 3, seed + 1) > 0.7f)
            c = v3_scale(c, 0.7f);
        put(TEXEL(t), c, 0.3f * m);
    }
}

/* Pavement: 50 cm square slabs with joints (one repeat 1 m), light grey. */
static void gen_pavement(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 a = scene__rgb(0x9d9a94), joint = scene__rgb(0x4a4744);
    FOR_TEXELS(t) {
        float u = UCOORD(t) * 2.0f, v = VCOORD(t) * 2.0f;
        int su = (int)u, sv = (int)v;
        float fu = u - (float)su, fv = v - (float)sv;
        float edge = fminf(fminf(fu, 1.0f - fu), fminf(fv, 1.0f - fv)) * 0.5f;
        uint32_t h = scene_hash3((uint32_t)su, (uint32_t)sv, seed);
        float n = fbm(UCOORD(t), VCOORD(t), 8, 4, seed + 2);
        vec3 c = v3_scale(a, 0.85f + 0.2f * scene_unit(h) + 0.25f * (n - 0.5f) +
                                 0.08f * (grain(x, y, seed) - 0.5f));
        put(TEXEL(t), edge < 0.004f ? joint : c, 0.1f);
    }
}

/* Concrete: light grey, low-frequency stains and pores. */
static void gen_concrete(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 a = scene__rgb(0xa7a39b);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float n = fbm(u, v, 4, 5, seed);
        float pores = grain(x, y, seed) > 0.985f ? 0.6f : 1.0f;
        vec3 c = v3_scale(a, (0.75f + 0.45f * n) * pores);
        put(TEXEL(t), c, 0.05f);
    }
}

/* A window: white frame, a cross of mullions, glass (dark, glossy: alpha 1 = reflective,
 * the frame 0). One repeat is one window. */
static void gen_window(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 frame = scene__rgb(0xe8e4da), glass = scene__rgb(0x1d2a36), inner = scene__rgb(0x3b3a35);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float du = fminf(u, 1.0f - u), dv = fminf(v, 1.0f - v);
        bool is_frame = du < 0.07f || dv < 0.05f || fabsf(u - 0.5f) < 0.025f ||
                        fabsf(v - 0.38f) < 0.02f;
        if (is_frame) {
            put(TEXEL(t), v3_scale(frame, 0.9f + 0.1f * grain(x, y, seed)), 0.1f);
        } else {
            /* curtains or a dim room behind some panes */
            float room = vnoise(u, v, 2, seed + 4);
            vec3 c = v3_lerp(glass, inner, 0.35f * room);
            put(TEXEL(t), c, 1.0f);
        }
    }
}

/* A marble floor: a checker of black and white 50 cm slabs, set diagonally, with veins
 * (noise-warped sines) and thin brass lines between them (one repeat 1 m). */
static void gen_marble_floor(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 white = scene__rgb(0xe6e1d6), black = scene__rgb(0x2a2a2e), brass = scene__rgb(0xa88a45);
    vec3 grey_vein = scene__rgb(0x6a6a70), brown_vein = scene__rgb(0x8a8478);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        /* diagonal grid: rotate 45 degrees; two slabs per repeat along each diagonal */
        float a = (u + v) * 2.0f, b = (u - v) * 2.0f;
        float fa = a - floorf(a), fb = b - floorf(b);
        int ia = (int)floorf(a), ib = (int)floorf(b);
        float edge = fminf(fminf(fa, 1.0f - fa), fminf(fb, 1.0f - fb)) * 0.3536f;
        bool dark = ((ia + ib) & 1) != 0;
        float w = fbm(u, v, 4, 5, seed + (dark ? 1u : 2u));
        float vein = fabsf(sinf((u * 3.0f + v * 5.0f + w * 4.0f) * 3.14159265f));
        vein = powf(1.0f - vein, 12.0f);
        vec3 c = dark ? v3_lerp(black, grey_vein, vein) : v3_lerp(white, brown_vein, vein * 0.8f);
        c = v3_scale(c, 0.93f + 0.14f * w);
        put(TEXEL(t), edge < 0.0035f ? brass : c, edge < 0.0035f ? 1.0f : 0.8f);
    }
}

/* Plaster: off-white with soft low-frequency variation. */
static void gen_plaster(scene_texture *t, uint32_t seed, int y0, int y1)
{
    vec3 a = scene__rgb(0xd8cdb8);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        float n = fbm(u, v, 4, 6, seed);
        vec3 c = v3_scale(a, 0.82f + 0.3f * n + 0.04f * (grain(x, y, seed) - 0.5f));
        put(TEXEL(t), c, 0.0f);
    }
}

/* Book spines: random widths and colours, with title bands (one repeat: 1 m of shelf). */
static void gen_books(scene_texture *t, uint32_t seed, int y0, int y1)
{
    scene_rng rng = { seed * 0x9e3779b97f4a7c15ull + 17 };
    enum { N = 40 };
    float cuts[N + 1];
    partition(&rng, cuts, N, 0.6f);
    static const uint32_t palette_hex[] = { 0x7a1f1f, 0x1f3f7a, 0x2f5f2f, 0x8a6a2a, 0x4a2a5a,
                                            0x1a1a1a, 0xb0a080, 0x6a3020 };
    vec3 palette[8], back = scene__rgb(0x2a2018), gold = scene__rgb(0xc8a850);
    for (int i = 0; i < 8; i++)
        palette[i] = scene__rgb(palette_hex[i]);
    FOR_TEXELS(t) {
        float u = UCOORD(t), v = VCOORD(t);
        int b = find_cell(cuts, N, u);
        uint32_t h = scene_hash3((uint32_t)b, 3u, seed);
        float height = 0.72f + 0.28f * scene_unit(h);  /* top of the book, from the bottom */
        vec3 c;
        float a = 0.3f;
        if (1.0f - v > height) {
            c = back; /* the shelf's back behind */
            a = 0.0f;
        } else {
            c = palette[scene_hash32(h) % 8];
            float band = v - (1.0f - height);
            if ((band > 0.08f && band < 0.11f) || (band > 0.5f && band < 0.53f))
                c = gold;
            float du = fminf(u - cuts[b], cuts[b + 1] - u);
            if (du < 0.0015f)
                c = v3_scale(c, 0.4f);
        }
        put(TEXEL(t), v3_scale(c, 0.9f + 0.2f * grain(x, y, seed)), a);
    }
}

/* A smooth texture for tests: a few long sine waves (one period per repeat) per channel. */
static void gen_smooth(scene_texture *t, uint32_t seed, int y0, int y1)
{
    float ph = (float)(seed % 97) * 0.1f;
    FOR_TEXELS(t) {
        float u = UCOORD(t) * 6.2831853f, v = VCOORD(t) * 6.2831853f;
        vec3 c = v3(0.45f + 0.25f * sinf(u + ph) * cosf(v),
                    0.40f + 0.25f * sinf(v + 0.5f * ph + 1.0f),
                    0.35f + 0.2f * cosf(u - v + ph));
        put(TEXEL(t), c, 0.5f);
    }
}

/* A clock face: a cream dial with 12 hour and 60 minute marks and a dark rim; outside the
 * dial the wall shows (plaster colour). */
static void gen_clock_face(scene_texture *t, uint32_t seed, int y0, int y1)
{
    (void)seed;
    vec3 dial = scene__rgb(0xf0e8d0), ink = scene__rgb(0x202020), wall = scene__rgb(0xd8cdb8);
    FOR_TEXELS(t) {
        float acc[3] = { 0, 0, 0 };
        for (int s = 0; s < 4; s++) {
            float u = ((float)x + 0.25f + 0.5f * (float)(s & 1)) / (float)t->w[0] - 0.5f;
            float v = ((float)y + 0.25f + 0.5f * (float)(s >> 1)) / (float)t->h[0] - 0.5f;
            float r = sqrtf(u * u + v * v);
            vec3 c = wall;
            if (r < 0.48f) {
                c = dial;
                if (r > 0.44f)
                    c = ink;
                float ang = atan2f(v, u) / 6.2831853f * 60.0f;
                float m = ang - floorf(ang + 0.5f);
                bool hour = fabsf((ang / 5.0f) - floorf(ang / 5.0f + 0.5f)) < 0.03f;
                if (r > 0.36f && r < 0.42f && fabsf(m) < 0.09f)
                    c = ink;
                if (hour && r > 0.30f && r < 0.42f)
                    c = ink;
            }
            acc[0] += c.x;
            acc[1] += c.y;
            acc[2] += c.z;
        }
        put(TEXEL(t), v3(acc[0] / 4, acc[1] / 4, acc[2] / 4), 0.2f);
    }
}

static void gen_white(scene_texture *t, uint32_t seed, int y0, int y1)
{
    (void)seed;
    FOR_TEXELS(t)
        put(TEXEL(t), v3(1, 1, 1), 1.0f);
}

typedef void (*gen_fn)(scene_texture *t, uint32_t seed, int y0, int y1);

static gen_fn generator(scene_texgen kind)
{
    switch (kind) {
    case TEXGEN_BRICK: return gen_brick;
    case TEXGEN_STONE_WALL: return gen_stone_wall;
    case TEXGEN_FLOOR_TILES: return gen_floor_tiles;
    case TEXGEN_WOOD: return gen_wood;
    case TEXGEN_METAL: return gen_metal;
    case TEXGEN_BARK: return gen_bark;
    case TEXGEN_LEAVES: return gen_leaves;
    case TEXGEN_GRASS_CARD: return gen_grass_card;
    case TEXGEN_FOREST_GROUND: return gen_forest_ground;
    case TEXGEN_HILLS: return gen_hills;
    case TEXGEN_ASPHALT: return gen_asphalt;
    case TEXGEN_PAVEMENT: return gen_pavement;
    case TEXGEN_CONCRETE: return gen_concrete;
    case TEXGEN_WINDOW: return gen_window;
    case TEXGEN_MARBLE_FLOOR: return gen_marble_floor;
    case TEXGEN_PLASTER: return gen_plaster;
    case TEXGEN_BOOKS: return gen_books;
    case TEXGEN_SMOOTH: return gen_smooth;
    case TEXGEN_CLOCK_FACE: return gen_clock_face;
    case TEXGEN_WHITE: break;
    }
    return gen_white;
}

/* Rows per parallel task: each band of level 0 is generated on its own (the generators'
 * random layouts are recomputed from the seed in every band, so bands agree). */
#define GEN_BAND 32

typedef struct gen_job {
    scene_texture *t;
    uint32_t seed;
    gen_fn fn;
} gen_job;

static void gen_task(void *priv, int index, int worker)
{
    (void)worker;
    const gen_job *job = priv;
    int y0 = index * GEN_BAND, y1 = y0 + GEN_BAND < job->t->h[0] ? y0 + GEN_BAND : job->t->h[0];
    job->fn(job->t, job->seed, y0, y1);
}

/* The scene's next texture slot, allocated at w x h; NULL (and the build failed) when the
 * scene is already failing, full, or out of memory. */
static scene_texture *new_texture(scene *s, int w, int h)
{
    if (s->build_error)
        return NULL;
    if (s->texture_count >= SCENE_MAX_TEXTURES) {
        scene__build_fail(s, upf__fail(s->ctx, UPF_ERROR_INTERNAL, "scene %s: more than %d "
                                       "textures", s->def->name, SCENE_MAX_TEXTURES));
        return NULL;
    }
    scene_texture *t = &s->textures[s->texture_count];
    upf_result r = scene__texture_alloc(s->ctx, t, w, h);
    if (r != UPF_OK) {
        scene__build_fail(s, r);
        return NULL;
    }
    return t;
}

int scene__make_texture(scene *s, scene_texgen kind, int w, int h, uint32_t seed)
{
    scene_texture *t = new_texture(s, w, h);
    if (!t)
        return -1;
    seed = scene_hash3(seed, s->seed, (uint32_t)kind);
    gen_job job = { t, seed, generator(kind) };
    upf__parallel_for(s->ctx, gen_task, &job, (h + GEN_BAND - 1) / GEN_BAND);
    float cutoff = kind == TEXGEN_LEAVES || kind == TEXGEN_GRASS_CARD ? 0.5f : 0.0f;
    upf_result r = scene__texture_build_mips(s->ctx, t, cutoff);
    if (r != UPF_OK) {
        scene__texture_free(s->ctx, t);
        scene__build_fail(s, r);
        return -1;
    }
    return s->texture_count++;
}

int scene__make_sign(scene *s, const char *text, vec3 board, vec3 ink, int w, int h)
{
    scene_texture *t = new_texture(s, w, h);
    if (!t)
        return -1;
    /* Lines of text, centred; the font is scaled so the longest line fills 84% of the width
     * or the lines fill 70% of the height, whichever is smaller. */
    const char *lines[2] = { text, NULL };
    int lens[2] = { (int)strlen(text), 0 };
    const char *nl = strchr(text, '\n');
    int nlines = 1;
    if (nl) {
        lens[0] = (int)(nl - text);
        lines[1] = nl + 1;
        lens[1] = (int)strlen(nl + 1);
        nlines = 2;
    }
    int longest = lens[0] > lens[1] ? lens[0] : lens[1];
    float scale_w = 0.84f * (float)w / scene__text_width(longest);
    float line_h = nlines == 1 ? 7.0f : 17.0f; /* two lines: 7 + 3 gap + 7 */
    float scale_h = 0.7f * (float)h / line_h;
    float scale = fminf(scale_w, scale_h);
    float top = 0.5f * ((float)h - line_h * scale);
    uint32_t seed = scene_hash3(s->seed, (uint32_t)s->texture_count, 0x516e);
    /* the glyphs' rows, looked up once */
    uint8_t rows[2][64][7];
    for (int l = 0; l < nlines; l++) {
        if (lens[l] > 64)
            lens[l] = 64;
        for (int i = 0; i < lens[l]; i++)
            for (int r2 = 0; r2 < 7; r2++)
                rows[l][i][r2] = scene__glyph_row(lines[l][i], r2);
    }
    int y0 = 0, y1 = h;
    FOR_TEXELS(t) {
        vec3 acc = v3(0, 0, 0);
        for (int sy = 0; sy < 4; sy++) {
            for (int sx = 0; sx < 4; sx++) {
                float px = (float)x + (0.5f + (float)sx) / 4.0f;
                float py = (float)y + (0.5f + (float)sy) / 4.0f;
                float bx = fminf(px, (float)w - px), by = fminf(py, (float)h - py);
                float border = 0.04f * (float)h;
                vec3 c = board;
                if (bx < border || by < border)
                    c = v3_scale(ink, 0.9f);
                else if (bx < 2.0f * border || by < 2.0f * border)
                    c = board;
                for (int l = 0; l < nlines; l++) {
                    float lx0 = 0.5f * ((float)w - scene__text_width(lens[l]) * scale);
                    float ly0 = top + (float)l * 10.0f * scale;
                    float fx = (px - lx0) / scale, fy = (py - ly0) / scale;
                    if (fx < 0.0f || fy < 0.0f || fy >= 7.0f)
                        continue;
                    int col = (int)fx, index = col / 6, in = col % 6;
                    if (index < lens[l] && in < 5 && ((rows[l][index][(int)fy] >> (4 - in)) & 1))
                        c = ink;
                }
                acc = v3_add(acc, c);
            }
        }
        acc = v3_scale(acc, 1.0f / 16.0f);
        acc = v3_scale(acc, 0.92f + 0.08f * vnoise(UCOORD(t), VCOORD(t), 8, seed));
        put(TEXEL(t), acc, 0.4f);
    }
    upf_result r = scene__texture_build_mips(s->ctx, t, 0.0f);
    if (r != UPF_OK) {
        scene__texture_free(s->ctx, t);
        scene__build_fail(s, r);
        return -1;
    }
    return s->texture_count++;
}
