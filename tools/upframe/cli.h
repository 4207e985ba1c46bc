/* cli.h: what every `upframe` subcommand shares: exit codes, error messages, option parsing,
 * a progress line, timing, and the table of subcommands.
 *
 * Exit codes (documented in `upframe help`): 0 success, 1 usage (bad command line),
 * 2 bad input (a file, value or size that cannot be used, an unwritable output),
 * 3 internal (out of memory, a bug). Messages go to stderr as
 * "upframe <command>: <what was wrong> (<what was expected>)". */
#ifndef UPF_CLI_H
#define UPF_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "upframe.h"

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

/* Prints "upframe CMD: message" and "Try 'upframe help CMD'." to stderr; returns 1. */
int cli_usage(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Prints "upframe CMD: message" to stderr and returns `code`. */
int cli_fail(const char *cmd, int code, const char *fmt, ...) CLI_PRINTF(3, 4);

/* The exit code for a library or image I/O result: bad arguments, data, unsupported input
 * and I/O failures are 2 (bad input), out of memory and internal errors 3. */
int cli_exit_code(upf_result result);

/* Reports a failed library call: "upframe CMD: <context message>"; returns its exit code. */
int cli_fail_upf(const char *cmd, upf_context *ctx, upf_result result);

/* ---- option parsing ----------------------------------------------------------------- *
 * A command walks argv with an index. cli_option() matches "--name VALUE" and
 * "--name=VALUE"; cli_flag() matches "--name". Anything else starting with '-' is unknown
 * and the command says so with cli_usage(). */

/* If argv[*i] is option `name` with a value, sets *value, advances *i past it and returns
 * true. A missing value is reported (usage) through *error = 1. */
bool cli_option(int argc, char **argv, int *i, const char *name, const char **value, int *error,
                const char *cmd);
bool cli_flag(char **argv, int i, const char *name);

/* Value parsers: true on success. Ranges are inclusive. */
bool cli_parse_int(const char *s, long lo, long hi, long *out);
bool cli_parse_double(const char *s, double lo, double hi, double *out);
bool cli_parse_size(const char *s, int *w, int *h);            /* "WxH", each 1..16384 */
bool cli_parse_rect(const char *s, upf_rect *r);               /* "X,Y,W,H" */

/* Makes sure `dir` is a folder the command can write into, making it when it is missing (its
 * parent must exist); *made says whether it did. Returns 0 or, after printing why, 2. */
int cli_output_dir(const char *cmd, const char *dir, bool *made);

/* ---- context, timing, progress -------------------------------------------------------- */

/* A library context for the tool: warnings and errors to stderr (as "upframe: ..."), `threads`
 * workers (0: one per CPU). Returns NULL after printing why. */
upf_context *cli_context(const char *cmd, int threads);

/* Monotonic seconds. */
double cli_now(void);

/* A progress line on stderr, rewritten in place, only when stderr is a terminal (quiet when
 * piped or with `quiet`), at most ~10 times a second. */
typedef struct cli_progress {
    bool enabled;
    double start, last;
    const char *label;
} cli_progress;

void cli_progress_begin(cli_progress *p, const char *label, bool quiet);
void cli_progress_update(cli_progress *p, double fraction, const char *fmt, ...) CLI_PRINTF(3, 4);
void cli_progress_end(cli_progress *p);

/* Every command, in the order `upframe help` lists them (main.c). */
extern const cli_command *const cli_commands[];
const cli_command *cli_find_command(const char *name);

#endif /* UPF_CLI_H */
