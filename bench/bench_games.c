/* bench_games.c: the real-games section of docs/QUALITY.md (`make quality-games`): per game,
 * every upscaler at 1.5x, 2x and 3x against that game's supersampled references, the spatial
 * engine scored by a model set trained without that game (leave-one-game-out); then the
 * OpenArena development views scored by the shipped models. PSNR, SSIM and FLIP per upscaler,
 * ratio and game, the mean over games, and how the engine stands against the best classic
 * filter. It writes its own marked section of QUALITY.md (bench_splice_section); the rest of
 * the file is kept.
 *
 *   bench_games --out DOCS_DIR [--games DIR] [--logo DIR] [--real DIR] [--models FILE]
 *               [--threads N] [--command TEXT] [--tsv FILE] [--explore] [--strengths LIST]
 *               [--smaa-strengths LIST] [--steps LIST] [--no-flip] [--max-views N] [--no-doc] [--engine-only]
 *
 * Reads:
 *  - DIR/<game>/NAME.target.png (the reference) with NAME.input-sS.png, its native render at
 *    step S for the ratio 12 / S (the trainer's layout, tools/train/README.md): S = 8, 6 and 4
 *    (1.5x, 2x, 3x), or the steps --steps lists (4 .. 10); a view without one is not scored
 *    at that ratio; a game's optional DIR/<game>/about.txt is quoted (package,
 *    version, licence);
 *  - --logo DIR: <game>.upfm (or logo-<game>.upfm, as tools/train/train_games.sh names it) for
 *    each game, the models trained without it; a game with none
 *    is scored with the shipped models and its table says so;
 *  - --real DIR: the OpenArena views (V_lr_WxH.png, V_ref_1920x1080.png), scored by --models
 *    (default: the built-in set).
 * Writes: the section of DOCS_DIR/QUALITY.md (unless --no-doc), and with --tsv one line per
 * view, ratio and upscaler (game, view, ratio, upscaler, PSNR, SSIM, FLIP) for analysis.
 * --explore adds the engine's bases without network (bilinear, Catmull-Rom in linear light,
 * Lanczos-3 in sqrt space, each with and without SMAA) and --strengths the engine at sharpness
 * 0 with every model's detail strength set to each value listed (--smaa-strengths: the same
 * with SMAA's blending on); --engine-only leaves out the
 * classic filters (with --no-doc: for comparing model sets quickly). */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/bench_util.h"
#include "imageio/image_io.h"
#include "spatial/net.h" /* model flags and strength, for the exploration rows */

#define PROG "bench_games"
#define MARK_BEGIN "<!-- bench_games: begin (made by bench/bench_games.c) -->"
#define MARK_END "<!-- bench_games: end -->"

#define MAX_RATIOS 7
#define MAX_GAMES 16
#define MAX_VIEWS 512
#define MAX_ROWS 32

/* The ratios scored, as input steps (the ratio is 12 / step; --steps): 1.5x, 2x and 3x unless
 * told otherwise. */
static int n_ratios = 3;
static int steps[MAX_RATIOS] = { 8, 6, 4 };
static double ratios[MAX_RATIOS] = { 1.5, 2.0, 3.0 };

/* The ratios of the wide tables (PSNR, SSIM and FLIP of every upscaler): 1.5x, 2x and 3x when
 * they are scored; the other ratios --steps adds appear in the table of every ratio
 * (write_ratio_table) only. */
static bool wide(int r)
{
    return steps[r] == 8 || steps[r] == 6 || steps[r] == 4;
}

#define die(...) bench_die(PROG, __VA_ARGS__)

static upf_context *ctx;
static bool with_flip = true;

static void check(upf_result r, const char *what)
{
    bench_check(PROG, ctx, r, what);
}

/* ---- upscalers -------------------------------------------------------------------------- */

enum { K_CLASSIC, K_CLASSIC_SRGB, K_ENGINE };

typedef struct row {
    char name[96];
    int kind;
    upf_filter filter;           /* K_CLASSIC* */
    const upf_models *models;    /* K_ENGINE */
    float sharpness;
    unsigned flags;              /* UPF_SPATIAL_NO_* */
    bool classic;                /* counts for "the best classic filter" */
} row;

typedef struct score {
    double psnr, ssim, flip;
} score;

typedef struct table {
    int rows;
    row row[MAX_ROWS];
    score sum[MAX_RATIOS][MAX_ROWS];
    int views[MAX_RATIOS];
} table;

static imageio_image alloc_image(int w, int h, upf_format f)
{
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_alloc(&img, w, h, f, err) != UPF_OK)
        die("%s", err);
    return img;
}

/* Runs row `r` from src (8-bit sRGB) into dst (8-bit sRGB, the reference's size). */
static void upscale(const row *r, const upf_image *src, const upf_image *dst)
{
    if (r->kind == K_CLASSIC) {
        check(upf_resample(ctx, src, dst, r->filter), r->name);
        return;
    }
    if (r->kind == K_CLASSIC_SRGB) {
        check(bench_resample_encoded(ctx, src, dst, r->filter), r->name);
        return;
    }
    upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(
        .src_width = src->width, .src_height = src->height, .dst_width = dst->width,
        .dst_height = dst->height, .models = r->models, .sharpness = r->sharpness,
        .flags = r->flags));
    if (!sp)
        check(upf_context_last_error(ctx, NULL), r->name);
    check(upf_spatial_run(sp, src, dst), r->name);
    upf_spatial_destroy(&sp);
}

static score measure(const upf_image *ref, const upf_image *test)
{
    score s = { 0, 0, 0 };
    upf_psnr_result p;
    check(upf_metric_psnr(ctx, ref, test, NULL, &p), "psnr");
    check(upf_metric_ssim(ctx, ref, test, NULL, &s.ssim), "ssim");
    if (with_flip) {
        upf_flip_result f;
        check(upf_metric_flip(ctx, ref, test, NULL, NULL, &f, NULL), "flip");
        s.flip = f.mean;
    }
    s.psnr = p.rgb;
    return s;
}

/* ---- model sets ---------------------------------------------------------------------------- */

/* A copy of `set` with the base and SMAA flags replaced by `flags` (flags < 0: kept) and, when
 * strength >= 0, every model's detail strength set to it. */
static upf_models *variant(const upf_models *set, long flags, double strength)
{
    const upf__net_model *list[UPF_MODELS_MAX];
    upf__net_model *copy = calloc(UPF_MODELS_MAX, sizeof *copy);
    if (!copy)
        die("out of memory");
    const uint32_t mask = UPF_MODEL_FLAGS_BASE | UPF_MODEL_FLAG_NO_SMAA;
    for (int i = 0; i < set->count; i++) {
        copy[i] = set->model[i];
        if (flags >= 0)
            copy[i].flags = (copy[i].flags & ~mask) | ((uint32_t)flags & mask);
        if (strength >= 0)
            copy[i].detail_strength = (float)strength;
        list[i] = &copy[i];
    }
    size_t size = upf__net_file_size(list, set->count);
    void *buf = malloc(size);
    if (!buf)
        die("out of memory");
    check(upf__net_write(ctx, list, set->count, buf, size), "writing a model variant");
    upf_models *v = upf_models_load(ctx, buf, size);
    free(buf);
    free(copy);
    if (!v)
        check(upf_context_last_error(ctx, NULL), "reloading a model variant");
    return v;
}

/* Every set this run made, freed at the end. */
static upf_models *owned[64 * MAX_GAMES];
static int n_owned;

static const upf_models *own(upf_models *set)
{
    if (n_owned == (int)(sizeof owned / sizeof owned[0]))
        die("too many model sets");
    return owned[n_owned++] = set;
}

/* A short description of a set's flags and strengths at the three ratios. */
static void describe_set(const upf_models *set, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int r = 0; r < n_ratios; r++)
        for (int i = 0; i < set->count; i++)
            if (set->model[i].step == steps[r]) {
                char flags[96];
                upf__model_flags_text(set->model[i].flags, flags, sizeof flags);
                n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%.4gx: %s, detail %g",
                                      n ? "; " : "", ratios[r], flags,
                                      (double)set->model[i].detail_strength);
            }
}

/* ---- the rows ---------------------------------------------------------------------------- */

static void add_row(table *t, row r)
{
    if (t->rows == MAX_ROWS)
        die("too many rows");
    t->row[t->rows++] = r;
}

static bool explore, engine_only;
static double strengths[8], smaa_strengths[8];
static int n_strengths, n_smaa_strengths;

/* A comma-separated list of detail strengths (0 .. 4), at most 8. */
static int parse_strengths(const char *v, double *out)
{
    char *list = strdup(v), *save = NULL;
    int n = 0;
    for (char *s = strtok_r(list, ",", &save); s && n < 8; s = strtok_r(NULL, ",", &save)) {
        out[n] = atof(s);
        if (!(out[n] >= 0 && out[n] <= 4))
            n = -100;
        n++;
    }
    free(list);
    return n;
}

static void make_rows(table *t, const upf_models *set)
{
    if (engine_only)
        goto engine;
    add_row(t, (row){ "bilinear (linear light)", K_CLASSIC, UPF_FILTER_BILINEAR, NULL, 0, 0, true });
    add_row(t, (row){ "bicubic, Catmull-Rom (linear light)", K_CLASSIC, UPF_FILTER_BICUBIC, NULL,
                      0, 0, true });
    add_row(t, (row){ "Lanczos-3 (linear light)", K_CLASSIC, UPF_FILTER_LANCZOS3, NULL, 0, 0,
                      true });
    add_row(t, (row){ "Lanczos-3 (sRGB values)", K_CLASSIC_SRGB, UPF_FILTER_LANCZOS3, NULL, 0, 0,
                      true });
engine:
    add_row(t, (row){ "engine's base, no network", K_ENGINE, 0, set, 0, UPF_SPATIAL_NO_NETWORK,
                      false });
    add_row(t, (row){ "spatial engine, sharpness 0", K_ENGINE, 0, set, 0, 0, false });
    add_row(t, (row){ "spatial engine, sharpness 1", K_ENGINE, 0, set, 1, 0, false });
    if (explore) {
        static const struct { uint32_t flags; const char *name; } bases[] = {
            { 0, "bilinear sqrt" }, { UPF_MODEL_FLAG_CUBIC_BASE, "Catmull-Rom linear" },
            { UPF_MODEL_FLAG_SQRT_LANCZOS_BASE, "Lanczos-3 sqrt" },
            { UPF_MODEL_FLAG_SRGB_LANCZOS_BASE, "Lanczos-3 sRGB" } };
        for (int b = 0; b < 4; b++)
            for (int smaa = 1; smaa >= 0; smaa--) {
                row r = { "", K_ENGINE, 0, NULL, 0, UPF_SPATIAL_NO_NETWORK, false };
                snprintf(r.name, sizeof r.name, "base only: %s%s", bases[b].name,
                         smaa ? ", SMAA" : ", no SMAA");
                r.models = own(variant(set, bases[b].flags | (smaa ? 0 : UPF_MODEL_FLAG_NO_SMAA),
                                       -1));
                add_row(t, r);
            }
    }
    for (int i = 0; i < n_strengths; i++) {
        row r = { "", K_ENGINE, 0, NULL, 0, 0, false };
        snprintf(r.name, sizeof r.name, "spatial engine, sharpness 0, detail x%g", strengths[i]);
        r.models = own(variant(set, -1, strengths[i]));
        add_row(t, r);
    }
    /* --smaa-strengths: the same with SMAA's blending on (the set's base kept). */
    for (int i = 0; i < n_smaa_strengths; i++) {
        row r = { "", K_ENGINE, 0, NULL, 0, 0, false };
        snprintf(r.name, sizeof r.name, "spatial engine with SMAA, sharpness 0, detail x%g",
                 smaa_strengths[i]);
        r.models = own(variant(set, (long)(set->model[0].flags & UPF_MODEL_FLAGS_BASE),
                               smaa_strengths[i]));
        add_row(t, r);
    }
}

/* ---- scoring ----------------------------------------------------------------------------- */

static FILE *tsv;

static void score_view(table *t, int r, const upf_image *in, const upf_image *ref,
                       const char *game, const char *view)
{
    imageio_image out = alloc_image(ref->width, ref->height, UPF_FORMAT_RGBA8_SRGB);
    for (int u = 0; u < t->rows; u++) {
        upscale(&t->row[u], in, &out.img);
        score s = measure(ref, &out.img);
        t->sum[r][u].psnr += s.psnr;
        t->sum[r][u].ssim += s.ssim;
        t->sum[r][u].flip += s.flip;
        if (tsv)
            fprintf(tsv, "%s\t%s\t%g\t%s\t%.4f\t%.5f\t%.5f\n", game, view, ratios[r],
                    t->row[u].name, s.psnr, s.ssim, s.flip);
    }
    if (tsv)
        fflush(tsv);
    t->views[r]++;
    imageio_free(&out);
}

static score mean_of(const table *t, int r, int u)
{
    const int n = t->views[r] ? t->views[r] : 1;
    return (score){ t->sum[r][u].psnr / n, t->sum[r][u].ssim / n, t->sum[r][u].flip / n };
}

/* ---- the section ------------------------------------------------------------------------- */

static FILE *md; /* the section's text (open_memstream) */

static void write_table(const table *t, const char *title)
{
    fprintf(md, "\n#### %s\n\n| upscaler |", title);
    for (int r = 0; r < n_ratios; r++)
        if (wide(r)) {
        fprintf(md, " %.4gx PSNR | %.4gx SSIM |", ratios[r], ratios[r]);
        if (with_flip)
            fprintf(md, " %.4gx FLIP |", ratios[r]);
    }
    fprintf(md, "\n|---|");
    for (int r = 0; r < n_ratios; r++)
        if (wide(r))
            fprintf(md, with_flip ? "---|---|---|" : "---|---|");
    fprintf(md, "\n");
    for (int u = 0; u < t->rows; u++) {
        fprintf(md, "| %s |", t->row[u].name);
        for (int r = 0; r < n_ratios; r++) {
            if (!wide(r))
                continue;
            if (!t->views[r]) {
                fprintf(md, with_flip ? " - | - | - |" : " - | - |");
                continue;
            }
            score s = mean_of(t, r, u);
            bool best[3] = { true, true, true };
            for (int v = 0; v < t->rows; v++) {
                score o = mean_of(t, r, v);
                best[0] &= o.psnr <= s.psnr;
                best[1] &= o.ssim <= s.ssim;
                best[2] &= o.flip >= s.flip;
            }
            fprintf(md, best[0] ? " **%.2f** |" : " %.2f |", s.psnr);
            fprintf(md, best[1] ? " **%.4f** |" : " %.4f |", s.ssim);
            if (with_flip)
                fprintf(md, best[2] ? " **%.4f** |" : " %.4f |", s.flip);
        }
        fprintf(md, "\n");
    }
}

/* The engine at sharpness 0 against the best classic filter (by PSNR) of each ratio. */
static void write_bar(const table *t)
{
    int engine = -1;
    for (int u = 0; u < t->rows; u++)
        if (engine < 0 && !strcmp(t->row[u].name, "spatial engine, sharpness 0"))
            engine = u;
    bool first = true;
    for (int r = 0; r < n_ratios; r++) {
        if (!t->views[r] || !wide(r))
            continue;
        int best = -1;
        for (int u = 0; u < t->rows; u++)
            if (t->row[u].classic && (best < 0 || mean_of(t, r, u).psnr > mean_of(t, r, best).psnr))
                best = u;
        if (best < 0 || engine < 0)
            return; /* --engine-only: nothing to compare with */
        score e = mean_of(t, r, engine), c = mean_of(t, r, best);
        fprintf(md, "%s%.4gx: engine (sharpness 0) vs the best classic filter, %s: %+.2f dB PSNR, "
                    "SSIM %+.4f", first ? "\n" : "; ", ratios[r], t->row[best].name,
                e.psnr - c.psnr, e.ssim - c.ssim);
        first = false;
        if (with_flip)
            fprintf(md, ", FLIP %+.4f", e.flip - c.flip);
    }
    fprintf(md, ".\n");
}

/* Every ratio scored, one line each: the best classic filter (by PSNR), the engine's base and
 * the engine at sharpness 0 (PSNR / SSIM / FLIP). Written only when --steps scored ratios the
 * wide tables leave out. */
static void write_ratio_table(const table *t, const char *title)
{
    bool others = false;
    for (int r = 0; r < n_ratios; r++)
        others |= !wide(r) && t->views[r];
    int base = -1, engine = -1;
    for (int u = 0; u < t->rows; u++) {
        if (base < 0 && !strcmp(t->row[u].name, "engine's base, no network"))
            base = u;
        if (engine < 0 && !strcmp(t->row[u].name, "spatial engine, sharpness 0"))
            engine = u;
    }
    if (!others || base < 0 || engine < 0)
        return;
    fprintf(md, "\n#### %s\n\n| ratio (step) | best classic filter | its PSNR / SSIM%s | "
                "engine's base | engine, sharpness 0 | engine - best classic (dB) |\n"
                "|---|---|---|---|---|---|\n", title, with_flip ? " / FLIP" : "");
    for (int r = 0; r < n_ratios; r++) {
        if (!t->views[r])
            continue;
        int best = -1;
        for (int u = 0; u < t->rows; u++)
            if (t->row[u].classic && (best < 0 || mean_of(t, r, u).psnr > mean_of(t, r, best).psnr))
                best = u;
        if (best < 0)
            return;
        fprintf(md, "| %.4gx (%d) | %s |", ratios[r], steps[r], t->row[best].name);
        const int cols[3] = { best, base, engine };
        for (int c = 0; c < 3; c++) {
            const score x = mean_of(t, r, cols[c]);
            if (with_flip)
                fprintf(md, " %.2f / %.4f / %.4f |", x.psnr, x.ssim, x.flip);
            else
                fprintf(md, " %.2f / %.4f |", x.psnr, x.ssim);
        }
        fprintf(md, " %+.2f |\n", mean_of(t, r, engine).psnr - mean_of(t, r, best).psnr);
    }
}

/* ---- games ------------------------------------------------------------------------------- */

typedef struct game {
    char name[256];
    char dir[4400];
    char *views[MAX_VIEWS];
    int n_views;
} game;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_game(const void *a, const void *b)
{
    return strcmp(((const game *)a)->name, ((const game *)b)->name);
}

static bool is_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d)
        closedir(d);
    return d != NULL;
}

/* The games of DIR (its sub-folders holding NAME.target.png files), sorted by name, each with its
 * views (sorted), at most max_views of them (spread evenly) when max_views > 0. */
static int find_games(const char *dir, game *games, int max_views)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_GAMES) {
        if (e->d_name[0] == '.')
            continue;
        game *g = &games[n];
        memset(g, 0, sizeof *g);
        snprintf(g->name, sizeof g->name, "%s", e->d_name);
        snprintf(g->dir, sizeof g->dir, "%s/%s", dir, e->d_name);
        if (!is_dir(g->dir))
            continue;
        DIR *gd = opendir(g->dir);
        struct dirent *f;
        while (gd && (f = readdir(gd)) && g->n_views < MAX_VIEWS) {
            size_t len = strlen(f->d_name);
            static const char end[] = ".target.png";
            if (len > sizeof end - 1 && strcmp(f->d_name + len - (sizeof end - 1), end) == 0) {
                g->views[g->n_views] = strndup(f->d_name, len - (sizeof end - 1));
                if (!g->views[g->n_views])
                    die("out of memory");
                g->n_views++;
            }
        }
        if (gd)
            closedir(gd);
        if (!g->n_views)
            continue;
        qsort(g->views, (size_t)g->n_views, sizeof g->views[0], cmp_str);
        if (max_views > 0 && g->n_views > max_views) {
            for (int i = 0; i < max_views; i++) { /* evenly spread; the rest freed */
                char *keep = g->views[(long)i * g->n_views / max_views];
                g->views[(long)i * g->n_views / max_views] = NULL;
                g->views[i] = keep;
            }
            for (int i = max_views; i < g->n_views; i++)
                free(g->views[i]);
            g->n_views = max_views;
        }
        n++;
    }
    closedir(d);
    qsort(games, (size_t)n, sizeof games[0], cmp_game);
    return n;
}

/* The first line of DIR/<game>/about.txt, or "". */
static void game_about(const game *g, char *out, size_t size)
{
    char path[4500];
    snprintf(path, sizeof path, "%s/about.txt", g->dir);
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(out, (int)size, f))
        out[strcspn(out, "\r\n")] = '\0';
    fclose(f);
}

static void run_game(const game *g, const upf_models *set, table *t, table *all, bool logo)
{
    char err[IMAGEIO_ERR_SIZE], path[4800];
    memset(t, 0, sizeof *t);
    make_rows(t, set);
    for (int v = 0; v < g->n_views; v++) {
        snprintf(path, sizeof path, "%s/%s.target.png", g->dir, g->views[v]);
        imageio_image ref;
        if (imageio_read(path, NULL, &ref, err) != UPF_OK)
            die("%s", err);
        for (int r = 0; r < n_ratios; r++) {
            snprintf(path, sizeof path, "%s/%s.input-s%d.png", g->dir, g->views[v], steps[r]);
            if (access(path, R_OK) != 0)
                continue;
            imageio_image in;
            if (imageio_read(path, NULL, &in, err) != UPF_OK)
                die("%s", err);
            score_view(t, r, &in.img, &ref.img, g->name, g->views[v]);
            imageio_free(&in);
        }
        imageio_free(&ref);
        fprintf(stderr, PROG ": %s: view %d of %d\n", g->name, v + 1, g->n_views);
    }
    /* The mean over games weighs each game alike: its per-ratio means are added once. */
    if (logo) {
        if (!all->rows)
            for (int u = 0; u < t->rows; u++)
                all->row[all->rows++] = t->row[u];
        for (int r = 0; r < n_ratios; r++)
            if (t->views[r]) {
                for (int u = 0; u < t->rows; u++) {
                    score s = mean_of(t, r, u);
                    all->sum[r][u].psnr += s.psnr;
                    all->sum[r][u].ssim += s.ssim;
                    all->sum[r][u].flip += s.flip;
                }
                all->views[r]++;
            }
    }
}

/* The OpenArena development views: V_lr_WxH.png against V_ref_1920x1080.png. */
static int run_real(const char *dir, const upf_models *set, table *t)
{
    /* The renders there: 1600x900, 1280x720, 960x540 and 640x360 (steps 10, 8, 6, 4 of the
     * 1920x1080 reference); a ratio without one is skipped. */
    char err[IMAGEIO_ERR_SIZE], path[4400];
    memset(t, 0, sizeof *t);
    make_rows(t, set);
    int views = 0;
    for (int v = 1; v <= 99; v++) {
        snprintf(path, sizeof path, "%s/islanddm_v%02d_ref_1920x1080.png", dir, v);
        if (access(path, R_OK) != 0)
            break;
        imageio_image ref;
        if (imageio_read(path, NULL, &ref, err) != UPF_OK)
            die("%s", err);
        char view[16];
        snprintf(view, sizeof view, "v%02d", v);
        for (int r = 0; r < n_ratios; r++) {
            snprintf(path, sizeof path, "%s/islanddm_v%02d_lr_%dx%d.png", dir, v, 160 * steps[r],
                     90 * steps[r]);
            if (access(path, R_OK) != 0)
                continue;
            imageio_image in;
            if (imageio_read(path, NULL, &in, err) != UPF_OK)
                die("%s", err);
            score_view(t, r, &in.img, &ref.img, "openarena", view);
            imageio_free(&in);
        }
        imageio_free(&ref);
        fprintf(stderr, PROG ": openarena: view %d\n", v);
        views++;
    }
    return views;
}

static void usage(void)
{
    fprintf(stderr, "usage: " PROG " --out DOCS_DIR [--games DIR] [--logo DIR] [--real DIR] "
                    "[--models FILE] [--threads N] [--command TEXT] [--tsv FILE] [--explore] "
                    "[--strengths LIST] [--smaa-strengths LIST] [--steps LIST] [--no-flip] [--max-views N] [--no-doc] "
                    "[--engine-only]\n");
    exit(1);
}

int main(int argc, char **argv)
{
    const char *out_dir = NULL, *games_dir = NULL, *logo_dir = NULL, *real_dir = NULL;
    const char *models_path = NULL, *command = NULL, *tsv_path = NULL;
    int threads = 0, max_views = 0;
    bool doc = true, doc_off_needed = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--explore")) {
            explore = true;
            continue;
        }
        if (!strcmp(a, "--no-flip")) {
            with_flip = false;
            continue;
        }
        if (!strcmp(a, "--engine-only")) {
            engine_only = doc_off_needed = true;
            continue;
        }
        if (!strcmp(a, "--no-doc")) {
            doc = false;
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--out"))
            out_dir = v;
        else if (!strcmp(a, "--games"))
            games_dir = v;
        else if (!strcmp(a, "--logo"))
            logo_dir = v;
        else if (!strcmp(a, "--real"))
            real_dir = v;
        else if (!strcmp(a, "--models"))
            models_path = v;
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--command"))
            command = v;
        else if (!strcmp(a, "--tsv"))
            tsv_path = v;
        else if (!strcmp(a, "--max-views"))
            max_views = atoi(v);
        else if (!strcmp(a, "--strengths")) {
            if ((n_strengths = parse_strengths(v, strengths)) <= 0)
                usage();
        } else if (!strcmp(a, "--smaa-strengths")) {
            if ((n_smaa_strengths = parse_strengths(v, smaa_strengths)) <= 0)
                usage();
        } else if (!strcmp(a, "--steps")) {
            char *list = strdup(v), *save = NULL;
            n_ratios = 0;
            for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
                const int st = atoi(s);
                if (n_ratios == MAX_RATIOS || st < 4 || st > 10)
                    usage(); /* the model steps, 4 .. 10 */
                steps[n_ratios] = st;
                ratios[n_ratios++] = 12.0 / st;
            }
            free(list);
            if (!n_ratios)
                usage();
        } else
            usage();
    }
    if ((!out_dir && doc) || threads < 0 || max_views < 0 || (doc_off_needed && doc))
        usage(); /* --engine-only rows make no table for the docs */
    ctx = upf_context_create(upf_context_params(.threads = threads, .log = upf_log_stderr));
    if (!ctx)
        die("no context");
    const upf_models *shipped = own(bench_load_models(PROG, ctx, models_path));
    if (tsv_path && !(tsv = fopen(tsv_path, "w")))
        die("cannot write %s", tsv_path);
    char *text = NULL;
    size_t text_size = 0;
    if (!(md = open_memstream(&text, &text_size)))
        die("out of memory");
    const double t0 = (double)time(NULL);

    static game games[MAX_GAMES];
    const int n_games = games_dir ? find_games(games_dir, games, max_views) : 0;
    fprintf(md, "\n## Real games\n\nMade by `%s` (bench/bench_games.c). Real game frames: "
                "per game, each view rendered natively (no anti-aliasing, textures mip-mapped "
                "at the render's own size: bias 0) at the input size of each ratio, against a "
                "reference rendered at several times the output size and box-filtered down. "
                "PSNR on sRGB-encoded RGB, SSIM on luma%s, averaged over the views; best of each "
                "column in bold. The classic filters are our resamplers, in linear light as the "
                "library runs them, and Lanczos-3 also on the sRGB-encoded values as they are "
                "(what most image tools do). \"The engine's base\" is the engine without its "
                "network, as the model set configures it (base filter, SMAA or not). No frames "
                "of these games are in the repository.\n",
            command ? command : PROG, with_flip ? ", LDR-FLIP mean (lower is better)" : "");
    table all = { 0 };
    int scored = 0;
    for (int i = 0; i < n_games; i++) {
        const game *g = &games[i];
        char path[4400], about[512], title[1100], desc[1024];
        snprintf(path, sizeof path, "%s/%s.upfm", logo_dir ? logo_dir : ".", g->name);
        if (logo_dir && access(path, R_OK) != 0) /* train_games.sh's name */
            snprintf(path, sizeof path, "%s/logo-%s.upfm", logo_dir, g->name);
        const bool logo = logo_dir && access(path, R_OK) == 0;
        if (logo_dir && !logo) /* a missing file would quietly mix the shipped set into a mean */
            fprintf(stderr, PROG ": warning: no %s/%s.upfm or %s/logo-%s.upfm: %s is scored by "
                    "the shipped models\n", logo_dir, g->name, logo_dir, g->name, g->name);
        const upf_models *set = logo ? own(bench_load_models(PROG, ctx, path)) : shipped;
        table t;
        run_game(g, set, &t, &all, logo);
        game_about(g, about, sizeof about);
        describe_set(set, desc, sizeof desc);
        snprintf(title, sizeof title, "%s (%d view%s%s%s)", g->name, g->n_views,
                 g->n_views == 1 ? "" : "s", about[0] ? "; " : "", about);
        write_table(&t, title);
        fprintf(md, "\nScored by %s (%s).\n", logo ? "models trained without this game"
                                                  : "the shipped models (no leave-one-out set "
                                                    "was given: a held-out score only as far as "
                                                    "the shipped models never saw this game)",
                desc);
        write_bar(&t);
        scored += logo;
    }
    if (scored > 1) {
        char title[128];
        snprintf(title, sizeof title, "Mean over the %d games, each scored by models that never "
                                      "saw it", scored);
        write_table(&all, title);
        write_bar(&all);
        snprintf(title, sizeof title, "Every ratio, mean over the %d games, each scored by "
                                      "models that never saw it", scored);
        write_ratio_table(&all, title);
    }
    if (!n_games)
        fprintf(md, "\nNo game pairs were given (%s%s), so this run scored no games: the "
                    "per-game and leave-one-game-out tables appear when `make quality-games "
                    "GAMES=DIR` finds them.\n", games_dir ? "none found in " : "no --games folder",
                games_dir ? games_dir : "");
    if (real_dir) {
        table t;
        int views = run_real(real_dir, shipped, &t);
        if (views) {
            char title[256], desc[1024];
            snprintf(title, sizeof title, "OpenArena development views (%d views, 1920x1080 "
                                          "references), the shipped models", views);
            write_table(&t, title);
            describe_set(shipped, desc, sizeof desc);
            fprintf(md, "\nOpenArena is never used for training; these four views were used to "
                        "look at results during development, so they are not a clean held-out "
                        "score either. Models: %s (%s).\n",
                    models_path ? models_path : "the built-in set", desc);
            write_bar(&t);
            write_ratio_table(&t, "Every ratio of the OpenArena development views");
        }
    }
    fprintf(md, "\nWhat was tried, and what the measurements say this network can gain on "
                "real games: models/README.md, \"How its settings were chosen\", \"The sRGB "
                "base and the 3x model\" and \"Transposed pairs\" (every ratio, the base, SMAA "
                "and the detail strength, leave one game out: the built-in set runs no SMAA; "
                "where its network is off, at 1.2x to 1.714x and at 2.4x, its base is Lanczos-3 "
                "on the sRGB values, the best classic filter; at 2x and 3x its network at x0.25 "
                "on the sqrt-Lanczos base, trained with rendered pairs as a third of the data, "
                "at 2x also on transposed and mirrored copies) and \"Models for real games\" "
                "(one game, then the earlier three-game capture); the bases compared: "
                "tools/train/README.md. What this network's shape can reach at all is in "
                "models/README.md, \"The limit of this network shape\" "
                "(`tools/train/fit_limit.sh`). Fitted to one game's own views, it gains +0.63 "
                "dB over the base at 2x and +0.49 at 3x. One network fitted to all three "
                "games gains +0.43 and +0.37. A network made for one game, scored on views of "
                "that game it never saw, gains +0.25 and +0.14 at half strength. So the +0.5 "
                "dB aim on unseen games is beyond it with this much data.\n");
    char machine[256];
    bench_machine(machine, sizeof machine);
    fprintf(md, "\n%s, %d threads, %.0f s.\n\n", machine, upf_context_threads(ctx),
            (double)time(NULL) - t0);
    fclose(md);
    if (doc)
        bench_splice_section(PROG, out_dir, MARK_BEGIN, MARK_END, text);
    else
        fputs(text, stdout);
    free(text);
    if (tsv)
        fclose(tsv);
    for (int i = 0; i < n_games; i++)
        for (int v = 0; v < games[i].n_views; v++)
            free(games[i].views[v]);
    for (int i = 0; i < n_owned; i++)
        upf_models_destroy(&owned[i]);
    upf_context_destroy(&ctx);
    return 0;
}
