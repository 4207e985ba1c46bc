/* mark.comp: test_vk_runner's list pass. Reads: items (binding 0). Writes: the list (binding 1:
 * a VkDispatchIndirectCommand, a word unused, then the listed items' indices): every odd item
 * appended by an atomic count (the count the dispatch's x; y = z = 1). */
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Items { uint items[]; };
layout(set = 0, binding = 1, std430) buffer List { uint list[]; };
layout(push_constant) uniform Push {
    int n;
} pc;

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (i == 0)
        list[1] = list[2] = 1u;
    if (i < pc.n && (items[i] & 1u) != 0u)
        list[4u + atomicAdd(list[0], 1u)] = uint(i);
}
