/* pages.c: the default allocator's blocks, and huge-page advice for big ones (the engine's
 * surfaces, the tools' images).
 *
 * A block comes zeroed without being written: a small one from calloc, a big one (4 MiB or
 * more) mapped fresh from the kernel (mmap), whose pages are zero until touched, so a page
 * the engine never touches costs nothing. A big block starts on a 2 MiB boundary and is
 * advised as a transparent huge page region (madvise MADV_HUGEPAGE, Linux) before it is
 * touched, so the kernel backs it with 2 MiB pages: one fault and one clearing per 2 MiB
 * instead of per 4 KiB. Both are measured in docs/PERFORMANCE.md, "The tool's own time".
 * Where THP is off the advice is ignored. The 64 bytes before a block say how it was taken. */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, madvise and MADV_HUGEPAGE under glibc */
#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "core/core.h"

/* Under AddressSanitizer every block comes from calloc, where ASan watches its bounds (it
 * does not watch a mapping of our own). */
#if defined(__SANITIZE_ADDRESS__)
#define UPF_PAGES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UPF_PAGES_ASAN 1
#endif
#endif

#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)
#define BLOCK_ALIGN ((size_t)64) /* UPF_ALIGNMENT; the header takes one such unit */

typedef struct block_header {
    void *base;    /* what calloc or mmap returned */
    size_t mapped; /* bytes mapped (mmap), or 0 for calloc */
} block_header;

void upf__pages_advise(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    long page = sysconf(_SC_PAGESIZE);
    if (size < HUGE_MIN || page <= 0)
        return;
    uintptr_t start = ((uintptr_t)p + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
    uintptr_t end = ((uintptr_t)p + size) / (uintptr_t)page * (uintptr_t)page;
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE); /* advice: may be refused */
#else
    (void)p;
    (void)size;
#endif
}

/* A big block: mapped with room to start it on a 2 MiB boundary, its header in the page
 * before. NULL where mmap is not there or fails (the caller then uses calloc). */
static void *map_block(size_t size)
{
#if defined(__linux__) && defined(MAP_ANONYMOUS) && !defined(UPF_PAGES_ASAN)
    if (size > SIZE_MAX - 2 * HUGE_PAGE)
        return NULL;
    size_t len = size + 2 * HUGE_PAGE; /* a multiple of the page if size is not: fine */
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    upf__pages_advise(base, len);
    uintptr_t user = ((uintptr_t)base + HUGE_PAGE) / HUGE_PAGE * HUGE_PAGE; /* >= base + 64 */
    ((block_header *)user)[-1] = (block_header){ base, len };
    return (void *)user;
#else
    (void)size;
    return NULL;
#endif
}

void *upf__pages_calloc(size_t size)
{
    void *big = size >= HUGE_MIN ? map_block(size) : NULL;
    if (big)
        return big;
    if (size > SIZE_MAX - 2 * BLOCK_ALIGN)
        return NULL;
    /* calloc gives 16-byte alignment: one unit more to align to 64, one for the header. */
    unsigned char *base = calloc(1, size + 2 * BLOCK_ALIGN);
    if (!base)
        return NULL;
    uintptr_t user = ((uintptr_t)base + 2 * BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
    ((block_header *)user)[-1] = (block_header){ base, 0 };
    upf__pages_advise((void *)user, size);
    return (void *)user;
}

void upf__pages_free(void *p)
{
    if (!p)
        return;
    block_header h = ((block_header *)p)[-1];
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    if (h.mapped) {
        munmap(h.base, h.mapped);
        return;
    }
#endif
    free(h.base);
}
