/* bench_util.h: what the benchmarks share: sorting times, and saying which machine they ran
 * on. Used by `upframe bench` and the programs in bench/. */
#ifndef UPF_BENCH_UTIL_H
#define UPF_BENCH_UTIL_H

#include <stddef.h>

#include <stdbool.h>

#include "imageio/image_io.h"
#include "upframe.h"

/* qsort comparator for doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* Sorts v[0..n) and returns its median (the mean of the middle two for even n). */
double bench_median(double *v, int n);

/* "CPU model, N CPUs online" from /proc/cpuinfo and sysconf ("unknown CPU" where there is no
 * /proc/cpuinfo). */
void bench_machine(char *buf, size_t size);

/* Fatal errors of the bench programs: "PROG: message" on stderr, exit 1. bench_check does so
 * for a failed library call with the context's message ("PROG: what: message"). */
void bench_die(const char *prog, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
void bench_check(const char *prog, upf_context *ctx, upf_result r, const char *what);

/* upf_resample on the sRGB-encoded values as they are (what most image tools do): src and
 * dst, 8-bit sRGB, read and written as if the bytes were linear. */
upf_result bench_resample_encoded(upf_context *ctx, const upf_image *src, const upf_image *dst,
                                  upf_filter filter);

/* The cw x ch crop of an RGBA8 image with the most edge energy (|horizontal| + |vertical|
 * green differences, every other pixel), on a grid of candidate positions a quarter crop
 * apart: where upscalers differ most. */
void bench_busiest_crop(const upf_image *img, int cw, int ch, int *cx, int *cy);

/* Contact sheets: a row of slots, each a crop (cx, cy, cw x ch) of an RGBA8 image enlarged
 * `zoom` times (nearest neighbour) under a label_h-pixel strip with `label` in the scene
 * renderer's 5x7 font (2x, white). Slot k starts at x = k * (cw * zoom + 4). */
void bench_sheet_put(const upf_image *sheet, int slot, int label_h, const upf_image *img, int cx,
                     int cy, int cw, int ch, int zoom, const char *label);

/* An image of the tools' allocator (imageio_alloc), or death with its message. */
imageio_image bench_alloc_image(const char *prog, int w, int h, upf_format f);

/* Whether `name` is one of the comma-separated `list` (NULL: every name is). */
bool bench_in_list(const char *list, const char *name);

/* Replaces the part of DIR/QUALITY.md between the lines `begin` and `end` (a section one bench
 * program writes) with `text`, or appends the section when the file has none; the rest of the
 * file is kept. Written through a temporary and renamed. `prog` names the caller in messages. */
void bench_splice_section(const char *prog, const char *dir, const char *begin, const char *end,
                          const char *text);

/* The model file at `path` (NULL: the built-in set); dies with the loader's message. */
upf_models *bench_load_models(const char *prog, upf_context *ctx, const char *path);

/* A section's text as it grows: bench_text_out appends printf-formatted text and echoes it to
 * stdout. Start from { 0 }; free t->buf when done. */
typedef struct bench_text {
    char *buf;
    size_t len, cap;
} bench_text;

void bench_text_out(bench_text *t, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
