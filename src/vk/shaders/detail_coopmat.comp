/* detail_coopmat.comp: the detail pass on the GPU's matrix units, through
 * GL_NV_cooperative_matrix (VK_NV_cooperative_matrix: fp16 16 x 16 x 16 products with fp32
 * accumulation, which NVIDIA GPUs since Volta offer; CPU reference: src/spatial/detail.c and
 * net_infer.c; docs/SPATIAL.md, "Pass 4" and "Precision").
 *
 * Reads: the frame (binding 6), the network weights (binding 10: 6144 float16,
 * w[stage][A, B, C, D][r * 16 + c]). Writes: the detail map (binding 7, float32).
 *
 * One workgroup of 128 invocations (4 subgroups of 32) per 48 x 48 map tile; each subgroup
 * takes 4 of the tile's 16 windows, stage by stage (a stage's four weight matrices are
 * loaded once for the four). Per window and stage, four matrix products on 16 x 16 tiles,
 * the window being one cooperative matrix:
 *   T1 = Y^T * B, T2 = Y^T * D          (fp16 operands, fp32 sums)
 *   Z  = A * T1 + C * T2                (T1, T2 rounded to fp16 as operands, fp32 sums)
 *   Y  = ReLU(Z) (not after the sixth), rounded to fp16
 * and every other stage the same transposed, so that no transpose goes through memory (see
 * the stage loop); the first Y^T is the window loaded column-major. The 24 weight matrices
 * are copied to shared memory once per workgroup; the luma patch is fp32 (rounded to fp16
 * as the window's input). The sixth stage's fp32 result goes to the map unrounded.
 *
 * Shared memory: patch 8464 bytes + weights 12288 + per subgroup a 16 x 16 fp16 window
 * (512) and a 16 x 16 fp32 result (1024): 26896 bytes. Grid tiles_x x tiles_y.
 * Requires the subgroup size 32 (the NVIDIA devices that have the extension). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;

#include "detail_common.glsl"

layout(set = 0, binding = 10, std430) readonly buffer Net { float16_t net[]; };

#define SUBGROUPS 4
#define WINDOWS (16 / SUBGROUPS) /* windows per subgroup */
shared float16_t wsh[6144];            /* the model, as binding 10 */
shared float16_t win[SUBGROUPS * 256]; /* subgroup s's window at s * 256, row-major */
shared float res[SUBGROUPS * 256];     /* subgroup s's last result */

#define HMAT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FMAT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    if (pc.network == 0u) {
        detail_zero_tile(tid, 128u);
        return;
    }
    detail_load_patch(tid, 128u, false);
    for (uint k = tid; k < 6144u; k += 128u)
        wsh[k] = net[k];
    barrier();

    const uint sg = tid >> 5u, lane = tid & 31u;
    const uint base = sg * 256u;
    const bool mean_flag = (pc.flags & UPF_MODEL_FLAG_WINDOW_MEAN) != 0u;
    const FMAT zero = FMAT(0.0);
    const int first = int(sg) * WINDOWS;

    /* Each window's input, transposed: Y^T as a cooperative matrix. */
    HMAT yt[WINDOWS];
    for (int n = 0; n < WINDOWS; n++) {
        const int wi = first + n;
        float mean = 0.0, scale = 1.0;
        if (mean_flag) {
            float sum = 0.0;
            for (uint e = lane; e < 256u; e += 32u)
                sum += window_input(wi, int(e >> 4u), int(e & 15u));
            mean = subgroupAdd(sum) * (1.0 / 256.0);
            scale = UPF_NET_WINDOW_MEAN_SCALE;
        }
        subgroupBarrier();
        for (uint e = lane; e < 256u; e += 32u)
            win[base + e] = float16_t((window_input(wi, int(e >> 4u), int(e & 15u)) - mean) * scale);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        coopMatLoadNV(yt[n], win, base, 16u, true);
    }

    /* The six stages, each stage's four matrices loaded once for the subgroup's windows.
     * No transpose goes through memory: a stage that has Y^T (a left operand) computes
     *   Y' = A (Y^T B) + C (Y^T D),
     * and the next, which takes Y' as a right operand, computes the transpose of its output
     * directly, Y''^T = (B^T Y') A^T + (D^T Y') C^T (the same sums), with the weights loaded
     * column-major (transposed). Stages 0, 2, 4 are of the first kind, 1, 3, 5 of the second,
     * so the sixth leaves Y6^T, stored column-major. */
    HMAT y[WINDOWS];
    FMAT z[WINDOWS];
    for (int stage = 0; stage < 6; stage++) {
        const uint w0 = uint(stage) * 1024u;
        const bool odd = (stage & 1) != 0;
        HMAT a, b, c, d;
        if (odd) { /* the transposes (the layout must be a constant) */
            coopMatLoadNV(a, wsh, w0, 16u, true);
            coopMatLoadNV(b, wsh, w0 + 256u, 16u, true);
            coopMatLoadNV(c, wsh, w0 + 512u, 16u, true);
            coopMatLoadNV(d, wsh, w0 + 768u, 16u, true);
        } else {
            coopMatLoadNV(a, wsh, w0, 16u, false);
            coopMatLoadNV(b, wsh, w0 + 256u, 16u, false);
            coopMatLoadNV(c, wsh, w0 + 512u, 16u, false);
            coopMatLoadNV(d, wsh, w0 + 768u, 16u, false);
        }
        for (int n = 0; n < WINDOWS; n++) {
            if (!odd) {
                FMAT t1 = coopMatMulAddNV(yt[n], b, zero); /* Y^T B */
                FMAT t2 = coopMatMulAddNV(yt[n], d, zero); /* Y^T D */
                z[n] = coopMatMulAddNV(a, HMAT(t1), zero);
                z[n] = coopMatMulAddNV(c, HMAT(t2), z[n]); /* Y' */
            } else {
                FMAT u1 = coopMatMulAddNV(b, y[n], zero); /* B^T Y */
                FMAT u2 = coopMatMulAddNV(d, y[n], zero); /* D^T Y */
                z[n] = coopMatMulAddNV(HMAT(u1), a, zero);
                z[n] = coopMatMulAddNV(HMAT(u2), c, z[n]); /* Y'^T */
            }
            if (stage < 5) {
                for (int i = 0; i < z[n].length(); i++)
                    z[n][i] = max(z[n][i], 0.0);
                if (odd)
                    yt[n] = HMAT(z[n]);
                else
                    y[n] = HMAT(z[n]);
            }
        }
    }

    /* The top-left 12 x 12 of each result is the window's block of the map. */
    for (int n = 0; n < WINDOWS; n++) {
        subgroupBarrier();
        coopMatStoreNV(z[n], res, base, 16u, true); /* Y6^T stored column-major: Y6 */
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        for (uint e = lane; e < 256u; e += 32u) {
            ivec2 p = window_map_pixel(first + n, int(e >> 4u), int(e & 15u));
            if (p.x >= 0)
                detail_store(p, res[base + e]);
        }
    }
}
