// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer, read side: consuming reads, iterators
 * (non-consuming) and the per-CPU statistics; waiting and polling for
 * data are in ring_wait.c. Readers never make a writer wait or a snapshot
 * fail (I4). Upstream twin: ring_buffer_consume(),
 * ring_buffer_read_start() and friends, and the per-CPU counters of
 * kernel/trace/ring_buffer.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/local.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "ring.h"

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
		if (!atomic_read(&buf->busy)) {
			smp_rmb(); /* busy before the rings (st_change_end()) */
			return g;
		}
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
	ST_READ_PAD,	/* padding: skip *len positions */
	ST_READ_EMPTY,	/* nothing committed at pos */
	ST_READ_LOST,	/* tail passed pos: overwritten or reset */
	ST_READ_BAD,	/* a header that cannot be: treated as the end */
};

/*
 * Read the record at @pos of @r: its header always, its payload into @rec
 * when @rec is not NULL. Sets *ts to its time stamp (its frame's anchor
 * plus its delta, or its ABS prefix) and *len to the positions it takes
 * in the ring. A pending ring is empty.
 */
static enum st_read_ret st_read_at(struct st_ring *r, unsigned long pos,
				   struct snaptrace_record *rec, u64 *ts,
				   unsigned long *len)
{
	unsigned long off = st_off(r, pos);
	unsigned long c, start;
	struct st_view v;
	bool valid;
	u64 t = 0;

	if (atomic_long_read(&r->head) & ST_PENDING)
		return ST_READ_EMPTY;
	c = local_read(&r->commit);
	smp_rmb(); /* commit before the record (pairs with st_end_commit) */
	if ((long)(pos - c) >= 0)
		return ST_READ_EMPTY;
	if ((long)(pos - st_pos(atomic_long_read(&r->tail))) < 0)
		return ST_READ_LOST;

	valid = st_parse(r, off, &v) && (long)(c - pos - st_p(v.len)) >= 0;
	if (valid && v.type) {
		if (v.abs) {
			t = v.ts;
		} else {
			/* Installed before the record was committed. */
			valid = st_anchor_get(r, pos, &t);
			t += v.delta;
		}
		if (valid && rec)
			memcpy(rec->data, r->data + off + v.pre + v.hlen, v.size);
	}

	start = READ_ONCE(r->start);
	smp_rmb(); /* the copy before the re-check of tail (I4) */
	if ((long)(pos - st_pos(atomic_long_read(&r->tail))) < 0)
		return ST_READ_LOST;
	/* An opening raised start and is about to raise tail past @pos. */
	if ((long)(pos - start) < 0)
		return ST_READ_LOST;
	if (WARN_ON_ONCE(!valid))
		return ST_READ_BAD;

	*len = st_p(v.len);
	if (!v.type)
		return ST_READ_PAD;
	*ts = t;
	if (rec) {
		rec->ts = t;
		rec->pos = (pos - start) >> ST_POS_SHIFT;
		rec->type = v.type;
		rec->len = v.size;
	}
	return ST_READ_OK;
}

/*
 * Where a reader of @r starts: tail, or if @r is pending, head's position.
 * That is below the start of the epoch its opening will begin (every
 * opening starts above it: st_epoch_start()), and once the ring is open
 * its tail is at that start or above: the reader's first look finds tail
 * past its position and jumps there (st_peek()), as past records
 * overwritten. Not a guess of the start itself: an opening under way may
 * already have raised tail to the start it computed, from which the same
 * computation gives a start above it, inside that epoch's first records.
 */
static unsigned long st_ring_first(struct st_ring *r)
{
	unsigned long h = atomic_long_read(&r->head);

	if (h & ST_PENDING)
		return st_pos(h);
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

/* Where a merge of CPUs ends a run: the next CPU's oldest record. */
struct st_limit {
	u64 ts;
	int cpu;	/* -1: no other CPU has a record */
};

/* Whether a record of @cpu stamped @ts comes after @lim's in the merge. */
static __always_inline bool st_after(const struct st_limit *lim, u64 ts, int cpu)
{
	return lim->cpu >= 0 && (ts > lim->ts || (ts == lim->ts && cpu > lim->cpu));
}

/*
 * Pick, for a consumer expecting the seal bit @expect, the CPU of @half
 * whose oldest record is the oldest (the lower CPU on a tie, as st_pick()),
 * and in *lim the oldest record of the other CPUs. Returns the CPU or -1.
 */
static int st_pick_run(struct st_half *half, long expect, struct st_limit *lim)
{
	struct st_limit best = { .cpu = -1 };
	unsigned long p;
	u64 ts;
	int c;

	lim->cpu = -1;
	for_each_possible_cpu(c) {
		if (st_peek(per_cpu_ptr(half->rings, c), &p, expect, &ts) != ST_READ_OK)
			continue;
		if (best.cpu < 0 || ts < best.ts) {
			*lim = best;
			best.ts = ts;
			best.cpu = c;
		} else if (lim->cpu < 0 || ts < lim->ts) {
			lim->ts = ts;
			lim->cpu = c;
		}
	}
	return best.cpu;
}

/*
 * Take a run: copy the records of @r (CPU @cpu) from @t, the tail word as
 * read with the seal bit its consumer expects, into @recs while they are
 * fewer than @max, committed, and (@lim not NULL) not after @lim; re-check
 * tail (I4); remove the records, and the padding among them, with one
 * cmpxchg of tail from @t; count them with one atomic step. *@more is set
 * when the run stopped at @max or @lim, not at the end of the data.
 *
 * Returns the records taken (0 if none was there), or -EAGAIN if tail
 * moved meanwhile (records overwritten, another reader, a snapshot's
 * seal): nothing was taken, the copies are thrown away.
 */
static int st_take_run(struct snaptrace_buffer *buf, struct st_ring *r, int cpu,
		       long t, struct snaptrace_record *recs, unsigned int max,
		       const struct st_limit *lim, bool *more)
{
	unsigned long p0 = st_pos(t), pos = p0, c, off, start, fr = 1;
	struct snaptrace_record *rec;
	unsigned int k = 0, i;
	struct st_view v;
	bool bad = false;
	u64 ts, at = 0;

	*more = false;
	if (atomic_long_read(&r->head) & ST_PENDING)
		return 0;
	c = local_read(&r->commit);
	smp_rmb(); /* commit before the records (pairs with st_end_commit) */
	while ((long)(pos - c) < 0) {
		if (k == max) {
			*more = true;
			break;
		}
		off = st_off(r, pos);
		if (!st_parse(r, off, &v) || (long)(c - pos - st_p(v.len)) < 0) {
			bad = true;
			break;
		}
		if (v.type) {
			if (v.abs) {
				ts = v.ts;
			} else {
				/* One anchor per frame: read it once a run. */
				if (st_frame(pos) != fr) {
					fr = st_frame(pos);
					if (!st_anchor_get(r, pos, &at)) {
						bad = true;
						break;
					}
				}
				ts = at + v.delta;
			}
			if (lim && st_after(lim, ts, cpu)) {
				*more = true;
				break;
			}
			rec = &recs[k++];
			memcpy(rec->data, r->data + off + v.pre + v.hlen, v.size);
			rec->ts = ts;
			rec->pos = pos;
			rec->cpu = cpu;
			rec->type = v.type;
			rec->len = v.size;
		}
		pos += st_p(v.len);
	}

	start = READ_ONCE(r->start);
	smp_rmb(); /* the copies before the re-check of tail (I4) */
	if (atomic_long_read(&r->tail) != t)
		return -EAGAIN;
	/*
	 * An opening raised start (a new epoch) and is about to raise tail:
	 * the run belongs to an epoch that is gone; look again.
	 */
	if ((long)(p0 - start) < 0)
		return -EAGAIN;
	/* An invalid header tail did not pass: a bug; the data ends there. */
	WARN_ON_ONCE(bad);
	if (pos == p0)
		return 0;
	st_hook(buf, ST_STEP_CONSUME, cpu);
	if (!atomic_long_try_cmpxchg(&r->tail, &t, pos | (t & ST_SEAL)))
		return -EAGAIN;
	if (k) {
		st_hook(buf, ST_STEP_CONSUMED, cpu);
		st_count_atomic_n(r, &r->read, p0, k);
	}
	for (i = 0; i < k; i++)
		recs[i].pos = (recs[i].pos - start) >> ST_POS_SHIFT;
	return k;
}

/* snaptrace_consume_batch(), with @cpu checked and @n at least 1. */
static int st_consume(struct snaptrace_buffer *buf, enum snaptrace_which which,
		      int cpu, struct snaptrace_record *recs, unsigned int n)
{
	long expect = which == SNAPTRACE_SNAPSHOT ? ST_SEAL : 0;
	unsigned int got = 0, want = n;
	struct st_limit lim, *limp;
	struct st_half *half;
	struct st_ring *r;
	int c, k, ret = 0;
	bool more;
	long g, t;

	mutex_lock(&buf->lock);
	while (got < n) {
		cond_resched();
		g = st_read_begin(buf);
		half = st_half_in(buf, st_state(buf), which);
		if (!half) {
			ret = -ENOENT;
			break;
		}
		limp = NULL;
		c = cpu;
		if (cpu == SNAPTRACE_ALL_CPUS) {
			limp = &lim;
			c = st_pick_run(half, expect, limp);
		}
		k = 0;
		more = false;
		if (c >= 0) {
			r = per_cpu_ptr(half->rings, c);
			t = atomic_long_read(&r->tail);
			/* A ring changing roles reads as empty (st_peek()). */
			if ((t & ST_SEAL) == expect)
				k = st_take_run(buf, r, c, t, recs + got,
						min(want, n - got), limp, &more);
			if (k < 0) {
				/* Tail moved: look again, at fewer records. */
				want = max(want / 2, 1U);
				continue;
			}
			got += k;
			/* All CPUs: pick again, until none has a record. */
			if (more || limp)
				continue;
		}
		/* No more: an end of data, unless a change came meanwhile. */
		if (got || !st_read_retry(buf, g))
			break;
	}
	mutex_unlock(&buf->lock);
	if (ret && !got)
		return ret;
	return got ? got : -ENODATA;
}

/**
 * snaptrace_consume_batch() - read and remove the oldest records
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a CPU, or %SNAPTRACE_ALL_CPUS for the oldest records (by
 *	timestamp) of every CPU
 * @recs: where the records are copied, oldest first
 * @n: room in @recs, in records
 *
 * snaptrace_consume() for up to @n records at once, with the same
 * guarantees (no torn record, none of the snapshot taken by a reader of
 * the live half, each record counted read once, in its epoch; snapshots
 * never fail or wait because of it) at a cost per run of records rather
 * than per record: the reader mutex, the wait for a snapshot in progress
 * and the pick of a CPU once a call; one copy of the run's records, one
 * re-check of tail, one cmpxchg of tail and one atomic add to the read
 * count per run (Documentation/ring-buffer.rst, "Batched consuming
 * reads"). A run is a CPU's records from its tail on; with
 * %SNAPTRACE_ALL_CPUS it ends before the first record later than another
 * CPU's oldest, so that the records come out merged by timestamp as from
 * repeated snaptrace_consume(). Fewer than @n records are returned when
 * there are no more. Mirrors ring_buffer_consume() called in a loop, or
 * ring_buffer_read_page() (which takes a whole sub-buffer, here any
 * number of records).
 *
 * Context: process context, may sleep (takes the buffer's reader mutex).
 * Return: the number of records copied, 1 to @n (0 if @n is 0); -ENODATA
 * if empty; -ENOENT if @which is the snapshot and no spare is allocated;
 * -EINVAL for a bad @cpu.
 */
int snaptrace_consume_batch(struct snaptrace_buffer *buf,
			    enum snaptrace_which which, int cpu,
			    struct snaptrace_record *recs, unsigned int n)
{
	if (cpu != SNAPTRACE_ALL_CPUS && !st_cpu_valid(cpu))
		return -EINVAL;
	if (!n)
		return 0;
	/* The count is returned as an int. */
	return st_consume(buf, which, cpu, recs, min_t(unsigned int, n, INT_MAX));
}
EXPORT_SYMBOL_GPL(snaptrace_consume_batch);

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
 * takes: snapshots never fail because of it. A run of one record of
 * snaptrace_consume_batch(). Mirrors ring_buffer_consume().
 *
 * Context: process context, may sleep (takes the buffer's reader mutex).
 * Return: 0; -ENODATA if empty; -ENOENT if @which is the snapshot and no
 * spare is allocated; -EINVAL for a bad @cpu.
 */
int snaptrace_consume(struct snaptrace_buffer *buf, enum snaptrace_which which,
		      int cpu, struct snaptrace_record *rec)
{
	int ret = snaptrace_consume_batch(buf, which, cpu, rec, 1);

	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_GPL(snaptrace_consume);

/**
 * snaptrace_snapshot_walk() - every record of one CPU's snapshot, lock-free
 * @buf: the buffer
 * @cpu: the CPU
 * @rec: room for one record, filled in turn with each (the caller's: a
 *	record is too large for an NMI's stack)
 * @fn: called with @arg and @rec for each record, oldest first; a non-zero
 *	return ends the walk and is returned
 * @arg: for @fn
 * @open: set when the ring holds a reservation not committed when it was
 *	looked at (a writer interrupted inside it, or stopped there by a
 *	panic): that record, and any a nested writer committed after it,
 *	is not walked
 * @pin: NULL, or the snapshot an earlier walk found: if @pin->set, the
 *	walk is of that snapshot or of none (-ESTALE); else it is filled in
 *	with the snapshot this walk finds, which must be of the state word
 *	in @pin->state if that is not 0 (the one the caller's snapshot
 *	published: struct snaptrace_snap_hold)
 *
 * A non-consuming read of the snapshot half for a caller that cannot take
 * the reader mutex: the persistent capture at a panic or an oops
 * (src/persist_capture.c), where a CPU stopped by the panic may hold it, and which
 * may run in NMI. Each record is read with the readers' own checks (I4: a
 * copy whose bytes tail passed meanwhile is not returned); the half is
 * found under RCU, as st_has_data() does, so it cannot be freed meanwhile.
 *
 * The ring is pinned by its reservation word: head is read once, and the
 * ring is walked only if it is a sealed snapshot (ST_SPARE without
 * ST_PENDING), only up to head's position (the cut: a record reserved
 * before it and committed late lies below it; nothing is reserved in a
 * sealed ring), and after each record is copied, head is read again. Every
 * change of the ring's role is a cmpxchg on head (R1), and positions never
 * repeat, so an unchanged head means the copy was of the snapshot. If it
 * changed (a snapshot, clear or reset on another CPU, or in @fn, made the
 * ring live or empty), the walk stops at once, without passing that record
 * to @fn: the records of a ring a writer may be filling would be live ones,
 * and a writer keeping pace would make the walk endless. Head is read
 * again after each read of tail too, where that read decided the walk's
 * course (its start, or a jump past records consumed): a walk returned as
 * complete was of a snapshot still there at its end, not one cut short by
 * a writer that reopened the ring and raised its tail. The walk never
 * covers more than the ring's size.
 *
 * Two walks of one snapshot (the capture measures, then copies) pass the
 * same @pin: the second walks only if the half, the buffer's state word
 * and the ring's head are those the first one found. A snapshot between
 * the walks changes the state word (and makes the pinned ring live); a
 * clear or reset changes head; a half freed and allocated anew (maybe at
 * the same address) starts with an empty ring, whose head is not that of
 * a snapshot with records, and is not walked before a snapshot, which
 * changes the state word. So a second walk never reads another snapshot
 * than the first one measured. No upstream twin: ftrace reads its
 * buffers at a panic with ftrace_dump(), which turns tracing off and
 * consumes the live buffer.
 *
 * Context: any, NMI included. Never sleeps, takes no lock, allocates
 * nothing.
 * Return: the number of records walked (0 if the CPU's snapshot ring is
 * empty, or not a sealed snapshot when looked at), the non-zero value @fn
 * returned, -ESTALE if the ring stopped being that snapshot during the
 * walk (@fn has had the records walked until then, all of the snapshot),
 * -ENOENT if no spare is allocated, or -EINVAL for a bad @cpu; -ESTALE
 * also, before any record, if @pin was set and the snapshot is not the
 * one it names.
 */
int snaptrace_snapshot_walk(struct snaptrace_buffer *buf, int cpu,
			    struct snaptrace_record *rec,
			    int (*fn)(void *arg, const struct snaptrace_record *rec),
			    void *arg, bool *open, struct snaptrace_walk_pin *pin)
{
	unsigned long pos, first, end, len, h, t;
	enum st_read_ret rr;
	struct st_half *half;
	struct st_ring *r;
	int n = 0, ret;
	bool tail_unchecked;
	long state;
	u64 ts;

	*open = false;
	if (!st_cpu_valid(cpu))
		return -EINVAL;
	rcu_read_lock(); /* halves are freed after synchronize_rcu() */
	state = st_state(buf);
	half = st_half_in(buf, state, SNAPTRACE_SNAPSHOT);
	if (!half) {
		ret = -ENOENT;
		goto out;
	}
	r = per_cpu_ptr(half->rings, cpu);
	h = atomic_long_read(&r->head);
	if (pin && pin->set &&
	    (pin->half != half || pin->state != state || pin->head != h)) {
		ret = -ESTALE; /* not the snapshot an earlier walk found */
		goto out;
	}
	if (pin && !pin->set && pin->state && pin->state != state) {
		ret = -ESTALE; /* not the snapshot the caller took */
		goto out;
	}
	if (pin && !pin->set) {
		pin->half = half;
		pin->state = state;
		pin->head = h;
		pin->set = true;
	}
	ret = 0;
	if ((h & (ST_SPARE | ST_PENDING)) != ST_SPARE)
		goto out; /* not a sealed snapshot: nothing of it to walk */
	end = st_pos(h);
	*open = (long)(end - local_read(&r->commit)) > 0;
	first = st_pos(atomic_long_read(&r->tail));
	tail_unchecked = true;
	if ((long)(end - first) > (long)st_p(r->size))
		first = end - st_p(r->size);
	for (pos = first; (long)(end - pos) > 0; ) {
		rr = st_read_at(r, pos, rec, &ts, &len);
		smp_rmb(); /* the copy before head's re-check (pairs with R1's cmpxchg) */
		if (atomic_long_read(&r->head) != h) {
			ret = -ESTALE;
			goto out;
		}
		tail_unchecked = false;
		switch (rr) {
		case ST_READ_OK:
			rec->cpu = cpu;
			ret = fn(arg, rec);
			if (ret)
				goto out;
			n++;
			pos += len;
			break;
		case ST_READ_PAD:
			pos += len;
			break;
		case ST_READ_LOST:
			/* Consumed by a reader of the snapshot: on from tail. */
			t = st_pos(atomic_long_read(&r->tail));
			tail_unchecked = true;
			if ((long)(t - pos) <= 0 || (long)(t - end) > 0)
				goto done;
			pos = t;
			break;
		default:
			goto done;
		}
		if ((long)(pos - first) > (long)st_p(r->size))
			break; /* never more than a ring: bounded at any rate */
	}
done:
	/*
	 * A walk that ended on what it read of tail (before the first
	 * record, or past a record consumed) is complete only if head
	 * still holds the snapshot: a round (an NMI's, or another CPU's)
	 * may have made the ring live again and its writer opened it,
	 * raising tail past @end, after the last re-check. One that ended
	 * on a record's re-check is complete as it is: turning it into
	 * -ESTALE would only lose what it walked.
	 */
	smp_rmb(); /* tail before head's re-check */
	if (tail_unchecked && atomic_long_read(&r->head) != h) {
		ret = -ESTALE;
		goto out;
	}
	ret = n;
out:
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_snapshot_walk);

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

	st_hook(buf, ST_STEP_ITER_NEXT, -1);
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
/* Statistics */

/*
 * One epoch's counters of @r. The consumers' and pushers' counts are read
 * before the writers': a record is counted committed before it can be
 * read or overwritten, so entries never comes out negative. Returns false,
 * to be called again, while an opening on @r's CPU is taking its markers.
 */
static bool st_ring_stats(struct st_ring *r, struct snaptrace_stats *st)
{
	unsigned long read, ovx, ov, committed, t, c, pos, marked, marking;
	u64 ts = 0;

	/*
	 * Not while an opening on @r's CPU has markers above its baselines
	 * (st_open(): IRQs off there, so this is brief; an NMI that opens
	 * @r meanwhile nests in it): its counts would be one too high, or
	 * below a baseline already raised.
	 */
	marked = local_read(&r->marked);
	smp_rmb(); /* marked before marking (st_open() writes them in reverse) */
	marking = local_read(&r->marking);
	if (marking != marked)
		return false;
	smp_rmb(); /* marking before the counters */
	read = atomic_long_read(&r->read) - READ_ONCE(r->base.read);
	ovx = atomic_long_read(&r->overrun_x) - READ_ONCE(r->base.overrun_x);
	ov = local_read(&r->overrun) - READ_ONCE(r->base.overrun);
	smp_rmb(); /* consumed and overwritten before committed */
	committed = local_read(&r->committed) - READ_ONCE(r->base.committed);
	st->dropped = local_read(&r->dropped) - READ_ONCE(r->base.dropped);
	st->written = committed + st->dropped;
	st->overrun = ov + ovx;
	st->read = read;
	smp_rmb(); /* the counters before marking's re-check */
	if (local_read(&r->marking) != marking)
		return false;
	st->entries = committed - st->overrun - read;
	/*
	 * Commit before tail: every record below commit had its writer push
	 * tail past its end less the ring's size first, so a later tail is
	 * at most a ring below it (read the other way round, a writer could
	 * reserve, push and commit in between: more bytes than the ring).
	 */
	c = local_read(&r->commit);
	smp_rmb(); /* commit before tail */
	t = st_pos(atomic_long_read(&r->tail));
	st->bytes = (long)(c - t) > 0 ? (c - t) >> ST_POS_SHIFT : 0;
	pos = t;
	if (st_peek(r, &pos, ST_PEEK_ONLY, &ts) == ST_READ_OK)
		st->oldest_ts = ts;
	return true;
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
		if (!(h & ST_PENDING) && !st_ring_stats(r, stats)) {
			cpu_relax();
			continue;
		}
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
