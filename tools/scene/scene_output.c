/* scene_output.c: a rendered view to files (PFM, PNG, the JSON sidecar), pictures of depth
 * and motion, and the contact sheet of docs/scenes.png. Reads the renderer's float buffers
 * and camera record; writes through tools/imageio (atomic writes). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/color.h"
#include "scene/scene_internal.h"
#include "scene/scene_output.h"

const char *const scene_frame_files[] = { "color.pfm", "color.png", "hud.png", "final.png",
                                          "depth.pfm", "motion.pfm", "json", NULL };

/* Writes a message to err (IMAGEIO_ERR_SIZE bytes) and returns code. */
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

/* ---- the JSON sidecar ---- */

typedef struct jbuf {
    char *p;
    size_t size, len;
    bool overflow;
} jbuf;

static void jprintf(jbuf *j, const char *fmt, ...)
{
    if (j->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(j->p + j->len, j->size - j->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= j->size - j->len)
        j->overflow = true;
    else
        j->len += (size_t)n;
}

/* Doubles in the fewest significant digits (15 to 17) that read back exactly; infinities
 * as null. */
static void jnum(jbuf *j, double v)
{
    if (!isfinite(v)) {
        jprintf(j, "null");
        return;
    }
    if (v == 0.0)
        v = 0.0; /* no "-0" */
    char t[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(t, sizeof t, "%.*g", digits, v);
        if (strtod(t, NULL) == v)
            break;
    }
    jprintf(j, "%s", t);
}

static void jmatrix(jbuf *j, const char *key, const double m[16])
{
    jprintf(j, "  \"%s\": [", key);
    for (int i = 0; i < 16; i++) {
        jnum(j, m[i]);
        jprintf(j, i < 15 ? (i % 4 == 3 ? ",\n    " : ", ") : "],\n");
    }
}

bool scene_camera_json(const scene_frame_info *info, const scene_camera *cam, char *buf,
                       size_t size)
{
    jbuf j = { buf, size, 0, false };
    jprintf(&j, "{\n  \"scene\": \"%s\",\n  \"seed\": %u,\n  \"path\": \"%s\",\n", info->scene,
            (unsigned)info->seed, info->path);
    jprintf(&j, "  \"frame\": %ld,\n  \"fps\": ", info->frame);
    jnum(&j, info->fps);
    jprintf(&j, ",\n  \"time\": ");
    jnum(&j, cam->time);
    jprintf(&j, ",\n  \"prev_time\": ");
    jnum(&j, cam->prev_time);
    jprintf(&j, ",\n  \"cut\": %s,\n", cam->cut ? "true" : "false");
    jprintf(&j, "  \"width\": %d,\n  \"height\": %d,\n  \"spp\": %d,\n  \"mip_bias\": ",
            info->width, info->height, info->spp);
    jnum(&j, info->mip_bias);
    jprintf(&j, ",\n  \"jitter\": [");
    jnum(&j, cam->jitter_x);
    jprintf(&j, ", ");
    jnum(&j, cam->jitter_y);
    jprintf(&j, "],\n  \"jitter_mode\": \"%s\",\n  \"jitter_index\": %ld,\n  \"jitter_phases\": %d,\n",
            info->jitter_mode, info->jitter_index, info->jitter_phases);
    jprintf(&j, "  \"jitter_convention\": \"pixel (x, y) samples screen position (x + 0.5 + jx, "
                "y + 0.5 + jy), render pixels, y down\",\n");
    jprintf(&j, "  \"depth\": \"%s\",\n  \"depth_far_infinite\": %s,\n",
            cam->depth_reversed ? "reversed" : "forward", isinf(cam->far_plane) ? "true" : "false");
    jprintf(&j, "  \"near\": ");
    jnum(&j, cam->near_plane);
    jprintf(&j, ",\n  \"far\": ");
    jnum(&j, cam->far_plane);
    jprintf(&j, ",\n  \"geometry_far\": ");
    jnum(&j, cam->geometry_far);
    jprintf(&j, ",\n  \"fov_y\": ");
    jnum(&j, cam->fov_y);
    jprintf(&j, ",\n  \"fov_y_degrees\": ");
    jnum(&j, cam->fov_y * 180.0 / SCENE_PI);
    jprintf(&j, ",\n  \"aspect\": ");
    jnum(&j, cam->aspect);
    jprintf(&j, ",\n  \"camera_position\": [");
    for (int i = 0; i < 3; i++) {
        jnum(&j, cam->position[i]);
        jprintf(&j, i < 2 ? ", " : "],\n");
    }
    jprintf(&j, "  \"motion\": \"previous minus current screen position of the surface, render "
                "pixels (x right, y down), without jitter\",\n");
    jprintf(&j, "  \"matrix_layout\": \"row-major; column vectors: clip = projection * view * "
                "world; NDC depth in [0, 1]\",\n");
    jmatrix(&j, "view", cam->view);
    jmatrix(&j, "projection", cam->proj);
    jmatrix(&j, "projection_jittered", cam->proj_jittered);
    jmatrix(&j, "prev_view", cam->prev_view);
    jmatrix(&j, "prev_projection", cam->prev_proj);
    /* drop the last ",\n" */
    if (!j.overflow && j.len >= 2)
        j.len -= 2;
    jprintf(&j, "\n}\n");
    return !j.overflow;
}

/* ---- files ---- */

static void frame_path(char *out, size_t size, const char *dir, const char *stem, const char *suffix)
{
    snprintf(out, size, "%s/%s.%s", dir, stem, suffix);
}

/* The files of this frame written so far, except those that replaced a file (they hold a
 * complete new file: an earlier run's frame is never removed). */
static void remove_frame(const char *dir, const char *stem, int count, const bool *existed)
{
    char p[4096];
    for (int i = 0; i < count && scene_frame_files[i]; i++) {
        frame_path(p, sizeof p, dir, stem, scene_frame_files[i]);
        if (!existed[i])
            unlink(p);
    }
}

upf_result scene_write_frame(const char *dir, const char *stem, const scene_frame_info *info,
                             const scene_buffers *b, const scene_camera *cam, char *err)
{
    int w = info->width, h = info->height;
    size_t n = (size_t)w * (size_t)h;
    char p[4096];
    if (strlen(dir) + strlen(stem) + 16 >= sizeof p)
        return fail(err, UPF_ERROR_IO, "%s: path is too long", dir);
    float *final = malloc(4 * n * sizeof(float));
    char *json = malloc(16384);
    if (!final || !json) {
        free(final);
        free(json);
        return fail(err, UPF_ERROR_OUT_OF_MEMORY, "out of memory for a %dx%d frame", w, h);
    }
    for (size_t i = 0; i < n; i++) {
        float a = b->hud[4 * i + 3];
        for (int c = 0; c < 3; c++)
            final[4 * i + c] = b->color[4 * i + c] * (1.0f - a) + b->hud[4 * i + c] * a;
        final[4 * i + 3] = 1.0f;
    }
    upf_image color = { b->color, w, h, 0, UPF_FORMAT_RGBA32F };
    upf_image hud = { b->hud, w, h, 0, UPF_FORMAT_RGBA32F };
    upf_image fin = { final, w, h, 0, UPF_FORMAT_RGBA32F };
    upf_image depth = { b->depth, w, h, 0, UPF_FORMAT_R32F };
    upf_image motion = { b->motion, w, h, 0, UPF_FORMAT_RG32F };
    /* In the order of scene_frame_files, counted in info->files_written as they land. */
    const upf_image *pictures[] = { &color, &color, &hud, &fin, &depth, &motion, NULL };
    upf_result r = UPF_OK;
    int written = 0;
    bool existed[16] = { false };
    if (info->files_written)
        atomic_store(info->files_written, 0);
    /* A file lands (its temporary renamed) and is counted as one step: the signals a tool's
     * undo list handles (Ctrl-C, SIGTERM, SIGHUP, SIGPIPE) wait while a file is written, so
     * a handler never sees a file that is there but not yet counted (it would stay behind).
     * They are delivered as soon as the file is counted (the library's workers block them all,
 * so they reach this thread). */
    sigset_t stop, old_mask;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigaddset(&stop, SIGPIPE);
    for (int i = 0; scene_frame_files[i] && r == UPF_OK; i++) {
        pthread_sigmask(SIG_BLOCK, &stop, &old_mask);
        frame_path(p, sizeof p, dir, stem, scene_frame_files[i]);
        existed[i] = access(p, F_OK) == 0;
        const char *dot = strrchr(scene_frame_files[i], '.');
        if (!pictures[i]) {
            if (!scene_camera_json(info, cam, json, 16384))
                r = fail(err, UPF_ERROR_INTERNAL, "%s: the camera record does not fit", p);
            else
                r = imageio_write_file_atomic(p, json, strlen(json), err);
        } else if (dot && strcmp(dot, ".pfm") == 0) {
            r = imageio_write_pfm(p, pictures[i], err);
        } else {
            r = imageio_write_png(p, pictures[i], 8, err);
        }
        if (r == UPF_OK)
            written = i + 1;
        if (r == UPF_OK && info->files_written)
            atomic_store(info->files_written, written);
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    }
    free(final);
    free(json);
    if (r != UPF_OK) /* this frame's files written so far; older ones of that name stay */
        remove_frame(dir, stem, written, existed);
    return r;
}

/* ---- pictures ---- */

void scene_depth_picture(const float *depth, int w, int h, const scene_camera *cam, uint8_t *rgba)
{
    double n = cam->near_plane, f = cam->far_plane;
    bool rev = cam->depth_reversed, inf = isinf(f);
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        double d = depth[i], z;
        bool sky = rev ? d <= 0.0 : d >= 1.0;
        if (inf)
            z = rev ? n / d : n / (1.0 - d);
        else if (rev)
            z = f * n / (n + d * (f - n));
        else
            z = f * n / (f - d * (f - n));
        /* white at 0.5 m to black at 200 m, log scale */
        double g = sky ? 0.0 : 1.0 - log(fmax(z, 0.5) / 0.5) / log(200.0 / 0.5);
        uint8_t v = (uint8_t)(255.0 * (g < 0 ? 0 : g > 1 ? 1 : g) + 0.5);
        rgba[4 * i + 0] = rgba[4 * i + 1] = rgba[4 * i + 2] = v;
        rgba[4 * i + 3] = 255;
    }
}

/* HSV (h in [0, 1), s, v) to RGB. */
static void hsv(float hh, float s, float v, float *rgb)
{
    float h6 = hh * 6.0f;
    int i = (int)h6 % 6;
    float f = h6 - floorf(h6), p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    float r[6] = { v, q, p, p, t, v }, g[6] = { t, v, v, q, p, p }, b[6] = { p, p, t, v, v, q };
    rgb[0] = r[i];
    rgb[1] = g[i];
    rgb[2] = b[i];
}

void scene_motion_picture(const float *motion, int w, int h, float max_px, uint8_t *rgba)
{
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        float x = motion[2 * i], y = motion[2 * i + 1];
        float len = sqrtf(x * x + y * y);
        float ang = atan2f(-y, x); /* y down on screen: up is positive angle */
        float hh = ang / 6.2831853f;
        hh -= floorf(hh);
        float rgb[3];
        hsv(hh, fminf(1.0f, len / max_px), 1.0f, rgb);
        for (int c = 0; c < 3; c++)
            rgba[4 * i + c] = (uint8_t)(255.0f * rgb[c] + 0.5f);
        rgba[4 * i + 3] = 255;
    }
}

/* ---- the contact sheet ---- */

/* Writes `text` in the 5x7 font at (x, y) with `scale` pixels per font unit, white on a dark
 * shadow, into an sRGB RGBA8 image. */
static void label(uint8_t *img, int iw, int ih, int x, int y, int scale, const char *text)
{
    int len = (int)strlen(text);
    for (int pass = 0; pass < 2; pass++) {
        int off = pass == 0 ? scale / 2 + 1 : 0;
        uint8_t v = pass == 0 ? 0 : 255;
        for (int py = 0; py < 7 * scale; py++)
            for (int px = 0; px < (int)scene__text_width(len) * scale; px++) {
                if (!scene__text_ink(text, len, (float)px / (float)scale, (float)py / (float)scale))
                    continue;
                int X = x + px + off, Y = y + py + off;
                if (X < 0 || Y < 0 || X >= iw || Y >= ih)
                    continue;
                uint8_t *d = img + 4 * ((size_t)Y * (size_t)iw + (size_t)X);
                d[0] = d[1] = d[2] = v;
            }
    }
}

upf_result scene_contact_sheet(upf_context *ctx, const char *path, int tile_w, int tile_h,
                               int spp, char *err)
{
    enum { GAP = 4 };
    int rows = 0;
    for (int i = 0; i < scene_count(); i++)
        rows += !scene_is_test_only(i);
    int sw = 3 * tile_w + 4 * GAP, sh = rows * tile_h + (rows + 1) * GAP;
    imageio_image sheet;
    upf_result r = imageio_alloc(&sheet, sw, sh, UPF_FORMAT_RGBA8_SRGB, err);
    if (r != UPF_OK)
        return r;
    uint8_t *px = sheet.img.data;
    for (size_t i = 0; i < (size_t)sw * (size_t)sh; i++) {
        px[4 * i + 0] = px[4 * i + 1] = px[4 * i + 2] = 24;
        px[4 * i + 3] = 255;
    }
    size_t n = (size_t)tile_w * (size_t)tile_h;
    float *color = malloc(4 * n * sizeof(float)), *hud = malloc(4 * n * sizeof(float));
    float *depth = malloc(n * sizeof(float)), *motion = malloc(2 * n * sizeof(float));
    uint8_t *tile = malloc(4 * n);
    if (!color || !hud || !depth || !motion || !tile) {
        r = fail(err, UPF_ERROR_OUT_OF_MEMORY, "out of memory for the contact sheet");
        goto done;
    }
    int row = 0;
    for (int si = 0; si < scene_count() && r == UPF_OK; si++) {
        if (scene_is_test_only(si))
            continue;
        scene *s = NULL;
        r = scene_create(ctx, scene_name(si), 1, &s);
        scene_camera cam;
        scene_buffers b = { color, hud, depth, motion };
        /* a moving camera, so the motion shows parallax as well as the movers: the orbit one
         * second in, or for the street the walk down the pavement, which shows its length */
        bool street = strcmp(scene_name(si), "street") == 0;
        if (r == UPF_OK)
            r = scene_render(s, scene_view_params(.path = street ? "walk" : "orbit", .time = 1.0,
                                                  .width = tile_w, .height = tile_h, .spp = spp),
                             &b, &cam);
        if (r != UPF_OK) {
            const char *m = "";
            upf_context_last_error(ctx, &m);
            r = fail(err, r, "%s: %s", scene_name(si), m);
            scene_destroy(&s);
            break;
        }
        scene_destroy(&s);
        int y0 = GAP + row * (tile_h + GAP);
        for (int col = 0; col < 3; col++) {
            if (col == 0) {
                for (size_t i = 0; i < n; i++) {
                    float a = hud[4 * i + 3];
                    for (int c = 0; c < 3; c++)
                        tile[4 * i + c] = upf_linear_to_srgb8(color[4 * i + c] * (1 - a) + hud[4 * i + c] * a);
                    tile[4 * i + 3] = 255;
                }
            } else if (col == 1) {
                scene_depth_picture(depth, tile_w, tile_h, &cam, tile);
            } else {
                scene_motion_picture(motion, tile_w, tile_h, 0.01f * (float)tile_w, tile);
            }
            int x0 = GAP + col * (tile_w + GAP);
            for (int y = 0; y < tile_h; y++)
                memcpy(px + 4 * ((size_t)(y0 + y) * (size_t)sw + (size_t)x0), tile + 4 * (size_t)y * (size_t)tile_w,
                       4 * (size_t)tile_w);
            static const char *const what[3] = { "", "DEPTH", "MOTION" };
            int scale = tile_h >= 400 ? 3 : 2;
            const char *text = col == 0 ? scene_name(si) : what[col];
            label(px, sw, sh, x0 + 8 * scale, y0 + tile_h - 12 * scale, scale, text);
        }
        row++;
    }
    if (r == UPF_OK)
        r = imageio_write_png(path, &sheet.img, 8, err);
done:
    free(color);
    free(hud);
    free(depth);
    free(motion);
    free(tile);
    imageio_free(&sheet);
    return r;
}
