/* framegen_backend.c: the frame generation engine for the tool on the CPU or the GPU (managed
 * mode, upf__vk_interpolate_managed_*), and `upframe bench --backend vulkan`'s frame
 * generation rows (framegen_backend.h). Reads upf_image frames; writes the made frames, or the
 * bench's table or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/bench_util.h"
#include "framegen_backend.h"
#include "scene/scene.h"
#include "sequence/sequence.h"
#ifdef UPF_HAVE_VULKAN
#include "core/color.h"
#include "core/pass.h"
#include "framegen/framegen_passes.h"
#include "vk/vk_framegen.h"
#include "vk/vk_framegen_managed.h"
#include "vk_memory.h"
#endif

/* A picture converted to the format the GPU engine's images were made in. */
typedef struct converted {
    upf_image img;
    void *data;
} converted;

struct tool_interpolate {
    upf_interpolate *cpu;
    upf_context *ctx;
#ifdef UPF_HAVE_VULKAN
    upf__vk_interpolate_managed *gpu;
    tool_interpolate_formats fmt;
    converted conv[4];            /* prev_color, color, prev_hud, hud */
#endif
};

tool_interpolate *tool_interpolate_create(upf_context *ctx, bool vulkan, int device,
                                          const upf_interpolate_params *p,
                                          const tool_interpolate_formats *formats)
{
    tool_interpolate *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ctx = ctx;
    if (!vulkan) {
        if ((t->cpu = upf_interpolate_create(ctx, p)))
            return t;
        free(t);
        return NULL;
    }
#ifdef UPF_HAVE_VULKAN
    t->fmt = *formats;
    if (!t->fmt.hud) /* a HUD layer may come with a later frame: 8-bit, as PNGs are */
        t->fmt.hud = UPF_FORMAT_RGBA8_SRGB;
    t->gpu = upf__vk_interpolate_managed_create(ctx, &(upf__vk_interpolate_managed_params){
        .device_index = device, .width = p->width, .height = p->height,
        .motion_width = p->motion_width, .motion_height = p->motion_height,
        .motion = p->motion == UPF_INTERPOLATE_MOTION_AUTO && formats->vectors
                      ? UPF_INTERPOLATE_MOTION_VECTORS : p->motion,
        .max_factor = UPF_INTERPOLATE_FACTOR_MAX,
        .motion_scale_x = p->motion_scale_x, .motion_scale_y = p->motion_scale_y,
        .flags = p->flags, .color_format = t->fmt.color, .hud_format = t->fmt.hud,
        .output_format = t->fmt.output, .timestamps = 1 });
    if (t->gpu)
        return t;
#else
    (void)device, (void)formats;
#endif
    free(t);
    return NULL;
}

#ifdef UPF_HAVE_VULKAN
/* `im` in `format`: itself, or converted into c (upf_resample at 1x converts exactly). */
static upf_result as_format(tool_interpolate *t, const upf_image *im, upf_format format,
                            converted *c, const upf_image **out)
{
    *out = im;
    if (!im || im->format == format)
        return UPF_OK;
    const size_t bytes = (size_t)im->width * im->height * upf_format_bytes_per_pixel(format);
    if (!c->data || c->img.width != im->width || c->img.height != im->height ||
        c->img.format != format) {
        free(c->data);
        if (!(c->data = malloc(bytes)))
            return UPF_ERROR_OUT_OF_MEMORY;
        c->img = (upf_image){ c->data, im->width, im->height, 0, format };
    }
    *out = &c->img;
    return upf_resample(t->ctx, im, &c->img, UPF_FILTER_BILINEAR);
}

static upf_result run_gpu(tool_interpolate *t, const upf_interpolate_frames *f, int count,
                          const double *phase, const upf_image *const *outs)
{
    upf_interpolate_frames g = *f;
    const upf_image **im[4] = { &g.prev_color, &g.color, &g.prev_hud, &g.hud };
    const upf_format fmt[4] = { t->fmt.color, t->fmt.color, t->fmt.hud, t->fmt.hud };
    for (int k = 0; k < 4; k++) {
        upf_result r = as_format(t, *im[k], fmt[k], &t->conv[k], im[k]);
        if (r != UPF_OK)
            return r;
    }
    double phases[UPF_INTERPOLATE_FACTOR_MAX];
    for (int k = 0; k < count; k++)
        phases[k] = phase ? *phase : (double)(k + 1) / (count + 1);
    return upf__vk_interpolate_managed_run(t->gpu, &g, phases, count, outs);
}
#endif

upf_result tool_interpolate_run(tool_interpolate *t, const upf_interpolate_frames *f,
                                int count, const double *phase, const upf_image *const *outs)
{
#ifdef UPF_HAVE_VULKAN
    if (t->gpu)
        return run_gpu(t, f, count, phase, outs);
#endif
    if (count == 1 && phase)
        return upf_interpolate_run(t->cpu, f, *phase, outs[0]);
    return upf_interpolate_run_factor(t->cpu, f, count + 1, outs);
}

upf_result tool_interpolate_last_method(tool_interpolate *t, upf_interpolate_method *method,
                                        upf_interpolate_fallback *fallback)
{
#ifdef UPF_HAVE_VULKAN
    if (t->gpu)
        return upf__vk_interpolate_managed_last_method(t->gpu, method, fallback);
#endif
    return upf_interpolate_last_method(t->cpu, method, fallback);
}

upf_result tool_interpolate_timings(tool_interpolate *t, double ms[UPF_INTERPOLATE_PASS_COUNT])
{
#ifdef UPF_HAVE_VULKAN
    if (t->gpu)
        return upf_vk_interpolate_timings(upf__vk_interpolate_managed_engine(t->gpu), ms, NULL);
#endif
    return upf_interpolate_timings(t->cpu, ms);
}

void tool_interpolate_destroy(tool_interpolate **pt)
{
    if (!pt || !*pt)
        return;
    upf_interpolate_destroy(&(*pt)->cpu);
#ifdef UPF_HAVE_VULKAN
    upf__vk_interpolate_managed_destroy(&(*pt)->gpu);
    for (int k = 0; k < 4; k++)
        free((*pt)->conv[k].data);
#endif
    free(*pt);
    *pt = NULL;
}

#ifdef UPF_HAVE_VULKAN
/* ---- the bench's rows -------------------------------------------------------------------- */

/* The pair: the courtyard's walk at 1 s and 1/30 s later (linear RGBA32F colour; the later
 * frame's depth, reversed, and motion), as the CPU rows take it; the later frame's cameras
 * (projection x view, now and at the earlier frame) for the rows with the host's camera. */
typedef struct fg_pair {
    float *a, *b, *depth, *motion;
    uint8_t *a8, *b8;                 /* a, b in 8-bit sRGB (upf_linear_to_srgb8), alpha 255 */
    double vp[16], prev_vp[16];
} fg_pair;

static void fg_pair_free(fg_pair *p)
{
    free(p->a), free(p->b), free(p->depth), free(p->motion), free(p->a8), free(p->b8);
}

static upf_result fg_pair_render(upf_context *ctx, int w, int h, fg_pair *p)
{
    const size_t n = (size_t)w * h;
    p->a = malloc(n * 16), p->b = malloc(n * 16), p->depth = malloc(n * 4);
    p->motion = malloc(n * 8), p->a8 = malloc(n * 4), p->b8 = malloc(n * 4);
    if (!p->a || !p->b || !p->depth || !p->motion || !p->a8 || !p->b8)
        return UPF_ERROR_OUT_OF_MEMORY;
    scene *sc = NULL;
    scene_camera cam;
    upf_result r = scene_create(ctx, "courtyard", 1, &sc);
    for (int k = 0; k < 2 && r == UPF_OK; k++) {
        const scene_buffers sb = { k ? p->b : p->a, NULL, k ? p->depth : NULL,
                                   k ? p->motion : NULL };
        r = scene_render(sc, scene_view_params(.path = "walk", .time = 1.0 + k / 30.0,
                                               .frame_interval = 1.0 / 30.0, .width = w,
                                               .height = h), &sb, k ? &cam : NULL);
    }
    scene_destroy(&sc);
    for (size_t i = 0; r == UPF_OK && i < 4 * n; i++) {
        p->a8[i] = i % 4 == 3 ? 255 : upf_linear_to_srgb8(p->a[i]);
        p->b8[i] = i % 4 == 3 ? 255 : upf_linear_to_srgb8(p->b[i]);
    }
    if (r == UPF_OK) {
        seq_mat4_mul(cam.proj, cam.view, p->vp);
        seq_mat4_mul(cam.prev_proj, cam.prev_view, p->prev_vp);
    }
    return r;
}

/* The passes made once a pair; the others run once a phase. */
static bool per_pair(int pass)
{
    return pass <= UPF_INTERPOLATE_PASS_CAMERA;
}

/* One row's results: per pass the median us (per-phase passes: per phase), the bytes it must
 * read and write (per phase likewise); the pair's and a phase's totals, the whole record's. */
typedef struct fg_row {
    int device;                       /* the Vulkan device (cli_vk_device) */
    int w, h, factor;
    bool flow;
    bool flow_full;                   /* the flow on the frame itself (UPF_INTERPOLATE_FLOW_FULL),
                                       * not the default's half-size frame */
    bool given;                       /* vectors with the host's cameras: no camera fit */
    bool srgb8;                       /* 8-bit sRGB colours (the engine's 8-bit frames) */
    double pass_us[UPF_INTERPOLATE_PASS_COUNT], bytes[UPF_INTERPOLATE_PASS_COUNT];
    double pair_us, phase_us, total_us, record_us;
} fg_row;

/* The engine's flags for a row. */
static unsigned row_flags(const fg_row *row)
{
    return UPF_INTERPOLATE_DEPTH_REVERSED | (row->flow_full ? UPF_INTERPOLATE_FLOW_FULL : 0);
}

/* The surfaces pass p reads and writes on the GPU: the CPU pass's, but the compose makes the
 * inpaint's last step (its up step at level 0, compose.glsl), so no GPU pass writes or reads
 * the inpainted frame; the compose reads the resolved frame instead (and, at holes only, the
 * colour pyramid's level 1: not counted; at most a quarter of a frame, where all are holes). */
static void gpu_masks(const upf__pass_info *pi, int p, uint64_t *reads, uint64_t *writes)
{
    const uint64_t inpainted = 1ull << UPF__FG_INPAINTED;
    *reads = pi->reads, *writes = pi->writes;
    if (p == UPF__FG_INPAINT)
        *writes &= ~inpainted;
    if (p == UPF__FG_COMPOSE)
        *reads = (*reads & ~inpainted) | 1ull << UPF__FG_RESOLVED;
}

/* Bytes each pass must move at least (each surface it reads or writes once on the GPU,
 * gpu_masks, at its size and format in the CPU engine's plan, which the GPU's runner
 * allocates alike; the host images at the bench's formats: RGBA32F colour, or RGBA8 in the
 * srgb8 rows, RG32F motion, R32F depth, RGBA8 output). The linear frames are 8 bytes a pixel
 * on the GPU (linear.glsl), and in the srgb8 rows the engine's 8-bit frames (vk_framegen.h
 * UPF__VK_FG_BYTES): 4 bytes a pixel each (their 2 KB of tables not counted). */
static upf_result pass_bytes(upf_context *ctx, const fg_row *row, double *bytes,
                             upf__passes *ps)
{
    upf__interpolate_plan plan;
    memset(ps, 0, sizeof *ps);
    upf_result r = upf__interpolate_describe(ctx, "upframe bench", upf_interpolate_params(
        .width = row->w, .height = row->h, .flags = row_flags(row),
        .motion = row->flow ? UPF_INTERPOLATE_MOTION_FLOW : UPF_INTERPOLATE_MOTION_VECTORS),
        ps, &plan);
    if (r != UPF_OK)
        return r;
    const double px = (double)row->w * row->h;
    const double colour = row->srgb8 ? 4 : 16;
    double host[UPF__FG_OUTPUT + 1] = { colour * px, colour * px, 8 * px, 4 * px, 0, 4 * px };
    if (row->flow)
        host[UPF__FG_MOTION_IN] = host[UPF__FG_DEPTH_IN] = 0;
    for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++) {
        uint64_t reads, writes;
        gpu_masks(&ps->pass[p], p, &reads, &writes);
        bytes[p] = 0;
        if (row->pass_us[p] <= 0) /* did not run */
            continue;
        for (int s = 0; s < ps->surface_count; s++) {
            if (row->given && p == UPF_INTERPOLATE_PASS_CAMERA && s != UPF__FG_CAMERA)
                continue; /* the host's camera: the model from the constants alone */
            const int uses = (int)((reads >> s) & 1u) + (int)((writes >> s) & 1u);
            const upf__surface *sf = &ps->surface[s];
            const bool linear = s == UPF__FG_LINEAR_PREV || s == UPF__FG_LINEAR;
            const double b = s <= UPF__FG_OUTPUT ? host[s]
                : (double)sf->width * sf->height *
                      (linear ? (row->srgb8 ? 4.0 : 8.0)
                              : (double)upf__surface_format_bytes(ps->surface_info[s].format));
            bytes[p] += uses * b;
        }
    }
    return UPF_OK;
}

/* Times one row: the managed engine at the row's size, motion and factor on the pair, after
 * one run that uploads it. *keep keeps the engine (NULL: destroyed). */
static upf_result time_row(upf_context *ctx, const fg_pair *pair, long frames, int warm,
                           double *ms, double *total, fg_row *row,
                           upf__vk_interpolate_managed **keep)
{
    const int w = row->w, h = row->h, count = row->factor - 1;
    upf__vk_interpolate_managed *m = upf__vk_interpolate_managed_create(ctx,
        &(upf__vk_interpolate_managed_params){ .device_index = row->device,
            .width = w, .height = h,
            .motion = row->flow ? UPF_INTERPOLATE_MOTION_FLOW : UPF_INTERPOLATE_MOTION_VECTORS,
            .max_factor = row->factor, .flags = row_flags(row),
            .color_format = row->srgb8 ? UPF_FORMAT_RGBA8_SRGB : UPF_FORMAT_RGBA32F,
            .output_format = UPF_FORMAT_RGBA8_SRGB,
            .timestamps = 1 });
    if (!m)
        return upf_context_last_error(ctx, NULL);
    const upf_image ia = row->srgb8 ? (upf_image){ pair->a8, w, h, 0, UPF_FORMAT_RGBA8_SRGB }
                                    : (upf_image){ pair->a, w, h, 0, UPF_FORMAT_RGBA32F };
    const upf_image ib = row->srgb8 ? (upf_image){ pair->b8, w, h, 0, UPF_FORMAT_RGBA8_SRGB }
                                    : (upf_image){ pair->b, w, h, 0, UPF_FORMAT_RGBA32F };
    const upf_image im = { pair->motion, w, h, 0, UPF_FORMAT_RG32F };
    const upf_image id = { pair->depth, w, h, 0, UPF_FORMAT_R32F };
    uint8_t *out = malloc((size_t)w * h * 4 * (size_t)count);
    upf_image io[UPF_INTERPOLATE_FACTOR_MAX];
    const upf_image *op[UPF_INTERPOLATE_FACTOR_MAX];
    double phases[UPF_INTERPOLATE_FACTOR_MAX];
    for (int k = 0; out && k < count; k++) {
        io[k] = (upf_image){ out + (size_t)w * h * 4 * k, w, h, 0, UPF_FORMAT_RGBA8_SRGB };
        op[k] = &io[k];
        phases[k] = (double)(k + 1) / row->factor;
    }
    const upf_interpolate_frames f = { &ia, &ib, row->flow ? NULL : &im, row->flow ? NULL : &id,
                                       NULL, NULL, 0, 1, 0, row->given ? pair->vp : NULL,
                                       row->given ? pair->prev_vp : NULL, 0 };
    upf_result r = out ? upf__vk_interpolate_managed_run(m, &f, phases, count, op)
                       : UPF_ERROR_OUT_OF_MEMORY;
    const int n = (int)frames + warm;
    if (r == UPF_OK)
        r = upf__vk_interpolate_managed_bench(m, n, ms, total, &row->record_us);
    row->pair_us = row->phase_us = 0;
    for (int p = 0; r == UPF_OK && p < UPF_INTERPOLATE_PASS_COUNT; p++) {
        const double us = bench_median(ms + (size_t)p * n + warm, (int)frames) * 1e3;
        row->pass_us[p] = per_pair(p) ? us : us / count;
        *(per_pair(p) ? &row->pair_us : &row->phase_us) += row->pass_us[p];
    }
    if (r == UPF_OK)
        row->total_us = bench_median(total + warm, (int)frames) * 1e3;
    free(out);
    if (r == UPF_OK && keep)
        *keep = m;
    else
        upf__vk_interpolate_managed_destroy(&m);
    return r;
}

/* The bandwidth of the device (bytes a second) for the floor: `given` (--bandwidth), else the
 * datasheet's for the cards the lead measures on, else 0 (no floor). */
static double device_bandwidth(const char *device, double given)
{
    if (given > 0)
        return given;
    if (strstr(device, "H200"))
        return 4.8e12;    /* NVIDIA H200 datasheet: 4.8 TB/s HBM3e */
    if (strstr(device, "H100"))
        return 3.35e12;   /* NVIDIA H100 SXM5 datasheet: 3.35 TB/s HBM3 */
    return 0;
}

/* The row's motion as the table names it: the vectors with the camera fitted to them or
 * given by the host's matrices, or the flow. */
static const char *row_motion(const fg_row *row)
{
    return row->flow_full ? "flow-f" : row->flow ? "flow" : row->given ? "vec+cam"
                                                  : row->srgb8 ? "vec8" : "vectors";
}

/* Every surface's bytes on the device: the engine's runner's (its extras too: the uniform
 * buffers), the whole allocation, and the managed host's images. */
static void print_memory(const fg_row *row, upf__vk_interpolate_managed *m, cli_json *j)
{
    upf__vk_runner *run = upf__vk_interpolate_runner(upf__vk_interpolate_managed_engine(m));
    if (j)
        cli_json_object(j, "memory_bytes");
    else
        printf("memory at %dx%d, %s, factor %d (bytes on the device):", row->w, row->h,
               row_motion(row), row->factor);
    tool_vk_resource_bytes(run, UPF__VK_RESOURCES_MAX, j);
    /* the host's: two RGBA32F colours, RG32F motion, R32F depth, factor - 1 RGBA8 outputs */
    const double host = (double)row->w * row->h *
                        (32 + (row->flow ? 0 : 12) + 4.0 * (row->factor - 1));
    const VkDeviceSize all = upf__vk_runner_total_bytes(run);
    if (j) {
        cli_json_int(j, "engine_total", (long long)all);
        cli_json_int(j, "host_images", (long long)host);
        cli_json_close(j);
    } else {
        printf("; engine total %llu; the host's images %.0f\n", (unsigned long long)all, host);
    }
}

/* The floor of pass p in us: its bytes over the bandwidth (0: unknown); none for a pass that
 * did not run. */
static double floor_us(const fg_row *row, int p, double bandwidth)
{
    if (bandwidth <= 0 || row->pass_us[p] <= 0)
        return 0;
    return row->bytes[p] / bandwidth * 1e6;
}

static void print_row(const fg_row *row, const char *device, long frames, int warm,
                      double bandwidth, bool *header)
{
    if (!*header) {
        printf("frame generation on %s: median GPU time of %ld records after %d warm-up "
               "records, microseconds (timestamps); RGBA32F colour in (vec8: the vectors from "
               "8-bit sRGB colour, RGBA8 views with srgb = 1), RGBA8 sRGB out; flow: the "
               "default's (above 1280x720 on the half-size frame), flow-f: on the frame itself "
               "(UPF_INTERPOLATE_FLOW_FULL); the "
               "passes from splat on per phase; floor: the bytes each pass must read and "
               "write over ", device, frames, warm);
        if (bandwidth > 0)
            printf("%.0f GB/s\n", bandwidth / 1e9);
        else
            printf("the bandwidth (unknown for this device: --bandwidth GBPS)\n");
        printf("%-10s %-7s %2s %-5s", "size", "motion", "N", "");
        for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
            printf(" %8.8s", upf_interpolate_pass_name((upf_interpolate_pass)p));
        printf("  %8s %8s %10s %8s %8s\n", "per pair", "a phase", "made frame", "total",
               "record");
        *header = true;
    }
    char name[32];
    snprintf(name, sizeof name, "%dx%d", row->w, row->h);
    const int count = row->factor - 1;
    printf("%-10s %-7s %2d %-5s", name, row_motion(row), row->factor, "time");
    for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
        printf(" %8.1f", row->pass_us[p]);
    printf("  %8.1f %8.1f %10.1f %8.1f %8.1f\n", row->pair_us, row->phase_us,
           row->total_us / count, row->total_us, row->record_us);
    if (bandwidth > 0) {
        double pair = 0, phase = 0;
        printf("%-10s %-7s %2s %-5s", "", "", "", "floor");
        for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++) {
            const double f = floor_us(row, p, bandwidth);
            *(per_pair(p) ? &pair : &phase) += f;
            printf(" %8.1f", f);
        }
        printf("  %8.1f %8.1f %10.1f %8.1f\n", pair, phase, (pair + count * phase) / count,
               pair + count * phase);
    }
    fflush(stdout);
}

static void json_row(cli_json *j, const fg_row *row, double bandwidth,
                     upf__vk_interpolate_managed *mem)
{
    cli_json_object(j, NULL);
    cli_json_size(j, row->w, row->h);
    cli_json_string(j, "motion", row->flow ? "flow" : "vectors");
    cli_json_string(j, "camera", row->flow ? "none" : row->given ? "given" : "fit");
    if (row->flow)
        cli_json_string(j, "flow_resolution", row->flow_full ? "full" : "default");
    cli_json_string(j, "colour", row->srgb8 ? "rgba8-srgb" : "rgba32f");
    cli_json_int(j, "factor", row->factor);
    cli_json_object(j, "passes_us");   /* per-phase passes: per phase */
    for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
        cli_json_number(j, upf_interpolate_pass_name((upf_interpolate_pass)p),
                        round(row->pass_us[p] * 100) / 100);
    cli_json_close(j);
    cli_json_object(j, "pass_bytes");  /* per-phase passes: per phase */
    for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
        cli_json_int(j, upf_interpolate_pass_name((upf_interpolate_pass)p),
                     (long long)row->bytes[p]);
    cli_json_close(j);
    if (bandwidth > 0) {
        cli_json_object(j, "floor_us");
        for (int p = 0; p < UPF_INTERPOLATE_PASS_COUNT; p++)
            cli_json_number(j, upf_interpolate_pass_name((upf_interpolate_pass)p),
                            round(floor_us(row, p, bandwidth) * 100) / 100);
        cli_json_close(j);
    }
    cli_json_number(j, "per_pair_us", round(row->pair_us * 100) / 100);
    cli_json_number(j, "per_phase_us", round(row->phase_us * 100) / 100);
    cli_json_number(j, "per_made_frame_us", round(row->total_us / (row->factor - 1) * 100) / 100);
    cli_json_number(j, "total_us", round(row->total_us * 100) / 100);
    cli_json_number(j, "record_us", round(row->record_us * 100) / 100);
    if (mem)
        print_memory(row, mem, j);
    cli_json_close(j);
}

/* One (size, motion) pair of rows, factor 2 and 4, and the line that says what a further
 * phase costs. */
static upf_result bench_rows(upf_context *ctx, const fg_pair *pair, fg_row *row, long frames,
                             int warm, double *ms, double *total, double bandwidth_given,
                             cli_json *j, bool *header)
{
    double bw = 0, totals[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        row->factor = k ? 4 : 2;
        upf__vk_interpolate_managed *m = NULL;
        upf_result r = time_row(ctx, pair, frames, warm, ms, total, row, &m);
        if (r != UPF_OK)
            return r;
        const char *device = upf__vk_interpolate_managed_device_name(m);
        bw = device_bandwidth(device, bandwidth_given);
        upf__passes plan;
        r = pass_bytes(ctx, row, row->bytes, &plan);
        upf__passes_free(&plan);
        if (r == UPF_OK) {
            if (j) {
                json_row(j, row, bw, k == 0 ? m : NULL);
            } else {
                print_row(row, device, frames, warm, bw, header);
                if (k == 0)
                    print_memory(row, m, NULL);
            }
        }
        upf__vk_interpolate_managed_destroy(&m);
        if (r != UPF_OK)
            return r;
        totals[k] = row->total_us;
    }
    if (!j)
        printf("%dx%d %s: each further phase %.1f us (factor 4's total minus factor 2's, over "
               "2)\n", row->w, row->h, row_motion(row),
               (totals[1] - totals[0]) / 2);
    return UPF_OK;
}

/* Whether the engine's default flow at w x h is the half-size frame's (the engine's own
 * rule: its flow constants' base). */
static bool flow_is_half(upf_context *ctx, int w, int h)
{
    upf__passes ps;
    upf__interpolate_plan plan;
    memset(&ps, 0, sizeof ps);
    const bool half = upf__interpolate_describe(ctx, "upframe bench", upf_interpolate_params(
                          .width = w, .height = h, .motion = UPF_INTERPOLATE_MOTION_FLOW),
                          &ps, &plan) == UPF_OK &&
                      ((const upf__fg_flow_con *)ps.con[UPF__FG_FLOW])->base > 0;
    upf__passes_free(&ps);
    return half;
}

int tool_bench_vk_framegen(const int (*sizes)[2], int nsizes, long frames, int warm,
                           double bandwidth, void *json)
{
    const char *cmd = "bench";
    cli_json *j = json;
    int device = -1;
    const int drc = cli_vk_device(cmd, &device);
    if (drc != CLI_EXIT_OK)
        return drc;
    upf_context *ctx = cli_context(cmd, 0);
    const int n = (int)frames + warm;
    double *ms = malloc(sizeof(double) * (size_t)n * (UPF_INTERPOLATE_PASS_COUNT + 1));
    if (!ctx || !ms) {
        free(ms);
        upf_context_destroy(&ctx);
        return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory");
    }
    double *total = ms + (size_t)n * UPF_INTERPOLATE_PASS_COUNT;
    int rc = CLI_EXIT_OK;
    bool header = false;
    if (j)
        cli_json_array(j, "framegen_rows");
    for (int k = 0; k < nsizes && rc == CLI_EXIT_OK; k++) {
        fg_pair pair = { 0 };
        upf_result r = fg_pair_render(ctx, sizes[k][0], sizes[k][1], &pair);
        /* the vectors (camera fitted), the vectors with the host's cameras, the flow, the
         * vectors (camera fitted) from 8-bit sRGB colours (what emulators give); where the
         * flow is the half-size frame's, also the flow on the frame itself (flow-f,
         * UPF_INTERPOLATE_FLOW_FULL) */
        const bool half = flow_is_half(ctx, sizes[k][0], sizes[k][1]);
        for (int fl = 0; r == UPF_OK && fl < (half ? 5 : 4); fl++) {
            fg_row row = { .device = device, .w = sizes[k][0], .h = sizes[k][1],
                           .flow = fl == 2 || fl == 4, .flow_full = fl == 4, .given = fl == 1,
                           .srgb8 = fl == 3 };
            r = bench_rows(ctx, &pair, &row, frames, warm, ms, total, bandwidth, j, &header);
        }
        fg_pair_free(&pair);
        if (r != UPF_OK)
            rc = cli_fail_upf(cmd, ctx, r);
    }
    if (j)
        cli_json_close(j);
    free(ms);
    upf_context_destroy(&ctx);
    return rc;
}
#endif
