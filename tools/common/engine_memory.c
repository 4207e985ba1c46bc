/* engine_memory.c: engine_memory.h. Reads: nothing. Makes engines in a private one-thread
 * context whose allocator counts the live bytes, and measures what each creation added. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/engine_memory.h"

/* A header before every block records its size (the free callback is not told it). */
#define HEADER 64

typedef struct counter {
    size_t live;
} counter;

static void *count_alloc(void *priv, size_t size, size_t alignment)
{
    counter *c = priv;
    size_t align = alignment > HEADER ? alignment : HEADER;
    if (size > SIZE_MAX - 2 * align)
        return NULL;
    size_t total = (size + align + align - 1) / align * align;
    unsigned char *p = aligned_alloc(align, total);
    if (!p)
        return NULL;
    unsigned char *user = p + align;
    ((size_t *)(void *)user)[-1] = size;
    ((size_t *)(void *)user)[-2] = align;
    c->live += size;
    return user;
}

static void count_free(void *priv, void *ptr)
{
    counter *c = priv;
    if (!ptr)
        return;
    unsigned char *user = ptr;
    size_t size = ((size_t *)ptr)[-1], align = ((size_t *)ptr)[-2];
    c->live -= size;
    free(user - align);
}

/* The bytes one creation at `scale` adds to the counted context. */
static upf_result measure(engine_memory_make make, engine_memory_destroy destroy, void *priv,
                          double scale, double *bytes)
{
    counter c = { 0 };
    const upf_allocator a = { &c, count_alloc, count_free };
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 1, .allocator = &a));
    if (!ctx)
        return UPF_ERROR_OUT_OF_MEMORY;
    const size_t before = c.live;
    void *e = make(ctx, scale, priv);
    upf_result r = e ? UPF_OK : upf_context_last_error(ctx, NULL);
    if (!e && r == UPF_OK)
        r = UPF_ERROR_INTERNAL;
    if (e) {
        *bytes = (double)(c.live - before);
        destroy(e);
    }
    upf_context_destroy(&ctx);
    return r;
}

upf_result engine_memory_counted(engine_memory_make make, engine_memory_destroy destroy,
                                 void *priv, double *bytes)
{
    return measure(make, destroy, priv, 1.0, bytes);
}

upf_result engine_memory_bytes(engine_memory_make make, engine_memory_destroy destroy,
                               void *priv, double pixels, double *bytes)
{
    /* two scales at about 2^16 and 2^18 pixels, or the full size when it is no larger */
    const double small = 65536.0;
    if (pixels <= 4 * small)
        return measure(make, destroy, priv, 1.0, bytes);
    const double s1 = sqrt(small / pixels), s2 = 2 * s1;
    double b1 = 0, b2 = 0;
    upf_result r = measure(make, destroy, priv, s1, &b1);
    if (r == UPF_OK)
        r = measure(make, destroy, priv, s2, &b2);
    if (r != UPF_OK)
        return r;
    /* bytes = fixed + per_pixel x pixels through the two points (pixels scale as s^2) */
    const double p1 = pixels * s1 * s1, p2 = pixels * s2 * s2;
    const double per_pixel = (b2 - b1) / (p2 - p1);
    *bytes = b2 + per_pixel * (pixels - p2);
    return UPF_OK;
}
