/* vk_host.c: upframe as its own Vulkan host (vk_host.h), for every engine's managed mode: the
 * loader opened at run time, an instance, a device made with upf_vk_requirements_query's
 * extensions and features, a queue, a command buffer, a fence; images with staging buffers,
 * uploads and read-backs of upf_images, a submit that waits; the managed benches' loop.
 *
 * Reads: the caller's images (uploads). Writes: the caller's images (read-backs). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/image.h"
#include "vk/vk_host.h"

static upf_result vkfail(upf__vk_host *h, const char *fn, const char *what, VkResult r)
{
    return upf__fail(h->ctx, r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
                     ? UPF_ERROR_OUT_OF_MEMORY : UPF_ERROR_UNSUPPORTED,
                     "%s: %s failed: %s", fn, what, upf__vk_result_name(r));
}

void upf__vk_host_close(upf__vk_host *h)
{
    if (h->device) {
        h->vkDeviceWaitIdle(h->device);
        if (h->fence)
            h->vkDestroyFence(h->device, h->fence, NULL);
        if (h->pool)
            h->vkDestroyCommandPool(h->device, h->pool, NULL);
        h->vkDestroyDevice(h->device, NULL);
    }
    if (h->instance)
        h->vkDestroyInstance(h->instance, NULL);
    if (h->lib)
        dlclose(h->lib);
    memset(h, 0, sizeof *h);
}

/* The loader and the instance. */
static upf_result open_instance(upf__vk_host *h, const char *fn)
{
    h->lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h->lib)
        return upf__fail(h->ctx, UPF_ERROR_UNSUPPORTED, "%s: no Vulkan here: libvulkan.so.1 "
                         "could not be opened (%s); use --backend cpu or install a Vulkan "
                         "driver", fn, dlerror());
    *(void **)&h->gipa = dlsym(h->lib, "vkGetInstanceProcAddr");
    PFN_vkCreateInstance create = h->gipa ? (PFN_vkCreateInstance)h->gipa(NULL, "vkCreateInstance")
                                          : NULL;
    if (!create)
        return upf__fail(h->ctx, UPF_ERROR_UNSUPPORTED, "%s: libvulkan.so.1 has no "
                         "vkGetInstanceProcAddr/vkCreateInstance", fn);
    const VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                    .pApplicationName = "upframe", .apiVersion = VK_API_VERSION_1_2 };
    const VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                       .pApplicationInfo = &app };
    VkResult r = create(&ici, NULL, &h->instance);
    if (r != VK_SUCCESS)
        return upf__fail(h->ctx, UPF_ERROR_UNSUPPORTED, "%s: no Vulkan device: "
                         "vkCreateInstance failed (%s); use --backend cpu", fn,
                         upf__vk_result_name(r));
#define LOAD_I(name)                                                                           \
    if (!(h->name = (PFN_##name)h->gipa(h->instance, #name)))                                  \
        return upf__fail(h->ctx, UPF_ERROR_UNSUPPORTED, "%s: the loader gave no %s", fn, #name);
    UPF__VK_HOST_INSTANCE_FUNCS(LOAD_I)
#undef LOAD_I
    return UPF_OK;
}

/* The physical device (device_index, or the first discrete GPU, else the first) and a compute
 * queue family, one with timestamps if any has them. */
static upf_result pick_device(upf__vk_host *h, const char *fn, int device_index)
{
    VkPhysicalDevice pds[16];
    uint32_t n = 16;
    VkResult r = h->vkEnumeratePhysicalDevices(h->instance, &n, pds);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
        return upf__fail(h->ctx, UPF_ERROR_UNSUPPORTED, "%s: no Vulkan device (the loader "
                         "found none); use --backend cpu", fn);
    int pick = device_index;
    if (pick >= (int)n)
        return upf__fail(h->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: device_index %d: there %s "
                         "only %u Vulkan device%s", fn, pick, n == 1 ? "is" : "are", n,
                         n == 1 ? "" : "s");
    if (pick < 0) {
        pick = 0;
        for (uint32_t i = 0; i < n; i++) {
            VkPhysicalDeviceProperties pp;
            h->vkGetPhysicalDeviceProperties(pds[i], &pp);
            if (pp.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
                pick = (int)i;
                break;
            }
        }
    }
    h->pd = pds[pick];
    h->vkGetPhysicalDeviceProperties(h->pd, &h->props);
    h->vkGetPhysicalDeviceMemoryProperties(h->pd, &h->mem);
    VkQueueFamilyProperties fam[32];
    uint32_t nf = 32;
    h->vkGetPhysicalDeviceQueueFamilyProperties(h->pd, &nf, fam);
    h->qf = UINT32_MAX;
    for (uint32_t f = 0; f < nf && h->qf == UINT32_MAX; f++)
        if ((fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) && fam[f].timestampValidBits)
            h->qf = f;
    for (uint32_t f = 0; f < nf && h->qf == UINT32_MAX; f++)
        if (fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT)
            h->qf = f;
    if (h->qf == UINT32_MAX)
        return upf__fail(h->ctx, UPF_ERROR_UNSUPPORTED, "%s: %s has no compute queue", fn,
                         h->props.deviceName);
    return UPF_OK;
}

/* The device with what upframe requires (and, in a probe build with UPF_VK_PIPELINE_STATS,
 * VK_KHR_pipeline_executable_properties: the runner prints each pipeline's statistics). */
static upf_result make_device(upf__vk_host *h, const char *fn)
{
    upf_result ur = upf_vk_requirements_query(h->ctx, h->instance, h->pd, h->gipa, &h->req);
    if (ur != UPF_OK)
        return ur;
    const float prio = 1.0f;
    const VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                          .queueFamilyIndex = h->qf, .queueCount = 1,
                                          .pQueuePriorities = &prio };
    const VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                     .pNext = &h->req.features, .queueCreateInfoCount = 1,
                                     .pQueueCreateInfos = &qci,
                                     .enabledExtensionCount = h->req.extension_count,
                                     .ppEnabledExtensionNames = h->req.extensions };
    VkResult r;
#ifdef UPF_VK_PROBE
    VkDeviceCreateInfo stats_dci = dci;
    const char *stats_ext[8];
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR stats_feature = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pNext = &h->req.features, .pipelineExecutableInfo = VK_TRUE };
    if (getenv("UPF_VK_PIPELINE_STATS") && h->req.extension_count < 8) {
        for (uint32_t i = 0; i < h->req.extension_count; i++)
            stats_ext[i] = h->req.extensions[i];
        stats_ext[h->req.extension_count] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
        stats_dci.enabledExtensionCount = h->req.extension_count + 1;
        stats_dci.ppEnabledExtensionNames = stats_ext;
        stats_dci.pNext = &stats_feature;
        if (h->vkCreateDevice(h->pd, &stats_dci, NULL, &h->device) != VK_SUCCESS) {
            fprintf(stderr, "UPF_VK_PIPELINE_STATS: no VK_KHR_pipeline_executable_properties\n");
            unsetenv("UPF_VK_PIPELINE_STATS");
        }
    }
    if (!h->device && (r = h->vkCreateDevice(h->pd, &dci, NULL, &h->device)) != VK_SUCCESS)
        return vkfail(h, fn, "vkCreateDevice", r);
#else
    if ((r = h->vkCreateDevice(h->pd, &dci, NULL, &h->device)) != VK_SUCCESS)
        return vkfail(h, fn, "vkCreateDevice", r);
#endif
#define LOAD_D(name)                                                                           \
    if (!(h->name = (PFN_##name)h->vkGetDeviceProcAddr(h->device, #name)))                     \
        return upf__fail(h->ctx, UPF_ERROR_UNSUPPORTED, "%s: the loader gave no %s", fn, #name);
    UPF__VK_HOST_DEVICE_FUNCS(LOAD_D)
#undef LOAD_D
    return UPF_OK;
}

/* The queue, the command pool and buffer, the fence; what an engine is lent. */
static upf_result make_queue(upf__vk_host *h, const char *fn)
{
    h->vkGetDeviceQueue(h->device, h->qf, 0, &h->queue);
    const VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                          .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                          .queueFamilyIndex = h->qf };
    VkResult r;
    if ((r = h->vkCreateCommandPool(h->device, &pci, NULL, &h->pool)) != VK_SUCCESS)
        return vkfail(h, fn, "vkCreateCommandPool", r);
    const VkCommandBufferAllocateInfo cai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = h->pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1 };
    if ((r = h->vkAllocateCommandBuffers(h->device, &cai, &h->cmd)) != VK_SUCCESS)
        return vkfail(h, fn, "vkAllocateCommandBuffers", r);
    const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    if ((r = h->vkCreateFence(h->device, &fci, NULL, &h->fence)) != VK_SUCCESS)
        return vkfail(h, fn, "vkCreateFence", r);
    h->lend = (upf_vk_device){ .instance = h->instance, .physical_device = h->pd,
                               .device = h->device, .queue_family = h->qf,
                               .get_instance_proc_addr = h->gipa,
                               .enabled_extensions = h->req.extensions,
                               .enabled_extension_count = h->req.extension_count,
                               .enabled_features = &h->req.features };
    return UPF_OK;
}

upf_result upf__vk_host_open(upf__vk_host *h, upf_context *ctx, const char *fn,
                             int device_index)
{
    memset(h, 0, sizeof *h);
    h->ctx = ctx;
    upf_result r;
    if ((r = open_instance(h, fn)) != UPF_OK || (r = pick_device(h, fn, device_index)) != UPF_OK ||
        (r = make_device(h, fn)) != UPF_OK)
        return r;
    return make_queue(h, fn);
}

/* ---- submitting ---------------------------------------------------------------------------- */

upf_result upf__vk_host_begin(upf__vk_host *h, const char *fn)
{
    h->vkResetCommandBuffer(h->cmd, 0);
    const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    VkResult r = h->vkBeginCommandBuffer(h->cmd, &bi);
    return r == VK_SUCCESS ? UPF_OK : vkfail(h, fn, "vkBeginCommandBuffer", r);
}

upf_result upf__vk_host_submit(upf__vk_host *h, const char *fn)
{
    VkResult r = h->vkEndCommandBuffer(h->cmd);
    if (r != VK_SUCCESS)
        return vkfail(h, fn, "vkEndCommandBuffer", r);
    const VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                              .pCommandBuffers = &h->cmd };
    if ((r = h->vkQueueSubmit(h->queue, 1, &si, h->fence)) != VK_SUCCESS)
        return vkfail(h, fn, "vkQueueSubmit", r);
    if ((r = h->vkWaitForFences(h->device, 1, &h->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
        return vkfail(h, fn, "vkWaitForFences", r);
    h->vkResetFences(h->device, 1, &h->fence);
    return UPF_OK;
}

void upf__vk_host_abort(upf__vk_host *h)
{
    h->vkEndCommandBuffer(h->cmd);
}

/* ---- images --------------------------------------------------------------------------------- */

static int memory_type(const upf__vk_host *h, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < h->mem.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (h->mem.memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

/* A host-visible, coherent (cached if there is such) buffer, mapped. */
static upf_result make_staging(upf__vk_host *h, const char *fn, upf__vk_host_image *im,
                               VkDeviceSize size)
{
    const VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                                    .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT };
    VkResult r = h->vkCreateBuffer(h->device, &bi, NULL, &im->staging);
    if (r != VK_SUCCESS)
        return vkfail(h, fn, "vkCreateBuffer", r);
    VkMemoryRequirements req;
    h->vkGetBufferMemoryRequirements(h->device, im->staging, &req);
    int t = memory_type(h, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (t < 0)
        t = memory_type(h, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (t < 0)
        return upf__fail(h->ctx, UPF_ERROR_UNSUPPORTED, "%s: no host-visible coherent memory "
                         "for the staging buffers", fn);
    const VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .allocationSize = req.size, .memoryTypeIndex = (uint32_t)t };
    if ((r = h->vkAllocateMemory(h->device, &ai, NULL, &im->staging_memory)) != VK_SUCCESS)
        return vkfail(h, fn, "vkAllocateMemory (staging)", r);
    if ((r = h->vkBindBufferMemory(h->device, im->staging, im->staging_memory, 0)) != VK_SUCCESS)
        return vkfail(h, fn, "vkBindBufferMemory", r);
    if ((r = h->vkMapMemory(h->device, im->staging_memory, 0, VK_WHOLE_SIZE, 0, &im->map)) !=
        VK_SUCCESS)
        return vkfail(h, fn, "vkMapMemory", r);
    return UPF_OK;
}

/* The one aspect a view or a copy reaches: colour, or the depth of a depth format. */
static VkImageAspectFlags view_aspect(VkFormat f)
{
    return upf__vk_format_aspects(f) & ~(VkImageAspectFlags)VK_IMAGE_ASPECT_STENCIL_BIT;
}

upf_result upf__vk_host_image_make(upf__vk_host *h, const char *fn, upf__vk_host_image *im,
                                   int width, int height, VkImageUsageFlags usage)
{
    im->width = width, im->height = height;
    im->usage = usage | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    const VkImageCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
        .format = im->format, .extent = { (uint32_t)width, (uint32_t)height, 1 }, .mipLevels = 1,
        .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = im->usage, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED };
    VkResult r = h->vkCreateImage(h->device, &ci, NULL, &im->image);
    if (r != VK_SUCCESS)
        return vkfail(h, fn, "vkCreateImage", r);
    VkMemoryRequirements req;
    h->vkGetImageMemoryRequirements(h->device, im->image, &req);
    int t = memory_type(h, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (t < 0)
        t = memory_type(h, req.memoryTypeBits, 0);
    const VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .allocationSize = req.size, .memoryTypeIndex = (uint32_t)t };
    if (t < 0 || (r = h->vkAllocateMemory(h->device, &ai, NULL, &im->memory)) != VK_SUCCESS)
        return vkfail(h, fn, "vkAllocateMemory (image)", t < 0 ? VK_ERROR_FEATURE_NOT_PRESENT : r);
    if ((r = h->vkBindImageMemory(h->device, im->image, im->memory, 0)) != VK_SUCCESS)
        return vkfail(h, fn, "vkBindImageMemory", r);
    const VkImageViewCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = im->image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = im->format,
        .subresourceRange = { view_aspect(im->format), 0, 1, 0, 1 } };
    if ((r = h->vkCreateImageView(h->device, &vi, NULL, &im->view)) != VK_SUCCESS)
        return vkfail(h, fn, "vkCreateImageView", r);
    return make_staging(h, fn, im, (VkDeviceSize)width * (VkDeviceSize)height * im->texel);
}

void upf__vk_host_image_free(upf__vk_host *h, upf__vk_host_image *im)
{
    if (h->device) {
        if (im->view)
            h->vkDestroyImageView(h->device, im->view, NULL);
        if (im->image)
            h->vkDestroyImage(h->device, im->image, NULL);
        if (im->memory)
            h->vkFreeMemory(h->device, im->memory, NULL);
        if (im->staging)
            h->vkDestroyBuffer(h->device, im->staging, NULL);
        if (im->staging_memory)
            h->vkFreeMemory(h->device, im->staging_memory, NULL);
    }
    memset(im, 0, sizeof *im);
}

bool upf__vk_host_format(upf_format f, bool dst, VkFormat *format, int *srgb, size_t *texel)
{
    *srgb = 0;
    switch (f) {
    case UPF_FORMAT_RGBA8_SRGB: *format = VK_FORMAT_R8G8B8A8_UNORM, *srgb = 1, *texel = 4; return true;
    case UPF_FORMAT_RGBA8_UNORM: *format = VK_FORMAT_R8G8B8A8_UNORM, *texel = 4; return true;
    case UPF_FORMAT_RGBA16F: *format = VK_FORMAT_R16G16B16A16_SFLOAT, *texel = 8; return true;
    case UPF_FORMAT_RGBA32F: *format = VK_FORMAT_R32G32B32A32_SFLOAT, *texel = 16; return true;
    case UPF_FORMAT_RGBA16_UNORM:
    case UPF_FORMAT_RGBA16_SRGB:
        if (dst) { /* no storage image of 16-bit UNORM everywhere: float, converted on the CPU */
            *format = VK_FORMAT_R32G32B32A32_SFLOAT, *texel = 16;
        } else {
            *format = VK_FORMAT_R16G16B16A16_UNORM, *texel = 8;
            *srgb = f == UPF_FORMAT_RGBA16_SRGB;
        }
        return true;
    default:
        return false;
    }
}

/* ---- transfers ------------------------------------------------------------------------------ */

static void image_barrier(upf__vk_host *h, const upf__vk_host_image *im, VkImageLayout from,
                          VkImageLayout to, VkPipelineStageFlags src_stage,
                          VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                          VkAccessFlags dst_access)
{
    const VkImageMemoryBarrier b = upf__vk_image_barrier(
        im->image, upf__vk_format_aspects(im->format), from, to, src_access, dst_access);
    h->vkCmdPipelineBarrier(h->cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

static VkBufferImageCopy whole(const upf__vk_host_image *im)
{
    /* A copy reaches one aspect: the depth of a depth format. */
    return (VkBufferImageCopy){ .imageSubresource = { view_aspect(im->format), 0, 0, 1 },
                                .imageExtent = { (uint32_t)im->width, (uint32_t)im->height, 1 } };
}

void upf__vk_host_upload_raw(upf__vk_host *h, upf__vk_host_image *im, const void *texels)
{
    if (texels)
        memcpy(im->map, texels, (size_t)im->width * (size_t)im->height * im->texel);
    image_barrier(h, im, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferImageCopy c = whole(im);
    h->vkCmdCopyBufferToImage(h->cmd, im->staging, im->image,
                              VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &c);
}

void upf__vk_host_upload(upf__vk_host *h, upf__vk_host_image *im, const upf_image *src)
{
    const size_t row = (size_t)im->width * im->texel;
    for (int y = 0; y < im->height; y++)
        memcpy((uint8_t *)im->map + (size_t)y * row, upf__row(src, y), row);
    upf__vk_host_upload_raw(h, im, NULL);
}

void upf__vk_host_record_download(upf__vk_host *h, upf__vk_host_image *im)
{
    const VkBufferImageCopy c = whole(im);
    h->vkCmdCopyImageToBuffer(h->cmd, im->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                              im->staging, 1, &c);
    const VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
    h->vkCmdPipelineBarrier(h->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                            1, &mb, 0, NULL, 0, NULL);
}

void upf__vk_host_read(const upf__vk_host_image *im, const upf_image *dst, float *row)
{
    const size_t bytes = (size_t)im->width * im->texel;
    const bool direct = upf_format_bytes_per_pixel(dst->format) == im->texel &&
                        !(dst->format == UPF_FORMAT_RGBA16_UNORM ||
                          dst->format == UPF_FORMAT_RGBA16_SRGB);
    for (int y = 0; y < im->height; y++) {
        const uint8_t *from = (const uint8_t *)im->map + (size_t)y * bytes;
        if (direct) {
            memcpy(upf__row(dst, y), from, bytes);
        } else {
            memcpy(row, from, bytes);
            upf__row_from_linear(dst, y, 0, im->width, row);
        }
    }
}

upf_result upf__vk_host_check_image(upf_context *ctx, const char *fn, const char *what,
                                    const upf_image *im, int width, int height,
                                    upf_format format, bool optional)
{
    if (!im)
        return optional ? UPF_OK : upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL",
                                             fn, what);
    if (im->width != width || im->height != height || im->format != format || !im->data)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is %dx%d %s; expected "
                         "%dx%d %s as created", fn, what, im->width, im->height,
                         upf_format_name(im->format), width, height, upf_format_name(format));
    return UPF_OK;
}

upf_vk_image upf__vk_host_lend(const upf__vk_host_image *im, VkImageLayout layout,
                               VkImageLayout final_layout)
{
    return (upf_vk_image){ .image = im->image, .view = im->view, .format = im->format,
                           .usage = im->usage, .width = im->width, .height = im->height,
                           .layout = layout, .final_layout = final_layout, .srgb = im->srgb };
}

double upf__vk_host_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

upf_result upf__vk_host_bench(upf_context *ctx, const char *fn, const char *not_ready,
                              upf__vk_host_bench_frame frame, void *self, int passes,
                              int frames, double *ms, double *total, double *record_us)
{
    if (frames < 1 || !ms || !total || !record_us)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: expected frames >= 1 (got "
                         "%d) and the ms, total and record_us arrays", fn, frames);
    if (not_ready)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s", fn, not_ready);
    /* rec[0, frames): the record times; rec[frames, frames + passes): one frame's passes. */
    double *rec = upf__alloc_array(ctx, (size_t)frames + (size_t)passes, sizeof(double),
                                   "record times");
    if (!rec)
        return UPF_ERROR_OUT_OF_MEMORY;
    double *pass = rec + frames;
    upf_result r = UPF_OK;
    for (int i = 0; i < frames && r == UPF_OK; i++) {
        r = frame(self, fn, i, pass, &total[i], &rec[i]);
        for (int p = 0; r == UPF_OK && p < passes; p++)
            ms[(size_t)p * frames + i] = pass[p];
    }
    if (r == UPF_OK) {
        qsort(rec, (size_t)frames, sizeof *rec, cmp_double);
        *record_us = rec[frames / 2];
    }
    upf__free(ctx, rec);
    return r;
}
