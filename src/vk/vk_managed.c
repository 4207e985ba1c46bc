/* vk_managed.c: managed mode (upf_vk_managed_*; docs/VULKAN.md, "Managed mode"): upframe as
 * its own Vulkan host for the spatial engine, for the tool and the tests. The device part
 * (the loader opened at run time, an instance and a device with what
 * upf_vk_requirements_query asks, images with staging buffers, submit and wait) is
 * vk_host.c's, which every engine's managed mode shares; here are the source and destination
 * images and a upf_vk_spatial lent that device: a run uploads, records, submits, waits and
 * reads back.
 *
 * Formats: the upf_image formats map to Vulkan formats of the same bytes (RGBA8 sRGB as a
 * UNORM image that the shader decodes and encodes exactly); a destination format no storage
 * image takes (16-bit UNORM) is written as RGBA32F and converted on the CPU
 * (upf__vk_host_format).
 *
 * Reads: the caller's source image. Writes: the caller's destination image. */
#include <stdlib.h>
#include <string.h>

#include "core/image.h"
#include "vk/vk_host.h"

struct upf_vk_managed {
    upf_context *ctx;
    upf__vk_host host;
    upf_vk_spatial *engine;
    upf_vk_managed_params p;
    upf__vk_host_image src, dst;
    float *row;                   /* a destination row, for CPU conversion */
    bool uploaded;
};

void upf_vk_managed_destroy(upf_vk_managed **pm)
{
    if (!pm || !*pm)
        return;
    upf_vk_managed *m = *pm;
    upf_vk_spatial_destroy(&m->engine);
    if (m->host.device)
        m->host.vkDeviceWaitIdle(m->host.device);
    upf__vk_host_image_free(&m->host, &m->src);
    upf__vk_host_image_free(&m->host, &m->dst);
    upf__vk_host_close(&m->host);
    upf__free(m->ctx, m->row);
    upf__free(m->ctx, m);
    *pm = NULL;
}

/* The source and destination formats as Vulkan images, or a message. */
static upf_result map_formats(upf_context *ctx, const char *fn, const upf_vk_managed_params *p,
                              upf__vk_host_image *src, upf__vk_host_image *dst)
{
    const bool s = upf__vk_host_format(p->src_format, false, &src->format, &src->srgb,
                                       &src->texel);
    if (s && upf__vk_host_format(p->dst_format, true, &dst->format, &dst->srgb, &dst->texel))
        return UPF_OK;
    return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s format %s is not a colour format "
                     "(expected rgba8-srgb, rgba8-unorm, rgba16-srgb, rgba16-unorm, rgba16f or "
                     "rgba32f)", fn, s ? "dst" : "src",
                     upf_format_name(s ? p->dst_format : p->src_format));
}

upf_vk_managed *upf_vk_managed_create(upf_context *ctx, const upf_vk_managed_params *p)
{
    static const char fn[] = "upf_vk_managed_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (!p) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the sizes and "
                  "formats", fn);
        return NULL;
    }
    upf__vk_host_image src = { 0 }, dst = { 0 };
    if (map_formats(ctx, fn, p, &src, &dst) != UPF_OK)
        return NULL;
    upf_vk_managed *m = upf__alloc(ctx, sizeof *m, "the managed Vulkan host");
    if (!m)
        return NULL;
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->p = *p;
    m->src = src;
    m->dst = dst;
    if (upf__vk_host_open(&m->host, ctx, fn, p->device_index) != UPF_OK)
        goto fail;
    if (!(m->engine = upf_vk_spatial_create(ctx, upf_vk_spatial_params(
              .device = &m->host.lend, .max_src_width = p->src_width,
              .max_src_height = p->src_height, .max_dst_width = p->dst_width,
              .max_dst_height = p->dst_height, .frames_in_flight = 1, .sharpness = p->sharpness,
              .models = p->models, .flags = p->flags, .variant = p->variant,
              .timestamps = p->timestamps))))
        goto fail;
    if (upf__vk_host_image_make(&m->host, fn, &m->src, p->src_width, p->src_height,
                                VK_IMAGE_USAGE_SAMPLED_BIT) != UPF_OK ||
        upf__vk_host_image_make(&m->host, fn, &m->dst, p->dst_width, p->dst_height,
                                VK_IMAGE_USAGE_STORAGE_BIT) != UPF_OK)
        goto fail;
    if (!(m->row = upf__alloc(ctx, (size_t)p->dst_width * 16, "a destination row")))
        goto fail;
    upf__log(ctx, UPF_LOG_INFO, "%s: %s, detail variant %s", fn, m->host.props.deviceName,
             upf_vk_variant_name(upf_vk_spatial_variant(m->engine)));
    return m;
fail:
    upf_vk_managed_destroy(&m);
    return NULL;
}

const char *upf_vk_managed_device_name(const upf_vk_managed *m)
{
    return m ? m->host.props.deviceName : "";
}

upf_vk_spatial *upf_vk_managed_engine(upf_vk_managed *m)
{
    return m ? m->engine : NULL;
}

upf_result upf_vk_managed_run(upf_vk_managed *m, const upf_image *src, const upf_image *dst)
{
    static const char fn[] = "upf_vk_managed_run";
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(m->ctx);
    const upf_vk_managed_params *p = &m->p;
    upf_result r = upf__check_image(m->ctx, fn, "source image", src,
                                    UPF_FMT_BIT(p->src_format), p->src_width, p->src_height);
    if (r == UPF_OK)
        r = upf__check_image(m->ctx, fn, "destination image", dst, UPF_FMT_BIT(p->dst_format),
                             p->dst_width, p->dst_height);
    if (r != UPF_OK || (r = upf__vk_host_begin(&m->host, fn)) != UPF_OK)
        return r;
    upf__vk_host_upload(&m->host, &m->src, src);
    const upf_vk_image s = upf__vk_host_lend(&m->src, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    const upf_vk_image d = upf__vk_host_lend(&m->dst, VK_IMAGE_LAYOUT_UNDEFINED,
                                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    if ((r = upf_vk_spatial_record(m->engine, m->host.cmd, &s, &d)) != UPF_OK) {
        upf__vk_host_abort(&m->host);
        return r;
    }
    upf__vk_host_record_download(&m->host, &m->dst);
    if ((r = upf__vk_host_submit(&m->host, fn)) != UPF_OK)
        return r;
    m->uploaded = true;
    upf__vk_host_read(&m->dst, dst, m->row);
    return UPF_OK;
}

/* One bench sample (upf__vk_host_bench_frame): the uploaded source again. */
static upf_result bench_frame(void *self, const char *fn, int i, double *pass, double *total,
                              double *rec)
{
    upf_vk_managed *m = self;
    upf_result r = upf__vk_host_begin(&m->host, fn);
    if (r != UPF_OK)
        return r;
    /* The source stays in SHADER_READ_ONLY_OPTIMAL, the destination in GENERAL. */
    const upf_vk_image s = upf__vk_host_lend(&m->src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0);
    const upf_vk_image d = upf__vk_host_lend(&m->dst, i ? VK_IMAGE_LAYOUT_GENERAL
                                                        : VK_IMAGE_LAYOUT_UNDEFINED,
                                             VK_IMAGE_LAYOUT_GENERAL);
    const double t0 = upf__vk_host_now_us();
    r = upf_vk_spatial_record(m->engine, m->host.cmd, &s, &d);
    *rec = upf__vk_host_now_us() - t0;
    if (r != UPF_OK) {
        upf__vk_host_abort(&m->host);
        return r;
    }
    if ((r = upf__vk_host_submit(&m->host, fn)) != UPF_OK)
        return r;
    return upf_vk_spatial_timings(m->engine, pass, total);
}

upf_result upf_vk_managed_bench(upf_vk_managed *m, int frames, double *ms, double *total,
                                double *record_us)
{
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(m->ctx);
    return upf__vk_host_bench(m->ctx, "upf_vk_managed_bench", m->uploaded ? NULL
                              : "nothing uploaded yet (call upf_vk_managed_run first)",
                              bench_frame, m, UPF_SPATIAL_PASS_COUNT, frames, ms, total,
                              record_us);
}
