/* inpaint.glsl: the inpaint's up step at one pixel (CPU reference: src/framegen/inpaint.c,
 * up_row), shared by inpaint.comp (levels levels - 2 .. 1 into the colour pyramid) and
 * compose.glsl (level 0, fused into the compose: the inpainted frame is never written).
 * The includer declares resolved[] (binding 23: level 0) and pyramid[] (24: levels 1.. stacked
 * by rows, each as wide as level 0) as vec4 buffers, and pc.width, pc.height, pc.levels (of
 * the colour pyramid, level 0 included) in its push constants.
 *
 * Up at level l: a pixel keeps alpha of itself and takes 1 - alpha of the bilinear sample of
 * the filled level l + 1; alpha 1. A frame of one level (1 x 1) is copied with alpha 1. Every
 * operation `precise`, in the CPU's order. */

int level_size(int size, int l)
{
    return (size + (1 << l) - 1) >> l;
}

/* the first element of level l (l >= 1) in the pyramid buffer */
int level_base(int l)
{
    int row = 0;
    for (int k = 1; k < l; k++)
        row += level_size(pc.height, k);
    return row * pc.width;
}

vec4 level_at(int l, int x, int y)
{
    return l == 0 ? resolved[y * pc.width + x] : pyramid[level_base(l) + y * pc.width + x];
}

/* the bilinear sample of level l + 1 at the centre of pixel (x, y) of level l */
vec3 sample_parent(int l, int x, int y)
{
    const int w = level_size(pc.width, l + 1), h = level_size(pc.height, l + 1);
    precise float px = (float(x) + 0.5) * 0.5, py = (float(y) + 0.5) * 0.5;
    precise float fx = px - 0.5, fy = py - 0.5;
    const int x0 = fx < 0.0 ? -1 : int(fx), y0 = fy < 0.0 ? -1 : int(fy);
    precise float ax = fx - float(x0), ay = fy - float(y0);
    const int xa = clamp(x0, 0, w - 1), xb = clamp(x0 + 1, 0, w - 1);
    const int ya = clamp(y0, 0, h - 1), yb = clamp(y0 + 1, 0, h - 1);
    const vec3 p00 = level_at(l + 1, xa, ya).rgb, p01 = level_at(l + 1, xb, ya).rgb;
    const vec3 p10 = level_at(l + 1, xa, yb).rgb, p11 = level_at(l + 1, xb, yb).rgb;
    precise vec3 top = p00 + ax * (p01 - p00);
    precise vec3 bot = p10 + ax * (p11 - p10);
    precise vec3 o = top + ay * (bot - top);
    return o;
}

/* pixel (x, y) of level l after the up step */
vec4 up_value(int l, int x, int y)
{
    const vec4 c = level_at(l, x, y);
    precise vec4 o = c;
    if (pc.levels < 2) {
        o = vec4(c.rgb, 1.0);
    } else if (c.a < 1.0) {
        const vec3 p = sample_parent(l, x, y);
        o = vec4(c.a * c.rgb + (1.0 - c.a) * p, 1.0);
    }
    return o;
}
