/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace ring buffer: per-CPU lockless recording, consuming and
 * non-consuming readers, and a spare half for exact O(nr_cpu_ids) snapshots.
 * This header holds what ring.c, ring_write.c, ring_epoch.c, ring_read.c,
 * ring_wait.c and ring_snapshot.c share: the rings' layout, their states
 * and the invariants every one of them keeps.
 *
 * The design, with the invariants named here and the proof of the
 * snapshot's cut, is in Documentation/ring-buffer.rst. In short:
 *
 * Each CPU has a byte ring of size 2^k pages in each of the buffer's two
 * halves (live and spare). Positions count half-bytes (twice the byte
 * offset: st_p()) and only grow, modulo 2^BITS_PER_LONG; a position's
 * place in the ring is st_off(): (pos >> 1) & mask.
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
 *   tail    oldest record still in the buffer, and ST_SEAL from a close
 *           (sealed before head is: st_close()) until the next opening
 *           raises it, unsealed, to its epoch's start (a consumer of the
 *           live buffer expects it clear)
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
 *     or fails after it, with no side effect. No value of head repeats:
 *     every change either moves its position up (a reservation, an
 *     opening, the emptying of a snapshot) or goes one way in
 *     open -> {snapshot, live-pending} -> empty spare, next -> {live-pending,
 *     empty spare}, snapshot -> empty spare; so a cmpxchg that expects a
 *     value read long ago fails (no ABA).
 * R2: on each CPU at most one ring is open: a ring is opened only while
 *     its twin is a snapshot (ST_SPARE).
 */
#ifndef _SNAPTRACE_RING_H
#define _SNAPTRACE_RING_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
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

/*
 * 32-bit kernels are fine (Documentation/ring-buffer.rst, "32-bit
 * kernels"), unless their atomic64_t is the generic one, which takes a
 * spinlock: a writer or a snapshot in an NMI that interrupted its holder
 * would deadlock on it (Kconfig refuses them too).
 */
#ifdef CONFIG_GENERIC_ATOMIC64
#error "snaptrace: CONFIG_GENERIC_ATOMIC64's atomic64_t takes a spinlock: not NMI-safe"
#endif

/*
 * Positions count half-bytes: a position is twice the byte offset it
 * stands for (st_p(), st_off()), so that records can be 4-byte granular
 * while the three low bits of every position stay free for head's state
 * (and tail's seal) bits. They wrap at 2^64 as before, and are compared
 * only by signed difference.
 */
#define ST_POS_SHIFT	1

/*
 * The 8-byte layout (Documentation/ring-buffer.rst, "Record layout"), as
 * ftrace's RB_FORCE_8BYTE_ALIGNMENT: where 64-bit accesses must be 64-bit
 * aligned (CONFIG_HAVE_64BIT_ALIGNED_ACCESS: 64-bit architectures without
 * efficient unaligned access, where a caller's u64 store into a payload,
 * NMI included, would trap), or when built with make SNAPTRACE_ALIGN8=1
 * (-DSNAPTRACE_FORCE_ALIGN8: its tests run on x86), every record and
 * payload is 8-byte aligned: no short header, the EXT prefix padded to 8
 * bytes, the ABS prefix to 16. Else records, and payloads, are 4-byte
 * aligned, as ftrace's on most architectures.
 */
#if defined(CONFIG_HAVE_64BIT_ALIGNED_ACCESS) || defined(SNAPTRACE_FORCE_ALIGN8)
#define ST_ALIGN8	1
#define ST_ALIGN	8
#else
#define ST_ALIGN8	0
#define ST_ALIGN	4
#endif

/* Positions for @bytes bytes. */
static __always_inline unsigned long st_p(unsigned long bytes)
{
	return bytes << ST_POS_SHIFT;
}

/*
 * The state bits of head (and ST_SEAL of tail), below st_p(ST_ALIGN):
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

static_assert(ST_FLAGS < (ST_ALIGN << ST_POS_SHIFT));

static inline unsigned long st_pos(unsigned long w)
{
	return w & ~ST_FLAGS;
}

/*
 * Compact records (Documentation/ring-buffer.rst, "Compact records"): in
 * 4-byte words, little-endian as the CPU writes them. The first word of
 * every record is a 5-bit code and 27 bits more:
 *
 *   code 1..27  ST_C_DATA: a SNAPTRACE_REC_DATA record of code * 4 payload
 *               bytes; the 27 bits are the time delta (below); header 4 B.
 *               Never in the 8-byte layout (ST_ALIGN8)
 *   ST_C_LONG   any type and length: the next word is the payload length
 *               (bits 0-15) and type (16-31); header 8 B
 *   ST_C_EXT    a prefix (4 B; 8 B in the 8-byte layout, a zero word
 *               after): its 27 bits are the high part of the delta of the
 *               header that follows
 *   ST_C_ABS    a prefix (12 B; 16 B in the 8-byte layout, a zero word
 *               before the time stamp): the last two words of the prefix
 *               are the record's time stamp, low word first; the header's
 *               27 bits are then 0
 *   ST_C_PAD    padding to the end of the ring (I1): its 27 bits are its
 *               length in bytes
 *   0           never: zeroed memory is no record
 *
 * A record's time stamp is its frame's anchor (struct st_anchor) plus its
 * delta, or the ABS prefix's value.
 */
#define ST_CODE_BITS	5
#define ST_CODE_MASK	(BIT(ST_CODE_BITS) - 1)
#define ST_DELTA_BITS	27
#define ST_DELTA_MASK	(BIT(ST_DELTA_BITS) - 1)
#define ST_C_DATA_MAX	27
#define ST_C_LONG	28
#define ST_C_EXT	29
#define ST_C_ABS	30
#define ST_C_PAD	31
#define ST_C_DATA_UNIT	4	/* payload bytes per ST_C_DATA code */
#if ST_ALIGN8
#define ST_EXT_LEN	8
#define ST_ABS_LEN	16
#else
#define ST_EXT_LEN	4
#define ST_ABS_LEN	12
#endif
/* Where the ABS prefix's time stamp is: its last 8 bytes. */
#define ST_ABS_TS	(ST_ABS_LEN - 8)
#define ST_HDR_SHORT	4
#define ST_HDR_LONG	8
/* Deltas from 2^54 ns (208 days) on, and negative ones, take ABS. */
#define ST_DELTA_LIMIT	BIT_ULL(2 * ST_DELTA_BITS)
/* The largest record: ABS prefix, long header, the largest payload. */
#define ST_REC_MAX	(ST_ABS_LEN + ST_HDR_LONG + SNAPTRACE_MAX_PAYLOAD)

static_assert(ST_C_PAD == ST_CODE_MASK);
static_assert(2 * ST_REC_MAX <= SNAPTRACE_MIN_SIZE);
/* Every record, prefix and header keep the payload ST_ALIGN-aligned. */
static_assert(ST_EXT_LEN % ST_ALIGN == 0 && ST_ABS_LEN % ST_ALIGN == 0);
static_assert(ST_HDR_LONG % ST_ALIGN == 0 && ST_ABS_TS % 4 == 0);
static_assert(ST_ALIGN8 || ST_HDR_SHORT % ST_ALIGN == 0);

/*
 * Whether a record of @type and @len has the 4-byte header: never in the
 * 8-byte layout, where the payload after it would be 4 bytes off.
 */
static __always_inline bool st_short_hdr(u16 type, size_t len)
{
	return !ST_ALIGN8 && type == SNAPTRACE_REC_DATA &&
	       !(len & (ST_C_DATA_UNIT - 1)) &&
	       len <= ST_C_DATA_MAX * ST_C_DATA_UNIT;
}

/*
 * Time anchors: every ST_FRAME bytes of a ring's positions form a frame,
 * and each frame has an anchor, installed by the writer whose reservation
 * covers the frame's first position (its owner): the records of the frame
 * store their time as a delta from it. A ring keeps ST_ANCHORS() slots,
 * frame number modulo that: two laps of frames, and at least four, so that
 * a frame's anchor outlives every record of the frame (ring-buffer.rst,
 * "Compact records", A4).
 */
#define ST_FRAME_SHIFT	13
#define ST_FRAME	BIT(ST_FRAME_SHIFT)	/* bytes */
#define ST_ANCHOR_VALID	1UL
#define ST_ANCHORS(size) max(2 * (size) / ST_FRAME, 4UL)

static_assert(SNAPTRACE_MIN_SIZE % ST_FRAME == 0);
static_assert(ST_REC_MAX < ST_FRAME);

/*
 * @t is an atomic64_t so that it is read and written whole on 32-bit
 * kernels too (ldrexd/strexd on ARMv7-A); on 64-bit ones its read and
 * set are READ_ONCE() and WRITE_ONCE(), as for a u64. Aligned to 8 in
 * so many words: ldrexd/strexd fault on anything less, and AEABI's
 * 8-byte alignment of a 64-bit integer, which gives it that already, is
 * not what sparse assumes of 32-bit ARM.
 */
struct st_anchor {
	unsigned long frame;	/* the frame's first position | ST_ANCHOR_VALID */
	atomic64_t __aligned(8) t;	/* ns; written before @frame */
};

/* 16 bytes on every word size: ST_ANCHORS() slots take what the doc says. */
static_assert(sizeof(struct st_anchor) == 16);

/* The time of anchor @a, read whole. */
static __always_inline u64 st_anchor_t(const struct st_anchor *a)
{
	return atomic64_read(&a->t);
}

/* Bytes of anchors a ring of @size bytes has. */
static inline unsigned long st_anchor_bytes(unsigned long size)
{
	return ST_ANCHORS(size) * sizeof(struct st_anchor);
}

/* The first position of the frame of @pos. */
static __always_inline unsigned long st_frame(unsigned long pos)
{
	return pos & ~(st_p(ST_FRAME) - 1);
}

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
	unsigned long size;	/* bytes; 0: a one-CPU buffer's other CPUs */
	unsigned long mask;	/* size - 1, or 0 if size is 0 */
	u8 *data;		/* NULL if size is 0 */
	struct st_anchor *anchors; /* after data, ST_ANCHORS(size) */
	unsigned long amask;	/* number of anchors - 1 */
	/* Openings and closes only: after what every write reads. */
	local_t marking;	/* openings that began taking their markers (I5) */
	local_t marked;		/* ... and that ended with their baselines */
	atomic_long_t last;	/* head's position when it was last closed */
};

/* The byte offset in @r's data of position @pos. */
static __always_inline unsigned long st_off(const struct st_ring *r,
					    unsigned long pos)
{
	return (pos >> ST_POS_SHIFT) & r->mask;
}

/* The anchor of the frame of @pos in @r. */
static __always_inline struct st_anchor *st_anchor(const struct st_ring *r,
						   unsigned long pos)
{
	return &r->anchors[(pos >> (ST_FRAME_SHIFT + ST_POS_SHIFT)) & r->amask];
}

/*
 * Read the anchor of the frame of @pos in @r for a reader: sets *@t to its
 * time, and returns whether its frame word named that frame. The owner of
 * the frame two laps later may write t between the two reads: a caller
 * must re-check tail after its copy (I4, A4), which throws such a record
 * away. Writers plan with st_time_prefix() instead.
 */
static __always_inline bool st_anchor_get(const struct st_ring *r,
					  unsigned long pos, u64 *t)
{
	const struct st_anchor *a = st_anchor(r, pos);
	unsigned long f = READ_ONCE(a->frame);

	smp_rmb(); /* the frame word before t (st_install()) */
	*t = st_anchor_t(a);
	return f == (st_frame(pos) | ST_ANCHOR_VALID);
}

static __always_inline u32 st_word(const struct st_ring *r, unsigned long off)
{
	return READ_ONCE(*(u32 *)(r->data + off));
}

/* A record of @r as st_parse() finds it. */
struct st_view {
	unsigned long len;	/* bytes in the ring, prefix and padding in */
	unsigned int pre;	/* prefix bytes: 0, ST_EXT_LEN or ST_ABS_LEN */
	unsigned int hlen;	/* header bytes */
	u16 type;		/* 0: padding */
	u16 size;		/* payload bytes */
	u64 delta;		/* from the frame's anchor, unless @abs */
	u64 ts;			/* the ABS prefix's time stamp */
	bool abs;
};

/*
 * Parse the record at byte offset @off of @r (ST_ALIGN-aligned, inside the
 * ring), reading only inside the ring. Returns false if no record written
 * by st_reserve() can look like this (a torn one, as a reader may see).
 */
static __always_inline bool st_parse(const struct st_ring *r, unsigned long off,
				     struct st_view *v)
{
	unsigned long room = r->size - off;
	u32 w = st_word(r, off);
	u32 code = w & ST_CODE_MASK, x = w >> ST_CODE_BITS;

	v->pre = 0;
	v->abs = false;
	v->delta = 0;
	if (code == ST_C_PAD) {
		v->type = 0;
		v->size = 0;
		v->hlen = 0;
		v->len = x;
		return x == room;	/* to the end of the ring (I1) */
	}
	if (code == ST_C_EXT) {
		if (!x || room < ST_EXT_LEN + ST_HDR_SHORT)
			return false;
		/* The 8-byte layout's padding word is 0. */
		if (ST_EXT_LEN > 4 && st_word(r, off + 4))
			return false;
		v->pre = ST_EXT_LEN;
		v->delta = (u64)x << ST_DELTA_BITS;
	} else if (code == ST_C_ABS) {
		if (x || room < ST_ABS_LEN + ST_HDR_SHORT)
			return false;
		if (ST_ABS_TS > 4 && st_word(r, off + 4))
			return false;
		v->pre = ST_ABS_LEN;
		v->abs = true;
		v->ts = st_word(r, off + ST_ABS_TS) |
			(u64)st_word(r, off + ST_ABS_TS + 4) << 32;
	}
	if (v->pre) {
		w = st_word(r, off + v->pre);
		code = w & ST_CODE_MASK;
		x = w >> ST_CODE_BITS;
		if (v->abs && x)
			return false;
	}
	v->delta |= x;
	if (code >= 1 && code <= ST_C_DATA_MAX) {
		/* The 8-byte layout has no short header. */
		if (ST_ALIGN8)
			return false;
		v->type = SNAPTRACE_REC_DATA;
		v->size = code * ST_C_DATA_UNIT;
		v->hlen = ST_HDR_SHORT;
	} else if (code == ST_C_LONG) {
		if (room < v->pre + ST_HDR_LONG)
			return false;
		w = st_word(r, off + v->pre + ST_HDR_SHORT);
		v->size = w & 0xffff;
		v->type = w >> 16;
		v->hlen = ST_HDR_LONG;
		/* A writer gives the short header whenever it can. */
		if (!v->size || v->size > SNAPTRACE_MAX_PAYLOAD || !v->type ||
		    st_short_hdr(v->type, v->size))
			return false;
	} else {
		return false;
	}
	v->len = v->pre + v->hlen + ALIGN(v->size, ST_ALIGN);
	return v->len <= room;
}

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
	/*
	 * 1 + the state word a snapshot under way publishes, set before its
	 * publishing cmpxchg, under the lock (or nested in its holder); 0
	 * again when that snapshot ends (every CPU sealed, or a snapshot
	 * nested in it finished in its place), and from st_unlock() on.
	 * Read only by snaptrace_snapshot_panic(): a snapshot it stops or
	 * interrupts between its publishing and its end is completed, not
	 * discarded by a new one; a finished one is replaced.
	 */
	long cutting;
	/*
	 * The gen of the round that set @cutting: a marker written by a
	 * round after a snapshot nested in it had published the very state
	 * word it meant to (and finished: done passed this gen) is stale.
	 */
	long cutting_gen;
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

/*
 * The CPU whose ring a writer writes: @cpu for snaptrace_reserve_on(), this
 * one for every other writer (@cpu -1, a constant: it folds away).
 */
static __always_inline int st_ring_cpu(int cpu)
{
	return cpu < 0 ? smp_processor_id() : cpu;
}

/* This CPU's ring of the live half. */
static __always_inline struct st_ring *st_live_ring(struct snaptrace_buffer *buf)
{
	struct st_half *half;

	half = rcu_dereference_sched(buf->half[st_state(buf) & 1]);
	return this_cpu_ptr(half->rings);
}

/* @cpu's ring of the live half; this CPU's if @cpu is -1. */
static __always_inline struct st_ring *st_live_ring_on(struct snaptrace_buffer *buf,
						       int cpu)
{
	struct st_half *half;

	if (cpu < 0)
		return st_live_ring(buf);
	half = rcu_dereference_sched(buf->half[st_state(buf) & 1]);
	return per_cpu_ptr(half->rings, cpu);
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
 * Whether no record of @r is still being written: commit at or above the
 * last position reserved before the ring was last closed (@r->last: the
 * closer raised it to head's position before its cmpxchg, st_close()).
 * Head's own position says nothing once the ring is pending: every
 * emptying of a snapshot moves it on (st_unspare(), R1), while commit
 * stays where the last writer left it.
 *
 * Commit moves only when the outermost writer on this CPU ends (to head's
 * position, or to @r->last if the ring is closed), or when an opener
 * raises it to the start before its last step, which may then fail
 * because another CPU changed the state bits: commit is then above every
 * position reserved, which is right (no record is open). "No record
 * still being written", once true, stays true until the ring is opened.
 */
static inline bool st_ring_settled(struct st_ring *r)
{
	return (long)(local_read(&r->commit) -
		      atomic_long_read(&r->last)) >= 0;
}

/*
 * Where the next epoch of @r (head @v, pending; tail @t, read after @v)
 * starts: above every position head and tail held before the opening, so
 * that no value of head repeats (R1 without ABA); an opening nested in
 * another after its reads computes the same start, or a higher one.
 *
 * With no record of @r still being written (@settled: st_ring_settled()),
 * at the ring's next multiple of its size: the new epoch's records fill
 * the ring from its start, as in a new buffer. With one still open (a
 * writer this opener interrupted, which reserved it two snapshots ago),
 * that record's bytes stay pinned until it commits (I2): start just above
 * the highest position, so that the new epoch has the room up to that
 * record, a whole ring less what its epoch reserved after it (and less
 * ST_ALIGN bytes for each emptying of the snapshot meanwhile:
 * st_unspare()), rather than only what lies before it.
 */
static inline unsigned long st_epoch_start(struct st_ring *r, unsigned long v,
					   unsigned long t, bool settled)
{
	unsigned long p = st_pos(v);

	/*
	 * An opening that failed (a snapshot closed the ring before its
	 * last cmpxchg) may have left tail at its start, unsealed or sealed
	 * again by the close: start above it, so that tail is rewritten,
	 * unsealed, for the new epoch.
	 */
	if ((long)(st_pos(t) - p) > 0)
		p = st_pos(t);
	/*
	 * A ring of size 0 (a one-CPU buffer's other CPUs) has no multiple
	 * of its size to go to (ALIGN() by 0 gives 0): it moves on by
	 * st_p(ST_ALIGN), so that its positions still only grow (R1).
	 */
	if (r->size && settled)
		return ALIGN(p + 1, st_p(r->size));
	return p + st_p(ST_ALIGN);
}

/*
 * Count @n events of the records from @pos on in a counter that other
 * CPUs update too (read, overrun_x), unless they belong to an epoch that
 * is gone (I5; see st_count_local_at()). The @n records must lie in one
 * epoch: a consumer's run, removed from @pos by one cmpxchg of tail
 * (Documentation/ring-buffer.rst, "Batched consuming reads").
 */
static inline void st_count_atomic_n(struct st_ring *r, atomic_long_t *cnt,
				     unsigned long pos, unsigned long n)
{
	long c;

	do {
		c = atomic_long_read(cnt);
		smp_rmb(); /* pairs with the smp_mb() in st_open() */
		if ((long)(pos - READ_ONCE(r->start)) < 0)
			return;
	} while (!atomic_long_try_cmpxchg(cnt, &c, c + n));
}

/* Count one event of the record at @pos: st_count_atomic_n() of 1. */
static inline void st_count_atomic(struct st_ring *r, atomic_long_t *cnt,
				   unsigned long pos)
{
	st_count_atomic_n(r, cnt, pos, 1);
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
/* The CPU holding the lock, from a value of lock_cpu; -1 if free. */
static inline int st_lock_cpu_of(int o)
{
	return (o & (BIT(ST_LOCK_KIND_SHIFT) - 1)) - 1;
}

/* st_lock()'s @gen0 for a round that must be its own: never coalesced. */
#define ST_GEN_NEVER	(-1L)

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
		if (kind == ST_LOCK_ROUND && gen0 != ST_GEN_NEVER &&
		    (long)(atomic_long_read(&buf->done) - gen0) > 0)
			return ST_COALESCED;
		st_hook(buf, ST_STEP_LOCK_WAIT, st_lock_cpu_of(o));
		cpu_relax();
	}
}

static inline int st_lock_holder_kind(struct snaptrace_buffer *buf)
{
	return atomic_read(&buf->lock_cpu) >> ST_LOCK_KIND_SHIFT;
}

static inline void st_unlock(struct snaptrace_buffer *buf)
{
	WRITE_ONCE(buf->cutting, 0);
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

/* ring_epoch.c */
struct st_ring *snaptrace_ring_writer(struct snaptrace_buffer *buf,
				      struct st_ring *r, long h);
struct st_ring *snaptrace_ring_writer_on(struct snaptrace_buffer *buf,
					 struct st_ring *r, long h, int cpu);

/* ring_wait.c */
void snaptrace_ring_wait_init(struct snaptrace_buffer *buf);
void snaptrace_ring_wait_sync(struct snaptrace_buffer *buf);

#endif /* _SNAPTRACE_RING_H */
