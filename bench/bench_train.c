/* bench_train.c: speed of the trainer's arithmetic (tools/train/train_grad.c) on one thread.
 *
 *   bench_train [REPS]
 *
 * Prints windows/s and GFLOP/s of the training forward (which keeps the activations), of the
 * backward, and of both with the loss (one window of a training step), for random windows and
 * weights, best of REPS runs (default 3), with the C products and again with the AVX2 + FMA
 * ones where the CPU has them (upf__mat16_mul_for). A forward is 6 stages x 4 products of 16x16x16
 * multiply-adds (196608 flops); the backward 6 x 8 products less the two of stage 1's input
 * gradient (360448 flops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "train/train.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define PRODUCT_FLOPS (16.0 * 16 * 16 * 2)
#define FORWARD_FLOPS (6 * 4 * PRODUCT_FLOPS)
#define BACKWARD_FLOPS ((6 * 8 - 2) * PRODUCT_FLOPS)

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    if (reps < 1)
        reps = 1;
    enum { WINDOWS = 2048 };
    train_rng rng;
    train_rng_seed(&rng, 7);
    float *w = malloc(UPF_NET_WEIGHTS * sizeof(float));
    float *wt = malloc(UPF_NET_WEIGHTS * sizeof(float));
    float *grad = calloc(UPF_NET_WEIGHTS, sizeof(float));
    float *in = malloc((size_t)WINDOWS * UPF_NET_WINDOW * sizeof(float));
    float target[144], dout[256];
    train_acts *acts = malloc(sizeof *acts);
    train_init_weights(w, &rng, TRAIN_INIT_SIGMA);
    train_transpose_weights(w, wt);
    for (size_t i = 0; i < (size_t)WINDOWS * UPF_NET_WINDOW; i++)
        in[i] = (float)train_rng_uniform(&rng);
    for (int i = 0; i < 144; i++)
        target[i] = 0.1f * (float)(train_rng_uniform(&rng) - 0.5);

    const unsigned cpus[2] = { upf__cpu_detect() & UPF__CPU_X86_AVX2_FMA, 0 };
    double sink = 0;
    for (int c = cpus[0] ? 0 : 1; c < 2; c++) {
    const unsigned cpu = cpus[c];
    double best_f = 1e30, best_b = 1e30, best_fb = 1e30;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now();
        for (int k = 0; k < WINDOWS; k++) {
            train_forward(w, UPF_MODEL_FLAG_WINDOW_MEAN, in + (size_t)k * 256, acts, cpu);
            sink += acts->out[0];
        }
        double t1 = now();
        train_loss(acts->out, target, 1.0f, dout);
        for (int k = 0; k < WINDOWS; k++)
            train_backward(w, wt, acts, dout, grad, cpu);
        double t2 = now();
        for (int k = 0; k < WINDOWS; k++) {
            train_forward(w, UPF_MODEL_FLAG_WINDOW_MEAN, in + (size_t)k * 256, acts, cpu);
            sink += train_loss(acts->out, target, 1.0f, dout);
            train_backward(w, wt, acts, dout, grad, cpu);
        }
        double t3 = now();
        best_f = t1 - t0 < best_f ? t1 - t0 : best_f;
        best_b = t2 - t1 < best_b ? t2 - t1 : best_b;
        best_fb = t3 - t2 < best_fb ? t3 - t2 : best_fb;
    }
    printf("trainer arithmetic, %s products, 1 thread (%d windows, best of %d):\n",
           upf__cpu_flags_name(cpu), WINDOWS, reps);
    printf("  forward          %8.0f windows/s  %6.2f GFLOP/s\n", WINDOWS / best_f,
           WINDOWS * FORWARD_FLOPS / best_f * 1e-9);
    printf("  backward         %8.0f windows/s  %6.2f GFLOP/s\n", WINDOWS / best_b,
           WINDOWS * BACKWARD_FLOPS / best_b * 1e-9);
    printf("  forward+backward %8.0f windows/s  %6.2f GFLOP/s\n", WINDOWS / best_fb,
           WINDOWS * (FORWARD_FLOPS + BACKWARD_FLOPS) / best_fb * 1e-9);
    }
    if (sink == 12345.678)
        printf("%g\n", sink + grad[0]);
    free(w);
    free(wt);
    free(grad);
    free(in);
    free(acts);
    return 0;
}
