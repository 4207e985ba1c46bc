/* flow_choose_sad.glsl: flow_choose.comp's quad SAD, included once per frame (QUAD_SAD the
 * function's name, OTHER the frame's buffer: luma or luma prev) so that its loads read one
 * buffer without a branch a load (the workgroup's direction picks the function). Reads the
 * other frame and flow_choose.comp's s_own; writes nothing. */
/* SAD of the 4x4 pixels around the quad at (x0, y0) (column c0 of s_own) at a sub-pixel
 * vector, the other frame bilinear as upf__fg_sample1: one running sum in the CPU's order.
 * A sample's column (its two texels and weight) depends on x alone, its row on y alone; where
 * the four columns' texels run on without a gap (xa of one is xb of the one before) and the
 * rows' too (everywhere but where rounding moves a floor), the 16 samples read a 5x5 grid of
 * texels, loaded once; else each sample reads its four. The same texels and arithmetic
 * either way. */
float QUAD_SAD(int x0, int y0, int c0, vec2 m)
{
    const int W = pc.width, H = pc.height;
    int xa[4], xb[4], ya[4], yb[4];
    float fx[4], fy[4];
    bool grid = true;
    [[unroll]] for (int c = 0; c < 4; c++) {
        precise float px = float(x0 - 1 + c) + 0.5 + m.x, py = float(y0 - 1 + c) + 0.5 + m.y;
        precise float sx = px - 0.5, sy = py - 0.5;
        const float fx0 = floor(sx), fy0 = floor(sy);
        precise float wx = sx - fx0, wy = sy - fy0;
        fx[c] = wx, fy[c] = wy;
        xa[c] = clamp(int(fx0), 0, W - 1), xb[c] = clamp(int(fx0) + 1, 0, W - 1);
        ya[c] = clamp(int(fy0), 0, H - 1), yb[c] = clamp(int(fy0) + 1, 0, H - 1);
        if (c > 0)
            grid = grid && xa[c] == xb[c - 1] && ya[c] == yb[c - 1];
    }
    precise float sum = 0.0;
    if (grid) {
        float t[5][5];
        [[unroll]] for (int r = 0; r < 5; r++) {
            const int row = (r < 4 ? ya[r] : yb[3]) * W;
            [[unroll]] for (int c = 0; c < 5; c++)
                t[r][c] = OTHER[row + (c < 4 ? xa[c] : xb[3])];
        }
        [[unroll]] for (int r = 0; r < 4; r++)
            [[unroll]] for (int c = 0; c < 4; c++) {
                precise float top = t[r][c] + fx[c] * (t[r][c + 1] - t[r][c]);
                precise float bot = t[r + 1][c] + fx[c] * (t[r + 1][c + 1] - t[r + 1][c]);
                precise float o = top + fy[r] * (bot - top);
                sum += abs(s_own[r][c0 + c] - o);
            }
    } else {
        [[unroll]] for (int r = 0; r < 4; r++)
            [[unroll]] for (int c = 0; c < 4; c++) {
                const float a = OTHER[ya[r] * W + xa[c]], b = OTHER[ya[r] * W + xb[c]];
                const float e = OTHER[yb[r] * W + xa[c]], g = OTHER[yb[r] * W + xb[c]];
                precise float top = a + fx[c] * (b - a);
                precise float bot = e + fx[c] * (g - e);
                precise float o = top + fy[r] * (bot - top);
                sum += abs(s_own[r][c0 + c] - o);
            }
    }
    return sum;
}

