/* builtin_frame.c: renders the built-in frames (see builtin_frame.h) with the scene renderer:
 * seed 1 (a training-range seed, not an evaluation view), the still camera at t = 0.5 s,
 * one sample per pixel at the pixel centre, mip bias 0, colour without the HUD. */
#include <stdio.h>
#include <string.h>

#include "builtin_frame.h"
#include "scene/scene.h"

const char *builtin_frame_names(void)
{
    static char names[256];
    if (!names[0]) {
        size_t len = 0;
        for (int i = 0; i < scene_count() && len < sizeof names; i++)
            if (!scene_is_test_only(i))
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                        scene_name(i));
    }
    return names;
}

upf_result builtin_frame_render(const char *name, int width, int height, int threads,
                                imageio_image *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (!name || !name[0])
        name = "courtyard";
    bool known = false;
    for (int i = 0; i < scene_count(); i++)
        known |= !scene_is_test_only(i) && strcmp(scene_name(i), name) == 0;
    if (!known) {
        snprintf(err, IMAGEIO_ERR_SIZE, "unknown built-in frame '%s' (expected one of: %s)", name,
                 builtin_frame_names());
        return UPF_ERROR_INVALID_ARGUMENT;
    }
    upf_context *ctx = upf_context_create(upf_context_params(.threads = threads));
    if (!ctx) {
        snprintf(err, IMAGEIO_ERR_SIZE, "could not create a context to render '%s'", name);
        return UPF_ERROR_INTERNAL;
    }
    upf_result r = imageio_alloc(out, width, height, UPF_FORMAT_RGBA32F, err);
    scene *s = NULL;
    if (r == UPF_OK)
        r = scene_create(ctx, name, 1, &s);
    if (r == UPF_OK) {
        scene_buffers buf = { out->img.data, NULL, NULL, NULL };
        r = scene_render(s, scene_view_params(.path = "still", .time = 0.5, .width = width,
                                              .height = height), &buf, NULL);
    }
    if (r != UPF_OK) {
        const char *msg = "";
        upf_context_last_error(ctx, &msg);
        if (msg[0])
            snprintf(err, IMAGEIO_ERR_SIZE, "built-in frame '%s': %s", name, msg);
        imageio_free(out);
    }
    scene_destroy(&s);
    upf_context_destroy(&ctx);
    return r;
}
