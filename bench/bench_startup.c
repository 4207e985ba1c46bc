/* bench_startup.c: what making the spatial engine costs before its work: upf_context_create,
 * the built-in models' load, upf_spatial_memory, upf_spatial_create, then its first runs
 * (the first one touches every surface for the first time), at 1920x1080 -> 3840x2160 RGBA8
 * sRGB, the `upframe upscale` case. Prints each step's wall time and the process's CPU time
 * (every thread's, which a shared machine inflates less than wall time).
 *
 *   bench_startup [runs]
 *
 * runs: engine runs after creation (default 3). Reads nothing; writes only to stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "upframe.h"
#include "common/bench_util.h"

#define PROG "bench_startup"

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef struct stamp {
    double wall, cpu;
} stamp;

static stamp now(void)
{
    return (stamp){ clock_ms(CLOCK_MONOTONIC), clock_ms(CLOCK_PROCESS_CPUTIME_ID) };
}

static void step(const char *what, stamp *t)
{
    stamp n = now();
    printf("%-26s %9.1f %9.1f\n", what, n.wall - t->wall, n.cpu - t->cpu);
    *t = n;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    char machine[256];
    bench_machine(machine, sizeof machine);
    printf("%s: 1920x1080 -> 3840x2160 RGBA8 sRGB, %s\n%-26s %9s %9s\n", PROG, machine, "step",
           "wall ms", "cpu ms");
    stamp t = now();
    upf_context *ctx = upf_context_create(NULL);
    if (!ctx)
        bench_die(PROG, "no context");
    step("upf_context_create", &t);
    upf_models *m = upf_models_default(ctx);
    if (!m)
        bench_check(PROG, ctx, upf_context_last_error(ctx, NULL), "upf_models_default");
    step("upf_models_default", &t);
    upf_models_destroy(&m);
    const upf_spatial_params *sp = upf_spatial_params(.src_width = 1920, .src_height = 1080,
                                                      .dst_width = 3840, .dst_height = 2160);
    size_t bytes = 0;
    bench_check(PROG, ctx, upf_spatial_memory(ctx, sp, &bytes), "upf_spatial_memory");
    step("upf_spatial_memory", &t);
    upf_spatial *s = upf_spatial_create(ctx, sp);
    if (!s)
        bench_check(PROG, ctx, upf_context_last_error(ctx, NULL), "upf_spatial_create");
    step("upf_spatial_create", &t);
    imageio_image src = bench_alloc_image(PROG, 1920, 1080, UPF_FORMAT_RGBA8_SRGB);
    imageio_image dst = bench_alloc_image(PROG, 3840, 2160, UPF_FORMAT_RGBA8_SRGB);
    unsigned char *p = src.img.data;
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < (size_t)1920 * 1080 * 4; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift32: content the network works on */
        p[i] = (unsigned char)(i % 4 == 3 ? 255 : x >> 24);
    }
    step("the source image", &t);
    for (int r = 0; r < runs; r++) {
        bench_check(PROG, ctx, upf_spatial_run(s, &src.img, &dst.img), "upf_spatial_run");
        char what[64];
        snprintf(what, sizeof what, "upf_spatial_run %d%s", r + 1, r ? "" : " (first)");
        step(what, &t);
    }
    printf("the engine holds %zu bytes (upf_spatial_memory)\n", bytes);
    upf_spatial_destroy(&s);
    imageio_free(&src);
    imageio_free(&dst);
    upf_context_destroy(&ctx);
    return 0;
}
