/* frames.glsl: pixel i of frame N-1 or N in linear light, for the passes that read the two
 * frames (vectors, resolve, compose). Without BYTES the linear frames prepare wrote (RGBA32F:
 * `prev`, `cur`); with BYTES (both host colours 8-bit) the 8-bit codes prepare kept, after
 * the decode tables, each code decoded by its frame's table: the CPU's own floats
 * (upf_srgb8_to_linear_table or c / 255, vk_framegen.h UPF__VK_FG_TABLE). The includer
 * declares prev, cur, bytes, BYTES and pc (width, height, prev_table, cur_table). */

#define TABLE 512 /* the 8-bit frames' decode tables (vk_framegen.h UPF__VK_FG_TABLE) */

vec4 frame_texel(bool from_prev, int i)
{
    if (!BYTES)
        return from_prev ? prev[i] : cur[i];
    const uint w = bytes[TABLE + (from_prev ? 0 : pc.width * pc.height) + i];
    const uint t = from_prev ? pc.prev_table : pc.cur_table;
    return vec4(uintBitsToFloat(bytes[t + (w & 255u)]),
                uintBitsToFloat(bytes[t + ((w >> 8) & 255u)]),
                uintBitsToFloat(bytes[t + (w >> 16)]), 1.0);
}
