/* pass.h: an engine as a list of passes over named surfaces, and the one runner that runs
 * them on the CPU (docs/ARCHITECTURE.md, "Engines are pass lists").
 *
 * Every engine is described by two static tables that are the one place to read its data
 * flow:
 *
 *   surfaces  the images its passes read and write. Each has a name, the format a GPU holds
 *             it in (upf__surface_format) and a role: a host image the run reads or writes,
 *             an intermediate, a table filled once when the engine is created (a look-up
 *             table, network weights), or scratch that only the CPU functions need. The
 *             engine gives every surface its size when it is created.
 *   passes    in the order they run. Each names the surfaces it reads and writes (bit masks
 *             of surface indices), the surface its debug picture shows, the size of its
 *             constants struct and its CPU function.
 *
 * A pass's constants are a plain struct of 32-bit fields, the layout a shader gets as push
 * constants, filled on the host when the engine is created (per-frame values just before a
 * run), in the way AMD's ffx_fsr1.h computes its *Con() constants once on the host. The CPU
 * function reads its constants and its surfaces (and, for CPU-only state such as a model's
 * weights in their struct, the engine), so the Vulkan backend's shader of the same file name
 * can be run on the same inputs and compared with it.
 *
 * upf__passes_run runs a range of the enabled passes in order and times each: an engine's run
 * is the whole list, the trainer's "passes 1-3" a part of it. upf__passes_picture draws the
 * debug picture of a pass from its surface afterwards. Surfaces keep their content until the
 * next run, so they can be looked at.
 *
 * Internal header: not installed. */
#ifndef UPF_PASS_H
#define UPF_PASS_H

#include "core/core.h"

#define UPF__PASSES_MAX 16
#define UPF__SURFACES_MAX 32

/* The bit of surface `i` in a pass's reads/writes masks. */
#define UPF__SURF(i) (1u << (unsigned)(i))

/* The format a surface is held in; the CPU backend lays texels out the same way, rows tightly
 * packed. The Vulkan format each maps to is given for the GPU backend and the docs. */
typedef enum upf__surface_format {
    UPF__SURFACE_HOST = 0,   /* a host image: a upf_image of any colour format (or a VkImage) */
    UPF__SURFACE_RGBA32F,    /* 4 x float             VK_FORMAT_R32G32B32A32_SFLOAT */
    UPF__SURFACE_RGBA16F,    /* 4 x binary16          VK_FORMAT_R16G16B16A16_SFLOAT */
    UPF__SURFACE_R32F,       /* 1 x float             VK_FORMAT_R32_SFLOAT */
    UPF__SURFACE_RG32F,      /* 2 x float             VK_FORMAT_R32G32_SFLOAT */
    UPF__SURFACE_R32UI,      /* 1 x uint32            VK_FORMAT_R32_UINT */
    UPF__SURFACE_RG8,        /* 2 x uint8 unorm       VK_FORMAT_R8G8_UNORM */
    UPF__SURFACE_RGBA8,      /* 4 x uint8 unorm       VK_FORMAT_R8G8B8A8_UNORM */
    UPF__SURFACE_RGB10A2,    /* uint32: R bits 0-9, G 10-19, B 20-29, A 30-31
                              *                       VK_FORMAT_A2B10G10R10_UNORM_PACK32 */
    UPF__SURFACE_R64UI,      /* 1 x uint64: a packed key for 64-bit atomic min
                              *                       VK_FORMAT_R64_UINT (shaderImageInt64Atomics) */
    UPF__SURFACE_FORMAT_COUNT
} upf__surface_format;

typedef enum upf__surface_role {
    UPF__SURFACE_INPUT = 0,      /* a host image the run reads */
    UPF__SURFACE_OUTPUT,         /* a host image the run writes */
    UPF__SURFACE_INTERMEDIATE,   /* written by one pass, read by later ones */
    UPF__SURFACE_TABLE,          /* filled once at creation, read-only afterwards */
    UPF__SURFACE_SCRATCH,        /* only the CPU functions need it (a shader keeps it on chip) */
    /* A pair that persists across runs (a temporal engine's history): HISTORY holds what the
     * previous run left, read-only in a run; the surface right after it in the table is its
     * HISTORY_NEXT partner (same format), which this run writes. After a successful run in
     * which a pass wrote the partner, the runner swaps the two surfaces' memory, so the next
     * run reads this one's result. Both start zeroed. A GPU backend alternates two descriptor
     * sets instead. */
    UPF__SURFACE_HISTORY,
    UPF__SURFACE_HISTORY_NEXT
} upf__surface_role;

/* Bytes per texel of a format (0 for HOST) and its name ("rgba32f", ...). */
size_t upf__surface_format_bytes(upf__surface_format format);
const char *upf__surface_format_name(upf__surface_format format);

typedef struct upf__passes upf__passes;

/* One surface of an engine, static. */
typedef struct upf__surface_info {
    const char *name;            /* "edges" */
    const char *what;            /* what it holds, for messages and docs ("the source image") */
    upf__surface_format format;
    upf__surface_role role;
    unsigned host_formats;       /* host images: the upf_format bits accepted (UPF_FMT_BIT) */
    /* Draws the surface as an opaque RGBA8 picture (sRGB-encoded) into `rgba` (tightly packed,
     * *width x *height), or with rgba NULL only gives its size. NULL: no picture. */
    void (*picture)(const upf__passes *p, int surface, uint8_t *rgba, int *width, int *height);
} upf__surface_info;

/* One surface of an engine instance. */
typedef struct upf__surface {
    int width, height;           /* texels; 0 x 0: not used in this configuration */
    void *data;                  /* CPU texels, rows tightly packed (upf__passes_alloc), or
                                  * memory the engine lends (tables); NULL for host images */
    const upf_image *image;      /* host images: the caller's image during a run */
} upf__surface;

/* What a CPU function gets. */
typedef struct upf__pass_args {
    upf_context *ctx;
    const char *fn;              /* the public call running it, for messages */
    const void *con;             /* the pass's constants */
    upf__surface *surface;       /* every surface of the engine, by index */
    void *scratch;               /* the pass's own scratch (scratch_bytes), or NULL */
    size_t scratch_bytes;
    const void *engine;          /* the engine, for CPU-only state */
} upf__pass_args;

typedef upf_result (*upf__pass_fn)(const upf__pass_args *args);

/* One pass of an engine, static. */
typedef struct upf__pass_info {
    const char *name;            /* "edges": the name users see (timings, debug pictures) */
    const char *file;            /* "smaa_edges": src/<engine>/<file>.c holds its CPU code; the
                                  * GPU backend's shader of this pass has the same name */
    uint32_t reads, writes;      /* UPF__SURF() masks */
    int picture;                 /* the surface its debug picture shows, -1 none */
    size_t con_size;             /* bytes of its constants struct */
    upf__pass_fn cpu;
} upf__pass_info;

/* An engine instance's passes: its tables, its surfaces' sizes and memory, each pass's
 * constants, scratch, enabled flag and last time. */
struct upf__passes {
    upf_context *ctx;
    const upf__pass_info *pass;
    int pass_count;
    const upf__surface_info *surface_info;
    int surface_count;
    const void *engine;

    upf__surface surface[UPF__SURFACES_MAX];
    void *con[UPF__PASSES_MAX];          /* con_size bytes each, zeroed by upf__passes_init */
    size_t scratch_bytes[UPF__PASSES_MAX]; /* set by the engine before upf__passes_alloc */
    void *scratch[UPF__PASSES_MAX];
    bool enabled[UPF__PASSES_MAX];       /* all true after upf__passes_init */
    bool lent[UPF__SURFACES_MAX];        /* data given by the engine: not freed here */
    double ms[UPF__PASSES_MAX];          /* the last run's wall time of each pass, 0 if skipped */
    bool has_run;
};

/* Sets up `p` for the tables (every pass enabled, constants allocated and zeroed, sizes 0).
 * The engine then sets surface sizes, lends table memory (upf__passes_lend), sets scratch
 * sizes and enabled flags, calls upf__passes_alloc and fills the constants. */
upf_result upf__passes_init(upf__passes *p, upf_context *ctx, const upf__pass_info *pass,
                            int pass_count, const upf__surface_info *surface, int surface_count,
                            const void *engine);

/* The same, taking nothing: the tables only (every pass enabled, sizes 0), for an engine
 * that plans its sizes to say what it would take (upf__passes_bytes, upf__passes_con_bytes)
 * before it is made. Such a `p` must not be run, allocated or freed. */
upf_result upf__passes_describe(upf__passes *p, upf_context *ctx, const upf__pass_info *pass,
                                int pass_count, const upf__surface_info *surface,
                                int surface_count, const void *engine);

/* The bytes of every pass's constants (what upf__passes_init allocates). */
size_t upf__passes_con_bytes(const upf__passes *p);

/* Gives surface `i` memory the engine owns (it must outlive `p`). */
void upf__passes_lend(upf__passes *p, int i, void *data);

/* Allocates (zeroed) every surface that is not a host image, has a size and was not lent, and
 * every pass's scratch. Returns UPF_ERROR_OUT_OF_MEMORY naming the surface that did not fit. */
upf_result upf__passes_alloc(upf__passes *p);

/* The bytes upf__passes_alloc takes (or took) for the sizes set so far. */
size_t upf__passes_bytes(const upf__passes *p);

/* Frees what upf__passes_init and upf__passes_alloc took. Accepts a zeroed `p`. */
void upf__passes_free(upf__passes *p);

/* Binds the host images to the host surfaces, by index (images[i] for surface i, NULL where
 * the surface is not a host image or is optional and absent), checks each bound image
 * (upf__check_image: a format of host_formats, exactly its surface's size), then runs the enabled passes first..last (inclusive) in order, timing each into p->ms.
 * Stops at the first pass that fails. The images are unbound again on return, and on success
 * the history pairs whose HISTORY_NEXT a pass of the run wrote are swapped. `fn` names the
 * public call in messages. */
upf_result upf__passes_run(upf__passes *p, const char *fn, const upf_image *const *images,
                           int first, int last);

/* The debug picture of pass `pass` after a run (the pass's `picture` surface): its size, or
 * the picture itself into a RGBA8_SRGB image `out` of that size. Fails with a message when the
 * pass has no picture, its surface is not made in this configuration (size 0), or nothing ran
 * yet. A disabled pass whose surface exists shows what the surface holds (a detail map left
 * at 0, say). */
upf_result upf__passes_picture_size(const upf__passes *p, const char *fn, int pass, int *width,
                                    int *height);
upf_result upf__passes_picture(upf__passes *p, const char *fn, int pass, const upf_image *out);

#endif /* UPF_PASS_H */
