/* fuzz_archive.h: the in-memory folder of the sequence fuzzer: a fuzz input is a list of files,
 * each record one byte of name length, the name, four bytes of little-endian size and the
 * bytes. fuzz_sequence.c reads it (a truncated record ends the list); make_corpus.c writes the
 * seeds with archive_put. */
#ifndef UPF_FUZZ_ARCHIVE_H
#define UPF_FUZZ_ARCHIVE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARCHIVE_MAX_FILES 64

typedef struct archive_file {
    char name[256];
    const uint8_t *data;
    size_t size;
} archive_file;

/* Splits `data` into at most ARCHIVE_MAX_FILES files; returns their count. */
static inline int archive_parse(const uint8_t *data, size_t size, archive_file *files)
{
    int n = 0;
    size_t at = 0;
    while (n < ARCHIVE_MAX_FILES && at < size) {
        size_t len = data[at++];
        if (size - at < len + 4)
            break;
        memcpy(files[n].name, data + at, len);
        files[n].name[len] = '\0';
        at += len;
        uint32_t fs = (uint32_t)data[at] | (uint32_t)data[at + 1] << 8 |
                      (uint32_t)data[at + 2] << 16 | (uint32_t)data[at + 3] << 24;
        at += 4;
        if (fs > size - at)
            fs = (uint32_t)(size - at);
        files[n].data = data + at;
        files[n].size = fs;
        at += fs;
        n++;
    }
    return n;
}

/* Appends one record to f. */
static inline void archive_put(FILE *f, const char *name, const void *data, size_t size)
{
    size_t len = strlen(name);
    uint8_t head[4] = { (uint8_t)size, (uint8_t)(size >> 8), (uint8_t)(size >> 16),
                        (uint8_t)(size >> 24) };
    fputc((int)len, f);
    fwrite(name, 1, len, f);
    fwrite(head, 1, 4, f);
    fwrite(data, 1, size, f);
}

#endif
