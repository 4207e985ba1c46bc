/* net_infer.c: the network's window forward (DESIGN.md "The spatial engine", pass 4).
 *
 * Reads a model (net.h) and 16x16 windows of luma; writes the 16x16 network outputs. Each of
 * the six stages computes
 *
 *     Y <- ReLU(A * Y^T * B + C * Y^T * D)          (no ReLU after the sixth stage)
 *
 * as two products per term: T = Y^T * B, then A * T (and the same for C, D). With the model
 * flag UPF_MODEL_FLAG_WINDOW_MEAN, stage 1 sees 4 * (Y - mean(Y)) instead of Y
 * (research/calibration.md); the output means the same either way (detail to add).
 *
 * Two versions compute the same sums in the same order (every dot product from index 0 up,
 * starting from +0, the A and C terms summed apart and added last):
 *  - upf__net_window_forward_ref: triple loops, one output value at a time. The definition.
 *  - upf__net_windows_forward: the same arithmetic rearranged so the innermost loop runs along
 *    a contiguous 16-float row (row i of Y^T * B is sum_k Y[k][i] * (row k of B), an axpy per
 *    k), which GCC and Clang vectorise at -O2/-O3 without intrinsics. Explicit SIMD comes later
 *    and is tested against the reference the same way.
 * Without FMA contraction (ISO C mode, the project's default) the two agree bit for bit; the
 * tests allow for a contracting compiler all the same. */
#include <string.h>

#include "spatial/net.h"

#define N UPF_NET_DIM

static void window_mean_input(const float *in, float *y)
{
    /* sum in index order, then mean = sum / 256; y = 4 * (x - mean) */
    float sum = 0.0f;
    for (int i = 0; i < UPF_NET_WINDOW; i++)
        sum += in[i];
    float mean = sum / (float)UPF_NET_WINDOW;
    for (int i = 0; i < UPF_NET_WINDOW; i++)
        y[i] = (in[i] - mean) * UPF_NET_WINDOW_MEAN_SCALE;
}

/* ---- the reference ---------------------------------------------------------------------- */

void upf__net_window_forward_ref(const upf__net_model *model, const float *in, float *out)
{
    float y[UPF_NET_WINDOW], t1[UPF_NET_WINDOW], t2[UPF_NET_WINDOW];
    if (model->flags & UPF_MODEL_FLAG_WINDOW_MEAN)
        window_mean_input(in, y);
    else
        memcpy(y, in, sizeof y);

    for (int s = 0; s < UPF_NET_STAGES; s++) {
        const float *A = model->w[s][UPF_NET_A], *B = model->w[s][UPF_NET_B];
        const float *C = model->w[s][UPF_NET_C], *D = model->w[s][UPF_NET_D];
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
                if (s < UPF_NET_STAGES - 1)
                    z = z > 0.0f ? z : 0.0f;
                y[i * N + j] = z;
            }
        }
    }
    memcpy(out, y, sizeof y);
}

/* ---- the fast version ------------------------------------------------------------------- */

/* One stage on one window: y (read) -> out (written); y and out are different arrays. */
static void stage_fast(const float *restrict A, const float *restrict B, const float *restrict C,
                       const float *restrict D, const float *restrict y, float *restrict out,
                       int relu)
{
    float t1[UPF_NET_WINDOW], t2[UPF_NET_WINDOW];
    /* Row i of Y^T * B = sum over k of Y[k][i] * (row k of B): 16 axpys on 16-float rows. */
    for (int i = 0; i < N; i++) {
        float b[N] = { 0 }, d[N] = { 0 };
        for (int k = 0; k < N; k++) {
            const float yki = y[k * N + i];
            const float *restrict Bk = B + k * N;
            const float *restrict Dk = D + k * N;
            for (int j = 0; j < N; j++) {
                b[j] += yki * Bk[j];
                d[j] += yki * Dk[j];
            }
        }
        memcpy(t1 + i * N, b, sizeof b);
        memcpy(t2 + i * N, d, sizeof d);
    }
    /* Row i of A * T1 = sum over k of A[i][k] * (row k of T1); likewise C * T2. */
    for (int i = 0; i < N; i++) {
        float a[N] = { 0 }, c[N] = { 0 };
        for (int k = 0; k < N; k++) {
            const float aik = A[i * N + k], cik = C[i * N + k];
            const float *restrict T1k = t1 + k * N;
            const float *restrict T2k = t2 + k * N;
            for (int j = 0; j < N; j++) {
                a[j] += aik * T1k[j];
                c[j] += cik * T2k[j];
            }
        }
        float *restrict o = out + i * N;
        if (relu) {
            for (int j = 0; j < N; j++) {
                float z = a[j] + c[j];
                o[j] = z > 0.0f ? z : 0.0f;
            }
        } else {
            for (int j = 0; j < N; j++)
                o[j] = a[j] + c[j];
        }
    }
}

void upf__net_windows_forward(const upf__net_model *model, const float *in, float *out,
                              int count)
{
    float buf0[UPF_NET_WINDOW], buf1[UPF_NET_WINDOW];
    for (int w = 0; w < count; w++) {
        const float *x = in + (size_t)w * UPF_NET_WINDOW;
        const float *y = x;
        if (model->flags & UPF_MODEL_FLAG_WINDOW_MEAN) {
            window_mean_input(x, buf0);
            y = buf0;
        }
        for (int s = 0; s < UPF_NET_STAGES; s++) {
            const int last = s == UPF_NET_STAGES - 1;
            /* ping-pong between the two buffers; the last stage writes the output */
            float *dst = last ? out + (size_t)w * UPF_NET_WINDOW : (y == buf1 ? buf0 : buf1);
            stage_fast(model->w[s][UPF_NET_A], model->w[s][UPF_NET_B], model->w[s][UPF_NET_C],
                       model->w[s][UPF_NET_D], y, dst, !last);
            y = dst;
        }
    }
}
