/* bench_net.c: speed of the spatial engine's network and pass 4 on the CPU.
 *
 *   bench_net [REPS [MAX_THREADS]]
 *
 * Prints: window forward throughput (windows/s and GFLOP/s) of the scalar reference, the
 * vectorisable C version and the SIMD entry this CPU runs (net.h's table: AVX2 + FMA); then
 * pass 4 for 1920x1080 -> 3840x2160 with a step-6 model (2x, the model's own ratio) of random
 * weights, on 1 and 2 threads (1, 2, 4, ... up to MAX_THREADS when given), with the SIMD
 * forward and again with the plain C one where the CPU has a SIMD entry, split into the
 * detail map and the output composition (sharpness 1; into RGBA8 sRGB, the usual output, and
 * into RGBA32F, which shows the cost of the sRGB encoding). Each figure is the best of REPS runs
 * (default 3). A window is 6 stages x 4 products of 16x16x16 multiply-adds: 196608 flops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/color.h"
#include "spatial/net.h"
#include "spatial/reconstruct.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t rng_state = 12345;

static float rnd(void) /* uniform [0, 1), xorshift32 */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (float)(rng_state >> 8) * 0x1p-24f;
}

#define FLOPS_PER_WINDOW (6.0 * 4 * 16 * 16 * 16 * 2)

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    if (reps < 1)
        reps = 1;
    int max_threads = argc > 2 ? atoi(argv[2]) : 2;
    if (max_threads < 1 || max_threads > 64)
        max_threads = 2;

    upf__net_model *m = calloc(1, sizeof *m);
    m->step = 6;
    m->detail_strength = 1.0f;
    for (int s = 0; s < UPF_NET_STAGES; s++)
        for (int k = 0; k < UPF_NET_MATRICES; k++)
            for (int i = 0; i < UPF_NET_WINDOW; i++)
                m->w[s][k][i] = upf_half_to_float(upf_float_to_half(0.9f * rnd() - 0.45f));

    /* ---- window forward ---- */
    enum { WINDOWS = 4096 };
    float *in = malloc(sizeof(float) * UPF_NET_WINDOW * WINDOWS);
    float *out = malloc(sizeof(float) * UPF_NET_WINDOW * WINDOWS);
    for (size_t i = 0; i < (size_t)UPF_NET_WINDOW * WINDOWS; i++)
        in[i] = rnd();
    /* The reference, then each entry of the forward table this CPU runs (net.h). */
    const upf__net_forward_fn simd = upf__net_forward_for(upf__cpu_detect());
    double best_ref = 1e30, best_fast = 1e30, best_simd = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int w = 0; w < WINDOWS; w++)
            upf__net_window_forward_ref(m, in + (size_t)w * UPF_NET_WINDOW,
                                        out + (size_t)w * UPF_NET_WINDOW);
        double t1 = now();
        upf__net_windows_forward(m, in, out, WINDOWS);
        double t2 = now();
        if (simd != upf__net_windows_forward)
            simd(m, in, out, WINDOWS);
        double t3 = now();
        best_ref = t1 - t0 < best_ref ? t1 - t0 : best_ref;
        best_fast = t2 - t1 < best_fast ? t2 - t1 : best_fast;
        best_simd = t3 - t2 < best_simd ? t3 - t2 : best_simd;
    }
    printf("window forward, 1 thread (%d windows, best of %d):\n", WINDOWS, reps);
    printf("  reference  %10.0f windows/s  %6.2f GFLOP/s\n", WINDOWS / best_ref,
           WINDOWS * FLOPS_PER_WINDOW / best_ref * 1e-9);
    printf("  fast C     %10.0f windows/s  %6.2f GFLOP/s  (%.2fx)\n", WINDOWS / best_fast,
           WINDOWS * FLOPS_PER_WINDOW / best_fast * 1e-9, best_ref / best_fast);
    if (simd != upf__net_windows_forward)
        printf("  %-10s %10.0f windows/s  %6.2f GFLOP/s  (%.2fx)\n",
               upf__cpu_flags_name(upf__cpu_detect()), WINDOWS / best_simd,
               WINDOWS * FLOPS_PER_WINDOW / best_simd * 1e-9, best_ref / best_simd);
    else
        printf("  (no SIMD entry for this CPU)\n");
    free(in);
    free(out);

    /* ---- pass 4, 1920x1080 -> 3840x2160 ---- */
    const int w = 1920, h = 1080, ow = 3840, oh = 2160;
    uint32_t *px = malloc(sizeof *px * (size_t)w * h);
    for (size_t i = 0; i < (size_t)w * h; i++) /* noise: the cost does not depend on content */
        px[i] = upf_pack_sqrt1010102(rnd(), rnd(), rnd(), 1.0f);
    uint8_t *dst_px = malloc((size_t)ow * oh * 4);
    float *dst_f = malloc(sizeof(float) * 4 * (size_t)ow * oh);
    upf_image dst = { dst_px, ow, oh, 0, UPF_FORMAT_RGBA8_SRGB };
    upf_image dst32 = { dst_f, ow, oh, 0, UPF_FORMAT_RGBA32F };
    upf__sqrt_frame frame = { px, w, h, 0 };
    printf("pass 4, %dx%d -> %dx%d, step %d (best of %d):\n", w, h, ow, oh, m->step, reps);
    const unsigned cpu_sets[2] = { upf__cpu_detect(), 0 };
    for (int set = 0; set < (cpu_sets[0] ? 2 : 1); set++)
    for (int threads = 1; threads <= max_threads; threads = threads < 2 ? 2 : 2 * threads) {
        upf_context *ctx = upf_context_create(upf_context_params(.threads = threads));
        ctx->cpu_flags = cpu_sets[set]; /* the detail map's forward: SIMD, then plain C */
        size_t bytes = upf__reconstruct_scratch_bytes(threads, m->step, w, h, ow);
        unsigned char *scratch = malloc(bytes);
        upf__detail_map map;
        upf__detail_map_init(&map, m->step, m->flags, w, h, (float *)scratch);
        size_t map_bytes = upf__detail_map_bytes(m->step, w, h);
        double best_d = 1e30, best_c = 1e30, best_f = 1e30;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            upf_result r1 = upf__make_detail_map(ctx, m, &frame, &map, scratch + map_bytes,
                                                 bytes - map_bytes);
            double t1 = now();
            upf_result r2 = upf__compose_output(ctx, &frame, &map, &dst, 1.0f,
                                                scratch + map_bytes, bytes - map_bytes);
            double t2 = now();
            upf_result r3 = upf__compose_output(ctx, &frame, &map, &dst32, 1.0f,
                                                scratch + map_bytes, bytes - map_bytes);
            double t3 = now();
            if (r1 != UPF_OK || r2 != UPF_OK || r3 != UPF_OK) {
                const char *msg = "";
                upf_context_last_error(ctx, &msg);
                fprintf(stderr, "bench_net: %s\n", msg);
                return 1;
            }
            best_d = t1 - t0 < best_d ? t1 - t0 : best_d;
            best_c = t2 - t1 < best_c ? t2 - t1 : best_c;
            best_f = t3 - t2 < best_f ? t3 - t2 : best_f;
        }
        long windows = (long)((map.width + 47) / 48) * ((map.height + 47) / 48) * 16;
        printf("  %-8s %2d thread%s: detail map %6.1f ms (%ld windows, %.0f windows/s), compose "
               "%6.1f ms (rgba8-srgb; %.1f ms to rgba32f), total %6.1f ms\n",
               upf__cpu_flags_name(cpu_sets[set]), threads, threads > 1 ? "s" : "", best_d * 1e3, windows, windows / best_d, best_c * 1e3,
               best_f * 1e3, (best_d + best_c) * 1e3);
        free(scratch);
        upf_context_destroy(&ctx);
    }
    free(dst_f);
    free(dst_px);
    free(px);
    free(m);
    return 0;
}
