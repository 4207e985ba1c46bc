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

static const char matrix_names[UPF_NET_MATRICES] = { 'A', 'B', 'C', 'D' };

/* ---- reading and writing model files ------------------------------------------------------ */

/* Checks OUT before any work (a folder we can write into; a note for a name that looks like
 * a picture or an existing file). Returns an exit code. */
static int check_model_output(const char *out)
{
    imageio_type t = imageio_type_from_path(out);
    if (t != IMAGEIO_UNKNOWN)
        cli_note(CMD, "%s is a model file, though its name ends like a %s picture", out,
                 imageio_type_name(t));
    bool exists;
    int rc = cli_check_file_output(CMD, out, &exists);
    if (rc == CLI_EXIT_OK && exists)
        cli_note(CMD, "replacing %s", out);
    return rc;
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


/* Per-matrix weight statistics. */
typedef struct weight_stats {
    double min, max, mean, rms;
    int zeros;
} weight_stats;

static weight_stats matrix_stats(const float *w)
{
    weight_stats st = { w[0], w[0], 0, 0, 0 };
    double sum = 0, sq = 0;
    for (int i = 0; i < UPF_NET_WINDOW; i++) {
        st.min = fmin(st.min, w[i]);
        st.max = fmax(st.max, w[i]);
        sum += w[i];
        sq += (double)w[i] * w[i];
        st.zeros += w[i] == 0.0f;
    }
    st.mean = sum / UPF_NET_WINDOW;
    st.rms = sqrt(sq / UPF_NET_WINDOW);
    return st;
}

static void print_model(const upf__net_model *m, int index)
{
    char flags[64];
    upf__model_flags_text(m->flags, flags, sizeof flags);
    printf("model %d: step %d, ratio %.4g (12/%d), flags 0x%x (%s)\n", index, m->step,
           12.0 / m->step, m->step, (unsigned)m->flags,
           m->flags ? flags : "none: the NDSR design as specified");
    printf("  detail strength %.6g%s\n", (double)m->detail_strength,
           m->detail_strength == 1.0f ? " (as trained)" : " (the network's detail is scaled)");
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
            weight_stats st = matrix_stats(m->w[s][k]);
            printf("  stage %d %c %10.4g %10.4g %10.4g %10.4g %5d\n", s + 1, matrix_names[k],
                   st.min, st.max, st.mean, st.rms, st.zeros);
        }
    }
}

static void json_model(cli_json *j, const upf__net_model *m)
{
    char flags[64];
    upf__model_flags_text(m->flags, flags, sizeof flags);
    cli_json_object(j, NULL);
    cli_json_int(j, "step", m->step);
    cli_json_number(j, "ratio", 12.0 / m->step);
    cli_json_int(j, "flags", (long long)m->flags);
    cli_json_string(j, "flag_names", m->flags ? flags : "");
    cli_json_number(j, "detail_strength", m->detail_strength);
    cli_json_string(j, "provenance", m->provenance);
    cli_json_array(j, "weights");
    for (int s = 0; s < UPF_NET_STAGES; s++)
        for (int k = 0; k < UPF_NET_MATRICES; k++) {
            weight_stats st = matrix_stats(m->w[s][k]);
            char name[2] = { matrix_names[k], '\0' };
            cli_json_object(j, NULL);
            cli_json_int(j, "stage", s + 1);
            cli_json_string(j, "matrix", name);
            cli_json_number(j, "min", st.min);
            cli_json_number(j, "max", st.max);
            cli_json_number(j, "mean", st.mean);
            cli_json_number(j, "rms", st.rms);
            cli_json_int(j, "zeros", st.zeros);
            cli_json_close(j);
        }
    cli_json_close(j);
    cli_json_close(j);
}

static int run_info(int argc, char **argv)
{
    const char *path = NULL;
    bool builtin = false;
    cli_common common = { 0 };
    cli_args a;
    cli_args_init(&a, CMD, argc, argv);
    while (cli_args_next(&a)) {
        if (cli_args_positional(&a)) {
            cli_args_take(&a, &path, "model FILE");
        } else if (cli_common_option(&a, &common, CLI_OPT_JSON)) {
        } else if (cli_args_flag(&a, "--builtin")) {
            builtin = true;
        } else {
            return cli_usage(CMD, "info: unknown option '%s'", a.arg);
        }
    }
    if (a.failed)
        return CLI_EXIT_USAGE;
    if (!path == !builtin)
        return cli_usage(CMD, "info: give a model FILE or --builtin");
    upf_context *ctx = cli_context(CMD, 1);
    if (!ctx)
        return CLI_EXIT_INTERNAL;
    int code = CLI_EXIT_OK;
    upf_models *set = cli_load_models(CMD, ctx, builtin ? NULL : path, &code);
    if (set) {
        const upf__net_model *list[UPF_MODELS_MAX];
        for (int m = 0; m < set->count; m++)
            list[m] = &set->model[m];
        size_t bytes = upf__net_file_size(list, set->count);
        if (common.json) {
            cli_json j;
            cli_json_begin(&j, stdout);
            cli_json_object(&j, NULL);
            cli_json_string(&j, "file", builtin ? NULL : path);
            cli_json_bool(&j, "builtin", builtin);
            cli_json_int(&j, "file_version", upf__net_file_version(list, set->count));
            cli_json_int(&j, "bytes", (long long)bytes);
            cli_json_array(&j, "models");
            for (int m = 0; m < set->count; m++)
                json_model(&j, &set->model[m]);
            cli_json_close(&j);
            cli_json_close(&j);
            cli_json_end(&j);
        } else {
            char n1[32], n2[32];
            printf("%s: %s (model file version %d, %s)\n", builtin ? "built-in models" : path,
                   cli_count(n1, sizeof n1, set->count, "model", "models"),
                   (int)upf__net_file_version(list, set->count),
                   cli_count(n2, sizeof n2, (long long)bytes, "byte", "bytes"));
            for (int m = 0; m < set->count; m++)
                print_model(&set->model[m], m);
        }
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
    if ((unsigned long long)file_size < size) {
        fclose(f);
        char n[32];
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: the file is %s, smaller than the %zu bytes "
                        "of 24 fp16 16x16 matrices", path,
                        cli_count(n, sizeof n, file_size, "byte", "bytes"), size);
    }
    /* No arithmetic on the offset itself: any 64-bit value may come in. */
    if (offset > (unsigned long long)file_size - size) {
        fclose(f);
        char n[32];
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: the file is %s; 24 fp16 16x16 matrices "
                        "(%zu bytes) at offset %llu would run past its end (expected an offset "
                        "of at most %llu)", path, cli_count(n, sizeof n, file_size, "byte", "bytes"),
                        size, offset, (unsigned long long)file_size - size);
    }
    bool ok = fseeko(f, (off_t)offset, SEEK_SET) == 0 && fread(buf, 1, size, f) == size;
    fclose(f);
    if (!ok)
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: could not read %zu bytes at offset %llu",
                        path, size, offset);
    return CLI_EXIT_OK;
}

/* --detail-strength X of import and pack: 0..UPF_MODEL_DETAIL_STRENGTH_MAX. */
static bool parse_strength(const char *sub, const char *s, double *out)
{
    if (cli_parse_double(s, 0.0, UPF_MODEL_DETAIL_STRENGTH_MAX, out))
        return true;
    cli_usage(CMD, "%s: --detail-strength '%s'; expected a number in 0..%g (1 as trained, 0 "
              "the base alone)", sub, s, UPF_MODEL_DETAIL_STRENGTH_MAX);
    return false;
}

static int run_import(int argc, char **argv)
{
    const char *path = NULL, *out = NULL, *order = "ABCD", *offset_s = NULL, *step_s = NULL;
    const char *note = NULL;
    bool transpose = false, matrix_major = false, stage_major = false, window_mean = false;
    bool cubic_base = false, lanczos_base = false, srgb_base = false, no_smaa = false;
    const char *strength_s = NULL;
    cli_common common = { 0 };
    cli_args a;
    cli_args_init(&a, CMD, argc, argv);
    while (cli_args_next(&a)) {
        if (cli_args_positional(&a)) {
            cli_args_take(&a, &path, "FILE to import from");
        } else if (cli_common_option(&a, &common, 0)) {
        } else if (cli_args_option(&a, "--offset")) {
            offset_s = a.value;
        } else if (cli_args_option(&a, "--step")) {
            step_s = a.value;
        } else if (cli_args_option(&a, "--order")) {
            order = a.value;
        } else if (cli_args_option(&a, "--provenance")) {
            note = a.value;
        } else if (cli_args_option(&a, "-o") || cli_args_option(&a, "--output")) {
            out = a.value;
        } else if (cli_args_flag(&a, "--transpose")) {
            transpose = true;
        } else if (cli_args_flag(&a, "--stage-major")) {
            stage_major = true;
        } else if (cli_args_flag(&a, "--matrix-major")) {
            matrix_major = true;
        } else if (cli_args_flag(&a, "--window-mean")) {
            window_mean = true;
        } else if (cli_args_flag(&a, "--cubic-base")) {
            cubic_base = true;
        } else if (cli_args_flag(&a, "--sqrt-lanczos-base")) {
            lanczos_base = true;
        } else if (cli_args_flag(&a, "--srgb-lanczos-base")) {
            srgb_base = true;
        } else if (cli_args_flag(&a, "--no-smaa")) {
            no_smaa = true;
        } else if (cli_args_option(&a, "--detail-strength")) {
            strength_s = a.value;
        } else {
            return cli_usage(CMD, "import: unknown option '%s'", a.arg);
        }
    }
    if (a.failed)
        return CLI_EXIT_USAGE;
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
    if ((int)cubic_base + (int)lanczos_base + (int)srgb_base > 1)
        return cli_usage(CMD, "import: --cubic-base, --sqrt-lanczos-base and "
                         "--srgb-lanczos-base exclude each other (a model has one base)");
    double strength = 1.0;
    if (strength_s && !parse_strength("import", strength_s, &strength))
        return CLI_EXIT_USAGE;
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

    int code = check_model_output(out);
    if (code != CLI_EXIT_OK)
        return code;
    unsigned char raw[UPF_NET_WEIGHTS * 2];
    code = read_slice(path, offset, raw, sizeof raw);
    if (code != CLI_EXIT_OK)
        return code;

    upf__net_model *model = calloc(1, sizeof *model);
    if (!model)
        return cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
    model->step = (int)step;
    model->flags = (window_mean ? UPF_MODEL_FLAG_WINDOW_MEAN : 0u) |
                   (cubic_base ? UPF_MODEL_FLAG_CUBIC_BASE : 0u) |
                   (lanczos_base ? UPF_MODEL_FLAG_SQRT_LANCZOS_BASE : 0u) |
                   (srgb_base ? UPF_MODEL_FLAG_SRGB_LANCZOS_BASE : 0u) |
                   (no_smaa ? UPF_MODEL_FLAG_NO_SMAA : 0u);
    model->detail_strength = (float)strength;
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
        cli_report("wrote %s (1 model: step %ld, ratio %.4g)\n", out, step, 12.0 / (double)step);
    free(model);
    return code;
}

/* ---- pack -------------------------------------------------------------------------------- */


/* --base NAME of pack: the base flag each copy gets (docs/MODELS.md, "Flags"). */
static const struct { const char *name; uint32_t flag; } pack_bases[] = {
    { "bilinear", 0u },
    { "cubic", UPF_MODEL_FLAG_CUBIC_BASE },
    { "sqrt-lanczos", UPF_MODEL_FLAG_SQRT_LANCZOS_BASE },
    { "srgb-lanczos", UPF_MODEL_FLAG_SRGB_LANCZOS_BASE },
};

static int run_pack(int argc, char **argv)
{
    const char *out = NULL, *strength_s = NULL, *steps_s = NULL, *base_s = NULL;
    const char *inputs[64];
    int n_inputs = 0;
    cli_common common = { 0 };
    cli_args a;
    cli_args_init(&a, CMD, argc, argv);
    while (cli_args_next(&a)) {
        if (cli_args_positional(&a)) {
            if (n_inputs == (int)(sizeof inputs / sizeof inputs[0]))
                return cli_usage(CMD, "pack: too many files (a model file holds at most %d "
                                 "models)", UPF_MODELS_MAX);
            inputs[n_inputs++] = a.arg;
        } else if (cli_common_option(&a, &common, 0)) {
        } else if (cli_args_option(&a, "-o") || cli_args_option(&a, "--output")) {
            out = a.value;
        } else if (cli_args_option(&a, "--detail-strength")) {
            strength_s = a.value;
        } else if (cli_args_option(&a, "--steps")) {
            steps_s = a.value;
        } else if (cli_args_option(&a, "--base")) {
            base_s = a.value;
        } else {
            return cli_usage(CMD, "pack: unknown option '%s'", a.arg);
        }
    }
    if (a.failed)
        return CLI_EXIT_USAGE;
    double strength = 1.0;
    if (strength_s && !parse_strength("pack", strength_s, &strength))
        return CLI_EXIT_USAGE;
    int base = -1; /* --base: index into pack_bases */
    for (int b = 0; base_s && b < (int)(sizeof pack_bases / sizeof pack_bases[0]); b++)
        if (strcmp(base_s, pack_bases[b].name) == 0)
            base = b;
    if (base_s && base < 0)
        return cli_usage(CMD, "pack: --base '%s'; expected bilinear, cubic, sqrt-lanczos or "
                         "srgb-lanczos", base_s);
    /* --steps: the steps to keep, a comma-separated list of 4..10 (all when absent). */
    unsigned keep = ~0u;
    if (steps_s) {
        keep = 0;
        const char *c = steps_s;
        while (*c) {
            char *end;
            const long st = strtol(c, &end, 10);
            if (end == c || st < UPF_MODEL_STEP_MIN || st > UPF_MODEL_STEP_MAX ||
                (*end && *end != ','))
                return cli_usage(CMD, "pack: --steps '%s'; expected steps %d..%d separated by "
                                 "commas (e.g. 4,6,8)", steps_s, UPF_MODEL_STEP_MIN,
                                 UPF_MODEL_STEP_MAX);
            keep |= 1u << st;
            c = *end ? end + 1 : end;
        }
    }
    if (n_inputs == 0)
        return cli_usage(CMD, "pack: no model files to combine");
    if (!out)
        return cli_usage(CMD, "pack: no output file (-o OUT.upfm)");
    int code = check_model_output(out);
    if (code != CLI_EXIT_OK)
        return code;

    upf_context *ctx = cli_context(CMD, 1);
    if (!ctx)
        return CLI_EXIT_INTERNAL;
    upf_models *sets[64] = { 0 };
    const upf__net_model *list[UPF_MODELS_MAX];
    int from_file[UPF_MODELS_MAX], from_index[UPF_MODELS_MAX];
    int count = 0;
    for (int f = 0; f < n_inputs && code == CLI_EXIT_OK; f++) {
        sets[f] = cli_load_models(CMD, ctx, inputs[f], &code);
        for (int m = 0; sets[f] && m < sets[f]->count && code == CLI_EXIT_OK; m++) {
            const upf__net_model *model = &sets[f]->model[m];
            if (!(keep & (1u << model->step)))
                continue;
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
    if (code == CLI_EXIT_OK && count == 0)
        code = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "pack: no model in the files has a step that "
                        "--steps '%s' names", steps_s ? steps_s : "");
    /* --detail-strength and --base: the copies written carry them (each model's own value
     * or base flag is replaced; its weights are kept). */
    upf__net_model *copies = NULL;
    if (code == CLI_EXIT_OK && (strength_s || base_s)) {
        copies = calloc((size_t)count, sizeof *copies);
        if (!copies)
            code = cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
        for (int q = 0; copies && q < count; q++) {
            copies[q] = *list[q];
            if (strength_s)
                copies[q].detail_strength = (float)strength;
            if (base_s)
                copies[q].flags = (copies[q].flags & ~UPF_MODEL_FLAGS_BASE) |
                                  pack_bases[base].flag;
            list[q] = &copies[q];
        }
    }
    if (code == CLI_EXIT_OK)
        code = write_models(ctx, list, count, out);
    if (code == CLI_EXIT_OK) {
        char n[32], steps[64] = "";
        for (int q = 0; q < count; q++)
            snprintf(steps + strlen(steps), sizeof steps - strlen(steps), " %d", list[q]->step);
        cli_report("wrote %s (%s, step%s%s)\n", out, cli_count(n, sizeof n, count, "model",
                   "models"), count == 1 ? "" : "s", steps);
    }
    free(copies);
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
    "usage: upframe model info FILE | --builtin [--json]\n"
    "       upframe model import FILE --offset N --step S [--order ABCD] [--transpose]\n"
    "                            [--stage-major | --matrix-major] [--window-mean]\n"
    "                            [--cubic-base | --sqrt-lanczos-base |\n"
    "                             --srgb-lanczos-base] [--no-smaa]\n"
    "                            [--detail-strength X] [--provenance TEXT] -o OUT.upfm\n"
    "       upframe model pack A.upfm B.upfm ... [--detail-strength X] [--steps LIST]\n"
    "                          [--base NAME] -o OUT.upfm\n"
    "\n"
    "Model files hold the spatial engine's network weights: one to seven models, one per\n"
    "input step S (4..10, ratio 12/S), each 6 stages of four 16x16 matrices A, B, C, D in\n"
    "fp16, with provenance text and a checksum (docs/MODELS.md).\n"
    "\n"
    "info      prints each model's step, ratio, flags, provenance and per-matrix weight\n"
    "          statistics; --builtin shows the set built into the library; --json prints\n"
    "          them as one JSON object (docs/CLI.md).\n"
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
    "            --sqrt-lanczos-base  set the sqrt-Lanczos base flag; likewise\n"
    "            --srgb-lanczos-base  set the sRGB-Lanczos base flag; likewise\n"
    "            --no-smaa       set the no-SMAA flag (the engine skips SMAA's blending)\n"
    "            --detail-strength X  scale the network's detail by X (0..4, default 1)\n"
    "            --provenance T  text added to the provenance (data, seed, loss, revision)\n"
    "          NaN or Inf weights, or a file too short for the offset, are refused.\n"
    "pack      combines model files into one; the steps must be distinct (7 at most);\n"
    "          --detail-strength X sets every model's detail strength in the output;\n"
    "          --steps 4,6,8 keeps only the models of those steps;\n"
    "          --base bilinear|cubic|sqrt-lanczos|srgb-lanczos gives every model that base\n"
    "          (its weights unchanged: a network learns the detail its own base lacks).\n"
    "\n"
    "Outputs are written atomically (a failed or interrupted run leaves no file); the\n"
    "report ('wrote ...') goes to stdout, -q silences it.\n"
    "Exit codes: 0 success, 1 usage, 2 bad input (unreadable or invalid files), 3 internal.\n"
};
