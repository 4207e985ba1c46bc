/* cmd_temporal.c: `upframe temporal`: a sequence of jittered frames with depth and motion (the
 * layout `upframe render` writes, docs/TEMPORAL.md) through the temporal engine, one PNG per
 * frame. Reads the folder through tools/sequence; writes OUT_DIR/NNNN.png atomically. */
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common/engine_memory.h"
#include "outset.h"
#include "sequence/pipeline.h"
#include "sequence/sequence.h"
#include "temporal_backend.h"

static const char temporal_help[] =
    "usage: upframe temporal IN_DIR -o OUT_DIR (--mode NAME | --scale R | --size WxH)\n"
    "                        [--sharpness K] [--disocclusion spatial|upsample] [--no-motion]\n"
    "                        [--backend cpu|vulkan]\n"
    "\n"
    "Upscales a sequence of jittered frames with the temporal engine. IN_DIR holds, per frame\n"
    "NNNN (four or more digits), what `upframe render` writes (docs/TEMPORAL.md gives the\n"
    "layout, to export it from another renderer):\n"
    "  NNNN.json        size, jitter, camera (projection, or near/far/fov_y/depth), the view\n"
    "                   matrices, cut, fps\n"
    "  NNNN.color.pfm   colour in linear light (or NNNN.color.png, sRGB)\n"
    "  NNNN.depth.pfm   depth                   NNNN.motion.pfm  motion vectors (R, G)\n"
    "It writes OUT_DIR/NNNN.png (8-bit sRGB), one per frame.\n"
    "\n"
    "  --mode NAME       native (1x), quality (1.5x), balanced (1.7x), performance (2x) or\n"
    "                    ultra-performance (3x): output = render size x ratio, rounded\n"
    "  --scale R         output = render size x R, 1..4\n"
    "  --size WxH        the output size (1..4 times the render size on each axis)\n"
    "  --sharpness K     the final sharpen, 0 (default, off) .. 1\n"
    "  --disocclusion M  where there is no history (disocclusions, cuts, the first frame):\n"
    "                    upsample (default: Lanczos-2 of the samples) or spatial (the spatial\n"
    "                    engine's upscale of the frame; slower)\n"
    "  --no-motion       ignore NNNN.motion.pfm: camera motion from the depth and the\n"
    "                    sidecar's matrices (moving objects then get the camera's motion)\n"
    "  --backend B       cpu (the default) or vulkan: the engine on the GPU (managed mode);\n"
    "                    the JSON's pass times are then GPU timestamps\n"
    "  --threads N       worker threads (default 0: one per CPU); output is identical\n"
    "  --max-pixels N    the largest image read or made (default 2^27 pixels)\n"
    "  --max-memory N    the bytes the run may take, engine and pictures, checked before\n"
    "                    they are taken (N, or N with K, M, G, T; default 8G)\n"
    "  --json            a JSON summary on stdout (frames, sizes, time, ms per pass)\n"
    "  -q, --quiet       no progress, notes, warnings or summary: only errors\n"
    "  -o, --output DIR  the folder (made if missing; its parent must exist)\n"
    "  --serial-io       read, upscale and write one frame at a time (by default the next\n"
    "                    frame is read and the last one written while the engine runs;\n"
    "                    the outputs are the same)\n"
    "\n"
    "A frame without a motion file takes camera motion from its matrices (a warning); one\n"
    "without either is an error. A frame whose size differs from the one before starts a new\n"
    "engine (its history starts again) and keeps the output size of the frames before. A\n"
    "sidecar with \"cut\" or \"reset\" true, or a gap in the numbering (a note), resets the\n"
    "history. Frames without jitter, and a jitter phase count in the sidecars that does not\n"
    "suit the ratio, draw a warning (the output is then an upsample, or keeps some aliasing).\n"
    "OUT_DIR must not be IN_DIR. A failed run removes the PNGs it created (and the\n"
    "folder, if it made it), never one that was there before, and so does one stopped by\n"
    "Ctrl-C, SIGTERM or SIGHUP; a symbolic link where a PNG goes is refused (docs/CLI.md).\n"
    "Exit codes: 0 ok, 1 usage, 2 bad input (a missing or malformed file, sizes that do not\n"
    "match, an unwritable output), 3 internal error.\n";

static const char *const mode_names[] = { "native", "quality", "balanced", "performance",
                                          "ultra-performance" };

typedef struct size_rule {
    int mode;                 /* 1..5 or 0 */
    double scale;             /* or 0 */
    int width, height;        /* or 0 */
} size_rule;

static int output_size(const char *cmd, const size_rule *rule, int rw, int rh, int *ow, int *oh)
{
    double ratio = rule->scale;
    if (rule->mode)
        upf_temporal_mode_ratio(NULL, (upf_temporal_mode)rule->mode, &ratio);
    if (ratio > 0) {
        *ow = (int)lround(rw * ratio);
        *oh = (int)lround(rh * ratio);
    } else {
        *ow = rule->width;
        *oh = rule->height;
    }
    if (*ow < rw || *oh < rh || *ow > 4 * rw || *oh > 4 * rh || *ow > UPF_MAX_IMAGE_DIMENSION ||
        *oh > UPF_MAX_IMAGE_DIMENSION)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "output %dx%d for frames of %dx%d; expected 1 "
                        "to 4 times the render size on each axis, at most %d", *ow, *oh, rw, rh,
                        UPF_MAX_IMAGE_DIMENSION);
    return CLI_EXIT_OK;
}

/* The engine with its sizes times `scale` (engine_memory.h), the ratio kept within 1..4. */
static void *make_scaled(upf_context *ctx, double scale, void *priv)
{
    const upf_temporal_params *p = priv;
    upf_temporal_params q = *p;
    q.render_width = (int)fmax(1, lround(p->render_width * scale));
    q.render_height = (int)fmax(1, lround(p->render_height * scale));
    q.output_width = (int)fmin(4 * q.render_width, fmax(q.render_width,
                                                       lround(p->output_width * scale)));
    q.output_height = (int)fmin(4 * q.render_height, fmax(q.render_height,
                                                         lround(p->output_height * scale)));
    return upf_temporal_create(ctx, &q);
}

static void destroy_engine(void *e)
{
    upf_temporal *t = e;
    upf_temporal_destroy(&t);
}

/* Before the engine is made: its bytes and the tool's pictures (the frame read, the output)
 * against the memory limit. */
static int check_memory(const char *cmd, const cli_common *c, const upf_temporal_params *p,
                        const seq_frame *f)
{
    double engine = 0;
    if (engine_memory_bytes(make_scaled, destroy_engine, (void *)p,
                            (double)p->output_width * p->output_height, &engine) != UPF_OK)
        return CLI_EXIT_OK; /* the real creation says what is wrong */
    const imageio_image *imgs[] = { &f->color, &f->depth, &f->motion };
    double pictures = 4.0 * p->output_width * p->output_height;
    for (int i = 0; i < 3; i++)
        if (imgs[i]->img.data)
            pictures += (double)imgs[i]->img.width * imgs[i]->img.height *
                        (double)upf_format_bytes_per_pixel(imgs[i]->img.format);
    return cli_check_memory(cmd, c, "the temporal engine", p->output_width, p->output_height,
                            engine, pictures);
}

static void warn(const char *fmt, ...) CLI_PRINTF(1, 2);
static void warn(const char *fmt, ...)
{
    if (cli_is_quiet())
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("upframe temporal: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The pipeline's I/O (sequence/pipeline.h): frame k read, or its PNG written; each prints
 * its own failure, naming the file. */
typedef struct temporal_io {
    const char *cmd;
    const seq_fs *fs;
    const seq_list *list;
    const imageio_limits *limits;
    cli_outset *set;
} temporal_io;

static int temporal_read(void *user, int k, seq_frame *f)
{
    const temporal_io *io = user;
    char err[IMAGEIO_ERR_SIZE];
    upf_result r = seq_read_frame(io->fs, io->list, k, io->limits, f, err);
    return r == UPF_OK ? CLI_EXIT_OK : cli_fail(io->cmd, cli_exit_code(r), "%s", err);
}

static int temporal_write(void *user, int k, const upf_image *out)
{
    const temporal_io *io = user;
    return cli_outset_write_png(io->cmd, io->set, k, out);
}

static int run_temporal(int argc, char **argv)
{
    const char *cmd = "temporal";
    const char *in_dir = NULL, *out_dir = NULL, *mode_s = NULL, *scale_s = NULL, *size_s = NULL;
    const char *sharp_s = NULL, *dis_s = NULL, *backend_s = NULL;
    bool no_motion = false, serial_io = false;
    cli_common common = { 0 };
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    while (cli_args_next(&a)) {
        if (cli_args_positional(&a))
            cli_args_take(&a, &in_dir, "input folder");
        else if (cli_common_option(&a, &common,
                                   CLI_OPT_THREADS | CLI_OPT_JSON | CLI_OPT_MAX_PIXELS |
                                       CLI_OPT_MAX_MEMORY)) {
        } else if (cli_args_option(&a, "--mode"))
            mode_s = a.value;
        else if (cli_args_option(&a, "--scale"))
            scale_s = a.value;
        else if (cli_args_option(&a, "--size"))
            size_s = a.value;
        else if (cli_args_option(&a, "--sharpness"))
            sharp_s = a.value;
        else if (cli_args_option(&a, "--disocclusion"))
            dis_s = a.value;
        else if (cli_args_option(&a, "--backend"))
            backend_s = a.value;
        else if (cli_args_option(&a, "--output") || cli_args_option(&a, "-o"))
            out_dir = a.value;
        else if (cli_args_flag(&a, "--no-motion"))
            no_motion = true;
        else if (cli_args_flag(&a, "--serial-io"))
            serial_io = true;
        else
            return cli_args_unknown(&a);
    }
    if (a.failed)
        return CLI_EXIT_USAGE;
    if (!in_dir)
        return cli_usage(cmd, "needs IN_DIR, the folder of frames");
    if (!out_dir)
        return cli_usage(cmd, "needs -o OUT_DIR, the folder to write into");
    if ((mode_s != NULL) + (scale_s != NULL) + (size_s != NULL) != 1)
        return cli_usage(cmd, "needs one of --mode NAME, --scale R or --size WxH");
    size_rule rule = { 0, 0, 0, 0 };
    if (mode_s) {
        for (int m = 0; m < 5; m++)
            if (strcmp(mode_s, mode_names[m]) == 0)
                rule.mode = m + 1;
        if (!rule.mode)
            return cli_usage(cmd, "--mode '%s': expected native, quality, balanced, performance "
                             "or ultra-performance", mode_s);
    }
    if (scale_s && !cli_parse_scale(scale_s, 1, 4, &rule.scale))
        return cli_usage(cmd, "--scale '%s': expected a ratio in 1..4", scale_s);
    if (size_s && !cli_parse_size(size_s, &rule.width, &rule.height))
        return cli_usage(cmd, "--size '%s': expected WxH, each 1..%d", size_s,
                         UPF_MAX_IMAGE_DIMENSION);
    double sharpness = 0;
    if (sharp_s && !cli_parse_double(sharp_s, 0, UPF_TEMPORAL_SHARPNESS_MAX, &sharpness))
        return cli_usage(cmd, "--sharpness '%s': expected 0..%g", sharp_s,
                         (double)UPF_TEMPORAL_SHARPNESS_MAX);
    if (backend_s && strcmp(backend_s, "cpu") != 0 && strcmp(backend_s, "vulkan") != 0)
        return cli_usage(cmd, "--backend '%s': expected cpu or vulkan", backend_s);
    const bool vulkan = backend_s && strcmp(backend_s, "vulkan") == 0;
    int device = -1; /* UPF_VK_DEVICE, checked once */
    if (vulkan) {
        const int drc = cli_vk_device(cmd, &device); /* a bad UPF_VK_DEVICE: exit 2 */
        if (drc != CLI_EXIT_OK)
            return drc;
    }
    bool fill = false;
    if (dis_s) {
        if (strcmp(dis_s, "spatial") == 0)
            fill = true;
        else if (strcmp(dis_s, "upsample") != 0)
            return cli_usage(cmd, "--disocclusion '%s': expected spatial or upsample", dis_s);
    }

    char err[IMAGEIO_ERR_SIZE];
    seq_fs fs = seq_fs_dir(in_dir);
    seq_list list;
    upf_result r = seq_scan(&fs, &list, err);
    if (r != UPF_OK)
        return cli_fail(cmd, cli_exit_code(r), "%s", err);
    int rc = CLI_EXIT_OK;
    cli_outset *set = cli_outset_open(cmd, out_dir, list.count, &rc);
    for (int k = 0; set && k < list.count; k++) {
        char name[CLI_OUTSET_NAME_MAX];
        snprintf(name, sizeof name, "%s.png", list.stem[k]);
        cli_outset_add(set, name);
    }
    if (set)
        rc = cli_outset_refuse_input_dir(cmd, set, in_dir);
    if (rc == CLI_EXIT_OK && set)
        rc = cli_outset_check(cmd, set);
    upf_context *ctx = rc == CLI_EXIT_OK ? cli_context_for(cmd, &common) : NULL;
    if (rc == CLI_EXIT_OK && !ctx)
        rc = CLI_EXIT_INTERNAL;
    const imageio_limits limits = { 0, 0, cli_max_pixels(&common) };
    double pass_sum[UPF_TEMPORAL_PASS_COUNT] = { 0 };

    tool_temporal *engine = NULL;
    imageio_image out = { 0 }, out_behind = { 0 }; /* this frame's, the last one's (written) */
    temporal_io tio = { cmd, &fs, &list, &limits, set };
    seq_pipe *pipe = rc == CLI_EXIT_OK
                         ? seq_pipe_start(&(seq_pipe_io){ &tio, temporal_read, temporal_write },
                                          list.count, !serial_io)
                         : NULL;
    if (rc == CLI_EXIT_OK && !pipe)
        rc = cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory or no thread for the frame I/O");
    int rw = 0, rh = 0, ow = 0, oh = 0;
    unsigned flags = 0;
    bool warned_motion = false, warned_phases = false, any_jitter = false;
    cli_progress bar;
    cli_progress_begin(&bar, "temporal", common.quiet);
    const double t0 = cli_now();
    for (int k = 0; k < list.count && rc == CLI_EXIT_OK; k++) {
        const seq_frame *fp;
        if ((rc = seq_pipe_next(pipe, &fp)) != CLI_EXIT_OK)
            break;
        const seq_frame f = *fp; /* the pipe's until the next frame */
        imageio_image t = out;   /* the buffer written two frames ago is free again */
        out = out_behind, out_behind = t;
        const char *stem = list.stem[k];
        const seq_sidecar *sd = &f.side;
        unsigned want = (sd->color_encoding == 1 ? UPF_TEMPORAL_COLOR_SRGB : 0) |
                        (sd->color_encoding == 2 ? UPF_TEMPORAL_COLOR_SQRT : 0) |
                        (sd->motion_uv ? UPF_TEMPORAL_MOTION_UV : 0) |
                        (fill ? UPF_TEMPORAL_SPATIAL_FILL : 0);
        if (f.color.img.format != UPF_FORMAT_RGBA32F && sd->color_encoding != 0) {
            rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s/%s.json: \"color_encoding\" applies to a "
                          "PFM's values; %s's colour is a PNG (sRGB by its format)", in_dir, stem,
                          stem);
        } else if (engine && (want & ~UPF_TEMPORAL_SPATIAL_FILL) !=
                                 (flags & ~UPF_TEMPORAL_SPATIAL_FILL)) {
            rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s/%s.json: \"color_encoding\" or "
                          "\"motion_units\" differ from the frames before; expected one for the "
                          "whole sequence", in_dir, stem);
        } else if (!engine || sd->width != rw || sd->height != rh) {
            /* one output size for the whole folder: a new render size keeps it */
            size_rule kept = { 0, 0, ow, oh };
            if (engine)
                cli_note(cmd, "frame %s is %dx%d, the frames before %dx%d: a new engine, the "
                         "history starts again; the output stays %dx%d", stem, sd->width,
                         sd->height, rw, rh, ow, oh);
            const bool resized = engine != NULL;
            tool_temporal_destroy(&engine);
            imageio_free(&out);
            rw = sd->width, rh = sd->height;
            rc = output_size(cmd, resized ? &kept : &rule, rw, rh, &ow, &oh);
            const upf_temporal_params tp = { .render_width = rw, .render_height = rh,
                                             .output_width = ow, .output_height = oh,
                                             .sharpness = (float)sharpness, .flags = want };
            if (rc == CLI_EXIT_OK)
                rc = check_memory(cmd, &common, &tp, &f);
            if (rc == CLI_EXIT_OK) {
                flags = want;
                engine = tool_temporal_create(ctx, vulkan, device, &tp, f.color.img.format,
                                              UPF_FORMAT_RGBA8_SRGB);
                if (!engine)
                    rc = cli_fail_upf(cmd, ctx, upf_context_last_error(ctx, NULL));
            }
        }
        if (rc == CLI_EXIT_OK && (out.img.width != ow || out.img.height != oh)) {
            imageio_free(&out);
            if ((r = imageio_alloc(&out, ow, oh, UPF_FORMAT_RGBA8_SRGB, err)) != UPF_OK)
                rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
        }
        if (rc == CLI_EXIT_OK && sd->jitter_phases > 0 && !warned_phases) {
            int phases = 0;
            upf_jitter_phase_count(NULL, rw, ow, &phases);
            if (phases != sd->jitter_phases) {
                warn("%s/%s.json: the frames were jittered with %d phases; %d suit %dx%d -> "
                     "%dx%d (upf_jitter_phase_count): the output may keep some aliasing or "
                     "shimmer", in_dir, stem, sd->jitter_phases, phases, rw, rh, ow, oh);
                warned_phases = true;
            }
        }
        /* a gap in the numbering: the history is of a frame long gone, start again */
        const bool gap = k > 0 && list.number[k] != list.number[k - 1] + 1;
        if (rc == CLI_EXIT_OK && gap && !sd->reset)
            cli_note(cmd, "frames %ld..%ld are missing: frame %s starts the history again (a "
                     "reset)", list.number[k - 1] + 1, list.number[k] - 1, stem);
        any_jitter = any_jitter || sd->jitter_x != 0 || sd->jitter_y != 0;
        bool use_motion = f.has_motion && !no_motion;
        if (rc == CLI_EXIT_OK && !use_motion && !sd->has_matrices)
            rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s/%s: %s, and %s.json has no view and "
                          "previous view-projection matrices to derive camera motion from; "
                          "expected one or the other", in_dir, stem,
                          f.has_motion ? "--no-motion ignores the motion file"
                                       : "no motion file (.motion.pfm)", stem);
        if (rc == CLI_EXIT_OK && !use_motion && !no_motion && !warned_motion) {
            warn("%s/%s.motion.pfm is missing: camera motion from the depth and the matrices "
                 "(moving objects get the camera's motion)", in_dir, stem);
            warned_motion = true;
        }
        if (rc == CLI_EXIT_OK) {
            upf_temporal_frame tf = {
                .color = &f.color.img, .depth = &f.depth.img,
                .motion = use_motion ? &f.motion.img : NULL,
                .jitter_x = sd->jitter_x, .jitter_y = sd->jitter_y,
                .motion_scale_x = sd->motion_scale_x, .motion_scale_y = sd->motion_scale_y,
                .camera = sd->camera, .projection = sd->has_projection ? sd->projection : NULL,
                .clip_depth = sd->clip_depth,
                .view_projection = sd->has_matrices ? sd->view_projection : NULL,
                .prev_view_projection = sd->has_matrices ? sd->prev_view_projection : NULL,
                .frame_time_ms = sd->frame_time_ms > 0 ? sd->frame_time_ms : 1000.0 / 60.0,
                .reset = sd->reset || gap, .exposure = (float)sd->exposure,
                .pre_exposure = (float)sd->pre_exposure,
            };
            r = tool_temporal_run(engine, &tf, &out.img);
            double ms[UPF_TEMPORAL_PASS_COUNT];
            if (r == UPF_OK && tool_temporal_timings(engine, ms) == UPF_OK)
                for (int p = 0; p < UPF_TEMPORAL_PASS_COUNT; p++)
                    pass_sum[p] += ms[p];
            if (r != UPF_OK) {
                const char *m = "";
                upf_context_last_error(ctx, &m);
                rc = cli_fail(cmd, cli_exit_code(r), "%s/%s: %s", in_dir, stem, m);
            }
        }
        if (rc == CLI_EXIT_OK)
            rc = seq_pipe_put(pipe, &out.img);
        cli_progress_update(&bar, (double)(k + 1) / list.count, "frame %d/%d", k + 1, list.count);
    }
    if (rc == CLI_EXIT_OK && pipe)
        rc = seq_pipe_finish(pipe);
    seq_pipe_stop(&pipe); /* no write in flight: the undo below removes every file */
    cli_progress_end(&bar);
    const double seconds = cli_now() - t0;
    if (rc == CLI_EXIT_OK && !any_jitter && list.count > 1)
        warn("%s: no frame has a jitter offset (\"jitter\" [0, 0] in every sidecar): the "
             "temporal engine adds detail from sub-pixel jitter, so without it the output is "
             "only an upsample; render with jitter (docs/TEMPORAL.md)", in_dir);
    cli_outset_close(&set, rc == CLI_EXIT_OK);
    if (rc != CLI_EXIT_OK) {
        cli_undo_now();
    } else {
        cli_undo_forget();
        if (!common.json)
                cli_report("wrote %d frame%s %dx%d -> %dx%d in %.1f s, into %s\n", list.count,
                       list.count == 1 ? "" : "s", rw, rh, ow, oh, seconds, out_dir);
    }
    if (common.json) {
        cli_json j;
        cli_json_begin(&j, stdout);
        cli_json_object(&j, NULL);
        cli_json_string(&j, "input", in_dir);
        cli_json_string(&j, "output", out_dir);
        cli_json_bool(&j, "ok", rc == CLI_EXIT_OK);
        cli_json_int(&j, "exit_code", rc);
        cli_json_int(&j, "frames", rc == CLI_EXIT_OK ? list.count : 0);
        cli_json_array(&j, "render_size");
        cli_json_int(&j, NULL, rw);
        cli_json_int(&j, NULL, rh);
        cli_json_close(&j);
        cli_json_array(&j, "output_size");
        cli_json_int(&j, NULL, ow);
        cli_json_int(&j, NULL, oh);
        cli_json_close(&j);
        cli_json_number(&j, "seconds", round(seconds * 1e3) / 1e3);
        cli_json_object(&j, "mean_pass_ms");
        for (int p = 0; p < UPF_TEMPORAL_PASS_COUNT; p++)
            cli_json_number(&j, upf_temporal_pass_name((upf_temporal_pass)p),
                            round(pass_sum[p] / (list.count ? list.count : 1) * 1e3) / 1e3);
        cli_json_close(&j);
        cli_json_close(&j);
        cli_json_end(&j);
    }
    tool_temporal_destroy(&engine);
    imageio_free(&out);
    imageio_free(&out_behind);
    seq_list_free(&list);
    upf_context_destroy(&ctx);
    return rc;
}

const cli_command cli_cmd_temporal = {
    "temporal", run_temporal, "upscale a sequence of jittered frames with depth and motion",
    temporal_help
};
