/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace ring buffer: per-CPU lockless recording, consuming and
 * non-consuming readers, and a spare half for exact O(nr_cpu_ids) snapshots.
 * This header holds what ring.c, ring_write.c, ring_read.c and
 * ring_snapshot.c share: the rings' layout, their states and the
 * invariants every one of them keeps.
 *
 * The design, with the invariants named here and the proof of the
 * snapshot's cut, is in Documentation/ring-buffer.rst. In short:
 *
 * Each CPU has a byte ring of size 2^k pages in each of the buffer's two
 * halves (live and spare). Positions are byte offsets that only grow
 * (unsigned long, 64-bit); a position's place in the ring is pos & mask.
 * A one-CPU buffer (snaptrace_buffer_alloc_cpu()) has that size on its
 * home CPU only: every other CPU's rings have size 0, mask 0 and no data,
 * and are always full (I2), so that no path dereferences their data.
 *
 *   tail <= commit <= head
 *
 *   head    the reservation word: position of the next byte to reserve,
 *           and in its low bits the ring's state (open, pending, spare).
 *           This CPU's writers (or the one serialized writer of
 *           snaptrace_reserve_on(), from any CPU, which takes their place:
 *           ring-buffer.rst) reserve with a full cmpxchg; a snapshot on
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
#ifndef _SNAPTRACE_RING_H
#define _SNAPTRACE_RING_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
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
	unsigned long size;	/* 0: a one-CPU buffer's other CPUs */
	unsigned long mask;	/* size - 1, or 0 if size is 0 */
	u8 *data;		/* NULL if size is 0 */
};

/* A set of per-CPU rings: the live half or the spare. */
struct st_half {
	struct st_ring __percpu *rings;
	unsigned long size;		/* bytes per CPU (home CPU's only) */
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
	int home_cpu;			/* the only CPU with room, or -1: all */
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

/* The test hook (KUnit builds only; see Documentation/ring-buffer.rst) */
#if IS_ENABLED(CONFIG_KUNIT)
static __always_inline void st_hook(struct snaptrace_buffer *buf,
				    enum snaptrace_test_step step, int cpu)
{
	snaptrace_test_hook_fn fn = READ_ONCE(snaptrace_test_hook);

	if (unlikely(fn))
		fn(buf, step, cpu);
}

/* The clock of the records' time stamps, in ns (the test clock in KUnit builds). */
static __always_inline u64 st_clock(void)
{
	snaptrace_test_clock_fn fn = READ_ONCE(snaptrace_test_clock);

	if (unlikely(fn))
		return fn();
	return local_clock();
}
#else
static __always_inline void st_hook(struct snaptrace_buffer *buf,
				    enum snaptrace_test_step step, int cpu)
{
}

static __always_inline u64 st_clock(void)
{
	return local_clock();
}
#endif

static __always_inline long st_state(struct snaptrace_buffer *buf)
{
	return atomic_long_read(&buf->state);
}

/* The half playing @which under @state; NULL if there is no spare. */
static inline struct st_half *st_half_in(struct snaptrace_buffer *buf, long state,
					 enum snaptrace_which which)
{
	int idx = (state & 1) ^ (which == SNAPTRACE_SNAPSHOT);

	/* Callers run with preemption or IRQs off, or hold @lock. */
	return rcu_dereference_raw(buf->half[idx]);
}

static inline bool st_cpu_valid(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_possible(cpu);
}

/* The bytes of @cpu's ring in each half of a buffer of @home, @size. */
static inline unsigned long st_ring_size(int home, unsigned long size, int cpu)
{
	return home < 0 || cpu == home ? size : 0;
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
static inline bool st_ring_settled(struct st_ring *r, unsigned long v)
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
static inline unsigned long st_epoch_start(struct st_ring *r, unsigned long v)
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
	/*
	 * A ring of size 0 (a one-CPU buffer's other CPUs) has no multiple
	 * of its size to go to (ALIGN() by 0 gives 0): it moves on by
	 * ST_ALIGN, so that its positions still only grow (R1).
	 */
	if (r->size && st_ring_settled(r, v))
		return ALIGN(p + 1, r->size);
	return p + ST_ALIGN;
}

/*
 * Count one event of the record at @pos in a counter that other CPUs
 * update too (read, overrun_x), unless the record belongs to an epoch
 * that is gone (I5; see st_count_local_at()).
 */
static inline void st_count_atomic(struct st_ring *r, atomic_long_t *cnt,
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

/* Wake the readers waiting in snaptrace_wait() or poll(), from any context. */
static inline void st_wake_waiters(struct snaptrace_buffer *buf)
{
	if (READ_ONCE(buf->waiters))
		irq_work_queue(&buf->wake_work);
}

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
static inline enum st_lock_ret st_lock(struct snaptrace_buffer *buf, int kind,
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

static inline int st_lock_holder_kind(struct snaptrace_buffer *buf)
{
	return atomic_read(&buf->lock_cpu) >> ST_LOCK_KIND_SHIFT;
}

static inline void st_unlock(struct snaptrace_buffer *buf)
{
	atomic_set_release(&buf->lock_cpu, 0);
}

static inline void st_lock_irqsave(struct snaptrace_buffer *buf, int kind,
				   unsigned long *flags)
{
	local_irq_save(*flags);
	WARN_ON_ONCE(st_lock(buf, kind, 0) != ST_LOCKED);
}

static inline void st_unlock_irqrestore(struct snaptrace_buffer *buf,
					unsigned long flags)
{
	st_unlock(buf);
	local_irq_restore(flags);
}

/* A snapshot, clear or reset begins: readers wait, then retry (seqcount). */
static inline long st_change_begin(struct snaptrace_buffer *buf)
{
	atomic_inc(&buf->busy);
	smp_mb__after_atomic(); /* busy before gen and the changes */
	return atomic_long_inc_return(&buf->gen);
}

static inline void st_change_end(struct snaptrace_buffer *buf)
{
	smp_mb__before_atomic(); /* the changes before busy */
	atomic_dec(&buf->busy);
}

/* ring_write.c */
void snaptrace_ring_push_tail(struct st_ring *r, unsigned long min,
			      local_t *cnt);

/* ring_read.c */
void snaptrace_ring_wait_init(struct snaptrace_buffer *buf);
void snaptrace_ring_wait_sync(struct snaptrace_buffer *buf);

#endif /* _SNAPTRACE_RING_H */
