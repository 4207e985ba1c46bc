/* camera.c: the frame generation engine's camera pass (docs/FRAMEGEN.md, "camera"): the
 * homography that maps the pixels of frame N to where they were in N-1, from the host's
 * view-projection matrices when it gives them, else fitted to the game's motion vectors or to
 * the optical flow's; and
 * the helpers that take its fractional powers and apply them, which move a pixel along the
 * curved path a turning camera gives it (used by the splat, fill and resolve passes).
 *
 * Reads: motion (output pixels, of N). Writes: camera (UPF__FG_CAMERA_FLOATS floats: whether
 * there is a model, the normalisation, the matrix logarithm of the homography, and the fit's
 * state), camera sums (r32f, a row per 256 pixels of the fit's grid: their partial sums).
 *
 * Why: a camera that turns moves a pixel along a curve, not a straight line (x = f tan(angle)
 * on the screen); at 120 degrees a second and 30 frames a second (60 degree vertical field
 * of view, 480x270) the straight line misses the point at the middle angle by 0.23 px on
 * average and by 0.69 px at the sides (f (tan a + tan b) / 2 - f tan((a + b) / 2), derived in
 * docs/FRAMEGEN.md). A turn's motion is a homography G (Hartley and Zisserman, "Multiple View
 * Geometry", 2nd ed., 8.4.2: x' = K R K^-1 x), and the view at phase s of a steady turn is
 * G^s = exp(s log G) (the rotation by s times the angle).
 *
 * From matrices (`given`): the host computes G from the two view-projections (interpolate.c,
 * the homography of the points at infinity) into the constants; the pass takes its log.
 * Fitted (`fit`): all in fp32, a fixed number of steps, nothing read back to the host:
 * coordinates centred and scaled by half the larger side (Hartley's normalisation, their
 * algorithm 4.2), G = I + D with G[8] = 1 (the motion between two frames is near the
 * identity), D by linear least squares over a grid of at most about 16k pixels: the normal
 * equations of the two linear equations of each pixel (the direct linear transform with the
 * unknowns' offsets from the identity, so the right-hand side is the motion itself and fp32
 * keeps its digits), solved by Gaussian elimination with partial pivoting. Five rounds, each a
 * reduction step (one task per block of 256 grid pixels in row-major order writes its row of
 * camera sums: the normal equations of its pixels within the threshold added by a fixed
 * pairwise tree, and from round 1 on, the counts and the histogram of the residuals of the
 * previous fit, 0.05 px bins) and a solve step (one task: the blocks' sums by the same tree,
 * so the result does not depend on the threads and a GPU workgroup computes the same floats
 * in parallel; the counts are exact in any order; the median residual from the histogram;
 * threshold max(0.5 px, spread x median) for the next round: parallax, moving objects and
 * outliers fall out; the new fit for rounds 0-3). A model is kept when at least a third of
 * the pixels are within `near` of the last fit. Game vectors: spread 3, near 0.5 px. The
 * flow's vectors are noisier and wrong in places (a flat region's zero, a strip that came into
 * view): near 1 px (at 0.5 px 2 of the evaluation's 8 fast-turn pairs kept a model), spread 2
 * (with 3 a pan with a still patch settled on a skewed fit, 1-2 px off at the corners);
 * docs/FRAMEGEN.md, "camera". The logarithm: two square roots by the
 * Denman-Beavers iteration (eight steps each), then the series of log(I + X) to 16 terms, times
 * 4 (inverse scaling and squaring, Higham, "Functions of Matrices", 11.5, with fixed counts);
 * no model where the roots leave |X| >= 0.5 (a turn of some 80 degrees a frame at a 60
 * degree vertical field of view, 16:9). The power by scaling and squaring (1/16, four
 * squarings) with the Taylor series of exp to 10 terms (Moler and Van Loan, "Nineteen dubious
 * ways", method 3), in fp32: what a shader computes for the phase it draws. What the homography leaves (the residual of each pixel: parallax, a moving
 * object) moves on the straight line. */
#include <math.h>

#include "framegen/framegen_passes.h"

/* the camera surface's layout */
#define CAM_HAS 0
#define CAM_CX 1
#define CAM_CY 2
#define CAM_S 3
#define CAM_LOG 4       /* 9: log G, normalised coordinates, det G = 1 */
#define CAM_THR 13      /* the fit's threshold for its next round, px */
#define CAM_NEAR 14     /* pixels within `near` of the fit, and all pixels (last round) */
#define CAM_ALL 15
#define CAM_G 16        /* 9: the fit so far (G[8] = 1) */

/* the layout of a row of camera sums */
#define SUM_ATA 0       /* 36: the upper triangle of the 8x8 normal matrix, row by row */
#define SUM_ATB 36      /* 8 */
#define SUM_USED 44
#define SUM_NEAR 45
#define SUM_ALL 46
#define SUM_HIST 48     /* UPF__FG_CAMERA_BINS residual bins */
#define RESID_STEP 0.05f /* px per bin */
#define ROUNDS 5

static void mat_mul(const float *a, const float *b, float *o)
{
    float r[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    memcpy(o, r, sizeof r);
}

static float mat_det(const float *m)
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

static bool mat_inv(const float *m, float *o)
{
    const float d = mat_det(m);
    if (!(fabsf(d) > 1e-20f) || !isfinite(d))
        return false;
    const float r[9] = { m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8],
                         m[1] * m[5] - m[2] * m[4], m[5] * m[6] - m[3] * m[8],
                         m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                         m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7],
                         m[0] * m[4] - m[1] * m[3] };
    for (int i = 0; i < 9; i++)
        o[i] = r[i] / d;
    return true;
}

/* log of a matrix near the identity (det 1), fixed counts: two Denman-Beavers square roots
 * of eight steps, the series of log(I + X) to 16 terms, times 4 */
static bool mat_log(const float *g, float *out)
{
    float y[9];
    memcpy(y, g, sizeof y);
    for (int r = 0; r < 2; r++) {
        float z[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
        for (int it = 0; it < 8; it++) {
            float yi[9], zi[9];
            if (!mat_inv(y, yi) || !mat_inv(z, zi))
                return false;
            for (int i = 0; i < 9; i++) {
                y[i] = 0.5f * (y[i] + zi[i]);
                z[i] = 0.5f * (z[i] + yi[i]);
            }
        }
    }
    float x[9], n = 0.0f;
    memcpy(x, y, sizeof x);
    x[0] -= 1.0f, x[4] -= 1.0f, x[8] -= 1.0f;
    for (int i = 0; i < 9; i++)
        n += x[i] * x[i];
    if (!(n < 0.25f))
        return false;
    float p[9], s[9];
    memcpy(p, x, sizeof p);
    memcpy(s, x, sizeof s);
    for (int k = 2; k <= 16; k++) {
        mat_mul(p, x, p);
        const float c = (k & 1 ? 1.0f : -1.0f) / (float)k;
        for (int i = 0; i < 9; i++)
            s[i] += c * p[i];
    }
    for (int i = 0; i < 9; i++) {
        out[i] = 4.0f * s[i];
        if (!isfinite(out[i]))
            return false;
    }
    return true;
}

void upf__fg_camera_power(const float *cam, float s, float *m)
{
    float a[9], term[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, sum[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    for (int i = 0; i < 9; i++)
        a[i] = s * cam[CAM_LOG + i] * (1.0f / 16.0f);
    for (int k = 1; k <= 10; k++) {
        mat_mul(term, a, term);
        for (int i = 0; i < 9; i++) {
            term[i] /= (float)k;
            sum[i] += term[i];
        }
    }
    for (int k = 0; k < 4; k++)
        mat_mul(sum, sum, sum);
    memcpy(m, sum, sizeof sum);
}

bool upf__fg_camera_apply(const float *cam, const float *m, float x, float y, float *ox,
                          float *oy)
{
    const float s = cam[CAM_S], is = 1.0f / s;
    const float u = (x - cam[CAM_CX]) * is, v = (y - cam[CAM_CY]) * is;
    const float w = m[6] * u + m[7] * v + m[8];
    if (!(w > 1e-3f))
        return false;
    const float iw = 1.0f / w;
    *ox = (m[0] * u + m[1] * v + m[2]) * iw * s + cam[CAM_CX];
    *oy = (m[3] * u + m[4] * v + m[5]) * iw * s + cam[CAM_CY];
    return true;
}

/* ---- the fit -------------------------------------------------------------------------- */

typedef struct cam_job {
    const upf__fg_camera_con *con;
    const float *motion;
    float *cam, *sums;
    int round;
} cam_job;

#define NSUM 44         /* the float sums of a row: SUM_ATA and SUM_ATB */
#define BLOCK UPF__FG_CAMERA_BLOCK

/* Sums BLOCK values into a[0] by a fixed pairwise tree, v[i] + v[i + h] for h = BLOCK / 2,
 * ..., 2, 1 (what a workgroup does in shared memory, so the GPU's floats are these), its first
 * level already added by the caller: a[i] = v[i] + v[i + BLOCK / 2], i < BLOCK / 2. */
static void tree_sum(float (*a)[NSUM])
{
    for (int h = BLOCK / 4; h >= 1; h /= 2)
        for (int i = 0; i < h; i++)
            for (int k = 0; k < NSUM; k++)
                a[i][k] = a[i][k] + a[i + h][k];
}

/* Grid pixel p's terms of the normal equations against the fit and threshold in the camera
 * surface into l (zeros where it is left out), its counts and histogram bin into o. */
static void pixel_terms(const cam_job *j, int p, float *l, float *o)
{
    const upf__fg_camera_con *c = j->con;
    const float *cam = j->cam, *g = cam + CAM_G;
    const float cx = cam[CAM_CX], cy = cam[CAM_CY], s = cam[CAM_S], is = 1.0f / s;
    memset(l, 0, NSUM * sizeof *l);
    if (p >= c->grid_w * c->grid_h)
        return;
    const int x = c->step / 2 + p % c->grid_w * c->step, y = c->step / 2 + p / c->grid_w * c->step;
    const size_t i = (size_t)y * c->width + x;
    const float mx = j->motion[2 * i], my = j->motion[2 * i + 1];
    if (!(mx < UPF__FG_INVALID * 0.5f))
        return;
    const float u = ((float)x + 0.5f - cx) * is, v = ((float)y + 0.5f - cy) * is;
    const float du = mx * is, dv = my * is, u2 = u + du, v2 = v + dv;
    if (j->round > 0) {
        /* the residual of the previous fit, px */
        const float w = g[6] * u + g[7] * v + g[8];
        float e = INFINITY;
        if (w > 1e-6f) {
            const float ex = (g[0] * u + g[1] * v + g[2]) / w - u2;
            const float ey = (g[3] * u + g[4] * v + g[5]) / w - v2;
            e = sqrtf(ex * ex + ey * ey) * s;
        }
        const float b = e / RESID_STEP;
        o[SUM_HIST + (b < (float)(UPF__FG_CAMERA_BINS - 1) ? (int)b
                                                           : UPF__FG_CAMERA_BINS - 1)] += 1.0f;
        o[SUM_ALL] += 1.0f;
        o[SUM_NEAR] += e <= c->near ? 1.0f : 0.0f;
        if (!(e <= cam[CAM_THR]))
            return;
    }
    const float rx[8] = { u, v, 1, 0, 0, 0, -u * u2, -v * u2 };
    const float ry[8] = { 0, 0, 0, u, v, 1, -u * v2, -v * v2 };
    for (int a = 0, k = 0; a < 8; a++) {
        for (int b = a; b < 8; b++, k++)
            l[SUM_ATA + k] = rx[a] * rx[b] + ry[a] * ry[b];
        l[SUM_ATB + a] = rx[a] * du + ry[a] * dv;
    }
    o[SUM_USED] += 1.0f;
}

/* Row `blk` of camera sums: grid pixels BLOCK blk .. BLOCK blk + BLOCK - 1 (row-major); the
 * float sums by tree_sum, the counts (exact in any order) by adding. */
static void reduce_block(void *priv, int blk, int worker)
{
    (void)worker;
    const cam_job *j = priv;
    float *o = j->sums + (size_t)blk * UPF__FG_CAMERA_ROW;
    memset(o, 0, sizeof(float) * UPF__FG_CAMERA_ROW);
    float l[BLOCK / 2][NSUM], l2[NSUM];
    for (int i = 0; i < BLOCK / 2; i++) {
        pixel_terms(j, BLOCK * blk + i, l[i], o);
        pixel_terms(j, BLOCK * blk + i + BLOCK / 2, l2, o);
        for (int k = 0; k < NSUM; k++)
            l[i][k] = l[i][k] + l2[k];
    }
    tree_sum(l);
    memcpy(o, l[0], sizeof l[0]);
}

/* Solves the 8x8 system a x = b (row-major) by Gaussian elimination with partial pivoting;
 * false when it is singular. */
static bool solve8(float *a, float *b, float *x)
{
    for (int col = 0; col < 8; col++) {
        int piv = col;
        for (int r = col + 1; r < 8; r++)
            if (fabsf(a[8 * r + col]) > fabsf(a[8 * piv + col]))
                piv = r;
        if (!(fabsf(a[8 * piv + col]) > 1e-12f))
            return false;
        for (int k = 0; k < 8; k++) {
            const float t = a[8 * col + k];
            a[8 * col + k] = a[8 * piv + k], a[8 * piv + k] = t;
        }
        const float tb = b[col];
        b[col] = b[piv], b[piv] = tb;
        for (int r = col + 1; r < 8; r++) {
            const float f = a[8 * r + col] / a[8 * col + col];
            for (int k = col; k < 8; k++)
                a[8 * r + k] -= f * a[8 * col + k];
            b[r] -= f * b[col];
        }
    }
    for (int r = 7; r >= 0; r--) {
        float v = b[r];
        for (int k = r + 1; k < 8; k++)
            v -= a[8 * r + k] * x[k];
        x[r] = v / a[8 * r + r];
        if (!isfinite(x[r]))
            return false;
    }
    return true;
}

/* The solve step of a round: the rows' sums (the tree's value i, i < BLOCK, holds rows i,
 * i + BLOCK, ... added in order; tree_sum on those, its first level added here), the next
 * threshold, the new fit. */
static void solve_step(const cam_job *j)
{
    const upf__fg_camera_con *c = j->con;
    const int nb = upf__fg_camera_blocks(c->grid_w, c->grid_h);
    float *cam = j->cam;
    float t[UPF__FG_CAMERA_ROW] = { 0 }, l[BLOCK / 2][NSUM];
    for (int i = 0; i < BLOCK / 2; i++)
        for (int k = 0; k < NSUM; k++) {
            float v = 0.0f, w = 0.0f;
            for (int b = i; b < nb; b += BLOCK)
                v = v + j->sums[(size_t)b * UPF__FG_CAMERA_ROW + k];
            for (int b = i + BLOCK / 2; b < nb; b += BLOCK)
                w = w + j->sums[(size_t)b * UPF__FG_CAMERA_ROW + k];
            l[i][k] = v + w;
        }
    for (int b = 0; b < nb; b++)
        for (int k = NSUM; k < UPF__FG_CAMERA_ROW; k++)
            t[k] += j->sums[(size_t)b * UPF__FG_CAMERA_ROW + k];
    tree_sum(l);
    memcpy(t, l[0], sizeof l[0]);
    if (j->round > 0) {
        cam[CAM_NEAR] = t[SUM_NEAR], cam[CAM_ALL] = t[SUM_ALL];
        /* the median residual, from the histogram */
        float n = 0.0f;
        int b = 0;
        while (b < UPF__FG_CAMERA_BINS - 1 && (n += t[SUM_HIST + b]) * 2.0f < t[SUM_ALL])
            b++;
        cam[CAM_THR] = fmaxf(0.5f, c->spread * (float)(b + 1) * RESID_STEP);
    }
    if (j->round == ROUNDS - 1 || t[SUM_USED] < 16.0f)
        return; /* the last round only measures; too few pixels keep the fit */
    float a[64], rhs[8], d[8];
    for (int r = 0, k = 0; r < 8; r++)
        for (int q = r; q < 8; q++, k++)
            a[8 * r + q] = a[8 * q + r] = t[SUM_ATA + k];
    memcpy(rhs, t + SUM_ATB, sizeof rhs);
    if (!solve8(a, rhs, d))
        return;
    float *g = cam + CAM_G;
    const float gn[9] = { 1 + d[0], d[1], d[2], d[3], 1 + d[4], d[5], d[6], d[7], 1 };
    memcpy(g, gn, sizeof gn);
}

/* The model from G (normalised coordinates): det 1, its log; false where there is none. */
static bool finish(float *cam, const float *g0)
{
    float g[9];
    memcpy(g, g0, sizeof g);
    const float d = mat_det(g);
    if (!(fabsf(d) > 1e-6f) || !isfinite(d))
        return false;
    /* The cube root rounded once to float from double's (cbrtf may be an ulp off, and the
     * shader computes the correctly rounded root: exact.glsl's upf_cbrt_rn). */
    const float k = 1.0f / (float)cbrt((double)d);
    for (int i = 0; i < 9; i++)
        g[i] *= k;
    return mat_log(g, cam + CAM_LOG);
}

static void init(const upf__fg_camera_con *c, float *cam)
{
    memset(cam, 0, UPF__FG_CAMERA_FLOATS * sizeof *cam);
    cam[CAM_CX] = 0.5f * (float)c->width, cam[CAM_CY] = 0.5f * (float)c->height;
    cam[CAM_S] = 0.5f * (float)(c->width > c->height ? c->width : c->height);
    cam[CAM_THR] = INFINITY;
    const float id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    memcpy(cam + CAM_G, id, sizeof id);
}

void upf__fg_camera_run(upf_context *ctx, const upf__fg_camera_con *con, const float *motion,
                        float *cam, float *sums)
{
    init(con, cam);
    if (con->given) {
        if (finish(cam, con->g))
            cam[CAM_HAS] = 1.0f;
        return;
    }
    if (!con->fit)
        return; /* no model: the motion moves on straight lines */
    cam_job job = { con, motion, cam, sums, 0 };
    for (int r = 0; r < ROUNDS; r++) {
        job.round = r;
        upf__parallel_for(ctx, reduce_block, &job,
                          upf__fg_camera_blocks(con->grid_w, con->grid_h));
        solve_step(&job);
    }
    if (cam[CAM_ALL] > 0.0f && cam[CAM_NEAR] * 3.0f >= cam[CAM_ALL] && finish(cam, cam + CAM_G))
        cam[CAM_HAS] = 1.0f;
}

void upf__fg_camera_grid(int width, int height, int *step, int *grid_w, int *grid_h)
{
    *step = (int)fmax(1.0, floor(sqrt((double)width * height / 16384.0)));
    *grid_w = (width - *step / 2 + *step - 1) / *step;
    *grid_h = (height - *step / 2 + *step - 1) / *step;
}

upf_result upf__fg_camera_pass(const upf__pass_args *a)
{
    const upf__surface *s = a->surface;
    upf__fg_camera_run(a->ctx, a->con, s[UPF__FG_MOTION].data, s[UPF__FG_CAMERA].data,
                       s[UPF__FG_CAMERA_SUMS].data);
    return UPF_OK;
}
