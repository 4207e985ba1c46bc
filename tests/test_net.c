/* test_net.c: the spatial engine's network and pass 4 (src/spatial/net*.c, reconstruct.c):
 *  - the window forward (reference and fast) against a float64 forward written here;
 *  - the model file loader on every kind of bad file, the writer, the round trip, the CRC,
 *    the public upf_models_* calls and the built-in set;
 *  - model choice for ratios 1 to 4;
 *  - pass 4's geometry on hand-checkable models (identity, pixel copy, zero), the output
 *    composition against a float64 version of docs/SPATIAL.md's formulas at many sizes, the sharpen
 *    on a hand-worked 3x3 frame, the whole pass against float64, thread independence;
 *  - `upframe model info|import|pack` end to end, including bad input. */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/color.h"
#include "core/core.h"
#include "spatial/net.h"
#include "spatial/reconstruct.h"
#include "test_util.h"

#define U32 0x1p-24 /* unit roundoff of fp32 */

/* ---- helpers ----------------------------------------------------------------------------- */

static upf__net_model *model_new(int step, uint32_t flags)
{
    upf__net_model *m = calloc(1, sizeof *m);
    m->step = step;
    m->flags = flags;
    m->detail_strength = 1.0f;
    return m;
}

/* A value representable in fp16 (so writer -> loader round trips are exact). */
static float half_round(float v)
{
    return upf_half_to_float(upf_float_to_half(v));
}

/* Weights uniform in [lo, hi], rounded to fp16. */
static void model_random(test_rng *rng, upf__net_model *m, float lo, float hi)
{
    for (int s = 0; s < UPF_NET_STAGES; s++)
        for (int k = 0; k < UPF_NET_MATRICES; k++)
            for (int i = 0; i < UPF_NET_WINDOW; i++)
                m->w[s][k][i] = half_round(lo + (hi - lo) * test_rand_float(rng));
}

static void set_identity(float *M)
{
    for (int i = 0; i < UPF_NET_WINDOW; i++)
        M[i] = (i / 16 == i % 16) ? 1.0f : 0.0f;
}

/* Every stage Y <- I * Y^T * I + 0: six transposes, so the output is the input window. */
static upf__net_model *model_identity(int step)
{
    upf__net_model *m = model_new(step, 0);
    for (int s = 0; s < UPF_NET_STAGES; s++) {
        set_identity(m->w[s][UPF_NET_A]);
        set_identity(m->w[s][UPF_NET_B]);
    }
    return m;
}

/* Stage 1: A[i][k] = (k == q), B[l][j] = (l == p), so (A Y^T B)[i][j] = Y[p][q] for every i, j
 * (row p = image row, column q = image column); stages 2-6 identity: the output is the
 * window's pixel (p, q) everywhere. */
static upf__net_model *model_copy_pixel(int step, int p, int q)
{
    upf__net_model *m = model_identity(step);
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            m->w[0][UPF_NET_A][i * 16 + j] = j == q ? 1.0f : 0.0f;
            m->w[0][UPF_NET_B][i * 16 + j] = i == p ? 1.0f : 0.0f;
        }
    return m;
}

/* ---- the float64 forward, written independently ------------------------------------------ */

/* Y <- ReLU((A * Y^T) * B + (C * Y^T) * D) in float64, associating the products the other
 * way from the library. `mag` (may be NULL) gets the same forward on absolute values with no
 * ReLU: |A| |Y|^T |B| + |C| |Y|^T |D|, the scale of the rounding error bound below. */
static void forward_f64(const upf__net_model *m, const float *in, double *out, double *mag)
{
    double y[256], ya[256];
    double mean = 0, mean_abs = 0;
    for (int i = 0; i < 256; i++) {
        mean += in[i];
        mean_abs += fabs(in[i]);
    }
    mean /= 256;
    mean_abs /= 256;
    for (int i = 0; i < 256; i++) {
        if (m->flags & UPF_MODEL_FLAG_WINDOW_MEAN) {
            y[i] = 4.0 * (in[i] - mean);
            ya[i] = 4.0 * (fabs(in[i]) + mean_abs);
        } else {
            y[i] = in[i];
            ya[i] = fabs(in[i]);
        }
    }
    for (int s = 0; s < 6; s++) {
        double z[256], za[256];
        for (int t = 0; t < 2; t++) {
            const float *L = m->w[s][t ? UPF_NET_C : UPF_NET_A];
            const float *R = m->w[s][t ? UPF_NET_D : UPF_NET_B];
            double P[256], Pa[256]; /* P = L * Y^T: P[i][l] = sum_k L[i][k] * Y[l][k] */
            for (int i = 0; i < 16; i++)
                for (int l = 0; l < 16; l++) {
                    double v = 0, va = 0;
                    for (int k = 0; k < 16; k++) {
                        v += (double)L[i * 16 + k] * y[l * 16 + k];
                        va += fabs((double)L[i * 16 + k]) * ya[l * 16 + k];
                    }
                    P[i * 16 + l] = v;
                    Pa[i * 16 + l] = va;
                }
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 16; j++) {
                    double v = 0, va = 0;
                    for (int l = 0; l < 16; l++) {
                        v += P[i * 16 + l] * R[l * 16 + j];
                        va += Pa[i * 16 + l] * fabs((double)R[l * 16 + j]);
                    }
                    z[i * 16 + j] = t ? z[i * 16 + j] + v : v;
                    za[i * 16 + j] = t ? za[i * 16 + j] + va : va;
                }
        }
        for (int i = 0; i < 256; i++) {
            y[i] = (s < 5 && z[i] < 0) ? 0 : z[i];
            ya[i] = za[i];
        }
    }
    memcpy(out, y, sizeof y);
    if (mag)
        memcpy(mag, ya, sizeof ya);
}

/* The rounding error bound of the fp32 forward, per output value, from the standard dot
 * product bound |fl(x.y) - x.y| <= n u sum|x_i y_i| (Higham, "Accuracy and Stability of
 * Numerical Algorithms", 2nd ed., eq. 3.5), to first order: each stage rounds two chained
 * 16-term dot products per term and one addition (33 u of the stage's absolute-value
 * product), and the errors of earlier stages are carried forward by the same absolute-value
 * products, so after six stages the error is at most 6 * 33 u * mag. The window mean adds a
 * 256-term sum, a subtraction and the exact x4: 258 u of 4 (|x| + mean |x|), carried forward
 * the same way. 1.25x for the second-order terms. */
static double forward_bound(const upf__net_model *m, double mag)
{
    double k = 6 * 33 + ((m->flags & UPF_MODEL_FLAG_WINDOW_MEAN) ? 258 : 0);
    return 1.25 * k * U32 * mag + 1e-30;
}

static void random_window(test_rng *rng, float *w, float lo, float hi)
{
    for (int i = 0; i < 256; i++)
        w[i] = lo + (hi - lo) * test_rand_float(rng);
}

/* The window forwards this machine runs: the plain C one, and each entry of net.h's table for
 * an instruction set the CPU has (as checkasm checks every SIMD entry against C). Every test
 * of the forward below runs each of them. */
typedef struct forward_kernel {
    const char *name;
    upf__net_forward_fn forward;
} forward_kernel;

static int forward_kernels(forward_kernel *k)
{
    int n = 0;
    k[n++] = (forward_kernel){ "c", upf__net_windows_forward };
    if (upf__cpu_detect() & UPF__CPU_X86_AVX2_FMA) {
        k[n++] = (forward_kernel){ "avx2+fma", upf__net_forward_for(UPF__CPU_X86_AVX2_FMA) };
        CHECK(k[n - 1].forward != upf__net_windows_forward); /* the table has the entry */
    }
    CHECK(upf__net_forward_for(0) == upf__net_windows_forward);
    return n;
}

static void test_mat16(test_rng *rng)
{
    /* The trainer's AVX2 product (upf__mat16_mul_for) against float64, with and without
     * accumulation into C: each entry within the 16-term dot product bound (16 u of the sum of
     * absolute terms, Higham eq. 3.5) plus one rounding of the add. */
    const upf__mat16_fn mul = upf__mat16_mul_for(upf__cpu_detect());
    if (!mul) {
        printf("16x16 product: no SIMD entry for this CPU\n");
        return;
    }
    int bad = 0;
    for (int trial = 0; trial < 200; trial++) {
        float P[256], Q[256], C[256], C0[256];
        for (int i = 0; i < 256; i++) {
            P[i] = 2.0f * test_rand_float(rng) - 1.0f;
            Q[i] = 2.0f * test_rand_float(rng) - 1.0f;
            C0[i] = C[i] = 2.0f * test_rand_float(rng) - 1.0f;
        }
        const int add = trial % 2;
        mul(P, Q, C, add);
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
                double sum = add ? C0[i * 16 + j] : 0.0, mag = fabs(sum);
                for (int k = 0; k < 16; k++) {
                    sum += (double)P[i * 16 + k] * Q[k * 16 + j];
                    mag += fabs((double)P[i * 16 + k] * Q[k * 16 + j]);
                }
                bad += !(fabs(C[i * 16 + j] - sum) <= 18 * U32 * mag);
            }
    }
    CHECKF(bad == 0, "%d entries of the AVX2 16x16 product off", bad);
}

static void test_forward_bounded(test_rng *rng)
{
    /* Non-negative weights and input: no cancellation, so the absolute-value forward equals
     * the forward and the bound above is tight (about 1e-5 relative): it would see any wrong
     * index, transpose or term. The window-mean flag makes signs mixed again, so with it the
     * bound is loose; it is checked all the same. */
    forward_kernel kern[4];
    const int kernels = forward_kernels(kern);
    double worst = 0, worst_fast[4] = { 0 };
    for (int trial = 0; trial < 8; trial++) {
        uint32_t flags = trial & 1 ? UPF_MODEL_FLAG_WINDOW_MEAN : 0;
        upf__net_model *m = model_new(6, flags);
        model_random(rng, m, 0.0f, 0.12f);
        for (int n = 0; n < 40; n++) {
            float in[256], ref[256], fast[256];
            double want[256], mag[256];
            random_window(rng, in, 0.0f, 1.0f);
            upf__net_window_forward_ref(m, in, ref);
            forward_f64(m, in, want, mag);
            int bad_ref = 0;
            for (int i = 0; i < 256; i++) {
                bad_ref += !(fabs(ref[i] - want[i]) <= forward_bound(m, mag[i]));
                if (!flags && mag[i] > 0)
                    worst = fmax(worst, fabs(ref[i] - want[i]) / (U32 * mag[i]));
            }
            CHECKF(bad_ref == 0, "trial %d window %d: %d values of the reference beyond the "
                   "fp32 bound", trial, n, bad_ref);
            for (int k = 0; k < kernels; k++) {
                kern[k].forward(m, in, fast, 1);
                int bad = 0;
                for (int i = 0; i < 256; i++) {
                    bad += !(fabs(fast[i] - want[i]) <= forward_bound(m, mag[i]));
                    if (!flags && mag[i] > 0)
                        worst_fast[k] = fmax(worst_fast[k],
                                             fabs(fast[i] - want[i]) / (U32 * mag[i]));
                }
                CHECKF(bad == 0, "trial %d window %d: %d values of the %s forward beyond the "
                       "fp32 bound", trial, n, bad, kern[k].name);
            }
        }
        free(m);
    }
    printf("forward, non-negative weights: worst error %.2f u * magnitude (bound %.0f)", worst,
           1.25 * 6 * 33);
    for (int k = 0; k < kernels; k++)
        printf("; %s %.2f", kern[k].name, worst_fast[k]);
    printf("\n");
}

static void test_forward_mixed(test_rng *rng)
{
    /* Mixed signs and an active ReLU, the real case: weights in [-0.45, 0.45] keep the values
     * of order 1 through the six stages. Here the absolute-value bound is far from tight (signs
     * cancel), but it is rigorous; and a second check, relative to the window's largest
     * output, 2e-4 of it, is what fp32 gives in practice (errors ~ u * sqrt(terms) per stage,
     * grown by at most the stages' gain), and catches any wrong index. */
    forward_kernel kern[4];
    const int kernels = forward_kernels(kern);
    double worst_rel = 0;
    int relu_zeros = 0;
    for (int trial = 0; trial < 10; trial++) {
        uint32_t flags = trial & 1 ? UPF_MODEL_FLAG_WINDOW_MEAN : 0;
        upf__net_model *m = model_new(4 + trial % 7, flags);
        model_random(rng, m, -0.45f, 0.45f);
        for (int n = 0; n < 30; n++) {
            float in[256], ref[256], fast[256];
            double want[256], mag[256], vmax = 0;
            random_window(rng, in, trial < 6 ? 0.0f : -1.0f, 1.0f);
            upf__net_window_forward_ref(m, in, ref);
            forward_f64(m, in, want, mag);
            for (int i = 0; i < 256; i++)
                vmax = fmax(vmax, fabs(want[i]));
            for (int k = 0; k < kernels; k++) {
                kern[k].forward(m, in, fast, 1);
                int bad = 0;
                for (int i = 0; i < 256; i++) {
                    double e = fmax(fabs(ref[i] - want[i]), fabs(fast[i] - want[i]));
                    bad += !(e <= forward_bound(m, mag[i])) || !(e <= 2e-4 * vmax);
                    if (vmax > 0)
                        worst_rel = fmax(worst_rel, e / vmax);
                    relu_zeros += k == 0 && want[i] == 0;
                }
                CHECKF(bad == 0, "trial %d window %d: %d values off (%s forward)", trial, n, bad,
                       kern[k].name);
            }
            CHECK(vmax > 1e-3); /* the weights keep the signal alive */
        }
        free(m);
    }
    printf("forward, mixed weights: worst error %.3g of the window's largest output\n", worst_rel);
    (void)relu_zeros;
}

static void test_fast_vs_ref(test_rng *rng)
{
    /* Fresh random batches through each fast forward, window by window against the reference.
     * The tolerance is the fp32 bound of each against the exact value (both within it), twice.
     * With the project's ISO C build the plain C one is bit-identical to the reference, which
     * is reported; the AVX2 one rounds each multiply-add once (FMA), so fewer are. */
    forward_kernel kern[4];
    const int kernels = forward_kernels(kern);
    for (int k = 0; k < kernels; k++) {
        long identical = 0, total = 0;
        int bad = 0;
        for (int trial = 0; trial < 6; trial++) {
            upf__net_model *m = model_new(10 - trial, trial % 2 ? UPF_MODEL_FLAG_WINDOW_MEAN : 0);
            model_random(rng, m, -0.5f, 0.5f);
            int count = test_rand_int(rng, 1, 40);
            float *in = malloc(sizeof(float) * 256 * (size_t)count);
            float *out = malloc(sizeof(float) * 256 * (size_t)count);
            for (int w = 0; w < count; w++)
                random_window(rng, in + 256 * w, -0.5f, 1.5f);
            kern[k].forward(m, in, out, count);
            for (int w = 0; w < count; w++) {
                float ref[256];
                double want[256], mag[256];
                upf__net_window_forward_ref(m, in + 256 * w, ref);
                forward_f64(m, in + 256 * w, want, mag);
                for (int i = 0; i < 256; i++) {
                    float f = out[256 * w + i];
                    bad += !(fabs((double)f - ref[i]) <= 2 * forward_bound(m, mag[i]));
                    identical += memcmp(&f, &ref[i], sizeof f) == 0;
                    total++;
                }
            }
            free(in);
            free(out);
            free(m);
        }
        CHECKF(bad == 0, "%s forward: %d values off the reference", kern[k].name, bad);
        printf("%s forward vs reference: %ld of %ld values bit-identical\n", kern[k].name,
               identical, total);

        /* count 0 touches nothing */
        upf__net_model *m = model_identity(6);
        float sentinel = 12345.0f;
        kern[k].forward(m, NULL, &sentinel, 0);
        CHECK(sentinel == 12345.0f);
        free(m);
    }
    if (kernels == 1)
        printf("forward: no SIMD entry for this CPU (the plain C one only)\n");

    /* in == out is allowed for the reference */
    upf__net_model *m = model_identity(6);
    float w[256], copy[256];
    random_window(rng, w, 0.0f, 1.0f);
    memcpy(copy, w, sizeof w);
    upf__net_window_forward_ref(m, w, w);
    CHECK(memcmp(w, copy, sizeof w) == 0); /* identity: output = input, exactly */
    free(m);
}

static void test_window_mean(test_rng *rng)
{
    /* With the flag, a flat window gives exactly zero (the mean is removed), whatever the
     * weights (0.375 is a value whose 256-term fp32 sum and mean are exact); without it, the same model gives non-zero detail. And the flag means stage 1
     * sees 4 * (x - mean): an identity model outputs that after stage 1's ReLU,
     * max(4 * (x - mean), 0), which the later identity stages keep. */
    upf__net_model *m = model_new(6, UPF_MODEL_FLAG_WINDOW_MEAN);
    model_random(rng, m, -0.45f, 0.45f);
    float flat[256], out[256];
    for (int i = 0; i < 256; i++)
        flat[i] = 0.375f;
    upf__net_window_forward_ref(m, flat, out);
    int nonzero = 0;
    for (int i = 0; i < 256; i++)
        nonzero += out[i] != 0.0f;
    CHECK_EQ_INT(nonzero, 0);
    forward_kernel kern[4];
    for (int k = 0, kernels = forward_kernels(kern); k < kernels; k++) {
        kern[k].forward(m, flat, out, 1);
        nonzero = 0;
        for (int i = 0; i < 256; i++)
            nonzero += out[i] != 0.0f;
        CHECKF(nonzero == 0, "%s forward: %d non-zero values of a flat window", kern[k].name,
               nonzero);
    }
    m->flags = 0;
    upf__net_window_forward_ref(m, flat, out);
    nonzero = 0;
    for (int i = 0; i < 256; i++)
        nonzero += out[i] != 0.0f;
    CHECK(nonzero > 0);
    free(m);

    upf__net_model *id = model_identity(6);
    id->flags = UPF_MODEL_FLAG_WINDOW_MEAN;
    float in[256];
    random_window(rng, in, 0.0f, 1.0f);
    double mean = 0;
    for (int i = 0; i < 256; i++)
        mean += in[i];
    mean /= 256;
    upf__net_window_forward_ref(id, in, out);
    int off = 0;
    for (int i = 0; i < 256; i++)
        off += !(fabs(out[i] - fmax(4.0 * (in[i] - mean), 0.0)) <= 1e-5);
    CHECK_EQ_INT(off, 0);
    free(id);
}

/* ---- model files --------------------------------------------------------------------------- */

/* CRC-32 (ISO-HDLC) with a table, written here apart from the library's bitwise one. */
static uint32_t crc32_table_version(const unsigned char *p, size_t n)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

/* Recomputes the checksum after an edit, so the loader gets past it to the field under test. */
static void fix_crc(unsigned char *buf, size_t size)
{
    put32(buf + size - 4, crc32_table_version(buf, size - 4));
}

static upf_result try_load(upf_context *ctx, const void *data, size_t size)
{
    upf_models *set = upf_models_load(ctx, data, size);
    if (set) {
        upf_models_destroy(&set);
        return UPF_OK;
    }
    return upf_context_last_error(ctx, NULL);
}

static unsigned char *write_file(upf_context *ctx, upf__net_model **models, int count,
                                 size_t *size)
{
    *size = upf__net_file_size((const upf__net_model *const *)models, count);
    unsigned char *buf = malloc(*size);
    CHECK_OK(ctx, upf__net_write(ctx, (const upf__net_model *const *)models, count, buf, *size));
    return buf;
}

static void test_crc(test_rng *rng)
{
    CHECK_EQ_INT(upf__crc32("123456789", 9), 0xcbf43926u); /* the standard check value */
    CHECK_EQ_INT(upf__crc32("", 0), 0);
    unsigned char buf[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = (unsigned char)test_rand_u32(rng);
    CHECK_EQ_INT(upf__crc32(buf, sizeof buf), crc32_table_version(buf, sizeof buf));
}

static void test_loader(test_rng *rng)
{
    upf_context *ctx = test_context(1);
    /* A valid file of two models: step 6 (provenance "ab"), step 9 with the window-mean flag. */
    upf__net_model *models[2] = { model_new(6, 0), model_new(9, UPF_MODEL_FLAG_WINDOW_MEAN) };
    model_random(rng, models[0], -1, 1);
    model_random(rng, models[1], -1, 1);
    strcpy(models[0]->provenance, "ab");
    strcpy(models[1]->provenance, "data=scene:v1\nseed=7\tloss=l1 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    size_t size;
    unsigned char *good = write_file(ctx, models, 2, &size);
    const size_t m0 = 16, p0 = m0 + 16, w0 = p0 + 2, m1 = w0 + 12288;
    const size_t p1 = m1 + 16, w1 = p1 + strlen(models[1]->provenance), crc = w1 + 12288;
    CHECK_EQ_INT(size, crc + 4);
    CHECK_OK(ctx, try_load(ctx, good, size));
    unsigned char *b = malloc(size + 8);

    /* Every truncation is refused as such, and names the part it cuts. */
    int not_truncated = 0;
    for (size_t n = 1; n < size; n++) {
        upf_result r = try_load(ctx, good, n);
        const char *msg = "";
        upf_context_last_error(ctx, &msg);
        not_truncated += r != UPF_ERROR_BAD_DATA || !strstr(msg, "truncated");
    }
    CHECK_EQ_INT(not_truncated, 0);
    CHECK_FAILS(ctx, try_load(ctx, good, 10), UPF_ERROR_BAD_DATA, "ends at byte 10, inside the "
                "file header (bytes 0..15)");
    CHECK_FAILS(ctx, try_load(ctx, good, 20), UPF_ERROR_BAD_DATA, "inside model 0's header");
    CHECK_FAILS(ctx, try_load(ctx, good, p0 + 1), UPF_ERROR_BAD_DATA,
                "inside model 0's provenance text");
    CHECK_FAILS(ctx, try_load(ctx, good, w1 + 100), UPF_ERROR_BAD_DATA,
                "inside model 1's weights");
    CHECK_FAILS(ctx, try_load(ctx, good, size - 1), UPF_ERROR_BAD_DATA, "inside the checksum");
    CHECK_FAILS(ctx, try_load(ctx, good, 0), UPF_ERROR_BAD_DATA, "empty");
    CHECK_FAILS(ctx, try_load(ctx, NULL, size), UPF_ERROR_INVALID_ARGUMENT, "data is NULL");
    CHECK(upf_models_load(NULL, good, size) == NULL);

    /* Trailing bytes. */
    memcpy(b, good, size);
    b[size] = 0;
    CHECK_FAILS(ctx, try_load(ctx, b, size + 1), UPF_ERROR_BAD_DATA, "trailing bytes");

    /* Magic, version, count. */
    memcpy(b, good, size);
    memcpy(b, "\x89PNG\r\n\x1a\n", 8);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "not a model file: bytes 0..7 "
                "are 89 50 4e 47 0d 0a 1a 0a");
    memcpy(b, "UPFX", 4);
    CHECK_FAILS(ctx, try_load(ctx, b, 4), UPF_ERROR_BAD_DATA, "not a model file");
    memcpy(b, good, size);
    put32(b + 8, 3);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "byte 8: model file version 3; "
                "expected 1..2");
    put32(b + 8, 0);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "version 0");
    memcpy(b, good, size);
    put32(b + 12, 0);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "byte 12: model count 0; "
                "expected 1..7");
    put32(b + 12, 8);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "model count 8");
    put32(b + 12, 1); /* one model announced, two present: the second is trailing data */
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "trailing bytes");

    /* Wrong sizes. */
    static const struct { size_t at; unsigned char v; const char *msg; } sizes[] = {
        { 8, 5, "model 1: stages 5; expected 6" },
        { 9, 3, "model 1: matrices per stage 3; expected 4" },
        { 10, 8, "model 1: matrix rows 8; expected 16" },
        { 11, 15, "model 1: matrix columns 15; expected 16" } };
    for (int i = 0; i < 4; i++) {
        memcpy(b, good, size);
        b[m1 + sizes[i].at] = sizes[i].v;
        fix_crc(b, size);
        CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, sizes[i].msg);
    }

    /* Provenance length. */
    memcpy(b, good, size);
    put32(b + m0 + 12, 4097);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "model 0: provenance length "
                "4097 bytes; expected at most 4096");

    /* Checksum: one flipped weight bit. */
    memcpy(b, good, size);
    b[w0 + 777] ^= 0x01;
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "bad checksum");
    memcpy(b, good, size);
    b[crc] ^= 0x80;
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "bad checksum");

    /* Steps: out of range, duplicated. */
    memcpy(b, good, size);
    put32(b + m1, 3);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "model 1: step 3; expected 4..10");
    put32(b + m1, 11);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "model 1: step 11; expected");
    put32(b + m1, 6);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "model 1: step 6 again (model 0 "
                "has it)");

    /* Flags. */
    memcpy(b, good, size);
    put32(b + m0 + 4, 0x5);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "model 0: flags 0x5 has unknown "
                "bits 0x4; expected only 0x3 in a version 1 file (the Lanczos bases and no-SMAA need "
                "version 2)");
    put32(b + m0 + 4, 0x80000000u);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "unknown bits 0x80000000");

    /* Provenance text: NUL, control characters, bad UTF-8. Model 0's text is 2 bytes at p0;
     * model 1's is longer, at p1. */
    static const struct { size_t at; const char *bytes; int n; size_t bad; const char *msg; }
    texts[] = {
        { 1, "\0", 1, 1, "provenance byte 1 (0x00) is NUL" },
        { 0, "\x01", 1, 0, "provenance byte 0 (0x01) is a control character" },
        { 1, "\x7f", 1, 1, "(0x7f) is a control character" },
        { 1, "\x1b", 1, 1, "(0x1b) is a control character" },
        { 5, "\xff", 1, 5, "is not a UTF-8 lead byte" },
        { 0, "\x80", 1, 0, "is not a UTF-8 lead byte" },
        { 0, "\xc0\x80", 2, 0, "is not a UTF-8 lead byte" },           /* overlong NUL */
        { 0, "\xe0\x80\x80", 3, 0, "overlong" },                        /* overlong 3-byte */
        { 0, "\xed\xa0\x80", 3, 0, "surrogate" },                       /* U+D800 */
        { 0, "\xf4\x90\x80\x80", 4, 0, "out-of-range" },                /* U+110000 */
        { 0, "\xc2\x85", 2, 0, "C1 control" },                          /* U+0085 */
        { 0, "\xc3\x28", 2, 0, "bad continuation" },
        { 34, "ab\xe2\x82", 4, 36, "cut short" } };             /* the text's last 4 bytes */
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        memcpy(b, good, size);
        memcpy(b + p1 + texts[i].at, texts[i].bytes, (size_t)texts[i].n);
        fix_crc(b, size);
        char needle[128];
        snprintf(needle, sizeof needle, "model 1: provenance byte %zu", texts[i].bad);
        CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, needle);
        CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, texts[i].msg);
    }
    CHECK_EQ_INT(strlen(models[1]->provenance), 38); /* the "cut short" case ends the text */

    /* NaN and Inf weights, named by model, stage, matrix, row and column. */
    {
        /* model 1, stage 3, matrix C, row 4, column 7 */
        size_t at = w1 + 2 * (size_t)((2 * 4 + 2) * 256 + 4 * 16 + 7);
        memcpy(b, good, size);
        put16(b + at, 0x7e00);
        fix_crc(b, size);
        char needle[160];
        snprintf(needle, sizeof needle, "byte %zu: model 1: stage 3 matrix C row 4 column 7 is NaN "
                 "(fp16 0x7e00)", at);
        CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, needle);
        /* model 0, stage 6, matrix D, row 15, column 15: -Inf */
        memcpy(b, good, size);
        put16(b + w0 + 12288 - 2, 0xfc00);
        fix_crc(b, size);
        CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA,
                    "model 0: stage 6 matrix D row 15 column 15 is Inf (fp16 0xfc00)");
        memcpy(b, good, size);
        put16(b + w0, 0x7c01); /* a signalling NaN pattern */
        fix_crc(b, size);
        CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA,
                    "model 0: stage 1 matrix A row 0 column 0 is NaN");
        /* the largest finite fp16 and subnormals load */
        memcpy(b, good, size);
        put16(b + w0, 0x7bff);
        put16(b + w0 + 2, 0x0001);
        fix_crc(b, size);
        upf_models *set = upf_models_load(ctx, b, size);
        CHECK(set != NULL);
        if (set) {
            CHECK(set->model[0].w[0][0][0] == 65504.0f);
            CHECK(set->model[0].w[0][0][1] == 0x1p-24f);
        }
        upf_models_destroy(&set);
    }

    /* The good file: every field read back. */
    upf_models *set = upf_models_load(ctx, good, size);
    CHECK(set != NULL);
    if (set) {
        CHECK_EQ_INT(upf_models_count(set), 2);
        upf_model_info info;
        CHECK_OK(ctx, upf_models_info(set, 1, &info));
        CHECK_EQ_INT(info.step, 9);
        CHECK_NEAR(info.ratio, 12.0 / 9.0, 1e-15);
        CHECK_EQ_INT(info.flags, UPF_MODEL_FLAG_WINDOW_MEAN);
        CHECK(strcmp(info.provenance, models[1]->provenance) == 0);
        CHECK_OK(ctx, upf_models_info(set, 0, &info));
        CHECK_EQ_INT(info.step, 6);
        CHECK(strcmp(info.provenance, "ab") == 0);
        CHECK(memcmp(set->model[0].w, models[0]->w, sizeof models[0]->w) == 0);
        CHECK(memcmp(set->model[1].w, models[1]->w, sizeof models[1]->w) == 0);
        CHECK_FAILS(ctx, upf_models_info(set, 2, &info), UPF_ERROR_INVALID_ARGUMENT,
                    "index 2; expected 0..1");
        CHECK_FAILS(ctx, upf_models_info(set, -1, &info), UPF_ERROR_INVALID_ARGUMENT, "index -1");
        CHECK_FAILS(ctx, upf_models_info(set, 0, NULL), UPF_ERROR_INVALID_ARGUMENT, "info is NULL");
        /* write(load(file)) is the file, byte for byte */
        const upf__net_model *list[2] = { &set->model[0], &set->model[1] };
        unsigned char *again = malloc(size);
        CHECK_OK(ctx, upf__net_write(ctx, list, 2, again, size));
        CHECK(memcmp(again, good, size) == 0);
        free(again);
    }
    upf_models_destroy(&set);
    CHECK(set == NULL);
    upf_models_destroy(&set);
    upf_models_destroy(NULL);
    CHECK_EQ_INT(upf_models_count(NULL), 0);
    CHECK(upf_models_info(NULL, 0, NULL) == UPF_ERROR_INVALID_ARGUMENT);

    /* A provenance of exactly 4096 bytes loads; the empty one too. */
    {
        upf__net_model *m = model_new(4, 0);
        memset(m->provenance, 'x', UPF_MODEL_PROVENANCE_MAX);
        m->provenance[UPF_MODEL_PROVENANCE_MAX] = '\0';
        upf__net_model *e = model_new(5, 0);
        upf__net_model *pair[2] = { m, e };
        size_t n;
        unsigned char *f = write_file(ctx, pair, 2, &n);
        CHECK_EQ_INT(n, 16 + 2 * (16 + 12288) + 4096 + 4);
        CHECK_OK(ctx, try_load(ctx, f, n));
        free(f);
        free(m);
        free(e);
    }

    free(b);
    free(good);
    free(models[0]);
    free(models[1]);
    upf_context_destroy(&ctx);
}

static void test_writer(test_rng *rng)
{
    upf_context *ctx = test_context(1);
    upf__net_model *a = model_new(4, 0), *c = model_new(7, 0);
    model_random(rng, a, -2, 2);
    model_random(rng, c, -2, 2);
    const upf__net_model *list[8] = { a, c, NULL };
    size_t size = upf__net_file_size(list, 2);
    unsigned char *buf = malloc(size);

    CHECK_OK(ctx, upf__net_write(ctx, list, 2, buf, size));
    CHECK(memcmp(buf, "UPFMODEL", 8) == 0);
    CHECK_EQ_INT(buf[8] | buf[9] << 8, 1);
    CHECK_EQ_INT(buf[12], 2);
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size - 1), UPF_ERROR_INVALID_ARGUMENT,
                "output buffer");
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 0, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "0 models; expected 1..7");
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 8, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "8 models");
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 3, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "model 2 is NULL");
    c->step = 4;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "models 0 and 1 both have step 4");
    c->step = 12;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "model 1: step 12");
    c->step = 7;
    c->flags = 0x20;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "unknown bits 0x20");
    c->flags = UPF_MODEL_FLAG_CUBIC_BASE | UPF_MODEL_FLAG_SQRT_LANCZOS_BASE;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "model 1: flags 0x6 set more than one of the cubic, sqrt-Lanczos and "
                "sRGB-Lanczos bases");
    c->flags = UPF_MODEL_FLAG_SRGB_LANCZOS_BASE | UPF_MODEL_FLAG_SQRT_LANCZOS_BASE;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "model 1: flags 0x14 set more than one");
    c->flags = 0;
    c->detail_strength = 4.5f;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "model 1: detail strength 4.5; expected 0..4");
    c->detail_strength = NAN;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "detail strength nan");
    c->detail_strength = -0.5f;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "detail strength -0.5");
    c->detail_strength = 1.0f;
    c->w[2][1][17] = 70000.0f; /* finite in fp32, Inf in fp16 */
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "model 1: stage 3 matrix B row 1 column 1 is 70000");
    c->w[2][1][17] = NAN;
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "expected a finite number");
    c->w[2][1][17] = 0.1f; /* not an fp16 value: rounded on writing */
    strcpy(c->provenance, "bell\a");
    CHECK_FAILS(ctx, upf__net_write(ctx, list, 2, buf, size), UPF_ERROR_INVALID_ARGUMENT,
                "provenance byte 4 (0x07) is a control character");
    strcpy(c->provenance, "ok");
    size = upf__net_file_size(list, 2);
    buf = realloc(buf, size);
    CHECK_OK(ctx, upf__net_write(ctx, list, 2, buf, size));
    upf_models *set = upf_models_load(ctx, buf, size);
    CHECK(set != NULL);
    if (set) {
        CHECK(set->model[1].w[2][1][17] == half_round(0.1f));
        CHECK(set->model[1].w[2][1][17] != 0.1f);
        CHECK(memcmp(set->model[0].w, a->w, sizeof a->w) == 0);
    }
    upf_models_destroy(&set);
    free(buf);
    free(a);
    free(c);
    upf_context_destroy(&ctx);
}

/* Version 2: a model with the sqrt-Lanczos base or a detail strength other than 1 makes the
 * writer use it (20-byte model headers, the strength as float32 at +16); such files load with
 * both, round-trip byte for byte, and are checked field by field. Version-1 files keep
 * strength 1. */
static void test_version2(test_rng *rng)
{
    upf_context *ctx = test_context(1);
    upf__net_model *models[2] = { model_new(6, UPF_MODEL_FLAG_SQRT_LANCZOS_BASE),
                                  model_new(4, UPF_MODEL_FLAG_WINDOW_MEAN) };
    model_random(rng, models[0], -1, 1);
    model_random(rng, models[1], -1, 1);
    strcpy(models[0]->provenance, "v2");
    models[1]->detail_strength = 0.625f;
    size_t size;
    unsigned char *good = write_file(ctx, models, 2, &size);
    const size_t m0 = 16, m1 = m0 + 20 + 2 + 12288, crc = m1 + 20 + 12288;
    CHECK_EQ_INT(size, crc + 4);
    CHECK_EQ_INT(good[8], 2);
    float f;
    uint32_t u = (uint32_t)good[m1 + 16] | (uint32_t)good[m1 + 17] << 8 |
                 (uint32_t)good[m1 + 18] << 16 | (uint32_t)good[m1 + 19] << 24;
    memcpy(&f, &u, sizeof f);
    CHECK(f == 0.625f);
    CHECK(memcmp(good + m0 + 20, "v2", 2) == 0); /* the provenance follows the 20 bytes */
    upf_models *set = upf_models_load(ctx, good, size);
    CHECK(set != NULL);
    if (set) {
        upf_model_info info;
        CHECK_OK(ctx, upf_models_info(set, 0, &info));
        CHECK_EQ_INT(info.flags, UPF_MODEL_FLAG_SQRT_LANCZOS_BASE);
        CHECK(info.detail_strength == 1.0);
        CHECK_OK(ctx, upf_models_info(set, 1, &info));
        CHECK(info.detail_strength == 0.625);
        CHECK(strcmp(info.provenance, "") == 0);
        /* load -> write gives the same bytes */
        const upf__net_model *again[2] = { &set->model[0], &set->model[1] };
        unsigned char *buf = malloc(size);
        CHECK_EQ_INT(upf__net_file_size(again, 2), size);
        CHECK_OK(ctx, upf__net_write(ctx, again, 2, buf, size));
        CHECK(memcmp(buf, good, size) == 0);
        free(buf);
    }
    upf_models_destroy(&set);
    char names[64];
    upf__model_flags_text(UPF_MODEL_FLAG_SQRT_LANCZOS_BASE | UPF_MODEL_FLAG_WINDOW_MEAN, names,
                          sizeof names);
    CHECK(strcmp(names, "window-mean,sqrt-lanczos-base") == 0);
    upf__model_flags_text(UPF_MODEL_FLAG_NO_SMAA, names, sizeof names);
    CHECK(strcmp(names, "no-smaa") == 0);
    upf__model_flags_text(UPF_MODEL_FLAG_SRGB_LANCZOS_BASE | UPF_MODEL_FLAG_NO_SMAA, names,
                          sizeof names);
    CHECK(strcmp(names, "no-smaa,srgb-lanczos-base") == 0);

    unsigned char *b = malloc(size);
    CHECK_FAILS(ctx, try_load(ctx, good, m1 + 18), UPF_ERROR_BAD_DATA, "inside model 1's header "
                "(bytes 12326..12345)");
    static const struct { float v; const char *msg; } bad[] = {
        { -0.25f, "byte 12342: model 1: detail strength -0.25; expected 0..4" },
        { 4.5f, "detail strength 4.5; expected 0..4" },
        { NAN, "detail strength nan" },
        { INFINITY, "detail strength inf" } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(b, good, size);
        memcpy(&u, &bad[i].v, sizeof u);
        put32(b + m1 + 16, u);
        fix_crc(b, size);
        CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, bad[i].msg);
    }
    memcpy(b, good, size); /* strength 0 (the base alone) and 4 are allowed */
    f = 0.0f;
    memcpy(&u, &f, sizeof u);
    put32(b + m1 + 16, u);
    fix_crc(b, size);
    CHECK_OK(ctx, try_load(ctx, b, size));
    memcpy(b, good, size);
    put32(b + m0 + 4, UPF_MODEL_FLAG_SQRT_LANCZOS_BASE | UPF_MODEL_FLAG_CUBIC_BASE);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "byte 20: model 0: flags 0x6 "
                "set more than one of the cubic, sqrt-Lanczos and sRGB-Lanczos bases");
    put32(b + m0 + 4, UPF_MODEL_FLAG_SRGB_LANCZOS_BASE | UPF_MODEL_FLAG_CUBIC_BASE);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "byte 20: model 0: flags 0x12 "
                "set more than one");
    put32(b + m0 + 4, 0x24);
    fix_crc(b, size);
    CHECK_FAILS(ctx, try_load(ctx, b, size), UPF_ERROR_BAD_DATA, "flags 0x24 has unknown bits "
                "0x20; expected only 0x1f in a version 2 file");
    put32(b + m0 + 4, UPF_MODEL_FLAG_NO_SMAA | UPF_MODEL_FLAG_SRGB_LANCZOS_BASE);
    fix_crc(b, size);
    CHECK_OK(ctx, try_load(ctx, b, size));
    put32(b + m0 + 4, UPF_MODEL_FLAG_NO_SMAA | UPF_MODEL_FLAG_SQRT_LANCZOS_BASE);
    fix_crc(b, size);
    CHECK_OK(ctx, try_load(ctx, b, size));
    free(b);
    free(good);

    /* Models that fit version 1 are written as version 1 (older readers read them). */
    models[1]->detail_strength = 1.0f;
    models[0]->flags = UPF_MODEL_FLAG_CUBIC_BASE;
    good = write_file(ctx, models, 2, &size);
    CHECK_EQ_INT(good[8], 1);
    CHECK_EQ_INT(size, 16 + 16 + 2 + 12288 + 16 + 12288 + 4);
    set = upf_models_load(ctx, good, size);
    CHECK(set && set->model[0].detail_strength == 1.0f && set->model[1].detail_strength == 1.0f);
    upf_models_destroy(&set);
    free(good);
    free(models[0]);
    free(models[1]);
    upf_context_destroy(&ctx);
}

static void test_default_models(void)
{
    upf_context *ctx = test_context(1);
    if (upf__default_models_size == 0) {
        CHECK(upf_models_default(ctx) == NULL);
        const char *msg = "";
        CHECK_EQ_INT(upf_context_last_error(ctx, &msg), UPF_ERROR_UNSUPPORTED);
        CHECK(strstr(msg, "this build has no built-in models") != NULL);
        printf("built-in models: none in this build\n");
    } else {
        upf_models *set = upf_models_default(ctx);
        CHECK(set != NULL);
        if (set) {
            CHECK_EQ_INT(upf_models_count(set), 7);
            int seen = 0;
            for (int i = 0; i < upf_models_count(set); i++) {
                upf_model_info info;
                CHECK_OK(ctx, upf_models_info(set, i, &info));
                seen |= 1 << info.step;
            }
            CHECK_EQ_INT(seen, 0x7f0); /* steps 4..10 */
        }
        printf("built-in models: %d\n", upf_models_count(set));
        upf_models_destroy(&set);
    }
    CHECK(upf_models_default(NULL) == NULL);
    upf_context_destroy(&ctx);
}

/* ---- model choice --------------------------------------------------------------------------- */

static int choose_step(const upf_models *set, int in_w, int in_h, int out_w, int out_h)
{
    return set->model[upf__models_choose(set, in_w, in_h, out_w, out_h)].step;
}

static void test_model_choice(void)
{
    upf_models *set = calloc(1, sizeof *set);
    static const int shuffled[7] = { 7, 4, 10, 6, 9, 5, 8 }; /* file order does not matter */
    set->count = 7;
    for (int i = 0; i < 7; i++)
        set->model[i].step = shuffled[i];
    /* ratio asked -> step chosen (ratio 12/step) */
    static const struct { int in, out, step; } cases[] = {
        { 10, 10, 10 },  /* 1.0  -> 1.2 (the smallest) */
        { 10, 12, 10 },  /* 1.2  -> 1.2 exactly */
        { 4, 5, 9 },     /* 1.25 -> 1.333 */
        { 3, 4, 9 },     /* 1.333 exactly */
        { 2, 3, 8 },     /* 1.5 */
        { 10, 17, 7 },   /* 1.7  -> 1.714 */
        { 7, 12, 7 },    /* 1.714 exactly */
        { 10, 20, 6 },   /* 2 */
        { 10, 21, 5 },   /* 2.1  -> 2.4 */
        { 5, 12, 5 },    /* 2.4 exactly */
        { 10, 29, 4 },   /* 2.9  -> 3 */
        { 10, 30, 4 },   /* 3 */
        { 10, 40, 4 },   /* 4    -> 3 (the largest; the detail map is resampled) */
        { 1920, 3840, 6 }, { 1536, 2048, 9 }, { 1280, 3840, 4 }, { 1000, 1001, 10 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int s = choose_step(set, cases[i].in, cases[i].in, cases[i].out, cases[i].out);
        CHECKF(s == cases[i].step, "%d -> %d: step %d, expected %d", cases[i].in, cases[i].out, s,
               cases[i].step);
    }
    /* The larger of the two axes' ratios decides. */
    CHECK_EQ_INT(choose_step(set, 100, 100, 120, 200), 6);
    CHECK_EQ_INT(choose_step(set, 100, 100, 200, 120), 6);
    CHECK_EQ_INT(choose_step(set, 100, 50, 150, 51), 8);
    /* Sets without every model: the smallest ratio that covers, else the largest there is. */
    set->count = 1;
    set->model[0].step = 6;
    CHECK_EQ_INT(choose_step(set, 10, 10, 10, 10), 6);
    CHECK_EQ_INT(choose_step(set, 10, 10, 30, 30), 6);
    set->count = 2;
    set->model[0].step = 10;
    set->model[1].step = 4;
    CHECK_EQ_INT(choose_step(set, 10, 10, 11, 11), 10);
    CHECK_EQ_INT(choose_step(set, 10, 10, 20, 20), 4);
    CHECK_EQ_INT(choose_step(set, 10, 10, 35, 35), 4);
    set->model[0].step = 8;
    set->model[1].step = 7;
    CHECK_EQ_INT(choose_step(set, 10, 10, 25, 25), 7);
    free(set);
}

/* ---- pass 4 ---------------------------------------------------------------------------------- */

static uint32_t pixel(int r, int g, int b, int a)
{
    return (uint32_t)r | (uint32_t)g << 10 | (uint32_t)b << 20 | (uint32_t)a << 30;
}

static uint32_t *frame_random(test_rng *rng, int w, int h)
{
    uint32_t *f = malloc(sizeof *f * (size_t)w * (size_t)h);
    for (int i = 0; i < w * h; i++)
        f[i] = pixel(test_rand_int(rng, 0, 1023), test_rand_int(rng, 0, 1023),
                     test_rand_int(rng, 0, 1023), test_rand_int(rng, 0, 3));
    return f;
}

/* The frame's luma at (x, y), edges repeated: what a window holds. */
static float luma_at(const uint32_t *f, int w, int h, int x, int y)
{
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
    y = y < 0 ? 0 : y >= h ? h - 1 : y;
    float r, g, b, a;
    upf_unpack_sqrt1010102(f[(size_t)y * w + x], &r, &g, &b, &a);
    return upf_luma(r, g, b);
}

/* docs/SPATIAL.md, "Geometry": detail pixel X is column X % 12 of window (X % 48) / 12 of
 * tile X / 48, whose block starts at 4s * tile + s * window; the window starts
 * floor((16 - s) / 2) before it. Returns the window's first input pixel and *col. */
static int window_origin(int X, int s, int *col)
{
    int tile = X / 48, window = (X % 48) / 12;
    *col = X % 12;
    return 4 * s * tile + s * window - (16 - s) / 2;
}

/* The library's detail map for `m` over a frame (stride in pixels, 0 = width). Unwritten
 * pixels would stay NaN. */
static float *detail_of(upf_context *ctx, const upf__net_model *m, const uint32_t *px, int w,
                        int h, size_t stride, upf__detail_map *map)
{
    size_t bytes = upf__detail_map_bytes(m->step, w, h);
    float *data = malloc(bytes);
    memset(data, 0xff, bytes);
    upf__detail_map_init(map, m->step, m->flags, w, h, data);
    size_t sb = upf__detail_scratch_bytes(upf_context_threads(ctx));
    void *scratch = malloc(sb);
    upf__sqrt_frame fr = { px, w, h, stride };
    CHECK_OK(ctx, upf__make_detail_map(ctx, m, &fr, map, scratch, sb));
    free(scratch);
    return data;
}

static void test_detail_geometry(test_rng *rng)
{
    /* The identity model's output is its input window, so the detail map is a copy of the
     * luma, rearranged exactly as the geometry says: every pixel is checked for equality. */
    upf_context *ctx = test_context(2);
    static const int sizes[][2] = { { 1, 1 }, { 5, 3 }, { 37, 29 }, { 97, 50 }, { 130, 7 } };
    for (int s = UPF_MODEL_STEP_MIN; s <= UPF_MODEL_STEP_MAX; s++) {
        upf__net_model *id = model_identity(s);
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int w = sizes[k][0], h = sizes[k][1];
            uint32_t *px = frame_random(rng, w, h);
            upf__detail_map map;
            float *d = detail_of(ctx, id, px, w, h, 0, &map);
            CHECK_EQ_INT(map.width, (12 * w + s - 1) / s);
            CHECK_EQ_INT(map.height, (12 * h + s - 1) / s);
            int wrong = 0;
            for (int Y = 0; Y < map.height; Y++)
                for (int X = 0; X < map.width; X++) {
                    int cx, cy;
                    int x0 = window_origin(X, s, &cx), y0 = window_origin(Y, s, &cy);
                    float want = luma_at(px, w, h, x0 + cx, y0 + cy);
                    wrong += d[(size_t)Y * map.width + X] != want;
                }
            CHECKF(wrong == 0, "step %d, %dx%d: %d detail pixels off", s, w, h, wrong);
            free(d);
            free(px);
        }
        free(id);
    }

    /* The pixel-copy model: each window's whole 12x12 block is the window's pixel (p, q),
     * row p and column q, which pins down which way round the window is read. A stride wider
     * than the frame changes nothing. */
    for (int s = UPF_MODEL_STEP_MIN; s <= UPF_MODEL_STEP_MAX; s++) {
        int p = test_rand_int(rng, 0, 15), q = test_rand_int(rng, 0, 15);
        upf__net_model *m = model_copy_pixel(s, p, q);
        int w = 61, h = 53;
        size_t stride = 70;
        uint32_t *px = frame_random(rng, w, h);
        uint32_t *padded = malloc(sizeof *padded * stride * (size_t)h);
        for (int y = 0; y < h; y++) {
            memcpy(padded + (size_t)y * stride, px + (size_t)y * w, sizeof *px * (size_t)w);
            for (size_t x = (size_t)w; x < stride; x++)
                padded[(size_t)y * stride + x] = 0x3fffffffu; /* white: must never be read */
        }
        upf__detail_map map;
        float *d = detail_of(ctx, m, padded, w, h, stride, &map);
        int wrong = 0;
        for (int Y = 0; Y < map.height; Y++)
            for (int X = 0; X < map.width; X++) {
                int cx, cy;
                int x0 = window_origin(X, s, &cx), y0 = window_origin(Y, s, &cy);
                wrong += d[(size_t)Y * map.width + X] != luma_at(px, w, h, x0 + q, y0 + p);
            }
        CHECKF(wrong == 0, "step %d, pixel (%d, %d): %d detail pixels off", s, p, q, wrong);
        free(d);

        /* A flat frame: the model outputs a constant, the detail is that constant everywhere. */
        for (int i = 0; i < w * h; i++)
            px[i] = pixel(700, 300, 100, 3);
        d = detail_of(ctx, m, px, w, h, 0, &map);
        float want = luma_at(px, w, h, 0, 0);
        wrong = 0;
        for (int i = 0; i < map.width * map.height; i++)
            wrong += d[i] != want;
        CHECK_EQ_INT(wrong, 0);
        free(d);
        free(padded);
        free(px);
        free(m);
    }
    upf_context_destroy(&ctx);
}

/* Bilinear sample of a plane of doubles at position `pos` (already in source pixels),
 * clamped to the edge: docs/SPATIAL.md's sampling, in float64. */
static void tap_f64(double pos, int size, int *i0, int *i1, double *f)
{
    if (pos < 0)
        pos = 0;
    if (pos > size - 1)
        pos = size - 1;
    *i0 = (int)floor(pos);
    *i1 = *i0 + 1 < size ? *i0 + 1 : *i0;
    *f = pos - *i0;
}

/* RGBA of sqrt-frame pixel (x, y) in float64. */
static void pixel_f64(const uint32_t *px, int w, int x, int y, double c[4])
{
    uint32_t p = px[(size_t)y * w + x];
    c[0] = (p & 1023) / 1023.0;
    c[1] = (p >> 10 & 1023) / 1023.0;
    c[2] = (p >> 20 & 1023) / 1023.0;
    c[3] = (p >> 30) / 3.0;
}

/* Catmull-Rom's weights for the pixels floor(u) - 1 .. floor(u) + 2 at t = u - floor(u), in
 * the polynomial form of Keys ("Cubic convolution interpolation for digital image processing",
 * IEEE TASSP 1981, a = -0.5), written independently of the library's kernel. */
static void catmull_rom_f64(double t, double wt[4])
{
    wt[0] = (-t * t * t + 2 * t * t - t) / 2;
    wt[1] = (3 * t * t * t - 5 * t * t + 2) / 2;
    wt[2] = (-3 * t * t * t + 4 * t * t + t) / 2;
    wt[3] = (t * t * t - t * t) / 2;
}

static int clamp_f64_index(int i, int size)
{
    return i < 0 ? 0 : i > size - 1 ? size - 1 : i;
}

/* Lanczos-3, sinc(x) sinc(x / 3) for |x| < 3 (Duchon 1979), written out independently of the
 * library's kernel: 3 sin(pi x) sin(pi x / 3) / (pi x)^2. */
static double lanczos3_f64(double x)
{
    const double pi = 3.14159265358979323846;
    if (x == 0.0)
        return 1.0;
    if (fabs(x) >= 3.0)
        return 0.0;
    return 3.0 * sin(pi * x) * sin(pi * x / 3.0) / (pi * pi * x * x);
}

/* The bases of the tests: 0 bilinear (no flag), 1 cubic, 2 sqrt Lanczos, 3 sRGB Lanczos. */
enum { BASE_BILINEAR, BASE_CUBIC, BASE_LANCZOS, BASE_SRGB, BASE_KINDS };
static uint32_t base_flags(int base)
{
    return base == BASE_CUBIC     ? UPF_MODEL_FLAG_CUBIC_BASE
           : base == BASE_LANCZOS ? UPF_MODEL_FLAG_SQRT_LANCZOS_BASE
           : base == BASE_SRGB    ? UPF_MODEL_FLAG_SRGB_LANCZOS_BASE
                                  : 0u;
}
static const char *base_note(int base)
{
    return base == BASE_CUBIC     ? ", cubic base"
           : base == BASE_LANCZOS ? ", sqrt-Lanczos base"
           : base == BASE_SRGB    ? ", sRGB-Lanczos base"
                                  : "";
}

/* The sRGB curve (IEC 61966-2-1:1999, 5.2 and 5.3), written out here in double. */
static double srgb_encode_f64(double l)
{
    return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}
static double srgb_decode_f64(double e)
{
    return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

/* The sRGB value frame code c stands for: b / 255 when c is the code of 8-bit sRGB value b
 * (the rounded 1023 sqrt(decode(b / 255)), in double here), else the curve at (c / 1023)^2. */
static double srgb_of_code_f64(int c)
{
    for (int b = 0; b < 256; b++)
        if ((int)floor(1023.0 * sqrt(srgb_decode_f64(b / 255.0)) + 0.5) == c)
            return b / 255.0;
    return srgb_encode_f64((c / 1023.0) * (c / 1023.0));
}

/* The base at output pixel (X, Y), sqrt-space RGB and alpha. Bilinear: the sqrt frame at
 * (X + 0.5) * W_in / W_out - 0.5, clamped to the edge. Cubic (UPF_MODEL_FLAG_CUBIC_BASE):
 * Catmull-Rom of the squared values over the 4x4 pixels around that position, edge pixels
 * repeated, clamped at 0, square root; alpha unsquared, clamped to [0, 1]. Sqrt Lanczos
 * (UPF_MODEL_FLAG_SQRT_LANCZOS_BASE): Lanczos-3 of the sqrt values over the 6x6 pixels around
 * it, weights normalised per axis, edge pixels repeated, colour not clamped, alpha clamped to
 * [0, 1]. sRGB Lanczos (UPF_MODEL_FLAG_SRGB_LANCZOS_BASE): the same taps on each channel's
 * sRGB value (srgb_of_code_f64), the sum e back to sqrt space as
 * sqrt(decode(e)), -sqrt(-e / 12.92) below 0. */
static void base_f64(const uint32_t *px, int w, int h, int ow, int oh, int X, int Y, int kind,
                     double base[4])
{
    const double ux = (X + 0.5) * w / ow - 0.5, uy = (Y + 0.5) * h / oh - 0.5;
    if (kind == BASE_LANCZOS || kind == BASE_SRGB) {
        const int ix = (int)floor(ux), iy = (int)floor(uy);
        double wx[6], wy[6], sx = 0, sy = 0, acc[4] = { 0, 0, 0, 0 };
        for (int i = 0; i < 6; i++) {
            sx += wx[i] = lanczos3_f64(ix - 2 + i - ux);
            sy += wy[i] = lanczos3_f64(iy - 2 + i - uy);
        }
        for (int j = 0; j < 6; j++)
            for (int i = 0; i < 6; i++) {
                double c[4];
                pixel_f64(px, w, clamp_f64_index(ix - 2 + i, w), clamp_f64_index(iy - 2 + j, h),
                          c);
                for (int ch = 0; kind == BASE_SRGB && ch < 3; ch++)
                    c[ch] = srgb_of_code_f64((int)lrint(c[ch] * 1023.0));
                for (int ch = 0; ch < 4; ch++)
                    acc[ch] += wy[j] / sy * wx[i] / sx * c[ch];
            }
        for (int ch = 0; ch < 3; ch++)
            base[ch] = kind != BASE_SRGB ? acc[ch]
                       : acc[ch] >= 0    ? sqrt(srgb_decode_f64(acc[ch]))
                                         : -sqrt(-acc[ch] / 12.92);
        base[3] = fmin(fmax(acc[3], 0.0), 1.0);
        return;
    }
    if (kind == BASE_BILINEAR) {
        int x0, x1, y0, y1;
        double fx, fy, c[4][4];
        tap_f64(ux, w, &x0, &x1, &fx);
        tap_f64(uy, h, &y0, &y1, &fy);
        pixel_f64(px, w, x0, y0, c[0]);
        pixel_f64(px, w, x1, y0, c[1]);
        pixel_f64(px, w, x0, y1, c[2]);
        pixel_f64(px, w, x1, y1, c[3]);
        for (int ch = 0; ch < 4; ch++)
            base[ch] = (1 - fy) * ((1 - fx) * c[0][ch] + fx * c[1][ch]) +
                       fy * ((1 - fx) * c[2][ch] + fx * c[3][ch]);
        return;
    }
    const int ix = (int)floor(ux), iy = (int)floor(uy);
    double wx[4], wy[4], acc[4] = { 0, 0, 0, 0 };
    catmull_rom_f64(ux - ix, wx);
    catmull_rom_f64(uy - iy, wy);
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
            double c[4];
            pixel_f64(px, w, clamp_f64_index(ix - 1 + i, w), clamp_f64_index(iy - 1 + j, h), c);
            for (int ch = 0; ch < 4; ch++)
                acc[ch] += wy[j] * wx[i] * (ch < 3 ? c[ch] * c[ch] : c[ch]);
        }
    for (int ch = 0; ch < 3; ch++)
        base[ch] = sqrt(fmax(acc[ch], 0.0));
    base[3] = fmin(fmax(acc[3], 0.0), 1.0);
}

/* Pass 4's output composition in float64, straight from docs/SPATIAL.md: the base (base_f64);
 * detail = bilinear map at (X + 0.5) * (W_in * 12 / s) / W_out - 0.5; o = max(base + detail,
 * 0)^2; then the sharpen, clamped at 0. `detail` NULL means zero. out: RGBA doubles. */
static void compose_f64(const uint32_t *px, int w, int h, const double *detail, int dw, int dh,
                        int s, int ow, int oh, double k, int kind, double *out)
{
    double *o = malloc(sizeof *o * 4 * (size_t)ow * (size_t)oh);
    double *L = malloc(sizeof *L * (size_t)ow * (size_t)oh);
    for (int Y = 0; Y < oh; Y++)
        for (int X = 0; X < ow; X++) {
            double base[4];
            base_f64(px, w, h, ow, oh, X, Y, kind, base);
            double det = 0;
            if (detail) {
                int a0, a1, b0, b1;
                double fa, fb;
                tap_f64((X + 0.5) * (w * 12.0 / s) / ow - 0.5, dw, &a0, &a1, &fa);
                tap_f64((Y + 0.5) * (h * 12.0 / s) / oh - 0.5, dh, &b0, &b1, &fb);
                det = (1 - fb) * ((1 - fa) * detail[(size_t)b0 * dw + a0] +
                                  fa * detail[(size_t)b0 * dw + a1]) +
                      fb * ((1 - fa) * detail[(size_t)b1 * dw + a0] + fa * detail[(size_t)b1 * dw + a1]);
            }
            double *q = o + 4 * ((size_t)Y * ow + X);
            for (int ch = 0; ch < 4; ch++) {
                double v = base[ch];
                if (ch < 3) {
                    v = fmax(v + det, 0.0);
                    v = v * v;
                }
                q[ch] = v;
            }
            L[(size_t)Y * ow + X] = 0.2126 * q[0] + 0.7152 * q[1] + 0.0722 * q[2];
        }
    for (int Y = 0; Y < oh; Y++)
        for (int X = 0; X < ow; X++) {
            int xl = X > 0 ? X - 1 : X, xr = X < ow - 1 ? X + 1 : X;
            int yu = Y > 0 ? Y - 1 : Y, yd = Y < oh - 1 ? Y + 1 : Y;
            double n = L[(size_t)Y * ow + xl] + L[(size_t)Y * ow + xr] + L[(size_t)yu * ow + X] +
                       L[(size_t)yd * ow + X];
            double sh = k * (1.25 * L[(size_t)Y * ow + X] - 0.3125 * n);
            const double *q = o + 4 * ((size_t)Y * ow + X);
            double *r = out + 4 * ((size_t)Y * ow + X);
            for (int ch = 0; ch < 3; ch++)
                r[ch] = fmax(q[ch] + sh, 0.0);
            r[3] = q[3];
        }
    free(o);
    free(L);
}

/* upf__compose_output into an RGBA32F image. */
static float *compose_lib(upf_context *ctx, const uint32_t *px, int w, int h,
                          const upf__detail_map *map, int ow, int oh, float k)
{
    float *out = malloc(sizeof *out * 4 * (size_t)ow * (size_t)oh);
    upf_image dst = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    upf__sqrt_frame fr = { px, w, h, 0 };
    size_t sb = upf__compose_scratch_bytes(upf_context_threads(ctx), w, map->width, ow);
    void *scratch = malloc(sb);
    CHECK_OK(ctx, upf__compose_output(ctx, &fr, map, &dst, k, scratch, sb));
    free(scratch);
    return out;
}

/* Largest |a - b| over RGBA. */
static double max_diff(const float *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static void test_sqrt_of_srgb_fast(void)
{
    /* The table's power against the formula in double over a sweep of [-0.5, 3] (the knee at
     * 0.04045, the table's end at 2, and the powf beyond included): within its documented
     * 2.6e-7 relative (reconstruct.h), and within 1e-6 of powf's upf__sqrt_of_srgb. */
    float *table = malloc(sizeof(float) * UPF_SRGB_POW_COUNT);
    upf__srgb_pow_table(table);
    double worst = 0;
    int bad = 0;
    for (int k = 0; k <= 3500000; k++) {
        const float e = -0.5f + (float)k * 1e-6f;
        const double want = e < 0 ? -sqrt(-(double)e / 12.92)
                            : e <= 0.04045f ? sqrt((double)e / 12.92)
                                            : pow(((double)e + 0.055) / 1.055, 1.2);
        const float got = upf__sqrt_of_srgb_fast(table, e);
        const double rel = fabs(got - want) / fmax(fabs(want), 1e-3);
        worst = fmax(worst, rel);
        bad += !(rel <= 2.7e-7) || !(fabs(got - upf__sqrt_of_srgb(e)) <= 1e-6);
    }
    CHECKF(bad == 0, "%d sums off the sRGB power (worst %.3g relative)", bad, worst);
    CHECK(isnan(upf__sqrt_of_srgb_fast(table, NAN)));
    CHECK(upf__sqrt_of_srgb_fast(table, 0.0f) == 0.0f);
    printf("sRGB power from the table: worst %.3g relative\n", worst);
    free(table);
}

static void test_base_simd(test_rng *rng)
{
    /* The AVX2 base rows (compose_base_avx2.c) against the C ones, bit for bit, for each kernel
     * base (and the sRGB base's sums, the direct store's), on random frames with widths that
     * are and are not multiples of 8, at strides wider than the frame, with sums beyond 2
     * (the power's C fallback) made by values of 1 only. */
    if (!(upf__cpu_detect() & UPF__CPU_X86_AVX2_FMA)) {
        printf("base rows: no AVX2 on this CPU (the C ones only)\n");
        return;
    }
    upf_context *ctx = test_context(1);
    long values = 0;
    int differ = 0;
    for (int trial = 0; trial < 48; trial++) {
        const int kind = 1 + trial % 3; /* cubic, sqrt Lanczos, sRGB Lanczos */
        const int w = test_rand_int(rng, 1, 70), h = test_rand_int(rng, 1, 20);
        const int ow = test_rand_int(rng, w, 4 * w), oh = test_rand_int(rng, h, 4 * h);
        const size_t stride = (size_t)w + (size_t)test_rand_int(rng, 0, 5);
        uint32_t *px = malloc(sizeof *px * stride * (size_t)h);
        for (size_t i = 0; i < stride * (size_t)h; i++)
            px[i] = trial % 8 == 7 ? pixel(1023, 1023, 1023, 3)
                                   : pixel(test_rand_int(rng, 0, 1023), test_rand_int(rng, 0, 1023),
                                           test_rand_int(rng, 0, 1023), test_rand_int(rng, 0, 3));
        const upf__sqrt_frame frame = { px, w, h, stride };
        void *mem = malloc(upf__base_cols_bytes(ow));
        upf__base_cols c = upf__base_cols_init(ctx, base_flags(kind), w, ow, mem);
        c.srgb_sums = kind == BASE_SRGB && trial % 2;
        upf__base_cols simd = c;
        c.cpu_flags = 0; /* the C rows */
        simd.cpu_flags = UPF__CPU_X86_AVX2_FMA;
        float *vrow = malloc(sizeof(float) * 4 * (size_t)w);
        float *a = malloc(sizeof(float) * 4 * (size_t)ow), *b = malloc(sizeof(float) * 4 * (size_t)ow);
        for (int y = 0; y < oh; y++) {
            upf__base_row(&frame, &c, oh, y, vrow, a);
            upf__base_row(&frame, &simd, oh, y, vrow, b);
            differ += memcmp(a, b, sizeof(float) * 4 * (size_t)ow) != 0;
            values += 4L * ow;
        }
        free(a);
        free(b);
        free(vrow);
        free(mem);
        free(px);
    }
    upf_context_destroy(&ctx);
    CHECKF(differ == 0, "%d base rows differ between C and AVX2", differ);
    printf("base rows, AVX2 vs C: %ld values, all bit-identical\n", values);
}

static void test_compose(test_rng *rng)
{
    /* Random frames, random detail maps, every kind of output size from 1x to 4x, against the
     * float64 formulas. The library works in fp32: a bilinear sample is exact to a few units
     * of 2^-24 of its [0, 1] inputs, the square to 2^-23 of values up to ~2, the sharpen sums
     * five lumas; 1e-5 is ten times the sum of those, and far below any wrong tap or weight. */
    upf_context *ctx = test_context(3);
    double worst = 0;
    for (int trial = 0; trial < 24; trial++) {
        int s = test_rand_int(rng, UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX);
        int w = test_rand_int(rng, 1, 40), h = test_rand_int(rng, 1, 30);
        int ow, oh;
        if (trial % 4 == 0) { /* the model's own ratio, when the size allows */
            ow = w * 12 / s;
            oh = h * 12 / s;
            ow = ow < w ? w : ow;
            oh = oh < h ? h : oh;
        } else {
            ow = test_rand_int(rng, w, 4 * w);
            oh = test_rand_int(rng, h, 4 * h);
        }
        float k = trial % 3 == 0 ? 0.0f : trial % 3 == 1 ? 1.0f : 2.0f * test_rand_float(rng);
        uint32_t *px = frame_random(rng, w, h);
        const int kind = trial % BASE_KINDS;
        upf__detail_map map;
        float *d = malloc(upf__detail_map_bytes(s, w, h));
        upf__detail_map_init(&map, s, base_flags(kind), w, h, d);
        double *dd = malloc(sizeof *dd * (size_t)map.width * (size_t)map.height);
        for (int i = 0; i < map.width * map.height; i++)
            dd[i] = d[i] = 0.3f * test_rand_float(rng) - 0.15f;
        float *got = compose_lib(ctx, px, w, h, &map, ow, oh, k);
        double *want = malloc(sizeof *want * 4 * (size_t)ow * (size_t)oh);
        compose_f64(px, w, h, dd, map.width, map.height, s, ow, oh, k, kind, want);
        double e = max_diff(got, want, 4 * (size_t)ow * (size_t)oh);
        CHECKF(e <= 1e-5, "step %d, %dx%d -> %dx%d, sharpness %g%s: max error %g", s, w, h, ow,
               oh, (double)k, base_note(kind), e);
        worst = fmax(worst, e);
        free(want);
        free(got);
        free(dd);
        free(d);
        free(px);
    }
    printf("compose vs float64: worst error %.3g\n", worst);

    /* Exact cases. A black frame and W_out = W_in * 12 / s: output pixel X is detail pixel X,
     * squared, with no interpolation at all. */
    for (int s = UPF_MODEL_STEP_MIN; s <= UPF_MODEL_STEP_MAX; s++) {
        int w = 3 * s, h = 2 * s; /* whole-number detail grids */
        uint32_t *px = calloc((size_t)w * h, sizeof *px);
        upf__detail_map map;
        float *d = malloc(upf__detail_map_bytes(s, w, h));
        upf__detail_map_init(&map, s, 0, w, h, d);
        for (int i = 0; i < map.width * map.height; i++)
            d[i] = 0.1f + 0.8f * test_rand_float(rng);
        float *got = compose_lib(ctx, px, w, h, &map, map.width, map.height, 0.0f);
        int wrong = 0;
        for (int i = 0; i < map.width * map.height; i++)
            wrong += got[4 * i] != d[i] * d[i] || got[4 * i + 1] != d[i] * d[i] ||
                     got[4 * i + 2] != d[i] * d[i] || got[4 * i + 3] != 0.0f;
        CHECKF(wrong == 0, "step %d: %d pixels are not their detail pixel squared", s, wrong);
        /* a negative sum is clamped to 0 before squaring, not squared into a bright pixel */
        for (int i = 0; i < map.width * map.height; i++)
            d[i] = -d[i];
        free(got);
        got = compose_lib(ctx, px, w, h, &map, map.width, map.height, 0.0f);
        wrong = 0;
        for (int i = 0; i < map.width * map.height; i++)
            wrong += got[4 * i] != 0.0f || got[4 * i + 1] != 0.0f || got[4 * i + 2] != 0.0f;
        CHECK_EQ_INT(wrong, 0);
        free(got);
        free(d);
        free(px);
    }
    /* Ratio 1 with zero detail: each output pixel is its input pixel, squared, for every
     * base (Catmull-Rom and Lanczos-3 interpolate: at whole positions their weights are
     * exactly 0, 1, 0, ..., and sqrtf of a float's correctly rounded square is that float;
     * the sRGB base gives its code's sRGB value decoded, within 1e-6, below). */
    for (int kind = 0; kind < BASE_KINDS; kind++) {
        int w = 23, h = 11;
        uint32_t *px = frame_random(rng, w, h);
        upf__detail_map map;
        float *d = calloc(1, upf__detail_map_bytes(10, w, h));
        upf__detail_map_init(&map, 10, base_flags(kind), w, h, d);
        float *got = compose_lib(ctx, px, w, h, &map, w, h, 0.0f);
        int wrong = 0;
        for (int i = 0; i < w * h; i++) {
            float c[4];
            upf_unpack_sqrt1010102(px[i], &c[0], &c[1], &c[2], &c[3]);
            if (kind == BASE_SRGB) { /* the code's sRGB value, decoded */
                for (int ch = 0; ch < 3; ch++)
                    wrong += fabs(got[4 * i + ch] -
                                  srgb_decode_f64(srgb_of_code_f64(
                                      (int)(px[i] >> (10 * ch) & 1023u)))) > 1e-6;
                wrong += got[4 * i + 3] != c[3];
                continue;
            }
            wrong += got[4 * i] != c[0] * c[0] || got[4 * i + 1] != c[1] * c[1] ||
                     got[4 * i + 2] != c[2] * c[2] || got[4 * i + 3] != c[3];
        }
        CHECK_EQ_INT(wrong, 0);
        free(got);
        free(d);
        free(px);
    }
    upf_context_destroy(&ctx);
}

static void test_sharpen_3x3(void)
{
    /* A 3x3 frame at ratio 1 with no detail: grey 512/1023 around a yellow centre (1, 1, 0).
     * Squared: grey G = (512/1023)^2 = 262144/1046529 = 0.2504889974, luma Lg = G (the weights sum to 1); centre
     * (1, 1, 0), luma Lc = 0.2126 + 0.7152 = 0.9278.
     * Corners: the four neighbours (two of them the corner itself) are grey:
     *   k (1.25 G - 0.3125 * 4 G) = 0, so the corner stays G.
     * Edge middles: three grey neighbours and the centre:
     *   k (1.25 G - 0.3125 (3 G + Lc)) = 0.3125 k (G - Lc) = 0.3125 k (-0.6773110026)
     *   = -0.2116596883 k.
     * Centre: four grey neighbours: k (1.25 Lc - 1.25 G) = 1.25 k (Lc - G)
     *   = 1.25 k (0.6773110026) = 0.8466387532 k, added to R, G and B alike
     *   (B = 0 + 0.8466387532 k). */
    upf_context *ctx = test_context(1);
    uint32_t px[9];
    for (int i = 0; i < 9; i++)
        px[i] = pixel(512, 512, 512, 3);
    px[4] = pixel(1023, 1023, 0, 3);
    const double G = (512.0 / 1023) * (512.0 / 1023);
    CHECK_NEAR(G, 0.2504889974, 1e-10);
    const double edge = 0.3125 * (G - 0.9278), centre = 1.25 * (0.9278 - G);
    CHECK_NEAR(edge, -0.2116596883, 1e-10);
    CHECK_NEAR(centre, 0.8466387532, 1e-10);
    float detail[16] = { 0 }; /* step 10: 3 * 12 / 10 -> 4x4 */
    upf__detail_map map;
    upf__detail_map_init(&map, 10, 0, 3, 3, detail);
    CHECK_EQ_INT(map.width, 4);
    const float ks[3] = { 1.0f, 0.5f, 0.0f };
    for (int t = 0; t < 3; t++) {
        float *got = compose_lib(ctx, px, 3, 3, &map, 3, 3, ks[t]);
        double k = ks[t];
        for (int i = 0; i < 9; i++) {
            int x = i % 3, y = i / 3;
            const float *p = got + 4 * i;
            if (i == 4) {
                CHECK_NEAR(p[0], 1.0 + k * centre, 1e-6);
                CHECK_NEAR(p[1], 1.0 + k * centre, 1e-6);
                CHECK_NEAR(p[2], 0.0 + k * centre, 1e-6);
            } else if (x == 1 || y == 1) {
                for (int c = 0; c < 3; c++)
                    CHECK_NEAR(p[c], G + k * edge, 1e-6);
            } else {
                for (int c = 0; c < 3; c++)
                    CHECK_NEAR(p[c], G, 1e-6);
            }
            CHECK(p[3] == 1.0f);
        }
        free(got);
    }
    /* k = 4: the edge middles would go negative (G - 0.8466) and are clamped to 0. */
    float *got = compose_lib(ctx, px, 3, 3, &map, 3, 3, 4.0f);
    CHECK(got[4 * 1] == 0.0f && got[4 * 3 + 1] == 0.0f && got[4 * 5 + 2] == 0.0f);
    CHECK_NEAR(got[4 * 4 + 2], 4 * centre, 1e-6);
    free(got);
    upf_context_destroy(&ctx);
}

/* The detail map in float64: the geometry and the float64 forward, both written here. */
static double *detail_f64(const upf__net_model *m, const uint32_t *px, int w, int h, int *dw,
                          int *dh)
{
    int s = m->step;
    *dw = (12 * w + s - 1) / s;
    *dh = (12 * h + s - 1) / s;
    double *d = malloc(sizeof *d * (size_t)*dw * (size_t)*dh);
    for (int by = 0; by * 12 < *dh; by++)
        for (int bx = 0; bx * 12 < *dw; bx++) {
            int cx, cy;
            int x0 = window_origin(bx * 12, s, &cx), y0 = window_origin(by * 12, s, &cy);
            float win[256];
            double out[256];
            for (int r = 0; r < 16; r++)
                for (int c = 0; c < 16; c++)
                    win[r * 16 + c] = luma_at(px, w, h, x0 + c, y0 + r);
            forward_f64(m, win, out, NULL);
            for (int r = 0; r < 12 && by * 12 + r < *dh; r++)
                for (int c = 0; c < 12 && bx * 12 + c < *dw; c++)
                    d[(size_t)(by * 12 + r) * *dw + bx * 12 + c] = out[r * 16 + c];
        }
    return d;
}

static float *reconstruct_lib(upf_context *ctx, const upf__net_model *m, const uint32_t *px,
                              int w, int h, int ow, int oh, float k)
{
    float *out = malloc(sizeof *out * 4 * (size_t)ow * (size_t)oh);
    upf_image dst = { out, ow, oh, 0, UPF_FORMAT_RGBA32F };
    upf__sqrt_frame fr = { px, w, h, 0 };
    size_t sb = upf__reconstruct_scratch_bytes(upf_context_threads(ctx), m->step, w, h, ow);
    void *scratch = malloc(sb);
    CHECK_OK(ctx, upf__reconstruct(ctx, m, &fr, &dst, k, scratch, sb));
    free(scratch);
    return out;
}

static void test_reconstruct(test_rng *rng)
{
    upf_context *ctx = test_context(2);

    /* All-zero weights: no detail, the output is the bilinear upscale of the sqrt frame,
     * squared (sharpness 0), in any output format. */
    {
        upf__net_model *zero = model_new(6, 0);
        int w = 29, h = 17, ow = 61, oh = 40;
        uint32_t *px = frame_random(rng, w, h);
        float *got = reconstruct_lib(ctx, zero, px, w, h, ow, oh, 0.0f);
        double *want = malloc(sizeof *want * 4 * (size_t)ow * (size_t)oh);
        compose_f64(px, w, h, NULL, 0, 0, 6, ow, oh, 0.0, false, want);
        CHECK(max_diff(got, want, 4 * (size_t)ow * (size_t)oh) <= 1e-6);
        /* the same into 8-bit sRGB: each value is the float result encoded */
        uint8_t *b8 = malloc(4 * (size_t)ow * (size_t)oh);
        upf_image dst = { b8, ow, oh, 0, UPF_FORMAT_RGBA8_SRGB };
        upf__sqrt_frame fr = { px, w, h, 0 };
        size_t sb = upf__reconstruct_scratch_bytes(2, 6, w, h, ow);
        void *scratch = malloc(sb);
        CHECK_OK(ctx, upf__reconstruct(ctx, zero, &fr, &dst, 0.0f, scratch, sb));
        int wrong = 0;
        for (int i = 0; i < ow * oh; i++) {
            for (int c = 0; c < 3; c++)
                wrong += b8[4 * i + c] != upf_linear_to_srgb8(got[4 * i + c]);
            wrong += b8[4 * i + 3] != upf_unorm_from_float(got[4 * i + 3], 255);
        }
        CHECK_EQ_INT(wrong, 0);

        /* Bad sizes and arguments. */
        upf_image small = { b8, w - 1, h, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &fr, &small, 0.0f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "expected a ratio of 1 to 4 on each axis");
        upf_image big = { b8, 4 * w + 1, h, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &fr, &big, 0.0f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "ratio of 1 to 4");
        upf_image depth = { b8, ow, oh, 0, UPF_FORMAT_R32F };
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &fr, &depth, 0.0f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "destination image has format r32f");
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &fr, &dst, -0.5f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "sharpness -0.5");
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &fr, &dst, NAN, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "sharpness");
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &fr, &dst, 4.5f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "expected 0 (off) to 4");
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &fr, &dst, 1.0f, scratch, sb - 1),
                    UPF_ERROR_INVALID_ARGUMENT, "scratch of");
        CHECK_FAILS(ctx, upf__reconstruct(ctx, NULL, &fr, &dst, 1.0f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "model is NULL");
        upf__sqrt_frame nothing = { NULL, w, h, 0 };
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &nothing, &dst, 1.0f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "sqrt frame is NULL");
        upf__sqrt_frame narrow = { px, w, h, (size_t)w - 1 };
        CHECK_FAILS(ctx, upf__reconstruct(ctx, zero, &narrow, &dst, 1.0f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "stride");
        upf__detail_map wrong_map;
        upf__detail_map_init(&wrong_map, 6, 0, w + 1, h, (float *)scratch);
        CHECK_FAILS(ctx, upf__compose_output(ctx, &fr, &wrong_map, &dst, 1.0f, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "detail map");
        upf__detail_map_init(&wrong_map, 8, 0, w, h, (float *)scratch);
        CHECK_FAILS(ctx, upf__make_detail_map(ctx, zero, &fr, &wrong_map, scratch, sb),
                    UPF_ERROR_INVALID_ARGUMENT, "the detail map is for step 8, the model's step "
                    "is 6");
        free(scratch);
        free(b8);
        free(want);
        free(got);
        free(px);
        free(zero);
    }

    /* The whole pass against float64: a model of non-negative weights (the forward's error is
     * then within 1e-5 of each value, see test_forward_bounded) and one of mixed weights with
     * the window-mean flag (within 2e-4 of the largest detail, see test_forward_mixed); the
     * output adds the compose error (1e-5) to the detail error, squared near values <= ~2. */
    for (int t = 0; t < 8; t++) {
        int s = test_rand_int(rng, UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX);
        const int kind = t == 7   ? BASE_SRGB
                         : t == 6 ? BASE_LANCZOS
                         : t >= 4 ? BASE_CUBIC
                                  : BASE_BILINEAR;
        upf__net_model *m = model_new(s, (t & 1 ? UPF_MODEL_FLAG_WINDOW_MEAN : 0u) |
                                             base_flags(kind));
        /* the last one damped: the detail strength scales the float64 detail too */
        if (t == 7)
            m->detail_strength = 0.375f;
        if (t & 1)
            model_random(rng, m, -0.45f, 0.45f);
        else
            model_random(rng, m, 0.0f, 0.08f);
        int w = test_rand_int(rng, 8, 70), h = test_rand_int(rng, 8, 60);
        int ow = test_rand_int(rng, w, 4 * w), oh = test_rand_int(rng, h, 4 * h);
        float k = t < 2 || t >= 4 ? 1.0f : 0.0f;
        uint32_t *px = frame_random(rng, w, h);
        int dw, dh;
        double *dd = detail_f64(m, px, w, h, &dw, &dh);
        double dmax = 0;
        for (int i = 0; i < dw * dh; i++) {
            dd[i] *= m->detail_strength;
            dmax = fmax(dmax, fabs(dd[i]));
        }
        double *want = malloc(sizeof *want * 4 * (size_t)ow * (size_t)oh);
        compose_f64(px, w, h, dd, dw, dh, s, ow, oh, k, kind, want);
        float *got = reconstruct_lib(ctx, m, px, w, h, ow, oh, k);
        double e = max_diff(got, want, 4 * (size_t)ow * (size_t)oh);
        double tol = 1e-5 + 2 * (1 + dmax) * (t & 1 ? 2e-4 * dmax : 2e-5 * dmax) * (1 + 2.5 * k);
        CHECKF(e <= tol, "pass 4, step %d%s, %dx%d -> %dx%d: error %g > %g (largest detail %g)",
               s, base_note(kind), w, h, ow, oh, e, tol, dmax);
        printf("pass 4 vs float64, step %d%s, detail strength %g: error %.3g (tolerance %.3g)\n",
               s, base_note(kind), (double)m->detail_strength, e, tol);
        CHECK(dmax > 0.01); /* the detail is not negligible */
        free(got);
        free(want);
        free(dd);
        free(px);
        free(m);
    }
    upf_context_destroy(&ctx);
}

static int threads_hits;

static void counting_parallel_for(void *priv, upf_task_fn task, void *task_priv, int count)
{
    /* a host pool that runs the tasks in reverse, on workers 0..2 in turn */
    (void)priv;
    for (int i = count - 1; i >= 0; i--)
        task(task_priv, i, i % 3);
    threads_hits++;
}

static void test_threads(test_rng *rng)
{
    /* 1 worker, 3 of our pool's, and a host parallel-for running tasks in another order: the
     * same bits. */
    upf_context *c1 = test_context(1), *c3 = test_context(3);
    upf_context *host = upf_context_create(upf_context_params(
        .threads = 3, .parallel_for = counting_parallel_for));
    upf__net_model *m = model_new(7, UPF_MODEL_FLAG_WINDOW_MEAN);
    model_random(rng, m, -0.3f, 0.3f);
    int w = 150, h = 97, ow = 301, oh = 250;
    uint32_t *px = frame_random(rng, w, h);
    float *a = reconstruct_lib(c1, m, px, w, h, ow, oh, 1.0f);
    float *b = reconstruct_lib(c3, m, px, w, h, ow, oh, 1.0f);
    float *c = reconstruct_lib(host, m, px, w, h, ow, oh, 1.0f);
    size_t n = sizeof *a * 4 * (size_t)ow * (size_t)oh;
    CHECK(memcmp(a, b, n) == 0);
    CHECK(memcmp(a, c, n) == 0);
    CHECK(threads_hits >= 2);
    free(a);
    free(b);
    free(c);
    free(px);
    free(m);
    upf_context_destroy(&c1);
    upf_context_destroy(&c3);
    upf_context_destroy(&host);
}

/* ---- the command-line tool ------------------------------------------------------------------- */

#define TMP UPF_TEST_TMPDIR

#define CHECK_TOOL(code, needle, ...)                                                         \
    do {                                                                                      \
        int rc_ = test_run_tool_cmdline(__VA_ARGS__);                                                          \
        CHECKF(rc_ == (code) && strstr(test_tool_out(), (needle)) != NULL,                        \
               "upframe exit %d (expected %d), output lacks \"%s\":\n%s", rc_, (code),        \
               (needle), test_tool_out());                                                        \
    } while (0)

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, n, f) == n);
        fclose(f);
    }
}

static upf_models *load_path(upf_context *ctx, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static unsigned char buf[1 << 18];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return upf_models_load(ctx, buf, n);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Lays the model's 24 matrices out in a raw buffer as a foreign file might: `order` of A..D,
 * matrix-major or stage-major, each matrix transposed or not. */
static void lay_out(const upf__net_model *m, const char *order, int matrix_major, int transpose,
                    unsigned char *raw)
{
    for (int s = 0; s < 6; s++)
        for (int pos = 0; pos < 4; pos++) {
            int k = order[pos] - 'A';
            size_t index = matrix_major ? (size_t)pos * 6 + s : (size_t)s * 4 + pos;
            for (int r = 0; r < 16; r++)
                for (int c = 0; c < 16; c++) {
                    size_t e = index * 256 + (size_t)(transpose ? c * 16 + r : r * 16 + c);
                    put16(raw + 2 * e, upf_float_to_half(m->w[s][k][r * 16 + c]));
                }
        }
}

static void test_cli(test_rng *rng)
{
    if (mkdir(TMP, 0755) != 0 && errno != EEXIST) {
        CHECKF(0, "cannot create %s", TMP);
        return;
    }
    upf_context *ctx = test_context(1);
    upf__net_model *m = model_new(5, 0), *m2 = model_new(8, 0);
    model_random(rng, m, -1, 1);
    model_random(rng, m2, -1, 1);

    /* A foreign file: 100 bytes of junk, then the matrices matrix-major in order D B C A,
     * each transposed, then more junk. */
    enum { RAW = 12288 };
    unsigned char *raw = malloc(100 + RAW + 50);
    for (int i = 0; i < 100 + RAW + 50; i++)
        raw[i] = (unsigned char)test_rand_u32(rng);
    lay_out(m, "DBCA", 1, 1, raw + 100);
    memset(raw + 100 + RAW, 0xff, 50); /* NaNs just past the matrices */
    write_bytes(TMP "/raw.bin", raw, 100 + RAW + 50);
    CHECK_TOOL(0, "wrote", "model import '%s/raw.bin' --offset 100 --step 5 --order DBCA "
               "--matrix-major --transpose -o '%s/imp.upfm' --provenance 'seed=1'", TMP, TMP);
    upf_models *set = load_path(ctx, TMP "/imp.upfm");
    CHECK(set != NULL);
    if (set) {
        CHECK_EQ_INT(set->count, 1);
        CHECK_EQ_INT(set->model[0].step, 5);
        CHECK_EQ_INT(set->model[0].flags, 0);
        CHECK(memcmp(set->model[0].w, m->w, sizeof m->w) == 0);
        CHECK(strstr(set->model[0].provenance, "imported by upframe model import from raw.bin "
                     "at byte 100 (order DBCA, matrix-major, transposed)\nseed=1") != NULL);
    }
    upf_models_destroy(&set);
    /* The same with a hex offset and lower-case order. */
    CHECK_TOOL(0, "wrote", "model import '%s/raw.bin' --offset=0x64 --step=5 --order dbca "
               "--matrix-major --transpose -o '%s/imp_hex.upfm'", TMP, TMP);
    set = load_path(ctx, TMP "/imp_hex.upfm");
    CHECK(set && memcmp(set->model[0].w, m->w, sizeof m->w) == 0);
    upf_models_destroy(&set);
    /* Read with the wrong layout, the weights differ (the options matter). */
    CHECK_TOOL(0, "wrote", "model import '%s/raw.bin' --offset 100 --step 5 --order DBCA "
               "--matrix-major -o '%s/imp_wrong.upfm'", TMP, TMP);
    set = load_path(ctx, TMP "/imp_wrong.upfm");
    CHECK(set && memcmp(set->model[0].w, m->w, sizeof m->w) != 0);
    upf_models_destroy(&set);

    /* The default layout: stage-major, A B C D, as stored; with the window-mean flag. */
    lay_out(m2, "ABCD", 0, 0, raw);
    write_bytes(TMP "/raw2.bin", raw, RAW);
    CHECK_TOOL(0, "wrote", "model import '%s/raw2.bin' --offset 0 --step 8 --window-mean -o "
               "'%s/imp2.upfm'", TMP, TMP);
    set = load_path(ctx, TMP "/imp2.upfm");
    CHECK(set && memcmp(set->model[0].w, m2->w, sizeof m2->w) == 0 &&
          set->model[0].flags == UPF_MODEL_FLAG_WINDOW_MEAN);
    upf_models_destroy(&set);

    /* info */
    CHECK_TOOL(0, "model 0: step 5, ratio 2.4 (12/5), flags 0x0", "model info '%s/imp.upfm'", TMP);
    CHECK(strstr(test_tool_out(), "stage 6 D") != NULL);
    CHECK(strstr(test_tool_out(), "seed=1") != NULL);
    CHECK_TOOL(0, "flags 0x1 (window-mean)", "model info '%s/imp2.upfm'", TMP);
    /* both flags */
    CHECK_TOOL(0, "wrote", "model import '%s/raw2.bin' --offset 0 --step 8 --window-mean "
               "--cubic-base -o '%s/imp3.upfm'", TMP, TMP);
    CHECK_TOOL(0, "flags 0x3 (window-mean,cubic-base)", "model info '%s/imp3.upfm'", TMP);
    CHECK(strstr(test_tool_out(), "detail strength 1 (as trained)") != NULL);
    CHECK(strstr(test_tool_out(), "model file version 1") != NULL);
    /* the sqrt-Lanczos base and a detail strength (a version-2 file) */
    CHECK_TOOL(0, "wrote", "model import '%s/raw2.bin' --offset 0 --step 8 --sqrt-lanczos-base "
               "--detail-strength 0.5 -o '%s/imp4.upfm'", TMP, TMP);
    CHECK_TOOL(0, "flags 0x4 (sqrt-lanczos-base)", "model info '%s/imp4.upfm'", TMP);
    CHECK(strstr(test_tool_out(), "model file version 2") != NULL);
    CHECK(strstr(test_tool_out(), "detail strength 0.5 (the network's detail is scaled)") != NULL);
    CHECK_TOOL(0, "\"detail_strength\": 0.5", "model info '%s/imp4.upfm' --json", TMP);
    CHECK_TOOL(1, "exclude each other", "model import '%s/raw2.bin' --offset 0 --step 8 "
               "--sqrt-lanczos-base --cubic-base -o '%s/imp5.upfm'", TMP, TMP);
    CHECK_TOOL(1, "--detail-strength '5'; expected a number in 0..4", "model import '%s/raw2.bin' "
               "--offset 0 --step 8 --detail-strength 5 -o '%s/imp5.upfm'", TMP, TMP);
    CHECK_TOOL(0, "1 model", "model pack '%s/imp3.upfm' --detail-strength 0.25 -o "
               "'%s/imp5.upfm'", TMP, TMP);
    set = load_path(ctx, TMP "/imp5.upfm");
    CHECK(set && set->model[0].detail_strength == 0.25f &&
          set->model[0].flags == (UPF_MODEL_FLAG_WINDOW_MEAN | UPF_MODEL_FLAG_CUBIC_BASE) &&
          memcmp(set->model[0].w, m2->w, sizeof m2->w) == 0);
    upf_models_destroy(&set);

    /* pack, then info on the pack */
    CHECK_TOOL(0, "2 models, steps 5 8", "model pack '%s/imp.upfm' '%s/imp2.upfm' -o '%s/pack.upfm'",
               TMP, TMP, TMP);
    set = load_path(ctx, TMP "/pack.upfm");
    CHECK(set && set->count == 2 && set->model[0].step == 5 && set->model[1].step == 8 &&
          memcmp(set->model[1].w, m2->w, sizeof m2->w) == 0);
    upf_models_destroy(&set);
    CHECK_TOOL(0, "pack.upfm: 2 models", "model info '%s/pack.upfm'", TMP);
    CHECK(strstr(test_tool_out(), "model 1: step 8, ratio 1.5") != NULL);
    /* --steps keeps the models of the steps it names. */
    CHECK_TOOL(0, "1 model, step 8", "model pack '%s/pack.upfm' --steps 8,9 -o '%s/pack8.upfm'",
               TMP, TMP);
    set = load_path(ctx, TMP "/pack8.upfm");
    CHECK(set && set->count == 1 && set->model[0].step == 8 &&
          memcmp(set->model[0].w, m2->w, sizeof m2->w) == 0);
    upf_models_destroy(&set);
    /* --base gives every model that base, its other flags and weights kept. */
    CHECK_TOOL(0, "1 model", "model pack '%s/imp3.upfm' --base srgb-lanczos -o '%s/srgb.upfm'",
               TMP, TMP);
    set = load_path(ctx, TMP "/srgb.upfm");
    CHECK(set && set->model[0].flags == (UPF_MODEL_FLAG_WINDOW_MEAN |
                                         UPF_MODEL_FLAG_SRGB_LANCZOS_BASE) &&
          memcmp(set->model[0].w, m2->w, sizeof m2->w) == 0);
    upf_models_destroy(&set);
    CHECK_TOOL(0, "srgb-lanczos-base", "model info '%s/srgb.upfm'", TMP);
    CHECK_TOOL(0, "1 model", "model pack '%s/srgb.upfm' --base bilinear -o '%s/bil.upfm'", TMP,
               TMP);
    set = load_path(ctx, TMP "/bil.upfm");
    CHECK(set && set->model[0].flags == UPF_MODEL_FLAG_WINDOW_MEAN);
    upf_models_destroy(&set);
    CHECK_TOOL(1, "--base 'lanczos'; expected bilinear, cubic, sqrt-lanczos or srgb-lanczos",
               "model pack '%s/srgb.upfm' --base lanczos -o '%s/bad.upfm'", TMP, TMP);
    CHECK_TOOL(1, "exclude each other", "model import '%s/raw2.bin' --offset 0 --step 8 "
               "--srgb-lanczos-base --sqrt-lanczos-base -o '%s/bad.upfm'", TMP, TMP);
    CHECK_TOOL(2, "no model in the files has a step that --steps '6' names", "model pack "
               "'%s/pack.upfm' --steps 6 -o '%s/bad.upfm'", TMP, TMP);
    CHECK(!file_exists(TMP "/bad.upfm"));
    CHECK_TOOL(1, "--steps '3,5'; expected steps 4..10", "model pack '%s/pack.upfm' --steps 3,5 "
               "-o '%s/bad.upfm'", TMP, TMP);

    /* Bad input: exit 2, nothing written. */
    CHECK_TOOL(2, "both have step 5", "model pack '%s/imp.upfm' '%s/pack.upfm' -o '%s/bad.upfm'",
               TMP, TMP, TMP);
    CHECK(!file_exists(TMP "/bad.upfm"));
    CHECK_TOOL(2, "(12288 bytes) at offset 300 would run past its end (expected an offset of "
               "at most 150)", "model import '%s/raw.bin' --offset 300 --step 5 -o "
               "'%s/bad.upfm'", TMP, TMP);
    /* Issue 10: the largest offset does not wrap around into a small "up to byte" figure. */
    CHECK_TOOL(2, "at offset 18446744073709551615 would run past its end", "model import "
               "'%s/raw.bin' --offset 0xffffffffffffffff --step 5 -o '%s/bad.upfm'", TMP, TMP);
    CHECK(!strstr(test_tool_out(), "up to byte"));
    CHECK_TOOL(1, "is not a byte offset", "model import '%s/raw.bin' --offset 0x10000000000000000 "
               "--step 5 -o '%s/bad.upfm'", TMP, TMP);
    write_bytes(TMP "/one.bin", raw, 1);
    CHECK_TOOL(2, "the file is 1 byte, smaller than", "model import '%s/one.bin' --offset 0 "
               "--step 5 -o '%s/bad.upfm'", TMP, TMP);
    /* Plurals: one model is "1 model". */
    CHECK_TOOL(0, "(1 model, step 5)", "model pack '%s/imp.upfm' -o '%s/one.upfm'", TMP, TMP);
    CHECK_TOOL(0, "one.upfm: 1 model (model file version", "model info '%s/one.upfm'", TMP);
    /* Issue 10: a picture given as a model file is named as such, not measured against the
     * size limit of model files. */
    {
        static unsigned char png[2 << 20];
        memset(png, 0, sizeof png);
        memcpy(png, "\x89PNG\r\n\x1a\n", 8);
        write_bytes(TMP "/big.png", png, sizeof png);
    }
    CHECK_TOOL(2, "not a model file (it is a PNG image)", "model info '%s/big.png'", TMP);
    CHECK(!strstr(test_tool_out(), "expected at most"));
    CHECK_TOOL(2, "not a model file", "model info '%s/raw.bin'", TMP);
    /* A model file written under a picture's name: said, and done. */
    CHECK_TOOL(0, "note: ", "model pack '%s/imp.upfm' -o '%s/model.png'", TMP, TMP);
    CHECK(strstr(test_tool_out(), "is a model file, though its name ends like a PNG picture"));
    /* JSON: numbers as numbers. */
    CHECK_TOOL(0, "\"step\": 5, \"ratio\": 2.4, \"flags\": 0", "model info --json '%s/imp.upfm'",
               TMP);
    CHECK(strstr(test_tool_out(), "\"matrix\": \"D\", \"min\": ") != NULL);
    CHECK_TOOL(2, "is 12438 bytes", "model import '%s/raw.bin' --offset 99999 --step 5 -o "
               "'%s/bad.upfm'", TMP, TMP);
    /* offset 150: the last 50 bytes read are the 0xff NaNs: stage 6, matrix A (the last
     * stored, matrix-major order DBCA), transposed: stored element e = 25 * 256 + 231 -> ... */
    CHECK_TOOL(2, "is NaN (fp16 0xffff)", "model import '%s/raw.bin' --offset 150 --step 5 --order "
               "DBCA --matrix-major --transpose -o '%s/bad.upfm'", TMP, TMP);
    CHECK(strstr(test_tool_out(), "stage 6 matrix A") != NULL);
    CHECK_TOOL(2, "cannot open", "model import '%s/nothing.bin' --offset 0 --step 5 -o "
               "'%s/bad.upfm'", TMP, TMP);
    CHECK(!file_exists(TMP "/bad.upfm"));
    /* a damaged file */
    {
        FILE *f = fopen(TMP "/pack.upfm", "rb");
        unsigned char buf[40000];
        size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
        if (f)
            fclose(f);
        buf[5000] ^= 4;
        write_bytes(TMP "/damaged.upfm", buf, n);
        write_bytes(TMP "/short.upfm", buf, 30);
    }
    CHECK_TOOL(2, "bad checksum", "model info '%s/damaged.upfm'", TMP);
    CHECK_TOOL(2, "truncated", "model info '%s/short.upfm'", TMP);
    CHECK_TOOL(2, "damaged.upfm", "model pack '%s/imp.upfm' '%s/damaged.upfm' -o '%s/bad.upfm'",
               TMP, TMP, TMP);
    CHECK(!file_exists(TMP "/bad.upfm"));
    CHECK_TOOL(2, "cannot open", "model info '%s/nothing.upfm'", TMP);
    CHECK_TOOL(2, "", "model pack '%s/imp.upfm' -o '%s/no/such/dir/out.upfm'", TMP, TMP);

    /* Bad command lines: exit 1. */
    CHECK_TOOL(1, "--step", "model import '%s/raw.bin' --offset 100 -o '%s/bad.upfm'", TMP, TMP);
    CHECK_TOOL(1, "--step '11'", "model import '%s/raw.bin' --offset 100 --step 11 -o x", TMP);
    CHECK_TOOL(1, "--step '3'", "model import '%s/raw.bin' --offset 100 --step 3 -o x", TMP);
    CHECK_TOOL(1, "--order 'ABCA'", "model import '%s/raw.bin' --offset 100 --step 5 --order ABCA "
               "-o x", TMP);
    CHECK_TOOL(1, "--order 'ABC'", "model import '%s/raw.bin' --offset 1 --step 5 --order ABC -o x",
               TMP);
    CHECK_TOOL(1, "not a byte offset", "model import '%s/raw.bin' --offset 12x --step 5 -o x", TMP);
    CHECK_TOOL(1, "not a byte offset", "model import '%s/raw.bin' --offset -4 --step 5 -o x", TMP);
    CHECK_TOOL(1, "--offset N is needed", "model import '%s/raw.bin' --step 5 -o x", TMP);
    CHECK_TOOL(1, "no output file", "model import '%s/raw.bin' --offset 0 --step 5", TMP);
    CHECK_TOOL(1, "exclude each other", "model import '%s/raw.bin' --offset 0 --step 5 "
               "--stage-major --matrix-major -o x", TMP);
    CHECK_TOOL(1, "unknown option '--frobnicate'", "model import x --frobnicate");
    CHECK_TOOL(1, "no model files", "model pack -o '%s/bad.upfm'", TMP);
    CHECK_TOOL(1, "no output file", "model pack '%s/imp.upfm'", TMP);
    CHECK_TOOL(1, "give a model FILE or --builtin", "model info");
    CHECK_TOOL(1, "needs a subcommand", "model");
    CHECK_TOOL(1, "unknown subcommand 'eat'", "model eat");
    CHECK_TOOL(0, "usage: upframe model info", "model --help");
    CHECK(!file_exists(TMP "/bad.upfm"));

    /* The built-in set. */
    if (upf__default_models_size == 0)
        CHECK_TOOL(2, "this build has no built-in models", "model info --builtin");
    else
        CHECK_TOOL(0, "built-in models: 7 models", "model info --builtin");

    free(raw);
    free(m);
    free(m2);
    upf_context_destroy(&ctx);
}

int main(void)
{
    test_rng rng = test_rng_make("net");
    test_mat16(&rng);
    test_forward_bounded(&rng);
    test_forward_mixed(&rng);
    test_fast_vs_ref(&rng);
    test_window_mean(&rng);
    test_crc(&rng);
    test_loader(&rng);
    test_writer(&rng);
    test_version2(&rng);
    test_default_models();
    test_model_choice();
    test_detail_geometry(&rng);
    test_sqrt_of_srgb_fast();
    test_base_simd(&rng);
    test_compose(&rng);
    test_sharpen_3x3();
    test_reconstruct(&rng);
    test_threads(&rng);
    test_cli(&rng);
    return test_finish("net");
}
