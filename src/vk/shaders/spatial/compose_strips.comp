/* compose_strips.comp: the compose pass by subgroup strips, on a device with subgroup shuffles
 * (CPU reference: src/spatial/compose.c; the formulas are compose.comp's, the same sums in the
 * same order, so the same pictures bit for bit; docs/VULKAN.md, "How each shader works").
 *
 * Reads: the frame (binding 6), the detail map (7), linear's alpha (1, when range B > 0),
 * range (8), the taps table (11, compose_taps.glsl), the sRGB tables (12). Writes: the
 * destination (9), as compose.comp.
 *
 * A subgroup of S invocations (specialisation constant 0, SUBGROUP: the device's subgroup
 * size) makes a strip of m output columns and ROWS output rows (constant 1). Lane i holds
 * footprint column f0 + i of the frame (f0: the strip's first tap), and for each output row
 * makes that column's vertical sum; output column X0 + i then takes its n_taps columns' sums
 * from their lanes by subgroupShuffle and sums them horizontally. No shared memory and no
 * barrier: compose.comp's tile copies its taps to shared memory, sums into it and waits
 * twice. The strip is as wide as the footprint fits the subgroup:
 *   m = min(S, floor((S - n_taps) * W_out / W_in) + 1),
 * since m outputs reach at most ceil((m - 1) * W_in / W_out) + n_taps frame columns (their
 * positions step by W_in / W_out; each reads n_taps from the floor of its position): 32 at
 * 4/3 and 2x with S = 32. It stores all m, or with the sharpen (SHARPEN, sharpness > 0) the
 * m - 2 inside: the first and last are their neighbours, and each row is made one row ahead
 * of its store, for the neighbours below (the row above the strip made first). The backend
 * dispatches with the same width (vk_spatial.c's strip_width).
 * Down a strip the taps' rows move by one row or none from one output row to the next (ratio
 * >= 1): each lane keeps the frame's values of the last row's taps in registers (the window)
 * and loads only the row that enters, instead of n_taps rows an output row.
 * Workgroup 128 invocations, 128 / S strips one above another; grid ceil(W_out / stored) x
 * ceil(H_out / (128 / S * ROWS)). The column's taps (base and detail map) are loaded once a
 * strip, each row's once a row (the same address in every lane). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const int SUBGROUP = 32;
layout(constant_id = 1) const int ROWS = 8;
layout(constant_id = 2) const bool SHARPEN = false; /* sharpness > 0: the sharpen below */
layout(constant_id = 3) const int BASE_TAPS = 2;    /* as compose.comp's */
layout(constant_id = 4) const bool MAP = true;
layout(constant_id = 5) const bool SRGB_BASE = false;

#include "color.glsl"
#include "compose_taps.glsl"
#include "compose_common.glsl"

/* This invocation's state: its output column's taps (for every row of the strip), its
 * footprint column fx, and the window: the frame's values at column fx and the rows prev[j]
 * (the rows the last output row's taps read). Every array index below is a constant: an
 * array indexed by a value lives in local memory (compose took twice as long on the H100
 * when the window was). */
const int N_TAPS = BASE_TAPS == 4 || BASE_TAPS == 6 ? BASE_TAPS : 2; /* the base's taps */
const bool CUBIC = N_TAPS == 4;
int fx, f0;
bool full_alpha, fused, map, srgb_direct;
int cidx[TAPS];
float cw[TAPS];
ivec2 dxi;
vec2 dxw;
vec4 win[TAPS];
int prev[TAPS];

/* o of this lane's output column at output row y (before the sharpen). */
vec4 row_o(int y)
{
    const int n = N_TAPS; /* a constant: the tap loops unroll */
    const uint orow = uint(pc.out_width + y) * UPF_TAPS_WORDS;
    int ridx[TAPS];
    float rw[TAPS];
    for (int j = 0; j < 3; j++) {
        const ivec2 pair = upf_taps_unpack16(taps[orow + uint(j)]);
        ridx[2 * j] = pair.x;
        ridx[2 * j + 1] = pair.y;
    }
    for (int j = 0; j < TAPS; j++)
        rw[j] = uintBitsToFloat(taps[orow + UPF_TAPS_WEIGHTS + uint(j)]);
    vec4 ds = vec4(0.0);
    vec2 dyw = vec2(1.0, 0.0);
    if (map) { /* this pixel's four map samples, asked for before the sums */
        const ivec2 dyi = upf_taps_unpack16(taps[orow + UPF_TAPS_DETAIL]);
        const float df = uintBitsToFloat(taps[orow + UPF_TAPS_DETAIL_F]);
        dyw = vec2(1.0 - df, df);
        const uint w = uint(pc.map_width);
        ds = vec4(detail[uint(dyi.x) * w + uint(dxi.x)], detail[uint(dyi.y) * w + uint(dxi.x)],
                  detail[uint(dyi.x) * w + uint(dxi.y)], detail[uint(dyi.y) * w + uint(dxi.y)]);
    }
    /* The window: the same rows as the last output row (nothing to load), the rows one on
     * (shift, load the one that enters: clamped rows move the same way at the frame's
     * edges), or others (the first row: load all). A translucent frame's alpha (range B > 0)
     * at full precision in .a, as compose.comp sums it. Uniform over the subgroup. */
    bool same = true, next = true;
    for (int j = 0; j < n; j++)
        same = same && ridx[j] == prev[j];
    for (int j = 0; j + 1 < n; j++)
        next = next && ridx[j] == prev[j + 1];
    if (!same) {
        if (next) {
            for (int j = 0; j + 1 < n; j++)
                win[j] = win[j + 1];
            win[n - 1] = frame_px(fx, ridx[n - 1], CUBIC);
            if (full_alpha)
                win[n - 1].a = frame_alpha(fx, ridx[n - 1], fused);
        } else {
            for (int j = 0; j < n; j++)
                win[j] = frame_px(fx, ridx[j], CUBIC);
            if (full_alpha)
                for (int j = 0; j < n; j++)
                    win[j].a = frame_alpha(fx, ridx[j], fused);
        }
        for (int j = 0; j < n; j++)
            prev[j] = ridx[j];
    }
    /* The column's vertical sum, in tap order from 0 (compose.comp's VSUM). */
    precise vec4 vs = vec4(0.0);
    for (int j = 0; j < n; j++)
        vs += rw[j] * win[j];
    /* The output's horizontal sum of its columns' sums, from their lanes (HSUM). */
    vec4 h[TAPS];
    for (int j = 0; j < n; j++)
        h[j] = subgroupShuffle(vs, uint(cidx[j] - f0));
    precise vec4 acc = vec4(0.0);
    for (int j = 0; j < n; j++)
        acc += cw[j] * h[j];
    const vec4 base = compose_base(acc, n, srgb_direct);
    const float d = map ? compose_detail(ds, dyw, dxw) : 0.0;
    return compose_o(base, d, srgb_direct);
}

void main()
{
    full_alpha = range[2] > 0.0;
    fused = (pc.fuse & UPF_VK_FUSE_ENCODE) != 0u; /* linear is an alpha plane */
    map = compose_reads_map();
    srgb_direct = compose_srgb_direct(map);
    /* The columns a strip computes, and those it stores: with the sharpen its first and last
     * are the left and right neighbours of the stored ones (the output's border: clamped to
     * the image, as the sharpen's neighbours are). */
    const int cols = min(SUBGROUP, (SUBGROUP - N_TAPS) * pc.out_width / pc.in_width + 1);
    const int border = SHARPEN ? 1 : 0;
    const int lane = int(gl_SubgroupInvocationID);
    const int x0 = int(gl_WorkGroupID.x) * (cols - 2 * border); /* the first stored column */
    const int y0 = (int(gl_WorkGroupID.y) * int(gl_NumSubgroups) + int(gl_SubgroupID)) * ROWS;
    if (y0 >= pc.out_height) /* a strip below the image (the whole subgroup) */
        return;
    /* This lane's output column (the last one for lanes past the strip: they only make a
     * footprint column's sums) and its taps. */
    const int xs = x0 - border + min(lane, cols - 1);
    const int x = clamp(xs, 0, pc.out_width - 1);
    const bool stores = lane >= border && lane < cols - border && xs < pc.out_width;
    const uint oc = uint(x) * UPF_TAPS_WORDS;
    for (int j = 0; j < 3; j++) {
        const ivec2 pair = upf_taps_unpack16(taps[oc + uint(j)]);
        cidx[2 * j] = pair.x;
        cidx[2 * j + 1] = pair.y;
    }
    for (int j = 0; j < TAPS; j++)
        cw[j] = uintBitsToFloat(taps[oc + UPF_TAPS_WEIGHTS + uint(j)]);
    dxi = ivec2(0);
    dxw = vec2(1.0, 0.0);
    if (map) {
        dxi = upf_taps_unpack16(taps[oc + UPF_TAPS_DETAIL]);
        const float df = uintBitsToFloat(taps[oc + UPF_TAPS_DETAIL_F]);
        dxw = vec2(1.0 - df, df);
    }
    /* The footprint: lane 0's first tap (lane 0 is the strip's first column), then one
     * column a lane, clamped to the frame (a lane past the footprint is read by nobody). */
    f0 = subgroupShuffle(cidx[0], 0u);
    fx = min(f0 + lane, pc.in_width - 1);
    for (int j = 0; j < TAPS; j++)
        prev[j] = -1;
    const int last = min(y0 + ROWS, pc.out_height) - 1; /* the strip's last stored row */
    if (!SHARPEN) {
        [[dont_unroll]] for (int y = y0; y <= last; y++) {
            const vec4 o = row_o(y);
            if (stores)
                compose_store(ivec2(xs, y), o, srgb_direct);
        }
        return;
    }
    /* The sharpen: + k (1.25 L - 0.3125 (L_left + L_right + L_up + L_down)), L the luma of o,
     * the neighbours clamped to the output: the rows above and below from the row before
     * and the row after (made one row ahead), left and right from the lanes beside. */
    const float k = pc.sharpness;
    vec4 o = row_o(max(y0 - 1, 0)), o_next = o;
    float l_up = upf_luma(o.r, o.g, o.b), l = l_up, l_down = l_up;
    o = row_o(y0);
    l = upf_luma(o.r, o.g, o.b);
    [[dont_unroll]] for (int y = y0; y <= last; y++) {
        o_next = row_o(min(y + 1, pc.out_height - 1));
        l_down = upf_luma(o_next.r, o_next.g, o_next.b);
        const float l_left = subgroupShuffle(l, uint(max(lane - 1, 0)));
        const float l_right = subgroupShuffle(l, uint(min(lane + 1, SUBGROUP - 1)));
        vec4 out_o = o;
        if (k != 0.0) {
            precise float around = ((l_left + l_right) + l_up) + l_down;
            precise float sharpen = k * (1.25 * l - 0.3125 * around);
            for (int c = 0; c < 3; c++) {
                precise float v = o[c] + sharpen;
                out_o[c] = v > 0.0 ? v : 0.0;
            }
        }
        if (stores)
            compose_store(ivec2(xs, y), out_o, srgb_direct);
        l_up = l;
        o = o_next;
        l = l_down;
    }
}
