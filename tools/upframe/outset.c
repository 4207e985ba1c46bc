/* outset.c: the output set of outset.h. Reads: the output folder's listing and the identity
 * (lstat) of each planned name. Writes: the PNGs through imageio's atomic write; on failure
 * or a signal removes the files the set created that still carry the identity it recorded.
 * The removal runs in the signal handler too: atomics, lstat, unlink and rmdir only. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outset.h"

typedef struct outset_file {
    char name[CLI_OUTSET_NAME_MAX];
    bool existed;        /* there before the run: never removed */
    atomic_int landed;   /* 1 once dev/ino hold the file this run put there */
    dev_t dev;
    ino_t ino;
} outset_file;

struct cli_outset {
    char dir[3600];
    bool made_dir;
    long count, capacity;
    outset_file *file;
    int undo;
    sigset_t old_mask;
};

static bool path_of(const cli_outset *s, const char *name, char *buf, size_t size)
{
    return cli_undo_join(buf, size, s->dir, name, "");
}

/* Async-signal-safe: the undo callback. */
static void outset_remove(void *priv)
{
    cli_outset *s = priv;
    char p[4096];
    for (long i = s->count - 1; i >= 0; i--) {
        outset_file *f = &s->file[i];
        struct stat st;
        if (f->existed || !atomic_load(&f->landed) || !path_of(s, f->name, p, sizeof p))
            continue;
        if (lstat(p, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino)
            unlink(p);
        atomic_store(&f->landed, 0);
    }
    if (s->made_dir)
        rmdir(s->dir);
}

cli_outset *cli_outset_open(const char *cmd, const char *dir, long capacity, int *rc)
{
    cli_outset *s = calloc(1, sizeof *s);
    outset_file *file = capacity > 0 ? calloc((size_t)capacity, sizeof *file) : NULL;
    if (!s || !file || strlen(dir) >= sizeof s->dir) {
        *rc = cli_fail(cmd, s && file ? CLI_EXIT_BAD_INPUT : CLI_EXIT_INTERNAL,
                       s && file ? "-o %s: the path is too long" : "out of memory", dir);
        free(s);
        free(file);
        return NULL;
    }
    memcpy(s->dir, dir, strlen(dir) + 1);
    s->file = file;
    s->capacity = capacity;
    *rc = cli_prepare_dir(cmd, "-o", dir, &s->made_dir);
    s->undo = *rc == CLI_EXIT_OK ? cli_undo_callback(outset_remove, s) : -1;
    if (*rc != CLI_EXIT_OK) {
        free(s->file);
        free(s);
        return NULL;
    }
    return s;
}

long cli_outset_add(cli_outset *s, const char *name)
{
    if (s->count >= s->capacity || strlen(name) >= CLI_OUTSET_NAME_MAX)
        return -1;
    outset_file *f = &s->file[s->count];
    memcpy(f->name, name, strlen(name) + 1);
    atomic_init(&f->landed, 0);
    return s->count++;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The part of a frame's name after its leading digits (at least 4), or NULL. */
static const char *frame_suffix(const char *name)
{
    size_t d = strspn(name, "0123456789");
    return d >= 4 && name[d] == '.' ? name + d : NULL;
}

/* Notes the files named like the planned frames that the run will not write (item: a folder
 * that would otherwise mix two runs' frames without a word). */
static int note_strays(const char *cmd, const cli_outset *s)
{
    const char **sorted = malloc((size_t)(s->count ? s->count : 1) * sizeof *sorted);
    if (!sorted)
        return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory");
    for (long i = 0; i < s->count; i++)
        sorted[i] = s->file[i].name;
    qsort(sorted, (size_t)s->count, sizeof *sorted, compare_names);
    DIR *d = opendir(s->dir);
    long strays = 0;
    char first[CLI_OUTSET_NAME_MAX + 1] = "", last[CLI_OUTSET_NAME_MAX + 1] = "";
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *suffix = frame_suffix(e->d_name), *key = e->d_name;
        bool ours_kind = false;
        for (long i = 0; suffix && i < s->count && !ours_kind; i++) {
            const char *fs = frame_suffix(s->file[i].name);
            ours_kind = fs && strcmp(fs, suffix) == 0;
        }
        if (!ours_kind || bsearch(&key, sorted, (size_t)s->count, sizeof *sorted, compare_names))
            continue;
        if (strays == 0 || strcmp(e->d_name, first) < 0)
            snprintf(first, sizeof first, "%.*s", CLI_OUTSET_NAME_MAX, e->d_name);
        if (strays == 0 || strcmp(e->d_name, last) > 0)
            snprintf(last, sizeof last, "%.*s", CLI_OUTSET_NAME_MAX, e->d_name);
        strays++;
    }
    if (d)
        closedir(d);
    free(sorted);
    if (strays)
        cli_note(cmd, "%s holds %ld frame file%s this run does not write (%s%s%s), from an "
                 "earlier run: they stay, and the folder then mixes two runs", s->dir, strays,
                 strays == 1 ? "" : "s", first, strays > 1 ? " .. " : "",
                 strays > 1 ? last : "");
    return CLI_EXIT_OK;
}

int cli_outset_check(const char *cmd, cli_outset *s)
{
    char p[4096];
    long replaced = 0;
    for (long i = 0; i < s->count; i++) {
        outset_file *f = &s->file[i];
        struct stat st;
        if (!path_of(s, f->name, p, sizeof p))
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s/%s: the path is too long", s->dir,
                            f->name);
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode))
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s is a symbolic link; expected a file "
                            "or nothing there (a run never writes through a link: remove it, "
                            "or choose another folder)", p);
        if (!S_ISREG(st.st_mode))
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s is not a plain file; expected a file "
                            "or nothing there", p);
        f->existed = true;
        replaced++;
    }
    if (replaced)
        cli_note(cmd, "replacing %ld file%s in %s", replaced, replaced == 1 ? "" : "s", s->dir);
    return note_strays(cmd, s);
}

int cli_outset_refuse_input_dir(const char *cmd, const cli_outset *s, const char *in_dir)
{
    struct stat a, b;
    if (stat(in_dir, &a) == 0 && stat(s->dir, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "-o %s is the input folder %s: the run would "
                        "replace its inputs as it reads them; expected another folder",
                        s->dir, in_dir);
    return CLI_EXIT_OK;
}

int cli_outset_refuse_input_file(const char *cmd, const cli_outset *s, const char *in_path)
{
    struct stat a, b;
    char p[4096];
    if (stat(in_path, &a) != 0)
        return CLI_EXIT_OK;
    for (long i = 0; i < s->count; i++)
        if (path_of(s, s->file[i].name, p, sizeof p) && stat(p, &b) == 0 &&
            a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s, an output of this run, is the input "
                            "%s: it would be replaced before it is read; expected another "
                            "folder", p, in_path);
    return CLI_EXIT_OK;
}

void cli_outset_hold_signals(cli_outset *s, bool hold)
{
    if (hold) {
        sigset_t stop;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        sigaddset(&stop, SIGHUP);
        sigaddset(&stop, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &stop, &s->old_mask);
    } else {
        pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
    }
}

void cli_outset_landed(cli_outset *s, long index)
{
    char p[4096];
    struct stat st;
    outset_file *f = &s->file[index];
    if (path_of(s, f->name, p, sizeof p) && lstat(p, &st) == 0) {
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        atomic_store(&f->landed, 1);
    }
}

int cli_outset_write_png(const char *cmd, cli_outset *s, long index, const upf_image *img)
{
    char p[4096], err[IMAGEIO_ERR_SIZE];
    struct stat st;
    if (index < 0 || index >= s->count || !path_of(s, s->file[index].name, p, sizeof p))
        return cli_fail(cmd, CLI_EXIT_INTERNAL, "output %ld of %ld not planned", index,
                        s->count);
    if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s became a symbolic link during the run; "
                        "expected a file or nothing there (a run never writes through a link)",
                        p);
    /* The file lands and is recorded as one step: a signal waits in between, so the handler
     * never sees a file of this run that it does not know. */
    cli_outset_hold_signals(s, true);
    upf_result r = imageio_write_png(p, img, 8, err);
    if (r == UPF_OK)
        cli_outset_landed(s, index);
    cli_outset_hold_signals(s, false);
    return r == UPF_OK ? CLI_EXIT_OK : cli_fail(cmd, cli_exit_code(r), "%s", err);
}

long cli_outset_written(const cli_outset *s)
{
    long n = 0;
    for (long i = 0; i < s->count; i++)
        n += atomic_load(&s->file[i].landed);
    return n;
}

void cli_outset_close(cli_outset **sp, bool ok)
{
    cli_outset *s = *sp;
    if (!s)
        return;
    cli_undo_keep(s->undo); /* off the undo list first: the handler must not read freed memory */
    if (!ok)
        outset_remove(s);
    free(s->file);
    free(s);
    *sp = NULL;
}
