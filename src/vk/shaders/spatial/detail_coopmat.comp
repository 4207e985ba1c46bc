/* detail_coopmat.comp: the detail pass on the GPU's matrix units, through
 * GL_NV_cooperative_matrix (VK_NV_cooperative_matrix: fp16 16 x 16 x 16 products with fp32
 * accumulation, which NVIDIA GPUs since Volta offer; CPU reference: src/spatial/detail.c and
 * net_infer.c; docs/SPATIAL.md, "Pass 4" and "Precision").
 *
 * Reads: the frame (binding 6), the network weights (binding 10: 6144 float16,
 * w[stage][A, B, C, D][r * 16 + c], the odd stages' matrices transposed: src/vk/ABI.md).
 * Writes: the detail map (binding 7, float32).
 *
 * One workgroup of 128 invocations (4 subgroups of 32) per 48 x 48 map tile; each subgroup
 * takes 4 of the tile's 16 windows, two at a time, and runs each pair through all six stages
 * side by side. Per window and stage, four matrix products on 16 x 16 tiles, the window being
 * one cooperative matrix:
 *   T1 = Y^T * B, T2 = Y^T * D          (fp16 operands, fp32 sums)
 *   Z  = A * T1 + C * T2                (T1, T2 rounded to fp16 as operands, fp32 sums)
 *   Y  = ReLU(Z) (not after the sixth), rounded to fp16
 * and every other stage the same transposed, so that no transpose goes through memory (see
 * the stage loop); the first Y^T is the window loaded column-major. The four products of a
 * stage depend on each other and the six stages on the one before, so one window alone keeps
 * the matrix units waiting; two windows written out side by side (their own variables, the
 * weights loaded once for both) give the GPU two independent chains: the pass took 63.0 ->
 * 50.6 us at 1280x720 -> 2560x1440 and 128.8 -> 99.2 at 1080p -> 4K on the H200 against one
 * window at a time in 8 subgroups (8 subgroups of pairs 51.1 / 101.1; the same in arrays over
 * K windows in unrolled loops 52.7 / 104.4 for two, 58.8 / 113.2 for four; docs/PERFORMANCE.md).
 * The weight matrices are loaded as cooperative matrices straight from binding 10 (12 KiB,
 * which stays in the caches), every one row-major: the odd stages need A^T, B^T, C^T and D^T,
 * which the backend stores transposed (column-major loads of the model's order took 98.9
 * against 89.7 us at 1080p -> 4K on the H200). Copying them to shared memory first cost every
 * workgroup 48 dependent rounds of loads; one copy of 12 KiB a workgroup behind a barrier,
 * all loads then from shared memory, took 118.3 against 89.7. The window's luma is fp32
 * (rounded to fp16 as the window's input). The sixth stage's fp32 result goes to the map
 * unrounded. Each window's arithmetic is the one-window shader's, so the map is too.
 *
 * Shared memory: per subgroup two 16 x 16 fp16 windows (1024) and two 16 x 16 fp32 results
 * (2048): 12288 bytes. Grid tiles_x x tiles_y.
 * Requires the subgroup size 32 (the NVIDIA devices that have the extension). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#ifndef SUBGROUPS
#define SUBGROUPS 4
#endif
#define THREADS (32 * SUBGROUPS)
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#include "detail_common.glsl"

layout(set = 0, binding = 10, std430) readonly buffer Net { float16_t net[]; };

#define WINDOWS (16 / SUBGROUPS) /* windows per subgroup: two at a time */
#if WINDOWS % 2 != 0
#error "detail_coopmat.comp runs a subgroup's windows in pairs: SUBGROUPS must divide 8"
#endif
shared float16_t win[SUBGROUPS * 512]; /* subgroup s's windows at s * 512 (+ 256), row-major */
shared float res[SUBGROUPS * 512];     /* their last results */

#define HMAT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FMAT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    if (pc.network == 0u) {
        detail_zero_tile(tid, uint(THREADS));
        return;
    }
    const uint sg = tid >> 5u, lane = tid & 31u;
    const uint base0 = sg * 512u, base1 = base0 + 256u;
    const bool mean_flag = (pc.flags & UPF_MODEL_FLAG_WINDOW_MEAN) != 0u;
    const FMAT zero = FMAT(0.0);

    for (int n = 0; n < WINDOWS; n += 2) {
        const int wi0 = int(sg) * WINDOWS + n, wi1 = wi0 + 1;
        /* The two windows' luma straight from the frame, each subgroup its own, 8 pixels a
         * lane of each (all 16 loads issued first): no patch in shared memory and no
         * workgroup barrier, so a subgroup starts its products as soon as its own pixels
         * arrive. The same pixels and arithmetic as the patch's (detail_common.glsl), so the
         * same map; the patch and its barrier took 71.5 against 62.8 us at 1280x720 ->
         * 2560x1440 on the H200 with one window at a time (docs/PERFORMANCE.md). */
        uint raw0[8], raw1[8];
        for (int q = 0; q < 8; q++) {
            const int e = int(lane) + q * 32;
            raw0[q] = window_frame_word(wi0, e >> 4, e & 15);
            raw1[q] = window_frame_word(wi1, e >> 4, e & 15);
        }
        float lv0[8], lv1[8];
        for (int q = 0; q < 8; q++) {
            lv0[q] = frame_word_luma(raw0[q], false);
            lv1[q] = frame_word_luma(raw1[q], false);
        }
        float mean0 = 0.0, mean1 = 0.0, scale = 1.0;
        if (mean_flag) {
            float s0 = 0.0, s1 = 0.0;
            for (int q = 0; q < 8; q++) {
                s0 += lv0[q];
                s1 += lv1[q];
            }
            mean0 = subgroupAdd(s0) * (1.0 / 256.0);
            mean1 = subgroupAdd(s1) * (1.0 / 256.0);
            scale = UPF_NET_WINDOW_MEAN_SCALE;
        }
        subgroupBarrier();
        for (int q = 0; q < 8; q++) {
            win[base0 + lane + uint(q) * 32u] = float16_t((lv0[q] - mean0) * scale);
            win[base1 + lane + uint(q) * 32u] = float16_t((lv1[q] - mean1) * scale);
        }
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        HMAT yt0, yt1, y0, y1;
        FMAT z0, z1;
        coopMatLoadNV(yt0, win, base0, 16u, true);
        coopMatLoadNV(yt1, win, base1, 16u, true);
        for (int stage = 0; stage < 6; stage += 2) {
            const uint w0 = uint(stage) * 1024u;
            HMAT a, b, c, d;
            coopMatLoadNV(a, net, w0, 16u, false);
            coopMatLoadNV(b, net, w0 + 256u, 16u, false);
            coopMatLoadNV(c, net, w0 + 512u, 16u, false);
            coopMatLoadNV(d, net, w0 + 768u, 16u, false);
            /* Y^T B and Y^T D, then Y' = A T1 + C T2, for both windows */
            FMAT t10 = coopMatMulAddNV(yt0, b, zero);
            FMAT t11 = coopMatMulAddNV(yt1, b, zero);
            FMAT t20 = coopMatMulAddNV(yt0, d, zero);
            FMAT t21 = coopMatMulAddNV(yt1, d, zero);
            z0 = coopMatMulAddNV(a, HMAT(t10), zero);
            z1 = coopMatMulAddNV(a, HMAT(t11), zero);
            z0 = coopMatMulAddNV(c, HMAT(t20), z0);
            z1 = coopMatMulAddNV(c, HMAT(t21), z1);
            for (int i = 0; i < z0.length(); i++) {
                z0[i] = max(z0[i], 0.0);
                z1[i] = max(z1[i], 0.0);
            }
            y0 = HMAT(z0);
            y1 = HMAT(z1);
            const uint w1 = w0 + 1024u; /* A^T, B^T, C^T, D^T, stored transposed */
            coopMatLoadNV(a, net, w1, 16u, false);
            coopMatLoadNV(b, net, w1 + 256u, 16u, false);
            coopMatLoadNV(c, net, w1 + 512u, 16u, false);
            coopMatLoadNV(d, net, w1 + 768u, 16u, false);
            /* B^T Y and D^T Y, then Y'^T = U1 A + U2 C */
            FMAT u10 = coopMatMulAddNV(b, y0, zero);
            FMAT u11 = coopMatMulAddNV(b, y1, zero);
            FMAT u20 = coopMatMulAddNV(d, y0, zero);
            FMAT u21 = coopMatMulAddNV(d, y1, zero);
            z0 = coopMatMulAddNV(HMAT(u10), a, zero);
            z1 = coopMatMulAddNV(HMAT(u11), a, zero);
            z0 = coopMatMulAddNV(HMAT(u20), c, z0);
            z1 = coopMatMulAddNV(HMAT(u21), c, z1);
            if (stage < 4) {
                for (int i = 0; i < z0.length(); i++) {
                    z0[i] = max(z0[i], 0.0);
                    z1[i] = max(z1[i], 0.0);
                }
                yt0 = HMAT(z0);
                yt1 = HMAT(z1);
            }
        }
        subgroupBarrier();
        /* Y6^T stored column-major: Y6 */
        coopMatStoreNV(z0, res, base0, 16u, true);
        coopMatStoreNV(z1, res, base1, 16u, true);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        /* The top-left 12 x 12 of each, the part that goes to the map: 144 values in five
         * rounds of the subgroup (over the whole 16 x 16, eight rounds with a quarter of the
         * lanes idle, the pass took 89.9 against 87.7 us at 1080p -> 4K on the H200). */
        for (uint e = lane; e < 144u; e += 32u) {
            const int r = int(e / 12u), c = int(e % 12u);
            const uint k = uint(r * 16 + c);
            ivec2 p = window_map_pixel(wi0, r, c);
            if (p.x >= 0)
                detail_store(p, res[base0 + k]);
            p = window_map_pixel(wi1, r, c);
            if (p.x >= 0)
                detail_store(p, res[base1 + k]);
        }
    }
}
