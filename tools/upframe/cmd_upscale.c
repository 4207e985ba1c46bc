/* cmd_upscale.c: `upframe upscale`: reads a frame (a file, or a built-in frame), upscales it
 * with the chosen engine, writes PNG or PFM, and prints where it went and how long each step
 * took. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "imageio/image_io.h"
#include "builtin_frame.h"

static const char upscale_help[] =
    "usage: upframe upscale IN -o OUT (--scale R | --size WxH) [options]\n"
    "\n"
    "Makes IN bigger (or smaller) and writes OUT.\n"
    "\n"
    "  IN                 a PNG (8 or 16 bit), JPEG or PFM file, or 'builtin' for a\n"
    "                     built-in frame: a scene of the scene renderer at 960x540, one\n"
    "                     sample per pixel ('builtin:NAME' picks the scene: courtyard\n"
    "                     (the default), forest, street, interior)\n"
    "  -o, --output OUT   the file to write: .png (sRGB) or .pfm (linear float)\n"
    "  --scale R          output size = input size x R, rounded (R in 0.01..16)\n"
    "  --size WxH         output size in pixels (each side 1..16384)\n"
    "  --engine NAME      spatial: the NDSR engine (SMAA + network; ratios 1..4);\n"
    "                     lanczos, bicubic (Catmull-Rom) or bilinear: classic resampling\n"
    "                     in linear light. Default: spatial when the build has its\n"
    "                     models and the ratio is 1..4, else lanczos\n"
    "  --sharpness K      spatial: the final sharpen, 0 (off) .. 4; 1 (default) is the\n"
    "                     shipped look\n"
    "  --model FILE       spatial: use the models in FILE instead of the built-in ones\n"
    "  --debug-passes DIR spatial: also write each intermediate image to DIR as PNG\n"
    "                     (edges, weights, blend, detail)\n"
    "  --bits 8|16        PNG bit depth (default: the input PNG's, else 8)\n"
    "  --threads N        worker threads (default: one per CPU)\n"
    "  --quiet            print nothing on success\n"
    "\n"
    "It prints the output's path and size and the time of each step (read, upscale, write;\n"
    "for the spatial engine each of its passes).\n"
    "Exit codes: 0 ok, 1 usage, 2 bad input (unreadable or corrupt IN, bad size, unwritable\n"
    "OUT), 3 internal error. A failed run leaves no OUT behind.\n"
    "\n"
    "examples:\n"
    "  upframe upscale shot.png -o shot-2x.png --scale 2\n"
    "  upframe upscale builtin:street -o demo.png --scale 2 --engine bicubic\n";

typedef struct engine_name {
    const char *name;
    upf_filter filter; /* UPF_FILTER_DEFAULT for the spatial engine */
} engine_name;

static const engine_name engines[] = {
    { "spatial", UPF_FILTER_DEFAULT },
    { "lanczos", UPF_FILTER_LANCZOS3 },
    { "bicubic", UPF_FILTER_BICUBIC },
    { "bilinear", UPF_FILTER_BILINEAR },
};

/* Loads IN into `img` as a colour image: a file, or a built-in frame. */
static int load_input(const char *in, imageio_image *img, int *png_bits, int threads)
{
    char err[IMAGEIO_ERR_SIZE];
    *png_bits = 8;
    if (strcmp(in, "builtin") == 0 || strncmp(in, "builtin:", 8) == 0) {
        upf_result r = builtin_frame_render(in[7] ? in + 8 : NULL, BUILTIN_FRAME_WIDTH,
                                            BUILTIN_FRAME_HEIGHT, threads, img, err);
        return r == UPF_OK ? CLI_EXIT_OK : cli_fail("upscale", cli_exit_code(r), "%s", err);
    }
    upf_result r = imageio_read(in, NULL, img, err);
    if (r != UPF_OK)
        return cli_fail("upscale", cli_exit_code(r), "%s", err);
    if (img->type == IMAGEIO_PNG)
        *png_bits = img->bit_depth;
    if (img->img.format == UPF_FORMAT_R32F) {
        /* A grey PFM: spread it to RGBA so every engine can take it. */
        imageio_image rgba;
        r = imageio_alloc(&rgba, img->img.width, img->img.height, UPF_FORMAT_RGBA32F, err);
        if (r != UPF_OK) {
            imageio_free(img);
            return cli_fail("upscale", cli_exit_code(r), "%s", err);
        }
        const float *src = img->img.data;
        float *dst = rgba.img.data;
        for (size_t i = 0; i < (size_t)img->img.width * img->img.height; i++)
            dst[4 * i] = dst[4 * i + 1] = dst[4 * i + 2] = src[i], dst[4 * i + 3] = 1.0f;
        rgba.type = img->type;
        imageio_free(img);
        *img = rgba;
    }
    return CLI_EXIT_OK;
}

/* Loads a model file for --model. */
static upf_models *load_models(upf_context *ctx, const char *path, int *rc)
{
    char err[IMAGEIO_ERR_SIZE];
    void *data;
    size_t size;
    upf_result r = imageio_slurp(path, (size_t)1 << 20, &data, &size, err);
    if (r != UPF_OK) {
        *rc = cli_fail("upscale", cli_exit_code(r), "%s", err);
        return NULL;
    }
    upf_models *m = upf_models_load(ctx, data, size);
    free(data);
    if (!m) {
        const char *msg;
        r = upf_context_last_error(ctx, &msg);
        *rc = cli_fail("upscale", cli_exit_code(r), "%s: %s", path, msg);
    }
    return m;
}

/* Writes the spatial engine's intermediate images into DIR (--debug-passes). */
static int write_debug_passes(upf_spatial *sp, upf_context *ctx, const char *dir)
{
    static const upf_spatial_pass passes[] = { UPF_SPATIAL_PASS_EDGES, UPF_SPATIAL_PASS_WEIGHTS,
                                               UPF_SPATIAL_PASS_BLEND, UPF_SPATIAL_PASS_DETAIL };
    char err[IMAGEIO_ERR_SIZE], path[4096];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cli_fail("upscale", CLI_EXIT_BAD_INPUT, "--debug-passes %s: cannot create the "
                        "folder: %s", dir, strerror(errno));
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++) {
        int w, h;
        if (upf_spatial_debug_size(sp, passes[i], &w, &h) != UPF_OK)
            continue; /* a pass that did not run has no picture */
        imageio_image pic;
        upf_result r = imageio_alloc(&pic, w, h, UPF_FORMAT_RGBA8_SRGB, err);
        if (r != UPF_OK)
            return cli_fail("upscale", cli_exit_code(r), "%s", err);
        r = upf_spatial_debug_image(sp, passes[i], &pic.img);
        if (r == UPF_OK) {
            snprintf(path, sizeof path, "%s/%s.png", dir, upf_spatial_pass_name(passes[i]));
            r = imageio_write_png(path, &pic.img, 8, err);
            imageio_free(&pic);
            if (r != UPF_OK)
                return cli_fail("upscale", cli_exit_code(r), "%s", err);
        } else {
            imageio_free(&pic);
            return cli_fail_upf("upscale", ctx, r);
        }
    }
    return CLI_EXIT_OK;
}

/* The spatial engine from src to dst; prints nothing. */
static int run_spatial(upf_context *ctx, const upf_image *src, const upf_image *dst,
                       double sharpness, const char *model_path, const char *debug_dir,
                       double pass_ms[UPF_SPATIAL_PASS_COUNT], int *step, double *seconds)
{
    int rc = CLI_EXIT_OK;
    double t0 = cli_now();
    upf_models *models = NULL;
    if (model_path && !(models = load_models(ctx, model_path, &rc)))
        return rc;
    upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(
        .src_width = src->width, .src_height = src->height, .dst_width = dst->width,
        .dst_height = dst->height, .sharpness = (float)sharpness, .models = models));
    upf_result r = sp ? upf_spatial_run(sp, src, dst) : upf_context_last_error(ctx, NULL);
    if (r != UPF_OK) {
        rc = cli_fail_upf("upscale", ctx, r);
    } else {
        *seconds = cli_now() - t0; /* the debug pictures are not the engine's time */
        upf_spatial_timings(sp, pass_ms);
        *step = upf_spatial_model_step(sp);
        if (debug_dir)
            rc = write_debug_passes(sp, ctx, debug_dir);
    }
    upf_spatial_destroy(&sp);
    upf_models_destroy(&models);
    return rc;
}

/* Whether the build has models the spatial engine can use for this ratio. */
static bool spatial_available(upf_context *ctx, int in_w, int in_h, int out_w, int out_h)
{
    if ((double)out_w < in_w || (double)out_h < in_h || out_w > 4.0 * in_w || out_h > 4.0 * in_h)
        return false;
    upf_models *m = upf_models_default(ctx);
    bool ok = m != NULL;
    upf_models_destroy(&m);
    return ok;
}

static int run_upscale(int argc, char **argv)
{
    const char *cmd = "upscale", *in = NULL, *out = NULL, *scale_s = NULL, *size_s = NULL;
    const char *engine_s = NULL, *bits_s = NULL, *threads_s = NULL, *sharp_s = NULL;
    const char *model_path = NULL, *debug_dir = NULL;
    bool quiet = false;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int err = 0;
        if (cli_option(argc, argv, &i, "-o", &v, &err, cmd) ||
            cli_option(argc, argv, &i, "--output", &v, &err, cmd)) {
            out = v;
        } else if (cli_option(argc, argv, &i, "--scale", &v, &err, cmd)) {
            scale_s = v;
        } else if (cli_option(argc, argv, &i, "--size", &v, &err, cmd)) {
            size_s = v;
        } else if (cli_option(argc, argv, &i, "--engine", &v, &err, cmd)) {
            engine_s = v;
        } else if (cli_option(argc, argv, &i, "--bits", &v, &err, cmd)) {
            bits_s = v;
        } else if (cli_option(argc, argv, &i, "--threads", &v, &err, cmd)) {
            threads_s = v;
        } else if (cli_option(argc, argv, &i, "--sharpness", &v, &err, cmd)) {
            sharp_s = v;
        } else if (cli_option(argc, argv, &i, "--model", &v, &err, cmd)) {
            model_path = v;
        } else if (cli_option(argc, argv, &i, "--debug-passes", &v, &err, cmd)) {
            debug_dir = v;
        } else if (cli_flag(argv, i, "--quiet")) {
            quiet = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage(cmd, "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else {
            return cli_usage(cmd, "unexpected argument '%s' (one input only)", argv[i]);
        }
        if (err)
            return CLI_EXIT_USAGE;
    }
    if (!in)
        return cli_usage(cmd, "no input given (a PNG, JPEG or PFM file, or 'builtin')");
    if (!out)
        return cli_usage(cmd, "no output given (-o OUT.png or OUT.pfm)");
    if (!scale_s == !size_s)
        return cli_usage(cmd, "give exactly one of --scale R and --size WxH");
    imageio_type out_type = imageio_type_from_path(out);
    if (out_type != IMAGEIO_PNG && out_type != IMAGEIO_PFM)
        return cli_usage(cmd, "output '%s' must end in .png or .pfm", out);
    const engine_name *engine = NULL;
    for (size_t k = 0; engine_s && k < sizeof engines / sizeof engines[0]; k++)
        if (strcmp(engine_s, engines[k].name) == 0)
            engine = &engines[k];
    if (engine_s && !engine)
        return cli_usage(cmd, "unknown engine '%s' (expected spatial, lanczos, bicubic or "
                         "bilinear)", engine_s);
    double sharpness = 1.0;
    if (sharp_s && !cli_parse_double(sharp_s, 0, UPF_SPATIAL_SHARPNESS_MAX, &sharpness))
        return cli_usage(cmd, "--sharpness '%s' must be a number in 0..%g", sharp_s,
                         (double)UPF_SPATIAL_SHARPNESS_MAX);
    bool spatial_only = sharp_s || model_path || debug_dir;
    if (engine && engine->filter != UPF_FILTER_DEFAULT && spatial_only)
        return cli_usage(cmd, "--sharpness, --model and --debug-passes go with --engine "
                         "spatial, not %s", engine->name);
    double scale = 0;
    int out_w = 0, out_h = 0;
    if (scale_s && !cli_parse_double(scale_s, 0.01, 16, &scale))
        return cli_usage(cmd, "--scale '%s' is not a number in 0.01..16", scale_s);
    if (size_s && !cli_parse_size(size_s, &out_w, &out_h))
        return cli_usage(cmd, "--size '%s' is not WxH with each side in 1..%d", size_s,
                         UPF_MAX_IMAGE_DIMENSION);
    long bits = 0, threads = 0;
    if (bits_s && (!cli_parse_int(bits_s, 8, 16, &bits) || (bits != 8 && bits != 16)))
        return cli_usage(cmd, "--bits '%s' must be 8 or 16", bits_s);
    if (threads_s && !cli_parse_int(threads_s, 1, 64, &threads))
        return cli_usage(cmd, "--threads '%s' must be 1..64", threads_s);

    double t0 = cli_now();
    imageio_image src;
    int png_bits;
    int rc = load_input(in, &src, &png_bits, (int)threads);
    if (rc != CLI_EXIT_OK)
        return rc;
    double t_read = cli_now() - t0;
    int in_w = src.img.width, in_h = src.img.height;
    if (scale_s) {
        double w = in_w * scale + 0.5, h = in_h * scale + 0.5;
        if (w < 1 || h < 1 || w >= UPF_MAX_IMAGE_DIMENSION + 1.0 || h >= UPF_MAX_IMAGE_DIMENSION + 1.0) {
            imageio_free(&src);
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s is %dx%d; x%g gives %.0fx%.0f (expected "
                            "each side in 1..%d)", in, in_w, in_h, scale, w - 0.5, h - 0.5,
                            UPF_MAX_IMAGE_DIMENSION);
        }
        out_w = (int)w;
        out_h = (int)h;
    }

    upf_context *ctx = cli_context(cmd, (int)threads);
    if (!ctx) {
        imageio_free(&src);
        return CLI_EXIT_INTERNAL;
    }
    char err[IMAGEIO_ERR_SIZE];
    imageio_image dst;
    int write_bits = bits ? (int)bits : png_bits;
    upf_format dst_format = out_type == IMAGEIO_PFM ? UPF_FORMAT_RGBA32F
                            : write_bits == 16      ? UPF_FORMAT_RGBA16_SRGB
                                                    : UPF_FORMAT_RGBA8_SRGB;
    upf_result r = imageio_alloc(&dst, out_w, out_h, dst_format, err);
    if (r != UPF_OK) {
        rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
        goto done_src;
    }

    if (!engine) /* the best engine the build has for this ratio */
        engine = &engines[(spatial_only || spatial_available(ctx, in_w, in_h, out_w, out_h)) ? 0 : 1];

    double t1 = cli_now(), pass_ms[UPF_SPATIAL_PASS_COUNT] = { 0 }, t_upscale = 0;
    int step = 0;
    if (engine->filter == UPF_FILTER_DEFAULT) {
        rc = run_spatial(ctx, &src.img, &dst.img, sharpness, model_path, debug_dir, pass_ms,
                         &step, &t_upscale);
        if (rc != CLI_EXIT_OK)
            goto done_dst;
    } else {
        upf_resampler *rs = upf_resampler_create(ctx, upf_resampler_params(
            .src_width = in_w, .src_height = in_h, .dst_width = out_w, .dst_height = out_h,
            .filter = engine->filter));
        if (!rs) {
            rc = cli_fail_upf(cmd, ctx, upf_context_last_error(ctx, NULL));
            goto done_dst;
        }
        r = upf_resampler_run(rs, &src.img, &dst.img);
        upf_resampler_destroy(&rs);
        if (r != UPF_OK) {
            rc = cli_fail_upf(cmd, ctx, r);
            goto done_dst;
        }
        t_upscale = cli_now() - t1;
    }

    double t2 = cli_now();
    r = imageio_write(out, &dst.img, write_bits, err);
    if (r != UPF_OK) {
        rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
        goto done_dst;
    }
    double t_write = cli_now() - t2;
    if (!quiet) {
        printf("wrote %s (%dx%d %s, %s, from %dx%d)\n", out, out_w, out_h,
               out_type == IMAGEIO_PFM ? "PFM" : write_bits == 16 ? "16-bit PNG" : "8-bit PNG",
               engine->name, in_w, in_h);
        int threads_used = upf_context_threads(ctx);
        bool builtin = strncmp(in, "builtin", 7) == 0;
        printf("  %s   %8.1f ms%s\n  upscale  %8.1f ms  (%s, %d thread%s)\n",
               builtin ? "render" : "read  ", t_read * 1e3,
               builtin ? "  (the built-in frame: the scene renderer, 1 sample per pixel)" : "",
               t_upscale * 1e3, engine->name, threads_used, threads_used == 1 ? "" : "s");
        if (step) {
            printf("           model step %d (ratio %.3f), sharpness %g\n", step, 12.0 / step,
                   sharpness);
            for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++)
                printf("    %-8s %8.1f ms\n", upf_spatial_pass_name((upf_spatial_pass)p),
                       pass_ms[p]);
        }
        printf("  write    %8.1f ms\n", t_write * 1e3);
        if (debug_dir)
            printf("  intermediate images in %s/\n", debug_dir);
    }
    rc = CLI_EXIT_OK;
done_dst:
    imageio_free(&dst);
done_src:
    imageio_free(&src);
    upf_context_destroy(&ctx);
    return rc;
}

const cli_command cli_cmd_upscale = {
    "upscale", run_upscale, "make a frame bigger: upframe upscale IN -o OUT --scale 2",
    upscale_help,
};
