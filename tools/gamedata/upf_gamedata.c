/* upf_gamedata.c: the `upf-gamedata` command of the game-capture tool (tools/gamedata/README.md).
 *
 *   upf-gamedata reduce HIRES.png N OUT.png [--linear]
 *       box-filters an 8-bit capture N x N down into a 16-bit PNG reference (averaging the
 *       sRGB-encoded values the game wrote, or with --linear in linear light);
 *   upf-gamedata check LR.png REF.png [--max-shift PX] [--min-sigmas Z] [--min-psnr-blur DB]
 *       the pair checks of gd_check_pair: prints one line
 *       "dx DX dy DY peak P sigmas Z psnr DB psnr_blur DB ok|FAIL (why)" and exits 0 when the
 *       pair passes, 1 when it fails a check, 2 on an error. Defaults: the shift at most
 *       GD_MAX_SHIFT input pixels on each axis, the peak GD_PEAK_MIN_SIGMAS noise standard
 *       deviations or more (gd_image.h says why), the blurred PSNR 26 dB or more.
 * Reads and writes only the files named. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gamedata/gd_image.h"
#include "imageio/image_io.h"

static int usage(void)
{
    fprintf(stderr, "usage: upf-gamedata reduce HIRES.png N OUT.png [--linear]\n"
                    "       upf-gamedata check LR.png REF.png [--max-shift PX] [--min-sigmas Z] "
                    "[--min-psnr-blur DB]\n");
    return 2;
}

static int read_png(const char *path, imageio_image *img)
{
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_read(path, NULL, img, err) != UPF_OK) {
        fprintf(stderr, "upf-gamedata: %s\n", err);
        return -1;
    }
    if (img->type != IMAGEIO_PNG) {
        fprintf(stderr, "upf-gamedata: %s is a %s file; expected a PNG\n", path,
                imageio_type_name(img->type));
        imageio_free(img);
        return -1;
    }
    return 0;
}

static int parse_double(const char *s, double lo, double hi, const char *what, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "upf-gamedata: %s \"%s\"; expected a number in %g..%g\n", what, s, lo,
                hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int cmd_reduce(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--linear")))
        return usage();
    double n;
    if (parse_double(argv[1], 1, 16, "reduce: factor", &n) || n != floor(n))
        return usage();
    imageio_image in;
    if (read_png(argv[0], &in))
        return 2;
    int rc = 2;
    if (in.img.format != UPF_FORMAT_RGBA8_SRGB || in.img.width % (int)n ||
        in.img.height % (int)n) {
        fprintf(stderr, "upf-gamedata: %s is %dx%d at %d bits; expected an 8-bit image whose "
                "sides are multiples of %d\n", argv[0], in.img.width, in.img.height,
                in.bit_depth, (int)n);
    } else {
        upf_image out;
        char err[IMAGEIO_ERR_SIZE];
        if (gd_box_reduce(&in.img, (int)n, argc == 4 ? GD_AVERAGE_LINEAR : GD_AVERAGE_ENCODED,
                          &out) != 0) {
            fprintf(stderr, "upf-gamedata: reduce: out of memory\n");
        } else {
            if (imageio_write_png(argv[2], &out, 16, err) != UPF_OK)
                fprintf(stderr, "upf-gamedata: %s\n", err);
            else
                rc = 0;
            free(out.data);
        }
    }
    imageio_free(&in);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    double max_shift = GD_MAX_SHIFT, min_sigmas = GD_PEAK_MIN_SIGMAS, min_psnr_blur = 26;
    if (argc < 2 || argc % 2)
        return usage();
    for (int i = 2; i < argc; i += 2) {
        double *dst = !strcmp(argv[i], "--max-shift")       ? &max_shift
                      : !strcmp(argv[i], "--min-sigmas")    ? &min_sigmas
                      : !strcmp(argv[i], "--min-psnr-blur") ? &min_psnr_blur
                                                            : NULL;
        if (!dst || parse_double(argv[i + 1], 0, 100, argv[i], dst))
            return usage();
    }
    imageio_image lr, ref;
    if (read_png(argv[0], &lr))
        return 2;
    if (read_png(argv[1], &ref)) {
        imageio_free(&lr);
        return 2;
    }
    int rc = 2;
    gd_check c;
    if (lr.img.width > ref.img.width || lr.img.height > ref.img.height ||
        (long long)lr.img.width * ref.img.height != (long long)ref.img.width * lr.img.height) {
        fprintf(stderr, "upf-gamedata: %s is %dx%d and %s %dx%d; expected the reference at "
                "least as large, with the same aspect ratio\n", argv[0], lr.img.width,
                lr.img.height, argv[1], ref.img.width, ref.img.height);
    } else if (lr.img.width < 16 || lr.img.height < 16 || gd_check_pair(&lr.img, &ref.img, &c)) {
        fprintf(stderr, "upf-gamedata: check %s: the input is smaller than 16x16 or memory ran "
                "out\n", argv[0]);
    } else {
        char why[256];
        const int ok = gd_check_verdict(&c, max_shift, min_sigmas, min_psnr_blur, why, sizeof why);
        printf("dx %+.3f dy %+.3f peak %.3f sigmas %.1f psnr %.2f psnr_blur %.2f %s%s%s%s\n",
               c.shift.dx, c.shift.dy, c.shift.peak, c.shift.peak / c.shift.noise, c.psnr,
               c.psnr_blur, ok ? "ok" : "FAIL", ok ? "" : " (", why, ok ? "" : ")");
        rc = ok ? 0 : 1;
    }
    imageio_free(&lr);
    imageio_free(&ref);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    if (!strcmp(argv[1], "reduce"))
        return cmd_reduce(argc - 2, argv + 2);
    if (!strcmp(argv[1], "check"))
        return cmd_check(argc - 2, argv + 2);
    return usage();
}
