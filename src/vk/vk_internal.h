/* vk_internal.h: what the Vulkan backend's files share (docs/VULKAN.md): the table of Vulkan
 * functions, loaded through the host's vkGetInstanceProcAddr (never from a library of our
 * own in the lent mode), the embedded shaders, and the engine's internals that the per-pass
 * tests reach (its buffers, a partial record).
 *
 * Internal header: not installed. */
#ifndef UPF_VK_INTERNAL_H
#define UPF_VK_INTERNAL_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include "upframe_vk.h"

#include "core/core.h"
#include "spatial/spatial_passes.h"

/* Instance-level functions (vkGetInstanceProcAddr(instance, ...)). */
#define UPF__VK_INSTANCE_FUNCS(X)                                                              \
    X(vkGetDeviceProcAddr)                                                                     \
    X(vkGetPhysicalDeviceProperties)                                                           \
    X(vkGetPhysicalDeviceProperties2)                                                          \
    X(vkGetPhysicalDeviceFeatures2)                                                            \
    X(vkGetPhysicalDeviceMemoryProperties)                                                     \
    X(vkGetPhysicalDeviceFormatProperties)                                                     \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                \
    X(vkEnumerateDeviceExtensionProperties)

/* Device-level functions (vkGetDeviceProcAddr). */
#define UPF__VK_DEVICE_FUNCS(X)                                                                \
    X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements)                      \
    X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory)                                  \
    X(vkCreateShaderModule) X(vkDestroyShaderModule)                                           \
    X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout)                             \
    X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)                                       \
    X(vkCreateComputePipelines) X(vkDestroyPipeline)                                           \
    X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets)           \
    X(vkUpdateDescriptorSets)                                                                  \
    X(vkCreateQueryPool) X(vkDestroyQueryPool) X(vkGetQueryPoolResults)                        \
    X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch)     \
    X(vkCmdDispatchIndirect)                                                                   \
    X(vkCmdPipelineBarrier) X(vkCmdFillBuffer) X(vkCmdUpdateBuffer) X(vkCmdResetQueryPool)     \
    X(vkCmdWriteTimestamp) X(vkCmdCopyBuffer) X(vkCreateSampler) X(vkDestroySampler)     \
    X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory)    \
    X(vkCreateImageView) X(vkDestroyImageView) X(vkCmdCopyBufferToImage)                       \
    X(vkCmdCopyImageToBuffer)

typedef struct upf__vk_funcs {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
#define UPF__VK_DECLARE(name) PFN_##name name;
    UPF__VK_INSTANCE_FUNCS(UPF__VK_DECLARE)
    UPF__VK_DEVICE_FUNCS(UPF__VK_DECLARE)
#undef UPF__VK_DECLARE
} upf__vk_funcs;

/* Loads the table for `dev` (instance functions always; device ones when dev->device is
 * set). Fails naming the first function the loader did not give. */
upf_result upf__vk_load(upf_context *ctx, const char *fn, const upf_vk_device *dev,
                        upf__vk_funcs *vk);

/* What the lent device can do, as the host enabled it (vk_device.c). */
typedef struct upf__vk_caps {
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t timestamp_bits;        /* of the queue family; 0: no timestamps */
    int variant[UPF_VK_VARIANT_COUNT]; /* 1: enabled on the device */
    uint32_t subgroup_size;         /* VkPhysicalDeviceSubgroupProperties.subgroupSize */
    bool subgroup_shuffle;          /* basic and shuffle subgroup operations in compute
                                     * shaders (compose_strips.comp) */
} upf__vk_caps;

/* The capability check behind upf_vk_check_device: logs and fills `caps` on success. */
upf_result upf__vk_check(upf_context *ctx, const char *fn, const upf_vk_device *dev,
                         const upf__vk_funcs *vk, upf__vk_caps *caps);

/* Checks the handles of a lent device: which is NULL, where, what was expected. */
upf_result upf__vk_check_handles(upf_context *ctx, const char *fn, const upf_vk_device *dev);

/* "VK_ERROR_OUT_OF_DEVICE_MEMORY", ... */
const char *upf__vk_result_name(VkResult r);

/* The aspects of a format: colour, depth, or depth and stencil (what an image barrier covers:
 * a depth-stencil image's two aspects change layout together). */
VkImageAspectFlags upf__vk_format_aspects(VkFormat f);

/* A barrier over the whole of a one-mip, one-layer image (`aspects` of it), no queue
 * family transfer. */
VkImageMemoryBarrier upf__vk_image_barrier(VkImage image, VkImageAspectFlags aspects,
                                           VkImageLayout from, VkImageLayout to,
                                           VkAccessFlags src_access, VkAccessFlags dst_access);

/* ---- embedded shaders (generated by src/embed_shaders.cmake) ------------------------------ */

typedef struct upf__vk_shader {
    const char *name;               /* "<engine>/<stem>": "spatial/smaa_edges" for
                                     * src/vk/shaders/spatial/smaa_edges.comp */
    const uint32_t *words;
    size_t count;                   /* uint32 words */
} upf__vk_shader;

extern const upf__vk_shader upf__vk_shaders[];
extern const size_t upf__vk_shader_count;

/* The shader called `name`, or NULL. */
const upf__vk_shader *upf__vk_shader_find(const char *name);

/* ---- the engine's internals, for tests ---------------------------------------------------- */

/* The push-constant tail after each pass's constants (src/vk/ABI.md). */
typedef struct upf__vk_push_tail {
    int32_t src_x, src_y;
    int32_t dst_x, dst_y;
    uint32_t src_transfer, dst_transfer;
    uint32_t phase;
    float detail_strength;       /* the model's (detail.c multiplies the map by it) */
    uint32_t fuse;               /* UPF__VK_FUSE_*: work a pass takes over from one skipped */
} upf__vk_push_tail;

/* The tail's fuse bits (src/vk/ABI.md, "Push constants"; color.glsl's UPF_VK_FUSE_*). */
#define UPF__VK_FUSE_ENCODE 1u   /* convert writes the frame; the edges pass is not recorded */
#define UPF__VK_FUSE_NO_MAP 2u   /* compose takes the detail as 0; the detail pass is not
                                  * recorded */
#define UPF__VK_FUSE_CODES 4u    /* an 8-bit sRGB source with SMAA: convert writes the frame
                                  * beside linear; edges takes its roots from the frame's
                                  * codes by table and writes no frame */
#define UPF__VK_FUSE_AT_MOST_ONE 8u /* the source's format holds nothing above 1
                                     * (upf__vk_format_at_most_one): convert leaves range G
                                     * (M) at 0, the frame never being tone-mapped */

/* Does the format hold nothing above 1 (a UNORM format, sRGB or not), so that convert's tone
 * map never applies and convert may encode the frame (UPF__VK_FUSE_ENCODE)? The float
 * formats can exceed it. */
bool upf__vk_format_at_most_one(VkFormat f);

/* The buffer holding surface `surface` (UPF__SP_*, or UPF__SP_COUNT for the network
 * weights) and its size in bytes; VK_NULL_HANDLE when the engine has none. */
VkBuffer upf__vk_spatial_buffer(const upf_vk_spatial *s, int surface, VkDeviceSize *bytes);

/* Records passes first..last (upf_spatial_pass) as upf_vk_spatial_record does the whole
 * list; src may be NULL when first > convert, dst when last < compose. The barriers before
 * the first and after the last pass are recorded as for a whole frame, so the caller may
 * copy into the buffers before and out of them after with transfer commands. */
upf_result upf__vk_spatial_record_passes(upf_vk_spatial *s, const char *fn, VkCommandBuffer cmd,
                                         const upf_vk_image *src, const upf_vk_image *dst,
                                         int first, int last);

/* compose's form (docs/VULKAN.md, "How each shader works"): AUTO, as upf_vk_spatial_create
 * takes it (by subgroup strips where the device allows, else tiles); TILES, compose.comp's
 * tiles always (the tests check that form on devices that would take the strips). */
typedef enum upf__vk_compose_form {
    UPF__VK_COMPOSE_AUTO = 0,
    UPF__VK_COMPOSE_TILES = 1
} upf__vk_compose_form;

/* upf_vk_spatial_create with compose in `form`. */
upf_vk_spatial *upf__vk_spatial_create_form(upf_context *ctx, const upf_vk_spatial_params *p,
                                            upf__vk_compose_form form);

/* The CPU engine's constants for this engine's pass `pass` at the created sizes (what the
 * per-pass tests compare against). */
const void *upf__vk_spatial_constants(const upf_vk_spatial *s, int pass);

#endif /* UPF_VK_INTERNAL_H */
