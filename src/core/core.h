/* core.h: what every part of the library shares: the context (log, last error, allocator,
 * threads) and the helpers to report errors, allocate and run work in parallel.
 *
 * Internal header: not installed. Library code reports every failure through upf__fail(),
 * which records the code and message in the context and logs it, and returns the code, so a
 * check reads `if (bad) return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "...");`. */
#ifndef UPF_CORE_H
#define UPF_CORE_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upframe.h"

#if defined(__GNUC__) || defined(__clang__)
#define UPF_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define UPF_PRINTF(fmt, args)
#endif

#define UPF_ERROR_MESSAGE_SIZE 512
#define UPF_MAX_THREADS 64

typedef struct upf_thread_pool upf_thread_pool;

struct upf_context {
    upf_log_fn log;
    void *log_priv;
    upf_log_level log_level;

    upf_allocator allocator;
    bool custom_allocator;

    int threads;                    /* workers a task may run on */
    upf_parallel_for_fn parallel_for; /* host's, or NULL */
    void *parallel_for_priv;
    upf_thread_pool *pool;          /* ours, when the host gave none and threads > 1 */

    size_t max_pixels;              /* the largest image (width x height) a call accepts */

    /* The instruction sets kernels may use (UPF__CPU_*): what upf__cpu_detect found when the
     * context was made. Tests and benchmarks lower it to reach the plain C kernels. */
    unsigned cpu_flags;
    /* The sRGB8 encode's tables for the AVX2 row writer (upf__srgb8_encode_tables, color.h:
     * 4097 bucket codes and 256 thresholds), made once with the context. */
    int32_t srgb8_bucket[4097];
    float srgb8_thr[256];
    /* The sRGB-Lanczos base's tables (color.h): each frame code's sRGB value, and the power
     * that takes a sum of them back to sqrt space. */
    float srgb_of_code[1024];
    float srgb_pow[8193];

    /* Blocks from upf__alloc not yet freed, and how many of them the context holds itself
     * (its thread pool): any more belong to objects made from it, and upf_context_destroy
     * refuses while they live (it would free the context under them). Atomic: a pool worker
     * frees its start-up block on its own thread. */
    atomic_long live_blocks;
    long own_blocks;

    upf_result last_result;
    char last_message[UPF_ERROR_MESSAGE_SIZE];
};

/* Records a failure (code + printf-style message) in the context, logs it at UPF_LOG_ERROR,
 * and returns `code`. `ctx` may be NULL (then it does nothing but return the code). */
upf_result upf__fail(upf_context *ctx, upf_result code, const char *fmt, ...) UPF_PRINTF(3, 4);

/* Sends a message to the context's log if `level` is enabled. */
void upf__log(const upf_context *ctx, upf_log_level level, const char *fmt, ...) UPF_PRINTF(3, 4);

/* Forgets the last error: every public entry point calls it first, so that
 * upf_context_last_error reports the failure of the most recent call only. */
void upf__clear_error(upf_context *ctx);

/* Allocates `size` bytes aligned to 64 (a cache line, and enough for any SIMD width),
 * zero-filled. Returns NULL on failure after recording UPF_ERROR_OUT_OF_MEMORY with `what`
 * in the message. Sizes are checked for overflow by upf__alloc_array. */
void *upf__alloc(upf_context *ctx, size_t size, const char *what);
void *upf__alloc_array(upf_context *ctx, size_t count, size_t elem_size, const char *what);
void upf__free(upf_context *ctx, void *ptr);

/* pages.c: `size` zeroed bytes aligned to 64, freed with upf__pages_free; a big block in
 * transparent huge pages where the system has them. NULL when out of memory. */
void *upf__pages_calloc(size_t size);
void upf__pages_free(void *p);

/* Asks for transparent huge pages for the block at p (4 MiB or more; before it is touched). */
void upf__pages_advise(void *p, size_t size);

/* Checks that a width x height image (both already in 1..UPF_MAX_IMAGE_DIMENSION) is within
 * the context's pixel limit (upf_context_params.max_pixels); `what` names it in the message
 * ("upf_resampler_create: destination 16384x16384 = 268435456 pixels; expected at most ..."). */
upf_result upf__check_pixels(upf_context *ctx, const char *fn, const char *what, int width,
                             int height);

/* An object's in-use flag: upf__enter marks it busy, or fails with UPF_ERROR_INVALID_ARGUMENT
 * and a message when another thread is inside a call on it (the header forbids that; this
 * turns the corruption it would cause into an error). upf__leave clears it. */
upf_result upf__enter(upf_context *ctx, atomic_bool *in_use, const char *fn, const char *what);
void upf__leave(atomic_bool *in_use);

/* Runs task(task_priv, i, worker) for i in [0, count) on the context's workers and returns
 * when all are done. A call made from inside a task runs its work serially on that thread. */
void upf__parallel_for(upf_context *ctx, upf_task_fn task, void *task_priv, int count);

/* Thread pool (threads.c). */
upf_thread_pool *upf__pool_create(upf_context *ctx, int threads);
void upf__pool_destroy(upf_context *ctx, upf_thread_pool *pool);
void upf__pool_run(upf_thread_pool *pool, upf_task_fn task, void *task_priv, int count);
int upf__online_cpus(void);

/* Instruction sets beyond the compiler's baseline that a kernel table may hold an entry for
 * (cpu.c). Each bit is set only where the library was built with that entry and the CPU and
 * the operating system run it. */
#define UPF__CPU_X86_AVX2_FMA 0x1u   /* x86-64 AVX2 with FMA3 (Haswell, Zen and later) */

/* The flags this machine has, for contexts to keep (upf_context_create). */
unsigned upf__cpu_detect(void);

/* A short name of the best kernel set in `flags`: "avx2+fma" or "c". */
const char *upf__cpu_flags_name(unsigned flags);

#define UPF_MIN(a, b) ((a) < (b) ? (a) : (b))
#define UPF_MAX(a, b) ((a) > (b) ? (a) : (b))
#define UPF_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

#endif /* UPF_CORE_H */
