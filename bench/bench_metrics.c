/* bench_metrics.c: times PSNR, SSIM, LDR-FLIP, detail and shimmer on a random pair of frames.
 *
 *   bench_metrics [WIDTH HEIGHT [THREADS [REPEATS]]]     (defaults: 1920 1080, all CPUs, 5)
 *
 * The pair is random 8-bit sRGB noise and a copy with a smooth offset, so every stage of each
 * metric does real work. Prints the best and median wall time of each metric in ms, the
 * thread count, and the values (so a change that speeds a metric up by breaking it shows). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upframe.h"
#include "common/bench_util.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

enum { PSNR, SSIM, FLIP, DETAIL, SHIMMER, METRICS };
static const char *const names[METRICS] = { "psnr", "ssim", "flip", "detail", "shimmer" };

int main(int argc, char **argv)
{
    int w = argc > 2 ? atoi(argv[1]) : 1920, h = argc > 2 ? atoi(argv[2]) : 1080;
    int threads = argc > 3 ? atoi(argv[3]) : 0, repeats = argc > 4 ? atoi(argv[4]) : 5;
    if (w < 11 || h < 11 || threads < 0 || repeats < 1 || repeats > 100) {
        fprintf(stderr, "usage: bench_metrics [WIDTH HEIGHT [THREADS [REPEATS]]] (sizes >= 11, "
                        "repeats 1..100)\n");
        return 2;
    }
    upf_context *ctx = upf_context_create(upf_context_params(.threads = threads,
                                                             .log = upf_log_stderr));
    if (!ctx)
        return 1;

    size_t n = (size_t)w * h * 4;
    uint8_t *a = malloc(n), *b = malloc(n);
    if (!a || !b)
        return 1;
    uint32_t s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        a[i] = (uint8_t)(s >> 24);
        int x = (int)(i / 4 % (size_t)w), v = a[i] + (x * 16) / w - 8;
        b[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    upf_image ref = { a, w, h, 0, UPF_FORMAT_RGBA8_SRGB }, test = { b, w, h, 0, UPF_FORMAT_RGBA8_SRGB };
    upf_image frames[2] = { ref, test };

    double times[METRICS][100], value[METRICS] = { 0 };
    upf_psnr_result psnr;
    upf_flip_result flip;
    for (int r = 0; r < repeats; r++) {
        for (int m = 0; m < METRICS; m++) {
            double t0 = now_ms();
            upf_result res = UPF_OK;
            switch (m) {
            case PSNR: res = upf_metric_psnr(ctx, &ref, &test, NULL, &psnr); value[m] = psnr.rgb; break;
            case SSIM: res = upf_metric_ssim(ctx, &ref, &test, NULL, &value[m]); break;
            case FLIP: res = upf_metric_flip(ctx, &ref, &test, NULL, NULL, &flip, NULL); value[m] = flip.mean; break;
            case DETAIL: res = upf_metric_detail(ctx, &test, NULL, &value[m]); break;
            case SHIMMER: res = upf_metric_shimmer(ctx, frames, 2, NULL, &value[m]); break;
            }
            times[m][r] = now_ms() - t0;
            if (res != UPF_OK)
                return 1; /* the log said why */
        }
    }
    printf("metrics on %dx%d, %d threads, %d runs each (best / median ms):\n", w, h,
           upf_context_threads(ctx), repeats);
    for (int m = 0; m < METRICS; m++) {
        qsort(times[m], (size_t)repeats, sizeof(double), bench_cmp_double);
        printf("  %-8s %9.1f %9.1f   value %.6g\n", names[m], times[m][0], times[m][repeats / 2],
               value[m]);
    }
    free(a);
    free(b);
    upf_context_destroy(&ctx);
    return 0;
}
