/* spatial_passes.h: the spatial engine as a pass list (core/pass.h): its surfaces, its six
 * passes and each pass's constants. The tables themselves are in spatial.c; each pass's CPU
 * function is in the file its `file` field names. docs/ARCHITECTURE.md draws the list and
 * docs/SPATIAL.md explains every pass.
 *
 *   pass      file           reads                        writes
 *   convert   convert.c      source (host)                linear, range
 *   edges     smaa_edges.c   linear                       luma (CPU scratch), edges, frame
 *   weights   smaa_weights.c edges, area                  weights
 *   blend     smaa_blend.c   linear, weights, frame       frame
 *   detail    detail.c       frame                        detail
 *   compose   compose.c      frame, detail, linear, range destination (host)
 *
 * Colour outside [0, 1] and alpha (docs/SPATIAL.md, "High dynamic range and alpha"): the
 * frame holds [0, 1] at 10 bits and alpha at 2, so convert tone-maps a frame with values
 * above 1 (c / (1 + max(c)) per pixel) and records it in `range`, which compose reads to undo
 * it; compose takes alpha at full precision from `linear`, filtered as the base. (The Vulkan
 * backend splits convert: its linear holds the values before the tone map, which edges and
 * blend apply to what they load, edges writing range R: docs/ARCHITECTURE.md, "The same list
 * on the GPU".)
 *
 * The edges pass writes each pixel's unblended sqrt encoding into the frame (it takes every
 * square root for the luma anyway) and the blend pass rewrites only the pixels that blend; a
 * backend that blends every pixel may skip the first write. With UPF_SPATIAL_NO_SMAA the
 * edges pass only encodes (`detect` = 0) and weights and blend are disabled; with
 * UPF_SPATIAL_NO_NETWORK, or a model of detail strength 0, the detail pass writes a map of
 * zeros (`network` = 0).
 *
 * Internal header: not installed. */
#ifndef UPF_SPATIAL_PASSES_H
#define UPF_SPATIAL_PASSES_H

#include "core/pass.h"
#include "spatial/net.h"

/* The surfaces, by index (the order of the table in spatial.c). */
enum upf__spatial_surface {
    UPF__SP_SOURCE = 0,   /* host: the input frame, any colour format, src size */
    UPF__SP_LINEAR,       /* rgba32f, src size: linear light, clamped to [0, 1] */
    UPF__SP_LUMA,         /* r32f, src size: the edges pass's luma (CPU scratch) */
    UPF__SP_EDGES,        /* r32ui, ceil(W/4) x ceil(H/4): packed edge bits (smaa.h) */
    UPF__SP_AREA,         /* rg8, 192 x 128: the SMAA area table (a table) */
    UPF__SP_WEIGHTS,      /* rgba8, src size: blending weights */
    UPF__SP_FRAME,        /* rgb10a2, src size: the sqrt-encoded frame */
    UPF__SP_DETAIL,       /* r32f, the model's detail map (reconstruct.h) */
    UPF__SP_RANGE,        /* rgba32f, 1 x 1: the frame's range (convert.c): R = the largest
                           * tone-mapped channel M / (1 + M) when M, the largest input value,
                           * is above 1 (then the frame is tone-mapped), else 0; G = M; B = 1
                           * when some alpha is below 1, else 0 */
    UPF__SP_DEST,         /* host: the output, any colour format, dst size */
    UPF__SP_COUNT
};

/* The passes, by index: the same numbers as the public upf_spatial_pass. */
enum upf__spatial_pass_index {
    UPF__SP_CONVERT = UPF_SPATIAL_PASS_CONVERT,
    UPF__SP_EDGES_PASS = UPF_SPATIAL_PASS_EDGES,
    UPF__SP_WEIGHTS_PASS = UPF_SPATIAL_PASS_WEIGHTS,
    UPF__SP_BLEND = UPF_SPATIAL_PASS_BLEND,
    UPF__SP_DETAIL_PASS = UPF_SPATIAL_PASS_DETAIL,
    UPF__SP_COMPOSE = UPF_SPATIAL_PASS_COMPOSE,
    UPF__SP_PASS_COUNT = UPF_SPATIAL_PASS_COUNT
};

/* ---- constants, one struct per pass (32-bit fields: a shader's push constants) ---------- */

typedef struct upf__convert_con {
    int32_t width, height;            /* the source */
} upf__convert_con;

typedef struct upf__smaa_edges_con {
    int32_t width, height;            /* the source */
    int32_t blocks_x, blocks_y;       /* edge words across and down: ceil(W/4), ceil(H/4) */
    uint32_t detect;                  /* 1: detect edges; 0: only sqrt-encode (NO_SMAA) */
} upf__smaa_edges_con;

typedef struct upf__smaa_weights_con {
    int32_t width, height;
    int32_t blocks_x, blocks_y;
} upf__smaa_weights_con;

typedef struct upf__smaa_blend_con {
    int32_t width, height;
} upf__smaa_blend_con;

typedef struct upf__detail_con {
    int32_t in_width, in_height;      /* the frame */
    int32_t map_width, map_height;    /* ceil(in * 12 / step) */
    int32_t step;                     /* the model's step s: ratio 12 / s */
    int32_t tiles_x, tiles_y;         /* 48x48 tiles of the map */
    uint32_t flags;                   /* the model's UPF_MODEL_FLAG_* */
    uint32_t network;                 /* 1: run the network; 0: the map is 0 (NO_NETWORK) */
} upf__detail_con;

typedef struct upf__compose_con {
    int32_t in_width, in_height;      /* the frame */
    int32_t map_width, map_height;    /* the detail map */
    int32_t out_width, out_height;    /* the destination */
    int32_t step;                     /* the model's step (the map's ratio 12 / step) */
    uint32_t flags;                   /* the model's UPF_MODEL_FLAG_* (the base) */
    float sharpness;                  /* 0 off .. UPF_SPATIAL_SHARPNESS_MAX */
} upf__compose_con;

/* What the CPU functions need beyond surfaces and constants (upf__pass_args.engine). */
typedef struct upf__spatial_cpu {
    const upf__net_model *model;      /* the detail pass's weights */
} upf__spatial_cpu;

/* ---- the CPU functions (each in its pass's file) ------------------------------------------ */

upf_result upf__convert_pass(const upf__pass_args *a);      /* convert.c */
upf_result upf__smaa_edges_pass(const upf__pass_args *a);   /* smaa_edges.c */
upf_result upf__smaa_weights_pass(const upf__pass_args *a); /* smaa_weights.c */
upf_result upf__smaa_blend_pass(const upf__pass_args *a);   /* smaa_blend.c */
upf_result upf__detail_pass(const upf__pass_args *a);       /* detail.c */
upf_result upf__compose_pass(const upf__pass_args *a);      /* compose.c */

/* Scratch of the convert pass: what each source row found (convert.c). */
size_t upf__convert_scratch_bytes(int height);

/* ---- the engine for the tools: a part of the list ----------------------------------------- *
 * The public upf_spatial_create builds one of these from its params; the trainer and the
 * benchmarks make one directly to run part of the list on frames of their own. */
typedef struct upf__spatial_config {
    int src_width, src_height;
    int dst_width, dst_height;        /* 0 x 0: no output (the detail and compose passes off) */
    float sharpness;
    unsigned flags;                   /* UPF_SPATIAL_NO_SMAA, UPF_SPATIAL_NO_NETWORK */
    const upf__net_model *model;      /* NULL: no network (detail and compose off) */
    const uint8_t *area_table;        /* a table to lend (upf__smaa_area_table), or NULL: the
                                       * engine computes its own */
} upf__spatial_config;

upf_spatial *upf__spatial_create(upf_context *ctx, const char *fn, const upf__spatial_config *cfg);

/* Runs passes first..last (upf_spatial_pass values) of the engine on `src` (and `dst` when
 * the range includes compose; else NULL). */
upf_result upf__spatial_run_passes(upf_spatial *s, const char *fn, const upf_image *src,
                                   const upf_image *dst, int first, int last);

/* A surface of the engine (upf__SP_*), valid until the engine is destroyed. */
const upf__surface *upf__spatial_surface(const upf_spatial *s, int surface);

/* The GPU backend's view of the engine: the constants for a configuration (the detail map's
 * geometry `m` from upf__detail_map_init; unused without a model) into con[pass], each the
 * pass's con_size bytes; the static tables; the checks and configuration of the public
 * params. */
struct upf__detail_map;
/* Every surface's size for a configuration (the map's geometry `m`), as the CPU engine plans
 * them: 0 x 0 for a surface this configuration does not use. */
void upf__spatial_surface_sizes(const upf__spatial_config *c, const struct upf__detail_map *m,
                                int width[UPF__SP_COUNT], int height[UPF__SP_COUNT]);
void upf__spatial_fill_constants(const upf__spatial_config *c, const struct upf__detail_map *m,
                                 void *const con[UPF__SP_PASS_COUNT]);
const upf__pass_info *upf__spatial_pass_table(void);
const upf__surface_info *upf__spatial_surface_table(void);
upf_result upf__spatial_check_params(upf_context *ctx, const char *fn,
                                     const upf_spatial_params *p);
upf__spatial_config upf__spatial_config_of(const upf_spatial_params *p, const upf_models *set);

/* The pass list itself (for tests and the GPU backend). */
const upf__passes *upf__spatial_passes(const upf_spatial *s);

#endif /* UPF_SPATIAL_PASSES_H */
