/* test_cli_seqcheck.c: no silent wrong output from the sequence commands (issue 35, items
 * 5-9, 13, 14): a gap in a temporal sequence resets the history, frames without jitter draw
 * a warning, a render size changing part way keeps the output size, interpolate's inputs
 * follow the sidecar's depth convention, the memory an engine will need is refused up front
 * beyond the limit, and pipes are read as pipes. */
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imageio/image_io.h"
#include "test_util.h"

#define TMP UPF_TEST_TMPDIR
#define run test_run_tool_cmdline

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static bool same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
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

static int sh(const char *fmt, const char *a)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, a, a, a, a, a, a, a); /* up to 8 uses of the folder */
    return system(cmd);
}

/* Item 5: frames 2 and 3 missing: frame 4 starts the history again, exactly as a sequence
 * that begins at frame 4 does. */
static void test_gap(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render courtyard --size 32x18 --frames 6 --path pan --jitter halton -q "
                     "-o %s/gap", TMP), 0);
    CHECK_EQ_INT(sh("rm '%s'/gap/0002.* '%s'/gap/0003.* && mkdir '%s/tail' && "
                    "cp '%s'/gap/0004.* '%s'/gap/0005.* '%s/tail/'", TMP), 0);
    CHECK_EQ_INT(run("temporal %s/gap -o %s/gap_out --scale 2 --threads 1", TMP, TMP), 0);
    CHECKF(strstr(out, "frames 2..3 are missing: frame 0004 starts the history again"), "%s",
           out);
    CHECK_EQ_INT(run("temporal %s/tail -o %s/tail_out --scale 2 --threads 1 -q", TMP, TMP), 0);
    CHECK(same_bytes(TMP "/gap_out/0004.png", TMP "/tail_out/0004.png"));
    CHECK(!strstr(out, "no frame has a jitter offset"));
}

/* Item 9: no jitter at all draws a warning; a render size changing part way keeps the
 * output size of the frames before. */
static void test_jitter_and_size(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render courtyard --size 32x18 --frames 3 --path pan -q -o %s/still",
                     TMP), 0);
    CHECK_EQ_INT(run("temporal %s/still -o %s/still_out --scale 2", TMP, TMP), 0);
    CHECKF(strstr(out, "warning: ") && strstr(out, "no frame has a jitter offset"), "%s", out);
    CHECK_EQ_INT(run("render courtyard --size 48x27 --frames 3 --path pan --jitter halton -q "
                     "-o %s/big", TMP), 0);
    CHECK_EQ_INT(sh("cd '%s' && for f in big/0002.*; do cp \"$f\" still/; done", TMP), 0);
    CHECK_EQ_INT(run("temporal %s/still -o %s/mixed --scale 2", TMP, TMP), 0);
    CHECKF(strstr(out, "the output stays 64x36"), "%s", out);
    int w, h;
    png_size(TMP "/mixed/0002.png", &w, &h);
    CHECKF(w == 64 && h == 36, "frame 2 is %dx%d; expected 64x36 like the frames before", w, h);
    /* a size the kept output cannot serve (more than 4x) is an error naming it */
    CHECK_EQ_INT(run("render courtyard --size 8x4 --frames 3 --path pan -q -o %s/tiny", TMP), 0);
    CHECK_EQ_INT(sh("cd '%s' && for f in tiny/0002.*; do cp \"$f\" big/; done", TMP), 0);
    CHECK_EQ_INT(run("temporal %s/big -o %s/big_out --scale 2", TMP, TMP), 2);
    CHECKF(strstr(out, "output 96x54 for frames of 8x4"), "%s", out);
    CHECK(!exists(TMP "/big_out"));
}

/* Item 13: what the engines will need is said and refused up front beyond --max-memory
 * (a small limit here: the 24 GB of two 16384x8192 frames are the same arithmetic). */
static void test_memory(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render courtyard --size 320x180 --frames 2 --jitter halton -q -o %s/m",
                     TMP), 0);
    CHECK_EQ_INT(run("interpolate %s/m/0000.color.pfm %s/m/0001.color.pfm -o %s/m.png "
                     "--max-memory 10M", TMP, TMP, TMP), 2);
    CHECKF(strstr(out, "320x180 frames need about") && strstr(out, "frame generation engine") &&
           strstr(out, "more than the memory limit of 10 MB") && strstr(out, "--max-memory"),
           "%s", out);
    CHECK(!exists(TMP "/m.png"));
    CHECK_EQ_INT(run("interpolate %s/m -o %s/m_out --factor 2 --max-memory 1K", TMP, TMP), 2);
    CHECK(strstr(out, "more than the memory limit of 1 kB") && !exists(TMP "/m_out"));
    CHECK_EQ_INT(run("temporal %s/m -o %s/mt --scale 2 --max-memory 2M", TMP, TMP), 2);
    CHECKF(strstr(out, "640x360 frames need about") && strstr(out, "the temporal engine"), "%s",
           out);
    CHECK(!exists(TMP "/mt"));
    CHECK_EQ_INT(run("temporal %s/m -o %s/mt --scale 2 --max-memory 1G -q", TMP, TMP), 0);
    CHECK_EQ_INT(run("interpolate %s/m -o %s/m_out --factor 2 -q", TMP, TMP), 0);
    CHECK_EQ_INT(run("temporal %s/m -o %s/mt --scale 2 --max-memory 12Q", TMP, TMP), 1);
    CHECK(strstr(out, "--max-memory '12Q' must be a byte count"));
}

/* A command line under bash (process substitution) with a time bound, its output in
 * test_tool_out; returns the exit code (124: it hung). */
static int bash_run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "timeout 60 bash -c \"'%s' %s\" >'%s/tool_output.txt' 2>&1",
             UPF_TOOL_PATH, args, TMP);
    int status = system(cmd);
    test_read_text(TMP "/tool_output.txt", test_tool_out(), 1 << 16);
    return test_exit_code(status);
}

/* Item 14: pipes read as pipes; a FIFO in a sequence folder refused without being opened. */
static void test_pipes(void)
{
    const char *out = test_tool_out();
    char args[2048];
    snprintf(args, sizeof args, "upscale <(cat '%s/m/0000.final.png') -o '%s/ps.png' --scale 2 "
             "--engine bilinear -q", TMP, TMP);
    CHECKF(bash_run(args) == 0, "%s", out);
    CHECK(exists(TMP "/ps.png"));
    CHECK_EQ_INT(system("mkfifo '" TMP "/in.fifo' && (cat '" TMP "/m/0000.final.png' > '" TMP
                        "/in.fifo' &)"), 0);
    snprintf(args, sizeof args, "upscale '%s/in.fifo' -o '%s/fifo.png' --scale 2 --engine "
             "bilinear -q", TMP, TMP);
    CHECKF(bash_run(args) == 0, "%s", out);
    CHECK(exists(TMP "/fifo.png"));
    /* a sidecar and a HUD layer that are FIFOs (no writer): refused at once, not waited on */
    CHECK_EQ_INT(sh("cp -r '%s/m' '%s/mf' && rm '%s/mf/0001.hud.png' && "
                    "mkfifo '%s/mf/0001.hud.png'", TMP), 0);
    snprintf(args, sizeof args, "interpolate '%s/mf' -o '%s/mf_out' --factor 2", TMP, TMP);
    CHECK_EQ_INT(bash_run(args), 2);
    CHECKF(strstr(out, "0001.hud.png is not a regular file"), "%s", out);
    CHECK_EQ_INT(sh("rm '%s/mf/0001.json' && mkfifo '%s/mf/0001.json'", TMP), 0);
    snprintf(args, sizeof args, "temporal '%s/mf' -o '%s/mf_out' --scale 2", TMP, TMP);
    CHECK_EQ_INT(bash_run(args), 2);
    CHECKF(strstr(out, "0001.json is not a regular file (a FIFO)"), "%s", out);
}

/* Item 7: --depth-b takes its convention from the sidecar beside it, and a depth that looks
 * reversed without one draws a warning. Item 8: in a render folder, a missing motion file
 * gives that pair the blend and a missing HUD layer keeps the one before, each with a note. */
static void test_depth_and_layers(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render courtyard --size 48x27 --frames 4 --path pan -q -o %s/rs", TMP),
                 0);
    CHECK_EQ_INT(run("interpolate %s/rs/0000.color.pfm %s/rs/0001.color.pfm -o %s/i1.png "
                     "--motion-b %s/rs/0001.motion.pfm --depth-b %s/rs/0001.depth.pfm", TMP, TMP,
                     TMP, TMP, TMP), 0);
    CHECKF(strstr(out, "the depth convention from " TMP "/rs/0001.json: reversed"), "%s", out);
    CHECK_EQ_INT(sh("cp '%s/rs/0001.depth.pfm' '%s/lone.pfm'", TMP), 0);
    CHECK_EQ_INT(run("interpolate %s/rs/0000.color.pfm %s/rs/0001.color.pfm -o %s/i2.png "
                     "--motion-b %s/rs/0001.motion.pfm --depth-b %s/lone.pfm", TMP, TMP, TMP, TMP,
                     TMP), 0);
    CHECKF(strstr(out, "warning: --depth-b " TMP "/lone.pfm looks reversed"), "%s", out);
    CHECK_EQ_INT(run("interpolate %s/rs/0000.color.pfm %s/rs/0001.color.pfm -o %s/i3.png "
                     "--motion-b %s/rs/0001.motion.pfm --depth-b %s/lone.pfm --depth-reversed",
                     TMP, TMP, TMP, TMP, TMP), 0);
    CHECK(!strstr(out, "warning"));
    /* the sidecar's reading equals --depth-reversed on the lone file */
    CHECK(same_bytes(TMP "/i1.png", TMP "/i3.png"));
    /* item 8 */
    CHECK_EQ_INT(sh("rm '%s/rs/0002.motion.pfm' '%s/rs/0002.hud.png'", TMP), 0);
    CHECK_EQ_INT(run("interpolate %s/rs -o %s/rs_out --factor 2 --json", TMP, TMP), 0);
    CHECKF(strstr(out, "0002.motion.pfm is missing: frames 1 and 2 get the blend") &&
           strstr(out, "0002.hud.png is missing: frame 2 keeps the HUD layer of frame 1"), "%s",
           out);
    CHECKF(strstr(out, "\"vectors\": 2") && strstr(out, "\"flow\": 0") &&
           strstr(out, "\"blend\": 1"), "%s", out);
}

/* Item 6: a cut between two shots of one map, on the optical-flow path (numbered PNGs), is
 * found (by the engine's cut pass: its histograms miss the forest's) and noted, and the
 * hardest motion the renderer makes (the fast turn indoors) is not taken for one. */
static void test_cuts(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render forest --seed 2 --size 160x90 --frames 6 --time 0.9 --path cut -q "
                     "-o %s/cut", TMP), 0);
    CHECK_EQ_INT(run("render interior --size 160x90 --frames 6 --time 0.5 --path turn -q "
                     "-o %s/turn", TMP), 0);
    CHECK_EQ_INT(sh("cd '%s' && mkdir cutp turnp && for f in cut/*.final.png; do "
                    "cp $f cutp/$(basename $f .final.png).png; done && for f in turn/*.final.png;"
                    " do cp $f turnp/$(basename $f .final.png).png; done", TMP), 0);
    CHECK_EQ_INT(run("interpolate %s/cutp -o %s/cut_out --factor 2 --json", TMP, TMP), 0);
    CHECKF(strstr(out, "frames 2 and 3 look like a cut between shots") &&
           strstr(out, "\"blend\": 1"), "%s", out);
    CHECK_EQ_INT(run("interpolate %s/turnp -o %s/turn_out --factor 2 --json", TMP, TMP), 0);
    CHECKF(!strstr(out, "look like a cut") && strstr(out, "\"blend\": 0"), "%s", out);
}

int main(void)
{
    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0)
        return 1;
    test_gap();
    test_jitter_and_size();
    test_memory();
    test_pipes();
    test_depth_and_layers();
    test_cuts();
    return test_finish("cli_seqcheck");
}
