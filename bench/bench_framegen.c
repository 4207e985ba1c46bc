/* bench_framegen.c: makes the frame generation section of docs/QUALITY.md: the made frame
 * against the true frame at that time, for the plain blend, the optical-flow path and the
 * motion-vector path, on pairs of the scene renderer's evaluation set, and on real game clips
 * beside OpenCV's DIS optical flow; crops of the rendered scenes; the bars of issue 9. Its
 * output replaces the part of QUALITY.md between its two marker lines (or is appended).
 *
 *   bench_framegen [--out DOCS_DIR] [--size WxH] [--spp N] [--pairs N] [--scenes LIST]
 *                  [--paths LIST] [--real-fg DIR] [--python PATH] [--threads N]
 *                  [--command TEXT] [--matrices 1] [--backend cpu|vulkan] [--flow full|half]
 *
 * Rendered: per scene and path of the evaluation set (docs/SCENES.md seeds), `pairs` pairs of
 * frames 1/30 s apart (at 0.3 s, 1.0 s, 1.7 s, ...), each rendered at `size` with `spp`
 * samples per pixel (the colour without the HUD, the later frame's depth and motion), and the
 * true frames at the phases 1/2, 1/3 and 2/3 between them rendered the same way. Each method
 * makes those three phases; PSNR (sRGB RGB), SSIM (luma) and, at t = 1/2, FLIP against the
 * truth, all on 8-bit sRGB. --matrices 1 gives the engines the frames' view-projections too
 * (the camera pass then takes the camera's rotation from them instead of fitting it).
 * Real: each folder of --real-fg holding f000.png .. f004.png (a fixed game time step, so
 * f(k) is the true midpoint of f(k-1) and f(k+1) and f(k+1), f(k+2) the true phases 1/3 and
 * 2/3 between f(k) and f(k+3)): blend, flow, and bench/dis_interpolate.py (OpenCV DIS MEDIUM,
 * both ways, each frame warped toward t with cv2.remap, averaged) run by --python. Numbers
 * only, no pictures (the game's art is not ours to ship).
 * --backend vulkan: every made frame above (the rendered pairs' blend, flow and vectors; the
 * real clips' blend and flow at 1/2, 1/3 and 2/3, and the flow on the cuts between clips; the
 * HUD's three methods, with the HUD layers) is also made by the GPU engine (managed mode, the
 * first device), scored the same way, and compared with the CPU's (mean absolute difference,
 * linear RGB); the crops get the GPU's flow and vectors as two more columns. "The GPU path"
 * follows the CPU's bars: its tables, then every bar with both paths' numbers (a bar either
 * misses is printed as missed, and which). The CPU tables stay as they are.
 * --flow full|half: every engine with UPF_INTERPOLATE_FLOW_FULL or _HALF (the optical flow on
 * the frame itself or on the half-size frame; without it the engine's default for the size,
 * which at the evaluation's 960x540 is the frame itself). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bench_util.h"
#include "framegen/framegen_passes.h"
#include "imageio/image_io.h"
#include "scene/scene.h"
#ifdef UPF_HAVE_VULKAN
#include "vk/vk_framegen_managed.h"
#endif

enum { M_BLEND, M_FLOW, M_VECTORS, M_DIS, N_METHODS };
static const char *const method_names[N_METHODS] = { "blend", "optical flow", "motion vectors",
                                                     "OpenCV DIS" };
static const char *const all_scenes[] = { "courtyard", "forest", "street", "interior" };
static const char *const all_paths[] = { "still", "pan", "orbit", "walk", "turn" };
static const char *const path_label[] = { "still camera, moving objects", "pan", "orbit", "walk",
                                          "fast turn (120 deg/s)" };
#define N_SCENES 4
#define N_PATHS 5
#define N_PHASES 3
#define FPS 30.0
static const double phases[N_PHASES] = { 0.5, 1.0 / 3.0, 2.0 / 3.0 };
static const char *const phase_names[N_PHASES] = { "1/2", "1/3", "2/3" };

typedef struct score {
    double psnr, ssim, flip;
    int n, nflip;
} score;

static upf_context *ctx;
static bench_text text;
#define out(...) bench_text_out(&text, __VA_ARGS__)
#define die(...) bench_die("bench_framegen", __VA_ARGS__)

static void check(upf_result r, const char *what)
{
    bench_check("bench_framegen", ctx, r, what);
}

#define alloc_image(w, h, f) bench_alloc_image("bench_framegen", (w), (h), (f))

static void measure(score *s, const upf_image *ref, const upf_image *test, bool flip)
{
    upf_psnr_result p;
    double ssim;
    check(upf_metric_psnr(ctx, ref, test, NULL, &p), "psnr");
    check(upf_metric_ssim(ctx, ref, test, NULL, &ssim), "ssim");
    s->psnr += p.rgb;
    s->ssim += ssim;
    s->n++;
    if (flip) {
        upf_flip_result f;
        check(upf_metric_flip(ctx, ref, test, NULL, NULL, &f, NULL), "flip");
        s->flip += f.mean;
        s->nflip++;
    }
}

/* The frame's edges and middle (issue 35: a pan's tears and seams sit at the frame's edges):
 * PSNR over the left EDGE columns, the right EDGE columns and the middle half, summed into
 * e[0..2] (views into the 8-bit sRGB images, their rows as they are). */
#define EDGE 32
enum { E_LEFT, E_RIGHT, E_MIDDLE, N_EDGES };

static void measure_edges(score e[N_EDGES], const upf_image *ref, const upf_image *test)
{
    const int w = ref->width;
    const int x0[N_EDGES] = { 0, w - EDGE, w / 4 }, x1[N_EDGES] = { EDGE, w, w - w / 4 };
    for (int k = 0; k < N_EDGES; k++) {
        const size_t bpp = upf_format_bytes_per_pixel(ref->format);
        upf_image r = *ref, t = *test;
        r.stride = ref->stride ? ref->stride : (size_t)w * bpp;
        t.stride = test->stride ? test->stride : (size_t)w * bpp;
        r.data = (uint8_t *)ref->data + (size_t)x0[k] * bpp;
        t.data = (uint8_t *)test->data + (size_t)x0[k] * bpp;
        r.width = t.width = x1[k] - x0[k];
        upf_psnr_result p;
        check(upf_metric_psnr(ctx, &r, &t, NULL, &p), "psnr");
        e[k].psnr += p.rgb;
        e[k].n++;
    }
}

/* The share of the flow's vectors of the engine's last run that failed its forward/backward
 * check (the cut pass's measure, docs/FRAMEGEN.md "cut"). */
static double lost_share(const upf_interpolate *e)
{
    return ((const float *)upf__interpolate_passes(e)->surface[UPF__FG_SCENE].data)[3];
}

static void add(score *d, const score *s)
{
    d->psnr += s->psnr, d->ssim += s->ssim, d->flip += s->flip;
    d->n += s->n, d->nflip += s->nflip;
}

static double mean_psnr(const score *s)
{
    return s->n ? s->psnr / s->n : NAN;
}

#define in_list bench_in_list

/* ---- rendered pairs ------------------------------------------------------------------- */

typedef struct view {
    imageio_image color, depth, motion, srgb;
    imageio_image hud, final;   /* the HUD layer and the frame with it (the HUD measurement) */
    scene_camera cam;
} view;

static void view_alloc(view *v, int w, int h)
{
    v->color = alloc_image(w, h, UPF_FORMAT_RGBA32F);
    v->depth = alloc_image(w, h, UPF_FORMAT_R32F);
    v->motion = alloc_image(w, h, UPF_FORMAT_RG32F);
    v->srgb = alloc_image(w, h, UPF_FORMAT_RGBA8_SRGB);
    v->hud = alloc_image(w, h, UPF_FORMAT_RGBA32F);
    v->final = alloc_image(w, h, UPF_FORMAT_RGBA32F);
}

static void view_free(view *v)
{
    imageio_free(&v->color);
    imageio_free(&v->depth);
    imageio_free(&v->motion);
    imageio_free(&v->srgb);
    imageio_free(&v->hud);
    imageio_free(&v->final);
}

static bool use_matrices; /* --matrices 1 */
static unsigned flow_flags; /* --flow full|half: UPF_INTERPOLATE_FLOW_FULL, _HALF (every engine) */

/* projection * view, row-major 4x4 */
static void view_projection(const double *proj, const double *vm, double *out)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double v = 0;
            for (int k = 0; k < 4; k++)
                v += proj[4 * i + k] * vm[4 * k + j];
            out[4 * i + j] = v;
        }
}

static void render(scene *sc, int path, double time, int spp, view *v)
{
    scene_buffers b = { v->color.img.data, NULL, v->depth.img.data, v->motion.img.data };
    check(scene_render(sc, scene_view_params(.path = all_paths[path], .time = time,
                                             .frame_interval = 1.0 / FPS,
                                             .width = v->color.img.width,
                                             .height = v->color.img.height, .spp = spp),
                       &b, &v->cam),
          "scene_render");
    check(upf_resample(ctx, &v->color.img, &v->srgb.img, UPF_FILTER_BILINEAR), "8-bit copy");
}

/* The same view with its HUD layer, and the frame with the HUD composited (c (1 - a) + h a). */
static void render_hud(scene *sc, int path, double time, int spp, view *v)
{
    scene_buffers b = { v->color.img.data, v->hud.img.data, v->depth.img.data,
                        v->motion.img.data };
    check(scene_render(sc, scene_view_params(.path = all_paths[path], .time = time,
                                             .frame_interval = 1.0 / FPS,
                                             .width = v->color.img.width,
                                             .height = v->color.img.height, .spp = spp),
                       &b, &v->cam),
          "scene_render");
    const float *c = v->color.img.data, *h = v->hud.img.data;
    float *f = v->final.img.data;
    for (size_t i = 0; i < (size_t)v->color.img.width * v->color.img.height; i++) {
        for (int k = 0; k < 3; k++)
            f[4 * i + k] = c[4 * i + k] * (1 - h[4 * i + 3]) + h[4 * i + k] * h[4 * i + 3];
        f[4 * i + 3] = 1;
    }
    check(upf_resample(ctx, &v->final.img, &v->srgb.img, UPF_FILTER_BILINEAR), "8-bit copy");
}

/* Over the pixels of a still, opaque HUD (alpha 1 in both frames and the truth, the same
 * colour in both frames): the mean absolute error of `made` against the truth (8-bit units,
 * RGB), the largest, and the share that is exact. */
typedef struct hud_score {
    double sum, worst;
    long n, exact;
} hud_score;

static void hud_measure(hud_score *hs, const view *a, const view *b, const view *truth,
                        const upf_image *made)
{
    const int w = made->width, h = made->height;
    const float *ha = a->hud.img.data, *hb = b->hud.img.data, *ht = truth->hud.img.data;
    const uint8_t *m = made->data, *t = truth->srgb.img.data;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        if (ha[4 * i + 3] < 1 || hb[4 * i + 3] < 1 || ht[4 * i + 3] < 1 ||
            memcmp(ha + 4 * i, hb + 4 * i, 3 * sizeof(float)) != 0)
            continue;
        int worst = 0;
        for (int k = 0; k < 3; k++) {
            int d = abs((int)m[4 * i + k] - (int)t[4 * i + k]);
            hs->sum += d;
            worst = d > worst ? d : worst;
        }
        hs->worst = worst > hs->worst ? worst : hs->worst;
        hs->exact += worst == 0;
        hs->n++;
    }
}

/* A row of crops: col[0] the truth (its busiest crop), then the CPU's blend, flow and
 * vectors, then (n == 6) the GPU's flow and vectors. */
static void write_sheet(const char *dir, const char *name, const upf_image *const *col, int n)
{
    enum { CW = 160, CH = 100, Z = 2, LH = 18 };
    static const char *const label[6] = { "true frame", "blend", "optical flow",
                                          "motion vectors", "flow (GPU)", "vectors (GPU)" };
    int cx, cy;
    bench_busiest_crop(col[0], CW, CH, &cx, &cy);
    imageio_image sheet = alloc_image(n * (CW * Z + 4), CH * Z + LH, UPF_FORMAT_RGBA8_SRGB);
    uint8_t *p = sheet.img.data;
    for (size_t i = 0; i < (size_t)sheet.img.width * sheet.img.height; i++)
        p[4 * i + 3] = 255;
    for (int k = 0; k < n; k++)
        bench_sheet_put(&sheet.img, k, LH, col[k], cx, cy, CW, CH, Z, label[k]);
    char path[4096], err[IMAGEIO_ERR_SIZE];
    snprintf(path, sizeof path, "%s/quality/framegen-%s.png", dir, name);
    if (imageio_write_png(path, &sheet.img, 8, err) != UPF_OK)
        die("%s", err);
    fprintf(stderr, "bench_framegen: %s (crop at %d,%d)\n", path, cx, cy);
    imageio_free(&sheet);
}

/* ---- the GPU path (--backend vulkan) --------------------------------------------------- */

/* The methods of the HUD measurement (the CPU's and the GPU's rows alike). */
enum { H_RULE, H_NO_RULE, H_LAYER, N_HUD };
static const char *const hud_names[N_HUD] = {
    "optical flow, HUD in the frames, still-pixel rule (default)",
    "optical flow, HUD in the frames, rule off (UPF_INTERPOLATE_NO_STILL_RULE)",
    "motion vectors, HUD-less frames + the HUD layer" };

/* A GPU engine (managed mode, the first device) and its made frames at up to N_PHASES phases
 * (linear RGBA32F, the engine's size). */
typedef struct gpu_eng {
#ifdef UPF_HAVE_VULKAN
    upf__vk_interpolate_managed *m;
#endif
    int w, h;
    imageio_image made[N_PHASES];
} gpu_eng;

/* The largest mean absolute difference of a GPU made frame from the CPU's (linear RGB on
 * [0, 1]) over `frames` frames, and where it was. */
typedef struct mad_track {
    double max;
    long frames;
    char where[160];
} mad_track;

enum { G_RENDERED, G_REAL, G_HUD, N_GPARTS };

/* The GPU path: its engines for the rendered pairs ([M_BLEND], [M_FLOW], [M_VECTORS]), its
 * scores of the rendered pairs (as cell[]), of the HUD (as hud[]), and the differences from
 * the CPU's frames per part (the real clips' scores are in each clip). */
typedef struct gpu_path {
    char device[256];
    gpu_eng eng[3];
    imageio_image srgb; /* an 8-bit copy of a made frame, the rendered size */
    score cell[N_PATHS][N_PHASES][3];
    hud_score hud[N_HUD];
    mad_track mad[N_GPARTS];
} gpu_path;

/* Makes e for w x h frames of `color` (HUD layers of `hud`, 0: none); the device's name into
 * device (256 bytes) unless NULL. Dies with the engine's message where there is no device. */
static void gpu_eng_create(gpu_eng *e, int w, int h, upf_interpolate_motion how, unsigned flags,
                           upf_format color, upf_format hud, char *device)
{
    memset(e, 0, sizeof *e);
#ifdef UPF_HAVE_VULKAN
    e->m = upf__vk_interpolate_managed_create(ctx, &(upf__vk_interpolate_managed_params){
        .device_index = -1, .width = w, .height = h, .motion = how,
        .max_factor = N_PHASES + 1, .flags = flags | flow_flags, .color_format = color,
        .hud_format = hud,
        .output_format = UPF_FORMAT_RGBA32F });
    if (!e->m)
        check(upf_context_last_error(ctx, NULL), "--backend vulkan: the GPU engine");
    e->w = w, e->h = h;
    for (int ph = 0; ph < N_PHASES; ph++)
        e->made[ph] = alloc_image(w, h, UPF_FORMAT_RGBA32F);
    if (device)
        snprintf(device, 256, "%s", upf__vk_interpolate_managed_device_name(e->m));
#else
    (void)e, (void)w, (void)h, (void)how, (void)flags, (void)color, (void)hud, (void)device;
    die("--backend vulkan: this build has no Vulkan backend (UPF_VULKAN=OFF); use --backend cpu");
#endif
}

static void gpu_eng_destroy(gpu_eng *e)
{
#ifdef UPF_HAVE_VULKAN
    upf__vk_interpolate_managed_destroy(&e->m);
#endif
    for (int ph = 0; ph < N_PHASES; ph++)
        imageio_free(&e->made[ph]);
    e->w = e->h = 0;
}

/* The GPU's made frames of the pair f at ph[0 .. n - 1] into e->made[0 .. n - 1], one
 * submission. */
static void gpu_eng_run(gpu_eng *e, const upf_interpolate_frames *f, const double *ph, int n)
{
#ifdef UPF_HAVE_VULKAN
    const upf_image *outs[N_PHASES];
    for (int k = 0; k < n; k++)
        outs[k] = &e->made[k].img;
    check(upf__vk_interpolate_managed_run(e->m, f, ph, n, outs),
          "upf__vk_interpolate_managed_run");
#else
    (void)e, (void)f, (void)ph, (void)n;
#endif
}

static void gpu_create(gpu_path *g, int w, int h)
{
    static const upf_interpolate_motion how[3] = { UPF_INTERPOLATE_MOTION_BLEND,
                                                   UPF_INTERPOLATE_MOTION_FLOW,
                                                   UPF_INTERPOLATE_MOTION_VECTORS };
    memset(g, 0, sizeof *g);
    for (int m = 0; m < 3; m++)
        gpu_eng_create(&g->eng[m], w, h, how[m], UPF_INTERPOLATE_DEPTH_REVERSED,
                       UPF_FORMAT_RGBA32F, 0, m ? NULL : g->device);
    g->srgb = alloc_image(w, h, UPF_FORMAT_RGBA8_SRGB);
    fprintf(stderr, "bench_framegen: the GPU path on %s\n", g->device);
}

static void gpu_destroy(gpu_path *g)
{
    for (int m = 0; m < 3; m++)
        gpu_eng_destroy(&g->eng[m]);
    imageio_free(&g->srgb);
}

/* Adds the GPU's linear made frame `gpu` against the CPU's `cpu` (linear RGBA32F, the same
 * size) to t: the mean absolute difference over the pixels' R, G and B. */
static void mad_add(mad_track *t, const upf_image *cpu, const upf_image *gpu, const char *where)
{
    const float *a = cpu->data, *b = gpu->data;
    double sum = 0;
    const size_t n = (size_t)gpu->width * gpu->height;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            sum += fabs((double)a[4 * i + k] - (double)b[4 * i + k]);
    const double mad = sum / (3.0 * (double)n);
    if (mad > t->max || !t->frames) {
        t->max = mad;
        snprintf(t->where, sizeof t->where, "%s", where);
    }
    t->frames++;
}

/* The GPU's linear made frame `lin` as 8-bit sRGB into srgb (its size), scored against the
 * truth as the CPU's into s (no FLIP). */
static void gpu_score(score *s, const upf_image *truth, const upf_image *lin,
                      const imageio_image *srgb)
{
    check(upf_resample(ctx, lin, &srgb->img, UPF_FILTER_BILINEAR), "8-bit copy");
    measure(s, truth, &srgb->img, false);
}

/* The "met" cell of a bar measured on both paths: yes only where both meet it. */
static const char *met_both(bool cpu, bool gpu)
{
    return cpu && gpu ? "yes" : cpu ? "**no** (the GPU path)" : gpu ? "**no** (the CPU path)"
                                                                   : "**no** (both paths)";
}

/* A bar "a - b >= bar" of both paths: their numbers and whether each meets it. */
static void bar_diff(const char *name, const double cpu[2], const double gpu[2], double bar)
{
    const double dc = cpu[0] - cpu[1], dg = gpu[0] - gpu[1];
    out("| %s | %.2f - %.2f = %+.2f dB | %.2f - %.2f = %+.2f dB | %s |\n", name, cpu[0], cpu[1],
        dc, gpu[0], gpu[1], dg, met_both(dc >= bar, dg >= bar));
}

/* A bar "within `bar` dB of t = 1/2" of both paths: the phase's number, t = 1/2's. */
static void bar_phase(const char *name, const double cpu[2], const double gpu[2], double bar)
{
    const double dc = cpu[0] - cpu[1], dg = gpu[0] - gpu[1];
    out("| %s | %.2f vs %.2f (%+.2f dB) | %.2f vs %.2f (%+.2f dB) | %s |\n", name, cpu[0],
        cpu[1], dc, gpu[0], gpu[1], dg, met_both(fabs(dc) <= bar, fabs(dg) <= bar));
}

static double hud_mean(const hud_score *h)
{
    return h->n ? h->sum / (3.0 * h->n) : 0.0;
}

static double hud_exact(const hud_score *h)
{
    return h->n ? 100.0 * h->exact / h->n : 0.0;
}

/* ---- real clips ----------------------------------------------------------------------- */

#define MAX_CLIPS 16
#define CLIP_FRAMES 5

typedef struct clip {
    char name[512];
    imageio_image f[CLIP_FRAMES];
    score s[N_PHASES][N_METHODS];
    score edge[N_METHODS][N_EDGES]; /* t = 1/2 */
    score gpu[N_PHASES][2];         /* --backend vulkan: the GPU's blend and flow */
    double lost_max;                /* the flow's largest share of lost vectors */
    int blended, runs;              /* pairs the flow path blended, of its runs */
} clip;

static int load_clips(const char *dir, clip *clips)
{
    FILE *ls;
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "ls -1 '%s'", dir);
    if (!(ls = popen(cmd, "r")))
        return 0;
    int n = 0;
    char line[512];
    while (n < MAX_CLIPS && fgets(line, sizeof line, ls)) {
        line[strcspn(line, "\n")] = '\0';
        char p[4400], err[IMAGEIO_ERR_SIZE];
        bool ok = true;
        for (int k = 0; k < CLIP_FRAMES && ok; k++) {
            snprintf(p, sizeof p, "%s/%s/f%03d.png", dir, line, k);
            ok = access(p, R_OK) == 0 && imageio_read(p, NULL, &clips[n].f[k], err) == UPF_OK;
            if (!ok)
                for (int j = 0; j < k; j++)
                    imageio_free(&clips[n].f[j]);
        }
        if (!ok)
            continue;
        snprintf(clips[n].name, sizeof clips[n].name, "%s", line);
        memset(clips[n].s, 0, sizeof clips[n].s);
        memset(clips[n].edge, 0, sizeof clips[n].edge);
        memset(clips[n].gpu, 0, sizeof clips[n].gpu);
        clips[n].lost_max = 0, clips[n].blended = clips[n].runs = 0;
        n++;
    }
    pclose(ls);
    return n;
}

/* The jobs of a clip: (a, b, phase index, truth). */
typedef struct job {
    int a, b, phase, truth;
} job;

static int clip_jobs(job *j)
{
    int n = 0;
    for (int k = 1; k + 1 < CLIP_FRAMES; k++)
        j[n++] = (job){ k - 1, k + 1, 0, k };
    for (int k = 0; k + 3 < CLIP_FRAMES; k++) {
        j[n++] = (job){ k, k + 3, 1, k + 1 };
        j[n++] = (job){ k, k + 3, 2, k + 2 };
    }
    return n;
}

/* ---- the GPU path's section ----------------------------------------------------------- */

/* The rendered pairs' table of the GPU path; its "all" rows into all. */
static void gpu_rendered_table(const gpu_path *g, score all[N_PHASES][3])
{
    out("| path | t | blend PSNR | flow PSNR | vectors PSNR | blend SSIM | flow SSIM | vectors "
        "SSIM |\n|---|---|---|---|---|---|---|---|\n");
    memset(all, 0, sizeof(score) * N_PHASES * 3);
    for (int pi = 0; pi < N_PATHS; pi++)
        for (int ph = 0; ph < N_PHASES; ph++) {
            const score *s = g->cell[pi][ph];
            if (!s[M_FLOW].n)
                continue;
            for (int m = 0; m < 3; m++)
                add(&all[ph][m], &s[m]);
            if (ph == 0)
                out("| %s | 1/2 | %.2f | %.2f | %.2f | %.4f | %.4f | %.4f |\n", path_label[pi],
                    mean_psnr(&s[0]), mean_psnr(&s[1]), mean_psnr(&s[2]), s[0].ssim / s[0].n,
                    s[1].ssim / s[1].n, s[2].ssim / s[2].n);
        }
    for (int ph = 0; ph < N_PHASES && all[0][M_FLOW].n; ph++) {
        const score *s = all[ph];
        out("| **all** | %s | %.2f | %.2f | %.2f | %.4f | %.4f | %.4f |\n", phase_names[ph],
            mean_psnr(&s[0]), mean_psnr(&s[1]), mean_psnr(&s[2]), s[0].ssim / s[0].n,
            s[1].ssim / s[1].n, s[2].ssim / s[2].n);
    }
    out("\n");
}

/* The real clips' table of the GPU path (DIS's numbers are the CPU run's); its "all" rows
 * into all ([0] blend, [1] flow, [2] DIS). */
static void gpu_real_table(const clip *clips, int nclips, score all[N_PHASES][3])
{
    out("| clip | t | pairs | blend PSNR | flow PSNR | DIS PSNR | blend SSIM | flow SSIM | DIS "
        "SSIM |\n|---|---|---|---|---|---|---|---|---|\n");
    memset(all, 0, sizeof(score) * N_PHASES * 3);
    for (int c = 0; c <= nclips; c++)
        for (int ph = 0; ph < N_PHASES; ph++) {
            const score *s[3];
            if (c < nclips) {
                s[0] = &clips[c].gpu[ph][M_BLEND], s[1] = &clips[c].gpu[ph][M_FLOW];
                s[2] = &clips[c].s[ph][M_DIS];
                for (int k = 0; k < 3; k++)
                    add(&all[ph][k], s[k]);
            } else
                s[0] = &all[ph][0], s[1] = &all[ph][1], s[2] = &all[ph][2];
            out("| %s | %s | %d |", ph ? "" : c < nclips ? clips[c].name : "**all**",
                phase_names[ph], s[0]->n);
            for (int k = 0; k < 3; k++)
                out(s[k]->n ? " %.2f |" : " - |", mean_psnr(s[k]));
            for (int k = 0; k < 3; k++)
                out(s[k]->n ? " %.4f |" : " - |", s[k]->n ? s[k]->ssim / s[k]->n : 0.0);
            out("\n");
        }
    out("\n");
}

/* "The GPU path": its tables (rendered pairs, real clips, HUD), then every bar with both
 * paths' numbers (cpu: the rendered "all" rows, real: the clips' "all" rows, hud: the HUD
 * rows of the CPU path), and the GPU's largest differences from the CPU's frames. */
static void gpu_section(const gpu_path *g, const score cpu[N_PHASES][3], const clip *clips,
                        int nclips, const score real[N_PHASES][N_METHODS], bool have_dis,
                        const hud_score hud[N_HUD], int hud_pairs)
{
    score all[N_PHASES][3], rall[N_PHASES][3];
    out("### The GPU path (device %s)\n\nThe same frames, phases and measures made again by "
        "the GPU engine (`--backend vulkan`: `upf_vk_interpolate` in managed mode, the first "
        "device; frames uploaded in their formats (RGBA32F rendered, 8-bit sRGB real), the "
        "made frames read back as RGBA32F and scored as the CPU's, 8-bit sRGB, no FLIP). "
        "Rendered sequences:\n\n", g->device);
    gpu_rendered_table(g, all);
    if (nclips) {
        out("Real game clips (the same pairs and truths; DIS as above):\n\n");
        gpu_real_table(clips, nclips, rall);
    }
    if (hud_pairs) {
        out("The HUD (the same %d pairs; the HUD layers uploaded as RGBA32F):\n\n| method | HUD "
            "pixels | mean error | largest | exact |\n|---|---|---|---|---|\n", hud_pairs);
        for (int m = 0; m < N_HUD; m++)
            out("| %s | %ld | %.3f | %.0f | %.2f%% |\n", hud_names[m], g->hud[m].n,
                hud_mean(&g->hud[m]), g->hud[m].worst, hud_exact(&g->hud[m]));
        out("\n");
    }
    if (!all[0][M_FLOW].n)
        return;
    out("The bars on both paths (issue 33: every bar met by the GPU path too, its made frames "
        "within a mean absolute difference of 0.001 of the CPU's):\n\n| bar | the CPU path | "
        "the GPU path | met by both |\n|---|---|---|---|\n");
    const double cb = mean_psnr(&cpu[0][0]), cf = mean_psnr(&cpu[0][1]);
    const double cv = mean_psnr(&cpu[0][2]), gb = mean_psnr(&all[0][0]);
    const double gf = mean_psnr(&all[0][1]), gv = mean_psnr(&all[0][2]);
    bar_diff("rendered, t = 1/2: vectors - blend >= 6 dB", (double[]){ cv, cb },
             (double[]){ gv, gb }, 6);
    bar_diff("rendered, t = 1/2: vectors - optical flow >= 2 dB", (double[]){ cv, cf },
             (double[]){ gv, gf }, 2);
    bar_diff("rendered, t = 1/2: optical flow - blend >= 3 dB", (double[]){ cf, cb },
             (double[]){ gf, gb }, 3);
    for (int ph = 1; ph < N_PHASES; ph++) {
        char name[96];
        snprintf(name, sizeof name, "rendered: vectors at t = %s within 0.5 dB of t = 1/2",
                 phase_names[ph]);
        bar_phase(name, (double[]){ mean_psnr(&cpu[ph][2]), cv },
                  (double[]){ mean_psnr(&all[ph][2]), gv }, 0.5);
    }
    if (nclips && have_dis)
        bar_diff("real clips, t = 1/2: optical flow - OpenCV DIS >= 0.5 dB",
                 (double[]){ mean_psnr(&real[0][M_FLOW]), mean_psnr(&real[0][M_DIS]) },
                 (double[]){ mean_psnr(&rall[0][1]), mean_psnr(&rall[0][2]) }, 0.5);
    if (hud_pairs) {
        const hud_score *cl = &hud[H_LAYER], *gl = &g->hud[H_LAYER];
        out("| HUD layer given: HUD pixels equal the HUD exactly | %.2f%% exact | %.2f%% exact "
            "| %s |\n", hud_exact(cl), hud_exact(gl),
            met_both(cl->n && cl->exact == cl->n, gl->n && gl->exact == gl->n));
        const double cr = hud_mean(&hud[H_RULE]), gr = hud_mean(&g->hud[H_RULE]);
        out("| no HUD layer: still-pixel rule keeps a still HUD within 1/255 on average | %.3f / "
            "255 (rule off: %.3f) | %.3f / 255 (rule off: %.3f) | %s |\n", cr,
            hud_mean(&hud[H_NO_RULE]), gr, hud_mean(&g->hud[H_NO_RULE]),
            met_both(hud[H_RULE].n && cr <= 1.0, g->hud[H_RULE].n && gr <= 1.0));
    }
    static const char *const part[N_GPARTS] = {
        "rendered pairs", "real clips (and the cuts between them)", "the HUD's pairs" };
    for (int k = 0; k < N_GPARTS; k++)
        if (g->mad[k].frames)
            out("| %s: the GPU's made frames within a mean absolute difference of 0.001 of the "
                "CPU's (linear RGB on [0, 1]), the largest of %ld frames | - | %.2e (%s) | "
                "%s |\n", part[k], g->mad[k].frames, g->mad[k].max, g->mad[k].where,
                g->mad[k].max <= 0.001 ? "yes" : "**no**");
    out("\n");
}

/* e made again for w x h frames of `color` where it is not of that size (real clips). */
static void gpu_eng_fit(gpu_eng *e, int w, int h, upf_interpolate_motion how, upf_format color)
{
    if (e->w == w && e->h == h)
        return;
    gpu_eng_destroy(e);
    gpu_eng_create(e, w, h, how, 0, color, 0, NULL);
}

/* The GPU's blend and flow (ge[M_BLEND], ge[M_FLOW]) of clip c's job j, scored into c->gpu
 * and against the CPU's linear frames cpu[M_BLEND], cpu[M_FLOW] of the same job. The jobs of
 * phases 1/3 and 2/3 come in pairs (clip_jobs): the first makes both in one record. */
static void gpu_clip_job(gpu_path *g, gpu_eng ge[2], clip *c, const job *j,
                         const upf_interpolate_frames *f, const imageio_image cpu[2],
                         const imageio_image *srgb)
{
    static const upf_interpolate_motion how[2] = { UPF_INTERPOLATE_MOTION_BLEND,
                                                   UPF_INTERPOLATE_MOTION_FLOW };
    const upf_image *truth = &c->f[j->truth].img;
    const int k = j->phase == 2 ? 1 : 0; /* the made frame of this job's phase */
    for (int m = 0; m < 2; m++) {
        gpu_eng_fit(&ge[m], truth->width, truth->height, how[m], c->f[j->a].img.format);
        if (j->phase != 2)
            gpu_eng_run(&ge[m], f, &phases[j->phase], j->phase ? 2 : 1);
        gpu_score(&c->gpu[j->phase][m], truth, &ge[m].made[k].img, srgb);
        char where[160];
        snprintf(where, sizeof where, "%.60s f%03d-f%03d, %s, t = %s", c->name, j->a, j->b,
                 method_names[m], phase_names[j->phase]);
        mad_add(&g->mad[G_REAL], &cpu[m].img, &ge[m].made[k].img, where);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_framegen [--out DOCS_DIR] [--size WxH] [--spp N] [--pairs N] "
                    "[--scenes LIST] [--paths LIST] [--real-fg DIR] [--python PATH] "
                    "[--threads N] [--command TEXT] [--matrices 1] [--backend cpu|vulkan] "
                    "[--flow full|half]\n");
    exit(1);
}

#define MARK_BEGIN "<!-- bench_framegen: begin (made by bench/bench_framegen.c) -->"
#define MARK_END "<!-- bench_framegen: end -->"

int main(int argc, char **argv)
{
    const char *out_dir = NULL, *scenes = NULL, *paths = NULL, *real_dir = NULL;
    const char *python = "/usr/bin/python3", *command = NULL;
    bool use_gpu = false;
    int W = 480, H = 270, spp = 16, pairs = 2, threads = 0;
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--out"))
            out_dir = v;
        else if (!strcmp(a, "--size")) {
            if (sscanf(v, "%dx%d", &W, &H) != 2)
                usage();
        } else if (!strcmp(a, "--spp"))
            spp = atoi(v);
        else if (!strcmp(a, "--pairs"))
            pairs = atoi(v);
        else if (!strcmp(a, "--scenes"))
            scenes = v;
        else if (!strcmp(a, "--paths"))
            paths = v;
        else if (!strcmp(a, "--real-fg"))
            real_dir = v;
        else if (!strcmp(a, "--python"))
            python = v;
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--command"))
            command = v;
        else if (!strcmp(a, "--matrices"))
            use_matrices = atoi(v) != 0;
        else if (!strcmp(a, "--backend")) {
            if (strcmp(v, "cpu") != 0 && strcmp(v, "vulkan") != 0)
                usage();
            use_gpu = !strcmp(v, "vulkan");
        } else if (!strcmp(a, "--flow")) {
            if (strcmp(v, "full") != 0 && strcmp(v, "half") != 0)
                usage();
            flow_flags = !strcmp(v, "full") ? UPF_INTERPOLATE_FLOW_FULL : UPF_INTERPOLATE_FLOW_HALF;
        }
        else
            usage();
    }
    if (spp < 1 || pairs < 1 || pairs > 20 || W < 64 || H < 64 || threads < 0)
        usage();
    ctx = upf_context_create(upf_context_params(.threads = threads, .log = upf_log_stderr,
                                                .log_level = UPF_LOG_ERROR));
    if (!ctx)
        die("no context");
    if (out_dir) {
        char q[4096];
        snprintf(q, sizeof q, "%s/quality", out_dir);
        mkdir(out_dir, 0777);
        mkdir(q, 0777);
    }
    const double t_start = (double)time(NULL);

    upf_interpolate *eng[3];
    static const upf_interpolate_motion how[3] = { UPF_INTERPOLATE_MOTION_BLEND,
                                                   UPF_INTERPOLATE_MOTION_FLOW,
                                                   UPF_INTERPOLATE_MOTION_VECTORS };
    for (int m = 0; m < 3; m++) {
        eng[m] = upf_interpolate_create(ctx, upf_interpolate_params(
            .width = W, .height = H, .motion = how[m],
            .flags = UPF_INTERPOLATE_DEPTH_REVERSED | flow_flags));
        if (!eng[m])
            check(upf_context_last_error(ctx, NULL), "upf_interpolate_create");
    }
    score cell[N_PATHS][N_PHASES][3];
    memset(cell, 0, sizeof cell);
    static gpu_path gpu;
    imageio_image lin[3]; /* with --backend vulkan: the CPU's made frames, linear */
    memset(lin, 0, sizeof lin);
    if (use_gpu) {
        gpu_create(&gpu, W, H);
        for (int m = 0; m < 3; m++)
            lin[m] = alloc_image(W, H, UPF_FORMAT_RGBA32F);
    }
    score redge[N_PATHS][3][N_EDGES]; /* t = 1/2 */
    memset(redge, 0, sizeof redge);
    int cuts[3] = { 0 };
    double lost_max = 0; /* the flow's largest share of lost vectors over the rendered pairs */
    char lost_where[96] = "";
    view a, b, truth;
    view_alloc(&a, W, H);
    view_alloc(&b, W, H);
    view_alloc(&truth, W, H);
    imageio_image made[3], gcrop[2]; /* gcrop: the GPU's flow and vectors for the crops */
    for (int m = 0; m < 3; m++)
        made[m] = alloc_image(W, H, UPF_FORMAT_RGBA8_SRGB);
    for (int m = 0; m < 2; m++)
        gcrop[m] = alloc_image(W, H, UPF_FORMAT_RGBA8_SRGB);
    int sheets = 0;
    char sheet_names[N_SCENES * N_PATHS][64];
    for (int si = 0; si < N_SCENES; si++) {
        if (!in_list(scenes, all_scenes[si]))
            continue;
        for (int pi = 0; pi < N_PATHS; pi++) {
            if (!in_list(paths, all_paths[pi]))
                continue;
            scene *sc;
            uint32_t seed = SCENE_EVAL_SEED_MIN + 100u * (uint32_t)(si + 1) + (uint32_t)(pi + 1);
            check(scene_create(ctx, all_scenes[si], seed, &sc), "scene_create");
            score seq[N_PHASES][3];
            memset(seq, 0, sizeof seq);
            for (int k = 0; k < pairs; k++) {
                const double t0 = 0.3 + 0.7 * k;
                render(sc, pi, t0, spp, &a);
                render(sc, pi, t0 + 1.0 / FPS, spp, &b);
                upf_interpolate_frames f = { &a.color.img, &b.color.img, &b.motion.img,
                                             &b.depth.img, NULL, NULL, 2 * k, 2 * k + 1, 0,
                                             NULL, NULL, 0 };
                double vp[2][16];
                if (use_matrices) {
                    view_projection(b.cam.proj, b.cam.view, vp[0]);
                    view_projection(b.cam.prev_proj, b.cam.prev_view, vp[1]);
                    f.view_projection = vp[0], f.prev_view_projection = vp[1];
                }
                if (use_gpu)
                    for (int m = 0; m < 3; m++)
                        gpu_eng_run(&gpu.eng[m], &f, phases, N_PHASES);
                for (int ph = 0; ph < N_PHASES; ph++) {
                    render(sc, pi, t0 + phases[ph] / FPS, spp, &truth);
                    for (int m = 0; m < 3; m++) {
                        if (use_gpu) {
                            /* the CPU's frame in linear RGBA32F, then 8-bit as before */
                            char where[160];
                            check(upf_interpolate_run(eng[m], &f, phases[ph], &lin[m].img),
                                  "upf_interpolate_run");
                            check(upf_resample(ctx, &lin[m].img, &made[m].img,
                                               UPF_FILTER_BILINEAR), "8-bit copy");
                            snprintf(where, sizeof where, "%s-%s pair %d, %s, t = %s",
                                     all_scenes[si], all_paths[pi], k + 1, method_names[m],
                                     phase_names[ph]);
                            gpu_score(&gpu.cell[pi][ph][m], &truth.srgb.img,
                                      &gpu.eng[m].made[ph].img, &gpu.srgb);
                            mad_add(&gpu.mad[G_RENDERED], &lin[m].img, &gpu.eng[m].made[ph].img,
                                    where);
                        } else
                            check(upf_interpolate_run(eng[m], &f, phases[ph], &made[m].img),
                                  "upf_interpolate_run");
                        upf_interpolate_method used;
                        upf_interpolate_last_method(eng[m], &used, NULL);
                        if (m && used == UPF_INTERPOLATE_USED_BLEND && ph == 0)
                            cuts[m]++;
                        if (m == M_FLOW && ph == 0 && lost_share(eng[m]) > lost_max) {
                            lost_max = lost_share(eng[m]);
                            snprintf(lost_where, sizeof lost_where, "%s, %s",
                                     all_scenes[si], path_label[pi]);
                        }
                        measure(&seq[ph][m], &truth.srgb.img, &made[m].img, ph == 0);
                        if (ph == 0)
                            measure_edges(redge[pi][m], &truth.srgb.img, &made[m].img);
                    }
                }
                if (out_dir && k == pairs - 1 &&
                    (!strcmp(all_paths[pi], "turn") || !strcmp(all_paths[pi], "walk") ||
                     (!strcmp(all_paths[pi], "still") && si == 2))) {
                    /* the crops at t = 1/2: the truth and the three made again */
                    render(sc, pi, t0 + 0.5 / FPS, spp, &truth);
                    for (int m = 0; m < 3; m++)
                        check(upf_interpolate_run(eng[m], &f, 0.5, &made[m].img), "run");
                    snprintf(sheet_names[sheets], sizeof sheet_names[0], "%s-%s",
                             all_scenes[si], all_paths[pi]);
                    const upf_image *cols[6] = { &truth.srgb.img, &made[0].img, &made[1].img,
                                                 &made[2].img, &gcrop[0].img, &gcrop[1].img };
                    if (use_gpu) /* the GPU's flow and vectors of this pair at t = 1/2 */
                        for (int m = M_FLOW; m <= M_VECTORS; m++)
                            check(upf_resample(ctx, &gpu.eng[m].made[0].img,
                                               &gcrop[m - M_FLOW].img, UPF_FILTER_BILINEAR),
                                  "8-bit copy");
                    write_sheet(out_dir, sheet_names[sheets], cols, use_gpu ? 6 : 4);
                    sheets++;
                }
            }
            fprintf(stderr, "bench_framegen: %s-%s (seed %u) t=1/2 PSNR blend %.2f flow %.2f "
                    "vectors %.2f; t=1/3 vectors %.2f, t=2/3 vectors %.2f\n", all_scenes[si],
                    all_paths[pi], seed, mean_psnr(&seq[0][0]), mean_psnr(&seq[0][1]),
                    mean_psnr(&seq[0][2]), mean_psnr(&seq[1][2]), mean_psnr(&seq[2][2]));
            for (int ph = 0; ph < N_PHASES; ph++)
                for (int m = 0; m < 3; m++)
                    add(&cell[pi][ph][m], &seq[ph][m]);
            scene_destroy(&sc);
        }
    }
    view_free(&a);
    view_free(&b);
    view_free(&truth);
    for (int m = 0; m < 3; m++) {
        imageio_free(&made[m]);
        imageio_free(&lin[m]);
        upf_interpolate_destroy(&eng[m]);
    }
    for (int m = 0; m < 2; m++)
        imageio_free(&gcrop[m]);
    if (use_gpu)
        gpu_destroy(&gpu);

    /* ---- real clips ---- */
    static clip clips[MAX_CLIPS];
    int nclips = real_dir ? load_clips(real_dir, clips) : 0;
    bool have_dis = false;
    gpu_eng ge[2]; /* with --backend vulkan: the GPU's blend and flow at the clips' size */
    memset(ge, 0, sizeof ge);
    for (int c = 0; c < nclips; c++) {
        const int w = clips[c].f[0].img.width, h = clips[c].f[0].img.height;
        upf_interpolate *e[2];
        for (int m = 0; m < 2; m++) {
            e[m] = upf_interpolate_create(ctx, upf_interpolate_params(
                .width = w, .height = h, .motion = how[m], .flags = flow_flags));
            if (!e[m])
                check(upf_context_last_error(ctx, NULL), "upf_interpolate_create");
        }
        imageio_image o = alloc_image(w, h, UPF_FORMAT_RGBA8_SRGB), go = { 0 }, clin[2];
        memset(clin, 0, sizeof clin);
        if (use_gpu) {
            go = alloc_image(w, h, UPF_FORMAT_RGBA8_SRGB);
            for (int m = 0; m < 2; m++)
                clin[m] = alloc_image(w, h, UPF_FORMAT_RGBA32F);
        }
        job jobs[16];
        const int nj = clip_jobs(jobs);
        char list[4096], cmd[8400];
        snprintf(list, sizeof list, "/tmp/bench_framegen_%d_jobs.txt", (int)getpid());
        FILE *jf = fopen(list, "w");
        for (int k = 0; k < nj; k++) {
            const job *j = &jobs[k];
            upf_interpolate_frames f = { &clips[c].f[j->a].img, &clips[c].f[j->b].img, NULL,
                                         NULL, NULL, NULL, 0, 1, 0, NULL, NULL, 0 };
            for (int m = 0; m < 2; m++) {
                if (use_gpu) { /* the CPU's frame in linear RGBA32F, then 8-bit as before */
                    check(upf_interpolate_run(e[m], &f, phases[j->phase], &clin[m].img), "run");
                    check(upf_resample(ctx, &clin[m].img, &o.img, UPF_FILTER_BILINEAR),
                          "8-bit copy");
                } else
                    check(upf_interpolate_run(e[m], &f, phases[j->phase], &o.img), "run");
                measure(&clips[c].s[j->phase][m], &clips[c].f[j->truth].img, &o.img,
                        j->phase == 0);
                if (j->phase == 0)
                    measure_edges(clips[c].edge[m], &clips[c].f[j->truth].img, &o.img);
                if (m == M_FLOW) {
                    upf_interpolate_method used;
                    upf_interpolate_last_method(e[m], &used, NULL);
                    clips[c].blended += used == UPF_INTERPOLATE_USED_BLEND;
                    clips[c].runs++;
                    clips[c].lost_max = fmax(clips[c].lost_max, lost_share(e[m]));
                }
            }
            if (use_gpu)
                gpu_clip_job(&gpu, ge, &clips[c], j, &f, clin, &go);
            if (jf)
                fprintf(jf, "%s/%s/f%03d.png %s/%s/f%03d.png %.17g /tmp/bench_framegen_%d_%d.png\n",
                        real_dir, clips[c].name, j->a, real_dir, clips[c].name, j->b,
                        phases[j->phase], (int)getpid(), k);
        }
        if (jf)
            fclose(jf);
        /* the script sits in the source tree's bench/, next to this file */
        snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' 2>&1", python, UPF_BENCH_SOURCE_DIR
                 "/dis_interpolate.py", list);
        int rc = system(cmd);
        if (rc == 0) {
            for (int k = 0; k < nj; k++) {
                char p[4096], err[IMAGEIO_ERR_SIZE];
                snprintf(p, sizeof p, "/tmp/bench_framegen_%d_%d.png", (int)getpid(), k);
                imageio_image d;
                if (imageio_read(p, NULL, &d, err) != UPF_OK)
                    die("%s", err);
                measure(&clips[c].s[jobs[k].phase][M_DIS], &clips[c].f[jobs[k].truth].img,
                        &d.img, jobs[k].phase == 0);
                if (jobs[k].phase == 0)
                    measure_edges(clips[c].edge[M_DIS], &clips[c].f[jobs[k].truth].img, &d.img);
                imageio_free(&d);
                unlink(p);
            }
            have_dis = true;
        } else {
            fprintf(stderr, "bench_framegen: %s failed (exit %d): no DIS column\n", cmd, rc);
        }
        unlink(list);
        fprintf(stderr, "bench_framegen: %s t=1/2 PSNR blend %.2f flow %.2f DIS %.2f\n",
                clips[c].name, mean_psnr(&clips[c].s[0][0]), mean_psnr(&clips[c].s[0][1]),
                mean_psnr(&clips[c].s[0][M_DIS]));
        imageio_free(&o);
        if (use_gpu) {
            imageio_free(&go);
            for (int m = 0; m < 2; m++)
                imageio_free(&clin[m]);
        }
        for (int m = 0; m < 2; m++)
            upf_interpolate_destroy(&e[m]);
    }

    /* ---- real cuts: the last frame of one clip, then the first of another, t = 1/2 ---- */
    double cut_lost[MAX_CLIPS * MAX_CLIPS];
    int ncut = 0, cut_blended = 0;
    for (int c = 0; c < nclips; c++)
        for (int d = 0; d < nclips; d++) {
            const upf_image *fa = &clips[c].f[CLIP_FRAMES - 1].img, *fb = &clips[d].f[0].img;
            if (c == d || fa->width != fb->width || fa->height != fb->height)
                continue;
            upf_interpolate *ce = upf_interpolate_create(ctx, upf_interpolate_params(
                .width = fa->width, .height = fa->height, .motion = UPF_INTERPOLATE_MOTION_FLOW,
                .flags = flow_flags));
            if (!ce)
                check(upf_context_last_error(ctx, NULL), "upf_interpolate_create");
            imageio_image o = alloc_image(fa->width, fa->height, UPF_FORMAT_RGBA8_SRGB);
            upf_interpolate_frames f = { fa, fb, NULL, NULL, NULL, NULL, 0, 1, 0, NULL, NULL, 0 };
            check(upf_interpolate_run(ce, &f, 0.5, &o.img), "run");
            if (use_gpu) { /* the GPU's flow on the cut against the CPU's (the blend) */
                imageio_image cl = alloc_image(fa->width, fa->height, UPF_FORMAT_RGBA32F);
                char where[160];
                check(upf_interpolate_run(ce, &f, 0.5, &cl.img), "run");
                gpu_eng_fit(&ge[M_FLOW], fa->width, fa->height, UPF_INTERPOLATE_MOTION_FLOW,
                            fa->format);
                gpu_eng_run(&ge[M_FLOW], &f, phases, 1);
                snprintf(where, sizeof where, "the cut %.60s -> %.60s, t = 1/2", clips[c].name,
                         clips[d].name);
                mad_add(&gpu.mad[G_REAL], &cl.img, &ge[M_FLOW].made[0].img, where);
                imageio_free(&cl);
            }
            upf_interpolate_method used;
            upf_interpolate_last_method(ce, &used, NULL);
            cut_blended += used == UPF_INTERPOLATE_USED_BLEND;
            cut_lost[ncut++] = lost_share(ce);
            imageio_free(&o);
            upf_interpolate_destroy(&ce);
        }
    for (int m = 0; m < 2; m++)
        gpu_eng_destroy(&ge[m]);

    /* ---- the HUD: each scene's pan and fast turn, a pair at 1.0 s, t = 1/2 ---- */
    hud_score hud[N_HUD];
    memset(hud, 0, sizeof hud);
    int hud_pairs = 0;
    if (!scenes || strcmp(scenes, "none") != 0) {
        upf_interpolate *he[N_HUD];
        static const upf_interpolate_motion hm[N_HUD] = { UPF_INTERPOLATE_MOTION_FLOW,
                                                         UPF_INTERPOLATE_MOTION_FLOW,
                                                         UPF_INTERPOLATE_MOTION_VECTORS };
        gpu_eng hg[N_HUD]; /* with --backend vulkan: the same three on the GPU */
        imageio_image hlin = { 0 }, go = { 0 };
        for (int m = 0; m < N_HUD; m++) {
            const unsigned flags = UPF_INTERPOLATE_DEPTH_REVERSED | flow_flags |
                                   (m == H_NO_RULE ? UPF_INTERPOLATE_NO_STILL_RULE : 0);
            he[m] = upf_interpolate_create(ctx, upf_interpolate_params(
                .width = W, .height = H, .motion = hm[m], .flags = flags));
            if (!he[m])
                check(upf_context_last_error(ctx, NULL), "upf_interpolate_create");
            if (use_gpu)
                gpu_eng_create(&hg[m], W, H, hm[m], flags, UPF_FORMAT_RGBA32F,
                               m == H_LAYER ? UPF_FORMAT_RGBA32F : 0, NULL);
        }
        if (use_gpu)
            hlin = alloc_image(W, H, UPF_FORMAT_RGBA32F), go = alloc_image(W, H,
                                                                          UPF_FORMAT_RGBA8_SRGB);
        view_alloc(&a, W, H);
        view_alloc(&b, W, H);
        view_alloc(&truth, W, H);
        imageio_image o = alloc_image(W, H, UPF_FORMAT_RGBA8_SRGB);
        for (int si = 0; si < N_SCENES; si++) {
            if (!in_list(scenes, all_scenes[si]))
                continue;
            static const int hpaths[2] = { 1, 4 }; /* pan, turn */
            for (int q = 0; q < 2; q++) {
                const int pi = hpaths[q];
                scene *sc;
                uint32_t seed = SCENE_EVAL_SEED_MIN + 100u * (uint32_t)(si + 1) +
                                (uint32_t)(pi + 1);
                check(scene_create(ctx, all_scenes[si], seed, &sc), "scene_create");
                render_hud(sc, pi, 1.0, spp, &a);
                render_hud(sc, pi, 1.0 + 1.0 / FPS, spp, &b);
                render_hud(sc, pi, 1.0 + 0.5 / FPS, spp, &truth);
                for (int m = 0; m < N_HUD; m++) {
                    const bool layer = m == H_LAYER;
                    upf_interpolate_frames f = {
                        layer ? &a.color.img : &a.final.img, layer ? &b.color.img : &b.final.img,
                        layer ? &b.motion.img : NULL, layer ? &b.depth.img : NULL,
                        layer ? &a.hud.img : NULL, layer ? &b.hud.img : NULL, 0, 1, 0,
                        NULL, NULL, 0 };
                    if (use_gpu) { /* the CPU's frame in linear RGBA32F, then 8-bit */
                        char where[160];
                        check(upf_interpolate_run(he[m], &f, 0.5, &hlin.img),
                              "upf_interpolate_run");
                        check(upf_resample(ctx, &hlin.img, &o.img, UPF_FILTER_BILINEAR),
                              "8-bit copy");
                        gpu_eng_run(&hg[m], &f, phases, 1);
                        check(upf_resample(ctx, &hg[m].made[0].img, &go.img,
                                           UPF_FILTER_BILINEAR), "8-bit copy");
                        hud_measure(&gpu.hud[m], &a, &b, &truth, &go.img);
                        snprintf(where, sizeof where, "%s-%s, %s", all_scenes[si],
                                 all_paths[pi], hud_names[m]);
                        mad_add(&gpu.mad[G_HUD], &hlin.img, &hg[m].made[0].img, where);
                    } else
                        check(upf_interpolate_run(he[m], &f, 0.5, &o.img),
                              "upf_interpolate_run");
                    hud_measure(&hud[m], &a, &b, &truth, &o.img);
                }
                hud_pairs++;
                scene_destroy(&sc);
            }
        }
        imageio_free(&o);
        view_free(&a);
        view_free(&b);
        view_free(&truth);
        for (int m = 0; m < N_HUD; m++) {
            upf_interpolate_destroy(&he[m]);
            if (use_gpu)
                gpu_eng_destroy(&hg[m]);
        }
        imageio_free(&hlin);
        imageio_free(&go);
    }

    /* ---- the section ---- */
    out("\n## Frame generation\n\n");
    out("Made by `%s` (bench/bench_framegen.c), which writes this section only.\n\n",
        command ? command : "bench_framegen");
    out("- Rendered: the evaluation scenes of docs/SCENES.md (%s) on the paths still (the "
        "scenes' moving objects only), pan, orbit, walk and turn (the fast turn, 120 degrees "
        "a second); %d pairs a sequence, frames 1/30 s apart at 0.3 s, 1.0 s, ...; every frame "
        "%dx%d at %d samples per pixel, linear colour without the HUD, the later frame's depth "
        "and motion vectors. The truth: the frame rendered at the phase's time.\n",
        scenes ? scenes : "courtyard, forest, street, interior", pairs, W, H, spp);
    out("- Methods, all `upf_interpolate` (the still-pixel rule on: no HUD layer given): the "
        "blend ((1 - t) A + t B, `UPF_INTERPOLATE_MOTION_BLEND`), optical flow from the two "
        "frames alone (`_FLOW`), and the game's motion vectors with depth (`_VECTORS`).\n");
    out("- Scores of the made frame against the truth, 8-bit sRGB: PSNR (RGB, dB), SSIM "
        "(luma), FLIP (mean; at t = 1/2 only); means over pairs and scenes.\n\n");
    out("### Rendered sequences\n\n| path | t | blend PSNR | flow PSNR | vectors PSNR | blend "
        "SSIM | flow SSIM | vectors SSIM | blend FLIP | flow FLIP | vectors FLIP |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n");
    score all[N_PHASES][3];
    memset(all, 0, sizeof all);
    for (int pi = 0; pi < N_PATHS; pi++)
        for (int ph = 0; ph < N_PHASES; ph++) {
            const score *s = cell[pi][ph];
            if (!s[0].n)
                continue;
            for (int m = 0; m < 3; m++)
                add(&all[ph][m], &s[m]);
            out("| %s | %s | %.2f | %.2f | %.2f | %.4f | %.4f | %.4f |", ph ? "" : path_label[pi],
                phase_names[ph], mean_psnr(&s[0]), mean_psnr(&s[1]), mean_psnr(&s[2]),
                s[0].ssim / s[0].n, s[1].ssim / s[1].n, s[2].ssim / s[2].n);
            if (ph == 0)
                out(" %.4f | %.4f | %.4f |\n", s[0].flip / s[0].nflip, s[1].flip / s[1].nflip,
                    s[2].flip / s[2].nflip);
            else
                out(" | | |\n");
        }
    for (int ph = 0; ph < N_PHASES && all[0][0].n; ph++) {
        const score *s = all[ph];
        out("| **all** | %s | %.2f | %.2f | %.2f | %.4f | %.4f | %.4f |", phase_names[ph],
            mean_psnr(&s[0]), mean_psnr(&s[1]), mean_psnr(&s[2]), s[0].ssim / s[0].n,
            s[1].ssim / s[1].n, s[2].ssim / s[2].n);
        if (ph == 0)
            out(" %.4f | %.4f | %.4f |\n", s[0].flip / s[0].nflip, s[1].flip / s[1].nflip,
                s[2].flip / s[2].nflip);
        else
            out(" | | |\n");
    }
    out("\nPairs the optical-flow path took for a scene change (and blended): %d of %d. The "
        "largest share of the flow's vectors that failed its forward/backward check (what the "
        "cut pass measures; a cut above 1/2, docs/FRAMEGEN.md \"cut\"): %.3f (%s).\n\n",
        cuts[M_FLOW], all[0][1].n, lost_max, lost_where);
    out("The frame's edges at t = 1/2 (what a pan or a turn brings into view comes in over "
        "one of them): PSNR over the left %d columns, the right %d and the middle half of the "
        "width, the mean over the pairs and scenes.\n\n| path | flow left | flow right | flow "
        "middle | vectors left | vectors right | vectors middle |\n"
        "|---|---|---|---|---|---|---|\n", EDGE, EDGE);
    for (int pi = 0; pi < N_PATHS; pi++) {
        if (!redge[pi][M_FLOW][0].n)
            continue;
        out("| %s |", path_label[pi]);
        for (int m = M_FLOW; m <= M_VECTORS; m++)
            for (int e = 0; e < N_EDGES; e++)
                out(" %.2f |", mean_psnr(&redge[pi][m][e]));
        out("\n");
    }
    out("\n");
    score real[N_PHASES][N_METHODS];
    memset(real, 0, sizeof real);
    if (nclips) {
        out("### Real game clips\n\nThe folders of `%s` (%d clips; a fixed game time step, so "
            "frame k is the true midpoint of frames k-1 and k+1, and frames k+1, k+2 the true "
            "phases 1/3 and 2/3 between k and k+3). No motion vectors: the blend, upframe's "
            "optical flow, and OpenCV's DIS optical flow (`cv2.DISOpticalFlow_create`, MEDIUM "
            "preset, on grey frames, both ways; each frame warped toward t with `cv2.remap`, "
            "bilinear, the two averaged with weights 1 - t and t: bench/dis_interpolate.py, "
            "run by %s). Numbers only.\n\n| clip | t | pairs | blend PSNR | flow PSNR | DIS PSNR "
            "| blend SSIM | flow SSIM | DIS SSIM | blend FLIP | flow FLIP | DIS FLIP |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n", real_dir, nclips, python);
        static const int cols[3] = { M_BLEND, M_FLOW, M_DIS };
        for (int c = 0; c <= nclips; c++)
            for (int ph = 0; ph < N_PHASES; ph++) {
                const score *s = c < nclips ? clips[c].s[ph] : real[ph];
                if (c < nclips)
                    for (int m = 0; m < N_METHODS; m++)
                        add(&real[ph][m], &s[m]);
                out("| %s | %s | %d |", ph ? "" : c < nclips ? clips[c].name : "**all**",
                    phase_names[ph], s[0].n);
                for (int k = 0; k < 3; k++)
                    out(s[cols[k]].n ? " %.2f |" : " - |", mean_psnr(&s[cols[k]]));
                for (int k = 0; k < 3; k++)
                    out(s[cols[k]].n ? " %.4f |" : " - |",
                        s[cols[k]].n ? s[cols[k]].ssim / s[cols[k]].n : 0.0);
                for (int k = 0; k < 3; k++)
                    out(ph == 0 && s[cols[k]].nflip ? " %.4f |" : " |",
                        s[cols[k]].nflip ? s[cols[k]].flip / s[cols[k]].nflip : 0.0);
                out("\n");
            }
        out("\nThe flow's share of vectors that failed its forward/backward check (the cut "
            "pass's measure; a cut above 1/2), the largest over each clip's pairs:");
        int blended = 0, runs = 0;
        for (int c = 0; c < nclips; c++) {
            out(" %s %.3f%s", clips[c].name, clips[c].lost_max, c + 1 < nclips ? "," : ";");
            blended += clips[c].blended, runs += clips[c].runs;
        }
        out(" pairs the flow path blended: %d of %d. Cuts between two shots of one map (the "
            "last frame of one clip, then the first of another, at t = 1/2, every ordered pair "
            "of clips): shares", blended, runs);
        for (int k = 0; k < ncut; k++)
            out(" %.3f%s", cut_lost[k], k + 1 < ncut ? "," : "");
        out("; blended %d of %d.\n", cut_blended, ncut);
        out("\nThe frame's edges at t = 1/2 (what a pan brings into view or takes out of it "
            "lies there): PSNR over the left %d columns, the right %d and the middle half of "
            "the width, the mean over the pairs.\n\n| clip | blend left | blend right | blend "
            "middle | flow left | flow right | flow middle | DIS left | DIS right | DIS middle "
            "|\n|---|---|---|---|---|---|---|---|---|---|\n", EDGE, EDGE);
        for (int c = 0; c < nclips; c++) {
            out("| %s |", clips[c].name);
            for (int k = 0; k < 3; k++)
                for (int e = 0; e < N_EDGES; e++)
                    out(clips[c].edge[cols[k]][e].n ? " %.2f |" : " - |",
                        mean_psnr(&clips[c].edge[cols[k]][e]));
            out("\n");
        }
        out("\n");
    }
    if (hud_pairs) {
        out("### The HUD\n\nEach scene's pan and fast turn, one pair (1.0 s and 1/30 s later) at "
            "t = 1/2, the scene renderer's HUD layer composited into the frames (c (1 - a) + h a) "
            "or given apart; scored over the pixels of the still, opaque HUD (alpha 1 in both "
            "frames and in the truth, the same colour in both frames): mean and largest absolute "
            "error against the true frame with its HUD (8-bit sRGB, 0..255), and the share "
            "exact. %d pairs.\n\n| method | HUD pixels | mean error | largest | exact |\n"
            "|---|---|---|---|---|\n", hud_pairs);
        for (int m = 0; m < N_HUD; m++)
            out("| %s | %ld | %.3f | %.0f | %.2f%% |\n", hud_names[m], hud[m].n,
                hud[m].n ? hud[m].sum / (3.0 * hud[m].n) : 0.0, hud[m].worst,
                hud[m].n ? 100.0 * hud[m].exact / hud[m].n : 0.0);
        out("\n");
    }
    /* the bars */
    if (all[0][0].n) {
        const double bl = mean_psnr(&all[0][0]), fl = mean_psnr(&all[0][1]);
        const double v = mean_psnr(&all[0][2]);
        out("### The bars (issue 9)\n\n| bar | measured | met |\n|---|---|---|\n");
        out("| rendered, t = 1/2: vectors - blend >= 6 dB | %.2f - %.2f = %+.2f dB | %s |\n", v,
            bl, v - bl, v - bl >= 6 ? "yes" : "**no**");
        out("| rendered, t = 1/2: vectors - optical flow >= 2 dB | %.2f - %.2f = %+.2f dB | %s "
            "|\n", v, fl, v - fl, v - fl >= 2 ? "yes" : "**no**");
        out("| rendered, t = 1/2: optical flow - blend >= 3 dB | %.2f - %.2f = %+.2f dB | %s |\n",
            fl, bl, fl - bl, fl - bl >= 3 ? "yes" : "**no**");
        for (int ph = 1; ph < N_PHASES; ph++) {
            const double d = mean_psnr(&all[ph][2]) - v;
            out("| rendered: vectors at t = %s within 0.5 dB of t = 1/2 | %.2f vs %.2f (%+.2f "
                "dB) | %s |\n", phase_names[ph], mean_psnr(&all[ph][2]), v, d,
                fabs(d) <= 0.5 ? "yes" : "**no**");
        }
        if (nclips && have_dis) {
            const double f2 = mean_psnr(&real[0][M_FLOW]), d2 = mean_psnr(&real[0][M_DIS]);
            out("| real clips, t = 1/2: optical flow - OpenCV DIS >= 0.5 dB | %.2f - %.2f = "
                "%+.2f dB | %s |\n", f2, d2, f2 - d2, f2 - d2 >= 0.5 ? "yes" : "**no**");
        }
        if (hud_pairs) {
            const hud_score *l = &hud[H_LAYER], *r = &hud[H_RULE];
            out("| HUD layer given: HUD pixels equal the HUD exactly | %.2f%% exact | %s |\n",
                l->n ? 100.0 * l->exact / l->n : 0.0, l->n && l->exact == l->n ? "yes" :
                "**no**");
            out("| no HUD layer: still-pixel rule keeps a still HUD within 1/255 on average | "
                "%.3f / 255 (rule off: %.3f) | %s |\n", r->n ? r->sum / (3.0 * r->n) : 0.0,
                hud[H_NO_RULE].n ? hud[H_NO_RULE].sum / (3.0 * hud[H_NO_RULE].n) : 0.0,
                r->n && r->sum / (3.0 * r->n) <= 1.0 ? "yes" : "**no**");
        }
        out("\n");
    }
    if (use_gpu && all[0][0].n)
        gpu_section(&gpu, all, clips, nclips, real, have_dis, hud, hud_pairs);
    if (sheets) {
        out("Crops at t = 1/2 (the true frame, the blend, optical flow, motion vectors%s; the "
            "busiest 160x100 of the truth, 2x nearest neighbour; the last pair of each):\n\n",
            use_gpu ? ", then the GPU path's optical flow and motion vectors" : "");
        for (int k = 0; k < sheets; k++)
            out("![%s](quality/framegen-%s.png)\n", sheet_names[k], sheet_names[k]);
        out("\n");
    }
    char machine[320];
    bench_machine(machine, sizeof machine);
    out("%s, %d threads, %.0f s.\n\n", machine, upf_context_threads(ctx),
        (double)time(NULL) - t_start);
    if (out_dir)
        bench_splice_section("bench_framegen", out_dir, MARK_BEGIN, MARK_END, text.buf);
    free(text.buf);
    for (int c = 0; c < nclips; c++)
        for (int k = 0; k < CLIP_FRAMES; k++)
            imageio_free(&clips[c].f[k]);
    upf_context_destroy(&ctx);
    return 0;
}
