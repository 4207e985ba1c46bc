/* cmd_train.c: `upframe train`: trains one model of the spatial engine's network on a folder of
 * training pairs and writes it as a model file (fp16, with its provenance); `upframe train
 * data` renders such a folder with the scene renderer (tools/train/README.md).
 *
 * Reads a data folder (NAME.target.png + NAME.input[-sS].png, manifest.txt) and optionally a
 * model file to start from; writes the model file atomically. Progress on a terminal (step,
 * loss, validation loss, windows/s, time left), quiet when piped; a summary on stdout with the
 * exported model's evaluation by the real pass 4 on the validation pairs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/color.h"
#include "imageio/image_io.h"
#include "spatial/net.h"
#include "train/train.h"

#define CMD "train"

static const char train_help[] =
    "usage: upframe train --step S --data DIR -o MODEL.upfm [options]\n"
    "       upframe train data --views N [--seed S] -o DIR [options]\n"
    "\n"
    "Trains the spatial engine's network for one step S (ratio 12/S) on the training pairs\n"
    "in DIR and writes a one-model file (fp16 weights). The model is then evaluated as\n"
    "shipped: its fp16 weights through the real pass 4 on the validation pairs, against the\n"
    "engine's base (no network) and Lanczos. Combine seven models with 'upframe model pack'.\n"
    "\n"
    "  --step S            4..10 (ratios 3, 2.4, 2, 1.714, 1.5, 1.333, 1.2)\n"
    "  --data DIR          NAME.target.png (the reference, output size) with\n"
    "                      NAME.input-sS.png or NAME.input.png (the input, exactly\n"
    "                      target * S / 12 on each axis); manifest.txt optional\n"
    "  -o, --output FILE   the model file to write\n"
    "  --steps N           optimizer steps (default 20000)\n"
    "  --batch N           windows per step (default 128)\n"
    "  --lr X              peak learning rate of Adam (default 0.002)\n"
    "  --lr-final F        the cosine decay ends at lr * F (default 0.01)\n"
    "  --warmup N          steps of linear warm-up (default 500, at most steps / 4)\n"
    "  --seed S            initial weights and window sampling (default 1)\n"
    "  --flat F            fraction of windows drawn uniformly; the others with weight\n"
    "                      on pass-1 edges (default 0.25)\n"
    "  --window-mean       the model subtracts each window's mean first (model flag 0x1)\n"
    "  --cubic-base        the detail goes on a Catmull-Rom base in linear light instead of\n"
    "                      the bilinear one in sqrt space (model flag 0x2; the targets change)\n"
    "  --sqrt-lanczos-base the detail goes on a Lanczos-3 base in sqrt space (model flag 0x4)\n"
    "  --srgb-lanczos-base the detail goes on a Lanczos-3 base of the sRGB values, taken to\n"
    "                      sqrt space (model flag 0x10)\n"
    "  --no-smaa           the model runs without SMAA's blending (model flag 0x8): its\n"
    "                      inputs are the unblended frames\n"
    "  --validation F      fraction of the data's groups held out (default 0.1)\n"
    "  --mirror            also train on each training pair mirrored left to right\n"
    "  --transpose         also train on each training pair transposed (with --mirror,\n"
    "                      its transpose mirrored too: four orientations)\n"
    "  --val-windows N     windows for the running validation loss (default 8192)\n"
    "  --val-every N       steps between running validation losses (default steps / 50)\n"
    "  --init FILE         start from the step-S model of a model file instead\n"
    "  --init-sigma X      initial weights from N(0, X^2) (default 0.125)\n"
    "  --code TEXT         the code revision, for the provenance (e.g. $(git describe))\n"
    "  --log-every N       also print a line every N steps on stdout (for logs)\n"
    "  --save-validation DIR  write each validation pair's output (NAME.model.png) and\n"
    "                      base (NAME.base.png) there, to compare by eye\n"
    "  --threads N         worker threads (default 0: one per CPU); the result is the same\n"
    "                      for any number\n"
    "  -q, --quiet         no progress line and no summary\n"
    "\n"
    "'upframe train data' renders training pairs with the scene renderer: N views of the\n"
    "training scenes (scene seeds 0..9999 only, never the evaluation set's), each as one\n"
    "reference NAME.target.png (16-bit, many samples per pixel) and, for every step S, the\n"
    "1-sample aliased input NAME.input-sS.png (8-bit) at W*S/12 x H*S/12 with the mip bias\n"
    "log2(S/12) a game uses when it renders for an upscaler; plus manifest.txt. One folder\n"
    "serves all seven models.\n"
    "\n"
    "  --views N           views to render\n"
    "  -o, --output DIR    the folder (made if missing; one that has a manifest is refused)\n"
    "  --seed S            picks scene seeds, camera paths and times (default 1)\n"
    "  --spp N             the references' samples per pixel, 16..4096 (default 64)\n"
    "  --views-per-scene K views of each scene build, which form one validation group\n"
    "                      (default 4)\n"
    "  --size WxH          reference size, multiples of 12 (default 576x324)\n"
    "  --mip-bias-offset X added to the inputs' bias log2(S/12) (default 0)\n"
    "  --steps LIST        steps to render inputs for, e.g. 4,6 (default 4,5,6,7,8,9,10)\n"
    "  --scenes LIST       scene names, e.g. courtyard,street (default: every training scene)\n"
    "  --threads N, --quiet\n"
    "\n"
    "A network whose output goes to exactly 0 on every validation window (its ReLUs all off:\n"
    "it cannot learn again) is taken back to its weights and Adam state of the last check\n"
    "where it was alive (a check further back each time it dies again before getting past\n"
    "that step), with the learning rate halved, up to 3 times; the model's provenance\n"
    "records each restart.\n"
    "\n"
    "Exit codes: 0 ok, 1 usage, 2 bad input (unreadable data, a pair of the wrong size ratio,\n"
    "a missing partner), 3 internal error or a network that died in training 4 times (its\n"
    "output stuck at exactly 0). A failed run leaves no model file behind.\n"
    "\n"
    "example:\n"
    "  upframe train data --views 400 --seed 1 -o data/\n"
    "  upframe train --step 6 --data data/ --window-mean -o step6.upfm\n";

/* Provenance text must be UTF-8 without control characters: keep printable ASCII only. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            *s = '?';
}

typedef struct load_progress {
    cli_progress bar;
} load_progress;

static void on_load(void *priv, int done, int total)
{
    load_progress *p = priv;
    cli_progress_update(&p->bar, (double)done / total, "%d of %d pairs", done, total);
}

/* Reads the step-`step` model of a model file. */
static int load_init(upf_context *ctx, const char *path, int step, upf__net_model *out)
{
    int rc;
    upf_models *set = cli_load_models(CMD, ctx, path, &rc);
    if (!set)
        return rc;
    int found = -1;
    for (int i = 0; i < set->count; i++)
        if (set->model[i].step == step)
            found = i;
    if (found < 0) {
        upf_models_destroy(&set);
        return cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s has no model for step %d", path, step);
    }
    *out = set->model[found];
    upf_models_destroy(&set);
    return CLI_EXIT_OK;
}

/* How many times a dead network is taken back to earlier weights before the run fails. */
#define TRAIN_RESTARTS_MAX 3
#define TRAIN_SNAPSHOTS 3 /* live states kept to go back to */

typedef struct train_args {
    const char *data, *out, *init, *code, *save;
    train_config cfg;
    double validation;
    long val_every, log_every;
    long threads;
    bool quiet, mirror, transpose;
    int restarts;                   /* dead networks taken back (main loop) */
    char restart_text[160];         /* "at steps 960, 1680" for the provenance */
} train_args;

static int parse_args(int argc, char **argv, train_args *a)
{
    const char *step_s = NULL, *steps_s = NULL, *batch_s = NULL, *lr_s = NULL, *final_s = NULL;
    const char *warm_s = NULL, *seed_s = NULL, *flat_s = NULL, *val_s = NULL, *valw_s = NULL;
    const char *every_s = NULL, *log_s = NULL, *sigma_s = NULL;
    bool window_mean = false, cubic_base = false, lanczos_base = false, srgb_base = false;
    bool no_smaa = false;
    memset(a, 0, sizeof *a);
    cli_common common = { 0 };
    cli_args p;
    cli_args_init(&p, CMD, argc, argv);
    while (cli_args_next(&p)) {
        if (cli_common_option(&p, &common, CLI_OPT_THREADS)) {
        } else if (cli_args_option(&p, "-o") || cli_args_option(&p, "--output"))
            a->out = p.value;
        else if (cli_args_option(&p, "--step"))
            step_s = p.value;
        else if (cli_args_option(&p, "--data"))
            a->data = p.value;
        else if (cli_args_option(&p, "--steps"))
            steps_s = p.value;
        else if (cli_args_option(&p, "--batch"))
            batch_s = p.value;
        else if (cli_args_option(&p, "--lr"))
            lr_s = p.value;
        else if (cli_args_option(&p, "--lr-final"))
            final_s = p.value;
        else if (cli_args_option(&p, "--warmup"))
            warm_s = p.value;
        else if (cli_args_option(&p, "--seed"))
            seed_s = p.value;
        else if (cli_args_option(&p, "--flat"))
            flat_s = p.value;
        else if (cli_args_option(&p, "--validation"))
            val_s = p.value;
        else if (cli_args_option(&p, "--val-windows"))
            valw_s = p.value;
        else if (cli_args_option(&p, "--val-every"))
            every_s = p.value;
        else if (cli_args_option(&p, "--init"))
            a->init = p.value;
        else if (cli_args_option(&p, "--init-sigma"))
            sigma_s = p.value;
        else if (cli_args_option(&p, "--code"))
            a->code = p.value;
        else if (cli_args_option(&p, "--save-validation"))
            a->save = p.value;
        else if (cli_args_option(&p, "--log-every"))
            log_s = p.value;
        else if (cli_args_flag(&p, "--window-mean"))
            window_mean = true;
        else if (cli_args_flag(&p, "--cubic-base"))
            cubic_base = true;
        else if (cli_args_flag(&p, "--sqrt-lanczos-base"))
            lanczos_base = true;
        else if (cli_args_flag(&p, "--srgb-lanczos-base"))
            srgb_base = true;
        else if (cli_args_flag(&p, "--no-smaa"))
            no_smaa = true;
        else if (cli_args_flag(&p, "--mirror"))
            a->mirror = true;
        else if (cli_args_flag(&p, "--transpose"))
            a->transpose = true;
        else
            return cli_args_unknown(&p);
    }
    if (p.failed)
        return CLI_EXIT_USAGE;
    a->quiet = common.quiet;
    a->threads = common.threads;
    long step = 0;
    if (!step_s)
        return cli_usage(CMD, "no --step given (4..10: the model's input step, ratio 12/S)");
    if (!cli_parse_int(step_s, UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX, &step))
        return cli_usage(CMD, "--step '%s' must be %d..%d", step_s, UPF_MODEL_STEP_MIN,
                         UPF_MODEL_STEP_MAX);
    if (!a->data)
        return cli_usage(CMD, "no --data DIR given (make one with 'upframe train data')");
    if (!a->out)
        return cli_usage(CMD, "no output given (-o MODEL.upfm)");
    a->cfg = train_config_defaults((int)step);
    a->validation = 0.1;
    long v;
    double d;
    if (steps_s) {
        if (!cli_parse_int(steps_s, 1, 100000000, &v))
            return cli_usage(CMD, "--steps '%s' must be 1..100000000", steps_s);
        a->cfg.steps = v;
    }
    if (batch_s) {
        if (!cli_parse_int(batch_s, 1, 65536, &v))
            return cli_usage(CMD, "--batch '%s' must be 1..65536", batch_s);
        a->cfg.batch = (int)v;
    }
    if (lr_s) {
        if (!cli_parse_double(lr_s, 1e-9, 0.999, &d))
            return cli_usage(CMD, "--lr '%s' must be a number in 1e-9..0.999", lr_s);
        a->cfg.lr = d;
    }
    if (final_s) {
        if (!cli_parse_double(final_s, 0, 1, &d))
            return cli_usage(CMD, "--lr-final '%s' must be a fraction in 0..1", final_s);
        a->cfg.lr_final = d;
    }
    a->cfg.warmup = UPF_MIN(a->cfg.warmup, a->cfg.steps / 4);
    if (warm_s) {
        if (!cli_parse_int(warm_s, 0, a->cfg.steps, &v))
            return cli_usage(CMD, "--warmup '%s' must be 0..%ld (the steps)", warm_s,
                             a->cfg.steps);
        a->cfg.warmup = v;
    }
    if (seed_s) {
        char *end;
        unsigned long long s = strtoull(seed_s, &end, 10);
        if (!*seed_s || *end || *seed_s == '-')
            return cli_usage(CMD, "--seed '%s' must be a whole number >= 0", seed_s);
        a->cfg.seed = s;
    }
    if (flat_s) {
        if (!cli_parse_double(flat_s, 0, 1, &d))
            return cli_usage(CMD, "--flat '%s' must be a fraction in 0..1", flat_s);
        a->cfg.flat = d;
    }
    if (val_s) {
        if (!cli_parse_double(val_s, 0, 0.9, &d))
            return cli_usage(CMD, "--validation '%s' must be a fraction in 0..0.9", val_s);
        a->validation = d;
    }
    if (valw_s) {
        if (!cli_parse_int(valw_s, 0, 1 << 24, &v))
            return cli_usage(CMD, "--val-windows '%s' must be 0..%d", valw_s, 1 << 24);
        a->cfg.val_windows = (int)v;
    }
    a->val_every = a->cfg.steps / 50 > 0 ? a->cfg.steps / 50 : 1;
    if (every_s) {
        if (!cli_parse_int(every_s, 1, 100000000, &v))
            return cli_usage(CMD, "--val-every '%s' must be 1..100000000", every_s);
        a->val_every = v;
    }
    if (log_s) {
        if (!cli_parse_int(log_s, 1, 100000000, &v))
            return cli_usage(CMD, "--log-every '%s' must be 1..100000000", log_s);
        a->log_every = v;
    }
    if (sigma_s) {
        if (!cli_parse_double(sigma_s, 1e-6, 9, &d))
            return cli_usage(CMD, "--init-sigma '%s' must be a number in 1e-6..9", sigma_s);
        a->cfg.init_sigma = d;
    }
    if (window_mean)
        a->cfg.flags |= UPF_MODEL_FLAG_WINDOW_MEAN;
    if ((int)cubic_base + (int)lanczos_base + (int)srgb_base > 1)
        return cli_usage(CMD, "--cubic-base, --sqrt-lanczos-base and --srgb-lanczos-base: a "
                         "model has one base");
    if (cubic_base)
        a->cfg.flags |= UPF_MODEL_FLAG_CUBIC_BASE;
    if (lanczos_base)
        a->cfg.flags |= UPF_MODEL_FLAG_SQRT_LANCZOS_BASE;
    if (srgb_base)
        a->cfg.flags |= UPF_MODEL_FLAG_SRGB_LANCZOS_BASE;
    if (no_smaa)
        a->cfg.flags |= UPF_MODEL_FLAG_NO_SMAA;
    return CLI_EXIT_OK;
}

/* The provenance: one key=value a line (docs/MODELS.md). */
static void provenance(char *out, size_t size, const train_args *a, const train_set *set,
                       int threads, double seconds, double train_loss, double val_fp32,
                       const train_eval *ev)
{
    const train_config *c = &a->cfg;
    char data[1100], code[200];
    snprintf(data, sizeof data, "%s", set->description);
    snprintf(code, sizeof code, "%s", a->code ? a->code : "unknown (pass --code)");
    sanitize(data);
    sanitize(code);
    char flags[64];
    upf__model_flags_text(c->flags, flags, sizeof flags);
    const char *base = (c->flags & UPF_MODEL_FLAG_CUBIC_BASE)         ? "cubic base"
                       : (c->flags & UPF_MODEL_FLAG_SQRT_LANCZOS_BASE) ? "sqrt Lanczos base"
                       : (c->flags & UPF_MODEL_FLAG_SRGB_LANCZOS_BASE) ? "sRGB Lanczos base"
                                                                       : "bilinear base";
    size_t n = 0;
#define ADD(...) n += (size_t)snprintf(out + n, n < size ? size - n : 0, __VA_ARGS__)
    ADD("trainer=upframe train %s\n", upf_version());
    ADD("code=%s\n", code);
    ADD("step=%d ratio=%.4g flags=%s\n", c->step, 12.0 / c->step, flags);
    ADD("data=%s\n", data);
    ADD("pairs=%d training=%d validation=%d (groups held out by name hash, fraction %.3g)%s\n",
        set->count, train_set_count(set, false), train_set_count(set, true), a->validation,
        a->mirror && a->transpose ? ", training pairs also mirrored, transposed and both"
        : a->mirror               ? ", training pairs also mirrored"
        : a->transpose            ? ", training pairs also transposed"
                                  : "");
    ADD("target=luma(sqrt(reference)) - luma(%s of the SMAA sqrt frame)\n", base);
    ADD("loss=mean squared error over each window's 12x12 block\n");
    ADD("sampling=edge bits of pass 1, flat=%.3g\n", c->flat);
    if (a->init)
        ADD("init=from a model file\n");
    else
        ADD("init=normal(0, %.4g^2), stage 6 A and C x0.1\n", c->init_sigma);
    ADD("optimizer=adam(0.9, 0.999, 1e-8) lr=%.4g warmup=%ld cosine-to=%.4g\n", c->lr,
        c->warmup, c->lr * c->lr_final);
    ADD("seed=%llu steps=%ld batch=%d\n", (unsigned long long)c->seed, c->steps, c->batch);
    if (a->restarts)
        ADD("restarts=%d (the network died %s: each time back to the weights and Adam state of "
            "a live check, the learning rate halved)\n", a->restarts, a->restart_text);
    ADD("train-loss=%.6g (last 1%% of steps, edge-weighted windows)\n", train_loss);
    if (ev->pairs) {
        ADD("validation-loss=%.6g fp16 weights through pass 4 (fp32 weights %.6g, zero detail "
            "%.6g)\n", ev->loss, val_fp32, ev->zero_loss);
        ADD("validation-psnr=%.3f dB (%s %.3f, lanczos %.3f) over %d pairs\n",
            ev->psnr_model, base, ev->psnr_base, ev->psnr_lanczos, ev->pairs);
        ADD("validation-ssim=%.4f (%s %.4f, lanczos %.4f)\n", ev->ssim_model, base,
            ev->ssim_base, ev->ssim_lanczos);
    }
    ADD("time=%.0f s on %d threads", seconds, threads);
#undef ADD
    if (n >= size)
        out[size - 1] = '\0';
}

static int run_train_model(int argc, char **argv)
{
    train_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_EXIT_OK)
        return rc;
    bool exists; /* the model file's place, checked before hours of training */
    if ((rc = cli_check_file_output(CMD, a.out, &exists)) != CLI_EXIT_OK)
        return rc;
    if (exists)
        cli_note(CMD, "%s will be replaced when the model is done", a.out);
    upf_context *ctx = cli_context(CMD, (int)a.threads);
    if (!ctx)
        return CLI_EXIT_INTERNAL;
    const int threads = upf_context_threads(ctx);
    upf__net_model *init = NULL, *final = NULL;
    trainer *tr = NULL;
    train_set set;
    memset(&set, 0, sizeof set);
    double t0 = cli_now();

    if (a.init) {
        init = calloc(1, sizeof *init);
        if (!init) {
            rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
            goto done;
        }
        if ((rc = load_init(ctx, a.init, a.cfg.step, init)) != CLI_EXIT_OK)
            goto done;
        if (init->flags != a.cfg.flags) {
            rc = cli_fail(CMD, CLI_EXIT_BAD_INPUT, "%s: its step-%d model has flags 0x%x, this "
                          "run 0x%x (add or drop --window-mean or --cubic-base to match)", a.init, a.cfg.step,
                          (unsigned)init->flags, (unsigned)a.cfg.flags);
            goto done;
        }
    }

    load_progress lp;
    cli_progress_begin(&lp.bar, "loading pairs", a.quiet);
    upf_result r = train_set_load_dir(ctx, a.data, a.cfg.step, a.cfg.flags, a.validation,
                                      (a.mirror ? TRAIN_AUGMENT_MIRROR : 0u) |
                                          (a.transpose ? TRAIN_AUGMENT_TRANSPOSE : 0u),
                                      &set, on_load, &lp);
    cli_progress_end(&lp.bar);
    if (r != UPF_OK) {
        rc = cli_fail_upf(CMD, ctx, r);
        goto done;
    }
    double t_load = cli_now() - t0;
    if ((r = trainer_create(ctx, &set, &a.cfg, &tr)) != UPF_OK) {
        rc = cli_fail_upf(CMD, ctx, r);
        goto done;
    }
    if (init)
        trainer_set_weights(tr, init);

    /* Train. */
    cli_progress bar;
    cli_progress_begin(&bar, "training", a.quiet);
    const double t_train = cli_now();
    double val = NAN, zero = NAN, tail_loss = 0, val_seconds = 0;
    long tail_count = 0;
    const long tail_from = a.cfg.steps - UPF_MAX(a.cfg.steps / 100, UPF_MIN(a.cfg.steps, 10));
    double recent = 0;
    int dead_checks = 0; /* validations in a row, after the warm-up, with no live output */
    /* The optimizer's state at the last TRAIN_SNAPSHOTS validation checks where the network was
     * alive, to go back to when it dies (its ReLUs all off, so it cannot learn again): the
     * first restart goes back to the newest, each further one that comes before the run has
     * got past the step where it last died goes one check further back. */
    train_state *snaps = calloc(TRAIN_SNAPSHOTS, sizeof *snaps);
    int n_snaps = 0, streak = 0;
    long died_at = 0;
    if (!snaps) {
        cli_progress_end(&bar);
        rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
        goto done;
    }
    /* A test hook (tests/test_train.c): UPFRAME_TRAIN_KILL_AT=N sets every weight to 0 after
     * step N once, a network that died there, so that the restart can be tested on any CPU. */
    const char *kill_env = getenv("UPFRAME_TRAIN_KILL_AT");
    const long kill_at = kill_env ? strtol(kill_env, NULL, 10) : -1;
    for (long s = 0; s < a.cfg.steps; s++) {
        double loss;
        if (s == kill_at) {
            upf__net_model *zeros = calloc(1, sizeof *zeros);
            if (zeros) {
                trainer_set_weights(tr, zeros);
                free(zeros);
            }
        }
        if ((r = trainer_step(tr, &loss)) != UPF_OK) {
            cli_progress_end(&bar);
            rc = cli_fail_upf(CMD, ctx, r);
            free(snaps);
            goto done;
        }
        recent = s ? 0.98 * recent + 0.02 * loss : loss;
        if (s >= tail_from) {
            tail_loss += loss;
            tail_count++;
        }
        /* After the first step too, so every progress line has a validation loss. */
        if (s == 0 || (s + 1) % a.val_every == 0 || s + 1 == a.cfg.steps) {
            const double tv = cli_now();
            const bool have_val = trainer_validation_loss(tr, NULL, &val, &zero);
            val_seconds += cli_now() - tv;
            /* A dead network stays dead: stop rather than spend the run and write garbage.
             * Two checks after the warm-up, so a network that is only quiet at first is not
             * stopped. */
            dead_checks = have_val && s > 0 && s + 1 > a.cfg.warmup &&
                                  trainer_validation_live(tr) == 0 ? dead_checks + 1 : 0;
            if (have_val && s > 0 && trainer_validation_live(tr) > 0 && s + 1 > died_at) {
                if (n_snaps == TRAIN_SNAPSHOTS)
                    memmove(snaps, snaps + 1, (TRAIN_SNAPSHOTS - 1) * sizeof *snaps);
                else
                    n_snaps++;
                trainer_save_state(tr, &snaps[n_snaps - 1]);
                streak = 0;
            }
            if (dead_checks >= 2 && n_snaps > 0 && a.restarts < TRAIN_RESTARTS_MAX) {
                /* Back to a live state, the learning rate halved for the rest of the run (the
                 * schedule goes on from this step). */
                streak++;
                const int back = n_snaps - streak > 0 ? n_snaps - streak : 0;
                trainer_restore_state(tr, &snaps[back]);
                trainer_scale_lr(tr, 0.5);
                n_snaps = back + 1;
                died_at = s + 1;
                a.restarts++;
                size_t used = strlen(a.restart_text);
                snprintf(a.restart_text + used, sizeof a.restart_text - used, "%sat step %ld",
                         used ? ", " : "", s + 1);
                dead_checks = 0;
                cli_progress_end(&bar);
                cli_note(CMD, "step %ld: the network's output is exactly 0 on every validation "
                         "window (its ReLUs all off): back to its weights and Adam state of "
                         "step %ld, learning rate halved to %.3g (restart %d of %d)", s + 1,
                         snaps[back].step, a.cfg.lr * pow(0.5, a.restarts), a.restarts,
                         TRAIN_RESTARTS_MAX);
                cli_progress_begin(&bar, "training", a.quiet);
            } else if (dead_checks >= 2) {
                cli_progress_end(&bar);
                rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "after %ld steps the network's output is "
                              "exactly 0 on every validation window, at two checks in a row: "
                              "the ReLUs of some stage are all off, so no gradient reaches the "
                              "weights and it cannot learn%s; nothing written. Rerun with another "
                              "--seed, a lower --lr or another --init-sigma", s + 1,
                              a.restarts ? " (after 3 restarts from earlier states at half the "
                                           "learning rate each)"
                                         : "");
                free(snaps);
                goto done;
            }
        }
        const double elapsed = cli_now() - t_train, busy = elapsed - val_seconds;
        const double wps = (double)(s + 1) * a.cfg.batch / (busy > 0 ? busy : 1e-9);
        cli_progress_update(&bar, (double)(s + 1) / a.cfg.steps, "step %ld/%ld, loss %.3e, "
                            "val %.3e (%.3f of the base's), %.0f windows/s", s + 1, a.cfg.steps,
                            recent, val, val / zero, wps);
        if (a.log_every && ((s + 1) % a.log_every == 0 || s + 1 == a.cfg.steps)) {
            printf("step %ld/%ld: loss %.4e, val %.4e (%.4f of the base's), lr %.3g, %.0f "
                   "windows/s, %.0f s\n", s + 1, a.cfg.steps, recent, val, val / zero,
                   train_lr_at(s, a.cfg.steps, a.cfg.warmup, a.cfg.lr, a.cfg.lr_final), wps,
                   elapsed);
            fflush(stdout);
        }
    }
    cli_progress_end(&bar);
    free(snaps);
    const double train_seconds = cli_now() - t_train;
    const double step_seconds = train_seconds - val_seconds; /* without the running validation */
    tail_loss /= tail_count ? (double)tail_count : 1.0;
    /* The fp32 weights' loss over every validation window (the running one saw a subset),
     * to compare with the fp16 weights' below. */
    train_eval ev32;
    if ((r = train_evaluate(ctx, &set, trainer_model(tr), NULL, &ev32)) != UPF_OK) {
        rc = cli_fail_upf(CMD, ctx, r);
        goto done;
    }
    const double val_fp32 = ev32.pairs ? ev32.loss : NAN;

    /* Export as shipped: fp16 weights, evaluated with pass 4. */
    final = calloc(1, sizeof *final);
    if (!final) {
        rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
        goto done;
    }
    *final = *trainer_model(tr);
    for (int st = 0; st < UPF_NET_STAGES; st++)
        for (int m = 0; m < UPF_NET_MATRICES; m++)
            for (int i = 0; i < UPF_NET_WINDOW; i++)
                final->w[st][m][i] = upf_half_to_float(upf_float_to_half(final->w[st][m][i]));
    train_eval ev;
    if ((r = train_evaluate(ctx, &set, final, a.save, &ev)) != UPF_OK) {
        rc = cli_fail_upf(CMD, ctx, r);
        goto done;
    }
    const double seconds = cli_now() - t0;
    provenance(final->provenance, sizeof final->provenance, &a, &set, threads, seconds,
               tail_loss, val_fp32, &ev);
    const upf__net_model *list[1] = { final };
    size_t size = upf__net_file_size(list, 1);
    void *buf = malloc(size);
    if (!buf) {
        rc = cli_fail(CMD, CLI_EXIT_INTERNAL, "out of memory");
        goto done;
    }
    r = upf__net_write(ctx, list, 1, buf, size);
    if (r != UPF_OK) {
        free(buf);
        rc = cli_fail_upf(CMD, ctx, r);
        goto done;
    }
    char err[IMAGEIO_ERR_SIZE];
    r = imageio_write_file_atomic(a.out, buf, size, err);
    free(buf);
    if (r != UPF_OK) {
        rc = cli_fail(CMD, cli_exit_code(r), "%s", err);
        goto done;
    }
    if (!a.quiet) {
        const double windows = (double)a.cfg.steps * a.cfg.batch;
        char flags[64];
        upf__model_flags_text(a.cfg.flags, flags, sizeof flags);
        char n1[32], n2[32], n3[32];
        printf("wrote %s: step %d (ratio %.4g), flags %s; %s of %s in %.1f s "
               "(%.1f s of it running validation; %.0f windows/s on %s, %.0f per "
               "thread)\n", a.out, a.cfg.step, 12.0 / a.cfg.step, flags,
               cli_count(n1, sizeof n1, a.cfg.steps, "step", "steps"),
               cli_count(n2, sizeof n2, a.cfg.batch, "window", "windows"), train_seconds,
               val_seconds, windows / step_seconds,
               cli_count(n3, sizeof n3, threads, "thread", "threads"),
               windows / step_seconds / threads);
        printf("  data: %s: %s (%d training, %d validation), loaded in %.1f s\n", a.data,
               cli_count(n1, sizeof n1, set.count, "pair", "pairs"),
               train_set_count(&set, false), train_set_count(&set, true), t_load);
        printf("  training loss %.4e (last 1%% of steps, edge-weighted windows)\n", tail_loss);
        if (ev.pairs) {
            printf("  validation, fp16 weights through pass 4 (sharpness 0), %s:\n",
                   cli_count(n1, sizeof n1, ev.pairs, "pair", "pairs"));
            printf("    detail loss %.4e (fp32 weights %.4e), zero detail (the base) "
                   "%.4e: %.3f of it\n", ev.loss, val_fp32, ev.zero_loss,
                   ev.loss / ev.zero_loss);
            printf("    PSNR  model %.3f dB, base %.3f dB, lanczos %.3f dB\n",
                   ev.psnr_model, ev.psnr_base, ev.psnr_lanczos);
            printf("    SSIM  model %.4f, base %.4f, lanczos %.4f\n", ev.ssim_model,
                   ev.ssim_base, ev.ssim_lanczos);
        } else {
            printf("  validation: no validation pairs (--validation 0 or a single group)\n");
        }
    }
    rc = CLI_EXIT_OK;
done:
    trainer_destroy(&tr);
    train_set_free(ctx, &set);
    free(init);
    free(final);
    upf_context_destroy(&ctx);
    return rc;
}

/* ---- upframe train data ------------------------------------------------------------------ */

static void on_render(void *priv, int done, int total)
{
    cli_progress *bar = priv;
    cli_progress_update(bar, (double)done / total, "view %d of %d", done, total);
}

static int run_train_data(int argc, char **argv)
{
    const char *out = NULL, *views_s = NULL, *seed_s = NULL, *spp_s = NULL, *per_s = NULL;
    const char *size_s = NULL, *bias_s = NULL, *steps_s = NULL;
    train_data_config cfg = train_data_defaults();
    cli_common common = { 0 };
    cli_args p;
    cli_args_init(&p, CMD, argc, argv);
    while (cli_args_next(&p)) {
        if (cli_common_option(&p, &common, CLI_OPT_THREADS)) {
        } else if (cli_args_option(&p, "-o") || cli_args_option(&p, "--output"))
            out = p.value;
        else if (cli_args_option(&p, "--views"))
            views_s = p.value;
        else if (cli_args_option(&p, "--seed"))
            seed_s = p.value;
        else if (cli_args_option(&p, "--spp"))
            spp_s = p.value;
        else if (cli_args_option(&p, "--views-per-scene"))
            per_s = p.value;
        else if (cli_args_option(&p, "--size"))
            size_s = p.value;
        else if (cli_args_option(&p, "--mip-bias-offset"))
            bias_s = p.value;
        else if (cli_args_option(&p, "--steps"))
            steps_s = p.value;
        else if (cli_args_option(&p, "--scenes"))
            cfg.scenes = p.value;
        else if (cli_args_positional(&p))
            return cli_usage(CMD, "data: unexpected argument '%s'", p.arg);
        else
            return cli_usage(CMD, "data: unknown option '%s'", p.arg);
    }
    if (p.failed)
        return CLI_EXIT_USAGE;
    const bool quiet = common.quiet;
    long v;
    double d;
    if (!views_s)
        return cli_usage(CMD, "data: no --views N given");
    if (!cli_parse_int(views_s, 1, 1000000, &v))
        return cli_usage(CMD, "data: --views '%s' must be 1..1000000", views_s);
    cfg.views = (int)v;
    if (!out)
        return cli_usage(CMD, "data: no output folder given (-o DIR)");
    if (seed_s) {
        if (!cli_parse_int(seed_s, 0, 4294967295L, &v))
            return cli_usage(CMD, "data: --seed '%s' must be 0..4294967295", seed_s);
        cfg.seed = (uint32_t)v;
    }
    if (spp_s) {
        if (!cli_parse_int(spp_s, 16, 4096, &v))
            return cli_usage(CMD, "data: --spp '%s' must be 16..4096", spp_s);
        cfg.spp = (int)v;
    }
    if (per_s) {
        if (!cli_parse_int(per_s, 1, 1000000, &v))
            return cli_usage(CMD, "data: --views-per-scene '%s' must be 1..1000000", per_s);
        cfg.views_per_scene = (int)v;
    }
    if (size_s && (!cli_parse_size(size_s, &cfg.width, &cfg.height) || cfg.width % 12 ||
                   cfg.height % 12 || cfg.width < 12 || cfg.height < 12))
        return cli_usage(CMD, "data: --size '%s' must be WxH with each side a multiple of 12",
                         size_s);
    if (bias_s) {
        if (!cli_parse_double(bias_s, -4, 4, &d))
            return cli_usage(CMD, "data: --mip-bias-offset '%s' must be -4..4", bias_s);
        cfg.mip_bias_offset = d;
    }
    if (steps_s) {
        for (int s = 0; s <= UPF_MODEL_STEP_MAX; s++)
            cfg.steps[s] = false;
        for (const char *q = steps_s; *q;) {
            char buf[16];
            size_t k = strcspn(q, ",");
            if (k == 0 || k >= sizeof buf)
                return cli_usage(CMD, "data: --steps '%s' must be a comma list of 4..10",
                                 steps_s);
            memcpy(buf, q, k);
            buf[k] = '\0';
            if (!cli_parse_int(buf, UPF_MODEL_STEP_MIN, UPF_MODEL_STEP_MAX, &v))
                return cli_usage(CMD, "data: --steps '%s' must be a comma list of 4..10",
                                 steps_s);
            cfg.steps[v] = true;
            q += k + (q[k] == ',');
        }
    }
    upf_context *ctx = cli_context_for(CMD, &common);
    if (!ctx)
        return CLI_EXIT_INTERNAL;
    cli_progress bar;
    cli_progress_begin(&bar, "rendering", quiet);
    char summary[1024];
    const double t0 = cli_now();
    upf_result r = train_render_data(ctx, out, &cfg, on_render, &bar, summary, sizeof summary);
    cli_progress_end(&bar);
    int rc = CLI_EXIT_OK;
    if (r != UPF_OK) {
        rc = cli_fail_upf(CMD, ctx, r);
    } else if (!quiet) {
        const double t = cli_now() - t0;
        char n1[32], n2[32];
        printf("wrote %s: %s in %.1f s (%.2f s a view, %s)\n  %s\n", out,
               cli_count(n1, sizeof n1, cfg.views, "view", "views"), t, t / cfg.views,
               cli_count(n2, sizeof n2, upf_context_threads(ctx), "thread", "threads"), summary);
    }
    upf_context_destroy(&ctx);
    return rc;
}

static int run_train(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "data") == 0)
        return run_train_data(argc - 1, argv + 1);
    return run_train_model(argc, argv);
}

const cli_command cli_cmd_train = {
    "train", run_train, "train a model of the spatial network: upframe train --step 6 --data DIR",
    train_help,
};
