/* detail.comp: the detail pass on the GPU in fp32, the network on the shader cores with
 * shared memory (body: detail_fma.glsl; CPU reference: src/spatial/detail.c and net_infer.c;
 * docs/SPATIAL.md, "Pass 4"). The variant for every device (lavapipe included).
 *
 * Reads: the frame (binding 6), the network weights (binding 10: 6144 float32,
 * w[stage][A, B, C, D][r * 16 + c]). Writes: the detail map (binding 7).
 *
 * 4 windows a round, four rounds a tile: 128 invocations a workgroup (8 a round in 256
 * invocations took 371.4 against 357.8 us at 1280x720 -> 2560x1440 and 788.6 against 723.9
 * at 1080p -> 4K on the H200; 2 a round 511.1 / 1028.0; docs/PERFORMANCE.md). The map agrees
 * with the CPU's to about 1e-6 (the test's bound is in tests/test_vk_passes.c): the sums run in
 * the CPU's order, with fused multiply-adds where the CPU rounds each product.
 *
 * Shared memory: the patch (8464 bytes) + a stage's weights (4096) + two 16 x 16 slots for
 * each of the 4 windows in flight (8192) + their means (512): 21264 bytes, within the 32 KiB
 * Vulkan lets every device offer. Grid tiles_x x tiles_y. */
#version 450
#extension GL_GOOGLE_include_directive : require

#define FT float
#define FT2 vec2
#define FT4 vec4
#define NET_T float
#define WIN 4
#define EXACT_PATCH true
#define DIRECT_WINDOWS 0
#include "detail_fma.glsl"
