/* vk_test_util.h: what the Vulkan tests share (test_vk_*.c): a device made as a host would
 * make one, with the Khronos validation layer and its synchronization validation on and a
 * debug-utils messenger that fails the test on any warning or error it reports; buffers,
 * images, uploads, downloads and one-shot submissions.
 *
 * vkt_init returns 0 when the device is ready, 77 (ctest's skip code) when the machine has no
 * Vulkan device at all, and 1 on any other failure (a missing validation layer fails: the
 * tests must run validated). UPF_VK_DEVICE=<n> picks the physical device (default: the first
 * with a compute queue). UPF_VK_TEST_NO_VALIDATION=1 runs without the layer, for a machine
 * that has none (the GPU machine of docs/PERFORMANCE.md); CI never sets it. Needs
 * test_util.h first. */
#ifndef UPF_VK_TEST_UTIL_H
#define UPF_VK_TEST_UTIL_H

#include <dlfcn.h>
#include <stdbool.h>
#include <vulkan/vulkan.h>

#include "test_util.h"
#include "upframe_vk.h"

typedef struct vkt {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice pd;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem;
    VkDevice device;
    uint32_t qf;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    upf_vk_requirements req;
    upf_vk_device lend;            /* what a test lends upframe */
} vkt;

static int vkt_messages_;          /* validation messages seen (each also a test failure) */

static VKAPI_ATTR VkBool32 VKAPI_CALL vkt_messenger_cb(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT type,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *priv)
{
    (void)type;
    (void)priv;
    vkt_messages_++;
    test_failures_++;
    fprintf(stderr, "VALIDATION %s: %s\n",
            severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning",
            data && data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE;
}

#define VKT_TRY(call)                                                                         \
    do {                                                                                      \
        VkResult r_ = (call);                                                                 \
        if (r_ != VK_SUCCESS) {                                                               \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)r_);    \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

/* Keeps the driver and the layer loaded after the loader closes them (RTLD_NODELETE), so
 * that LeakSanitizer can still name their frames at exit and tests/lsan_vulkan.supp can
 * match them: without this their allocations show as "<unknown module>". Harmless when
 * they are absent or not leak-checked. */
static inline void vkt_pin_driver_libraries(void)
{
    static const char *const libs[] = { "libvulkan_lvp.so", "libVkLayer_khronos_validation.so" };
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        (void)dlopen(libs[i], RTLD_LAZY | RTLD_NODELETE);
}

static inline int vkt_init(vkt *t, upf_context *ctx)
{
    memset(t, 0, sizeof *t);
    vkt_pin_driver_libraries();
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *ext[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
                          VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME };
    const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT };
    const VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = vkt_messenger_cb };
    const VkValidationFeaturesEXT vf = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, .pNext = &mci,
        .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = enables };
    const VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                    .pApplicationName = "upframe tests",
                                    .apiVersion = VK_API_VERSION_1_2 };
    const char *nv = getenv("UPF_VK_TEST_NO_VALIDATION");
    const bool validate = !(nv && strcmp(nv, "1") == 0);
    const VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = validate ? &vf : NULL,
        .pApplicationInfo = &app, .enabledLayerCount = validate ? 1 : 0,
        .ppEnabledLayerNames = &layer, .enabledExtensionCount = validate ? 2 : 0,
        .ppEnabledExtensionNames = ext };
    /* No device at all (no driver): skip. Anything else wrong: fail. */
    uint32_t n = 0;
    VkInstance probe;
    const VkInstanceCreateInfo plain = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                         .pApplicationInfo = &app };
    if (vkCreateInstance(&plain, NULL, &probe) != VK_SUCCESS) {
        fprintf(stderr, "vkt: no Vulkan instance (no driver): skipped\n");
        return 77;
    }
    vkEnumeratePhysicalDevices(probe, &n, NULL);
    vkDestroyInstance(probe, NULL);
    if (!n) {
        fprintf(stderr, "vkt: no Vulkan device: skipped\n");
        return 77;
    }
    VkResult r = vkCreateInstance(&ici, NULL, &t->instance);
    if (r != VK_SUCCESS) {
        fprintf(stderr, "vkt: vkCreateInstance with %s and synchronization validation failed "
                "(%d): install vulkan-validationlayers (scripts/deps.sh --test)\n", layer, (int)r);
        return 1;
    }
    PFN_vkCreateDebugUtilsMessengerEXT cm = (PFN_vkCreateDebugUtilsMessengerEXT)
        vkGetInstanceProcAddr(t->instance, "vkCreateDebugUtilsMessengerEXT");
    if (validate && !cm)
        return 1;
    if (validate)
        VKT_TRY(cm(t->instance, &mci, NULL, &t->messenger));
    else
        fprintf(stderr, "vkt: UPF_VK_TEST_NO_VALIDATION=1: running WITHOUT the validation "
                "layer\n");

    VkPhysicalDevice pds[16];
    n = 16;
    vkEnumeratePhysicalDevices(t->instance, &n, pds);
    const char *want = getenv("UPF_VK_DEVICE");
    int pick = want ? atoi(want) : -1;
    for (uint32_t i = 0; i < n && !t->pd; i++) {
        if (pick >= 0 && (int)i != pick)
            continue;
        VkQueueFamilyProperties fam[16];
        uint32_t nf = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nf, fam);
        for (uint32_t f = 0; f < nf; f++)
            if (fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                t->pd = pds[i];
                t->qf = f;
                break;
            }
    }
    if (!t->pd) {
        fprintf(stderr, "vkt: no device with a compute queue (UPF_VK_DEVICE=%s)\n",
                want ? want : "unset");
        return 1;
    }
    vkGetPhysicalDeviceProperties(t->pd, &t->props);
    vkGetPhysicalDeviceMemoryProperties(t->pd, &t->mem);
    if (upf_vk_requirements_query(ctx, t->instance, t->pd, vkGetInstanceProcAddr, &t->req) !=
        UPF_OK) {
        fprintf(stderr, "vkt: upf_vk_requirements_query failed on %s\n", t->props.deviceName);
        return 1;
    }
    const float prio = 1.0f;
    const VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                          .queueFamilyIndex = t->qf, .queueCount = 1,
                                          .pQueuePriorities = &prio };
    const VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                     .pNext = &t->req.features, .queueCreateInfoCount = 1,
                                     .pQueueCreateInfos = &qci,
                                     .enabledExtensionCount = t->req.extension_count,
                                     .ppEnabledExtensionNames = t->req.extensions };
    VKT_TRY(vkCreateDevice(t->pd, &dci, NULL, &t->device));
    vkGetDeviceQueue(t->device, t->qf, 0, &t->queue);
    const VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                          .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                          .queueFamilyIndex = t->qf };
    VKT_TRY(vkCreateCommandPool(t->device, &pci, NULL, &t->pool));
    const VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                              .commandPool = t->pool,
                                              .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                              .commandBufferCount = 1 };
    VKT_TRY(vkAllocateCommandBuffers(t->device, &cai, &t->cmd));
    const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    VKT_TRY(vkCreateFence(t->device, &fci, NULL, &t->fence));
    t->lend = (upf_vk_device){ .instance = t->instance, .physical_device = t->pd,
                               .device = t->device, .queue_family = t->qf,
                               .get_instance_proc_addr = vkGetInstanceProcAddr,
                               .enabled_extensions = t->req.extensions,
                               .enabled_extension_count = t->req.extension_count,
                               .enabled_features = &t->req.features };
    fprintf(stderr, "vkt: %s%s\n", t->props.deviceName,
            validate ? ", validation + synchronization validation on" : "");
    return 0;
}

static inline void vkt_finish(vkt *t)
{
    if (t->device) {
        vkDeviceWaitIdle(t->device);
        vkDestroyFence(t->device, t->fence, NULL);
        vkDestroyCommandPool(t->device, t->pool, NULL);
        vkDestroyDevice(t->device, NULL);
    }
    if (t->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT dm = (PFN_vkDestroyDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(t->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (dm)
            dm(t->instance, t->messenger, NULL);
    }
    if (t->instance)
        vkDestroyInstance(t->instance, NULL);
    CHECKF(vkt_messages_ == 0, "%d validation messages", vkt_messages_);
    memset(t, 0, sizeof *t);
}

/* ---- command buffers ------------------------------------------------------------------- */

/* Resets and begins t->cmd (one-time submit). */
static inline VkCommandBuffer vkt_begin(vkt *t)
{
    vkResetCommandBuffer(t->cmd, 0);
    const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    vkBeginCommandBuffer(t->cmd, &bi);
    return t->cmd;
}

/* Ends, submits and waits for t->cmd. 0 on success. */
static inline int vkt_submit(vkt *t)
{
    VKT_TRY(vkEndCommandBuffer(t->cmd));
    const VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                              .pCommandBuffers = &t->cmd };
    VKT_TRY(vkQueueSubmit(t->queue, 1, &si, t->fence));
    VKT_TRY(vkWaitForFences(t->device, 1, &t->fence, VK_TRUE, UINT64_MAX));
    VKT_TRY(vkResetFences(t->device, 1, &t->fence));
    return 0;
}

/* ---- memory, buffers, images ----------------------------------------------------------- */

static inline VkDeviceMemory vkt_alloc(vkt *t, VkMemoryRequirements req, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < t->mem.memoryTypeCount; i++)
        if ((req.memoryTypeBits & (1u << i)) &&
            (t->mem.memoryTypes[i].propertyFlags & want) == want) {
            const VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                              .allocationSize = req.size, .memoryTypeIndex = i };
            VkDeviceMemory m = VK_NULL_HANDLE;
            if (vkAllocateMemory(t->device, &ai, NULL, &m) == VK_SUCCESS)
                return m;
        }
    return VK_NULL_HANDLE;
}

typedef struct vkt_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;                     /* host-visible, coherent, mapped */
    VkDeviceSize size;
} vkt_buffer;

/* A host-visible buffer for transfers (and storage). */
static inline vkt_buffer vkt_buffer_make(vkt *t, VkDeviceSize size)
{
    vkt_buffer b = { .size = size };
    const VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                                    .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT };
    if (vkCreateBuffer(t->device, &bi, NULL, &b.buffer) != VK_SUCCESS)
        return b;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(t->device, b.buffer, &req);
    b.memory = vkt_alloc(t, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (b.memory) {
        vkBindBufferMemory(t->device, b.buffer, b.memory, 0);
        vkMapMemory(t->device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.map);
    }
    return b;
}

static inline void vkt_buffer_free(vkt *t, vkt_buffer *b)
{
    if (b->buffer)
        vkDestroyBuffer(t->device, b->buffer, NULL);
    if (b->memory)
        vkFreeMemory(t->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

typedef struct vkt_image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory memory;
    VkFormat format, view_format;
    VkImageUsageFlags usage;
    int width, height;
} vkt_image;

/* A device-local 2D image (optimal tiling) of `format` and a view of `view_format` (0: the
 * same; another one makes the image MUTABLE_FORMAT). */
static inline vkt_image vkt_image_make(vkt *t, int w, int h, VkFormat format,
                                       VkFormat view_format, VkImageUsageFlags usage)
{
    vkt_image im = { .format = format, .view_format = view_format ? view_format : format,
                     .usage = usage, .width = w, .height = h };
    const VkImageCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .flags = im.view_format != format ? VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT : 0,
        .imageType = VK_IMAGE_TYPE_2D, .format = format,
        .extent = { (uint32_t)w, (uint32_t)h, 1 }, .mipLevels = 1, .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED };
    if (vkCreateImage(t->device, &ci, NULL, &im.image) != VK_SUCCESS)
        return im;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(t->device, im.image, &req);
    im.memory = vkt_alloc(t, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (!im.memory)
        im.memory = vkt_alloc(t, req, 0);
    vkBindImageMemory(t->device, im.image, im.memory, 0);
    const VkImageViewCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = im.image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = im.view_format,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    vkCreateImageView(t->device, &vi, NULL, &im.view);
    return im;
}

static inline void vkt_image_free(vkt *t, vkt_image *im)
{
    if (im->view)
        vkDestroyImageView(t->device, im->view, NULL);
    if (im->image)
        vkDestroyImage(t->device, im->image, NULL);
    if (im->memory)
        vkFreeMemory(t->device, im->memory, NULL);
    memset(im, 0, sizeof *im);
}

/* What upframe is lent for `im`: the whole image, in `layout`, left in `final_layout`. */
static inline upf_vk_image vkt_lend(const vkt_image *im, VkImageLayout layout,
                                    VkImageLayout final_layout, int srgb)
{
    return (upf_vk_image){ .image = im->image, .view = im->view, .format = im->view_format,
                           .usage = im->usage, .width = im->width, .height = im->height,
                           .layout = layout, .final_layout = final_layout, .srgb = srgb };
}

static inline void vkt_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from,
                                     VkImageLayout to, VkPipelineStageFlags src_stage,
                                     VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                                     VkAccessFlags dst_access)
{
    const VkImageMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
        .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

/* Records: the buffer's bytes (tightly packed rows) into the whole image, which is left in
 * `layout` (barriers from UNDEFINED and after the copy included). */
static inline void vkt_record_upload(VkCommandBuffer cmd, const vkt_buffer *b,
                                     const vkt_image *im, VkImageLayout layout)
{
    vkt_image_barrier(cmd, im->image, VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferImageCopy r = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                  .imageExtent = { (uint32_t)im->width, (uint32_t)im->height, 1 } };
    vkCmdCopyBufferToImage(cmd, b->buffer, im->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r);
    vkt_image_barrier(cmd, im->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, layout,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                      VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
}

/* Records: the whole image (in `layout`) into the buffer, then makes the buffer visible to
 * the host; the image is left in TRANSFER_SRC_OPTIMAL. */
static inline void vkt_record_download(VkCommandBuffer cmd, const vkt_image *im,
                                       VkImageLayout layout, const vkt_buffer *b)
{
    vkt_image_barrier(cmd, im->image, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    const VkBufferImageCopy r = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                  .imageExtent = { (uint32_t)im->width, (uint32_t)im->height, 1 } };
    vkCmdCopyImageToBuffer(cmd, im->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, b->buffer, 1, &r);
    const VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &mb, 0, NULL, 0, NULL);
}

/* A sampled device image of `format` (texel `bytes`) holding `data` (tightly packed rows),
 * uploaded and left in SHADER_READ_ONLY_OPTIMAL. */
static inline vkt_image vkt_sampled_image(vkt *t, int w, int h, VkFormat format, size_t bytes,
                                          const void *data)
{
    vkt_buffer up = vkt_buffer_make(t, (VkDeviceSize)w * h * bytes);
    memcpy(up.map, data, (size_t)w * h * bytes);
    vkt_image im = vkt_image_make(t, w, h, format, 0,
                                  VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    vkt_record_upload(vkt_begin(t), &up, &im, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    CHECK(vkt_submit(t) == 0);
    vkt_buffer_free(t, &up);
    return im;
}

/* Records a copy between buffers (whole `size`) with the barriers a test needs around it:
 * host writes / earlier shader and transfer writes before, host reads after. */
static inline void vkt_record_copy(VkCommandBuffer cmd, VkBuffer from, VkBuffer to,
                                   VkDeviceSize size)
{
    const VkMemoryBarrier in = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT |
                                                  VK_ACCESS_SHADER_WRITE_BIT |
                                                  VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT |
                                                  VK_ACCESS_TRANSFER_WRITE_BIT };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                             VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &in, 0, NULL, 0, NULL);
    const VkBufferCopy r = { 0, 0, size };
    vkCmdCopyBuffer(cmd, from, to, 1, &r);
    const VkMemoryBarrier out = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_HOST_READ_BIT |
                                                   VK_ACCESS_SHADER_READ_BIT |
                                                   VK_ACCESS_SHADER_WRITE_BIT };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                         &out, 0, NULL, 0, NULL);
}

#endif /* UPF_VK_TEST_UTIL_H */
