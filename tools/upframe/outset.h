/* outset.h: the files a sequence command (interpolate, temporal, render) writes into one
 * folder, an "output set", so that nothing there is lost (docs/CLI.md, "What a run writes
 * and removes"):
 *
 *  - every file is written to a temporary beside it and renamed over its name only once
 *    complete (imageio's atomic write);
 *  - before any work, the set knows which of its names were there already; a name that is a
 *    symbolic link (or not a plain file) is refused: the run never writes through a link;
 *    an output folder that is an input folder (or a name that is an input file) is refused;
 *    frames in the folder that the run will not write are named in a note;
 *  - each file's identity (device, inode) is recorded as it lands, with the signals held, so
 *    that a failed or interrupted run removes exactly the files it created and that are still
 *    its own: never a file that was there before (replaced files keep their new, complete
 *    content) and never one another run has put there since; then the folder, if the run
 *    made it and it is empty.
 *
 * Used as: cli_outset_open, cli_outset_add for every name the run will write, the checks
 * (cli_outset_check, cli_outset_refuse_input_dir/_file), then cli_outset_write_png per file
 * (or cli_outset_landed after another writer), and cli_outset_close with the outcome. */
#ifndef UPF_CLI_OUTSET_H
#define UPF_CLI_OUTSET_H

#include <stdbool.h>

#include "upframe.h"

#define CLI_OUTSET_NAME_MAX 40

typedef struct cli_outset cli_outset;

/* Prepares DIR (made if missing; its parent must exist) for at most `capacity` files and puts
 * the set on the undo list. NULL after printing why (*rc: the exit code). */
cli_outset *cli_outset_open(const char *cmd, const char *dir, long capacity, int *rc);

/* Plans one file name inside the folder; returns its index (or -1: over capacity or too
 * long, a bug). */
long cli_outset_add(cli_outset *s, const char *name);

/* Before any work: refuses a planned name that is a symbolic link or not a plain file
 * (exit 2), and notes files in the folder named like the planned ones (digits, then the same
 * suffix) that this run will not write. Returns the exit code. */
int cli_outset_check(const char *cmd, cli_outset *s);

/* Refuses (exit 2) an output folder that is the folder `in_dir`. */
int cli_outset_refuse_input_dir(const char *cmd, const cli_outset *s, const char *in_dir);

/* Refuses (exit 2) a planned name that is the file `in_path` (the same file, by identity). */
int cli_outset_refuse_input_file(const char *cmd, const cli_outset *s, const char *in_path);

/* Writes planned file `index` as an 8-bit PNG (atomically), refusing a symbolic link put there
 * since the check, and records it. Returns the exit code (a failure printed). */
int cli_outset_write_png(const char *cmd, cli_outset *s, long index, const upf_image *img);

/* Records planned file `index` as written by another writer (call with the signals held from
 * before the write until after this call: cli_outset_hold_signals). */
void cli_outset_landed(cli_outset *s, long index);
void cli_outset_hold_signals(cli_outset *s, bool hold);

/* The files this run has written so far (created or replaced). */
long cli_outset_written(const cli_outset *s);

/* Ends the run: on failure removes what the set created and that is still its own (and the
 * folder if made and empty); frees the set. */
void cli_outset_close(cli_outset **s, bool ok);

#endif /* UPF_CLI_OUTSET_H */
