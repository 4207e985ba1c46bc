/* bench_framegen.c: makes the frame generation section of docs/QUALITY.md: the made frame
 * against the true frame at that time, for the plain blend, the optical-flow path and the
 * motion-vector path, on pairs of the scene renderer's evaluation set, and on real game clips
 * beside OpenCV's DIS optical flow; crops of the rendered scenes; the bars of issue 9. Its
 * output replaces the part of QUALITY.md between its two marker lines (or is appended).
 *
 *   bench_framegen [--out DOCS_DIR] [--size WxH] [--spp N] [--pairs N] [--scenes LIST]
 *                  [--paths LIST] [--real-fg DIR] [--python PATH] [--threads N]
 *                  [--command TEXT] [--matrices 1] [--backend cpu|vulkan]
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
 * --backend vulkan: every rendered pair's flow and vectors frames are also made by the GPU
 * engine (managed mode, the first device), scored the same way, and compared with the CPU's
 * (mean absolute difference, linear RGB); a table "The GPU path" follows the CPU's bars (the
 * CPU tables stay as they are; the real clips, the HUD and the crops are the CPU's only). */
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

static void write_sheet(const char *dir, const char *name, const upf_image *truth,
                        const imageio_image *made)
{
    enum { CW = 160, CH = 100, Z = 2, LH = 18 };
    int cx, cy;
    bench_busiest_crop(truth, CW, CH, &cx, &cy);
    imageio_image sheet = alloc_image(4 * (CW * Z + 4), CH * Z + LH, UPF_FORMAT_RGBA8_SRGB);
    uint8_t *p = sheet.img.data;
    for (size_t i = 0; i < (size_t)sheet.img.width * sheet.img.height; i++)
        p[4 * i + 3] = 255;
    bench_sheet_put(&sheet.img, 0, LH, truth, cx, cy, CW, CH, Z, "true frame");
    for (int m = 0; m < 3; m++)
        bench_sheet_put(&sheet.img, 1 + m, LH, &made[m].img, cx, cy, CW, CH, Z,
                        method_names[m]);
    char path[4096], err[IMAGEIO_ERR_SIZE];
    snprintf(path, sizeof path, "%s/quality/framegen-%s.png", dir, name);
    if (imageio_write_png(path, &sheet.img, 8, err) != UPF_OK)
        die("%s", err);
    fprintf(stderr, "bench_framegen: %s (crop at %d,%d)\n", path, cx, cy);
    imageio_free(&sheet);
}

/* ---- the GPU path (--backend vulkan) --------------------------------------------------- */

/* The GPU engines of the flow and the vectors (managed mode, the first device), their made
 * frames at the three phases (linear RGBA32F), the scores of those frames per path, phase and
 * method (as cell[]), and their largest mean absolute difference from the CPU's made frame. */
typedef struct gpu_path {
#ifdef UPF_HAVE_VULKAN
    upf__vk_interpolate_managed *eng[3]; /* [M_FLOW], [M_VECTORS]; [M_BLEND] NULL */
#endif
    char device[256];
    imageio_image made[3][N_PHASES], srgb;
    score cell[N_PATHS][N_PHASES][3];
    double mad_max;
    long frames;
    char mad_where[128];
} gpu_path;

static void gpu_create(gpu_path *g, int w, int h)
{
    memset(g, 0, sizeof *g);
#ifdef UPF_HAVE_VULKAN
    static const upf_interpolate_motion how[3] = { 0, UPF_INTERPOLATE_MOTION_FLOW,
                                                   UPF_INTERPOLATE_MOTION_VECTORS };
    for (int m = M_FLOW; m <= M_VECTORS; m++) {
        g->eng[m] = upf__vk_interpolate_managed_create(ctx, &(upf__vk_interpolate_managed_params){
            .device_index = -1, .width = w, .height = h, .motion = how[m],
            .max_factor = N_PHASES + 1, .flags = UPF_INTERPOLATE_DEPTH_REVERSED,
            .color_format = UPF_FORMAT_RGBA32F, .output_format = UPF_FORMAT_RGBA32F });
        if (!g->eng[m])
            check(upf_context_last_error(ctx, NULL), "--backend vulkan: the GPU engine");
        for (int ph = 0; ph < N_PHASES; ph++)
            g->made[m][ph] = alloc_image(w, h, UPF_FORMAT_RGBA32F);
    }
    snprintf(g->device, sizeof g->device, "%s",
             upf__vk_interpolate_managed_device_name(g->eng[M_FLOW]));
    g->srgb = alloc_image(w, h, UPF_FORMAT_RGBA8_SRGB);
    fprintf(stderr, "bench_framegen: the GPU path on %s\n", g->device);
#else
    (void)w, (void)h;
    die("--backend vulkan: this build has no Vulkan backend (UPF_VULKAN=OFF); use --backend cpu");
#endif
}

static void gpu_destroy(gpu_path *g)
{
#ifdef UPF_HAVE_VULKAN
    for (int m = M_FLOW; m <= M_VECTORS; m++) {
        upf__vk_interpolate_managed_destroy(&g->eng[m]);
        for (int ph = 0; ph < N_PHASES; ph++)
            imageio_free(&g->made[m][ph]);
    }
    imageio_free(&g->srgb);
#else
    (void)g;
#endif
}

/* The GPU's made frames of the pair f at the three phases, one submission a method. */
static void gpu_run(gpu_path *g, const upf_interpolate_frames *f)
{
#ifdef UPF_HAVE_VULKAN
    for (int m = M_FLOW; m <= M_VECTORS; m++) {
        const upf_image *outs[N_PHASES];
        for (int ph = 0; ph < N_PHASES; ph++)
            outs[ph] = &g->made[m][ph].img;
        check(upf__vk_interpolate_managed_run(g->eng[m], f, phases, N_PHASES, outs),
              "upf__vk_interpolate_managed_run");
    }
#else
    (void)g, (void)f;
#endif
}

/* Scores the GPU's made frame of method m at phase ph against the truth as the CPU's (8-bit
 * sRGB, no FLIP) into s, and its mean absolute difference from the CPU's linear made frame. */
static void gpu_measure(gpu_path *g, score *s, int m, int ph, const upf_image *truth,
                        const upf_image *cpu, const char *where)
{
    const upf_image *gm = &g->made[m][ph].img;
    check(upf_resample(ctx, gm, &g->srgb.img, UPF_FILTER_BILINEAR), "8-bit copy");
    measure(s, truth, &g->srgb.img, false);
    const float *a = cpu->data, *b = gm->data;
    double sum = 0;
    const size_t n = (size_t)gm->width * gm->height;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            sum += fabs((double)a[4 * i + k] - (double)b[4 * i + k]);
    const double mad = sum / (3.0 * (double)n);
    if (mad > g->mad_max || !g->frames) {
        g->mad_max = mad;
        snprintf(g->mad_where, sizeof g->mad_where, "%s, %s, t = %s", where, method_names[m],
                 phase_names[ph]);
    }
    g->frames++;
}

/* The section's table of the GPU path and its bars (bl: the CPU's blend at t = 1/2, all). */
static void gpu_section(const gpu_path *g, double bl)
{
    score all[N_PHASES][3];
    memset(all, 0, sizeof all);
    out("### The GPU path (device %s)\n\nThe same pairs and phases made again by the GPU engine "
        "(`--backend vulkan`: `upf_vk_interpolate` in managed mode, the first device; frames "
        "uploaded as RGBA32F, the made frames read back as RGBA32F and scored as the CPU's, "
        "8-bit sRGB, no FLIP); the blend in the bars is the CPU's of the table above (the GPU "
        "path is scored for the flow and the vectors; the real clips, the HUD and the crops are "
        "the CPU's only).\n\n| path | t | flow PSNR (GPU) | vectors PSNR (GPU) | flow SSIM (GPU) "
        "| vectors SSIM (GPU) |\n|---|---|---|---|---|---|\n", g->device);
    for (int pi = 0; pi < N_PATHS; pi++)
        for (int ph = 0; ph < N_PHASES; ph++) {
            const score *s = g->cell[pi][ph];
            if (!s[M_FLOW].n)
                continue;
            for (int m = M_FLOW; m <= M_VECTORS; m++)
                add(&all[ph][m], &s[m]);
            if (ph == 0)
                out("| %s | 1/2 | %.2f | %.2f | %.4f | %.4f |\n", path_label[pi],
                    mean_psnr(&s[M_FLOW]), mean_psnr(&s[M_VECTORS]),
                    s[M_FLOW].ssim / s[M_FLOW].n, s[M_VECTORS].ssim / s[M_VECTORS].n);
        }
    for (int ph = 0; ph < N_PHASES && all[0][M_FLOW].n; ph++)
        out("| **all** | %s | %.2f | %.2f | %.4f | %.4f |\n", phase_names[ph],
            mean_psnr(&all[ph][M_FLOW]), mean_psnr(&all[ph][M_VECTORS]),
            all[ph][M_FLOW].ssim / all[ph][M_FLOW].n,
            all[ph][M_VECTORS].ssim / all[ph][M_VECTORS].n);
    if (!all[0][M_FLOW].n)
        return;
    const double fl = mean_psnr(&all[0][M_FLOW]), v = mean_psnr(&all[0][M_VECTORS]);
    out("\n| bar (the GPU path) | measured | met |\n|---|---|---|\n");
    out("| rendered, t = 1/2: vectors - blend >= 6 dB | %.2f - %.2f = %+.2f dB | %s |\n", v, bl,
        v - bl, v - bl >= 6 ? "yes" : "**no**");
    out("| rendered, t = 1/2: vectors - optical flow >= 2 dB | %.2f - %.2f = %+.2f dB | %s |\n",
        v, fl, v - fl, v - fl >= 2 ? "yes" : "**no**");
    out("| rendered, t = 1/2: optical flow - blend >= 3 dB | %.2f - %.2f = %+.2f dB | %s |\n", fl,
        bl, fl - bl, fl - bl >= 3 ? "yes" : "**no**");
    for (int ph = 1; ph < N_PHASES; ph++) {
        const double d = mean_psnr(&all[ph][M_VECTORS]) - v;
        out("| rendered: vectors at t = %s within 0.5 dB of t = 1/2 | %.2f vs %.2f (%+.2f dB) | "
            "%s |\n", phase_names[ph], mean_psnr(&all[ph][M_VECTORS]), v, d,
            fabs(d) <= 0.5 ? "yes" : "**no**");
    }
    out("| the GPU's made frames within a mean absolute difference of 0.001 of the CPU's "
        "(linear RGB on [0, 1]), the largest of %ld frames | %.2e (%s) | %s |\n\n", g->frames,
        g->mad_max, g->mad_where, g->mad_max <= 0.001 ? "yes" : "**no**");
}

/* ---- real clips ----------------------------------------------------------------------- */

#define MAX_CLIPS 16
#define CLIP_FRAMES 5

typedef struct clip {
    char name[512];
    imageio_image f[CLIP_FRAMES];
    score s[N_PHASES][N_METHODS];
    score edge[N_METHODS][N_EDGES]; /* t = 1/2 */
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

static void usage(void)
{
    fprintf(stderr, "usage: bench_framegen [--out DOCS_DIR] [--size WxH] [--spp N] [--pairs N] "
                    "[--scenes LIST] [--paths LIST] [--real-fg DIR] [--python PATH] "
                    "[--threads N] [--command TEXT] [--matrices 1] [--backend cpu|vulkan]\n");
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
            .width = W, .height = H, .motion = how[m], .flags = UPF_INTERPOLATE_DEPTH_REVERSED));
        if (!eng[m])
            check(upf_context_last_error(ctx, NULL), "upf_interpolate_create");
    }
    score cell[N_PATHS][N_PHASES][3];
    memset(cell, 0, sizeof cell);
    static gpu_path gpu;
    imageio_image lin[3]; /* with --backend vulkan: the CPU's flow and vectors frames, linear */
    memset(lin, 0, sizeof lin);
    if (use_gpu) {
        gpu_create(&gpu, W, H);
        for (int m = M_FLOW; m <= M_VECTORS; m++)
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
    imageio_image made[3];
    for (int m = 0; m < 3; m++)
        made[m] = alloc_image(W, H, UPF_FORMAT_RGBA8_SRGB);
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
                    gpu_run(&gpu, &f);
                for (int ph = 0; ph < N_PHASES; ph++) {
                    render(sc, pi, t0 + phases[ph] / FPS, spp, &truth);
                    for (int m = 0; m < 3; m++) {
                        if (use_gpu && m != M_BLEND) {
                            /* the CPU's frame in linear RGBA32F, then 8-bit as before */
                            char where[96];
                            check(upf_interpolate_run(eng[m], &f, phases[ph], &lin[m].img),
                                  "upf_interpolate_run");
                            check(upf_resample(ctx, &lin[m].img, &made[m].img,
                                               UPF_FILTER_BILINEAR), "8-bit copy");
                            snprintf(where, sizeof where, "%s-%s pair %d", all_scenes[si],
                                     all_paths[pi], k + 1);
                            gpu_measure(&gpu, &gpu.cell[pi][ph][m], m, ph, &truth.srgb.img,
                                        &lin[m].img, where);
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
                    write_sheet(out_dir, sheet_names[sheets], &truth.srgb.img, made);
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
        upf_interpolate_destroy(&eng[m]);
    }
    if (use_gpu) {
        gpu_destroy(&gpu);
        for (int m = M_FLOW; m <= M_VECTORS; m++)
            imageio_free(&lin[m]);
    }

    /* ---- real clips ---- */
    static clip clips[MAX_CLIPS];
    int nclips = real_dir ? load_clips(real_dir, clips) : 0;
    bool have_dis = false;
    for (int c = 0; c < nclips; c++) {
        const int w = clips[c].f[0].img.width, h = clips[c].f[0].img.height;
        upf_interpolate *e[2];
        for (int m = 0; m < 2; m++) {
            e[m] = upf_interpolate_create(ctx, upf_interpolate_params(.width = w, .height = h,
                                                                      .motion = how[m]));
            if (!e[m])
                check(upf_context_last_error(ctx, NULL), "upf_interpolate_create");
        }
        imageio_image o = alloc_image(w, h, UPF_FORMAT_RGBA8_SRGB);
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
                .width = fa->width, .height = fa->height, .motion = UPF_INTERPOLATE_MOTION_FLOW));
            if (!ce)
                check(upf_context_last_error(ctx, NULL), "upf_interpolate_create");
            imageio_image o = alloc_image(fa->width, fa->height, UPF_FORMAT_RGBA8_SRGB);
            upf_interpolate_frames f = { fa, fb, NULL, NULL, NULL, NULL, 0, 1, 0, NULL, NULL, 0 };
            check(upf_interpolate_run(ce, &f, 0.5, &o.img), "run");
            upf_interpolate_method used;
            upf_interpolate_last_method(ce, &used, NULL);
            cut_blended += used == UPF_INTERPOLATE_USED_BLEND;
            cut_lost[ncut++] = lost_share(ce);
            imageio_free(&o);
            upf_interpolate_destroy(&ce);
        }

    /* ---- the HUD: each scene's pan and fast turn, a pair at 1.0 s, t = 1/2 ---- */
    enum { H_RULE, H_NO_RULE, H_LAYER, N_HUD };
    static const char *const hud_names[N_HUD] = {
        "optical flow, HUD in the frames, still-pixel rule (default)",
        "optical flow, HUD in the frames, rule off (UPF_INTERPOLATE_NO_STILL_RULE)",
        "motion vectors, HUD-less frames + the HUD layer" };
    hud_score hud[N_HUD];
    memset(hud, 0, sizeof hud);
    int hud_pairs = 0;
    if (!scenes || strcmp(scenes, "none") != 0) {
        upf_interpolate *he[N_HUD];
        static const upf_interpolate_motion hm[N_HUD] = { UPF_INTERPOLATE_MOTION_FLOW,
                                                         UPF_INTERPOLATE_MOTION_FLOW,
                                                         UPF_INTERPOLATE_MOTION_VECTORS };
        for (int m = 0; m < N_HUD; m++) {
            he[m] = upf_interpolate_create(ctx, upf_interpolate_params(
                .width = W, .height = H, .motion = hm[m],
                .flags = UPF_INTERPOLATE_DEPTH_REVERSED |
                         (m == H_NO_RULE ? UPF_INTERPOLATE_NO_STILL_RULE : 0)));
            if (!he[m])
                check(upf_context_last_error(ctx, NULL), "upf_interpolate_create");
        }
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
                    check(upf_interpolate_run(he[m], &f, 0.5, &o.img), "upf_interpolate_run");
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
        for (int m = 0; m < N_HUD; m++)
            upf_interpolate_destroy(&he[m]);
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
        gpu_section(&gpu, mean_psnr(&all[0][0]));
    if (sheets) {
        out("Crops at t = 1/2 (the true frame, the blend, optical flow, motion vectors; the "
            "busiest 160x100 of the truth, 2x nearest neighbour; the last pair of each):\n\n");
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
