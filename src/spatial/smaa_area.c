/* smaa_area.c: the area table of pass 2, computed from SMAA's area model (Jimenez et al.
 * 2012, section 3.2 "revectorization"; the model of the reference generator
 * Scripts/AreaTex.py, as the SMAA authors' published generator does).
 *
 * Reads nothing; writes the 192x128 RG8 table (layout in smaa.h and docs/SMAA.md).
 *
 * The idea: a run of pixels along an edge is replaced by the line it most likely came from
 * ("revectorized"), chosen by what happens at its two ends; each pixel then blends with its
 * neighbour across the edge by the area of the pixel that the line puts on the other side.
 * R is the area of the pixel itself that lies on the neighbour's side, G the area of the
 * neighbour that lies on the pixel's side. The table holds these areas for every end
 * pattern and distance; the weights pass only looks them up.
 *
 * Orthogonal model (AreaTex.py area/areaortho, SMAA 1x: no subsample offset). A run of
 * d = dl + dr + 1 pixels lies on the line y = 0, x in [0, d]; the pixel is [dl, dl + 1]. An
 * end whose crossing edge lies on the far side (code 1) pins the line at height +0.5 there,
 * one on the near side (code 2) at -0.5. Then:
 *   L  (one end crossed):        a line from that end to the run's midpoint (d/2, 0).
 *   U  (both ends, same side):   two such lines meeting at the midpoint, then "smoothed":
 *                                each half's area a becomes lerp(sqrt(2a)/2, a, min(d/32, 1)),
 *                                so short U shapes come out rounder (SMOOTH_MAX_DISTANCE 32).
 *   Z  (both ends, opposite):    one straight line from end to end.
 *   an end crossed on both sides (code 3) reads as the side opposite the other end (so the
 *   pattern is a Z), and as nothing when the other end is uncrossed or crossed on both sides.
 * Per pixel, the area between the line and y = 0 is integrated exactly (a trapezoid, or two
 * triangles where the line crosses zero inside the pixel, kept one per channel); areas below
 * the edge go to R, above it to G.
 *
 * Diagonal model (AreaTex.py areadiag; table of research 1.5). A 45-degree run of
 * d = dl + dr + 1 pixels with the pixel at (1 + dl, dl) (model coordinates, y up, lower-left
 * corners) and its neighbour above at (1 + dl, 1 + dl). The line starts at one of
 * (0,0), (1,0), (1,1) and ends at one of those plus (d, d), chosen by the end codes
 * (bit 0: the end's crossing step is vertical, bit 1: horizontal); where an end leaves two
 * readings the two lines' areas are averaged. The pair is (1 - a1, a2), a1 and a2 the areas
 * of the pixel and its neighbour on the right of the directed line. We integrate exactly;
 * SMAA counts a 30x30 grid of points per pixel (kept here as `samples`, for the tests).
 * Orientation 0 is this "/" line; orientation 1, the "\" line, is the same model seen in a
 * mirror (x -> -x), indexed from the "\" search's own ends (docs/SMAA.md). */
#include <math.h>
#include <string.h>

#include "spatial/smaa.h"

/* ---- orthogonal patterns ------------------------------------------------------------------ */

/* Adds to out[0] the area between the segment (x1, y1)-(x2, y2) and y = 0 that lies below
 * zero, and to out[1] the area above, over the pixel [px, px + 1] (SMAA AreaTex.py `area`:
 * a trapezoid when the segment keeps one sign over the pixel, else two triangles). Outside
 * the segment's x range there is no line, hence no area. */
static void segment_coverage(double x1, double y1, double x2, double y2, double px, double out[2])
{
    double a = px > x1 ? px : x1;
    double b = px + 1.0 < x2 ? px + 1.0 : x2;
    if (!(a < b))
        return;
    double slope = (y2 - y1) / (x2 - x1);
    double ya = y1 + (a - x1) * slope, yb = y1 + (b - x1) * slope;
    if ((ya >= 0.0 && yb >= 0.0) || (ya <= 0.0 && yb <= 0.0)) {
        double area = 0.5 * (ya + yb) * (b - a); /* trapezoid */
        if (area < 0.0)
            out[0] -= area;
        else
            out[1] += area;
        return;
    }
    double x0 = a + (b - a) * ya / (ya - yb); /* where the segment crosses zero */
    double t1 = 0.5 * ya * (x0 - a), t2 = 0.5 * yb * (b - x0);
    out[t1 < 0.0 ? 0 : 1] += fabs(t1);
    out[t2 < 0.0 ? 0 : 1] += fabs(t2);
}

/* The height at which a crossing code pins the line: +0.5 on the far side, -0.5 near. */
static double crossing_height(int code)
{
    return code == 1 ? 0.5 : -0.5;
}

/* SMAA's U smoothing (AreaTex.py smootharea): lerp(sqrt(2a)/2, a, p) per channel. */
static void smooth_half(const double a[2], double p, double out[2])
{
    for (int c = 0; c < 2; c++) {
        double b = 0.5 * sqrt(2.0 * a[c]);
        out[c] += b + (a[c] - b) * p;
    }
}

void upf__smaa_area_ortho(int cl, int cr, int dl, int dr, double out[2])
{
    out[0] = out[1] = 0.0;
    /* An end crossed on both sides takes the side opposite the other end (a Z). */
    if (cl == 3 && cr == 3)
        return;
    if (cl == 3)
        cl = cr == 1 ? 2 : cr == 2 ? 1 : 0;
    else if (cr == 3)
        cr = cl == 1 ? 2 : cl == 2 ? 1 : 0;
    if (cl == 0 && cr == 0)
        return;

    double d = dl + dr + 1, px = dl, mid = 0.5 * d;
    if (cr == 0) { /* L at the left end */
        segment_coverage(0.0, crossing_height(cl), mid, 0.0, px, out);
    } else if (cl == 0) { /* L at the right end */
        segment_coverage(mid, 0.0, d, crossing_height(cr), px, out);
    } else if (cl == cr) { /* U: two halves, each smoothed while the run is short */
        double left[2] = { 0.0, 0.0 }, right[2] = { 0.0, 0.0 };
        segment_coverage(0.0, crossing_height(cl), mid, 0.0, px, left);
        segment_coverage(mid, 0.0, d, crossing_height(cr), px, right);
        double p = d / 32.0 < 1.0 ? d / 32.0 : 1.0;
        smooth_half(left, p, out);
        smooth_half(right, p, out);
    } else { /* Z: one line from end to end */
        segment_coverage(0.0, crossing_height(cl), d, crossing_height(cr), px, out);
    }
}

/* ---- diagonal patterns -------------------------------------------------------------------- */

/* Start points of the line (end points are these plus (d, d)). */
enum { P00, P10, P11 };
static const double diag_points[3][2] = { { 0.0, 0.0 }, { 1.0, 0.0 }, { 1.0, 1.0 } };

/* For each pattern (left code * 4 + right code), one or two lines as (start, end) point
 * pairs; two lines are averaged (research 1.5's table of AreaTex.py's cases). */
static const struct {
    int count;
    unsigned char line[2][2];
} diag_lines[16] = {
    /* left none */
    { 2, { { P11, P11 }, { P10, P10 } } },   /* right none */
    { 2, { { P00, P11 }, { P10, P11 } } },   /* right vertical */
    { 2, { { P00, P10 }, { P10, P10 } } },   /* right horizontal */
    { 2, { { P00, P11 }, { P10, P10 } } },   /* right both */
    /* left vertical */
    { 2, { { P10, P00 }, { P10, P10 } } },
    { 1, { { P10, P11 }, { 0, 0 } } },
    { 1, { { P10, P10 }, { 0, 0 } } },
    { 2, { { P10, P11 }, { P10, P10 } } },
    /* left horizontal */
    { 2, { { P11, P00 }, { P11, P10 } } },
    { 1, { { P11, P11 }, { 0, 0 } } },
    { 1, { { P11, P10 }, { 0, 0 } } },
    { 2, { { P11, P11 }, { P11, P10 } } },
    /* left both */
    { 2, { { P11, P00 }, { P10, P10 } } },
    { 2, { { P11, P11 }, { P10, P11 } } },
    { 2, { { P11, P10 }, { P10, P10 } } },
    { 2, { { P11, P11 }, { P10, P10 } } },
};

/* Area of the unit pixel with lower-left corner (px, py) on the chosen side of the line
 * through p -> q: side +1 counts points on its right (cross product < 0), -1 on its left.
 * Exact: the pixel is clipped by the half-plane (Sutherland-Hodgman) and the rest measured
 * by the shoelace formula. A line of zero length counts the whole pixel, as AreaTex.py's
 * point test does. */
static double pixel_side_area(const double p[2], const double q[2], double px, double py,
                              int side)
{
    double dx = q[0] - p[0], dy = q[1] - p[1];
    if (dx == 0.0 && dy == 0.0)
        return 1.0;
    double in[4][2] = { { px, py }, { px + 1.0, py }, { px + 1.0, py + 1.0 }, { px, py + 1.0 } };
    double f[4], out[8][2];
    int n = 0;
    for (int i = 0; i < 4; i++) /* -cross(q - p, v - p): > 0 on the right */
        f[i] = side * (dy * (in[i][0] - p[0]) - dx * (in[i][1] - p[1]));
    for (int i = 0; i < 4; i++) {
        int j = (i + 1) & 3;
        if (f[i] >= 0.0) {
            out[n][0] = in[i][0];
            out[n][1] = in[i][1];
            n++;
        }
        if ((f[i] >= 0.0) != (f[j] >= 0.0)) {
            double t = f[i] / (f[i] - f[j]);
            out[n][0] = in[i][0] + t * (in[j][0] - in[i][0]);
            out[n][1] = in[i][1] + t * (in[j][1] - in[i][1]);
            n++;
        }
    }
    double twice = 0.0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        twice += out[i][0] * out[j][1] - out[j][0] * out[i][1];
    }
    return 0.5 * fabs(twice);
}

/* The same by counting an n x n grid of points spanning the pixel, borders included, with
 * AreaTex.py's test (a point counts when it lies strictly on the chosen side, measured from
 * the line's midpoint). */
static double pixel_side_samples(const double p[2], const double q[2], double px, double py,
                                 int side, int n)
{
    if (p[0] == q[0] && p[1] == q[1])
        return 1.0;
    double xm = (p[0] + q[0]) / 2.0, ym = (p[1] + q[1]) / 2.0;
    double a = q[1] - p[1], b = p[0] - q[0];
    int count = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double x = px + i / (n - 1.0), y = py + j / (n - 1.0);
            /* Separate statements: a fused multiply-add would move points lying on the
             * line from one side to the other. */
            double cx = a * (x - xm);
            double cy = b * (y - ym);
            double c = cx + cy;
            count += side > 0 ? c > 0.0 : c < 0.0;
        }
    }
    return count / (double)(n * n);
}

void upf__smaa_area_diag(int orientation, int cl, int cr, int dl, int dr, int samples,
                         double out[2])
{
    /* Orientation 1 is orientation 0 in a mirror: its left end is the mirrored line's right
     * end, so the model is evaluated with the ends exchanged, x negated and the side flipped. */
    double mirror = 1.0;
    int side = 1;
    if (orientation) {
        int t = cl;
        cl = cr;
        cr = t;
        t = dl;
        dl = dr;
        dr = t;
        mirror = -1.0;
        side = -1;
    }
    int pattern = cl * 4 + cr, count = diag_lines[pattern].count;
    double d = dl + dr + 1;
    /* The pixel [1 + dl, 2 + dl] x [dl, 1 + dl] and the one above it; mirrored, a pixel's
     * lower-left corner becomes (-x - 1, y). */
    double px = orientation ? -(2.0 + dl) : 1.0 + dl;
    double sum[2] = { 0.0, 0.0 };
    for (int k = 0; k < count; k++) {
        const double *s = diag_points[diag_lines[pattern].line[k][0]];
        const double *e = diag_points[diag_lines[pattern].line[k][1]];
        double p[2] = { mirror * s[0], s[1] }, q[2] = { mirror * (e[0] + d), e[1] + d };
        double a1, a2;
        if (samples > 1) {
            a1 = pixel_side_samples(p, q, px, dl, side, samples);
            a2 = pixel_side_samples(p, q, px, dl + 1.0, side, samples);
        } else {
            a1 = pixel_side_area(p, q, px, dl, side);
            a2 = pixel_side_area(p, q, px, dl + 1.0, side);
        }
        sum[0] += 1.0 - a1;
        sum[1] += a2;
    }
    out[0] = sum[0] / count;
    out[1] = sum[1] / count;
}

/* ---- the table ------------------------------------------------------------------------------ */

/* floor(255 v), SMAA's truncation; the 1e-9 keeps a value whose exact product is an integer
 * from dropping a step through rounding error. */
static uint8_t quantise(double v)
{
    double s = floor(255.0 * v + 1e-9);
    return (uint8_t)(s < 0.0 ? 0.0 : s > 255.0 ? 255.0 : s);
}

void upf__smaa_area_table(uint8_t *table)
{
    memset(table, 0, UPF_SMAA_AREA_BYTES);
    double v[2];
    for (int cl = 0; cl < 4; cl++) {
        for (int cr = 0; cr < 4; cr++) {
            for (int dr = 0; dr < UPF_SMAA_ORTHO_DISTANCES; dr++) {
                for (int dl = 0; dl < UPF_SMAA_ORTHO_DISTANCES; dl++) {
                    uint8_t *t = (uint8_t *)upf__smaa_area_ortho_texel(table, cl, cr, dl, dr);
                    upf__smaa_area_ortho(cl, cr, dl, dr, v);
                    t[0] = quantise(v[0]);
                    t[1] = quantise(v[1]);
                }
            }
            for (int o = 0; o < 2; o++) {
                for (int dr = 0; dr < UPF_SMAA_DIAG_DISTANCES; dr++) {
                    for (int dl = 0; dl < UPF_SMAA_DIAG_DISTANCES; dl++) {
                        uint8_t *t =
                            (uint8_t *)upf__smaa_area_diag_texel(table, o, cl, cr, dl, dr);
                        upf__smaa_area_diag(o, cl, cr, dl, dr, 0, v);
                        t[0] = quantise(v[0]);
                        t[1] = quantise(v[1]);
                    }
                }
            }
        }
    }
}
