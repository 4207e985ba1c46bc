/* builtin_frame.h: the built-in frames of `upframe upscale builtin` and `upframe bench`:
 * a scene of the scene renderer (tools/scene) rendered at one sample per pixel, the aliased
 * frame a game would hand an upscaler. */
#ifndef UPF_BUILTIN_FRAME_H
#define UPF_BUILTIN_FRAME_H

#include "imageio/image_io.h"

/* The size `upframe upscale builtin` renders at. */
#define BUILTIN_FRAME_WIDTH 960
#define BUILTIN_FRAME_HEIGHT 540

/* Renders built-in frame `name` (a scene name: courtyard, forest, street, interior; NULL or ""
 * for courtyard) at width x height into `out` (RGBA32F, linear light; free with
 * imageio_free), on `threads` workers (0: one per CPU). On failure writes a message to `err`
 * (IMAGEIO_ERR_SIZE bytes). */
upf_result builtin_frame_render(const char *name, int width, int height, int threads,
                                imageio_image *out, char *err);

/* The names builtin_frame_render takes, for messages: "courtyard, forest, street, interior". */
const char *builtin_frame_names(void);

#endif
