/* detail.comp: the detail pass on the GPU in fp32, the network on the shader cores with
 * shared memory (detail_fma.glsl); the variant for every device, lavapipe included (CPU
 * reference: src/spatial/detail.c and net_infer.c; docs/SPATIAL.md, "Pass 4").
 *
 * Reads: the frame (binding 6), the network weights (binding 10: 6144 float32,
 * w[stage][A, B, C, D][r * 16 + c]). Writes: the detail map (binding 7).
 *
 * One workgroup of 128 invocations per 48 x 48 map tile: 8 windows at a time, two rounds.
 * The map agrees with the CPU's to about 1e-6 (fused multiply-adds; tests/test_vk_passes.c).
 * Shared memory: the patch (8464 bytes) + a stage's weights (4096) + two 16 x 16 slots for
 * each of the 8 windows (16384) + 512: 29456 bytes, within the 32 KiB every Vulkan device
 * offers. Grid tiles_x x tiles_y. */
#version 450
#extension GL_GOOGLE_include_directive : require

#define DT float
#define DV4 vec4
#define NET_T float
#define GROUP 8
#define EXACT_PATCH true
#include "detail_fma.glsl"
