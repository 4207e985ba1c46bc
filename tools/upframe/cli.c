/* cli.c: shared helpers of the `upframe` subcommands (see cli.h): messages and the report,
 * the argument walker and common options, value parsers, image files in and out (standard
 * input and output included), the undo list and the signal handlers, batches, progress and
 * JSON. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- messages and the report ------------------------------------------------------------ */

static bool quiet_flag;
static bool report_on_stderr;

bool cli_is_quiet(void)
{
    return quiet_flag;
}

void cli_set_quiet(bool quiet)
{
    quiet_flag = quiet;
}

void cli_report_to_stderr(void)
{
    report_on_stderr = true;
}

void cli_report(const char *fmt, ...)
{
    if (quiet_flag)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(report_on_stderr ? stderr : stdout, fmt, ap);
    va_end(ap);
}

/* "upframe CMD: KIND: message" on stderr, unless --quiet. */
static void remark(const char *cmd, const char *kind, const char *fmt, va_list ap)
{
    if (quiet_flag)
        return;
    fprintf(stderr, "upframe %s: %s: ", cmd, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_note(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    remark(cmd, "note", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    remark(cmd, "warning", fmt, ap);
    va_end(ap);
}

const char *cli_count(char *buf, size_t size, long long n, const char *one, const char *many)
{
    snprintf(buf, size, "%lld %s", n, n == 1 ? one : many);
    return buf;
}

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

/* ---- arguments ---------------------------------------------------------------------------- */

void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv)
{
    *a = (cli_args){ .cmd = cmd, .argc = argc, .argv = argv, .i = 0 };
}

bool cli_args_next(cli_args *a)
{
    if (a->failed)
        return false;
    a->value = NULL;
    a->i++;
    if (!a->options_done && a->i < a->argc && strcmp(a->argv[a->i], "--") == 0) {
        a->options_done = true;
        a->i++;
    }
    if (a->i >= a->argc)
        return false;
    a->arg = a->argv[a->i];
    return true;
}

bool cli_args_positional(const cli_args *a)
{
    return a->options_done || a->arg[0] != '-' || a->arg[1] == '\0';
}

bool cli_args_option(cli_args *a, const char *name)
{
    if (cli_args_positional(a))
        return false;
    size_t n = strlen(name);
    if (strncmp(a->arg, name, n) != 0)
        return false;
    if (a->arg[n] == '=') {
        a->value = a->arg + n + 1;
        return true;
    }
    if (a->arg[n] != '\0')
        return false;
    if (a->i + 1 >= a->argc) {
        cli_usage(a->cmd, "option %s needs a value", name);
        a->failed = true;
        return true;
    }
    a->value = a->argv[++a->i];
    return true;
}

bool cli_args_flag(const cli_args *a, const char *name)
{
    return !cli_args_positional(a) && strcmp(a->arg, name) == 0;
}

int cli_args_unknown(cli_args *a)
{
    a->failed = true;
    if (cli_args_positional(a))
        return cli_usage(a->cmd, "unexpected argument '%s'", a->arg);
    return cli_usage(a->cmd, "unknown option '%s'", a->arg);
}

bool cli_args_take(cli_args *a, const char **slot, const char *what)
{
    if (*slot) {
        cli_usage(a->cmd, "one %s at a time (got '%s' and '%s')", what, *slot, a->arg);
        a->failed = true;
        return false;
    }
    *slot = a->arg;
    return true;
}

bool cli_common_option(cli_args *a, cli_common *c, unsigned offered)
{
    if (cli_args_flag(a, "-q") || cli_args_flag(a, "--quiet")) {
        c->quiet = true;
        cli_set_quiet(true);
        return true;
    }
    if ((offered & CLI_OPT_JSON) && cli_args_flag(a, "--json")) {
        c->json = true;
        return true;
    }
    if ((offered & CLI_OPT_THREADS) && cli_args_option(a, "--threads")) {
        long t = 0;
        if (a->failed)
            return true;
        if (!cli_parse_int(a->value, 0, 64, &t)) {
            cli_usage(a->cmd, "--threads '%s' must be 0 (one per CPU) or 1..64", a->value);
            a->failed = true;
        }
        c->threads = (int)t;
        return true;
    }
    if ((offered & CLI_OPT_MAX_PIXELS) && cli_args_option(a, "--max-pixels")) {
        if (a->failed)
            return true;
        if (!cli_parse_pixels(a->value, &c->max_pixels)) {
            cli_usage(a->cmd, "--max-pixels '%s' must be a pixel count (N, WxH, or N with K, M "
                      "or G) in 1..%lld (16384x16384)", a->value,
                      (long long)UPF_MAX_IMAGE_DIMENSION * UPF_MAX_IMAGE_DIMENSION);
            a->failed = true;
        }
        return true;
    }
    if ((offered & CLI_OPT_MAX_MEMORY) && cli_args_option(a, "--max-memory")) {
        if (a->failed)
            return true;
        if (!cli_parse_bytes(a->value, &c->max_memory)) {
            cli_usage(a->cmd, "--max-memory '%s' must be a byte count (N, or N with K, M, G or "
                      "T) in 1..2^50", a->value);
            a->failed = true;
        }
        return true;
    }
    return false;
}

size_t cli_max_pixels(const cli_common *c)
{
    return c && c->max_pixels ? c->max_pixels : UPF_DEFAULT_MAX_PIXELS;
}

int cli_check_memory(const char *cmd, const cli_common *c, const char *what, int w, int h,
                     double engine, double pictures)
{
    const double limit = c && c->max_memory > 0 ? c->max_memory : CLI_DEFAULT_MAX_MEMORY;
    const double total = engine + pictures;
    char t[32], e[32], p[32], l[32];
    cli_bytes_text(t, sizeof t, total);
    cli_bytes_text(e, sizeof e, engine);
    cli_bytes_text(p, sizeof p, pictures);
    cli_bytes_text(l, sizeof l, limit);
    if (total > limit)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%dx%d frames need about %s (%s %s, %s of "
                        "pictures), more than the memory limit of %s; expected smaller "
                        "frames, or raise the limit with --max-memory (e.g. --max-memory %.0fM)",
                        w, h, t, what, e, p, l, ceil(total / 1048576.0 * 1.05));
    if (total > 2e9)
        cli_note(cmd, "%dx%d frames take about %s (%s %s, %s of pictures)", w, h, t, what, e, p);
    return CLI_EXIT_OK;
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

/* ---- values ------------------------------------------------------------------------------- */

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

/* A side of a size: empty (then 0, when `empty_ok`) or 1..UPF_MAX_IMAGE_DIMENSION. */
static bool parse_side(const char *s, size_t n, bool empty_ok, int *out)
{
    char buf[32];
    if (n == 0) {
        *out = 0;
        return empty_ok;
    }
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    long v;
    if (buf[0] < '0' || buf[0] > '9' || !cli_parse_int(buf, 1, UPF_MAX_IMAGE_DIMENSION, &v))
        return false;
    *out = (int)v;
    return true;
}

bool cli_parse_size(const char *s, int *w, int *h)
{
    const char *x = s ? strchr(s, 'x') : NULL;
    if (!x)
        return false;
    int a, b;
    if (!parse_side(s, (size_t)(x - s), false, &a) || !parse_side(x + 1, strlen(x + 1), false, &b))
        return false;
    *w = a;
    *h = b;
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

bool cli_parse_size_spec(const char *s, int *w, int *h)
{
    const char *x = s ? strchr(s, 'x') : NULL;
    if (!x)
        return false;
    int a, b;
    if (!parse_side(s, (size_t)(x - s), true, &a) || !parse_side(x + 1, strlen(x + 1), true, &b) ||
        (a == 0 && b == 0))
        return false;
    *w = a;
    *h = b;
    return true;
}

bool cli_parse_scale(const char *s, double lo, double hi, double *out)
{
    if (!s)
        return false;
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n + 1);
    if (buf[n - 1] == 'x' || buf[n - 1] == 'X')
        buf[n - 1] = '\0';
    return cli_parse_double(buf, lo, hi, out);
}

bool cli_parse_pixels(const char *s, size_t *out)
{
    const unsigned long long max = (unsigned long long)UPF_MAX_IMAGE_DIMENSION *
                                   UPF_MAX_IMAGE_DIMENSION;
    int w, h;
    if (s && strchr(s, 'x')) {
        if (!cli_parse_size(s, &w, &h))
            return false;
        *out = (size_t)w * (size_t)h;
        return true;
    }
    if (!s || !*s || *s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (errno || *end || v == 0 || v > (max >> shift))
        return false;
    *out = (size_t)(v << shift);
    return true;
}

bool cli_parse_bytes(const char *s, double *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    unsigned shift = u ? 10u * (unsigned)(u - units + 1) : 0;
    if (u)
        end++;
    if (errno || *end || v == 0 || v > (1ull << (50 - shift)))
        return false;
    *out = (double)v * (double)(1ull << shift);
    return true;
}

bool cli_output_size(int in_w, int in_h, double scale, int spec_w, int spec_h, int *w, int *h)
{
    double ow, oh;
    if (scale > 0) {
        ow = floor(in_w * scale + 0.5);
        oh = floor(in_h * scale + 0.5);
    } else {
        ow = spec_w ? spec_w : floor((double)in_w * spec_h / in_h + 0.5);
        oh = spec_h ? spec_h : floor((double)in_h * spec_w / in_w + 0.5);
        ow = ow < 1 ? 1 : ow;
        oh = oh < 1 ? 1 : oh;
    }
    *w = ow > INT32_MAX ? INT32_MAX : (int)ow;
    *h = oh > INT32_MAX ? INT32_MAX : (int)oh;
    return ow >= 1 && oh >= 1 && ow <= UPF_MAX_IMAGE_DIMENSION && oh <= UPF_MAX_IMAGE_DIMENSION;
}

const char *cli_bytes_text(char *buf, size_t size, double bytes)
{
    if (bytes >= 1e9)
        snprintf(buf, size, "%.1f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        snprintf(buf, size, "%.0f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        snprintf(buf, size, "%.0f kB", bytes / 1e3);
    else
        snprintf(buf, size, "%.0f byte%s", bytes, bytes == 1 ? "" : "s");
    return buf;
}

/* ---- files in and out --------------------------------------------------------------------- */

/* All of standard input, at most `max` bytes. */
static int read_stdin(const char *cmd, size_t max, void **data, size_t *size)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory reading standard input");
    for (;;) {
        if (n == cap) {
            if (cap >= max) {
                free(buf);
                return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "standard input: more than %zu bytes; "
                                "expected at most that for an image within the pixel limit "
                                "(--max-pixels)", max);
            }
            cap = cap > max / 2 ? max : cap * 2;
            unsigned char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory reading standard input");
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0) {
            if (ferror(stdin)) {
                int e = errno;
                free(buf);
                return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "standard input: read failed: %s",
                                strerror(e));
            }
            break;
        }
    }
    *data = buf;
    *size = n;
    return CLI_EXIT_OK;
}

int cli_read_image(const char *cmd, const char *path, const cli_common *c, imageio_image *img)
{
    char err[IMAGEIO_ERR_SIZE];
    imageio_limits limits = { 0, 0, cli_max_pixels(c) };
    upf_result r;
    if (strcmp(path, "-") == 0) {
        if (isatty(STDIN_FILENO))
            return cli_fail(cmd, CLI_EXIT_USAGE, "'-' reads the image from standard input, "
                            "which is a terminal; expected a pipe or a redirect (< in.png)");
        void *data = NULL;
        size_t size = 0;
        /* As many bytes as the largest file imageio_read takes: 12 a pixel, plus 64 MiB. */
        size_t max = limits.max_pixels > (SIZE_MAX - (64u << 20)) / 12
                         ? SIZE_MAX
                         : limits.max_pixels * 12 + (64u << 20);
        int rc = read_stdin(cmd, max, &data, &size);
        if (rc != CLI_EXIT_OK)
            return rc;
        r = imageio_read_mem(data, size, "standard input", &limits, img, err);
        free(data);
    } else {
        r = imageio_read(path, &limits, img, err);
    }
    if (r != UPF_OK) {
        if (strstr(err, "pixels; expected at most"))
            return cli_fail(cmd, cli_exit_code(r), "%s (raise the limit with --max-pixels)", err);
        return cli_fail(cmd, cli_exit_code(r), "%s", err);
    }
    return CLI_EXIT_OK;
}

int cli_check_output(const char *cmd, const char *path, const char *format, cli_output *out)
{
    *out = (cli_output){ .path = path };
    imageio_type want = IMAGEIO_UNKNOWN;
    if (format) {
        if (strcasecmp(format, "png") == 0)
            want = IMAGEIO_PNG;
        else if (strcasecmp(format, "pfm") == 0)
            want = IMAGEIO_PFM;
        else
            return cli_usage(cmd, "--format '%s': expected png or pfm", format);
    }
    if (strcmp(path, "-") == 0 || strcasecmp(path, "png:-") == 0 ||
        strcasecmp(path, "pfm:-") == 0) {
        imageio_type prefix = path[0] == '-' ? IMAGEIO_UNKNOWN
                              : (path[1] == 'n' || path[1] == 'N') ? IMAGEIO_PNG
                                                                   : IMAGEIO_PFM;
        if (prefix && want && prefix != want)
            return cli_usage(cmd, "output '%s' and --format %s disagree", path, format);
        out->type = prefix ? prefix : want ? want : IMAGEIO_PNG;
        out->to_stdout = true;
        out->path = "-";
        if (isatty(STDOUT_FILENO))
            return cli_usage(cmd, "'-' writes the image to standard output, which is a "
                             "terminal; redirect it (> out.png) or pipe it");
        return CLI_EXIT_OK;
    }
    out->type = imageio_type_from_path(path);
    if (out->type != IMAGEIO_PNG && out->type != IMAGEIO_PFM)
        return cli_usage(cmd, "output '%s' must end in .png or .pfm (or be '-' for standard "
                         "output)", path);
    if (want && want != out->type)
        return cli_usage(cmd, "output '%s' and --format %s disagree (--format is for '-')",
                         path, format);
    return cli_check_file_output(cmd, path, &out->exists);
}

int cli_check_file_output(const char *cmd, const char *path, bool *exists)
{
    *exists = false;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (strlen(base) > 255)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: the file name is %zu characters; expected "
                        "at most 255", path, strlen(base));
    char dir[4096];
    if (slash) {
        size_t n = (size_t)(slash - path);
        if (n >= sizeof dir)
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: the path is too long", path);
        memcpy(dir, path, n);
        dir[n] = '\0';
        if (n == 0)
            strcpy(dir, "/");
    } else {
        strcpy(dir, ".");
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s is a folder; expected a file name (or "
                            "use -o DIR with several inputs)", path);
        *exists = true;
    }
    if (stat(dir, &st) != 0)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "cannot write %s: the folder %s %s", path, dir,
                        errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "cannot write %s: %s is not a folder", path,
                        dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "cannot write %s: no permission to write into "
                        "the folder %s (%s)", path, dir, strerror(errno));
    return CLI_EXIT_OK;
}

int cli_write_image(const char *cmd, const cli_output *out, const upf_image *img, int png_bits)
{
    char err[IMAGEIO_ERR_SIZE];
    upf_result r;
    if (out->to_stdout) {
        imageio_png_settings set = imageio_png_preset(out->png);
        r = out->type == IMAGEIO_PFM
                ? imageio_write_pfm_stream(stdout, "standard output", img, err)
                : imageio_write_png_stream_with(stdout, "standard output", img, png_bits, &set,
                                                err);
        errno = 0;
        if (r == UPF_OK && fflush(stdout) != 0) {
            r = UPF_ERROR_IO;
            snprintf(err, sizeof err, "standard output: write failed: %s",
                     strerror(errno ? errno : EIO));
        }
    } else {
        r = imageio_write_with(out->path, img, png_bits, out->png, err);
    }
    return r == UPF_OK ? CLI_EXIT_OK : cli_fail(cmd, cli_exit_code(r), "%s", err);
}

int cli_prepare_dir(const char *cmd, const char *what, const char *dir, bool *made)
{
    struct stat st;
    *made = false;
    if (strlen(dir) > 3500)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s %s: the path is too long", what, dir);
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s %s: not a folder", what, dir);
    } else if (errno == ENOENT) {
        if (mkdir(dir, 0777) != 0)
            return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s %s: cannot make the folder: %s", what,
                            dir, strerror(errno));
        *made = true;
    } else {
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s %s: cannot use the folder: %s", what, dir,
                        strerror(errno));
    }
    if (access(dir, W_OK | X_OK) != 0)
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s %s: cannot write into the folder: %s",
                        what, dir, strerror(errno));
    return CLI_EXIT_OK;
}

/* The first bytes of every model file (docs/MODELS.md). */
static const char model_magic[8] = { 'U', 'P', 'F', 'M', 'O', 'D', 'E', 'L' };
#define MODEL_FILE_MAX ((size_t)1 << 20) /* seven models take ~115 KB */

upf_models *cli_load_models(const char *cmd, upf_context *ctx, const char *path, int *rc)
{
    *rc = CLI_EXIT_OK;
    if (!path) {
        upf_models *m = upf_models_default(ctx);
        if (!m)
            *rc = cli_fail_upf(cmd, ctx, upf_context_last_error(ctx, NULL));
        return m;
    }
    /* The magic first: a picture or any other file given by mistake is named as such, not
     * measured against the model size limit. */
    unsigned char head[16] = { 0 };
    FILE *f = fopen(path, "rb");
    if (!f) {
        *rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got < sizeof model_magic || memcmp(head, model_magic, sizeof model_magic) != 0) {
        const char *kind = imageio_format_name(head, got);
        *rc = cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: not a model file (%s%s); expected a file "
                       "starting with \"UPFMODEL\" (docs/MODELS.md; 'upframe model import' "
                       "makes one from raw weights)", path, kind ? "it is a " : "no UPFMODEL "
                       "magic", kind ? kind : "");
        return NULL;
    }
    void *data;
    size_t size;
    char err[IMAGEIO_ERR_SIZE];
    upf_result r = imageio_slurp(path, MODEL_FILE_MAX, &data, &size, err);
    if (r != UPF_OK) {
        *rc = cli_fail(cmd, cli_exit_code(r), "%s", err);
        return NULL;
    }
    upf_models *m = upf_models_load(ctx, data, size);
    free(data);
    if (!m) {
        const char *msg = "";
        r = upf_context_last_error(ctx, &msg);
        *rc = cli_fail(cmd, cli_exit_code(r), "%s: %s", path, msg);
    }
    return m;
}

/* ---- the undo list and the signals ---------------------------------------------------- *
 * Fixed slots, so the signal handler reads nothing that is being freed: state 0 free, 1 being
 * filled or emptied, 2 live (the handler acts on these only). */
enum { UNDO_FILE = 1, UNDO_DIR, UNDO_CALLBACK };
#define UNDO_SLOTS 64
static struct undo_slot {
    atomic_int state;
    int kind;
    char path[4096];
    void (*fn)(void *);
    void *priv;
} undo_slots[UNDO_SLOTS];
static atomic_int undo_top; /* slots in use are below this */

static int undo_add(int kind, const char *path, void (*fn)(void *), void *priv)
{
    size_t n = path ? strlen(path) : 0;
    if (n >= sizeof undo_slots[0].path)
        return -1;
    int top = atomic_load(&undo_top);
    if (top >= UNDO_SLOTS)
        return -1;
    struct undo_slot *s = &undo_slots[top];
    atomic_store(&s->state, 1);
    s->kind = kind;
    if (path)
        memcpy(s->path, path, n + 1);
    s->fn = fn;
    s->priv = priv;
    atomic_store(&s->state, 2);
    atomic_store(&undo_top, top + 1);
    return top;
}

int cli_undo_file(const char *path)
{
    return undo_add(UNDO_FILE, path, NULL, NULL);
}

int cli_undo_dir(const char *path)
{
    return undo_add(UNDO_DIR, path, NULL, NULL);
}

int cli_undo_callback(void (*fn)(void *priv), void *priv)
{
    return undo_add(UNDO_CALLBACK, NULL, fn, priv);
}

void cli_undo_keep(int handle)
{
    if (handle >= 0 && handle < UNDO_SLOTS)
        atomic_store(&undo_slots[handle].state, 0);
}

/* Newest first, so a folder goes after the files made in it. Async-signal-safe. */
static void undo_all(void)
{
    for (int i = atomic_load(&undo_top) - 1; i >= 0; i--) {
        struct undo_slot *s = &undo_slots[i];
        if (atomic_load(&s->state) != 2)
            continue;
        if (s->kind == UNDO_FILE)
            unlink(s->path);
        else if (s->kind == UNDO_DIR)
            rmdir(s->path);
        else if (s->fn)
            s->fn(s->priv);
        atomic_store(&s->state, 0);
    }
}

void cli_undo_now(void)
{
    undo_all();
    atomic_store(&undo_top, 0);
}

void cli_undo_forget(void)
{
    for (int i = 0; i < UNDO_SLOTS; i++)
        atomic_store(&undo_slots[i].state, 0);
    atomic_store(&undo_top, 0);
}

bool cli_undo_join(char *buf, size_t size, const char *dir, const char *a, const char *b)
{
    size_t nd = strlen(dir), na = strlen(a), nb = strlen(b);
    if (nd + 1 + na + nb + 1 > size)
        return false;
    memcpy(buf, dir, nd);
    buf[nd] = '/';
    memcpy(buf + nd + 1, a, na);
    memcpy(buf + nd + 1 + na, b, nb + 1);
    return true;
}

static void on_signal(int sig)
{
    int saved = errno;
    imageio_remove_temporaries();
    undo_all();
    errno = saved;
    /* The handler was reset to the default (SA_RESETHAND): the raised signal ends the process
     * the way the original would have, so a shell still sees 128 + signal. */
    raise(sig);
}

void cli_signals_init(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* ignored by whoever started us (nohup, a background job): keep it so */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
    /* Over a file size limit (ulimit -f), a write should fail with EFBIG and a message, not
     * kill the run with SIGXFSZ and leave its temporary behind. */
    signal(SIGXFSZ, SIG_IGN);
}

/* ---- batches ------------------------------------------------------------------------------ */

static bool is_image_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return name[0] != '.' && dot &&
           (strcasecmp(dot, ".png") == 0 || strcasecmp(dot, ".jpg") == 0 ||
            strcasecmp(dot, ".jpeg") == 0 || strcasecmp(dot, ".pfm") == 0);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool push_path(cli_inputs *in, int *cap, const char *dir, const char *name)
{
    if (in->count == *cap) {
        int grown = *cap ? 2 * *cap : 16;
        char **p = realloc(in->paths, (size_t)grown * sizeof *p);
        if (!p)
            return false;
        in->paths = p;
        *cap = grown;
    }
    size_t n = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *s = malloc(n);
    if (!s)
        return false;
    if (dir)
        snprintf(s, n, "%s/%s", dir, name);
    else
        snprintf(s, n, "%s", name);
    in->paths[in->count++] = s;
    return true;
}

int cli_collect_inputs(const char *cmd, char *const *args, int n, cli_inputs *out)
{
    *out = (cli_inputs){ 0 };
    int cap = 0;
    for (int k = 0; k < n; k++) {
        struct stat st;
        if (strcmp(args[k], "-") != 0 && stat(args[k], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(args[k]);
            if (!d) {
                int e = errno;
                cli_inputs_free(out);
                return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: cannot list the folder: %s",
                                args[k], strerror(e));
            }
            int first = out->count;
            struct dirent *e;
            bool ok = true;
            while (ok && (e = readdir(d)))
                if (is_image_name(e->d_name))
                    ok = push_path(out, &cap, args[k], e->d_name);
            closedir(d);
            if (!ok) {
                cli_inputs_free(out);
                return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory listing %s", args[k]);
            }
            if (out->count == first) {
                cli_inputs_free(out);
                return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "%s: the folder holds no images "
                                "(.png, .jpg, .jpeg or .pfm)", args[k]);
            }
            qsort(out->paths + first, (size_t)(out->count - first), sizeof *out->paths,
                  compare_names);
        } else if (!push_path(out, &cap, NULL, args[k])) {
            cli_inputs_free(out);
            return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory");
        }
    }
    return CLI_EXIT_OK;
}

void cli_inputs_free(cli_inputs *in)
{
    for (int k = 0; k < in->count; k++)
        free(in->paths[k]);
    free(in->paths);
    *in = (cli_inputs){ 0 };
}

bool cli_output_in_dir(const char *dir, const char *in, const char *ext, char *out, size_t size)
{
    const char *slash = strrchr(in, '/');
    const char *base = slash ? slash + 1 : in;
    const char *dot = strrchr(base, '.');
    int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    int n = snprintf(out, size, "%s/%.*s.%s", dir, stem, base, ext);
    return n > 0 && (size_t)n < size;
}

/* ---- context, timing, progress ------------------------------------------------------------ */

static void tool_log(void *priv, upf_log_level level, const char *message)
{
    (void)priv;
    if (level == UPF_LOG_ERROR)
        return; /* the command reports failures itself, with its exit code */
    fprintf(stderr, "upframe: warning: %s\n", message);
}

upf_context *cli_context(const char *cmd, int threads)
{
    return cli_context_for(cmd, &(cli_common){ .threads = threads });
}

upf_context *cli_context_for(const char *cmd, const cli_common *c)
{
    /* Errors are printed by the commands themselves (with their exit codes); the log shows
     * warnings only, so nothing is said twice. */
    upf_context *ctx = upf_context_create(upf_context_params(.threads = c->threads,
        .log = tool_log, .log_level = UPF_LOG_WARN, .max_pixels = c->max_pixels));
    if (!ctx)
        cli_fail(cmd, CLI_EXIT_INTERNAL, "could not create a library context");
    return ctx;
}

int cli_vk_device(const char *cmd, int *index)
{
    const char *s = getenv("UPF_VK_DEVICE");
    long v = -1;
    *index = -1;
    if (!s || !*s)
        return CLI_EXIT_OK;
    if (!cli_parse_int(s, 0, 255, &v))
        return cli_fail(cmd, CLI_EXIT_BAD_INPUT, "UPF_VK_DEVICE='%s': expected a device number "
                        "0..255 (0 is the first device the Vulkan loader lists), or unset for "
                        "the first discrete GPU", s);
    *index = (int)v;
    return CLI_EXIT_OK;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_begin(cli_progress *p, const char *label, bool quiet)
{
    p->enabled = !quiet && !quiet_flag && isatty(STDERR_FILENO);
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

/* ---- JSON --------------------------------------------------------------------------------- */

void cli_json_begin(cli_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->first[0] = true;
}

static void json_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The comma and the key before a value. */
static void json_key(cli_json *j, const char *key)
{
    if (!j->first[j->depth])
        fputs(", ", j->f);
    j->first[j->depth] = false;
    if (key) {
        json_escaped(j->f, key);
        fputs(": ", j->f);
    }
}

static void json_open(cli_json *j, const char *key, char c)
{
    json_key(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < (int)(sizeof j->first / sizeof j->first[0]))
        j->depth++;
    j->first[j->depth] = true;
    j->close[j->depth] = c == '{' ? '}' : ']';
}

void cli_json_object(cli_json *j, const char *key)
{
    json_open(j, key, '{');
}

void cli_json_array(cli_json *j, const char *key)
{
    json_open(j, key, '[');
}

void cli_json_close(cli_json *j)
{
    if (j->depth > 0) {
        fputc(j->close[j->depth], j->f);
        j->depth--;
    }
}

void cli_json_number(cli_json *j, const char *key, double v)
{
    json_key(j, key);
    if (!isfinite(v)) {
        fputs("null", j->f);
        return;
    }
    /* The shortest form that reads back as the same double (at most 17 digits). */
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, j->f);
}

void cli_json_int(cli_json *j, const char *key, long long v)
{
    json_key(j, key);
    fprintf(j->f, "%lld", v);
}

void cli_json_size(cli_json *j, int w, int h)
{
    cli_json_array(j, "size");
    cli_json_int(j, NULL, w);
    cli_json_int(j, NULL, h);
    cli_json_close(j);
}

void cli_json_string(cli_json *j, const char *key, const char *s)
{
    json_key(j, key);
    if (s)
        json_escaped(j->f, s);
    else
        fputs("null", j->f);
}

void cli_json_bool(cli_json *j, const char *key, bool v)
{
    json_key(j, key);
    fputs(v ? "true" : "false", j->f);
}

void cli_json_null(cli_json *j, const char *key)
{
    json_key(j, key);
    fputs("null", j->f);
}

void cli_json_end(cli_json *j)
{
    fputc('\n', j->f);
    fflush(j->f);
}

const cli_command *cli_find_command(const char *name)
{
    for (int i = 0; cli_commands[i]; i++)
        if (strcmp(cli_commands[i]->name, name) == 0)
            return cli_commands[i];
    return NULL;
}

void cli_written_remove(void *priv)
{
    cli_written *w = priv;
    char p[4096];
    int n = atomic_load(&w->count);
    for (int i = 0; i < n; i++)
        if (cli_undo_join(p, sizeof p, w->dir, w->stem[i], ".png"))
            unlink(p);
    if (w->made_dir)
        rmdir(w->dir);
}

int cli_written_png(const char *cmd, cli_written *w, const char *stem, const upf_image *img)
{
    char path[4096], err[IMAGEIO_ERR_SIZE];
    snprintf(path, sizeof path, "%s/%s.png", w->dir, stem);
    int n = atomic_load(&w->count);
    snprintf(w->stem[n], CLI_STEM_MAX, "%s", stem);
    atomic_store(&w->count, n + 1); /* listed before it exists: an interrupted write too */
    upf_result r = imageio_write_png(path, img, 8, err);
    return r == UPF_OK ? CLI_EXIT_OK : cli_fail(cmd, cli_exit_code(r), "%s", err);
}
