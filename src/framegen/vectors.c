/* vectors.c: the frame generation engine's vectors pass (docs/FRAMEGEN.md, "vectors"): the
 * game's motion vectors and depth of frame N as the engine's motion and splat priority, and
 * what frame N-1 saw of N's surfaces.
 *
 * Reads: motion in, depth in (host, motion size), linear prev, linear (the shade rule).
 * Writes: motion, priority, splat prev and its index, splat land, prev motion.
 *
 * Each output pixel takes the vector and depth of the motion-size pixel it falls in (nearest;
 * for vectors at a render size below the output size), its vector times the scale (stored
 * units -> output pixels). Its priority is its depth's (upf__fg_depth_priority: nearer wins).
 * Then N's pixels are splatted to t = 0 (upf__fg_splat, shift 1): the cell of N-1 at p + m
 * holds the nearest surface of N that was there, and its prev motion is minus that surface's
 * vector (from N-1 to N); cells nothing landed in hold a vector that is not known (N-1 showed
 * something there that N does not). Then the shade rule (`shade` below; docs/FRAMEGEN.md,
 * "vectors"): a still pixel whose neighbourhood changed between the frames (a shadow moving
 * over still ground, which the game's vectors do not describe) takes the offset of the patch
 * of N-1 that matches it, and N is splatted to t = 0 again with those vectors. A NaN or
 * infinite vector or depth, or a negative depth, fails with UPF_ERROR_BAD_DATA naming the
 * pixel.
 * Work: one task per row (the splat: two; the shade rule: one, and the second splat only when
 * it moved a pixel). */
#include <math.h>

#include "framegen/framegen_passes.h"

typedef struct vec_job {
    const upf__fg_vectors_con *con;
    const upf_image *motion, *depth;
    const float *prev, *cur;   /* linear N-1 and N (RGBA) */
    float *out_motion;
    uint32_t *priority;
    const uint32_t *index;
    float *prev_motion;
    int *bad;      /* per motion row: x of the first bad vector or depth, or -1; and which */
    int *shaded;   /* per row: the pixels the shade rule moved */
    float *rows;   /* per worker: 5 W floats (shade_row) */
} vec_job;

/* The game's vector at output pixel (x, y) in output pixels (nearest motion-size pixel). */
static void game_vector(const vec_job *j, int x, int y, float v[2])
{
    const upf__fg_vectors_con *c = j->con;
    const int my = (int)((long)y * c->motion_height / c->height);
    const int mx = (int)((long)x * c->motion_width / c->width);
    const char *mrow = (const char *)j->motion->data + (size_t)my * (j->motion->stride ?
                       j->motion->stride : (size_t)j->motion->width * 8);
    memcpy(v, mrow + (size_t)mx * 8, 2 * sizeof(float));
    v[0] *= c->scale_x;
    v[1] *= c->scale_y;
}

/* Still: the vector within 0.05 px of zero (false for NaN and a vector not known). */
static bool still(const float v[2])
{
    return v[0] * v[0] + v[1] * v[1] <= 0.0025f;
}

static float luma(const float *img, int W, int x, int y)
{
    const float *p = img + 4 * ((size_t)y * W + x);
    return 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
}

/* Every pixel within e of (x, y) (a square) is still in N and shows in N-1 a still surface
 * of N (prev motion known and still: no moving object of N covered it in N-1). */
static bool still_around(const vec_job *j, int x, int y, int e)
{
    const int W = j->con->width;
    for (int py = y - e; py <= y + e; py++)
        for (int px = x - e; px <= x + e; px++) {
            float v[2];
            game_vector(j, px, py, v);
            if (!still(v) || !still(j->prev_motion + 2 * ((size_t)py * W + px)))
                return false;
        }
    return true;
}

/* The shade rule: what the game's vectors do not describe (a shadow moving over still
 * ground). Pixel (x, y) of N is still, at least radius + 2 from the frame's edge, and its
 * 5 x 5 patch differs from the same patch of N-1 by more than the threshold on average
 * (linear luma). Every pixel within radius + 2 (all the patches the search compares) is
 * still in N and in N-1 (still_around: no moving object near, no disocclusion), and the patch
 * of N-1 at the offset d (|dx|, |dy| <= radius) that matches it best (sum of absolute
 * differences, the first least in row order) is taken as the pixel's motion when its sum is
 * below half of the still one's. Writes m = d and returns true, or returns false (m
 * untouched). */
static bool shade(const vec_job *j, const float *dl, int x, int y, float m[2])
{
    const upf__fg_vectors_con *c = j->con;
    const int W = c->width, H = c->height, r = c->shade_radius, e = r + 2;
    if (!(c->shade_threshold > 0.0f) || x < e || y < e || x >= W - e || y >= H - e)
        return false;
    float b[25], e0 = 0.0f;
    for (int k = 0; k < 25; k++)
        e0 += dl[(size_t)(k / 5) * W + x + k % 5 - 2];
    if (!(e0 > 25.0f * c->shade_threshold))
        return false;
    for (int k = 0; k < 25; k++)
        b[k] = luma(j->cur, W, x + k % 5 - 2, y + k / 5 - 2);
    if (!still_around(j, x, y, e))
        return false;
    float best = 0.5f * e0;
    int bx = 0, by = 0;
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
            float sum = 0.0f;
            for (int k = 0; k < 25; k++)
                sum += fabsf(b[k] - luma(j->prev, W, x + dx + k % 5 - 2, y + dy + k / 5 - 2));
            if (sum < best)
                best = sum, bx = dx, by = dy;
        }
    if (bx == 0 && by == 0)
        return false;
    m[0] = (float)bx;
    m[1] = (float)by;
    return true;
}

static void vec_row(void *priv, int y, int worker)
{
    (void)worker;
    const vec_job *j = priv;
    const upf__fg_vectors_con *c = j->con;
    const int W = c->width;
    const int my = (int)((long)y * c->motion_height / c->height);
    const char *mrow = (const char *)j->motion->data + (size_t)my * (j->motion->stride ?
                       j->motion->stride : (size_t)j->motion->width * 8);
    const char *drow = (const char *)j->depth->data + (size_t)my * (j->depth->stride ?
                       j->depth->stride : (size_t)j->depth->width * 4);
    j->bad[2 * y] = -1;
    for (int x = 0; x < W; x++) {
        const int mx = (int)((long)x * c->motion_width / W);
        float v[2], d;
        memcpy(v, mrow + (size_t)mx * 8, sizeof v);
        memcpy(&d, drow + (size_t)mx * 4, sizeof d);
        const size_t i = (size_t)y * W + x;
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(d) || d < 0.0f) {
            if (j->bad[2 * y] < 0) {
                j->bad[2 * y] = mx;
                j->bad[2 * y + 1] = isfinite(v[0]) && isfinite(v[1]) ? 1 : 0;
            }
            j->out_motion[2 * i] = UPF__FG_INVALID;
            j->out_motion[2 * i + 1] = 0.0f;
            j->priority[i] = 0xffffffffu;
            continue;
        }
        j->out_motion[2 * i] = v[0] * c->scale_x;
        j->out_motion[2 * i + 1] = v[1] * c->scale_y;
        j->priority[i] = upf__fg_depth_priority(d, c->depth_reversed != 0);
    }
}

/* The shade rule on a row (reads the game's vectors and prev motion, writes the row's motion
 * and priority): a pixel it moves gets the priority one less, over the still surface it moves
 * on. */
static void shade_row(void *priv, int y, int worker)
{
    const vec_job *j = priv;
    const int W = j->con->width, e = j->con->shade_radius + 2;
    j->shaded[y] = 0;
    if (y < e || y >= j->con->height - e)
        return;
    /* |luma N - luma N-1| of rows y - 2 .. y + 2, the values the patch sums add (once a row
     * instead of once a patch) */
    float *dl = j->rows + (size_t)worker * 5 * W;
    for (int r = 0; r < 5; r++)
        for (int x = 0; x < W; x++)
            dl[(size_t)r * W + x] = fabsf(luma(j->cur, W, x, y + r - 2) -
                                          luma(j->prev, W, x, y + r - 2));
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        float *m = j->out_motion + 2 * i;
        if (still(m) && shade(j, dl, x, y, m)) {
            j->priority[i] -= j->priority[i] > 0u;
            j->shaded[y]++;
        }
    }
}

static void prev_row(void *priv, int y, int worker)
{
    (void)worker;
    const vec_job *j = priv;
    const int W = j->con->width;
    for (int x = 0; x < W; x++) {
        const size_t i = (size_t)y * W + x;
        const uint32_t k = j->index[i];
        if (k == UPF__FG_NONE) {
            j->prev_motion[2 * i] = UPF__FG_INVALID;
            j->prev_motion[2 * i + 1] = 0.0f;
        } else {
            const size_t src = k;
            j->prev_motion[2 * i] = -j->out_motion[2 * src];
            j->prev_motion[2 * i + 1] = -j->out_motion[2 * src + 1];
        }
    }
}

size_t upf__fg_vectors_scratch_bytes(int threads, int width, int height)
{
    return (size_t)height * 3 * sizeof(int) + (size_t)threads * width * 5 * sizeof(float);
}

upf_result upf__fg_vectors_pass(const upf__pass_args *a)
{
    const upf__fg_vectors_con *con = a->con;
    const upf__surface *s = a->surface;
    vec_job job = { con, s[UPF__FG_MOTION_IN].image, s[UPF__FG_DEPTH_IN].image,
                    s[UPF__FG_LINEAR_PREV].data, s[UPF__FG_LINEAR].data,
                    s[UPF__FG_MOTION].data, s[UPF__FG_PRIORITY].data,
                    s[UPF__FG_SPLAT_PREV_INDEX].data, s[UPF__FG_PREV_MOTION].data, a->scratch,
                    (int *)a->scratch + 2 * con->height,
                    (float *)((int *)a->scratch + 3 * con->height) };
    upf__parallel_for(a->ctx, vec_row, &job, con->height);
    for (int y = 0; y < con->height; y++)
        if (job.bad[2 * y] >= 0)
            return upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: %s at pixel (%d, %d) of the %dx%d "
                             "%s; expected finite %s", a->fn,
                             job.bad[2 * y + 1] ? "depth is NaN, infinite or negative"
                                                : "motion vector is NaN or infinite",
                             job.bad[2 * y], (int)((long)y * con->motion_height / con->height),
                             con->motion_width, con->motion_height,
                             job.bad[2 * y + 1] ? "depth" : "motion", job.bad[2 * y + 1] ?
                             "depth >= 0" : "vectors");
    for (int round = 0; round < 2; round++) {
        upf__fg_splat(a->ctx, con->width, con->height, job.out_motion, job.priority, 1.0f,
                      NULL, false, s[UPF__FG_SPLAT_PREV].data, s[UPF__FG_SPLAT_PREV_INDEX].data,
                      s[UPF__FG_SPLAT_LAND].data);
        upf__parallel_for(a->ctx, prev_row, &job, con->height);
        if (round == 1 || !(con->shade_threshold > 0.0f))
            break;
        upf__parallel_for(a->ctx, shade_row, &job, con->height);
        long shaded = 0;
        for (int y = 0; y < con->height; y++)
            shaded += job.shaded[y];
        if (!shaded)
            break; /* the second splat would give the same (the GPU runs it) */
    }
    return UPF_OK;
}
