/* vk_managed.c: managed mode (upf_vk_managed_*; docs/VULKAN.md, "Managed mode"): upframe as
 * its own Vulkan host, for the tool and the tests. It opens the system's loader
 * (libvulkan.so.1) at run time (the library never links it), makes an instance and a device
 * with what upf_vk_requirements_query asks, the source and destination images, staging
 * buffers and a upf_vk_spatial lent that device; a run uploads, records, submits, waits and
 * reads back.
 *
 * Formats: the upf_image formats map to Vulkan formats of the same bytes (RGBA8 sRGB as a
 * UNORM image that the shader decodes and encodes exactly); a destination format no storage
 * image takes (16-bit UNORM) is written as RGBA32F and converted on the CPU.
 *
 * Reads: the caller's source image. Writes: the caller's destination image. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/image.h"
#include "vk/vk_internal.h"

#define MANAGED_INSTANCE_FUNCS(X)                                                              \
    X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkCreateDevice)                       \
    X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceQueueFamilyProperties)               \
    X(vkGetPhysicalDeviceMemoryProperties) X(vkGetDeviceProcAddr)

#define MANAGED_DEVICE_FUNCS(X)                                                                \
    X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle)                                 \
    X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)                 \
    X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkResetCommandBuffer) X(vkQueueSubmit)     \
    X(vkCreateFence) X(vkDestroyFence) X(vkWaitForFences) X(vkResetFences)                     \
    X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory)    \
    X(vkCreateImageView) X(vkDestroyImageView) X(vkCreateBuffer) X(vkDestroyBuffer)            \
    X(vkGetBufferMemoryRequirements) X(vkBindBufferMemory) X(vkAllocateMemory)                 \
    X(vkFreeMemory) X(vkMapMemory) X(vkCmdCopyBufferToImage) X(vkCmdCopyImageToBuffer)         \
    X(vkCmdPipelineBarrier)

typedef struct managed_image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory memory;
    VkFormat format;
    int srgb;
    size_t texel;                 /* bytes per texel */
} managed_image;

struct upf_vk_managed {
    upf_context *ctx;
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;
#define DECLARE(name) PFN_##name name;
    MANAGED_INSTANCE_FUNCS(DECLARE)
    MANAGED_DEVICE_FUNCS(DECLARE)
#undef DECLARE
    VkInstance instance;
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
    upf_vk_device lend;
    upf_vk_spatial *engine;
    upf_vk_managed_params p;
    managed_image src, dst;
    VkBuffer up, down;
    VkDeviceMemory up_mem, down_mem;
    void *up_map, *down_map;
    float *row;                   /* a destination row, for CPU conversion */
    bool uploaded;
};

static upf_result vkfail(upf_vk_managed *m, const char *fn, const char *what, VkResult r)
{
    return upf__fail(m->ctx, r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
                     ? UPF_ERROR_OUT_OF_MEMORY : UPF_ERROR_UNSUPPORTED,
                     "%s: %s failed: %s", fn, what, upf__vk_result_name(r));
}

void upf_vk_managed_destroy(upf_vk_managed **pm)
{
    if (!pm || !*pm)
        return;
    upf_vk_managed *m = *pm;
    upf_vk_spatial_destroy(&m->engine);
    if (m->device) {
        m->vkDeviceWaitIdle(m->device);
        const managed_image *im[2] = { &m->src, &m->dst };
        for (int i = 0; i < 2; i++) {
            if (im[i]->view)
                m->vkDestroyImageView(m->device, im[i]->view, NULL);
            if (im[i]->image)
                m->vkDestroyImage(m->device, im[i]->image, NULL);
            if (im[i]->memory)
                m->vkFreeMemory(m->device, im[i]->memory, NULL);
        }
        if (m->up)
            m->vkDestroyBuffer(m->device, m->up, NULL);
        if (m->down)
            m->vkDestroyBuffer(m->device, m->down, NULL);
        if (m->up_mem)
            m->vkFreeMemory(m->device, m->up_mem, NULL);
        if (m->down_mem)
            m->vkFreeMemory(m->device, m->down_mem, NULL);
        if (m->fence)
            m->vkDestroyFence(m->device, m->fence, NULL);
        if (m->pool)
            m->vkDestroyCommandPool(m->device, m->pool, NULL);
        m->vkDestroyDevice(m->device, NULL);
    }
    if (m->instance)
        m->vkDestroyInstance(m->instance, NULL);
    if (m->lib)
        dlclose(m->lib);
    upf__free(m->ctx, m->row);
    upf__free(m->ctx, m);
    *pm = NULL;
}

static int memory_type(const upf_vk_managed *m, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < m->mem.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (m->mem.memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

static upf_result make_buffer(upf_vk_managed *m, const char *fn, VkDeviceSize size,
                              VkBufferUsageFlags usage, VkBuffer *b, VkDeviceMemory *mem,
                              void **map)
{
    const VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                                    .usage = usage };
    VkResult r = m->vkCreateBuffer(m->device, &bi, NULL, b);
    if (r != VK_SUCCESS)
        return vkfail(m, fn, "vkCreateBuffer", r);
    VkMemoryRequirements req;
    m->vkGetBufferMemoryRequirements(m->device, *b, &req);
    int t = memory_type(m, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (t < 0)
        t = memory_type(m, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (t < 0)
        return upf__fail(m->ctx, UPF_ERROR_UNSUPPORTED, "%s: no host-visible coherent memory "
                         "for the staging buffers", fn);
    const VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .allocationSize = req.size, .memoryTypeIndex = (uint32_t)t };
    if ((r = m->vkAllocateMemory(m->device, &ai, NULL, mem)) != VK_SUCCESS)
        return vkfail(m, fn, "vkAllocateMemory (staging)", r);
    if ((r = m->vkBindBufferMemory(m->device, *b, *mem, 0)) != VK_SUCCESS)
        return vkfail(m, fn, "vkBindBufferMemory", r);
    if ((r = m->vkMapMemory(m->device, *mem, 0, VK_WHOLE_SIZE, 0, map)) != VK_SUCCESS)
        return vkfail(m, fn, "vkMapMemory", r);
    return UPF_OK;
}

static upf_result make_image(upf_vk_managed *m, const char *fn, managed_image *im, int w, int h,
                             VkImageUsageFlags usage)
{
    const VkImageCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
        .format = im->format, .extent = { (uint32_t)w, (uint32_t)h, 1 }, .mipLevels = 1,
        .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED };
    VkResult r = m->vkCreateImage(m->device, &ci, NULL, &im->image);
    if (r != VK_SUCCESS)
        return vkfail(m, fn, "vkCreateImage", r);
    VkMemoryRequirements req;
    m->vkGetImageMemoryRequirements(m->device, im->image, &req);
    int t = memory_type(m, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (t < 0)
        t = memory_type(m, req.memoryTypeBits, 0);
    const VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .allocationSize = req.size, .memoryTypeIndex = (uint32_t)t };
    if (t < 0 || (r = m->vkAllocateMemory(m->device, &ai, NULL, &im->memory)) != VK_SUCCESS)
        return vkfail(m, fn, "vkAllocateMemory (image)", t < 0 ? VK_ERROR_FEATURE_NOT_PRESENT : r);
    if ((r = m->vkBindImageMemory(m->device, im->image, im->memory, 0)) != VK_SUCCESS)
        return vkfail(m, fn, "vkBindImageMemory", r);
    const VkImageViewCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = im->image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = im->format,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    if ((r = m->vkCreateImageView(m->device, &vi, NULL, &im->view)) != VK_SUCCESS)
        return vkfail(m, fn, "vkCreateImageView", r);
    return UPF_OK;
}

/* The Vulkan format holding a upf_image format's bytes. */
static bool map_format(upf_format f, bool dst, managed_image *im)
{
    switch (f) {
    case UPF_FORMAT_RGBA8_SRGB: *im = (managed_image){ .format = VK_FORMAT_R8G8B8A8_UNORM, .srgb = 1, .texel = 4 }; return true;
    case UPF_FORMAT_RGBA8_UNORM: *im = (managed_image){ .format = VK_FORMAT_R8G8B8A8_UNORM, .texel = 4 }; return true;
    case UPF_FORMAT_RGBA16F: *im = (managed_image){ .format = VK_FORMAT_R16G16B16A16_SFLOAT, .texel = 8 }; return true;
    case UPF_FORMAT_RGBA32F: *im = (managed_image){ .format = VK_FORMAT_R32G32B32A32_SFLOAT, .texel = 16 }; return true;
    case UPF_FORMAT_RGBA16_UNORM:
    case UPF_FORMAT_RGBA16_SRGB:
        if (dst) /* no storage image of 16-bit UNORM everywhere: float, converted on the CPU */
            *im = (managed_image){ .format = VK_FORMAT_R32G32B32A32_SFLOAT, .texel = 16 };
        else
            *im = (managed_image){ .format = VK_FORMAT_R16G16B16A16_UNORM,
                                   .srgb = f == UPF_FORMAT_RGBA16_SRGB, .texel = 8 };
        return true;
    default:
        return false;
    }
}

static upf_result make_device(upf_vk_managed *m, const char *fn)
{
    m->lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!m->lib)
        return upf__fail(m->ctx, UPF_ERROR_UNSUPPORTED, "%s: no Vulkan here: libvulkan.so.1 "
                         "could not be opened (%s); use --backend cpu or install a Vulkan "
                         "driver", fn, dlerror());
    *(void **)&m->gipa = dlsym(m->lib, "vkGetInstanceProcAddr");
    PFN_vkCreateInstance create = m->gipa ? (PFN_vkCreateInstance)m->gipa(NULL, "vkCreateInstance")
                                          : NULL;
    if (!create)
        return upf__fail(m->ctx, UPF_ERROR_UNSUPPORTED, "%s: libvulkan.so.1 has no "
                         "vkGetInstanceProcAddr/vkCreateInstance", fn);
    const VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                    .pApplicationName = "upframe", .apiVersion = VK_API_VERSION_1_2 };
    const VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                       .pApplicationInfo = &app };
    VkResult r = create(&ici, NULL, &m->instance);
    if (r != VK_SUCCESS)
        return upf__fail(m->ctx, UPF_ERROR_UNSUPPORTED, "%s: no Vulkan device: "
                         "vkCreateInstance failed (%s); use --backend cpu", fn,
                         upf__vk_result_name(r));
#define LOAD_I(name)                                                                           \
    if (!(m->name = (PFN_##name)m->gipa(m->instance, #name)))                                  \
        return upf__fail(m->ctx, UPF_ERROR_UNSUPPORTED, "%s: the loader gave no %s", fn, #name);
    MANAGED_INSTANCE_FUNCS(LOAD_I)
#undef LOAD_I
    VkPhysicalDevice pds[16];
    uint32_t n = 16;
    r = m->vkEnumeratePhysicalDevices(m->instance, &n, pds);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
        return upf__fail(m->ctx, UPF_ERROR_UNSUPPORTED, "%s: no Vulkan device (the loader "
                         "found none); use --backend cpu", fn);
    int pick = m->p.device_index;
    if (pick >= (int)n)
        return upf__fail(m->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: device_index %d: there %s "
                         "only %u Vulkan device%s", fn, pick, n == 1 ? "is" : "are", n,
                         n == 1 ? "" : "s");
    if (pick < 0) {
        pick = 0;
        for (uint32_t i = 0; i < n; i++) {
            VkPhysicalDeviceProperties pp;
            m->vkGetPhysicalDeviceProperties(pds[i], &pp);
            if (pp.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
                pick = (int)i;
                break;
            }
        }
    }
    m->pd = pds[pick];
    m->vkGetPhysicalDeviceProperties(m->pd, &m->props);
    m->vkGetPhysicalDeviceMemoryProperties(m->pd, &m->mem);
    VkQueueFamilyProperties fam[32];
    uint32_t nf = 32;
    m->vkGetPhysicalDeviceQueueFamilyProperties(m->pd, &nf, fam);
    m->qf = UINT32_MAX;
    for (uint32_t f = 0; f < nf && m->qf == UINT32_MAX; f++)
        if ((fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) && fam[f].timestampValidBits)
            m->qf = f;
    for (uint32_t f = 0; f < nf && m->qf == UINT32_MAX; f++)
        if (fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT)
            m->qf = f;
    if (m->qf == UINT32_MAX)
        return upf__fail(m->ctx, UPF_ERROR_UNSUPPORTED, "%s: %s has no compute queue", fn,
                         m->props.deviceName);
    upf_result ur = upf_vk_requirements_query(m->ctx, m->instance, m->pd, m->gipa, &m->req);
    if (ur != UPF_OK)
        return ur;
    const float prio = 1.0f;
    const VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                          .queueFamilyIndex = m->qf, .queueCount = 1,
                                          .pQueuePriorities = &prio };
    const VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                     .pNext = &m->req.features, .queueCreateInfoCount = 1,
                                     .pQueueCreateInfos = &qci,
                                     .enabledExtensionCount = m->req.extension_count,
                                     .ppEnabledExtensionNames = m->req.extensions };
#ifdef UPF_VK_PROBE
    /* Shader work only: UPF_VK_PIPELINE_STATS asks for VK_KHR_pipeline_executable_properties
     * (vk_spatial.c prints each pipeline's statistics); without it, the device as usual. */
    VkDeviceCreateInfo stats_dci = dci;
    const char *stats_ext[8];
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR stats_feature = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pNext = &m->req.features, .pipelineExecutableInfo = VK_TRUE };
    if (getenv("UPF_VK_PIPELINE_STATS") && m->req.extension_count < 8) {
        for (uint32_t i = 0; i < m->req.extension_count; i++)
            stats_ext[i] = m->req.extensions[i];
        stats_ext[m->req.extension_count] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
        stats_dci.enabledExtensionCount = m->req.extension_count + 1;
        stats_dci.ppEnabledExtensionNames = stats_ext;
        stats_dci.pNext = &stats_feature;
        if (m->vkCreateDevice(m->pd, &stats_dci, NULL, &m->device) != VK_SUCCESS) {
            fprintf(stderr, "UPF_VK_PIPELINE_STATS: no VK_KHR_pipeline_executable_properties\n");
            unsetenv("UPF_VK_PIPELINE_STATS");
        }
    }
    if (!m->device && (r = m->vkCreateDevice(m->pd, &dci, NULL, &m->device)) != VK_SUCCESS)
        return vkfail(m, fn, "vkCreateDevice", r);
#else
    if ((r = m->vkCreateDevice(m->pd, &dci, NULL, &m->device)) != VK_SUCCESS)
        return vkfail(m, fn, "vkCreateDevice", r);
#endif
#define LOAD_D(name)                                                                           \
    if (!(m->name = (PFN_##name)m->vkGetDeviceProcAddr(m->device, #name)))                     \
        return upf__fail(m->ctx, UPF_ERROR_UNSUPPORTED, "%s: the loader gave no %s", fn, #name);
    MANAGED_DEVICE_FUNCS(LOAD_D)
#undef LOAD_D
    m->vkGetDeviceQueue(m->device, m->qf, 0, &m->queue);
    const VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                          .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                          .queueFamilyIndex = m->qf };
    if ((r = m->vkCreateCommandPool(m->device, &pci, NULL, &m->pool)) != VK_SUCCESS)
        return vkfail(m, fn, "vkCreateCommandPool", r);
    const VkCommandBufferAllocateInfo cai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = m->pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1 };
    if ((r = m->vkAllocateCommandBuffers(m->device, &cai, &m->cmd)) != VK_SUCCESS)
        return vkfail(m, fn, "vkAllocateCommandBuffers", r);
    const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    if ((r = m->vkCreateFence(m->device, &fci, NULL, &m->fence)) != VK_SUCCESS)
        return vkfail(m, fn, "vkCreateFence", r);
    m->lend = (upf_vk_device){ .instance = m->instance, .physical_device = m->pd,
                               .device = m->device, .queue_family = m->qf,
                               .get_instance_proc_addr = m->gipa,
                               .enabled_extensions = m->req.extensions,
                               .enabled_extension_count = m->req.extension_count,
                               .enabled_features = &m->req.features };
    return UPF_OK;
}

upf_vk_managed *upf_vk_managed_create(upf_context *ctx, const upf_vk_managed_params *p)
{
    static const char fn[] = "upf_vk_managed_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (!p) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the sizes and "
                  "formats", fn);
        return NULL;
    }
    managed_image src_fmt, dst_fmt;
    if (!map_format(p->src_format, false, &src_fmt) || !map_format(p->dst_format, true, &dst_fmt)) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s format %s is not a colour format "
                  "(expected rgba8-srgb, rgba8-unorm, rgba16-srgb, rgba16-unorm, rgba16f or "
                  "rgba32f)", fn, map_format(p->src_format, false, &src_fmt) ? "dst" : "src",
                  upf_format_name(map_format(p->src_format, false, &src_fmt) ? p->dst_format
                                                                             : p->src_format));
        return NULL;
    }
    upf_vk_managed *m = upf__alloc(ctx, sizeof *m, "the managed Vulkan host");
    if (!m)
        return NULL;
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->p = *p;
    m->src = src_fmt;
    m->dst = dst_fmt;
    if (make_device(m, fn) != UPF_OK)
        goto fail;
    if (!(m->engine = upf_vk_spatial_create(ctx, upf_vk_spatial_params(
              .device = &m->lend, .max_src_width = p->src_width, .max_src_height = p->src_height,
              .max_dst_width = p->dst_width, .max_dst_height = p->dst_height,
              .frames_in_flight = 1, .sharpness = p->sharpness, .models = p->models,
              .flags = p->flags, .variant = p->variant, .timestamps = p->timestamps))))
        goto fail;
    const VkImageUsageFlags tr = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    if (make_image(m, fn, &m->src, p->src_width, p->src_height, VK_IMAGE_USAGE_SAMPLED_BIT | tr) ||
        make_image(m, fn, &m->dst, p->dst_width, p->dst_height, VK_IMAGE_USAGE_STORAGE_BIT | tr) ||
        make_buffer(m, fn, (VkDeviceSize)p->src_width * p->src_height * m->src.texel,
                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &m->up, &m->up_mem, &m->up_map) ||
        make_buffer(m, fn, (VkDeviceSize)p->dst_width * p->dst_height * m->dst.texel,
                    VK_BUFFER_USAGE_TRANSFER_DST_BIT, &m->down, &m->down_mem, &m->down_map))
        goto fail;
    if (!(m->row = upf__alloc(ctx, (size_t)p->dst_width * 16, "a destination row")))
        goto fail;
    upf__log(ctx, UPF_LOG_INFO, "%s: %s, detail variant %s", fn, m->props.deviceName,
             upf_vk_variant_name(upf_vk_spatial_variant(m->engine)));
    return m;
fail:
    upf_vk_managed_destroy(&m);
    return NULL;
}

const char *upf_vk_managed_device_name(const upf_vk_managed *m)
{
    return m ? m->props.deviceName : "";
}

upf_vk_spatial *upf_vk_managed_engine(upf_vk_managed *m)
{
    return m ? m->engine : NULL;
}

static void barrier(upf_vk_managed *m, VkImage image, VkImageLayout from, VkImageLayout to,
                    VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
    const VkImageMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
        .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    m->vkCmdPipelineBarrier(m->cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

static upf_result begin(upf_vk_managed *m, const char *fn)
{
    m->vkResetCommandBuffer(m->cmd, 0);
    const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    VkResult r = m->vkBeginCommandBuffer(m->cmd, &bi);
    return r == VK_SUCCESS ? UPF_OK : vkfail(m, fn, "vkBeginCommandBuffer", r);
}

static upf_result submit(upf_vk_managed *m, const char *fn)
{
    VkResult r = m->vkEndCommandBuffer(m->cmd);
    if (r != VK_SUCCESS)
        return vkfail(m, fn, "vkEndCommandBuffer", r);
    const VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                              .pCommandBuffers = &m->cmd };
    if ((r = m->vkQueueSubmit(m->queue, 1, &si, m->fence)) != VK_SUCCESS)
        return vkfail(m, fn, "vkQueueSubmit", r);
    if ((r = m->vkWaitForFences(m->device, 1, &m->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
        return vkfail(m, fn, "vkWaitForFences", r);
    m->vkResetFences(m->device, 1, &m->fence);
    return UPF_OK;
}

static upf_vk_image lend(const upf_vk_managed *m, const managed_image *im, bool dst,
                         VkImageLayout layout, VkImageLayout final_layout)
{
    const upf_vk_managed_params *p = &m->p;
    return (upf_vk_image){ .image = im->image, .view = im->view, .format = im->format,
                           .usage = (dst ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT) |
                                    VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                           .width = dst ? p->dst_width : p->src_width,
                           .height = dst ? p->dst_height : p->src_height,
                           .layout = layout, .final_layout = final_layout, .srgb = im->srgb };
}

upf_result upf_vk_managed_run(upf_vk_managed *m, const upf_image *src, const upf_image *dst)
{
    static const char fn[] = "upf_vk_managed_run";
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(m->ctx);
    const upf_vk_managed_params *p = &m->p;
    upf_result r = upf__check_image(m->ctx, fn, "source image", src,
                                    UPF_FMT_BIT(p->src_format), p->src_width, p->src_height);
    if (r == UPF_OK)
        r = upf__check_image(m->ctx, fn, "destination image", dst, UPF_FMT_BIT(p->dst_format),
                             p->dst_width, p->dst_height);
    if (r != UPF_OK)
        return r;
    const size_t srow = (size_t)p->src_width * m->src.texel;
    for (int y = 0; y < p->src_height; y++)
        memcpy((uint8_t *)m->up_map + (size_t)y * srow, upf__row(src, y), srow);
    if ((r = begin(m, fn)) != UPF_OK)
        return r;
    const VkBufferImageCopy sc = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                   .imageExtent = { (uint32_t)p->src_width, (uint32_t)p->src_height, 1 } };
    barrier(m, m->src.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    m->vkCmdCopyBufferToImage(m->cmd, m->up, m->src.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                              1, &sc);
    const upf_vk_image s = lend(m, &m->src, false, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    const upf_vk_image d = lend(m, &m->dst, true, VK_IMAGE_LAYOUT_UNDEFINED,
                                VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    if ((r = upf_vk_spatial_record(m->engine, m->cmd, &s, &d)) != UPF_OK) {
        m->vkEndCommandBuffer(m->cmd);
        return r;
    }
    const VkBufferImageCopy dc = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                   .imageExtent = { (uint32_t)p->dst_width, (uint32_t)p->dst_height, 1 } };
    m->vkCmdCopyImageToBuffer(m->cmd, m->dst.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, m->down,
                              1, &dc);
    const VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
    m->vkCmdPipelineBarrier(m->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                            1, &mb, 0, NULL, 0, NULL);
    if ((r = submit(m, fn)) != UPF_OK)
        return r;
    m->uploaded = true;
    const size_t drow = (size_t)p->dst_width * m->dst.texel;
    const bool direct = upf_format_bytes_per_pixel(dst->format) == m->dst.texel &&
                        !(dst->format == UPF_FORMAT_RGBA16_UNORM ||
                          dst->format == UPF_FORMAT_RGBA16_SRGB);
    for (int y = 0; y < p->dst_height; y++) {
        const uint8_t *row = (const uint8_t *)m->down_map + (size_t)y * drow;
        if (direct) {
            memcpy(upf__row(dst, y), row, drow);
        } else {
            memcpy(m->row, row, drow);
            upf__row_from_linear(dst, y, 0, p->dst_width, m->row);
        }
    }
    return UPF_OK;
}

static double now_us(void)
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

upf_result upf_vk_managed_bench(upf_vk_managed *m, int frames, double *ms, double *total,
                                double *record_us)
{
    static const char fn[] = "upf_vk_managed_bench";
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(m->ctx);
    if (frames < 1 || !ms || !total || !record_us)
        return upf__fail(m->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: expected frames >= 1 (got "
                         "%d) and the ms, total and record_us arrays", fn, frames);
    if (!m->uploaded)
        return upf__fail(m->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: nothing uploaded yet (call "
                         "upf_vk_managed_run first)", fn);
    double *rec = upf__alloc_array(m->ctx, (size_t)frames, sizeof(double), "record times");
    if (!rec)
        return UPF_ERROR_OUT_OF_MEMORY;
    upf_result r = UPF_OK;
    for (int i = 0; i < frames && r == UPF_OK; i++) {
        if ((r = begin(m, fn)) != UPF_OK)
            break;
        /* The source stays in SHADER_READ_ONLY_OPTIMAL, the destination in GENERAL. */
        const upf_vk_image s = lend(m, &m->src, false, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
        const upf_vk_image d = lend(m, &m->dst, true, i ? VK_IMAGE_LAYOUT_GENERAL
                                                        : VK_IMAGE_LAYOUT_UNDEFINED,
                                    VK_IMAGE_LAYOUT_GENERAL);
        const double t0 = now_us();
        r = upf_vk_spatial_record(m->engine, m->cmd, &s, &d);
        rec[i] = now_us() - t0;
        if (r != UPF_OK) {
            m->vkEndCommandBuffer(m->cmd);
            break;
        }
        if ((r = submit(m, fn)) != UPF_OK)
            break;
        double pass[UPF_SPATIAL_PASS_COUNT];
        if ((r = upf_vk_spatial_timings(m->engine, pass, &total[i])) != UPF_OK)
            break;
        for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++)
            ms[(size_t)p * frames + i] = pass[p];
    }
    if (r == UPF_OK) {
        qsort(rec, (size_t)frames, sizeof *rec, cmp_double);
        *record_us = rec[frames / 2];
    }
    upf__free(m->ctx, rec);
    return r;
}
