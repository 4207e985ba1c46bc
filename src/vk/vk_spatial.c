/* vk_spatial.c: the spatial engine on the GPU (upf_vk_spatial_*; docs/VULKAN.md). The same
 * pass list as the CPU engine (spatial_passes.h): each pass is one compute pipeline of the
 * shader of its file name (src/vk/shaders/spatial/<file>.comp), its descriptor set binds the surfaces
 * its masks name at binding = surface index, its push constants are the pass's constants
 * struct followed by the backend's tail (src/vk/ABI.md).
 *
 * upf_vk_spatial_create makes everything once: one buffer per intermediate surface and table,
 * sized for the largest frame, in one device-memory allocation; the pipelines (the detail
 * pass in the chosen variant); frames_in_flight descriptor sets per pass; a timestamp query
 * pool. upf_vk_spatial_record validates the frame, then records: the barriers in, the tables'
 * upload (the first frame only, by vkCmdUpdateBuffer, since upframe never submits), the range
 * surface's reset, each pass's dispatches with a compute-to-compute barrier after each, and
 * the barriers out to the host's layouts. It allocates nothing: the frame's constants live on
 * the stack, and the only descriptor writes are the two host images into this frame's sets.
 *
 * Reads: the host's source image. Writes: the host's destination image; the engine's buffers. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/color.h"
#include "spatial/reconstruct.h"
#include "spatial/smaa.h"
#include "vk/vk_internal.h"

#define SLOTS_MAX 8
#define STAMPS (UPF__SP_PASS_COUNT + 1)
#define NET_BINDING UPF__SP_COUNT   /* the network weights' binding (src/vk/ABI.md) */
#define TAPS_BINDING (UPF__SP_COUNT + 1) /* compose's taps table (compose_taps.comp) */
#define SRGB8_BINDING (UPF__SP_COUNT + 2) /* convert's 8-bit sRGB tables (convert.comp) */
#define BUFFERS (UPF__SP_COUNT + 3) /* buffer and binding slots: the surfaces, the three above */
#define SRGB8_WORDS (1792 + UPF_SRGB_OF_CODE_COUNT) /* binding 12's words (src/vk/ABI.md) */
#define TAPS_WORDS 12               /* words per taps table entry (compose_taps.glsl) */
#define CON_MAX 64                  /* bytes: the largest constants struct fits */

/* How each pass is dispatched (src/vk/ABI.md, "Dispatch"). */
enum { EXTENT_SOURCE, EXTENT_BLOCKS, EXTENT_TILES, EXTENT_DEST };
typedef struct dispatch_info {
    int extent;
    int per_x, per_y;          /* extent units per workgroup */
    int phases;
} dispatch_info;

static const dispatch_info dispatch[UPF__SP_PASS_COUNT] = {
    [UPF__SP_CONVERT] = { EXTENT_SOURCE, 16, 16, 1 },
    [UPF__SP_EDGES_PASS] = { EXTENT_SOURCE, 16, 16, 1 },
    [UPF__SP_WEIGHTS_PASS] = { EXTENT_SOURCE, 32, 32, 1 },
    [UPF__SP_BLEND] = { EXTENT_SOURCE, 16, 16, 1 },
    [UPF__SP_DETAIL_PASS] = { EXTENT_TILES, 1, 1, 1 },
    [UPF__SP_COMPOSE] = { EXTENT_DEST, 0, 0, 1 }, /* the engine's compose tile */
};

/* compose's tile (its specialisation constants TILE_X, TILE_Y: src/vk/ABI.md, "Dispatch"):
 * 32 x 8, 10576 bytes of shared memory with the sharpen's border (every device offers 16 KiB).
 * On the H200 (compose at 1536x864 -> 2048x1152 / 1280x720 -> 2560x1440 / 1080p -> 4K, the
 * built-in set, once the taps came from a table a frame: docs/PERFORMANCE.md) 32 x 8 took
 * 62.7 / 103.1 / 240.1 us at sharpness 1 against 64.7 / 110.8 / 256.4 for 16 x 16 (46.9 /
 * 74.2 / 170.5 against 46.9 / 74.6 / 174.6 at sharpness 0); 64 x 4, 8 x 32, 32 x 16, 16 x 32
 * and 128 x 2 were slower. A build with UPF_VK_PROBE can try others. */
static const int compose_tile[2] = { 32, 8 };

/* compose by subgroup strips (compose_strips.comp), the form an engine takes where the device
 * has subgroup shuffles in compute shaders and a subgroup of 8 to 128 invocations: STRIP_ROWS
 * output rows a strip (its specialisation constant 1), the strips of STRIP_GROUP invocations'
 * subgroups one above another in a workgroup. On the H100 (docs/PERFORMANCE.md, the calls of
 * 2026-12-06) compose took 31.1 / 54.6 / 114.5 us at 1536x864 -> 2048x1152 / 1280x720 ->
 * 2560x1440 / 1080p -> 4K with the built-in set at sharpness 0, against 40.0 / 55.7 / 123.1
 * for compose.comp's 32 x 8 tiles (at sharpness 1 46.6 / 73.4 / 155.6 against 62.4 / 85.7 /
 * 201.2); 4 or 6 rows in workgroups of 256, 12 in 128 and 16 or 24 in 64 were slower at
 * 1536x864, 8 in 64 the same within 0.5 us. */
enum { STRIP_ROWS = 8, STRIP_GROUP = 128 };

/* The output columns of one strip: as many as keep the footprint of `taps` taps an output
 * within the subgroup (compose_strips.comp's header says why this bound holds). */
static int strip_width(int subgroup, int taps, bool sharpen, int src_width, int dst_width)
{
    const int64_t n = (int64_t)(subgroup - taps) * dst_width / src_width + 1;
    /* With the sharpen the first and last columns are only the neighbours of the others: at
     * least one column is left, the ratio being at least 1 (upf__reconstruct_check_sizes)
     * and the subgroup at least 8, so n >= 3. */
    return (n < subgroup ? (int)n : subgroup) - (sharpen ? 2 : 0);
}

/* compose.comp's shared memory at tile tx x ty; the apron (a one-pixel border) only when it
 * sharpens. */
static uint32_t compose_shared_bytes(int tx, int ty, bool sharpen)
{
    const int ax = tx + (sharpen ? 2 : 0), ay = ty + (sharpen ? 2 : 0);
    return (uint32_t)(16 * ay * (ax + 6) + 4 * ax * ay + 64 * (ax + ay));
}

static const char *const detail_shader[UPF_VK_VARIANT_COUNT] = {
    "detail", "detail", "detail_fp16", "detail_coopmat"
};

struct upf_vk_spatial {
    upf_context *ctx;
    upf_vk_device dev;
    upf__vk_funcs vk;
    upf__vk_caps caps;
    upf_vk_variant variant;
    upf_models *own_models;
    upf__spatial_config cfg;                 /* at the largest sizes */
    upf__detail_map map;                     /* its geometry at the largest sizes */
    uint8_t con[UPF__SP_PASS_COUNT][CON_MAX]; /* constants at the largest sizes */
    bool enabled[UPF__SP_PASS_COUNT];
    int slots;
    int tile[2];                             /* compose's tile (compose_tile) */
    bool sharpen;                            /* compose's SHARPEN: sharpness > 0 */
    bool strips;                             /* compose by subgroup strips
                                              * (compose_strips.comp): the device's
                                              * subgroups allow it */
    int base_taps;                           /* the model's base's taps a row: 2, 4, 6 */
    uint64_t frames;                         /* frames recorded */
    int64_t slot_frame[SLOTS_MAX];           /* the frame last recorded in each slot, -1 */
    uint32_t slot_stamped[SLOTS_MAX];        /* bit p: that frame wrote the timestamp after
                                              * pass p (it ran); the first is always written */
    bool tables_recorded;
    uint32_t convert_fuse;                   /* the last recorded convert's fuse bits
                                              * (UPF__VK_FUSE_ENCODE: linear is its alpha
                                              * plane; UPF__VK_FUSE_CODES: it wrote the frame) */
    atomic_bool in_use;                      /* a record is in progress (upf__enter) */

    VkDeviceMemory memory;
    VkBuffer buf[BUFFERS];
    VkDeviceSize bytes[BUFFERS];
    VkDescriptorSetLayout dsl[UPF__SP_PASS_COUNT];
    VkPipelineLayout layout[UPF__SP_PASS_COUNT];
    VkPipeline pipe[UPF__SP_PASS_COUNT];
    VkPipeline taps_pipe;                    /* compose_taps.comp, in compose's layout */
    VkPipeline compose_no_map_pipe;          /* compose with MAP false, for records with fuse
                                              * bit UPF__VK_FUSE_NO_MAP (a model of strength 0);
                                              * VK_NULL_HANDLE for other models */
    VkDescriptorPool pool;
    VkDescriptorSet set[SLOTS_MAX][UPF__SP_PASS_COUNT];
    VkQueryPool queries;
    uint32_t format_ok[2][64];               /* [src/dst][format index]: usable */

    uint8_t area[UPF_SMAA_AREA_WIDTH * UPF_SMAA_AREA_HEIGHT * 2]; /* the table to upload */
    uint32_t srgb8[SRGB8_WORDS];             /* convert's: linear (float bits), frame codes,
                                              * c / 255 (float bits) of 8-bit codes; edges':
                                              * the root (float bits) of each frame code;
                                              * compose's: each frame code's sRGB value */
    union { float f32[UPF_NET_WEIGHTS]; uint16_t f16[UPF_NET_WEIGHTS]; } net;
};

/* ---- formats -------------------------------------------------------------------------------- */

typedef struct format_info {
    VkFormat format;
    bool src, dst;               /* accepted as source / destination */
    bool srgb_view;              /* may hold sRGB-encoded values through this UNORM view */
} format_info;

static const format_info formats[] = {
    { VK_FORMAT_R8G8B8A8_UNORM, true, true, true },
    { VK_FORMAT_R8G8B8A8_SRGB, true, false, false },
    { VK_FORMAT_B8G8R8A8_UNORM, true, false, true },
    { VK_FORMAT_B8G8R8A8_SRGB, true, false, false },
    { VK_FORMAT_A2B10G10R10_UNORM_PACK32, true, true, false },
    { VK_FORMAT_R16G16B16A16_SFLOAT, true, true, false },
    { VK_FORMAT_R16G16B16A16_UNORM, true, false, true },
    { VK_FORMAT_B10G11R11_UFLOAT_PACK32, true, false, false },
    { VK_FORMAT_R32G32B32A32_SFLOAT, true, true, false },
};
#define FORMAT_COUNT (int)(sizeof formats / sizeof formats[0])

bool upf__vk_format_at_most_one(VkFormat f)
{
    return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_R8G8B8A8_SRGB ||
           f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_B8G8R8A8_SRGB ||
           f == VK_FORMAT_A2B10G10R10_UNORM_PACK32 || f == VK_FORMAT_R16G16B16A16_UNORM;
}

static int format_index(VkFormat f)
{
    for (int i = 0; i < FORMAT_COUNT; i++)
        if (formats[i].format == f)
            return i;
    return -1;
}

static const char *format_name(VkFormat f)
{
    switch (f) {
#define N(x) case VK_FORMAT_##x: return "VK_FORMAT_" #x;
    N(R8G8B8A8_UNORM) N(R8G8B8A8_SRGB) N(B8G8R8A8_UNORM) N(B8G8R8A8_SRGB)
    N(A2B10G10R10_UNORM_PACK32) N(R16G16B16A16_SFLOAT) N(R16G16B16A16_UNORM)
    N(B10G11R11_UFLOAT_PACK32) N(R32G32B32A32_SFLOAT)
#undef N
    default: return "";
    }
}

/* ---- creation ------------------------------------------------------------------------------ */

#define VKFAIL(what, r)                                                                        \
    upf__fail(s->ctx, (r) == VK_ERROR_OUT_OF_HOST_MEMORY || (r) == VK_ERROR_OUT_OF_DEVICE_MEMORY \
                      ? UPF_ERROR_OUT_OF_MEMORY : UPF_ERROR_UNSUPPORTED,                       \
              "%s: %s failed: %s", fn, what, upf__vk_result_name(r))

void upf_vk_spatial_destroy(upf_vk_spatial **ps)
{
    if (!ps || !*ps)
        return;
    upf_vk_spatial *s = *ps;
    const upf__vk_funcs *vk = &s->vk;
    const VkAllocationCallbacks *a = s->dev.allocator;
    VkDevice d = s->dev.device;
    if (vk->vkDestroyBuffer) {
        if (s->queries)
            vk->vkDestroyQueryPool(d, s->queries, a);
        if (s->pool)
            vk->vkDestroyDescriptorPool(d, s->pool, a);
        if (s->taps_pipe)
            vk->vkDestroyPipeline(d, s->taps_pipe, a);
        if (s->compose_no_map_pipe)
            vk->vkDestroyPipeline(d, s->compose_no_map_pipe, a);
        for (int p = 0; p < UPF__SP_PASS_COUNT; p++) {
            if (s->pipe[p])
                vk->vkDestroyPipeline(d, s->pipe[p], a);
            if (s->layout[p])
                vk->vkDestroyPipelineLayout(d, s->layout[p], a);
            if (s->dsl[p])
                vk->vkDestroyDescriptorSetLayout(d, s->dsl[p], a);
        }
        for (int i = 0; i < BUFFERS; i++)
            if (s->buf[i])
                vk->vkDestroyBuffer(d, s->buf[i], a);
        if (s->memory)
            vk->vkFreeMemory(d, s->memory, a);
    }
    upf_models_destroy(&s->own_models);
    upf__free(s->ctx, s);
    *ps = NULL;
}

/* The bindings of pass p: its surfaces (the CPU scratch aside), the range for edges and blend
 * (they apply convert's tone map: tone_map.glsl), the frame for convert (its fused encode:
 * UPF__VK_FUSE_ENCODE), the sRGB tables for convert, edges, blend and compose, the weights
 * for detail and the taps table for compose. */
static int pass_bindings(int p, int binding[BUFFERS])
{
    const upf__pass_info *info = &upf__spatial_pass_table()[p];
    uint32_t mask = info->reads | info->writes;
    if (p == UPF__SP_EDGES_PASS || p == UPF__SP_BLEND)
        mask |= UPF__SURF(UPF__SP_RANGE);
    if (p == UPF__SP_CONVERT)
        mask |= UPF__SURF(UPF__SP_FRAME);
    int n = 0;
    for (int i = 0; i < UPF__SP_COUNT; i++)
        if ((mask & UPF__SURF(i)) && i != UPF__SP_LUMA)
            binding[n++] = i;
    if (p == UPF__SP_DETAIL_PASS)
        binding[n++] = NET_BINDING;
    if (p == UPF__SP_COMPOSE)
        binding[n++] = TAPS_BINDING;
    if (p == UPF__SP_CONVERT || p == UPF__SP_BLEND || /* blend: its c / 255 */
        p == UPF__SP_EDGES_PASS ||                     /* edges: the codes' roots */
        p == UPF__SP_COMPOSE)                          /* compose: the codes' sRGB values */
        binding[n++] = SRGB8_BINDING;
    return n;
}

static VkDescriptorType binding_type(int b)
{
    return b == UPF__SP_SOURCE ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE
           : b == UPF__SP_DEST ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
                               : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

static upf_result make_buffers(upf_vk_spatial *s, const char *fn)
{
    const upf__vk_funcs *vk = &s->vk;
    const int w = s->cfg.src_width, h = s->cfg.src_height;
    const VkDeviceSize px = (VkDeviceSize)w * (VkDeviceSize)h;
    const bool smaa = !(s->cfg.flags & UPF_SPATIAL_NO_SMAA);
    s->bytes[UPF__SP_LINEAR] = px * 16;
    s->bytes[UPF__SP_EDGES] = smaa ? (VkDeviceSize)upf__smaa_blocks(w) * upf__smaa_blocks(h) * 4 : 0;
    s->bytes[UPF__SP_AREA] = smaa ? sizeof s->area : 0;
    s->bytes[UPF__SP_WEIGHTS] = smaa ? px * 4 : 0;
    s->bytes[UPF__SP_FRAME] = px * 4;
    s->bytes[UPF__SP_DETAIL] = (VkDeviceSize)s->map.width * (VkDeviceSize)s->map.height * 4;
    s->bytes[UPF__SP_RANGE] = 16;
    s->bytes[NET_BINDING] = s->variant == UPF_VK_VARIANT_FP32 ? UPF_NET_WEIGHTS * 4
                                                              : UPF_NET_WEIGHTS * 2;
    s->bytes[SRGB8_BINDING] = sizeof s->srgb8;
    s->bytes[TAPS_BINDING] =
        ((VkDeviceSize)s->cfg.dst_width + (VkDeviceSize)s->cfg.dst_height) * TAPS_WORDS * 4;
    VkMemoryRequirements req[BUFFERS];
    VkDeviceSize offset[BUFFERS], total = 0;
    uint32_t types = ~0u;
    for (int i = 0; i < BUFFERS; i++) {
        if (i == UPF__SP_SOURCE || i == UPF__SP_DEST || i == UPF__SP_LUMA)
            continue;
        /* A surface this configuration does not use still gets a small buffer, so every
         * descriptor is valid (no nullDescriptor needed). */
        if (s->bytes[i] < 16)
            s->bytes[i] = 16;
        const VkBufferCreateInfo bi = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = s->bytes[i],
            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
        VkResult r = vk->vkCreateBuffer(s->dev.device, &bi, s->dev.allocator, &s->buf[i]);
        if (r != VK_SUCCESS)
            return VKFAIL("vkCreateBuffer", r);
        vk->vkGetBufferMemoryRequirements(s->dev.device, s->buf[i], &req[i]);
        total = (total + req[i].alignment - 1) / req[i].alignment * req[i].alignment;
        offset[i] = total;
        total += req[i].size;
        types &= req[i].memoryTypeBits;
    }
    uint32_t type = UINT32_MAX;
    for (uint32_t t = 0; t < s->caps.memory.memoryTypeCount && type == UINT32_MAX; t++)
        if ((types & (1u << t)) && (s->caps.memory.memoryTypes[t].propertyFlags &
                                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            type = t;
    for (uint32_t t = 0; t < s->caps.memory.memoryTypeCount && type == UINT32_MAX; t++)
        if (types & (1u << t))
            type = t;
    if (type == UINT32_MAX)
        return upf__fail(s->ctx, UPF_ERROR_UNSUPPORTED, "%s: no memory type holds every "
                         "buffer (types 0x%x)", fn, types);
    const VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .allocationSize = total, .memoryTypeIndex = type };
    VkResult r = vk->vkAllocateMemory(s->dev.device, &ai, s->dev.allocator, &s->memory);
    if (r != VK_SUCCESS)
        return upf__fail(s->ctx, UPF_ERROR_OUT_OF_MEMORY, "%s: vkAllocateMemory of %llu bytes "
                         "for the engine's buffers failed: %s", fn, (unsigned long long)total,
                         upf__vk_result_name(r));
    for (int i = 0; i < BUFFERS; i++)
        if (s->buf[i] &&
            (r = vk->vkBindBufferMemory(s->dev.device, s->buf[i], s->memory, offset[i])) !=
                VK_SUCCESS)
            return VKFAIL("vkBindBufferMemory", r);
    upf__log(s->ctx, UPF_LOG_DEBUG, "%s: %llu bytes of device memory (type %u)", fn,
             (unsigned long long)total, type);
    return UPF_OK;
}

#ifdef UPF_VK_PROBE
/* Shader work only: the driver's statistics of one pipeline (registers, shared memory, ...:
 * what VK_KHR_pipeline_executable_properties reports), one line on stderr. */
static void print_pipeline_stats(upf_vk_spatial *s, const char *name, VkPipeline pipe)
{
    PFN_vkGetDeviceProcAddr gdpa =
        (PFN_vkGetDeviceProcAddr)s->dev.get_instance_proc_addr(s->dev.instance,
                                                               "vkGetDeviceProcAddr");
    PFN_vkGetPipelineExecutableStatisticsKHR get = gdpa
        ? (PFN_vkGetPipelineExecutableStatisticsKHR)gdpa(s->dev.device,
                                                         "vkGetPipelineExecutableStatisticsKHR")
        : NULL;
    if (!get)
        return;
    const VkPipelineExecutableInfoKHR ei = { .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                             .pipeline = pipe, .executableIndex = 0 };
    VkPipelineExecutableStatisticKHR st[32];
    uint32_t n = 32;
    for (uint32_t i = 0; i < n; i++)
        st[i] = (VkPipelineExecutableStatisticKHR){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR };
    const VkResult r = get(s->dev.device, &ei, &n, st);
    fprintf(stderr, "pipeline stats %s:", name);
    for (uint32_t i = 0; i < n && r >= 0; i++) {
        switch (st[i].format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
            fprintf(stderr, " %s=%llu;", st[i].name, (unsigned long long)st[i].value.u64);
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
            fprintf(stderr, " %s=%lld;", st[i].name, (long long)st[i].value.i64);
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
            fprintf(stderr, " %s=%g;", st[i].name, st[i].value.f64);
            break;
        default:
            fprintf(stderr, " %s=%d;", st[i].name, (int)st[i].value.b32);
        }
    }
    fprintf(stderr, "\n");
}
#endif

/* One compute pipeline of the embedded shader `name` (for the pass `pass`, named in errors). */
static upf_result make_pipeline(upf_vk_spatial *s, const char *fn, const char *name,
                                const char *pass, VkPipelineLayout layout,
                                const VkSpecializationInfo *spec, VkPipeline *out)
{
    const upf__vk_funcs *vk = &s->vk;
    VkResult r;
    char full[64];
    snprintf(full, sizeof full, "spatial/%s", name);
    const upf__vk_shader *sh = upf__vk_shader_find(full);
    if (!sh)
        return upf__fail(s->ctx, UPF_ERROR_UNSUPPORTED, "%s: this build has no shader "
                         "\"%s\" (src/vk/shaders/%s.comp) for the %s pass", fn, full, full,
                         pass);
    const VkShaderModuleCreateInfo mci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = sh->count * 4, .pCode = sh->words };
    VkShaderModule module;
    if ((r = vk->vkCreateShaderModule(s->dev.device, &mci, s->dev.allocator, &module)) !=
        VK_SUCCESS)
        return VKFAIL("vkCreateShaderModule", r);
    const VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                   .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module, .pName = "main",
                   .pSpecializationInfo = spec },
        .layout = layout };
#ifdef UPF_VK_PROBE
    VkComputePipelineCreateInfo stats_pci = pci;
    if (getenv("UPF_VK_PIPELINE_STATS"))
        stats_pci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    r = vk->vkCreateComputePipelines(s->dev.device, VK_NULL_HANDLE, 1, &stats_pci,
                                     s->dev.allocator, out);
    if (r == VK_SUCCESS && getenv("UPF_VK_PIPELINE_STATS"))
        print_pipeline_stats(s, name, *out);
#else
    r = vk->vkCreateComputePipelines(s->dev.device, VK_NULL_HANDLE, 1, &pci,
                                     s->dev.allocator, out);
#endif
    vk->vkDestroyShaderModule(s->dev.device, module, s->dev.allocator);
    if (r != VK_SUCCESS)
        return upf__fail(s->ctx, UPF_ERROR_UNSUPPORTED, "%s: the %s pass's pipeline "
                         "(shader %s) did not compile: %s", fn, pass, name,
                         upf__vk_result_name(r));
    return UPF_OK;
}

/* compose's specialisation constants (src/vk/ABI.md, "Dispatch"): 0, 1 the tile (TILE_X,
 * TILE_Y), 2 SHARPEN, 3 BASE_TAPS (the model's base: 2 bilinear, 4 Catmull-Rom, 6 Lanczos-3,
 * as src/spatial/compose.c picks it), 4 MAP (whether the pass reads the detail map), 5
 * SRGB_BASE (the Lanczos-3 taps sum the codes' sRGB values: UPF_MODEL_FLAG_SRGB_LANCZOS_BASE). */
#define COMPOSE_SPECS 6
typedef struct compose_spec_data {
    int32_t value[COMPOSE_SPECS];
    VkSpecializationMapEntry entry[COMPOSE_SPECS];
    VkSpecializationInfo info;
} compose_spec_data;

static const VkSpecializationInfo *compose_spec(compose_spec_data *d, const upf_vk_spatial *s,
                                               bool map)
{
    const bool srgb = (s->cfg.model->flags & UPF_MODEL_FLAG_SRGB_LANCZOS_BASE) != 0;
    /* 0 and 1: the tile, or with strips the subgroup size and the rows a strip */
    const int32_t c0 = s->strips ? (int32_t)s->caps.subgroup_size : s->tile[0],
                  c1 = s->strips ? STRIP_ROWS : s->tile[1];
    *d = (compose_spec_data){ .value = { c0, c1, s->sharpen ? VK_TRUE : VK_FALSE, s->base_taps,
                                         map ? VK_TRUE : VK_FALSE, srgb ? VK_TRUE : VK_FALSE } };
    for (uint32_t i = 0; i < COMPOSE_SPECS; i++)
        d->entry[i] = (VkSpecializationMapEntry){ i, (uint32_t)(i * sizeof(int32_t)),
                                                  sizeof(int32_t) };
    d->info = (VkSpecializationInfo){ COMPOSE_SPECS, d->entry, sizeof d->value, d->value };
    return &d->info;
}

static upf_result make_pipelines(upf_vk_spatial *s, const char *fn)
{
    const upf__vk_funcs *vk = &s->vk;
    const upf__pass_info *info = upf__spatial_pass_table();
    compose_spec_data spec;
    for (int p = 0; p < UPF__SP_PASS_COUNT; p++) {
        int binding[BUFFERS];
        const int n = pass_bindings(p, binding);
        VkDescriptorSetLayoutBinding lb[BUFFERS];
        for (int i = 0; i < n; i++)
            lb[i] = (VkDescriptorSetLayoutBinding){ (uint32_t)binding[i],
                                                    binding_type(binding[i]), 1,
                                                    VK_SHADER_STAGE_COMPUTE_BIT, NULL };
        const VkDescriptorSetLayoutCreateInfo dci = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
            .bindingCount = (uint32_t)n, .pBindings = lb };
        VkResult r = vk->vkCreateDescriptorSetLayout(s->dev.device, &dci, s->dev.allocator,
                                                     &s->dsl[p]);
        if (r != VK_SUCCESS)
            return VKFAIL("vkCreateDescriptorSetLayout", r);
        const VkPushConstantRange range = {
            VK_SHADER_STAGE_COMPUTE_BIT, 0,
            (uint32_t)(info[p].con_size + sizeof(upf__vk_push_tail)) };
        const VkPipelineLayoutCreateInfo lci = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
            .pSetLayouts = &s->dsl[p], .pushConstantRangeCount = 1,
            .pPushConstantRanges = &range };
        if ((r = vk->vkCreatePipelineLayout(s->dev.device, &lci, s->dev.allocator,
                                            &s->layout[p])) != VK_SUCCESS)
            return VKFAIL("vkCreatePipelineLayout", r);

        const char *name = p == UPF__SP_DETAIL_PASS               ? detail_shader[s->variant]
                           : p == UPF__SP_COMPOSE && s->strips ? "compose_strips"
                                                               : info[p].file;
        if (make_pipeline(s, fn, name, info[p].name, s->layout[p],
                          p == UPF__SP_COMPOSE ? compose_spec(&spec, s, true) : NULL,
                          &s->pipe[p]) != UPF_OK)
            return UPF_ERROR_UNSUPPORTED;
    }
    /* A model of strength 0 never has a map to read in a whole frame: compose without it. */
    if ((s->cfg.flags & UPF_SPATIAL_NO_NETWORK) &&
        make_pipeline(s, fn, s->strips ? "compose_strips" : "compose", "compose",
                      s->layout[UPF__SP_COMPOSE], compose_spec(&spec, s, false),
                      &s->compose_no_map_pipe) != UPF_OK)
        return UPF_ERROR_UNSUPPORTED;
    /* compose's taps, in compose's layout (of its bindings the shader uses only the table). */
    if (make_pipeline(s, fn, "compose_taps", "compose", s->layout[UPF__SP_COMPOSE], NULL,
                      &s->taps_pipe) != UPF_OK)
        return UPF_ERROR_UNSUPPORTED;
    return UPF_OK;
}

static upf_result make_sets(upf_vk_spatial *s, const char *fn)
{
    const upf__vk_funcs *vk = &s->vk;
    uint32_t nbuf = 0;
    for (int p = 0; p < UPF__SP_PASS_COUNT; p++) {
        int binding[BUFFERS];
        const int n = pass_bindings(p, binding);
        for (int i = 0; i < n; i++)
            nbuf += binding_type(binding[i]) == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    }
    const uint32_t slots = (uint32_t)s->slots;
    const VkDescriptorPoolSize sizes[] = {
        { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nbuf * slots },
        { VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, slots },
        { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, slots } };
    const VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = slots * UPF__SP_PASS_COUNT, .poolSizeCount = 3, .pPoolSizes = sizes };
    VkResult r = vk->vkCreateDescriptorPool(s->dev.device, &pci, s->dev.allocator, &s->pool);
    if (r != VK_SUCCESS)
        return VKFAIL("vkCreateDescriptorPool", r);
    for (int k = 0; k < s->slots; k++) {
        const VkDescriptorSetAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = s->pool,
            .descriptorSetCount = UPF__SP_PASS_COUNT, .pSetLayouts = s->dsl };
        if ((r = vk->vkAllocateDescriptorSets(s->dev.device, &ai, s->set[k])) != VK_SUCCESS)
            return VKFAIL("vkAllocateDescriptorSets", r);
        /* The buffers never change: write them once. */
        VkDescriptorBufferInfo bi[UPF__SP_PASS_COUNT][BUFFERS];
        VkWriteDescriptorSet wr[UPF__SP_PASS_COUNT * BUFFERS];
        uint32_t nw = 0;
        for (int p = 0; p < UPF__SP_PASS_COUNT; p++) {
            int binding[BUFFERS];
            const int n = pass_bindings(p, binding);
            for (int i = 0; i < n; i++) {
                if (binding_type(binding[i]) != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
                    continue;
                bi[p][i] = (VkDescriptorBufferInfo){ s->buf[binding[i]], 0, VK_WHOLE_SIZE };
                wr[nw++] = (VkWriteDescriptorSet){
                    .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = s->set[k][p],
                    .dstBinding = (uint32_t)binding[i], .descriptorCount = 1,
                    .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                    .pBufferInfo = &bi[p][i] };
            }
        }
        vk->vkUpdateDescriptorSets(s->dev.device, nw, wr, 0, NULL);
    }
    return UPF_OK;
}

static upf_result check_params(upf_context *ctx, const char *fn, const upf_vk_spatial_params *p)
{
    if (!p)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the "
                         "device and the largest sizes", fn);
    upf_result r = upf__vk_check_handles(ctx, fn, p->device);
    if (r != UPF_OK)
        return r;
    if (p->frames_in_flight < 0 || p->frames_in_flight > SLOTS_MAX)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames_in_flight %d is out of "
                         "range (expected 0 for 2, or 1 .. %d)", fn, p->frames_in_flight,
                         SLOTS_MAX);
    if ((int)p->variant < 0 || p->variant >= UPF_VK_VARIANT_COUNT)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: variant %d is unknown (expected "
                         "UPF_VK_VARIANT_AUTO, FP32, FP16 or COOPMAT)", fn, (int)p->variant);
    const upf_spatial_params sp = { p->max_src_width, p->max_src_height, p->max_dst_width,
                                    p->max_dst_height, p->sharpness, p->models, p->flags };
    return upf__spatial_check_params(ctx, fn, &sp);
}

/* compose's taps table (compose_taps.glsl) holds the frame's and the detail map's indices as
 * 16-bit integers. A source side is at most UPF_MAX_IMAGE_DIMENSION (upf__check_pixels) and
 * the map at most 12 / UPF_MODEL_STEP_MIN times the source, so both fit. (A map larger than
 * the destination is fine: compose reads its samples straight from memory;
 * tests/test_vk_passes.c checks one 3/2 of the destination.) */
_Static_assert(UPF_MAX_IMAGE_DIMENSION * 12 / UPF_MODEL_STEP_MIN <= 65535,
               "compose's taps table indexes the frame and the detail map with 16 bits");

upf_vk_spatial *upf_vk_spatial_create(upf_context *ctx, const upf_vk_spatial_params *p)
{
    return upf__vk_spatial_create_form(ctx, p, UPF__VK_COMPOSE_AUTO);
}

upf_vk_spatial *upf__vk_spatial_create_form(upf_context *ctx, const upf_vk_spatial_params *p,
                                            upf__vk_compose_form form)
{
    static const char fn[] = "upf_vk_spatial_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (check_params(ctx, fn, p) != UPF_OK ||
        upf__check_pixels(ctx, fn, "the source", p->max_src_width, p->max_src_height) != UPF_OK ||
        upf__check_pixels(ctx, fn, "the destination", p->max_dst_width, p->max_dst_height) !=
            UPF_OK)
        return NULL;
    upf_vk_spatial *s = upf__alloc(ctx, sizeof *s, "the Vulkan spatial engine");
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    atomic_init(&s->in_use, false);
    s->dev = *p->device;
    s->dev.enabled_extensions = NULL; /* only read during the check below */
    s->dev.enabled_features = NULL;
    s->slots = p->frames_in_flight ? p->frames_in_flight : 2;
    for (int k = 0; k < SLOTS_MAX; k++)
        s->slot_frame[k] = -1;
    if (upf__vk_load(ctx, fn, p->device, &s->vk) != UPF_OK ||
        upf__vk_check(ctx, fn, p->device, &s->vk, &s->caps) != UPF_OK)
        goto fail;

    /* The variant. */
    upf_vk_variant v = p->variant;
    if (v == UPF_VK_VARIANT_AUTO)
        v = s->caps.variant[UPF_VK_VARIANT_COOPMAT] ? UPF_VK_VARIANT_COOPMAT
            : s->caps.variant[UPF_VK_VARIANT_FP16]  ? UPF_VK_VARIANT_FP16
                                                    : UPF_VK_VARIANT_FP32;
    if (!s->caps.variant[v]) {
        upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: the %s variant needs %s, which the device "
                  "was not made with (upf_vk_requirements_query lists what to enable)", fn,
                  upf_vk_variant_name(v), v == UPF_VK_VARIANT_FP16
                  ? "shaderFloat16 and storageBuffer16BitAccess"
                  : "VK_NV_cooperative_matrix, cooperativeMatrix, shaderFloat16 and "
                    "storageBuffer16BitAccess");
        goto fail;
    }
    s->variant = v;

    /* The model and the CPU engine's constants at the largest sizes. */
    const upf_models *set = p->models;
    if (!set && !(set = s->own_models = upf_models_default(ctx)))
        goto fail;
    const upf_spatial_params sp = { p->max_src_width, p->max_src_height, p->max_dst_width,
                                    p->max_dst_height, p->sharpness, p->models, p->flags };
    s->cfg = upf__spatial_config_of(&sp, set);
    upf__detail_map_init(&s->map, s->cfg.model->step, s->cfg.model->flags, s->cfg.src_width,
                         s->cfg.src_height, NULL);
    void *con[UPF__SP_PASS_COUNT];
    for (int i = 0; i < UPF__SP_PASS_COUNT; i++)
        con[i] = s->con[i];
    upf__spatial_fill_constants(&s->cfg, &s->map, con);
    for (int i = 0; i < UPF__SP_PASS_COUNT; i++)
        s->enabled[i] = true;
    s->enabled[UPF__SP_WEIGHTS_PASS] = s->enabled[UPF__SP_BLEND] =
        !(s->cfg.flags & UPF_SPATIAL_NO_SMAA);

    /* The tables, uploaded by the first record. convert's for 8-bit sRGB sources: each code's
     * linear value, the CPU's table (core/color.c), the frame's 10-bit code of its square
     * root, as upf_pack_sqrt1010102 makes it (its fused encode), and code / 255 (alpha). */
    upf__smaa_area_table(s->area);
    for (int i = 0; i < 256; i++) {
        const float l = upf_srgb8_to_linear_table[i];
        memcpy(&s->srgb8[i], &l, sizeof l);
        s->srgb8[256 + i] = upf_pack_sqrt1010102(l, 0.0f, 0.0f, 0.0f) & 1023u;
        const float a = (float)i / 255.0f; /* an 8-bit alpha as the CPU's convert reads it */
        memcpy(&s->srgb8[512 + i], &a, sizeof a);
        /* The square root of code i's linear value, as smaa_edges.c takes it for the luma
         * (sqrtf, correctly rounded), at the frame's 10-bit code of it: no two codes share one
         * (the codes of neighbouring 8-bit values are at least two apart), which the test of
         * every code's edges checks (tests/test_vk_passes.c). */
        const float root = sqrtf(l);
        memcpy(&s->srgb8[768 + s->srgb8[256 + i]], &root, sizeof root);
    }
    /* compose's, for the sRGB-Lanczos base: each frame code's sRGB value, the CPU's table
     * (upf__srgb_of_code, core/color.c, kept in the context). */
    memcpy(&s->srgb8[1792], ctx->srgb_of_code, sizeof ctx->srgb_of_code);
    /* The network's weights (src/vk/ABI.md, binding 10): the model's order, except that the
     * coopmat variant gets the odd stages' matrices transposed, which detail_coopmat.comp
     * reads in their transposed form (its stage loop): loaded row-major from here instead of
     * column-major from the model's order, the pass took 98.9 -> 89.7 us at 1080p -> 4K on
     * the H200 (docs/PERFORMANCE.md). */
    const bool odd_transposed = s->variant == UPF_VK_VARIANT_COOPMAT;
    for (int i = 0; i < UPF_NET_WEIGHTS; i++) {
        const int matrix = i / UPF_NET_WINDOW, stage = matrix / UPF_NET_MATRICES;
        const int r = i % UPF_NET_WINDOW / UPF_NET_DIM, c = i % UPF_NET_DIM;
        const int from = odd_transposed && stage % 2 == 1 ? c * UPF_NET_DIM + r
                                                           : r * UPF_NET_DIM + c;
        const float w = s->cfg.model->w[stage][matrix % UPF_NET_MATRICES][from];
        if (s->variant == UPF_VK_VARIANT_FP32)
            s->net.f32[i] = w;
        else
            s->net.f16[i] = upf_float_to_half(w);
    }

    /* Which formats the device takes, with optimal tiling. */
    for (int i = 0; i < FORMAT_COUNT; i++) {
        VkFormatProperties fp;
        s->vk.vkGetPhysicalDeviceFormatProperties(s->dev.physical_device, formats[i].format, &fp);
        s->format_ok[0][i] = formats[i].src &&
                             (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT);
        s->format_ok[1][i] = formats[i].dst &&
                             (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT);
    }

    /* compose's tile, and whether it sharpens (its apron); or its strips. */
    s->sharpen = s->cfg.sharpness > 0.0f;
    const unsigned mflags = s->cfg.model->flags;
    s->base_taps = (mflags & UPF_MODEL_FLAG_CUBIC_BASE) ? 4
                   : (mflags & (UPF_MODEL_FLAG_SQRT_LANCZOS_BASE |
                                UPF_MODEL_FLAG_SRGB_LANCZOS_BASE))
                       ? 6
                       : 2;
    s->strips = form != UPF__VK_COMPOSE_TILES && s->caps.subgroup_shuffle &&
                s->caps.subgroup_size >= 8 && s->caps.subgroup_size <= STRIP_GROUP;
#ifdef UPF_VK_PROBE
    if (getenv("UPF_VK_COMPOSE_TILES")) /* shader work only: compose.comp's tiles always */
        s->strips = false;
#endif
    const uint32_t shared_max = s->caps.props.limits.maxComputeSharedMemorySize;
    s->tile[0] = compose_tile[0], s->tile[1] = compose_tile[1];
#ifdef UPF_VK_PROBE
    /* Shader work only: UPF_VK_COMPOSE_TILE=WxH (W divides 256, W * H a multiple of 256, its
     * shared memory within the device's). */
    const char *tile_env = getenv("UPF_VK_COMPOSE_TILE");
    if (tile_env && (sscanf(tile_env, "%dx%d", &s->tile[0], &s->tile[1]) != 2 ||
                     compose_shared_bytes(s->tile[0], s->tile[1], s->sharpen) > shared_max))
        s->tile[0] = compose_tile[0], s->tile[1] = compose_tile[1];
    if (tile_env || getenv("UPF_VK_PIPELINE_STATS"))
        fprintf(stderr, "compose tile %dx%d: %u bytes of shared memory (the device: %u)\n",
                s->tile[0], s->tile[1], compose_shared_bytes(s->tile[0], s->tile[1], s->sharpen),
                shared_max);
#endif
    if (s->strips)
        upf__log(ctx, UPF_LOG_DEBUG, "%s: compose by strips of a subgroup (%u invocations), "
                 "%d rows", fn, s->caps.subgroup_size, STRIP_ROWS);
    else
        upf__log(ctx, UPF_LOG_DEBUG, "%s: compose tile %dx%d (%u bytes of shared memory of %u)",
                 fn, s->tile[0], s->tile[1],
                 compose_shared_bytes(s->tile[0], s->tile[1], s->sharpen), shared_max);

    if (make_buffers(s, fn) != UPF_OK || make_pipelines(s, fn) != UPF_OK ||
        make_sets(s, fn) != UPF_OK)
        goto fail;
    if (p->timestamps) {
        if (!s->caps.timestamp_bits || !s->caps.props.limits.timestampComputeAndGraphics) {
            upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: timestamps asked for, but the queue "
                      "family has no timestamps (timestampValidBits 0 or no "
                      "timestampComputeAndGraphics)", fn);
            goto fail;
        }
        const VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                            .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                            .queryCount = (uint32_t)(s->slots * STAMPS) };
        VkResult r = s->vk.vkCreateQueryPool(s->dev.device, &qci, s->dev.allocator, &s->queries);
        if (r != VK_SUCCESS) {
            VKFAIL("vkCreateQueryPool", r);
            goto fail;
        }
    }
    upf__log(ctx, UPF_LOG_DEBUG, "%s: %dx%d -> %dx%d on %s, detail variant %s, model step %d, "
             "%d frames in flight", fn, s->cfg.src_width, s->cfg.src_height, s->cfg.dst_width,
             s->cfg.dst_height, s->caps.props.deviceName, upf_vk_variant_name(s->variant),
             s->cfg.model->step, s->slots);
    return s;
fail:
    upf_vk_spatial_destroy(&s);
    return NULL;
}

upf_vk_variant upf_vk_spatial_variant(const upf_vk_spatial *s)
{
    return s ? s->variant : UPF_VK_VARIANT_AUTO;
}

VkBuffer upf__vk_spatial_buffer(const upf_vk_spatial *s, int surface, VkDeviceSize *bytes)
{
    if (surface < 0 || surface > UPF__SP_COUNT) {
        *bytes = 0;
        return VK_NULL_HANDLE;
    }
    *bytes = s->bytes[surface];
    return s->buf[surface];
}

const void *upf__vk_spatial_constants(const upf_vk_spatial *s, int pass)
{
    return s->con[pass];
}

/* ---- checking a frame ---------------------------------------------------------------------- */

static bool layout_ok(VkImageLayout l)
{
    return l == VK_IMAGE_LAYOUT_GENERAL || l == VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL ||
           l == VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL ||
           l == VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL ||
           l == VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL || l == VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
}

/* Checks one host image; fills its rectangle. */
static upf_result check_image(upf_vk_spatial *s, const char *fn, const char *what,
                              const upf_vk_image *im, bool dst, upf_rect *rect)
{
    upf_context *ctx = s->ctx;
    if (!im)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL; expected a "
                         "upf_vk_image", fn, what);
    if (!im->image || !im->view)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: %s is VK_NULL_HANDLE; "
                         "expected the host's handle", fn, what, !im->image ? "image" : "view");
    const int fi = format_index(im->format);
    if (fi < 0 || !(dst ? formats[fi].dst : formats[fi].src))
        return upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: %s: format %s%s%d%s is not one "
                         "upframe takes as a %s (docs/VULKAN.md, \"Formats\")", fn, what,
                         format_name(im->format), fi < 0 ? "" : " (", (int)im->format,
                         fi < 0 ? "" : ")", dst ? "destination" : "source");
    if (!s->format_ok[dst][fi])
        return upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: %s: this device cannot %s %s images "
                         "(no %s in its optimal tiling features)", fn, what,
                         dst ? "write" : "sample", format_name(im->format),
                         dst ? "VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT"
                             : "VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT");
    const VkImageUsageFlags need = dst ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT;
    if (!(im->usage & need))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: usage 0x%x lacks %s, which "
                         "upframe needs to %s it", fn, what, (unsigned)im->usage,
                         dst ? "VK_IMAGE_USAGE_STORAGE_BIT" : "VK_IMAGE_USAGE_SAMPLED_BIT",
                         dst ? "write" : "read");
    if (im->srgb && !formats[fi].srgb_view)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: srgb = 1 with %s: only a "
                         "UNORM view (%s) may hold sRGB-encoded values", fn, what,
                         format_name(im->format),
                         dst ? "VK_FORMAT_R8G8B8A8_UNORM"
                             : "VK_FORMAT_R8G8B8A8_UNORM, B8G8R8A8_UNORM, R16G16B16A16_UNORM");
    if (im->width < 1 || im->height < 1 || im->width > UPF_MAX_IMAGE_DIMENSION ||
        im->height > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: extent %dx%d is out of range "
                         "(expected 1 .. %d)", fn, what, im->width, im->height,
                         UPF_MAX_IMAGE_DIMENSION);
    *rect = im->rect.width ? im->rect : (upf_rect){ 0, 0, im->width, im->height };
    if (rect->x < 0 || rect->y < 0 || rect->width < 1 || rect->height < 1 ||
        rect->x > im->width - rect->width || rect->y > im->height - rect->height)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: rect %d,%d %dx%d is not "
                         "inside the %dx%d image", fn, what, rect->x, rect->y, rect->width,
                         rect->height, im->width, im->height);
    const int mw = dst ? s->cfg.dst_width : s->cfg.src_width,
              mh = dst ? s->cfg.dst_height : s->cfg.src_height;
    if (rect->width > mw || rect->height > mh)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: %dx%d is larger than the "
                         "engine was created for (%dx%d)", fn, what, rect->width, rect->height,
                         mw, mh);
    if (!(layout_ok(im->layout) || (dst && im->layout == VK_IMAGE_LAYOUT_UNDEFINED)))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: layout %d is not one upframe "
                         "can take the %s from (expected GENERAL, SHADER_READ_ONLY_OPTIMAL, "
                         "COLOR_ATTACHMENT_OPTIMAL, TRANSFER_SRC/DST_OPTIMAL or PRESENT_SRC_KHR%s)",
                         fn, what, (int)im->layout, what, dst ? ", or UNDEFINED" : "");
    const VkImageLayout fl = im->final_layout ? im->final_layout : im->layout;
    if (!layout_ok(fl))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: final_layout %d is not one "
                         "upframe can leave it in (expected GENERAL, SHADER_READ_ONLY_OPTIMAL, "
                         "COLOR_ATTACHMENT_OPTIMAL, TRANSFER_SRC/DST_OPTIMAL or "
                         "PRESENT_SRC_KHR)", fn, what, (int)fl);
    return UPF_OK;
}

/* ---- recording ----------------------------------------------------------------------------- */

static VkImageMemoryBarrier image_barrier(const upf_vk_image *im, VkAccessFlags src_access,
                                          VkAccessFlags dst_access, VkImageLayout from,
                                          VkImageLayout to)
{
    return (VkImageMemoryBarrier){
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
        .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = im->image,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
}

static void memory_barrier(const upf__vk_funcs *vk, VkCommandBuffer cmd, VkPipelineStageFlags from,
                           VkPipelineStageFlags to, VkAccessFlags src, VkAccessFlags dst,
                           uint32_t images, const VkImageMemoryBarrier *image)
{
    const VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = src, .dstAccessMask = dst };
    vk->vkCmdPipelineBarrier(cmd, from, to, 0, 1, &mb, 0, NULL, images, image);
}

upf_result upf__vk_spatial_record_passes(upf_vk_spatial *s, const char *fn, VkCommandBuffer cmd,
                                         const upf_vk_image *src, const upf_vk_image *dst,
                                         int first, int last)
{
    upf_context *ctx = s->ctx;
    if (!cmd)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: cmd is VK_NULL_HANDLE; expected "
                         "a command buffer in the recording state", fn);
    if (first < 0 || last >= UPF__SP_PASS_COUNT || first > last)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: passes %d..%d are out of range",
                         fn, first, last);
    const bool use_src = first <= UPF__SP_CONVERT, use_dst = last >= UPF__SP_COMPOSE;
    upf_rect sr = { 0, 0, s->cfg.src_width, s->cfg.src_height };
    upf_rect dr = { 0, 0, s->cfg.dst_width, s->cfg.dst_height };
    upf_result r;
    if (use_src && (r = check_image(s, fn, "src", src, false, &sr)) != UPF_OK)
        return r;
    if (use_dst && (r = check_image(s, fn, "dst", dst, true, &dr)) != UPF_OK)
        return r;
    if (use_src && use_dst && src->image == dst->image)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: src and dst are the same image; "
                         "expected two images", fn);
    if (!use_src && sr.width != s->cfg.src_width)
        return UPF_ERROR_INTERNAL;
    if ((r = upf__reconstruct_check_sizes(ctx, fn, sr.width, sr.height, dr.width, dr.height)) !=
        UPF_OK)
        return r;

    /* This frame's constants (the created model at this frame's sizes). */
    upf__spatial_config cfg = s->cfg;
    cfg.src_width = sr.width, cfg.src_height = sr.height;
    cfg.dst_width = dr.width, cfg.dst_height = dr.height;
    upf__detail_map map;
    upf__detail_map_init(&map, cfg.model->step, cfg.model->flags, sr.width, sr.height, NULL);
    uint8_t con_mem[UPF__SP_PASS_COUNT][CON_MAX + sizeof(upf__vk_push_tail)];
    void *con[UPF__SP_PASS_COUNT];
    for (int i = 0; i < UPF__SP_PASS_COUNT; i++)
        con[i] = con_mem[i];
    upf__spatial_fill_constants(&cfg, &map, con);
    const upf__pass_info *info = upf__spatial_pass_table();
    /* src_transfer (src/vk/ABI.md): 2 an 8-bit sRGB view the hardware decoded (the shader
     * snaps it back to its code and decodes it by the CPU's table), 3 an 8-bit UNORM view of
     * sRGB values (the same table), 1 a 16-bit UNORM view of sRGB values (the curve), 0
     * linear. */
    uint32_t src_transfer = 0;
    if (use_src) {
        const VkFormat f = src->format;
        const bool eight = f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_B8G8R8A8_UNORM;
        src_transfer = f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_B8G8R8A8_SRGB ? 2u
                       : src->srgb ? (eight ? 3u : 1u) : 0u;
    }
    /* Fused work (docs/VULKAN.md, "Fused passes"). Without SMAA the edges pass only encodes
     * the frame; a source format that holds nothing above 1 (UNORM, sRGB or not) is never
     * tone mapped, so convert encodes it (and leaves linear as the alpha plane, all that
     * compose reads of it) and edges is not recorded; a record without convert (the tests'
     * one pass at a time) reads the surfaces as the last convert left them. A model of
     * strength 0 (UPF_SPATIAL_NO_NETWORK) makes a map of zeros: no detail pass, compose takes
     * 0, only when compose is in this record.
     * With SMAA, an 8-bit sRGB source (never tone mapped): convert writes the frame's words
     * by its table beside linear, and edges takes the roots for its luma from them by table
     * instead of correctly rounded square roots of linear, and stores no frame (on the H200
     * the roots were half of edges: docs/PERFORMANCE.md). */
    const bool smaa = !(cfg.flags & UPF_SPATIAL_NO_SMAA);
    uint32_t fuse = s->convert_fuse;
    if (use_src) {
        const bool at_most_one = upf__vk_format_at_most_one(src->format);
        fuse = !smaa && at_most_one        ? UPF__VK_FUSE_ENCODE
               : smaa && src_transfer >= 2u ? UPF__VK_FUSE_CODES
                                            : 0u;
        /* Such a source is never tone-mapped: convert leaves range G at 0 and reduces only
         * the translucency (convert.comp). */
        if (at_most_one)
            fuse |= UPF__VK_FUSE_AT_MOST_ONE;
    }
    const uint32_t convert_fuse = fuse;
    if ((cfg.flags & UPF_SPATIAL_NO_NETWORK) && first <= UPF__SP_DETAIL_PASS && use_dst)
        fuse |= UPF__VK_FUSE_NO_MAP;
    const upf__vk_push_tail tail = { sr.x, sr.y, dr.x, dr.y, src_transfer,
                                     use_dst && dst->srgb ? 1u : 0u, 0,
                                     cfg.model->detail_strength, fuse };
    const int bw = upf__smaa_blocks(sr.width), bh = upf__smaa_blocks(sr.height);
    const upf__detail_con *dc = con[UPF__SP_DETAIL_PASS];

    /* Everything is checked: from here on, only recording. */
    const upf__vk_funcs *vk = &s->vk;
    const int slot = (int)(s->frames % (uint64_t)s->slots);
    const VkImageLayout src_layout =
        use_src && src->layout == VK_IMAGE_LAYOUT_GENERAL ? VK_IMAGE_LAYOUT_GENERAL
                                                          : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    VkDescriptorImageInfo ii[2] = { { VK_NULL_HANDLE, use_src ? src->view : VK_NULL_HANDLE,
                                      src_layout },
                                    { VK_NULL_HANDLE, use_dst ? dst->view : VK_NULL_HANDLE,
                                      VK_IMAGE_LAYOUT_GENERAL } };
    VkWriteDescriptorSet wr[2];
    uint32_t nw = 0;
    if (use_src)
        wr[nw++] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = s->set[slot][UPF__SP_CONVERT],
            .dstBinding = UPF__SP_SOURCE, .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, .pImageInfo = &ii[0] };
    if (use_dst)
        wr[nw++] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = s->set[slot][UPF__SP_COMPOSE],
            .dstBinding = UPF__SP_DEST, .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, .pImageInfo = &ii[1] };
    if (nw)
        vk->vkUpdateDescriptorSets(s->dev.device, nw, wr, 0, NULL);

    /* In: what came before (the previous frame's passes, the host's copies into our buffers
     * in tests) finishes before the transfers below. */
    const VkAccessFlags rw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    memory_barrier(vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT | rw, 0, NULL);
    if (!s->tables_recorded) {
        if (s->bytes[UPF__SP_AREA] == sizeof s->area)
            vk->vkCmdUpdateBuffer(cmd, s->buf[UPF__SP_AREA], 0, sizeof s->area, s->area);
        vk->vkCmdUpdateBuffer(cmd, s->buf[NET_BINDING], 0, s->bytes[NET_BINDING], &s->net);
        vk->vkCmdUpdateBuffer(cmd, s->buf[SRGB8_BINDING], 0, sizeof s->srgb8, s->srgb8);
        s->tables_recorded = true;
    }
    if (use_src)
        vk->vkCmdFillBuffer(cmd, s->buf[UPF__SP_RANGE], 0, VK_WHOLE_SIZE, 0);
    VkImageMemoryBarrier ib[2];
    uint32_t ni = 0;
    if (use_src)
        ib[ni++] = image_barrier(src, VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT,
                                 src->layout, src_layout);
    if (use_dst)
        ib[ni++] = image_barrier(dst, VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                                 dst->layout, VK_IMAGE_LAYOUT_GENERAL);
    memory_barrier(vk, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, rw, ni, ib);

    const uint32_t q0 = (uint32_t)(slot * STAMPS);
    if (s->queries) {
        vk->vkCmdResetQueryPool(cmd, s->queries, q0, STAMPS);
        vk->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->queries, q0);
    }
    /* compose's taps table for this frame (compose_taps.comp), first: it reads nothing the
     * passes write, so it runs beside them, and the barrier after the next dispatch makes it
     * visible to compose (its time counts in that pass's). */
    bool taps_unfenced = false;
    if (use_dst) {
        memcpy(con_mem[UPF__SP_COMPOSE] + info[UPF__SP_COMPOSE].con_size, &tail, sizeof tail);
        vk->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->taps_pipe);
        vk->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                    s->layout[UPF__SP_COMPOSE], 0, 1,
                                    &s->set[slot][UPF__SP_COMPOSE], 0, NULL);
        vk->vkCmdPushConstants(cmd, s->layout[UPF__SP_COMPOSE], VK_SHADER_STAGE_COMPUTE_BIT, 0,
                               (uint32_t)(info[UPF__SP_COMPOSE].con_size + sizeof tail),
                               con_mem[UPF__SP_COMPOSE]);
        vk->vkCmdDispatch(cmd, (uint32_t)((dr.width + dr.height + 255) / 256), 1, 1);
        taps_unfenced = true;
    }
    /* A timestamp after each pass that runs, none after one that does not: two timestamps
     * with nothing between them still measure about 0.6 us on the H200 (docs/PERFORMANCE.md),
     * which a frame without timestamps does not spend. */
    uint32_t stamped = 0;
    for (int p = 0; p < UPF__SP_PASS_COUNT; p++) {
        const bool skipped = (p == UPF__SP_EDGES_PASS && (fuse & UPF__VK_FUSE_ENCODE)) ||
                             (p == UPF__SP_DETAIL_PASS && (fuse & UPF__VK_FUSE_NO_MAP));
        const bool run = p >= first && p <= last && s->enabled[p] && !skipped;
        if (run) {
            int ex, ey;
            switch (dispatch[p].extent) {
            case EXTENT_SOURCE: ex = sr.width, ey = sr.height; break;
            case EXTENT_BLOCKS: ex = bw, ey = bh; break;
            case EXTENT_TILES: ex = dc->tiles_x, ey = dc->tiles_y; break;
            default: ex = dr.width, ey = dr.height; break;
            }
            int px = p == UPF__SP_COMPOSE ? s->tile[0] : dispatch[p].per_x,
                py = p == UPF__SP_COMPOSE ? s->tile[1] : dispatch[p].per_y;
            if (p == UPF__SP_COMPOSE && s->strips) { /* compose_strips.comp's grid */
                const int sub = (int)s->caps.subgroup_size;
                px = strip_width(sub, s->base_taps, s->sharpen, sr.width, dr.width);
                py = STRIP_GROUP / sub * STRIP_ROWS;
            }
#ifdef UPF_VK_PROBE
            /* Shader work only: UPF_VK_CONVERT_PER=WxH, the pixels of one convert workgroup
             * (for a convert.spv made for it). */
            const char *per_env = p == UPF__SP_CONVERT ? getenv("UPF_VK_CONVERT_PER") : NULL;
            if (per_env && sscanf(per_env, "%dx%d", &px, &py) != 2)
                px = dispatch[p].per_x, py = dispatch[p].per_y;
#endif
            const uint32_t gx = (uint32_t)((ex + px - 1) / px), gy = (uint32_t)((ey + py - 1) / py);
            if (taps_unfenced && p == UPF__SP_COMPOSE) /* compose is the first dispatch */
                memory_barrier(vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                               rw, 0, NULL);
            const VkPipeline pipe = p == UPF__SP_COMPOSE && (fuse & UPF__VK_FUSE_NO_MAP) &&
                                            s->compose_no_map_pipe
                                        ? s->compose_no_map_pipe
                                        : s->pipe[p];
            vk->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
            vk->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout[p], 0, 1,
                                        &s->set[slot][p], 0, NULL);
            for (int phase = 0; phase < dispatch[p].phases; phase++) {
                upf__vk_push_tail t = tail;
                t.phase = (uint32_t)phase;
                memcpy(con_mem[p] + info[p].con_size, &t, sizeof t);
                vk->vkCmdPushConstants(cmd, s->layout[p], VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                       (uint32_t)(info[p].con_size + sizeof t), con_mem[p]);
                vk->vkCmdDispatch(cmd, gx, gy, 1);
                memory_barrier(vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                               rw, 0, NULL);
                taps_unfenced = false;
            }
        }
        if (s->queries && run) {
            vk->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->queries,
                                    q0 + 1 + (uint32_t)p);
            stamped |= 1u << p;
        }
    }

    /* Out: the host's images to the layouts it asked for, our writes visible to anything. */
    ni = 0;
    if (use_src)
        ib[ni++] = image_barrier(src, 0, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                                 src_layout, src->final_layout ? src->final_layout : src->layout);
    if (use_dst)
        ib[ni++] = image_barrier(dst, VK_ACCESS_SHADER_WRITE_BIT,
                                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                                 VK_IMAGE_LAYOUT_GENERAL,
                                 dst->final_layout ? dst->final_layout : dst->layout);
    memory_barrier(vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, ni, ib);
    s->slot_frame[slot] = (int64_t)s->frames;
    s->slot_stamped[slot] = stamped;
    s->frames++;
    s->convert_fuse = convert_fuse;
    return UPF_OK;
}

upf_result upf_vk_spatial_record(upf_vk_spatial *s, VkCommandBuffer cmd, const upf_vk_image *src,
                                 const upf_vk_image *dst)
{
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(s->ctx);
    static const char fn[] = "upf_vk_spatial_record";
    /* Two records at once would share this frame's descriptor sets: refuse the second. */
    upf_result r = upf__enter(s->ctx, &s->in_use, fn, "the Vulkan spatial engine");
    if (r != UPF_OK)
        return r;
    r = upf__vk_spatial_record_passes(s, fn, cmd, src, dst, 0, UPF__SP_PASS_COUNT - 1);
    upf__leave(&s->in_use);
    return r;
}

upf_result upf_vk_spatial_timings(upf_vk_spatial *s, double ms[UPF_SPATIAL_PASS_COUNT],
                                  double *total_ms)
{
    static const char fn[] = "upf_vk_spatial_timings";
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(s->ctx);
    if (!ms)
        return upf__fail(s->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: ms is NULL; expected an "
                         "array of UPF_SPATIAL_PASS_COUNT doubles", fn);
    if (!s->queries)
        return upf__fail(s->ctx, UPF_ERROR_UNSUPPORTED, "%s: the engine was made without "
                         "timestamps (upf_vk_spatial_params.timestamps)", fn);
    /* Newest frame first. */
    for (uint64_t back = 0; back < (uint64_t)s->slots && back < s->frames; back++) {
        const int slot = (int)((s->frames - 1 - back) % (uint64_t)s->slots);
        if (s->slot_frame[slot] < 0)
            continue;
        /* Only the timestamps the frame wrote (the others stay unavailable after the reset,
         * and a read that includes one fails): the first, then one after each pass that ran,
         * whose time is since the one before it. */
        const uint32_t stamped = s->slot_stamped[slot];
        uint64_t t[STAMPS];
        VkResult r = VK_SUCCESS;
        for (int k = 0; k < STAMPS && r == VK_SUCCESS; k++)
            if (k == 0 || (stamped >> (k - 1) & 1u))
                r = s->vk.vkGetQueryPoolResults(s->dev.device, s->queries,
                                                (uint32_t)(slot * STAMPS + k), 1, sizeof t[k],
                                                &t[k], sizeof t[k], VK_QUERY_RESULT_64_BIT);
        if (r != VK_SUCCESS)
            continue;
        const double ns = (double)s->caps.props.limits.timestampPeriod;
        const uint64_t mask = s->caps.timestamp_bits >= 64 ? ~0ull
                                                           : (1ull << s->caps.timestamp_bits) - 1;
        double sum = 0.0;
        uint64_t before = t[0];
        for (int p = 0; p < UPF__SP_PASS_COUNT; p++) {
            ms[p] = 0.0;
            if (!(stamped >> p & 1u))
                continue;
            ms[p] = (double)((t[p + 1] - before) & mask) * ns * 1e-6;
            before = t[p + 1];
            sum += ms[p];
        }
        if (total_ms)
            *total_ms = sum;
        return UPF_OK;
    }
    return upf__fail(s->ctx, UPF_ERROR_UNSUPPORTED, "%s: no recorded frame has finished on the "
                     "GPU yet (ask after the fence of a submitted frame)", fn);
}
