/* test_vk_temporal.c: the Vulkan temporal engine as a host uses it (upf_vk_temporal_*,
 * include/upframe_vk.h) on whatever Vulkan device is here (lavapipe in CI), under the
 * validation layer with synchronization validation (vk_test_util.h: any message fails),
 * against the CPU engine (upf_temporal_run) on the same frames.
 *
 *  - Sequences from the scene renderer (tools/scene: exact depth and motion), 16 frames of
 *    each camera path (still, pan, walk, orbit) at 96x54 -> 192x108 with the engine's jitter:
 *    every frame's output within a mean absolute difference of 0.0005 on [0, 1] (the largest
 *    printed), and each pass's surfaces against the CPU's after frames 0, 1, 3, 7, 11 and 15
 *    (the pass's own output from nearly the same inputs: colour, camera motion, dilated
 *    motion and depth, previous depth, reactivity, locks, history, state, the display's
 *    offsets: within 2e-5 where the CPU's are about 6e-4, so a shader without the dead band
 *    fails), so a wrong pass shows by name.
 *  - 8 frames with the spatial fill (the GPU spatial engine between locks and accumulate; the
 *    fill surface compared too).
 *  - 8 frames without motion vectors (the camera_motion pass and the reconstruct's camera
 *    variant), with a reactive mask, sharpening and the sqrt encoding, and of random frames.
 *  - The host's images in other formats (8-bit sRGB colour, R16F depth, RG16F motion, R8
 *    reactive, an RGBA8 output encoded in the shader).
 *  - A reset with a render-size change (dynamic resolution).
 *  - The tool: `upframe temporal --backend vulkan` against `--backend cpu`.
 *  - Bad input: NULL handles, images without the usage flags, formats it cannot take, render
 *    sizes above those created for, a depth image without a depth-aspect view (a colour
 *    view of a depth format), wrong layouts: a clear error naming what, nothing recorded,
 *    and the same command buffer then records and runs a good frame.
 *  - NaN and huge motion: no NaN reaches the history or the output. */
#include "test_util.h"
#include "vk_test_util.h"

#include <math.h>
#include <unistd.h>

#include "core/color.h"
#include "imageio/image_io.h"
#include "scene/scene.h"
#include "sequence/sequence.h"
#include "temporal/temporal_passes.h"
#include "vk/vk_temporal.h"

#define RW 96
#define RH 54
#define OW 192
#define OH 108
#define FRAMES 16

/* One rendered frame. */
typedef struct frame_data {
    float color[RW * RH * 4], depth[RW * RH], motion[RW * RH * 2], reactive[RW * RH];
    double vp[16], prev_vp[16];
    upf_temporal_frame values;
} frame_data;

/* Frame n of `path`, jittered as the engine's sequence asks. */
static bool render(scene *sc, const char *path, int n, frame_data *f)
{
    int phases = 8;
    upf_jitter_phase_count(NULL, RW, OW, &phases);
    double jx = 0.0, jy = 0.0;
    upf_jitter_offset(NULL, n, phases, &jx, &jy);
    scene_camera cam;
    const scene_buffers b = { f->color, NULL, f->depth, f->motion };
    if (scene_render(sc, scene_view_params(.path = path, .time = n / 30.0, .width = RW,
                                           .height = RH, .jitter_x = jx, .jitter_y = jy),
                     &b, &cam) != UPF_OK)
        return false;
    seq_mat4_mul(cam.proj, cam.view, f->vp);
    seq_mat4_mul(cam.prev_proj, cam.prev_view, f->prev_vp);
    for (int i = 0; i < RW * RH; i++)
        f->reactive[i] = (i / RW > RH / 2 && i % RW < RW / 3) ? 0.75f : 0.0f;
    f->values = (upf_temporal_frame){
        .jitter_x = jx, .jitter_y = jy, .frame_time_ms = 33.3,
        .camera = { .near_plane = cam.near_plane, .far_plane = cam.far_plane,
                    .fov_y = cam.fov_y, .depth_reversed = cam.depth_reversed,
                    .far_infinite = isinf(cam.far_plane) },
        .view_projection = f->vp, .prev_view_projection = f->prev_vp };
    return true;
}

/* Frame n of random values: HDR colour (a few highlights at 50), depth in the forward
 * convention, motion within 4 pixels, a reactive mask; the engine's jitter. */
static void random_frame(test_rng *rng, int n, frame_data *f)
{
    int phases = 8;
    upf_jitter_phase_count(NULL, RW, OW, &phases);
    double jx = 0.0, jy = 0.0;
    upf_jitter_offset(NULL, n, phases, &jx, &jy);
    for (int i = 0; i < RW * RH; i++) {
        const bool hot = test_rand_int(rng, 0, 49) == 0;
        for (int c = 0; c < 3; c++)
            f->color[4 * i + c] = hot ? 50.0f : 3.0f * test_rand_float(rng);
        f->color[4 * i + 3] = 1.0f;
        f->depth[i] = 0.001f + 0.999f * test_rand_float(rng);
        f->motion[2 * i] = 8.0f * test_rand_float(rng) - 4.0f;
        f->motion[2 * i + 1] = 8.0f * test_rand_float(rng) - 4.0f;
        f->reactive[i] = test_rand_float(rng);
    }
    f->values = (upf_temporal_frame){
        .jitter_x = jx, .jitter_y = jy, .frame_time_ms = 16.7, .exposure = 0.8f,
        .camera = { .near_plane = 0.1, .far_plane = 100.0, .fov_y = 1.0 } };
}

/* ---- the GPU side: the host's images and staging ------------------------------------------ */

typedef struct gpu {
    vkt_image color, depth, motion, reactive, out;
    vkt_buffer up_color, up_depth, up_motion, up_reactive, down_out, down_surface;
} gpu;

enum { USE_IN = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
       USE_OUT = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT };

static void gpu_make(vkt *k, gpu *g)
{
    g->color = vkt_image_make(k, RW, RH, VK_FORMAT_R32G32B32A32_SFLOAT, 0, USE_IN);
    g->depth = vkt_image_make(k, RW, RH, VK_FORMAT_R32_SFLOAT, 0, USE_IN);
    g->motion = vkt_image_make(k, RW, RH, VK_FORMAT_R32G32_SFLOAT, 0, USE_IN);
    g->reactive = vkt_image_make(k, RW, RH, VK_FORMAT_R32_SFLOAT, 0, USE_IN);
    g->out = vkt_image_make(k, OW, OH, VK_FORMAT_R32G32B32A32_SFLOAT, 0, USE_OUT);
    g->up_color = vkt_buffer_make(k, sizeof(float) * RW * RH * 4);
    g->up_depth = vkt_buffer_make(k, sizeof(float) * RW * RH);
    g->up_motion = vkt_buffer_make(k, sizeof(float) * RW * RH * 2);
    g->up_reactive = vkt_buffer_make(k, sizeof(float) * RW * RH);
    g->down_out = vkt_buffer_make(k, sizeof(float) * OW * OH * 4);
    g->down_surface = vkt_buffer_make(k, sizeof(float) * OW * OH * 4);
}

static void gpu_free(vkt *k, gpu *g)
{
    vkt_image *im[] = { &g->color, &g->depth, &g->motion, &g->reactive, &g->out };
    for (size_t i = 0; i < sizeof im / sizeof im[0]; i++)
        vkt_image_free(k, im[i]);
    vkt_buffer *b[] = { &g->up_color, &g->up_depth, &g->up_motion, &g->up_reactive,
                        &g->down_out, &g->down_surface };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        vkt_buffer_free(k, b[i]);
}

static const VkImageLayout RO = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;

/* The frame's images as the host lends them (uploaded, in SHADER_READ_ONLY_OPTIMAL). */
typedef struct lent {
    upf_vk_image color, depth, motion, reactive, out;
} lent;

static void lend_all(const gpu *g, lent *l)
{
    l->color = vkt_lend(&g->color, RO, RO, 0);
    l->depth = vkt_lend(&g->depth, RO, RO, 0);
    l->motion = vkt_lend(&g->motion, RO, RO, 0);
    l->reactive = vkt_lend(&g->reactive, RO, RO, 0);
    l->out = vkt_lend(&g->out, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
}

static void upload(VkCommandBuffer cmd, gpu *g, const frame_data *f)
{
    memcpy(g->up_color.map, f->color, sizeof f->color);
    memcpy(g->up_depth.map, f->depth, sizeof f->depth);
    memcpy(g->up_motion.map, f->motion, sizeof f->motion);
    memcpy(g->up_reactive.map, f->reactive, sizeof f->reactive);
    vkt_record_upload(cmd, &g->up_color, &g->color, RO);
    vkt_record_upload(cmd, &g->up_depth, &g->depth, RO);
    vkt_record_upload(cmd, &g->up_motion, &g->motion, RO);
    vkt_record_upload(cmd, &g->up_reactive, &g->reactive, RO);
}

/* ---- comparisons ---------------------------------------------------------------------- */

typedef struct diff_stats {
    double mean, max;
    long nonfinite;
} diff_stats;

static diff_stats diff(const float *a, const float *b, size_t n, int stride, int channels)
{
    diff_stats d = { 0, 0, 0 };
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < channels; c++) {
            float x = a[i * stride + c], y = b[i * stride + c];
            if (!isfinite(x) || !isfinite(y)) {
                d.nonfinite++;
                continue;
            }
            double e = fabs((double)x - y);
            d.mean += e;
            d.max = e > d.max ? e : d.max;
            count++;
        }
    d.mean /= count ? (double)count : 1.0;
    return d;
}

/* The surfaces compared after each frame: how many floats a texel, how many compared, and
 * what a pass may differ by (mean) from its CPU pass on nearly the same inputs. */
static const struct {
    int surface, floats, channels;
    bool output_size;
    double mean_max;
} compared[] = {
    { UPF__TP_COLOR, 4, 4, false, 1e-6 },
    { UPF__TP_DILATED_MOTION, 2, 2, false, 1e-4 },
    { UPF__TP_DILATED_DEPTH, 1, 1, false, 1e-4 },
    { UPF__TP_REACTIVITY, 2, 2, false, 0.01 },
    { UPF__TP_LOCKS, 1, 1, false, 0.01 },
    { UPF__TP_HISTORY, 4, 3, true, 0.0005 },
    { UPF__TP_FILL, 4, 3, true, 0.0005 }, /* with the spatial fill only */
};

/* Reads back surface `s` of the GPU engine into g->down_surface. */
static int read_surface(vkt *k, upf_vk_temporal *vt, gpu *g, int s)
{
    VkDeviceSize bytes = 0;
    VkBuffer b = upf__vk_runner_buffer(upf__vk_temporal_runner(vt), s, &bytes);
    CHECK(b != VK_NULL_HANDLE && bytes <= g->down_surface.size);
    if (!b || bytes > g->down_surface.size)
        return 1;
    vkt_record_copy(vkt_begin(k), b, g->down_surface.buffer, bytes);
    return vkt_submit(k);
}

/* The lock and luma records (uint): how many differ. */
static long state_differs(vkt *k, upf_vk_temporal *vt, upf_temporal *ct, gpu *g)
{
    if (read_surface(k, vt, g, UPF__TP_STATE))
        return -1;
    const uint32_t *gs = g->down_surface.map;
    const uint32_t *cs = upf__temporal_passes(ct)->surface[UPF__TP_STATE].data;
    long differ = 0;
    for (int i = 0; i < OW * OH; i++)
        differ += gs[i] != cs[i];
    return differ;
}

/* The shown colour's offsets (three 10-bit counts a uint, temporal_passes.h): the mean
 * absolute difference of the unpacked values, and the mean size of the CPU's (-1 on a failed
 * read). */
static double display_differs(vkt *k, upf_vk_temporal *vt, upf_temporal *ct, gpu *g,
                              double *cpu_mean)
{
    if (read_surface(k, vt, g, UPF__TP_DISPLAY))
        return -1;
    const uint32_t *gd = g->down_surface.map;
    const uint32_t *cd = upf__temporal_passes(ct)->surface[UPF__TP_DISPLAY].data;
    double sum = 0, size = 0;
    for (int i = 0; i < OW * OH; i++) {
        float a[3], b[3];
        upf__display_unpack(gd[i], a);
        upf__display_unpack(cd[i], b);
        for (int c = 0; c < 3; c++)
            sum += fabsf(a[c] - b[c]), size += fabsf(b[c]);
    }
    *cpu_mean = size / (3.0 * OW * OH);
    return sum / (3.0 * OW * OH);
}

static void compare_surfaces(vkt *k, upf_vk_temporal *vt, upf_temporal *ct, gpu *g,
                             const char *what, int n, bool camera)
{
    const upf__passes *ps = upf__temporal_passes(ct);
    if (camera && read_surface(k, vt, g, UPF__TP_CAMERA_MOTION) == 0) {
        diff_stats d = diff(g->down_surface.map, ps->surface[UPF__TP_CAMERA_MOTION].data,
                            (size_t)RW * RH, 2, 2);
        CHECKF(d.mean <= 1e-4 && d.nonfinite == 0, "%s frame %d: camera_motion mean %.3g max "
               "%.3g", what, n, d.mean, d.max);
    }
    const long st = state_differs(k, vt, ct, g);
    CHECKF(st >= 0 && st <= OW * OH / 100, "%s frame %d: state differs at %ld pixels", what, n,
           st);
    double dsize = 0;
    const double dd = display_differs(k, vt, ct, g, &dsize);
    CHECKF(dd >= 0 && dd <= 2e-5, "%s frame %d: display offsets differ by %.3g (mean %.3g)",
           what, n, dd, dsize);
    if (n == 7)
        printf("  %s frame %d: %-14s mean %.3g (offsets' mean %.3g)\n", what, n, "display", dd,
               dsize);
    for (size_t i = 0; i < sizeof compared / sizeof compared[0]; i++) {
        const int s = compared[i].surface;
        if (s == UPF__TP_FILL && !ps->surface[s].width)
            continue;
        if (read_surface(k, vt, g, s))
            return;
        const size_t texels = compared[i].output_size ? (size_t)OW * OH : (size_t)RW * RH;
        diff_stats d = diff(g->down_surface.map, ps->surface[s].data, texels,
                            compared[i].floats, compared[i].channels);
        CHECKF(d.mean <= compared[i].mean_max && d.nonfinite == 0, "%s frame %d: %s mean %.3g "
               "max %.3g (%ld not finite)", what, n, upf__temporal_surface_table()[s].name,
               d.mean, d.max, d.nonfinite);
        if (n == 7)
            printf("  %s frame %d: %-14s mean %.3g max %.3g\n", what, n,
                   upf__temporal_surface_table()[s].name, d.mean, d.max);
    }
    /* previous depth: bits of z, exact except where a float z differs in its last bits */
    if (read_surface(k, vt, g, UPF__TP_PREV_DEPTH))
        return;
    const uint32_t *gp = g->down_surface.map, *cp = ps->surface[UPF__TP_PREV_DEPTH].data;
    long differ = 0;
    for (int i = 0; i < RW * RH; i++) {
        float a, b;
        memcpy(&a, &gp[i], 4), memcpy(&b, &cp[i], 4);
        if (gp[i] != cp[i] && !(gp[i] != UPF__NO_DEPTH && cp[i] != UPF__NO_DEPTH &&
                                fabsf(a - b) <= 1e-4f * fabsf(b)))
            differ++;
    }
    CHECKF(differ <= RW * RH / 100, "%s frame %d: prev_depth differs at %ld cells", what, n,
           differ);
}

/* ---- a sequence ------------------------------------------------------------------------- */

typedef struct seq_opts {
    const char *path;             /* a camera path, or NULL: random frames */
    int frames;                   /* 0: FRAMES */
    bool no_motion, reactive;
    float sharpness;
    unsigned flags;
} seq_opts;

static float cpu_out[OW * OH * 4];

static void run_sequence(vkt *k, upf_context *ctx, scene *sc, const seq_opts *o)
{
    char what[96];
    test_rng rng = { { 1, 2, 3, 4 } };
    if (!o->path)
        rng = test_rng_make("test_vk_temporal random frames");
    snprintf(what, sizeof what, "%s%s%s%s%s", o->path ? o->path : "random",
             o->flags & UPF_TEMPORAL_SPATIAL_FILL ? " fill" : "",
             o->no_motion ? " no-motion" : "", o->reactive ? " reactive" : "",
             o->sharpness > 0 ? " sharpened" : "");
    upf_temporal *ct = upf_temporal_create(ctx, upf_temporal_params(
        .render_width = RW, .render_height = RH, .output_width = OW, .output_height = OH,
        .sharpness = o->sharpness, .flags = o->flags));
    upf_vk_temporal *vt = upf_vk_temporal_create(ctx, upf_vk_temporal_params(
        .device = &k->lend, .max_render_width = RW, .max_render_height = RH,
        .output_width = OW, .output_height = OH, .sharpness = o->sharpness, .flags = o->flags,
        .timestamps = 1));
    const char *why = "";
    upf_context_last_error(ctx, &why);
    CHECKF(ct && vt, "%s: create: %s", what, why);
    frame_data *f = malloc(sizeof *f);
    gpu g;
    gpu_make(k, &g);
    double worst_mean = 0.0, worst_max = 0.0;
    const int frames = o->frames ? o->frames : FRAMES;
    for (int n = 0; ct && vt && f && n < frames; n++) {
        if (!o->path)
            random_frame(&rng, n, f);
        else if (!render(sc, o->path, n, f)) {
            CHECKF(false, "%s: render frame %d", what, n);
            break;
        }
        const upf_image ic = { f->color, RW, RH, 0, UPF_FORMAT_RGBA32F };
        const upf_image id = { f->depth, RW, RH, 0, UPF_FORMAT_R32F };
        const upf_image im = { f->motion, RW, RH, 0, UPF_FORMAT_RG32F };
        const upf_image ir = { f->reactive, RW, RH, 0, UPF_FORMAT_R32F };
        const upf_image io = { cpu_out, OW, OH, 0, UPF_FORMAT_RGBA32F };
        upf_temporal_frame cf = f->values;
        cf.color = &ic, cf.depth = &id, cf.motion = o->no_motion ? NULL : &im;
        cf.reactive = o->reactive ? &ir : NULL;
        CHECKF(upf_temporal_run(ct, &cf, &io) == UPF_OK, "%s: CPU frame %d", what, n);

        lent l;
        lend_all(&g, &l);
        const upf_vk_temporal_frame vf = { &l.color, &l.depth, o->no_motion ? NULL : &l.motion,
                                           o->reactive ? &l.reactive : NULL, 0, 0, f->values };
        VkCommandBuffer cmd = vkt_begin(k);
        upload(cmd, &g, f);
        upf_result r = upf_vk_temporal_record(vt, cmd, &vf, &l.out);
        const char *msg = "";
        upf_context_last_error(ctx, &msg);
        CHECKF(r == UPF_OK, "%s: record frame %d: %s", what, n, msg);
        vkt_record_download(cmd, &g.out, VK_IMAGE_LAYOUT_GENERAL, &g.down_out);
        if (vkt_submit(k))
            break;
        diff_stats d = diff(g.down_out.map, cpu_out, (size_t)OW * OH, 4, 3);
        CHECKF(d.mean <= 0.0005 && d.nonfinite == 0, "%s frame %d: output mean %.3g max %.3g "
               "(%ld not finite)", what, n, d.mean, d.max, d.nonfinite);
        worst_mean = d.mean > worst_mean ? d.mean : worst_mean;
        worst_max = d.max > worst_max ? d.max : worst_max;
        if (n < 2 || n % 4 == 3) /* the first frames, then every fourth: each readback is a
                                  * submission, slow under the validation layer */
            compare_surfaces(k, vt, ct, &g, what, n, o->no_motion);
    }
    printf("%-28s %d frames: output mean abs diff <= %.3g, largest %.3g\n", what, frames,
           worst_mean, worst_max);
    double ms[UPF_TEMPORAL_PASS_COUNT], total = 0.0;
    if (vt)
        CHECKF(upf_vk_temporal_timings(vt, ms, &total) == UPF_OK && total > 0.0,
               "%s: timings", what);
    gpu_free(k, &g);
    free(f);
    upf_vk_temporal_destroy(&vt);
    upf_temporal_destroy(&ct);
}


/* ---- a render-size change with a reset, and a smaller render size ---------------------------- */

/* Packs a w x h frame into the RW x RH images' top-left corner (the rest 0). */
static void pack_small(frame_data *f, int w, int h)
{
    static frame_data tmp;
    tmp = *f;
    memset(f->color, 0, sizeof f->color), memset(f->depth, 0, sizeof f->depth);
    memset(f->motion, 0, sizeof f->motion), memset(f->reactive, 0, sizeof f->reactive);
    for (int y = 0; y < h; y++) {
        memcpy(f->color + (size_t)y * RW * 4, tmp.color + (size_t)y * w * 4, sizeof(float) * 4 * w);
        memcpy(f->depth + (size_t)y * RW, tmp.depth + (size_t)y * w, sizeof(float) * w);
        memcpy(f->motion + (size_t)y * RW * 2, tmp.motion + (size_t)y * w * 2, sizeof(float) * 2 * w);
    }
}

/* Frames 0-3 at the largest render size, then frame 4 at 80x45 with a reset: the same as a
 * fresh CPU engine made for 80x45 on that frame (a reset starts from nothing), and frame 5 at
 * 80x45 the same as that engine's second frame (the history carried at the output size). */
static void test_render_size_change(vkt *k, upf_context *ctx, scene *sc)
{
    enum { SW = 80, SH = 45 };
    upf_vk_temporal *vt = upf_vk_temporal_create(ctx, upf_vk_temporal_params(
        .device = &k->lend, .max_render_width = RW, .max_render_height = RH,
        .output_width = OW, .output_height = OH));
    upf_temporal *ct = upf_temporal_create(ctx, upf_temporal_params(
        .render_width = SW, .render_height = SH, .output_width = OW, .output_height = OH));
    frame_data *f = malloc(sizeof *f);
    gpu g;
    gpu_make(k, &g);
    CHECK(vt && ct && f);
    for (int n = 0; vt && ct && f && n < 6; n++) {
        scene_camera cam;
        const int w = n < 4 ? RW : SW, h = n < 4 ? RH : SH;
        int phases = 8;
        upf_jitter_phase_count(NULL, w, OW, &phases);
        double jx, jy;
        upf_jitter_offset(NULL, n, phases, &jx, &jy);
        const scene_buffers b = { f->color, NULL, f->depth, f->motion };
        CHECK(scene_render(sc, scene_view_params(.path = "walk", .time = n / 30.0, .width = w,
                                                 .height = h, .jitter_x = jx, .jitter_y = jy),
                           &b, &cam) == UPF_OK);
        f->values = (upf_temporal_frame){
            .jitter_x = jx, .jitter_y = jy, .frame_time_ms = 33.3, .reset = n == 4,
            .camera = { .near_plane = cam.near_plane, .far_plane = cam.far_plane,
                        .fov_y = cam.fov_y, .depth_reversed = cam.depth_reversed,
                        .far_infinite = isinf(cam.far_plane) } };
        if (n >= 4) {
            const upf_image ic = { f->color, SW, SH, 0, UPF_FORMAT_RGBA32F };
            const upf_image id = { f->depth, SW, SH, 0, UPF_FORMAT_R32F };
            const upf_image im = { f->motion, SW, SH, 0, UPF_FORMAT_RG32F };
            const upf_image io = { cpu_out, OW, OH, 0, UPF_FORMAT_RGBA32F };
            upf_temporal_frame cf = f->values;
            cf.color = &ic, cf.depth = &id, cf.motion = &im;
            CHECK(upf_temporal_run(ct, &cf, &io) == UPF_OK);
            pack_small(f, SW, SH);
        }
        lent l;
        lend_all(&g, &l);
        const upf_vk_temporal_frame vf = { &l.color, &l.depth, &l.motion, NULL, w, h,
                                           f->values };
        VkCommandBuffer cmd = vkt_begin(k);
        upload(cmd, &g, f);
        CHECKF(upf_vk_temporal_record(vt, cmd, &vf, &l.out) == UPF_OK, "render size %dx%d",
               w, h);
        vkt_record_download(cmd, &g.out, VK_IMAGE_LAYOUT_GENERAL, &g.down_out);
        if (vkt_submit(k))
            break;
        if (n >= 4) {
            diff_stats d = diff(g.down_out.map, cpu_out, (size_t)OW * OH, 4, 3);
            CHECKF(d.mean <= 0.0005 && d.nonfinite == 0, "frame %d at %dx%d (reset %d): mean "
                   "%.3g max %.3g", n, SW, SH, n == 4, d.mean, d.max);
            printf("render size change, frame %d at %dx%d: mean %.3g max %.3g\n", n, SW, SH,
                   d.mean, d.max);
        }
    }
    gpu_free(k, &g);
    free(f);
    upf_temporal_destroy(&ct);
    upf_vk_temporal_destroy(&vt);
}

/* The still path at 96x54 -> 160x90 (1.67x), 8 frames: accumulate's still_share between 1.5x
 * and 2x (the sequences above are at 2x and 2.4x, where it is SAMPLE_SHARE_STILL) the same on
 * both backends. */
static void test_ratio_below_2(vkt *k, upf_context *ctx, scene *sc)
{
    enum { QW = 160, QH = 90 };
    upf_vk_temporal *vt = upf_vk_temporal_create(ctx, upf_vk_temporal_params(
        .device = &k->lend, .max_render_width = RW, .max_render_height = RH,
        .output_width = QW, .output_height = QH));
    upf_temporal *ct = upf_temporal_create(ctx, upf_temporal_params(
        .render_width = RW, .render_height = RH, .output_width = QW, .output_height = QH));
    frame_data *f = malloc(sizeof *f);
    gpu g;
    gpu_make(k, &g);
    vkt_image_free(k, &g.out);
    g.out = vkt_image_make(k, QW, QH, VK_FORMAT_R32G32B32A32_SFLOAT, 0, USE_OUT);
    CHECK(vt && ct && f);
    double worst = 0.0;
    for (int n = 0; vt && ct && f && n < 8; n++) {
        if (!render(sc, "still", n, f)) {
            CHECKF(false, "1.67x: render frame %d", n);
            break;
        }
        const upf_image ic = { f->color, RW, RH, 0, UPF_FORMAT_RGBA32F };
        const upf_image id = { f->depth, RW, RH, 0, UPF_FORMAT_R32F };
        const upf_image im = { f->motion, RW, RH, 0, UPF_FORMAT_RG32F };
        const upf_image io = { cpu_out, QW, QH, 0, UPF_FORMAT_RGBA32F };
        upf_temporal_frame cf = f->values;
        cf.color = &ic, cf.depth = &id, cf.motion = &im;
        CHECK(upf_temporal_run(ct, &cf, &io) == UPF_OK);
        lent l;
        lend_all(&g, &l);
        const upf_vk_temporal_frame vf = { &l.color, &l.depth, &l.motion, NULL, 0, 0,
                                           f->values };
        VkCommandBuffer cmd = vkt_begin(k);
        upload(cmd, &g, f);
        CHECKF(upf_vk_temporal_record(vt, cmd, &vf, &l.out) == UPF_OK, "1.67x frame %d", n);
        vkt_record_download(cmd, &g.out, VK_IMAGE_LAYOUT_GENERAL, &g.down_out);
        if (vkt_submit(k))
            break;
        diff_stats d = diff(g.down_out.map, cpu_out, (size_t)QW * QH, 4, 3);
        CHECKF(d.mean <= 0.0005 && d.nonfinite == 0, "1.67x still frame %d: mean %.3g max %.3g",
               n, d.mean, d.max);
        worst = d.mean > worst ? d.mean : worst;
    }
    printf("still at 1.67x, 8 frames: output mean difference at most %.3g\n", worst);
    gpu_free(k, &g);
    free(f);
    upf_temporal_destroy(&ct);
    upf_vk_temporal_destroy(&vt);
}

/* ---- NaN and huge motion --------------------------------------------------------------------- */

/* Motion that is NaN, infinite or 1e30 in a block of the frame, every frame: those pixels
 * have no history (UPF__MV_INVALID, or clamped off screen); nothing non-finite reaches the
 * history or the output, and the CPU engine (which warns) gives the same pictures. */
static void test_bad_motion(vkt *k, upf_context *ctx, scene *sc)
{
    upf_vk_temporal *vt = upf_vk_temporal_create(ctx, upf_vk_temporal_params(
        .device = &k->lend, .max_render_width = RW, .max_render_height = RH,
        .output_width = OW, .output_height = OH));
    upf_temporal *ct = upf_temporal_create(ctx, upf_temporal_params(
        .render_width = RW, .render_height = RH, .output_width = OW, .output_height = OH));
    frame_data *f = malloc(sizeof *f);
    gpu g;
    gpu_make(k, &g);
    CHECK(vt && ct && f);
    for (int n = 0; vt && ct && f && n < 6; n++) {
        if (!render(sc, "pan", n, f))
            break;
        for (int y = 10; y < 30; y++)
            for (int x = 20; x < 50; x++) {
                float *m = f->motion + 2 * ((size_t)y * RW + x);
                m[0] = (x + y) % 3 == 0 ? NAN : (x + y) % 3 == 1 ? INFINITY : 1e30f;
                m[1] = (x % 2) ? -1e30f : NAN;
            }
        const upf_image ic = { f->color, RW, RH, 0, UPF_FORMAT_RGBA32F };
        const upf_image id = { f->depth, RW, RH, 0, UPF_FORMAT_R32F };
        const upf_image im = { f->motion, RW, RH, 0, UPF_FORMAT_RG32F };
        const upf_image io = { cpu_out, OW, OH, 0, UPF_FORMAT_RGBA32F };
        upf_temporal_frame cf = f->values;
        cf.color = &ic, cf.depth = &id, cf.motion = &im;
        CHECK(upf_temporal_run(ct, &cf, &io) == UPF_OK);
        lent l;
        lend_all(&g, &l);
        const upf_vk_temporal_frame vf = { &l.color, &l.depth, &l.motion, NULL, 0, 0,
                                           f->values };
        VkCommandBuffer cmd = vkt_begin(k);
        upload(cmd, &g, f);
        CHECK(upf_vk_temporal_record(vt, cmd, &vf, &l.out) == UPF_OK);
        vkt_record_download(cmd, &g.out, VK_IMAGE_LAYOUT_GENERAL, &g.down_out);
        if (vkt_submit(k))
            break;
        diff_stats d = diff(g.down_out.map, cpu_out, (size_t)OW * OH, 4, 4);
        CHECKF(d.mean <= 0.0005 && d.nonfinite == 0, "bad motion frame %d: output mean %.3g "
               "max %.3g, %ld not finite", n, d.mean, d.max, d.nonfinite);
        if (read_surface(k, vt, &g, UPF__TP_HISTORY))
            break;
        d = diff(g.down_surface.map, upf__temporal_passes(ct)->surface[UPF__TP_HISTORY].data,
                 (size_t)OW * OH, 4, 4);
        CHECKF(d.nonfinite == 0, "bad motion frame %d: %ld history values not finite", n,
               d.nonfinite);
        if (n == 5)
            printf("NaN / huge motion, 6 frames: output mean %.3g max %.3g, history finite\n",
                   d.mean, d.max);
    }
    gpu_free(k, &g);
    free(f);
    upf_temporal_destroy(&ct);
    upf_vk_temporal_destroy(&vt);
}

/* ---- bad input ------------------------------------------------------------------------------- */

/* A D32_SFLOAT image (sampled) and a view of its depth aspect. */
static vkt_image depth_image(vkt *k)
{
    vkt_image im = { .format = VK_FORMAT_D32_SFLOAT, .view_format = VK_FORMAT_D32_SFLOAT,
                     .usage = VK_IMAGE_USAGE_SAMPLED_BIT |
                              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                     .width = RW, .height = RH };
    const VkImageCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
        .format = im.format, .extent = { RW, RH, 1 }, .mipLevels = 1, .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = im.usage };
    if (vkCreateImage(k->device, &ci, NULL, &im.image) != VK_SUCCESS)
        return im;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(k->device, im.image, &req);
    im.memory = vkt_alloc(k, req, 0);
    vkBindImageMemory(k->device, im.image, im.memory, 0);
    const VkImageViewCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = im.image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = im.format,
        .subresourceRange = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1 } };
    vkCreateImageView(k->device, &vi, NULL, &im.view);
    return im;
}

static void test_bad_input(vkt *k, upf_context *ctx, scene *sc)
{
    upf_vk_temporal *vt = upf_vk_temporal_create(ctx, upf_vk_temporal_params(
        .device = &k->lend, .max_render_width = RW, .max_render_height = RH,
        .output_width = OW, .output_height = OH));
    CHECK(vt != NULL);
    /* create */
    CHECK(upf_vk_temporal_create(ctx, NULL) == NULL);
    CHECK(upf_vk_temporal_create(ctx, upf_vk_temporal_params(.max_render_width = RW,
          .max_render_height = RH, .output_width = OW, .output_height = OH)) == NULL);
    const char *msg = "";
    upf_context_last_error(ctx, &msg);
    CHECKF(strstr(msg, "device is NULL"), "%s", msg);
    CHECK(upf_vk_temporal_create(ctx, upf_vk_temporal_params(.device = &k->lend,
          .max_render_width = RW, .max_render_height = RH, .output_width = OW * 3,
          .output_height = OH)) == NULL);
    upf_context_last_error(ctx, &msg);
    CHECKF(strstr(msg, "expected output / render from 1 to 4"), "%s", msg);
    CHECK(upf_vk_temporal_create(ctx, upf_vk_temporal_params(.device = &k->lend,
          .max_render_width = RW, .max_render_height = RH, .output_width = OW,
          .output_height = OH, .frames_in_flight = 5, .flags = UPF_TEMPORAL_SPATIAL_FILL)) ==
          NULL);
    upf_context_last_error(ctx, &msg);
    CHECKF(strstr(msg, "UPF_TEMPORAL_SPATIAL_FILL; expected at most 4"), "%s", msg);
    frame_data *f = malloc(sizeof *f);
    if (!vt || !f || !render(sc, "still", 0, f)) {
        free(f);
        upf_vk_temporal_destroy(&vt);
        return;
    }
    gpu g;
    gpu_make(k, &g);
    vkt_image r8 = vkt_image_make(k, RW, RH, VK_FORMAT_R8_UNORM, 0, USE_IN);
    vkt_image no_sampled = vkt_image_make(k, RW, RH, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                          VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                              VK_IMAGE_USAGE_STORAGE_BIT);
    vkt_image no_storage = vkt_image_make(k, OW, OH, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                          VK_IMAGE_USAGE_SAMPLED_BIT);
    lent good;
    lend_all(&g, &good);
    VkCommandBuffer cmd = vkt_begin(k);
    upload(cmd, &g, f);
    if (vkt_submit(k))
        return;
    cmd = vkt_begin(k);
    const upf_vk_temporal_frame ok = { &good.color, &good.depth, &good.motion, NULL, 0, 0,
                                       f->values };
    upf_vk_image bad_img;
    upf_vk_temporal_frame bf;
#define BAD_CODE(setup, out_img, code, needle)                                                 \
    do {                                                                                       \
        bf = ok, bad_img = good.color;                                                         \
        const upf_vk_image *out_ = (out_img);                                                  \
        setup;                                                                                 \
        CHECK_FAILS(ctx, upf_vk_temporal_record(vt, cmd, &bf, out_), code, needle);            \
    } while (0)
#define BAD(setup, out_img, needle) BAD_CODE(setup, out_img, UPF_ERROR_INVALID_ARGUMENT, needle)
    BAD((void)0, NULL, "output");
    BAD(bf.color = NULL, &good.out, "color is NULL");
    BAD(bf.depth = NULL, &good.out, "depth is NULL");
    BAD((bad_img = vkt_lend(&no_sampled, RO, RO, 0), bf.color = &bad_img), &good.out, "color");
    BAD_CODE((bad_img = vkt_lend(&r8, RO, RO, 0), bf.color = &bad_img), &good.out,
             UPF_ERROR_UNSUPPORTED, "color: format VK_FORMAT_R8_UNORM");
    BAD_CODE((bad_img = vkt_lend(&r8, RO, RO, 0), bf.motion = &bad_img), &good.out,
             UPF_ERROR_UNSUPPORTED, "motion: format VK_FORMAT_R8_UNORM");
    BAD((bad_img = vkt_lend(&no_storage, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0)),
        &bad_img, "output");
    BAD((bad_img.layout = VK_IMAGE_LAYOUT_UNDEFINED, bf.color = &bad_img), &good.out, "color");
    /* a depth image where a colour image belongs (its view of the depth aspect) */
    vkt_image d32 = depth_image(k);
    BAD_CODE((bad_img = vkt_lend(&d32, RO, RO, 0), bf.color = &bad_img), &good.out,
             UPF_ERROR_UNSUPPORTED, "color: format VK_FORMAT_D32_SFLOAT");
    BAD((bad_img.image = VK_NULL_HANDLE, bf.color = &bad_img), &good.out, "color");
    BAD(bf.render_width = RW + 1, &good.out, "render size");
    BAD(bf.render_height = 1, &good.out, "render height");
    BAD(bf.values.jitter_x = 3.0, &good.out, "jitter");
    BAD((bf.motion = NULL, bf.values.view_projection = NULL), &good.out, "view_projection");
    BAD(bf.values.frame_time_ms = 0.0, &good.out, "frame_time_ms");
    BAD(bf.values.camera.near_plane = 0.0, &good.out, "near plane");
#undef BAD
#undef BAD_CODE
    CHECK_FAILS(ctx, upf_vk_temporal_record(vt, NULL, &ok, &good.out),
                UPF_ERROR_INVALID_ARGUMENT, "cmd is NULL");
    CHECK_FAILS(ctx, upf_vk_temporal_record(vt, cmd, NULL, &good.out),
                UPF_ERROR_INVALID_ARGUMENT, "frame is NULL");
    CHECK(upf_vk_temporal_record(NULL, cmd, &ok, &good.out) == UPF_ERROR_INVALID_ARGUMENT);
    /* Nothing was recorded: the same command buffer records a good frame and runs it; and a
     * second frame right after it in the same command buffer (two frames in flight, as the
     * managed bench records them back to back), under synchronization validation. */
    CHECK(upf_vk_temporal_record(vt, cmd, &ok, &good.out) == UPF_OK);
    upf_vk_image out2 = good.out;
    out2.layout = VK_IMAGE_LAYOUT_GENERAL;
    CHECK(upf_vk_temporal_record(vt, cmd, &ok, &out2) == UPF_OK);
    vkt_record_download(cmd, &g.out, VK_IMAGE_LAYOUT_GENERAL, &g.down_out);
    CHECK(vkt_submit(k) == 0);
    diff_stats d = diff(g.down_out.map, g.down_out.map, (size_t)OW * OH, 4, 4);
    CHECK(d.nonfinite == 0);
    double ms[UPF_TEMPORAL_PASS_COUNT];
    CHECK_FAILS(ctx, upf_vk_temporal_timings(vt, ms, NULL), UPF_ERROR_UNSUPPORTED, "timestamps");
    vkt_image_free(k, &d32);
    vkt_image_free(k, &r8);
    vkt_image_free(k, &no_sampled);
    vkt_image_free(k, &no_storage);
    gpu_free(k, &g);
    free(f);
    upf_vk_temporal_destroy(&vt);
}

/* ---- formats ------------------------------------------------------------------------------- */

/* 6 frames of the walk with the host's images in other formats: colour as 8-bit sRGB (through
 * an R8G8B8A8_UNORM view with srgb 1, decoded in the shader; or an R8G8B8A8_SRGB view, decoded
 * by the sampler), depth R16_SFLOAT, motion R16G16_SFLOAT, a reactive mask R8_UNORM, the output
 * R8G8B8A8_UNORM with srgb 1 (encoded in the shader). The CPU engine gets the same values
 * (RGBA8_SRGB colour, the halves and bytes as floats) and writes RGBA8_SRGB: the mean
 * difference of the output's codes at most 0.0005 on [0, 1]. */
static void test_formats(vkt *k, upf_context *ctx, scene *sc, bool srgb_view)
{
    const VkImageUsageFlags in = USE_IN;
    vkt_image color = vkt_image_make(k, RW, RH, VK_FORMAT_R8G8B8A8_UNORM,
                                     srgb_view ? VK_FORMAT_R8G8B8A8_SRGB : 0, in);
    vkt_image depth = vkt_image_make(k, RW, RH, VK_FORMAT_R16_SFLOAT, 0, in);
    vkt_image motion = vkt_image_make(k, RW, RH, VK_FORMAT_R16G16_SFLOAT, 0, in);
    vkt_image reactive = vkt_image_make(k, RW, RH, VK_FORMAT_R8_UNORM, 0, in);
    vkt_image out = vkt_image_make(k, OW, OH, VK_FORMAT_R8G8B8A8_UNORM, 0, USE_OUT);
    vkt_buffer up_c = vkt_buffer_make(k, 4 * RW * RH), up_d = vkt_buffer_make(k, 2 * RW * RH);
    vkt_buffer up_m = vkt_buffer_make(k, 4 * RW * RH), up_r = vkt_buffer_make(k, RW * RH);
    vkt_buffer down = vkt_buffer_make(k, 4 * OW * OH);
    static uint8_t cpu8[OW * OH * 4];
    upf_vk_temporal *vt = upf_vk_temporal_create(ctx, upf_vk_temporal_params(
        .device = &k->lend, .max_render_width = RW, .max_render_height = RH,
        .output_width = OW, .output_height = OH, .sharpness = 0.3f));
    upf_temporal *ct = upf_temporal_create(ctx, upf_temporal_params(
        .render_width = RW, .render_height = RH, .output_width = OW, .output_height = OH,
        .sharpness = 0.3f));
    frame_data *f = malloc(sizeof *f);
    CHECK(vt && ct && f);
    double worst = 0.0;
    for (int n = 0; vt && ct && f && n < 6 && render(sc, "walk", n, f); n++) {
        uint8_t *c8 = up_c.map, *r8 = up_r.map;
        uint16_t *d16 = up_d.map, *m16 = up_m.map;
        for (int i = 0; i < RW * RH; i++) {
            for (int c = 0; c < 4; c++)
                c8[4 * i + c] = c < 3 ? upf_linear_to_srgb8(f->color[4 * i + c]) : 255;
            d16[i] = upf_float_to_half(f->depth[i]);
            f->depth[i] = upf_half_to_float(d16[i]);
            for (int c = 0; c < 2; c++) {
                m16[2 * i + c] = upf_float_to_half(f->motion[2 * i + c]);
                f->motion[2 * i + c] = upf_half_to_float(m16[2 * i + c]);
            }
            r8[i] = (uint8_t)(f->reactive[i] * 255.0f + 0.5f);
            f->reactive[i] = r8[i] / 255.0f;
        }
        const upf_image ic = { c8, RW, RH, 0, UPF_FORMAT_RGBA8_SRGB };
        const upf_image id = { f->depth, RW, RH, 0, UPF_FORMAT_R32F };
        const upf_image im = { f->motion, RW, RH, 0, UPF_FORMAT_RG32F };
        const upf_image ir = { f->reactive, RW, RH, 0, UPF_FORMAT_R32F };
        const upf_image io = { cpu8, OW, OH, 0, UPF_FORMAT_RGBA8_SRGB };
        upf_temporal_frame cf = f->values;
        cf.color = &ic, cf.depth = &id, cf.motion = &im, cf.reactive = &ir;
        CHECK(upf_temporal_run(ct, &cf, &io) == UPF_OK);
        VkCommandBuffer cmd = vkt_begin(k);
        vkt_record_upload(cmd, &up_c, &color, RO);
        vkt_record_upload(cmd, &up_d, &depth, RO);
        vkt_record_upload(cmd, &up_m, &motion, RO);
        vkt_record_upload(cmd, &up_r, &reactive, RO);
        const upf_vk_image lc = vkt_lend(&color, RO, RO, srgb_view ? 0 : 1);
        const upf_vk_image ld = vkt_lend(&depth, RO, RO, 0), lm = vkt_lend(&motion, RO, RO, 0);
        const upf_vk_image lr = vkt_lend(&reactive, RO, RO, 0);
        const upf_vk_image lo = vkt_lend(&out, VK_IMAGE_LAYOUT_UNDEFINED,
                                         VK_IMAGE_LAYOUT_GENERAL, 1);
        const upf_vk_temporal_frame vf = { &lc, &ld, &lm, &lr, 0, 0, f->values };
        const char *msg = "";
        upf_result r = upf_vk_temporal_record(vt, cmd, &vf, &lo);
        upf_context_last_error(ctx, &msg);
        CHECKF(r == UPF_OK, "formats: %s", msg);
        vkt_record_download(cmd, &out, VK_IMAGE_LAYOUT_GENERAL, &down);
        if (vkt_submit(k))
            break;
        const uint8_t *g8 = down.map;
        double sum = 0.0;
        int big = 0;
        for (int i = 0; i < OW * OH; i++)
            for (int c = 0; c < 3; c++) {
                int e = abs((int)g8[4 * i + c] - (int)cpu8[4 * i + c]);
                sum += e / 255.0;
                big = e > big ? e : big;
            }
        const double mean = sum / (OW * OH * 3);
        CHECKF(mean <= 0.0005, "formats (%s colour view) frame %d: mean %.3g, largest %d codes",
               srgb_view ? "sRGB" : "UNORM", n, mean, big);
        worst = mean > worst ? mean : worst;
        if (n == 5)
            printf("formats (%s colour view, R16F depth, RG16F motion, R8 reactive, RGBA8 "
                   "output with srgb 1): mean %.3g (worst frame %.3g), largest %d codes\n",
                   srgb_view ? "SRGB" : "UNORM srgb 1", mean, worst, big);
    }
    free(f);
    upf_temporal_destroy(&ct);
    upf_vk_temporal_destroy(&vt);
    vkt_image *ims[] = { &color, &depth, &motion, &reactive, &out };
    for (int i = 0; i < 5; i++)
        vkt_image_free(k, ims[i]);
    vkt_buffer *bs[] = { &up_c, &up_d, &up_m, &up_r, &down };
    for (int i = 0; i < 5; i++)
        vkt_buffer_free(k, bs[i]);
}

static void test_sequences(vkt *k, upf_context *ctx)
{
    scene *sc = NULL;
    CHECK(scene_create(ctx, "courtyard", 1, &sc) == UPF_OK);
    if (!sc)
        return;
    test_bad_input(k, ctx, sc);
    static const char *const paths[] = { "still", "pan", "walk", "orbit" };
    for (int i = 0; i < 4; i++)
        run_sequence(k, ctx, sc, &(seq_opts){ .path = paths[i] });
    run_sequence(k, ctx, sc, &(seq_opts){ .path = "walk", .frames = 8, .no_motion = true });
    run_sequence(k, ctx, sc, &(seq_opts){ .path = "orbit", .frames = 8, .reactive = true,
                                          .sharpness = 0.8f, .flags = UPF_TEMPORAL_COLOR_SQRT });
    run_sequence(k, ctx, sc, &(seq_opts){ .path = "walk", .frames = 8,
                                          .flags = UPF_TEMPORAL_SPATIAL_FILL });
    run_sequence(k, ctx, sc, &(seq_opts){ .path = NULL, .frames = 8, .reactive = true,
                                          .sharpness = 0.5f });
    test_formats(k, ctx, sc, false);
    test_formats(k, ctx, sc, true);
    test_render_size_change(k, ctx, sc);
    test_ratio_below_2(k, ctx, sc);
    test_bad_motion(k, ctx, sc);
    scene_destroy(&sc);
}

/* ---- the tool ---------------------------------------------------------------------------- */

#define TMP UPF_TEST_TMPDIR

/* `upframe temporal --backend vulkan` against `--backend cpu` on a rendered walk (with
 * sharpening, and without motion vectors): the PNGs' codes a mean of at most 0.0005 on [0, 1]
 * apart; a bad --backend is a usage error. */
static void test_tool(void)
{
    if (access(UPF_TOOL_PATH, X_OK) != 0) {
        /* A test binary copied to another machine (a GPU machine's run) has no tool. */
        printf("tool checks skipped: no %s here\n", UPF_TOOL_PATH);
        return;
    }
    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0) {
        CHECKF(false, "could not make %s", TMP);
        return;
    }
    CHECK_EQ_INT(test_run_tool_cmdline("render courtyard --size 64x36 --frames 6 --path walk "
                                       "--jitter halton --quiet -o %s/seq", TMP), 0);
    static const char *const extra[] = { "--sharpness 0.5", "--no-motion" };
    double worst = 0.0;
    for (int e = 0; e < 2; e++) {
        CHECK_EQ_INT(test_run_tool_cmdline("temporal %s/seq -o %s/cpu%d --scale 2 %s --quiet",
                                           TMP, TMP, e, extra[e]), 0);
        const int rc = test_run_tool_cmdline("temporal %s/seq -o %s/gpu%d --scale 2 %s "
                                             "--backend vulkan --quiet", TMP, TMP, e, extra[e]);
        CHECKF(rc == 0, "upframe temporal --backend vulkan: exit %d: %s", rc, test_tool_out());
        for (int n = 0; rc == 0 && n < 6; n++) {
            char a[512], b[512], err[IMAGEIO_ERR_SIZE];
            snprintf(a, sizeof a, "%s/cpu%d/%04d.png", TMP, e, n);
            snprintf(b, sizeof b, "%s/gpu%d/%04d.png", TMP, e, n);
            imageio_image ia, ib;
            if (imageio_read(a, NULL, &ia, err) != UPF_OK) {
                CHECKF(false, "%s: %s", a, err);
                continue;
            }
            if (imageio_read(b, NULL, &ib, err) != UPF_OK) {
                CHECKF(false, "%s: %s", b, err);
                imageio_free(&ia);
                continue;
            }
            CHECK(ia.img.width == ib.img.width && ia.img.height == ib.img.height);
            const uint8_t *pa = ia.img.data, *pb = ib.img.data;
            double sum = 0.0;
            const size_t count = (size_t)ia.img.width * ia.img.height;
            for (size_t i = 0; ia.img.width == ib.img.width && i < count; i++)
                for (int c = 0; c < 3; c++)
                    sum += abs((int)pa[4 * i + c] - (int)pb[4 * i + c]) / 255.0;
            CHECKF(sum / (3.0 * count) <= 0.0005, "tool %s frame %d: mean %.3g", extra[e], n,
                   sum / (3.0 * count));
            worst = sum / (3.0 * count) > worst ? sum / (3.0 * count) : worst;
            imageio_free(&ia);
            imageio_free(&ib);
        }
    }
    printf("upframe temporal --backend vulkan against cpu (6 frames, 64x36 -> 128x72, with "
           "--sharpness 0.5 and --no-motion): PNG codes a mean of at most %.3g apart\n", worst);
    CHECK_EQ_INT(test_run_tool_cmdline("temporal %s/seq -o %s/bad --scale 2 --backend metal",
                                       TMP, TMP), 1);
}

int main(void)
{
    upf_context *ctx = upf_context_create(upf_context_params(.threads = 2));
    vkt k;
    const int rc = vkt_init(&k, ctx);
    if (rc) {
        upf_context_destroy(&ctx);
        return rc;
    }
    test_sequences(&k, ctx);
    vkt_finish(&k);
    upf_context_destroy(&ctx);
    test_tool();
    return test_finish("vk_temporal");
}
