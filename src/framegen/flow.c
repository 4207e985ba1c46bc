/* flow.c: the frame generation engine's optical flow (docs/FRAMEGEN.md, "flow"), for frames
 * without the game's motion vectors: the motion of every pixel of frame N to N-1 and of
 * every pixel of N-1 to N, from the two luma pyramids alone.
 *
 * Reads: luma prev, luma (r32f atlases). Writes: motion, priority, prev motion, flow blocks
 * (rg32f: per direction the block vectors of this level, of its parent and of the search),
 * flow histogram (r32ui), flow global (rg32f: the medians); with base 1 motion_t and
 * splat_land as scratch (step 6).
 *
 * Both directions the same way (forward: blocks of N found in N-1; backward: blocks of N-1
 * found in N), coarse to fine over the pyramid, on blocks of 8x8 pixels of each level
 * (hierarchical block matching, Bierling 1988, "Displacement estimation by hierarchical
 * blockmatching"; the design of FidelityFX's optical flow):
 *  1. Candidates: on the coarsest level the zero vector; below it twice the vectors of the
 *     parent block and of its four neighbours, twice the parent level's global motion (the
 *     median of each component over all its blocks: what a camera pan or turn gives every
 *     block, and the way out of a periodic texture's false matches; from histograms of 1 px
 *     bins, one step counting them with atomic adds, one reading the medians: exact, as the
 *     block vectors are whole pixels of their level here), and zero. The cost of a
 *     vector is its sum of absolute differences (SAD) over the block plus penalty x pixels x
 *     its L1 distance from the parent's vector (a smoothness prior: among equal matches the
 *     one that continues the coarser level's motion wins). The cheapest candidate is
 *     searched around, +-radius pixels (radius_coarse on the coarsest level, so a level l
 *     vector reaches radius_coarse 2^l: hundreds of pixels with 7 or 8 levels; radius_fine
 *     on level 0, where 0 keeps the cheapest candidate: the refine's sub-pixel steps follow),
 *     except in a flat block (mean |gradient| below `flat`: sky, a bare wall), which keeps
 *     its candidate. Samples beyond the frame repeat its edge.
 *  2. A 3x3 vector median over the blocks (the one of the nine with the least sum of L1
 *     distances to the others; Astola, Haavisto and Neuvo 1990, "Vector median filters"):
 *     a block that matched the wrong place takes its neighbours' vector.
 *  3. On level 0, `refine` Lucas-Kanade steps per block over the block and 2 pixels around
 *     it (Lucas and Kanade 1981), with the gradient of the block's own frame:
 *     dv = -(sum g g^T)^-1 sum g (other(q + v) - own(q)), at most a pixel per step, skipped
 *     where the block has no texture: sub-pixel vectors. The sums are over integers (the
 *     luma codes' differences and products, the mismatch rounded to a code: refine_block),
 *     exact in any order.
 *  4. Each 2x2 quad of pixels takes, of the vectors of the four blocks nearest it and zero,
 *     the one with the least SAD over the 4x4 pixels around the quad, the other frame
 *     sampled bilinearly (sharp motion edges instead of blocks; a still HUD keeps zero).
 *     Where the 4x4 pixels, moved by the quad's own block's vector, lie wholly outside the
 *     frame (content that came into view over the edge: its match is not in the other
 *     frame, whose samples there all repeat its edge), nothing can be compared: the quad
 *     takes the vector of the first block towards the frame's inside whose vector keeps it
 *     inside (the motion continued to the edge; the tears along the left edge of a pan,
 *     issue 35).
 *  5. Forward/backward consistency: a pixel p of N with vector m is consistent when the
 *     backward vector at p + m (nearest pixel) is within consistency + consistency_rel |m|
 *     of -m (a vector that leaves the frame counts as consistent). The priority of a
 *     consistent pixel is upf__fg_motion_priority of its vector (faster wins); an
 *     inconsistent one (occluded in N-1, or a wrong match) keeps its vector but gets the
 *     lowest priority, so it loses every splat conflict to a consistent surface. (Dropping
 *     such vectors altogether, and weighting the resolve by flow-derived visibility, both
 *     measured worse on the rendered evaluation pairs: docs/FRAMEGEN.md.)
 *  6. With base 1 (frames above 1280x720 by default: upf__fg_flow_con.base) steps 1 to 5 run
 *     on the half-size frame, the pyramids from their level 1 (prepare.c), and two more
 *     steps double its fields onto the frame's pixels: each pixel takes the vectors of its
 *     half-size pixel (x / 2, y / 2) times two and the priority of that vector (lost where
 *     the half-size check failed). The consistency is then 0.75 half-size pixels, the same
 *     1.5 pixels of the frame. A quarter of the finest level's work; on the evaluation pairs
 *     and clips the pictures within about 0.1 dB of the flow of the frame itself
 *     (docs/FRAMEGEN.md, "flow").
 * Work: one task per row of blocks, or of cells (the choice: 4 rows of quads), or of pixels;
 * per level the steps search, vector median with the histograms, and the medians
 * (src/vk/shaders/framegen/flow.comp: one dispatch each, their count fixed by the size; the
 * last two one dispatch on a small level: upf__fg_flow_fused), then refine (one step with
 * level 0's vector median), choose and check on level 0.
 * Everything in fp32 a GPU repeats word for word. The luma pyramids hold 12-bit codes k / 4096
 * (prepare.c), so a SAD or gradient sum over whole pixels (the search, the flat test) is a sum
 * of multiples of 2^-12 far below 2^24 of them: exact, the same in any order; the refine's
 * sums are over integers. Only the choice's SADs of bilinear samples are floats summed in
 * order. The refine's one reciprocal; the flat test a product, not a quotient. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framegen/framegen_passes.h"

#define B UPF__FG_BLOCK
#define REFINE_MARGIN 2

typedef struct level_view {
    const float *own, *other;  /* level rows, `stride` floats apart */
    int w, h, stride;
} level_view;

static inline float px(const level_view *v, const float *img, int x, int y)
{
    x = UPF_CLAMP(x, 0, v->w - 1);
    y = UPF_CLAMP(y, 0, v->h - 1);
    return img[(size_t)y * v->stride + x];
}

/* SAD of the block at (x0, y0) (its pixels inside the level) against the other frame at an
 * integer offset: each row's sum, then the rows' in order (a GPU sums a row an invocation). */
static float block_sad(const level_view *v, int x0, int y0, int dx, int dy, float limit)
{
    float sum = 0.0f;
    const int x1 = UPF_MIN(x0 + B, v->w), y1 = UPF_MIN(y0 + B, v->h);
    const bool inside = x0 + dx >= 0 && x1 + dx <= v->w && y0 + dy >= 0 && y1 + dy <= v->h;
    for (int y = y0; y < y1; y++) {
        const float *a = v->own + (size_t)y * v->stride;
        float row = 0.0f;
        if (inside) {
            const float *b = v->other + (size_t)(y + dy) * v->stride + dx;
            for (int x = x0; x < x1; x++)
                row += fabsf(a[x] - b[x]);
        } else {
            for (int x = x0; x < x1; x++)
                row += fabsf(a[x] - px(v, v->other, x + dx, y + dy));
        }
        sum += row;
        if (sum >= limit)
            return sum;
    }
    return sum;
}

typedef struct flow_job {
    const upf__fg_flow_con *con;
    level_view view[2];        /* per direction, this level */
    int level, bw, bh, pbw, pbh;
    int bs;                    /* texels a row of the block surfaces (level 0's blocks across) */
    const float *parent[2];    /* parent level's block vectors (pbw x pbh), or NULL */
    const float *global;       /* the parent level's median vector, per direction (2 x rg) */
    float *raw[2];             /* this level's searched vectors (bw x bh) */
    float *vec[2];             /* this level's vectors after the vector median */
    uint32_t *hist;            /* the histograms of this level's vector components */
    float *field[2];           /* per pixel, level 0: motion, prev motion */
    uint32_t *priority;
    float *half;               /* base 1: the half-size fields' scratch (motion_t), or NULL */
    uint32_t *half_priority;   /* ... and the priorities' (splat_land) */
    int W, H;
} flow_job;

/* Whether the block has texture to match: its mean |gradient| (the sum over its own pixels,
 * each row's then the rows', divided by their count n) is at least `flat`, compared as sum >=
 * flat n (a product, which a GPU rounds as the CPU does; a quotient it may not). */
static bool block_textured(const level_view *v, int x0, int y0, float flat)
{
    const int x1 = UPF_MIN(x0 + B, v->w - 1), y1 = UPF_MIN(y0 + B, v->h - 1);
    float sum = 0.0f;
    int n = 0;
    for (int y = y0; y < y1; y++) {
        const float *r = v->own + (size_t)y * v->stride;
        float row = 0.0f;
        for (int x = x0; x < x1; x++, n++)
            row += fabsf(r[x + 1] - r[x]) + fabsf(r[x + v->stride] - r[x]);
        sum += row;
    }
    return n ? sum >= flat * (float)n : 0.0f >= flat;
}

static void search_row(void *priv, int by, int worker)
{
    (void)worker;
    const flow_job *j = priv;
    const upf__fg_flow_con *c = j->con;
    const bool coarsest = j->level == c->levels - 1;
    const int radius = coarsest ? c->radius_coarse : j->level == 0 ? c->radius_fine : c->radius;
    for (int d = 0; d < 2; d++) {
        const level_view *v = &j->view[d];
        for (int bx = 0; bx < j->bw; bx++) {
            int cand[8][2], n = 0;
            if (!coarsest) {
                static const int nb[5][2] = { { 0, 0 }, { -1, 0 }, { 1, 0 }, { 0, -1 }, { 0, 1 } };
                for (int k = 0; k < 5; k++) {
                    int px_ = UPF_CLAMP(bx / 2 + nb[k][0], 0, j->pbw - 1);
                    int py_ = UPF_CLAMP(by / 2 + nb[k][1], 0, j->pbh - 1);
                    const float *pv = j->parent[d] + 2 * ((size_t)py_ * j->bs + px_);
                    cand[n][0] = (int)lrintf(2.0f * pv[0]);
                    cand[n][1] = (int)lrintf(2.0f * pv[1]);
                    n++;
                }
                cand[n][0] = (int)lrintf(2.0f * j->global[2 * d]);
                cand[n][1] = (int)lrintf(2.0f * j->global[2 * d + 1]);
                n++;
            }
            cand[n][0] = 0, cand[n][1] = 0, n++;
            /* the prediction: the parent's own vector (zero on the coarsest level) */
            const int pred[2] = { cand[0][0], cand[0][1] };
            const int x0 = bx * B, y0 = by * B;
            const int npix = (UPF_MIN(x0 + B, v->w) - x0) * (UPF_MIN(y0 + B, v->h) - y0);
            const float lambda = coarsest ? 0.0f : c->penalty * (float)npix;
#define COST(vx, vy, lim)                                                                     \
    (block_sad(v, x0, y0, (vx), (vy), (lim)) +                                                \
     lambda * (float)(abs((vx) - pred[0]) + abs((vy) - pred[1])))
            int best[2] = { cand[0][0], cand[0][1] };
            float best_cost = INFINITY;
            for (int k = 0; k < n; k++) {
                float s = COST(cand[k][0], cand[k][1], best_cost);
                if (s < best_cost)
                    best_cost = s, best[0] = cand[k][0], best[1] = cand[k][1];
            }
            if (radius > 0 && block_textured(v, x0, y0, c->flat)) {
                const int cx = best[0], cy = best[1];
                for (int dy = -radius; dy <= radius; dy++)
                    for (int dx = -radius; dx <= radius; dx++) {
                        if (!dx && !dy)
                            continue;
                        float s = COST(cx + dx, cy + dy, best_cost);
                        if (s < best_cost)
                            best_cost = s, best[0] = cx + dx, best[1] = cy + dy;
                    }
            }
#undef COST
            float *o = j->raw[d] + 2 * ((size_t)by * j->bs + bx);
            o[0] = (float)best[0];
            o[1] = (float)best[1];
        }
    }
}

static void median_row(void *priv, int by, int worker)
{
    (void)worker;
    const flow_job *j = priv;
    for (int d = 0; d < 2; d++)
        for (int bx = 0; bx < j->bw; bx++) {
            float v[9][2];
            int n = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = bx + dx, y = by + dy;
                    if (x < 0 || y < 0 || x >= j->bw || y >= j->bh)
                        continue;
                    const float *s = j->raw[d] + 2 * ((size_t)y * j->bs + x);
                    v[n][0] = s[0], v[n][1] = s[1], n++;
                }
            int best = 0;
            float best_sum = INFINITY;
            for (int a = 0; a < n; a++) {
                float sum = 0.0f;
                for (int b = 0; b < n; b++)
                    sum += fabsf(v[a][0] - v[b][0]) + fabsf(v[a][1] - v[b][1]);
                if (sum < best_sum)
                    best_sum = sum, best = a;
            }
            float *o = j->vec[d] + 2 * ((size_t)by * j->bs + bx);
            o[0] = v[best][0];
            o[1] = v[best][1];
        }
}

/* A luma value's 12-bit code (prepare.c: the pyramids hold codes / 4096), exactly. */
static inline int32_t luma_int(float v)
{
    return (int32_t)(v * UPF__FG_LUMA_SCALE);
}

/* The refine's sums over integers (exact in any order, so a GPU may spread them over lanes):
 * per pixel of the region, with luma codes L, dx = L(x + 1) - L(x - 1) and dy likewise
 * (twice the central difference: ix = 0.5 (r(x + 1) - r(x - 1)) = dx 2^-13), the mismatch in
 * codes E = round(4096 (sample1(other, q + v) - own(q))), and the terms (dx dx) >> 1,
 * (dx dy) >> 1, (dy dy) >> 1, (dx E) >> 1, (dy E) >> 1 (>> an arithmetic shift, as GCC and
 * Clang define it and GLSL: halving rounded down). A term is at most 4095^2 / 2 in size, so a
 * sum over the at most 12 x 12 pixels stays under 1.21e9 < 2^31. As the formula's floats:
 * sum ix ix = H 2^-25, sum ix e = G 2^-24 (powers of two: exact; the conversion rounds once,
 * to nearest, as Vulkan's does). */
#define REFINE_SIDE (B + 2 * REFINE_MARGIN)
static inline int32_t half_down(int32_t p)
{
    return p >> 1;
}

static void refine_block(const flow_job *j, const level_view *v, int bx, int by, float *vec)
{
    const int x0 = UPF_MAX(bx * B - REFINE_MARGIN, 1);
    const int y0 = UPF_MAX(by * B - REFINE_MARGIN, 1);
    const int x1 = UPF_MIN(bx * B + B + REFINE_MARGIN, v->w - 1);
    const int y1 = UPF_MIN(by * B + B + REFINE_MARGIN, v->h - 1);
    int32_t gdx[REFINE_SIDE * REFINE_SIDE], gdy[REFINE_SIDE * REFINE_SIDE];
    int32_t sxx = 0, sxy = 0, syy = 0;
    int n = 0;
    for (int y = y0; y < y1; y++) {
        const float *r = v->own + (size_t)y * v->stride;
        for (int x = x0; x < x1; x++, n++) {
            gdx[n] = luma_int(r[x + 1]) - luma_int(r[x - 1]);
            gdy[n] = luma_int(r[x + v->stride]) - luma_int(r[x - v->stride]);
            sxx += half_down(gdx[n] * gdx[n]);
            sxy += half_down(gdx[n] * gdy[n]);
            syy += half_down(gdy[n] * gdy[n]);
        }
    }
    const float hxx = (float)sxx * 0x1p-25f, hxy = (float)sxy * 0x1p-25f;
    const float hyy = (float)syy * 0x1p-25f;
    for (int it = 0; it < j->con->refine; it++) {
        int32_t sx = 0, sy = 0;
        n = 0;
        for (int y = y0; y < y1; y++) {
            const float *r = v->own + (size_t)y * v->stride;
            for (int x = x0; x < x1; x++, n++) {
                float e = upf__fg_sample1(v->other, v->w, v->h, (size_t)v->stride,
                                          (float)x + 0.5f + vec[0], (float)y + 0.5f + vec[1]) -
                          r[x];
                const int32_t E = (int32_t)floorf(e * UPF__FG_LUMA_SCALE + 0.5f);
                sx += half_down(gdx[n] * E);
                sy += half_down(gdy[n] * E);
            }
        }
        const float gx = (float)sx * 0x1p-24f, gy = (float)sy * 0x1p-24f;
        const float det = hxx * hyy - hxy * hxy;
        const float tr = hxx + hyy;
        if (!(det > 1e-4f * tr * tr) || !(tr > 1e-6f))
            break;
        const float inv = 1.0f / det;
        float dx = -(hyy * gx - hxy * gy) * inv, dy = -(hxx * gy - hxy * gx) * inv;
        dx = UPF_CLAMP(dx, -1.0f, 1.0f);
        dy = UPF_CLAMP(dy, -1.0f, 1.0f);
        vec[0] += dx;
        vec[1] += dy;
        if (fabsf(dx) + fabsf(dy) < 0.01f)
            break;
    }
}

static void refine_row(void *priv, int by, int worker)
{
    (void)worker;
    const flow_job *j = priv;
    for (int d = 0; d < 2; d++)
        for (int bx = 0; bx < j->bw; bx++)
            refine_block(j, &j->view[d], bx, by, j->vec[d] + 2 * ((size_t)by * j->bs + bx));
}

/* Where the pixels x0 .. x1, y0 .. y1 (edges) of level 0 moved by vector m leave the other
 * frame: per axis -1 past its start, 1 past its end, 0 inside, with a pixel's slack (a still
 * edge's sub-pixel noise; the bilinear samples there are still the frame's). */
#define FLOW_EDGE_SLACK 1.0f
static bool beyond(const flow_job *j, int x0, int y0, int x1, int y1, const float *m)
{
    const float ax = (float)x0 + m[0], ay = (float)y0 + m[1];
    const float bx = (float)x1 + m[0], by = (float)y1 + m[1];
    return ax < -FLOW_EDGE_SLACK || bx > (float)j->W + FLOW_EDGE_SLACK ||
           ay < -FLOW_EDGE_SLACK || by > (float)j->H + FLOW_EDGE_SLACK;
}

/* Whether the pixels x0 .. x1, y0 .. y1 (edges) moved by m lie wholly outside the frame, and
 * past which end per axis (-1 its start, 1 its end, 0 neither). */
static bool outside(const flow_job *j, int x0, int y0, int x1, int y1, const float *m, int *sx,
                    int *sy)
{
    const float ax = (float)x0 + m[0], ay = (float)y0 + m[1];
    const float bx = (float)x1 + m[0], by = (float)y1 + m[1];
    *sx = bx <= 0.0f ? -1 : ax >= (float)j->W ? 1 : 0;
    *sy = by <= 0.0f ? -1 : ay >= (float)j->H ? 1 : 0;
    return *sx || *sy;
}

/* A quad whose 4x4 window, moved by its own block's vector, lies wholly outside the frame
 * (content that came into view over the edge in this direction) has nothing in the other
 * frame to be matched or compared against (its samples there all repeat the edge): the
 * vector of the first block towards the frame's inside (at most FLOW_EDGE_WALK blocks away)
 * that stays inside (within a pixel), the motion continued to the edge; the own block's where
 * there is none. NULL for a quad partly inside (compared as before: a small object leaving
 * the frame keeps its own vector). */
#define FLOW_EDGE_WALK 32
static const float *edge_vector(const flow_job *j, int d, int qx0, int qy0, int bx, int by)
{
    const float *own = j->vec[d] + 2 * ((size_t)by * j->bs + bx);
    int sx, sy;
    if (!outside(j, qx0 - 1, qy0 - 1, qx0 + 3, qy0 + 3, own, &sx, &sy))
        return NULL;
    for (int k = 1; k <= FLOW_EDGE_WALK; k++) {
        const int x = bx - k * sx, y = by - k * sy;
        if (x < 0 || y < 0 || x >= j->bw || y >= j->bh)
            break;
        const float *v = j->vec[d] + 2 * ((size_t)y * j->bs + x);
        if (!beyond(j, x * B, y * B, UPF_MIN(x * B + B, j->W), UPF_MIN(y * B + B, j->H), v))
            return v;
    }
    return own;
}

/* The choice works by cells: the quads whose centres lie between the same four block centres
 * (quad x0 with floor((x0 + 1) / 8 - 0.5) = floor((x0 - 3) / 8) = b, likewise down: 4 x 4
 * quads, the pixels 8b + 4 .. 8b + 11) take the same five candidates, and their 4x4 windows
 * cover the 10 x 10 pixels 8b + 3 .. 8b + 12; so a cell's per-pixel differences |own(p) -
 * other(p + m)| are made once per candidate (500 bilinear samples of the other frame where the
 * quads would take 1280) and each quad's SAD is the sum of its 16 in row order, left to right:
 * the SAD of the 4x4 pixels around it. Cells b = -1 (the quads at 0 and 2) .. the last
 * quad's, cells_of of the size. */
#define CELL_SPAN 10
static int cells_of(int size)
{
    const int last = 2 * ((size + 1) / 2) - 2;
    return (last >= 3 ? (last - 3) / 8 : -1) + 2;
}

/* Quad (x0, y0) of cell (b, c) in direction d: the vector of the least SAD (from the cell's
 * differences diff[candidate][window pixel]), its own block's first (ties keep it), then the
 * others in order; a quad whose window its own block moves beyond the frame takes the edge's
 * vector without a comparison. */
static const float *choose_quad(const flow_job *j, int d, int x0, int y0, int b, int c,
                                const float (*cand)[2], const float (*diff)[CELL_SPAN * CELL_SPAN])
{
    const int own = (x0 / B == UPF_CLAMP(b + 1, 0, j->bw - 1) ? 1 : 0) +
                    (y0 / B == UPF_CLAMP(c + 1, 0, j->bh - 1) ? 2 : 0);
    const float *edge = edge_vector(j, d, x0, y0, UPF_CLAMP(b + (own & 1), 0, j->bw - 1),
                                    UPF_CLAMP(c + (own >> 1), 0, j->bh - 1));
    if (edge)
        return edge; /* beyond the frame: no candidate can be compared */
    const int at = (y0 - 1 - (8 * c + 3)) * CELL_SPAN + x0 - 1 - (8 * b + 3);
    float sad[5];
    for (int k = 0; k < 5; k++) {
        float sum = 0.0f;
        for (int r = 0; r < 4; r++)
            for (int q = 0; q < 4; q++)
                sum += diff[k][at + r * CELL_SPAN + q];
        sad[k] = sum;
    }
    int best = own;
    for (int k = 0; k < 5; k++)
        if (k != own && sad[k] < sad[best])
            best = k;
    return cand[best];
}

/* Cell row cy (c = cy - 1), both directions. */
static void choose_cells(void *priv, int cy, int worker)
{
    (void)worker;
    const flow_job *j = priv;
    const int W = j->W, H = j->H, c = cy - 1, ncx = cells_of(W);
    for (int d = 0; d < 2; d++) {
        const level_view *v = &j->view[d];
        for (int b = -1; b + 1 < ncx; b++) {
            /* the four blocks whose centres surround the cell's quads' centres, and zero */
            float cand[5][2] = { { 0.0f, 0.0f } };
            for (int k = 0; k < 4; k++) {
                const int bx = UPF_CLAMP(b + (k & 1), 0, j->bw - 1);
                const int by = UPF_CLAMP(c + (k >> 1), 0, j->bh - 1);
                const float *s = j->vec[d] + 2 * ((size_t)by * j->bs + bx);
                cand[k][0] = s[0], cand[k][1] = s[1];
            }
            float diff[5][CELL_SPAN * CELL_SPAN];
            for (int k = 0; k < 5; k++)
                for (int p = 0; p < CELL_SPAN * CELL_SPAN; p++) {
                    const int x = 8 * b + 3 + p % CELL_SPAN, y = 8 * c + 3 + p / CELL_SPAN;
                    const float o = upf__fg_sample1(v->other, v->w, v->h, (size_t)v->stride,
                                                    (float)x + 0.5f + cand[k][0],
                                                    (float)y + 0.5f + cand[k][1]);
                    diff[k][p] = fabsf(px(v, v->own, x, y) - o);
                }
            for (int i = 0; i < 16; i++) {
                const int x0 = 8 * b + 4 + 2 * (i & 3), y0 = 8 * c + 4 + 2 * (i >> 2);
                if (x0 < 0 || y0 < 0 || x0 >= W || y0 >= H)
                    continue;
                const float *m = choose_quad(j, d, x0, y0, b, c, cand,
                                             (const float (*)[CELL_SPAN * CELL_SPAN])diff);
                for (int y = y0; y < UPF_MIN(y0 + 2, H); y++)
                    for (int x = x0; x < UPF_MIN(x0 + 2, W); x++) {
                        float *o = j->field[d] + 2 * ((size_t)y * W + x);
                        o[0] = m[0];
                        o[1] = m[1];
                    }
            }
        }
    }
}

/* Forward/backward consistency of N's pixels, and their priority. */
static void check_row(void *priv, int y, int worker)
{
    (void)worker;
    const flow_job *j = priv;
    const upf__fg_flow_con *c = j->con;
    const int W = j->W, H = j->H;
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        const float *m = j->field[0] + 2 * i;
        int tx = (int)floorf((float)x + 0.5f + m[0]), ty = (int)floorf((float)y + 0.5f + m[1]);
        /* a vector that leaves the frame is kept: nothing to check it against */
        bool ok = true;
        if (tx >= 0 && tx < W && ty >= 0 && ty < H) {
            const float *b = j->field[1] + 2 * ((size_t)ty * W + tx);
            float ex = m[0] + b[0], ey = m[1] + b[1];
            float len = sqrtf(m[0] * m[0] + m[1] * m[1]);
            ok = sqrtf(ex * ex + ey * ey) <= c->consistency + c->consistency_rel * len;
        }
        /* an inconsistent pixel keeps its vector but loses every splat conflict */
        j->priority[i] = ok ? upf__fg_motion_priority(m[0], m[1]) : UPF__FG_LOST;
        if (!j->half)
            continue;
        /* base 1: the half-size fields into scratch that the splat and fill write later
         * (motion_t: mx, my, prev mx, prev my; splat_land: the priority), for up_row: the
         * frame's motion, prev motion and priority are what this reads and up_row writes */
        float *o = j->half + 4 * i;
        const float *b = j->field[1] + 2 * i;
        o[0] = m[0], o[1] = m[1], o[2] = b[0], o[3] = b[1];
        j->half_priority[i] = j->priority[i];
    }
}

/* up_row's job: the half-size fields that check_row left in motion_t and splat_land (w x h
 * from their first word) and the frame's, which it writes. */
typedef struct up_job {
    int w, h, W, H;        /* the half-size frame's size, the frame's */
    float *motion, *prev_motion, *half; /* motion_t: 4 floats a pixel */
    uint32_t *priority, *half_priority;
} up_job;

/* base 1, step up: each pixel of the frame takes its half-size pixel's vectors doubled (the
 * pixel (x / 2, y / 2): a vector of the half-size frame spans twice the frame's pixels), and
 * the priority of the doubled vector, or UPF__FG_LOST where that pixel's check failed. */
static void up_row(void *priv, int y, int worker)
{
    (void)worker;
    const up_job *j = priv;
    for (int x = 0; x < j->W; x++) {
        const size_t i = (size_t)y * j->W + x, k = (size_t)(y >> 1) * j->w + (x >> 1);
        const float *h = j->half + 4 * k;
        const float mx = 2.0f * h[0], my = 2.0f * h[1];
        j->motion[2 * i] = mx, j->motion[2 * i + 1] = my;
        j->prev_motion[2 * i] = 2.0f * h[2], j->prev_motion[2 * i + 1] = 2.0f * h[3];
        j->priority[i] = j->half_priority[k] == UPF__FG_LOST ? UPF__FG_LOST
                                                            : upf__fg_motion_priority(mx, my);
    }
}

/* The histogram bin of a vector component: bins of 1 px centred on the integers
 * -UPF__FG_FLOW_BINS / 2 .. UPF__FG_FLOW_BINS / 2 - 1, the ends taking what lies beyond. */
static inline int hist_bin(float v)
{
    const float b = floorf(v + 0.5f) + (float)(UPF__FG_FLOW_BINS / 2);
    return b <= 0.0f ? 0 : b >= (float)(UPF__FG_FLOW_BINS - 1) ? UPF__FG_FLOW_BINS - 1 : (int)b;
}

void upf__fg_hist_add(uint32_t *hist, float v)
{
    __atomic_fetch_add(&hist[hist_bin(v)], 1u, __ATOMIC_RELAXED);
}

float upf__fg_hist_median(const uint32_t *hist, uint32_t n)
{
    /* the value of sorted index n / 2: the first bin whose count and those below exceed n / 2 */
    uint32_t c = 0;
    int b = 0;
    while (b < UPF__FG_FLOW_BINS - 1 && (c += hist[b]) <= n / 2)
        b++;
    return n ? (float)(b - UPF__FG_FLOW_BINS / 2) : 0.0f;
}

static void hist_row(void *priv, int by, int worker)
{
    (void)worker;
    const flow_job *j = priv;
    for (int d = 0; d < 2; d++)
        for (int bx = 0; bx < j->bw; bx++) {
            const float *v = j->vec[d] + 2 * ((size_t)by * j->bs + bx);
            for (int k = 0; k < 2; k++)
                upf__fg_hist_add(j->hist + (size_t)(2 * d + k) * UPF__FG_FLOW_BINS, v[k]);
        }
}

static size_t blocks_across(int width)
{
    return (size_t)((width + B - 1) / B);
}

void upf__fg_flow_sizes(int width, int height, int *blocks_w, int *blocks_h)
{
    *blocks_w = (int)blocks_across(width);
    *blocks_h = 3 * 2 * (int)blocks_across(height);
}

/* The pass, or its first `stop` steps (upf__fg_flow_steps): the GPU's dispatches, one each. */
void upf__fg_flow_steps(const upf__pass_args *a, int stop)
{
    const upf__fg_flow_con *con = a->con;
    const upf__surface *s = a->surface;
    const int W = con->width, H = con->height;
    const int bs = (int)blocks_across(W);
    const size_t nb = (size_t)bs * blocks_across(H) * 2; /* floats of one buffer */
    float *base = s[UPF__FG_FLOW_BLOCKS].data;
    /* per direction: the vectors of this level and of the parent (alternating), the search's */
    float *buf[2][3] = { { base, base + nb, base + 2 * nb },
                         { base + 3 * nb, base + 4 * nb, base + 5 * nb } };
    const float *luma[2] = { s[UPF__FG_LUMA].data, s[UPF__FG_LUMA_PREV].data };
    uint32_t *hist = s[UPF__FG_FLOW_HIST].data;
    float *global = s[UPF__FG_FLOW_GLOBAL].data;
    flow_job job;
    memset(&job, 0, sizeof job);
    job.con = con;
    job.W = W, job.H = H, job.bs = bs;
    job.hist = hist;
    job.global = global;
    int step = 0;
    int cur = 0; /* which of buf[d][0..1] holds this level's vectors */
    for (int l = con->levels - 1; l >= 0; l--) {
        const int w = upf__fg_level_size(W, l), h = upf__fg_level_size(H, l);
        const size_t off = (size_t)upf__fg_level_row(H, l) * W;
        for (int d = 0; d < 2; d++) {
            job.view[d] = (level_view){ luma[d] + off, luma[1 - d] + off, w, h, W };
            job.parent[d] = l == con->levels - 1 ? NULL : buf[d][1 - cur];
            job.vec[d] = buf[d][cur];
            job.raw[d] = buf[d][2];
        }
        job.level = l;
        job.pbw = job.bw, job.pbh = job.bh;
        job.bw = (w + B - 1) / B, job.bh = (h + B - 1) / B;
        /* the search; above level 0 the histograms start empty (the GPU zeroes them here) */
        if (step++ >= stop)
            return;
        upf__parallel_for(a->ctx, search_row, &job, job.bh);
        if (l > 0)
            memset(hist, 0, sizeof(uint32_t) * 4 * UPF__FG_FLOW_BINS);
        /* the vector median, and above level 0 the histograms of its vectors */
        if (step++ >= stop)
            return;
        upf__parallel_for(a->ctx, median_row, &job, job.bh);
        if (l > 0)
            upf__parallel_for(a->ctx, hist_row, &job, job.bh);
        /* the level's global motion for the next: the median of each component over its
         * blocks, from their histograms */
        if (l > 0) {
            if (!upf__fg_flow_fused(job.bw, job.bh) && step++ >= stop)
                return;
            for (int k = 0; k < 4; k++)
                global[k] = upf__fg_hist_median(hist + (size_t)k * UPF__FG_FLOW_BINS,
                                                (uint32_t)(job.bw * job.bh));
        }
        cur = 1 - cur;
    }
    /* level 0's vectors are in buf[d][1 - cur]; the refine is one step with level 0's vector
     * median (the GPU's flow_refine.comp takes each block's median, then refines it) */
    for (int d = 0; d < 2; d++)
        job.vec[d] = buf[d][1 - cur];
    if (con->refine > 0)
        upf__parallel_for(a->ctx, refine_row, &job, job.bh);
    job.field[0] = s[UPF__FG_MOTION].data;
    job.field[1] = s[UPF__FG_PREV_MOTION].data;
    job.priority = s[UPF__FG_PRIORITY].data;
    if (con->base > 0)
        job.half = s[UPF__FG_MOTION_T].data, job.half_priority = s[UPF__FG_SPLAT_LAND].data;
    if (step++ >= stop)
        return;
    upf__parallel_for(a->ctx, choose_cells, &job, cells_of(H));
    if (step++ >= stop)
        return;
    upf__parallel_for(a->ctx, check_row, &job, H);
    if (con->base == 0)
        return;
    up_job up = { W, H, con->frame_width, con->frame_height, s[UPF__FG_MOTION].data,
                  s[UPF__FG_PREV_MOTION].data, s[UPF__FG_MOTION_T].data, s[UPF__FG_PRIORITY].data,
                  s[UPF__FG_SPLAT_LAND].data };
    if (step++ >= stop)
        return;
    upf__parallel_for(a->ctx, up_row, &up, up.H);
}

upf_result upf__fg_flow_pass(const upf__pass_args *a)
{
    upf__fg_flow_steps(a, INT_MAX);
    return UPF_OK;
}
