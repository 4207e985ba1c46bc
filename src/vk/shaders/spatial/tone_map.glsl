/* tone_map.glsl: the second half of the convert pass, the tone map of a frame whose largest
 * R, G or B, M, is above 1 (CPU reference: src/spatial/convert.c; docs/SPATIAL.md, "High
 * dynamic range and alpha"): c' = c * (1 / (1 + max(c))) on R, G, B, alpha kept, with the
 * CPU's roundings (one correctly rounded reciprocal, then products). The GPU's convert.comp
 * cannot apply it (M is known only once all its workgroups have run), so the passes that load
 * linear after it apply it to what they load: smaa_edges.comp and smaa_blend.comp. They read
 * M from range G (binding 8; the backend binds the range to both, beyond the CPU pass list's
 * surfaces). Needs color.glsl. */
#ifndef UPF_TONE_MAP_GLSL
#define UPF_TONE_MAP_GLSL

/* Does convert's tone map apply to this frame? m_frame: range G. */
bool upf_tone_mapped(float m_frame)
{
    return m_frame > 1.0;
}

vec4 upf_tone_map(vec4 c)
{
    float m = max(max(c.r, c.g), c.b);
    precise float den = 1.0 + m;
    float s = upf_rcp_rn(den);
    precise vec3 t = c.rgb * s;
    return vec4(t, c.a);
}

#endif
