// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer, the epochs of a ring: which ring this CPU's
 * writers use while a snapshot changes the roles of the halves (R2), and
 * the opening of a ring after a snapshot or reset: a new epoch, emptied,
 * with baselines for the counters it counts from (I5). Any context, NMI
 * included; lockless per CPU. The write path (ring_write.c) calls in here
 * only when it finds its ring not open. The invariants named here are in
 * ring.h. No upstream twin: ftrace's snapshot swaps whole per-CPU
 * buffers (ring_buffer_swap_cpu()), where these rings change roles under
 * running writers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <asm/local.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "ring.h"

/* ------------------------------------------------------------------ */
/* Opening a ring: a new epoch and its baselines (I5) */

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

/*
 * Undo an opening's marker that no baseline took in. The look at the
 * baseline and the decrement are one cmpxchg of the counter apart: an NMI
 * that opens the ring in between raises the counter (its marker) before
 * its baseline, so the cmpxchg fails and the next look finds that
 * baseline at or above @mark; anything else in between only counts (the
 * counter moves: look again). A plain check and decrement would take the
 * NMI's marker back instead of ours: the counter one below its baseline.
 */
static void st_unmark_local(local_t *cnt, unsigned long mark,
			    unsigned long *base)
{
	long c;

	do {
		c = local_read(cnt);
		barrier(); /* the counter, then the baseline (st_open()) */
		if ((long)(READ_ONCE(*base) - mark) >= 0)
			return;
	} while (local_cmpxchg(cnt, c, c - 1) != c);
}

static void st_unmark_atomic(atomic_long_t *cnt, unsigned long mark,
			     unsigned long *base)
{
	long c;

	do {
		c = atomic_long_read(cnt);
		barrier(); /* as in st_unmark_local() */
		if ((long)(READ_ONCE(*base) - mark) >= 0)
			return;
	} while (!atomic_long_try_cmpxchg(cnt, &c, c - 1));
}

/*
 * Open the live-pending or next ring @r (head @v) for this CPU's writers: a
 * new epoch starts (st_epoch_start()), emptied, with baselines for its
 * counters. Runs on @r's CPU, as a writer (or as the one writer of
 * snaptrace_reserve_on(), @cpu the ring's CPU, -1 otherwise); an
 * interrupt or NMI may open it too in the middle, and runs to its end
 * before this one resumes.
 *
 * What the start is made of (tail, and whether a record is still being
 * written) is read first, then head again: if it still holds @v, no
 * opening happened before those reads (values of head never repeat, R1).
 * Start is then set by a cmpxchg from the value read with them: an
 * opening nested after the reads changed it (every opening raises it), so
 * that cmpxchg fails and this one gives up, rather than move start and
 * tail above the records of the epoch that opening began. From there on
 * every step only raises a value to this start or above, and the last
 * one is a cmpxchg on head.
 *
 * The baselines: a writer of an older epoch may be about to count its
 * record (st_count_local()); raising each counter by one (the marker)
 * after start was raised makes its cmpxchg fail, and the baseline taken
 * with the marker includes whatever was counted before.
 */
static void st_open(struct snaptrace_buffer *buf, struct st_ring *r,
		    unsigned long v, int cpu)
{
	unsigned long mc, md, mo, mx, mr, t, s, start, flags;
	bool settled;

	st_hook(buf, ST_STEP_OPEN_BEGIN, st_ring_cpu(cpu));
	smp_rmb(); /* head pending before what its closer wrote (st_close()) */
	start = READ_ONCE(r->start);
	t = atomic_long_read(&r->tail);
	settled = st_ring_settled(r);
	smp_rmb(); /* those before head's re-check */
	if (atomic_long_read(&r->head) != v)
		return;
	s = st_epoch_start(r, v, t, settled);
	st_hook(buf, ST_STEP_OPEN, st_ring_cpu(cpu));
	if (cmpxchg(&r->start, start, s) != start)
		return;	/* an opening nested since our reads: its epoch */
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
	/* Statistics wait while markers are above baselines (st_ring_stats()). */
	local_inc(&r->marking);
	smp_wmb(); /* marking before the markers */
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
		smp_wmb(); /* the counters before marked */
		local_inc(&r->marked);
		local_irq_restore(flags);
		return;
	}
	st_base_raise(&r->base.committed, mc);
	st_base_raise(&r->base.dropped, md);
	st_base_raise(&r->base.overrun, mo);
	st_base_raise(&r->base.overrun_x, mx);
	st_base_raise(&r->base.read, mr);
	smp_wmb(); /* the baselines before marked */
	local_inc(&r->marked);
	local_irq_restore(flags);
	/*
	 * With commit at (or above) the last position reserved, no record
	 * of @r is still being written: commit may start at s, so the new epoch has
	 * the whole ring (I2 measures from commit). One still open (a writer
	 * we interrupted, reserved two snapshots ago) keeps commit behind its
	 * record until it commits.
	 */
	if (settled)
		st_local_raise(&r->commit, s);
	smp_wmb(); /* the epoch before the open state (pairs with readers) */
	st_hook(buf, ST_STEP_OPEN_LAST, st_ring_cpu(cpu));
	atomic_long_cmpxchg(&r->head, v, s);
}

/* ------------------------------------------------------------------ */
/* Which ring a writer writes (R2) */

/*
 * @r is not open (head @h): find the ring this CPU's writers use now, and
 * open it if need be. Returns @r again after opening it (or when it
 * changed state under us). R2: a ring is opened only when its twin is a
 * snapshot (%ST_SPARE), or is next while the ring is still in the live
 * half; while a snapshot is under way the former live ring keeps
 * recording until its cut. If that ring was empty (live-pending) and the
 * roles are published, the cut is taken here, by sealing it empty:
 * nothing is lost, and no writer ever waits for the snapshot to get there.
 * @cpu is @r's CPU for snaptrace_reserve_on(), -1 for this CPU's writers.
 */
static __always_inline struct st_ring *
__st_writer_ring(struct snaptrace_buffer *buf, struct st_ring *r, long h,
		 int cpu)
{
	struct st_ring *tw = READ_ONCE(r->twin), *live;
	long th;

	if (h & ST_SPARE) {
		/* A snapshot: the live ring is its twin. */
		if (WARN_ON_ONCE(!tw))
			return st_live_ring_on(buf, cpu);
		return tw;
	}
	/* Live-pending (ST_SEAL | ST_PENDING) or next (ST_PENDING). */
	if (!tw) {
		st_open(buf, r, h, cpu);
		return r;
	}
	th = atomic_long_read(&tw->head);
	if (!(th & ST_FLAGS))
		return tw;		/* the former live ring, before its cut */
	if (th & ST_SPARE) {
		st_open(buf, r, h, cpu);
		return r;
	}
	/*
	 * Both heads before the roles, as a round's check (roles): which
	 * ring is live is read below from the state word, and th may be of
	 * a round nested in the one that published it (its step 1 settled
	 * the new live ring). A state word older than th, with both rings
	 * live-pending, would seal the live ring and open the spare's,
	 * which that round then empties (tests/litmus/writer-roles.litmus).
	 */
	smp_rmb();
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
		if (lp == st_live_ring_on(buf, cpu)) {
			if (lp != r)
				return lp;	/* opened with its commit begun */
			st_open(buf, r, h, cpu);
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
	 * interrupted, which had published the roles. Its step 1 settled
	 * the new live ring, and is to seal the spare half's, the former
	 * live ring: the interrupted snapshot's cut for this CPU. Take that
	 * cut here first, by sealing the former, empty, as above: a record
	 * reserved in the live ring before it would be neither in the
	 * interrupted snapshot, though reserved before its cut, nor rightly
	 * in the NMI's, which cuts the live ring in turn. The cmpxchg fails
	 * if that snapshot sealed it meanwhile (R1). Then open the live one.
	 */
	live = st_live_ring_on(buf, cpu);
	if ((h & ST_SEAL) && r == live)
		atomic_long_cmpxchg(&tw->head, th, th | ST_SPARE);
	else if ((h & ST_SEAL) && tw == live)
		atomic_long_cmpxchg(&r->head, h, h | ST_SPARE);
	if (r != live)
		return live;
	st_open(buf, r, h, cpu);
	return r;
}

/**
 * snaptrace_ring_writer() - the ring this CPU's writers write, opened
 * @buf: the buffer
 * @r: this CPU's ring of the live half, found not open
 * @h: the head read from @r
 *
 * The slow path of this CPU's writers, out of line: which ring they use
 * now, opened if need be (R2).
 *
 * Context: a writer: any context, NMI included, preemption off. Never
 * sleeps. Lockless.
 * Return: the ring to reserve in (@r again after opening it, or when it
 * changed state under us).
 */
noinline struct st_ring *snaptrace_ring_writer(struct snaptrace_buffer *buf,
					       struct st_ring *r, long h)
{
	return __st_writer_ring(buf, r, h, -1);
}

/**
 * snaptrace_ring_writer_on() - the ring @cpu's one writer writes, opened
 * @buf: the buffer
 * @r: @cpu's ring of the live half, found not open
 * @h: the head read from @r
 * @cpu: the ring's CPU
 *
 * The slow path of snaptrace_reserve_on(), for @cpu's ring.
 *
 * Context: the one writer of snaptrace_reserve_on(): any context, NMI
 * included, preemption off. Never sleeps. Lockless.
 * Return: as snaptrace_ring_writer().
 */
noinline struct st_ring *snaptrace_ring_writer_on(struct snaptrace_buffer *buf,
						  struct st_ring *r, long h,
						  int cpu)
{
	return __st_writer_ring(buf, r, h, cpu);
}
