/* exact.comp: test_vk_runner's check of exact.glsl's stepping to the correctly rounded
 * quotient (UPF_STEP_TO_NEAREST, which lavapipe's own division, correctly rounded, never
 * needs). Reads: pairs (binding 0: a and b as float bits, then a signed offset in ulps).
 * Writes: out (binding 1): upf_fdiv_rn_from(a, b, q), q the device's a / b moved by the
 * offset (the same sign: its magnitude's bits). */
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Pairs { uvec4 pairs[]; };
layout(set = 0, binding = 1, std430) buffer Out { uint outv[]; };
layout(push_constant) uniform Push {
    int n;
} pc;

#include "exact.glsl"

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (i >= pc.n)
        return;
    const uvec4 p = pairs[i];
    const float a = uintBitsToFloat(p.x), b = uintBitsToFloat(p.y);
    const float q = uintBitsToFloat(uint(int(floatBitsToUint(a / b)) + int(p.z)));
    outv[i] = floatBitsToUint(p.w == 1u ? upf_rcp_rn_from(b, q) : upf_fdiv_rn_from(a, b, q));
}
