/* jpeg_make.h: a JPEG encoded in memory with libjpeg, for the tests that need one (test_imageio,
 * test_cli_messages). Include after stdio.h (test_util.h). */
#ifndef UPF_TEST_JPEG_MAKE_H
#define UPF_TEST_JPEG_MAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jpeglib.h>

/* Encodes a JPEG with libjpeg: RGB (3), grey (1) or CMYK (4) samples. */
static unsigned char *jpeg_make(const uint8_t *samples, int w, int h, int comps, int quality,
                                bool progressive, size_t *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr jerr;
    c.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&c);
    unsigned char *buf = NULL;
    unsigned long len = 0;
    jpeg_mem_dest(&c, &buf, &len);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = comps;
    c.in_color_space = comps == 1 ? JCS_GRAYSCALE : comps == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    if (progressive)
        jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(samples + (size_t)c.next_scanline * w * comps);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *size = len;
    return buf;
}

#endif /* UPF_TEST_JPEG_MAKE_H */
