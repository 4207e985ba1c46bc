/* bench_util.c: the benchmarks' shared helpers (see bench_util.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bench_util.h"
#include "imageio/image_io.h"
#include "scene/scene_internal.h" /* the renderer's 5x7 font, for labels */

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bench_machine(char *buf, size_t size)
{
    char model[256] = "unknown CPU", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *colon = strchr(line, ':');
            if (colon) {
                snprintf(model, sizeof model, "%s", colon + 2);
                model[strcspn(model, "\n")] = '\0';
            }
            break;
        }
    }
    if (f)
        fclose(f);
    snprintf(buf, size, "%s, %ld CPUs online", model, sysconf(_SC_NPROCESSORS_ONLN));
}

void bench_die(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void bench_check(const char *prog, upf_context *ctx, upf_result r, const char *what)
{
    if (r != UPF_OK) {
        const char *msg = "";
        upf_context_last_error(ctx, &msg);
        bench_die(prog, "%s: %s", what, msg);
    }
}

upf_result bench_resample_encoded(upf_context *ctx, const upf_image *src, const upf_image *dst,
                                  upf_filter filter)
{
    upf_image s = *src, d = *dst;
    s.format = d.format = UPF_FORMAT_RGBA8_UNORM;
    return upf_resample(ctx, &s, &d, filter);
}

void bench_busiest_crop(const upf_image *ref, int cw, int ch, int *cx, int *cy)
{
    const uint8_t *p = ref->data;
    int w = ref->width, h = ref->height;
    double best = -1;
    *cx = *cy = 0;
    for (int y0 = 0; y0 + ch <= h; y0 += ch / 4) {
        for (int x0 = 0; x0 + cw <= w; x0 += cw / 4) {
            double e = 0;
            for (int y = y0; y < y0 + ch - 1; y += 2)
                for (int x = x0; x < x0 + cw - 1; x += 2) {
                    const uint8_t *a = p + 4 * ((size_t)y * w + x);
                    e += abs(a[1] - a[5]) + abs(a[1] - a[4 * w + 1]);
                }
            if (e > best) {
                best = e;
                *cx = x0;
                *cy = y0;
            }
        }
    }
}

void bench_sheet_put(const upf_image *sheet, int slot, int label_h, const upf_image *img, int cx,
                     int cy, int cw, int ch, int zoom, const char *label)
{
    uint8_t *dst = sheet->data;
    const uint8_t *src = img->data;
    int sw = sheet->width, x0 = slot * (cw * zoom + 4);
    for (int y = 0; y < ch * zoom; y++)
        for (int x = 0; x < cw * zoom; x++)
            memcpy(dst + 4 * ((size_t)(y + label_h) * sw + x0 + x),
                   src + 4 * ((size_t)(cy + y / zoom) * img->width + cx + x / zoom), 4);
    /* the label in the renderer's 5x7 font, 2x, white */
    for (int i = 0; label[i]; i++)
        for (int row = 0; row < 7; row++) {
            uint8_t bits = scene__glyph_row(label[i], row);
            for (int col = 0; col < 5; col++)
                if (bits & (0x10 >> col))
                    for (int k = 0; k < 4; k++)
                        memset(dst + 4 * ((size_t)(2 + 2 * row + k / 2) * sw + x0 + 4 +
                                          12 * i + 2 * col + k % 2), 255, 3);
        }
}

void bench_splice_section(const char *prog, const char *dir, const char *begin, const char *end,
                          const char *text)
{
    char path[4096], tmp[4096];
    snprintf(path, sizeof path, "%s/QUALITY.md", dir);
    snprintf(tmp, sizeof tmp, "%s/QUALITY.md.tmp", dir);
    char *old = NULL;
    size_t size = 0;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_slurp(path, (size_t)1 << 24, (void **)&old, &size, err) != UPF_OK)
        old = NULL, size = 0;
    FILE *f = fopen(tmp, "w");
    if (!f)
        bench_die(prog, "cannot write %s", tmp);
    const char *b = NULL, *e = NULL;
    if (old) {
        char *z = realloc(old, size + 1);
        if (!z)
            bench_die(prog, "out of memory");
        old = z;
        old[size] = '\0';
        b = strstr(old, begin);
        e = b ? strstr(b, end) : NULL;
    }
    if (b && e) {
        fwrite(old, 1, (size_t)(b - old), f);
        fprintf(f, "%s\n%s%s", begin, text, end);
        fputs(e + strlen(end), f);
    } else {
        if (old)
            fputs(old, f);
        fprintf(f, "\n%s\n%s%s\n", begin, text, end);
    }
    free(old);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        bench_die(prog, "cannot write %s", path);
    fprintf(stderr, "%s: wrote %s\n", prog, path);
}

upf_models *bench_load_models(const char *prog, upf_context *ctx, const char *path)
{
    upf_models *set;
    if (path) {
        void *data;
        size_t size;
        char err[IMAGEIO_ERR_SIZE];
        if (imageio_slurp(path, 1 << 20, &data, &size, err) != UPF_OK)
            bench_die(prog, "%s", err);
        set = upf_models_load(ctx, data, size);
        free(data);
    } else {
        set = upf_models_default(ctx);
    }
    if (!set)
        bench_check(prog, ctx, upf_context_last_error(ctx, NULL), path ? path : "the built-in models");
    return set;
}

void bench_text_out(bench_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[4096];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->len + (size_t)n + 1) * 2;
        char *z = realloc(t->buf, cap);
        if (!z)
            bench_die("bench", "out of memory");
        t->buf = z;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, buf, (size_t)n + 1);
    t->len += (size_t)n;
    fputs(buf, stdout);
}

imageio_image bench_alloc_image(const char *prog, int w, int h, upf_format f)
{
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_alloc(&img, w, h, f, err) != UPF_OK)
        bench_die(prog, "%s", err);
    return img;
}

bool bench_in_list(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}
