/* locks.comp: the temporal engine's locks pass on the GPU (CPU reference: src/temporal/locks.c,
 * whose comment gives the rule): 1 on a thin feature, else 0.
 *
 * Reads: colour (binding 5, vec4, A the tonemapped luma). Writes: locks (11, float).
 * Local size 16 x 16, one invocation per render pixel; grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "temporal_common.glsl"

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    float contrast;
    float similar;
} pc;

layout(set = 0, binding = B_COLOR, std430) readonly buffer Color { vec4 color[]; };
layout(set = 0, binding = B_LOCKS, std430) writeonly buffer Locks { float locks[]; };

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    const int W = pc.width, H = pc.height;
    if (p.x >= W || p.y >= H)
        return;
    float L[9], lo = 1.0 / 0.0, hi = -1.0 / 0.0;
    for (int k = 0; k < 9; k++) {
        int sx = upf_clampi(p.x + k % 3 - 1, 0, W - 1), sy = upf_clampi(p.y + k / 3 - 1, 0, H - 1);
        L[k] = color[sy * W + sx].a;
        lo = L[k] < lo ? L[k] : lo;
        hi = L[k] > hi ? L[k] : hi;
    }
    float range = hi - lo, lock = 0.0;
    if (range >= pc.contrast) {
        const float centre = L[4], tol = pc.similar * range;
        bool similar[9];
        bool above = true, below = true;
        for (int k = 0; k < 9; k++) {
            similar[k] = abs(L[k] - centre) <= tol;
            if (k != 4 && !similar[k]) {
                above = above && centre > L[k];
                below = below && centre < L[k];
            }
        }
        /* the 2x2 blocks around the centre: its corner and the two edge neighbours */
        bool wide = (similar[0] && similar[1] && similar[3]) ||
                    (similar[1] && similar[2] && similar[5]) ||
                    (similar[3] && similar[6] && similar[7]) ||
                    (similar[5] && similar[7] && similar[8]);
        lock = (above || below) && !wide ? 1.0 : 0.0;
    }
    locks[p.y * W + p.x] = lock;
}
