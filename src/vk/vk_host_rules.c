/* vk_host_rules.c: the host image rules the temporal and frame-generation engines share
 * (vk_temporal.c, vk_framegen.c; the formats listed in docs/VULKAN.md): a colour, a depth,
 * motion vectors and an output, each an upf__vk_host_rule for upf__vk_check_host_image.
 * Reads and writes nothing but the rule returned. */
#include "vk/vk_passes.h"

static const VkFormat color_formats[] = {
    VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM,
    VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_R16G16B16A16_SFLOAT,
    VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_B10G11R11_UFLOAT_PACK32,
    VK_FORMAT_R32G32B32A32_SFLOAT
};
static const VkFormat color_srgb_formats[] = { VK_FORMAT_R8G8B8A8_UNORM,
                                               VK_FORMAT_B8G8R8A8_UNORM };
static const VkFormat depth_formats[] = {
    VK_FORMAT_R32_SFLOAT, VK_FORMAT_R16_SFLOAT, VK_FORMAT_D32_SFLOAT, VK_FORMAT_D16_UNORM,
    VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT
};
static const VkFormat motion_formats[] = { VK_FORMAT_R16G16_SFLOAT, VK_FORMAT_R32G32_SFLOAT };
static const VkFormat output_formats[] = {
    VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_A2B10G10R10_UNORM_PACK32,
    VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT
};
static const VkFormat output_srgb_formats[] = { VK_FORMAT_R8G8B8A8_UNORM };

#define N(a) (int)(sizeof(a) / sizeof((a)[0]))

upf__vk_host_rule upf__vk_rule_colour(const char *as, const char *docs)
{
    return (upf__vk_host_rule){
        .formats = color_formats, .format_count = N(color_formats),
        .srgb_formats = color_srgb_formats, .srgb_format_count = N(color_srgb_formats),
        .max_width = UPF_MAX_IMAGE_DIMENSION, .max_height = UPF_MAX_IMAGE_DIMENSION,
        .as = as, .docs = docs };
}

upf__vk_host_rule upf__vk_rule_depth(bool optional, const char *docs)
{
    return (upf__vk_host_rule){
        .formats = depth_formats, .format_count = N(depth_formats), .depth = true,
        .optional = optional, .max_width = UPF_MAX_IMAGE_DIMENSION,
        .max_height = UPF_MAX_IMAGE_DIMENSION, .as = "the depth", .docs = docs };
}

upf__vk_host_rule upf__vk_rule_motion(const char *docs)
{
    return (upf__vk_host_rule){
        .formats = motion_formats, .format_count = N(motion_formats), .optional = true,
        .max_width = UPF_MAX_IMAGE_DIMENSION, .max_height = UPF_MAX_IMAGE_DIMENSION,
        .as = "the motion vectors", .docs = docs };
}

upf__vk_host_rule upf__vk_rule_output(int max_width, int max_height, const char *as,
                                      const char *docs)
{
    return (upf__vk_host_rule){
        .formats = output_formats, .format_count = N(output_formats),
        .srgb_formats = output_srgb_formats, .srgb_format_count = N(output_srgb_formats),
        .max_width = max_width, .max_height = max_height, .as = as, .docs = docs };
}
