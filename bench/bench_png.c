/* bench_png.c: the PNG writer's size against time. Reads each PNG given, then encodes it
 * (tools/imageio/png_io.c, the writer `upframe` uses) into memory with every setting of a
 * grid: zlib level x row filter choice x zlib strategy. Prints, per setting, the total size
 * over all the files, the encoder's CPU time (the process's, every thread's) and its wall
 * time (each the median of `runs`, summed over the files), and size and CPU time relative
 * to the first setting. One filter for every row runs in bands on every CPU (png_bands.c):
 * its wall time is below its CPU time. What docs/PERFORMANCE.md "PNG compression" quotes.
 *
 *   bench_png [-r runs] [-s LEVEL/FILTERS/STRATEGY]... FILE.png...
 *
 * FILTERS: none, sub, up, avg, paeth or all (libspng picks per row among all five), or a
 * '+'-joined list; STRATEGY: default, filtered, huffman, rle, fixed. Without -s, the grid
 * below. Writes only to stdout. */
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/bench_util.h"
#include "imageio/image_io.h"

#define PROG "bench_png"
#define MAX_SETTINGS 64

static const char *const filter_names[] = { "none", "sub", "up", "avg", "paeth" };
static const char *const strategy_names[] = { "default", "filtered", "huffman", "rle", "fixed" };

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void settings_text(const imageio_png_settings *s, char *buf, size_t size)
{
    char f[64] = "";
    if (s->filters == SPNG_FILTER_CHOICE_ALL)
        strcpy(f, "all");
    for (int i = 0; i < 5 && s->filters != SPNG_FILTER_CHOICE_ALL; i++)
        if (s->filters & (SPNG_FILTER_CHOICE_NONE << i)) {
            if (f[0])
                strcat(f, "+");
            strcat(f, filter_names[i]);
        }
    snprintf(buf, size, "%d/%s/%s", s->level, f, strategy_names[s->strategy]);
}

static int parse_filters(const char *s)
{
    if (strcmp(s, "all") == 0)
        return SPNG_FILTER_CHOICE_ALL;
    int bits = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, "+"); tok; tok = strtok(NULL, "+")) {
        int i = 0;
        while (i < 5 && strcmp(tok, filter_names[i]) != 0)
            i++;
        if (i == 5)
            bench_die(PROG, "filter '%s': expected none, sub, up, avg, paeth or all", tok);
        bits |= SPNG_FILTER_CHOICE_NONE << i;
    }
    return bits;
}

static imageio_png_settings parse_setting(const char *s)
{
    char lv[8], fl[64], st[16];
    if (sscanf(s, "%7[0-9]/%63[a-z+]/%15[a-z]", lv, fl, st) != 3)
        bench_die(PROG, "-s %s: expected LEVEL/FILTERS/STRATEGY, e.g. 1/sub/default", s);
    imageio_png_settings set = { atoi(lv), parse_filters(fl), -1 };
    for (int i = 0; i < 5; i++)
        if (strcmp(st, strategy_names[i]) == 0)
            set.strategy = i;
    if (set.level > 9 || set.strategy < 0)
        bench_die(PROG, "-s %s: level 0..9, strategy default, filtered, huffman, rle, fixed", s);
    return set;
}

/* The grid without -s: the levels at the fast filter (Sub), the filters at level 1 and 6,
 * the strategies that suit filtered images, and the presets. */
static int default_grid(imageio_png_settings *set)
{
    static const char *const grid[] = {
        "1/sub/default", "1/none/default", "1/up/default",   "1/paeth/default",
        "1/all/default", "1/sub/rle",      "1/sub/filtered", "2/sub/default",
        "3/sub/default", "4/sub/default",  "4/all/default",  "6/sub/default",
        "6/all/default", "6/paeth/default", "9/all/default", "9/paeth/default",
    };
    int n = (int)(sizeof grid / sizeof grid[0]);
    for (int i = 0; i < n; i++)
        set[i] = parse_setting(grid[i]);
    return n;
}

/* One encode into memory: its size, the encoder's CPU time in *ms and wall time in *wall. */
static size_t encode(const imageio_image *img, const imageio_png_settings *set, double *ms,
                     double *wall)
{
    char *buf = NULL, err[IMAGEIO_ERR_SIZE];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        bench_die(PROG, "open_memstream failed");
    double t0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_ms(CLOCK_MONOTONIC);
    upf_result r = imageio_write_png_stream_with(f, "memory", &img->img,
                                                 img->bit_depth == 16 ? 16 : 8, set, err);
    *ms = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
    *wall = clock_ms(CLOCK_MONOTONIC) - w0;
    fclose(f);
    free(buf);
    if (r != UPF_OK)
        bench_die(PROG, "%s", err);
    return len;
}

int main(int argc, char **argv)
{
    int runs = 3, nset = 0, first_file = 1;
    imageio_png_settings set[MAX_SETTINGS];
    for (; first_file < argc && argv[first_file][0] == '-'; first_file += 2) {
        if (first_file + 1 >= argc)
            bench_die(PROG, "%s needs a value", argv[first_file]);
        if (strcmp(argv[first_file], "-r") == 0)
            runs = atoi(argv[first_file + 1]) > 0 ? atoi(argv[first_file + 1]) : 1;
        else if (strcmp(argv[first_file], "-s") == 0 && nset < MAX_SETTINGS)
            set[nset++] = parse_setting(argv[first_file + 1]);
        else
            bench_die(PROG, "unknown option %s", argv[first_file]);
    }
    if (first_file >= argc)
        bench_die(PROG, "usage: bench_png [-r runs] [-s LEVEL/FILTERS/STRATEGY]... FILE.png...");
    if (!nset)
        nset = default_grid(set);
    int nfile = argc - first_file;
    imageio_image *img = calloc((size_t)nfile, sizeof *img);
    double *t = malloc(sizeof(double) * (size_t)runs), *tw = malloc(sizeof(double) * (size_t)runs);
    if (!img || !t || !tw)
        bench_die(PROG, "out of memory");
    for (int i = 0; i < nfile; i++) {
        char err[IMAGEIO_ERR_SIZE];
        if (imageio_read(argv[first_file + i], NULL, &img[i], err) != UPF_OK)
            bench_die(PROG, "%s", err);
    }
    char machine[256];
    bench_machine(machine, sizeof machine);
    printf("%s: %d files, %s, median of %d runs\n", PROG, nfile, machine, runs);
    printf("%-22s %12s %10s %10s %8s %8s\n", "level/filters/strategy", "bytes", "cpu ms",
           "wall ms", "size", "cpu");
    double base_bytes = 0, base_ms = 0;
    for (int s = 0; s < nset; s++) {
        double bytes = 0, ms = 0, wall = 0;
        for (int i = 0; i < nfile; i++) {
            size_t size = 0;
            for (int r = 0; r < runs; r++)
                size = encode(&img[i], &set[s], &t[r], &tw[r]); /* the same every run */
            bytes += (double)size;
            ms += bench_median(t, runs);
            wall += bench_median(tw, runs);
        }
        if (s == 0)
            base_bytes = bytes, base_ms = ms;
        char name[96];
        settings_text(&set[s], name, sizeof name);
        printf("%-22s %12.0f %10.1f %10.1f %8.3f %8.3f\n", name, bytes, ms, wall,
               bytes / base_bytes, ms / base_ms);
        fflush(stdout);
    }
    for (int i = 0; i < nfile; i++)
        imageio_free(&img[i]);
    free(img);
    free(t);
    free(tw);
    return 0;
}
