/* detail_fp16.comp: the detail pass on the GPU with fp16 arithmetic and 16-bit storage, for
 * devices with shaderFloat16 and storageBuffer16BitAccess (CPU reference:
 * src/spatial/detail.c and net_infer.c; docs/SPATIAL.md, "Pass 4" and "Precision").
 *
 * Reads: the frame (binding 6), the network weights (binding 10: 6144 float16,
 * w[stage][A, B, C, D][r * 16 + c], exactly the model file's values). Writes: the detail map
 * (binding 7, float32).
 *
 * As detail.comp, but every product and sum of the six stages is fp16 (two lanes per
 * instruction where the GPU packs half2), the windows and weights are fp16 in shared memory,
 * and all 16 windows of the tile run at once: 16 invocations a window, each computing a
 * 4 x 4 block of T1 = Y^T B and T2 = Y^T D, then of Z = A T1 + C T2, with its sums in
 * registers. The luma patch and the window mean are fp32; the window's input is rounded to
 * fp16 once. The map differs from the fp32 one by the fp16 roundings (the whole pipeline is
 * held to a mean absolute difference of 0.0005, tests/test_vk_passes.c).
 *
 * Shared memory: patch 8464 bytes + weights 2048 + 16 windows x 2 slots x 512 = 26896 bytes.
 * One workgroup of 256 invocations per 48 x 48 map tile; grid tiles_x x tiles_y. */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

#include "detail_common.glsl"

layout(set = 0, binding = 10, std430) readonly buffer Net { float16_t net[]; };

shared f16vec4 wts[4][64];     /* the stage's A^T, B, C^T, D: row k at [k * 4 .. k * 4 + 3] */
shared f16vec4 slot0[16][64];  /* Y, then T1, then Z (= the next Y) of window w */
shared f16vec4 slot1[16][64];  /* T2 */

void load_stage(uint tid, int stage)
{
    for (int m = 0; m < 4; m++) {
        float16_t v = net[stage * 1024 + m * 256 + int(tid)];
        uint at = (m == 0 || m == 2) ? (tid & 15u) * 16u + (tid >> 4u) : tid;
        wts[m][at >> 2u][at & 3u] = v;
    }
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    if (pc.network == 0u) {
        detail_zero_tile(tid, 256u);
        return;
    }
    detail_load_patch(tid, 256u, false);
    load_stage(tid, 0);
    barrier();

    const int wi = int(tid >> 4u), lane = int(tid & 15u);
    const int i0 = (lane >> 2) * 4, j0 = (lane & 3) * 4;

    /* The window's input: its 16 x 16 luma (minus the window's mean, times 4, for models
     * with UPF_MODEL_FLAG_WINDOW_MEAN); each invocation fills rows lane of the window. */
    float mean = 0.0;
    if ((pc.flags & UPF_MODEL_FLAG_WINDOW_MEAN) != 0u) {
        float sum = 0.0;
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 16; c++)
                sum += window_input(wi, r, c);
        mean = sum * (1.0 / 256.0);
    }
    const float scale = (pc.flags & UPF_MODEL_FLAG_WINDOW_MEAN) != 0u ? UPF_NET_WINDOW_MEAN_SCALE : 1.0;
    for (int q = 0; q < 4; q++)
        slot0[wi][lane * 4 + q] = f16vec4((window_input(wi, lane, 4 * q) - mean) * scale,
                                          (window_input(wi, lane, 4 * q + 1) - mean) * scale,
                                          (window_input(wi, lane, 4 * q + 2) - mean) * scale,
                                          (window_input(wi, lane, 4 * q + 3) - mean) * scale);
    barrier();

    for (int stage = 0; stage < 6; stage++) {
        /* T1 = Y^T B, T2 = Y^T D: T1[i][j] = sum_k Y[k][i] B[k][j]. */
        f16vec4 t1[4], t2[4];
        for (int a = 0; a < 4; a++) {
            t1[a] = f16vec4(0.0hf);
            t2[a] = f16vec4(0.0hf);
        }
        for (int k = 0; k < 16; k++) {
            f16vec4 y = slot0[wi][k * 4 + (i0 >> 2)];
            f16vec4 b = wts[1][k * 4 + (j0 >> 2)];
            f16vec4 d = wts[3][k * 4 + (j0 >> 2)];
            for (int a = 0; a < 4; a++) {
                t1[a] = fma(f16vec4(y[a]), b, t1[a]);
                t2[a] = fma(f16vec4(y[a]), d, t2[a]);
            }
        }
        barrier();
        for (int a = 0; a < 4; a++) {
            slot0[wi][(i0 + a) * 4 + (j0 >> 2)] = t1[a];
            slot1[wi][(i0 + a) * 4 + (j0 >> 2)] = t2[a];
        }
        barrier();
        /* Z = A T1 + C T2. */
        f16vec4 za[4], zc[4];
        for (int a = 0; a < 4; a++) {
            za[a] = f16vec4(0.0hf);
            zc[a] = f16vec4(0.0hf);
        }
        for (int k = 0; k < 16; k++) {
            f16vec4 ac = wts[0][k * 4 + (i0 >> 2)];
            f16vec4 cc = wts[2][k * 4 + (i0 >> 2)];
            f16vec4 u = slot0[wi][k * 4 + (j0 >> 2)];
            f16vec4 v = slot1[wi][k * 4 + (j0 >> 2)];
            for (int a = 0; a < 4; a++) {
                za[a] = fma(f16vec4(ac[a]), u, za[a]);
                zc[a] = fma(f16vec4(cc[a]), v, zc[a]);
            }
        }
        barrier();
        for (int a = 0; a < 4; a++) {
            f16vec4 z = za[a] + zc[a];
            if (stage < 5)
                z = max(z, f16vec4(0.0hf));
            slot0[wi][(i0 + a) * 4 + (j0 >> 2)] = z;
        }
        if (stage < 5)
            load_stage(tid, stage + 1);
        barrier();
    }

    /* The top-left 12 x 12: rows lane of the window, the first three quads. */
    for (int q = 0; q < 3; q++) {
        f16vec4 z = slot0[wi][lane * 4 + q];
        for (int c = 0; c < 4; c++) {
            ivec2 p = window_map_pixel(wi, lane, 4 * q + c);
            if (p.x >= 0)
                detail_store(p, float(z[c]));
        }
    }
}
