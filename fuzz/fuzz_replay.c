/* fuzz_replay.c: a plain main() that feeds files to a libFuzzer harness, so the seed corpora
 * and the saved crashers are regression tests in every build (gcc included, no libFuzzer).
 *
 *   fuzz_replay_<reader> PATH...   each PATH a file, or a folder whose files are fed in name
 *                                  order (names starting with '.' are skipped)
 *
 * A harness that finds a broken invariant aborts, failing the test. Exits 1 if no file at
 * all was fed (so an empty or misplaced corpus cannot pass), 0 otherwise. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "imageio/image_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* the harness linked in */

static int fed;

static int feed_file(const char *path)
{
    void *data;
    size_t size;
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_slurp(path, (size_t)64 << 20, &data, &size, err) != UPF_OK) {
        fprintf(stderr, "fuzz_replay: %s\n", err);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    fed++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int feed_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz_replay: cannot open folder %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                abort();
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n])
            abort();
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad |= feed_file(names[i]);
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz_replay: %s does not exist\n", argv[i]);
            bad = 1;
        } else if (S_ISDIR(st.st_mode)) {
            bad |= feed_dir(argv[i]);
        } else {
            bad |= feed_file(argv[i]);
        }
    }
    printf("fuzz_replay: %d files fed, all invariants held\n", fed);
    if (fed == 0) {
        fprintf(stderr, "fuzz_replay: no files fed; expected a corpus\n");
        return 1;
    }
    return bad;
}
