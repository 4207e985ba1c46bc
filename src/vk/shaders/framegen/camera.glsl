/* camera.glsl: the camera model of the frame generation shaders (CPU reference:
 * src/framegen/camera.c, upf__fg_camera_power and upf__fg_camera_apply; docs/FRAMEGEN.md,
 * "camera"). The camera surface (binding 16 in the shaders that include this) holds 1 when
 * there is a model, the centre and scale of the normalised coordinates, and log G; from
 * CAM_POW on, the powers of the phase being made (framegen_passes.h, UPF__FG_CAMERA_POWERS):
 * the splat's first step computes them once (splat.comp, powers: a workgroup, an invocation
 * per element) and the splat, fill and resolve read them (invocation 0 of each workgroup
 * computing them while the other 63 waited cost 1.7 ms of splat, 1 ms of fill and 3.4 ms of
 * resolve at 1080p on an H100).
 *
 * cam_apply: a pixel position through a 3x3 homography in the normalised coordinates, false
 * where the point goes behind the camera. Every operation in camera.c's order and `precise`
 * (no fused multiply-add, no reassociation), so that a device whose division is correctly
 * rounded (lavapipe) gives the CPU's floats bit for bit. */
#ifndef UPF_FG_CAMERA_GLSL
#define UPF_FG_CAMERA_GLSL

#include "exact.glsl"

#define CAM_HAS 0
#define CAM_CX 1
#define CAM_CY 2
#define CAM_S 3
#define CAM_LOG 4
#define CAM_POW 28                  /* UPF__FG_CAMERA_POWERS: 9 floats each, in this order */
#define CAM_POW_G CAM_POW           /* G */
#define CAM_POW_SHIFT (CAM_POW + 9) /* G^(1 - t): the splat's shift */
#define CAM_POW_A (CAM_POW + 18)    /* G^t: the resolve's sample of N-1 */
#define CAM_POW_B (CAM_POW + 27)    /* G^-(1 - t): the resolve's sample of N */
#define CAM_POW_COUNT 4

/* (cx, cy, s): the camera surface's centre and scale; is = upf_rcp_rn(s) (cam_apply; a
 * caller applying two homographies at a pixel computes it once) */
bool cam_apply_is(float cx, float cy, float s, float is, in float m[9], float x, float y,
                  out float ox, out float oy)
{
    precise float u = (x - cx) * is, v = (y - cy) * is;
    precise float w = m[6] * u + m[7] * v + m[8];
    ox = x, oy = y;
    if (!(w > 1e-3))
        return false;
    precise float iw = upf_rcp_rn(w);
    precise float rx = (m[0] * u + m[1] * v + m[2]) * iw * s + cx;
    precise float ry = (m[3] * u + m[4] * v + m[5]) * iw * s + cy;
    ox = rx, oy = ry;
    return true;
}

bool cam_apply(float cx, float cy, float s, in float m[9], float x, float y, out float ox,
               out float oy)
{
    return cam_apply_is(cx, cy, s, upf_rcp_rn(s), m, x, y, ox, oy);
}

/* upf__fg_camera_outside: the camera's position (gx, gy) in N-1 lies outside the frame */
bool cam_outside(int W, int H, float gx, float gy)
{
    return !(gx > 0.0 && gx < float(W) && gy > 0.0 && gy < float(H));
}

#endif
