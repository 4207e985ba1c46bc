/* accumulate.c: the temporal engine's accumulate pass (docs/TEMPORAL.md, "accumulate"): each
 * output pixel's new value from this frame's jittered samples and the reprojected history.
 *
 * Reads: colour, dilated motion, reactivity, locks (render size); fill (output size, with the
 * spatial fill); the Lanczos table; history, state and display (last frame's). Writes:
 * history next (Y, Co, Cg and the accumulated weight), state next and display next.
 *
 * For output pixel X (all of it per axis; render coordinates are unjittered, so render pixel i
 * holds the sample taken at i + 0.5 + j):
 *  1. Its centre in render coordinates, s = (X + 0.5) / r (r = output / render). The nearest
 *     sample, i = floor(s - j), gives the motion mv, disocclusion, reactive and lock.
 *  2. History: at h = X + 0.5 + r mv (output pixels) unless reset or h is off the screen,
 *     Lanczos-2 over its 4x4 output pixels (softer on a moving pixel: HISTORY_SOFT), the
 *     colour clamped to the range of its bilinear footprint (the nearest 2x2, less taps of
 *     weight near 0: no ringing from the negative lobes), the weight W the smallest of that
 *     footprint (one straddling a new area does not inherit a full weight), both times
 *     (1 - disocclusion) (1 - reactive). State: the nearest pixel's.
 *  3. Confidence c = min(1, W / weight_ramp): the weight a few frames of samples bring, so it
 *     ramps up frame by frame and starts again from 0 where the history is lost.
 *  4. This frame's estimate: Lanczos-2 over the 4x4 samples around s, the distance of sample i
 *     measured in pixels of scale k = 1 + (r - 1) c: a smooth upsample (k = 1, the kernel in
 *     render pixels) where there is no history yet, the samples' own footprint in output
 *     pixels (k = r) once confident; on a moving pixel k reaches KERNEL_MOVING r (at least 1)
 *     instead, r again from KERNEL_FAST up (kernel_scale); on a confident pixel along an edge,
 *     back toward 1 along it and to r across it, on a still one EDGE_SHARPEN r across it
 *     (edge_kernel). Sum of weights w = sum L2,
 *     estimate E = sum L2 col / w, clamped to the range of the 3x3 samples around i. With the
 *     spatial fill, a pixel that is not yet confident takes the spatial engine's upscale
 *     instead, (1 - c) of it (not where the upsample is brighter than the fill can be: HDR),
 *     read where the jitter put it and clamped to the same 3x3 range (beside a mover the
 *     spatial engine's edges overshot it: docs/TEMPORAL.md, "the spatial fill's range").
 *     Its weight in the history is
 *     w k_x k_y / (r_x r_y): one frame of samples at the output scale counts w, a smooth
 *     upsample counts as much as one frame's samples on average; a still, confident pixel's
 *     counts still_share() of that (SAMPLE_SHARE_STILL at 2x, _3X from 3x up).
 *  5. Rectification (Salvi 2016, "An excursion in temporal supersampling", GDC: variance
 *     clipping): the mean m and standard deviation d of the 3x3 samples around i (YCoCg), the
 *     box m +- g d intersected with their min..max (widened by RANGE_STILL of itself on a
 *     still, confident pixel), g from box_moving to box_still as the pixel is still and
 *     confident; the history is clipped toward m into the box (on a moving pixel clamped
 *     into it channel by channel instead: "The clamp" below). Where a thin
 *     feature holds a lock, or its luma oscillates (the signs of its last three changes
 *     alternate: jitter, not a change of scene), and the pixel is still, the clip is undone
 *     by that much: a feature the samples miss every other frame keeps its history.
 *  6. Blend: W' = min(W, weight_max / (1 + v / speed_half)) (v the speed in output pixels: a
 *     moving history is resampled every frame, so it is kept shorter), lowered further the
 *     more the clip moved it (CLIP_DISTRUST_*), then out = (W' hist + w_cur E) / (W' + w_cur), weight
 *     W' + w_cur. Without history: out = E, weight w_cur.
 *  7. State: a lock's life (8 bits: 255 when this frame has a lock there, else last frame's
 *     minus lock_decay, 0 without history) and the last three estimates' luma (8 bits each,
 *     sqrt-encoded), for the oscillation test.
 *  8. What is shown (the sharpen's input) is not the history itself but D = out + o, o (per
 *     channel) last frame's shown colour at X less out, times still conf DISPLAY_KEEP, cut
 *     to +- the band b = upf__display_band(Y of out) (UPF__DISPLAY_BAND_CODES codes of
 *     8-bit sRGB): a dead band (hysteresis) that leaks back to the history. On a still camera the history's steps that only wander
 *     about (each new frame's samples: jitter, not a change) stay inside the band and the
 *     picture holds still; a change larger than the band moves the picture with the history,
 *     at most b behind it. Without history, or moving, D = out. o is stored (display next),
 *     not D, so the history itself accumulates as before.
 * Work: one task per output row. Every output value depends only on the inputs, so the result
 * is the same for any number of threads. */
#include <math.h>
#include <stdlib.h>

#include "temporal/temporal_passes.h"

/* How much a history the clip moved loses of its weight: divided by 1 + d x the distance it
 * moved (YCoCg, summed over the channels), d from CLIP_DISTRUST_MOVING to CLIP_DISTRUST_STILL
 * as the pixel is still. 32 halves the weight of a history moved by 1/32 (8 codes of luma),
 * which on a moving camera happens to a textured surface nearly every frame: its history
 * stayed a few frames long, noisy and blotchy; 8 measured +0.55 dB on the tuning pans. On a
 * still pixel a clip means a change the vectors do not show (a moving shadow): 8 there kept
 * it too long (the courtyard's 48 still frames -0.16 dB; docs/TEMPORAL.md). */
#define CLIP_DISTRUST_MOVING 8.0f
#define CLIP_DISTRUST_STILL 32.0f

/* The box is cut to the range of the 3x3 samples around the nearest one; on a still camera that
 * neighbourhood moves by a render pixel as the jitter crosses a pixel boundary, so a right
 * history next to an edge or a fine texture fell outside every other frame's range and was
 * clipped back and forth (shimmer). A still, confident pixel's range is widened by this share
 * of itself each side. */
#define RANGE_STILL 0.5f

static inline float sat(float v)
{
    return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
}

/* A still, confident pixel's new samples count this share of their weight (1 on a moving or
 * young one). On a still camera the output is a running mean of the frames' estimates, and
 * its change from frame to frame is a new estimate's weight over the history's: in the first
 * frames, while the history is young, a sample falling near a pixel's centre moved it by a
 * quarter or more (the shimmer of issue 34). A lower share lets the first frames' smooth
 * upsample (weighed before the pixel was confident) keep more of a young history: at 0.5 the
 * tuning still sequences' still-pixel shimmer fell 14% with the PSNR +0.01 dB, at a quarter
 * 34% for -0.27 dB. With the display's dead band (step 8) doing most of that, 0.75 at 2x
 * keeps the PSNR (docs/TEMPORAL.md); at 3x the half measured better. */
#define SAMPLE_SHARE_STILL 0.75f
#define SAMPLE_SHARE_STILL_3X 0.5f

/* ... by the ratio: 1 at r_x r_y = 2.25 (1.5x: the half cost the courtyard's tuning still
 * sequence 0.09 dB), SAMPLE_SHARE_STILL at 4 (2x), SAMPLE_SHARE_STILL_3X from 9 (3x) on,
 * linear between (docs/TEMPORAL.md). */
static inline float still_share(float rx, float ry)
{
    const float a = rx * ry;
    return 1.0f - (1.0f - SAMPLE_SHARE_STILL) * sat((a - 2.25f) / 1.75f) -
           (SAMPLE_SHARE_STILL - SAMPLE_SHARE_STILL_3X) * sat((a - 4.0f) / 5.0f);
}

/* The shown colour's offset from the history keeps this share of itself from frame to frame
 * (step 8): a pure dead band (1) held the picture up to the band behind a history still
 * converging, away from the truth (the tuning still sequences -0.01 / -0.04 dB); 0.95 lets
 * it drift back (+0.01 / -0.01 dB) for 41% / 38% less shimmer instead of 44% / 43%; 0.85
 * kept 34% / 31% (docs/TEMPORAL.md). */
#define DISPLAY_KEEP 0.95f

/* 0 at r_x r_y = 2.25 (1.5x), 1 from 4 (2x) on, linear between: how much of the rules below
 * that were measured to lose at 1.5x acts. */
static inline float ratio_ramp(float rx, float ry)
{
    return sat((rx * ry - 2.25f) / 1.75f);
}

/* On a moving pixel a confident estimate's kernel scale is this share of the output's (a
 * wider kernel). On the tuning sequences at 2x 0.85 measured +0.17 dB on the orbits and +0.13
 * on the pans (0.9: +0.15 / +0.12, 0.75: +0.08 / 0.00, 0.65: -0.12 / -0.24), at 3x +0.13 to
 * +0.23 on each; at 1.5x it lost up to 0.21, so it follows ratio_ramp. Why it gains is not
 * settled: on test_temporal's clean synthetic wall most pan speeds lose (docs/TEMPORAL.md).
 * It fades out from KERNEL_FAST to twice that speed (output pixels a frame): on the fast
 * turns it cost 0.02 dB without the fade. Never wider than a render pixel (native AA). */
#define KERNEL_MOVING 0.85f
#define KERNEL_FAST 4.0f

/* The clamp. Rectification on a moving pixel: the history is clamped into the box channel by
 * channel (Y, Co, Cg) instead of clipped toward the box's centre along the line to the mean
 * (the clip moves every channel as far as the one furthest out needs: a history whose luma
 * alone left the box lost its chroma too, and on a moving camera a textured surface's history
 * leaves the box nearly every frame). Blended in by 1 - still and ratio_ramp; a still pixel
 * keeps the clip (and its undoing by locks and oscillation). On the tuning sequences at 2x,
 * means of the four scenes: pans 29.83 -> 29.93 dB, orbits 30.79 -> 30.81 (docs/TEMPORAL.md,
 * "Issue 34, the moving camera: the clamp"). How far the clip would have moved the history
 * still sets the distrust (CLIP_DISTRUST_MOVING): the clamp's own move measured the same
 * (29.94 / 30.80), and the clip's colour with the clamp's move nothing (29.84 / 30.79). */

/* The estimate's kernel scale on one axis of ratio r: 1 (render pixels) without history, r
 * (output pixels) on a still or fast confident pixel, KERNEL_MOVING r (at least 1) between,
 * as much of it as `ramp` (ratio_ramp). */
static inline float kernel_scale(float r, float conf, float speed, float ramp)
{
    float moving = (1.0f - sat(1.0f - speed)) * sat(2.0f - speed / KERNEL_FAST) * ramp;
    float full = r * (1.0f - (1.0f - KERNEL_MOVING) * moving);
    return 1.0f + (full > 1.0f ? full - 1.0f : 0.0f) * conf;
}

/* Along an edge, a confident pixel's kernel is widened back toward a render pixel
 * (edge_kernel). At 2x a sample lands in the even output column of its render pixel when
 * jx < 0 and in the odd one otherwise, and a kernel one output pixel wide gives each column
 * mostly its own half of the jitter phases; of the 16 Halton(2,3) phases the two halves' shares
 * of heights below a horizontal edge differ by 0.11 on average (up to 0.25), so such an edge
 * was drawn as a comb, even and odd columns up to 15 codes apart (the speckle under the
 * courtyard's railing, issue 35; docs/TEMPORAL.md). Along the edge a wider kernel costs no
 * sharpness. The axis weights come from the 3x3 samples' luma differences: a = (gy - gx) /
 * (gx + gy + EDGE_EPS) (edge_axis), the x kernel widened by sat(a), the y kernel by sat(-a).
 * EDGE_EPS (in the working space's luma) keeps a flat neighbourhood from counting as an edge.
 *
 * EDGE_MOVING: on a moving pixel too, and across the edge its kernel goes back from
 * KERNEL_MOVING's wider one to the full output scale (k_x toward 1 + (r_x - 1) c by sat(-a),
 * k_y by sat(a)): an orbit's edges carried 56-58% of its error and came out soft (their
 * gradient 0.84 / 0.81 of the reference's). On the tuning sequences at 2x, means of the four
 * scenes: orbits 30.83 -> 30.90 dB, pans 29.96 -> 30.07 (docs/TEMPORAL.md, "Issue 34, the
 * moving camera: the edges"). Along the edge it follows ratio_ramp on a moving pixel (at
 * 1.5x, where KERNEL_MOVING does not act, it measured -0.004 dB on the orbits); across it,
 * KERNEL_MOVING does.
 *
 * EDGE_ACROSS: the part across the edge by sat(EDGE_ACROSS a), a steeper axis, so a slanted
 * edge counts more (at |a| >= 0.5 fully): tuning orbits 30.900 -> 30.923 dB, pans 30.070 ->
 * 30.088, walks, turns and cuts up or level; the part along it stays at sat(a) (at sat(2a) the
 * still path lost 0.06 dB on the forest; docs/TEMPORAL.md, "the steeper axis"). */
#define EDGE_EPS 1e-4f
#define EDGE_ACROSS 2.0f

/* EDGE_SHARPEN: on a still, confident pixel the kernel across an edge is narrower than the
 * output scale, k times EDGE_SHARPEN (by sat(EDGE_ACROSS a), as much as ratio_ramp). A
 * confident pixel's kernel at the output scale (Lanczos-2, main lobe +-1 output pixel) weighs
 * a sample half a pixel away 0.57 of one at its centre, so it drew a fine grating faint, about
 * as a tent of radius 1 would: the courtyard's railing (bars 2.5 output pixels apart at 2x) had
 * 18% of its crossings below half the reference's contrast, where an equal-weight average of
 * the samples inside each output pixel (a box) over the same 16 frames had 4%, for 2 to 4 dB
 * less PSNR (noise; docs/TEMPORAL.md, "Thin features, a sixth time"). Across an edge only,
 * the same pixel averages along it as before (edge_widen), so the noise stays low: on the
 * tuning still sequences the railing's gaps 16.8% -> 10.2%, the wires' 12.1% -> 11.4%, the
 * PSNR -0.007 dB. Not where the 3x3 holds a luma above EDGE_SHARPEN_BRIGHT (ramping out over
 * 0.05; the working space's tonemapped luma, a linear 0.43): on bright sky and lights it only
 * added noise (the street's tuning still -0.09 dB without the gate; 1.3 with it: railing
 * 8.8%, -0.018 dB). */
#define EDGE_SHARPEN 1.2f
#define EDGE_SHARPEN_BRIGHT 0.30f

typedef struct acc_job {
    const upf__accumulate_con *con;
    const float *color, *motion, *react, *locks, *fill, *lanczos, *hist;
    const uint32_t *state, *display;
    float *hist_out;
    uint32_t *state_out, *display_out;
} acc_job;

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static inline float clampf(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* 8-bit sqrt-encoded luma. */
static inline uint32_t luma_code(float y)
{
    float v = sqrtf(y > 0.0f ? y : 0.0f);
    return v >= 1.0f ? 255u : (uint32_t)(v * 255.0f + 0.5f);
}

/* 1 when the signs of l0-l1, l1-l2, l2-l3 alternate and each change is more than 1 code. */
static inline float oscillates(int l0, int l1, int l2, int l3)
{
    int d1 = l0 - l1, d2 = l1 - l2, d3 = l2 - l3;
    bool big = abs(d1) > 1 && abs(d2) > 1 && abs(d3) > 1;
    return big && (d1 > 0) != (d2 > 0) && (d2 > 0) != (d3 > 0) ? 1.0f : 0.0f;
}

/* Lanczos-2 weights of the 4 taps first .. first + 3 around coordinate u (tap t at first + t),
 * distance scaled by k. */
static inline void weights4(const float *lut, float u, int first, float k, float *w)
{
    for (int t = 0; t < 4; t++) {
        float d = ((float)(first + t) - u) * k;
        w[t] = upf__lanczos2(lut, d * d);
    }
}

/* A moving history's resample is softer, most where it falls between pixels: Lanczos-2's
 * scale on each axis 1 - HISTORY_SOFT 4 f (1 - f) (f the offset's fraction on that axis), as
 * much of it as the pixel moves (1 - still) and ratio_ramp. On the tuning sequences at 2x, with
 * the clamp: pans 29.93 -> 29.96 dB, orbits 30.81 -> 30.83 (docs/TEMPORAL.md, "Issue 34, the
 * moving camera: the clamp"); test_temporal's pan over the wall 30.46 -> 30.74. Last session,
 * without the clamp: 0.2 no better than 0.1, and sharper (1 + 0.15 4 f (1 - f)) lost 0.2 to
 * 0.6 dB per sequence (aliasing). */
#define HISTORY_SOFT 0.1f

/* The history at output position (hx, hy): Lanczos-2 (scale 1 - soft 4 f (1 - f) per axis),
 * colour clamped to the nearest 2x2, the weight their minimum. */
static void sample_history(const acc_job *job, float hx, float hy, float soft, float *out)
{
    const upf__accumulate_con *c = job->con;
    const int W = c->out_width, H = c->out_height;
    float ux = hx - 0.5f, uy = hy - 0.5f;
    int bx = (int)floorf(ux), by = (int)floorf(uy);
    const float fx = ux - (float)bx, fy = uy - (float)by;
    float wx[4], wy[4];
    weights4(job->lanczos, ux, bx - 1, 1.0f - soft * 4.0f * fx * (1.0f - fx), wx);
    weights4(job->lanczos, uy, by - 1, 1.0f - soft * 4.0f * fy * (1.0f - fy), wy);
    float acc[3] = { 0, 0, 0 }, wsum = 0.0f;
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    float wmin = INFINITY;
    for (int ty = 0; ty < 4; ty++) {
        const int yy = clampi(by - 1 + ty, 0, H - 1);
        const float *row = job->hist + (size_t)yy * W * 4;
        for (int tx = 0; tx < 4; tx++) {
            const float *p = row + (size_t)clampi(bx - 1 + tx, 0, W - 1) * 4;
            float w = wx[tx] * wy[ty];
            for (int k = 0; k < 3; k++)
                acc[k] += w * p[k];
            wsum += w;
            /* the bilinear footprint: the 2x2 around h, less the taps of weight near 0 (h on
             * a pixel centre takes that pixel alone) */
            if ((tx == 1 || (tx == 2 && fx > 0.01f)) && (ty == 1 || (ty == 2 && fy > 0.01f))) {
                for (int k = 0; k < 3; k++) {
                    lo[k] = p[k] < lo[k] ? p[k] : lo[k];
                    hi[k] = p[k] > hi[k] ? p[k] : hi[k];
                }
                wmin = p[3] < wmin ? p[3] : wmin;
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        float v = wsum > 1e-6f ? acc[k] / wsum : lo[k];
        out[k] = v < lo[k] ? lo[k] : v > hi[k] ? hi[k] : v;
    }
    out[3] = wmin;
}

/* The spatial fill at output pixel X: the spatial engine took this frame's samples for pixel
 * centres, so its picture sits shifted by the jitter (r j output pixels); it is read back
 * (bilinear) where the true position X + 0.5 lands in it. */
static void sample_fill(const acc_job *job, int X, int Y, float *out)
{
    const upf__accumulate_con *c = job->con;
    const int W = c->out_width, H = c->out_height;
    float ux = (float)X - c->jitter_x * c->ratio_x, uy = (float)Y - c->jitter_y * c->ratio_y;
    int x0 = (int)floorf(ux), y0 = (int)floorf(uy);
    float fx = ux - (float)x0, fy = uy - (float)y0;
    const float *p[4];
    for (int k = 0; k < 4; k++)
        p[k] = job->fill + ((size_t)clampi(y0 + (k >> 1), 0, H - 1) * W +
                            (size_t)clampi(x0 + (k & 1), 0, W - 1)) * 4;
    for (int ch = 0; ch < 3; ch++) {
        float top = p[0][ch] + fx * (p[1][ch] - p[0][ch]);
        float bottom = p[2][ch] + fx * (p[3][ch] - p[2][ch]);
        out[ch] = top + fy * (bottom - top);
    }
}

/* The 3x3 render pixels around (ix, iy) (edges repeated), row by row: what edge_axis and the
 * rectification read. */
static void neighbourhood(const acc_job *job, int ix, int iy, const float *nb[9])
{
    const int rw = job->con->in_width, rh = job->con->in_height;
    for (int k = 0; k < 9; k++)
        nb[k] = job->color + ((size_t)clampi(iy + k / 3 - 1, 0, rh - 1) * rw +
                              (size_t)clampi(ix + k % 3 - 1, 0, rw - 1)) * 4;
}

/* The edge's axis over the luma of the 3x3 samples nb (neighbourhood): a = (gy - gx) /
 * (gx + gy + EDGE_EPS), gx and gy the summed absolute differences across x and across y; 1 for
 * a horizontal edge, -1 for a vertical one. */
static float edge_axis(const float *const nb[9])
{
    float gx = 0.0f, gy = 0.0f;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            gx += fabsf(nb[3 * i + j + 1][0] - nb[3 * i + j][0]);
            gy += fabsf(nb[3 * (j + 1) + i][0] - nb[3 * j + i][0]);
        }
    return (gy - gx) / (gx + gy + EDGE_EPS);
}

/* The kernel scales along and across an edge of axis a (edge_axis; EDGE_EPS, EDGE_MOVING,
 * EDGE_ACROSS, EDGE_SHARPEN): along it k moves toward 1 (a render pixel) by `along`, across it
 * (by EDGE_ACROSS a) back to full, the confident output scale 1 + (r - 1) conf (a no-op but on
 * a moving pixel, where KERNEL_MOVING widened it), then narrower by EDGE_SHARPEN as much as
 * `sharpen` (still, confident, not bright: acc_row). */
static void edge_kernel(float a, float conf, float along, float sharpen, float rx, float ry,
                        float *kx, float *ky)
{
    const float fx = 1.0f + (rx - 1.0f) * conf, fy = 1.0f + (ry - 1.0f) * conf;
    const float across_x = sat(-EDGE_ACROSS * a), across_y = sat(EDGE_ACROSS * a);
    *kx += ((fx - *kx) * across_x) + ((1.0f - *kx) * sat(a) * along);
    *ky += ((fy - *ky) * across_y) + ((1.0f - *ky) * sat(-a) * along);
    *kx *= 1.0f + (EDGE_SHARPEN - 1.0f) * sharpen * across_x;
    *ky *= 1.0f + (EDGE_SHARPEN - 1.0f) * sharpen * across_y;
}

/* Re-expresses a history colour (YCoCg of the tonemapped, exposed colour) for a new exposure. */
static void rescale_history(float *ycc, float scale)
{
    float rgb[3];
    upf__ycocg_to_rgb(ycc, rgb);
    for (int k = 0; k < 3; k++)
        rgb[k] = rgb[k] > 0.0f ? rgb[k] : 0.0f;
    upf__tonemap_inverse(rgb);
    for (int k = 0; k < 3; k++)
        rgb[k] *= scale;
    upf__tonemap(rgb);
    upf__rgb_to_ycocg(rgb, ycc);
}

static void acc_row(void *priv, int Y, int worker)
{
    (void)worker;
    const acc_job *job = priv;
    const upf__accumulate_con *c = job->con;
    const int rw = c->in_width, rh = c->in_height, ow = c->out_width, oh = c->out_height;
    const float rx = c->ratio_x, ry = c->ratio_y;
    const float sy = ((float)Y + 0.5f) / ry;
    const int iy = clampi((int)floorf(sy - c->jitter_y), 0, rh - 1);
    const float uy = sy - 0.5f - c->jitter_y;
    const int by = (int)floorf(uy);
    for (int X = 0; X < ow; X++) {
        const float sx = ((float)X + 0.5f) / rx;
        const int ix = clampi((int)floorf(sx - c->jitter_x), 0, rw - 1);
        const size_t ni = (size_t)iy * rw + ix;
        const float *mv = job->motion + 2 * ni;
        const float dis = job->react[2 * ni], react = job->react[2 * ni + 1];
        const float lock_now = job->locks[ni];

        /* 2. the history */
        const float speed = sqrtf(mv[0] * rx * mv[0] * rx + mv[1] * ry * mv[1] * ry);
        const float still = sat(1.0f - speed);
        const float ramp = ratio_ramp(rx, ry);
        const float hx = (float)X + 0.5f + mv[0] * rx, hy = (float)Y + 0.5f + mv[1] * ry;
        const bool valid = !c->reset && hx >= 0.0f && hx <= (float)ow && hy >= 0.0f &&
                           hy <= (float)oh;
        float hist[4] = { 0, 0, 0, 0 };
        uint32_t st = 0;
        float Wh = 0.0f;
        if (valid) {
            sample_history(job, hx, hy, HISTORY_SOFT * (1.0f - still) * ramp, hist);
            if (c->history_scale != 1.0f)
                rescale_history(hist, c->history_scale);
            st = job->state[(size_t)clampi((int)hy, 0, oh - 1) * ow + clampi((int)hx, 0, ow - 1)];
            Wh = hist[3] * (1.0f - dis) * (1.0f - react);
        }
        /* 3. confidence */
        const float conf = sat(Wh / c->weight_ramp);
        float kx = kernel_scale(rx, conf, speed, ramp);
        float ky = kernel_scale(ry, conf, speed, ramp);
        const float *nb[9];
        neighbourhood(job, ix, iy, nb);
        /* the 3x3 around the nearest sample: mean, second moment, range */
        float m1[3] = { 0, 0, 0 }, m2[3] = { 0, 0, 0 };
        float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
        for (int k = 0; k < 9; k++) {
            const float *p = nb[k];
            for (int ch = 0; ch < 3; ch++) {
                m1[ch] += p[ch];
                m2[ch] += p[ch] * p[ch];
                lo[ch] = p[ch] < lo[ch] ? p[ch] : lo[ch];
                hi[ch] = p[ch] > hi[ch] ? p[ch] : hi[ch];
            }
        }
        /* along an edge: a still pixel's whole (issue 35), a moving one's by ratio_ramp;
         * across it narrower on a still one (EDGE_SHARPEN) */
        const float along = conf * (1.0f - (1.0f - still) * (1.0f - ramp));
        const float bright = sat((hi[0] - EDGE_SHARPEN_BRIGHT) * 20.0f);
        const float sharpen = still * conf * ramp * (1.0f - bright);
        edge_kernel(edge_axis(nb), conf, along, sharpen, rx, ry, &kx, &ky);

        /* 4. this frame's samples */
        const float ux = sx - 0.5f - c->jitter_x;
        const int bx = (int)floorf(ux);
        float wx[4], wy[4];
        weights4(job->lanczos, ux, bx - 1, kx, wx);
        weights4(job->lanczos, uy, by - 1, ky, wy);
        float acc[3] = { 0, 0, 0 }, wsum = 0.0f;
        for (int ty = 0; ty < 4; ty++) {
            const float *row = job->color + (size_t)clampi(by - 1 + ty, 0, rh - 1) * rw * 4;
            for (int tx = 0; tx < 4; tx++) {
                const float *p = row + (size_t)clampi(bx - 1 + tx, 0, rw - 1) * 4;
                float w = wx[tx] * wy[ty];
                acc[0] += w * p[0], acc[1] += w * p[1], acc[2] += w * p[2];
                wsum += w;
            }
        }
        float est[3];
        const float *near = job->color + ni * 4;
        for (int ch = 0; ch < 3; ch++) {
            float v = wsum > 1e-3f ? acc[ch] / wsum : near[ch];
            est[ch] = clampf(v, lo[ch], hi[ch]);
        }
        const float est_y = est[0];
        if (c->fill && conf < 1.0f) {
            float f[3], rgb[3], fy[3];
            sample_fill(job, X, Y, f);
            for (int ch = 0; ch < 3; ch++)
                rgb[ch] = f[ch] > 0.0f ? f[ch] : 0.0f;
            upf__tonemap(rgb);
            upf__rgb_to_ycocg(rgb, fy);
            /* T(1) = 1/2: above that the fill (clamped to [0, 1] linear) cannot follow. */
            float hdr = sat((hi[0] - 0.45f) * 20.0f);
            float t = (1.0f - conf) * (1.0f - hdr);
            for (int ch = 0; ch < 3; ch++) { /* held to the samples' range, as the estimate */
                fy[ch] = clampf(fy[ch], lo[ch], hi[ch]);
                est[ch] += (fy[ch] - est[ch]) * t;
            }
        }
        const float share = 1.0f - (1.0f - still_share(rx, ry)) * still * conf;
        const float wcur = (wsum > 0.0f ? wsum : 0.0f) * (kx * ky) / (rx * ry) * share;

        /* 5.-6. rectify and blend */
        float out[3];
        float wnew;
        int l1 = (int)((st >> 8) & 255u), l2 = (int)((st >> 16) & 255u), l3 = (int)(st >> 24);
        const int l0 = (int)luma_code(est_y);
        float life = valid && Wh > 0.0f ? (float)(st & 255u) / 255.0f - c->lock_decay : 0.0f;
        if (lock_now > 0.5f)
            life = 1.0f;
        life = sat(life);
        if (Wh > 0.0f) {
            const float g = c->box_moving + (c->box_still - c->box_moving) * still * conf;
            float t = 1.0f, box_lo[3], box_hi[3];
            for (int ch = 0; ch < 3; ch++) {
                float mean = m1[ch] * (1.0f / 9.0f);
                float var = m2[ch] * (1.0f / 9.0f) - mean * mean;
                float ext = g * sqrtf(var > 0.0f ? var : 0.0f) + 1.0f / 1024.0f;
                /* the samples' range, widened on a still, confident pixel (RANGE_STILL) */
                float wide = RANGE_STILL * still * conf * (hi[ch] - lo[ch]);
                float bl = fmaxf(mean - ext, lo[ch] - wide);
                float bh = fminf(mean + ext, hi[ch] + wide);
                box_lo[ch] = bl, box_hi[ch] = bh;
                float off = hist[ch] - mean;
                if (off > 0.0f && mean + off > bh)
                    t = fminf(t, (bh - mean) / off);
                else if (off < 0.0f && mean + off < bl)
                    t = fminf(t, (bl - mean) / off);
                m1[ch] = mean;
            }
            t = t > 0.0f ? t : 0.0f;
            const float relax = fmaxf(life, oscillates(l0, l1, l2, l3)) * still * (1.0f - react);
            const float keep = t + (1.0f - t) * relax; /* the share of the offset kept */
            /* on a moving pixel each channel clamped into the box instead (the clamp's note
             * atop); the distrust below still counts the clip's move */
            const float clamp = (1.0f - still) * ramp;
            float moved = 0.0f;
            for (int ch = 0; ch < 3; ch++) {
                float h = m1[ch] + (hist[ch] - m1[ch]) * keep;
                moved += fabsf(h - hist[ch]);
                float hc = clampf(hist[ch], box_lo[ch], box_hi[ch]);
                hist[ch] = h + (hc - h) * clamp;
            }
            float wmax = c->weight_max / (1.0f + speed / c->speed_half);
            float wh = Wh < wmax ? Wh : wmax;
            const float distrust = CLIP_DISTRUST_MOVING +
                                   (CLIP_DISTRUST_STILL - CLIP_DISTRUST_MOVING) * still;
            wh /= 1.0f + distrust * moved; /* a history the clip moved is trusted less */
            const float sum = wh + wcur;
            for (int ch = 0; ch < 3; ch++)
                out[ch] = sum > 0.0f ? (wh * hist[ch] + wcur * est[ch]) / sum : est[ch];
            wnew = sum;
        } else {
            out[0] = est[0], out[1] = est[1], out[2] = est[2];
            wnew = wcur;
        }
        /* 8. the shown colour's offset from the history: a dead band on a still pixel */
        float off[3] = { 0, 0, 0 };
        if (Wh > 0.0f) {
            const size_t i = (size_t)Y * ow + X;
            const float band = upf__display_band(out[0]), s = still * conf;
            upf__display_unpack(job->display[i], off);
            for (int ch = 0; ch < 3; ch++) {
                float d = (job->hist[4 * i + ch] + off[ch] - out[ch]) * s * DISPLAY_KEEP;
                off[ch] = d > band ? band : d < -band ? -band : d;
            }
        }
        job->display_out[(size_t)Y * ow + X] = upf__display_pack(off);
        float *ho = job->hist_out + ((size_t)Y * ow + X) * 4;
        ho[0] = out[0], ho[1] = out[1], ho[2] = out[2], ho[3] = wnew;
        if (!(Wh > 0.0f))
            l1 = l2 = l0; /* a new pixel starts its luma record now */
        job->state_out[(size_t)Y * ow + X] = (uint32_t)(life * 255.0f + 0.5f) |
                                             (uint32_t)l0 << 8 | (uint32_t)l1 << 16 |
                                             (uint32_t)l2 << 24;
    }
}

upf_result upf__accumulate_pass(const upf__pass_args *a)
{
    const upf__accumulate_con *con = a->con;
    const upf__surface *s = a->surface;
    acc_job job = { con, s[UPF__TP_COLOR].data, s[UPF__TP_DILATED_MOTION].data,
                    s[UPF__TP_REACTIVITY].data, s[UPF__TP_LOCKS].data,
                    con->fill ? s[UPF__TP_FILL].data : NULL, s[UPF__TP_LANCZOS].data,
                    s[UPF__TP_HISTORY].data, s[UPF__TP_STATE].data, s[UPF__TP_DISPLAY].data,
                    s[UPF__TP_HISTORY_NEXT].data, s[UPF__TP_STATE_NEXT].data,
                    s[UPF__TP_DISPLAY_NEXT].data };
    upf__parallel_for(a->ctx, acc_row, &job, con->out_height);
    return UPF_OK;
}
