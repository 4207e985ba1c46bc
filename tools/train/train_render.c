/* train_render.c: `upframe train data`: a folder of training pairs rendered by the scene
 * renderer (tools/scene/scene.h), in the layout train_set_load_dir reads (train.h).
 *
 * Reads nothing but its configuration; writes, for each view NAME:
 *   DIR/NAME.target.png     the reference: the view at W x H (576x324 by default) with many
 *                           samples per pixel, box filtered (16-bit PNG, sRGB-encoded)
 *   DIR/NAME.input-sS.png   for each step S: the same view at W*S/12 x H*S/12, one sample at
 *                           each pixel centre (aliased, as a game renders it), with the mip
 *                           bias log2(render / output) = log2(S / 12) (8-bit PNG: what a game
 *                           hands an upscaler)
 * and DIR/manifest.txt: what was rendered (a `data=` summary for the models' provenance, the
 * settings, and one `view NAME scene=... seed=... path=... time=... group=...` line a view).
 *
 * Views: the training scenes (not the test-only ones) in turn; each scene is built with a
 * seed from the training range (SCENE_TRAIN_SEED_MIN..MAX; the evaluation set's seeds are
 * never used) drawn from the run's --seed, and gives `views_per_scene` views along random
 * camera paths at random times. The views of one build share their geometry and textures, so
 * they form one validation group: they fall on one side of the split together.
 *
 * The mip bias: a game that renders for an upscaler biases its texture LOD so that textures
 * carry the detail of the output resolution (the shipped NDSR game uses -0.5 for its 3/4
 * render scale, log2(0.75) = -0.415; docs/SPATIAL.md, "What the network can and cannot gain"). The inputs use
 * log2(render / output) (+ an optional offset); the reference is rendered at its own size with
 * bias 0. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "imageio/image_io.h"
#include "scene/scene.h"
#include "train/train.h"

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Whether DIR holds a file named like a training pair (NAME.target.png, NAME.input.png,
 * NAME.input-sS.png); its name in `name`. A folder that cannot be listed holds none. */
static bool find_pair_file(const char *dir, char *name, size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        const char *dot = strstr(e->d_name, ".target.png");
        const char *in = strstr(e->d_name, ".input");
        size_t n = strlen(e->d_name);
        found = (dot && dot[11] == '\0') ||
                (in && n > 4 && strcmp(e->d_name + n - 4, ".png") == 0);
        if (found)
            snprintf(name, size, "%s", e->d_name);
    }
    closedir(d);
    return found;
}

train_data_config train_data_defaults(void)
{
    train_data_config c;
    memset(&c, 0, sizeof c);
    c.views = 0;
    c.seed = 1;
    c.spp = 64;
    c.views_per_scene = 4;
    c.width = TRAIN_DATA_WIDTH;
    c.height = TRAIN_DATA_HEIGHT;
    c.mip_bias_offset = 0.0;
    for (int s = UPF_MODEL_STEP_MIN; s <= UPF_MODEL_STEP_MAX; s++)
        c.steps[s] = true;
    return c;
}

double train_data_mip_bias(int step, double offset)
{
    /* The library's rule, native bias 0: log2(render / output) + offset, render / output =
     * S / 12. Steps and offsets are checked by the callers. */
    double bias = 0.0;
    upf_mip_bias(NULL, 0.0, step, 12, offset, &bias);
    return bias;
}

static upf_result write_png(upf_context *ctx, const char *path, float *rgba, int w, int h,
                            int bits)
{
    char err[IMAGEIO_ERR_SIZE];
    const upf_image img = { rgba, w, h, 0, UPF_FORMAT_RGBA32F };
    upf_result r = imageio_write_png(path, &img, bits, err);
    return r == UPF_OK ? UPF_OK : upf__fail(ctx, r, "%s", err);
}

/* The training scenes, from a comma list (NULL: all but the test-only ones). */
static int pick_scenes(upf_context *ctx, const char *list, int *out)
{
    int n = 0;
    for (int i = 0; i < scene_count(); i++) {
        bool want;
        if (list) {
            const char *name = scene_name(i);
            size_t len = strlen(name);
            want = false;
            for (const char *p = list; *p;) {
                size_t k = strcspn(p, ",");
                want |= k == len && strncmp(p, name, len) == 0;
                p += k + (p[k] == ',');
            }
        } else {
            want = !scene_is_test_only(i);
        }
        if (want)
            out[n++] = i;
    }
    /* Every name in the list must be a scene. */
    for (const char *p = list; p && *p;) {
        size_t k = strcspn(p, ",");
        bool known = false;
        for (int i = 0; i < scene_count(); i++)
            known |= strlen(scene_name(i)) == k && strncmp(p, scene_name(i), k) == 0;
        if (!known) {
            char names[256] = "";
            for (int i = 0; i < scene_count(); i++)
                if (!scene_is_test_only(i))
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                             names[0] ? ", " : "", scene_name(i));
            return -upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "train data: unknown scene "
                              "'%.*s'; expected a comma list of %s", (int)k, p, names);
        }
        p += k + (p[k] == ',');
    }
    if (n == 0)
        return -upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "train data: no scenes to render");
    return n;
}

upf_result train_render_data(upf_context *ctx, const char *dir, const train_data_config *cfg,
                             train_progress_fn progress, void *progress_priv, char *summary,
                             size_t summary_size)
{
    static const char fn[] = "train data";
    if (cfg->views < 1 || cfg->views > 1000000)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %d views; expected 1..1000000",
                         fn, cfg->views);
    if (cfg->spp < 16 || cfg->spp > SCENE_MAX_SPP)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %d samples per pixel for the "
                         "references; expected 16..%d", fn, cfg->spp, SCENE_MAX_SPP);
    if (cfg->views_per_scene < 1)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %d views per scene; expected at "
                         "least 1", fn, cfg->views_per_scene);
    if (cfg->width < 12 || cfg->height < 12 || cfg->width % 12 || cfg->height % 12 ||
        cfg->width > UPF_MAX_IMAGE_DIMENSION || cfg->height > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: reference size %dx%d; expected "
                         "multiples of 12 (so every step S has a whole input size W*S/12)", fn,
                         cfg->width, cfg->height);
    if (!(fabs(cfg->mip_bias_offset) <= 4))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: mip bias offset %g; expected "
                         "-4..4", fn, cfg->mip_bias_offset);
    int nsteps = 0;
    for (int s = UPF_MODEL_STEP_MIN; s <= UPF_MODEL_STEP_MAX; s++)
        nsteps += cfg->steps[s];
    if (nsteps == 0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: no steps to render inputs for",
                         fn);
    int scenes[64];
    int n_scenes = pick_scenes(ctx, cfg->scenes, scenes);
    if (n_scenes < 0)
        return (upf_result)-n_scenes;

    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    struct stat st;
    if (stat(path, &st) == 0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s already holds training data "
                         "(%s exists); expected a new or empty folder", fn, dir, path);
    /* The manifest is written last: pairs without one are a run that did not finish, and
     * the trainer would mix them in with ours. */
    char pair[256];
    if (find_pair_file(dir, pair, sizeof pair))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s holds training pairs (%s) "
                         "but no finished manifest.txt: what an interrupted run leaves; "
                         "expected a new or empty folder (remove it, or pick another)", fn, dir,
                         pair);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return upf__fail(ctx, UPF_ERROR_IO, "%s: cannot make the folder %s: %s", fn, dir,
                         strerror(errno));

    const int W = cfg->width, H = cfg->height;
    const int builds = (cfg->views + cfg->views_per_scene - 1) / cfg->views_per_scene;
    float *ref = upf__alloc_array(ctx, (size_t)W * H * 4, sizeof(float), "a reference");
    float *in = upf__alloc_array(ctx, (size_t)W * H * 4, sizeof(float), "an input");
    uint32_t *seeds = upf__alloc_array(ctx, (size_t)builds, sizeof(uint32_t), "scene seeds");
    size_t man_cap = 4096 + (size_t)cfg->views * 160, man_len = 0;
    char *manifest = upf__alloc(ctx, man_cap, "the manifest");
    if (!ref || !in || !seeds || !manifest) {
        upf__free(ctx, ref);
        upf__free(ctx, in);
        upf__free(ctx, seeds);
        upf__free(ctx, manifest);
        return UPF_ERROR_OUT_OF_MEMORY;
    }

    char steps_text[128] = "";
    for (int s = UPF_MODEL_STEP_MIN; s <= UPF_MODEL_STEP_MAX; s++)
        if (cfg->steps[s])
            snprintf(steps_text + strlen(steps_text), sizeof steps_text - strlen(steps_text),
                     "%s%d", steps_text[0] ? "," : "", s);
    char scene_text[256] = "";
    for (int i = 0; i < n_scenes; i++)
        snprintf(scene_text + strlen(scene_text), sizeof scene_text - strlen(scene_text),
                 "%s%s", i ? "," : "", scene_name(scenes[i]));
    snprintf(summary, summary_size, "scene renderer: %d view%s of %s (%d build%s, seeds from "
             "--seed %u), reference %dx%d at %d spp, inputs 1 spp at mip bias log2(S/12)%+g, "
             "steps %s", cfg->views, cfg->views == 1 ? "" : "s", scene_text, builds,
             builds == 1 ? "" : "s", cfg->seed, W, H, cfg->spp, cfg->mip_bias_offset, steps_text);
#define MAN(...)                                                                              \
    do {                                                                                      \
        if (man_len < man_cap)                                                                \
            man_len += (size_t)snprintf(manifest + man_len, man_cap - man_len, __VA_ARGS__);  \
    } while (0)
    MAN("# upframe training data, written by 'upframe train data' (tools/train/README.md)\n");
    MAN("data=%s\n", summary);
    MAN("format=1\nviews=%d\nviews-per-scene=%d\nseed=%u\nspp=%d\nreference=%dx%d\n",
        cfg->views, cfg->views_per_scene, cfg->seed, cfg->spp, W, H);
    MAN("mip-bias=log2(render/output)%+g\n", cfg->mip_bias_offset);
    for (int s = UPF_MODEL_STEP_MIN; s <= UPF_MODEL_STEP_MAX; s++)
        if (cfg->steps[s])
            MAN("input-s%d=%dx%d mip-bias %.4f\n", s, W * s / 12, H * s / 12,
                train_data_mip_bias(s, cfg->mip_bias_offset));

    /* Scene seeds: from the run's seed, distinct per scene, in the training range. */
    const uint32_t seed_range = SCENE_TRAIN_SEED_MAX - SCENE_TRAIN_SEED_MIN + 1;
    for (int b = 0; b < builds; b++) {
        uint64_t h = mix64(((uint64_t)cfg->seed << 32) ^ (uint64_t)b ^ 0x7261696e64617461ull);
        for (;;) {
            uint32_t sd = SCENE_TRAIN_SEED_MIN + (uint32_t)(h % seed_range);
            bool taken = false;
            for (int k = b % n_scenes; k < b; k += n_scenes)
                taken |= seeds[k] == sd;
            if (!taken || builds / n_scenes >= (int)seed_range) {
                seeds[b] = sd;
                break;
            }
            h = mix64(h + 1);
        }
    }

    upf_result r = UPF_OK;
    train_rng rng;
    train_rng_seed(&rng, mix64(cfg->seed ^ 0x5eedf00dull));
    int view = 0;
    for (int b = 0; b < builds && r == UPF_OK; b++) {
        const char *name = scene_name(scenes[b % n_scenes]);
        scene *sc = NULL;
        if ((r = scene_create(ctx, name, seeds[b], &sc)) != UPF_OK)
            break;
        for (int k = 0; k < cfg->views_per_scene && view < cfg->views && r == UPF_OK; k++) {
            const char *cam = scene_path_name((int)(train_rng_uniform(&rng) * scene_path_count()));
            /* Whole milliseconds, so the manifest's "%.3f" gives the time exactly. */
            const double time = floor(8000.0 * train_rng_uniform(&rng)) / 1000.0;
            char vname[128];
            snprintf(vname, sizeof vname, "v%05d-%s-%u", view, name, seeds[b]);
            const scene_buffers ref_out = { ref, NULL, NULL, NULL };
            r = scene_render(sc, scene_view_params(.path = cam, .time = time, .width = W,
                                                   .height = H, .spp = cfg->spp),
                             &ref_out, NULL);
            if (r == UPF_OK) {
                snprintf(path, sizeof path, "%s/%s.target.png", dir, vname);
                r = write_png(ctx, path, ref, W, H, 16);
            }
            for (int s = UPF_MODEL_STEP_MIN; s <= UPF_MODEL_STEP_MAX && r == UPF_OK; s++) {
                if (!cfg->steps[s])
                    continue;
                const int w = W * s / 12, h = H * s / 12;
                const scene_buffers in_out = { in, NULL, NULL, NULL };
                r = scene_render(sc, scene_view_params(.path = cam, .time = time, .width = w,
                                                       .height = h, .spp = 1,
                                                       .mip_bias = train_data_mip_bias(
                                                           s, cfg->mip_bias_offset)),
                                 &in_out, NULL);
                if (r == UPF_OK) {
                    snprintf(path, sizeof path, "%s/%s.input-s%d.png", dir, vname, s);
                    r = write_png(ctx, path, in, w, h, 8);
                }
            }
            if (r == UPF_OK)
                MAN("view %s scene=%s seed=%u path=%s time=%.3f group=%s-%u\n", vname, name,
                    seeds[b], cam, time, name, seeds[b]);
            view++;
            if (progress)
                progress(progress_priv, view, cfg->views);
        }
        scene_destroy(&sc);
    }
#undef MAN
    if (r == UPF_OK) {
        char err[IMAGEIO_ERR_SIZE];
        snprintf(path, sizeof path, "%s/manifest.txt", dir);
        upf_result w = imageio_write_file_atomic(path, manifest, UPF_MIN(man_len, man_cap - 1),
                                                 err);
        if (w != UPF_OK)
            r = upf__fail(ctx, w, "%s", err);
    }
    upf__free(ctx, ref);
    upf__free(ctx, in);
    upf__free(ctx, seeds);
    upf__free(ctx, manifest);
    return r;
}
