/* vk_passes.h: the Vulkan pass runner (docs/VULKAN.md, "The pass runner"): what every engine's
 * GPU backend shares. An engine gives its pass list (core/pass.h: upf__pass_info,
 * upf__surface_info), its surfaces' sizes from its own plan, and a small backend table, one
 * entry per GPU pass; the runner makes, once, every buffer (one device-memory allocation),
 * every pipeline, descriptor set and the timestamp queries, and records a frame from the
 * engine's per-frame description: the host images checked, bound and transitioned, the tables
 * uploaded on the first record, the clears, each pass's dispatches with the barriers its reads
 * and writes call for, and the timestamps. As FSR 2's runtime drives its passes from one
 * resource table and one pipeline per pass.
 *
 * Resources. Resource r < surface_count is surface r of the engine's table; r >= surface_count
 * is the engine's extra binding r - surface_count (a table uploaded once, network weights, a
 * buffer only the GPU form has, a uniform buffer). A GPU pass's descriptor set binds every
 * resource its masks name at binding = r (so an engine's ABI numbers its bindings by its
 * surface table, then its extras), plus its constants' uniform buffer when it has one. Roles
 * (upf__surface_role):
 *   INPUT, OUTPUT   host images (upf_vk_image), bound per frame: a sampled image, or a storage
 *                   image (upf__vk_host_rule.storage; OUTPUT always), transitioned in and out
 *                   by the record's image barriers (the depth aspect for a depth format);
 *   INTERMEDIATE    one storage buffer of width x height x format bytes;
 *   TABLE           the same, its bytes uploaded by the first record (upf__vk_surface_plan);
 *   SCRATCH         not on the GPU (no buffer, never bound: a CPU function's own);
 *   HISTORY + the HISTORY_NEXT right after it: two buffers that alternate. A run reads the
 *                   history the previous frame wrote and writes the other; the runner keeps
 *                   two descriptor sets per pass and frame slot (parity 0 and 1), and flips
 *                   the parity after each recorded frame in which a pass that writes a
 *                   HISTORY_NEXT ran (one parity for all pairs: an engine writes every pair in
 *                   such a frame). Both buffers are zeroed by the first record and by a frame
 *                   with `reset` (vkCmdFillBuffer).
 * Every buffer has at least 16 bytes (a surface of size 0 in this configuration still gets a
 * valid descriptor). Extras are storage buffers, uniform buffers or samplers
 * (upf__vk_extra_kind).
 *
 * GPU passes. The backend table may differ from the CPU list: a GPU pass names the CPU pass
 * it belongs to (its constants' size, its name in messages, its timing slot) and may add
 * resources to that pass's masks (a surface only the GPU form reads, an extra) or replace
 * them (own_masks: a helper dispatch such as spatial's compose_taps). Each has up to
 * UPF__VK_VARIANTS_MAX pipelines (shader "<engine>/<file>" + specialisation constants), made
 * at create in one layout; the frame picks one. Each GPU pass records 0 .. UPF__VK_DISPATCH_MAX
 * dispatches (a pyramid's levels), each with its grid and one 32-bit value patched into the
 * push constants (the level) at patch_offset.
 *
 * Constants. Push constants: push_bytes <= UPF__VK_PUSH_MAX (128, Vulkan's guaranteed
 * minimum), the engine's bytes as they are (spatial: the pass's constants struct, then its
 * tail). Larger constants go through a uniform buffer: ubo_bytes > 0 gives the pass a region
 * of one uniform buffer per frame slot at binding ubo_binding, written by vkCmdUpdateBuffer
 * before the passes (with the barrier that makes it visible to them) from upf__vk_pass_frame.ubo.
 *
 * Barriers. The record keeps, per resource, whether a dispatch since the last barrier wrote
 * or read it; before a dispatch that reads or writes what such a dispatch wrote (RAW, WAW), or
 * writes what one read (WAR), it records one compute -> compute memory barrier (shader writes
 * -> shader reads and writes when a write is pending; a WAR alone needs only the execution
 * dependency, no access), none otherwise. An indirect dispatch reads its buffer as a read
 * (the rule above) at the DRAW_INDIRECT stage: in a runner with an indirect pass every
 * barrier's source stages include DRAW_INDIRECT, and a barrier while a write to an indirect
 * buffer is pending makes it visible to DRAW_INDIRECT's INDIRECT_COMMAND_READ too; the
 * barriers around the transfers below do the same. Two dispatches of one pass that writes
 * anything are ordered as two passes (the rule above: WAW). One VkMemoryBarrier rather than
 * a buffer barrier per resource: the same dependency on every driver, one call (GPU drivers
 * do buffer barriers as global ones).
 * Around the passes, as docs/VULKAN.md "Barriers recorded" lists:
 *   in   compute + transfer -> transfer + compute, shader and transfer writes -> transfer
 *        writes, shader reads and writes (the previous frame and the host's copies into our
 *        buffers, before this frame's uploads and clears); the uploads, the uniform buffers'
 *        updates and the clears; all commands -> compute, transfer writes -> shader reads and
 *        writes, with the host images' barriers (layout -> SHADER_READ_ONLY_OPTIMAL for a
 *        sampled image unless GENERAL, GENERAL for a storage image; memory writes -> shader
 *        reads / writes; the colour aspect, or depth (+ stencil for a depth-stencil format)).
 *   out  compute -> all commands, shader writes -> memory reads and writes, each host image
 *        to its final_layout.
 * A clear of a resource that a pass earlier in the frame touches is recorded just before its
 * pass instead (compute -> transfer, fill, transfer -> compute).
 *
 * Timestamps (params.timestamps): one query pool, per frame slot one timestamp before the
 * first pass and one after each GPU pass with `stamp` that ran; upf__vk_runner_timings gives
 * each CPU pass's time of the newest finished frame as the time since the timestamp before
 * (0 for a pass that did not run), so a pass without a stamp (a helper dispatch) counts in the
 * next stamped pass's time.
 *
 * What a record does not do: allocate, compile, or write a descriptor other than this frame's
 * host images (into this slot's and parity's sets). The engine must not record more frames
 * than frames_in_flight before the first has finished (its sets would be rewritten).
 *
 * ---- an engine's use, in short ---------------------------------------------------------------
 *
 *   // at create: the CPU tables, sizes from the engine's own plan, the GPU table
 *   upf__vk_runner_params rp = { .ctx = ctx, .fn = fn, .dev = dev, .vk = &vk, .caps = &caps,
 *       .pass = upf__toy_pass_table(), .pass_count = TOY_PASS_COUNT,
 *       .surface = upf__toy_surface_table(), .surface_count = TOY_COUNT,
 *       .slots = 2, .timestamps = 1 };
 *   toy_plan(&cfg, rp.width, rp.height);                 // the CPU engine's sizes, pure
 *   rp.surface_plan[TOY_LUT] = (upf__vk_surface_plan){ .upload = lut, .upload_bytes = 1024 };
 *   rp.surface_plan[TOY_SUM].clear_value = 0;             // cleared before blur, below
 *   rp.extra_count = 1;                                  // binding TOY_COUNT: the weights
 *   rp.extra[0] = (upf__vk_extra_plan){ .name = "weights", .bytes = sizeof w, .upload = w };
 *   rp.gpu_pass_count = 3;
 *   rp.gpu_pass[0] = (upf__vk_pass_plan){ .pass = TOY_BLUR, .stamp = true,
 *       .clear = UPF__VK_RES(TOY_SUM), .push_bytes = sizeof(toy_blur_con), .variant_count = 1,
 *       .variant = { { "toy/blur", NULL } } };
 *   rp.gpu_pass[1] = (upf__vk_pass_plan){ .pass = TOY_PYRAMID, .stamp = true,
 *       .push_bytes = sizeof(toy_pyr_con), .patch_used = true,
 *       .patch_offset = offsetof(toy_pyr_con, level),
 *       .variant_count = 1, .variant = { { "toy/pyramid", NULL } } };
 *   rp.gpu_pass[2] = (upf__vk_pass_plan){ .pass = TOY_RESOLVE, .stamp = true,
 *       .reads = UPF__VK_RES(TOY_COUNT),                 // + the weights
 *       .ubo_bytes = sizeof(toy_resolve_con), .ubo_binding = TOY_COUNT + 1,
 *       .variant_count = 1, .variant = { { "toy/resolve", NULL } } };
 *   rp.host[TOY_COLOR] = (upf__vk_host_rule){ .formats = colour_formats, .format_count = 3,
 *       .max_width = w, .max_height = h, .as = "colour", .docs = "docs/TOY.md" };
 *   rp.host[TOY_OUT] = (upf__vk_host_rule){ .formats = out_formats, .format_count = 2,
 *       .max_width = ow, .max_height = oh, .as = "the output", .docs = "docs/TOY.md" };
 *   upf__vk_runner *run = upf__vk_runner_create(&rp);   // NULL on failure, message set
 *
 *   // per frame: check the images, then describe the frame and record it
 *   upf_rect rc, ro;
 *   upf_result e;
 *   if ((e = upf__vk_check_host_image(run, fn, "color", TOY_COLOR, color, &rc)) != UPF_OK ||
 *       (e = upf__vk_check_host_image(run, fn, "output", TOY_OUT, out, &ro)) != UPF_OK)
 *       return e;                                        // nothing recorded
 *   upf__vk_frame f = { .reset = reset };
 *   f.image[TOY_COLOR] = color, f.image[TOY_OUT] = out;
 *   f.pass[0] = (upf__vk_pass_frame){ .run = true, .push = &blur_con, .dispatches = 1,
 *       .grid = { { (w + 15) / 16, (h + 15) / 16, 1 } } };
 *   f.pass[1] = (upf__vk_pass_frame){ .run = true, .push = &pyr_con, .dispatches = levels };
 *   for (int l = 0; l < levels; l++)
 *       f.pass[1].grid[l] = (upf__vk_grid){ ..., 1 }, f.pass[1].patch[l] = (uint32_t)l;
 *   f.pass[2] = (upf__vk_pass_frame){ .run = true, .ubo = &resolve_con, .dispatches = 1,
 *       .grid = { { (ow + 7) / 8, (oh + 7) / 8, 1 } } };
 *   return upf__vk_runner_record(run, fn, cmd, &f);
 *
 *   // timings, destroy
 *   upf__vk_runner_timings(run, fn, ms, &total);
 *   upf__vk_runner_destroy(&run);
 *
 * Internal header: not installed. */
#ifndef UPF_VK_PASSES_H
#define UPF_VK_PASSES_H

#include "core/pass.h"
#include "vk/vk_internal.h"

#define UPF__VK_EXTRAS_MAX 8        /* extra bindings after the surfaces */
#define UPF__VK_RESOURCES_MAX (UPF__SURFACES_MAX + UPF__VK_EXTRAS_MAX)
#define UPF__VK_GPU_PASSES_MAX 24   /* GPU passes (helper dispatches included) */
#define UPF__VK_VARIANTS_MAX 4      /* pipelines per GPU pass */
#define UPF__VK_DISPATCH_MAX 16     /* dispatches per GPU pass and frame (pyramid levels) */
#define UPF__VK_SLOTS_MAX 64        /* runner frames in flight (an engine may record several
                                     * runner frames a frame: frame generation's phases) */
#define UPF__VK_FRAMES_IN_FLIGHT_MAX 8 /* an engine's frames_in_flight */
#define UPF__VK_PUSH_MAX 128        /* bytes of push constants: Vulkan's guaranteed minimum */
#define UPF__VK_HOST_FORMATS_MAX 16

/* The bit of resource r in a GPU pass's masks (64 bits: surfaces, then extras). */
#define UPF__VK_RES(r) (1ull << (unsigned)(r))

typedef struct upf__vk_runner upf__vk_runner;

/* ---- create ------------------------------------------------------------------------------ */

/* What the engine says of one of its buffer surfaces beyond its table entry and size. */
typedef struct upf__vk_surface_plan {
    VkDeviceSize bytes;          /* 0: width x height x the format's bytes; else these bytes
                                  * (a surface whose GPU layout differs) */
    const void *upload;          /* TABLE (or any buffer): bytes uploaded by the first record,
                                  * by vkCmdUpdateBuffer; kept by the engine while the runner
                                  * lives. NULL: none */
    VkDeviceSize upload_bytes;   /* at most the buffer's bytes; a multiple of 4 */
    uint32_t clear_value;        /* the word a pass's `clear` fills it with */
} upf__vk_surface_plan;

/* What an extra binding is. */
typedef enum upf__vk_extra_kind {
    UPF__VK_EXTRA_STORAGE = 0,   /* a storage buffer (a table, weights, a GPU-only buffer) */
    UPF__VK_EXTRA_UNIFORM,       /* a uniform buffer (its upload: the data; at most 65536) */
    UPF__VK_EXTRA_SAMPLER_LINEAR, /* a sampler: linear, clamp to edge, unnormalized = false */
    UPF__VK_EXTRA_SAMPLER_NEAREST /* a sampler: nearest, clamp to edge */
} upf__vk_extra_kind;

/* An extra binding (resource surface_count + k). */
typedef struct upf__vk_extra_plan {
    const char *name;            /* "network weights", for messages and upf__vk_runner_bytes */
    upf__vk_extra_kind kind;
    VkDeviceSize bytes;          /* buffers: at least 16 are made */
    const void *upload;          /* bytes uploaded by the first record, or NULL */
    VkDeviceSize upload_bytes;   /* 0: `bytes` when upload is set */
    uint32_t clear_value;        /* the word a pass's `clear` fills it with */
} upf__vk_extra_plan;

/* One pipeline of a GPU pass. */
typedef struct upf__vk_variant {
    const char *shader;          /* "<engine>/<file>": src/vk/shaders/<engine>/<file>.comp */
    const VkSpecializationInfo *spec; /* or NULL; read during create only */
    const upf__vk_shader *code;  /* or NULL: the embedded shader `shader`; else this SPIR-V
                                  * (a test's own shaders), `shader` naming it in messages */
} upf__vk_variant;

/* One GPU pass. */
typedef struct upf__vk_pass_plan {
    int pass;                    /* the CPU pass (index into params.pass) it belongs to */
    bool own_masks;              /* its masks are reads/writes alone; else the CPU pass's
                                  * masks (SCRATCH surfaces left out) plus these */
    uint64_t reads, writes;      /* UPF__VK_RES() masks */
    uint64_t clear;              /* buffers filled with their clear_value before this pass,
                                  * each frame it runs (a sum, an atomic's start) */
    uint64_t indirect;           /* UPF__VK_RES() of the one buffer its indirect dispatches
                                  * take their workgroup counts from (a
                                  * VkDispatchIndirectCommand an earlier dispatch wrote: a tile
                                  * list's count), or 0. A storage buffer (a surface or an
                                  * extra, not a history): made with INDIRECT_BUFFER usage */
    bool stamp;                  /* a timestamp after it when it ran: it ends CPU pass `pass` */
    uint32_t push_bytes;         /* push constants, 0 .. UPF__VK_PUSH_MAX, a multiple of 4 */
    uint32_t patch_offset;       /* where each dispatch's patch value goes in the push
                                  * constants (< push_bytes), when dispatches > 1 or patch is
                                  * asked (patch_used) */
    bool patch_used;
    uint32_t ubo_bytes;          /* > 0: constants through a uniform buffer (a multiple of 4,
                                  * at most 65536) at binding ubo_binding */
    uint32_t ubo_binding;        /* not a resource's binding */
    int variant_count;           /* 1 .. UPF__VK_VARIANTS_MAX */
    upf__vk_variant variant[UPF__VK_VARIANTS_MAX];
} upf__vk_pass_plan;

/* What a host image of a surface must be (upf__vk_check_host_image). */
typedef struct upf__vk_host_rule {
    const VkFormat *formats;     /* the formats taken (the device's support is checked too) */
    int format_count;
    const VkFormat *srgb_formats; /* those whose UNORM view may hold sRGB values (srgb = 1) */
    int srgb_format_count;
    bool storage;                /* an INPUT read as a storage image (OUTPUT: always) */
    bool depth;                  /* depth formats are among `formats` (read through the
                                  * host's depth-aspect view); create refuses a depth format
                                  * listed without it */
    bool optional;               /* NULL means "none this frame" (a reactive mask) */
    int max_width, max_height;   /* the rectangle at most this (the created size) */
    const char *as;              /* what it is taken as, for messages: "a source" (NULL: the
                                  * `what` of the check) */
    const char *docs;            /* where the formats are listed, for messages
                                  * ("docs/VULKAN.md, \"Formats\""; NULL: docs/VULKAN.md) */
} upf__vk_host_rule;

/* The rules the temporal and frame-generation engines share (vk_host_rules.c): a colour
 * (sRGB on the 8-bit UNORMs), a depth (depth formats too), the motion vectors (optional),
 * each up to UPF_MAX_IMAGE_DIMENSION; an output (sRGB on RGBA8) up to max_width x
 * max_height. `as` names it in messages, `docs` lists the formats. */
upf__vk_host_rule upf__vk_rule_colour(const char *as, const char *docs);
upf__vk_host_rule upf__vk_rule_depth(bool optional, const char *docs);
upf__vk_host_rule upf__vk_rule_motion(const char *docs);
upf__vk_host_rule upf__vk_rule_output(int max_width, int max_height, const char *as,
                                      const char *docs);

typedef struct upf__vk_runner_params {
    upf_context *ctx;
    const char *fn;                          /* the public call, for messages */
    const upf_vk_device *dev;                /* the host's device (checked already) */
    const upf__vk_funcs *vk;                 /* loaded (copied) */
    const upf__vk_caps *caps;                /* checked (copied) */
    const upf__pass_info *pass;              /* the engine's CPU tables */
    int pass_count;
    const upf__surface_info *surface;
    int surface_count;
    int width[UPF__SURFACES_MAX], height[UPF__SURFACES_MAX]; /* from the engine's plan, at
                                                              * the largest sizes */
    upf__vk_surface_plan surface_plan[UPF__SURFACES_MAX];
    upf__vk_host_rule host[UPF__SURFACES_MAX];               /* INPUT / OUTPUT surfaces */
    upf__vk_extra_plan extra[UPF__VK_EXTRAS_MAX];
    int extra_count;
    upf__vk_pass_plan gpu_pass[UPF__VK_GPU_PASSES_MAX];
    int gpu_pass_count;
    int slots;                               /* frames in flight, 1 .. UPF__VK_SLOTS_MAX */
    bool timestamps;                         /* make the query pool (fails without) */
} upf__vk_runner_params;

/* An engine's own params shared by every Vulkan engine: the lent device's handles
 * (upf__vk_check_handles) and frames_in_flight (0 for 2, or 1 ..
 * UPF__VK_FRAMES_IN_FLIGHT_MAX). */
upf_result upf__vk_check_engine_params(upf_context *ctx, const char *fn,
                                       const upf_vk_device *dev, int frames_in_flight);

/* Makes everything. On failure: NULL, the context's message naming the call, the object and
 * the Vulkan result. `p` may be freed afterwards (uploads excepted). */
upf__vk_runner *upf__vk_runner_create(const upf__vk_runner_params *p);
void upf__vk_runner_destroy(upf__vk_runner **pr);

/* The buffer of resource r (the current parity's for a history pair: HISTORY the one read,
 * HISTORY_NEXT the one written by the next frame) and its bytes; VK_NULL_HANDLE with 0 bytes
 * for a host image, a scratch surface or r out of range. For tests and copies. */
VkBuffer upf__vk_runner_buffer(const upf__vk_runner *r, int resource, VkDeviceSize *bytes);

/* The bytes of device memory resource r takes (both buffers of a history pair counted in
 * HISTORY's), its name ("linear", "network weights"); and the whole allocation. For the docs'
 * memory tables. */
VkDeviceSize upf__vk_runner_bytes(const upf__vk_runner *r, int resource, const char **name);
VkDeviceSize upf__vk_runner_total_bytes(const upf__vk_runner *r);

/* The device's caps as the runner took them. */
const upf__vk_caps *upf__vk_runner_caps(const upf__vk_runner *r);

/* ---- a frame ----------------------------------------------------------------------------- */

/* Checks host image `im` for surface `surface` against its rule: NULL (unless optional), a
 * VK_NULL_HANDLE image or view, a format outside the rule's set or one the device cannot
 * sample / store with optimal tiling, usage without SAMPLED (STORAGE for a storage image),
 * srgb = 1 on a format the rule does not allow it for, an extent out of 1..
 * UPF_MAX_IMAGE_DIMENSION, a rect outside the image or larger than max_width x max_height,
 * a layout the runner cannot take it from (UNDEFINED allowed only for an OUTPUT) or leave it
 * in, a depth format where the rule takes none. Messages "fn: what: ... (expected ...)". On
 * success *rect is the rectangle (the whole image when im->rect.width is 0); *rect untouched
 * and UPF_OK for an absent optional image. */
upf_result upf__vk_check_host_image(upf__vk_runner *r, const char *fn, const char *what,
                                    int surface, const upf_vk_image *im, upf_rect *rect);

/* One dispatch's workgroups. */
typedef struct upf__vk_grid {
    uint32_t x, y, z;
} upf__vk_grid;

/* The workgroups of 8 x 8 that cover w x h (one layer). */
static inline upf__vk_grid upf__vk_grid8(int w, int h)
{
    return (upf__vk_grid){ (uint32_t)(w + 7) / 8, (uint32_t)(h + 7) / 8, 1 };
}

/* The workgroups of 16 x 16 that cover w x h (one layer). */
static inline upf__vk_grid upf__vk_grid16(int w, int h)
{
    return (upf__vk_grid){ (uint32_t)(w + 15) / 16, (uint32_t)(h + 15) / 16, 1 };
}

/* A GPU pass in this frame. */
typedef struct upf__vk_pass_frame {
    bool run;                    /* false: not recorded (no barrier, no timestamp) */
    int variant;                 /* which pipeline */
    const void *push;            /* push_bytes bytes, copied (may be the stack) */
    const void *ubo;             /* ubo_bytes bytes, copied into the command buffer */
    int dispatches;              /* 0 .. UPF__VK_DISPATCH_MAX */
    upf__vk_grid grid[UPF__VK_DISPATCH_MAX];
    uint32_t patch[UPF__VK_DISPATCH_MAX]; /* written at patch_offset before each dispatch */
    bool indirect[UPF__VK_DISPATCH_MAX]; /* dispatch d by vkCmdDispatchIndirect from the
                                  * plan's indirect buffer at byte indirect_at[d] (its grid[d]
                                  * unused) */
    uint32_t indirect_at[UPF__VK_DISPATCH_MAX]; /* a multiple of 4, 12 bytes within it */
} upf__vk_pass_frame;

/* A frame. */
typedef struct upf__vk_frame {
    const upf_vk_image *image[UPF__SURFACES_MAX]; /* by surface index; NULL: not bound this
                                                   * frame (its passes must not run) */
    upf__vk_pass_frame pass[UPF__VK_GPU_PASSES_MAX]; /* by GPU pass */
    bool reset;                  /* zero both buffers of every history pair first */
} upf__vk_frame;

/* Records frame `f` into `cmd` (recording, outside a render pass), as the header says. The
 * host images must have been checked (upf__vk_check_host_image); this checks only that cmd is
 * set, each running pass's variant and dispatch count are in range and its host images are
 * bound, refusing before recording anything. Not thread-safe on one runner: the engine
 * serialises (upf__enter). */
upf_result upf__vk_runner_record(upf__vk_runner *r, const char *fn, VkCommandBuffer cmd,
                                 const upf__vk_frame *f);

/* Per CPU pass, the GPU milliseconds of the newest recorded frame whose timestamps are
 * available (ms[pass_count], 0 for a pass that did not run) and their sum. Fails with
 * UPF_ERROR_UNSUPPORTED when the runner has no timestamps or no recorded frame has finished
 * (messages as upf_vk_spatial_timings documents). */
upf_result upf__vk_runner_timings(upf__vk_runner *r, const char *fn, double *ms,
                                  double *total_ms);

/* The same for runner frame `frame` (0 for the first recorded) alone: false when the runner
 * has no timestamps, that frame's slot has been reused, or its timestamps are not available
 * yet (no message). An engine that records several runner frames a frame sums them. */
bool upf__vk_runner_frame_timings(upf__vk_runner *r, uint64_t frame, double *ms,
                                  double *total_ms);

/* Frames recorded so far, and the history parity the next frame reads (0 or 1). */
uint64_t upf__vk_runner_frames(const upf__vk_runner *r);
int upf__vk_runner_parity(const upf__vk_runner *r);

#endif /* UPF_VK_PASSES_H */
