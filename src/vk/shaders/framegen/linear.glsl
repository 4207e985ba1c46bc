/* linear.glsl: the linear frames as the GPU keeps them, 8 bytes a pixel (CPU reference:
 * framegen_passes.h, upf__fg_linear_round, upf__fg_linear_pack and upf__fg_linear_unpack;
 * docs/FRAMEGEN.md, "prepare"). Each colour value is the float rounded to the 12 upper bits of
 * its mantissa (to nearest, ties to even: integer operations, the CPU's bits), so its 21 bits
 * (sign, exponent, 12 bits) and the other two fit in a uvec2: r's in x's upper 21 bits, g's
 * upper 11 in x's lower 11, b's in y's upper 21, g's lower 10 in y's bits 1..10. Unpacking is
 * masks and shifts: the same floats, not an approximation. Reads and writes nothing. */
#ifndef UPF_FG_LINEAR_GLSL
#define UPF_FG_LINEAR_GLSL

vec3 linear_round(vec3 c)
{
    uvec3 b = floatBitsToUint(c);
    b = (b + 0x3ffu + ((b >> 11u) & 1u)) & ~0x7ffu;
    return uintBitsToFloat(b);
}

/* c: rounded (linear_round) */
uvec2 linear_pack(vec3 c)
{
    const uvec3 b = floatBitsToUint(c);
    return uvec2((b.r & ~0x7ffu) | (b.g >> 21u), (b.b & ~0x7ffu) | ((b.g >> 10u) & 0x7feu));
}

vec4 linear_unpack(uvec2 w)
{
    return vec4(uintBitsToFloat(w.x & ~0x7ffu),
                uintBitsToFloat((w.x << 21u) | ((w.y & 0x7feu) << 10u)),
                uintBitsToFloat(w.y & ~0x7ffu), 1.0);
}

#endif
