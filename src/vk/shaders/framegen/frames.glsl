/* frames.glsl: pixel i of frame N-1 or N in linear light, for the passes that read the two
 * frames (vectors, resolve, compose). Without BYTES the linear frames prepare wrote (`prev`,
 * `cur`: 8 bytes a pixel, linear.glsl); with BYTES (both host colours 8-bit) the 8-bit codes
 * prepare kept, after the decode tables, each code decoded by its frame's table (rounded as
 * prepare.c rounds the linear frames): the CPU's own floats
 * (upf_srgb8_to_linear_table or c / 255, vk_framegen.h UPF__VK_FG_TABLE). The includer
 * declares prev, cur, bytes, BYTES and pc (width, height, prev_table, cur_table).
 *
 * With FRAMES_SHARED_TABLES defined (the resolve, the compose: many texels a pixel) the two
 * frames' tables are staged in shared memory once per workgroup (frames_stage_tables, which
 * every invocation calls before any other read of a frame: it has a barrier), and each code
 * is looked up there, not in the buffer: a texel's three lookups are shared-memory loads
 * instead of three dependent global loads, scattered over 2 KB, per texel (the resolve reads
 * 48 texels a pixel). The same floats, so the same pictures. */

#include "linear.glsl"

#define TABLE 512 /* the 8-bit frames' decode tables (vk_framegen.h UPF__VK_FG_TABLE) */

#ifdef FRAMES_SHARED_TABLES
shared float frame_table[512]; /* N-1's table, then N's */

void frames_stage_tables()
{
    if (!BYTES)
        return;
    const uint n = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    for (uint k = gl_LocalInvocationIndex; k < 512u; k += n)
        frame_table[k] = uintBitsToFloat(bytes[(k < 256u ? pc.prev_table : pc.cur_table) +
                                               (k & 255u)]);
    barrier();
}

float frame_decode(bool from_prev, uint code)
{
    return frame_table[(from_prev ? 0u : 256u) + code];
}
#else
float frame_decode(bool from_prev, uint code)
{
    return uintBitsToFloat(bytes[(from_prev ? pc.prev_table : pc.cur_table) + code]);
}
#endif

/* BYTES: pixel i's codes, R | G << 8 | B << 16 */
uint frame_word(bool from_prev, int i)
{
    return bytes[TABLE + (from_prev ? 0 : pc.width * pc.height) + i];
}

vec4 frame_texel(bool from_prev, int i)
{
    if (!BYTES)
        return linear_unpack(from_prev ? prev[i] : cur[i]);
    const uint w = frame_word(from_prev, i);
    return vec4(frame_decode(from_prev, w & 255u), frame_decode(from_prev, (w >> 8) & 255u),
                frame_decode(from_prev, w >> 16), 1.0);
}
