/* bench_render.c: how long the scene renderer takes: for each scene, building it (geometry,
 * textures, shadow map), then a view at 1 and 16 samples per pixel on 1 and 2 threads
 * (colour, depth and motion; the HUD timed apart). Prints a table; not a test.
 *
 *   bench_render [--size WxH] [--runs N] [--scenes a,b,...] [--spp a,b] [--threads a,b]
 *   bench_render --quality [--size WxH] [--scenes a,b,...]
 *
 * Each time is the fastest of N runs (default 3) of the "walk" path at t = 2 s, wall clock
 * (the least disturbed run when the machine is shared); "cpu" columns are the process's CPU
 * time of the fastest 1-thread run.
 *
 * --quality: how the supersampled reference converges and how aliased 1 spp is: per scene
 * (the "orbit" view at t = 1 s, default 320x180), PSNR of 1, 4, 16 and 64 spp against 256
 * spp, and detail (RMS of the luma Laplacian, upf_metric_detail) of each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scene/scene.h"
#include "common/bench_util.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_list(const char *s, int *out, int max)
{
    int n = 0;
    while (s && *s && n < max) {
        out[n++] = atoi(s);
        s = strchr(s, ',');
        if (s)
            s++;
    }
    return n;
}

static bool in_list(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

static int quality(int w, int h, const char *scenes)
{
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 0));
    size_t n = (size_t)w * (size_t)h;
    float *ref = malloc(4 * n * sizeof(float)), *img = malloc(4 * n * sizeof(float));
    if (!ctx || !ref || !img)
        return 1;
    static const int spps[4] = { 1, 4, 16, 64 };
    printf("convergence and aliasing, %dx%d, path orbit at t = 1 s: PSNR (dB, sRGB RGB) against "
           "256 spp, and detail (RMS luma Laplacian)\n\n", w, h);
    printf("%-12s %8s %8s %8s %8s   %7s %7s %7s %7s %7s\n", "scene", "1 spp", "4 spp", "16 spp",
           "64 spp", "d1", "d4", "d16", "d64", "d256");
    for (int si = 0; si < scene_count(); si++) {
        if (scene_is_test_only(si) || !in_list(scenes, scene_name(si)))
            continue;
        scene *sc = NULL;
        if (scene_create(ctx, scene_name(si), 1, &sc) != UPF_OK)
            return 1;
        upf_image ri = { ref, w, h, 0, UPF_FORMAT_RGBA32F }, ii = { img, w, h, 0, UPF_FORMAT_RGBA32F };
        scene_buffers rb = { ref, NULL, NULL, NULL }, ib = { img, NULL, NULL, NULL };
        scene_render(sc, scene_view_params(.path = "orbit", .time = 1.0, .width = w, .height = h,
                                           .spp = 256), &rb, NULL);
        double p[4], d[5];
        for (int k = 0; k < 4; k++) {
            scene_render(sc, scene_view_params(.path = "orbit", .time = 1.0, .width = w,
                                               .height = h, .spp = spps[k]), &ib, NULL);
            upf_psnr_result pr;
            upf_metric_psnr(ctx, &ri, &ii, NULL, &pr);
            p[k] = pr.rgb;
            upf_metric_detail(ctx, &ii, NULL, &d[k]);
        }
        upf_metric_detail(ctx, &ri, NULL, &d[4]);
        printf("%-12s %8.2f %8.2f %8.2f %8.2f   %7.2f %7.2f %7.2f %7.2f %7.2f\n", scene_name(si),
               p[0], p[1], p[2], p[3], d[0], d[1], d[2], d[3], d[4]);
        fflush(stdout);
        scene_destroy(&sc);
    }
    free(ref);
    free(img);
    upf_context_destroy(&ctx);
    return 0;
}

int main(int argc, char **argv)
{
    int w = 1920, h = 1080, runs = 3;
    bool do_quality = false, size_given = false;
    const char *scenes = NULL;
    int spps[8] = { 1, 16 }, nspp = 2, threads[8] = { 1, 2 }, nthreads = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &w, &h) != 2 || w < 1 || h < 1) {
                fprintf(stderr, "bench_render: --size wants WxH\n");
                return 1;
            }
            size_given = true;
        } else if (strcmp(argv[i], "--quality") == 0) {
            do_quality = true;
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1 || runs > 100) {
                fprintf(stderr, "bench_render: --runs wants 1..100\n");
                return 1;
            }
        } else if (strcmp(argv[i], "--scenes") == 0 && i + 1 < argc) {
            scenes = argv[++i];
        } else if (strcmp(argv[i], "--spp") == 0 && i + 1 < argc) {
            nspp = parse_list(argv[++i], spps, 8);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            nthreads = parse_list(argv[++i], threads, 8);
        } else {
            fprintf(stderr, "usage: bench_render [--size WxH] [--runs N] [--scenes a,b] "
                            "[--spp a,b] [--threads a,b]\n");
            return 1;
        }
    }
    if (do_quality)
        return quality(size_given ? w : 320, size_given ? h : 180, scenes);
    size_t n = (size_t)w * (size_t)h;
    float *color = malloc(4 * n * sizeof(float)), *hud = malloc(4 * n * sizeof(float));
    float *depth = malloc(n * sizeof(float)), *motion = malloc(2 * n * sizeof(float));
    if (!color || !hud || !depth || !motion) {
        fprintf(stderr, "bench_render: out of memory\n");
        return 1;
    }
    printf("scene renderer, %dx%d, path walk at t = 2 s, fastest of %d runs (seconds)\n", w, h, runs);
    char machine[320];
    bench_machine(machine, sizeof machine);
    printf("machine: %s\n", machine);
    printf("\n");
    printf("%-12s %8s %7s", "scene", "triangles", "build");
    for (int t = 0; t < nthreads; t++)
        for (int s = 0; s < nspp; s++)
            printf("  %3d spp %dT", spps[s], threads[t]);
    for (int s = 0; s < nspp; s++)
        printf("  %3d spp cpu", spps[s]);
    printf("  %8s\n", "HUD");
    for (int si = 0; si < scene_count(); si++) {
        if (scene_is_test_only(si) || !in_list(scenes, scene_name(si)))
            continue;
        double build = 0, hud_t = 0;
        int tris = 0;
        double times[8][8], cpu[8] = { 0 };
        for (int t = 0; t < nthreads; t++) {
            upf_context *ctx = upf_context_create(upf_context_params(.threads = threads[t]));
            if (!ctx)
                return 1;
            scene *sc = NULL;
            double t0 = now();
            if (scene_create(ctx, scene_name(si), 1, &sc) != UPF_OK) {
                const char *m = "";
                upf_context_last_error(ctx, &m);
                fprintf(stderr, "bench_render: %s\n", m);
                return 1;
            }
            if (t == 0)
                build = now() - t0;
            tris = scene_triangle_count(sc);
            for (int s = 0; s < nspp; s++) {
                double r[100], rc[100];
                for (int k = 0; k < runs; k++) {
                    scene_buffers b = { color, NULL, depth, motion };
                    double c0 = cpu_now();
                    t0 = now();
                    scene_render(sc, scene_view_params(.path = "walk", .time = 2.0, .width = w,
                                                       .height = h, .spp = spps[s]), &b, NULL);
                    r[k] = now() - t0;
                    rc[k] = cpu_now() - c0;
                }
                qsort(r, (size_t)runs, sizeof r[0], bench_cmp_double);
                qsort(rc, (size_t)runs, sizeof rc[0], bench_cmp_double);
                times[t][s] = r[0];
                if (threads[t] == 1)
                    cpu[s] = rc[0];
            }
            if (t == 0) {
                scene_buffers b = { NULL, hud, NULL, NULL };
                t0 = now();
                scene_render(sc, scene_view_params(.path = "walk", .time = 2.0, .width = w,
                                                   .height = h), &b, NULL);
                hud_t = now() - t0;
            }
            scene_destroy(&sc);
            upf_context_destroy(&ctx);
        }
        printf("%-12s %8d %7.3f", scene_name(si), tris, build);
        for (int t = 0; t < nthreads; t++)
            for (int s = 0; s < nspp; s++)
                printf("  %11.3f", times[t][s]);
        for (int s = 0; s < nspp; s++)
            printf("  %11.3f", cpu[s]);
        printf("  %8.3f\n", hud_t);
        fflush(stdout);
    }
    free(color);
    free(hud);
    free(depth);
    free(motion);
    return 0;
}
