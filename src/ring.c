// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer: its halves and its life. A buffer is two halves
 * of per-CPU byte rings, the live one and the spare that holds the
 * snapshot; this file allocates, resizes and frees them and the buffer,
 * and holds the recording switches. Recording is in ring_write.c,
 * reading in ring_read.c, snapshots, clears and resets in
 * ring_snapshot.c; the layout and the invariants they share in ring.h,
 * the design and its proof in Documentation/ring-buffer.rst. Upstream
 * twin: kernel/trace/ring_buffer.c (ring_buffer_alloc(), _resize()) and
 * the snapshot buffer's allocation in kernel/trace/trace.c
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
/* The test hook (st_hook() in ring.h) */

#if IS_ENABLED(CONFIG_KUNIT)
snaptrace_test_hook_fn snaptrace_test_hook;
EXPORT_SYMBOL_IF_KUNIT(snaptrace_test_hook);
#endif

/* ------------------------------------------------------------------ */
/* Halves */

static void st_half_free(struct st_half *half)
{
	int cpu;

	if (!half)
		return;
	for_each_possible_cpu(cpu)
		vfree(per_cpu_ptr(half->rings, cpu)->data);
	free_percpu(half->rings);
	kfree(half);
}

/* A half whose rings are open (live), or empty spares (@spare). */
static struct st_half *st_half_alloc(unsigned long size, bool spare)
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

		/* Zeroed: a reader never sees stale kernel memory. */
		r->data = vzalloc_node(size, cpu_to_node(cpu));
		if (!r->data)
			goto fail;
		r->size = size;
		r->mask = size - 1;
		if (spare) {
			atomic_long_set(&r->head, ST_SEAL | ST_SPARE | ST_PENDING);
			atomic_long_set(&r->tail, ST_SEAL);
		}
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
	unsigned long size = st_round_size(size_per_cpu);
	struct snaptrace_buffer *buf;
	struct st_half *half;

	if (!size || (mode != SNAPTRACE_OVERWRITE &&
		      mode != SNAPTRACE_STOP_WHEN_FULL))
		return ERR_PTR(-EINVAL);

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	half = st_half_alloc(size, false);
	if (!half) {
		kfree(buf);
		return ERR_PTR(-ENOMEM);
	}
	RCU_INIT_POINTER(buf->half[0], half);
	snaptrace_ring_wait_init(buf);
	buf->size = size;
	buf->mode = mode;
	buf->record_on = true;
	mutex_init(&buf->lock);
	return buf;
}
EXPORT_SYMBOL_GPL(snaptrace_buffer_alloc);

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
 * snaptrace_size_per_cpu() - size of each CPU's ring
 * @buf: the buffer
 *
 * Context: any. Never sleeps.
 * Return: bytes per CPU, as rounded by snaptrace_buffer_alloc().
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
 * once no writer is inside them. The contents of both halves and their
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
	live = st_half_alloc(size, false);
	if (!live)
		goto nomem;
	/* Whether there is a spare changes only under @lock. */
	if (st_half_in(buf, st_state(buf), SNAPTRACE_SNAPSHOT)) {
		spare = st_half_alloc(size, true);
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
 * Allocates the spare with the live half's geometry, empty, and does
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
		spare = st_half_alloc(buf->size, true);
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
