/* test_cli_interpolate.c: `upframe interpolate` end to end: two images to a file and to a
 * folder, sequences in the layout `upframe render` writes (with and without their motion)
 * and folders of numbered PNGs, the summary, every usage and bad-input error, gaps in a
 * folder's numbering, and no output left behind on failure. */
#include <sys/stat.h>
#include <unistd.h>

#include "imageio/image_io.h"
#include "sequence/json.h"
#include "test_util.h"

#define TMP UPF_TEST_TMPDIR

static json_doc doc;

#define run test_run_tool_cmdline

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void png_size(const char *path, int *w, int *h)
{
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    *w = *h = 0;
    if (imageio_read(path, NULL, &img, err) == UPF_OK) {
        *w = img.img.width, *h = img.img.height;
        imageio_free(&img);
    }
}

static double json_number(const char *text, const char *key, const char *sub)
{
    char err[200];
    if (!json_parse(text, strlen(text), &doc, err, sizeof err))
        return NAN;
    int v = json_get(&doc, 0, key);
    if (v > 0 && sub)
        v = json_get(&doc, v, sub);
    return v > 0 ? doc.v[v].number : NAN;
}

static void test_pairs(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render courtyard --size 64x36 --frames 3 --path pan --quiet -o %s/seq",
                     TMP), 0);
    /* two images, one phase, into a PNG */
    CHECK_EQ_INT(run("interpolate %s/seq/0000.final.png %s/seq/0001.final.png -o %s/mid.png "
                     "--phase 0.25", TMP, TMP, TMP), 0);
    CHECKF(strstr(out, "wrote 1 frame 64x36"), "%s", out);
    int w, h;
    png_size(TMP "/mid.png", &w, &h);
    CHECK(w == 64 && h == 36);
    /* the flow's resolution: the half-size frame's forced at 64x36, or a usage error */
    CHECK_EQ_INT(run("interpolate %s/seq/0000.final.png %s/seq/0001.final.png -o %s/half.png "
                     "--flow half -q", TMP, TMP, TMP), 0);
    CHECK(exists(TMP "/half.png"));
    CHECK_EQ_INT(run("interpolate %s/seq/0000.final.png %s/seq/0001.final.png -o %s/x.png "
                     "--flow quarter", TMP, TMP, TMP), 1);
    CHECKF(strstr(out, "--flow 'quarter': expected full, half or auto") && !exists(TMP "/x.png"),
           "%s", out);
    /* and a PFM */
    CHECK_EQ_INT(run("interpolate %s/seq/0000.color.pfm %s/seq/0001.color.pfm -o %s/mid.pfm -q",
                     TMP, TMP, TMP), 0);
    CHECK(exists(TMP "/mid.pfm") && out[0] == '\0');
    /* a factor into a folder, with B's motion and depth and the HUD layers */
    CHECK_EQ_INT(run("interpolate %s/seq/0000.color.pfm %s/seq/0001.color.pfm -o %s/f4 "
                     "--factor 4 --motion-b %s/seq/0001.motion.pfm --depth-b "
                     "%s/seq/0001.depth.pfm --depth-a %s/seq/0000.depth.pfm --depth-reversed "
                     "--hud-a %s/seq/0000.hud.png --hud-b %s/seq/0001.hud.png --json", TMP, TMP,
                     TMP, TMP, TMP, TMP, TMP, TMP), 0);
    CHECK(exists(TMP "/f4/0001.png") && exists(TMP "/f4/0003.png") &&
          !exists(TMP "/f4/0004.png"));
    CHECK(json_number(out, "frames_made", NULL) == 3);
    CHECK(json_number(out, "pairs_by_method", "vectors") == 1);
    CHECK(json_number(out, "mean_pass_ms_per_made_frame", "splat") > 0);
    /* the blend */
    CHECK_EQ_INT(run("interpolate %s/seq/0000.final.png %s/seq/0001.final.png -o %s/b.png "
                     "--blend --json", TMP, TMP, TMP), 0);
    CHECK(json_number(out, "pairs_by_method", "blend") == 1);
}

static void test_sequences(void)
{
    const char *out = test_tool_out();
    /* the render layout: motion used, N times as long */
    CHECK_EQ_INT(run("interpolate %s/seq -o %s/s2 --factor 2 --json -q", TMP, TMP), 0);
    CHECK(json_number(out, "frames_written", NULL) == 5);
    CHECK(json_number(out, "pairs_by_method", "vectors") == 2);
    CHECK(exists(TMP "/s2/0004.png") && !exists(TMP "/s2/0005.png"));
    CHECK_EQ_INT(run("interpolate %s/seq -o %s/s3 --factor 3 --no-motion --json", TMP, TMP), 0);
    CHECK(json_number(out, "pairs_by_method", "flow") == 2);
    CHECK(exists(TMP "/s3/0006.png") && !exists(TMP "/s3/0007.png"));
    /* numbered PNGs */
    mkdir(TMP "/png", 0777);
    char cmd[4096];
    for (int k = 0; k < 3; k++) {
        snprintf(cmd, sizeof cmd, "cp '%s/seq/%04d.final.png' '%s/png/shot_%d.png'", TMP, k, TMP,
                 k + 7);
        CHECK(system(cmd) == 0);
    }
    CHECK_EQ_INT(run("interpolate %s/png -o %s/p3 --factor 3", TMP, TMP), 0);
    CHECKF(strstr(out, "wrote 7 frames 64x36 (3 in, 4 made)"), "%s", out);
    /* a gap in the numbering: a clear error, nothing written */
    CHECK(rename(TMP "/png/shot_8.png", TMP "/png/shot_10.png") == 0);
    CHECK_EQ_INT(run("interpolate %s/png -o %s/gap --factor 2", TMP, TMP), 2);
    CHECKF(strstr(out, "jumps from 7") && strstr(out, "frame 8 is missing"), "%s", out);
    CHECK(!exists(TMP "/gap"));
    /* a frame of another size, after some files were written: they are removed */
    CHECK(rename(TMP "/png/shot_10.png", TMP "/png/shot_8.png") == 0);
    CHECK_EQ_INT(run("render courtyard --size 32x18 --frames 1 --quiet -o %s/small", TMP), 0);
    snprintf(cmd, sizeof cmd, "cp '%s/small/0000.final.png' '%s/png/shot_10.png'", TMP, TMP);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "cp '%s/png/shot_7.png' '%s/png/shot_9.png'", TMP, TMP);
    CHECK(system(cmd) == 0);
    CHECK_EQ_INT(run("interpolate %s/png -o %s/sz --factor 2", TMP, TMP), 2);
    CHECKF(strstr(out, "is 32x18, the frames before 64x36"), "%s", out);
    CHECK(!exists(TMP "/sz"));
    /* the render layout with a gap */
    CHECK(rename(TMP "/seq/0001.json", TMP "/seq/0001.json.off") == 0);
    CHECK_EQ_INT(run("interpolate %s/seq -o %s/sg --factor 2", TMP, TMP), 2);
    CHECKF(strstr(out, "frame 1 is missing"), "%s", out);
    CHECK(rename(TMP "/seq/0001.json.off", TMP "/seq/0001.json") == 0);
}

static void test_errors(void)
{
    const char *out = test_tool_out();
    const char *a = TMP "/seq/0000.final.png", *b = TMP "/seq/0001.final.png";
    static const struct { const char *args, *needle; int code; } cases[] = {
        { "--phase 1", "strictly between 0 and 1", 1 },
        { "--phase 0", "strictly between 0 and 1", 1 },
        { "--phase nan", "strictly between 0 and 1", 1 },
        { "--factor 9 -o " TMP "/x9", "expected an integer 2..8", 1 },
        { "--factor 1 -o " TMP "/x1", "expected an integer 2..8", 1 },
        { "--phase 0.5 --factor 2", "expected one", 1 },
        { "--motion-b " TMP "/seq/0001.motion.pfm", "needs --depth-b", 1 },
        { "--no-motion", "applies to a sequence folder", 1 },
        { "--motion-b " TMP "/seq/0001.depth.pfm --depth-b " TMP "/seq/0001.depth.pfm",
          "not a colour PFM", 2 },
        { "--depth-b " TMP "/seq/0001.motion.pfm --motion-b " TMP "/seq/0001.motion.pfm",
          "not a grey PFM", 2 },
        { "--hud-b " TMP "/small/0000.hud.png", "expected 64x36", 2 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = run("interpolate %s %s %s%s", a, b, cases[i].args,
                     strstr(cases[i].args, "-o ") ? "" : " -o " TMP "/err.png");
        CHECKF(rc == cases[i].code && strstr(out, cases[i].needle), "%s: exit %d: %s",
               cases[i].args, rc, out);
    }
    CHECK(!exists(TMP "/err.png") && !exists(TMP "/x9"));
    /* sizes that do not match */
    CHECK_EQ_INT(run("interpolate %s %s/small/0000.final.png -o %s/err.png", a, TMP, TMP), 2);
    CHECKF(strstr(out, "is 32x18; expected 64x36"), "%s", out);
    CHECK_EQ_INT(run("interpolate %s/seq -o %s/e --phase 0.5", TMP, TMP), 1);
    CHECK_EQ_INT(run("interpolate %s/seq -o %s/e", TMP, TMP), 1);
    CHECKF(strstr(out, "needs --factor"), "%s", out);
    CHECK_EQ_INT(run("interpolate %s -o %s/e.png", a, TMP), 1);
    CHECKF(strstr(out, "is not a folder; expected two images"), "%s", out);
    CHECK_EQ_INT(run("interpolate %s %s", a, b), 1);
    CHECK_EQ_INT(run("interpolate %s/missing.png %s -o %s/e.png", TMP, b, TMP), 2);
    CHECK(!exists(TMP "/e.png") && !exists(TMP "/e"));
    CHECK_EQ_INT(run("help interpolate"), 0);
    CHECK(strstr(out, "--factor N") != NULL);
}

int main(void)
{
    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0)
        return 1;
    test_pairs();
    test_sequences();
    test_errors();
    return test_finish("cli_interpolate");
}
