/* net_infer.c: the network's window forward (docs/SPATIAL.md, "Pass 4").
 *
 * Reads a model (net.h) and 16x16 windows of luma; writes the 16x16 network outputs. Each of
 * the six stages computes
 *
 *     Y <- ReLU(A * Y^T * B + C * Y^T * D)          (no ReLU after the sixth stage)
 *
 * as two products per term: T = Y^T * B, then A * T (and the same for C, D). With the model
 * flag UPF_MODEL_FLAG_WINDOW_MEAN, stage 1 sees 4 * (Y - mean(Y)) instead of Y
 * (docs/SPATIAL.md, "Models"); the output means the same either way (detail to add).
 *
 * Two versions compute the same sums in the same order (every dot product from index 0 up,
 * starting from +0, the A and C terms summed apart and added last):
 *  - upf__net_window_forward_ref: triple loops, one output value at a time. The definition.
 *  - upf__net_windows_forward: the same arithmetic rearranged so that four output rows are
 *    summed side by side and the column loop reads contiguous 16-float rows, which GCC
 *    vectorises at -O2/-O3 without intrinsics (about 1.5x the reference's speed with SSE2;
 *    bench/bench_net.c).
 * Without FMA contraction (ISO C mode, the project's default) the two agree bit for bit; the
 * tests allow for a contracting compiler all the same. A third, explicit AVX2 + FMA version is
 * net_infer_avx2.c; upf__net_forward_for below picks the one a context's CPU runs. */
#include <string.h>

#include "spatial/net.h"

#define N UPF_NET_DIM

void upf__net_window_input(uint32_t flags, const float *in, float *y)
{
    if (!(flags & UPF_MODEL_FLAG_WINDOW_MEAN)) {
        memcpy(y, in, UPF_NET_WINDOW * sizeof(float));
        return;
    }
    /* sum in index order, then mean = sum / 256; y = 4 * (x - mean) */
    float sum = 0.0f;
    for (int i = 0; i < UPF_NET_WINDOW; i++)
        sum += in[i];
    float mean = sum / (float)UPF_NET_WINDOW;
    for (int i = 0; i < UPF_NET_WINDOW; i++)
        y[i] = (in[i] - mean) * UPF_NET_WINDOW_MEAN_SCALE;
}

/* ---- the reference ---------------------------------------------------------------------- */

void upf__net_stage_ref(const upf__net_model *model, int stage, const float *in, float *out)
{
    float y[UPF_NET_WINDOW], t1[UPF_NET_WINDOW], t2[UPF_NET_WINDOW];
    const float *A = model->w[stage][UPF_NET_A], *B = model->w[stage][UPF_NET_B];
    const float *C = model->w[stage][UPF_NET_C], *D = model->w[stage][UPF_NET_D];
    memcpy(y, in, sizeof y);
    /* T1 = Y^T * B and T2 = Y^T * D: (Y^T)[i][k] = Y[k][i]. */
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            float b = 0.0f, d = 0.0f;
            for (int k = 0; k < N; k++) {
                b += y[k * N + i] * B[k * N + j];
                d += y[k * N + i] * D[k * N + j];
            }
            t1[i * N + j] = b;
            t2[i * N + j] = d;
        }
    }
    /* Y = A * T1 + C * T2, then ReLU except after the last stage. */
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            float a = 0.0f, c = 0.0f;
            for (int k = 0; k < N; k++) {
                a += A[i * N + k] * t1[k * N + j];
                c += C[i * N + k] * t2[k * N + j];
            }
            float z = a + c;
            if (stage < UPF_NET_STAGES - 1)
                z = z > 0.0f ? z : 0.0f;
            out[i * N + j] = z;
        }
    }
}

void upf__net_window_forward_ref(const upf__net_model *model, const float *in, float *out)
{
    float y[UPF_NET_WINDOW];
    upf__net_window_input(model->flags, in, y);
    for (int s = 0; s < UPF_NET_STAGES; s++)
        upf__net_stage_ref(model, s, y, y);
    memcpy(out, y, sizeof y);
}

/* ---- the fast version ------------------------------------------------------------------- */

/* The two products of a stage, each computed four output rows at a time: for output column
 * j, the eight sums of rows i..i+3 (two terms each) run over k side by side, each from index
 * 0 up as in the reference. Along j the loads are contiguous 16-float rows (of B and D, then
 * of T1 and T2) and the other factor is one value per row, so the compiler vectorises the j
 * loop (four or eight columns per instruction) with eight accumulators in registers. Kept as
 * separate functions with restrict pointers: GCC 12 vectorises them so, and not when the two
 * loop nests and the ReLU share one body. */

/* T1 = Y^T * B and T2 = Y^T * D: T1[i][j] = sum_k Y[k][i] * B[k][j]. */
static void transpose_times(const float *restrict y, const float *restrict B,
                            const float *restrict D, float *restrict t1, float *restrict t2)
{
    for (int i = 0; i < N; i += 4) {
        for (int j = 0; j < N; j++) {
            float b0 = 0.0f, b1 = 0.0f, b2 = 0.0f, b3 = 0.0f;
            float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
            for (int k = 0; k < N; k++) {
                const float bkj = B[k * N + j], dkj = D[k * N + j];
                const float *yk = y + k * N + i; /* Y[k][i..i+3] */
                b0 += yk[0] * bkj;
                d0 += yk[0] * dkj;
                b1 += yk[1] * bkj;
                d1 += yk[1] * dkj;
                b2 += yk[2] * bkj;
                d2 += yk[2] * dkj;
                b3 += yk[3] * bkj;
                d3 += yk[3] * dkj;
            }
            t1[(i + 0) * N + j] = b0;
            t1[(i + 1) * N + j] = b1;
            t1[(i + 2) * N + j] = b2;
            t1[(i + 3) * N + j] = b3;
            t2[(i + 0) * N + j] = d0;
            t2[(i + 1) * N + j] = d1;
            t2[(i + 2) * N + j] = d2;
            t2[(i + 3) * N + j] = d3;
        }
    }
}

/* Z = A * T1 + C * T2: Z[i][j] = sum_k A[i][k] * T1[k][j] + sum_k C[i][k] * T2[k][j]. */
static void left_times(const float *restrict A, const float *restrict C,
                       const float *restrict t1, const float *restrict t2, float *restrict z)
{
    for (int i = 0; i < N; i += 4) {
        for (int j = 0; j < N; j++) {
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
            for (int k = 0; k < N; k++) {
                const float t1kj = t1[k * N + j], t2kj = t2[k * N + j];
                a0 += A[(i + 0) * N + k] * t1kj;
                c0 += C[(i + 0) * N + k] * t2kj;
                a1 += A[(i + 1) * N + k] * t1kj;
                c1 += C[(i + 1) * N + k] * t2kj;
                a2 += A[(i + 2) * N + k] * t1kj;
                c2 += C[(i + 2) * N + k] * t2kj;
                a3 += A[(i + 3) * N + k] * t1kj;
                c3 += C[(i + 3) * N + k] * t2kj;
            }
            z[(i + 0) * N + j] = a0 + c0;
            z[(i + 1) * N + j] = a1 + c1;
            z[(i + 2) * N + j] = a2 + c2;
            z[(i + 3) * N + j] = a3 + c3;
        }
    }
}

void upf__net_windows_forward(const upf__net_model *model, const float *in, float *out,
                              int count)
{
    /* Local arrays, so that the compiler can see that no store reaches the weights (a store
     * through `out` might, for all it knows). */
    float y[UPF_NET_WINDOW], t1[UPF_NET_WINDOW], t2[UPF_NET_WINDOW];
    for (int w = 0; w < count; w++) {
        const float *x = in + (size_t)w * UPF_NET_WINDOW;
        upf__net_window_input(model->flags, x, y);
        for (int s = 0; s < UPF_NET_STAGES; s++) {
            transpose_times(y, model->w[s][UPF_NET_B], model->w[s][UPF_NET_D], t1, t2);
            left_times(model->w[s][UPF_NET_A], model->w[s][UPF_NET_C], t1, t2, y);
            if (s < UPF_NET_STAGES - 1)
                for (int i = 0; i < UPF_NET_WINDOW; i++)
                    y[i] = y[i] > 0.0f ? y[i] : 0.0f;
        }
        memcpy(out + (size_t)w * UPF_NET_WINDOW, y, sizeof y);
    }
}

/* ---- the table -------------------------------------------------------------------------- */

upf__net_forward_fn upf__net_forward_for(unsigned cpu_flags)
{
#if defined(__wasm_simd128__)
    (void)cpu_flags; /* the web page's build: WebAssembly SIMD, the same sums bit for bit */
    return upf__net_windows_forward_wasm;
#endif
#if defined(UPF_HAVE_X86_AVX2)
    if (cpu_flags & UPF__CPU_X86_AVX2_FMA)
        return upf__net_windows_forward_avx2;
#endif
    (void)cpu_flags;
    return upf__net_windows_forward;
}

upf__mat16_fn upf__mat16_mul_for(unsigned cpu_flags)
{
#if defined(UPF_HAVE_X86_AVX2)
    if (cpu_flags & UPF__CPU_X86_AVX2_FMA)
        return upf__mat16_mul_avx2;
#endif
    (void)cpu_flags;
    return NULL;
}
