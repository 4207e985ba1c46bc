/* detail_fp16.comp: the detail pass on the GPU with fp16 arithmetic and 16-bit storage
 * (body: detail_fma.glsl), for devices with shaderFloat16 and storageBuffer16BitAccess (CPU
 * reference: src/spatial/detail.c and net_infer.c; docs/SPATIAL.md, "Pass 4", "Precision").
 *
 * Reads: the frame (binding 6), the network weights (binding 10: 6144 float16,
 * w[stage][A, B, C, D][r * 16 + c], exactly the model file's values). Writes: the detail map
 * (binding 7, float32).
 *
 * Every product and sum of the six stages is fp16 (two lanes per instruction where the GPU
 * packs half2); the luma patch and the window mean are fp32, the window's input rounded to
 * fp16 once. 8 windows a round, two rounds a tile: 256 invocations a workgroup (179.3 us at
 * 1280x720 -> 2560x1440 and 375.4 at 1080p -> 4K on the H200; 4 windows a round 184.2 /
 * 381.4), each window's luma read straight from the frame (164.5 / 343.8; docs/PERFORMANCE.md).
 * The map differs from the fp32 one by the fp16 roundings (the whole pipeline is held to a
 * mean absolute difference of 0.0005, tests/test_vk_spatial.c; the map to 1.2e-4 + 1 % of its
 * rms, tests/test_vk_passes.c). Shared memory: weights 2048 + 8 windows x 2 slots x 512 +
 * 1024: 11264 bytes. Grid tiles_x x tiles_y. */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#define FT float16_t
#define FT2 f16vec2
#define FT4 f16vec4
#define NET_T float16_t
#define WIN 8
#define EXACT_PATCH false
#define DIRECT_WINDOWS 1
#include "detail_fma.glsl"
