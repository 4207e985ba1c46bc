/* convert.c: the spatial engine's first pass, convert: the host's source image, in any colour
 * format, to the linear surface (linear-light RGBA float, one texel a pixel) in [0, 1], the
 * range the sqrt-encoded 10:10:10:2 frame of the later passes holds; and the range surface,
 * which tells compose whether to undo a tone map (docs/SPATIAL.md, "High dynamic range and
 * alpha").
 *
 * Reads: the source (host image). Writes: linear, range.
 *  - Negative values are not light: they become 0, and the log says how many there were and
 *    where the first was (a warning, once per run).
 *  - When the largest value M of R, G, B over the frame is above 1, every pixel is tone-mapped
 *    by Reinhard's operator on its largest channel m = max(R, G, B) (Reinhard et al.,
 *    "Photographic tone reproduction for digital images", SIGGRAPH 2002, eq. 3, on max(c) in
 *    place of luminance so that no channel leaves [0, 1]):
 *        c' = c / (1 + m),
 *    which maps [0, M] into [0, M / (1 + M)] and keeps hue; compose inverts it with
 *    c = c' / (1 - max(c')). range = (M / (1 + M), M). A frame with M <= 1 is left as it was
 *    (range R = 0), so such frames come out bit for bit as they did before the tone map.
 *  - Alpha is clamped to [0, 1] and never tone-mapped; range B = 1 when some alpha is below
 *    1 (then compose filters it at full precision from linear; an opaque frame's alpha is 1
 *    either way).
 * Fails with UPF_ERROR_BAD_DATA naming the first pixel (lowest row, then lowest column) that is
 * NaN or infinite. */
#include "core/image.h"
#include "spatial/spatial_passes.h"

/* What one source row held. */
typedef struct convert_row_info {
    int bad_x;          /* the first non-finite pixel's x, or -1 */
    int negative_x;     /* the first pixel with a channel below 0, or -1 */
    int negatives;      /* channels below 0 */
    float lowest;       /* the lowest channel value (0 if none below) */
    float highest;      /* the largest R, G or B (after clamping at 0) */
    int translucent;    /* 1 if some alpha is below 1 */
} convert_row_info;

typedef struct convert_job {
    const upf_image *src;
    float *linear;
    convert_row_info *rows;
    int width;
    int unorm;          /* the source is an integer format: values in [0, 1] by construction */
} convert_job;

static void convert_row(void *priv, int y, int worker)
{
    (void)worker;
    const convert_job *job = priv;
    float *row = job->linear + (size_t)y * job->width * 4;
    convert_row_info *info = &job->rows[y];
    *info = (convert_row_info){ upf__row_to_linear(job->src, y, 0, job->width, row), -1, 0,
                                0.0f, 0.0f, 0 };
    if (job->unorm) {
        /* An integer format decodes to finite values in [0, 1] (+0 at the bottom), so there is
         * nothing to report or clamp: only the row's largest R, G, B and whether some alpha is
         * below 1, the same as the loop below gives for such values. */
        float highest = 0.0f;
        int translucent = 0;
        for (int x = 0; x < job->width; x++) {
            const float *p = row + 4 * x;
            for (int c = 0; c < 3; c++)
                highest = p[c] > highest ? p[c] : highest;
            translucent |= p[3] < 1.0f;
        }
        info->highest = highest;
        info->translucent = translucent;
        return;
    }
    for (int x = 0; x < job->width; x++) {
        float *p = row + 4 * x;
        for (int c = 0; c < 4; c++) {
            if (p[c] < 0.0f) {
                if (info->negative_x < 0)
                    info->negative_x = x;
                info->negatives++;
                info->lowest = p[c] < info->lowest ? p[c] : info->lowest;
            }
            if (!(p[c] > 0.0f))
                p[c] = 0.0f; /* below 0, -0 and NaN (reported by bad_x) all become +0 */
        }
        for (int c = 0; c < 3; c++)
            info->highest = p[c] > info->highest ? p[c] : info->highest;
        p[3] = p[3] < 1.0f ? p[3] : 1.0f;
        info->translucent |= p[3] < 1.0f;
    }
}

/* c / (1 + max(c)) on R, G, B. */
static void tone_map_row(void *priv, int y, int worker)
{
    (void)worker;
    const convert_job *job = priv;
    float *row = job->linear + (size_t)y * job->width * 4;
    for (int x = 0; x < job->width; x++) {
        float *p = row + 4 * x;
        float m = p[0] > p[1] ? p[0] : p[1];
        m = m > p[2] ? m : p[2];
        const float s = 1.0f / (1.0f + m);
        for (int c = 0; c < 3; c++)
            p[c] *= s;
    }
}

size_t upf__convert_scratch_bytes(int height)
{
    return (size_t)height * sizeof(convert_row_info);
}

upf_result upf__convert_pass(const upf__pass_args *a)
{
    const upf__convert_con *con = a->con;
    const upf_image *src = a->surface[UPF__SP_SOURCE].image;
    convert_job job = { src, a->surface[UPF__SP_LINEAR].data, a->scratch, con->width,
                        src->format == UPF_FORMAT_RGBA8_SRGB ||
                            src->format == UPF_FORMAT_RGBA8_UNORM ||
                            src->format == UPF_FORMAT_RGBA16_SRGB ||
                            src->format == UPF_FORMAT_RGBA16_UNORM };
    upf__parallel_for(a->ctx, convert_row, &job, con->height);
    float highest = 0.0f, lowest = 0.0f;
    long negatives = 0;
    int translucent = 0;
    int neg_x = -1, neg_y = -1;
    for (int y = 0; y < con->height; y++) {
        const convert_row_info *r = &job.rows[y];
        if (r->bad_x >= 0)
            return upf__fail(a->ctx, UPF_ERROR_BAD_DATA, "%s: source pixel x=%d, y=%d is not "
                             "finite (NaN or Inf); expected finite linear light", a->fn,
                             r->bad_x, y);
        highest = r->highest > highest ? r->highest : highest;
        lowest = r->lowest < lowest ? r->lowest : lowest;
        negatives += r->negatives;
        translucent |= r->translucent;
        if (r->negatives && neg_y < 0)
            neg_x = r->negative_x, neg_y = y;
    }
    if (negatives)
        upf__log(a->ctx, UPF_LOG_WARN, "%s: %ld channel value%s of the source below 0 (the "
                 "lowest %g, the first at x=%d, y=%d) taken as 0: negative values are not "
                 "light", a->fn, negatives, negatives == 1 ? "" : "s", (double)lowest, neg_x,
                 neg_y);
    float *range = a->surface[UPF__SP_RANGE].data;
    range[2] = translucent ? 1.0f : 0.0f;
    range[3] = 0.0f;
    if (highest > 1.0f) {
        upf__parallel_for(a->ctx, tone_map_row, &job, con->height);
        range[0] = highest / (1.0f + highest);
        range[1] = highest;
        upf__log(a->ctx, UPF_LOG_INFO, "%s: the source reaches %g, above 1: tone-mapped "
                 "c / (1 + max(c)) around the passes", a->fn, (double)highest);
    } else {
        /* Every channel is in [0, 1] already (R, G, B below `highest`, alpha clamped). */
        range[0] = 0.0f;
        range[1] = highest;
    }
    return UPF_OK;
}
