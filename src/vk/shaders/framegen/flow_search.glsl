/* flow_search.glsl: what the searches share (flow.comp's, on every level, and
 * flow_level0.comp's, level 0's candidates only): a block's candidates and a vector's cost, as
 * flow.c's search_row. Reads the block vectors (27) and the medians (29); writes nothing. */
#ifndef UPF_FLOW_SEARCH_GLSL
#define UPF_FLOW_SEARCH_GLSL

/* Candidate k of block (bx, by) (k < n: 7 below the coarsest level, 1 on it): k < 5 twice
 * the vector of the parent block and of its four neighbours, 5 twice the parent level's
 * global motion, then zero. */
ivec2 candidate(int k, int bx, int by, int d, int l)
{
    if (l == pc.levels - 1 || k == 6)
        return ivec2(0);
    if (k == 5)
        return ivec2(int(round(2.0 * global_v[2 * d])), int(round(2.0 * global_v[2 * d + 1])));
    const view p = view_of(l + 1);
    const ivec2 nb = k == 0 ? ivec2(0, 0) : k == 1 ? ivec2(-1, 0) : k == 2 ? ivec2(1, 0)
                   : k == 3 ? ivec2(0, -1) : ivec2(0, 1);
    const int px = clamp(bx / 2 + nb.x, 0, p.bw - 1);
    const int py = clamp(by / 2 + nb.y, 0, p.bh - 1);
    const vec2 pv = blocks[buf(d, 1 - cur_of(l)) + py * blocks_of(pc.width) + px];
    return ivec2(int(round(2.0 * pv.x)), int(round(2.0 * pv.y)));
}

/* The cost of vector c (the SAD plus the penalty): flow.c's COST. */
float cost_of(float sad, ivec2 c, ivec2 pred, float lambda)
{
    precise float s = sad + lambda * float(abs(c.x - pred.x) + abs(c.y - pred.y));
    return s;
}

#endif /* UPF_FLOW_SEARCH_GLSL */
