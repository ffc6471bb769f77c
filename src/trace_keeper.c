// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: the keeper of a remote's trace. One object
 * per trace buffer of a remote, whoever booted the remote: our own remotes
 * (rproc_trace.c, from their resource table's trace entries) and
 * upstream's followed remotes (rproc_follow.c, from the table they have
 * loaded) feed it the same way, so the same firmware shows the same
 * whoever booted it.
 *
 * It owns:
 * - debugfs traceN, the live trace, copied at open by its feeder
 *   (&snaptrace_keeper_ops.read_live) and decoded;
 * - debugfs traceN_last, the trace at the last crash, decoded the same way;
 * - the buffer the crash captures go to: a snaptrace ring buffer with room
 *   for the whole trace on one CPU, and its snapshot spare, allocated with
 *   the keeper (process context) so that a capture never sleeps nor
 *   allocates. A capture writes a head record (a marker line naming the
 *   crash), then the trace's bytes as %SNAPTRACE_REC_TEXT records, into
 *   the live half, then takes the snapshot: the snapshot half holds
 *   exactly one capture, and the previous capture stays there until the
 *   next one is whole. traceN_last and the persistent capture read only
 *   the snapshot half, so they never see part of a capture. The live half
 *   (readable under instances/ for a keeper of a named instance) differs:
 *   snaptrace_keeper_capture() commits its records only after the
 *   snapshot, so none ever shows there, but snaptrace_keeper_capture_slow()
 *   commits each record as it goes (it may sleep in between, which an open
 *   reservation forbids), so a reader of the live half sees its capture
 *   grow;
 * - its registration with the persistent capture (persist.h), so that a
 *   host panic keeps traceN_last for the next boot.
 *
 * A feeder whose readers must not wait for a slow capture (rproc_follow.c:
 * I/O memory, a buffer that grows for a larger trace) splits it in three:
 * snaptrace_keeper_stage_grow() and snaptrace_keeper_stage_slow() make it
 * where no reader of traceN_last looks, without the feeder's lock against
 * those readers; snaptrace_keeper_publish(), under that lock, shows it (a
 * snapshot, a swap of buffers: nothing that waits); and
 * snaptrace_keeper_settle() gives back what it replaced.
 *
 * A capture copies the whole trace but the run of NULs that ends it (one
 * NUL kept): traceN_last gives it back as it was, the bytes not copied as
 * NULs, and decodes it as traceN does (trace_decode.c: every convention it
 * knows, where upstream's rproc_trace_read() shows the bytes up to the
 * first NUL). The keeper lives as long as its feeder wants the last
 * capture kept: across a stop and restart of the remote, while the files
 * may come and go.
 *
 * Upstream's twins: rproc_handle_trace()'s debugfs file
 * (remoteproc_debugfs.c, rproc_trace_read()) and remoteproc_coredump.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "fw.h"
#include "internal.h"
#include "rproc.h"
#include "trace_keeper.h"

/* The head, the pieces and a NUL, well below PREEMPT_MASK - 10. */
#define ST_KEEP_RES(size)	(DIV_ROUND_UP(size, SNAPTRACE_MAX_PAYLOAD) + 2)
static_assert(ST_KEEP_RES(SNAPTRACE_RPROC_TRACE_MAX) <= 160);

/*
 * Room for @size bytes of trace as records on one CPU: payload, a 16-byte
 * header per 2 KiB piece, padding at the wrap.
 */
static size_t st_keep_room(u32 size)
{
	return (size_t)size + size / 64 + SNAPTRACE_MIN_SIZE;
}

/* A trace's text, copied, and how it decodes. */
struct st_keep_view {
	void *buf;
	struct snaptrace_tdec dec;
	bool have;
};

static enum snaptrace_tfmt st_keep_fmt(struct snaptrace_keeper *k)
{
	return k->ops->format ? k->ops->format(k) : SNAPTRACE_TFMT_AUTO;
}

/* The same, for a host panic's capture of traceN_last (persist.h). */
static enum snaptrace_tfmt st_keep_pr_fmt(struct snaptrace_persist_source *src)
{
	return st_keep_fmt(container_of(src, struct snaptrace_keeper, pr_src));
}

static int st_keep_show(struct seq_file *m, void *unused)
{
	struct st_keep_view *v = m->private;

	if (v->have)
		snaptrace_trace_show(m, v->buf, &v->dec);
	return 0;
}

/* Decode @len bytes of @v->buf and open the seq_file on them. */
static int st_keep_view_open(struct file *filp, struct snaptrace_keeper *k,
			     struct st_keep_view *v, u32 len)
{
	int ret;

	if (len && !snaptrace_trace_decode(v->buf, len, st_keep_fmt(k), &v->dec))
		v->have = true;
	ret = single_open_size(filp, st_keep_show, v, (size_t)len + PAGE_SIZE);
	if (ret) {
		kvfree(v->buf);
		kfree(v);
	}
	return ret;
}

static int st_keep_view_release(struct inode *inode, struct file *filp)
{
	struct st_keep_view *v = ((struct seq_file *)filp->private_data)->private;

	kvfree(v->buf);
	kfree(v);
	return single_release(inode, filp);
}

/* traceN: the live trace, as its feeder copies it. */
static int st_keep_live_open(struct inode *inode, struct file *filp)
{
	struct snaptrace_keeper *k = inode->i_private;
	struct st_keep_view *v;
	u32 len = 0;
	int ret;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	ret = k->ops->read_live(k, &v->buf, &len);
	if (ret) {
		kfree(v);
		return ret;
	}
	return st_keep_view_open(filp, k, v, v->buf ? len : 0);
}

static const struct file_operations st_keep_live_fops = {
	.owner = THIS_MODULE,
	.open = st_keep_live_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = st_keep_view_release,
};

/* traceN_last: the trace at the last crash. */
static int st_keep_last_open(struct inode *inode, struct file *filp)
{
	struct snaptrace_keeper *k = inode->i_private;
	/*
	 * Once: a followed remote's keeper may grow (snaptrace_keeper_publish()
	 * swaps in a larger buffer) between the allocation and the read, which
	 * must not write past it.
	 */
	u32 size = READ_ONCE(k->size);
	struct st_keep_view *v;
	ssize_t n;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	v->buf = kvmalloc((size_t)size + 1, GFP_KERNEL);
	if (!v->buf) {
		kfree(v);
		return -ENOMEM;
	}
	((char *)v->buf)[size] = '\0';
	n = snaptrace_keeper_read_last(k, v->buf, size);
	if (n < 0) {
		kvfree(v->buf);
		kfree(v);
		return n;
	}
	return st_keep_view_open(filp, k, v, n);
}

static const struct file_operations st_keep_last_fops = {
	.owner = THIS_MODULE,
	.open = st_keep_last_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = st_keep_view_release,
};

/**
 * snaptrace_keeper_files_add() - show traceN and traceN_last
 * @k: the keeper
 * @dir: the remote's debugfs directory; NULL or an error: no files
 *
 * Files already there are kept. Upstream's twin: the debugfs file
 * rproc_handle_trace() creates with rproc_create_trace_file().
 *
 * Context: process context, may sleep; serialised with
 * snaptrace_keeper_files_remove() by the feeder.
 */
void snaptrace_keeper_files_add(struct snaptrace_keeper *k, struct dentry *dir)
{
	char name[24];

	if (IS_ERR_OR_NULL(dir) || k->file || k->last_file)
		return;
	snprintf(name, sizeof(name), "trace%d", k->index);
	k->file = debugfs_create_file(name, 0400, dir, k, &st_keep_live_fops);
	snprintf(name, sizeof(name), "trace%d_last", k->index);
	k->last_file = debugfs_create_file(name, 0400, dir, k,
					   &st_keep_last_fops);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_files_add);

/**
 * snaptrace_keeper_files_remove() - remove traceN and traceN_last
 * @k: the keeper; its captures stay
 *
 * debugfs_remove() waits for readers inside the files: once it returns,
 * no file calls the feeder's ops. Upstream's twin: rproc_remove_trace_file().
 *
 * Context: process context, may sleep; not under a lock the ops take.
 */
void snaptrace_keeper_files_remove(struct snaptrace_keeper *k)
{
	debugfs_remove(k->file);
	debugfs_remove(k->last_file);
	k->file = NULL;
	k->last_file = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_files_remove);

/**
 * snaptrace_keeper_create() - make the keeper of a trace
 * @dev: where messages go
 * @index: N of traceN
 * @size: the largest trace its captures hold, in bytes, 1 to
 *	%SNAPTRACE_RPROC_TRACE_MAX
 * @instance: the name of the instance its captures go to, so that they can
 *	be read under instances/ too (an existing instance that is large
 *	enough is taken); NULL: a buffer of the keeper's own
 * @persist_name: the name its last capture is kept under at a host panic,
 *	"<remote's dir>/trace<N>_last"; NULL: not kept at a panic. Not an
 *	error if the registry is full or the name is refused: the trace works,
 *	a panic does not keep it
 * @ops: its feeder's, with @ops->read_live
 * @priv: for @ops
 *
 * Allocates everything a capture needs, so that a capture needs nothing:
 * the buffer, with room for @size bytes as records on one CPU (payload, a
 * 16-byte header per 2 KiB piece, padding at the wrap), its snapshot
 * spare, and the reservations. Other writers are kept out of the buffer
 * (snaptrace_record_disable()). No files yet: snaptrace_keeper_files_add().
 * Upstream has no twin: rproc_handle_trace() keeps no copy.
 *
 * Context: process context, may sleep.
 * Return: the keeper; ERR_PTR(-EINVAL) for a bad @size or no @ops,
 * -EBUSY if @instance exists with less room than @size, -ENOMEM, or the
 * error of snaptrace_get_by_name_cpu().
 */
struct snaptrace_keeper *
snaptrace_keeper_create(struct device *dev, int index, u32 size,
			const char *instance, const char *persist_name,
			const struct snaptrace_keeper_ops *ops, void *priv)
{
	size_t room = st_keep_room(size);
	int cpu = cpumask_first(cpu_possible_mask);
	struct snaptrace_keeper *k;
	int ret;

	if (!size || size > SNAPTRACE_RPROC_TRACE_MAX || !ops || !ops->read_live)
		return ERR_PTR(-EINVAL);
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return ERR_PTR(-ENOMEM);
	k->ops = ops;
	k->priv = priv;
	k->dev = dev;
	k->index = index;
	k->size = size;
	k->pr_src.slot = -1;
	k->res = kcalloc(ST_KEEP_RES(size), sizeof(*k->res), GFP_KERNEL);
	if (!k->res) {
		ret = -ENOMEM;
		goto free;
	}
	k->named = instance;
	if (instance)
		k->last = snaptrace_get_by_name_cpu(instance, room, cpu);
	else
		k->last = snaptrace_buffer_alloc_cpu(room, SNAPTRACE_OVERWRITE, cpu);
	if (IS_ERR(k->last)) {
		ret = PTR_ERR(k->last);
		snaptrace_dev_err(dev, "trace%d: cannot create %s%s: %d\n", index,
				  instance ? "instance " : "its capture buffer",
				  instance ?: "", ret);
		goto free;
	}
	if (instance && snaptrace_size_per_cpu(k->last) < room) {
		snaptrace_dev_err(dev, "trace%d: instance %s exists with %zu bytes per CPU, %zu needed\n",
				  index, instance, snaptrace_size_per_cpu(k->last),
				  room);
		ret = -EBUSY;
		goto put;
	}
	ret = snaptrace_alloc_snapshot(k->last);
	if (ret)
		goto put;
	k->last_cpu = snaptrace_buffer_home_cpu(k->last);
	if (k->last_cpu < 0)	/* made by instances=: room on every CPU */
		k->last_cpu = cpu;
	/* Only the captures write it, with snaptrace_reserve_on(). */
	snaptrace_record_disable(k->last);
	if (persist_name) {
		k->pr_src.buf = k->last;
		k->pr_src.cpu = k->last_cpu;
		k->pr_src.has_last = &k->has_last;
		k->pr_src.len = &k->last_len;
		k->pr_src.seq = &k->last_seq;
		k->pr_src.format = st_keep_pr_fmt;
		strscpy(k->pr_src.name, persist_name, sizeof(k->pr_src.name));
		if (snaptrace_persist_source_add(&k->pr_src))
			dev_info(dev, "trace%d: not kept at a host panic: %d last traces are kept already\n",
				 index, ST_PR_SRCS);
	}
	return k;

put:
	if (instance)
		snaptrace_put(k->last);
	else
		snaptrace_buffer_free(k->last);
free:
	kfree(k->res);
	kfree(k);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_create);

/* Give back what a grow made, or what it replaced; @k's persist source aside. */
static void st_keep_grown_free(struct snaptrace_keeper *k)
{
	if (!k->grown)
		return;
	snaptrace_record_enable(k->grown);
	snaptrace_buffer_free(k->grown);
	kfree(k->grown_res);
	k->grown = NULL;
	k->grown_res = NULL;
	k->grown_old = false;
}

/**
 * snaptrace_keeper_free() - give back a keeper and its last capture
 * @k: the keeper; NULL or an ERR_PTR() is ignored
 *
 * Removes its files (waiting for readers inside), takes it out of the
 * persistent capture's sources (then a grace period: a panic capture
 * reading it is done) and frees its buffer. No capture may run meanwhile.
 *
 * Context: process context, may sleep.
 */
void snaptrace_keeper_free(struct snaptrace_keeper *k)
{
	if (IS_ERR_OR_NULL(k))
		return;
	snaptrace_keeper_files_remove(k);
	if (snaptrace_persist_source_clear(&k->pr_src))
		synchronize_rcu();
	st_keep_grown_free(k);
	snaptrace_record_enable(k->last);
	if (k->named)
		snaptrace_put(k->last);
	else
		snaptrace_buffer_free(k->last);
	kfree(k->res);
	kfree(k);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_free);

/* Put @k's persistent capture's source back, after a resize took it out. */
static void st_keep_persist_back(struct snaptrace_keeper *k)
{
	k->pr_src.buf = k->last;
	k->pr_src.cpu = k->last_cpu;
	if (snaptrace_persist_source_add(&k->pr_src))
		dev_info(k->dev, "trace%d: no longer kept at a host panic: %d last traces are kept already\n",
			 k->index, ST_PR_SRCS);
}

/*
 * A keeper of a named instance grows the instance in place: it keeps its
 * name, and a failure leaves it, and the last capture, as they were. An
 * instance with room enough already (sizes round up to a power of two,
 * and instances= or buffer_size_kb may have made it larger) is not
 * resized: only the reservations grow, and the last capture stays.
 */
static int st_keep_resize_named(struct snaptrace_keeper *k, u32 size)
{
	struct snaptrace_reservation *res;
	bool registered;
	int ret;

	res = kcalloc(ST_KEEP_RES(size), sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	if (snaptrace_size_per_cpu(k->last) >= st_keep_room(size)) {
		swap(k->res, res);
		WRITE_ONCE(k->size, size);
		kfree(res);
		return 0;
	}
	registered = snaptrace_persist_source_clear(&k->pr_src);
	if (registered)
		synchronize_rcu();
	ret = snaptrace_resize_alone(k->last, st_keep_room(size));
	if (!ret) {
		WRITE_ONCE(k->has_last, false);
		swap(k->res, res);
		WRITE_ONCE(k->size, size);
	}
	kfree(res);
	if (registered)
		st_keep_persist_back(k);
	return ret;
}

/**
 * snaptrace_keeper_stage_grow() - make a larger buffer, to be swapped in
 * @k: the keeper, of a buffer of its own (made without an instance)
 * @size: the largest trace its captures are to hold, up to
 *	%SNAPTRACE_RPROC_TRACE_MAX; no larger than now: nothing done
 *
 * The slow half of snaptrace_keeper_resize(), done without the feeder's
 * lock against readers: a new buffer, its spare and reservations, which
 * no reader sees until snaptrace_keeper_publish() swaps them with the
 * keeper's (its last capture then dropped, unless a capture staged in
 * the new buffer replaces it); snaptrace_keeper_settle() frees the old
 * ones. The persistent capture's source goes out of the registry now (a
 * grace period) and comes back at the settle, with the new buffer. A
 * capture staged before, in the old buffer, is dropped. No upstream twin.
 *
 * Context: process context, may sleep; the feeder's own lock (no capture
 * of @k meanwhile); then snaptrace_keeper_publish() and
 * snaptrace_keeper_settle(), which must follow even on failure.
 * Return: 0; -EINVAL for a keeper of an instance or a @size out of range;
 * -ENOMEM (nothing staged then).
 */
int snaptrace_keeper_stage_grow(struct snaptrace_keeper *k, u32 size)
{
	int cpu = cpumask_first(cpu_possible_mask);
	struct snaptrace_reservation *res;
	struct snaptrace_buffer *buf;
	int ret;

	if (size <= k->size || (k->grown && !k->grown_old && size <= k->grown_size))
		return 0;
	if (k->named || size > SNAPTRACE_RPROC_TRACE_MAX)
		return -EINVAL;
	res = kcalloc(ST_KEEP_RES(size), sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	buf = snaptrace_buffer_alloc_cpu(st_keep_room(size), SNAPTRACE_OVERWRITE,
					 cpu);
	if (IS_ERR(buf)) {
		kfree(res);
		return PTR_ERR(buf);
	}
	ret = snaptrace_alloc_snapshot(buf);
	if (ret) {
		snaptrace_buffer_free(buf);
		kfree(res);
		return ret;
	}
	/* Only the captures write it, with snaptrace_reserve_on(). */
	snaptrace_record_disable(buf);
	st_keep_grown_free(k);
	k->staged = false;
	if (!k->pr_out) {
		k->pr_out = snaptrace_persist_source_clear(&k->pr_src);
		if (k->pr_out)
			synchronize_rcu();
	}
	k->grown = buf;
	k->grown_res = res;
	k->grown_size = size;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_stage_grow);

/**
 * snaptrace_keeper_resize() - make a keeper's captures hold a larger trace
 * @k: the keeper
 * @size: the largest trace its captures are to hold, up to
 *	%SNAPTRACE_RPROC_TRACE_MAX; no larger than now: nothing done
 *
 * For a feeder whose traces change size between boots (a new image): the
 * keeper holds @size bytes from now on. A keeper of its own buffer gets a
 * new buffer, spare and reservations in place of the old ones, its last
 * capture dropped. A keeper of a named instance keeps the instance: one
 * with room enough already is not resized, and keeps its last capture;
 * otherwise it is resized in place (snaptrace_resize_alone()), which the
 * keeper must be the only one to hold, and the last capture is dropped.
 * The persistent capture's source follows a resize (out of the registry,
 * a grace period, in again). On failure nothing changed, the last
 * capture included. No upstream twin.
 *
 * Context: process context, may sleep; no capture of @k and no reader of
 * its last capture meanwhile (the feeder's lock, the last_lock op's).
 * Return: 0; -EINVAL for a @size out of range; -EBUSY if @k's instance is
 * held by anyone else too (a reader of its files); -ENOMEM.
 */
int snaptrace_keeper_resize(struct snaptrace_keeper *k, u32 size)
{
	int ret;

	if (size <= k->size)
		return 0;
	if (size > SNAPTRACE_RPROC_TRACE_MAX)
		return -EINVAL;
	if (k->named)
		return st_keep_resize_named(k, size);
	ret = snaptrace_keeper_stage_grow(k, size);
	if (!ret)
		snaptrace_keeper_publish(k);
	snaptrace_keeper_settle(k);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_resize);

/*
 * Where a capture of @len bytes whose last byte that is not a NUL is at
 * @end - 1 (0: none) ends: there, or after the NUL that follows, where
 * that NUL does not take a piece of its own.
 */
static u32 st_keep_end_nul(u32 end, u32 len)
{
	return end && end < len && end % SNAPTRACE_MAX_PAYLOAD ? end + 1 : end;
}

/* Where a capture of @len bytes at @va ends (st_keep_end_nul()). */
static u32 st_keep_end(const u8 *va, u32 len)
{
	u32 end = len;

	while (end && !va[end - 1])
		end--;
	return st_keep_end_nul(end, len);
}

/*
 * The same through @read, 64 bytes at a time from the end. With the
 * capture's forward read of [0, end) the trace is read about once: this
 * scan reads the run of NULs that ends it, and at most 63 bytes of text
 * with them (the rest of the chunk that holds its last byte that is not a
 * NUL), which the capture reads again. Reading those 63 bytes once is not
 * worth its cost: the end must be known before the records are reserved
 * (a record's length is fixed when it is reserved, and
 * snaptrace_keeper_capture_slow() commits each one before it reads the
 * next, so a piece of NULs cannot be taken back), and keeping the chunk
 * for the last piece would add a bounce copy for at most 63 bytes.
 */
static u32 st_keep_end_slow(snaptrace_keeper_read_t read, void *ctx, u32 len)
{
	u8 chunk[64];
	u32 end = len, n, i;

	while (end) {
		n = min_t(u32, end, sizeof(chunk));
		if (read(ctx, end - n, chunk, n))
			memset(chunk, 0, n);
		for (i = n; i && !chunk[i - 1]; i--)
			;
		if (i) {
			end = end - n + i;
			break;
		}
		end -= n;
		cond_resched();
	}
	return st_keep_end_nul(end, len);
}

/*
 * A capture begins: @k->last_seq goes odd before the copy's first change
 * (its live half emptied), so that a host panic's capture that reads the
 * copy meanwhile (persist_capture.c) knows its text and @k->last_len may
 * not belong together.
 */
static void st_keep_seq_begin(struct snaptrace_keeper *k)
{
	WRITE_ONCE(k->last_seq, k->last_seq + 1);
	smp_wmb(); /* odd before the copy changes */
}

/*
 * A capture ends: if @ok, its snapshot taken, its length @len, then
 * has_last (released: a reader that sees it true sees the length), then
 * @k->last_seq even again. A capture that failed leaves the last one,
 * and its length.
 */
static void st_keep_seq_end(struct snaptrace_keeper *k, bool ok, u32 len)
{
	if (ok) {
		WRITE_ONCE(k->last_len, len);
		/* pairs with the acquires of has_last: the length first */
		smp_store_release(&k->has_last, true);
	}
	smp_wmb(); /* the copy and its length before the count */
	WRITE_ONCE(k->last_seq, k->last_seq + 1);
}

/* The head of a capture, a marker line, reserved in @res on @buf's @cpu. */
static bool st_keep_head(struct snaptrace_buffer *buf, int cpu,
			 const char *head, struct snaptrace_reservation *res)
{
	size_t n = strnlen(head, SNAPTRACE_MAX_PAYLOAD);
	void *p;

	p = snaptrace_reserve_on(buf, cpu, SNAPTRACE_REC_MARKER, n, res);
	if (!p)
		return false;
	memcpy(p, head, n);
	return true;
}

/**
 * snaptrace_keeper_capture() - capture a trace at a crash
 * @k: the keeper
 * @head: the capture's head line, "<remote> trace<N>: crash #<n> (<type>)"
 * @va: the trace, in memory the CPU reads directly
 * @len: its length in bytes (at most @k->size are kept)
 *
 * Copies the trace into the keeper's buffer, with what was allocated when
 * the keeper was made: nothing is allocated and nothing sleeps. The live
 * half is emptied first (what a capture that failed part-way left there
 * must not join this one); then the head, then the trace's bytes but the
 * NULs that end it (one kept), in pieces of up to %SNAPTRACE_MAX_PAYLOAD
 * bytes; a text that then ends with neither a NUL nor a newline gets a
 * one-byte NUL piece, so that the buffer's snapshot shows its end on a
 * line of its own. Every record is reserved and filled before the
 * snapshot and committed after it: the snapshot's cut puts them all in the
 * snapshot, none is ever visible in the live half. Each open reservation
 * is a level of preempt_count: @k->size bounds them. A capture that fails
 * (no room: never with the room allocated) leaves the last one. The
 * capture of a crash, as rproc_coredump() is upstream.
 *
 * Context: any but NMI; one capture of @k at a time, and the trace not
 * written meanwhile (the feeder's lock).
 * Return: true if @k now holds this capture.
 */
bool snaptrace_keeper_capture(struct snaptrace_keeper *k, const char *head,
			      const void *va, u32 len)
{
	const u8 *src = va;
	unsigned int i, nr = 0;
	u8 *p, last = 0;
	u32 end, off, n;
	int ret = -ENOSPC;

	len = min(len, k->size);
	end = st_keep_end(src, len);
	st_keep_seq_begin(k);
	snaptrace_reset(k->last);
	if (!st_keep_head(k->last, k->last_cpu, head, &k->res[nr]))
		goto commit;
	nr++;
	for (off = 0; off < end; off += n) {
		n = min_t(u32, end - off, SNAPTRACE_MAX_PAYLOAD);
		p = snaptrace_reserve_on(k->last, k->last_cpu,
					 SNAPTRACE_REC_TEXT, n, &k->res[nr]);
		if (!p)
			goto commit;
		nr++;
		memcpy(p, src + off, n);
		last = p[n - 1];
	}
	if (last && last != '\n') {
		p = snaptrace_reserve_on(k->last, k->last_cpu,
					 SNAPTRACE_REC_TEXT, 1, &k->res[nr]);
		if (!p)
			goto commit;
		nr++;
		*p = 0;
	}
	/* The spare was allocated with the keeper: no -ENOENT. */
	ret = snaptrace_snapshot(k->last);
commit:
	for (i = nr; i-- > 0; )
		snaptrace_commit(k->last, &k->res[i]);
	st_keep_seq_end(k, !ret, len);
	return !ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_capture);

/**
 * snaptrace_keeper_stage_slow() - make a capture, not yet shown
 * @k: the keeper
 * @head: the capture's head line, as snaptrace_keeper_capture()
 * @read: reads the trace's bytes (I/O memory: memcpy_fromio())
 * @ctx: for @read
 * @len: the trace's length in bytes (at most the buffer's capacity are
 *	kept: @k->size, or what snaptrace_keeper_stage_grow() staged)
 *
 * What snaptrace_keeper_capture() does, from memory that may be slow, in
 * a buffer no reader of the last capture looks at: the live half of
 * @k's buffer, or of the larger one snaptrace_keeper_stage_grow() made.
 * A record at a time with a chance to reschedule in between, each into
 * the ring of the buffer's home CPU whichever CPU this runs on (the one
 * writer of that buffer: snaptrace_reserve_on()); each record is
 * committed before the next is read, so the live half shows the capture
 * as it grows. traceN_last goes on showing the last capture until
 * snaptrace_keeper_publish(), the only step that needs the feeder's lock
 * against readers. Allocates nothing. No upstream twin.
 *
 * Context: process context, may sleep; the feeder's own lock (one
 * capture of @k at a time), not the one against readers.
 * Return: 0, a capture staged; -ENOSPC if it did not fit (never with the
 * room allocated; nothing staged).
 */
int snaptrace_keeper_stage_slow(struct snaptrace_keeper *k, const char *head,
				snaptrace_keeper_read_t read, void *ctx, u32 len)
{
	bool grown = k->grown && !k->grown_old;
	struct snaptrace_buffer *buf = grown ? k->grown : k->last;
	int cpu = snaptrace_buffer_home_cpu(buf);
	struct snaptrace_reservation res;
	u8 *p, last = 0;
	u32 end, off, n;

	if (cpu < 0)	/* made by instances=: room on every CPU */
		cpu = k->last_cpu;
	k->staged = false;
	len = min(len, grown ? k->grown_size : k->size);
	end = st_keep_end_slow(read, ctx, len);
	snaptrace_reset(buf);
	if (!st_keep_head(buf, cpu, head, &res))
		return -ENOSPC;
	snaptrace_commit(buf, &res);
	for (off = 0; off < end; off += n) {
		n = min_t(u32, end - off, SNAPTRACE_MAX_PAYLOAD);
		p = snaptrace_reserve_on(buf, cpu, SNAPTRACE_REC_TEXT, n, &res);
		if (!p)
			return -ENOSPC;
		if (read(ctx, off, p, n))
			memset(p, 0, n);
		last = p[n - 1];
		snaptrace_commit(buf, &res);
		cond_resched();
	}
	if (last && last != '\n') {
		p = snaptrace_reserve_on(buf, cpu, SNAPTRACE_REC_TEXT, 1, &res);
		if (!p)
			return -ENOSPC;
		*p = 0;
		snaptrace_commit(buf, &res);
	}
	k->staged = true;
	k->staged_len = len;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_stage_slow);

/**
 * snaptrace_keeper_publish() - show what was staged, at once
 * @k: the keeper
 *
 * A buffer snaptrace_keeper_stage_grow() made takes the place of @k's
 * (a swap of pointers: the last capture goes with the old buffer), and a
 * capture snaptrace_keeper_stage_slow() staged becomes the last one (a
 * snapshot of its buffer). A reader of the last capture sees it before or
 * after, whole. Nothing staged: nothing done. No upstream twin.
 *
 * Context: any but NMI; never sleeps nor allocates; the feeder's lock
 * against readers of the last capture (its last_lock op's) and its own.
 * snaptrace_keeper_settle() follows, out of the former.
 * Return: true if @k now holds a capture staged.
 */
bool snaptrace_keeper_publish(struct snaptrace_keeper *k)
{
	u32 size;
	bool ok;

	if (k->grown && !k->grown_old) {
		WRITE_ONCE(k->has_last, false);
		swap(k->last, k->grown);
		swap(k->res, k->grown_res);
		size = k->size;
		WRITE_ONCE(k->size, k->grown_size);
		k->grown_size = size;
		k->last_cpu = snaptrace_buffer_home_cpu(k->last);
		k->grown_old = true;
	}
	if (!k->staged)
		return false;
	k->staged = false;
	/* The spare was allocated with the buffer, not in NMI: no error. */
	st_keep_seq_begin(k);
	ok = !snaptrace_snapshot(k->last);
	st_keep_seq_end(k, ok, k->staged_len);
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_publish);

/**
 * snaptrace_keeper_settle() - give back what a publish replaced
 * @k: the keeper
 *
 * Frees the buffer snaptrace_keeper_publish() swapped out, or the one
 * snaptrace_keeper_stage_grow() made if nothing was published, and puts
 * the persistent capture's source back, with @k's buffer. A capture
 * staged and not published is dropped. Nothing staged: nothing done. No
 * upstream twin.
 *
 * Context: process context, may sleep; the feeder's own lock, not the one
 * against readers.
 */
void snaptrace_keeper_settle(struct snaptrace_keeper *k)
{
	k->staged = false;
	st_keep_grown_free(k);
	if (k->pr_out) {
		k->pr_out = false;
		st_keep_persist_back(k);
	}
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_settle);

/**
 * snaptrace_keeper_capture_slow() - capture a trace in process context
 * @k: the keeper
 * @head: the capture's head line, as snaptrace_keeper_capture()
 * @read: reads the trace's bytes (I/O memory: memcpy_fromio())
 * @ctx: for @read
 * @len: the trace's length in bytes (at most @k->size are kept)
 *
 * snaptrace_keeper_stage_slow() then snaptrace_keeper_publish(), for a
 * feeder whose readers wait for its captures anyway (our own remotes'
 * queued capture: their last_lock op waits for it). The live half shows
 * the capture as it grows; the snapshot half, which traceN_last reads,
 * gets it whole at the end. Allocates nothing.
 *
 * Context: process context, may sleep; one capture of @k at a time.
 * Return: true if @k now holds this capture.
 */
bool snaptrace_keeper_capture_slow(struct snaptrace_keeper *k,
				   const char *head,
				   snaptrace_keeper_read_t read, void *ctx,
				   u32 len)
{
	return !snaptrace_keeper_stage_slow(k, head, read, ctx, len) &&
	       snaptrace_keeper_publish(k);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_capture_slow);

/**
 * snaptrace_keeper_forget() - the last crash did not capture this trace
 * @k: the keeper
 *
 * traceN_last shows nothing until the next capture (a crash whose table
 * had no such trace, or whose copy failed, must not show an older one).
 *
 * Context: any; serialised with the captures by the feeder.
 */
void snaptrace_keeper_forget(struct snaptrace_keeper *k)
{
	WRITE_ONCE(k->has_last, false);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_forget);

/**
 * snaptrace_keeper_read_last() - the last capture, as the trace was
 * @k: the keeper
 * @buf: where to copy it
 * @size: size of @buf in bytes
 *
 * Takes the feeder's &snaptrace_keeper_ops.last_lock (a capture in
 * progress is waited for), copies the last capture's bytes into @buf and
 * NULs after them up to @size: the trace as it was at the crash. A crash
 * that replaces the capture while it is read is read instead.
 *
 * Context: process context, may sleep.
 * Return: the trace's length at the capture (@k->last_len), at most
 * @size; 0 if nothing was captured; -ENOMEM, or the error of the
 * last_lock op.
 */
ssize_t snaptrace_keeper_read_last(struct snaptrace_keeper *k, void *buf,
				   size_t size)
{
	struct snaptrace_record *rec = NULL;
	struct snaptrace_iter *iter;
	size_t len = 0, n;
	ssize_t err = 0;
	bool have = false;
	int ret;

	if (k->ops->last_lock) {
		ret = k->ops->last_lock(k);
		if (ret)
			return ret;
	}
	/* pairs with st_keep_seq_end()'s release: then last_len */
	if (!smp_load_acquire(&k->has_last))
		goto out;
	rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec) {
		err = -ENOMEM;
		goto out;
	}
	do {	/* a crash replaced the capture while we read it: read the new one */
		iter = snaptrace_iter_start(k->last, SNAPTRACE_SNAPSHOT,
					    SNAPTRACE_ALL_CPUS);
		if (IS_ERR(iter)) {
			err = PTR_ERR(iter);
			len = 0;
			goto out;
		}
		len = 0;
		while (!(ret = snaptrace_iter_next(iter, rec))) {
			if (rec->type == SNAPTRACE_REC_MARKER)
				len = 0;	/* a capture's head: only the last counts */
			if (rec->type != SNAPTRACE_REC_TEXT)
				continue;
			n = min_t(size_t, rec->len, size - len);
			memcpy(buf + len, rec->data, n);
			len += n;
		}
		snaptrace_iter_stop(iter);
	} while (ret == -ESTALE);
	have = true;
out:
	kfree(rec);
	if (k->ops->last_unlock)
		k->ops->last_unlock(k);
	if (err)
		return err;
	memset(buf + len, 0, size - len);
	return have ? min_t(size_t, READ_ONCE(k->last_len), size) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_keeper_read_last);
