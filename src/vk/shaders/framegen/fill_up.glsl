/* fill_up.glsl: the fill's last step at one pixel of level 0 (CPU reference:
 * src/framegen/fill.c, up_row; docs/FRAMEGEN.md, "fill"), shared by fill.comp (its up step,
 * into motion_t) and resolve.comp (the engine's: each hole filled where the resolve reads it,
 * so motion_t is neither read nor written a second time). The includer defines FILL_PYRAMID,
 * the motion pyramid's buffer (uvec4[]: levels 1.. stacked by rows, each as wide as level 0),
 * before including this. Words in, words out: the priority's bits pass through. */

#define FG_LOST 0xfffffffeu /* the flow's priority of an inconsistent vector */

/* how far a surface is: its priority, or with flow_rank consistent 1, lost 0 */
uint fill_rank(uint p, bool flow_rank)
{
    return flow_rank ? (p == FG_LOST ? 0u : 1u) : p;
}

int fill_level_size(int size, int l)
{
    return (size + (1 << l) - 1) >> l;
}

/* pixel (x, y) of level l >= 1 of a W x H frame's motion pyramid */
uvec4 fill_level_at(int W, int H, int l, int x, int y)
{
    int row = 0;
    for (int k = 1; k < l; k++)
        row += fill_level_size(H, k);
    return FILL_PYRAMID[(row + y) * W + x];
}

/* Pixel (x, y) of level 0, o (a hole where o.w != 0), after the fill: a hole takes the
 * farthest of the 3x3 around its ancestor on the first level (of `levels`) whose ancestor has
 * a motion and the two above, the first of equals; o itself where nothing has one. */
uvec4 fill_up(uvec4 o, int x, int y, int W, int H, int levels, bool flow_rank)
{
    if (o.w == 0u)
        return o;
    uvec4 best = uvec4(0u);
    bool have = false;
    int found = -1;
    for (int l = 1; l < levels && (found < 0 || l <= found + 2); l++) {
        const int w = fill_level_size(W, l), h = fill_level_size(H, l);
        const int ax = x >> l, ay = y >> l;
        if (found < 0 && fill_level_at(W, H, l, ax, ay).w != 0u)
            continue;
        if (found < 0)
            found = l;
        for (int k = 0; k < 9; k++) {
            const int sx = ax + k % 3 - 1, sy = ay + k / 3 - 1;
            if (sx < 0 || sy < 0 || sx >= w || sy >= h)
                continue;
            const uvec4 a = fill_level_at(W, H, l, sx, sy);
            if (a.w == 0u && (!have || fill_rank(a.z, flow_rank) > fill_rank(best.z, flow_rank)))
                best = a, have = true;
        }
    }
    return have ? uvec4(best.xyz, o.w) : o;
}
