/* image_file.c: what every image reader and writer shares: type detection, whole-file reads,
 * atomic writes (temporary file + rename), and owned image buffers. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imageio/image_io.h"
#include "imageio/imageio_internal.h"

upf_result imageio__fail(char *err, upf_result code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, IMAGEIO_ERR_SIZE, fmt, ap);
        va_end(ap);
    }
    return code;
}

upf_result imageio__begin_read(const char *fn, const void *data, size_t size, const char **name,
                               imageio_image *out, char *err)
{
    if (!out)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    memset(out, 0, sizeof *out);
    if (!*name)
        *name = "<memory>";
    if (!data && size)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: data is NULL but size is %zu",
                             *name, size);
    return UPF_OK;
}

imageio_type imageio_detect(const void *data, size_t size)
{
    const unsigned char *p = data;
    static const unsigned char png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    if (size >= 8 && memcmp(p, png_sig, 8) == 0)
        return IMAGEIO_PNG;
    if (size >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
        return IMAGEIO_JPEG;
    if (size >= 2 && p[0] == 'P' && (p[1] == 'F' || p[1] == 'f'))
        return IMAGEIO_PFM;
    return IMAGEIO_UNKNOWN;
}

imageio_type imageio_type_from_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return IMAGEIO_UNKNOWN;
    if (strcasecmp(dot, ".png") == 0)
        return IMAGEIO_PNG;
    if (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0)
        return IMAGEIO_JPEG;
    if (strcasecmp(dot, ".pfm") == 0)
        return IMAGEIO_PFM;
    return IMAGEIO_UNKNOWN;
}

const char *imageio_type_name(imageio_type type)
{
    switch (type) {
    case IMAGEIO_PNG: return "PNG";
    case IMAGEIO_JPEG: return "JPEG";
    case IMAGEIO_PFM: return "PFM";
    case IMAGEIO_UNKNOWN: break;
    }
    return "unknown";
}

upf_result imageio__check_size(const char *name, const imageio_limits *limits, long long width,
                               long long height, char *err)
{
    long long max_w = limits && limits->max_width > 0 ? limits->max_width : UPF_MAX_IMAGE_DIMENSION;
    long long max_h = limits && limits->max_height > 0 ? limits->max_height : UPF_MAX_IMAGE_DIMENSION;
    unsigned long long max_px = limits && limits->max_pixels
                                    ? (unsigned long long)limits->max_pixels
                                    : (unsigned long long)UPF_MAX_IMAGE_DIMENSION * UPF_MAX_IMAGE_DIMENSION;
    if (width < 1 || height < 1 || width > max_w || height > max_h)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: image is %lldx%lld pixels; expected "
                             "1..%lld wide and 1..%lld high", name, width, height, max_w, max_h);
    if ((unsigned long long)width * (unsigned long long)height > max_px)
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: image is %lldx%lld = %llu pixels; "
                             "expected at most %llu", name, width, height,
                             (unsigned long long)width * (unsigned long long)height, max_px);
    return UPF_OK;
}

upf_result imageio__check_write(const char *path, const upf_image *img, char *err)
{
    if (!path || !*path)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "output path is %s; expected a "
                             "file name", path ? "empty" : "NULL");
    if (!img)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: image is NULL", path);
    size_t bpp = upf_format_bytes_per_pixel(img->format);
    if (!bpp)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: image has format %d; expected "
                             "a upf_format", path, (int)img->format);
    if (img->width < 1 || img->height < 1 || img->width > UPF_MAX_IMAGE_DIMENSION ||
        img->height > UPF_MAX_IMAGE_DIMENSION)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: image is %dx%d; expected each "
                             "side in 1..%d", path, img->width, img->height,
                             UPF_MAX_IMAGE_DIMENSION);
    if (img->stride && img->stride < (size_t)img->width * bpp)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: image stride is %zu bytes; "
                             "expected at least a row, %zu", path, img->stride,
                             (size_t)img->width * bpp);
    if (!img->data)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "%s: image has no pixels (data is "
                             "NULL)", path);
    return UPF_OK;
}

upf_result imageio_alloc(imageio_image *out, int width, int height, upf_format format, char *err)
{
    memset(out, 0, sizeof *out);
    size_t bpp = upf_format_bytes_per_pixel(format);
    if (!bpp || width < 1 || height < 1)
        return imageio__fail(err, UPF_ERROR_INVALID_ARGUMENT, "cannot allocate a %dx%d %s image",
                             width, height, upf_format_name(format));
    size_t bytes = (size_t)width * (size_t)height * bpp;
    void *data = calloc(1, bytes);
    if (!data)
        return imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "out of memory for a %dx%d %s image "
                             "(%zu bytes)", width, height, upf_format_name(format), bytes);
    out->img = (upf_image){ data, width, height, (size_t)width * bpp, format };
    return UPF_OK;
}

void imageio_free(imageio_image *img)
{
    if (!img)
        return;
    free(img->img.data);
    memset(img, 0, sizeof *img);
}

upf_result imageio_slurp(const char *path, size_t max_size, void **data, size_t *size, char *err)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return imageio__fail(err, UPF_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return imageio__fail(err, UPF_ERROR_IO, "%s: not a regular file", path);
    }
    if ((unsigned long long)st.st_size > max_size) {
        fclose(f);
        return imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: file is %lld bytes; expected at most "
                             "%zu", path, (long long)st.st_size, max_size);
    }
    size_t n = (size_t)st.st_size;
    unsigned char *buf = malloc(n ? n : 1);
    if (!buf) {
        fclose(f);
        return imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory reading %zu bytes",
                             path, n);
    }
    size_t got = fread(buf, 1, n, f);
    int read_error = ferror(f);
    fclose(f);
    if (got != n || read_error) {
        free(buf);
        return imageio__fail(err, UPF_ERROR_IO, "%s: read %zu of %zu bytes", path, got, n);
    }
    *data = buf;
    *size = n;
    return UPF_OK;
}

upf_result imageio__tmp_open(const char *path, char *tmp_path, size_t tmp_size, FILE **out,
                             char *err)
{
    *out = NULL;
    int n = snprintf(tmp_path, tmp_size, "%s.tmp-XXXXXX", path);
    if (n < 0 || (size_t)n >= tmp_size)
        return imageio__fail(err, UPF_ERROR_IO, "%s: path is too long", path);
    int fd = mkstemp(tmp_path);
    if (fd < 0)
        return imageio__fail(err, UPF_ERROR_IO, "%s: cannot create a file there: %s", path,
                             strerror(errno));
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp_path);
        return imageio__fail(err, UPF_ERROR_IO, "%s: cannot open for writing: %s", path,
                             strerror(e));
    }
    *out = f;
    return UPF_OK;
}

upf_result imageio__tmp_commit(FILE *f, const char *tmp_path, const char *path, bool ok,
                               char *err)
{
    /* Close (which flushes) first: a full disk often shows only here. */
    bool write_error = ferror(f) != 0;
    int saved = errno;
    if (fclose(f) != 0) {
        write_error = true;
        saved = errno;
    }
    if (!ok || write_error) {
        unlink(tmp_path);
        if (!ok)
            return UPF_ERROR_IO; /* the caller has written the message */
        return imageio__fail(err, UPF_ERROR_IO, "%s: write failed: %s", path, strerror(saved));
    }
    /* mkstemp makes the file 0600; give it the usual permissions (umask applies). */
    mode_t mask = umask(0);
    umask(mask);
    chmod(tmp_path, 0666 & ~mask);
    if (rename(tmp_path, path) != 0) {
        int e = errno;
        unlink(tmp_path);
        return imageio__fail(err, UPF_ERROR_IO, "%s: cannot rename the finished file into "
                             "place: %s", path, strerror(e));
    }
    return UPF_OK;
}

upf_result imageio_write_file_atomic(const char *path, const void *data, size_t size, char *err)
{
    char tmp[4096];
    FILE *f;
    upf_result r = imageio__tmp_open(path, tmp, sizeof tmp, &f, err);
    if (r != UPF_OK)
        return r;
    bool ok = fwrite(data, 1, size, f) == size;
    if (!ok)
        imageio__fail(err, UPF_ERROR_IO, "%s: write failed: %s", path, strerror(errno));
    return imageio__tmp_commit(f, tmp, path, ok, err);
}
