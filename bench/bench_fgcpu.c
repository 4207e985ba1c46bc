/* bench_fgcpu.c: the CPU time frame generation takes per made frame, on one thread, for a
 * machine shared with other work (where wall times, such as `upframe bench`'s, count the time
 * the process waits for a CPU).
 *
 *   bench_fgcpu [--size WxH] [--runs N] [--path NAME]
 *
 * The courtyard scene (seed 1), two frames of camera path NAME (default walk) 1/30 s apart at
 * 1 s, rendered at WxH (default 1920x1080) with 1 sample per pixel: linear RGBA32F colour, the
 * later frame's depth and motion vectors, as `upframe bench` renders them. A context of one
 * thread; for the motion vectors and for optical flow, one warm-up run then N (default 5) runs
 * of upf_interpolate_run at t = 1/2 into RGBA8 sRGB, each timed by the process's CPU clock
 * (CLOCK_PROCESS_CPUTIME_ID). Prints, per method, the median and the least CPU time in ms and
 * the median wall time of each pass (upf_interpolate_timings; those do count waiting). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scene/scene.h"
#include "upframe.h"

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void fail(upf_context *ctx, const char *what)
{
    const char *m = "";
    if (ctx)
        upf_context_last_error(ctx, &m);
    fprintf(stderr, "bench_fgcpu: %s failed: %s\n", what, m);
    exit(1);
}

#define RUNS_MAX 101

int main(int argc, char **argv)
{
    int W = 1920, H = 1080, runs = 5;
    const char *path = "walk";
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && !strcmp(a, "--size") && sscanf(v, "%dx%d", &W, &H) == 2)
            continue;
        if (v && !strcmp(a, "--runs") && (runs = atoi(v)) >= 1 && runs <= RUNS_MAX)
            continue;
        if (v && !strcmp(a, "--path")) {
            path = v;
            continue;
        }
        fprintf(stderr, "usage: bench_fgcpu [--size WxH] [--runs 1..%d] [--path NAME]\n",
                RUNS_MAX);
        return 1;
    }
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 1));
    if (!ctx || W < 16 || H < 16)
        fail(ctx, "the context");
    const size_t n = (size_t)W * H;
    float *col[2] = { malloc(16 * n), malloc(16 * n) };
    float *depth = malloc(4 * n), *motion = malloc(8 * n);
    uint8_t *out = malloc(4 * n);
    if (!col[0] || !col[1] || !depth || !motion || !out)
        fail(NULL, "allocation");
    scene *sc = NULL;
    if (scene_create(ctx, "courtyard", 1, &sc) != UPF_OK)
        fail(ctx, "scene_create");
    for (int k = 0; k < 2; k++) {
        scene_buffers b = { col[k], NULL, k ? depth : NULL, k ? motion : NULL };
        if (scene_render(sc, scene_view_params(.path = path, .time = 1.0 + k / 30.0,
                                               .frame_interval = 1.0 / 30.0, .width = W,
                                               .height = H), &b, NULL) != UPF_OK)
            fail(ctx, "scene_render");
    }
    scene_destroy(&sc);
    const upf_image a = { col[0], W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image b = { col[1], W, H, 0, UPF_FORMAT_RGBA32F };
    const upf_image d = { depth, W, H, 0, UPF_FORMAT_R32F };
    const upf_image m = { motion, W, H, 0, UPF_FORMAT_RG32F };
    const upf_image o = { out, W, H, 0, UPF_FORMAT_RGBA8_SRGB };
    printf("bench_fgcpu: courtyard %s, %dx%d, 1 thread, t = 1/2, %d runs after a warm-up\n",
           path, W, H, runs);
    for (int flow = 0; flow < 2; flow++) {
        upf_interpolate *e = upf_interpolate_create(ctx, upf_interpolate_params(
            .width = W, .height = H,
            .motion = flow ? UPF_INTERPOLATE_MOTION_FLOW : UPF_INTERPOLATE_MOTION_VECTORS));
        if (!e)
            fail(ctx, "upf_interpolate_create");
        upf_interpolate_frames f = { .prev_color = &a, .color = &b, .motion = &m, .depth = &d,
                                     .prev_id = 0, .id = 1 };
        double cpu[RUNS_MAX], pass[UPF_INTERPOLATE_PASS_COUNT][RUNS_MAX];
        for (int r = -1; r < runs; r++) {
            const double t0 = cpu_ms();
            if (upf_interpolate_run(e, &f, 0.5, &o) != UPF_OK)
                fail(ctx, "upf_interpolate_run");
            const double t1 = cpu_ms();
            double ms[UPF_INTERPOLATE_PASS_COUNT];
            upf_interpolate_timings(e, ms);
            if (r < 0)
                continue;
            cpu[r] = t1 - t0;
            for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
                pass[p][r] = ms[p];
        }
        qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
        printf("%-7s CPU ms per made frame: median %.1f, least %.1f; wall ms per pass (median):",
               flow ? "flow" : "vectors", cpu[runs / 2], cpu[0]);
        for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++) {
            qsort(pass[p], (size_t)runs, sizeof(double), cmp_double);
            printf(" %s %.1f", upf_interpolate_pass_name((upf_interpolate_pass)p),
                   pass[p][runs / 2]);
        }
        printf("\n");
        upf_interpolate_destroy(&e);
    }
    free(col[0]), free(col[1]), free(depth), free(motion), free(out);
    upf_context_destroy(&ctx);
    return 0;
}
