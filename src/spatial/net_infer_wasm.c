/* net_infer_wasm.c: the network's window forward with WebAssembly's 128-bit SIMD, the forward
 * the web page's build takes (web/, docs/WEB.md; net.h, upf__net_forward_for).
 *
 * Reads a model (net.h) and 16x16 windows of luma; writes the 16x16 network outputs, the
 * values of upf__net_windows_forward (net_infer.c) bit for bit: the same two products per
 * stage, T = Y^T * B (and D), then A * T1 + C * T2, four output rows at a time, each entry
 * summed over k from 0 up, starting from +0, the A and C terms summed apart and added last.
 * Here four output columns j..j+3 share one 4-lane register, each lane its own sum: every lane
 * does the scalar code's multiply, then add, each rounded (WebAssembly SIMD has no fused
 * multiply-add). Clang at -O2 does not vectorise the plain C loops (their innermost loop runs
 * over k), which made the detail pass about half of the page's time again.
 *
 * Built only where the compiler targets WebAssembly with -msimd128 (web/CMakeLists.txt);
 * elsewhere this file is empty. The browser test (tests/test_web.py) checks the page's upscale
 * and the engine's detail map against the plain C path bit for bit. */
#include "spatial/net.h"

#if defined(__wasm_simd128__)
#include <string.h>
#include <wasm_simd128.h>

#define N UPF_NET_DIM

/* P[i..i+3][:] = sum_k L(i + r, k) * R[k][:] for the two products of a term pair, L read as
 * l[(i + r) * li + k * lk]: (li, lk) = (1, N) for Y^T, (N, 1) for A and C. */
static void four_rows(const float *l1, const float *l2, int li, int lk, const float *R1,
                      const float *R2, int i, float *P1, float *P2)
{
    for (int j = 0; j < N; j += 4) {
        v128_t p1[4], p2[4];
        for (int r = 0; r < 4; r++)
            p1[r] = p2[r] = wasm_f32x4_splat(0.0f);
        for (int k = 0; k < N; k++) {
            const v128_t r1 = wasm_v128_load(R1 + k * N + j), r2 = wasm_v128_load(R2 + k * N + j);
            for (int r = 0; r < 4; r++) {
                const int at = (i + r) * li + k * lk;
                p1[r] = wasm_f32x4_add(p1[r], wasm_f32x4_mul(wasm_f32x4_splat(l1[at]), r1));
                p2[r] = wasm_f32x4_add(p2[r], wasm_f32x4_mul(wasm_f32x4_splat(l2[at]), r2));
            }
        }
        for (int r = 0; r < 4; r++) {
            wasm_v128_store(P1 + (i + r) * N + j, p1[r]);
            wasm_v128_store(P2 + (i + r) * N + j, p2[r]);
        }
    }
}

void upf__net_windows_forward_wasm(const upf__net_model *model, const float *in, float *out,
                                   int count)
{
    float y[UPF_NET_WINDOW], t1[UPF_NET_WINDOW], t2[UPF_NET_WINDOW];
    float a[UPF_NET_WINDOW], c[UPF_NET_WINDOW];
    for (int w = 0; w < count; w++) {
        upf__net_window_input(model->flags, in + (size_t)w * UPF_NET_WINDOW, y);
        for (int s = 0; s < UPF_NET_STAGES; s++) {
            const float *const *m = (const float *const[4]){ model->w[s][UPF_NET_A],
                model->w[s][UPF_NET_B], model->w[s][UPF_NET_C], model->w[s][UPF_NET_D] };
            for (int i = 0; i < N; i += 4) /* T1 = Y^T * B, T2 = Y^T * D */
                four_rows(y, y, 1, N, m[UPF_NET_B], m[UPF_NET_D], i, t1, t2);
            for (int i = 0; i < N; i += 4) /* A * T1 and C * T2 */
                four_rows(m[UPF_NET_A], m[UPF_NET_C], N, 1, t1, t2, i, a, c);
            for (int i = 0; i < UPF_NET_WINDOW; i++) {
                float z = a[i] + c[i];
                y[i] = s < UPF_NET_STAGES - 1 && !(z > 0.0f) ? 0.0f : z;
            }
        }
        memcpy(out + (size_t)w * UPF_NET_WINDOW, y, sizeof y);
    }
}
#endif
