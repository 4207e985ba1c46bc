/* detail_coopmat.comp: the detail pass on the GPU's matrix units, through
 * GL_NV_cooperative_matrix (VK_NV_cooperative_matrix: fp16 16 x 16 x 16 products with fp32
 * accumulation, which NVIDIA GPUs since Volta offer; CPU reference: src/spatial/detail.c and
 * net_infer.c; docs/SPATIAL.md, "Pass 4" and "Precision").
 *
 * Reads: the frame (binding 6), the network weights (binding 10: 6144 float16,
 * w[stage][A, B, C, D][r * 16 + c]). Writes: the detail map (binding 7, float32).
 *
 * One workgroup of 256 invocations (8 subgroups of 32) per 48 x 48 map tile; each subgroup
 * takes 2 of the tile's 16 windows, one after the other, and runs each through all six
 * stages (4 subgroups of 4 windows took 53.4 us against 50.7 on the H200). Per window and stage, four matrix products on 16 x 16 tiles, the window being one
 * cooperative matrix:
 *   T1 = Y^T * B, T2 = Y^T * D          (fp16 operands, fp32 sums)
 *   Z  = A * T1 + C * T2                (T1, T2 rounded to fp16 as operands, fp32 sums)
 *   Y  = ReLU(Z) (not after the sixth), rounded to fp16
 * and every other stage the same transposed, so that no transpose goes through memory (see
 * the stage loop); the first Y^T is the window loaded column-major. The weight matrices are
 * loaded as cooperative matrices straight from binding 10 (12 KiB, which stays in the
 * caches): copying them to shared memory first cost every workgroup 48 dependent rounds of
 * loads, and holding four windows' matrices in arrays at once was slower on the H200 too
 * (124 against 52 us at 1536x864 -> 2048x1152, docs/PERFORMANCE.md). The window's luma is fp32
 * (rounded to fp16 as the window's input). The sixth stage's fp32 result goes to the map
 * unrounded.
 *
 * Shared memory: per subgroup a 16 x 16 fp16 window (512) and a 16 x 16 fp32 result (1024):
 * 12288 bytes. Grid tiles_x x tiles_y.
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
#define SUBGROUPS 8
#endif
#define THREADS (32 * SUBGROUPS)
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#include "detail_common.glsl"

layout(set = 0, binding = 10, std430) readonly buffer Net { float16_t net[]; };

#define WINDOWS (16 / SUBGROUPS) /* windows per subgroup */
shared float16_t win[SUBGROUPS * 256]; /* subgroup s's window at s * 256, row-major */
shared float res[SUBGROUPS * 256];     /* subgroup s's last result */

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
    const uint base = sg * 256u;
    const bool mean_flag = (pc.flags & UPF_MODEL_FLAG_WINDOW_MEAN) != 0u;
    const FMAT zero = FMAT(0.0);

    for (int n = 0; n < WINDOWS; n++) {
        const int wi = int(sg) * WINDOWS + n;
        /* The window's luma straight from the frame, each subgroup its own, 8 pixels a lane
         * (all loads issued first): no patch in shared memory and no workgroup barrier, so a
         * subgroup starts its products as soon as its own pixels arrive. The same pixels and
         * arithmetic as the patch's (detail_common.glsl), so the same map; the patch and its
         * barrier took 71.5 against 62.8 us at 1280x720 -> 2560x1440 and 145.4 against 127.3
         * at 1080p -> 4K on the H200 (120 registers against 76; docs/PERFORMANCE.md). */
        uint raw[8];
        for (int q = 0; q < 8; q++) {
            const int e = int(lane) + q * 32;
            raw[q] = window_frame_word(wi, e >> 4, e & 15);
        }
        float lv[8];
        for (int q = 0; q < 8; q++)
            lv[q] = frame_word_luma(raw[q], false);
        float mean = 0.0, scale = 1.0;
        if (mean_flag) {
            float sum = 0.0;
            for (int q = 0; q < 8; q++)
                sum += lv[q];
            mean = subgroupAdd(sum) * (1.0 / 256.0);
            scale = UPF_NET_WINDOW_MEAN_SCALE;
        }
        subgroupBarrier();
        for (int q = 0; q < 8; q++)
            win[base + lane + uint(q) * 32u] = float16_t((lv[q] - mean) * scale);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        HMAT yt, y;
        FMAT z;
        coopMatLoadNV(yt, win, base, 16u, true);
        for (int stage = 0; stage < 6; stage += 2) {
            const uint w0 = uint(stage) * 1024u;
            HMAT a, b, c, d;
            coopMatLoadNV(a, net, w0, 16u, false);
            coopMatLoadNV(b, net, w0 + 256u, 16u, false);
            coopMatLoadNV(c, net, w0 + 512u, 16u, false);
            coopMatLoadNV(d, net, w0 + 768u, 16u, false);
            FMAT t1 = coopMatMulAddNV(yt, b, zero); /* Y^T B */
            FMAT t2 = coopMatMulAddNV(yt, d, zero); /* Y^T D */
            z = coopMatMulAddNV(a, HMAT(t1), zero);
            z = coopMatMulAddNV(c, HMAT(t2), z); /* Y' */
            for (int i = 0; i < z.length(); i++)
                z[i] = max(z[i], 0.0);
            y = HMAT(z);
            const uint w1 = w0 + 1024u;
            coopMatLoadNV(a, net, w1, 16u, true);
            coopMatLoadNV(b, net, w1 + 256u, 16u, true);
            coopMatLoadNV(c, net, w1 + 512u, 16u, true);
            coopMatLoadNV(d, net, w1 + 768u, 16u, true);
            FMAT u1 = coopMatMulAddNV(b, y, zero); /* B^T Y */
            FMAT u2 = coopMatMulAddNV(d, y, zero); /* D^T Y */
            z = coopMatMulAddNV(HMAT(u1), a, zero);
            z = coopMatMulAddNV(HMAT(u2), c, z); /* Y'^T */
            if (stage < 4) {
                for (int i = 0; i < z.length(); i++)
                    z[i] = max(z[i], 0.0);
                yt = HMAT(z);
            }
        }
        subgroupBarrier();
        coopMatStoreNV(z, res, base, 16u, true); /* Y6^T stored column-major: Y6 */
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        for (uint e = lane; e < 256u; e += 32u) {
            ivec2 p = window_map_pixel(wi, int(e >> 4u), int(e & 15u));
            if (p.x >= 0)
                detail_store(p, res[base + e]);
        }
    }
}
