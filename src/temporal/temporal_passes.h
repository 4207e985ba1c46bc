/* temporal_passes.h: the temporal engine as a pass list (core/pass.h): its surfaces, its seven
 * passes, each pass's constants, and the colour maths they share. The tables are in
 * temporal.c; each pass's CPU function is in the file its `file` field names. docs/TEMPORAL.md
 * explains every pass.
 *
 *   pass           file                  reads                              writes
 *   camera_motion  camera_motion.c       depth                              camera motion
 *   reconstruct    reconstruct_dilate.c  colour, depth, motion | camera     colour, fill source,
 *                                        motion                             dilated motion and
 *                                                                           depth, previous depth
 *   disocclusion   disocclusion.c        dilated motion and depth,          reactivity
 *                                        previous depth, reactive
 *   locks          locks.c               colour                             locks
 *   spatial_fill   spatial_fill.c        fill source                        fill
 *   accumulate     accumulate.c          colour, dilated motion,            history next,
 *                                        reactivity, locks, fill, lanczos,  state next
 *                                        history, state
 *   sharpen        sharpen.c             history next                       output
 *
 * camera_motion runs only on frames without motion vectors, spatial_fill only with
 * UPF_TEMPORAL_SPATIAL_FILL. The two history pairs (history/history_next, state/state_next)
 * swap after every run (core/pass.h, UPF__SURFACE_HISTORY): what accumulate writes is next
 * frame's history.
 *
 * Working space: colour is divided by the pre-exposure, multiplied by the exposure and passed
 * through the reversible tonemap T(c) = c / (1 + max(r, g, b)) (Lottes 2016, "Optimized
 * reversible tonemapper for resolve"), so HDR highlights cannot dominate a weighted sum, then
 * turned into YCoCg (Malvar and Sullivan 2003, "YCoCg-R: a color space with RGB reversibility
 * and low dynamic range"), where the rectification box is taken. Everything up to the sharpen
 * works there; the sharpen turns it back.
 *
 * Internal header: not installed. */
#ifndef UPF_TEMPORAL_PASSES_H
#define UPF_TEMPORAL_PASSES_H

#include <math.h>

#include "core/pass.h"

/* The surfaces, by index (the order of the table in temporal.c). Each HISTORY surface is
 * followed by its HISTORY_NEXT partner (core/pass.h). */
enum upf__temporal_surface {
    UPF__TP_COLOR_IN = 0,     /* host: this frame's colour, any colour format, render size */
    UPF__TP_DEPTH,            /* host: R32F depth, render size */
    UPF__TP_MOTION,           /* host: RG32F motion vectors, render size (optional) */
    UPF__TP_REACTIVE,         /* host: R32F reactive mask, render size (optional) */
    UPF__TP_CAMERA_MOTION,    /* rg32f, render: motion from depth (frames without vectors) */
    UPF__TP_COLOR,            /* rgba32f, render: Y, Co, Cg of the tonemapped colour; A: its
                               * Rec. 709 luma (for the locks) */
    UPF__TP_FILL_SOURCE,      /* rgba32f, render: exposed linear colour clamped to [0, 1], the
                               * spatial engine's input (spatial fill only) */
    UPF__TP_DILATED_MOTION,   /* rg32f, render: motion of the nearest depth in 3x3, render px */
    UPF__TP_DILATED_DEPTH,    /* r32f, render: that depth as view distance z */
    UPF__TP_PREV_DEPTH,       /* r32ui, render: bits of the nearest z scattered to last frame's
                               * position (UPF__NO_DEPTH where nothing landed) */
    UPF__TP_REACTIVITY,       /* rg32f, render: R disocclusion 0..1, G reactive (3x3 max) */
    UPF__TP_LOCKS,            /* r32f, render: 1 on a thin feature, else 0 */
    UPF__TP_LANCZOS,          /* r32f, UPF__LANCZOS_SIZE: Lanczos-2 of x^2 (a table) */
    UPF__TP_FILL,             /* rgba32f, output: the spatial engine's upscale, linear */
    UPF__TP_HISTORY,          /* rgba32f, output: last frame's result (Y, Co, Cg) and its
                               * accumulated weight */
    UPF__TP_HISTORY_NEXT,     /* rgba32f, output: this frame's */
    UPF__TP_STATE,            /* r32ui, output: last frame's lock and luma record (below) */
    UPF__TP_STATE_NEXT,       /* r32ui, output: this frame's */
    UPF__TP_DISPLAY,          /* r32ui, output: last frame's shown colour minus its history
                               * (upf__display_pack) */
    UPF__TP_DISPLAY_NEXT,     /* r32ui, output: this frame's */
    UPF__TP_OUTPUT,           /* host: the output, any colour format, output size */
    UPF__TP_COUNT
};

/* The passes, by index: the same numbers as the public upf_temporal_pass. */
enum upf__temporal_pass_index {
    UPF__TP_CAMERA_MOTION_PASS = UPF_TEMPORAL_PASS_CAMERA_MOTION,
    UPF__TP_RECONSTRUCT = UPF_TEMPORAL_PASS_RECONSTRUCT,
    UPF__TP_DISOCCLUSION = UPF_TEMPORAL_PASS_DISOCCLUSION,
    UPF__TP_LOCKS_PASS = UPF_TEMPORAL_PASS_LOCKS,
    UPF__TP_SPATIAL_FILL = UPF_TEMPORAL_PASS_SPATIAL_FILL,
    UPF__TP_ACCUMULATE = UPF_TEMPORAL_PASS_ACCUMULATE,
    UPF__TP_SHARPEN = UPF_TEMPORAL_PASS_SHARPEN,
    UPF__TP_PASS_COUNT = UPF_TEMPORAL_PASS_COUNT
};

/* The previous-depth surface's "nothing landed here": larger than the bits of any float z. */
#define UPF__NO_DEPTH 0xffffffffu

/* View distances are held finite: the sky and a point at infinity are UPF__Z_FAR. */
#define UPF__Z_FAR 1e30f

/* Motion vectors longer than this (render pixels) are clamped to it; invalid ones (NaN, Inf)
 * become UPF__MV_INVALID, which lands off any screen: the pixel has no history. */
#define UPF__MV_MAX 1e6f
#define UPF__MV_INVALID 1e7f

/* The previous-depth scatter writes (and the disocclusion pass reads) the bilinear taps whose
 * weight is above this; the two must agree so each pixel finds its own writes. */
#define UPF__SCATTER_MIN 0.02f

/* The dilation takes a neighbour's motion only where its surface is nearer than the pixel's
 * own by more than this share of the pixel's view distance (reconstruct_dilate.c). 0.05
 * measured +0.19 dB on the courtyard's tuning orbit, 0.02 +0.17, 0.2 +0.15
 * (docs/TEMPORAL.md). */
#define UPF__DILATE_SEPARATION 0.05f

/* The Lanczos table: L2(x) at x^2 = 4 i / (UPF__LANCZOS_SIZE - 2), i = 0 .. SIZE - 2, and a
 * zero past the end, read with linear interpolation (upf__lanczos2). */
#define UPF__LANCZOS_SIZE 1026

/* The shown colour (accumulate.c, step 8) is the history plus an offset of at most
 * upf__display_band per channel (YCoCg), kept as three signed 10-bit counts of
 * UPF__DISPLAY_UNIT in one uint (bits 0-9 Y, 10-19 Co, 20-29 Cg): +-0.0078, above the widest
 * band (0.0040 at 1.25 codes), in steps of 0.006 codes. */
#define UPF__DISPLAY_UNIT (1.0f / 65536.0f)

/* The shown colour follows the history only where the two part by more than this many codes
 * of 8-bit sRGB (accumulate.c, DISPLAY_BAND_CODES). */
#define UPF__DISPLAY_BAND_CODES 1.25f

/* Colour encodings of the host's colour (the flags). */
enum { UPF__ENCODING_LINEAR = 0, UPF__ENCODING_SRGB = 1, UPF__ENCODING_SQRT = 2 };

/* ---- constants, one struct per pass (32-bit fields: a shader's push constants) ---------- */

typedef struct upf__camera_motion_con {
    int32_t width, height;            /* render size */
    float reproject[16];              /* previous view-projection x inverse of this frame's,
                                       * row-major: NDC of this frame -> previous clip space */
    float ndc_z_scale, ndc_z_offset;  /* NDC depth from device depth: 1, 0 or 2, -1 (OpenGL) */
    float ndc_y_sign;                 /* 1: NDC y up (y = 1 - 2 sy / H); -1: down */
    float jitter_x, jitter_y;         /* this frame's, render pixels */
} upf__camera_motion_con;

typedef struct upf__reconstruct_con {
    int32_t width, height;            /* render size */
    uint32_t encoding;                /* UPF__ENCODING_* of the host colour */
    float exposure;                   /* exposure / pre-exposure: linear -> working light */
    float depth_scale, depth_offset;  /* view z = 1 / (scale d + offset) */
    uint32_t depth_reversed;          /* 1: larger depth is nearer */
    uint32_t camera_motion;           /* 1: read the camera motion, not the host's vectors */
    float motion_scale_x, motion_scale_y; /* stored vectors -> render pixels */
    float jitter_x, jitter_y;         /* this frame's */
    uint32_t fill_source;             /* 1: write the fill source too */
} upf__reconstruct_con;

typedef struct upf__disocclusion_con {
    int32_t width, height;
    float jitter_x, jitter_y;
    float separation;                 /* the depth-relative separation that counts as another
                                       * surface (docs/TEMPORAL.md) */
    float slope_pixels;               /* how many pixels of the local depth slope to allow too */
    uint32_t has_reactive;            /* 1: the host gave a reactive mask */
} upf__disocclusion_con;

typedef struct upf__locks_con {
    int32_t width, height;
    float contrast;                   /* least 3x3 luma range (tonemapped) for a lock */
    float similar;                    /* neighbours within this share of the range are similar */
} upf__locks_con;

typedef struct upf__spatial_fill_con {
    int32_t in_width, in_height, out_width, out_height;
} upf__spatial_fill_con;

typedef struct upf__accumulate_con {
    int32_t in_width, in_height;      /* render size */
    int32_t out_width, out_height;
    float ratio_x, ratio_y;           /* output / render per axis */
    float jitter_x, jitter_y;         /* this frame's */
    uint32_t reset;                   /* 1: no history this frame */
    uint32_t fill;                    /* 1: new pixels take the fill */
    float history_scale;              /* this frame's exposure / the history's (1: unchanged) */
    float weight_max;                 /* the accumulated weight a still pixel holds at most */
    float weight_ramp;                /* the weight at which a pixel counts as confident */
    float speed_half;                 /* output px/frame at which the history's weight halves */
    float box_still, box_moving;      /* rectification box half-size in standard deviations */
    float lock_decay;                 /* a lock's life lost per frame without a new one */
} upf__accumulate_con;

typedef struct upf__sharpen_con {
    int32_t width, height;            /* output size */
    float sharpness;                  /* 0 .. UPF_TEMPORAL_SHARPNESS_MAX */
    uint32_t encoding;                /* UPF__ENCODING_* of the output */
    float exposure;                   /* pre-exposure / exposure: working -> host light */
} upf__sharpen_con;

/* What CPU functions need beyond surfaces and constants (upf__pass_args.engine). */
typedef struct upf__temporal_cpu {
    upf_spatial *spatial;             /* the spatial fill's engine, or NULL */
} upf__temporal_cpu;

/* ---- the CPU functions (each in its pass's file) ------------------------------------------ */

upf_result upf__camera_motion_pass(const upf__pass_args *a);  /* camera_motion.c */
upf_result upf__reconstruct_pass(const upf__pass_args *a);    /* reconstruct_dilate.c */
upf_result upf__disocclusion_pass(const upf__pass_args *a);   /* disocclusion.c */
upf_result upf__locks_pass(const upf__pass_args *a);          /* locks.c */
upf_result upf__spatial_fill_pass(const upf__pass_args *a);   /* spatial_fill.c */
upf_result upf__accumulate_pass(const upf__pass_args *a);     /* accumulate.c */
upf_result upf__sharpen_pass(const upf__pass_args *a);        /* sharpen.c */

/* Scratch of the reconstruct pass: per render row, the first bad colour and depth pixels and
 * the count of invalid vectors. */
size_t upf__tp_reconstruct_scratch_bytes(int height);

/* camera_motion.c: the kernel of the pass, also behind the public upf_camera_motion: fills
 * `con` from the two view-projections (reproject = prev x cur^-1, in double), failing with a
 * message when a matrix is not finite or this frame's is singular; then runs the rows of
 * `depth` into `motion` (RG32F rows of `motion_stride` bytes). Returns BAD_DATA naming the
 * first non-finite depth. */
upf_result upf__camera_motion_setup(upf_context *ctx, const char *fn, const double *vp,
                                    const double *prev_vp, double jx, double jy,
                                    upf_clip_depth clip_depth, int ndc_y_down, int width,
                                    int height, upf__camera_motion_con *con);
upf_result upf__camera_motion_run(upf_context *ctx, const char *fn,
                                  const upf__camera_motion_con *con, const upf_image *depth,
                                  float *motion, size_t motion_stride);

/* camera.c: the device-to-view factors of a camera (checked by the caller). */
void upf__camera_depth_factors(const upf_camera *cam, double *scale, double *offset);

/* temporal.c: fills the Lanczos table (UPF__LANCZOS_SIZE floats). */
void upf__lanczos_table(float *table);

/* ---- plan and constants (plan.c): pure, for both backends ------------------------------- */

/* Every surface's size (0 x 0: not used) and which passes run in this configuration (the
 * camera motion's per-frame switch aside), for params whose sizes are the largest. */
typedef struct upf__temporal_plan {
    int width[UPF__TP_COUNT], height[UPF__TP_COUNT];
    bool enabled[UPF__TP_PASS_COUNT];
} upf__temporal_plan;

void upf__temporal_plan_of(const upf_temporal_params *p, upf__temporal_plan *plan);

/* UPF__ENCODING_* of the flags. */
unsigned upf__temporal_encoding(unsigned flags);

/* The constants that do not change from frame to frame, for render size rw x rh (the params'
 * on the CPU; this frame's on the GPU, dynamic resolution), into con[pass] (each the pass's
 * constants struct). */
void upf__temporal_constants(const upf_temporal_params *p, int rw, int rh,
                             void *const con[UPF__TP_PASS_COUNT]);

/* What the per-frame constants need besides the frame's scalar fields. */
typedef struct upf__temporal_frame_info {
    int render_width, render_height;  /* this frame's */
    bool has_motion, has_reactive;    /* the host gave motion vectors, a reactive mask */
    bool first;                       /* no frame has run since creation: a reset */
    float history_exposure;           /* the exposure the history was accumulated at */
} upf__temporal_frame_info;

/* Checks the frame's scalar fields (jitter, motion scale, clip depth, frame time, exposures,
 * camera or projection, the view-projections without motion) and fills the per-frame
 * constants into con[pass]; *camera_motion: whether the camera_motion pass runs. Fails with a
 * message naming the field, con partly written. */
upf_result upf__temporal_frame_constants(upf_context *ctx, const char *fn,
                                         const upf_temporal_params *p,
                                         const upf_temporal_frame *f,
                                         const upf__temporal_frame_info *info,
                                         void *const con[UPF__TP_PASS_COUNT],
                                         bool *camera_motion);

/* The frame's exposure (0: 1), what the history is kept at after it. */
float upf__temporal_exposure(const upf_temporal_frame *f);

/* ---- shared colour maths (definitions) ---------------------------------------------------- */

/* L2(x) = sinc(x) sinc(x / 2) for |x| < 2, else 0 (Duchon 1979, "Lanczos filtering in one and
 * two dimensions"), from the table at x^2: linear interpolation between entries 4 / 1024 apart
 * in x^2 (error below 1e-5, test_temporal). */
static inline float upf__lanczos2(const float *table, float x2)
{
    if (!(x2 < 4.0f))
        return 0.0f;
    float t = x2 * (float)(UPF__LANCZOS_SIZE - 2) * 0.25f;
    int i = (int)t;
    float f = t - (float)i;
    return table[i] + f * (table[i + 1] - table[i]);
}

/* The reversible tonemap and its inverse (max of the channels; 1 - max kept above 1/4096 so
 * the inverse stays finite: working-space values never reach 1). */
static inline void upf__tonemap(float *rgb)
{
    float m = rgb[0] > rgb[1] ? rgb[0] : rgb[1];
    m = m > rgb[2] ? m : rgb[2];
    float s = 1.0f / (1.0f + m);
    rgb[0] *= s, rgb[1] *= s, rgb[2] *= s;
}

static inline void upf__tonemap_inverse(float *rgb)
{
    float m = rgb[0] > rgb[1] ? rgb[0] : rgb[1];
    m = m > rgb[2] ? m : rgb[2];
    float d = 1.0f - m;
    float s = 1.0f / (d > 1.0f / 4096.0f ? d : 1.0f / 4096.0f);
    rgb[0] *= s, rgb[1] *= s, rgb[2] *= s;
}

/* The display band at working-space luma y: UPF__DISPLAY_BAND_CODES codes of 8-bit sRGB
 * expressed in y, as for a grey, whose working value is y = x / (1 + x) of its linear x:
 * codes / (dcode/dx dx/dy), dx/dy = 1 / (1 - y)^2, dcode/dx = 255 x 1.055 / 2.4 x^(1/2.4 - 1)
 * (IEC 61966-2-1's curve; 255 x 12.92 on its linear segment). */
static inline float upf__display_band(float y)
{
    y = y > 0.0f ? (y < 0.99f ? y : 0.99f) : 0.0f;
    float x = y / (1.0f - y);
    float dcdx = x > 0.0031308f ? 255.0f * (1.055f / 2.4f) * powf(x, 1.0f / 2.4f - 1.0f)
                                : 255.0f * 12.92f;
    return UPF__DISPLAY_BAND_CODES * (1.0f - y) * (1.0f - y) / dcdx;
}

static inline uint32_t upf__display_pack(const float *off)
{
    uint32_t v = 0;
    for (int k = 0; k < 3; k++) {
        float q = off[k] / UPF__DISPLAY_UNIT;
        q = q > -511.0f ? (q < 511.0f ? q : 511.0f) : -511.0f;
        int32_t n = (int32_t)(q < 0.0f ? q - 0.5f : q + 0.5f);
        v |= ((uint32_t)n & 1023u) << (10 * k);
    }
    return v;
}

static inline void upf__display_unpack(uint32_t v, float *off)
{
    if (v == 0u) { /* a moving or new pixel: no offset */
        off[0] = off[1] = off[2] = 0.0f;
        return;
    }
    for (int k = 0; k < 3; k++) {
        int32_t n = (int32_t)((v >> (10 * k)) & 1023u);
        off[k] = (float)(n >= 512 ? n - 1024 : n) * UPF__DISPLAY_UNIT;
    }
}

/* RGB <-> YCoCg: Y = R/4 + G/2 + B/4, Co = R/2 - B/2, Cg = -R/4 + G/2 - B/4. */
static inline void upf__rgb_to_ycocg(const float *rgb, float *ycc)
{
    float r = rgb[0], g = rgb[1], b = rgb[2];
    ycc[0] = 0.25f * r + 0.5f * g + 0.25f * b;
    ycc[1] = 0.5f * r - 0.5f * b;
    ycc[2] = -0.25f * r + 0.5f * g - 0.25f * b;
}

static inline void upf__ycocg_to_rgb(const float *ycc, float *rgb)
{
    float y = ycc[0], co = ycc[1], cg = ycc[2];
    rgb[0] = y + co - cg;
    rgb[1] = y + cg;
    rgb[2] = y - co - cg;
}

/* ---- the engine for tests and benchmarks ------------------------------------------------- */

/* The pass list itself (for tests and the GPU backend). */
const upf__passes *upf__temporal_passes(const upf_temporal *t);

/* The static tables and the checks of the public params (temporal.c), for the GPU backend. */
const upf__pass_info *upf__temporal_pass_table(void);
const upf__surface_info *upf__temporal_surface_table(void);
upf_result upf__temporal_check_params(upf_context *ctx, const char *fn,
                                      const upf_temporal_params *p);

#endif /* UPF_TEMPORAL_PASSES_H */
