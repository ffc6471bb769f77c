// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer: per-CPU lockless recording, consuming and
 * non-consuming readers, and a spare half for exact O(nr_cpu_ids) snapshots.
 *
 * The design, with the invariants named here and the proof of the
 * snapshot's cut, is in Documentation/ring-buffer.rst. In short:
 *
 * Each CPU has a byte ring of size 2^k pages in each of the buffer's two
 * halves (live and spare). Positions are byte offsets that only grow
 * (unsigned long, 64-bit); a position's place in the ring is pos & mask.
 *
 *   tail <= commit <= head
 *
 *   head    the reservation word: position of the next byte to reserve,
 *           and in its low bits the ring's state (open, pending, spare).
 *           This CPU's writers reserve with a full cmpxchg; a snapshot on
 *           any CPU changes the state with a cmpxchg, so a reservation and
 *           the snapshot's cut are ordered by one word (R1 below).
 *   commit  bytes whose records are complete; only the outermost writer on
 *           this CPU moves it, to head (as ftrace's rb_end_commit())
 *   tail    oldest record still in the buffer, and ST_SEAL while the ring
 *           is not open (a consumer of the live buffer expects it clear)
 *
 * I1: a record never straddles the end of the ring (padding).
 * I2: a writer never reserves past commit + size.
 * I3: a writer moves tail past the bytes it will overwrite before it
 *     writes them.
 * I4: a reader copies a record, then re-reads tail: a copy whose record
 *     tail passed meanwhile may be torn and is thrown away.
 * I5: counters only grow; an epoch's counts are differences from the
 *     baselines its opening took (see st_open()).
 * R1: a ring's state changes only by cmpxchg on head; a reservation is a
 *     cmpxchg on head from an open state: it succeeds before the change
 *     or fails after it, with no side effect.
 * R2: on each CPU at most one ring is open: a ring is opened only while
 *     its twin is a snapshot (ST_SPARE).
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
#include <linux/workqueue.h>
#include <asm/local.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"

/* 32-bit kernels emulate atomic64_t with a spinlock: not NMI-safe. */
#ifndef CONFIG_64BIT
#error "snaptrace needs a 64-bit kernel"
#endif

#define ST_REC_PAD	0x50	/* padding up to the end of the ring (I1) */
#define ST_ALIGN	8

/*
 * The state bits of head (and ST_SEAL of tail), below ST_ALIGN:
 *
 *   open          0                         writers reserve here
 *   live-pending  ST_SEAL | ST_PENDING      the live ring, emptied by a
 *                                           reset: opened by its next writer
 *   next          ST_PENDING                emptied by a snapshot under way:
 *                                           opened once its twin is sealed
 *   snapshot      ST_SEAL | ST_SPARE        the spare: holds the snapshot
 *   empty spare   ST_SEAL | ST_SPARE | ST_PENDING
 *
 * Every state but open reads as empty when ST_PENDING is set.
 */
#define ST_SEAL		1UL
#define ST_PENDING	2UL
#define ST_SPARE	4UL
#define ST_FLAGS	(ST_SEAL | ST_PENDING | ST_SPARE)

static_assert(ST_FLAGS < ST_ALIGN);

static inline unsigned long st_pos(unsigned long w)
{
	return w & ~ST_FLAGS;
}

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

/* Counter values an epoch counts from (I5); written on the ring's CPU. */
struct st_base {
	unsigned long committed;
	unsigned long dropped;
	unsigned long overrun;
	unsigned long overrun_x;
	unsigned long read;
};

/* One CPU's ring of one half. */
struct st_ring {
	atomic_long_t head;	/* position | state bits: the reservation word */
	local_t commit;
	local_t committing;	/* open reservations on this CPU (nesting) */
	local_t commits;	/* reservations begun; detects nested commits */
	local_t committed;	/* records committed (this CPU) */
	local_t dropped;	/* records refused (this CPU) */
	local_t overrun;	/* records overwritten unread, by this CPU's writers */
	atomic_long_t tail;	/* position | ST_SEAL */
	atomic_long_t read;	/* records consumed (any CPU) */
	atomic_long_t overrun_x; /* records overwritten, pushed out by a snapshot */
	unsigned long start;	/* first position of the current epoch */
	struct st_base base;	/* the counters when the epoch began */
	struct st_ring *twin;	/* this CPU's ring of the other half, or NULL */
	unsigned long size;
	unsigned long mask;
	u8 *data;
};

/* A set of per-CPU rings: the live half or the spare. */
struct st_half {
	struct st_ring __percpu *rings;
	unsigned long size;		/* bytes per CPU */
	atomic_long_t resets;		/* clears and resets of this half */
};

/* Who holds the buffer's lock (enum st_lock_kind), for a nested caller. */
enum st_lock_kind {
	ST_LOCK_ROUND = 1,	/* a snapshot */
	ST_LOCK_CLEAR,
	ST_LOCK_RESET,
	ST_LOCK_HALVES,		/* resize, alloc or free of the spare */
};

struct snaptrace_buffer {
	struct st_half __rcu *half[2];	/* half[state & 1] is live */
	atomic_long_t state;		/* (snapshots << 1) | live index */
	atomic_t lock_cpu;		/* 0, or the holder's CPU + 1 */
	int lock_kind;			/* enum st_lock_kind, set by the holder */
	atomic_t busy;			/* snapshots, clears, resets running */
	atomic_long_t gen;		/* snapshots, clears, resets begun */
	atomic_long_t done;		/* highest gen of a snapshot finished */
	int mode;			/* enum snaptrace_mode */
	bool record_on;			/* the user's switch */
	atomic_t record_disabled;	/* snaptrace_record_disable() count */
	bool stop_on_miss;
	atomic64_t snapshot_misses;
	struct mutex lock;		/* readers, resize, alloc/free of the spare */
	unsigned long size;		/* bytes per CPU, under @lock */
	unsigned long frees;		/* halves freed so far, under @lock */
	bool waiters;			/* a reader sleeps in snaptrace_wait() */
	struct irq_work wake_work;	/* wakes them: writers may be in NMI */
	struct delayed_work poll_work;	/* bounds a lost wake-up of poll() */
	wait_queue_head_t waitq;
};

struct snaptrace_iter {
	struct snaptrace_buffer *buf;
	struct st_half *half;
	enum snaptrace_which which;
	unsigned long frees;
	long state;
	long resets;
	int cpu;			/* a CPU, or SNAPTRACE_ALL_CPUS */
	unsigned long pos[];		/* per CPU: next record to return */
};

/* ------------------------------------------------------------------ */
/* The test hook */

#if IS_ENABLED(CONFIG_KUNIT)
snaptrace_test_hook_fn snaptrace_test_hook;
EXPORT_SYMBOL_IF_KUNIT(snaptrace_test_hook);

static __always_inline void st_hook(struct snaptrace_buffer *buf,
				    enum snaptrace_test_step step, int cpu)
{
	snaptrace_test_hook_fn fn = READ_ONCE(snaptrace_test_hook);

	if (unlikely(fn))
		fn(buf, step, cpu);
}
#else
static __always_inline void st_hook(struct snaptrace_buffer *buf,
				    enum snaptrace_test_step step, int cpu)
{
}
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

static inline long st_state(struct snaptrace_buffer *buf)
{
	return atomic_long_read(&buf->state);
}

/* The half playing @which under @state; NULL if there is no spare. */
static struct st_half *st_half_in(struct snaptrace_buffer *buf, long state,
				  enum snaptrace_which which)
{
	int idx = (state & 1) ^ (which == SNAPTRACE_SNAPSHOT);

	/* Callers run with preemption or IRQs off, or hold @lock. */
	return rcu_dereference_raw(buf->half[idx]);
}

static bool st_cpu_valid(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_possible(cpu);
}

/* ------------------------------------------------------------------ */
/* Counting (I5) */

/*
 * Count one event of the record at @pos, unless the ring was opened again
 * (a new epoch, starting above @pos) since: then it belongs to an epoch
 * that is gone. The cmpxchg fails if an opening's marker (st_open())
 * changed the counter after our look at start. This CPU only.
 */
static __always_inline void st_count_local_at(struct snaptrace_buffer *buf,
					      struct st_ring *r, local_t *cnt,
					      unsigned long pos,
					      enum snaptrace_test_step step)
{
	long c;

	do {
		c = local_read(cnt);
		barrier(); /* the counter, then start: st_open() writes them in reverse */
		if ((long)(pos - READ_ONCE(r->start)) < 0)
			return;
		if (step != ST_STEP_NR)
			st_hook(buf, step, smp_processor_id());
	} while (local_cmpxchg(cnt, c, c + 1) != c);
}

static __always_inline void st_count_local(struct st_ring *r, local_t *cnt,
					   unsigned long pos)
{
	st_count_local_at(NULL, r, cnt, pos, ST_STEP_NR);
}

/* The same for the counters other CPUs update. */
static void st_count_atomic(struct st_ring *r, atomic_long_t *cnt,
			    unsigned long pos)
{
	long c;

	do {
		c = atomic_long_read(cnt);
		smp_rmb(); /* pairs with the smp_mb() in st_open() */
		if ((long)(pos - READ_ONCE(r->start)) < 0)
			return;
	} while (atomic_long_cmpxchg(cnt, c, c + 1) != c);
}

/* Raise *@base to @v (bases only grow); this CPU only. */
static void st_base_raise(unsigned long *base, unsigned long v)
{
	unsigned long b = READ_ONCE(*base);

	while ((long)(v - b) > 0) {
		unsigned long old = cmpxchg_local(base, b, v);

		if (old == b)
			break;
		b = old;
	}
}

/* Raise @l to @v; this CPU only. */
static void st_local_raise(local_t *l, unsigned long v)
{
	long c = local_read(l);

	while ((long)(v - c) > 0) {
		long old = local_cmpxchg(l, c, v);

		if (old == c)
			break;
		c = old;
	}
}

/* Undo an opening's marker that no baseline took in. */
static void st_unmark_local(local_t *cnt, unsigned long mark,
			    unsigned long *base)
{
	if ((long)(READ_ONCE(*base) - mark) < 0)
		local_dec(cnt);
}

static void st_unmark_atomic(atomic_long_t *cnt, unsigned long mark,
			     unsigned long *base)
{
	if ((long)(READ_ONCE(*base) - mark) < 0)
		atomic_long_dec(cnt);
}

/*
 * Whether no record of @r (head @v) is still being written: commit at or
 * above head's position.
 *
 * Every opener of @r at head's position computes a start at or above
 * that of any opener before it: other CPUs change only head's state bits,
 * never its position, and "no record still being written" (commit at or
 * above that position) once true stays true. Commit moves only when the
 * outermost writer on this CPU ends (to head's position), or when an
 * opener raises it to the start before its last step, which may then
 * fail because another CPU changed the state bits: commit is then above
 * head's position, which an equality test would take for a record still
 * open.
 */
static bool st_ring_settled(struct st_ring *r, unsigned long v)
{
	return (long)(local_read(&r->commit) - st_pos(v)) >= 0;
}

/*
 * Where the next epoch of @r (head @v) starts: above everything reserved
 * so far, so that no reservation word of an older epoch can compare equal
 * (R1 without ABA). With no record of @r still being written
 * (st_ring_settled()), at the ring's next multiple of its size:
 * the new epoch's records fill the ring from its start, as in a new
 * buffer. With one still open (a writer this opener interrupted, which
 * reserved it two snapshots ago), that record's bytes stay pinned until
 * it commits (I2): start just above the last position reserved, so that
 * the new epoch has the room up to that record, a whole ring less what
 * its epoch reserved after it, rather than only what lies before it.
 */
static unsigned long st_epoch_start(struct st_ring *r, unsigned long v)
{
	unsigned long p = st_pos(v);
	unsigned long t = st_pos(atomic_long_read(&r->tail));

	/*
	 * An opening that failed (a snapshot closed the ring before its
	 * last cmpxchg) may have left tail at its start, unsealed or sealed
	 * again by the close: start above it, so that tail is rewritten,
	 * unsealed, for the new epoch.
	 */
	if ((long)(t - p) > 0)
		p = t;
	if (st_ring_settled(r, v))
		return ALIGN(p + 1, r->size);
	return p + ST_ALIGN;
}

/*
 * Open the live-pending or next ring @r (head @v) for this CPU's writers: a
 * new epoch starts (st_epoch_start()), emptied, with baselines for its
 * counters. Runs on @r's CPU, as a writer; an interrupt or NMI may open it
 * too in the middle: every step only raises a value, and the last one is a
 * cmpxchg on head.
 *
 * The baselines: a writer of an older epoch may be about to count its
 * record (st_count_local()); raising each counter by one (the marker)
 * after start was raised makes its cmpxchg fail, and the baseline taken
 * with the marker includes whatever was counted before.
 */
static void st_open(struct snaptrace_buffer *buf, struct st_ring *r,
		    unsigned long v)
{
	unsigned long s = st_epoch_start(r, v);
	unsigned long mc, md, mo, mx, mr, t, flags;

	st_hook(buf, ST_STEP_OPEN, smp_processor_id());
	st_base_raise(&r->start, s);
	smp_mb(); /* start before the markers (pairs with st_count_atomic()) */

	t = atomic_long_read(&r->tail);
	while ((long)(st_pos(t) - s) < 0 &&
	       !atomic_long_try_cmpxchg(&r->tail, (long *)&t, s))
		;

	/*
	 * The markers with IRQs off and only while @r is still unopened: an
	 * interrupt that opened it meanwhile would otherwise see our markers
	 * land above its baselines (its counts one too high, entries two
	 * too low) until we take them back. Only an NMI opener remains.
	 */
	local_irq_save(flags);
	if (atomic_long_read(&r->head) != v) {
		local_irq_restore(flags);
		return;
	}
	mc = local_inc_return(&r->committed);
	md = local_inc_return(&r->dropped);
	mo = local_inc_return(&r->overrun);
	mx = atomic_long_inc_return(&r->overrun_x);
	mr = atomic_long_inc_return(&r->read);

	if (atomic_long_read(&r->head) != v) {
		/* Opened meanwhile by an NMI: keep only its baselines. */
		st_unmark_local(&r->committed, mc, &r->base.committed);
		st_unmark_local(&r->dropped, md, &r->base.dropped);
		st_unmark_local(&r->overrun, mo, &r->base.overrun);
		st_unmark_atomic(&r->overrun_x, mx, &r->base.overrun_x);
		st_unmark_atomic(&r->read, mr, &r->base.read);
		local_irq_restore(flags);
		return;
	}
	st_base_raise(&r->base.committed, mc);
	st_base_raise(&r->base.dropped, md);
	st_base_raise(&r->base.overrun, mo);
	st_base_raise(&r->base.overrun_x, mx);
	st_base_raise(&r->base.read, mr);
	local_irq_restore(flags);
	/*
	 * With commit at (or above) the last position reserved, no record
	 * of @r is still being written: commit may start at s, so the new epoch has
	 * the whole ring (I2 measures from commit). One still open (a writer
	 * we interrupted, reserved two snapshots ago) keeps commit behind its
	 * record until it commits.
	 */
	if (st_ring_settled(r, v))
		st_local_raise(&r->commit, s);
	smp_wmb(); /* the epoch before the open state (pairs with readers) */
	st_hook(buf, ST_STEP_OPEN_LAST, smp_processor_id());
	atomic_long_cmpxchg(&r->head, v, s);
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
		unsigned long h = st_pos(atomic_long_read(&r->head));

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

/*
 * Push tail to at least @min, counting overwritten records (I3) in @cnt
 * (this CPU's writers) or in overrun_x (@cnt NULL: a snapshot's push).
 * The seal bit of tail is kept.
 */
static void st_push_tail(struct st_ring *r, unsigned long min, local_t *cnt)
{
	unsigned long t, p, len;
	struct st_hdr *hdr;
	u16 type;

	for (;;) {
		t = atomic_long_read(&r->tail);
		p = st_pos(t);
		if ((long)(p - min) >= 0)
			return;
		hdr = (struct st_hdr *)(r->data + (p & r->mask));
		len = READ_ONCE(hdr->len);
		type = READ_ONCE(hdr->type);
		if (unlikely(len < ST_PAD_MIN || len & (ST_ALIGN - 1) ||
			     len > r->size - (p & r->mask))) {
			/* Only someone moving tail under us explains this. */
			if (atomic_long_read(&r->tail) == t) {
				WARN_ON_ONCE(1);
				return;
			}
			continue;
		}
		if (!atomic_long_try_cmpxchg(&r->tail, (long *)&t,
					     (p + len) | (t & ST_SEAL)))
			continue;
		if (type == ST_REC_PAD)
			continue;
		if (cnt)
			st_count_local(r, cnt, p);
		else
			st_count_atomic(r, &r->overrun_x, p);
	}
}

/* This CPU's ring of the live half. */
static __always_inline struct st_ring *st_live_ring(struct snaptrace_buffer *buf)
{
	struct st_half *half;

	half = rcu_dereference_sched(buf->half[st_state(buf) & 1]);
	return this_cpu_ptr(half->rings);
}

/*
 * @r is not open (head @h): find the ring this CPU's writers use now, and
 * open it if need be. Returns @r again after opening it (or when it
 * changed state under us). R2: a ring is opened only when its twin is a
 * snapshot (%ST_SPARE), or is next while the ring is still in the live
 * half; while a snapshot is under way the former live ring keeps
 * recording until its cut. If that ring was empty (live-pending) and the
 * roles are published, the cut is taken here, by sealing it empty:
 * nothing is lost, and no writer ever waits for the snapshot to get there.
 */
static struct st_ring *st_writer_ring(struct snaptrace_buffer *buf,
				      struct st_ring *r, long h)
{
	struct st_ring *tw = READ_ONCE(r->twin);
	long th;

	if (h & ST_SPARE) {
		/* A snapshot: the live ring is its twin. */
		if (WARN_ON_ONCE(!tw))
			return st_live_ring(buf);
		return tw;
	}
	/* Live-pending (ST_SEAL | ST_PENDING) or next (ST_PENDING). */
	if (!tw) {
		st_open(buf, r, h);
		return r;
	}
	th = atomic_long_read(&tw->head);
	if (!(th & ST_FLAGS))
		return tw;		/* the former live ring, before its cut */
	if (th & ST_SPARE) {
		st_open(buf, r, h);
		return r;
	}
	/*
	 * Both empty, and neither a snapshot: a snapshot is under way. The
	 * former live ring is live-pending (a snapshot first makes a next
	 * ring of the live half live-pending: st_round()), the new one next.
	 */
	if (!(h & ST_SEAL) != !(th & ST_SEAL)) {
		struct st_ring *lp = h & ST_SEAL ? r : tw;
		long lh = h & ST_SEAL ? h : th;

		/*
		 * Roles not yet published: the live-pending ring is still
		 * the live one, and the new one belongs to the spare half,
		 * which a snapshot from an NMI would seal and empty (as a
		 * ring its interrupted snapshot left open): open the
		 * live-pending one; the snapshot's step 3 cuts it. If the
		 * roles are published meanwhile, its cut closes it and
		 * st_open()'s last cmpxchg fails.
		 */
		if (lp == st_live_ring(buf)) {
			if (lp != r)
				return lp;	/* opened with its commit begun */
			st_open(buf, r, h);
			return r;
		}
		/*
		 * Published: take the cut for this CPU by sealing the
		 * former, empty, and use the new one.
		 */
		atomic_long_cmpxchg(&lp->head, lh, lh | ST_SPARE);
		return lp == r ? tw : r;
	}
	/*
	 * Both alike: a snapshot from an NMI is completing one it
	 * interrupted, and will seal the spare half's: open the live one.
	 */
	if (r != st_live_ring(buf))
		return st_live_ring(buf);
	st_open(buf, r, h);
	return r;
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
	struct st_ring *r, *next;
	struct st_hdr *hdr;
	u64 ts;

	if (unlikely(len == 0 || len > SNAPTRACE_MAX_PAYLOAD)) {
		*err = ST_EINVAL;
		return NULL;
	}
	total = ST_HDR_SIZE + ALIGN(len, ST_ALIGN);

	/*
	 * Preemption stays off until the commit: an RCU-sched read side, so
	 * a resize or free of a half waits for every writer inside it.
	 */
	preempt_disable_notrace();
	if (unlikely(!READ_ONCE(buf->record_on) ||
		     atomic_read(&buf->record_disabled))) {
		preempt_enable_notrace();
		*err = ST_EOFF;
		return NULL;
	}
	r = st_live_ring(buf);
	st_hook(buf, ST_STEP_WRITE_LOOKUP, smp_processor_id());
again:
	st_start_commit(r);
	h = atomic_long_read(&r->head);
	for (;;) {
		if (unlikely(h & ST_FLAGS)) {
			next = st_writer_ring(buf, r, h);
			if (next != r) {
				st_end_commit(r);
				r = next;
				goto again;
			}
			h = atomic_long_read(&r->head);
			continue;
		}
		ts = local_clock();
		off = h & r->mask;
		pad = off + total > r->size ? r->size - off : 0;
		end = h + pad + total;
		/* I2: never reuse the bytes of a record still being written. */
		if (unlikely(end - local_read(&r->commit) > r->size) ||
		    (READ_ONCE(buf->mode) == SNAPTRACE_STOP_WHEN_FULL &&
		     end - st_pos(atomic_long_read(&r->tail)) > r->size)) {
			/*
			 * Full, if the ring is still open at this position: a
			 * snapshot may just have emptied the live half.
			 */
			unsigned long now;

			st_hook(buf, ST_STEP_WRITE_FULL, smp_processor_id());
			now = atomic_long_read(&r->head);
			if (now != h) {
				h = now;
				continue;
			}
			goto full;
		}
		st_hook(buf, ST_STEP_WRITE_RESERVE, smp_processor_id());
		/* R1: fails, with no side effect, if the ring was sealed. */
		if (atomic_long_try_cmpxchg(&r->head, (long *)&h, end))
			break;
	}
	st_hook(buf, ST_STEP_WRITE_RESERVED, smp_processor_id());

	if ((long)(end - r->size - st_pos(atomic_long_read(&r->tail))) > 0) {
		st_push_tail(r, end - r->size, &r->overrun);
		st_hook(buf, ST_STEP_WRITE_PUSHED, smp_processor_id());
	}

	if (pad) {
		hdr = (struct st_hdr *)(r->data + off);
		hdr->len = pad;
		hdr->type = ST_REC_PAD;
		hdr->size = 0;
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
	st_count_local_at(buf, r, &r->dropped, h, ST_STEP_COUNT_DROPPED);
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
 * and commit its own record while this one is open. The reservation is the
 * instant that decides on which side of a snapshot the record falls.
 * Mirrors ring_buffer_lock_reserve().
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
 * is committed, in whichever half it was reserved: a record reserved
 * before a snapshot becomes visible in the snapshot. Re-enables
 * preemption. Mirrors ring_buffer_unlock_commit().
 *
 * Context: the context that called snaptrace_reserve(), on the same CPU.
 * Never sleeps.
 */
void snaptrace_commit(struct snaptrace_buffer *buf,
		      struct snaptrace_reservation *res)
{
	struct st_ring *r = res->ring;

	st_count_local(r, &r->committed, res->pos);
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
	st_hook(buf, ST_STEP_WRITE_COMMIT, smp_processor_id());
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
 * off; -ENOSPC if there is no room (counted as dropped in the ring's epoch
 * that refused it: if a snapshot or reset empties that ring before the
 * count, the count goes with it).
 */
int snaptrace_write(struct snaptrace_buffer *buf, const void *data, size_t len)
{
	return snaptrace_write_type(buf, SNAPTRACE_REC_DATA, data, len);
}
EXPORT_SYMBOL_GPL(snaptrace_write);

/* ------------------------------------------------------------------ */
/* Read side */

/*
 * Readers wait while a snapshot, clear or reset changes the rings' states
 * (each is O(nr_cpu_ids), with IRQs off), then check afterwards that none
 * began meanwhile: a seqcount over @busy and @gen. Writers never wait for
 * readers, and snapshots never fail because of them.
 */
static long st_read_begin(struct snaptrace_buffer *buf)
{
	long g;

	for (;;) {
		g = atomic_long_read(&buf->gen);
		smp_rmb(); /* gen before busy (st_change_begin() writes them in reverse) */
		if (!atomic_read(&buf->busy))
			return g;
		cpu_relax();
	}
}

static bool st_read_retry(struct snaptrace_buffer *buf, long g)
{
	smp_rmb(); /* what was read before busy and gen */
	return atomic_read(&buf->busy) || atomic_long_read(&buf->gen) != g;
}

enum st_read_ret {
	ST_READ_OK,	/* a record, intact */
	ST_READ_PAD,	/* padding: skip *next bytes */
	ST_READ_EMPTY,	/* nothing committed at pos */
	ST_READ_LOST,	/* tail passed pos: overwritten or reset */
	ST_READ_BAD,	/* a header that cannot be: treated as the end */
};

/*
 * Read the record at @pos of @r: its header always, its payload into @rec
 * when @rec is not NULL. Sets *len to the record's length in the ring. A
 * pending ring is empty.
 */
static enum st_read_ret st_read_at(struct st_ring *r, unsigned long pos,
				   struct snaptrace_record *rec, u64 *ts,
				   unsigned long *len)
{
	unsigned long off = pos & r->mask;
	unsigned long c, start;
	struct st_hdr *hdr;
	bool valid;
	u32 l;
	u16 type, size;

	if (atomic_long_read(&r->head) & ST_PENDING)
		return ST_READ_EMPTY;
	c = local_read(&r->commit);
	smp_rmb(); /* commit before the record (pairs with st_end_commit) */
	if ((long)(pos - c) >= 0)
		return ST_READ_EMPTY;
	if ((long)(pos - st_pos(atomic_long_read(&r->tail))) < 0)
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

	start = READ_ONCE(r->start);
	smp_rmb(); /* the copy before the re-check of tail (I4) */
	if ((long)(pos - st_pos(atomic_long_read(&r->tail))) < 0)
		return ST_READ_LOST;
	if (WARN_ON_ONCE(!valid))
		return ST_READ_BAD;

	*len = l;
	if (type == ST_REC_PAD)
		return ST_READ_PAD;
	if (rec) {
		rec->ts = *ts;
		rec->pos = pos - start;
		rec->type = type;
		rec->len = size;
	}
	return ST_READ_OK;
}

/* Where a reader of @r starts: tail, or the next epoch's start if pending. */
static unsigned long st_ring_first(struct st_ring *r)
{
	unsigned long h = atomic_long_read(&r->head);

	if (h & ST_PENDING)
		return st_epoch_start(r, h);
	return st_pos(atomic_long_read(&r->tail));
}

#define ST_PEEK_ONLY	(-1L)

/*
 * Find the oldest record of @r at or after *pos (skipping padding). With
 * @consume the seal bit a consumer of this role expects on tail (0: live,
 * ST_SEAL: snapshot): the cursor is tail, and padding is consumed. Returns
 * ST_READ_OK with *ts set, or ST_READ_EMPTY. *pos is moved to the record.
 */
static enum st_read_ret st_peek(struct st_ring *r, unsigned long *pos,
				long consume, u64 *ts)
{
	unsigned long len;
	enum st_read_ret ret;
	long t;

	for (;;) {
		t = atomic_long_read(&r->tail);
		if (consume != ST_PEEK_ONLY) {
			if ((t & ST_SEAL) != consume)
				return ST_READ_EMPTY; /* changing roles */
			*pos = st_pos(t);
		} else if ((long)(*pos - st_pos(t)) < 0) {
			*pos = st_pos(t);
		}
		ret = st_read_at(r, *pos, NULL, ts, &len);
		switch (ret) {
		case ST_READ_OK:
		case ST_READ_EMPTY:
			return ret;
		case ST_READ_BAD:
			return ST_READ_EMPTY;
		case ST_READ_PAD:
			if (consume != ST_PEEK_ONLY)
				atomic_long_cmpxchg(&r->tail, t, (*pos + len) | consume);
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
 * (NULL: consuming, the cursor is tail, @consume the seal bit expected).
 * Returns the CPU or -1.
 */
static int st_pick(struct st_half *half, int cpu, unsigned long *pos,
		   long consume, unsigned long *cpos)
{
	int c, best = -1;
	u64 ts, best_ts = 0;
	unsigned long p;

	for_each_possible_cpu(c) {
		struct st_ring *r = per_cpu_ptr(half->rings, c);

		if (cpu != SNAPTRACE_ALL_CPUS && c != cpu)
			continue;
		p = pos ? pos[c] : 0;
		if (st_peek(r, &p, pos ? ST_PEEK_ONLY : consume, &ts) != ST_READ_OK)
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
 * was copied is skipped). The record is removed with one cmpxchg on tail
 * that also checks the ring's role (the seal bit a snapshot sets on tail
 * before it seals the ring), so a record in the snapshot is never taken
 * by a reader of the live half. It takes no lock a writer or snapshot
 * takes: snapshots never fail because of it. Mirrors ring_buffer_consume().
 *
 * Context: process context, may sleep (takes the buffer's reader mutex).
 * Return: 0; -ENODATA if empty; -ENOENT if @which is the snapshot and no
 * spare is allocated; -EINVAL for a bad @cpu.
 */
int snaptrace_consume(struct snaptrace_buffer *buf, enum snaptrace_which which,
		      int cpu, struct snaptrace_record *rec)
{
	long expect = which == SNAPTRACE_SNAPSHOT ? ST_SEAL : 0;
	unsigned long pos, len;
	struct st_half *half;
	struct st_ring *r;
	int c, ret;
	long g, t;
	u64 ts;

	if (cpu != SNAPTRACE_ALL_CPUS && !st_cpu_valid(cpu))
		return -EINVAL;

	mutex_lock(&buf->lock);
	for (;;) {
		cond_resched();
		g = st_read_begin(buf);
		half = st_half_in(buf, st_state(buf), which);
		if (!half) {
			ret = -ENOENT;
			break;
		}
		c = st_pick(half, cpu, NULL, expect, &pos);
		if (c < 0) {
			if (st_read_retry(buf, g))
				continue;
			ret = -ENODATA;
			break;
		}
		r = per_cpu_ptr(half->rings, c);
		if (st_read_at(r, pos, rec, &ts, &len) != ST_READ_OK)
			continue;
		st_hook(buf, ST_STEP_CONSUME, c);
		t = pos | expect;
		if (!atomic_long_try_cmpxchg(&r->tail, &t, (pos + len) | expect))
			continue;
		st_count_atomic(r, &r->read, pos);
		rec->cpu = c;
		ret = 0;
		break;
	}
	mutex_unlock(&buf->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_consume);

/* Whether @iter's half was replaced, emptied or freed since it started. */
static bool st_iter_stale(struct snaptrace_iter *iter)
{
	struct snaptrace_buffer *buf = iter->buf;

	/* @frees first: the half may be gone, and its address reused. */
	return buf->frees != iter->frees ||
	       st_state(buf) != iter->state ||
	       atomic_long_read(&iter->half->resets) != iter->resets;
}

/**
 * snaptrace_iter_start() - begin a non-consuming read
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a CPU, or %SNAPTRACE_ALL_CPUS to merge every CPU by timestamp
 *
 * The iterator holds no lock between calls: each snaptrace_iter_next()
 * takes the buffer's reader mutex for the time of one record, and finds
 * out then whether the half it reads still plays the same part. Writers
 * and snapshots never wait for it. Mirrors ring_buffer_read_start().
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
	long g;
	int c;

	if (cpu != SNAPTRACE_ALL_CPUS && !st_cpu_valid(cpu))
		return ERR_PTR(-EINVAL);
	iter = kzalloc(struct_size(iter, pos, nr_cpu_ids), GFP_KERNEL);
	if (!iter)
		return ERR_PTR(-ENOMEM);

	mutex_lock(&buf->lock);
	do {
		g = st_read_begin(buf);
		iter->state = st_state(buf);
		half = st_half_in(buf, iter->state, which);
		if (!half)
			break;
		iter->resets = atomic_long_read(&half->resets);
		for_each_possible_cpu(c)
			iter->pos[c] = st_ring_first(per_cpu_ptr(half->rings, c));
	} while (st_read_retry(buf, g));
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
	long g;
	u64 ts;

	mutex_lock(&buf->lock);
	for (;;) {
		/* Roles change only while busy: look once none runs (seqcount). */
		g = st_read_begin(buf);
		if (st_iter_stale(iter)) {
			ret = -ESTALE;
			break;
		}
		c = st_pick(iter->half, iter->cpu, iter->pos, ST_PEEK_ONLY, &pos);
		if (c >= 0) {
			r = per_cpu_ptr(iter->half->rings, c);
			if (st_read_at(r, pos, rec, &ts, &len) != ST_READ_OK)
				continue;
		}
		/* A snapshot, clear or reset meanwhile: neither is true. */
		if (st_read_retry(buf, g))
			continue;
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

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * snaptrace_test_lose_wakeup() - forget that a reader waits
 * @buf: the buffer
 *
 * For KUnit: clears the flag that snaptrace_wait() and snaptrace_poll()
 * raise and that the write path (and every other caller of the wake-up:
 * snapshots, recording turned off) looks at before it wakes them, as a
 * writer sees it when its look is reordered before the reader's store: the
 * lost wake-up that their 100 ms recheck bounds. Until a reader raises the
 * flag again (its next recheck), nothing wakes it.
 *
 * Context: any. Never sleeps.
 * Return: the flag as it was: true if a reader had raised it.
 */
bool snaptrace_test_lose_wakeup(struct snaptrace_buffer *buf)
{
	return xchg(&buf->waiters, false);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_test_lose_wakeup);
#endif

static void st_poll_work(struct work_struct *work)
{
	struct snaptrace_buffer *buf = container_of(to_delayed_work(work),
						    struct snaptrace_buffer,
						    poll_work);

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
	half = st_half_in(buf, st_state(buf), which);
	for_each_possible_cpu(c) {
		if (!half || ret)
			break;
		if (cpu != SNAPTRACE_ALL_CPUS && c != cpu)
			continue;
		pos = 0;
		ret = st_peek(per_cpu_ptr(half->rings, c), &pos, ST_PEEK_ONLY,
			      &ts) == ST_READ_OK;
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
 * within 100 ms by itself. Mirrors ring_buffer_wait().
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
 * When there is nothing to read, a wake-up of the poll queue is scheduled
 * in 100 ms, so that a wake-up lost as described for snaptrace_wait()
 * delays the poller by at most that long, as it does a waiter.
 *
 * Context: process context (a file's ->poll()).
 * Return: EPOLLIN | EPOLLRDNORM if there is data, else 0.
 */
__poll_t snaptrace_poll(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu, struct file *filp, poll_table *pt)
{
	poll_wait(filp, &buf->waitq, pt);
	if (st_wait_cond(buf, which, cpu, false))
		return EPOLLIN | EPOLLRDNORM;
	/* Not mod_: pollers more often than that must not push it back. */
	queue_delayed_work(system_wq, &buf->poll_work, ST_WAIT_RECHECK);
	return 0;
}
EXPORT_SYMBOL_GPL(snaptrace_poll);

/* ------------------------------------------------------------------ */
/* The buffer's lock, and changes of the rings' states */

enum st_lock_ret {
	ST_LOCKED,	/* taken */
	ST_NESTED,	/* held by what this call interrupted, on this CPU */
	ST_COALESCED,	/* a snapshot that began after this one finished */
};

#define ST_LOCK_KIND_SHIFT	24

/*
 * The buffer's lock: snapshots, clears, resets and the changes of halves
 * take it with IRQs off and hold it for O(nr_cpu_ids) steps, so a caller
 * on another CPU waits a bounded time. The holder's CPU and kind are in
 * the lock word, so that an NMI that interrupted the holder can tell
 * (ST_NESTED) instead of spinning on its own CPU. A snapshot waiting for
 * the lock returns as soon as a snapshot that began after @gen0 (the
 * generation it saw on entry) has finished: that one's cut is its own.
 */
static enum st_lock_ret st_lock(struct snaptrace_buffer *buf, int kind,
				long gen0)
{
	int me = raw_smp_processor_id() + 1;
	int o;

	for (;;) {
		o = atomic_cmpxchg_acquire(&buf->lock_cpu, 0,
					   me | kind << ST_LOCK_KIND_SHIFT);
		if (!o)
			return ST_LOCKED;
		if ((o & (BIT(ST_LOCK_KIND_SHIFT) - 1)) == me)
			return ST_NESTED;
		if (kind == ST_LOCK_ROUND &&
		    (long)(atomic_long_read(&buf->done) - gen0) > 0)
			return ST_COALESCED;
		cpu_relax();
	}
}

static int st_lock_holder_kind(struct snaptrace_buffer *buf)
{
	return atomic_read(&buf->lock_cpu) >> ST_LOCK_KIND_SHIFT;
}

static void st_unlock(struct snaptrace_buffer *buf)
{
	atomic_set_release(&buf->lock_cpu, 0);
}

static void st_lock_irqsave(struct snaptrace_buffer *buf, int kind,
			    unsigned long *flags)
{
	local_irq_save(*flags);
	WARN_ON_ONCE(st_lock(buf, kind, 0) != ST_LOCKED);
}

static void st_unlock_irqrestore(struct snaptrace_buffer *buf,
				 unsigned long flags)
{
	st_unlock(buf);
	local_irq_restore(flags);
}

/* A snapshot, clear or reset begins: readers wait, then retry (seqcount). */
static long st_change_begin(struct snaptrace_buffer *buf)
{
	atomic_inc(&buf->busy);
	smp_mb__after_atomic(); /* busy before gen and the changes */
	return atomic_long_inc_return(&buf->gen);
}

static void st_change_end(struct snaptrace_buffer *buf)
{
	smp_mb__before_atomic(); /* the changes before busy */
	atomic_dec(&buf->busy);
}

/*
 * Close the open or live-pending ring @r: seal it as the snapshot of its
 * CPU (@flag %ST_SPARE: the cut for that CPU), or empty it (@flag
 * %ST_PENDING: a reset). Tail is sealed first, so that a consumer of the
 * live half cannot take a record from it after the cut (st_peek() and
 * snaptrace_consume() expect the bit clear). Each cmpxchg expects values
 * read before a check that @state (the halves' roles) still holds: if a
 * snapshot from an NMI changed them meanwhile, they fail. Returns false if
 * @state no longer holds.
 */
static bool st_close(struct snaptrace_buffer *buf, struct st_ring *r,
		     long state, unsigned long flag, int cpu)
{
	unsigned long done_if = flag == ST_SPARE ? ST_SPARE : ST_FLAGS;
	long h, t;

	for (;;) {
		h = atomic_long_read(&r->head);
		if (h & done_if)
			return true;
		t = atomic_long_read(&r->tail);
		smp_rmb(); /* head and tail before the roles */
		if (st_state(buf) != state)
			return false;
		if (!(t & ST_SEAL) &&
		    !atomic_long_try_cmpxchg(&r->tail, &t, t | ST_SEAL))
			continue;
		/* R1: a writer's reservation either came before, or fails. */
		if (atomic_long_try_cmpxchg(&r->head, &h, h | ST_SEAL | flag))
			break;
	}
	if (flag == ST_SPARE) {
		st_hook(buf, ST_STEP_SNAP_SEALED, cpu);
		/*
		 * Reservations before the cut overwrite the oldest records in
		 * overwrite mode; their writers may not have pushed tail yet.
		 * Push it now, so that the snapshot's records and counters are
		 * final when snapshot() returns. At most the records under the
		 * reservations still open at the cut.
		 */
		if (!(h & ST_PENDING))
			st_push_tail(r, st_pos(h) - r->size, NULL);
	}
	return true;
}

/* Empty the snapshot @r and make it the next live ring (a snapshot's first step). */
static bool st_unspare(struct snaptrace_buffer *buf, struct st_ring *r,
		       long state)
{
	long h;

	for (;;) {
		h = atomic_long_read(&r->head);
		if (!(h & ST_SPARE))
			return true;
		smp_rmb(); /* head before the roles */
		if (st_state(buf) != state)
			return false;
		if (atomic_long_try_cmpxchg(&r->head, &h, st_pos(h) | ST_PENDING))
			return true;
	}
}

/*
 * A next ring of the live half (emptied by the previous snapshot, not yet
 * written) becomes live-pending: so that while this snapshot is under way
 * a writer tells it from the new next ring (st_writer_ring()).
 */
static bool st_settle(struct snaptrace_buffer *buf, struct st_ring *r,
		      long state)
{
	long h;

	for (;;) {
		h = atomic_long_read(&r->head);
		if ((h & ST_FLAGS) != ST_PENDING)
			return true;
		smp_rmb(); /* head before the roles */
		if (st_state(buf) != state)
			return false;
		if (atomic_long_try_cmpxchg(&r->head, &h, h | ST_SEAL))
			return true;
	}
}

/* Empty the snapshot @r, keeping its role (a clear). */
static bool st_clear_ring(struct snaptrace_buffer *buf, struct st_ring *r,
			  long state)
{
	long h;

	for (;;) {
		h = atomic_long_read(&r->head);
		if (!(h & ST_SPARE) || (h & ST_PENDING))
			return true;
		smp_rmb(); /* head before the roles */
		if (st_state(buf) != state)
			return false;
		if (atomic_long_try_cmpxchg(&r->head, &h, h | ST_PENDING))
			return true;
	}
}

static void st_done_raise(struct snaptrace_buffer *buf, long g)
{
	long d = atomic_long_read(&buf->done);

	while ((long)(g - d) > 0 && !atomic_long_try_cmpxchg(&buf->done, &d, g))
		;
}

/*
 * One snapshot (called with the lock, or nested in its holder on this
 * CPU). In three steps, each of them idempotent:
 *
 * 1. the live half's next rings become live-pending (st_settle()); the
 *    spare's rings are emptied and become next. A snapshot
 *    that this one interrupted (an NMI) may have left rings of the spare
 *    half still open: they are sealed first, completing it;
 * 2. the roles are published: one cmpxchg of the state word;
 * 3. each CPU's ring of the former live half is sealed: the cut for that
 *    CPU. Until then its writers keep recording there (R2); after it,
 *    their next reservation fails (R1) and opens the new ring.
 *
 * If another snapshot (an NMI) completed this one's work meanwhile, the
 * state word changed: this one stops; that one's cuts came after this one
 * began. Returns 0, or -ENOENT without a spare.
 */
static int st_round(struct snaptrace_buffer *buf)
{
	struct st_half *live, *spare;
	long g, s, next;
	int cpu, ret = 0;

	g = st_change_begin(buf);
	s = st_state(buf);
	live = st_half_in(buf, s, SNAPTRACE_LIVE);
	spare = st_half_in(buf, s, SNAPTRACE_SNAPSHOT);
	if (!spare) {
		ret = -ENOENT;
		goto out;
	}
	for_each_possible_cpu(cpu)
		if (!st_settle(buf, per_cpu_ptr(live->rings, cpu), s))
			goto done;
	st_hook(buf, ST_STEP_SNAP_SETTLED, -1);
	for_each_possible_cpu(cpu)
		if (!st_close(buf, per_cpu_ptr(spare->rings, cpu), s, ST_SPARE,
			      cpu))
			goto done;
	for_each_possible_cpu(cpu)
		if (!st_unspare(buf, per_cpu_ptr(spare->rings, cpu), s))
			goto done;
	st_hook(buf, ST_STEP_SNAP_PENDED, -1);

	next = (s + 2) ^ 1;
	if (!atomic_long_try_cmpxchg(&buf->state, &s, next))
		goto done;
	st_hook(buf, ST_STEP_SNAP_PUBLISHED, -1);

	for_each_possible_cpu(cpu)
		if (!st_close(buf, per_cpu_ptr(live->rings, cpu), next, ST_SPARE,
			      cpu))
			break;
done:
	st_done_raise(buf, g);
out:
	st_change_end(buf);
	return ret;
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
	init_irq_work(&buf->wake_work, st_wake_work);
	INIT_DELAYED_WORK(&buf->poll_work, st_poll_work);
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
	cancel_delayed_work_sync(&buf->poll_work);
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

/**
 * snaptrace_reset() - empty the live half
 * @buf: the buffer
 *
 * Every CPU's ring of the live half becomes empty, and its counters start
 * again from 0 with the next record its CPU writes. O(nr_cpu_ids): the
 * rings are marked empty in their reservation word (R1), like the cut of a
 * snapshot; a record reserved before is dropped with the rest, and one
 * still being written then is not counted afterwards (I5). Writers are
 * never refused. The user's tracing_on switch is left as it is. Mirrors
 * ring_buffer_reset_online_cpus().
 *
 * Context: any, NMI included. Never sleeps; waits (bounded) for a
 * snapshot, clear or reset running on another CPU.
 */
void snaptrace_reset(struct snaptrace_buffer *buf)
{
	struct st_half *live;
	enum st_lock_ret l;
	unsigned long flags;
	bool ok;
	long s;
	int cpu;

	local_irq_save(flags);
	l = st_lock(buf, ST_LOCK_RESET, 0);
	st_change_begin(buf);
	do {
		s = st_state(buf);
		live = st_half_in(buf, s, SNAPTRACE_LIVE);
		ok = true;
		for_each_possible_cpu(cpu) {
			ok = st_close(buf, per_cpu_ptr(live->rings, cpu), s,
				      ST_PENDING, cpu);
			if (!ok)
				break;	/* an NMI took a snapshot: again */
		}
	} while (!ok);
	atomic_long_inc(&live->resets);
	st_change_end(buf);
	if (l == ST_LOCKED)
		st_unlock(buf);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(snaptrace_reset);

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

static const char st_miss_marker[] =
	"snapshot: no spare buffer allocated; recording stopped";

/**
 * snaptrace_snapshot() - freeze the recent past into the spare half
 * @buf: the buffer
 *
 * Afterwards the snapshot holds, for each CPU, exactly the records whose
 * reservation took effect before that CPU's cut (those still being
 * written appear when their writers commit them), less those the ring's
 * own wrap overwrote before it (counted in its overrun), and no record
 * reserved after it. Each CPU's cut is one cmpxchg on its ring's
 * reservation word, made during this call. Afterwards nothing removes or
 * adds records in the snapshot but those late commits (and consuming reads
 * of the snapshot); its counters change only with them and with what was
 * decided before the cut and counted after it: a refusal, a consuming
 * read, or an overwrite by a writer reserved before the cut whose tail
 * push raced the snapshot's (Documentation/ring-buffer.rst). Recording goes
 * on in the other half, which starts empty. O(nr_cpu_ids), independent of
 * the buffer size: nothing is copied. Mirrors tracing_snapshot(), which
 * refuses NMI context; this one does not.
 *
 * Concurrent snapshots coalesce: a call returns after a snapshot that
 * began after it did has finished (its own, or another one's). Readers,
 * iterators, writers, clears and resets never make it fail.
 *
 * If no spare is allocated nothing changes in the buffers and the miss is
 * counted; with snaptrace_set_stop_on_miss(), a marker record is written
 * and recording is turned off, as ftrace does.
 *
 * Context: any: task, softirq, hardirq, NMI, IRQs disabled. Never sleeps,
 * never allocates. IRQs are off for its time; it waits (bounded) only for
 * a snapshot, clear, reset or resize running on another CPU.
 * Return: 0; -ENOENT if no spare is allocated; -EBUSY only when called
 * from an NMI that interrupted snaptrace_resize(), snaptrace_alloc_snapshot()
 * or snaptrace_free_snapshot() swapping the halves on this CPU. Both
 * count as misses.
 */
int snaptrace_snapshot(struct snaptrace_buffer *buf)
{
	unsigned long flags;
	long gen0;
	int ret;

	local_irq_save(flags);
	gen0 = atomic_long_read(&buf->gen);
	switch (st_lock(buf, ST_LOCK_ROUND, gen0)) {
	case ST_LOCKED:
		ret = st_round(buf);
		st_unlock(buf);
		break;
	case ST_NESTED:
		ret = st_lock_holder_kind(buf) == ST_LOCK_HALVES ? -EBUSY :
		      st_round(buf);
		break;
	default:
		ret = 0;
		break;
	}
	local_irq_restore(flags);

	if (ret) {
		atomic64_inc(&buf->snapshot_misses);
		if (ret == -ENOENT && READ_ONCE(buf->stop_on_miss)) {
			snaptrace_write_type(buf, SNAPTRACE_REC_MARKER,
					     st_miss_marker,
					     sizeof(st_miss_marker) - 1);
			snaptrace_record_off(buf);
		}
		return ret;
	}
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

/**
 * snaptrace_clear_snapshot() - empty the snapshot, keep the spare
 * @buf: the buffer
 *
 * Each CPU's snapshot ring is marked empty in its reservation word; its
 * counters read 0 from then on, also if a record reserved before the
 * snapshot is committed into it later. Mirrors "echo 2 > snapshot".
 *
 * Context: any, NMI included. Never sleeps; waits (bounded) for a
 * snapshot, clear, reset or resize running on another CPU.
 * Return: 0; -ENOENT if no spare is allocated; -EBUSY if called from an
 * NMI that interrupted a snapshot, clear, reset or resize on this CPU.
 */
int snaptrace_clear_snapshot(struct snaptrace_buffer *buf)
{
	struct st_half *spare;
	unsigned long flags;
	int cpu, ret = 0;
	long s;

	local_irq_save(flags);
	if (st_lock(buf, ST_LOCK_CLEAR, 0) != ST_LOCKED) {
		local_irq_restore(flags);
		return -EBUSY;
	}
	st_change_begin(buf);
	s = st_state(buf);
	spare = st_half_in(buf, s, SNAPTRACE_SNAPSHOT);
	if (spare) {
		/* A snapshot from an NMI meanwhile replaced what we clear: done. */
		for_each_possible_cpu(cpu)
			if (!st_clear_ring(buf, per_cpu_ptr(spare->rings, cpu), s))
				break;
		atomic_long_inc(&spare->resets);
	} else {
		ret = -ENOENT;
	}
	st_change_end(buf);
	st_unlock_irqrestore(buf, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_clear_snapshot);

/* ------------------------------------------------------------------ */
/* Statistics */

/*
 * One epoch's counters of @r. The consumers' and pushers' counts are read
 * before the writers': a record is counted committed before it can be
 * read or overwritten, so entries comes out negative only for the
 * instant of an NMI's opening inside another (clamped below).
 */
static void st_ring_stats(struct st_ring *r, struct snaptrace_stats *st)
{
	unsigned long read, ovx, ov, committed, t, c, pos;
	u64 ts = 0;

	read = atomic_long_read(&r->read) - READ_ONCE(r->base.read);
	ovx = atomic_long_read(&r->overrun_x) - READ_ONCE(r->base.overrun_x);
	ov = local_read(&r->overrun) - READ_ONCE(r->base.overrun);
	smp_rmb(); /* consumed and overwritten before committed */
	committed = local_read(&r->committed) - READ_ONCE(r->base.committed);
	st->dropped = local_read(&r->dropped) - READ_ONCE(r->base.dropped);
	st->written = committed + st->dropped;
	st->overrun = ov + ovx;
	st->read = read;
	/*
	 * Clamped: for the instant an NMI opens @r inside an opening it
	 * interrupted, the interrupted one's markers count two above the
	 * baselines (ring-buffer.rst, Known limits).
	 */
	st->entries = (long)(committed - st->overrun - read) > 0 ?
		      committed - st->overrun - read : 0;
	/*
	 * Commit before tail: every record below commit had its writer push
	 * tail past its end less the ring's size first, so a later tail is
	 * at most a ring below it (read the other way round, a writer could
	 * reserve, push and commit in between: more bytes than the ring).
	 */
	c = local_read(&r->commit);
	smp_rmb(); /* commit before tail */
	t = st_pos(atomic_long_read(&r->tail));
	st->bytes = (long)(c - t) > 0 ? c - t : 0;
	pos = t;
	if (st_peek(r, &pos, ST_PEEK_ONLY, &ts) == ST_READ_OK)
		st->oldest_ts = ts;
}

/**
 * snaptrace_cpu_stats() - one CPU's counters
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: the CPU
 * @stats: filled in
 *
 * One reading: taken again if a snapshot, clear or reset came meanwhile,
 * or the ring was opened (its first record after one of those). At a
 * quiescent point (no writer inside a reservation, no reader)
 * written == read + entries + overrun + dropped, and entries is the
 * number of records a reader finds. While writers run, entries never
 * comes out negative.
 *
 * Context: process context, may sleep (takes the reader mutex).
 * Return: 0; -EINVAL for a bad @cpu; -ENOENT if @which is the snapshot and
 * no spare is allocated.
 */
int snaptrace_cpu_stats(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu, struct snaptrace_stats *stats)
{
	struct st_half *half;
	struct st_ring *r;
	long g, h;
	int ret;

	if (!st_cpu_valid(cpu))
		return -EINVAL;

	mutex_lock(&buf->lock);
	for (;;) {
		g = st_read_begin(buf);
		half = st_half_in(buf, st_state(buf), which);
		if (!half) {
			ret = -ENOENT;
			break;
		}
		r = per_cpu_ptr(half->rings, cpu);
		memset(stats, 0, sizeof(*stats));
		h = atomic_long_read(&r->head);
		smp_rmb(); /* the state before the epoch (pairs with st_open()) */
		if (!(h & ST_PENDING))
			st_ring_stats(r, stats);
		stats->snapshot_misses = atomic64_read(&buf->snapshot_misses);
		smp_rmb(); /* the counters before the re-check */
		if (st_read_retry(buf, g) ||
		    (atomic_long_read(&r->head) & ST_FLAGS) != (h & ST_FLAGS))
			continue;
		ret = 0;
		break;
	}
	mutex_unlock(&buf->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_cpu_stats);
