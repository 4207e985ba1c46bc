/* test_cli_outputs.c: nothing lost in the sequence commands' outputs (issue 35, items 1-4,
 * tools/upframe/outset.h): an output folder that holds the inputs is refused, a failed or
 * interrupted re-run keeps the earlier run's frames, a symbolic link is never written
 * through, frames of an earlier run the new one does not write are named, and a batch
 * `upscale` into its own folder says it replaces files. */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "imageio/image_io.h"
#include "test_util.h"

#define TMP UPF_TEST_TMPDIR
#define run test_run_tool_cmdline

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* FNV-1a of a file's bytes (0 when unreadable): "unchanged" checks. */
static unsigned long long file_hash(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned long long h = 1469598103934665603ull;
    int c;
    while ((c = fgetc(f)) != EOF)
        h = (h ^ (unsigned)c) * 1099511628211ull;
    fclose(f);
    return h;
}

static void write_noise_png(const char *path, int w, int h, test_rng *rng)
{
    imageio_image img;
    char err[IMAGEIO_ERR_SIZE];
    CHECK(imageio_alloc(&img, w, h, UPF_FORMAT_RGBA8_SRGB, err) == UPF_OK);
    unsigned char *p = img.img.data;
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        p[i] = i % 4 == 3 ? 255 : (unsigned char)test_rand_u32(rng);
    CHECK(imageio_write(path, &img.img, 8, err) == UPF_OK);
    imageio_free(&img);
}

static void truncate_file(const char *path, long size)
{
    CHECK(truncate(path, size) == 0);
}

/* Item 1: a folder into itself, and an A B pair whose output would replace A. */
static void test_into_inputs(test_rng *rng)
{
    const char *out = test_tool_out();
    mkdir(TMP "/same", 0755);
    char p[512];
    unsigned long long before[3];
    for (int k = 0; k < 3; k++) {
        snprintf(p, sizeof p, TMP "/same/%04d.png", k + 1);
        write_noise_png(p, 32, 16, rng);
        before[k] = file_hash(p);
    }
    CHECK_EQ_INT(run("interpolate %s/same -o %s/same --factor 2", TMP, TMP), 2);
    CHECKF(strstr(out, "is the input folder"), "%s", out);
    CHECK_EQ_INT(run("interpolate %s/same -o %s/same/. --factor 2", TMP, TMP), 2);
    for (int k = 0; k < 3; k++) {
        snprintf(p, sizeof p, TMP "/same/%04d.png", k + 1);
        CHECKF(file_hash(p) == before[k], "%s changed", p);
    }
    CHECK(!exists(TMP "/same/0004.png"));
    /* A B -o DIR --factor 3 writes DIR/0001.png and 0002.png: A is DIR/0001.png */
    CHECK_EQ_INT(run("interpolate %s/same/0001.png %s/same/0003.png -o %s/same --factor 3",
                     TMP, TMP, TMP), 2);
    CHECKF(strstr(out, "is the input"), "%s", out);
    CHECK(file_hash(TMP "/same/0001.png") == before[0]);
    /* another folder works */
    CHECK_EQ_INT(run("interpolate %s/same -o %s/other --factor 2 -q", TMP, TMP), 0);
    CHECK(exists(TMP "/other/0006.png")); /* the numbering kept: 1..3 -> 2..6 */
}

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

/* Item 2: a failed re-run keeps the earlier run's frames (interpolate and temporal). */
static void test_failed_rerun(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render courtyard --size 32x18 --frames 3 --path pan -q -o %s/seq", TMP),
                 0);
    CHECK_EQ_INT(run("interpolate %s/seq -o %s/iout --factor 2 -q", TMP, TMP), 0);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/tout --scale 2 -q", TMP, TMP), 0);
    CHECK_EQ_INT(count_in(TMP "/iout", ".png"), 5);
    CHECK_EQ_INT(count_in(TMP "/tout", ".png"), 3);
    unsigned long long i4 = file_hash(TMP "/iout/0004.png");
    /* the last frame's depth cut short: both runs fail on frame 2, after writing others */
    truncate_file(TMP "/seq/0002.depth.pfm", 40);
    CHECK_EQ_INT(run("interpolate %s/seq -o %s/iout --factor 2", TMP, TMP), 2);
    CHECKF(count_in(TMP "/iout", ".png") == 5, "%d frames left; %s",
           count_in(TMP "/iout", ".png"), out);
    CHECK(file_hash(TMP "/iout/0004.png") == i4); /* not reached: untouched */
    CHECK_EQ_INT(run("temporal %s/seq -o %s/tout --scale 2", TMP, TMP), 2);
    CHECKF(count_in(TMP "/tout", ".png") == 3, "%d frames left; %s",
           count_in(TMP "/tout", ".png"), out);
    CHECK_EQ_INT(count_in(TMP "/tout", ".tmp-"), 0);
    /* a failure into a new folder still leaves nothing */
    CHECK_EQ_INT(run("temporal %s/seq -o %s/tnew --scale 2", TMP, TMP), 2);
    CHECK(!exists(TMP "/tnew"));
}

/* Waits until `path` exists or the process ends (a bound of a minute, not a timing check). */
static bool wait_for(const char *path, pid_t pid)
{
    for (int i = 0; i < 30000; i++) {
        if (exists(path))
            return true;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return false;
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    return false;
}

/* Item 2: render stopped by a signal in a folder of earlier frames keeps them. */
static void test_render_interrupted(void)
{
    CHECK_EQ_INT(run("render courtyard --size 32x18 --frames 3 -q -o %s/rdir", TMP), 0);
    CHECK(file_hash(TMP "/rdir/0002.json") != 0);
    const char *args[] = { "render", "courtyard", "--size", "32x18", "--frames", "5000", "-q",
                           "--seed", "7", "-o", TMP "/rdir", NULL };
    pid_t pid = test_spawn_tool(args, NULL, NULL, TMP "/bg_err.txt");
    bool going = wait_for(TMP "/rdir/0004.json", pid);
    CHECK(going);
    if (going) {
        kill(pid, SIGINT);
        int status;
        waitpid(pid, &status, 0);
        CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status 0x%x", status);
    }
    /* the earlier run's three frames stay (replaced by complete new ones), the new ones go */
    CHECKF(count_in(TMP "/rdir", ".json") == 3, "%d sidecars", count_in(TMP "/rdir", ".json"));
    CHECK(exists(TMP "/rdir/0000.color.pfm") && exists(TMP "/rdir/0002.motion.pfm"));
    CHECK(!exists(TMP "/rdir/0004.json") && count_in(TMP "/rdir", ".tmp-") == 0);

    /* two runs into one folder: a file the failing run created, then another run replaced
     * (a new file renamed over it, as every write here lands), stays: it is not its own */
    const char *args2[] = { "render", "courtyard", "--size", "32x18", "--frames", "5000", "-q",
                            "-o", TMP "/rdir2", NULL };
    pid = test_spawn_tool(args2, NULL, NULL, TMP "/bg_err.txt");
    going = wait_for(TMP "/rdir2/0003.json", pid);
    CHECK(going);
    if (going) {
        FILE *f = fopen(TMP "/other.json", "w");
        if (f) {
            fputs("{\"another run\": true}\n", f);
            fclose(f);
        }
        CHECK(rename(TMP "/other.json", TMP "/rdir2/0001.json") == 0);
        kill(pid, SIGTERM);
        int status;
        waitpid(pid, &status, 0);
        CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status 0x%x", status);
    }
    CHECKF(count_in(TMP "/rdir2", "") == 1 && exists(TMP "/rdir2/0001.json"), "%d files in rdir2",
           count_in(TMP "/rdir2", ""));
}

/* Item 3: a symbolic link where an output goes is refused; its target is untouched. */
static void test_symlink(test_rng *rng)
{
    const char *out = test_tool_out();
    write_noise_png(TMP "/target.png", 32, 16, rng);
    unsigned long long h = file_hash(TMP "/target.png");
    mkdir(TMP "/lout", 0755);
    CHECK(symlink("../target.png", TMP "/lout/0001.png") == 0);
    CHECK_EQ_INT(run("interpolate %s/same/0001.png %s/same/0002.png -o %s/lout --factor 2", TMP,
                     TMP, TMP), 2);
    CHECKF(strstr(out, "symbolic link"), "%s", out);
    CHECK(file_hash(TMP "/target.png") == h);
    struct stat st;
    CHECK(lstat(TMP "/lout/0001.png", &st) == 0 && S_ISLNK(st.st_mode));
    /* temporal likewise */
    mkdir(TMP "/ltout", 0755);
    CHECK(symlink("../target.png", TMP "/ltout/0001.png") == 0);
    CHECK_EQ_INT(run("render courtyard --size 32x18 --frames 2 -q -o %s/seq2", TMP), 0);
    CHECK_EQ_INT(run("temporal %s/seq2 -o %s/ltout --scale 2", TMP, TMP), 2);
    CHECKF(strstr(out, "symbolic link"), "%s", out);
    CHECK(file_hash(TMP "/target.png") == h);
    CHECK(!exists(TMP "/ltout/0000.png"));
}

/* Item 4: a smaller factor after a larger one names the frames it leaves; a batch upscale
 * into its own folder says what it replaces. */
static void test_strays(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("interpolate %s/same -o %s/f4 --factor 4 -q", TMP, TMP), 0);
    CHECK_EQ_INT(count_in(TMP "/f4", ".png"), 9); /* frames 4 .. 12; factor 2 writes 2 .. 6 */
    CHECK_EQ_INT(run("interpolate %s/same -o %s/f4 --factor 2", TMP, TMP), 0);
    CHECKF(strstr(out, "holds 6 frame files this run does not write (0007.png .. 0012.png)") &&
           strstr(out, "replacing"), "%s", out);
    CHECK_EQ_INT(run("interpolate %s/same -o %s/f4 --factor 2 -q", TMP, TMP), 0);
    CHECK(out[0] == '\0');
    mkdir(TMP "/batch", 0755);
    CHECK(system("cp '" TMP "/same/0001.png' '" TMP "/same/0002.png' '" TMP "/batch/'") == 0);
    CHECK_EQ_INT(run("upscale %s/batch -o %s/batch --scale 2 --engine bilinear", TMP, TMP), 0);
    CHECKF(strstr(out, "replacing") && strstr(out, "0002.png"), "%s", out);
}

int main(void)
{
    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0)
        return 1;
    test_rng rng = test_rng_make("cli_outputs");
    test_into_inputs(&rng);
    test_failed_rerun();
    test_render_interrupted();
    test_symlink(&rng);
    test_strays();
    return test_finish("cli_outputs");
}
