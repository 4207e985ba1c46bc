/* make_corpus.c: writes the fuzzers' seed corpora (fuzz/corpus/{png,jpeg,pfm,model,image,
 * sidecar,sequence}/): a handful of tiny files per reader, valid ones of every kind the reader
 * handles and invalid ones near each check, made with libspng's and libjpeg's encoders or by hand. The committed files came
 * from this program; rerun it to remake them:
 *
 *   build/fuzz_make_corpus fuzz/corpus
 *
 * It writes into existing folders png/, jpeg/, pfm/, model/, image/, sidecar/ and sequence/
 * under the given one. The sequence seeds are folders in memory (fuzz_archive.h) of a two-frame render of
 * the scene renderer's calibration scene at 8x6, and variants near each check. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <spng.h>

#include <unistd.h>

#include "fuzz_archive.h"
#include "scene/scene_output.h"
#include "spatial/net.h"

static const char *out_dir;
static int failures;

static void save(const char *sub, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, sub, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "make_corpus: cannot write %s\n", path);
        failures++;
        return;
    }
    printf("%s (%zu bytes)\n", path, size);
}

/* ---- PNG ---------------------------------------------------------------------------------- */

static uint32_t crc32_png(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* Options for one encode: palette, transparency and a few ancillary chunks. */
typedef struct png_extra {
    const struct spng_plte *plte;
    const struct spng_trns *trns;
    bool ancillary;
} png_extra;

static unsigned char *png_encode(struct spng_ihdr ihdr, const png_extra *x, const void *samples,
                                 size_t bytes, size_t *size)
{
    spng_ctx *e = spng_ctx_new(SPNG_CTX_ENCODER);
    int ret = spng_set_option(e, SPNG_ENCODE_TO_BUFFER, 1);
    if (!ret)
        ret = spng_set_ihdr(e, &ihdr);
    if (!ret && x && x->plte) {
        struct spng_plte p = *x->plte;
        ret = spng_set_plte(e, &p);
    }
    if (!ret && x && x->trns) {
        struct spng_trns t = *x->trns;
        ret = spng_set_trns(e, &t);
    }
    if (!ret && x && x->ancillary) {
        spng_set_gama(e, 1.0 / 2.2);
        struct spng_chrm chrm = { 0.3127, 0.329, 0.64, 0.33, 0.3, 0.6, 0.15, 0.06 };
        spng_set_chrm(e, &chrm);
        struct spng_phys phys = { 2835, 2835, 1 };
        spng_set_phys(e, &phys);
        struct spng_time t = { 2024, 1, 2, 3, 4, 5 };
        spng_set_time(e, &t);
        struct spng_text text[2] = {
            { .keyword = "Title", .type = SPNG_TEXT, .length = 5, .text = "seeds" },
            { .keyword = "Comment", .type = SPNG_ZTXT, .length = 12, .text = "zlib text..." },
        };
        spng_set_text(e, text, 2);
        struct spng_sbit sbit = { .red_bits = 5, .green_bits = 6, .blue_bits = 5 };
        spng_set_sbit(e, &sbit);
        struct spng_bkgd bkgd = { .red = 1, .green = 2, .blue = 3 };
        spng_set_bkgd(e, &bkgd);
        struct spng_offs offs = { 10, -3, 0 };
        spng_set_offs(e, &offs);
    }
    if (!ret)
        ret = spng_encode_image(e, samples, bytes, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    unsigned char *buf = NULL;
    if (!ret)
        buf = spng_get_png_buffer(e, size, &ret);
    spng_ctx_free(e);
    if (!buf) {
        fprintf(stderr, "make_corpus: libspng: %s\n", spng_strerror(ret));
        failures++;
    }
    return buf;
}

static size_t png_find_chunk(const unsigned char *png, size_t size, const char *type)
{
    size_t pos = 8;
    while (pos + 12 <= size) {
        uint32_t len = (uint32_t)png[pos] << 24 | (uint32_t)png[pos + 1] << 16 |
                       (uint32_t)png[pos + 2] << 8 | png[pos + 3];
        if (memcmp(png + pos + 4, type, 4) == 0)
            return pos;
        pos += 12 + (size_t)len;
    }
    return 0;
}

static void make_png(void)
{
    size_t size;
    unsigned char *png;
    uint8_t samples[256];
    for (int i = 0; i < 256; i++)
        samples[i] = (uint8_t)(i * 37 + 11);

    png = png_encode((struct spng_ihdr){ 5, 3, 8, SPNG_COLOR_TYPE_GRAYSCALE, 0, 0, 0 }, NULL,
                     samples, 15, &size);
    if (png)
        save("png", "grey8.png", png, size);
    free(png);
    png = png_encode((struct spng_ihdr){ 10, 2, 1, SPNG_COLOR_TYPE_GRAYSCALE, 0, 0, 0 }, NULL,
                     samples, 4, &size);
    if (png)
        save("png", "grey1.png", png, size);
    free(png);
    uint16_t g16[3] = { 0x1234, 0xabcd, 1 };
    struct spng_trns trns16 = { .gray = 0xabcd };
    png = png_encode((struct spng_ihdr){ 3, 1, 16, SPNG_COLOR_TYPE_GRAYSCALE, 0, 0, 0 },
                     &(png_extra){ .trns = &trns16 }, g16, sizeof g16, &size);
    if (png)
        save("png", "grey16_trns.png", png, size);
    free(png);
    png = png_encode((struct spng_ihdr){ 2, 2, 8, SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 0, 0, 0 }, NULL,
                     samples, 8, &size);
    if (png)
        save("png", "grey_alpha8.png", png, size);
    free(png);
    struct spng_plte plte = { .n_entries = 4 };
    for (int i = 0; i < 4; i++)
        plte.entries[i] = (struct spng_plte_entry){ (uint8_t)(60 * i), (uint8_t)(255 - 50 * i),
                                                    (uint8_t)(7 * i), 255 };
    struct spng_trns trns = { .n_type3_entries = 2, .type3_alpha = { 0, 128 } };
    uint8_t idx[2] = { 0x1b, 0xe4 };
    png = png_encode((struct spng_ihdr){ 4, 2, 2, SPNG_COLOR_TYPE_INDEXED, 0, 0, 0 },
                     &(png_extra){ .plte = &plte, .trns = &trns }, idx, 2, &size);
    if (png)
        save("png", "palette2_trns.png", png, size);
    free(png);
    png = png_encode((struct spng_ihdr){ 5, 4, 8, SPNG_COLOR_TYPE_TRUECOLOR, 0, 0, 1 }, NULL,
                     samples, 60, &size);
    if (png)
        save("png", "rgb8_adam7.png", png, size);
    free(png);
    uint16_t rgba16[2 * 2 * 4];
    for (int i = 0; i < 16; i++)
        rgba16[i] = (uint16_t)(i * 4099);
    png = png_encode((struct spng_ihdr){ 2, 2, 16, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0, 0, 0 },
                     NULL, rgba16, sizeof rgba16, &size);
    if (png)
        save("png", "rgba16.png", png, size);
    free(png);
    png = png_encode((struct spng_ihdr){ 3, 3, 8, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0, 0, 0 },
                     &(png_extra){ .ancillary = true }, samples, 36, &size);
    if (png)
        save("png", "rgba8_chunks.png", png, size);
    free(png);

    /* Invalid ones, from an 8x6 RGB file. */
    png = png_encode((struct spng_ihdr){ 8, 6, 8, SPNG_COLOR_TYPE_TRUECOLOR, 0, 0, 0 }, NULL,
                     samples, 144, &size);
    if (!png)
        return;
    save("png", "rgb8.png", png, size);
    size_t idat = png_find_chunk(png, size, "IDAT"), iend = png_find_chunk(png, size, "IEND");
    unsigned char *bad = malloc(size);
    save("png", "bad_truncated_idat.png", png, idat + 20);
    save("png", "bad_no_iend.png", png, iend);
    memcpy(bad, png, size);
    bad[idat + 12] ^= 0x55;
    save("png", "bad_crc.png", bad, size);
    memcpy(bad, png, size);
    put_be32(bad + 16, 100000);
    put_be32(bad + 20, 100000);
    put_be32(bad + 29, crc32_png(bad + 12, 17));
    save("png", "bad_huge.png", bad, size);
    memcpy(bad, png, size);
    put_be32(bad + 16, 0);
    put_be32(bad + 29, crc32_png(bad + 12, 17));
    save("png", "bad_zero_width.png", bad, size);
    free(bad);
    free(png);
}

/* ---- JPEG --------------------------------------------------------------------------------- */

typedef struct jpeg_opts {
    int comps, quality;
    bool progressive, arithmetic, optimize, full_chroma;
    unsigned restart;
} jpeg_opts;

static unsigned char *jpeg_encode(const uint8_t *samples, int w, int h, jpeg_opts o,
                                  unsigned long *len)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr jerr;
    c.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&c);
    unsigned char *buf = NULL;
    *len = 0;
    jpeg_mem_dest(&c, &buf, len);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = o.comps;
    c.in_color_space = o.comps == 1 ? JCS_GRAYSCALE : o.comps == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, o.quality, TRUE);
    if (o.progressive)
        jpeg_simple_progression(&c);
    c.arith_code = o.arithmetic;
    c.optimize_coding = o.optimize;
    c.restart_interval = o.restart;
    if (o.full_chroma && o.comps == 3)
        c.comp_info[0].h_samp_factor = c.comp_info[0].v_samp_factor = 1;
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(samples + (size_t)c.next_scanline * w * o.comps);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return buf;
}

static void make_jpeg(void)
{
    uint8_t pic[16 * 16 * 4];
    for (int i = 0; i < 16 * 16 * 4; i++)
        pic[i] = (uint8_t)(i * 7 + (i / 64) * 13);
    static const struct { const char *name; int w, h; jpeg_opts o; } files[] = {
        { "grey8x8.jpg", 8, 8, { 1, 75, false, false, false, false, 0 } },
        { "rgb16_420.jpg", 16, 16, { 3, 75, false, false, false, false, 0 } },
        { "rgb16_444_optimized.jpg", 16, 16, { 3, 90, false, false, true, true, 0 } },
        { "rgb16_progressive.jpg", 16, 16, { 3, 75, true, false, false, false, 0 } },
        { "rgb16_arithmetic.jpg", 16, 16, { 3, 75, false, true, false, false, 0 } },
        { "rgb16_restart.jpg", 16, 16, { 3, 75, false, false, false, false, 1 } },
        { "rgb13x7_odd.jpg", 13, 7, { 3, 50, false, false, false, false, 0 } },
        { "cmyk8x8.jpg", 8, 8, { 4, 75, false, false, false, false, 0 } },
    };
    unsigned long len;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        unsigned char *j = jpeg_encode(pic, files[i].w, files[i].h, files[i].o, &len);
        save("jpeg", files[i].name, j, len);
        if (i == 1) {
            /* Invalid ones from the plain 4:2:0 file: cut in the scan; a stray marker. */
            save("jpeg", "bad_truncated.jpg", j, len - 20);
            unsigned char *bad = malloc(len);
            memcpy(bad, j, len);
            bad[len - 12] = 0xff;
            bad[len - 11] = 0xd3;
            save("jpeg", "bad_stray_rst.jpg", bad, len);
            free(bad);
        }
        free(j);
    }
}

/* ---- PFM ---------------------------------------------------------------------------------- */

static void pfm_save(const char *name, const char *header, const float *vals, size_t count,
                     bool little)
{
    unsigned char buf[512];
    size_t hl = strlen(header);
    memcpy(buf, header, hl);
    for (size_t i = 0; i < count; i++) {
        uint32_t u;
        memcpy(&u, &vals[i], 4);
        for (int k = 0; k < 4; k++)
            buf[hl + 4 * i + (little ? k : 3 - k)] = (unsigned char)(u >> (8 * k));
    }
    save("pfm", name, buf, hl + 4 * count);
}

static void make_pfm(void)
{
    float v[12] = { 0.5f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1e-3f };
    pfm_save("rgb2x2_le.pfm", "PF\n2 2\n-1.0\n", v, 12, true);
    pfm_save("rgb2x2_be.pfm", "PF\n2 2\n1.0\n", v, 12, false);
    pfm_save("grey3x1_le.pfm", "Pf\n3 1\n-1\n", v, 3, true);
    pfm_save("grey1x3_be_spaces.pfm", "Pf \t1\r\n 3\n+2.5e-1\n", v, 3, false);
    v[4] = NAN;
    pfm_save("bad_nan.pfm", "PF\n2 2\n-1.0\n", v, 12, true);
    v[4] = -INFINITY;
    pfm_save("bad_neg_inf.pfm", "PF\n2 2\n-1.0\n", v, 12, true);
    v[4] = 4;
    pfm_save("bad_truncated.pfm", "PF\n2 2\n-1.0\n", v, 11, true);
    pfm_save("bad_crlf.pfm", "PF\n2 2\n-1.0\r\n", v, 12, true);
    pfm_save("bad_zero_scale.pfm", "PF\n2 2\n0.0\n", v, 12, true);
    pfm_save("bad_huge.pfm", "PF\n100000 100000\n-1.0\n", v, 12, true);
    pfm_save("bad_width.pfm", "PF\n-2 2\n-1.0\n", v, 12, true);
}

/* ---- model files ------------------------------------------------------------------------ */

static void make_model(void)
{
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 1));
    static upf__net_model a, b;
    a.step = 6;
    b.step = 10;
    a.detail_strength = b.detail_strength = 1.0f;
    b.flags = UPF_MODEL_FLAG_WINDOW_MEAN;
    snprintf(a.provenance, sizeof a.provenance, "fuzz seed: small deterministic weights");
    snprintf(b.provenance, sizeof b.provenance, "fuzz seed, second model");
    uint32_t state = 12345;
    for (int s = 0; s < UPF_NET_STAGES; s++)
        for (int m = 0; m < UPF_NET_MATRICES; m++)
            for (int i = 0; i < UPF_NET_WINDOW; i++) {
                state = state * 1664525u + 1013904223u;
                a.w[s][m][i] = (float)((int)(state >> 24) - 128) / 1024.0f;
                b.w[s][m][i] = -a.w[s][m][i];
            }
    const upf__net_model *one[] = { &a }, *two[] = { &a, &b };
    size_t n1 = upf__net_file_size(one, 1), n2 = upf__net_file_size(two, 2);
    unsigned char *buf = calloc(1, n2);
    if (!ctx || !buf || upf__net_write(ctx, one, 1, buf, n1) != UPF_OK) {
        fprintf(stderr, "make_corpus: cannot make a model file\n");
        failures++;
    } else {
        save("model", "one-model.upfm", buf, n1);
        save("model", "truncated.upfm", buf, n1 / 2);
        buf[n1 - 1] ^= 0x5a; /* the checksum's last byte */
        save("model", "bad-checksum.upfm", buf, n1);
        if (upf__net_write(ctx, two, 2, buf, n2) == UPF_OK)
            save("model", "two-models.upfm", buf, n2);
        else
            failures++;
        /* version 2: the sqrt-Lanczos and sRGB-Lanczos bases and a detail strength */
        a.flags = UPF_MODEL_FLAG_SQRT_LANCZOS_BASE;
        b.flags = UPF_MODEL_FLAG_SRGB_LANCZOS_BASE | UPF_MODEL_FLAG_NO_SMAA;
        b.detail_strength = 0.5f;
        size_t n3 = upf__net_file_size(two, 2);
        unsigned char *v2 = calloc(1, n3);
        if (v2 && upf__net_write(ctx, two, 2, v2, n3) == UPF_OK) {
            save("model", "version2.upfm", v2, n3);
            save("model", "version2-truncated.upfm", v2, 16 + 18);
        } else {
            failures++;
        }
        free(v2);
    }
    free(buf);
    upf_context_destroy(&ctx);
}

/* ---- sidecars and sequences ------------------------------------------------------------- */

typedef struct blob {
    void *data;
    size_t size;
} blob;

/* Renders frames 0 and 1 of the calibration scene (8x6, Halton jitter for 2x, orbit) into a
 * temporary folder and reads back each frame's files. */
static bool render_pair(blob files[2][5])
{
    static const char *const ends[5] = { "json", "color.pfm", "color.png", "depth.pfm",
                                         "motion.pfm" };
    char dir[] = "/tmp/upframe-corpus-XXXXXX";
    if (!mkdtemp(dir))
        return false;
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 1));
    scene *sc = NULL;
    bool ok = ctx && scene_create(ctx, "calibration", 3, &sc) == UPF_OK;
    const int w = 8, h = 6;
    float color[4 * 8 * 6], hud[4 * 8 * 6], depth[8 * 6], motion[2 * 8 * 6];
    for (int f = 0; f < 2 && ok; f++) {
        double jx, jy;
        upf_jitter_offset(NULL, f, 32, &jx, &jy);
        scene_buffers b = { color, hud, depth, motion };
        scene_camera cam;
        ok = scene_render(sc, scene_view_params(.path = "orbit", .time = f / 30.0, .width = w,
                                                .height = h, .jitter_x = jx, .jitter_y = jy),
                          &b, &cam) == UPF_OK;
        scene_frame_info info = { "calibration", 3, "orbit", f, 30, w, h, 1, -2, "halton", f,
                                  32, NULL };
        char stem[8], err[IMAGEIO_ERR_SIZE];
        snprintf(stem, sizeof stem, "%04d", f);
        ok = ok && scene_write_frame(dir, stem, &info, &b, &cam, err) == UPF_OK;
        for (int k = 0; k < 5 && ok; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ends[k]);
            ok = imageio_slurp(path, 1 << 20, &files[f][k].data, &files[f][k].size, err) == UPF_OK;
        }
    }
    for (int f = 0; f < 2; f++)
        for (int i = 0; scene_frame_files[i]; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%04d.%s", dir, f, scene_frame_files[i]);
            unlink(path);
        }
    rmdir(dir);
    scene_destroy(&sc);
    upf_context_destroy(&ctx);
    return ok;
}

/* One archive: frames 0 and 1 with the files `mask` keeps (bit k: ends[k] of render_pair),
 * frame 1's depth replaced by `depth1` when given, and any extra file. */
static void save_archive(const char *name, blob files[2][5], unsigned mask, const blob *depth1,
                         const char *extra_name, const char *extra)
{
    static const char *const ends[5] = { "json", "color.pfm", "color.png", "depth.pfm",
                                         "motion.pfm" };
    char path[4096];
    snprintf(path, sizeof path, "%s/sequence/%s", out_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        failures++;
        return;
    }
    for (int fr = 0; fr < 2; fr++)
        for (int k = 0; k < 5; k++) {
            if (!(mask & (1u << k)))
                continue;
            char n[32];
            snprintf(n, sizeof n, "%04d.%s", fr, ends[k]);
            const blob *b = fr == 1 && k == 3 && depth1 ? depth1 : &files[fr][k];
            archive_put(f, n, b->data, b->size);
        }
    if (extra_name)
        archive_put(f, extra_name, extra, strlen(extra));
    if (fclose(f) != 0)
        failures++;
    else
        printf("%s\n", path);
}

static void make_sequences(void)
{
    blob files[2][5];
    memset(files, 0, sizeof files);
    if (!render_pair(files)) {
        fprintf(stderr, "make_corpus: cannot render the sequence seeds\n");
        failures++;
        return;
    }
    save("sidecar", "rendered.json", files[0][0].data, files[0][0].size);
    save("sidecar", "rendered-1.json", files[1][0].data, files[1][0].size);
    static const char minimal[] =
        "{\"width\": 8, \"height\": 6, \"jitter\": [0.25, -0.125], \"near\": 0.1, "
        "\"far\": null, \"fov_y\": 1.0, \"depth\": \"reversed\", \"fps\": 60}";
    save("sidecar", "minimal.json", minimal, strlen(minimal));
    static const char user[] =
        "{\"width\": 4, \"height\": 2, \"projection\": [1,0,0,0, 0,1.7,0,0, 0,0,-1.0002,"
        "-0.20002, 0,0,-1,0], \"clip_depth\": \"minus_one_to_one\", \"view_projection\": "
        "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1], \"prev_view_projection\": [1,0,0,0.1,0,1,0,0,0,"
        "0,1,0,0,0,0,1], \"motion_units\": \"uv\", \"motion_scale\": [0.5, -0.5], "
        "\"color_encoding\": \"sqrt\", \"reset\": true, \"frame_time_ms\": 16.7, "
        "\"exposure\": 2, \"pre_exposure\": 0.5, \"name\": \"caf\\u00e9 \\ud83d\\ude00\"}";
    save("sidecar", "user.json", user, strlen(user));
    static const char *const bad[][2] = {
        { "bad_truncated.json", "{\"width\": 8, \"height\": 6, \"near\": 0.1, \"fov" },
        { "bad_duplicate.json", "{\"width\": 8, \"width\": 9}" },
        { "bad_escape.json", "{\"a\": \"\\x\"}" },
        { "bad_huge.json", "{\"width\": 1e999}" },
        { "bad_camera.json", "{\"width\": 8, \"height\": 6, \"near\": 0.1}" },
        { "bad_far.json", "{\"width\": 8, \"height\": 6, \"near\": 1, \"far\": 0.5, "
                          "\"fov_y\": 1, \"depth\": \"forward\"}" },
        { "bad_deep.json", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]" },
        { "bad_trailing.json", "{} x" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        save("sidecar", bad[i][0], bad[i][1], strlen(bad[i][1]));

    save_archive("two_frames.bin", files, 0x1b, NULL, NULL, NULL);   /* json, pfm, depth, motion */
    save_archive("no_motion.bin", files, 0x0b, NULL, NULL, NULL);
    save_archive("png_colour.bin", files, 0x1d, NULL, NULL, NULL);
    blob small = { (void *)"Pf\n1 1\n-1\n\0\0\0\0", 14 };
    save_archive("bad_depth_size.bin", files, 0x1b, &small, NULL, NULL);
    save_archive("bad_duplicate_frame.bin", files, 0x1b, NULL, "00001.json", minimal);
    save_archive("bad_no_depth.bin", files, 0x13, NULL, NULL, NULL);
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < 5; k++)
            free(files[f][k].data);
}

/* ---- the front door: formats told apart by content ------------------------------------- */

/* Headers of the formats imageio_read_mem names but does not read, and near misses of them
 * (the other corpora, fed in too, cover PNG, JPEG and PFM). */
static void make_image(void)
{
    static const struct {
        const char *name;
        const char *bytes;
        size_t size;
    } seeds[] = {
        { "gif89a.gif", "GIF89a\x01\x00\x01\x00\x80\x00\x00", 13 },
        { "gif87a.gif", "GIF87a\x02\x00\x02\x00", 10 },
        { "webp.webp", "RIFF\x1a\x00\x00\x00WEBPVP8 \x0e\x00\x00\x00", 20 },
        { "riff_not_webp.bin", "RIFF\x1a\x00\x00\x00WAVEfmt ", 16 },
        { "bmp.bmp", "BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00", 16 },
        { "bm_text.txt", "BMW is a car\n", 13 },
        { "ppm.ppm", "P6\n1 1\n255\n\x10\x20\x30", 14 },
        { "pgm.pgm", "P5 1 1 255\n\x80", 12 },
        { "pbm.pbm", "P1\n1 1\n1\n", 10 },
        { "pam.pam", "P7\nWIDTH 1\n", 11 },
        { "p9.bin", "P9\n", 3 },
        { "tiff_le.tif", "II*\x00\x08\x00\x00\x00", 8 },
        { "tiff_be.tif", "MM\x00*\x00\x00\x00\x08", 8 },
        { "qoi.qoi", "qoif\x00\x00\x00\x01\x00\x00\x00\x01\x04\x00", 14 },
        { "exr.exr", "v/1\x01\x02\x00\x00\x00", 8 },
        { "dds.dds", "DDS \x7c\x00\x00\x00", 8 },
        { "jxl.jxl", "\xff\x0a\xfa", 3 },
        { "avif.avif", "\x00\x00\x00\x1c" "ftypavif", 12 },
        { "model.upfm", "UPFMODEL\x01\x00\x00\x00", 12 },
        { "text.txt", "hello", 5 },
        { "empty", "", 0 },
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        save("image", seeds[i].name, seeds[i].bytes, seeds[i].size);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_make_corpus DIR   (writes DIR/png, DIR/jpeg, DIR/pfm, DIR/model, "
                "DIR/image, DIR/sidecar, DIR/sequence)\n");
        return 1;
    }
    out_dir = argv[1];
    make_png();
    make_jpeg();
    make_pfm();
    make_model();
    make_image();
    make_sequences();
    return failures ? 1 : 0;
}
