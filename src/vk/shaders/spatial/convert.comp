/* convert.comp: the spatial engine's convert pass on the GPU (CPU reference:
 * src/spatial/convert.c; docs/SPATIAL.md, "Input" and "High dynamic range and alpha").
 *
 * Reads: the source (binding 0, a sampled image read with texelFetch at the source
 * rectangle's offset + pixel). Writes: linear (binding 1, RGBA float, rows tightly packed)
 * and range (binding 8, 16 bytes, zeroed by the backend before the dispatch); with fuse bit
 * 0 (UPF_VK_FUSE_ENCODE) the frame (binding 6) and, in linear's place, its alpha plane (one
 * float a pixel in the first quarter of the same buffer: the only part of linear that compose,
 * the one pass that reads it without SMAA, takes). Tables: binding 12 (below).
 *
 * One dispatch: each pixel to linear light (src_transfer 0: as texelFetch gives it; 1: sRGB
 * data in a UNORM view, decoded by the curve in float; 2 and 3: 8-bit sRGB data in an sRGB
 * view (2) or a UNORM view (3), taken back to its codes and decoded with the CPU's table,
 * binding 12, so the result is the CPU's bit for bit), negative values and (unlike the CPU,
 * which fails) NaN and Inf as 0, alpha clamped to [0, 1]; written to linear. The frame's
 * largest R, G or B, M, goes to range G by an atomic max of its bits (non-negative floats
 * order as their bits), range B gets the bits of 1.0 when some alpha is below 1.
 * The CPU's second half of the pass, the tone map of a frame with M > 1 (c' = c * (1 / (1 +
 * max(c))) on R, G, B, and range R = M / (1 + M)), needs M, known only once every workgroup
 * has run: on the GPU it is not a dispatch of its own but done by the passes that read linear
 * after this one, on the values they load (tone_map.glsl: smaa_edges, which also writes range
 * R, and smaa_blend; compose reads only linear's alpha, which the tone map keeps). So the
 * GPU's linear holds the values before the tone map (docs/VULKAN.md, "The pass list on the
 * GPU").
 * Fused encode (fuse bit 0): without SMAA the edges pass only encodes the frame, the sqrt
 * 10:10:10:2 packing of each pixel (smaa_edges.c's encode path), after the tone map. A
 * source whose format holds nothing above 1 (every UNORM format, sRGB or not) cannot be tone
 * mapped, so the backend sets the bit for it and skips the edges pass: this pass writes the
 * frame itself, the same words (correctly rounded square roots, as smaa_edges.comp; for an
 * 8-bit sRGB source each code's from the table at binding 12), one dispatch and one barrier fewer
 * (docs/VULKAN.md, "Fused passes"); linear is then only the alpha plane: 8 bytes written a
 * pixel instead of 20. With SMAA and an 8-bit sRGB source (fuse bit 2, UPF_VK_FUSE_CODES)
 * this pass writes the frame's words by its table beside linear; edges takes its luma's
 * roots from them (smaa_edges.comp).
 * One pixel an invocation: four (16 rows apart, their texels fetched first, a quarter of the
 * workgroups) took 22.0 us against 18.1 at 1536x864 on the H200, two 19.4, eight 25.7
 * (docs/PERFORMANCE.md).
 * Local size 16 x 16, one invocation per pixel; grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "color.glsl"

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    UPF_PUSH_TAIL
} pc;

layout(set = 0, binding = 0) uniform texture2D src;
layout(set = 0, binding = 1, std430) writeonly buffer Linear { vec4 linear[]; };
/* The same buffer, with fuse bit UPF_VK_FUSE_ENCODE: alpha alone (below). */
layout(set = 0, binding = 1, std430) writeonly buffer LinearAlpha { float linear_alpha[]; };
layout(set = 0, binding = 6, std430) writeonly buffer Frame { uint frame[]; };
/* The 8-bit sRGB tables (the backend uploads them once): srgb8[c] the float bits of code c's
 * linear value, the CPU's upf_srgb8_to_linear_table (src/core/color.c: the IEC 61966-2-1
 * curve in double at c / 255, rounded to float); srgb8[256 + c] the frame's 10-bit code of
 * its square root, as the CPU's upf_pack_sqrt1010102 makes it; srgb8[512 + c] the float bits
 * of c / 255, an 8-bit alpha as the CPU reads it (the correctly rounded quotient of exact.glsl
 * took convert 16.1 -> 19.9 us at 1536x864 on the H200 even for an opaque frame, every alpha
 * 255: docs/PERFORMANCE.md). In a buffer rather than as
 * constant arrays in the shader: an array indexed by a value is copied into each invocation's
 * local memory, which made this pass 8 to 10 us slower at 1536x864 on the H200. */
layout(set = 0, binding = 12, std430) readonly buffer Srgb8 { uint srgb8[1792]; };
layout(set = 0, binding = 8, std430) coherent volatile buffer Range { uint range[4]; };

shared uint red_max[256];
shared uint red_or[256];

float finite_or_zero(float v)
{
    return isnan(v) || isinf(v) ? 0.0 : v;
}

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    bool inside = p.x < pc.width && p.y < pc.height;
    uint i = uint(p.y) * uint(pc.width) + uint(p.x);

    uint m_bits = 0u, translucent = 0u;
    if (inside) {
        vec4 c = texelFetch(src, ivec2(pc.src_x, pc.src_y) + p, 0);
        uint roots10 = 0u;  /* 8-bit sRGB: the frame's codes of R, G, B by table */
        bool by_table = false;
        if (pc.src_transfer == 1u) {
            c.rgb = vec3(upf_srgb_to_linear(c.r), upf_srgb_to_linear(c.g),
                         upf_srgb_to_linear(c.b));
        } else if (pc.src_transfer >= 2u) {
            /* 8-bit sRGB: back to the codes, then the CPU's table. 2: an sRGB view the
             * hardware decoded (re-encoded: its decode is far closer than half a code
             * step); 3: a UNORM view (the values are code / 255). */
            for (int k = 0; k < 3; k++) {
                float e = pc.src_transfer == 3u ? c[k] : upf_linear_to_srgb(clamp(c[k], 0.0, 1.0));
                const uint code = upf_unorm(e, 255u);
                c[k] = uintBitsToFloat(srgb8[code]);
                roots10 |= srgb8[256u + code] << (10u * uint(k));
            }
            by_table = true;
            /* Alpha: 1 for the opaque code without a load, else the table's c / 255. */
            const uint alpha = upf_unorm(c.a, 255u);
            c.a = alpha == 255u ? 1.0 : uintBitsToFloat(srgb8[512u + alpha]);
        }
        for (int k = 0; k < 4; k++) {
            float v = finite_or_zero(c[k]);
            c[k] = v > 0.0 ? v : 0.0; /* below 0 and -0 become +0 */
        }
        c.a = c.a < 1.0 ? c.a : 1.0;
        const uint table_word = roots10 | (upf_unorm(c.a, 3u) << 30u); /* 8-bit sRGB */
        if ((pc.fuse & UPF_VK_FUSE_ENCODE) != 0u) {
            frame[i] = by_table ? table_word : upf_pack_sqrt1010102(c);
            linear_alpha[i] = c.a;
        } else {
            linear[i] = c;
            /* fuse bit UPF_VK_FUSE_CODES (an 8-bit sRGB source with SMAA): the frame too, by
             * table, for edges to read instead of square-rooting linear */
            if ((pc.fuse & UPF_VK_FUSE_CODES) != 0u)
                frame[i] = table_word;
        }
        m_bits = floatBitsToUint(max(max(c.r, c.g), c.b));
        translucent = c.a < 1.0 ? 1u : 0u;
    }
    const uint t = gl_LocalInvocationIndex;
    if ((pc.fuse & UPF_VK_FUSE_AT_MOST_ONE) != 0u) {
        /* A source that holds nothing above 1 (fuse bit UPF_VK_FUSE_AT_MOST_ONE: every UNORM
         * format) is never tone-mapped, whatever its M, so the range's G is not wanted (it
         * stays 0, which the passes after read as "not tone-mapped" as they would M <= 1):
         * only whether some alpha is below 1. The translucent invocations set one shared
         * word (a shared atomic, none for an opaque pixel) between two barriers, then at
         * most one atomic on the range. With the tree below instead, convert took 16.0 us
         * at 1536x864 on the H200, with this 15.5; a subgroup vote (subgroupAny, no barrier)
         * 14.8, but that needs the optional vote feature (docs/PERFORMANCE.md). */
        if (t == 0u)
            red_or[0] = 0u;
        barrier();
        if (translucent != 0u)
            atomicOr(red_or[0], 1u);
        barrier();
        if (t == 0u && red_or[0] != 0u && range[2] == 0u)
            atomicOr(range[2], floatBitsToUint(1.0));
        return;
    }
    /* A float source: the workgroup's largest value and translucency in shared memory, in
     * two levels of 16 (three barriers; a tree of halvings took nine and 2.6 us more at
     * 1536x864 on the H200; no contended atomics), then at most one atomic each on the range,
     * and none when the range already holds as much (it only grows, so a stale read can only
     * cause an unneeded atomic, never skip a needed one). */
    red_max[t] = m_bits;
    red_or[t] = translucent;
    barrier();
    if (t < 16u) { /* two levels of 16 (max and or are exact in any order) */
        uint m = red_max[t], o = red_or[t];
        for (uint j = 1u; j < 16u; j++) {
            m = max(m, red_max[t + 16u * j]);
            o |= red_or[t + 16u * j];
        }
        red_max[t] = m;
        red_or[t] = o;
    }
    barrier();
    if (t == 0u) {
        uint m = red_max[0], o = red_or[0];
        for (uint j = 1u; j < 16u; j++) {
            m = max(m, red_max[j]);
            o |= red_or[j];
        }
        if (m > range[1])
            atomicMax(range[1], m);
        if (o != 0u && range[2] == 0u)
            atomicOr(range[2], floatBitsToUint(1.0));
    }
}
