/* vk_memory.c: the device memory rows of `upframe bench --backend vulkan` (vk_memory.h).
 * Reads an engine's runner; writes its resources' bytes to stdout or the JSON. */
#include <stdio.h>

#include "vk_memory.h"

#ifdef UPF_HAVE_VULKAN
void tool_vk_resource_bytes(const upf__vk_runner *run, int count, cli_json *j)
{
    for (int s = 0; s < count; s++) {
        const char *name = NULL;
        const VkDeviceSize b = upf__vk_runner_bytes(run, s, &name);
        if (!b || !name)
            continue;
        if (j)
            cli_json_int(j, name, (long long)b);
        else
            printf(" %s %llu", name, (unsigned long long)b);
    }
}
#endif
