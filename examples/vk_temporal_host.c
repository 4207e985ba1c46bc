/* vk_temporal_host.c: a Vulkan host that embeds upframe's GPU temporal engine
 * (docs/VULKAN.md, "The temporal engine"), as a renderer would.
 *
 * It makes its own instance and device (enabling what upframe asks for), renders a 12-frame
 * walk through the courtyard with the scene renderer (tools/scene stands in for the game:
 * jittered colour, depth, motion vectors), and records per frame ONE command buffer: a pass
 * of its own (upload the frame: colour RGBA32F, depth into a D32_SFLOAT depth image left in
 * DEPTH_STENCIL_ATTACHMENT_OPTIMAL as after a depth pass, motion RG32F), upframe's temporal
 * engine into the output image, and another pass of its own (copy the output out). Two frames
 * are in flight: two sets of images, staging buffers, command buffers and fences; frame n
 * waits only for frame n - 2. Every frame is checked against the CPU engine on the same
 * frame: mean absolute difference at most 0.0005 on [0, 1]. Exit 0 when all hold, 77 when
 * there is no Vulkan device, 1 otherwise. With the Khronos validation layer present it runs
 * validated (synchronization validation on) and any message fails it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upframe.h>
#include <upframe_vk.h>

#include "scene/scene.h"

#define RW 96
#define RH 54
#define OW 192
#define OH 108
#define FRAMES 12
#define SLOTS 2

static int messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d,
                                                 void *priv)
{
    (void)sev, (void)type, (void)priv;
    fprintf(stderr, "vk_temporal_host: validation: %s\n", d->pMessage);
    messages++;
    return VK_FALSE;
}

typedef struct host {
    VkInstance inst;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice pd;
    VkDevice dev;
    uint32_t qf;
    VkQueue queue;
    VkCommandPool pool;
    upf_vk_requirements req;    /* what upframe asked to enable (its features chain in place) */
} host;

typedef struct image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory mem;
    VkFormat format;
    VkImageUsageFlags usage;
    VkImageAspectFlags aspect;
} image;

typedef struct buffer {
    VkBuffer buffer;
    VkDeviceMemory mem;
    void *map;
} buffer;

/* What one frame in flight owns. */
typedef struct slot {
    image color, depth, motion, out;
    buffer up_color, up_depth, up_motion, down;
    VkCommandBuffer cmd;
    VkFence fence;
    int frame;                  /* the frame it holds, -1 none */
    float *cpu;                 /* the CPU engine's output of that frame */
} slot;

static VkDeviceMemory bind_memory(const host *h, VkMemoryRequirements req,
                                  VkMemoryPropertyFlags want)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(h->pd, &mp);
    uint32_t type = 0;
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            type = i;
            break;
        }
    const VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, type };
    VkDeviceMemory m = VK_NULL_HANDLE;
    vkAllocateMemory(h->dev, &ai, NULL, &m);
    return m;
}

static image make_image(const host *h, int w, int hh, VkFormat format, VkImageUsageFlags usage,
                        VkImageAspectFlags aspect)
{
    image im = { .format = format, .usage = usage, .aspect = aspect };
    const VkImageCreateInfo ic = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
        .format = format, .extent = { (uint32_t)w, (uint32_t)hh, 1 }, .mipLevels = 1,
        .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage };
    vkCreateImage(h->dev, &ic, NULL, &im.image);
    VkMemoryRequirements mr;
    vkGetImageMemoryRequirements(h->dev, im.image, &mr);
    im.mem = bind_memory(h, mr, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vkBindImageMemory(h->dev, im.image, im.mem, 0);
    const VkImageViewCreateInfo vc = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                       .image = im.image, .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                       .format = format,
                                       .subresourceRange = { aspect, 0, 1, 0, 1 } };
    vkCreateImageView(h->dev, &vc, NULL, &im.view);
    return im;
}

static buffer make_buffer(const host *h, VkDeviceSize size, VkBufferUsageFlags usage)
{
    buffer b = { 0 };
    const VkBufferCreateInfo bc = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                                    .usage = usage };
    vkCreateBuffer(h->dev, &bc, NULL, &b.buffer);
    VkMemoryRequirements mr;
    vkGetBufferMemoryRequirements(h->dev, b.buffer, &mr);
    b.mem = bind_memory(h, mr, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    vkBindBufferMemory(h->dev, b.buffer, b.mem, 0);
    vkMapMemory(h->dev, b.mem, 0, VK_WHOLE_SIZE, 0, &b.map);
    return b;
}

static void free_image(const host *h, image *im)
{
    vkDestroyImageView(h->dev, im->view, NULL);
    vkDestroyImage(h->dev, im->image, NULL);
    vkFreeMemory(h->dev, im->mem, NULL);
}

static void free_buffer(const host *h, buffer *b)
{
    vkDestroyBuffer(h->dev, b->buffer, NULL);
    vkFreeMemory(h->dev, b->mem, NULL);
}

static void barrier(VkCommandBuffer cmd, const image *im, VkImageLayout from, VkImageLayout to,
                    VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
    const VkImageMemoryBarrier b = {
        VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, NULL, src_access, dst_access, from, to,
        VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, im->image, { im->aspect, 0, 1, 0, 1 } };
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

/* The host's first pass: the staging buffer into the image, left in `layout`. */
static void upload(VkCommandBuffer cmd, const buffer *b, const image *im, int w, int h,
                   VkImageLayout layout)
{
    barrier(cmd, im, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferImageCopy r = { .imageSubresource = { im->aspect, 0, 0, 1 },
                                  .imageExtent = { (uint32_t)w, (uint32_t)h, 1 } };
    vkCmdCopyBufferToImage(cmd, b->buffer, im->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r);
    barrier(cmd, im, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, layout, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
            VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
}

static upf_vk_image lend(const image *im, int w, int h, VkImageLayout layout,
                         VkImageLayout final_layout)
{
    return (upf_vk_image){ .image = im->image, .view = im->view, .format = im->format,
                           .usage = im->usage, .width = w, .height = h, .layout = layout,
                           .final_layout = final_layout };
}

static int make_host(host *h, upf_context *ctx)
{
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
    const VkValidationFeatureEnableEXT sync =
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
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
                                    .pApplicationName = "vk_temporal_host",
                                    .apiVersion = VK_API_VERSION_1_2 };
    const VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = validate ? &vf : NULL,
        .pApplicationInfo = &app, .enabledLayerCount = validate ? 1u : 0u,
        .ppEnabledLayerNames = &layer, .enabledExtensionCount = validate ? 2u : 0u,
        .ppEnabledExtensionNames = ext };
    uint32_t npd = 1;
    if (vkCreateInstance(&ici, NULL, &h->inst) != VK_SUCCESS)
        return 77;
    VkResult er = vkEnumeratePhysicalDevices(h->inst, &npd, &h->pd);
    if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || npd == 0)
        return 77;
    PFN_vkCreateDebugUtilsMessengerEXT cm = (PFN_vkCreateDebugUtilsMessengerEXT)
        vkGetInstanceProcAddr(h->inst, "vkCreateDebugUtilsMessengerEXT");
    if (validate && cm)
        cm(h->inst, &mci, NULL, &h->messenger);
    /* What upframe needs enabled on the device: chain req.features, enable req.extensions. */
    upf_vk_requirements *req = &h->req;
    if (upf_vk_requirements_query(ctx, h->inst, h->pd, vkGetInstanceProcAddr, req) != UPF_OK)
        return 1;
    VkQueueFamilyProperties fam[16];
    uint32_t nf = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(h->pd, &nf, fam);
    while (h->qf < nf && !(fam[h->qf].queueFlags & VK_QUEUE_COMPUTE_BIT))
        h->qf++;
    const float prio = 1.0f;
    const VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0,
                                          h->qf, 1, &prio };
    const VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                     .pNext = &req->features, .queueCreateInfoCount = 1,
                                     .pQueueCreateInfos = &qci,
                                     .enabledExtensionCount = req->extension_count,
                                     .ppEnabledExtensionNames = req->extensions };
    if (vkCreateDevice(h->pd, &dci, NULL, &h->dev) != VK_SUCCESS)
        return 1;
    vkGetDeviceQueue(h->dev, h->qf, 0, &h->queue);
    const VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                          .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                          .queueFamilyIndex = h->qf };
    vkCreateCommandPool(h->dev, &pci, NULL, &h->pool);
    return 0;
}

static void make_slot(const host *h, slot *s)
{
    const VkImageUsageFlags in = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    s->color = make_image(h, RW, RH, VK_FORMAT_R32G32B32A32_SFLOAT, in, VK_IMAGE_ASPECT_COLOR_BIT);
    s->depth = make_image(h, RW, RH, VK_FORMAT_D32_SFLOAT,
                          in | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                          VK_IMAGE_ASPECT_DEPTH_BIT);
    s->motion = make_image(h, RW, RH, VK_FORMAT_R32G32_SFLOAT, in, VK_IMAGE_ASPECT_COLOR_BIT);
    s->out = make_image(h, OW, OH, VK_FORMAT_R32G32B32A32_SFLOAT,
                        VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                        VK_IMAGE_ASPECT_COLOR_BIT);
    s->up_color = make_buffer(h, sizeof(float) * RW * RH * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    s->up_depth = make_buffer(h, sizeof(float) * RW * RH, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    s->up_motion = make_buffer(h, sizeof(float) * RW * RH * 2, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    s->down = make_buffer(h, sizeof(float) * OW * OH * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    const VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL,
                                             h->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1 };
    vkAllocateCommandBuffers(h->dev, &ai, &s->cmd);
    const VkFenceCreateInfo fi = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };
    vkCreateFence(h->dev, &fi, NULL, &s->fence);
    s->frame = -1;
    s->cpu = malloc(sizeof(float) * OW * OH * 4);
}

static void free_slot(const host *h, slot *s)
{
    free_image(h, &s->color), free_image(h, &s->depth), free_image(h, &s->motion);
    free_image(h, &s->out);
    free_buffer(h, &s->up_color), free_buffer(h, &s->up_depth), free_buffer(h, &s->up_motion);
    free_buffer(h, &s->down);
    vkDestroyFence(h->dev, s->fence, NULL);
    free(s->cpu);
}

/* Waits for the slot's frame and compares it with the CPU engine's: 0 when it matches. */
static int check_slot(const host *h, slot *s)
{
    if (s->frame < 0)
        return 0;
    vkWaitForFences(h->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
    vkResetFences(h->dev, 1, &s->fence);
    const float *g = s->down.map;
    double sum = 0.0, big = 0.0;
    for (int i = 0; i < OW * OH; i++)
        for (int c = 0; c < 3; c++) {
            double e = fabs((double)g[4 * i + c] - s->cpu[4 * i + c]);
            e = e == e ? e : 1e9;
            sum += e;
            big = e > big ? e : big;
        }
    const double mean = sum / (OW * OH * 3);
    printf("vk_temporal_host: frame %2d: mean abs difference %.3g, largest %.3g\n", s->frame,
           mean, big);
    s->frame = -1;
    return mean <= 0.0005 ? 0 : 1;
}

/* Frame n into slot s: render, the CPU engine's output, and the one command buffer. */
static int frame(const host *h, upf_context *ctx, scene *sc, upf_temporal *cpu,
                 upf_vk_temporal *gpu, slot *s, int n)
{
    int phases = 8;
    upf_jitter_phase_count(ctx, RW, OW, &phases);
    double jx = 0.0, jy = 0.0;
    upf_jitter_offset(ctx, n, phases, &jx, &jy);
    scene_camera cam;
    const scene_buffers b = { s->up_color.map, NULL, s->up_depth.map, s->up_motion.map };
    if (scene_render(sc, scene_view_params(.path = "walk", .time = n / 30.0, .width = RW,
                                           .height = RH, .jitter_x = jx, .jitter_y = jy),
                     &b, &cam) != UPF_OK)
        return 1;
    upf_temporal_frame values = {
        .jitter_x = jx, .jitter_y = jy, .frame_time_ms = 33.3,
        .camera = { .near_plane = cam.near_plane, .far_plane = cam.far_plane,
                    .fov_y = cam.fov_y, .depth_reversed = cam.depth_reversed,
                    .far_infinite = isinf(cam.far_plane) } };
    const upf_image ic = { s->up_color.map, RW, RH, 0, UPF_FORMAT_RGBA32F };
    const upf_image id = { s->up_depth.map, RW, RH, 0, UPF_FORMAT_R32F };
    const upf_image im = { s->up_motion.map, RW, RH, 0, UPF_FORMAT_RG32F };
    const upf_image io = { s->cpu, OW, OH, 0, UPF_FORMAT_RGBA32F };
    upf_temporal_frame cf = values;
    cf.color = &ic, cf.depth = &id, cf.motion = &im;
    if (upf_temporal_run(cpu, &cf, &io) != UPF_OK)
        return 1;

    VkCommandBuffer cmd = s->cmd;
    vkResetCommandBuffer(cmd, 0);
    const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    vkBeginCommandBuffer(cmd, &bi);
    /* the host's pass: this frame's buffers into its images */
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    const VkImageLayout ds = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    upload(cmd, &s->up_color, &s->color, RW, RH, ro);
    upload(cmd, &s->up_depth, &s->depth, RW, RH, ds);
    upload(cmd, &s->up_motion, &s->motion, RW, RH, ro);
    /* upframe */
    const upf_vk_image color = lend(&s->color, RW, RH, ro, ro);
    const upf_vk_image depth = lend(&s->depth, RW, RH, ds, ds);
    const upf_vk_image motion = lend(&s->motion, RW, RH, ro, ro);
    const upf_vk_image out = lend(&s->out, OW, OH, VK_IMAGE_LAYOUT_UNDEFINED,
                                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    const upf_vk_temporal_frame vf = { &color, &depth, &motion, NULL, 0, 0, values };
    if (upf_vk_temporal_record(gpu, cmd, &vf, &out) != UPF_OK)
        return 1;
    /* the host's next pass: the output out */
    const VkBufferImageCopy r = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                  .imageExtent = { OW, OH, 1 } };
    vkCmdCopyImageToBuffer(cmd, s->out.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           s->down.buffer, 1, &r);
    const VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                                 VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &mb, 0, NULL, 0, NULL);
    vkEndCommandBuffer(cmd);
    const VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                              .pCommandBuffers = &cmd };
    if (vkQueueSubmit(h->queue, 1, &si, s->fence) != VK_SUCCESS)
        return 1;
    s->frame = n;
    return 0;
}

int main(void)
{
    upf_context *ctx = upf_context_create(upf_context_params(.log = upf_log_stderr,
                                                             .log_level = UPF_LOG_WARN));
    host h = { 0 };
    int rc = make_host(&h, ctx);
    if (rc) {
        fprintf(stderr, "vk_temporal_host: %s\n", rc == 77 ? "no Vulkan device: skipped"
                                                           : "could not make the device");
        return rc;
    }
    const upf_vk_device lent = { .instance = h.inst, .physical_device = h.pd, .device = h.dev,
                                 .queue_family = h.qf,
                                 .get_instance_proc_addr = vkGetInstanceProcAddr,
                                 .enabled_extensions = h.req.extensions,
                                 .enabled_extension_count = h.req.extension_count,
                                 .enabled_features = &h.req.features };
    upf_vk_temporal *gpu = upf_vk_temporal_create(ctx, upf_vk_temporal_params(
        .device = &lent, .max_render_width = RW, .max_render_height = RH, .output_width = OW,
        .output_height = OH, .frames_in_flight = SLOTS));
    upf_temporal *cpu = upf_temporal_create(ctx, upf_temporal_params(
        .render_width = RW, .render_height = RH, .output_width = OW, .output_height = OH));
    scene *sc = NULL;
    rc = gpu && cpu && scene_create(ctx, "courtyard", 1, &sc) == UPF_OK ? 0 : 1;
    slot slots[SLOTS];
    for (int k = 0; k < SLOTS; k++)
        make_slot(&h, &slots[k]);
    for (int n = 0; n < FRAMES && rc == 0; n++) {
        slot *s = &slots[n % SLOTS];
        rc = check_slot(&h, s); /* frame n - 2: its slot's fence */
        if (rc == 0)
            rc = frame(&h, ctx, sc, cpu, gpu, s, n);
    }
    for (int k = 0; k < SLOTS; k++)
        rc |= check_slot(&h, &slots[(FRAMES + k) % SLOTS]);
    vkDeviceWaitIdle(h.dev);
    for (int k = 0; k < SLOTS; k++)
        free_slot(&h, &slots[k]);
    scene_destroy(&sc);
    upf_temporal_destroy(&cpu);
    upf_vk_temporal_destroy(&gpu);
    vkDestroyCommandPool(h.dev, h.pool, NULL);
    vkDestroyDevice(h.dev, NULL);
    if (h.messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT dm = (PFN_vkDestroyDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(h.inst, "vkDestroyDebugUtilsMessengerEXT");
        if (dm)
            dm(h.inst, h.messenger, NULL);
    }
    vkDestroyInstance(h.inst, NULL);
    upf_context_destroy(&ctx);
    rc |= messages != 0;
    printf("vk_temporal_host: %d frames, %d in flight, %s\n", FRAMES, SLOTS,
           rc ? "FAILED" : "every frame matches the CPU engine");
    return rc;
}
