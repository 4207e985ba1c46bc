/* bench_temporal.c: makes the temporal section of docs/QUALITY.md: the temporal engine against
 * per-frame upscalers on sequences of the scene renderer's evaluation set, crops of each, and
 * the mip-bias rule measured. `make quality` runs it after bench_quality; its output replaces
 * the part of QUALITY.md between its two marker lines (or is appended), the rest of the file
 * is left as it is.
 *
 *   bench_temporal [--out DOCS_DIR] [--size WxH] [--spp N] [--frames N] [--scenes LIST]
 *                  [--paths LIST] [--ratios LIST] [--threads N] [--command TEXT]
 *                  [--no-bias-table] [--only-temporal] [--long-frames N] [--tune]
 *                  [--ref-cache DIR] [--dump-frames DIR] [--dump-inputs DIR]
 *                  [--peer NAME=DIR]...
 *
 * Without --out it prints the tables only. Per scene and camera path of the evaluation set
 * (docs/SCENES.md: its seeds, 30 frames a second, the first `frames` frames of each sequence;
 * the cut sequence from 8 frames before its cut): references at the output size, `spp` samples
 * per pixel, no jitter; inputs at each ratio at 1 sample per pixel, Halton-jittered with the
 * phase count of the ratio, at the mip bias of the rule (upf_mip_bias). Per frame, four
 * upscalers: Lanczos-3 and the spatial engine, each on the frame alone (8-bit sRGB, what a game
 * hands a spatial upscaler), and the temporal engine with and without its spatial fill (the
 * linear HDR colour, depth and motion). Scores from frame 8 on: PSNR, SSIM, FLIP against the
 * reference; PSNR over the pixels disoccluded in that frame (the renderer's depth and motion at
 * the output size say which); shimmer over the still path's frames, over the whole frame and
 * over the pixels whose reference is still (issue 34). --long-frames N adds still and pan
 * sequences of N frames at 2x (the two temporal engines only); with --out, crops of three
 * named features (a railing, wires, a panned brick wall), each with the continuity of its thin
 * lines scored against the reference (thin_continuity). --only-temporal leaves the per-frame
 * upscalers out, --tune takes seeds outside the evaluation set (for tuning), --ref-cache keeps
 * the references in files between runs, --dump-frames writes every frame of the temporal engine
 * and its reference (dump_frame). --dump-inputs writes what a temporal upscaler gets, every frame
 * of every sequence (dump_inputs), and --peer NAME=DIR scores another upscaler's output frames
 * for those inputs (PNGs in DIR, read_peer_frame) as one more row of the tables and one more
 * column of the crops: how a peer such as AMD's FSR 2, run outside the bench, is measured on
 * the same sequences, references and crops (docs/QUALITY.md, "AMD FSR 2 beside the temporal
 * engine"). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bench_util.h"
#include "imageio/image_io.h"
#include "scene/scene.h"
#include "scene/scene_output.h"

/* The per-frame upscalers take unjittered inputs (what a game renders for them); M_SPATIAL_JIT
 * is the spatial engine on the temporal engine's own jittered inputs. */
enum { M_LANCZOS, M_SPATIAL, M_TEMPORAL, M_FILL, M_SPATIAL_JIT, N_METHODS };
#define N_SHEET 4 /* the methods in the crops */
static const char *const method_names[N_METHODS] = {
    "Lanczos-3, per frame", "spatial engine, per frame", "temporal", "temporal + spatial fill",
    "spatial engine, per frame, on the jittered inputs"
};
static const char *const method_short[N_METHODS] = { "lanczos", "spatial", "temporal",
                                                     "temporal+fill", "spatial (jittered)" };

static const char *const all_scenes[] = { "courtyard", "forest", "street", "interior" };
static const char *const all_paths[] = { "still", "pan", "orbit", "walk", "turn", "cut" };
/* --peer: other upscalers' frames, scored after the methods above (method index N_METHODS + p) */
#define MAX_PEERS 4
#define N_ALL (N_METHODS + MAX_PEERS)
typedef struct peer {
    const char *name, *dir;
} peer;
static peer peers[MAX_PEERS];
static int n_peers;

static const char *method_label(int m)
{
    return m < N_METHODS ? method_names[m] : peers[m - N_METHODS].name;
}

static const char *method_label_short(int m)
{
    return m < N_METHODS ? method_short[m] : peers[m - N_METHODS].name;
}

#define N_SCENES 4
#define N_PATHS 6
#define MAX_RATIOS 4
#define MAX_FRAMES 64
#define FIRST_SCORED 8
#define FPS 30.0

typedef struct score {
    double psnr, ssim, flip;
    double mask_se;   /* squared error (sRGB, RGB, 0..1) summed over disoccluded pixels */
    long mask_n;      /* their count (x 3 channels) */
    int frames;
} score;

static upf_context *ctx;
static upf_models *models;

#define die(...) bench_die("bench_temporal", __VA_ARGS__)
static void check(upf_result r, const char *what)
{
    bench_check("bench_temporal", ctx, r, what);
}

#define alloc_image(w, h, f) bench_alloc_image("bench_temporal", (w), (h), (f))

/* ---- the evaluation set ------------------------------------------------------------------ */

/* --tune: the same scenes and paths with seeds below the evaluation set's (docs/SCENES.md),
 * for tuning the engine on sequences the published tables never show. */
static bool tune_seeds;

static uint32_t eval_seed(int scene_index, int path)
{
    uint32_t base = tune_seeds ? 7000u : SCENE_EVAL_SEED_MIN;
    return base + 100u * (uint32_t)(scene_index + 1) + (uint32_t)(path + 1);
}

/* The time of a sequence's frame n: the cut sequence starts FIRST_SCORED frames before the
 * cut, so the scored frames begin with it. */
static double frame_time(int path, int n)
{
    double t0 = strcmp(all_paths[path], "cut") == 0 ? scene_cut_time() - FIRST_SCORED / FPS : 0.0;
    return t0 + n / FPS;
}

/* One rendered view: colour (linear RGBA32F), depth, motion, camera. */
typedef struct view {
    imageio_image color, depth, motion;
    scene_camera cam;
} view;

static void view_alloc(view *v, int w, int h)
{
    v->color = alloc_image(w, h, UPF_FORMAT_RGBA32F);
    v->depth = alloc_image(w, h, UPF_FORMAT_R32F);
    v->motion = alloc_image(w, h, UPF_FORMAT_RG32F);
}

static void view_free(view *v)
{
    imageio_free(&v->color);
    imageio_free(&v->depth);
    imageio_free(&v->motion);
}

static void render(scene *sc, int path, int n, int spp, double jx, double jy, double bias,
                   view *v)
{
    scene_buffers b = { v->color.img.data, NULL, v->depth.img.data, v->motion.img.data };
    check(scene_render(sc, scene_view_params(.path = all_paths[path], .time = frame_time(path, n),
                                             .frame_interval = 1.0 / FPS,
                                             .width = v->color.img.width,
                                             .height = v->color.img.height, .spp = spp,
                                             .jitter_x = jx, .jitter_y = jy, .mip_bias = bias),
                       &b, &v->cam),
          "scene_render");
}

static void to_srgb8(const upf_image *lin, imageio_image *out)
{
    check(upf_resample(ctx, lin, &out->img, UPF_FILTER_BILINEAR), "8-bit copy");
}

/* ---- the disocclusion mask of a reference frame ------------------------------------------ */

static void mat_vec(const double *m, const double *v, double *o)
{
    for (int r = 0; r < 4; r++)
        o[r] = m[4 * r] * v[0] + m[4 * r + 1] * v[1] + m[4 * r + 2] * v[2] + m[4 * r + 3] * v[3];
}

static double view_distance(const scene_camera *c, float d)
{
    double n = c->near_plane, f = c->far_plane;
    if (isinf(f))
        return c->depth_reversed ? n / fmax(d, 1e-30) : n / fmax(1.0 - d, 1e-30);
    return c->depth_reversed ? f * n / (n + d * (f - n)) : f * n / (f - d * (f - n));
}

static bool is_sky(const scene_camera *c, float d)
{
    return c->depth_reversed ? d <= 0.0f : d >= 1.0f;
}

/* Pixels of `cur` (a reference frame) whose surface was not visible in `prev` at the position
 * its motion points to: off the screen, or any of the bilinear taps there at a distance
 * from the previous camera more than 5% off the point's own (the scene renderer's own test of
 * its motion vectors, docs/SCENES.md). The point's previous distance is that of a static
 * point; the movers move a few centimetres a frame, well inside the 5%. */
static long disocclusion_mask(const view *cur, const view *prev, uint8_t *mask)
{
    const int w = cur->color.img.width, h = cur->color.img.height;
    const float *depth = cur->depth.img.data, *pdepth = prev->depth.img.data;
    const float *motion = cur->motion.img.data;
    long count = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            double px = x + 0.5 + motion[2 * i], py = y + 0.5 + motion[2 * i + 1];
            bool dis = px < 0 || py < 0 || px > w || py > h;
            if (!dis) {
                bool sky = is_sky(&cur->cam, depth[i]);
                double expect = 0;
                if (!sky) {
                    /* the point in view space, then the world, then the previous view */
                    double z = view_distance(&cur->cam, depth[i]);
                    double nx = 2.0 * (x + 0.5) / w - 1.0, ny = 1.0 - 2.0 * (y + 0.5) / h;
                    double vp[4] = { nx * z / cur->cam.proj[0], ny * z / cur->cam.proj[5], -z, 1 };
                    /* world = inverse(view) * vp: the view is a rigid motion */
                    const double *V = cur->cam.view;
                    double t[3] = { vp[0] - V[3], vp[1] - V[7], vp[2] - V[11] };
                    double wp[4] = { V[0] * t[0] + V[4] * t[1] + V[8] * t[2],
                                     V[1] * t[0] + V[5] * t[1] + V[9] * t[2],
                                     V[2] * t[0] + V[6] * t[1] + V[10] * t[2], 1 };
                    double q[4];
                    mat_vec(cur->cam.prev_view, wp, q);
                    expect = -q[2];
                }
                int x0 = (int)floor(px - 0.5), y0 = (int)floor(py - 0.5);
                double fx = px - 0.5 - x0, fy = py - 0.5 - y0;
                for (int k = 0; k < 4 && !dis; k++) {
                    int tx = x0 + (k & 1), ty = y0 + (k >> 1);
                    if (((k & 1) ? fx : 1 - fx) * ((k >> 1) ? fy : 1 - fy) < 0.01)
                        continue; /* a tap the position does not touch */
                    tx = tx < 0 ? 0 : tx >= w ? w - 1 : tx;
                    ty = ty < 0 ? 0 : ty >= h ? h - 1 : ty;
                    float pd = pdepth[(size_t)ty * w + tx];
                    bool psky = is_sky(&prev->cam, pd);
                    if (sky || psky)
                        dis = sky != psky;
                    else
                        dis = fabs(view_distance(&prev->cam, pd) - expect) > 0.05 * expect;
                }
            }
            mask[i] = dis;
            count += dis;
        }
    return count;
}

/* ---- scoring ------------------------------------------------------------------------------ */

static void measure(score *s, const upf_image *ref, const upf_image *test, const uint8_t *mask,
                    bool flip)
{
    upf_psnr_result p;
    double ssim = 0;
    upf_flip_result f = { 0 };
    check(upf_metric_psnr(ctx, ref, test, NULL, &p), "psnr");
    check(upf_metric_ssim(ctx, ref, test, NULL, &ssim), "ssim");
    if (flip)
        check(upf_metric_flip(ctx, ref, test, NULL, NULL, &f, NULL), "flip");
    s->psnr += p.rgb;
    s->ssim += ssim;
    s->flip += f.mean;
    s->frames++;
    if (mask) {
        const uint8_t *a = ref->data, *b = test->data;
        for (size_t i = 0; i < (size_t)ref->width * ref->height; i++)
            if (mask[i])
                for (int c = 0; c < 3; c++) {
                    double d = (a[4 * i + c] - b[4 * i + c]) / 255.0;
                    s->mask_se += d * d;
                    s->mask_n++;
                }
    }
}

/* Rec. 709 luma of an 8-bit sRGB pixel's codes, 0..255 (upf_metric_shimmer's luma). */
static double luma8(const uint8_t *p)
{
    return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
}

/* Shimmer where the scene is still: over the pixels whose reference luma changes by less than
 * one code from frame to frame, the mean absolute change of `test`'s luma (codes); `ref_out`
 * gets the reference's own over the same pixels. Issue 34's measure: the scene's movers and
 * their shadows, which the whole-frame shimmer counts, are left out. */
static void stable_shimmer(const upf_image *ref, const upf_image *test, int count, double *out,
                           double *ref_out)
{
    double sum = 0, rsum = 0;
    long n = 0;
    const size_t px = (size_t)ref[0].width * ref[0].height;
    for (int t = 1; t < count; t++) {
        const uint8_t *r0 = ref[t - 1].data, *r1 = ref[t].data;
        const uint8_t *a = test[t - 1].data, *b = test[t].data;
        for (size_t i = 0; i < px; i++) {
            double dr = fabs(luma8(r1 + 4 * i) - luma8(r0 + 4 * i));
            if (dr >= 1.0)
                continue;
            rsum += dr;
            sum += fabs(luma8(b + 4 * i) - luma8(a + 4 * i));
            n++;
        }
    }
    *out = n ? sum / n : NAN;
    if (ref_out)
        *ref_out = n ? rsum / n : NAN;
}

/* ---- one sequence at one ratio ------------------------------------------------------------ */

typedef struct run_opts {
    int out_w, out_h, spp, frames;
    double bias_offset;            /* the rule's -1 (or, for the bias measurement, none) */
    bool rule_bias;                /* false: inputs at bias 0 */
    bool only_temporal;
    bool no_per_frame;             /* the two temporal engines only (--only-temporal) */
    const char *dump_dir;          /* --dump-frames: every frame's output and reference, or NULL */
    const char *scene_name;        /* the sequence's scene (for dump_frame's file names) */
    const char *inputs_dir;        /* --dump-inputs: every frame's inputs (dump_inputs), or NULL */
    bool peers;                    /* score the --peer frames of this sequence */
    uint32_t seed;                 /* the sequence's seed (for dump_inputs' sidecar) */
} run_opts;

/* Whether method m is run and scored in a sequence of options o (peers: when o->peers). */
static bool method_scored(const run_opts *o, int m)
{
    if (m >= N_METHODS)
        return o->peers && m < N_METHODS + n_peers;
    return !(o->only_temporal && m != M_TEMPORAL) &&
           !(o->no_per_frame && m != M_TEMPORAL && m != M_FILL);
}

/* --dump-frames DIR: frame n of the temporal engine (no fill) and its reference, as raw 8-bit
 * sRGB RGBA, the output's W x H pixels then the reference's, in
 * DIR/SCENE-PATH-RATIOx-NN-WxH.rgba (for per-frame measurements outside the bench, such as
 * bench/temporal_speckle.py). */
static void dump_frame(const run_opts *o, const char *path_name, double ratio, int n,
                       const upf_image *out_img, const upf_image *ref_img)
{
    char fn[4096];
    snprintf(fn, sizeof fn, "%s/%s-%s-%gx-%02d-%dx%d.rgba", o->dump_dir, o->scene_name,
             path_name, ratio, n, o->out_w, o->out_h);
    FILE *f = fopen(fn, "wb");
    const size_t px = (size_t)o->out_w * o->out_h;
    bool ok = f && fwrite(out_img->data, 4, px, f) == px && fwrite(ref_img->data, 4, px, f) == px;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        die("cannot write %s", fn);
}

/* The name of a sequence in --dump-inputs and --peer folders: SCENE-PATH-RATIOx-Nf, e.g.
 * courtyard-pan-2x-16f (the 48-frame sequences get their own). */
static void seq_name(char *buf, size_t size, const run_opts *o, const char *path_name,
                     double ratio)
{
    snprintf(buf, size, "%s-%s-%gx-%df", o->scene_name, path_name, ratio, o->frames);
}

static void write_text(const char *fn, const char *text)
{
    FILE *f = fopen(fn, "w");
    bool ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        die("cannot write %s", fn);
}

/* DIR/SEQ/sequence.txt: the sequence's sizes and conventions, for people (dump_inputs). */
static void dump_sequence_text(const run_opts *o, const char *seq, const char *path_name,
                               double ratio, int w, int h, int phases, double bias)
{
    char fn[4096], text[2048];
    snprintf(fn, sizeof fn, "%s/%s", o->inputs_dir, seq);
    mkdir(fn, 0777);
    snprintf(text, sizeof text,
             "sequence %s: scene %s, seed %u, path %s, frames %d at %g fps\n"
             "render %dx%d, output %dx%d, ratio %g, Halton(2,3) jitter, %d phases, mip bias %g\n"
             "NNNN.color.pfm: jittered render, linear-light RGB, PFM rows bottom to top\n"
             "NNNN.depth.pfm: depth, reversed (1 near, 0 far), finite far plane\n"
             "NNNN.motion.pfm: R,G = previous - current screen position, unjittered, "
             "render pixels, x right, y down\n"
             "NNNN.json: jitter [jx, jy] (pixel x samples x + 0.5 + jx, render pixels, y "
             "down), near, far, fov_y (radians), frame_time_ms, reset, output size\n"
             "a peer's output: NNNN.png, 8-bit sRGB, %dx%d, in PEER_DIR/%s/\n",
             seq, o->scene_name, o->seed, path_name, o->frames, FPS, w, h, o->out_w, o->out_h,
             ratio, phases, bias, o->out_w, o->out_h, seq);
    snprintf(fn, sizeof fn, "%s/%s/sequence.txt", o->inputs_dir, seq);
    write_text(fn, text);
}

/* --dump-inputs DIR: what a temporal upscaler gets for frame n of a sequence, in
 * DIR/SEQ/ (seq_name), as `upframe temporal` reads a sequence (docs/TEMPORAL.md):
 *   NNNN.color.pfm   the jittered render, linear-light RGB (scene-referred, may exceed 1;
 *                    PFM "PF", little endian, rows bottom to top), render size
 *   NNNN.depth.pfm   depth (PFM "Pf"): reversed, 1 at the near plane and 0 at the far plane
 *                    (finite far: d = n (f - z) / (z (f - n)) for view distance z), sampled
 *                    at the same jittered position as the colour; 0 on the sky
 *   NNNN.motion.pfm  R, G = previous minus current screen position of the surface the
 *                    pixel's depth sample hit, both without jitter: render pixels, x right,
 *                    y down (current + motion = where it was in frame n - 1); B = 0
 *   NNNN.json        the sidecar of `upframe render` (scene_camera_json: jitter, near, far,
 *                    fov_y in radians, depth "reversed", the matrices, cut) with the output
 *                    size, the frame time in ms and `reset` (frame 0, or a camera cut) added
 * The jitter (jx, jy) is ours: pixel (x, y) of the render sampled the unjittered screen
 * position (x + 0.5 + jx, y + 0.5 + jy), render pixels, y down; the image moved by
 * (-jx, -jy) (FSR 2's jitterOffset is (-jx, -jy): docs/TEMPORAL.md, "Jitter"). DIR/SEQ/
 * sequence.txt says the same once per sequence with its sizes (dump_sequence_text). */
static void dump_inputs(const run_opts *o, const char *path_name, double ratio, int n,
                        int phases, double bias, const view *in)
{
    char seq[256], fn[4096], err[IMAGEIO_ERR_SIZE];
    seq_name(seq, sizeof seq, o, path_name, ratio);
    const int w = in->color.img.width, h = in->color.img.height;
    if (n == 0)
        dump_sequence_text(o, seq, path_name, ratio, w, h, phases, bias);
    static const char *const kinds[3] = { "color", "depth", "motion" };
    const upf_image *imgs[3] = { &in->color.img, &in->depth.img, &in->motion.img };
    for (int k = 0; k < 3; k++) {
        snprintf(fn, sizeof fn, "%s/%s/%04d.%s.pfm", o->inputs_dir, seq, n, kinds[k]);
        if (imageio_write_pfm(fn, imgs[k], err) != UPF_OK)
            die("%s", err);
    }
    scene_frame_info info = { .scene = o->scene_name, .seed = o->seed, .path = path_name,
                              .frame = n, .fps = FPS, .width = w, .height = h, .spp = 1,
                              .mip_bias = bias, .jitter_mode = "halton", .jitter_index = n,
                              .jitter_phases = phases };
    char json[16384];
    char *end = scene_camera_json(&info, &in->cam, json, sizeof json) ? strrchr(json, '}') : NULL;
    if (!end || end == json)
        die("the sidecar of %s frame %d does not fit", seq, n);
    while (end > json && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    snprintf(end, sizeof json - (size_t)(end - json),
             ",\n  \"output_width\": %d,\n  \"output_height\": %d,\n  \"frame_time_ms\": %.17g,"
             "\n  \"reset\": %s\n}\n", o->out_w, o->out_h, 1000.0 / FPS,
             n == 0 || in->cam.cut ? "true" : "false");
    snprintf(fn, sizeof fn, "%s/%s/%04d.json", o->inputs_dir, seq, n);
    write_text(fn, json);
}

/* --peer NAME=DIR: peer p's output for frame n of a sequence, DIR/SEQ/NNNN.png (seq_name),
 * an 8-bit sRGB PNG of the output size, into dst (RGBA8_SRGB, the output size). */
static void read_peer_frame(const run_opts *o, const char *path_name, double ratio, int n,
                            int p, imageio_image *dst)
{
    char seq[256], fn[4096], err[IMAGEIO_ERR_SIZE];
    seq_name(seq, sizeof seq, o, path_name, ratio);
    snprintf(fn, sizeof fn, "%s/%s/%04d.png", peers[p].dir, seq, n);
    imageio_image im;
    if (imageio_read(fn, NULL, &im, err) != UPF_OK)
        die("peer %s: %s (expected frame %d of sequence %s: an 8-bit sRGB PNG of %dx%d)",
            peers[p].name, err, n, seq, o->out_w, o->out_h);
    if (im.type != IMAGEIO_PNG || im.bit_depth != 8 || im.img.format != UPF_FORMAT_RGBA8_SRGB)
        die("peer %s: %s is a %d-bit %s; expected an 8-bit sRGB PNG", peers[p].name, fn,
            im.bit_depth, imageio_type_name(im.type));
    if (im.img.width != o->out_w || im.img.height != o->out_h)
        die("peer %s: %s is %dx%d; expected the output size, %dx%d", peers[p].name, fn,
            im.img.width, im.img.height, o->out_w, o->out_h);
    const size_t row = (size_t)o->out_w * 4;
    const size_t ss = im.img.stride ? im.img.stride : row;
    const size_t ds = dst->img.stride ? dst->img.stride : row;
    for (int y = 0; y < o->out_h; y++)
        memcpy((uint8_t *)dst->img.data + y * ds, (const uint8_t *)im.img.data + y * ss, row);
    imageio_free(&im);
}

typedef struct seq_result {
    score s[N_ALL];
    double shimmer[N_ALL], shimmer_ref;
    double stable[N_ALL], stable_ref; /* stable_shimmer */
    imageio_image last[N_ALL];      /* the last frame of each (for crops), or empty */
} seq_result;

/* References of one sequence, rendered once for all ratios. */
typedef struct refs {
    int frames;
    imageio_image srgb[MAX_FRAMES];
    uint8_t *mask[MAX_FRAMES];      /* NULL for frame 0 */
    long masked[MAX_FRAMES];
    scene_camera last_cam;          /* the last frame's camera (the feature crops) */
} refs;

/* --ref-cache DIR: references kept in files between runs (they take most of a run's time);
 * a file holds one sequence's, named by everything that makes them. */
static const char *ref_cache;

static void refs_cache_name(char *name, size_t size, const char *scene_name, uint32_t seed,
                            int path, const run_opts *o)
{
    snprintf(name, size, "%s/%s-%u-%s-%dx%d-%dspp-%d.ref", ref_cache, scene_name, seed,
             all_paths[path], o->out_w, o->out_h, o->spp, o->frames);
}

/* Reads (write false) or writes the references of a sequence; false if it cannot. */
static bool refs_cache_io(const char *name, refs *r, const run_opts *o, bool write)
{
    FILE *f = fopen(name, write ? "wb" : "rb");
    if (!f)
        return false;
    const size_t px = (size_t)o->out_w * o->out_h;
    bool ok = true;
    r->frames = o->frames;
    for (int n = 0; n < o->frames && ok; n++) {
        if (!write) {
            r->srgb[n] = alloc_image(o->out_w, o->out_h, UPF_FORMAT_RGBA8_SRGB);
            r->mask[n] = n ? malloc(px) : NULL;
            if (n && !r->mask[n])
                die("out of memory");
        }
        ok = (write ? fwrite(r->srgb[n].img.data, 4, px, f) : fread(r->srgb[n].img.data, 4, px, f)) == px;
        if (ok && n)
            ok = (write ? fwrite(r->mask[n], 1, px, f) : fread(r->mask[n], 1, px, f)) == px &&
                 (write ? fwrite(&r->masked[n], sizeof r->masked[n], 1, f)
                        : fread(&r->masked[n], sizeof r->masked[n], 1, f)) == 1;
    }
    if (ok)
        ok = (write ? fwrite(&r->last_cam, sizeof r->last_cam, 1, f)
                    : fread(&r->last_cam, sizeof r->last_cam, 1, f)) == 1;
    fclose(f);
    if (!ok && write)
        remove(name);
    return ok;
}

static void refs_render(scene *sc, int path, const run_opts *o, refs *r);

static void refs_make(scene *sc, const char *scene_name, uint32_t seed, int path,
                      const run_opts *o, refs *r)
{
    char name[4096];
    if (ref_cache) {
        refs_cache_name(name, sizeof name, scene_name, seed, path, o);
        memset(r, 0, sizeof *r);
        if (refs_cache_io(name, r, o, false))
            return;
        for (int n = 0; n < o->frames; n++) { /* a partial read */
            imageio_free(&r->srgb[n]);
            free(r->mask[n]);
        }
    }
    refs_render(sc, path, o, r);
    if (ref_cache)
        refs_cache_io(name, r, o, true);
}

static void refs_render(scene *sc, int path, const run_opts *o, refs *r)
{
    view cur, prev;
    view_alloc(&cur, o->out_w, o->out_h);
    view_alloc(&prev, o->out_w, o->out_h);
    r->frames = o->frames;
    for (int n = 0; n < o->frames; n++) {
        render(sc, path, n, o->spp, 0, 0, 0, &cur);
        r->srgb[n] = alloc_image(o->out_w, o->out_h, UPF_FORMAT_RGBA8_SRGB);
        to_srgb8(&cur.color.img, &r->srgb[n]);
        r->mask[n] = NULL;
        if (n > 0) {
            r->mask[n] = malloc((size_t)o->out_w * o->out_h);
            if (!r->mask[n])
                die("out of memory");
            r->masked[n] = disocclusion_mask(&cur, &prev, r->mask[n]);
        }
        r->last_cam = cur.cam;
        view t = prev;
        prev = cur;
        cur = t;
    }
    view_free(&cur);
    view_free(&prev);
}

static void refs_free(refs *r)
{
    for (int n = 0; n < r->frames; n++) {
        imageio_free(&r->srgb[n]);
        free(r->mask[n]);
    }
}

static void run_sequence(scene *sc, int path, double ratio, const run_opts *o, const refs *ref,
                         seq_result *res)
{
    memset(res, 0, sizeof *res);
    const int W = o->out_w, H = o->out_h;
    const int w = (int)lround(W / ratio), h = (int)lround(H / ratio);
    int phases;
    double bias = 0;
    check(upf_jitter_phase_count(ctx, w, W, &phases), "phases");
    if (o->rule_bias)
        check(upf_mip_bias(ctx, 0.0, w, W, UPF_MIP_BIAS_OFFSET, &bias), "bias");
    upf_temporal *tp[2];
    for (int k = 0; k < 2; k++) {
        tp[k] = upf_temporal_create(ctx, upf_temporal_params(
            .render_width = w, .render_height = h, .output_width = W, .output_height = H,
            .flags = k ? UPF_TEMPORAL_SPATIAL_FILL : 0, .models = models));
        if (!tp[k])
            check(upf_context_last_error(ctx, NULL), "upf_temporal_create");
    }
    upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(
        .src_width = w, .src_height = h, .dst_width = W, .dst_height = H, .models = models));
    upf_resampler *lz = upf_resampler_create(ctx, upf_resampler_params(
        .src_width = w, .src_height = h, .dst_width = W, .dst_height = H,
        .filter = UPF_FILTER_LANCZOS3));
    if (!sp || !lz)
        check(upf_context_last_error(ctx, NULL), "per-frame upscalers");
    view in, plain;
    view_alloc(&in, w, h);
    imageio_image in8 = alloc_image(w, h, UPF_FORMAT_RGBA8_SRGB);
    const bool per_frame = !o->only_temporal && !o->no_per_frame;
    if (per_frame)
        view_alloc(&plain, w, h);
    imageio_image out[N_ALL], kept[N_ALL][MAX_FRAMES];
    const int n_methods = N_METHODS + (o->peers ? n_peers : 0);
    for (int m = 0; m < n_methods; m++)
        out[m] = alloc_image(W, H, UPF_FORMAT_RGBA8_SRGB);
    const bool still = strcmp(all_paths[path], "still") == 0;
    int nk = 0;
    for (int n = 0; n < o->frames; n++) {
        double jx, jy;
        check(upf_jitter_offset(ctx, n, phases, &jx, &jy), "jitter");
        render(sc, path, n, 1, jx, jy, bias, &in);
        if (per_frame && n >= FIRST_SCORED) {
            to_srgb8(&in.color.img, &in8);
            check(upf_spatial_run(sp, &in8.img, &out[M_SPATIAL_JIT].img), "spatial");
            render(sc, path, n, 1, 0, 0, bias, &plain);
            to_srgb8(&plain.color.img, &in8);
            check(upf_resampler_run(lz, &in8.img, &out[M_LANCZOS].img), "lanczos");
            check(upf_spatial_run(sp, &in8.img, &out[M_SPATIAL].img), "spatial");
        }
        const scene_camera *c = &in.cam;
        upf_temporal_frame f = {
            .color = &in.color.img, .depth = &in.depth.img, .motion = &in.motion.img,
            .jitter_x = jx, .jitter_y = jy,
            .camera = { .near_plane = c->near_plane, .far_plane = c->far_plane,
                        .fov_y = c->fov_y, .depth_reversed = c->depth_reversed,
                        .far_infinite = isinf(c->far_plane) },
            .frame_time_ms = 1000.0 / FPS, .reset = c->cut,
        };
        for (int k = 0; k < 2; k++)
            if (!o->only_temporal || k == 0)
                check(upf_temporal_run(tp[k], &f, &out[M_TEMPORAL + k].img), "upf_temporal_run");
        if (o->dump_dir)
            dump_frame(o, all_paths[path], ratio, n, &out[M_TEMPORAL].img, &ref->srgb[n].img);
        if (o->inputs_dir)
            dump_inputs(o, all_paths[path], ratio, n, phases, bias, &in);
        if (n < FIRST_SCORED)
            continue;
        for (int m = N_METHODS; m < n_methods; m++)
            read_peer_frame(o, all_paths[path], ratio, n, m - N_METHODS, &out[m]);
        for (int m = 0; m < n_methods; m++) {
            if (!method_scored(o, m))
                continue;
            /* FLIP (the slowest metric) on every other scored frame */
            measure(&res->s[m], &ref->srgb[n].img, &out[m].img, ref->mask[n],
                    (n - FIRST_SCORED) % 2 == 0);
            if (still) {
                kept[m][nk] = alloc_image(W, H, UPF_FORMAT_RGBA8_SRGB);
                memcpy(kept[m][nk].img.data, out[m].img.data, (size_t)W * H * 4);
            }
        }
        if (still)
            nk++;
    }
    upf_image ref_frames[MAX_FRAMES];
    for (int k = 0; k < nk; k++)
        ref_frames[k] = ref->srgb[FIRST_SCORED + k].img;
    for (int m = 0; m < n_methods; m++) {
        if (still && nk >= 2 && method_scored(o, m)) {
            upf_image frames[MAX_FRAMES];
            for (int k = 0; k < nk; k++)
                frames[k] = kept[m][k].img;
            check(upf_metric_shimmer(ctx, frames, nk, NULL, &res->shimmer[m]), "shimmer");
            stable_shimmer(ref_frames, frames, nk, &res->stable[m], &res->stable_ref);
            for (int k = 0; k < nk; k++)
                imageio_free(&kept[m][k]);
        }
        res->last[m] = out[m];
    }
    if (still && nk >= 2) {
        upf_image frames[MAX_FRAMES];
        for (int k = 0; k < nk; k++)
            frames[k] = ref->srgb[FIRST_SCORED + k].img;
        check(upf_metric_shimmer(ctx, frames, nk, NULL, &res->shimmer_ref), "shimmer");
    }
    view_free(&in);
    if (per_frame)
        view_free(&plain);
    imageio_free(&in8);
    upf_temporal_destroy(&tp[0]);
    upf_temporal_destroy(&tp[1]);
    upf_spatial_destroy(&sp);
    upf_resampler_destroy(&lz);
}

/* ---- the whole run ------------------------------------------------------------------------ */

typedef struct cell {
    score s[N_ALL];
    double shimmer[N_ALL], shimmer_ref;
    double stable[N_ALL], stable_ref;
    int sequences;
} cell;

#define in_list bench_in_list

static double mean_of(double sum, int n)
{
    return n ? sum / n : NAN;
}

static double mask_psnr(const score *s)
{
    return s->mask_n ? -10.0 * log10(s->mask_se / (double)s->mask_n) : NAN;
}

/* The methods in a crop sheet, in order: the N_SHEET methods, then the peers scored. */
static int sheet_methods(const seq_result *r, int *ms)
{
    int n = 0;
    for (int m = 0; m < N_ALL; m++)
        if (m < N_SHEET || (m >= N_METHODS && r->last[m].img.data))
            ms[n++] = m;
    return n;
}

static void write_crops(const char *dir, const char *scene_name, const char *path_name,
                        double ratio, const upf_image *ref, const seq_result *r)
{
    enum { CW = 192, CH = 120, Z = 2, LH = 18 };
    int cx, cy;
    bench_busiest_crop(ref, CW, CH, &cx, &cy);
    int ms[N_ALL];
    const int nm = sheet_methods(r, ms);
    imageio_image sheet = alloc_image((1 + nm) * (CW * Z + 4), CH * Z + LH,
                                      UPF_FORMAT_RGBA8_SRGB);
    uint8_t *p = sheet.img.data;
    for (size_t i = 0; i < (size_t)sheet.img.width * sheet.img.height; i++)
        p[4 * i + 3] = 255;
    bench_sheet_put(&sheet.img, 0, LH, ref, cx, cy, CW, CH, Z, "reference");
    for (int k = 0; k < nm; k++)
        bench_sheet_put(&sheet.img, 1 + k, LH, &r->last[ms[k]].img, cx, cy, CW, CH, Z,
                        method_label_short(ms[k]));
    char path[4096], err[IMAGEIO_ERR_SIZE];
    snprintf(path, sizeof path, "%s/quality/temporal-%s-%s-%gx.png", dir, scene_name, path_name,
             ratio);
    if (imageio_write_png(path, &sheet.img, 8, err) != UPF_OK)
        die("%s", err);
    fprintf(stderr, "bench_temporal: %s (crop at %d,%d)\n", path, cx, cy);
    imageio_free(&sheet);
}

/* Crops of named features (issue 34): a thin railing, overhead wires, a brick wall under a
 * panning camera. Each is a list of points of the scene (metres, tools/scene/scene_*.c); the
 * crop is centred on the first of them that the last frame's camera sees well inside the
 * frame, so it does not depend on a seed's exact camera. */
typedef struct feature {
    const char *name, *scene, *path, *what;
    double pts[6][3];
    int n;
} feature;

static const feature features[] = {
    { "railing", "courtyard", "still", "the balcony railing, 2 cm bars 11 cm apart",
      { { 0, 4.2, -10.45 }, { -3, 4.2, -10.45 }, { 3, 4.2, -10.45 }, { -6, 4.2, -11.2 },
        { 6, 4.2, -11.2 } }, 5 },
    { "wires", "street", "still", "overhead wires along the street",
      { { -6.4, 7.9, 12.5 }, { -6.4, 7.9, -12.5 }, { 4.8, 7.9, 25 }, { 4.8, 7.9, 0 },
        { -6.4, 7.9, -37.5 }, { 4.8, 7.9, -25 } }, 6 },
    { "brick", "courtyard", "pan", "the brick walls, camera panning",
      { { 0, 1.5, -12 }, { -6, 1.5, -12 }, { 6, 1.5, -12 }, { -12, 1.5, -4 }, { -12, 1.5, 4 } },
      5 },
};
#define N_FEATURES (int)(sizeof features / sizeof features[0])

/* Screen position (output pixels, y down) of world point p; false if behind the camera or
 * within `margin` of the frame's border. */
static bool project(const scene_camera *c, const double *p, int W, int H, int margin, int *x,
                    int *y)
{
    double wp[4] = { p[0], p[1], p[2], 1 }, v[4], q[4];
    mat_vec(c->view, wp, v);
    mat_vec(c->proj, v, q);
    if (q[3] <= 1e-6)
        return false;
    double sx = (q[0] / q[3] + 1) * 0.5 * W, sy = (1 - q[1] / q[3]) * 0.5 * H;
    *x = (int)lround(sx), *y = (int)lround(sy);
    return sx >= margin && sx <= W - margin && sy >= margin && sy <= H - margin;
}

/* Continuity of the thin features in a crop (issue 34: "the railing and wires continuous").
 * The thin features are located in the reference: a pixel is on a ridge across axis a (x or
 * y) when its luma differs from both its neighbours along a in the same direction by at least
 * THIN_MIN codes each and its contrast c = L(p) - (L(p - a) + L(p + a)) / 2 is the largest in
 * magnitude of p and those two neighbours; ridge pixels of one axis that touch (a step along
 * the line, at most one pixel across) make a line, and lines of fewer than THIN_LENGTH pixels
 * (a texture's specks) are left out. Each pixel of a line is a crossing. The output's contrast
 * there is the same expression on its luma, signed like the reference's, the best of p and its
 * two neighbours across (a line drawn a pixel off still counts). Per crossing r = output
 * contrast / |c|: *gaps is the share of crossings with r < 1/2 (the feature lost there),
 * *dotted the coefficient of variation of r (std / mean: a line drawn in dots varies along it,
 * a continuous one, even if faint, does not). 0 and 0 for the reference itself. *missing is
 * the share with r < 1/4 (a line missing there, not only faint), printed to stderr only. The brick's
 * joints and the windows' frames in these crops count too: they are lines of the same kind. */
#define THIN_MIN 4.0
#define THIN_LENGTH 6

static double crop_luma(const upf_image *im, int x, int y)
{
    x = x < 0 ? 0 : x >= im->width ? im->width - 1 : x;
    y = y < 0 ? 0 : y >= im->height ? im->height - 1 : y;
    return luma8((const uint8_t *)im->data + ((size_t)y * im->width + x) * 4);
}

/* The contrast of p across axis (dx, dy) (one of them 1, the other 0). */
static double ridge_contrast(const upf_image *im, int x, int y, int dx, int dy)
{
    return crop_luma(im, x, y) - 0.5 * (crop_luma(im, x - dx, y - dy) + crop_luma(im, x + dx, y + dy));
}

static bool is_ridge(const upf_image *ref, int x, int y, int dx, int dy, double *c)
{
    double l = crop_luma(ref, x, y);
    double a = l - crop_luma(ref, x - dx, y - dy), b = l - crop_luma(ref, x + dx, y + dy);
    if (!((a >= THIN_MIN && b >= THIN_MIN) || (a <= -THIN_MIN && b <= -THIN_MIN)))
        return false;
    *c = ridge_contrast(ref, x, y, dx, dy);
    return fabs(*c) >= fabs(ridge_contrast(ref, x - dx, y - dy, dx, dy)) &&
           fabs(*c) > fabs(ridge_contrast(ref, x + dx, y + dy, dx, dy));
}

/* The pixels of the line through crop pixel i of axis `axis` (in `ridge`, 1: a ridge not yet
 * visited): marks them 2 and lists them in `line`; their count. */
static int ridge_line(uint8_t *ridge, int cw, int ch, int axis, int i, int *line)
{
    int n = 0;
    ridge[i] = 2;
    line[n++] = i;
    for (int k = 0; k < n; k++) {
        const int x = line[k] % cw, y = line[k] / cw;
        for (int along = -1; along <= 1; along += 2)
            for (int across = -1; across <= 1; across++) {
                int nx = axis == 0 ? x + across : x + along, ny = axis == 0 ? y + along : y + across;
                if (nx >= 0 && ny >= 0 && nx < cw && ny < ch && ridge[ny * cw + nx] == 1) {
                    ridge[ny * cw + nx] = 2;
                    line[n++] = ny * cw + nx;
                }
            }
    }
    return n;
}

/* The next crossing along axis `axis` from crop pixel i in direction dir (one step along, at
 * most one across, straight ahead first) in `ratio` (NAN where no crossing), or -1. */
static int next_crossing(const double *ratio, int cw, int ch, int axis, int i, int dir)
{
    static const int across[3] = { 0, -1, 1 };
    for (int j = 0; j < 3; j++) {
        const int x = i % cw + (axis == 0 ? across[j] : dir);
        const int y = i / cw + (axis == 0 ? dir : across[j]);
        if (x >= 0 && y >= 0 && x < cw && y < ch && !isnan(ratio[y * cw + x]))
            return y * cw + x;
    }
    return -1;
}

/* Whether the gap at crossing i (ratio below half) lies in a gap of at most 3 crossings
 * between two drawn runs (ratio at least half) of `run` crossings or more, one each side
 * along the line: what a bridge along the line from runs of that length could reach. */
static bool gap_between_runs(const double *ratio, int cw, int ch, int axis, int i, int run)
{
    int skipped = 0;
    for (int dir = -1; dir <= 1; dir += 2) {
        int p = i, drawn = 0;
        while ((p = next_crossing(ratio, cw, ch, axis, p, dir)) >= 0) {
            if (ratio[p] >= 0.5)
                drawn++;
            else if (drawn)
                break;
            else
                skipped++;
        }
        if (drawn < run)
            return false;
    }
    return skipped <= 2;
}

/* The continuity of the crop's thin lines (the crossings of the reference's ridges; see the
 * crop's notes in the output): gaps, dotted and the share below a quarter; between[k], the
 * gaps that lie between two drawn runs of 6, 3 or 1 crossings (k = 0, 1, 2; gap_between_runs). */
static int thin_continuity(const upf_image *ref, const upf_image *test, int cx, int cy, int cw,
                           int ch, double *gaps, double *dotted, double *missing, int between[3])
{
    double sum = 0, sum2 = 0;
    int n = 0, lost = 0, gone = 0;
    uint8_t *ridge = malloc((size_t)cw * ch);
    double *con = malloc((size_t)cw * ch * sizeof *con);
    int *line = malloc((size_t)cw * ch * sizeof *line);
    double *ratio = malloc((size_t)cw * ch * sizeof *ratio);
    if (!ridge || !con || !line || !ratio)
        die("out of memory");
    between[0] = between[1] = between[2] = 0;
    for (int axis = 0; axis < 2; axis++) {
        const int dx = axis == 0, dy = axis == 1;
        for (int i = 0; i < cw * ch; i++) {
            ridge[i] = is_ridge(ref, cx + i % cw, cy + i / cw, dx, dy, &con[i]);
            ratio[i] = NAN;
        }
        for (int i = 0; i < cw * ch; i++) {
            if (ridge[i] != 1)
                continue;
            int len = ridge_line(ridge, cw, ch, axis, i, line);
            for (int k = 0; k < len && len >= THIN_LENGTH; k++) {
                const int x = cx + line[k] % cw, y = cy + line[k] / cw;
                const double c = con[line[k]];
                double best = -INFINITY;
                for (int j = -1; j <= 1; j++) {
                    double t = ridge_contrast(test, x + j * dx, y + j * dy, dx, dy);
                    best = fmax(best, c > 0 ? t : -t);
                }
                double r = best / fabs(c);
                ratio[line[k]] = r;
                sum += r, sum2 += r * r, n++;
                lost += r < 0.5;
                gone += r < 0.25;
            }
        }
        static const int runs[3] = { 6, 3, 1 };
        for (int i = 0; i < cw * ch; i++)
            for (int k = 0; k < 3 && ratio[i] < 0.5; k++)
                between[k] += gap_between_runs(ratio, cw, ch, axis, i, runs[k]);
    }
    free(ratio);
    free(ridge);
    free(con);
    free(line);
    double mean = n ? sum / n : NAN, var = n ? sum2 / n - mean * mean : NAN;
    *gaps = n ? (double)lost / n : NAN;
    *missing = n ? (double)gone / n : NAN;
    *dotted = n ? sqrt(var > 0 ? var : 0) / mean : NAN;
    return n;
}

/* The crop sheet of feature f: reference and the methods' last frames, 4x nearest neighbour. */
static void write_feature_crop(const char *dir, const feature *f, const refs *ref, int W, int H,
                               const seq_result *r, char *md, size_t md_size)
{
    enum { CW = 96, CH = 60, Z = 4, LH = 18 };
    int x = 0, y = 0;
    bool found = false;
    for (int k = 0; k < f->n && !found; k++)
        found = project(&ref->last_cam, f->pts[k], W, H, CW / 2, &x, &y);
    if (!found) {
        fprintf(stderr, "bench_temporal: %s not in view; no crop\n", f->name);
        md[0] = 0;
        return;
    }
    const int cx = x - CW / 2, cy = y - CH / 2;
    int ms[N_ALL];
    const int nm = sheet_methods(r, ms);
    imageio_image sheet = alloc_image((1 + nm) * (CW * Z + 4), CH * Z + LH,
                                      UPF_FORMAT_RGBA8_SRGB);
    uint8_t *p = sheet.img.data;
    for (size_t i = 0; i < (size_t)sheet.img.width * sheet.img.height; i++)
        p[4 * i + 3] = 255;
    bench_sheet_put(&sheet.img, 0, LH, &ref->srgb[ref->frames - 1].img, cx, cy, CW, CH, Z,
                    "reference");
    for (int k = 0; k < nm; k++)
        if (r->s[ms[k]].frames)
            bench_sheet_put(&sheet.img, 1 + k, LH, &r->last[ms[k]].img, cx, cy, CW, CH, Z,
                            method_label_short(ms[k]));
    char path[4096], err[IMAGEIO_ERR_SIZE];
    snprintf(path, sizeof path, "%s/quality/temporal-%s-2x.png", dir, f->name);
    if (imageio_write_png(path, &sheet.img, 8, err) != UPF_OK)
        die("%s", err);
    fprintf(stderr, "bench_temporal: %s (crop at %d,%d)\n", path, cx, cy);
    int len = snprintf(md, md_size, "%s (%s %s, crop at %d,%d):\n\n![%s](quality/temporal-%s-2x.png)"
                       "\n\n", f->what, f->scene, f->path, cx, cy, f->name, f->name);
    /* the thin features' continuity, per upscaler (thin_continuity) */
    bool first = true;
    for (int k = 0; k < nm && len > 0 && (size_t)len < md_size; k++) {
        const int m = ms[k];
        if (!r->s[m].frames)
            continue;
        double gaps, dotted, missing;
        int between[3];
        int n = thin_continuity(&ref->srgb[ref->frames - 1].img, &r->last[m].img, cx, cy, CW,
                                CH, &gaps, &dotted, &missing, between);
        fprintf(stderr,
                "bench_temporal: %s, %s: thin crossings %d, gaps %.1f%%, dotted %.2f "
                "(below a quarter: %.1f%%; gaps of 1-3 crossings between drawn runs of 6 / 3 / 1: "
                "%d / %d / %d)\n",
                f->name, method_label_short(m), n, 100.0 * gaps, dotted, 100.0 * missing,
                between[0], between[1], between[2]);
        if (first)
            len += snprintf(md + len, md_size - (size_t)len, "Thin features, %d crossings: ", n);
        len += snprintf(md + len, md_size - (size_t)len, "%s%s gaps %.1f%%, dotted %.2f",
                        first ? "" : "; ", method_label_short(m), 100.0 * gaps, dotted);
        first = false;
    }
    if (!first && len > 0 && (size_t)len < md_size)
        snprintf(md + len, md_size - (size_t)len, ".\n\n");
    imageio_free(&sheet);
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_temporal [--out DOCS_DIR] [--size WxH] [--spp N] [--frames N] "
                    "[--scenes LIST] [--paths LIST] [--ratios LIST] [--threads N] "
                    "[--command TEXT] [--no-bias-table] [--tune] [--only-temporal] [--long-frames N] [--ref-cache DIR] [--dump-frames DIR] "
                    "[--dump-inputs DIR] [--peer NAME=DIR]...\n");
    exit(1);
}

/* Its section of QUALITY.md, between these lines (bench_splice_section). */
#define MARK_BEGIN "<!-- bench_temporal: begin (made by bench/bench_temporal.c) -->"
#define MARK_END "<!-- bench_temporal: end -->"

/* The section's text. */
static bench_text text;
#define out(...) bench_text_out(&text, __VA_ARGS__)

int main(int argc, char **argv)
{
    const char *out_dir = NULL, *scenes = NULL, *paths = NULL, *ratios_s = "1.5,2,3";
    const char *command = NULL;
    run_opts o = { 576, 324, 16, 16, -1.0, true, false, false, NULL, NULL, NULL, true, 0 };
    int threads = 0, long_frames = 0;
    bool bias_table = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--no-bias-table")) {
            bias_table = false;
            continue;
        }
        if (!strcmp(a, "--long-frames") && i + 1 < argc) {
            long_frames = atoi(argv[++i]);
            if (long_frames < FIRST_SCORED + 2 || long_frames > MAX_FRAMES)
                usage();
            continue;
        }
        if (!strcmp(a, "--ref-cache") && i + 1 < argc) {
            ref_cache = argv[++i];
            mkdir(ref_cache, 0777);
            continue;
        }
        if (!strcmp(a, "--dump-frames") && i + 1 < argc) {
            o.dump_dir = argv[++i];
            mkdir(o.dump_dir, 0777);
            continue;
        }
        if (!strcmp(a, "--dump-inputs") && i + 1 < argc) {
            o.inputs_dir = argv[++i];
            mkdir(o.inputs_dir, 0777);
            continue;
        }
        if (!strcmp(a, "--peer") && i + 1 < argc) {
            char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1] || n_peers == MAX_PEERS)
                die("--peer %s: expected NAME=DIR (at most %d peers)", v, MAX_PEERS);
            *eq = 0;
            peers[n_peers++] = (peer){ v, eq + 1 };
            continue;
        }
        if (!strcmp(a, "--tune")) {
            tune_seeds = true;
            continue;
        }
        if (!strcmp(a, "--only-temporal")) {
            o.no_per_frame = true;
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--out"))
            out_dir = v;
        else if (!strcmp(a, "--size")) {
            if (sscanf(v, "%dx%d", &o.out_w, &o.out_h) != 2)
                usage();
        } else if (!strcmp(a, "--spp"))
            o.spp = atoi(v);
        else if (!strcmp(a, "--frames"))
            o.frames = atoi(v);
        else if (!strcmp(a, "--scenes"))
            scenes = v;
        else if (!strcmp(a, "--paths"))
            paths = v;
        else if (!strcmp(a, "--ratios"))
            ratios_s = v;
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--command"))
            command = v;
        else
            usage();
    }
    double ratios[MAX_RATIOS];
    int nr = 0;
    for (const char *p = ratios_s; *p && nr < MAX_RATIOS;) {
        char *end;
        ratios[nr] = strtod(p, &end);
        if (end == p || ratios[nr] < 1 || ratios[nr] > 4)
            usage();
        nr++;
        p = *end == ',' ? end + 1 : end;
    }
    if (o.spp < 1 || o.frames < FIRST_SCORED + 2 || o.frames > MAX_FRAMES || o.out_w < 64 ||
        o.out_h < 64 || threads < 0)
        usage();
    ctx = upf_context_create(upf_context_params(.threads = threads, .log = upf_log_stderr));
    if (!ctx)
        die("no context");
    models = upf_models_default(ctx);
    if (!models)
        check(upf_context_last_error(ctx, NULL), "models (this build has none)");
    if (out_dir) {
        char q[4096];
        snprintf(q, sizeof q, "%s/quality", out_dir);
        mkdir(out_dir, 0777);
        mkdir(q, 0777);
    }
    const double t_start = (double)time(NULL);

    cell cells[N_PATHS][MAX_RATIOS];
    memset(cells, 0, sizeof cells);
    static char feature_md[N_FEATURES][1024];
    /* the mip-bias measurement, per scene: detail of the crop and of the frame (reference,
     * inputs at bias 0, at the rule's bias), still shimmer at each bias */
    typedef struct bias_row {
        bool done;
        int cx, cy;
        double detail[3][2], shimmer[2];
    } bias_row;
    bias_row bias_rows[N_SCENES];
    memset(bias_rows, 0, sizeof bias_rows);
    for (int si = 0; si < N_SCENES; si++) {
        if (!in_list(scenes, all_scenes[si]))
            continue;
        for (int pi = 0; pi < N_PATHS; pi++) {
            if (!in_list(paths, all_paths[pi]))
                continue;
            scene *sc;
            o.scene_name = all_scenes[si];
            o.seed = eval_seed(si, pi);
            check(scene_create(ctx, all_scenes[si], eval_seed(si, pi), &sc), "scene_create");
            fprintf(stderr, "bench_temporal: %s-%s (seed %u): %d references %dx%d at %d spp\n",
                    all_scenes[si], all_paths[pi], eval_seed(si, pi), o.frames, o.out_w, o.out_h,
                    o.spp);
            refs ref;
            refs_make(sc, all_scenes[si], eval_seed(si, pi), pi, &o, &ref);
            for (int r = 0; r < nr; r++) {
                seq_result res;
                run_sequence(sc, pi, ratios[r], &o, &ref, &res);
                cell *c = &cells[pi][r];
                for (int m = 0; m < N_ALL; m++) {
                    score *d = &c->s[m], *s = &res.s[m];
                    d->psnr += s->psnr, d->ssim += s->ssim, d->flip += s->flip;
                    d->frames += s->frames;
                    d->mask_se += s->mask_se, d->mask_n += s->mask_n;
                    c->shimmer[m] += res.shimmer[m];
                    c->stable[m] += res.stable[m];
                }
                c->shimmer_ref += res.shimmer_ref;
                c->stable_ref += res.stable_ref;
                c->sequences++;
                fprintf(stderr, "bench_temporal: %s-%s %gx: PSNR", all_scenes[si], all_paths[pi],
                        ratios[r]);
                for (int m = 0; m < N_METHODS + n_peers; m++)
                    fprintf(stderr, " %s %.2f", method_label_short(m),
                            mean_of(res.s[m].psnr, res.s[m].frames));
                fprintf(stderr, "; disoccluded (%ld px)", (long)(res.s[M_TEMPORAL].mask_n / 3));
                for (int m = 0; m < N_SHEET; m++)
                    fprintf(stderr, " %.2f", mask_psnr(&res.s[m]));
                if (!strcmp(all_paths[pi], "still"))
                    fprintf(stderr, "; shimmer %.3f %.3f %.3f %.3f, spatial on jittered %.3f "
                            "(ref %.3f)", res.shimmer[0], res.shimmer[1], res.shimmer[2],
                            res.shimmer[3], res.shimmer[M_SPATIAL_JIT], res.shimmer_ref);
                if (!strcmp(all_paths[pi], "still"))
                    fprintf(stderr, "; still pixels: temporal %.3f fill %.3f (ref %.3f)",
                            res.stable[M_TEMPORAL], res.stable[M_FILL], res.stable_ref);
                for (int m = N_METHODS; m < N_METHODS + n_peers; m++)
                    fprintf(stderr, "; %s: SSIM %.4f, disoccluded %.2f, shimmer %.3f, still "
                            "pixels %.3f", method_label_short(m),
                            mean_of(res.s[m].ssim, res.s[m].frames), mask_psnr(&res.s[m]),
                            res.shimmer[m], res.stable[m]);
                fprintf(stderr, "\n");
                bool crop = out_dir && (ratios[r] == 2.0) &&
                            (!strcmp(all_paths[pi], "walk") || !strcmp(all_paths[pi], "still"));
                if (crop)
                    write_crops(out_dir, all_scenes[si], all_paths[pi], ratios[r],
                                &ref.srgb[o.frames - 1].img, &res);
                for (int f = 0; f < N_FEATURES && out_dir && ratios[r] == 2.0; f++)
                    if (!strcmp(features[f].scene, all_scenes[si]) &&
                        !strcmp(features[f].path, all_paths[pi]))
                        write_feature_crop(out_dir, &features[f], &ref, o.out_w, o.out_h, &res,
                                           feature_md[f], sizeof feature_md[f]);
                for (int m = 0; m < N_ALL; m++)
                    imageio_free(&res.last[m]);
            }
            if (bias_table && !strcmp(all_paths[pi], "still")) {
                bias_row *b = &bias_rows[si];
                const upf_image *rimg = &ref.srgb[o.frames - 1].img;
                bench_busiest_crop(rimg, 192, 120, &b->cx, &b->cy);
                upf_rect crop = { b->cx, b->cy, 192, 120 };
                check(upf_metric_detail(ctx, rimg, &crop, &b->detail[0][0]), "detail");
                check(upf_metric_detail(ctx, rimg, NULL, &b->detail[0][1]), "detail");
                for (int k = 0; k < 2; k++) {
                    run_opts bo = o;
                    bo.dump_dir = NULL; /* the bias measurement's runs are not dumped */
                    bo.inputs_dir = NULL;
                    bo.peers = false;   /* nor are the peers scored on them */
                    bo.only_temporal = true;
                    bo.rule_bias = k == 1;
                    seq_result res;
                    run_sequence(sc, pi, 2.0, &bo, &ref, &res);
                    check(upf_metric_detail(ctx, &res.last[M_TEMPORAL].img, &crop,
                                            &b->detail[1 + k][0]), "detail");
                    check(upf_metric_detail(ctx, &res.last[M_TEMPORAL].img, NULL,
                                            &b->detail[1 + k][1]), "detail");
                    b->shimmer[k] = res.shimmer[M_TEMPORAL];
                    for (int m = 0; m < N_ALL; m++)
                        imageio_free(&res.last[m]);
                }
                b->done = true;
                fprintf(stderr, "bench_temporal: %s still 2x, bias 0 vs rule: detail %.2f vs "
                        "%.2f (reference %.2f), shimmer %.3f vs %.3f\n", all_scenes[si],
                        b->detail[1][0], b->detail[2][0], b->detail[0][0], b->shimmer[0],
                        b->shimmer[1]);
            }
            refs_free(&ref);
            scene_destroy(&sc);
        }
    }

    /* ---- the long sequences: still and pan, 2x, the two temporal engines ---- */
    cell long_cells[2];
    memset(long_cells, 0, sizeof long_cells);
    static const char *const long_paths[2] = { "still", "pan" };
    for (int si = 0; si < N_SCENES && long_frames; si++) {
        if (!in_list(scenes, all_scenes[si]))
            continue;
        for (int lp = 0; lp < 2; lp++) {
            int pi = lp == 0 ? 0 : 1; /* all_paths: still, pan */
            if (!in_list(paths, all_paths[pi]))
                continue;
            scene *sc;
            check(scene_create(ctx, all_scenes[si], eval_seed(si, pi), &sc), "scene_create");
            run_opts lo = o;
            lo.scene_name = all_scenes[si];
            lo.seed = eval_seed(si, pi);
            lo.dump_dir = NULL; /* nor the long sequences */
            lo.frames = long_frames;
            lo.no_per_frame = true;
            refs ref;
            refs_make(sc, all_scenes[si], eval_seed(si, pi), pi, &lo, &ref);
            seq_result res;
            run_sequence(sc, pi, 2.0, &lo, &ref, &res);
            cell *c = &long_cells[lp];
            for (int m = M_TEMPORAL; m < N_ALL; m++) {
                if (m > M_FILL && m < N_METHODS)
                    continue;
                c->s[m].psnr += res.s[m].psnr, c->s[m].frames += res.s[m].frames;
                c->s[m].ssim += res.s[m].ssim;
                c->shimmer[m] += res.shimmer[m], c->stable[m] += res.stable[m];
            }
            c->shimmer_ref += res.shimmer_ref, c->stable_ref += res.stable_ref;
            c->sequences++;
            fprintf(stderr, "bench_temporal: %s-%s 2x, %d frames: PSNR temporal %.2f fill %.2f; "
                    "still pixels %.3f (ref %.3f)\n", all_scenes[si], long_paths[lp],
                    long_frames, mean_of(res.s[M_TEMPORAL].psnr, res.s[M_TEMPORAL].frames),
                    mean_of(res.s[M_FILL].psnr, res.s[M_FILL].frames), res.stable[M_TEMPORAL],
                    res.stable_ref);
            for (int m = N_METHODS; m < N_METHODS + n_peers; m++)
                fprintf(stderr, "bench_temporal: %s-%s 2x, %d frames: PSNR %s %.2f; still pixels "
                        "%.3f\n", all_scenes[si], long_paths[lp], long_frames,
                        method_label_short(m), mean_of(res.s[m].psnr, res.s[m].frames),
                        res.stable[m]);
            for (int m = 0; m < N_ALL; m++)
                imageio_free(&res.last[m]);
            refs_free(&ref);
            scene_destroy(&sc);
        }
    }

    /* ---- the tables ---- */
    out("\n## The temporal engine\n\n");
    out("Made by `%s` (bench/bench_temporal.c), which writes this section only.\n\n",
        command ? command : "bench_temporal");
    out("- Sequences: the fixed evaluation set of docs/SCENES.md (its scenes, seeds and "
        "paths, 30 frames a second), the first %d frames of each (the cut sequence from %d "
        "frames before its cut, so the scored frames start with it). Reference: each frame at "
        "%dx%d, %d samples per pixel, box-filtered, no jitter. Inputs: the same frames at "
        "%dx%d / ratio, 1 sample per pixel, Halton(2,3) jitter with the ratio's phase count "
        "(upf_jitter_phase_count), textures at the rule's mip bias log2(render/output) - 1 "
        "(upf_mip_bias).\n", o.frames, FIRST_SCORED, o.out_w, o.out_h, o.spp, o.out_w, o.out_h);
    out("- Upscalers: Lanczos-3 (our resampler, linear light) and the spatial engine "
        "(sharpness 0, built-in models) on each frame alone, from an 8-bit sRGB copy of the "
        "frame rendered without jitter (what a game renders for a spatial upscaler; the bars "
        "compare with this row), and the spatial engine on the temporal engine's own jittered "
        "inputs (the last row of each path); the temporal engine (sharpness 0) from the linear "
        "HDR colour, depth, motion, jitter and camera, with and without its spatial fill "
        "(`--disocclusion spatial`). Outputs 8-bit sRGB.\n");
    for (int p = 0; p < n_peers; p++)
        out("- Peer *%s* (`--peer`): its 8-bit sRGB output frames for the inputs of "
            "`--dump-inputs`, made outside the bench, scored like the rows above; a column of "
            "the crops after the temporal engine's.\n", peers[p].name);
    out("- Scores of frames %d onward, means over frames and scenes: PSNR (sRGB RGB), SSIM "
        "(luma), FLIP (mean, every other frame); *disocc.*: PSNR over the pixels disoccluded in "
        "their frame (a mask from the renderer's depth and motion at the output size: off the "
        "screen last frame, or hidden there by a surface more than 5%% nearer); shimmer (the "
        "mean absolute frame-to-frame change of luma, 0..255) on the still path, where the "
        "reference has its own (the scenes' movers).\n\n", FIRST_SCORED);
    for (int r = 0; r < nr; r++) {
        out("### %gx\n\n| path | upscaler | PSNR | SSIM | FLIP | PSNR disocc. | shimmer | "
            "shimmer, still pixels |\n|---|---|---|---|---|---|---|---|\n", ratios[r]);
        for (int pi = 0; pi < N_PATHS; pi++) {
            const cell *c = &cells[pi][r];
            if (!c->sequences)
                continue;
            bool named = false; /* the path on its first row (with --only-temporal: temporal) */
            for (int m = 0; m < N_METHODS + n_peers; m++) {
                const score *s = &c->s[m];
                if (!s->frames)
                    continue;
                int flips = (s->frames + 1) / 2;
                out("| %s | %s | %.2f | %.4f | %.4f | %.2f |", named ? "" : all_paths[pi],
                    method_label(m), mean_of(s->psnr, s->frames), mean_of(s->ssim, s->frames),
                    mean_of(s->flip, flips), mask_psnr(s));
                if (!strcmp(all_paths[pi], "still"))
                    out(" %.3f | %.3f |\n", c->shimmer[m] / c->sequences,
                        c->stable[m] / c->sequences);
                else
                    out(" | |\n");
                named = true;
            }
            if (!strcmp(all_paths[pi], "still"))
                out("| | (reference) | | | | | %.3f | %.3f |\n", c->shimmer_ref / c->sequences,
                    c->stable_ref / c->sequences);
        }
        out("\n");
    }
    /* the bars */
    int r2 = -1;
    for (int r = 0; r < nr; r++)
        if (ratios[r] == 2.0)
            r2 = r;
    if (r2 >= 0) {
        out("### The bars (issue 8), at 2x\n\n| bar | measured | met |\n|---|---|---|\n");
        static const struct { const char *path; double db; } bars[] = {
            { "still", 1.5 }, { "pan", 1.5 }, { "walk", 0.5 }, { "orbit", 0.5 } };
        for (int b = 0; b < 4; b++)
            for (int pi = 0; pi < N_PATHS; pi++) {
                const cell *c = &cells[pi][r2];
                if (strcmp(all_paths[pi], bars[b].path) || !c->sequences)
                    continue;
                double d = mean_of(c->s[M_TEMPORAL].psnr, c->s[M_TEMPORAL].frames) -
                           mean_of(c->s[M_SPATIAL].psnr, c->s[M_SPATIAL].frames);
                out("| temporal - spatial on %s >= %.1f dB | %+.2f dB | %s |\n", bars[b].path,
                    bars[b].db, d, d >= bars[b].db ? "yes" : "**no**");
            }
        const cell *st = &cells[0][r2];
        if (st->sequences) {
            double a = st->shimmer[M_TEMPORAL], b = st->shimmer[M_SPATIAL_JIT];
            double u = st->shimmer[M_SPATIAL];
            out("| still shimmer, temporal <= half the spatial engine's on the same jittered "
                "inputs | %.3f vs %.3f (%.0f%%) | %s |\n", a / st->sequences, b / st->sequences,
                100.0 * a / b, a <= 0.5 * b ? "yes" : "**no**");
            out("| ... <= half the spatial engine's on unjittered inputs (no jitter to shimmer "
                "from; its shimmer is the scene's movers) | %.3f vs %.3f (%.0f%%) | %s |\n",
                a / st->sequences, u / st->sequences, 100.0 * a / u,
                a <= 0.5 * u ? "yes" : "**no**");
        }
        for (int pi = 0; pi < N_PATHS; pi++) {
            const cell *c = &cells[pi][r2];
            if (!c->sequences || !c->s[M_FILL].mask_n)
                continue;
            double a = mask_psnr(&c->s[M_FILL]), b = mask_psnr(&c->s[M_TEMPORAL]);
            out("| disoccluded pixels on %s: fill > upsample | %.2f vs %.2f dB | %s |\n",
                all_paths[pi], a, b, a > b ? "yes" : "**no**");
        }
        out("\n");
    }
    if (out_dir) {
        out("Crops at 2x (reference, Lanczos-3, spatial, temporal, temporal + fill; the last "
            "frame of the sequence; 2x nearest neighbour):\n\n");
        for (int si = 0; si < N_SCENES; si++)
            for (int k = 0; k < 2; k++) {
                const char *pn = k ? "walk" : "still";
                if (in_list(scenes, all_scenes[si]) && in_list(paths, pn) && r2 >= 0)
                    out("![%s %s 2x](quality/temporal-%s-%s-2x.png)\n", all_scenes[si], pn,
                        all_scenes[si], pn);
            }
        out("\n");
        bool any_feature = false;
        for (int f = 0; f < N_FEATURES; f++)
            any_feature |= feature_md[f][0] != 0;
        if (any_feature) {
            out("Features at 2x (reference, then the upscalers as above; the last frame of the "
                "sequence; 4x nearest neighbour). Under each, the continuity of the crop's thin "
                "features (issue 34): the crossings are located in the reference (a pixel whose "
                "luma differs by %.0f codes or more, in the same direction, from both its "
                "neighbours across the line, the strongest of three across, on a line of %d or "
                "more such pixels: window frames and brick joints count too); at each, the "
                "upscaler's contrast (the same difference, signed like the reference's, the best "
                "of the pixel and its two neighbours across) over the reference's: *gaps* is the "
                "share of crossings below half the reference's contrast, *dotted* the "
                "coefficient of variation of that ratio over the crossings (0 for a line as even "
                "as the reference's).\n\n", THIN_MIN, THIN_LENGTH);
            for (int f = 0; f < N_FEATURES; f++)
                out("%s", feature_md[f]);
        }
    }
    if (long_cells[0].sequences || long_cells[1].sequences) {
        out("### %d frames, 2x\n\nThe same scenes and seeds, still and pan, %d frames (the "
            "history saturates), scored from frame %d on: the temporal engine alone.\n\n"
            "| path | upscaler | PSNR | SSIM | shimmer | shimmer, still pixels |\n"
            "|---|---|---|---|---|---|\n", long_frames, long_frames, FIRST_SCORED);
        for (int lp = 0; lp < 2; lp++) {
            const cell *c = &long_cells[lp];
            if (!c->sequences)
                continue;
            for (int m = M_TEMPORAL; m < N_METHODS + n_peers; m++) {
                const score *sc = &c->s[m];
                if (m > M_FILL && m < N_METHODS)
                    continue;
                out("| %s | %s | %.2f | %.4f |", m == M_TEMPORAL ? long_paths[lp] : "",
                    method_label(m), mean_of(sc->psnr, sc->frames), mean_of(sc->ssim, sc->frames));
                if (lp == 0)
                    out(" %.3f | %.3f |\n", c->shimmer[m] / c->sequences,
                        c->stable[m] / c->sequences);
                else
                    out(" | |\n");
            }
            if (lp == 0)
                out("| | (reference) | | | %.3f | %.3f |\n", c->shimmer_ref / c->sequences,
                    c->stable_ref / c->sequences);
        }
        out("\n");
    }
    bool any_bias = false;
    for (int si = 0; si < N_SCENES; si++)
        any_bias |= bias_rows[si].done;
    if (any_bias) {
        out("### The mip-bias rule\n\nThe temporal engine at 2x on the still path with the inputs "
            "rendered at mip bias 0 and at the rule's bias (log2(1/2) - 1 = -2), measured as the "
            "reference PR measured it: detail (RMS of the luma Laplacian, 0..255 units; higher "
            "is more detail) of the last frame, on the busiest 192x120 crop of the reference "
            "and on the whole frame, and still-camera shimmer (frames %d onward, whole frame). "
            "The reference's detail for scale.\n\n"
            "| scene | crop | detail, reference | detail, bias 0 | detail, rule | detail whole "
            "frame: reference / bias 0 / rule | shimmer, bias 0 | shimmer, rule |\n"
            "|---|---|---|---|---|---|---|---|\n", FIRST_SCORED);
        for (int si = 0; si < N_SCENES; si++) {
            const bias_row *b = &bias_rows[si];
            if (!b->done)
                continue;
            out("| %s | %d,%d | %.2f | %.2f | %.2f | %.2f / %.2f / %.2f | %.3f | %.3f |\n",
                all_scenes[si], b->cx, b->cy, b->detail[0][0], b->detail[1][0], b->detail[2][0],
                b->detail[0][1], b->detail[1][1], b->detail[2][1], b->shimmer[0], b->shimmer[1]);
        }
        out("\n");
    }
    char machine[320];
    bench_machine(machine, sizeof machine);
    out("%s, %d threads, %.0f s.\n\n", machine, upf_context_threads(ctx),
        (double)time(NULL) - t_start);
    if (out_dir)
        bench_splice_section("bench_temporal", out_dir, MARK_BEGIN, MARK_END, text.buf);
    free(text.buf);
    upf_models_destroy(&models);
    upf_context_destroy(&ctx);
    return 0;
}
