/* lsan_keep_loaded.c: a dlclose that keeps the library loaded, preloaded (LD_PRELOAD) into the
 * Vulkan tests of the sanitizer build (make test-sanitize; tests/CMakeLists.txt).
 *
 * The Vulkan loader unloads the driver (Mesa's lavapipe) and the layers at vkDestroyInstance.
 * LeakSanitizer runs at exit, after that: what those libraries still held is then reported
 * from an "<unknown module>", which no suppression in lsan_vulkan.supp can name, and what
 * their globals reached counts as leaked. With the libraries kept, their stacks have names
 * (the suppressions apply) and their globals are still roots; upframe's own leaks are still
 * reported. The test programs pin the driver themselves (vk_test_util.h,
 * vkt_pin_driver_libraries); this covers the programs they start (the upframe tool,
 * bench_framegen) and the example hosts, which open the driver as any application does. The Vulkan loader has the same switch for the same reason in later versions
 * (VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING), not in Debian 12's 1.3.239. Built without
 * the sanitizers (a preloaded library comes before their runtime; the tests set
 * ASAN_OPTIONS=verify_asan_link_order=0). */
#include <dlfcn.h>

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
