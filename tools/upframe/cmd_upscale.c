/* cmd_upscale.c: `upframe upscale`: reads a frame (a file, or a built-in frame), upscales it
 * with the chosen engine, writes PNG or PFM, and prints where it went and how long each step
 * took. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "imageio/image_io.h"
#include "testcard.h"

static const char upscale_help[] =
    "usage: upframe upscale IN -o OUT (--scale R | --size WxH) [options]\n"
    "\n"
    "Makes IN bigger (or smaller) and writes OUT.\n"
    "\n"
    "  IN                 a PNG (8 or 16 bit), JPEG or PFM file, or 'builtin' for the\n"
    "                     built-in test frame (960x540; 'builtin:testcard' names it)\n"
    "  -o, --output OUT   the file to write: .png (sRGB) or .pfm (linear float)\n"
    "  --scale R          output size = input size x R, rounded (R in 0.01..16)\n"
    "  --size WxH         output size in pixels (each side 1..16384)\n"
    "  --engine NAME      lanczos (default), bicubic (Catmull-Rom) or bilinear; all\n"
    "                     resample in linear light\n"
    "  --bits 8|16        PNG bit depth (default: the input PNG's, else 8)\n"
    "  --threads N        worker threads (default: one per CPU)\n"
    "  --quiet            print nothing on success\n"
    "\n"
    "It prints the output's path and size and the time of each step (read, upscale, write).\n"
    "Exit codes: 0 ok, 1 usage, 2 bad input (unreadable or corrupt IN, bad size, unwritable\n"
    "OUT), 3 internal error. A failed run leaves no OUT behind.\n"
    "\n"
    "examples:\n"
    "  upframe upscale shot.png -o shot-2x.png --scale 2\n"
    "  upframe upscale builtin -o demo.png --scale 2 --engine bicubic\n";

typedef struct engine_name {
    const char *name;
    upf_filter filter;
} engine_name;

static const engine_name engines[] = {
    { "lanczos", UPF_FILTER_LANCZOS3 },
    { "bicubic", UPF_FILTER_BICUBIC },
    { "bilinear", UPF_FILTER_BILINEAR },
};

/* Loads IN into `img` as a colour image: a file, or a built-in frame. */
static int load_input(const char *in, imageio_image *img, int *png_bits)
{
    char err[IMAGEIO_ERR_SIZE];
    *png_bits = 8;
    if (strcmp(in, "builtin") == 0 || strcmp(in, "builtin:testcard") == 0) {
        upf_result r = imageio_alloc(img, 960, 540, UPF_FORMAT_RGBA32F, err);
        if (r != UPF_OK)
            return cli_fail("upscale", cli_exit_code(r), "%s", err);
        testcard_render(img->img.data, 960, 540);
        return CLI_EXIT_OK;
    }
    if (strncmp(in, "builtin:", 8) == 0)
        return cli_fail("upscale", CLI_EXIT_BAD_INPUT, "unknown built-in frame '%s' (expected "
                        "builtin or builtin:testcard)", in + 8);
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

static int run_upscale(int argc, char **argv)
{
    const char *cmd = "upscale", *in = NULL, *out = NULL, *scale_s = NULL, *size_s = NULL;
    const char *engine_s = "lanczos", *bits_s = NULL, *threads_s = NULL;
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
    for (size_t k = 0; k < sizeof engines / sizeof engines[0]; k++)
        if (strcmp(engine_s, engines[k].name) == 0)
            engine = &engines[k];
    if (!engine)
        return cli_usage(cmd, "unknown engine '%s' (expected lanczos, bicubic or bilinear)",
                         engine_s);
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
    int rc = load_input(in, &src, &png_bits);
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

    double t1 = cli_now();
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
    double t_upscale = cli_now() - t1;

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
        printf("  read     %8.1f ms\n  upscale  %8.1f ms  (%s, %d threads)\n  write    %8.1f ms\n",
               t_read * 1e3, t_upscale * 1e3, engine->name, upf_context_threads(ctx),
               t_write * 1e3);
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
