/* test_metrics.c: PSNR, SSIM, FLIP, detail and shimmer.
 *
 * Each metric is checked against values worked out by hand (constant offsets, identical
 * images, a checkerboard, constant frame changes) and against plain float64 implementations
 * written here from the published definitions with a different structure than the library's
 * (2-D windows and kernels applied per pixel instead of separable bands). Also: crops equal
 * cropped copies, results are bit-identical on 1 and 3 threads, and bad arguments fail with
 * messages that say what was wrong. */
#include <float.h>

#include "test_util.h"

/* ---- images ------------------------------------------------------------------------- */

/* A w x h image of `format` with its own zeroed pixels (free with free(img.data)). */
static upf_image new_image(int w, int h, upf_format format)
{
    upf_image img = { calloc((size_t)w * h, upf_format_bytes_per_pixel(format)), w, h, 0, format };
    return img;
}

static void set8(upf_image *img, int x, int y, int r, int g, int b)
{
    uint8_t *p = (uint8_t *)img->data + ((size_t)y * img->width + x) * 4;
    p[0] = (uint8_t)r, p[1] = (uint8_t)g, p[2] = (uint8_t)b, p[3] = 255;
}

static int get8(const upf_image *img, int x, int y, int c)
{
    return ((const uint8_t *)img->data)[((size_t)y * img->width + x) * 4 + c];
}

static void random8(upf_image *img, test_rng *rng, int lo, int hi)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            set8(img, x, y, test_rand_int(rng, lo, hi), test_rand_int(rng, lo, hi),
                 test_rand_int(rng, lo, hi));
}

static upf_image copy8(const upf_image *src)
{
    upf_image img = new_image(src->width, src->height, src->format);
    memcpy(img.data, src->data, (size_t)src->width * src->height * 4);
    return img;
}

/* The display-encoded R, G, B of an 8-bit sRGB image as doubles, 3 per pixel. */
static double *encoded8(const upf_image *img)
{
    double *v = malloc(sizeof(double) * 3 * (size_t)img->width * img->height);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < 3; c++)
                v[((size_t)y * img->width + x) * 3 + c] = get8(img, x, y, c) / 255.0;
    return v;
}

/* The sRGB curve, IEC 61966-2-1 section 5.2: encoded -> linear. */
static double srgb_decode(double e)
{
    return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

/* Rec. 709 luma of encoded values, in double. */
static double luma709(const double *rgb)
{
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
}

static const double C1 = 0.0001, C2 = 0.0009; /* (0.01 * 1)^2, (0.03 * 1)^2 */

/* ---- PSNR ---------------------------------------------------------------------------- */

static void test_psnr(upf_context *ctx, test_rng *rng)
{
    upf_psnr_result res;

    /* 2x2 black against black with one pure red pixel: the squared errors are 1 (R of one
     * pixel) over 12 samples, so MSE_rgb = 1/12 and PSNR = 10 log10 12; luma differs by 0.2126
     * at one of 4 pixels: MSE_luma = 0.2126^2 / 4. */
    upf_image a = new_image(2, 2, UPF_FORMAT_RGBA8_SRGB), b = new_image(2, 2, UPF_FORMAT_RGBA8_SRGB);
    set8(&b, 1, 0, 255, 0, 0);
    CHECK_OK(ctx, upf_metric_psnr(ctx, &a, &b, NULL, &res));
    CHECK_NEAR(res.mse_rgb, 1.0 / 12.0, 1e-12);
    CHECK_NEAR(res.rgb, 10.0 * log10(12.0), 1e-9);
    CHECK_NEAR(res.mse_luma, 0.2126 * 0.2126 / 4.0, 1e-8);
    CHECK_NEAR(res.luma, -10.0 * log10(0.2126 * 0.2126 / 4.0), 1e-6);

    /* Identical: MSE 0, PSNR +inf. */
    CHECK_OK(ctx, upf_metric_psnr(ctx, &b, &b, NULL, &res));
    CHECK(res.mse_rgb == 0.0 && res.mse_luma == 0.0);
    CHECK(isinf(res.rgb) && res.rgb > 0 && isinf(res.luma) && res.luma > 0);
    free(a.data), free(b.data);

    /* A constant offset of k codes on every channel: MSE = (k/255)^2 exactly in real numbers,
     * PSNR = 20 log10(255 / k); luma moves by k/255 too (the weights sum to 1). Tolerances are
     * float rounding of the stored values (code / 255 in float, ~3e-8 relative). */
    const int ks[] = { 1, 7, 40 };
    for (int i = 0; i < 3; i++) {
        int k = ks[i];
        a = new_image(13, 9, UPF_FORMAT_RGBA8_SRGB), b = new_image(13, 9, UPF_FORMAT_RGBA8_SRGB);
        for (int y = 0; y < 9; y++)
            for (int x = 0; x < 13; x++) {
                int r = test_rand_int(rng, 0, 200), g = test_rand_int(rng, 0, 200),
                    bl = test_rand_int(rng, 0, 200);
                set8(&a, x, y, r, g, bl);
                set8(&b, x, y, r + k, g + k, bl + k);
            }
        CHECK_OK(ctx, upf_metric_psnr(ctx, &a, &b, NULL, &res));
        double mse = (k / 255.0) * (k / 255.0);
        CHECK_NEAR(res.mse_rgb, mse, mse * 1e-6);
        CHECK_NEAR(res.rgb, 20.0 * log10(255.0 / k), 1e-5);
        CHECK_NEAR(res.mse_luma, mse, mse * 1e-5);
        CHECK_NEAR(res.luma, 20.0 * log10(255.0 / k), 1e-4);
        free(a.data), free(b.data);
    }

    /* Random images against the float64 formula; and a crop against a cropped copy. */
    a = new_image(37, 21, UPF_FORMAT_RGBA8_SRGB), b = new_image(37, 21, UPF_FORMAT_RGBA8_SRGB);
    random8(&a, rng, 0, 255);
    random8(&b, rng, 0, 255);
    double *ea = encoded8(&a), *eb = encoded8(&b);
    double se = 0, sl = 0;
    for (int i = 0; i < 37 * 21; i++) {
        for (int c = 0; c < 3; c++)
            se += (eb[3 * i + c] - ea[3 * i + c]) * (eb[3 * i + c] - ea[3 * i + c]);
        double d = luma709(eb + 3 * i) - luma709(ea + 3 * i);
        sl += d * d;
    }
    CHECK_OK(ctx, upf_metric_psnr(ctx, &a, &b, NULL, &res));
    CHECK_NEAR(res.mse_rgb, se / (3 * 37 * 21), 1e-8);
    CHECK_NEAR(res.mse_luma, sl / (37 * 21), 1e-8);
    CHECK_NEAR(res.rgb, -10 * log10(se / (3 * 37 * 21)), 1e-5);
    free(ea), free(eb);

    upf_rect crop = { 5, 3, 17, 11 };
    upf_image ca = new_image(17, 11, UPF_FORMAT_RGBA8_SRGB), cb = new_image(17, 11, UPF_FORMAT_RGBA8_SRGB);
    for (int y = 0; y < 11; y++)
        for (int x = 0; x < 17; x++) {
            set8(&ca, x, y, get8(&a, x + 5, y + 3, 0), get8(&a, x + 5, y + 3, 1), get8(&a, x + 5, y + 3, 2));
            set8(&cb, x, y, get8(&b, x + 5, y + 3, 0), get8(&b, x + 5, y + 3, 1), get8(&b, x + 5, y + 3, 2));
        }
    upf_psnr_result rc, rw;
    CHECK_OK(ctx, upf_metric_psnr(ctx, &a, &b, &crop, &rc));
    CHECK_OK(ctx, upf_metric_psnr(ctx, &ca, &cb, NULL, &rw));
    CHECK(rc.mse_rgb == rw.mse_rgb && rc.mse_luma == rw.mse_luma);
    free(a.data), free(b.data), free(ca.data), free(cb.data);

    /* Linear formats are clamped to [0, 1] and sRGB-encoded first: linear 0.21404114 is
     * encoded 0.5 (IEC 61966-2-1), 2.0 clamps to 1 and -1 to 0. Against 8-bit codes 128, 255,
     * 0 the only error is 128/255 - 0.5 in every channel of the first pixel. */
    upf_image lin = new_image(3, 1, UPF_FORMAT_RGBA32F), e8 = new_image(3, 1, UPF_FORMAT_RGBA8_SRGB);
    float *lp = lin.data;
    for (int c = 0; c < 4; c++)
        lp[c] = 0.21404114048223255f, lp[4 + c] = 2.0f, lp[8 + c] = -1.0f;
    set8(&e8, 0, 0, 128, 128, 128), set8(&e8, 1, 0, 255, 255, 255), set8(&e8, 2, 0, 0, 0, 0);
    CHECK_OK(ctx, upf_metric_psnr(ctx, &lin, &e8, NULL, &res));
    double d = 128 / 255.0 - 0.5;
    CHECK_NEAR(res.mse_rgb, d * d / 3, 1e-9);
    free(lin.data), free(e8.data);
}

/* ---- SSIM --------------------------------------------------------------------------- */

/* Wang et al. 2004 written out per window: an 11x11 2-D Gaussian (sigma 1.5) normalised to
 * sum 1, two-pass population statistics (mean first, then sum w (x - mu)^2), valid windows
 * only, mean of the map. `lx`, `ly` are luma planes w x h. */
static double ssim_reference(const double *lx, const double *ly, int w, int h)
{
    double win[11][11], s = 0;
    for (int j = 0; j < 11; j++)
        for (int i = 0; i < 11; i++)
            s += win[j][i] = exp(-((i - 5) * (i - 5) + (j - 5) * (j - 5)) / (2 * 1.5 * 1.5));
    for (int j = 0; j < 11; j++)
        for (int i = 0; i < 11; i++)
            win[j][i] /= s;
    double total = 0;
    for (int y = 0; y + 11 <= h; y++)
        for (int x = 0; x + 11 <= w; x++) {
            double mx = 0, my = 0;
            for (int j = 0; j < 11; j++)
                for (int i = 0; i < 11; i++) {
                    mx += win[j][i] * lx[(y + j) * w + x + i];
                    my += win[j][i] * ly[(y + j) * w + x + i];
                }
            double vx = 0, vy = 0, cxy = 0;
            for (int j = 0; j < 11; j++)
                for (int i = 0; i < 11; i++) {
                    double dx = lx[(y + j) * w + x + i] - mx, dy = ly[(y + j) * w + x + i] - my;
                    vx += win[j][i] * dx * dx;
                    vy += win[j][i] * dy * dy;
                    cxy += win[j][i] * dx * dy;
                }
            total += (2 * mx * my + C1) * (2 * cxy + C2) / ((mx * mx + my * my + C1) * (vx + vy + C2));
        }
    return total / ((w - 10) * (h - 10));
}

static double *luma_plane8(const upf_image *img)
{
    double *e = encoded8(img), *l = malloc(sizeof(double) * (size_t)img->width * img->height);
    for (int i = 0; i < img->width * img->height; i++)
        l[i] = luma709(e + 3 * i);
    free(e);
    return l;
}

static void test_ssim(upf_context *ctx, test_rng *rng)
{
    double v;
    /* Identical images: every window gives exactly 1. */
    upf_image a = new_image(16, 12, UPF_FORMAT_RGBA8_SRGB);
    random8(&a, rng, 0, 255);
    CHECK_OK(ctx, upf_metric_ssim(ctx, &a, &a, NULL, &v));
    CHECK_NEAR(v, 1.0, 1e-15);
    free(a.data);

    /* 11x11 constant grey v against grey v + k: one window, both variances and the
     * covariance are 0, so SSIM = (2 mu_x mu_y + C1) / (mu_x^2 + mu_y^2 + C1) with
     * mu = code / 255. Tolerance: the library's luma is float (0.2126f v + 0.7152f v +
     * 0.0722f v, within ~1e-7 of v); measured differences stay below 1e-8. */
    const int pairs[][2] = { { 100, 110 }, { 10, 60 }, { 200, 201 }, { 0, 255 } };
    for (int i = 0; i < 4; i++) {
        upf_image x = new_image(11, 11, UPF_FORMAT_RGBA8_SRGB), y = new_image(11, 11, UPF_FORMAT_RGBA8_SRGB);
        for (int p = 0; p < 121; p++) {
            set8(&x, p % 11, p / 11, pairs[i][0], pairs[i][0], pairs[i][0]);
            set8(&y, p % 11, p / 11, pairs[i][1], pairs[i][1], pairs[i][1]);
        }
        double mx = pairs[i][0] / 255.0, my = pairs[i][1] / 255.0;
        CHECK_OK(ctx, upf_metric_ssim(ctx, &x, &y, NULL, &v));
        CHECK_NEAR(v, (2 * mx * my + C1) / (mx * mx + my * my + C1), 1e-6);
        free(x.data), free(y.data);
    }

    /* A textured grey image against itself shifted by k codes (no clipping): the structure
     * term is 1 in every window (same variances and covariance), so each window gives
     * (2 mu (mu + k/255) + C1) / (mu^2 + (mu + k/255)^2 + C1), mu the window's Gaussian mean.
     * Tolerance: the library's float luma (relative rounding 2^-24) moves each window's
     * statistics by ~1e-8; over 40 seeds the SSIM differed by at most 1.4e-8 here and below,
     * so 1e-6 leaves a wide margin while any wrong constant or window moves it by >1e-4. */
    {
        int w = 19, h = 14, k = 30;
        upf_image x = new_image(w, h, UPF_FORMAT_RGBA8_SRGB), y = new_image(w, h, UPF_FORMAT_RGBA8_SRGB);
        double *lx = malloc(sizeof(double) * w * h), *ly = malloc(sizeof(double) * w * h);
        for (int p = 0; p < w * h; p++) {
            int g = test_rand_int(rng, 0, 220);
            set8(&x, p % w, p / w, g, g, g);
            set8(&y, p % w, p / w, g + k, g + k, g + k);
            lx[p] = g / 255.0, ly[p] = (g + k) / 255.0;
        }
        double total = 0, win[11], s = 0;
        for (int i = 0; i < 11; i++)
            s += win[i] = exp(-(i - 5) * (i - 5) / 4.5);
        for (int oy = 0; oy + 11 <= h; oy++)
            for (int ox = 0; ox + 11 <= w; ox++) {
                double mu = 0;
                for (int j = 0; j < 11; j++)
                    for (int i = 0; i < 11; i++)
                        mu += win[i] * win[j] / (s * s) * lx[(oy + j) * w + ox + i];
                double nu = mu + k / 255.0;
                total += (2 * mu * nu + C1) / (mu * mu + nu * nu + C1);
            }
        CHECK_OK(ctx, upf_metric_ssim(ctx, &x, &y, NULL, &v));
        CHECK_NEAR(v, total / ((w - 10) * (h - 10)), 1e-6);
        CHECK_NEAR(ssim_reference(lx, ly, w, h), total / ((w - 10) * (h - 10)), 1e-12);
        free(x.data), free(y.data), free(lx), free(ly);
    }

    /* Random colour images against the per-window float64 reference; noise levels from mild
     * to total. Tolerance as above (float luma against double luma). */
    const int noise[] = { 4, 30, 255 };
    for (int i = 0; i < 3; i++) {
        int w = 29, h = 23;
        upf_image x = new_image(w, h, UPF_FORMAT_RGBA8_SRGB), y = new_image(w, h, UPF_FORMAT_RGBA8_SRGB);
        random8(&x, rng, 0, 255);
        for (int p = 0; p < w * h; p++) {
            int c[3];
            for (int ch = 0; ch < 3; ch++) {
                c[ch] = get8(&x, p % w, p / w, ch) + test_rand_int(rng, -noise[i], noise[i]);
                c[ch] = c[ch] < 0 ? 0 : c[ch] > 255 ? 255 : c[ch];
            }
            set8(&y, p % w, p / w, c[0], c[1], c[2]);
        }
        double *lx = luma_plane8(&x), *ly = luma_plane8(&y);
        double want = ssim_reference(lx, ly, w, h);
        CHECK_OK(ctx, upf_metric_ssim(ctx, &x, &y, NULL, &v));
        CHECK_NEAR(v, want, 1e-6);
        if (i > 0)
            CHECK(v < 0.99); /* noise lowers it */

        /* A crop: the reference on the cropped planes. */
        upf_rect crop = { 4, 3, 15, 13 };
        double *cx = malloc(sizeof(double) * 15 * 13), *cy = malloc(sizeof(double) * 15 * 13);
        for (int yy = 0; yy < 13; yy++)
            for (int xx = 0; xx < 15; xx++) {
                cx[yy * 15 + xx] = lx[(yy + 3) * w + xx + 4];
                cy[yy * 15 + xx] = ly[(yy + 3) * w + xx + 4];
            }
        CHECK_OK(ctx, upf_metric_ssim(ctx, &x, &y, &crop, &v));
        CHECK_NEAR(v, ssim_reference(cx, cy, 15, 13), 1e-6);
        free(cx), free(cy), free(lx), free(ly), free(x.data), free(y.data);
    }
}

/* ---- FLIP: a float64 reference ------------------------------------------------------ */

/* LDR-FLIP (Andersson et al. 2020; engineering-anchors.md 5.3), written per pixel with 2-D
 * kernels and double arithmetic. Fills `err` (w x h) for encoded RGB inputs `a` (reference)
 * and `b` (test), 3 doubles per pixel. */
static const double RGB2XYZ[3][3] = {
    { 10135552.0 / 24577794.0, 8788810.0 / 24577794.0, 4435075.0 / 24577794.0 },
    { 2613072.0 / 12288897.0, 8788810.0 / 12288897.0, 887015.0 / 12288897.0 },
    { 1425312.0 / 73733382.0, 8788810.0 / 73733382.0, 70074185.0 / 73733382.0 },
};
static const double XYZ2RGB[3][3] = {
    { 3.241003275, -1.537398934, -0.498615861 },
    { -0.969224334, 1.875930071, 0.041554224 },
    { 0.055639423, -0.204011202, 1.057148933 },
};
static const double WHITE[3] = { 0.950428545, 1.0, 1.088900371 };

static void mat3(const double m[3][3], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
}

static double lab_f(double t)
{
    double d = 6.0 / 29.0;
    return t > d * d * d ? cbrt(t) : t / (3 * d * d) + 4.0 / 29.0;
}

/* linear RGB -> CIELAB with the Hunt adjustment */
static void lab_hunt(const double rgb[3], double lab[3])
{
    double xyz[3];
    mat3(RGB2XYZ, rgb, xyz);
    double fx = lab_f(xyz[0] / WHITE[0]), fy = lab_f(xyz[1]), fz = lab_f(xyz[2] / WHITE[2]);
    lab[0] = 116 * fy - 16;
    lab[1] = 0.01 * lab[0] * 500 * (fx - fy);
    lab[2] = 0.01 * lab[0] * 200 * (fy - fz);
}

static double hyab(const double p[3], const double q[3])
{
    return fabs(p[0] - q[0]) + sqrt((p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void flip_reference(const double *a, const double *b, int w, int h, double ppd, double *err)
{
    const double pi = 3.14159265358979323846;
    /* CSF kernels on a (2r+1)^2 grid, one pixel = 1/ppd degree. Each 2-D kernel is the sum of
     * a sqrt(pi/b) exp(-pi^2 (x^2 + y^2) / b) over its Gaussians, normalised to sum 1. */
    int r = (int)ceil(3 * sqrt(0.04 / (2 * pi * pi)) * ppd), n = 2 * r + 1;
    const double ga[3][2] = { { 1, 0 }, { 1, 0 }, { 34.1, 13.5 } };
    const double gb[3][2] = { { 0.0047, 1 }, { 0.0053, 1 }, { 0.04, 0.025 } };
    double *csf = malloc(sizeof(double) * 3 * n * n);
    for (int c = 0; c < 3; c++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double d2 = ((i - r) * (i - r) + (j - r) * (j - r)) / (ppd * ppd), v = 0;
                for (int g = 0; g < 2; g++)
                    v += ga[c][g] * sqrt(pi / gb[c][g]) * exp(-pi * pi * d2 / gb[c][g]);
                s += csf[(c * n + j) * n + i] = v;
            }
        for (int i = 0; i < n * n; i++)
            csf[c * n * n + i] /= s;
    }
    /* Feature kernels: 1-D Gaussian (sum 1) and its derivatives (positive and negative parts
     * summing to +1 and -1), combined into 2-D kernels d(x) g(y), g(x) d(y), ... */
    double sd = 0.5 * 0.082 * ppd;
    int rf = (int)ceil(3 * sd), nf = 2 * rf + 1;
    double g1[64], d1[64], dd1[64], gs = 0, dp = 0, dn = 0, ddp = 0, ddn = 0;
    for (int i = 0; i < nf; i++) {
        double x = i - rf;
        g1[i] = exp(-x * x / (2 * sd * sd));
        d1[i] = -x * g1[i];
        dd1[i] = (x * x / (sd * sd) - 1) * g1[i];
        gs += g1[i];
        if (d1[i] > 0) dp += d1[i]; else dn -= d1[i];
        if (dd1[i] > 0) ddp += dd1[i]; else ddn -= dd1[i];
    }
    for (int i = 0; i < nf; i++) {
        g1[i] /= gs;
        d1[i] /= d1[i] > 0 ? dp : dn;
        dd1[i] /= dd1[i] > 0 ? ddp : ddn;
    }

    /* Per pixel: YyCxCz and luminance of both images. */
    double *ycc = malloc(sizeof(double) * 6 * w * h), *lum = malloc(sizeof(double) * 2 * w * h);
    for (int im = 0; im < 2; im++)
        for (int p = 0; p < w * h; p++) {
            const double *e = (im ? b : a) + 3 * p;
            double lin[3], xyz[3];
            for (int c = 0; c < 3; c++)
                lin[c] = srgb_decode(e[c]);
            mat3(RGB2XYZ, lin, xyz);
            double *o = ycc + (im * w * h + p) * 3;
            o[0] = 116 * xyz[1] - 16;
            o[1] = 500 * (xyz[0] / WHITE[0] - xyz[1]);
            o[2] = 200 * (xyz[1] - xyz[2] / WHITE[2]);
            lum[im * w * h + p] = xyz[1]; /* = (Y' + 16) / 116 */
        }

    double gp[3] = { 0 }, bp[3] = { 0 }, green[3], blue[3];
    gp[1] = 1, bp[2] = 1;
    lab_hunt(gp, green), lab_hunt(bp, blue);
    double cmax = pow(hyab(green, blue), 0.7), pccmax = 0.4 * cmax;

    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double lab[2][3], feat[2][4];
            for (int im = 0; im < 2; im++) {
                double f[3] = { 0, 0, 0 };
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++) {
                        int p = clampi(y + j - r, 0, h - 1) * w + clampi(x + i - r, 0, w - 1);
                        for (int c = 0; c < 3; c++)
                            f[c] += csf[(c * n + j) * n + i] * ycc[(im * w * h + p) * 3 + c];
                    }
                double xyz[3], rgb[3];
                xyz[1] = (f[0] + 16) / 116;
                xyz[0] = (xyz[1] + f[1] / 500) * WHITE[0];
                xyz[2] = (xyz[1] - f[2] / 200) * WHITE[2];
                mat3(XYZ2RGB, xyz, rgb);
                for (int c = 0; c < 3; c++)
                    rgb[c] = rgb[c] < 0 ? 0 : rgb[c] > 1 ? 1 : rgb[c];
                lab_hunt(rgb, lab[im]);
                for (int q = 0; q < 4; q++)
                    feat[im][q] = 0;
                for (int j = 0; j < nf; j++)
                    for (int i = 0; i < nf; i++) {
                        double v = lum[im * w * h + clampi(y + j - rf, 0, h - 1) * w +
                                       clampi(x + i - rf, 0, w - 1)];
                        feat[im][0] += d1[i] * g1[j] * v;  /* edge, x */
                        feat[im][1] += g1[i] * d1[j] * v;  /* edge, y */
                        feat[im][2] += dd1[i] * g1[j] * v; /* point, x */
                        feat[im][3] += g1[i] * dd1[j] * v; /* point, y */
                    }
            }
            double cd = pow(hyab(lab[0], lab[1]), 0.7);
            cd = cd < pccmax ? cd * 0.95 / pccmax : 0.95 + (cd - pccmax) / (cmax - pccmax) * 0.05;
            double edge = fabs(hypot(feat[0][0], feat[0][1]) - hypot(feat[1][0], feat[1][1]));
            double point = fabs(hypot(feat[0][2], feat[0][3]) - hypot(feat[1][2], feat[1][3]));
            double fd = sqrt(fmax(edge, point) / sqrt(2.0));
            err[y * w + x] = pow(cd, 1 - fd);
        }
    free(csf), free(ycc), free(lum);
}

/* The weighted percentile of an error map as FLIP's tool defines it: 100 buckets over
 * [0, 1] (index = value / 0.01f, 1.0 in the last), bucket i weighing count * (i + 0.5) / 100;
 * the first bucket whose running weight passes p of the total, interpolated inside it. */
static double weighted_percentile(const float *map, int n, double p)
{
    double weight[100] = { 0 }, total = 0, run = 0;
    for (int i = 0; i < n; i++) {
        int k = (int)((double)map[i] / (double)0.01f);
        weight[k > 99 ? 99 : k] += (k > 99 ? 99.5 : k + 0.5) * (double)0.01f;
    }
    for (int k = 0; k < 100; k++)
        total += weight[k];
    if (total == 0)
        return 0;
    for (int k = 0; k < 100; k++) {
        if (run + weight[k] > p * total)
            return (k + (p * total - run) / weight[k]) * (double)0.01f;
        run += weight[k];
    }
    return 1;
}

typedef struct flip_case {
    const char *name;
    upf_image ref, test;
} flip_case;

/* Compares upf_metric_flip with flip_reference on one pair.
 *
 * Tolerances: the library works in float32 like NVIDIA's FLIP.h, this reference in float64.
 * Filtered YyCxCz values (magnitudes up to ~100, sums of ~400 taps) carry relative errors of
 * ~1e-7. The exponents 0.7 (colour) and 0.5 (features) have unbounded slope at 0, so a
 * difference that should be 0 but is float noise gets magnified. The worst such case: over a
 * constant neighbourhood the derivative kernels should give 0, but their float taps sum to
 * ~1e-7 instead of 0, so two constant neighbourhoods of different grey give a feature
 * difference of up to sqrt(1e-7 / sqrt 2) = 2.7e-4, which moves the error cd^(1 - f) by up
 * to cd |ln cd| 2.7e-4 <= 1e-4. Hence 3e-4 per pixel. The mean bound is `mean_tol`: pairs
 * without flat regions measured at most 1.8e-7 over 40 seeds (2e-6 leaves ~10x), the tiny
 * images, where every pixel sees a flat neighbourhood, 3.7e-5 (1e-4 is the bound above).
 * Wrong constants, kernels or border rules move pixels by 1e-3 or more. */
static void check_flip_case(upf_context *ctx, const flip_case *fc, double ppd, double mean_tol)
{
    int w = fc->ref.width, h = fc->ref.height;
    double *ea = encoded8(&fc->ref), *eb = encoded8(&fc->test);
    double *want = malloc(sizeof(double) * w * h);
    flip_reference(ea, eb, w, h, ppd == 0 ? 3840 * 3.14159265358979323846 / 180 : ppd, want);

    upf_image map = new_image(w, h, UPF_FORMAT_R32F);
    upf_flip_result res;
    CHECK_OK(ctx, upf_metric_flip(ctx, &fc->ref, &fc->test, NULL,
                                  upf_flip_params(.pixels_per_degree = ppd), &res, &map));
    const float *m = map.data;
    double max_diff = 0, sum = 0, mean_want = 0, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < w * h; i++) {
        max_diff = fmax(max_diff, fabs(m[i] - want[i]));
        sum += m[i];
        mean_want += want[i];
        lo = fmin(lo, m[i]), hi = fmax(hi, m[i]);
        CHECK(m[i] >= 0.0f && m[i] <= 1.0f);
    }
    mean_want /= w * h;
    CHECKF(max_diff <= 3e-4, "%s (ppd %g): per-pixel difference %.3g", fc->name, ppd, max_diff);
    CHECKF(fabs(res.mean - mean_want) <= mean_tol, "%s (ppd %g): mean %.9f, reference %.9f",
           fc->name, ppd, res.mean, mean_want);
    if (getenv("UPF_TEST_VERBOSE"))
        printf("flip %s ppd %g: mean %.7f (reference %.7f), max pixel diff %.3g\n", fc->name,
               ppd, res.mean, mean_want, max_diff);
    /* Pooled values agree with the map the call wrote. */
    CHECK_NEAR(res.mean, sum / (w * h), 1e-12);
    CHECK(res.min == lo && res.max == hi);
    CHECK_NEAR(res.weighted_median, fmin(fmax(weighted_percentile(m, w * h, 0.5), lo), hi), 1e-12);
    CHECK_NEAR(res.weighted_q1, fmin(fmax(weighted_percentile(m, w * h, 0.25), lo), hi), 1e-12);
    CHECK_NEAR(res.weighted_q3, fmin(fmax(weighted_percentile(m, w * h, 0.75), lo), hi), 1e-12);
    CHECK(res.weighted_q1 <= res.weighted_median && res.weighted_median <= res.weighted_q3);
    CHECK(lo <= res.weighted_q1 && res.weighted_q3 <= hi);
    CHECK(res.mean > 0.0);
    free(ea), free(eb), free(want), free(map.data);
}

static void test_flip(upf_context *ctx, test_rng *rng)
{
    upf_flip_result res;

    /* Identical images: no colour difference, so every pixel's error is 0^(1 - 0) = 0, and
     * so is every statistic of them. (The reference's histogram puts the weighted median at
     * 0.005, the middle of bucket 0, above the maximum of 0; issue 10: the statistics must add
     * up, so percentiles are clamped to [min, max].) */
    upf_image a = new_image(24, 24, UPF_FORMAT_RGBA8_SRGB);
    random8(&a, rng, 0, 255);
    CHECK_OK(ctx, upf_metric_flip(ctx, &a, &a, NULL, NULL, &res, NULL));
    CHECK(res.mean == 0.0 && res.max == 0.0 && res.min == 0.0);
    CHECK(res.weighted_median == 0.0 && res.weighted_q1 == 0.0 && res.weighted_q3 == 0.0);

    /* 1. 24x24 random pair. */
    flip_case cases[4];
    cases[0].name = "random";
    cases[0].ref = a;
    cases[0].test = new_image(24, 24, UPF_FORMAT_RGBA8_SRGB);
    random8(&cases[0].test, rng, 0, 255);

    /* 2. A vertical colour edge against the same edge blurred by a 5-tap box. */
    cases[1].name = "edge vs blurred edge";
    cases[1].ref = new_image(32, 20, UPF_FORMAT_RGBA8_SRGB);
    cases[1].test = new_image(32, 20, UPF_FORMAT_RGBA8_SRGB);
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 32; x++) {
            int on = x >= 16;
            set8(&cases[1].ref, x, y, on ? 230 : 40, on ? 200 : 60, on ? 90 : 30);
            int s[3] = { 0, 0, 0 };
            for (int k = -2; k <= 2; k++) {
                int o = x + k >= 16;
                s[0] += o ? 230 : 40, s[1] += o ? 200 : 60, s[2] += o ? 90 : 30;
            }
            set8(&cases[1].test, x, y, s[0] / 5, s[1] / 5, s[2] / 5);
        }

    /* 3. A smooth colour gradient against a hue-shifted copy (R up, B down). */
    cases[2].name = "colour shift";
    cases[2].ref = new_image(28, 22, UPF_FORMAT_RGBA8_SRGB);
    cases[2].test = new_image(28, 22, UPF_FORMAT_RGBA8_SRGB);
    for (int y = 0; y < 22; y++)
        for (int x = 0; x < 28; x++) {
            int r = 30 + 6 * x, g = 40 + 8 * y, b = 200 - 3 * x - 2 * y;
            set8(&cases[2].ref, x, y, r, g, b);
            set8(&cases[2].test, x, y, r + 25 > 255 ? 255 : r + 25, g, b - 25);
        }

    /* 4. Saturated primaries and black/white at random: the CSF filters chroma more widely
     * than luminance, so filtered colours leave the gamut and the clamp to [0, 1] matters. */
    cases[3].name = "saturated";
    cases[3].ref = new_image(20, 20, UPF_FORMAT_RGBA8_SRGB);
    cases[3].test = new_image(20, 20, UPF_FORMAT_RGBA8_SRGB);
    const int prim[6][3] = { { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 255, 255, 0 }, { 0, 0, 0 }, { 255, 255, 255 } };
    for (int p = 0; p < 400; p++) {
        const int *c = prim[test_rand_int(rng, 0, 5)], *d = prim[test_rand_int(rng, 0, 5)];
        set8(&cases[3].ref, p % 20, p / 20, c[0], c[1], c[2]);
        set8(&cases[3].test, p % 20, p / 20, d[0], d[1], d[2]);
    }

    for (int i = 0; i < 4; i++) {
        check_flip_case(ctx, &cases[i], 0, 2e-6);
        check_flip_case(ctx, &cases[i], 30.0, 2e-6); /* other viewing conditions: other radii */
    }

    /* Tiny and thin images: the clamped borders cover whole kernels. */
    const int tiny[][2] = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 2, 3 } };
    for (int i = 0; i < 4; i++) {
        flip_case t = { "tiny", new_image(tiny[i][0], tiny[i][1], UPF_FORMAT_RGBA8_SRGB),
                        new_image(tiny[i][0], tiny[i][1], UPF_FORMAT_RGBA8_SRGB) };
        random8(&t.ref, rng, 0, 255);
        random8(&t.test, rng, 0, 255);
        check_flip_case(ctx, &t, 0, 1e-4);
        free(t.ref.data), free(t.test.data);
    }

    /* Properties: a larger change gives a larger mean; all errors lie in [0, 1]. */
    upf_image t1 = copy8(&cases[2].ref), t2 = copy8(&cases[2].ref);
    for (int y = 0; y < 22; y++)
        for (int x = 0; x < 28; x++) {
            set8(&t1, x, y, get8(&t1, x, y, 0), get8(&t1, x, y, 1) + 8, get8(&t1, x, y, 2));
            set8(&t2, x, y, get8(&t2, x, y, 0), get8(&t2, x, y, 1) + 40, get8(&t2, x, y, 2));
        }
    upf_flip_result r1, r2, r3;
    CHECK_OK(ctx, upf_metric_flip(ctx, &cases[2].ref, &t1, NULL, NULL, &r1, NULL));
    CHECK_OK(ctx, upf_metric_flip(ctx, &cases[2].ref, &t2, NULL, NULL, &r2, NULL));
    CHECKF(r1.mean > 0 && r2.mean > r1.mean, "means %g, %g", r1.mean, r2.mean);
    /* Black against white is the largest luminance difference: near the top of [0, 1]. */
    upf_image black = new_image(16, 16, UPF_FORMAT_RGBA8_SRGB), white = new_image(16, 16, UPF_FORMAT_RGBA8_SRGB);
    for (int p = 0; p < 256; p++)
        set8(&white, p % 16, p / 16, 255, 255, 255), set8(&black, p % 16, p / 16, 0, 0, 0);
    CHECK_OK(ctx, upf_metric_flip(ctx, &black, &white, NULL, NULL, &r3, NULL));
    CHECKF(r3.mean > 0.9 && r3.max <= 1.0 && r3.mean > r2.mean, "black/white mean %g", r3.mean);

    /* A crop gives what the cropped copies give, borders included (clamping at the crop's
     * edge, not the image's). */
    {
        upf_rect crop = { 6, 4, 15, 13 };
        upf_image ca = new_image(15, 13, UPF_FORMAT_RGBA8_SRGB), cb = new_image(15, 13, UPF_FORMAT_RGBA8_SRGB);
        for (int y = 0; y < 13; y++)
            for (int x = 0; x < 15; x++) {
                const upf_image *s = &cases[0].ref, *t = &cases[0].test;
                set8(&ca, x, y, get8(s, x + 6, y + 4, 0), get8(s, x + 6, y + 4, 1), get8(s, x + 6, y + 4, 2));
                set8(&cb, x, y, get8(t, x + 6, y + 4, 0), get8(t, x + 6, y + 4, 1), get8(t, x + 6, y + 4, 2));
            }
        upf_flip_result rc, rw;
        CHECK_OK(ctx, upf_metric_flip(ctx, &cases[0].ref, &cases[0].test, &crop, NULL, &rc, NULL));
        CHECK_OK(ctx, upf_metric_flip(ctx, &ca, &cb, NULL, NULL, &rw, NULL));
        CHECK(rc.mean == rw.mean && rc.max == rw.max && rc.weighted_median == rw.weighted_median);
        free(ca.data), free(cb.data);
    }

    /* The same pixels in a linear float format give nearly the same result (8-bit codes
     * decoded to linear and encoded again inside: float round trip only). */
    {
        upf_image lf = new_image(24, 24, UPF_FORMAT_RGBA32F);
        float *p = lf.data;
        for (int i = 0; i < 24 * 24; i++)
            for (int c = 0; c < 4; c++)
                p[4 * i + c] = (float)srgb_decode(((uint8_t *)cases[0].test.data)[4 * i + c] / 255.0);
        upf_flip_result r8, rf;
        CHECK_OK(ctx, upf_metric_flip(ctx, &cases[0].ref, &cases[0].test, NULL, NULL, &r8, NULL));
        CHECK_OK(ctx, upf_metric_flip(ctx, &cases[0].ref, &lf, NULL, NULL, &rf, NULL));
        CHECK_NEAR(rf.mean, r8.mean, 1e-4);
        free(lf.data);
    }

    for (int i = 0; i < 4; i++)
        free(cases[i].ref.data), free(cases[i].test.data);
    free(t1.data), free(t2.data), free(black.data), free(white.data);
}

/* ---- detail and shimmer ------------------------------------------------------------- */

static void test_detail_shimmer(upf_context *ctx, test_rng *rng)
{
    double v;
    /* Checkerboard of black and white: every inner pixel has four neighbours of the other
     * colour, so the Laplacian is +-4 * 255 = +-1020 everywhere and its RMS is 1020. */
    upf_image cb = new_image(9, 7, UPF_FORMAT_RGBA8_SRGB);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 9; x++) {
            int c = (x + y) & 1 ? 255 : 0;
            set8(&cb, x, y, c, c, c);
        }
    CHECK_OK(ctx, upf_metric_detail(ctx, &cb, NULL, &v));
    CHECK_NEAR(v, 1020.0, 1e-3);
    /* A single bright pixel in the middle of a 3x3 crop: Laplacian 4 * 255 at the one inner
     * pixel. Crop at (1,1) of a black image with a white pixel at (2,2). */
    upf_image one = new_image(5, 5, UPF_FORMAT_RGBA8_SRGB);
    for (int p = 0; p < 25; p++)
        set8(&one, p % 5, p / 5, 0, 0, 0);
    set8(&one, 2, 2, 255, 255, 255);
    CHECK_OK(ctx, upf_metric_detail(ctx, &one, &(upf_rect){ 1, 1, 3, 3 }, &v));
    CHECK_NEAR(v, 1020.0, 1e-3);
    /* A horizontal ramp of grey: luma is linear in x, so the Laplacian is 0. */
    upf_image ramp = new_image(20, 6, UPF_FORMAT_RGBA8_SRGB);
    for (int p = 0; p < 120; p++)
        set8(&ramp, p % 20, p / 20, 10 * (p % 20), 10 * (p % 20), 10 * (p % 20));
    CHECK_OK(ctx, upf_metric_detail(ctx, &ramp, NULL, &v));
    CHECK_NEAR(v, 0.0, 1e-3);
    /* Random image against the formula in double. */
    upf_image rnd = new_image(23, 17, UPF_FORMAT_RGBA8_SRGB);
    random8(&rnd, rng, 0, 255);
    double *l = luma_plane8(&rnd), s = 0;
    for (int y = 1; y < 16; y++)
        for (int x = 1; x < 22; x++) {
            double lap = 255 * (4 * l[y * 23 + x] - l[y * 23 + x - 1] - l[y * 23 + x + 1] -
                                l[(y - 1) * 23 + x] - l[(y + 1) * 23 + x]);
            s += lap * lap;
        }
    CHECK_OK(ctx, upf_metric_detail(ctx, &rnd, NULL, &v));
    CHECK_NEAR(v, sqrt(s / (21 * 15)), 1e-3);
    free(l), free(cb.data), free(one.data), free(ramp.data);

    /* Shimmer: identical frames give exactly 0; grey 100 -> 110 -> 100 changes by 10 codes
     * per pair (mean 10); 100 -> 110 -> 110 by 10 then 0 (mean 5). */
    upf_image f[3];
    for (int i = 0; i < 3; i++)
        f[i] = new_image(8, 6, UPF_FORMAT_RGBA8_SRGB);
    for (int p = 0; p < 48; p++) {
        set8(&f[0], p % 8, p / 8, 100, 100, 100);
        set8(&f[1], p % 8, p / 8, 110, 110, 110);
        set8(&f[2], p % 8, p / 8, 100, 100, 100);
    }
    upf_image same[3] = { rnd, rnd, rnd };
    CHECK_OK(ctx, upf_metric_shimmer(ctx, same, 3, NULL, &v));
    CHECK(v == 0.0);
    CHECK_OK(ctx, upf_metric_shimmer(ctx, f, 3, NULL, &v));
    CHECK_NEAR(v, 10.0, 1e-4);
    for (int p = 0; p < 48; p++)
        set8(&f[2], p % 8, p / 8, 110, 110, 110);
    CHECK_OK(ctx, upf_metric_shimmer(ctx, f, 3, NULL, &v));
    CHECK_NEAR(v, 5.0, 1e-4);
    /* Only the crop counts: change one pixel outside it. */
    set8(&f[1], 0, 0, 0, 0, 0);
    CHECK_OK(ctx, upf_metric_shimmer(ctx, f, 2, &(upf_rect){ 1, 1, 7, 5 }, &v));
    CHECK_NEAR(v, 10.0, 1e-4);
    CHECK_OK(ctx, upf_metric_shimmer(ctx, f, 2, NULL, &v));
    CHECK_NEAR(v, (47 * 10.0 + 100.0) / 48, 1e-4);
    for (int i = 0; i < 3; i++)
        free(f[i].data);
    free(rnd.data);
}

/* ---- thread independence ------------------------------------------------------------ */

static void test_threads(test_rng *rng)
{
    /* Big enough for several bands of rows whose split differs between 1 and 3 threads. */
    int w = 157, h = 203;
    upf_image a = new_image(w, h, UPF_FORMAT_RGBA8_SRGB), b = new_image(w, h, UPF_FORMAT_RGBA8_SRGB);
    random8(&a, rng, 0, 255);
    for (int p = 0; p < w * h; p++) {
        int x = p % w, y = p / w;
        set8(&b, x, y, (get8(&a, x, y, 0) + x) & 255, get8(&a, x, y, 1), (get8(&a, x, y, 2) * 3 + y) & 255);
    }
    upf_psnr_result p[2];
    double s[2], d[2], sh[2];
    upf_flip_result f[2];
    upf_image maps[2] = { new_image(w, h, UPF_FORMAT_R32F), new_image(w, h, UPF_FORMAT_R32F) };
    upf_image frames[3] = { a, b, a };
    const int threads[2] = { 1, 3 };
    for (int i = 0; i < 2; i++) {
        upf_context *ctx = test_context(threads[i]);
        CHECK_OK(ctx, upf_metric_psnr(ctx, &a, &b, NULL, &p[i]));
        CHECK_OK(ctx, upf_metric_ssim(ctx, &a, &b, NULL, &s[i]));
        CHECK_OK(ctx, upf_metric_flip(ctx, &a, &b, NULL, NULL, &f[i], &maps[i]));
        CHECK_OK(ctx, upf_metric_detail(ctx, &b, NULL, &d[i]));
        CHECK_OK(ctx, upf_metric_shimmer(ctx, frames, 3, NULL, &sh[i]));
        upf_context_destroy(&ctx);
    }
    CHECK(memcmp(&p[0], &p[1], sizeof p[0]) == 0);
    CHECK(memcmp(&s[0], &s[1], sizeof s[0]) == 0);
    CHECK(memcmp(&f[0], &f[1], sizeof f[0]) == 0);
    CHECK(memcmp(maps[0].data, maps[1].data, (size_t)w * h * 4) == 0);
    CHECK(memcmp(&d[0], &d[1], sizeof d[0]) == 0);
    CHECK(memcmp(&sh[0], &sh[1], sizeof sh[0]) == 0);
    CHECK(f[0].mean > 0 && s[0] < 1);
    free(a.data), free(b.data), free(maps[0].data), free(maps[1].data);
}

/* ---- row strides ------------------------------------------------------------------- */

/* Images whose rows are padded (stride > width * 4) give exactly what packed ones give. */
static void test_strides(upf_context *ctx, test_rng *rng)
{
    int w = 23, h = 17;
    size_t stride = (size_t)(w + 5) * 4;
    upf_image a = new_image(w, h, UPF_FORMAT_RGBA8_SRGB), b = new_image(w, h, UPF_FORMAT_RGBA8_SRGB);
    random8(&a, rng, 0, 255);
    random8(&b, rng, 0, 255);
    upf_image pa = { malloc(stride * h), w, h, stride, UPF_FORMAT_RGBA8_SRGB }, pb = pa;
    pb.data = malloc(stride * h);
    memset(pa.data, 0x55, stride * h), memset(pb.data, 0xaa, stride * h);
    for (int y = 0; y < h; y++) {
        memcpy((char *)pa.data + y * stride, (char *)a.data + (size_t)y * w * 4, (size_t)w * 4);
        memcpy((char *)pb.data + y * stride, (char *)b.data + (size_t)y * w * 4, (size_t)w * 4);
    }
    upf_psnr_result p1, p2;
    double s1, s2;
    upf_flip_result f1, f2;
    upf_image m1 = new_image(w, h, UPF_FORMAT_R32F);
    upf_image m2 = { malloc((size_t)(w + 3) * 4 * h), w, h, (size_t)(w + 3) * 4, UPF_FORMAT_R32F };
    CHECK_OK(ctx, upf_metric_psnr(ctx, &a, &b, NULL, &p1));
    CHECK_OK(ctx, upf_metric_psnr(ctx, &pa, &pb, NULL, &p2));
    CHECK_OK(ctx, upf_metric_ssim(ctx, &a, &b, NULL, &s1));
    CHECK_OK(ctx, upf_metric_ssim(ctx, &pa, &pb, NULL, &s2));
    CHECK_OK(ctx, upf_metric_flip(ctx, &a, &b, NULL, NULL, &f1, &m1));
    CHECK_OK(ctx, upf_metric_flip(ctx, &pa, &pb, NULL, NULL, &f2, &m2));
    CHECK(memcmp(&p1, &p2, sizeof p1) == 0 && s1 == s2 && memcmp(&f1, &f2, sizeof f1) == 0);
    int same = 1;
    for (int y = 0; y < h; y++)
        same &= memcmp((char *)m1.data + (size_t)y * w * 4, (char *)m2.data + y * m2.stride, (size_t)w * 4) == 0;
    CHECK(same);
    free(a.data), free(b.data), free(pa.data), free(pb.data), free(m1.data), free(m2.data);
}

/* ---- bad input ---------------------------------------------------------------------- */

static void test_bad_input(upf_context *ctx)
{
    upf_image a = new_image(12, 12, UPF_FORMAT_RGBA8_SRGB), b = new_image(12, 12, UPF_FORMAT_RGBA8_SRGB);
    upf_image small = new_image(10, 12, UPF_FORMAT_RGBA8_SRGB);
    upf_psnr_result pr;
    upf_flip_result fr;
    double v;
    const upf_result INVALID = UPF_ERROR_INVALID_ARGUMENT;

    /* NULLs */
    CHECK(upf_metric_psnr(NULL, &a, &b, NULL, &pr) == INVALID);
    CHECK(upf_metric_ssim(NULL, &a, &b, NULL, &v) == INVALID);
    CHECK(upf_metric_flip(NULL, &a, &b, NULL, NULL, &fr, NULL) == INVALID);
    CHECK(upf_metric_detail(NULL, &a, NULL, &v) == INVALID);
    CHECK(upf_metric_shimmer(NULL, &a, 2, NULL, &v) == INVALID);
    CHECK_FAILS(ctx, upf_metric_psnr(ctx, NULL, &b, NULL, &pr), INVALID, "reference image is NULL");
    CHECK_FAILS(ctx, upf_metric_psnr(ctx, &a, NULL, NULL, &pr), INVALID, "test image is NULL");
    CHECK_FAILS(ctx, upf_metric_psnr(ctx, &a, &b, NULL, NULL), INVALID, "out is NULL");
    CHECK_FAILS(ctx, upf_metric_ssim(ctx, &a, &b, NULL, NULL), INVALID, "out is NULL");
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &b, NULL, NULL, NULL, NULL), INVALID, "out is NULL");
    CHECK_FAILS(ctx, upf_metric_detail(ctx, NULL, NULL, &v), INVALID, "image is NULL");
    CHECK_FAILS(ctx, upf_metric_shimmer(ctx, NULL, 2, NULL, &v), INVALID, "frames is NULL");
    upf_image nodata = a;
    nodata.data = NULL;
    CHECK_FAILS(ctx, upf_metric_ssim(ctx, &a, &nodata, NULL, &v), INVALID, "data is NULL");

    /* Size mismatch: both sizes named. */
    CHECK_FAILS(ctx, upf_metric_psnr(ctx, &a, &small, NULL, &pr), INVALID, "test image is 10x12; expected 12x12");
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &small, NULL, NULL, &fr, NULL), INVALID, "10x12");
    upf_image frames[2] = { a, small };
    CHECK_FAILS(ctx, upf_metric_shimmer(ctx, frames, 2, NULL, &v), INVALID, "frame 1 is 10x12; expected 12x12");
    CHECK_FAILS(ctx, upf_metric_shimmer(ctx, frames, 1, NULL, &v), INVALID, "count is 1");

    /* Crops outside the image, and too small for SSIM / detail. */
    CHECK_FAILS(ctx, upf_metric_psnr(ctx, &a, &b, &(upf_rect){ 4, 4, 9, 8 }, &pr), INVALID,
                "crop 4,4,9x8 does not lie inside the 12x12 image");
    CHECK_FAILS(ctx, upf_metric_ssim(ctx, &a, &b, &(upf_rect){ -1, 0, 5, 5 }, &v), INVALID, "does not lie inside");
    CHECK_FAILS(ctx, upf_metric_ssim(ctx, &a, &b, &(upf_rect){ 0, 0, 10, 12 }, &v), INVALID,
                "10x12; expected at least 11x11");
    CHECK_FAILS(ctx, upf_metric_ssim(ctx, &small, &small, &(upf_rect){ 0, 0, 10, 12 }, &v), INVALID, "at least 11x11");
    CHECK_FAILS(ctx, upf_metric_detail(ctx, &a, &(upf_rect){ 0, 0, 2, 5 }, &v), INVALID, "at least 3x3");
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &b, &(upf_rect){ 0, 0, 13, 1 }, NULL, &fr, NULL), INVALID, "does not lie inside");

    /* NaN / Inf pixels: named by x,y in image coordinates. */
    upf_image f32 = new_image(12, 12, UPF_FORMAT_RGBA32F);
    ((float *)f32.data)[(2 * 12 + 3) * 4 + 1] = NAN;
    CHECK_FAILS(ctx, upf_metric_psnr(ctx, &a, &f32, NULL, &pr), UPF_ERROR_BAD_DATA, "test image: pixel 3,2 is not finite");
    CHECK_FAILS(ctx, upf_metric_ssim(ctx, &f32, &a, NULL, &v), UPF_ERROR_BAD_DATA, "reference image: pixel 3,2");
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &f32, NULL, NULL, &fr, NULL), UPF_ERROR_BAD_DATA, "pixel 3,2");
    CHECK_FAILS(ctx, upf_metric_detail(ctx, &f32, NULL, &v), UPF_ERROR_BAD_DATA, "pixel 3,2");
    /* ... but only inside the crop. */
    CHECK_OK(ctx, upf_metric_psnr(ctx, &a, &f32, &(upf_rect){ 4, 0, 8, 12 }, &pr));
    upf_image h16 = new_image(12, 12, UPF_FORMAT_RGBA16F);
    ((uint16_t *)h16.data)[(7 * 12 + 5) * 4 + 2] = 0x7c00; /* +Inf */
    upf_image hframes[2] = { a, h16 };
    CHECK_FAILS(ctx, upf_metric_shimmer(ctx, hframes, 2, NULL, &v), UPF_ERROR_BAD_DATA, "frame 1: pixel 5,7 is not finite");

    /* Not a colour format. */
    upf_image depth = new_image(12, 12, UPF_FORMAT_R32F);
    CHECK_FAILS(ctx, upf_metric_psnr(ctx, &depth, &b, NULL, &pr), INVALID, "reference image has format r32f");
    CHECK_FAILS(ctx, upf_metric_detail(ctx, &depth, NULL, &v), INVALID, "format r32f");

    /* FLIP's error map and viewing conditions. */
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &b, NULL, NULL, &fr, &a), INVALID, "error map has format rgba8-srgb");
    upf_image map_small = new_image(12, 11, UPF_FORMAT_R32F);
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &b, NULL, NULL, &fr, &map_small), INVALID, "error map is 12x11; expected 12x12");
    CHECK_OK(ctx, upf_metric_flip(ctx, &a, &b, &(upf_rect){ 0, 1, 12, 11 }, NULL, &fr, &map_small));
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &b, NULL, upf_flip_params(.pixels_per_degree = -5), &fr, NULL),
                INVALID, "pixels_per_degree is -5");
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &b, NULL, upf_flip_params(.pixels_per_degree = NAN), &fr, NULL),
                INVALID, "pixels_per_degree");
    CHECK_FAILS(ctx, upf_metric_flip(ctx, &a, &b, NULL, upf_flip_params(.pixels_per_degree = 1e6), &fr, NULL),
                INVALID, "pixels_per_degree");

    /* A success clears the last error. */
    CHECK_OK(ctx, upf_metric_ssim(ctx, &a, &b, NULL, &v));
    CHECK(upf_context_last_error(ctx, NULL) == UPF_OK);

    free(a.data), free(b.data), free(small.data), free(f32.data), free(h16.data), free(depth.data);
    free(map_small.data);
}

int main(void)
{
    test_rng rng = test_rng_make("metrics");
    upf_context *ctx = test_context(2);
    CHECK(ctx != NULL);
    test_psnr(ctx, &rng);
    test_ssim(ctx, &rng);
    test_flip(ctx, &rng);
    test_detail_shimmer(ctx, &rng);
    test_threads(&rng);
    test_strides(ctx, &rng);
    test_bad_input(ctx);
    upf_context_destroy(&ctx);
    return test_finish("metrics");
}
