/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What snaptrace_bench.ko needs from the kernel that no public header
 * declares.
 */
#ifndef _SNAPTRACE_BENCH_H
#define _SNAPTRACE_BENCH_H

/*
 * Allocates the global trace array's snapshot buffer, the size of its main
 * buffer, without taking a snapshot. Exported (EXPORT_SYMBOL_GPL) by
 * kernel/trace/trace.c when CONFIG_TRACER_SNAPSHOT is set, but declared
 * only in kernel/trace/trace.h. Returns 0 or -errno (and WARNs on failure).
 */
int tracing_alloc_snapshot(void);

#endif /* _SNAPTRACE_BENCH_H */
