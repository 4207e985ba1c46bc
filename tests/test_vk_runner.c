/* test_vk_runner.c: the Vulkan pass runner (src/vk/vk_passes.h) on a toy engine of four passes
 * whose shaders are the test's own (tests/vk_shaders/toy/), on lavapipe with the validation
 * layer and synchronization validation (any message fails):
 *
 *   blur        colour (sampled through a sampler), depth (a D32_SFLOAT image through its
 *               depth-aspect view) and 144 bytes of constants through the uniform buffer
 *               -> a; sum, cleared to 7 before the pass each frame, + 1 per row
 *   accumulate  a, history -> next history = history * 0.5 + a (a HISTORY pair: ping-pong)
 *   pyramid     next -> 12 levels of pairwise sums, one dispatch a level (the level patched
 *               into the push constants)
 *   resolve     next, the pyramid's top, sum, a table uploaded once -> the output image
 *
 * Over four frames (fresh random colour each frame; the third a reset; the fourth without the
 * pyramid), every output texel is compared with the same computation on the CPU, exactly: the
 * inputs are small integers and eighths, so every sum is exact in float in any order. Also:
 * the barriers the runner records (counted through its function table: one before each
 * dispatch that reads what an earlier one wrote, none else), the timestamps (0 for the pass
 * that did not run, the passes summing to the total), the bytes it reports, and the host-image
 * checks and record refusals (nothing recorded).
 *
 * And a list engine of two passes for indirect dispatches (upf__vk_pass_plan.indirect):
 *   mark        items -> the list (cleared each frame): the odd items' indices by an atomic
 *               count, the count a VkDispatchIndirectCommand's x
 *   work        two indirect dispatches over the list, a workgroup an item: out = item + 1,
 *               then out += item + 2 (out cleared each frame)
 * over three frames (some items odd, none, all): out exactly the CPU's, the barrier before an
 * indirect dispatch making the list's writes visible to DRAW_INDIRECT (synchronization
 * validation reports it otherwise).
 *
 * And exact.glsl's correctly rounded quotient and reciprocal started up to 4 ulps off either
 * way (toy/exact.comp; lavapipe's own division never is): every result C's quotient. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "vk_test_util.h"

#include "vk/vk_passes.h"

extern const upf__vk_shader test_vk_shaders[];
extern const size_t test_vk_shaders_count;

enum { T_IN, T_DEPTH, T_SUM, T_A, T_HIST, T_NEXT, T_PYR, T_OUT, T_SCRATCH, T_COUNT };
enum { T_TABLE = T_COUNT, T_SAMPLER, T_UBO };  /* the extras' bindings, the constants' */
enum { P_BLUR, P_ACCUM, P_PYRAMID, P_RESOLVE, P_COUNT };

#define W 37
#define H 29
#define N (W * H)
#define LEVELS 12  /* 1073, 537, ..., 2, 1 values */
#define PYR_VALUES 2153
#define SUM_START 7u

typedef struct blur_con {           /* std140 as blur.comp reads it: 144 bytes */
    float w[32];
    int32_t width, height;
    float wd;
    int32_t pad;
} blur_con;
typedef struct accum_con { int32_t n; float k; } accum_con;
typedef struct pyr_con { int32_t n, level; } pyr_con;
typedef struct resolve_con { int32_t width, height, top; } resolve_con;

static const upf__surface_info surfaces[T_COUNT] = {
    [T_IN] = { "colour", "the colour", UPF__SURFACE_HOST, UPF__SURFACE_INPUT, 0, NULL },
    [T_DEPTH] = { "depth", "the depth", UPF__SURFACE_HOST, UPF__SURFACE_INPUT, 0, NULL },
    [T_SUM] = { "sum", "a count", UPF__SURFACE_R32UI, UPF__SURFACE_INTERMEDIATE, 0, NULL },
    [T_A] = { "a", "the weighted sum", UPF__SURFACE_R32F, UPF__SURFACE_INTERMEDIATE, 0, NULL },
    [T_HIST] = { "history", "the history", UPF__SURFACE_R32F, UPF__SURFACE_HISTORY, 0, NULL },
    [T_NEXT] = { "next", "the next history", UPF__SURFACE_R32F, UPF__SURFACE_HISTORY_NEXT, 0,
                 NULL },
    [T_PYR] = { "pyramid", "the sums", UPF__SURFACE_R32F, UPF__SURFACE_INTERMEDIATE, 0, NULL },
    [T_OUT] = { "output", "the output", UPF__SURFACE_HOST, UPF__SURFACE_OUTPUT, 0, NULL },
    [T_SCRATCH] = { "scratch", "CPU only", UPF__SURFACE_R32F, UPF__SURFACE_SCRATCH, 0, NULL },
};

#define S UPF__SURF
static const upf__pass_info passes[P_COUNT] = {
    [P_BLUR] = { "blur", "blur", S(T_IN) | S(T_DEPTH), S(T_A) | S(T_SUM) | S(T_SCRATCH), -1,
                 sizeof(blur_con), NULL },
    [P_ACCUM] = { "accumulate", "accumulate", S(T_A) | S(T_HIST), S(T_NEXT), -1,
                  sizeof(accum_con), NULL },
    [P_PYRAMID] = { "pyramid", "pyramid", S(T_NEXT) | S(T_PYR), S(T_PYR), -1, sizeof(pyr_con),
                    NULL },
    [P_RESOLVE] = { "resolve", "resolve", S(T_NEXT) | S(T_PYR) | S(T_SUM), S(T_OUT), -1,
                    sizeof(resolve_con), NULL },
};
#undef S

/* ---- the runner's barriers, counted through its function table ------------------------- */

static PFN_vkCmdPipelineBarrier real_barrier;
static int barriers;
static VKAPI_ATTR void VKAPI_CALL count_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src,
                                                VkPipelineStageFlags dst, VkDependencyFlags dep,
                                                uint32_t nm, const VkMemoryBarrier *m,
                                                uint32_t nb, const VkBufferMemoryBarrier *b,
                                                uint32_t ni, const VkImageMemoryBarrier *i)
{
    barriers++;
    real_barrier(cmd, src, dst, dep, nm, m, nb, b, ni, i);
}

static const upf__vk_shader *toy_shader(const char *name)
{
    for (size_t i = 0; i < test_vk_shaders_count; i++)
        if (!strcmp(test_vk_shaders[i].name, name))
            return &test_vk_shaders[i];
    return NULL;
}

/* ---- the toy engine ------------------------------------------------------------------------ */

static const VkFormat colour_formats[] = { VK_FORMAT_R32G32B32A32_SFLOAT,
                                           VK_FORMAT_R16G16B16A16_SFLOAT };
static const VkFormat depth_formats[] = { VK_FORMAT_D32_SFLOAT };
static const VkFormat out_formats[] = { VK_FORMAT_R32G32B32A32_SFLOAT };
static const float table[16] = { 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987,
                                 1597 };

static void toy_hosts(upf__vk_runner_params *rp)
{
    rp->host[T_IN] = (upf__vk_host_rule){ .formats = colour_formats, .format_count = 2,
                                          .max_width = W, .max_height = H, .as = "colour",
                                          .docs = "the toy's formats" };
    rp->host[T_DEPTH] = (upf__vk_host_rule){ .formats = depth_formats, .format_count = 1,
                                             .depth = true, .max_width = W, .max_height = H,
                                             .as = "depth", .docs = "the toy's formats" };
    rp->host[T_OUT] = (upf__vk_host_rule){ .formats = out_formats, .format_count = 1,
                                           .max_width = W, .max_height = H, .as = "the output",
                                           .docs = "the toy's formats" };
}

static void toy_passes(upf__vk_runner_params *rp)
{
    rp->gpu_pass_count = P_COUNT;
    rp->gpu_pass[P_BLUR] = (upf__vk_pass_plan){
        .pass = P_BLUR, .stamp = true, .reads = UPF__VK_RES(T_SAMPLER),
        .clear = UPF__VK_RES(T_SUM), .ubo_bytes = sizeof(blur_con), .ubo_binding = T_UBO,
        .variant_count = 1, .variant = { { "toy/blur", NULL, toy_shader("toy/blur") } } };
    rp->gpu_pass[P_ACCUM] = (upf__vk_pass_plan){
        .pass = P_ACCUM, .stamp = true, .push_bytes = sizeof(accum_con), .variant_count = 1,
        .variant = { { "toy/accumulate", NULL, toy_shader("toy/accumulate") } } };
    rp->gpu_pass[P_PYRAMID] = (upf__vk_pass_plan){
        .pass = P_PYRAMID, .stamp = true, .push_bytes = sizeof(pyr_con), .patch_used = true,
        .patch_offset = offsetof(pyr_con, level), .variant_count = 1,
        .variant = { { "toy/pyramid", NULL, toy_shader("toy/pyramid") } } };
    rp->gpu_pass[P_RESOLVE] = (upf__vk_pass_plan){
        .pass = P_RESOLVE, .stamp = true, .reads = UPF__VK_RES(T_TABLE),
        .push_bytes = sizeof(resolve_con), .variant_count = 1,
        .variant = { { "toy/resolve", NULL, toy_shader("toy/resolve") } } };
}

static upf__vk_runner *toy_create(upf_context *ctx, const upf_vk_device *dev,
                                  const upf__vk_funcs *vk, const upf__vk_caps *caps)
{
    static upf__vk_runner_params rp; /* large: not on the stack */
    rp = (upf__vk_runner_params){
        .ctx = ctx, .fn = "toy_create", .dev = dev, .vk = vk, .caps = caps, .pass = passes,
        .pass_count = P_COUNT, .surface = surfaces, .surface_count = T_COUNT, .slots = 2,
        .timestamps = true };
    for (int i = 0; i < T_COUNT; i++)
        rp.width[i] = W, rp.height[i] = H;
    rp.width[T_SUM] = rp.height[T_SUM] = 1;
    rp.width[T_PYR] = PYR_VALUES, rp.height[T_PYR] = 1;
    rp.surface_plan[T_SUM].clear_value = SUM_START;
    rp.extra_count = 2;
    rp.extra[T_TABLE - T_COUNT] = (upf__vk_extra_plan){ .name = "table", .bytes = sizeof table,
                                                        .upload = table };
    rp.extra[T_SAMPLER - T_COUNT] = (upf__vk_extra_plan){ .name = "nearest",
                                                          .kind = UPF__VK_EXTRA_SAMPLER_NEAREST };
    toy_hosts(&rp);
    toy_passes(&rp);
    return upf__vk_runner_create(&rp);
}

/* ---- the same on the CPU ------------------------------------------------------------------- */

typedef struct toy_cpu {
    float hist[N], pyr[PYR_VALUES];
} toy_cpu;

static void cpu_pyramid(toy_cpu *c, const float *next)
{
    int off = 0, len = N;
    memcpy(c->pyr, next, sizeof(float) * N);
    for (int l = 1; l < LEVELS; l++) {
        const int prev = off, prev_len = len;
        off += len;
        len = (len + 1) / 2;
        for (int i = 0; i < len; i++)
            c->pyr[off + i] = c->pyr[prev + 2 * i] +
                              (2 * i + 1 < prev_len ? c->pyr[prev + 2 * i + 1] : 0.0f);
    }
}

static void cpu_frame(toy_cpu *c, const float *in, const float *depth, const blur_con *bc,
                      bool reset, bool pyramid, float *out)
{
    if (reset)
        memset(c->hist, 0, sizeof c->hist);
    float next[N];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int i = y * W + x;
            const float a = in[4 * i] * bc->w[0] + in[4 * i + 1] * bc->w[1] +
                            in[4 * i + 2] * bc->w[2] + in[4 * i + 3] * bc->w[3] +
                            depth[i] * bc->wd + bc->w[4 + (x + y) % 28];
            next[i] = c->hist[i] * 0.5f + a;
        }
    if (pyramid)
        cpu_pyramid(c, next);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int i = y * W + x;
            out[4 * i] = next[i];
            out[4 * i + 1] = c->pyr[PYR_VALUES - 1];
            out[4 * i + 2] = (float)(SUM_START + H);
            out[4 * i + 3] = table[(x + y) % 16];
        }
    memcpy(c->hist, next, sizeof next);
}

/* ---- images --------------------------------------------------------------------------------- */

/* A D32_SFLOAT image (a renderer's depth buffer) with a depth-aspect view, its texels uploaded from `b` and left in
 * DEPTH_STENCIL_READ_ONLY_OPTIMAL. */
static vkt_image depth_image(vkt *t, VkCommandBuffer cmd, const vkt_buffer *b)
{
    vkt_image im = { .format = VK_FORMAT_D32_SFLOAT, .view_format = VK_FORMAT_D32_SFLOAT,
                     .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                     .width = W, .height = H };
    const VkImageCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
        .format = im.format, .extent = { W, H, 1 }, .mipLevels = 1, .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = im.usage,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED };
    if (vkCreateImage(t->device, &ci, NULL, &im.image) != VK_SUCCESS)
        return im;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(t->device, im.image, &req);
    im.memory = vkt_alloc(t, req, 0);
    vkBindImageMemory(t->device, im.image, im.memory, 0);
    const VkImageSubresourceRange range = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1 };
    const VkImageViewCreateInfo vi = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                       .image = im.image, .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                       .format = im.format, .subresourceRange = range };
    vkCreateImageView(t->device, &vi, NULL, &im.view);
    VkImageMemoryBarrier ib = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = 0,
        .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT, .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = im.image,
        .subresourceRange = range };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         0, 0, NULL, 0, NULL, 1, &ib);
    const VkBufferImageCopy r = { .imageSubresource = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1 },
                                  .imageExtent = { W, H, 1 } };
    vkCmdCopyBufferToImage(cmd, b->buffer, im.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r);
    ib.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    ib.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    ib.newLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         0, 0, NULL, 0, NULL, 1, &ib);
    return im;
}

/* ---- a frame -------------------------------------------------------------------------------- */

typedef struct toy_frame_con {
    blur_con blur;
    accum_con accum;
    pyr_con pyr;
    resolve_con resolve;
} toy_frame_con;

static void describe(upf__vk_frame *f, const toy_frame_con *c, const upf_vk_image *in,
                     const upf_vk_image *depth, const upf_vk_image *out, bool reset,
                     bool pyramid)
{
    memset(f, 0, sizeof *f);
    f->reset = reset;
    f->image[T_IN] = in, f->image[T_DEPTH] = depth, f->image[T_OUT] = out;
    const upf__vk_grid pixels = { (W + 7) / 8, (H + 7) / 8, 1 }, line = { (N + 63) / 64, 1, 1 };
    f->pass[P_BLUR] = (upf__vk_pass_frame){ .run = true, .ubo = &c->blur, .dispatches = 1,
                                            .grid = { pixels } };
    f->pass[P_ACCUM] = (upf__vk_pass_frame){ .run = true, .push = &c->accum, .dispatches = 1,
                                             .grid = { line } };
    f->pass[P_PYRAMID] = (upf__vk_pass_frame){ .run = pyramid, .push = &c->pyr,
                                               .dispatches = LEVELS };
    for (int l = 0, len = N; l < LEVELS; l++, len = (len + 1) / 2) {
        f->pass[P_PYRAMID].grid[l] = (upf__vk_grid){ (uint32_t)(len + 63) / 64, 1, 1 };
        f->pass[P_PYRAMID].patch[l] = (uint32_t)l;
    }
    f->pass[P_RESOLVE] = (upf__vk_pass_frame){ .run = true, .push = &c->resolve,
                                               .dispatches = 1, .grid = { pixels } };
}

/* Random colour (integers 0..7) into the colour image's staging buffer. */
static void random_colour(float *px, test_rng *rng)
{
    for (int i = 0; i < 4 * N; i++)
        px[i] = (float)test_rand_int(rng, 0, 7);
}

static int compare(const float *gpu, const float *cpu, int frame)
{
    int off = 0, first = -1;
    for (int i = 0; i < 4 * N; i++)
        if (gpu[i] != cpu[i] && off++ == 0)
            first = i;
    CHECKF(off == 0, "frame %d: %d of %d values differ; first at texel %d channel %d: GPU %g, "
           "CPU %g", frame, off, 4 * N, first / 4, first % 4, first < 0 ? 0.0 : (double)gpu[first],
           first < 0 ? 0.0 : (double)cpu[first]);
    return off;
}

/* ---- the test ------------------------------------------------------------------------------ */

typedef struct toy_host {
    vkt_buffer up, depth_up, down;
    vkt_image in, depth, out;
} toy_host;

static void host_free(vkt *t, toy_host *h)
{
    vkt_buffer_free(t, &h->up);
    vkt_buffer_free(t, &h->depth_up);
    vkt_buffer_free(t, &h->down);
    vkt_image_free(t, &h->in);
    vkt_image_free(t, &h->depth);
    vkt_image_free(t, &h->out);
}

/* The host-image checks and the record's refusals: each with its message, nothing recorded. */
static void test_refusals(upf_context *ctx, upf__vk_runner *run, toy_host *h, VkCommandBuffer cmd)
{
    static const char fn[] = "test";
    const upf_vk_image in = vkt_lend(&h->in, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0, 0);
    const upf_vk_image depth = vkt_lend(&h->depth,
                                        VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL, 0, 0);
    const upf_vk_image out = vkt_lend(&h->out, VK_IMAGE_LAYOUT_UNDEFINED,
                                      VK_IMAGE_LAYOUT_GENERAL, 0);
    upf_rect rect;
    CHECK_OK(ctx, upf__vk_check_host_image(run, fn, "depth", T_DEPTH, &depth, &rect));
    CHECK(rect.width == W && rect.height == H);
    CHECK_OK(ctx, upf__vk_check_host_image(run, fn, "output", T_OUT, &out, &rect));
    CHECK_FAILS(ctx, upf__vk_check_host_image(run, fn, "colour", T_IN, NULL, &rect),
                UPF_ERROR_INVALID_ARGUMENT, "test: colour is NULL");
    CHECK_FAILS(ctx, upf__vk_check_host_image(run, fn, "depth", T_DEPTH, &in, &rect),
                UPF_ERROR_UNSUPPORTED, "depth: format VK_FORMAT_R32G32B32A32_SFLOAT (109) is "
                "not one upframe takes as depth (the toy's formats)");
    upf_vk_image bad = out;
    bad.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    CHECK_FAILS(ctx, upf__vk_check_host_image(run, fn, "output", T_OUT, &bad, &rect),
                UPF_ERROR_INVALID_ARGUMENT, "lacks VK_IMAGE_USAGE_STORAGE_BIT");
    bad = depth;
    bad.layout = VK_IMAGE_LAYOUT_UNDEFINED;
    CHECK_FAILS(ctx, upf__vk_check_host_image(run, fn, "depth", T_DEPTH, &bad, &rect),
                UPF_ERROR_INVALID_ARGUMENT, "depth: layout 0 is not one upframe can take");
    bad = in;
    bad.width = W + 1, bad.rect = (upf_rect){ 0, 0, W + 1, H };
    CHECK_FAILS(ctx, upf__vk_check_host_image(run, fn, "colour", T_IN, &bad, &rect),
                UPF_ERROR_INVALID_ARGUMENT, "larger than the engine was created for (37x29)");
    bad = in;
    bad.srgb = 1;
    CHECK_FAILS(ctx, upf__vk_check_host_image(run, fn, "colour", T_IN, &bad, &rect),
                UPF_ERROR_INVALID_ARGUMENT, "only a UNORM view (none)");

    static upf__vk_frame f;
    static const toy_frame_con c;
    const int before = barriers;
    describe(&f, &c, &in, NULL, &out, false, true);
    CHECK_FAILS(ctx, upf__vk_runner_record(run, fn, cmd, &f), UPF_ERROR_INTERNAL,
                "the blur pass runs without its image depth");
    describe(&f, &c, &in, &depth, &out, false, true);
    CHECK_FAILS(ctx, upf__vk_runner_record(run, fn, VK_NULL_HANDLE, &f),
                UPF_ERROR_INVALID_ARGUMENT, "cmd is VK_NULL_HANDLE");
    f.pass[P_PYRAMID].dispatches = UPF__VK_DISPATCH_MAX + 1;
    CHECK_FAILS(ctx, upf__vk_runner_record(run, fn, cmd, &f), UPF_ERROR_INTERNAL,
                "the pyramid pass's frame is out of range");
    CHECK_EQ_INT(barriers, before);
    CHECK(upf__vk_runner_frames(run) == 0);
}

/* Frame `k` recorded, run and compared; its barriers counted. */
static void run_frame(vkt *t, upf_context *ctx, upf__vk_runner *run, toy_host *h, toy_cpu *cpu,
                      const toy_frame_con *c, test_rng *rng, int k, bool reset, bool pyramid)
{
    float *px = h->up.map;
    random_colour(px, rng);
    VkCommandBuffer cmd = vkt_begin(t);
    vkt_record_upload(cmd, &h->up, &h->in, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    const upf_vk_image in = vkt_lend(&h->in, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0, 0);
    const upf_vk_image depth = vkt_lend(&h->depth,
                                        VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL, 0, 0);
    const upf_vk_image out = vkt_lend(&h->out, k == 0 ? VK_IMAGE_LAYOUT_UNDEFINED
                                                      : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                      VK_IMAGE_LAYOUT_GENERAL, 0);
    static upf__vk_frame f;
    describe(&f, c, &in, &depth, &out, reset, pyramid);
    const int before = barriers;
    CHECK_OK(ctx, upf__vk_runner_record(run, "test", cmd, &f));
    /* in (2) and out (1); one before each dispatch after the first: each reads what the one
     * before it wrote (accumulate a, the pyramid's first level next, each level the one
     * below, resolve the pyramid or next). */
    CHECK_EQ_INT(barriers - before, 3 + 1 + (pyramid ? LEVELS : 0) + 1);
    vkt_record_download(cmd, &h->out, VK_IMAGE_LAYOUT_GENERAL, &h->down);
    CHECK(vkt_submit(t) == 0);
    static float want[4 * N];
    cpu_frame(cpu, px, h->depth_up.map, &c->blur, reset, pyramid, want);
    compare(h->down.map, want, k);
    CHECK_EQ_INT(upf__vk_runner_parity(run), (k + 1) % 2);
}

/* The lent device's functions and capabilities (a failed check when they do not load). */
static bool load_device(vkt *t, upf_context *ctx, upf__vk_funcs *vk, upf__vk_caps *caps)
{
    const bool ok = upf__vk_load(ctx, "test", &t->lend, vk) == UPF_OK &&
                    upf__vk_check(ctx, "test", &t->lend, vk, caps) == UPF_OK;
    CHECK(ok && "the device loads");
    return ok;
}

static void test_toy(vkt *t, upf_context *ctx)
{
    upf__vk_funcs vk;
    upf__vk_caps caps;
    if (!load_device(t, ctx, &vk, &caps))
        return;
    real_barrier = vk.vkCmdPipelineBarrier;
    vk.vkCmdPipelineBarrier = count_barrier;
    upf__vk_runner *run = toy_create(ctx, &t->lend, &vk, &caps);
    const char *m = "";
    upf_context_last_error(ctx, &m);
    CHECKF(run != NULL, "toy_create: %s", m);
    if (!run)
        return;
    const char *name;
    CHECK_EQ_INT(upf__vk_runner_bytes(run, T_HIST, &name), 2 * N * 4);
    CHECK(!strcmp(name, "history"));
    CHECK_EQ_INT(upf__vk_runner_bytes(run, T_NEXT, NULL), 0);
    CHECK_EQ_INT(upf__vk_runner_bytes(run, T_SCRATCH, NULL), 0);
    CHECK_EQ_INT(upf__vk_runner_bytes(run, T_IN, NULL), 0);
    CHECK_EQ_INT(upf__vk_runner_bytes(run, T_PYR, NULL), PYR_VALUES * 4);
    CHECK_EQ_INT(upf__vk_runner_bytes(run, T_SUM, NULL), 16); /* 4, made 16 */
    CHECK_EQ_INT(upf__vk_runner_bytes(run, T_TABLE, &name), sizeof table);
    /* a, the two histories, the pyramid, sum, the table */
    CHECK(upf__vk_runner_total_bytes(run) >= (VkDeviceSize)(3 * N + PYR_VALUES) * 4 + 16 + 64);

    toy_host h = { .up = vkt_buffer_make(t, N * 16), .depth_up = vkt_buffer_make(t, N * 4),
                   .down = vkt_buffer_make(t, N * 16) };
    h.in = vkt_image_make(t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                          VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    h.out = vkt_image_make(t, W, H, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                           VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    test_rng rng = test_rng_make("test_vk_runner");
    float *d = h.depth_up.map;
    for (int i = 0; i < N; i++)
        d[i] = (float)test_rand_int(&rng, 0, 8) / 8.0f;
    VkCommandBuffer cmd = vkt_begin(t);
    h.depth = depth_image(t, cmd, &h.depth_up);
    test_refusals(ctx, run, &h, cmd);
    CHECK(vkt_submit(t) == 0);

    toy_frame_con c = { .accum = { N, 0.5f }, .pyr = { N, 0 },
                        .resolve = { W, H, PYR_VALUES - 1 } };
    for (int i = 0; i < 32; i++)
        c.blur.w[i] = (float)test_rand_int(&rng, -3, 3);
    c.blur.width = W, c.blur.height = H, c.blur.wd = 8.0f;
    static toy_cpu cpu;
    double ms[P_COUNT], total = -1.0;
    for (int k = 0; k < 4; k++) {
        run_frame(t, ctx, run, &h, &cpu, &c, &rng, k, k == 2, k != 3);
        CHECK_OK(ctx, upf__vk_runner_timings(run, "test", ms, &total));
        double sum = 0.0;
        for (int p = 0; p < P_COUNT; p++) {
            sum += ms[p];
            CHECKF(ms[p] >= 0.0, "frame %d: pass %d took %g ms", k, p, ms[p]);
        }
        CHECKF(fabs(sum - total) <= 1e-9, "frame %d: %g != %g", k, sum, total);
        CHECKF(k == 3 ? ms[P_PYRAMID] == 0.0 : ms[P_PYRAMID] > 0.0, "frame %d: pyramid %g ms",
               k, ms[P_PYRAMID]);
    }
    host_free(t, &h);
    upf__vk_runner_destroy(&run);
}

/* ---- indirect dispatches: the list engine ---------------------------------------------------- */

enum { L_ITEMS, L_LIST, L_OUT, L_COUNT };
enum { LP_MARK, LP_WORK, LP_COUNT };
#define ITEMS 300
typedef struct list_con { int32_t n; uint32_t step; } list_con;

static const upf__surface_info list_surfaces[L_COUNT] = {
    [L_ITEMS] = { "items", "the items", UPF__SURFACE_R32UI, UPF__SURFACE_TABLE, 0, NULL },
    [L_LIST] = { "list", "the odd items", UPF__SURFACE_R32UI, UPF__SURFACE_INTERMEDIATE, 0, NULL },
    [L_OUT] = { "out", "the result", UPF__SURFACE_R32UI, UPF__SURFACE_INTERMEDIATE, 0, NULL },
};
#define S UPF__SURF
static const upf__pass_info list_passes[LP_COUNT] = {
    [LP_MARK] = { "mark", "mark", S(L_ITEMS), S(L_LIST), -1, sizeof(int32_t), NULL },
    [LP_WORK] = { "work", "work", S(L_ITEMS) | S(L_LIST), S(L_OUT), -1, sizeof(list_con), NULL },
};
#undef S

/* One frame over `items` (uploaded as the table before the runner is made: a runner a frame);
 * out compared with the CPU's. */
static void list_frame(vkt *t, upf_context *ctx, const upf__vk_funcs *vk,
                       const upf__vk_caps *caps, const uint32_t *items, const char *what)
{
    static upf__vk_runner_params rp;
    rp = (upf__vk_runner_params){
        .ctx = ctx, .fn = "list_create", .dev = &t->lend, .vk = vk, .caps = caps,
        .pass = list_passes, .pass_count = LP_COUNT, .surface = list_surfaces,
        .surface_count = L_COUNT, .slots = 1 };
    rp.width[L_ITEMS] = rp.width[L_OUT] = ITEMS, rp.width[L_LIST] = 4 + ITEMS;
    rp.height[L_ITEMS] = rp.height[L_LIST] = rp.height[L_OUT] = 1;
    rp.surface_plan[L_ITEMS] = (upf__vk_surface_plan){ .upload = items,
                                                       .upload_bytes = ITEMS * 4 };
    rp.gpu_pass_count = LP_COUNT;
    rp.gpu_pass[LP_MARK] = (upf__vk_pass_plan){
        .pass = LP_MARK, .stamp = true, .clear = UPF__VK_RES(L_LIST),
        .push_bytes = sizeof(int32_t), .variant_count = 1,
        .variant = { { "toy/mark", NULL, toy_shader("toy/mark") } } };
    rp.gpu_pass[LP_WORK] = (upf__vk_pass_plan){
        .pass = LP_WORK, .stamp = true, .clear = UPF__VK_RES(L_OUT),
        .indirect = UPF__VK_RES(L_LIST), .push_bytes = sizeof(list_con), .patch_used = true,
        .patch_offset = offsetof(list_con, step), .variant_count = 1,
        .variant = { { "toy/work", NULL, toy_shader("toy/work") } } };
    upf__vk_runner *run = upf__vk_runner_create(&rp);
    const char *m = "";
    upf_context_last_error(ctx, &m);
    CHECKF(run != NULL, "list_create: %s", m);
    if (!run)
        return;
    static upf__vk_frame f;
    memset(&f, 0, sizeof f);
    const list_con con = { ITEMS, 0 };
    f.pass[LP_MARK] = (upf__vk_pass_frame){ .run = true, .push = &con, .dispatches = 1,
                                            .grid = { { (ITEMS + 63) / 64, 1, 1 } } };
    f.pass[LP_WORK] = (upf__vk_pass_frame){ .run = true, .push = &con, .dispatches = 2,
                                            .patch = { 1, 2 }, .indirect = { true, true } };
    VkCommandBuffer cmd = vkt_begin(t);
    CHECK_OK(ctx, upf__vk_runner_record(run, "test", cmd, &f));
    VkDeviceSize bytes = 0;
    const VkBuffer ob = upf__vk_runner_buffer(run, L_OUT, &bytes);
    vkt_buffer down = vkt_buffer_make(t, ITEMS * 4);
    vkt_record_copy(cmd, ob, down.buffer, ITEMS * 4);
    if (vkt_submit(t) == 0) {
        const uint32_t *got = down.map;
        int wrong = 0, listed = 0;
        for (int i = 0; i < ITEMS; i++) {
            const uint32_t want = items[i] & 1u ? 2u * items[i] + 3u : 0u;
            wrong += got[i] != want;
            listed += (int)(items[i] & 1u);
        }
        CHECKF(wrong == 0, "%s: %d of %d items wrong (%d listed)", what, wrong, ITEMS, listed);
    }
    vkt_buffer_free(t, &down);
    upf__vk_runner_destroy(&run);
}

static void test_indirect(vkt *t, upf_context *ctx)
{
    upf__vk_funcs vk;
    upf__vk_caps caps;
    if (!load_device(t, ctx, &vk, &caps))
        return;
    static uint32_t items[ITEMS];
    test_rng rng = test_rng_make("test_vk_runner indirect");
    for (int i = 0; i < ITEMS; i++)
        items[i] = (uint32_t)test_rand_int(&rng, 0, 1000) * (i % 7 == 3 ? 1u : 2u);
    list_frame(t, ctx, &vk, &caps, items, "some items odd");
    for (int i = 0; i < ITEMS; i++)
        items[i] = 2u * (uint32_t)i;
    list_frame(t, ctx, &vk, &caps, items, "no item odd (no workgroup)");
    for (int i = 0; i < ITEMS; i++)
        items[i] = 2u * (uint32_t)i + 1u;
    list_frame(t, ctx, &vk, &caps, items, "every item odd");
}

/* ---- exact.glsl's stepping: the exact engine --------------------------------------------- */

enum { E_PAIRS, E_OUT, E_COUNT };
#define PAIRS 2304 /* 256 quotients x the offsets -4 .. 4 ulps */

static const upf__surface_info exact_surfaces[E_COUNT] = {
    [E_PAIRS] = { "pairs", "a, b, an offset", UPF__SURFACE_R32UI, UPF__SURFACE_TABLE, 0, NULL },
    [E_OUT] = { "out", "the quotients", UPF__SURFACE_R32UI, UPF__SURFACE_INTERMEDIATE, 0, NULL },
};
static const upf__pass_info exact_passes[1] = {
    { "exact", "exact", UPF__SURF(E_PAIRS), UPF__SURF(E_OUT), -1, sizeof(int32_t), NULL },
};

static uint32_t bits_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

static float float_of(uint32_t u)
{
    float v;
    memcpy(&v, &u, 4);
    return v;
}

/* A random float of either sign with an exponent in [-20, 20]. */
static float random_float(test_rng *rng)
{
    const uint32_t e = (uint32_t)(127 + test_rand_int(rng, -20, 20));
    const uint32_t m = (uint32_t)test_rand_int(rng, 0, (1 << 23) - 1);
    return float_of((uint32_t)test_rand_int(rng, 0, 1) << 31 | e << 23 | m);
}

/* exact.glsl's upf_fdiv_rn_from started up to 4 ulps off the device's quotient either way
 * (toy/exact.comp): every result the C quotient's bits. Lavapipe divides correctly rounded,
 * so the library's shaders never take these steps there; a device whose division is a few
 * ulps off takes them on every pass that divides. */
static void test_exact(vkt *t, upf_context *ctx)
{
    upf__vk_funcs vk;
    upf__vk_caps caps;
    if (!load_device(t, ctx, &vk, &caps))
        return;
    static uint32_t pairs[4 * PAIRS];
    test_rng rng = test_rng_make("test_vk_runner exact");
    /* a few quotients at binade edges (1, 2, 1/2: the step down crosses to smaller ulps),
     * then random ones */
    const float edge[][2] = { { 3, 3 }, { 1, 3 }, { 2, 1 }, { -1, 2 }, { 1.5f, -1.5f },
                              { 7, 7.0000005f }, { 1, 0.99999994f }, { 0x1p-10f, 3 },
                              { 1, 1.00000012f } }; /* 1 - 2^-23 + 2^-46: just below 1 */
    /* the second half: reciprocals (upf_rcp_rn_from: a = 1, b > 0), the same edges made
     * positive (1, 2, 1/2: powers of two; 1 / 0.99999994 just above one) */
    for (int i = 0; i < PAIRS / 9; i++) {
        const int ne = (int)(sizeof edge / sizeof edge[0]), half = PAIRS / 18;
        const bool rcp = i >= half;
        const int e = rcp ? i - half : i;
        float a = e < ne ? edge[e][0] : random_float(&rng);
        float b = e < ne ? edge[e][1] : random_float(&rng);
        if (rcp)
            a = 1.0f, b = fabsf(b);
        for (int k = 0; k < 9; k++) {
            uint32_t *p = pairs + 4 * (9 * i + k);
            p[0] = bits_of(a), p[1] = bits_of(b), p[2] = (uint32_t)(k - 4), p[3] = rcp;
        }
    }
    static upf__vk_runner_params rp;
    rp = (upf__vk_runner_params){
        .ctx = ctx, .fn = "exact_create", .dev = &t->lend, .vk = &vk, .caps = &caps,
        .pass = exact_passes, .pass_count = 1, .surface = exact_surfaces,
        .surface_count = E_COUNT, .slots = 1 };
    rp.width[E_PAIRS] = 4 * PAIRS, rp.width[E_OUT] = PAIRS;
    rp.height[E_PAIRS] = rp.height[E_OUT] = 1;
    rp.surface_plan[E_PAIRS] = (upf__vk_surface_plan){ .upload = pairs,
                                                       .upload_bytes = sizeof pairs };
    rp.gpu_pass_count = 1;
    rp.gpu_pass[0] = (upf__vk_pass_plan){
        .pass = 0, .push_bytes = sizeof(int32_t), .variant_count = 1,
        .variant = { { "toy/exact", NULL, toy_shader("toy/exact") } } };
    upf__vk_runner *run = upf__vk_runner_create(&rp);
    const char *m = "";
    upf_context_last_error(ctx, &m);
    CHECKF(run != NULL, "exact_create: %s", m);
    if (!run)
        return;
    static upf__vk_frame f;
    memset(&f, 0, sizeof f);
    const int32_t n = PAIRS;
    f.pass[0] = (upf__vk_pass_frame){ .run = true, .push = &n, .dispatches = 1,
                                      .grid = { { (PAIRS + 63) / 64, 1, 1 } } };
    VkCommandBuffer cmd = vkt_begin(t);
    CHECK_OK(ctx, upf__vk_runner_record(run, "test", cmd, &f));
    VkDeviceSize bytes = 0;
    const VkBuffer ob = upf__vk_runner_buffer(run, E_OUT, &bytes);
    vkt_buffer down = vkt_buffer_make(t, PAIRS * 4);
    vkt_record_copy(cmd, ob, down.buffer, PAIRS * 4);
    if (vkt_submit(t) == 0) {
        const uint32_t *got = down.map;
        int wrong = 0, first = -1;
        for (int i = 0; i < PAIRS; i++) {
            const float want = float_of(pairs[4 * i]) / float_of(pairs[4 * i + 1]);
            if (got[i] != bits_of(want) && first < 0)
                first = i;
            wrong += got[i] != bits_of(want);
        }
        CHECKF(wrong == 0, "exact.glsl's quotient or reciprocal from a start off by up to 4 ulps: %d of %d "
               "wrong (the first %.9g / %.9g from %d ulps: %.9g)", wrong, PAIRS,
               first < 0 ? 0.0 : (double)float_of(pairs[4 * first]),
               first < 0 ? 0.0 : (double)float_of(pairs[4 * first + 1]),
               first < 0 ? 0 : (int)pairs[4 * first + 2],
               first < 0 ? 0.0 : (double)float_of(got[first]));
    }
    vkt_buffer_free(t, &down);
    upf__vk_runner_destroy(&run);
}

int main(void)
{
    upf_context *ctx = test_context(1);
    vkt t;
    const int rc = vkt_init(&t, ctx);
    if (rc) {
        upf_context_destroy(&ctx);
        return rc;
    }
    test_toy(&t, ctx);
    test_indirect(&t, ctx);
    test_exact(&t, ctx);
    vkt_finish(&t);
    upf_context_destroy(&ctx);
    return test_finish("test_vk_runner");
}
