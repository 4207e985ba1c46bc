/* bench_render.c: how long the scene renderer takes: for each scene, building it (geometry,
 * textures, shadow map), then a view at 1 and 16 samples per pixel on 1 and 2 threads
 * (colour, depth and motion; the HUD timed apart). Prints a table; not a test.
 *
 *   bench_render [--size WxH] [--runs N] [--scenes a,b,...] [--spp a,b] [--threads a,b]
 *
 * Each figure is the median of N runs (default 3) of the "walk" path at t = 2 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scene/scene.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
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

int main(int argc, char **argv)
{
    int w = 1920, h = 1080, runs = 3;
    const char *scenes = NULL;
    int spps[8] = { 1, 16 }, nspp = 2, threads[8] = { 1, 2 }, nthreads = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &w, &h) != 2 || w < 1 || h < 1) {
                fprintf(stderr, "bench_render: --size wants WxH\n");
                return 1;
            }
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
    size_t n = (size_t)w * (size_t)h;
    float *color = malloc(4 * n * sizeof(float)), *hud = malloc(4 * n * sizeof(float));
    float *depth = malloc(n * sizeof(float)), *motion = malloc(2 * n * sizeof(float));
    if (!color || !hud || !depth || !motion) {
        fprintf(stderr, "bench_render: out of memory\n");
        return 1;
    }
    printf("scene renderer, %dx%d, path walk at t = 2 s, median of %d runs (seconds)\n\n", w, h, runs);
    printf("%-12s %8s %7s", "scene", "triangles", "build");
    for (int t = 0; t < nthreads; t++)
        for (int s = 0; s < nspp; s++)
            printf("  %3d spp %dT", spps[s], threads[t]);
    printf("  %8s\n", "HUD");
    for (int si = 0; si < scene_count(); si++) {
        if (scene_is_test_only(si) || !in_list(scenes, scene_name(si)))
            continue;
        double build = 0, hud_t = 0;
        int tris = 0;
        double times[8][8];
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
                double r[100];
                for (int k = 0; k < runs; k++) {
                    scene_buffers b = { color, NULL, depth, motion };
                    t0 = now();
                    scene_render(sc, scene_view_params(.path = "walk", .time = 2.0, .width = w,
                                                       .height = h, .spp = spps[s]), &b, NULL);
                    r[k] = now() - t0;
                }
                qsort(r, (size_t)runs, sizeof r[0], cmp_double);
                times[t][s] = r[runs / 2];
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
        printf("  %8.3f\n", hud_t);
        fflush(stdout);
    }
    free(color);
    free(hud);
    free(depth);
    free(motion);
    return 0;
}
