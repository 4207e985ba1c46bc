/* detail_fma.glsl: the detail pass's network on the shader cores in 4 x 4 blocks, the body of
 * detail_fp16.comp, which defines before including it:
 *   DT, DV4      the arithmetic's scalar and 4-vector types (float16_t, f16vec4)
 *   NET_T        the type of the weights in binding 10 (float16_t)
 *   GROUP        windows in flight at once (8): 16 * GROUP invocations a workgroup,
 *                16 / GROUP rounds per tile
 *   EXACT_PATCH  true: the patch's sqrt values rounded as the CPU divides (detail_common.glsl)
 * detail.comp (fp32) ran this body with GROUP 8 too, and was slower on the H200 than its own
 * 4 x 2 layout (416.5 against 359.2 us at 1280x720 -> 2560x1440), so it keeps that. Larger
 * blocks an invocation (8 x 4, 4 x 8, 8 x 8: fewer shared loads a multiply-add, fewer
 * invocations) and two barriers a stage instead of four (T1 and T2 in slots of their own,
 * the weights double-buffered) were slower too (docs/PERFORMANCE.md).
 * (CPU reference: src/spatial/detail.c and net_infer.c; docs/SPATIAL.md, "Pass 4".)
 *
 * 16 invocations a window, each computing a 4 x 4 block (rows i0..i0+3, columns j0..j0+3)
 * of each stage's products, its 32 sums in registers:
 *   T1 = Y^T B, T2 = Y^T D      T1[i][j] = sum_k Y[k][i] B[k][j]
 *   Z  = A T1 + C T2            Z[i][j]  = sum_k A[i][k] T1[k][j] + sum_k C[i][k] T2[k][j]
 * every sum from k = 0 up, as the CPU's, with fused multiply-adds (the CPU rounds each
 * product). The windows and the stage's weights (A and C transposed, so that a column is a
 * contiguous 4-vector) are in shared memory as 4-vectors: three 4-vector loads feed 32
 * multiply-adds. No ReLU after the sixth stage. The next stage's weights are read from
 * binding 10 into registers while a stage runs and stored to wts after the stage's last read
 * of it (behind the barrier that ends the stage's sums), so the load's latency hides behind
 * the stage's arithmetic (docs/PERFORMANCE.md, "The calls of 2026-12-03, 14:40-15:00 UTC"). */
#ifndef UPF_DETAIL_FMA_GLSL
#define UPF_DETAIL_FMA_GLSL

#include "detail_common.glsl"

#define THREADS (16 * GROUP)

layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 10, std430) readonly buffer Net { NET_T net[]; };

shared DV4 wts[4][64];        /* the stage's A^T, B, C^T, D: row k at [k * 4 .. k * 4 + 3] */
shared DV4 slot0[GROUP][64];  /* Y, then T1, then Z (= the next Y) of window group g */
shared DV4 slot1[GROUP][64];  /* T2 */
shared float partial[GROUP][16];

#define PER (1024 / THREADS) /* weights an invocation moves a stage */
void fetch_stage(uint tid, int stage, out NET_T v[PER])
{
    for (int r = 0; r < PER; r++)
        v[r] = net[uint(stage) * 1024u + tid + uint(r * THREADS)];
}

void store_stage(uint tid, NET_T v[PER])
{
    for (int r = 0; r < PER; r++) {
        uint e = tid + uint(r * THREADS);
        uint m = e >> 8u, t = e & 255u;
        /* A and C transposed: M^T[k][i] = M[i][k]. */
        uint at = (m == 0u || m == 2u) ? (t & 15u) * 16u + (t >> 4u) : t;
        wts[m][at >> 2u][at & 3u] = DT(v[r]);
    }
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    if (pc.network == 0u) {
        detail_zero_tile(tid, uint(THREADS));
        return;
    }
    detail_load_patch(tid, uint(THREADS), EXACT_PATCH);

    const int g = int(tid >> 4u), lane = int(tid & 15u);
    const int qi = lane >> 2, qj = lane & 3; /* rows 4 qi.., columns 4 qj.. */
    const bool mean_flag = (pc.flags & UPF_MODEL_FLAG_WINDOW_MEAN) != 0u;

    for (int round = 0; round < 16 / GROUP; round++) {
        const int wi = round * GROUP + g;
        barrier(); /* the patch is complete; the last round's outputs are read */
        /* The window's input: row `lane` of it per invocation (minus the window's mean,
         * times 4, for models with UPF_MODEL_FLAG_WINDOW_MEAN). */
        vec4 row[4];
        float sum = 0.0;
        for (int q = 0; q < 4; q++) {
            row[q] = vec4(window_input(wi, lane, 4 * q), window_input(wi, lane, 4 * q + 1),
                          window_input(wi, lane, 4 * q + 2), window_input(wi, lane, 4 * q + 3));
            sum += ((row[q].x + row[q].y) + row[q].z) + row[q].w;
        }
        float mean = 0.0, scale = 1.0;
        if (mean_flag) {
            partial[g][lane] = sum;
            barrier();
            float total = 0.0;
            for (int n = 0; n < 16; n++)
                total += partial[g][n];
            mean = total * (1.0 / 256.0);
            scale = UPF_NET_WINDOW_MEAN_SCALE;
        }
        for (int q = 0; q < 4; q++)
            slot0[g][lane * 4 + q] = DV4((row[q] - mean) * scale);
        NET_T nv[PER];
        fetch_stage(tid, 0, nv);
        store_stage(tid, nv);
        barrier();

        for (int stage = 0; stage < 6; stage++) {
            if (stage < 5)
                fetch_stage(tid, stage + 1, nv); /* arrives while this stage runs */
            DV4 t1[4], t2[4];
            for (int a = 0; a < 4; a++) {
                t1[a] = DV4(0.0);
                t2[a] = DV4(0.0);
            }
            for (int k = 0; k < 16; k++) {
                const DV4 y = slot0[g][k * 4 + qi];
                const DV4 b = wts[1][k * 4 + qj], d = wts[3][k * 4 + qj];
                for (int a = 0; a < 4; a++) {
                    t1[a] = fma(DV4(y[a]), b, t1[a]);
                    t2[a] = fma(DV4(y[a]), d, t2[a]);
                }
            }
            barrier();
            for (int a = 0; a < 4; a++) {
                slot0[g][(4 * qi + a) * 4 + qj] = t1[a];
                slot1[g][(4 * qi + a) * 4 + qj] = t2[a];
            }
            barrier();
            DV4 za[4], zc[4];
            for (int a = 0; a < 4; a++) {
                za[a] = DV4(0.0);
                zc[a] = DV4(0.0);
            }
            for (int k = 0; k < 16; k++) {
                const DV4 ac = wts[0][k * 4 + qi], cc = wts[2][k * 4 + qi];
                const DV4 u = slot0[g][k * 4 + qj], v = slot1[g][k * 4 + qj];
                for (int a = 0; a < 4; a++) {
                    za[a] = fma(DV4(ac[a]), u, za[a]);
                    zc[a] = fma(DV4(cc[a]), v, zc[a]);
                }
            }
            barrier();
            for (int a = 0; a < 4; a++) {
                DV4 z = za[a] + zc[a];
                if (stage < 5)
                    z = max(z, DV4(0.0));
                slot0[g][(4 * qi + a) * 4 + qj] = z;
            }
            if (stage < 5)
                store_stage(tid, nv);
            barrier();
        }

        /* The top-left 12 x 12: row `lane` of the window, its first three 4-vectors. */
        for (int q = 0; q < 3; q++) {
            const DV4 z = slot0[g][lane * 4 + q];
            for (int c = 0; c < 4; c++) {
                ivec2 p = window_map_pixel(wi, lane, 4 * q + c);
                if (p.x >= 0)
                    detail_store(p, float(z[c]));
            }
        }
    }
}

#endif
