/* splat.comp: the splat pass on the GPU (CPU reference: src/framegen/splat.c; docs/FRAMEGEN.md,
 * "splat"). Reads: motion (binding 11), priority (12), camera (16). Writes: splat (18: the
 * least priority landed in each cell), splat_index (19: the least index of that priority),
 * both filled with 0xffffffff by the runner before the pass, splat_land (20: where each
 * pixel landed, written by the first step, read by the second).
 *
 * Dispatches (the step patched into the push constants after the pass's constants, a
 * barrier between them): with game vectors first the powers step (SPLAT_POWERS, one
 * workgroup): where there is a camera model, invocation k < 4 computes the phase's power k
 * of G (camera.glsl, CAM_POW: G, G^(1 - t), G^t, G^-(1 - t), as splat.c and resolve.c
 * compute them: cam_power) into the camera surface, for this pass, the fill and the
 * resolve; then priorities (splat.glsl, splat_priorities: through the workgroup's cells in
 * shared memory), then indices (splat_pixel). One invocation per pixel of N, 8 x 8 a
 * workgroup, grid ceil(W / 8) x ceil(H / 8). vk_framegen.h, upf__vk_fg_splat_frame. */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 11, std430) readonly buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 12, std430) readonly buffer Priority { uint priority[]; };
layout(set = 0, binding = 16, std430) buffer Camera { float cam[]; };
layout(set = 0, binding = 18, std430) buffer Splat { uint splat[]; };
layout(set = 0, binding = 19, std430) buffer SplatIndex { uint splat_index[]; };
layout(set = 0, binding = 20, std430) buffer SplatLand { uint splat_land[]; };
layout(push_constant) uniform Push {
    int width, height;
    float shift;        /* 1 - t */
    uint step;          /* patched: SPLAT_POWERS, 0 priorities, 1 indices */
    float t;            /* the phase (shift = 1 - t, as the host computed it) */
} pc;

#define SPLAT_POWERS 2u /* vk_framegen.h, UPF__VK_FG_SPLAT_POWERS */

#define SPLAT_CAMERA
#define SPLAT_GROUPED
#define SPLAT_DEPTH splat
#define SPLAT_INDEX splat_index
#include "splat.glsl"

/* The powers step: invocation k < CAM_POW_COUNT computes power k (nothing without a model). */
void powers()
{
    const int k = int(gl_LocalInvocationIndex);
    if (k >= CAM_POW_COUNT || cam[CAM_HAS] == 0.0)
        return;
    precise float back = -(1.0 - pc.t); /* resolve.c's -(1 - t) */
    const float s = k == 0 ? 1.0 : k == 1 ? pc.shift : k == 2 ? pc.t : back;
    float lg[9], m[9];
    for (int i = 0; i < 9; i++)
        lg[i] = cam[CAM_LOG + i];
    cam_power(lg, s, m);
    for (int i = 0; i < 9; i++)
        cam[CAM_POW + 9 * k + i] = m[i];
}

void main()
{
    if (pc.step == SPLAT_POWERS) {
        powers();
        return;
    }
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    const bool in_frame = x < pc.width && y < pc.height;
    if (pc.step == 0u) { /* step 1 reads where each pixel landed: no camera */
        splat_camera_setup();
        splat_priorities(x, y, pc.width, pc.height, pc.shift, in_frame);
    } else if (in_frame) {
        splat_pixel(x, y, pc.width, pc.height, pc.shift, 1u);
    }
}
