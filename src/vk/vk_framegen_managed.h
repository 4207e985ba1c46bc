/* vk_framegen_managed.h: frame generation on the GPU in managed mode (vk_framegen_managed.c,
 * docs/VULKAN.md "Frame generation"): upframe as its own Vulkan host (vk_host.h) running
 * upf_vk_interpolate on upf_image frames, for the tool (`upframe interpolate --backend vulkan`,
 * `upframe bench --backend vulkan`) and the tests. As the temporal engine's managed mode
 * (upf_vk_temporal_managed_*), but internal: the tool and the tests link the static library.
 *
 *   upf__vk_interpolate_managed *m = upf__vk_interpolate_managed_create(ctx,
 *       &(upf__vk_interpolate_managed_params){ .device_index = -1, .width = w, .height = h,
 *           .max_factor = 4, .color_format = UPF_FORMAT_RGBA32F,
 *           .output_format = UPF_FORMAT_RGBA8_SRGB, .timestamps = 1 });
 *   const double phases[3] = { 0.25, 0.5, 0.75 };
 *   upf__vk_interpolate_managed_run(m, &frames, phases, 3, outputs);  // upload, record, read
 *   upf__vk_interpolate_managed_last_method(m, &method, &fallback);
 *   upf__vk_interpolate_managed_destroy(&m);
 *
 * Internal header: not installed. */
#ifndef UPF_VK_FRAMEGEN_MANAGED_H
#define UPF_VK_FRAMEGEN_MANAGED_H

#include "upframe_vk.h"

typedef struct upf__vk_interpolate_managed_params {
    int device_index;                 /* as upf_vk_managed_params: -1 the first discrete GPU */
    int width, height;                /* as upf_interpolate_params */
    int motion_width, motion_height;  /* 0: the frames' size */
    upf_interpolate_motion motion;    /* as the CPU engine's (AUTO: vectors when a run gives
                                       * motion and depth, flow when neither); BLEND: every
                                       * record is made as a reset (the blend) */
    int max_factor;                   /* 2 .. UPF_INTERPOLATE_FACTOR_MAX; 0: 2 */
    double motion_scale_x, motion_scale_y;
    unsigned flags;                   /* UPF_INTERPOLATE_* */
    upf_format color_format;          /* both frames' (a colour format upf__vk_host_format
                                       * takes) */
    upf_format hud_format;            /* the HUD layers'; 0: no HUD images (none may be given) */
    upf_format output_format;         /* every output's */
    int timestamps;
} upf__vk_interpolate_managed_params;

typedef struct upf__vk_interpolate_managed upf__vk_interpolate_managed;

/* Makes the device, the images (colour and HUD in their formats, motion RG32F and depth R32F
 * at the motion size, max_factor - 1 outputs) and the engine. Fails with
 * UPF_ERROR_UNSUPPORTED when there is no Vulkan or no device (the message says "use --backend
 * cpu"). */
upf__vk_interpolate_managed *upf__vk_interpolate_managed_create(
    upf_context *ctx, const upf__vk_interpolate_managed_params *params);
void upf__vk_interpolate_managed_destroy(upf__vk_interpolate_managed **m);
const char *upf__vk_interpolate_managed_device_name(const upf__vk_interpolate_managed *m);
upf_vk_interpolate *upf__vk_interpolate_managed_engine(upf__vk_interpolate_managed *m);

/* As upf_interpolate_run_factor with a list of phases: uploads the pair's images (the created
 * sizes and formats; motion, depth and the HUD layers may be NULL), records the made frames at
 * phases[0 .. count - 1] (1 .. max_factor - 1 of them) into outputs[k], submits, waits, and
 * reads them back. */
upf_result upf__vk_interpolate_managed_run(upf__vk_interpolate_managed *m,
                                           const upf_interpolate_frames *frames,
                                           const double *phases, int count,
                                           const upf_image *const *outputs);

/* What the last run used, as upf_interpolate_last_method: the host's cases (asked, reset, ids
 * not consecutive, a missing input) as the CPU engine decides them; a scene change that the
 * GPU's scene pass found (optical flow) is not read back and reads as the flow. */
upf_result upf__vk_interpolate_managed_last_method(const upf__vk_interpolate_managed *m,
                                                   upf_interpolate_method *method,
                                                   upf_interpolate_fallback *fallback);

/* Times the engine alone on the last run's images, values and phases: `frames` submissions of
 * 4 records back to back, each sample the per-pass GPU times of the last of the 4 (the
 * per-phase passes summed over the phases): ms[pass * frames + i], total[i]; *record_us the
 * median CPU time of one upf_vk_interpolate_record. */
upf_result upf__vk_interpolate_managed_bench(upf__vk_interpolate_managed *m, int frames,
                                             double *ms, double *total, double *record_us);

#endif /* UPF_VK_FRAMEGEN_MANAGED_H */
