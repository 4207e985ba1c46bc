/* resolve.comp: the resolve pass on the GPU (CPU reference: src/framegen/resolve.c;
 * docs/FRAMEGEN.md, "resolve"). Reads: linear prev (binding 6), linear (7) (8 bytes a pixel,
 * linear.glsl), motion_t (21), motion (11), prev motion (15), camera (16), scene (26); with
 * BYTES (specialisation constant 0: both host colours 8-bit) the 8-bit frames (30,
 * vk_framegen.h UPF__VK_FG_BYTES) instead of the linear ones, each texel table[code] (the
 * CPU's floats: 4 bytes a texel read, not 8; the tables staged in shared memory per
 * workgroup, frames.glsl). Writes: resolved
 * (23: RGBA, alpha 1, or 0 where neither frame sees the pixel's surface) and, where the push
 * constants' `levels` (the colour pyramid's, level 0 included) is 2 or more, the pyramid's
 * level 1 (24): the inpaint's first down step (inpaint_down.glsl) from the workgroup's
 * resolved pixels in shared memory, so the inpaint does not read the resolved frame back
 * (16 bytes a pixel) and starts at level 2 (vk_framegen.h, upf__vk_fg_down_dispatches).
 *
 * Pixel q with motion m at t: A = N-1 at a = q + t m and B = N at b = q - (1 - t) m
 * (on the camera's curve with a model: a = H(t) q + t r, b = H(t - 1) q - (1 - t) r),
 * Lanczos-3 fetches of 24 taps (framegen_passes.h, upf__fg_sample4_lanczos, same taps and
 * order), each weighted by its nearness in time and whether its frame sees the surface (game
 * vectors) or the frame's edge (flow), the sharper side favoured, both positions snapped
 * toward their texel centres where they interleave (game vectors: snap_axis), clamped as
 * resolve.c says; the blend (1 - t) A + t B at q when the host asks for it or the scene
 * surface holds a cut.
 * The positions are `precise`, in the CPU's order; the Lanczos weights' sine and cosine and
 * the sharpness's exponential are the device's, within a few ulps of the C library's
 * (test_vk_framegen's tolerance). The camera's powers G^t and G^-(1 - t): from the camera
 * surface (the splat's powers step computed them, camera.glsl). The taps are loads from
 * memory: the GPU's L1 serves a window's neighbours (a shared-memory tile of the workgroup's
 * windows, with three barriers and shared atomics, made the pass 2.4x slower on an H100:
 * 400 us at 1080p, not 166). One invocation per pixel, 16 x 16 a workgroup (BYTES: 32 x 8):
 * a workgroup's launch costs about the same whatever its size, so 256 pixels a workgroup, not
 * 64, launch a quarter of the workgroups (and BYTES stages its tables a quarter as often). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16) in;
/* The BYTES pipeline's workgroup is 32 x 8 (specialisation constants 1 and 2; vk_framegen.h
 * UPF__VK_FG_RESOLVE_BYTES_W): a warp then covers a row of 32 pixels, so a tap's 4-byte codes
 * span one or two cache lines, not the four of an 8 x 4 block (the float pipeline's warp is
 * 16 x 2: two rows of 16 8-byte taps, one or two lines each). */
layout(local_size_x_id = 1, local_size_y_id = 2) in;
layout(set = 0, binding = 6, std430) readonly buffer Prev { uvec2 prev[]; }; /* linear.glsl */
layout(set = 0, binding = 7, std430) readonly buffer Cur { uvec2 cur[]; };
layout(set = 0, binding = 11, std430) readonly buffer Motion { vec2 motion[]; };
layout(set = 0, binding = 15, std430) readonly buffer PrevMotion { vec2 prev_motion[]; };
layout(set = 0, binding = 16, std430) readonly buffer Camera { float cam[]; };
layout(set = 0, binding = 21, std430) readonly buffer MotionT { vec4 motion_t[]; };
layout(set = 0, binding = 23, std430) writeonly buffer Resolved { vec4 resolved[]; };
layout(set = 0, binding = 24, std430) writeonly buffer Pyramid { vec4 pyramid[]; };
layout(set = 0, binding = 26, std430) readonly buffer Scene { float scene[]; };
layout(set = 0, binding = 30, std430) readonly buffer Bytes { uint bytes[]; };
layout(constant_id = 0) const bool BYTES = false;
layout(push_constant) uniform Push {
    int width, height;
    float t;
    uint blend;
    uint visibility;
    float tolerance, tolerance_rel;
    float sharpness;
    float snap;
    uint prev_table, cur_table; /* BYTES: each frame's decode table */
    int levels;                 /* the colour pyramid's; 2 or more: make its level 1 */
} pc;

#include "camera.glsl"
#include "exact.glsl"
#include "inpaint_down.glsl"

#define FG_INVALID 1e30

bool res_has; /* a camera model (each invocation's own: main) */

/* upf__fg_lanczos3_weights, with sin(pi f) = sin(3 u) = s3 (3 - 4 s3^2) (u = pi f / 3; the
 * triple-angle identity, from the angle-addition ones): one sine and one cosine, not three
 * calls. Every weight but a centred one (1) has the factor +-sin(pi f), which the
 * normalisation by their sum cancels, so its few ulps from the C library's sinf do not move
 * the sample. */
void lanczos3_weights(float f, out float w[6])
{
    const float sn[6] = float[6](-0.8660254, -0.8660254, 0.0, 0.8660254, 0.8660254, 0.0);
    const float cn[6] = float[6](-0.5, 0.5, 1.0, 0.5, -0.5, -1.0);
    const float pi = 3.14159265358979;
    const float u = pi * f / 3.0, s3 = sin(u), c3 = cos(u);
    const float s1 = s3 * (3.0 - 4.0 * s3 * s3);
    for (int i = 0; i < 6; i++) {
        const float d = float(i - 2) - f;
        if (abs(d) < 1e-4) {
            w[i] = 1.0;
            continue;
        }
        const float a = (i & 1) != 0 ? s1 : -s1, b = sn[i] * c3 - cn[i] * s3;
        w[i] = 3.0 * a * b / (pi * pi * d * d);
    }
}

#define FRAMES_SHARED_TABLES /* 48 texels a pixel: the decode tables in shared memory */
#include "frames.glsl"

/* upf__fg_lanczos_tap: the 4 x 4 centre of the 6 x 6 window and the middle two of each outer
 * row and column (a constant per tap once the loops are unrolled) */
bool lanczos_tap(int i, int j)
{
    const int ri = i == 0 || i == 5 ? 2 : i == 1 || i == 4 ? 1 : 0;
    const int rj = j == 0 || j == 5 ? 2 : j == 1 || j == 4 ? 1 : 0;
    return ri + rj <= 2;
}

/* upf__fg_sample4_lanczos: the same taps (edges clamped) in the same order, divided by the
 * same sum of their weights; each window's six columns and six rows clamped once (12 clamps,
 * not two a tap: 24 taps a window, 48 a pixel that both frames see), a tap's index then one
 * addition */
vec4 sample_lanczos(bool from_prev, float x, float y, out vec4 lo, out vec4 hi)
{
    x -= 0.5, y -= 0.5;
    const float fx0 = floor(x), fy0 = floor(y);
    const int x0 = int(fx0), y0 = int(fy0);
    float wx[6], wy[6];
    lanczos3_weights(x - fx0, wx);
    lanczos3_weights(y - fy0, wy);
    precise float sx4 = wx[1] + wx[2] + wx[3] + wx[4], sy4 = wy[1] + wy[2] + wy[3] + wy[4];
    precise float sum = sx4 * sy4 + (wx[2] + wx[3]) * (wy[0] + wy[5]) +
                        (wx[0] + wx[5]) * (wy[2] + wy[3]);
    const float norm = 1.0 / sum;
    int col[6], row[6];
    for (int i = 0; i < 6; i++) {
        col[i] = clamp(x0 - 2 + i, 0, pc.width - 1);
        row[i] = clamp(y0 - 2 + i, 0, pc.height - 1) * pc.width;
    }
    vec4 acc = vec4(0.0);
    lo = vec4(1.0 / 0.0), hi = vec4(-1.0 / 0.0);
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 6; i++) {
            if (!lanczos_tap(i, j))
                continue;
            const vec4 p = frame_texel(from_prev, row[j] + col[i]);
            acc += (wx[i] * wy[j]) * p;
            if ((i == 2 || i == 3) && (j == 2 || j == 3))
                lo = min(lo, p), hi = max(hi, p);
        }
    return acc * norm;
}

float agree(bool prev_field, float x, float y, vec2 m, float sign, float tol)
{
    if (!(x >= 0.0 && x < float(pc.width) && y >= 0.0 && y < float(pc.height)))
        return 0.0;
    const int i = int(y) * pc.width + int(x);
    const vec2 v = prev_field ? prev_motion[i] : motion[i];
    if (!(v.x < FG_INVALID * 0.5))
        return 0.5;
    const float ex = v.x - sign * m.x, ey = v.y - sign * m.y;
    const float w = 2.0 - sqrt(ex * ex + ey * ey) / tol;
    return w > 1.0 ? 1.0 : w > 0.0 ? w : 0.0;
}

float off_centre2(float x, float y)
{
    const float dx = x - 0.5 - floor(x), dy = y - 0.5 - floor(y);
    const float ex = dx - roundEven(dx), ey = dy - roundEven(dy);
    return ex * ex + ey * ey;
}

bool inside(float x, float y)
{
    return x >= 0.0 && x < float(pc.width) && y >= 0.0 && y < float(pc.height);
}

/* resolve's first half: true and the colour in `o` where no sample is needed; else the
 * positions a, b and the weights wa, wb of the samples (wa > 0 or wb > 0; a sampled position
 * is in the frame) */
bool resolve_plan(int x, int y, out vec2 a, out vec2 b, out float wa, out float wb, out vec4 o)
{
    const int i = y * pc.width + x;
    const float t = pc.t;
    a = vec2(0.0), b = vec2(0.0), wa = 0.0, wb = 0.0, o = vec4(0.0);
    if (pc.blend != 0u || scene[0] != 0.0) {
        precise vec3 c = (1.0 - t) * frame_texel(true, i).rgb + t * frame_texel(false, i).rgb;
        o = vec4(c, 1.0);
        return true;
    }
    const vec4 mt = motion_t[i];
    const float qx = float(x) + 0.5, qy = float(y) + 0.5;
    precise vec2 m = mt.xy;
    precise float ax = qx + t * m.x, ay = qy + t * m.y;
    precise float bx = qx - (1.0 - t) * m.x, by = qy - (1.0 - t) * m.y;
    float cax, cay, cbx, cby, ga[9], gb[9], is = 0.0;
    if (res_has) { /* 1 / s once for both homographies (camera.glsl: cam_apply_is) */
        for (int k = 0; k < 9; k++)
            ga[k] = cam[CAM_POW_A + k], gb[k] = cam[CAM_POW_B + k];
        is = upf_rcp_rn(cam[CAM_S]);
    }
    if (res_has && cam_apply_is(cam[CAM_CX], cam[CAM_CY], cam[CAM_S], is, ga, qx, qy, cax, cay) &&
        cam_apply_is(cam[CAM_CX], cam[CAM_CY], cam[CAM_S], is, gb, qx, qy, cbx, cby)) {
        ax = cax + t * mt.x, ay = cay + t * mt.y;
        bx = cbx - (1.0 - t) * mt.x, by = cby - (1.0 - t) * mt.y;
        m = vec2(ax - bx, ay - by);
    }
    precise float tol = pc.tolerance + pc.tolerance_rel * sqrt(m.x * m.x + m.y * m.y);
    const float va = agree(true, ax, ay, m, -1.0, tol);
    const float vb = mt.w == 0.0 && inside(bx, by) ? 1.0 : agree(false, bx, by, m, 1.0, tol);
    wa = (1.0 - t) * (pc.visibility != 0u ? va : (inside(ax, ay) ? 1.0 : 0.0));
    wb = t * (pc.visibility != 0u ? vb : (inside(bx, by) ? 1.0 : 0.0));
    a = vec2(ax, ay), b = vec2(bx, by);
    return !(wa + wb > 1e-4); /* o: 0, neither frame sees the surface */
}

/* resolve.c's snap_axis: where a and b lie on opposite sides of their nearest texel centres
 * on this axis, both move toward them, weighed so that wa a + wb b stays */
void snap_axis(inout float pa, inout float pb, float wa, float wb)
{
    const float da = floor(pa) + 0.5 - pa, db = floor(pb) + 0.5 - pb;
    if (!(da * db < 0.0))
        return;
    const float k = pc.snap * min(wa * abs(da), wb * abs(db));
    const float sa = k / wa, sb = k / wb;
    pa += da < 0.0 ? -sa : sa;
    pb += db < 0.0 ? -sb : sb;
}

/* resolve's second half: the samples, their blend */
vec4 resolve_sample(vec2 a, vec2 b, float wa, float wb)
{
    precise float ax = a.x, ay = a.y, bx = b.x, by = b.y;
    vec4 A = vec4(0.0), B = vec4(0.0), lo, hi, lo2, hi2;
    if (wa > 0.0 && wb > 0.0) {
        if (pc.visibility != 0u) {
            snap_axis(ax, bx, wa, wb);
            snap_axis(ay, by, wa, wb);
        }
        A = sample_lanczos(true, ax, ay, lo, hi);
        B = sample_lanczos(false, bx, by, lo2, hi2);
        if (pc.visibility != 0u) {
            wa *= exp(-pc.sharpness * off_centre2(ax, ay));
            wb *= exp(-pc.sharpness * off_centre2(bx, by));
            lo = min(lo, lo2), hi = max(hi, hi2);
        } else {
            A = min(max(A, lo), hi);
            B = min(max(B, lo2), hi2);
            lo = vec4(-1.0 / 0.0), hi = vec4(1.0 / 0.0);
        }
    } else if (wa > 0.0) {
        A = sample_lanczos(true, ax, ay, lo, hi);
    } else {
        B = sample_lanczos(false, bx, by, lo, hi);
    }
    const float n = 1.0 / (wa + wb);
    const vec3 v = (wa * A.rgb + wb * B.rgb) * n;
    return vec4(clamp(v, lo.rgb, hi.rgb), 1.0);
}

shared vec4 res_tile[256]; /* the workgroup's resolved pixels (both pipelines: 256) */

/* The colour pyramid's level 1 below the workgroup's pixels (each a whole 2 x 2 block of
 * them: the workgroup's sides are even), from res_tile: one invocation per level-1 pixel,
 * each from its children in the frame, as the inpaint's down step at level 1 (inpaint.comp,
 * which then starts at level 2). Every invocation calls this (a barrier). */
void level1_down()
{
    barrier();
    const uvec2 g = gl_WorkGroupSize.xy, half_ = g / 2u;
    const uint me = gl_LocalInvocationIndex;
    if (me >= half_.x * half_.y)
        return;
    const int lx = int(me % half_.x), ly = int(me / half_.x);
    const int x = int(gl_WorkGroupID.x * half_.x) + lx, y = int(gl_WorkGroupID.y * half_.y) + ly;
    if (x >= (pc.width + 1) / 2 || y >= (pc.height + 1) / 2)
        return;
    vec4 c[4];
    bool ok[4];
    for (int k = 0; k < 4; k++) {
        const int cx = 2 * x + (k & 1), cy = 2 * y + (k >> 1);
        ok[k] = cx < pc.width && cy < pc.height;
        c[k] = ok[k] ? res_tile[(2 * ly + (k >> 1)) * int(g.x) + 2 * lx + (k & 1)] : vec4(0.0);
    }
    pyramid[y * pc.width + x] = inpaint_down(c, ok, pc.levels == 2); /* level 1: row 0 */
}

void main()
{
    res_has = pc.blend == 0u && scene[0] == 0.0 && cam[CAM_HAS] != 0.0;
    frames_stage_tables(); /* BYTES: every invocation, before any return */
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    const bool in_frame = x < pc.width && y < pc.height;
    vec4 o = vec4(0.0);
    if (in_frame) {
        vec2 a, b;
        float wa = 0.0, wb = 0.0;
        if (!resolve_plan(x, y, a, b, wa, wb, o))
            o = resolve_sample(a, b, wa, wb);
        resolved[y * pc.width + x] = o;
    }
    if (pc.levels < 2) /* the same for the whole workgroup */
        return;
    res_tile[gl_LocalInvocationIndex] = o;
    level1_down();
}
