/* temporal_backend.h: the temporal engine for the tool on either backend (`upframe temporal
 * --backend cpu|vulkan`), and the Vulkan temporal rows of `upframe bench --backend vulkan`
 * (temporal_backend.c). */
#ifndef UPF_TOOL_TEMPORAL_BACKEND_H
#define UPF_TOOL_TEMPORAL_BACKEND_H

#include <stdbool.h>

#include "upframe.h"

typedef struct tool_temporal tool_temporal;

/* The CPU engine, or (vulkan) the GPU engine in managed mode on Vulkan device `device` (-1:
 * the first discrete GPU; cli_vk_device reads it) taking colour frames of `color_format` and
 * writing `output_format`. NULL on failure (the context's message). */
tool_temporal *tool_temporal_create(upf_context *ctx, bool vulkan, int device,
                                    const upf_temporal_params *p, upf_format color_format,
                                    upf_format output_format);
upf_result tool_temporal_run(tool_temporal *t, const upf_temporal_frame *f,
                             const upf_image *output);
/* The last frame's per-pass milliseconds (CPU: wall time; Vulkan: GPU timestamps). */
upf_result tool_temporal_timings(tool_temporal *t, double ms[UPF_TEMPORAL_PASS_COUNT]);
void tool_temporal_destroy(tool_temporal **t);

/* upframe bench --backend vulkan's temporal rows: for each case (in_w, in_h, out_w, out_h),
 * with the motion vectors at sharpness 0 and 0.5, with camera motion at 0.5, and with the
 * vectors and the spatial fill at 0 (only accumulate, sharpen and the fill timed): the median
 * GPU time of each pass over `frames` frames after `warm` warm-up frames, the CPU time to
 * record one, and the bytes of every surface. Prints a table, or adds "temporal_rows" to
 * the open JSON object `json` (a cli_json *, or NULL). Returns a CLI exit code. */
int tool_bench_vk_temporal(const int (*cases)[4], int ncases, long frames, int warm,
                           void *json);

#endif
