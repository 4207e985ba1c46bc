/* detail_fma.glsl: the detail pass's network on the shader cores with fused multiply-adds
 * and shared memory, the body of detail.comp (fp32) and detail_fp16.comp (fp16), which define
 * before including it:
 *   FT, FT2, FT4  the arithmetic's scalar, 2- and 4-vector types (float / float16_t ..)
 *   NET_T         the type of the weights in binding 10
 *   WIN           windows a round: 32 * WIN invocations a workgroup, 16 / WIN rounds a tile
 *   EXACT_PATCH   true: the patch's sqrt values rounded as the CPU divides (detail_common.glsl)
 *   DIRECT_WINDOWS 1: each window's luma read straight from the frame, no patch (below)
 * (CPU reference: src/spatial/detail.c and net_infer.c; docs/SPATIAL.md, "Pass 4".)
 *
 * One workgroup per 48 x 48 map tile (16 windows of 16 x 16 luma, as detail_common.glsl lays
 * them out), WIN windows at a time, 32 invocations a window. Each stage
 * Y <- ReLU(A * Y^T * B + C * Y^T * D) (no ReLU after the sixth) is two products:
 *   T1 = Y^T * B, T2 = Y^T * D     T1[i][j] = sum_k Y[k][i] * B[k][j]
 *   Z  = A * T1 + C * T2           Z[i][j]  = sum_k A[i][k] * T1[k][j] + sum_k C[i][k] * T2[k][j]
 * an invocation computing a 4 x 2 block of each (rows i0..i0+3, columns j0, j0+1) with its
 * sums in registers, the windows and the stage's weights (A and C transposed, so a column
 * is contiguous) in shared memory. Every sum runs from k = 0 up as the CPU's does, with
 * fused multiply-adds (the CPU rounds each product).
 *
 * Measured on the H200 (docs/PERFORMANCE.md, "The calls of 2026-12-03, 16:28-17:04 UTC"):
 * the workgroup's four barriers a stage cost more the more warps they wait for, so fp32 runs
 * 4 windows a round (128 invocations) and fp16 8 (256; 4 took 184.2 against 179.3 us at
 * 1280x720 -> 2560x1440). The fp16 variant's earlier body (4 x 4 blocks, 16 invocations a
 * window, 4-vector shared loads; 75ee985) took 180.8 at 8 windows a round and 203.9 at 16;
 * on it, larger blocks (8 x 4, 8 x 8) and two barriers a stage instead of four (T1, T2 in
 * slots of their own, double-buffered weights) were slower still, and in fp32 it took 421.5
 * against 357.8 at 4 windows a round.
 *
 * Shared memory: the patch (8464 bytes, none with DIRECT_WINDOWS) + a stage's weights (1024
 * FT) + two 16 x 16 FT slots for each of the WIN windows in flight + their means (128 WIN
 * bytes). */
#ifndef UPF_DETAIL_FMA_GLSL
#define UPF_DETAIL_FMA_GLSL

#define THREADS (32 * WIN)
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#include "detail_common.glsl"

layout(set = 0, binding = 10, std430) readonly buffer Net { NET_T net[]; };

shared FT wts[4][256];     /* the stage's A^T, B, C^T, D */
shared FT slot0[WIN][256]; /* Y, then T1, then Z (= the next Y) of window group g */
shared FT slot1[WIN][256]; /* T2 */
shared float partial[WIN][32]; /* window means */

/* A stage's 1024 weights into wts, 1024 / THREADS an invocation, all its loads issued
 * before the first store (fp32: one loop of load-and-store measured 364.6 against 357.8 us
 * at 1280x720 -> 2560x1440 on the H200; read into registers while the stage before runs,
 * 354.1 against 359.2 at 720p but 729.3 against 725.8 at 1080p -> 4K, not kept). */
#define PER (1024 / THREADS)
void load_stage(uint tid, int stage)
{
    NET_T v[PER];
    for (int r = 0; r < PER; r++)
        v[r] = net[stage * 1024 + int(tid) + r * THREADS];
    for (int r = 0; r < PER; r++) {
        uint e = tid + uint(r * THREADS);
        uint m = e >> 8u, t = e & 255u;
        /* A and C transposed: wts[m][k * 16 + i] = M[i][k]. */
        uint at = (m == 0u || m == 2u) ? (t & 15u) * 16u + (t >> 4u) : t;
        wts[m][at] = FT(v[r]);
    }
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    if (pc.network == 0u) {
        detail_zero_tile(tid, uint(THREADS));
        return;
    }
#if !DIRECT_WINDOWS
    detail_load_patch(tid, uint(THREADS), EXACT_PATCH);
#endif

    const uint g = tid >> 5u, lane = tid & 31u;
    const int i0 = int(lane >> 3u) * 4, j0 = int(lane & 7u) * 2;
    const bool mean = (pc.flags & UPF_MODEL_FLAG_WINDOW_MEAN) != 0u;

    for (int round = 0; round < 16 / WIN; round++) {
        const int wi = round * WIN + int(g);
        barrier(); /* the patch is complete; the last round's outputs are read */
        /* The window's input: 8 values per invocation (rounded to FT once, after the
         * window's mean is taken off in fp32), from the patch, or with DIRECT_WINDOWS
         * straight from the frame (window_frame_word: the same pixels, the same map but for
         * the order of the window mean's sum). The patch is loaded once for the tile's 16
         * windows, which overlap; read straight, each window's pixels are loaded and unpacked
         * again (1.9 times the loads at 2x), but the patch's phase goes: fp16 179.3 -> 164.5
         * us at 1280x720 -> 2560x1440 and 375.4 -> 343.8 at 1080p -> 4K on the H200 (73
         * registers -> 50), while fp32, whose exact unpacking is long, went 357.8 -> 404.0. */
        /* Window element n of this invocation: with DIRECT_WINDOWS lane + 32 n (the
         * frame's loads of a row side by side), else 8 lane + n, as before. */
#define ELEM(n) (DIRECT_WINDOWS != 0 ? int(lane) + (n) * 32 : int(lane) * 8 + (n))
        float lv[8];
#if DIRECT_WINDOWS
        uint raw[8];
        for (int n = 0; n < 8; n++)
            raw[n] = window_frame_word(wi, ELEM(n) >> 4, ELEM(n) & 15);
        for (int n = 0; n < 8; n++)
            lv[n] = frame_word_luma(raw[n], EXACT_PATCH);
#else
        for (int n = 0; n < 8; n++)
            lv[n] = window_input(wi, ELEM(n) >> 4, ELEM(n) & 15);
#endif
        float sum = 0.0;
        for (int n = 0; n < 8; n++) {
            slot0[g][ELEM(n)] = FT(lv[n]);
            sum += lv[n];
        }
        if (mean) {
            partial[g][lane] = sum;
            barrier();
            float total = 0.0;
            for (int n = 0; n < 32; n++)
                total += partial[g][n];
            float m = total * (1.0 / 256.0);
            for (int n = 0; n < 8; n++)
                slot0[g][ELEM(n)] = FT((lv[n] - m) * UPF_NET_WINDOW_MEAN_SCALE);
        }
#undef ELEM
        load_stage(tid, 0);
        barrier();

        for (int stage = 0; stage < 6; stage++) {
            /* T1 = Y^T B, T2 = Y^T D. */
            FT2 t1[4], t2[4];
            for (int a = 0; a < 4; a++) {
                t1[a] = FT2(0.0);
                t2[a] = FT2(0.0);
            }
            for (int k = 0; k < 16; k++) {
                FT4 y = FT4(slot0[g][k * 16 + i0], slot0[g][k * 16 + i0 + 1],
                              slot0[g][k * 16 + i0 + 2], slot0[g][k * 16 + i0 + 3]);
                FT2 b = FT2(wts[1][k * 16 + j0], wts[1][k * 16 + j0 + 1]);
                FT2 d = FT2(wts[3][k * 16 + j0], wts[3][k * 16 + j0 + 1]);
                for (int a = 0; a < 4; a++) {
                    t1[a] = fma(FT2(y[a]), b, t1[a]);
                    t2[a] = fma(FT2(y[a]), d, t2[a]);
                }
            }
            barrier();
            for (int a = 0; a < 4; a++) {
                int e = (i0 + a) * 16 + j0;
                slot0[g][e] = t1[a].x;
                slot0[g][e + 1] = t1[a].y;
                slot1[g][e] = t2[a].x;
                slot1[g][e + 1] = t2[a].y;
            }
            barrier();
            /* Z = A T1 + C T2. */
            FT2 za[4], zc[4];
            for (int a = 0; a < 4; a++) {
                za[a] = FT2(0.0);
                zc[a] = FT2(0.0);
            }
            for (int k = 0; k < 16; k++) {
                FT4 ac = FT4(wts[0][k * 16 + i0], wts[0][k * 16 + i0 + 1],
                               wts[0][k * 16 + i0 + 2], wts[0][k * 16 + i0 + 3]);
                FT4 cc = FT4(wts[2][k * 16 + i0], wts[2][k * 16 + i0 + 1],
                               wts[2][k * 16 + i0 + 2], wts[2][k * 16 + i0 + 3]);
                FT2 u = FT2(slot0[g][k * 16 + j0], slot0[g][k * 16 + j0 + 1]);
                FT2 v = FT2(slot1[g][k * 16 + j0], slot1[g][k * 16 + j0 + 1]);
                for (int a = 0; a < 4; a++) {
                    za[a] = fma(FT2(ac[a]), u, za[a]);
                    zc[a] = fma(FT2(cc[a]), v, zc[a]);
                }
            }
            barrier();
            for (int a = 0; a < 4; a++) {
                FT2 z = za[a] + zc[a];
                if (stage < 5)
                    z = max(z, FT2(0.0));
                int e = (i0 + a) * 16 + j0;
                slot0[g][e] = z.x;
                slot0[g][e + 1] = z.y;
            }
            if (stage < 5)
                load_stage(tid, stage + 1);
            barrier();
        }

        /* The top-left 12 x 12 of the output is the window's block of the map. */
        for (int n = 0; n < 8; n++) {
            int e = int(lane) * 8 + n;
            ivec2 p = window_map_pixel(wi, e >> 4, e & 15);
            if (p.x >= 0)
                detail_store(p, float(slot0[g][e]));
        }
    }
}

#endif
