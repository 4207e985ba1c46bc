/* train_loop.c: the trainer (train.h): window sampling, minibatch steps over the context's
 * workers, the running validation loss, and the evaluation of a model with the real pass 4.
 *
 * Reads a train_set (its training pairs for the steps, its validation pairs for the losses
 * and the evaluation); writes the model's weights (trainer_model) and evaluation figures.
 *
 * Sampling: each window of the batch is drawn, on the calling thread from the seeded
 * generator, either uniformly over every training window (a fraction `flat` of the draws) or
 * with probability proportional to its pass-1 edge bits (the rest): windows with edges, where
 * aliasing is and where bilinear loses the most, are seen more often, and flat ones still
 * are. (If no window has an edge bit, every draw is uniform.)
 *
 * Determinism: the batch is cut into chunks of TRAIN_CHUNK windows; a task computes one chunk,
 * summing the windows' gradients in order into the chunk's own buffer, and the buffers are
 * added in chunk order. Which worker runs a chunk changes nothing, so the weights after any
 * number of steps are the same for any number of threads. Worker numbers only pick scratch. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/image.h"
#include "imageio/image_io.h"
#include "spatial/reconstruct.h"
#include "train/train.h"

typedef struct win_ref {
    int pair;
    int16_t gx, gy;
} win_ref;

typedef struct worker_scratch {
    train_acts acts;
    float window[UPF_NET_WINDOW];
    float target[UPF_NET_BLOCK * UPF_NET_BLOCK];
    float dout[UPF_NET_WINDOW];
} worker_scratch;

#define VAL_CHUNK 64 /* validation windows per task */

struct trainer {
    upf_context *ctx;
    const train_set *set;
    train_config cfg;
    upf__net_model model;      /* fp32 weights (model.w), step and flags */
    train_adam adam;
    train_rng rng;
    long steps_done;

    int n_train;               /* training windows */
    win_ref *train;
    double *cdf;               /* cdf[i]: the edge weights of windows 0..i */
    double total_weight;

    int n_val;                 /* validation windows for the running loss */
    win_ref *val;
    double val_zero_loss;
    double *val_chunk_loss;
    long *val_chunk_live;      /* per chunk: detail values not exactly 0 */
    long val_live;             /* their sum at the last validation */

    int chunks;                /* batch / TRAIN_CHUNK, rounded up */
    win_ref *batch;
    float *chunk_grad;         /* chunks x UPF_NET_WEIGHTS */
    double *chunk_loss;
    float *grad;               /* UPF_NET_WEIGHTS */
    float *wt;                 /* the weights' transposes, UPF_NET_WEIGHTS */
    int workers;
    worker_scratch *scratch;   /* one per worker */
    float *val_windows;        /* workers x VAL_CHUNK x 2 windows (in and out) */
};

static float *weights(upf__net_model *m)
{
    return &m->w[0][0][0];
}

train_config train_config_defaults(int step)
{
    train_config c;
    memset(&c, 0, sizeof c);
    c.step = step;
    c.flags = 0;
    c.steps = 20000;
    c.batch = 128;
    c.lr = 2e-3;
    c.lr_final = 0.01;
    c.warmup = 500;
    c.seed = 1;
    c.flat = 0.25;
    c.val_windows = 8192;
    c.init_sigma = TRAIN_INIT_SIGMA;
    return c;
}

static upf_result check_config(upf_context *ctx, const train_set *set, const train_config *c)
{
    static const char fn[] = "trainer_create";
    if (c->step != set->step)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: step %d, but the data is for step "
                         "%d", fn, c->step, set->step);
    if (c->flags & ~UPF_MODEL_FLAGS_KNOWN)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: flags 0x%x; expected only 0x%x",
                         fn, c->flags, UPF_MODEL_FLAGS_KNOWN);
    if ((c->flags ^ set->flags) & UPF_MODEL_FLAGS_BASE)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: flags 0x%x, but the data's targets "
                         "were made for flags 0x%x (another base)", fn, c->flags, set->flags);
    if (c->steps < 1 || c->batch < 1 || c->batch > 1 << 20)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %ld steps of %d windows; expected "
                         "at least one step of 1..%d windows", fn, c->steps, c->batch, 1 << 20);
    if (!(c->lr > 0 && c->lr < 1) || !(c->lr_final >= 0 && c->lr_final <= 1))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: learning rate %g (final fraction "
                         "%g); expected 0 < lr < 1 and a fraction in 0..1", fn, c->lr,
                         c->lr_final);
    if (!(c->init_sigma > 0 && c->init_sigma < 10))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: initial sigma %g; expected a "
                         "number in (0, 10)", fn, c->init_sigma);
    if (c->warmup < 0 || !(c->flat >= 0 && c->flat <= 1) || c->val_windows < 0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: warm-up %ld, flat fraction %g, %d "
                         "validation windows; expected >= 0, 0..1, >= 0", fn, c->warmup, c->flat,
                         c->val_windows);
    return UPF_OK;
}

upf_result trainer_create(upf_context *ctx, const train_set *set, const train_config *cfg,
                          trainer **out)
{
    *out = NULL;
    upf_result r = check_config(ctx, set, cfg);
    if (r != UPF_OK)
        return r;
    trainer *tr = upf__alloc(ctx, sizeof *tr, "the trainer");
    if (!tr)
        return UPF_ERROR_OUT_OF_MEMORY;
    tr->ctx = ctx;
    tr->set = set;
    tr->cfg = *cfg;
    tr->model.step = cfg->step;
    tr->model.flags = cfg->flags;
    tr->model.detail_strength = 1.0f;
    train_rng_seed(&tr->rng, cfg->seed);
    train_init_weights(weights(&tr->model), &tr->rng, cfg->init_sigma);
    train_adam_init(&tr->adam);

    /* Windows: every one of the training pairs; the validation ones spread evenly. */
    long n_train = 0, n_val_all = 0;
    for (int p = 0; p < set->count; p++) {
        long n = (long)set->pairs[p].win_x * set->pairs[p].win_y;
        if (set->pairs[p].validation)
            n_val_all += n;
        else
            n_train += n;
    }
    if (n_train == 0) {
        upf__free(ctx, tr);
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "trainer_create: no training windows "
                         "(%d pairs, %d of them for validation); expected at least one training "
                         "pair", set->count, train_set_count(set, true));
    }
    if (n_train > 1L << 30) {
        upf__free(ctx, tr);
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "trainer_create: %ld training "
                         "windows; expected at most %ld", n_train, 1L << 30);
    }
    tr->n_train = (int)n_train;
    tr->n_val = (int)(n_val_all < cfg->val_windows ? n_val_all : cfg->val_windows);
    tr->workers = upf_context_threads(ctx);
    tr->chunks = (cfg->batch + TRAIN_CHUNK - 1) / TRAIN_CHUNK;
    const int val_chunks = (tr->n_val + VAL_CHUNK - 1) / VAL_CHUNK;
    tr->train = upf__alloc_array(ctx, (size_t)tr->n_train, sizeof *tr->train, "training windows");
    tr->cdf = upf__alloc_array(ctx, (size_t)tr->n_train, sizeof *tr->cdf, "window weights");
    tr->val = upf__alloc_array(ctx, (size_t)tr->n_val + 1, sizeof *tr->val, "validation windows");
    tr->val_chunk_loss = upf__alloc_array(ctx, (size_t)val_chunks + 1, 2 * sizeof(double),
                                          "validation losses");
    tr->val_chunk_live = upf__alloc_array(ctx, (size_t)val_chunks + 1, sizeof(long),
                                          "validation counts");
    tr->batch = upf__alloc_array(ctx, (size_t)cfg->batch, sizeof *tr->batch, "the batch");
    tr->chunk_grad = upf__alloc_array(ctx, (size_t)tr->chunks * UPF_NET_WEIGHTS, sizeof(float),
                                      "gradient buffers");
    tr->chunk_loss = upf__alloc_array(ctx, (size_t)tr->chunks, sizeof(double), "losses");
    tr->grad = upf__alloc_array(ctx, UPF_NET_WEIGHTS, sizeof(float), "the gradient");
    tr->wt = upf__alloc_array(ctx, UPF_NET_WEIGHTS, sizeof(float), "transposed weights");
    tr->scratch = upf__alloc_array(ctx, (size_t)tr->workers, sizeof *tr->scratch,
                                   "trainer scratch");
    tr->val_windows = upf__alloc_array(ctx, (size_t)tr->workers * VAL_CHUNK * 2,
                                       UPF_NET_WINDOW * sizeof(float), "validation scratch");
    if (!tr->train || !tr->cdf || !tr->val || !tr->val_chunk_loss || !tr->val_chunk_live ||
        !tr->batch ||
        !tr->chunk_grad || !tr->chunk_loss || !tr->grad || !tr->wt || !tr->scratch ||
        !tr->val_windows) {
        trainer_destroy(&tr);
        return UPF_ERROR_OUT_OF_MEMORY;
    }

    long k = 0;
    double sum = 0.0;
    for (int p = 0; p < set->count; p++) {
        const train_pair *pair = &set->pairs[p];
        if (pair->validation)
            continue;
        for (int gy = 0; gy < pair->win_y; gy++)
            for (int gx = 0; gx < pair->win_x; gx++, k++) {
                tr->train[k] = (win_ref){ p, (int16_t)gx, (int16_t)gy };
                sum += pair->edge_weight[gy * pair->win_x + gx];
                tr->cdf[k] = sum;
            }
    }
    tr->total_weight = sum;

    /* Validation windows: n_val of the n_val_all, at i * n_val_all / n_val. */
    long want = 0, seen = 0;
    double zero = 0.0;
    for (int p = 0; p < set->count && want < tr->n_val; p++) {
        const train_pair *pair = &set->pairs[p];
        if (!pair->validation)
            continue;
        for (int gy = 0; gy < pair->win_y; gy++)
            for (int gx = 0; gx < pair->win_x; gx++, seen++) {
                if (want < tr->n_val && seen == want * n_val_all / tr->n_val) {
                    tr->val[want++] = (win_ref){ p, (int16_t)gx, (int16_t)gy };
                    float block[UPF_NET_BLOCK * UPF_NET_BLOCK];
                    train_pair_target(pair, gx, gy, block);
                    for (int i = 0; i < UPF_NET_BLOCK * UPF_NET_BLOCK; i++)
                        zero += (double)block[i] * block[i];
                }
            }
    }
    tr->val_zero_loss = tr->n_val ? zero / ((double)tr->n_val * UPF_NET_BLOCK * UPF_NET_BLOCK) : 0;
    *out = tr;
    return UPF_OK;
}

void trainer_destroy(trainer **ptr)
{
    if (!ptr || !*ptr)
        return;
    trainer *tr = *ptr;
    upf_context *ctx = tr->ctx;
    upf__free(ctx, tr->train);
    upf__free(ctx, tr->cdf);
    upf__free(ctx, tr->val);
    upf__free(ctx, tr->val_chunk_loss);
    upf__free(ctx, tr->val_chunk_live);
    upf__free(ctx, tr->batch);
    upf__free(ctx, tr->chunk_grad);
    upf__free(ctx, tr->chunk_loss);
    upf__free(ctx, tr->grad);
    upf__free(ctx, tr->wt);
    upf__free(ctx, tr->scratch);
    upf__free(ctx, tr->val_windows);
    upf__free(ctx, tr);
    *ptr = NULL;
}

long trainer_steps_done(const trainer *tr)
{
    return tr->steps_done;
}

const upf__net_model *trainer_model(const trainer *tr)
{
    return &tr->model;
}

void trainer_set_weights(trainer *tr, const upf__net_model *model)
{
    memcpy(tr->model.w, model->w, sizeof tr->model.w);
    train_adam_init(&tr->adam);
}

void trainer_scale_lr(trainer *tr, double factor)
{
    tr->cfg.lr *= factor;
}

void trainer_save_state(const trainer *tr, train_state *out)
{
    memcpy(out->w, &tr->model.w[0][0][0], sizeof out->w);
    out->adam = tr->adam;
    out->step = tr->steps_done;
}

void trainer_restore_state(trainer *tr, const train_state *state)
{
    memcpy(weights(&tr->model), state->w, sizeof state->w);
    tr->adam = state->adam;
}

/* ---- a step --------------------------------------------------------------------------------- */

static win_ref sample_window(trainer *tr)
{
    const double u = train_rng_uniform(&tr->rng);
    if (u < tr->cfg.flat || !(tr->total_weight > 0)) {
        long i = (long)(train_rng_uniform(&tr->rng) * tr->n_train);
        return tr->train[i < tr->n_train ? i : tr->n_train - 1];
    }
    /* The first window whose cumulative weight exceeds x: windows of weight 0 are never it. */
    const double x = train_rng_uniform(&tr->rng) * tr->total_weight;
    long lo = 0, hi = tr->n_train - 1;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (tr->cdf[mid] > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return tr->train[lo];
}

static void chunk_task(void *priv, int c, int worker)
{
    trainer *tr = priv;
    worker_scratch *ws = &tr->scratch[worker];
    float *grad = tr->chunk_grad + (size_t)c * UPF_NET_WEIGHTS;
    const float *w = weights(&tr->model);
    const int first = c * TRAIN_CHUNK;
    const int last = UPF_MIN(tr->cfg.batch, first + TRAIN_CHUNK);
    const float scale = 1.0f / (float)tr->cfg.batch;
    double loss = 0.0;
    memset(grad, 0, UPF_NET_WEIGHTS * sizeof(float));
    for (int b = first; b < last; b++) {
        const win_ref wr = tr->batch[b];
        const train_pair *pair = &tr->set->pairs[wr.pair];
        train_pair_window(pair, wr.gx, wr.gy, ws->window);
        train_pair_target(pair, wr.gx, wr.gy, ws->target);
        train_forward(w, tr->model.flags, ws->window, &ws->acts, tr->ctx->cpu_flags);
        loss += train_loss(ws->acts.out, ws->target, scale, ws->dout);
        train_backward(w, tr->wt, &ws->acts, ws->dout, grad, tr->ctx->cpu_flags);
    }
    tr->chunk_loss[c] = loss;
}

upf_result trainer_step(trainer *tr, double *loss)
{
    for (int b = 0; b < tr->cfg.batch; b++)
        tr->batch[b] = sample_window(tr);
    train_transpose_weights(weights(&tr->model), tr->wt);
    upf__parallel_for(tr->ctx, chunk_task, tr, tr->chunks);

    /* The chunks' gradients and losses, added in chunk order. */
    memcpy(tr->grad, tr->chunk_grad, UPF_NET_WEIGHTS * sizeof(float));
    double sum = tr->chunk_loss[0];
    for (int c = 1; c < tr->chunks; c++) {
        const float *g = tr->chunk_grad + (size_t)c * UPF_NET_WEIGHTS;
        for (int i = 0; i < UPF_NET_WEIGHTS; i++)
            tr->grad[i] += g[i];
        sum += tr->chunk_loss[c];
    }
    for (int i = 0; i < UPF_NET_WEIGHTS; i++)
        if (!isfinite(tr->grad[i]))
            return upf__fail(tr->ctx, UPF_ERROR_BAD_DATA, "trainer_step: step %ld: the gradient "
                             "is not finite (weight %d); expected finite numbers (try a lower "
                             "learning rate)", tr->steps_done + 1, i);
    const double lr = train_lr_at(tr->steps_done, tr->cfg.steps, tr->cfg.warmup, tr->cfg.lr,
                                  tr->cfg.lr_final);
    train_adam_step(&tr->adam, weights(&tr->model), tr->grad, UPF_NET_WEIGHTS, lr);
    tr->steps_done++;
    if (loss)
        *loss = sum / tr->cfg.batch;
    return UPF_OK;
}

/* ---- the running validation loss ------------------------------------------------------------- */

typedef struct val_job {
    trainer *tr;
    const upf__net_model *model;
} val_job;

static void val_task(void *priv, int c, int worker)
{
    const val_job *job = priv;
    trainer *tr = job->tr;
    float *in = tr->val_windows + (size_t)worker * VAL_CHUNK * 2 * UPF_NET_WINDOW;
    float *out = in + (size_t)VAL_CHUNK * UPF_NET_WINDOW;
    const int first = c * VAL_CHUNK, n = UPF_MIN(tr->n_val - first, VAL_CHUNK);
    for (int k = 0; k < n; k++) {
        const win_ref wr = tr->val[first + k];
        train_pair_window(&tr->set->pairs[wr.pair], wr.gx, wr.gy, in + (size_t)k * UPF_NET_WINDOW);
    }
    /* The forward of pass 4 itself, the fastest the CPU runs (net.h). */
    upf__net_forward_for(tr->ctx->cpu_flags)(job->model, in, out, n);
    double loss = 0.0;
    long live = 0;
    for (int k = 0; k < n; k++) {
        const win_ref wr = tr->val[first + k];
        float block[UPF_NET_BLOCK * UPF_NET_BLOCK];
        train_pair_target(&tr->set->pairs[wr.pair], wr.gx, wr.gy, block);
        const float *o = out + (size_t)k * UPF_NET_WINDOW;
        for (int r = 0; r < UPF_NET_BLOCK; r++)
            for (int q = 0; q < UPF_NET_BLOCK; q++) {
                double e = (double)o[r * UPF_NET_DIM + q] - block[r * UPF_NET_BLOCK + q];
                loss += e * e;
                live += o[r * UPF_NET_DIM + q] != 0.0f;
            }
    }
    tr->val_chunk_loss[c] = loss;
    tr->val_chunk_live[c] = live;
}

long trainer_validation_live(const trainer *tr)
{
    return tr->val_live;
}

bool trainer_validation_loss(trainer *tr, const upf__net_model *model, double *loss,
                             double *zero_loss)
{
    if (tr->n_val == 0)
        return false;
    const int chunks = (tr->n_val + VAL_CHUNK - 1) / VAL_CHUNK;
    val_job job = { tr, model ? model : &tr->model };
    upf__parallel_for(tr->ctx, val_task, &job, chunks);
    double sum = 0.0;
    tr->val_live = 0;
    for (int c = 0; c < chunks; c++) {
        sum += tr->val_chunk_loss[c];
        tr->val_live += tr->val_chunk_live[c];
    }
    if (loss)
        *loss = sum / ((double)tr->n_val * UPF_NET_BLOCK * UPF_NET_BLOCK);
    if (zero_loss)
        *zero_loss = tr->val_zero_loss;
    return true;
}

/* ---- evaluation with pass 4 ------------------------------------------------------------------ */

typedef struct eval_scores {
    double psnr, ssim;
} eval_scores;

static upf_result score(upf_context *ctx, const upf_image *ref, const upf_image *test,
                        eval_scores *s)
{
    upf_psnr_result p;
    upf_result r = upf_metric_psnr(ctx, ref, test, NULL, &p);
    if (r == UPF_OK && ref->width >= 11 && ref->height >= 11)
        r = upf_metric_ssim(ctx, ref, test, NULL, &s->ssim);
    else
        s->ssim = 0;
    s->psnr = p.rgb;
    return r;
}

static upf_result save_png(upf_context *ctx, const char *dir, const char *name,
                          const char *what, const upf_image *img)
{
    char path[4096], err[IMAGEIO_ERR_SIZE];
    snprintf(path, sizeof path, "%s/%s.%s.png", dir, name, what);
    upf_result r = imageio_write_png(path, img, 8, err);
    return r == UPF_OK ? UPF_OK : upf__fail(ctx, r, "%s", err);
}

upf_result train_evaluate(upf_context *ctx, const train_set *set, const upf__net_model *model,
                          const char *save_dir, train_eval *out)
{
    memset(out, 0, sizeof *out);
    if ((model->flags ^ set->flags) & UPF_MODEL_FLAGS_BASE)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "train_evaluate: model flags 0x%x, but "
                         "the data's targets were made for flags 0x%x (another base)",
                         (unsigned)model->flags, (unsigned)set->flags);
    const int threads = upf_context_threads(ctx);
    upf_result r = UPF_OK;
    double loss = 0, zero = 0, count = 0;
    for (int p = 0; p < set->count && r == UPF_OK; p++) {
        const train_pair *pair = &set->pairs[p];
        if (!pair->validation || !pair->target_image.data || !pair->input_image.data)
            continue;
        const upf__sqrt_frame frame = { pair->frame, pair->in_w, pair->in_h, 0 };
        upf__detail_map map, none;
        const size_t map_bytes = upf__detail_map_bytes(model->step, pair->in_w, pair->in_h);
        size_t scratch_bytes = UPF_MAX(upf__detail_scratch_bytes(threads),
                                       upf__compose_scratch_bytes(threads, pair->in_w,
                                                                  pair->out_w, pair->out_w));
        float *map_data = upf__alloc(ctx, 2 * map_bytes, "detail maps");
        void *scratch = upf__alloc(ctx, scratch_bytes, "pass 4 scratch");
        float *img = upf__alloc_array(ctx, (size_t)pair->out_w * pair->out_h * 4, sizeof(float),
                                      "an output image");
        if (!map_data || !scratch || !img) {
            upf__free(ctx, map_data);
            upf__free(ctx, scratch);
            upf__free(ctx, img);
            return UPF_ERROR_OUT_OF_MEMORY;
        }
        upf__detail_map_init(&map, model->step, model->flags, pair->in_w, pair->in_h,
                             map_data);
        upf__detail_map_init(&none, model->step, model->flags, pair->in_w, pair->in_h,
                             (float *)((char *)map_data + map_bytes)); /* zeroed */
        const upf_image dst = { img, pair->out_w, pair->out_h, 0, UPF_FORMAT_RGBA32F };
        eval_scores sm = { 0 }, sb = { 0 }, sl = { 0 };
        if (map.width != pair->out_w || map.height != pair->out_h)
            r = upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "train_evaluate: pair %s: detail map "
                          "%dx%d, target %dx%d; expected the same", pair->name, map.width,
                          map.height, pair->out_w, pair->out_h);
        if (r == UPF_OK)
            r = upf__make_detail_map(ctx, model, &frame, &map, scratch, scratch_bytes);
        if (r == UPF_OK) {
            /* The detail loss over the pair's windows, from pass 4's own map. */
            for (int y = 0; y < pair->win_y * UPF_NET_BLOCK; y++)
                for (int x = 0; x < pair->win_x * UPF_NET_BLOCK; x++) {
                    double t = pair->detail[(size_t)y * pair->out_w + x];
                    double e = map.data[(size_t)y * map.width + x] - t;
                    loss += e * e;
                    zero += t * t;
                }
            count += (double)pair->win_x * pair->win_y * UPF_NET_BLOCK * UPF_NET_BLOCK;
            r = upf__compose_output(ctx, &frame, &map, &dst, 0.0f, scratch, scratch_bytes);
        }
        if (r == UPF_OK)
            r = score(ctx, &pair->target_image, &dst, &sm);
        if (r == UPF_OK && save_dir)
            r = save_png(ctx, save_dir, pair->name, "model", &dst);
        if (r == UPF_OK)
            r = upf__compose_output(ctx, &frame, &none, &dst, 0.0f, scratch, scratch_bytes);
        if (r == UPF_OK)
            r = score(ctx, &pair->target_image, &dst, &sb);
        if (r == UPF_OK && save_dir)
            r = save_png(ctx, save_dir, pair->name, "base", &dst);
        if (r == UPF_OK)
            r = upf_resample(ctx, &pair->input_image, &dst, UPF_FILTER_LANCZOS3);
        if (r == UPF_OK)
            r = score(ctx, &pair->target_image, &dst, &sl);
        if (r == UPF_OK) {
            out->pairs++;
            out->psnr_model += sm.psnr;
            out->psnr_base += sb.psnr;
            out->psnr_lanczos += sl.psnr;
            out->ssim_model += sm.ssim;
            out->ssim_base += sb.ssim;
            out->ssim_lanczos += sl.ssim;
        }
        upf__free(ctx, map_data);
        upf__free(ctx, scratch);
        upf__free(ctx, img);
    }
    if (r != UPF_OK)
        return r;
    if (out->pairs) {
        const double n = out->pairs;
        out->psnr_model /= n;
        out->psnr_base /= n;
        out->psnr_lanczos /= n;
        out->ssim_model /= n;
        out->ssim_base /= n;
        out->ssim_lanczos /= n;
        out->loss = loss / count;
        out->zero_loss = zero / count;
    }
    return UPF_OK;
}
