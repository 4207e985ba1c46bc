/* flow_small.comp: the optical flow's small levels (step 6, upf__fg_flow_fused; CPU reference:
 * src/framegen/flow.c), all in one dispatch of one workgroup: per level from the coarsest
 * its search, vector median with histograms and global medians, as flow.comp's steps 0, 1
 * and 2 (flow_levels.glsl), with workgroup barriers between them instead of dispatches.
 * Reads: luma prev (8), luma (9). Writes: flow blocks (27), flow hist (28), flow global (29),
 * coherent here (the workgroup reads what it wrote). 256 invocations: 8 blocks searched at
 * once, 32 lanes each; four histograms' medians at once, 64 lanes each. The windows are
 * staged up to +-2 (the levels below the coarsest); the coarsest's +-radius_coarse window is
 * read from the buffer (a few blocks). Shared memory about 13 KB. */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
#define NBLK 8
#define RMAX 2
#define FLOW_COHERENT coherent
#include "flow.glsl"
#include "flow_levels.glsl"
