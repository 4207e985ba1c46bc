/* test_web_api.c: the web page's entry points (web/upf_web.c) natively, on fresh random
 * pictures, against the library's public calls and its reference: the pass-by-pass upscale
 * equals upf_spatial_run; each window's six stages chain to upf__net_window_forward_ref and
 * stage 6 (times the strength) is the engine's detail map there; the reconstruction's second
 * step (the map, no sharpen) is the upscale itself at sharpness 0; the model file's blocks
 * tile the file; a refused model file leaves a message and the session usable. The browser
 * test (tests/test_web.py) checks the WebAssembly build against these same entry points. */
#include "test_util.h"

#include "core/core.h"
#include "spatial/net.h"
#include "upf_web.h"

static uint8_t *random_rgba(test_rng *rng, int w, int h)
{
    uint8_t *px = malloc((size_t)w * (size_t)h * 4);
    for (size_t i = 0; i < (size_t)w * (size_t)h * 4; i++)
        px[i] = (i & 3) == 3 ? 255 : (uint8_t)test_rand_int(rng, 0, 255);
    return px;
}

static int upscale(upfw_session *s, const uint8_t *px, int w, int h, int ow, int oh)
{
    int done = 0, rc = upfw_begin(s, px, w, h, ow, oh, 0.0f, 0), passes = 0;
    while (rc == 0 && !done) {
        rc = upfw_run_pass(s, &done);
        passes++;
    }
    CHECKF(rc == 0, "upfw: %s", upfw_error(s));
    CHECK_EQ_INT(passes, UPF_SPATIAL_PASS_COUNT);
    return rc;
}

/* The session's output against the public engine's on the same picture. */
static void check_output(upfw_session *s, const uint8_t *px, int w, int h, int ow, int oh)
{
    upf_context *ctx = upfw_context(s);
    upf_models *set = upf_models_default(ctx);
    upf_spatial *sp = upf_spatial_create(ctx, upf_spatial_params(.src_width = w,
                                        .src_height = h, .dst_width = ow, .dst_height = oh,
                                        .models = set));
    uint8_t *out = malloc((size_t)ow * (size_t)oh * 4);
    const upf_image src = { (void *)px, w, h, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image dst = { out, ow, oh, 0, UPF_FORMAT_RGBA8_SRGB };
    CHECK(sp && upf_spatial_run(sp, &src, &dst) == UPF_OK);
    CHECKF(memcmp(out, upfw_output(s), (size_t)ow * (size_t)oh * 4) == 0,
           "%dx%d -> %dx%d: the pass-by-pass upscale differs from upf_spatial_run", w, h, ow, oh);
    /* step 2 of the reconstruction (the map, sharpness 0) is that upscale */
    const uint8_t *steps = upfw_steps(s, 1.0f);
    CHECK(steps && memcmp(steps + (size_t)ow * (size_t)oh * 4, out,
                          (size_t)ow * (size_t)oh * 4) == 0);
    free(out);
    upf_spatial_destroy(&sp);
    upf_models_destroy(&set);
}

/* Every window of every tile: the stages chain to the reference forward, and stage 6 is the
 * engine's detail map (the browser test checks one window of the WebAssembly build). */
static void check_windows(upfw_session *s)
{
    int nx = 0, ny = 0;
    CHECK(upfw_tiles(s, &nx, &ny) == 0 && nx > 0 && ny > 0);
    const int step = upfw_model_step(s);
    upf__net_model *m = malloc(sizeof *m);
    m->step = step;
    memcpy(m->w, upfw_model_weights(s, -1), sizeof m->w);
    const float strength = (float)upfw_model_strength(s, -1);
    float v[8 * 256], block[144], ref[256];
    int equal = 0, inside = 0, bad_stage = 0;
    for (int t = 0; t < nx * ny; t++) {
        for (int k = 0; k < 16; k++) {
            CHECK(upfw_window(s, t % nx, t / nx, k % 4, k / 4, v, block) == 0);
            m->flags = 0; /* v[256..] is already stage 1's input */
            upf__net_window_forward_ref(m, v + 256, ref);
            bad_stage += memcmp(ref, v + 7 * 256, sizeof ref) != 0;
            for (int i = 0; i < 144; i++) {
                if (isnan(block[i]))
                    continue;
                inside++;
                float d = v[7 * 256 + (i / 12) * 16 + i % 12];
                equal += (strength == 1.0f ? d : strength * d) == block[i];
            }
        }
    }
    CHECK_EQ_INT(bad_stage, 0);
    CHECKF(inside > 0 && equal == inside, "%d of %d detail values equal", equal, inside);
    CHECK(upfw_window(s, nx, 0, 0, 0, v, block) != 0 && strstr(upfw_error(s), "no such tile"));
    free(m);
}

static void check_blocks(upfw_session *s)
{
    size_t size = 0;
    const uint8_t *file = upfw_builtin_file(&size);
    int blocks[4 * 64];
    int n = upfw_file_blocks(s, file, size, blocks, 64);
    CHECK(n >= 3 && n <= 64);
    size_t at = 0;
    for (int i = 0; i < n && i < 64; i++) {
        CHECKF((size_t)blocks[4 * i + 2] == at, "block %d starts at %d, expected %zu", i,
               blocks[4 * i + 2], at);
        at = (size_t)blocks[4 * i + 2] + (size_t)blocks[4 * i + 3];
    }
    CHECK_EQ_INT(at, size);
    /* a damaged copy is refused with the loader's message, and the session still works */
    uint8_t *bad = malloc(size);
    memcpy(bad, file, size);
    bad[size / 2] ^= 0x40;
    CHECK(upfw_load_models(s, bad, size) != 0 && strstr(upfw_error(s), "checksum"));
    CHECK(upfw_file_blocks(s, bad, size, blocks, 64) == -1);
    CHECK(upfw_load_models(s, NULL, 0) == 0);
    free(bad);
}

int main(void)
{
    test_rng rng = test_rng_make("web_api");
    upfw_session *s = upfw_create();
    CHECK(s != NULL);
    /* The plain C kernels, as in WebAssembly: the AVX2 forward rounds each multiply-add once,
     * so its map is not the reference stages' bit for bit. */
    upfw_context(s)->cpu_flags = 0;
    const int sizes[3][4] = { { 61, 37, 122, 74 }, { 50, 40, 75, 60 }, { 33, 29, 99, 87 } };
    for (int i = 0; i < 3; i++) {
        const int w = sizes[i][0], h = sizes[i][1], ow = sizes[i][2], oh = sizes[i][3];
        uint8_t *px = random_rgba(&rng, w, h);
        if (upscale(s, px, w, h, ow, oh) == 0) {
            check_output(s, px, w, h, ow, oh);
            check_windows(s);
        }
        free(px);
    }
    check_blocks(s);
    upfw_destroy(s);
    return test_finish("web_api");
}
