/* vk_temporal.h: the Vulkan temporal engine's internals that its tests reach.
 *
 * Internal header: not installed. */
#ifndef UPF_VK_TEMPORAL_H
#define UPF_VK_TEMPORAL_H

#include "vk/vk_passes.h"

/* The spatial fill on the GPU (vk_temporal_fill.c): the spatial engine on two images of
 * upframe's own, recorded between the temporal engine's locks and accumulate passes. */
typedef struct upf__vk_temporal_fill {
    upf_context *ctx;
    const upf__vk_funcs *vk;
    VkDevice device;
    const VkAllocationCallbacks *alloc;
    upf_vk_spatial *spatial;
    VkImage image[2];                 /* the source (render size), the output (output size) */
    VkImageView view[2];
    VkDeviceMemory memory[2];
    VkImageUsageFlags usage[2];
    int width[2], height[2];
} upf__vk_temporal_fill;

/* Makes the spatial engine for sizes {render w, h, output w, h} and the two images. */
upf_result upf__vk_temporal_fill_create(upf_context *ctx, const char *fn,
                                        const upf_vk_device *dev, const upf__vk_funcs *vk,
                                        const upf__vk_caps *caps, const int size[4], int slots,
                                        int timestamps, upf__vk_temporal_fill *f);
void upf__vk_temporal_fill_destroy(upf__vk_temporal_fill *f);

/* Records: `source` (rw x rh RGBA32F texels) into the source image, the spatial engine's
 * frame, the output image into `fill`. */
upf_result upf__vk_temporal_fill_record(upf__vk_temporal_fill *f, const char *fn,
                                        VkCommandBuffer cmd, VkBuffer source, VkBuffer fill,
                                        int rw, int rh);

/* The engine's runner: its surfaces' buffers (upf__vk_runner_buffer, by UPF__TP_* index) for
 * the tests to read back and compare with the CPU engine's. */
upf__vk_runner *upf__vk_temporal_runner(upf_vk_temporal *t);

#endif /* UPF_VK_TEMPORAL_H */
