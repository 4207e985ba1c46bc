/* work.comp: test_vk_runner's indirect pass, a workgroup per listed item. Reads: items
 * (binding 0), the list (binding 1). Writes: out (binding 2) = the item + the step (patched)
 * at the listed indices (the rest as cleared). */
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) readonly buffer Items { uint items[]; };
layout(set = 0, binding = 1, std430) readonly buffer List { uint list[]; };
layout(set = 0, binding = 2, std430) buffer Out { uint outs[]; };
layout(push_constant) uniform Push {
    int n;
    uint step;
} pc;

void main()
{
    const uint i = list[4u + gl_WorkGroupID.x];
    outs[i] = items[i] + pc.step + (pc.step > 1u ? outs[i] : 0u);
}
