/* disocclusion.glsl: the temporal engine's disocclusion pass on the GPU (CPU reference:
 * src/temporal/disocclusion.c, whose comment gives the test), the body of disocclusion.comp
 * (no reactive mask) and disocclusion_reactive.comp (REACTIVE defined).
 *
 * Reads: dilated motion (binding 7), dilated depth (8), previous depth (9), reactive (3, a
 * sampled R8 / R16F / R32F image, with REACTIVE). Writes: reactivity (10, vec2: disocclusion,
 * reactive). One invocation per render pixel. */
#include "temporal_common.glsl"

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    float jitter_x;
    float jitter_y;
    float separation;
    float slope_pixels;
    uint has_reactive;
    /* tail (ABI.md) */
    int reactive_x;
    int reactive_y;
} pc;

layout(set = 0, binding = B_DILATED_MOTION, std430) readonly buffer DMotion { vec2 dmotion[]; };
layout(set = 0, binding = B_DILATED_DEPTH, std430) readonly buffer DDepth { float dz[]; };
layout(set = 0, binding = B_PREV_DEPTH, std430) readonly buffer PrevDepth { uint prev_depth[]; };
layout(set = 0, binding = B_REACTIVITY, std430) writeonly buffer Reactivity { vec2 reactivity[]; };
#ifdef REACTIVE
layout(set = 0, binding = B_REACTIVE) uniform texture2D reactive_in;
#endif

/* The smaller one-sided difference of z along one axis (0 when neither side exists). */
float one_sided(int i, int step, int at, int size)
{
    float c = dz[i];
    float a = at > 0 ? abs(c - dz[i - step]) : 1.0 / 0.0;
    float b = at < size - 1 ? abs(dz[i + step] - c) : 1.0 / 0.0;
    float g = a < b ? a : b;
    return isinf(g) || isnan(g) ? 0.0 : g;
}

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    const int W = pc.width, H = pc.height;
    if (p.x >= W || p.y >= H)
        return;
    const int i = p.y * W + p.x;
    const vec2 mv = dmotion[i];
    const float z = dz[i];
    float qx = float(p.x) + 0.5 + pc.jitter_x + mv.x;
    float qy = float(p.y) + 0.5 + pc.jitter_y + mv.y;
    float dis = 1.0;
    if (qx >= 0.0 && qx <= float(W) && qy >= 0.0 && qy <= float(H)) {
        float g = one_sided(i, 1, p.x, W) + one_sided(i, W, p.y, H);
        float s = pc.separation * z + pc.slope_pixels * g;
        float ux = qx - 0.5, uy = qy - 0.5;
        int i0 = int(floor(ux)), j0 = int(floor(uy));
        float fx = ux - float(i0), fy = uy - float(j0);
        float least = 1.0;
        int taps = 0;
        for (int k = 0; k < 4; k++) {
            int tx = i0 + (k & 1), ty = j0 + (k >> 1);
            float w = ((k & 1) != 0 ? fx : 1.0 - fx) * ((k >> 1) != 0 ? fy : 1.0 - fy);
            if (!(w > UPF_SCATTER_MIN) || tx < 0 || tx >= W || ty < 0 || ty >= H)
                continue;
            uint bits = prev_depth[ty * W + tx];
            float t = 0.0;
            if (bits != UPF_NO_DEPTH) {
                float excess = (z - uintBitsToFloat(bits) - s) / s;
                t = excess > 0.0 ? (excess < 1.0 ? excess : 1.0) : 0.0;
            }
            least = t < least ? t : least;
            taps++;
        }
        dis = taps != 0 ? least : 1.0;
    }
    float react = 0.0;
#ifdef REACTIVE
    for (int k = 0; k < 9; k++) {
        ivec2 s = ivec2(upf_clampi(p.x + k % 3 - 1, 0, W - 1), upf_clampi(p.y + k / 3 - 1, 0, H - 1));
        float v = texelFetch(reactive_in, s + ivec2(pc.reactive_x, pc.reactive_y), 0).r;
        v = isnan(v) ? 1.0 : v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
        react = v > react ? v : react;
    }
#endif
    reactivity[i] = vec2(dis, react);
}
