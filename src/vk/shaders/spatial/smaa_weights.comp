/* smaa_weights.comp: pass 2 of the spatial engine on the GPU, SMAA 1x blending weights from
 * the packed edge words (CPU reference: src/spatial/smaa_weights.c; the rules in
 * docs/SMAA.md, "Pass 2"; Jimenez et al., "SMAA", Eurographics 2012, 3.2-3.4; function names
 * of SMAA.hlsl cited where their rule is written).
 *
 * Reads: edges (binding 3), the area table (binding 4: 192 x 128 RG8 texels, two a word).
 * Writes: weights (binding 5: RGBA8 per pixel as one word, R in bits 0-7; every pixel).
 *
 * Integer in, integer out: the bytes equal the CPU's exactly. Per pixel P with a top edge:
 * the diagonals first (SMAACalculateDiagWeights, only at the ends of P's horizontal run, as
 * the CPU does: inside a run a diagonal cannot pass), else the horizontal run through P, its
 * end codes, one orthogonal lookup and corner rounding (SMAADetectHorizontalCornerPattern)
 * -> r, g. Per pixel with a left edge and no diagonal: the vertical run -> b, a.
 *
 * One workgroup of 256 invocations per 32 x 32 pixels; each invocation does 4 pixels of one
 * column (rows r, r + 8, r + 16, r + 24). Everything a pixel reads lies within 36 pixels of
 * it (runs: 33 + the crossing edges; diagonals: 16 steps + 2), so the workgroup copies the
 * edge words of its tile and 9 words around it (26 x 26 words, zero outside the image) to
 * shared memory, and makes from them the run bits, one bit per pixel: for each row of the
 * tile, "pixel x continues the horizontal run of pixel x - 1"; for each column, "pixel y
 * continues the vertical run of pixel y - 1". A run's length is then two or three bit
 * scans (findLSB / findMSB) instead of a pixel-by-pixel walk.
 * Grid ceil(W / 32) x ceil(H / 32). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    int blocks_x;
    int blocks_y;
} pc;

layout(set = 0, binding = 3, std430) readonly buffer Edges { uint edges[]; };
layout(set = 0, binding = 4, std430) readonly buffer Area { uint area[]; };
layout(set = 0, binding = 5, std430) writeonly buffer Weights { uint weights[]; };

const int MAX_SEARCH = 32;      /* UPF_SMAA_MAX_SEARCH: pixels each way along a straight edge */
const int MAX_SEARCH_DIAG = 16; /* UPF_SMAA_MAX_SEARCH_DIAG */
const int CORNER_ROUNDING = 25; /* UPF_SMAA_CORNER_ROUNDING, percent */
const int AREA_WIDTH = 192;

#define REGION 26               /* words across and down: 9 + 8 + 9 */
#define APRON 36                /* pixels of the region before the tile */
shared uint E[REGION][REGION];  /* edge words of blocks (bx0 - 9 + i, by0 - 9 + j) at E[j][i] */
shared uint Jh[32][4];          /* tile row r: bit i <-> pixel xb + i continues the run of xb + i - 1 */
shared uint Kv[32][4];          /* tile column c: bit i <-> pixel yb + i continues the run above */

ivec2 region_origin; /* pixel coordinates of E's first pixel (xb, yb) */

/* ---- reading the edges (0 outside the image) ---- */

uint word_at(ivec2 l)
{
    return E[l.y >> 2][l.x >> 2] >> uint(((l.y & 3) << 2) | (l.x & 3));
}

int L(int x, int y)
{
    return int(word_at(ivec2(x, y) - region_origin) & 1u);
}

int T(int x, int y)
{
    return int((word_at(ivec2(x, y) - region_origin) >> 16u) & 1u);
}

/* ---- run lengths from the run bits ---- */

/* Consecutive ones of Jh[r] (Kv[r] when vertical) at bit p and downwards, at most cap. */
int ones_down(bool vertical, int r, int p, int cap)
{
    int n = 0;
    while (n < cap && p - n >= 0) {
        int q = p - n, b = q & 31;
        uint v = (vertical ? Kv[r][q >> 5] : Jh[r][q >> 5]) << uint(31 - b);
        uint inv = ~v;
        int lead = inv == 0u ? 32 : 31 - findMSB(inv);
        lead = min(lead, b + 1);
        n += lead;
        if (lead < b + 1)
            break;
    }
    return min(n, cap);
}

/* Consecutive ones at bit p and upwards, at most cap. */
int ones_up(bool vertical, int r, int p, int cap)
{
    int n = 0;
    while (n < cap && p + n < 128) {
        int q = p + n, b = q & 31;
        uint v = (vertical ? Kv[r][q >> 5] : Jh[r][q >> 5]) >> uint(b);
        /* ~v has its top b bits set, so run <= 32 - b; ~v = 0 (b = 0, 32 ones) is 32 */
        int run = ~v == 0u ? 32 : findLSB(~v);
        n += run;
        if (run < 32 - b)
            break;
    }
    return min(n, cap);
}

/* ---- area lookups ---- */

uvec2 area_texel(int index)
{
    uint t = (area[index >> 1] >> uint(16 * (index & 1))) & 0xffffu;
    return uvec2(t & 0xffu, t >> 8u);
}

/* Corner rounding in eighths (smaa_weights.c, corner_round): the weight keeps
 * 8 - share * (the nearer ends whose crossing edge continues), share 6, or 3 each when P is
 * midway; rounded to nearest, ties up. */
uint corner_round(uint v, int closer_l, int closer_r, int cont_l, int cont_r)
{
    const int full = 8 * (100 - CORNER_ROUNDING) / 100;
    int share = (closer_l & closer_r) != 0 ? full / 2 : full;
    int factor = 8 - share * ((closer_l & cont_l) + (closer_r & cont_r));
    return (v * uint(factor) + 4u) >> 3u;
}

/* ortho_weights: the pixel at distances dl, dr from its run's ends (33: more than 32, the end
 * not found). ends: code_l, code_r, far_l, far_r, near_l, near_r. Returns (own, neighbour). */
uvec2 ortho_weights(int dl, int dr, int code_l, int code_r, int far_l, int far_r, int near_l,
                    int near_r)
{
    int found_l = dl <= MAX_SEARCH ? 1 : 0, found_r = dr <= MAX_SEARCH ? 1 : 0;
    int cl = found_l != 0 ? code_l : 0, cr = found_r != 0 ? code_r : 0;
    if ((cl | cr) == 0)
        return uvec2(0u);
    dl = min(dl, MAX_SEARCH);
    dr = min(dr, MAX_SEARCH);
    uvec2 t = area_texel((32 * cr + min(dr, 31)) * AREA_WIDTH + 32 * cl + min(dl, 31));
    int closer_l = dl <= dr ? 1 : 0, closer_r = dr <= dl ? 1 : 0;
    return uvec2(corner_round(t.x, closer_l, closer_r, found_l & near_l, found_r & near_r),
                 corner_round(t.y, closer_l, closer_r, found_l & far_l, found_r & far_r));
}

/* ---- diagonals (SMAASearchDiag1/2, SMAACalculateDiagWeights) ---- */

/* search_diag: d, found, last_top of the search from (x, y) in steps (dx, dy); kind 0: a pixel
 * continues "/" when it has a left and a top edge; kind 1: "\" when it has a top edge and
 * the pixel to its right a left edge. */
ivec3 search_diag(int x, int y, int dx, int dy, int kind)
{
    int k;
    for (k = 1; k <= MAX_SEARCH_DIAG; k++) {
        int qx = x + k * dx, qy = y + k * dy;
        bool cont = kind == 0 ? (L(qx, qy) & T(qx, qy)) != 0 : (T(qx, qy) & L(qx + 1, qy)) != 0;
        if (!cont)
            break;
    }
    int found = k <= MAX_SEARCH_DIAG ? 1 : 0;
    if (found == 0)
        k = MAX_SEARCH_DIAG;
    return ivec3(k - 1, found, T(x + k * dx, y + k * dy));
}

/* diag_weights: r, g of the diagonals through (x, y), which has a top edge; false when they
 * give none (then nothing is written). */
bool diag_weights(int x, int y, out uvec2 rg)
{
    int r = 0, g = 0;
    bool slash = (L(x, y) != 0 && (L(x - 1, y + 1) & T(x - 1, y + 1)) != 0) ||
                 (L(x + 1, y - 1) & T(x + 1, y - 1)) != 0;
    bool backslash = (T(x - 1, y - 1) != 0 && L(x, y - 1) != 0) ||
                     (L(x + 1, y) != 0 && T(x + 1, y + 1) != 0 && L(x + 2, y + 1) != 0);
    if (slash) {
        ivec3 lo = ivec3(0, 1, 0);
        if (L(x, y) != 0) {
            lo = search_diag(x, y, -1, 1, 0);
            lo.x += lo.z;
        }
        ivec3 hi = search_diag(x, y, 1, -1, 0);
        if (lo.x + hi.x > 2) {
            int ex = x - lo.x, ey = y + lo.x, fx = x + hi.x, fy = y - hi.x;
            int cl = lo.y != 0 ? L(ex, ey) | (T(ex - 1, ey) << 1) : 0;
            int cr = hi.y != 0 ? L(fx + 1, fy - 1) | (T(fx + 1, fy) << 1) : 0;
            uvec2 t = area_texel((16 * cr + min(hi.x, 15)) * AREA_WIDTH + 128 + 16 * cl +
                                 min(lo.x, 15));
            r += int(t.x);
            g += int(t.y);
        }
    }
    if (backslash) {
        ivec3 lo = search_diag(x, y, -1, -1, 1);
        ivec3 hi = ivec3(0, 1, 0);
        if (L(x + 1, y) != 0) {
            hi = search_diag(x, y, 1, 1, 1);
            hi.x += hi.z;
        }
        if (lo.x + hi.x > 2) {
            int ex = x - lo.x, ey = y - lo.x, fx = x + hi.x, fy = y + hi.x;
            int cl = lo.y != 0 ? L(ex, ey - 1) | (T(ex - 1, ey) << 1) : 0;
            int cr = hi.y != 0 ? L(fx + 1, fy) | (T(fx + 1, fy) << 1) : 0;
            uvec2 t = area_texel((64 + 16 * cr + min(hi.x, 15)) * AREA_WIDTH + 128 + 16 * cl +
                                 min(lo.x, 15));
            r += int(t.x);
            g += int(t.y);
        }
    }
    rg = uvec2(uint(min(r, 255)), uint(min(g, 255)));
    return (r | g) != 0;
}

/* Bits 0, 4, 8, 12 of v as bits 0..3: one column of a block's flags. */
uint column_nibble(uint v)
{
    v &= 0x1111u;
    return (v | (v >> 3u) | (v >> 6u) | (v >> 9u)) & 15u;
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const ivec2 b0 = ivec2(gl_WorkGroupID.xy) * 8 - 9;   /* E's first block */
    region_origin = b0 * 4;
    const ivec2 tile = ivec2(gl_WorkGroupID.xy) * 32;

    /* The edge words, zero outside the image, and bits of pixels beyond it cleared (the
     * CPU's left_edge / top_edge read 0 there). */
    for (uint k = tid; k < uint(REGION * REGION); k += 256u) {
        ivec2 b = b0 + ivec2(int(k % uint(REGION)), int(k / uint(REGION)));
        uint w = 0u;
        if (b.x >= 0 && b.y >= 0 && b.x < pc.blocks_x && b.y < pc.blocks_y) {
            w = edges[uint(b.y) * uint(pc.blocks_x) + uint(b.x)];
            int cols = pc.width - 4 * b.x, rows = pc.height - 4 * b.y;
            uint keep = 0u;
            for (int r = 0; r < 4; r++)
                if (r < rows)
                    keep |= (cols >= 4 ? 15u : (1u << uint(cols)) - 1u) << uint(4 * r);
            w &= keep | (keep << 16u);
        }
        E[k / uint(REGION)][k % uint(REGION)] = w;
    }
    barrier();

    /* The run bits, one word (8 nibbles) per invocation: invocations 0-127 the rows' words,
     * 128-255 the columns'. */
    {
        const int r = int(tid & 127u) >> 2, word = int(tid & 3u);
        uint bits = 0u;
        for (int n = 8 * word; n < min(8 * word + 8, REGION); n++) {
            uint j;
            if (tid < 128u) {
                /* Row APRON + r of the region: does pixel x continue the run of x - 1? (both
                 * have a top edge and no left edge, in this row or the one above, lies
                 * between them) */
                int ly = APRON + r, sh = (ly & 3) * 4, sha = ((ly - 1) & 3) * 4;
                uint w = E[ly >> 2][n];
                uint t = (w >> uint(16 + sh)) & 15u;
                uint cross = ((w >> uint(sh)) & 15u) | ((E[(ly - 1) >> 2][n] >> uint(sha)) & 15u);
                uint before = n > 0 ? (E[ly >> 2][n - 1] >> uint(16 + sh + 3)) & 1u : 0u;
                j = t & ((t << 1u) | before) & ~cross & 15u;
            } else {
                /* Column APRON + r: does pixel y continue the run of y - 1? (both have a left
                 * edge and no top edge, of this column or the one to its left, lies between
                 * them) */
                int lx = APRON + r, c = lx & 3, bx = lx >> 2;
                uint wv = E[n][bx];
                uint left = column_nibble(wv >> uint(c));
                uint crossv = column_nibble(wv >> uint(16 + c));
                crossv |= c > 0 ? column_nibble(wv >> uint(15 + c))
                                : column_nibble(E[n][bx - 1] >> 19u);
                uint above = n > 0 ? (E[n - 1][bx] >> uint(12 + c)) & 1u : 0u;
                j = left & ((left << 1u) | above) & ~crossv & 15u;
            }
            bits |= j << uint(4 * (n & 7));
        }
        if (tid < 128u)
            Jh[r][word] = bits;
        else
            Kv[r][word] = bits;
    }
    barrier();

    const int cx = int(tid & 31u);
    for (int i = 0; i < 4; i++) {
        const int cy = int(tid >> 5u) + 8 * i;
        const int x = tile.x + cx, y = tile.y + cy;
        if (x >= pc.width || y >= pc.height)
            continue;
        uint result = 0u;
        bool diag = false;
        if (T(x, y) != 0) {
            /* The horizontal run through P (its bits: row cy, pixel APRON + cx). */
            int dl = ones_down(false, cy, APRON + cx, MAX_SEARCH + 1);
            int dr = ones_up(false, cy, APRON + cx + 1, MAX_SEARCH + 1);
            uvec2 rg = uvec2(0u);
            if (dl == 0 || dr == 0)
                diag = diag_weights(x, y, rg);
            if (!diag) {
                int s = x - dl, e = x + dr;
                rg = ortho_weights(dl, dr, L(s, y - 1) | (L(s, y) << 1),
                                   L(e + 1, y - 1) | (L(e + 1, y) << 1), L(s, y - 2),
                                   L(e + 1, y - 2), L(s, y + 1), L(e + 1, y + 1));
            }
            result = rg.x | (rg.y << 8u);
        }
        if (L(x, y) != 0 && !diag) {
            int dt = ones_down(true, cx, APRON + cy, MAX_SEARCH + 1);
            int db = ones_up(true, cx, APRON + cy + 1, MAX_SEARCH + 1);
            int s = y - dt, e = y + db;
            uvec2 ba = ortho_weights(dt, db, T(x - 1, s) | (T(x, s) << 1),
                                     T(x - 1, e + 1) | (T(x, e + 1) << 1), T(x - 2, s),
                                     T(x - 2, e + 1), T(x + 1, s), T(x + 1, e + 1));
            result |= (ba.x << 16u) | (ba.y << 24u);
        }
        weights[uint(y) * uint(pc.width) + uint(x)] = result;
    }
}
