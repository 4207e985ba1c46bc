/* cli.c: shared helpers of the `upframe` subcommands (see cli.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "upframe %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'upframe help %s'.\n", cmd);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

int cli_fail(const char *cmd, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "upframe %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int cli_exit_code(upf_result result)
{
    switch (result) {
    case UPF_OK: return CLI_EXIT_OK;
    case UPF_ERROR_INVALID_ARGUMENT:
    case UPF_ERROR_BAD_DATA:
    case UPF_ERROR_UNSUPPORTED:
    case UPF_ERROR_IO: return CLI_EXIT_BAD_INPUT;
    case UPF_ERROR_OUT_OF_MEMORY:
    case UPF_ERROR_INTERNAL: break;
    }
    return CLI_EXIT_INTERNAL;
}

int cli_fail_upf(const char *cmd, upf_context *ctx, upf_result result)
{
    const char *msg = "";
    upf_context_last_error(ctx, &msg);
    return cli_fail(cmd, cli_exit_code(result), "%s", msg[0] ? msg : upf_result_string(result));
}

bool cli_option(int argc, char **argv, int *i, const char *name, const char **value, int *error,
                const char *cmd)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return false;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return true;
    }
    if (arg[n] != '\0')
        return false;
    if (*i + 1 >= argc) {
        cli_usage(cmd, "option %s needs a value", name);
        *error = 1;
        return true;
    }
    *value = argv[++*i];
    return true;
}

bool cli_flag(char **argv, int i, const char *name)
{
    return strcmp(argv[i], name) == 0;
}

bool cli_parse_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool cli_parse_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool cli_parse_size(const char *s, int *w, int *h)
{
    if (!s)
        return false;
    const char *x = strchr(s, 'x');
    if (!x || x == s)
        return false;
    char wbuf[32];
    size_t n = (size_t)(x - s);
    if (n >= sizeof wbuf)
        return false;
    memcpy(wbuf, s, n);
    wbuf[n] = '\0';
    long lw, lh;
    if (!cli_parse_int(wbuf, 1, UPF_MAX_IMAGE_DIMENSION, &lw) ||
        !cli_parse_int(x + 1, 1, UPF_MAX_IMAGE_DIMENSION, &lh))
        return false;
    *w = (int)lw;
    *h = (int)lh;
    return true;
}

bool cli_parse_rect(const char *s, upf_rect *r)
{
    long v[4];
    const char *p = s;
    for (int k = 0; k < 4; k++) {
        char buf[32];
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if ((k < 3) != (comma != NULL) || n == 0 || n >= sizeof buf)
            return false;
        memcpy(buf, p, n);
        buf[n] = '\0';
        if (!cli_parse_int(buf, k < 2 ? 0 : 1, UPF_MAX_IMAGE_DIMENSION, &v[k]))
            return false;
        p = comma ? comma + 1 : p + n;
    }
    *r = (upf_rect){ (int)v[0], (int)v[1], (int)v[2], (int)v[3] };
    return true;
}

int cli_output_dir(const char *cmd, const char *dir, bool *made)
{
    struct stat st;
    *made = false;
    if (strlen(dir) > 3500)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "output folder path is too long");
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: not a folder", dir);
    } else if (errno == ENOENT) {
        if (mkdir(dir, 0777) != 0)
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: cannot make the folder: %s", dir,
                            strerror(errno));
        *made = true;
    } else {
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: cannot use the folder: %s", dir,
                        strerror(errno));
    }
    if (access(dir, W_OK | X_OK) != 0)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: cannot write into the folder: %s", dir,
                        strerror(errno));
    return CLI_EXIT_OK;
}

static void tool_log(void *priv, upf_log_level level, const char *message)
{
    (void)priv;
    if (level == UPF_LOG_ERROR)
        return; /* the command reports failures itself, with its exit code */
    fprintf(stderr, "upframe: warning: %s\n", message);
}

upf_context *cli_context(const char *cmd, int threads)
{
    /* Errors are printed by the commands themselves (with their exit codes); the log shows
     * warnings only, so nothing is said twice. */
    upf_context *ctx = upf_context_create(upf_context_params(.threads = threads, .log = tool_log,
                                                             .log_level = UPF_LOG_WARN));
    if (!ctx)
        cli_fail(cmd, CLI_EXIT_INTERNAL, "could not create a library context");
    return ctx;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_begin(cli_progress *p, const char *label, bool quiet)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->start = cli_now();
    p->last = 0;
    p->label = label;
}

void cli_progress_update(cli_progress *p, double fraction, const char *fmt, ...)
{
    if (!p->enabled)
        return;
    double now = cli_now();
    if (now - p->last < 0.1 && fraction < 1.0)
        return;
    p->last = now;
    double elapsed = now - p->start;
    fprintf(stderr, "\r\033[K%s: %5.1f%%", p->label, 100.0 * fraction);
    if (fraction > 0.01 && fraction < 1.0)
        fprintf(stderr, ", %.0f s left", elapsed / fraction - elapsed);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs(", ", stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled)
        fprintf(stderr, "\r\033[K");
}

const cli_command *cli_find_command(const char *name)
{
    for (int i = 0; cli_commands[i]; i++)
        if (strcmp(cli_commands[i]->name, name) == 0)
            return cli_commands[i];
    return NULL;
}
