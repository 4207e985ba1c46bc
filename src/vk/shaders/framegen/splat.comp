/* splat.comp: the splat pass on the GPU (CPU reference: src/framegen/splat.c; docs/FRAMEGEN.md,
 * "splat"). Reads: motion (binding 11), priority (12), camera (16). Writes: splat (18: the
 * least priority landed in each cell), splat_index (19: the least index of that priority),
 * both filled with 0xffffffff by the runner before the pass, splat_land (20: where each
 * pixel landed, written by the first step, read by the second).
 *
 * Two dispatches (the step patched into the push constants after the pass's constants, a
 * barrier between them): priorities (splat.glsl, splat_priorities: through the workgroup's
 * cells in shared memory), then indices (splat_pixel). One invocation per pixel of
 * N, 8 x 8 a workgroup; in the first step invocation 0 of each computes the camera's powers
 * G and G^(1 - t) into shared memory. Grid ceil(W / 8) x ceil(H / 8). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 11, std430) readonly buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 12, std430) readonly buffer Priority { uint priority[]; };
layout(set = 0, binding = 16, std430) readonly buffer Camera { float cam[]; };
layout(set = 0, binding = 18, std430) buffer Splat { uint splat[]; };
layout(set = 0, binding = 19, std430) buffer SplatIndex { uint splat_index[]; };
layout(set = 0, binding = 20, std430) buffer SplatLand { uint splat_land[]; };
layout(push_constant) uniform Push {
    int width, height;
    float shift;        /* 1 - t */
    uint step;          /* patched: 0 priorities, 1 indices */
} pc;

#define SPLAT_CAMERA
#define SPLAT_GROUPED
#define SPLAT_DEPTH splat
#define SPLAT_INDEX splat_index
#include "splat.glsl"

void main()
{
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    const bool in_frame = x < pc.width && y < pc.height;
    if (pc.step == 0u) { /* step 1 reads where each pixel landed: no camera */
        splat_camera_setup(pc.shift);
        splat_priorities(x, y, pc.width, pc.height, pc.shift, in_frame);
    } else if (in_frame) {
        splat_pixel(x, y, pc.width, pc.height, pc.shift, 1u);
    }
}
