// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer, snapshots: the O(nr_cpu_ids) swap of the live
 * and spare halves with an exact per-CPU cut, and the other changes of
 * the rings' states (clear of the snapshot, reset of the live half).
 * Never sleeps, never allocates: callable from any context, NMI
 * included. The protocol's proof is in Documentation/ring-buffer.rst.
 * Upstream twin: tracing_snapshot() and ring_buffer_swap_cpu() in
 * kernel/trace/trace.c and kernel/trace/ring_buffer.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "ring.h"

/* Raise @r->last to @pos (st_close()); from any CPU. */
static void st_last_raise(struct st_ring *r, unsigned long pos)
{
	long l = atomic_long_read(&r->last);

	while ((long)(pos - l) > 0 &&
	       !atomic_long_try_cmpxchg(&r->last, &l, pos))
		;
}

/*
 * Close the open or live-pending ring @r: seal it as the snapshot of its
 * CPU (@flag %ST_SPARE: the cut for that CPU), or empty it (@flag
 * %ST_PENDING: a reset). Tail is sealed first, so that a consumer of the
 * live half cannot take a record from it after the cut (st_peek() and
 * snaptrace_consume() expect the bit clear). Each cmpxchg expects values
 * read before a check that @state (the halves' roles) still holds: if a
 * snapshot from an NMI changed them meanwhile, they fail. Returns true
 * once head is closed: for a cut, once it carries %ST_SPARE (cut here,
 * by a round nested in this one, or by a writer that took its own cut:
 * __st_writer_ring()); for a reset, once it carries any state bit, which a
 * snapshot nested in the reset may have set (the ring then went to the
 * snapshot, not emptied). False if @state no longer holds before that.
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
		/*
		 * Head before tail: an opener raises tail (unsealed) before
		 * its last cmpxchg opens head; a tail read older than the head
		 * read here could be the sealed one of the epoch before, and
		 * the seal below skipped over the open epoch's tail
		 * (tests/litmus/close-stale-tail.litmus).
		 */
		smp_rmb();
		t = atomic_long_read(&r->tail);
		smp_rmb(); /* tail before the roles, and before head's re-read */
		if (st_state(buf) != state)
			return false;
		/*
		 * Tail is of head's epoch only if head still holds @h (no
		 * value of head repeats, R1): else a close nested in this one
		 * (a reset from an NMI) may have closed the ring, and its
		 * writer begun the next epoch, raising tail unsealed before
		 * its last step. Sealing that tail would hide the new epoch
		 * from every consumer of the live half. An opener raises tail
		 * after it read head pending, with a full barrier between
		 * (st_open()): a tail read here from an opener is followed by
		 * a re-read that finds head changed, by coherence, as the
		 * emptying close ran on this CPU (the lock serializes the
		 * others; a panic's closes past a stopped holder are cuts,
		 * which do not rely on this); the smp_rmb() above orders it
		 * were that close on another CPU
		 * (tests/litmus/close-reread*.litmus).
		 */
		if (atomic_long_read(&r->head) != h)
			continue;
		st_hook(buf, ST_STEP_SNAP_CLOSE, cpu);
		/*
		 * The last position reserved, for the opener that will tell
		 * whether a record of this epoch is still being written
		 * (st_ring_settled()): before the cmpxchg that closes, which
		 * orders it for the opener that reads head pending. Only
		 * raised: an attempt that fails read a lower position.
		 */
		if (!(h & ST_FLAGS))
			st_last_raise(r, st_pos(h));
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
			snaptrace_ring_push_tail(r, st_pos(h) - st_p(r->size), NULL);
	}
	return true;
}

/*
 * Empty the snapshot @r and make it the next live ring (a snapshot's first
 * step). Its position moves on by st_p(ST_ALIGN): this is the one change
 * of state that leads back to one the ring had (next), and without the
 * move head would take a value it held before (next, sealed, emptied,
 * next again: R1), which a cmpxchg that read it then would take for
 * "unchanged": an opener stalled across two snapshots, or a round stalled
 * between its check of the roles and its seal while rounds nested in it
 * made the ring live again.
 */
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
		if (atomic_long_try_cmpxchg(&r->head, &h,
					    (st_pos(h) + st_p(ST_ALIGN)) | ST_PENDING))
			return true;
	}
}

/*
 * A next ring of the live half (emptied by the previous snapshot, not yet
 * written) becomes live-pending: so that while this snapshot is under way
 * a writer tells it from the new next ring (__st_writer_ring()).
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
	/*
	 * No round is cutting until this one publishes: a round this one
	 * interrupted (an NMI) left its marker, and step 1 is about to
	 * empty the half that round was cutting. A panic from here on must
	 * make a new round, not complete that one over emptied rings.
	 */
	WRITE_ONCE(buf->cutting, 0);
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
	/* The marker first: the cmpxchg orders it before the new roles. */
	WRITE_ONCE(buf->cutting_gen, g);
	smp_wmb(); /* the gen before the marker (st_round_finish()) */
	WRITE_ONCE(buf->cutting, next + 1);
	st_hook(buf, ST_STEP_SNAP_MARKED, -1);
	if (!atomic_long_try_cmpxchg(&buf->state, &s, next))
		goto done;
	st_hook(buf, ST_STEP_SNAP_PUBLISHED, -1);

	for_each_possible_cpu(cpu)
		if (!st_close(buf, per_cpu_ptr(live->rings, cpu), next, ST_SPARE,
			      cpu))
			break;
done:
	/*
	 * Nothing is being cut any more: this round sealed every CPU, or a
	 * snapshot nested in it (an NMI) finished in its place. A marker
	 * left set (ours; or ours written, stale, after the nested one had
	 * published the very roles we meant to) would make a panic "complete"
	 * a finished snapshot, not take its own: records written after the
	 * cut would be missing from it until the holder unlocks.
	 */
	WRITE_ONCE(buf->cutting, 0);
	st_done_raise(buf, g);
out:
	st_change_end(buf);
	return ret;
}

/*
 * A panic found the lock's holder, stopped by it or interrupted by it on
 * its own CPU, while a snapshot (the holder's, or one nested in it) is
 * under way: it published the roles and has not sealed every CPU yet
 * (buf->cutting names the state word: its step 3). It never resumes.
 * Complete that snapshot rather than discard it with a round of our own,
 * whose step 1 would empty the half it is cutting (the CPUs not sealed
 * yet would lose their whole history, the sealed ones keep only what came
 * after their cut): the rings still open are sealed now (their cut is
 * this one), and the tail of each is pushed as st_close() does after a
 * cut (the holder may have stopped between a seal and that push).
 * Returns false, changing nothing, if no snapshot is under way: the
 * holder stopped before its step 2, or is a clear or a reset with no
 * snapshot nested in it still cutting, or every snapshot under this lock
 * has finished (a new one must then be taken: the records written since
 * its cut are the panic's recent past).
 */
static bool st_round_finish(struct snaptrace_buffer *buf)
{
	long s = st_state(buf);
	struct st_half *spare;
	struct st_ring *r;
	long g, h;
	int cpu;

	smp_rmb(); /* the state word before the marker (st_round()) */
	if (READ_ONCE(buf->cutting) != s + 1)
		return false;
	/*
	 * A round that began after the marker's has finished (a snapshot
	 * nested in the marker's round published these roles before it
	 * wrote the marker, now stale): nothing is being cut.
	 */
	smp_rmb(); /* the marker before its gen (written first) */
	if ((long)(atomic_long_read(&buf->done) - READ_ONCE(buf->cutting_gen)) > 0) {
		WRITE_ONCE(buf->cutting, 0);
		return false;
	}
	spare = st_half_in(buf, s, SNAPTRACE_SNAPSHOT);
	if (WARN_ON_ONCE(!spare))
		return false;
	g = st_change_begin(buf);
	for_each_possible_cpu(cpu) {
		r = per_cpu_ptr(spare->rings, cpu);
		if (!st_close(buf, r, s, ST_SPARE, cpu))
			break;	/* an NMI's snapshot took over */
		h = atomic_long_read(&r->head);
		if (!(h & ST_PENDING))
			snaptrace_ring_push_tail(r, st_pos(h) - st_p(r->size),
						 NULL);
	}
	WRITE_ONCE(buf->cutting, 0);	/* finished, as st_round()'s end */
	st_done_raise(buf, g);
	st_change_end(buf);
	return true;
}

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

static const char st_miss_marker[] =
	"snapshot: no spare buffer allocated; recording stopped";

/* After a snapshot returned @ret (IRQs on again): count a miss, or wake. */
static int st_snapshot_end(struct snaptrace_buffer *buf, int ret)
{
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

/*
 * A snapshot's round once st_lock() (or the panic's one try) returned @l,
 * IRQs off: its own (ST_LOCKED: the lock released after it, unless @hold
 * keeps it: @hold->held), nested in what holds the lock on this CPU
 * (never across a change of halves), or another CPU's that finished after
 * this one began (ST_COALESCED: nothing to do). With @hold, the state
 * word once it is taken.
 */
static int st_snapshot_locked(struct snaptrace_buffer *buf,
			      enum st_lock_ret l,
			      struct snaptrace_snap_hold *hold)
{
	int ret = 0;

	switch (l) {
	case ST_LOCKED:
		ret = st_round(buf);
		if (hold && !ret)
			hold->held = true;
		else
			st_unlock(buf);
		break;
	case ST_NESTED:
		ret = st_lock_holder_kind(buf) == ST_LOCK_HALVES ? -EBUSY :
		      st_round(buf);
		break;
	default:
		break;
	}
	if (hold)
		hold->state = st_state(buf);
	return ret;
}

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
	int ret;

	local_irq_save(flags);
	ret = st_snapshot_locked(buf, st_lock(buf, ST_LOCK_ROUND,
					      atomic_long_read(&buf->gen)),
				 NULL);
	local_irq_restore(flags);
	return st_snapshot_end(buf, ret);
}
EXPORT_SYMBOL_GPL(snaptrace_snapshot);

/**
 * snaptrace_snapshot_panic() - a snapshot at a panic, past a stopped holder
 * @buf: the buffer
 * @hold: NULL, or where the snapshot's state word is said, and whether
 *	the lock is kept (see below)
 * @past: set when the snapshot is not all the panic's own: taken past the
 *	buffer's lock that a CPU the panic stopped holds, or the completion
 *	of a snapshot under way that the panic stopped or interrupted on this
 *	CPU, whose cuts of the CPUs it had sealed came before this call
 *
 * snaptrace_snapshot() for a panic notifier, the other CPUs stopped. A CPU
 * that the panic stopped while it held the buffer's lock never releases
 * it: snaptrace_snapshot() would wait for it forever. So this one never
 * waits for the lock: it takes it if free, with one try (a CPU may take
 * it after the read: one the stop has not reached yet, or an NMI's
 * snapshot on one being stopped), else looks at the holder it found.
 *
 * A stopped holder's round, clear or reset is where an NMI on its own CPU
 * would have found it. If a snapshot is under way (the holder's, or one
 * nested in it: it published the roles and has not sealed every CPU), it
 * is completed: its rings still open are sealed, and no new round runs,
 * which would empty the half it is cutting. Else the round runs without
 * the lock exactly as that NMI's does (ST_NESTED: st_round()'s steps are
 * idempotent and complete what the holder left half done, and the holder
 * never resumes), unless the holder was swapping the halves (resize,
 * alloc or free of the spare), which no round may cross. A snapshot that
 * has finished is replaced by that round, as when the lock is free. A
 * panic that interrupted the holder on its own CPU (an NMI, or from inside
 * it) does the same: it completes a snapshot under way (*@past set), else
 * takes a nested one. A holder is taken as stopped only if its CPU is no
 * longer online, as the panic's stop (stop_this_cpu()) leaves it; one
 * still online may still run (a stop that failed, or the crash kernel's
 * NMI shootdown, which does not mark it): its lock is not crossed. Past a
 * stopped holder the waiters are not woken: nothing runs after a panic to
 * read.
 *
 * With @hold, it also says the state word of the snapshot taken
 * (@hold->state); if it took the lock itself, it keeps it, IRQs off
 * (@hold->held), until snaptrace_snapshot_unhold(), so that nothing
 * replaces or clears the snapshot meanwhile.
 *
 * No upstream twin: ftrace takes no snapshot at a panic (ftrace_dump()
 * turns tracing off and prints the live buffer).
 *
 * Context: a panic notifier, IRQs off, the other CPUs stopped; NMI
 * included. Never sleeps, never allocates, never waits.
 * Return: as snaptrace_snapshot() when the lock is free or held by what
 * this call interrupted on this CPU (0, *@past set, when it completed a
 * snapshot under way); else 0 (*@past set), -EBUSY if the stopped holder
 * was swapping the halves or -EDEADLK if the holder's CPU is online, both
 * without a snapshot and counted as misses; -ENOENT if no spare is
 * allocated.
 */
int snaptrace_snapshot_panic(struct snaptrace_buffer *buf, bool *past,
			     struct snaptrace_snap_hold *hold)
{
	int me = raw_smp_processor_id();
	int o, holder, kind, ret;
	unsigned long flags;

	*past = false;
	if (hold)
		hold->held = false;
	local_irq_save(flags);
	o = atomic_read(&buf->lock_cpu);
	st_hook(buf, ST_STEP_PANIC_LOCK, st_lock_cpu_of(o));
	/* One try, never st_lock()'s wait: the taker may be stopped since. */
	if (!o)
		o = atomic_cmpxchg_acquire(&buf->lock_cpu, 0, (me + 1) |
					   ST_LOCK_ROUND << ST_LOCK_KIND_SHIFT);
	holder = st_lock_cpu_of(o);
	kind = o >> ST_LOCK_KIND_SHIFT;
	if (!o) {
		ret = st_snapshot_locked(buf, ST_LOCKED, hold);
		if (hold && hold->held) {
			/* Kept, IRQs off, until snaptrace_snapshot_unhold(). */
			hold->flags = flags;
			return 0;
		}
	} else if (holder == me) {
		/*
		 * The panic interrupted the holder (an NMI, or from inside
		 * it). A snapshot it completes is not all ours: the CPUs it
		 * had sealed were cut before.
		 */
		*past = st_round_finish(buf);
		ret = *past ? 0 : st_snapshot_locked(buf, ST_NESTED, NULL);
	} else if (holder >= nr_cpu_ids || cpu_online(holder)) {
		ret = -EDEADLK;
	} else if (kind == ST_LOCK_HALVES) {
		ret = -EBUSY;
	} else {
		ret = st_round_finish(buf) ? 0 : st_round(buf);
		*past = !ret;	/* -ENOENT: no spare, whoever held the lock */
	}
	if (hold)
		hold->state = st_state(buf); /* the others are stopped */
	local_irq_restore(flags);
	if (!o || holder == me)
		return st_snapshot_end(buf, ret);
	if (ret)
		atomic64_inc(&buf->snapshot_misses);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_snapshot_panic);

/**
 * snaptrace_snapshot_hold() - a snapshot of its own, kept until unhold
 * @buf: the buffer
 * @hold: filled in: the snapshot's state word, whether the lock is held
 *
 * snaptrace_snapshot() for a reader that must read the very snapshot it
 * took (the persistent capture at an oops, while the other CPUs run):
 * it never coalesces with another CPU's snapshot (it waits for that one,
 * bounded, then takes its own), and returns with the buffer's lock held
 * and IRQs off, so that no snapshot, clear, reset or change of halves on
 * another CPU replaces or empties the snapshot until
 * snaptrace_snapshot_unhold(). Nested in a holder on this CPU (an NMI) it
 * takes a nested snapshot and holds nothing. A snapshot nested in the
 * caller (an NMI) still runs: @hold->state then differs from the state
 * word, which snaptrace_snapshot_walk()'s pin checks. Writers and
 * consuming readers never take the lock. No upstream twin.
 *
 * Context: any, NMI included; never sleeps or allocates; waits (bounded)
 * for a snapshot, clear, reset or resize running on another CPU. The
 * caller must call snaptrace_snapshot_unhold() soon, without sleeping.
 * Return: as snaptrace_snapshot() (@hold->held false on an error).
 */
int snaptrace_snapshot_hold(struct snaptrace_buffer *buf,
			    struct snaptrace_snap_hold *hold)
{
	int ret;

	hold->held = false;
	local_irq_save(hold->flags);
	/* ST_LOCKED or ST_NESTED: never coalesced. */
	ret = st_snapshot_locked(buf, st_lock(buf, ST_LOCK_ROUND, ST_GEN_NEVER),
				 hold);
	if (hold->held)
		return 0;
	local_irq_restore(hold->flags);
	return st_snapshot_end(buf, ret);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_snapshot_hold);

/**
 * snaptrace_snapshot_unhold() - let the buffer's lock go after a hold
 * @buf: the buffer
 * @hold: as snaptrace_snapshot_hold() or snaptrace_snapshot_panic() left
 *	it: if it holds the lock, the lock is released and IRQs restored
 *
 * Context: as the hold's; the same CPU, IRQs still off.
 */
void snaptrace_snapshot_unhold(struct snaptrace_buffer *buf,
			       struct snaptrace_snap_hold *hold)
{
	if (!hold->held)
		return;
	hold->held = false;
	st_unlock(buf);
	local_irq_restore(hold->flags);
	st_snapshot_end(buf, 0);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_snapshot_unhold);

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
