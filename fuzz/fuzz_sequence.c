/* fuzz_sequence.c: libFuzzer harness for the frame-sequence reader (seq_scan, seq_read_frame):
 * the input is a folder of files in memory (fuzz_archive.h); every frame found is read under the
 * reduced limits. On success the frame's images must be the sidecar's size and of the formats
 * promised; on failure a message naming the folder and nothing left allocated. */
#include "fuzz_archive.h"
#include "fuzz_common.h"
#include "sequence/sequence.h"

typedef struct mem_folder {
    archive_file file[ARCHIVE_MAX_FILES];
    int count;
} mem_folder;

static upf_result mem_list(void *priv, void (*add)(void *list, const char *name), void *list,
                           char *err)
{
    (void)err;
    const mem_folder *m = priv;
    for (int i = 0; i < m->count; i++)
        add(list, m->file[i].name);
    return UPF_OK;
}

static upf_result mem_read(void *priv, const char *name, size_t max, void **data, size_t *size,
                           bool *missing, char *err)
{
    const mem_folder *m = priv;
    for (int i = 0; i < m->count; i++) {
        if (strcmp(m->file[i].name, name) != 0)
            continue;
        *missing = false;
        if (m->file[i].size > max) {
            snprintf(err, IMAGEIO_ERR_SIZE, FUZZ_NAME "/%s: too large", name);
            return UPF_ERROR_BAD_DATA;
        }
        *data = malloc(m->file[i].size ? m->file[i].size : 1);
        if (!*data)
            return UPF_ERROR_OUT_OF_MEMORY;
        memcpy(*data, m->file[i].data, m->file[i].size);
        *size = m->file[i].size;
        return UPF_OK;
    }
    *missing = true;
    snprintf(err, IMAGEIO_ERR_SIZE, FUZZ_NAME "/%s: no such file", name);
    return UPF_ERROR_IO;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static mem_folder m;
    m.count = archive_parse(data, size, m.file);
    seq_fs fs = { &m, mem_list, mem_read, FUZZ_NAME };
    seq_list list;
    char err[IMAGEIO_ERR_SIZE] = "";
    upf_result r = seq_scan(&fs, &list, err);
    if (r != UPF_OK) {
        if (strncmp(err, FUZZ_NAME, strlen(FUZZ_NAME)) != 0 || list.count || list.number)
            fuzz_fail("a failed scan without a message naming the folder, or with a list");
        return 0;
    }
    for (int i = 1; i < list.count; i++)
        if (list.number[i] <= list.number[i - 1])
            fuzz_fail("frames not in ascending order");
    for (int k = 0; k < list.count && k < 4; k++) {
        seq_frame f;
        err[0] = '\0';
        r = seq_read_frame(&fs, &list, k, &fuzz_limits, &f, err);
        if (r != UPF_OK) {
            if (strncmp(err, FUZZ_NAME, strlen(FUZZ_NAME)) != 0)
                fuzz_fail("a failed frame without a message naming the folder");
            if (f.color.img.data || f.depth.img.data || f.motion.img.data)
                fuzz_fail("a failed frame left images allocated");
            continue;
        }
        const int w = f.side.width, h = f.side.height;
        if (f.color.img.width != w || f.color.img.height != h || f.depth.img.width != w ||
            f.depth.img.height != h || f.depth.img.format != UPF_FORMAT_R32F ||
            f.color.img.format == UPF_FORMAT_R32F ||
            (f.has_motion && (f.motion.img.width != w || f.motion.img.height != h ||
                              f.motion.img.format != UPF_FORMAT_RG32F)) ||
            (!f.has_motion && f.motion.img.data))
            fuzz_fail("a frame's images do not match its sidecar");
        const float *mv = f.motion.img.data;
        for (size_t i = 0; f.has_motion && i < (size_t)w * h * 2; i++)
            if (!isfinite(mv[i]))
                fuzz_fail("a motion vector not finite");
        seq_frame_free(&f);
    }
    seq_list_free(&list);
    return 0;
}
