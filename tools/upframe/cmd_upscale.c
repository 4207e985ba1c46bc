/* cmd_upscale.c: `upframe upscale`: reads frames (files, standard input or a built-in frame),
 * upscales them with the chosen engine and writes PNG or PFM (files, or standard output),
 * then reports where each went and how long each step took (text or JSON). Several inputs,
 * or folders of them, go into an output folder on engines made once per pair of sizes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "imageio/image_io.h"
#include "builtin_frame.h"
#ifdef UPF_HAVE_VULKAN
#include "upframe_vk.h"
#endif

static const char upscale_help[] =
    "usage: upframe upscale IN -o OUT (--scale R | --size WxH) [options]\n"
    "       upframe upscale IN... -o DIR (--scale R | --size WxH) [options]\n"
    "\n"
    "Makes IN bigger (or smaller) and writes OUT.\n"
    "\n"
    "  IN                 a PNG (8 or 16 bit), JPEG or PFM file; '-' for standard input;\n"
    "                     'builtin' for a built-in frame: a scene of the scene renderer at\n"
    "                     960x540, one sample per pixel ('builtin:NAME' picks the scene:\n"
    "                     courtyard (the default), forest, street, interior). Several\n"
    "                     inputs, or folders (their .png, .jpg, .jpeg and .pfm files), make\n"
    "                     a batch: each goes to DIR/NAME.png (or .pfm with --format pfm)\n"
    "  -o, --output OUT   the file to write: .png (sRGB) or .pfm (linear float); '-' for\n"
    "                     standard output (PNG, or --format pfm; 'png:-' and 'pfm:-' too);\n"
    "                     an existing folder, or the folder of a batch (made if missing)\n"
    "  --scale R          output size = input size x R, rounded (R in 0.01..16; '2x' too)\n"
    "  --size WxH         output size in pixels (each side 1..16384); 'Wx' or 'xH' keeps\n"
    "                     the input's aspect ratio (--size 1920x, --size x1080)\n"
    "  --engine NAME      spatial: the NDSR engine (SMAA + network; ratios 1..4);\n"
    "                     lanczos, bicubic (Catmull-Rom) or bilinear: classic resampling\n"
    "                     in linear light. Default: spatial when the build has its\n"
    "                     models and the ratio is 1..4, else lanczos. Alpha keeps its\n"
    "                     precision; HDR (PFM values above 1) is tone-mapped around the\n"
    "                     spatial engine and restored; negative values become 0 (a warning)\n"
    "  --sharpness K      spatial: the final sharpen, 0 (off, the default: it measured\n"
    "                     best on real game frames, docs/QUALITY.md) .. 4; 1 is crisper\n"
    "  --model FILE       spatial: use the models in FILE instead of the built-in ones\n"
    "  --backend cpu|vulkan  spatial: where it runs; vulkan: on the GPU (the first discrete\n"
    "                     GPU, else the first device; UPF_VK_DEVICE=N picks device N),\n"
    "                     with the GPU's time per pass (docs/CLI.md). Default cpu\n"
    "  --debug-passes DIR spatial: also write each intermediate image to DIR as PNG\n"
    "                     (edges, weights, blend, detail: those of the passes that run;\n"
    "                     the built-in models skip SMAA's edges and weights); one input\n"
    "  --bits 8|16        PNG bit depth (default: the input PNG's, else 8; PFM is float)\n"
    "  --format png|pfm   the type of standard output, and of a batch's outputs\n"
    "  --png-compression fast|small\n"
    "                     fast (the default): zlib level 1, Paeth filter, run-length\n"
    "                     matches, on every CPU; small: the smallest file, level 9 and\n"
    "                     the best filter of each row: on 4K game frames 6% smaller and\n"
    "                     about 50 times slower to write (docs/PERFORMANCE.md)\n"
    "  --max-pixels N     the largest picture read or made (default 134217728 = 2^27, e.g.\n"
    "                     16384x8192; N, WxH, or N with K, M or G; at most 16384x16384)\n"
    "  --max-memory N     the bytes a picture's run may take, engine and pictures, checked\n"
    "                     before they are taken (N, or N with K, M, G or T; default 8G);\n"
    "                     beyond it the picture is refused (exit 2) with the bytes it needs\n"
    "  --threads N        worker threads (default 0: one per CPU)\n"
    "  --json             the report as JSON on stdout (docs/CLI.md gives the schema)\n"
    "  -q, --quiet        print nothing but errors\n"
    "  --                 the end of the options (an input named '-x' can follow)\n"
    "\n"
    "It reports each output's path and size and the time of each step (read, upscale, write;\n"
    "for the spatial engine each of its passes), on stdout (on stderr when the image goes to\n"
    "stdout). Notes on stderr say what it chose for you: a grey picture written as RGB, --bits\n"
    "ignored for PFM, a file replaced (keeping its permissions). A progress line shows on a\n"
    "terminal only.\n"
    "Metadata: EXIF orientation, ICC profiles and PNG gAMA/cHRM are not applied; samples are\n"
    "taken as sRGB (PNG, JPEG) or linear (PFM) as stored, and outputs carry no metadata but\n"
    "the PNG sRGB chunk.\n"
    "Exit codes: 0 ok, 1 usage, 2 bad input (unreadable or corrupt IN, bad size, unwritable\n"
    "OUT; in a batch, any file that failed), 3 internal error. A failed run leaves no OUT\n"
    "behind (nor its --debug-passes files), and neither does one stopped by Ctrl-C, SIGTERM\n"
    "or SIGHUP. In a batch, the files that worked are kept.\n"
    "\n"
    "examples:\n"
    "  upframe upscale shot.png -o shot-2x.png --scale 2\n"
    "  upframe upscale shots/ -o big/ --size 3840x\n"
    "  upframe upscale - -o - --scale 2x < in.png > out.png\n"
    "  upframe upscale builtin:street -o demo.png --scale 2 --engine bicubic\n";

typedef struct engine_name {
    const char *name;
    upf_filter filter; /* UPF_FILTER_DEFAULT for the spatial engine */
} engine_name;

static const engine_name engines[] = {
    { "spatial", UPF_FILTER_DEFAULT },
    { "lanczos", UPF_FILTER_LANCZOS3 },
    { "bicubic", UPF_FILTER_BICUBIC },
    { "bilinear", UPF_FILTER_BILINEAR },
};

#define SPATIAL (&engines[0])
#define LANCZOS (&engines[1])

/* What the command line asked for. */
typedef struct upscale_args {
    cli_common common;
    char **inputs;
    int n_inputs;
    const char *out, *format, *model_path, *debug_dir;
    const char *scale_s, *size_s;  /* as given, for messages */
    const engine_name *engine;   /* NULL: the best for each picture */
    double scale;                /* > 0 for --scale */
    int size_w, size_h;          /* --size (a side may be 0: keep the aspect) */
    double sharpness;
    bool spatial_options;        /* --sharpness, --model or --debug-passes given */
    int bits;                    /* 0: the input's */
    bool vulkan;                 /* --backend vulkan */
    const char *png_s;           /* --png-compression as given, or NULL */
    imageio_png_compression png; /* --png-compression */
} upscale_args;

/* The engine of the last picture, kept for the next one of the same sizes. */
typedef struct engine_cache {
    const engine_name *engine;
    int in_w, in_h, out_w, out_h;
    upf_spatial *sp;
    upf_resampler *rs;
    upf_models *models;          /* --model's, or the built-in ones: loaded once */
#ifdef UPF_HAVE_VULKAN
    upf_vk_managed *vk;          /* --backend vulkan: its device and engine */
    upf_format vk_src, vk_dst;
#endif
    bool checked_default;        /* the built-in models were looked for */
} engine_cache;

/* What one picture's run measured, for the report. */
typedef struct file_report {
    const char *in, *out;
    int in_w, in_h, out_w, out_h;
    const engine_name *engine;
    const char *out_kind;        /* "8-bit PNG", "16-bit PNG", "PFM" */
    double t_read, t_upscale, t_write;
    double pass_ms[UPF_SPATIAL_PASS_COUNT];
    int step;
    size_t memory;               /* the engine's bytes, when known */
    bool built_in;
} file_report;

static bool is_builtin(const char *in)
{
    return strcmp(in, "builtin") == 0 || strncmp(in, "builtin:", 8) == 0;
}

/* Loads IN into `img` as a colour image: a file, standard input, or a built-in frame. */
static int load_input(const char *in, const cli_common *c, imageio_image *img)
{
    char err[IMAGEIO_ERR_SIZE];
    if (is_builtin(in)) {
        upf_result r = builtin_frame_render(in[7] ? in + 8 : NULL, BUILTIN_FRAME_WIDTH,
                                            BUILTIN_FRAME_HEIGHT, c->threads, img, err);
        return r == UPF_OK ? CLI_EXIT_OK : cli_fail("upscale", cli_exit_code(r), "%s", err);
    }
    int rc = cli_read_image("upscale", in, c, img);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (img->img.format == UPF_FORMAT_R32F) {
        /* A grey PFM: spread it to RGBA so every engine can take it. */
        imageio_image rgba;
        upf_result r = imageio_alloc(&rgba, img->img.width, img->img.height, UPF_FORMAT_RGBA32F,
                                     err);
        if (r != UPF_OK) {
            imageio_free(img);
            return cli_fail("upscale", cli_exit_code(r), "%s", err);
        }
        const float *src = img->img.data;
        float *dst = rgba.img.data;
        for (size_t i = 0; i < (size_t)img->img.width * img->img.height; i++)
            dst[4 * i] = dst[4 * i + 1] = dst[4 * i + 2] = src[i], dst[4 * i + 3] = 1.0f;
        rgba.type = img->type;
        rgba.bit_depth = img->bit_depth;
        rgba.channels = img->channels;
        imageio_free(img);
        *img = rgba;
    }
    return CLI_EXIT_OK;
}

/* The lowest and highest colour value of a float picture (alpha aside). */
static void float_range(const imageio_image *img, float *lo, float *hi)
{
    *lo = 0;
    *hi = 1;
    if (img->img.format != UPF_FORMAT_RGBA32F)
        return;
    const float *p = img->img.data;
    for (size_t i = 0; i < (size_t)img->img.width * img->img.height; i++)
        for (int c = 0; c < 3; c++) {
            *lo = fminf(*lo, p[4 * i + c]);
            *hi = fmaxf(*hi, p[4 * i + c]);
        }
}

/* Writes the spatial engine's intermediate images into DIR (--debug-passes); every file and
 * the folder (if made here) go on the undo list. */
static int write_debug_passes(upf_spatial *sp, upf_context *ctx, const char *dir)
{
    static const upf_spatial_pass passes[] = { UPF_SPATIAL_PASS_EDGES, UPF_SPATIAL_PASS_WEIGHTS,
                                               UPF_SPATIAL_PASS_BLEND, UPF_SPATIAL_PASS_DETAIL };
    char err[IMAGEIO_ERR_SIZE], path[4096];
    bool made;
    int rc = cli_prepare_dir("upscale", "--debug-passes", dir, &made);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (made)
        cli_undo_dir(dir);
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++) {
        int w, h;
        if (upf_spatial_debug_size(sp, passes[i], &w, &h) != UPF_OK)
            continue; /* a pass that did not run has no picture */
        imageio_image pic;
        upf_result r = imageio_alloc(&pic, w, h, UPF_FORMAT_RGBA8_SRGB, err);
        if (r != UPF_OK)
            return cli_fail("upscale", cli_exit_code(r), "%s", err);
        r = upf_spatial_debug_image(sp, passes[i], &pic.img);
        if (r != UPF_OK) {
            imageio_free(&pic);
            return cli_fail_upf("upscale", ctx, r);
        }
        snprintf(path, sizeof path, "%s/%s.png", dir, upf_spatial_pass_name(passes[i]));
        r = imageio_write_png(path, &pic.img, 8, err);
        imageio_free(&pic);
        if (r != UPF_OK)
            return cli_fail("upscale", cli_exit_code(r), "%s", err);
        cli_undo_file(path);
    }
    return CLI_EXIT_OK;
}

/* The spatial engine's models: --model's, else the build's, parsed once for every engine
 * and estimate of the run (NULL: the build has none). */
static upf_models *models_of(engine_cache *ec, upf_context *ctx)
{
    if (!ec->models && !ec->checked_default) {
        ec->models = upf_models_default(ctx);
        ec->checked_default = true;
    }
    return ec->models;
}

/* Whether the build has models the spatial engine can use for this ratio. */
static bool spatial_fits(engine_cache *ec, upf_context *ctx, int in_w, int in_h, int out_w,
                         int out_h)
{
    if (out_w < in_w || out_h < in_h || out_w > 4.0 * in_w || out_h > 4.0 * in_h)
        return false;
    return models_of(ec, ctx) != NULL;
}

static void cache_clear(engine_cache *ec)
{
#ifdef UPF_HAVE_VULKAN
    upf_vk_managed_destroy(&ec->vk);
#endif
    upf_spatial_destroy(&ec->sp);
    upf_resampler_destroy(&ec->rs);
    ec->engine = NULL;
}

/* The engine for these sizes: the cached one, or a new one. */
static int cache_get(engine_cache *ec, upf_context *ctx, const engine_name *engine,
                     double sharpness, int in_w, int in_h, int out_w, int out_h, size_t *memory)
{
    *memory = 0;
    if (ec->engine == engine && ec->in_w == in_w && ec->in_h == in_h && ec->out_w == out_w &&
        ec->out_h == out_h)
        return CLI_EXIT_OK;
    cache_clear(ec);
    /* What the engine takes, for the report (check_memory said it before). */
    const upf_spatial_params *sp = upf_spatial_params(
        .src_width = in_w, .src_height = in_h, .dst_width = out_w, .dst_height = out_h,
        .sharpness = (float)sharpness,
        .models = engine == SPATIAL ? models_of(ec, ctx) : NULL);
    const upf_resampler_params *rp = upf_resampler_params(
        .src_width = in_w, .src_height = in_h, .dst_width = out_w, .dst_height = out_h,
        .filter = engine->filter);
    upf_result known = engine == SPATIAL ? upf_spatial_memory(ctx, sp, memory)
                                         : upf_resampler_memory(ctx, rp, memory);
    if (known != UPF_OK)
        *memory = 0;
    if (engine == SPATIAL) {
        ec->sp = upf_spatial_create(ctx, sp);
        if (!ec->sp)
            return cli_fail_upf("upscale", ctx, upf_context_last_error(ctx, NULL));
    } else {
        ec->rs = upf_resampler_create(ctx, rp);
        if (!ec->rs)
            return cli_fail_upf("upscale", ctx, upf_context_last_error(ctx, NULL));
    }
    ec->engine = engine;
    ec->in_w = in_w;
    ec->in_h = in_h;
    ec->out_w = out_w;
    ec->out_h = out_h;
    return CLI_EXIT_OK;
}

#ifdef UPF_HAVE_VULKAN
/* --backend vulkan: the managed device and engine for these sizes and formats (made once,
 * kept for the next picture like the CPU engines), upload, run, read back. */
static int vulkan_upscale(engine_cache *ec, upf_context *ctx, const upscale_args *a,
                          const upf_image *src, const upf_image *dst, file_report *fr)
{
    if (!(ec->vk && ec->in_w == src->width && ec->in_h == src->height &&
          ec->out_w == dst->width && ec->out_h == dst->height && ec->vk_src == src->format &&
          ec->vk_dst == dst->format)) {
        cache_clear(ec);
        int dev = -1;
        int rc = cli_vk_device("upscale", &dev);
        if (rc != CLI_EXIT_OK)
            return rc;
        upf_vk_managed_params mp = { .device_index = dev,
                                     .src_width = src->width, .src_height = src->height,
                                     .dst_width = dst->width, .dst_height = dst->height,
                                     .src_format = src->format, .dst_format = dst->format,
                                     .sharpness = (float)a->sharpness,
                                     .models = models_of(ec, ctx),
                                     .timestamps = 1 };
        ec->vk = upf_vk_managed_create(ctx, &mp);
        if (!ec->vk) { /* a queue without timestamps: run without the passes' times */
            mp.timestamps = 0;
            ec->vk = upf_vk_managed_create(ctx, &mp);
        }
        if (!ec->vk)
            return cli_fail_upf("upscale", ctx, upf_context_last_error(ctx, NULL));
        ec->in_w = src->width, ec->in_h = src->height;
        ec->out_w = dst->width, ec->out_h = dst->height;
        ec->vk_src = src->format, ec->vk_dst = dst->format;
        cli_note("upscale", "--backend vulkan: %s, detail variant %s",
                 upf_vk_managed_device_name(ec->vk),
                 upf_vk_variant_name(upf_vk_spatial_variant(upf_vk_managed_engine(ec->vk))));
    }
    upf_result r = upf_vk_managed_run(ec->vk, src, dst);
    if (r != UPF_OK)
        return cli_fail_upf("upscale", ctx, r);
    double total;
    if (upf_vk_spatial_timings(upf_vk_managed_engine(ec->vk), fr->pass_ms, &total) != UPF_OK)
        memset(fr->pass_ms, 0, sizeof fr->pass_ms);
    fr->step = -1; /* the passes' times are reported; the step is the engine's */
    return CLI_EXIT_OK;
}
#endif

static const char *out_kind(imageio_type type, int bits)
{
    return type == IMAGEIO_PFM ? "PFM" : bits == 16 ? "16-bit PNG" : "8-bit PNG";
}

/* What this picture's run will take, the engine (unless the cached one serves) and the
 * pictures in and out, said and refused beyond --max-memory before either is taken. */
static int check_memory(const upscale_args *a, engine_cache *ec, upf_context *ctx,
                        const engine_name *engine, const upf_image *src, int out_w, int out_h,
                        upf_format dst_format)
{
    const int in_w = src->width, in_h = src->height;
    bool cached = ec->engine == engine && ec->in_w == in_w && ec->in_h == in_h &&
                  ec->out_w == out_w && ec->out_h == out_h;
    size_t bytes = 0;
    if (!a->vulkan && !cached) { /* the GPU's engine takes no host memory to speak of */
        upf_result r = engine == SPATIAL
                           ? upf_spatial_memory(ctx, upf_spatial_params(
                                 .src_width = in_w, .src_height = in_h, .dst_width = out_w,
                                 .dst_height = out_h, .sharpness = (float)a->sharpness,
                                 .models = models_of(ec, ctx)), &bytes)
                           : upf_resampler_memory(ctx, upf_resampler_params(
                                 .src_width = in_w, .src_height = in_h, .dst_width = out_w,
                                 .dst_height = out_h, .filter = engine->filter), &bytes);
        if (r != UPF_OK)
            return CLI_EXIT_OK; /* the real creation says what is wrong */
    }
    const double pictures =
        (double)in_w * in_h * (double)upf_format_bytes_per_pixel(src->format) +
        (double)out_w * out_h * (double)upf_format_bytes_per_pixel(dst_format);
    char what[64];
    snprintf(what, sizeof what, "the %s engine%s", engine->name,
             a->vulkan ? " on the GPU" : cached ? " (made already)" : "");
    return cli_check_memory("upscale", &a->common, what, out_w, out_h, (double)bytes, pictures);
}

/* One picture: read, pick the engine, upscale, write. */
static int upscale_one(const upscale_args *a, engine_cache *ec, upf_context *ctx,
                       const char *in, const cli_output *out, file_report *fr)
{
    const char *cmd = "upscale";
    memset(fr, 0, sizeof *fr);
    fr->in = strcmp(in, "-") == 0 ? "standard input" : in;
    fr->out = out->to_stdout ? "standard output" : out->path;
    fr->built_in = is_builtin(in);
    double t0 = cli_now();
    imageio_image src;
    int rc = load_input(in, &a->common, &src);
    if (rc != CLI_EXIT_OK)
        return rc;
    fr->t_read = cli_now() - t0;
    const int in_w = src.img.width, in_h = src.img.height;
    fr->in_w = in_w;
    fr->in_h = in_h;
    int out_w, out_h;
    if (!cli_output_size(in_w, in_h, a->scale, a->size_w, a->size_h, &out_w, &out_h)) {
        imageio_free(&src);
        if (a->scale > 0)
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s is %dx%d; x%g gives %dx%d (expected "
                            "each side in 1..%d)", in, in_w, in_h, a->scale, out_w, out_h,
                            UPF_MAX_IMAGE_DIMENSION);
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s is %dx%d; keeping its aspect ratio, the "
                        "output would be %dx%d (expected each side in 1..%d)", in, in_w, in_h,
                        out_w, out_h, UPF_MAX_IMAGE_DIMENSION);
    }
    fr->out_w = out_w;
    fr->out_h = out_h;
    size_t max_px = cli_max_pixels(&a->common);
    if ((size_t)out_w * (size_t)out_h > max_px) {
        imageio_free(&src);
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "the output of %s would be %dx%d = %zu pixels; "
                        "expected at most %zu (raise the limit with --max-pixels)", in, out_w,
                        out_h, (size_t)out_w * (size_t)out_h, max_px);
    }

    /* The engine: the one asked for, else the best for this picture. */
    const engine_name *engine = a->engine;
    bool ratio_ok = out_w >= in_w && out_h >= in_h && out_w <= 4.0 * in_w && out_h <= 4.0 * in_h;
    if ((engine == SPATIAL || (!engine && a->spatial_options)) && !ratio_ok) {
        imageio_free(&src);
        return cli_usage(cmd, "%s %s: the spatial engine makes frames 1 to 4 times bigger on "
                         "each side, and %s is %dx%d -> %dx%d; use --engine lanczos for other "
                         "ratios", a->scale > 0 ? "--scale" : "--size",
                         a->scale > 0 ? a->scale_s : a->size_s, in, in_w, in_h, out_w, out_h);
    }
    if (!engine)
        engine = a->spatial_options || spatial_fits(ec, ctx, in_w, in_h, out_w, out_h) ? SPATIAL
                                                                                      : LANCZOS;
    float lo, hi;
    float_range(&src, &lo, &hi);
    /* The filters overshoot (Lanczos by up to about 1.3 x) and the float maximum is 3.4e38:
     * a PFM written from values near it would hold +Inf. Said before any work. */
    if (out->type == IMAGEIO_PFM && (hi > 1e37f || lo < -1e37f)) {
        imageio_free(&src);
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s holds values up to %g; expected magnitudes "
                        "of at most 1e37 for a PFM output (the filters overshoot, and past the "
                        "float maximum 3.4e38 the output would be infinite)", fr->in,
                        (double)(hi > -lo ? hi : lo));
    }
    if (engine == SPATIAL && hi > 1 && !fr->built_in) /* the demo's own HDR: nothing to say */
        cli_note(cmd, "%s holds values up to %g (HDR): the spatial engine tone-maps them "
                 "c / (1 + max(c)) around its passes and restores them", fr->in, (double)hi);
    fr->engine = engine;

    /* The output's format, and what to say about it. */
    int bits = a->bits ? a->bits : src.type == IMAGEIO_PNG ? src.bit_depth : 8;
    if (out->type == IMAGEIO_PFM && a->bits)
        cli_note(cmd, "--bits %d does not apply to PFM (32-bit float); ignored", a->bits);
    if (out->type == IMAGEIO_PFM && a->png_s)
        cli_note(cmd, "--png-compression %s does not apply to PFM; ignored", a->png_s);
    if (out->type == IMAGEIO_PNG && (src.type == IMAGEIO_PNG || src.type == IMAGEIO_JPEG) &&
        src.channels <= 2)
        cli_note(cmd, "%s is greyscale; %s is written as %s (the engines work in colour)", fr->in,
                 fr->out, src.channels == 2 ? "RGBA" : "RGB");
    if (out->exists)
        cli_note(cmd, "replacing %s", out->path);
    fr->out_kind = out_kind(out->type, bits);
    upf_format dst_format = out->type == IMAGEIO_PFM ? UPF_FORMAT_RGBA32F
                            : bits == 16            ? UPF_FORMAT_RGBA16_SRGB
                                                    : UPF_FORMAT_RGBA8_SRGB;
    if ((rc = check_memory(a, ec, ctx, engine, &src.img, out_w, out_h, dst_format)) !=
        CLI_EXIT_OK) {
        imageio_free(&src);
        return rc;
    }
    char err[IMAGEIO_ERR_SIZE];
    imageio_image dst;
    upf_result r = imageio_alloc(&dst, out_w, out_h, dst_format, err);
    if (r != UPF_OK) {
        imageio_free(&src);
        return cli_fail(cmd, cli_exit_code(r), "%s", err);
    }

    double t1 = cli_now();
#ifdef UPF_HAVE_VULKAN
    if (a->vulkan)
        rc = vulkan_upscale(ec, ctx, a, &src.img, &dst.img, fr);
    else
#endif
    {
        rc = cache_get(ec, ctx, engine, a->sharpness, in_w, in_h, out_w, out_h, &fr->memory);
        if (rc == CLI_EXIT_OK) {
            r = ec->sp ? upf_spatial_run(ec->sp, &src.img, &dst.img)
                       : upf_resampler_run(ec->rs, &src.img, &dst.img);
            if (r != UPF_OK)
                rc = cli_fail_upf(cmd, ctx, r);
        }
    }
    fr->t_upscale = cli_now() - t1; /* the debug pictures are not the engine's time */
    if (rc == CLI_EXIT_OK && ec->sp) {
        upf_spatial_timings(ec->sp, fr->pass_ms);
        fr->step = upf_spatial_model_step(ec->sp);
        if (a->debug_dir)
            rc = write_debug_passes(ec->sp, ctx, a->debug_dir);
    }
    imageio_free(&src);
    if (rc == CLI_EXIT_OK) {
        double t2 = cli_now();
        rc = cli_write_image(cmd, out, &dst.img, bits);
        fr->t_write = cli_now() - t2;
    }
    imageio_free(&dst);
    return rc;
}

static void report_text(const upscale_args *a, const file_report *fr, bool batch, int threads)
{
    if (batch) {
        cli_report("wrote %s (%dx%d %s, %s, from %dx%d): read %.1f ms, upscale %.1f ms, write "
                   "%.1f ms\n", fr->out, fr->out_w, fr->out_h, fr->out_kind, fr->engine->name,
                   fr->in_w, fr->in_h, fr->t_read * 1e3, fr->t_upscale * 1e3,
                   fr->t_write * 1e3);
        return;
    }
    cli_report("wrote %s (%dx%d %s, %s, from %dx%d)\n", fr->out, fr->out_w, fr->out_h,
               fr->out_kind, fr->engine->name, fr->in_w, fr->in_h);
    cli_report("  %s   %8.1f ms%s\n  upscale  %8.1f ms  (%s, %d thread%s)\n",
               fr->built_in ? "render" : "read  ", fr->t_read * 1e3,
               fr->built_in ? "  (the built-in frame: the scene renderer, 1 sample per pixel)" : "",
               fr->t_upscale * 1e3, fr->engine->name, threads, threads == 1 ? "" : "s");
    if (fr->step < 0) {
        cli_report("           on the GPU (--backend vulkan), sharpness %g; GPU times:\n",
                   a->sharpness);
        for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++)
            cli_report("    %-8s %8.3f ms\n", upf_spatial_pass_name((upf_spatial_pass)p),
                       fr->pass_ms[p]);
    } else if (fr->step) {
        cli_report("           model step %d (ratio %.3f), sharpness %g\n", fr->step,
                   12.0 / fr->step, a->sharpness);
        for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++)
            cli_report("    %-8s %8.1f ms\n", upf_spatial_pass_name((upf_spatial_pass)p),
                       fr->pass_ms[p]);
    }
    cli_report("  write    %8.1f ms\n", fr->t_write * 1e3);
    if (a->debug_dir)
        cli_report("  intermediate images in %s/\n", a->debug_dir);
}

/* Seconds as milliseconds to the microsecond (what a clock here can tell apart). */
static double ms3(double seconds)
{
    return round(seconds * 1e6) / 1e3;
}

static void report_json(cli_json *j, const upscale_args *a, const file_report *fr, int rc)
{
    cli_json_object(j, NULL);
    cli_json_string(j, "input", fr->in);
    cli_json_string(j, "output", fr->out);
    cli_json_bool(j, "ok", rc == CLI_EXIT_OK);
    cli_json_int(j, "exit_code", rc);
    if (fr->in_w) {
        cli_json_int(j, "input_width", fr->in_w);
        cli_json_int(j, "input_height", fr->in_h);
    }
    if (fr->out_w) {
        cli_json_int(j, "width", fr->out_w);
        cli_json_int(j, "height", fr->out_h);
    }
    if (fr->engine)
        cli_json_string(j, "engine", fr->engine->name);
    if (fr->out_kind)
        cli_json_string(j, "format", fr->out_kind);
    if (rc == CLI_EXIT_OK) {
        cli_json_object(j, "ms");
        cli_json_number(j, "read", ms3(fr->t_read));
        cli_json_number(j, "upscale", ms3(fr->t_upscale));
        cli_json_number(j, "write", ms3(fr->t_write));
        cli_json_close(j);
        if (fr->step) {
            cli_json_string(j, "backend", fr->step < 0 ? "vulkan" : "cpu");
            if (fr->step > 0)
                cli_json_int(j, "model_step", fr->step);
            cli_json_number(j, "sharpness", a->sharpness);
            cli_json_object(j, "passes_ms");
            for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++)
                cli_json_number(j, upf_spatial_pass_name((upf_spatial_pass)p),
                                round(fr->pass_ms[p] * 1e3) / 1e3);
            cli_json_close(j);
        }
        if (fr->memory)
            cli_json_int(j, "engine_bytes", (long long)fr->memory);
    }
    cli_json_close(j);
}

/* Parses and checks the command line (usage errors: exit 1). */
static int parse_args(int argc, char **argv, upscale_args *a, char **inputs)
{
    const char *cmd = "upscale", *scale_s = NULL, *size_s = NULL, *engine_s = NULL;
    const char *bits_s = NULL, *sharp_s = NULL, *backend_s = NULL;
    memset(a, 0, sizeof *a);
    a->inputs = inputs;
    cli_args p;
    cli_args_init(&p, cmd, argc, argv);
    while (cli_args_next(&p)) {
        if (cli_args_positional(&p))
            inputs[a->n_inputs++] = (char *)p.arg;
        else if (cli_common_option(&p, &a->common,
                                   CLI_OPT_JSON | CLI_OPT_THREADS | CLI_OPT_MAX_PIXELS |
                                       CLI_OPT_MAX_MEMORY)) {
        } else if (cli_args_option(&p, "-o") || cli_args_option(&p, "--output"))
            a->out = p.value;
        else if (cli_args_option(&p, "--scale"))
            scale_s = p.value;
        else if (cli_args_option(&p, "--size"))
            size_s = p.value;
        else if (cli_args_option(&p, "--engine"))
            engine_s = p.value;
        else if (cli_args_option(&p, "--bits"))
            bits_s = p.value;
        else if (cli_args_option(&p, "--format"))
            a->format = p.value;
        else if (cli_args_option(&p, "--png-compression"))
            a->png_s = p.value;
        else if (cli_args_option(&p, "--sharpness"))
            sharp_s = p.value;
        else if (cli_args_option(&p, "--model"))
            a->model_path = p.value;
        else if (cli_args_option(&p, "--debug-passes"))
            a->debug_dir = p.value;
        else if (cli_args_option(&p, "--backend"))
            backend_s = p.value;
        else
            return cli_args_unknown(&p);
    }
    if (p.failed)
        return CLI_EXIT_USAGE;
    a->scale_s = scale_s;
    a->size_s = size_s;
    if (!a->n_inputs)
        return cli_usage(cmd, "no input given (a PNG, JPEG or PFM file, a folder of them, '-' "
                         "or 'builtin')");
    if (!a->out)
        return cli_usage(cmd, "no output given (-o OUT.png, OUT.pfm, '-' or a folder)");
    if (!scale_s == !size_s)
        return cli_usage(cmd, "give exactly one of --scale R and --size WxH");
    for (size_t k = 0; engine_s && k < sizeof engines / sizeof engines[0]; k++)
        if (strcmp(engine_s, engines[k].name) == 0)
            a->engine = &engines[k];
    if (engine_s && !a->engine)
        return cli_usage(cmd, "unknown engine '%s' (expected spatial, lanczos, bicubic or "
                         "bilinear)", engine_s);
    a->sharpness = 0.0; /* as the library's default: sharper costs PSNR and FLIP on games */
    if (sharp_s && !cli_parse_double(sharp_s, 0, UPF_SPATIAL_SHARPNESS_MAX, &a->sharpness))
        return cli_usage(cmd, "--sharpness '%s' must be a number in 0..%g", sharp_s,
                         (double)UPF_SPATIAL_SHARPNESS_MAX);
    if (backend_s && strcmp(backend_s, "cpu") != 0 && strcmp(backend_s, "vulkan") != 0)
        return cli_usage(cmd, "--backend '%s': expected cpu or vulkan", backend_s);
    a->vulkan = backend_s && strcmp(backend_s, "vulkan") == 0;
#ifndef UPF_HAVE_VULKAN
    if (a->vulkan)
        return cli_usage(cmd, "--backend vulkan: this build has no Vulkan backend (it was "
                         "built without the Vulkan headers or glslangValidator)");
#endif
    if (a->vulkan && a->engine && a->engine != &engines[0])
        return cli_usage(cmd, "--backend vulkan runs the spatial engine, not %s",
                         a->engine->name);
    if (a->vulkan && a->debug_dir)
        return cli_usage(cmd, "--debug-passes goes with --backend cpu (the GPU's intermediate "
                         "images stay on the GPU)");
    a->spatial_options = sharp_s || a->model_path || a->debug_dir || a->vulkan;
    if (a->engine && a->engine != SPATIAL && a->spatial_options)
        return cli_usage(cmd, "--sharpness, --model and --debug-passes go with --engine "
                         "spatial, not %s", a->engine->name);
    if (scale_s && !cli_parse_scale(scale_s, 0.01, 16, &a->scale))
        return cli_usage(cmd, "--scale '%s' is not a number in 0.01..16 (e.g. 2 or 2x)", scale_s);
    if ((a->engine == SPATIAL || (!a->engine && a->spatial_options)) && scale_s &&
        (a->scale < 1 || a->scale > 4))
        return cli_usage(cmd, "--scale %s: the spatial engine makes frames 1 to 4 times bigger; "
                         "use --engine lanczos, bicubic or bilinear for x%g", scale_s, a->scale);
    if (size_s && !cli_parse_size_spec(size_s, &a->size_w, &a->size_h))
        return cli_usage(cmd, "--size '%s' is not WxH, Wx or xH with each side in 1..%d",
                         size_s, UPF_MAX_IMAGE_DIMENSION);
    long bits = 0;
    if (bits_s && (!cli_parse_int(bits_s, 8, 16, &bits) || (bits != 8 && bits != 16)))
        return cli_usage(cmd, "--bits '%s' must be 8 or 16", bits_s);
    a->bits = (int)bits;
    if (a->format && strcmp(a->format, "png") != 0 && strcmp(a->format, "pfm") != 0)
        return cli_usage(cmd, "--format '%s': expected png or pfm", a->format);
    if (a->png_s && strcmp(a->png_s, "fast") != 0 && strcmp(a->png_s, "small") != 0)
        return cli_usage(cmd, "--png-compression '%s': expected fast or small", a->png_s);
    a->png = a->png_s && strcmp(a->png_s, "small") == 0 ? IMAGEIO_PNG_SMALL : IMAGEIO_PNG_FAST;
    if (a->common.json && (strcmp(a->out, "-") == 0 || strstr(a->out, ":-")))
        return cli_usage(cmd, "--json and -o - would both write to standard output; give a "
                         "file for one of them");
    return CLI_EXIT_OK;
}

static int run_upscale(int argc, char **argv)
{
    const char *cmd = "upscale";
    char **inputs = malloc(sizeof(char *) * (size_t)(argc > 1 ? argc : 1));
    if (!inputs)
        return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory");
    upscale_args a;
    int rc = parse_args(argc, argv, &a, inputs);
    if (rc != CLI_EXIT_OK) {
        free(inputs);
        return rc;
    }

    /* One picture or a batch; a batch goes into a folder. */
    bool any_dir = false;
    for (int k = 0; k < a.n_inputs; k++) {
        struct stat st;
        any_dir |= strcmp(a.inputs[k], "-") != 0 && stat(a.inputs[k], &st) == 0 &&
                   S_ISDIR(st.st_mode);
    }
    struct stat ost;
    bool out_is_dir = stat(a.out, &ost) == 0 && S_ISDIR(ost.st_mode);
    bool batch = a.n_inputs > 1 || any_dir;
    cli_inputs list = { 0 };
    if (batch) {
        for (int k = 0; k < a.n_inputs; k++)
            if (strcmp(a.inputs[k], "-") == 0) {
                free(inputs);
                return cli_usage(cmd, "standard input ('-') takes one picture, not a batch");
            }
        if (strcmp(a.out, "-") == 0 || strstr(a.out, ":-")) {
            free(inputs);
            return cli_usage(cmd, "a batch writes into a folder (-o DIR), not standard output");
        }
        if (a.debug_dir) {
            free(inputs);
            return cli_usage(cmd, "--debug-passes takes one input, not a batch");
        }
        if (imageio_type_from_path(a.out) != IMAGEIO_UNKNOWN && !out_is_dir) {
            free(inputs);
            return cli_usage(cmd, "several inputs go into a folder: -o %s names a file",
                             a.out);
        }
    }
    if ((rc = cli_collect_inputs(cmd, a.inputs, a.n_inputs, &list)) != CLI_EXIT_OK) {
        free(inputs);
        return rc;
    }

    /* Every output checked before any work. */
    cli_output *outs = calloc((size_t)list.count, sizeof *outs);
    char (*paths)[4096] = calloc((size_t)list.count, sizeof *paths);
    if (!outs || !paths) {
        rc = cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory");
        goto done;
    }
    const char *ext = a.format ? a.format : "png";
    if (batch || out_is_dir) {
        for (int k = 0; k < list.count; k++) {
            const char *name = is_builtin(list.paths[k]) ? "builtin" : list.paths[k];
            if (!cli_output_in_dir(a.out, name, ext, paths[k], sizeof paths[k])) {
                rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s/...: the path is too long", a.out);
                goto done;
            }
            for (int q = 0; q < k; q++)
                if (strcmp(paths[q], paths[k]) == 0) {
                    rc = cli_usage(cmd, "%s and %s would both be written to %s; give them "
                                   "different names", list.paths[q], list.paths[k], paths[k]);
                    goto done;
                }
        }
        bool made = false;
        if ((rc = cli_prepare_dir(cmd, "-o", a.out, &made)) != CLI_EXIT_OK)
            goto done;
        if (made)
            cli_undo_dir(a.out);
        for (int k = 0; k < list.count; k++)
            if ((rc = cli_check_output(cmd, paths[k], NULL, &outs[k])) != CLI_EXIT_OK) {
                cli_undo_now();
                goto done;
            }
    } else if ((rc = cli_check_output(cmd, a.out, a.format, &outs[0])) != CLI_EXIT_OK) {
        goto done;
    }
    for (int k = 0; k < list.count; k++)
        outs[k].png = a.png;
    if (outs[0].to_stdout)
        cli_report_to_stderr(); /* stdout carries the picture */

    upf_context *ctx = cli_context_for(cmd, &a.common);
    if (!ctx) {
        cli_undo_now();
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    engine_cache ec = { 0 };
    if (a.model_path && !(ec.models = cli_load_models(cmd, ctx, a.model_path, &rc))) {
        cli_undo_now();
        upf_context_destroy(&ctx);
        goto done;
    }
    cli_json j;
    if (a.common.json) {
        cli_json_begin(&j, stdout);
        cli_json_object(&j, NULL);
        cli_json_string(&j, "command", "upscale");
        cli_json_array(&j, "files");
    }
    cli_progress bar;
    cli_progress_begin(&bar, "upscale", false);
    int failed = 0, attempted = 0, first_rc = CLI_EXIT_OK;
    double t0 = cli_now();
    for (int k = 0; k < list.count; k++) {
        cli_progress_update(&bar, (double)k / list.count, "%d/%d %s", k + 1, list.count,
                            list.paths[k]);
        attempted++;
        file_report fr;
        rc = upscale_one(&a, &ec, ctx, list.paths[k], &outs[k], &fr);
        if (rc == CLI_EXIT_OK && !a.common.json) {
            cli_progress_end(&bar);
            report_text(&a, &fr, batch, upf_context_threads(ctx));
        }
        if (a.common.json)
            report_json(&j, &a, &fr, rc);
        if (rc != CLI_EXIT_OK) {
            failed++;
            if (first_rc == CLI_EXIT_OK)
                first_rc = rc;
            if (!batch || rc == CLI_EXIT_USAGE || rc == CLI_EXIT_INTERNAL)
                break; /* a batch goes on after a bad file, not after a usage or internal error */
        }
    }
    cli_progress_end(&bar);
    double seconds = cli_now() - t0;
    if (a.common.json) {
        cli_json_close(&j);
        cli_json_int(&j, "files_ok", attempted - failed);
        cli_json_int(&j, "files_failed", failed);
        cli_json_int(&j, "threads", upf_context_threads(ctx));
        cli_json_number(&j, "seconds", round(seconds * 1e6) / 1e6);
        cli_json_close(&j);
        cli_json_end(&j);
    } else if (batch) {
        char n1[32];
        cli_report("upscaled %d of %s in %.1f s (%.2f s each)%s\n", attempted - failed,
                   cli_count(n1, sizeof n1, list.count, "file", "files"), seconds,
                   seconds / list.count, failed ? "; see the errors above" : "");
    }
    rc = first_rc;
    if (rc != CLI_EXIT_OK && (!batch || failed == attempted))
        cli_undo_now(); /* --debug-passes files, a folder made for them or for the batch */
    else
        cli_undo_forget(); /* a batch keeps the files that worked, and their folder */
    cache_clear(&ec);
    upf_models_destroy(&ec.models);
    upf_context_destroy(&ctx);
done:
    free(outs);
    free(paths);
    cli_inputs_free(&list);
    free(inputs);
    return rc;
}

const cli_command cli_cmd_upscale = {
    "upscale", run_upscale, "make a frame bigger: upframe upscale IN -o OUT --scale 2",
    upscale_help,
};
