/* jpeg_make.h: a JPEG encoded in memory with libjpeg, for the tests that need one (test_imageio,
 * test_cli_messages). Include after stdio.h (test_util.h). */
#ifndef UPF_TEST_JPEG_MAKE_H
#define UPF_TEST_JPEG_MAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jpeglib.h>

/* A JPEG being encoded into memory: jpeg_enc_begin sets libjpeg up for w x h samples of comps
 * channels (grey 1, RGB 3, CMYK 4) with its defaults, which the caller may change before
 * jpeg_enc_end writes the rows and returns the file. */
typedef struct jpeg_enc {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr jerr;
    unsigned char *buf;
    unsigned long len;
} jpeg_enc;

static void jpeg_enc_begin(jpeg_enc *e, int w, int h, int comps)
{
    e->c.err = jpeg_std_error(&e->jerr);
    jpeg_create_compress(&e->c);
    e->buf = NULL;
    e->len = 0;
    jpeg_mem_dest(&e->c, &e->buf, &e->len);
    e->c.image_width = (JDIMENSION)w;
    e->c.image_height = (JDIMENSION)h;
    e->c.input_components = comps;
    e->c.in_color_space = comps == 1 ? JCS_GRAYSCALE : comps == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&e->c);
}

static unsigned char *jpeg_enc_end(jpeg_enc *e, const uint8_t *samples, size_t *size)
{
    const size_t stride = (size_t)e->c.image_width * (size_t)e->c.input_components;
    jpeg_start_compress(&e->c, TRUE);
    while (e->c.next_scanline < e->c.image_height) {
        JSAMPROW row = (JSAMPROW)(samples + (size_t)e->c.next_scanline * stride);
        jpeg_write_scanlines(&e->c, &row, 1);
    }
    jpeg_finish_compress(&e->c);
    jpeg_destroy_compress(&e->c);
    *size = e->len;
    return e->buf;
}

/* Encodes a JPEG with libjpeg: RGB (3), grey (1) or CMYK (4) samples. */
static unsigned char *jpeg_make(const uint8_t *samples, int w, int h, int comps, int quality,
                                bool progressive, size_t *size)
{
    jpeg_enc e;
    jpeg_enc_begin(&e, w, h, comps);
    jpeg_set_quality(&e.c, quality, TRUE);
    if (progressive)
        jpeg_simple_progression(&e.c);
    return jpeg_enc_end(&e, samples, size);
}

#endif /* UPF_TEST_JPEG_MAKE_H */
