/* cmd_compare.c: `upframe compare`: how close image B is to reference A (PSNR, SSIM, FLIP)
 * and how much detail each has, as text or JSON; optionally the FLIP error map as a PNG. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "imageio/image_io.h"

static const char compare_help[] =
    "usage: upframe compare A B [--crop X,Y,W,H] [--metric LIST] [--json] [options]\n"
    "\n"
    "Compares image B with the reference A (same size; PNG, JPEG or PFM; one of them may\n"
    "be '-', standard input).\n"
    "\n"
    "  --metric LIST      comma-separated, of: psnr, ssim, flip, detail (default\n"
    "                     psnr,ssim,flip)\n"
    "                       psnr    dB on sRGB-encoded RGB and on luma (peak 1)\n"
    "                       ssim    mean SSIM of luma (11x11 Gaussian, sigma 1.5)\n"
    "                       flip    NVIDIA's LDR-FLIP: mean error (0 = identical) and its\n"
    "                               weighted median and quartiles\n"
    "                       detail  RMS of the luma Laplacian (0..255 units) of A and of B\n"
    "  --crop X,Y,W,H     measure only this rectangle\n"
    "  --ppd N            FLIP's pixels per degree (default 67.02: a 4K screen 0.7 m wide\n"
    "                     seen from 0.7 m), 2..1000\n"
    "  --flip-map OUT.png write FLIP's per-pixel error as a colour map (black 0 .. white 1)\n"
    "  --json             print one JSON object instead of text (numbers as numbers; an\n"
    "                     infinite PSNR is null with \"rgb_infinite\": true; docs/CLI.md)\n"
    "  --max-pixels N     the largest picture read (default 134217728 = 2^27)\n"
    "  --threads N        worker threads (default 0: one per CPU)\n"
    "  -q, --quiet        no progress line (the measurements are still printed)\n"
    "\n"
    "Linear images (PFM) are clamped to [0,1] and sRGB-encoded before measuring. Pictures\n"
    "smaller than SSIM's 11x11 window get the other metrics; SSIM says why it is absent.\n"
    "Metadata (EXIF orientation, ICC profiles, PNG gAMA) is not applied.\n"
    "Exit codes: 0 ok, 1 usage, 2 bad input (unreadable file, different sizes, crop outside\n"
    "the image), 3 internal error.\n";

enum { M_PSNR = 1, M_SSIM = 2, M_FLIP = 4, M_DETAIL = 8 };

static bool parse_metrics(const char *s, unsigned *out)
{
    *out = 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (strcmp(tok, "psnr") == 0)
            *out |= M_PSNR;
        else if (strcmp(tok, "ssim") == 0)
            *out |= M_SSIM;
        else if (strcmp(tok, "flip") == 0)
            *out |= M_FLIP;
        else if (strcmp(tok, "detail") == 0)
            *out |= M_DETAIL;
        else
            return false;
    }
    return *out != 0;
}

/* A colour ramp for error maps, from black through red and yellow to white, written here
 * (piecewise linear through five anchors; sRGB-encoded 8-bit output). */
static void ramp(float e, uint8_t *rgb)
{
    static const float anchors[5][3] = {
        { 0, 0, 0 }, { 0.45f, 0.05f, 0.45f }, { 0.9f, 0.2f, 0.1f }, { 1, 0.8f, 0.1f }, { 1, 1, 1 }
    };
    e = e < 0 ? 0 : e > 1 ? 1 : e;
    float t = e * 4;
    int i = t >= 4 ? 3 : (int)t;
    float f = t - (float)i;
    for (int c = 0; c < 3; c++)
        rgb[c] = (uint8_t)(255.0f * (anchors[i][c] * (1 - f) + anchors[i + 1][c] * f) + 0.5f);
}

static int write_flip_map(const char *path, const upf_image *map)
{
    char err[IMAGEIO_ERR_SIZE];
    imageio_image png;
    upf_result r = imageio_alloc(&png, map->width, map->height, UPF_FORMAT_RGBA8_SRGB, err);
    if (r == UPF_OK) {
        const float *e = map->data;
        uint8_t *p = png.img.data;
        for (size_t i = 0; i < (size_t)map->width * map->height; i++) {
            ramp(e[i], p + 4 * i);
            p[4 * i + 3] = 255;
        }
        r = imageio_write_png(path, &png.img, 8, err);
        imageio_free(&png);
    }
    return r == UPF_OK ? CLI_EXIT_OK : cli_fail("compare", cli_exit_code(r), "%s", err);
}

static int run_compare(int argc, char **argv)
{
    const char *cmd = "compare", *paths[2] = { NULL, NULL }, *crop_s = NULL, *metric_s = NULL;
    const char *ppd_s = NULL, *map_path = NULL;
    cli_common common = { 0 };
    int npaths = 0;
    cli_args args;
    cli_args_init(&args, cmd, argc, argv);
    while (cli_args_next(&args)) {
        if (cli_args_positional(&args)) {
            if (npaths == 2)
                return cli_usage(cmd, "unexpected argument '%s' (two images: A B)", args.arg);
            paths[npaths++] = args.arg;
        } else if (cli_common_option(&args, &common,
                                     CLI_OPT_JSON | CLI_OPT_THREADS | CLI_OPT_MAX_PIXELS)) {
        } else if (cli_args_option(&args, "--crop")) {
            crop_s = args.value;
        } else if (cli_args_option(&args, "--metric")) {
            metric_s = args.value;
        } else if (cli_args_option(&args, "--ppd")) {
            ppd_s = args.value;
        } else if (cli_args_option(&args, "--flip-map")) {
            map_path = args.value;
        } else {
            return cli_args_unknown(&args);
        }
    }
    if (args.failed)
        return CLI_EXIT_USAGE;
    bool json = common.json;
    if (npaths != 2)
        return cli_usage(cmd, "needs two images, the reference A and the one to measure B");
    unsigned metrics = M_PSNR | M_SSIM | M_FLIP;
    if (metric_s && !parse_metrics(metric_s, &metrics))
        return cli_usage(cmd, "--metric '%s': expected a comma-separated list of psnr, ssim, "
                         "flip, detail", metric_s);
    upf_rect crop = { 0, 0, 0, 0 };
    if (crop_s && !cli_parse_rect(crop_s, &crop))
        return cli_usage(cmd, "--crop '%s' is not X,Y,W,H (X,Y >= 0, W,H >= 1)", crop_s);
    double ppd = 0;
    if (ppd_s && !cli_parse_double(ppd_s, 2, 1000, &ppd)) /* the library's range (flip.c) */
        return cli_usage(cmd, "--ppd '%s' must be a number in 2..1000", ppd_s);
    if (strcmp(paths[0], "-") == 0 && strcmp(paths[1], "-") == 0)
        return cli_usage(cmd, "only one of A and B can be '-' (standard input)");
    cli_output map_out;
    if (map_path) {
        if (imageio_type_from_path(map_path) != IMAGEIO_PNG)
            return cli_usage(cmd, "--flip-map '%s' must end in .png", map_path);
        int rc = cli_check_output(cmd, map_path, NULL, &map_out); /* before any work */
        if (rc != CLI_EXIT_OK)
            return rc;
        metrics |= M_FLIP;
    }

    cli_progress bar;
    cli_progress_begin(&bar, "compare", false);
    imageio_image img[2];
    char err[IMAGEIO_ERR_SIZE];
    for (int k = 0; k < 2; k++) {
        cli_progress_update(&bar, 0.1 * k, "reading %s", paths[k]);
        int rc = cli_read_image(cmd, paths[k], &common, &img[k]);
        if (rc != CLI_EXIT_OK) {
            cli_progress_end(&bar);
            if (k)
                imageio_free(&img[0]);
            return rc;
        }
    }
    const char *name[2] = { strcmp(paths[0], "-") ? paths[0] : "standard input",
                            strcmp(paths[1], "-") ? paths[1] : "standard input" };
    int rc = CLI_EXIT_OK;
    upf_context *ctx = NULL;
    imageio_image map = { 0 };
    const upf_image *a = &img[0].img, *b = &img[1].img;
    if (a->format == UPF_FORMAT_R32F || b->format == UPF_FORMAT_R32F) {
        rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: a grey PFM (depth) cannot be compared as "
                      "colour; expected a colour image", a->format == UPF_FORMAT_R32F ? name[0]
                                                                                       : name[1]);
        goto done;
    }
    if (a->width != b->width || a->height != b->height) {
        rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s is %dx%d but %s is %dx%d; expected the same "
                      "size", name[0], a->width, a->height, name[1], b->width, b->height);
        goto done;
    }
    ctx = cli_context_for(cmd, &common);
    if (!ctx) {
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    const upf_rect *cp = crop_s ? &crop : NULL;
    const int cw = crop_s ? crop.width : a->width, ch = crop_s ? crop.height : a->height;
    upf_psnr_result psnr = { 0 };
    double ssim = NAN, detail[2] = { 0, 0 };
    upf_flip_result flip = { 0 };
    upf_result r = UPF_OK;
    /* SSIM needs its 11x11 window inside the picture; smaller pictures get the others. */
    const bool ssim_fits = cw >= 11 && ch >= 11;
    char ssim_why[128] = "";
    if ((metrics & M_SSIM) && !ssim_fits)
        snprintf(ssim_why, sizeof ssim_why, "the %s is %dx%d, smaller than SSIM's 11x11 window",
                 crop_s ? "crop" : "picture", cw, ch);
    cli_progress_update(&bar, 0.2, "psnr");
    if ((metrics & M_PSNR) && r == UPF_OK)
        r = upf_metric_psnr(ctx, a, b, cp, &psnr);
    cli_progress_update(&bar, 0.3, "ssim");
    if ((metrics & M_SSIM) && ssim_fits && r == UPF_OK)
        r = upf_metric_ssim(ctx, a, b, cp, &ssim);
    cli_progress_update(&bar, 0.5, "flip");
    if ((metrics & M_FLIP) && r == UPF_OK) {
        const upf_image *mp = NULL;
        if (map_path) {
            r = imageio_alloc(&map, cw, ch, UPF_FORMAT_R32F, err);
            if (r != UPF_OK) {
                rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
                goto done;
            }
            mp = &map.img;
        }
        r = upf_metric_flip(ctx, a, b, cp, upf_flip_params(.pixels_per_degree = ppd), &flip, mp);
    }
    cli_progress_update(&bar, 0.9, "detail");
    if ((metrics & M_DETAIL) && r == UPF_OK)
        r = upf_metric_detail(ctx, a, cp, &detail[0]);
    if ((metrics & M_DETAIL) && r == UPF_OK)
        r = upf_metric_detail(ctx, b, cp, &detail[1]);
    cli_progress_end(&bar);
    if (r != UPF_OK) {
        rc = cli_fail_upf(cmd, ctx, r);
        goto done;
    }
    if (map_path && (rc = write_flip_map(map_path, &map.img)) != CLI_EXIT_OK)
        goto done;

    /* The measurements are the report, but asked for by name: printed even with -q. */
    if (json) {
        cli_json j;
        cli_json_begin(&j, stdout);
        cli_json_object(&j, NULL);
        cli_json_string(&j, "a", name[0]);
        cli_json_string(&j, "b", name[1]);
        cli_json_int(&j, "width", a->width);
        cli_json_int(&j, "height", a->height);
        if (crop_s) {
            cli_json_array(&j, "crop");
            cli_json_int(&j, NULL, crop.x);
            cli_json_int(&j, NULL, crop.y);
            cli_json_int(&j, NULL, crop.width);
            cli_json_int(&j, NULL, crop.height);
            cli_json_close(&j);
        }
        if (metrics & M_PSNR) {
            cli_json_object(&j, "psnr");
            cli_json_number(&j, "rgb", psnr.rgb);
            cli_json_bool(&j, "rgb_infinite", isinf(psnr.rgb));
            cli_json_number(&j, "luma", psnr.luma);
            cli_json_bool(&j, "luma_infinite", isinf(psnr.luma));
            cli_json_number(&j, "mse_rgb", psnr.mse_rgb);
            cli_json_number(&j, "mse_luma", psnr.mse_luma);
            cli_json_close(&j);
        }
        if (metrics & M_SSIM) {
            cli_json_number(&j, "ssim", ssim); /* null when absent */
            if (!ssim_fits)
                cli_json_string(&j, "ssim_absent", ssim_why);
        }
        if (metrics & M_FLIP) {
            cli_json_object(&j, "flip");
            cli_json_number(&j, "mean", flip.mean);
            cli_json_number(&j, "weighted_median", flip.weighted_median);
            cli_json_number(&j, "weighted_q1", flip.weighted_q1);
            cli_json_number(&j, "weighted_q3", flip.weighted_q3);
            cli_json_number(&j, "min", flip.min);
            cli_json_number(&j, "max", flip.max);
            cli_json_number(&j, "ppd", ppd ? ppd : 67.02);
            cli_json_close(&j);
        }
        if (metrics & M_DETAIL) {
            cli_json_object(&j, "detail");
            cli_json_number(&j, "a", detail[0]);
            cli_json_number(&j, "b", detail[1]);
            cli_json_close(&j);
        }
        cli_json_close(&j);
        cli_json_end(&j);
    } else {
        printf("%s vs %s (%dx%d", name[1], name[0], a->width, a->height);
        if (crop_s)
            printf(", crop %d,%d %dx%d", crop.x, crop.y, crop.width, crop.height);
        printf(")\n");
        if (metrics & M_PSNR) {
            if (isinf(psnr.rgb))
                printf("  psnr    inf  (identical%s)\n", isinf(psnr.luma) ? "" : " in RGB");
            else if (isinf(psnr.luma))
                printf("  psnr    %.3f dB  (luma inf: identical luma)\n", psnr.rgb);
            else
                printf("  psnr    %.3f dB  (luma %.3f dB)\n", psnr.rgb, psnr.luma);
        }
        if (metrics & M_SSIM) {
            if (ssim_fits)
                printf("  ssim    %.5f\n", ssim);
            else
                printf("  ssim    n/a (%s)\n", ssim_why);
        }
        if (metrics & M_FLIP)
            printf("  flip    %.5f  (weighted median %.5f, quartiles %.5f..%.5f, max %.5f)\n",
                   flip.mean, flip.weighted_median, flip.weighted_q1, flip.weighted_q3, flip.max);
        if (metrics & M_DETAIL)
            printf("  detail  A %.3f  B %.3f\n", detail[0], detail[1]);
        if (map_path)
            printf("  flip map written to %s\n", map_path);
    }
done:
    imageio_free(&map);
    imageio_free(&img[0]);
    imageio_free(&img[1]);
    upf_context_destroy(&ctx);
    return rc;
}

const cli_command cli_cmd_compare = {
    "compare", run_compare, "measure B against the reference A: PSNR, SSIM, FLIP, detail",
    compare_help,
};
