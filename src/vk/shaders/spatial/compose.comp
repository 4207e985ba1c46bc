/* compose.comp: the compose pass on the GPU, the second half of the upscale (CPU reference:
 * src/spatial/compose.c; docs/SPATIAL.md, "Pass 4" and "Geometry").
 *
 * Reads: the frame (binding 6), the detail map (binding 7), linear (binding 1, for alpha at
 * full precision when range B > 0; only its alpha plane with fuse bit UPF_VK_FUSE_ENCODE),
 * range (binding 8), the taps table (binding 11, made this
 * frame by compose_taps.comp, laid out as compose_taps.glsl says), the sRGB tables (binding 12,
 * for the sRGB-Lanczos base). Writes: the destination (binding 9, a
 * storage image, at the destination rectangle's offset + pixel; sRGB-encoded in the shader
 * when dst_transfer = 1).
 *
 * Output pixel (X, Y), as compose.c:
 *  - base: the frame at x = (X + 0.5) * W_in / W_out - 0.5 (y likewise), by the model's base
 *    flags (docs/SPATIAL.md): bilinear in sqrt space (none); Catmull-Rom in linear light, the
 *    result clamped at 0 and square-rooted (UPF_MODEL_FLAG_CUBIC_BASE); Lanczos-3 in sqrt
 *    space, not clamped (UPF_MODEL_FLAG_SQRT_LANCZOS_BASE); Lanczos-3 on each code's sRGB
 *    value (binding 12's table, the CPU's upf__srgb_of_code), the sum taken to sqrt space by
 *    sqrt_of_srgb below, not clamped (UPF_MODEL_FLAG_SRGB_LANCZOS_BASE). Separable, rows
 *    first, every sum in tap order from 0 as the CPU's; a kernel base clamps alpha to [0, 1];
 *  - detail: the map bilinearly at (X + 0.5) * (W_in * 12 / s) / W_out - 0.5;
 *  - o = max(base + detail, 0)^2 on R, G, B; alpha the base's (or linear's alpha through the
 *    same filter when range B > 0);
 *  - the sharpen: + k * (1.25 L - 0.3125 (L_left + L_right + L_up + L_down)), L the luma of
 *    o, neighbours clamped to the output; clamped at 0 (k = 0: o as it is);
 *  - when convert tone-mapped (range R > 0): c = c' * min(1 / (1 - max(c')), 1 + M).
 * The taps (sample positions and weights) are compose_taps.comp's, which says how exact
 * they are; bilinear taps are the CPU's products ((1 - f) a + f b), the frame's codes are
 * unpacked as code * (1 / 1023) (an ulp from the CPU's quotient, for a tenth of the
 * instructions of the exact one) and the cubic base's square root is the hardware's: the
 * output agrees with the CPU to a few float ulps before the output format rounds it (the sRGB
 * base's power is the hardware's, as the CPU's powf a few ulps from the exact value)
 * (tests/test_vk_passes.c).
 *
 * One workgroup of 256 invocations per TILE_X x TILE_Y output pixels (specialisation
 * constants 0 and 1: src/vk/ABI.md, "Dispatch"; TILE_X divides 256 and TILE_X * TILE_Y is a
 * multiple of 256; the backend uses 32 x 8, measured fastest on the H200), in three phases,
 * a barrier after each:
 *  1. the taps of the tile's columns and rows and, when the engine sharpens (specialisation
 *     constant 2, SHARPEN: sharpness > 0, fixed when the engine is made), a one-pixel border
 *     (the apron: AX = TILE_X + 2 columns, AY = TILE_Y + 2 rows; without the sharpen AX =
 *     TILE_X, AY = TILE_Y), the base's and the detail map's, copied from the taps table, a
 *     slot an invocation;
 *  2. the vertical sums, one per apron row and column of the frame's footprint (at most
 *     AX + 5 columns at ratio >= 1), each read straight from the frame (the taps of a row
 *     share its pixels, which the cache holds: no footprint copy in shared memory, one phase
 *     and one barrier fewer); meanwhile each invocation's detail-map samples load;
 *  3. o and its luma, each invocation those of its PPT = TILE_X * TILE_Y / 256 pixels (kept
 *     in registers for the sharpen), then the border's luma (SHARPEN only: without it there
 *     is no luma, no border and no third barrier);
 * then the sharpen, the tone map undone and the store. With fuse bit UPF_VK_FUSE_NO_MAP (a
 * model of strength 0: the backend records no detail pass) the map is not read and the
 * detail is 0, as the CPU's map of zeros gives. Shared memory 16 AY (AX + 6) + 4 AX AY
 * + 64 (AX + AY) bytes: 10576 at 32 x 8 with the apron, 8448 without (10512 and 8704 at 16 x 16).
 * Grid ceil(W_out / TILE_X) x ceil(H_out / TILE_Y). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const int TILE_X = 16;
layout(constant_id = 1) const int TILE_Y = 16;
layout(constant_id = 2) const bool SHARPEN = true;
/* The model's base, fixed when the engine is made (its model is): its taps a row or column,
 * 2 bilinear, 4 Catmull-Rom (UPF_MODEL_FLAG_CUBIC_BASE), 6 Lanczos-3
 * (UPF_MODEL_FLAG_SQRT_LANCZOS_BASE). As a constant it leaves one tap loop in the pass instead
 * of three behind run-time branches: compose 39.6 -> 36.0 us at 1536x864 -> 2048x1152 and
 * 142.6 -> 123.5 at 1080p -> 4K on the H200 (docs/PERFORMANCE.md). */
layout(constant_id = 3) const int BASE_TAPS = 2;
/* false: the pass never reads the detail map (the engine's model has strength 0, so no detail
 * pass runs and the map would be zeros); true: it reads it unless fuse bit
 * UPF_VK_FUSE_NO_MAP says otherwise. */
layout(constant_id = 4) const bool MAP = true;
/* true: the Lanczos-3 taps (BASE_TAPS 6) sum the frame's sRGB values, not its sqrt values
 * (UPF_MODEL_FLAG_SRGB_LANCZOS_BASE). */
layout(constant_id = 5) const bool SRGB_BASE = false;

#include "color.glsl"
#include "compose_taps.glsl"
#include "compose_common.glsl"

const int APRON = SHARPEN ? 1 : 0; /* the border the sharpen's neighbours need */
const int AX = TILE_X + 2 * APRON; /* the apron: the tile and its border */
const int AY = TILE_Y + 2 * APRON;
const int NSLOT = AX + AY;      /* tap slots: the apron's columns, then its rows */
const int FOOT = AX + 6;        /* the frame's footprint of AX outputs at ratio >= 1: at most
                                 * AX - 1 + 6 pixels */
const int PPT = TILE_X * TILE_Y / 256; /* pixels per invocation */
const int ROWS = 256 / TILE_X;  /* tile rows one pass of the workgroup covers */
const int RING = 2 * AX + 2 * TILE_Y;
/* The base's n taps (bilinear as two taps weighted 1 - f and f: the same products as
 * upf__lerp) and the detail map's, per slot. */
shared int base_idx[NSLOT][TAPS];
shared float base_w[NSLOT][TAPS];
shared ivec2 det_idx[NSLOT];
shared vec2 det_w[NSLOT];
shared vec4 vsum[AY][FOOT];     /* the vertical sums: apron row x footprint column */
shared float lum[AY][AX];

/* The four map samples of apron entry (ax, ay). */
vec4 detail_samples(int ax, int ay)
{
    const ivec2 dx = det_idx[ax], dy = det_idx[AX + ay];
    const uint w = uint(pc.map_width);
    return vec4(detail[uint(dy.x) * w + uint(dx.x)], detail[uint(dy.y) * w + uint(dx.x)],
                detail[uint(dy.x) * w + uint(dx.y)], detail[uint(dy.y) * w + uint(dx.y)]);
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const ivec2 tile = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y);
    const int n = BASE_TAPS == 4 || BASE_TAPS == 6 ? BASE_TAPS : 2;
    const bool cubic = n == 4;
    const bool full_alpha = range[2] > 0.0;
    const bool fused = (pc.fuse & UPF_VK_FUSE_ENCODE) != 0u; /* linear is an alpha plane */
    const bool map = compose_reads_map();
    const bool srgb_direct = compose_srgb_direct(map);

    /* 1. The taps of the apron's AX columns and AY rows, the base's and the detail map's,
     * from the table compose_taps.comp made for this frame (compose_taps.glsl). */
    for (uint slot = tid; slot < uint(NSLOT); slot += 256u) {
        const bool row = slot >= uint(AX);
        const int a = int(slot) - (row ? AX : 0);
        const int out_size = row ? pc.out_height : pc.out_width;
        const int x = clamp((row ? tile.y : tile.x) - APRON + a, 0, out_size - 1);
        const uint o = uint(row ? pc.out_width + x : x) * UPF_TAPS_WORDS;
        for (int j = 0; j < 3; j++) {
            const ivec2 pair = upf_taps_unpack16(taps[o + uint(j)]);
            base_idx[slot][2 * j] = pair.x;
            base_idx[slot][2 * j + 1] = pair.y;
        }
        for (int j = 0; j < TAPS; j++)
            base_w[slot][j] = uintBitsToFloat(taps[o + UPF_TAPS_WEIGHTS + uint(j)]);
        if (map) {
            const float df = uintBitsToFloat(taps[o + UPF_TAPS_DETAIL_F]);
            det_idx[slot] = upf_taps_unpack16(taps[o + UPF_TAPS_DETAIL]);
            det_w[slot] = vec2(1.0 - df, df);
        }
    }
    barrier();

    /* 2. The vertical sums (rows first, in tap order from 0) for each apron row and
     * footprint column, from the frame; the tap loop written out for each n so that it
     * unrolls. The slots run over the AY x fsize sums the tile has (232 at 32 x 8 and 4/3,
     * 168 at 2x: one round of the workgroup's 256 invocations), a slot's row found without an
     * integer division by the run-time fsize: ay = floor((k + 0.5) / fsize) in float, exact
     * since (k + 0.5) / fsize stays at least 0.5 / FOOT from an integer and the roundings
     * of the reciprocal and the product (a few ulps) stay below AY * 2^-21. (Laid over FOOT
     * columns, a division by a constant, they took two rounds, the second mostly idle:
     * compose 47.1 -> 39.3 us at 1536x864 -> 2048x1152 and 171.6 -> 142.5 at 1080p -> 4K on
     * the H200, docs/PERFORMANCE.md.) First each
     * invocation's map samples are asked for, to arrive while the sums are made. A
     * translucent frame's alpha is summed again from linear, by the same taps in the same
     * order, in a loop of its own behind one uniform branch (not a branch a tap). */
    const ivec2 lp0 = ivec2(int(tid % uint(TILE_X)), int(tid / uint(TILE_X)));
    vec4 dsamp[PPT];
    for (int r = 0; r < PPT; r++)
        dsamp[r] = map ? detail_samples(lp0.x + APRON, lp0.y + r * ROWS + APRON) : vec4(0.0);
    const int f0 = base_idx[0][0];
    const int fsize = min(base_idx[AX - 1][n - 1] - f0 + 1, FOOT);
    const float inv_fsize = 1.0 / float(fsize);
#define VSUM(N)                                                                              \
    for (uint k = tid; k < uint(AY * fsize); k += 256u) {                                     \
        const int ay = int((float(k) + 0.5) * inv_fsize), fx = int(k) - ay * fsize;            \
        vec4 v[N];                                                                             \
        for (int j = 0; j < N; j++)                                                            \
            v[j] = frame_px(f0 + fx, base_idx[AX + ay][j], cubic);                            \
        precise vec4 acc = vec4(0.0);                                                          \
        for (int j = 0; j < N; j++)                                                            \
            acc += base_w[AX + ay][j] * v[j];                                                  \
        if (full_alpha) {                                                                      \
            float a[N];                                                                        \
            for (int j = 0; j < N; j++)                                                        \
                a[j] = frame_alpha(f0 + fx, base_idx[AX + ay][j], fused);                      \
            precise float acc_a = 0.0;                                                         \
            for (int j = 0; j < N; j++)                                                        \
                acc_a += base_w[AX + ay][j] * a[j];                                            \
            acc.a = acc_a;                                                                     \
        }                                                                                      \
        vsum[ay][fx] = acc;                                                                    \
    }
    if (n == 4) {
        VSUM(4)
    } else if (n == 6) {
        VSUM(6)
    } else {
        VSUM(2)
    }
    barrier();

    /* 3. o and its luma: each invocation its own pixels' (kept in registers), then the
     * border's luma. */
#define HSUM(N)                                                                              \
    for (int j = 0; j < N; j++)                                                                \
        acc += base_w[ax][j] * vsum[ay][base_idx[ax][j] - f0];
#define COMPOSE_O(AXV, AYV, DS, O)                                                           \
    {                                                                                          \
        const int ax = (AXV), ay = (AYV);                                                      \
        precise vec4 acc = vec4(0.0);                                                          \
        if (n == 4) {                                                                          \
            HSUM(4)                                                                            \
        } else if (n == 6) {                                                                   \
            HSUM(6)                                                                            \
        } else {                                                                               \
            HSUM(2)                                                                            \
        }                                                                                      \
        const vec4 base = compose_base(acc, n, srgb_direct);                                   \
        const float d = map ? compose_detail((DS), det_w[AX + ay], det_w[ax]) : 0.0;           \
        O = compose_o(base, d, srgb_direct);                                                   \
        if (SHARPEN)                                                                           \
            lum[ay][ax] = upf_luma(O.r, O.g, O.b);                                             \
    }
    vec4 own[PPT];
    for (int r = 0; r < PPT; r++)
        COMPOSE_O(lp0.x + APRON, lp0.y + r * ROWS + APRON, dsamp[r], own[r])
    /* The border: rows 0 and AY - 1 (AX entries each), columns 0 and AX - 1 (TILE_Y each). */
    for (uint k = tid; SHARPEN && k < uint(RING); k += 256u) {
        const int t = int(k);
        const ivec2 at = t < 2 * AX ? ivec2(t % AX, t < AX ? 0 : AY - 1)
                                    : ivec2(t < 2 * AX + TILE_Y ? 0 : AX - 1,
                                            1 + (t - 2 * AX) % TILE_Y);
        vec4 ring;
        COMPOSE_O(at.x, at.y, map ? detail_samples(at.x, at.y) : vec4(0.0), ring)
    }
    if (SHARPEN)
        barrier();

    /* 4. The sharpen, the tone map undone, the store. The border entries of lum are the
     * clamped neighbours already. */
    const float k = pc.sharpness;
    for (int r = 0; r < PPT; r++) {
        const ivec2 lp = lp0 + ivec2(0, r * ROWS);
        const ivec2 p = tile + lp;
        if (p.x >= pc.out_width || p.y >= pc.out_height)
            continue;
        const int ax = lp.x + APRON, ay = lp.y + APRON;
        vec4 o = own[r];
        if (SHARPEN && k != 0.0) {
            precise float around = ((lum[ay][ax - 1] + lum[ay][ax + 1]) + lum[ay - 1][ax]) +
                                   lum[ay + 1][ax];
            precise float sharpen = k * (1.25 * lum[ay][ax] - 0.3125 * around);
            for (int c = 0; c < 3; c++) {
                precise float v = o[c] + sharpen;
                o[c] = v > 0.0 ? v : 0.0;
            }
        }
        compose_store(p, o, srgb_direct);
    }
}
