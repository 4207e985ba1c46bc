/* net_model.c: model files (docs/MODELS.md): the loader, the writer, the CRC-32 that guards
 * them, the built-in set, the public upf_models_* calls and the choice of a model for an
 * output size.
 *
 * Reads: a model file in memory (the loader), in-memory models (the writer), the file that
 * src/embed_models.cmake compiled into the library. Writes: upf_models sets, model files.
 *
 * The loader checks in three passes so that each fault gets the message that explains it:
 *  1. structure: magic, version, count, and each model's sizes and provenance length, which
 *     say where the next part starts; a file that ends early is "truncated" (naming the part
 *     it ends in), one that goes on after the checksum has "trailing bytes";
 *  2. the CRC-32 of everything before the checksum (a damaged file);
 *  3. content: steps (range, duplicates), flag bits (at most one base), the detail strength
 *     (version 2), provenance text, and every weight (NaN/Inf named by model, stage, matrix,
 *     row and column).
 * Version 1 and 2 files differ only in each model's header: version 2 has the detail strength
 * (float32) after the provenance length, 20 bytes in all, and may set the sqrt-Lanczos flag. */
#include <stdio.h>
#include <string.h>

#include "core/color.h"
#include "spatial/net.h"

/* ---- layout (docs/MODELS.md) ------------------------------------------------------------ */

static const unsigned char model_magic[8] = { 'U', 'P', 'F', 'M', 'O', 'D', 'E', 'L' };

#define HEADER_BYTES 16        /* magic, version, count */
#define MODEL_HEADER_BYTES_V1 16 /* step, flags, 4 size bytes, provenance length */
#define MODEL_HEADER_BYTES_V2 20 /* the same, then the detail strength (float32) */
#define WEIGHT_BYTES (UPF_NET_WEIGHTS * 2)
#define CHECKSUM_BYTES 4

static const char matrix_names[UPF_NET_MATRICES] = { 'A', 'B', 'C', 'D' };

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void wr32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static float rdf32(const unsigned char *p)
{
    uint32_t u = rd32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void wr16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

uint32_t upf__crc32(const void *data, size_t size)
{
    /* Bitwise CRC-32 (ISO-HDLC), LSB first: no table to get wrong, fast enough for files of a
     * few hundred kilobytes. */
    const unsigned char *p = data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < size; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xffffffffu;
}

/* ---- provenance text -------------------------------------------------------------------- */

/* Checks that `n` bytes are UTF-8 text with no NUL or control characters other than tab and
 * newline (C0, DEL and the C1 controls U+0080..U+009F are refused). Returns -1 if so, else
 * the offset of the first bad byte with a reason in *why. */
static long check_text(const unsigned char *p, size_t n, const char **why)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c < 0x80) {
            if (c == 0) {
                *why = "is NUL (0x00)";
                return (long)i;
            }
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
                *why = "is a control character";
                return (long)i;
            }
            i++;
            continue;
        }
        /* Multi-byte sequence: lead byte, then continuation bytes 10xxxxxx. */
        size_t len;
        uint32_t cp, min;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2, cp = c & 0x1f, min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3, cp = c & 0x0f, min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4, cp = c & 0x07, min = 0x10000;
        } else {
            *why = "is not a UTF-8 lead byte";
            return (long)i;
        }
        if (n - i < len) {
            *why = "starts a UTF-8 sequence cut short by the end of the text";
            return (long)i;
        }
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xc0) != 0x80) {
                *why = "starts a UTF-8 sequence with a bad continuation byte";
                return (long)i;
            }
            cp = cp << 6 | (p[i + k] & 0x3fu);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            *why = "starts an overlong, surrogate or out-of-range UTF-8 sequence";
            return (long)i;
        }
        if (cp >= 0x80 && cp <= 0x9f) {
            *why = "starts a C1 control character";
            return (long)i;
        }
        i += len;
    }
    return -1;
}

/* ---- the loader ---------------------------------------------------------------------------- */

/* Where each model's parts lie in the file, found by pass 1. */
typedef struct model_layout {
    size_t start;       /* the model's first byte */
    uint32_t prov_len;
    size_t prov;        /* provenance text */
    size_t weights;     /* first weight */
    size_t end;         /* one past the last weight */
} model_layout;

static upf_result truncated(upf_context *ctx, const char *fn, size_t size, const char *part,
                            size_t from, size_t bytes)
{
    return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: truncated model file: it ends at byte %zu, "
                     "inside %s (bytes %zu..%zu); expected the whole of it", fn, size, part,
                     from, from + bytes - 1);
}

upf_result upf__net_parse(upf_context *ctx, const char *fn, const void *data, size_t size,
                          upf_models *set)
{
    const unsigned char *p = data;
    char part[96];

    /* Pass 1: structure. */
    size_t magic_len = size < sizeof model_magic ? size : sizeof model_magic;
    if (memcmp(p, model_magic, magic_len) != 0) {
        char hex[3 * 8 + 1] = "";
        for (size_t i = 0; i < magic_len; i++)
            snprintf(hex + 3 * i, 4, "%02x ", p[i]);
        hex[magic_len ? 3 * magic_len - 1 : 0] = '\0';
        return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: not a model file: bytes 0..%zu are %s; "
                         "expected the magic \"UPFMODEL\" (55 50 46 4d 4f 44 45 4c)", fn,
                         magic_len ? magic_len - 1 : 0, hex);
    }
    if (size < HEADER_BYTES)
        return truncated(ctx, fn, size, "the file header", 0, HEADER_BYTES);
    uint32_t version = rd32(p + 8);
    if (version < UPF_MODEL_FILE_VERSION_MIN || version > UPF_MODEL_FILE_VERSION)
        return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte 8: model file version %u; expected "
                         "%d..%d (the versions this build reads)", fn, version,
                         UPF_MODEL_FILE_VERSION_MIN, UPF_MODEL_FILE_VERSION);
    const size_t model_header = version >= 2 ? MODEL_HEADER_BYTES_V2 : MODEL_HEADER_BYTES_V1;
    const uint32_t flags_known = version >= 2 ? UPF_MODEL_FLAGS_KNOWN : UPF_MODEL_FLAGS_V1;
    uint32_t count = rd32(p + 12);
    if (count < 1 || count > UPF_MODELS_MAX)
        return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte 12: model count %u; expected 1..%d",
                         fn, count, UPF_MODELS_MAX);

    model_layout lay[UPF_MODELS_MAX];
    size_t at = HEADER_BYTES;
    for (int m = 0; m < (int)count; m++) {
        model_layout *L = &lay[m];
        L->start = at;
        if (size - at < model_header) {
            snprintf(part, sizeof part, "model %d's header", m);
            return truncated(ctx, fn, size, part, at, model_header);
        }
        /* The sizes: fixed by the design, stored so that a file of another shape is refused by
         * name rather than misread. */
        static const struct { const char *what; unsigned expected; } sizes[4] = {
            { "stages", UPF_NET_STAGES }, { "matrices per stage", UPF_NET_MATRICES },
            { "matrix rows", UPF_NET_DIM }, { "matrix columns", UPF_NET_DIM } };
        for (int k = 0; k < 4; k++) {
            unsigned v = p[at + 8 + k];
            if (v != sizes[k].expected)
                return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: %s %u; "
                                 "expected %u (models are %d stages of %d %dx%d matrices)", fn,
                                 at + 8 + k, m, sizes[k].what, v, sizes[k].expected,
                                 UPF_NET_STAGES, UPF_NET_MATRICES, UPF_NET_DIM, UPF_NET_DIM);
        }
        L->prov_len = rd32(p + at + 12);
        if (L->prov_len > UPF_MODEL_PROVENANCE_MAX)
            return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: provenance "
                             "length %u bytes; expected at most %d", fn, at + 12, m,
                             L->prov_len, UPF_MODEL_PROVENANCE_MAX);
        L->prov = at + model_header;
        if (size - L->prov < L->prov_len) {
            snprintf(part, sizeof part, "model %d's provenance text", m);
            return truncated(ctx, fn, size, part, L->prov, L->prov_len);
        }
        L->weights = L->prov + L->prov_len;
        if (size - L->weights < WEIGHT_BYTES) {
            snprintf(part, sizeof part, "model %d's weights", m);
            return truncated(ctx, fn, size, part, L->weights, WEIGHT_BYTES);
        }
        L->end = L->weights + WEIGHT_BYTES;
        at = L->end;
    }
    if (size - at < CHECKSUM_BYTES)
        return truncated(ctx, fn, size, "the checksum", at, CHECKSUM_BYTES);
    if (size - at > CHECKSUM_BYTES)
        return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: trailing bytes: the checksum ends at byte "
                         "%zu but the file goes on to byte %zu (%zu bytes more); expected "
                         "nothing after the checksum", fn, at + CHECKSUM_BYTES - 1, size - 1,
                         size - at - CHECKSUM_BYTES);

    /* Pass 2: the checksum. */
    uint32_t stored = rd32(p + at), computed = upf__crc32(p, at);
    if (stored != computed)
        return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: bad checksum: byte %zu holds CRC-32 "
                         "0x%08x but bytes 0..%zu give 0x%08x; the file is damaged", fn, at,
                         stored, at - 1, computed);

    /* Pass 3: content. */
    for (int m = 0; m < (int)count; m++) {
        const model_layout *L = &lay[m];
        upf__net_model *model = &set->model[m];
        uint32_t step = rd32(p + L->start);
        if (step < UPF_MODEL_STEP_MIN || step > UPF_MODEL_STEP_MAX)
            return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: step %u; "
                             "expected %d..%d (ratios 3 down to 1.2)", fn, L->start, m, step,
                             UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX);
        for (int q = 0; q < m; q++)
            if (set->model[q].step == (int)step)
                return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: step %u "
                                 "again (model %d has it); expected one model per step", fn,
                                 L->start, m, step, q);
        uint32_t flags = rd32(p + L->start + 4);
        if (flags & ~flags_known)
            return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: flags 0x%x has "
                             "unknown bits 0x%x; expected only 0x%x in a version %u file%s", fn,
                             L->start + 4, m, flags, flags & ~flags_known, flags_known, version,
                             version < 2 && !(flags & ~UPF_MODEL_FLAGS_KNOWN)
                                 ? " (the Lanczos bases and no-SMAA need version 2)" : "");
        if (upf__model_flags_bases_clash(flags))
            return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: flags 0x%x set "
                             "more than one of the cubic, sqrt-Lanczos and sRGB-Lanczos bases; "
                             "expected at most one base flag", fn, L->start + 4, m, flags);
        float strength = 1.0f;
        if (version >= 2) {
            strength = rdf32(p + L->start + 16);
            if (!(strength >= 0.0f && strength <= UPF_MODEL_DETAIL_STRENGTH_MAX)) /* NaN too */
                return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: detail "
                                 "strength %g; expected 0..%g", fn, L->start + 16, m,
                                 (double)strength, UPF_MODEL_DETAIL_STRENGTH_MAX);
        }
        const char *why = "";
        long bad = check_text(p + L->prov, L->prov_len, &why);
        if (bad >= 0)
            return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: provenance byte "
                             "%ld (0x%02x) %s; expected UTF-8 text with no control characters "
                             "but tab and newline", fn, L->prov + (size_t)bad, m, bad,
                             p[L->prov + (size_t)bad], why);
        for (int i = 0; i < UPF_NET_WEIGHTS; i++) {
            size_t off = L->weights + 2 * (size_t)i;
            uint16_t h = rd16(p + off);
            if ((h & 0x7c00u) == 0x7c00u) {
                int stage = i / (UPF_NET_MATRICES * UPF_NET_WINDOW);
                int mat = i / UPF_NET_WINDOW % UPF_NET_MATRICES;
                int rc = i % UPF_NET_WINDOW;
                return upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: byte %zu: model %d: stage %d "
                                 "matrix %c row %d column %d is %s (fp16 0x%04x); expected a "
                                 "finite number", fn, off, m, stage + 1, matrix_names[mat],
                                 rc / UPF_NET_DIM, rc % UPF_NET_DIM,
                                 (h & 0x3ffu) ? "NaN" : "Inf", h);
            }
            model->w[i / (UPF_NET_MATRICES * UPF_NET_WINDOW)][i / UPF_NET_WINDOW % UPF_NET_MATRICES]
                    [i % UPF_NET_WINDOW] = upf_half_to_float(h);
        }
        model->step = (int)step;
        model->flags = flags;
        model->detail_strength = strength;
        memcpy(model->provenance, p + L->prov, L->prov_len);
        model->provenance[L->prov_len] = '\0';
        set->count = m + 1;
    }
    return UPF_OK;
}

/* ---- the writer ------------------------------------------------------------------------- */

void upf__model_flags_text(uint32_t flags, char *out, size_t size)
{
    static const struct { uint32_t flag; const char *name; } names[] = {
        { UPF_MODEL_FLAG_WINDOW_MEAN, "window-mean" },
        { UPF_MODEL_FLAG_CUBIC_BASE, "cubic-base" },
        { UPF_MODEL_FLAG_SQRT_LANCZOS_BASE, "sqrt-lanczos-base" },
        { UPF_MODEL_FLAG_NO_SMAA, "no-smaa" },
        { UPF_MODEL_FLAG_SRGB_LANCZOS_BASE, "srgb-lanczos-base" },
    };
    size_t n = 0;
    if (size)
        out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (flags & names[i].flag)
            n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%s", n ? "," : "",
                                  names[i].name);
    if (flags & ~UPF_MODEL_FLAGS_KNOWN)
        n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%sunknown 0x%x", n ? "," : "",
                              (unsigned)(flags & ~UPF_MODEL_FLAGS_KNOWN));
    if (!n && size)
        snprintf(out, size, "none");
}

upf_result upf__net_check_model(upf_context *ctx, const char *fn, const upf__net_model *model,
                                int index)
{
    if (model->step < UPF_MODEL_STEP_MIN || model->step > UPF_MODEL_STEP_MAX)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model %d: step %d; expected "
                         "%d..%d", fn, index, model->step, UPF_MODEL_STEP_MIN,
                         UPF_MODEL_STEP_MAX);
    if (model->flags & ~UPF_MODEL_FLAGS_KNOWN)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model %d: flags 0x%x has unknown "
                         "bits 0x%x; expected only 0x%x", fn, index, model->flags,
                         model->flags & ~UPF_MODEL_FLAGS_KNOWN, UPF_MODEL_FLAGS_KNOWN);
    if (upf__model_flags_bases_clash(model->flags))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model %d: flags 0x%x set more "
                         "than one of the cubic, sqrt-Lanczos and sRGB-Lanczos bases; expected "
                         "at most one base flag", fn, index, model->flags);
    if (!(model->detail_strength >= 0.0f &&
          model->detail_strength <= UPF_MODEL_DETAIL_STRENGTH_MAX))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model %d: detail strength %g; "
                         "expected 0..%g", fn, index, (double)model->detail_strength,
                         UPF_MODEL_DETAIL_STRENGTH_MAX);
    const char *end = memchr(model->provenance, '\0', sizeof model->provenance);
    if (!end)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model %d: provenance is not "
                         "NUL-terminated within %d bytes", fn, index, UPF_MODEL_PROVENANCE_MAX);
    const char *why = "";
    long bad = check_text((const unsigned char *)model->provenance,
                          (size_t)(end - model->provenance), &why);
    if (bad >= 0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model %d: provenance byte %ld "
                         "(0x%02x) %s; expected UTF-8 text with no control characters but tab "
                         "and newline", fn, index, bad,
                         (unsigned char)model->provenance[bad], why);
    for (int i = 0; i < UPF_NET_WEIGHTS; i++) {
        float v = model->w[i / (UPF_NET_MATRICES * UPF_NET_WINDOW)][i / UPF_NET_WINDOW % UPF_NET_MATRICES]
                          [i % UPF_NET_WINDOW];
        /* A finite float can still round to an fp16 Inf (|v| >= 65520). */
        if ((upf_float_to_half(v) & 0x7c00u) == 0x7c00u) {
            int rc = i % UPF_NET_WINDOW;
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model %d: stage %d matrix %c "
                             "row %d column %d is %g; expected a finite number within fp16's "
                             "range (|w| < 65520)", fn, index,
                             i / (UPF_NET_MATRICES * UPF_NET_WINDOW) + 1,
                             matrix_names[i / UPF_NET_WINDOW % UPF_NET_MATRICES],
                             rc / UPF_NET_DIM, rc % UPF_NET_DIM, (double)v);
        }
    }
    return UPF_OK;
}

uint32_t upf__net_file_version(const upf__net_model *const *models, int count)
{
    for (int m = 0; m < count; m++)
        if (models[m]->detail_strength != 1.0f || (models[m]->flags & ~UPF_MODEL_FLAGS_V1))
            return 2;
    return 1;
}

size_t upf__net_file_size(const upf__net_model *const *models, int count)
{
    size_t size = HEADER_BYTES + CHECKSUM_BYTES;
    const size_t model_header = upf__net_file_version(models, count) >= 2 ? MODEL_HEADER_BYTES_V2
                                                                  : MODEL_HEADER_BYTES_V1;
    for (int m = 0; m < count; m++)
        size += model_header + strnlen(models[m]->provenance, UPF_MODEL_PROVENANCE_MAX) +
                WEIGHT_BYTES;
    return size;
}

upf_result upf__net_write(upf_context *ctx, const upf__net_model *const *models, int count,
                          void *out, size_t size)
{
    static const char fn[] = "upf__net_write";
    if (!models || !out)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: models or out is NULL", fn);
    if (count < 1 || count > UPF_MODELS_MAX)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %d models; expected 1..%d", fn,
                         count, UPF_MODELS_MAX);
    for (int m = 0; m < count; m++) {
        if (!models[m])
            return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: model %d is NULL", fn, m);
        upf_result r = upf__net_check_model(ctx, fn, models[m], m);
        if (r != UPF_OK)
            return r;
        for (int q = 0; q < m; q++)
            if (models[q]->step == models[m]->step)
                return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: models %d and %d both "
                                 "have step %d; expected one model per step", fn, q, m,
                                 models[m]->step);
    }
    size_t need = upf__net_file_size(models, count);
    if (size < need)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: output buffer of %zu bytes; "
                         "expected at least %zu", fn, size, need);

    unsigned char *p = out;
    const uint32_t version = upf__net_file_version(models, count);
    const size_t model_header = version >= 2 ? MODEL_HEADER_BYTES_V2 : MODEL_HEADER_BYTES_V1;
    memcpy(p, model_magic, sizeof model_magic);
    wr32(p + 8, version);
    wr32(p + 12, (uint32_t)count);
    size_t at = HEADER_BYTES;
    for (int m = 0; m < count; m++) {
        const upf__net_model *model = models[m];
        size_t prov_len = strlen(model->provenance);
        wr32(p + at, (uint32_t)model->step);
        wr32(p + at + 4, model->flags);
        p[at + 8] = UPF_NET_STAGES;
        p[at + 9] = UPF_NET_MATRICES;
        p[at + 10] = UPF_NET_DIM;
        p[at + 11] = UPF_NET_DIM;
        wr32(p + at + 12, (uint32_t)prov_len);
        if (version >= 2) {
            uint32_t u;
            memcpy(&u, &model->detail_strength, sizeof u);
            wr32(p + at + 16, u);
        }
        memcpy(p + at + model_header, model->provenance, prov_len);
        at += model_header + prov_len;
        for (int st = 0; st < UPF_NET_STAGES; st++)
            for (int mat = 0; mat < UPF_NET_MATRICES; mat++)
                for (int i = 0; i < UPF_NET_WINDOW; i++, at += 2)
                    wr16(p + at, upf_float_to_half(model->w[st][mat][i]));
    }
    wr32(p + at, upf__crc32(p, at));
    return UPF_OK;
}

/* ---- the public set ----------------------------------------------------------------------- */

static upf_models *load(upf_context *ctx, const char *fn, const void *data, size_t size)
{
    upf_models *set = upf__alloc(ctx, sizeof *set, "a model set");
    if (!set)
        return NULL;
    set->ctx = ctx;
    if (upf__net_parse(ctx, fn, data, size, set) != UPF_OK) {
        upf__free(ctx, set);
        return NULL;
    }
    upf__log(ctx, UPF_LOG_DEBUG, "%s: %d models from %zu bytes", fn, set->count, size);
    return set;
}

upf_models *upf_models_load(upf_context *ctx, const void *data, size_t size)
{
    static const char fn[] = "upf_models_load";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (!data) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: data is NULL", fn);
        return NULL;
    }
    if (size == 0) {
        upf__fail(ctx, UPF_ERROR_BAD_DATA, "%s: the model file is empty (0 bytes); expected "
                  "at least %d", fn, HEADER_BYTES + MODEL_HEADER_BYTES_V1 + WEIGHT_BYTES +
                  CHECKSUM_BYTES);
        return NULL;
    }
    return load(ctx, fn, data, size);
}

upf_models *upf_models_default(upf_context *ctx)
{
    static const char fn[] = "upf_models_default";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (upf__default_models_size == 0) {
        upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: this build has no built-in models (it was "
                  "built without models/default.upfm); load a model file instead", fn);
        return NULL;
    }
    return load(ctx, fn, upf__default_models_data, upf__default_models_size);
}

void upf__models_use(const upf_models *set)
{
    if (set)
        atomic_fetch_add(&((upf_models *)set)->users, 1);
}

void upf__models_release(const upf_models *set)
{
    if (set)
        atomic_fetch_sub(&((upf_models *)set)->users, 1);
}

void upf_models_destroy(upf_models **models)
{
    if (!models || !*models)
        return;
    int users = atomic_load(&(*models)->users);
    if (users > 0) {
        /* the engines read their model from the set: freeing it would leave them dangling */
        upf__fail((*models)->ctx, UPF_ERROR_INVALID_ARGUMENT, "upf_models_destroy: %d "
                  "engine%s made with this model set %s still alive; expected every engine "
                  "that uses it destroyed first. The set was NOT destroyed: destroy it again "
                  "after them", users, users == 1 ? "" : "s", users == 1 ? "is" : "are");
        return;
    }
    upf__free((*models)->ctx, *models);
    *models = NULL;
}

int upf_models_count(const upf_models *models)
{
    return models ? models->count : 0;
}

upf_result upf_models_info(const upf_models *models, int index, upf_model_info *info)
{
    if (!models)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(models->ctx);
    if (!info)
        return upf__fail(models->ctx, UPF_ERROR_INVALID_ARGUMENT, "upf_models_info: info is "
                         "NULL");
    if (index < 0 || index >= models->count)
        return upf__fail(models->ctx, UPF_ERROR_INVALID_ARGUMENT, "upf_models_info: index %d; "
                         "expected 0..%d (the set has %d models)", index, models->count - 1,
                         models->count);
    const upf__net_model *m = &models->model[index];
    info->step = m->step;
    info->ratio = 12.0 / m->step;
    info->flags = m->flags;
    info->provenance = m->provenance;
    info->detail_strength = m->detail_strength;
    return UPF_OK;
}

/* ---- model choice ---------------------------------------------------------------------- */

int upf__models_choose(const upf_models *set, int in_w, int in_h, int out_w, int out_h)
{
    /* Model ratio 12/s covers the asked ratio when 12/s >= out/in on both axes, i.e.
     * 12 * in >= s * out: compared in integers, so 1.2 and 3 are met exactly. Among those the
     * smallest ratio is the largest step; with none, the largest ratio is the smallest step. */
    int best = -1, largest = 0;
    for (int i = 0; i < set->count; i++) {
        long long s = set->model[i].step;
        if (set->model[i].step < set->model[largest].step)
            largest = i;
        if (12LL * in_w >= s * out_w && 12LL * in_h >= s * out_h &&
            (best < 0 || set->model[i].step > set->model[best].step))
            best = i;
    }
    return best >= 0 ? best : largest;
}
