/* flip.c: LDR-FLIP, the perceptual difference of a test image against a reference
 * (upf_metric_flip).
 *
 * P. Andersson, J. Nilsson, T. Akenine-Moller, M. Oskarsson, K. Astrom, M. D. Fairchild,
 * "FLIP: A Difference Evaluator for Alternating Images", Proc. ACM CGIT (HPG) 3(2), 2020, as
 * implemented by NVIDIA's reference (NVlabs/flip, FLIP.h and tool/pooling.h): the steps,
 * constants and float32 order of operations below follow it, so results agree with it to
 * float rounding. Steps, per pixel of the crop:
 *   1. display-encoded sRGB -> linear (IEC 61966-2-1) -> XYZ (D65) -> YyCxCz:
 *      Y' = 116 y - 16, Cx = 500 (x - y), Cz = 200 (y - z), x y z = XYZ / white.
 *   2. CSF filtering of each channel (paper section 4.1): kernels defined in degrees,
 *      g(x) = a sqrt(pi / b) exp(-pi^2 x^2 / b), sampled every 1/ppd degrees over a radius of
 *      ceil(3 sqrt(b_max / (2 pi^2)) ppd) pixels; achromatic (a 1, b 0.0047), red-green
 *      (a 1, b 0.0053), blue-yellow a sum of two Gaussians (34.1, 0.04) + (13.5, 0.025).
 *      Separable (misc/separatedConvolutions.pdf): Y and Cx filter with 1-D kernels summing
 *      to 1; Cz with two 1-D kernels sqrt(a sqrt(pi / b)) exp(...), both scaled by
 *      1 / sqrt(S1^2 + S2^2), whose two 2-D results are added. Rows, then columns; borders
 *      clamp to the edge.
 *   3. Filtered YyCxCz -> XYZ -> linear RGB clamped to [0, 1] -> CIELAB (D65); Hunt
 *      adjustment a* b* <- 0.01 L* a*, 0.01 L* b*; HyAB distance |dL| + sqrt(da^2 + db^2);
 *      raised to qc = 0.7; mapped to [0, 1]: [0, pc cmax) linearly onto [0, pt), the rest of
 *      [pc cmax, cmax] onto [pt, 1], with cmax the distance of green to blue, pc 0.4, pt 0.95.
 *   4. Features (section 4.2) on the unfiltered Y' normalised to [0, 1] by (Y' + 16) / 116:
 *      Gaussian sigma = 0.5 w ppd (w = 0.082 degrees), radius ceil(3 sigma); edges = first
 *      derivative, points = second derivative (x^2 / sigma^2 - 1) g; the Gaussian sums to 1,
 *      the positive and negative parts of each derivative to +1 and -1; applied separably
 *      (derivative along one axis, Gaussian along the other). Feature difference
 *      ((1 / sqrt 2) max(|edge_ref - edge_test|, |point_ref - point_test|))^qf, qf = 0.5.
 *   5. Error = colour difference ^ (1 - feature difference).
 * Pooling (tool/pooling.h): mean, min, max, and weighted percentiles of a 100-bucket
 * histogram over [0, 1] whose buckets weigh their count times their centre value.
 *
 * Reads the crop of both images; writes a upf_flip_result and, if given, the per-pixel error
 * into an R32F map. Work is split into bands of output rows; each band converts and filters
 * the rows it needs (its rows plus the filter radius above and below) in its own scratch, so
 * memory stays small at 4K. Per-row sums are added in row order and histogram counts are
 * integers, so results do not depend on the thread count. */
#include <math.h>

#include "metrics/metrics.h"

/* Constants of FLIP.h (names of the paper in comments). */
#define FLIP_PI 3.14159265358979f
#define FLIP_QC 0.7f   /* colour difference exponent q_c */
#define FLIP_PC 0.4f   /* p_c: the share of cmax below which differences map onto [0, p_t) */
#define FLIP_PT 0.95f  /* p_t */
#define FLIP_W 0.082f  /* feature detector width w, degrees */
#define FLIP_QF 0.5f   /* feature difference exponent q_f */
#define FLIP_BUCKETS 100
#define FLIP_MIN_PPD 2.0    /* below this the feature Gaussian underflows to a single tap */
#define FLIP_MAX_PPD 1000.0 /* kernels of ~270 taps; far beyond any real display */

/* CSF parameters (paper table 1 / FLIP.h GaussianConstants): a1, b1 per channel and the
 * second Gaussian of the blue-yellow channel. */
static const float csf_a1[3] = { 1.0f, 1.0f, 34.1f };
static const float csf_b1[3] = { 0.0047f, 0.0053f, 0.04f };
static const float csf_a2_cz = 13.5f, csf_b2_cz = 0.025f;
/* the largest scale parameter b over all Gaussians of FLIP.h (b2 of Y and Cx is 1e-5) */
static const float csf_b_max = 0.04f;

/* ---- colour ------------------------------------------------------------------------- */

/* sRGB decode in float, as FLIP.h (IEC 61966-2-1 section 5.2). */
static inline float flip_srgb_to_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* Linear sRGB -> XYZ (D65), exact rational coefficients (FLIP.h, after image-engineering.de). */
static inline void flip_rgb_to_xyz(float r, float g, float b, float *x, float *y, float *z)
{
    const float a11 = 10135552.0f / 24577794.0f, a12 = 8788810.0f / 24577794.0f,
                a13 = 4435075.0f / 24577794.0f;
    const float a21 = 2613072.0f / 12288897.0f, a22 = 8788810.0f / 12288897.0f,
                a23 = 887015.0f / 12288897.0f;
    const float a31 = 1425312.0f / 73733382.0f, a32 = 8788810.0f / 73733382.0f,
                a33 = 70074185.0f / 73733382.0f;
    *x = a11 * r + a12 * g + a13 * b;
    *y = a21 * r + a22 * g + a23 * b;
    *z = a31 * r + a32 * g + a33 * b;
}

/* The D65 reference white and its inverse, as FLIP.h writes them. */
#define FLIP_WHITE_X 0.950428545f
#define FLIP_WHITE_Z 1.088900371f
#define FLIP_INV_WHITE_X 1.052156925f
#define FLIP_INV_WHITE_Z 0.918357670f

/* Linear RGB (decoded from the display-encoded values) -> YyCxCz (step 1). */
static inline void flip_linear_to_ycxcz(float r, float g, float b, float *yy, float *cx,
                                        float *cz)
{
    float x, y, z;
    flip_rgb_to_xyz(r, g, b, &x, &y, &z);
    x *= FLIP_INV_WHITE_X;
    z *= FLIP_INV_WHITE_Z;
    *yy = 116.0f * y - 16.0f;
    *cx = 500.0f * (x - y);
    *cz = 200.0f * (y - z);
}

/* XYZ -> CIELAB (D65), CIE 15:2004 eq. 8.3 with its linear part near black, then the Hunt
 * adjustment of a* and b* (paper eq. 2). */
static inline void flip_xyz_to_lab_hunt(float x, float y, float z, float lab[3])
{
    const float delta = 6.0f / 29.0f;
    const float delta_sq = delta * delta;
    const float delta_cube = delta * delta_sq;
    const float factor = 1.0f / (3.0f * delta_sq);
    const float term = 4.0f / 29.0f;
    x *= FLIP_INV_WHITE_X;
    z *= FLIP_INV_WHITE_Z;
    x = x > delta_cube ? powf(x, 1.0f / 3.0f) : factor * x + term;
    y = y > delta_cube ? powf(y, 1.0f / 3.0f) : factor * y + term;
    z = z > delta_cube ? powf(z, 1.0f / 3.0f) : factor * z + term;
    float l = 116.0f * y - 16.0f;
    float a = 500.0f * (x - y);
    float b = 200.0f * (y - z);
    lab[0] = l;
    lab[1] = 0.01f * l * a;
    lab[2] = 0.01f * l * b;
}

/* Filtered YyCxCz -> linear RGB clamped to [0, 1] -> Hunt-adjusted CIELAB (step 3). */
static inline void flip_ycxcz_to_lab_hunt(float yy, float cx, float cz, float lab[3])
{
    float y = (yy + 16.0f) / 116.0f;
    float x = (y + cx / 500.0f) * FLIP_WHITE_X;
    float z = (y - cz / 200.0f) * FLIP_WHITE_Z;
    float r = 3.241003275f * x + -1.537398934f * y + -0.498615861f * z;
    float g = -0.969224334f * x + 1.875930071f * y + 0.041554224f * z;
    float b = 0.055639423f * x + -0.204011202f * y + 1.057148933f * z;
    r = UPF_MIN(UPF_MAX(r, 0.0f), 1.0f);
    g = UPF_MIN(UPF_MAX(g, 0.0f), 1.0f);
    b = UPF_MIN(UPF_MAX(b, 0.0f), 1.0f);
    flip_rgb_to_xyz(r, g, b, &x, &y, &z);
    flip_xyz_to_lab_hunt(x, y, z, lab);
}

/* HyAB distance (paper eq. 3): city-block in L*, Euclidean in a* b*. */
static inline float flip_hyab(const float p[3], const float q[3])
{
    float da = p[1] - q[1], db = p[2] - q[2];
    return fabsf(p[0] - q[0]) + sqrtf(da * da + db * db);
}

/* cmax: the HyAB distance of Hunt-adjusted green to blue, to the power qc (paper eq. 4). */
static float flip_cmax(void)
{
    float x, y, z, green[3], blue[3];
    flip_rgb_to_xyz(0.0f, 1.0f, 0.0f, &x, &y, &z);
    flip_xyz_to_lab_hunt(x, y, z, green);
    flip_rgb_to_xyz(0.0f, 0.0f, 1.0f, &x, &y, &z);
    flip_xyz_to_lab_hunt(x, y, z, blue);
    return powf(flip_hyab(green, blue), FLIP_QC);
}

/* ---- kernels ------------------------------------------------------------------------ */

typedef struct flip_kernels {
    int rs;                         /* CSF radius */
    float *ky, *kcx, *kcz1, *kcz2;  /* 2 rs + 1 taps each */
    int rf;                         /* feature radius */
    float *fg, *fd, *fdd;           /* Gaussian, 1st and 2nd derivative: 2 rf + 1 taps each */
} flip_kernels;

/* g(x) = a sqrt(pi / b) exp(-pi^2 x^2 / b), the paper's eq. 1, and the square root of its
 * amplitude for separating a sum of Gaussians. */
static inline float csf_gaussian(float x2, float a, float b)
{
    const float pi_sq = FLIP_PI * FLIP_PI;
    return a * sqrtf(FLIP_PI / b) * expf(-pi_sq * x2 / b);
}

static inline float csf_gaussian_sqrt(float x2, float a, float b)
{
    const float pi_sq = FLIP_PI * FLIP_PI;
    return sqrtf(a * sqrtf(FLIP_PI / b)) * expf(-pi_sq * x2 / b);
}

static int flip_csf_radius(float ppd)
{
    const float pi_sq = FLIP_PI * FLIP_PI;
    return (int)ceilf(3.0f * sqrtf(csf_b_max / (2.0f * pi_sq)) * ppd);
}

static int flip_feature_radius(float ppd)
{
    return (int)ceilf(3.0f * (0.5f * FLIP_W * ppd));
}

/* Fills the kernels; `taps` has room for 4 (2 rs + 1) + 3 (2 rf + 1) floats. */
static void flip_make_kernels(float ppd, float *taps, flip_kernels *k)
{
    k->rs = flip_csf_radius(ppd);
    int ns = 2 * k->rs + 1;
    k->ky = taps;
    k->kcx = k->ky + ns;
    k->kcz1 = k->kcx + ns;
    k->kcz2 = k->kcz1 + ns;
    float dx = 1.0f / ppd; /* one pixel in degrees */
    float sy = 0.0f, scx = 0.0f, scz1 = 0.0f, scz2 = 0.0f;
    for (int i = 0; i < ns; i++) {
        float x = (float)(i - k->rs) * dx, x2 = x * x;
        k->ky[i] = csf_gaussian(x2, csf_a1[0], csf_b1[0]);
        k->kcx[i] = csf_gaussian(x2, csf_a1[1], csf_b1[1]);
        k->kcz1[i] = csf_gaussian_sqrt(x2, csf_a1[2], csf_b1[2]);
        k->kcz2[i] = csf_gaussian_sqrt(x2, csf_a2_cz, csf_b2_cz);
        sy += k->ky[i];
        scx += k->kcx[i];
        scz1 += k->kcz1[i];
        scz2 += k->kcz2[i];
    }
    /* Y, Cx: each 1-D kernel sums to 1. Cz: w1(x) w1(y) + w2(x) w2(y) sums to 1 when both
     * are divided by sqrt(S1^2 + S2^2). */
    float ny = 1.0f / sy, ncx = 1.0f / scx, ncz = 1.0f / sqrtf(scz1 * scz1 + scz2 * scz2);
    for (int i = 0; i < ns; i++) {
        k->ky[i] *= ny;
        k->kcx[i] *= ncx;
        k->kcz1[i] *= ncz;
        k->kcz2[i] *= ncz;
    }

    float sd = 0.5f * FLIP_W * ppd; /* sigma in pixels */
    k->rf = flip_feature_radius(ppd);
    int nf = 2 * k->rf + 1;
    k->fg = k->kcz2 + ns;
    k->fd = k->fg + nf;
    k->fdd = k->fd + nf;
    float gsum = 0.0f, d_pos = 0.0f, d_neg = 0.0f, dd_pos = 0.0f, dd_neg = 0.0f;
    for (int i = 0; i < nf; i++) {
        float x = (float)(i - k->rf);
        float g = expf(-(x * x) / (2.0f * sd * sd));
        float d = -x * g;                             /* first derivative, up to scale */
        float dd = (x * x / (sd * sd) - 1.0f) * g;    /* second derivative, up to scale */
        gsum += g;
        if (d > 0.0f)
            d_pos += d;
        else
            d_neg -= d;
        if (dd > 0.0f)
            dd_pos += dd;
        else
            dd_neg -= dd;
        k->fg[i] = g;
        k->fd[i] = d;
        k->fdd[i] = dd;
    }
    for (int i = 0; i < nf; i++) {
        k->fg[i] = k->fg[i] / gsum;
        k->fd[i] = k->fd[i] / (k->fd[i] > 0.0f ? d_pos : d_neg);
        k->fdd[i] = k->fdd[i] / (k->fdd[i] > 0.0f ? dd_pos : dd_neg);
    }
}

/* ---- the band worker ---------------------------------------------------------------- */

typedef struct flip_job {
    const upf_image *ref, *test, *map;
    upf_rect rect;
    /* For 8-bit formats: the decoded linear value of each code, flip_srgb_to_linear of the
     * display-encoded value, so the same floats as decoding each pixel; NULL otherwise. */
    const float *decode8[2];
    flip_kernels k;
    int reach;            /* max(rs, rf): input rows needed above and below a band */
    int band;             /* output rows per band */
    float cmax, pccmax;
    char *scratch;        /* per worker */
    size_t scratch_bytes;
    double *row_sums;     /* per crop row: sum of the error */
    uint64_t *hist;       /* per band: FLIP_BUCKETS counts */
    float *band_min, *band_max;
} flip_job;

/* Per-worker scratch, in floats, for a crop `w` wide. */
typedef struct flip_layout {
    size_t rgba, ycc, pad, hrows, cd, acc, total;
} flip_layout;

static flip_layout flip_scratch_layout(int w, int band, int rs, int rf)
{
    int reach = UPF_MAX(rs, rf);
    size_t W = (size_t)w, rows_in = (size_t)band + 2 * (size_t)reach;
    size_t rows_s = (size_t)band + 2 * (size_t)rs, rows_f = (size_t)band + 2 * (size_t)rf;
    flip_layout l;
    l.rgba = 0;
    l.ycc = l.rgba + 4 * W;                       /* 2 images x Y Cx Cz x rows_in rows */
    l.pad = l.ycc + 6 * rows_in * W;              /* one row with `reach` repeats each side */
    l.hrows = l.pad + W + 2 * (size_t)reach;      /* 2 x 4 CSF planes, later 2 x 3 feature */
    l.cd = l.hrows + UPF_MAX(8 * rows_s, 6 * rows_f) * W; /* colour difference, band rows */
    l.acc = l.cd + (size_t)band * W;              /* 8 column accumulators */
    l.total = l.acc + 8 * W;
    l.total = (l.total + 15) / 16 * 16;           /* keep each worker's block 64-byte aligned */
    return l;
}

/* out[x] = sum_k kernel[k] in[clamp(x + k - r)], with `pad` as room for the clamped row. The
 * taps of each pixel are added in order k = 0 .. 2r starting from 0, as the reference does;
 * looping over the taps outside and the pixels inside lets the compiler vectorise. */
static void flip_filter_row(const float *restrict in, int w, const float *restrict kernel, int r,
                            float *restrict pad, float *restrict out)
{
    for (int i = 0; i < r; i++)
        pad[i] = in[0], pad[r + w + i] = in[w - 1];
    for (int x = 0; x < w; x++)
        pad[r + x] = in[x];
    for (int x = 0; x < w; x++)
        out[x] = 0.0f;
    for (int k = 0; k <= 2 * r; k++) {
        float wk = kernel[k];
        const float *p = pad + k;
        for (int x = 0; x < w; x++)
            out[x] += wk * p[x];
    }
}

/* out[x] = sum_k kernel[k] rows[clamp(y + k - r)][x] for k = 0 .. 2r, rows indexed from `lo`;
 * the same order of additions. */
static void flip_filter_column(const float *plane, int lo, int h, int w, int y,
                               const float *restrict kernel, int r, float *restrict out)
{
    for (int x = 0; x < w; x++)
        out[x] = 0.0f;
    for (int k = 0; k <= 2 * r; k++) {
        const float *row = plane + (size_t)(UPF_CLAMP(y + k - r, 0, h - 1) - lo) * w;
        float wk = kernel[k];
        for (int x = 0; x < w; x++)
            out[x] += wk * row[x];
    }
}

/* The bucket of an error value, as tool/pooling.h: value / (1/100 in float), the top edge in
 * the last bucket; -1 outside [0, 1] (not counted). */
static int flip_bucket(float v)
{
    const float bucket_size = 1.0f / (float)FLIP_BUCKETS;
    if (v < 0.0f || v > 1.0f)
        return -1;
    int id = (int)((double)v / (double)bucket_size);
    return id >= FLIP_BUCKETS ? FLIP_BUCKETS - 1 : id;
}

static void flip_band_task(void *priv, int band_index, int worker)
{
    const flip_job *job = priv;
    const flip_kernels *k = &job->k;
    int w = job->rect.width, h = job->rect.height;
    size_t W = (size_t)w;
    int y0 = band_index * job->band, y1 = UPF_MIN(y0 + job->band, h);
    flip_layout l = flip_scratch_layout(w, job->band, k->rs, k->rf);
    float *s = (float *)(job->scratch + (size_t)worker * job->scratch_bytes);
    float *rgba = s + l.rgba, *pad = s + l.pad, *cd = s + l.cd, *acc = s + l.acc;

    /* 1. YyCxCz of input rows [lo, hi): plane (image i, channel c) at ycc + (3 i + c) rows W. */
    int lo = UPF_MAX(0, y0 - job->reach), hi = UPF_MIN(h, y1 + job->reach);
    size_t in_plane = (size_t)(hi - lo) * W;
    float *ycc = s + l.ycc;
    for (int i = 0; i < 2; i++) {
        const upf_image *img = i ? job->test : job->ref;
        const float *table = job->decode8[i];
        float *py = ycc + 3 * (size_t)i * in_plane, *pcx = py + in_plane, *pcz = pcx + in_plane;
        for (int y = lo; y < hi; y++) {
            size_t o = (size_t)(y - lo) * W;
            if (table) {
                const uint8_t *p = (const uint8_t *)upf__row(img, job->rect.y + y) +
                                   (size_t)job->rect.x * 4;
                for (int x = 0; x < w; x++, p += 4)
                    flip_linear_to_ycxcz(table[p[0]], table[p[1]], table[p[2]], py + o + x,
                                         pcx + o + x, pcz + o + x);
                continue;
            }
            upf__row_to_display(img, job->rect.y + y, job->rect.x, w, rgba);
            for (int x = 0; x < w; x++) {
                const float *e = rgba + 4 * x;
                flip_linear_to_ycxcz(flip_srgb_to_linear(e[0]), flip_srgb_to_linear(e[1]),
                                     flip_srgb_to_linear(e[2]), py + o + x, pcx + o + x,
                                     pcz + o + x);
            }
        }
    }

    /* 2. CSF rows pass over [slo, shi): planes (image i) Y, Cx, Cz1, Cz2 at hrows + (4 i + c). */
    int slo = UPF_MAX(0, y0 - k->rs), shi = UPF_MIN(h, y1 + k->rs);
    size_t s_plane = (size_t)(shi - slo) * W;
    float *hrows = s + l.hrows;
    for (int i = 0; i < 2; i++) {
        const float *py = ycc + 3 * (size_t)i * in_plane, *pcx = py + in_plane,
                    *pcz = pcx + in_plane;
        float *oy = hrows + 4 * (size_t)i * s_plane;
        for (int y = slo; y < shi; y++) {
            size_t src = (size_t)(y - lo) * W, dst = (size_t)(y - slo) * W;
            flip_filter_row(py + src, w, k->ky, k->rs, pad, oy + dst);
            flip_filter_row(pcx + src, w, k->kcx, k->rs, pad, oy + s_plane + dst);
            flip_filter_row(pcz + src, w, k->kcz1, k->rs, pad, oy + 2 * s_plane + dst);
            flip_filter_row(pcz + src, w, k->kcz2, k->rs, pad, oy + 3 * s_plane + dst);
        }
    }

    /* 2-3. CSF columns pass and colour difference for the band's rows. */
    const float *kern[4] = { k->ky, k->kcx, k->kcz1, k->kcz2 };
    for (int y = y0; y < y1; y++) {
        for (int p = 0; p < 8; p++) /* acc plane p: image p / 4, channel p % 4 */
            flip_filter_column(hrows + (size_t)p * s_plane, slo, h, w, y, kern[p % 4], k->rs,
                               acc + (size_t)p * W);
        float *row_cd = cd + (size_t)(y - y0) * W;
        for (int x = 0; x < w; x++) {
            float lab_ref[3], lab_test[3];
            flip_ycxcz_to_lab_hunt(acc[x], acc[W + x], acc[2 * W + x] + acc[3 * W + x],
                                   lab_ref);
            flip_ycxcz_to_lab_hunt(acc[4 * W + x], acc[5 * W + x],
                                   acc[6 * W + x] + acc[7 * W + x], lab_test);
            float e = powf(flip_hyab(lab_ref, lab_test), FLIP_QC);
            if (e < job->pccmax)
                e *= FLIP_PT / job->pccmax;
            else
                e = FLIP_PT + ((e - job->pccmax) / (job->cmax - job->pccmax)) * (1.0f - FLIP_PT);
            row_cd[x] = e;
        }
    }

    /* 4. Feature rows pass over [flo, fhi) on (Y' + 16) / 116: planes (image i) d, dd, g at
     * hrows + (3 i + c), reusing the CSF rows' memory. */
    int flo = UPF_MAX(0, y0 - k->rf), fhi = UPF_MIN(h, y1 + k->rf);
    size_t f_plane = (size_t)(fhi - flo) * W;
    const float one_over_116 = 1.0f / 116.0f, sixteen_over_116 = 16.0f / 116.0f;
    float *norm = acc; /* one row */
    for (int i = 0; i < 2; i++) {
        const float *py = ycc + 3 * (size_t)i * in_plane;
        float *o = hrows + 3 * (size_t)i * f_plane;
        for (int y = flo; y < fhi; y++) {
            size_t src = (size_t)(y - lo) * W, dst = (size_t)(y - flo) * W;
            for (int x = 0; x < w; x++)
                norm[x] = py[src + x] * one_over_116 + sixteen_over_116;
            flip_filter_row(norm, w, k->fd, k->rf, pad, o + dst);
            flip_filter_row(norm, w, k->fdd, k->rf, pad, o + f_plane + dst);
            flip_filter_row(norm, w, k->fg, k->rf, pad, o + 2 * f_plane + dst);
        }
    }

    /* 4-5. Feature columns pass, feature difference, final error, pooling. */
    uint64_t *hist = job->hist + (size_t)band_index * FLIP_BUCKETS;
    float vmin = INFINITY, vmax = -INFINITY;
    const float norm_factor = 1.0f / sqrtf(2.0f);
    for (int y = y0; y < y1; y++) {
        for (int i = 0; i < 2; i++) {
            const float *pd = hrows + 3 * (size_t)i * f_plane, *pdd = pd + f_plane,
                        *pg = pdd + f_plane;
            float *a = acc + 4 * (size_t)i * W; /* dx, ddx, dy, ddy */
            flip_filter_column(pd, flo, h, w, y, k->fg, k->rf, a);
            flip_filter_column(pdd, flo, h, w, y, k->fg, k->rf, a + W);
            flip_filter_column(pg, flo, h, w, y, k->fd, k->rf, a + 2 * W);
            flip_filter_column(pg, flo, h, w, y, k->fdd, k->rf, a + 3 * W);
        }
        const float *row_cd = cd + (size_t)(y - y0) * W;
        char *map_row = job->map ? (char *)upf__row(job->map, y) : NULL;
        double sum = 0.0;
        for (int x = 0; x < w; x++) {
            float dxr = acc[x], ddxr = acc[W + x], dyr = acc[2 * W + x], ddyr = acc[3 * W + x];
            float dxt = acc[4 * W + x], ddxt = acc[5 * W + x], dyt = acc[6 * W + x],
                  ddyt = acc[7 * W + x];
            float edge_ref = sqrtf(dxr * dxr + dyr * dyr);
            float edge_test = sqrtf(dxt * dxt + dyt * dyt);
            float point_ref = sqrtf(ddxr * ddxr + ddyr * ddyr);
            float point_test = sqrtf(ddxt * ddxt + ddyt * ddyt);
            float edge_diff = fabsf(edge_ref - edge_test);
            float point_diff = fabsf(point_ref - point_test);
            float fdiff = powf(norm_factor * (edge_diff > point_diff ? edge_diff : point_diff),
                               FLIP_QF);
            float e = powf(row_cd[x], 1.0f - fdiff);
            sum += e;
            vmin = e < vmin ? e : vmin;
            vmax = e > vmax ? e : vmax;
            int bucket = flip_bucket(e);
            if (bucket >= 0)
                hist[bucket]++;
            if (map_row)
                upf__store_f32(map_row + 4 * (size_t)x, e); /* the map may sit at any address */
        }
        job->row_sums[y] = sum;
    }
    job->band_min[band_index] = vmin;
    job->band_max[band_index] = vmax;
}

/* Fills table[code] for an 8-bit colour format: the code's display-encoded value (as
 * upf__row_to_display gives it) decoded by flip_srgb_to_linear. */
static void flip_make_decode8(upf_format format, float *table)
{
    uint8_t codes[256 * 4];
    float display[256 * 4];
    for (int i = 0; i < 256 * 4; i++)
        codes[i] = (uint8_t)(i / 4);
    upf_image row = { codes, 256, 1, 0, format };
    upf__row_to_display(&row, 0, 0, 256, display);
    for (int i = 0; i < 256; i++)
        table[i] = flip_srgb_to_linear(display[4 * i]);
}

/* ---- pooling ------------------------------------------------------------------------ */

/* The weighted percentile of tool/pooling.h: bucket i weighs count_i (i + 0.5) / 100; walk the
 * buckets to the first whose cumulative weight passes `p` of the total, and interpolate
 * linearly inside it. Bucket 0 weighs its centre, 0.005, even for errors of exactly 0, so
 * for identical images the reference reports a weighted median of 0.005 (q1 0.0025, q3
 * 0.0075) beside a maximum of 0: a percentile above every value there is. We clamp each
 * percentile to [min, max] of the errors (upf_metric_flip), the one departure from the
 * reference: it changes only pictures whose errors all lie inside one bucket's interpolation
 * span, and makes identical images report 0 throughout. An empty histogram (only possible if
 * no error lay in [0, 1]) gives 0 where the reference would divide 0 by 0. */
static double flip_weighted_percentile(const uint64_t *hist, double p)
{
    const double step = (double)(1.0f / (float)FLIP_BUCKETS);
    double total = 0.0;
    for (int i = 0; i < FLIP_BUCKETS; i++)
        total += (double)hist[i] * ((i + 0.5) * step);
    if (!(total > 0.0))
        return 0.0;
    double sum = 0.0;
    int index = 0;
    for (int i = 0; i < FLIP_BUCKETS; i++) {
        double weighted = (double)hist[i] * ((i + 0.5) * step);
        index = i;
        if (sum + weighted > p * total)
            break;
        sum += weighted;
    }
    double weighted = (double)hist[index] * ((index + 0.5) * step);
    double t = (p * total - sum) / weighted; /* in [0, 1] */
    return (index + t) * step;
}

/* ---- entry point -------------------------------------------------------------------- */

upf_result upf_metric_flip(upf_context *ctx, const upf_image *ref, const upf_image *test,
                           const upf_rect *crop, const upf_flip_params *params,
                           upf_flip_result *out, const upf_image *error_map)
{
    static const char fn[] = "upf_metric_flip";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!out)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: out is NULL; expected a "
                         "upf_flip_result to write", fn);
    flip_job job = { .ref = ref, .test = test, .map = error_map };
    upf_result r = upf__metric_check_pair(ctx, fn, ref, test, crop, &job.rect);
    if (r != UPF_OK)
        return r;
    int w = job.rect.width, h = job.rect.height;
    if (error_map) {
        r = upf__check_image(ctx, fn, "error map", error_map, UPF_FMT_BIT(UPF_FORMAT_R32F), w, h);
        if (r != UPF_OK)
            return r;
    }

    /* Pixels per degree: distance * (pixels / width) * pi / 180; the default is FLIP.h's,
     * 0.7 m from a 0.7 m wide 3840-pixel screen (67.02), computed in float as it does. */
    float ppd = 0.7f * (3840.0f / 0.7f) * (FLIP_PI / 180.0f);
    if (params && params->pixels_per_degree != 0.0) {
        double p = params->pixels_per_degree;
        if (!(p >= FLIP_MIN_PPD && p <= FLIP_MAX_PPD)) /* also NaN */
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: pixels_per_degree is %g; "
                             "expected %g..%g, or 0 for the default 67.02", fn, p,
                             FLIP_MIN_PPD, FLIP_MAX_PPD);
        ppd = (float)p;
    }

    int rs = flip_csf_radius(ppd), rf = flip_feature_radius(ppd);
    int threads = upf_context_threads(ctx);
    job.reach = UPF_MAX(rs, rf);
    /* per band row: Y Cx Cz and 4 CSF (or 3 feature) planes of both images, colour difference */
    job.band = upf__metric_band_rows(h, threads, 15 * sizeof(float) * (size_t)w, job.reach);
    int bands = (h + job.band - 1) / job.band;
    flip_layout l = flip_scratch_layout(w, job.band, rs, rf);
    job.scratch_bytes = l.total * sizeof(float);
    size_t taps = 4 * (2 * (size_t)rs + 1) + 3 * (2 * (size_t)rf + 1) + 2 * 256;

    float *kernels = upf__alloc_array(ctx, taps, sizeof(float), "upf_metric_flip: kernels");
    job.scratch = kernels ? upf__alloc_array(ctx, (size_t)threads, job.scratch_bytes,
                                             "upf_metric_flip: band scratch") : NULL;
    job.row_sums = job.scratch ? upf__alloc_array(ctx, (size_t)h, sizeof(double),
                                                  "upf_metric_flip: row sums") : NULL;
    job.hist = job.row_sums ? upf__alloc_array(ctx, (size_t)bands * FLIP_BUCKETS,
                                               sizeof(uint64_t), "upf_metric_flip: histograms")
                            : NULL;
    job.band_min = job.hist ? upf__alloc_array(ctx, 2 * (size_t)bands, sizeof(float),
                                               "upf_metric_flip: band extremes") : NULL;
    if (!job.band_min) {
        upf__free(ctx, job.hist);
        upf__free(ctx, job.row_sums);
        upf__free(ctx, job.scratch);
        upf__free(ctx, kernels);
        return UPF_ERROR_OUT_OF_MEMORY;
    }
    job.band_max = job.band_min + bands;
    flip_make_kernels(ppd, kernels, &job.k);
    for (int i = 0; i < 2; i++) {
        upf_format f = (i ? test : ref)->format;
        if (f == UPF_FORMAT_RGBA8_SRGB || f == UPF_FORMAT_RGBA8_UNORM) {
            float *table = kernels + taps - 256 * (size_t)(2 - i);
            flip_make_decode8(f, table);
            job.decode8[i] = table;
        }
    }
    job.cmax = flip_cmax();
    job.pccmax = FLIP_PC * job.cmax;

    upf__parallel_for(ctx, flip_band_task, &job, bands);

    uint64_t hist[FLIP_BUCKETS] = { 0 };
    float vmin = INFINITY, vmax = -INFINITY;
    for (int b = 0; b < bands; b++) {
        for (int i = 0; i < FLIP_BUCKETS; i++)
            hist[i] += job.hist[(size_t)b * FLIP_BUCKETS + i];
        vmin = UPF_MIN(vmin, job.band_min[b]);
        vmax = UPF_MAX(vmax, job.band_max[b]);
    }
    out->mean = upf__metric_sum_in_order(job.row_sums, h) / ((double)w * (double)h);
    /* Percentiles inside the range of the values they summarise (see above). */
    out->weighted_median = UPF_CLAMP(flip_weighted_percentile(hist, 0.5), vmin, vmax);
    out->weighted_q1 = UPF_CLAMP(flip_weighted_percentile(hist, 0.25), vmin, vmax);
    out->weighted_q3 = UPF_CLAMP(flip_weighted_percentile(hist, 0.75), vmin, vmax);
    out->min = vmin;
    out->max = vmax;

    upf__free(ctx, job.band_min);
    upf__free(ctx, job.hist);
    upf__free(ctx, job.row_sums);
    upf__free(ctx, job.scratch);
    upf__free(ctx, kernels);
    return UPF_OK;
}
