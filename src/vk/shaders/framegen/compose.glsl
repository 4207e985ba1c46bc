/* compose.glsl: the compose pass on the GPU (CPU reference: src/framegen/compose.c;
 * docs/FRAMEGEN.md, "compose"), shared by compose.comp (no HUD layer: the still-pixel rule)
 * and compose_hud.comp (COMPOSE_HUD: the HUD layer, binding 4, a sampled image, composited).
 * Reads: resolved (binding 23), the colour pyramid's level 1 (24), linear prev (6), linear
 * (7), or with BYTES (specialisation constant 0: both host colours 8-bit) the 8-bit frames
 * instead (30, vk_framegen.h UPF__VK_FG_BYTES: table[code], the CPU's floats). Writes: the
 * output (binding 5, a storage image written without a format qualifier, at its rectangle's
 * offset; the device converts to its format, an sRGB encode in the shader for sRGB values in
 * a UNORM view, out_transfer = 1).
 *
 * The made frame c is the inpaint's last steps, its up steps at levels 1 and 0 (inpaint.glsl,
 * up_value0: resolved where alpha is 1, else blended with the bilinear sample of level 1
 * after its up step, made here for the four texels sampled), fused here so that the
 * full-resolution colour is not written to memory and read back, nor level 1 twice.
 *
 * With a HUD (straight alpha a clamped to [0, 1], linear light; sRGB values in a UNORM view
 * decoded, hud_transfer = 1): o = c (1 - a) + h a, h itself where a = 1. Without: a still
 * pixel (equal in both frames and so are 5 of its 8 neighbours, edges clamped, or the very
 * same values in both frames along a line of three through it) takes (1 - t) A + t B there.
 * Alpha 1. The arithmetic is `precise`, in the CPU's order. One invocation per pixel, 16 x 16
 * a workgroup (a workgroup's launch costs about the same whatever its size: 256 pixels a
 * workgroup, not 64, launch a quarter of the workgroups). */
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 5) uniform writeonly image2D out_image;
layout(set = 0, binding = 6, std430) readonly buffer Prev { uvec2 prev[]; }; /* linear.glsl */
layout(set = 0, binding = 7, std430) readonly buffer Cur { uvec2 cur[]; };
layout(set = 0, binding = 23, std430) readonly buffer Resolved { vec4 resolved[]; };
layout(set = 0, binding = 24, std430) readonly buffer Pyramid { vec4 pyramid[]; };
layout(set = 0, binding = 30, std430) readonly buffer Bytes { uint bytes[]; };
layout(constant_id = 0) const bool BYTES = false;
#ifdef COMPOSE_HUD
layout(set = 0, binding = 4) uniform texture2D hud_image;
#endif
layout(push_constant) uniform Push {
    int width, height;                 /* upf__fg_compose_con */
    float t;
    uint hud;
    uint still_rule;
    float still_threshold;
    int out_x, out_y;                  /* the host rectangles' offsets */
    int hud_x, hud_y;
    uint out_transfer;                 /* 1: encode sRGB (a UNORM view holding sRGB) */
    uint hud_transfer;                 /* 1: decode sRGB */
    int levels;                        /* of the colour pyramid, level 0 included */
    uint prev_table, cur_table;        /* BYTES: each frame's decode table */
} pc;

#include "color.glsl"
#include "inpaint.glsl"

#include "frames.glsl"

/* pixel i of frame N-1 (from_prev) or N in linear light */
vec3 texel(bool from_prev, int i)
{
    return frame_texel(from_prev, i).rgb;
}

/* BYTES: pixel i's codes the same in both frames, decoded by the same table: its colours are
 * then equal (a table maps a code to one float), and no decode is needed to say so */
bool same_codes(int i)
{
    return BYTES && pc.prev_table == pc.cur_table && frame_word(true, i) == frame_word(false, i);
}

bool equal_at(int x, int y)
{
    const int i = y * pc.width + x;
    if (same_codes(i))
        return true; /* u = v: (u - v)^2 = 0 is never above th^2 (u + v) >= 0 */
    const vec3 a = texel(true, i), b = texel(false, i);
    const float th = pc.still_threshold;
    for (int k = 0; k < 3; k++) {
        const float u = a[k] > 0.0 ? a[k] : 0.0, v = b[k] > 0.0 ? b[k] : 0.0;
        precise float l = (u - v) * (u - v), r = th * th * (u + v);
        if (l > r)
            return false;
    }
    return true;
}

bool same_at(int x, int y)
{
    const int i = y * pc.width + x;
    if (BYTES && pc.prev_table == pc.cur_table) /* a table is strictly increasing: one-to-one */
        return frame_word(true, i) == frame_word(false, i);
    return texel(true, i) == texel(false, i);
}

bool still(int x, int y)
{
    if (!equal_at(x, y))
        return false;
    int n = 0;
    for (int k = 0; k < 9; k++) {
        if (k == 4)
            continue;
        const int sx = clamp(x + k % 3 - 1, 0, pc.width - 1);
        const int sy = clamp(y + k / 3 - 1, 0, pc.height - 1);
        n += equal_at(sx, sy) ? 1 : 0;
    }
    if (n >= 5)
        return true;
    if (!same_at(x, y))
        return false;
    const ivec2 line[4] = ivec2[4](ivec2(1, 0), ivec2(0, 1), ivec2(1, 1), ivec2(1, -1));
    for (int k = 0; k < 4; k++) {
        const ivec2 a = ivec2(x, y) + line[k], b = ivec2(x, y) - line[k];
        if (all(greaterThanEqual(a, ivec2(0))) && all(lessThan(a, ivec2(pc.width, pc.height))) &&
            all(greaterThanEqual(b, ivec2(0))) && all(lessThan(b, ivec2(pc.width, pc.height))) &&
            same_at(a.x, a.y) && same_at(b.x, b.y))
            return true;
    }
    return false;
}

void main()
{
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= pc.width || y >= pc.height)
        return;
    const int i = y * pc.width + x;
    precise vec3 o = up_value0(x, y).rgb;
#ifdef COMPOSE_HUD
    vec4 h = texelFetch(hud_image, ivec2(pc.hud_x + x, pc.hud_y + y), 0);
    if (pc.hud_transfer == 1u)
        h.rgb = vec3(upf_srgb_to_linear(h.r), upf_srgb_to_linear(h.g), upf_srgb_to_linear(h.b));
    const float al = h.a < 0.0 ? 0.0 : h.a > 1.0 ? 1.0 : h.a;
    if (al >= 1.0)
        o = h.rgb;
    else if (al > 0.0)
        o = o * (1.0 - al) + h.rgb * al;
#else
    if (pc.still_rule != 0u && still(x, y))
        o = (1.0 - pc.t) * texel(true, i) + pc.t * texel(false, i);
#endif
    vec3 v = o;
    if (pc.out_transfer == 1u)
        v = vec3(upf_linear_to_srgb(clamp(v.r, 0.0, 1.0)), upf_linear_to_srgb(clamp(v.g, 0.0, 1.0)),
                 upf_linear_to_srgb(clamp(v.b, 0.0, 1.0)));
    imageStore(out_image, ivec2(pc.out_x + x, pc.out_y + y), vec4(v, 1.0));
}
