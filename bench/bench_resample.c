/* bench_resample.c: times upf_resampler_run for the game-frame upscales 1920x1080 ->
 * 3840x2160 and 1280x720 -> 2560x1440, RGBA8 sRGB and RGBA32F (same format in and out),
 * every filter, on 1 and 2 threads. Prints the median of N runs in milliseconds, and the
 * machine (CPU model from /proc/cpuinfo, online CPUs).
 *
 *   bench_resample [runs] [frame|noise]
 *
 * runs: timed runs per case (default 7; one warm-up run before them is not counted).
 * frame (default): a synthetic game-like frame; noise: random pixels (see image_fill).
 * Reads nothing else; writes only to stdout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "upframe.h"
#include "common/bench_util.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static upf_image image_alloc(int w, int h, upf_format fmt)
{
    size_t bytes = (size_t)w * (size_t)h * upf_format_bytes_per_pixel(fmt);
    upf_image img = { malloc(bytes), w, h, 0, fmt };
    if (!img.data) {
        fprintf(stderr, "bench_resample: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return img;
}

/* Deterministic content. "frame": a synthetic game-like frame: smooth colour gradients,
 * hard-edged 24-pixel blocks, a fine stripe texture and a little noise (spatially coherent,
 * like a rendered frame). "noise": uniform random values in every channel, the worst case
 * for code that branches on values. RGBA8 gets sRGB codes, RGBA32F linear values. */
static void image_fill(upf_image *img, int noise)
{
    uint32_t s = 2463534242u;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < 4; c++) {
                s ^= s << 13, s ^= s >> 17, s ^= s << 5; /* xorshift32 */
                double r = (double)(s >> 8) * 0x1p-24;   /* [0, 1) */
                double v;
                if (noise) {
                    v = r;
                } else if (c == 3) {
                    v = 1.0;
                } else {
                    double grad = c == 0 ? (double)x / img->width
                                : c == 1 ? (double)y / img->height
                                         : 0.5 + 0.5 * sin((x + 2 * y) * 0.05);
                    int block = ((x / 24) + (y / 24)) % 3;
                    double stripe = ((x + y) / 2) % 2 ? 0.1 : 0.0;
                    v = 0.6 * grad + 0.15 * block + stripe + 0.02 * (r - 0.5);
                    v = v < 0 ? 0 : v > 1 ? 1 : v;
                }
                size_t i = ((size_t)y * (size_t)img->width + (size_t)x) * 4 + (size_t)c;
                if (img->format == UPF_FORMAT_RGBA32F)
                    ((float *)img->data)[i] = (float)v;
                else
                    ((uint8_t *)img->data)[i] = (uint8_t)(v * 255.0 + 0.5);
            }
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    int noise = argc > 2 && strcmp(argv[2], "noise") == 0;
    if (runs < 1 || runs > 1000 || (argc > 2 && !noise && strcmp(argv[2], "frame") != 0)) {
        fprintf(stderr, "usage: bench_resample [runs 1..1000] [frame|noise]\n");
        return 2;
    }
    static const struct { int sw, sh, dw, dh; } sizes[] = {
        { 1920, 1080, 3840, 2160 },
        { 1280, 720, 2560, 1440 },
    };
    static const upf_format formats[] = { UPF_FORMAT_RGBA8_SRGB, UPF_FORMAT_RGBA32F };
    static const upf_filter filters[] = { UPF_FILTER_BILINEAR, UPF_FILTER_BICUBIC,
                                          UPF_FILTER_LANCZOS3 };
    static const int thread_counts[] = { 1, 2 };

    char machine[320];
    bench_machine(machine, sizeof machine);
    printf("machine: %s\n", machine);
    printf("ms per frame, median of %d runs (fastest in brackets); upf_resampler_run, same "
           "format in and out, %s input\n", runs, noise ? "random-noise" : "synthetic-frame");
    printf("%-22s %-11s %-9s %17s %17s\n", "size", "format", "filter", "1 thread", "2 threads");
    double *times = malloc((size_t)runs * sizeof(double));
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
            upf_image src = image_alloc(sizes[si].sw, sizes[si].sh, formats[fi]);
            upf_image dst = image_alloc(sizes[si].dw, sizes[si].dh, formats[fi]);
            image_fill(&src, noise);
            for (size_t ki = 0; ki < sizeof filters / sizeof filters[0]; ki++) {
                char size_name[32];
                snprintf(size_name, sizeof size_name, "%dx%d->%dx%d", sizes[si].sw,
                         sizes[si].sh, sizes[si].dw, sizes[si].dh);
                printf("%-22s %-11s %-9s", size_name, upf_format_name(formats[fi]),
                       upf_filter_name(filters[ki]));
                for (size_t ti = 0; ti < sizeof thread_counts / sizeof thread_counts[0]; ti++) {
                    upf_context *ctx = upf_context_create(upf_context_params(
                        .threads = thread_counts[ti], .log = upf_log_stderr));
                    upf_resampler *r = ctx ? upf_resampler_create(ctx, upf_resampler_params(
                        .src_width = src.width, .src_height = src.height,
                        .dst_width = dst.width, .dst_height = dst.height,
                        .filter = filters[ki])) : NULL;
                    if (!r) {
                        fprintf(stderr, "bench_resample: could not create the resampler\n");
                        return 1;
                    }
                    upf_result res = upf_resampler_run(r, &src, &dst); /* warm-up */
                    for (int i = 0; i < runs && res == UPF_OK; i++) {
                        double t0 = now_ms();
                        res = upf_resampler_run(r, &src, &dst);
                        times[i] = now_ms() - t0;
                    }
                    if (res != UPF_OK) {
                        const char *msg = "";
                        upf_context_last_error(ctx, &msg);
                        fprintf(stderr, "bench_resample: %s\n", msg);
                        return 1;
                    }
                    qsort(times, (size_t)runs, sizeof(double), bench_cmp_double);
                    printf(" %8.1f (%6.1f)", times[runs / 2], times[0]);
                    fflush(stdout);
                    upf_resampler_destroy(&r);
                    upf_context_destroy(&ctx);
                }
                printf("\n");
            }
            free(src.data);
            free(dst.data);
        }
    free(times);
    return 0;
}
