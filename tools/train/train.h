/* train.h: the network trainer (`upframe train`, tools/train/README.md): training pairs, the
 * forward and backward passes of the six stages, Adam, the schedule, the training loop and
 * the evaluation of an exported model with the real pass 4.
 *
 *   train_grad.c    one window forward with everything the backward needs, the backward,
 *                   the loss, the initialisation, Adam and the learning-rate schedule
 *   train_data.c    pairs: a frame through passes 1-3, the input luma plane, the target
 *                   detail plane, per-window sampling weights; folders of PNG pairs
 *   train_loop.c    the trainer: window sampling, minibatch steps over the context's
 *                   workers, validation loss; evaluation of a model with pass 4
 *   train_render.c  `upframe train data`: training pairs from the scene renderer
 *
 * Geometry (docs/SPATIAL.md "Geometry", detail.c and compose.c): a model of step s turns an input of
 * W x H into a detail map of W*12/s x H*12/s. Window (gx, gy) of the map reads the 16x16 luma
 * window at input (s*gx - b, s*gy - b), b = floor((16 - s) / 2), edge pixels repeated, and
 * gives detail pixels (12*gx .. 12*gx + 11, 12*gy .. 12*gy + 11): this is pass 4's
 * "tile X / 48, window (X % 48) / 12" written per window. The trainer uses the windows whose
 * 12x12 block lies inside the map: floor(W*12/s / 12) x floor(H*12/s / 12) of them.
 *
 * Errors go through the context (upf__fail), as in the library: every function that can fail
 * returns a upf_result and leaves a message naming the file, the value and what was expected.
 *
 * Internal to the tools and tests: not installed. */
#ifndef UPF_TRAIN_H
#define UPF_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "spatial/net.h"

/* ---- random numbers: xoshiro256** seeded by splitmix64 (Blackman & Vigna 2018) --------- */

typedef struct train_rng {
    uint64_t s[4];
} train_rng;

void train_rng_seed(train_rng *rng, uint64_t seed);
uint64_t train_rng_next(train_rng *rng);
double train_rng_uniform(train_rng *rng);           /* [0, 1), 53 bits */
double train_rng_normal(train_rng *rng);            /* N(0, 1), Box-Muller */

/* ---- one window: forward, loss, backward (train_grad.c) ------------------------------- */

/* Weights, gradients and Adam's moments share the model's layout: w[stage][matrix][r*16+c],
 * UPF_NET_WEIGHTS floats, stage-major, matrices A, B, C, D (net.h). */
#define TRAIN_W(w, stage, matrix) ((w) + ((stage) * UPF_NET_MATRICES + (matrix)) * UPF_NET_WINDOW)

/* What the backward pass needs from the forward: each stage's input X (stage 1: the window,
 * or 4 * (window - mean) with UPF_MODEL_FLAG_WINDOW_MEAN), its products T1 = X^T B and
 * T2 = X^T D, and the output. The ReLU of stage t let through exactly the entries where
 * stage t+1's input is > 0. */
typedef struct train_acts {
    float x[UPF_NET_STAGES][UPF_NET_WINDOW];
    float t1[UPF_NET_STAGES][UPF_NET_WINDOW];
    float t2[UPF_NET_STAGES][UPF_NET_WINDOW];
    float out[UPF_NET_WINDOW];
} train_acts;

/* The weights' transposes (A^T, B^T, C^T, D^T of each stage), made once per step for the
 * backward passes of all its windows. */
void train_transpose_weights(const float *w, float *wt);

/* One window forward: the same sums in the same order as upf__net_window_forward_ref (every
 * dot product from index 0, the A and C terms summed apart and added last), so its output is
 * the reference's bit for bit with cpu_flags 0; keeps the activations in `a`. With
 * UPF__CPU_X86_AVX2_FMA in cpu_flags (a context's, core.h) the products are AVX2 + FMA ones:
 * the same sums, rounded once a term. */
void train_forward(const float *w, uint32_t flags, const float *window, train_acts *a,
                   unsigned cpu_flags);

/* The loss of one window: the mean over its top-left 12x12 outputs of (out - target)^2, with
 * `target` a 12x12 block (row-major, 12 floats a row). Writes d(scale * loss)/d(out) into
 * dout (256 values, zero outside the block) and returns the loss (not scaled). */
double train_loss(const float *out, const float *target, float scale, float *dout);

/* The backward pass of one window: adds d(loss)/d(w) to `grad` (UPF_NET_WEIGHTS floats),
 * given dout = d(loss)/d(output) and the forward's activations. `wt` from
 * train_transpose_weights. cpu_flags as for train_forward. */
void train_backward(const float *w, const float *wt, const train_acts *a, const float *dout,
                    float *grad, unsigned cpu_flags);

/* The initial weights (tools/train/README.md, "Initialisation"): every entry of every matrix
 * from N(0, sigma^2) (TRAIN_INIT_SIGMA by default), except stage 6's A and C, which get a
 * tenth of sigma so the first detail maps are small. Drawn stage by stage, A B C D, row-major. */
#define TRAIN_INIT_SIGMA 0.125
void train_init_weights(float *w, train_rng *rng, double sigma);

/* ---- Adam and the schedule (train_grad.c) ----------------------------------------------- */

typedef struct train_adam {
    double beta1, beta2, eps;   /* 0.9, 0.999, 1e-8 */
    long t;                     /* steps taken */
    double m[UPF_NET_WEIGHTS], v[UPF_NET_WEIGHTS]; /* the moments, in double */
} train_adam;

void train_adam_init(train_adam *adam);

/* One Adam step (Kingma & Ba 2015, Algorithm 1): m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
 * w -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps). `n` weights. */
void train_adam_step(train_adam *adam, float *w, const float *grad, int n, double lr);

/* The learning rate at step `t` (0-based) of `total`: linear warm-up from lr/warmup to lr over
 * the first `warmup` steps, then a cosine from lr down to lr * final_fraction at the last
 * step (Loshchilov & Hutter 2017, SGDR, without restarts). */
double train_lr_at(long t, long total, long warmup, double lr, double final_fraction);

/* ---- training pairs (train_data.c) ------------------------------------------------------ */

/* One pair, ready to train on: the planes the windows and targets are read from. */
typedef struct train_pair {
    char name[256];
    char group[256];          /* pairs of one group fall on one side of the validation split */
    bool validation;
    int step;
    uint32_t flags;           /* the model flags the targets were made for (the base) */
    int in_w, in_h;           /* input (render) size */
    int out_w, out_h;         /* detail map = target size: in * 12 / step */
    int win_x, win_y;         /* windows whose block lies inside: out / 12, rounded down */
    float *luma;              /* in_w * in_h: Rec. 709 luma of the sqrt frame (pass 4's input) */
    float *detail;            /* out_w * out_h: luma(sqrt(reference)) - luma(pass 4's base) */
    float *edge_weight;       /* win_x * win_y: pass-1 edge bits in each window's s x s block */
    uint32_t *frame;          /* in_w * in_h: the sqrt 10:10:10:2 frame of passes 1-3 */
    /* Validation pairs keep their images for the final evaluation (PSNR, SSIM): */
    upf_image input_image;    /* the input as given (any colour format; owned) */
    upf_image target_image;   /* the reference as given (owned) */
} train_pair;

/* Makes a pair from a sqrt frame (passes 1-3 already run; copied) and its reference (linear
 * RGBA float, out_w x out_h, rows tightly packed); `edges` are pass 1's edge words of the
 * frame (upf__smaa_edges layout), or NULL for no edge weights (all windows weigh the same).
 * The reference must be exactly in * 12 / step on each axis. `flags` are the model flags the
 * targets are for: UPF_MODEL_FLAG_CUBIC_BASE changes the base the detail goes on. Fills `pair`
 * (free with train_pair_free); name, group and validation are the caller's. */
upf_result train_pair_from_frame(upf_context *ctx, int step, uint32_t flags,
                                 const uint32_t *frame, int in_w, int in_h, const uint32_t *edges,
                                 const float *reference, int out_w, int out_h, train_pair *pair);

/* Makes a pair from an input image and its reference (any colour formats; linear light or
 * sRGB-encoded as the format says): the input runs through the spatial engine's own passes
 * convert .. blend (src/spatial/spatial_passes.h; SMAA with `area_table` from
 * upf__smaa_area_table, into the sqrt frame), then train_pair_from_frame.
 * With `keep`, copies of both images stay in the pair for the evaluation. `what` names the
 * pair in messages. */
upf_result train_pair_from_images(upf_context *ctx, int step, uint32_t flags,
                                  const upf_image *input,
                                  const upf_image *target, bool keep, const uint8_t *area_table,
                                  const char *what, train_pair *pair);

void train_pair_free(upf_context *ctx, train_pair *pair);

/* The 16x16 luma window (gx, gy) of a pair, exactly as pass 4 reads it. */
void train_pair_window(const train_pair *pair, int gx, int gy, float *window);

/* The 12x12 target block of window (gx, gy). */
void train_pair_target(const train_pair *pair, int gx, int gy, float *block);

/* A data set: the pairs of one step, split into training and validation. */
typedef struct train_set {
    int step;
    uint32_t flags;           /* the model flags its targets were made for */
    int count, capacity;
    train_pair *pairs;
    char description[1024];   /* for the model's provenance: the data's manifest summary */
} train_set;

/* Adds a pair (moved into the set; `pair` is cleared). */
upf_result train_set_add(upf_context *ctx, train_set *set, train_pair *pair);
void train_set_free(upf_context *ctx, train_set *set);
int train_set_count(const train_set *set, bool validation);

/* Marks the validation pairs: the groups are ordered by a hash of their names (FNV-1a, so the
 * split does not depend on the order of files or on the training seed), and the first
 * ceil(fraction * groups) of them are held out; at least one group stays for training, and
 * with a fraction > 0 and two groups or more, at least one is held out. */
void train_split_names(const char *const *groups, int count, double fraction, bool *validation);

/* Progress of a long call: `done` of `total`; may be NULL. */
typedef void (*train_progress_fn)(void *priv, int done, int total);

/* Reads a folder of pairs (tools/train/README.md, "Data folders"):
 *   DIR/NAME.target.png                the reference, output size
 *   DIR/NAME.input.png                 its input for one step, or
 *   DIR/NAME.input-sS.png              its input for step S (4..10), which wins
 *   DIR/manifest.txt                   optional: `data=...` (the description) and
 *                                      `view NAME group=G ...` lines (the validation groups)
 * For `step`, every target must have an input of exactly target * step / 12 on each axis, every
 * input a target; a missing partner, a size of another ratio or an unreadable file stops the
 * load with a message naming the file. The targets are made for a model of `flags` (the base
 * they go on). Marks the validation split (train_split_names over
 * the groups, `fraction` of them). `augment` (TRAIN_AUGMENT_*) adds other orientations of
 * each training pair: with MIRROR its mirror image (input and reference flipped left to right,
 * then through passes 1-3 like any input), named NAME+mirror; with TRANSPOSE its transpose
 * (rows and columns swapped: the network's windows and their 12x12 blocks sit the same way on
 * both axes, so a transposed pair is as valid a pair), NAME+transpose; with both, also the
 * transpose mirrored, NAME+transpose+mirror (so the four orientations of the eight that keep a
 * window's top-left block top-left, as the geometry needs). Each in the pair's group;
 * validation pairs are never augmented. */
#define TRAIN_AUGMENT_MIRROR 1u
#define TRAIN_AUGMENT_TRANSPOSE 2u
upf_result train_set_load_dir(upf_context *ctx, const char *dir, int step, uint32_t flags,
                              double fraction, unsigned augment, train_set *set,
                              train_progress_fn progress, void *progress_priv);

/* ---- rendering training data (train_render.c) --------------------------------------------- */

/* The reference size: a multiple of 12 and 48, so every step S has the whole input size
 * 48S x 27S and the windows tile the reference exactly (48 x 27 windows). */
#define TRAIN_DATA_WIDTH 576
#define TRAIN_DATA_HEIGHT 324

typedef struct train_data_config {
    int views;               /* views to render */
    uint32_t seed;           /* picks the scene seeds, paths and times */
    int spp;                 /* reference samples per pixel, 16..SCENE_MAX_SPP */
    int views_per_scene;     /* views of one scene build (one validation group) */
    int width, height;       /* reference size, multiples of 12 */
    double mip_bias_offset;  /* the inputs' mip bias is log2(S / 12) + this */
    bool steps[UPF_MODEL_STEP_MAX + 1]; /* the steps to render inputs for */
    const char *scenes;      /* a comma list of scene names; NULL: every training scene */
} train_data_config;

/* 64 spp, 4 views per scene, 576x324, no bias offset, every step, every training scene,
 * seed 1 (views must be set). */
train_data_config train_data_defaults(void);

/* The inputs' mip bias for step S: log2(S / 12) + offset (log2(render / output)), by the
 * library's upf_mip_bias (the trainer's default offset is 0, not the rule's -1). */
double train_data_mip_bias(int step, double offset);

/* Renders the views into `dir` (made if missing; refused if it already has a manifest) in the
 * layout train_set_load_dir reads, and writes DIR/manifest.txt last. `summary` gets the
 * manifest's data= line. */
upf_result train_render_data(upf_context *ctx, const char *dir, const train_data_config *cfg,
                             train_progress_fn progress, void *progress_priv, char *summary,
                             size_t summary_size);

/* ---- the trainer (train_loop.c) ----------------------------------------------------------- */

typedef struct train_config {
    int step;               /* 4..10: the model's step (the set's) */
    uint32_t flags;         /* UPF_MODEL_FLAG_* of the model */
    long steps;             /* optimizer steps */
    int batch;              /* windows per step */
    double lr;              /* peak learning rate */
    double lr_final;        /* the cosine ends at lr * lr_final */
    long warmup;            /* steps of linear warm-up */
    uint64_t seed;          /* initial weights and window sampling */
    double flat;            /* fraction of windows drawn uniformly, the rest by edge weight */
    int val_windows;        /* at most this many validation windows for the running loss */
    double init_sigma;      /* train_init_weights' sigma */
} train_config;

/* The defaults (tools/train/README.md): 20000 steps of 128 windows, lr 2e-3 with 500 steps
 * of warm-up and a cosine to 1% of it, 25% of windows drawn uniformly, 8192 validation
 * windows, seed 1, no flags, initial sigma TRAIN_INIT_SIGMA. */
train_config train_config_defaults(int step);

typedef struct trainer trainer;

/* Sets up training on `set` (which must outlive the trainer): the initial weights, the window
 * sampler over the training pairs, the validation windows, per-chunk gradient buffers and
 * per-worker scratch for the context's workers. */
upf_result trainer_create(upf_context *ctx, const train_set *set, const train_config *cfg,
                          trainer **out);
void trainer_destroy(trainer **tr);

/* One optimizer step: samples `batch` windows, forward and backward over the context's
 * workers in chunks of TRAIN_CHUNK windows (each chunk summing its gradient in window order
 * into its own buffer; the chunks' buffers are then added in chunk order), then Adam. The
 * weights after any number of steps do not depend on the number of workers. *loss gets the
 * batch's mean loss. */
#define TRAIN_CHUNK 8
upf_result trainer_step(trainer *tr, double *loss);

long trainer_steps_done(const trainer *tr);

/* The current model (fp32 weights, the config's step and flags; provenance empty). */
const upf__net_model *trainer_model(const trainer *tr);

/* Replaces the weights (e.g. to continue from a model file); resets Adam. */
void trainer_set_weights(trainer *tr, const upf__net_model *model);

/* Multiplies the learning-rate schedule's peak (cfg.lr) by `factor` for the steps to come (the
 * warm-up and cosine keep their shape; cmd_train.c halves it when it takes a dead network back
 * to earlier weights). */
void trainer_scale_lr(trainer *tr, double factor);

/* The optimizer's state at a step: the weights and Adam's moments (not the step count, the
 * schedule's position, nor the window sampler's generator, which go on). */
typedef struct train_state {
    float w[UPF_NET_WEIGHTS];
    train_adam adam;
    long step;                 /* the step it was saved after */
} train_state;

void trainer_save_state(const trainer *tr, train_state *out);
void trainer_restore_state(trainer *tr, const train_state *state);

/* The mean loss of a model over the fixed validation windows (uniformly spread over every
 * validation pair, at most cfg->val_windows), and the loss a zero detail map would have there
 * (the base's). Returns false when there are no validation pairs. */
bool trainer_validation_loss(trainer *tr, const upf__net_model *model, double *loss,
                             double *zero_loss);

/* How many of the detail values at the last trainer_validation_loss were not exactly 0. None
 * means a dead network: some stage's ReLUs are all off for every window, so no gradient
 * reaches the weights and training cannot move them (cmd_train.c stops on it). */
long trainer_validation_live(const trainer *tr);

/* ---- evaluation with pass 4 (train_loop.c) ----------------------------------------------- */

typedef struct train_eval {
    int pairs;
    double loss, zero_loss;        /* detail MSE over every window of the pairs (pass 4's map) */
    /* Means over the pairs of PSNR (dB, sRGB-encoded RGB) and SSIM (luma) against the
     * reference: the model's full output (pass 4 with sharpness 0), the bilinear base (pass 4
     * with no detail), and Lanczos-3 of the input (no SMAA) for comparison. */
    double psnr_model, psnr_base, psnr_lanczos;
    double ssim_model, ssim_base, ssim_lanczos;
} train_eval;

/* Runs `model` through the real pass 4 (upf__make_detail_map, upf__compose_output) on every
 * validation pair of `set` that kept its images. With `save_dir`, also writes each pair's
 * outputs there as 8-bit PNGs: NAME.model.png (the model's, sharpness 0) and NAME.base.png
 * (the bilinear base), to look at beside NAME.target.png. */
upf_result train_evaluate(upf_context *ctx, const train_set *set, const upf__net_model *model,
                          const char *save_dir, train_eval *out);

#endif /* UPF_TRAIN_H */
