// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: traces. A trace resource entry becomes a
 * trace buffer of the remote with its debugfs traceN (the live buffer,
 * through da_to_va on every read) and traceN_last (what the last crash
 * captured). The capture copies every trace, without sleeping, into a
 * snaptrace ring buffer allocated when the trace was handled (its
 * snapshot), so that traceN_last survives recovery. Upstream's twins:
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

/*
 * traceN: the live buffer, through da_to_va on every read, as upstream.
 * A trace in I/O memory (an attached remote's BAR) is copied out once, at
 * open, and the copy read: one memcpy_fromio() of the whole trace per
 * read() call would be slow and each chunk of the text of another instant.
 */
struct st_trace_file {
	struct snaptrace_rproc_trace *trace;
	size_t len;
	char *copy;	/* NULL: read the live buffer */
};

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

static int st_trace_open(struct inode *inode, struct file *filp)
{
	struct snaptrace_rproc_trace *trace = inode->i_private;
	struct st_trace_file *tf;
	bool is_iomem = false;

	tf = kzalloc(sizeof(*tf), GFP_KERNEL);
	if (!tf)
		return -ENOMEM;
	tf->trace = trace;
	if (!snaptrace_rproc_da_to_va(trace->rproc, trace->da, trace->len,
				      &is_iomem) && is_iomem) {
		tf->copy = kvmalloc(trace->len, GFP_KERNEL);
		if (!tf->copy) {
			kfree(tf);
			return -ENOMEM;
		}
		if (st_trace_copy(trace, tf->copy)) {
			kvfree(tf->copy);
			tf->copy = NULL;	/* not available: said at read */
		} else {
			tf->len = strnlen(tf->copy, trace->len);
		}
	}
	filp->private_data = tf;
	return 0;
}

static ssize_t st_trace_read(struct file *filp, char __user *ubuf, size_t cnt,
			     loff_t *ppos)
{
	struct st_trace_file *tf = filp->private_data;
	struct snaptrace_rproc_trace *trace = tf->trace;
	char buf[48];
	const char *va;
	size_t len;

	if (tf->copy)
		return simple_read_from_buffer(ubuf, cnt, ppos, tf->copy, tf->len);
	va = snaptrace_rproc_da_to_va(trace->rproc, trace->da, trace->len, NULL);
	if (!va) {
		len = scnprintf(buf, sizeof(buf), "Trace trace%d not available\n",
				trace->index);
		va = buf;
	} else {
		len = strnlen(va, trace->len);
	}
	return simple_read_from_buffer(ubuf, cnt, ppos, va, len);
}

static int st_trace_release(struct inode *inode, struct file *filp)
{
	struct st_trace_file *tf = filp->private_data;

	kvfree(tf->copy);
	kfree(tf);
	return 0;
}

static const struct file_operations st_trace_fops = {
	.owner = THIS_MODULE,
	.open = st_trace_open,
	.read = st_trace_read,
	.llseek = default_llseek,
	.release = st_trace_release,
};

/* traceN_last: what the last crash captured, copied out at open. */
struct st_last {
	size_t len;
	char text[];
};

static int st_last_open(struct inode *inode, struct file *filp)
{
	struct snaptrace_rproc_trace *trace = inode->i_private;
	struct st_last *last;
	ssize_t n;

	last = kvzalloc(struct_size(last, text, trace->len), GFP_KERNEL);
	if (!last)
		return -ENOMEM;
	n = snaptrace_rproc_read_last(trace, last->text, trace->len);
	if (n < 0) {
		kvfree(last);
		return n;
	}
	last->len = n;
	filp->private_data = last;
	return 0;
}

static ssize_t st_last_read(struct file *filp, char __user *ubuf, size_t cnt,
			    loff_t *ppos)
{
	struct st_last *last = filp->private_data;

	return simple_read_from_buffer(ubuf, cnt, ppos, last->text, last->len);
}

static int st_last_release(struct inode *inode, struct file *filp)
{
	kvfree(filp->private_data);
	return 0;
}

static const struct file_operations st_last_fops = {
	.owner = THIS_MODULE,
	.open = st_last_open,
	.read = st_last_read,
	.llseek = default_llseek,
	.release = st_last_release,
};

/* Create traceN and traceN_last, in the remote's directory if it has one. */
static void st_trace_files_add(struct snaptrace_rproc_trace *trace)
{
	char name[24];

	if (!trace->rproc->dir)
		return;
	snprintf(name, sizeof(name), "trace%d", trace->index);
	trace->file = debugfs_create_file(name, 0400, trace->rproc->dir, trace,
					  &st_trace_fops);
	snprintf(name, sizeof(name), "trace%d_last", trace->index);
	trace->last_file = debugfs_create_file(name, 0400, trace->rproc->dir,
					       trace, &st_last_fops);
}

/*
 * Keep traceN_last at a host panic too: the persistent capture
 * (Documentation/persist.rst) reads the last copy's snapshot, named as
 * its debugfs file is, "remoteproc<N>/trace<M>_last". Not an error if
 * the registry is full: the trace works, a panic does not keep it.
 */
static void st_trace_persist_add(struct snaptrace_rproc *rproc,
				 struct snaptrace_rproc_trace *trace)
{
	struct snaptrace_persist_source *src = &trace->pr_src;

	src->buf = trace->last;
	src->cpu = trace->last_cpu;
	src->has_last = &trace->has_last;
	snprintf(src->name, sizeof(src->name), "remoteproc%d/trace%d_last",
		 rproc->index, trace->index);
	if (snaptrace_persist_source_add(src))
		dev_info(rproc->dev, "trace%d: not kept at a host panic: %d last traces are kept already\n",
			 trace->index, ST_PR_SRCS);
}

/*
 * The instance a trace's crash captures go to: "<remote>-trace<N>", with
 * what an instance name may not hold (the ivshmem remote's PCI name has
 * ':') made '_', so the captures can also be read, and the capture buffer
 * sized, under instances/. An instance of that name that already exists
 * (one a reader kept open across a stop, or instances=) is taken if it is
 * large enough. Process context; the remote's lock is held.
 */
static struct snaptrace_buffer *st_trace_instance_get(struct snaptrace_rproc *rproc,
						      int index, size_t size)
{
	char name[SNAPTRACE_INSTANCE_NAME_MAX + 1];
	struct snaptrace_buffer *buf;
	int n, i;

	/* Keep "-traceN" whole: cut the remote's name if need be. */
	n = snprintf(name, sizeof(name), "-trace%d", index);
	n = sizeof(name) - 1 - n;
	snprintf(name, sizeof(name), "%.*s-trace%d", n, rproc->name, index);
	for (i = 0; name[i]; i++)
		if (!isalnum(name[i]) && name[i] != '-' && name[i] != '_' &&
		    name[i] != '.')
			name[i] = '_';
	if (name[0] == '.')
		name[0] = '_';
	buf = snaptrace_get_by_name_cpu(name, size,
					cpumask_first(cpu_possible_mask));
	if (IS_ERR(buf)) {
		snaptrace_dev_err(rproc->dev, "trace%d: cannot create instance %s: %d\n",
				  index, name, (int)PTR_ERR(buf));
		return buf;
	}
	if (snaptrace_size_per_cpu(buf) < size) {
		snaptrace_dev_err(rproc->dev, "trace%d: instance %s exists with %zu bytes per CPU, %zu needed\n",
				  index, name, snaptrace_size_per_cpu(buf), size);
		snaptrace_put(buf);
		return ERR_PTR(-EBUSY);
	}
	return buf;
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
 * last copy is allocated now, so that a crash needs none: a named instance
 * of its own, "<remote>-trace<N>", with room for the trace on one CPU
 * only (snaptrace_get_by_name_cpu(): a capture is one writer, which
 * writes that CPU's ring from wherever it runs, snaptrace_reserve_on()),
 * and its snapshot spare, dropped with snaptrace_put() when the remote
 * stops. Other writers are kept out (snaptrace_record_disable()).
 * Creates debugfs traceN and traceN_last, and registers the last copy with
 * the persistent capture (snaptrace_persist_source_add()), so that a host
 * panic keeps traceN_last for the next boot.
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0; -EINVAL if truncated (sizeof(*rsc) > @avail), reserved not
 * zero, len 0 or above %SNAPTRACE_RPROC_TRACE_MAX (256 KiB), da + len
 * past 32 bits, or outside the remote's memory; -EBUSY if the instance's
 * name is taken by a smaller buffer; -ENOMEM.
 */
int snaptrace_rproc_handle_trace(struct snaptrace_rproc *rproc, void *ptr,
				 int offset, int avail)
{
	struct snaptrace_fw_rsc_trace *rsc = ptr;
	struct snaptrace_rproc_trace *trace;
	size_t size;
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
	/*
	 * The capture holds a reservation per record until its snapshot:
	 * the head, the text, and a NUL if the text has none.
	 */
	trace->res = kcalloc(DIV_ROUND_UP(rsc->len, SNAPTRACE_MAX_PAYLOAD) + 2,
			     sizeof(*trace->res), GFP_KERNEL);
	if (!trace->res) {
		kfree(trace);
		return -ENOMEM;
	}
	/*
	 * Room for the whole trace as records in one CPU's ring: payload,
	 * a 16-byte header per 2 KiB, and padding at the wrap.
	 */
	size = (size_t)rsc->len + rsc->len / 64 + SNAPTRACE_MIN_SIZE;
	trace->last = st_trace_instance_get(rproc, rproc->num_traces, size);
	if (IS_ERR(trace->last)) {
		ret = PTR_ERR(trace->last);
		kfree(trace->res);
		kfree(trace);
		return ret;
	}
	ret = snaptrace_alloc_snapshot(trace->last);
	if (ret) {
		snaptrace_put(trace->last);
		kfree(trace->res);
		kfree(trace);
		return ret;
	}
	trace->last_cpu = snaptrace_buffer_home_cpu(trace->last);
	if (trace->last_cpu < 0)	/* made by instances=: room on every CPU */
		trace->last_cpu = cpumask_first(cpu_possible_mask);
	/* Only the captures write it, with snaptrace_reserve_on(). */
	snaptrace_record_disable(trace->last);
	trace->rproc = rproc;
	rproc->traces_len += rsc->len;
	trace->index = rproc->num_traces++;
	trace->da = rsc->da;
	trace->len = rsc->len;
	snaptrace_rproc_rsc_name(trace->name, rsc->name);
	list_add_tail(&trace->node, &rproc->traces);
	st_trace_files_add(trace);
	st_trace_persist_add(rproc, trace);
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

/*
 * The head of a capture: one marker line, "<remote> trace<N>: crash #<n>
 * (<type>)", reserved in @res. The text follows it as %SNAPTRACE_REC_TEXT
 * records, so that the instance's snapshot reads as the trace did.
 */
static bool st_capture_head(struct snaptrace_rproc *rproc,
			    struct snaptrace_rproc_trace *trace,
			    struct snaptrace_reservation *res)
{
	char head[sizeof(rproc->name) + 64];
	int n;
	void *p;

	n = scnprintf(head, sizeof(head), "%s trace%d: crash #%u (%s)",
		      rproc->name, trace->index, READ_ONCE(rproc->crash_cnt),
		      snaptrace_rproc_crash_name(READ_ONCE(rproc->crash_type)));
	p = snaptrace_reserve_on(trace->last, trace->last_cpu,
				 SNAPTRACE_REC_MARKER, n, res);
	if (!p)
		return false;
	memcpy(p, head, n);
	return true;
}

/*
 * Copy one trace buffer into its last copy: the capture, atomic context.
 * The live half is emptied first (what a capture that failed part-way
 * left there must not join this one); then the head, then the trace's
 * text as pieces of up to %SNAPTRACE_MAX_PAYLOAD bytes, the last one
 * holding its first NUL, as upstream shows the text. A text whose end
 * falls at the end of a piece, or that has no NUL, and does not end with
 * a newline gets a one-byte NUL piece, so that the snapshot shows its end
 * on a line of its own and nothing more (st_format_text() adds the
 * newline at a NUL). Every record is reserved and filled before the
 * snapshot and committed after it: the snapshot's cut puts them all in
 * the snapshot (records reserved before the cut), and none is ever
 * visible in the live half, so a reader of the instance's trace_pipe
 * cannot take part of the capture. Each open reservation is a level of
 * preempt_count: %SNAPTRACE_RPROC_TRACE_MAX bounds them.
 */
/* The head, the pieces and a NUL, well below PREEMPT_MASK - 10. */
static_assert(DIV_ROUND_UP(SNAPTRACE_RPROC_TRACE_MAX, SNAPTRACE_MAX_PAYLOAD) + 2 <= 160);

static void st_capture(struct snaptrace_rproc *rproc,
		       struct snaptrace_rproc_trace *trace)
{
	const u8 *va = snaptrace_rproc_da_to_va(rproc, trace->da, trace->len, NULL);
	unsigned int i, nr = 0;
	bool ended = false;
	u8 *p, last = '\n';	/* an empty text needs no end */
	u32 off = 0, n;
	int ret = -ENOSPC;

	if (!va)
		return;
	snaptrace_reset(trace->last);
	if (!st_capture_head(rproc, trace, &trace->res[nr]))
		goto commit;
	nr++;
	for (; off < trace->len && va[off]; off += n) {
		n = min_t(u32, trace->len - off, SNAPTRACE_MAX_PAYLOAD);
		p = snaptrace_reserve_on(trace->last, trace->last_cpu,
					 SNAPTRACE_REC_TEXT, n, &trace->res[nr]);
		if (!p)
			goto commit;
		nr++;
		memcpy(p, va + off, n);
		last = p[n - 1];
		if (memchr(p, 0, n)) {
			ended = true;
			break;
		}
	}
	if (!ended && last != '\n') {
		p = snaptrace_reserve_on(trace->last, trace->last_cpu,
					 SNAPTRACE_REC_TEXT, 1, &trace->res[nr]);
		if (!p)
			goto commit;
		nr++;
		*p = 0;
	}
	/* The spare was allocated when the trace was handled: no -ENOENT. */
	ret = snaptrace_snapshot(trace->last);
commit:
	for (i = nr; i-- > 0; )
		snaptrace_commit(trace->last, &trace->res[i]);
	if (!ret)
		WRITE_ONCE(trace->has_last, true);
}

/**
 * snaptrace_rproc_capture_traces() - capture every trace after a crash
 * @rproc: the remote, just marked crashed
 *
 * Copies each trace buffer into its last copy (traceN_last), with memory
 * allocated when the trace was handled: nothing is allocated and nothing
 * sleeps. The capture of a crash, as rproc_coredump() is upstream.
 *
 * Context: any but NMI; the core lock is held, so the simulated core does
 * not write meanwhile.
 */
void snaptrace_rproc_capture_traces(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace;

	list_for_each_entry(trace, &rproc->traces, node)
		st_capture(rproc, trace);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_capture_traces);

/**
 * snaptrace_rproc_capture_trace_slow() - capture a trace in process context
 * @rproc: the remote, crashed
 * @trace: one of its traces
 *
 * Copies the trace into its last copy, as the crash path does, but from
 * what may be I/O memory: up to %SNAPTRACE_RPROC_TRACE_MAX bytes, a record
 * at a time with a chance to reschedule in between, each into the last
 * copy's ring of its home CPU whichever CPU this runs on (the one writer
 * of that buffer: snaptrace_reserve_on()). For a platform
 * whose &snaptrace_rproc_ops.coredump queues the capture.
 *
 * Context: process context, may sleep; the traces must not go meanwhile
 * (stop waits for the caller).
 */
void snaptrace_rproc_capture_trace_slow(struct snaptrace_rproc *rproc,
					struct snaptrace_rproc_trace *trace)
{
	struct snaptrace_reservation res;
	bool ended = false;
	u8 *p, c, last = '\n';	/* an empty text needs no end */
	u32 off = 0, n;

	snaptrace_reset(trace->last);
	if (!st_capture_head(rproc, trace, &res))
		return;
	snaptrace_commit(trace->last, &res);
	for (; off < trace->len; off += n) {
		/* In the mapping since the trace was handled: cannot fail. */
		if (snaptrace_rproc_read_da(rproc, (u64)trace->da + off, &c, 1) ||
		    !c)
			break;	/* the text ended with the last piece */
		n = min_t(u32, trace->len - off, SNAPTRACE_MAX_PAYLOAD);
		p = snaptrace_reserve_on(trace->last, trace->last_cpu,
					 SNAPTRACE_REC_TEXT, n, &res);
		if (!p)
			return;
		if (snaptrace_rproc_read_da(rproc, (u64)trace->da + off, p, n))
			memset(p, 0, n);
		last = p[n - 1];
		ended = memchr(p, 0, n);
		snaptrace_commit(trace->last, &res);
		cond_resched();
		if (ended)
			break;
	}
	if (!ended && last != '\n') {
		p = snaptrace_reserve_on(trace->last, trace->last_cpu,
					 SNAPTRACE_REC_TEXT, 1, &res);
		if (!p)
			return;
		*p = 0;
		snaptrace_commit(trace->last, &res);
	}
	if (!snaptrace_snapshot(trace->last))
		WRITE_ONCE(trace->has_last, true);
}

/**
 * snaptrace_rproc_read_last() - the last trace captured, as text
 * @trace: the trace
 * @buf: where to copy it
 * @size: size of @buf in bytes
 *
 * Context: process context, may sleep.
 * Return: bytes copied up to the first NUL (as traceN shows the live
 * trace), 0 if nothing was captured.
 */
ssize_t snaptrace_rproc_read_last(struct snaptrace_rproc_trace *trace,
				  char *buf, size_t size)
{
	struct snaptrace_record *rec;
	struct snaptrace_iter *iter;
	size_t len, n;
	int ret;

	if (trace->rproc->ops && trace->rproc->ops->coredump_wait)
		trace->rproc->ops->coredump_wait(trace->rproc);
	if (!READ_ONCE(trace->has_last))
		return 0;
	rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	do {	/* a crash replaced the copy while we read it: read the new one */
		iter = snaptrace_iter_start(trace->last, SNAPTRACE_SNAPSHOT,
					    SNAPTRACE_ALL_CPUS);
		if (IS_ERR(iter)) {
			kfree(rec);
			return PTR_ERR(iter);
		}
		len = 0;
		while (len < size && !(ret = snaptrace_iter_next(iter, rec))) {
			if (rec->type == SNAPTRACE_REC_MARKER)
				len = 0;	/* a capture's head: only the last counts */
			if (rec->type != SNAPTRACE_REC_TEXT)
				continue;
			n = min_t(size_t, rec->len, size - len);
			memcpy(buf + len, rec->data, n);
			len += n;
		}
		snaptrace_iter_stop(iter);
	} while (len < size && ret == -ESTALE);
	kfree(rec);
	return strnlen(buf, len);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_read_last);

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
		st_trace_files_add(trace);
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

	list_for_each_entry(trace, &rproc->traces, node) {
		debugfs_remove(trace->file);
		debugfs_remove(trace->last_file);
		trace->file = NULL;
		trace->last_file = NULL;
	}
}

/**
 * snaptrace_rproc_trace_free() - give back every trace of the firmware
 * @rproc: the remote, stopped
 *
 * Removes the trace files (waiting for readers inside), takes each last
 * copy out of the persistent capture's sources (then one grace period for
 * them all: a panic capture reading one is done), and drops the last
 * copies' instances, as
 * upstream's shutdown removes its trace files.
 *
 * Context: process context, may sleep; the remote's lock is held.
 */
void snaptrace_rproc_trace_free(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace, *tn;
	bool cleared = false;

	list_for_each_entry(trace, &rproc->traces, node) {
		/* debugfs_remove() waits for readers inside the files. */
		debugfs_remove(trace->file);
		debugfs_remove(trace->last_file);
		trace->file = NULL;
		trace->last_file = NULL;
		cleared |= snaptrace_persist_source_clear(&trace->pr_src);
	}
	/* Out of the panic's reach before the free: one grace period for all. */
	if (cleared)
		synchronize_rcu();
	list_for_each_entry_safe(trace, tn, &rproc->traces, node) {
		list_del(&trace->node);
		snaptrace_record_enable(trace->last);
		snaptrace_put(trace->last);
		kfree(trace->res);
		kfree(trace);
	}
	rproc->num_traces = 0;
	rproc->traces_len = 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_trace_free);
