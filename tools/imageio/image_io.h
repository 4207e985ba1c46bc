/* image_io.h: reading and writing image files for the tools, tests and fuzzers (the library
 * itself takes pixels, not files).
 *
 *  - PNG, 8 and 16 bit, every colour type, read with libspng under size and chunk limits,
 *    written with libspng as 8- or 16-bit RGBA (or RGB when the image is opaque).
 *  - JPEG, read with libjpeg-turbo; any warning about corrupt data is an error.
 *  - PFM (portable float map, "PF" colour / "Pf" grey, either byte order, rows bottom to
 *    top), read and written; NaN and Inf are refused, and so are bytes after the pixel data.
 * Colour metadata (PNG gAMA/cHRM/iCCP, JPEG ICC profiles, EXIF orientation) is not applied:
 * samples are taken as sRGB, as stored.
 *
 * Every function returns UPF_OK or an error code (UPF_ERROR_BAD_DATA for a malformed or
 * over-limit file, UPF_ERROR_IO when the file system says no, UPF_ERROR_UNSUPPORTED for a
 * valid file we do not take, UPF_ERROR_OUT_OF_MEMORY) and on failure writes a message to
 * `err` that names the file, what was wrong and what was expected, e.g.
 * "in.png: image is 0x16 pixels; expected 1..16384 on each side". `err` is a buffer of
 * IMAGEIO_ERR_SIZE bytes (or NULL).
 * Writes go to a temporary file in the same folder (.NAME.tmp-XXXXXX, hidden) that is renamed
 * over the target only once it is complete, so a failure never leaves a half-written (or any)
 * output behind; a file replaced keeps its permissions, and a symbolic link to a file is
 * written through (the file it points at is replaced). */
#ifndef UPF_IMAGE_IO_H
#define UPF_IMAGE_IO_H

#include <stddef.h>
#include <stdio.h>

#include "upframe.h"

#define IMAGEIO_ERR_SIZE 512

typedef enum imageio_type {
    IMAGEIO_UNKNOWN = 0,
    IMAGEIO_PNG,
    IMAGEIO_JPEG,
    IMAGEIO_PFM
} imageio_type;

/* Limits applied before any pixel memory is allocated. */
typedef struct imageio_limits {
    int max_width, max_height;   /* 0: UPF_MAX_IMAGE_DIMENSION */
    size_t max_pixels;           /* 0: UPF_DEFAULT_MAX_PIXELS (2^27, like the library) */
} imageio_limits;

/* An image read from a file: pixels in `img` (owned: free with imageio_free), plus what the
 * file held. Formats produced: PNG 8 bit -> RGBA8_SRGB, PNG 16 bit -> RGBA16_SRGB,
 * JPEG -> RGBA8_SRGB, PFM "PF" -> RGBA32F (alpha 1), PFM "Pf" -> R32F. */
typedef struct imageio_image {
    upf_image img;
    imageio_type type;
    int bit_depth;      /* 8 or 16 for PNG, 8 for JPEG, 32 for PFM */
    int channels;       /* channels in the file: 1..4 for PNG (grey, grey+alpha, RGB or a
                           palette, RGBA; a tRNS chunk adds alpha), 1 or 3 for JPEG/PFM */
} imageio_image;

/* The type a file's first bytes say it is (PNG signature, JPEG SOI, "PF"/"Pf"). */
imageio_type imageio_detect(const void *data, size_t size);

/* The file type that a path's extension names (.png, .jpg/.jpeg, .pfm; any case). */
imageio_type imageio_type_from_path(const char *path);

const char *imageio_type_name(imageio_type type);

/* What a file's first bytes say it is, for messages: "PNG image", "GIF image", "WebP image",
 * "BMP image", "PPM image", "TIFF image", "upframe model file", ...; NULL if unknown. */
const char *imageio_format_name(const void *data, size_t size);

/* Reads a file of any supported type, chosen by its content (not its name). `limits` may be
 * NULL. On failure `out` is left empty (nothing to free). */
upf_result imageio_read(const char *path, const imageio_limits *limits, imageio_image *out,
                        char *err);

/* The same from memory; `name` is used in messages. Each reader accepts only its own type. */
upf_result imageio_read_mem(const void *data, size_t size, const char *name,
                            const imageio_limits *limits, imageio_image *out,
                            char *err);
upf_result imageio_read_png_mem(const void *data, size_t size, const char *name,
                                const imageio_limits *limits, imageio_image *out,
                                char *err);
upf_result imageio_read_jpeg_mem(const void *data, size_t size, const char *name,
                                 const imageio_limits *limits, imageio_image *out,
                                 char *err);
upf_result imageio_read_pfm_mem(const void *data, size_t size, const char *name,
                                const imageio_limits *limits, imageio_image *out,
                                char *err);

/* Writes a PNG of `bits` 8 or 16 per channel from any colour format (linear formats are
 * sRGB-encoded; values clamp to [0, 1]). Opaque images are stored as RGB. Compressed with
 * the IMAGEIO_PNG_FAST settings. */
upf_result imageio_write_png(const char *path, const upf_image *img, int bits,
                             char *err);

/* How a PNG is compressed: FAST (the default) or SMALL (the smallest file, slower); chosen
 * by measurement, docs/PERFORMANCE.md "PNG compression". */
typedef enum imageio_png_compression { IMAGEIO_PNG_FAST = 0, IMAGEIO_PNG_SMALL } imageio_png_compression;

/* The encoder's settings: zlib level 0..9, libspng's SPNG_FILTER_CHOICE bits (which row
 * filters it may pick among), zlib strategy 0..4 (Z_DEFAULT_STRATEGY .. Z_FIXED). */
typedef struct imageio_png_settings {
    int level;
    int filters;
    int strategy;
} imageio_png_settings;

imageio_png_settings imageio_png_preset(imageio_png_compression c);

/* imageio_write_png and imageio_write_png_stream with given settings (NULL: FAST). */
upf_result imageio_write_png_with(const char *path, const upf_image *img, int bits,
                                  const imageio_png_settings *settings, char *err);
upf_result imageio_write_png_stream_with(FILE *f, const char *name, const upf_image *img,
                                         int bits, const imageio_png_settings *settings,
                                         char *err);

/* Writes a PFM (little endian, rows bottom to top): colour formats and RG32F as "PF" (linear
 * RGB; RG32F gets B = 0), R32F as "Pf". Float input must be finite. */
upf_result imageio_write_pfm(const char *path, const upf_image *img, char *err);

/* The same two writers into an open stream (standard output for `-o -`), not atomically;
 * `name` is used in messages. A failed write says why (strerror). */
upf_result imageio_write_png_stream(FILE *f, const char *name, const upf_image *img, int bits,
                                    char *err);
upf_result imageio_write_pfm_stream(FILE *f, const char *name, const upf_image *img, char *err);

/* Writes by the extension of `path`: .png (8 bit unless `png_bits` is 16) or .pfm. */
upf_result imageio_write(const char *path, const upf_image *img, int png_bits,
                         char *err);

/* The same, a PNG compressed as `png` says. */
upf_result imageio_write_with(const char *path, const upf_image *img, int png_bits,
                              imageio_png_compression png, char *err);

/* Allocates an image of a format and size (tightly packed, zeroed); imageio_free frees it. */
upf_result imageio_alloc(imageio_image *out, int width, int height, upf_format format,
                         char *err);

void imageio_free(imageio_image *img);

/* Reads a whole file into memory (for the readers, fuzz replays and tests). At most
 * `max_size` bytes; *data is freed with free(). A pipe (a FIFO, process substitution's
 * /dev/fd/N) is read to its end, like standard input: opening a FIFO waits for its writer. */
upf_result imageio_slurp(const char *path, size_t max_size, void **data, size_t *size,
                         char *err);

/* Removes the temporary file of every write still in progress. Async-signal-safe: for a
 * signal handler, so that an interrupted run leaves no temporary behind. */
void imageio_remove_temporaries(void);

/* Writes `size` bytes to `path` atomically (temporary file, then rename). */
upf_result imageio_write_file_atomic(const char *path, const void *data, size_t size,
                                     char *err);

#endif /* UPF_IMAGE_IO_H */
