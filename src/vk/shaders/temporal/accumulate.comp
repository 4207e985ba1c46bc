/* accumulate.comp: the temporal engine's accumulate pass on the GPU (CPU reference:
 * src/temporal/accumulate.c, whose comment gives steps 1-7): each output pixel's new value from
 * this frame's jittered samples and the reprojected history, in the CPU's order of operations.
 *
 * Reads: colour (binding 5), dilated motion (7), reactivity (10), locks (11) at render size;
 * fill (13, output size, with `fill`); the Lanczos table (12, the CPU's, uploaded once);
 * history (14), state (16) and display (18), last frame's. Writes: history next (15, vec4: Y,
 * Co, Cg and the accumulated weight), state next (17, uint) and display next (19, uint: the
 * shown colour's offset, step 8). The backend alternates the three pairs' buffers (the
 * runner's parity), so 14/16/18 always hold what the previous frame wrote.
 * Local size 8 x 8, one invocation per output pixel; grid ceil(W / 8) x ceil(H / 8). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(set = 0, binding = 12, std430) readonly buffer Lanczos { float lanczos[]; };
#define UPF_LANCZOS_TABLE 1
#include "temporal_common.glsl"

layout(push_constant, std430) uniform Push {
    int in_width;
    int in_height;
    int out_width;
    int out_height;
    float ratio_x;
    float ratio_y;
    float jitter_x;
    float jitter_y;
    uint reset;
    uint fill;
    float history_scale;
    float weight_max;
    float weight_ramp;
    float speed_half;
    float box_still;
    float box_moving;
    float lock_decay;
} pc;

layout(set = 0, binding = B_COLOR, std430) readonly buffer Color { vec4 color[]; };
layout(set = 0, binding = B_DILATED_MOTION, std430) readonly buffer DMotion { vec2 dmotion[]; };
layout(set = 0, binding = B_REACTIVITY, std430) readonly buffer Reactivity { vec2 reactivity[]; };
layout(set = 0, binding = B_LOCKS, std430) readonly buffer Locks { float locks[]; };
layout(set = 0, binding = B_FILL, std430) readonly buffer Fill { vec4 fill[]; };
layout(set = 0, binding = B_HISTORY, std430) readonly buffer History { vec4 hist[]; };
layout(set = 0, binding = B_HISTORY_NEXT, std430) writeonly buffer HistoryNext { vec4 hist_out[]; };
layout(set = 0, binding = B_STATE, std430) readonly buffer State { uint state[]; };
layout(set = 0, binding = B_STATE_NEXT, std430) writeonly buffer StateNext { uint state_out[]; };
layout(set = 0, binding = B_DISPLAY, std430) readonly buffer Display { uint display[]; };
layout(set = 0, binding = B_DISPLAY_NEXT, std430) writeonly buffer DisplayNext { uint display_out[]; };

const float INF = 1.0 / 0.0;
/* src/temporal/accumulate.c's: a clipped history's weight over 1 + d x its move, d from the
 * moving to the still value as the pixel is still, a still, confident pixel's range of
 * samples widened by this share of itself each side, and the share of their weight its new
 * samples count */
const float CLIP_DISTRUST_MOVING = 8.0;
const float CLIP_DISTRUST_STILL = 32.0;
const float RANGE_STILL = 0.5;
const float SAMPLE_SHARE_STILL = 0.75;
const float SAMPLE_SHARE_STILL_3X = 0.5;
/* accumulate.c's share of the shown colour's offset kept from frame to frame (step 8) */
const float DISPLAY_KEEP = 0.95;

/* accumulate.c's ratio_ramp: 0 at r_x r_y = 2.25 (1.5x), 1 from 4 (2x) on */
float ratio_ramp(float rx, float ry)
{
    return upf_sat((rx * ry - 2.25) / 1.75);
}

/* accumulate.c's still_share: 1 at r_x r_y = 2.25 (1.5x), SAMPLE_SHARE_STILL at 4 (2x),
 * SAMPLE_SHARE_STILL_3X from 9 (3x) on */
float still_share(float rx, float ry)
{
    const float a = rx * ry;
    return 1.0 - (1.0 - SAMPLE_SHARE_STILL) * upf_sat((a - 2.25) / 1.75) -
           (SAMPLE_SHARE_STILL - SAMPLE_SHARE_STILL_3X) * upf_sat((a - 4.0) / 5.0);
}

/* accumulate.c's KERNEL_MOVING, KERNEL_FAST and kernel_scale: a confident estimate's kernel
 * scale on one axis, r on a still or fast pixel, KERNEL_MOVING r (at least 1) between, as much
 * of it as ramp (ratio_ramp) */
const float KERNEL_MOVING = 0.85;
const float KERNEL_FAST = 4.0;

float kernel_scale(float r, float conf, float speed, float ramp)
{
    float moving = (1.0 - upf_sat(1.0 - speed)) * upf_sat(2.0 - speed / KERNEL_FAST) * ramp;
    float full = r * (1.0 - (1.0 - KERNEL_MOVING) * moving);
    return 1.0 + (full > 1.0 ? full - 1.0 : 0.0) * conf;
}

/* accumulate.c's EDGE_EPS, edge_axis and edge_kernel: a = (gy - gx) / (gx + gy + EDGE_EPS)
 * over the luma of the 3x3 samples around (ix, iy); along the edge a confident pixel's kernel
 * moves back toward a render pixel by `along` (conf; on a moving pixel times ratio_ramp),
 * across it back to the full output scale
 * 1 + (r - 1) conf by sat(EDGE_ACROSS a) (EDGE_MOVING: only a moving pixel's KERNEL_MOVING
 * is undone) */
const float EDGE_EPS = 1e-4;
const float EDGE_ACROSS = 2.0;
/* accumulate.c's EDGE_SHARPEN: across the edge a still, confident pixel's kernel is narrower
 * by this factor, as much as `sharpen` (not where the 3x3 is brighter than
 * EDGE_SHARPEN_BRIGHT) */
const float EDGE_SHARPEN = 1.2;
const float EDGE_SHARPEN_BRIGHT = 0.30;

float edge_axis(int ix, int iy)
{
    const int rw = pc.in_width, rh = pc.in_height;
    float L[9];
    for (int k = 0; k < 9; k++)
        L[k] = color[upf_clampi(iy + k / 3 - 1, 0, rh - 1) * rw +
                     upf_clampi(ix + k % 3 - 1, 0, rw - 1)].x;
    float gx = 0.0, gy = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            gx += abs(L[3 * i + j + 1] - L[3 * i + j]);
            gy += abs(L[3 * (j + 1) + i] - L[3 * j + i]);
        }
    return (gy - gx) / (gx + gy + EDGE_EPS);
}

void edge_kernel(float a, float conf, float along, float sharpen, float rx, float ry,
                 inout float kx, inout float ky)
{
    const float fx = 1.0 + (rx - 1.0) * conf, fy = 1.0 + (ry - 1.0) * conf;
    const float across_x = upf_sat(-EDGE_ACROSS * a), across_y = upf_sat(EDGE_ACROSS * a);
    kx += ((fx - kx) * across_x) + ((1.0 - kx) * upf_sat(a) * along);
    ky += ((fy - ky) * across_y) + ((1.0 - ky) * upf_sat(-a) * along);
    kx *= 1.0 + (EDGE_SHARPEN - 1.0) * sharpen * across_x;
    ky *= 1.0 + (EDGE_SHARPEN - 1.0) * sharpen * across_y;
}

uint luma_code(float y)
{
    float v = sqrt(y > 0.0 ? y : 0.0);
    return v >= 1.0 ? 255u : uint(v * 255.0 + 0.5);
}

float oscillates(int l0, int l1, int l2, int l3)
{
    int d1 = l0 - l1, d2 = l1 - l2, d3 = l2 - l3;
    bool big = abs(d1) > 1 && abs(d2) > 1 && abs(d3) > 1;
    return big && (d1 > 0) != (d2 > 0) && (d2 > 0) != (d3 > 0) ? 1.0 : 0.0;
}

vec4 weights4(float u, int first, float k)
{
    vec4 w;
    for (int t = 0; t < 4; t++) {
        float d = (float(first + t) - u) * k;
        w[t] = upf_lanczos2(d * d);
    }
    return w;
}

/* accumulate.c's HISTORY_SOFT: a moving history's resample is softer where it falls between
 * pixels. */
const float HISTORY_SOFT = 0.1;

/* The history at output position h: Lanczos-2 (scale 1 - soft 4 f (1 - f) per axis), colour
 * clamped to the bilinear footprint, the weight its minimum (sample_history). */
vec4 sample_history(float hx, float hy, float soft)
{
    const int W = pc.out_width, H = pc.out_height;
    float ux = hx - 0.5, uy = hy - 0.5;
    int bx = int(floor(ux)), by = int(floor(uy));
    const float fx = ux - float(bx), fy = uy - float(by);
    vec4 wx = weights4(ux, bx - 1, 1.0 - soft * 4.0 * fx * (1.0 - fx));
    vec4 wy = weights4(uy, by - 1, 1.0 - soft * 4.0 * fy * (1.0 - fy));
    vec3 acc = vec3(0.0), lo = vec3(INF), hi = vec3(-INF);
    float wsum = 0.0, wmin = INF;
    for (int ty = 0; ty < 4; ty++) {
        const int yy = upf_clampi(by - 1 + ty, 0, H - 1);
        for (int tx = 0; tx < 4; tx++) {
            vec4 p = hist[yy * W + upf_clampi(bx - 1 + tx, 0, W - 1)];
            float w = wx[tx] * wy[ty];
            acc += w * p.rgb;
            wsum += w;
            if ((tx == 1 || (tx == 2 && fx > 0.01)) && (ty == 1 || (ty == 2 && fy > 0.01))) {
                lo = min(lo, p.rgb);
                hi = max(hi, p.rgb);
                wmin = p.a < wmin ? p.a : wmin;
            }
        }
    }
    vec3 v = wsum > 1e-6 ? acc / wsum : lo;
    return vec4(clamp(v, lo, hi), wmin);
}

/* The spatial fill read where the jitter put it (sample_fill). */
vec3 sample_fill(int X, int Y)
{
    const int W = pc.out_width, H = pc.out_height;
    float ux = float(X) - pc.jitter_x * pc.ratio_x, uy = float(Y) - pc.jitter_y * pc.ratio_y;
    int x0 = int(floor(ux)), y0 = int(floor(uy));
    float fx = ux - float(x0), fy = uy - float(y0);
    vec3 p[4];
    for (int k = 0; k < 4; k++)
        p[k] = fill[upf_clampi(y0 + (k >> 1), 0, H - 1) * W + upf_clampi(x0 + (k & 1), 0, W - 1)].rgb;
    vec3 top = p[0] + fx * (p[1] - p[0]);
    vec3 bottom = p[2] + fx * (p[3] - p[2]);
    return top + fy * (bottom - top);
}

vec3 rescale_history(vec3 ycc, float scale)
{
    vec3 rgb = max(upf_ycocg_to_rgb(ycc), vec3(0.0));
    rgb = upf_tonemap_inverse(rgb) * scale;
    return upf_rgb_to_ycocg(upf_tonemap(rgb));
}

void main()
{
    const int X = int(gl_GlobalInvocationID.x), Y = int(gl_GlobalInvocationID.y);
    const int rw = pc.in_width, rh = pc.in_height, ow = pc.out_width, oh = pc.out_height;
    if (X >= ow || Y >= oh)
        return;
    const float rx = pc.ratio_x, ry = pc.ratio_y;
    const float sy = (float(Y) + 0.5) / ry;
    const int iy = upf_clampi(int(floor(sy - pc.jitter_y)), 0, rh - 1);
    const float uy = sy - 0.5 - pc.jitter_y;
    const int by = int(floor(uy));
    const float sx = (float(X) + 0.5) / rx;
    const int ix = upf_clampi(int(floor(sx - pc.jitter_x)), 0, rw - 1);
    const int ni = iy * rw + ix;
    const vec2 mv = dmotion[ni];
    const float dis = reactivity[ni].x, react = reactivity[ni].y;
    const float lock_now = locks[ni];

    /* 2. the history */
    const float speed = sqrt(mv.x * rx * mv.x * rx + mv.y * ry * mv.y * ry);
    const float still = upf_sat(1.0 - speed);
    const float ramp = ratio_ramp(rx, ry);
    const float hx = float(X) + 0.5 + mv.x * rx, hy = float(Y) + 0.5 + mv.y * ry;
    const bool valid = pc.reset == 0u && hx >= 0.0 && hx <= float(ow) && hy >= 0.0 &&
                       hy <= float(oh);
    vec4 h = vec4(0.0);
    uint st = 0u;
    float Wh = 0.0;
    if (valid) {
        h = sample_history(hx, hy, HISTORY_SOFT * (1.0 - still) * ramp);
        if (pc.history_scale != 1.0)
            h.rgb = rescale_history(h.rgb, pc.history_scale);
        st = state[upf_clampi(int(hy), 0, oh - 1) * ow + upf_clampi(int(hx), 0, ow - 1)];
        Wh = h.a * (1.0 - dis) * (1.0 - react);
    }
    /* 3. confidence */
    const float conf = upf_sat(Wh / pc.weight_ramp);
    float kx = kernel_scale(rx, conf, speed, ramp);
    float ky = kernel_scale(ry, conf, speed, ramp);
    vec3 m1 = vec3(0.0), m2 = vec3(0.0), lo = vec3(INF), hi = vec3(-INF);
    for (int k = 0; k < 9; k++) {
        vec3 p = color[upf_clampi(iy + k / 3 - 1, 0, rh - 1) * rw +
                       upf_clampi(ix + k % 3 - 1, 0, rw - 1)].rgb;
        m1 += p;
        m2 += p * p;
        lo = min(lo, p);
        hi = max(hi, p);
    }
    const float along = conf * (1.0 - (1.0 - still) * (1.0 - ramp));
    const float bright = upf_sat((hi.x - EDGE_SHARPEN_BRIGHT) * 20.0);
    const float sharpen = still * conf * ramp * (1.0 - bright);
    edge_kernel(edge_axis(ix, iy), conf, along, sharpen, rx, ry, kx, ky);

    /* 4. this frame's samples */
    const float ux = sx - 0.5 - pc.jitter_x;
    const int bx = int(floor(ux));
    vec4 wx = weights4(ux, bx - 1, kx), wy = weights4(uy, by - 1, ky);
    vec3 acc = vec3(0.0);
    float wsum = 0.0;
    for (int ty = 0; ty < 4; ty++) {
        const int row = upf_clampi(by - 1 + ty, 0, rh - 1) * rw;
        for (int tx = 0; tx < 4; tx++) {
            vec3 p = color[row + upf_clampi(bx - 1 + tx, 0, rw - 1)].rgb;
            float w = wx[tx] * wy[ty];
            acc += w * p;
            wsum += w;
        }
    }
    vec3 near = color[ni].rgb;
    vec3 est = clamp(wsum > 1e-3 ? acc / wsum : near, lo, hi);
    const float est_y = est.x;
    if (pc.fill != 0u && conf < 1.0) {
        vec3 f = max(sample_fill(X, Y), vec3(0.0));
        vec3 fy = clamp(upf_rgb_to_ycocg(upf_tonemap(f)), lo, hi); /* the samples' range */
        float hdr = upf_sat((hi.x - 0.45) * 20.0);
        float t = (1.0 - conf) * (1.0 - hdr);
        est += (fy - est) * t;
    }
    const float share = 1.0 - (1.0 - still_share(rx, ry)) * still * conf;
    const float wcur = (wsum > 0.0 ? wsum : 0.0) * (kx * ky) / (rx * ry) * share;

    /* 5.-6. rectify and blend */
    vec3 outc;
    float wnew;
    int l1 = int((st >> 8) & 255u), l2 = int((st >> 16) & 255u), l3 = int(st >> 24);
    const int l0 = int(luma_code(est_y));
    float life = valid && Wh > 0.0 ? float(st & 255u) / 255.0 - pc.lock_decay : 0.0;
    if (lock_now > 0.5)
        life = 1.0;
    life = upf_sat(life);
    if (Wh > 0.0) {
        const float g = pc.box_moving + (pc.box_still - pc.box_moving) * still * conf;
        float t = 1.0;
        vec3 box_lo, box_hi;
        for (int ch = 0; ch < 3; ch++) {
            float mean = m1[ch] * (1.0 / 9.0);
            float var = m2[ch] * (1.0 / 9.0) - mean * mean;
            float ext = g * sqrt(var > 0.0 ? var : 0.0) + 1.0 / 1024.0;
            /* the samples' range, widened on a still, confident pixel (RANGE_STILL) */
            float wide = RANGE_STILL * still * conf * (hi[ch] - lo[ch]);
            float bl = max(mean - ext, lo[ch] - wide);
            float bh = min(mean + ext, hi[ch] + wide);
            box_lo[ch] = bl;
            box_hi[ch] = bh;
            float off = h[ch] - mean;
            if (off > 0.0 && mean + off > bh)
                t = min(t, (bh - mean) / off);
            else if (off < 0.0 && mean + off < bl)
                t = min(t, (bl - mean) / off);
            m1[ch] = mean;
        }
        t = t > 0.0 ? t : 0.0;
        const float relax = max(life, oscillates(l0, l1, l2, l3)) * still * (1.0 - react);
        const float keep = t + (1.0 - t) * relax;
        /* a moving pixel clamps each channel into the box instead (accumulate.c) */
        const float clamp_share = (1.0 - still) * ramp;
        float moved = 0.0;
        for (int ch = 0; ch < 3; ch++) {
            float v = m1[ch] + (h[ch] - m1[ch]) * keep;
            moved += abs(v - h[ch]);
            float vc = min(max(h[ch], box_lo[ch]), box_hi[ch]);
            h[ch] = v + (vc - v) * clamp_share;
        }
        float wmax = pc.weight_max / (1.0 + speed / pc.speed_half);
        float wh = Wh < wmax ? Wh : wmax;
        const float distrust = CLIP_DISTRUST_MOVING +
                               (CLIP_DISTRUST_STILL - CLIP_DISTRUST_MOVING) * still;
        wh /= 1.0 + distrust * moved;
        const float sum = wh + wcur;
        outc = sum > 0.0 ? (wh * h.rgb + wcur * est) / sum : est;
        wnew = sum;
    } else {
        outc = est;
        wnew = wcur;
    }
    /* 8. the shown colour's offset from the history: a dead band on a still pixel */
    vec3 off = vec3(0.0);
    if (Wh > 0.0) {
        const int i = Y * ow + X;
        const float band = upf_display_band(outc.x), s = still * conf;
        off = upf_display_unpack(display[i]);
        for (int ch = 0; ch < 3; ch++) {
            float d = (hist[i][ch] + off[ch] - outc[ch]) * s * DISPLAY_KEEP;
            off[ch] = d > band ? band : d < -band ? -band : d;
        }
    }
    display_out[Y * ow + X] = upf_display_pack(off);
    hist_out[Y * ow + X] = vec4(outc, wnew);
    if (!(Wh > 0.0))
        l1 = l2 = l0;
    state_out[Y * ow + X] = uint(life * 255.0 + 0.5) | uint(l0) << 8 | uint(l1) << 16 |
                            uint(l2) << 24;
}
