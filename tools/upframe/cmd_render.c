/* cmd_render.c: `upframe render`: game-like test frames from the scene renderer
 * (tools/scene): colour, HUD, depth, motion and the camera of each frame of a camera path,
 * into a folder; `--list` says what scenes and paths there are; `--contact-sheet` draws
 * every scene with its depth and motion into one picture. */
#include <errno.h>
#include <stdatomic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outset.h"
#include "scene/scene.h"
#include "scene/scene_output.h"

static const char render_help[] =
    "usage: upframe render SCENE --size WxH -o DIR [options]\n"
    "       upframe render --list\n"
    "       upframe render --contact-sheet OUT.png [--size WxH] [--spp N]\n"
    "\n"
    "Renders frames of a scene along a camera path. Per frame NNNN it writes into DIR:\n"
    "  NNNN.color.pfm  colour in linear light, without the HUD   NNNN.color.png  its preview\n"
    "  NNNN.hud.png    the HUD layer (RGBA)                      NNNN.final.png  with the HUD\n"
    "  NNNN.depth.pfm  depth                                     NNNN.motion.pfm motion vectors\n"
    "  NNNN.json       jitter, view and projection matrices, near, far, field of view, time\n"
    "\n"
    "  --size WxH          render size (required)\n"
    "  --spp N             samples per pixel, 1..4096 (default 1: one sample at the pixel\n"
    "                      centre plus the jitter, as a game renders; N > 1: N stratified\n"
    "                      samples averaged over the pixel, the reference)\n"
    "  --frames N          number of frames, 1..100000 (default 1)\n"
    "  --fps F             frame rate (default 30): frame n is at t = T + n / F, and motion\n"
    "                      vectors point 1/F seconds back\n"
    "  --time T            time of frame 0 in seconds (default 0; any real number, so\n"
    "                      T = 0.5 / F gives the frames half way between)\n"
    "  --path NAME         still, pan, orbit, walk, turn or cut (default still)\n"
    "  --seed S            scene seed, 0..4294967295 (default 0; training uses 0..9999, the\n"
    "                      evaluation set seeds from 1000000: docs/SCENES.md)\n"
    "  --jitter MODE       halton or none (default none): Halton(2,3) offsets, frame n\n"
    "                      takes index (n + jitter-start) mod phases\n"
    "  --phases N          Halton phase count (default 8)\n"
    "  --output-size WxH   the size the frames will be upscaled to: phases =\n"
    "                      ceil(8 (output width / render width)^2)\n"
    "  --jitter-start N    Halton index of frame 0 (default 0)\n"
    "  --depth MODE        reversed (1 at near, 0 at far; default) or forward (0 at near)\n"
    "  --far MODE          finite (default) or inf (an infinite far plane in the depth)\n"
    "  --mip-bias B        texture level-of-detail bias, -8..8 (default 0; a temporal\n"
    "                      upscaler's rule is log2(render / output) - 1)\n"
    "  --threads N         worker threads (default 0: one per CPU); output is identical\n"
    "  -q, --quiet         no progress line and no report\n"
    "  -o, --output DIR    the folder (made if missing; its parent must exist)\n"
    "\n"
    "Conventions: pixel (x, y) samples the screen position (x + 0.5 + jx, y + 0.5 + jy);\n"
    "motion = previous - current screen position in render pixels (y down), without\n"
    "jitter; see docs/SCENES.md. A failed run removes the files it created, and so does one\n"
    "stopped by Ctrl-C, SIGTERM or SIGHUP (after the frame being written lands; not even half\n"
    "a frame stays); files that were there before are only ever replaced whole. A symbolic\n"
    "link where a file goes is refused.\n"
    "Exit codes: 0 ok, 1 usage, 2 bad output (folder not writable), 3 internal error.\n";

static void list(void)
{
    printf("scenes:\n");
    for (int i = 0; i < scene_count(); i++)
        printf("  %-12s %s%s\n", scene_name(i), scene_is_test_only(i) ? "(tests) " : "",
               scene_description(i));
    printf("\npaths:\n");
    for (int i = 0; i < scene_path_count(); i++)
        printf("  %-12s %s\n", scene_path_name(i), scene_path_description(i));
    printf("\nseeds: training %u..%u, evaluation from %u (docs/SCENES.md lists the fixed "
           "evaluation set)\n", SCENE_TRAIN_SEED_MIN, SCENE_TRAIN_SEED_MAX, SCENE_EVAL_SEED_MIN);
}

typedef struct progress_state {
    cli_progress *bar;
    long frame, frames;
} progress_state;

static void on_progress(void *priv, double fraction)
{
    progress_state *p = priv;
    cli_progress_update(p->bar, ((double)p->frame + fraction) / (double)p->frames, "frame %ld/%ld",
                        p->frame + 1, p->frames);
}

static int run_render(int argc, char **argv)
{
    const char *cmd = "render";
    const char *scene_s = NULL, *size_s = NULL, *spp_s = NULL, *frames_s = NULL, *fps_s = NULL;
    const char *time_s = NULL, *path_s = NULL, *seed_s = NULL, *jitter_s = NULL, *phases_s = NULL;
    const char *outsize_s = NULL, *jstart_s = NULL, *depth_s = NULL, *far_s = NULL;
    const char *bias_s = NULL, *out_s = NULL, *sheet_s = NULL;
    bool do_list = false;
    cli_common common = { 0 };
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    while (cli_args_next(&a)) {
        if (cli_args_positional(&a)) {
            cli_args_take(&a, &scene_s, "scene");
        } else if (cli_common_option(&a, &common, CLI_OPT_THREADS)) {
        } else if (cli_args_option(&a, "--size"))
            size_s = a.value;
        else if (cli_args_option(&a, "--spp"))
            spp_s = a.value;
        else if (cli_args_option(&a, "--frames"))
            frames_s = a.value;
        else if (cli_args_option(&a, "--fps"))
            fps_s = a.value;
        else if (cli_args_option(&a, "--time"))
            time_s = a.value;
        else if (cli_args_option(&a, "--path"))
            path_s = a.value;
        else if (cli_args_option(&a, "--seed"))
            seed_s = a.value;
        else if (cli_args_option(&a, "--jitter-start"))
            jstart_s = a.value;
        else if (cli_args_option(&a, "--jitter"))
            jitter_s = a.value;
        else if (cli_args_option(&a, "--phases"))
            phases_s = a.value;
        else if (cli_args_option(&a, "--output-size"))
            outsize_s = a.value;
        else if (cli_args_option(&a, "--depth"))
            depth_s = a.value;
        else if (cli_args_option(&a, "--far"))
            far_s = a.value;
        else if (cli_args_option(&a, "--mip-bias"))
            bias_s = a.value;
        else if (cli_args_option(&a, "--output") || cli_args_option(&a, "-o"))
            out_s = a.value;
        else if (cli_args_option(&a, "--contact-sheet"))
            sheet_s = a.value;
        else if (cli_args_flag(&a, "--list"))
            do_list = true;
        else
            return cli_args_unknown(&a);
    }
    if (a.failed)
        return CLI_EXIT_USAGE;
    const bool quiet = common.quiet;
    if (do_list) {
        if (scene_s || out_s || sheet_s)
            return cli_usage(cmd, "--list takes no other arguments");
        list();
        return CLI_EXIT_OK;
    }

    /* values */
    int w = 0, h = 0;
    if (size_s && !cli_parse_size(size_s, &w, &h))
        return cli_usage(cmd, "--size '%s': expected WxH, each 1..%d", size_s, UPF_MAX_IMAGE_DIMENSION);
    long spp = 1, frames = 1, seed = 0, phases = 8, jstart = 0;
    double fps = 30.0, t0 = 0.0, bias = 0.0;
    if (spp_s && !cli_parse_int(spp_s, 1, SCENE_MAX_SPP, &spp))
        return cli_usage(cmd, "--spp '%s': expected 1..%d samples per pixel", spp_s, SCENE_MAX_SPP);
    if (frames_s && !cli_parse_int(frames_s, 1, 100000, &frames))
        return cli_usage(cmd, "--frames '%s': expected 1..100000", frames_s);
    if (fps_s && !cli_parse_double(fps_s, 0.01, 10000.0, &fps))
        return cli_usage(cmd, "--fps '%s': expected a frame rate in 0.01..10000", fps_s);
    if (time_s && !cli_parse_double(time_s, -1e5, 1e5, &t0))
        return cli_usage(cmd, "--time '%s': expected seconds in -100000..100000", time_s);
    if (seed_s && !cli_parse_int(seed_s, 0, 4294967295L, &seed))
        return cli_usage(cmd, "--seed '%s': expected 0..4294967295", seed_s);
    if (bias_s && !cli_parse_double(bias_s, -8.0, 8.0, &bias))
        return cli_usage(cmd, "--mip-bias '%s': expected -8..8", bias_s);
    bool halton = false;
    if (jitter_s) {
        if (strcmp(jitter_s, "halton") == 0)
            halton = true;
        else if (strcmp(jitter_s, "none") != 0)
            return cli_usage(cmd, "--jitter '%s': expected halton or none", jitter_s);
    }
    if (phases_s && outsize_s)
        return cli_usage(cmd, "--phases and --output-size both set the phase count; give one");
    if (phases_s && !cli_parse_int(phases_s, 1, 1000000, &phases))
        return cli_usage(cmd, "--phases '%s': expected 1..1000000", phases_s);
    if (outsize_s) {
        int ow, oh;
        if (!cli_parse_size(outsize_s, &ow, &oh))
            return cli_usage(cmd, "--output-size '%s': expected WxH", outsize_s);
        if (!w)
            return cli_usage(cmd, "--output-size needs --size");
        int n;
        if (upf_jitter_phase_count(NULL, w, ow, &n) != UPF_OK)
            return cli_usage(cmd, "--output-size '%s': expected WxH", outsize_s);
        phases = n;
    }
    if (jstart_s && !cli_parse_int(jstart_s, 0, 1000000000L, &jstart))
        return cli_usage(cmd, "--jitter-start '%s': expected 0..1000000000", jstart_s);
    if ((phases_s || outsize_s || jstart_s) && !halton)
        return cli_usage(cmd, "--phases, --output-size and --jitter-start need --jitter halton");
    scene_depth_mode depth = SCENE_DEPTH_REVERSED;
    if (depth_s) {
        if (strcmp(depth_s, "forward") == 0)
            depth = SCENE_DEPTH_FORWARD;
        else if (strcmp(depth_s, "reversed") != 0)
            return cli_usage(cmd, "--depth '%s': expected reversed or forward", depth_s);
    }
    bool infinite = false;
    if (far_s) {
        if (strcmp(far_s, "inf") == 0)
            infinite = true;
        else if (strcmp(far_s, "finite") != 0)
            return cli_usage(cmd, "--far '%s': expected inf or finite", far_s);
    }
    const char *path = path_s ? path_s : "still";
    bool path_ok = false;
    for (int i = 0; i < scene_path_count(); i++)
        path_ok |= strcmp(scene_path_name(i), path) == 0;
    if (!path_ok)
        return cli_usage(cmd, "--path '%s': expected still, pan, orbit, walk, turn or cut", path);

    if (sheet_s) {
        if (scene_s || out_s)
            return cli_usage(cmd, "--contact-sheet takes no scene and no -o");
        if (!w) {
            w = 480;
            h = 270;
        }
        cli_output sheet;
        int rc = cli_check_output(cmd, sheet_s, NULL, &sheet); /* before any work */
        if (rc != CLI_EXIT_OK)
            return rc;
        if (sheet.to_stdout || sheet.type != IMAGEIO_PNG)
            return cli_usage(cmd, "--contact-sheet '%s' must be a .png file", sheet_s);
        upf_context *ctx = cli_context_for(cmd, &common);
        if (!ctx)
            return CLI_EXIT_INTERNAL;
        char err[IMAGEIO_ERR_SIZE];
        upf_result r = scene_contact_sheet(ctx, sheet_s, w, h, (int)spp, err);
        upf_context_destroy(&ctx);
        if (r == UPF_OK)
            cli_report("wrote %s (the contact sheet)\n", sheet_s);
        return r == UPF_OK ? CLI_EXIT_OK : cli_fail(cmd, cli_exit_code(r), "%s", err);
    }

    if (!scene_s)
        return cli_usage(cmd, "needs a scene name (see 'upframe render --list')");
    bool scene_ok = false;
    for (int i = 0; i < scene_count(); i++)
        scene_ok |= strcmp(scene_name(i), scene_s) == 0;
    if (!scene_ok)
        return cli_usage(cmd, "unknown scene '%s' (see 'upframe render --list')", scene_s);
    if (!size_s)
        return cli_usage(cmd, "needs --size WxH");
    if (!out_s)
        return cli_usage(cmd, "needs -o DIR, the folder to write into");
    if ((double)w * (double)h * 52.0 > 8e9)
        return cli_usage(cmd, "--size %dx%d: too many pixels for the frame buffers", w, h);

    /* Every file this run writes is planned in an output set (outset.h): a failure, Ctrl-C
     * or SIGTERM removes the files it created, not even half a frame stays; files of an
     * earlier run that it replaced keep their new content. */
    int rc = CLI_EXIT_OK, nfiles = 0;
    while (scene_frame_files[nfiles])
        nfiles++;
    cli_outset *set = cli_outset_open(cmd, out_s, frames * nfiles, &rc);
    for (long f = 0; set && f < frames; f++)
        for (int i = 0; i < nfiles; i++) {
            char name[CLI_OUTSET_NAME_MAX];
            snprintf(name, sizeof name, "%04ld.%s", f, scene_frame_files[i]);
            cli_outset_add(set, name);
        }
    if (set)
        rc = cli_outset_check(cmd, set);
    if (rc != CLI_EXIT_OK) {
        cli_outset_close(&set, false);
        return rc;
    }
    upf_context *ctx = cli_context_for(cmd, &common);
    if (!ctx) {
        cli_outset_close(&set, false);
        return CLI_EXIT_INTERNAL;
    }
    scene *sc = NULL;
    upf_result r = scene_create(ctx, scene_s, (uint32_t)seed, &sc);
    size_t n = (size_t)w * (size_t)h;
    float *color = NULL, *hud = NULL, *dep = NULL, *mot = NULL;
    if (r == UPF_OK) {
        color = malloc(4 * n * sizeof(float));
        hud = malloc(4 * n * sizeof(float));
        dep = malloc(n * sizeof(float));
        mot = malloc(2 * n * sizeof(float));
        if (!color || !hud || !dep || !mot)
            rc = cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory for %dx%d frames", w, h);
    } else {
        rc = cli_fail_upf(cmd, ctx, r);
    }
    cli_progress bar;
    cli_progress_begin(&bar, "render", quiet);
    progress_state ps = { &bar, 0, frames };
    for (long f = 0; f < frames && rc == CLI_EXIT_OK; f++) {
        double jx = 0.0, jy = 0.0;
        long jindex = jstart + f;
        if (halton)
            upf_jitter_offset(NULL, jindex, (int)phases, &jx, &jy); /* arguments checked above */
        ps.frame = f;
        scene_buffers b = { color, hud, dep, mot };
        scene_camera cam;
        r = scene_render(sc, scene_view_params(.path = path, .time = t0 + (double)f / fps,
                                               .frame_interval = 1.0 / fps, .width = w, .height = h,
                                               .spp = (int)spp, .jitter_x = jx, .jitter_y = jy,
                                               .mip_bias = bias, .depth = depth,
                                               .infinite_far = infinite, .progress = on_progress,
                                               .progress_priv = &ps),
                         &b, &cam);
        if (r != UPF_OK) {
            rc = cli_fail_upf(cmd, ctx, r);
            break;
        }
        scene_frame_info info = { scene_s, (uint32_t)seed, path, f, fps, w, h, (int)spp, bias,
                                  halton ? "halton" : "none", halton ? jindex : 0,
                                  halton ? (int)phases : 0, NULL };
        char stem[32], err[IMAGEIO_ERR_SIZE];
        snprintf(stem, sizeof stem, "%04ld", f);
        /* the frame's files land and are recorded with the signals held: a Ctrl-C takes
         * effect once the frame is written, and the handler knows every file of it */
        cli_outset_hold_signals(set, true);
        r = scene_write_frame(out_s, stem, &info, &b, &cam, err);
        for (int i = 0; r == UPF_OK && i < nfiles; i++)
            cli_outset_landed(set, f * nfiles + i);
        cli_outset_hold_signals(set, false);
        if (r != UPF_OK) {
            rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
            break;
        }
    }
    cli_progress_end(&bar);
    cli_outset_close(&set, rc == CLI_EXIT_OK);
    if (rc != CLI_EXIT_OK) {
        cli_undo_now();
    } else {
        cli_undo_forget();
        cli_report("wrote %ld frame%s of %s (%dx%d, %ld spp) in %s\n", frames,
                   frames == 1 ? "" : "s", scene_s, w, h, spp, out_s);
    }
    free(color);
    free(hud);
    free(dep);
    free(mot);
    scene_destroy(&sc);
    upf_context_destroy(&ctx);
    return rc;
}

const cli_command cli_cmd_render = {
    "render", run_render, "render test frames of a scene: colour, HUD, depth, motion, camera",
    render_help
};
