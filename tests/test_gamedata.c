/* test_gamedata.c: the game-capture tool's image arithmetic and pair checks
 * (tools/gamedata/gd_image.h) on synthetic images with known answers: phase correlation
 * finds known whole- and sub-pixel shifts of a band-limited pattern with a peak above the
 * significance bar (GD_PEAK_MIN_SIGMAS) and unrelated content below it, and the pair check
 * accepts an aligned input against its supersampled reference at 1.5x, 2x and 3x and rejects
 * the same input shifted by half or one pixel or taken from another scene; box reduction and
 * area resampling keep known values. */
#include "test_util.h"

#include "core/color.h"
#include "gamedata/gd_image.h"

/* A random texture, evaluated anywhere: five octaves of value noise (random values on
 * square lattices of 1.5 to 24 units, smoothly interpolated), amplitudes in proportion to
 * the lattice spacing (a broad spectrum, like natural images), in [0, 1]. */
#define LAT 256
typedef struct pattern {
    float v[5][LAT][LAT];
} pattern;

static void pattern_make(pattern *p, test_rng *rng)
{
    for (int o = 0; o < 5; o++)
        for (int y = 0; y < LAT; y++)
            for (int x = 0; x < LAT; x++)
                p->v[o][y][x] = test_rand_float(rng);
}

static double smooth(double t)
{
    return t * t * (3 - 2 * t);
}

static double pattern_at(const pattern *p, double x, double y)
{
    double s = 0, t = 0;
    for (int o = 0; o < 5; o++) {
        const double cell = 1.5 * (1 << o), fx = x / cell + 1000, fy = y / cell + 1000;
        const int ix = (int)floor(fx), iy = (int)floor(fy);
        const double ax = smooth(fx - ix), ay = smooth(fy - iy);
#define V(i, j) p->v[o][(j) % LAT][(i) % LAT]
        const double top = V(ix, iy) + ax * (V(ix + 1, iy) - V(ix, iy));
        const double bot = V(ix, iy + 1) + ax * (V(ix + 1, iy + 1) - V(ix, iy + 1));
#undef V
        s += cell * (top + ay * (bot - top));
        t += cell;
    }
    return s / t;
}

/* The pattern sampled at pixel centres of a w x h plane, displaced by (dx, dy) pixels. */
static float *pattern_plane(const pattern *p, int w, int h, double dx, double dy, double scale)
{
    float *out = malloc((size_t)w * h * sizeof *out);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            out[(size_t)y * w + x] =
                (float)pattern_at(p, ((x + 0.5) - dx) * scale, ((y + 0.5) - dy) * scale);
    return out;
}

/* An RGBA8_SRGB image of a pattern at a scale: pixel (x, y) covers pattern units
 * [x, x + 1) * unit, the value taken at its centre (a "native render" of that size). */
static upf_image pattern_image(const pattern *p, int w, int h, double unit, double dx)
{
    uint8_t *d = malloc((size_t)w * h * 4);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double v = pattern_at(p, (x + 0.5 - dx) * unit, (y + 0.5) * unit);
            uint8_t *q = d + ((size_t)y * w + x) * 4;
            q[0] = q[1] = q[2] = (uint8_t)lround(255 * v);
            q[3] = 255;
        }
    return (upf_image){ d, w, h, (size_t)w * 4, UPF_FORMAT_RGBA8_SRGB };
}

static void test_phase_correlation(test_rng *rng)
{
    const double shifts[][2] = { { 0, 0 }, { 3, -2 }, { -7, 5 }, { 0.5, 0 }, { 0, -0.5 },
                                 { 0.25, 0.75 }, { -1.3, 2.6 } };
    for (int k = 0; k < (int)(sizeof shifts / sizeof shifts[0]); k++) {
        static pattern p;
        pattern_make(&p, rng);
        const int w = 320, h = 180;
        float *a = pattern_plane(&p, w, h, shifts[k][0], shifts[k][1], 1.0);
        float *b = pattern_plane(&p, w, h, 0, 0, 1.0);
        gd_shift s;
        CHECK_EQ_INT(gd_phase_correlate(a, b, w, h, &s), 0);
        /* Within 1/8 pixel up to a pixel's shift; beyond it the fixed window pulls the
         * estimate toward 0 by a few percent of the shift. */
        const double tol = fabs(shifts[k][0]) <= 1 && fabs(shifts[k][1]) <= 1 ? 0.125 : 0.25;
        CHECK_NEAR(s.dx, shifts[k][0], tol);
        CHECK_NEAR(s.dy, shifts[k][1], tol);
        CHECKF(s.peak / s.noise >= GD_PEAK_MIN_SIGMAS, "shift %d: peak %.3f, %.1f deviations",
               k, s.peak, s.peak / s.noise);
        /* Unrelated content: the peak is the largest of 32768 samples of noise, 4.7 to 6.7
         * deviations over 14 seeds (below GD_PEAK_MIN_SIGMAS; above 3 unless the noise
         * estimate is wrong). */
        static pattern q;
        pattern_make(&q, rng);
        float *c = pattern_plane(&q, w, h, 0, 0, 1.0);
        CHECK_EQ_INT(gd_phase_correlate(a, c, w, h, &s), 0);
        CHECKF(s.peak / s.noise < GD_PEAK_MIN_SIGMAS && s.peak / s.noise > 3,
               "unrelated %d: peak %.3f, %.1f deviations at %.2f %.2f", k, s.peak,
               s.peak / s.noise, s.dx, s.dy);
        free(a);
        free(b);
        free(c);
    }
    gd_shift s;
    float tiny[8 * 8] = { 0 };
    CHECK_EQ_INT(gd_phase_correlate(tiny, tiny, 8, 8, &s), -1);
    CHECK_EQ_INT(gd_phase_correlate(NULL, tiny, 64, 64, &s), -1);
}

static void test_box_and_area(void)
{
    /* 2x2 blocks of 0 and 255 average to 0.5 encoded, and to encode(0.5) in linear light. */
    uint8_t px[4 * 4 * 4];
    for (int i = 0; i < 16; i++) {
        const uint8_t v = (uint8_t)((i % 4 + i / 4) % 2 ? 255 : 0);
        px[i * 4] = px[i * 4 + 1] = px[i * 4 + 2] = v;
        px[i * 4 + 3] = 255;
    }
    upf_image src = { px, 4, 4, 16, UPF_FORMAT_RGBA8_SRGB }, out;
    CHECK_EQ_INT(gd_box_reduce(&src, 2, GD_AVERAGE_ENCODED, &out), 0);
    CHECK_EQ_INT(out.width, 2);
    CHECK_EQ_INT(out.format, UPF_FORMAT_RGBA16_SRGB);
    CHECK_EQ_INT(((uint16_t *)out.data)[0], 32768);
    CHECK_EQ_INT(((uint16_t *)out.data)[3], 65535);
    free(out.data);
    CHECK_EQ_INT(gd_box_reduce(&src, 2, GD_AVERAGE_LINEAR, &out), 0);
    CHECK_EQ_INT(((uint16_t *)out.data)[5], lround(65535 * upf_linear_to_srgb_d(0.5)));
    free(out.data);
    CHECK_EQ_INT(gd_box_reduce(&src, 3, GD_AVERAGE_ENCODED, &out), -1);

    /* Area resampling 3 -> 2: output 0 is s0 + s1 / 2 over 1.5, output 1 is s1 / 2 + s2. */
    const float row[3] = { 0.0f, 0.6f, 0.9f };
    float *r = gd_area_resample(row, 3, 1, 2, 1);
    CHECK_NEAR(r[0], (0.0 + 0.3) / 1.5, 1e-6);
    CHECK_NEAR(r[1], (0.3 + 0.9) / 1.5, 1e-6);
    free(r);
    CHECK(gd_area_resample(row, 3, 1, 4, 1) == NULL);
}

/* Native renders against a 4x supersampled, box-filtered reference: 160x90 against 240x135
 * (1.5x), 120x68 against 240x136 (2x) and 80x45 against 240x135 (3x). Aligned, each passes the verdict; shifted by a whole or half input pixel, or taken
 * from another scene, it does not, and the measured shift is the one applied. */
static void test_pair_check(test_rng *rng)
{
    static pattern p, q;
    pattern_make(&p, rng);
    pattern_make(&q, rng);
    const struct {
        int rw, rh, lw, lh;
    } sizes[] = { { 240, 135, 160, 90 }, { 240, 136, 120, 68 }, { 240, 135, 80, 45 } };
    char why[256];
    for (int k = 0; k < 3; k++) {
        const int rw = sizes[k].rw, rh = sizes[k].rh, lw = sizes[k].lw, lh = sizes[k].lh;
        const double ratio = (double)rw / lw, unit = 0.5; /* pattern units per ref pixel */
        upf_image hi = pattern_image(&p, rw * 4, rh * 4, 0.25 * unit, 0), ref;
        CHECK_EQ_INT(gd_box_reduce(&hi, 4, GD_AVERAGE_ENCODED, &ref), 0);
        upf_image lr = pattern_image(&p, lw, lh, ratio * unit, 0);
        upf_image lr_half = pattern_image(&p, lw, lh, ratio * unit, 0.5);
        upf_image lr_shift = pattern_image(&p, lw, lh, ratio * unit, 1.0);
        upf_image other = pattern_image(&q, lw, lh, ratio * unit, 0);
        gd_check c;
        CHECK_EQ_INT(gd_check_pair(&lr, &ref, &c), 0);
        CHECKF(fabs(c.shift.dx) < 0.1 && fabs(c.shift.dy) < 0.1, "%gx aligned: %.3f %.3f",
               ratio, c.shift.dx, c.shift.dy);
        CHECKF(c.psnr_blur > 35, "%gx aligned: blurred PSNR %.2f", ratio, c.psnr_blur);
        CHECKF(gd_check_verdict(&c, GD_MAX_SHIFT, GD_PEAK_MIN_SIGMAS, 26, why, sizeof why),
               "%gx aligned: %s", ratio, why);
        CHECK_EQ_INT(gd_check_pair(&lr_half, &ref, &c), 0);
        CHECK_NEAR(c.shift.dx, 0.5, 0.1);
        CHECK_NEAR(c.shift.dy, 0.0, 0.1);
        CHECK(!gd_check_verdict(&c, GD_MAX_SHIFT, GD_PEAK_MIN_SIGMAS, 26, why, sizeof why));
        CHECKF(strstr(why, "shift") != NULL, "%gx half pixel: %s", ratio, why);
        CHECK_EQ_INT(gd_check_pair(&lr_shift, &ref, &c), 0);
        CHECK_NEAR(c.shift.dx, 1.0, 0.1);
        CHECK_NEAR(c.shift.dy, 0.0, 0.1);
        CHECK(!gd_check_verdict(&c, GD_MAX_SHIFT, GD_PEAK_MIN_SIGMAS, 26, why, sizeof why));
        CHECK_EQ_INT(gd_check_pair(&other, &ref, &c), 0);
        CHECKF(c.psnr_blur < 26, "%gx other scene: blurred PSNR %.2f", ratio, c.psnr_blur);
        CHECK(!gd_check_verdict(&c, GD_MAX_SHIFT, GD_PEAK_MIN_SIGMAS, 26, why, sizeof why));
        CHECK_EQ_INT(gd_check_pair(&ref, &lr, &c), -1);
        free(hi.data);
        free(ref.data);
        free(lr.data);
        free(lr_half.data);
        free(lr_shift.data);
        free(other.data);
    }
}

int main(void)
{
    test_rng rng = test_rng_make("gamedata");
    test_phase_correlation(&rng);
    test_box_and_area();
    test_pair_check(&rng);
    return test_finish("gamedata");
}
