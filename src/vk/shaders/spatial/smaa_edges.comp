/* smaa_edges.comp: pass 1 of the spatial engine on the GPU, SMAA luma edge detection with
 * the edge flags packed into one word per 4x4 block (CPU reference: src/spatial/smaa_edges.c;
 * the rule in docs/SMAA.md, "Pass 1"; Jimenez et al., "SMAA", Eurographics 2012, 3.1).
 *
 * Reads: linear (binding 1), range (binding 8: M, range G). Writes: edges (binding 3, word (bx, by) at by * blocks_x + bx;
 * bit y*4+x the left edge of the block's pixel (x, y), bit 16+y*4+x its top edge) and the
 * frame (binding 6: every pixel's unblended sqrt 10:10:10:2 encoding; blend rewrites the
 * pixels that blend) and, when M > 1, range R = M / (1 + M) (one invocation). With detect =
 * 0 (UPF_SPATIAL_NO_SMAA) only the frame (and range R) is written. With fuse bit 2
 * (UPF_VK_FUSE_CODES: an 8-bit sRGB source, which is never tone-mapped) convert has written
 * the frame already: the luma's roots come from its codes by table (binding 12), the same
 * correctly rounded roots without computing them (edges 33.2 -> 12.6 us at 1536x864 on the
 * H200, docs/PERFORMANCE.md), and the frame is not written.
 *
 * Convert's tone map (tone_map.glsl) is applied here, to each loaded pixel, when M > 1: the
 * GPU's convert leaves linear as it was before the tone map.
 *
 * The edge words are bit for bit the CPU's: the luma is the CPU's expression, correctly
 * rounded (exact.glsl's sqrt, `precise` products and sums), and the tests are exact float
 * comparisons. Neighbours beyond the image clamp to the border pixel, which gives the CPU's
 * border rules (no left edges in column 0, no top edges in row 0, missing neighbours add
 * nothing to the local contrast).
 *
 * One workgroup of 16 x 16 invocations per 16 x 16 pixels (4 x 4 edge words): the luma of the
 * tile and its border (2 pixels left and above, 1 right and below) goes to shared memory,
 * each pixel computed once; each invocation then tests its own pixel, and 16 invocations
 * gather each block's bits into its word. Grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "color.glsl"
#include "tone_map.glsl"

layout(push_constant, std430) uniform Push {
    int width;
    int height;
    int blocks_x;
    int blocks_y;
    uint detect;
    UPF_PUSH_TAIL
} pc;

layout(set = 0, binding = 1, std430) readonly buffer Linear { vec4 linear[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Edges { uint edges[]; };
layout(set = 0, binding = 6, std430) buffer Frame { uint frame[]; };
/* convert's tables (vk_spatial.c): srgb8[768 + k] the float bits of the square root of the
 * linear value whose frame code is k (for the 256 codes an 8-bit sRGB value can have). */
layout(set = 0, binding = 12, std430) readonly buffer Srgb8 { uint srgb8[1792]; };
layout(set = 0, binding = 8, std430) buffer Range { float range[4]; };

const float UPF_SMAA_THRESHOLD = 0.1;  /* SMAA_THRESHOLD */
const float UPF_SMAA_LCA_FACTOR = 2.0; /* SMAA_LOCAL_CONTRAST_ADAPTATION_FACTOR */

#define APRON 19 /* 2 + 16 + 1 */
shared float luma[APRON][APRON]; /* luma[ly][lx] of pixel (x0 - 2 + lx, y0 - 2 + ly), clamped */
shared uint flags_of[16][16]; /* each pixel's two bits, in place in its block's word */

void main()
{
    const ivec2 origin = ivec2(gl_WorkGroupID.xy) * 16;
    const uint tid = gl_LocalInvocationIndex;
    const float m_frame = range[1];
    const bool tone_map = upf_tone_mapped(m_frame);
    const bool codes = (pc.fuse & UPF_VK_FUSE_CODES) != 0u; /* never tone-mapped */
    if (tone_map && gl_WorkGroupID.xy == uvec2(0u) && tid == 0u) {
        precise float den = 1.0 + m_frame;
        range[0] = m_frame / den;
    }

    /* Luma of the tile and its border; the tile's own pixels also go to the frame. */
    for (uint k = tid; k < uint(APRON * APRON); k += 256u) {
        ivec2 l = ivec2(int(k % uint(APRON)), int(k / uint(APRON)));
        ivec2 q = origin - 2 + l;
        ivec2 c = clamp(q, ivec2(0), ivec2(pc.width - 1, pc.height - 1));
        const uint at = uint(c.y) * uint(pc.width) + uint(c.x);
        if (codes) {
            /* convert wrote the frame (an 8-bit sRGB source): each code's exact root by
             * table, the same floats as upf_sqrt_rn of its linear value. */
            const uint w = frame[at];
            const vec3 roots = vec3(uintBitsToFloat(srgb8[768u + (w & 1023u)]),
                                    uintBitsToFloat(srgb8[768u + ((w >> 10u) & 1023u)]),
                                    uintBitsToFloat(srgb8[768u + ((w >> 20u) & 1023u)]));
            luma[l.y][l.x] = upf_luma(roots.r, roots.g, roots.b);
            continue;
        }
        vec4 v = linear[at];
        if (tone_map)
            v = upf_tone_map(v);
        vec3 roots = vec3(upf_sqrt_rn(v.r), upf_sqrt_rn(v.g), upf_sqrt_rn(v.b));
        luma[l.y][l.x] = upf_luma(roots.r, roots.g, roots.b);
        bool own = all(greaterThanEqual(l, ivec2(2))) && all(lessThan(l, ivec2(18)));
        if (own && q == c)
            frame[at] = upf_pack_roots1010102(roots, v.a);
    }
    if (pc.detect == 0u)
        return;
    barrier();

    const ivec2 lp = ivec2(gl_LocalInvocationID.xy);
    const ivec2 p = origin + lp;
    uint flags = 0u;
    if (p.x < pc.width && p.y < pc.height) {
        const int x = lp.x + 2, y = lp.y + 2;
        float l = luma[y][x];
        float dl = abs(l - luma[y][x - 1]);
        float dt = abs(l - luma[y - 1][x]);
        float dr = abs(l - luma[y][x + 1]);
        float db = abs(l - luma[y + 1][x]);
        float dll = abs(luma[y][x - 1] - luma[y][x - 2]);
        float dtt = abs(luma[y - 1][x] - luma[y - 2][x]);
        float m = max(max(max(dl, dt), max(dr, db)), max(dll, dtt));
        precise float ll = UPF_SMAA_LCA_FACTOR * dl;
        precise float lt = UPF_SMAA_LCA_FACTOR * dt;
        uint keep_l = dl >= UPF_SMAA_THRESHOLD && ll >= m ? 1u : 0u;
        uint keep_t = dt >= UPF_SMAA_THRESHOLD && lt >= m ? 1u : 0u;
        uint bit = uint((p.y & 3) * 4 + (p.x & 3));
        flags = (keep_l << bit) | (keep_t << (16u + bit));
    }
    flags_of[lp.y][lp.x] = flags;
    barrier();
    /* 16 invocations gather a word each from its block's 16 pixels (no shared atomics). */
    if (tid < 16u) {
        const ivec2 bl = ivec2(int(tid & 3u), int(tid >> 2u));
        uint word = 0u;
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                word |= flags_of[4 * bl.y + y][4 * bl.x + x];
        ivec2 b = ivec2(gl_WorkGroupID.xy) * 4 + bl;
        if (b.x < pc.blocks_x && b.y < pc.blocks_y)
            edges[uint(b.y) * uint(pc.blocks_x) + uint(b.x)] = word;
    }
}
