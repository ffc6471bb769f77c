// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: traces. A trace resource entry becomes a
 * trace buffer of the remote, fed to its keeper (trace_keeper.c), which
 * shows debugfs traceN (the live buffer, copied through da_to_va at open)
 * and traceN_last (what the last crash captured), both decoded, and keeps
 * the last capture across recovery, stop and restart. The capture hands
 * every trace, without sleeping, to its keeper. Upstream's twins:
 * rproc_handle_trace() in remoteproc_core.c, the trace files of
 * remoteproc_debugfs.c, and remoteproc_coredump.c for the capture.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <snaptrace/rproc.h>
#include <snaptrace/snaptrace.h>
#include "fw.h"
#include "internal.h"
#include "rproc.h"
#include "trace_keeper.h"

/* Up to SNAPTRACE_RPROC_TRACE_MAX bytes of I/O memory: 64 KiB at a time. */
static int st_trace_copy(struct snaptrace_rproc_trace *trace, char *dst)
{
	u32 off, n;
	int ret;

	for (off = 0; off < trace->len; off += n) {
		n = min_t(u32, trace->len - off, SZ_64K);
		ret = snaptrace_rproc_read_da(trace->rproc, (u64)trace->da + off,
					      dst + off, n);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

/*
 * traceN: the live buffer, copied at open (the keeper decodes a private
 * copy, never memory the remote still writes) with
 * snaptrace_rproc_read_da(): memcpy() from normal memory, memcpy_fromio()
 * from I/O memory (an attached remote's BAR), which
 * snaptrace_rproc_da_to_va() does not hand out. Nothing to show while the
 * trace is not mapped.
 */
static int st_trace_read_live(struct snaptrace_keeper *k, void **buf, u32 *len)
{
	struct snaptrace_rproc_trace *trace = k->priv;
	void *copy;
	u32 off;

	*buf = NULL;
	if (!trace ||
	    !snaptrace_rproc_find_mem(trace->rproc, trace->da, trace->len, &off))
		return 0;
	copy = kvmalloc(trace->len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	if (st_trace_copy(trace, copy)) {
		kvfree(copy);
		return 0;
	}
	*buf = copy;
	*len = trace->len;
	return 0;
}

/*
 * traceN_last waits for a capture its platform queued. Its files exist
 * only while the trace does (@k->priv).
 */
static int st_trace_last_lock(struct snaptrace_keeper *k)
{
	struct snaptrace_rproc_trace *trace = k->priv;
	struct snaptrace_rproc *rproc = trace ? trace->rproc : NULL;

	if (rproc && rproc->ops->coredump_wait)
		rproc->ops->coredump_wait(rproc);
	return 0;
}

static const struct snaptrace_keeper_ops st_trace_keeper_ops = {
	.read_live = st_trace_read_live,
	.last_lock = st_trace_last_lock,
};

/*
 * The name of the instance a trace's crash captures go to:
 * "<remote>-trace<N>", with what an instance name may not hold (the
 * ivshmem remote's PCI name has ':') made '_', so the captures can also be
 * read, and the capture buffer sized, under instances/.
 */
static void st_trace_instance_name(struct snaptrace_rproc *rproc, int index,
				   char *name, size_t size)
{
	int n, i;

	/* Keep "-traceN" whole: cut the remote's name if need be. */
	n = snprintf(name, size, "-trace%d", index);
	n = size - 1 - n;
	snprintf(name, size, "%.*s-trace%d", n, rproc->name, index);
	for (i = 0; name[i]; i++)
		if (!isalnum(name[i]) && name[i] != '-' && name[i] != '_' &&
		    name[i] != '.')
			name[i] = '_';
	if (name[0] == '.')
		name[0] = '_';
}

/*
 * The keeper of trace @index, made if the remote has none: it keeps
 * traceN_last across stops and restarts of the remote, and at a host
 * panic (Documentation/persist.rst, named as its debugfs file is,
 * "remoteproc<N>/trace<M>_last"). A keeper too small for the trace of a
 * new image grows, its last trace dropped if its instance had to be
 * resized; if it cannot (out of memory, or its instance held open by a
 * reader: -EBUSY), it stays as it was, last trace and all, and the trace
 * is refused. Process context; the remote's lock is held.
 */
static struct snaptrace_keeper *st_trace_keeper(struct snaptrace_rproc *rproc,
						int index, u32 len)
{
	char inst[SNAPTRACE_INSTANCE_NAME_MAX + 1];
	char pname[ST_PR_SRC_NAME];
	struct snaptrace_keeper *k = rproc->keepers[index];
	int ret;

	if (k && k->size < len) {
		bool had = READ_ONCE(k->has_last);

		ret = snaptrace_keeper_resize(k, len);
		if (ret) {
			snaptrace_dev_err(rproc->dev, "trace%d: 0x%x bytes, more than its last copy holds, which cannot grow: %d (its last trace is kept)\n",
					  index, len, ret);
			return ERR_PTR(ret);
		}
		if (had && !READ_ONCE(k->has_last))
			dev_info(rproc->dev, "trace%d: 0x%x bytes, more than its last copy held: last trace dropped\n",
				 index, len);
	}
	if (k)
		return k;
	st_trace_instance_name(rproc, index, inst, sizeof(inst));
	snprintf(pname, sizeof(pname), "remoteproc%d/trace%d_last",
		 rproc->index, index);
	k = snaptrace_keeper_create(rproc->dev, index, len, inst, pname,
				    &st_trace_keeper_ops, NULL);
	if (!IS_ERR(k))
		rproc->keepers[index] = k;
	return k;
}

/**
 * snaptrace_rproc_handle_trace() - handle a trace resource entry
 * @rproc: the remote
 * @ptr: the entry's body (a &struct snaptrace_fw_rsc_trace)
 * @offset: its offset in the resource table, for messages
 * @avail: bytes left in the table from @ptr
 *
 * Same contract as upstream's rproc_handle_trace(), with stronger checks:
 * the trace must lie wholly inside the remote's memory (a region, a
 * carveout or a devmem) and have a non-zero length, and the memory for its
 * last copy is ready now, so that a crash needs none: the trace's keeper
 * (trace_keeper.c), made with the first trace of that number the remote
 * handles and kept across its stops once it holds a capture, whose
 * captures go to a named instance of its own, "<remote>-trace<N>", with
 * room for the trace on one CPU only. The keeper shows debugfs traceN and
 * traceN_last, decoded, and registers the last copy with the persistent
 * capture, so that a host panic keeps traceN_last for the next boot.
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0; -EINVAL if truncated (sizeof(*rsc) > @avail), reserved not
 * zero, len 0 or above %SNAPTRACE_RPROC_TRACE_MAX (256 KiB), da + len
 * past 32 bits, or outside the remote's memory; -EBUSY if the instance's
 * name is taken by a smaller buffer, or, for a trace larger than the last
 * one of its number, if its instance is held by anyone else (the last
 * trace is then kept); -ENOMEM.
 */
int snaptrace_rproc_handle_trace(struct snaptrace_rproc *rproc, void *ptr,
				 int offset, int avail)
{
	struct snaptrace_fw_rsc_trace *rsc = ptr;
	struct snaptrace_rproc_trace *trace;
	struct snaptrace_keeper *k;
	u32 off;
	int ret;

	ret = snaptrace_rsc_check_trace(rproc->dev, rsc, offset, avail);
	if (ret)
		return ret;
	if (rsc->len > SNAPTRACE_RPROC_TRACE_MAX ||
	    rproc->traces_len + rsc->len > SNAPTRACE_RPROC_TRACES_TOTAL ||
	    rproc->num_traces == SNAPTRACE_RPROC_MAX_TRACES) {
		snaptrace_dev_err(rproc->dev, "trace at offset %d: len 0x%x: more than %d traces or 0x%x bytes of traces\n",
				  offset, rsc->len, SNAPTRACE_RPROC_MAX_TRACES,
				  SNAPTRACE_RPROC_TRACES_TOTAL);
		return -EINVAL;
	}
	if (!snaptrace_rproc_find_mem(rproc, rsc->da, rsc->len, &off)) {
		snaptrace_dev_err(rproc->dev, "trace at offset %d: da 0x%x len 0x%x is not inside the remote's memory\n",
				  offset, rsc->da, rsc->len);
		return -EINVAL;
	}

	trace = kzalloc(sizeof(*trace), GFP_KERNEL);
	if (!trace)
		return -ENOMEM;
	k = st_trace_keeper(rproc, rproc->num_traces, rsc->len);
	if (IS_ERR(k)) {
		kfree(trace);
		return PTR_ERR(k);
	}
	trace->rproc = rproc;
	trace->keeper = k;
	rproc->traces_len += rsc->len;
	trace->index = rproc->num_traces++;
	trace->da = rsc->da;
	trace->len = rsc->len;
	snaptrace_rproc_rsc_name(trace->name, rsc->name);
	list_add_tail(&trace->node, &rproc->traces);
	k->priv = trace;
	snaptrace_keeper_files_add(k, rproc->dir);
	dev_dbg(rproc->dev, "trace%d added: da 0x%x, len 0x%x\n", trace->index,
		trace->da, trace->len);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_handle_trace);

/**
 * snaptrace_rproc_crash_name() - a crash type's name, as messages show it
 * @type: an &enum snaptrace_rproc_crash_type; others are "unknown"
 *
 * Context: any. Mirrors rproc_crash_to_string().
 * Return: a static string.
 */
const char *snaptrace_rproc_crash_name(unsigned int type)
{
	static const char * const names[] = {
		[SNAPTRACE_RPROC_MMUFAULT] = "mmufault",
		[SNAPTRACE_RPROC_WATCHDOG] = "watchdog",
		[SNAPTRACE_RPROC_FATAL_ERROR] = "fatal error",
	};

	return type < ARRAY_SIZE(names) ? names[type] : "unknown";
}

/* A capture's head line: "<remote> trace<N>: crash #<n> (<type>)". */
static void st_capture_head(struct snaptrace_rproc *rproc,
			    struct snaptrace_rproc_trace *trace, char *head,
			    size_t size)
{
	scnprintf(head, size, "%s trace%d: crash #%u (%s)", rproc->name,
		  trace->index, READ_ONCE(rproc->crash_cnt),
		  snaptrace_rproc_crash_name(READ_ONCE(rproc->crash_type)));
}

/**
 * snaptrace_rproc_capture_traces() - capture every trace after a crash
 * @rproc: the remote, just marked crashed
 *
 * Hands each trace buffer to its keeper (snaptrace_keeper_capture()),
 * which copies it with memory allocated when the trace was handled:
 * nothing is allocated and nothing sleeps. The capture of a crash, as
 * rproc_coredump() is upstream.
 *
 * Context: any but NMI; the core lock is held, so the simulated core does
 * not write meanwhile.
 */
void snaptrace_rproc_capture_traces(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace;
	char head[sizeof(rproc->name) + 64];
	const void *va;

	list_for_each_entry(trace, &rproc->traces, node) {
		va = snaptrace_rproc_da_to_va(rproc, trace->da, trace->len, NULL);
		if (!va)
			continue;
		st_capture_head(rproc, trace, head, sizeof(head));
		snaptrace_keeper_capture(trace->keeper, head, va, trace->len);
	}
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_capture_traces);

/* @n bytes at @off of a trace, through the remote's mapping. */
static int st_trace_read(void *ctx, u32 off, void *dst, u32 n)
{
	struct snaptrace_rproc_trace *trace = ctx;

	return snaptrace_rproc_read_da(trace->rproc, (u64)trace->da + off, dst, n);
}

/**
 * snaptrace_rproc_capture_trace_slow() - capture a trace in process context
 * @rproc: the remote, crashed
 * @trace: one of its traces
 *
 * Hands the trace to its keeper as the crash path does, but from what may
 * be I/O memory (snaptrace_keeper_capture_slow(): a record at a time, with
 * a chance to reschedule in between). For a platform whose
 * &snaptrace_rproc_ops.coredump queues the capture.
 *
 * Context: process context, may sleep; the traces must not go meanwhile
 * (stop waits for the caller).
 */
void snaptrace_rproc_capture_trace_slow(struct snaptrace_rproc *rproc,
					struct snaptrace_rproc_trace *trace)
{
	char head[sizeof(rproc->name) + 64];

	st_capture_head(rproc, trace, head, sizeof(head));
	snaptrace_keeper_capture_slow(trace->keeper, head, st_trace_read, trace,
				      trace->len);
}

/**
 * snaptrace_rproc_trace_files_add() - show the traces in debugfs again
 * @rproc: the remote, attached again after a detach
 *
 * Context: process context, may sleep; the remote's lock is held.
 */
void snaptrace_rproc_trace_files_add(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace;

	list_for_each_entry(trace, &rproc->traces, node)
		snaptrace_keeper_files_add(trace->keeper, rproc->dir);
}

/**
 * snaptrace_rproc_trace_files_remove() - remove traceN and traceN_last
 * @rproc: the remote, detaching: the traces stay, the host hides them
 *
 * debugfs_remove() waits for readers inside the files.
 *
 * Context: process context, may sleep; the remote's lock is held.
 */
void snaptrace_rproc_trace_files_remove(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace;

	list_for_each_entry(trace, &rproc->traces, node)
		snaptrace_keeper_files_remove(trace->keeper);
}

/**
 * snaptrace_rproc_trace_free() - give back every trace of the firmware
 * @rproc: the remote, stopped
 *
 * Removes the trace files (waiting for readers inside), as upstream's
 * shutdown removes its trace files, and frees the traces. A keeper that
 * holds a last trace stays (snaptrace_rproc_keepers_free() frees it): a
 * restart shows it again; one that holds none is freed, so that a stop,
 * or a start that failed, leaves nothing of the traces.
 *
 * Context: process context, may sleep; the remote's lock is held.
 */
void snaptrace_rproc_trace_free(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace, *tn;

	list_for_each_entry_safe(trace, tn, &rproc->traces, node) {
		/* debugfs_remove() waits for readers inside the files. */
		snaptrace_keeper_files_remove(trace->keeper);
		trace->keeper->priv = NULL;
		/* Nothing to keep: as if the trace had never been handled. */
		if (!READ_ONCE(trace->keeper->has_last)) {
			snaptrace_keeper_free(trace->keeper);
			rproc->keepers[trace->index] = NULL;
		}
		list_del(&trace->node);
		kfree(trace);
	}
	rproc->num_traces = 0;
	rproc->traces_len = 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_trace_free);

/**
 * snaptrace_rproc_keepers_free() - give back the remote's last traces
 * @rproc: the remote, stopped, being destroyed
 *
 * Frees the keeper of every trace number the remote has had
 * (snaptrace_keeper_free(): out of the persistent capture, its instance
 * dropped). No upstream twin: upstream keeps no last trace.
 *
 * Context: process context, may sleep; no trace left
 * (snaptrace_rproc_trace_free()).
 */
void snaptrace_rproc_keepers_free(struct snaptrace_rproc *rproc)
{
	int i;

	for (i = 0; i < SNAPTRACE_RPROC_MAX_TRACES; i++) {
		snaptrace_keeper_free(rproc->keepers[i]);
		rproc->keepers[i] = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_keepers_free);
