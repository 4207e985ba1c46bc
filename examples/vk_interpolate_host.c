/* vk_interpolate_host.c: a Vulkan host that embeds upframe's frame generation on the GPU
 * (docs/VULKAN.md, "Frame generation"), as a game or a video player would.
 *
 *   vk_interpolate_host SEQ_DIR
 *
 * SEQ_DIR is a sequence that the scene renderer wrote (`upframe render courtyard --size 96x54
 * --frames 6 --path turn -o SEQ_DIR`: NNNN.color.pfm linear colour, NNNN.depth.pfm its depth,
 * NNNN.motion.pfm its motion vectors, NNNN.json saying the depth's convention). The host makes
 * its own instance and device (enabling what upframe asks for) and records per frame n >= 1
 * ONE command buffer: a pass of its own (upload frame n: colour RGBA32F, depth into a
 * D32_SFLOAT depth image left in DEPTH_STENCIL_ATTACHMENT_OPTIMAL as after a depth pass,
 * motion RG32F), upframe's two made frames between frames n - 1 and n (factor 3: phases 1/3
 * and 2/3) into two output images, and another pass of its own (copy them out). Two frames are
 * in flight: two sets of depth, motion and output images, staging buffers, command buffers
 * and fences, and a ring of three colour images (frame n's record reads n - 1's and n's; frame
 * n + 1 overwrites n - 2's); frame n waits only for frame n - 2. Every made frame is checked
 * against the CPU engine (upf_interpolate_run_factor) on the same pair: mean absolute
 * difference at most 0.001 on [0, 1]. Exit 0 when all hold, 77 when there is no Vulkan device,
 * 1 otherwise. With the Khronos validation layer present it runs validated (synchronization
 * validation on) and any message fails it.
 *
 * Build: cc vk_interpolate_host.c $(pkg-config --cflags --libs upframe) -lvulkan -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upframe.h>
#include <upframe_vk.h>

#define FACTOR 3
#define MADE (FACTOR - 1)
#define SLOTS 2
#define RING (SLOTS + 1)
#define FRAMES_MAX 64

static int messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d,
                                                 void *priv)
{
    (void)sev, (void)type, (void)priv;
    fprintf(stderr, "vk_interpolate_host: validation: %s\n", d->pMessage);
    messages++;
    return VK_FALSE;
}

/* ---- the sequence: PFM files (rows bottom to top, little-endian floats) ------------------ */

typedef struct frame_data {
    float *color;               /* RGBA, rows top to bottom */
    float *depth, *motion;      /* R, RG */
} frame_data;

/* Reads SEQ_DIR/NNNN.<what>.pfm into `out` (channels floats a pixel, rows top to bottom): the
 * file's 1 (Pf) or 3 (PF) channels, alpha 1 for a fourth. 0 on success. */
static int read_pfm(const char *dir, int n, const char *what, int channels, int *w, int *h,
                    float **out)
{
    char path[4096], kind[3] = { 0 };
    snprintf(path, sizeof path, "%s/%04d.%s.pfm", dir, n, what);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1;
    int fw = 0, fh = 0;
    double scale = 0;
    int ok = fscanf(f, "%2s %d %d %lf", kind, &fw, &fh, &scale) == 4 && fgetc(f) != EOF &&
             fw > 0 && fh > 0 && fw <= 4096 && fh <= 4096 && scale < 0 &&
             (!*w || (fw == *w && fh == *h));
    const int fc = kind[1] == 'F' ? 3 : 1;
    float *row = ok ? malloc(sizeof(float) * (size_t)fw * fc) : NULL;
    *out = ok ? malloc(sizeof(float) * (size_t)fw * fh * channels) : NULL;
    for (int y = fh - 1; ok && row && *out && y >= 0; y--) {
        ok = fread(row, sizeof(float) * fc, (size_t)fw, f) == (size_t)fw;
        for (int x = 0; ok && x < fw; x++)
            for (int c = 0; c < channels; c++)
                (*out)[((size_t)y * fw + x) * channels + c] = c < fc ? row[x * fc + c]
                                                                     : c == 3 ? 1.0f : 0.0f;
    }
    free(row);
    fclose(f);
    if (!ok || !*out) {
        fprintf(stderr, "vk_interpolate_host: %s: not a %dx%d PFM\n", path, *w, *h);
        free(*out);
        *out = NULL;
        return 1;
    }
    *w = fw, *h = fh;
    return 0;
}

/* The depth convention the sidecar states ("depth": "reversed" or "forward"). */
static int depth_reversed(const char *dir)
{
    char path[4096], text[8192] = { 0 };
    snprintf(path, sizeof path, "%s/0000.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return strstr(text, "\"depth\": \"reversed\"") != NULL;
}

/* Frames 0 .. *count - 1 of the sequence (at least 2). 0 on success. */
static int read_sequence(const char *dir, frame_data *fr, int *count, int *w, int *h)
{
    *count = 0;
    for (int n = 0; n < FRAMES_MAX; n++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%04d.color.pfm", dir, n);
        FILE *f = fopen(path, "rb");
        if (!f)
            break;
        fclose(f);
        if (read_pfm(dir, n, "color", 4, w, h, &fr[n].color) ||
            read_pfm(dir, n, "depth", 1, w, h, &fr[n].depth) ||
            read_pfm(dir, n, "motion", 2, w, h, &fr[n].motion))
            return 1;
        *count = n + 1;
    }
    if (*count < 2)
        fprintf(stderr, "vk_interpolate_host: %s: %d frames; expected a sequence of at least 2 "
                "(upframe render ... -o %s)\n", dir, *count, dir);
    return *count < 2;
}

/* ---- the host's Vulkan ------------------------------------------------------------------ */

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
    image depth, motion, out[MADE];
    buffer up_color, up_depth, up_motion, down[MADE];
    VkCommandBuffer cmd;
    VkFence fence;
    int frame;                  /* the frame whose made frames it holds, -1 none */
    float *cpu[MADE];           /* the CPU engine's made frames of that pair */
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
                                    .pApplicationName = "vk_interpolate_host",
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

static void make_slot(const host *h, slot *s, int w, int hh)
{
    const VkImageUsageFlags in = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    const size_t px = (size_t)w * hh;
    s->depth = make_image(h, w, hh, VK_FORMAT_D32_SFLOAT,
                          in | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                          VK_IMAGE_ASPECT_DEPTH_BIT);
    s->motion = make_image(h, w, hh, VK_FORMAT_R32G32_SFLOAT, in, VK_IMAGE_ASPECT_COLOR_BIT);
    s->up_color = make_buffer(h, sizeof(float) * px * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    s->up_depth = make_buffer(h, sizeof(float) * px, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    s->up_motion = make_buffer(h, sizeof(float) * px * 2, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    for (int k = 0; k < MADE; k++) {
        s->out[k] = make_image(h, w, hh, VK_FORMAT_R32G32B32A32_SFLOAT,
                               VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                               VK_IMAGE_ASPECT_COLOR_BIT);
        s->down[k] = make_buffer(h, sizeof(float) * px * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
        s->cpu[k] = malloc(sizeof(float) * px * 4);
    }
    const VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL,
                                             h->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1 };
    vkAllocateCommandBuffers(h->dev, &ai, &s->cmd);
    const VkFenceCreateInfo fi = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };
    vkCreateFence(h->dev, &fi, NULL, &s->fence);
    s->frame = -1;
}

static void free_slot(const host *h, slot *s)
{
    free_image(h, &s->depth), free_image(h, &s->motion);
    free_buffer(h, &s->up_color), free_buffer(h, &s->up_depth), free_buffer(h, &s->up_motion);
    for (int k = 0; k < MADE; k++) {
        free_image(h, &s->out[k]);
        free_buffer(h, &s->down[k]);
        free(s->cpu[k]);
    }
    vkDestroyFence(h->dev, s->fence, NULL);
}

/* Waits for the slot's pair and compares its made frames with the CPU engine's: 0 when they
 * match. */
static int check_slot(const host *h, slot *s, int w, int hh)
{
    if (s->frame < 0)
        return 0;
    vkWaitForFences(h->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
    vkResetFences(h->dev, 1, &s->fence);
    int rc = 0;
    for (int k = 0; k < MADE; k++) {
        const float *g = s->down[k].map;
        double sum = 0.0, big = 0.0;
        for (int i = 0; i < w * hh; i++)
            for (int c = 0; c < 3; c++) {
                double e = fabs((double)g[4 * i + c] - s->cpu[k][4 * i + c]);
                e = e == e ? e : 1e9;
                sum += e;
                big = e > big ? e : big;
            }
        const double mean = sum / ((double)w * hh * 3);
        printf("vk_interpolate_host: frames %d-%d, phase %d/%d: mean abs difference %.3g, "
               "largest %.3g\n", s->frame - 1, s->frame, k + 1, FACTOR, mean, big);
        rc |= !(mean <= 0.001);
    }
    s->frame = -1;
    return rc;
}

/* Everything the frames share. */
typedef struct run {
    const host *h;
    upf_interpolate *cpu;
    upf_vk_interpolate *gpu;
    const frame_data *fr;
    image color[RING];          /* frame n's colour in color[n % RING] */
    int w, hh;
} run;

/* The host's pass of frame n: its colour, depth and motion into their images. */
static void host_upload(const run *ru, slot *s, int n)
{
    const size_t px = (size_t)ru->w * ru->hh;
    memcpy(s->up_color.map, ru->fr[n].color, sizeof(float) * px * 4);
    memcpy(s->up_depth.map, ru->fr[n].depth, sizeof(float) * px);
    memcpy(s->up_motion.map, ru->fr[n].motion, sizeof(float) * px * 2);
    upload(s->cmd, &s->up_color, &ru->color[n % RING], ru->w, ru->hh,
           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    upload(s->cmd, &s->up_depth, &s->depth, ru->w, ru->hh,
           VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
    upload(s->cmd, &s->up_motion, &s->motion, ru->w, ru->hh,
           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
}

/* The CPU engine's made frames of pair (n - 1, n), for the check. */
static int cpu_frames(const run *ru, slot *s, int n)
{
    const int w = ru->w, hh = ru->hh;
    const upf_image a = { ru->fr[n - 1].color, w, hh, 0, UPF_FORMAT_RGBA32F };
    const upf_image b = { ru->fr[n].color, w, hh, 0, UPF_FORMAT_RGBA32F };
    const upf_image d = { ru->fr[n].depth, w, hh, 0, UPF_FORMAT_R32F };
    const upf_image m = { ru->fr[n].motion, w, hh, 0, UPF_FORMAT_RG32F };
    upf_image o[MADE];
    const upf_image *op[MADE];
    for (int k = 0; k < MADE; k++) {
        o[k] = (upf_image){ s->cpu[k], w, hh, 0, UPF_FORMAT_RGBA32F };
        op[k] = &o[k];
    }
    const upf_interpolate_frames f = { .prev_color = &a, .color = &b, .motion = &m,
                                       .depth = &d, .prev_id = n - 1, .id = n };
    return upf_interpolate_run_factor(ru->cpu, &f, FACTOR, op) != UPF_OK;
}

/* Frame n into slot s: the host's pass, upframe's two made frames, the host's next pass. */
static int frame(const run *ru, slot *s, int n)
{
    if (cpu_frames(ru, s, n))
        return 1;
    VkCommandBuffer cmd = s->cmd;
    vkResetCommandBuffer(cmd, 0);
    const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    vkBeginCommandBuffer(cmd, &bi);
    host_upload(ru, s, n);
    /* upframe: frame n - 1's colour is where frame n - 1's pass left it */
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    const VkImageLayout ds = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    const int w = ru->w, hh = ru->hh;
    const upf_vk_image prev = lend(&ru->color[(n - 1) % RING], w, hh, ro, ro);
    const upf_vk_image color = lend(&ru->color[n % RING], w, hh, ro, ro);
    const upf_vk_image depth = lend(&s->depth, w, hh, ds, ds);
    const upf_vk_image motion = lend(&s->motion, w, hh, ro, ro);
    upf_vk_image out[MADE];
    const upf_vk_image *outp[MADE];
    double phases[MADE];
    for (int k = 0; k < MADE; k++) {
        out[k] = lend(&s->out[k], w, hh, VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        outp[k] = &out[k];
        phases[k] = (double)(k + 1) / FACTOR;
    }
    const upf_vk_interpolate_frame vf = { .prev_color = &prev, .color = &color,
                                          .motion = &motion, .depth = &depth,
                                          .prev_id = n - 1, .id = n };
    if (upf_vk_interpolate_record(ru->gpu, cmd, &vf, phases, MADE, outp, MADE) != UPF_OK)
        return 1;
    /* the host's next pass: the made frames out (a presenter would blit them instead) */
    const VkBufferImageCopy r = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                  .imageExtent = { (uint32_t)w, (uint32_t)hh, 1 } };
    for (int k = 0; k < MADE; k++)
        vkCmdCopyImageToBuffer(cmd, s->out[k].image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               s->down[k].buffer, 1, &r);
    const VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                                 VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &mb, 0, NULL, 0, NULL);
    vkEndCommandBuffer(cmd);
    const VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                              .pCommandBuffers = &cmd };
    if (vkQueueSubmit(ru->h->queue, 1, &si, s->fence) != VK_SUCCESS)
        return 1;
    s->frame = n;
    return 0;
}

/* Frame 0: the host's pass alone (nothing to make yet); its colour waits in the ring. */
static int first_frame(const run *ru, slot *s)
{
    VkCommandBuffer cmd = s->cmd;
    const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    vkBeginCommandBuffer(cmd, &bi);
    host_upload(ru, s, 0);
    vkEndCommandBuffer(cmd);
    const VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                              .pCommandBuffers = &cmd };
    if (vkQueueSubmit(ru->h->queue, 1, &si, s->fence) != VK_SUCCESS)
        return 1;
    vkWaitForFences(ru->h->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
    vkResetFences(ru->h->dev, 1, &s->fence);
    return 0;
}

static void destroy_host(host *h)
{
    vkDestroyCommandPool(h->dev, h->pool, NULL);
    vkDestroyDevice(h->dev, NULL);
    if (h->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT dm = (PFN_vkDestroyDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(h->inst, "vkDestroyDebugUtilsMessengerEXT");
        if (dm)
            dm(h->inst, h->messenger, NULL);
    }
    vkDestroyInstance(h->inst, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: vk_interpolate_host SEQ_DIR (a sequence `upframe render` "
                "wrote)\n");
        return 1;
    }
    static frame_data fr[FRAMES_MAX];
    int count = 0, w = 0, hh = 0;
    int rc = read_sequence(argv[1], fr, &count, &w, &hh);
    upf_context *ctx = upf_context_create(upf_context_params(.log = upf_log_stderr,
                                                             .log_level = UPF_LOG_WARN));
    host h = { 0 };
    if (rc == 0 && (rc = make_host(&h, ctx)) != 0)
        fprintf(stderr, "vk_interpolate_host: %s\n", rc == 77 ? "no Vulkan device: skipped"
                                                               : "could not make the device");
    const unsigned flags = depth_reversed(argv[1]) ? UPF_INTERPOLATE_DEPTH_REVERSED : 0;
    run ru = { .h = &h, .fr = fr, .w = w, .hh = hh };
    slot slots[SLOTS];
    if (rc == 0) {
        const upf_vk_device lent = { .instance = h.inst, .physical_device = h.pd,
                                     .device = h.dev, .queue_family = h.qf,
                                     .get_instance_proc_addr = vkGetInstanceProcAddr,
                                     .enabled_extensions = h.req.extensions,
                                     .enabled_extension_count = h.req.extension_count,
                                     .enabled_features = &h.req.features };
        ru.gpu = upf_vk_interpolate_create(ctx, upf_vk_interpolate_params(
            .device = &lent, .width = w, .height = hh, .max_factor = FACTOR,
            .frames_in_flight = SLOTS, .flags = flags));
        ru.cpu = upf_interpolate_create(ctx, upf_interpolate_params(
            .width = w, .height = hh, .motion = UPF_INTERPOLATE_MOTION_VECTORS, .flags = flags));
        rc = ru.gpu && ru.cpu ? 0 : 1;
        for (int k = 0; k < RING; k++)
            ru.color[k] = make_image(&h, w, hh, VK_FORMAT_R32G32B32A32_SFLOAT,
                                     VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                     VK_IMAGE_ASPECT_COLOR_BIT);
        for (int k = 0; k < SLOTS; k++)
            make_slot(&h, &slots[k], w, hh);
        if (rc == 0)
            rc = first_frame(&ru, &slots[0]);
        for (int n = 1; n < count && rc == 0; n++) {
            slot *s = &slots[n % SLOTS];
            rc = check_slot(&h, s, w, hh); /* frame n - 2: its slot's fence */
            if (rc == 0)
                rc = frame(&ru, s, n);
        }
        for (int k = 0; k < SLOTS; k++)
            rc |= check_slot(&h, &slots[k], w, hh);
        vkDeviceWaitIdle(h.dev);
        for (int k = 0; k < SLOTS; k++)
            free_slot(&h, &slots[k]);
        for (int k = 0; k < RING; k++)
            free_image(&h, &ru.color[k]);
        upf_interpolate_destroy(&ru.cpu);
        upf_vk_interpolate_destroy(&ru.gpu);
        destroy_host(&h);
        rc |= messages != 0;
        printf("vk_interpolate_host: %d pairs of %dx%d, %d made frames each, %d in flight, "
               "%s\n", count - 1, w, hh, MADE, SLOTS,
               rc ? "FAILED" : "every made frame matches the CPU engine");
    }
    for (int n = 0; n < FRAMES_MAX; n++)
        free(fr[n].color), free(fr[n].depth), free(fr[n].motion);
    upf_context_destroy(&ctx);
    return rc;
}
