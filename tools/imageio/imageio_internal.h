/* imageio_internal.h: helpers shared by the image readers and writers (not for callers). */
#ifndef UPF_IMAGEIO_INTERNAL_H
#define UPF_IMAGEIO_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "imageio/image_io.h"

#if defined(__GNUC__) || defined(__clang__)
#define IMAGEIO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define IMAGEIO_PRINTF(a, b)
#endif

/* Writes a message to err (IMAGEIO_ERR_SIZE bytes, may be NULL) and returns code. */
upf_result imageio__fail(char *err, upf_result code, const char *fmt, ...) IMAGEIO_PRINTF(3, 4);

/* The checks every in-memory reader starts with: `out` not NULL (then cleared), `*name`
 * defaulted to "<memory>", and data not NULL unless size is 0. `fn` names the reader. */
upf_result imageio__begin_read(const char *fn, const void *data, size_t size, const char **name,
                               imageio_image *out, char *err);

/* Checks a file's stated size against the limits (before anything is allocated). */
upf_result imageio__check_size(const char *name, const imageio_limits *limits, long long width,
                               long long height, char *err);

/* Checks what a writer is given: a path, and an image with a known format, a size in
 * 1..UPF_MAX_IMAGE_DIMENSION, pixels, and a stride that holds a row. */
upf_result imageio__check_write(const char *path, const upf_image *img, char *err);

/* Opens a temporary file beside `path` for an atomic write. */
upf_result imageio__tmp_open(const char *path, char *tmp_path, size_t tmp_size, FILE **out,
                             char *err);

/* Closes the temporary file; if `ok` and nothing failed, renames it to `path`, otherwise
 * deletes it. When `ok` is false the caller has already written the message. */
upf_result imageio__tmp_commit(FILE *f, const char *tmp_path, const char *path, bool ok,
                               char *err);

/* A writer into an open stream; `bits` is the PNG bit depth and `settings` the PNG writer's
 * (imageio_png_settings, NULL: the defaults); PFM ignores both. */
typedef upf_result (*imageio_stream_writer)(FILE *f, const char *name, const upf_image *img,
                                            int bits, const void *settings, char *err);

/* Writes `path` atomically through a stream writer: checks the image, opens the temporary,
 * writes, and renames it into place (or removes it on failure). */
upf_result imageio__write_atomic(const char *path, const upf_image *img, int bits,
                                 const void *settings, imageio_stream_writer write, char *err);

/* png_bands.c: a PNG of one filter type on every row, compressed in bands on several
 * threads. `row` writes row y's samples as the file stores them (RGB or RGBA, 16-bit ones
 * big-endian) into dst, which has room for width x 4 samples; scratch holds width x 4 floats,
 * one per thread. */
typedef struct imageio_png_bands {
    int width, height, bits;
    bool opaque;               /* RGB, else RGBA */
    size_t row_bytes, bpp;     /* bytes of a stored row and of a pixel */
    int filter;                /* 0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth */
    int level, strategy;       /* zlib's */
    void (*row)(const void *src, int y, unsigned char *dst, float *scratch);
    const void *src;
} imageio_png_bands;

/* Writes the whole file to f. Returns 0, Z_MEM_ERROR, another zlib error, or Z_ERRNO with
 * *write_errno set when a write failed. */
int imageio__png_bands(FILE *f, const imageio_png_bands *job, int *write_errno);

#endif /* UPF_IMAGEIO_INTERNAL_H */
