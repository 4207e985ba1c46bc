/* context.c: the context (log, last error, allocator, threads), result strings and the
 * version functions. Reads upf_context_params; owns the thread pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/color.h"
#include "core/core.h"

const upf_context_params upf_context_default_params = { 0 };

const char *upf_version(void)
{
#define UPF_STR2(x) #x
#define UPF_STR(x) UPF_STR2(x)
    return UPF_STR(UPF_VERSION_MAJOR) "." UPF_STR(UPF_VERSION_MINOR) "." UPF_STR(UPF_VERSION_PATCH);
#undef UPF_STR
#undef UPF_STR2
}

int upf_api_version(void)
{
    return UPF_API_VERSION;
}

const char *upf_result_string(upf_result result)
{
    switch (result) {
    case UPF_OK: return "ok";
    case UPF_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case UPF_ERROR_BAD_DATA: return "bad data";
    case UPF_ERROR_UNSUPPORTED: return "unsupported";
    case UPF_ERROR_OUT_OF_MEMORY: return "out of memory";
    case UPF_ERROR_IO: return "input/output error";
    case UPF_ERROR_INTERNAL: return "internal error";
    }
    return "unknown result";
}

static const char *level_name(upf_log_level level)
{
    switch (level) {
    case UPF_LOG_ERROR: return "error";
    case UPF_LOG_WARN: return "warning";
    case UPF_LOG_INFO: return "info";
    case UPF_LOG_DEBUG: return "debug";
    case UPF_LOG_TRACE: return "trace";
    case UPF_LOG_DEFAULT: break;
    }
    return "log";
}

void upf_log_stderr(void *priv, upf_log_level level, const char *message)
{
    (void)priv;
    fprintf(stderr, "upframe: %s: %s\n", level_name(level), message);
}

static void vlog(const upf_context *ctx, upf_log_level level, const char *fmt, va_list ap)
{
    if (!ctx || !ctx->log || level > ctx->log_level)
        return;
    char buf[UPF_ERROR_MESSAGE_SIZE];
    vsnprintf(buf, sizeof buf, fmt, ap);
    ctx->log(ctx->log_priv, level, buf);
}

void upf__log(const upf_context *ctx, upf_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(ctx, level, fmt, ap);
    va_end(ap);
}

upf_result upf__fail(upf_context *ctx, upf_result code, const char *fmt, ...)
{
    if (!ctx)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_message, sizeof ctx->last_message, fmt, ap);
    va_end(ap);
    ctx->last_result = code;
    upf__log(ctx, UPF_LOG_ERROR, "%s", ctx->last_message);
    return code;
}

void upf__clear_error(upf_context *ctx)
{
    if (ctx) {
        ctx->last_result = UPF_OK;
        ctx->last_message[0] = '\0';
    }
}

upf_result upf_context_last_error(const upf_context *ctx, const char **message)
{
    if (!ctx) {
        if (message)
            *message = "upf_context_last_error: ctx is NULL";
        return UPF_ERROR_INVALID_ARGUMENT;
    }
    if (message)
        *message = ctx->last_message;
    return ctx->last_result;
}

int upf_context_threads(const upf_context *ctx)
{
    return ctx ? ctx->threads : 1;
}

/* ---- memory ------------------------------------------------------------------------- */

#define UPF_ALIGNMENT 64

/* The default allocator's blocks come zeroed (pages.c: calloc, which leaves a fresh big
 * block untouched); upf__alloc zeroes only a host allocator's. */
static void *default_alloc(void *priv, size_t size, size_t alignment)
{
    (void)priv;
    return alignment <= UPF_ALIGNMENT ? upf__pages_calloc(size) : NULL;
}

static void default_free(void *priv, void *ptr)
{
    (void)priv;
    upf__pages_free(ptr);
}

void *upf__alloc(upf_context *ctx, size_t size, const char *what)
{
    void *p = ctx->allocator.alloc(ctx->allocator.priv, size ? size : 1, UPF_ALIGNMENT);
    if (!p) {
        upf__fail(ctx, UPF_ERROR_OUT_OF_MEMORY, "out of memory allocating %zu bytes for %s", size,
                  what);
        return NULL;
    }
    if (ctx->custom_allocator)
        memset(p, 0, size);
    atomic_fetch_add(&ctx->live_blocks, 1);
    return p;
}

void *upf__alloc_array(upf_context *ctx, size_t count, size_t elem_size, const char *what)
{
    if (elem_size && count > SIZE_MAX / elem_size) {
        upf__fail(ctx, UPF_ERROR_OUT_OF_MEMORY, "size overflow allocating %zu x %zu bytes for %s",
                  count, elem_size, what);
        return NULL;
    }
    return upf__alloc(ctx, count * elem_size, what);
}

void upf__free(upf_context *ctx, void *ptr)
{
    if (ptr) {
        ctx->allocator.free(ctx->allocator.priv, ptr);
        atomic_fetch_sub(&ctx->live_blocks, 1);
    }
}

upf_result upf__check_pixels(upf_context *ctx, const char *fn, const char *what, int width,
                             int height)
{
    unsigned long long px = (unsigned long long)width * (unsigned long long)height;
    if (px > ctx->max_pixels)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is %dx%d = %llu pixels; "
                         "expected at most %zu (the context's max_pixels; raise it in "
                         "upf_context_params, up to %d x %d)", fn, what, width, height, px,
                         ctx->max_pixels, UPF_MAX_IMAGE_DIMENSION, UPF_MAX_IMAGE_DIMENSION);
    return UPF_OK;
}

upf_result upf__enter(upf_context *ctx, atomic_bool *in_use, const char *fn, const char *what)
{
    if (atomic_exchange(in_use, true))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is already running a call "
                         "on another thread; expected one call at a time per object (and per "
                         "context)", fn, what);
    return UPF_OK;
}

void upf__leave(atomic_bool *in_use)
{
    atomic_store(in_use, false);
}

/* ---- creation ----------------------------------------------------------------------- */

upf_context *upf_context_create(const upf_context_params *params)
{
    if (!params)
        params = &upf_context_default_params;

    /* Until the context exists, errors can only go to the caller's log. */
    upf_context tmp = { .log = params->log, .log_priv = params->log_priv,
                        .log_level = params->log_level ? params->log_level : UPF_LOG_WARN };
    if (params->log_level < UPF_LOG_DEFAULT || params->log_level > UPF_LOG_TRACE) {
        upf__log(&tmp, UPF_LOG_ERROR, "upf_context_create: log_level %d is out of range "
                 "(expected 0..%d)", (int)params->log_level, (int)UPF_LOG_TRACE);
        return NULL;
    }
    if (params->threads < 0 || params->threads > UPF_MAX_THREADS) {
        upf__log(&tmp, UPF_LOG_ERROR, "upf_context_create: threads %d is out of range "
                 "(expected 0 for one per CPU, or 1..%d)", params->threads, UPF_MAX_THREADS);
        return NULL;
    }
    if (params->allocator && (!params->allocator->alloc || !params->allocator->free)) {
        upf__log(&tmp, UPF_LOG_ERROR, "upf_context_create: the allocator needs both alloc and "
                 "free callbacks");
        return NULL;
    }
    if (params->max_pixels > (size_t)UPF_MAX_IMAGE_DIMENSION * UPF_MAX_IMAGE_DIMENSION) {
        upf__log(&tmp, UPF_LOG_ERROR, "upf_context_create: max_pixels %zu is out of range "
                 "(expected 0 for the default %zu, or 1..%zu = %d x %d)", params->max_pixels,
                 (size_t)UPF_DEFAULT_MAX_PIXELS,
                 (size_t)UPF_MAX_IMAGE_DIMENSION * UPF_MAX_IMAGE_DIMENSION,
                 UPF_MAX_IMAGE_DIMENSION, UPF_MAX_IMAGE_DIMENSION);
        return NULL;
    }
    if (params->parallel_for && params->threads == 0) {
        upf__log(&tmp, UPF_LOG_ERROR, "upf_context_create: with a host parallel_for, threads "
                 "must say how many workers it runs (expected 1..%d)", UPF_MAX_THREADS);
        return NULL;
    }

    upf_allocator alloc = { NULL, default_alloc, default_free };
    if (params->allocator)
        alloc = *params->allocator;
    upf_context *ctx = alloc.alloc(alloc.priv, sizeof *ctx, UPF_ALIGNMENT);
    if (!ctx) {
        upf__log(&tmp, UPF_LOG_ERROR, "upf_context_create: out of memory");
        return NULL;
    }
    *ctx = tmp;
    atomic_init(&ctx->live_blocks, 0);
    ctx->max_pixels = params->max_pixels ? params->max_pixels : UPF_DEFAULT_MAX_PIXELS;
    ctx->allocator = alloc;
    ctx->custom_allocator = params->allocator != NULL;
    ctx->parallel_for = params->parallel_for;
    ctx->parallel_for_priv = params->parallel_for_priv;
    ctx->cpu_flags = upf__cpu_detect();
    _Static_assert(sizeof ctx->srgb8_bucket == (UPF_SRGB8_BUCKETS + 1) * sizeof(int32_t),
                   "the context's sRGB8 bucket table");
    upf__srgb8_encode_tables(ctx->srgb8_bucket, ctx->srgb8_thr);
    _Static_assert(sizeof ctx->srgb_of_code == UPF_SRGB_OF_CODE_COUNT * sizeof(float) &&
                       sizeof ctx->srgb_pow == UPF_SRGB_POW_COUNT * sizeof(float),
                   "the context's sRGB base tables");
    upf__srgb_of_code(ctx->srgb_of_code);
    upf__srgb_pow_table(ctx->srgb_pow);
    ctx->threads = params->threads;
    if (ctx->threads == 0)
        ctx->threads = UPF_CLAMP(upf__online_cpus(), 1, UPF_MAX_THREADS);

    if (!ctx->parallel_for && ctx->threads > 1) {
        ctx->pool = upf__pool_create(ctx, ctx->threads);
        if (!ctx->pool) {
            upf__log(ctx, UPF_LOG_ERROR, "upf_context_create: could not start %d threads: %s",
                     ctx->threads, ctx->last_message);
            alloc.free(alloc.priv, ctx);
            return NULL;
        }
    }
    ctx->own_blocks = atomic_load(&ctx->live_blocks);
    upf__log(ctx, UPF_LOG_DEBUG, "context created: upframe %s, %d workers (%s), %s kernels",
             upf_version(), ctx->threads, ctx->parallel_for ? "host's parallel-for" : "own pool",
             upf__cpu_flags_name(ctx->cpu_flags));
    return ctx;
}

void upf_context_destroy(upf_context **pctx)
{
    if (!pctx || !*pctx)
        return;
    upf_context *ctx = *pctx;
    /* Objects made from the context point at it and free their memory through it: freeing
     * it first would leave them a dangling pointer. Refuse, loudly, and keep it usable. */
    long objects = atomic_load(&ctx->live_blocks) - ctx->own_blocks;
    if (objects > 0) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "upf_context_destroy: %ld block%s of memory "
                  "of objects made from this context %s still alive; expected every object "
                  "(upf_spatial, upf_resampler, upf_models) destroyed first. The context was "
                  "NOT destroyed: destroy it again after them", objects, objects == 1 ? "" : "s",
                  objects == 1 ? "is" : "are");
        return;
    }
    if (ctx->pool)
        upf__pool_destroy(ctx, ctx->pool);
    upf_allocator alloc = ctx->allocator;
    alloc.free(alloc.priv, ctx);
    *pctx = NULL;
}

void upf__parallel_for(upf_context *ctx, upf_task_fn task, void *task_priv, int count)
{
    if (count <= 0)
        return;
    if (ctx->parallel_for && count > 1) {
        ctx->parallel_for(ctx->parallel_for_priv, task, task_priv, count);
    } else if (ctx->pool && count > 1) {
        upf__pool_run(ctx->pool, task, task_priv, count);
    } else {
        for (int i = 0; i < count; i++)
            task(task_priv, i, 0);
    }
}
