/* vk_device.c: the Vulkan backend's view of the host's device (docs/VULKAN.md, "What upframe
 * needs"): loading the function table through the host's vkGetInstanceProcAddr, the
 * requirements query (what to enable on a device), and the capability check that says whether
 * upframe can run on a lent device as the host made it.
 *
 * Required: a Vulkan 1.1 device, a queue family with compute, and the feature
 * shaderStorageImageWriteWithoutFormat (compose writes the destination through one shader
 * whatever its format). Optional, per variant of the detail pass:
 *   fp16     storageBuffer16BitAccess (1.1 core) + shaderFloat16 (1.2 core or
 *            VK_KHR_shader_float16_int8)
 *   coopmat  the fp16 features + VK_NV_cooperative_matrix's cooperativeMatrix, with a
 *            16x16x16 fp16 x fp16 -> fp32 subgroup shape
 * Reads: the host's handles. Writes: nothing on the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk/vk_internal.h"

const char *upf_vk_variant_name(upf_vk_variant v)
{
    static const char *const names[UPF_VK_VARIANT_COUNT] = { "auto", "fp32", "fp16", "coopmat" };
    return (int)v >= 0 && v < UPF_VK_VARIANT_COUNT ? names[v] : "unknown";
}

VkImageAspectFlags upf__vk_format_aspects(VkFormat f)
{
    switch (f) {
    case VK_FORMAT_D16_UNORM: case VK_FORMAT_X8_D24_UNORM_PACK32: case VK_FORMAT_D32_SFLOAT:
        return VK_IMAGE_ASPECT_DEPTH_BIT;
    case VK_FORMAT_D16_UNORM_S8_UINT: case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT:
        return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
    default:
        return VK_IMAGE_ASPECT_COLOR_BIT;
    }
}

VkImageMemoryBarrier upf__vk_image_barrier(VkImage image, VkImageAspectFlags aspects,
                                           VkImageLayout from, VkImageLayout to,
                                           VkAccessFlags src_access, VkAccessFlags dst_access)
{
    return (VkImageMemoryBarrier){
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
        .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
        .subresourceRange = { aspects, 0, 1, 0, 1 } };
}

const char *upf__vk_result_name(VkResult r)
{
    switch (r) {
#define N(x) case x: return #x;
    N(VK_SUCCESS) N(VK_NOT_READY) N(VK_TIMEOUT) N(VK_INCOMPLETE)
    N(VK_ERROR_OUT_OF_HOST_MEMORY) N(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    N(VK_ERROR_INITIALIZATION_FAILED) N(VK_ERROR_DEVICE_LOST) N(VK_ERROR_MEMORY_MAP_FAILED)
    N(VK_ERROR_LAYER_NOT_PRESENT) N(VK_ERROR_EXTENSION_NOT_PRESENT)
    N(VK_ERROR_FEATURE_NOT_PRESENT) N(VK_ERROR_INCOMPATIBLE_DRIVER)
    N(VK_ERROR_TOO_MANY_OBJECTS) N(VK_ERROR_FORMAT_NOT_SUPPORTED)
    N(VK_ERROR_OUT_OF_POOL_MEMORY) N(VK_ERROR_INVALID_SHADER_NV)
#undef N
    default: return "an unknown VkResult";
    }
}

upf_result upf__vk_load(upf_context *ctx, const char *fn, const upf_vk_device *dev,
                        upf__vk_funcs *vk)
{
    memset(vk, 0, sizeof *vk);
    vk->vkGetInstanceProcAddr = dev->get_instance_proc_addr;
#define LOAD_I(name)                                                                           \
    if (!(vk->name = (PFN_##name)dev->get_instance_proc_addr(dev->instance, #name)))           \
        return upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: the host's vkGetInstanceProcAddr "   \
                         "gave no %s (expected a Vulkan 1.1 instance)", fn, #name);
    UPF__VK_INSTANCE_FUNCS(LOAD_I)
#undef LOAD_I
    if (!dev->device)
        return UPF_OK;
#define LOAD_D(name)                                                                           \
    if (!(vk->name = (PFN_##name)vk->vkGetDeviceProcAddr(dev->device, #name)))                 \
        return upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: vkGetDeviceProcAddr gave no %s "     \
                         "(expected a Vulkan 1.1 device)", fn, #name);
    UPF__VK_DEVICE_FUNCS(LOAD_D)
#undef LOAD_D
    return UPF_OK;
}

/* ---- what the GPU has ---------------------------------------------------------------------- */

static bool has_extension(const upf__vk_funcs *vk, VkPhysicalDevice pd, const char *name)
{
    uint32_t n = 0;
    if (vk->vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || !n)
        return false;
    /* A query at set-up, not per frame: the C library's heap is fine. */
    VkExtensionProperties *all = calloc(n, sizeof *all);
    bool found = false;
    if (all && vk->vkEnumerateDeviceExtensionProperties(pd, NULL, &n, all) >= 0)
        for (uint32_t i = 0; i < n && !found; i++)
            found = !strcmp(all[i].extensionName, name);
    free(all);
    return found;
}

/* The coopmat shape the detail_coopmat shader uses: 16x16x16, A/B fp16, C/D fp32. */
static bool has_coopmat_shape(const upf__vk_funcs *vk, VkInstance inst, VkPhysicalDevice pd)
{
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)vk->vkGetInstanceProcAddr(
            inst, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV");
    if (!get)
        return false;
    VkCooperativeMatrixPropertiesNV props[64];
    uint32_t n = 64;
    for (uint32_t i = 0; i < 64; i++)
        props[i] = (VkCooperativeMatrixPropertiesNV){
            .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV };
    if (get(pd, &n, props) < 0)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (props[i].MSize == 16 && props[i].NSize == 16 && props[i].KSize == 16 &&
            props[i].AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
            props[i].BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
            props[i].CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
            props[i].DType == VK_COMPONENT_TYPE_FLOAT32_NV &&
            props[i].scope == VK_SCOPE_SUBGROUP_NV)
            return true;
    return false;
}

upf_result upf_vk_requirements_query(upf_context *ctx, VkInstance instance,
                                     VkPhysicalDevice physical_device,
                                     PFN_vkGetInstanceProcAddr gipa, upf_vk_requirements *req)
{
    static const char fn[] = "upf_vk_requirements_query";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    if (!instance || !physical_device || !gipa || !req)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL; expected the host's "
                         "%s", fn, !instance ? "instance" : !physical_device ? "physical_device"
                         : !gipa ? "get_instance_proc_addr" : "req",
                         !req && instance && physical_device && gipa ? "struct to fill"
                                                                     : "Vulkan handle");
    const upf_vk_device dev = { .instance = instance, .physical_device = physical_device,
                                .get_instance_proc_addr = gipa };
    upf__vk_funcs vk;
    upf_result r = upf__vk_load(ctx, fn, &dev, &vk);
    if (r != UPF_OK)
        return r;
    memset(req, 0, sizeof *req);
    req->api_version = VK_API_VERSION_1_1;

    VkPhysicalDeviceProperties props;
    vk.vkGetPhysicalDeviceProperties(physical_device, &props);
    if (props.apiVersion < VK_API_VERSION_1_1)
        return upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: %s supports Vulkan %u.%u; upframe "
                         "needs 1.1", fn, props.deviceName, VK_API_VERSION_MAJOR(props.apiVersion),
                         VK_API_VERSION_MINOR(props.apiVersion));
    const bool has12 = props.apiVersion >= VK_API_VERSION_1_2;
    const bool ext_f16 = has_extension(&vk, physical_device, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    const bool ext_cm = has_extension(&vk, physical_device, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);

    /* What the GPU has. */
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV };
    VkPhysicalDeviceShaderFloat16Int8FeaturesKHR f16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR,
        .pNext = ext_cm ? &cm : NULL };
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .pNext = (has12 || ext_f16) ? (void *)&f16 : (ext_cm ? (void *)&cm : NULL) };
    VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                     .pNext = &s16 };
    vk.vkGetPhysicalDeviceFeatures2(physical_device, &f2);
    if (!f2.features.shaderStorageImageWriteWithoutFormat)
        return upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "%s: %s lacks the feature "
                         "shaderStorageImageWriteWithoutFormat, which upframe needs (compose "
                         "writes the destination without a format qualifier)", fn,
                         props.deviceName);

    /* What to enable. */
    req->storage16 = (VkPhysicalDevice16BitStorageFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .storageBuffer16BitAccess = s16.storageBuffer16BitAccess };
    req->float16 = (VkPhysicalDeviceShaderFloat16Int8FeaturesKHR){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR,
        .shaderFloat16 = (has12 || ext_f16) && f16.shaderFloat16 };
    req->coopmat = (VkPhysicalDeviceCooperativeMatrixFeaturesNV){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .cooperativeMatrix = ext_cm && cm.cooperativeMatrix };
    req->features = (VkPhysicalDeviceFeatures2){ .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
    req->features.features.shaderStorageImageWriteWithoutFormat = VK_TRUE;
    req->features.pNext = &req->storage16;
    void **tail = &req->storage16.pNext;
    if (req->float16.shaderFloat16) {
        *tail = &req->float16;
        tail = &req->float16.pNext;
        if (!has12)
            req->extensions[req->extension_count++] = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
    }
    const bool fp16 = req->float16.shaderFloat16 && req->storage16.storageBuffer16BitAccess;
    if (fp16 && req->coopmat.cooperativeMatrix &&
        has_coopmat_shape(&vk, instance, physical_device)) {
        *tail = &req->coopmat;
        req->extensions[req->extension_count++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    } else {
        req->coopmat.cooperativeMatrix = VK_FALSE;
    }
    req->variants_possible[UPF_VK_VARIANT_AUTO] = 1;
    req->variants_possible[UPF_VK_VARIANT_FP32] = 1;
    req->variants_possible[UPF_VK_VARIANT_FP16] = fp16;
    req->variants_possible[UPF_VK_VARIANT_COOPMAT] = fp16 && req->coopmat.cooperativeMatrix;
    upf__log(ctx, UPF_LOG_DEBUG, "%s: %s: variants fp32%s%s", fn, props.deviceName,
             fp16 ? ", fp16" : "", req->variants_possible[UPF_VK_VARIANT_COOPMAT] ? ", coopmat" : "");
    return UPF_OK;
}

/* ---- the capability check ------------------------------------------------------------------ */

static bool enabled_extension(const upf_vk_device *dev, const char *name)
{
    for (uint32_t i = 0; i < dev->enabled_extension_count; i++)
        if (dev->enabled_extensions && dev->enabled_extensions[i] &&
            !strcmp(dev->enabled_extensions[i], name))
            return true;
    return false;
}

/* The capability check's failure: one message, as the log line hosts look for. */
static upf_result cannot(upf_context *ctx, const char *fn, const char *why, const char *name)
{
    return upf__fail(ctx, UPF_ERROR_UNSUPPORTED, "upframe cannot run on this GPU: %s (%s, "
                     "device %s)", why, fn, name ? name : "unknown");
}

upf_result upf__vk_check(upf_context *ctx, const char *fn, const upf_vk_device *dev,
                         const upf__vk_funcs *vk, upf__vk_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    vk->vkGetPhysicalDeviceProperties(dev->physical_device, &caps->props);
    vk->vkGetPhysicalDeviceMemoryProperties(dev->physical_device, &caps->memory);
    const char *name = caps->props.deviceName;
    if (caps->props.apiVersion < VK_API_VERSION_1_1)
        return cannot(ctx, fn, "it supports Vulkan 1.0; upframe needs 1.1", name);

    VkQueueFamilyProperties fam[32];
    uint32_t nfam = 32;
    vk->vkGetPhysicalDeviceQueueFamilyProperties(dev->physical_device, &nfam, fam);
    if (dev->queue_family >= nfam)
        return cannot(ctx, fn, "queue_family is not one of the device's queue families", name);
    if (!(fam[dev->queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT))
        return cannot(ctx, fn, "the lent queue family has no VK_QUEUE_COMPUTE_BIT", name);
    caps->timestamp_bits = fam[dev->queue_family].timestampValidBits;

    /* The features the host enabled, from its chain. */
    bool storage_image_wo_format = false, storage16 = false, float16 = false, coopmat = false;
    for (const VkBaseInStructure *p = (const VkBaseInStructure *)dev->enabled_features; p;
         p = p->pNext) {
        switch (p->sType) {
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2:
            storage_image_wo_format =
                ((const VkPhysicalDeviceFeatures2 *)p)->features.shaderStorageImageWriteWithoutFormat;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES:
            storage16 |= ((const VkPhysicalDevice16BitStorageFeatures *)p)->storageBuffer16BitAccess;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES:
            storage16 |= ((const VkPhysicalDeviceVulkan11Features *)p)->storageBuffer16BitAccess;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES:
            float16 |= ((const VkPhysicalDeviceShaderFloat16Int8Features *)p)->shaderFloat16;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES:
            float16 |= ((const VkPhysicalDeviceVulkan12Features *)p)->shaderFloat16;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV:
            coopmat |= ((const VkPhysicalDeviceCooperativeMatrixFeaturesNV *)p)->cooperativeMatrix;
            break;
        default:
            break;
        }
    }
    if (!storage_image_wo_format)
        return cannot(ctx, fn, "the device was made without the feature "
                      "shaderStorageImageWriteWithoutFormat (enable what "
                      "upf_vk_requirements_query gives)", name);
    /* shaderFloat16 on a 1.1 device needs the extension enabled too. */
    if (float16 && caps->props.apiVersion < VK_API_VERSION_1_2 &&
        !enabled_extension(dev, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME))
        float16 = false;
    coopmat = coopmat && enabled_extension(dev, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) &&
              has_coopmat_shape(vk, dev->instance, dev->physical_device);
    /* Subgroups (core in Vulkan 1.1): compose by subgroup strips where compute shaders have
     * the basic and shuffle operations (compose_strips.comp). */
    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES };
    VkPhysicalDeviceProperties2 props2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                           .pNext = &sub };
    vk->vkGetPhysicalDeviceProperties2(dev->physical_device, &props2);
    const VkSubgroupFeatureFlags shuffle =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    caps->subgroup_size = sub.subgroupSize;
    caps->subgroup_shuffle = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                             (sub.supportedOperations & shuffle) == shuffle;
    caps->variant[UPF_VK_VARIANT_FP32] = 1;
    caps->variant[UPF_VK_VARIANT_FP16] = storage16 && float16;
    caps->variant[UPF_VK_VARIANT_COOPMAT] = storage16 && float16 && coopmat;
    caps->variant[UPF_VK_VARIANT_AUTO] = 1;
    upf__log(ctx, UPF_LOG_INFO, "upframe can run on this GPU: %s (detail variants fp32%s%s%s)",
             name, caps->variant[UPF_VK_VARIANT_FP16] ? ", fp16" : "",
             caps->variant[UPF_VK_VARIANT_COOPMAT] ? ", coopmat" : "",
             caps->timestamp_bits ? "; timestamps" : "; no timestamps");
    return UPF_OK;
}

upf_result upf__vk_check_handles(upf_context *ctx, const char *fn, const upf_vk_device *dev)
{
    if (!dev)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: device is NULL; expected the "
                         "host's upf_vk_device", fn);
    const char *missing = !dev->instance ? "instance" : !dev->physical_device ? "physical_device"
                          : !dev->device ? "device" : !dev->get_instance_proc_addr
                          ? "get_instance_proc_addr" : NULL;
    if (missing)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: device->%s is NULL; expected "
                         "the host's Vulkan handle", fn, missing);
    if (dev->enabled_extension_count && !dev->enabled_extensions)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: device->enabled_extensions is "
                         "NULL but enabled_extension_count is %u", fn,
                         dev->enabled_extension_count);
    return UPF_OK;
}

upf_result upf_vk_check_device(upf_context *ctx, const upf_vk_device *dev)
{
    static const char fn[] = "upf_vk_check_device";
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(ctx);
    upf_result r = upf__vk_check_handles(ctx, fn, dev);
    if (r != UPF_OK)
        return r;
    upf__vk_funcs vk;
    if ((r = upf__vk_load(ctx, fn, dev, &vk)) != UPF_OK)
        return r;
    upf__vk_caps caps;
    return upf__vk_check(ctx, fn, dev, &vk, &caps);
}

const upf__vk_shader *upf__vk_shader_find(const char *name)
{
#ifdef UPF_VK_PROBE
    /* Shader work only (-DUPF_VK_PROBE=ON): UPF_VK_SHADER_DIR/<name>.spv (name
     * "<engine>/<file>"), when it exists, replaces the embedded shader (scripts/vk_probe.py
     * makes variants to time). */
    const char *dir = getenv("UPF_VK_SHADER_DIR");
    if (dir) {
        static upf__vk_shader over[16];
        static char names[16][64];
        static uint32_t words[16][65536];
        static int n;
        for (int i = 0; i < n; i++) /* each file read once: engines are made many times */
            if (!strcmp(over[i].name, name))
                return &over[i];
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.spv", dir, name);
        FILE *f = n < 16 ? fopen(path, "rb") : NULL;
        if (f) {
            const size_t count = fread(words[n], 4, 65536, f);
            fclose(f);
            snprintf(names[n], sizeof names[n], "%s", name); /* name may be the caller's */
            over[n] = (upf__vk_shader){ names[n], words[n], count };
            return &over[n++];
        }
    }
#endif
    for (size_t i = 0; i < upf__vk_shader_count; i++)
        if (!strcmp(upf__vk_shaders[i].name, name))
            return &upf__vk_shaders[i];
    return NULL;
}
