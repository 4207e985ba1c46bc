/* net_infer_avx2.c: the network's window forward with x86-64 AVX2 and FMA3, the fast entry of
 * the forward table (net.h, upf__net_forward_for), for CPUs that have them.
 *
 * Reads a model (net.h) and 16x16 windows of luma; writes the 16x16 network outputs, the
 * values of upf__net_window_forward_ref (net_infer.c) up to rounding: each stage
 *
 *     Y <- ReLU(A * Y^T * B + C * Y^T * D)          (no ReLU after the sixth stage)
 *
 * is four 16x16x16 products, and a 16-float matrix row is two 8-float registers. Every
 * product here has the form P[i][:] = sum_k L(i, k) * R[k][:], with R a row-major 16x16
 * matrix and L read with strides:
 *
 *     T1 = Y^T * B:  L(i, k) = Y[k][i],  R = B      (T2 the same with D)
 *     A * T1:        L(i, k) = A[i][k],  R = T1     (C * T2 the same)
 *
 * so one kernel computes them all: four output rows at a time, eight accumulators, each
 * L(i, k) broadcast and multiplied into R's row k by one fused multiply-add. The sums run over
 * k from 0 up like the reference's, and the A and C terms are summed apart and added last, as
 * there; the one difference is that each a * b + c is rounded once (FMA) instead of twice, so
 * the results are within the reference's own fp32 error bound of the exact value
 * (tests/test_net.c checks both against a float64 forward), not bit-identical to it.
 *
 * The same kernel makes upf__mat16_mul_avx2, the trainer's product (tools/train/train_grad.c).
 *
 * Built with -mavx2 -mfma (src/CMakeLists.txt) on x86-64 only; the context takes it only on a
 * CPU that runs them (core/cpu.c). Elsewhere this file is empty. */
#include "spatial/net.h"

#if defined(UPF_HAVE_X86_AVX2)
#include <immintrin.h>
#include <string.h>

#define N UPF_NET_DIM

/* Rows i0..i0+3 of P = L * R (above); L(i, k) = l[i * li + k * lk]. */
static inline void product_rows4(const float *restrict l, int li, int lk,
                                 const float *restrict r, int i0, float *restrict p)
{
    __m256 acc[4][2];
    for (int i = 0; i < 4; i++)
        acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (int k = 0; k < N; k++) {
        const __m256 r0 = _mm256_loadu_ps(r + k * N), r1 = _mm256_loadu_ps(r + k * N + 8);
        for (int i = 0; i < 4; i++) {
            const __m256 v = _mm256_broadcast_ss(l + (i0 + i) * li + k * lk);
            acc[i][0] = _mm256_fmadd_ps(v, r0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(v, r1, acc[i][1]);
        }
    }
    for (int i = 0; i < 4; i++) {
        _mm256_storeu_ps(p + (i0 + i) * N, acc[i][0]);
        _mm256_storeu_ps(p + (i0 + i) * N + 8, acc[i][1]);
    }
}

static void product(const float *restrict l, int li, int lk, const float *restrict r,
                    float *restrict p)
{
    for (int i0 = 0; i0 < N; i0 += 4)
        product_rows4(l, li, lk, r, i0, p);
}

void upf__mat16_mul_avx2(const float *P, const float *Q, float *C, int add)
{
    if (!add) {
        product(P, N, 1, Q, C);
        return;
    }
    float t[UPF_NET_WINDOW];
    product(P, N, 1, Q, t);
    for (int i = 0; i < UPF_NET_WINDOW; i += 8)
        _mm256_storeu_ps(C + i, _mm256_add_ps(_mm256_loadu_ps(C + i), _mm256_loadu_ps(t + i)));
}

void upf__net_windows_forward_avx2(const upf__net_model *model, const float *in, float *out,
                                   int count)
{
    float y[UPF_NET_WINDOW], t1[UPF_NET_WINDOW], t2[UPF_NET_WINDOW];
    float a[UPF_NET_WINDOW], c[UPF_NET_WINDOW];
    for (int w = 0; w < count; w++) {
        const float *x = in + (size_t)w * UPF_NET_WINDOW;
        upf__net_window_input(model->flags, x, y);
        for (int s = 0; s < UPF_NET_STAGES; s++) {
            product(y, 1, N, model->w[s][UPF_NET_B], t1); /* T1 = Y^T * B */
            product(y, 1, N, model->w[s][UPF_NET_D], t2); /* T2 = Y^T * D */
            product(model->w[s][UPF_NET_A], N, 1, t1, a); /* A * T1 */
            product(model->w[s][UPF_NET_C], N, 1, t2, c); /* C * T2 */
            /* Y = A * T1 + C * T2, then ReLU (max with +0) except after the last stage. */
            const __m256 zero = _mm256_setzero_ps();
            for (int i = 0; i < UPF_NET_WINDOW; i += 8) {
                __m256 z = _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(c + i));
                if (s < UPF_NET_STAGES - 1)
                    z = _mm256_max_ps(z, zero);
                _mm256_storeu_ps(y + i, z);
            }
        }
        memcpy(out + (size_t)w * UPF_NET_WINDOW, y, sizeof y);
    }
}
#endif
