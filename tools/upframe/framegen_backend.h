/* framegen_backend.h: the frame generation engine for the tool on either backend (`upframe
 * interpolate --backend cpu|vulkan`), and the frame generation rows of `upframe bench
 * --backend vulkan` (framegen_backend.c). */
#ifndef UPF_TOOL_FRAMEGEN_BACKEND_H
#define UPF_TOOL_FRAMEGEN_BACKEND_H

#include <stdbool.h>

#include "upframe.h"

typedef struct tool_interpolate tool_interpolate;

/* What the GPU engine is made for: its images' formats (the first pair's; a later frame of
 * another format is converted on the host; hud 0: 8-bit sRGB), and whether the first pair has
 * motion vectors (then UPF_INTERPOLATE_MOTION_AUTO makes a vectors engine: a later pair
 * without vectors gets the blend there as on the CPU, its depth being given). */
typedef struct tool_interpolate_formats {
    upf_format color, hud, output;
    bool vectors;
} tool_interpolate_formats;

/* The CPU engine, or (vulkan) the GPU engine in managed mode on Vulkan device `device` (-1:
 * the first discrete GPU; cli_vk_device reads it). NULL on failure (the context's message). */
tool_interpolate *tool_interpolate_create(upf_context *ctx, bool vulkan, int device,
                                          const upf_interpolate_params *p,
                                          const tool_interpolate_formats *formats);
/* One phase (phase != NULL: *phase, count 1) or the count phases k / (count + 1) into
 * outs[0 .. count - 1], as upf_interpolate_run / _run_factor. */
upf_result tool_interpolate_run(tool_interpolate *t, const upf_interpolate_frames *f,
                                int count, const double *phase,
                                const upf_image *const *outs);
upf_result tool_interpolate_last_method(tool_interpolate *t, upf_interpolate_method *method,
                                        upf_interpolate_fallback *fallback);
/* The last run's per-pass milliseconds, summed over its phases (CPU: wall time; Vulkan: GPU
 * timestamps). */
upf_result tool_interpolate_timings(tool_interpolate *t,
                                    double ms[UPF_INTERPOLATE_PASS_COUNT]);
void tool_interpolate_destroy(tool_interpolate **t);

/* upframe bench --backend vulkan's frame generation rows: at each size (w, h), from the
 * vectors and (when the GPU engine has it) from optical flow, factor 2 and 4: the median GPU
 * time of each pass over `frames` frames after `warm` warm-up frames, per made frame, what a
 * further phase costs, each pass's byte floor at `bandwidth` bytes a second, the CPU record
 * time and the bytes of every surface. Prints a table, or adds "framegen_rows" to the open
 * JSON object `json` (a cli_json *, or NULL). Returns a CLI exit code. */
int tool_bench_vk_framegen(const int (*sizes)[2], int nsizes, long frames, int warm,
                           double bandwidth, void *json);

#endif
