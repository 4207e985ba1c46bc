/* reconstruct_dilate.glsl: the temporal engine's reconstruct pass on the GPU (CPU reference:
 * src/temporal/reconstruct_dilate.c, whose comment gives the rules), the body of its two
 * shaders: reconstruct_dilate.comp reads the host's motion vectors, reconstruct_dilate_camera
 * .comp (CAMERA_MOTION defined) the camera_motion pass's.
 *
 * Reads: colour (binding 0, sampled image), depth (1, sampled: R32F, R16F or a depth aspect),
 * motion (2, sampled RG16F / RG32F) or camera motion (4, vec2 buffer). Writes: colour (5, vec4:
 * Y, Co, Cg of the tonemapped colour, A its luma), fill source (6, with fill_source), dilated
 * motion (7, vec2), dilated depth (8, float view z), previous depth (9, uint: the float bits of
 * the nearest z scattered to each cell; the backend fills it with UPF_NO_DEPTH before the pass).
 *
 * One invocation per render pixel does the CPU's colour row, dilation and scatter for its
 * pixel: the scatter is an atomicMin of the z's bits (order-preserving for z > 0), so the
 * result is the CPU's whatever order the invocations run in.
 * What the CPU fails on cannot be reported from a command buffer: a colour that is NaN or Inf
 * (or becomes Inf once decoded and exposed) is taken as black; a depth that is NaN counts as
 * the sky (UPF_Z_FAR) and is never nearer than its neighbours; motion that is NaN or Inf
 * becomes UPF_MV_INVALID, as on the CPU (docs/VULKAN.md, "Bad input on the GPU").
 * Local size 16 x 16; grid ceil(W / 16) x ceil(H / 16). */
#include "color.glsl"
#include "temporal_common.glsl"

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    uint encoding;
    float exposure;
    float depth_scale;
    float depth_offset;
    uint depth_reversed;
    uint camera_motion;
    float motion_scale_x;
    float motion_scale_y;
    float jitter_x;
    float jitter_y;
    uint fill_source;
    /* tail (ABI.md) */
    int color_x;
    int color_y;
    int depth_x;
    int depth_y;
    int motion_x;
    int motion_y;
    uint color_transfer; /* 0: as fetched; 1: sRGB data in a UNORM view, decoded here; 2: an
                          * 8-bit sRGB view the sampler decoded: snapped back to its code and
                          * decoded here (ABI.md) */
} pc;

layout(set = 0, binding = B_COLOR_IN) uniform texture2D color_in;
layout(set = 0, binding = B_DEPTH) uniform texture2D depth_in;
#ifdef CAMERA_MOTION
layout(set = 0, binding = B_CAMERA_MOTION, std430) readonly buffer CamMotion { vec2 cam_motion[]; };
#else
layout(set = 0, binding = B_MOTION) uniform texture2D motion_in;
#endif
layout(set = 0, binding = B_COLOR, std430) writeonly buffer Color { vec4 color[]; };
layout(set = 0, binding = B_FILL_SOURCE, std430) writeonly buffer FillSource { vec4 fill_src[]; };
layout(set = 0, binding = B_DILATED_MOTION, std430) writeonly buffer DMotion { vec2 dmotion[]; };
layout(set = 0, binding = B_DILATED_DEPTH, std430) writeonly buffer DDepth { float dz[]; };
layout(set = 0, binding = B_PREV_DEPTH, std430) coherent buffer PrevDepth { uint prev_depth[]; };

bool finite(float v)
{
    return !isnan(v) && !isinf(v);
}

/* The colour to working space, as color_row and rec_row. */
void reconstruct_color(ivec2 p, uint at)
{
    vec3 c = texelFetch(color_in, p + ivec2(pc.color_x, pc.color_y), 0).rgb;
    for (int k = 0; k < 3; k++) {
        float v = c[k];
        if (pc.color_transfer == 2u) /* the code back, then as transfer 1 */
            v = floor(upf_linear_to_srgb(v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0) * 255.0 + 0.5) /
                255.0;
        if (pc.color_transfer != 0u)
            v = upf_srgb_to_linear(v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0);
        v = v > 0.0 ? v : 0.0;
        if (pc.encoding == UPF_ENCODING_SRGB)
            v = upf_srgb_to_linear(v);
        else if (pc.encoding == UPF_ENCODING_SQRT)
            v = v * v;
        c[k] = v * pc.exposure;
    }
    if (!finite(c.r) || !finite(c.g) || !finite(c.b))
        c = vec3(0.0);
    if (pc.fill_source != 0u)
        fill_src[at] = vec4(min(c, vec3(1.0)), 1.0);
    c = upf_tonemap(c);
    float luma = upf_luma(c.r, c.g, c.b);
    color[at] = vec4(upf_rgb_to_ycocg(c), luma);
}

float depth_at(ivec2 q)
{
    return texelFetch(depth_in, q + ivec2(pc.depth_x, pc.depth_y), 0).r;
}

vec2 motion_at(ivec2 q)
{
#ifdef CAMERA_MOTION
    return cam_motion[q.y * pc.width + q.x];
#else
    vec2 m = texelFetch(motion_in, q + ivec2(pc.motion_x, pc.motion_y), 0).rg;
    return vec2(m.x * pc.motion_scale_x, m.y * pc.motion_scale_y);
#endif
}

/* View distance of a device depth (clamped to [0, 1]), as view_z on the CPU. */
float view_z(float d)
{
    float dd = d < 0.0 ? 0.0 : d > 1.0 ? 1.0 : d;
    float inv = pc.depth_scale * dd + pc.depth_offset;
    return inv > 1.0 / UPF_Z_FAR ? 1.0 / inv : UPF_Z_FAR;
}

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    const int W = pc.width, H = pc.height;
    if (p.x >= W || p.y >= H)
        return;
    const uint at = uint(p.y * W + p.x);
    reconstruct_color(p, at);

    /* the dilation: the nearest of the 3x3 depths, the first in row order on ties */
    ivec2 b = p;
    float best = depth_at(p);
    for (int k = 0; k < 9; k++) {
        ivec2 s = ivec2(upf_clampi(p.x + k % 3 - 1, 0, W - 1), upf_clampi(p.y + k / 3 - 1, 0, H - 1));
        float v = depth_at(s);
        if (pc.depth_reversed != 0u ? v > best : v < best) {
            best = v;
            b = s;
        }
    }
    /* the nearest's motion only where it is another surface (UPF_DILATE_SEPARATION) */
    float z = view_z(best), z_own = view_z(depth_at(p));
    if (!(z_own - z > UPF_DILATE_SEPARATION * z_own))
        b = p;
    vec2 mv = motion_at(b);
    if (!finite(mv.x) || !finite(mv.y))
        mv = vec2(UPF_MV_INVALID);
    else
        mv = clamp(mv, vec2(-UPF_MV_MAX), vec2(UPF_MV_MAX));
    dmotion[at] = mv;
    dz[at] = z;

    /* the scatter to last frame's position */
    float qx = float(p.x) + 0.5 + pc.jitter_x + mv.x - 0.5;
    float qy = float(p.y) + 0.5 + pc.jitter_y + mv.y - 0.5;
    if (!(qx > -1.0 && qx < float(W) && qy > -1.0 && qy < float(H)))
        return;
    int i0 = int(floor(qx)), j0 = int(floor(qy));
    float fx = qx - float(i0), fy = qy - float(j0);
    uint bits = floatBitsToUint(z);
    for (int k = 0; k < 4; k++) {
        int i = i0 + (k & 1), j = j0 + (k >> 1);
        float w = ((k & 1) != 0 ? fx : 1.0 - fx) * ((k >> 1) != 0 ? fy : 1.0 - fy);
        if (w > UPF_SCATTER_MIN && i >= 0 && i < W && j >= 0 && j < H)
            atomicMin(prev_depth[j * W + i], bits);
    }
}
