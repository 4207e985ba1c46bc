/* bench_smaa.c: milliseconds per pass of the spatial engine's SMAA passes (edges, weights,
 * blend) at 1920x1080 and 1280x720, on 1 and 2 threads, on a generated aliased frame:
 * rotated polygons, thin lines and text-like strokes in flat colours, one sample per pixel.
 *
 *   ./build/bench/bench_smaa [runs]      (default 30 runs a case)
 *
 * Each figure is the median wall time of the runs, with the fastest in brackets (on a
 * shared machine the fastest is the better estimate of the cost itself).
 *
 * The passes run on the engine's own pass runner (src/core/pass.h), which times each.
 * Also prints how long generating the area table takes and how many pixels carry edges. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spatial/smaa.h"
#include "spatial/spatial_passes.h"
#include "common/bench_util.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static uint32_t rng_state = 12345u;

static double rnd(void) /* uniform in [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (rng_state >> 8) * (1.0 / 16777216.0);
}

static void fill_pixel(float *img, int w, int x, int y, const float *c)
{
    memcpy(img + ((size_t)y * w + x) * 4, c, 4 * sizeof(float));
}

/* A convex polygon (n corners around a centre, rotated), filled where pixel centres fall. */
static void draw_polygon(float *img, int w, int h, double cx, double cy, double radius, int n,
                         double angle, const float *c)
{
    double px[8], py[8];
    for (int i = 0; i < n; i++) {
        double a = angle + 6.283185307 * i / n;
        px[i] = cx + radius * cos(a) * (0.6 + 0.4 * (i & 1));
        py[i] = cy + radius * sin(a);
    }
    int x0 = (int)fmax(0, cx - radius - 1), x1 = (int)fmin(w - 1, cx + radius + 1);
    int y0 = (int)fmax(0, cy - radius - 1), y1 = (int)fmin(h - 1, cy + radius + 1);
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            double qx = x + 0.5, qy = y + 0.5;
            int inside = 1;
            for (int i = 0; i < n && inside; i++) {
                int j = (i + 1) % n;
                inside = (px[j] - px[i]) * (qy - py[i]) - (py[j] - py[i]) * (qx - px[i]) >= 0;
            }
            if (inside)
                fill_pixel(img, w, x, y, c);
        }
    }
}

/* A line segment of the given width. */
static void draw_line(float *img, int w, int h, double ax, double ay, double bx, double by,
                      double width, const float *c)
{
    double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    int x0 = (int)fmax(0, fmin(ax, bx) - width - 1), x1 = (int)fmin(w - 1, fmax(ax, bx) + width + 1);
    int y0 = (int)fmax(0, fmin(ay, by) - width - 1), y1 = (int)fmin(h - 1, fmax(ay, by) + width + 1);
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            double qx = x + 0.5 - ax, qy = y + 0.5 - ay;
            double t = len2 > 0 ? fmax(0, fmin(1, (qx * dx + qy * dy) / len2)) : 0;
            double ex = qx - t * dx, ey = qy - t * dy;
            if (ex * ex + ey * ey <= 0.25 * width * width)
                fill_pixel(img, w, x, y, c);
        }
    }
}

static void random_colour(float *c)
{
    for (int k = 0; k < 3; k++)
        c[k] = (float)pow(rnd(), 2.2);
    c[3] = 1.0f;
}

/* The test frame: a few large flat regions, 150 rotated polygons, 60 thin lines and a
 * block of "text" (short strokes on a character grid), scaled to the frame size. */
static void make_frame(float *img, int w, int h)
{
    rng_state = 12345u;
    float c[4];
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float *p = img + ((size_t)y * w + x) * 4;
            float sky = 0.2f + 0.6f * y / h;
            p[0] = 0.3f * sky;
            p[1] = 0.4f * sky;
            p[2] = sky;
            p[3] = 1.0f;
        }
    }
    double s = w / 1920.0;
    for (int i = 0; i < 150; i++) {
        random_colour(c);
        draw_polygon(img, w, h, rnd() * w, rnd() * h, (10 + rnd() * 120) * s, 3 + (int)(rnd() * 4),
                     rnd() * 6.283, c);
    }
    for (int i = 0; i < 60; i++) {
        random_colour(c);
        double ax = rnd() * w, ay = rnd() * h;
        draw_line(img, w, h, ax, ay, ax + (rnd() - 0.5) * 800 * s, ay + (rnd() - 0.5) * 800 * s,
                  0.7 + rnd() * 1.2, c);
    }
    const float ink[4] = { 0.95f, 0.95f, 0.9f, 1.0f };
    int cell = (int)fmax(6, 12 * s);
    for (int row = 0; row < 12; row++) {
        for (int col = 0; col < 60; col++) {
            double x = w * 0.05 + col * cell, y = h * 0.75 + row * cell * 1.6;
            for (int k = 0; k < 3; k++) {
                double ax = x + rnd() * cell * 0.7, ay = y + rnd() * cell;
                double bx = x + rnd() * cell * 0.7, by = y + rnd() * cell;
                draw_line(img, w, h, ax, ay, bx, by, 1.0 + 0.5 * s, ink);
            }
        }
    }
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 30;
    if (runs < 1)
        runs = 1;
    static uint8_t table[UPF_SMAA_AREA_BYTES];
    double t0 = now_ms();
    upf__smaa_area_table(table);
    printf("area table: %.2f ms to generate\n", now_ms() - t0);

    const int sizes[2][2] = { { 1920, 1080 }, { 1280, 720 } };
    for (int si = 0; si < 2; si++) {
        int w = sizes[si][0], h = sizes[si][1];
        int bw = upf__smaa_blocks(w), bh = upf__smaa_blocks(h);
        float *linear = malloc((size_t)w * h * 4 * sizeof(float));
        double *times = malloc(sizeof(double) * 3 * runs);
        if (!linear || !times) {
            fprintf(stderr, "bench_smaa: out of memory\n");
            return 1;
        }
        make_frame(linear, w, h);
        const upf_image src = { linear, w, h, 0, UPF_FORMAT_RGBA32F };

        for (int threads = 1; threads <= 2; threads++) {
            upf_context *ctx = upf_context_create(upf_context_params(.threads = threads));
            if (!ctx) {
                fprintf(stderr, "bench_smaa: no context\n");
                return 1;
            }
            /* The engine's own passes convert .. blend, on the runner that times each. */
            const upf__spatial_config cfg = { .src_width = w, .src_height = h,
                                              .area_table = table };
            upf_spatial *engine = upf__spatial_create(ctx, "bench_smaa", &cfg);
            if (!engine || upf__spatial_run_passes(engine, "bench_smaa", &src, NULL,
                                                   UPF_SPATIAL_PASS_CONVERT,
                                                   UPF_SPATIAL_PASS_CONVERT) != UPF_OK) {
                fprintf(stderr, "bench_smaa: the engine failed\n");
                return 1;
            }
            const double *ms = upf__spatial_passes(engine)->ms;
            for (int r = -2; r < runs; r++) { /* two warm-up runs */
                upf__spatial_run_passes(engine, "bench_smaa", NULL, NULL, UPF_SPATIAL_PASS_EDGES,
                                        UPF_SPATIAL_PASS_BLEND);
                if (r >= 0) {
                    times[r] = ms[UPF_SPATIAL_PASS_EDGES];
                    times[runs + r] = ms[UPF_SPATIAL_PASS_WEIGHTS];
                    times[2 * runs + r] = ms[UPF_SPATIAL_PASS_BLEND];
                }
            }
            const uint32_t *edges = upf__spatial_surface(engine, UPF__SP_EDGES)->data;
            const uint8_t *weights = upf__spatial_surface(engine, UPF__SP_WEIGHTS)->data;
            for (int p = 0; p < 3; p++)
                qsort(times + p * runs, runs, sizeof(double), bench_cmp_double);
            long edge_px = 0, weight_px = 0;
            for (int i = 0; i < bw * bh; i++)
                for (uint32_t v = edges[i]; v; v &= v - 1)
                    edge_px++;
            for (int i = 0; i < w * h; i++)
                weight_px += (weights[4 * i] | weights[4 * i + 1] | weights[4 * i + 2] |
                              weights[4 * i + 3]) != 0;
            printf("%dx%d, %d thread%s: edges %.2f (%.2f) ms, weights %.2f (%.2f) ms, "
                   "blend %.2f (%.2f) ms; %d runs, %.1f %% edge flags, %.1f %% pixels with "
                   "weights\n",
                   w, h, threads, threads > 1 ? "s" : "", times[runs / 2], times[0],
                   times[runs + runs / 2], times[runs], times[2 * runs + runs / 2],
                   times[2 * runs], runs, 100.0 * edge_px / ((double)w * h),
                   100.0 * weight_px / ((double)w * h));
            upf_spatial_destroy(&engine);
            upf_context_destroy(&ctx);
        }
        free(linear);
        free(times);
    }
    return 0;
}
