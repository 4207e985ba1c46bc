/* fsr2_driver.cpp: runs AMD FidelityFX Super Resolution 2 (its public API, ffx_fsr2.h and the
 * Vulkan backend ffx_fsr2_vk.h; built from AMD's sources outside this repository, see
 * docs/QUALITY.md "AMD FSR 2 beside the temporal engine") on one sequence that
 * `bench_temporal --dump-inputs` wrote, and writes the 8-bit sRGB PNGs that
 * `bench_temporal --peer NAME=DIR` scores. Not built by CMake, not run by CI.
 *
 *   fsr2_driver IN_SEQ_DIR OUT_SEQ_DIR [--jitter-sign S] [--motion-sign S] [--ldr]
 *                                      [--sharpness K] [--frames N]
 *
 * Reads per frame NNNN.color.pfm (linear RGB), NNNN.depth.pfm (reversed, finite far),
 * NNNN.motion.pfm (previous minus current position, unjittered, render pixels, y down) and
 * NNNN.json (jitter, near, far, fov_y, frame_time_ms, reset, output size): the conventions
 * of bench_temporal's dump_inputs. What FSR 2 is told (its README, ffx_fsr2.h):
 *  - jitterOffset = S * (jx, jy) in render pixels, S = --jitter-sign (default -1): ours is where
 *    a pixel sampled, FSR 2's is how far the projection moved the image, the negation;
 *  - motionVectorScale = M * (1, 1), M = --motion-sign (default +1): FSR 2 adds the vector,
 *    times the scale, in render pixels, to a pixel's position to find it in the previous frame;
 *  - FFX_FSR2_ENABLE_DEPTH_INVERTED (depth 1 at near), not _INFINITE (a finite far plane),
 *    cameraNear = far, cameraFar = near (FSR 2's order for inverted depth), fov_y in radians;
 *  - FFX_FSR2_ENABLE_HIGH_DYNAMIC_RANGE (the colour is linear light that can exceed 1; --ldr
 *    leaves it off), no auto exposure, no exposure texture (FSR 2 then uses 1), preExposure 1;
 *  - no reactive or transparency masks, sharpening off (--sharpness K > 0 turns RCAS on);
 *  - reset on the sidecar's `reset` (frame 0 and camera cuts), frameTimeDelta in ms.
 * The output (RGBA32F, linear) is clamped to [0, 1], sRGB-encoded and rounded to 8 bits. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <spng.h>
#include <vulkan/vulkan.h>

#include "ffx_fsr2.h"
#include "vk/ffx_fsr2_vk.h"

static void fail(const char *fmt, const char *a = "", const char *b = "")
{
    fprintf(stderr, "fsr2_driver: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    exit(1);
}

#define VK(call)                                                                                 \
    do {                                                                                         \
        VkResult r_ = (call);                                                                    \
        if (r_ != VK_SUCCESS)                                                                    \
            fail("%s failed (VkResult %s)", #call, std::to_string((int)r_).c_str());            \
    } while (0)

/* ---- inputs ---------------------------------------------------------------------------- */

/* A PFM ("PF" RGB or "Pf" grey, either byte order, rows bottom to top) as top-down floats,
 * `channels` per pixel. */
static std::vector<float> read_pfm(const std::string &fn, int want_channels, int &w, int &h)
{
    FILE *f = fopen(fn.c_str(), "rb");
    if (!f)
        fail("cannot open %s", fn.c_str());
    char kind[3] = { 0 };
    double scale = 0;
    if (fscanf(f, "%2s %d %d %lf", kind, &w, &h, &scale) != 4 || fgetc(f) == EOF)
        fail("%s: not a PFM", fn.c_str());
    int channels = !strcmp(kind, "PF") ? 3 : !strcmp(kind, "Pf") ? 1 : 0;
    if (channels != want_channels || w <= 0 || h <= 0 || scale >= 0)
        fail("%s: expected a little-endian PFM with the channels of its kind", fn.c_str());
    std::vector<float> file((size_t)w * h * channels), out(file.size());
    if (fread(file.data(), sizeof(float), file.size(), f) != file.size())
        fail("%s: truncated", fn.c_str());
    fclose(f);
    const size_t row = (size_t)w * channels;
    for (int y = 0; y < h; y++)
        memcpy(&out[(size_t)y * row], &file[(size_t)(h - 1 - y) * row], row * sizeof(float));
    return out;
}

static std::string read_text(const std::string &fn)
{
    FILE *f = fopen(fn.c_str(), "rb");
    if (!f)
        fail("cannot open %s", fn.c_str());
    std::string s;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        s.append(buf, n);
    fclose(f);
    return s;
}

/* The number after "key": in the sidecar (its k-th element for an array), or fail. */
static double json_number(const std::string &json, const char *key, int k = 0)
{
    std::string pat = std::string("\"") + key + "\":";
    size_t p = json.find(pat);
    if (p == std::string::npos)
        fail("sidecar: no \"%s\"", key);
    p += pat.size();
    while (p < json.size() && (json[p] == ' ' || json[p] == '['))
        p++;
    for (int i = 0; i < k; i++)
        p = json.find(',', p) + 1;
    return strtod(json.c_str() + p, nullptr);
}

static bool json_true(const std::string &json, const char *key)
{
    std::string pat = std::string("\"") + key + "\": true";
    return json.find(pat) != std::string::npos;
}

/* ---- Vulkan ------------------------------------------------------------------------------ */

struct Gpu {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
};

struct Image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory memory;
    VkFormat format;
    int w, h;
};

struct Buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;
    size_t size;
};

static uint32_t memory_type(const Gpu &g, uint32_t bits, VkMemoryPropertyFlags want)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(g.phys, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            return i;
    fail("no memory type");
    return 0;
}

static Gpu gpu_create()
{
    Gpu g = {};
    VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO };
    app.pApplicationName = "fsr2_driver";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
    ici.pApplicationInfo = &app;
    VK(vkCreateInstance(&ici, nullptr, &g.instance));
    uint32_t n = 1;
    VkResult r = vkEnumeratePhysicalDevices(g.instance, &n, &g.phys);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
        fail("no Vulkan device");
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(g.phys, &props);
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(g.phys, &nf, nullptr);
    std::vector<VkQueueFamilyProperties> fams(nf);
    vkGetPhysicalDeviceQueueFamilyProperties(g.phys, &nf, fams.data());
    g.family = UINT32_MAX;
    for (uint32_t i = 0; i < nf && g.family == UINT32_MAX; i++)
        if (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            g.family = i;
    if (g.family == UINT32_MAX)
        fail("no compute queue");
    /* what FSR 2's backend may use: fp16 arithmetic when the device has it (it picks its FP16
     * shader permutations then), storage images written without a format (its output) */
    const VkStructureType v12 = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    VkPhysicalDeviceVulkan12Features f12 = { v12 };
    VkPhysicalDeviceFeatures2 f2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
    f2.pNext = &f12;
    vkGetPhysicalDeviceFeatures2(g.phys, &f2);
    VkPhysicalDeviceVulkan12Features e12 = { v12 };
    e12.shaderFloat16 = f12.shaderFloat16;
    VkPhysicalDeviceFeatures2 e2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
    e2.pNext = &e12;
    e2.features.shaderStorageImageWriteWithoutFormat =
        f2.features.shaderStorageImageWriteWithoutFormat;
    e2.features.shaderInt16 = f2.features.shaderInt16;
    float prio = 1;
    VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
    qci.queueFamilyIndex = g.family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
    dci.pNext = &e2;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    VK(vkCreateDevice(g.phys, &dci, nullptr, &g.device));
    vkGetDeviceQueue(g.device, g.family, 0, &g.queue);
    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = g.family;
    VK(vkCreateCommandPool(g.device, &pci, nullptr, &g.pool));
    VkCommandBufferAllocateInfo cai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    cai.commandPool = g.pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VK(vkAllocateCommandBuffers(g.device, &cai, &g.cmd));
    VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    VK(vkCreateFence(g.device, &fci, nullptr, &g.fence));
    fprintf(stderr, "fsr2_driver: %s, fp16 %s\n", props.deviceName,
            f12.shaderFloat16 ? "yes" : "no");
    return g;
}

static Image image_create(const Gpu &g, int w, int h, VkFormat format, VkImageUsageFlags usage)
{
    Image im = {};
    im.format = format;
    im.w = w, im.h = h;
    VkImageCreateInfo ici = { VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = format;
    ici.extent = { (uint32_t)w, (uint32_t)h, 1 };
    ici.mipLevels = 1;
    ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    ici.tiling = VK_IMAGE_TILING_OPTIMAL;
    ici.usage = usage;
    ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VK(vkCreateImage(g.device, &ici, nullptr, &im.image));
    VkMemoryRequirements mr;
    vkGetImageMemoryRequirements(g.device, im.image, &mr);
    VkMemoryAllocateInfo mai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
    mai.allocationSize = mr.size;
    mai.memoryTypeIndex = memory_type(g, mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK(vkAllocateMemory(g.device, &mai, nullptr, &im.memory));
    VK(vkBindImageMemory(g.device, im.image, im.memory, 0));
    VkImageViewCreateInfo vci = { VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
    vci.image = im.image;
    vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vci.format = format;
    vci.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
    VK(vkCreateImageView(g.device, &vci, nullptr, &im.view));
    return im;
}

static Buffer buffer_create(const Gpu &g, size_t size)
{
    Buffer b = {};
    b.size = size;
    VkBufferCreateInfo bci = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VK(vkCreateBuffer(g.device, &bci, nullptr, &b.buffer));
    VkMemoryRequirements mr;
    vkGetBufferMemoryRequirements(g.device, b.buffer, &mr);
    VkMemoryAllocateInfo mai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
    mai.allocationSize = mr.size;
    mai.memoryTypeIndex = memory_type(g, mr.memoryTypeBits,
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK(vkAllocateMemory(g.device, &mai, nullptr, &b.memory));
    VK(vkBindBufferMemory(g.device, b.buffer, b.memory, 0));
    VK(vkMapMemory(g.device, b.memory, 0, size, 0, &b.map));
    return b;
}

static void barrier(VkCommandBuffer cmd, const Image &im, VkImageLayout from, VkImageLayout to,
                    VkAccessFlags src, VkAccessFlags dst)
{
    VkImageMemoryBarrier b = { VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
    b.oldLayout = from;
    b.newLayout = to;
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = im.image;
    b.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0, nullptr, 1, &b);
}

static void copy_buffer_image(VkCommandBuffer cmd, const Buffer &b, size_t offset,
                              const Image &im, bool to_image)
{
    VkBufferImageCopy c = {};
    c.bufferOffset = offset;
    c.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 };
    c.imageExtent = { (uint32_t)im.w, (uint32_t)im.h, 1 };
    if (to_image)
        vkCmdCopyBufferToImage(cmd, b.buffer, im.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                               &c);
    else
        vkCmdCopyImageToBuffer(cmd, im.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, b.buffer, 1,
                               &c);
}

static void submit_and_wait(const Gpu &g)
{
    VK(vkEndCommandBuffer(g.cmd));
    VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
    si.commandBufferCount = 1;
    si.pCommandBuffers = &g.cmd;
    VK(vkQueueSubmit(g.queue, 1, &si, g.fence));
    VK(vkWaitForFences(g.device, 1, &g.fence, VK_TRUE, UINT64_MAX));
    VK(vkResetFences(g.device, 1, &g.fence));
}

/* ---- output ------------------------------------------------------------------------------ */

static uint8_t srgb8(float v)
{
    double x = v > 0 ? (v < 1 ? v : 1) : 0; /* NaN -> 0 */
    double e = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055;
    return (uint8_t)lround(e * 255.0);
}

static void write_png(const std::string &fn, const float *rgba, int w, int h)
{
    std::vector<uint8_t> px((size_t)w * h * 3);
    for (size_t i = 0; i < (size_t)w * h; i++)
        for (int c = 0; c < 3; c++)
            px[3 * i + c] = srgb8(rgba[4 * i + c]);
    FILE *f = fopen(fn.c_str(), "wb");
    if (!f)
        fail("cannot write %s", fn.c_str());
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_png_file(ctx, f);
    spng_ihdr ihdr = {};
    ihdr.width = (uint32_t)w;
    ihdr.height = (uint32_t)h;
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
    spng_set_ihdr(ctx, &ihdr);
    int r = spng_encode_image(ctx, px.data(), px.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    spng_ctx_free(ctx);
    if (r || fclose(f))
        fail("cannot write %s (%s)", fn.c_str(), spng_strerror(r));
}

/* ---- FSR 2 --------------------------------------------------------------------------------- */

static void on_message(FfxFsr2MsgType type, const wchar_t *message)
{
    fprintf(stderr, "fsr2_driver: FSR 2 %s: %ls\n",
            type == FFX_FSR2_MESSAGE_TYPE_ERROR ? "error" : "warning", message);
}

struct Options {
    double jitter_sign = -1, motion_sign = 1, sharpness = 0;
    bool hdr = true;
    int frames = 1 << 20;
};

static std::string frame_name(const std::string &dir, int n, const char *tail)
{
    char buf[32];
    snprintf(buf, sizeof buf, "/%04d.", n);
    return dir + buf + tail;
}

static void run(const std::string &in, const std::string &out, const Options &o)
{
    const std::string json0 = read_text(frame_name(in, 0, "json"));
    const int w = (int)json_number(json0, "width"), h = (int)json_number(json0, "height");
    const int W = (int)json_number(json0, "output_width");
    const int H = (int)json_number(json0, "output_height");
    if (json0.find("\"depth\": \"reversed\"") == std::string::npos ||
        json_true(json0, "depth_far_infinite"))
        fail("%s: expected reversed depth with a finite far plane", in.c_str());
    Gpu g = gpu_create();
    const VkImageUsageFlags in_use = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    Image color = image_create(g, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, in_use);
    Image depth = image_create(g, w, h, VK_FORMAT_R32_SFLOAT, in_use);
    Image motion = image_create(g, w, h, VK_FORMAT_R32G32_SFLOAT, in_use);
    Image output = image_create(g, W, H, VK_FORMAT_R32G32B32A32_SFLOAT,
                                VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    const size_t px = (size_t)w * h;
    Buffer up = buffer_create(g, px * 16 + px * 4 + px * 8);
    Buffer down = buffer_create(g, (size_t)W * H * 16);

    std::vector<uint8_t> scratch(ffxFsr2GetScratchMemorySizeVK(g.phys));
    FfxFsr2ContextDescription cd = {};
    if (ffxFsr2GetInterfaceVK(&cd.callbacks, scratch.data(), scratch.size(), g.phys,
                              vkGetDeviceProcAddr) != FFX_OK)
        fail("ffxFsr2GetInterfaceVK failed");
    cd.device = ffxGetDeviceVK(g.device);
    cd.maxRenderSize = { (uint32_t)w, (uint32_t)h };
    cd.displaySize = { (uint32_t)W, (uint32_t)H };
    cd.flags = FFX_FSR2_ENABLE_DEPTH_INVERTED | FFX_FSR2_ENABLE_DEBUG_CHECKING |
               (o.hdr ? FFX_FSR2_ENABLE_HIGH_DYNAMIC_RANGE : 0);
    cd.fpMessage = on_message;
    FfxFsr2Context fsr;
    FfxErrorCode err = ffxFsr2ContextCreate(&fsr, &cd);
    if (err != FFX_OK)
        fail("ffxFsr2ContextCreate failed (FfxErrorCode %s)", std::to_string((int)err).c_str());

    for (int n = 0; n < o.frames; n++) {
        const std::string jf = frame_name(in, n, "json");
        FILE *probe = fopen(jf.c_str(), "rb");
        if (!probe)
            break;
        fclose(probe);
        const std::string json = read_text(jf);
        int cw, ch, dw, dh, mw, mh;
        std::vector<float> c3 = read_pfm(frame_name(in, n, "color.pfm"), 3, cw, ch);
        std::vector<float> d1 = read_pfm(frame_name(in, n, "depth.pfm"), 1, dw, dh);
        std::vector<float> m3 = read_pfm(frame_name(in, n, "motion.pfm"), 3, mw, mh);
        if (cw != w || ch != h || dw != w || dh != h || mw != w || mh != h)
            fail("%s: frame %s is not of the render size of frame 0", in.c_str(), jf.c_str());
        float *dst = (float *)up.map;
        for (size_t i = 0; i < px; i++) {
            for (int c = 0; c < 3; c++)
                dst[4 * i + c] = c3[3 * i + c];
            dst[4 * i + 3] = 1;
        }
        memcpy(dst + 4 * px, d1.data(), px * 4);
        float *mv = dst + 5 * px;
        for (size_t i = 0; i < px; i++)
            mv[2 * i] = m3[3 * i], mv[2 * i + 1] = m3[3 * i + 1];

        VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
        VK(vkBeginCommandBuffer(g.cmd, &bi));
        const Image *ins[3] = { &color, &depth, &motion };
        const size_t offs[3] = { 0, px * 16, px * 20 };
        for (int k = 0; k < 3; k++) {
            barrier(g.cmd, *ins[k], VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                    0, VK_ACCESS_TRANSFER_WRITE_BIT);
            copy_buffer_image(g.cmd, up, offs[k], *ins[k], true);
            barrier(g.cmd, *ins[k], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                    VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                    VK_ACCESS_SHADER_READ_BIT);
        }
        barrier(g.cmd, output, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0,
                VK_ACCESS_SHADER_WRITE_BIT);

        FfxFsr2DispatchDescription dd = {};
        dd.commandList = ffxGetCommandListVK(g.cmd);
        dd.color = ffxGetTextureResourceVK(&fsr, color.image, color.view, w, h, color.format,
                                           L"color", FFX_RESOURCE_STATE_COMPUTE_READ);
        dd.depth = ffxGetTextureResourceVK(&fsr, depth.image, depth.view, w, h, depth.format,
                                           L"depth", FFX_RESOURCE_STATE_COMPUTE_READ);
        dd.motionVectors = ffxGetTextureResourceVK(&fsr, motion.image, motion.view, w, h,
                                                   motion.format, L"motion",
                                                   FFX_RESOURCE_STATE_COMPUTE_READ);
        dd.output = ffxGetTextureResourceVK(&fsr, output.image, output.view, W, H,
                                            output.format, L"output",
                                            FFX_RESOURCE_STATE_UNORDERED_ACCESS);
        dd.jitterOffset.x = (float)(o.jitter_sign * json_number(json, "jitter", 0));
        dd.jitterOffset.y = (float)(o.jitter_sign * json_number(json, "jitter", 1));
        dd.motionVectorScale.x = (float)o.motion_sign;
        dd.motionVectorScale.y = (float)o.motion_sign;
        dd.renderSize = { (uint32_t)w, (uint32_t)h };
        dd.enableSharpening = o.sharpness > 0;
        dd.sharpness = (float)o.sharpness;
        dd.frameTimeDelta = (float)json_number(json, "frame_time_ms");
        dd.preExposure = 1.0f;
        dd.reset = json_true(json, "reset");
        dd.cameraNear = (float)json_number(json, "far"); /* inverted depth: far first */
        dd.cameraFar = (float)json_number(json, "near");
        dd.cameraFovAngleVertical = (float)json_number(json, "fov_y");
        dd.viewSpaceToMetersFactor = 1.0f;
        err = ffxFsr2ContextDispatch(&fsr, &dd);
        if (err != FFX_OK)
            fail("ffxFsr2ContextDispatch failed on %s (FfxErrorCode %s)", jf.c_str(),
                 std::to_string((int)err).c_str());

        barrier(g.cmd, output, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        copy_buffer_image(g.cmd, down, 0, output, false);
        submit_and_wait(g);
        write_png(frame_name(out, n, "png"), (const float *)down.map, W, H);
    }
    vkDeviceWaitIdle(g.device);
    ffxFsr2ContextDestroy(&fsr);
    /* the process ends here: the device, images and instance go with it */
}

int main(int argc, char **argv)
{
    if (argc < 3)
        fail("usage: fsr2_driver IN_SEQ_DIR OUT_SEQ_DIR [--jitter-sign S] [--motion-sign S] "
             "[--ldr] [--sharpness K] [--frames N]");
    Options o;
    for (int i = 3; i < argc; i++) {
        const std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--ldr")
            o.hdr = false;
        else if (a == "--jitter-sign" && v)
            o.jitter_sign = atof(argv[++i]);
        else if (a == "--motion-sign" && v)
            o.motion_sign = atof(argv[++i]);
        else if (a == "--sharpness" && v)
            o.sharpness = atof(argv[++i]);
        else if (a == "--frames" && v)
            o.frames = atoi(argv[++i]);
        else
            fail("unknown option %s", a.c_str());
    }
    run(argv[1], argv[2], o);
    return 0;
}
