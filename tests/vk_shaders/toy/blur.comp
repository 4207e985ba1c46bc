/* blur.comp: test_vk_runner's first toy pass. Reads: colour (binding 0, sampled through the
 * nearest sampler at binding 10), depth (binding 1, its depth-aspect view, texelFetch), the
 * constants (binding 11, a uniform buffer of 144 bytes: more than push constants hold).
 * Writes: a (binding 3) = colour . w[0..3] + depth * wd + w[4 + (x + y) % 28]; sum (binding
 * 2, cleared to 7 before the pass) += 1 per row. */
#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform texture2D colour;
layout(set = 0, binding = 1) uniform texture2D depth;
layout(set = 0, binding = 2, std430) buffer Sum { uint sum; };
layout(set = 0, binding = 3, std430) writeonly buffer A { float a[]; };
layout(set = 0, binding = 10) uniform sampler nearest;
layout(set = 0, binding = 11, std140) uniform Con {
    vec4 w[8];
    int width, height;
    float wd;
    int pad;
} con;

float weight(int k)
{
    return con.w[k / 4][k % 4];
}

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= con.width || p.y >= con.height)
        return;
    const vec2 uv = (vec2(p) + 0.5) / vec2(con.width, con.height);
    const vec4 c = texture(sampler2D(colour, nearest), uv);
    const float d = texelFetch(depth, p, 0).r;
    a[p.y * con.width + p.x] = c.r * weight(0) + c.g * weight(1) + c.b * weight(2) +
                               c.a * weight(3) + d * con.wd + weight(4 + (p.x + p.y) % 28);
    if (p.x == 0)
        atomicAdd(sum, 1u);
}
