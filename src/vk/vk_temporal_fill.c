/* vk_temporal_fill.c: the temporal engine's spatial_fill pass on the GPU (CPU reference:
 * src/temporal/spatial_fill.c): the spatial engine's passes (upf_vk_spatial_*, at sharpness 0,
 * the built-in models, as the CPU engine makes its own) on two images of upframe's own.
 *
 * Reads: the fill source buffer (RGBA32F, this frame's render size, rows tightly packed).
 * Writes: the fill buffer (RGBA32F, output size). Recorded between the temporal engine's
 * locks and accumulate passes: the source buffer copied into a sampled image, the spatial
 * engine's record into a storage image (its own barriers take both images in and out), that
 * image copied into the fill buffer. The temporal runner's out barrier before and in barrier
 * after order the copies against the passes. */
#include <string.h>

#include "vk/vk_temporal.h"

static upf_result make_image(upf__vk_temporal_fill *f, const char *fn, const upf__vk_caps *caps,
                             int k, int w, int h, VkImageUsageFlags usage)
{
    const upf__vk_funcs *vk = f->vk;
    const VkImageCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
        .format = VK_FORMAT_R32G32B32A32_SFLOAT, .extent = { (uint32_t)w, (uint32_t)h, 1 },
        .mipLevels = 1, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage };
    VkResult r = vk->vkCreateImage(f->device, &ci, f->alloc, &f->image[k]);
    VkMemoryRequirements req = { 0 };
    if (r == VK_SUCCESS)
        vk->vkGetImageMemoryRequirements(f->device, f->image[k], &req);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < caps->memory.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (caps->memory.memoryTypes[i].propertyFlags &
                                                 VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            type = i;
    for (uint32_t i = 0; i < caps->memory.memoryTypeCount && type == UINT32_MAX; i++)
        if (req.memoryTypeBits & (1u << i))
            type = i;
    const VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .allocationSize = req.size, .memoryTypeIndex = type };
    if (r == VK_SUCCESS)
        r = type == UINT32_MAX ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                               : vk->vkAllocateMemory(f->device, &ai, f->alloc, &f->memory[k]);
    if (r == VK_SUCCESS)
        r = vk->vkBindImageMemory(f->device, f->image[k], f->memory[k], 0);
    const VkImageViewCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = f->image[k],
        .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = ci.format,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    if (r == VK_SUCCESS)
        r = vk->vkCreateImageView(f->device, &vi, f->alloc, &f->view[k]);
    if (r != VK_SUCCESS)
        return upf__fail(f->ctx, UPF_ERROR_OUT_OF_MEMORY, "%s: the spatial fill's %s image "
                         "(%dx%d RGBA32F): %s", fn, k ? "output" : "source", w, h,
                         upf__vk_result_name(r));
    f->usage[k] = usage;
    f->width[k] = w, f->height[k] = h;
    return UPF_OK;
}

upf_result upf__vk_temporal_fill_create(upf_context *ctx, const char *fn,
                                        const upf_vk_device *dev, const upf__vk_funcs *vk,
                                        const upf__vk_caps *caps, const int size[4], int slots,
                                        int timestamps, upf__vk_temporal_fill *f)
{
    memset(f, 0, sizeof *f);
    f->ctx = ctx, f->vk = vk, f->device = dev->device, f->alloc = dev->allocator;
    f->spatial = upf_vk_spatial_create(ctx, upf_vk_spatial_params(
        .device = dev, .max_src_width = size[0], .max_src_height = size[1],
        .max_dst_width = size[2], .max_dst_height = size[3], .frames_in_flight = slots,
        .timestamps = timestamps));
    if (!f->spatial)
        return upf_context_last_error(ctx, NULL);
    const VkImageUsageFlags tr = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    upf_result r = make_image(f, fn, caps, 0, size[0], size[1], VK_IMAGE_USAGE_SAMPLED_BIT | tr);
    if (r == UPF_OK)
        r = make_image(f, fn, caps, 1, size[2], size[3], VK_IMAGE_USAGE_STORAGE_BIT | tr);
    return r;
}

void upf__vk_temporal_fill_destroy(upf__vk_temporal_fill *f)
{
    if (!f->vk)
        return;
    upf_vk_spatial_destroy(&f->spatial);
    for (int k = 0; k < 2; k++) {
        if (f->view[k])
            f->vk->vkDestroyImageView(f->device, f->view[k], f->alloc);
        if (f->image[k])
            f->vk->vkDestroyImage(f->device, f->image[k], f->alloc);
        if (f->memory[k])
            f->vk->vkFreeMemory(f->device, f->memory[k], f->alloc);
    }
    memset(f, 0, sizeof *f);
}

/* What the spatial engine is lent: image k, its top-left w x h. */
static upf_vk_image lend(const upf__vk_temporal_fill *f, int k, int w, int h,
                         VkImageLayout layout, VkImageLayout final_layout)
{
    return (upf_vk_image){ .image = f->image[k], .view = f->view[k],
                           .format = VK_FORMAT_R32G32B32A32_SFLOAT, .usage = f->usage[k],
                           .width = f->width[k], .height = f->height[k],
                           .rect = { 0, 0, w, h }, .layout = layout,
                           .final_layout = final_layout };
}

static void image_barrier(const upf__vk_temporal_fill *f, VkCommandBuffer cmd, int k,
                          VkImageLayout from, VkImageLayout to, VkPipelineStageFlags src_stage,
                          VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                          VkAccessFlags dst_access)
{
    const VkImageMemoryBarrier b = upf__vk_image_barrier(
        f->image[k], VK_IMAGE_ASPECT_COLOR_BIT, from, to, src_access, dst_access);
    f->vk->vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

upf_result upf__vk_temporal_fill_record(upf__vk_temporal_fill *f, const char *fn,
                                        VkCommandBuffer cmd, VkBuffer source, VkBuffer fill,
                                        int rw, int rh)
{
    (void)fn;
    const VkPipelineStageFlags cs = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    const VkPipelineStageFlags tr = VK_PIPELINE_STAGE_TRANSFER_BIT;
    /* the source buffer (its compute writes made visible by the runner's out barrier) */
    image_barrier(f, cmd, 0, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  cs | tr, 0, tr, VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferImageCopy in = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                   .imageExtent = { (uint32_t)rw, (uint32_t)rh, 1 } };
    f->vk->vkCmdCopyBufferToImage(cmd, source, f->image[0], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                  1, &in);
    const upf_vk_image src = lend(f, 0, rw, rh, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    const upf_vk_image dst = lend(f, 1, f->width[1], f->height[1], VK_IMAGE_LAYOUT_UNDEFINED,
                                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    upf_result r = upf_vk_spatial_record(f->spatial, cmd, &src, &dst);
    if (r != UPF_OK)
        return r;
    const VkBufferImageCopy out = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                    .imageExtent = { (uint32_t)f->width[1],
                                                     (uint32_t)f->height[1], 1 } };
    f->vk->vkCmdCopyImageToBuffer(cmd, f->image[1], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, fill,
                                  1, &out);
    return UPF_OK;
}
