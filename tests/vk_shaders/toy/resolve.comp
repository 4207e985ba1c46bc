/* resolve.comp: test_vk_runner's last toy pass. Reads: the next history (binding 5), the
 * pyramid's top (binding 6), sum (binding 2), the table uploaded once (binding 9). Writes:
 * the output image (binding 7) = (next, pyramid top, sum, table[(x + y) % 16]). */
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 2, std430) readonly buffer Sum { uint sum; };
layout(set = 0, binding = 5, std430) readonly buffer Next { float next[]; };
layout(set = 0, binding = 6, std430) readonly buffer Pyr { float pyr[]; };
layout(set = 0, binding = 7) uniform writeonly image2D dst;
layout(set = 0, binding = 9, std430) readonly buffer Table { float table[16]; };
layout(push_constant) uniform Push {
    int width, height, top;
} pc;

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.width || p.y >= pc.height)
        return;
    imageStore(dst, p, vec4(next[p.y * pc.width + p.x], pyr[pc.top], float(sum),
                            table[(p.x + p.y) % 16]));
}
