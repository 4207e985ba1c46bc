/* cmd_interpolate.c: `upframe interpolate`: frames between two images, or a sequence made N
 * times as long, with the frame generation engine (docs/FRAMEGEN.md). Reads two images (and
 * optionally B's motion and depth and the HUD layers), a sequence folder in the layout
 * `upframe render` writes (tools/sequence), or a folder of numbered PNGs; writes PNGs (or one
 * PFM) atomically, every file on the undo list. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "framegen_backend.h"
#include "common/engine_memory.h"
#include "outset.h"
#include "sequence/sequence.h"

static const char interpolate_help[] =
    "usage: upframe interpolate A B -o OUT.png [--phase T]\n"
    "       upframe interpolate A B -o OUT_DIR --factor N\n"
    "       upframe interpolate IN_DIR -o OUT_DIR --factor N [--no-motion]\n"
    "               [--motion-b FILE --depth-a FILE --depth-b FILE] [--hud-a/--hud-b FILE]\n"
    "               [--backend cpu|vulkan]\n"
    "\n"
    "Makes frames between frames with the frame generation engine. A and B are images (PNG,\n"
    "JPEG, PFM) of one size, B the later; with no motion given the motion comes from optical\n"
    "flow on the two images.\n"
    "  A B -o OUT.png        the frame at phase T (--phase, default 0.5) into a .png or .pfm\n"
    "  A B -o OUT_DIR        with --factor N: the N-1 frames at phases k/N, OUT_DIR/0001.png\n"
    "                        .. (made if missing)\n"
    "  IN_DIR -o OUT_DIR     a sequence N times as long: OUT_DIR/NNNN.png, the input frames at\n"
    "                        every N-th number and the made frames between. IN_DIR is either\n"
    "                        what `upframe render` writes (NNNN.json, NNNN.color.pfm/.png,\n"
    "                        NNNN.depth.pfm, NNNN.motion.pfm, NNNN.hud.png: its motion, depth\n"
    "                        and HUD layer are used) or any folder of numbered pictures\n"
    "                        (PNG, JPEG, PFM; the number: the last run of digits in the\n"
    "                        name, shot_0007_final.png); the numbers must not have gaps;\n"
    "                        input frame n is output frame n x N. A sidecar with \"cut\" or\n"
    "                        \"reset\" true gives the blend.\n"
    "\n"
    "  --phase T         0 < T < 1, the phase between A (0) and B (1); default 0.5\n"
    "  --factor N        2..8: N-1 frames between each pair, phases k/N\n"
    "  --motion-b FILE   B's motion vectors (a colour PFM, R and G: where each pixel of B was\n"
    "                    in A, minus where it is, in pixels, y down); needs --depth-b\n"
    "  --depth-b FILE    B's depth (a grey PFM): the nearer surface wins where two meet\n"
    "  --depth-a FILE    A's depth: checked (size, values) but not needed\n"
    "  --depth-reversed  depth is 1 at the near plane. Default: what the sidecar beside\n"
    "                    --depth-b says (NNNN.json for NNNN.depth.pfm, as render writes),\n"
    "                    else 0 at the near plane, with a warning when it looks reversed\n"
    "  --hud-a FILE, --hud-b FILE  the HUD layers (RGBA, straight alpha) of A and B: A and B\n"
    "                    are then without the HUD, which is composited unwarped (A's below\n"
    "                    phase 0.5, B's from 0.5) over the made frames (and over A and B in a\n"
    "                    sequence)\n"
    "  --no-motion       in a render sequence, ignore its motion and depth: optical flow\n"
    "                    (without it, a frame missing its motion file gets the blend, a\n"
    "                    frame missing its HUD layer keeps the one before: notes say so)\n"
    "  --blend           the plain blend (1 - T) A + T B, no motion (the baseline)\n"
    "  --flow R          the optical flow's resolution: full (the frame's), half (the\n"
    "                    half-size frame's, its vectors doubled: a quarter of the finest\n"
    "                    level's work) or auto (the default: half above 1280x720)\n"
    "  --backend B       cpu (the default) or vulkan: the engine on the GPU (managed mode;\n"
    "                    UPF_VK_DEVICE=N picks the device, else the first discrete GPU);\n"
    "                    the JSON's pass times are then GPU timestamps\n"
    "  --threads N       worker threads (default 0: one per CPU); output is identical\n"
    "  --max-pixels N    the largest image read or made (default 2^27 pixels)\n"
    "  --max-memory N    the bytes the run may take, engine and pictures, checked before\n"
    "                    they are taken (N, or N with K, M, G, T; default 8G)\n"
    "  --json            a JSON summary on stdout (frames, methods, time, ms per pass)\n"
    "  -q, --quiet       no progress, notes, warnings or summary: only errors\n"
    "  -o, --output PATH the file or folder\n"
    "\n"
    "Without motion vectors a cut between two frames is detected and the blend made instead;\n"
    "the tool says so (a note), as it does for a reset.\n"
    "OUT_DIR must not be IN_DIR, nor hold A or B under an output's name. A failed or\n"
    "interrupted run removes the files it created (and a folder it made), never one that was\n"
    "there before; a file is replaced only once its new content is complete; a symbolic link\n"
    "where an output goes is refused; older frames the run does not write draw a note.\n"
    "Exit codes: 0 ok, 1 usage, 2 bad input (a missing or malformed file, sizes that do not\n"
    "match, gaps in a folder's numbering, an unwritable output), 3 internal error.\n";

#define CMD "interpolate"

/* Output file `index` of the set: OUT_DIR/NNNN.png, planned in number order from `first`. */
static int write_png(cli_outset *set, long first, long number, const upf_image *img)
{
    return cli_outset_write_png(CMD, set, number - first, img);
}

/* ---- inputs --------------------------------------------------------------------------- */

typedef struct frame_in {
    imageio_image color, hud, motion, depth;
    bool has_hud, has_motion, has_depth;
    bool reset;
    long number;
    bool reversed;
    double scale_x, scale_y;
    bool uv;
    unsigned flow;      /* the engine's flow flags (--flow: UPF_INTERPOLATE_FLOW_FULL, _HALF) */
} frame_in;

static void frame_free(frame_in *f)
{
    imageio_free(&f->color);
    imageio_free(&f->hud);
    imageio_free(&f->motion);
    imageio_free(&f->depth);
    memset(f, 0, sizeof *f);
}

static int read_motion(const char *path, const cli_common *c, imageio_image *out)
{
    imageio_image rgb = { 0 };
    int rc = cli_read_image(CMD, path, c, &rgb);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (rgb.img.format != UPF_FORMAT_RGBA32F || rgb.type != IMAGEIO_PFM) {
        imageio_free(&rgb);
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: not a colour PFM; expected the motion "
                        "vectors in R and G", path);
    }
    char err[IMAGEIO_ERR_SIZE];
    upf_result r = imageio_alloc(out, rgb.img.width, rgb.img.height, UPF_FORMAT_RG32F, err);
    if (r == UPF_OK) {
        const float *s = rgb.img.data;
        float *d = out->img.data;
        for (size_t i = 0; i < (size_t)rgb.img.width * rgb.img.height; i++)
            d[2 * i] = s[4 * i], d[2 * i + 1] = s[4 * i + 1];
    }
    imageio_free(&rgb);
    return r == UPF_OK ? CLI_EXIT_OK : cli_fail(CMD, cli_exit_code(r), "%s", err);
}

static int read_depth(const char *path, const cli_common *c, imageio_image *out)
{
    int rc = cli_read_image(CMD, path, c, out);
    if (rc == CLI_EXIT_OK && out->img.format != UPF_FORMAT_R32F) {
        imageio_free(out);
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: not a grey PFM (\"Pf\"); expected one "
                        "depth value a pixel", path);
    }
    return rc;
}

static int same_size(const char *what, const char *path, const upf_image *img, int w, int h)
{
    if (img->width == w && img->height == h)
        return CLI_EXIT_OK;
    return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s %s is %dx%d; expected %dx%d like the frames",
                    what, path, img->width, img->height, w, h);
}

/* A folder's frames: a render sequence (sidecars), or numbered PNGs. */
typedef struct folder {
    bool render;
    seq_fs fs;
    seq_list list;
    char **png;   /* numbered PNGs: paths in number order */
    long *number;
    int count;
} folder;

static void folder_free(folder *f)
{
    for (int i = 0; f->png && i < f->count; i++)
        free(f->png[i]);
    free(f->png);
    if (!f->render)
        free(f->number);
    seq_list_free(&f->list);
}

/* The frame number of a file name: its last run of digits before the extension
 * (shot_0007.png, shot_0007_final.png). Returns the run's length (0: none); *n is set when
 * it has at most 9 digits. */
static int last_number(const char *name, long *n)
{
    const char *dot = strrchr(name, '.');
    const char *end = dot ? dot : name + strlen(name);
    while (end > name && !isdigit((unsigned char)end[-1]))
        end--;
    const char *p = end;
    while (p > name && isdigit((unsigned char)p[-1]))
        p--;
    if (end - p >= 1 && end - p <= 9)
        *n = strtol(p, NULL, 10);
    return (int)(end - p);
}

/* The pictures a numbered folder takes: PNG, JPEG, PFM (read by content). */
static bool is_picture_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return name[0] != '.' && dot && (strcasecmp(dot, ".png") == 0 ||
                                     strcasecmp(dot, ".jpg") == 0 ||
                                     strcasecmp(dot, ".jpeg") == 0 ||
                                     strcasecmp(dot, ".pfm") == 0);
}

typedef struct png_entry {
    long number;
    char *path;
} png_entry;

static int cmp_entry(const void *a, const void *b)
{
    const png_entry *x = a, *y = b;
    return x->number < y->number ? -1 : x->number > y->number;
}

static int scan_pngs(const char *dir, folder *f)
{
    DIR *d = opendir(dir);
    if (!d)
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: cannot open the folder", dir);
    png_entry *e = NULL;
    int n = 0, cap = 0, rc = CLI_EXIT_OK;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (!is_picture_name(de->d_name))
            continue;
        long num = 0;
        int digits = last_number(de->d_name, &num);
        if (digits == 0 || digits > 9) {
            rc = digits ? cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s/%s: the frame number has %d "
                                   "digits; expected at most 9", dir, de->d_name, digits)
                        : cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s/%s: no frame number in the "
                                   "name; expected numbered pictures (frame0001.png, "
                                   "shot_0002_final.png, 0003.jpg, ...)", dir, de->d_name);
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            png_entry *t = realloc(e, (size_t)cap * sizeof *e);
            if (!t) {
                rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
                break;
            }
            e = t;
        }
        size_t plen = strlen(dir) + len + 2;
        e[n].path = malloc(plen);
        if (!e[n].path) {
            rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
            break;
        }
        snprintf(e[n].path, plen, "%s/%s", dir, de->d_name);
        e[n].number = num;
        n++;
        struct stat st; /* a FIFO is never opened: it would wait for a writer */
        if (stat(e[n - 1].path, &st) != 0 || !S_ISREG(st.st_mode)) {
            rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s is not a regular file; expected a "
                          "picture", e[n - 1].path);
            break;
        }
    }
    closedir(d);
    if (rc == CLI_EXIT_OK && n < 2)
        rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: %d numbered PNG%s and no sequence "
                      "sidecars (NNNN.json); expected at least two frames", dir, n,
                      n == 1 ? "" : "s");
    if (rc == CLI_EXIT_OK) {
        qsort(e, (size_t)n, sizeof *e, cmp_entry);
        for (int i = 1; i < n && rc == CLI_EXIT_OK; i++) {
            if (e[i].number == e[i - 1].number)
                rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s and %s have the same frame number "
                              "%ld; expected one file a frame", e[i - 1].path, e[i].path,
                              e[i].number);
            else if (e[i].number != e[i - 1].number + 1)
                rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: the numbering jumps from %ld (%s) "
                              "to %ld (%s): frame %ld is missing; expected consecutive frames "
                              "(a frame is never made against a stale one)", dir,
                              e[i - 1].number, e[i - 1].path, e[i].number, e[i].path,
                              e[i - 1].number + 1);
        }
    }
    if (rc == CLI_EXIT_OK) {
        f->png = calloc((size_t)n, sizeof *f->png);
        f->number = calloc((size_t)n, sizeof *f->number);
        if (!f->png || !f->number)
            rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (rc == CLI_EXIT_OK) {
            f->png[i] = e[i].path;
            f->number[i] = e[i].number;
        } else {
            free(e[i].path);
        }
    }
    if (rc == CLI_EXIT_OK)
        f->count = n;
    free(e);
    return rc;
}

static int open_folder(const char *dir, folder *f)
{
    memset(f, 0, sizeof *f);
    char err[IMAGEIO_ERR_SIZE];
    f->fs = seq_fs_dir(dir);
    upf_result r = seq_scan(&f->fs, &f->list, err);
    if (r == UPF_OK && f->list.count > 0) {
        f->render = true;
        f->count = f->list.count;
        f->number = f->list.number;
        if (f->count < 2)
            return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: one frame; expected at least two",
                            dir);
        for (int i = 1; i < f->count; i++)
            if (f->number[i] != f->number[i - 1] + 1)
                return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: the numbering jumps from %s to "
                                "%s: frame %ld is missing; expected consecutive frames (a "
                                "frame is never made against a stale one)", dir,
                                f->list.stem[i - 1], f->list.stem[i], f->number[i - 1] + 1);
        return CLI_EXIT_OK;
    }
    if (r == UPF_OK)
        seq_list_free(&f->list);
    else if (!strstr(err, "no frames") && !strstr(err, "no sidecar"))
        return cli_fail(CMD, cli_exit_code(r), "%s", err);
    memset(&f->list, 0, sizeof f->list);
    return scan_pngs(dir, f);
}

static int read_folder_frame(const char *dir, folder *fo, int k, const cli_common *c,
                             bool no_motion, frame_in *f)
{
    memset(f, 0, sizeof *f);
    f->number = fo->number[k];
    f->scale_x = f->scale_y = 1.0;
    if (!fo->render)
        return cli_read_image(CMD, fo->png[k], c, &f->color);
    char err[IMAGEIO_ERR_SIZE];
    const imageio_limits limits = { 0, 0, cli_max_pixels(c) };
    seq_frame sf;
    upf_result r = seq_read_frame(&fo->fs, &fo->list, k, &limits, &sf, err);
    if (r != UPF_OK)
        return cli_fail(CMD, cli_exit_code(r), "%s", err);
    f->color = sf.color;
    f->reset = sf.side.reset;
    f->reversed = sf.side.has_camera ? sf.side.camera.depth_reversed != 0
                  : sf.side.has_projection ? false : true;
    if (sf.side.has_projection) {
        upf_camera cam;
        if (upf_camera_from_projection(NULL, sf.side.projection, sf.side.clip_depth, &cam) ==
            UPF_OK)
            f->reversed = cam.depth_reversed != 0;
    }
    f->uv = sf.side.motion_uv;
    f->scale_x = sf.side.motion_scale_x;
    f->scale_y = sf.side.motion_scale_y;
    if (!no_motion) { /* the depth kept without motion: the caller decides (item 8) */
        f->motion = sf.motion;
        f->depth = sf.depth;
        f->has_motion = sf.has_motion;
        f->has_depth = true;
    } else {
        imageio_free(&sf.motion);
        imageio_free(&sf.depth);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.hud.png", dir, fo->list.stem[k]);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) /* a FIFO is not opened: no writer */
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s is not a regular file; expected the HUD "
                        "layer's PNG", path);
    if (access(path, F_OK) == 0) {
        int rc = cli_read_image(CMD, path, c, &f->hud);
        if (rc != CLI_EXIT_OK)
            return rc;
        f->has_hud = true;
        rc = same_size("HUD layer", path, &f->hud.img, f->color.img.width, f->color.img.height);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    return CLI_EXIT_OK;
}

/* A render folder's layers kept consistent (issue 35 item 8). Frame 0 says what the folder
 * has: with motion files, a frame without one gets the blend for its pair (its depth alone
 * makes the engine fall back, with a note) rather than optical flow; without them, every pair
 * uses flow (the depth dropped). With HUD layers, a frame without one keeps the frame
 * before's, so the HUD does not flicker. */
static int layers_as_folder(const char *dir, const folder *fo, int k, const frame_in *a,
                            frame_in *b, bool *folder_motion, bool *folder_hud)
{
    if (!fo->render)
        return CLI_EXIT_OK;
    if (k == 0) {
        *folder_motion = b->has_motion;
        *folder_hud = b->has_hud;
    }
    if (!*folder_motion && b->has_depth) {
        imageio_free(&b->motion);
        imageio_free(&b->depth);
        b->has_motion = b->has_depth = false;
    } else if (k > 0 && b->has_depth && !b->has_motion) {
        cli_note(CMD, "%s/%s.motion.pfm is missing: frames %ld and %ld get the blend", dir,
                 fo->list.stem[k], a->number, b->number);
    }
    if (k > 0 && *folder_hud && !b->has_hud && a->has_hud) {
        char err[IMAGEIO_ERR_SIZE];
        if (imageio_alloc(&b->hud, a->hud.img.width, a->hud.img.height, a->hud.img.format,
                          err) != UPF_OK)
            return cli_fail(CMD, CLI_EXIT_INTERNAL, "%s", err);
        memcpy(b->hud.img.data, a->hud.img.data, (size_t)a->hud.img.width *
               a->hud.img.height * upf_format_bytes_per_pixel(a->hud.img.format));
        b->has_hud = true;
        cli_note(CMD, "%s/%s.hud.png is missing: frame %ld keeps the HUD layer of frame %ld", dir,
                 fo->list.stem[k], b->number, a->number);
    }
    return CLI_EXIT_OK;
}

/* --depth-b's convention (issue 35 item 7): the sidecar beside it (NNNN.depth.pfm ->
 * NNNN.json, as `upframe render` writes) says it; else a warning when the depth looks
 * reversed but --depth-reversed was not given (a perspective depth buffer holds most of its
 * values near its far end: near 1 forward, near 0 reversed). Sets *reversed. */
static int depth_convention(const char *depth_b, const imageio_image *depth, bool flag,
                            bool *reversed)
{
    *reversed = flag;
    char side[4096], err[IMAGEIO_ERR_SIZE];
    const size_t n = strlen(depth_b), suffix = strlen(".depth.pfm");
    struct stat st;
    if (n > suffix && n < sizeof side && strcmp(depth_b + n - suffix, ".depth.pfm") == 0) {
        snprintf(side, sizeof side, "%.*s.json", (int)(n - suffix), depth_b);
        void *text = NULL;
        size_t size = 0;
        seq_sidecar sd;
        if (stat(side, &st) == 0 && S_ISREG(st.st_mode) &&
            imageio_slurp(side, SEQ_MAX_SIDECAR + 1, &text, &size, err) == UPF_OK &&
            seq_parse_sidecar(text, size, side, &sd, err) == UPF_OK) {
            bool rev = sd.has_camera && sd.camera.depth_reversed;
            upf_camera cam;
            if (!sd.has_camera && upf_camera_from_projection(NULL, sd.projection, sd.clip_depth,
                                                             &cam) == UPF_OK)
                rev = cam.depth_reversed != 0;
            free(text);
            if (flag && !rev)
                cli_warn(CMD, "--depth-reversed, but %s says the depth is forward; "
                         "--depth-reversed used", side);
            else if (!flag)
                cli_note(CMD, "the depth convention from %s: %s", side,
                         rev ? "reversed (1 near)" : "forward (0 near)");
            *reversed = flag || rev;
            return CLI_EXIT_OK;
        }
        free(text);
    }
    const float *d = depth->img.data;
    const size_t count = (size_t)depth->img.width * depth->img.height;
    size_t low = 0, in_unit = 0;
    for (size_t i = 0; i < count; i++) {
        in_unit += d[i] >= 0 && d[i] <= 1;
        low += d[i] < 0.5f;
    }
    if (!flag && in_unit == count && low * 2 > count)
        cli_warn(CMD, "--depth-b %s looks reversed (%.0f%% of it below 0.5, where a forward depth "
                 "buffer holds most values near 1): pass --depth-reversed if 1 is the near "
                 "plane", depth_b, 100.0 * (double)low / (double)count);
    return CLI_EXIT_OK;
}

/* ---- the work ------------------------------------------------------------------------- */

typedef struct stats {
    long made, blends;
    long method[4];
    double pass_ms[UPF_INTERPOLATE_PASS_COUNT];
    int runs;
} stats;

/* A pair that fell back to the blend draws a note; a scene change is the engine's decision
 * on the optical-flow path (its histograms, or its flow's check: a cut between two shots of
 * one map, docs/FRAMEGEN.md "cut"). */
static void note_method(tool_interpolate *e, stats *st, long a, long b)
{
    upf_interpolate_method m = 0;
    upf_interpolate_fallback fb = 0;
    tool_interpolate_last_method(e, &m, &fb);
    if ((int)m >= 0 && m < 4)
        st->method[m]++;
    if (m == UPF_INTERPOLATE_USED_BLEND && fb != UPF_INTERPOLATE_FALLBACK_ASKED) {
        st->blends++;
        if (fb == UPF_INTERPOLATE_FALLBACK_SCENE_CHANGE)
            cli_note(CMD, "frames %ld and %ld look like a cut between shots (the engine found "
                     "another scene, or no motion the optical flow can follow): the blend", a,
                     b);
        else
            cli_note(CMD, "frames %ld and %ld: %s: the blend", a, b,
                     upf_interpolate_fallback_name(fb));
    }
    double ms[UPF_INTERPOLATE_PASS_COUNT];
    if (tool_interpolate_timings(e, ms) == UPF_OK)
        for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
            st->pass_ms[p] += ms[p];
    st->runs++;
}

/* A real frame of a sequence as it is shown: its HUD composited over it (linear light). */
static int real_frame(upf_context *ctx, const frame_in *f, imageio_image *tmp,
                      imageio_image *out)
{
    const int w = f->color.img.width, h = f->color.img.height;
    if (!f->has_hud)
        return upf_resample(ctx, &f->color.img, &out->img, UPF_FILTER_BILINEAR) == UPF_OK
                   ? CLI_EXIT_OK : cli_fail_upf(CMD, ctx, upf_context_last_error(ctx, NULL));
    upf_result r = upf_resample(ctx, &f->color.img, &tmp->img, UPF_FILTER_BILINEAR);
    imageio_image hl = { 0 };
    char err[IMAGEIO_ERR_SIZE];
    if (r == UPF_OK && imageio_alloc(&hl, w, h, UPF_FORMAT_RGBA32F, err) != UPF_OK)
        return cli_fail(CMD, CLI_EXIT_INTERNAL, "%s", err);
    if (r == UPF_OK)
        r = upf_resample(ctx, &f->hud.img, &hl.img, UPF_FILTER_BILINEAR);
    if (r == UPF_OK) {
        float *c = tmp->img.data;
        const float *hp = hl.img.data;
        for (size_t i = 0; i < (size_t)w * h; i++) {
            float a = hp[4 * i + 3];
            for (int k = 0; k < 3; k++)
                c[4 * i + k] = c[4 * i + k] * (1 - a) + hp[4 * i + k] * a;
            c[4 * i + 3] = 1;
        }
        r = upf_resample(ctx, &tmp->img, &out->img, UPF_FILTER_BILINEAR);
    }
    imageio_free(&hl);
    return r == UPF_OK ? CLI_EXIT_OK : cli_fail_upf(CMD, ctx, upf_context_last_error(ctx, NULL));
}

typedef struct engine_spec {
    const frame_in *b;
    bool blend;
} engine_spec;

static int scaled(int n, double scale)
{
    const long v = lround(n * scale);
    return v < 1 ? 1 : (int)v;
}

/* The engine for frame b's sizes, every size times `scale` (engine_memory.h). */
static void *make_scaled(upf_context *ctx, double scale, void *priv)
{
    const engine_spec *sp = priv;
    const frame_in *b = sp->b;
    return upf_interpolate_create(ctx, upf_interpolate_params(
        .width = scaled(b->color.img.width, scale), .height = scaled(b->color.img.height, scale),
        .motion_width = b->has_motion ? scaled(b->motion.img.width, scale) : 0,
        .motion_height = b->has_motion ? scaled(b->motion.img.height, scale) : 0,
        .motion = sp->blend ? UPF_INTERPOLATE_MOTION_BLEND : UPF_INTERPOLATE_MOTION_AUTO,
        .motion_scale_x = b->scale_x, .motion_scale_y = b->scale_y,
        .flags = (b->reversed ? UPF_INTERPOLATE_DEPTH_REVERSED : 0) |
                 (b->uv ? UPF_INTERPOLATE_MOTION_UV : 0) | b->flow));
}

static void destroy_engine(void *e)
{
    upf_interpolate *p = e;
    upf_interpolate_destroy(&p);
}

static double image_bytes(const imageio_image *img)
{
    return img->img.data ? (double)img->img.width * img->img.height *
                               (double)upf_format_bytes_per_pixel(img->img.format)
                         : 0.0;
}

/* Before anything large is taken: the engine's bytes (engine_memory.h) and the tool's own
 * pictures (two frames with their layers, `outputs` RGBA8 frames, a float frame in a
 * sequence) against the memory limit. */
static int check_memory(const cli_common *c, const frame_in *b, bool blend, bool vulkan,
                        int outputs, bool seq)
{
    engine_spec sp = { b, blend };
    const int w = b->color.img.width, h = b->color.img.height;
    double engine = 0; /* on the GPU its surfaces take device memory, not the host's */
    if (!vulkan && engine_memory_bytes(make_scaled, destroy_engine, &sp, (double)w * h,
                                       &engine) != UPF_OK)
        return CLI_EXIT_OK; /* the real creation says what is wrong */
    const double layers = image_bytes(&b->color) + image_bytes(&b->motion) +
                          image_bytes(&b->depth) + image_bytes(&b->hud);
    const double pictures = 2 * layers + (double)w * h * (4.0 * outputs + (seq ? 32.0 : 0.0));
    return cli_check_memory(CMD, c, "the frame generation engine", w, h, engine, pictures);
}

/* The engine for frame b's inputs on the CPU, or on the GPU (vulkan, on `device`: its images
 * made in the formats of frames a and b, of the output (8-bit sRGB, or float for a PFM) and of
 * b's HUD). */
static tool_interpolate *make_engine(upf_context *ctx, const frame_in *a, const frame_in *b,
                                     bool blend, bool vulkan, int device, bool float_out,
                                     int *rc)
{
    const frame_in *h = b->has_hud ? b : a;
    const upf_interpolate_params p = {
        .width = b->color.img.width, .height = b->color.img.height,
        .motion_width = b->has_motion ? b->motion.img.width : 0,
        .motion_height = b->has_motion ? b->motion.img.height : 0,
        .motion = blend ? UPF_INTERPOLATE_MOTION_BLEND : UPF_INTERPOLATE_MOTION_AUTO,
        .motion_scale_x = b->scale_x, .motion_scale_y = b->scale_y,
        .flags = (b->reversed ? UPF_INTERPOLATE_DEPTH_REVERSED : 0) |
                 (b->uv ? UPF_INTERPOLATE_MOTION_UV : 0) | b->flow };
    const tool_interpolate_formats fmt = {
        b->color.img.format, h->has_hud ? h->hud.img.format : (upf_format)0,
        float_out ? UPF_FORMAT_RGBA32F : UPF_FORMAT_RGBA8_SRGB, b->has_motion };
    tool_interpolate *e = tool_interpolate_create(ctx, vulkan, device, &p, &fmt);
    if (!e)
        *rc = cli_fail_upf(CMD, ctx, upf_context_last_error(ctx, NULL));
    return e;
}

static int interpolate_pair(upf_context *ctx, tool_interpolate *e, const frame_in *a,
                            const frame_in *b, int count, const double *phases,
                            imageio_image *outs)
{
    upf_interpolate_frames fr = {
        .prev_color = &a->color.img, .color = &b->color.img,
        .motion = b->has_motion ? &b->motion.img : NULL,
        .depth = b->has_depth ? &b->depth.img : NULL,
        .prev_hud = a->has_hud ? &a->hud.img : NULL, .hud = b->has_hud ? &b->hud.img : NULL,
        .prev_id = a->number, .id = b->number, .reset = b->reset,
    };
    const upf_image *op[UPF_INTERPOLATE_FACTOR_MAX];
    for (int k = 0; k < count; k++)
        op[k] = &outs[k].img;
    const upf_result r = tool_interpolate_run(e, &fr, count, phases, op);
    return r == UPF_OK ? CLI_EXIT_OK : cli_fail_upf(CMD, ctx, r);
}

static int run_interpolate(int argc, char **argv)
{
    const char *pos[3] = { 0 }, *out_s = NULL, *phase_s = NULL, *factor_s = NULL;
    const char *motion_b = NULL, *depth_a = NULL, *depth_b = NULL, *hud_a = NULL, *hud_b = NULL;
    const char *backend_s = NULL, *flow_s = NULL;
    bool no_motion = false, reversed = false, blend = false, folder_motion = false,
         folder_hud = false;
    int npos = 0;
    cli_common common = { 0 };
    cli_args a;
    cli_args_init(&a, CMD, argc, argv);
    while (cli_args_next(&a)) {
        if (cli_args_positional(&a)) {
            if (npos == 2) {
                cli_usage(CMD, "takes A B or IN_DIR (got a third input '%s')", a.arg);
                a.failed = true;
                break;
            }
            pos[npos++] = a.arg;
        } else if (cli_common_option(&a, &common,
                                     CLI_OPT_THREADS | CLI_OPT_JSON | CLI_OPT_MAX_PIXELS |
                                         CLI_OPT_MAX_MEMORY)) {
        } else if (cli_args_option(&a, "--output") || cli_args_option(&a, "-o"))
            out_s = a.value;
        else if (cli_args_option(&a, "--phase"))
            phase_s = a.value;
        else if (cli_args_option(&a, "--factor"))
            factor_s = a.value;
        else if (cli_args_option(&a, "--motion-b"))
            motion_b = a.value;
        else if (cli_args_option(&a, "--depth-a"))
            depth_a = a.value;
        else if (cli_args_option(&a, "--depth-b"))
            depth_b = a.value;
        else if (cli_args_option(&a, "--hud-a"))
            hud_a = a.value;
        else if (cli_args_option(&a, "--hud-b"))
            hud_b = a.value;
        else if (cli_args_flag(&a, "--no-motion"))
            no_motion = true;
        else if (cli_args_flag(&a, "--depth-reversed"))
            reversed = true;
        else if (cli_args_flag(&a, "--blend"))
            blend = true;
        else if (cli_args_option(&a, "--backend"))
            backend_s = a.value;
        else if (cli_args_option(&a, "--flow"))
            flow_s = a.value;
        else
            return cli_args_unknown(&a);
    }
    if (a.failed)
        return CLI_EXIT_USAGE;
    if (npos == 0)
        return cli_usage(CMD, "needs A B (two images) or IN_DIR (a sequence)");
    if (!out_s)
        return cli_usage(CMD, "needs -o OUT (a .png or .pfm file, or a folder with --factor)");
    if (backend_s && strcmp(backend_s, "cpu") != 0 && strcmp(backend_s, "vulkan") != 0)
        return cli_usage(CMD, "--backend '%s': expected cpu or vulkan", backend_s);
    unsigned flow = 0;
    if (flow_s && strcmp(flow_s, "full") == 0)
        flow = UPF_INTERPOLATE_FLOW_FULL;
    else if (flow_s && strcmp(flow_s, "half") == 0)
        flow = UPF_INTERPOLATE_FLOW_HALF;
    else if (flow_s && strcmp(flow_s, "auto") != 0)
        return cli_usage(CMD, "--flow '%s': expected full, half or auto", flow_s);
    const bool vulkan = backend_s && strcmp(backend_s, "vulkan") == 0;
#ifndef UPF_HAVE_VULKAN
    if (vulkan)
        return cli_usage(CMD, "--backend vulkan: this build has no Vulkan backend (it was "
                         "built without the Vulkan headers or glslangValidator)");
#endif
    int device = -1; /* UPF_VK_DEVICE, checked once */
    if (vulkan) {
        const int drc = cli_vk_device(CMD, &device);
        if (drc != CLI_EXIT_OK)
            return drc;
    }
    double phase = 0.5;
    if (phase_s && (!cli_parse_double(phase_s, 0, 1, &phase) || !(phase > 0 && phase < 1)))
        return cli_usage(CMD, "--phase '%s': expected a number strictly between 0 and 1",
                         phase_s);
    long factor = 0;
    if (factor_s && !cli_parse_int(factor_s, 2, UPF_INTERPOLATE_FACTOR_MAX, &factor))
        return cli_usage(CMD, "--factor '%s': expected an integer 2..%d", factor_s,
                         UPF_INTERPOLATE_FACTOR_MAX);
    if (phase_s && factor_s)
        return cli_usage(CMD, "--phase and --factor: expected one (a phase into a file, or a "
                         "factor into a folder)");
    const bool seq = npos == 1;
    struct stat sb;
    if (seq && !(stat(pos[0], &sb) == 0 && S_ISDIR(sb.st_mode)))
        return cli_usage(CMD, "'%s' is not a folder; expected two images A B, or IN_DIR",
                         pos[0]);
    if (seq && !factor_s)
        return cli_usage(CMD, "IN_DIR needs --factor N (2..%d): the sequence N times as long",
                         UPF_INTERPOLATE_FACTOR_MAX);
    if (seq && (phase_s || motion_b || depth_a || depth_b || hud_a || hud_b))
        return cli_usage(CMD, "%s applies to two images A B; a sequence folder brings its own",
                         phase_s ? "--phase" : motion_b ? "--motion-b" : depth_a ? "--depth-a"
                         : depth_b ? "--depth-b" : hud_a ? "--hud-a" : "--hud-b");
    if (!seq && no_motion)
        return cli_usage(CMD, "--no-motion applies to a sequence folder (two images use "
                         "optical flow unless --motion-b is given)");
    if ((motion_b != NULL) != (depth_b != NULL))
        return cli_usage(CMD, "%s needs %s: the splat needs B's motion and depth together",
                         motion_b ? "--motion-b" : "--depth-b",
                         motion_b ? "--depth-b" : "--motion-b");
    if (blend && (motion_b || no_motion))
        return cli_usage(CMD, "--blend uses no motion; drop %s",
                         motion_b ? "--motion-b/--depth-b" : "--no-motion");

    if (factor && (imageio_type_from_path(out_s) == IMAGEIO_PNG ||
                   imageio_type_from_path(out_s) == IMAGEIO_PFM))
        return cli_usage(CMD, "-o %s with --factor: expected a folder (the N-1 frames go into "
                         "it as 0001.png ..), not a picture's name", out_s);

    int rc = CLI_EXIT_OK;
    cli_output single = { 0 };
    cli_outset *set = NULL;
    folder fo;
    memset(&fo, 0, sizeof fo);
    if (seq) {
        rc = open_folder(pos[0], &fo);
        if (rc != CLI_EXIT_OK) {
            folder_free(&fo);
            return rc;
        }
    }
    const long total_out = seq ? (long)(fo.count - 1) * factor + 1 : factor ? factor - 1 : 1;
    /* the input numbering kept: input frame n is output frame n * factor */
    const long first_out = seq ? fo.number[0] * factor : 1;
    if (factor) {
        set = cli_outset_open(CMD, out_s, total_out, &rc);
        for (long k = 0; set && k < total_out; k++) {
            char name[CLI_OUTSET_NAME_MAX];
            snprintf(name, sizeof name, "%04ld.png", first_out + k);
            cli_outset_add(set, name);
        }
        if (set && seq)
            rc = cli_outset_refuse_input_dir(CMD, set, pos[0]);
        const char *inputs[] = { pos[0], pos[1], motion_b, depth_a, depth_b, hud_a, hud_b };
        for (int k = 0; set && !seq && k < 7 && rc == CLI_EXIT_OK; k++)
            if (inputs[k])
                rc = cli_outset_refuse_input_file(CMD, set, inputs[k]);
        if (rc == CLI_EXIT_OK)
            rc = cli_outset_check(CMD, set);
    } else {
        rc = cli_check_output(CMD, out_s, NULL, &single);
    }
    upf_context *ctx = rc == CLI_EXIT_OK ? cli_context_for(CMD, &common) : NULL;
    if (rc == CLI_EXIT_OK && !ctx)
        rc = CLI_EXIT_INTERNAL;
    stats st;
    memset(&st, 0, sizeof st);
    frame_in fa, fb;
    memset(&fa, 0, sizeof fa);
    memset(&fb, 0, sizeof fb);
    tool_interpolate *e = NULL;
    imageio_image outs[UPF_INTERPOLATE_FACTOR_MAX], tmp = { 0 };
    memset(outs, 0, sizeof outs);
    char err[IMAGEIO_ERR_SIZE];
    int W = 0, H = 0;
    const double t0 = cli_now();
    cli_progress bar;
    cli_progress_begin(&bar, CMD, common.quiet);

    if (rc == CLI_EXIT_OK && !seq) {
        /* two images */
        rc = cli_read_image(CMD, pos[0], &common, &fa.color);
        if (rc == CLI_EXIT_OK)
            rc = cli_read_image(CMD, pos[1], &common, &fb.color);
        if (rc == CLI_EXIT_OK && (fa.color.img.format == UPF_FORMAT_R32F ||
                                  fb.color.img.format == UPF_FORMAT_R32F))
            rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s is a grey PFM; expected colour images",
                          fa.color.img.format == UPF_FORMAT_R32F ? pos[0] : pos[1]);
        W = fa.color.img.width, H = fa.color.img.height;
        if (rc == CLI_EXIT_OK)
            rc = same_size("B", pos[1], &fb.color.img, W, H);
        if (rc == CLI_EXIT_OK && motion_b) {
            rc = read_motion(motion_b, &common, &fb.motion);
            if (rc == CLI_EXIT_OK)
                rc = read_depth(depth_b, &common, &fb.depth);
            if (rc == CLI_EXIT_OK && (fb.motion.img.width != fb.depth.img.width ||
                                      fb.motion.img.height != fb.depth.img.height))
                rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "--depth-b %s is %dx%d and --motion-b "
                              "%s %dx%d; expected one size", depth_b, fb.depth.img.width,
                              fb.depth.img.height, motion_b, fb.motion.img.width,
                              fb.motion.img.height);
            if (rc == CLI_EXIT_OK && (fb.motion.img.width > W || fb.motion.img.height > H))
                rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "--motion-b %s is %dx%d, larger than "
                              "the frames (%dx%d); expected their size or a render size below",
                              motion_b, fb.motion.img.width, fb.motion.img.height, W, H);
            fb.has_motion = fb.has_depth = rc == CLI_EXIT_OK;
        }
        if (rc == CLI_EXIT_OK && depth_a) {
            imageio_image da = { 0 };
            rc = read_depth(depth_a, &common, &da);
            /* the size of --depth-b, or without it (flow) the frames' */
            const int dw = depth_b ? fb.depth.img.width : W, dh = depth_b ? fb.depth.img.height
                                                                           : H;
            if (rc == CLI_EXIT_OK && (da.img.width != dw || da.img.height != dh))
                rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "--depth-a %s is %dx%d; expected %dx%d "
                              "like %s", depth_a, da.img.width, da.img.height, dw, dh,
                              depth_b ? "--depth-b" : "the frames");
            const float *d = da.img.data;
            for (size_t i = 0; rc == CLI_EXIT_OK && i < (size_t)da.img.width * da.img.height;
                 i++)
                if (!isfinite(d[i]) || d[i] < 0)
                    rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "--depth-a %s: pixel (%zu, %zu) is "
                                  "%g; expected finite depth >= 0", depth_a,
                                  i % (size_t)da.img.width, i / (size_t)da.img.width,
                                  (double)d[i]);
            imageio_free(&da);
        }
        const char *hp[2] = { hud_a, hud_b };
        frame_in *hf[2] = { &fa, &fb };
        for (int k = 0; k < 2 && rc == CLI_EXIT_OK; k++)
            if (hp[k]) {
                rc = cli_read_image(CMD, hp[k], &common, &hf[k]->hud);
                if (rc == CLI_EXIT_OK)
                    rc = same_size(k ? "--hud-b" : "--hud-a", hp[k], &hf[k]->hud.img, W, H);
                if (rc == CLI_EXIT_OK && hf[k]->hud.img.format == UPF_FORMAT_R32F)
                    rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s is a grey PFM; expected a HUD "
                                  "layer with alpha", hp[k]);
                hf[k]->has_hud = rc == CLI_EXIT_OK;
            }
        fa.number = 0, fb.number = 1;
        if (rc == CLI_EXIT_OK && depth_b)
            rc = depth_convention(depth_b, &fb.depth, reversed, &fb.reversed);
        fb.scale_x = fb.scale_y = 1;
        fb.flow = flow;
        if (rc == CLI_EXIT_OK)
            rc = check_memory(&common, &fb, blend, vulkan, factor ? (int)factor - 1 : 1, false);
        if (rc == CLI_EXIT_OK)
            e = make_engine(ctx, &fa, &fb, blend, vulkan, device,
                            single.type == IMAGEIO_PFM && !factor, &rc);
        const int count = factor ? (int)factor - 1 : 1;
        for (int k = 0; k < count && rc == CLI_EXIT_OK; k++)
            if (imageio_alloc(&outs[k], W, H, single.type == IMAGEIO_PFM && !factor
                              ? UPF_FORMAT_RGBA32F : UPF_FORMAT_RGBA8_SRGB, err) != UPF_OK)
                rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "%s", err);
        if (rc == CLI_EXIT_OK)
            rc = interpolate_pair(ctx, e, &fa, &fb, count, factor ? NULL : &phase, outs);
        if (rc == CLI_EXIT_OK) {
            note_method(e, &st, 0, 1);
            st.made += count;
        }
        if (rc == CLI_EXIT_OK && !factor)
            rc = cli_write_image(CMD, &single, &outs[0].img, 8);
        for (int k = 0; k < count && rc == CLI_EXIT_OK && factor; k++)
            rc = write_png(set, first_out, k + 1, &outs[k].img);
    } else if (rc == CLI_EXIT_OK) {
        /* a sequence */
        const int count = (int)factor - 1;
        for (int k = 0; k < fo.count && rc == CLI_EXIT_OK; k++) {
            frame_free(&fa);
            fa = fb;
            memset(&fb, 0, sizeof fb);
            rc = read_folder_frame(pos[0], &fo, k, &common, no_motion, &fb);
            if (rc != CLI_EXIT_OK)
                break;
            if (fb.color.img.format == UPF_FORMAT_R32F) {
                rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "frame %ld is grey; expected colour",
                              fb.number);
                break;
            }
            rc = layers_as_folder(pos[0], &fo, k, &fa, &fb, &folder_motion, &folder_hud);
            fb.flow = flow;
            if (k == 0) {
                W = fb.color.img.width, H = fb.color.img.height;
                if (rc == CLI_EXIT_OK)
                    rc = check_memory(&common, &fb, blend, vulkan, count + 1, true);
                for (int j = 0; j <= count && rc == CLI_EXIT_OK; j++) /* + the real frame */
                    if (imageio_alloc(&outs[j], W, H, UPF_FORMAT_RGBA8_SRGB, err) != UPF_OK)
                        rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "%s", err);
                if (rc == CLI_EXIT_OK && imageio_alloc(&tmp, W, H, UPF_FORMAT_RGBA32F, err) !=
                                             UPF_OK)
                    rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "%s", err);
            } else if (fb.color.img.width != W || fb.color.img.height != H) {
                rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "frame %ld is %dx%d, the frames before "
                              "%dx%d; expected one size", fb.number, fb.color.img.width,
                              fb.color.img.height, W, H);
            }
            if (rc == CLI_EXIT_OK && k > 0) {
                if (!e) /* made once, for the first pair's inputs */
                    e = make_engine(ctx, &fa, &fb, blend, vulkan, device, false, &rc);
                if (rc == CLI_EXIT_OK)
                    rc = interpolate_pair(ctx, e, &fa, &fb, count, NULL, outs);
                if (rc == CLI_EXIT_OK) {
                    note_method(e, &st, fa.number, fb.number);
                    st.made += count;
                }
                for (int j = 0; j < count && rc == CLI_EXIT_OK; j++)
                    rc = write_png(set, first_out, fo.number[k - 1] * factor + j + 1,
                                   &outs[j].img);
            }
            if (rc == CLI_EXIT_OK)
                rc = real_frame(ctx, &fb, &tmp, &outs[count]);
            if (rc == CLI_EXIT_OK)
                rc = write_png(set, first_out, fo.number[k] * factor, &outs[count].img);
            cli_progress_update(&bar, (double)(k + 1) / fo.count, "frame %d/%d", k + 1,
                                fo.count);
        }
    }
    cli_progress_end(&bar);
    const double seconds = cli_now() - t0;
    const long written = set ? cli_outset_written(set) : 0;
    cli_outset_close(&set, rc == CLI_EXIT_OK);
    if (rc != CLI_EXIT_OK) {
        cli_undo_now();
    } else {
        cli_undo_forget();
        if (!common.json) {
            if (seq)
                cli_report("wrote %ld frames %dx%d (%d in, %ld made) in %.1f s, into %s\n",
                           total_out, W, H, fo.count, st.made, seconds, out_s);
            else
                cli_report("wrote %ld frame%s %dx%d in %.2f s, %s\n", st.made,
                           st.made == 1 ? "" : "s", W, H, seconds, out_s);
        }
    }
    if (common.json) {
        cli_json j;
        cli_json_begin(&j, stdout);
        cli_json_object(&j, NULL);
        cli_json_string(&j, "output", out_s);
        cli_json_bool(&j, "ok", rc == CLI_EXIT_OK);
        cli_json_int(&j, "exit_code", rc);
        cli_json_int(&j, "frames_made", st.made); /* on failure: made, then removed */
        cli_json_int(&j, "frames_written", rc == CLI_EXIT_OK ? (long long)written + (factor ? 0 : 1)
                                                               : 0);
        cli_json_size(&j, W, H);
        cli_json_object(&j, "pairs_by_method");
        cli_json_int(&j, "vectors", st.method[UPF_INTERPOLATE_USED_VECTORS]);
        cli_json_int(&j, "flow", st.method[UPF_INTERPOLATE_USED_FLOW]);
        cli_json_int(&j, "blend", st.method[UPF_INTERPOLATE_USED_BLEND]);
        cli_json_close(&j);
        cli_json_number(&j, "seconds", round(seconds * 1e3) / 1e3);
        cli_json_object(&j, "mean_pass_ms_per_made_frame");
        for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
            cli_json_number(&j, upf_interpolate_pass_name((upf_interpolate_pass)p),
                            st.made ? round(st.pass_ms[p] / st.made * 1e3) / 1e3 : 0);
        cli_json_close(&j);
        cli_json_close(&j);
        cli_json_end(&j);
    }
    tool_interpolate_destroy(&e);
    frame_free(&fa);
    frame_free(&fb);
    for (int k = 0; k < UPF_INTERPOLATE_FACTOR_MAX; k++)
        imageio_free(&outs[k]);
    imageio_free(&tmp);
    folder_free(&fo);
    upf_context_destroy(&ctx);
    return rc;
}

const cli_command cli_cmd_interpolate = {
    "interpolate", run_interpolate,
    "make frames between frames (any phase, factors 2..8), from motion vectors or optical flow",
    interpolate_help
};
