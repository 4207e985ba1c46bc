/* cmd_model.c: `upframe model info|import|pack`: look inside model files, make one from raw
 * fp16 matrices found in any file, and combine several into one (docs/MODELS.md).
 *
 * Reads model files (through the library's loader, which checks everything) and, for import,
 * 12288 bytes of any file at an offset; writes model files with the library's writer, atomically
 * (a temporary file renamed over the target). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/color.h"
#include "imageio/image_io.h"
#include "spatial/net.h"

#define CMD "model"
#define MODEL_FILE_MAX (1u << 20) /* a file of 7 models is at most ~115 KB */

static const char matrix_names[UPF_NET_MATRICES] = { 'A', 'B', 'C', 'D' };

/* ---- reading and writing model files ------------------------------------------------------ */

/* Loads a model file; prints why not and returns NULL on failure (*code: the exit code). */
static upf_models *load_file(upf_context *ctx, const char *path, int *code)
{
    void *data;
    size_t size;
    char err[IMAGEIO_ERR_SIZE];
    upf_result r = imageio_slurp(path, MODEL_FILE_MAX, &data, &size, err);
    if (r != UPF_OK) {
        *code = cli_fail(CMD, cli_exit_code(r), "%s", err);
        return NULL;
    }
    upf_models *set = upf_models_load(ctx, data, size);
    free(data);
    if (!set) {
        const char *msg = "";
        upf_result e = upf_context_last_error(ctx, &msg);
        *code = cli_fail(CMD, cli_exit_code(e), "%s: %s", path, msg);
    }
    return set;
}

static int write_models(upf_context *ctx, const upf__net_model *const *models, int count,
                        const char *out)
{
    size_t size = upf__net_file_size(models, count);
    void *buf = malloc(size);
    if (!buf)
        return cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory (%zu bytes)", size);
    upf_result r = upf__net_write(ctx, models, count, buf, size);
    if (r != UPF_OK) {
        free(buf);
        return cli_fail_upf(CMD, ctx, r);
    }
    char err[IMAGEIO_ERR_SIZE];
    r = imageio_write_file_atomic(out, buf, size, err);
    free(buf);
    if (r != UPF_OK)
        return cli_fail(CMD, cli_exit_code(r), "%s", err);
    return CLI_EXIT_OK;
}

/* ---- info ------------------------------------------------------------------------------- */

static void print_model(const upf__net_model *m, int index)
{
    char flags[64];
    upf__model_flags_text(m->flags, flags, sizeof flags);
    printf("model %d: step %d, ratio %.4g (12/%d), flags 0x%x (%s)\n", index, m->step,
           12.0 / m->step, m->step, (unsigned)m->flags,
           m->flags ? flags : "none: the NDSR design as specified");
    if (m->provenance[0]) {
        printf("  provenance:\n    ");
        for (const char *c = m->provenance; *c; c++) {
            putchar(*c);
            if (*c == '\n' && c[1])
                fputs("    ", stdout);
        }
        if (m->provenance[strlen(m->provenance) - 1] != '\n')
            putchar('\n');
    } else {
        printf("  provenance: (none)\n");
    }
    printf("  weights      min        max        mean       rms     zeros\n");
    for (int s = 0; s < UPF_NET_STAGES; s++) {
        for (int k = 0; k < UPF_NET_MATRICES; k++) {
            const float *w = m->w[s][k];
            double lo = w[0], hi = w[0], sum = 0, sq = 0;
            int zeros = 0;
            for (int i = 0; i < UPF_NET_WINDOW; i++) {
                lo = fmin(lo, w[i]);
                hi = fmax(hi, w[i]);
                sum += w[i];
                sq += (double)w[i] * w[i];
                zeros += w[i] == 0.0f;
            }
            printf("  stage %d %c %10.4g %10.4g %10.4g %10.4g %5d\n", s + 1, matrix_names[k], lo,
                   hi, sum / UPF_NET_WINDOW, sqrt(sq / UPF_NET_WINDOW), zeros);
        }
    }
}

static int run_info(int argc, char **argv)
{
    const char *path = NULL;
    bool builtin = false;
    for (int i = 1; i < argc; i++) {
        if (cli_flag(argv, i, "--builtin"))
            builtin = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage(CMD, "info: unknown option '%s'", argv[i]);
        else if (path)
            return cli_usage(CMD, "info: one FILE at a time (got '%s' and '%s')", path, argv[i]);
        else
            path = argv[i];
    }
    if (!path == !builtin)
        return cli_usage(CMD, "info: give a model FILE or --builtin");
    upf_context *ctx = cli_context(CMD, 1);
    if (!ctx)
        return CLI_EXIT_INTERNAL;
    int code = CLI_EXIT_OK;
    upf_models *set;
    if (builtin) {
        set = upf_models_default(ctx);
        if (!set)
            code = cli_fail_upf(CMD, ctx, upf_context_last_error(ctx, NULL));
    } else {
        set = load_file(ctx, path, &code);
    }
    if (set) {
        const upf__net_model *list[UPF_MODELS_MAX];
        for (int m = 0; m < set->count; m++)
            list[m] = &set->model[m];
        printf("%s: %d model%s (model file version %d, %zu bytes)\n",
               builtin ? "built-in models" : path, set->count, set->count == 1 ? "" : "s",
               UPF_MODEL_FILE_VERSION, upf__net_file_size(list, set->count));
        for (int m = 0; m < set->count; m++)
            print_model(&set->model[m], m);
    }
    upf_models_destroy(&set);
    upf_context_destroy(&ctx);
    return code;
}

/* ---- import ----------------------------------------------------------------------------- */

/* "123" or "0x1be00": a byte offset. */
static bool parse_offset(const char *s, unsigned long long *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    int base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
    const char *digits = base == 16 ? s + 2 : s;
    if (!*digits)
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, base);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* Reads `size` bytes at `offset` of `path` into buf. */
static int read_slice(const char *path, unsigned long long offset, unsigned char *buf,
                      size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno));
    long long file_size = -1;
    if (fseeko(f, 0, SEEK_END) == 0)
        file_size = (long long)ftello(f);
    if (file_size < 0) {
        fclose(f);
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: cannot find the file's size (not a "
                        "regular file?)", path);
    }
    if (offset > (unsigned long long)file_size || (unsigned long long)file_size - offset < size) {
        fclose(f);
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: the file is %lld bytes; 24 fp16 16x16 "
                        "matrices at offset %llu need %zu bytes, up to byte %llu", path,
                        file_size, offset, size, offset + size);
    }
    bool ok = fseeko(f, (off_t)offset, SEEK_SET) == 0 && fread(buf, 1, size, f) == size;
    fclose(f);
    if (!ok)
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: could not read %zu bytes at offset %llu",
                        path, size, offset);
    return CLI_EXIT_OK;
}

static int run_import(int argc, char **argv)
{
    const char *path = NULL, *out = NULL, *order = "ABCD", *offset_s = NULL, *step_s = NULL;
    const char *note = NULL;
    bool transpose = false, matrix_major = false, stage_major = false, window_mean = false;
    bool cubic_base = false;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int err = 0;
        if (cli_option(argc, argv, &i, "--offset", &v, &err, CMD)) {
            if (err)
                return CLI_EXIT_USAGE;
            offset_s = v;
        } else if (cli_option(argc, argv, &i, "--step", &v, &err, CMD)) {
            if (err)
                return CLI_EXIT_USAGE;
            step_s = v;
        } else if (cli_option(argc, argv, &i, "--order", &v, &err, CMD)) {
            if (err)
                return CLI_EXIT_USAGE;
            order = v;
        } else if (cli_option(argc, argv, &i, "--provenance", &v, &err, CMD)) {
            if (err)
                return CLI_EXIT_USAGE;
            note = v;
        } else if (cli_option(argc, argv, &i, "-o", &v, &err, CMD)) {
            if (err)
                return CLI_EXIT_USAGE;
            out = v;
        } else if (cli_flag(argv, i, "--transpose")) {
            transpose = true;
        } else if (cli_flag(argv, i, "--stage-major")) {
            stage_major = true;
        } else if (cli_flag(argv, i, "--matrix-major")) {
            matrix_major = true;
        } else if (cli_flag(argv, i, "--window-mean")) {
            window_mean = true;
        } else if (cli_flag(argv, i, "--cubic-base")) {
            cubic_base = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage(CMD, "import: unknown option '%s'", argv[i]);
        } else if (path) {
            return cli_usage(CMD, "import: one FILE at a time (got '%s' and '%s')", path, argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return cli_usage(CMD, "import: no FILE to read the matrices from");
    if (!out)
        return cli_usage(CMD, "import: no output file (-o OUT.upfm)");
    unsigned long long offset;
    if (!offset_s)
        return cli_usage(CMD, "import: --offset N is needed (where the 24 matrices start)");
    if (!parse_offset(offset_s, &offset))
        return cli_usage(CMD, "import: --offset '%s' is not a byte offset (expected a decimal "
                         "number or 0x followed by hex digits)", offset_s);
    long step;
    if (!step_s)
        return cli_usage(CMD, "import: --step S is needed (4..10: the model's input step)");
    if (!cli_parse_int(step_s, UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX, &step))
        return cli_usage(CMD, "import: --step '%s'; expected %d..%d (ratio 12/S)", step_s,
                         UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX);
    if (stage_major && matrix_major)
        return cli_usage(CMD, "import: --stage-major and --matrix-major exclude each other");
    /* --order: the file's order of A, B, C, D (a permutation). pos[k] = where matrix k is. */
    int pos[UPF_NET_MATRICES] = { -1, -1, -1, -1 };
    bool order_ok = strlen(order) == UPF_NET_MATRICES;
    for (int i = 0; order_ok && i < UPF_NET_MATRICES; i++) {
        const char *c = memchr(matrix_names, order[i] & ~0x20, UPF_NET_MATRICES); /* any case */
        if (!c || pos[c - matrix_names] >= 0)
            order_ok = false;
        else
            pos[c - matrix_names] = i;
    }
    if (!order_ok)
        return cli_usage(CMD, "import: --order '%s'; expected the letters A, B, C, D once each "
                         "(the order the file stores a stage's matrices in)", order);

    unsigned char raw[UPF_NET_WEIGHTS * 2];
    int code = read_slice(path, offset, raw, sizeof raw);
    if (code != CLI_EXIT_OK)
        return code;

    upf__net_model *model = calloc(1, sizeof *model);
    if (!model)
        return cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
    model->step = (int)step;
    model->flags = (window_mean ? UPF_MODEL_FLAG_WINDOW_MEAN : 0u) |
                   (cubic_base ? UPF_MODEL_FLAG_CUBIC_BASE : 0u);
    for (int s = 0; s < UPF_NET_STAGES && code == CLI_EXIT_OK; s++) {
        for (int k = 0; k < UPF_NET_MATRICES && code == CLI_EXIT_OK; k++) {
            /* Stage-major: stage by stage, the four matrices in --order. Matrix-major: matrix
             * by matrix in --order, each for the six stages. */
            size_t index = matrix_major ? (size_t)pos[k] * UPF_NET_STAGES + (size_t)s
                                        : (size_t)s * UPF_NET_MATRICES + (size_t)pos[k];
            for (int r = 0; r < UPF_NET_DIM; r++) {
                for (int c = 0; c < UPF_NET_DIM; c++) {
                    size_t e = index * UPF_NET_WINDOW +
                               (size_t)(transpose ? c * UPF_NET_DIM + r : r * UPF_NET_DIM + c);
                    uint16_t h = (uint16_t)(raw[2 * e] | raw[2 * e + 1] << 8);
                    if ((h & 0x7c00u) == 0x7c00u) {
                        code = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: byte %llu: stage %d "
                                        "matrix %c row %d column %d is %s (fp16 0x%04x); "
                                        "expected finite weights (check --offset, --order and "
                                        "the layout options)", path,
                                        offset + 2 * (unsigned long long)e, s + 1,
                                        matrix_names[k], r, c, (h & 0x3ffu) ? "NaN" : "Inf", h);
                        break;
                    }
                    model->w[s][k][r * UPF_NET_DIM + c] = upf_half_to_float(h);
                }
                if (code != CLI_EXIT_OK)
                    break;
            }
        }
    }
    if (code == CLI_EXIT_OK) {
        /* Provenance: where the weights came from, with the file name made printable. */
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        char name[256];
        size_t n = 0;
        for (; base[n] && n < sizeof name - 1; n++)
            name[n] = (unsigned char)base[n] < 0x20 || (unsigned char)base[n] >= 0x7f ? '?'
                                                                                   : base[n];
        name[n] = '\0';
        int len = snprintf(model->provenance, sizeof model->provenance,
                           "imported by upframe model import from %s at byte %llu (order %c%c%c%c, "
                           "%s, %s)%s%s", name, offset, order[0] & ~0x20, order[1] & ~0x20,
                           order[2] & ~0x20, order[3] & ~0x20,
                           matrix_major ? "matrix-major" : "stage-major",
                           transpose ? "transposed" : "as stored", note ? "\n" : "",
                           note ? note : "");
        if (len < 0 || len > UPF_MODEL_PROVENANCE_MAX)
            code = cli_usage(CMD, "import: --provenance is too long (the provenance would be "
                             "%d bytes; at most %d)", len, UPF_MODEL_PROVENANCE_MAX);
    }
    if (code == CLI_EXIT_OK) {
        upf_context *ctx = cli_context(CMD, 1);
        if (!ctx) {
            code = CLI_EXIT_INTERNAL;
        } else {
            const upf__net_model *list[1] = { model };
            code = write_models(ctx, list, 1, out);
            upf_context_destroy(&ctx);
        }
    }
    if (code == CLI_EXIT_OK)
        fprintf(stderr, "upframe model: wrote %s (step %ld, ratio %.4g)\n", out, step,
                12.0 / (double)step);
    free(model);
    return code;
}

/* ---- pack -------------------------------------------------------------------------------- */

static int run_pack(int argc, char **argv)
{
    const char *out = NULL;
    const char *inputs[64];
    int n_inputs = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int err = 0;
        if (cli_option(argc, argv, &i, "-o", &v, &err, CMD)) {
            if (err)
                return CLI_EXIT_USAGE;
            out = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage(CMD, "pack: unknown option '%s'", argv[i]);
        } else if (n_inputs == (int)(sizeof inputs / sizeof inputs[0])) {
            return cli_usage(CMD, "pack: too many files (a model file holds at most %d models)",
                             UPF_MODELS_MAX);
        } else {
            inputs[n_inputs++] = argv[i];
        }
    }
    if (n_inputs == 0)
        return cli_usage(CMD, "pack: no model files to combine");
    if (!out)
        return cli_usage(CMD, "pack: no output file (-o OUT.upfm)");

    upf_context *ctx = cli_context(CMD, 1);
    if (!ctx)
        return CLI_EXIT_INTERNAL;
    upf_models *sets[64] = { 0 };
    const upf__net_model *list[UPF_MODELS_MAX];
    int from_file[UPF_MODELS_MAX], from_index[UPF_MODELS_MAX];
    int count = 0, code = CLI_EXIT_OK;
    for (int f = 0; f < n_inputs && code == CLI_EXIT_OK; f++) {
        sets[f] = load_file(ctx, inputs[f], &code);
        for (int m = 0; sets[f] && m < sets[f]->count && code == CLI_EXIT_OK; m++) {
            const upf__net_model *model = &sets[f]->model[m];
            for (int q = 0; q < count; q++) {
                if (list[q]->step == model->step) {
                    code = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s model %d and %s model %d both "
                                    "have step %d (ratio %.4g); expected one model per step",
                                    inputs[from_file[q]], from_index[q], inputs[f], m,
                                    model->step, 12.0 / model->step);
                    break;
                }
            }
            if (code != CLI_EXIT_OK)
                break;
            if (count == UPF_MODELS_MAX) {
                code = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "more than %d models in the files; a "
                                "model file holds one per step, %d at most", UPF_MODELS_MAX,
                                UPF_MODELS_MAX);
                break;
            }
            from_file[count] = f;
            from_index[count] = m;
            list[count++] = model;
        }
    }
    if (code == CLI_EXIT_OK)
        code = write_models(ctx, list, count, out);
    if (code == CLI_EXIT_OK) {
        fprintf(stderr, "upframe model: wrote %s (%d models, steps", out, count);
        for (int q = 0; q < count; q++)
            fprintf(stderr, " %d", list[q]->step);
        fprintf(stderr, ")\n");
    }
    for (int f = 0; f < n_inputs; f++)
        upf_models_destroy(&sets[f]);
    upf_context_destroy(&ctx);
    return code;
}

/* ---- the command ------------------------------------------------------------------------------ */

static int run_model(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage(CMD, "needs a subcommand: info, import or pack");
    const char *sub = argv[1];
    if (strcmp(sub, "info") == 0)
        return run_info(argc - 1, argv + 1);
    if (strcmp(sub, "import") == 0)
        return run_import(argc - 1, argv + 1);
    if (strcmp(sub, "pack") == 0)
        return run_pack(argc - 1, argv + 1);
    return cli_usage(CMD, "unknown subcommand '%s' (expected info, import or pack)", sub);
}

const cli_command cli_cmd_model = {
    "model", run_model, "inspect, import and combine network model files",
    "usage: upframe model info FILE | --builtin\n"
    "       upframe model import FILE --offset N --step S [--order ABCD] [--transpose]\n"
    "                            [--stage-major | --matrix-major] [--window-mean]\n"
    "                            [--cubic-base]\n"
    "                            [--provenance TEXT] -o OUT.upfm\n"
    "       upframe model pack A.upfm B.upfm ... -o OUT.upfm\n"
    "\n"
    "Model files hold the spatial engine's network weights: one to seven models, one per\n"
    "input step S (4..10, ratio 12/S), each 6 stages of four 16x16 matrices A, B, C, D in\n"
    "fp16, with provenance text and a checksum (docs/MODELS.md).\n"
    "\n"
    "info      prints each model's step, ratio, flags, provenance and per-matrix weight\n"
    "          statistics; --builtin shows the set built into the library.\n"
    "import    reads 24 raw fp16 (little-endian) 16x16 matrices at byte offset N of any file\n"
    "          (N decimal, or hex as 0x1be00) and writes a one-model file:\n"
    "            --step S        the model's input step (4..10)\n"
    "            --order ABCD    the order the file stores a stage's four matrices in\n"
    "            --stage-major   stage by stage, four matrices each (the default)\n"
    "            --matrix-major  matrix by matrix (in --order), six stages each\n"
    "            --transpose     each matrix is stored column by column\n"
    "            --window-mean   set the window-mean flag (docs/MODELS.md); off for weights\n"
    "                            of the shipped design\n"
    "            --cubic-base    set the cubic-base flag (docs/MODELS.md); likewise\n"
    "            --provenance T  text added to the provenance (data, seed, loss, revision)\n"
    "          NaN or Inf weights, or a file too short for the offset, are refused.\n"
    "pack      combines model files into one; the steps must be distinct (7 at most).\n"
    "\n"
    "Outputs are written atomically (a failed run leaves no file).\n"
    "Exit codes: 0 success, 1 usage, 2 bad input (unreadable or invalid files), 3 internal.\n"
};
