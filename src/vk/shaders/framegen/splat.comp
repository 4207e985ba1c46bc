/* splat.comp: the splat pass on the GPU (CPU reference: src/framegen/splat.c; docs/FRAMEGEN.md,
 * "splat"). Reads: motion (binding 11), priority (12), camera (16). Writes: splat (18: the
 * least priority landed in each cell), splat_index (19: the least index of that priority),
 * both filled with 0xffffffff by the runner before the pass, splat_land (20: where each
 * pixel landed, written by the first step, read by the second).
 *
 * Dispatches (the step patched into the push constants after the pass's constants, a
 * barrier between them): first the powers step (SPLAT_POWERS, one
 * workgroup: powers): where there is a camera model, the phase's powers of G (camera.glsl,
 * CAM_POW: G, G^(1 - t), G^t, G^-(1 - t), as splat.c and resolve.c compute them) into the
 * camera surface, for this pass, the fill and the resolve; then priorities (splat.glsl,
 * splat_priorities: through the workgroup's cells in shared memory), then indices
 * (splat_pixel). One invocation per pixel of N, 16 x 16 a workgroup (a workgroup's launch
 * costs about the same whatever its size), grid ceil(W / 16) x ceil(H / 16). vk_framegen.h,
 * upf__vk_fg_splat_frame. */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 11, std430) readonly buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 12, std430) readonly buffer Priority { uint priority[]; };
layout(set = 0, binding = 16, std430) buffer Camera { float cam[]; };
layout(set = 0, binding = 18, std430) buffer Splat { uint splat[]; };
layout(set = 0, binding = 19, std430) buffer SplatIndex { uint splat_index[]; };
layout(set = 0, binding = 20, std430) buffer SplatLand { uint splat_land[]; };
layout(push_constant) uniform Push {
    int width, height;
    float shift;        /* 1 - t */
    uint flow;          /* 1: outside N-1 by the camera, the camera alone (splat.glsl) */
    uint step;          /* patched: SPLAT_POWERS, 0 priorities, 1 indices */
    float t;            /* the phase (shift = 1 - t, as the host computed it) */
} pc;

#define SPLAT_POWERS 2u /* vk_framegen.h, UPF__VK_FG_SPLAT_POWERS */

#define SPLAT_CAMERA
#define SPLAT_GROUPED
#define SPLAT_DEPTH splat
#define SPLAT_INDEX splat_index
#include "splat.glsl"

/* The powers step (one workgroup): G^s = exp(s log G) for the phase's four s by scaling and
 * squaring (1/16, four squarings) with the Taylor series of exp to 10 terms, camera.c's
 * upf__fg_camera_power, with one invocation per element of each of the four matrices (36):
 * each product's element by mat_mul's operations in its order, each term's division
 * correctly rounded, `precise`, so the powers are the CPU's floats; 28 barriers, not one
 * invocation's 14 serial 3x3 products (with a model, nothing written without). */
shared float pw_a[36], pw_term[36], pw_sum[36];

/* element (r, c) of matrix k's product x y, x and y in shared memory */
float pw_mul(int k, int r, int c, bool term)
{
    const int b = 9 * k;
    const float x0 = term ? pw_term[b + 3 * r] : pw_sum[b + 3 * r];
    const float x1 = term ? pw_term[b + 3 * r + 1] : pw_sum[b + 3 * r + 1];
    const float x2 = term ? pw_term[b + 3 * r + 2] : pw_sum[b + 3 * r + 2];
    const float y0 = term ? pw_a[b + c] : pw_sum[b + c];
    const float y1 = term ? pw_a[b + 3 + c] : pw_sum[b + 3 + c];
    const float y2 = term ? pw_a[b + 6 + c] : pw_sum[b + 6 + c];
    precise float o = x0 * y0 + x1 * y1 + x2 * y2;
    return o;
}

void powers()
{
    if (cam[CAM_HAS] == 0.0) /* the same for the whole workgroup */
        return;
    const int me = int(gl_LocalInvocationIndex), k = me / 9, e = me % 9;
    const bool on = me < 9 * CAM_POW_COUNT;
    if (on) {
        precise float back = -(1.0 - pc.t); /* resolve.c's -(1 - t) */
        const float s = k == 0 ? 1.0 : k == 1 ? pc.shift : k == 2 ? pc.t : back;
        precise float v = s * cam[CAM_LOG + e] * (1.0 / 16.0);
        const float id = e % 4 == 0 ? 1.0 : 0.0;
        pw_a[me] = v, pw_term[me] = id, pw_sum[me] = id;
    }
    barrier();
    for (int n = 1; n <= 10; n++) {
        float q = 0.0, u = 0.0;
        if (on) {
            precise float qq = upf_fdiv_rn(pw_mul(k, e / 3, e % 3, true), float(n));
            precise float uu = pw_sum[me] + qq;
            q = qq, u = uu;
        }
        barrier();
        if (on)
            pw_term[me] = q, pw_sum[me] = u;
        barrier();
    }
    for (int n = 0; n < 4; n++) {
        const float v = on ? pw_mul(k, e / 3, e % 3, false) : 0.0;
        barrier();
        if (on)
            pw_sum[me] = v;
        barrier();
    }
    if (on)
        cam[CAM_POW + me] = pw_sum[me];
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
        splat_camera_setup(pc.flow != 0u);
        splat_priorities(x, y, pc.width, pc.height, pc.shift, in_frame);
    } else if (in_frame) {
        splat_pixel(x, y, pc.width, pc.height, pc.shift, 1u);
    }
}
