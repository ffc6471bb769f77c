// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer: per-CPU lockless recording, consuming and
 * non-consuming readers, and a spare half for O(1) snapshots.
 *
 * The design, with the invariants named here, is in
 * Documentation/ring-buffer.rst. In short:
 *
 * Each CPU has a byte ring of size 2^k pages. Positions are byte offsets
 * that only grow (unsigned long, 64-bit); a position's place in the ring is
 * pos & mask. Three positions describe a ring:
 *
 *   tail <= commit <= head
 *
 *   head    bytes reserved by writers on this CPU (local_cmpxchg: only this
 *           CPU's writers, nested by interrupts and NMIs, move it)
 *   commit  bytes whose records are complete; only the outermost writer on
 *           this CPU moves it, to head, when it commits (as ftrace's
 *           rb_end_commit() does)
 *   tail    oldest record still in the buffer; moved by consumers (any CPU,
 *           cmpxchg), by writers in overwrite mode pushing it out of the
 *           way (cmpxchg), and by a reset (tail = head, cmpxchg)
 *
 * I1: a record never straddles the end of the ring; the bytes left before
 *     the end become one padding record, reserved with the record.
 * I2: a writer never reserves past commit + size: the bytes of a record
 *     still being written are never reused (such a record is dropped).
 * I3: a writer moves tail past the bytes it will overwrite before it
 *     writes them (the successful cmpxchg orders the two).
 * I4: a reader copies a record, then re-reads tail: if tail passed the
 *     record, the copy may be torn and is thrown away. Records are only
 *     overwritten after tail passed them (I3), so a copy that survives the
 *     re-check is intact.
 * I5: a remote CPU never writes head, commit or the local_t counters of a
 *     ring; a reset stores baselines instead of zeroing counters.
 *
 * The buffer has two halves, live and spare. snapshot() resets the spare
 * (O(nr_cpu_ids)), publishes it as live and keeps the former live as the
 * spare: a pointer swap. Writers find the live half under
 * preempt_disable() (an RCU-sched read side, NMIs included), so freeing a
 * half waits with synchronize_rcu().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/local.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"

/* 32-bit kernels emulate atomic64_t with a spinlock: not NMI-safe. */
#ifndef CONFIG_64BIT
#error "snaptrace needs a 64-bit kernel"
#endif

#define ST_REC_PAD	0x50	/* padding up to the end of the ring (I1) */
#define ST_ALIGN	8

/*
 * Record header, in the ring before the payload. Padding has only the
 * first three fields (8 bytes): it may be all that is left before the end
 * of the ring.
 */
struct st_hdr {
	u32 len;	/* whole record, header included, multiple of ST_ALIGN */
	u16 type;	/* enum snaptrace_rec_type or ST_REC_PAD */
	u16 size;	/* payload bytes */
	u64 ts;		/* ns, local_clock(); not in padding */
};

#define ST_HDR_SIZE	sizeof(struct st_hdr)
#define ST_PAD_MIN	offsetof(struct st_hdr, ts)

static_assert(ST_HDR_SIZE == 16 && ST_PAD_MIN == ST_ALIGN);
static_assert(SNAPTRACE_MAX_PAYLOAD + ST_HDR_SIZE <= SNAPTRACE_MIN_SIZE / 2);

/* Counters a reset sets the zero of (I5). */
struct st_base {
	unsigned long committed;
	unsigned long dropped;
	unsigned long overrun;
	unsigned long read;
	unsigned long pos;
};

/* One CPU's ring of one half. */
struct st_ring {
	local_t head;
	local_t commit;
	local_t committing;	/* open reservations on this CPU (nesting) */
	local_t commits;	/* reservations begun; detects nested commits */
	local_t committed;	/* records committed */
	local_t dropped;	/* records refused */
	local_t overrun;	/* records overwritten unread */
	atomic64_t tail;
	atomic64_t read;	/* records consumed (any CPU) */
	struct st_base base;	/* written by resets, under the swap lock */
	unsigned long size;
	unsigned long mask;
	u8 *data;
};

/* A set of per-CPU rings: the live half or the spare. */
struct st_half {
	struct st_ring __percpu *rings;
	unsigned long size;	/* bytes per CPU */
	atomic_t epoch;		/* odd during a reset; +2 by every reset */
};

struct snaptrace_buffer {
	struct st_half __rcu *live;
	struct st_half *spare;		/* NULL until alloc_snapshot */
	atomic_t swap_busy;		/* the swap lock: a trylock for triggers */
	int mode;			/* enum snaptrace_mode */
	bool record_on;			/* the user's switch */
	atomic_t record_disabled;	/* resets in progress: writers refused */
	bool stop_on_miss;
	atomic64_t snapshot_misses;
	struct mutex lock;		/* readers, resize, alloc/free of the spare */
	unsigned long size;		/* bytes per CPU, under @lock */
	unsigned long frees;		/* halves freed so far, under @lock */
	bool waiters;			/* a reader sleeps in snaptrace_wait() */
	struct irq_work wake_work;	/* wakes them: writers may be in NMI */
	wait_queue_head_t waitq;
};

struct snaptrace_iter {
	struct snaptrace_buffer *buf;
	struct st_half *half;
	enum snaptrace_which which;
	unsigned long frees;
	int epoch;
	int cpu;			/* a CPU, or SNAPTRACE_ALL_CPUS */
	unsigned long pos[];		/* per CPU: next record to return */
};

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

static struct st_half *st_half_alloc(unsigned long size)
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
	}
	return half;

fail:
	if (half->rings)
		st_half_free(half);
	else
		kfree(half);
	return NULL;
}

/* Empty one ring: tail = head (cmpxchg against consumers and writers). */
static void st_ring_reset(struct st_ring *r)
{
	unsigned long t, h;

	do {
		t = atomic64_read(&r->tail);
		h = local_read(&r->head);
		if ((long)(t - h) >= 0)
			break;
	} while (atomic64_cmpxchg(&r->tail, t, h) != t);
	smp_mb(); /* tail before the baselines: see Documentation */
	WRITE_ONCE(r->base.committed, local_read(&r->committed));
	WRITE_ONCE(r->base.dropped, local_read(&r->dropped));
	WRITE_ONCE(r->base.overrun, local_read(&r->overrun));
	WRITE_ONCE(r->base.read, atomic64_read(&r->read));
	WRITE_ONCE(r->base.pos, atomic64_read(&r->tail));
}

/* Reset every ring; @epoch is odd meanwhile (a seqcount for readers). */
static void st_half_reset(struct st_half *half)
{
	int cpu;

	atomic_inc(&half->epoch);
	smp_mb__after_atomic(); /* odd epoch before the reset */
	for_each_possible_cpu(cpu)
		st_ring_reset(per_cpu_ptr(half->rings, cpu));
	smp_mb__before_atomic(); /* the reset before the even epoch */
	atomic_inc(&half->epoch);
}

/*
 * The swap lock: held while the halves change. Triggers only try it (they
 * may run in NMI on the CPU of a holder); process context spins with IRQs
 * off, which is short: the holders do O(nr_cpu_ids) work.
 */
static bool st_swap_trylock(struct snaptrace_buffer *buf)
{
	return atomic_cmpxchg_acquire(&buf->swap_busy, 0, 1) == 0;
}

static void st_swap_lock_irqsave(struct snaptrace_buffer *buf,
				 unsigned long *flags)
{
	local_irq_save(*flags);
	while (!st_swap_trylock(buf))
		cpu_relax();
}

static void st_swap_unlock(struct snaptrace_buffer *buf)
{
	atomic_set_release(&buf->swap_busy, 0);
}

static void st_swap_unlock_irqrestore(struct snaptrace_buffer *buf,
				      unsigned long flags)
{
	st_swap_unlock(buf);
	local_irq_restore(flags);
}

/* The live half; it changes under the swap lock, so read it once. */
static struct st_half *st_live(struct snaptrace_buffer *buf)
{
	return rcu_dereference_check(buf->live, lockdep_is_held(&buf->lock));
}

static struct st_half *st_half_of(struct snaptrace_buffer *buf,
				  enum snaptrace_which which)
{
	return which == SNAPTRACE_LIVE ? st_live(buf) : READ_ONCE(buf->spare);
}

static bool st_cpu_valid(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_possible(cpu);
}

/* ------------------------------------------------------------------ */
/* Write side */

static __always_inline void st_start_commit(struct st_ring *r)
{
	local_inc(&r->committing);
	local_inc(&r->commits);
}

/* Mirror of ftrace's rb_end_commit(): only the outermost writer moves commit. */
static __always_inline void st_end_commit(struct st_ring *r)
{
	unsigned long commits;

again:
	commits = local_read(&r->commits);
	barrier();
	if (local_read(&r->committing) == 1) {
		unsigned long h = local_read(&r->head);

		/*
		 * Every record below h is complete, nested ones included: the
		 * barrier after the read of head orders their stores too
		 * (pairs with the smp_rmb() in st_read_at()).
		 */
		smp_wmb();
		local_set(&r->commit, h);
	}
	local_dec(&r->committing);
	barrier();
	/* An interrupt committed after our check: move commit for it. */
	if (unlikely(local_read(&r->commits) != commits) &&
	    !local_read(&r->committing)) {
		local_inc(&r->committing);
		goto again;
	}
}

/* Push tail to at least @min, counting overwritten records (I3). */
static void st_push_tail(struct st_ring *r, unsigned long min)
{
	unsigned long t, len;
	struct st_hdr *hdr;
	u16 type;

	for (;;) {
		t = atomic64_read(&r->tail);
		if ((long)(t - min) >= 0)
			return;
		hdr = (struct st_hdr *)(r->data + (t & r->mask));
		len = READ_ONCE(hdr->len);
		type = READ_ONCE(hdr->type);
		if (unlikely(len < ST_PAD_MIN || len & (ST_ALIGN - 1) ||
			     len > r->size - (t & r->mask))) {
			/* Only a nested writer moving tail under us explains this. */
			if (atomic64_read(&r->tail) == t) {
				WARN_ON_ONCE(1);
				return;
			}
			continue;
		}
		if (atomic64_cmpxchg(&r->tail, t, t + len) == t &&
		    type != ST_REC_PAD)
			local_inc(&r->overrun);
	}
}

enum st_reserve_err {
	ST_OK,
	ST_EINVAL,
	ST_EOFF,
	ST_EFULL,
};

static __always_inline void *
st_reserve(struct snaptrace_buffer *buf, size_t len, u16 type,
	   struct snaptrace_reservation *res, enum st_reserve_err *err)
{
	unsigned long h, off, pad, end, total;
	struct st_half *half;
	struct st_hdr *hdr;
	struct st_ring *r;
	u64 ts;

	if (unlikely(len == 0 || len > SNAPTRACE_MAX_PAYLOAD)) {
		*err = ST_EINVAL;
		return NULL;
	}
	total = ST_HDR_SIZE + ALIGN(len, ST_ALIGN);

	/*
	 * The switches are looked at with preemption off, so a reset's
	 * synchronize_rcu() waits for every writer that saw them on.
	 */
	preempt_disable_notrace();
	if (unlikely(!READ_ONCE(buf->record_on) ||
		     atomic_read(&buf->record_disabled))) {
		preempt_enable_notrace();
		*err = ST_EOFF;
		return NULL;
	}
retry:
	half = rcu_dereference_sched(buf->live);
	r = this_cpu_ptr(half->rings);
	st_start_commit(r);
	do {
		h = local_read(&r->head);
		ts = local_clock();
		off = h & r->mask;
		pad = off + total > r->size ? r->size - off : 0;
		end = h + pad + total;
		/* I2: never reuse the bytes of a record still being written. */
		if (unlikely(end - local_read(&r->commit) > r->size))
			goto full;
		if (READ_ONCE(buf->mode) == SNAPTRACE_STOP_WHEN_FULL &&
		    end - atomic64_read(&r->tail) > r->size)
			goto full;
	} while (local_cmpxchg(&r->head, h, end) != h);

	if ((long)(end - r->size - atomic64_read(&r->tail)) > 0)
		st_push_tail(r, end - r->size);

	if (pad) {
		hdr = (struct st_hdr *)(r->data + off);
		hdr->len = pad;
		hdr->type = ST_REC_PAD;
		hdr->size = 0;
	}

	/*
	 * A snapshot swapped the halves between our look at live and our
	 * reservation: the reservation is after the swap, so it must not land
	 * in the snapshot. Turn it into padding and start again in the new
	 * live half.
	 */
	if (unlikely(rcu_access_pointer(buf->live) != half)) {
		hdr = (struct st_hdr *)(r->data + ((h + pad) & r->mask));
		hdr->len = total;
		hdr->type = ST_REC_PAD;
		hdr->size = 0;
		st_end_commit(r);
		goto retry;
	}

	hdr = (struct st_hdr *)(r->data + ((h + pad) & r->mask));
	hdr->len = total;
	hdr->type = type;
	hdr->size = len;
	hdr->ts = ts;
	res->ring = r;
	res->pos = h + pad;
	*err = ST_OK;
	return hdr + 1;

full:
	local_inc(&r->dropped);
	st_end_commit(r);
	preempt_enable_notrace();
	*err = ST_EFULL;
	return NULL;
}

/**
 * snaptrace_reserve() - reserve room for one record
 * @buf: the buffer
 * @len: payload length in bytes, 1..%SNAPTRACE_MAX_PAYLOAD
 * @res: filled in; pass it to snaptrace_commit()
 *
 * Reserves @len bytes in this CPU's ring of the live half and stamps the
 * record with local_clock() (ns). The caller fills the payload and then
 * calls snaptrace_commit(); until then preemption is disabled, and readers
 * do not see the record. Reservations nest: an interrupt or NMI may reserve
 * and commit its own record while this one is open. Mirrors
 * ring_buffer_lock_reserve().
 *
 * Context: any: task, softirq, hardirq, NMI, IRQs disabled. Never sleeps,
 * never allocates, takes no lock. Lockless per CPU.
 * Return: pointer to the payload (8-byte aligned), or NULL if @len is 0 or
 * too large, recording is off, or there is no room (stop-when-full mode, or
 * the ring is filled by records still being written): that last case is
 * counted in &snaptrace_stats.dropped.
 */
void *snaptrace_reserve(struct snaptrace_buffer *buf, size_t len,
			struct snaptrace_reservation *res)
{
	enum st_reserve_err err;

	return st_reserve(buf, len, SNAPTRACE_REC_DATA, res, &err);
}
EXPORT_SYMBOL_GPL(snaptrace_reserve);

/**
 * snaptrace_commit() - make a reserved record visible
 * @buf: the buffer given to snaptrace_reserve()
 * @res: the reservation snaptrace_reserve() filled in
 *
 * Readers see the record once the outermost open reservation on this CPU
 * is committed. Re-enables preemption. Mirrors ring_buffer_unlock_commit().
 *
 * Context: the context that called snaptrace_reserve(), on the same CPU.
 * Never sleeps.
 */
void snaptrace_commit(struct snaptrace_buffer *buf,
		      struct snaptrace_reservation *res)
{
	struct st_ring *r = res->ring;

	local_inc(&r->committed);
	st_end_commit(r);
	/* No barrier, as ftrace's rb_wakeups(): see snaptrace_wait(). */
	if (unlikely(READ_ONCE(buf->waiters)))
		irq_work_queue(&buf->wake_work);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(snaptrace_commit);

/**
 * snaptrace_write_type() - write one record of a given type
 * @buf: the buffer
 * @type: an &enum snaptrace_rec_type
 * @data: payload
 * @len: payload length in bytes, 1..%SNAPTRACE_MAX_PAYLOAD
 *
 * snaptrace_write() for the module's own record types (stack dumps, the
 * miss marker); snaptrace_write() is this with %SNAPTRACE_REC_DATA.
 *
 * Context: any, NMI included. Never sleeps, never allocates.
 * Return: as snaptrace_write().
 */
int snaptrace_write_type(struct snaptrace_buffer *buf, u16 type,
			 const void *data, size_t len)
{
	struct snaptrace_reservation res;
	enum st_reserve_err err;
	void *p;

	p = st_reserve(buf, len, type, &res, &err);
	if (!p)
		return err == ST_EINVAL ? -EINVAL : err == ST_EOFF ? -EBUSY : -ENOSPC;
	memcpy(p, data, len);
	snaptrace_commit(buf, &res);
	return 0;
}

/**
 * snaptrace_write() - write one record
 * @buf: the buffer
 * @data: payload
 * @len: payload length in bytes, 1..%SNAPTRACE_MAX_PAYLOAD
 *
 * snaptrace_reserve(), a copy of @data, snaptrace_commit(). Mirrors
 * ring_buffer_write().
 *
 * Context: any, NMI included. Never sleeps, never allocates.
 * Return: 0; -EINVAL if @len is 0 or too large; -EBUSY if recording is
 * off; -ENOSPC if there is no room (counted as dropped).
 */
int snaptrace_write(struct snaptrace_buffer *buf, const void *data, size_t len)
{
	return snaptrace_write_type(buf, SNAPTRACE_REC_DATA, data, len);
}
EXPORT_SYMBOL_GPL(snaptrace_write);

/* ------------------------------------------------------------------ */
/* Read side */

enum st_read_ret {
	ST_READ_OK,	/* a record, intact */
	ST_READ_PAD,	/* padding: skip *next bytes */
	ST_READ_EMPTY,	/* nothing committed at pos */
	ST_READ_LOST,	/* tail passed pos: overwritten or reset */
	ST_READ_BAD,	/* a header that cannot be: treated as the end */
};

/*
 * Read the record at @pos of @r: its header always, its payload into @rec
 * when @rec is not NULL. Sets *len to the record's length in the ring.
 */
static enum st_read_ret st_read_at(struct st_ring *r, unsigned long pos,
				   struct snaptrace_record *rec, u64 *ts,
				   unsigned long *len)
{
	unsigned long c = local_read(&r->commit);
	unsigned long off = pos & r->mask;
	unsigned long base;
	struct st_hdr *hdr;
	bool valid;
	u32 l;
	u16 type, size;

	smp_rmb(); /* commit before the record (pairs with st_end_commit) */
	if ((long)(pos - c) >= 0)
		return ST_READ_EMPTY;
	if ((long)(pos - atomic64_read(&r->tail)) < 0)
		return ST_READ_LOST;

	hdr = (struct st_hdr *)(r->data + off);
	l = READ_ONCE(hdr->len);
	type = READ_ONCE(hdr->type);
	size = READ_ONCE(hdr->size);
	valid = l >= ST_PAD_MIN && !(l & (ST_ALIGN - 1)) &&
		l <= r->size - off && (long)(c - pos - l) >= 0;
	if (valid && type != ST_REC_PAD) {
		valid = size >= 1 && size <= SNAPTRACE_MAX_PAYLOAD &&
			l == ST_HDR_SIZE + ALIGN(size, ST_ALIGN);
		/* Only now is it known that ts lies inside the ring. */
		if (valid)
			*ts = READ_ONCE(hdr->ts);
		if (valid && rec)
			memcpy(rec->data, hdr + 1, size);
	}

	base = READ_ONCE(r->base.pos);
	smp_rmb(); /* the copy before the re-check of tail (I4) */
	if ((long)(pos - atomic64_read(&r->tail)) < 0)
		return ST_READ_LOST;
	if (WARN_ON_ONCE(!valid))
		return ST_READ_BAD;

	*len = l;
	if (type == ST_REC_PAD)
		return ST_READ_PAD;
	if (rec) {
		rec->ts = *ts;
		rec->pos = pos - base;
		rec->type = type;
		rec->len = size;
	}
	return ST_READ_OK;
}

/*
 * Find the oldest record of @r at or after *pos (skipping padding; when
 * @consume, padding is consumed). Returns ST_READ_OK with *ts set, or
 * ST_READ_EMPTY. *pos is moved to the record.
 */
static enum st_read_ret st_peek(struct st_ring *r, unsigned long *pos,
				bool consume, u64 *ts)
{
	unsigned long len, t;
	enum st_read_ret ret;

	for (;;) {
		t = atomic64_read(&r->tail);
		if (consume || (long)(*pos - t) < 0)
			*pos = t;
		ret = st_read_at(r, *pos, NULL, ts, &len);
		switch (ret) {
		case ST_READ_OK:
		case ST_READ_EMPTY:
			return ret;
		case ST_READ_BAD:
			return ST_READ_EMPTY;
		case ST_READ_PAD:
			if (consume)
				atomic64_cmpxchg(&r->tail, *pos, *pos + len);
			else
				*pos += len;
			break;
		case ST_READ_LOST:
			break;
		}
	}
}

/*
 * Pick the CPU whose next record is oldest. @pos holds each CPU's cursor
 * (NULL: consuming, the cursor is tail). Returns the CPU or -1.
 */
static int st_pick(struct st_half *half, int cpu, unsigned long *pos,
		   unsigned long *cpos)
{
	int c, best = -1;
	u64 ts, best_ts = 0;
	unsigned long p;

	for_each_possible_cpu(c) {
		struct st_ring *r = per_cpu_ptr(half->rings, c);

		if (cpu != SNAPTRACE_ALL_CPUS && c != cpu)
			continue;
		p = pos ? pos[c] : 0;
		if (st_peek(r, &p, !pos, &ts) != ST_READ_OK)
			continue;
		if (pos)
			pos[c] = p;
		if (best < 0 || ts < best_ts) {
			best = c;
			best_ts = ts;
			*cpos = p;
		}
	}
	return best;
}

/*
 * Remove the record just copied from @half, if @half still plays the part
 * it played (no snapshot swapped or reset it: the epoch and the pointer
 * are checked under the swap lock, which snapshot() takes). Otherwise the
 * copy may be a record of the other role, and the caller starts again.
 */
static bool st_consume_at(struct snaptrace_buffer *buf, enum snaptrace_which which,
			  struct st_half *half, int epoch, struct st_ring *r,
			  unsigned long pos, unsigned long len)
{
	unsigned long flags;
	bool ok;

	st_swap_lock_irqsave(buf, &flags);
	ok = st_half_of(buf, which) == half &&
	     atomic_read(&half->epoch) == epoch &&
	     atomic64_cmpxchg(&r->tail, pos, pos + len) == pos;
	if (ok)
		atomic64_inc(&r->read);
	st_swap_unlock_irqrestore(buf, flags);
	return ok;
}

/**
 * snaptrace_consume() - read and remove the oldest record
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a CPU, or %SNAPTRACE_ALL_CPUS for the oldest record (by timestamp)
 *	of every CPU
 * @rec: where the record is copied
 *
 * A consuming read, safe against writers on every CPU and against
 * snapshots: the record copied is never torn (a record overwritten while it
 * was copied is skipped). Mirrors ring_buffer_consume().
 *
 * Context: process context, may sleep (takes the buffer's reader mutex).
 * Each record taken holds the swap lock for a few atomic operations, so a
 * snapshot() at that instant returns -EBUSY.
 * Return: 0; -ENODATA if empty; -ENOENT if @which is the snapshot and no
 * spare is allocated; -EINVAL for a bad @cpu.
 */
int snaptrace_consume(struct snaptrace_buffer *buf, enum snaptrace_which which,
		      int cpu, struct snaptrace_record *rec)
{
	unsigned long pos, len;
	struct st_half *half;
	struct st_ring *r;
	int c, ret, epoch;
	u64 ts;

	if (cpu != SNAPTRACE_ALL_CPUS && !st_cpu_valid(cpu))
		return -EINVAL;

	mutex_lock(&buf->lock);
	for (;;) {
		cond_resched();
		half = st_half_of(buf, which);
		if (!half) {
			ret = -ENOENT;
			break;
		}
		c = st_pick(half, cpu, NULL, &pos);
		if (c < 0) {
			ret = -ENODATA;
			break;
		}
		r = per_cpu_ptr(half->rings, c);
		epoch = atomic_read(&half->epoch);
		smp_rmb(); /* epoch before the record (pairs with st_half_reset) */
		if ((epoch & 1) || st_read_at(r, pos, rec, &ts, &len) != ST_READ_OK)
			continue;
		if (!st_consume_at(buf, which, half, epoch, r, pos, len))
			continue;
		rec->cpu = c;
		ret = 0;
		break;
	}
	mutex_unlock(&buf->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_consume);

/**
 * snaptrace_iter_start() - begin a non-consuming read
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a CPU, or %SNAPTRACE_ALL_CPUS to merge every CPU by timestamp
 *
 * The iterator holds no lock between calls: each snaptrace_iter_next()
 * takes the buffer's reader mutex for the time of one record, and finds
 * out then whether the half it reads is still there. Writers and snapshots
 * never wait for it. Mirrors ring_buffer_read_start().
 *
 * Context: process context, may sleep.
 * Return: the iterator; ERR_PTR(-EINVAL) for a bad @cpu, -ENOENT if @which
 * is the snapshot and no spare is allocated, -ENOMEM.
 */
struct snaptrace_iter *snaptrace_iter_start(struct snaptrace_buffer *buf,
					    enum snaptrace_which which,
					    int cpu)
{
	struct snaptrace_iter *iter;
	struct st_half *half;
	int c;

	if (cpu != SNAPTRACE_ALL_CPUS && !st_cpu_valid(cpu))
		return ERR_PTR(-EINVAL);
	iter = kzalloc(struct_size(iter, pos, nr_cpu_ids), GFP_KERNEL);
	if (!iter)
		return ERR_PTR(-ENOMEM);

	mutex_lock(&buf->lock);
	half = st_half_of(buf, which);
	if (!half) {
		mutex_unlock(&buf->lock);
		kfree(iter);
		return ERR_PTR(-ENOENT);
	}
	iter->buf = buf;
	iter->half = half;
	iter->which = which;
	iter->cpu = cpu;
	iter->frees = buf->frees;
	/* A reset in progress: wait for its end (it is O(nr_cpu_ids)). */
	while ((iter->epoch = atomic_read(&half->epoch)) & 1)
		cpu_relax();
	smp_rmb(); /* epoch before the tails it covers */
	for_each_possible_cpu(c)
		iter->pos[c] = atomic64_read(&per_cpu_ptr(half->rings, c)->tail);
	mutex_unlock(&buf->lock);
	return iter;
}
EXPORT_SYMBOL_GPL(snaptrace_iter_start);

/**
 * snaptrace_iter_next() - the next record of a non-consuming read
 * @iter: from snaptrace_iter_start()
 * @rec: where the record is copied
 *
 * Records overwritten since the iterator passed their CPU's tail are
 * skipped (their loss shows as a gap in &snaptrace_record.pos). Mirrors
 * ring_buffer_iter_peek() + ring_buffer_iter_advance().
 *
 * Context: process context, may sleep (takes the reader mutex).
 * Return: 0; -ENODATA at the end; -ESTALE if the half being read was
 * replaced, emptied or freed (snapshot, clear, reset, resize, free) since
 * snaptrace_iter_start().
 */
int snaptrace_iter_next(struct snaptrace_iter *iter,
			struct snaptrace_record *rec)
{
	struct snaptrace_buffer *buf = iter->buf;
	unsigned long pos, len;
	struct st_ring *r;
	int c, ret;
	u64 ts;

	mutex_lock(&buf->lock);
	for (;;) {
		/* @frees first: the half may be gone, and its address reused. */
		if (buf->frees != iter->frees ||
		    st_half_of(buf, iter->which) != iter->half ||
		    atomic_read(&iter->half->epoch) != iter->epoch) {
			ret = -ESTALE;
			break;
		}
		smp_rmb(); /* epoch before the records (pairs with st_half_reset) */
		c = st_pick(iter->half, iter->cpu, iter->pos, &pos);
		if (c >= 0) {
			r = per_cpu_ptr(iter->half->rings, c);
			if (st_read_at(r, pos, rec, &ts, &len) != ST_READ_OK)
				continue;
		}
		/* A reset or swap meanwhile: neither the record nor the end is true. */
		smp_rmb();
		if (st_half_of(buf, iter->which) != iter->half ||
		    atomic_read(&iter->half->epoch) != iter->epoch) {
			ret = -ESTALE;
			break;
		}
		if (c < 0) {
			ret = -ENODATA;
			break;
		}
		iter->pos[c] = pos + len;
		rec->cpu = c;
		ret = 0;
		break;
	}
	mutex_unlock(&buf->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_iter_next);

/**
 * snaptrace_iter_stop() - end a non-consuming read
 * @iter: from snaptrace_iter_start(); NULL or an ERR_PTR() is ignored
 *
 * Context: any context that may call kfree().
 */
void snaptrace_iter_stop(struct snaptrace_iter *iter)
{
	if (!IS_ERR_OR_NULL(iter))
		kfree(iter);
}
EXPORT_SYMBOL_GPL(snaptrace_iter_stop);

/* ------------------------------------------------------------------ */
/* Waiting for data */

static void st_wake_waiters(struct snaptrace_buffer *buf)
{
	if (READ_ONCE(buf->waiters))
		irq_work_queue(&buf->wake_work);
}

static void st_wake_work(struct irq_work *work)
{
	struct snaptrace_buffer *buf = container_of(work, struct snaptrace_buffer,
						    wake_work);

	WRITE_ONCE(buf->waiters, false);
	wake_up_all(&buf->waitq);
}

/* Whether @which has a record for @cpu (or any CPU); lockless. */
static bool st_has_data(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu)
{
	struct st_half *half;
	unsigned long pos;
	bool ret = false;
	int c;
	u64 ts;

	rcu_read_lock(); /* halves are freed after synchronize_rcu() */
	half = which == SNAPTRACE_LIVE ? rcu_dereference(buf->live) :
					 READ_ONCE(buf->spare);
	for_each_possible_cpu(c) {
		if (!half || ret)
			break;
		if (cpu != SNAPTRACE_ALL_CPUS && c != cpu)
			continue;
		pos = 0;
		ret = st_peek(per_cpu_ptr(half->rings, c), &pos, false, &ts) ==
			ST_READ_OK;
	}
	rcu_read_unlock();
	return ret;
}

/* A waiter's condition: raise the flag writers look at, then look. */
static bool st_wait_cond(struct snaptrace_buffer *buf, enum snaptrace_which which,
			 int cpu, bool until_off)
{
	WRITE_ONCE(buf->waiters, true);
	smp_mb(); /* the flag before the look at the data */
	return st_has_data(buf, which, cpu) ||
	       (until_off && !READ_ONCE(buf->record_on));
}

/* The longest a wake-up lost to store/load reordering can delay a reader. */
#define ST_WAIT_RECHECK (HZ / 10)

/**
 * snaptrace_wait() - sleep until there is something to read
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a CPU, or %SNAPTRACE_ALL_CPUS
 * @until_off: also return when recording is (or is turned) off
 *
 * Writers wake readers through an irq_work (they may be in NMI, where
 * wake_up() is not allowed), and so does a snapshot. Like ftrace's
 * rb_wakeups(), the write path has no full barrier between its commit and
 * its look at whether anyone waits (store then load: reordered even on
 * x86), so a wake-up can be missed; the reader then notices the data
 * within 100 ms by itself. snaptrace_poll() has no such fallback: a missed
 * wake-up there waits for the next record, as with ftrace. Mirrors
 * ring_buffer_wait().
 *
 * Context: process context, sleeps (interruptibly). No locks held.
 * Return: 0 when there is data; -ENODATA if @until_off and recording is
 * off; -ERESTARTSYS on a signal.
 */
int snaptrace_wait(struct snaptrace_buffer *buf, enum snaptrace_which which,
		   int cpu, bool until_off)
{
	long ret;

	for (;;) {
		ret = wait_event_interruptible_timeout(buf->waitq,
						       st_wait_cond(buf, which, cpu,
								    until_off),
						       ST_WAIT_RECHECK);
		if (ret < 0)
			return ret;
		if (st_has_data(buf, which, cpu))
			return 0;
		if (until_off && !READ_ONCE(buf->record_on))
			return -ENODATA;
		/* Timed out, or another reader took the data: wait on. */
	}
}
EXPORT_SYMBOL_GPL(snaptrace_wait);

/**
 * snaptrace_poll() - poll support for a file that reads the buffer
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a CPU, or %SNAPTRACE_ALL_CPUS
 * @filp: the file being polled
 * @pt: the poll table
 *
 * Context: process context (a file's ->poll()).
 * Return: EPOLLIN | EPOLLRDNORM if there is data, else 0.
 */
__poll_t snaptrace_poll(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu, struct file *filp, poll_table *pt)
{
	poll_wait(filp, &buf->waitq, pt);
	return st_wait_cond(buf, which, cpu, false) ? EPOLLIN | EPOLLRDNORM : 0;
}
EXPORT_SYMBOL_GPL(snaptrace_poll);

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
	half = st_half_alloc(size);
	if (!half) {
		kfree(buf);
		return ERR_PTR(-ENOMEM);
	}
	RCU_INIT_POINTER(buf->live, half);
	init_irq_work(&buf->wake_work, st_wake_work);
	init_waitqueue_head(&buf->waitq);
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
	irq_work_sync(&buf->wake_work);
	st_half_free(rcu_dereference_protected(buf->live, 1));
	st_half_free(buf->spare);
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
 * A count, apart from the user's switch (snaptrace_record_on()/_off()) and
 * shared with resets: writers are refused while it is above 0. Reservations
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
 * synchronize_rcu()). Snapshots triggered during the swap get -EBUSY.
 * Return: 0; -EINVAL for a bad size; -ENOMEM.
 */
int snaptrace_resize(struct snaptrace_buffer *buf, size_t size_per_cpu)
{
	unsigned long size = st_round_size(size_per_cpu);
	struct st_half *live, *spare = NULL, *old_live, *old_spare;
	unsigned long flags;

	if (!size)
		return -EINVAL;

	mutex_lock(&buf->lock);
	live = st_half_alloc(size);
	if (!live)
		goto nomem;
	if (READ_ONCE(buf->spare)) {	/* as in snaptrace_alloc_snapshot() */
		spare = st_half_alloc(size);
		if (!spare)
			goto nomem;
	}

	st_swap_lock_irqsave(buf, &flags);
	old_live = st_live(buf);
	old_spare = buf->spare;
	rcu_assign_pointer(buf->live, live);
	WRITE_ONCE(buf->spare, spare);
	WRITE_ONCE(buf->size, size);
	st_swap_unlock_irqrestore(buf, flags);

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

/**
 * snaptrace_reset() - empty the live half
 * @buf: the buffer
 *
 * Every CPU's ring of the live half becomes empty and its counters start
 * again from 0. Writers are refused while those already inside finish
 * (synchronize_rcu()), so the counters are exact; writes during that time
 * fail with -EBUSY. The user's tracing_on switch is left as it is.
 * Mirrors ring_buffer_reset_online_cpus().
 *
 * Context: process context, may sleep (takes the reader mutex).
 */
void snaptrace_reset(struct snaptrace_buffer *buf)
{
	unsigned long flags;

	mutex_lock(&buf->lock);
	/*
	 * As ring_buffer_reset_online_cpus(): no writer inside during the
	 * reset. A count, not the user's switch, so that concurrent resets
	 * and a snaptrace_record_off() meanwhile are not undone.
	 */
	atomic_inc(&buf->record_disabled);
	synchronize_rcu();
	st_swap_lock_irqsave(buf, &flags);
	st_half_reset(st_live(buf));
	st_swap_unlock_irqrestore(buf, flags);
	atomic_dec(&buf->record_disabled);
	mutex_unlock(&buf->lock);
}
EXPORT_SYMBOL_GPL(snaptrace_reset);

/* ------------------------------------------------------------------ */
/* Snapshot */

/**
 * snaptrace_alloc_snapshot() - allocate the spare half, if not yet done
 * @buf: the buffer
 *
 * Allocates the spare with the live half's geometry and does nothing
 * else: no snapshot is taken. Idempotent: concurrent callers get one
 * allocation. Mirrors tracing_alloc_snapshot().
 *
 * Context: process context, may sleep (GFP_KERNEL, vmalloc).
 * Return: 0 (also when already allocated); -ENOMEM, with nothing changed.
 */
int snaptrace_alloc_snapshot(struct snaptrace_buffer *buf)
{
	struct st_half *spare;
	int ret = 0;

	mutex_lock(&buf->lock);
	/*
	 * Whether there is a spare changes only under @lock, but a snapshot
	 * may swap it for the other half at any time: a marked read.
	 */
	if (!READ_ONCE(buf->spare)) {
		spare = st_half_alloc(buf->size);
		if (spare) {
			/* Rings initialised before a trigger can see them. */
			smp_store_release(&buf->spare, spare);
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
	return READ_ONCE(buf->spare);
}
EXPORT_SYMBOL_GPL(snaptrace_snapshot_is_allocated);

static const char st_miss_marker[] =
	"snapshot: no spare buffer allocated; recording stopped";

/**
 * snaptrace_snapshot() - swap the live half with the spare
 * @buf: the buffer
 *
 * Afterwards the spare (the snapshot) holds every record reserved before
 * the swap, each one readable once its writer commits it, and no record
 * reserved after it; recording goes on in the other half, which starts
 * empty. O(nr_cpu_ids), independent of the buffer size: the spare's rings
 * are emptied by moving positions, and the halves are swapped by pointer.
 * IRQs are off for that time. Mirrors tracing_snapshot(), which refuses
 * NMI context; this one does not.
 *
 * If no spare is allocated nothing changes in the buffers and the miss is
 * counted; with snaptrace_set_stop_on_miss(), a marker record is written
 * and recording is turned off, as ftrace does.
 *
 * Context: any: task, softirq, hardirq, NMI, IRQs disabled. Never sleeps,
 * never allocates, never spins on a lock (a concurrent snapshot, resize,
 * clear or free makes it return -EBUSY).
 * Return: 0; -ENOENT if no spare is allocated; -EBUSY if the halves are
 * being changed by someone else at that instant. Both count as misses.
 */
int snaptrace_snapshot(struct snaptrace_buffer *buf)
{
	struct st_half *live, *spare;
	unsigned long flags;

	local_irq_save(flags);
	if (!st_swap_trylock(buf)) {
		local_irq_restore(flags);
		atomic64_inc(&buf->snapshot_misses);
		return -EBUSY;
	}
	/* Pairs with the release in snaptrace_alloc_snapshot(). */
	spare = smp_load_acquire(&buf->spare);
	if (!spare) {
		st_swap_unlock_irqrestore(buf, flags);
		atomic64_inc(&buf->snapshot_misses);
		if (READ_ONCE(buf->stop_on_miss)) {
			snaptrace_write_type(buf, SNAPTRACE_REC_MARKER,
					     st_miss_marker,
					     sizeof(st_miss_marker) - 1);
			snaptrace_record_off(buf);
		}
		return -ENOENT;
	}

	st_half_reset(spare);
	live = rcu_dereference_protected(buf->live, 1);
	WRITE_ONCE(buf->spare, live);
	rcu_assign_pointer(buf->live, spare); /* the reset before the publish */
	st_swap_unlock_irqrestore(buf, flags);
	st_wake_waiters(buf);
	return 0;
}
EXPORT_SYMBOL_GPL(snaptrace_snapshot);

/**
 * snaptrace_snapshot_alloc() - allocate the spare if needed, then snapshot
 * @buf: the buffer
 *
 * Mirrors tracing_snapshot_alloc().
 *
 * Context: process context, may sleep.
 * Return: as snaptrace_alloc_snapshot(), then as snaptrace_snapshot().
 */
int snaptrace_snapshot_alloc(struct snaptrace_buffer *buf)
{
	int ret = snaptrace_alloc_snapshot(buf);

	return ret ? ret : snaptrace_snapshot(buf);
}
EXPORT_SYMBOL_GPL(snaptrace_snapshot_alloc);

/**
 * snaptrace_free_snapshot() - free the spare half
 * @buf: the buffer
 *
 * Safe while snapshots are triggered from interrupts or NMIs: they get
 * -EBUSY during the change and -ENOENT after it; writers still inside
 * the freed half are waited for. Idempotent. Mirrors
 * tracing_snapshot_free() ("echo 0 > snapshot").
 *
 * Context: process context, may sleep (synchronize_rcu()).
 */
void snaptrace_free_snapshot(struct snaptrace_buffer *buf)
{
	struct st_half *spare;
	unsigned long flags;

	mutex_lock(&buf->lock);
	st_swap_lock_irqsave(buf, &flags);
	spare = buf->spare;
	WRITE_ONCE(buf->spare, NULL);
	st_swap_unlock_irqrestore(buf, flags);
	if (spare) {
		synchronize_rcu();
		st_half_free(spare);
		buf->frees++;
	}
	mutex_unlock(&buf->lock);
}
EXPORT_SYMBOL_GPL(snaptrace_free_snapshot);

/**
 * snaptrace_clear_snapshot() - empty the snapshot, keep the spare
 * @buf: the buffer
 *
 * Mirrors "echo 2 > snapshot".
 *
 * Context: process context, may sleep (takes the reader mutex).
 * Return: 0; -ENOENT if no spare is allocated.
 */
int snaptrace_clear_snapshot(struct snaptrace_buffer *buf)
{
	unsigned long flags;
	int ret = 0;

	mutex_lock(&buf->lock);
	st_swap_lock_irqsave(buf, &flags);
	if (buf->spare)
		st_half_reset(buf->spare);
	else
		ret = -ENOENT;
	st_swap_unlock_irqrestore(buf, flags);
	mutex_unlock(&buf->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_clear_snapshot);

/* ------------------------------------------------------------------ */
/* Statistics */

/**
 * snaptrace_cpu_stats() - one CPU's counters
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: the CPU
 * @stats: filled in
 *
 * At a quiescent point (no writer inside a reservation, no reader, no
 * reset) written == read + entries + overrun + dropped. While writers run
 * the counters are read one by one and may disagree by the records in
 * flight.
 *
 * Context: process context, may sleep (takes the reader mutex).
 * Return: 0; -EINVAL for a bad @cpu; -ENOENT if @which is the snapshot and
 * no spare is allocated.
 */
int snaptrace_cpu_stats(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu, struct snaptrace_stats *stats)
{
	unsigned long committed, overrun, read, t, c, pos;
	struct st_half *half;
	struct st_ring *r;
	u64 ts = 0;

	if (!st_cpu_valid(cpu))
		return -EINVAL;

	mutex_lock(&buf->lock);
	half = st_half_of(buf, which);
	if (!half) {
		mutex_unlock(&buf->lock);
		return -ENOENT;
	}
	r = per_cpu_ptr(half->rings, cpu);
	committed = local_read(&r->committed) - READ_ONCE(r->base.committed);
	overrun = local_read(&r->overrun) - READ_ONCE(r->base.overrun);
	read = atomic64_read(&r->read) - READ_ONCE(r->base.read);

	memset(stats, 0, sizeof(*stats));
	stats->dropped = local_read(&r->dropped) - READ_ONCE(r->base.dropped);
	stats->written = committed + stats->dropped;
	stats->overrun = overrun;
	stats->read = read;
	stats->entries = committed - overrun - read;
	t = atomic64_read(&r->tail);
	c = local_read(&r->commit);
	stats->bytes = (long)(c - t) > 0 ? c - t : 0;
	pos = t;
	if (st_peek(r, &pos, false, &ts) == ST_READ_OK)
		stats->oldest_ts = ts;
	stats->snapshot_misses = atomic64_read(&buf->snapshot_misses);
	mutex_unlock(&buf->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(snaptrace_cpu_stats);
