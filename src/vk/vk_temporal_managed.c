/* vk_temporal_managed.c: the temporal engine's managed mode (upf_vk_temporal_managed_*,
 * docs/VULKAN.md "The temporal engine"): upframe as its own Vulkan host (vk_host.h) running the
 * GPU temporal engine on upf_image frames, for the tool (`upframe temporal --backend vulkan`,
 * `upframe bench --backend vulkan`) and the tests.
 *
 * Reads: each frame's colour, depth, motion and reactive upf_images (uploaded into images of
 * the host's: the colour's format, R32_SFLOAT depth, R32G32_SFLOAT motion, R32_SFLOAT
 * reactive). Writes: the output upf_image (read back from an image of its format). */
#include <stdlib.h>
#include <string.h>

#include "vk/vk_host.h"
#include "vk/vk_temporal.h"

/* The bench records this many frames back to back in one submission and keeps the last one's
 * timestamps: the GPU does not idle (and lower its clock) between the frames it times. The
 * engine has as many frames in flight, one descriptor set each. */
#define BATCH 4

struct upf_vk_temporal_managed {
    upf_context *ctx;
    upf_vk_temporal_managed_params p;
    upf__vk_host host;
    upf_vk_temporal *engine;
    upf__vk_host_image color, depth, motion, reactive, out;
    float *row;                       /* an output row, for conversion */
    upf_vk_temporal_frame last;       /* the last frame run, for the bench (its matrices
                                       * copied below; its images set per bench frame) */
    double vp[16], prev_vp[16], projection[16];
    bool has_last;
};

void upf_vk_temporal_managed_destroy(upf_vk_temporal_managed **pm)
{
    if (!pm || !*pm)
        return;
    upf_vk_temporal_managed *m = *pm;
    if (m->host.device)
        m->host.vkDeviceWaitIdle(m->host.device);
    upf_vk_temporal_destroy(&m->engine);
    upf__vk_host_image *im[] = { &m->color, &m->depth, &m->motion, &m->reactive, &m->out };
    for (size_t i = 0; i < sizeof im / sizeof im[0]; i++)
        upf__vk_host_image_free(&m->host, im[i]);
    upf__vk_host_close(&m->host);
    upf__free(m->ctx, m->row);
    upf__free(m->ctx, m);
    *pm = NULL;
}

/* The host's images: colour in the frames' format, depth / motion / reactive as float. */
static upf_result make_images(upf_vk_temporal_managed *m, const char *fn)
{
    const upf_vk_temporal_managed_params *p = &m->p;
    const int rw = p->render_width, rh = p->render_height;
    const VkImageUsageFlags in = VK_IMAGE_USAGE_SAMPLED_BIT;
    if (!upf__vk_host_format(p->color_format, false, &m->color.format, &m->color.srgb,
                             &m->color.texel) ||
        !upf__vk_host_format(p->output_format, true, &m->out.format, &m->out.srgb,
                             &m->out.texel))
        return upf__fail(m->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: colour format %s or output "
                         "format %s is not a colour format the GPU engine takes (expected "
                         "rgba8-srgb, rgba8-unorm, rgba16f, rgba32f, ...)", fn,
                         upf_format_name(p->color_format), upf_format_name(p->output_format));
    m->depth.format = VK_FORMAT_R32_SFLOAT, m->depth.texel = 4;
    m->motion.format = VK_FORMAT_R32G32_SFLOAT, m->motion.texel = 8;
    m->reactive.format = VK_FORMAT_R32_SFLOAT, m->reactive.texel = 4;
    upf_result r = upf__vk_host_image_make(&m->host, fn, &m->color, rw, rh, in);
    if (r == UPF_OK)
        r = upf__vk_host_image_make(&m->host, fn, &m->depth, rw, rh, in);
    if (r == UPF_OK)
        r = upf__vk_host_image_make(&m->host, fn, &m->motion, rw, rh, in);
    if (r == UPF_OK)
        r = upf__vk_host_image_make(&m->host, fn, &m->reactive, rw, rh, in);
    if (r == UPF_OK)
        r = upf__vk_host_image_make(&m->host, fn, &m->out, p->output_width, p->output_height,
                                    VK_IMAGE_USAGE_STORAGE_BIT);
    return r;
}

upf_vk_temporal_managed *upf_vk_temporal_managed_create(upf_context *ctx,
                                                        const upf_vk_temporal_managed_params *p)
{
    static const char fn[] = "upf_vk_temporal_managed_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (!p) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the sizes and "
                  "formats", fn);
        return NULL;
    }
    upf_vk_temporal_managed *m = upf__alloc(ctx, sizeof *m, "the managed temporal engine");
    if (!m)
        return NULL;
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->p = *p;
    if (upf__vk_host_open(&m->host, ctx, fn, p->device_index) != UPF_OK)
        goto fail;
    if (!(m->engine = upf_vk_temporal_create(ctx, upf_vk_temporal_params(
              .device = &m->host.lend, .max_render_width = p->render_width,
              .max_render_height = p->render_height, .output_width = p->output_width,
              .output_height = p->output_height, .frames_in_flight = BATCH,
              .sharpness = p->sharpness, .flags = p->flags, .timestamps = p->timestamps))))
        goto fail;
    if (make_images(m, fn) != UPF_OK)
        goto fail;
    if (!(m->row = upf__alloc(ctx, (size_t)p->output_width * 16, "an output row")))
        goto fail;
    upf__log(ctx, UPF_LOG_INFO, "%s: %s", fn, m->host.props.deviceName);
    return m;
fail:
    upf_vk_temporal_managed_destroy(&m);
    return NULL;
}

const char *upf_vk_temporal_managed_device_name(const upf_vk_temporal_managed *m)
{
    return m ? m->host.props.deviceName : "";
}

upf_vk_temporal *upf_vk_temporal_managed_engine(upf_vk_temporal_managed *m)
{
    return m ? m->engine : NULL;
}

/* Each image set (motion and reactive optional) and of the created size and format. */
static upf_result check_frame(upf_vk_temporal_managed *m, const char *fn,
                              const upf_temporal_frame *f, const upf_image *out)
{
    const upf_vk_temporal_managed_params *p = &m->p;
    const int rw = p->render_width, rh = p->render_height;
    upf_context *ctx = m->ctx;
    if (!f)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: frame is NULL", fn);
    upf_result r = upf__vk_host_check_image(ctx, fn, "frame color", f->color, rw, rh,
                                            p->color_format, false);
    if (r == UPF_OK)
        r = upf__vk_host_check_image(ctx, fn, "frame depth", f->depth, rw, rh, UPF_FORMAT_R32F,
                                     false);
    if (r == UPF_OK)
        r = upf__vk_host_check_image(ctx, fn, "frame motion", f->motion, rw, rh,
                                     UPF_FORMAT_RG32F, true);
    if (r == UPF_OK)
        r = upf__vk_host_check_image(ctx, fn, "frame reactive", f->reactive, rw, rh,
                                     UPF_FORMAT_R32F, true);
    if (r == UPF_OK)
        r = upf__vk_host_check_image(ctx, fn, "output", out, p->output_width,
                                     p->output_height, p->output_format, false);
    return r;
}

/* Keeps the frame for the bench, its matrices copied (the caller's may go). */
static void keep_last(upf_vk_temporal_managed *m, const upf_vk_temporal_frame *vf)
{
    m->last = *vf;
    upf_temporal_frame *v = &m->last.values;
    double *const keep[3] = { m->vp, m->prev_vp, m->projection };
    const double **const ptr[3] = { &v->view_projection, &v->prev_view_projection,
                                    &v->projection };
    for (int k = 0; k < 3; k++)
        if (*ptr[k]) {
            memcpy(keep[k], *ptr[k], sizeof m->vp);
            *ptr[k] = keep[k];
        }
    m->has_last = true;
}

upf_result upf_vk_temporal_managed_run(upf_vk_temporal_managed *m, const upf_temporal_frame *f,
                                       const upf_image *out)
{
    static const char fn[] = "upf_vk_temporal_managed_run";
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(m->ctx);
    upf_result r = check_frame(m, fn, f, out);
    if (r == UPF_OK)
        r = upf__vk_host_begin(&m->host, fn);
    if (r != UPF_OK)
        return r;
    const VkImageLayout dst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    upf__vk_host_upload(&m->host, &m->color, f->color);
    upf__vk_host_upload(&m->host, &m->depth, f->depth);
    if (f->motion)
        upf__vk_host_upload(&m->host, &m->motion, f->motion);
    if (f->reactive)
        upf__vk_host_upload(&m->host, &m->reactive, f->reactive);
    upf_vk_image lent[5];
    lent[0] = upf__vk_host_lend(&m->color, dst, ro);
    lent[1] = upf__vk_host_lend(&m->depth, dst, ro);
    lent[2] = upf__vk_host_lend(&m->motion, dst, ro);
    lent[3] = upf__vk_host_lend(&m->reactive, dst, ro);
    lent[4] = upf__vk_host_lend(&m->out, VK_IMAGE_LAYOUT_UNDEFINED,
                                VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    upf_vk_temporal_frame vf = { &lent[0], &lent[1], f->motion ? &lent[2] : NULL,
                                 f->reactive ? &lent[3] : NULL, 0, 0, *f };
    vf.values.color = vf.values.depth = vf.values.motion = vf.values.reactive = NULL;
    r = upf_vk_temporal_record(m->engine, m->host.cmd, &vf, &lent[4]);
    if (r != UPF_OK) {
        upf__vk_host_abort(&m->host);
        return r;
    }
    upf__vk_host_record_download(&m->host, &m->out);
    if ((r = upf__vk_host_submit(&m->host, fn)) != UPF_OK)
        return r;
    upf__vk_host_read(&m->out, out, m->row);
    keep_last(m, &vf);
    return UPF_OK;
}

/* One benchmark sample (upf__vk_host_bench_frame): BATCH frames of the last frame's images
 * again (their content stays; its camera and jitter again, no reset) back to back in one
 * submission; *rec the CPU time to record the last of them. */
static upf_result bench_frame(void *self, const char *fn, int i, double *pass, double *total,
                              double *rec)
{
    upf_vk_temporal_managed *m = self;
    upf_result r = upf__vk_host_begin(&m->host, fn);
    if (r != UPF_OK)
        return r;
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    upf_vk_image lent[5];
    lent[0] = upf__vk_host_lend(&m->color, ro, ro);
    lent[1] = upf__vk_host_lend(&m->depth, ro, ro);
    lent[2] = upf__vk_host_lend(&m->motion, ro, ro);
    lent[3] = upf__vk_host_lend(&m->reactive, ro, ro);
    upf_vk_temporal_frame vf = m->last;
    vf.color = &lent[0], vf.depth = &lent[1];
    vf.motion = vf.motion ? &lent[2] : NULL;
    vf.reactive = vf.reactive ? &lent[3] : NULL;
    vf.values.reset = 0;
    for (int b = 0; b < BATCH && r == UPF_OK; b++) {
        lent[4] = upf__vk_host_lend(&m->out, i || b ? VK_IMAGE_LAYOUT_GENERAL
                                                    : VK_IMAGE_LAYOUT_UNDEFINED,
                                    VK_IMAGE_LAYOUT_GENERAL);
        const double t0 = upf__vk_host_now_us();
        r = upf_vk_temporal_record(m->engine, m->host.cmd, &vf, &lent[4]);
        *rec = upf__vk_host_now_us() - t0;
    }
    if (r != UPF_OK) {
        upf__vk_host_abort(&m->host);
        return r;
    }
    if ((r = upf__vk_host_submit(&m->host, fn)) != UPF_OK)
        return r;
    return upf_vk_temporal_timings(m->engine, pass, total);
}

upf_result upf_vk_temporal_managed_bench(upf_vk_temporal_managed *m, int frames, double *ms,
                                         double *total, double *record_us)
{
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(m->ctx);
    return upf__vk_host_bench(m->ctx, "upf_vk_temporal_managed_bench", m->has_last ? NULL
                              : "no frame yet (call upf_vk_temporal_managed_run first)",
                              bench_frame, m, UPF_TEMPORAL_PASS_COUNT, frames, ms, total,
                              record_us);
}
