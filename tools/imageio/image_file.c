/* image_file.c: what every image reader and writer shares: type detection, whole-file reads,
 * atomic writes (temporary file + rename), and owned image buffers. */
#define _XOPEN_SOURCE 700 /* realpath (POSIX.1-2008, declared by glibc under X/Open) */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
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
                                    : (unsigned long long)UPF_DEFAULT_MAX_PIXELS;
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
    /* Zeroed and untouched; a big one in huge pages from its first byte to its last (calloc's
     * block would start mid-way into one, and its edges take 4 KiB faults). */
    void *data = upf__pages_calloc(bytes);
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
    upf__pages_free(img->img.data);
    memset(img, 0, sizeof *img);
}

/* A pipe (a FIFO, process substitution's /dev/fd/N, a character device) read to its end, at
 * most max_size bytes. */
static upf_result slurp_stream(FILE *f, const char *path, size_t max_size, void **data,
                               size_t *size, char *err)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    upf_result r = buf ? UPF_OK : imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of "
                                                "memory", path);
    while (r == UPF_OK) {
        if (n == cap) {
            unsigned char *grown = cap <= max_size / 2 + 1 ? realloc(buf, 2 * cap) : NULL;
            if (!grown) {
                r = cap > max_size / 2 + 1
                        ? imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: more than %zu bytes from "
                                        "the pipe; expected at most that", path, max_size)
                        : imageio__fail(err, UPF_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
                break;
            }
            buf = grown, cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0 && ferror(f))
            r = imageio__fail(err, UPF_ERROR_IO, "%s: read failed: %s", path, strerror(errno));
        else if (got == 0)
            break;
    }
    if (r == UPF_OK && n > max_size)
        r = imageio__fail(err, UPF_ERROR_BAD_DATA, "%s: %zu bytes from the pipe; expected at "
                          "most %zu", path, n, max_size);
    fclose(f);
    if (r != UPF_OK) {
        free(buf);
        return r;
    }
    *data = buf;
    *size = n;
    return UPF_OK;
}

upf_result imageio_slurp(const char *path, size_t max_size, void **data, size_t *size, char *err)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return imageio__fail(err, UPF_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ||
                                       S_ISSOCK(st.st_mode)))
        return slurp_stream(f, path, max_size, data, size, err);
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return imageio__fail(err, UPF_ERROR_IO, "%s: not a regular file%s", path,
                             S_ISDIR(st.st_mode) ? " (a folder)" : "");
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

/* ---- temporaries in flight --------------------------------------------------------------- *
 * Every temporary an unfinished write holds is listed here, so that a signal handler can
 * remove them (imageio_remove_temporaries). A slot is 0 (free), 1 (being filled or emptied)
 * or 2 (holds a path the handler may unlink); the path is complete before the slot turns 2.
 * With every slot taken a write still works, only without that protection. */
#define TEMP_SLOTS 32
static struct temp_slot {
    atomic_int state;
    char path[4096];
} temp_slots[TEMP_SLOTS];

static int temp_register(const char *path)
{
    size_t n = strlen(path);
    if (n >= sizeof temp_slots[0].path)
        return -1;
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&temp_slots[i].state, &expected, 1)) {
            memcpy(temp_slots[i].path, path, n + 1);
            atomic_store(&temp_slots[i].state, 2);
            return i;
        }
    }
    return -1;
}

static void temp_forget(int slot)
{
    if (slot >= 0)
        atomic_store(&temp_slots[slot].state, 0);
}

static int temp_slot_of(const char *tmp_path)
{
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temp_slots[i].state) == 2 && strcmp(temp_slots[i].path, tmp_path) == 0)
            return i;
    return -1;
}

void imageio_remove_temporaries(void)
{
    /* Only async-signal-safe calls here (unlink), and no locks. */
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temp_slots[i].state) == 2)
            unlink(temp_slots[i].path);
}

/* The file an output path names: itself, or for a symbolic link to an existing file the file
 * it points at (so writing through the link replaces the picture, not the link). */
static void resolve_target(const char *path, char *out, size_t size)
{
    struct stat st;
    char *real = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        real = realpath(path, NULL);
    snprintf(out, size, "%s", real && strlen(real) < size ? real : path);
    free(real);
}

upf_result imageio__tmp_open(const char *path, char *tmp_path, size_t tmp_size, FILE **out,
                             char *err)
{
    *out = NULL;
    /* DIR/.NAME.tmp-XXXXXX beside the target (a rename stays inside one file system), hidden,
     * with at most 64 characters of NAME so that a long file name still leaves room. */
    char target[4096];
    resolve_target(path, target, sizeof target);
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    int dir_len = slash ? (int)(slash - target + 1) : 0;
    /* The name is listed for the signal handler before the file exists (mkstemp would make
     * it first, and a signal in between would leave it behind): pick a name, list it, then
     * create it exclusively; on a clash, try another. */
    static atomic_uint counter;
    int fd = -1, slot = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        uint64_t z = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL) ^
                     (uint64_t)atomic_fetch_add(&counter, 1) << 32 ^ (uint64_t)clock();
        z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
        z ^= z >> 29;
        static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        char tag[7];
        for (int i = 0; i < 6; i++, z /= 62)
            tag[i] = digits[z % 62];
        tag[6] = '\0';
        int n = snprintf(tmp_path, tmp_size, "%.*s.%.64s.tmp-%s", dir_len, target, base, tag);
        if (n < 0 || (size_t)n >= tmp_size)
            return imageio__fail(err, UPF_ERROR_IO, "%s: path is too long (%zu characters; "
                                 "expected at most %zu)", path, strlen(path), tmp_size - 80);
        slot = temp_register(tmp_path);
        fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0) {
            int e = errno;
            temp_forget(slot);
            if (e != EEXIST)
                return imageio__fail(err, UPF_ERROR_IO, "%s: cannot create a file there: %s",
                                     path, strerror(e));
        }
    }
    if (fd < 0)
        return imageio__fail(err, UPF_ERROR_IO, "%s: cannot create a temporary file beside it "
                             "(100 names taken)", path);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp_path);
        temp_forget(slot);
        return imageio__fail(err, UPF_ERROR_IO, "%s: cannot open for writing: %s", path,
                             strerror(e));
    }
    *out = f;
    return UPF_OK;
}

upf_result imageio__tmp_commit(FILE *f, const char *tmp_path, const char *path, bool ok,
                               char *err)
{
    int slot = temp_slot_of(tmp_path);
    /* Close (which flushes) first: a full disk often shows only here. */
    bool write_error = ferror(f) != 0;
    int saved = errno;
    if (fclose(f) != 0) {
        write_error = true;
        saved = errno;
    }
    if (!ok || write_error) {
        unlink(tmp_path);
        temp_forget(slot);
        if (!ok)
            return UPF_ERROR_IO; /* the caller has written the message */
        return imageio__fail(err, UPF_ERROR_IO, "%s: write failed: %s", path, strerror(saved));
    }
    /* The temporary is made 0600: give it the mode of the file it replaces, else the usual
     * permissions (umask applies). */
    char target[4096];
    resolve_target(path, target, sizeof target);
    struct stat st;
    mode_t mode;
    if (stat(target, &st) == 0 && S_ISREG(st.st_mode)) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    chmod(tmp_path, mode);
    if (rename(tmp_path, target) != 0) {
        int e = errno;
        unlink(tmp_path);
        temp_forget(slot);
        return imageio__fail(err, UPF_ERROR_IO, "%s: cannot rename the finished file into "
                             "place: %s", path, strerror(e));
    }
    temp_forget(slot); /* after the rename: a signal in between finds nothing to remove */
    return UPF_OK;
}

upf_result imageio__write_atomic(const char *path, const upf_image *img, int bits,
                                 const void *settings, imageio_stream_writer write, char *err)
{
    upf_result r = imageio__check_write(path, img, err);
    if (r != UPF_OK)
        return r;
    char tmp[4096];
    FILE *f;
    r = imageio__tmp_open(path, tmp, sizeof tmp, &f, err);
    if (r != UPF_OK)
        return r;
    r = write(f, path, img, bits, settings, err);
    upf_result c = imageio__tmp_commit(f, tmp, path, r == UPF_OK, err);
    return r != UPF_OK ? r : c;
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
