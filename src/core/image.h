/* image.h: validating upf_image descriptors and converting rows of any colour format to and
 * from float RGBA (linear light, or display-encoded for the metrics). */
#ifndef UPF_IMAGE_H
#define UPF_IMAGE_H

#include "core/core.h"

/* Bit masks of formats, for upf__check_image's `allowed`. */
#define UPF_FMT_BIT(f) (1u << (unsigned)(f))
#define UPF_FMTS_COLOR                                                                        \
    (UPF_FMT_BIT(UPF_FORMAT_RGBA8_SRGB) | UPF_FMT_BIT(UPF_FORMAT_RGBA8_UNORM) |               \
     UPF_FMT_BIT(UPF_FORMAT_RGBA16_SRGB) | UPF_FMT_BIT(UPF_FORMAT_RGBA16_UNORM) |             \
     UPF_FMT_BIT(UPF_FORMAT_RGBA16F) | UPF_FMT_BIT(UPF_FORMAT_RGBA32F))

static inline size_t upf__stride(const upf_image *img)
{
    return img->stride ? img->stride : (size_t)img->width * upf_format_bytes_per_pixel(img->format);
}

static inline void *upf__row(const upf_image *img, int y)
{
    return (char *)img->data + (size_t)y * upf__stride(img);
}

/* Checks an image descriptor: not NULL, data not NULL, a format in `allowed`, a size in
 * 1..UPF_MAX_IMAGE_DIMENSION, a stride that holds a row; and, when `width`/`height` are > 0,
 * exactly that size. `fn` and `what` name the call and the argument in the message
 * ("upf_resampler_run: destination image: ..."). */
upf_result upf__check_image(upf_context *ctx, const char *fn, const char *what,
                            const upf_image *img, unsigned allowed, int width, int height);

/* Checks a crop against an image size and resolves NULL / width 0 to the whole image. */
upf_result upf__resolve_crop(upf_context *ctx, const char *fn, const upf_rect *crop, int width,
                             int height, upf_rect *out);

/* Converts pixels [x0, x0 + n) of row y of a colour image to linear-light float RGBA.
 * Returns -1, or for float formats the x of the first pixel with a NaN or Inf (the row is
 * then incomplete). */
int upf__row_to_linear(const upf_image *img, int y, int x0, int n, float *rgba);

/* The same, to display-encoded values in [0, 1]: sRGB formats as stored, linear ones clamped
 * to [0, 1] and sRGB-encoded. Returns as upf__row_to_linear does. */
int upf__row_to_display(const upf_image *img, int y, int x0, int n, float *rgba);

/* Writes linear float RGBA to pixels [x0, x0 + n) of row y of a colour image: encoded,
 * clamped and rounded to nearest for integer formats, converted for float ones. */
void upf__row_from_linear(const upf_image *img, int y, int x0, int n, const float *rgba);

#endif /* UPF_IMAGE_H */
