/* test_cli.c: the `upframe` tool end to end: help and version, upscale and compare on real
 * files, every documented exit code, clear messages, and no output left behind on failure. */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/color.h"
#include "core/core.h"
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
    /* A ratio the spatial engine does not do is a usage mistake, named by its option
     * (issue 10: it was exit 2 with a library function's name). */
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--scale", "0.5", "--engine", "spatial",
        "--model", TMP("m6.upfm"));
    CHECK(strstr(test_tool_err(), "--scale 0.5") && strstr(test_tool_err(), "1 to 4") &&
          !strstr(test_tool_err(), "upf_"));
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("x.png"), "--size", "20x15", "--engine", "spatial");
    CHECK(strstr(test_tool_err(), "--size 20x15") && !strstr(test_tool_err(), "upf_"));
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
    /* JSON: numbers as numbers; an infinite PSNR is null with a flag (issue 10: the string
     * "inf" stood where a number goes). */
    RUN(0, "compare", TMP("in8.png"), TMP("in8.png"), "--json");
    CHECK(strstr(test_tool_out(), "\"rgb\": null, \"rgb_infinite\": true") &&
          strstr(test_tool_out(), "\"ssim\": 1,") && strstr(test_tool_out(), "\"mean\": 0,") &&
          !strstr(test_tool_out(), "\"inf\""));
    /* And the FLIP statistics of identical images add up: all 0. */
    CHECK(strstr(test_tool_out(), "\"weighted_median\": 0,") && strstr(test_tool_out(), "\"max\": 0,"));
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


/* ---- issue 10: nothing lost, nothing silent ------------------------------------------------ */

/* Runs the tool with standard input from `in` and output to `out`; stderr goes to
 * test_tool_err(). Returns the exit code. */
static int run_io(const char *const *args, const char *in, const char *out)
{
    pid_t pid = test_spawn_tool(args, in, out, TMP("io_err.txt"));
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    test_read_text(TMP("io_err.txt"), test_tool_err(), 1 << 16);
    return test_exit_code(status);
}

#define RUN_IO(expect, in, out, ...)                                                          \
    do {                                                                                      \
        const char *a_[] = { __VA_ARGS__, NULL };                                             \
        int rc_ = run_io(a_, (in), (out));                                                    \
        CHECKF(rc_ == (expect), "exit %d, expected %d; stderr: %s", rc_, (expect), test_tool_err()); \
    } while (0)

/* Starts the tool without waiting. */
static pid_t start_tool(const char *const *args)
{
    return test_spawn_tool(args, NULL, NULL, TMP("bg_err.txt"));
}

/* Files in `dir` whose names contain `needle` ("" counts every file). */
static int count_in(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n += strstr(e->d_name, needle) != NULL;
    if (d)
        closedir(d);
    return n;
}

/* Waits (polling) until `dir` holds a file named with `needle`, or the process ends, or a
 * minute passes (a bound, not a timing assertion). */
static bool wait_for_file(const char *dir, const char *needle, pid_t pid)
{
    for (int i = 0; i < 30000; i++) {
        if (count_in(dir, needle) > 0)
            return true;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return false;
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    return false;
}

/* Whether two images hold the same pixels (same size and format). */
static bool same_image_pixels(const char *a, const char *b)
{
    imageio_image ia, ib;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_read(a, NULL, &ia, err) != UPF_OK)
        return false;
    bool same = false;
    if (imageio_read(b, NULL, &ib, err) == UPF_OK) {
        same = ia.img.width == ib.img.width && ia.img.height == ib.img.height &&
               ia.img.format == ib.img.format &&
               memcmp(ia.img.data, ib.img.data, (size_t)ia.img.width * ia.img.height *
                      upf_format_bytes_per_pixel(ia.img.format)) == 0;
        imageio_free(&ib);
    }
    imageio_free(&ia);
    return same;
}

static bool same_file_bytes(const char *a, const char *b)
{
    void *da = NULL, *db = NULL;
    size_t na = 0, nb = 0;
    char err[IMAGEIO_ERR_SIZE];
    bool same = imageio_slurp(a, (size_t)1 << 28, &da, &na, err) == UPF_OK &&
                imageio_slurp(b, (size_t)1 << 28, &db, &nb, err) == UPF_OK && na == nb &&
                memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

/* --png-compression: fast (the default) and small give the same pixels, 8 and 16 bits, to a
 * file and to standard output; the two differ as files; anything else is a usage error; a
 * PFM output notes it is ignored; the help lists it. */
static void test_png_compression(void)
{
    const char *in[2] = { TMP("in8.png"), TMP("in16.png") };
    for (int i = 0; i < 2; i++) {
        const char *bits = i ? "16" : "8";
        RUN(0, "upscale", in[i], "-o", TMP("pc_default.png"), "--scale", "2", "--bits", bits, "-q");
        RUN(0, "upscale", in[i], "-o", TMP("pc_fast.png"), "--scale", "2", "--bits", bits,
            "--png-compression", "fast", "-q");
        RUN(0, "upscale", in[i], "-o", TMP("pc_small.png"), "--scale", "2", "--bits", bits,
            "--png-compression", "small", "-q");
        CHECK(same_file_bytes(TMP("pc_default.png"), TMP("pc_fast.png")));
        CHECK(same_image_pixels(TMP("pc_fast.png"), TMP("pc_small.png")));
        CHECK(!same_file_bytes(TMP("pc_fast.png"), TMP("pc_small.png")));
        check_image(TMP("pc_small.png"), i ? 40 : 80, i ? 20 : 60,
                    i ? UPF_FORMAT_RGBA16_SRGB : UPF_FORMAT_RGBA8_SRGB);
        const char *to_stdout[] = { "upscale", in[i], "-o", "-", "--scale", "2", "--bits", bits,
                                    "--png-compression", "small", NULL };
        CHECK_EQ_INT(run_io(to_stdout, NULL, TMP("pc_stdout.png")), 0);
        CHECK(same_file_bytes(TMP("pc_small.png"), TMP("pc_stdout.png")));
    }
    RUN(1, "upscale", in[0], "-o", TMP("pc_x.png"), "--scale", "2", "--png-compression", "max");
    CHECK(strstr(test_tool_err(), "--png-compression 'max': expected fast or small") != NULL);
    CHECK(!exists(TMP("pc_x.png")));
    RUN(0, "upscale", in[0], "-o", TMP("pc.pfm"), "--scale", "2", "--png-compression", "small");
    CHECK(strstr(test_tool_err(), "--png-compression small does not apply to PFM") != NULL);
    RUN(0, "help", "upscale");
    CHECK(strstr(test_tool_out(), "--png-compression fast|small") != NULL);
}

/* Item 3: a signal during a write removes the temporary and leaves no output, and an
 * interrupted render leaves no frame, not even half of one. */
static void test_signals(test_rng *rng)
{
    write_random_png(TMP("big.png"), 1536, 1024, UPF_FORMAT_RGBA8_SRGB, rng);
    mkdir(TMP("sig"), 0755);
    const char *up[] = { "upscale", TMP("big.png"), "-o", TMP("sig/out.png"), "--scale", "2",
                         "--engine", "bilinear", NULL };
    pid_t pid = start_tool(up);
    CHECK(pid > 0);
    bool writing = wait_for_file(TMP("sig"), ".tmp-", pid);
    CHECKF(writing, "the temporary of the write never appeared");
    if (writing) {
        kill(pid, SIGINT);
        int status;
        waitpid(pid, &status, 0);
        CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status 0x%x", status);
        CHECKF(count_in(TMP("sig"), "") == 0, "%d files left in sig/", count_in(TMP("sig"), ""));
    }

    /* render, into a folder it makes: SIGTERM in the middle removes the frames and it. */
    const char *rd[] = { "render", "courtyard", "--size", "48x27", "--frames", "5000", "-o",
                         TMP("rsig"), NULL };
    pid = start_tool(rd);
    bool rendering = wait_for_file(TMP("rsig"), "0001.json", pid);
    CHECK(rendering);
    if (rendering) {
        kill(pid, SIGTERM);
        int status;
        waitpid(pid, &status, 0);
        CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status 0x%x", status);
        CHECK(!exists(TMP("rsig")));
    }
    /* ... and into a folder that was there: SIGHUP leaves only what was there before. */
    mkdir(TMP("rsig2"), 0755);
    FILE *f = fopen(TMP("rsig2/notes.txt"), "w");
    if (f)
        fclose(f);
    rd[7] = TMP("rsig2");
    pid = start_tool(rd);
    rendering = wait_for_file(TMP("rsig2"), "0002.color.png", pid);
    CHECK(rendering);
    if (rendering) {
        kill(pid, SIGHUP);
        int status;
        waitpid(pid, &status, 0);
        CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP, "status 0x%x", status);
        CHECKF(count_in(TMP("rsig2"), "") == 1 && exists(TMP("rsig2/notes.txt")),
               "%d files in rsig2", count_in(TMP("rsig2"), ""));
    }
}

/* A PNG of w x h that holds only its signature and IHDR chunk: enough for the size check. */
static void write_png_header(const char *path, uint32_t w, uint32_t h)
{
    unsigned char png[33] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
                              'I', 'H', 'D', 'R' };
    const uint32_t v[2] = { w, h };
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 4; b++)
            png[16 + 4 * k + b] = (unsigned char)(v[k] >> (24 - 8 * b));
    png[24] = 8; /* bit depth */
    png[25] = 6; /* RGBA */
    uint32_t crc = upf__crc32(png + 12, 17);
    for (int b = 0; b < 4; b++)
        png[29 + b] = (unsigned char)(crc >> (24 - 8 * b));
    char err[IMAGEIO_ERR_SIZE];
    CHECK(imageio_write_file_atomic(path, png, sizeof png, err) == UPF_OK);
}

/* The messages of "Unclear or wrong messages", one check each. */
static void test_messages(void)
{
    char err[IMAGEIO_ERR_SIZE];
    /* Disk full: the reason, not "PNG encoding failed: stream error" (stdout on /dev/full). */
    if (exists("/dev/full")) {
        RUN_IO(2, TMP("in8.png"), "/dev/full", "upscale", "-", "-o", "-", "--scale", "2");
        CHECK(strstr(test_tool_err(), "No space left on device") &&
              !strstr(test_tool_err(), "stream error"));
        RUN_IO(2, TMP("in8.png"), "/dev/full", "upscale", "-", "-o", "pfm:-", "--scale", "2");
        CHECK(strstr(test_tool_err(), "No space left on device") != NULL);
    }
    /* A file over the size limit (ulimit -f): "File too large", and no temporary left. */
    mkdir(TMP("full"), 0755);
    int rc = test_run_tool_cmdline("upscale '%s' -o '%s' --scale 1 --engine bilinear -q",
                                   TMP("big.png"), TMP("full/out.png"));
    CHECK_EQ_INT(rc, 0); /* without a limit it works */
    unlink(TMP("full/out.png"));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "ulimit -f 100 && '%s' upscale '%s' -o '%s' --scale 1 --engine "
             "bilinear 2>'%s'", UPF_TOOL_PATH, TMP("big.png"), TMP("full/out.png"),
             TMP("full.txt"));
    rc = test_exit_code(system(cmd));
    test_read_text(TMP("full.txt"), test_tool_err(), 1 << 16);
    CHECKF(rc == 2 && strstr(test_tool_err(), "File too large"), "exit %d: %s", rc,
           test_tool_err());
    CHECK_EQ_INT(count_in(TMP("full"), ""), 0);

    /* bench --runs 1 times ImageMagick when it is there (convert -bench 1 prints nothing);
     * a `convert` that is not ImageMagick's is named as such and not timed. */
    if (test_exit_code(system("convert -version 2>/dev/null | head -n 1 | grep -q "
                              "ImageMagick")) == 0) {
        RUN(0, "bench", "--size", "32x18", "--runs", "1", "--threads", "1");
        CHECKF(strstr(test_tool_out(), "ImageMagick convert") &&
               !strstr(test_tool_out(), "not run"), "%s", test_tool_out());
    } else if (test_exit_code(system("command -v convert >/dev/null 2>&1")) == 0) {
        RUN(0, "bench", "--size", "32x18", "--runs", "1", "--threads", "1", "--no-temporal",
            "--no-framegen");
        CHECKF(strstr(test_tool_out(), "the convert on the PATH is not ImageMagick's"), "%s",
               test_tool_out());
    }
    RUN(0, "bench", "--size", "32x18", "--runs", "1", "--threads", "1", "--no-yardstick", "--json");
    CHECK(strstr(test_tool_out(), "\"rows\": [{\"input\": [32, 18], \"output\": [64, 36]") &&
          strstr(test_tool_out(), "\"runs\": 1,"));
    /* the CPU kernels the engines took, as the library names them */
    CHECK(strstr(test_tool_out(), (upf__cpu_detect() & UPF__CPU_X86_AVX2_FMA)
                                      ? "\"cpu_kernels\": \"avx2+fma\""
                                      : "\"cpu_kernels\": \"c\"") != NULL);
    /* --sharpness for the CPU rows too (the sRGB base's direct store needs 0). */
    RUN(0, "bench", "--size", "32x18", "--scale", "1.5", "--runs", "1", "--threads", "1",
        "--no-yardstick", "--no-temporal", "--no-framegen", "--sharpness", "0");
    CHECK(strstr(test_tool_out(), "spatial engine at sharpness 0") != NULL);
    RUN(1, "bench", "--sharpness", "5");
    CHECK(strstr(test_tool_err(), "must be a number in 0..4") != NULL);

    /* Other formats are named. */
    CHECK(imageio_write_file_atomic(TMP("pic.gif"), "GIF89a\x01\x00\x01\x00", 10, err) == UPF_OK);
    RUN(2, "upscale", TMP("pic.gif"), "-o", TMP("gif.png"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "a GIF image") != NULL);
    CHECK(imageio_write_file_atomic(TMP("pic.ppm"), "P6\n1 1\n255\n\0\0\0", 14, err) == UPF_OK);
    RUN(2, "compare", TMP("pic.ppm"), TMP("in8.png"));
    CHECK(strstr(test_tool_err(), "a PPM image") != NULL);

    /* The output is checked before any work: its missing folder is named even though the
     * input would fail later. */
    RUN(2, "upscale", TMP("missing.png"), "-o", "/nonexistent-dir/out.png", "--scale", "2");
    CHECK(strstr(test_tool_err(), "/nonexistent-dir") && strstr(test_tool_err(), "does not exist") &&
          !strstr(test_tool_err(), "missing.png"));
    /* One input and an existing folder: the output goes into it. */
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("sig"), "--scale", "2", "-q");
    check_image(TMP("sig/in8.png"), 80, 60, UPF_FORMAT_RGBA8_SRGB);
    unlink(TMP("sig/in8.png"));
    /* A 252-character file name works (the temporary's suffix no longer pushes it over). */
    char longname[400];
    memset(longname, 'a', sizeof longname);
    int prefix = snprintf(longname, sizeof longname, "%s/", UPF_TEST_TMPDIR);
    longname[prefix] = 'a';
    strcpy(longname + prefix + 248, ".png");
    RUN(0, "upscale", TMP("in8.png"), "-o", longname, "--scale", "2", "-q");
    check_image(longname, 80, 60, UPF_FORMAT_RGBA8_SRGB);
    unlink(longname);
    strcpy(longname + prefix + 252, ".png"); /* 256: over every file system's limit */
    for (int k = prefix + 248; k < prefix + 252; k++)
        longname[k] = 'a';
    RUN(2, "upscale", TMP("in8.png"), "-o", longname, "--scale", "2");
    CHECK(strstr(test_tool_err(), "expected at most 255") != NULL);

    /* The pixel limit: a tiny file claiming 16384x16384 is refused before anything is
     * taken, with the way to raise it; the output counts too. */
    write_png_header(TMP("claims16k.png"), 16384, 16384);
    RUN(2, "upscale", TMP("claims16k.png"), "-o", TMP("lim.png"), "--scale", "1");
    CHECK(strstr(test_tool_err(), "268435456 pixels; expected at most 134217728") &&
          strstr(test_tool_err(), "--max-pixels"));
    RUN(2, "upscale", TMP("in8.png"), "-o", TMP("lim.png"), "--scale", "2", "--max-pixels", "1000");
    CHECK(strstr(test_tool_err(), "1200 pixels; expected at most 1000") != NULL);
    RUN(2, "upscale", TMP("in8.png"), "-o", TMP("lim.png"), "--scale", "2", "--max-pixels", "2K");
    CHECK(strstr(test_tool_err(), "the output of") && strstr(test_tool_err(), "4800 pixels"));
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("lim.png"), "--scale", "2", "--max-pixels", "80x60");
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("lim.png"), "--scale", "2", "--max-pixels", "0");
    RUN(2, "compare", TMP("claims16k.png"), TMP("in8.png"));
    CHECK(strstr(test_tool_err(), "--max-pixels") != NULL);
}

/* The tool's manners: pipes, --, batches, sizes, notes, modes, JSON, -q, --threads 0. */
static void test_manners(test_rng *rng)
{
    /* Standard input and output, PNG and PFM. */
    RUN_IO(0, TMP("in8.png"), TMP("piped.png"), "upscale", "-", "-o", "-", "--scale", "2x",
           "--engine", "bicubic");
    check_image(TMP("piped.png"), 80, 60, UPF_FORMAT_RGBA8_SRGB);
    CHECK(strstr(test_tool_err(), "wrote standard output (80x60") != NULL); /* report on stderr */
    RUN_IO(0, TMP("in8.png"), TMP("piped.pfm"), "upscale", "-", "-o", "-", "--format", "pfm",
           "--scale", "2", "--engine", "bicubic", "-q");
    check_image(TMP("piped.pfm"), 80, 60, UPF_FORMAT_RGBA32F);
    CHECK(test_tool_err()[0] == '\0');
    RUN_IO(0, TMP("piped.pfm"), TMP("piped2.png"), "upscale", "-", "-o", "png:-", "--size", "40x30");
    check_image(TMP("piped2.png"), 40, 30, UPF_FORMAT_RGBA8_SRGB);
    RUN_IO(0, TMP("piped.png"), TMP("cmp.txt"), "compare", TMP("piped.png"), "-");
    test_read_text(TMP("cmp.txt"), test_tool_out(), 1 << 16);
    CHECK(strstr(test_tool_out(), "standard input vs") && strstr(test_tool_out(), "psnr    inf"));
    RUN(1, "compare", "-", "-");
    RUN(1, "upscale", TMP("in8.png"), "-o", "-", "--scale", "2", "--json");

    /* "--" ends the options: a file named "-x.png". */
    char err[IMAGEIO_ERR_SIZE];
    void *data;
    size_t size;
    CHECK(imageio_slurp(TMP("in8.png"), 1 << 20, &data, &size, err) == UPF_OK);
    CHECK(imageio_write_file_atomic(TMP("-x.png"), data, size, err) == UPF_OK);
    free(data);
    int rc = test_run_tool_cmdline("upscale -q -o '%s' --scale 2 -- '%s'", TMP("dd.png"),
                                   TMP("-x.png"));
    CHECK_EQ_INT(rc, 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' upscale -o dd2.png --scale 2 -q -- -x.png",
             UPF_TEST_TMPDIR, UPF_TOOL_PATH);
    CHECK_EQ_INT(test_exit_code(system(cmd)), 0);
    check_image(TMP("dd2.png"), 80, 60, UPF_FORMAT_RGBA8_SRGB);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' upscale -x.png -o dd3.png --scale 2 2>/dev/null",
             UPF_TEST_TMPDIR, UPF_TOOL_PATH);
    CHECK_EQ_INT(test_exit_code(system(cmd)), 1); /* without "--" it is an unknown option */

    /* Sizes as people write them. */
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("w.png"), "--size", "100x", "-q");
    check_image(TMP("w.png"), 100, 75, UPF_FORMAT_RGBA8_SRGB);
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("w.png"), "--size", "x15", "-q");
    check_image(TMP("w.png"), 20, 15, UPF_FORMAT_RGBA8_SRGB);
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("w.png"), "--scale", "1.5X", "-q");
    check_image(TMP("w.png"), 60, 45, UPF_FORMAT_RGBA8_SRGB);
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("w.png"), "--size", "x");
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("w.png"), "--scale", "2y");

    /* Batches: files into a folder (made), on one engine for pictures of one size; a folder
     * in, a folder out; a bad file does not stop the others. */
    write_random_png(TMP("b8.png"), 40, 30, UPF_FORMAT_RGBA8_SRGB, rng);
    RUN(0, "upscale", TMP("in8.png"), TMP("b8.png"), "-o", TMP("batch"), "--scale", "2",
        "--engine", "lanczos", "--json");
    check_image(TMP("batch/in8.png"), 80, 60, UPF_FORMAT_RGBA8_SRGB);
    check_image(TMP("batch/b8.png"), 80, 60, UPF_FORMAT_RGBA8_SRGB);
    const char *first = strstr(test_tool_out(), "\"engine_bytes\"");
    CHECK(first && !strstr(first + 1, "\"engine_bytes\"")); /* made once for both */
    CHECK(strstr(test_tool_out(), "\"files_ok\": 2, \"files_failed\": 0") != NULL);
    mkdir(TMP("bin"), 0755);
    write_random_png(TMP("bin/a.png"), 16, 12, UPF_FORMAT_RGBA8_SRGB, rng);
    write_random_png(TMP("bin/b.png"), 20, 10, UPF_FORMAT_RGBA16_SRGB, rng);
    FILE *f = fopen(TMP("bin/readme.txt"), "w");
    if (f)
        fclose(f);
    RUN(0, "upscale", TMP("bin"), "-o", TMP("bout"), "--scale", "2", "--format", "pfm");
    check_image(TMP("bout/a.pfm"), 32, 24, UPF_FORMAT_RGBA32F);
    check_image(TMP("bout/b.pfm"), 40, 20, UPF_FORMAT_RGBA32F);
    CHECK(strstr(test_tool_out(), "upscaled 2 of 2 files") != NULL);
    CHECK(imageio_write_file_atomic(TMP("bin/c.png"), "\x89PNG\r\n\x1a\n", 8, err) == UPF_OK);
    RUN(2, "upscale", TMP("bin"), "-o", TMP("bout2"), "--scale", "2");
    CHECK(strstr(test_tool_out(), "upscaled 2 of 3 files") && strstr(test_tool_err(), "c.png"));
    CHECK(exists(TMP("bout2/a.png")) && exists(TMP("bout2/b.png")) && !exists(TMP("bout2/c.png")));
    RUN(1, "upscale", TMP("in8.png"), TMP("batch/in8.png"), "-o", TMP("bout3"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "would both be written to") != NULL);
    CHECK(!exists(TMP("bout3")));
    RUN(1, "upscale", TMP("in8.png"), TMP("b8.png"), "-o", TMP("one.png"), "--scale", "2");

    /* It says what it chose. */
    char grey[4096];
    snprintf(grey, sizeof grey, "%s/fuzz/corpus/png/grey8.png", UPF_SOURCE_DIR);
    RUN(0, "upscale", grey, "-o", TMP("grey.png"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "is greyscale;") && strstr(test_tool_err(), "written as RGB"));
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("f.pfm"), "--scale", "2", "--bits", "16");
    CHECK(strstr(test_tool_err(), "--bits 16 does not apply to PFM") != NULL);
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("f.pfm"), "--scale", "2");
    CHECK(strstr(test_tool_err(), "replacing") != NULL);
    /* An existing file keeps its mode; a link is written through. */
    chmod(TMP("f.pfm"), 0640);
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("f.pfm"), "--scale", "1", "-q");
    struct stat st;
    CHECK(stat(TMP("f.pfm"), &st) == 0 && (st.st_mode & 0777) == 0640);
    unlink(TMP("link.png"));
    CHECK(symlink(TMP("w.png"), TMP("link.png")) == 0);
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("link.png"), "--size", "33x22", "-q");
    CHECK(lstat(TMP("link.png"), &st) == 0 && S_ISLNK(st.st_mode));
    check_image(TMP("w.png"), 33, 22, UPF_FORMAT_RGBA8_SRGB);

    /* compare on pictures smaller than SSIM's window: the rest is measured. */
    write_random_png(TMP("s8.png"), 8, 8, UPF_FORMAT_RGBA8_SRGB, rng);
    RUN(0, "compare", TMP("s8.png"), TMP("s8.png"));
    CHECK(strstr(test_tool_out(), "ssim    n/a (the picture is 8x8, smaller than SSIM's 11x11") &&
          strstr(test_tool_out(), "flip"));
    RUN(0, "compare", TMP("s8.png"), TMP("s8.png"), "--json");
    CHECK(strstr(test_tool_out(), "\"ssim\": null, \"ssim_absent\": \"the picture is 8x8") != NULL);
    RUN(0, "compare", TMP("in8.png"), TMP("b8.png"), "--crop", "0,0,10,20", "--metric", "ssim,psnr");
    CHECK(strstr(test_tool_out(), "the crop is 10x20") != NULL);

    /* --threads 0 is automatic, everywhere. */
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("t0.png"), "--scale", "2", "--threads", "0", "-q");
    RUN(0, "compare", TMP("in8.png"), TMP("b8.png"), "--threads", "0");
    RUN(0, "render", "courtyard", "--size", "16x9", "-o", TMP("r0"), "--threads", "0", "-q");
    CHECK(test_tool_out()[0] == '\0' && test_tool_err()[0] == '\0');
    RUN(1, "upscale", TMP("in8.png"), "-o", TMP("t0.png"), "--scale", "2", "--threads", "65");

    /* -q: commands that make files say nothing; a measurement is still printed. */
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("q.png"), "--scale", "2", "-q");
    CHECK(test_tool_out()[0] == '\0' && test_tool_err()[0] == '\0');
    RUN(0, "compare", TMP("in8.png"), TMP("b8.png"), "-q");
    CHECK(strstr(test_tool_out(), "psnr") && test_tool_err()[0] == '\0');
    RUN(0, "render", "courtyard", "--size", "16x9", "-o", TMP("r0"));
    CHECK(strstr(test_tool_out(), "wrote 1 frame of courtyard") != NULL); /* the report: stdout */

    /* upscale --json: the report with numbers as numbers. */
    RUN(0, "upscale", TMP("in8.png"), "-o", TMP("j.png"), "--scale", "2", "--engine", "bilinear",
        "--json");
    CHECK(strstr(test_tool_out(), "{\"command\": \"upscale\", \"files\": [{\"input\": ") &&
          strstr(test_tool_out(), "\"width\": 80, \"height\": 60, \"engine\": \"bilinear\"") &&
          strstr(test_tool_out(), "\"files_ok\": 1"));

    /* A failed run removes its --debug-passes pictures, and the folder if it made it (the
     * write of the picture fails here: standard output is full). */
    if (exists("/dev/full")) {
        RUN_IO(2, NULL, "/dev/full", "upscale", TMP("in8.png"), "-o", "-", "--scale", "2",
               "--model", TMP("m6.upfm"), "--debug-passes", TMP("dbgfail"));
        CHECK(!exists(TMP("dbgfail")));
        mkdir(TMP("dbgkeep"), 0755);
        RUN_IO(2, NULL, "/dev/full", "upscale", TMP("in8.png"), "-o", "-", "--scale", "2",
               "--model", TMP("m6.upfm"), "--debug-passes", TMP("dbgkeep"));
        CHECK(exists(TMP("dbgkeep")) && count_in(TMP("dbgkeep"), "") == 0);
    }
    /* Plurals: "1 view", "1 thread". */
    RUN(0, "train", "data", "--views", "1", "--size", "24x24", "--spp", "16", "--steps", "6",
        "--scenes", "calibration", "--threads", "1", "-o", TMP("td1"));
    CHECK(strstr(test_tool_out(), ": 1 view in") && strstr(test_tool_out(), "1 thread)") &&
          strstr(test_tool_out(), "1 view of calibration (1 build,"));

    /* help names the new options. */
    RUN(0, "help", "upscale");
    CHECK(strstr(test_tool_out(), "--max-pixels") && strstr(test_tool_out(), "--json") &&
          strstr(test_tool_out(), "-q, --quiet") && strstr(test_tool_out(), "EXIF orientation") &&
          strstr(test_tool_out(), "Ctrl-C"));
}

/* HDR and alpha through the default engine (the spatial one when the build has models):
 * never clipped or cut silently (issue 10, items 1 and 2). */
static void test_hdr_alpha(void)
{
    char err[IMAGEIO_ERR_SIZE];
    imageio_image hdr;
    CHECK(imageio_alloc(&hdr, 24, 16, UPF_FORMAT_RGBA32F, err) == UPF_OK);
    float *p = hdr.img.data;
    for (int i = 0; i < 24 * 16; i++)
        for (int c = 0; c < 4; c++)
            p[4 * i + c] = c == 3 ? 1.0f : (float)(i % 24) * 100.0f / 23.0f;
    CHECK(imageio_write_pfm(TMP("hdr.pfm"), &hdr.img, err) == UPF_OK);
    imageio_free(&hdr);
    const char *engines[] = { NULL, "lanczos", "spatial" };
    for (int e = 0; e < 3; e++) {
        if (e == 2 && !upf__default_models_size)
            continue;
        if (engines[e])
            RUN(0, "upscale", TMP("hdr.pfm"), "-o", TMP("hdr2.pfm"), "--scale", "2", "--engine",
                engines[e]);
        else
            RUN(0, "upscale", TMP("hdr.pfm"), "-o", TMP("hdr2.pfm"), "--scale", "2");
        if (e != 1 && upf__default_models_size)
            CHECK(strstr(test_tool_err(), "tone-maps them") != NULL);
        imageio_image out;
        if (imageio_read(TMP("hdr2.pfm"), NULL, &out, err) == UPF_OK) {
            float hi = 0;
            for (int i = 0; i < out.img.width * out.img.height; i++)
                hi = fmaxf(hi, ((float *)out.img.data)[4 * i]);
            CHECKF(hi > 90.0f && hi < 110.0f, "%s: max %g (a picture to 100)",
                   engines[e] ? engines[e] : "default", (double)hi);
            imageio_free(&out);
        }
    }
    /* An alpha ramp keeps its levels (the spatial engine gave 18 distinct values). */
    imageio_image ramp;
    CHECK(imageio_alloc(&ramp, 64, 8, UPF_FORMAT_RGBA8_SRGB, err) == UPF_OK);
    uint8_t *q = ramp.img.data;
    for (int i = 0; i < 64 * 8; i++)
        q[4 * i] = q[4 * i + 1] = q[4 * i + 2] = 128, q[4 * i + 3] = (uint8_t)(4 * (i % 64));
    CHECK(imageio_write_png(TMP("ramp.png"), &ramp.img, 8, err) == UPF_OK);
    imageio_free(&ramp);
    RUN(0, "upscale", TMP("ramp.png"), "-o", TMP("ramp2.png"), "--scale", "2", "--json");
    if (upf__default_models_size)
        CHECK(strstr(test_tool_out(), "\"engine\": \"spatial\"") &&
              strstr(test_tool_out(), "\"engine_bytes\": "));
    imageio_image out;
    if (imageio_read(TMP("ramp2.png"), NULL, &out, err) == UPF_OK) {
        bool seen[256] = { false };
        int distinct = 0;
        for (int i = 0; i < out.img.width * out.img.height; i++) {
            uint8_t a = ((uint8_t *)out.img.data)[4 * i + 3];
            distinct += !seen[a];
            seen[a] = true;
        }
        CHECKF(distinct >= 64, "%d distinct alpha values", distinct);
        imageio_free(&out);
    }
}

int main(void)
{
    test_rng rng = test_rng_make("cli");
    /* A fresh folder: the checks count the files in it. */
    CHECK(system("rm -rf '" UPF_TEST_TMPDIR "'") == 0);
    mkdir(UPF_TEST_TMPDIR, 0755);
    test_help();
    test_upscale(&rng);
    test_spatial_cli(&rng);
    test_compare(&rng);
    test_signals(&rng);
    test_png_compression();
    test_messages();
    test_manners(&rng);
    test_hdr_alpha();
    return test_finish("cli");
}
