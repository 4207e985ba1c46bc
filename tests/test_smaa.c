/* test_smaa.c: the spatial engine's SMAA passes 1-3 and the area table (src/spatial/smaa*).
 *
 *  - pass 1 on hand-made images (a vertical step, the bit layout, the threshold exactly at
 *    0.1, local contrast adaptation, borders and partial blocks) and against a plain
 *    per-pixel restatement of the rule on random images;
 *  - the area table: hand-worked values, ranges and sums, its symmetries, and agreement
 *    with SMAA's shipped table (an oracle file given beside the checkout, see below);
 *  - pass 2 on hand-worked cases (a stepped horizontal edge, a long diagonal, a rectangle's
 *    corners), against a naive per-pixel search written here, mirror and transpose
 *    symmetry;
 *  - pass 3 on hand-worked blends;
 *  - end to end: aliased half-planes at several angles come out closer to the exact pixel
 *    coverage than they went in; the same bits for 1, 2 and 3 threads. */
#include <sys/stat.h>

#include "core/color.h"
#include "spatial/smaa.h"
#include "test_util.h"

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct frame_buffers {
    int w, h, bw, bh;
    float *linear, *luma;
    uint32_t *edges, *frame;
    uint8_t *weights;
} frame_buffers;

static frame_buffers buffers_make(int w, int h)
{
    frame_buffers b = { w, h, upf__smaa_blocks(w), upf__smaa_blocks(h), NULL, NULL, NULL, NULL,
                        NULL };
    b.linear = calloc((size_t)w * h * 4, sizeof(float));
    b.luma = calloc((size_t)w * h, sizeof(float));
    b.edges = calloc((size_t)b.bw * b.bh, sizeof(uint32_t));
    b.frame = calloc((size_t)w * h, sizeof(uint32_t));
    b.weights = calloc((size_t)w * h * 4, 1);
    return b;
}

static void buffers_free(frame_buffers *b)
{
    free(b->linear);
    free(b->luma);
    free(b->edges);
    free(b->frame);
    free(b->weights);
}

static void set_grey(frame_buffers *b, int x, int y, float v)
{
    float *p = b->linear + ((size_t)y * b->w + x) * 4;
    p[0] = p[1] = p[2] = v;
    p[3] = 1.0f;
}

/* Edge flags read straight from the word layout of docs/SPATIAL.md (0 outside the image). */
static int edge_l(const uint32_t *edges, int w, int h, int x, int y)
{
    if (x < 0 || y < 0 || x >= w || y >= h)
        return 0;
    uint32_t word = edges[(y / 4) * ((w + 3) / 4) + x / 4];
    return (word >> ((y % 4) * 4 + x % 4)) & 1;
}

static int edge_t(const uint32_t *edges, int w, int h, int x, int y)
{
    if (x < 0 || y < 0 || x >= w || y >= h)
        return 0;
    uint32_t word = edges[(y / 4) * ((w + 3) / 4) + x / 4];
    return (word >> (16 + (y % 4) * 4 + x % 4)) & 1;
}

static void run_all(upf_context *ctx, frame_buffers *b, const uint8_t *table)
{
    upf__smaa_edges(ctx, b->linear, b->w, b->h, b->luma, b->edges, b->frame);
    upf__smaa_weights(ctx, b->edges, b->w, b->h, table, b->weights);
    upf__smaa_blend(ctx, b->linear, b->weights, b->w, b->h, b->frame);
}

static void test_lowest_bit(test_rng *rng)
{
    for (int i = 0; i < 64; i++)
        CHECK_EQ_INT(upf__smaa_lowest_bit(UINT64_C(1) << i), i);
    for (int k = 0; k < 1000; k++) {
        uint64_t v = ((uint64_t)test_rand_u32(rng) << 32 | test_rand_u32(rng)) &
                     (~UINT64_C(0) << test_rand_int(rng, 0, 63));
        if (!v)
            continue;
        int n = 0;
        while (!((v >> n) & 1))
            n++;
        CHECK_EQ_INT(upf__smaa_lowest_bit(v), n);
    }
}

/* ---- pass 1 ---------------------------------------------------------------------------------- */

static void test_edges_vertical_step(upf_context *ctx)
{
    /* 9x6, black for x < 4, white from x = 4: a left edge on every pixel of column 4 and
     * nothing else. Blocks: 3 across, 2 down; column 4 is column 0 of block column 1. */
    frame_buffers b = buffers_make(9, 6);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 9; x++)
            set_grey(&b, x, y, x >= 4 ? 1.0f : 0.0f);
    upf__smaa_edges(ctx, b.linear, b.w, b.h, b.luma, b.edges, b.frame);
    const uint32_t expect[6] = { 0, 0x1111u, 0, 0, 0x0011u, 0 };
    for (int i = 0; i < 6; i++)
        CHECKF(b.edges[i] == expect[i], "word %d = 0x%08x, expected 0x%08x", i, b.edges[i],
               expect[i]);
    /* The luma scratch holds the luma of the sqrt-encoded colour. */
    CHECK_NEAR(b.luma[4], 1.0, 1e-6);
    CHECK_NEAR(b.luma[3], 0.0, 0);
    buffers_free(&b);
}

static void test_edges_bit_layout(upf_context *ctx)
{
    /* One bright pixel at (5, 6) on grey 0.25: left edges at (5,6) and (6,6), top edges at
     * (5,6) and (5,7). (5,6) is pixel (1,2) of block (1,1): bits 2*4+1 = 9 and 16+9 = 25;
     * (6,6) is (2,2) of block (1,1): bit 10; (5,7) is (1,3) of block (1,1): bit 16+13 = 29. */
    frame_buffers b = buffers_make(10, 9);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 10; x++)
            set_grey(&b, x, y, (x == 5 && y == 6) ? 1.0f : 0.0625f);
    upf__smaa_edges(ctx, b.linear, b.w, b.h, b.luma, b.edges, b.frame);
    for (int i = 0; i < b.bw * b.bh; i++) {
        uint32_t expect = i == 1 * 3 + 1 ? (1u << 9) | (1u << 25) | (1u << 10) | (1u << 29) : 0;
        CHECKF(b.edges[i] == expect, "word %d = 0x%08x, expected 0x%08x", i, b.edges[i], expect);
    }
    buffers_free(&b);
}

static void test_edges_threshold(upf_context *ctx)
{
    /* Find a colour whose luma is exactly 0.1f, and the next one below: against a black
     * neighbour the difference is the luma itself. SMAA's step() makes a difference equal
     * to the threshold an edge (>=). Green is held, red swept one float at a time: the red
     * term moves the sum by about a quarter of a unit in the last place, so 0.1f is hit. */
    float g = 0.0125f, r = 0.0085f;
    while (upf__smaa_luma(r, g, 0.0f) < 0.1f)
        r = nextafterf(r, 1.0f);
    float exact = upf__smaa_luma(r, g, 0.0f) == 0.1f ? r : -1.0f;
    float below = nextafterf(r, 0.0f);
    CHECKF(exact > 0.0f, "no red value with luma exactly 0.1f found near %.9g", r);
    CHECK(upf__smaa_luma(below, g, 0.0f) < 0.1f);
    printf("smaa: threshold: luma(%.9g, %.9g, 0) = %.9g, one red step down %.9g\n", r, g,
           upf__smaa_luma(r, g, 0.0f), upf__smaa_luma(below, g, 0.0f));

    float values[2] = { r, below };
    int expect[2] = { 1, 0 };
    for (int k = 0; k < 2; k++) {
        frame_buffers b = buffers_make(2, 1);
        b.linear[4 + 0] = values[k];
        b.linear[4 + 1] = g;
        b.linear[3] = b.linear[7] = 1.0f;
        upf__smaa_edges(ctx, b.linear, 2, 1, b.luma, b.edges, b.frame);
        CHECKF(edge_l(b.edges, 2, 1, 1, 0) == expect[k], "red %.9g (luma %.9g): edge %d",
               values[k], b.luma[1], edge_l(b.edges, 2, 1, 1, 0));
        buffers_free(&b);
    }
}

/* A row of grey pixels given by their luma (grey v has luma ~ sqrt(v)). */
static void row_from_luma(frame_buffers *b, int y, const float *luma)
{
    for (int x = 0; x < b->w; x++)
        set_grey(b, x, y, luma[x] * luma[x]);
}

static void test_edges_lca(upf_context *ctx)
{
    /* Weak step 0.15 between x = 1 and x = 2 (an edge on its own), then a strong step 0.5
     * right after it: |L(2) - L(3)| = 0.5 > 2 * 0.15, so the weak edge is dropped while the
     * strong one stays. The control row has no strong step. */
    const float with_strong[6] = { 0.2f, 0.2f, 0.35f, 0.85f, 0.85f, 0.85f };
    const float control[6] = { 0.2f, 0.2f, 0.35f, 0.35f, 0.35f, 0.35f };
    /* LeftLeft: the strong step lies two to the left of the weak one. */
    const float strong_leftleft[6] = { 0.9f, 0.9f, 0.3f, 0.45f, 0.45f, 0.45f };
    frame_buffers b = buffers_make(6, 3);
    row_from_luma(&b, 0, with_strong);
    row_from_luma(&b, 1, control);
    row_from_luma(&b, 2, strong_leftleft);
    /* Rows differ from each other: compare in one image, but make vertical steps harmless
     * by checking only left edges here. */
    upf__smaa_edges(ctx, b.linear, 6, 3, b.luma, b.edges, b.frame);
    CHECK_EQ_INT(edge_l(b.edges, 6, 3, 2, 1), 1); /* control: weak edge kept */
    CHECK_EQ_INT(edge_l(b.edges, 6, 3, 2, 0), 0); /* beside a strong one: dropped */
    CHECK_EQ_INT(edge_l(b.edges, 6, 3, 3, 0), 1); /* the strong one stays */
    CHECK_EQ_INT(edge_l(b.edges, 6, 3, 3, 2), 0); /* strong step two to the left: dropped */
    CHECK_EQ_INT(edge_l(b.edges, 6, 3, 2, 2), 1);
    buffers_free(&b);

    /* TopTop, and a strong step below (Bottom) suppressing a weak top edge. */
    frame_buffers c = buffers_make(3, 6);
    const float col_toptop[6] = { 0.9f, 0.3f, 0.45f, 0.45f, 0.45f, 0.45f };
    const float col_bottom[6] = { 0.3f, 0.3f, 0.45f, 0.95f, 0.95f, 0.95f };
    const float col_control[6] = { 0.3f, 0.3f, 0.45f, 0.45f, 0.45f, 0.45f };
    const float *cols[3] = { col_toptop, col_bottom, col_control };
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 6; y++)
            set_grey(&c, x, y, cols[x][y] * cols[x][y]);
    upf__smaa_edges(ctx, c.linear, 3, 6, c.luma, c.edges, c.frame);
    CHECK_EQ_INT(edge_t(c.edges, 3, 6, 2, 2), 1); /* control */
    CHECK_EQ_INT(edge_t(c.edges, 3, 6, 0, 2), 0); /* TopTop 0.6 > 2 * 0.15 */
    CHECK_EQ_INT(edge_t(c.edges, 3, 6, 1, 2), 0); /* Bottom 0.5 > 2 * 0.15 */
    CHECK_EQ_INT(edge_t(c.edges, 3, 6, 1, 3), 1);
    buffers_free(&c);
}

/* Pass 1 restated per pixel: clamped neighbours, float arithmetic as the rule says. */
static void reference_edges(const float *luma, int w, int h, uint32_t *edges)
{
    int bw = (w + 3) / 4;
    memset(edges, 0, sizeof(uint32_t) * bw * ((h + 3) / 4));
#define LUMA(X, Y) luma[UPF_CLAMP((Y), 0, h - 1) * w + UPF_CLAMP((X), 0, w - 1)]
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float p = LUMA(x, y);
            float d[6] = { fabsf(p - LUMA(x - 1, y)), fabsf(p - LUMA(x, y - 1)),
                           fabsf(p - LUMA(x + 1, y)), fabsf(p - LUMA(x, y + 1)),
                           fabsf(LUMA(x - 1, y) - LUMA(x - 2, y)),
                           fabsf(LUMA(x, y - 1) - LUMA(x, y - 2)) };
            float m = 0.0f;
            for (int i = 0; i < 6; i++)
                m = d[i] > m ? d[i] : m;
            int el = d[0] >= 0.1f && 2.0f * d[0] >= m;
            int et = d[1] >= 0.1f && 2.0f * d[1] >= m;
            int bit = (y % 4) * 4 + x % 4;
            edges[(y / 4) * bw + x / 4] |= ((uint32_t)el << bit) | ((uint32_t)et << (16 + bit));
        }
    }
#undef LUMA
}

static void test_edges_random(upf_context *ctx, test_rng *rng)
{
    for (int iter = 0; iter < 6; iter++) {
        int w = test_rand_int(rng, 1, 90), h = test_rand_int(rng, 1, 70);
        frame_buffers b = buffers_make(w, h);
        /* Blocky random greys with noise: many edges, many near the threshold. */
        float base[4] = { test_rand_float(rng), test_rand_float(rng), test_rand_float(rng),
                          test_rand_float(rng) };
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                float *p = b.linear + ((size_t)y * w + x) * 4;
                for (int c = 0; c < 3; c++)
                    p[c] = base[((x / 3) + (y / 5) + c) & 3] * (0.8f + 0.4f * test_rand_float(rng));
                p[3] = test_rand_float(rng) * 1.4f - 0.2f;
                switch (test_rand_int(rng, 0, 15)) { /* values the encodings must clamp */
                case 0: p[1] = -0.1f; break;          /* negative counts as 0 */
                case 1: p[0] = -0.0f; break;
                case 2: p[2] = 1.0f + 3.0f * test_rand_float(rng); break; /* above 1 */
                case 3: p[0] = 1e-30f; break;         /* tiny */
                default: break;
                }
            }
        }
        upf__smaa_edges(ctx, b.linear, w, h, b.luma, b.edges, b.frame);
        uint32_t *ref = calloc((size_t)b.bw * b.bh, sizeof(uint32_t));
        /* The fast row kernel against the scalar definitions, every pixel. */
        int bad_luma = 0, bad_frame = 0;
        for (int i = 0; i < w * h; i++) {
            const float *p = b.linear + 4 * i;
            bad_luma += b.luma[i] != upf__smaa_luma(p[0], p[1], p[2]);
            bad_frame += b.frame[i] != upf_pack_sqrt1010102(p[0], p[1], p[2], p[3]);
        }
        CHECK_EQ_INT(bad_luma, 0);
        CHECK_EQ_INT(bad_frame, 0);
        reference_edges(b.luma, w, h, ref);
        int mismatches = 0;
        for (int i = 0; i < b.bw * b.bh; i++)
            mismatches += ref[i] != b.edges[i];
        CHECKF(mismatches == 0, "%dx%d: %d words differ from the per-pixel rule", w, h,
               mismatches);
        /* No left edges in column 0, no top edges in row 0, nothing beyond W or H. */
        for (int by = 0; by < b.bh; by++) {
            for (int bx = 0; bx < b.bw; bx++) {
                for (int i = 0; i < 16; i++) {
                    int x = bx * 4 + i % 4, y = by * 4 + i / 4;
                    uint32_t word = b.edges[by * b.bw + bx];
                    int l = (word >> i) & 1, t = (word >> (16 + i)) & 1;
                    if (x >= w || y >= h)
                        CHECK(!l && !t);
                    if (x == 0)
                        CHECK(!l);
                    if (y == 0)
                        CHECK(!t);
                }
            }
        }
        free(ref);
        buffers_free(&b);
    }
}

/* ---- the area table ---------------------------------------------------------------------- */

static int q255(double v)
{
    return (int)floor(255.0 * v + 1e-9);
}

static void test_area_hand_worked(const uint8_t *table)
{
    const uint8_t *t;
    /* L at the left end, crossing edge above (code 1), run of 8: the line falls from
     * (0, 0.5) to the midpoint (4, 0); pixel k < 4 has area 0.5 (1 - (2k+1)/8) = (7-2k)/16
     * above the edge (G); the right half has none. */
    for (int k = 0; k < 8; k++) {
        t = upf__smaa_area_ortho_texel(table, 1, 0, k, 7 - k);
        CHECK_EQ_INT(t[0], 0);
        CHECK_EQ_INT(t[1], k < 4 ? q255((7 - 2 * k) / 16.0) : 0);
    }
    /* L at the right end, crossing below (code 2): mirror image, in R. */
    for (int k = 0; k < 8; k++) {
        t = upf__smaa_area_ortho_texel(table, 0, 2, k, 7 - k);
        CHECK_EQ_INT(t[0], k >= 4 ? q255((2 * k - 7) / 16.0) : 0);
        CHECK_EQ_INT(t[1], 0);
    }
    /* Z (up at the left, down at the right), run of 4: the line (0, 0.5) -> (4, -0.5);
     * pixel areas 0.375, 0.125 above, then 0.125, 0.375 below. */
    const double z4[4][2] = { { 0, 0.375 }, { 0, 0.125 }, { 0.125, 0 }, { 0.375, 0 } };
    for (int k = 0; k < 4; k++) {
        t = upf__smaa_area_ortho_texel(table, 1, 2, k, 3 - k);
        CHECK_EQ_INT(t[0], q255(z4[k][0]));
        CHECK_EQ_INT(t[1], q255(z4[k][1]));
    }
    /* Z of one pixel: two triangles of 1/8, one each side. */
    t = upf__smaa_area_ortho_texel(table, 2, 1, 0, 0);
    CHECK_EQ_INT(t[0], 31);
    CHECK_EQ_INT(t[1], 31);
    /* U of one pixel (both ends up): each half 1/8, smoothed to lerp(sqrt(2/8)/2, 1/8, 1/32)
     * = 0.24609375; both halves 0.4921875 -> 125. */
    t = upf__smaa_area_ortho_texel(table, 1, 1, 0, 0);
    CHECK_EQ_INT(t[0], 0);
    CHECK_EQ_INT(t[1], 125);
    /* An end crossed on both sides reads as the side opposite the other end; with nothing
     * or "both" at the other end the pattern is empty. */
    for (int dl = 0; dl < 32; dl += 3) {
        for (int dr = 0; dr < 32; dr += 5) {
            const uint8_t *a = upf__smaa_area_ortho_texel(table, 3, 1, dl, dr);
            const uint8_t *b = upf__smaa_area_ortho_texel(table, 2, 1, dl, dr);
            CHECK(a[0] == b[0] && a[1] == b[1]);
            a = upf__smaa_area_ortho_texel(table, 2, 3, dl, dr);
            b = upf__smaa_area_ortho_texel(table, 2, 1, dl, dr);
            CHECK(a[0] == b[0] && a[1] == b[1]);
            static const int empty[5][2] = { { 0, 0 }, { 3, 0 }, { 0, 3 }, { 3, 3 }, { 3, 3 } };
            for (int i = 0; i < 5; i++) {
                a = upf__smaa_area_ortho_texel(table, empty[i][0], empty[i][1], dl, dr);
                CHECK(a[0] == 0 && a[1] == 0);
            }
        }
    }

    /* Diagonals. Patterns none/none, none/both and both/both average the lines y = x and
     * y = x - 1 (model coordinates): the pixel [1+dl, 2+dl] x [dl, 1+dl] lies wholly right of
     * the first and is halved by the second, so R = (0 + 1/2)/2; its upper neighbour is
     * halved by the first and wholly left of the second, G = (1/2 + 0)/2: 63 both. Pattern
     * vertical/horizontal is the line y = x - 1 alone (R 1/2, G 0), horizontal/vertical the
     * line y = x (R 0, G 1/2); orientation 1 mirrors, exchanging the two ends. */
    for (int dl = 0; dl < 16; dl++) {
        for (int dr = 0; dr < 16; dr++) {
            for (int o = 0; o < 2; o++) {
                static const int quarter[3][2] = { { 0, 0 }, { 0, 3 }, { 3, 3 } };
                for (int i = 0; i < 3; i++) {
                    if (o == 1 && i == 1 && dl + dr == 0)
                        continue; /* = orientation 0's both/none: a zero-length line at d = 1 */
                    t = upf__smaa_area_diag_texel(table, o, quarter[i][0], quarter[i][1], dl, dr);
                    CHECKF(t[0] == 63 && t[1] == 63, "diag %d (%d,%d) at %d,%d: %d,%d", o,
                           quarter[i][0], quarter[i][1], dl, dr, t[0], t[1]);
                }
                t = upf__smaa_area_diag_texel(table, o, 1, 2, dl, dr);
                CHECK_EQ_INT(t[0], o == 0 ? 127 : 0);
                CHECK_EQ_INT(t[1], o == 0 ? 0 : 127);
                t = upf__smaa_area_diag_texel(table, o, 2, 1, dl, dr);
                CHECK_EQ_INT(t[0], o == 0 ? 0 : 127);
                CHECK_EQ_INT(t[1], o == 0 ? 127 : 0);
            }
        }
    }
    /* vertical/vertical of one pixel: the line (1,0) -> (2,2) cuts a quarter off the pixel
     * and a quarter off its upper neighbour. */
    t = upf__smaa_area_diag_texel(table, 0, 1, 1, 0, 0);
    CHECK_EQ_INT(t[0], 63);
    CHECK_EQ_INT(t[1], 63);
}

static int flip_code(int c)
{
    return ((c & 1) << 1) | ((c >> 1) & 1);
}

static void test_area_ranges_sums_symmetries(const uint8_t *table)
{
    /* No straight-edge weight exceeds half a pixel (the line never leaves |y| <= 0.5). */
    int over = 0;
    for (int ty = 0; ty < 128; ty++)
        for (int tx = 0; tx < 128; tx++)
            over += table[2 * (ty * 192 + tx)] > 127 || table[2 * (ty * 192 + tx) + 1] > 127;
    CHECK_EQ_INT(over, 0);
    /* Diagonal model values are areas: in [0, 1]. */
    for (int o = 0; o < 2; o++)
        for (int p = 0; p < 16; p++)
            for (int dl = 0; dl < 16; dl++)
                for (int dr = 0; dr < 16; dr++) {
                    double v[2];
                    upf__smaa_area_diag(o, p / 4, p % 4, dl, dr, 0, v);
                    CHECK(v[0] >= 0.0 && v[0] <= 1.0 && v[1] >= 0.0 && v[1] <= 1.0);
                }

    /* Sums over a run: an L is a triangle of base d/2 and height 1/2 (area d/8); a Z two of
     * them, one each side; an unsmoothed U (d >= 32) two on one side. The table's 8-bit
     * truncation loses less than one unit a pixel. */
    for (int d = 1; d <= 32; d++) {
        double sl[2] = { 0, 0 }, sz[2] = { 0, 0 };
        int tl = 0, tz0 = 0, tz1 = 0;
        for (int dl = 0; dl < d; dl++) {
            double v[2];
            upf__smaa_area_ortho(2, 0, dl, d - 1 - dl, v);
            sl[0] += v[0];
            sl[1] += v[1];
            tl += upf__smaa_area_ortho_texel(table, 2, 0, dl, d - 1 - dl)[0];
            upf__smaa_area_ortho(1, 2, dl, d - 1 - dl, v);
            sz[0] += v[0];
            sz[1] += v[1];
            tz0 += upf__smaa_area_ortho_texel(table, 1, 2, dl, d - 1 - dl)[0];
            tz1 += upf__smaa_area_ortho_texel(table, 1, 2, dl, d - 1 - dl)[1];
        }
        CHECK_NEAR(sl[0], d / 8.0, 1e-12);
        CHECK_NEAR(sl[1], 0.0, 0);
        CHECK_NEAR(sz[0], d / 8.0, 1e-12);
        CHECK_NEAR(sz[1], d / 8.0, 1e-12);
        CHECK(tl <= 255.0 * d / 8.0 + 1e-9 && tl > 255.0 * d / 8.0 - d);
        CHECK(tz0 <= 255.0 * d / 8.0 + 1e-9 && tz0 > 255.0 * d / 8.0 - d);
        CHECK(tz1 <= 255.0 * d / 8.0 + 1e-9 && tz1 > 255.0 * d / 8.0 - d);
    }
    for (int d = 1; d <= 48; d++) {
        double su = 0.0;
        for (int dl = 0; dl < d; dl++) {
            double u[2], l[2], r[2];
            upf__smaa_area_ortho(1, 1, dl, d - 1 - dl, u);
            upf__smaa_area_ortho(1, 0, dl, d - 1 - dl, l);
            upf__smaa_area_ortho(0, 1, dl, d - 1 - dl, r);
            /* Smoothing only ever adds, and stops from length 32 on. */
            if (d >= 32)
                CHECK_NEAR(u[1], l[1] + r[1], 1e-12);
            else
                CHECK(u[1] >= l[1] + r[1] - 1e-15);
            su += u[1];
        }
        if (d >= 32)
            CHECK_NEAR(su, d / 4.0, 1e-12);
        else
            CHECK(su > d / 4.0);
    }

    /* Symmetries, exact on the bytes. Left-right mirror: the pattern (cl, cr) at (dl, dr)
     * is (cr, cl) at (dr, dl). Up-down mirror: exchanging the far and near side of both
     * codes exchanges R and G. Diagonals: orientation 1 at (cl, cr, dl, dr) is orientation
     * 0 at (cr, cl, dr, dl) (the "\" line is the "/" one in a mirror). */
    int bad_lr = 0, bad_ud = 0, bad_diag = 0;
    for (int cl = 0; cl < 4; cl++) {
        for (int cr = 0; cr < 4; cr++) {
            for (int dl = 0; dl < 32; dl++) {
                for (int dr = 0; dr < 32; dr++) {
                    const uint8_t *a = upf__smaa_area_ortho_texel(table, cl, cr, dl, dr);
                    const uint8_t *b = upf__smaa_area_ortho_texel(table, cr, cl, dr, dl);
                    const uint8_t *c =
                        upf__smaa_area_ortho_texel(table, flip_code(cl), flip_code(cr), dl, dr);
                    bad_lr += a[0] != b[0] || a[1] != b[1];
                    bad_ud += a[0] != c[1] || a[1] != c[0];
                    if (dl < 16 && dr < 16) {
                        const uint8_t *d1 = upf__smaa_area_diag_texel(table, 1, cl, cr, dl, dr);
                        const uint8_t *d0 = upf__smaa_area_diag_texel(table, 0, cr, cl, dr, dl);
                        bad_diag += d1[0] != d0[0] || d1[1] != d0[1];
                    }
                }
            }
        }
    }
    CHECK_EQ_INT(bad_lr, 0);
    CHECK_EQ_INT(bad_ud, 0);
    CHECK_EQ_INT(bad_diag, 0);

    /* The table is the model, floor(255 v), texel by texel (catches layout mistakes). */
    int bad = 0;
    for (int cl = 0; cl < 4; cl++)
        for (int cr = 0; cr < 4; cr++)
            for (int dl = 0; dl < 32; dl++)
                for (int dr = 0; dr < 32; dr++) {
                    double v[2];
                    const uint8_t *t = table + 2 * ((32 * cr + dr) * 192 + 32 * cl + dl);
                    upf__smaa_area_ortho(cl, cr, dl, dr, v);
                    bad += t[0] != q255(v[0]) || t[1] != q255(v[1]);
                    if (dl < 16 && dr < 16) {
                        for (int o = 0; o < 2; o++) {
                            t = table + 2 * ((64 * o + 16 * cr + dr) * 192 + 128 + 16 * cl + dl);
                            upf__smaa_area_diag(o, cl, cr, dl, dr, 0, v);
                            bad += t[0] != q255(v[0]) || t[1] != q255(v[1]);
                        }
                    }
                }
    CHECK_EQ_INT(bad, 0);
}

/* SMAA's shipped 1x table (160x80 RG8): a 5x5 grid of 16x16 orthogonal tiles (codes 0 none,
 * 1 up, 3 down, 4 both; texel i <-> distance i*i) and a 4x4 grid of 20x20 diagonal tiles at
 * x >= 80 (linear distances). It is SMAA's file, not part of this repository: looked for in
 * $UPF_ORACLE_DIR, then in a folder shared/oracles beside the source tree or beside its
 * parent (a development checkout and its worktrees); the comparison is skipped without it. */
static int read_oracle(uint8_t *buf)
{
    const char *dirs[3] = { getenv("UPF_ORACLE_DIR"), UPF_SOURCE_DIR "/../shared/oracles",
                            UPF_SOURCE_DIR "/../../shared/oracles" };
    for (int i = 0; i < 3; i++) {
        if (!dirs[i])
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/smaa_areatex_1x_160x80.rg8", dirs[i]);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t n = fread(buf, 1, 160 * 80 * 2, f);
        fclose(f);
        if (n == 160 * 80 * 2) {
            printf("smaa: oracle %s\n", path);
            return 1;
        }
    }
    return 0;
}

static void test_area_oracle(const uint8_t *table)
{
    static uint8_t oracle[160 * 80 * 2];
    if (!read_oracle(oracle)) {
        printf("smaa: SKIPPED the oracle comparison: smaa_areatex_1x_160x80.rg8 not found "
               "(set UPF_ORACLE_DIR)\n");
        return;
    }
    static const int slot[4] = { 0, 1, 3, 4 }; /* our code -> SMAA's tile slot */

    /* Orthogonal: every pattern at distances 0, 1, 4, 9, 16, 25 (both tables hold them). */
    int n = 0, exact = 0, worst = 0;
    for (int cl = 0; cl < 4; cl++)
        for (int cr = 0; cr < 4; cr++)
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    const uint8_t *ours = upf__smaa_area_ortho_texel(table, cl, cr, i * i, j * j);
                    const uint8_t *theirs =
                        oracle + 2 * ((16 * slot[cr] + j) * 160 + 16 * slot[cl] + i);
                    for (int c = 0; c < 2; c++) {
                        int d = abs(ours[c] - theirs[c]);
                        n++;
                        exact += d == 0;
                        worst = d > worst ? d : worst;
                    }
                }
    printf("smaa: area table vs SMAA, orthogonal: %d of %d values equal, max |diff| %d\n",
           exact, n, worst);
    CHECK(worst <= 1);

    /* Diagonal (orientation 0 is SMAA's table): every pattern at distances 0..15. Ours is
     * integrated exactly; SMAA counts 30x30 points per pixel, borders included, which is
     * off by up to a few hundredths. The same model counted SMAA's way must agree exactly. */
    int nd = 0, exact_d = 0, worst_d = 0, worst_used = 0, exact_s = 0, worst_s = 0;
    for (int cl = 0; cl < 4; cl++)
        for (int cr = 0; cr < 4; cr++)
            for (int dl = 0; dl < 16; dl++)
                for (int dr = 0; dr < 16; dr++) {
                    const uint8_t *ours = upf__smaa_area_diag_texel(table, 0, cl, cr, dl, dr);
                    const uint8_t *theirs =
                        oracle + 2 * ((20 * cr + dr) * 160 + 80 + 20 * cl + dl);
                    double sampled[2];
                    upf__smaa_area_diag(0, cl, cr, dl, dr, 30, sampled);
                    for (int c = 0; c < 2; c++) {
                        int d = abs(ours[c] - theirs[c]);
                        int ds = abs((int)(255.0 * sampled[c]) - theirs[c]);
                        nd++;
                        exact_d += d == 0;
                        worst_d = d > worst_d ? d : worst_d;
                        if (dl + dr >= 3) /* pass 2 reads only diagonals longer than 3 */
                            worst_used = d > worst_used ? d : worst_used;
                        exact_s += ds == 0;
                        worst_s = ds > worst_s ? ds : worst_s;
                    }
                }
    printf("smaa: area table vs SMAA, diagonal (exact areas): %d of %d values equal, max |diff| "
           "%d (%d where pass 2 reads)\n", exact_d, nd, worst_d, worst_used);
    printf("smaa: area model counted on SMAA's 30x30 grid: %d of %d values equal, max |diff| %d\n",
           exact_s, nd, worst_s);
    CHECK(worst_used <= 4);
    CHECK(worst_d <= 8);
    CHECK_EQ_INT(exact_s, nd);
}

/* ---- pass 2 -------------------------------------------------------------------------------- */

/* Edges and weights of a binary image (1 = white) given as a function of (x, y). */
typedef int (*shape_fn)(const void *priv, int x, int y);

static void render_binary(frame_buffers *b, shape_fn shape, const void *priv)
{
    for (int y = 0; y < b->h; y++)
        for (int x = 0; x < b->w; x++)
            set_grey(b, x, y, shape(priv, x, y) ? 1.0f : 0.0f);
}

static const uint8_t *weight_at(const frame_buffers *b, int x, int y)
{
    return b->weights + ((size_t)y * b->w + x) * 4;
}

static int shape_step(const void *priv, int x, int y)
{
    (void)priv;
    return y < 4 || (y == 4 && x >= 8);
}

static void test_weights_step(upf_context *ctx, const uint8_t *table)
{
    /* White above, black below; the boundary steps down one row at x = 8:
     *   rows 0-3 white; row 4 white from x = 8; rows 5- black.
     * Run A: top edges of row 4, x = 0..7 (d = 8). Left end: the image border, no
     * crossing; right end: the left edge of (8, 4), in the run's own row (code 2). An L:
     * from the midpoint (4, 0) down to (8, -0.5); pixel x >= 4 has (2x - 7)/16 of its area
     * beyond the line, so it blends toward the white pixel above by that much (r).
     * Run B: top edges of row 5, x = 8..23 (d = 16). Left end: the same left edge, now in
     * the row above (code 1); an L from (0, 0.5) to (8, 0): pixel k = x - 8 < 8 has
     * (15 - 2k)/32 of the white pixel above it on its side, so that one blends toward it (g).
     * No corner continues (rows 3 and 6 have no left edge at x = 8): no rounding.
     * The left edge of (8, 4) is a vertical run of one pixel: far side (column 7) crossed
     * at its top, near side (column 8) at its bottom: a Z of one pixel, 1/8 each way (31);
     * at both ends (equally near) a crossing continues one more pixel, on the near side
     * (top edge of (9, 5)) and on the far side (top edge of (6, 4)): factor 1 - 3/8 each,
     * so b = a = round(31 * 5/8) = 19. */
    frame_buffers b = buffers_make(24, 10);
    render_binary(&b, shape_step, NULL);
    upf__smaa_edges(ctx, b.linear, b.w, b.h, b.luma, b.edges, b.frame);
    upf__smaa_weights(ctx, b.edges, b.w, b.h, table, b.weights);
    int wrong = 0;
    for (int y = 0; y < b.h; y++) {
        for (int x = 0; x < b.w; x++) {
            int e[4] = { 0, 0, 0, 0 };
            if (y == 4 && x >= 4 && x <= 7)
                e[0] = q255((2 * x - 7) / 16.0);
            if (y == 5 && x >= 8 && x < 16)
                e[1] = q255((15 - 2 * (x - 8)) / 32.0);
            if (y == 4 && x == 8)
                e[2] = e[3] = 19;
            const uint8_t *w = weight_at(&b, x, y);
            for (int c = 0; c < 4; c++) {
                if (w[c] != e[c]) {
                    wrong++;
                    fprintf(stderr, "step: (%d,%d) channel %d = %d, expected %d\n", x, y, c,
                            w[c], e[c]);
                }
            }
        }
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(weight_at(&b, 7, 4)[0], 111); /* (2*7 - 7)/16 = 0.4375 -> 111 */
    CHECK_EQ_INT(weight_at(&b, 8, 5)[1], 119); /* 15/32 -> 119 */
    buffers_free(&b);
}

typedef struct diag_shape {
    int c, mirror, w;
} diag_shape;

static int shape_diag(const void *priv, int x, int y)
{
    const diag_shape *s = priv;
    if (s->mirror)
        x = s->w - 1 - x;
    return x + y >= s->c;
}

static void test_weights_diagonal(upf_context *ctx, const uint8_t *table)
{
    /* A 45-degree staircase across a 48x48 image: white where x + y >= 48. The pixels on it
     * (x + y = 48) have a left and a top edge. Away from the image's corners both searches
     * run their 16 steps without finding an end, so both end codes are 0 and the lookup is
     * the none/none pattern: 63, 63 (test_area_hand_worked). The diagonal takes priority:
     * no left-edge weights. The mirrored image (a "\" staircase) must give the same through
     * orientation 1. */
    for (int mirror = 0; mirror < 2; mirror++) {
        diag_shape s = { 48, mirror, 48 };
        frame_buffers b = buffers_make(48, 48);
        render_binary(&b, shape_diag, &s);
        upf__smaa_edges(ctx, b.linear, b.w, b.h, b.luma, b.edges, b.frame);
        upf__smaa_weights(ctx, b.edges, b.w, b.h, table, b.weights);
        for (int x = 17; x <= 31; x++) {
            int y = 48 - x, px = mirror ? 47 - x : x;
            const uint8_t *w = weight_at(&b, px, y);
            CHECKF(w[0] == 63 && w[1] == 63 && w[2] == 0 && w[3] == 0,
                   "mirror %d: (%d,%d) = %d %d %d %d, expected 63 63 0 0", mirror, px, y, w[0],
                   w[1], w[2], w[3]);
        }
        /* Pass 3 then moves the staircase pixel 63/255 of the way toward the black pixel
         * above it, and that one the same toward it. */
        upf__smaa_blend(ctx, b.linear, b.weights, b.w, b.h, b.frame);
        float r, g, bl, a;
        int px = mirror ? 47 - 24 : 24;
        upf_unpack_sqrt1010102(b.frame[24 * 48 + px], &r, &g, &bl, &a);
        CHECK_NEAR(r * r, 1.0 - 63.0 / 255.0, 2.0 / 1023.0);
        upf_unpack_sqrt1010102(b.frame[23 * 48 + px], &r, &g, &bl, &a);
        CHECK_NEAR(r * r, 63.0 / 255.0, 2.0 / 1023.0);
        buffers_free(&b);
    }
}

typedef struct rect_shape {
    int x0, y0, x1, y1; /* inclusive */
} rect_shape;

static int shape_rect(const void *priv, int x, int y)
{
    const rect_shape *r = priv;
    return x >= r->x0 && x <= r->x1 && y >= r->y0 && y <= r->y1;
}

/* Area of pixel k of a U of length d (both ends crossed on the same side), SMAA-smoothed:
 * each half, a line from height 1/2 at its end to 0 at d/2, gives area a, smoothed to
 * lerp(sqrt(2a)/2, a, min(d/32, 1)). */
static double smooth(double a, int d)
{
    double b = 0.5 * sqrt(2.0 * a), p = d / 32.0 < 1.0 ? d / 32.0 : 1.0;
    return b + (a - b) * p;
}

static double u_area(int d, int k)
{
    if (2 * k + 1 == d) /* the middle pixel: a triangle of height 1/(2d), width 1/2, per half */
        return 2.0 * smooth(0.125 / d, d);
    int j = 2 * k + 1 < d ? k : d - 1 - k; /* distance to the nearer end */
    return smooth(0.5 * (1.0 - (2.0 * j + 1.0) / d), d);
}

static void test_weights_corners(upf_context *ctx, const uint8_t *table)
{
    /* A white rectangle x 4..15, y 4..9 on black. Each side is one run whose ends are both
     * crossed on the same side: a U (the rectangle's corners). At each end the crossing edge
     * continues one more pixel (the next side of the rectangle), so corner rounding keeps
     * 25 % of every weight: round(t * 2/8), t the table value. Top side (row 4, d = 12):
     * down/down, r. Bottom (top edges of row 10): up/up, g. Left side (left edges of
     * column 4, d = 6): near/near, b. Right (left edges of column 16): far/far, a. */
    rect_shape rect = { 4, 4, 15, 9 };
    frame_buffers b = buffers_make(24, 16);
    render_binary(&b, shape_rect, &rect);
    upf__smaa_edges(ctx, b.linear, b.w, b.h, b.luma, b.edges, b.frame);
    upf__smaa_weights(ctx, b.edges, b.w, b.h, table, b.weights);
    int wrong = 0;
    for (int y = 0; y < b.h; y++) {
        for (int x = 0; x < b.w; x++) {
            int e[4] = { 0, 0, 0, 0 };
            if (x >= 4 && x <= 15 && (y == 4 || y == 10))
                e[y == 4 ? 0 : 1] = (q255(u_area(12, x - 4)) * 2 + 4) >> 3;
            if (y >= 4 && y <= 9 && (x == 4 || x == 16))
                e[x == 4 ? 2 : 3] = (q255(u_area(6, y - 4)) * 2 + 4) >> 3;
            const uint8_t *w = weight_at(&b, x, y);
            for (int c = 0; c < 4; c++) {
                if (w[c] != e[c]) {
                    wrong++;
                    fprintf(stderr, "corners: (%d,%d) channel %d = %d, expected %d\n", x, y, c,
                            w[c], e[c]);
                }
            }
        }
    }
    CHECK_EQ_INT(wrong, 0);
    /* By hand, the top-left pixel: a = 11/24, b = sqrt(2a)/2, p = 12/32 -> 0.47107 -> 120,
     * times 2/8 -> 30. */
    CHECK_EQ_INT(q255(u_area(12, 0)), 120);
    CHECK_EQ_INT(weight_at(&b, 4, 4)[0], 30);
    buffers_free(&b);
}

/* Pass 2 restated the slow way: every pixel searches on its own, one pixel per step, with
 * the rules as docs/SMAA.md writes them. The library must give the same bytes. */
typedef struct ref_edges {
    const uint32_t *e;
    int w, h;
} ref_edges;

#define RL(X, Y) edge_l(r->e, r->w, r->h, (X), (Y))
#define RT(X, Y) edge_t(r->e, r->w, r->h, (X), (Y))

static void ref_lookup(const uint8_t *table, int cl, int cr, int dl, int dr, const int near[2],
                       const int far[2], uint8_t *out)
{
    int found_l = dl <= 32, found_r = dr <= 32;
    if (!found_l)
        dl = 32, cl = 0;
    if (!found_r)
        dr = 32, cr = 0;
    const uint8_t *t = table + 2 * ((32 * cr + (dr < 31 ? dr : 31)) * 192 + 32 * cl +
                                    (dl < 31 ? dl : 31));
    double share = dl == dr ? 0.5 : 1.0;
    int closer_l = dl <= dr, closer_r = dr <= dl;
    double fn = 1.0 - share * 0.75 * (closer_l * found_l * near[0] + closer_r * found_r * near[1]);
    double ff = 1.0 - share * 0.75 * (closer_l * found_l * far[0] + closer_r * found_r * far[1]);
    out[0] = (uint8_t)floor(t[0] * fn + 0.5);
    out[1] = (uint8_t)floor(t[1] * ff + 0.5);
}

static int ref_continues(const ref_edges *r, int kind, int x, int y)
{
    return kind == 0 ? RL(x, y) && RT(x, y) : RT(x, y) && RL(x + 1, y);
}

static void ref_search(const ref_edges *r, int kind, int x, int y, int dx, int dy, int grow,
                       int *d, int *found)
{
    int n = 0;
    while (n < 16 && ref_continues(r, kind, x + (n + 1) * dx, y + (n + 1) * dy))
        n++;
    int last = n < 16 ? n + 1 : 16;
    *found = n < 16;
    *d = n < 16 ? n : 15;
    if (grow && RT(x + last * dx, y + last * dy))
        (*d)++;
}

static int ref_diag(const ref_edges *r, const uint8_t *table, int x, int y, uint8_t *out)
{
    int sr = 0, sg = 0, d1, d2, f1, f2;
    /* "/" */
    if (RL(x, y))
        ref_search(r, 0, x, y, -1, 1, 1, &d1, &f1);
    else
        d1 = 0, f1 = 1;
    ref_search(r, 0, x, y, 1, -1, 0, &d2, &f2);
    if (d1 + d2 + 1 > 3) {
        int ex = x - d1, ey = y + d1, fx = x + d2, fy = y - d2;
        int cl = f1 ? 2 * RT(ex - 1, ey) + RL(ex, ey) : 0;
        int cr = f2 ? 2 * RT(fx + 1, fy) + RL(fx + 1, fy - 1) : 0;
        const uint8_t *t = table + 2 * ((16 * cr + (d2 < 15 ? d2 : 15)) * 192 + 128 + 16 * cl +
                                        (d1 < 15 ? d1 : 15));
        sr += t[0], sg += t[1];
    }
    /* "\" */
    ref_search(r, 1, x, y, -1, -1, 0, &d1, &f1);
    if (RL(x + 1, y))
        ref_search(r, 1, x, y, 1, 1, 1, &d2, &f2);
    else
        d2 = 0, f2 = 1;
    if (d1 + d2 + 1 > 3) {
        int ex = x - d1, ey = y - d1, fx = x + d2, fy = y + d2;
        int cl = f1 ? 2 * RT(ex - 1, ey) + RL(ex, ey - 1) : 0;
        int cr = f2 ? 2 * RT(fx + 1, fy) + RL(fx + 1, fy) : 0;
        const uint8_t *t = table + 2 * ((64 + 16 * cr + (d2 < 15 ? d2 : 15)) * 192 + 128 +
                                        16 * cl + (d1 < 15 ? d1 : 15));
        sr += t[0], sg += t[1];
    }
    if (sr == 0 && sg == 0)
        return 0;
    out[0] = (uint8_t)(sr > 255 ? 255 : sr);
    out[1] = (uint8_t)(sg > 255 ? 255 : sg);
    return 1;
}

static void reference_weights(const ref_edges *r, const uint8_t *table, uint8_t *weights)
{
    memset(weights, 0, (size_t)r->w * r->h * 4);
    for (int y = 0; y < r->h; y++) {
        for (int x = 0; x < r->w; x++) {
            uint8_t *o = weights + ((size_t)y * r->w + x) * 4;
            int diag = 0;
            if (RT(x, y)) {
                diag = ref_diag(r, table, x, y, o);
                if (!diag) {
                    /* Up to 33 steps: 33 means "more than 32", an end not found. */
                    int dl = 0, dr = 0;
                    while (dl < 33 && RT(x - dl - 1, y) && !RL(x - dl, y) && !RL(x - dl, y - 1))
                        dl++;
                    while (dr < 33 && RT(x + dr + 1, y) && !RL(x + dr + 1, y) &&
                           !RL(x + dr + 1, y - 1))
                        dr++;
                    int xs = x - dl, xe = x + dr;
                    int near[2] = { RL(xs, y + 1), RL(xe + 1, y + 1) };
                    int far[2] = { RL(xs, y - 2), RL(xe + 1, y - 2) };
                    ref_lookup(table, RL(xs, y - 1) + 2 * RL(xs, y),
                               RL(xe + 1, y - 1) + 2 * RL(xe + 1, y), dl, dr, near, far, o);
                }
            }
            if (RL(x, y) && !diag) {
                int dt = 0, db = 0;
                while (dt < 33 && RL(x, y - dt - 1) && !RT(x, y - dt) && !RT(x - 1, y - dt))
                    dt++;
                while (db < 33 && RL(x, y + db + 1) && !RT(x, y + db + 1) &&
                       !RT(x - 1, y + db + 1))
                    db++;
                int ys = y - dt, ye = y + db;
                int near[2] = { RT(x + 1, ys), RT(x + 1, ye + 1) };
                int far[2] = { RT(x - 2, ys), RT(x - 2, ye + 1) };
                ref_lookup(table, RT(x - 1, ys) + 2 * RT(x, ys),
                           RT(x - 1, ye + 1) + 2 * RT(x, ye + 1), dt, db, near, far, o + 2);
            }
        }
    }
}

#undef RL
#undef RT

/* Random binary pictures: rectangles (long straight runs, beyond 32 and 64 pixels),
 * rotated thin lines and staircases, and salt noise. */
typedef struct random_shapes {
    int n;
    double a[24], b[24], c[24], d[24];
    int kind[24];
    uint32_t noise_seed;
} random_shapes;

static int shape_random(const void *priv, int x, int y)
{
    const random_shapes *s = priv;
    int v = 0;
    for (int i = 0; i < s->n; i++) {
        double px = x + 0.5, py = y + 0.5;
        switch (s->kind[i]) {
        case 0: /* axis-aligned rectangle */
            v ^= px >= s->a[i] && px < s->c[i] && py >= s->b[i] && py < s->d[i];
            break;
        case 1: /* half-plane */
            v ^= (px - s->a[i]) * s->c[i] + (py - s->b[i]) * s->d[i] > 0;
            break;
        default: /* thin line */
            v ^= fabs((px - s->a[i]) * s->c[i] + (py - s->b[i]) * s->d[i]) < 0.6;
            break;
        }
    }
    uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ s->noise_seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    if (s->noise_seed && h % 97 == 0)
        v ^= 1;
    return v;
}

static random_shapes random_shapes_make(test_rng *rng, int w, int h, int noise)
{
    random_shapes s;
    memset(&s, 0, sizeof s);
    s.n = test_rand_int(rng, 3, 12);
    for (int i = 0; i < s.n; i++) {
        s.kind[i] = test_rand_int(rng, 0, 2);
        if (s.kind[i] == 0) {
            s.a[i] = test_rand_int(rng, -10, w);
            s.b[i] = test_rand_int(rng, -10, h);
            s.c[i] = s.a[i] + test_rand_int(rng, 1, w);
            s.d[i] = s.b[i] + test_rand_int(rng, 1, h);
        } else {
            double t = test_rand_float(rng) * 6.2831853;
            if (test_rand_int(rng, 0, 2) == 0) /* diagonals: 45 degrees and near it */
                t = test_rand_int(rng, 0, 3) * 1.5707963 + 0.7853982 +
                    (test_rand_float(rng) - 0.5) * 0.1;
            s.a[i] = test_rand_float(rng) * w;
            s.b[i] = test_rand_float(rng) * h;
            s.c[i] = cos(t);
            s.d[i] = sin(t);
        }
    }
    s.noise_seed = noise ? test_rand_u32(rng) | 1u : 0u;
    return s;
}

static void test_weights_reference(upf_context *ctx, const uint8_t *table, test_rng *rng)
{
    long total_nonzero = 0, total_px = 0;
    for (int iter = 0; iter < 10; iter++) {
        int w = test_rand_int(rng, 1, 200), h = test_rand_int(rng, 1, 160);
        frame_buffers b = buffers_make(w, h);
        if (iter % 3 == 2) {
            /* Edge words with random bits (only inside the image): patterns no picture
             * gives, at every density. */
            int density = test_rand_int(rng, 1, 6);
            for (int by = 0; by < b.bh; by++)
                for (int bx = 0; bx < b.bw; bx++) {
                    uint32_t v = 0xFFFFFFFFu;
                    for (int k = 0; k < density; k++)
                        v &= test_rand_u32(rng) | (k == 0 ? 0 : test_rand_u32(rng));
                    for (int i = 0; i < 16; i++)
                        if (bx * 4 + i % 4 >= w || by * 4 + i / 4 >= h)
                            v &= ~((1u << i) | (1u << (16 + i)));
                    b.edges[by * b.bw + bx] = v;
                }
        } else {
            random_shapes s = random_shapes_make(rng, w, h, iter % 3 == 1);
            render_binary(&b, shape_random, &s);
            upf__smaa_edges(ctx, b.linear, w, h, b.luma, b.edges, b.frame);
        }
        upf__smaa_weights(ctx, b.edges, w, h, table, b.weights);
        uint8_t *ref = malloc((size_t)w * h * 4);
        ref_edges r = { b.edges, w, h };
        reference_weights(&r, table, ref);
        int diff = 0, nonzero = 0, first = -1;
        for (int i = 0; i < w * h * 4; i++) {
            nonzero += ref[i] != 0;
            if (ref[i] != b.weights[i]) {
                if (first < 0)
                    first = i;
                diff++;
            }
        }
        CHECKF(diff == 0, "%dx%d: %d weight bytes differ from the per-pixel search; first at "
               "(%d,%d) channel %d: %d, expected %d", w, h, diff, (first / 4) % w,
               (first / 4) / w, first % 4, first >= 0 ? b.weights[first] : 0,
               first >= 0 ? ref[first] : 0);
        total_nonzero += nonzero;
        total_px += (long)w * h;
        free(ref);
        buffers_free(&b);
    }
    printf("smaa: pass 2 equals the per-pixel search on %ld pixels (%ld nonzero weight bytes)\n",
           total_px, total_nonzero);
}

static void test_weights_mirror_transpose(upf_context *ctx, const uint8_t *table,
                                          test_rng *rng)
{
    /* Left-right mirror of a binary picture: its edges mirror (the left edge of x becomes
     * the left edge of W - x). The top-edge weights r, g (horizontal runs and diagonals) must
     * mirror exactly, and a left edge's two weights trade places, b <-> a, with one
     * exception that SMAA's design makes: a pixel whose top edge found a diagonal skips its
     * own left edge, and in the mirror that left edge belongs to another pixel, which does
     * not skip it. So a left edge may have weights on one side only if, on the other, its
     * pixel has a top edge and diagonal weights. */
    int total_compared = 0, total_skipped = 0;
    for (int iter = 0; iter < 4; iter++) {
        int w = test_rand_int(rng, 20, 150), h = test_rand_int(rng, 20, 120);
        random_shapes s = random_shapes_make(rng, w, h, iter & 1);
        frame_buffers a = buffers_make(w, h), m = buffers_make(w, h);
        render_binary(&a, shape_random, &s);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                memcpy(m.linear + ((size_t)y * w + x) * 4,
                       a.linear + ((size_t)y * w + (w - 1 - x)) * 4, 4 * sizeof(float));
        run_all(ctx, &a, table);
        run_all(ctx, &m, table);
        int bad_edges = 0, bad_rg = 0, bad_ba = 0, skipped = 0, compared = 0;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                bad_edges += edge_l(a.edges, w, h, x, y) != edge_l(m.edges, w, h, w - x, y) ||
                             edge_t(a.edges, w, h, x, y) != edge_t(m.edges, w, h, w - 1 - x, y);
                const uint8_t *o = weight_at(&a, x, y), *p = weight_at(&m, w - 1 - x, y);
                bad_rg += o[0] != p[0] || o[1] != p[1];
                if (x == 0) {
                    bad_ba += o[2] != 0 || o[3] != 0;
                    continue;
                }
                const uint8_t *q = weight_at(&m, w - x, y);
                if (o[2] == q[3] && o[3] == q[2]) {
                    compared += o[2] || o[3];
                    continue;
                }
                int o_diag = !o[2] && !o[3] && edge_t(a.edges, w, h, x, y) && (o[0] || o[1]);
                int q_diag = !q[2] && !q[3] && edge_t(m.edges, w, h, w - x, y) && (q[0] || q[1]);
                if (o_diag || q_diag)
                    skipped++;
                else
                    bad_ba++;
            }
        }
        CHECKF(bad_edges == 0, "mirror: %dx%d: %d edge flags differ", w, h, bad_edges);
        CHECKF(bad_rg == 0, "mirror: %dx%d: %d top-edge weights differ", w, h, bad_rg);
        CHECKF(bad_ba == 0, "mirror: %dx%d: %d left-edge weights differ", w, h, bad_ba);
        total_compared += compared;
        total_skipped += skipped;
        buffers_free(&a);
        buffers_free(&m);
    }
    CHECK(total_compared > 0);
    printf("smaa: mirror: %d left edges agree, %d skipped for a diagonal on one side\n",
           total_compared, total_skipped);

    /* Transpose of separated axis-aligned rectangles (no diagonals anywhere): horizontal and
     * vertical runs trade places, so (b, a) of the transposed picture is (r, g) here. */
    for (int iter = 0; iter < 3; iter++) {
        int w = test_rand_int(rng, 30, 140), h = test_rand_int(rng, 30, 140);
        random_shapes s;
        memset(&s, 0, sizeof s);
        /* Rectangles on a coarse grid of cells, each inset by 2 so none touch. */
        for (int cy = 0; cy + 8 <= h && s.n < 24; cy += test_rand_int(rng, 8, 50)) {
            for (int cx = 0; cx + 8 <= w && s.n < 24; cx += test_rand_int(rng, 8, 60)) {
                s.kind[s.n] = 0;
                s.a[s.n] = cx + 2;
                s.b[s.n] = cy + 2;
                s.c[s.n] = cx + test_rand_int(rng, 4, 6);
                s.d[s.n] = cy + test_rand_int(rng, 4, 6);
                s.n++;
            }
        }
        frame_buffers a = buffers_make(w, h), t = buffers_make(h, w);
        render_binary(&a, shape_random, &s);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                memcpy(t.linear + ((size_t)x * h + y) * 4, a.linear + ((size_t)y * w + x) * 4,
                       4 * sizeof(float));
        run_all(ctx, &a, table);
        run_all(ctx, &t, table);
        int bad = 0, nonzero = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const uint8_t *o = weight_at(&a, x, y), *p = weight_at(&t, y, x);
                bad += o[0] != p[2] || o[1] != p[3] || o[2] != p[0] || o[3] != p[1];
                nonzero += o[0] || o[1] || o[2] || o[3];
            }
        CHECKF(bad == 0, "transpose: %dx%d: %d pixels differ", w, h, bad);
        CHECK(nonzero > 0);
        buffers_free(&a);
        buffers_free(&t);
    }
}

/* ---- pass 3 ---------------------------------------------------------------------------------- */

/* The blended linear value of channel c of pixel i (from the sqrt-encoded frame). */
static double frame_linear(const uint32_t *frame, int i, int c)
{
    float v[4];
    upf_unpack_sqrt1010102(frame[i], &v[0], &v[1], &v[2], &v[3]);
    return c == 3 ? v[3] : (double)v[c] * v[c];
}

static void test_blend(upf_context *ctx)
{
    /* A 1x2 column: A above B. B's r = 102 (B moves 0.4 toward A); nothing else.
     *   B' = B + 0.4 (A - B) = (0.4, 0.25, 0.6);  A unchanged.
     * Then B's g = 51 as well: A moves 0.2 toward B (A's "below" weight):
     *   A' = A + 0.2 (B - A) = (0.8, 0.25, 0.2). */
    frame_buffers b = buffers_make(1, 2);
    const float A[4] = { 1.0f, 0.25f, 0.0f, 1.0f }, B[4] = { 0.0f, 0.25f, 1.0f, 1.0f };
    memcpy(b.linear, A, sizeof A);
    memcpy(b.linear + 4, B, sizeof B);
    upf__smaa_edges(ctx, b.linear, 1, 2, b.luma, b.edges, b.frame); /* the unblended frame */
    memset(b.weights, 0, 8);
    b.weights[4 + 0] = 102;
    upf__smaa_blend(ctx, b.linear, b.weights, 1, 2, b.frame);
    const double b1[3] = { 0.4, 0.25, 0.6 };
    for (int c = 0; c < 3; c++) {
        CHECK_NEAR(frame_linear(b.frame, 0, c), A[c], 2.0 / 1023.0);
        CHECK_NEAR(frame_linear(b.frame, 1, c), b1[c], 2.0 / 1023.0);
    }
    CHECK(b.frame[0] == upf_pack_sqrt1010102(A[0], A[1], A[2], A[3])); /* untouched */
    b.weights[4 + 1] = 51;
    upf__smaa_blend(ctx, b.linear, b.weights, 1, 2, b.frame);
    const double a1[3] = { 0.8, 0.25, 0.2 };
    for (int c = 0; c < 3; c++)
        CHECK_NEAR(frame_linear(b.frame, 0, c), a1[c], 2.0 / 1023.0);
    buffers_free(&b);

    /* Both sides of one axis: a 3x1 row L P R with P's b = 102 (0.4 toward L) and R's
     * a = 51 (P 0.2 toward R): horizontal, since max(0.4, 0.2) > 0;
     *   P' = (0.2 (P + 0.2 (R - P)) + 0.4 (P + 0.4 (L - P))) / 0.6.
     * With L = 1, P = 0.5, R = 0: (0.2 * 0.4 + 0.4 * 0.7) / 0.6 = 0.6. */
    frame_buffers r = buffers_make(3, 1);
    set_grey(&r, 0, 0, 1.0f);
    set_grey(&r, 1, 0, 0.5f);
    set_grey(&r, 2, 0, 0.0f);
    upf__smaa_edges(ctx, r.linear, 3, 1, r.luma, r.edges, r.frame);
    memset(r.weights, 0, 12);
    r.weights[4 * 1 + 2] = 102;
    r.weights[4 * 2 + 3] = 51;
    upf__smaa_blend(ctx, r.linear, r.weights, 3, 1, r.frame);
    CHECK_NEAR(frame_linear(r.frame, 1, 0), 0.6, 2.0 / 1023.0);
    CHECK_NEAR(frame_linear(r.frame, 1, 1), 0.6, 2.0 / 1023.0);
    /* L and R have no weights of their own (R's a moves P, not R): both kept. */
    CHECK(r.frame[0] == upf_pack_sqrt1010102(1.0f, 1.0f, 1.0f, 1.0f));
    CHECK(r.frame[2] == upf_pack_sqrt1010102(0.0f, 0.0f, 0.0f, 1.0f));
    buffers_free(&r);

    /* Horizontal against vertical: a tie goes vertical (the rule is max(h) > max(v)). 3x3,
     * centre P = 0.5, left neighbour 1, the one above 0. P's b = 100 and r = 100. */
    for (int tie = 0; tie < 2; tie++) {
        frame_buffers c = buffers_make(3, 3);
        for (int i = 0; i < 9; i++)
            set_grey(&c, i % 3, i / 3, 0.5f);
        set_grey(&c, 0, 1, 1.0f);
        set_grey(&c, 1, 0, 0.0f);
        upf__smaa_edges(ctx, c.linear, 3, 3, c.luma, c.edges, c.frame);
        memset(c.weights, 0, 36);
        c.weights[4 * 4 + 2] = tie ? 100 : 101;
        c.weights[4 * 4 + 0] = 100;
        upf__smaa_blend(ctx, c.linear, c.weights, 3, 3, c.frame);
        double expect = tie ? 0.5 - 0.5 * 100.0 / 255.0 : 0.5 + 0.5 * 101.0 / 255.0;
        CHECK_NEAR(frame_linear(c.frame, 4, 0), expect, 2.0 / 1023.0);
        buffers_free(&c);
    }
}

/* ---- end to end ----------------------------------------------------------------------------- */

/* Area of the unit pixel (px, py) where n . (p - o) > 0 (exact: clip and measure). */
static double half_plane_coverage(double px, double py, double nx, double ny, double ox,
                                  double oy)
{
    double v[4][2] = { { px, py }, { px + 1, py }, { px + 1, py + 1 }, { px, py + 1 } };
    double out[8][2], f[4];
    int n = 0;
    for (int i = 0; i < 4; i++)
        f[i] = nx * (v[i][0] - ox) + ny * (v[i][1] - oy);
    for (int i = 0; i < 4; i++) {
        int j = (i + 1) % 4;
        if (f[i] >= 0) {
            out[n][0] = v[i][0];
            out[n][1] = v[i][1];
            n++;
        }
        if ((f[i] >= 0) != (f[j] >= 0)) {
            double t = f[i] / (f[i] - f[j]);
            out[n][0] = v[i][0] + t * (v[j][0] - v[i][0]);
            out[n][1] = v[i][1] + t * (v[j][1] - v[i][1]);
            n++;
        }
    }
    double a = 0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        a += out[i][0] * out[j][1] - out[j][0] * out[i][1];
    }
    return fabs(a) / 2;
}

static void test_half_planes(upf_context *ctx, const uint8_t *table)
{
    /* A white half-plane on black, its edge at angle theta, rendered with one sample per
     * pixel (the pixel's centre). The exact image is each pixel's covered area. At each
     * angle the edge is placed at 16 sub-pixel offsets (where exactly a 45-degree line
     * passes is ambiguous from one staircase, so one offset alone says little) and the
     * errors are summed; SMAA must bring the picture closer to the exact one. */
    const double angles[] = { 5, 20, 30, 45, 60, 80, 100, 135, 160 };
    const int w = 96, h = 96, offsets = 16;
    for (size_t k = 0; k < sizeof angles / sizeof angles[0]; k++) {
        double t = angles[k] * 3.14159265358979323846 / 180.0;
        double nx = -sin(t), ny = cos(t), err_in = 0, err_out = 0;
        for (int o = 0; o < offsets; o++) {
            double ox = w / 2 + (o + 0.5) / offsets, oy = h / 2 + 0.25;
            frame_buffers b = buffers_make(w, h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    set_grey(&b, x, y, nx * (x + 0.5 - ox) + ny * (y + 0.5 - oy) > 0 ? 1.0f : 0.0f);
            run_all(ctx, &b, table);
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    double cov = half_plane_coverage(x, y, nx, ny, ox, oy);
                    err_in += fabs(b.linear[((size_t)y * w + x) * 4] - cov);
                    err_out += fabs(frame_linear(b.frame, y * w + x, 0) - cov);
                }
            }
            buffers_free(&b);
        }
        /* Per pixel the edge crosses (about w / max(|cos|, |sin|) of them): easier to read. */
        double edge_px = offsets * w / fmax(fabs(cos(t)), fabs(sin(t)));
        double pixels = (double)offsets * w * h;
        printf("smaa: half-plane at %5.1f deg: mean |error| %.5f -> %.5f (per edge pixel "
               "%.4f -> %.4f)\n", angles[k], err_in / pixels, err_out / pixels,
               err_in / edge_px, err_out / edge_px);
        CHECKF(err_out < err_in, "angle %g: SMAA error %g not below the input's %g", angles[k],
               err_out, err_in);
    }
}

static void test_threads(const uint8_t *table, test_rng *rng)
{
    int w = test_rand_int(rng, 100, 220), h = test_rand_int(rng, 60, 180);
    random_shapes s = random_shapes_make(rng, w, h, 1);
    frame_buffers ref = buffers_make(w, h);
    render_binary(&ref, shape_random, &s);
    /* Some grey levels as well, so that local contrast adaptation plays. */
    for (int i = 0; i < w * h; i++)
        if (i % 7 == 0)
            ref.linear[4 * i + 1] *= 0.3f;
    for (int threads = 1; threads <= 3; threads++) {
        upf_context *ctx = test_context(threads);
        CHECK(ctx != NULL);
        if (!ctx)
            return;
        frame_buffers b = buffers_make(w, h);
        memcpy(b.linear, ref.linear, (size_t)w * h * 4 * sizeof(float));
        run_all(ctx, &b, table);
        if (threads == 1) {
            memcpy(ref.edges, b.edges, (size_t)b.bw * b.bh * sizeof(uint32_t));
            memcpy(ref.weights, b.weights, (size_t)w * h * 4);
            memcpy(ref.frame, b.frame, (size_t)w * h * sizeof(uint32_t));
        } else {
            CHECK(memcmp(ref.edges, b.edges, (size_t)b.bw * b.bh * sizeof(uint32_t)) == 0);
            CHECK(memcmp(ref.weights, b.weights, (size_t)w * h * 4) == 0);
            CHECK(memcmp(ref.frame, b.frame, (size_t)w * h * sizeof(uint32_t)) == 0);
        }
        buffers_free(&b);
        upf_context_destroy(&ctx);
    }
    buffers_free(&ref);
}

static void test_visualise(upf_context *ctx, const uint8_t *table)
{
    frame_buffers b = buffers_make(24, 10);
    render_binary(&b, shape_step, NULL);
    upf__smaa_edges(ctx, b.linear, b.w, b.h, b.luma, b.edges, b.frame);
    upf__smaa_weights(ctx, b.edges, b.w, b.h, table, b.weights);
    uint8_t *img = malloc((size_t)b.w * b.h * 4);
    upf__smaa_edges_visualise(b.edges, b.w, b.h, img);
    const uint8_t *p = img + (4 * 24 + 8) * 4; /* (8, 4): a left edge only */
    CHECK(p[0] == 255 && p[1] == 0 && p[2] == 0 && p[3] == 255);
    p = img + (5 * 24 + 9) * 4; /* (9, 5): a top edge only */
    CHECK(p[0] == 0 && p[1] == 255 && p[3] == 255);
    p = img + (0 * 24 + 0) * 4;
    CHECK(p[0] == 0 && p[1] == 0 && p[3] == 255);
    upf__smaa_weights_visualise(b.weights, b.w, b.h, img);
    p = img + (4 * 24 + 7) * 4; /* r = 111 -> red 222 */
    CHECK(p[0] == 222 && p[1] == 0 && p[3] == 255);
    p = img + (4 * 24 + 8) * 4; /* b = a = 19 -> green 76 */
    CHECK(p[0] == 0 && p[1] == 76);
    /* The frame: white stays 255, black 0, the blended pixel (7, 4) (black, moved 111/255
     * toward white) is its linear value sRGB-encoded. */
    upf__smaa_blend(ctx, b.linear, b.weights, b.w, b.h, b.frame);
    upf__smaa_frame_visualise(b.frame, b.w, b.h, img);
    CHECK(img[0] == 255 && img[1] == 255 && img[2] == 255 && img[3] == 255);
    p = img + (9 * 24 + 0) * 4;
    CHECK(p[0] == 0 && p[3] == 255);
    p = img + (4 * 24 + 7) * 4;
    int expect = (int)lround(255.0 * upf_linear_to_srgb_d(111.0 / 255.0));
    CHECKF(abs(p[0] - expect) <= 1, "blended pixel %d, expected %d", p[0], expect);
    free(img);
    buffers_free(&b);
}

int main(void)
{
    test_rng rng = test_rng_make("smaa");
    upf_context *ctx = test_context(2);
    if (!ctx) {
        fprintf(stderr, "smaa: no context\n");
        return 1;
    }
    static uint8_t table[UPF_SMAA_AREA_BYTES];
    upf__smaa_area_table(table);

    test_lowest_bit(&rng);
    test_edges_vertical_step(ctx);
    test_edges_bit_layout(ctx);
    test_edges_threshold(ctx);
    test_edges_lca(ctx);
    test_edges_random(ctx, &rng);

    test_area_hand_worked(table);
    test_area_ranges_sums_symmetries(table);
    test_area_oracle(table);

    test_weights_step(ctx, table);
    test_weights_diagonal(ctx, table);
    test_weights_corners(ctx, table);
    test_weights_reference(ctx, table, &rng);
    test_weights_mirror_transpose(ctx, table, &rng);

    test_blend(ctx);
    test_half_planes(ctx, table);
    test_threads(table, &rng);
    test_visualise(ctx, table);

    upf_context_destroy(&ctx);
    return test_finish("smaa");
}
