/* smaa_blend_px.glsl: SMAA neighbourhood blending of one pixel (the rule and its roundings:
 * smaa_blend.comp's comment; CPU reference: src/spatial/smaa_blend.c), shared by
 * smaa_blend.comp and smaa_weights.comp, which blends too when it is recorded with blend
 * (src/vk/ABI.md, "Dispatch"). The includer declares linear (binding 1), frame (binding 6)
 * and range (binding 8) and includes color.glsl and tone_map.glsl. */
#ifndef UPF_SMAA_BLEND_PX_GLSL
#define UPF_SMAA_BLEND_PX_GLSL

/* Pixel p of a width x height frame: own = its weights word, right = a of the pixel to its
 * right, below = g of the pixel below (0 beyond the image). Writes the frame only when p
 * blends. */
void upf_blend_pixel(ivec2 p, int width, int height, uint own, uint right, uint below)
{
    const uint w = uint(width);
    const uint i = uint(p.y) * w + uint(p.x);
    const uint left = (own >> 16u) & 0xffu, above = own & 0xffu;
    if ((right | below | left | above) == 0u)
        return;

    uint i1, i2, n1, n2;
    if (max(right, left) > max(below, above)) {
        i1 = right;
        i2 = left;
        n1 = p.x + 1 < width ? i + 1u : i;
        n2 = p.x > 0 ? i - 1u : i;
    } else {
        i1 = below;
        i2 = above;
        n1 = p.y + 1 < height ? i + w : i;
        n2 = p.y > 0 ? i - w : i;
    }
    const float w1 = upf_div_rn(i1, 255u), w2 = upf_div_rn(i2, 255u);
    precise float sum = w1 + w2;
    const float inv = upf_rcp_rn(sum);
    vec4 c = linear[i], c1 = linear[n1], c2 = linear[n2];
    if (upf_tone_mapped(range[1])) {
        c = upf_tone_map(c);
        c1 = upf_tone_map(c1);
        c2 = upf_tone_map(c2);
    }
    vec4 o;
    for (int k = 0; k < 4; k++) {
        precise float a = c[k] + w1 * (c1[k] - c[k]); /* lerp(P, N1, w1) */
        precise float b = c[k] + w2 * (c2[k] - c[k]); /* lerp(P, N2, w2) */
        precise float v = (w1 * a + w2 * b) * inv;
        o[k] = v;
    }
    frame[i] = upf_pack_sqrt1010102(o);
}

#endif
