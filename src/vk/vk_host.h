/* vk_host.h: upframe as its own Vulkan host, for any engine's managed mode (vk_managed.c is
 * the spatial engine's; docs/VULKAN.md, "Managed mode and the tool"): the system's loader
 * opened at run time (the library never links it), an instance and a device made with what
 * upf_vk_requirements_query asks, one queue, a command buffer and a fence; images with
 * staging buffers, an upf_image uploaded into one and read back from one, a submit that
 * waits. What a managed mode adds is its engine: it records into upf__vk_host.cmd between
 * upf__vk_host_begin and upf__vk_host_submit, lending upf__vk_host.lend.
 *
 *   upf__vk_host h;
 *   upf__vk_host_open(&h, ctx, fn, -1);                       // any discrete GPU first
 *   upf__vk_host_image colour = { 0 };                        // a source, with staging
 *   upf__vk_host_format(UPF_FORMAT_RGBA16F, false, &colour.format, &colour.srgb,
 *                       &colour.texel);
 *   upf__vk_host_image_make(&h, fn, &colour, w, h, VK_IMAGE_USAGE_SAMPLED_BIT);
 *   engine = upf_vk_..._create(ctx, ... .device = &h.lend ...);
 *   upf__vk_host_begin(&h, fn);
 *   upf__vk_host_upload(&h, &colour, image);                  // recorded; left TRANSFER_DST
 *   upf_vk_image c = upf__vk_host_lend(&colour, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
 *                                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
 *   ... the engine records into h.cmd ...
 *   upf__vk_host_record_download(&h, &out);                   // out in TRANSFER_SRC_OPTIMAL
 *   upf__vk_host_submit(&h, fn);                              // waits
 *   upf__vk_host_read(&out, result, row);                     // staging -> upf_image
 *   upf__vk_host_image_free(&h, &colour); upf__vk_host_close(&h);
 *
 * Internal header: not installed. */
#ifndef UPF_VK_HOST_H
#define UPF_VK_HOST_H

#include "vk/vk_internal.h"

#define UPF__VK_HOST_INSTANCE_FUNCS(X)                                                         \
    X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkCreateDevice)                       \
    X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceQueueFamilyProperties)               \
    X(vkGetPhysicalDeviceMemoryProperties) X(vkGetDeviceProcAddr)

#define UPF__VK_HOST_DEVICE_FUNCS(X)                                                           \
    X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle)                                 \
    X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)                 \
    X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkResetCommandBuffer) X(vkQueueSubmit)     \
    X(vkCreateFence) X(vkDestroyFence) X(vkWaitForFences) X(vkResetFences)                     \
    X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory)    \
    X(vkCreateImageView) X(vkDestroyImageView) X(vkCreateBuffer) X(vkDestroyBuffer)            \
    X(vkGetBufferMemoryRequirements) X(vkBindBufferMemory) X(vkAllocateMemory)                 \
    X(vkFreeMemory) X(vkMapMemory) X(vkCmdCopyBufferToImage) X(vkCmdCopyImageToBuffer)         \
    X(vkCmdPipelineBarrier)

/* The device upframe made for itself. Zeroed: nothing open (upf__vk_host_close accepts it). */
typedef struct upf__vk_host {
    upf_context *ctx;
    void *lib;                       /* libvulkan.so.1 */
    PFN_vkGetInstanceProcAddr gipa;
#define UPF__VK_HOST_DECLARE(name) PFN_##name name;
    UPF__VK_HOST_INSTANCE_FUNCS(UPF__VK_HOST_DECLARE)
    UPF__VK_HOST_DEVICE_FUNCS(UPF__VK_HOST_DECLARE)
#undef UPF__VK_HOST_DECLARE
    VkInstance instance;
    VkPhysicalDevice pd;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem;
    VkDevice device;
    uint32_t qf;                     /* a compute queue family, with timestamps if any has */
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    upf_vk_requirements req;
    upf_vk_device lend;              /* what an engine is lent */
} upf__vk_host;

/* Opens the loader, makes the instance and the device (device_index, or -1: the first
 * discrete GPU, else the first), the queue, the command buffer and the fence. On failure the
 * message says what (no loader, no device, ...: "use --backend cpu") and `h` must still be
 * closed. */
upf_result upf__vk_host_open(upf__vk_host *h, upf_context *ctx, const char *fn,
                             int device_index);
void upf__vk_host_close(upf__vk_host *h);

/* Resets and begins h->cmd (one-time submit). */
upf_result upf__vk_host_begin(upf__vk_host *h, const char *fn);
/* Ends h->cmd, submits it and waits for it. */
upf_result upf__vk_host_submit(upf__vk_host *h, const char *fn);
/* Ends h->cmd after a failed record (nothing is submitted). */
void upf__vk_host_abort(upf__vk_host *h);

/* An image of the host's and, when asked, its staging buffer (host-visible, mapped). */
typedef struct upf__vk_host_image {
    VkImage image;
    VkImageView view;                /* 2D, mip 0, layer 0; the depth aspect for a depth format */
    VkDeviceMemory memory;
    VkFormat format;
    VkImageUsageFlags usage;
    int width, height;
    int srgb;                        /* a UNORM view of sRGB values (upf_vk_image.srgb) */
    size_t texel;                    /* bytes a texel in the staging buffer */
    VkBuffer staging;
    VkDeviceMemory staging_memory;
    void *map;
} upf__vk_host_image;

/* The Vulkan format holding an upf_image format's bytes (RGBA8 sRGB as a UNORM image that the
 * shaders decode and encode exactly: srgb 1); a destination of 16-bit UNORM, which no storage
 * image takes everywhere, as RGBA32F (upf__vk_host_read converts). False for a format with
 * no such image. */
bool upf__vk_host_format(upf_format f, bool dst, VkFormat *format, int *srgb, size_t *texel);

/* Makes `im` (width x height, of im->format, im->srgb and im->texel as the caller set them:
 * upf__vk_host_format, or any format such as D32_SFLOAT depth or R16G16_SFLOAT motion), with
 * `usage` and the transfers, and its staging buffer of width x height x texel bytes. */
upf_result upf__vk_host_image_make(upf__vk_host *h, const char *fn, upf__vk_host_image *im,
                                   int width, int height, VkImageUsageFlags usage);
void upf__vk_host_image_free(upf__vk_host *h, upf__vk_host_image *im);

/* Copies `src` (its rows, as they are) into the staging buffer and records the copy into the
 * image, which is left in TRANSFER_DST_OPTIMAL (its earlier content discarded). */
void upf__vk_host_upload(upf__vk_host *h, upf__vk_host_image *im, const upf_image *src);

/* Copies raw texels (tightly packed rows of im->texel bytes) into the staging buffer and
 * records the copy into the image, left in TRANSFER_DST_OPTIMAL. */
void upf__vk_host_upload_raw(upf__vk_host *h, upf__vk_host_image *im, const void *texels);

/* Records the image (in TRANSFER_SRC_OPTIMAL) into its staging buffer, then the barrier that
 * makes it visible to the host. */
void upf__vk_host_record_download(upf__vk_host *h, upf__vk_host_image *im);

/* After the submit: the staging buffer into `dst` (an upf_image of the image's size),
 * converted through `row` (width x 16 bytes) when the formats differ. */
void upf__vk_host_read(const upf__vk_host_image *im, const upf_image *dst, float *row);

/* A managed mode's check of a caller's upf_image: NULL (UPF_OK where optional, else "fn: what
 * is NULL"), or not width x height of `format` with data ("fn: what is WxH fmt; expected WxH
 * fmt as created"). */
upf_result upf__vk_host_check_image(upf_context *ctx, const char *fn, const char *what,
                                    const upf_image *im, int width, int height,
                                    upf_format format, bool optional);

/* What an engine is lent for `im`: the whole image in `layout`, left in `final_layout`. */
upf_vk_image upf__vk_host_lend(const upf__vk_host_image *im, VkImageLayout layout,
                               VkImageLayout final_layout);

/* CLOCK_MONOTONIC in microseconds (a bench's CPU record time). */
double upf__vk_host_now_us(void);

/* One sample `i` of a managed mode's bench: records and submits, then its `passes` GPU pass
 * times into pass[], the frame's into *total and the CPU record time (us) into *rec. */
typedef upf_result (*upf__vk_host_bench_frame)(void *self, const char *fn, int i, double *pass,
                                               double *total, double *rec);

/* The loop of every upf_vk_*_managed_bench: checks frames >= 1 and the arrays, then
 * `not_ready` (NULL: ready; else what is missing, the error), runs `frame` `frames` times,
 * pass p of frame i into ms[p * frames + i], and the median record time into *record_us. */
upf_result upf__vk_host_bench(upf_context *ctx, const char *fn, const char *not_ready,
                              upf__vk_host_bench_frame frame, void *self, int passes,
                              int frames, double *ms, double *total, double *record_us);

#endif /* UPF_VK_HOST_H */
