/* fuzz_common.h: what the libFuzzer harnesses share: the reduced limits they read under, and
 * the checks they make on every result. A broken invariant aborts, which libFuzzer reports
 * as a crash and the replay test (fuzz_replay.c) as a failure. */
#ifndef UPF_FUZZ_COMMON_H
#define UPF_FUZZ_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imageio/image_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 4096 x 4096 and 16 Mpixel: the largest image (16-bit RGBA, 128 MiB) and the libraries'
 * working memory stay well under libFuzzer's 2 GB RSS limit, even with ASan's overhead. */
static const imageio_limits fuzz_limits = { 4096, 4096, (size_t)16 << 20 };

#define FUZZ_NAME "fuzz-input"

static _Noreturn void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
}

/* Checks a reader's result: on failure, nothing allocated and a message naming the input; on
 * success, an image within the limits, of the format and channels the type promises, whose
 * every byte can be read. */
static inline void fuzz_check(upf_result r, imageio_image *im, const char *err, imageio_type type)
{
    if (r != UPF_OK) {
        if (im->img.data)
            fuzz_fail("failed read left pixels allocated");
        if (strncmp(err, FUZZ_NAME ": ", strlen(FUZZ_NAME ": ")) != 0)
            fuzz_fail("error message does not start with the input's name");
        if (r != UPF_ERROR_BAD_DATA && r != UPF_ERROR_UNSUPPORTED && r != UPF_ERROR_OUT_OF_MEMORY)
            fuzz_fail("unexpected error code for a bad file");
        return;
    }
    const upf_image *img = &im->img;
    if (!img->data || im->type != type)
        fuzz_fail("success without pixels or with the wrong type");
    if (img->width < 1 || img->height < 1 || img->width > fuzz_limits.max_width ||
        img->height > fuzz_limits.max_height ||
        (size_t)img->width * (size_t)img->height > fuzz_limits.max_pixels)
        fuzz_fail("image size outside the limits");
    if (img->stride != (size_t)img->width * upf_format_bytes_per_pixel(img->format))
        fuzz_fail("image is not tightly packed");
    size_t count = (size_t)img->width * (size_t)img->height;
    switch (type) {
    case IMAGEIO_PNG:
        if (!((img->format == UPF_FORMAT_RGBA8_SRGB && im->bit_depth == 8) ||
              (img->format == UPF_FORMAT_RGBA16_SRGB && im->bit_depth == 16)) ||
            im->channels < 1 || im->channels > 4)
            fuzz_fail("PNG result has the wrong format, depth or channels");
        break;
    case IMAGEIO_JPEG: {
        if (img->format != UPF_FORMAT_RGBA8_SRGB || im->bit_depth != 8 ||
            (im->channels != 1 && im->channels != 3))
            fuzz_fail("JPEG result has the wrong format, depth or channels");
        const uint8_t *p = img->data;
        for (size_t i = 0; i < count; i++)
            if (p[4 * i + 3] != 255 || (im->channels == 1 && (p[4 * i] != p[4 * i + 1] ||
                                                               p[4 * i] != p[4 * i + 2])))
                fuzz_fail("JPEG pixel not opaque, or a grey pixel not grey");
        break;
    }
    case IMAGEIO_PFM: {
        int ch = im->channels == 3 ? 4 : 1;
        if (im->bit_depth != 32 ||
            !((im->channels == 3 && img->format == UPF_FORMAT_RGBA32F) ||
              (im->channels == 1 && img->format == UPF_FORMAT_R32F)))
            fuzz_fail("PFM result has the wrong format, depth or channels");
        const float *p = img->data;
        for (size_t i = 0; i < count * (size_t)ch; i++)
            if (!isfinite(p[i]) || (ch == 4 && i % 4 == 3 && p[i] != 1.0f))
                fuzz_fail("PFM sample not finite, or alpha not 1");
        break;
    }
    case IMAGEIO_UNKNOWN:
        fuzz_fail("unknown type");
    }
    /* Read every byte, so a buffer smaller than the image shows under ASan. */
    const unsigned char *b = img->data;
    unsigned sum = 0;
    for (size_t i = 0; i < img->stride * (size_t)img->height; i++)
        sum += b[i];
    volatile unsigned sink = sum;
    (void)sink;
}

#endif /* UPF_FUZZ_COMMON_H */
