/* smaa_edges.c: pass 1 of the spatial engine, SMAA luma edge detection
 * (SMAALumaEdgeDetectionPS, Jimenez et al. 2012 section 3.1), with the two edge flags of
 * each pixel packed into one 32-bit word per 4x4 block (DESIGN.md).
 *
 * Reads the linear RGBA float frame. Writes the luma scratch (W*H floats) and the edge
 * words (ceil(W/4) * ceil(H/4)); layout in smaa.h. Also the edges' debug picture.
 *
 * The rule, for pixel P with neighbours Left, Top, Right, Bottom, LeftLeft, TopTop:
 *   L = Rec. 709 luma of the square-root-encoded colour (upf__smaa_luma);
 *   dl = |L(P) - L(Left)|, dt = |L(P) - L(Top)|;
 *   a left edge when dl >= 0.1, a top edge when dt >= 0.1 (SMAA_THRESHOLD; SMAA's step(),
 *   so a difference of exactly the threshold is an edge);
 *   local contrast adaptation: with m = max(dl, dt, |L(P) - L(Right)|, |L(P) - L(Bottom)|,
 *   |L(Left) - L(LeftLeft)|, |L(Top) - L(TopTop)|), an edge survives only if
 *   2 * its own difference >= m (SMAA_LOCAL_CONTRAST_ADAPTATION_FACTOR 2.0: a much stronger
 *   step nearby hides a weak one).
 * At the border a neighbour beyond the image is the border pixel itself (clamp), so its
 * difference is 0: column 0 has no left edges, row 0 no top edges, and a missing Right,
 * Bottom, LeftLeft or TopTop adds nothing to m. Arithmetic is in float, as on a GPU. */
#include "spatial/smaa.h"

typedef struct edges_job {
    const float *linear;
    float *luma;
    uint32_t *edges;
    int width, height, bw;
} edges_job;

/* Luma of the rows of block row `by`. */
static void luma_task(void *priv, int by, int worker)
{
    (void)worker;
    const edges_job *job = priv;
    int y1 = UPF_MIN(4 * by + 4, job->height);
    for (int y = 4 * by; y < y1; y++) {
        const float *src = job->linear + (size_t)y * job->width * 4;
        float *dst = job->luma + (size_t)y * job->width;
        for (int x = 0; x < job->width; x++)
            dst[x] = upf__smaa_luma(src[4 * x], src[4 * x + 1], src[4 * x + 2]);
    }
}

static inline float max2f(float a, float b)
{
    return a > b ? a : b;
}

/* Edge words of block row `by`. Each row is scanned once: the two cheap differences decide
 * whether a pixel is a candidate, and only candidates read the four further neighbours. */
static void edges_task(void *priv, int by, int worker)
{
    (void)worker;
    const edges_job *job = priv;
    const int w = job->width, h = job->height;
    uint32_t *out = job->edges + (size_t)by * job->bw;
    for (int bx = 0; bx < job->bw; bx++)
        out[bx] = 0;

    for (int r = 0; r < 4; r++) {
        int y = 4 * by + r;
        if (y >= h)
            break;
        const float *row = job->luma + (size_t)y * w;
        const float *up = y > 0 ? row - w : row;           /* Top (clamped) */
        const float *up2 = y > 1 ? row - 2 * w : up;       /* TopTop (clamped) */
        const float *down = y + 1 < h ? row + w : row;     /* Bottom (clamped) */
        for (int x = 0; x < w; x++) {
            float l = row[x];
            float dl = x > 0 ? fabsf(l - row[x - 1]) : 0.0f;
            float dt = fabsf(l - up[x]);
            int el = dl >= UPF_SMAA_THRESHOLD, et = dt >= UPF_SMAA_THRESHOLD;
            if (!(el | et))
                continue;
            /* Local contrast adaptation. */
            float dr = x + 1 < w ? fabsf(l - row[x + 1]) : 0.0f;
            float db = fabsf(l - down[x]);
            float dll = x > 1 ? fabsf(row[x - 1] - row[x - 2]) : 0.0f;
            float dtt = fabsf(up[x] - up2[x]);
            float m = max2f(max2f(max2f(dl, dt), max2f(dr, db)), max2f(dll, dtt));
            el &= UPF_SMAA_LCA_FACTOR * dl >= m;
            et &= UPF_SMAA_LCA_FACTOR * dt >= m;
            int bit = r * 4 + (x & 3);
            out[x >> 2] |= ((uint32_t)el << bit) | ((uint32_t)et << (16 + bit));
        }
    }
}

void upf__smaa_edges(upf_context *ctx, const float *linear, int width, int height, float *luma,
                     uint32_t *edges)
{
    edges_job job = { linear, luma, edges, width, height, upf__smaa_blocks(width) };
    int bh = upf__smaa_blocks(height);
    /* Two sweeps: every row's luma must be there before its neighbours' edges are found. */
    upf__parallel_for(ctx, luma_task, &job, bh);
    upf__parallel_for(ctx, edges_task, &job, bh);
}

void upf__smaa_edges_visualise(const uint32_t *edges, int width, int height, uint8_t *rgba)
{
    int bw = upf__smaa_blocks(width);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            uint32_t word = edges[(size_t)(y >> 2) * bw + (x >> 2)];
            int bit = (y & 3) * 4 + (x & 3);
            uint8_t *p = rgba + ((size_t)y * width + x) * 4;
            p[0] = (word >> bit) & 1 ? 255 : 0;
            p[1] = (word >> (16 + bit)) & 1 ? 255 : 0;
            p[2] = 0;
            p[3] = 255;
        }
    }
}
