/* upframe_vk.h: the Vulkan backend of upframe (C99 and C++ compatible; docs/VULKAN.md).
 *
 * The spatial engine as Vulkan compute passes that a host records into its own command
 * buffer, on its own device. The host lends its Vulkan (instance, physical device, device, a
 * queue family and vkGetInstanceProcAddr); upframe loads every Vulkan function through that
 * pointer, loads no Vulkan library of its own, never creates a device, never submits and never
 * waits. Everything an engine needs (buffers, pipelines, descriptor sets, query pools) is made
 * when it is created; recording a frame allocates nothing.
 *
 * Managed mode (upf_vk_managed_*) is for tools and tests: it makes its own instance and device
 * through the system's Vulkan loader, uploads, runs and reads back.
 *
 * Conventions are those of upframe.h: opaque handles, params structs whose zero fields mean
 * the defaults, upf_result with the message in the context (upf_context_last_error) and its
 * log. The library is built with this header only when the Vulkan headers were found
 * (CMake option UPF_VULKAN).
 */
#ifndef UPFRAME_VK_H
#define UPFRAME_VK_H

#include <vulkan/vulkan.h>

#include "upframe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * What the host lends, and what upframe needs from the device
 * ------------------------------------------------------------------------------------- */

/* How the detail pass (the network) runs. The other passes have one form each. */
typedef enum upf_vk_variant {
    UPF_VK_VARIANT_AUTO = 0,    /* the fastest the device has enabled: coopmat, fp16, fp32 */
    UPF_VK_VARIANT_FP32 = 1,    /* fp32 multiply-adds from shared memory: every device */
    UPF_VK_VARIANT_FP16 = 2,    /* fp16 arithmetic and storage (shaderFloat16 +
                                 * storageBuffer16BitAccess) */
    UPF_VK_VARIANT_COOPMAT = 3, /* 16x16x16 fp16 products on the tensor cores
                                 * (VK_NV_cooperative_matrix) */
    UPF_VK_VARIANT_COUNT = 4
} upf_vk_variant;

/* "auto", "fp32", "fp16", "coopmat"; "unknown" otherwise. Thread-safety: safe. */
UPF_API const char *upf_vk_variant_name(upf_vk_variant variant);

/* The host's Vulkan. Every handle must outlive the objects made from it. */
typedef struct upf_vk_device {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;      /* the family whose queues will run the command buffers:
                                 * it must have VK_QUEUE_COMPUTE_BIT */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* the host's loader entry point */
    /* What the host enabled when it made `device` (Vulkan cannot be asked afterwards):
     * the device extensions, and the feature chain it gave vkCreateDevice
     * (VkPhysicalDeviceFeatures2 and its pNext structs: 16-bit storage, shader float16,
     * cooperative matrix, Vulkan 1.1/1.2 features are read). NULL: none. */
    const char *const *enabled_extensions;
    uint32_t enabled_extension_count;
    const VkPhysicalDeviceFeatures2 *enabled_features;
    const VkAllocationCallbacks *allocator; /* the host's callbacks for every Vulkan object
                                             * upframe makes; NULL: the driver's */
} upf_vk_device;

/* The device extensions and features to enable for upframe, filled for one physical device
 * by upf_vk_requirements: the required ones always, the optional ones that this GPU has.
 * Chain `features` (it links the structs below in place: do not copy the struct, fill it
 * where it will stay) into VkDeviceCreateInfo.pNext together with the host's own, and enable
 * `extensions`. */
typedef struct upf_vk_requirements {
    uint32_t api_version;                     /* the least device API version: 1.1 */
    const char *extensions[4];                /* to enable (optional ones this GPU has) */
    uint32_t extension_count;
    VkPhysicalDeviceFeatures2 features;       /* required: shaderStorageImageWriteWithoutFormat;
                                               * optional: what the variants use */
    VkPhysicalDevice16BitStorageFeatures storage16;
    VkPhysicalDeviceShaderFloat16Int8FeaturesKHR float16;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat;
    int variants_possible[UPF_VK_VARIANT_COUNT]; /* 1: this GPU can run the variant */
} upf_vk_requirements;

/* Fills `req` for `physical_device` (queries through get_instance_proc_addr). Fails with
 * UPF_ERROR_UNSUPPORTED (and says why) when the GPU lacks something required.
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_vk_requirements_query(upf_context *ctx, VkInstance instance,
                                             VkPhysicalDevice physical_device,
                                             PFN_vkGetInstanceProcAddr get_instance_proc_addr,
                                             upf_vk_requirements *req);

/* The capability check: whether upframe can run on the lent device as it was made (API
 * version, queue family, the enabled features and extensions). Logs (UPF_LOG_INFO)
 * "upframe can run on this GPU" or (UPF_LOG_ERROR) "upframe cannot run on this GPU: <why>"
 * and returns UPF_OK or UPF_ERROR_UNSUPPORTED, so the host can fall back to the CPU engine.
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_vk_check_device(upf_context *ctx, const upf_vk_device *device);

/* ---------------------------------------------------------------------------------------
 * The spatial engine on the GPU
 * ------------------------------------------------------------------------------------- */

typedef struct upf_vk_spatial_params {
    const upf_vk_device *device;   /* required; copied */
    int max_src_width, max_src_height; /* the largest source rectangle a frame may have */
    int max_dst_width, max_dst_height; /* the largest destination rectangle; the model is
                                        * chosen for this ratio (docs/SPATIAL.md) */
    int frames_in_flight;          /* frames recorded before the first of them has finished on
                                    * the GPU, 1..8; 0: 2 */
    float sharpness;               /* as upf_spatial_params */
    const upf_models *models;      /* as upf_spatial_params (NULL: the built-in set) */
    unsigned flags;                /* UPF_SPATIAL_NO_* */
    upf_vk_variant variant;        /* 0: UPF_VK_VARIANT_AUTO */
    int timestamps;                /* 1: write per-pass timestamps (upf_vk_spatial_timings) */
} upf_vk_spatial_params;

#ifndef __cplusplus /* compound literals are C only */
#define upf_vk_spatial_params(...) (&(const upf_vk_spatial_params){ __VA_ARGS__ })
#endif

typedef struct upf_vk_spatial upf_vk_spatial;

/* Checks the device (upf_vk_check_device), picks the variant, makes every buffer (one device
 * memory allocation), descriptor set and pipeline. NULL on failure (upf_context_last_error).
 * Thread-safety: context-serialised; uses `device` from this thread. */
UPF_API upf_vk_spatial *upf_vk_spatial_create(upf_context *ctx,
                                              const upf_vk_spatial_params *params);

/* Destroys *s and sets it to NULL (accepts NULL). The host must make sure the GPU is done
 * with every command buffer that recorded it. Thread-safety: context-serialised. */
UPF_API void upf_vk_spatial_destroy(upf_vk_spatial **s);

/* The variant the engine runs (never AUTO). Thread-safety: safe. */
UPF_API upf_vk_variant upf_vk_spatial_variant(const upf_vk_spatial *s);

/* One of the host's images, at the point of the command buffer where upframe records. */
typedef struct upf_vk_image {
    VkImage image;
    VkImageView view;            /* a 2D view of mip 0, layer 0, of `format` */
    VkFormat format;             /* the view's format */
    VkImageUsageFlags usage;     /* the usage the image was made with */
    int width, height;           /* the image's extent */
    upf_rect rect;               /* the part read (source) or written (destination); width 0:
                                  * the whole image */
    VkImageLayout layout;        /* its layout when the recorded commands start */
    VkImageLayout final_layout;  /* the layout to leave it in; 0 (UNDEFINED): `layout` */
    int srgb;                    /* 1: a UNORM view of sRGB-encoded values (upframe decodes
                                  * or encodes in the shader); 0: as the format says */
} upf_vk_image;

/* Records one frame into `cmd` (in the recording state, outside any render pass, of a pool
 * of the lent queue family): the source rectangle of `src` upscaled into the destination
 * rectangle of `dst`. Source formats: R8G8B8A8_UNORM/SRGB, B8G8R8A8_UNORM/SRGB,
 * A2B10G10R10_UNORM_PACK32, R16G16B16A16_SFLOAT/UNORM, B10G11R11_UFLOAT_PACK32,
 * R32G32B32A32_SFLOAT, with VK_IMAGE_USAGE_SAMPLED_BIT. Destination formats: R8G8B8A8_UNORM
 * (srgb 0 or 1), A2B10G10R10_UNORM_PACK32, R16G16B16A16_SFLOAT, R32G32B32A32_SFLOAT, with
 * VK_IMAGE_USAGE_STORAGE_BIT. Rectangles up to the created sizes, ratio 1..4 each way. The
 * barriers recorded are in docs/VULKAN.md. On any error nothing is recorded and `cmd` is as
 * it was. No allocation, no pipeline compile. The engine cycles through frames_in_flight
 * descriptor sets: the host must not record more frames than that before the first of them
 * has finished. Thread-safety: context-serialised (a second record on the same engine while
 * one runs on another thread fails); `cmd` externally synchronised. */
UPF_API upf_result upf_vk_spatial_record(upf_vk_spatial *s, VkCommandBuffer cmd,
                                         const upf_vk_image *src, const upf_vk_image *dst);

/* The GPU time of each pass (ms[UPF_SPATIAL_PASS_COUNT], 0 for a pass that did not run) and
 * their sum (*total_ms, may be NULL) of the most recent recorded frame that the GPU has
 * finished, from its timestamps (params.timestamps). Fails with UPF_ERROR_UNSUPPORTED when
 * timestamps are off or no recorded frame has finished yet. Thread-safety:
 * context-serialised. */
UPF_API upf_result upf_vk_spatial_timings(upf_vk_spatial *s, double ms[UPF_SPATIAL_PASS_COUNT],
                                          double *total_ms);

/* ---------------------------------------------------------------------------------------
 * The temporal engine on the GPU (docs/VULKAN.md, "The temporal engine")
 * ------------------------------------------------------------------------------------- */

typedef struct upf_vk_temporal_params {
    const upf_vk_device *device;       /* required; copied */
    int max_render_width, max_render_height; /* the largest render size a frame may have */
    int output_width, output_height;   /* 1 to 4 times the largest render size each way */
    int frames_in_flight;              /* as upf_vk_spatial_params: 1..8; 0: 2 */
    float sharpness;                   /* as upf_temporal_params: 0 (off) .. 1 */
    unsigned flags;                    /* UPF_TEMPORAL_COLOR_SRGB or _COLOR_SQRT, _MOTION_UV,
                                        * _SPATIAL_FILL (the GPU spatial engine, built-in
                                        * models; frames_in_flight at most 4 then) */
    int timestamps;                    /* 1: per-pass timestamps (upf_vk_temporal_timings) */
} upf_vk_temporal_params;

#ifndef __cplusplus
#define upf_vk_temporal_params(...) (&(const upf_vk_temporal_params){ __VA_ARGS__ })
#endif

/* One frame. The images are the host's, in the state their layout fields say. */
typedef struct upf_vk_temporal_frame {
    const upf_vk_image *color;    /* R8G8B8A8_UNORM/SRGB, B8G8R8A8_UNORM/SRGB,
                                   * A2B10G10R10_UNORM_PACK32, R16G16B16A16_SFLOAT/UNORM,
                                   * B10G11R11_UFLOAT_PACK32, R32G32B32A32_SFLOAT; SAMPLED */
    const upf_vk_image *depth;    /* R32_SFLOAT, R16_SFLOAT, or a depth format (D32_SFLOAT,
                                   * D16_UNORM, X8_D24_UNORM_PACK32, D24_UNORM_S8_UINT,
                                   * D32_SFLOAT_S8_UINT) through a view of its depth aspect;
                                   * SAMPLED */
    const upf_vk_image *motion;   /* R16G16_SFLOAT or R32G32_SFLOAT, SAMPLED; NULL: camera
                                   * motion from values.view_projection and
                                   * prev_view_projection */
    const upf_vk_image *reactive; /* optional R8_UNORM, R16_SFLOAT or R32_SFLOAT, SAMPLED */
    int render_width, render_height; /* this frame's render size, at most the largest; 0: the
                                   * largest. Each image's rectangle (width 0: the image from
                                   * its top-left corner) holds at least this much; its
                                   * top-left render_width x render_height is read */
    upf_temporal_frame values;    /* jitter, motion scale, camera or projection, clip depth,
                                   * view-projections, frame time, reset, exposure and
                                   * pre-exposure, as for upf_temporal_run; its image pointers
                                   * are not read */
} upf_vk_temporal_frame;

typedef struct upf_vk_temporal upf_vk_temporal;

/* Checks the device and the params, makes every buffer (the history included; one device
 * memory allocation), descriptor set and pipeline. NULL on failure (upf_context_last_error).
 * Thread-safety: context-serialised. */
UPF_API upf_vk_temporal *upf_vk_temporal_create(upf_context *ctx,
                                                const upf_vk_temporal_params *params);

/* Destroys *t and sets it to NULL (accepts NULL). The GPU must be done with every command
 * buffer that recorded it. Thread-safety: context-serialised. */
UPF_API void upf_vk_temporal_destroy(upf_vk_temporal **t);

/* Records one frame into `cmd` (recording, outside a render pass, of a pool of the lent queue
 * family): the frame's passes into `output` (R8G8B8A8_UNORM (srgb 0 or 1),
 * A2B10G10R10_UNORM_PACK32, R16G16B16A16_SFLOAT or R32G32B32A32_SFLOAT, STORAGE; its
 * rectangle the output size). The first frame after creation is a reset. On any error nothing
 * is recorded, `cmd` is as it was and the history is untouched. The barriers and layouts are
 * in docs/VULKAN.md. At most frames_in_flight frames may be recorded before the first of them
 * has finished. Thread-safety: context-serialised; `cmd` externally synchronised. */
UPF_API upf_result upf_vk_temporal_record(upf_vk_temporal *t, VkCommandBuffer cmd,
                                          const upf_vk_temporal_frame *frame,
                                          const upf_vk_image *output);

/* As upf_vk_spatial_timings, per temporal pass (ms[UPF_TEMPORAL_PASS_COUNT]). With the
 * spatial fill, a frame is two records of the engine's passes around the spatial engine's:
 * only accumulate, sharpen and spatial_fill (the spatial engine's whole frame) are timed, the
 * passes before them read 0. */
UPF_API upf_result upf_vk_temporal_timings(upf_vk_temporal *t,
                                           double ms[UPF_TEMPORAL_PASS_COUNT],
                                           double *total_ms);

/* ---------------------------------------------------------------------------------------
 * Frame generation on the GPU (docs/VULKAN.md, "Frame generation"): the CPU engine's passes
 * (upf_interpolate_*, docs/FRAMEGEN.md) recorded into the host's command buffer. Per record:
 * the made frames at a list of phases between frame N-1 (A) and frame N (B), each into one
 * of the host's output images. Presentation and pacing stay the host's.
 * ------------------------------------------------------------------------------------- */

/* Where the made frames' motion comes from. */
typedef enum upf_vk_motion {
    UPF_VK_MOTION_VECTORS = 0, /* the game's motion vectors and depth (the default); a record
                                * without both: the blend (UPF_INTERPOLATE_MOTION_VECTORS) */
    UPF_VK_MOTION_FLOW = 1,    /* optical flow on the two colours, vectors ignored
                                * (UPF_INTERPOLATE_MOTION_FLOW) */
    UPF_VK_MOTION_BOTH = 2     /* the vectors when a record gives motion and depth, optical
                                * flow when it gives neither, the blend when it gives one
                                * without the other (UPF_INTERPOLATE_MOTION_AUTO) */
} upf_vk_motion;

typedef struct upf_vk_interpolate_params {
    const upf_vk_device *device;       /* required; copied */
    int width, height;                 /* the frames' and the outputs' size,
                                        * 1 .. UPF_MAX_IMAGE_DIMENSION */
    int motion_width, motion_height;   /* the vectors' and depth's size (a render size up to
                                        * the frames' size); 0x0: the frames' size */
    upf_vk_motion motion;              /* 0: UPF_VK_MOTION_VECTORS */
    int max_factor;                    /* the largest factor a record is asked for: at most
                                        * max_factor - 1 phases a record, 2 ..
                                        * UPF_INTERPOLATE_FACTOR_MAX; 0: 2 */
    int frames_in_flight;              /* records made before the first of them has finished
                                        * on the GPU, 1..8; 0: 2 */
    double motion_scale_x;             /* multiplies the stored vectors; 0: 1 (as
                                        * upf_interpolate_params) */
    double motion_scale_y;
    unsigned flags;                    /* UPF_INTERPOLATE_MOTION_UV, _DEPTH_REVERSED,
                                        * _NO_STILL_RULE, _FLOW_FULL, _FLOW_HALF */
    int timestamps;                    /* 1: per-pass timestamps (upf_vk_interpolate_timings) */
} upf_vk_interpolate_params;

#ifndef __cplusplus
#define upf_vk_interpolate_params(...) (&(const upf_vk_interpolate_params){ __VA_ARGS__ })
#endif

/* One pair of frames, as upf_interpolate_frames. The images are the host's, in the state
 * their layout fields say; each rectangle (width 0: the image from its top-left corner) at
 * least the size given, its top-left that much read. */
typedef struct upf_vk_interpolate_frame {
    const upf_vk_image *prev_color; /* frame N-1 (A); required. R8G8B8A8_UNORM/SRGB,
                                     * B8G8R8A8_UNORM/SRGB, A2B10G10R10_UNORM_PACK32,
                                     * R16G16B16A16_SFLOAT/UNORM, B10G11R11_UFLOAT_PACK32,
                                     * R32G32B32A32_SFLOAT; SAMPLED; the frames' size */
    const upf_vk_image *color;      /* frame N (B); required; as prev_color. With a HUD
                                     * layer: both HUD-less */
    const upf_vk_image *motion;     /* optional: frame N's vectors, (N-1 - N) screen position
                                     * of each pixel's surface, x right, y down, pixels of
                                     * the motion size (or UV: UPF_INTERPOLATE_MOTION_UV);
                                     * R16G16_SFLOAT or R32G32_SFLOAT, SAMPLED, the motion
                                     * size */
    const upf_vk_image *depth;      /* optional: frame N's depth; R32_SFLOAT, R16_SFLOAT or
                                     * a depth format (D32_SFLOAT, D16_UNORM,
                                     * X8_D24_UNORM_PACK32, D24_UNORM_S8_UINT,
                                     * D32_SFLOAT_S8_UINT) through a view of its depth
                                     * aspect; SAMPLED; the motion size */
    const upf_vk_image *prev_hud;   /* optional HUD layers (colour formats as prev_color,
                                     * straight alpha, SAMPLED, the frames' size):  */
    const upf_vk_image *hud;        /* composited unwarped over the made frame, N-1's below
                                     * phase 0.5, N's from 0.5 (either alone serves every
                                     * phase) */
    int64_t prev_id, id;            /* the frames' ids: motion is used only when id ==
                                     * prev_id + 1 (else the blend, never a frame made against
                                     * a stale one) */
    int reset;                      /* 1: a cut or a new scene between them: the blend */
    const double *view_projection;  /* optional, with motion vectors: the frames' cameras as */
    const double *prev_view_projection; /* upf_interpolate_frames has them (16 doubles each,
                                     * both or neither; read during the record only) */
    int ndc_y_down;                 /* as upf_interpolate_frames */
} upf_vk_interpolate_frame;

typedef struct upf_vk_interpolate upf_vk_interpolate;

/* Checks the device and the params, makes every buffer (one device memory allocation),
 * descriptor set and pipeline. NULL on failure (upf_context_last_error). Thread-safety:
 * context-serialised. */
UPF_API upf_vk_interpolate *upf_vk_interpolate_create(upf_context *ctx,
                                                      const upf_vk_interpolate_params *params);

/* Destroys *fg and sets it to NULL (accepts NULL). The GPU must be done with every command
 * buffer that recorded it. Thread-safety: context-serialised. */
UPF_API void upf_vk_interpolate_destroy(upf_vk_interpolate **fg);

/* Records into `cmd` (recording, outside a render pass, of a pool of the lent queue family)
 * the frames made between frame->prev_color and frame->color at phases[0 .. phase_count - 1]
 * (each strictly between 0 and 1; 1 .. max_factor - 1 of them), phase k into outputs[k]
 * (output_count == phase_count; R8G8B8A8_UNORM (srgb 0 or 1), A2B10G10R10_UNORM_PACK32,
 * R16G16B16A16_SFLOAT or R32G32B32A32_SFLOAT, STORAGE, its rectangle the frames' size). The
 * motion is estimated once (prepare, scene, vectors or flow, camera), then each phase's
 * passes run (splat, fill, resolve, inpaint, compose). The made frames are the CPU engine's
 * (upf_interpolate_run on the same inputs) within the tolerance docs/VULKAN.md gives. The
 * blend (1 - t) A + t B, as the CPU engine: on a reset, ids not consecutive, a missing input
 * (motion without depth or the reverse; no vectors with UPF_VK_MOTION_VECTORS), decided
 * here; on a cut between the frames (optical flow), decided on the GPU by the scene pass
 * (nothing is read back). On any error nothing is recorded and `cmd` is as it was. The
 * barriers and layouts are in docs/VULKAN.md. At most frames_in_flight records may be made
 * before the first of them has finished. Thread-safety: context-serialised; `cmd` externally
 * synchronised. */
UPF_API upf_result upf_vk_interpolate_record(upf_vk_interpolate *fg, VkCommandBuffer cmd,
                                             const upf_vk_interpolate_frame *frame,
                                             const double *phases, int phase_count,
                                             const upf_vk_image *const *outputs,
                                             int output_count);

/* As upf_vk_spatial_timings, per frame generation pass (ms[UPF_INTERPOLATE_PASS_COUNT]) of
 * the most recent record that the GPU has finished, each per-phase pass summed over its
 * phases, and their sum. */
UPF_API upf_result upf_vk_interpolate_timings(upf_vk_interpolate *fg,
                                              double ms[UPF_INTERPOLATE_PASS_COUNT],
                                              double *total_ms);

/* ---------------------------------------------------------------------------------------
 * Managed mode: upframe makes its own Vulkan (tools, tests)
 * ------------------------------------------------------------------------------------- */

typedef struct upf_vk_managed_params {
    int device_index;            /* the physical device; -1 (or 0 with prefer 0): the first
                                  * discrete GPU, else the first device */
    int src_width, src_height;   /* as upf_spatial_params */
    int dst_width, dst_height;
    upf_format src_format, dst_format; /* the upf_image formats to be given */
    float sharpness;
    const upf_models *models;
    unsigned flags;
    upf_vk_variant variant;
    int timestamps;
} upf_vk_managed_params;

#ifndef __cplusplus
#define upf_vk_managed_params(...) (&(const upf_vk_managed_params){ __VA_ARGS__ })
#endif

typedef struct upf_vk_managed upf_vk_managed;

/* Loads the system's Vulkan (libvulkan.so.1), makes an instance, a device (with what
 * upf_vk_requirements_query asks), images of the sizes and formats, staging buffers and a
 * upf_vk_spatial. Fails with UPF_ERROR_UNSUPPORTED when there is no Vulkan or no device.
 * Thread-safety: context-serialised. */
UPF_API upf_vk_managed *upf_vk_managed_create(upf_context *ctx,
                                              const upf_vk_managed_params *params);
UPF_API void upf_vk_managed_destroy(upf_vk_managed **m);

/* The device's name ("llvmpipe (...)", "NVIDIA H200"). Thread-safety: safe. */
UPF_API const char *upf_vk_managed_device_name(const upf_vk_managed *m);

/* The engine inside (for upf_vk_spatial_variant, upf_vk_spatial_timings). */
UPF_API upf_vk_spatial *upf_vk_managed_engine(upf_vk_managed *m);

/* Uploads `src`, records and submits the upscale, waits, and reads the result into `dst`
 * (both the created sizes and formats). Thread-safety: context-serialised. */
UPF_API upf_result upf_vk_managed_run(upf_vk_managed *m, const upf_image *src,
                                      const upf_image *dst);

/* Times the upscale alone: `frames` frames on the uploaded source (upf_vk_managed_run
 * first), each its own submission, per-pass GPU times from timestamps (the engine must have
 * been made with timestamps). ms[pass * frames + i] and total[i] receive frame i's times;
 * *record_us the median CPU time of one upf_vk_spatial_record. Thread-safety:
 * context-serialised. */
UPF_API upf_result upf_vk_managed_bench(upf_vk_managed *m, int frames, double *ms,
                                        double *total, double *record_us);

/* The temporal engine in managed mode (tools, tests): upframe's own device, as
 * upf_vk_managed_* for the spatial engine. */
typedef struct upf_vk_temporal_managed_params {
    int device_index;                  /* as upf_vk_managed_params */
    int render_width, render_height;   /* as upf_temporal_params */
    int output_width, output_height;
    upf_format color_format;           /* the frames' colour (any colour format) */
    upf_format output_format;          /* the output's (any colour format) */
    float sharpness;
    unsigned flags;                    /* as upf_vk_temporal_params */
    int timestamps;
} upf_vk_temporal_managed_params;

#ifndef __cplusplus
#define upf_vk_temporal_managed_params(...) (&(const upf_vk_temporal_managed_params){ __VA_ARGS__ })
#endif

typedef struct upf_vk_temporal_managed upf_vk_temporal_managed;

/* Makes the device, the images (colour in color_format, depth R32F, motion RG32F, reactive
 * R32F, the output in output_format) and the engine. Fails with UPF_ERROR_UNSUPPORTED when
 * there is no Vulkan or no device. Thread-safety: context-serialised. */
UPF_API upf_vk_temporal_managed *upf_vk_temporal_managed_create(
    upf_context *ctx, const upf_vk_temporal_managed_params *params);
UPF_API void upf_vk_temporal_managed_destroy(upf_vk_temporal_managed **m);
UPF_API const char *upf_vk_temporal_managed_device_name(const upf_vk_temporal_managed *m);
UPF_API upf_vk_temporal *upf_vk_temporal_managed_engine(upf_vk_temporal_managed *m);

/* As upf_temporal_run: uploads the frame's images (the created size and formats; motion and
 * reactive may be NULL), records and submits the frame, waits, and reads the output back.
 * Thread-safety: context-serialised. */
UPF_API upf_result upf_vk_temporal_managed_run(upf_vk_temporal_managed *m,
                                               const upf_temporal_frame *frame,
                                               const upf_image *output);

/* Times the engine alone on the last frame's images and values (after
 * upf_vk_temporal_managed_run): `frames` submissions of 4 frames recorded back to back (so the
 * GPU does not idle between them), each sample the per-pass GPU times of the last of the 4
 * from timestamps (made with timestamps): ms[pass * frames + i], total[i]; *record_us the
 * median CPU time of one upf_vk_temporal_record. Thread-safety: context-serialised. */
UPF_API upf_result upf_vk_temporal_managed_bench(upf_vk_temporal_managed *m, int frames,
                                                 double *ms, double *total, double *record_us);

#ifdef __cplusplus
}
#endif

#endif /* UPFRAME_VK_H */
