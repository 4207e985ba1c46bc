/* camera_motion.comp: the temporal engine's camera_motion pass on the GPU (CPU reference:
 * src/temporal/camera_motion.c, whose comment gives the maths): each pixel's depth sample
 * unprojected with this frame's view-projection and projected with the previous one by the
 * one matrix R = VP_prev VP^-1 the host made in double.
 *
 * Reads: depth (binding 1, a sampled image: R32F, R16F or a depth format's depth aspect, at
 * the depth rectangle's offset). Writes: camera motion (binding 4, vec2 per pixel, render
 * pixels, rows tightly packed at this frame's width).
 * Depth that is not finite (the CPU fails the run) gives motion 0 here.
 * Local size 16 x 16; grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "temporal_common.glsl"

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    float reproject[16];
    float ndc_z_scale;
    float ndc_z_offset;
    float ndc_y_sign;
    float jitter_x;
    float jitter_y;
    /* tail (ABI.md) */
    int depth_x;
    int depth_y;
} pc;

layout(set = 0, binding = B_DEPTH) uniform texture2D depth_in;
layout(set = 0, binding = B_CAMERA_MOTION, std430) writeonly buffer Motion { vec2 motion[]; };

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.width || p.y >= pc.height)
        return;
    const float W = float(pc.width), H = float(pc.height);
    float dv = texelFetch(depth_in, p + ivec2(pc.depth_x, pc.depth_y), 0).r;
    const uint at = uint(p.y * pc.width + p.x);
    if (isnan(dv) || isinf(dv)) {
        motion[at] = vec2(0.0);
        return;
    }
    dv = dv < 0.0 ? 0.0 : dv > 1.0 ? 1.0 : dv;
    const float sy = float(p.y) + 0.5 + pc.jitter_y;
    const float ny = pc.ndc_y_sign * (1.0 - 2.0 * sy / H);
    const float sx = float(p.x) + 0.5 + pc.jitter_x;
    const float nx = 2.0 * sx / W - 1.0, nz = dv * pc.ndc_z_scale + pc.ndc_z_offset;
    float cx = pc.reproject[0] * nx + pc.reproject[1] * ny + pc.reproject[2] * nz + pc.reproject[3];
    float cy = pc.reproject[4] * nx + pc.reproject[5] * ny + pc.reproject[6] * nz + pc.reproject[7];
    float cw = pc.reproject[12] * nx + pc.reproject[13] * ny + pc.reproject[14] * nz +
               pc.reproject[15];
    if (!(cw > 1e-6))
        cw = 1e-6;
    float px = (cx / cw + 1.0) * 0.5 * W;
    float py = (1.0 - pc.ndc_y_sign * cy / cw) * 0.5 * H;
    motion[at] = vec2(px - sx, py - sy);
}
