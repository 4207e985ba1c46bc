/* framegen_passes.h: the frame generation engine (upf_interpolate) as a pass list
 * (core/pass.h): its surfaces, its ten passes, each pass's constants, and the helpers they
 * share. The tables are in interpolate.c; each pass's CPU function is in the file its `file`
 * field names. docs/FRAMEGEN.md explains every pass.
 *
 *   pass      file        reads                              writes
 *   prepare   prepare.c   colour prev, colour                linear prev, linear, luma
 *                                                            pyramids, histograms
 *   scene     scene.c     histograms                         scene
 *   vectors   vectors.c   motion, depth (host)               motion, priority, splat prev
 *                                                            (+ index), splat land, prev
 *                                                            motion
 *   flow      flow.c      luma pyramids                      motion, priority, prev motion,
 *                                                            flow blocks, histogram, global
 *   camera    camera.c    motion                             camera, camera sums
 *   splat     splat.c     motion, priority, camera           splat, splat index, splat land
 *   fill      fill.c      splat, splat index, motion, camera motion t, motion pyramid
 *   resolve   resolve.c   linear prev, linear, motion t,     resolved
 *                         motion, prev motion, camera, scene
 *   inpaint   inpaint.c   resolved                           colour pyramid, inpainted
 *   compose   compose.c   inpainted, linear prev, linear,    output (host)
 *                         HUD (host)
 *
 * prepare, scene, then vectors (game motion vectors) or flow (none), and camera run once per
 * pair of frames; splat .. compose run once per phase t, so a factor of N shares the motion
 * work. The fallback blend the host chooses (a reset, ids not consecutive, a missing input)
 * runs prepare, resolve (as a blend), inpaint (a copy) and compose; the one the scene pass
 * chooses runs every pass and the resolve blends (nothing read back mid-frame).
 *
 * Conventions: frame N-1 is "prev" (t = 0), frame N is "cur" (t = 1). A motion vector of a
 * pixel p of N points to where its surface was in N-1 (p + m), output pixels, x right, y down
 * (the game's convention). A prev-motion vector of a pixel of N-1 points to where its surface
 * is in N. Vectors that are not known hold UPF__FG_INVALID in x. A splat is two r32ui
 * surfaces: the least priority that landed in a cell (smaller wins: the nearer surface) and
 * the least index of the pixels of that priority that landed there (ties go to the lower
 * index, so the result does not depend on the order of the writes), UPF__FG_NONE where
 * nothing landed: the least 64-bit key (priority << 32) | index, made with 32-bit atomics
 * (splat.c).
 *
 * Internal header: not installed. */
#ifndef UPF_FRAMEGEN_PASSES_H
#define UPF_FRAMEGEN_PASSES_H

#include <math.h>
#include <string.h>

#include "core/pass.h"

enum upf__fg_surface {
    UPF__FG_COLOR_PREV = 0,   /* host: frame N-1, any colour format */
    UPF__FG_COLOR,            /* host: frame N */
    UPF__FG_MOTION_IN,        /* host: RG32F motion vectors of N, motion size (optional) */
    UPF__FG_DEPTH_IN,         /* host: R32F depth of N, motion size (optional) */
    UPF__FG_HUD,              /* host: the HUD layer to composite, straight alpha (optional) */
    UPF__FG_OUTPUT,           /* host: the made frame, any colour format */
    UPF__FG_LINEAR_PREV,      /* rgba32f: N-1 in linear light, alpha 1 */
    UPF__FG_LINEAR,           /* rgba32f: N */
    UPF__FG_LUMA_PREV,        /* r32f atlas: luma pyramid of N-1 (sqrt of luma), levels
                               * stacked by rows (upf__fg_level) */
    UPF__FG_LUMA,             /* r32f atlas: of N */
    UPF__FG_HISTOGRAMS,       /* r32ui 2 x 17 x 32: luma histograms of each frame, the whole
                               * frame then a 4 x 4 grid of regions */
    UPF__FG_MOTION,           /* rg32f: motion of each pixel of N (to N-1) */
    UPF__FG_PRIORITY,         /* r32ui: the splat priority of each pixel of N */
    UPF__FG_SPLAT_PREV,       /* r32ui: N's pixels splatted to t = 0 (vectors only): the
                               * least priority in each cell */
    UPF__FG_SPLAT_PREV_INDEX, /* r32ui: ... the least index of that priority */
    UPF__FG_PREV_MOTION,      /* rg32f: motion of each pixel of N-1 (to N) */
    UPF__FG_CAMERA,           /* r32f UPF__FG_CAMERA_FLOATS x 1: the camera model
                               * (camera.c): 1 when there is one, centre x, y and scale of
                               * the normalised coordinates, log of the homography N -> N-1,
                               * the fit's state; on the GPU the phase's powers */
    UPF__FG_CAMERA_SUMS,      /* r32f UPF__FG_CAMERA_ROW x blocks: the fit's partial sums, a
                               * row per UPF__FG_CAMERA_BLOCK grid pixels */
    UPF__FG_SPLAT,            /* r32ui: N's pixels splatted to the phase t: least priority */
    UPF__FG_SPLAT_INDEX,      /* r32ui: ... the least index of that priority */
    UPF__FG_SPLAT_LAND,       /* r32ui: where each pixel of N landed in the last splat (both
                               * splats' first step writes it, their second reads it) */
    UPF__FG_MOTION_T,         /* rgba32f: motion at t (x, y, priority bits, 1 where it was
                               * a hole filled from the pyramid) */
    UPF__FG_MOTION_PYRAMID,   /* rgba32f atlas: levels 1.. of the motion at t */
    UPF__FG_RESOLVED,         /* rgba32f: the made frame, alpha 0 where neither frame sees it */
    UPF__FG_COLOR_PYRAMID,    /* rgba32f atlas: levels 1.. of the resolved colour, weighted */
    UPF__FG_INPAINTED,        /* rgba32f: the made frame with its holes filled */
    UPF__FG_SCENE,            /* r32f 4 x 1: 1 where the frames are of different scenes (the
                               * scene pass), 2 where the flow found a cut (cut.c), else 0;
                               * the histogram distances; the share of lost flow vectors */
    UPF__FG_FLOW_BLOCKS,      /* rg32f, level 0's blocks across x 6 x their rows: the flow's
                               * block vectors, per direction this level's, the parent's and
                               * the search's */
    UPF__FG_FLOW_HIST,        /* r32ui UPF__FG_FLOW_BINS x 4: histograms of a level's block
                               * vectors, per direction and component */
    UPF__FG_FLOW_GLOBAL,      /* rg32f 2 x 1: their medians, per direction */
    UPF__FG_COUNT
};

enum upf__fg_pass_index {
    UPF__FG_PREPARE = UPF_INTERPOLATE_PASS_PREPARE,
    UPF__FG_SCENE_PASS = UPF_INTERPOLATE_PASS_SCENE,
    UPF__FG_VECTORS = UPF_INTERPOLATE_PASS_VECTORS,
    UPF__FG_FLOW = UPF_INTERPOLATE_PASS_FLOW,
    UPF__FG_CAMERA_PASS = UPF_INTERPOLATE_PASS_CAMERA,
    UPF__FG_SPLAT_PASS = UPF_INTERPOLATE_PASS_SPLAT,
    UPF__FG_FILL = UPF_INTERPOLATE_PASS_FILL,
    UPF__FG_RESOLVE = UPF_INTERPOLATE_PASS_RESOLVE,
    UPF__FG_INPAINT = UPF_INTERPOLATE_PASS_INPAINT,
    UPF__FG_COMPOSE = UPF_INTERPOLATE_PASS_COMPOSE,
    /* internal passes after the public ones (their time counts in a public pass's) */
    UPF__FG_CUT = UPF_INTERPOLATE_PASS_COUNT, /* after the flow; its time in the flow's */
    UPF__FG_PASS_COUNT
};

#define UPF__FG_INVALID 1e30f            /* x of a vector that is not known */
#define UPF__FG_NONE 0xffffffffu         /* a splat cell nothing landed in (its index) */
#define UPF__FG_LOST 0xfffffffeu         /* the flow's priority of an inconsistent vector */
#define UPF__FG_LEVELS_MAX 12            /* pyramid levels at most (level 0 included) */
#define UPF__FG_HIST_BINS 32
#define UPF__FG_HIST_REGIONS 17          /* the whole frame, then 4 x 4 regions */
#define UPF__FG_BLOCK 8                  /* the flow's block size, pixels of its level */
#define UPF__FG_CAMERA_FLOATS 64         /* the camera surface's width: the model (camera.c's
                                          * layout, floats 0 .. 24), then the powers */
#define UPF__FG_CAMERA_POWERS 28         /* 4 x 9 floats, the GPU's alone: G, G^(1 - t), G^t
                                          * and G^-(1 - t) of the phase being made, written
                                          * by the splat's first step (splat.comp), read by
                                          * the fill and resolve (camera.glsl); the CPU passes
                                          * compute their own (upf__fg_camera_power) and
                                          * leave these 0 */
#define UPF__FG_CAMERA_BINS 256          /* the fit's residual histogram, 0.05 px bins */
#define UPF__FG_CAMERA_ROW (48 + UPF__FG_CAMERA_BINS) /* a row of camera sums */
#define UPF__FG_CAMERA_BLOCK 256         /* grid pixels per row of camera sums */
#define UPF__FG_FLOW_BINS 4096           /* the flow's vector histograms: 1 px bins */

/* ---- constants, one struct per pass (32-bit fields: a shader's push constants) ---------- */

typedef struct upf__fg_prepare_con {
    int32_t width, height;
    int32_t levels;                   /* luma pyramid levels (0: no pyramid, blend or vectors) */
    int32_t first;                    /* the first level the atlases hold (the flow's level 0,
                                       * upf__fg_flow_con.base): level `first` + k at the
                                       * atlas's rows of level k of a frame of that level's size,
                                       * upf__fg_level_size(width, first) floats a row */
} upf__fg_prepare_con;

typedef struct upf__fg_scene_con {
    uint32_t enabled;                 /* 0: no decision (game vectors: the host says reset) */
    float global, regions;            /* a cut: the whole frame's histograms differ by more
                                       * than `global` and the median region's by `regions` */
} upf__fg_scene_con;

typedef struct upf__fg_cut_con {
    int32_t width, height;
    uint32_t enabled;                 /* 0: no decision (not the flow) */
    float lost;                       /* a cut: more than this share of N's vectors lost */
} upf__fg_cut_con;

typedef struct upf__fg_vectors_con {
    int32_t width, height;            /* the frames' size */
    int32_t motion_width, motion_height; /* the host's vectors and depth */
    float scale_x, scale_y;           /* stored vectors -> output pixels */
    uint32_t depth_reversed;          /* 1: larger depth is nearer */
    float shade_threshold;            /* a still pixel whose 5 x 5 patch's mean luma difference
                                       * between the frames is above this is searched (0: off) */
    int32_t shade_radius;             /* ... for the patch of N-1 that matches, +- pixels
                                       * (at most UPF__FG_SHADE_RADIUS_MAX) */
} upf__fg_vectors_con;
/* The largest shade radius the GPU's tiles hold (vectors.comp, SHADE_RADIUS_MAX). */
#define UPF__FG_SHADE_RADIUS_MAX 8

typedef struct upf__fg_flow_con {
    int32_t width, height;
    int32_t levels;                   /* of the luma pyramids */
    int32_t radius_coarse, radius;    /* block search, +- pixels of the level: the coarsest
                                       * level, the others above level 0 */
    int32_t radius_fine;              /* ... on level 0 (0: its candidates only) */
    int32_t refine;                   /* Lucas-Kanade iterations on level 0 */
    float penalty;                    /* block cost: SAD + penalty x pixels x L1 distance (px)
                                       * of the vector from the parent's */
    float flat;                       /* a block whose mean |gradient| is below this is flat:
                                       * it takes its best candidate without a search */
    float consistency;                /* forward + backward <= this + consistency_rel |m| */
    float consistency_rel;
    int32_t base;                     /* 0: the flow of the frame; 1: of the half-size frame
                                       * (width, height and levels above are its: the
                                       * pyramid's levels 1 ..), its vectors doubled onto
                                       * the frame's pixels by two more steps (flow.c, up) */
    int32_t frame_width, frame_height; /* the frame's size (width, height when base is 0) */
} upf__fg_flow_con;

/* The camera fit (camera.c): a model when a third of the pixels lie within `near` of it, the
 * next round's threshold `spread` times the median residual; game vectors 0.5 px and 3, the
 * flow's (noisier) 1 px and 2 (docs/FRAMEGEN.md, "camera"). */
#define UPF__FG_CAMERA_NEAR 0.5f
#define UPF__FG_CAMERA_SPREAD 3.0f
#define UPF__FG_CAMERA_NEAR_FLOW 1.0f
#define UPF__FG_CAMERA_SPREAD_FLOW 2.0f

typedef struct upf__fg_camera_con {
    int32_t width, height;
    int32_t step, grid_w, grid_h;     /* the fit's grid: every step-th pixel from step / 2 */
    uint32_t fit;                     /* 1: fit to the motion (game vectors or the flow) */
    uint32_t given;                   /* 1: g is the homography from the host's matrices */
    float g[9];                       /* N -> N-1 in the normalised coordinates, row-major */
    float near;                       /* px: a pixel agrees with the fit within this (a model
                                       * needs a third of them): UPF__FG_CAMERA_NEAR or _FLOW */
    float spread;                     /* the next round's threshold: max(0.5 px, spread x the
                                       * median residual): UPF__FG_CAMERA_SPREAD or _FLOW */
} upf__fg_camera_con;

typedef struct upf__fg_splat_con {
    int32_t width, height;
    float shift;                      /* 1 - t: a pixel of N lands at p + shift m */
    uint32_t flow;                    /* 1 (flow): where the camera model puts a pixel of N
                                       * outside N-1, it moves by the camera alone */
} upf__fg_splat_con;

typedef struct upf__fg_fill_con {
    int32_t width, height;
    int32_t levels;                   /* of the motion pyramid, level 0 included */
    uint32_t flow_rank;               /* 1 (flow): consistent vectors fill alike, lost last;
                                       * a pixel the camera puts outside N-1 keeps no residual */
} upf__fg_fill_con;

typedef struct upf__fg_resolve_con {
    int32_t width, height;
    float t;                          /* the phase */
    uint32_t blend;                   /* 1: the fallback blend, no motion */
    uint32_t visibility;              /* 1: weight each side by whether it sees the surface
                                       * (game vectors); 0: by t alone (optical flow) */
    float tolerance, tolerance_rel;   /* a side sees the surface when its vector is within
                                       * tolerance + tolerance_rel |m| of the one at t */
    float sharpness;                  /* both sides seen: each weighs exp(-sharpness d^2) more,
                                       * d (px) from its position to the nearest texel centre */
    float snap;                       /* both sides seen (visibility 1): the share of the
                                       * smaller weighted distance to a texel centre by which
                                       * both positions move toward theirs (resolve.c) */
} upf__fg_resolve_con;

typedef struct upf__fg_inpaint_con {
    int32_t width, height;
    int32_t levels;                   /* of the colour pyramid, level 0 included */
} upf__fg_inpaint_con;

typedef struct upf__fg_compose_con {
    int32_t width, height;
    float t;
    uint32_t hud;                     /* 1: composite the HUD layer */
    uint32_t still_rule;              /* 1: pixels equal in both frames stay put */
    float still_threshold;            /* "equal": every channel of the 3x3 within this, on
                                       * square roots of linear light */
} upf__fg_compose_con;

/* ---- the CPU functions (each in its pass's file) ------------------------------------------ */

upf_result upf__fg_prepare_pass(const upf__pass_args *a);  /* prepare.c */
upf_result upf__fg_scene_pass(const upf__pass_args *a);    /* scene.c */
upf_result upf__fg_vectors_pass(const upf__pass_args *a);  /* vectors.c */
upf_result upf__fg_flow_pass(const upf__pass_args *a);     /* flow.c */
upf_result upf__fg_camera_pass(const upf__pass_args *a);   /* camera.c */
upf_result upf__fg_splat_pass(const upf__pass_args *a);    /* splat.c */
upf_result upf__fg_fill_pass(const upf__pass_args *a);     /* fill.c */
upf_result upf__fg_resolve_pass(const upf__pass_args *a);  /* resolve.c */
upf_result upf__fg_inpaint_pass(const upf__pass_args *a);  /* inpaint.c */
upf_result upf__fg_compose_pass(const upf__pass_args *a);  /* compose.c */
upf_result upf__fg_cut_pass(const upf__pass_args *a);      /* cut.c */

/* Scratch of the passes (bytes). */
size_t upf__fg_prepare_scratch_bytes(int width, int height, int first);
size_t upf__fg_vectors_scratch_bytes(int threads, int width, int height);
size_t upf__fg_compose_scratch_bytes(int threads, int width, int height);

/* flow.c: the sizes of the flow blocks surface. upf__fg_hist_add counts a value in a
 * UPF__FG_FLOW_BINS histogram (bins of 1 px centred on the integers from -UPF__FG_FLOW_BINS /
 * 2, the end bins taking what lies beyond; an atomic add); upf__fg_hist_median gives the value
 * (its bin's centre) of sorted index n / 2 of the n values counted, 0 for none. */
void upf__fg_flow_sizes(int width, int height, int *blocks_w, int *blocks_h);
/* The flow pass's first `stop` steps (INT_MAX: the pass), numbered as the GPU's dispatches
 * (src/vk/vk_framegen_flow.h): per level from the coarsest search, median (with the
 * histograms above level 0) and, above level 0, the global medians (one step with the median
 * on a level that upf__fg_flow_fused says is small); then refine (when con->refine > 0: in
 * level 0's median step), choose, check. For the tests of the GPU's steps. */
void upf__fg_flow_steps(const upf__pass_args *a, int stop);
/* Whether a level above 0 of bw x bh blocks takes its vector median and its global medians
 * in one step: on the GPU one workgroup does both (the blocks of both directions at most
 * UPF__FG_FLOW_FUSE_MAX: two a lane), a dispatch and its barrier fewer. */
#define UPF__FG_FLOW_FUSE_MAX 128
static inline bool upf__fg_flow_fused(int bw, int bh)
{
    return 2 * bw * bh <= UPF__FG_FLOW_FUSE_MAX;
}
void upf__fg_hist_add(uint32_t *hist, float v);
float upf__fg_hist_median(const uint32_t *hist, uint32_t n);

/* splat.c: clears `depth` and `index` (width x height) to UPF__FG_NONE and splats every pixel
 * of N with a known vector to p + shift m (the four pixels around it): its priority by an
 * atomic minimum into `depth` and where it landed into `land`, then where its priority equals
 * what the cell holds its index by an atomic minimum into `index`; with a camera model `cam`
 * (NULL or cam[0] = 0: none) to where the camera's homography to the power `shift` takes p,
 * plus shift times what the homography leaves of m. */
void upf__fg_splat(upf_context *ctx, int width, int height, const float *motion,
                   const uint32_t *priority, float shift, const float *cam, bool flow,
                   uint32_t *depth, uint32_t *index, uint32_t *land);

/* camera.c: the camera model. upf__fg_camera_grid gives the fit's grid for a frame size;
 * upf__fg_camera_run is the pass on plain arrays (`sums` upf__fg_camera_blocks x
 * UPF__FG_CAMERA_ROW floats):
 * writes the model to `cam` (UPF__FG_CAMERA_FLOATS floats; cam[0] = 0 when there is none).
 * upf__fg_camera_power gives the homography's power s (the camera of the phase 1 - s as seen
 * from N: s = 1 maps N to N-1) as a 3x3 matrix in the normalised coordinates, row-major, in
 * fp32 with fixed counts; upf__fg_camera_apply maps a pixel position (centres at +0.5)
 * through it, false where the point would go behind the camera. */
void upf__fg_camera_grid(int width, int height, int *step, int *grid_w, int *grid_h);
/* The rows of camera sums for a grid: its pixels in row-major order, UPF__FG_CAMERA_BLOCK a
 * row (at least one). */
static inline int upf__fg_camera_blocks(int grid_w, int grid_h)
{
    const int n = (grid_w * grid_h + UPF__FG_CAMERA_BLOCK - 1) / UPF__FG_CAMERA_BLOCK;
    return n > 0 ? n : 1;
}
void upf__fg_camera_run(upf_context *ctx, const upf__fg_camera_con *con, const float *motion,
                        float *cam, float *sums);
/* Whether the camera surface holds a model (cam[0] = 1; the flow writes none). */
static inline bool upf__fg_camera_has(const float *cam)
{
    return cam && cam[0] != 0.0f;
}
void upf__fg_camera_power(const float *cam, float s, float *m);
bool upf__fg_camera_apply(const float *cam, const float *m, float x, float y, float *ox,
                          float *oy);
/* Whether the camera's position (gx, gy) in N-1 of a pixel of N (centres at +0.5) lies outside
 * the frame: content that came into view, which the optical flow cannot have matched (its
 * vector there is the edge rule's guess), so the splat and the fill move it by the camera
 * alone (docs/FRAMEGEN.md, "camera"; issue 35). */
static inline bool upf__fg_camera_outside(int width, int height, float gx, float gy)
{
    return !(gx > 0.0f && gx < (float)width && gy > 0.0f && gy < (float)height);
}

/* The luma pyramids' values: 12-bit codes k / 4096 (prepare.c says why). The code of a luma
 * v in [0, 1]: k = round(4095 v) (float products and sums, as a GPU rounds them); the mean of
 * four codes, as the next level's: their sum / 4 rounded half up (every step exact). */
#define UPF__FG_LUMA_SCALE 4096.0f
static inline float upf__fg_luma_code(float v)
{
    return floorf(v * 4095.0f + 0.5f) * (1.0f / UPF__FG_LUMA_SCALE);
}

static inline float upf__fg_luma_mean(float a, float b, float c, float d)
{
    return floorf(0.25f * (a + b + c + d) * UPF__FG_LUMA_SCALE + 0.5f) *
           (1.0f / UPF__FG_LUMA_SCALE);
}

/* A float's bits and back (the splat's priorities, the linear frames' rounding). */
static inline uint32_t upf__fg_float_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static inline float upf__fg_bits_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* The linear frames' precision (docs/FRAMEGEN.md, "prepare"): prepare rounds each colour
 * value to the float with the 12 upper bits of its mantissa (sign, exponent and 12 bits: 21 of
 * its 32), to nearest, ties to even (an infinity stays one; the largest floats round to it), so
 * that the GPU holds a pixel's three values in 8 bytes, not 16, and reads back the same floats
 * (frames.glsl, linear.glsl: the resolve's taps are the bytes that bound it). 2^-13 relative
 * at most: a quarter of a half float's error. */
static inline float upf__fg_linear_round(float v)
{
    const uint32_t b = upf__fg_float_bits(v);
    return upf__fg_bits_float((b + 0x3ffu + ((b >> 11) & 1u)) & ~0x7ffu);
}

/* A pixel's three rounded values (upf__fg_linear_round) in two words as the GPU keeps them
 * (linear.glsl): r's 21 bits and g's upper 11 in w[0], b's 21 bits and g's lower 10 (shifted
 * one up) in w[1]; upf__fg_linear_unpack gives the three floats back (alpha 1). */
static inline void upf__fg_linear_pack(const float *rgb, uint32_t w[2])
{
    uint32_t c[3];
    memcpy(c, rgb, sizeof c);
    w[0] = (c[0] & ~0x7ffu) | c[1] >> 21;
    w[1] = (c[2] & ~0x7ffu) | ((c[1] >> 10) & 0x7feu);
}

static inline void upf__fg_linear_unpack(const uint32_t w[2], float *rgba)
{
    const uint32_t c[3] = { w[0] & ~0x7ffu, w[0] << 21 | (w[1] & 0x7feu) << 10,
                            w[1] & ~0x7ffu };
    memcpy(rgba, c, sizeof c);
    rgba[3] = 1.0f;
}

/* The pyramid atlas layout: level l is ceil(w / 2^l) x ceil(h / 2^l), stored at row
 * upf__fg_level_row(h, l) of a surface `w` wide. */
static inline int upf__fg_level_size(int size, int level)
{
    return (int)(((long)size + (1L << level) - 1) >> level);
}

static inline int upf__fg_level_row(int height, int level)
{
    int row = 0;
    for (int l = 0; l < level; l++)
        row += upf__fg_level_size(height, l);
    return row;
}

/* The rows of an atlas holding levels first..levels-1. */
static inline int upf__fg_atlas_rows(int height, int first, int levels)
{
    return upf__fg_level_row(height, levels) - upf__fg_level_row(height, first);
}

/* The levels of a pyramid whose smallest level is at least `least` pixels on its short side
 * (at least 1 level, at most UPF__FG_LEVELS_MAX). */
static inline int upf__fg_levels(int width, int height, int least)
{
    int l = 1;
    while (l < UPF__FG_LEVELS_MAX && upf__fg_level_size(width, l) >= least &&
           upf__fg_level_size(height, l) >= least)
        l++;
    return l;
}

/* Bilinear sample of a float image (one channel, `stride` floats a row) at pixel position
 * (x, y) (pixel centres at +0.5), edges repeated. */
static inline float upf__fg_sample1(const float *img, int w, int h, size_t stride, float x, float y)
{
    x -= 0.5f, y -= 0.5f;
    float fx0 = floorf(x), fy0 = floorf(y);
    int x0 = (int)fx0, y0 = (int)fy0;
    float fx = x - fx0, fy = y - fy0;
    int xa = UPF_CLAMP(x0, 0, w - 1), xb = UPF_CLAMP(x0 + 1, 0, w - 1);
    int ya = UPF_CLAMP(y0, 0, h - 1), yb = UPF_CLAMP(y0 + 1, 0, h - 1);
    const float *r0 = img + (size_t)ya * stride, *r1 = img + (size_t)yb * stride;
    float top = r0[xa] + fx * (r0[xb] - r0[xa]);
    float bot = r1[xa] + fx * (r1[xb] - r1[xa]);
    return top + fy * (bot - top);
}

/* The same for RGBA (4 floats a pixel, rows of w pixels). */
static inline void upf__fg_sample4(const float *img, int w, int h, float x, float y, float *o)
{
    x -= 0.5f, y -= 0.5f;
    float fx0 = floorf(x), fy0 = floorf(y);
    int x0 = (int)fx0, y0 = (int)fy0;
    float fx = x - fx0, fy = y - fy0;
    int xa = UPF_CLAMP(x0, 0, w - 1), xb = UPF_CLAMP(x0 + 1, 0, w - 1);
    int ya = UPF_CLAMP(y0, 0, h - 1), yb = UPF_CLAMP(y0 + 1, 0, h - 1);
    const float *a = img + ((size_t)ya * w + xa) * 4, *b = img + ((size_t)ya * w + xb) * 4;
    const float *c = img + ((size_t)yb * w + xa) * 4, *d = img + ((size_t)yb * w + xb) * 4;
    for (int k = 0; k < 4; k++) {
        float top = a[k] + fx * (b[k] - a[k]);
        float bot = c[k] + fx * (d[k] - c[k]);
        o[k] = top + fy * (bot - top);
    }
}

/* The six Lanczos-3 weights (sinc(d) sinc(d / 3), d = i - 2 - f, the resamplers' kernel of
 * resample/filters.c: Duchon 1979, Turkowski 1990) of the texels i = 0..5 around a position
 * f in [0, 1) past texel 2, from three sines: sin(pi d) = -(-1)^i sin(pi f), and
 * sin(pi d / 3) = sin(pi n / 3) cos(pi f / 3) - cos(pi n / 3) sin(pi f / 3), n = i - 2. */
static inline void upf__fg_lanczos3_weights(float f, float *w)
{
    static const float sn[6] = { -0.8660254f, -0.8660254f, 0.0f, 0.8660254f, 0.8660254f, 0.0f };
    static const float cn[6] = { -0.5f, 0.5f, 1.0f, 0.5f, -0.5f, -1.0f };
    const float pi = 3.14159265358979f;
    const float s1 = sinf(pi * f), s3 = sinf(pi * f / 3.0f), c3 = cosf(pi * f / 3.0f);
    for (int i = 0; i < 6; i++) {
        const float d = (float)(i - 2) - f;
        if (fabsf(d) < 1e-4f) {
            w[i] = 1.0f;
            continue;
        }
        const float a = (i & 1 ? s1 : -s1), b = sn[i] * c3 - cn[i] * s3;
        w[i] = 3.0f * a * b / (pi * pi * d * d);
    }
}

/* Whether tap (i, j) of a 6 x 6 Lanczos-3 window is fetched: the 4 x 4 centre and the middle
 * two of each outer row and column, 24 taps (a disc, not a square). The 12 left out hold one
 * coordinate's outer lobe (|weight| below 0.03 at any position) with the other's not at its
 * middle: products below 0.01 each, whose sum the normalisation takes out. */
static inline bool upf__fg_lanczos_tap(int i, int j)
{
    const int ri = i == 0 || i == 5 ? 2 : i == 1 || i == 4 ? 1 : 0;
    const int rj = j == 0 || j == 5 ? 2 : j == 1 || j == 4 ? 1 : 0;
    return ri + rj <= 2;
}

/* Lanczos-3 sample (upf__fg_lanczos3_weights) of an RGBA image (4 floats a pixel, rows of w
 * pixels) at pixel position (x, y) over the 24 texels of the 6 x 6 around it that
 * upf__fg_lanczos_tap keeps, edges repeated, divided by the sum of their weights (the 4 x 4
 * centre's sx4 sy4 and the four middle pairs'); lo and hi get the range of the 2x2 nearest
 * texels, which the caller clamps to (no ringing). A fetch that keeps texture detail a
 * bilinear one blurs at half-pixel offsets. The 24 taps, not 36, cost the rendered pairs
 * 0.03 dB (docs/FRAMEGEN.md, "resolve"): a third of the GPU resolve's loads. */
static inline void upf__fg_sample4_lanczos(const float *img, int w, int h, float x, float y,
                                           float *o, float *lo, float *hi)
{
    x -= 0.5f, y -= 0.5f;
    float fx0 = floorf(x), fy0 = floorf(y);
    int x0 = (int)fx0, y0 = (int)fy0;
    float wx[6], wy[6];
    upf__fg_lanczos3_weights(x - fx0, wx);
    upf__fg_lanczos3_weights(y - fy0, wy);
    const float sx4 = wx[1] + wx[2] + wx[3] + wx[4], sy4 = wy[1] + wy[2] + wy[3] + wy[4];
    const float norm = 1.0f / (sx4 * sy4 + (wx[2] + wx[3]) * (wy[0] + wy[5]) +
                               (wx[0] + wx[5]) * (wy[2] + wy[3]));
    float acc[4] = { 0, 0, 0, 0 };
    for (int k = 0; k < 4; k++)
        lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int j = 0; j < 6; j++) {
        const int yy = UPF_CLAMP(y0 - 2 + j, 0, h - 1);
        const float *row = img + (size_t)yy * w * 4;
        for (int i = 0; i < 6; i++) {
            if (!upf__fg_lanczos_tap(i, j))
                continue;
            const int xx = UPF_CLAMP(x0 - 2 + i, 0, w - 1);
            const float *p = row + (size_t)xx * 4;
            const float wgt = wx[i] * wy[j];
            for (int k = 0; k < 4; k++)
                acc[k] += wgt * p[k];
            if ((i == 2 || i == 3) && (j == 2 || j == 3))
                for (int k = 0; k < 4; k++) {
                    lo[k] = p[k] < lo[k] ? p[k] : lo[k];
                    hi[k] = p[k] > hi[k] ? p[k] : hi[k];
                }
        }
    }
    for (int k = 0; k < 4; k++)
        o[k] = acc[k] * norm;
}

/* The splat priority of a depth value (smaller wins: the nearer surface). Depth is finite and
 * not negative: its float bits are in the order of the values. */
static inline uint32_t upf__fg_depth_priority(float depth, bool reversed)
{
    uint32_t bits;
    float d = depth > 0.0f ? depth : 0.0f;
    memcpy(&bits, &d, sizeof bits);
    return reversed ? ~bits : bits;
}

/* The splat priority without depth (optical flow): the faster surface wins, as the nearer one
 * moves faster under a camera's translation (motion parallax). */
static inline uint32_t upf__fg_motion_priority(float mx, float my)
{
    float s = sqrtf(mx * mx + my * my) * 256.0f;
    uint32_t q = s < 2147483647.0f ? (uint32_t)s : 2147483647u;
    return 0xffffffffu - q;
}

/* ---- interpolate.c, shared with the GPU backend (src/vk/vk_framegen.c) ------------------ */

/* The engine's configuration: its params with the defaults filled, its pyramids' levels. */
typedef struct upf__interpolate_plan {
    upf_interpolate_params params;
    int flow_levels, pyramid_levels;
} upf__interpolate_plan;

/* Checks `params` as upf_interpolate_create does and fills `ps` (zeroed by the caller; free it
 * with upf__passes_free) with the engine's tables, every surface's size and every pass's
 * fixed constants, without the surfaces' memory. */
upf_result upf__interpolate_describe(upf_context *ctx, const char *fn,
                                     const upf_interpolate_params *params, upf__passes *ps,
                                     upf__interpolate_plan *plan);

/* The method of a run and why it falls back to the blend (the host's decisions: the motion
 * asked for, which of motion and depth are given, reset, the ids); the scene pass's cut is
 * the device's. */
void upf__interpolate_method(upf_interpolate_motion motion, bool motion_given, bool depth_given,
                             int reset, int64_t prev_id, int64_t id,
                             upf_interpolate_method *method, upf_interpolate_fallback *why);

/* The camera pass's `g` from the host's view-projections (upf_interpolate_frames documents
 * them) for frames of width x height; fails on a non-finite or singular matrix. */
upf_result upf__fg_camera_from_matrices(upf_context *ctx, const char *fn, int width,
                                       int height, const double *view_projection,
                                       const double *prev_view_projection, int ndc_y_down,
                                       float g[9]);

/* The engine's pass list (for tests and the GPU backend). */
const upf__passes *upf__interpolate_passes(const upf_interpolate *e);

#endif /* UPF_FRAMEGEN_PASSES_H */
