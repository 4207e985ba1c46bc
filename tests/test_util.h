/* test_util.h: the assertions and helpers every test program uses.
 *
 * One executable per module (tests/test_<module>.c, registered by tests/CMakeLists.txt).
 * CHECK* macros record a failure with file:line and the values, and keep going; main returns
 * test_finish(), which is non-zero if any check failed. Random inputs are fresh on every run:
 * the seed is printed, and UPF_TEST_SEED=<n> reproduces a run. Exit code 77 means "skipped". */
#ifndef UPF_TEST_UTIL_H
#define UPF_TEST_UTIL_H

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "upframe.h"

static int test_failures_;
static int test_checks_;

#define CHECK(cond)                                                                           \
    do {                                                                                      \
        test_checks_++;                                                                       \
        if (!(cond)) {                                                                        \
            test_failures_++;                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);          \
        }                                                                                     \
    } while (0)

/* Like CHECK, with a printf-style explanation. */
#define CHECKF(cond, ...)                                                                     \
    do {                                                                                      \
        test_checks_++;                                                                       \
        if (!(cond)) {                                                                        \
            test_failures_++;                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                    \
    do {                                                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                                   \
        CHECKF(a_ == b_, "%s = %lld, %s = %lld", #a, a_, #b, b_);                             \
    } while (0)

/* |a - b| <= tol. */
#define CHECK_NEAR(a, b, tol)                                                                 \
    do {                                                                                      \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                        \
        CHECKF(fabs(a_ - b_) <= t_, "%s = %.9g, %s = %.9g, |diff| %.3g > %.3g", #a, a_, #b,   \
               b_, fabs(a_ - b_), t_);                                                        \
    } while (0)

/* A call that must succeed (upf_result == UPF_OK); prints the context's message if not. */
#define CHECK_OK(ctx, call)                                                                   \
    do {                                                                                      \
        upf_result r_ = (call);                                                               \
        const char *m_ = "";                                                                  \
        if (r_ != UPF_OK)                                                                     \
            upf_context_last_error((ctx), &m_);                                               \
        CHECKF(r_ == UPF_OK, "%s returned %s: %s", #call, upf_result_string(r_), m_);         \
    } while (0)

/* A call that must fail with `code` and a message containing `needle`. */
#define CHECK_FAILS(ctx, call, code, needle)                                                  \
    do {                                                                                      \
        upf_result r_ = (call);                                                               \
        const char *m_ = "";                                                                  \
        upf_context_last_error((ctx), &m_);                                                   \
        CHECKF(r_ == (code) && strstr(m_, (needle)) != NULL,                                  \
               "%s returned %s (\"%s\"); expected %s with \"%s\"", #call,                     \
               upf_result_string(r_), m_, upf_result_string(code), (needle));                 \
    } while (0)

static inline int test_finish(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, test_checks_, test_failures_);
    return test_failures_ ? 1 : 0;
}

/* ---- random numbers: xoshiro128** seeded by splitmix64 ---------------------------- */

typedef struct test_rng {
    uint32_t s[4];
} test_rng;

static inline uint32_t test_rotl(uint32_t x, int k)
{
    return (x << k) | (x >> (32 - k));
}

static inline uint32_t test_rand_u32(test_rng *r)
{
    uint32_t result = test_rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 9;
    r->s[2] ^= r->s[0];
    r->s[3] ^= r->s[1];
    r->s[1] ^= r->s[2];
    r->s[0] ^= r->s[3];
    r->s[2] ^= t;
    r->s[3] = test_rotl(r->s[3], 11);
    return result;
}

/* Uniform in [0, 1). */
static inline float test_rand_float(test_rng *r)
{
    return (float)(test_rand_u32(r) >> 8) * 0x1p-24f;
}

/* Uniform integer in [lo, hi]. */
static inline int test_rand_int(test_rng *r, int lo, int hi)
{
    return lo + (int)(test_rand_u32(r) % (uint32_t)(hi - lo + 1));
}

/* A generator seeded from UPF_TEST_SEED or the clock; prints the seed so a run can be repeated. */
static inline test_rng test_rng_make(const char *name)
{
    uint64_t seed;
    const char *env = getenv("UPF_TEST_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 0);
    else
        seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("%s: seed %" PRIu64 " (set UPF_TEST_SEED to repeat)\n", name, seed);
    test_rng r;
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r.s[i] = (uint32_t)(z ^ (z >> 31));
    }
    return r;
}

/* A context for tests: errors logged to stderr only when UPF_TEST_VERBOSE is set. */
static inline upf_context *test_context(int threads)
{
    int verbose = getenv("UPF_TEST_VERBOSE") != NULL;
    return upf_context_create(upf_context_params(.threads = threads,
                                                 .log = verbose ? upf_log_stderr : NULL,
                                                 .log_level = UPF_LOG_DEBUG));
}

/* ---- memory an object holds --------------------------------------------------------------- *
 * An allocator that keeps each block's size in front of it and counts the live bytes, to hold
 * a memory query (upf_*_memory) against what an object really takes. */
static atomic_llong test_live_bytes;

static inline void *test_sizing_alloc(void *priv, size_t size, size_t alignment)
{
    (void)priv;
    char *p = aligned_alloc(alignment, (size + 2 * alignment - 1) / alignment * alignment);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    atomic_fetch_add(&test_live_bytes, (long long)size);
    return p + alignment; /* the library asks for 64 every time */
}

static inline void test_sizing_free(void *priv, void *ptr)
{
    (void)priv;
    if (!ptr)
        return;
    char *p = (char *)ptr - 64;
    size_t size;
    memcpy(&size, p, sizeof size);
    atomic_fetch_sub(&test_live_bytes, (long long)size);
    free(p);
}

#define TEST_SIZING_ALLOCATOR { NULL, test_sizing_alloc, test_sizing_free }

/* ---- two calls at once (in-use flags) ------------------------------------------------------ *
 * A host parallel-for that holds the first call made through it until test_hold_release(),
 * so a test can make a second call on the same object while the first is inside it. A call
 * that arrives while one is held runs straight through (so a missing in-use check shows as a
 * second call that succeeds, not as a hang). */
typedef struct test_hold {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int inside, release;
} test_hold;

#define TEST_HOLD_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 }

static inline void test_hold_parallel_for(void *priv, upf_task_fn task, void *task_priv,
                                          int count)
{
    test_hold *h = priv;
    pthread_mutex_lock(&h->lock);
    if (!h->inside) {
        h->inside = 1;
        pthread_cond_broadcast(&h->cond);
        while (!h->release)
            pthread_cond_wait(&h->cond, &h->lock);
    }
    pthread_mutex_unlock(&h->lock);
    for (int i = 0; i < count; i++)
        task(task_priv, i, 0);
}

/* Waits until a call is held inside. */
static inline void test_hold_wait(test_hold *h)
{
    pthread_mutex_lock(&h->lock);
    while (!h->inside)
        pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

static inline void test_hold_release(test_hold *h)
{
    pthread_mutex_lock(&h->lock);
    h->release = 1;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

/* ---- running the `upframe` tool (end-to-end tests) -------------------------------------- */

/* What the last test_run_tool* call printed: stdout and stderr apart (test_run_tool) or
 * together in test_tool_out (test_run_tool_cmdline). */
static inline char *test_tool_out(void)
{
    static char buf[1 << 16];
    return buf;
}

static inline char *test_tool_err(void)
{
    static char buf[1 << 16];
    return buf;
}

static inline void test_read_text(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static inline int test_exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#if defined(UPF_TOOL_PATH) && defined(UPF_TEST_TMPDIR)
extern char **environ;

/* Starts the tool with the NULL-terminated arguments, no shell in between: standard input
 * from `in` (NULL: /dev/null), output to `out` (NULL: /dev/null) and errors to `err`.
 * Returns its pid, or -1. */
static inline pid_t test_spawn_tool(const char *const *args, const char *in, const char *out,
                                    const char *err)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = UPF_TOOL_PATH;
    for (; *args && n < 63; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    if (posix_spawn(&pid, UPF_TOOL_PATH, &fa, NULL, (char *const *)argv, environ) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

/* Runs the tool with the NULL-terminated arguments, no shell in between. Returns its exit
 * code (-1 if it did not exit normally). */
static inline int test_run_tool(const char *const *args)
{
    pid_t pid = test_spawn_tool(args, NULL, UPF_TEST_TMPDIR "/tool_stdout.txt",
                                UPF_TEST_TMPDIR "/tool_stderr.txt");
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    test_read_text(UPF_TEST_TMPDIR "/tool_stdout.txt", test_tool_out(), 1 << 16);
    test_read_text(UPF_TEST_TMPDIR "/tool_stderr.txt", test_tool_err(), 1 << 16);
    return test_exit_code(status);
}

/* Runs `UPF_TOOL_PATH <printf-formatted arguments>` through the shell; stdout and stderr both
 * land in test_tool_out(). Returns the exit code. */
static inline int test_run_tool_cmdline(const char *fmt, ...)
{
    char args[3072], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s/tool_output.txt' 2>&1", UPF_TOOL_PATH, args,
             UPF_TEST_TMPDIR);
    int status = system(cmd);
    test_read_text(UPF_TEST_TMPDIR "/tool_output.txt", test_tool_out(), 1 << 16);
    return test_exit_code(status);
}
#endif

#endif /* UPF_TEST_UTIL_H */
