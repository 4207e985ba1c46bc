/* temporal_backend.c: the temporal engine for the tool on the CPU or the GPU (managed mode,
 * upf_vk_temporal_managed_*), and `upframe bench --backend vulkan`'s temporal rows
 * (temporal_backend.h). Reads upf_image frames; writes the output image, or the bench's table
 * or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/bench_util.h"
#include "scene/scene.h"
#include "sequence/sequence.h"
#include "temporal_backend.h"
#ifdef UPF_HAVE_VULKAN
#include "temporal/temporal_passes.h"
#include "upframe_vk.h"
#include "vk/vk_temporal.h"
#include "vk_memory.h"
#endif

struct tool_temporal {
    upf_temporal *cpu;
#ifdef UPF_HAVE_VULKAN
    upf_vk_temporal_managed *gpu;
#endif
};

tool_temporal *tool_temporal_create(upf_context *ctx, bool vulkan, int device,
                                    const upf_temporal_params *p, upf_format color_format,
                                    upf_format output_format)
{
    tool_temporal *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (!vulkan) {
        t->cpu = upf_temporal_create(ctx, p);
    } else {
#ifdef UPF_HAVE_VULKAN
        t->gpu = upf_vk_temporal_managed_create(ctx, upf_vk_temporal_managed_params(
            .device_index = device, .render_width = p->render_width,
            .render_height = p->render_height, .output_width = p->output_width,
            .output_height = p->output_height, .color_format = color_format,
            .output_format = output_format, .sharpness = p->sharpness, .flags = p->flags,
            .timestamps = 1));
#else
        (void)device, (void)color_format, (void)output_format;
#endif
    }
#ifdef UPF_HAVE_VULKAN
    if (t->cpu || t->gpu)
        return t;
#else
    if (t->cpu)
        return t;
#endif
    free(t);
    return NULL;
}

upf_result tool_temporal_run(tool_temporal *t, const upf_temporal_frame *f,
                             const upf_image *output)
{
#ifdef UPF_HAVE_VULKAN
    if (t->gpu)
        return upf_vk_temporal_managed_run(t->gpu, f, output);
#endif
    return upf_temporal_run(t->cpu, f, output);
}

upf_result tool_temporal_timings(tool_temporal *t, double ms[UPF_TEMPORAL_PASS_COUNT])
{
#ifdef UPF_HAVE_VULKAN
    if (t->gpu)
        return upf_vk_temporal_timings(upf_vk_temporal_managed_engine(t->gpu), ms, NULL);
#endif
    return upf_temporal_timings(t->cpu, ms);
}

void tool_temporal_destroy(tool_temporal **pt)
{
    if (!pt || !*pt)
        return;
    upf_temporal_destroy(&(*pt)->cpu);
#ifdef UPF_HAVE_VULKAN
    upf_vk_temporal_managed_destroy(&(*pt)->gpu);
#endif
    free(*pt);
    *pt = NULL;
}

#ifdef UPF_HAVE_VULKAN
/* ---- the bench's rows -------------------------------------------------------------------- */

typedef struct bench_frame {
    float *color, *depth, *motion;
    double vp[16], prev_vp[16];
    scene_camera cam;
} bench_frame;

/* The courtyard's walk one second in at w x h, as the CPU rows take it. */
static upf_result bench_frame_render(upf_context *ctx, int w, int h, bench_frame *b)
{
    const size_t n = (size_t)w * h;
    b->color = malloc(n * 16), b->depth = malloc(n * 4), b->motion = malloc(n * 8);
    if (!b->color || !b->depth || !b->motion)
        return UPF_ERROR_OUT_OF_MEMORY;
    scene *sc = NULL;
    upf_result r = scene_create(ctx, "courtyard", 1, &sc);
    const scene_buffers sb = { b->color, NULL, b->depth, b->motion };
    if (r == UPF_OK)
        r = scene_render(sc, scene_view_params(.path = "walk", .time = 1.0, .width = w,
                                               .height = h), &sb, &b->cam);
    scene_destroy(&sc);
    seq_mat4_mul(b->cam.proj, b->cam.view, b->vp);
    seq_mat4_mul(b->cam.prev_proj, b->cam.prev_view, b->prev_vp);
    return r;
}

static void bench_frame_free(bench_frame *b)
{
    free(b->color), free(b->depth), free(b->motion);
}

/* One row's results. */
typedef struct vk_row {
    double pass_us[UPF_TEMPORAL_PASS_COUNT], total_us, record_us;
} vk_row;

static const struct {
    const char *name;
    bool motion;
    float sharpness;
    unsigned flags;
} configs[] = {
    { "vectors", true, 0.0f, 0 },
    { "vectors+sharpen", true, 0.5f, 0 },
    { "camera+sharpen", false, 0.5f, 0 },
    /* with the fill only accumulate, sharpen and the fill are timed (upf_vk_temporal_timings) */
    { "vectors+fill", true, 0.0f, UPF_TEMPORAL_SPATIAL_FILL },
};

/* Times one configuration of one case; prints the memory table once (memory). */
static upf_result bench_row(upf_context *ctx, int device, const int *c, const bench_frame *b,
                            int config, long frames, int warm, double *ms, double *total,
                            vk_row *row, upf_vk_temporal_managed **keep)
{
    upf_vk_temporal_managed *m = upf_vk_temporal_managed_create(ctx,
        upf_vk_temporal_managed_params(.device_index = device,
            .render_width = c[0], .render_height = c[1], .output_width = c[2],
            .output_height = c[3], .color_format = UPF_FORMAT_RGBA32F,
            .output_format = UPF_FORMAT_RGBA8_SRGB, .sharpness = configs[config].sharpness,
            .flags = configs[config].flags, .timestamps = 1));
    if (!m)
        return upf_context_last_error(ctx, NULL);
    const upf_image ic = { b->color, c[0], c[1], 0, UPF_FORMAT_RGBA32F };
    const upf_image id = { b->depth, c[0], c[1], 0, UPF_FORMAT_R32F };
    const upf_image im = { b->motion, c[0], c[1], 0, UPF_FORMAT_RG32F };
    uint8_t *out = malloc((size_t)c[2] * c[3] * 4);
    const upf_image io = { out, c[2], c[3], 0, UPF_FORMAT_RGBA8_SRGB };
    const scene_camera *cam = &b->cam;
    const upf_temporal_frame f = {
        .color = &ic, .depth = &id, .motion = configs[config].motion ? &im : NULL,
        .camera = { cam->near_plane, cam->far_plane, cam->fov_y, cam->depth_reversed,
                    isinf(cam->far_plane), 0, 0, 0, 0, 0 },
        .view_projection = b->vp, .prev_view_projection = b->prev_vp, .frame_time_ms = 33.3 };
    upf_result r = out ? upf_vk_temporal_managed_run(m, &f, &io) : UPF_ERROR_OUT_OF_MEMORY;
    const int n = (int)frames + warm;
    if (r == UPF_OK)
        r = upf_vk_temporal_managed_bench(m, n, ms, total, &row->record_us);
    for (int p = 0; r == UPF_OK && p < UPF_TEMPORAL_PASS_COUNT; p++)
        row->pass_us[p] = bench_median(ms + (size_t)p * n + warm, (int)frames) * 1e3;
    if (r == UPF_OK)
        row->total_us = bench_median(total + warm, (int)frames) * 1e3;
    free(out);
    if (r == UPF_OK && keep && !*keep)
        *keep = m;
    else
        upf_vk_temporal_managed_destroy(&m);
    return r;
}

/* Every surface's bytes on the device. */
static void print_memory(upf_vk_temporal_managed *m, const int *c, cli_json *j)
{
    upf__vk_runner *run = upf__vk_temporal_runner(upf_vk_temporal_managed_engine(m));
    if (j) {
        cli_json_object(j, "memory_bytes");
    } else {
        printf("memory at %dx%d -> %dx%d (bytes on the device):", c[0], c[1], c[2], c[3]);
    }
    tool_vk_resource_bytes(run, UPF__TP_COUNT, j);
    const VkDeviceSize all = upf__vk_runner_total_bytes(run);
    if (j) {
        cli_json_int(j, "total", (long long)all);
        cli_json_close(j);
    } else {
        printf("; total %llu\n", (unsigned long long)all);
    }
}

static void print_row(const int *c, int config, const vk_row *row, const char *device,
                      long frames, int warm, bool *header)
{
    if (!*header) {
        printf("temporal engine on %s: median GPU time of %ld frames after %d warm-up frames, "
               "microseconds (timestamps); RGBA32F colour, RGBA8 sRGB output\n", device, frames,
               warm);
        printf("%-22s  %-16s", "case", "config");
        for (int p = 0; p < UPF_TEMPORAL_PASS_COUNT; p++)
            printf(" %12.12s", upf_temporal_pass_name((upf_temporal_pass)p));
        printf("  %8s  %9s\n", "total", "record");
        *header = true;
    }
    char name[32];
    snprintf(name, sizeof name, "%dx%d->%dx%d", c[0], c[1], c[2], c[3]);
    printf("%-22s  %-16s", name, configs[config].name);
    for (int p = 0; p < UPF_TEMPORAL_PASS_COUNT; p++)
        printf(" %12.1f", row->pass_us[p]);
    printf("  %8.1f  %9.1f\n", row->total_us, row->record_us);
    fflush(stdout);
}

static void json_row(cli_json *j, const int *c, int config, const vk_row *row,
                     upf_vk_temporal_managed *mem)
{
    cli_json_object(j, NULL);
    cli_json_array(j, "input");
    cli_json_int(j, NULL, c[0]);
    cli_json_int(j, NULL, c[1]);
    cli_json_close(j);
    cli_json_array(j, "output");
    cli_json_int(j, NULL, c[2]);
    cli_json_int(j, NULL, c[3]);
    cli_json_close(j);
    cli_json_string(j, "config", configs[config].name);
    cli_json_object(j, "passes_us");
    for (int p = 0; p < UPF_TEMPORAL_PASS_COUNT; p++)
        cli_json_number(j, upf_temporal_pass_name((upf_temporal_pass)p),
                        round(row->pass_us[p] * 100) / 100);
    cli_json_close(j);
    cli_json_number(j, "total_us", round(row->total_us * 100) / 100);
    cli_json_number(j, "record_us", round(row->record_us * 100) / 100);
    if (mem)
        print_memory(mem, c, j);
    cli_json_close(j);
}

int tool_bench_vk_temporal(const int (*cases)[4], int ncases, long frames, int warm, void *json)
{
    const char *cmd = "bench";
    cli_json *j = json;
    int device = -1;
    const int drc = cli_vk_device(cmd, &device);
    if (drc != CLI_EXIT_OK)
        return drc;
    upf_context *ctx = cli_context(cmd, 0);
    const int n = (int)frames + warm;
    double *ms = malloc(sizeof(double) * (size_t)n * (UPF_TEMPORAL_PASS_COUNT + 1));
    if (!ctx || !ms) {
        free(ms);
        upf_context_destroy(&ctx);
        return cli_fail(cmd, CLI_EXIT_INTERNAL, "out of memory");
    }
    double *total = ms + (size_t)n * UPF_TEMPORAL_PASS_COUNT;
    int rc = CLI_EXIT_OK;
    bool header = false;
    if (j)
        cli_json_array(j, "temporal_rows");
    for (int k = 0; k < ncases && rc == CLI_EXIT_OK; k++) {
        bench_frame b = { 0 };
        upf_result r = bench_frame_render(ctx, cases[k][0], cases[k][1], &b);
        for (int c = 0; r == UPF_OK && c < (int)(sizeof configs / sizeof configs[0]); c++) {
            vk_row row;
            upf_vk_temporal_managed *mem = NULL;
            r = bench_row(ctx, device, cases[k], &b, c, frames, warm, ms, total, &row,
                          c == 0 ? &mem : NULL);
            if (r != UPF_OK)
                break;
            if (j) {
                json_row(j, cases[k], c, &row, mem);
            } else {
                print_row(cases[k], c, &row, mem ? upf_vk_temporal_managed_device_name(mem) : "",
                          frames, warm, &header);
                if (mem)
                    print_memory(mem, cases[k], NULL);
            }
            upf_vk_temporal_managed_destroy(&mem);
        }
        bench_frame_free(&b);
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
