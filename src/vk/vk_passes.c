/* vk_passes.c: the Vulkan pass runner (vk_passes.h; docs/VULKAN.md, "The pass runner"): an
 * engine's buffers, pipelines, descriptor sets and timestamp queries made once from its pass
 * table, and a frame recorded from its per-frame description: host images bound and
 * transitioned, tables uploaded, clears, dispatches with the barriers their reads and writes
 * need, timestamps.
 *
 * Reads: the engine's tables and plan, its host images (through the shaders). Writes: the
 * engine's buffers, the host's command buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk/vk_passes.h"

#define STAMPS_MAX (UPF__VK_GPU_PASSES_MAX + 1)
#define BINDINGS_MAX (UPF__VK_RESOURCES_MAX + 1) /* the resources and a constants buffer */

/* What a resource is on the GPU. */
typedef enum res_kind {
    RES_NONE = 0,     /* a scratch surface, or beyond the table */
    RES_HOST,         /* a host image, bound per frame */
    RES_BUFFER,       /* a storage (or uniform) buffer */
    RES_HISTORY,      /* a HISTORY or HISTORY_NEXT surface: one of two buffers by parity */
    RES_SAMPLER
} res_kind;

typedef struct resource {
    res_kind kind;
    const char *name;
    VkDescriptorType type;          /* its descriptor */
    VkBuffer buf;                   /* a history pair: HISTORY has buffer A, its NEXT B */
    VkDeviceSize bytes;
    VkDeviceSize offset;            /* in the allocation */
    const void *upload;
    VkDeviceSize upload_bytes;
    uint32_t clear_value;
    VkSampler sampler;
    bool linear;                    /* RES_SAMPLER: filters linearly */
    upf__vk_host_rule rule;         /* RES_HOST */
    VkFormat formats[UPF__VK_HOST_FORMATS_MAX];
    VkFormat srgb_formats[UPF__VK_HOST_FORMATS_MAX];
    bool format_ok[UPF__VK_HOST_FORMATS_MAX]; /* the device samples / stores it */
} resource;

typedef struct gpu_pass {
    upf__vk_pass_plan plan;         /* its variants' spec pointers not kept */
    uint64_t reads, writes, binds;  /* the masks in use; binds = reads | writes */
    bool writes_history;            /* it writes a HISTORY_NEXT (the parity flips) */
    int indirect_res;               /* its indirect dispatches' buffer, or -1 */
    int stamp_index;                /* its timestamp's index after the first, or -1 */
    VkDeviceSize ubo_offset;        /* its region in slot 0 of the constants buffer */
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipe[UPF__VK_VARIANTS_MAX];
} gpu_pass;

struct upf__vk_runner {
    upf_context *ctx;
    upf_vk_device dev;
    upf__vk_funcs vk;
    upf__vk_caps caps;
    const upf__pass_info *pass;
    int pass_count;
    const upf__surface_info *surface;
    int surface_count;
    int res_count;
    resource res[UPF__VK_RESOURCES_MAX];
    gpu_pass gp[UPF__VK_GPU_PASSES_MAX];
    int gp_count;
    int slots, parities;
    int stamps;                     /* timestamps a slot: the first and one per stamped pass */
    uint64_t indirect;              /* every pass's indirect buffer (INDIRECT_BUFFER usage) */

    VkDeviceMemory memory;
    VkDeviceSize total;
    VkBuffer ubo;                   /* every pass's constants buffer region, per slot */
    VkDeviceSize ubo_stride;        /* bytes a slot */
    VkDescriptorPool pool;
    VkDescriptorSet set[UPF__VK_SLOTS_MAX][2][UPF__VK_GPU_PASSES_MAX];
    VkQueryPool queries;

    uint64_t frames;
    int parity;                     /* the parity the next frame reads */
    bool tables_recorded;
    int64_t slot_frame[UPF__VK_SLOTS_MAX];
    uint32_t slot_stamped[UPF__VK_SLOTS_MAX]; /* bit k: that frame wrote timestamp k + 1 */
};

#define VKFAIL(r, fn, what, res)                                                               \
    upf__fail((r)->ctx, (res) == VK_ERROR_OUT_OF_HOST_MEMORY ||                               \
                                (res) == VK_ERROR_OUT_OF_DEVICE_MEMORY                         \
                            ? UPF_ERROR_OUT_OF_MEMORY                                          \
                            : UPF_ERROR_UNSUPPORTED,                                           \
              "%s: %s failed: %s", fn, what, upf__vk_result_name(res))

static bool is_host(upf__surface_role role)
{
    return role == UPF__SURFACE_INPUT || role == UPF__SURFACE_OUTPUT;
}

/* ---- destroy ------------------------------------------------------------------------------- */

static void destroy_passes(upf__vk_runner *r)
{
    const upf__vk_funcs *vk = &r->vk;
    const VkAllocationCallbacks *a = r->dev.allocator;
    VkDevice d = r->dev.device;
    for (int p = 0; p < r->gp_count; p++) {
        gpu_pass *g = &r->gp[p];
        for (int v = 0; v < UPF__VK_VARIANTS_MAX; v++)
            if (g->pipe[v])
                vk->vkDestroyPipeline(d, g->pipe[v], a);
        if (g->layout)
            vk->vkDestroyPipelineLayout(d, g->layout, a);
        if (g->dsl)
            vk->vkDestroyDescriptorSetLayout(d, g->dsl, a);
    }
}

void upf__vk_runner_destroy(upf__vk_runner **pr)
{
    if (!pr || !*pr)
        return;
    upf__vk_runner *r = *pr;
    const upf__vk_funcs *vk = &r->vk;
    const VkAllocationCallbacks *a = r->dev.allocator;
    VkDevice d = r->dev.device;
    if (vk->vkDestroyBuffer) {
        if (r->queries)
            vk->vkDestroyQueryPool(d, r->queries, a);
        if (r->pool)
            vk->vkDestroyDescriptorPool(d, r->pool, a);
        destroy_passes(r);
        for (int i = 0; i < r->res_count; i++) {
            if (r->res[i].buf)
                vk->vkDestroyBuffer(d, r->res[i].buf, a);
            if (r->res[i].sampler)
                vk->vkDestroySampler(d, r->res[i].sampler, a);
        }
        if (r->ubo)
            vk->vkDestroyBuffer(d, r->ubo, a);
        if (r->memory)
            vk->vkFreeMemory(d, r->memory, a);
    }
    upf__free(r->ctx, r);
    *pr = NULL;
}

/* ---- resources ----------------------------------------------------------------------------- */

/* The host rule of surface i, copied (its format lists into the runner), with the device's
 * support of each format. */
static upf_result take_host_rule(upf__vk_runner *r, const char *fn, int i,
                                 const upf__vk_host_rule *rule)
{
    resource *res = &r->res[i];
    const bool out = r->surface[i].role == UPF__SURFACE_OUTPUT;
    if (rule->format_count < 1 || rule->format_count > UPF__VK_HOST_FORMATS_MAX ||
        rule->srgb_format_count < 0 || rule->srgb_format_count > UPF__VK_HOST_FORMATS_MAX ||
        rule->max_width < 1 || rule->max_height < 1)
        return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: the host image rule of surface %s "
                         "is incomplete", fn, r->surface[i].name);
    for (int k = 0; k < rule->format_count; k++)
        if (upf__vk_format_aspects(rule->formats[k]) != VK_IMAGE_ASPECT_COLOR_BIT &&
            !rule->depth)
            return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: the host image rule of surface "
                             "%s lists a depth format without `depth`", fn,
                             r->surface[i].name);
    res->rule = *rule;
    res->rule.storage = out || rule->storage;
    memcpy(res->formats, rule->formats, sizeof(VkFormat) * (size_t)rule->format_count);
    if (rule->srgb_format_count)
        memcpy(res->srgb_formats, rule->srgb_formats,
               sizeof(VkFormat) * (size_t)rule->srgb_format_count);
    res->rule.formats = res->formats;
    res->rule.srgb_formats = res->srgb_formats;
    const VkFormatFeatureFlags need = res->rule.storage ? VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT
                                                        : VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    for (int k = 0; k < rule->format_count; k++) {
        VkFormatProperties fp;
        r->vk.vkGetPhysicalDeviceFormatProperties(r->dev.physical_device, res->formats[k], &fp);
        res->format_ok[k] = (fp.optimalTilingFeatures & need) == need;
    }
    res->type = res->rule.storage ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
                                  : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    return UPF_OK;
}

/* Each resource's kind, name, bytes, upload and clear value, from the tables and the plan. */
static upf_result plan_resources(upf__vk_runner *r, const upf__vk_runner_params *p)
{
    for (int i = 0; i < r->surface_count; i++) {
        const upf__surface_info *si = &r->surface[i];
        resource *res = &r->res[i];
        res->name = si->name;
        if (si->role == UPF__SURFACE_SCRATCH)
            continue;
        if (is_host(si->role)) {
            res->kind = RES_HOST;
            upf_result e = take_host_rule(r, p->fn, i, &p->host[i]);
            if (e != UPF_OK)
                return e;
            continue;
        }
        const upf__vk_surface_plan *sp = &p->surface_plan[i];
        res->kind = si->role == UPF__SURFACE_HISTORY || si->role == UPF__SURFACE_HISTORY_NEXT
                        ? RES_HISTORY : RES_BUFFER;
        res->type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        res->bytes = sp->bytes ? sp->bytes
                               : (VkDeviceSize)p->width[i] * (VkDeviceSize)p->height[i] *
                                     upf__surface_format_bytes(si->format);
        res->upload = sp->upload;
        res->upload_bytes = sp->upload_bytes;
        res->clear_value = sp->clear_value;
        if (si->role == UPF__SURFACE_HISTORY &&
            (i + 1 >= r->surface_count || r->surface[i + 1].role != UPF__SURFACE_HISTORY_NEXT))
            return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: history surface %s has no "
                             "HISTORY_NEXT partner after it", p->fn, si->name);
    }
    for (int k = 0; k < p->extra_count; k++) {
        const upf__vk_extra_plan *e = &p->extra[k];
        resource *res = &r->res[r->surface_count + k];
        res->name = e->name;
        res->kind = e->kind >= UPF__VK_EXTRA_SAMPLER_LINEAR ? RES_SAMPLER : RES_BUFFER;
        res->type = e->kind == UPF__VK_EXTRA_UNIFORM   ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                    : e->kind == UPF__VK_EXTRA_STORAGE ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                                       : VK_DESCRIPTOR_TYPE_SAMPLER;
        res->bytes = e->bytes;
        res->upload = e->upload;
        res->upload_bytes = e->upload && !e->upload_bytes ? e->bytes : e->upload_bytes;
        res->clear_value = e->clear_value;
        res->linear = e->kind == UPF__VK_EXTRA_SAMPLER_LINEAR;
    }
    for (int i = 0; i < r->surface_count; i++) /* a pair's two buffers alternate: one size */
        if (r->surface[i].role == UPF__SURFACE_HISTORY) {
            VkDeviceSize *a = &r->res[i].bytes, *b = &r->res[i + 1].bytes;
            *a = *b = *a > *b ? *a : *b;
        }
    for (int i = 0; i < r->res_count; i++) {
        resource *res = &r->res[i];
        if (res->kind == RES_BUFFER || res->kind == RES_HISTORY) {
            if (res->bytes < 16) /* every descriptor valid, without nullDescriptor */
                res->bytes = 16;
            if (res->upload && (res->upload_bytes > res->bytes || res->upload_bytes % 4))
                return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: the upload of %s (%llu "
                                 "bytes) is not a multiple of 4 within its %llu bytes", p->fn,
                                 res->name, (unsigned long long)res->upload_bytes,
                                 (unsigned long long)res->bytes);
        }
    }
    return UPF_OK;
}

static upf_result make_buffer(upf__vk_runner *r, const char *fn, VkDeviceSize bytes,
                              VkBufferUsageFlags usage, VkBuffer *out)
{
    const VkBufferCreateInfo bi = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = bytes,
        .usage = usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
    const VkResult e = r->vk.vkCreateBuffer(r->dev.device, &bi, r->dev.allocator, out);
    return e == VK_SUCCESS ? UPF_OK : VKFAIL(r, fn, "vkCreateBuffer", e);
}

/* A sampler of an extra: clamp to edge, normalised coordinates. */
static upf_result make_sampler(upf__vk_runner *r, const char *fn, bool linear, VkSampler *out)
{
    const VkFilter f = linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    const VkSamplerCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .magFilter = f, .minFilter = f,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, .maxLod = 0.0f };
    const VkResult e = r->vk.vkCreateSampler(r->dev.device, &ci, r->dev.allocator, out);
    return e == VK_SUCCESS ? UPF_OK : VKFAIL(r, fn, "vkCreateSampler", e);
}

/* Places buffer b after *total at its alignment; returns its offset. */
static VkDeviceSize place(upf__vk_runner *r, VkBuffer b, VkDeviceSize *total, uint32_t *types)
{
    VkMemoryRequirements req;
    r->vk.vkGetBufferMemoryRequirements(r->dev.device, b, &req);
    const VkDeviceSize at = (*total + req.alignment - 1) / req.alignment * req.alignment;
    *total = at + req.size;
    *types &= req.memoryTypeBits;
    return at;
}

/* The memory type for `types`: device-local if any, else the first. */
static uint32_t memory_type(const upf__vk_runner *r, uint32_t types)
{
    for (uint32_t t = 0; t < r->caps.memory.memoryTypeCount; t++)
        if ((types & (1u << t)) && (r->caps.memory.memoryTypes[t].propertyFlags &
                                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            return t;
    for (uint32_t t = 0; t < r->caps.memory.memoryTypeCount; t++)
        if (types & (1u << t))
            return t;
    return UINT32_MAX;
}

/* The constants buffer: each pass's ubo_bytes at the device's uniform offset alignment, the
 * same layout once per slot. */
static upf_result make_ubo(upf__vk_runner *r, const char *fn)
{
    const VkDeviceSize align = r->caps.props.limits.minUniformBufferOffsetAlignment
                                   ? r->caps.props.limits.minUniformBufferOffsetAlignment
                                   : 256;
    VkDeviceSize at = 0;
    for (int p = 0; p < r->gp_count; p++) {
        gpu_pass *g = &r->gp[p];
        if (!g->plan.ubo_bytes)
            continue;
        g->ubo_offset = at;
        at = (at + g->plan.ubo_bytes + align - 1) / align * align;
    }
    r->ubo_stride = at;
    if (!at)
        return UPF_OK;
    return make_buffer(r, fn, at * (VkDeviceSize)r->slots, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                       &r->ubo);
}

/* Every buffer (two for a history pair: the partner's is the second), the constants buffer,
 * one allocation for all; the samplers. */
static upf_result make_buffers(upf__vk_runner *r, const char *fn)
{
    upf_result e;
    for (int i = 0; i < r->res_count; i++) {
        resource *res = &r->res[i];
        if (res->kind == RES_SAMPLER &&
            (e = make_sampler(r, fn, res->linear, &res->sampler)) != UPF_OK)
            return e;
        if (res->kind != RES_BUFFER && res->kind != RES_HISTORY)
            continue;
        const VkBufferUsageFlags usage =
            (res->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ? VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
                                                            : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) |
            (r->indirect & UPF__VK_RES(i) ? VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT : 0);
        if ((e = make_buffer(r, fn, res->bytes, usage, &res->buf)) != UPF_OK)
            return e;
    }
    if ((e = make_ubo(r, fn)) != UPF_OK)
        return e;
    VkDeviceSize total = 0;
    uint32_t types = ~0u;
    for (int i = 0; i < r->res_count; i++)
        if (r->res[i].buf)
            r->res[i].offset = place(r, r->res[i].buf, &total, &types);
    const VkDeviceSize ubo_at = r->ubo ? place(r, r->ubo, &total, &types) : 0;
    if (!total)
        return UPF_OK;
    const uint32_t type = memory_type(r, types);
    if (type == UINT32_MAX)
        return upf__fail(r->ctx, UPF_ERROR_UNSUPPORTED, "%s: no memory type holds every "
                         "buffer (types 0x%x)", fn, types);
    const VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .allocationSize = total, .memoryTypeIndex = type };
    VkResult v = r->vk.vkAllocateMemory(r->dev.device, &ai, r->dev.allocator, &r->memory);
    if (v != VK_SUCCESS)
        return upf__fail(r->ctx, UPF_ERROR_OUT_OF_MEMORY, "%s: vkAllocateMemory of %llu bytes "
                         "for the engine's buffers failed: %s", fn, (unsigned long long)total,
                         upf__vk_result_name(v));
    r->total = total;
    for (int i = 0; i < r->res_count && v == VK_SUCCESS; i++)
        if (r->res[i].buf)
            v = r->vk.vkBindBufferMemory(r->dev.device, r->res[i].buf, r->memory,
                                         r->res[i].offset);
    if (v == VK_SUCCESS && r->ubo)
        v = r->vk.vkBindBufferMemory(r->dev.device, r->ubo, r->memory, ubo_at);
    if (v != VK_SUCCESS)
        return VKFAIL(r, fn, "vkBindBufferMemory", v);
    upf__log(r->ctx, UPF_LOG_DEBUG, "%s: %llu bytes of device memory (type %u)", fn,
             (unsigned long long)total, type);
    for (int i = 0; i < r->res_count; i++) {
        const char *name;
        const VkDeviceSize bytes = upf__vk_runner_bytes(r, i, &name);
        if (bytes)
            upf__log(r->ctx, UPF_LOG_DEBUG, "%s: %s: %llu bytes", fn, name,
                     (unsigned long long)bytes);
    }
    return UPF_OK;
}

/* ---- pipelines and descriptor sets --------------------------------------------------------- */

/* A GPU pass's masks: its CPU pass's (scratch surfaces left out) and its own, or its own
 * alone. */
static upf_result plan_masks(upf__vk_runner *r, const char *fn, gpu_pass *g)
{
    const upf__vk_pass_plan *pl = &g->plan;
    uint64_t reads = pl->reads, writes = pl->writes;
    if (!pl->own_masks) {
        reads |= r->pass[pl->pass].reads;
        writes |= r->pass[pl->pass].writes;
    }
    for (int i = 0; i < r->surface_count; i++)
        if (r->res[i].kind == RES_NONE)
            reads &= ~UPF__VK_RES(i), writes &= ~UPF__VK_RES(i);
    g->reads = reads, g->writes = writes, g->binds = reads | writes;
    for (int i = 0; i < UPF__VK_RESOURCES_MAX; i++)
        if ((g->binds & UPF__VK_RES(i)) && (i >= r->res_count || r->res[i].kind == RES_NONE))
            return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: GPU pass of %s binds resource "
                             "%d, which is not on the GPU", fn, r->pass[pl->pass].name, i);
    for (int i = 0; i < r->surface_count; i++)
        if ((writes & UPF__VK_RES(i)) && r->surface[i].role == UPF__SURFACE_HISTORY_NEXT)
            g->writes_history = true;
    g->indirect_res = -1;
    for (int i = 0; i < r->res_count; i++)
        if (pl->indirect == UPF__VK_RES(i) && r->res[i].kind == RES_BUFFER &&
            r->res[i].type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
            g->indirect_res = i;
    if (pl->indirect && g->indirect_res < 0)
        return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: GPU pass of %s: its indirect buffer "
                         "(mask 0x%llx) is not one storage buffer", fn, r->pass[pl->pass].name,
                         (unsigned long long)pl->indirect);
    r->indirect |= pl->indirect;
    if (pl->ubo_bytes && (pl->ubo_binding < 64 && (g->binds & UPF__VK_RES(pl->ubo_binding))))
        return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: GPU pass of %s: its constants' "
                         "binding %u is a resource's", fn, r->pass[pl->pass].name,
                         pl->ubo_binding);
    return UPF_OK;
}

static upf_result make_layout(upf__vk_runner *r, const char *fn, gpu_pass *g)
{
    VkDescriptorSetLayoutBinding lb[BINDINGS_MAX];
    uint32_t n = 0;
    for (int i = 0; i < r->res_count; i++)
        if (g->binds & UPF__VK_RES(i))
            lb[n++] = (VkDescriptorSetLayoutBinding){ (uint32_t)i, r->res[i].type, 1,
                                                      VK_SHADER_STAGE_COMPUTE_BIT, NULL };
    if (g->plan.ubo_bytes)
        lb[n++] = (VkDescriptorSetLayoutBinding){ g->plan.ubo_binding,
                                                  VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1,
                                                  VK_SHADER_STAGE_COMPUTE_BIT, NULL };
    const VkDescriptorSetLayoutCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = n,
        .pBindings = lb };
    VkResult e = r->vk.vkCreateDescriptorSetLayout(r->dev.device, &dci, r->dev.allocator, &g->dsl);
    if (e != VK_SUCCESS)
        return VKFAIL(r, fn, "vkCreateDescriptorSetLayout", e);
    const VkPushConstantRange range = { VK_SHADER_STAGE_COMPUTE_BIT, 0, g->plan.push_bytes };
    const VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
        .pSetLayouts = &g->dsl, .pushConstantRangeCount = g->plan.push_bytes ? 1u : 0u,
        .pPushConstantRanges = &range };
    e = r->vk.vkCreatePipelineLayout(r->dev.device, &lci, r->dev.allocator, &g->layout);
    return e == VK_SUCCESS ? UPF_OK : VKFAIL(r, fn, "vkCreatePipelineLayout", e);
}

#ifdef UPF_VK_PROBE
/* Shader work only: the driver's statistics of one pipeline (registers, shared memory, ...:
 * what VK_KHR_pipeline_executable_properties reports), one line on stderr. */
static void print_pipeline_stats(upf__vk_runner *r, const char *name, VkPipeline pipe)
{
    PFN_vkGetPipelineExecutableStatisticsKHR get =
        (PFN_vkGetPipelineExecutableStatisticsKHR)r->vk.vkGetDeviceProcAddr(
            r->dev.device, "vkGetPipelineExecutableStatisticsKHR");
    if (!get)
        return;
    const VkPipelineExecutableInfoKHR ei = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipe,
        .executableIndex = 0 };
    VkPipelineExecutableStatisticKHR st[32];
    uint32_t n = 32;
    for (uint32_t i = 0; i < n; i++)
        st[i] = (VkPipelineExecutableStatisticKHR){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR };
    const VkResult e = get(r->dev.device, &ei, &n, st);
    fprintf(stderr, "pipeline stats %s:", name);
    for (uint32_t i = 0; i < n && e >= 0; i++) {
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

/* One compute pipeline of the embedded shader `name` in `layout` (for pass `pass`, named in
 * errors). */
static upf_result make_pipeline(upf__vk_runner *r, const char *fn, const char *pass,
                                const upf__vk_variant *v, VkPipelineLayout layout,
                                VkPipeline *out)
{
    const upf__vk_funcs *vk = &r->vk;
    const upf__vk_shader *sh = v->code ? v->code
                               : v->shader ? upf__vk_shader_find(v->shader) : NULL;
    if (!sh)
        return upf__fail(r->ctx, UPF_ERROR_UNSUPPORTED, "%s: this build has no shader "
                         "\"%s\" (src/vk/shaders/%s.comp) for the %s pass", fn,
                         v->shader ? v->shader : "(none)", v->shader ? v->shader : "?", pass);
    const VkShaderModuleCreateInfo mci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = sh->count * 4, .pCode = sh->words };
    VkShaderModule module;
    VkResult e = vk->vkCreateShaderModule(r->dev.device, &mci, r->dev.allocator, &module);
    if (e != VK_SUCCESS)
        return VKFAIL(r, fn, "vkCreateShaderModule", e);
    VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                   .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module, .pName = "main",
                   .pSpecializationInfo = v->spec },
        .layout = layout };
#ifdef UPF_VK_PROBE
    if (getenv("UPF_VK_PIPELINE_STATS"))
        pci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
#endif
    e = vk->vkCreateComputePipelines(r->dev.device, VK_NULL_HANDLE, 1, &pci, r->dev.allocator,
                                     out);
    vk->vkDestroyShaderModule(r->dev.device, module, r->dev.allocator);
    if (e != VK_SUCCESS)
        return upf__fail(r->ctx, UPF_ERROR_UNSUPPORTED, "%s: the %s pass's pipeline (shader "
                         "%s) did not compile: %s", fn, pass, v->shader,
                         upf__vk_result_name(e));
#ifdef UPF_VK_PROBE
    if (getenv("UPF_VK_PIPELINE_STATS"))
        print_pipeline_stats(r, v->shader, *out);
#endif
    return UPF_OK;
}

/* Each GPU pass's masks, layout and pipelines; the timestamps' indices. */
static upf_result make_passes(upf__vk_runner *r, const upf__vk_runner_params *p)
{
    r->stamps = 1;
    for (int k = 0; k < p->gpu_pass_count; k++) {
        gpu_pass *g = &r->gp[k];
        g->plan = p->gpu_pass[k];
        r->gp_count = k + 1;
        const upf__vk_pass_plan *pl = &g->plan;
        if (pl->pass < 0 || pl->pass >= r->pass_count || pl->variant_count < 1 ||
            pl->variant_count > UPF__VK_VARIANTS_MAX || pl->push_bytes % 4 ||
            pl->push_bytes > UPF__VK_PUSH_MAX ||
            pl->push_bytes > r->caps.props.limits.maxPushConstantsSize ||
            (pl->patch_used && pl->patch_offset + 4 > pl->push_bytes) || pl->ubo_bytes % 4 ||
            pl->ubo_bytes > 65536)
            return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: GPU pass %d's plan is out of "
                             "range (pass %d, %d variants, %u push bytes, %u uniform bytes)",
                             p->fn, k, pl->pass, pl->variant_count, pl->push_bytes,
                             pl->ubo_bytes);
        upf_result e;
        if ((e = plan_masks(r, p->fn, g)) != UPF_OK || (e = make_layout(r, p->fn, g)) != UPF_OK)
            return e;
        for (int v = 0; v < pl->variant_count; v++)
            if ((e = make_pipeline(r, p->fn, r->pass[pl->pass].name, &pl->variant[v], g->layout,
                                   &g->pipe[v])) != UPF_OK)
                return e;
        for (int v = 0; v < UPF__VK_VARIANTS_MAX; v++)
            g->plan.variant[v].spec = NULL; /* the engine's, valid during create only */
        g->stamp_index = pl->stamp ? r->stamps++ : -1;
    }
    return UPF_OK;
}

/* The buffer resource i is bound to at `parity` (a history pair's two alternate). */
static VkBuffer buffer_at(const upf__vk_runner *r, int i, int parity)
{
    const resource *res = &r->res[i];
    if (res->kind != RES_HISTORY || !parity)
        return res->buf;
    const bool next = r->surface[i].role == UPF__SURFACE_HISTORY_NEXT;
    return r->res[next ? i - 1 : i + 1].buf;
}

/* The descriptors of one set that never change: buffers, samplers, the constants. */
static void write_static(upf__vk_runner *r, int slot, int parity, int k)
{
    const gpu_pass *g = &r->gp[k];
    VkDescriptorBufferInfo bi[BINDINGS_MAX];
    VkDescriptorImageInfo ii[BINDINGS_MAX];
    VkWriteDescriptorSet wr[BINDINGS_MAX];
    uint32_t n = 0;
    for (int i = 0; i < r->res_count; i++) {
        const resource *res = &r->res[i];
        if (!(g->binds & UPF__VK_RES(i)) || res->kind == RES_HOST)
            continue;
        wr[n] = (VkWriteDescriptorSet){ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                        .dstSet = r->set[slot][parity][k],
                                        .dstBinding = (uint32_t)i, .descriptorCount = 1,
                                        .descriptorType = res->type };
        if (res->kind == RES_SAMPLER) {
            ii[n] = (VkDescriptorImageInfo){ res->sampler, VK_NULL_HANDLE,
                                             VK_IMAGE_LAYOUT_UNDEFINED };
            wr[n].pImageInfo = &ii[n];
        } else {
            bi[n] = (VkDescriptorBufferInfo){ buffer_at(r, i, parity), 0, VK_WHOLE_SIZE };
            wr[n].pBufferInfo = &bi[n];
        }
        n++;
    }
    if (g->plan.ubo_bytes) {
        bi[n] = (VkDescriptorBufferInfo){
            r->ubo, (VkDeviceSize)slot * r->ubo_stride + g->ubo_offset, g->plan.ubo_bytes };
        wr[n] = (VkWriteDescriptorSet){ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                        .dstSet = r->set[slot][parity][k],
                                        .dstBinding = g->plan.ubo_binding, .descriptorCount = 1,
                                        .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                        .pBufferInfo = &bi[n] };
        n++;
    }
    if (n)
        r->vk.vkUpdateDescriptorSets(r->dev.device, n, wr, 0, NULL);
}

/* The pool, and a set per GPU pass, slot and parity. */
static upf_result make_sets(upf__vk_runner *r, const char *fn)
{
    enum { TYPES = 5 };
    static const VkDescriptorType types[TYPES] = {
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
        VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
        VK_DESCRIPTOR_TYPE_SAMPLER };
    VkDescriptorPoolSize sizes[TYPES];
    uint32_t nsizes = 0;
    const uint32_t sets = (uint32_t)(r->slots * r->parities);
    for (int t = 0; t < TYPES; t++) {
        uint32_t count = 0;
        for (int k = 0; k < r->gp_count; k++) {
            for (int i = 0; i < r->res_count; i++)
                count += (r->gp[k].binds & UPF__VK_RES(i)) && r->res[i].type == types[t];
            count += types[t] == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER && r->gp[k].plan.ubo_bytes;
        }
        if (count)
            sizes[nsizes++] = (VkDescriptorPoolSize){ types[t], count * sets };
    }
    const VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = sets * (uint32_t)r->gp_count, .poolSizeCount = nsizes, .pPoolSizes = sizes };
    VkResult e = r->vk.vkCreateDescriptorPool(r->dev.device, &pci, r->dev.allocator, &r->pool);
    if (e != VK_SUCCESS)
        return VKFAIL(r, fn, "vkCreateDescriptorPool", e);
    VkDescriptorSetLayout dsl[UPF__VK_GPU_PASSES_MAX];
    for (int k = 0; k < r->gp_count; k++)
        dsl[k] = r->gp[k].dsl;
    for (int slot = 0; slot < r->slots; slot++)
        for (int par = 0; par < r->parities; par++) {
            const VkDescriptorSetAllocateInfo ai = {
                .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                .descriptorPool = r->pool, .descriptorSetCount = (uint32_t)r->gp_count,
                .pSetLayouts = dsl };
            if ((e = r->vk.vkAllocateDescriptorSets(r->dev.device, &ai, r->set[slot][par])) !=
                VK_SUCCESS)
                return VKFAIL(r, fn, "vkAllocateDescriptorSets", e);
            for (int k = 0; k < r->gp_count; k++)
                write_static(r, slot, par, k);
        }
    return UPF_OK;
}

static upf_result make_queries(upf__vk_runner *r, const char *fn)
{
    if (!r->caps.timestamp_bits || !r->caps.props.limits.timestampComputeAndGraphics)
        return upf__fail(r->ctx, UPF_ERROR_UNSUPPORTED, "%s: timestamps asked for, but the "
                         "queue family has no timestamps (timestampValidBits 0 or no "
                         "timestampComputeAndGraphics)", fn);
    const VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                        .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                        .queryCount = (uint32_t)(r->slots * r->stamps) };
    const VkResult e = r->vk.vkCreateQueryPool(r->dev.device, &qci, r->dev.allocator,
                                               &r->queries);
    return e == VK_SUCCESS ? UPF_OK : VKFAIL(r, fn, "vkCreateQueryPool", e);
}

/* ---- create -------------------------------------------------------------------------------- */

upf_result upf__vk_check_engine_params(upf_context *ctx, const char *fn,
                                       const upf_vk_device *dev, int frames_in_flight)
{
    upf_result r = upf__vk_check_handles(ctx, fn, dev);
    if (r != UPF_OK)
        return r;
    if (frames_in_flight < 0 || frames_in_flight > UPF__VK_FRAMES_IN_FLIGHT_MAX)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frames_in_flight %d is out of "
                         "range (expected 0 for 2, or 1 .. %d)", fn, frames_in_flight,
                         UPF__VK_FRAMES_IN_FLIGHT_MAX);
    return UPF_OK;
}

static upf_result check_params(upf_context *ctx, const upf__vk_runner_params *p)
{
    if (!p->fn || !p->dev || !p->vk || !p->caps || !p->pass || !p->surface ||
        p->pass_count < 1 || p->pass_count > UPF__PASSES_MAX || p->surface_count < 1 ||
        p->surface_count > UPF__SURFACES_MAX || p->extra_count < 0 ||
        p->extra_count > UPF__VK_EXTRAS_MAX || p->gpu_pass_count < 1 ||
        p->gpu_pass_count > UPF__VK_GPU_PASSES_MAX || p->slots < 1 ||
        p->slots > UPF__VK_SLOTS_MAX || p->surface_count + p->extra_count > 64)
        return upf__fail(ctx, UPF_ERROR_INTERNAL, "%s: the pass runner's params are out of "
                         "range", p->fn ? p->fn : "upf__vk_runner_create");
    return UPF_OK;
}

upf__vk_runner *upf__vk_runner_create(const upf__vk_runner_params *p)
{
    if (!p || !p->ctx || check_params(p->ctx, p) != UPF_OK)
        return NULL;
    upf__vk_runner *r = upf__alloc(p->ctx, sizeof *r, "the Vulkan pass runner");
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->ctx = p->ctx;
    r->dev = *p->dev;
    r->dev.enabled_extensions = NULL; /* the host's arrays: not kept */
    r->dev.enabled_features = NULL;
    r->vk = *p->vk;
    r->caps = *p->caps;
    r->pass = p->pass, r->pass_count = p->pass_count;
    r->surface = p->surface, r->surface_count = p->surface_count;
    r->res_count = p->surface_count + p->extra_count;
    r->slots = p->slots;
    r->parities = 1;
    for (int i = 0; i < p->surface_count; i++)
        if (p->surface[i].role == UPF__SURFACE_HISTORY)
            r->parities = 2;
    for (int k = 0; k < UPF__VK_SLOTS_MAX; k++)
        r->slot_frame[k] = -1;
    if (plan_resources(r, p) != UPF_OK || make_passes(r, p) != UPF_OK ||
        make_buffers(r, p->fn) != UPF_OK || make_sets(r, p->fn) != UPF_OK ||
        (p->timestamps && make_queries(r, p->fn) != UPF_OK)) {
        upf__vk_runner_destroy(&r);
        return NULL;
    }
    return r;
}

VkBuffer upf__vk_runner_buffer(const upf__vk_runner *r, int i, VkDeviceSize *bytes)
{
    *bytes = 0;
    if (i < 0 || i >= r->res_count || !r->res[i].buf)
        return VK_NULL_HANDLE;
    *bytes = r->res[i].bytes;
    return buffer_at(r, i, r->parity);
}

VkDeviceSize upf__vk_runner_bytes(const upf__vk_runner *r, int i, const char **name)
{
    if (i < 0 || i >= r->res_count) {
        if (name)
            *name = NULL;
        return 0;
    }
    const resource *res = &r->res[i];
    if (name)
        *name = res->name;
    if (!res->buf)
        return 0;
    const bool pair = res->kind == RES_HISTORY &&
                      r->surface[i].role == UPF__SURFACE_HISTORY;
    const bool partner = res->kind == RES_HISTORY && !pair;
    return partner ? 0 : pair ? 2 * res->bytes : res->bytes;
}

VkDeviceSize upf__vk_runner_total_bytes(const upf__vk_runner *r)
{
    return r->total;
}

const upf__vk_caps *upf__vk_runner_caps(const upf__vk_runner *r)
{
    return &r->caps;
}

uint64_t upf__vk_runner_frames(const upf__vk_runner *r)
{
    return r->frames;
}

int upf__vk_runner_parity(const upf__vk_runner *r)
{
    return r->parity;
}

/* ---- checking a host image ----------------------------------------------------------------- */

static const char *format_name(VkFormat f)
{
    switch (f) {
#define N(x) case VK_FORMAT_##x: return "VK_FORMAT_" #x;
    N(R8_UNORM) N(R8G8_UNORM) N(R8G8B8A8_UNORM) N(R8G8B8A8_SRGB) N(B8G8R8A8_UNORM)
    N(B8G8R8A8_SRGB) N(A2B10G10R10_UNORM_PACK32) N(A2R10G10B10_UNORM_PACK32)
    N(R16_SFLOAT) N(R16G16_SFLOAT) N(R16G16B16A16_SFLOAT) N(R16G16B16A16_UNORM)
    N(B10G11R11_UFLOAT_PACK32) N(R32_SFLOAT) N(R32G32_SFLOAT) N(R32G32B32A32_SFLOAT)
    N(D16_UNORM) N(X8_D24_UNORM_PACK32) N(D32_SFLOAT) N(D16_UNORM_S8_UINT)
    N(D24_UNORM_S8_UINT) N(D32_SFLOAT_S8_UINT)
#undef N
    default: return "";
    }
}

static bool layout_ok(VkImageLayout l, bool depth)
{
    if (depth && (l == VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL ||
                  l == VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL))
        return true;
    return l == VK_IMAGE_LAYOUT_GENERAL || l == VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL ||
           l == VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL ||
           l == VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL ||
           l == VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL || l == VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
}

static int find_format(const VkFormat *list, int n, VkFormat f)
{
    for (int i = 0; i < n; i++)
        if (list[i] == f)
            return i;
    return -1;
}

/* The format, the device's support of it, the usage and the sRGB flag. */
static upf_result check_format(upf__vk_runner *r, const char *fn, const char *what,
                               const resource *res, const upf_vk_image *im)
{
    const upf__vk_host_rule *rule = &res->rule;
    const int fi = find_format(rule->formats, rule->format_count, im->format);
    const char *name = format_name(im->format);
    if (fi < 0)
        return upf__fail(r->ctx, UPF_ERROR_UNSUPPORTED, "%s: %s: format %s%s%d%s is not one "
                         "upframe takes as %s (%s)", fn, what, name, *name ? " (" : "",
                         (int)im->format, *name ? ")" : "", rule->as ? rule->as : what,
                         rule->docs ? rule->docs : "docs/VULKAN.md");
    if (!res->format_ok[fi])
        return upf__fail(r->ctx, UPF_ERROR_UNSUPPORTED, "%s: %s: this device cannot %s %s "
                         "images (no %s in its optimal tiling features)", fn, what,
                         rule->storage ? "write" : "sample", name,
                         rule->storage ? "VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT"
                                       : "VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT");
    const VkImageUsageFlags need = rule->storage ? VK_IMAGE_USAGE_STORAGE_BIT
                                                 : VK_IMAGE_USAGE_SAMPLED_BIT;
    if (!(im->usage & need))
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: usage 0x%x lacks %s, "
                         "which upframe needs to %s it", fn, what, (unsigned)im->usage,
                         rule->storage ? "VK_IMAGE_USAGE_STORAGE_BIT"
                                       : "VK_IMAGE_USAGE_SAMPLED_BIT",
                         rule->storage ? "write" : "read");
    if (im->srgb && find_format(rule->srgb_formats, rule->srgb_format_count, im->format) < 0) {
        char list[512] = "none";
        size_t at = 0;
        for (int k = 0; k < rule->srgb_format_count && at < sizeof list; k++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "",
                                   format_name(rule->srgb_formats[k]));
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: srgb = 1 with %s: only "
                         "a UNORM view (%s) may hold sRGB-encoded values", fn, what, name, list);
    }
    return UPF_OK;
}

/* The extent, the rectangle and the created size. */
static upf_result check_rect(upf__vk_runner *r, const char *fn, const char *what,
                             const upf__vk_host_rule *rule, const upf_vk_image *im,
                             upf_rect *rect)
{
    if (im->width < 1 || im->height < 1 || im->width > UPF_MAX_IMAGE_DIMENSION ||
        im->height > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: extent %dx%d is out of "
                         "range (expected 1 .. %d)", fn, what, im->width, im->height,
                         UPF_MAX_IMAGE_DIMENSION);
    const upf_rect rc = im->rect.width ? im->rect : (upf_rect){ 0, 0, im->width, im->height };
    if (rc.x < 0 || rc.y < 0 || rc.width < 1 || rc.height < 1 ||
        rc.x > im->width - rc.width || rc.y > im->height - rc.height)
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: rect %d,%d %dx%d is not "
                         "inside the %dx%d image", fn, what, rc.x, rc.y, rc.width, rc.height,
                         im->width, im->height);
    if (rc.width > rule->max_width || rc.height > rule->max_height)
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: %dx%d is larger than the "
                         "engine was created for (%dx%d)", fn, what, rc.width, rc.height,
                         rule->max_width, rule->max_height);
    *rect = rc;
    return UPF_OK;
}

/* The layout it comes in and the one it is left in. */
static upf_result check_layouts(upf__vk_runner *r, const char *fn, const char *what, bool out,
                                const upf_vk_image *im)
{
    const bool depth = upf__vk_format_aspects(im->format) != VK_IMAGE_ASPECT_COLOR_BIT;
    const char *more = depth ? ", DEPTH_STENCIL_ATTACHMENT_OPTIMAL, "
                               "DEPTH_STENCIL_READ_ONLY_OPTIMAL" : "";
    if (!(layout_ok(im->layout, depth) || (out && im->layout == VK_IMAGE_LAYOUT_UNDEFINED)))
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: layout %d is not one "
                         "upframe can take the %s from (expected GENERAL, "
                         "SHADER_READ_ONLY_OPTIMAL, COLOR_ATTACHMENT_OPTIMAL, "
                         "TRANSFER_SRC/DST_OPTIMAL or PRESENT_SRC_KHR%s%s)", fn, what,
                         (int)im->layout, what, more, out ? ", or UNDEFINED" : "");
    const VkImageLayout fl = im->final_layout ? im->final_layout : im->layout;
    if (!layout_ok(fl, depth))
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: final_layout %d is not "
                         "one upframe can leave it in (expected GENERAL, "
                         "SHADER_READ_ONLY_OPTIMAL, COLOR_ATTACHMENT_OPTIMAL, "
                         "TRANSFER_SRC/DST_OPTIMAL or PRESENT_SRC_KHR%s)", fn, what, (int)fl,
                         more);
    return UPF_OK;
}

upf_result upf__vk_check_host_image(upf__vk_runner *r, const char *fn, const char *what,
                                    int surface, const upf_vk_image *im, upf_rect *rect)
{
    if (surface < 0 || surface >= r->surface_count || r->res[surface].kind != RES_HOST)
        return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: surface %d is not a host image", fn,
                         surface);
    const resource *res = &r->res[surface];
    if (!im)
        return res->rule.optional ? UPF_OK
                                  : upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is "
                                              "NULL; expected a upf_vk_image", fn, what);
    if (!im->image || !im->view)
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s: %s is VK_NULL_HANDLE; "
                         "expected the host's handle", fn, what, !im->image ? "image" : "view");
    upf_result e;
    if ((e = check_format(r, fn, what, res, im)) != UPF_OK ||
        (e = check_rect(r, fn, what, &res->rule, im, rect)) != UPF_OK)
        return e;
    return check_layouts(r, fn, what, r->surface[surface].role == UPF__SURFACE_OUTPUT, im);
}

/* ---- recording ----------------------------------------------------------------------------- */

static bool running(const upf__vk_frame *f, int k)
{
    return f->pass[k].run && f->pass[k].dispatches > 0;
}

/* What the record checks itself: the frame is one the engine may describe. */
static upf_result check_frame(upf__vk_runner *r, const char *fn, const upf__vk_frame *f)
{
    for (int k = 0; k < r->gp_count; k++) {
        if (!f->pass[k].run)
            continue;
        const gpu_pass *g = &r->gp[k];
        const upf__vk_pass_frame *pf = &f->pass[k];
        const char *name = r->pass[g->plan.pass].name;
        if (pf->variant < 0 || pf->variant >= g->plan.variant_count || pf->dispatches < 0 ||
            pf->dispatches > UPF__VK_DISPATCH_MAX || (g->plan.push_bytes && !pf->push) ||
            (g->plan.ubo_bytes && !pf->ubo))
            return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: the %s pass's frame is out of "
                             "range (variant %d, %d dispatches)", fn, name, pf->variant,
                             pf->dispatches);
        for (int d = 0; d < pf->dispatches; d++)
            if (pf->indirect[d] && (g->indirect_res < 0 || pf->indirect_at[d] % 4 ||
                                    (VkDeviceSize)pf->indirect_at[d] + 12 >
                                        r->res[g->indirect_res].bytes))
                return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: the %s pass's indirect "
                                 "dispatch %d is out of range (byte %u)", fn, name, d,
                                 pf->indirect_at[d]);
        for (int i = 0; i < r->surface_count; i++)
            if ((g->binds & UPF__VK_RES(i)) && r->res[i].kind == RES_HOST && !f->image[i])
                return upf__fail(r->ctx, UPF_ERROR_INTERNAL, "%s: the %s pass runs without "
                                 "its image %s", fn, name, r->surface[i].name);
    }
    return UPF_OK;
}

/* The layout a host image is bound in: GENERAL for a storage image or one the host keeps in
 * GENERAL, else SHADER_READ_ONLY_OPTIMAL. */
static VkImageLayout bound_layout(const resource *res, const upf_vk_image *im)
{
    return res->rule.storage || im->layout == VK_IMAGE_LAYOUT_GENERAL
               ? VK_IMAGE_LAYOUT_GENERAL
               : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
}

/* This frame's host images into this slot's and parity's sets of the passes that run. */
static void bind_images(upf__vk_runner *r, const upf__vk_frame *f, int slot)
{
    VkDescriptorImageInfo ii[UPF__VK_GPU_PASSES_MAX * 4];
    VkWriteDescriptorSet wr[UPF__VK_GPU_PASSES_MAX * 4];
    uint32_t n = 0;
    for (int k = 0; k < r->gp_count; k++) {
        if (!running(f, k))
            continue;
        for (int i = 0; i < r->surface_count; i++) {
            const resource *res = &r->res[i];
            if (!(r->gp[k].binds & UPF__VK_RES(i)) || res->kind != RES_HOST)
                continue;
            if (n == sizeof wr / sizeof wr[0]) {
                r->vk.vkUpdateDescriptorSets(r->dev.device, n, wr, 0, NULL);
                n = 0;
            }
            ii[n] = (VkDescriptorImageInfo){ VK_NULL_HANDLE, f->image[i]->view,
                                             bound_layout(res, f->image[i]) };
            wr[n] = (VkWriteDescriptorSet){ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                            .dstSet = r->set[slot][r->parity][k],
                                            .dstBinding = (uint32_t)i, .descriptorCount = 1,
                                            .descriptorType = res->type, .pImageInfo = &ii[n] };
            n++;
        }
    }
    if (n)
        r->vk.vkUpdateDescriptorSets(r->dev.device, n, wr, 0, NULL);
}

static void memory_barrier(const upf__vk_runner *r, VkCommandBuffer cmd, VkPipelineStageFlags from,
                           VkPipelineStageFlags to, VkAccessFlags src, VkAccessFlags dst,
                           uint32_t images, const VkImageMemoryBarrier *image)
{
    const VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = src, .dstAccessMask = dst };
    r->vk.vkCmdPipelineBarrier(cmd, from, to, 0, 1, &mb, 0, NULL, images, image);
}

/* The host images' barriers in (into their bound layouts) or out (to their final layouts). */
static uint32_t image_barriers(const upf__vk_runner *r, const upf__vk_frame *f, bool in,
                               VkImageMemoryBarrier *ib)
{
    uint32_t n = 0;
    for (int i = 0; i < r->surface_count; i++) {
        const upf_vk_image *im = f->image[i];
        if (r->res[i].kind != RES_HOST || !im)
            continue;
        const bool out = r->surface[i].role == UPF__SURFACE_OUTPUT;
        const VkImageLayout bound = bound_layout(&r->res[i], im);
        const VkAccessFlags any = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
        ib[n++] = upf__vk_image_barrier(
            im->image, upf__vk_format_aspects(im->format), in ? im->layout : bound,
            in ? bound : im->final_layout ? im->final_layout : im->layout,
            in ? VK_ACCESS_MEMORY_WRITE_BIT : out ? VK_ACCESS_SHADER_WRITE_BIT : 0,
            !in ? any : out ? VK_ACCESS_SHADER_WRITE_BIT : VK_ACCESS_SHADER_READ_BIT);
    }
    return n;
}

/* DRAW_INDIRECT (where indirect dispatches read their counts) in a runner that has any, and
 * its access. */
static VkPipelineStageFlags indirect_stage(const upf__vk_runner *r)
{
    return r->indirect ? VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT : 0;
}

static VkAccessFlags indirect_access(const upf__vk_runner *r)
{
    return r->indirect ? VK_ACCESS_INDIRECT_COMMAND_READ_BIT : 0;
}

static void fill(const upf__vk_runner *r, VkCommandBuffer cmd, int i, int parity)
{
    r->vk.vkCmdFillBuffer(cmd, buffer_at(r, i, parity), 0, VK_WHOLE_SIZE, r->res[i].clear_value);
}

/* The transfers before the passes: the tables (first record), the histories' zeros (first
 * record, reset), the constants buffers, the clears no earlier pass of the frame touches
 * (`hoisted`). */
static void record_transfers(upf__vk_runner *r, VkCommandBuffer cmd, const upf__vk_frame *f,
                             int slot, uint64_t hoisted)
{
    const upf__vk_funcs *vk = &r->vk;
    for (int i = 0; i < r->res_count && !r->tables_recorded; i++) {
        const resource *res = &r->res[i];
        for (VkDeviceSize at = 0; res->upload && at < res->upload_bytes; at += 65536) {
            const VkDeviceSize n = res->upload_bytes - at < 65536 ? res->upload_bytes - at
                                                                  : 65536;
            vk->vkCmdUpdateBuffer(cmd, res->buf, at, n, (const uint8_t *)res->upload + at);
        }
    }
    for (int i = 0; i < r->surface_count; i++)
        if (r->surface[i].role == UPF__SURFACE_HISTORY && (!r->tables_recorded || f->reset)) {
            vk->vkCmdFillBuffer(cmd, r->res[i].buf, 0, VK_WHOLE_SIZE, 0);
            vk->vkCmdFillBuffer(cmd, r->res[i + 1].buf, 0, VK_WHOLE_SIZE, 0);
        }
    for (int k = 0; k < r->gp_count; k++)
        if (running(f, k) && r->gp[k].plan.ubo_bytes)
            vk->vkCmdUpdateBuffer(cmd, r->ubo,
                                  (VkDeviceSize)slot * r->ubo_stride + r->gp[k].ubo_offset,
                                  r->gp[k].plan.ubo_bytes, f->pass[k].ubo);
    for (int i = 0; i < r->res_count; i++)
        if (hoisted & UPF__VK_RES(i))
            fill(r, cmd, i, r->parity);
}

/* A clear after an earlier pass of the frame touched the buffer: the passes before it finish
 * with it, the fill, the fill visible to the passes after. */
static void record_late_clears(upf__vk_runner *r, VkCommandBuffer cmd, uint64_t late)
{
    const VkPipelineStageFlags ind = indirect_stage(r);
    memory_barrier(r, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | ind,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT, 0, NULL);
    for (int i = 0; i < r->res_count; i++)
        if (late & UPF__VK_RES(i))
            fill(r, cmd, i, r->parity);
    memory_barrier(r, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | ind, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | indirect_access(r),
                   0, NULL);
}

/* Pending accesses since the last barrier, by resource bit. */
typedef struct pending {
    uint64_t written, read;
} pending;

/* A barrier before a dispatch reading `reads` (its indirect buffer among them) and writing
 * `writes` where an earlier one since the last barrier wrote what it touches (RAW, WAW: the
 * writes made visible) or read what it writes (WAR: the execution order only). Any pending
 * write is made visible by it (to DRAW_INDIRECT's indirect reads too where an indirect
 * buffer was written), since the pending state starts over after it. */
static void hazard_barrier(const upf__vk_runner *r, VkCommandBuffer cmd, pending *pd,
                           uint64_t reads, uint64_t writes)
{
    const bool after_write = ((reads | writes) & pd->written) != 0;
    const bool after_read = (writes & pd->read) != 0;
    if (after_write || after_read) {
        const bool to_indirect = (pd->written & r->indirect) != 0;
        memory_barrier(r, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | indirect_stage(r),
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                           (to_indirect ? VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT : 0),
                       pd->written ? VK_ACCESS_SHADER_WRITE_BIT : 0,
                       (pd->written ? VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT : 0) |
                           (to_indirect ? VK_ACCESS_INDIRECT_COMMAND_READ_BIT : 0),
                       0, NULL);
        pd->written = pd->read = 0;
    }
    pd->written |= writes;
    pd->read |= reads;
}

/* GPU pass k's dispatches: each after the barrier it needs, its constants pushed (the patch
 * value at its offset). */
static void record_pass(upf__vk_runner *r, VkCommandBuffer cmd, const upf__vk_frame *f, int k,
                        int slot, pending *pd)
{
    const upf__vk_funcs *vk = &r->vk;
    const gpu_pass *g = &r->gp[k];
    const upf__vk_pass_frame *pf = &f->pass[k];
    uint8_t push[UPF__VK_PUSH_MAX];
    if (g->plan.push_bytes)
        memcpy(push, pf->push, g->plan.push_bytes);
    for (int d = 0; d < pf->dispatches; d++) {
        hazard_barrier(r, cmd, pd, g->reads | (pf->indirect[d] ? g->plan.indirect : 0),
                       g->writes);
        if (d == 0) {
            vk->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->pipe[pf->variant]);
            vk->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->layout, 0, 1,
                                        &r->set[slot][r->parity][k], 0, NULL);
        }
        if (g->plan.patch_used)
            memcpy(push + g->plan.patch_offset, &pf->patch[d], 4);
        if (g->plan.push_bytes && (d == 0 || g->plan.patch_used))
            vk->vkCmdPushConstants(cmd, g->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                   g->plan.push_bytes, push);
        if (pf->indirect[d])
            vk->vkCmdDispatchIndirect(cmd, r->res[g->indirect_res].buf, pf->indirect_at[d]);
        else
            vk->vkCmdDispatch(cmd, pf->grid[d].x, pf->grid[d].y, pf->grid[d].z);
    }
}

/* The passes, with the late clears and the timestamps; returns the stamps written. */
static uint32_t record_passes(upf__vk_runner *r, VkCommandBuffer cmd, const upf__vk_frame *f,
                              int slot, const uint64_t late[UPF__VK_GPU_PASSES_MAX])
{
    pending pd = { 0, 0 };
    uint32_t stamped = 0;
    const uint32_t q0 = (uint32_t)(slot * r->stamps);
    for (int k = 0; k < r->gp_count; k++) {
        if (!running(f, k))
            continue;
        if (late[k]) {
            record_late_clears(r, cmd, late[k]);
            pd.written &= ~late[k], pd.read &= ~late[k];
        }
        record_pass(r, cmd, f, k, slot, &pd);
        const int s = r->gp[k].stamp_index;
        if (r->queries && s > 0) {
            r->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries,
                                      q0 + (uint32_t)s);
            stamped |= 1u << (s - 1);
        }
    }
    return stamped;
}

upf_result upf__vk_runner_record(upf__vk_runner *r, const char *fn, VkCommandBuffer cmd,
                                 const upf__vk_frame *f)
{
    if (!cmd)
        return upf__fail(r->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: cmd is VK_NULL_HANDLE; "
                         "expected a command buffer in the recording state", fn);
    upf_result e = check_frame(r, fn, f);
    if (e != UPF_OK)
        return e;
    /* Which clears go before the passes: those of buffers no earlier pass touches. */
    uint64_t hoisted = 0, touched = 0, late[UPF__VK_GPU_PASSES_MAX] = { 0 };
    bool flips = false;
    for (int k = 0; k < r->gp_count; k++)
        if (running(f, k)) {
            hoisted |= r->gp[k].plan.clear & ~touched;
            late[k] = r->gp[k].plan.clear & touched;
            touched |= r->gp[k].binds;
            flips |= r->gp[k].writes_history;
        }

    /* Everything is checked: from here on, only recording. */
    const int slot = (int)(r->frames % (uint64_t)r->slots);
    bind_images(r, f, slot);
    const VkAccessFlags rw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    memory_barrier(r, cmd,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                       indirect_stage(r),
                   VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT | rw, 0, NULL);
    record_transfers(r, cmd, f, slot, hoisted);
    VkImageMemoryBarrier ib[UPF__SURFACES_MAX];
    uint32_t ni = image_barriers(r, f, true, ib);
    memory_barrier(r, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | indirect_stage(r),
                   VK_ACCESS_TRANSFER_WRITE_BIT,
                   rw | VK_ACCESS_UNIFORM_READ_BIT | indirect_access(r), ni, ib);
    if (r->queries) {
        const uint32_t q0 = (uint32_t)(slot * r->stamps);
        r->vk.vkCmdResetQueryPool(cmd, r->queries, q0, (uint32_t)r->stamps);
        r->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, q0);
    }
    const uint32_t stamped = record_passes(r, cmd, f, slot, late);
    ni = image_barriers(r, f, false, ib);
    memory_barrier(r, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, ni, ib);

    r->slot_frame[slot] = (int64_t)r->frames;
    r->slot_stamped[slot] = stamped;
    r->frames++;
    r->tables_recorded = true;
    if (flips && r->parities == 2)
        r->parity ^= 1;
    return UPF_OK;
}

/* ---- timings ------------------------------------------------------------------------------- */

/* The timestamps slot `slot` wrote (the first, and those in `stamped`) into t; false when one
 * is not available yet (a read that includes one never written would fail too). */
static bool read_stamps(upf__vk_runner *r, int slot, uint32_t stamped, uint64_t *t)
{
    for (int k = 0; k < r->stamps; k++) {
        if (k > 0 && !(stamped >> (k - 1) & 1u))
            continue;
        const VkResult e = r->vk.vkGetQueryPoolResults(
            r->dev.device, r->queries, (uint32_t)(slot * r->stamps + k), 1, sizeof t[k], &t[k],
            sizeof t[k], VK_QUERY_RESULT_64_BIT);
        if (e != VK_SUCCESS)
            return false;
    }
    return true;
}

/* The times of frame `frame` from its slot's timestamps; false when that slot holds a later
 * frame or its timestamps are not available yet. */
static bool frame_timings(upf__vk_runner *r, uint64_t frame, double *ms, double *total_ms)
{
    if (frame >= r->frames || r->frames - frame > (uint64_t)r->slots)
        return false;
    const int slot = (int)(frame % (uint64_t)r->slots);
    uint64_t t[STAMPS_MAX];
    if (r->slot_frame[slot] != (int64_t)frame || !read_stamps(r, slot, r->slot_stamped[slot], t))
        return false;
    const double ns = (double)r->caps.props.limits.timestampPeriod;
    const uint64_t mask = r->caps.timestamp_bits >= 64 ? ~0ull
                                                       : (1ull << r->caps.timestamp_bits) - 1;
    double sum = 0.0;
    uint64_t before = t[0];
    for (int p = 0; p < r->pass_count; p++)
        ms[p] = 0.0;
    for (int k = 0; k < r->gp_count; k++) {
        const int s = r->gp[k].stamp_index;
        if (s < 1 || !(r->slot_stamped[slot] >> (s - 1) & 1u))
            continue;
        const double d = (double)((t[s] - before) & mask) * ns * 1e-6;
        ms[r->gp[k].plan.pass] += d;
        sum += d;
        before = t[s];
    }
    if (total_ms)
        *total_ms = sum;
    return true;
}

upf_result upf__vk_runner_timings(upf__vk_runner *r, const char *fn, double *ms,
                                  double *total_ms)
{
    if (!r->queries)
        return upf__fail(r->ctx, UPF_ERROR_UNSUPPORTED, "%s: the engine was made without "
                         "timestamps", fn);
    for (uint64_t back = 0; back < (uint64_t)r->slots && back < r->frames; back++)
        if (frame_timings(r, r->frames - 1 - back, ms, total_ms))
            return UPF_OK;
    return upf__fail(r->ctx, UPF_ERROR_UNSUPPORTED, "%s: no recorded frame has finished on the "
                     "GPU yet (ask after the fence of a submitted frame)", fn);
}

bool upf__vk_runner_frame_timings(upf__vk_runner *r, uint64_t frame, double *ms,
                                  double *total_ms)
{
    return r->queries && frame_timings(r, frame, ms, total_ms);
}
