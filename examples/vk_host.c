/* vk_host.c: a minimal Vulkan host that embeds upframe's GPU spatial engine (docs/VULKAN.md).
 *
 * It does what a renderer does: makes its own instance and device (enabling what upframe asks
 * for), then records ONE command buffer with a pass of its own (upload the frame into the
 * source image, clear the whole destination image to magenta), upframe's upscale into a
 * rectangle of the destination, and another pass of its own (copy the destination out);
 * submits it once, waits, and checks the result: the rectangle against the CPU engine on the
 * same frame, the border still magenta. Exit 0 when both hold, 77 when there is no Vulkan
 * device, 1 otherwise. With the Khronos validation layer present it runs validated
 * (synchronization validation on) and any message fails it.
 *
 * Build: cc vk_host.c $(pkg-config --cflags --libs upframe) -lvulkan -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upframe.h>
#include <upframe_vk.h>

#define SW 160
#define SH 90
#define DW 320
#define DH 180
#define MARGIN 8 /* the destination image is this much larger on every side */

static int messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d,
                                                 void *priv)
{
    (void)sev, (void)type, (void)priv;
    fprintf(stderr, "vk_host: validation: %s\n", d->pMessage);
    messages++;
    return VK_FALSE;
}

static uint32_t memory_type(VkPhysicalDevice pd, uint32_t bits, VkMemoryPropertyFlags want)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            return i;
    return 0;
}

static VkDeviceMemory bind(VkDevice dev, VkPhysicalDevice pd, VkMemoryRequirements req,
                           VkMemoryPropertyFlags want)
{
    const VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size,
                                      memory_type(pd, req.memoryTypeBits, want) };
    VkDeviceMemory m;
    vkAllocateMemory(dev, &ai, NULL, &m);
    return m;
}

static void barrier(VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to,
                    VkAccessFlags src_access, VkAccessFlags dst_access)
{
    const VkImageMemoryBarrier b = {
        VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, NULL, src_access, dst_access, from, to,
        VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, img,
        { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         0, NULL, 0, NULL, 1, &b);
}

int main(void)
{
    /* ---- the host's own Vulkan (upframe is not involved yet) ---- */
    const char *layer = "VK_LAYER_KHRONOS_validation";
    uint32_t nl = 0;
    vkEnumerateInstanceLayerProperties(&nl, NULL);
    VkLayerProperties lp[64];
    nl = nl > 64 ? 64 : nl;
    vkEnumerateInstanceLayerProperties(&nl, lp);
    int validate = 0;
    for (uint32_t i = 0; i < nl; i++)
        validate |= !strcmp(lp[i].layerName, layer);
    const char *ext[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
                          VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME };
    const VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    const VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message };
    const VkValidationFeaturesEXT vf = { .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                         .pNext = &mci, .enabledValidationFeatureCount = 1,
                                         .pEnabledValidationFeatures = &sync };
    const VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                    .pApplicationName = "vk_host",
                                    .apiVersion = VK_API_VERSION_1_2 };
    const VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = validate ? &vf : NULL,
        .pApplicationInfo = &app, .enabledLayerCount = validate ? 1u : 0u,
        .ppEnabledLayerNames = &layer, .enabledExtensionCount = validate ? 2u : 0u,
        .ppEnabledExtensionNames = ext };
    VkInstance inst;
    uint32_t npd = 1;
    VkPhysicalDevice pd;
    if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) {
        fprintf(stderr, "vk_host: no Vulkan: skipped\n");
        return 77;
    }
    VkResult er = vkEnumeratePhysicalDevices(inst, &npd, &pd);
    if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || npd == 0) {
        fprintf(stderr, "vk_host: no Vulkan device: skipped\n");
        vkDestroyInstance(inst, NULL);
        return 77;
    }
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    PFN_vkCreateDebugUtilsMessengerEXT cm =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
    if (validate && cm)
        cm(inst, &mci, NULL, &messenger);

    upf_context *ctx = upf_context_create(upf_context_params(.log = upf_log_stderr,
                                                             .log_level = UPF_LOG_INFO));
    /* What upframe needs enabled on the device: chain req.features, enable req.extensions. */
    upf_vk_requirements req;
    if (upf_vk_requirements_query(ctx, inst, pd, vkGetInstanceProcAddr, &req) != UPF_OK)
        return 1;
    VkQueueFamilyProperties fam[16];
    uint32_t nf = 16, qf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, fam);
    while (qf < nf && !(fam[qf].queueFlags & VK_QUEUE_COMPUTE_BIT))
        qf++;
    const float prio = 1.0f;
    const VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, qf,
                                          1, &prio };
    const VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                     .pNext = &req.features, .queueCreateInfoCount = 1,
                                     .pQueueCreateInfos = &qci,
                                     .enabledExtensionCount = req.extension_count,
                                     .ppEnabledExtensionNames = req.extensions };
    VkDevice dev;
    if (vkCreateDevice(pd, &dci, NULL, &dev) != VK_SUCCESS)
        return 1;
    VkQueue queue;
    vkGetDeviceQueue(dev, qf, 0, &queue);

    /* The host's images: an 8-bit sRGB source, an RGBA8 destination written through its
     * UNORM view with upframe encoding sRGB (srgb = 1). */
    const int ow = DW + 2 * MARGIN, oh = DH + 2 * MARGIN;
    VkImageCreateInfo ic = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                             .imageType = VK_IMAGE_TYPE_2D, .format = VK_FORMAT_R8G8B8A8_SRGB,
                             .extent = { SW, SH, 1 }, .mipLevels = 1, .arrayLayers = 1,
                             .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                             .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT };
    VkImage src_img, dst_img;
    vkCreateImage(dev, &ic, NULL, &src_img);
    ic.format = VK_FORMAT_R8G8B8A8_UNORM;
    ic.extent = (VkExtent3D){ (uint32_t)ow, (uint32_t)oh, 1 };
    ic.usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
               VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    vkCreateImage(dev, &ic, NULL, &dst_img);
    VkMemoryRequirements mr;
    vkGetImageMemoryRequirements(dev, src_img, &mr);
    VkDeviceMemory src_mem = bind(dev, pd, mr, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vkBindImageMemory(dev, src_img, src_mem, 0);
    vkGetImageMemoryRequirements(dev, dst_img, &mr);
    VkDeviceMemory dst_mem = bind(dev, pd, mr, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vkBindImageMemory(dev, dst_img, dst_mem, 0);
    VkImageViewCreateInfo vc = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                 .image = src_img, .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                 .format = VK_FORMAT_R8G8B8A8_SRGB,
                                 .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    VkImageView src_view, dst_view;
    vkCreateImageView(dev, &vc, NULL, &src_view);
    vc.image = dst_img;
    vc.format = VK_FORMAT_R8G8B8A8_UNORM;
    vkCreateImageView(dev, &vc, NULL, &dst_view);
    /* Staging: the frame in, the result out. */
    const VkDeviceSize up_bytes = (VkDeviceSize)SW * SH * 4, down_bytes = (VkDeviceSize)ow * oh * 4;
    VkBufferCreateInfo bc = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = up_bytes,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT };
    VkBuffer up, down;
    vkCreateBuffer(dev, &bc, NULL, &up);
    bc.size = down_bytes;
    bc.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    vkCreateBuffer(dev, &bc, NULL, &down);
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    vkGetBufferMemoryRequirements(dev, up, &mr);
    VkDeviceMemory up_mem = bind(dev, pd, mr, host);
    vkBindBufferMemory(dev, up, up_mem, 0);
    vkGetBufferMemoryRequirements(dev, down, &mr);
    VkDeviceMemory down_mem = bind(dev, pd, mr, host);
    vkBindBufferMemory(dev, down, down_mem, 0);
    uint8_t *frame, *result;
    vkMapMemory(dev, up_mem, 0, VK_WHOLE_SIZE, 0, (void **)&frame);
    vkMapMemory(dev, down_mem, 0, VK_WHOLE_SIZE, 0, (void **)&result);
    for (int y = 0; y < SH; y++) /* rings and stripes: edges and texture */
        for (int x = 0; x < SW; x++) {
            uint8_t *p = frame + 4 * (y * SW + x);
            const double r = hypot(x - SW / 2.0, y - SH / 2.0);
            p[0] = (uint8_t)(127.5 + 127.5 * sin(r * 0.45));
            p[1] = (uint8_t)((x / 6 + y / 5) % 2 ? 220 : 40);
            p[2] = (uint8_t)(x * 255 / SW);
            p[3] = 255;
        }

    /* ---- upframe: made once, for the largest sizes (all its memory and pipelines now) ---- */
    const upf_vk_device lend = { .instance = inst, .physical_device = pd, .device = dev,
                                 .queue_family = qf, .get_instance_proc_addr = vkGetInstanceProcAddr,
                                 .enabled_extensions = req.extensions,
                                 .enabled_extension_count = req.extension_count,
                                 .enabled_features = &req.features };
    if (upf_vk_check_device(ctx, &lend) != UPF_OK)
        return 1; /* a real host would fall back to the CPU engine here */
    upf_vk_spatial *up_engine = upf_vk_spatial_create(ctx, upf_vk_spatial_params(
        .device = &lend, .max_src_width = SW, .max_src_height = SH, .max_dst_width = DW,
        .max_dst_height = DH, .sharpness = 1.0f));
    if (!up_engine)
        return 1;

    /* ---- one command buffer: the host's pass, upframe's, the host's ---- */
    VkCommandPool pool;
    const VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0, qf };
    vkCreateCommandPool(dev, &pci, NULL, &pool);
    VkCommandBuffer cmd;
    const VkCommandBufferAllocateInfo cai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                              NULL, pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1 };
    vkAllocateCommandBuffers(dev, &cai, &cmd);
    const VkCommandBufferBeginInfo cbi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
                                           VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL };
    vkBeginCommandBuffer(cmd, &cbi);
    /* The host's pass: the frame into the source, the destination cleared to magenta. */
    barrier(cmd, src_img, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    barrier(cmd, dst_img, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferImageCopy copy_in = { 0, 0, 0, { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                        { 0, 0, 0 }, { SW, SH, 1 } };
    vkCmdCopyBufferToImage(cmd, up, src_img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy_in);
    const VkClearColorValue magenta = { .float32 = { 1.0f, 0.0f, 1.0f, 1.0f } };
    const VkImageSubresourceRange all = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
    vkCmdClearColorImage(cmd, dst_img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &magenta, 1, &all);
    /* upframe's pass: it takes each image in the layout it is in and leaves it in the one
     * asked for, with the barriers around its own work (docs/VULKAN.md, "Barriers"). */
    const upf_vk_image src = { .image = src_img, .view = src_view,
                               .format = VK_FORMAT_R8G8B8A8_SRGB,
                               .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                               .width = SW, .height = SH,
                               .layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               .final_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
    const upf_vk_image dst = { .image = dst_img, .view = dst_view,
                               .format = VK_FORMAT_R8G8B8A8_UNORM, .usage = ic.usage,
                               .width = ow, .height = oh, .rect = { MARGIN, MARGIN, DW, DH },
                               .layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               .final_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, .srgb = 1 };
    if (upf_vk_spatial_record(up_engine, cmd, &src, &dst) != UPF_OK)
        return 1;
    /* The host's second pass: the whole destination out to the staging buffer. */
    const VkBufferImageCopy copy_out = { 0, 0, 0, { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                         { 0, 0, 0 }, { (uint32_t)ow, (uint32_t)oh, 1 } };
    vkCmdCopyImageToBuffer(cmd, dst_img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, down, 1, &copy_out);
    const VkMemoryBarrier to_host = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                                      VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &to_host, 0, NULL, 0, NULL);
    vkEndCommandBuffer(cmd);
    VkFence fence;
    const VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };
    vkCreateFence(dev, &fci, NULL, &fence);
    const VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                              .pCommandBuffers = &cmd };
    vkQueueSubmit(queue, 1, &si, fence);
    vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);

    /* ---- check: the CPU engine on the same frame; the border untouched ---- */
    static uint8_t cpu[DW * DH * 4];
    const upf_image cpu_src = { frame, SW, SH, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image cpu_dst = { cpu, DW, DH, 0, UPF_FORMAT_RGBA8_SRGB };
    upf_spatial *ref = upf_spatial_create(ctx, upf_spatial_params(.src_width = SW,
        .src_height = SH, .dst_width = DW, .dst_height = DH, .sharpness = 1.0f));
    int rc = ref && upf_spatial_run(ref, &cpu_src, &cpu_dst) == UPF_OK ? 0 : 1;
    double sum = 0;
    int worst = 0, border = 0;
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            const uint8_t *g = result + 4 * ((size_t)y * ow + x);
            if (x < MARGIN || y < MARGIN || x >= MARGIN + DW || y >= MARGIN + DH) {
                border += !(g[0] == 255 && g[1] == 0 && g[2] == 255 && g[3] == 255);
                continue;
            }
            const uint8_t *c = cpu + 4 * ((size_t)(y - MARGIN) * DW + (x - MARGIN));
            for (int k = 0; k < 4; k++) {
                const int d = abs(g[k] - c[k]);
                sum += d / 255.0;
                worst = d > worst ? d : worst;
            }
        }
    const double mean = sum / (DW * DH * 4.0);
    printf("vk_host: %dx%d -> %dx%d on the GPU (detail variant %s): mean |diff| from the CPU "
           "engine %.6f, largest %d/255; border pixels changed: %d; validation %s, %d "
           "messages\n", SW, SH, DW, DH, upf_vk_variant_name(upf_vk_spatial_variant(up_engine)),
           mean, worst, border, validate ? "on" : "off (no layer)", messages);
    if (mean > 0.0005 || border || messages)
        rc = 1;

    upf_spatial_destroy(&ref);
    upf_vk_spatial_destroy(&up_engine);
    vkDestroyFence(dev, fence, NULL);
    vkDestroyCommandPool(dev, pool, NULL);
    vkDestroyImageView(dev, src_view, NULL);
    vkDestroyImageView(dev, dst_view, NULL);
    vkDestroyImage(dev, src_img, NULL);
    vkDestroyImage(dev, dst_img, NULL);
    vkDestroyBuffer(dev, up, NULL);
    vkDestroyBuffer(dev, down, NULL);
    vkFreeMemory(dev, src_mem, NULL);
    vkFreeMemory(dev, dst_mem, NULL);
    vkFreeMemory(dev, up_mem, NULL);
    vkFreeMemory(dev, down_mem, NULL);
    vkDestroyDevice(dev, NULL);
    PFN_vkDestroyDebugUtilsMessengerEXT dm =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
    if (messenger && dm)
        dm(inst, messenger, NULL);
    vkDestroyInstance(inst, NULL);
    upf_context_destroy(&ctx);
    return rc || messages ? 1 : 0;
}
