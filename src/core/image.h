/* image.h: validating upf_image descriptors and converting rows of any colour format to and
 * from float RGBA (linear light, or display-encoded for the metrics). */
#ifndef UPF_IMAGE_H
#define UPF_IMAGE_H

#include <string.h>

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

/* Channels of 16 and 32 bits, read and written through memcpy: the caller's rows may sit at
 * any address (an odd stride, a view into a packed file), and a misaligned uint16_t or float
 * access is undefined behaviour (C17 6.3.2.3p7). Compilers turn these into plain loads. */
static inline uint16_t upf__load_u16(const void *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void upf__store_u16(void *p, uint16_t v)
{
    memcpy(p, &v, sizeof v);
}

static inline float upf__load_f32(const void *p)
{
    float v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void upf__store_f32(void *p, float v)
{
    memcpy(p, &v, sizeof v);
}

static inline void *upf__row(const upf_image *img, int y)
{
    return (char *)img->data + (size_t)y * upf__stride(img);
}

/* Checks an image descriptor: not NULL, data not NULL, a format in `allowed`, a size in
 * 1..UPF_MAX_IMAGE_DIMENSION and within the context's pixel limit, a stride that holds a row,
 * rows that do not wrap around the address space; and, when `width`/`height` are > 0, exactly that size. `fn` and `what` name the call and the argument in the message
 * ("upf_resampler_run: destination image: ..."). */
upf_result upf__check_image(upf_context *ctx, const char *fn, const char *what,
                            const upf_image *img, unsigned allowed, int width, int height);

/* The bytes an image's rows span, from its first pixel to the end of its last row:
 * (height - 1) * stride + width * bytes per pixel. Returns -1 (and sets nothing) when that
 * overflows size_t, else 0. `img` must have a valid size and format. */
int upf__image_extent(const upf_image *img, size_t *bytes);

/* Whether two images (both checked by upf__check_image) share a byte of their rows; rows of
 * strided views that interleave without touching do not count. */
bool upf__images_overlap(const upf_image *a, const upf_image *b);

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

/* The same for an sRGB-encoded format (RGBA8_SRGB, RGBA16_SRGB; nothing for the others), from
 * colour already sRGB-encoded: R, G, B clamped to [0, 1] and rounded to the format's codes as
 * they are; alpha as upf__row_from_linear stores it. */
void upf__row_from_encoded(const upf_image *img, int y, int x0, int n, const float *rgba);

/* upf__row_from_linear with the fastest writer the context's CPU runs: for RGBA8_SRGB on a CPU
 * with AVX2 (UPF__CPU_X86_AVX2_FMA) the AVX2 one (image_avx2.c, the context's tables), the
 * same codes; otherwise, or with ctx NULL, upf__row_from_linear itself. */
void upf__row_from_linear_ctx(const upf_context *ctx, const upf_image *img, int y, int x0, int n,
                              const float *rgba);

/* The AVX2 writer of pixels [x0, x0 + n) of row y of an RGBA8_SRGB image, `bucket` and `thr`
 * from upf__srgb8_encode_tables (color.h). Call it only where the CPU has AVX2; in a build
 * without AVX2 kernels it is the C writer. */
void upf__row_to_srgb8_avx2(const upf_image *img, int y, int x0, int n, const float *rgba,
                            const int32_t *bucket, const float *thr);

#endif /* UPF_IMAGE_H */
