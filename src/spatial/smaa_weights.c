/* smaa_weights.c: pass 2 of the spatial engine, SMAA 1x blending weights
 * (SMAABlendingWeightCalculationPS, Jimenez et al. 2012 sections 3.2-3.4) at HIGH/ULTRA-like
 * settings: straight edges measured up to 32 pixels each way, diagonals up to 16, corner
 * rounding 25 %.
 *
 * Reads the packed edge words of pass 1 and the area table (smaa_area.c). Writes the
 * weights, W*H*4 bytes (SMAA's blendTex, smaa.h), and their debug picture.
 *
 * Per pixel P with a top edge (SMAABlendingWeightCalculationPS):
 *   1. Diagonals first (SMAACalculateDiagWeights). If either diagonal through P is longer
 *      than 3 pixels and its area lookup is not zero, r and g come from the diagonal table
 *      and P's left edge is not processed at all ("priority to diagonals").
 *   2. Otherwise the horizontal run through P: its ends, their crossing edges, one lookup in
 *      the orthogonal table, corner rounding (SMAADetectHorizontalCornerPattern) -> r, g.
 * Per pixel P with a left edge and no diagonal: the same vertically -> b, a.
 *
 * SMAA searches with bilinear texture fetches that read two pixels at once and decodes the
 * last step from SearchTex; here the edges are bits, so a run's ends are found by bit scans
 * over 64-pixel windows of a row (horizontal runs) and over 4-row nibbles of the block words
 * (vertical runs), and the crossing edges are read as exact booleans. Runs are measured once
 * and every pixel in them filled, instead of each pixel searching on its own.
 *
 * Work is split by block rows: a task writes the weights of its 4 rows only (reading edges
 * anywhere), so the result does not depend on the number of threads. */
#include <string.h>

#include "spatial/smaa.h"
#include "spatial/spatial_passes.h"

/* ---- reading the packed edges ----------------------------------------------------------- */

typedef struct edge_map {
    const uint32_t *words;
    int width, height, bw, bh;
} edge_map;

/* The left / top edge flag of pixel (x, y); 0 outside the image. */
static inline int left_edge(const edge_map *m, int x, int y)
{
    if ((unsigned)x >= (unsigned)m->width || (unsigned)y >= (unsigned)m->height)
        return 0;
    return (int)(m->words[(size_t)(y >> 2) * m->bw + (x >> 2)] >> (((y & 3) << 2) | (x & 3))) & 1;
}

static inline int top_edge(const edge_map *m, int x, int y)
{
    if ((unsigned)x >= (unsigned)m->width || (unsigned)y >= (unsigned)m->height)
        return 0;
    return (int)(m->words[(size_t)(y >> 2) * m->bw + (x >> 2)] >>
                 (16 + (((y & 3) << 2) | (x & 3)))) & 1;
}

/* Both flags of pixel (x, y): bit 0 its left edge, bit 1 its top edge; 0 outside. */
static inline unsigned edge_pair(const edge_map *m, int x, int y)
{
    if ((unsigned)x >= (unsigned)m->width || (unsigned)y >= (unsigned)m->height)
        return 0;
    uint32_t w = m->words[(size_t)(y >> 2) * m->bw + (x >> 2)] >> (((y & 3) << 2) | (x & 3));
    return (w & 1u) | ((w >> 15) & 2u);
}

/* Bits 0, 4, 8, 12 of v as bits 0..3: one column of a block's 4x4 flags. */
static inline unsigned column_nibble(uint32_t v)
{
    v &= 0x1111u;
    return (v | (v >> 3) | (v >> 6) | (v >> 9)) & 15u;
}

/* ---- area lookups -------------------------------------------------------------------------- */

/* Corner rounding (SMAADetectHorizontal/VerticalCornerPattern), in eighths. The weight on
 * each side of the edge keeps factor = 1 - sum over the run's nearer end(s) of
 * share * (1 - SMAA_CORNER_ROUNDING/100) * [the crossing edge there continues one pixel
 * further on that side], share 1, or 1/2 each when P is midway. With rounding 25 a term is
 * 6/8 or 3/8, so the factor is 8/8, 5/8 or 2/8; the weight is rounded to nearest (ties up),
 * as the GPU does writing blendTex. closer_*: that end is the nearer one (both when P is
 * midway); cont_*: the crossing edge there continues one more pixel on this weight's side. */
static inline uint8_t corner_round(uint8_t v, int closer_l, int closer_r, int cont_l,
                                   int cont_r)
{
    const int full = 8 * (100 - UPF_SMAA_CORNER_ROUNDING) / 100; /* 6 eighths */
    int share = closer_l & closer_r ? full / 2 : full;
    int factor = 8 - share * ((closer_l & cont_l) + (closer_r & cont_r));
    return (uint8_t)((v * factor + 4) >> 3);
}

/* A straight run seen from one of its pixels: everything the orthogonal lookup needs. */
typedef struct run_ends {
    int code_l, code_r; /* crossing codes at the left (top) and right (bottom) ends, smaa.h */
    int far_l, far_r;   /* that end's crossing edge goes on one more pixel on the far side */
    int near_l, near_r; /* ... on the near side */
} run_ends;

/* The orthogonal weights of the pixel at distances dl, dr (true distances, any size) from a
 * run's ends: out[0] for the pixel itself (r or b), out[1] for its neighbour (g or a).
 * An end more than UPF_SMAA_MAX_SEARCH pixels away is not found: it counts as distance 32
 * with no crossing edge (what SMAA's search reads when it stops inside a run) and no corner;
 * distances beyond the table (32) read its last entry, 31. */
static inline void ortho_weights(const uint8_t *table, const run_ends *e, int dl, int dr,
                                 uint8_t *out)
{
    int found_l = dl <= UPF_SMAA_MAX_SEARCH, found_r = dr <= UPF_SMAA_MAX_SEARCH;
    int cl = found_l ? e->code_l : 0, cr = found_r ? e->code_r : 0;
    out[0] = out[1] = 0;
    if (!(cl | cr))
        return;
    if (!found_l)
        dl = UPF_SMAA_MAX_SEARCH;
    if (!found_r)
        dr = UPF_SMAA_MAX_SEARCH;
    const uint8_t *t = upf__smaa_area_ortho_texel(table, cl, cr,
                                                  UPF_MIN(dl, UPF_SMAA_ORTHO_DISTANCES - 1),
                                                  UPF_MIN(dr, UPF_SMAA_ORTHO_DISTANCES - 1));
    int closer_l = dl <= dr, closer_r = dr <= dl;
    out[0] = corner_round(t[0], closer_l, closer_r, found_l & e->near_l, found_r & e->near_r);
    out[1] = corner_round(t[1], closer_l, closer_r, found_l & e->far_l, found_r & e->far_r);
}

/* ---- diagonals ------------------------------------------------------------------------------ */

typedef struct diag_end {
    int d;        /* pixels that continued the diagonal before the first that did not */
    int found;    /* 0 when every pixel searched continued it (the end is further away) */
    int last_top; /* top edge of the last pixel read */
} diag_end;

/* SMAASearchDiag1 (kind 0: a pixel continues "/" when it has both a left and a top edge) and
 * SMAASearchDiag2 (kind 1: "\" when it has a top edge and the pixel to its right a left
 * edge): from (x, y) in steps (dx, dy), reading at most UPF_SMAA_MAX_SEARCH_DIAG pixels. As
 * in SMAA, when all of them continue the diagonal d is one less than their count. */
static diag_end search_diag(const edge_map *m, int x, int y, int dx, int dy, int kind)
{
    int k;
    for (k = 1; k <= UPF_SMAA_MAX_SEARCH_DIAG; k++) {
        int qx = x + k * dx, qy = y + k * dy;
        int cont = kind == 0 ? edge_pair(m, qx, qy) == 3
                             : top_edge(m, qx, qy) & left_edge(m, qx + 1, qy);
        if (!cont)
            break;
    }
    diag_end e;
    e.found = k <= UPF_SMAA_MAX_SEARCH_DIAG;
    if (!e.found)
        k = UPF_SMAA_MAX_SEARCH_DIAG;
    e.d = k - 1;
    e.last_top = top_edge(m, x + k * dx, y + k * dy);
    return e;
}

static inline int diag_index(int d)
{
    return UPF_MIN(d, UPF_SMAA_DIAG_DISTANCES - 1);
}

/* SMAACalculateDiagWeights for pixel (x, y), which has a top edge. Writes r, g and returns 1
 * when a diagonal gives weights, else returns 0 and writes nothing.
 *
 * For each direction the two ends are searched; the side searched first only when P itself
 * continues that way (P's left edge for "/", its right neighbour's for "\"), and that side's
 * length grows by one when the pixel that stopped the search still has a top edge (the
 * diagonal turns flat there). A diagonal counts when d1 + d2 + 1 > 3. Each end's code is
 * bit 0 = a vertical crossing step, bit 1 = a horizontal one, read beside the end pixel,
 * and 0 when the end was not found. The two directions' lookups are added (saturating). */
static int diag_weights(const edge_map *m, const uint8_t *table, int x, int y, uint8_t *out)
{
    int r = 0, g = 0;
    diag_end lo, hi;
    /* A diagonal needs d1 + d2 > 2, so at least one of its two first steps must continue
     * it (a search that stops at once counts 1 at most): most pixels are done in a few bits. */
    int slash = (left_edge(m, x, y) && edge_pair(m, x - 1, y + 1) == 3) ||
                edge_pair(m, x + 1, y - 1) == 3;
    int backslash = (top_edge(m, x - 1, y - 1) && left_edge(m, x, y - 1)) ||
                    (left_edge(m, x + 1, y) && top_edge(m, x + 1, y + 1) &&
                     left_edge(m, x + 2, y + 1));

    /* "/": toward the lower left (-1, +1) and the upper right (+1, -1). */
    if (slash) {
        if (left_edge(m, x, y)) {
            lo = search_diag(m, x, y, -1, 1, 0);
            lo.d += lo.last_top;
        } else {
            lo = (diag_end){ 0, 1, 0 };
        }
        hi = search_diag(m, x, y, 1, -1, 0);
        if (lo.d + hi.d > 2) {
            int ex = x - lo.d, ey = y + lo.d, fx = x + hi.d, fy = y - hi.d;
            int cl = lo.found ? left_edge(m, ex, ey) | top_edge(m, ex - 1, ey) << 1 : 0;
            int cr = hi.found ? left_edge(m, fx + 1, fy - 1) | top_edge(m, fx + 1, fy) << 1 : 0;
            const uint8_t *t = upf__smaa_area_diag_texel(table, 0, cl, cr, diag_index(lo.d),
                                                         diag_index(hi.d));
            r += t[0];
            g += t[1];
        }
    }

    /* "\": toward the upper left (-1, -1) and the lower right (+1, +1). */
    if (backslash) {
        lo = search_diag(m, x, y, -1, -1, 1);
        if (left_edge(m, x + 1, y)) {
            hi = search_diag(m, x, y, 1, 1, 1);
            hi.d += hi.last_top;
        } else {
            hi = (diag_end){ 0, 1, 0 };
        }
        if (lo.d + hi.d > 2) {
            int ex = x - lo.d, ey = y - lo.d, fx = x + hi.d, fy = y + hi.d;
            int cl = lo.found ? left_edge(m, ex, ey - 1) | top_edge(m, ex - 1, ey) << 1 : 0;
            int cr = hi.found ? left_edge(m, fx + 1, fy) | top_edge(m, fx + 1, fy) << 1 : 0;
            const uint8_t *t = upf__smaa_area_diag_texel(table, 1, cl, cr, diag_index(lo.d),
                                                         diag_index(hi.d));
            r += t[0];
            g += t[1];
        }
    }

    if (!(r | g))
        return 0;
    out[0] = (uint8_t)UPF_MIN(r, 255);
    out[1] = (uint8_t)UPF_MIN(g, 255);
    return 1;
}

/* ---- horizontal runs --------------------------------------------------------------------- */

typedef struct weights_job {
    edge_map m;
    const uint8_t *table;
    uint8_t *weights;
} weights_job;

/* 64 pixels of one row as bits: top edges, and which pixels continue the run of the pixel on
 * their left (both have a top edge and no crossing edge, in this row or the one above, lies
 * on the boundary between them). */
typedef struct row_window {
    int chunk; /* pixels 64*chunk .. 64*chunk+63; -1: none loaded */
    uint64_t top, joins;
} row_window;

static void load_row_window(const edge_map *m, int y, int chunk, row_window *win)
{
    const uint32_t *row = m->words + (size_t)(y >> 2) * m->bw;
    const uint32_t *above = (y & 3) ? row : y > 0 ? row - m->bw : NULL;
    int sh = (y & 3) * 4, sh_above = ((y - 1) & 3) * 4;
    int bx0 = chunk * 16, bx1 = UPF_MIN(bx0 + 16, m->bw);
    uint64_t top = 0, cross = 0;
    for (int bx = bx0; bx < bx1; bx++) {
        uint32_t w = row[bx];
        uint64_t t = (w >> (16 + sh)) & 15u, l = (w >> sh) & 15u;
        if (above)
            l |= (above[bx] >> sh_above) & 15u;
        top |= t << (4 * (bx - bx0));
        cross |= l << (4 * (bx - bx0));
    }
    int valid = m->width - 64 * chunk; /* pixels of the chunk inside the image */
    if (valid < 64)
        top &= (UINT64_C(1) << valid) - 1;
    uint64_t before = chunk > 0 ? (uint64_t)top_edge(m, 64 * chunk - 1, y) : 0;
    win->chunk = chunk;
    win->top = top;
    win->joins = top & ((top << 1) | before) & ~cross;
}

/* Weights of the pixels of the horizontal run [s, e] of row y (SMAA's r, g). Only pixels
 * within UPF_SMAA_MAX_SEARCH of an end can get any: further in, neither end is found. */
static void horizontal_run(const weights_job *job, int y, int s, int e, uint64_t *diag_row)
{
    const edge_map *m = &job->m;
    /* Crossing codes (SMAA reads eL at the end, 0.25 px into the row above, and decodes
     * round(4c)): bit 0 the crossing edge in the row above, bit 1 in this row. */
    run_ends ends = {
        .code_l = left_edge(m, s, y - 1) | left_edge(m, s, y) << 1,
        .code_r = left_edge(m, e + 1, y - 1) | left_edge(m, e + 1, y) << 1,
        .far_l = left_edge(m, s, y - 2), .far_r = left_edge(m, e + 1, y - 2),
        .near_l = left_edge(m, s, y + 1), .near_r = left_edge(m, e + 1, y + 1),
    };
    uint8_t *row = job->weights + (size_t)y * m->width * 4;
    int first_end = UPF_MIN(e, s + UPF_SMAA_MAX_SEARCH);
    int second = UPF_MAX(first_end + 1, e - UPF_SMAA_MAX_SEARCH);
    for (int x = s; x <= e; x++) {
        if (x == first_end + 1)
            x = second;
        uint8_t *out = row + 4 * x;
        /* Diagonals can only pass through a run's end pixels: inside a run every pixel a
         * diagonal search would step to is cut off by the run's own continuation. */
        if ((x == s || x == e) && diag_weights(m, job->table, x, y, out)) {
            diag_row[x >> 6] |= UINT64_C(1) << (x & 63);
            continue;
        }
        ortho_weights(job->table, &ends, x - s, e - x, out);
    }
}

/* Finds every horizontal run of row y by bit scans and fills its pixels. `occupied`: bit k
 * set when some pixel of chunk k (pixels 64k..64k+63) of the block row has a top edge. */
static void horizontal_row(const weights_job *job, int y, const uint64_t *occupied,
                           uint64_t *diag_row)
{
    const edge_map *m = &job->m;
    row_window win = { -1, 0, 0 };
    int x = 0;
    while (x < m->width) {
        int k = x >> 6;
        if (!((occupied[k >> 6] >> (k & 63)) & 1u)) { /* an empty chunk: skip it unread */
            x = (k + 1) << 6;
            continue;
        }
        if (win.chunk != k)
            load_row_window(m, y, k, &win);
        uint64_t bits = win.top >> (x & 63);
        if (!bits) { /* no top edge in the rest of this window */
            x = ((x >> 6) + 1) << 6;
            continue;
        }
        int s = x + upf__smaa_lowest_bit(bits), e = s;
        /* The run goes on while pixels join it: count the ones of `joins` after s. */
        for (;;) {
            int p = e + 1;
            if (p >= m->width)
                break;
            if (win.chunk != p >> 6)
                load_row_window(m, y, p >> 6, &win);
            uint64_t stop = ~(win.joins >> (p & 63));
            int room = 64 - (p & 63), n = stop ? upf__smaa_lowest_bit(stop) : 64;
            e += UPF_MIN(n, room);
            if (n < room)
                break;
        }
        horizontal_run(job, y, s, e, diag_row);
        x = e + 1;
    }
}

/* ---- vertical runs ----------------------------------------------------------------------- */

/* For column x (block column bx, column c in it) and block row k: bit i set when pixels
 * (x, 4k+i-1) and (x, 4k+i) both have a left edge and no crossing edge (a top edge of
 * (x, 4k+i) or (x-1, 4k+i)) lies between them. */
static unsigned column_joins(const edge_map *m, int bx, int c, int k)
{
    const uint32_t *row = m->words + (size_t)k * m->bw;
    uint32_t w = row[bx];
    unsigned left = column_nibble(w >> c);
    unsigned cross = column_nibble(w >> (16 + c));
    if (c > 0)
        cross |= column_nibble(w >> (15 + c));
    else if (bx > 0)
        cross |= column_nibble(row[bx - 1] >> 19);
    unsigned above = k > 0 ? (row[bx - m->bw] >> (12 + c)) & 1u : 0u;
    unsigned joins = left & ((left << 1) | above) & ~cross & 15u;
    int rows = m->height - 4 * k; /* rows of the block inside the image */
    if (rows < 4)
        joins &= (1u << rows) - 1u;
    return joins;
}

/* How many pixels above (x, y) continue its vertical run, counting up to `limit`. */
static int scan_up(const edge_map *m, int x, int y, int limit)
{
    int bx = x >> 2, c = x & 3, k = y >> 2, r = y & 3, n = 0;
    while (n < limit && k >= 0) {
        unsigned joins = column_joins(m, bx, c, k);
        int i = r;
        while (i >= 0 && ((joins >> i) & 1u))
            i--;
        n += r - i;
        if (i >= 0)
            break;
        k--;
        r = 3;
    }
    return UPF_MIN(n, limit);
}

/* How many pixels below (x, y) continue its vertical run, counting up to `limit`. */
static int scan_down(const edge_map *m, int x, int y, int limit)
{
    int bx = x >> 2, c = x & 3, k = (y + 1) >> 2, r = (y + 1) & 3, n = 0;
    while (n < limit && k < m->bh) {
        unsigned joins = column_joins(m, bx, c, k);
        int i = r;
        while (i < 4 && ((joins >> i) & 1u))
            i++;
        n += i - r;
        if (i < 4)
            break;
        k++;
        r = 0;
    }
    return UPF_MIN(n, limit);
}

/* Weights b, a of the pixels (x, ya..yb) of one vertical run (the part inside this task's
 * block row); `open_up`/`open_down`: the run may go on beyond ya / yb. Mirrors
 * horizontal_run with rows and columns exchanged: the far side of a left edge is the column
 * x - 1, the near side the column x. */
static void vertical_segment(const weights_job *job, int x, int ya, int yb, int open_up,
                             int open_down, uint64_t (*diag_rows)[UPF_MAX_IMAGE_DIMENSION / 64],
                             int y0)
{
    const edge_map *m = &job->m;
    int limit = UPF_SMAA_MAX_SEARCH + 1 + (yb - ya);
    int ys = ya - (open_up ? scan_up(m, x, ya, limit) : 0);
    int ye = yb + (open_down ? scan_down(m, x, yb, limit) : 0);
    run_ends ends = {
        .code_l = top_edge(m, x - 1, ys) | top_edge(m, x, ys) << 1,
        .code_r = top_edge(m, x - 1, ye + 1) | top_edge(m, x, ye + 1) << 1,
        .far_l = top_edge(m, x - 2, ys), .far_r = top_edge(m, x - 2, ye + 1),
        .near_l = top_edge(m, x + 1, ys), .near_r = top_edge(m, x + 1, ye + 1),
    };
    for (int y = ya; y <= yb; y++) {
        if ((diag_rows[y - y0][x >> 6] >> (x & 63)) & 1u)
            continue; /* a diagonal took this pixel: no vertical processing */
        uint8_t *out = job->weights + ((size_t)y * m->width + x) * 4;
        ortho_weights(job->table, &ends, y - ys, ye - y, out + 2);
    }
}

/* Every vertical run through the 4 rows of block row `by`. */
static void vertical_block_row(const weights_job *job, int by,
                               uint64_t (*diag_rows)[UPF_MAX_IMAGE_DIMENSION / 64])
{
    const edge_map *m = &job->m;
    const uint32_t *row = m->words + (size_t)by * m->bw;
    int y0 = 4 * by;
    for (int bx = 0; bx < m->bw; bx++) {
        if (!(row[bx] & 0xFFFFu))
            continue;
        for (int c = 0; c < 4 && 4 * bx + c < m->width; c++) {
            int x = 4 * bx + c;
            unsigned col = column_nibble(row[bx] >> c);
            if (m->height - y0 < 4)
                col &= (1u << (m->height - y0)) - 1u;
            if (!col)
                continue;
            unsigned joins = column_joins(m, bx, c, by);
            int r = 0;
            while (r < 4) {
                if (!((col >> r) & 1u)) {
                    r++;
                    continue;
                }
                int a = r;
                while (r + 1 < 4 && ((joins >> (r + 1)) & 1u))
                    r++;
                vertical_segment(job, x, y0 + a, y0 + r, a == 0 && (joins & 1u), r == 3,
                                 diag_rows, y0);
                r++;
            }
        }
    }
}

/* ---- the pass ------------------------------------------------------------------------------ */

static void weights_task(void *priv, int by, int worker)
{
    (void)worker;
    const weights_job *job = priv;
    const edge_map *m = &job->m;
    int y0 = 4 * by, rows = UPF_MIN(4, m->height - y0);
    memset(job->weights + (size_t)y0 * m->width * 4, 0, (size_t)rows * m->width * 4);

    const uint32_t *row = m->words + (size_t)by * m->bw;
    int any = 0;
    for (int bx = 0; bx < m->bw && !any; bx++)
        any = row[bx] != 0;
    if (!any)
        return;

    /* Which 64-pixel chunks hold any top edge, for all 4 rows at once. */
    uint64_t occupied[UPF_MAX_IMAGE_DIMENSION / 64 / 64] = { 0 };
    for (int bx = 0; bx < m->bw; bx++)
        if (row[bx] >> 16)
            occupied[bx >> 10] |= UINT64_C(1) << ((bx >> 4) & 63);

    /* Pixels whose weights came from a diagonal, so that their left edge is skipped. */
    uint64_t diag_rows[4][UPF_MAX_IMAGE_DIMENSION / 64];
    int words = (m->width + 63) >> 6;
    for (int r = 0; r < rows; r++) {
        memset(diag_rows[r], 0, (size_t)words * sizeof(uint64_t));
        horizontal_row(job, y0 + r, occupied, diag_rows[r]);
    }
    vertical_block_row(job, by, diag_rows);
}

void upf__smaa_weights(upf_context *ctx, const uint32_t *edges, int width, int height,
                       const uint8_t *area_table, uint8_t *weights)
{
    weights_job job = {
        .m = { edges, width, height, upf__smaa_blocks(width), upf__smaa_blocks(height) },
        .table = area_table,
        .weights = weights,
    };
    upf__parallel_for(ctx, weights_task, &job, job.m.bh);
}

upf_result upf__smaa_weights_pass(const upf__pass_args *a)
{
    const upf__smaa_weights_con *con = a->con;
    upf__smaa_weights(a->ctx, a->surface[UPF__SP_EDGES].data, con->width, con->height,
                      a->surface[UPF__SP_AREA].data, a->surface[UPF__SP_WEIGHTS].data);
    return UPF_OK;
}

void upf__smaa_weights_visualise(const uint8_t *weights, int width, int height, uint8_t *rgba)
{
    for (size_t i = 0; i < (size_t)width * height; i++) {
        const uint8_t *w = weights + 4 * i;
        uint8_t *p = rgba + 4 * i;
        p[0] = (uint8_t)UPF_MIN(2 * (w[0] + w[1]), 255);
        p[1] = (uint8_t)UPF_MIN(2 * (w[2] + w[3]), 255);
        p[2] = 0;
        p[3] = 255;
    }
}
