/* image.c: upf_image validation and row conversion between every colour format and float
 * RGBA (see image.h). The per-pixel conversions here are the scalar definitions. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/color.h"
#include "core/image.h"

size_t upf_format_bytes_per_pixel(upf_format format)
{
    switch (format) {
    case UPF_FORMAT_RGBA8_SRGB:
    case UPF_FORMAT_RGBA8_UNORM: return 4;
    case UPF_FORMAT_RGBA16_SRGB:
    case UPF_FORMAT_RGBA16_UNORM:
    case UPF_FORMAT_RGBA16F: return 8;
    case UPF_FORMAT_RGBA32F: return 16;
    case UPF_FORMAT_R32F: return 4;
    case UPF_FORMAT_RG32F: return 8;
    case UPF_FORMAT_NONE: break;
    }
    return 0;
}

const char *upf_format_name(upf_format format)
{
    switch (format) {
    case UPF_FORMAT_RGBA8_SRGB: return "rgba8-srgb";
    case UPF_FORMAT_RGBA8_UNORM: return "rgba8-linear";
    case UPF_FORMAT_RGBA16_SRGB: return "rgba16-srgb";
    case UPF_FORMAT_RGBA16_UNORM: return "rgba16-linear";
    case UPF_FORMAT_RGBA16F: return "rgba16f";
    case UPF_FORMAT_RGBA32F: return "rgba32f";
    case UPF_FORMAT_R32F: return "r32f";
    case UPF_FORMAT_RG32F: return "rg32f";
    case UPF_FORMAT_NONE: break;
    }
    return "unknown";
}

static void list_formats(unsigned allowed, char *buf, size_t size)
{
    buf[0] = '\0';
    size_t len = 0;
    for (int f = 1; f <= UPF_FORMAT_RG32F && len < size; f++) {
        if (allowed & UPF_FMT_BIT(f))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                    upf_format_name((upf_format)f));
    }
}

upf_result upf__check_image(upf_context *ctx, const char *fn, const char *what,
                            const upf_image *img, unsigned allowed, int width, int height)
{
    if (!img)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, what);
    if ((int)img->format <= 0 || (int)img->format > UPF_FORMAT_RG32F ||
        !(allowed & UPF_FMT_BIT(img->format))) {
        char list[256];
        list_formats(allowed, list, sizeof list);
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s has format %s (%d); expected "
                         "one of: %s", fn, what, upf_format_name(img->format), (int)img->format,
                         list);
    }
    if (img->width < 1 || img->width > UPF_MAX_IMAGE_DIMENSION || img->height < 1 ||
        img->height > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is %dx%d; expected each side "
                         "in 1..%d", fn, what, img->width, img->height, UPF_MAX_IMAGE_DIMENSION);
    if ((width > 0 && img->width != width) || (height > 0 && img->height != height))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is %dx%d; expected %dx%d", fn,
                         what, img->width, img->height, width, height);
    size_t row = (size_t)img->width * upf_format_bytes_per_pixel(img->format);
    if (img->stride && img->stride < row)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s has a stride of %zu bytes, "
                         "less than its row of %zu bytes", fn, what, img->stride, row);
    if (!img->data)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s has no pixels (data is NULL)",
                         fn, what);
    /* Every row, the last one included, must lie inside the address space: a stride near
     * SIZE_MAX / height would otherwise wrap the row pointers around. */
    size_t extent;
    if (upf__image_extent(img, &extent) ||
        (uintptr_t)img->data > UINTPTR_MAX - (uintptr_t)extent)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s's rows run past the end of "
                         "the address space (stride %zu bytes x %d rows from %p); expected "
                         "(height - 1) * stride + a row to fit in memory", fn, what,
                         upf__stride(img), img->height, img->data);
    if (ctx && upf__check_pixels(ctx, fn, what, img->width, img->height) != UPF_OK)
        return ctx->last_result;
    return UPF_OK;
}

bool upf__images_overlap(const upf_image *a, const upf_image *b)
{
    size_t ea, eb;
    if (upf__image_extent(a, &ea) || upf__image_extent(b, &eb))
        return true; /* upf__check_image refuses these first */
    uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    if (!(a0 < b0 + eb && b0 < a0 + ea))
        return false; /* the spans are apart */
    /* The spans meet: look row by row, since rows of strided views may interleave without
     * touching (two fields of one interlaced frame, a view with a huge stride). For row i of
     * a, the first row j of b that ends after it starts is the only candidate. */
    size_t sa = upf__stride(a), sb = upf__stride(b);
    size_t ra = (size_t)a->width * upf_format_bytes_per_pixel(a->format);
    size_t rb = (size_t)b->width * upf_format_bytes_per_pixel(b->format);
    for (int i = 0; i < a->height; i++) {
        uintptr_t lo = a0 + (size_t)i * sa, hi = lo + ra;
        size_t j = lo >= b0 + rb ? (lo - b0 - rb) / sb + 1 : 0;
        if (j < (size_t)b->height && b0 + j * sb < hi)
            return true;
    }
    return false;
}

int upf__image_extent(const upf_image *img, size_t *bytes)
{
    size_t stride = upf__stride(img);
    size_t row = (size_t)img->width * upf_format_bytes_per_pixel(img->format);
    size_t rows = (size_t)(img->height - 1);
    if (rows && stride > (SIZE_MAX - row) / rows)
        return -1;
    *bytes = rows * stride + row;
    return 0;
}

upf_result upf__resolve_crop(upf_context *ctx, const char *fn, const upf_rect *crop, int width,
                             int height, upf_rect *out)
{
    if (!crop || crop->width == 0) {
        *out = (upf_rect){ 0, 0, width, height };
        return UPF_OK;
    }
    if (crop->x < 0 || crop->y < 0 || crop->width < 1 || crop->height < 1 ||
        crop->x > width - crop->width || crop->y > height - crop->height)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: crop %d,%d,%dx%d does not lie "
                         "inside the %dx%d image", fn, crop->x, crop->y, crop->width,
                         crop->height, width, height);
    *out = *crop;
    return UPF_OK;
}

/* ---- row conversion ----------------------------------------------------------------- */

static inline int finite4(const float *p)
{
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) && isfinite(p[3]);
}

int upf__row_to_linear(const upf_image *img, int y, int x0, int n, float *out)
{
    const char *row = (const char *)upf__row(img, y);
    switch (img->format) {
    case UPF_FORMAT_RGBA8_SRGB: {
        const uint8_t *p = (const uint8_t *)row + (size_t)x0 * 4;
        for (int i = 0; i < n; i++, p += 4, out += 4) {
            for (int c = 0; c < 3; c++)
                out[c] = upf_srgb8_to_linear_table[p[c]];
            out[3] = p[3] / 255.0f;
        }
        return -1;
    }
    case UPF_FORMAT_RGBA8_UNORM: {
        const uint8_t *p = (const uint8_t *)row + (size_t)x0 * 4;
        for (int i = 0; i < n * 4; i++)
            out[i] = p[i] / 255.0f;
        return -1;
    }
    case UPF_FORMAT_RGBA16_SRGB: {
        const char *p = row + (size_t)x0 * 8;
        for (int i = 0; i < n; i++, p += 8, out += 4) {
            for (int c = 0; c < 3; c++)
                out[c] = (float)upf_srgb_to_linear_d(upf__load_u16(p + 2 * c) / 65535.0);
            out[3] = upf__load_u16(p + 6) / 65535.0f;
        }
        return -1;
    }
    case UPF_FORMAT_RGBA16_UNORM: {
        const char *p = row + (size_t)x0 * 8;
        for (int i = 0; i < n * 4; i++)
            out[i] = upf__load_u16(p + 2 * i) / 65535.0f;
        return -1;
    }
    case UPF_FORMAT_RGBA16F: {
        const char *p = row + (size_t)x0 * 8;
        for (int i = 0; i < n; i++, p += 8, out += 4) {
            for (int c = 0; c < 4; c++)
                out[c] = upf_half_to_float(upf__load_u16(p + 2 * c));
            if (!finite4(out))
                return x0 + i;
        }
        return -1;
    }
    case UPF_FORMAT_RGBA32F: {
        memcpy(out, row + (size_t)x0 * 16, (size_t)n * 16);
        for (int i = 0; i < n; i++)
            if (!finite4(out + 4 * i))
                return x0 + i;
        return -1;
    }
    default:
        /* Not a colour format: callers check formats first. Give black, opaque. */
        for (int i = 0; i < n; i++, out += 4)
            out[0] = out[1] = out[2] = 0.0f, out[3] = 1.0f;
        return -1;
    }
}

int upf__row_to_display(const upf_image *img, int y, int x0, int n, float *out)
{
    if (img->format == UPF_FORMAT_RGBA8_SRGB) {
        const uint8_t *p = (const uint8_t *)upf__row(img, y) + (size_t)x0 * 4;
        for (int i = 0; i < n * 4; i++)
            out[i] = p[i] / 255.0f;
        return -1;
    }
    if (img->format == UPF_FORMAT_RGBA16_SRGB) {
        const char *p = (const char *)upf__row(img, y) + (size_t)x0 * 8;
        for (int i = 0; i < n * 4; i++)
            out[i] = upf__load_u16(p + 2 * i) / 65535.0f;
        return -1;
    }
    int bad = upf__row_to_linear(img, y, x0, n, out);
    if (bad >= 0)
        return bad;
    for (int i = 0; i < n; i++, out += 4) {
        for (int c = 0; c < 3; c++)
            out[c] = (float)upf_linear_to_srgb_d(UPF_CLAMP(out[c], 0.0f, 1.0f));
        out[3] = UPF_CLAMP(out[3], 0.0f, 1.0f);
    }
    return -1;
}

static inline uint16_t enc16_srgb(float v)
{
    if (!(v > 0.0f))
        return 0;
    if (v >= 1.0f)
        return 65535;
    return (uint16_t)(upf_linear_to_srgb_d(v) * 65535.0 + 0.5);
}

void upf__row_from_encoded(const upf_image *img, int y, int x0, int n, const float *in)
{
    /* The values are the codes already: the same image read as its UNORM twin. */
    upf_image raw = *img;
    if (img->format == UPF_FORMAT_RGBA8_SRGB)
        raw.format = UPF_FORMAT_RGBA8_UNORM;
    else if (img->format == UPF_FORMAT_RGBA16_SRGB)
        raw.format = UPF_FORMAT_RGBA16_UNORM;
    else
        return;
    upf__row_from_linear(&raw, y, x0, n, in);
}

void upf__row_from_linear(const upf_image *img, int y, int x0, int n, const float *in)
{
    char *row = (char *)upf__row(img, y);
    switch (img->format) {
    case UPF_FORMAT_RGBA8_SRGB: {
        uint8_t *p = (uint8_t *)row + (size_t)x0 * 4;
        for (int i = 0; i < n; i++, p += 4, in += 4) {
            for (int c = 0; c < 3; c++)
                p[c] = upf_linear_to_srgb8(in[c]);
            p[3] = (uint8_t)upf_unorm_from_float(in[3], 255);
        }
        return;
    }
    case UPF_FORMAT_RGBA8_UNORM: {
        uint8_t *p = (uint8_t *)row + (size_t)x0 * 4;
        for (int i = 0; i < n * 4; i++)
            p[i] = (uint8_t)upf_unorm_from_float(in[i], 255);
        return;
    }
    case UPF_FORMAT_RGBA16_SRGB: {
        char *p = row + (size_t)x0 * 8;
        for (int i = 0; i < n; i++, p += 8, in += 4) {
            for (int c = 0; c < 3; c++)
                upf__store_u16(p + 2 * c, enc16_srgb(in[c]));
            upf__store_u16(p + 6, (uint16_t)upf_unorm_from_float(in[3], 65535));
        }
        return;
    }
    case UPF_FORMAT_RGBA16_UNORM: {
        char *p = row + (size_t)x0 * 8;
        for (int i = 0; i < n * 4; i++)
            upf__store_u16(p + 2 * i, (uint16_t)upf_unorm_from_float(in[i], 65535));
        return;
    }
    case UPF_FORMAT_RGBA16F: {
        char *p = row + (size_t)x0 * 8;
        for (int i = 0; i < n * 4; i++)
            upf__store_u16(p + 2 * i, upf_float_to_half(in[i]));
        return;
    }
    case UPF_FORMAT_RGBA32F:
        memcpy(row + (size_t)x0 * 16, in, (size_t)n * 16);
        return;
    default:
        return;
    }
}

void upf__row_from_linear_ctx(const upf_context *ctx, const upf_image *img, int y, int x0, int n,
                              const float *rgba)
{
#if defined(UPF_HAVE_X86_AVX2) /* this file is built for any x86-64: only the call is AVX2 */
    if (ctx && (ctx->cpu_flags & UPF__CPU_X86_AVX2_FMA) && img->format == UPF_FORMAT_RGBA8_SRGB) {
        upf__row_to_srgb8_avx2(img, y, x0, n, rgba, ctx->srgb8_bucket, ctx->srgb8_thr);
        return;
    }
#endif
    (void)ctx;
    upf__row_from_linear(img, y, x0, n, rgba);
}
