/* cpu.c: which instruction sets this CPU runs, so that a pass can take the fastest of its
 * kernels that the machine can execute (the kernel tables of src/spatial/net.h).
 *
 * Reads: the CPU's identification (CPUID, through the compiler's __builtin_cpu_supports,
 * which also checks that the operating system saves the wide registers). Writes nothing:
 * each context keeps its own copy of the flags (core.h), so there is no global state. */
#include "core/core.h"

unsigned upf__cpu_detect(void)
{
    unsigned flags = 0;
#if defined(UPF_HAVE_X86_AVX2) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        flags |= UPF__CPU_X86_AVX2_FMA;
#endif
    return flags;
}

const char *upf__cpu_flags_name(unsigned flags)
{
    return (flags & UPF__CPU_X86_AVX2_FMA) ? "avx2+fma" : "c";
}
