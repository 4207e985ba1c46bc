/* test_cli_messages.c: the messages and help that issue 35 found wrong ("Messages and
 * help"), each as a user meets it: the help lists --backend, numbered folders take any
 * picture and name (the last run of digits, the numbering kept), sidecar and option ranges
 * say what they expect, a PFM near the float maximum is refused before the work, a factor
 * into a picture's name is refused, --depth-a's size is checked without motion, a bad
 * UPF_VK_DEVICE is refused, the failure JSON counts what it made, and the demo does not talk
 * about HDR it made itself. */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/color.h"
#include "imageio/image_io.h"
#include "sequence/json.h"
#include "test_util.h"
#include "jpeg_make.h"

#define TMP UPF_TEST_TMPDIR
#define run test_run_tool_cmdline

static json_doc doc;

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static double json_number(const char *text, const char *key, const char *sub)
{
    char err[200];
    const char *brace = strchr(text, '{');
    if (!brace || !json_parse(brace, strlen(brace), &doc, err, sizeof err))
        return NAN;
    int v = json_get(&doc, 0, key);
    if (v > 0 && sub)
        v = json_get(&doc, v, sub);
    return v > 0 ? doc.v[v].number : NAN;
}

static void write_grey(const char *path, int w, int h, float v)
{
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    CHECK(imageio_alloc(&img, w, h, UPF_FORMAT_RGBA32F, err) == UPF_OK);
    float *p = img.img.data;
    for (int i = 0; i < w * h; i++)
        p[4 * i] = p[4 * i + 1] = p[4 * i + 2] = (i % 3) ? v : 0.0f, p[4 * i + 3] = 1;
    CHECK(imageio_write(path, &img.img, 8, err) == UPF_OK);
    imageio_free(&img);
}

/* write_grey's picture as a JPEG (8-bit sRGB grey, libjpeg at quality 95). */
static void write_grey_jpeg(const char *path, int w, int h, float v)
{
    uint8_t *grey = malloc((size_t)w * h);
    for (int i = 0; i < w * h; i++)
        grey[i] = (i % 3) ? upf_linear_to_srgb8(v) : 0;
    size_t size = 0;
    unsigned char *jpg = jpeg_make(grey, w, h, 1, 95, false, &size);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(jpg, 1, size, f) == size);
    if (f)
        fclose(f);
    free(jpg);
    free(grey);
}

static void test_help(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("help upscale"), 0);
    CHECK(strstr(out, "--backend cpu|vulkan") && strstr(out, "UPF_VK_DEVICE") &&
          strstr(out, "--max-memory"));
    CHECK_EQ_INT(run("help temporal"), 0);
    CHECK(strstr(out, "--max-memory"));
    CHECK_EQ_INT(run("help interpolate"), 0);
    CHECK(strstr(out, "--max-memory") && strstr(out, "shot_0007_final.png"));
}

/* Numbered folders: names with text after the number, a JPEG among PNGs, the numbering kept;
 * a number of 20 digits is named as such. */
static void test_numbered(void)
{
    const char *out = test_tool_out();
    mkdir(TMP "/shots", 0755);
    write_grey(TMP "/shots/shot_0008_final.png", 24, 16, 0.3f);
    write_grey(TMP "/shots/shot_0009_final.png", 24, 16, 0.5f);
    write_grey_jpeg(TMP "/shots/shot_0010_final.jpg", 24, 16, 0.5f);
    CHECK_EQ_INT(run("interpolate %s/shots -o %s/shots_out --factor 2", TMP, TMP), 0);
    CHECKF(strstr(out, "wrote 5 frames 24x16 (3 in, 2 made)"), "%s", out);
    CHECK(exists(TMP "/shots_out/0016.png") && exists(TMP "/shots_out/0020.png") &&
          !exists(TMP "/shots_out/0000.png"));
    mkdir(TMP "/long", 0755);
    write_grey(TMP "/long/f12345678901234567890.png", 8, 8, 0.3f);
    write_grey(TMP "/long/f12345678901234567891.png", 8, 8, 0.3f);
    CHECK_EQ_INT(run("interpolate %s/long -o %s/long_out --factor 2", TMP, TMP), 2);
    CHECKF(strstr(out, "the frame number has 20 digits; expected at most 9"), "%s", out);
}

static void test_ranges(void)
{
    const char *out = test_tool_out();
    /* a sidecar's motion_scale of 1e308 */
    CHECK_EQ_INT(run("render courtyard --size 16x9 --frames 2 --jitter halton -q -o %s/seq",
                     TMP), 0);
    CHECK_EQ_INT(system("sed -i 's/^{/{\"motion_scale\": [1e308, 1],/' '" TMP "/seq/0001.json'"),
                 0);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/t --scale 2", TMP, TMP), 2);
    CHECKF(strstr(out, "\"motion_scale\" is [1e+308, 1]; expected non-zero factors of magnitude "
                       "below 1e7"), "%s", out);
    /* compare --ppd below FLIP's range: a usage error naming the range */
    write_grey(TMP "/a.png", 16, 16, 0.4f);
    CHECK_EQ_INT(run("compare %s/a.png %s/a.png --metric flip --ppd 1.5", TMP, TMP), 1);
    CHECKF(strstr(out, "--ppd '1.5' must be a number in 2..1000"), "%s", out);
    CHECK_EQ_INT(run("compare %s/a.png %s/a.png --metric flip --ppd 2", TMP, TMP), 0);
    /* a PFM near the float maximum into a PFM: refused before the work */
    write_grey(TMP "/max.pfm", 8, 8, 3e38f);
    CHECK_EQ_INT(run("upscale %s/max.pfm -o %s/max_out.pfm --scale 2", TMP, TMP), 2);
    CHECKF(strstr(out, "holds values up to 3e+38; expected magnitudes of at most 1e37"), "%s",
           out);
    CHECK(!exists(TMP "/max_out.pfm"));
}

static void test_interpolate_checks(void)
{
    const char *out = test_tool_out();
    write_grey(TMP "/b.png", 16, 16, 0.6f);
    CHECK_EQ_INT(run("interpolate %s/a.png %s/b.png -o %s/x.png --factor 2", TMP, TMP, TMP), 1);
    CHECKF(strstr(out, "-o " TMP "/x.png with --factor: expected a folder"), "%s", out);
    CHECK(!exists(TMP "/x.png"));
    /* --depth-a of another size, without motion (flow) */
    CHECK_EQ_INT(run("interpolate %s/a.png %s/b.png -o %s/mid.png --depth-a %s/seq/0000.depth.pfm",
                     TMP, TMP, TMP, TMP), 2);
    CHECKF(strstr(out, "is 16x9; expected 16x16 like the frames"), "%s", out);
    /* the failure JSON counts what was made (then removed), consistently */
    CHECK_EQ_INT(run("render courtyard --size 16x9 --frames 3 -q -o %s/s3", TMP), 0);
    CHECK(truncate(TMP "/s3/0002.depth.pfm", 30) == 0);
    CHECK_EQ_INT(run("interpolate %s/s3 -o %s/s3_out --factor 2 --json -q", TMP, TMP), 2);
    const double made = json_number(out, "frames_made", NULL);
    const double pairs = json_number(out, "pairs_by_method", "vectors") +
                         json_number(out, "pairs_by_method", "flow") +
                         json_number(out, "pairs_by_method", "blend");
    CHECKF(made == 1 && pairs == 1, "frames_made %g, pairs %g: %s", made, pairs, out);
}

/* A command run with a bad UPF_VK_DEVICE: refused with the variable and the value named
 * (`says`; exit 2 where `usage`, else any failure), or exit 1 where this build has no
 * Vulkan. */
static void check_bad_device(int rc, const char *out, const char *says, bool usage)
{
    if (strstr(out, "this build has no Vulkan")) {
        CHECK_EQ_INT(rc, 1);
    } else {
        CHECKF((usage ? rc == 2 : rc != 0) && strstr(out, says), "rc %d: %s", rc, out);
    }
}

#define BAD_ABC "UPF_VK_DEVICE='abc': expected a device number"

static void test_vk_device_and_demo(void)
{
    const char *out = test_tool_out();
    setenv("UPF_VK_DEVICE", "abc", 1);
    int rc = run("upscale %s/a.png -o %s/vk.png --scale 2 --backend vulkan", TMP, TMP);
    unsetenv("UPF_VK_DEVICE");
    check_bad_device(rc, out, BAD_ABC, true);
    setenv("UPF_VK_DEVICE", "-1", 1);
    rc = run("upscale %s/a.png -o %s/vk.png --scale 2 --backend vulkan", TMP, TMP);
    unsetenv("UPF_VK_DEVICE");
    check_bad_device(rc, out, "UPF_VK_DEVICE='-1'", false);
    /* temporal --backend vulkan refuses it too (it read 'abc' as device 0) */
    CHECK_EQ_INT(run("render courtyard --size 16x9 --frames 2 -q -o %s/vkdev", TMP), 0);
    setenv("UPF_VK_DEVICE", "abc", 1);
    rc = run("temporal %s/vkdev -o %s/vkdev_out --scale 1 --backend vulkan", TMP, TMP);
    unsetenv("UPF_VK_DEVICE");
    check_bad_device(rc, out, BAD_ABC, true);
    CHECK_EQ_INT(run("upscale builtin -o %s/demo.png --scale 1.5", TMP), 0);
    CHECKF(!strstr(out, "HDR"), "%s", out);
}

/* Item 10: --debug-passes with the built-in models at every ratio writes the pictures of
 * the passes that run (not the SMAA ones they skip), and the main output. */
static void test_debug_passes(void)
{
    const char *out = test_tool_out();
    static const char *const scales[] = { "1", "1.5", "2", "3", "4" };
    for (int k = 0; k < 5; k++) {
        char dir[512], p[600];
        snprintf(dir, sizeof dir, TMP "/dbg%d", k);
        CHECKF(run("upscale %s/a.png -o %s/dbg%d.png --scale %s --debug-passes %s", TMP, TMP, k,
                   scales[k], dir) == 0, "--scale %s: %s", scales[k], out);
        snprintf(p, sizeof p, "%s/blend.png", dir);
        CHECK(exists(p));
        snprintf(p, sizeof p, "%s/detail.png", dir);
        CHECK(exists(p));
        snprintf(p, sizeof p, TMP "/dbg%d.png", k);
        CHECK(exists(p));
    }
}

/* Issue 35, item 13 for upscale: what a picture's run will take is said and refused
 * beyond --max-memory before the engine and the output are taken, like temporal and
 * interpolate; within it the run goes on. */
static void test_upscale_memory(void)
{
    const char *out = test_tool_out();
    write_grey(TMP "/m320.png", 320, 180, 0.6f);
    CHECK_EQ_INT(run("upscale %s/m320.png -o %s/mem.png --scale 2 --max-memory 1M", TMP, TMP),
                 2);
    CHECKF(strstr(out, "640x360 frames need about") && strstr(out, "the spatial engine") &&
           strstr(out, "more than the memory limit of 1 MB") &&
           strstr(out, "--max-memory (e.g. --max-memory"), "%s", out);
    CHECK(!exists(TMP "/mem.png"));
    CHECK_EQ_INT(run("upscale %s/m320.png -o %s/mem.png --scale 3 --engine lanczos "
                     "--max-memory 1K", TMP, TMP), 2);
    CHECKF(strstr(out, "the lanczos engine") && strstr(out, "memory limit of 1 kB"), "%s", out);
    CHECK(!exists(TMP "/mem.png"));
    CHECK_EQ_INT(run("upscale %s/a.png -o %s/mem.png --scale 2 --max-memory 1G -q", TMP, TMP),
                 0);
    CHECK(exists(TMP "/mem.png"));
    CHECK_EQ_INT(run("upscale %s/a.png -o %s/mem.png --scale 2 --max-memory 3X", TMP, TMP), 1);
    CHECK(strstr(out, "--max-memory '3X' must be a byte count"));
}

int main(void)
{
    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0)
        return 1;
    test_help();
    test_numbered();
    test_ranges();
    test_interpolate_checks();
    test_vk_device_and_demo();
    test_debug_passes();
    test_upscale_memory();
    return test_finish("cli_messages");
}
