/* sequence.c: the sequence reader of sequence.h: the folder's frame list, the JSON sidecar
 * (json.c) into a seq_sidecar, and one frame's images, each checked against the sidecar.
 * Reads: files through a seq_fs. Writes: seq_list, seq_sidecar, seq_frame, or a message. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sequence/json.h"
#include "sequence/sequence.h"

static upf_result fail(char *err, upf_result code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, IMAGEIO_ERR_SIZE, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---- the folder ---------------------------------------------------------------------------- */

static upf_result dir_list(void *priv, void (*add)(void *list, const char *name), void *list,
                           char *err)
{
    const char *dir = priv;
    DIR *d = opendir(dir);
    if (!d)
        return fail(err, UPF_ERROR_IO, "%s: cannot open the folder: %s", dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        add(list, e->d_name);
    closedir(d);
    return UPF_OK;
}

static upf_result dir_read(void *priv, const char *name, size_t max, void **data, size_t *size,
                           bool *missing, char *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", (const char *)priv, name);
    struct stat st;
    *missing = stat(path, &st) != 0 && errno == ENOENT;
    if (*missing)
        return fail(err, UPF_ERROR_IO, "%s: no such file", path);
    /* a FIFO in a folder is never opened: that would wait for a writer, forever */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return fail(err, UPF_ERROR_BAD_DATA, "%s is not a regular file (%s); expected a file in "
                    "a sequence folder", path, S_ISFIFO(st.st_mode) ? "a FIFO"
                                                : S_ISDIR(st.st_mode) ? "a folder" : "a device");
    return imageio_slurp(path, max, data, size, err);
}

seq_fs seq_fs_dir(const char *dir)
{
    seq_fs fs = { (void *)dir, dir_list, dir_read, dir };
    return fs;
}

/* ---- the frame list ----------------------------------------------------------------------- */

typedef struct scan_state {
    seq_list *list;
    int cap;
    bool oom, too_many;
} scan_state;

static void scan_add(void *priv, const char *name)
{
    scan_state *st = priv;
    size_t n = strlen(name), digits = 0;
    while (digits < n && name[digits] >= '0' && name[digits] <= '9')
        digits++;
    if (digits < 4 || digits > 9 || strcmp(name + digits, ".json") != 0)
        return;
    seq_list *l = st->list;
    if (l->count >= SEQ_MAX_FRAMES) {
        st->too_many = true;
        return;
    }
    if (l->count == st->cap) {
        int cap = st->cap ? 2 * st->cap : 64;
        long *num = realloc(l->number, (size_t)cap * sizeof *num);
        if (num)
            l->number = num;
        char(*stem)[16] = realloc(l->stem, (size_t)cap * sizeof *stem);
        if (stem)
            l->stem = stem;
        if (!num || !stem) {
            st->oom = true;
            return;
        }
        st->cap = cap;
    }
    memcpy(l->stem[l->count], name, digits);
    l->stem[l->count][digits] = '\0';
    l->number[l->count] = strtol(l->stem[l->count], NULL, 10);
    l->count++;
}

upf_result seq_scan(const seq_fs *fs, seq_list *list, char *err)
{
    memset(list, 0, sizeof *list);
    scan_state st = { list, 0, false, false };
    upf_result r = fs->list(fs->priv, scan_add, &st, err);
    if (r == UPF_OK && st.oom)
        r = fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory listing the frames", fs->label);
    if (r == UPF_OK && st.too_many)
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: more than %d frames; expected at most %d",
                 fs->label, SEQ_MAX_FRAMES, SEQ_MAX_FRAMES);
    if (r == UPF_OK && list->count == 0)
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: no frames (NNNN.json sidecars, four or more "
                 "digits); expected the layout of docs/TEMPORAL.md", fs->label);
    /* sort by number (insertion sort keeps it simple and stable; lists are short) */
    for (int i = 1; r == UPF_OK && i < list->count; i++) {
        long n = list->number[i];
        char s[16];
        memcpy(s, list->stem[i], sizeof s);
        int j = i - 1;
        for (; j >= 0 && list->number[j] > n; j--) {
            list->number[j + 1] = list->number[j];
            memcpy(list->stem[j + 1], list->stem[j], sizeof s);
        }
        list->number[j + 1] = n;
        memcpy(list->stem[j + 1], s, sizeof s);
    }
    for (int i = 1; r == UPF_OK && i < list->count; i++)
        if (list->number[i] == list->number[i - 1])
            r = fail(err, UPF_ERROR_BAD_DATA, "%s: frame %ld twice (%s.json and %s.json); "
                     "expected one sidecar per frame", fs->label, list->number[i],
                     list->stem[i - 1], list->stem[i]);
    if (r != UPF_OK)
        seq_list_free(list);
    return r;
}

void seq_list_free(seq_list *list)
{
    free(list->number);
    free(list->stem);
    memset(list, 0, sizeof *list);
}

/* ---- the sidecar -------------------------------------------------------------------------- */

typedef struct side_parse {
    const json_doc *doc;
    const char *name;
    char *err;
} side_parse;

static upf_result type_error(const side_parse *sp, const char *key, int v, const char *expected)
{
    return fail(sp->err, UPF_ERROR_BAD_DATA, "%s: \"%s\" is %s; expected %s", sp->name, key,
                json_type_name(sp->doc->v[v].type), expected);
}

/* An optional number: *found false when absent. */
static upf_result get_number(const side_parse *sp, const char *key, double lo, double hi,
                             const char *expected, double *out, bool *found)
{
    int v = json_get(sp->doc, 0, key);
    *found = v >= 0;
    if (v < 0)
        return UPF_OK;
    if (sp->doc->v[v].type != JSON_NUMBER)
        return type_error(sp, key, v, expected);
    double x = sp->doc->v[v].number;
    if (!(x >= lo && x <= hi))
        return fail(sp->err, UPF_ERROR_BAD_DATA, "%s: \"%s\" is %g; expected %s", sp->name, key,
                    x, expected);
    *out = x;
    return UPF_OK;
}

static upf_result get_bool(const side_parse *sp, const char *key, bool *out)
{
    int v = json_get(sp->doc, 0, key);
    if (v < 0)
        return UPF_OK;
    json_type t = sp->doc->v[v].type;
    if (t != JSON_TRUE && t != JSON_FALSE)
        return type_error(sp, key, v, "true or false");
    *out = *out || t == JSON_TRUE;
    return UPF_OK;
}

/* An optional string among `choices` (NULL-terminated): *index -1 when absent. */
static upf_result get_choice(const side_parse *sp, const char *key, const char *const *choices,
                             const char *expected, int *index)
{
    *index = -1;
    int v = json_get(sp->doc, 0, key);
    if (v < 0)
        return UPF_OK;
    if (sp->doc->v[v].type != JSON_STRING)
        return type_error(sp, key, v, expected);
    for (int i = 0; choices[i]; i++)
        if (strcmp(sp->doc->v[v].string, choices[i]) == 0) {
            *index = i;
            return UPF_OK;
        }
    return fail(sp->err, UPF_ERROR_BAD_DATA, "%s: \"%s\" is \"%.40s\"; expected %s", sp->name,
                key, sp->doc->v[v].string, expected);
}

/* An optional array of n finite numbers. */
static upf_result get_array(const side_parse *sp, const char *key, int n, double *out,
                            bool *found)
{
    int v = json_get(sp->doc, 0, key);
    *found = v >= 0;
    if (v < 0)
        return UPF_OK;
    char expected[64];
    snprintf(expected, sizeof expected, "an array of %d numbers", n);
    if (sp->doc->v[v].type != JSON_ARRAY || sp->doc->v[v].count != n)
        return fail(sp->err, UPF_ERROR_BAD_DATA, "%s: \"%s\" is %s of %d; expected %s", sp->name,
                    key, json_type_name(sp->doc->v[v].type), sp->doc->v[v].count, expected);
    for (int i = 0; i < n; i++) {
        int e = json_at(sp->doc, v, i);
        if (sp->doc->v[e].type != JSON_NUMBER)
            return fail(sp->err, UPF_ERROR_BAD_DATA, "%s: \"%s\"[%d] is %s; expected a number",
                        sp->name, key, i, json_type_name(sp->doc->v[e].type));
        out[i] = sp->doc->v[e].number;
    }
    return UPF_OK;
}

void seq_mat4_mul(const double *a, const double *b, double *o)
{
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            double v = 0.0;
            for (int k = 0; k < 4; k++)
                v += a[4 * r + k] * b[4 * k + c];
            o[4 * r + c] = v;
        }
}

upf_result seq_parse_sidecar(const char *text, size_t size, const char *name, seq_sidecar *out,
                             char *err)
{
    memset(out, 0, sizeof *out);
    out->motion_scale_x = out->motion_scale_y = 1.0;
    if (size > SEQ_MAX_SIDECAR)
        return fail(err, UPF_ERROR_BAD_DATA, "%s: %zu bytes; expected a sidecar of at most %d",
                    name, size, SEQ_MAX_SIDECAR);
    json_doc *doc = malloc(sizeof *doc);
    if (!doc)
        return fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    char jerr[200];
    upf_result r = UPF_OK;
    if (!json_parse(text, size, doc, jerr, sizeof jerr))
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: not JSON: %s", name, jerr);
    else if (doc->v[0].type != JSON_OBJECT)
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: the top value is %s; expected an object", name,
                 json_type_name(doc->v[0].type));
    side_parse sp = { doc, name, err };
    double v = 0;
    bool found = false, f2 = false;
#define TRY(call)                                                                             \
    do {                                                                                      \
        if (r == UPF_OK)                                                                      \
            r = (call);                                                                       \
    } while (0)
    TRY(get_number(&sp, "width", 1, UPF_MAX_IMAGE_DIMENSION, "an integer 1..16384", &v, &found));
    if (r == UPF_OK && (!found || v != floor(v)))
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: \"width\" %s; expected an integer 1..16384", name,
                 found ? "is not whole" : "is missing");
    out->width = (int)v;
    TRY(get_number(&sp, "height", 1, UPF_MAX_IMAGE_DIMENSION, "an integer 1..16384", &v, &found));
    if (r == UPF_OK && (!found || v != floor(v)))
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: \"height\" %s; expected an integer 1..16384", name,
                 found ? "is not whole" : "is missing");
    out->height = (int)v;
    double j[2] = { 0, 0 };
    TRY(get_array(&sp, "jitter", 2, j, &found));
    if (r == UPF_OK && !(fabs(j[0]) <= 1.0 && fabs(j[1]) <= 1.0))
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: \"jitter\" is [%g, %g]; expected render pixels in "
                 "-1..1", name, j[0], j[1]);
    out->jitter_x = j[0], out->jitter_y = j[1];

    /* the camera: near, far (null: infinite), fov_y, depth */
    static const char *const depths[] = { "forward", "reversed", NULL };
    static const char *const clips[] = { "zero_to_one", "minus_one_to_one", NULL };
    int depth = -1, clip = -1;
    bool has_near = false, has_fov = false, inf = false;
    TRY(get_number(&sp, "near", 1e-30, 1e30, "a positive distance", &out->camera.near_plane,
                   &has_near));
    TRY(get_number(&sp, "fov_y", 1e-9, 3.14159265358979, "radians in (0, pi)",
                   &out->camera.fov_y, &has_fov));
    TRY(get_choice(&sp, "depth", depths, "\"forward\" or \"reversed\"", &depth));
    TRY(get_choice(&sp, "clip_depth", clips, "\"zero_to_one\" or \"minus_one_to_one\"", &clip));
    TRY(get_bool(&sp, "depth_far_infinite", &inf));
    int far_v = json_get(doc, 0, "far");
    if (r == UPF_OK && far_v >= 0 && doc->v[far_v].type == JSON_NULL)
        inf = true;
    else
        TRY(get_number(&sp, "far", 1e-30, 1e30, "a distance beyond near, or null (infinite)",
                       &out->camera.far_plane, &found));
    if (r == UPF_OK && (has_near || has_fov || depth >= 0)) {
        if (!has_near || !has_fov || depth < 0)
            r = fail(err, UPF_ERROR_BAD_DATA, "%s: a camera needs \"near\", \"fov_y\" and "
                     "\"depth\" together (missing \"%s\")", name,
                     !has_near ? "near" : !has_fov ? "fov_y" : "depth");
        else if (!inf && !(out->camera.far_plane > out->camera.near_plane))
            r = fail(err, UPF_ERROR_BAD_DATA, "%s: \"far\" %g with \"near\" %g; expected far "
                     "beyond near, or null for an infinite far plane", name,
                     out->camera.far_plane, out->camera.near_plane);
        out->has_camera = true;
        out->camera.depth_reversed = depth == 1;
        out->camera.far_infinite = inf;
    }
    out->clip_depth = clip == 1 ? UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE : UPF_CLIP_DEPTH_ZERO_TO_ONE;

    /* the matrices */
    double view[16], prev_view[16], prev_proj[16];
    bool has_view = false, has_prev_view = false, has_prev_proj = false, vp = false, pvp = false;
    TRY(get_array(&sp, "projection", 16, out->projection, &out->has_projection));
    TRY(get_array(&sp, "view", 16, view, &has_view));
    TRY(get_array(&sp, "prev_view", 16, prev_view, &has_prev_view));
    TRY(get_array(&sp, "prev_projection", 16, prev_proj, &has_prev_proj));
    TRY(get_array(&sp, "view_projection", 16, out->view_projection, &vp));
    TRY(get_array(&sp, "prev_view_projection", 16, out->prev_view_projection, &pvp));
    if (r == UPF_OK && vp != pvp)
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: \"%s\" without \"%s\"; expected both", name,
                 vp ? "view_projection" : "prev_view_projection",
                 vp ? "prev_view_projection" : "view_projection");
    if (r == UPF_OK && vp) {
        out->has_matrices = true;
    } else if (r == UPF_OK && has_view && has_prev_view && has_prev_proj && out->has_projection) {
        seq_mat4_mul(out->projection, view, out->view_projection);
        seq_mat4_mul(prev_proj, prev_view, out->prev_view_projection);
        out->has_matrices = true;
    }
    if (r == UPF_OK && !out->has_camera && !out->has_projection)
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: no camera; expected \"projection\", or \"near\", "
                 "\"far\", \"fov_y\" and \"depth\"", name);

    /* the rest */
    TRY(get_bool(&sp, "cut", &out->reset));
    TRY(get_bool(&sp, "reset", &out->reset));
    TRY(get_number(&sp, "frame_time_ms", 1e-6, 1e7, "milliseconds, more than 0",
                   &out->frame_time_ms, &found));
    TRY(get_number(&sp, "fps", 1e-6, 1e7, "frames a second, more than 0", &v, &f2));
    if (r == UPF_OK && !found && f2)
        out->frame_time_ms = 1000.0 / v;
    TRY(get_number(&sp, "jitter_phases", 0, 1 << 20, "a phase count 0..1048576", &v, &found));
    if (r == UPF_OK && found)
        out->jitter_phases = (int)v;
    static const char *const units[] = { "pixels", "uv", NULL };
    static const char *const encodings[] = { "linear", "srgb", "sqrt", NULL };
    int u = -1, e = -1;
    TRY(get_choice(&sp, "motion_units", units, "\"pixels\" or \"uv\"", &u));
    out->motion_uv = u == 1;
    double ms[2] = { 1, 1 };
    TRY(get_array(&sp, "motion_scale", 2, ms, &found));
    if (r == UPF_OK && !(fabs(ms[0]) > 0 && fabs(ms[0]) < 1e7 && fabs(ms[1]) > 0 &&
                         fabs(ms[1]) < 1e7))
        r = fail(err, UPF_ERROR_BAD_DATA, "%s: \"motion_scale\" is [%g, %g]; expected non-zero "
                 "factors of magnitude below 1e7", name, ms[0], ms[1]);
    out->motion_scale_x = ms[0], out->motion_scale_y = ms[1];
    TRY(get_choice(&sp, "color_encoding", encodings, "\"linear\", \"srgb\" or \"sqrt\"", &e));
    out->color_encoding = e < 0 ? 0 : e;
    TRY(get_number(&sp, "exposure", 1e-30, 1e30, "a positive factor", &out->exposure, &found));
    TRY(get_number(&sp, "pre_exposure", 1e-30, 1e30, "a positive factor", &out->pre_exposure,
                   &found));
#undef TRY
    free(doc);
    return r;
}

/* ---- one frame ---------------------------------------------------------------------------- */

static upf_result read_file(const seq_fs *fs, const char *name, size_t max, void **data,
                            size_t *size, bool *missing, char *err)
{
    *data = NULL;
    return fs->read(fs->priv, name, max, data, size, missing, err);
}

static upf_result read_image(const seq_fs *fs, const char *name, const imageio_limits *limits,
                             imageio_image *img, bool *missing, char *err)
{
    void *data;
    size_t size;
    char full[SEQ_NAME_MAX + 4096];
    snprintf(full, sizeof full, "%s/%s", fs->label, name);
    upf_result r = read_file(fs, name, (size_t)1 << 31, &data, &size, missing, err);
    if (r == UPF_OK)
        r = imageio_read_mem(data, size, full, limits, img, err);
    free(data);
    return r;
}

static upf_result check_size(const imageio_image *img, const seq_frame *f, const char *label,
                             const char *name, char *err)
{
    if (img->img.width != f->side.width || img->img.height != f->side.height)
        return fail(err, UPF_ERROR_BAD_DATA, "%s/%s is %dx%d; expected %dx%d as its sidecar "
                    "says", label, name, img->img.width, img->img.height, f->side.width,
                    f->side.height);
    return UPF_OK;
}

upf_result seq_read_frame(const seq_fs *fs, const seq_list *list, int index,
                          const imageio_limits *limits, seq_frame *f, char *err)
{
    memset(f, 0, sizeof *f);
    if (index < 0 || index >= list->count)
        return fail(err, UPF_ERROR_INTERNAL, "frame index %d of %d", index, list->count);
    const char *stem = list->stem[index];
    f->number = list->number[index];
    char name[SEQ_NAME_MAX], full[SEQ_NAME_MAX + 4096];
    bool missing;
    void *text;
    size_t size;
    snprintf(name, sizeof name, "%s.json", stem);
    snprintf(full, sizeof full, "%s/%s", fs->label, name);
    upf_result r = read_file(fs, name, SEQ_MAX_SIDECAR + 1, &text, &size, &missing, err);
    if (r == UPF_OK)
        r = seq_parse_sidecar(text, size, full, &f->side, err);
    free(text);
    /* colour: the PFM, else the PNG */
    if (r == UPF_OK) {
        snprintf(name, sizeof name, "%s.color.pfm", stem);
        r = read_image(fs, name, limits, &f->color, &missing, err);
        if (r != UPF_OK && missing) {
            snprintf(name, sizeof name, "%s.color.png", stem);
            r = read_image(fs, name, limits, &f->color, &missing, err);
            if (r != UPF_OK && missing)
                r = fail(err, UPF_ERROR_BAD_DATA, "%s/%s.color.pfm (or .png) is missing; "
                         "expected the frame's colour", fs->label, stem);
        }
        if (r == UPF_OK && f->color.img.format == UPF_FORMAT_R32F)
            r = fail(err, UPF_ERROR_BAD_DATA, "%s/%s is a grey PFM; expected colour", fs->label,
                     name);
        if (r == UPF_OK)
            r = check_size(&f->color, f, fs->label, name, err);
    }
    if (r == UPF_OK) {
        snprintf(name, sizeof name, "%s.depth.pfm", stem);
        r = read_image(fs, name, limits, &f->depth, &missing, err);
        if (r != UPF_OK && missing)
            r = fail(err, UPF_ERROR_BAD_DATA, "%s/%s is missing; expected the frame's depth",
                     fs->label, name);
        if (r == UPF_OK && f->depth.img.format != UPF_FORMAT_R32F)
            r = fail(err, UPF_ERROR_BAD_DATA, "%s/%s is not a grey PFM (\"Pf\"); expected one "
                     "depth value a pixel", fs->label, name);
        if (r == UPF_OK)
            r = check_size(&f->depth, f, fs->label, name, err);
    }
    if (r == UPF_OK) {
        snprintf(name, sizeof name, "%s.motion.pfm", stem);
        imageio_image rgb = { 0 };
        r = read_image(fs, name, limits, &rgb, &missing, err);
        if (r != UPF_OK && missing) {
            r = UPF_OK; /* optional: the caller derives camera motion or refuses */
        } else if (r == UPF_OK) {
            if (rgb.img.format != UPF_FORMAT_RGBA32F)
                r = fail(err, UPF_ERROR_BAD_DATA, "%s/%s is a grey PFM; expected colour (\"PF\") "
                         "with the motion in R and G", fs->label, name);
            if (r == UPF_OK)
                r = check_size(&rgb, f, fs->label, name, err);
            if (r == UPF_OK)
                r = imageio_alloc(&f->motion, rgb.img.width, rgb.img.height, UPF_FORMAT_RG32F,
                                  err);
            if (r == UPF_OK) {
                const float *s = rgb.img.data;
                float *d = f->motion.img.data;
                for (size_t i = 0; i < (size_t)rgb.img.width * rgb.img.height; i++)
                    d[2 * i] = s[4 * i], d[2 * i + 1] = s[4 * i + 1];
                f->has_motion = true;
            }
        }
        imageio_free(&rgb);
    }
    if (r != UPF_OK)
        seq_frame_free(f);
    return r;
}

void seq_frame_free(seq_frame *f)
{
    imageio_free(&f->color);
    imageio_free(&f->depth);
    imageio_free(&f->motion);
}
