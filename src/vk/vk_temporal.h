/* vk_temporal.h: the Vulkan temporal engine's internals that its tests reach.
 *
 * Internal header: not installed. */
#ifndef UPF_VK_TEMPORAL_H
#define UPF_VK_TEMPORAL_H

#include "vk/vk_passes.h"

/* The engine's runner: its surfaces' buffers (upf__vk_runner_buffer, by UPF__TP_* index) for
 * the tests to read back and compare with the CPU engine's. */
upf__vk_runner *upf__vk_temporal_runner(upf_vk_temporal *t);

#endif /* UPF_VK_TEMPORAL_H */
