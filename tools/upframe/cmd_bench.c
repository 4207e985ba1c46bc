/* cmd_bench.c: `upframe bench`: times the engines on a built-in frame, per pass, at the
 * standard sizes and thread counts, and ImageMagick's Lanczos resize of the same frame in the
 * same run as a yardstick; prints the machine it ran on. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "framegen_backend.h"
#include "temporal_backend.h"
#include "common/bench_util.h"
#include "core/core.h"
#include "imageio/image_io.h"
#include "builtin_frame.h"
#include "scene/scene.h"
#include "sequence/sequence.h"
#ifdef UPF_HAVE_VULKAN
#include "upframe_vk.h"
#endif

extern char **environ;

static const char bench_help[] =
    "usage: upframe bench [--size WxH] [--scale R] [--threads LIST] [--runs N] [options]\n"
    "\n"
    "Times the engines on the built-in frame (the courtyard scene at one sample per pixel)\n"
    "rendered at the input size and prints the\n"
    "median of N runs in milliseconds, per pass for the spatial engine, with the machine\n"
    "it ran on. Without --size it runs 1920x1080 -> 3840x2160 and 1280x720 -> 2560x1440.\n"
    "\n"
    "  --size WxH       input size (with --scale R, default 2)\n"
    "  --scale R        output = input x R ('2x' too)\n"
    "  --threads LIST   comma-separated thread counts (default 1,2; 0: one per CPU)\n"
    "  --runs N         timed runs per case after one warm-up run (default 5)\n"
    "  --model FILE     spatial engine models (default: the built-in ones)\n"
    "  --no-yardstick   do not time ImageMagick's `convert -filter Lanczos -resize`\n"
    "  --no-temporal    do not time the temporal engine\n"
    "  --no-framegen    do not time frame generation\n"
    "  --backend B      cpu (the default) or vulkan: the spatial engine on the GPU in\n"
    "                   managed mode, each variant of its detail pass the device has, GPU\n"
    "                   times per pass from timestamps (microseconds), the median of\n"
    "                   --frames N frames (default 500) after 50 warm-up frames, and the\n"
    "                   CPU time to record one frame; cases 1536x864 -> 2048x1152,\n"
    "                   1280x720 -> 2560x1440, 1920x1080 -> 3840x2160 (or --size); then\n"
    "                   the temporal engine's rows on the GPU (unless --no-temporal):\n"
    "                   with the motion vectors at sharpness 0 and 0.5, with camera motion\n"
    "                   at 0.5, with the spatial fill (only accumulate, sharpen and the fill\n"
    "                   timed), per pass, and the bytes of every surface; then frame\n"
    "                   generation's rows on the GPU (unless --no-framegen): at 1920x1080\n"
    "                   and 3840x2160 (with --size: the first case's input and output\n"
    "                   sizes), from the vectors, from optical flow (when the GPU engine\n"
    "                   has it) and from the vectors with 8-bit sRGB colours (vec8),\n"
    "                   factor 2 and 4: per pass (from splat on per phase), per\n"
    "                   pair, per phase, per made frame, each pass's floor (its bytes over\n"
    "                   the bandwidth), the record time and the bytes of every surface\n"
    "  --bandwidth G    with --backend vulkan: the device's memory bandwidth in GB/s for\n"
    "                   the frame generation floors (default: 3350 on an H100, 4800 on an\n"
    "                   H200, else no floor)\n"
    "  --variant V      with --backend vulkan: only fp32, fp16 or coopmat\n"
    "  --no-spatial     with --backend vulkan: do not time the spatial engine\n"
    "  --sharpness K    the spatial engine's sharpness, either backend (default 1; 0, the\n"
    "                   library's default, makes compose without the sharpen's border)\n"
    "  --json           the results as one JSON object (docs/CLI.md)\n"
    "  -q, --quiet      no progress line (the results are still printed)\n"
    "\n"
    "The yardstick, on the same frame: ImageMagick when `convert` is on the PATH\n"
    "(`convert IN -bench N ...` with and without the resize, the difference being the resize\n"
    "alone), else OpenCV when python3 has cv2 (cv2.resize with INTER_LANCZOS4 on the 8-bit\n"
    "frame), for 1 and 2 threads.\n"
    "\n"
    "The temporal engine runs on the courtyard's walk one second in (linear colour, depth and\n"
    "motion at the input size), a run per jitter phase, twice: with the motion vectors, and\n"
    "with camera motion from depth and the spatial fill (so every pass is timed).\n"
    "\n"
    "Frame generation makes the midpoint of two frames of the courtyard's walk (1 s and 1/30 s\n"
    "later; linear colour, the later frame's depth and motion) at the first case's input and\n"
    "output sizes (1920x1080 and 3840x2160 by default), with the motion vectors and with\n"
    "optical flow: ms per made frame, per pass.\n";

typedef struct bench_case {
    int in_w, in_h, out_w, out_h;
} bench_case;

/* One row's samples: each timed run's total and per-pass ms (the warm-up run not kept); a row
 * reports their medians. --runs is at most RUNS_MAX. */
#define RUNS_MAX 64
#define PASSES_MAX 16
_Static_assert(UPF_SPATIAL_PASS_COUNT <= PASSES_MAX && UPF_TEMPORAL_PASS_COUNT <= PASSES_MAX &&
                   UPF_INTERPOLATE_PASS_COUNT <= PASSES_MAX,
               "samples holds every engine's passes");
typedef struct samples {
    double total[RUNS_MAX], pass[PASSES_MAX][RUNS_MAX];
} samples;

static void samples_add(samples *s, int run, double total_ms, const double *pass_ms, int passes)
{
    s->total[run] = total_ms;
    for (int k = 0; k < passes; k++)
        s->pass[k][run] = pass_ms[k];
}

/* The medians of `runs` samples into *total_ms and pass_ms[0 .. passes - 1]. */
static void samples_medians(samples *s, int runs, int passes, double *total_ms, double *pass_ms)
{
    *total_ms = bench_median(s->total, runs);
    for (int k = 0; k < passes; k++)
        pass_ms[k] = bench_median(s->pass[k], runs);
}

/* Runs argv[0] (found on the PATH) with its stdout, and its stderr too with `with_stderr`
 * (else /dev/null), captured in a temporary file. Returns that file open for reading (its
 * name already unlinked) when the program ran and exited with 0; NULL otherwise. */
static FILE *run_captured(const char *const *argv, bool with_stderr)
{
    char log[] = "/tmp/upframe-bench-XXXXXX"; /* mkstemp's template */
    int fd = mkstemp(log);
    if (fd < 0)
        return NULL;
    close(fd);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_TRUNC, 0600);
    if (with_stderr) /* the same open file, so the two streams share one offset */
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    else
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int err = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 1;
    if (err == 0)
        waitpid(pid, &status, 0);
    FILE *f = err == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? fopen(log, "r") : NULL;
    unlink(log);
    return f;
}

/* Whether the `convert` on the PATH is ImageMagick's: `convert -version` exits with 0 and
 * names ImageMagick on its first line. Another program of that name (some systems put a
 * stand-in there) is not timed as the yardstick. */
static bool convert_is_imagemagick(void)
{
    const char *argv[] = { "convert", "-version", NULL };
    FILE *f = run_captured(argv, false);
    if (!f)
        return false;
    char line[256];
    bool is = fgets(line, sizeof line, f) && strstr(line, "ImageMagick");
    fclose(f);
    return is;
}

/* ImageMagick's Lanczos: `convert IN -bench N [-filter Lanczos -resize WxH!] null:` reports
 * "Performance[k]: Ni X ips ..." for k = 1, 2 threads; per-iteration ms = 1000 / X. */
static bool magick_ms(const char *in, int runs, int out_w, int out_h, double ms[2])
{
    char nbuf[16], size[64];
    /* `convert -bench 1` prints no Performance lines at all (ImageMagick 6.9.11): time at
     * least two iterations. */
    snprintf(nbuf, sizeof nbuf, "%d", runs < 2 ? 2 : runs);
    snprintf(size, sizeof size, "%dx%d!", out_w, out_h);
    const char *argv_resize[] = { "convert", in, "-bench", nbuf, "-filter", "Lanczos",
                                  "-resize", size, "null:", NULL };
    const char *argv_read[] = { "convert", in, "-bench", nbuf, "null:", NULL };
    double total[2][2] = { { 0, 0 }, { 0, 0 } };
    for (int k = 0; k < 2; k++) {
        FILE *f = run_captured(k ? argv_read : argv_resize, true);
        if (!f)
            return false;
        char line[256];
        int found = 0;
        while (fgets(line, sizeof line, f)) {
            int threads, iters;
            double ips;
            if (sscanf(line, " Performance[%d]: %di %lfips", &threads, &iters, &ips) == 3 &&
                threads >= 1 && threads <= 2 && ips > 0) {
                total[k][threads - 1] = 1000.0 / ips;
                found++;
            }
        }
        fclose(f);
        if (found < 2)
            return false;
    }
    for (int t = 0; t < 2; t++)
        ms[t] = total[0][t] - total[1][t];
    return true;
}

/* OpenCV's Lanczos (cv2.resize, INTER_LANCZOS4: 8x8 taps on the 8-bit values) through
 * python3, median of `runs` after a warm-up, for 1 and 2 threads. */
static bool opencv_ms(const char *in, int runs, int out_w, int out_h, double ms[2])
{
    static const char script[] =
        "import sys, time, cv2\n"
        "img = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED)\n"
        "w, h, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])\n"
        "for t in (1, 2):\n"
        "    cv2.setNumThreads(t)\n"
        "    ts = []\n"
        "    for i in range(n + 1):\n"
        "        t0 = time.perf_counter()\n"
        "        cv2.resize(img, (w, h), interpolation=cv2.INTER_LANCZOS4)\n"
        "        ts.append(time.perf_counter() - t0)\n"
        "    ts = sorted(ts[1:])\n"
        "    print('threads', t, 'ms', 1000 * ts[len(ts) // 2], cv2.__version__)\n";
    char w[16], h[16], n[16];
    snprintf(w, sizeof w, "%d", out_w);
    snprintf(h, sizeof h, "%d", out_h);
    snprintf(n, sizeof n, "%d", runs);
    const char *argv[] = { "python3", "-c", script, in, w, h, n, NULL };
    FILE *f = run_captured(argv, false);
    if (!f)
        return false;
    char line[256];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        int t;
        double v;
        if (sscanf(line, "threads %d ms %lf", &t, &v) == 2 && t >= 1 && t <= 2) {
            ms[t - 1] = v;
            found++;
        }
    }
    fclose(f);
    return found == 2;
}

/* Whether a program is on the PATH (to say which yardstick is missing, and which failed). */
static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n && n + 1 + strlen(prog) < sizeof buf) {
            memcpy(buf, path, n);
            buf[n] = '/';
            strcpy(buf + n + 1, prog);
            if (access(buf, X_OK) == 0)
                return true;
        }
        path += n + (path[n] == ':');
    }
    return false;
}

static bool parse_threads(const char *s, int *list, int *n)
{
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long v;
        if (*n >= 8 || !cli_parse_int(tok, 0, 64, &v))
            return false;
        list[(*n)++] = (int)v;
    }
    return *n > 0;
}

/* One row of results: an engine on a case at a thread count. */
typedef struct bench_row {
    bench_case c;
    bool spatial;
    int threads;                            /* the workers it ran on */
    double pass_ms[UPF_SPATIAL_PASS_COUNT]; /* medians; spatial only */
    double total_ms, mpix_per_s;
} bench_row;

/* Times one engine on one case and thread count. Returns an exit code. */
/* A context of `threads` workers and an RGBA8 sRGB destination of the case's output size.
 * Returns an exit code (after saying why). */
static int case_begin(const bench_case *bc, int threads, upf_context **ctx, imageio_image *dst)
{
    if (!(*ctx = cli_context("bench", threads)))
        return CLI_EXIT_INTERNAL;
    char err[IMAGEIO_ERR_SIZE];
    upf_result r = imageio_alloc(dst, bc->out_w, bc->out_h, UPF_FORMAT_RGBA8_SRGB, err);
    if (r != UPF_OK) {
        upf_context_destroy(ctx);
        return cli_fail("bench", cli_exit_code(r), "%s", err);
    }
    return CLI_EXIT_OK;
}

static int time_case(const bench_case *bc, const upf_image *src, int threads, int runs,
                     const upf_models *models, bool spatial, float sharpness, bench_row *row)
{
    upf_context *ctx;
    imageio_image dst;
    int rc0 = case_begin(bc, threads, &ctx, &dst);
    if (rc0 != CLI_EXIT_OK)
        return rc0;
    memset(row, 0, sizeof *row);
    row->c = *bc;
    row->spatial = spatial;
    row->threads = upf_context_threads(ctx);
    upf_result r;
    upf_spatial *sp = NULL;
    upf_resampler *rs = NULL;
    if (spatial)
        sp = upf_spatial_create(ctx, upf_spatial_params(.src_width = bc->in_w,
                .src_height = bc->in_h, .dst_width = bc->out_w, .dst_height = bc->out_h,
                .sharpness = sharpness, .models = models));
    else
        rs = upf_resampler_create(ctx, upf_resampler_params(.src_width = bc->in_w,
                .src_height = bc->in_h, .dst_width = bc->out_w, .dst_height = bc->out_h,
                .filter = UPF_FILTER_LANCZOS3));
    int rc = CLI_EXIT_OK;
    if (!sp && !rs) {
        rc = cli_fail_upf("bench", ctx, upf_context_last_error(ctx, NULL));
        goto done;
    }
    samples sm;
    for (int i = -1; i < runs; i++) { /* run -1 warms caches and pages up */
        double t0 = cli_now();
        r = spatial ? upf_spatial_run(sp, src, &dst.img) : upf_resampler_run(rs, src, &dst.img);
        double t = (cli_now() - t0) * 1e3;
        if (r != UPF_OK) {
            rc = cli_fail_upf("bench", ctx, r);
            goto done;
        }
        if (i < 0)
            continue;
        double ms[UPF_SPATIAL_PASS_COUNT] = { 0 };
        if (spatial)
            upf_spatial_timings(sp, ms);
        samples_add(&sm, i, t, ms, spatial ? UPF_SPATIAL_PASS_COUNT : 0);
    }
    samples_medians(&sm, runs, spatial ? UPF_SPATIAL_PASS_COUNT : 0, &row->total_ms,
                    row->pass_ms);
    row->mpix_per_s = (double)bc->out_w * bc->out_h / (row->total_ms * 1e3);
done:
    upf_spatial_destroy(&sp);
    upf_resampler_destroy(&rs);
    imageio_free(&dst);
    upf_context_destroy(&ctx);
    return rc;
}

static void print_row(const bench_row *row)
{
    const bench_case *bc = &row->c;
    printf("%4dx%-4d -> %4dx%-4d  %-8s %2d ", bc->in_w, bc->in_h, bc->out_w, bc->out_h,
           row->spatial ? "spatial" : "lanczos", row->threads);
    for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++) {
        if (row->spatial)
            printf(" %7.1f", row->pass_ms[p]);
        else
            printf(" %7s", "-");
    }
    printf("  %8.1f  %7.1f\n", row->total_ms, row->mpix_per_s);
    fflush(stdout);
}

static double ms1(double ms)
{
    return round(ms * 1e3) / 1e3;
}

static void json_row(cli_json *j, const bench_row *row)
{
    cli_json_object(j, NULL);
    cli_json_array(j, "input");
    cli_json_int(j, NULL, row->c.in_w);
    cli_json_int(j, NULL, row->c.in_h);
    cli_json_close(j);
    cli_json_array(j, "output");
    cli_json_int(j, NULL, row->c.out_w);
    cli_json_int(j, NULL, row->c.out_h);
    cli_json_close(j);
    cli_json_string(j, "engine", row->spatial ? "spatial" : "lanczos");
    cli_json_int(j, "threads", row->threads);
    if (row->spatial) {
        cli_json_object(j, "passes_ms");
        for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++)
            cli_json_number(j, upf_spatial_pass_name((upf_spatial_pass)p), ms1(row->pass_ms[p]));
        cli_json_close(j);
    } else {
        cli_json_null(j, "passes_ms");
    }
    cli_json_number(j, "total_ms", ms1(row->total_ms));
    cli_json_number(j, "mpix_per_s", round(row->mpix_per_s * 1e3) / 1e3);
    cli_json_close(j);
}

/* A frame for the temporal engine: colour (RGBA32F), depth, motion and the matrices. */
typedef struct temporal_input {
    imageio_image color, depth, motion;
    double vp[16], prev_vp[16];
    scene_camera cam;
} temporal_input;

static upf_result temporal_input_render(int w, int h, temporal_input *in, char *err)
{
    memset(in, 0, sizeof *in);
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 0));
    scene *sc = NULL;
    upf_result r = ctx ? UPF_OK : UPF_ERROR_INTERNAL;
    if (r == UPF_OK)
        r = imageio_alloc(&in->color, w, h, UPF_FORMAT_RGBA32F, err);
    if (r == UPF_OK)
        r = imageio_alloc(&in->depth, w, h, UPF_FORMAT_R32F, err);
    if (r == UPF_OK)
        r = imageio_alloc(&in->motion, w, h, UPF_FORMAT_RG32F, err);
    if (r == UPF_OK && (r = scene_create(ctx, "courtyard", 1, &sc)) == UPF_OK) {
        scene_buffers b = { in->color.img.data, NULL, in->depth.img.data, in->motion.img.data };
        r = scene_render(sc, scene_view_params(.path = "walk", .time = 1.0, .width = w,
                                               .height = h), &b, &in->cam);
        if (r != UPF_OK) {
            const char *m = "";
            upf_context_last_error(ctx, &m);
            snprintf(err, IMAGEIO_ERR_SIZE, "the temporal engine's frame: %s", m);
        }
    }
    seq_mat4_mul(in->cam.proj, in->cam.view, in->vp);
    seq_mat4_mul(in->cam.prev_proj, in->cam.prev_view, in->prev_vp);
    scene_destroy(&sc);
    upf_context_destroy(&ctx);
    return r;
}

static void temporal_input_free(temporal_input *in)
{
    imageio_free(&in->color);
    imageio_free(&in->depth);
    imageio_free(&in->motion);
}

/* One temporal row: per-pass and total medians. */
typedef struct temporal_row {
    bench_case c;
    bool full;
    int threads;
    double pass_ms[UPF_TEMPORAL_PASS_COUNT], total_ms, mpix_per_s;
} temporal_row;

/* Times the temporal engine on one case and thread count into *row. `full`: camera motion from
 * depth and the spatial fill on. */
static int time_temporal(const bench_case *bc, const temporal_input *in, int threads, int runs,
                         const upf_models *models, bool full, temporal_row *row)
{
    upf_context *ctx;
    imageio_image dst;
    int rc0 = case_begin(bc, threads, &ctx, &dst);
    if (rc0 != CLI_EXIT_OK)
        return rc0;
    memset(row, 0, sizeof *row);
    row->c = *bc;
    row->full = full;
    row->threads = upf_context_threads(ctx);
    upf_result r;
    upf_temporal *t = upf_temporal_create(ctx, upf_temporal_params(
        .render_width = bc->in_w, .render_height = bc->in_h, .output_width = bc->out_w,
        .output_height = bc->out_h, .sharpness = 0.5f, .models = models,
        .flags = full ? UPF_TEMPORAL_SPATIAL_FILL : 0));
    int rc = CLI_EXIT_OK, phases = 8;
    if (!t) {
        rc = cli_fail_upf("bench", ctx, upf_context_last_error(ctx, NULL));
        goto done;
    }
    upf_jitter_phase_count(NULL, bc->in_w, bc->out_w, &phases);
    samples sm;
    for (int i = -1; i < runs; i++) { /* run -1 warms caches and pages up */
        double jx, jy;
        upf_jitter_offset(NULL, i + 1, phases, &jx, &jy);
        const scene_camera *c = &in->cam;
        upf_temporal_frame f = {
            .color = &in->color.img, .depth = &in->depth.img,
            .motion = full ? NULL : &in->motion.img, .jitter_x = jx, .jitter_y = jy,
            .camera = { c->near_plane, c->far_plane, c->fov_y, c->depth_reversed, 0, 0, 0, 0,
                        0, 0 },
            .view_projection = in->vp, .prev_view_projection = in->prev_vp,
            .frame_time_ms = 33.3,
        };
        double t0 = cli_now();
        r = upf_temporal_run(t, &f, &dst.img);
        double ms = (cli_now() - t0) * 1e3;
        if (r != UPF_OK) {
            rc = cli_fail_upf("bench", ctx, r);
            goto done;
        }
        if (i < 0)
            continue;
        double p[UPF_TEMPORAL_PASS_COUNT];
        upf_temporal_timings(t, p);
        samples_add(&sm, i, ms, p, UPF_TEMPORAL_PASS_COUNT);
    }
    samples_medians(&sm, runs, UPF_TEMPORAL_PASS_COUNT, &row->total_ms, row->pass_ms);
    row->mpix_per_s = (double)bc->out_w * bc->out_h / (row->total_ms * 1e3);
done:
    upf_temporal_destroy(&t);
    imageio_free(&dst);
    upf_context_destroy(&ctx);
    return rc;
}

static void print_temporal_row(const temporal_row *row)
{
    const bench_case *bc = &row->c;
    printf("%4dx%-4d -> %4dx%-4d  %-14s %2d ", bc->in_w, bc->in_h, bc->out_w, bc->out_h,
           row->full ? "temporal+cm+f" : "temporal", row->threads);
    for (int k = 0; k < UPF_TEMPORAL_PASS_COUNT; k++)
        printf(" %8.1f", row->pass_ms[k]);
    printf("  %8.1f  %7.1f\n", row->total_ms, row->mpix_per_s);
    fflush(stdout);
}

static double ms1(double ms);

static void json_temporal_row(cli_json *j, const temporal_row *row)
{
    cli_json_object(j, NULL);
    cli_json_array(j, "input");
    cli_json_int(j, NULL, row->c.in_w);
    cli_json_int(j, NULL, row->c.in_h);
    cli_json_close(j);
    cli_json_array(j, "output");
    cli_json_int(j, NULL, row->c.out_w);
    cli_json_int(j, NULL, row->c.out_h);
    cli_json_close(j);
    cli_json_bool(j, "camera_motion_and_fill", row->full);
    cli_json_int(j, "threads", row->threads);
    cli_json_object(j, "passes_ms");
    for (int k = 0; k < UPF_TEMPORAL_PASS_COUNT; k++)
        cli_json_number(j, upf_temporal_pass_name((upf_temporal_pass)k), ms1(row->pass_ms[k]));
    cli_json_close(j);
    cli_json_number(j, "total_ms", ms1(row->total_ms));
    cli_json_number(j, "mpix_per_s", round(row->mpix_per_s * 1e3) / 1e3);
    cli_json_close(j);
}

/* Two frames for frame generation: the courtyard's walk at 1 s and 1/30 s later. */
typedef struct framegen_input {
    imageio_image a, b, depth, motion;
} framegen_input;

static void framegen_input_free(framegen_input *in)
{
    imageio_free(&in->a);
    imageio_free(&in->b);
    imageio_free(&in->depth);
    imageio_free(&in->motion);
}

static upf_result framegen_input_render(int w, int h, framegen_input *in, char *err)
{
    memset(in, 0, sizeof *in);
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 0));
    scene *sc = NULL;
    upf_result r = ctx ? UPF_OK : UPF_ERROR_INTERNAL;
    imageio_image *imgs[4] = { &in->a, &in->b, &in->depth, &in->motion };
    static const upf_format fmts[4] = { UPF_FORMAT_RGBA32F, UPF_FORMAT_RGBA32F, UPF_FORMAT_R32F,
                                        UPF_FORMAT_RG32F };
    for (int k = 0; k < 4 && r == UPF_OK; k++)
        r = imageio_alloc(imgs[k], w, h, fmts[k], err);
    if (r == UPF_OK && (r = scene_create(ctx, "courtyard", 1, &sc)) == UPF_OK) {
        for (int k = 0; k < 2 && r == UPF_OK; k++) {
            scene_buffers b = { imgs[k]->img.data, NULL, k ? in->depth.img.data : NULL,
                                k ? in->motion.img.data : NULL };
            r = scene_render(sc, scene_view_params(.path = "walk", .time = 1.0 + k / 30.0,
                                                   .frame_interval = 1.0 / 30.0, .width = w,
                                                   .height = h), &b, NULL);
        }
        if (r != UPF_OK) {
            const char *m = "";
            upf_context_last_error(ctx, &m);
            snprintf(err, IMAGEIO_ERR_SIZE, "frame generation's frames: %s", m);
        }
    }
    scene_destroy(&sc);
    upf_context_destroy(&ctx);
    if (r != UPF_OK)
        framegen_input_free(in);
    return r;
}

typedef struct framegen_row {
    int w, h;
    bool flow;
    int threads;
    double pass_ms[UPF_INTERPOLATE_PASS_COUNT], total_ms, mpix_per_s;
} framegen_row;

static int time_framegen(const framegen_input *in, int threads, int runs, bool flow,
                         framegen_row *row)
{
    const int w = in->a.img.width, h = in->a.img.height;
    const bench_case bc = { w, h, w, h };
    upf_context *ctx;
    imageio_image dst;
    int rc = case_begin(&bc, threads, &ctx, &dst);
    if (rc != CLI_EXIT_OK)
        return rc;
    memset(row, 0, sizeof *row);
    row->w = w, row->h = h, row->flow = flow;
    row->threads = upf_context_threads(ctx);
    upf_interpolate *e = upf_interpolate_create(ctx, upf_interpolate_params(
        .width = w, .height = h, .flags = UPF_INTERPOLATE_DEPTH_REVERSED,
        .motion = flow ? UPF_INTERPOLATE_MOTION_FLOW : UPF_INTERPOLATE_MOTION_VECTORS));
    if (!e) {
        rc = cli_fail_upf("bench", ctx, upf_context_last_error(ctx, NULL));
        goto done;
    }
    samples sm;
    upf_interpolate_frames f = { &in->a.img, &in->b.img, &in->motion.img, &in->depth.img, NULL,
                                 NULL, 0, 1, 0, NULL, NULL, 0 };
    for (int i = -1; i < runs; i++) { /* run -1 warms caches and pages up */
        double t0 = cli_now();
        upf_result r = upf_interpolate_run(e, &f, 0.5, &dst.img);
        double ms = (cli_now() - t0) * 1e3;
        if (r != UPF_OK) {
            rc = cli_fail_upf("bench", ctx, r);
            goto done;
        }
        if (i < 0)
            continue;
        double p[UPF_INTERPOLATE_PASS_COUNT];
        upf_interpolate_timings(e, p);
        samples_add(&sm, i, ms, p, UPF_INTERPOLATE_PASS_COUNT);
    }
    samples_medians(&sm, runs, UPF_INTERPOLATE_PASS_COUNT, &row->total_ms, row->pass_ms);
    row->mpix_per_s = (double)w * h / (row->total_ms * 1e3);
done:
    upf_interpolate_destroy(&e);
    imageio_free(&dst);
    upf_context_destroy(&ctx);
    return rc;
}

static void print_framegen_row(const framegen_row *row)
{
    printf("%4dx%-4d  %-8s %2d ", row->w, row->h, row->flow ? "flow" : "vectors", row->threads);
    for (int k = 0; k < UPF_INTERPOLATE_PASS_COUNT; k++)
        printf(" %8.1f", row->pass_ms[k]);
    printf("  %8.1f  %7.1f\n", row->total_ms, row->mpix_per_s);
    fflush(stdout);
}

static void json_framegen_row(cli_json *j, const framegen_row *row)
{
    cli_json_object(j, NULL);
    cli_json_size(j, row->w, row->h);
    cli_json_string(j, "motion", row->flow ? "flow" : "vectors");
    cli_json_int(j, "threads", row->threads);
    cli_json_object(j, "passes_ms");
    for (int k = 0; k < UPF_INTERPOLATE_PASS_COUNT; k++)
        cli_json_number(j, upf_interpolate_pass_name((upf_interpolate_pass)k),
                        ms1(row->pass_ms[k]));
    cli_json_close(j);
    cli_json_number(j, "ms_per_made_frame", ms1(row->total_ms));
    cli_json_number(j, "mpix_per_s", round(row->mpix_per_s * 1e3) / 1e3);
    cli_json_close(j);
}
#ifdef UPF_HAVE_VULKAN
/* upframe bench --backend vulkan: each case, each variant, median GPU times per pass. */
static int bench_vulkan(const bench_case *cases, int ncases, long frames, int only_variant,
                        float sharpness, upf_models *models, bool json, bool quiet,
                        bool spatial, bool temporal, bool framegen, bool sized,
                        double bandwidth)
{
    const char *cmd = "bench";
    const int warm = 50;
    upf_context *ctx = cli_context(cmd, 1);
    if (!ctx)
        return CLI_EXIT_INTERNAL;
    char err[IMAGEIO_ERR_SIZE];
    int rc = CLI_EXIT_OK;
    double *ms = malloc(sizeof(double) * (size_t)(frames + warm) * (UPF_SPATIAL_PASS_COUNT + 1));
    if (!ms) {
        upf_context_destroy(&ctx);
        return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory");
    }
    double *total = ms + (size_t)(frames + warm) * UPF_SPATIAL_PASS_COUNT;
    cli_json j;
    bool header = false;
    if (json) {
        cli_json_begin(&j, stdout);
        cli_json_object(&j, NULL);
        cli_json_string(&j, "backend", "vulkan");
        cli_json_string(&j, "version", upf_version());
        cli_json_int(&j, "frames", frames);
        cli_json_int(&j, "warm_up_frames", warm);
        cli_json_number(&j, "sharpness", sharpness);
        cli_json_string(&j, "frame", "the built-in frame (courtyard, 1 spp), RGBA8 sRGB in "
                        "(a UNORM view decoded in the shader) and out; GPU timestamps, medians");
        cli_json_array(&j, "rows");
    }
    (void)quiet;
    for (int k = 0; spatial && k < ncases && rc == CLI_EXIT_OK; k++) {
        const bench_case *bc = &cases[k];
        imageio_image lin, src, dst;
        upf_result r = builtin_frame_render(NULL, bc->in_w, bc->in_h, 0, &lin, err);
        if (r == UPF_OK)
            r = imageio_alloc(&src, bc->in_w, bc->in_h, UPF_FORMAT_RGBA8_SRGB, err);
        if (r == UPF_OK)
            r = imageio_alloc(&dst, bc->out_w, bc->out_h, UPF_FORMAT_RGBA8_SRGB, err);
        if (r != UPF_OK) {
            rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
            break;
        }
        upf_resample(ctx, &lin.img, &src.img, UPF_FILTER_BILINEAR); /* 1x: an exact copy */
        for (int v = UPF_VK_VARIANT_FP32; v < UPF_VK_VARIANT_COUNT && rc == CLI_EXIT_OK; v++) {
            if (only_variant && v != only_variant)
                continue;
            int dev = -1;
            rc = cli_vk_device("bench", &dev);
            if (rc != CLI_EXIT_OK)
                break;
            upf_vk_managed *m = upf_vk_managed_create(ctx, upf_vk_managed_params(
                .device_index = dev, .src_width = bc->in_w,
                .src_height = bc->in_h, .dst_width = bc->out_w, .dst_height = bc->out_h,
                .src_format = UPF_FORMAT_RGBA8_SRGB, .dst_format = UPF_FORMAT_RGBA8_SRGB,
                .sharpness = sharpness, .models = models, .variant = (upf_vk_variant)v,
                .timestamps = 1));
            if (!m) {
                const char *msg = "";
                upf_result why = upf_context_last_error(ctx, &msg);
                if (v != UPF_VK_VARIANT_FP32 && !only_variant && why == UPF_ERROR_UNSUPPORTED) {
                    if (!json)
                        printf("(variant %s: %s)\n", upf_vk_variant_name((upf_vk_variant)v), msg);
                    continue;
                }
                rc = cli_fail_upf(cmd, ctx, why);
                break;
            }
            double rec_us = 0;
            r = upf_vk_managed_run(m, &src.img, &dst.img);
            if (r == UPF_OK)
                r = upf_vk_managed_bench(m, (int)frames + warm, ms, total, &rec_us);
            if (r != UPF_OK) {
                rc = cli_fail_upf(cmd, ctx, r);
                upf_vk_managed_destroy(&m);
                break;
            }
            double med[UPF_SPATIAL_PASS_COUNT];
            for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++)
                med[p] = bench_median(ms + (size_t)p * (frames + warm) + warm, (int)frames) * 1e3;
            const double tot = bench_median(total + warm, (int)frames) * 1e3;
            if (json) {
                cli_json_object(&j, NULL);
                cli_json_string(&j, "device", upf_vk_managed_device_name(m));
                cli_json_array(&j, "input");
                cli_json_int(&j, NULL, bc->in_w);
                cli_json_int(&j, NULL, bc->in_h);
                cli_json_close(&j);
                cli_json_array(&j, "output");
                cli_json_int(&j, NULL, bc->out_w);
                cli_json_int(&j, NULL, bc->out_h);
                cli_json_close(&j);
                cli_json_string(&j, "variant", upf_vk_variant_name((upf_vk_variant)v));
                cli_json_object(&j, "passes_us");
                for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++)
                    cli_json_number(&j, upf_spatial_pass_name((upf_spatial_pass)p),
                                    round(med[p] * 100) / 100);
                cli_json_close(&j);
                cli_json_number(&j, "total_us", round(tot * 100) / 100);
                cli_json_number(&j, "record_us", round(rec_us * 100) / 100);
                cli_json_close(&j);
            } else {
                if (!header) {
                    printf("device: %s; median GPU time of %ld frames after %d warm-up frames, "
                           "in microseconds (timestamps); RGBA8 sRGB in and out; sharpness %g\n",
                           upf_vk_managed_device_name(m), frames, warm, (double)sharpness);
                    printf("%-22s  %-8s %8s %8s %8s %8s %8s %8s  %8s  %9s\n", "case", "variant",
                           "convert", "edges", "weights", "blend", "detail", "compose",
                           "total", "record");
                    header = true;
                }
                char name[32];
                snprintf(name, sizeof name, "%dx%d->%dx%d", bc->in_w, bc->in_h, bc->out_w,
                         bc->out_h);
                printf("%-22s  %-8s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f  %8.1f  %9.1f\n", name,
                       upf_vk_variant_name((upf_vk_variant)v), med[0], med[1], med[2], med[3],
                       med[4], med[5], tot, rec_us);
                fflush(stdout);
            }
            upf_vk_managed_destroy(&m);
        }
        imageio_free(&lin);
        imageio_free(&src);
        imageio_free(&dst);
    }
    if (json && rc == CLI_EXIT_OK)
        cli_json_close(&j);
    if (temporal && rc == CLI_EXIT_OK) { /* temporal_backend.c */
        int sizes[3][4];
        for (int k = 0; k < ncases && k < 3; k++) {
            const int c[4] = { cases[k].in_w, cases[k].in_h, cases[k].out_w, cases[k].out_h };
            memcpy(sizes[k], c, sizeof c);
        }
        rc = tool_bench_vk_temporal((const int (*)[4])sizes, ncases < 3 ? ncases : 3, frames,
                                    warm, json ? &j : NULL);
    }
    if (framegen && rc == CLI_EXIT_OK) { /* framegen_backend.c */
        int sizes[2][2] = { { 1920, 1080 }, { 3840, 2160 } }, nsizes = 2;
        if (sized) { /* one size when --scale 1 makes them the same */
            const int s[2][2] = { { cases[0].in_w, cases[0].in_h },
                                  { cases[0].out_w, cases[0].out_h } };
            memcpy(sizes, s, sizeof s);
            nsizes = s[0][0] == s[1][0] && s[0][1] == s[1][1] ? 1 : 2;
        }
        rc = tool_bench_vk_framegen((const int (*)[2])sizes, nsizes, frames, warm, bandwidth,
                                    json ? &j : NULL);
    }
    if (json && rc == CLI_EXIT_OK) {
        cli_json_close(&j);
        cli_json_end(&j);
    }
    free(ms);
    upf_context_destroy(&ctx);
    return rc;
}
#endif

static int run_bench(int argc, char **argv)
{
    const char *cmd = "bench", *size_s = NULL, *scale_s = NULL, *threads_s = NULL;
    const char *runs_s = NULL, *model_path = NULL, *backend_s = NULL, *variant_s = NULL,
               *sharpness_s = NULL;
    const char *frames_s = NULL, *bandwidth_s = NULL;
    bool yardstick = true, temporal = true, framegen = true, spatial = true;
    cli_common common = { 0 };
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    while (cli_args_next(&a)) {
        if (cli_common_option(&a, &common, CLI_OPT_JSON)) {
        } else if (cli_args_option(&a, "--size"))
            size_s = a.value;
        else if (cli_args_option(&a, "--scale"))
            scale_s = a.value;
        else if (cli_args_option(&a, "--threads"))
            threads_s = a.value;
        else if (cli_args_option(&a, "--runs"))
            runs_s = a.value;
        else if (cli_args_option(&a, "--model"))
            model_path = a.value;
        else if (cli_args_flag(&a, "--no-yardstick"))
            yardstick = false;
        else if (cli_args_flag(&a, "--no-temporal"))
            temporal = false;
        else if (cli_args_flag(&a, "--no-framegen"))
            framegen = false;
        else if (cli_args_flag(&a, "--no-spatial"))
            spatial = false;
        else if (cli_args_option(&a, "--backend"))
            backend_s = a.value;
        else if (cli_args_option(&a, "--variant"))
            variant_s = a.value;
        else if (cli_args_option(&a, "--frames"))
            frames_s = a.value;
        else if (cli_args_option(&a, "--sharpness"))
            sharpness_s = a.value;
        else if (cli_args_option(&a, "--bandwidth"))
            bandwidth_s = a.value;
        else
            return cli_args_unknown(&a);
    }
    if (a.failed)
        return CLI_EXIT_USAGE;
    if (backend_s && strcmp(backend_s, "cpu") != 0 && strcmp(backend_s, "vulkan") != 0)
        return cli_usage(cmd, "--backend '%s': expected cpu or vulkan", backend_s);
    const bool vulkan = backend_s && strcmp(backend_s, "vulkan") == 0;
    if (!vulkan && (variant_s || frames_s || bandwidth_s || !spatial))
        return cli_usage(cmd, "--variant, --frames, --bandwidth and --no-spatial go with "
                         "--backend vulkan");
    double bandwidth = 0;
    if (bandwidth_s && !cli_parse_double(bandwidth_s, 1, 1e6, &bandwidth))
        return cli_usage(cmd, "--bandwidth '%s': expected GB/s, 1..1000000", bandwidth_s);
    double sharpness = 1.0; /* the spatial engine's, both backends */
    if (sharpness_s && !cli_parse_double(sharpness_s, 0.0, UPF_SPATIAL_SHARPNESS_MAX, &sharpness))
        return cli_usage(cmd, "--sharpness '%s' must be a number in 0..%g", sharpness_s,
                         (double)UPF_SPATIAL_SHARPNESS_MAX);
#ifndef UPF_HAVE_VULKAN
    if (vulkan)
        return cli_usage(cmd, "--backend vulkan: this build has no Vulkan backend (it was "
                         "built without the Vulkan headers or glslangValidator)");
#endif
    bench_case cases[3] = { { 1920, 1080, 3840, 2160 }, { 1280, 720, 2560, 1440 } };
    int ncases = 2;
    if (vulkan) {
        cases[0] = (bench_case){ 1536, 864, 2048, 1152 };
        cases[1] = (bench_case){ 1280, 720, 2560, 1440 };
        cases[2] = (bench_case){ 1920, 1080, 3840, 2160 };
        ncases = 3;
    }
    double scale = 2;
    if (scale_s && !cli_parse_scale(scale_s, 1, 4, &scale))
        return cli_usage(cmd, "--scale '%s' must be a number in 1..4", scale_s);
    if (size_s) {
        if (!cli_parse_size(size_s, &cases[0].in_w, &cases[0].in_h))
            return cli_usage(cmd, "--size '%s' is not WxH", size_s);
        ncases = 1;
    }
    if (size_s || scale_s) {
        for (int k = 0; k < ncases; k++) {
            cases[k].out_w = (int)(cases[k].in_w * scale + 0.5);
            cases[k].out_h = (int)(cases[k].in_h * scale + 0.5);
            if (cases[k].out_w > UPF_MAX_IMAGE_DIMENSION || cases[k].out_h > UPF_MAX_IMAGE_DIMENSION)
                return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "output %dx%d is over the limit of %d",
                                cases[k].out_w, cases[k].out_h, UPF_MAX_IMAGE_DIMENSION);
        }
    }
    int threads[8] = { 1, 2 }, nthreads = 2;
    if (threads_s && !parse_threads(threads_s, threads, &nthreads))
        return cli_usage(cmd, "--threads '%s' must be a comma-separated list of 0..64 (0: one "
                         "per CPU)", threads_s);
    long runs = 5;
    if (runs_s && !cli_parse_int(runs_s, 1, RUNS_MAX, &runs))
        return cli_usage(cmd, "--runs '%s' must be 1..%d", runs_s, RUNS_MAX);

    /* Models: the file's, the built-in set, or none (then only the resampler runs). */
    upf_context *mctx = cli_context(cmd, 1);
    if (!mctx)
        return CLI_EXIT_INTERNAL;
    char err[IMAGEIO_ERR_SIZE];
    int rc = CLI_EXIT_OK;
    upf_models *models = NULL;
    if (model_path) {
        models = cli_load_models(cmd, mctx, model_path, &rc);
        if (!models) {
            upf_context_destroy(&mctx);
            return rc;
        }
    } else {
        models = upf_models_default(mctx);
    }
#ifdef UPF_HAVE_VULKAN
    if (vulkan) {
        long frames = 500;
        int variant = 0;
        if (frames_s && !cli_parse_int(frames_s, 1, 100000, &frames))
            rc = cli_usage(cmd, "--frames '%s' must be 1..100000", frames_s);
        for (int v = 1; variant_s && v < UPF_VK_VARIANT_COUNT; v++)
            if (strcmp(variant_s, upf_vk_variant_name((upf_vk_variant)v)) == 0)
                variant = v;
        if (rc == CLI_EXIT_OK && variant_s && !variant)
            rc = cli_usage(cmd, "--variant '%s': expected fp32, fp16 or coopmat", variant_s);
        if (rc == CLI_EXIT_OK)
            rc = bench_vulkan(cases, ncases, frames, variant, (float)sharpness, models,
                              common.json, common.quiet, spatial, temporal, framegen,
                              size_s != NULL, bandwidth * 1e9);
        upf_models_destroy(&models);
        upf_context_destroy(&mctx);
        return rc;
    }
#endif

    char machine[320], compiler[256];
    bench_machine(machine, sizeof machine);
    snprintf(compiler, sizeof compiler,
#if defined(__clang__)
             "clang "
#elif defined(__GNUC__)
             "gcc "
#endif
             "%s",
#ifdef __VERSION__
             __VERSION__
#else
             "?"
#endif
    );
    const bool json = common.json;
    cli_json j;
    if (json) {
        cli_json_begin(&j, stdout);
        cli_json_object(&j, NULL);
        cli_json_string(&j, "machine", machine);
        cli_json_string(&j, "version", upf_version());
        cli_json_string(&j, "compiler", compiler);
        cli_json_string(&j, "cpu_kernels", upf__cpu_flags_name(upf__cpu_detect()));
        cli_json_int(&j, "runs", runs);
        cli_json_number(&j, "sharpness", sharpness);
        cli_json_string(&j, "frame", "the built-in frame (courtyard, 1 spp), RGBA8 sRGB in and "
                        "out; medians after a warm-up");
        cli_json_bool(&j, "spatial_models", models != NULL);
        cli_json_array(&j, "rows");
    } else {
        printf("machine: %s; upframe %s built with %s; CPU kernels %s\n", machine,
               upf_version(), compiler, upf__cpu_flags_name(upf__cpu_detect()));
        printf("frame: the built-in frame (courtyard, 1 spp) at the input size; median of %ld "
               "run%s after a warm-up, in ms; RGBA8 sRGB in and out; spatial engine at "
               "sharpness %g\n", runs, runs == 1 ? "" : "s", sharpness);
        if (!models)
            printf("(no spatial engine rows: this build has no built-in models; --model FILE)\n");
        printf("%-22s  %-8s %2s  %7s %7s %7s %7s %7s %7s  %8s  %7s\n", "case", "engine", "th",
               "convert", "edges", "weights", "blend", "detail", "compose", "total", "Mpix/s");
    }
    /* The yardsticks, printed after the rows in JSON (one array each). */
    typedef struct yard {
        bench_case c;
        const char *tool; /* NULL: not run */
        double ms[2];
    } yard;
    yard yards[2];
    int nyards = 0;
    char why_no_yard[IMAGEIO_ERR_SIZE + 64] = "";
    cli_progress bar;
    cli_progress_begin(&bar, "bench", common.quiet);
    const int steps = ncases * (nthreads * (models ? 2 : 1) + (yardstick ? 1 : 0) +
                                (temporal ? nthreads * (models ? 2 : 1) : 0)) +
                      (framegen ? 2 * 2 * nthreads : 0);
    int step = 0;
    for (int k = 0; k < ncases && rc == CLI_EXIT_OK; k++) {
        const bench_case *bc = &cases[k];
        imageio_image lin, src;
        upf_result r = builtin_frame_render(NULL, bc->in_w, bc->in_h, 0, &lin, err);
        if (r == UPF_OK)
            r = imageio_alloc(&src, bc->in_w, bc->in_h, UPF_FORMAT_RGBA8_SRGB, err);
        if (r != UPF_OK) {
            imageio_free(&lin);
            rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
            break;
        }
        upf_resample(mctx, &lin.img, &src.img, UPF_FILTER_BILINEAR); /* 1x: an exact copy to sRGB8 */
        for (int t = 0; t < nthreads && rc == CLI_EXIT_OK; t++) {
            for (int e = models ? 0 : 1; e < 2 && rc == CLI_EXIT_OK; e++) {
                cli_progress_update(&bar, (double)step++ / steps, "%dx%d, %s, %d thread%s",
                                    bc->in_w, bc->in_h, e ? "lanczos" : "spatial", threads[t],
                                    threads[t] == 1 ? "" : "s");
                bench_row row;
                rc = time_case(bc, &src.img, threads[t], (int)runs, e ? NULL : models, !e,
                               (float)sharpness, &row);
                if (rc == CLI_EXIT_OK && json) {
                    json_row(&j, &row);
                } else if (rc == CLI_EXIT_OK) {
                    cli_progress_end(&bar);
                    print_row(&row);
                }
            }
        }
        if (rc == CLI_EXIT_OK && yardstick) {
            cli_progress_update(&bar, (double)step++ / steps, "%dx%d, the yardstick", bc->in_w,
                                bc->in_h);
            char dir[] = "/tmp/upframe-bench-XXXXXX", path[64];
            yard *y = &yards[nyards++];
            *y = (yard){ *bc, NULL, { 0, 0 } };
            if (mkdtemp(dir)) {
                snprintf(path, sizeof path, "%s/frame.png", dir);
                bool written = imageio_write_png(path, &src.img, 8, err) == UPF_OK;
                const bool convert = on_path("convert");
                const bool magick = convert && convert_is_imagemagick();
                const bool python = on_path("python3");
                if (written && magick && magick_ms(path, (int)runs, bc->out_w, bc->out_h, y->ms))
                    y->tool = "ImageMagick convert -filter Lanczos -resize (its PNG read "
                              "subtracted)";
                else if (written && python && opencv_ms(path, (int)runs, bc->out_w, bc->out_h,
                                                        y->ms))
                    y->tool = "OpenCV cv2.resize INTER_LANCZOS4 (8-bit, no linear light)";
                else if (!written)
                    snprintf(why_no_yard, sizeof why_no_yard, "could not write the frame for "
                             "it: %s", err);
                else
                    snprintf(why_no_yard, sizeof why_no_yard, "%s; %s",
                             magick    ? "ImageMagick's convert is on the PATH but did not "
                                         "report its -bench timings"
                             : convert ? "the convert on the PATH is not ImageMagick's "
                                         "(`convert -version` does not name it)"
                                       : "ImageMagick's convert is not on the PATH "
                                         "(scripts/deps.sh --bench installs it)",
                             python ? "python3 could not time cv2.resize (no OpenCV?)"
                                    : "python3 is not on the PATH");
                unlink(path);
                rmdir(dir);
            } else {
                snprintf(why_no_yard, sizeof why_no_yard, "no temporary folder: %s",
                         strerror(errno));
            }
            cli_progress_end(&bar);
            if (!json && y->tool)
                printf("%4dx%-4d -> %4dx%-4d  %s: 1 thread %.1f ms, 2 threads %.1f ms\n",
                       bc->in_w, bc->in_h, bc->out_w, bc->out_h, y->tool, y->ms[0], y->ms[1]);
            else if (!json)
                printf("(yardstick not run: %s)\n", why_no_yard);
        }
        imageio_free(&lin);
        imageio_free(&src);
    }
    /* The temporal engine, after the spatial rows (its own table; "temporal" in JSON). */
    temporal_row trows[2 * 8 * 2];
    int ntrows = 0;
    for (int k = 0; k < ncases && rc == CLI_EXIT_OK && temporal; k++) {
        const bench_case *bc = &cases[k];
        if (k == 0 && !json) {
            cli_progress_end(&bar);
            printf("\ntemporal engine: the courtyard's walk at t = 1 s, linear RGBA32F colour, "
                   "depth and motion in, RGBA8 sRGB out, sharpness 0.5; median of %ld run%s, "
                   "ms (temporal+cm+f: camera motion from depth and the spatial fill)\n"
                   "%-22s  %-14s %2s  %8s %8s %8s %8s %8s %8s %8s  %8s  %7s\n", runs,
                   runs == 1 ? "" : "s", "case", "engine", "th", "cam_mot", "reconstr",
                   "disocc", "locks", "fill", "accum", "sharpen", "total", "Mpix/s");
        }
        temporal_input in;
        upf_result r = temporal_input_render(bc->in_w, bc->in_h, &in, err);
        if (r != UPF_OK) {
            temporal_input_free(&in);
            rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
            break;
        }
        for (int t = 0; t < nthreads && rc == CLI_EXIT_OK; t++)
            for (int e = 0; e < (models ? 2 : 1) && rc == CLI_EXIT_OK; e++) {
                cli_progress_update(&bar, (double)step++ / steps, "%dx%d, temporal, %d thread%s",
                                    bc->in_w, bc->in_h, threads[t], threads[t] == 1 ? "" : "s");
                temporal_row *row = &trows[ntrows];
                rc = time_temporal(bc, &in, threads[t], (int)runs, models, e == 1, row);
                if (rc != CLI_EXIT_OK)
                    break;
                ntrows++;
                if (!json) {
                    cli_progress_end(&bar);
                    print_temporal_row(row);
                }
            }
        temporal_input_free(&in);
    }
    /* Frame generation at the first case's input and output sizes ("framegen" in JSON). */
    framegen_row frows[2 * 8 * 2];
    int nfrows = 0;
    for (int k = 0; k < 2 && ncases && rc == CLI_EXIT_OK && framegen; k++) {
        const int w = k ? cases[0].out_w : cases[0].in_w, h = k ? cases[0].out_h : cases[0].in_h;
        if (k == 1 && w == cases[0].in_w && h == cases[0].in_h)
            break;
        if (k == 0 && !json) {
            cli_progress_end(&bar);
            printf("\nframe generation: the midpoint of two frames of the courtyard's walk 1/30 s "
                   "apart, linear RGBA32F in, RGBA8 sRGB out; median of %ld run%s, ms per made "
                   "frame\n%-10s  %-8s %2s ", runs, runs == 1 ? "" : "s", "size", "motion", "th");
            for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
                printf(" %8s", upf_interpolate_pass_name((upf_interpolate_pass)p));
            printf("  %8s  %7s\n", "total", "Mpix/s");
        }
        framegen_input in;
        upf_result r = framegen_input_render(w, h, &in, err);
        if (r != UPF_OK) {
            rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
            break;
        }
        for (int fl = 0; fl < 2 && rc == CLI_EXIT_OK; fl++)
            for (int t = 0; t < nthreads && rc == CLI_EXIT_OK; t++) {
                cli_progress_update(&bar, (double)step++ / steps, "%dx%d, frame generation (%s), "
                                    "%d thread%s", w, h, fl ? "flow" : "vectors", threads[t],
                                    threads[t] == 1 ? "" : "s");
                framegen_row *row = &frows[nfrows];
                rc = time_framegen(&in, threads[t], (int)runs, fl == 1, row);
                if (rc != CLI_EXIT_OK)
                    break;
                nfrows++;
                if (!json) {
                    cli_progress_end(&bar);
                    print_framegen_row(row);
                }
            }
        framegen_input_free(&in);
    }
    cli_progress_end(&bar);
    if (json && rc == CLI_EXIT_OK) {
        cli_json_close(&j);
        cli_json_array(&j, "temporal");
        for (int k = 0; k < ntrows; k++)
            json_temporal_row(&j, &trows[k]);
        cli_json_close(&j);
        cli_json_array(&j, "framegen");
        for (int k = 0; k < nfrows; k++)
            json_framegen_row(&j, &frows[k]);
        cli_json_close(&j);
        cli_json_array(&j, "yardstick");
        for (int k = 0; k < nyards; k++) {
            if (!yards[k].tool)
                continue;
            cli_json_object(&j, NULL);
            cli_json_array(&j, "input");
            cli_json_int(&j, NULL, yards[k].c.in_w);
            cli_json_int(&j, NULL, yards[k].c.in_h);
            cli_json_close(&j);
            cli_json_array(&j, "output");
            cli_json_int(&j, NULL, yards[k].c.out_w);
            cli_json_int(&j, NULL, yards[k].c.out_h);
            cli_json_close(&j);
            cli_json_string(&j, "tool", yards[k].tool);
            cli_json_number(&j, "ms_1_thread", ms1(yards[k].ms[0]));
            cli_json_number(&j, "ms_2_threads", ms1(yards[k].ms[1]));
            cli_json_close(&j);
        }
        cli_json_close(&j);
        if (why_no_yard[0])
            cli_json_string(&j, "yardstick_absent", why_no_yard);
        cli_json_close(&j);
        cli_json_end(&j);
    }
    upf_models_destroy(&models);
    upf_context_destroy(&mctx);
    return rc;
}

const cli_command cli_cmd_bench = {
    "bench", run_bench, "time the engines per pass at 1080p->4K and 720p->1440p", bench_help,
};
