/* inpaint.glsl: the inpaint's up step at one pixel (CPU reference: src/framegen/inpaint.c,
 * up_row), shared by inpaint.comp (levels levels - 2 .. 2 into the colour pyramid) and
 * compose.glsl (levels 1 and 0, fused into the compose: up_value0; neither level 1's up
 * values nor the inpainted frame are written).
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

/* the bilinear sample of level l + 1 at the centre of pixel (x, y) of level l: its texels'
 * columns xa, xb and rows ya, yb (t), and its weights ax, ay */
void parent_taps(int l, int x, int y, out ivec4 t, out float ax, out float ay)
{
    const int w = level_size(pc.width, l + 1), h = level_size(pc.height, l + 1);
    precise float px = (float(x) + 0.5) * 0.5, py = (float(y) + 0.5) * 0.5;
    precise float fx = px - 0.5, fy = py - 0.5;
    const int x0 = fx < 0.0 ? -1 : int(fx), y0 = fy < 0.0 ? -1 : int(fy);
    precise float wx = fx - float(x0), wy = fy - float(y0);
    ax = wx, ay = wy;
    t = ivec4(clamp(x0, 0, w - 1), clamp(x0 + 1, 0, w - 1), clamp(y0, 0, h - 1),
              clamp(y0 + 1, 0, h - 1));
}

/* the bilinear blend of the texels (xa, ya), (xb, ya), (xa, yb), (xb, yb) */
vec3 bilinear(vec3 p00, vec3 p01, vec3 p10, vec3 p11, float ax, float ay)
{
    precise vec3 top = p00 + ax * (p01 - p00);
    precise vec3 bot = p10 + ax * (p11 - p10);
    precise vec3 o = top + ay * (bot - top);
    return o;
}

/* pixel c of a level after the up step, p the sample of the level above */
vec4 up_of(vec4 c, vec3 p)
{
    precise vec4 o = vec4(c.a * c.rgb + (1.0 - c.a) * p, 1.0);
    return o;
}

/* pixel (x, y) of level l before its up step in c; false where the up step leaves it as it
 * is (c then the result: a single level, or a pixel with all of its information), else the
 * parent's taps t and weights (ax, ay) */
bool up_taps(int l, int x, int y, out vec4 c, out ivec4 t, out float ax, out float ay)
{
    c = level_at(l, x, y);
    t = ivec4(0), ax = 0.0, ay = 0.0;
    if (pc.levels < 2) {
        c = vec4(c.rgb, 1.0);
        return false;
    }
    if (!(c.a < 1.0))
        return false;
    parent_taps(l, x, y, t, ax, ay);
    return true;
}

/* pixel (x, y) of level l after the up step (level l + 1 in memory already up) */
vec4 up_value(int l, int x, int y)
{
    vec4 c;
    ivec4 t;
    float ax, ay;
    if (!up_taps(l, x, y, c, t, ax, ay))
        return c;
    return up_of(c, bilinear(level_at(l + 1, t.x, t.z).rgb, level_at(l + 1, t.y, t.z).rgb,
                             level_at(l + 1, t.x, t.w).rgb, level_at(l + 1, t.y, t.w).rgb, ax,
                             ay));
}

/* pixel (x, y) of level 1 after its up step, made here (no dispatch writes it: level 1 in
 * memory is the down step's); the coarsest level (2 levels) has none */
vec4 level1_up(int x, int y)
{
    return pc.levels > 2 ? up_value(1, x, y) : level_at(1, x, y);
}

/* pixel (x, y) of level 0 after the up step, from level 1 as the down step left it: the
 * up values of the four texels it samples made on the spot (level1_up), the CPU's very
 * operations, so that the up step at level 1 is neither a dispatch nor 32 bytes a pixel of
 * level 1 read and written (only hole pixels sample level 1) */
vec4 up_value0(int x, int y)
{
    vec4 c;
    ivec4 t;
    float ax, ay;
    if (!up_taps(0, x, y, c, t, ax, ay))
        return c;
    return up_of(c, bilinear(level1_up(t.x, t.z).rgb, level1_up(t.y, t.z).rgb,
                             level1_up(t.x, t.w).rgb, level1_up(t.y, t.w).rgb, ax, ay));
}
