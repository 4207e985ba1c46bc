/* compose_common.glsl: what the two compose shaders share (compose.comp, a workgroup a tile
 * with its vertical sums in shared memory; compose_strips.comp, a subgroup a strip with its
 * vertical sums in the lanes): the push constants, the bindings, the frame's pixel as the
 * base filters it, and each output pixel from its base sum and detail to the store. The
 * formulas are compose.comp's header's (CPU reference: src/spatial/compose.c).
 *
 * The including shader declares the specialisation constants BASE_TAPS, MAP, SRGB_BASE and
 * SHARPEN (compose.comp's ids 2-5) and includes color.glsl and compose_taps.glsl first. */
#ifndef UPF_COMPOSE_COMMON_GLSL
#define UPF_COMPOSE_COMMON_GLSL

layout(push_constant, std430) uniform Push {
    int in_width;
    int in_height;
    int map_width;
    int map_height;
    int out_width;
    int out_height;
    int step;
    uint flags;
    float sharpness;
    UPF_PUSH_TAIL
} pc;

layout(set = 0, binding = 1, std430) readonly buffer Linear { vec4 linear[]; };
/* The same buffer as convert leaves it with fuse bit UPF_VK_FUSE_ENCODE: alpha alone, one
 * float a pixel (convert.comp). */
layout(set = 0, binding = 1, std430) readonly buffer LinearAlpha { float linear_alpha[]; };
layout(set = 0, binding = 6, std430) readonly buffer Frame { uint frame[]; };
layout(set = 0, binding = 7, std430) readonly buffer Detail { float detail[]; };
layout(set = 0, binding = 8, std430) readonly buffer Range { float range[4]; };
layout(set = 0, binding = 9) uniform writeonly image2D dst;
layout(set = 0, binding = 11, std430) readonly buffer Taps { uint taps[]; };
/* The sRGB tables (src/vk/ABI.md, binding 12): srgb8[1792 + c] the float bits of frame code
 * c's sRGB value, for the sRGB-Lanczos base. */
layout(set = 0, binding = 12, std430) readonly buffer Srgb8 { uint srgb8[]; };
const uint SRGB_OF_CODE = 1792u;

#define TAPS 6 /* the most taps a base has (Lanczos-3) */

/* The frame's pixel (x, y) as the base filters it: unpacked, squared for the cubic base (it
 * filters linear light), each code's sRGB value for the sRGB base. */
vec4 frame_px(int x, int y, bool cubic)
{
    const uint word = frame[uint(y) * uint(pc.in_width) + uint(x)];
    vec4 p = upf_unpack_sqrt1010102_fast(word);
    if (SRGB_BASE)
        p.rgb = vec3(uintBitsToFloat(srgb8[SRGB_OF_CODE + (word & 1023u)]),
                     uintBitsToFloat(srgb8[SRGB_OF_CODE + ((word >> 10u) & 1023u)]),
                     uintBitsToFloat(srgb8[SRGB_OF_CODE + ((word >> 20u) & 1023u)]));
    if (cubic) {
        precise vec3 p2 = p.rgb * p.rgb;
        p.rgb = p2;
    }
    return p;
}

/* Its alpha at full precision, when range B > 0 (a translucent frame: the frame's word holds
 * two bits of alpha): linear's, or the alpha plane's when convert wrote only that
 * (alpha_plane: fuse bit UPF_VK_FUSE_ENCODE). */
float frame_alpha(int x, int y, bool alpha_plane)
{
    const uint i = uint(y) * uint(pc.in_width) + uint(x);
    return alpha_plane ? linear_alpha[i] : linear[i].a;
}

/* A sum of sRGB values back to sqrt space, as the CPU's upf__sqrt_of_srgb: the square root of
 * the sRGB curve's linear value, ((e + 0.055) / 1.055)^1.2 above the linear segment (the
 * hardware's power), sqrt(e / 12.92) on it, the sign kept below 0. */
float sqrt_of_srgb(float e)
{
    if (e < 0.0) {
        precise float q = -e / 12.92;
        return -sqrt(q);
    }
    if (e <= 0.04045) {
        precise float q = e / 12.92;
        return sqrt(q);
    }
    precise float x = (e + 0.055) / 1.055;
    return pow(x, 1.2);
}

/* Whether the pass reads the detail map: its pipeline's MAP, unless this frame records no
 * detail pass (fuse bit UPF_VK_FUSE_NO_MAP: the map would be zeros). */
bool compose_reads_map()
{
    return MAP && (pc.fuse & UPF_VK_FUSE_NO_MAP) == 0u;
}

/* The sRGB base with nothing to add and an sRGB-encoded destination: o's colour would be the
 * sRGB curve undone (sqrt_of_srgb, squared) and done again by the store, so it is the base's
 * sum itself, clamped by the store; two powers a channel fewer, the same values within a few
 * float ulps. */
bool compose_srgb_direct(bool map)
{
    return SRGB_BASE && !map && !SHARPEN && pc.dst_transfer == 1u && !(range[0] > 0.0);
}

/* The base of an output pixel from its sum of n taps: the cubic base's sum is linear light
 * (its square root, 0 below 0), the sRGB base's an sRGB value (to sqrt space, unless
 * srgb_direct stores it as it is); a kernel base clamps alpha to [0, 1]. */
vec4 compose_base(vec4 acc, int n, bool srgb_direct)
{
    vec4 base = acc;
    if (n == 4)
        base.rgb = vec3(acc.r > 0.0 ? sqrt(acc.r) : 0.0, acc.g > 0.0 ? sqrt(acc.g) : 0.0,
                        acc.b > 0.0 ? sqrt(acc.b) : 0.0);
    if (SRGB_BASE && !srgb_direct)
        base.rgb = vec3(sqrt_of_srgb(acc.r), sqrt_of_srgb(acc.g), sqrt_of_srgb(acc.b));
    if (n != 2)
        base.a = clamp(base.a, 0.0, 1.0);
    return base;
}

/* The detail map bilinearly from its four samples ds (x0 y0, x0 y1, x1 y0, x1 y1) and the
 * rows' and columns' weights (1 - f, f): rows first, as the CPU's upf__lerp. */
float compose_detail(vec4 ds, vec2 wy, vec2 wx)
{
    precise float d0 = wy.x * ds.x + wy.y * ds.y;
    precise float d1 = wy.x * ds.z + wy.y * ds.w;
    precise float dd = wx.x * d0 + wx.y * d1;
    return dd;
}

/* o = max(base + detail, 0)^2 on R, G, B (the base itself when srgb_direct: nothing is
 * added), alpha the base's. */
vec4 compose_o(vec4 base, float d, bool srgb_direct)
{
    vec4 o;
    for (int c = 0; c < 3; c++) {
        precise float v = base[c] + d;
        v = v > 0.0 ? v : 0.0;
        precise float v2 = v * v;
        o[c] = srgb_direct ? base[c] : v2;
    }
    o.a = base.a;
    return o;
}

/* The store of output pixel p (after the sharpen, if any): the tone map undone when convert
 * made one (range R > 0: c = c' * min(1 / (1 - max(c')), 1 + M)), sRGB-encoded for
 * dst_transfer 1, at the destination rectangle's offset. With srgb_direct o holds sRGB
 * values already. */
void compose_store(ivec2 p, vec4 o, bool srgb_direct)
{
    if (srgb_direct) {
        imageStore(dst, ivec2(pc.dst_x, pc.dst_y) + p, vec4(clamp(o.rgb, 0.0, 1.0), o.a));
        return;
    }
    if (range[0] > 0.0) {
        precise float most = 1.0 + range[1];
        float m = max(max(o.r, o.g), o.b);
        precise float gap = 1.0 - m;
        float scale = m < 1.0 ? upf_rcp_rn(gap) : most;
        scale = scale < most ? scale : most;
        precise vec3 undone = o.rgb * scale;
        o.rgb = undone;
    }
    if (pc.dst_transfer == 1u)
        o.rgb = vec3(upf_linear_to_srgb(clamp(o.r, 0.0, 1.0)),
                     upf_linear_to_srgb(clamp(o.g, 0.0, 1.0)),
                     upf_linear_to_srgb(clamp(o.b, 0.0, 1.0)));
    imageStore(dst, ivec2(pc.dst_x, pc.dst_y) + p, o);
}

#endif
