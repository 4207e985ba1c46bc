/* test_util.h: the assertions and helpers every test program uses.
 *
 * One executable per module (tests/test_<module>.c, registered by tests/CMakeLists.txt).
 * CHECK* macros record a failure with file:line and the values, and keep going; main returns
 * test_finish(), which is non-zero if any check failed. Random inputs are fresh on every run:
 * the seed is printed, and UPF_TEST_SEED=<n> reproduces a run. Exit code 77 means "skipped". */
#ifndef UPF_TEST_UTIL_H
#define UPF_TEST_UTIL_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#endif /* UPF_TEST_UTIL_H */
