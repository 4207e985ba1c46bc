/* hud.c: the HUD layer, drawn apart from the scene: a health panel with a bar, a score and
 * a clock that change with time, an objective line, an ammo counter, a crosshair and a
 * compass minimap that turns with the camera. Shapes are laid out in HUD units (1/360 of
 * the frame height, so the HUD looks the same at any size) and antialiased with 4x4
 * samples per pixel.
 *
 * Reads the time, the camera's yaw and the scene's objective text; writes linear RGB with
 * straight alpha (width x height x 4 floats). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene/scene_internal.h"

typedef struct hud {
    float *rgba; /* premultiplied while drawing */
    int width, height;
    float unit;  /* pixels per HUD unit */
} hud;

/* A shape: coverage of point (x, y) in HUD units, 0 or 1. */
typedef bool (*shape_fn)(const void *priv, float x, float y);

/* Composites `color` with opacity `alpha` wherever the shape covers, over the HUD, in the
 * box [x0, x1) x [y0, y1) (HUD units). */
static void draw(hud *h, float x0, float y0, float x1, float y1, shape_fn shape,
                 const void *priv, vec3 color, float alpha)
{
    int px0 = (int)floorf(x0 * h->unit), px1 = (int)ceilf(x1 * h->unit);
    int py0 = (int)floorf(y0 * h->unit), py1 = (int)ceilf(y1 * h->unit);
    if (px0 < 0)
        px0 = 0;
    if (py0 < 0)
        py0 = 0;
    if (px1 > h->width)
        px1 = h->width;
    if (py1 > h->height)
        py1 = h->height;
    float inv = 1.0f / h->unit;
    for (int py = py0; py < py1; py++) {
        for (int px = px0; px < px1; px++) {
            int hits = 0;
            for (int sy = 0; sy < 4; sy++)
                for (int sx = 0; sx < 4; sx++) {
                    float x = ((float)px + (0.5f + (float)sx) * 0.25f) * inv;
                    float y = ((float)py + (0.5f + (float)sy) * 0.25f) * inv;
                    hits += shape(priv, x, y);
                }
            if (!hits)
                continue;
            float a = alpha * (float)hits / 16.0f;
            float *d = h->rgba + 4 * ((size_t)py * (size_t)h->width + (size_t)px);
            d[0] = color.x * a + d[0] * (1.0f - a);
            d[1] = color.y * a + d[1] * (1.0f - a);
            d[2] = color.z * a + d[2] * (1.0f - a);
            d[3] = a + d[3] * (1.0f - a);
        }
    }
}

typedef struct rect_shape {
    float x0, y0, x1, y1;
} rect_shape;

static bool in_rect(const void *priv, float x, float y)
{
    const rect_shape *r = priv;
    return x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1;
}

static void fill_rect(hud *h, float x0, float y0, float x1, float y1, vec3 c, float a)
{
    rect_shape r = { x0, y0, x1, y1 };
    draw(h, x0, y0, x1, y1, in_rect, &r, c, a);
}

typedef struct text_shape {
    int len;
    float x, y, scale;
    uint8_t rows[64][7]; /* the glyphs' rows, looked up once */
} text_shape;

static bool in_text(const void *priv, float x, float y)
{
    const text_shape *t = priv;
    float fx = (x - t->x) / t->scale, fy = (y - t->y) / t->scale;
    if (fx < 0.0f || fy < 0.0f || fy >= 7.0f)
        return false;
    int col = (int)fx, index = col / 6, in = col % 6;
    if (index >= t->len || in >= 5)
        return false;
    return (t->rows[index][(int)fy] >> (4 - in)) & 1;
}

static void text_shape_init(text_shape *t, const char *s, int len, float x, float y, float scale)
{
    t->len = len < 64 ? len : 64;
    t->x = x;
    t->y = y;
    t->scale = scale;
    for (int i = 0; i < t->len; i++)
        for (int r = 0; r < 7; r++)
            t->rows[i][r] = scene__glyph_row(s[i], r);
}

/* Text with a dark drop shadow; (x, y) is the top-left; `scale` HUD units per font unit. */
static void text(hud *h, const char *s, float x, float y, float scale, vec3 c)
{
    int len = (int)strlen(s);
    float w = scene__text_width(len) * scale, ht = 7.0f * scale;
    text_shape t;
    text_shape_init(&t, s, len, x + 0.6f * scale, y + 0.6f * scale, scale);
    draw(h, t.x, t.y, t.x + w, t.y + ht, in_text, &t, v3(0.0f, 0.0f, 0.0f), 0.7f);
    t.x = x;
    t.y = y;
    draw(h, x, y, x + w, y + ht, in_text, &t, c, 1.0f);
}

typedef struct icon_shape {
    scene_icon icon;
    float x, y, scale;
} icon_shape;

static bool in_icon(const void *priv, float x, float y)
{
    const icon_shape *ic = priv;
    float fx = (x - ic->x) / ic->scale, fy = (y - ic->y) / ic->scale;
    if (fx < 0.0f || fy < 0.0f || fx >= 7.0f || fy >= 7.0f)
        return false;
    return (scene__icon_row(ic->icon, (int)fy) >> (6 - (int)fx)) & 1;
}

static void icon(hud *h, scene_icon which, float x, float y, float scale, vec3 c)
{
    icon_shape ic = { which, x, y, scale };
    draw(h, x, y, x + 7.0f * scale, y + 7.0f * scale, in_icon, &ic, c, 1.0f);
}

/* A ring (r0 <= distance <= r1) or a disc (r0 = 0) about (cx, cy). */
typedef struct ring_shape {
    float cx, cy, r0, r1;
} ring_shape;

static bool in_ring(const void *priv, float x, float y)
{
    const ring_shape *r = priv;
    float d2 = (x - r->cx) * (x - r->cx) + (y - r->cy) * (y - r->cy);
    return d2 >= r->r0 * r->r0 && d2 <= r->r1 * r->r1;
}

static void ring(hud *h, float cx, float cy, float r0, float r1, vec3 c, float a)
{
    ring_shape r = { cx, cy, r0, r1 };
    draw(h, cx - r1, cy - r1, cx + r1, cy + r1, in_ring, &r, c, a);
}

/* A line segment of half width hw (a capsule). */
typedef struct line_shape {
    float ax, ay, bx, by, hw;
} line_shape;

static bool in_line(const void *priv, float x, float y)
{
    const line_shape *l = priv;
    float dx = l->bx - l->ax, dy = l->by - l->ay;
    float t = ((x - l->ax) * dx + (y - l->ay) * dy) / (dx * dx + dy * dy);
    t = scene_clampf(t, 0.0f, 1.0f);
    float ex = l->ax + t * dx - x, ey = l->ay + t * dy - y;
    return ex * ex + ey * ey <= l->hw * l->hw;
}

static void line(hud *h, float ax, float ay, float bx, float by, float hw, vec3 c, float a)
{
    line_shape l = { ax, ay, bx, by, hw };
    draw(h, fminf(ax, bx) - hw, fminf(ay, by) - hw, fmaxf(ax, bx) + hw, fmaxf(ay, by) + hw,
         in_line, &l, c, a);
}

/* A filled triangle (the compass needle). */
typedef struct tri_shape {
    float x[3], y[3];
} tri_shape;

static bool in_tri(const void *priv, float x, float y)
{
    const tri_shape *t = priv;
    float e[3];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3;
        e[i] = (t->x[j] - t->x[i]) * (y - t->y[i]) - (t->y[j] - t->y[i]) * (x - t->x[i]);
    }
    return (e[0] >= 0 && e[1] >= 0 && e[2] >= 0) || (e[0] <= 0 && e[1] <= 0 && e[2] <= 0);
}

void scene__hud_render(const scene *s, double t, double yaw, int width, int height, float *rgba)
{
    memset(rgba, 0, (size_t)width * (size_t)height * 4 * sizeof(float));
    hud h = { rgba, width, height, (float)height / 360.0f };
    float W = (float)width / h.unit; /* frame width in HUD units */
    const float H = 360.0f;
    vec3 white = v3(1.0f, 1.0f, 1.0f), panel = v3(0.02f, 0.03f, 0.05f);
    vec3 red = scene__rgb(0xe0302a), yellow = scene__rgb(0xf2c53d), cyan = scene__rgb(0x46c8e8);
    char buf[64];

    /* health: varies smoothly with time */
    int health = (int)(62.0 + 38.0 * (0.5 + 0.5 * cos(0.7 * t)));
    fill_rect(&h, 8, 8, 122, 40, panel, 0.55f);
    icon(&h, ICON_HEART, 13, 12, 1.6f, red);
    snprintf(buf, sizeof buf, "%d", health);
    text(&h, buf, 28, 12, 1.6f, white);
    fill_rect(&h, 13, 29, 117, 35, white, 0.9f);
    fill_rect(&h, 14, 30, 116, 34, panel, 1.0f);
    fill_rect(&h, 14, 30, 14 + 1.02f * (float)health, 34, red, 1.0f);

    /* score (changes nearly every frame) and a clock */
    long score = (long)floor(t * 37.0) * 10;
    if (score < 0)
        score = 0;
    snprintf(buf, sizeof buf, "SCORE %06ld", score % 1000000);
    float sw = scene__text_width((int)strlen(buf)) * 1.4f;
    fill_rect(&h, W - sw - 16, 8, W - 8, 38, panel, 0.55f);
    text(&h, buf, W - sw - 12, 12, 1.4f, yellow);
    double tc = t < 0 ? 0 : t;
    snprintf(buf, sizeof buf, "%02d:%04.1f", (int)(tc / 60.0) % 100, fmod(tc, 60.0));
    text(&h, buf, W - scene__text_width((int)strlen(buf)) * 1.0f - 12, 25, 1.0f, white);

    /* objective line, top centre */
    const char *title = s->hud_title ? s->hud_title : "";
    float tw = scene__text_width((int)strlen(title)) * 1.0f;
    text(&h, title, 0.5f * (W - tw), 12, 1.0f, cyan);

    /* ammo, bottom right: magazine counts down, one round every 0.4 s */
    int ammo = 30 - (int)fmod(floor((t < 0 ? 0 : t) / 0.4), 31.0);
    snprintf(buf, sizeof buf, "%02d/90", ammo);
    float aw = scene__text_width((int)strlen(buf)) * 2.0f;
    fill_rect(&h, W - aw - 36, H - 40, W - 8, H - 10, panel, 0.55f);
    icon(&h, ICON_AMMO, W - aw - 31, H - 36, 3.0f, yellow);
    text(&h, buf, W - aw - 12, H - 32, 2.0f, white);

    /* crosshair */
    float cx = 0.5f * W, cy = 0.5f * H;
    for (int k = 0; k < 4; k++) {
        float dx = k == 0 ? 1.0f : k == 1 ? -1.0f : 0.0f, dy = k == 2 ? 1.0f : k == 3 ? -1.0f : 0.0f;
        line(&h, cx + 3 * dx, cy + 3 * dy, cx + 9 * dx, cy + 9 * dy, 0.9f, panel, 0.6f);
        line(&h, cx + 3 * dx, cy + 3 * dy, cx + 9 * dx, cy + 9 * dy, 0.45f, white, 0.95f);
    }
    ring(&h, cx, cy, 0.0f, 0.8f, white, 0.95f);

    /* compass minimap, bottom left: the needle points north (world -z) as the camera
     * turns */
    float mx = 48, my = H - 48, mr = 34;
    ring(&h, mx, my, 0.0f, mr, panel, 0.5f);
    ring(&h, mx, my, mr - 1.2f, mr, white, 0.85f);
    for (int k = 0; k < 4; k++) {
        float a = (float)k * 1.5707963f;
        line(&h, mx + (mr - 6) * sinf(a), my - (mr - 6) * cosf(a), mx + (mr - 2) * sinf(a),
             my - (mr - 2) * cosf(a), 0.5f, white, 0.8f);
    }
    float na = (float)yaw; /* turning left (yaw up) turns north to the right */
    float nx = sinf(na), ny = -cosf(na);
    tri_shape needle = { { mx + nx * (mr - 10), mx - ny * 4, mx + ny * 4 },
                         { my + ny * (mr - 10), my + nx * 4, my - nx * 4 } };
    draw(&h, mx - mr, my - mr, mx + mr, my + mr, in_tri, &needle, red, 1.0f);
    text(&h, "N", mx + nx * (mr + 6) - 2.5f, my + ny * (mr + 6) - 3.5f, 1.0f, white);
    icon(&h, ICON_FLAG, mx + 12, my + 6, 1.2f, yellow);

    /* back to straight alpha */
    size_t n = (size_t)width * (size_t)height;
    for (size_t i = 0; i < n; i++) {
        float a = rgba[4 * i + 3];
        if (a > 0.0f) {
            rgba[4 * i + 0] /= a;
            rgba[4 * i + 1] /= a;
            rgba[4 * i + 2] /= a;
        }
    }
}
