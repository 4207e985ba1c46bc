/* flow_check.comp: the optical flow's step 5 on level 0 (flow.c's check_row; docs/FRAMEGEN.md,
 * "flow"): forward/backward consistency of N's pixels and their priority. Reads motion (11)
 * and prev motion (15); writes priority (12). With base 1 (the flow of the half-size frame)
 * the check also writes the half-size fields into motion_t (21: both vectors) and splat_land
 * (20: the priority) as scratch (as flow.c's check_row does; before, a copy step with a
 * dispatch of its own took 31 us at 1920x1080 on an H100, where the check took 8), and a
 * second step (flow.c's up_row) makes the frame's fields from them, the vectors doubled.
 * One invocation per pixel (of the step's frame), 16x16 a workgroup (launching a workgroup
 * costs about the same whatever its size: 256 pixels a workgroup launch a quarter as many as
 * 8x8); the square roots correctly rounded (exact.glsl), so the words equal the CPU's.
 * Its own SPIR-V (flow.glsl says why). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16) in;
#include "flow.glsl"
layout(set = 0, binding = 20, std430) buffer SplatLand { uint splat_land[]; };
layout(set = 0, binding = 21, std430) buffer MotionT { vec4 motion_t[]; };

/* upf__fg_motion_priority: the faster surface wins. */
uint motion_priority(vec2 m)
{
    precise float q2 = m.x * m.x + m.y * m.y;
    precise float s = upf_sqrt_rn(q2) * 256.0;
    const uint q = s < 2147483647.0 ? uint(s) : 2147483647u;
    return 0xffffffffu - q;
}

void check(int x, int y)
{
    const int W = pc.width, H = pc.height;
    if (x >= W || y >= H)
        return;
    const int i = y * W + x;
    const vec2 m = motion[i];
    precise float fx = float(x) + 0.5 + m.x, fy = float(y) + 0.5 + m.y;
    const int tx = int(floor(fx)), ty = int(floor(fy));
    bool ok = true;
    if (tx >= 0 && tx < W && ty >= 0 && ty < H) {
        const vec2 b = prev_motion[ty * W + tx];
        precise float ex = m.x + b.x, ey = m.y + b.y;
        precise float e2 = ex * ex + ey * ey, m2 = m.x * m.x + m.y * m.y;
        const float el = upf_sqrt_rn(e2), len = upf_sqrt_rn(m2);
        precise float lim = pc.consistency + pc.consistency_rel * len;
        ok = el <= lim;
    }
    const uint p = ok ? motion_priority(m) : 0xfffffffeu;
    priority[i] = p;
    if (pc.base == 0)
        return;
    /* the scratch, which the up step reads (the frame's motion, prev motion and
     * priority are the buffers this step reads from and the up step writes) */
    motion_t[i] = vec4(m, prev_motion[i]);
    splat_land[i] = p;
}

/* up_row: pixel (x, y) of the frame from its half-size pixel, the vectors doubled */
void up(int x, int y)
{
    if (x >= pc.frame_width || y >= pc.frame_height)
        return;
    const int i = y * pc.frame_width + x, k = (y >> 1) * pc.width + (x >> 1);
    const vec4 h = motion_t[k];
    precise vec4 d = 2.0 * h;
    motion[i] = d.xy;
    prev_motion[i] = d.zw;
    priority[i] = splat_land[k] == 0xfffffffeu ? 0xfffffffeu : motion_priority(d.xy);
}

void main()
{
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    const uint step = pc.code & 15u;
    if (step == STEP_UP)
        up(x, y);
    else
        check(x, y);
}
