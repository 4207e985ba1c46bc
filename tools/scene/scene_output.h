/* scene_output.h: writing rendered views to files (the `upframe render` command's side of
 * the scene renderer; the trainer uses scene.h alone).
 *
 * Per frame, in a folder, with a stem such as "0007":
 *   STEM.color.pfm    linear RGB without the HUD (PFM rows run bottom to top)
 *   STEM.color.png    its sRGB preview (clamped to [0, 1])
 *   STEM.hud.png      the HUD layer: sRGB RGB, straight alpha
 *   STEM.final.png    the colour with the HUD composited: c (1 - a) + hud a, in linear light
 *   STEM.depth.pfm    depth in the asked convention (grey PFM)
 *   STEM.motion.pfm   motion vectors: R = mv_x, G = mv_y (render pixels, y down), B = 0
 *   STEM.json         the camera: matrices, near, far, field of view, jitter, times (below)
 * Each file is written atomically; a failure removes the frame's files already written. */
#ifndef UPF_SCENE_OUTPUT_H
#define UPF_SCENE_OUTPUT_H

#include <stdatomic.h>
#include <stdint.h>

#include "imageio/image_io.h"
#include "scene/scene.h"

/* The file name endings of a frame, NULL-terminated (for listing and cleaning up). */
extern const char *const scene_frame_files[];

/* What the JSON sidecar records besides the camera. */
typedef struct scene_frame_info {
    const char *scene;
    uint32_t seed;
    const char *path;
    long frame;              /* index in the sequence */
    double fps;
    int width, height, spp;
    double mip_bias;
    const char *jitter_mode; /* "halton" or "none" */
    long jitter_index;       /* the Halton index used (before the phase wrap) */
    int jitter_phases;
    atomic_int *files_written; /* if not NULL: how many of scene_frame_files (in that order)
                                * this frame has written so far, for a signal handler that
                                * removes a half-written frame */
} scene_frame_info;

/* Writes the files of one frame as DIR/STEM.*; `b` holds all four buffers (width x height
 * from `info`). On failure `err` (IMAGEIO_ERR_SIZE bytes) says why and no file of this
 * frame is left. */
upf_result scene_write_frame(const char *dir, const char *stem, const scene_frame_info *info,
                             const scene_buffers *b, const scene_camera *cam, char *err);

/* The JSON sidecar's text (NUL-terminated) into buf of `size` bytes; false if too small. */
bool scene_camera_json(const scene_frame_info *info, const scene_camera *cam, char *buf,
                       size_t size);

/* Pictures of depth and motion for people (sRGB RGBA8): depth as grey, white near to black
 * at 200 m on a log scale (sky black); motion on the optical-flow colour wheel (hue the
 * direction, saturation the length, full at `max_px` pixels). */
void scene_depth_picture(const float *depth, int w, int h, const scene_camera *cam, uint8_t *rgba);
void scene_motion_picture(const float *motion, int w, int h, float max_px, uint8_t *rgba);

/* A contact sheet: one row per scene (the evaluation scenes, not the test ones): the frame
 * with its HUD, its depth and its motion, each tile_w x tile_h, at `spp`, labelled; written
 * as a PNG to `path`. */
upf_result scene_contact_sheet(upf_context *ctx, const char *path, int tile_w, int tile_h,
                               int spp, char *err);

#endif /* UPF_SCENE_OUTPUT_H */
