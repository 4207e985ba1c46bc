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
                                    : (unsigned long long)UPF_DEFAULT_MAX_PIXELS;
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
    const char *kind = imageio_format_name(data, size);
    if (kind)
        return imageio__fail(err, UPF_ERROR_UNSUPPORTED, "%s: %s %s, which upframe does not "
                             "read; expected a PNG, JPEG or PFM file (convert it first, e.g. "
                             "'convert %s out.png' with ImageMagick)", name,
                             strchr("AEIOUaeiou", kind[0]) ? "an" : "a", kind, name);
    /* Show the first bytes, in hex: enough to recognise most other formats. */
    char hex[3 * 8 + 1] = "";
    size_t n = size < 8 ? size : 8, len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(hex + len, sizeof hex - len, "%s%02x", i ? " " : "",
                                ((const unsigned char *)data)[i]);
    return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: not a PNG, JPEG or PFM file (first bytes "
                         "%s); expected one of those", name, hex);
}

const char *imageio_format_name(const void *data, size_t size)
{
    const unsigned char *p = data;
    /* Magic numbers from each format's specification (the first bytes of the file). */
    static const struct {
        size_t offset, len;
        const char *magic, *name;
    } known[] = {
        { 0, 8, "\x89PNG\r\n\x1a\n", "PNG image" },
        { 0, 3, "\xff\xd8\xff", "JPEG image" },
        { 0, 6, "GIF87a", "GIF image" },
        { 0, 6, "GIF89a", "GIF image" },
        { 0, 4, "II*\0", "TIFF image" },
        { 0, 4, "MM\0*", "TIFF image" },
        { 0, 4, "qoif", "QOI image" },
        { 0, 4, "v/1\x01", "OpenEXR image" },
        { 0, 4, "DDS ", "DDS texture" },
        { 0, 4, "8BPS", "Photoshop document" },
        { 0, 12, "\0\0\0\x0cJXL \r\n\x87\n", "JPEG XL image" },
        { 0, 2, "\xff\x0a", "JPEG XL image" },
        { 4, 8, "ftypavif", "AVIF image" },
        { 4, 8, "ftypheic", "HEIF image" },
        { 4, 8, "ftypmif1", "HEIF image" },
        { 0, 8, "UPFMODEL", "upframe model file" },
        { 0, 4, "%PDF", "PDF document" },
        { 0, 4, "PK\x03\x04", "ZIP archive" },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (size >= known[i].offset + known[i].len &&
            memcmp(p + known[i].offset, known[i].magic, known[i].len) == 0)
            return known[i].name;
    if (size >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        return "WebP image";
    if (size >= 2 && p[0] == 'P' && (p[1] == 'F' || p[1] == 'f'))
        return "PFM image";
    /* Netpbm: P1..P7 and whitespace (PBM, PGM, PPM, PAM). */
    if (size >= 3 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7' &&
        (p[2] == ' ' || p[2] == '\n' || p[2] == '\r' || p[2] == '\t')) {
        static const char *const netpbm[] = { "PBM image", "PGM image", "PPM image",
                                              "PBM image", "PGM image", "PPM image",
                                              "PAM image" };
        return netpbm[p[1] - '1'];
    }
    /* BMP: "BM", then the file size and two reserved zero words. */
    if (size >= 14 && p[0] == 'B' && p[1] == 'M' && p[6] == 0 && p[7] == 0 && p[8] == 0 &&
        p[9] == 0)
        return "BMP image";
    return NULL;
}

upf_result imageio_write(const char *path, const upf_image *img, int png_bits, char *err)
{
    return imageio_write_with(path, img, png_bits, IMAGEIO_PNG_FAST, err);
}

upf_result imageio_write_with(const char *path, const upf_image *img, int png_bits,
                              imageio_png_compression png, char *err)
{
    upf_result r = imageio__check_write(path, img, err);
    if (r != UPF_OK)
        return r;
    imageio_png_settings set = imageio_png_preset(png);
    switch (imageio_type_from_path(path)) {
    case IMAGEIO_PNG: return imageio_write_png_with(path, img, png_bits == 16 ? 16 : 8, &set, err);
    case IMAGEIO_PFM: return imageio_write_pfm(path, img, err);
    case IMAGEIO_JPEG:
        return imageio__fail(err, UPF_ERROR_UNSUPPORTED, "%s: writing JPEG is not supported; "
                             "expected a .png or .pfm file name", path);
    case IMAGEIO_UNKNOWN: break;
    }
    return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: unknown output file type; "
                         "expected a name ending in .png or .pfm", path);
}
