/* pass.c: the pass runner of pass.h: sets up an engine's surfaces, constants and scratch
 * from its tables, allocates them once, runs a range of passes with a wall-clock time for
 * each, and draws debug pictures of the surfaces afterwards. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/image.h"
#include "core/pass.h"

size_t upf__surface_format_bytes(upf__surface_format format)
{
    switch (format) {
    case UPF__SURFACE_RGBA32F: return 16;
    case UPF__SURFACE_RGBA16F: return 8;
    case UPF__SURFACE_R32F: return 4;
    case UPF__SURFACE_RG32F: return 8;
    case UPF__SURFACE_R32UI: return 4;
    case UPF__SURFACE_RG8: return 2;
    case UPF__SURFACE_RGBA8: return 4;
    case UPF__SURFACE_RGB10A2: return 4;
    case UPF__SURFACE_R64UI: return 8;
    default: return 0;
    }
}

const char *upf__surface_format_name(upf__surface_format format)
{
    static const char *const names[UPF__SURFACE_FORMAT_COUNT] = {
        "host", "rgba32f", "rgba16f", "r32f", "rg32f", "r32ui", "rg8", "rgba8", "rgb10a2", "r64ui"
    };
    return (int)format >= 0 && format < UPF__SURFACE_FORMAT_COUNT ? names[format] : "unknown";
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static bool is_host(const upf__passes *p, int i)
{
    return p->surface_info[i].format == UPF__SURFACE_HOST;
}

upf_result upf__passes_describe(upf__passes *p, upf_context *ctx, const upf__pass_info *pass,
                                int pass_count, const upf__surface_info *surface,
                                int surface_count, const void *engine)
{
    memset(p, 0, sizeof *p);
    if (pass_count < 1 || pass_count > UPF__PASSES_MAX || surface_count < 1 ||
        surface_count > UPF__SURFACES_MAX)
        return upf__fail(ctx, UPF_ERROR_INTERNAL, "upf__passes_init: %d passes and %d surfaces; "
                         "expected 1..%d and 1..%d", pass_count, surface_count, UPF__PASSES_MAX,
                         UPF__SURFACES_MAX);
    p->pass = pass;
    p->pass_count = pass_count;
    p->surface_info = surface;
    p->surface_count = surface_count;
    p->engine = engine;
    for (int i = 0; i < surface_count; i++) {
        bool history = surface[i].role == UPF__SURFACE_HISTORY;
        bool paired = i + 1 < surface_count &&
                      surface[i + 1].role == UPF__SURFACE_HISTORY_NEXT &&
                      surface[i + 1].format == surface[i].format;
        bool next = surface[i].role == UPF__SURFACE_HISTORY_NEXT;
        bool orphan = next && (i == 0 || surface[i - 1].role != UPF__SURFACE_HISTORY);
        if ((history && !paired) || orphan) {
            memset(p, 0, sizeof *p);
            return upf__fail(ctx, UPF_ERROR_INTERNAL, "upf__passes_init: history surface %s "
                             "has no partner; expected HISTORY followed by HISTORY_NEXT of "
                             "the same format", surface[i].name);
        }
    }
    for (int i = 0; i < pass_count; i++)
        p->enabled[i] = true;
    return UPF_OK;
}

size_t upf__passes_con_bytes(const upf__passes *p)
{
    size_t total = 0;
    for (int i = 0; i < p->pass_count; i++)
        total += p->pass[i].con_size;
    return total;
}

upf_result upf__passes_init(upf__passes *p, upf_context *ctx, const upf__pass_info *pass,
                            int pass_count, const upf__surface_info *surface, int surface_count,
                            const void *engine)
{
    upf_result r = upf__passes_describe(p, ctx, pass, pass_count, surface, surface_count, engine);
    p->ctx = ctx;
    if (r != UPF_OK)
        return r;
    for (int i = 0; i < pass_count; i++) {
        if (pass[i].con_size && !(p->con[i] = upf__alloc(ctx, pass[i].con_size, pass[i].name))) {
            upf__passes_free(p);
            return UPF_ERROR_OUT_OF_MEMORY;
        }
    }
    return UPF_OK;
}

void upf__passes_lend(upf__passes *p, int i, void *data)
{
    p->surface[i].data = data;
    p->lent[i] = true;
}

static size_t surface_bytes(const upf__passes *p, int i)
{
    return (size_t)p->surface[i].width * (size_t)p->surface[i].height *
           upf__surface_format_bytes(p->surface_info[i].format);
}

size_t upf__passes_bytes(const upf__passes *p)
{
    size_t total = 0;
    for (int i = 0; i < p->surface_count; i++)
        if (!is_host(p, i) && !p->lent[i])
            total += surface_bytes(p, i);
    for (int i = 0; i < p->pass_count; i++)
        total += p->scratch_bytes[i];
    return total;
}

upf_result upf__passes_alloc(upf__passes *p)
{
    for (int i = 0; i < p->surface_count; i++) {
        if (is_host(p, i) || p->lent[i] || p->surface[i].data || !surface_bytes(p, i))
            continue;
        /* upf__alloc_array checks width * height * texel for overflow. */
        p->surface[i].data = upf__alloc_array(p->ctx, (size_t)p->surface[i].width *
                                              (size_t)p->surface[i].height,
                                              upf__surface_format_bytes(p->surface_info[i].format),
                                              p->surface_info[i].what);
        if (!p->surface[i].data)
            return UPF_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < p->pass_count; i++) {
        if (!p->scratch_bytes[i] || p->scratch[i])
            continue;
        if (!(p->scratch[i] = upf__alloc(p->ctx, p->scratch_bytes[i], p->pass[i].name)))
            return UPF_ERROR_OUT_OF_MEMORY;
    }
    return UPF_OK;
}

void upf__passes_free(upf__passes *p)
{
    if (!p->ctx)
        return;
    for (int i = 0; i < p->surface_count; i++)
        if (!is_host(p, i) && !p->lent[i])
            upf__free(p->ctx, p->surface[i].data);
    for (int i = 0; i < p->pass_count; i++) {
        upf__free(p->ctx, p->con[i]);
        upf__free(p->ctx, p->scratch[i]);
    }
    memset(p, 0, sizeof *p);
}

upf_result upf__passes_run(upf__passes *p, const char *fn, const upf_image *const *images,
                           int first, int last)
{
    upf_result r = UPF_OK;
    for (int i = 0; i < p->surface_count && r == UPF_OK; i++) {
        if (!is_host(p, i) || !images || !images[i])
            continue;
        r = upf__check_image(p->ctx, fn, p->surface_info[i].what, images[i],
                             p->surface_info[i].host_formats, p->surface[i].width,
                             p->surface[i].height);
        if (r == UPF_OK)
            p->surface[i].image = images[i];
    }
    double ms[UPF__PASSES_MAX] = { 0 };
    uint32_t written = 0;
    for (int i = UPF_MAX(first, 0); i <= last && i < p->pass_count && r == UPF_OK; i++) {
        if (!p->enabled[i])
            continue;
        written |= p->pass[i].writes;
        const upf__pass_args args = { p->ctx, fn, p->con[i], p->surface, p->scratch[i],
                                      p->scratch_bytes[i], p->engine };
        double t = now_ms();
        r = p->pass[i].cpu(&args);
        ms[i] = now_ms() - t;
    }
    for (int i = 0; i < p->surface_count; i++)
        if (is_host(p, i))
            p->surface[i].image = NULL;
    if (r == UPF_OK) {
        memcpy(p->ms, ms, sizeof p->ms);
        p->has_run = true;
        for (int i = 1; i < p->surface_count; i++) {
            if (p->surface_info[i].role != UPF__SURFACE_HISTORY_NEXT || !(written & UPF__SURF(i)))
                continue;
            void *t = p->surface[i].data;
            p->surface[i].data = p->surface[i - 1].data;
            p->surface[i - 1].data = t;
        }
    }
    return r;
}

static upf_result picture_surface(const upf__passes *p, const char *fn, int pass, int *surface)
{
    if (pass < 0 || pass >= p->pass_count || p->pass[pass].picture < 0 ||
        !p->surface_info[p->pass[pass].picture].picture) {
        char list[256] = "";
        size_t len = 0;
        for (int i = 0; i < p->pass_count && len < sizeof list; i++)
            if (p->pass[i].picture >= 0)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                        p->pass[i].name);
        return upf__fail(p->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: pass %d (%s) has no picture "
                         "(expected one of: %s)", fn, pass,
                         pass >= 0 && pass < p->pass_count ? p->pass[pass].name : "unknown",
                         list);
    }
    *surface = p->pass[pass].picture;
    return UPF_OK;
}

upf_result upf__passes_picture_size(const upf__passes *p, const char *fn, int pass, int *width,
                                    int *height)
{
    int s;
    upf_result r = picture_surface(p, fn, pass, &s);
    if (r != UPF_OK)
        return r;
    /* a pass this configuration does not run has no picture (known from the plan) */
    if (!p->surface[s].width)
        return upf__fail(p->ctx, UPF_ERROR_UNSUPPORTED, "%s: the %s pass does not run in this "
                         "configuration (%s is not made)", fn, p->pass[pass].name,
                         p->surface_info[s].what);
    p->surface_info[s].picture(p, s, NULL, width, height);
    return UPF_OK;
}

upf_result upf__passes_picture(upf__passes *p, const char *fn, int pass, const upf_image *out)
{
    int w, h, s;
    upf_result r = upf__passes_picture_size(p, fn, pass, &w, &h);
    if (r != UPF_OK)
        return r;
    picture_surface(p, fn, pass, &s);
    r = upf__check_image(p->ctx, fn, "picture", out, UPF_FMT_BIT(UPF_FORMAT_RGBA8_SRGB), w, h);
    if (r != UPF_OK)
        return r;
    if (!p->has_run)
        return upf__fail(p->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: the engine has not run yet; "
                         "run it first", fn);
    /* The pictures are drawn tightly packed; copy row by row for a strided image. */
    const size_t row_bytes = (size_t)w * 4;
    uint8_t *dst = out->data, *tmp = NULL;
    if (upf__stride(out) != row_bytes) {
        if (!(tmp = upf__alloc_array(p->ctx, (size_t)h, row_bytes, "a debug picture")))
            return UPF_ERROR_OUT_OF_MEMORY;
        dst = tmp;
    }
    int w2, h2;
    p->surface_info[s].picture(p, s, dst, &w2, &h2);
    if (tmp) {
        for (int y = 0; y < h; y++)
            memcpy(upf__row(out, y), tmp + (size_t)y * row_bytes, row_bytes);
        upf__free(p->ctx, tmp);
    }
    return UPF_OK;
}
