/* reconstruct.h: pass 4 of the spatial engine, the upscale (DESIGN.md "The spatial engine",
 * "Geometry, exactly"): the network's detail map, then the output (bilinear sample of the
 * sqrt frame + detail, squared, sharpened). Implemented in reconstruct.c.
 *
 * Two steps, so --debug-passes can save the detail map between them:
 *   upf__make_detail_map   sqrt frame -> detail map (W_in*12/s x H_in*12/s, rounded up)
 *   upf__compose_output    sqrt frame + detail map -> output image of any size and format
 * and upf__reconstruct, which runs both. No call allocates: scratch comes from the caller,
 * sized by the *_bytes functions for the context's number of workers.
 *
 * Internal header: not installed. */
#ifndef UPF_SPATIAL_RECONSTRUCT_H
#define UPF_SPATIAL_RECONSTRUCT_H

#include "spatial/net.h"

/* The frame passes 1-3 leave: one uint32 per pixel, sqrt-encoded 10:10:10:2
 * (upf_pack_sqrt1010102 in core/color.h). `stride` counts pixels, not bytes (0: width). */
typedef struct upf__sqrt_frame {
    const uint32_t *pixels;
    int width, height;
    size_t stride;
} upf__sqrt_frame;

/* A detail map: one float per detail pixel, row-major, `width` floats a row. For a model of
 * step s over an input of in_width x in_height it is ceil(in_width * 12 / s) x
 * ceil(in_height * 12 / s) (upf__detail_map_init); its pixel centres are those of an image
 * in_width * 12 / s wide, which need not be a whole number. */
typedef struct upf__detail_map {
    float *data;
    int width, height;
    int step;
    int in_width, in_height;
} upf__detail_map;

/* Sharpness accepted by upf__compose_output: 0 (off) .. 4; 1 is the shipped look. */
#define UPF_SHARPNESS_MAX 4.0f

/* Checks an upscale's sizes: each side 1..UPF_MAX_IMAGE_DIMENSION and a ratio out / in of 1 to
 * 4 on each axis. `fn` names the call in the message. */
upf_result upf__reconstruct_check_sizes(upf_context *ctx, const char *fn, int in_w, int in_h,
                                        int out_w, int out_h);

/* Fills in a detail map's sizes for a model step and input size, with `data` (which must hold
 * upf__detail_map_bytes). */
void upf__detail_map_init(upf__detail_map *map, int step, int in_w, int in_h, float *data);
size_t upf__detail_map_bytes(int step, int in_w, int in_h);

/* Scratch for upf__make_detail_map with `threads` workers. */
size_t upf__detail_scratch_bytes(int threads);

/* The detail map of `model` over `frame` (map initialised by upf__detail_map_init for this
 * model's step and the frame's size). One task per 48x48 tile on the context's workers; the
 * result does not depend on their number. */
upf_result upf__make_detail_map(upf_context *ctx, const upf__net_model *model,
                                const upf__sqrt_frame *frame, const upf__detail_map *map,
                                void *scratch, size_t scratch_bytes);

/* Scratch for upf__compose_output with `threads` workers, an input in_w wide, a detail map
 * detail_w wide and an output out_w wide. */
size_t upf__compose_scratch_bytes(int threads, int in_w, int detail_w, int out_w);

/* The output: for each pixel, the bilinear sample of `frame` plus the bilinear sample of the
 * detail map on R, G and B, clamped at 0 and squared (linear light); then the sharpen
 * `+ sharpness * (1.25 L - 0.3125 * (sum of the 4 neighbours' L))` on R, G, B (L the Rec. 709
 * luma of the squared output), clamped at 0. Alpha is the bilinear sample of the frame's alpha.
 * `dst` is any colour format, any size with a ratio of 1..4 to the frame on each axis.
 * Bands of rows run as tasks on the context's workers. */
upf_result upf__compose_output(upf_context *ctx, const upf__sqrt_frame *frame,
                               const upf__detail_map *map, const upf_image *dst,
                               float sharpness, void *scratch, size_t scratch_bytes);

/* Scratch for upf__reconstruct (the detail map and both steps' scratch). */
size_t upf__reconstruct_scratch_bytes(int threads, int step, int in_w, int in_h, int out_w);

/* Pass 4 whole: upf__make_detail_map with `model`, then upf__compose_output into `dst`. */
upf_result upf__reconstruct(upf_context *ctx, const upf__net_model *model,
                            const upf__sqrt_frame *frame, const upf_image *dst, float sharpness,
                            void *scratch, size_t scratch_bytes);

#endif /* UPF_SPATIAL_RECONSTRUCT_H */
