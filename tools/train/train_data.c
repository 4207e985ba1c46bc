/* train_data.c: training pairs (train.h): an input frame through passes 1-3, the planes the
 * trainer reads its windows and targets from, and folders of PNG pairs.
 *
 * Reads an input image and its supersampled reference (or a folder of them as PNG files, and
 * an optional manifest); writes train_pair planes:
 *  - luma:   the Rec. 709 luma of the sqrt frame that passes 1-3 leave, per input pixel, as
 *            reconstruct.c computes it for its windows;
 *  - detail: per output pixel, luma(sqrt(reference)) - luma(base), the base being pass 4's own
 *            sample of the sqrt frame at that pixel (upf__base_row: bilinear in sqrt space,
 *            or Catmull-Rom in linear light for UPF_MODEL_FLAG_CUBIC_BASE). At the model's own
 *            ratio the detail map's grid is the output grid, so this is exactly what pass 4
 *            would have to add (on R, G and B alike, which adds the same amount to luma since
 *            the luma weights sum to 1);
 *  - edge_weight: per window, the number of pass-1 edge bits (left and top) of the pixels in
 *            its s x s input block, for sampling windows with more weight on edges.
 * The reference is clamped to [0, 1] before its square root: the sqrt frame cannot go beyond. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/color.h"
#include "core/image.h"
#include "imageio/image_io.h"
#include "spatial/reconstruct.h"
#include "spatial/smaa.h"
#include "spatial/spatial_passes.h"
#include "train/train.h"

/* ---- a pair from a sqrt frame --------------------------------------------------------------- */

/* Copies text, cut to fit (size >= 1). */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

upf_result train_pair_from_frame(upf_context *ctx, int step, uint32_t flags,
                                 const uint32_t *frame, int in_w, int in_h, const uint32_t *edges,
                                 const float *reference, int out_w, int out_h, train_pair *pair)
{
    static const char fn[] = "train_pair_from_frame";
    memset(pair, 0, sizeof *pair);
    if (step < UPF_MODEL_STEP_MIN || step > UPF_MODEL_STEP_MAX)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: step %d; expected %d..%d", fn,
                         step, UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX);
    if (!frame || !reference)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame or reference is NULL", fn);
    if (flags & ~UPF_MODEL_FLAGS_KNOWN)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model flags 0x%x; expected a "
                         "combination of 0x%x", fn, (unsigned)flags, UPF_MODEL_FLAGS_KNOWN);
    if (in_w < 1 || in_h < 1 || in_w > UPF_MAX_IMAGE_DIMENSION || in_h > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: input is %dx%d; expected each "
                         "side in 1..%d", fn, in_w, in_h, UPF_MAX_IMAGE_DIMENSION);
    if ((long long)out_w * step != 12LL * in_w || (long long)out_h * step != 12LL * in_h)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: reference is %dx%d for a %dx%d "
                         "input; expected exactly input * 12 / %d on each axis", fn, out_w,
                         out_h, in_w, in_h, step);
    if (out_w < UPF_NET_BLOCK || out_h < UPF_NET_BLOCK)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: reference is %dx%d; expected at "
                         "least %dx%d (one window's block)", fn, out_w, out_h, UPF_NET_BLOCK,
                         UPF_NET_BLOCK);
    for (size_t i = 0; i < (size_t)out_w * out_h * 4; i++)
        if (!isfinite(reference[i]))
            return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: reference pixel (%zu, %zu) channel "
                             "%zu is %g; expected a finite number", fn, i / 4 % (size_t)out_w,
                             i / 4 / (size_t)out_w, i % 4, (double)reference[i]);

    pair->step = step;
    pair->flags = flags;
    pair->in_w = in_w;
    pair->in_h = in_h;
    pair->out_w = out_w;
    pair->out_h = out_h;
    pair->win_x = out_w / UPF_NET_BLOCK;
    pair->win_y = out_h / UPF_NET_BLOCK;
    const size_t n_in = (size_t)in_w * in_h, n_out = (size_t)out_w * out_h;
    pair->luma = upf__alloc_array(ctx, n_in, sizeof(float), "a training pair's luma plane");
    pair->frame = upf__alloc_array(ctx, n_in, sizeof(uint32_t), "a training pair's frame");
    pair->detail = upf__alloc_array(ctx, n_out, sizeof(float), "a training pair's targets");
    pair->edge_weight = upf__alloc_array(ctx, (size_t)pair->win_x * pair->win_y, sizeof(float),
                                         "a training pair's window weights");
    /* Pass 4's base, a row at a time: column taps, a filtered input row, the base row. */
    const size_t cols_bytes = upf__base_cols_bytes(out_w);
    unsigned char *base_mem = upf__alloc(ctx, cols_bytes + ((size_t)in_w + (size_t)out_w) * 4 *
                                         sizeof(float), "a row of bases");
    if (!pair->luma || !pair->frame || !pair->detail || !pair->edge_weight || !base_mem) {
        upf__free(ctx, base_mem);
        train_pair_free(ctx, pair);
        return UPF_ERROR_OUT_OF_MEMORY;
    }
    memcpy(pair->frame, frame, n_in * sizeof(uint32_t));

    /* The luma plane: as reconstruct.c reads its windows. */
    for (size_t i = 0; i < n_in; i++) {
        float r, g, b, a;
        upf_unpack_sqrt1010102(frame[i], &r, &g, &b, &a);
        pair->luma[i] = upf_luma(r, g, b);
    }

    /* The targets: luma(sqrt(reference)) - luma(base), the base exactly as pass 4 samples it. */
    const upf__sqrt_frame sqrt_frame = { frame, in_w, in_h, 0 };
    const upf__base_cols cols = upf__base_cols_init(ctx, flags, in_w, out_w, base_mem);
    float *vrow = (float *)(base_mem + cols_bytes), *base = vrow + (size_t)in_w * 4;
    for (int y = 0; y < out_h; y++) {
        upf__base_row(&sqrt_frame, &cols, out_h, y, vrow, base);
        const float *ref = reference + (size_t)y * out_w * 4;
        float *det = pair->detail + (size_t)y * out_w;
        for (int x = 0; x < out_w; x++) {
            float target[3];
            for (int c = 0; c < 3; c++) {
                float v = ref[4 * x + c];
                target[c] = sqrtf(v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v);
            }
            const float *b = base + 4 * x;
            det[x] = upf_luma(target[0], target[1], target[2]) - upf_luma(b[0], b[1], b[2]);
        }
    }
    upf__free(ctx, base_mem);

    /* Window weights: pass-1 edge bits in each window's s x s input block. */
    const int words_x = (in_w + 3) / 4;
    for (int gy = 0; gy < pair->win_y; gy++)
        for (int gx = 0; gx < pair->win_x; gx++) {
            int bits = 0;
            if (edges) {
                for (int y = step * gy; y < step * gy + step; y++)
                    for (int x = step * gx; x < step * gx + step; x++) {
                        uint32_t word = edges[(size_t)(y / 4) * words_x + x / 4];
                        int bit = (y % 4) * 4 + x % 4;
                        bits += (int)(word >> bit & 1u) + (int)(word >> (16 + bit) & 1u);
                    }
            } else {
                bits = 1;
            }
            pair->edge_weight[gy * pair->win_x + gx] = (float)bits;
        }
    return UPF_OK;
}

void train_pair_window(const train_pair *pair, int gx, int gy, float *window)
{
    const int s = pair->step, border = UPF_NET_WINDOW_BORDER(s);
    const int x0 = s * gx - border, y0 = s * gy - border;
    int cols[UPF_NET_DIM];
    for (int c = 0; c < UPF_NET_DIM; c++)
        cols[c] = clampi(x0 + c, 0, pair->in_w - 1);
    for (int r = 0; r < UPF_NET_DIM; r++) {
        const float *row = pair->luma + (size_t)clampi(y0 + r, 0, pair->in_h - 1) * pair->in_w;
        for (int c = 0; c < UPF_NET_DIM; c++)
            window[r * UPF_NET_DIM + c] = row[cols[c]];
    }
}

void train_pair_target(const train_pair *pair, int gx, int gy, float *block)
{
    for (int r = 0; r < UPF_NET_BLOCK; r++)
        memcpy(block + r * UPF_NET_BLOCK,
               pair->detail + (size_t)(UPF_NET_BLOCK * gy + r) * pair->out_w + UPF_NET_BLOCK * gx,
               UPF_NET_BLOCK * sizeof(float));
}

/* ---- a pair from images ---------------------------------------------------------------------- */

static upf_result copy_image(upf_context *ctx, const upf_image *src, upf_image *dst)
{
    const size_t row = (size_t)src->width * upf_format_bytes_per_pixel(src->format);
    void *data = upf__alloc_array(ctx, (size_t)src->height, row, "a copy of an image");
    if (!data)
        return UPF_ERROR_OUT_OF_MEMORY;
    for (int y = 0; y < src->height; y++)
        memcpy((char *)data + (size_t)y * row, upf__row(src, y), row);
    *dst = (upf_image){ data, src->width, src->height, row, src->format };
    return UPF_OK;
}

/* Linear RGBA float, tightly packed; refuses NaN/Inf. */
static float *to_linear(upf_context *ctx, const upf_image *img, const char *what)
{
    float *px = upf__alloc_array(ctx, (size_t)img->width * img->height * 4, sizeof(float),
                                 "linear pixels");
    if (!px)
        return NULL;
    for (int y = 0; y < img->height; y++) {
        int bad = upf__row_to_linear(img, y, 0, img->width, px + (size_t)y * img->width * 4);
        if (bad >= 0) {
            upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: pixel (%d, %d) is not finite; expected "
                      "finite colour values", what, bad, y);
            upf__free(ctx, px);
            return NULL;
        }
    }
    return px;
}

upf_result train_pair_from_images(upf_context *ctx, int step, uint32_t flags,
                                  const upf_image *input,
                                  const upf_image *target, bool keep, const uint8_t *area_table,
                                  const char *what, train_pair *pair)
{
    static const char fn[] = "train_pair_from_images";
    memset(pair, 0, sizeof *pair);
    upf_result r;
    if ((r = upf__check_image(ctx, fn, "input", input, UPF_FMTS_COLOR, 0, 0)) != UPF_OK ||
        (r = upf__check_image(ctx, fn, "target", target, UPF_FMTS_COLOR, 0, 0)) != UPF_OK)
        return r;
    if (!area_table)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: area table is NULL", fn);
    const int w = input->width, h = input->height;
    if ((long long)target->width * step != 12LL * w ||
        (long long)target->height * step != 12LL * h)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: input %dx%d and target %dx%d "
                         "are %.4gx%.4g apart; expected exactly %.4gx (step %d: target = input * "
                         "12 / %d on each axis, so %d x %d would need a %.6gx%.6g target)", what,
                         w, h, target->width, target->height, (double)target->width / w,
                         (double)target->height / h, 12.0 / step, step, step, w, h,
                         12.0 * w / step, 12.0 * h / step);
    if (target->width < UPF_NET_BLOCK || target->height < UPF_NET_BLOCK)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: target is %dx%d; expected at "
                         "least %dx%d (one window's block)", what, target->width, target->height,
                         UPF_NET_BLOCK, UPF_NET_BLOCK);

    /* The spatial engine's own passes convert .. blend (src/spatial/spatial_passes.h) make
     * the sqrt frame and the edge words, exactly as the engine makes them for this input.
     * For a model without SMAA (UPF_MODEL_FLAG_NO_SMAA) the passes stop after edges, which
     * writes every pixel's unblended sqrt encoding (what the engine's frame is then) and
     * still gives the edge words for the window weights. */
    const upf__spatial_config cfg = { .src_width = w, .src_height = h, .area_table = area_table };
    upf_spatial *engine = upf__spatial_create(ctx, fn, &cfg);
    float *reference = engine ? to_linear(ctx, target, what) : NULL;
    if (!engine || !reference) {
        r = upf_context_last_error(ctx, NULL);
        goto done;
    }
    if ((r = upf__spatial_run_passes(engine, what, input, NULL, UPF_SPATIAL_PASS_CONVERT,
                                     (flags & UPF_MODEL_FLAG_NO_SMAA) ? UPF_SPATIAL_PASS_EDGES
                                                                      : UPF_SPATIAL_PASS_BLEND)) != UPF_OK)
        goto done;
    r = train_pair_from_frame(ctx, step, flags, upf__spatial_surface(engine, UPF__SP_FRAME)->data,
                              w, h, upf__spatial_surface(engine, UPF__SP_EDGES)->data, reference,
                              target->width, target->height, pair);
    if (r == UPF_OK && keep) {
        if ((r = copy_image(ctx, input, &pair->input_image)) != UPF_OK ||
            (r = copy_image(ctx, target, &pair->target_image)) != UPF_OK)
            train_pair_free(ctx, pair);
    }
done:
    upf__free(ctx, reference);
    upf_spatial_destroy(&engine);
    return r;
}

void train_pair_free(upf_context *ctx, train_pair *pair)
{
    upf__free(ctx, pair->luma);
    upf__free(ctx, pair->detail);
    upf__free(ctx, pair->edge_weight);
    upf__free(ctx, pair->frame);
    upf__free(ctx, pair->input_image.data);
    upf__free(ctx, pair->target_image.data);
    memset(pair, 0, sizeof *pair);
}

/* ---- sets --------------------------------------------------------------------------------- */

upf_result train_set_add(upf_context *ctx, train_set *set, train_pair *pair)
{
    if (pair->step != set->step)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "train_set_add: pair %s is for step "
                         "%d, the set for step %d", pair->name, pair->step, set->step);
    if (set->count == 0)
        set->flags = pair->flags;
    if (pair->flags != set->flags)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "train_set_add: pair %s's targets are "
                         "for model flags 0x%x, the set's for 0x%x", pair->name,
                         (unsigned)pair->flags, (unsigned)set->flags);
    if (set->count == set->capacity) {
        int cap = set->capacity ? 2 * set->capacity : 16;
        train_pair *p = upf__alloc_array(ctx, (size_t)cap, sizeof *p, "the list of pairs");
        if (!p)
            return UPF_ERROR_OUT_OF_MEMORY;
        if (set->count)
            memcpy(p, set->pairs, (size_t)set->count * sizeof *p);
        upf__free(ctx, set->pairs);
        set->pairs = p;
        set->capacity = cap;
    }
    set->pairs[set->count++] = *pair;
    memset(pair, 0, sizeof *pair);
    return UPF_OK;
}

void train_set_free(upf_context *ctx, train_set *set)
{
    for (int i = 0; i < set->count; i++)
        train_pair_free(ctx, &set->pairs[i]);
    upf__free(ctx, set->pairs);
    set->pairs = NULL;
    set->count = set->capacity = 0;
}

int train_set_count(const train_set *set, bool validation)
{
    int n = 0;
    for (int i = 0; i < set->count; i++)
        n += set->pairs[i].validation == validation;
    return n;
}

/* ---- the validation split ------------------------------------------------------------------- */

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

typedef struct group_rank {
    uint64_t hash;
    const char *name;
} group_rank;

static int cmp_rank(const void *a, const void *b)
{
    const group_rank *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return strcmp(x->name, y->name);
}

void train_split_names(const char *const *groups, int count, double fraction, bool *validation)
{
    /* Distinct groups, ranked by hash. */
    group_rank *rank = malloc((size_t)(count ? count : 1) * sizeof *rank);
    int distinct = 0;
    for (int i = 0; i < count; i++) {
        int seen = 0;
        for (int k = 0; k < distinct && !seen; k++)
            seen = strcmp(rank[k].name, groups[i]) == 0;
        if (!seen)
            rank[distinct++] = (group_rank){ fnv1a(groups[i]), groups[i] };
    }
    qsort(rank, (size_t)distinct, sizeof *rank, cmp_rank);
    int held = (int)ceil(fraction * distinct - 1e-9);
    if (fraction > 0 && held < 1 && distinct >= 2)
        held = 1;
    if (held > distinct - 1)
        held = distinct - 1;
    if (held < 0)
        held = 0;
    for (int i = 0; i < count; i++) {
        validation[i] = false;
        for (int k = 0; k < held; k++)
            if (strcmp(rank[k].name, groups[i]) == 0)
                validation[i] = true;
    }
    free(rank);
}

/* ---- folders of PNG pairs ----------------------------------------------------------------- */

#define MAX_NAME 255

typedef struct dir_entry {
    char name[MAX_NAME + 1];
    bool target;
    bool input;                                 /* NAME.input.png */
    bool input_step[UPF_MODEL_STEP_MAX + 1];    /* NAME.input-sS.png */
    char group[MAX_NAME + 1];
} dir_entry;

typedef struct dir_list {
    dir_entry *e;
    int count, cap;
} dir_list;

static dir_entry *dir_find(dir_list *list, const char *name, size_t len)
{
    for (int i = 0; i < list->count; i++)
        if (strlen(list->e[i].name) == len && strncmp(list->e[i].name, name, len) == 0)
            return &list->e[i];
    if (list->count == list->cap) {
        int cap = list->cap ? 2 * list->cap : 64;
        dir_entry *p = realloc(list->e, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        list->e = p;
        list->cap = cap;
    }
    dir_entry *e = &list->e[list->count++];
    memset(e, 0, sizeof *e);
    memcpy(e->name, name, len);
    memcpy(e->group, name, len);
    return e;
}

static bool ends_with(const char *s, size_t len, const char *tail, size_t *stem)
{
    size_t n = strlen(tail);
    if (len <= n || strcmp(s + len - n, tail) != 0)
        return false;
    *stem = len - n;
    return true;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const dir_entry *)a)->name, ((const dir_entry *)b)->name);
}

/* Reads DIR/manifest.txt if there is one: `data=TEXT` and `view NAME ... group=G ...`. */
static upf_result read_manifest(upf_context *ctx, const char *dir, dir_list *list,
                                char *description, size_t desc_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return UPF_OK;
    char line[4096];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "data=", 5) == 0) {
            copy_text(description, desc_size, line + 5);
        } else if (strncmp(line, "view ", 5) == 0) {
            const char *name = line + 5;
            size_t len = strcspn(name, " \t");
            const char *g = strstr(name + len, " group=");
            if (!g || len == 0 || len > MAX_NAME) {
                fclose(f);
                return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s line %d: \"%s\"; expected "
                                 "\"view NAME ... group=GROUP ...\"", path, lineno, line);
            }
            g += 7;
            size_t glen = strcspn(g, " \t");
            for (int i = 0; i < list->count; i++)
                if (strlen(list->e[i].name) == len && strncmp(list->e[i].name, name, len) == 0) {
                    size_t n = glen < MAX_NAME ? glen : MAX_NAME;
                    memcpy(list->e[i].group, g, n);
                    list->e[i].group[n] = '\0';
                }
        }
    }
    fclose(f);
    return UPF_OK;
}

/* A copy of an image mirrored left to right (tightly packed; free with upf__free). */
static upf_result mirror_image(upf_context *ctx, const upf_image *src, upf_image *dst)
{
    const size_t bpp = upf_format_bytes_per_pixel(src->format);
    const size_t row = (size_t)src->width * bpp;
    unsigned char *data = upf__alloc_array(ctx, (size_t)src->height, row, "a mirrored image");
    if (!data)
        return UPF_ERROR_OUT_OF_MEMORY;
    for (int y = 0; y < src->height; y++) {
        const unsigned char *s = upf__row(src, y);
        unsigned char *d = data + (size_t)y * row;
        for (int x = 0; x < src->width; x++)
            memcpy(d + (size_t)x * bpp, s + (size_t)(src->width - 1 - x) * bpp, bpp);
    }
    *dst = (upf_image){ data, src->width, src->height, row, src->format };
    return UPF_OK;
}

/* A copy of an image transposed (rows become columns: a W x H image becomes H x W; tightly
 * packed; free with upf__free). */
static upf_result transpose_image(upf_context *ctx, const upf_image *src, upf_image *dst)
{
    const size_t bpp = upf_format_bytes_per_pixel(src->format);
    const size_t row = (size_t)src->height * bpp;
    unsigned char *data = upf__alloc_array(ctx, (size_t)src->width, row, "a transposed image");
    if (!data)
        return UPF_ERROR_OUT_OF_MEMORY;
    for (int y = 0; y < src->height; y++) {
        const unsigned char *s = upf__row(src, y);
        for (int x = 0; x < src->width; x++)
            memcpy(data + (size_t)x * row + (size_t)y * bpp, s + (size_t)x * bpp, bpp);
    }
    *dst = (upf_image){ data, src->height, src->width, row, src->format };
    return UPF_OK;
}

/* Adds the pair of `in` and `tg` to the set, transposed first with TRAIN_AUGMENT_TRANSPOSE in
 * `orient`, then mirrored with TRAIN_AUGMENT_MIRROR. */
static upf_result add_pair(upf_context *ctx, train_set *set, const upf_image *in,
                           const upf_image *tg, bool validation, unsigned orient,
                           const uint8_t *area, const char *what, const char *name,
                           const char *group)
{
    upf_image tin = { 0 }, ttg = { 0 }, min = { 0 }, mtg = { 0 };
    upf_result r = UPF_OK;
    if (orient & TRAIN_AUGMENT_TRANSPOSE) {
        if ((r = transpose_image(ctx, in, &tin)) != UPF_OK ||
            (r = transpose_image(ctx, tg, &ttg)) != UPF_OK)
            goto done;
        in = &tin;
        tg = &ttg;
    }
    if (orient & TRAIN_AUGMENT_MIRROR) {
        if ((r = mirror_image(ctx, in, &min)) != UPF_OK ||
            (r = mirror_image(ctx, tg, &mtg)) != UPF_OK)
            goto done;
        in = &min;
        tg = &mtg;
    }
    train_pair pair;
    r = train_pair_from_images(ctx, set->step, set->flags, in, tg, validation, area, what,
                               &pair);
    if (r == UPF_OK) {
        copy_text(pair.name, sizeof pair.name, name);
        const char *tag = orient == (TRAIN_AUGMENT_TRANSPOSE | TRAIN_AUGMENT_MIRROR)
                              ? "+transpose+mirror"
                          : orient == TRAIN_AUGMENT_TRANSPOSE ? "+transpose"
                          : orient == TRAIN_AUGMENT_MIRROR    ? "+mirror"
                                                              : "";
        size_t n = strlen(pair.name), t = strlen(tag);
        copy_text(pair.name + UPF_MIN(n, sizeof pair.name - t - 1), t + 1, tag);
        copy_text(pair.group, sizeof pair.group, group);
        pair.validation = validation;
        r = train_set_add(ctx, set, &pair);
        if (r != UPF_OK)
            train_pair_free(ctx, &pair);
    }
done:
    upf__free(ctx, tin.data);
    upf__free(ctx, ttg.data);
    upf__free(ctx, min.data);
    upf__free(ctx, mtg.data);
    return r;
}

upf_result train_set_load_dir(upf_context *ctx, const char *dir, int step, uint32_t flags,
                              double fraction, unsigned augment, train_set *set,
                              train_progress_fn progress, void *progress_priv)
{
    memset(set, 0, sizeof *set);
    set->step = step;
    set->flags = flags;
    if (step < UPF_MODEL_STEP_MIN || step > UPF_MODEL_STEP_MAX)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "train: step %d; expected %d..%d",
                         step, UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX);
    DIR *d = opendir(dir);
    if (!d)
        return upf__fail(ctx, UPF_ERROR_IO, "%s: cannot open the data folder: %s", dir,
                         strerror(errno));
    dir_list list = { 0 };
    upf_result r = UPF_OK;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        const char *s = ent->d_name;
        size_t len = strlen(s), stem;
        dir_entry *e = NULL;
        if (ends_with(s, len, ".target.png", &stem)) {
            if ((e = dir_find(&list, s, stem)))
                e->target = true;
        } else if (ends_with(s, len, ".input.png", &stem)) {
            if ((e = dir_find(&list, s, stem)))
                e->input = true;
        } else if (len > 13 && strcmp(s + len - 4, ".png") == 0) {
            /* NAME.input-sS.png or NAME.input-sSS.png */
            int k = -1;
            for (int st = UPF_MODEL_STEP_MIN; st <= UPF_MODEL_STEP_MAX && k < 0; st++) {
                char tail[32];
                snprintf(tail, sizeof tail, ".input-s%d.png", st);
                if (ends_with(s, len, tail, &stem))
                    k = st;
            }
            if (k < 0)
                continue;
            if ((e = dir_find(&list, s, stem)))
                e->input_step[k] = true;
        } else {
            continue;
        }
        if (!e) {
            r = upf__fail(ctx, UPF_ERROR_OUT_OF_MEMORY, "out of memory listing %s", dir);
            break;
        }
        if (stem == 0 || stem > MAX_NAME) {
            r = upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s/%s: the name before the suffix is %zu "
                          "bytes; expected 1..%d", dir, s, stem, MAX_NAME);
            break;
        }
    }
    closedir(d);
    if (r != UPF_OK)
        goto fail;
    if (list.count == 0) {
        r = upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s holds no training pairs; expected files "
                      "NAME.target.png with NAME.input.png or NAME.input-s%d.png (make them "
                      "with 'upframe train data')", dir, step);
        goto fail;
    }
    qsort(list.e, (size_t)list.count, sizeof *list.e, cmp_entry);

    /* Every input needs its target, every target an input for this step. */
    for (int i = 0; i < list.count; i++) {
        const dir_entry *e = &list.e[i];
        if (!e->target) {
            char which[64] = "input.png";
            if (!e->input)
                for (int st = UPF_MODEL_STEP_MIN; st <= UPF_MODEL_STEP_MAX; st++)
                    if (e->input_step[st]) {
                        snprintf(which, sizeof which, "input-s%d.png", st);
                        break;
                    }
            r = upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s/%s.%s has no partner: expected its "
                          "reference %s/%s.target.png", dir, e->name, which, dir, e->name);
            goto fail;
        }
        if (!e->input && !e->input_step[step]) {
            char others[128] = "";
            size_t len = 0;
            for (int st = UPF_MODEL_STEP_MIN; st <= UPF_MODEL_STEP_MAX; st++)
                if (e->input_step[st])
                    len += (size_t)snprintf(others + len, sizeof others - len, "%s%d",
                                            len ? ", " : " (it has inputs for step ", st);
            if (len)
                snprintf(others + len, sizeof others - len, " only)");
            r = upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s/%s.target.png has no partner for step "
                          "%d: expected %s/%s.input-s%d.png or %s/%s.input.png%s", dir, e->name,
                          step, dir, e->name, step, dir, e->name, others);
            goto fail;
        }
    }

    snprintf(set->description, sizeof set->description, "user pairs in %s", dir);
    if ((r = read_manifest(ctx, dir, &list, set->description, sizeof set->description)) != UPF_OK)
        goto fail;

    /* The validation split, by group. */
    const char **groups = malloc((size_t)list.count * sizeof *groups);
    bool *val = malloc((size_t)list.count * sizeof *val);
    if (!groups || !val) {
        free(groups);
        free(val);
        r = upf__fail(ctx, UPF_ERROR_OUT_OF_MEMORY, "out of memory listing %s", dir);
        goto fail;
    }
    for (int i = 0; i < list.count; i++)
        groups[i] = list.e[i].group;
    train_split_names(groups, list.count, fraction, val);
    free(groups);

    uint8_t *area = upf__alloc(ctx, UPF_SMAA_AREA_BYTES, "the SMAA area table");
    if (!area) {
        free(val);
        r = UPF_ERROR_OUT_OF_MEMORY;
        goto fail;
    }
    upf__smaa_area_table(area);
    for (int i = 0; i < list.count && r == UPF_OK; i++) {
        const dir_entry *e = &list.e[i];
        char in_path[4096], tg_path[4096], err[IMAGEIO_ERR_SIZE];
        if (e->input_step[step])
            snprintf(in_path, sizeof in_path, "%s/%s.input-s%d.png", dir, e->name, step);
        else
            snprintf(in_path, sizeof in_path, "%s/%s.input.png", dir, e->name);
        snprintf(tg_path, sizeof tg_path, "%s/%s.target.png", dir, e->name);
        imageio_image in = { 0 }, tg = { 0 };
        if ((r = imageio_read(in_path, NULL, &in, err)) != UPF_OK ||
            (r = imageio_read(tg_path, NULL, &tg, err)) != UPF_OK) {
            imageio_free(&in);
            upf__fail(ctx, r, "%s", err);
            break;
        }
        if (in.type != IMAGEIO_PNG || tg.type != IMAGEIO_PNG ||
            in.img.format == UPF_FORMAT_R32F || tg.img.format == UPF_FORMAT_R32F) {
            r = upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: is a %s file; expected a PNG",
                          in.type != IMAGEIO_PNG ? in_path : tg_path,
                          imageio_type_name(in.type != IMAGEIO_PNG ? in.type : tg.type));
        } else if ((long long)tg.img.width * step != 12LL * in.img.width ||
                   (long long)tg.img.height * step != 12LL * in.img.height) {
            r = upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s is %dx%d and %s is %dx%d, a ratio of "
                          "%.4gx%.4g; expected exactly %.4g for step %d (the target %d/%d of the "
                          "input on each axis: a %dx%d input needs a %.6gx%.6g target)",
                          in_path, in.img.width, in.img.height, tg_path, tg.img.width,
                          tg.img.height, (double)tg.img.width / in.img.width,
                          (double)tg.img.height / in.img.height, 12.0 / step, step, 12, step,
                          in.img.width, in.img.height, 12.0 * in.img.width / step,
                          12.0 * in.img.height / step);
        } else {
            /* The pair as it is, then (training pairs only) each orientation `augment`
             * asks for: mirrored, transposed, and with both, transposed and mirrored. */
            for (unsigned orient = 0; orient < 4 && r == UPF_OK; orient++)
                if (orient == 0 || (!val[i] && (orient & augment) == orient))
                    r = add_pair(ctx, set, &in.img, &tg.img, val[i], orient, area, in_path,
                                 e->name, e->group);
        }
        imageio_free(&in);
        imageio_free(&tg);
        if (progress)
            progress(progress_priv, i + 1, list.count);
    }
    upf__free(ctx, area);
    free(val);
    if (r != UPF_OK)
        goto fail;
    free(list.e);
    return UPF_OK;
fail:
    free(list.e);
    train_set_free(ctx, set);
    return r;
}
