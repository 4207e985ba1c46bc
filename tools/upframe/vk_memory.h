/* vk_memory.h: the device memory rows of `upframe bench --backend vulkan` that the temporal and
 * frame generation rows share (vk_memory.c). */
#ifndef UPF_TOOL_VK_MEMORY_H
#define UPF_TOOL_VK_MEMORY_H

#ifdef UPF_HAVE_VULKAN
#include "cli.h"
#include "vk/vk_passes.h"

/* Each of the runner's first `count` resources that takes device memory, by name: " name
 * bytes" on stdout, or an integer member of the open JSON object (j set). */
void tool_vk_resource_bytes(const upf__vk_runner *run, int count, cli_json *j);
#endif

#endif
