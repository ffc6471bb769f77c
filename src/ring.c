// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer: its halves and its life. A buffer is two halves
 * of per-CPU byte rings, the live one and the spare that holds the
 * snapshot; this file allocates, resizes and frees them and the buffer,
 * and holds the recording switches. Recording is in ring_write.c (the
 * epochs in ring_epoch.c), reading in ring_read.c (waiting for data in
 * ring_wait.c), snapshots, clears and resets in ring_snapshot.c; the
 * layout and the invariants they share in ring.h, the design and its
 * proof in Documentation/ring-buffer.rst. Upstream twin:
 * kernel/trace/ring_buffer.c (ring_buffer_alloc(), _resize()) and the
 * snapshot buffer's allocation in kernel/trace/trace.c
 * (tracing_alloc_snapshot()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "ring.h"

/* ------------------------------------------------------------------ */
/* The test hook and clock (st_hook() and st_clock() in ring.h) */

#if IS_ENABLED(CONFIG_KUNIT)
snaptrace_test_hook_fn snaptrace_test_hook;
EXPORT_SYMBOL_IF_KUNIT(snaptrace_test_hook);
snaptrace_test_clock_fn snaptrace_test_clock;
EXPORT_SYMBOL_IF_KUNIT(snaptrace_test_clock);
#endif

/* ------------------------------------------------------------------ */
/* Halves */

/* The anchor of every ring of size 0: zero, never valid, never written. */
static struct st_anchor st_no_anchor;

static void st_half_free(struct st_half *half)
{
	int cpu;

	if (!half)
		return;
	for_each_possible_cpu(cpu) {
		struct st_ring *r = per_cpu_ptr(half->rings, cpu);

		vfree(r->data);
		if (r->anchors != &st_no_anchor)
			kvfree(r->anchors);
	}
	free_percpu(half->rings);
	kfree(half);
}

/*
 * A half whose rings are open (live), or empty spares (@spare): @size
 * bytes on @home, size 0 and no data elsewhere; @size on every CPU if
 * @home is -1.
 */
static struct st_half *st_half_alloc(unsigned long size, bool spare, int home)
{
	struct st_half *half;
	int cpu;

	half = kzalloc(sizeof(*half), GFP_KERNEL);
	if (!half)
		return NULL;
	half->size = size;
	half->rings = alloc_percpu(struct st_ring);
	if (!half->rings)
		goto fail;
	for_each_possible_cpu(cpu) {
		struct st_ring *r = per_cpu_ptr(half->rings, cpu);
		unsigned long sz = st_ring_size(home, size, cpu);

		if (spare) {
			atomic_long_set(&r->head, ST_SEAL | ST_SPARE | ST_PENDING);
			atomic_long_set(&r->tail, ST_SEAL);
		}
		/*
		 * Size 0: no data, mask 0, always full (ring.h); a writer
		 * reads an anchor before it finds that out: one that never
		 * names a frame.
		 */
		if (!sz) {
			r->anchors = &st_no_anchor;
			continue;
		}
		/*
		 * Zeroed: a reader never sees stale kernel memory, and no
		 * anchor is valid. The anchors apart (kvzalloc(): slab for
		 * all but the largest rings), so that they do not round the
		 * data's vmalloc area up by a page.
		 */
		r->data = vzalloc_node(sz, cpu_to_node(cpu));
		if (!r->data)
			goto fail;
		r->anchors = kvzalloc_node(st_anchor_bytes(sz), GFP_KERNEL,
					   cpu_to_node(cpu));
		if (!r->anchors)
			goto fail;
		r->size = sz;
		r->mask = sz - 1;
		r->amask = ST_ANCHORS(sz) - 1;
	}
	return half;

fail:
	if (half->rings)
		st_half_free(half);
	else
		kfree(half);
	return NULL;
}

/* Make @a and @b each other's twin on every CPU (or unpair @a if !@b). */
static void st_half_pair(struct st_half *a, struct st_half *b)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct st_ring *ra = per_cpu_ptr(a->rings, cpu);

		WRITE_ONCE(ra->twin, b ? per_cpu_ptr(b->rings, cpu) : NULL);
		if (b)
			WRITE_ONCE(per_cpu_ptr(b->rings, cpu)->twin, ra);
	}
}

/* ------------------------------------------------------------------ */
/* Buffer lifetime and control */

static unsigned long st_round_size(size_t size)
{
	if (size == 0 || size > SNAPTRACE_MAX_SIZE)
		return 0;
	size = max_t(size_t, size, SNAPTRACE_MIN_SIZE);
	return roundup_pow_of_two(PAGE_ALIGN(size));
}

static struct snaptrace_buffer *st_buffer_alloc(size_t size_req,
						enum snaptrace_mode mode,
						int home)
{
	unsigned long size = st_round_size(size_req);
	struct snaptrace_buffer *buf;
	struct st_half *half;

	if (!size || (mode != SNAPTRACE_OVERWRITE &&
		      mode != SNAPTRACE_STOP_WHEN_FULL))
		return ERR_PTR(-EINVAL);

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	half = st_half_alloc(size, false, home);
	if (!half) {
		kfree(buf);
		return ERR_PTR(-ENOMEM);
	}
	RCU_INIT_POINTER(buf->half[0], half);
	snaptrace_ring_wait_init(buf);
	buf->size = size;
	buf->home_cpu = home;
	buf->mode = mode;
	buf->record_on = true;
	mutex_init(&buf->lock);
	return buf;
}

/**
 * snaptrace_buffer_alloc() - allocate a ring buffer
 * @size_per_cpu: bytes per CPU, rounded up to a power-of-two number of
 *	pages, at least %SNAPTRACE_MIN_SIZE, at most %SNAPTRACE_MAX_SIZE
 * @mode: %SNAPTRACE_OVERWRITE or %SNAPTRACE_STOP_WHEN_FULL
 *
 * Allocates the live half only (one ring per possible CPU, zeroed), with
 * recording on. The spare for snapshots costs nothing until
 * snaptrace_alloc_snapshot(). Mirrors ring_buffer_alloc().
 *
 * Context: process context, may sleep (GFP_KERNEL, vmalloc).
 * Return: the buffer; ERR_PTR(-EINVAL) for a bad size or mode, -ENOMEM.
 */
struct snaptrace_buffer *snaptrace_buffer_alloc(size_t size_per_cpu,
						enum snaptrace_mode mode)
{
	return st_buffer_alloc(size_per_cpu, mode, -1);
}
EXPORT_SYMBOL_GPL(snaptrace_buffer_alloc);

/**
 * snaptrace_buffer_alloc_cpu() - allocate a ring buffer with room on one CPU
 * @size: bytes of @cpu's ring, rounded as by snaptrace_buffer_alloc()
 * @mode: %SNAPTRACE_OVERWRITE or %SNAPTRACE_STOP_WHEN_FULL
 * @cpu: the home CPU, the only one whose rings get @size bytes
 *
 * As snaptrace_buffer_alloc(), but every other possible CPU's rings have
 * size 0 and no memory: a write there is refused and counted as dropped
 * (I2 in ring.h). The geometry is the buffer's: snaptrace_alloc_snapshot()
 * and snaptrace_resize() keep it, and snaptrace_size_per_cpu() gives the
 * home ring's size. Meant for a buffer written by one serialized writer
 * from any CPU through snaptrace_reserve_on() (a remote's crash capture),
 * which costs @size, or twice that with the spare, instead of that times
 * every possible CPU. No upstream twin: ftrace's per-CPU buffers may be
 * resized one by one (ring_buffer_resize() with a CPU), never to nothing.
 *
 * Context: process context, may sleep (GFP_KERNEL, vmalloc).
 * Return: the buffer; ERR_PTR(-EINVAL) for a bad size, mode or CPU (not
 * possible), -ENOMEM.
 */
struct snaptrace_buffer *snaptrace_buffer_alloc_cpu(size_t size,
						    enum snaptrace_mode mode,
						    int cpu)
{
	if (!st_cpu_valid(cpu))
		return ERR_PTR(-EINVAL);
	return st_buffer_alloc(size, mode, cpu);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_buffer_alloc_cpu);

/**
 * snaptrace_buffer_home_cpu() - the CPU a one-CPU buffer has its room on
 * @buf: the buffer
 *
 * Context: any. Never sleeps.
 * Return: the home CPU given to snaptrace_buffer_alloc_cpu(), or -1 for a
 * buffer with a ring of the same size on every possible CPU.
 */
int snaptrace_buffer_home_cpu(struct snaptrace_buffer *buf)
{
	return buf->home_cpu;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_buffer_home_cpu);

/**
 * snaptrace_size_total() - bytes of the live half's rings, all CPUs
 * @buf: the buffer
 *
 * What ``buffer_total_size_kb`` shows (as ftrace's, the spare is not
 * counted; it costs as much again when allocated): what each CPU's ring
 * takes, its size and its time anchors (32 bytes per 8 KiB), times the
 * possible CPUs, or the home ring's alone for a one-CPU buffer.
 *
 * Context: any. Never sleeps.
 * Return: bytes.
 */
size_t snaptrace_size_total(struct snaptrace_buffer *buf)
{
	size_t size = READ_ONCE(buf->size);

	size += st_anchor_bytes(size);
	return buf->home_cpu < 0 ? size * num_possible_cpus() : size;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_size_total);

/**
 * snaptrace_buffer_free() - free a ring buffer and its spare
 * @buf: the buffer; NULL is ignored
 *
 * The caller guarantees that no writer, reader or snapshot trigger can
 * reach @buf any more; writers still inside a reservation are waited for.
 * Mirrors ring_buffer_free().
 *
 * Context: process context, may sleep (synchronize_rcu()).
 */
void snaptrace_buffer_free(struct snaptrace_buffer *buf)
{
	if (!buf)
		return;
	synchronize_rcu();	/* writers, who may queue the wake-up */
	snaptrace_ring_wait_sync(buf);
	st_half_free(rcu_dereference_protected(buf->half[0], 1));
	st_half_free(rcu_dereference_protected(buf->half[1], 1));
	mutex_destroy(&buf->lock);
	kfree(buf);
}
EXPORT_SYMBOL_GPL(snaptrace_buffer_free);

/**
 * snaptrace_set_mode() - switch between overwrite and stop-when-full
 * @buf: the buffer
 * @mode: %SNAPTRACE_OVERWRITE or %SNAPTRACE_STOP_WHEN_FULL; other values
 *	are ignored
 *
 * Takes effect for the next reservation; the contents are kept.
 *
 * Context: any. Never sleeps.
 */
void snaptrace_set_mode(struct snaptrace_buffer *buf, enum snaptrace_mode mode)
{
	if (mode == SNAPTRACE_OVERWRITE || mode == SNAPTRACE_STOP_WHEN_FULL)
		WRITE_ONCE(buf->mode, mode);
}
EXPORT_SYMBOL_GPL(snaptrace_set_mode);

/**
 * snaptrace_get_mode() - the buffer's mode
 * @buf: the buffer
 *
 * Context: any. Never sleeps.
 * Return: %SNAPTRACE_OVERWRITE or %SNAPTRACE_STOP_WHEN_FULL.
 */
enum snaptrace_mode snaptrace_get_mode(struct snaptrace_buffer *buf)
{
	return READ_ONCE(buf->mode);
}
EXPORT_SYMBOL_GPL(snaptrace_get_mode);

/**
 * snaptrace_record_on() - let writers record again
 * @buf: the buffer
 *
 * Mirrors ring_buffer_record_on(); snaptrace_on() is tracing_on()'s
 * mirror, on the default instance.
 *
 * Context: any. Never sleeps.
 */
void snaptrace_record_on(struct snaptrace_buffer *buf)
{
	WRITE_ONCE(buf->record_on, true);
}
EXPORT_SYMBOL_GPL(snaptrace_record_on);

/**
 * snaptrace_record_off() - make writers fail, keeping what is recorded
 * @buf: the buffer
 *
 * Reservations that are already open still commit. Readers waiting in
 * snaptrace_wait() with @until_off are woken. Mirrors
 * ring_buffer_record_off(); snaptrace_off() is tracing_off()'s mirror.
 *
 * Context: any, NMI included. Never sleeps.
 */
void snaptrace_record_off(struct snaptrace_buffer *buf)
{
	WRITE_ONCE(buf->record_on, false);
	smp_mb(); /* the flag before the look at waiters (pairs with st_wait_cond) */
	st_wake_waiters(buf);
}
EXPORT_SYMBOL_GPL(snaptrace_record_off);

/**
 * snaptrace_record_is_on() - whether writers may record
 * @buf: the buffer
 *
 * Context: any. Never sleeps.
 * Return: true if recording is on.
 */
bool snaptrace_record_is_on(struct snaptrace_buffer *buf)
{
	return READ_ONCE(buf->record_on);
}
EXPORT_SYMBOL_GPL(snaptrace_record_is_on);

/**
 * snaptrace_record_disable() - refuse writers until a matching enable
 * @buf: the buffer
 *
 * A count, apart from the user's switch (snaptrace_record_on()/_off()):
 * writers are refused while it is above 0. Reservations
 * already open still commit. Mirrors ring_buffer_record_disable(). Every
 * call must be matched by one snaptrace_record_enable(): callers keep
 * their own count (snaptrace_stop() does).
 *
 * Context: any, NMI included. Never sleeps.
 */
void snaptrace_record_disable(struct snaptrace_buffer *buf)
{
	atomic_inc(&buf->record_disabled);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_record_disable);

/**
 * snaptrace_record_enable() - undo one snaptrace_record_disable()
 * @buf: the buffer
 *
 * Mirrors ring_buffer_record_enable().
 *
 * Context: any, NMI included. Never sleeps.
 */
void snaptrace_record_enable(struct snaptrace_buffer *buf)
{
	atomic_dec(&buf->record_disabled);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_record_enable);

/**
 * snaptrace_set_stop_on_miss() - stop recording when a snapshot misses
 * @buf: the buffer
 * @stop: true: a snapshot() with no spare allocated writes a marker record
 *	and turns recording off, as ftrace's tracing_snapshot() does
 *
 * Context: any. Never sleeps.
 */
void snaptrace_set_stop_on_miss(struct snaptrace_buffer *buf, bool stop)
{
	WRITE_ONCE(buf->stop_on_miss, stop);
}
EXPORT_SYMBOL_GPL(snaptrace_set_stop_on_miss);

/**
 * snaptrace_ring_bytes() - the memory one CPU's ring of one half has
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a possible CPU
 *
 * For tests of the geometry (snaptrace_buffer_alloc_cpu()): checks that
 * the ring's size, mask and data agree.
 *
 * Context: process context, may sleep (takes the reader mutex).
 * Return: the ring's bytes of data (0 for a ring of size 0); -EINVAL for a
 * bad @cpu; -ENOENT if @which is the snapshot and no spare is allocated;
 * -EIO if size, mask and data disagree.
 */
ssize_t snaptrace_ring_bytes(struct snaptrace_buffer *buf,
			     enum snaptrace_which which, int cpu)
{
	struct st_half *half;
	struct st_ring *r;
	ssize_t ret;

	if (!st_cpu_valid(cpu))
		return -EINVAL;
	mutex_lock(&buf->lock);
	half = st_half_in(buf, st_state(buf), which);
	if (half) {
		r = per_cpu_ptr(half->rings, cpu);
		ret = r->size;
		if (!r->size ? r->data || r->mask :
		    !r->data || r->mask != r->size - 1 ||
		    r->size != half->size)
			ret = -EIO;
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&buf->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_ring_bytes);

/**
 * snaptrace_size_per_cpu() - size of each CPU's ring
 * @buf: the buffer
 *
 * Context: any. Never sleeps.
 * Return: bytes per CPU, as rounded by snaptrace_buffer_alloc(); for a
 * one-CPU buffer (snaptrace_buffer_alloc_cpu()), of its home CPU's ring
 * (the others have none).
 */
size_t snaptrace_size_per_cpu(struct snaptrace_buffer *buf)
{
	return READ_ONCE(buf->size);
}
EXPORT_SYMBOL_GPL(snaptrace_size_per_cpu);

/**
 * snaptrace_resize() - change the size of every CPU's ring
 * @buf: the buffer
 * @size_per_cpu: bytes per CPU, rounded as for snaptrace_buffer_alloc()
 *
 * Allocates new rings for the live half and, if allocated, the spare, so
 * both keep the same geometry; then swaps them in and frees the old ones
 * once no writer is inside them. A one-CPU buffer stays one: @size_per_cpu
 * is then its home ring's size. The contents of both halves and their
 * counters are discarded. On failure nothing changes. Mirrors
 * ring_buffer_resize() (which keeps contents; this one does not).
 *
 * Context: process context, may sleep (GFP_KERNEL, vmalloc,
 * synchronize_rcu()). A snapshot from an NMI that interrupts the swap of
 * the halves on this CPU gets -EBUSY; elsewhere snapshots wait for it.
 * Return: 0; -EINVAL for a bad size; -ENOMEM.
 */
int snaptrace_resize(struct snaptrace_buffer *buf, size_t size_per_cpu)
{
	unsigned long size = st_round_size(size_per_cpu);
	struct st_half *live, *spare = NULL, *old_live, *old_spare;
	unsigned long flags;
	long s;

	if (!size)
		return -EINVAL;

	mutex_lock(&buf->lock);
	live = st_half_alloc(size, false, buf->home_cpu);
	if (!live)
		goto nomem;
	/* Whether there is a spare changes only under @lock. */
	if (st_half_in(buf, st_state(buf), SNAPTRACE_SNAPSHOT)) {
		spare = st_half_alloc(size, true, buf->home_cpu);
		if (!spare)
			goto nomem;
		st_half_pair(live, spare);
	}

	st_lock_irqsave(buf, ST_LOCK_HALVES, &flags);
	s = st_state(buf);
	old_live = st_half_in(buf, s, SNAPTRACE_LIVE);
	old_spare = st_half_in(buf, s, SNAPTRACE_SNAPSHOT);
	rcu_assign_pointer(buf->half[s & 1], live);
	rcu_assign_pointer(buf->half[!(s & 1)], spare);
	WRITE_ONCE(buf->size, size);
	st_unlock_irqrestore(buf, flags);

	synchronize_rcu(); /* writers still in the old rings */
	st_half_free(old_live);
	st_half_free(old_spare);
	buf->frees++;
	mutex_unlock(&buf->lock);
	return 0;

nomem:
	st_half_free(live);
	mutex_unlock(&buf->lock);
	pr_err("resize to %lu bytes per CPU: out of memory\n", size);
	return -ENOMEM;
}
EXPORT_SYMBOL_GPL(snaptrace_resize);

/* ------------------------------------------------------------------ */
/* Snapshot */

/**
 * snaptrace_alloc_snapshot() - allocate the spare half, if not yet done
 * @buf: the buffer
 *
 * Allocates the spare with the live half's geometry (one CPU's ring only
 * for a buffer of snaptrace_buffer_alloc_cpu()), empty, and does
 * nothing else: no snapshot is taken. Idempotent: concurrent callers get
 * one allocation. Mirrors tracing_alloc_snapshot().
 *
 * Context: process context, may sleep (GFP_KERNEL, vmalloc).
 * Return: 0 (also when already allocated); -ENOMEM, with nothing changed.
 */
int snaptrace_alloc_snapshot(struct snaptrace_buffer *buf)
{
	struct st_half *spare;
	unsigned long flags;
	int ret = 0;
	long s;

	mutex_lock(&buf->lock);
	/* Without a spare no snapshot changes the roles: state is stable. */
	if (!st_half_in(buf, st_state(buf), SNAPTRACE_SNAPSHOT)) {
		spare = st_half_alloc(buf->size, true, buf->home_cpu);
		if (spare) {
			st_lock_irqsave(buf, ST_LOCK_HALVES, &flags);
			s = st_state(buf);
			/* Twins first: a writer looks at them once a ring is sealed. */
			st_half_pair(st_half_in(buf, s, SNAPTRACE_LIVE), spare);
			rcu_assign_pointer(buf->half[!(s & 1)], spare);
			st_unlock_irqrestore(buf, flags);
		} else {
			pr_err("snapshot buffer of %lu bytes per CPU: out of memory\n",
			       buf->size);
			ret = -ENOMEM;
		}
	}
	mutex_unlock(&buf->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_alloc_snapshot);

/**
 * snaptrace_snapshot_is_allocated() - whether the spare half exists
 * @buf: the buffer
 *
 * Context: any. Never sleeps.
 * Return: true once snaptrace_alloc_snapshot() succeeded, until
 * snaptrace_free_snapshot().
 */
bool snaptrace_snapshot_is_allocated(struct snaptrace_buffer *buf)
{
	return rcu_access_pointer(buf->half[!(st_state(buf) & 1)]);
}
EXPORT_SYMBOL_GPL(snaptrace_snapshot_is_allocated);

/**
 * snaptrace_free_snapshot() - free the spare half
 * @buf: the buffer
 *
 * Safe while snapshots are triggered from interrupts or NMIs: they wait
 * for the change (or get -EBUSY in an NMI on this CPU during it) and
 * -ENOENT after it; writers still inside the freed half are waited for.
 * Idempotent. Mirrors tracing_snapshot_free() ("echo 0 > snapshot").
 *
 * Context: process context, may sleep (synchronize_rcu()).
 */
void snaptrace_free_snapshot(struct snaptrace_buffer *buf)
{
	struct st_half *spare;
	unsigned long flags;
	long s;

	mutex_lock(&buf->lock);
	st_lock_irqsave(buf, ST_LOCK_HALVES, &flags);
	s = st_state(buf);
	spare = st_half_in(buf, s, SNAPTRACE_SNAPSHOT);
	if (spare) {
		RCU_INIT_POINTER(buf->half[!(s & 1)], NULL);
		st_half_pair(st_half_in(buf, s, SNAPTRACE_LIVE), NULL);
	}
	st_unlock_irqrestore(buf, flags);
	if (spare) {
		synchronize_rcu();
		st_half_free(spare);
		buf->frees++;
	}
	mutex_unlock(&buf->lock);
}
EXPORT_SYMBOL_GPL(snaptrace_free_snapshot);
