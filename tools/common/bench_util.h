/* bench_util.h: what the benchmarks share: sorting times, and saying which machine they ran
 * on. Used by `upframe bench` and the programs in bench/. */
#ifndef UPF_BENCH_UTIL_H
#define UPF_BENCH_UTIL_H

#include <stddef.h>

/* qsort comparator for doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* Sorts v[0..n) and returns its median (the mean of the middle two for even n). */
double bench_median(double *v, int n);

/* "CPU model, N CPUs online" from /proc/cpuinfo and sysconf ("unknown CPU" where there is no
 * /proc/cpuinfo). */
void bench_machine(char *buf, size_t size);

#endif
