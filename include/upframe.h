/* upframe.h: the public C API of upframe (C99 and C++ compatible).
 *
 * upframe makes game frames bigger and smoother. The host owns the frame: it creates a
 * context once, creates the objects it needs sized for its frames, and calls them once per
 * frame; nothing allocates per frame and nothing is global.
 *
 * Conventions (libplacebo's, see docs/ARCHITECTURE.md):
 *  - Objects are opaque handles made by `upf_X_create(ctx, params)` and freed by
 *    `upf_X_destroy(&handle)`, which sets the handle to NULL and accepts a NULL handle.
 *  - Params structs are read only during the call. Every field's zero value means "the
 *    default", so the macro `upf_X_params(.field = value, ...)` builds one in place with
 *    designated initialisers (at least one field: empty braces need C23), and NULL stands
 *    for all defaults.
 *  - Functions return `upf_result`; on failure the context keeps a message that names what
 *    was wrong, where, and what was expected (`upf_context_last_error`), and it is also sent
 *    to the log callback. The library never aborts and never prints by itself.
 *  - Each function states its thread safety. "Context-serialised" means: calls that use the
 *    same context (or an object made from it) must not overlap; different contexts are
 *    independent.
 */
#ifndef UPFRAME_H
#define UPFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "upframe/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Results
 * ------------------------------------------------------------------------------------- */

typedef enum upf_result {
    UPF_OK = 0,
    UPF_ERROR_INVALID_ARGUMENT = 1, /* a NULL pointer, a size, format or value out of range */
    UPF_ERROR_BAD_DATA = 2,         /* input content is unusable: NaN/Inf pixels, a corrupt model */
    UPF_ERROR_UNSUPPORTED = 3,      /* valid, but not supported by this build or backend */
    UPF_ERROR_OUT_OF_MEMORY = 4,    /* an allocation failed */
    UPF_ERROR_IO = 5,               /* a file could not be read or written (tools, model files) */
    UPF_ERROR_INTERNAL = 6          /* a bug in upframe: please report it */
} upf_result;

/* A short English description of a result code ("invalid argument", ...). Never NULL.
 * Thread-safety: safe. */
UPF_API const char *upf_result_string(upf_result result);

/* ---------------------------------------------------------------------------------------
 * Logging, threads and memory: what the host lends the context
 * ------------------------------------------------------------------------------------- */

typedef enum upf_log_level {
    UPF_LOG_DEFAULT = 0, /* in params: UPF_LOG_WARN */
    UPF_LOG_ERROR = 1,
    UPF_LOG_WARN = 2,
    UPF_LOG_INFO = 3,
    UPF_LOG_DEBUG = 4,
    UPF_LOG_TRACE = 5
} upf_log_level;

/* Receives one complete message (no trailing newline). It may be called from any thread that
 * calls into the context, never from the context's own worker threads. */
typedef void (*upf_log_fn)(void *priv, upf_log_level level, const char *message);

/* A log callback that writes "upframe: <level>: <message>\n" to stderr. `priv` is unused. */
UPF_API void upf_log_stderr(void *priv, upf_log_level level, const char *message);

/* One unit of parallel work: `index` in [0, count), `worker` in [0, threads) identifies the
 * thread running it (two tasks running at once never share a worker number). */
typedef void (*upf_task_fn)(void *task_priv, int index, int worker);

/* A host's own parallel-for: run task(task_priv, i, worker) once for every i in [0, count),
 * on up to `threads` workers (upf_context_params.threads), and return when all are done. */
typedef void (*upf_parallel_for_fn)(void *host_priv, upf_task_fn task, void *task_priv, int count);

/* Optional allocator. `alloc` returns memory aligned to `alignment` (a power of two, at most
 * 4096) or NULL; `free` accepts NULL. */
typedef struct upf_allocator {
    void *priv;
    void *(*alloc)(void *priv, size_t size, size_t alignment);
    void (*free)(void *priv, void *ptr);
} upf_allocator;

typedef struct upf_context_params {
    upf_log_fn log;            /* NULL: no log messages (errors are still kept, see below) */
    void *log_priv;            /* passed to `log` */
    upf_log_level log_level;   /* the most detailed level sent to `log`; 0: UPF_LOG_WARN */
    int threads;               /* workers; 0: one per online CPU (at most 64); 1: caller only */
    upf_parallel_for_fn parallel_for; /* NULL: the context runs its own pool of `threads` */
    void *parallel_for_priv;   /* passed to `parallel_for` */
    const upf_allocator *allocator; /* NULL: the C library's aligned_alloc/free */
    size_t max_pixels;         /* the largest image (width x height) a call takes or an
                                * object is made for; 0: UPF_DEFAULT_MAX_PIXELS; at most
                                * 16384 x 16384 */
} upf_context_params;

/* The default pixel limit: 2^27 = 134217728 pixels (16384 x 8192; a 4x upscale of
 * 3840x2160 fits). Like libspng's and ImageMagick's limits, it stops a small file that
 * claims a huge picture from taking gigabytes; raise max_pixels for larger work. */
#define UPF_DEFAULT_MAX_PIXELS ((size_t)1 << 27)

/* Builds a params struct in place: upf_context_params(.threads = 2, .log = upf_log_stderr).
 * Unnamed fields are zero, which means "default" for every field. */
#ifndef __cplusplus /* compound literals are C only */
#define upf_context_params(...) (&(const upf_context_params){ __VA_ARGS__ })
#endif

/* All defaults (the same as passing NULL). */
UPF_API extern const upf_context_params upf_context_default_params;

typedef struct upf_context upf_context;

/* Creates a context: the log, the thread pool, the allocator. Returns NULL on failure (the
 * reason goes to params->log). `params` may be NULL. Thread-safety: safe. */
UPF_API upf_context *upf_context_create(const upf_context_params *params);

/* Destroys *ctx and sets it to NULL. Accepts NULL and a pointer to NULL. Every object made
 * from the context must be destroyed first: while one lives, the call refuses (freeing the
 * context under it would leave it a dangling pointer): it logs and records an error
 * (upf_context_last_error), destroys nothing and leaves *ctx as it was, still usable.
 * Thread-safety: context-serialised. */
UPF_API void upf_context_destroy(upf_context **ctx);

/* The result of the last failed call on this context and its message (valid until the next
 * call on the context), or UPF_OK and "" when nothing has failed yet. `message` may be NULL.
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_context_last_error(const upf_context *ctx, const char **message);

/* The number of workers the context runs tasks on (>= 1). Thread-safety: safe. */
UPF_API int upf_context_threads(const upf_context *ctx);

/* ---------------------------------------------------------------------------------------
 * Images
 * ------------------------------------------------------------------------------------- */

/* Pixel formats. Colour formats are 4 channels, R G B A in memory order. "Linear" means
 * linear light; sRGB formats hold the sRGB transfer curve's encoded values (IEC 61966-2-1,
 * the piecewise curve), alpha always linear. Float formats are linear and may exceed 1. */
typedef enum upf_format {
    UPF_FORMAT_NONE = 0,
    UPF_FORMAT_RGBA8_SRGB = 1,   /* 4 x uint8, sRGB-encoded (8-bit PNG, JPEG) */
    UPF_FORMAT_RGBA8_UNORM = 2,  /* 4 x uint8, linear */
    UPF_FORMAT_RGBA16_SRGB = 3,  /* 4 x uint16 (host endian), sRGB-encoded (16-bit PNG) */
    UPF_FORMAT_RGBA16_UNORM = 4, /* 4 x uint16 (host endian), linear */
    UPF_FORMAT_RGBA16F = 5,      /* 4 x IEEE 754 binary16, linear */
    UPF_FORMAT_RGBA32F = 6,      /* 4 x float, linear */
    UPF_FORMAT_R32F = 7,         /* 1 x float: depth */
    UPF_FORMAT_RG32F = 8         /* 2 x float: motion vectors */
} upf_format;

/* The largest width or height any function accepts. */
#define UPF_MAX_IMAGE_DIMENSION 16384

/* A view of pixels the caller owns. Row y starts at (char *)data + y * stride.
 * Any alignment is accepted: `data` and `stride` need not be multiples of a channel's size
 * (16-bit and float channels are read and written byte-wise safely, at full speed when
 * aligned). The rows must lie inside the address space: (height - 1) * stride + width *
 * bytes per pixel may not overflow, nor run past the highest address (refused with
 * UPF_ERROR_INVALID_ARGUMENT). */
typedef struct upf_image {
    void *data;
    int width;
    int height;
    size_t stride;      /* bytes from one row to the next; 0: width * bytes per pixel */
    upf_format format;
} upf_image;

/* Bytes per pixel of a format, 0 for an unknown one. Thread-safety: safe. */
UPF_API size_t upf_format_bytes_per_pixel(upf_format format);

/* The format's name ("rgba8-srgb", ...), "unknown" for an unknown value. Thread-safety: safe. */
UPF_API const char *upf_format_name(upf_format format);

/* A rectangle inside an image. A NULL rect, or one with width 0, means the whole image. */
typedef struct upf_rect {
    int x, y, width, height;
} upf_rect;

/* ---------------------------------------------------------------------------------------
 * Classic resamplers: the baselines every engine is compared with
 * ------------------------------------------------------------------------------------- */

/* Separable filters, applied in linear light (sRGB input is decoded first and the output
 * encoded again). When shrinking, the kernel is widened by the ratio so it also filters out
 * what the smaller image cannot hold. Samples beyond the border repeat the edge pixel.
 * Alpha is filtered like a colour channel, straight (not premultiplied): exact for the
 * opaque frames of games; premultiply translucent images first if edges must not bleed. */
typedef enum upf_filter {
    UPF_FILTER_DEFAULT = 0,    /* UPF_FILTER_LANCZOS3 */
    UPF_FILTER_BILINEAR = 1,   /* triangle, radius 1 */
    UPF_FILTER_BICUBIC = 2,    /* Catmull-Rom (B = 0, C = 0.5), radius 2 */
    UPF_FILTER_LANCZOS3 = 3    /* sinc(x) sinc(x/3), radius 3 */
} upf_filter;

/* The filter's name ("bilinear", "bicubic", "lanczos"), "unknown" otherwise. */
UPF_API const char *upf_filter_name(upf_filter filter);

typedef struct upf_resampler_params {
    int src_width, src_height;  /* 1 .. UPF_MAX_IMAGE_DIMENSION */
    int dst_width, dst_height;  /* 1 .. UPF_MAX_IMAGE_DIMENSION, any ratio either way */
    upf_filter filter;
} upf_resampler_params;

#ifndef __cplusplus /* compound literals are C only */
#define upf_resampler_params(...) (&(const upf_resampler_params){ __VA_ARGS__ })
#endif

typedef struct upf_resampler upf_resampler;

/* Creates a resampler for one pair of sizes: computes the filter taps and allocates all the
 * scratch memory it will need, so upf_resampler_run never allocates. Returns NULL on failure
 * (see upf_context_last_error). Thread-safety: context-serialised. */
UPF_API upf_resampler *upf_resampler_create(upf_context *ctx, const upf_resampler_params *params);

/* The bytes upf_resampler_create would take for `params` on this context's threads (its
 * tap tables, intermediate image and per-thread rows), without taking them: to say what a
 * size costs before committing to it. The pixel limit is not applied here. Thread-safety:
 * context-serialised. */
UPF_API upf_result upf_resampler_memory(upf_context *ctx, const upf_resampler_params *params,
                                        size_t *bytes);

/* Thread-safety: context-serialised. Accepts NULL and a pointer to NULL. */
UPF_API void upf_resampler_destroy(upf_resampler **resampler);

/* Resamples `src` (the size given at creation, any colour format) into `dst` (the size given
 * at creation, any colour format), over the context's threads. Float input must be finite
 * (UPF_ERROR_BAD_DATA names the first pixel that is not); output is clamped to the range of
 * an integer format. `src` and `dst` must not overlap in memory (rows of strided views may
 * interleave). On failure the content of `dst` is unspecified. The result does not depend on
 * the number of threads. Thread-safety: context-serialised; a second call on the same
 * resampler while one runs on another thread fails with UPF_ERROR_INVALID_ARGUMENT. */
UPF_API upf_result upf_resampler_run(upf_resampler *resampler, const upf_image *src,
                                     const upf_image *dst);

/* One-shot form of the above (allocates and frees a resampler). Thread-safety:
 * context-serialised. */
UPF_API upf_result upf_resample(upf_context *ctx, const upf_image *src, const upf_image *dst,
                                upf_filter filter);

/* ---------------------------------------------------------------------------------------
 * Metrics: how close a picture is to a reference, how much detail and shimmer it has.
 *
 * All metrics work on display-encoded values: sRGB-encoded images are taken as they are,
 * linear ones are clamped to [0, 1] and sRGB-encoded first. Luma is Rec. 709
 * (0.2126 R + 0.7152 G + 0.0722 B) of the encoded values. Alpha is ignored. `crop` (NULL for
 * the whole image) must lie inside the images. Metrics allocate their scratch memory per
 * call; they are evaluation tools, not per-frame work.
 * ------------------------------------------------------------------------------------- */

typedef struct upf_psnr_result {
    double rgb;        /* dB over R, G, B with peak 1; +inf when the images are identical */
    double luma;       /* dB over luma */
    double mse_rgb;    /* mean squared error behind `rgb` */
    double mse_luma;   /* mean squared error behind `luma` */
} upf_psnr_result;

/* PSNR of `test` against `ref` (same size). Thread-safety: context-serialised. */
UPF_API upf_result upf_metric_psnr(upf_context *ctx, const upf_image *ref, const upf_image *test,
                                   const upf_rect *crop, upf_psnr_result *out);

/* Mean SSIM on luma (Wang et al. 2004: 11x11 Gaussian window, sigma 1.5, K1 = 0.01,
 * K2 = 0.03, dynamic range 1, population variances, only windows that fit inside the crop, no
 * downsampling). The crop must be at least 11x11. Thread-safety: context-serialised. */
UPF_API upf_result upf_metric_ssim(upf_context *ctx, const upf_image *ref, const upf_image *test,
                                   const upf_rect *crop, double *out);

typedef struct upf_flip_params {
    double pixels_per_degree; /* viewing condition, 2 .. 1000; 0: 67.02 (0.7 m from a 0.7 m
                               * wide 4K screen) */
} upf_flip_params;

#ifndef __cplusplus /* compound literals are C only */
#define upf_flip_params(...) (&(const upf_flip_params){ __VA_ARGS__ })
#endif

typedef struct upf_flip_result {
    double mean;             /* the headline number: mean of the per-pixel error, in [0, 1] */
    double weighted_median;  /* weighted percentiles of the 100-bucket weighted histogram */
    double weighted_q1;
    double weighted_q3;
    double min, max;
} upf_flip_result;

/* LDR-FLIP (Andersson et al. 2020) of `test` against `ref` (same size). If `error_map` is not
 * NULL it must be an R32F image the size of the crop and receives the per-pixel error.
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_metric_flip(upf_context *ctx, const upf_image *ref, const upf_image *test,
                                   const upf_rect *crop, const upf_flip_params *params,
                                   upf_flip_result *out, const upf_image *error_map);

/* Detail: the RMS of the luma Laplacian (4-neighbour, luma in 0..255 units) over the crop's
 * inner pixels (the crop must be at least 3x3). Higher is more detail. Thread-safety:
 * context-serialised. */
UPF_API upf_result upf_metric_detail(upf_context *ctx, const upf_image *img, const upf_rect *crop,
                                     double *out);

/* Shimmer: the mean absolute change of luma (0..255 units) from each frame to the next over
 * `count` >= 2 frames of one size, for a still camera. Thread-safety: context-serialised. */
UPF_API upf_result upf_metric_shimmer(upf_context *ctx, const upf_image *frames, int count,
                                      const upf_rect *crop, double *out);

/* ---------------------------------------------------------------------------------------
 * Models: the weights of the spatial engine's network (docs/MODELS.md)
 *
 * A model turns 16x16 windows of luma, `step` input pixels apart, into 12x12 blocks of
 * detail: its ratio is 12 / step. A set holds one to seven models of distinct steps (4..10:
 * ratios 3, 2.4, 2, 1.714, 1.5, 1.333, 1.2). Sets come from a model file (docs/MODELS.md
 * gives the format byte by byte; `upframe model import` makes one from raw fp16 matrices)
 * or from the library itself, which embeds the default seven when it was built with them.
 * ------------------------------------------------------------------------------------- */

/* Model flags (upf_model_info.flags). A model with no flags runs exactly the
 * NDSR design as docs/SPATIAL.md specifies it. */
#define UPF_MODEL_FLAG_WINDOW_MEAN 0x1u /* each window's mean luma is subtracted (x4) first */
#define UPF_MODEL_FLAG_CUBIC_BASE 0x2u  /* the detail is added to a Catmull-Rom sample of the
                                         * frame in linear light, not a bilinear one in sqrt
                                         * space (docs/MODELS.md) */
#define UPF_MODEL_FLAG_SQRT_LANCZOS_BASE 0x4u /* the detail is added to a Lanczos-3 sample of
                                               * the sqrt values (at most one base flag;
                                               * model file version 2, docs/MODELS.md) */
#define UPF_MODEL_FLAG_NO_SMAA 0x8u /* the engine skips SMAA's blending for this model (as
                                     * UPF_SPATIAL_NO_SMAA does; model file version 2) */
#define UPF_MODEL_FLAG_SRGB_LANCZOS_BASE 0x10u /* the detail is added to a Lanczos-3 sample of
                                                * the frame's sRGB-encoded values, taken to
                                                * sqrt space (at most one base flag; model
                                                * file version 2) */

/* A model's detail strength: the network's detail is multiplied by it before it is added
 * (1 as trained; 0 the base alone; model file version 2). */
#define UPF_MODEL_DETAIL_STRENGTH_MAX 4.0

typedef struct upf_models upf_models;

typedef struct upf_model_info {
    int step;               /* input pixels per 12 detail pixels, 4..10 */
    double ratio;           /* 12 / step */
    unsigned flags;         /* UPF_MODEL_FLAG_* */
    const char *provenance; /* UTF-8 text (data, seed, loss, code revision); valid while the
                             * set lives; "" when the file gave none */
    double detail_strength; /* 0 .. UPF_MODEL_DETAIL_STRENGTH_MAX; 1 for version-1 files */
} upf_model_info;

/* Parses a model file held in memory (`size` bytes at `data`; the set keeps no pointer into
 * it). Every field is checked (magic, version, counts, steps, flags, sizes, provenance text,
 * NaN/Inf weights, checksum, trailing bytes); UPF_ERROR_BAD_DATA names the byte offset, the
 * model and the field that is wrong and what was expected. Returns NULL on failure (see
 * upf_context_last_error). Thread-safety: context-serialised. */
UPF_API upf_models *upf_models_load(upf_context *ctx, const void *data, size_t size);

/* The set built into the library. Fails with UPF_ERROR_UNSUPPORTED when this build has none
 * (it was built without models/default.upfm). Thread-safety: context-serialised. */
UPF_API upf_models *upf_models_default(upf_context *ctx);

/* Frees *models and sets it to NULL. Accepts NULL and a pointer to NULL. A set that an engine
 * made with it still uses (upf_spatial, upf_temporal with the spatial fill, upf_vk_spatial)
 * is NOT freed: the call fails with UPF_ERROR_INVALID_ARGUMENT in the context's last error
 * and leaves *models as it was. Thread-safety: context-serialised. */
UPF_API void upf_models_destroy(upf_models **models);

/* The number of models in the set (1..7), 0 for NULL. Thread-safety: safe. */
UPF_API int upf_models_count(const upf_models *models);

/* Describes model `index` (0 .. count - 1, in file order). Thread-safety: context-serialised. */
UPF_API upf_result upf_models_info(const upf_models *models, int index, upf_model_info *info);


/* ---------------------------------------------------------------------------------------
 * The spatial engine (NDSR design, docs/SPATIAL.md): one aliased frame in, a larger one out.
 *
 * Passes, each on its own intermediate image (docs/ARCHITECTURE.md):
 *   convert  the input, any colour format, to linear float RGBA in [0, 1]
 *   edges    SMAA luma edge detection on the sqrt-encoded colour, packed into bit masks
 *   weights  SMAA 1x blending weights (orthogonal + diagonal patterns, our area table)
 *   blend    SMAA neighbourhood blending in linear light, then sqrt-encoded 10:10:10:2
 *   detail   the network: 16x16 luma windows -> 12x12 blocks of detail
 *   compose  bilinear sample of the sqrt frame + detail, squared, then the sharpen
 * The 10:10:10:2 frame holds colour in [0, 1] and 2 bits of alpha, so alpha is carried
 * beside it at full precision (the input's, filtered as the colour's base), and a frame with
 * values above 1 is tone-mapped around the passes (docs/SPATIAL.md).
 * ------------------------------------------------------------------------------------- */

typedef enum upf_spatial_pass {
    UPF_SPATIAL_PASS_CONVERT = 0,
    UPF_SPATIAL_PASS_EDGES = 1,
    UPF_SPATIAL_PASS_WEIGHTS = 2,
    UPF_SPATIAL_PASS_BLEND = 3,
    UPF_SPATIAL_PASS_DETAIL = 4,
    UPF_SPATIAL_PASS_COMPOSE = 5,
    UPF_SPATIAL_PASS_COUNT = 6
} upf_spatial_pass;

/* The pass's name ("convert", "edges", ...), "unknown" otherwise. Thread-safety: safe. */
UPF_API const char *upf_spatial_pass_name(upf_spatial_pass pass);

/* Flags of upf_spatial_params, for comparisons and diagnosis (the engine as designed uses
 * none). */
#define UPF_SPATIAL_NO_SMAA 0x1u    /* skip edges, weights and blend: sqrt-encode the input */
#define UPF_SPATIAL_NO_NETWORK 0x2u /* skip the network: detail 0 (the model's base alone) */

/* Sharpness: 0 is off, 1 the shipped NDSR look, at most UPF_SPATIAL_SHARPNESS_MAX. */
#define UPF_SPATIAL_SHARPNESS_MAX 4.0f

typedef struct upf_spatial_params {
    int src_width, src_height;  /* 1 .. UPF_MAX_IMAGE_DIMENSION */
    int dst_width, dst_height;  /* dst / src from 1 to 4 on each axis */
    float sharpness;            /* 0 (the default) = off, 1 = crisper, .. 4 */
    const upf_models *models;   /* NULL: the built-in set; kept, not copied: it must outlive
                                 * the engine */
    unsigned flags;             /* UPF_SPATIAL_NO_* */
} upf_spatial_params;

#ifndef __cplusplus /* compound literals are C only */
#define upf_spatial_params(...) (&(const upf_spatial_params){ __VA_ARGS__ })
#endif

typedef struct upf_spatial upf_spatial;

/* Creates the engine for one input and output size: picks the model (the smallest ratio at
 * or above the one asked, 1.2 at least; above 3 the ratio-3 model's detail is resampled),
 * builds the area table and allocates every intermediate image and each worker's scratch,
 * so upf_spatial_run never allocates. Returns NULL on failure (upf_context_last_error).
 * Thread-safety: context-serialised. */
UPF_API upf_spatial *upf_spatial_create(upf_context *ctx, const upf_spatial_params *params);

/* The bytes upf_spatial_create would take for `params` on this context's threads (every
 * intermediate image and scratch buffer, and the built-in models when params->models is
 * NULL), without taking them: to say what a size costs before committing to it. The pixel
 * limit is not applied here. Thread-safety: context-serialised. */
UPF_API upf_result upf_spatial_memory(upf_context *ctx, const upf_spatial_params *params,
                                      size_t *bytes);

/* Thread-safety: context-serialised. Accepts NULL and a pointer to NULL. */
UPF_API void upf_spatial_destroy(upf_spatial **spatial);

/* Upscales `src` (the size given at creation, any colour format, linear light unless an sRGB
 * format) into `dst` (the size given at creation, any colour format). Float input must be
 * finite (UPF_ERROR_BAD_DATA names the first pixel that is not). A frame with values above 1
 * (HDR) is tone-mapped c / (1 + max(c)) per pixel before the passes and restored after them,
 * so its highlights come back (with about 1% of their value as precision at 100x white, the
 * frame's 10 bits spread over the tone curve); a frame within [0, 1] is not touched by this,
 * bit for bit. Negative values are not light: they are clamped to 0, with a warning in the
 * log saying how many and where. Alpha keeps its full precision. Thread-safety:
 * context-serialised; a second call on the same engine while one runs on another thread
 * fails with UPF_ERROR_INVALID_ARGUMENT. */
UPF_API upf_result upf_spatial_run(upf_spatial *spatial, const upf_image *src,
                                   const upf_image *dst);

/* The step (4..10) of the model the engine uses. Thread-safety: safe. */
UPF_API int upf_spatial_model_step(const upf_spatial *spatial);

/* Milliseconds each pass took in the last successful run (wall clock), indexed by
 * upf_spatial_pass; all 0 before the first run. Thread-safety: context-serialised. */
UPF_API upf_result upf_spatial_timings(const upf_spatial *spatial,
                                       double ms[UPF_SPATIAL_PASS_COUNT]);

/* Pictures of the last run's intermediate images, to look at (`upframe upscale
 * --debug-passes`): EDGES (red: left edge, green: top edge), WEIGHTS (red: blending across
 * the top edge, green: across the left edge), BLEND (the blended frame) at the input size,
 * DETAIL (the network's detail map, grey 0.5 = none, 0..1 = -0.25..+0.25) at its own size.
 * upf_spatial_debug_size gives the size; `out` must be RGBA8_SRGB of that size. A pass the
 * configuration does not run (EDGES and WEIGHTS without SMAA, as the built-in models run)
 * has no picture: both calls fail with UPF_ERROR_UNSUPPORTED saying so.
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_spatial_debug_size(const upf_spatial *spatial, upf_spatial_pass pass,
                                          int *width, int *height);
UPF_API upf_result upf_spatial_debug_image(upf_spatial *spatial, upf_spatial_pass pass,
                                           const upf_image *out);

/* ---------------------------------------------------------------------------------------
 * Temporal upscaling helpers: jitter, modes, mip bias, the camera (docs/TEMPORAL.md)
 *
 * Pure functions a host calls to set up its frames for the temporal engine below (or for any
 * temporal upscaler). `ctx` may be NULL in each: the result code is the same, only the message
 * is not kept. Thread-safety: safe (with a context: context-serialised).
 *
 * Jitter convention (ours, the scene renderer's, docs/SCENES.md): a frame rendered with jitter
 * (jx, jy) samples pixel (x, y) at the unjittered screen position (x + 0.5 + jx, y + 0.5 + jy),
 * render pixels, y down; its projection is translated by (-2 jx / W, +2 jy / H) in NDC. FSR 2/3's
 * `jitterOffset` and DLSS's `InJitterOffset` are the offset of the projected image in render
 * pixels with the motion vectors' axes: (-jx, -jy) for the same frame.
 * ------------------------------------------------------------------------------------- */

/* Jitter for frame `index` (>= 0) of a sequence of `phases` (1 .. 1048576): Halton(2,3) at
 * i + 1 with i = index mod phases, minus 0.5, in render pixels: (jx, jy) in [-0.5, 0.5), never
 * (0, 0). */
UPF_API upf_result upf_jitter_offset(upf_context *ctx, int64_t index, int phases, double *jx,
                                     double *jy);

/* The jitter sequence's length for a render width and the output width it is upscaled to:
 * ceil(8 (output / render)^2), exact in integers (18 at 1.5x, 24 at 1.7x, 32 at 2x, 72 at 3x),
 * and 8 when output <= render. Widths 1..UPF_MAX_IMAGE_DIMENSION. */
UPF_API upf_result upf_jitter_phase_count(upf_context *ctx, int render_width, int output_width,
                                          int *phases);

/* Quality modes: the output / render ratio per axis. */
typedef enum upf_temporal_mode {
    UPF_TEMPORAL_MODE_NATIVE_AA = 1,         /* 1x: anti-aliasing only */
    UPF_TEMPORAL_MODE_QUALITY = 2,           /* 1.5x */
    UPF_TEMPORAL_MODE_BALANCED = 3,          /* 1.7x */
    UPF_TEMPORAL_MODE_PERFORMANCE = 4,       /* 2x */
    UPF_TEMPORAL_MODE_ULTRA_PERFORMANCE = 5  /* 3x */
} upf_temporal_mode;

/* "native", "quality", "balanced", "performance", "ultra-performance"; "unknown" otherwise. */
UPF_API const char *upf_temporal_mode_name(upf_temporal_mode mode);

/* The mode's ratio (1, 1.5, 1.7, 2, 3). */
UPF_API upf_result upf_temporal_mode_ratio(upf_context *ctx, upf_temporal_mode mode,
                                           double *ratio);

/* The render size for an output size and a mode: each side output / ratio rounded down, at
 * least 1 (3840x2160 Quality: 2560x1440; Balanced: 2258x1270). */
UPF_API upf_result upf_temporal_render_size(upf_context *ctx, upf_temporal_mode mode,
                                            int output_width, int output_height,
                                            int *render_width, int *render_height);

/* The texture level-of-detail bias for a frame rendered at render_width for output_width:
 * native_bias + log2(render_width / output_width) + offset; UPF_MIP_BIAS_OFFSET (-1) is the
 * rule's offset (so -1.58 at 1.5x, -1.77 at 1.7x, -2 at 2x, -2.58 at 3x with native 0). Native
 * bias and offset finite, in -16..16; widths 1..UPF_MAX_IMAGE_DIMENSION. */
#define UPF_MIP_BIAS_OFFSET (-1.0)
UPF_API upf_result upf_mip_bias(upf_context *ctx, double native_bias, int render_width,
                                int output_width, double offset, double *bias);

/* The clip-space depth range of a projection matrix: Vulkan and Direct3D map the near and far
 * planes to NDC depth 0..1 (or 1..0 reversed), OpenGL to -1..1 (window depth is then
 * (ndc + 1) / 2, what its depth buffer holds). */
typedef enum upf_clip_depth {
    UPF_CLIP_DEPTH_ZERO_TO_ONE = 0,
    UPF_CLIP_DEPTH_MINUS_ONE_TO_ONE = 1
} upf_clip_depth;

/* A perspective camera as the temporal engine needs it. A host fills the first five fields
 * (or has upf_camera_from_projection fill all of them). Depth d in [0, 1] is what the depth
 * buffer holds; z > 0 is the view-space distance along the view direction:
 *   forward, finite   d = far (z - near) / (z (far - near))    0 at near, 1 at far
 *   reversed, finite  d = near (far - z) / (z (far - near))    1 at near, 0 at far
 *   reversed, infinite d = near / z;   forward, infinite d = 1 - near / z. */
typedef struct upf_camera {
    double near_plane;            /* > 0, view units (metres) */
    double far_plane;             /* > near_plane; ignored when far_infinite */
    double fov_y;                 /* vertical field of view, radians, in (0, pi) */
    int depth_reversed;           /* 1: depth is 1 at near, 0 at far */
    int far_infinite;             /* 1: an infinite far plane */
    /* Filled by upf_camera_from_projection; ignored by the engine: */
    double aspect;                /* width / height of the view */
    double center_x, center_y;    /* the NDC point the view axis projects to: 0, 0 for a centred
                                   * frustum; a jittered projection's translation (our jitter
                                   * is jx = -center_x W / 2, jy = center_y H / 2) */
    double depth_to_view_scale;   /* z = 1 / (depth_to_view_scale * d + depth_to_view_offset) */
    double depth_to_view_offset;
} upf_camera;

/* Reads the camera from a perspective projection matrix (column vectors, clip = P * view,
 * stored row-major: m[4 * row + col]; right- or left-handed, jittered or not, y up or down):
 * near and far from the depth row, the field of view from m[5], the depth direction, an
 * infinite far plane (a far plane more than 10^7 times the near one counts as infinite: float
 * matrices cannot tell them apart), and the device-to-view-depth factors. A matrix that is not
 * a perspective projection (w not proportional to the view depth, a singular depth row, NaN)
 * fails with UPF_ERROR_INVALID_ARGUMENT saying which entry. */
UPF_API upf_result upf_camera_from_projection(upf_context *ctx, const double projection[16],
                                              upf_clip_depth clip_depth, upf_camera *camera);

/* Camera motion vectors from depth, for hosts that have none: each pixel's depth sample is
 * unprojected with this frame's view-projection and projected with the previous frame's, and
 * its motion is (previous - current) screen position in render pixels (x right, y down), as
 * the engine takes them. Exact for static geometry; moving objects get the camera's motion
 * only. Both matrices unjittered (clip = projection * view), row-major as above, the jitter
 * the frame's own. A point behind the previous camera gets a vector far off the screen. */
typedef struct upf_camera_motion_params {
    const double *view_projection;      /* 16: this frame's */
    const double *prev_view_projection; /* 16: the previous frame's */
    double jitter_x, jitter_y;          /* this frame's jitter, render pixels, |j| <= 1 */
    upf_clip_depth clip_depth;          /* of both matrices */
    int ndc_y_down;                     /* 1: the matrices' NDC y points down (Vulkan-style
                                         * projections with a negative m[5]); 0: up */
} upf_camera_motion_params;

#ifndef __cplusplus /* compound literals are C only */
#define upf_camera_motion_params(...) (&(const upf_camera_motion_params){ __VA_ARGS__ })
#endif

/* `depth` R32F (values in [0, 1], finite) and `motion` RG32F of the same size, over the
 * context's threads; the result does not depend on their number. Thread-safety:
 * context-serialised. */
UPF_API upf_result upf_camera_motion(upf_context *ctx, const upf_camera_motion_params *params,
                                     const upf_image *depth, const upf_image *motion);

/* ---------------------------------------------------------------------------------------
 * The temporal engine: jittered frames, their depth and motion, into a larger anti-aliased
 * frame (docs/TEMPORAL.md).
 *
 * Passes (each on its own intermediate surfaces, docs/TEMPORAL.md):
 *   camera_motion  motion from depth and the two frames' matrices (only when none is given)
 *   reconstruct    colour to the working space; the motion of the nearest depth in 3x3;
 *                  this frame's depth scattered to where it was last frame (nearest wins)
 *   disocclusion   surfaces that were hidden last frame, from depth separation; reactive mask
 *   locks          thin features (one-pixel ridges) to protect from rectification
 *   spatial_fill   the spatial engine's upscale, for pixels without history (optional)
 *   accumulate     Lanczos-2 in output pixels over this frame's samples and the history,
 *                  YCoCg rectification, confidence, luma oscillation, reactive mask
 *   sharpen        a contrast-adaptive sharpen, back to the host's colour encoding
 * ------------------------------------------------------------------------------------- */

typedef enum upf_temporal_pass {
    UPF_TEMPORAL_PASS_CAMERA_MOTION = 0,
    UPF_TEMPORAL_PASS_RECONSTRUCT = 1,
    UPF_TEMPORAL_PASS_DISOCCLUSION = 2,
    UPF_TEMPORAL_PASS_LOCKS = 3,
    UPF_TEMPORAL_PASS_SPATIAL_FILL = 4,
    UPF_TEMPORAL_PASS_ACCUMULATE = 5,
    UPF_TEMPORAL_PASS_SHARPEN = 6,
    UPF_TEMPORAL_PASS_COUNT = 7
} upf_temporal_pass;

/* The pass's name ("reconstruct", ...), "unknown" otherwise. Thread-safety: safe. */
UPF_API const char *upf_temporal_pass_name(upf_temporal_pass pass);

/* Flags of upf_temporal_params. */
#define UPF_TEMPORAL_COLOR_SRGB 0x1u    /* the colour's values are sRGB-encoded although its
                                         * format is a linear one (float, unorm); the output is
                                         * encoded the same way */
#define UPF_TEMPORAL_COLOR_SQRT 0x2u    /* the colour's values are square roots of linear light
                                         * (the spatial engine's encoding); likewise the output */
#define UPF_TEMPORAL_MOTION_UV 0x4u     /* motion vectors in UV units (fractions of the render
                                         * size), not render pixels */
#define UPF_TEMPORAL_SPATIAL_FILL 0x8u  /* where there is no history (disocclusion, a reset, the
                                         * first frame) take the spatial engine's upscale of this
                                         * frame instead of a plain Lanczos-2 upsample */

/* Sharpness: 0 is off, at most UPF_TEMPORAL_SHARPNESS_MAX. */
#define UPF_TEMPORAL_SHARPNESS_MAX 1.0f

typedef struct upf_temporal_params {
    int render_width, render_height; /* 1 .. UPF_MAX_IMAGE_DIMENSION */
    int output_width, output_height; /* output / render from 1 to 4 on each axis */
    float sharpness;                 /* 0 (the default) = off .. 1 */
    unsigned flags;                  /* UPF_TEMPORAL_* */
    const upf_models *models;        /* UPF_TEMPORAL_SPATIAL_FILL: the spatial engine's models
                                      * (NULL: the built-in set); kept: must outlive the engine */
} upf_temporal_params;

#ifndef __cplusplus /* compound literals are C only */
#define upf_temporal_params(...) (&(const upf_temporal_params){ __VA_ARGS__ })
#endif

/* What one frame hands the engine. Zero fields mean their defaults. */
typedef struct upf_temporal_frame {
    const upf_image *color;     /* render size, any colour format: linear light (or sRGB / sqrt
                                 * encoded, as the flags say), not clamped: HDR is welcome */
    const upf_image *depth;     /* R32F, render size, in the camera's convention; required */
    const upf_image *motion;    /* RG32F, render size: (previous - current) screen position of
                                 * the surface the pixel's depth sample hit, without jitter,
                                 * x right, y down, render pixels (or UV with
                                 * UPF_TEMPORAL_MOTION_UV). NULL: camera motion from the depth
                                 * and view_projection / prev_view_projection (required then) */
    const upf_image *reactive;  /* optional R32F, render size, 0..1: how much this frame's colour
                                 * should replace the history (transparent effects, particles) */
    double jitter_x, jitter_y;  /* the jitter this frame was rendered with (our convention,
                                 * above), render pixels, |j| <= 1 */
    double motion_scale_x;      /* multiplies the stored vectors; 0: 1 */
    double motion_scale_y;
    upf_camera camera;          /* near, far, field of view, depth direction, infinite far */
    const double *projection;   /* optional 16: take the camera from this projection matrix
                                 * instead (upf_camera_from_projection) */
    upf_clip_depth clip_depth;  /* of `projection` and the view-projections */
    const double *view_projection;      /* 16, this frame's unjittered, for motion == NULL */
    const double *prev_view_projection; /* 16, the previous frame's */
    int ndc_y_down;             /* of the view-projections (upf_camera_motion_params) */
    double frame_time_ms;       /* time since the previous frame, milliseconds, > 0 (checked;
                                 * a value below 1 looks like seconds and draws a warning) */
    int reset;                  /* 1: forget the history (a camera cut, a new scene) */
    float exposure;             /* 0: 1. The factor the host's tonemapper applies: the engine
                                 * accumulates colour x exposure in its tonemapped space */
    float pre_exposure;         /* 0: 1. The factor the colour was already multiplied by: the
                                 * engine divides it out and multiplies the output by it */
} upf_temporal_frame;

typedef struct upf_temporal upf_temporal;

/* Creates the engine for one render and output size: checks the sizes and flags, fills the
 * Lanczos table and each pass's fixed constants, and allocates every surface (the history
 * included) and each worker's scratch, so upf_temporal_run never allocates. Returns NULL on
 * failure (upf_context_last_error). Thread-safety: context-serialised. */
UPF_API upf_temporal *upf_temporal_create(upf_context *ctx, const upf_temporal_params *params);

/* Thread-safety: context-serialised. Accepts NULL and a pointer to NULL. */
UPF_API void upf_temporal_destroy(upf_temporal **temporal);

/* Runs one frame: `frame` as above, `output` at the output size in any colour format. The
 * first frame after creation is a reset. Colour and depth must be finite (UPF_ERROR_BAD_DATA
 * names the first pixel that is not); motion vectors that are NaN or infinite mark their pixel
 * as without history (counted in a warning), vectors longer than 10^6 pixels are clamped. On
 * failure the history is left as it was. The result does not depend on the number of threads.
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_temporal_run(upf_temporal *temporal, const upf_temporal_frame *frame,
                                    const upf_image *output);

/* Milliseconds each pass took in the last successful run (0 for a pass that did not run).
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_temporal_timings(const upf_temporal *temporal,
                                        double ms[UPF_TEMPORAL_PASS_COUNT]);

/* ---------------------------------------------------------------------------------------
 * Frame generation: the frame at a phase t in (0, 1) between frames N-1 and N, from the
 * game's motion vectors and depth or from optical flow, with the HUD kept sharp and a plain
 * blend as the fallback (docs/FRAMEGEN.md).
 *
 * Passes (each on its own intermediate surfaces, docs/FRAMEGEN.md):
 *   prepare   both frames to linear light; luma pyramids (flow); luma histograms (cuts)
 *   scene     flow: whether the histograms say the frames are of different scenes (the
 *             resolve then blends)
 *   vectors   the game's vectors to output pixels, depth to a splat priority, N splatted
 *             to t = 0 (what N-1 saw of N's surfaces)
 *   flow      without vectors: block matching on the luma pyramids both ways, vector
 *             median, Lucas-Kanade refinement, per-pixel choice, forward/backward check
 *   camera    vectors: the camera's homography from the frames' matrices, or fitted to the
 *             vectors (a turn's curved path)
 *   splat     N's pixels moved forward to t, the nearer surface winning (32-bit atomics)
 *   fill      the motion at t, holes filled from a motion pyramid (the farther surface)
 *   resolve   N-1 fetched at p + t m and N at p - (1 - t) m, weighted by t and by whether
 *             each side sees the surface; or the fallback blend
 *   inpaint   what neither frame sees, from a colour pyramid
 *   compose   the HUD layer over it (or the still-pixel rule), into the output
 * The first five run once per pair of frames, the others once per phase.
 * ------------------------------------------------------------------------------------- */

typedef enum upf_interpolate_pass {
    UPF_INTERPOLATE_PASS_PREPARE = 0,
    UPF_INTERPOLATE_PASS_SCENE = 1,
    UPF_INTERPOLATE_PASS_VECTORS = 2,
    UPF_INTERPOLATE_PASS_FLOW = 3,
    UPF_INTERPOLATE_PASS_CAMERA = 4,
    UPF_INTERPOLATE_PASS_SPLAT = 5,
    UPF_INTERPOLATE_PASS_FILL = 6,
    UPF_INTERPOLATE_PASS_RESOLVE = 7,
    UPF_INTERPOLATE_PASS_INPAINT = 8,
    UPF_INTERPOLATE_PASS_COMPOSE = 9,
    UPF_INTERPOLATE_PASS_COUNT = 10
} upf_interpolate_pass;

/* The pass's name ("splat", ...), "unknown" otherwise. Thread-safety: safe. */
UPF_API const char *upf_interpolate_pass_name(upf_interpolate_pass pass);

/* Where the motion comes from. */
typedef enum upf_interpolate_motion {
    UPF_INTERPOLATE_MOTION_AUTO = 0,    /* the game's vectors when motion and depth are given,
                                         * optical flow when neither is (one without the
                                         * other: the fallback blend) */
    UPF_INTERPOLATE_MOTION_VECTORS = 1, /* the game's vectors; without them: the blend */
    UPF_INTERPOLATE_MOTION_FLOW = 2,    /* optical flow always (vectors ignored) */
    UPF_INTERPOLATE_MOTION_BLEND = 3    /* the plain blend always */
} upf_interpolate_motion;

/* What a run made its frames with (upf_interpolate_last_method). */
typedef enum upf_interpolate_method {
    UPF_INTERPOLATE_USED_NONE = 0,      /* nothing ran yet */
    UPF_INTERPOLATE_USED_VECTORS = 1,
    UPF_INTERPOLATE_USED_FLOW = 2,
    UPF_INTERPOLATE_USED_BLEND = 3
} upf_interpolate_method;

/* Why a run fell back to the blend. */
typedef enum upf_interpolate_fallback {
    UPF_INTERPOLATE_FALLBACK_NONE = 0,
    UPF_INTERPOLATE_FALLBACK_ASKED = 1,          /* UPF_INTERPOLATE_MOTION_BLEND */
    UPF_INTERPOLATE_FALLBACK_RESET = 2,          /* the host said reset */
    UPF_INTERPOLATE_FALLBACK_NOT_CONSECUTIVE = 3, /* frame ids not N-1, N */
    UPF_INTERPOLATE_FALLBACK_MISSING_INPUT = 4,  /* motion without depth, or the reverse */
    UPF_INTERPOLATE_FALLBACK_SCENE_CHANGE = 5    /* a cut between the frames (optical flow) */
} upf_interpolate_fallback;

/* "none", "asked", "reset", "not consecutive", "missing input", "scene change". */
UPF_API const char *upf_interpolate_fallback_name(upf_interpolate_fallback fallback);

/* Flags of upf_interpolate_params. */
#define UPF_INTERPOLATE_MOTION_UV 0x1u      /* vectors in UV units (fractions of the motion
                                             * size), not pixels of the motion size */
#define UPF_INTERPOLATE_DEPTH_REVERSED 0x2u /* depth is larger nearer (1 at the near plane) */
#define UPF_INTERPOLATE_NO_STILL_RULE 0x4u  /* without a HUD layer, do not keep pixels that are
                                             * equal in both frames where they are */
/* The optical flow's resolution. By default the flow of frames larger than 1280x720 is made
 * on the half-size frame (its luma pyramid from level 1; the vectors doubled, each serving
 * 2x2 pixels), a quarter of the work of its finest level for the same pictures within about
 * 0.1 dB (docs/FRAMEGEN.md, "flow"), and of smaller frames on the frame itself. */
#define UPF_INTERPOLATE_FLOW_FULL 0x8u      /* the flow on the frame itself at every size */
#define UPF_INTERPOLATE_FLOW_HALF 0x10u     /* the flow on the half-size frame at every size
                                             * (frames of at least 2 levels of 8 pixels) */

/* The largest factor (frames made per pair + 1). */
#define UPF_INTERPOLATE_FACTOR_MAX 8

typedef struct upf_interpolate_params {
    int width, height;               /* the frames' size, 1 .. UPF_MAX_IMAGE_DIMENSION */
    int motion_width, motion_height; /* the vectors' and depth's size (a render size up to the
                                      * frames' size); 0: the frames' size */
    upf_interpolate_motion motion;   /* 0: UPF_INTERPOLATE_MOTION_AUTO */
    double motion_scale_x;           /* multiplies the stored vectors; 0: 1 */
    double motion_scale_y;
    unsigned flags;                  /* UPF_INTERPOLATE_* */
} upf_interpolate_params;

#ifndef __cplusplus /* compound literals are C only */
#define upf_interpolate_params(...) (&(const upf_interpolate_params){ __VA_ARGS__ })
#endif

/* One pair of frames. Zero fields mean their defaults. */
typedef struct upf_interpolate_frames {
    const upf_image *prev_color; /* frame N-1, any colour format, the frames' size; required */
    const upf_image *color;      /* frame N; required. With a HUD layer: both HUD-less */
    const upf_image *motion;     /* optional RG32F, motion size: frame N's vectors, (N-1 -
                                  * N) screen position of each pixel's surface, x right, y
                                  * down, pixels of the motion size (or UV); finite */
    const upf_image *depth;      /* optional R32F, motion size: frame N's depth, finite, >= 0 */
    const upf_image *prev_hud;   /* optional HUD layers (any colour format, straight alpha):   */
    const upf_image *hud;        /* composited unwarped over the made frame, N-1's below phase
                                  * 0.5, N's from 0.5 (either alone serves every phase) */
    int64_t prev_id, id;         /* the frames' ids: a made frame needs id == prev_id + 1 */
    int reset;                   /* 1: a cut or new scene between them: the blend */
    /* Optional, with motion vectors: the frames' cameras, so the engine takes a turn's curved
     * path from them instead of fitting it to the vectors. Each 16 doubles, projection *
     * view, unjittered (clip = P * V * world), column vectors stored row-major (m[4 * row +
     * col]), as upf_camera_motion takes them; both or neither (NULL: none). Only their
     * rotation and projection are used (the homography of the points at infinity). */
    const double *view_projection;      /* frame N's */
    const double *prev_view_projection; /* frame N-1's */
    int ndc_y_down;              /* 1: the matrices' NDC y points down (Vulkan-style, a
                                  * negative m[5]); 0: up (NDC y = 1 at the top row) */
} upf_interpolate_frames;

typedef struct upf_interpolate upf_interpolate;

/* Creates the engine for one size: checks the params, gives every surface its size and
 * allocates them all once, so a run never allocates. NULL on failure
 * (upf_context_last_error). Thread-safety: context-serialised. */
UPF_API upf_interpolate *upf_interpolate_create(upf_context *ctx,
                                                const upf_interpolate_params *params);

/* Thread-safety: context-serialised. Accepts NULL and a pointer to NULL. */
UPF_API void upf_interpolate_destroy(upf_interpolate **interpolate);

/* Makes the frame at phase t (0 < t < 1; 0.5 is the midpoint) into `output` (the frames'
 * size, any colour format). Checks every image (sizes, formats, NaN or infinite values:
 * UPF_ERROR_BAD_DATA naming the first). Falls back to the blend (1 - t) N-1 + t N, with a
 * log message saying why, on a reset, non-consecutive ids, a missing input or a cut. The
 * result does not depend on the number of threads. Thread-safety: context-serialised. */
UPF_API upf_result upf_interpolate_run(upf_interpolate *interpolate,
                                       const upf_interpolate_frames *frames, double t,
                                       const upf_image *output);

/* Makes the factor - 1 frames at phases k / factor, k = 1 .. factor - 1 (factor 2 ..
 * UPF_INTERPOLATE_FACTOR_MAX), into outputs[0 .. factor - 2], estimating the motion once.
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_interpolate_run_factor(upf_interpolate *interpolate,
                                              const upf_interpolate_frames *frames, int factor,
                                              const upf_image *const *outputs);

/* What the last successful run used, and why it fell back (NULL pointers are skipped).
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_interpolate_last_method(const upf_interpolate *interpolate,
                                               upf_interpolate_method *method,
                                               upf_interpolate_fallback *fallback);

/* Milliseconds each pass took in the last successful run, summed over its phases (0 for a
 * pass that did not run). Thread-safety: context-serialised. */
UPF_API upf_result upf_interpolate_timings(const upf_interpolate *interpolate,
                                           double ms[UPF_INTERPOLATE_PASS_COUNT]);

#ifdef __cplusplus
}
#endif

#endif /* UPFRAME_H */
