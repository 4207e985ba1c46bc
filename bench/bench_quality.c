/* bench_quality.c: makes docs/QUALITY.md: every upscaler against the reference, at ratios 1.2,
 * 1.5, 2 and 3, on the scene renderer's evaluation views and on real game frames (--real DIR:
 * development frames kept outside the repository) when they are given; PSNR, SSIM and FLIP per upscaler and ratio, and
 * contact sheets of crops to look at. `make quality` runs it; its output is the whole file.
 *
 *   bench_quality --out DOCS_DIR [--real DIR] [--models FILE] [--spp N] [--threads N]
 *                 [--views N] [--command TEXT] [--rendered FILE]
 *
 * Upscalers: bilinear, bicubic (Catmull-Rom) and Lanczos-3 (our resamplers, linear light),
 * Lanczos-3 on the sRGB-encoded values (what most image tools do), the spatial engine
 * without its network (SMAA, then either base: bilinear in sqrt space, the NDSR design's, or
 * Catmull-Rom in linear light, UPF_MODEL_FLAG_CUBIC_BASE's; and the base the models' own
 * flags name), the spatial engine at sharpness 0 and 1, and with --rendered the engine at
 * sharpness 0 with a second model set (models/rendered.upfm: trained on rendered scenes). */
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
#include "spatial/net.h"          /* the models' flags, to make the two no-network rows */

#define N_RATIOS 4
#define N_UPSCALERS 10
#define MAX_VIEWS 16

static const double ratios[N_RATIOS] = { 1.2, 1.5, 2.0, 3.0 };
enum { U_BILINEAR, U_BICUBIC, U_LANCZOS, U_LANCZOS_SRGB, U_SMAA_BILINEAR, U_SMAA_CUBIC, U_BASE,
       U_SPATIAL0, U_SPATIAL1, U_RENDERED };
static const char *const upscaler_names[N_UPSCALERS] = {
    "bilinear", "bicubic (Catmull-Rom)", "Lanczos-3", "Lanczos-3 (sRGB values)",
    "SMAA + bilinear (no network)", "SMAA + Catmull-Rom (no network)",
    "engine's base (no network)", "spatial, sharpness 0", "spatial, sharpness 1",
    "spatial, rendered-data models, sharpness 0"
};
static const char *const upscaler_short[N_UPSCALERS] = {
    "bilinear", "bicubic", "lanczos", "lanczos srgb", "smaa+bilinear", "smaa+cubic", "base",
    "spatial k=0", "spatial k=1", "rendered k=0"
};

typedef struct score {
    double psnr, ssim, flip;
} score;

/* Sums over views, per ratio and upscaler. */
typedef struct table {
    const char *title;
    score sum[N_RATIOS][N_UPSCALERS];
    int views[N_RATIOS];
} table;

static upf_context *ctx;
static upf_models *models;
static upf_models *base_models[2]; /* the models with each base: [0] bilinear, [1] cubic */
static upf_models *rendered_models; /* --rendered FILE: the row U_RENDERED (absent: "-") */
static FILE *md;

#define die(...) bench_die("bench_quality", __VA_ARGS__)
static void check(upf_result r, const char *what)
{
    bench_check("bench_quality", ctx, r, what);
}

/* The models with SMAA on and the bilinear (design) or cubic base, whatever the set's own
 * base and SMAA flags (the weights do not matter: the rows that use these run without the
 * network). */
static upf_models *with_base(bool cubic)
{
    const upf__net_model *list[UPF_MODELS_MAX];
    upf__net_model copy[UPF_MODELS_MAX];
    const uint32_t base_flags = UPF_MODEL_FLAGS_BASE | UPF_MODEL_FLAG_NO_SMAA;
    for (int i = 0; i < models->count; i++) {
        copy[i] = models->model[i];
        copy[i].flags = (copy[i].flags & ~base_flags) | (cubic ? UPF_MODEL_FLAG_CUBIC_BASE : 0u);
        list[i] = &copy[i];
    }
    size_t size = upf__net_file_size(list, models->count);
    void *buf = malloc(size);
    if (!buf)
        die("out of memory");
    check(upf__net_write(ctx, list, models->count, buf, size), "writing the models");
    upf_models *set = upf_models_load(ctx, buf, size);
    free(buf);
    if (!set)
        check(upf_context_last_error(ctx, NULL), "reloading the models");
    return set;
}

static imageio_image alloc_image(int w, int h, upf_format f)
{
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_alloc(&img, w, h, f, err) != UPF_OK)
        die("%s", err);
    return img;
}

/* Runs upscaler `u` from src to dst (RGBA8 sRGB, the size of the reference). */
static void upscale(int u, const upf_image *src, const upf_image *dst)
{
    if (u <= U_LANCZOS) {
        static const upf_filter filters[3] = { UPF_FILTER_BILINEAR, UPF_FILTER_BICUBIC,
                                               UPF_FILTER_LANCZOS3 };
        check(upf_resample(ctx, src, dst, filters[u]), upscaler_names[u]);
        return;
    }
    if (u == U_LANCZOS_SRGB) {
        check(bench_resample_encoded(ctx, src, dst, UPF_FILTER_LANCZOS3), upscaler_names[u]);
        return;
    }
    const bool smaa_base = u == U_SMAA_BILINEAR || u == U_SMAA_CUBIC;
    const upf_models *set = smaa_base ? base_models[u == U_SMAA_CUBIC]
                            : u == U_RENDERED ? rendered_models : models;
    upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(
        .src_width = src->width, .src_height = src->height, .dst_width = dst->width,
        .dst_height = dst->height, .models = set, .sharpness = u == U_SPATIAL1 ? 1.0f : 0.0f,
        .flags = smaa_base || u == U_BASE ? UPF_SPATIAL_NO_NETWORK : 0));
    if (!sp)
        check(upf_context_last_error(ctx, NULL), upscaler_names[u]);
    check(upf_spatial_run(sp, src, dst), upscaler_names[u]);
    upf_spatial_destroy(&sp);
}

static score measure(const upf_image *ref, const upf_image *test)
{
    score s;
    upf_psnr_result p;
    upf_flip_result f;
    check(upf_metric_psnr(ctx, ref, test, NULL, &p), "psnr");
    check(upf_metric_ssim(ctx, ref, test, NULL, &s.ssim), "ssim");
    check(upf_metric_flip(ctx, ref, test, NULL, NULL, &f, NULL), "flip");
    s.psnr = p.rgb;
    s.flip = f.mean;
    return s;
}

/* ---- contact sheets ------------------------------------------------------------------- */

/* Sheet: one row of crops (reference, then each upscaler), each enlarged 2x with nearest
 * neighbour, labelled (common/bench_util.h). */
#define CROP_W 160
#define CROP_H 100
#define ZOOM 2
#define LABEL_H 18

static void sheet_put(imageio_image *sheet, int slot, const upf_image *img, int cx, int cy,
                      const char *label)
{
    bench_sheet_put(&sheet->img, slot, LABEL_H, img, cx, cy, CROP_W, CROP_H, ZOOM, label);
}

/* ---- one dataset ------------------------------------------------------------------------- */

/* Scores one view at one ratio: every upscaler from `input` to the reference's size. Writes
 * a contact sheet when sheet_path is given. */
static void score_view(table *t, int r, const upf_image *input, const upf_image *ref,
                       const char *sheet_path, const char *view_name)
{
    imageio_image out[N_UPSCALERS];
    for (int u = 0; u < N_UPSCALERS; u++) {
        out[u] = alloc_image(ref->width, ref->height, UPF_FORMAT_RGBA8_SRGB);
        if (u == U_RENDERED && !rendered_models)
            continue;
        upscale(u, input, &out[u].img);
        score s = measure(ref, &out[u].img);
        t->sum[r][u].psnr += s.psnr;
        t->sum[r][u].ssim += s.ssim;
        t->sum[r][u].flip += s.flip;
    }
    t->views[r]++;
    if (sheet_path) {
        int cx, cy;
        bench_busiest_crop(ref, CROP_W, CROP_H, &cx, &cy);
        int slots = 1 + N_UPSCALERS - (rendered_models ? 0 : 1);
        imageio_image sheet = alloc_image(slots * (CROP_W * ZOOM + 4), CROP_H * ZOOM + LABEL_H,
                                          UPF_FORMAT_RGBA8_SRGB);
        uint8_t *p = sheet.img.data;
        for (size_t i = 0; i < (size_t)sheet.img.width * sheet.img.height; i++)
            p[4 * i + 3] = 255;
        sheet_put(&sheet, 0, ref, cx, cy, "reference");
        for (int u = 0, slot = 1; u < N_UPSCALERS; u++)
            if (u != U_RENDERED || rendered_models)
                sheet_put(&sheet, slot++, &out[u].img, cx, cy, upscaler_short[u]);
        char err[IMAGEIO_ERR_SIZE];
        if (imageio_write_png(sheet_path, &sheet.img, 8, err) != UPF_OK)
            die("%s", err);
        fprintf(stderr, "bench_quality: %s: crop at %d,%d of %s\n", sheet_path, cx, cy, view_name);
        imageio_free(&sheet);
    }
    for (int u = 0; u < N_UPSCALERS; u++)
        imageio_free(&out[u]);
}

static void write_table(const table *t)
{
    fprintf(md, "\n### %s\n\n", t->title);
    fprintf(md, "PSNR (dB, sRGB-encoded RGB) / SSIM (luma) / FLIP (mean; lower is better), "
                "mean over the views; best of each column in bold.\n\n");
    fprintf(md, "| upscaler |");
    for (int r = 0; r < N_RATIOS; r++)
        fprintf(md, " %gx PSNR | %gx SSIM | %gx FLIP |", ratios[r], ratios[r], ratios[r]);
    fprintf(md, "\n|---|");
    for (int r = 0; r < N_RATIOS; r++)
        fprintf(md, "---|---|---|");
    fprintf(md, "\n");
    for (int u = 0; u < N_UPSCALERS; u++) {
        if (u == U_RENDERED && !rendered_models)
            continue;
        fprintf(md, "| %s |", upscaler_names[u]);
        for (int r = 0; r < N_RATIOS; r++) {
            int n = t->views[r];
            if (!n) {
                fprintf(md, " - | - | - |");
                continue;
            }
            score s = { t->sum[r][u].psnr / n, t->sum[r][u].ssim / n, t->sum[r][u].flip / n };
            bool best[3] = { true, true, true };
            for (int v = 0; v < N_UPSCALERS; v++) {
                if (v == U_RENDERED && !rendered_models)
                    continue;
                best[0] &= t->sum[r][v].psnr / n <= s.psnr;
                best[1] &= t->sum[r][v].ssim / n <= s.ssim;
                best[2] &= t->sum[r][v].flip / n >= s.flip;
            }
            fprintf(md, best[0] ? " **%.2f** |" : " %.2f |", s.psnr);
            fprintf(md, best[1] ? " **%.4f** |" : " %.4f |", s.ssim);
            fprintf(md, best[2] ? " **%.4f** |" : " %.4f |", s.flip);
        }
        fprintf(md, "\n");
    }
    /* The bar of issue 4, stated against the numbers, and the engine against the best
     * classic filter of each ratio (by PSNR). */
    for (int r = 0; r < N_RATIOS; r++) {
        int n = t->views[r];
        if (!n)
            continue;
        double dpsnr = (t->sum[r][U_SPATIAL0].psnr - t->sum[r][U_LANCZOS].psnr) / n;
        double dflip = (t->sum[r][U_SPATIAL0].flip - t->sum[r][U_LANCZOS].flip) / n;
        int best = U_BILINEAR;
        for (int u = U_BICUBIC; u <= U_LANCZOS_SRGB; u++)
            if (t->sum[r][u].psnr > t->sum[r][best].psnr)
                best = u;
        fprintf(md, "%s%gx: spatial (sharpness 0) vs Lanczos-3: %+.2f dB PSNR, FLIP %+.4f; vs "
                    "the best classic filter, %s: %+.2f dB PSNR, SSIM %+.4f, FLIP %+.4f",
                r ? ";\n" : "\n", ratios[r], dpsnr, dflip, upscaler_names[best],
                (t->sum[r][U_SPATIAL0].psnr - t->sum[r][best].psnr) / n,
                (t->sum[r][U_SPATIAL0].ssim - t->sum[r][best].ssim) / n,
                (t->sum[r][U_SPATIAL0].flip - t->sum[r][best].flip) / n);
    }
    fprintf(md, ".\n");
}

/* The real frames: V_lr_WxH.png at each ratio against V_ref_1920x1080.png. */
static void run_real(const char *dir, int *view_count)
{
    static const char *const lr[N_RATIOS] = { "1600x900", "1280x720", "960x540", "640x360" };
    table t = { .title = "Real game frames (OpenArena)" };
    char path[4096], err[IMAGEIO_ERR_SIZE];
    int views = 0;
    for (int v = 1; v <= 99; v++) {
        char ref_path[4096];
        snprintf(ref_path, sizeof ref_path, "%s/islanddm_v%02d_ref_1920x1080.png", dir, v);
        if (access(ref_path, R_OK) != 0)
            break;
        imageio_image ref;
        if (imageio_read(ref_path, NULL, &ref, err) != UPF_OK)
            die("%s", err);
        for (int r = 0; r < N_RATIOS; r++) {
            snprintf(path, sizeof path, "%s/islanddm_v%02d_lr_%s.png", dir, v, lr[r]);
            imageio_image in;
            if (imageio_read(path, NULL, &in, err) != UPF_OK)
                die("%s", err);
            /* No contact sheets of these: the frames are GPL-2+ game art (their README), and
             * docs/ is MIT; the numbers are ours. */
            fprintf(stderr, "bench_quality: real view %d at %gx\n", v, ratios[r]);
            score_view(&t, r, &in.img, &ref.img, NULL, path);
            imageio_free(&in);
        }
        imageio_free(&ref);
        views++;
    }
    *view_count = views;
    if (views)
        write_table(&t);
}

/* ---- the scene renderer's evaluation views ------------------------------------------------ */

/* Views of the fixed evaluation set (docs/SCENES.md): per scene, the first frame of its
 * still sequence and frame 30 (t = 1 s) of its walk sequence. */
typedef struct eval_view {
    const char *scene, *path;
    uint32_t seed;
    double time;
} eval_view;

static const eval_view eval_views[] = {
    { "courtyard", "still", 1000101, 0.0 }, { "courtyard", "walk", 1000104, 1.0 },
    { "forest", "still", 1000201, 0.0 },    { "forest", "walk", 1000204, 1.0 },
    { "street", "still", 1000301, 0.0 },    { "street", "walk", 1000304, 1.0 },
    { "interior", "still", 1000401, 0.0 },  { "interior", "walk", 1000404, 1.0 },
};
#define N_EVAL (int)(sizeof eval_views / sizeof eval_views[0])

/* The output size of the scene tables: every ratio has a whole input size. */
#define EVAL_W 1152
#define EVAL_H 648

static void render_view(scene *sc, const eval_view *v, int w, int h, int spp, double bias,
                        imageio_image *out)
{
    imageio_image lin = alloc_image(w, h, UPF_FORMAT_RGBA32F);
    scene_buffers buf = { lin.img.data, NULL, NULL, NULL };
    check(scene_render(sc, scene_view_params(.path = v->path, .time = v->time, .width = w,
                                             .height = h, .spp = spp, .mip_bias = bias),
                       &buf, NULL),
          "scene_render");
    /* What a game hands an upscaler (and what a reference PNG holds): 8-bit sRGB. */
    *out = alloc_image(w, h, UPF_FORMAT_RGBA8_SRGB);
    check(upf_resample(ctx, &lin.img, &out->img, UPF_FILTER_BILINEAR), "8-bit copy");
    imageio_free(&lin);
}

/* Both scene tables in one pass over the views, so each reference is rendered once: t[0] with
 * inputs at mip bias 0, t[1] at the upscaler's bias log2(render/output). */
static void run_scenes(const char *out_dir, int views, int spp)
{
    table t[2] = { { .title = "Evaluation scenes, input at mip bias 0" },
                   { .title = "Evaluation scenes, input at the upscaler's mip bias "
                              "log2(render/output)" } };
    for (int i = 0; i < views && i < N_EVAL; i++) {
        const eval_view *v = &eval_views[i];
        scene *sc;
        check(scene_create(ctx, v->scene, v->seed, &sc), "scene_create");
        fprintf(stderr, "bench_quality: %s seed %u %s t=%g: reference %dx%d at %d spp\n",
                v->scene, v->seed, v->path, v->time, EVAL_W, EVAL_H, spp);
        imageio_image ref;
        render_view(sc, v, EVAL_W, EVAL_H, spp, 0.0, &ref);
        for (int b = 0; b < 2; b++) {
            for (int r = 0; r < N_RATIOS; r++) {
                int w = (int)lround(EVAL_W / ratios[r]), h = (int)lround(EVAL_H / ratios[r]);
                double bias = b ? log2((double)w / EVAL_W) : 0.0;
                imageio_image in;
                render_view(sc, v, w, h, 1, bias, &in);
                char sheet[4096], name[256];
                snprintf(sheet, sizeof sheet, "%s/quality/%s-%s-%gx.png", out_dir, v->scene,
                         v->path, ratios[r]);
                snprintf(name, sizeof name, "%s %s", v->scene, v->path);
                bool keep = b == 0 && v->time == 1.0 && (r == 2 || r == 3);
                score_view(&t[b], r, &in.img, &ref.img, keep ? sheet : NULL, name);
                imageio_free(&in);
            }
        }
        imageio_free(&ref);
        scene_destroy(&sc);
    }
    write_table(&t[0]);
    write_table(&t[1]);
}

/* Sections other programs write into QUALITY.md (bench_games's, bench_temporal's and
 * bench_framegen's, between their marker lines) are carried over from the old file, at the
 * end, in this order. */
static void keep_other_sections(const char *out_dir, FILE *f)
{
    static const char *const marks[][2] = {
        { "<!-- bench_games: begin", "<!-- bench_games: end -->" },
        { "<!-- bench_temporal: begin", "<!-- bench_temporal: end -->" },
        { "<!-- bench_framegen: begin", "<!-- bench_framegen: end -->" },
    };
    char path[4096], err[IMAGEIO_ERR_SIZE];
    snprintf(path, sizeof path, "%s/QUALITY.md", out_dir);
    char *old;
    size_t size;
    if (imageio_slurp(path, (size_t)1 << 24, (void **)&old, &size, err) != UPF_OK)
        return;
    char *text = realloc(old, size + 1);
    if (!text) {
        free(old);
        return;
    }
    text[size] = '\0';
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        const char *b = strstr(text, marks[i][0]), *e = b ? strstr(b, marks[i][1]) : NULL;
        if (b && e)
            fprintf(f, "\n%.*s\n", (int)(e + strlen(marks[i][1]) - b), b);
    }
    free(text);
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_quality --out DOCS_DIR [--real DIR] [--models FILE] [--spp N] "
                    "[--views N] [--threads N] [--command TEXT] [--rendered FILE]\n");
    exit(1);
}

int main(int argc, char **argv)
{
    const char *out_dir = NULL, *real_dir = NULL, *models_path = NULL, *command = NULL;
    const char *rendered_path = NULL;
    int spp = 64, views = N_EVAL, threads = 0;
    for (int i = 1; i < argc; i += 2) { /* every option takes one value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--out"))
            out_dir = v;
        else if (!strcmp(a, "--real"))
            real_dir = v;
        else if (!strcmp(a, "--models"))
            models_path = v;
        else if (!strcmp(a, "--spp"))
            spp = atoi(v);
        else if (!strcmp(a, "--views"))
            views = atoi(v);
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--command"))
            command = v;
        else if (!strcmp(a, "--rendered"))
            rendered_path = v;
        else
            usage();
    }
    if (!out_dir || spp < 1 || views < 0 || threads < 0)
        usage();
    ctx = upf_context_create(upf_context_params(.threads = threads, .log = upf_log_stderr));
    if (!ctx)
        die("no context");
    models = bench_load_models("bench_quality", ctx, models_path);
    if (rendered_path)
        rendered_models = bench_load_models("bench_quality", ctx, rendered_path);
    char path[4096];
    mkdir(out_dir, 0777);
    snprintf(path, sizeof path, "%s/quality", out_dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/QUALITY.md.tmp", out_dir);
    md = fopen(path, "w");
    if (!md)
        die("cannot write %s", path);

    double t0 = (double)time(NULL);
    fprintf(md, "# Quality\n\nHow close each upscaler comes to the reference. Made by `%s` "
                "(bench/bench_quality.c); every number and picture below is its output.\n",
            command ? command : "bench_quality");
    upf_model_info info;
    base_models[0] = with_base(false);
    base_models[1] = with_base(true);
    char flags[64];
    upf__model_flags_text(models->model[0].flags, flags, sizeof flags);
    fprintf(md, "\n- Upscalers: bilinear, bicubic (Catmull-Rom) and Lanczos-3 are our resamplers "
                "in linear light; Lanczos-3 (sRGB values) filters the encoded values as they "
                "are, as most image tools do. The two SMAA rows are the spatial engine without "
                "its network: SMAA 1x, then the base the detail would go on, bilinear in sqrt "
                "space (the NDSR design's) or Catmull-Rom in linear light (model flag "
                "cubic-base). The engine's base is the engine without its network as the models "
                "below configure it. Spatial is the whole engine at sharpness 0 and 1 with the "
                "models below (flags: %s)%s.\n", flags,
            rendered_models ? "; the rendered-data row runs it with the models given to "
                              "--rendered (models/rendered.upfm: trained on rendered scenes, "
                              "models/README.md)" : "");
    for (int i = 0; i < upf_models_count(models) && upf_models_info(models, i, &info) == UPF_OK; i++)
        if (info.step == 6) {
            /* The provenance as a code block inside the list item: every line indented. */
            fprintf(md, "- Models: %s; the 2x model's provenance:\n\n  ```\n  ",
                    models_path ? models_path : "the built-in set");
            for (const char *c = info.provenance; *c; c++) {
                fputc(*c, md);
                if (*c == '\n' && c[1])
                    fputs("  ", md);
            }
            fprintf(md, "\n  ```\n\n");
        }
    fprintf(md, "- Metrics (`upframe compare`): PSNR on sRGB-encoded RGB, SSIM on luma, LDR-FLIP "
                "mean at 67 ppd, each averaged over the views. Outputs are 8-bit sRGB, as a "
                "game would show them.\n");

    if (views > 0) {
        fprintf(md, "\n## Evaluation scenes\n\nThe fixed evaluation set of docs/SCENES.md (seeds "
                    "the trainer never sees): per scene the first frame of its still sequence "
                    "and frame 30 of its walk, %d views. Reference: the view at %dx%d, %d "
                    "samples per pixel, box-filtered. Inputs: the same view rendered at "
                    "%dx%d / ratio, 1 sample per pixel (aliased), no jitter, 8-bit sRGB. Two "
                    "tables: inputs at mip bias 0, and at the bias a game uses when it renders "
                    "for an upscaler, log2(render/output) (the output's texture detail).\n",
                views < N_EVAL ? views : N_EVAL, EVAL_W, EVAL_H, spp, EVAL_W, EVAL_H);
        run_scenes(out_dir, views, spp);
        fprintf(md, "\nCrops (reference, then each upscaler; 2x nearest neighbour; bias 0):\n\n");
        for (int i = 0; i < views && i < N_EVAL; i++)
            if (eval_views[i].time == 1.0)
                fprintf(md, "![%s walk 2x](quality/%s-walk-2x.png)\n![%s walk 3x](quality/%s-walk-3x.png)\n\n",
                        eval_views[i].scene, eval_views[i].scene, eval_views[i].scene,
                        eval_views[i].scene);
    }
    int real_views = 0;
    if (real_dir) {
        fprintf(md, "\n## Real game frames\n\nFour views of one OpenArena map "
                    "(development frames kept outside the repository: the game's art is GPL-2+): "
                    "each rendered natively at 1600x900, "
                    "1280x720, 960x540 and 640x360 (no anti-aliasing, mip-mapped at its own "
                    "size: bias 0) against a 1920x1080 reference made at 7680x4320 and "
                    "box-filtered 4x4. The reference carries texture detail the small renders "
                    "never sampled (docs/SPATIAL.md), which no spatial upscaler can "
                    "recover. Never used for training.\n");
        run_real(real_dir, &real_views);
        if (!real_views)
            fprintf(md, "\n(no frames found in %s)\n", real_dir);
    }
    char host[256] = "?";
    gethostname(host, sizeof host);
    fprintf(md, "\n---\nupframe %s, %d threads, %.0f s.\n", upf_version(), upf_context_threads(ctx),
            (double)time(NULL) - t0);
    keep_other_sections(out_dir, md);
    fclose(md);
    char final_path[4096];
    snprintf(final_path, sizeof final_path, "%s/QUALITY.md", out_dir);
    if (rename(path, final_path) != 0)
        die("cannot rename %s", path);
    fprintf(stderr, "bench_quality: wrote %s\n", final_path);
    upf_models_destroy(&models);
    upf_models_destroy(&base_models[0]);
    upf_models_destroy(&base_models[1]);
    upf_models_destroy(&rendered_models);
    upf_context_destroy(&ctx);
    return 0;
}
