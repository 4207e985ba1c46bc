/* detail.comp: the detail pass on the GPU in fp32, the network on the shader cores with
 * shared memory (CPU reference: src/spatial/detail.c and net_infer.c; docs/SPATIAL.md,
 * "Pass 4"). The variant for every device (lavapipe included).
 *
 * Reads: the frame (binding 6), the network weights (binding 10: 6144 float32,
 * w[stage][A, B, C, D][r * 16 + c]). Writes: the detail map (binding 7).
 *
 * One workgroup of 128 invocations per 48 x 48 map tile (16 windows of 16 x 16 luma, as
 * detail_common.glsl lays them out), in four rounds of 4 windows, 32 invocations a window
 * (two rounds of 8 in 256 invocations took 371.4 against 357.8 us at 1280x720 -> 2560x1440
 * and 788.6 against 723.9 at 1080p -> 4K on the H200: a workgroup's barriers wait for half
 * the warps; 8 rounds of 2 took 511.1 / 1028.0; docs/PERFORMANCE.md).
 * Each stage Y <- ReLU(A * Y^T * B + C * Y^T * D) (no ReLU after the sixth) is two products:
 *   T1 = Y^T * B, T2 = Y^T * D     T1[i][j] = sum_k Y[k][i] * B[k][j]
 *   Z  = A * T1 + C * T2           Z[i][j]  = sum_k A[i][k] * T1[k][j] + sum_k C[i][k] * T2[k][j]
 * an invocation computing a 4 x 2 block of each (rows i0..i0+3, columns j0, j0+1) with its
 * sums in registers, the windows and the stage's weights (A and C transposed, so a column
 * is contiguous) in shared memory. Every sum runs from k = 0 up as the CPU's does, with
 * fused multiply-adds (the CPU rounds each product): the map agrees with the CPU to about
 * 1e-6 (the test's bound is in tests/test_vk_passes.c).
 *
 * Shared memory: the patch (8464 bytes) + a stage's weights (4096) + two 16 x 16 slots for
 * each of the 4 windows in flight (8192) + their means (512): 21264 bytes, within the 32 KiB
 * Vulkan lets every device offer. Grid tiles_x x tiles_y. */
#version 450
#extension GL_GOOGLE_include_directive : require

#define WIN 4 /* windows a round */
#define THREADS (32 * WIN)
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#include "detail_common.glsl"

layout(set = 0, binding = 10, std430) readonly buffer Net { float net[]; };

shared float wts[4][256];     /* the stage's A^T, B, C^T, D */
shared float slot0[WIN][256]; /* Y, then T1, then Z (= the next Y) of window group g */
shared float slot1[WIN][256]; /* T2 */
shared float partial[WIN][32]; /* window means */

/* A stage's 1024 weights into wts, 1024 / THREADS an invocation, all its loads issued
 * before the first store (one loop of load-and-store measured 364.6 against 357.8 us at
 * 1280x720 -> 2560x1440 on the H200). Read into registers while the stage before runs, as
 * detail_fma.glsl does, they measured no faster (354.1 against 359.2 at 720p, 729.3 against
 * 725.8 at 1080p -> 4K, in one call). */
#define PER (1024 / THREADS)
void load_stage(uint tid, int stage)
{
    float v[PER];
    for (int r = 0; r < PER; r++)
        v[r] = net[stage * 1024 + int(tid) + r * THREADS];
    for (int r = 0; r < PER; r++) {
        uint e = tid + uint(r * THREADS);
        uint m = e >> 8u, t = e & 255u;
        /* A and C transposed: wts[m][k * 16 + i] = M[i][k]. */
        uint at = (m == 0u || m == 2u) ? (t & 15u) * 16u + (t >> 4u) : t;
        wts[m][at] = v[r];
    }
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    if (pc.network == 0u) {
        detail_zero_tile(tid, uint(THREADS));
        return;
    }
    detail_load_patch(tid, uint(THREADS), true);

    const uint g = tid >> 5u, lane = tid & 31u;
    const int i0 = int(lane >> 3u) * 4, j0 = int(lane & 7u) * 2;
    const bool mean = (pc.flags & UPF_MODEL_FLAG_WINDOW_MEAN) != 0u;

    for (int round = 0; round < 16 / WIN; round++) {
        const int wi = round * WIN + int(g);
        barrier(); /* the patch is complete; the last round's outputs are read */
        /* The window's input: 8 values per invocation. */
        float sum = 0.0;
        for (int n = 0; n < 8; n++) {
            int e = int(lane) * 8 + n;
            float v = window_input(wi, e >> 4, e & 15);
            slot0[g][e] = v;
            sum += v;
        }
        if (mean) {
            partial[g][lane] = sum;
            barrier();
            float total = 0.0;
            for (int n = 0; n < 32; n++)
                total += partial[g][n];
            float m = total * (1.0 / 256.0);
            for (int n = 0; n < 8; n++) {
                int e = int(lane) * 8 + n;
                slot0[g][e] = (slot0[g][e] - m) * UPF_NET_WINDOW_MEAN_SCALE;
            }
        }
        load_stage(tid, 0);
        barrier();

        for (int stage = 0; stage < 6; stage++) {
            /* T1 = Y^T B, T2 = Y^T D. */
            vec2 t1[4], t2[4];
            for (int a = 0; a < 4; a++) {
                t1[a] = vec2(0.0);
                t2[a] = vec2(0.0);
            }
            for (int k = 0; k < 16; k++) {
                vec4 y = vec4(slot0[g][k * 16 + i0], slot0[g][k * 16 + i0 + 1],
                              slot0[g][k * 16 + i0 + 2], slot0[g][k * 16 + i0 + 3]);
                vec2 b = vec2(wts[1][k * 16 + j0], wts[1][k * 16 + j0 + 1]);
                vec2 d = vec2(wts[3][k * 16 + j0], wts[3][k * 16 + j0 + 1]);
                for (int a = 0; a < 4; a++) {
                    t1[a] = fma(vec2(y[a]), b, t1[a]);
                    t2[a] = fma(vec2(y[a]), d, t2[a]);
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
            vec2 za[4], zc[4];
            for (int a = 0; a < 4; a++) {
                za[a] = vec2(0.0);
                zc[a] = vec2(0.0);
            }
            for (int k = 0; k < 16; k++) {
                vec4 ac = vec4(wts[0][k * 16 + i0], wts[0][k * 16 + i0 + 1],
                               wts[0][k * 16 + i0 + 2], wts[0][k * 16 + i0 + 3]);
                vec4 cc = vec4(wts[2][k * 16 + i0], wts[2][k * 16 + i0 + 1],
                               wts[2][k * 16 + i0 + 2], wts[2][k * 16 + i0 + 3]);
                vec2 u = vec2(slot0[g][k * 16 + j0], slot0[g][k * 16 + j0 + 1]);
                vec2 v = vec2(slot1[g][k * 16 + j0], slot1[g][k * 16 + j0 + 1]);
                for (int a = 0; a < 4; a++) {
                    za[a] = fma(vec2(ac[a]), u, za[a]);
                    zc[a] = fma(vec2(cc[a]), v, zc[a]);
                }
            }
            barrier();
            for (int a = 0; a < 4; a++) {
                vec2 z = za[a] + zc[a];
                if (stage < 5)
                    z = max(z, vec2(0.0));
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
                detail_store(p, slot0[g][e]);
        }
    }
}
