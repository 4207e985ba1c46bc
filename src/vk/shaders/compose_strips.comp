/* compose_strips.comp: the compose pass by subgroup strips, for an engine that does not
 * sharpen (sharpness 0, the library's default) on a device with subgroup shuffles (CPU
 * reference: src/spatial/compose.c; the formulas are compose.comp's, the same sums in the same
 * order, so the same pictures bit for bit; docs/VULKAN.md, "How each shader works").
 *
 * Reads: the frame (binding 6), the detail map (7), linear's alpha (1, when range B > 0),
 * range (8), the taps table (11, compose_taps.glsl), the sRGB tables (12). Writes: the
 * destination (9), as compose.comp.
 *
 * A subgroup of S invocations (specialisation constant 0, SUBGROUP: the device's subgroup
 * size) makes a strip of n output columns and ROWS output rows (constant 1). Lane i holds
 * footprint column f0 + i of the frame (f0: the strip's first tap), and for each output row
 * makes that column's vertical sum; output column X0 + i then takes its n_taps columns' sums
 * from their lanes by subgroupShuffle and sums them horizontally. No shared memory and no
 * barrier: compose.comp's tile copies its taps to shared memory, sums into it and waits
 * twice. The strip is as wide as the footprint fits the subgroup:
 *   n = min(S, floor((S - n_taps) * W_out / W_in) + 1),
 * since n outputs reach at most ceil((n - 1) * W_in / W_out) + n_taps frame columns (their
 * positions step by W_in / W_out; each reads n_taps from the floor of its position): 32 at
 * 4/3 and 2x with S = 32. The backend dispatches with the same n (vk_spatial.c).
 * Down a strip the taps' rows move by one row or none from one output row to the next (ratio
 * >= 1): each lane keeps the frame's values of the last row's taps in registers (the window)
 * and loads only the row that enters, instead of n_taps rows an output row.
 * Workgroup 128 invocations, 128 / S strips one above another; grid ceil(W_out / n) x
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
layout(constant_id = 2) const bool SHARPEN = false; /* never true: compose.comp sharpens */
layout(constant_id = 3) const int BASE_TAPS = 2;    /* as compose.comp's */
layout(constant_id = 4) const bool MAP = true;
layout(constant_id = 5) const bool SRGB_BASE = false;

#include "color.glsl"
#include "compose_taps.glsl"
#include "compose_common.glsl"

void main()
{
    const int n = BASE_TAPS == 4 || BASE_TAPS == 6 ? BASE_TAPS : 2;
    const bool cubic = n == 4;
    const bool full_alpha = range[2] > 0.0;
    const bool fused = (pc.fuse & UPF_VK_FUSE_ENCODE) != 0u; /* linear is an alpha plane */
    const bool map = MAP && (pc.fuse & UPF_VK_FUSE_NO_MAP) == 0u;
    const bool srgb_direct = SRGB_BASE && !map && pc.dst_transfer == 1u && !(range[0] > 0.0);
    const int strip = min(SUBGROUP, (SUBGROUP - n) * pc.out_width / pc.in_width + 1);
    const int lane = int(gl_SubgroupInvocationID);
    const int x0 = int(gl_WorkGroupID.x) * strip;
    const int y0 = (int(gl_WorkGroupID.y) * int(gl_NumSubgroups) + int(gl_SubgroupID)) * ROWS;
    /* This lane's output column (the last one for lanes past the strip or the image: they
     * only make a footprint column's sums) and its taps, for every row of the strip. */
    const int x = min(x0 + min(lane, strip - 1), pc.out_width - 1);
    const bool stores = lane < strip && x0 + lane < pc.out_width;
    const uint oc = uint(x) * UPF_TAPS_WORDS;
    int cidx[TAPS];
    float cw[TAPS];
    for (int j = 0; j < 3; j++) {
        const ivec2 pair = upf_taps_unpack16(taps[oc + uint(j)]);
        cidx[2 * j] = pair.x;
        cidx[2 * j + 1] = pair.y;
    }
    for (int j = 0; j < TAPS; j++)
        cw[j] = uintBitsToFloat(taps[oc + UPF_TAPS_WEIGHTS + uint(j)]);
    ivec2 dxi = ivec2(0);
    vec2 dxw = vec2(1.0, 0.0);
    if (map) {
        dxi = upf_taps_unpack16(taps[oc + UPF_TAPS_DETAIL]);
        const float df = uintBitsToFloat(taps[oc + UPF_TAPS_DETAIL_F]);
        dxw = vec2(1.0 - df, df);
    }
    /* The footprint: lane 0's first tap (lane 0 is the strip's first column), then one
     * column a lane, clamped to the frame (a lane past the footprint is read by nobody). */
    const int f0 = subgroupShuffle(cidx[0], 0u);
    const int fx = min(f0 + lane, pc.in_width - 1);

    vec4 win[TAPS]; /* the frame's values at column fx and the rows prev[j] */
    int prev[TAPS];
    for (int j = 0; j < TAPS; j++)
        prev[j] = -1;
    /* Not unrolled: the rows' loop stays a loop, as in the form measured. */
    [[dont_unroll]] for (int r = 0; r < ROWS; r++) {
        const int y = y0 + r;
        if (y >= pc.out_height) /* the same for the whole subgroup */
            break;
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
        /* The window: the same rows as the last output row (nothing to load), the rows one
         * on (shift, load the one that enters: clamped rows move the same way at the
         * frame's edges), or others (the first row: load all). A translucent frame's alpha
         * (range B > 0) at full precision in .a, as compose.comp sums it. */
        bool same = true, next = true;
        for (int j = 0; j < n; j++)
            same = same && ridx[j] == prev[j];
        for (int j = 0; j + 1 < n; j++)
            next = next && ridx[j] == prev[j + 1];
        if (!same) { /* every index a constant: an array indexed by a value would live in
                      * local memory (twice compose's time on the H100) */
            if (next) {
                for (int j = 0; j + 1 < n; j++)
                    win[j] = win[j + 1];
                win[n - 1] = frame_px(fx, ridx[n - 1], cubic);
                if (full_alpha)
                    win[n - 1].a = frame_alpha(fx, ridx[n - 1], fused);
            } else {
                for (int j = 0; j < n; j++)
                    win[j] = frame_px(fx, ridx[j], cubic);
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
        if (stores)
            compose_store(ivec2(x0 + lane, y), compose_o(base, d, srgb_direct), srgb_direct);
    }
}
