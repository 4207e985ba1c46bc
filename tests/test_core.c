/* test_core.c: the context (params, errors, allocator, threads), format conversions, the sRGB
 * curve against its definition, half floats, and the sqrt 10:10:10:2 pixel. */
#include <stdatomic.h>

#include "core/color.h"
#include "core/core.h"
#include "core/image.h"
#include "test_util.h"

/* ---- the sRGB curve against IEC 61966-2-1, written out here independently ---------- */

static double srgb_decode_def(double v)
{
    /* IEC 61966-2-1:1999, 5.2: V' <= 0.04045 -> V'/12.92, else ((V' + 0.055)/1.055)^2.4 */
    if (v <= 0.04045)
        return v / 12.92;
    return exp(2.4 * log((v + 0.055) / 1.055));
}

static void test_srgb(test_rng *rng)
{
    /* Known points of the curve. */
    CHECK_NEAR(upf_srgb_to_linear_d(0.0), 0.0, 0);
    CHECK_NEAR(upf_srgb_to_linear_d(1.0), 1.0, 1e-15);
    CHECK_NEAR(upf_srgb_to_linear_d(0.04045), 0.04045 / 12.92, 1e-15);
    CHECK_NEAR(upf_srgb_to_linear_d(0.5), 0.21404114048223255, 1e-12);
    CHECK_NEAR(upf_linear_to_srgb_d(0.0031308), 0.0031308 * 12.92, 1e-15);
    CHECK_NEAR(upf_linear_to_srgb_d(0.18), 0.46135612950044164, 1e-12);
    /* The curve is not a 2.2 power: at 0.01 they differ by far more than rounding. */
    CHECK(fabs(upf_srgb_to_linear_d(0.01) - pow(0.01, 2.2)) > 1e-4);

    for (int i = 0; i < 256; i++) {
        CHECK_NEAR(upf_srgb8_to_linear_table[i], (float)srgb_decode_def(i / 255.0), 0);
        /* 8-bit round trip: decode then encode gives the code back. */
        CHECK_EQ_INT(upf_linear_to_srgb8(upf_srgb8_to_linear_table[i]), i);
    }
    /* Encoding by table search equals rounding the formula, on random values. */
    int mismatches = 0;
    for (int i = 0; i < 200000; i++) {
        float v = test_rand_float(rng) * 1.1f - 0.05f;
        double e = v <= 0 ? 0 : v >= 1 ? 1 : upf_linear_to_srgb_d(v);
        int want = (int)floor(e * 255.0 + 0.5);
        if (upf_linear_to_srgb8(v) != want)
            mismatches++;
    }
    CHECK_EQ_INT(mismatches, 0);
    for (int i = 0; i < 65536; i += 7) {
        double lin = srgb_decode_def(i / 65535.0);
        CHECK_NEAR(upf_linear_to_srgb_d(lin) * 65535.0, i, 1e-6);
    }
}

static void test_srgb8_row_avx2(test_rng *rng)
{
    /* The AVX2 row writer (image_avx2.c) against the C one, byte for byte: random values over
     * [-0.1, 1.1], every 8-bit step's threshold and the floats either side of it, NaN,
     * infinities, -0, and rows of lengths that are not multiples of 8. */
    if (!(upf__cpu_detect() & UPF__CPU_X86_AVX2_FMA)) {
        printf("sRGB8 rows: no AVX2 on this CPU (the C writer only)\n");
        return;
    }
    int32_t bucket[UPF_SRGB8_BUCKETS + 1];
    float thr[256];
    upf__srgb8_encode_tables(bucket, thr);
    enum { W = 509 };
    float *in = malloc(sizeof(float) * 4 * W);
    uint8_t a[4 * W], b[4 * W];
    long compared = 0;
    int differ = 0;
    upf_context *ctx = upf_context_create(NULL);
    CHECK(ctx && (ctx->cpu_flags & UPF__CPU_X86_AVX2_FMA));
    uint8_t c[4 * W];
    for (int trial = 0; trial < 400; trial++) {
        const int n = test_rand_int(rng, 1, W), x0 = test_rand_int(rng, 0, W - n);
        for (int i = 0; i < 4 * n; i++) {
            const int k = test_rand_int(rng, 0, 254);
            const int pick = test_rand_int(rng, 0, 9);
            in[i] = pick < 6   ? test_rand_float(rng) * 1.2f - 0.1f
                    : pick == 6 ? thr[k]
                    : pick == 7 ? nextafterf(thr[k], 0.0f)
                    : pick == 8 ? upf_srgb8_to_linear_table[k]
                                : (float[]){ NAN, INFINITY, -INFINITY, -0.0f, 1.0f,
                                             0.0f }[test_rand_int(rng, 0, 5)];
        }
        /* The same row prefilled the same way: pixels outside [x0, x0 + n) must stay. */
        memset(a, 0xab, sizeof a);
        memset(b, 0xab, sizeof b);
        memset(c, 0xab, sizeof c);
        const upf_image ia = { a, W, 1, 0, UPF_FORMAT_RGBA8_SRGB };
        const upf_image ib = { b, W, 1, 0, UPF_FORMAT_RGBA8_SRGB };
        const upf_image ic = { c, W, 1, 0, UPF_FORMAT_RGBA8_SRGB };
        upf__row_from_linear(&ia, 0, x0, n, in);
        upf__row_to_srgb8_avx2(&ib, 0, x0, n, in, bucket, thr);
        upf__row_from_linear_ctx(ctx, &ic, 0, x0, n, in); /* what the row loops call */
        differ += memcmp(a, b, sizeof a) != 0 || memcmp(a, c, sizeof a) != 0;
        compared += 4 * n;
    }
    upf_context_destroy(&ctx);
    free(in);
    CHECKF(differ == 0, "%d rows differ between the C and the AVX2 sRGB8 writers", differ);
    printf("sRGB8 rows, AVX2 vs C: %ld values, all equal\n", compared);
}

/* ---- half floats --------------------------------------------------------------------- */

/* Reference float -> half: scale to the half's grid with double arithmetic and round to even. */
static uint16_t half_ref(float f)
{
    if (isnan(f))
        return 0x7e00;
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    double a = fabs((double)f);
    if (a >= 65520.0) /* rounds to Inf */
        return sign | 0x7c00;
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int exp_unbiased = e - 1;
    if (exp_unbiased < -14)
        exp_unbiased = -14; /* subnormal range: fixed step 2^-24 */
    double step = ldexp(1.0, exp_unbiased - 10);
    double q = a / step;
    double r = nearbyint(q); /* default rounding mode: to nearest even */
    double v = r * step;
    /* rebuild bits from the value */
    if (v == 0)
        return sign;
    int e2;
    frexp(v, &e2);
    int be = e2 - 1 + 15;
    if (be <= 0) /* subnormal */
        return sign | (uint16_t)(v / ldexp(1.0, -24));
    uint16_t man = (uint16_t)((v / ldexp(1.0, e2 - 1) - 1.0) * 1024.0);
    return sign | (uint16_t)(be << 10) | man;
}

static void test_half(test_rng *rng)
{
    /* Every half converts to float and back unchanged (NaNs stay NaN). */
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = upf_half_to_float((uint16_t)h);
        uint16_t back = upf_float_to_half(f);
        int is_nan = ((h >> 10) & 0x1f) == 0x1f && (h & 0x3ff);
        if (is_nan ? !isnan(f) || ((back & 0x7c00) != 0x7c00) || !(back & 0x3ff) : back != h)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_NEAR(upf_half_to_float(0x3c00), 1.0, 0);
    CHECK_NEAR(upf_half_to_float(0x0001), ldexp(1.0, -24), 0);
    CHECK_NEAR(upf_half_to_float(0x7bff), 65504.0, 0);
    CHECK(isinf(upf_half_to_float(0x7c00)));

    /* Random floats over the half range and beyond round like the reference. */
    bad = 0;
    for (int i = 0; i < 300000; i++) {
        float f = ldexpf(test_rand_float(rng) * 2.0f - 1.0f, test_rand_int(rng, -30, 17));
        if (upf_float_to_half(f) != half_ref(f)) {
            if (bad < 5)
                fprintf(stderr, "half(%a) = %04x, reference %04x\n", (double)f,
                        upf_float_to_half(f), half_ref(f));
            bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    /* Ties round to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10. */
    CHECK_EQ_INT(upf_float_to_half(1.0f + 0x1p-11f), 0x3c00);
    CHECK_EQ_INT(upf_float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);
}

/* ---- sqrt 10:10:10:2 ------------------------------------------------------------------- */

static void test_pack(test_rng *rng)
{
    float r, g, b, a;
    upf_unpack_sqrt1010102(upf_pack_sqrt1010102(1, 0.25f, 0, 1), &r, &g, &b, &a);
    CHECK_NEAR(r, 1.0, 0);
    CHECK_NEAR(g, 0.5, 0.5 / 1023);
    CHECK_NEAR(b, 0.0, 0);
    CHECK_NEAR(a, 1.0, 0);
    /* Out of range and NaN clamp. */
    upf_unpack_sqrt1010102(upf_pack_sqrt1010102(4, -1, NAN, -2), &r, &g, &b, &a);
    CHECK(r == 1.0f && g == 0.0f && b == 0.0f && a == 0.0f);
    float maxerr = 0;
    for (int i = 0; i < 10000; i++) {
        float v = test_rand_float(rng);
        upf_unpack_sqrt1010102(upf_pack_sqrt1010102(v, v, v, 1), &r, &g, &b, &a);
        maxerr = fmaxf(maxerr, fabsf(r - sqrtf(v)));
    }
    CHECK(maxerr <= 0.5f / 1023.0f + 1e-6f); /* rounding to the nearest code */
}

/* ---- context ---------------------------------------------------------------------------- */

typedef struct log_capture {
    int count;
    char last[512];
} log_capture;

static void capture_log(void *priv, upf_log_level level, const char *msg)
{
    log_capture *c = priv;
    (void)level;
    c->count++;
    snprintf(c->last, sizeof c->last, "%s", msg);
}

typedef struct counting_alloc {
    int allocs, frees;
} counting_alloc;

static void *count_alloc(void *priv, size_t size, size_t align)
{
    ((counting_alloc *)priv)->allocs++;
    size = (size + align - 1) / align * align;
    return aligned_alloc(align, size);
}

static void count_free(void *priv, void *p)
{
    if (p)
        ((counting_alloc *)priv)->frees++;
    free(p);
}

typedef struct pf_job {
    atomic_int hits[1000];
    atomic_int max_worker;
    int workers;
    upf_context *ctx;
    atomic_int nested_total;
} pf_job;

static void pf_task(void *priv, int index, int worker)
{
    pf_job *j = priv;
    atomic_fetch_add(&j->hits[index], 1);
    int m = atomic_load(&j->max_worker);
    while (worker > m && !atomic_compare_exchange_weak(&j->max_worker, &m, worker)) {
    }
}

static void nested_inner(void *priv, int index, int worker)
{
    (void)index;
    (void)worker;
    atomic_fetch_add(&((pf_job *)priv)->nested_total, 1);
}

static void nested_outer(void *priv, int index, int worker)
{
    (void)index;
    (void)worker;
    pf_job *j = priv;
    upf__parallel_for(j->ctx, nested_inner, j, 10);
}

typedef struct host_pool {
    int calls;
} host_pool;

static void host_parallel_for(void *priv, upf_task_fn task, void *task_priv, int count)
{
    ((host_pool *)priv)->calls++;
    for (int i = count - 1; i >= 0; i--) /* any order must do */
        task(task_priv, i, i % 3);
}

static void test_context_api(void)
{
    /* Defaults. */
    upf_context *ctx = upf_context_create(NULL);
    CHECK(ctx != NULL);
    CHECK(upf_context_threads(ctx) >= 1);
    const char *msg = NULL;
    CHECK_EQ_INT(upf_context_last_error(ctx, &msg), UPF_OK);
    CHECK(msg && msg[0] == '\0');
    upf_context_destroy(&ctx);
    CHECK(ctx == NULL);
    upf_context_destroy(&ctx); /* a pointer to NULL is fine */
    upf_context_destroy(NULL);

    /* Bad params are refused with a message to the log. */
    log_capture cap = { 0 };
    ctx = upf_context_create(upf_context_params(.threads = -1, .log = capture_log, .log_priv = &cap));
    CHECK(ctx == NULL);
    CHECK(cap.count == 1 && strstr(cap.last, "threads -1 is out of range"));
    ctx = upf_context_create(upf_context_params(.threads = 1000, .log = capture_log, .log_priv = &cap));
    CHECK(ctx == NULL && strstr(cap.last, "expected 0 for one per CPU"));
    ctx = upf_context_create(upf_context_params(.log_level = (upf_log_level)9, .log = capture_log,
                                                .log_priv = &cap));
    CHECK(ctx == NULL && strstr(cap.last, "log_level 9"));
    upf_allocator half = { NULL, count_alloc, NULL };
    ctx = upf_context_create(upf_context_params(.allocator = &half, .log = capture_log, .log_priv = &cap));
    CHECK(ctx == NULL && strstr(cap.last, "both alloc and free"));

    /* Errors are recorded, logged, and cleared by the next call. */
    cap.count = 0;
    counting_alloc counts = { 0, 0 };
    upf_allocator alloc = { &counts, count_alloc, count_free };
    ctx = upf_context_create(upf_context_params(.threads = 3, .log = capture_log, .log_priv = &cap,
                                                .allocator = &alloc));
    CHECK(ctx != NULL);
    CHECK_EQ_INT(upf_context_threads(ctx), 3);
    CHECK(counts.allocs >= 1);
    upf_result r = upf__fail(ctx, UPF_ERROR_BAD_DATA, "pixel %d,%d is NaN", 3, 4);
    CHECK_EQ_INT(r, UPF_ERROR_BAD_DATA);
    CHECK_EQ_INT(upf_context_last_error(ctx, &msg), UPF_ERROR_BAD_DATA);
    CHECK(strcmp(msg, "pixel 3,4 is NaN") == 0);
    CHECK(cap.count == 1 && strcmp(cap.last, "pixel 3,4 is NaN") == 0);
    upf__clear_error(ctx);
    CHECK_EQ_INT(upf_context_last_error(ctx, NULL), UPF_OK);

    /* A failed allocation reports what it was for; overflow is caught. */
    CHECK(upf__alloc_array(ctx, SIZE_MAX / 2, 4, "a test buffer") == NULL);
    CHECK_EQ_INT(upf_context_last_error(ctx, &msg), UPF_ERROR_OUT_OF_MEMORY);
    CHECK(strstr(msg, "a test buffer") != NULL);
    void *p = upf__alloc(ctx, 1000, "x");
    CHECK(p && ((uintptr_t)p % 64) == 0);
    CHECK(((unsigned char *)p)[999] == 0);
    upf__free(ctx, p);
    /* The default allocator's blocks come zeroed without upf__alloc writing them (pages.c):
     * small (calloc) and big (mapped, 2 MiB-aligned) ones, each time, also after a block of
     * the same size was dirtied and freed; every byte checked. */
    const size_t sizes[] = { 1, 63, 4096, ((size_t)4 << 20) - 1, (size_t)4 << 20,
                             ((size_t)9 << 20) + 17 };
    upf_context *dctx = upf_context_create(NULL);
    for (int round = 0; round < 2 && dctx; round++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            unsigned char *b = upf__alloc(dctx, sizes[k], "a test block");
            CHECK(b && ((uintptr_t)b % 64) == 0);
            if (!b)
                continue;
#if !defined(__SANITIZE_ADDRESS__) /* ASan: every block from calloc (pages.c) */
            if (sizes[k] >= ((size_t)4 << 20))
                CHECK(((uintptr_t)b % ((size_t)2 << 20)) == 0);
#endif
            size_t nonzero = 0;
            for (size_t i = 0; i < sizes[k]; i++)
                nonzero += b[i] != 0;
            CHECKF(nonzero == 0, "round %d, %zu bytes: %zu not zero", round, sizes[k], nonzero);
            memset(b, 0xa5, sizes[k]);
            upf__free(dctx, b);
        }
    upf_context_destroy(&dctx);

    /* The pool runs every index exactly once, on workers 0..threads-1, many times over. */
    static pf_job job;
    for (int round = 0; round < 200; round++) {
        int count = 1 + (round * 37) % 1000;
        for (int i = 0; i < 1000; i++)
            atomic_store(&job.hits[i], 0);
        atomic_store(&job.max_worker, 0);
        upf__parallel_for(ctx, pf_task, &job, count);
        int wrong = 0;
        for (int i = 0; i < 1000; i++)
            wrong += atomic_load(&job.hits[i]) != (i < count);
        CHECKF(wrong == 0, "round %d: %d indices not run exactly once", round, wrong);
        CHECK(atomic_load(&job.max_worker) < 3);
    }
    /* A parallel-for inside a task runs serially, completely. */
    job.ctx = ctx;
    atomic_store(&job.nested_total, 0);
    upf__parallel_for(ctx, nested_outer, &job, 8);
    CHECK_EQ_INT(atomic_load(&job.nested_total), 80);

    upf_context_destroy(&ctx);
    CHECK_EQ_INT(counts.allocs, counts.frees);

    /* A host parallel-for is used as given. */
    host_pool hp = { 0 };
    ctx = upf_context_create(upf_context_params(.threads = 3, .parallel_for = host_parallel_for,
                                                .parallel_for_priv = &hp));
    CHECK(ctx != NULL);
    for (int i = 0; i < 1000; i++)
        atomic_store(&job.hits[i], 0);
    upf__parallel_for(ctx, pf_task, &job, 100);
    CHECK_EQ_INT(hp.calls, 1);
    CHECK_EQ_INT(atomic_load(&job.hits[99]), 1);
    upf_context_destroy(&ctx);
    ctx = upf_context_create(upf_context_params(.parallel_for = host_parallel_for, .log = capture_log,
                                                .log_priv = &cap));
    CHECK(ctx == NULL && strstr(cap.last, "threads must say how many workers"));

    CHECK(strcmp(upf_result_string(UPF_ERROR_BAD_DATA), "bad data") == 0);
    CHECK(strcmp(upf_result_string((upf_result)99), "unknown result") == 0);
    CHECK(strcmp(upf_version(), "0.1.0") >= 0 && strchr(upf_version(), '.'));
    CHECK_EQ_INT(upf_api_version(), UPF_API_VERSION);
}

/* ---- images and row conversion -------------------------------------------------------- */

static void test_images(test_rng *rng)
{
    upf_context *ctx = test_context(1);
    uint8_t px[64 * 4];
    upf_image img = { px, 8, 8, 0, UPF_FORMAT_RGBA8_SRGB };
    CHECK_OK(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 8, 8));
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", NULL, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "f: input is NULL");
    img.width = 0;
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "input is 0x8; expected each side in 1..16384");
    img.width = 8;
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 9, 8),
                UPF_ERROR_INVALID_ARGUMENT, "is 8x8; expected 9x8");
    img.stride = 31;
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "stride of 31 bytes");
    img.stride = 0;
    img.format = UPF_FORMAT_R32F;
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "format r32f (7); expected one of: rgba8-srgb");
    img.format = (upf_format)42;
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "format unknown (42)");
    img.format = UPF_FORMAT_RGBA8_SRGB;
    img.data = NULL;
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "data is NULL");

    upf_rect crop;
    CHECK_OK(ctx, upf__resolve_crop(ctx, "f", NULL, 10, 20, &crop));
    CHECK(crop.width == 10 && crop.height == 20);
    CHECK_FAILS(ctx, upf__resolve_crop(ctx, "f", &(upf_rect){ 5, 5, 6, 1 }, 10, 20, &crop),
                UPF_ERROR_INVALID_ARGUMENT, "crop 5,5,6x1 does not lie inside the 10x20 image");

    /* Integer formats: decode then encode is bit-exact for every code, with a stride. */
    static uint16_t buf16[256 * 4 * 2], out16[256 * 4 * 2];
    static uint8_t buf8[256 * 4 * 2], out8[256 * 4 * 2];
    float row[256 * 4];
    for (int i = 0; i < 256 * 4; i++)
        buf8[i] = (uint8_t)(i / 4 + i % 4 * 61);
    for (int i = 0; i < 256 * 4; i++)
        buf16[i] = (uint16_t)test_rand_u32(rng);
    upf_format f8[] = { UPF_FORMAT_RGBA8_SRGB, UPF_FORMAT_RGBA8_UNORM };
    upf_format f16[] = { UPF_FORMAT_RGBA16_SRGB, UPF_FORMAT_RGBA16_UNORM, UPF_FORMAT_RGBA16F };
    for (int k = 0; k < 2; k++) {
        upf_image a = { buf8, 256, 1, sizeof buf8, f8[k] }, b = { out8, 256, 1, sizeof out8, f8[k] };
        CHECK(upf__row_to_linear(&a, 0, 0, 256, row) == -1);
        upf__row_from_linear(&b, 0, 0, 256, row);
        CHECKF(memcmp(buf8, out8, 256 * 4) == 0, "%s round trip", upf_format_name(f8[k]));
    }
    for (int k = 0; k < 3; k++) {
        if (f16[k] == UPF_FORMAT_RGBA16F)
            for (int i = 0; i < 256 * 4; i++)
                buf16[i] = (uint16_t)(buf16[i] & 0xbbff); /* exponent never all ones: finite */
        upf_image a = { buf16, 256, 1, 0, f16[k] }, b = { out16, 256, 1, 0, f16[k] };
        CHECK(upf__row_to_linear(&a, 0, 0, 256, row) == -1);
        upf__row_from_linear(&b, 0, 0, 256, row);
        CHECKF(memcmp(buf16, out16, 256 * 8) == 0, "%s round trip", upf_format_name(f16[k]));
    }
    /* Float rows: NaN and Inf are found and their x reported. */
    float fl[4 * 5] = { 0 };
    fl[4 * 3 + 1] = NAN;
    upf_image fimg = { fl, 5, 1, 0, UPF_FORMAT_RGBA32F };
    CHECK_EQ_INT(upf__row_to_linear(&fimg, 0, 0, 5, row), 3);
    CHECK_EQ_INT(upf__row_to_linear(&fimg, 0, 0, 3, row), -1);
    fl[4 * 3 + 1] = 0;
    fl[4 * 4 + 3] = INFINITY;
    CHECK_EQ_INT(upf__row_to_display(&fimg, 0, 0, 5, row), 4);
    /* Display values: linear 0.5 encodes to sRGB 0.7353569830524495. */
    fl[4 * 4 + 3] = 1;
    fl[0] = 0.5f;
    fl[1] = 2.0f; /* clamped */
    CHECK_EQ_INT(upf__row_to_display(&fimg, 0, 0, 1, row), -1);
    CHECK_NEAR(row[0], 0.7353569830524495, 1e-6);
    CHECK_NEAR(row[1], 1.0, 0);
    upf_context_destroy(&ctx);
}

/* Issue 10, item 5: strides near SIZE_MAX / height and misaligned 16-bit and float rows. */
static void test_image_bounds(test_rng *rng)
{
    upf_context *ctx = test_context(1);
    uint8_t px[64];
    /* Rows that would wrap around the address space are refused by name, not followed. */
    upf_image img = { px, 2, 3, SIZE_MAX / 2 + 1, UPF_FORMAT_RGBA8_SRGB }; /* 2 strides overflow */
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "input's rows run past the end of the address space");
    img.stride = SIZE_MAX / 2 - 8; /* (height - 1) * stride fits in size_t, the pointer does not */
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "run past the end of the address space");
    upf_image big = { px, 2, 3, SIZE_MAX / 2 - 8, UPF_FORMAT_RGBA8_SRGB };
    uint8_t dst[4 * 4 * 4];
    upf_image small = { dst, 4, 4, 0, UPF_FORMAT_RGBA8_SRGB };
    CHECK_FAILS(ctx, upf_resample(ctx, &big, &small, UPF_FILTER_BILINEAR),
                UPF_ERROR_INVALID_ARGUMENT, "address space");

    /* 16-bit and float rows at odd addresses and strides convert exactly as aligned ones
     * (they were read through misaligned pointers: undefined behaviour, flagged by UBSan). */
    static const upf_format fmts[] = { UPF_FORMAT_RGBA16_SRGB, UPF_FORMAT_RGBA16_UNORM,
                                       UPF_FORMAT_RGBA16F, UPF_FORMAT_RGBA32F };
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        const int w = 7, h = 3;
        const size_t bpp = upf_format_bytes_per_pixel(fmts[k]), row = w * bpp;
        unsigned char *aligned = calloc(1, row * h), *odd = calloc(1, (row + 3) * h + 1);
        float *lin_a = malloc(sizeof(float) * 4 * w), *lin_b = malloc(sizeof(float) * 4 * w);
        for (size_t i = 0; i < row * h; i++)
            aligned[i] = (unsigned char)test_rand_u32(rng);
        if (fmts[k] == UPF_FORMAT_RGBA16F || fmts[k] == UPF_FORMAT_RGBA32F) /* finite values */
            for (size_t i = 0; i < row * h / 4; i++) {
                if (fmts[k] == UPF_FORMAT_RGBA16F)
                    ((uint16_t *)aligned)[2 * i] &= 0xbbff, ((uint16_t *)aligned)[2 * i + 1] &= 0xbbff;
                else
                    ((float *)aligned)[i] = test_rand_float(rng) * 4 - 2;
            }
        for (int y = 0; y < h; y++)
            memcpy(odd + 1 + (size_t)y * (row + 3), aligned + (size_t)y * row, row);
        upf_image a = { aligned, w, h, 0, fmts[k] }, b = { odd + 1, w, h, row + 3, fmts[k] };
        CHECK_OK(ctx, upf__check_image(ctx, "f", "odd", &b, UPF_FMTS_COLOR, 0, 0));
        bool same = true;
        for (int y = 0; y < h; y++) {
            CHECK(upf__row_to_linear(&a, y, 0, w, lin_a) == -1);
            CHECK(upf__row_to_linear(&b, y, 0, w, lin_b) == -1);
            same &= memcmp(lin_a, lin_b, sizeof(float) * 4 * w) == 0;
            upf__row_from_linear(&b, y, 0, w, lin_a);
            same &= memcmp(odd + 1 + (size_t)y * (row + 3), aligned + (size_t)y * row, row) == 0 ||
                    fmts[k] == UPF_FORMAT_RGBA16_SRGB; /* sRGB 16 need not round-trip exactly */
            CHECK_EQ_INT(upf__row_to_display(&b, y, 0, w, lin_b), -1);
        }
        CHECKF(same, "%s at an odd address and stride", upf_format_name(fmts[k]));
        /* And an engine takes such an image. */
        uint8_t out[5 * 2 * 4];
        upf_image o = { out, 5, 2, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_OK(ctx, upf_resample(ctx, &b, &o, UPF_FILTER_BICUBIC));
        free(aligned), free(odd), free(lin_a), free(lin_b);
    }
    upf_context_destroy(&ctx);
}

/* Issue 10, item 7: the context's pixel limit, default and raised. */
static void test_pixel_limit(void)
{
    upf_context *ctx = test_context(1);
    CHECK_FAILS(ctx, upf__check_pixels(ctx, "f", "input", 16384, 16384),
                UPF_ERROR_INVALID_ARGUMENT, "input is 16384x16384 = 268435456 pixels; expected at "
                "most 134217728");
    CHECK_OK(ctx, upf__check_pixels(ctx, "f", "input", 16384, 8192));
    /* Refused at creation, before any memory is taken for it. */
    CHECK(upf_resampler_create(ctx, upf_resampler_params(.src_width = 16384, .src_height = 16384,
                                                         .dst_width = 4, .dst_height = 4)) == NULL);
    CHECK_FAILS(ctx, upf_context_last_error(ctx, NULL), UPF_ERROR_INVALID_ARGUMENT,
                "upf_resampler_create: the source is 16384x16384");
    upf_context_destroy(&ctx);
    ctx = upf_context_create(upf_context_params(.max_pixels = 100));
    CHECK(ctx != NULL);
    uint8_t px[11 * 10 * 4] = { 0 };
    upf_image img = { px, 11, 10, 0, UPF_FORMAT_RGBA8_SRGB };
    CHECK_FAILS(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0),
                UPF_ERROR_INVALID_ARGUMENT, "input is 11x10 = 110 pixels; expected at most 100");
    img.width = 10;
    CHECK_OK(ctx, upf__check_image(ctx, "f", "input", &img, UPF_FMTS_COLOR, 0, 0));
    upf_context_destroy(&ctx);
    ctx = upf_context_create(upf_context_params(.max_pixels = (size_t)16384 * 16384));
    CHECK(ctx != NULL);
    CHECK_OK(ctx, upf__check_pixels(ctx, "f", "input", 16384, 16384));
    upf_context_destroy(&ctx);
    CHECK(upf_context_create(upf_context_params(.max_pixels = (size_t)16384 * 16384 + 1)) == NULL);
}

/* Issue 10, item 6: destroying a context while objects made from it live is refused (it used
 * to free the context under them: a use after free when they were destroyed). */
static void test_destroy_order(void)
{
    log_capture cap = { 0 };
    counting_alloc ca = { 0 };
    upf_allocator al = { &ca, count_alloc, count_free };
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 3, .allocator = &al,
                                                             .log = capture_log, .log_priv = &cap));
    CHECK(ctx != NULL);
    upf_resampler *rs = upf_resampler_create(ctx, upf_resampler_params(
        .src_width = 8, .src_height = 8, .dst_width = 16, .dst_height = 16));
    CHECK(rs != NULL);
    upf_context *keep = ctx;
    upf_context_destroy(&ctx);
    CHECK(ctx == keep); /* not destroyed */
    CHECK(strstr(cap.last, "upf_context_destroy") && strstr(cap.last, "still alive") &&
          strstr(cap.last, "NOT destroyed"));
    CHECK_FAILS(ctx, upf_context_last_error(ctx, NULL), UPF_ERROR_INVALID_ARGUMENT,
                "destroyed first");
    /* The context still works, and the object with it. */
    uint8_t a[8 * 8 * 4] = { 0 }, b[16 * 16 * 4];
    upf_image src = { a, 8, 8, 0, UPF_FORMAT_RGBA8_SRGB }, dst = { b, 16, 16, 0, UPF_FORMAT_RGBA8_SRGB };
    CHECK_OK(ctx, upf_resampler_run(rs, &src, &dst));
    upf_resampler_destroy(&rs);
    upf_context_destroy(&ctx);
    CHECK(ctx == NULL);
    CHECK_EQ_INT(ca.allocs, ca.frees); /* everything came back */
    /* Models too. */
    ctx = upf_context_create(upf_context_params(.threads = 2, .log = capture_log, .log_priv = &cap));
    upf_models *m = upf_models_default(ctx);
    if (m) {
        upf_context_destroy(&ctx);
        CHECK(ctx != NULL);
        upf_models_destroy(&m);
    }
    upf_context_destroy(&ctx);
    CHECK(ctx == NULL);
}

int main(void)
{
    test_rng rng = test_rng_make("core");
    test_srgb(&rng);
    test_srgb8_row_avx2(&rng);
    test_half(&rng);
    test_pack(&rng);
    test_context_api();
    test_images(&rng);
    test_image_bounds(&rng);
    test_pixel_limit();
    test_destroy_order();
    return test_finish("core");
}
