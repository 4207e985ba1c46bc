/* spatial_fill.c: the temporal engine's spatial_fill pass (docs/TEMPORAL.md, "spatial fill"),
 * on with UPF_TEMPORAL_SPATIAL_FILL: the spatial engine's upscale of this frame, which
 * accumulate takes for the pixels that have no history yet (a disocclusion, a reset, the first
 * frame) instead of a plain Lanczos-2 upsample of the samples.
 *
 * Reads: fill source (exposed linear colour clamped to [0, 1], render size). Writes: fill
 * (linear, output size).
 *
 * The spatial engine (src/spatial, sharpness 0) is a pass list of its own, run here whole on
 * these two surfaces; on the GPU this pass is that engine's passes. Its model is chosen for the
 * ratio when the temporal engine is created. */
#include "spatial/spatial_passes.h"
#include "temporal/temporal_passes.h"

upf_result upf__spatial_fill_pass(const upf__pass_args *a)
{
    const upf__spatial_fill_con *con = a->con;
    const upf__temporal_cpu *cpu = a->engine;
    const upf_image src = { a->surface[UPF__TP_FILL_SOURCE].data, con->in_width, con->in_height,
                            0, UPF_FORMAT_RGBA32F };
    const upf_image dst = { a->surface[UPF__TP_FILL].data, con->out_width, con->out_height, 0,
                            UPF_FORMAT_RGBA32F };
    return upf__spatial_run_passes(cpu->spatial, a->fn, &src, &dst, 0, UPF__SP_PASS_COUNT - 1);
}
