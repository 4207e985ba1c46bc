/* pyramid.comp: test_vk_runner's multi-dispatch pass, one dispatch a level (push constant
 * `level`, patched by the runner). Reads: the next history (binding 5), the level below
 * (binding 6). Writes: level `level` of the pyramid (binding 6): level 0 a copy of the n
 * values, level l the sums of pairs of level l - 1 (the last alone when odd), packed one
 * after another. */
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 5, std430) readonly buffer Next { float next[]; };
layout(set = 0, binding = 6, std430) buffer Pyr { float pyr[]; };
layout(push_constant) uniform Push {
    int n;
    int level;
} pc;

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    int off = 0, len = pc.n, prev_off = 0, prev_len = 0;
    for (int l = 1; l <= pc.level; l++) {
        prev_off = off, prev_len = len;
        off += len;
        len = (len + 1) / 2;
    }
    if (i >= len)
        return;
    if (pc.level == 0)
        pyr[i] = next[i];
    else
        pyr[off + i] = pyr[prev_off + 2 * i] +
                       (2 * i + 1 < prev_len ? pyr[prev_off + 2 * i + 1] : 0.0);
}
