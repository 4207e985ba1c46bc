/* cli.h: what every `upframe` subcommand shares: exit codes and messages, where output goes,
 * the argument walker and the options every command takes, sizes as people write them,
 * checks on outputs before any work, leaving nothing behind on failure or on a signal,
 * progress lines, a JSON writer, batches of files, and the table of subcommands.
 *
 * Exit codes (documented in `upframe help`): 0 success, 1 usage (bad command line),
 * 2 bad input (a file, value or size that cannot be used, an unwritable output),
 * 3 internal (out of memory, a bug). Messages go to stderr as
 * "upframe <command>: <what was wrong> (<what was expected>)".
 *
 * Where output goes (docs/CLI.md):
 *   stdout  what the command is for when that is text (compare's measurements, bench's
 *           table, model info, listings, help, anything asked for with --json), and the
 *           report of a command that makes files (what it wrote, how long it took). With
 *           `-o -` the image itself goes to stdout and that report to stderr.
 *   stderr  progress (on a terminal only), notes on what the tool chose, warnings, errors.
 *   -q      no progress, no notes, no report of files made: only errors, and the text a
 *           command is for (measurements, listings, JSON). */
#ifndef UPF_CLI_H
#define UPF_CLI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "upframe.h"
#include "imageio/image_io.h"

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_USAGE = 1,
    CLI_EXIT_BAD_INPUT = 2,
    CLI_EXIT_INTERNAL = 3
};

#if defined(__GNUC__) || defined(__clang__)
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF(a, b)
#endif

/* A subcommand: `run` gets argv with argv[0] = the command's name. */
typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* one line for `upframe help` */
    const char *help;    /* the full text for `upframe help NAME` */
} cli_command;

/* ---- messages ------------------------------------------------------------------------- */

/* Prints "upframe CMD: message" and "Try 'upframe help CMD'." to stderr; returns 1. */
int cli_usage(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Prints "upframe CMD: message" to stderr and returns `code`. */
int cli_fail(const char *cmd, int code, const char *fmt, ...) CLI_PRINTF(3, 4);

/* The exit code for a library or image I/O result: bad arguments, data, unsupported input
 * and I/O failures are 2 (bad input), out of memory and internal errors 3. */
int cli_exit_code(upf_result result);

/* Reports a failed library call: "upframe CMD: <context message>"; returns its exit code. */
int cli_fail_upf(const char *cmd, upf_context *ctx, upf_result result);

/* "upframe CMD: note: ..." on stderr, unless quiet: what the tool chose for the user (a grey
 * picture written as RGB, an option that does not apply, a file replaced). */
void cli_note(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* "upframe CMD: warning: ..." on stderr, unless quiet: what may make the result wrong (a
 * depth that looks reversed, frames without jitter). */
void cli_warn(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* The report of files made (see the top): printf to stdout, or to stderr once
 * cli_report_to_stderr() was called (the image goes to stdout); nothing when quiet. */
void cli_report(const char *fmt, ...) CLI_PRINTF(1, 2);
void cli_report_to_stderr(void);
bool cli_is_quiet(void);
void cli_set_quiet(bool quiet);

/* "1 model", "2 models": `n` and the singular or plural noun. Returns buf. */
const char *cli_count(char *buf, size_t size, long long n, const char *one, const char *many);

/* ---- arguments ------------------------------------------------------------------------ *
 * A command walks its arguments with a cli_args:
 *
 *     cli_args a;
 *     cli_args_init(&a, cmd, argc, argv);
 *     while (cli_args_next(&a)) {
 *         if (cli_args_positional(&a))       inputs[n++] = a.arg;
 *         else if (cli_common_option(&a, &common, CLI_OPT_THREADS)) {}
 *         else if (cli_args_option(&a, "--scale")) scale_s = a.value;
 *         else if (cli_args_flag(&a, "--json")) json = true;
 *         else return cli_args_unknown(&a);
 *     }
 *     if (a.failed) return CLI_EXIT_USAGE;
 *
 * "--name VALUE" and "--name=VALUE" both work; "--" ends the options (everything after it
 * is positional, even "-x"); "-" alone is positional (standard input or output). */
typedef struct cli_args {
    const char *cmd;
    int argc;
    char **argv;
    int i;               /* the argument being looked at */
    const char *arg;     /* argv[i] */
    const char *value;   /* the value of the option cli_args_option just matched */
    bool options_done;   /* "--" was seen */
    bool failed;         /* a usage message was printed: the command returns CLI_EXIT_USAGE */
} cli_args;

void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv);
bool cli_args_next(cli_args *a);                       /* false at the end or after a failure */
bool cli_args_positional(const cli_args *a);
bool cli_args_option(cli_args *a, const char *name);   /* a missing value fails (usage) */
bool cli_args_flag(const cli_args *a, const char *name);
int cli_args_unknown(cli_args *a);                     /* "unknown option '...'"; returns 1 */
/* The one positional argument a command takes: stores it in *slot, or (a second one) fails
 * with "one WHAT at a time (got 'x' and 'y')". False after a failure. */
bool cli_args_take(cli_args *a, const char **slot, const char *what);

/* The options every command takes. -q/--quiet is always matched; the others when offered. */
typedef struct cli_common {
    bool quiet;            /* -q, --quiet */
    bool json;             /* --json */
    int threads;           /* --threads N: 0 (the default) = one per CPU, else 1..64 */
    size_t max_pixels;     /* --max-pixels N: the largest image read or made (0: default) */
    double max_memory;     /* --max-memory N: the bytes a run may plan to take (0: default) */
} cli_common;

#define CLI_OPT_JSON 0x1u
#define CLI_OPT_THREADS 0x2u
#define CLI_OPT_MAX_PIXELS 0x4u
#define CLI_OPT_MAX_MEMORY 0x8u

/* The default of --max-memory: 8 GiB. */
#define CLI_DEFAULT_MAX_MEMORY (8.0 * 1073741824.0)

bool cli_common_option(cli_args *a, cli_common *c, unsigned offered);

/* The pixel limit in force: --max-pixels, else UPF_DEFAULT_MAX_PIXELS. */
size_t cli_max_pixels(const cli_common *c);

/* Says, before anything is taken, what a run will need: `engine` bytes for `what` (an engine
 * of `w` x `h` frames) plus `pictures` bytes of the tool's own pictures. Beyond the memory
 * limit (--max-memory, default CLI_DEFAULT_MAX_MEMORY) it refuses: exit 2 with the bytes and
 * the option; beyond 2 GB it says so in a note. Returns the exit code. */
int cli_check_memory(const char *cmd, const cli_common *c, const char *what, int w, int h,
                     double engine, double pictures);

/* Older form of the walker, kept for commands written before it: cli_option() matches
 * "--name VALUE" and "--name=VALUE", cli_flag() matches "--name". */
bool cli_option(int argc, char **argv, int *i, const char *name, const char **value, int *error,
                const char *cmd);
bool cli_flag(char **argv, int i, const char *name);

/* ---- values --------------------------------------------------------------------------- */

/* Value parsers: true on success. Ranges are inclusive. */
bool cli_parse_int(const char *s, long lo, long hi, long *out);
bool cli_parse_double(const char *s, double lo, double hi, double *out);
bool cli_parse_size(const char *s, int *w, int *h);            /* "WxH", each 1..16384 */
bool cli_parse_rect(const char *s, upf_rect *r);               /* "X,Y,W,H" */

/* An output size as people write it: "WxH", "Wx" or "xH" (the side left out keeps the
 * input's aspect ratio: 0 in *w or *h). */
bool cli_parse_size_spec(const char *s, int *w, int *h);

/* A scale factor: "2", "2x", "1.5X", in lo..hi. */
bool cli_parse_scale(const char *s, double lo, double hi, double *out);

/* A pixel count: "N", "WxH", or N with K, M or G (x 2^10, 2^20, 2^30), in 1..16384^2. */
bool cli_parse_pixels(const char *s, size_t *out);

/* A byte count: N, or N with K, M, G or T (x 2^10 .. 2^40), in 1..2^50. */
bool cli_parse_bytes(const char *s, double *out);

/* The output size of an in_w x in_h picture for a scale (> 0) or a size spec (a side of 0
 * keeps the aspect ratio, rounded, at least 1). False when a side falls outside
 * 1..UPF_MAX_IMAGE_DIMENSION (the size it would be in *w, *h). */
bool cli_output_size(int in_w, int in_h, double scale, int spec_w, int spec_h, int *w, int *h);

/* "1.5 GB", "312 MB", "64 kB", "12 bytes" (powers of 1000, as disks and `df -H` count). */
const char *cli_bytes_text(char *buf, size_t size, double bytes);

/* ---- files in and out ----------------------------------------------------------------- */

/* Reads an image: a file, or "-" for standard input (PNG, JPEG or PFM, by its content),
 * under the pixel limit. Prints why not (naming other formats: GIF, WebP, BMP, ...) and
 * returns the exit code, CLI_EXIT_OK on success. */
int cli_read_image(const char *cmd, const char *path, const cli_common *c, imageio_image *img);

/* Where an image goes: a .png or .pfm file, or standard output ("-", with the type given by
 * --format or "png:-" / "pfm:-"). */
typedef struct cli_output {
    const char *path;      /* as given; "-" for standard output */
    imageio_type type;     /* IMAGEIO_PNG or IMAGEIO_PFM */
    bool to_stdout;
    bool exists;           /* a file is there and will be replaced */
    imageio_png_compression png; /* how a PNG is compressed (0: fast) */
} cli_output;

/* Checks, before any work is done, that `path` can be written as an image: a .png or .pfm
 * name (or "-" / "png:-" / "pfm:-"; `format`, if not NULL, is --format's "png" or "pfm"),
 * in a folder that exists and that we may write into, not a folder itself. Prints why not
 * (usage: 1; an unwritable place: 2) and returns the exit code. */
int cli_check_output(const char *cmd, const char *path, const char *format, cli_output *out);

/* The same for any file (a model, a log): its folder exists and takes files, it is not a
 * folder itself, its name fits; *exists says a file is there (to be replaced). */
int cli_check_file_output(const char *cmd, const char *path, bool *exists);

/* Writes an image to a checked output (atomically for files). Returns the exit code. */
int cli_write_image(const char *cmd, const cli_output *out, const upf_image *img, int png_bits);

/* A folder to write into (-o DIR of a batch, --debug-passes DIR, render's -o DIR): made if
 * missing (its parent must exist), else it must be a folder we may write into. *made says
 * whether this call made it. Prints why not and returns the exit code. */
int cli_prepare_dir(const char *cmd, const char *what, const char *dir, bool *made);

/* The set of models for --model FILE (NULL path: the built-in set). Says "not a model file"
 * for anything without the model magic (a PNG given by mistake, ...). NULL after printing why
 * (*rc: the exit code). */
upf_models *cli_load_models(const char *cmd, upf_context *ctx, const char *path, int *rc);

/* ---- leaving nothing behind ----------------------------------------------------------- *
 * Files and folders a run makes are listed as they appear and removed if the run fails or is
 * interrupted (SIGINT, SIGTERM, SIGHUP, SIGPIPE), newest first; on success the list is
 * forgotten. Temporaries of unfinished writes are removed on a signal as well
 * (imageio_remove_temporaries). cli_signals_init (main) installs the handlers, which then
 * re-raise the signal, so the exit status still says what killed the run. */
void cli_signals_init(void);
int cli_undo_file(const char *path);      /* returns a handle, or -1 when the list is full */
int cli_undo_dir(const char *path);       /* removed only when empty, after its files */
/* For outputs too many to list (render's frames): fn(priv) runs on failure and from the
 * signal handler, so it may only call async-signal-safe functions (unlink, rmdir, the
 * string functions; cli_undo_join builds a path). */
int cli_undo_callback(void (*fn)(void *priv), void *priv);
void cli_undo_keep(int handle);           /* this one worked: keep it */
void cli_undo_now(void);                  /* the run failed: remove everything listed */
void cli_undo_forget(void);               /* the run worked: keep everything */
/* dir + "/" + a + b into buf (async-signal-safe); false if it does not fit. */
bool cli_undo_join(char *buf, size_t size, const char *dir, const char *a, const char *b);

/* The PNGs a run writes into one folder (DIR/STEM.png, stems of up to CLI_STEM_MAX - 1
 * characters), listed before each is written, so that cli_written_remove (given to
 * cli_undo_callback) removes them, and the folder when the run made it, on a failure or a
 * signal. Read from the signal handler too: atomics and unlink only. `stem` holds room for
 * every file the run may write. */
#define CLI_STEM_MAX 24
typedef struct cli_written {
    const char *dir;
    char (*stem)[CLI_STEM_MAX];
    atomic_int count;
    bool made_dir;
} cli_written;

void cli_written_remove(void *priv);

/* Lists DIR/STEM.png in `w`, then writes `img` there (8-bit PNG, atomically). Returns the exit
 * code (a failure printed). */
int cli_written_png(const char *cmd, cli_written *w, const char *stem, const upf_image *img);

/* ---- batches ------------------------------------------------------------------------- */

/* The images a batch works on: the files named, and the images (.png, .jpg, .jpeg, .pfm)
 * directly inside any folder named, in name order. Prints why not and returns the exit code. */
typedef struct cli_inputs {
    char **paths;
    int count;
} cli_inputs;

int cli_collect_inputs(const char *cmd, char *const *args, int n, cli_inputs *out);
void cli_inputs_free(cli_inputs *in);

/* DIR/NAME.EXT for the input `in` (its file name, the extension replaced by `ext`, e.g.
 * "png"); false if it does not fit. */
bool cli_output_in_dir(const char *dir, const char *in, const char *ext, char *out, size_t size);

/* ---- context, timing, progress -------------------------------------------------------- */

/* A library context for the tool: warnings and errors to stderr (as "upframe: ..."), `threads`
 * workers (0: one per CPU). Returns NULL after printing why. */
upf_context *cli_context(const char *cmd, int threads);

/* The same with the common options' threads and pixel limit. */
upf_context *cli_context_for(const char *cmd, const cli_common *c);

/* The Vulkan device UPF_VK_DEVICE picks: unset or empty -1 (the tool's choice), else a
 * device number 0..255; anything else is refused (exit 2, printed). Returns the exit code. */
int cli_vk_device(const char *cmd, int *index);

/* Monotonic seconds. */
double cli_now(void);

/* A progress line on stderr, rewritten in place, only when stderr is a terminal (quiet when
 * piped, with `quiet` or with -q), at most ~10 times a second. */
typedef struct cli_progress {
    bool enabled;
    double start, last;
    const char *label;
} cli_progress;

void cli_progress_begin(cli_progress *p, const char *label, bool quiet);
void cli_progress_update(cli_progress *p, double fraction, const char *fmt, ...) CLI_PRINTF(3, 4);
void cli_progress_end(cli_progress *p);

/* ---- JSON ---------------------------------------------------------------------------- *
 * A streaming writer: objects and arrays nest, keys are given inside objects (NULL inside
 * arrays and at the top), commas are placed for you. Numbers are written exactly (the
 * shortest text that reads back to the same double); a NaN or infinite number is written as
 * null (say why beside it, e.g. "rgb_infinite": true). Strings are escaped. */
typedef struct cli_json {
    FILE *f;
    int depth;
    bool first[32];   /* nothing written yet at this depth */
    char close[32];   /* the bracket that ends this depth */
} cli_json;

void cli_json_begin(cli_json *j, FILE *f);
void cli_json_object(cli_json *j, const char *key);
void cli_json_array(cli_json *j, const char *key);
void cli_json_close(cli_json *j);                  /* ends the innermost object or array */
void cli_json_number(cli_json *j, const char *key, double v);
void cli_json_int(cli_json *j, const char *key, long long v);
void cli_json_string(cli_json *j, const char *key, const char *s);
void cli_json_bool(cli_json *j, const char *key, bool v);
void cli_json_null(cli_json *j, const char *key);
void cli_json_end(cli_json *j);                    /* after the top value: a newline */
void cli_json_size(cli_json *j, int w, int h);    /* "size": [w, h] */

/* Every command, in the order `upframe help` lists them (main.c). */
extern const cli_command *const cli_commands[];
const cli_command *cli_find_command(const char *name);

#endif /* UPF_CLI_H */
