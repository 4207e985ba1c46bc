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
    "Compares image B with the reference A (same size; PNG, JPEG or PFM).\n"
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
    "                     seen from 0.7 m)\n"
    "  --flip-map OUT.png write FLIP's per-pixel error as a colour map (black 0 .. white 1)\n"
    "  --json             print one JSON object instead of text\n"
    "  --threads N        worker threads (default: one per CPU)\n"
    "\n"
    "Linear images (PFM) are clamped to [0,1] and sRGB-encoded before measuring.\n"
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

static void json_number(const char *key, double v, bool comma)
{
    if (isfinite(v))
        printf("\"%s\": %.6f%s", key, v, comma ? ", " : "");
    else
        printf("\"%s\": %s%s", key, v > 0 ? "\"inf\"" : "null", comma ? ", " : "");
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

static int run_compare(int argc, char **argv)
{
    const char *cmd = "compare", *paths[2] = { NULL, NULL }, *crop_s = NULL, *metric_s = NULL;
    const char *ppd_s = NULL, *map_path = NULL, *threads_s = NULL;
    bool json = false;
    int npaths = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int err = 0;
        if (cli_option(argc, argv, &i, "--crop", &v, &err, cmd)) {
            crop_s = v;
        } else if (cli_option(argc, argv, &i, "--metric", &v, &err, cmd)) {
            metric_s = v;
        } else if (cli_option(argc, argv, &i, "--ppd", &v, &err, cmd)) {
            ppd_s = v;
        } else if (cli_option(argc, argv, &i, "--flip-map", &v, &err, cmd)) {
            map_path = v;
        } else if (cli_option(argc, argv, &i, "--threads", &v, &err, cmd)) {
            threads_s = v;
        } else if (cli_flag(argv, i, "--json")) {
            json = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage(cmd, "unknown option '%s'", argv[i]);
        } else if (npaths < 2) {
            paths[npaths++] = argv[i];
        } else {
            return cli_usage(cmd, "unexpected argument '%s' (two images: A B)", argv[i]);
        }
        if (err)
            return CLI_EXIT_USAGE;
    }
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
    if (ppd_s && !cli_parse_double(ppd_s, 1, 1000, &ppd))
        return cli_usage(cmd, "--ppd '%s' must be a number in 1..1000", ppd_s);
    long threads = 0;
    if (threads_s && !cli_parse_int(threads_s, 1, 64, &threads))
        return cli_usage(cmd, "--threads '%s' must be 1..64", threads_s);
    if (map_path && imageio_type_from_path(map_path) != IMAGEIO_PNG)
        return cli_usage(cmd, "--flip-map '%s' must end in .png", map_path);
    if (map_path)
        metrics |= M_FLIP;

    imageio_image img[2];
    char err[IMAGEIO_ERR_SIZE];
    for (int k = 0; k < 2; k++) {
        upf_result r = imageio_read(paths[k], NULL, &img[k], err);
        if (r != UPF_OK) {
            if (k)
                imageio_free(&img[0]);
            return cli_fail(cmd, cli_exit_code(r), "%s", err);
        }
    }
    int rc = CLI_EXIT_OK;
    upf_context *ctx = NULL;
    imageio_image map = { 0 };
    const upf_image *a = &img[0].img, *b = &img[1].img;
    if (a->format == UPF_FORMAT_R32F || b->format == UPF_FORMAT_R32F) {
        rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: a grey PFM (depth) cannot be compared as "
                      "colour; expected a colour image", a->format == UPF_FORMAT_R32F ? paths[0]
                                                                                       : paths[1]);
        goto done;
    }
    if (a->width != b->width || a->height != b->height) {
        rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s is %dx%d but %s is %dx%d; expected the same "
                      "size", paths[0], a->width, a->height, paths[1], b->width, b->height);
        goto done;
    }
    ctx = cli_context(cmd, (int)threads);
    if (!ctx) {
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    const upf_rect *cp = crop_s ? &crop : NULL;
    upf_psnr_result psnr = { 0 };
    double ssim = 0, detail[2] = { 0, 0 };
    upf_flip_result flip = { 0 };
    upf_result r = UPF_OK;
    if ((metrics & M_PSNR) && r == UPF_OK)
        r = upf_metric_psnr(ctx, a, b, cp, &psnr);
    if ((metrics & M_SSIM) && r == UPF_OK)
        r = upf_metric_ssim(ctx, a, b, cp, &ssim);
    if ((metrics & M_FLIP) && r == UPF_OK) {
        const upf_image *mp = NULL;
        if (map_path) {
            int mw = crop_s ? crop.width : a->width, mh = crop_s ? crop.height : a->height;
            r = imageio_alloc(&map, mw, mh, UPF_FORMAT_R32F, err);
            if (r != UPF_OK) {
                rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
                goto done;
            }
            mp = &map.img;
        }
        r = upf_metric_flip(ctx, a, b, cp, upf_flip_params(.pixels_per_degree = ppd), &flip, mp);
    }
    if ((metrics & M_DETAIL) && r == UPF_OK)
        r = upf_metric_detail(ctx, a, cp, &detail[0]);
    if ((metrics & M_DETAIL) && r == UPF_OK)
        r = upf_metric_detail(ctx, b, cp, &detail[1]);
    if (r != UPF_OK) {
        rc = cli_fail_upf(cmd, ctx, r);
        goto done;
    }
    if (map_path && (rc = write_flip_map(map_path, &map.img)) != CLI_EXIT_OK)
        goto done;

    if (json) {
        printf("{\"a\": ");
        json_string(paths[0]);
        printf(", \"b\": ");
        json_string(paths[1]);
        printf(", \"width\": %d, \"height\": %d", a->width, a->height);
        if (crop_s)
            printf(", \"crop\": [%d, %d, %d, %d]", crop.x, crop.y, crop.width, crop.height);
        if (metrics & M_PSNR) {
            printf(", \"psnr\": {");
            json_number("rgb", psnr.rgb, true);
            json_number("luma", psnr.luma, false);
            printf("}");
        }
        if (metrics & M_SSIM) {
            printf(", ");
            json_number("ssim", ssim, false);
        }
        if (metrics & M_FLIP) {
            printf(", \"flip\": {");
            json_number("mean", flip.mean, true);
            json_number("weighted_median", flip.weighted_median, true);
            json_number("weighted_q1", flip.weighted_q1, true);
            json_number("weighted_q3", flip.weighted_q3, true);
            json_number("min", flip.min, true);
            json_number("max", flip.max, true);
            json_number("ppd", ppd ? ppd : 67.02, false);
            printf("}");
        }
        if (metrics & M_DETAIL) {
            printf(", \"detail\": {");
            json_number("a", detail[0], true);
            json_number("b", detail[1], false);
            printf("}");
        }
        printf("}\n");
    } else {
        printf("%s vs %s (%dx%d", paths[1], paths[0], a->width, a->height);
        if (crop_s)
            printf(", crop %d,%d %dx%d", crop.x, crop.y, crop.width, crop.height);
        printf(")\n");
        if (metrics & M_PSNR)
            printf("  psnr    %.3f dB  (luma %.3f dB)\n", psnr.rgb, psnr.luma);
        if (metrics & M_SSIM)
            printf("  ssim    %.5f\n", ssim);
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
