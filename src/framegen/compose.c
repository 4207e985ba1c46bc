/* compose.c: the frame generation engine's last pass (docs/FRAMEGEN.md, "compose"): the HUD
 * over the made frame, unwarped, or without a HUD layer the still-pixel rule, then the host's
 * format.
 *
 * Reads: inpainted, linear prev, linear, HUD (host, optional). Writes: the output (host, any
 * colour format).
 *
 * With a HUD layer h (straight alpha a, linear light): o = c (1 - a) + h a, the way the game
 * composites it, so where a = 1 the output is the HUD's own pixel exactly. Without one (and
 * with the rule on): a pixel that is equal in both frames, and so are at least 5 of its 8
 * neighbours (a majority: a HUD's edge pixel over a moving scene has some that are not), is
 * a still pixel, most often a HUD drawn into both frames; "equal": every channel with
 * (a - b)^2 <= still_threshold^2 (a + b) in linear light, which holds when the square roots
 * of a and b are within still_threshold, and needs no square root. A HUD's strokes one or two
 * pixels wide (a crosshair, text) have fewer than 5 such neighbours over a moving scene, so
 * a pixel is still too when it and both neighbours on one line through it (horizontal,
 * vertical or diagonal) are the very same values in both frames: a HUD is drawn with the
 * same bytes each frame, a moving scene rarely repeats three pixels in a row exactly (the
 * tolerance of "equal" took textured pixels along an edge parallel to a turn's motion for
 * still: 1.3 dB lost on one fast turn sequence; the exact test costs little on the rendered
 * pairs and halves the still HUD's error, docs/FRAMEGEN.md "compose"). A still pixel takes
 * the frames' own (1 - t) A + t B at that place instead of the colour fetched along the
 * scene's motion, so a still HUD is not dragged with the scene.
 * Then upf__row_from_linear writes the host's format (alpha 1).
 * Work: one task per row; per-worker scratch rows. */
#include <math.h>

#include "core/image.h"
#include "framegen/framegen_passes.h"

/* A still pixel: itself and at least 5 of its 8 neighbours equal in both frames (a majority,
 * so the edge of a HUD over a moving scene still counts). */
#define STILL_NEIGHBOURS 5

typedef struct compose_job {
    const upf__fg_compose_con *con;
    const float *in, *prev, *cur;
    const upf_image *hud, *out;
    float *rows;     /* per worker: 8 W floats */
    int *bad;        /* per row: x of a NaN HUD pixel, or -1 */
} compose_job;

static bool equal_at(const compose_job *j, int x, int y)
{
    const int W = j->con->width;
    const float th = j->con->still_threshold;
    const float *a = j->prev + ((size_t)y * W + x) * 4;
    const float *b = j->cur + ((size_t)y * W + x) * 4;
    for (int k = 0; k < 3; k++) {
        const float u = a[k] > 0.0f ? a[k] : 0.0f, v = b[k] > 0.0f ? b[k] : 0.0f;
        if ((u - v) * (u - v) > th * th * (u + v))
            return false;
    }
    return true;
}

/* The very same linear values in both frames (a HUD drawn with the same bytes). */
static bool same_at(const compose_job *j, int x, int y)
{
    const int W = j->con->width;
    const float *a = j->prev + ((size_t)y * W + x) * 4;
    const float *b = j->cur + ((size_t)y * W + x) * 4;
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static bool still(const compose_job *j, int x, int y)
{
    const int W = j->con->width, H = j->con->height;
    if (!equal_at(j, x, y))
        return false;
    int n = 0;
    for (int k = 0; k < 9; k++) {
        if (k == 4)
            continue;
        int sx = UPF_CLAMP(x + k % 3 - 1, 0, W - 1), sy = UPF_CLAMP(y + k / 3 - 1, 0, H - 1);
        n += equal_at(j, sx, sy);
    }
    if (n >= STILL_NEIGHBOURS)
        return true;
    /* a thin stroke: the pixel and both neighbours on one line through it, exactly */
    if (!same_at(j, x, y))
        return false;
    static const int line[4][2] = { { 1, 0 }, { 0, 1 }, { 1, 1 }, { 1, -1 } };
    for (int k = 0; k < 4; k++) {
        const int ax = x + line[k][0], ay = y + line[k][1];
        const int bx = x - line[k][0], by = y - line[k][1];
        if (ax >= 0 && ax < W && ay >= 0 && ay < H && bx >= 0 && bx < W && by >= 0 && by < H &&
            same_at(j, ax, ay) && same_at(j, bx, by))
            return true;
    }
    return false;
}

static void compose_row(void *priv, int y, int worker)
{
    const compose_job *j = priv;
    const upf__fg_compose_con *c = j->con;
    const int W = c->width;
    float *row = j->rows + (size_t)worker * W * 8, *hud = row + (size_t)W * 4;
    const float *in = j->in + (size_t)y * W * 4;
    const float t = c->t;
    j->bad[y] = -1;
    if (c->hud && (j->bad[y] = upf__row_to_linear(j->hud, y, 0, W, hud)) >= 0)
        return;
    for (int x = 0; x < W; x++) {
        float *o = row + 4 * x;
        for (int k = 0; k < 3; k++)
            o[k] = in[4 * x + k];
        if (c->hud) {
            const float *h = hud + 4 * x;
            const float al = h[3] < 0.0f ? 0.0f : h[3] > 1.0f ? 1.0f : h[3];
            if (al >= 1.0f)
                for (int k = 0; k < 3; k++)
                    o[k] = h[k];
            else if (al > 0.0f)
                for (int k = 0; k < 3; k++)
                    o[k] = o[k] * (1.0f - al) + h[k] * al;
        } else if (c->still_rule && still(j, x, y)) {
            const float *a = j->prev + ((size_t)y * W + x) * 4;
            const float *b = j->cur + ((size_t)y * W + x) * 4;
            for (int k = 0; k < 3; k++)
                o[k] = (1.0f - t) * a[k] + t * b[k];
        }
        o[3] = 1.0f;
    }
    upf__row_from_linear(j->out, y, 0, W, row);
}

size_t upf__fg_compose_scratch_bytes(int threads, int width, int height)
{
    return (size_t)threads * (size_t)width * 8 * sizeof(float) + (size_t)height * sizeof(int);
}

upf_result upf__fg_compose_pass(const upf__pass_args *a)
{
    const upf__fg_compose_con *con = a->con;
    const upf__surface *s = a->surface;
    const int threads = UPF_MAX(upf_context_threads(a->ctx), 1);
    float *rows = a->scratch;
    compose_job job = { con, s[UPF__FG_INPAINTED].data, s[UPF__FG_LINEAR_PREV].data,
                        s[UPF__FG_LINEAR].data, s[UPF__FG_HUD].image, s[UPF__FG_OUTPUT].image,
                        rows, (int *)(rows + (size_t)threads * con->width * 8) };
    upf__parallel_for(a->ctx, compose_row, &job, con->height);
    for (int y = 0; y < con->height; y++)
        if (job.bad[y] >= 0)
            return upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: the HUD layer has a NaN or "
                             "infinite value at pixel (%d, %d); expected finite colour", a->fn,
                             job.bad[y], y);
    return UPF_OK;
}
