/* net.h: the spatial engine's network (docs/SPATIAL.md, "Pass 4" and "Models"):
 * the in-memory model, the window forward (net_infer.c), the model file parser and writer
 * (net_model.c, format in docs/MODELS.md) and the choice of a model for an output size.
 *
 * A window is a 16x16 matrix Y of luma, Y[r][c] with r the image row (y) and c the column (x),
 * stored row-major (Y[r * 16 + c]). Each of the six stages computes
 *
 *     Y <- ReLU(A * Y^T * B + C * Y^T * D)        (no ReLU after the sixth)
 *
 * with A, B, C, D the stage's learned 16x16 matrices (row-major, M[r * 16 + c]). Note the
 * transpose: each stage swaps the roles of rows and columns, so after six stages the output
 * is in the input's orientation again. The top-left 12x12 of the output is the window's block
 * of the detail map (reconstruct.c).
 *
 * Internal header: not installed. */
#ifndef UPF_SPATIAL_NET_H
#define UPF_SPATIAL_NET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

#define UPF_NET_DIM 16             /* windows and matrices are 16x16 */
#define UPF_NET_WINDOW 256         /* values in a window (16 * 16) */
#define UPF_NET_STAGES 6
#define UPF_NET_MATRICES 4         /* A, B, C, D per stage */
#define UPF_NET_WEIGHTS (UPF_NET_STAGES * UPF_NET_MATRICES * UPF_NET_WINDOW) /* 6144 */
#define UPF_NET_BLOCK 12           /* each window gives a 12x12 block of detail */
#define UPF_NET_TILE 48            /* a tile is 4x4 windows: 48x48 detail pixels */
#define UPF_NET_TILE_WINDOWS 16

#define UPF_MODEL_STEP_MIN 4       /* ratio 3 */
#define UPF_MODEL_STEP_MAX 10      /* ratio 1.2 */
#define UPF_MODELS_MAX 7           /* one per step */
#define UPF_MODEL_PROVENANCE_MAX 4096 /* bytes of provenance text */
#define UPF_MODEL_FLAGS_BASE (UPF_MODEL_FLAG_CUBIC_BASE | UPF_MODEL_FLAG_SQRT_LANCZOS_BASE | \
                              UPF_MODEL_FLAG_SRGB_LANCZOS_BASE)
#define UPF_MODEL_FLAGS_KNOWN (UPF_MODEL_FLAG_WINDOW_MEAN | UPF_MODEL_FLAGS_BASE | \
                               UPF_MODEL_FLAG_NO_SMAA)
/* The flags a version-1 file may hold (version 2 adds the sqrt-Lanczos and sRGB-Lanczos bases
 * and no-SMAA). */
#define UPF_MODEL_FLAGS_V1 (UPF_MODEL_FLAG_WINDOW_MEAN | UPF_MODEL_FLAG_CUBIC_BASE)

/* True when `flags` hold more than one base flag (a model has at most one). */
static inline int upf__model_flags_bases_clash(uint32_t flags)
{
    const uint32_t b = flags & UPF_MODEL_FLAGS_BASE;
    return (b & (b - 1u)) != 0u;
}

/* A model's flags as text for messages and provenance: "none", or the names of the flags set,
 * comma-separated ("window-mean", "cubic-base", "sqrt-lanczos-base", "no-smaa",
 * "srgb-lanczos-base"). Writes at most `size` bytes with the NUL. */
void upf__model_flags_text(uint32_t flags, char *out, size_t size);

/* Window-mean input (UPF_MODEL_FLAG_WINDOW_MEAN): stage 1 sees 4 * (Y - mean(Y)); see
 * docs/SPATIAL.md, "Models" (the network has no bias, so a flat window is hard for it to map to
 * zero detail without this). */
#define UPF_NET_WINDOW_MEAN_SCALE 4.0f

/* The matrices of a stage, in the order the model file stores them. */
enum { UPF_NET_A = 0, UPF_NET_B = 1, UPF_NET_C = 2, UPF_NET_D = 3 };

typedef struct upf__net_model {
    int step;                      /* UPF_MODEL_STEP_MIN..MAX; ratio 12 / step */
    uint32_t flags;                /* UPF_MODEL_FLAG_*, at most one of UPF_MODEL_FLAGS_BASE */
    /* The detail map is the network's output times this (0 .. UPF_MODEL_DETAIL_STRENGTH_MAX;
     * 1 as trained). Whoever makes a model sets it: 0 means no detail at all. */
    float detail_strength;
    /* w[stage][matrix][r * 16 + c], converted exactly from the file's fp16 values. */
    float w[UPF_NET_STAGES][UPF_NET_MATRICES][UPF_NET_WINDOW];
    char provenance[UPF_MODEL_PROVENANCE_MAX + 1]; /* NUL-terminated UTF-8 */
} upf__net_model;

/* The public model set (opaque in upframe.h). Models in file order. */
struct upf_models {
    upf_context *ctx;
    atomic_int users;   /* engines that hold a pointer into the set: destroy is refused */
    int count;
    upf__net_model model[UPF_MODELS_MAX];
};

/* ---- inference (net_infer.c) ---------------------------------------------------------- */

/* The definition: one window through the six stages, plain loops in fp32 (each dot product
 * summed in index order from 0). `in` and `out` are 256 values each and may be the same. */
void upf__net_window_forward_ref(const upf__net_model *model, const float *in, float *out);

/* Stage `stage` (0..5) of the reference alone: `out` = ReLU(A * in^T * B + C * in^T * D) (no
 * ReLU for stage 5), summed as upf__net_window_forward_ref sums it (which is these six calls
 * on upf__net_window_input's window). `in` and `out` may be the same. For the web page's view
 * of a window's six stages (web/upf_web.c). */
void upf__net_stage_ref(const upf__net_model *model, int stage, const float *in, float *out);

/* The fast version of the same: `count` windows (in[i * 256 ..], out[i * 256 ..]; in and out
 * must not overlap), the 16x16 products written as loops over contiguous 16-float rows so the
 * compiler vectorises them. Same sums in the same order as the reference; tested against it. */
void upf__net_windows_forward(const upf__net_model *model, const float *in, float *out,
                              int count);

/* The same with AVX2 and FMA3 (net_infer_avx2.c; built on x86-64 only, run only where the CPU
 * has them): each multiply-add rounded once, so within the reference's fp32 error bound of the
 * exact value rather than bit-identical to the reference. */
void upf__net_windows_forward_avx2(const upf__net_model *model, const float *in, float *out,
                                   int count);

/* The same with WebAssembly's 128-bit SIMD (net_infer_wasm.c; built only for WebAssembly with
 * -msimd128, where upf__net_forward_for always takes it): the same sums in the same order,
 * so bit-identical to upf__net_windows_forward. */
void upf__net_windows_forward_wasm(const upf__net_model *model, const float *in, float *out,
                                   int count);

/* C = P * Q for row-major 16x16 matrices (add: C += P * Q, the product summed first), each
 * entry's sum over k from 0 up with one FMA a term: the trainer's product on AVX2 CPUs
 * (tools/train/train_grad.c has the C one). net_infer_avx2.c, x86-64 builds only. */
void upf__mat16_mul_avx2(const float *P, const float *Q, float *C, int add);
typedef void (*upf__mat16_fn)(const float *P, const float *Q, float *C, int add);

/* upf__mat16_mul_avx2 where `cpu_flags` has UPF__CPU_X86_AVX2_FMA and the library was built
 * with it, else NULL (the caller's own C product). */
upf__mat16_fn upf__mat16_mul_for(unsigned cpu_flags);

/* A window forward: upf__net_windows_forward's contract. */
typedef void (*upf__net_forward_fn)(const upf__net_model *model, const float *in, float *out,
                                    int count);

/* The fastest forward that CPU flags `cpu_flags` (core.h, UPF__CPU_*) allow: the AVX2 one
 * with UPF__CPU_X86_AVX2_FMA where it was built, else upf__net_windows_forward. */
upf__net_forward_fn upf__net_forward_for(unsigned cpu_flags);

/* Stage 1's input for a model of `flags`: the window as it is, or under
 * UPF_MODEL_FLAG_WINDOW_MEAN y = 4 * (x - mean(x)), the mean summed in index order (shared by
 * every forward and the trainer's, so that all see the same input). */
void upf__net_window_input(uint32_t flags, const float *in, float *y);

/* ---- model files (net_model.c, docs/MODELS.md) ----------------------------------------- */

/* Version 2 adds each model's detail strength and the sqrt-Lanczos base flag; version-1 files
 * load as before (strength 1). The writer writes version 1 when every model fits it, so
 * older readers keep reading what they could. */
#define UPF_MODEL_FILE_VERSION 2
#define UPF_MODEL_FILE_VERSION_MIN 1

/* CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF; the
 * CRC of zlib, PNG and `python3 -c "import zlib; zlib.crc32(...)"`). */
uint32_t upf__crc32(const void *data, size_t size);

/* Parses a model file into `set` (set->ctx is used for messages; set->count and the models are
 * filled). `fn` names the public call in messages. */
upf_result upf__net_parse(upf_context *ctx, const char *fn, const void *data, size_t size,
                          upf_models *set);

/* Checks one in-memory model as the loader checks a file's (step, flags, at most one base
 * flag, detail strength, provenance text, finite weights that fit fp16); `index` names it in
 * messages. */
upf_result upf__net_check_model(upf_context *ctx, const char *fn, const upf__net_model *model,
                                int index);

/* The version a file of these models is written in: 1 when every model fits it (detail
 * strength 1, no version-2 flag), else 2. A file loaded and written again keeps its version. */
uint32_t upf__net_file_version(const upf__net_model *const *models, int count);

/* Bytes of a model file holding these models. */
size_t upf__net_file_size(const upf__net_model *const *models, int count);

/* Writes a model file of `count` (1..7) models with distinct steps into `out` (`size` bytes,
 * at least upf__net_file_size). Each model is checked first (upf__net_check_model); weights are
 * rounded to the nearest fp16. */
upf_result upf__net_write(upf_context *ctx, const upf__net_model *const *models, int count,
                          void *out, size_t size);

/* The model file embedded at build time (src/embed_models.cmake): size 0 when the build had
 * no models/default.upfm. */
extern const unsigned char upf__default_models_data[];
extern const size_t upf__default_models_size;

/* ---- model choice ----------------------------------------------------------------------- */

/* The model of `set` for an upscale of in_w x in_h to out_w x out_h (docs/SPATIAL.md, "Pass 4"
 * engine"): the asked ratio is the larger of out_w / in_w and out_h / in_h; the choice is the
 * model with the smallest ratio 12 / step at or above it (compared exactly, in integers), so
 * ratios below 1.2 take the 1.2 model. When the set has no model that large (a ratio above 3,
 * or a set without the larger models), the set's largest ratio is taken and its detail map is
 * resampled to the output like any other (the documented clamp). Returns the index in `set`. */
int upf__models_choose(const upf_models *set, int in_w, int in_h, int out_w, int out_h);

/* An engine starts or stops using a caller's set (NULL: nothing): upf_models_destroy refuses
 * a set with users, as upf_context_destroy refuses a context with live objects. */
void upf__models_use(const upf_models *set);
void upf__models_release(const upf_models *set);

#endif /* UPF_SPATIAL_NET_H */
