/* test_cli.c: the `upframe` tool end to end: help and version, upscale and compare on real
 * files, every documented exit code, clear messages, and no output left behind on failure. */
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/color.h"
#include "imageio/image_io.h"
#include "spatial/net.h"
#include "test_util.h"

#define RUN(expect, ...)                                                                      \
    do {                                                                                      \
        const char *a_[] = { __VA_ARGS__, NULL };                                             \
        int rc_ = test_run_tool(a_);                                                               \
        CHECKF(rc_ == (expect), "exit %d, expected %d; stderr: %s", rc_, (expect), test_tool_err()); \
    } while (0)

#define TMP(name) UPF_TEST_TMPDIR "/" name

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* No file in the test folder whose name contains `needle` (outputs and their temporaries). */
static int count_files_containing(const char *needle)
{
    DIR *d = opendir(UPF_TEST_TMPDIR);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, needle) != NULL;
    if (d)
        closedir(d);
    return n;
}

static void write_random_png(const char *path, int w, int h, upf_format fmt, test_rng *rng)
{
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    CHECK(imageio_alloc(&img, w, h, fmt, err) == UPF_OK);
    size_t bpp = upf_format_bytes_per_pixel(fmt);
    unsigned char *p = img.img.data;
    for (size_t i = 0; i < (size_t)w * h * bpp; i++)
        p[i] = (unsigned char)test_rand_u32(rng);
    for (size_t i = 0; i < (size_t)w * h; i++) /* opaque */
        memset(p + i * bpp + bpp * 3 / 4, 0xff, bpp / 4);
    CHECK(imageio_write(path, &img.img, fmt == UPF_FORMAT_RGBA16_SRGB ? 16 : 8, err) == UPF_OK);
    imageio_free(&img);
}

static void check_image(const char *path, int w, int h, upf_format fmt)
{
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    upf_result r = imageio_read(path, NULL, &img, err);
    CHECKF(r == UPF_OK, "%s: %s", path, err);
    if (r != UPF_OK)
        return;
    CHECKF(img.img.width == w && img.img.height == h && img.img.format == fmt,
           "%s is %dx%d %s; expected %dx%d %s", path, img.img.width, img.img.height,
           upf_format_name(img.img.format), w, h, upf_format_name(fmt));
    imageio_free(&img);
}

static void test_help(void)
{
    RUN(0, "--version");
    CHECK(strstr(test_tool_out(), upf_version()) != NULL);
    RUN(0, "help");
    CHECK(strstr(test_tool_out(), "upscale") && strstr(test_tool_out(), "compare") && strstr(test_tool_out(), "exit codes"));
    RUN(0, "help", "upscale");
    CHECK(strstr(test_tool_out(), "usage: upframe upscale") != NULL);
    RUN(0, "compare", "--help");
    CHECK(strstr(test_tool_out(), "usage: upframe compare") != NULL);
    RUN(1, "help", "nonsense");
    CHECK(strstr(test_tool_err(), "unknown command 'nonsense'") != NULL);
    RUN(1, "nonsense");
    CHECK(strstr(test_tool_err(), "unknown command 'nonsense'") != NULL);
    const char *none[] = { NULL };
    CHECK_EQ_INT(test_run_tool(none), 1);
}

static void test_upscale(test_rng *rng)
{
    write_random_png(TMP("in8.png"), 40, 30, UPF_FORMAT_RGBA8_SRGB, rng);
    write_random_png(TMP("in16.png"), 20, 10, UPF_FORMAT_RGBA16_SRGB, rng);
    const char *engines[] = { "bilinear", "bicubic", "lanczos" };
    for (int i = 0; i < 3; i++) {
        RUN(0, "upscale", TMP("in8.png"), "-o", TMP("out8.png"), "--scale", "2", "--engine", engines[i]);
        CHECK(strstr(test_tool_out(), "wrote") && strstr(test_tool_out(), "80x60") && strstr(test_tool_out(), "upscale"));
        check_image(TMP("out8.png"), 80, 60, UPF_FORMAT_RGBA8_SRGB);
    }
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("size.png"), "--size", "57x13", "--quiet");
    CHECK(test_tool_out()[0] == '\0');
    check_image(TMP("size.png"), 57, 13, UPF_FORMAT_RGBA8_SRGB);
    RUN(0, "upscale", TMP("in16.png"), "--output=" TMP("out16.png"), "--scale=1.5");
    check_image(TMP("out16.png"), 30, 15, UPF_FORMAT_RGBA16_SRGB);
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("out.pfm"), "--scale", "0.5", "--threads", "2");
    check_image(TMP("out.pfm"), 20, 15, UPF_FORMAT_RGBA32F);
    RUN(0, "upscale", TMP("out.pfm"), "-o", TMP("back.png"), "--scale", "2", "--bits", "16");
    check_image(TMP("back.png"), 40, 30, UPF_FORMAT_RGBA16_SRGB);
    RUN(0, "upscale", "builtin", "-o", TMP("demo.png"), "--scale", "2");
    check_image(TMP("demo.png"), 1920, 1080, UPF_FORMAT_RGBA8_SRGB);
    RUN(0, "upscale", "builtin:forest", "-o", TMP("demo.pfm"), "--size", "1000x600", "--quiet");
    check_image(TMP("demo.pfm"), 1000, 600, UPF_FORMAT_RGBA32F);

    /* Usage errors: exit 1, with the problem named. */
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"));
    CHECK(strstr(test_tool_err(), "exactly one of --scale R and --size WxH") != NULL);
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "2", "--size", "4x4");
    RUN(1, "upscale", TMP("in8.png"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "no output given") != NULL);
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "0");
    CHECK(strstr(test_tool_err(), "--scale '0' is not a number in 0.01..16") != NULL);
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--size", "0x5");
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "2", "--frobnicate");
    CHECK(strstr(test_tool_err(), "unknown option '--frobnicate'") != NULL);
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "2", "--engine", "magic");
    CHECK(strstr(test_tool_err(), "unknown engine 'magic'") != NULL);
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.gif"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "must end in .png or .pfm") != NULL);
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale");
    CHECK(strstr(test_tool_err(), "option --scale needs a value") != NULL);
    CHECK_EQ_INT(count_files_containing("x."), 0);

    /* Bad input: exit 2, the file named, nothing written. */
    RUN(2, "upscale", TMP("missing.png"), "-o", TMP("bad.png"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "missing.png") != NULL);
    void *data;
    size_t size;
    char err[IMAGEIO_ERR_SIZE];
    CHECK(imageio_slurp(TMP("in8.png"), 1 << 20, &data, &size, err) == UPF_OK);
    CHECK(imageio_write_file_atomic(TMP("cut.png"), data, size / 2, err) == UPF_OK);
    free(data);
    RUN(2, "upscale", TMP("cut.png"), "-o", TMP("bad.png"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "cut.png") != NULL);
    RUN(2, "upscale", TMP("in8.png"), "-o", "/nonexistent-dir/sub/bad.png", "--scale", "2");
    CHECK(strstr(test_tool_err(), "/nonexistent-dir/sub/bad.png") != NULL);
    RUN(2, "upscale", TMP("in8.png"), "-o", TMP("in8.png/bad.png"), "--scale", "2");
    RUN(2, "upscale", "builtin:nothing", "-o", TMP("bad.png"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "unknown built-in frame 'nothing' (expected one of: courtyard,") != NULL);
    CHECK_EQ_INT(count_files_containing("bad"), 0);

    /* An output over the size limit. */
    imageio_image wide;
    CHECK(imageio_alloc(&wide, 1100, 1, UPF_FORMAT_RGBA8_SRGB, err) == UPF_OK);
    CHECK(imageio_write(TMP("wide.png"), &wide.img, 8, err) == UPF_OK);
    imageio_free(&wide);
    RUN(2, "upscale", TMP("wide.png"), "-o", TMP("huge.png"), "--scale", "16");
    CHECK(strstr(test_tool_err(), "expected each side in 1..16384") != NULL);
    CHECK(!exists(TMP("huge.png")));

    /* NaN in a float input is refused with its position. */
    imageio_image nan_img;
    CHECK(imageio_alloc(&nan_img, 4, 3, UPF_FORMAT_RGBA32F, err) == UPF_OK);
    ((float *)nan_img.img.data)[4 * 5 + 1] = NAN;
    FILE *f = fopen(TMP("nan.pfm"), "wb");
    CHECK(f != NULL);
    if (f) { /* written by hand: the writer refuses NaN */
        fprintf(f, "PF\n4 3\n-1.0\n");
        for (int y = 2; y >= 0; y--)
            for (int x = 0; x < 4; x++)
                fwrite((float *)nan_img.img.data + 4 * (y * 4 + x), 4, 3, f);
        fclose(f);
    }
    imageio_free(&nan_img);
    RUN(2, "upscale", TMP("nan.pfm"), "-o", TMP("nanout.png"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "nan.pfm") && (strstr(test_tool_err(), "NaN") || strstr(test_tool_err(), "finite")));
    CHECK(!exists(TMP("nanout.png")));
}

static void test_spatial_cli(test_rng *rng)
{
    /* A model file from 24 random fp16 matrices, through `upframe model import`. */
    static uint16_t raw[24 * 256];
    for (int i = 0; i < 24 * 256; i++)
        raw[i] = upf_float_to_half((test_rand_float(rng) - 0.5f) * 0.2f);
    char err[IMAGEIO_ERR_SIZE];
    CHECK(imageio_write_file_atomic(TMP("raw.bin"), raw, sizeof raw, err) == UPF_OK);
    RUN(0, "model", "import", TMP("raw.bin"), "--offset", "0", "--step", "6", "-o", TMP("m6.upfm"));
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("sp.png"), "--scale", "2", "--engine", "spatial",
        "--model", TMP("m6.upfm"), "--sharpness", "0.5", "--debug-passes", TMP("passes"));
    CHECK(strstr(test_tool_out(), "spatial") && strstr(test_tool_out(), "model step 6") &&
          strstr(test_tool_out(), "detail") && strstr(test_tool_out(), "compose"));
    check_image(TMP("sp.png"), 80, 60, UPF_FORMAT_RGBA8_SRGB);
    check_image(TMP("passes/edges.png"), 40, 30, UPF_FORMAT_RGBA8_SRGB);
    check_image(TMP("passes/weights.png"), 40, 30, UPF_FORMAT_RGBA8_SRGB);
    check_image(TMP("passes/blend.png"), 40, 30, UPF_FORMAT_RGBA8_SRGB);
    check_image(TMP("passes/detail.png"), 80, 60, UPF_FORMAT_RGBA8_SRGB);
    /* Giving a model implies the spatial engine. */
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("sp2.png"), "--scale", "1.5", "--model", TMP("m6.upfm"));
    CHECK(strstr(test_tool_out(), "spatial") != NULL);

    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "2", "--engine", "lanczos",
        "--sharpness", "1");
    CHECK(strstr(test_tool_err(), "go with --engine spatial") != NULL);
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "2", "--sharpness", "5");
    RUN(2, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "0.5", "--engine", "spatial",
        "--model", TMP("m6.upfm"));
    CHECK(strstr(test_tool_err(), "1 to 4") != NULL);
    RUN(2, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "2", "--model", TMP("raw.bin"));
    CHECK(strstr(test_tool_err(), "raw.bin") != NULL);
    if (upf__default_models_size == 0) {
        RUN(2, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "2", "--engine", "spatial");
        CHECK(strstr(test_tool_err(), "no built-in models") != NULL);
    } else {
        RUN(0, "upscale", TMP("in8.png"), "-o", TMP("def.png"), "--scale", "2");
        CHECK(strstr(test_tool_out(), "spatial") != NULL);
    }
    CHECK_EQ_INT(count_files_containing("x."), 0);
}

static void test_compare(test_rng *rng)
{
    RUN(0, "compare", TMP("in8.png"), TMP("in8.png"), "--json");
    CHECK(strstr(test_tool_out(), "\"rgb\": \"inf\"") && strstr(test_tool_out(), "\"ssim\": 1.000000") &&
          strstr(test_tool_out(), "\"mean\": 0.000000"));
    write_random_png(TMP("other8.png"), 40, 30, UPF_FORMAT_RGBA8_SRGB, rng);
    RUN(0, "compare", TMP("in8.png"), TMP("other8.png"), "--metric", "psnr,detail", "--crop", "2,3,20,10");
    CHECK(strstr(test_tool_out(), "psnr") && strstr(test_tool_out(), "detail") && !strstr(test_tool_out(), "ssim"));
    CHECK(strstr(test_tool_out(), "crop 2,3 20x10") != NULL);
    RUN(0, "compare", TMP("in8.png"), TMP("other8.png"), "--flip-map", TMP("flip.png"));
    check_image(TMP("flip.png"), 40, 30, UPF_FORMAT_RGBA8_SRGB);
    /* Two random images differ a lot: FLIP well above 0. */
    RUN(0, "compare", TMP("in8.png"), TMP("other8.png"), "--json", "--metric", "flip");
    const char *m = strstr(test_tool_out(), "\"mean\": ");
    CHECK(m && atof(m + 8) > 0.2);

    RUN(2, "compare", TMP("in8.png"), TMP("size.png"));
    CHECK(strstr(test_tool_err(), "is 40x30 but") && strstr(test_tool_err(), "expected the same size"));
    RUN(2, "compare", TMP("in8.png"), TMP("other8.png"), "--crop", "30,0,20,10");
    CHECK(strstr(test_tool_err(), "does not lie inside") != NULL);
    RUN(2, "compare", TMP("in8.png"), TMP("missing.png"));
    RUN(1, "compare", TMP("in8.png"), TMP("other8.png"), "--metric", "psnr,bogus");
    RUN(1, "compare", TMP("in8.png"));
    RUN(1, "compare", TMP("in8.png"), TMP("other8.png"), "--crop", "1,2,3");
    RUN(1, "compare", TMP("in8.png"), TMP("other8.png"), "--flip-map", TMP("flip.jpg"));
}

int main(void)
{
    test_rng rng = test_rng_make("cli");
    mkdir(UPF_TEST_TMPDIR, 0755);
    test_help();
    test_upscale(&rng);
    test_spatial_cli(&rng);
    test_compare(&rng);
    return test_finish("cli");
}
