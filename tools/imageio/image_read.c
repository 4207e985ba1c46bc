/* image_read.c: the front door of image I/O: reads a file of any supported type, chosen by
 * its content (png_io.c, jpeg_io.c, pfm_io.c do the work), and writes a file of the type its
 * extension names (.png or .pfm). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imageio/image_io.h"
#include "imageio/imageio_internal.h"

/* The largest file imageio_read loads: 12 bytes a pixel (a PFM's RGB floats, more than a
 * PNG's or a JPEG's real worst case) for the largest image the limits allow, plus 64 MiB for
 * a PNG's ancillary chunks and any header. Anything bigger cannot hold an image we accept. */
static size_t max_file_size(const imageio_limits *limits)
{
    unsigned long long max_px = limits && limits->max_pixels
                                    ? (unsigned long long)limits->max_pixels
                                    : (unsigned long long)UPF_MAX_IMAGE_DIMENSION * UPF_MAX_IMAGE_DIMENSION;
    unsigned long long extra = 64ull << 20;
    if (max_px > (SIZE_MAX - extra) / 12)
        return SIZE_MAX;
    return (size_t)(max_px * 12 + extra);
}

upf_result imageio_read(const char *path, const imageio_limits *limits, imageio_image *out,
                        char *err)
{
    if (!out)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "imageio_read: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path || !*path)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "imageio_read: path is %s; "
                             "expected a file name", path ? "empty" : "NULL");
    void *data;
    size_t size;
    upf_result r = imageio_slurp(path, max_file_size(limits), &data, &size, err);
    if (r != UPF_OK)
        return r;
    r = imageio_read_mem(data, size, path, limits, out, err);
    free(data);
    return r;
}

upf_result imageio_read_mem(const void *data, size_t size, const char *name,
                            const imageio_limits *limits, imageio_image *out, char *err)
{
    upf_result begin = imageio__begin_read("imageio_read_mem", data, size, &name, out, err);
    if (begin != UPF_OK)
        return begin;
    switch (imageio_detect(data, size)) {
    case IMAGEIO_PNG: return imageio_read_png_mem(data, size, name, limits, out, err);
    case IMAGEIO_JPEG: return imageio_read_jpeg_mem(data, size, name, limits, out, err);
    case IMAGEIO_PFM: return imageio_read_pfm_mem(data, size, name, limits, out, err);
    case IMAGEIO_UNKNOWN: break;
    }
    if (size == 0)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: file is empty; expected a PNG, JPEG "
                             "or PFM file", name);
    /* Show the first bytes, in hex: enough to recognise most other formats. */
    char hex[3 * 8 + 1] = "";
    size_t n = size < 8 ? size : 8, len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(hex + len, sizeof hex - len, "%s%02x", i ? " " : "",
                                ((const unsigned char *)data)[i]);
    return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: not a PNG, JPEG or PFM file (first bytes "
                         "%s); expected one of those", name, hex);
}

upf_result imageio_write(const char *path, const upf_image *img, int png_bits, char *err)
{
    upf_result r = imageio__check_write(path, img, err);
    if (r != UPF_OK)
        return r;
    switch (imageio_type_from_path(path)) {
    case IMAGEIO_PNG: return imageio_write_png(path, img, png_bits == 16 ? 16 : 8, err);
    case IMAGEIO_PFM: return imageio_write_pfm(path, img, err);
    case IMAGEIO_JPEG:
        return imageio__fail(err, UPF_ERROR_UNSUPPORTED, "%s: writing JPEG is not supported; "
                             "expected a .png or .pfm file name", path);
    case IMAGEIO_UNKNOWN: break;
    }
    return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: unknown output file type; "
                         "expected a name ending in .png or .pfm", path);
}
