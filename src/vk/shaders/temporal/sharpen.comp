/* sharpen.comp: the temporal engine's sharpen pass on the GPU (CPU reference:
 * src/temporal/sharpen.c, whose comment gives the filter): the contrast-adaptive sharpen of
 * the accumulated frame, then back to the host's light and encoding, into the output image.
 *
 * Reads: history next (binding 15, vec4 YCoCg + weight, output size) plus display next (19,
 * uint: the shown colour's offset from it). Writes: the output (20, a storage image without format qualifier, at the output rectangle's offset; the
 * format's own conversion is the device's store). dst_transfer 1: the output is a UNORM view
 * of sRGB data, encoded here (IEC 61966-2-1, float).
 * Local size 16 x 16, one invocation per output pixel; grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "color.glsl"
#include "temporal_common.glsl"

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    float sharpness;
    uint encoding;
    float exposure;
    /* tail (ABI.md) */
    int dst_x;
    int dst_y;
    uint dst_transfer;
} pc;

layout(set = 0, binding = B_HISTORY_NEXT, std430) readonly buffer History { vec4 hist[]; };
layout(set = 0, binding = B_DISPLAY_NEXT, std430) readonly buffer Display { uint display[]; };
layout(set = 0, binding = B_OUTPUT) uniform writeonly image2D dst;

vec3 rgb_at(int x, int y)
{
    x = upf_clampi(x, 0, pc.width - 1);
    y = upf_clampi(y, 0, pc.height - 1);
    const int i = y * pc.width + x;
    return max(upf_ycocg_to_rgb(hist[i].rgb + upf_display_unpack(display[i])), vec3(0.0));
}

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.width || p.y >= pc.height)
        return;
    vec3 o = rgb_at(p.x, p.y);
    if (pc.sharpness > 0.0) {
        vec3 t[4];
        t[0] = rgb_at(p.x, p.y - 1);
        t[1] = rgb_at(p.x - 1, p.y);
        t[2] = rgb_at(p.x + 1, p.y);
        t[3] = rgb_at(p.x, p.y + 1);
        float L[5];
        L[4] = upf_luma(o.r, o.g, o.b);
        vec3 lo = o, hi = o;
        for (int n = 0; n < 4; n++) {
            L[n] = upf_luma(t[n].r, t[n].g, t[n].b);
            lo = min(lo, t[n]);
            hi = max(hi, t[n]);
        }
        float lmin = L[4], lmax = L[4];
        for (int n = 0; n < 4; n++) {
            lmin = L[n] < lmin ? L[n] : lmin;
            lmax = L[n] > lmax ? L[n] : lmax;
        }
        float amount = (lmin < 1.0 - lmax ? lmin : 1.0 - lmax) /
                       (lmax > 1.0 / 256.0 ? lmax : 1.0 / 256.0);
        amount = sqrt(amount > 0.0 ? (amount < 1.0 ? amount : 1.0) : 0.0);
        float lobe = -pc.sharpness * (3.0 / 16.0) * amount;
        float norm = 1.0 / (1.0 + 4.0 * lobe);
        vec3 v = (o + lobe * (t[0] + t[1] + t[2] + t[3])) * norm;
        o = clamp(v, lo, hi);
    }
    o = upf_tonemap_inverse(o);
    vec4 c = vec4(0.0, 0.0, 0.0, 1.0);
    for (int k = 0; k < 3; k++) {
        float v = o[k] * pc.exposure;
        if (pc.encoding == UPF_ENCODING_SRGB)
            v = upf_linear_to_srgb(v);
        else if (pc.encoding == UPF_ENCODING_SQRT)
            v = sqrt(v);
        if (pc.dst_transfer == 1u)
            v = upf_linear_to_srgb(v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0);
        c[k] = v;
    }
    imageStore(dst, p + ivec2(pc.dst_x, pc.dst_y), c);
}
