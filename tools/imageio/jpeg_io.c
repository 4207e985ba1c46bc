/* jpeg_io.c: JPEG files, read only. Decodes a JPEG in memory with libjpeg-turbo into
 * RGBA8_SRGB (alpha 255); greyscale files are expanded to RGB. CMYK and YCCK files (print,
 * not screens) are refused as unsupported.
 *
 * libjpeg reports errors through a callback that must not return; ours longjmps back to the
 * reader, which frees everything and returns the message. Its warnings (corrupt data,
 * extraneous bytes, a premature end of the file) are errors here too: a damaged file gives
 * an error, never a silently patched picture. The size is checked against the caller's
 * limits once the header is read, before anything is decompressed, and a progressive file
 * may have at most JPEG_MAX_SCANS scans (more is a known way to make decoding take minutes).
 * Data after the EOI marker is ignored; EXIF orientation and ICC profiles are not applied.
 * JPEG has no checksums: damage that still decodes (a flipped bit in the entropy-coded data,
 * mostly) gives a damaged picture without an error, as in every JPEG decoder. */
#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE and size_t first */
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "imageio/image_io.h"
#include "imageio/imageio_internal.h"

/* The most scans a progressive JPEG may have; libjpeg-turbo's TurboJPEG API suggests the
 * same figure for its scan limit. Real encoders write about 10. */
#define JPEG_MAX_SCANS 500

/* One decode: the input, where the result and message go, and libjpeg's state. */
typedef struct jpeg_reader {
    struct jpeg_error_mgr mgr; /* first, so a j_common_ptr's err is this struct */
    struct jpeg_progress_mgr progress;
    struct jpeg_decompress_struct cinfo;
    jmp_buf jump;
    const unsigned char *data;
    size_t size;
    const char *name;
    const imageio_limits *limits;
    imageio_image *out;
    char *err;
    int msg_code;              /* the libjpeg message that stopped us */
    char message[JMSG_LENGTH_MAX];
} jpeg_reader;

static void jpeg_on_error(j_common_ptr cinfo)
{
    jpeg_reader *rd = (jpeg_reader *)cinfo->err;
    rd->msg_code = rd->mgr.msg_code;
    rd->mgr.format_message(cinfo, rd->message);
    longjmp(rd->jump, 1);
}

/* level -1 is a warning (corrupt data): stop, as for an error. Levels >= 0 are trace
 * messages: ignore them. */
static void jpeg_on_message(j_common_ptr cinfo, int level)
{
    if (level < 0)
        jpeg_on_error(cinfo);
}

/* libjpeg would print messages to stderr; a reader never prints. */
static void jpeg_on_output(j_common_ptr cinfo)
{
    (void)cinfo;
}

static void jpeg_on_progress(j_common_ptr cinfo)
{
    jpeg_reader *rd = (jpeg_reader *)cinfo->err;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (cinfo->is_decompressor && d->input_scan_number > JPEG_MAX_SCANS) {
        rd->msg_code = -1;
        snprintf(rd->message, sizeof rd->message, "more than %d scans", JPEG_MAX_SCANS);
        longjmp(rd->jump, 1);
    }
}

static const char *jpeg_space_name(J_COLOR_SPACE cs)
{
    switch (cs) {
    case JCS_CMYK: return "CMYK";
    case JCS_YCCK: return "YCCK";
    case JCS_GRAYSCALE: return "greyscale";
    case JCS_RGB: return "RGB";
    case JCS_YCbCr: return "YCbCr";
    default: return "unknown";
    }
}

/* Decodes rd->data into rd->out. Everything the error path reads is in *rd (memory that
 * longjmp leaves alone), so nothing here is clobbered by the jump. */
static upf_result jpeg_decode(jpeg_reader *rd)
{
    struct jpeg_decompress_struct *cinfo = &rd->cinfo;
    cinfo->err = jpeg_std_error(&rd->mgr);
    rd->mgr.error_exit = jpeg_on_error;
    rd->mgr.emit_message = jpeg_on_message;
    rd->mgr.output_message = jpeg_on_output;
    if (setjmp(rd->jump)) {
        upf_result code = rd->msg_code == JERR_OUT_OF_MEMORY ? UPF_ERROR_OUT_OF_MEMORY
                                                             : UPF_ERROR_BAD_DATA;
        if (rd->msg_code == JWRN_JPEG_EOF || rd->msg_code == JERR_INPUT_EOF ||
            rd->msg_code == JERR_INPUT_EMPTY)
            imageio__fail(rd->err, code, "%s: JPEG file is truncated (%s); expected a complete "
                          "JPEG file", rd->name, rd->message);
        else if (rd->msg_code == -1)
            imageio__fail(rd->err, code, "%s: JPEG has %s; expected at most %d", rd->name,
                          rd->message, JPEG_MAX_SCANS);
        else {
            /* libjpeg's warnings already start "Corrupt JPEG data: "; say it once. */
            const char *msg = rd->message, *prefix = "Corrupt JPEG data: ";
            if (strncmp(msg, prefix, strlen(prefix)) == 0)
                msg += strlen(prefix);
            imageio__fail(rd->err, code, "%s: corrupt JPEG: %s; expected an undamaged JPEG "
                          "file", rd->name, msg);
        }
        jpeg_destroy_decompress(cinfo);
        imageio_free(rd->out);
        return code;
    }
    jpeg_create_decompress(cinfo);
    rd->progress.progress_monitor = jpeg_on_progress;
    cinfo->progress = &rd->progress;
    jpeg_mem_src(cinfo, rd->data, (unsigned long)rd->size);
    jpeg_read_header(cinfo, TRUE);

    upf_result r = UPF_OK;
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK)
        r = imageio__fail(rd->err, UPF_ERROR_UNSUPPORTED, "%s: JPEG is %s; expected a greyscale "
                          "or colour (RGB/YCbCr) JPEG", rd->name,
                          jpeg_space_name(cinfo->jpeg_color_space));
    else if (cinfo->num_components != 1 && cinfo->num_components != 3)
        r = imageio__fail(rd->err, UPF_ERROR_UNSUPPORTED, "%s: JPEG has %d components; expected "
                          "1 (greyscale) or 3 (colour)", rd->name, cinfo->num_components);
    if (r == UPF_OK)
        r = imageio__check_size(rd->name, rd->limits, cinfo->image_width, cinfo->image_height,
                                rd->err);
    if (r != UPF_OK) {
        jpeg_destroy_decompress(cinfo);
        return r;
    }

    cinfo->out_color_space = JCS_EXT_RGBA; /* libjpeg-turbo: RGB plus an opaque alpha byte */
    jpeg_start_decompress(cinfo);
    if (cinfo->output_width != cinfo->image_width || cinfo->output_height != cinfo->image_height ||
        cinfo->output_components != 4) {
        imageio__fail(rd->err, UPF_ERROR_INTERNAL, "%s: libjpeg decodes to %ux%u x %d channels; "
                      "expected %ux%u x 4", rd->name, cinfo->output_width, cinfo->output_height,
                      cinfo->output_components, cinfo->image_width, cinfo->image_height);
        jpeg_destroy_decompress(cinfo);
        return UPF_ERROR_INTERNAL;
    }
    r = imageio_alloc(rd->out, (int)cinfo->output_width, (int)cinfo->output_height,
                      UPF_FORMAT_RGBA8_SRGB, rd->err);
    if (r != UPF_OK) {
        jpeg_destroy_decompress(cinfo);
        return r;
    }
    upf_image *img = &rd->out->img;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = (JSAMPROW)((unsigned char *)img->data +
                                  (size_t)cinfo->output_scanline * img->stride);
        if (jpeg_read_scanlines(cinfo, &row, 1) != 1) /* only a suspending source does this */
            break;
    }
    if (cinfo->output_scanline < cinfo->output_height) {
        imageio__fail(rd->err, UPF_ERROR_INTERNAL, "%s: libjpeg stopped at row %u of %u",
                      rd->name, cinfo->output_scanline, cinfo->output_height);
        jpeg_destroy_decompress(cinfo);
        imageio_free(rd->out);
        return UPF_ERROR_INTERNAL;
    }
    /* Reads on to the EOI marker, so damage after the last row is found too. */
    jpeg_finish_decompress(cinfo);
    rd->out->type = IMAGEIO_JPEG;
    rd->out->bit_depth = 8;
    rd->out->channels = cinfo->num_components;
    jpeg_destroy_decompress(cinfo);
    return UPF_OK;
}

upf_result imageio_read_jpeg_mem(const void *data, size_t size, const char *name,
                                 const imageio_limits *limits, imageio_image *out, char *err)
{
    upf_result begin = imageio__begin_read("imageio_read_jpeg_mem", data, size, &name, out, err);
    if (begin != UPF_OK)
        return begin;
    if (imageio_detect(data, size) != IMAGEIO_JPEG)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: not a JPEG file (no start-of-image "
                             "marker); expected a file starting with FF D8 FF", name);
    if (size > (unsigned long)-1)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: JPEG of %zu bytes is too large; "
                             "expected at most %lu", name, size, (unsigned long)-1);
    jpeg_reader *rd = calloc(1, sizeof *rd);
    if (!rd)
        return imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory for the JPEG "
                             "decoder", name);
    rd->data = data;
    rd->size = size;
    rd->name = name;
    rd->limits = limits;
    rd->out = out;
    rd->err = err;
    upf_result r = jpeg_decode(rd);
    free(rd);
    return r;
}
