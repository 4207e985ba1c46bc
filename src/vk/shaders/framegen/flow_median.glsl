/* flow_median.glsl: the 3x3 vector median of a level's searched block vectors and, above
 * level 0, their histograms (flow.c's median_row and hist_row; flow.comp's step 1 on every
 * level, flow_level0.comp's on level 0). Reads the searched vectors (27); writes the level's
 * vectors (27) and the histograms (28). */
#ifndef UPF_FLOW_MEDIAN_GLSL
#define UPF_FLOW_MEDIAN_GLSL

/* flow.c's hist_bin: bins of 1 px centred on -BINS / 2 .. BINS / 2 - 1, the ends taking what
 * lies beyond. */
int hist_bin(float v)
{
    precise float b = floor(v + 0.5) + float(BINS / 2);
    return b <= 0.0 ? 0 : b >= float(BINS - 1) ? BINS - 1 : int(b);
}

/* Block (bx, by) of direction d (inside the level): its vector median. The nine neighbours
 * unrolled, those outside the level skipped (the CPU's list, in its order), and the best
 * kept as a vector, not an index: no array indexed at run time (which a GPU may keep in
 * local memory). */
vec2 median_of(int bx, int by, int d, int l)
{
    const view v = view_of(l);
    const int bs = blocks_of(pc.width), raw = buf(d, 2);
    vec2 c[9];
    bool in_[9];
    [[unroll]] for (int k = 0; k < 9; k++) {
        const int x = bx + k % 3 - 1, y = by + k / 3 - 1;
        in_[k] = x >= 0 && y >= 0 && x < v.bw && y < v.bh;
        c[k] = in_[k] ? blocks[raw + y * bs + x] : vec2(0.0);
    }
    vec2 best = c[4]; /* the block itself: always inside */
    float best_sum = inf();
    [[unroll]] for (int a = 0; a < 9; a++)
        if (in_[a]) {
            precise float sum = 0.0;
            [[unroll]] for (int b = 0; b < 9; b++)
                if (in_[b])
                    sum += abs(c[a].x - c[b].x) + abs(c[a].y - c[b].y);
            if (sum < best_sum)
                best_sum = sum, best = c[a];
        }
    return best;
}

/* Block (bx, by) of direction d: its vector median, written to the level's vectors (and
 * above level 0 counted into the histograms); returns it (zero outside the level, where
 * nothing is written). */
vec2 median(int bx, int by, int d, int l)
{
    const view v = view_of(l);
    if (bx >= v.bw || by >= v.bh)
        return vec2(0.0);
    const vec2 o = median_of(bx, by, d, l);
    blocks[buf(d, cur_of(l)) + by * blocks_of(pc.width) + bx] = o;
    if (l > 0) {
        atomicAdd(hist[(2 * d) * BINS + hist_bin(o.x)], 1u);
        atomicAdd(hist[(2 * d + 1) * BINS + hist_bin(o.y)], 1u);
    }
    return o;
}

#endif /* UPF_FLOW_MEDIAN_GLSL */
