/* vk_spatial.c: the spatial engine on the GPU (upf_vk_spatial_*; docs/VULKAN.md). The same
 * pass list as the CPU engine (spatial_passes.h), run by the pass runner (vk_passes.h): each
 * pass is one compute pipeline of the shader of its file name
 * (src/vk/shaders/spatial/<file>.comp), its descriptor set binds the surfaces its masks name
 * at binding = surface index, its push constants are the pass's constants struct followed by
 * the backend's tail (src/vk/ABI.md).
 *
 * What is the spatial engine's own is here: the GPU table (compose's taps dispatch before the
 * list, the bindings each pass adds to its masks, the variants of detail and compose), the
 * tables it uploads (the SMAA area, convert's and edges' 8-bit sRGB tables, the network's
 * weights), compose's form (tiles or subgroup strips), the formats it takes, and per frame the
 * constants at the frame's sizes, the fused work (docs/VULKAN.md, "Fused passes") and each
 * pass's grid. The runner makes the buffers, pipelines, sets and queries and records.
 *
 * Reads: the host's source image. Writes: the host's destination image; the engine's buffers. */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/color.h"
#include "spatial/reconstruct.h"
#include "spatial/smaa.h"
#include "vk/vk_passes.h"
#include "vk/vk_internal.h"

#define NET_BINDING UPF__SP_COUNT   /* the network weights' binding (src/vk/ABI.md) */
#define TAPS_BINDING (UPF__SP_COUNT + 1) /* compose's taps table (compose_taps.comp) */
#define SRGB8_BINDING (UPF__SP_COUNT + 2) /* convert's 8-bit sRGB tables (convert.comp) */
#define SRGB8_WORDS (1792 + UPF_SRGB_OF_CODE_COUNT) /* binding 12's words (src/vk/ABI.md) */
#define TAPS_WORDS 12               /* words per taps table entry (compose_taps.glsl) */
#define CON_MAX 64                  /* bytes: the largest constants struct fits */

/* The GPU passes: compose's taps (compose_taps.comp, recorded first: "Fused passes"), then the
 * CPU list, GPU pass 1 + p for pass p. */
enum { GP_TAPS = 0, GP_LIST = 1, GP_COUNT = 1 + UPF__SP_PASS_COUNT };

/* How each pass is dispatched (src/vk/ABI.md, "Dispatch"). */
enum { EXTENT_SOURCE, EXTENT_BLOCKS, EXTENT_TILES, EXTENT_DEST };
typedef struct dispatch_info {
    int extent;
    int per_x, per_y;          /* extent units per workgroup */
} dispatch_info;

static const dispatch_info dispatch[UPF__SP_PASS_COUNT] = {
    [UPF__SP_CONVERT] = { EXTENT_SOURCE, 16, 16 },
    [UPF__SP_EDGES_PASS] = { EXTENT_SOURCE, 16, 16 },
    [UPF__SP_WEIGHTS_PASS] = { EXTENT_SOURCE, 32, 32 },
    [UPF__SP_BLEND] = { EXTENT_SOURCE, 16, 16 },
    [UPF__SP_DETAIL_PASS] = { EXTENT_TILES, 1, 1 },
    [UPF__SP_COMPOSE] = { EXTENT_DEST, 0, 0 }, /* the engine's compose tile */
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
    "spatial/detail", "spatial/detail", "spatial/detail_fp16", "spatial/detail_coopmat"
};

struct upf_vk_spatial {
    upf_context *ctx;
    upf__vk_caps caps;
    upf_vk_variant variant;
    upf_models *own_models;
    const upf_models *user_models; /* the caller's set, counted as used */
    upf__spatial_config cfg;                 /* at the largest sizes */
    upf__detail_map map;                     /* its geometry at the largest sizes */
    uint8_t con[UPF__SP_PASS_COUNT][CON_MAX]; /* constants at the largest sizes */
    bool enabled[UPF__SP_PASS_COUNT];
    int tile[2];                             /* compose's tile (compose_tile) */
    bool sharpen;                            /* compose's SHARPEN: sharpness > 0 */
    bool strips;                             /* compose by subgroup strips
                                              * (compose_strips.comp): the device's
                                              * subgroups allow it */
    bool no_map_variant;                     /* compose's variant 1: MAP false */
    bool timestamps;
    int base_taps;                           /* the model's base's taps a row: 2, 4, 6 */
    uint32_t convert_fuse;                   /* the last recorded convert's fuse bits
                                              * (UPF__VK_FUSE_ENCODE: linear is its alpha
                                              * plane; UPF__VK_FUSE_CODES: it wrote the frame) */
    atomic_bool in_use;                      /* a record is in progress (upf__enter) */
    upf__vk_runner *run;

    uint8_t area[UPF_SMAA_AREA_WIDTH * UPF_SMAA_AREA_HEIGHT * 2]; /* the table to upload */
    uint32_t srgb8[SRGB8_WORDS];             /* convert's: linear (float bits), frame codes,
                                              * c / 255 (float bits) of 8-bit codes; edges':
                                              * the root (float bits) of each frame code;
                                              * compose's: each frame code's sRGB value */
    union { float f32[UPF_NET_WEIGHTS]; uint16_t f16[UPF_NET_WEIGHTS]; } net;
};

/* ---- formats -------------------------------------------------------------------------------- */

/* The formats taken (docs/VULKAN.md, "Formats"), and those whose UNORM view may hold sRGB
 * values (srgb = 1: the shader decodes or encodes). */
static const VkFormat src_formats[] = {
    VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM,
    VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_R16G16B16A16_SFLOAT,
    VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_B10G11R11_UFLOAT_PACK32,
    VK_FORMAT_R32G32B32A32_SFLOAT,
};
static const VkFormat src_srgb_formats[] = {
    VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R16G16B16A16_UNORM,
};
static const VkFormat dst_formats[] = {
    VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_A2B10G10R10_UNORM_PACK32,
    VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT,
};
static const VkFormat dst_srgb_formats[] = { VK_FORMAT_R8G8B8A8_UNORM };
#define COUNT(a) (int)(sizeof(a) / sizeof((a)[0]))

bool upf__vk_format_at_most_one(VkFormat f)
{
    return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_R8G8B8A8_SRGB ||
           f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_B8G8R8A8_SRGB ||
           f == VK_FORMAT_A2B10G10R10_UNORM_PACK32 || f == VK_FORMAT_R16G16B16A16_UNORM;
}

/* ---- creation ------------------------------------------------------------------------------ */

void upf_vk_spatial_destroy(upf_vk_spatial **ps)
{
    if (!ps || !*ps)
        return;
    upf_vk_spatial *s = *ps;
    upf__vk_runner_destroy(&s->run);
    upf_models_destroy(&s->own_models);
    upf__models_release(s->user_models);
    upf__free(s->ctx, s);
    *ps = NULL;
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

/* The GPU table: each pass's bindings beyond its masks (the range for edges and blend,
 * which apply convert's tone map: tone_map.glsl, and which edges writes R of; the frame for
 * convert, its fused encode: UPF__VK_FUSE_ENCODE; the sRGB tables for convert, edges, blend
 * and compose; the weights for detail; the taps table for compose), its shaders, its push
 * constants (constants + tail) and the dispatch index in the tail's phase. */
static void plan_passes(const upf_vk_spatial *s, upf__vk_runner_params *rp,
                        compose_spec_data spec[2])
{
    const upf__pass_info *info = upf__spatial_pass_table();
    const uint64_t range = UPF__VK_RES(UPF__SP_RANGE), srgb8 = UPF__VK_RES(SRGB8_BINDING);
    const uint32_t tail = sizeof(upf__vk_push_tail);
    rp->gpu_pass_count = GP_COUNT;
    rp->gpu_pass[GP_TAPS] = (upf__vk_pass_plan){
        .pass = UPF__SP_COMPOSE, .own_masks = true, .writes = UPF__VK_RES(TAPS_BINDING),
        .push_bytes = (uint32_t)info[UPF__SP_COMPOSE].con_size + tail, .variant_count = 1,
        .variant = { { "spatial/compose_taps", NULL, NULL } } };
    for (int p = 0; p < UPF__SP_PASS_COUNT; p++) {
        upf__vk_pass_plan *g = &rp->gpu_pass[GP_LIST + p];
        *g = (upf__vk_pass_plan){
            .pass = p, .stamp = true, .push_bytes = (uint32_t)info[p].con_size + tail,
            .patch_used = true,
            .patch_offset = (uint32_t)(info[p].con_size + offsetof(upf__vk_push_tail, phase)),
            .variant_count = 1 };
    }
    rp->gpu_pass[GP_LIST + UPF__SP_CONVERT].variant[0].shader = "spatial/convert";
    rp->gpu_pass[GP_LIST + UPF__SP_CONVERT].writes = UPF__VK_RES(UPF__SP_FRAME);
    rp->gpu_pass[GP_LIST + UPF__SP_CONVERT].reads = srgb8;
    rp->gpu_pass[GP_LIST + UPF__SP_CONVERT].clear = range; /* its atomics' start */
    rp->gpu_pass[GP_LIST + UPF__SP_EDGES_PASS].variant[0].shader = "spatial/smaa_edges";
    rp->gpu_pass[GP_LIST + UPF__SP_EDGES_PASS].reads = range | srgb8;
    rp->gpu_pass[GP_LIST + UPF__SP_EDGES_PASS].writes = range;
    rp->gpu_pass[GP_LIST + UPF__SP_WEIGHTS_PASS].variant[0].shader = "spatial/smaa_weights";
    rp->gpu_pass[GP_LIST + UPF__SP_BLEND].variant[0].shader = "spatial/smaa_blend";
    rp->gpu_pass[GP_LIST + UPF__SP_BLEND].reads = range | srgb8;
    rp->gpu_pass[GP_LIST + UPF__SP_DETAIL_PASS].variant[0].shader = detail_shader[s->variant];
    rp->gpu_pass[GP_LIST + UPF__SP_DETAIL_PASS].reads = UPF__VK_RES(NET_BINDING);
    upf__vk_pass_plan *c = &rp->gpu_pass[GP_LIST + UPF__SP_COMPOSE];
    c->reads = UPF__VK_RES(TAPS_BINDING) | srgb8;
    const char *compose = s->strips ? "spatial/compose_strips" : "spatial/compose";
    c->variant[0] = (upf__vk_variant){ compose, compose_spec(&spec[0], s, true), NULL };
    /* A model of strength 0 never has a map to read in a whole frame: compose without it. */
    if (s->no_map_variant) {
        c->variant[1] = (upf__vk_variant){ compose, compose_spec(&spec[1], s, false), NULL };
        c->variant_count = 2;
    }
}

/* The surfaces (the CPU engine's plan at the largest sizes), the extras, the host images. */
static void plan_resources(const upf_vk_spatial *s, upf__vk_runner_params *rp)
{
    upf__spatial_surface_sizes(&s->cfg, &s->map, rp->width, rp->height);
    if (rp->width[UPF__SP_AREA])
        rp->surface_plan[UPF__SP_AREA] =
            (upf__vk_surface_plan){ .upload = s->area, .upload_bytes = sizeof s->area };
    rp->extra_count = 3;
    rp->extra[NET_BINDING - UPF__SP_COUNT] = (upf__vk_extra_plan){
        .name = "network weights", .upload = &s->net,
        .bytes = s->variant == UPF_VK_VARIANT_FP32 ? UPF_NET_WEIGHTS * 4 : UPF_NET_WEIGHTS * 2 };
    rp->extra[TAPS_BINDING - UPF__SP_COUNT] = (upf__vk_extra_plan){
        .name = "compose's taps",
        .bytes = ((VkDeviceSize)s->cfg.dst_width + (VkDeviceSize)s->cfg.dst_height) *
                 TAPS_WORDS * 4 };
    rp->extra[SRGB8_BINDING - UPF__SP_COUNT] = (upf__vk_extra_plan){
        .name = "sRGB tables", .bytes = sizeof s->srgb8, .upload = s->srgb8 };
    static const char docs[] = "docs/VULKAN.md, \"Formats\"";
    rp->host[UPF__SP_SOURCE] = (upf__vk_host_rule){
        .formats = src_formats, .format_count = COUNT(src_formats),
        .srgb_formats = src_srgb_formats, .srgb_format_count = COUNT(src_srgb_formats),
        .max_width = s->cfg.src_width, .max_height = s->cfg.src_height, .as = "a source",
        .docs = docs };
    rp->host[UPF__SP_DEST] = (upf__vk_host_rule){
        .formats = dst_formats, .format_count = COUNT(dst_formats),
        .srgb_formats = dst_srgb_formats, .srgb_format_count = COUNT(dst_srgb_formats),
        .max_width = s->cfg.dst_width, .max_height = s->cfg.dst_height,
        .as = "a destination", .docs = docs };
}

static upf_result make_runner(upf_vk_spatial *s, const char *fn, const upf_vk_spatial_params *p,
                              const upf__vk_funcs *vk)
{
    upf__vk_runner_params *rp = upf__alloc(s->ctx, sizeof *rp, "the runner's params");
    if (!rp)
        return UPF_ERROR_OUT_OF_MEMORY;
    *rp = (upf__vk_runner_params){
        .ctx = s->ctx, .fn = fn, .dev = p->device, .vk = vk, .caps = &s->caps,
        .pass = upf__spatial_pass_table(), .pass_count = UPF__SP_PASS_COUNT,
        .surface = upf__spatial_surface_table(), .surface_count = UPF__SP_COUNT,
        .slots = p->frames_in_flight ? p->frames_in_flight : 2, .timestamps = p->timestamps };
    compose_spec_data spec[2];
    plan_resources(s, rp);
    plan_passes(s, rp, spec);
    s->run = upf__vk_runner_create(rp);
    upf__free(s->ctx, rp);
    return s->run ? UPF_OK : UPF_ERROR_UNSUPPORTED;
}

static upf_result check_params(upf_context *ctx, const char *fn, const upf_vk_spatial_params *p)
{
    if (!p)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the "
                         "device and the largest sizes", fn);
    upf_result r = upf__vk_check_engine_params(ctx, fn, p->device, p->frames_in_flight);
    if (r != UPF_OK)
        return r;
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
    upf__vk_funcs vk;
    if (upf__vk_load(ctx, fn, p->device, &vk) != UPF_OK ||
        upf__vk_check(ctx, fn, p->device, &vk, &s->caps) != UPF_OK)
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
    s->user_models = p->models;
    upf__models_use(p->models);
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

    s->no_map_variant = (s->cfg.flags & UPF_SPATIAL_NO_NETWORK) != 0;
    s->timestamps = p->timestamps;
    if (make_runner(s, fn, p, &vk) != UPF_OK)
        goto fail;
    upf__log(ctx, UPF_LOG_DEBUG, "%s: %dx%d -> %dx%d on %s, detail variant %s, model step %d, "
             "%d frames in flight", fn, s->cfg.src_width, s->cfg.src_height, s->cfg.dst_width,
             s->cfg.dst_height, s->caps.props.deviceName, upf_vk_variant_name(s->variant),
             s->cfg.model->step, p->frames_in_flight ? p->frames_in_flight : 2);
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
    return upf__vk_runner_buffer(s->run, surface, bytes);
}

const void *upf__vk_spatial_constants(const upf_vk_spatial *s, int pass)
{
    return s->con[pass];
}

/* ---- recording ----------------------------------------------------------------------------- */

/* The frame's images: checked by the runner's rules, then what only this engine asks. */
static upf_result check_images(upf_vk_spatial *s, const char *fn, const upf_vk_image *src,
                               const upf_vk_image *dst, bool use_src, bool use_dst,
                               upf_rect *sr, upf_rect *dr)
{
    upf_result r;
    if (use_src && (r = upf__vk_check_host_image(s->run, fn, "src", UPF__SP_SOURCE, src, sr)) !=
                       UPF_OK)
        return r;
    if (use_dst && (r = upf__vk_check_host_image(s->run, fn, "dst", UPF__SP_DEST, dst, dr)) !=
                       UPF_OK)
        return r;
    if (use_src && use_dst && src->image == dst->image)
        return upf__fail(s->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: src and dst are the same "
                         "image; expected two images", fn);
    if (!use_src && sr->width != s->cfg.src_width)
        return UPF_ERROR_INTERNAL;
    return upf__reconstruct_check_sizes(s->ctx, fn, sr->width, sr->height, dr->width,
                                        dr->height);
}

/* src_transfer (src/vk/ABI.md): 2 an 8-bit sRGB view the hardware decoded (the shader snaps
 * it back to its code and decodes it by the CPU's table), 3 an 8-bit UNORM view of sRGB
 * values (the same table), 1 a 16-bit UNORM view of sRGB values (the curve), 0 linear. */
static uint32_t source_transfer(const upf_vk_image *src)
{
    const VkFormat f = src->format;
    const bool eight = f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_B8G8R8A8_UNORM;
    return f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_B8G8R8A8_SRGB ? 2u
           : src->srgb ? (eight ? 3u : 1u) : 0u;
}

/* Fused work (docs/VULKAN.md, "Fused passes"). Without SMAA the edges pass only encodes the
 * frame; a source format that holds nothing above 1 (UNORM, sRGB or not) is never tone
 * mapped, so convert encodes it (and leaves linear as the alpha plane, all that compose reads
 * of it) and edges is not recorded; a record without convert (the tests' one pass at a time)
 * reads the surfaces as the last convert left them. With SMAA, an 8-bit sRGB source (never
 * tone mapped): convert writes the frame's words by its table beside linear, and edges takes
 * the roots for its luma from them by table instead of correctly rounded square roots of
 * linear, and stores no frame (on the H200 the roots were half of edges:
 * docs/PERFORMANCE.md). Returns convert's bits (UPF__VK_FUSE_NO_MAP is added by the caller). */
static uint32_t convert_fuse(const upf_vk_spatial *s, const upf_vk_image *src, bool use_src,
                             uint32_t src_transfer)
{
    if (!use_src)
        return s->convert_fuse;
    const bool smaa = !(s->cfg.flags & UPF_SPATIAL_NO_SMAA);
    const bool at_most_one = upf__vk_format_at_most_one(src->format);
    uint32_t fuse = !smaa && at_most_one        ? UPF__VK_FUSE_ENCODE
                    : smaa && src_transfer >= 2u ? UPF__VK_FUSE_CODES
                                                 : 0u;
    /* Such a source is never tone-mapped: convert leaves range G at 0 and reduces only the
     * translucency (convert.comp). */
    if (at_most_one)
        fuse |= UPF__VK_FUSE_AT_MOST_ONE;
    return fuse;
}

/* Pass p's workgroups at this frame's sizes (src/vk/ABI.md, "Dispatch"). */
static upf__vk_grid pass_grid(const upf_vk_spatial *s, int p, upf_rect sr, upf_rect dr,
                              const upf__detail_con *dc)
{
    int ex, ey;
    switch (dispatch[p].extent) {
    case EXTENT_SOURCE: ex = sr.width, ey = sr.height; break;
    case EXTENT_BLOCKS: ex = upf__smaa_blocks(sr.width), ey = upf__smaa_blocks(sr.height); break;
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
    /* Shader work only: UPF_VK_CONVERT_PER=WxH, the pixels of one convert workgroup (for a
     * convert.spv made for it). */
    const char *per_env = p == UPF__SP_CONVERT ? getenv("UPF_VK_CONVERT_PER") : NULL;
    if (per_env && sscanf(per_env, "%dx%d", &px, &py) != 2)
        px = dispatch[p].per_x, py = dispatch[p].per_y;
#endif
    return (upf__vk_grid){ (uint32_t)((ex + px - 1) / px), (uint32_t)((ey + py - 1) / py), 1 };
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
    upf_result r = check_images(s, fn, src, dst, use_src, use_dst, &sr, &dr);
    if (r != UPF_OK)
        return r;

    /* This frame's constants (the created model at this frame's sizes), each followed by the
     * tail (src/vk/ABI.md, "Push constants"). */
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
    const uint32_t src_transfer = use_src ? source_transfer(src) : 0u;
    const uint32_t cfuse = convert_fuse(s, src, use_src, src_transfer);
    uint32_t fuse = cfuse;
    /* A model of strength 0 (UPF_SPATIAL_NO_NETWORK) makes a map of zeros: no detail pass,
     * compose takes 0, only when compose is in this record. */
    if ((cfg.flags & UPF_SPATIAL_NO_NETWORK) && first <= UPF__SP_DETAIL_PASS && use_dst)
        fuse |= UPF__VK_FUSE_NO_MAP;
    const upf__vk_push_tail tail = { sr.x, sr.y, dr.x, dr.y, src_transfer,
                                     use_dst && dst->srgb ? 1u : 0u, 0,
                                     cfg.model->detail_strength, fuse };
    for (int p = 0; p < UPF__SP_PASS_COUNT; p++)
        memcpy(con_mem[p] + info[p].con_size, &tail, sizeof tail);

    upf__vk_frame f = { .reset = false };
    f.image[UPF__SP_SOURCE] = use_src ? src : NULL;
    f.image[UPF__SP_DEST] = use_dst ? dst : NULL;
    /* compose's taps table for this frame (compose_taps.comp), first: it reads nothing the
     * passes write, so it runs beside them (its time counts in the next pass's). */
    f.pass[GP_TAPS] = (upf__vk_pass_frame){
        .run = use_dst, .push = con_mem[UPF__SP_COMPOSE], .dispatches = 1,
        .grid = { { (uint32_t)((dr.width + dr.height + 255) / 256), 1, 1 } } };
    for (int p = 0; p < UPF__SP_PASS_COUNT; p++) {
        const bool skipped = (p == UPF__SP_EDGES_PASS && (fuse & UPF__VK_FUSE_ENCODE)) ||
                             (p == UPF__SP_DETAIL_PASS && (fuse & UPF__VK_FUSE_NO_MAP));
        f.pass[GP_LIST + p] = (upf__vk_pass_frame){
            .run = p >= first && p <= last && s->enabled[p] && !skipped,
            .variant = p == UPF__SP_COMPOSE && (fuse & UPF__VK_FUSE_NO_MAP) &&
                               s->no_map_variant ? 1 : 0,
            .push = con_mem[p], .dispatches = 1,
            .grid = { pass_grid(s, p, sr, dr, con[UPF__SP_DETAIL_PASS]) } };
    }
    if ((r = upf__vk_runner_record(s->run, fn, cmd, &f)) == UPF_OK)
        s->convert_fuse = cfuse;
    return r;
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
    if (!s->timestamps)
        return upf__fail(s->ctx, UPF_ERROR_UNSUPPORTED, "%s: the engine was made without "
                         "timestamps (upf_vk_spatial_params.timestamps)", fn);
    return upf__vk_runner_timings(s->run, fn, ms, total_ms);
}
