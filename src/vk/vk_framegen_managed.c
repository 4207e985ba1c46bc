/* vk_framegen_managed.c: frame generation on the GPU in managed mode
 * (upf__vk_interpolate_managed_*, vk_framegen_managed.h; docs/VULKAN.md "Frame generation"):
 * upframe as its own Vulkan host (vk_host.h) running upf_vk_interpolate on upf_image frames,
 * for the tool and the tests, as vk_temporal_managed.c does for the temporal engine.
 *
 * Reads: the pair's upf_images (uploaded into images of the host's: both colours and the HUD
 * layers in their created formats, R32G32_SFLOAT motion and R32_SFLOAT depth at the motion
 * size). Writes: the output upf_images (each read back from an image of its format). */
#include <stdlib.h>
#include <string.h>

#include "framegen/framegen_passes.h"
#include "vk/vk_framegen_managed.h"
#include "vk/vk_host.h"

/* The bench records this many pairs back to back in one submission and keeps the last one's
 * timestamps (as the temporal engine's: the GPU does not idle between them); the engine has
 * as many frames in flight. */
#define BATCH 4
#define OUTS_MAX (UPF_INTERPOLATE_FACTOR_MAX - 1)

/* The host images, by role. */
enum { IM_PREV, IM_COLOR, IM_MOTION, IM_DEPTH, IM_PREV_HUD, IM_HUD, IM_INPUTS };

struct upf__vk_interpolate_managed {
    upf_context *ctx;
    upf__vk_interpolate_managed_params p;
    upf__vk_host host;
    upf_vk_interpolate *engine;
    upf__vk_host_image in[IM_INPUTS], out[OUTS_MAX];
    float *row;                        /* an output row, for conversion */
    /* the last run, for the bench and last_method */
    bool has_last, given[IM_INPUTS];
    upf_vk_interpolate_frame last;     /* its images set per bench frame */
    double phases[OUTS_MAX], vp[16], prev_vp[16];
    int count;
    upf_interpolate_method method;
    upf_interpolate_fallback fallback;
};

void upf__vk_interpolate_managed_destroy(upf__vk_interpolate_managed **pm)
{
    if (!pm || !*pm)
        return;
    upf__vk_interpolate_managed *m = *pm;
    if (m->host.device)
        m->host.vkDeviceWaitIdle(m->host.device);
    upf_vk_interpolate_destroy(&m->engine);
    for (int i = 0; i < IM_INPUTS; i++)
        upf__vk_host_image_free(&m->host, &m->in[i]);
    for (int i = 0; i < OUTS_MAX; i++)
        upf__vk_host_image_free(&m->host, &m->out[i]);
    upf__vk_host_close(&m->host);
    upf__free(m->ctx, m->row);
    upf__free(m->ctx, m);
    *pm = NULL;
}

static int max_factor(const upf__vk_interpolate_managed_params *p)
{
    return p->max_factor ? p->max_factor : 2;
}

/* The host's images: colours and HUD layers in their formats, motion and depth as float. */
static upf_result make_images(upf__vk_interpolate_managed *m, const char *fn)
{
    const upf__vk_interpolate_managed_params *p = &m->p;
    const int mw = p->motion_width ? p->motion_width : p->width;
    const int mh = p->motion_height ? p->motion_height : p->height;
    const bool hud = p->hud_format != 0;
    bool ok = upf__vk_host_format(p->color_format, false, &m->in[IM_PREV].format,
                                  &m->in[IM_PREV].srgb, &m->in[IM_PREV].texel) &&
              upf__vk_host_format(p->output_format, true, &m->out[0].format,
                                  &m->out[0].srgb, &m->out[0].texel) &&
              (!hud || upf__vk_host_format(p->hud_format, false, &m->in[IM_HUD].format,
                                           &m->in[IM_HUD].srgb, &m->in[IM_HUD].texel));
    if (!ok)
        return upf__fail(m->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: colour format %s, HUD format "
                         "%s or output format %s is not a colour format the GPU engine takes "
                         "(expected rgba8-srgb, rgba8-unorm, rgba16f, rgba32f, ...)", fn,
                         upf_format_name(p->color_format),
                         hud ? upf_format_name(p->hud_format) : "(none)",
                         upf_format_name(p->output_format));
    m->in[IM_COLOR] = m->in[IM_PREV];
    m->in[IM_PREV_HUD] = m->in[IM_HUD];
    m->in[IM_MOTION].format = VK_FORMAT_R32G32_SFLOAT, m->in[IM_MOTION].texel = 8;
    m->in[IM_DEPTH].format = VK_FORMAT_R32_SFLOAT, m->in[IM_DEPTH].texel = 4;
    upf_result r = UPF_OK;
    for (int i = 0; i < IM_INPUTS && r == UPF_OK; i++) {
        const bool at_motion = i == IM_MOTION || i == IM_DEPTH;
        if ((i == IM_PREV_HUD || i == IM_HUD) && !hud)
            continue;
        r = upf__vk_host_image_make(&m->host, fn, &m->in[i], at_motion ? mw : p->width,
                                    at_motion ? mh : p->height, VK_IMAGE_USAGE_SAMPLED_BIT);
    }
    for (int k = 0; k < max_factor(p) - 1 && r == UPF_OK; k++) {
        if (k > 0)
            m->out[k] = (upf__vk_host_image){ .format = m->out[0].format,
                                              .srgb = m->out[0].srgb, .texel = m->out[0].texel };
        r = upf__vk_host_image_make(&m->host, fn, &m->out[k], p->width, p->height,
                                    VK_IMAGE_USAGE_STORAGE_BIT);
    }
    return r;
}

/* The engine's motion source for the CPU engine's mode. */
static upf_vk_motion vk_motion(upf_interpolate_motion mode)
{
    return mode == UPF_INTERPOLATE_MOTION_VECTORS ? UPF_VK_MOTION_VECTORS
         : mode == UPF_INTERPOLATE_MOTION_FLOW ? UPF_VK_MOTION_FLOW
         : mode == UPF_INTERPOLATE_MOTION_BLEND ? UPF_VK_MOTION_VECTORS : UPF_VK_MOTION_BOTH;
}

upf__vk_interpolate_managed *upf__vk_interpolate_managed_create(
    upf_context *ctx, const upf__vk_interpolate_managed_params *p)
{
    static const char fn[] = "upf__vk_interpolate_managed_create";
    if (!ctx)
        return NULL;
    upf__clear_error(ctx);
    if (!p) {
        upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: params is NULL; expected the sizes and "
                  "formats", fn);
        return NULL;
    }
    upf__vk_interpolate_managed *m = upf__alloc(ctx, sizeof *m, "the managed frame generation");
    if (!m)
        return NULL;
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->p = *p;
    if (upf__vk_host_open(&m->host, ctx, fn, p->device_index) != UPF_OK)
        goto fail;
    if (!(m->engine = upf_vk_interpolate_create(ctx, upf_vk_interpolate_params(
              .device = &m->host.lend, .width = p->width, .height = p->height,
              .motion_width = p->motion_width, .motion_height = p->motion_height,
              .motion = vk_motion(p->motion), .max_factor = p->max_factor,
              .frames_in_flight = BATCH, .motion_scale_x = p->motion_scale_x,
              .motion_scale_y = p->motion_scale_y, .flags = p->flags,
              .timestamps = p->timestamps))))
        goto fail;
    if (make_images(m, fn) != UPF_OK)
        goto fail;
    if (!(m->row = upf__alloc(ctx, (size_t)p->width * 16, "an output row")))
        goto fail;
    upf__log(ctx, UPF_LOG_INFO, "%s: %s", fn, m->host.props.deviceName);
    return m;
fail:
    upf__vk_interpolate_managed_destroy(&m);
    return NULL;
}

const char *upf__vk_interpolate_managed_device_name(const upf__vk_interpolate_managed *m)
{
    return m ? m->host.props.deviceName : "";
}

upf_vk_interpolate *upf__vk_interpolate_managed_engine(upf__vk_interpolate_managed *m)
{
    return m ? m->engine : NULL;
}

/* Checks that `im` is set (unless optional) and of the created size and format, and that a
 * HUD image comes only to an engine made with HUD images. */
static upf_result check_image(upf__vk_interpolate_managed *m, const char *fn, const char *what,
                              const upf_image *im, int w, int h, upf_format format,
                              bool optional)
{
    if (im && !format)
        return upf__fail(m->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s given, but the engine was "
                         "made without HUD images (hud_format 0)", fn, what);
    return upf__vk_host_check_image(m->ctx, fn, what, im, w, h, format, optional);
}

/* The pair's images in IM_* order. */
static void images_of(const upf_interpolate_frames *f, const upf_image *im[IM_INPUTS])
{
    im[IM_PREV] = f->prev_color, im[IM_COLOR] = f->color, im[IM_MOTION] = f->motion;
    im[IM_DEPTH] = f->depth, im[IM_PREV_HUD] = f->prev_hud, im[IM_HUD] = f->hud;
}

static upf_result check_run(upf__vk_interpolate_managed *m, const char *fn,
                            const upf_interpolate_frames *f, const double *phases, int count,
                            const upf_image *const *outputs)
{
    const upf__vk_interpolate_managed_params *p = &m->p;
    static const char *const what[IM_INPUTS] = { "prev_color", "color", "motion", "depth",
                                                 "prev_hud", "hud" };
    if (!f || !phases || !outputs)
        return upf__fail(m->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                         !f ? "frames" : !phases ? "phases" : "outputs");
    if (count < 1 || count > max_factor(p) - 1)
        return upf__fail(m->ctx, UPF_ERROR_INVALID_ARGUMENT, "%s: %d phases; expected 1..%d "
                         "(max_factor %d)", fn, count, max_factor(p) - 1, max_factor(p));
    const upf_image *im[IM_INPUTS];
    images_of(f, im);
    const int mw = p->motion_width ? p->motion_width : p->width;
    const int mh = p->motion_height ? p->motion_height : p->height;
    const upf_format fmt[IM_INPUTS] = { p->color_format, p->color_format, UPF_FORMAT_RG32F,
                                        UPF_FORMAT_R32F, p->hud_format, p->hud_format };
    upf_result r = UPF_OK;
    for (int i = 0; i < IM_INPUTS && r == UPF_OK; i++) {
        const bool at_motion = i == IM_MOTION || i == IM_DEPTH;
        r = check_image(m, fn, what[i], im[i], at_motion ? mw : p->width,
                        at_motion ? mh : p->height, fmt[i], i >= IM_MOTION);
    }
    for (int k = 0; k < count && r == UPF_OK; k++)
        r = check_image(m, fn, "output", outputs[k], p->width, p->height, p->output_format,
                        false);
    return r;
}

/* Keeps the run for the bench: which images it gave, its values, its matrices and phases. */
static void keep_last(upf__vk_interpolate_managed *m, const upf_vk_interpolate_frame *vf,
                      const double *phases, int count)
{
    m->last = *vf;
    m->given[IM_PREV] = m->given[IM_COLOR] = true;
    m->given[IM_MOTION] = vf->motion != NULL, m->given[IM_DEPTH] = vf->depth != NULL;
    m->given[IM_PREV_HUD] = vf->prev_hud != NULL, m->given[IM_HUD] = vf->hud != NULL;
    if (vf->view_projection) {
        memcpy(m->vp, vf->view_projection, sizeof m->vp);
        memcpy(m->prev_vp, vf->prev_view_projection, sizeof m->prev_vp);
        m->last.view_projection = m->vp, m->last.prev_view_projection = m->prev_vp;
    }
    memcpy(m->phases, phases, (size_t)count * sizeof *phases);
    m->count = count;
    m->has_last = true;
}

/* The frame the engine records: the lent images (those given), the pair's values. */
static upf_vk_interpolate_frame vk_frame(const upf__vk_interpolate_managed *m,
                                         const upf_interpolate_frames *f,
                                         const upf_vk_image lent[IM_INPUTS],
                                         const bool given[IM_INPUTS])
{
    upf_vk_interpolate_frame vf = {
        given[IM_PREV] ? &lent[IM_PREV] : NULL, given[IM_COLOR] ? &lent[IM_COLOR] : NULL,
        given[IM_MOTION] ? &lent[IM_MOTION] : NULL, given[IM_DEPTH] ? &lent[IM_DEPTH] : NULL,
        given[IM_PREV_HUD] ? &lent[IM_PREV_HUD] : NULL, given[IM_HUD] ? &lent[IM_HUD] : NULL,
        f->prev_id, f->id, f->reset || m->p.motion == UPF_INTERPOLATE_MOTION_BLEND,
        f->view_projection, f->prev_view_projection, f->ndc_y_down };
    return vf;
}

upf_result upf__vk_interpolate_managed_run(upf__vk_interpolate_managed *m,
                                           const upf_interpolate_frames *f,
                                           const double *phases, int count,
                                           const upf_image *const *outputs)
{
    static const char fn[] = "upf__vk_interpolate_managed_run";
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(m->ctx);
    upf_result r = check_run(m, fn, f, phases, count, outputs);
    if (r == UPF_OK)
        r = upf__vk_host_begin(&m->host, fn);
    if (r != UPF_OK)
        return r;
    const upf_image *im[IM_INPUTS];
    images_of(f, im);
    upf_vk_image lent[IM_INPUTS], out[OUTS_MAX];
    const upf_vk_image *outp[OUTS_MAX];
    bool given[IM_INPUTS];
    for (int i = 0; i < IM_INPUTS; i++) {
        given[i] = im[i] != NULL;
        if (given[i])
            upf__vk_host_upload(&m->host, &m->in[i], im[i]);
        lent[i] = upf__vk_host_lend(&m->in[i], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                    VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    }
    for (int k = 0; k < count; k++) {
        out[k] = upf__vk_host_lend(&m->out[k], VK_IMAGE_LAYOUT_UNDEFINED,
                                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        outp[k] = &out[k];
    }
    const upf_vk_interpolate_frame vf = vk_frame(m, f, lent, given);
    r = upf_vk_interpolate_record(m->engine, m->host.cmd, &vf, phases, count, outp, count);
    if (r != UPF_OK) {
        upf__vk_host_abort(&m->host);
        return r;
    }
    for (int k = 0; k < count; k++)
        upf__vk_host_record_download(&m->host, &m->out[k]);
    if ((r = upf__vk_host_submit(&m->host, fn)) != UPF_OK)
        return r;
    for (int k = 0; k < count; k++)
        upf__vk_host_read(&m->out[k], outputs[k], m->row);
    keep_last(m, &vf, phases, count);
    upf__interpolate_method(m->p.motion, f->motion != NULL, f->depth != NULL, f->reset,
                            f->prev_id, f->id, &m->method, &m->fallback);
    if (m->fallback != UPF_INTERPOLATE_FALLBACK_NONE) /* as upf_interpolate_last_method */
        m->method = UPF_INTERPOLATE_USED_BLEND;
    return UPF_OK;
}

upf_result upf__vk_interpolate_managed_last_method(const upf__vk_interpolate_managed *m,
                                                   upf_interpolate_method *method,
                                                   upf_interpolate_fallback *fallback)
{
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    if (method)
        *method = m->has_last ? m->method : UPF_INTERPOLATE_USED_NONE;
    if (fallback)
        *fallback = m->has_last ? m->fallback : UPF_INTERPOLATE_FALLBACK_NONE;
    return UPF_OK;
}

/* One benchmark sample (upf__vk_host_bench_frame): BATCH records of the last run's images
 * (their content stays), values and phases back to back in one submission; *rec the CPU time
 * to record the last of them. */
static upf_result bench_frame(void *self, const char *fn, int i, double *pass, double *total,
                              double *rec)
{
    upf__vk_interpolate_managed *m = self;
    upf_result r = upf__vk_host_begin(&m->host, fn);
    if (r != UPF_OK)
        return r;
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    upf_vk_image lent[IM_INPUTS], out[OUTS_MAX];
    const upf_vk_image *outp[OUTS_MAX];
    for (int k = 0; k < IM_INPUTS; k++)
        lent[k] = upf__vk_host_lend(&m->in[k], ro, ro);
    upf_vk_interpolate_frame vf = m->last;
    const upf_vk_image *const p[IM_INPUTS] = { &lent[0], &lent[1], &lent[2], &lent[3],
                                               &lent[4], &lent[5] };
    vf.prev_color = p[IM_PREV], vf.color = p[IM_COLOR];
    vf.motion = m->given[IM_MOTION] ? p[IM_MOTION] : NULL;
    vf.depth = m->given[IM_DEPTH] ? p[IM_DEPTH] : NULL;
    vf.prev_hud = m->given[IM_PREV_HUD] ? p[IM_PREV_HUD] : NULL;
    vf.hud = m->given[IM_HUD] ? p[IM_HUD] : NULL;
    for (int b = 0; b < BATCH && r == UPF_OK; b++) {
        for (int k = 0; k < m->count; k++) {
            out[k] = upf__vk_host_lend(&m->out[k], i || b ? VK_IMAGE_LAYOUT_GENERAL
                                                          : VK_IMAGE_LAYOUT_UNDEFINED,
                                       VK_IMAGE_LAYOUT_GENERAL);
            outp[k] = &out[k];
        }
        const double t0 = upf__vk_host_now_us();
        r = upf_vk_interpolate_record(m->engine, m->host.cmd, &vf, m->phases, m->count, outp,
                                      m->count);
        *rec = upf__vk_host_now_us() - t0;
    }
    if (r != UPF_OK) {
        upf__vk_host_abort(&m->host);
        return r;
    }
    if ((r = upf__vk_host_submit(&m->host, fn)) != UPF_OK)
        return r;
    return upf_vk_interpolate_timings(m->engine, pass, total);
}

upf_result upf__vk_interpolate_managed_bench(upf__vk_interpolate_managed *m, int frames,
                                             double *ms, double *total, double *record_us)
{
    if (!m)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf__clear_error(m->ctx);
    return upf__vk_host_bench(m->ctx, "upf__vk_interpolate_managed_bench", m->has_last ? NULL
                              : "no pair yet (call upf__vk_interpolate_managed_run first)",
                              bench_frame, m, UPF_INTERPOLATE_PASS_COUNT, frames, ms, total,
                              record_us);
}
