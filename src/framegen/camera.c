/* camera.c: the frame generation engine's camera model (docs/FRAMEGEN.md, "vectors"), helpers
 * of the vectors, splat and resolve passes (not a pass itself): the homography that maps the
 * pixels of frame N to where they were in N-1, fitted to the game's motion vectors, and its
 * fractional powers, which move a pixel along the curved path a turning camera gives it.
 *
 * Reads: the motion (output pixels, of N). Writes: the camera surface (UPF__FG_CAMERA_FLOATS
 * floats: whether there is a model, the normalisation, the matrix logarithm of the fit).
 *
 * Why: a camera that turns moves a pixel along a curve, not a straight line (x = f tan(angle)
 * on the screen); at 120 degrees a second and 30 frames a second (60 degree vertical field
 * of view, 480x270) the straight line misses the point at the middle angle by 0.23 px on
 * average and by 0.69 px at the sides (f (tan a + tan b) / 2 - f tan((a + b) / 2), derived in
 * docs/FRAMEGEN.md). A turn's motion is a homography G (Hartley and
 * Zisserman, "Multiple View Geometry", 2nd ed., 8.4.2: x' = K R K^-1 x), and the view at
 * phase s of a steady turn is G^s = exp(s log G) (the rotation by s times the angle).
 *
 * The fit: the direct linear transform with Hartley's normalisation (Hartley and Zisserman,
 * algorithm 4.2; coordinates centred and scaled by half the larger side), over a grid of at
 * most about 16k pixels, the smallest eigenvector of the 9x9 normal matrix (cyclic Jacobi,
 * Golub and Van Loan, 8.5), reweighted four times keeping the pixels whose residual is within
 * max(0.5 px, 3 x the median): parallax, moving objects and the sky's points at infinity fall
 * out where they disagree. A model is kept when at least a third of the pixels are within
 * 0.5 px of it. The logarithm by inverse scaling and squaring (Higham, "Functions of
 * Matrices", 11.5: square roots by the Denman-Beavers iteration until near the identity,
 * then the series of log(I + X)), the power by scaling and squaring with the Taylor series of
 * exp (Moler and Van Loan, "Nineteen dubious ways", method 3). What the homography leaves (the
 * residual of each pixel: parallax, a moving object) moves on the straight line. */
#include <math.h>
#include <stdlib.h>

#include "framegen/framegen_passes.h"

static void mat_mul(const double *a, const double *b, double *o)
{
    double r[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    memcpy(o, r, sizeof r);
}

static double mat_det(const double *m)
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

static bool mat_inv(const double *m, double *o)
{
    const double d = mat_det(m);
    if (!(fabs(d) > 1e-300) || !isfinite(d))
        return false;
    double r[9] = { m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                    m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                    m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3] };
    for (int i = 0; i < 9; i++)
        o[i] = r[i] / d;
    return true;
}

static double mat_norm(const double *m)
{
    double s = 0;
    for (int i = 0; i < 9; i++)
        s += m[i] * m[i];
    return sqrt(s);
}

/* log of a matrix near the identity's ray (det 1): inverse scaling and squaring */
static bool mat_log(const double *g, double *out)
{
    double y[9], z[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    memcpy(y, g, sizeof y);
    int k = 0;
    for (;;) {
        double x[9];
        memcpy(x, y, sizeof x);
        x[0] -= 1, x[4] -= 1, x[8] -= 1;
        if (mat_norm(x) < 0.05) {
            /* log(I + X) = X - X^2/2 + X^3/3 - ... */
            double p[9], s[9];
            memcpy(p, x, sizeof p);
            memcpy(s, x, sizeof s);
            for (int n = 2; n <= 14; n++) {
                mat_mul(p, x, p);
                const double c = (n & 1 ? 1.0 : -1.0) / n;
                for (int i = 0; i < 9; i++)
                    s[i] += c * p[i];
            }
            for (int i = 0; i < 9; i++)
                out[i] = s[i] * (double)(1 << k);
            return true;
        }
        if (++k > 12)
            return false;
        /* Denman-Beavers: y -> sqrt(g) */
        memcpy(z, (double[9]){ 1, 0, 0, 0, 1, 0, 0, 0, 1 }, sizeof z);
        for (int it = 0; it < 40; it++) {
            double yi[9], zi[9];
            if (!mat_inv(y, yi) || !mat_inv(z, zi))
                return false;
            double dy = 0;
            for (int i = 0; i < 9; i++) {
                const double ny = 0.5 * (y[i] + zi[i]);
                dy += fabs(ny - y[i]);
                z[i] = 0.5 * (z[i] + yi[i]);
                y[i] = ny;
            }
            if (dy < 1e-14)
                break;
        }
        for (int i = 0; i < 9; i++)
            if (!isfinite(y[i]))
                return false;
    }
}

void upf__fg_camera_power(const float *cam, double s, double *m)
{
    double a[9];
    double n = 0;
    for (int i = 0; i < 9; i++) {
        a[i] = s * (double)cam[4 + i];
        n += a[i] * a[i];
    }
    int sq = 0;
    n = sqrt(n);
    while (n > 0.25 && sq < 30)
        n *= 0.5, sq++;
    for (int i = 0; i < 9; i++)
        a[i] = ldexp(a[i], -sq);
    double term[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, sum[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    for (int k = 1; k <= 12; k++) {
        mat_mul(term, a, term);
        for (int i = 0; i < 9; i++) {
            term[i] /= k;
            sum[i] += term[i];
        }
    }
    for (int k = 0; k < sq; k++)
        mat_mul(sum, sum, sum);
    memcpy(m, sum, sizeof sum);
}

bool upf__fg_camera_apply(const float *cam, const double *m, float x, float y, float *ox,
                          float *oy)
{
    const double s = (double)cam[3];
    const double u = ((double)x - cam[1]) / s, v = ((double)y - cam[2]) / s;
    const double w = m[6] * u + m[7] * v + m[8];
    if (!(w > 1e-3))
        return false;
    *ox = (float)((m[0] * u + m[1] * v + m[2]) / w * s + cam[1]);
    *oy = (float)((m[3] * u + m[4] * v + m[5]) / w * s + cam[2]);
    return true;
}

/* Smallest eigenvector of a symmetric 9x9 matrix (cyclic Jacobi). */
static void smallest_eigenvector(double a[81], double v[9])
{
    double e[81] = { 0 };
    for (int i = 0; i < 9; i++)
        e[10 * i] = 1;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0, diag = 0;
        for (int i = 0; i < 9; i++)
            for (int j = 0; j < 9; j++)
                *(i == j ? &diag : &off) += a[9 * i + j] * a[9 * i + j];
        if (off <= 1e-30 * diag)
            break;
        for (int p = 0; p < 8; p++)
            for (int q = p + 1; q < 9; q++) {
                const double apq = a[9 * p + q];
                if (fabs(apq) < 1e-300)
                    continue;
                const double th = (a[9 * q + q] - a[9 * p + p]) / (2 * apq);
                const double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1));
                const double c = 1 / sqrt(t * t + 1), sn = t * c;
                for (int k = 0; k < 9; k++) {
                    const double akp = a[9 * k + p], akq = a[9 * k + q];
                    a[9 * k + p] = c * akp - sn * akq;
                    a[9 * k + q] = sn * akp + c * akq;
                }
                for (int k = 0; k < 9; k++) {
                    const double apk = a[9 * p + k], aqk = a[9 * q + k];
                    a[9 * p + k] = c * apk - sn * aqk;
                    a[9 * q + k] = sn * apk + c * aqk;
                }
                for (int k = 0; k < 9; k++) {
                    const double ekp = e[9 * k + p], ekq = e[9 * k + q];
                    e[9 * k + p] = c * ekp - sn * ekq;
                    e[9 * k + q] = sn * ekp + c * ekq;
                }
            }
    }
    int best = 0;
    for (int i = 1; i < 9; i++)
        if (a[10 * i] < a[10 * best])
            best = i;
    for (int k = 0; k < 9; k++)
        v[k] = e[9 * k + best];
}

#define RESID_BINS 256
#define RESID_STEP 0.05 /* px per bin */

bool upf__fg_camera_fit(const float *motion, int W, int H, float *cam)
{
    memset(cam, 0, UPF__FG_CAMERA_FLOATS * sizeof *cam);
    const double cx = 0.5 * W, cy = 0.5 * H, s = 0.5 * (W > H ? W : H);
    cam[1] = (float)cx, cam[2] = (float)cy, cam[3] = (float)s;
    const int step = (int)fmax(1.0, floor(sqrt((double)W * H / 16384.0)));
    double thr = INFINITY; /* residual bound of the pixels fitted (px) */
    double g[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    double inliers = 0, total = 0;
    for (int it = 0; it < 5; it++) {
        double ata[81] = { 0 };
        long used = 0;
        unsigned hist[RESID_BINS] = { 0 };
        long near = 0, all = 0;
        for (int y = step / 2; y < H; y += step)
            for (int x = step / 2; x < W; x += step) {
                const size_t i = (size_t)y * W + x;
                const float mx = motion[2 * i], my = motion[2 * i + 1];
                if (!(mx < UPF__FG_INVALID * 0.5f))
                    continue;
                const double u = (x + 0.5 - cx) / s, v = (y + 0.5 - cy) / s;
                const double u2 = (x + 0.5 + mx - cx) / s, v2 = (y + 0.5 + my - cy) / s;
                if (it > 0) {
                    /* the residual of the previous fit, px */
                    const double w = g[6] * u + g[7] * v + g[8];
                    double e = INFINITY;
                    if (w > 1e-6) {
                        const double ex = (g[0] * u + g[1] * v + g[2]) / w - u2;
                        const double ey = (g[3] * u + g[4] * v + g[5]) / w - v2;
                        e = sqrt(ex * ex + ey * ey) * s;
                    }
                    const int b = e / RESID_STEP < RESID_BINS - 1 ? (int)(e / RESID_STEP)
                                                                   : RESID_BINS - 1;
                    hist[b]++;
                    all++;
                    near += e <= 0.5;
                    if (!(e <= thr))
                        continue;
                }
                const double r1[9] = { 0, 0, 0, -u, -v, -1, v2 * u, v2 * v, v2 };
                const double r2[9] = { u, v, 1, 0, 0, 0, -u2 * u, -u2 * v, -u2 };
                for (int a = 0; a < 9; a++)
                    for (int b = a; b < 9; b++)
                        ata[9 * a + b] += r1[a] * r1[b] + r2[a] * r2[b];
                used++;
            }
        if (it > 0) {
            inliers = (double)near, total = (double)all;
            long c = 0;
            int b = 0;
            while (b < RESID_BINS - 1 && (c += hist[b]) * 2 < all)
                b++;
            const double median = (b + 1) * RESID_STEP;
            thr = fmax(0.5, 3.0 * median);
        }
        if (it == 4 || used < 16)
            break;
        for (int a = 0; a < 9; a++)
            for (int b = 0; b < a; b++)
                ata[9 * a + b] = ata[9 * b + a];
        double h[9];
        smallest_eigenvector(ata, h);
        memcpy(g, h, sizeof g);
    }
    if (!(total > 0 && inliers * 3 >= total))
        return false;
    const double d = mat_det(g);
    if (!(d > 0 ? d > 1e-12 : d < -1e-12))
        return false;
    const double k = 1.0 / cbrt(d); /* scale to det 1 */
    for (int i = 0; i < 9; i++)
        g[i] *= k;
    double l[9];
    if (!mat_log(g, l))
        return false;
    for (int i = 0; i < 9; i++) {
        if (!isfinite(l[i]))
            return false;
        cam[4 + i] = (float)l[i];
    }
    cam[0] = 1.0f;
    return true;
}
