/* accumulate.comp: test_vk_runner's history pass. Reads: a (binding 3), the history
 * (binding 4: what the previous frame wrote). Writes: the next history (binding 5) =
 * history * k + a. */
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 3, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 4, std430) readonly buffer Hist { float hist[]; };
layout(set = 0, binding = 5, std430) writeonly buffer Next { float next[]; };
layout(push_constant) uniform Push {
    int n;
    float k;
} pc;

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (i < pc.n)
        next[i] = hist[i] * pc.k + a[i];
}
