/* testcard.c: a generated test frame for `upframe upscale builtin:testcard`: what a game
 * renders at one sample per pixel, with the features upscalers find hard (hard polygon edges
 * at many angles, one-pixel lines, a perspective checkerboard, small high-contrast text-like
 * strokes, smooth gradients). Writes linear-light RGBA32F; deterministic. */
#include <math.h>
#include <stddef.h>

#include "testcard.h"

typedef struct vec2 {
    double x, y;
} vec2;

/* Inside test for a convex polygon given counter-clockwise (in y-down pixel space the sign
 * of the cross products just has to agree). */
static int inside_convex(const vec2 *p, int n, double x, double y)
{
    int pos = 0, neg = 0;
    for (int i = 0; i < n; i++) {
        vec2 a = p[i], b = p[(i + 1) % n];
        double c = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
        pos += c > 0;
        neg += c < 0;
    }
    return pos == 0 || neg == 0;
}

static void put(float *px, double r, double g, double b)
{
    px[0] = (float)r;
    px[1] = (float)g;
    px[2] = (float)b;
    px[3] = 1.0f;
}

void testcard_render(float *rgba, int w, int h)
{
    const double pi = 3.14159265358979323846;
    double s = h / 540.0; /* the card is designed at 960x540 and scales with the height */
    /* Rotated squares: hard edges at 7 angles. */
    vec2 squares[7][4];
    for (int k = 0; k < 7; k++) {
        double cx = w * (0.08 + 0.13 * k), cy = h * 0.22, r = 38 * s, a = (5 + 12.5 * k) * pi / 180;
        for (int i = 0; i < 4; i++) {
            double t = a + i * pi / 2;
            squares[k][i] = (vec2){ cx + r * cos(t), cy + r * sin(t) };
        }
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float *px = rgba + ((size_t)y * w + x) * 4;
            double cx = x + 0.5, cy = y + 0.5, v = cy / h;
            /* Sky gradient (linear light). */
            put(px, 0.20 + 0.25 * v, 0.35 + 0.25 * v, 0.75 - 0.2 * v);
            /* Perspective checkerboard floor in the lower half. */
            double horizon = h * 0.55;
            if (cy > horizon) {
                double depth = (h * 0.45) / (cy - horizon + 1e-9);
                double u = (cx - w * 0.5) / (h * 0.5) * depth;
                int check = ((int)floor(u * 2) + (int)floor(depth * 2)) & 1;
                double fog = exp(-depth * 0.08);
                double c = check ? 0.65 : 0.08;
                put(px, c * fog + 0.35 * (1 - fog), c * fog + 0.45 * (1 - fog),
                    (c * 0.9) * fog + 0.7 * (1 - fog));
            }
            /* Squares. */
            for (int k = 0; k < 7; k++)
                if (inside_convex(squares[k], 4, cx, cy))
                    put(px, 0.9 * (k & 1), 0.7 - 0.08 * k, 0.1 + 0.12 * k);
            /* Thin lines (one pixel or less wide) fanning from a point: wires and railings. */
            double ox = w * 0.5, oy = h * 0.42;
            double dx = cx - ox, dy = cy - oy;
            if (dy > 0 && dy < h * 0.12) {
                double ang = atan2(dy, dx);
                for (int k = 0; k < 9; k++) {
                    double la = (20 + 17.5 * k) * pi / 180;
                    double dist = fabs(dx * sin(la) - dy * cos(la));
                    if (dist < 0.45 && fabs(ang - la) < 0.5)
                        put(px, 0.02, 0.02, 0.02);
                }
            }
            /* Text-like strokes: a grid of small glyph boxes with 1-2 px strokes. */
            double tx0 = w * 0.06, ty0 = h * 0.36, cw = 7 * s, ch = 11 * s;
            if (cx > tx0 && cx < tx0 + 40 * cw && cy > ty0 && cy < ty0 + 2 * ch) {
                int col = (int)((cx - tx0) / cw), row = (int)((cy - ty0) / ch);
                double gx = fmod(cx - tx0, cw), gy = fmod(cy - ty0, ch);
                unsigned code = (unsigned)(col * 2654435761u ^ row * 40503u);
                int stroke = (gx < 1.2 * s && (code & 1)) || (gy < 1.2 * s && (code & 2)) ||
                             (fabs(gx - gy * cw / ch) < 0.8 * s && (code & 4)) ||
                             (fabs(gy - ch * 0.5) < 0.7 * s && (code & 8));
                if (gx < cw - 1.5 * s && gy < ch - 2 * s && stroke)
                    put(px, 1.0, 1.0, 0.9);
            }
            /* A disc with a bright rim. */
            double rx = cx - w * 0.85, ry = cy - h * 0.42, rr = sqrt(rx * rx + ry * ry);
            if (rr < 45 * s)
                put(px, rr > 41 * s ? 1.0 : 0.6, rr > 41 * s ? 0.9 : 0.15, 0.1);
        }
    }
}
