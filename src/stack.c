// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace stack dumps: the current kernel stack as one record, shown
 * symbolised in the trace files (ftrace's trace_dump_stack()).
 */
#include <linux/kernel.h>
#include <linux/stacktrace.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"

static_assert(SNAPTRACE_STACK_MAX_DEPTH * sizeof(long) <= SNAPTRACE_MAX_PAYLOAD);

/**
 * snaptrace_dump_stack() - record the current kernel stack
 * @buf: the buffer; NULL for the default instance (the top-level buffer)
 * @skip: callers to leave out, innermost first: 0 starts the record at
 *	the function that called snaptrace_dump_stack()
 *
 * Walks the stack with stack_trace_save() into an array on the stack (at
 * most %SNAPTRACE_STACK_MAX_DEPTH return addresses, the outermost dropped
 * beyond) and writes it as one %SNAPTRACE_REC_STACK record, which the trace
 * files show as ``<stack trace>`` and one `` => function+off/len`` line per
 * address (%pS). Mirrors trace_dump_stack(), which records into the
 * printk instance and keeps its arrays per CPU and nesting level.
 *
 * Context: any: task, softirq, hardirq, IRQs disabled, and NMI as far as
 * the architecture's stack walker is NMI-safe: on x86-64 the ORC and
 * frame-pointer unwinders are (perf and ftrace walk stacks in NMI with
 * them). Never sleeps, never allocates, takes no lock; uses
 * %SNAPTRACE_STACK_MAX_DEPTH * sizeof(long) bytes of stack.
 * Return: 0; -EBUSY if recording is off or stopped; -ENOSPC if there is
 * no room (counted as dropped); -ENODEV if @buf is NULL and the module is
 * not set up; -ENODATA if the walk found nothing (@skip too large);
 * -EOPNOTSUPP if the kernel has no CONFIG_STACKTRACE.
 */
noinline int snaptrace_dump_stack(struct snaptrace_buffer *buf,
				  unsigned int skip)
{
#ifdef CONFIG_STACKTRACE
	unsigned long entries[SNAPTRACE_STACK_MAX_DEPTH];
	unsigned int nr;

	if (!buf) {
		buf = snaptrace_default_buffer();
		if (!buf)
			return -ENODEV;
	}
	/* stack_trace_save() leaves itself out; + 1 leaves us out too. */
	nr = stack_trace_save(entries, ARRAY_SIZE(entries), skip + 1);
	if (!nr)
		return -ENODATA;
	return snaptrace_write_type(buf, SNAPTRACE_REC_STACK, entries,
				    nr * sizeof(entries[0]));
#else
	return -EOPNOTSUPP;
#endif
}
EXPORT_SYMBOL_GPL(snaptrace_dump_stack);
