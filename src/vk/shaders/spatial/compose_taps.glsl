/* compose_taps.glsl: the layout of compose's taps table (binding 11), which compose_taps.comp
 * writes and compose.comp reads: one entry of UPF_TAPS_WORDS words for each output column x
 * (entry x), then for each output row y (entry W_out + y):
 *  words 0-2  the base's tap indices j = 0..5, two int16 a word (j even in the low half),
 *             clamped to the frame;
 *  words 3-8  the base's weights (float bits), 0 beyond its n taps;
 *  word 9     the detail map's two bilinear indices (int16 each, i0 low);
 *  word 10    the weight f of the second (float bits); word 11 unused.
 * The backend sizes the buffer by the same count (vk_spatial.c, TAPS_WORDS). */
#ifndef UPF_COMPOSE_TAPS_GLSL
#define UPF_COMPOSE_TAPS_GLSL

const uint UPF_TAPS_WORDS = 12u;
const uint UPF_TAPS_WEIGHTS = 3u;   /* the first weight's word */
const uint UPF_TAPS_DETAIL = 9u;    /* the detail map's index pair */
const uint UPF_TAPS_DETAIL_F = 10u; /* its weight f */

uint upf_taps_pack16(int lo, int hi)
{
    return (uint(lo) & 0xffffu) | (uint(hi) << 16u);
}

ivec2 upf_taps_unpack16(uint pair)
{
    return ivec2(int(pair & 0xffffu), int(pair >> 16u));
}

#endif
