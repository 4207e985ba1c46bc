/* test_sequence.c: the frame-sequence reader (tools/sequence) and `upframe temporal`.
 *
 *  - JSON: values, escapes (surrogate pairs to UTF-8), nesting, look-ups; every kind of bad text
 *    refused with the byte it is at.
 *  - Sidecars: what the scene renderer writes reads back as its camera; a user's sidecar with
 *    every optional field; bad ones with their messages (the fuzz corpus' seeds among them).
 *  - The folder: scan order, stems, two sidecars of one frame, a frame without depth, a depth of
 *    the wrong size, a colour PNG instead of the PFM, a frame without motion.
 *  - The tool, end to end on sequences `upframe render` makes: outputs of the right size, the
 *    same on 1 and 2 threads; camera motion without motion files (a warning, or --no-motion);
 *    a jitter phase count that does not suit the ratio (a warning); a size change part way (a
 *    new engine); bad options (exit 1); bad input (exit 2, nothing left behind). */
#include <sys/stat.h>
#include <unistd.h>

#include "imageio/image_io.h"
#include "sequence/json.h"
#include "sequence/pipeline.h"
#include "sequence/sequence.h"
#include "test_util.h"

#define TMP UPF_TEST_TMPDIR

static json_doc doc;

static void test_json(void)
{
    char err[200];
    const char *good = " {\"a\": [1, -2.5e1, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"],"
                       " \"b\": {\"c\": {}}, \"d\": []} ";
    CHECK(json_parse(good, strlen(good), &doc, err, sizeof err));
    int a = json_get(&doc, 0, "a");
    CHECK(a > 0 && doc.v[a].type == JSON_ARRAY && doc.v[a].count == 6);
    CHECK(doc.v[json_at(&doc, a, 1)].number == -25.0);
    CHECK(doc.v[json_at(&doc, a, 2)].type == JSON_TRUE);
    CHECK(doc.v[json_at(&doc, a, 4)].type == JSON_NULL);
    int s = json_at(&doc, a, 5);
    CHECK(s > 0 && strcmp(doc.v[s].string, "x\xc3\xa9\xf0\x9f\x98\x80\n") == 0);
    CHECK(json_at(&doc, a, 6) == -1);
    int b = json_get(&doc, 0, "b");
    CHECK(doc.v[json_get(&doc, b, "c")].type == JSON_OBJECT);
    CHECK(doc.v[json_get(&doc, 0, "d")].count == 0);
    CHECK(json_get(&doc, 0, "e") == -1 && json_get(&doc, a, "a") == -1);
    static const struct { const char *text, *needle; } bad[] = {
        { "", "byte 0: the text ends" },
        { "{\"a\" 1}", "byte 5: expected ':'" },
        { "{\"a\": 1,}", "expected a key" },
        { "[1 2]", "byte 3: expected ','" },
        { "{\"a\": 1, \"a\": 2}", "appears twice" },
        { "\"\\q\"", "escape" },
        { "\"\\ud800\"", "high surrogate" },
        { "\"\\udc00\"", "lone low surrogate" },
        { "\"a\x01\"", "control character" },
        { "01", "text after the value" },
        { "1.", "decimal point" },
        { "-", "needs a digit" },
        { "1e", "exponent" },
        { "1e400", "out of range" },
        { "tru", "expected a value" },
        { "\"abc", "ends inside a string" },
        { "{} {}", "text after the value" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool ok = json_parse(bad[i].text, strlen(bad[i].text), &doc, err, sizeof err);
        CHECKF(!ok && strstr(err, bad[i].needle), "%s: %s", bad[i].text, err);
    }
    char deep[200];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    CHECK(!json_parse(deep, 200, &doc, err, sizeof err) && strstr(err, "nested deeper"));
}

static void read_text(const char *path, char *buf, size_t size, size_t *len)
{
    FILE *f = fopen(path, "rb");
    *len = f ? fread(buf, 1, size, f) : 0;
    if (f)
        fclose(f);
}

static int run(const char *fmt, ...)
{
    char args[3072];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return test_run_tool_cmdline("%s", args);
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void test_sidecars(void)
{
    char err[IMAGEIO_ERR_SIZE], text[16384];
    size_t len;
    seq_sidecar s;
    /* what the renderer writes */
    CHECK_EQ_INT(run("render calibration --size 16x10 --frames 2 --jitter halton --output-size "
                     "32x20 --far inf --quiet -o %s/side", TMP), 0);
    read_text(TMP "/side/0001.json", text, sizeof text, &len);
    CHECK_OK(NULL, seq_parse_sidecar(text, len, "0001.json", &s, err));
    CHECK(s.width == 16 && s.height == 10);
    CHECK(s.has_camera && s.camera.far_infinite && s.camera.depth_reversed);
    CHECK_NEAR(s.camera.near_plane, 0.1, 1e-12);
    CHECK_NEAR(s.camera.fov_y, 60 * 3.14159265358979 / 180, 1e-9);
    CHECK(s.has_projection && s.has_matrices);
    CHECK_NEAR(s.frame_time_ms, 1000.0 / 30, 1e-9);
    CHECK_EQ_INT(s.jitter_phases, 32);
    double jx, jy;
    upf_jitter_offset(NULL, 1, 32, &jx, &jy);
    CHECK(s.jitter_x == jx && s.jitter_y == jy);
    CHECK(!s.reset);
    upf_camera c;
    CHECK_OK(NULL, upf_camera_from_projection(NULL, s.projection, UPF_CLIP_DEPTH_ZERO_TO_ONE, &c));
    CHECK(c.far_infinite && c.depth_reversed);
    /* the fuzz corpus' seeds: the good ones read, the bad ones say why */
    static const struct { const char *file, *needle; } seeds[] = {
        { "rendered.json", NULL },
        { "minimal.json", NULL },
        { "user.json", NULL },
        { "bad_truncated.json", "not JSON" },
        { "bad_duplicate.json", "appears twice" },
        { "bad_escape.json", "escape" },
        { "bad_huge.json", "out of range" },
        { "bad_camera.json", "needs \"near\", \"fov_y\" and \"depth\" together" },
        { "bad_far.json", "expected far beyond near" },
        { "bad_deep.json", "nested deeper" },
        { "bad_trailing.json", "text after the value" },
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/fuzz/corpus/sidecar/%s", UPF_SOURCE_DIR, seeds[i].file);
        read_text(path, text, sizeof text, &len);
        upf_result r = seq_parse_sidecar(text, len, seeds[i].file, &s, err);
        if (!seeds[i].needle)
            CHECKF(r == UPF_OK, "%s: %s", seeds[i].file, err);
        else
            CHECKF(r == UPF_ERROR_BAD_DATA && strstr(err, seeds[i].needle) &&
                   strncmp(err, seeds[i].file, strlen(seeds[i].file)) == 0, "%s: %s",
                   seeds[i].file, err);
    }
    /* the user's sidecar: every optional field */
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz/corpus/sidecar/user.json", UPF_SOURCE_DIR);
    read_text(path, text, sizeof text, &len);
    CHECK_OK(NULL, seq_parse_sidecar(text, len, "user.json", &s, err));
    CHECK(s.clip_depth == UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE && s.motion_uv && s.reset);
    CHECK(s.motion_scale_x == 0.5 && s.motion_scale_y == -0.5 && s.color_encoding == 2);
    CHECK(s.exposure == 2 && s.pre_exposure == 0.5 && s.frame_time_ms == 16.7);
    CHECK(s.has_matrices && s.prev_view_projection[3] == 0.1 && !s.has_camera);
    /* more bad fields */
    static const struct { const char *text, *needle; } bad[] = {
        { "[]", "top value is an array" },
        { "{\"height\": 4}", "\"width\" is missing" },
        { "{\"width\": 4.5, \"height\": 4}", "not whole" },
        { "{\"width\": \"4\", \"height\": 4}", "is a string" },
        { "{\"width\": 4, \"height\": 4, \"near\": 1, \"fov_y\": 1, \"depth\": \"up\"}",
          "expected \"forward\" or \"reversed\"" },
        { "{\"width\": 4, \"height\": 4, \"jitter\": [2, 0], \"projection\": [1,0,0,0,0,1,0,0,0,"
          "0,0,1,0,0,-1,0]}", "expected render pixels in -1..1" },
        { "{\"width\": 4, \"height\": 4, \"jitter\": [0]}", "an array of 2 numbers" },
        { "{\"width\": 4, \"height\": 4}", "no camera" },
        { "{\"width\": 4, \"height\": 4, \"view_projection\": [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],"
          " \"projection\": [1,0,0,0,0,1,0,0,0,0,0,1,0,0,-1,0]}", "without \"prev_view_projection\"" },
        { "{\"width\": 4, \"height\": 4, \"motion_scale\": [0, 1], \"projection\": [1,0,0,0,0,1,"
          "0,0,0,0,0,1,0,0,-1,0]}", "non-zero" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        upf_result r = seq_parse_sidecar(bad[i].text, strlen(bad[i].text), "x.json", &s, err);
        CHECKF(r == UPF_ERROR_BAD_DATA && strstr(err, bad[i].needle), "case %zu: %s", i, err);
    }
}

static void test_folder(void)
{
    char err[IMAGEIO_ERR_SIZE], p[4096], q[4096];
    CHECK_EQ_INT(run("render calibration --size 16x10 --frames 3 --jitter halton --output-size "
                     "32x20 --quiet -o %s/fold", TMP), 0);
    seq_fs fs = seq_fs_dir(TMP "/fold");
    seq_list list;
    CHECK_OK(NULL, seq_scan(&fs, &list, err));
    CHECK_EQ_INT(list.count, 3);
    CHECK(list.count == 3 && list.number[2] == 2 && strcmp(list.stem[1], "0001") == 0);
    seq_frame f;
    for (int k = 0; k < list.count; k++) {
        CHECK_OK(NULL, seq_read_frame(&fs, &list, k, NULL, &f, err));
        CHECK(f.color.img.format == UPF_FORMAT_RGBA32F && f.depth.img.format == UPF_FORMAT_R32F);
        CHECK(f.has_motion && f.motion.img.format == UPF_FORMAT_RG32F && f.motion.img.width == 16);
        seq_frame_free(&f);
    }
    /* no motion: read, without it */
    snprintf(p, sizeof p, "%s/fold/0002.motion.pfm", TMP);
    unlink(p);
    CHECK_OK(NULL, seq_read_frame(&fs, &list, 2, NULL, &f, err));
    CHECK(!f.has_motion && !f.motion.img.data);
    seq_frame_free(&f);
    /* the PNG when the PFM colour is missing */
    snprintf(p, sizeof p, "%s/fold/0002.color.pfm", TMP);
    unlink(p);
    CHECK_OK(NULL, seq_read_frame(&fs, &list, 2, NULL, &f, err));
    CHECK(f.color.img.format == UPF_FORMAT_RGBA8_SRGB);
    seq_frame_free(&f);
    /* no depth */
    snprintf(p, sizeof p, "%s/fold/0001.depth.pfm", TMP);
    snprintf(q, sizeof q, "%s/fold/0001.depth.keep", TMP);
    rename(p, q);
    CHECK(seq_read_frame(&fs, &list, 1, NULL, &f, err) == UPF_ERROR_BAD_DATA &&
          strstr(err, "0001.depth.pfm is missing"));
    CHECK(!f.color.img.data);
    /* a depth of another size */
    snprintf(p, sizeof p, "%s/fold/0001.depth.pfm", TMP);
    float small[4] = { 0.1f, 0.2f, 0.3f, 0.4f };
    upf_image si = { small, 2, 2, 0, UPF_FORMAT_R32F };
    CHECK_OK(NULL, imageio_write_pfm(p, &si, err));
    CHECK(seq_read_frame(&fs, &list, 1, NULL, &f, err) == UPF_ERROR_BAD_DATA &&
          strstr(err, "0001.depth.pfm is 2x2; expected 16x10"));
    rename(q, p);
    seq_list_free(&list);
    /* two sidecars of one frame; an empty folder */
    snprintf(p, sizeof p, "%s/fold/0000.json", TMP);
    snprintf(q, sizeof q, "%s/fold/00000.json", TMP);
    CHECK(link(p, q) == 0);
    CHECK(seq_scan(&fs, &list, err) == UPF_ERROR_BAD_DATA && strstr(err, "frame 0 twice"));
    unlink(q);
    mkdir(TMP "/empty", 0777);
    seq_fs e = seq_fs_dir(TMP "/empty");
    CHECK(seq_scan(&e, &list, err) == UPF_ERROR_BAD_DATA && strstr(err, "no frames"));
    seq_fs none = seq_fs_dir(TMP "/does-not-exist");
    CHECK(seq_scan(&none, &list, err) == UPF_ERROR_IO && strstr(err, "cannot open"));
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

static bool same_file(const char *a, const char *b)
{
    void *x, *y;
    size_t nx, ny;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_slurp(a, 1 << 24, &x, &nx, err) != UPF_OK)
        return false;
    if (imageio_slurp(b, 1 << 24, &y, &ny, err) != UPF_OK) {
        free(x);
        return false;
    }
    bool same = nx == ny && memcmp(x, y, nx) == 0;
    free(x);
    free(y);
    return same;
}

static void test_tool(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render calibration --size 24x14 --frames 4 --jitter halton --output-size "
                     "48x28 --path orbit --quiet -o %s/seq", TMP), 0);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/t1 --mode performance --threads 1", TMP, TMP), 0);
    CHECKF(strstr(out, "4 frames 24x14 -> 48x28"), "%s", out);
    int w, h;
    png_size(TMP "/t1/0003.png", &w, &h);
    CHECK(w == 48 && h == 28);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/t2 --scale 2x --threads 2 --quiet", TMP, TMP), 0);
    CHECK(out[0] == '\0');
    /* --json: one object on stdout */
    CHECK_EQ_INT(run("temporal %s/seq -o %s/tj --mode performance --json -q", TMP, TMP), 0);
    char jerr[200];
    CHECKF(json_parse(out, strlen(out), &doc, jerr, sizeof jerr), "%s: %s", jerr, out);
    int fr = json_get(&doc, 0, "frames"), ok = json_get(&doc, 0, "ok");
    CHECK(fr > 0 && doc.v[fr].number == 4 && ok > 0 && doc.v[ok].type == JSON_TRUE);
    int acc = json_get(&doc, json_get(&doc, 0, "mean_pass_ms"), "accumulate");
    CHECK(acc > 0 && doc.v[acc].number > 0);
    /* --max-pixels: the frames are larger than 100 pixels */
    CHECK_EQ_INT(run("temporal %s/seq -o %s/tm --mode performance --max-pixels 100", TMP, TMP), 2);
    CHECK(!exists(TMP "/tm"));
    CHECK(same_file(TMP "/t1/0003.png", TMP "/t2/0003.png"));
    CHECK_EQ_INT(run("temporal %s/seq -o %s/t3 --size 60x35 --sharpness 0.5 --disocclusion "
                     "spatial --no-motion --quiet", TMP, TMP), 0);
    png_size(TMP "/t3/0000.png", &w, &h);
    CHECK(w == 60 && h == 35);
    /* the phase count: 8 phases for 2x draws a warning */
    CHECK_EQ_INT(run("render calibration --size 24x14 --frames 2 --jitter halton --phases 8 "
                     "--quiet -o %s/p8", TMP), 0);
    CHECK_EQ_INT(run("temporal %s/p8 -o %s/t4 --mode performance", TMP, TMP), 0);
    CHECKF(strstr(out, "jittered with 8 phases; 32 suit 24x14 -> 48x28"), "%s", out);
    /* no motion files: camera motion, with a warning */
    char p[4096];
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/p8/%04d.motion.pfm", TMP, k);
        unlink(p);
    }
    CHECK_EQ_INT(run("temporal %s/p8 -o %s/t5 --mode performance", TMP, TMP), 0);
    CHECKF(strstr(out, "0000.motion.pfm is missing: camera motion"), "%s", out);
    /* a size change part way: a new engine, the output size kept (issue 35 item 9) */
    CHECK_EQ_INT(run("render calibration --size 20x12 --frames 1 --time 0.2 --quiet -o %s/big", TMP), 0);
    static const char *const ends[] = { "json", "color.pfm", "depth.pfm", "motion.pfm" };
    for (int k = 0; k < 4; k++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/big/0000.%s", TMP, ends[k]);
        snprintf(b, sizeof b, "%s/seq/0009.%s", TMP, ends[k]);
        rename(a, b);
    }
    CHECK_EQ_INT(run("temporal %s/seq -o %s/t6 --mode performance", TMP, TMP), 0);
    CHECKF(strstr(out, "frame 0009 is 20x12, the frames before 24x14: a new engine"), "%s", out);
    png_size(TMP "/t6/0009.png", &w, &h);
    CHECKF(w == 48 && h == 28, "%dx%d", w, h);
    /* usage errors */
    CHECK_EQ_INT(run("temporal %s/seq -o %s/u1", TMP, TMP), 1);
    CHECK(strstr(out, "needs one of --mode"));
    CHECK_EQ_INT(run("temporal %s/seq -o %s/u1 --mode fast", TMP, TMP), 1);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/u1 --scale 5", TMP, TMP), 1);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/u1 --mode quality --size 10x10", TMP, TMP), 1);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/u1 --mode quality --disocclusion blur", TMP, TMP), 1);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/u1 --mode quality --sharpness 2", TMP, TMP), 1);
    CHECK_EQ_INT(run("temporal -o %s/u1 --mode quality", TMP), 1);
    CHECK_EQ_INT(run("temporal %s/seq --mode quality", TMP), 1);
    CHECK(!exists(TMP "/u1"));
    /* bad input: exit 2, no output left */
    CHECK_EQ_INT(run("temporal %s/empty -o %s/b1 --mode quality", TMP, TMP), 2);
    CHECK(strstr(out, "no frames"));
    CHECK_EQ_INT(run("temporal %s/seq -o %s/b2 --size 200x100", TMP, TMP), 2);
    CHECK(strstr(out, "expected 1 to 4 times the render size"));
    snprintf(p, sizeof p, "%s/seq/0002.depth.pfm", TMP);
    char q[4096];
    snprintf(q, sizeof q, "%s/seq/keep.pfm", TMP);
    rename(p, q);
    CHECK_EQ_INT(run("temporal %s/seq -o %s/b3 --mode performance", TMP, TMP), 2);
    CHECKF(strstr(out, "0002.depth.pfm is missing"), "%s", out);
    CHECK(!exists(TMP "/b3/0000.png") && !exists(TMP "/b3"));
    rename(q, p);
    /* --no-motion on frames whose sidecar has no matrices */
    mkdir(TMP "/nomat", 0777);
    for (int k = 0; k < 3; k++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/seq/0000.%s", TMP, ends[k + 1]);
        snprintf(b, sizeof b, "%s/nomat/0000.%s", TMP, ends[k + 1]);
        CHECK(link(a, b) == 0);
    }
    FILE *f = fopen(TMP "/nomat/0000.json", "w");
    if (f) {
        fputs("{\"width\": 24, \"height\": 14, \"near\": 0.1, \"far\": 1000, \"fov_y\": 1.0, "
              "\"depth\": \"reversed\"}", f);
        fclose(f);
    }
    CHECK_EQ_INT(run("temporal %s/nomat -o %s/b4 --mode quality", TMP, TMP), 0);
    CHECK_EQ_INT(run("temporal %s/nomat -o %s/b5 --mode quality --no-motion", TMP, TMP), 2);
    CHECKF(strstr(out, "no view and previous view-projection matrices"), "%s", out);
    CHECK(system("mkdir -p " TMP "/ro && chmod 500 " TMP "/ro") == 0);
    if (geteuid() != 0) { /* root writes anywhere */
        CHECK_EQ_INT(run("temporal %s/seq -o %s/ro/x --mode quality", TMP, TMP), 2);
    }
    CHECK_EQ_INT(run("help temporal"), 0);
    CHECK(strstr(out, "--disocclusion"));
}

/* ---- the pipeline (sequence/pipeline.h) with stand-in I/O ---------------------------------- */

typedef struct fake_io {
    int fail_read, fail_write; /* the frame whose read or write fails, or -1 */
    int reads, writes;         /* calls, in order */
    int read_order[16], write_order[16];
    int written_value[16];     /* the first pixel of each output written */
} fake_io;

static int fake_read(void *user, int k, seq_frame *f)
{
    fake_io *io = user;
    io->read_order[io->reads++] = k;
    if (k == io->fail_read)
        return 2;
    f->number = 100 + k;
    return 0;
}

static int fake_write(void *user, int k, const upf_image *out)
{
    fake_io *io = user;
    io->write_order[io->writes++] = k;
    io->written_value[k] = *(const int *)out->data;
    return k == io->fail_write ? 3 : 0;
}

/* Both modes: every frame comes in order with its content, every output is written once, in
 * order, with the content it had when put (two buffers alternate, as the caller's contract
 * says); a failed read or write stops the loop with its code, and nothing is read or written
 * after it but the one job already in flight. */
static void test_pipeline(void)
{
    for (int overlap = 0; overlap < 2; overlap++)
        for (int fail = 0; fail < 3; fail++) {
            fake_io io = { fail == 1 ? 4 : -1, fail == 2 ? 2 : -1, 0, 0, { 0 }, { 0 }, { 0 } };
            const int n = 7;
            seq_pipe *p = seq_pipe_start(&(seq_pipe_io){ &io, fake_read, fake_write }, n,
                                         overlap);
            CHECK(p != NULL);
            if (!p)
                return;
            int buf[2][4], rc = 0, k;
            upf_image out[2] = { { buf[0], 1, 1, 0, UPF_FORMAT_RGBA8_SRGB },
                                 { buf[1], 1, 1, 0, UPF_FORMAT_RGBA8_SRGB } };
            for (k = 0; k < n; k++) {
                const seq_frame *f;
                if ((rc = seq_pipe_next(p, &f)) != 0)
                    break;
                CHECK(f && f->number == 100 + k);
                buf[k % 2][0] = 1000 + k;
                if ((rc = seq_pipe_put(p, &out[k % 2])) != 0)
                    break;
            }
            if (!rc)
                rc = seq_pipe_finish(p);
            seq_pipe_stop(&p);
            CHECK(p == NULL);
            CHECKF(rc == (fail == 0 ? 0 : fail == 1 ? 2 : 3), "overlap %d fail %d: rc %d",
                   overlap, fail, rc);
            for (int i = 0; i < io.reads; i++)
                CHECK_EQ_INT(io.read_order[i], i);
            for (int i = 0; i < io.writes; i++) {
                CHECK_EQ_INT(io.write_order[i], i);
                CHECK_EQ_INT(io.written_value[i], 1000 + i);
            }
            if (fail == 0)
                CHECK(io.reads == n && io.writes == n);
            if (fail == 1) /* the read of 4 fails: 4 frames worked on, 3 or 4 written */
                CHECK(io.reads == 5 && k == (overlap ? 4 : 3) && io.writes == (overlap ? 3 : 4));
            if (fail == 2) /* the write of 2 fails: nothing read or written after it */
                CHECKF(io.writes == 3 && io.reads == (overlap ? 4 : 3), "reads %d, writes %d",
                       io.reads, io.writes);
        }
}

/* `upframe temporal` overlapped (the default) and with --serial-io write the same bytes; a read
 * failing part way fails both with the file's name and leaves no output. */
static void test_tool_pipeline(void)
{
    const char *out = test_tool_out();
    CHECK_EQ_INT(run("render calibration --size 32x18 --frames 6 --jitter halton --output-size "
                     "64x36 --path orbit --quiet -o %s/pseq", TMP), 0);
    CHECK_EQ_INT(run("temporal %s/pseq -o %s/po --mode performance -q", TMP, TMP), 0);
    CHECK_EQ_INT(run("temporal %s/pseq -o %s/ps --mode performance -q --serial-io", TMP, TMP), 0);
    for (int k = 0; k < 6; k++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/po/%04d.png", TMP, k);
        snprintf(b, sizeof b, "%s/ps/%04d.png", TMP, k);
        CHECKF(same_file(a, b), "%s and %s differ", a, b);
    }
    /* frame 3's depth cut short */
    char p[4096];
    snprintf(p, sizeof p, "%s/pseq/0003.depth.pfm", TMP);
    CHECK(truncate(p, 100) == 0);
    for (int serial = 0; serial < 2; serial++) {
        CHECK_EQ_INT(run("temporal %s/pseq -o %s/pf --mode performance %s", TMP, TMP,
                         serial ? "--serial-io" : ""), 2);
        CHECKF(strstr(out, "0003.depth.pfm") != NULL, "%s", out);
        CHECK(!exists(TMP "/pf"));
    }
    CHECK_EQ_INT(run("help temporal"), 0);
    CHECK(strstr(out, "--serial-io"));
}

int main(void)
{
    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0)
        return 1;
    test_json();
    test_sidecars();
    test_folder();
    test_tool();
    test_pipeline();
    test_tool_pipeline();
    return test_finish("sequence");
}
