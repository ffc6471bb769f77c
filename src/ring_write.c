// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer, write side: reservation, commit and the
 * counting of records in their epoch; which ring a writer writes and its
 * opening after a snapshot or reset (the epochs) are in ring_epoch.c. Any
 * context, NMI included; lockless per CPU. The invariants named here
 * (I1-I5, R1, R2) are in ring.h. Upstream twin:
 * ring_buffer_lock_reserve(), ring_buffer_unlock_commit() and
 * rb_end_commit() in kernel/trace/ring_buffer.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <asm/local.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "ring.h"

/* ------------------------------------------------------------------ */
/* Counting (I5) */

/*
 * Count one event of the record at @pos, unless the ring was opened again
 * (a new epoch, starting above @pos) since: then it belongs to an epoch
 * that is gone. The cmpxchg fails if an opening's marker (st_open())
 * changed the counter after our look at start. The ring's writer only
 * (on its CPU, or the one writer of snaptrace_reserve_on()); the hook
 * reports @cpu (st_ring_cpu()).
 */
static __always_inline void st_count_local_at(struct snaptrace_buffer *buf,
					      struct st_ring *r, local_t *cnt,
					      unsigned long pos,
					      enum snaptrace_test_step step,
					      int cpu)
{
	long c;

	do {
		c = local_read(cnt);
		barrier(); /* the counter, then start: st_open() writes them in reverse */
		if ((long)(pos - READ_ONCE(r->start)) < 0)
			return;
		if (step != ST_STEP_NR)
			st_hook(buf, step, st_ring_cpu(cpu));
	} while (local_cmpxchg(cnt, c, c + 1) != c);
}

static __always_inline void st_count_local(struct st_ring *r, local_t *cnt,
					   unsigned long pos)
{
	st_count_local_at(NULL, r, cnt, pos, ST_STEP_NR, -1);
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
		unsigned long h = atomic_long_read(&r->head);

		/*
		 * Closed: the last position reserved is the one its closer
		 * recorded; head's own may have moved on since (st_unspare()),
		 * over bytes no record of this epoch holds, which readers
		 * would parse.
		 */
		if (unlikely(h & ST_FLAGS)) {
			smp_rmb(); /* head before last (st_close()) */
			h = atomic_long_read(&r->last);
		}
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

/**
 * snaptrace_ring_push_tail() - move a ring's tail past records to overwrite
 * @r: the ring
 * @min: position tail must reach
 * @cnt: the counter of the records overwritten: this CPU's writers'
 *	overrun, or NULL for a snapshot's push (counted in overrun_x)
 *
 * Pushes tail to at least @min, record by record, counting each record
 * (not padding) it passes in its epoch (I3, I5). The seal bit of tail is
 * kept. Several pushers may race: each record is passed by one cmpxchg,
 * and counted once. Mirrors rb_tail_page_update()'s role in ftrace.
 *
 * Context: any, NMI included; with @cnt, on @r's CPU with preemption off
 * (a writer). Never sleeps. Lockless.
 */
void snaptrace_ring_push_tail(struct st_ring *r, unsigned long min,
			      local_t *cnt)
{
	struct st_view v;
	unsigned long t, p;

	for (;;) {
		/*
		 * Acquire: when tail is already past @min (a consumer or a
		 * snapshot moved it), a writer calling us writes over the
		 * bytes below @min next, after whoever moved it read them
		 * (tail-lb).
		 */
		t = atomic_long_read_acquire(&r->tail);
		p = st_pos(t);
		if ((long)(p - min) >= 0)
			return;
		if (unlikely(!st_parse(r, st_off(r, p), &v))) {
			/*
			 * Only someone moving tail under us explains this.
			 * The re-read is a fully ordered cmpxchg that changes
			 * nothing: a writer that overwrote the header without
			 * pushing (a consumer on a third CPU had moved tail)
			 * read that consumer's tail first, and a plain re-read,
			 * even after smp_rmb(), may still miss it where stores
			 * are not multi-copy atomic
			 * (tests/litmus/push-reread-wrc.litmus).
			 */
			if (atomic_long_cmpxchg(&r->tail, t, t) == t) {
				WARN_ON_ONCE(1);
				return;
			}
			continue;
		}
		if (!atomic_long_try_cmpxchg(&r->tail, (long *)&t,
					     (p + st_p(v.len)) | (t & ST_SEAL)))
			continue;
		if (!v.type)
			continue;	/* padding */
		if (cnt)
			st_count_local(r, cnt, p);
		else
			st_count_atomic(r, &r->overrun_x, p);
	}
}

/*
 * The time prefix a record at @pos of @r stamped @ts needs: none if its
 * frame's anchor is installed and the delta from it fits in the header,
 * ST_EXT_LEN if it fits with the prefix's bits too, ST_ABS_LEN otherwise
 * (no anchor yet: its owner has not installed it, or the frame has no
 * owner in this epoch; or a delta that is negative, the writer having been
 * interrupted between its clock read and its reservation, or too large).
 * Sets *@delta. The anchor is read before the reservation that depends on
 * it: it changes only by an owner's install, after its own reservation,
 * which makes ours fail and plan again.
 */
static __always_inline unsigned int st_time_prefix(struct st_ring *r,
						   unsigned long pos, u64 ts,
						   u64 *delta)
{
	struct st_anchor *a = st_anchor(r, pos);
	unsigned long f = READ_ONCE(a->frame);
	u64 d;

	/*
	 * The frame word before t. Only this ring's writers install anchors:
	 * on this CPU, as interrupts of this writer (or, for
	 * snaptrace_reserve_on(), its serialized writers, whose lock orders
	 * them), so program order is enough.
	 */
	barrier();
	d = ts - st_anchor_t(a);
	if (f != (st_frame(pos) | ST_ANCHOR_VALID) || d >= ST_DELTA_LIMIT)
		return ST_ABS_LEN;	/* (negative deltas are large) */
	*delta = d;
	return d > ST_DELTA_MASK ? ST_EXT_LEN : 0;
}

/*
 * The owner of the frame starting at @frame installs its anchor, @ts, once
 * tail has passed every record of the frame whose slot it takes (ST_ANCHORS()
 * frames older), so that a reader that sees the new anchor sees that tail
 * too and throws its copy of such a record away (I4): @tail is a value of
 * tail this writer read. Returns false, installing nothing, if tail is not
 * there yet. The frame word last, so that no one uses the anchor before its
 * time is there.
 */
static __always_inline bool st_install(struct st_ring *r, unsigned long frame,
				       unsigned long tail, u64 ts)
{
	struct st_anchor *a = st_anchor(r, frame);
	unsigned long gone = frame - st_p((r->amask) * ST_FRAME);

	if ((long)(st_pos(tail) - gone) < 0)
		return false;
	smp_mb(); /* our look at tail before the anchor (cumulative for readers) */
	atomic64_set(&a->t, ts);
	smp_wmb(); /* t before the frame word (pairs with st_time_prefix()) */
	WRITE_ONCE(a->frame, frame | ST_ANCHOR_VALID);
	return true;
}

/* Write the record's prefix and header at byte @off; returns the payload. */
static __always_inline void *st_put_hdr(struct st_ring *r, unsigned long off,
					unsigned int pre, u64 delta, u64 ts,
					u16 type, size_t len)
{
	u32 *w = (u32 *)(r->data + off);
	u32 x = pre == ST_ABS_LEN ? 0 : delta & ST_DELTA_MASK;

	if (pre == ST_EXT_LEN) {
		*w++ = ST_C_EXT | (u32)(delta >> ST_DELTA_BITS) << ST_CODE_BITS;
		if (ST_ALIGN8)
			*w++ = 0;	/* padding to 8 bytes */
	} else if (pre == ST_ABS_LEN) {
		*w++ = ST_C_ABS;
		if (ST_ALIGN8)
			*w++ = 0;	/* the time stamp 8-byte aligned */
		*w++ = lower_32_bits(ts);
		*w++ = upper_32_bits(ts);
	}
	if (st_short_hdr(type, len)) {
		*w++ = len / ST_C_DATA_UNIT | x << ST_CODE_BITS;
	} else {
		*w++ = ST_C_LONG | x << ST_CODE_BITS;
		*w++ = len | (u32)type << 16;
	}
	return w;
}

/* Where a reservation's record goes, and how its time is written. */
struct st_plan {
	unsigned long p;	/* the record's first position */
	unsigned long end;	/* the position after it: head's new value */
	unsigned long pad;	/* bytes of padding to the ring's end before it */
	unsigned long owned;	/* the frame it owns (if @owner) */
	u64 delta;		/* from its frame's anchor, unless @pre is ABS */
	unsigned int pre;	/* its time prefix: 0, ST_EXT_LEN or ST_ABS_LEN */
	bool owner;		/* it covers a frame's first position */
};

/*
 * The common reservation, planned inline: a record of @base bytes at head
 * @h that stays inside the frame of @h, past the frame's first position,
 * and whose delta from the frame's installed anchor fits its header. Such
 * a record owns no frame and needs no padding (the ring's end is a frame
 * boundary: a position's offset is the position modulo the ring's size,
 * which is a multiple of ST_FRAME). A record at the frame's first position
 * fails the anchor check: it is the frame's owner, and no anchor names a
 * frame before its owner installs it (A1). Sets *@delta; false:
 * st_plan_slow().
 */
static __always_inline bool st_plan_fast(struct st_ring *r, unsigned long h,
					 unsigned long base, u64 ts, u64 *delta)
{
	struct st_anchor *a = st_anchor(r, h);
	unsigned long f = READ_ONCE(a->frame);
	unsigned long end = h + st_p(base);

	/* The frame word before t, as in st_time_prefix(). */
	barrier();
	*delta = ts - st_anchor_t(a);
	return f == (st_frame(h) | ST_ANCHOR_VALID) &&
	       (h ^ (end - 1)) < st_p(ST_FRAME) &&
	       *delta <= ST_DELTA_MASK;
}

/*
 * Every other reservation: at a frame's first position (its owner), across
 * frames, padded to the ring's end, or with a time prefix. An owner's
 * record in the frame it owns has delta 0: its time stamp becomes the
 * anchor (st_install()).
 */
static noinline void st_plan_slow(struct st_ring *r, unsigned long h,
				  unsigned long base, u64 ts,
				  struct st_plan *pl)
{
	unsigned long off = st_off(r, h);

	pl->p = h;
	pl->pad = 0;
	pl->delta = 0;
	pl->pre = st_time_prefix(r, h, ts, &pl->delta);
	if (off + pl->pre + base > r->size) {
		/* I1: pad to the end; the record starts the next lap. */
		pl->pad = r->size - off;
		pl->p = h + st_p(pl->pad);
		pl->pre = st_time_prefix(r, pl->p, ts, &pl->delta);
	}
	pl->end = pl->p + st_p(pl->pre + base);
	pl->owned = st_frame(pl->end - 1);
	pl->owner = st_frame(h - 1) != pl->owned;
	if (pl->owner && st_frame(pl->p) == pl->owned) {
		pl->pre = 0;
		pl->delta = 0;
		pl->end = pl->p + st_p(base);
	}
}

/*
 * The length in bytes of the record at byte offset @off of @r if it has
 * no prefix (the common record at tail), as st_parse() would find it; 0
 * for any other (then snaptrace_ring_push_tail() measures it). A LONG
 * header's type is not checked here, as st_parse() does: tail is at a
 * record boundary below commit (I2), so the header is one a writer wrote,
 * and the nine instructions that check costs a 512-byte record would take
 * its write cost past 0.8 of ftrace's.
 */
static __always_inline unsigned long st_rec_len_fast(const struct st_ring *r,
						     unsigned long off)
{
	unsigned long room = r->size - off, len;
	u32 w = st_word(r, off), code = w & ST_CODE_MASK;

	if (!ST_ALIGN8 && code - 1 < ST_C_DATA_MAX) {
		len = ST_HDR_SHORT + code * ST_C_DATA_UNIT;
	} else if (code == ST_C_LONG && room >= ST_HDR_LONG) {
		u32 size = st_word(r, off + ST_HDR_SHORT) & 0xffff;

		if (!size || size > SNAPTRACE_MAX_PAYLOAD)
			return 0;
		len = ST_HDR_LONG + ALIGN(size, ST_ALIGN);
	} else {
		return 0;
	}
	return len <= room ? len : 0;
}

/*
 * The reservation of st_reserve() in every case its fast path leaves: a
 * ring not open, a record that owns a frame, needs padding or a time
 * prefix, a full ring, a lost race for head. @r is the ring st_reserve()
 * looked up, with its commit begun, and @h the value of head it read; if
 * @have_ts, @ts is the time stamp it read for @h (a first try of this
 * loop that it did not finish: the clock is read once a try).
 */
static noinline void *
st_reserve_slow(struct snaptrace_buffer *buf, size_t len, u16 type,
		struct snaptrace_reservation *res, int cpu, struct st_ring *r,
		unsigned long h, unsigned long base, u64 ts, bool have_ts)
{
	unsigned long end;
	struct st_plan pl;
	bool owner;
	struct st_ring *next;

	for (;;) {
		if (unlikely(h & ST_FLAGS)) {
			if (cpu < 0)
				next = snaptrace_ring_writer(buf, r, h);
			else
				next = snaptrace_ring_writer_on(buf, r, h, cpu);
			if (next != r) {
				st_end_commit(r);
				r = next;
				st_start_commit(r);
			}
			h = atomic_long_read(&r->head);
			continue;
		}
		if (!have_ts)
			ts = st_clock();
		have_ts = false;
		st_plan_slow(r, h, base, ts, &pl);
		end = pl.end;
		/* I2: never reuse the bytes of a record still being written. */
		if (unlikely(end - local_read(&r->commit) > st_p(r->size)) ||
		    (READ_ONCE(buf->mode) == SNAPTRACE_STOP_WHEN_FULL &&
		     end - st_pos(atomic_long_read(&r->tail)) > st_p(r->size))) {
			/*
			 * Full, if the ring is still open at this position: a
			 * snapshot may just have emptied the live half.
			 */
			unsigned long now;

			st_hook(buf, ST_STEP_WRITE_FULL, st_ring_cpu(cpu));
			now = atomic_long_read(&r->head);
			if (now != h) {
				h = now;
				continue;
			}
			goto full;
		}
		st_hook(buf, ST_STEP_WRITE_RESERVE, st_ring_cpu(cpu));
		/* R1: fails, with no side effect, if the ring was sealed. */
		if (atomic_long_try_cmpxchg(&r->head, (long *)&h, end))
			break;
	}
	/*
	 * The owner installs its anchor now if tail allows, so that a writer
	 * that interrupts it finds the anchor (else it pays an ABS prefix);
	 * else once it has pushed tail, which then allows.
	 */
	owner = pl.owner;
	if (owner) {
		st_hook(buf, ST_STEP_WRITE_ANCHOR, st_ring_cpu(cpu));
		if (st_install(r, pl.owned, atomic_long_read(&r->tail), ts))
			owner = false;
	}
	st_hook(buf, ST_STEP_WRITE_RESERVED, st_ring_cpu(cpu));

	/* Acquire: no push needed, the bytes below tail are ours (tail-lb). */
	if ((long)(end - st_p(r->size) -
		   st_pos(atomic_long_read_acquire(&r->tail))) > 0) {
		snaptrace_ring_push_tail(r, end - st_p(r->size), &r->overrun);
		st_hook(buf, ST_STEP_WRITE_PUSHED, st_ring_cpu(cpu));
	}
	if (owner)
		WARN_ON_ONCE(!st_install(r, pl.owned, atomic_long_read(&r->tail), ts));

	if (pl.pad)
		*(u32 *)(r->data + st_off(r, h)) = ST_C_PAD | (u32)pl.pad << ST_CODE_BITS;
	res->ring = r;
	res->pos = pl.p;
	return st_put_hdr(r, st_off(r, pl.p), pl.pre, pl.delta, ts, type, len);

full:
	st_count_local_at(buf, r, &r->dropped, h, ST_STEP_COUNT_DROPPED, cpu);
	st_end_commit(r);
	preempt_enable_notrace();
	return ERR_PTR(-ENOSPC);
}

/*
 * Reserve @len bytes in this CPU's ring of the live half (@cpu -1: every
 * writer but one), or in @cpu's (snaptrace_reserve_on(): the caller is
 * that ring's only writer, and recording's switches do not apply). With
 * @cpu a constant -1 this folds to the code of this CPU's writers alone.
 *
 * The fast path, inline: an open ring, a record that st_plan_fast()
 * allows, room (I2), head won at the first try, and tail pushed past at
 * most the one record at tail if it has no prefix. Anything else goes on
 * in st_reserve_slow(), from the step reached: the steps, and the test
 * hooks between them, are those of the slow path. Returns the payload, or
 * ERR_PTR(): -EINVAL for @len 0 or too large, -EBUSY with recording off,
 * -ENOSPC with no room (counted as dropped).
 */
static __always_inline void *
st_reserve(struct snaptrace_buffer *buf, size_t len, u16 type,
	   struct snaptrace_reservation *res, int cpu)
{
	unsigned long h, t, end, base, min, off, rl;
	struct st_ring *r;
	u64 ts, delta;
	u32 *w;

	if (unlikely(len == 0 || len > SNAPTRACE_MAX_PAYLOAD))
		return ERR_PTR(-EINVAL);
	base = (st_short_hdr(type, len) ? ST_HDR_SHORT : ST_HDR_LONG) +
	       ALIGN(len, ST_ALIGN);

	/*
	 * Preemption stays off until the commit: an RCU-sched read side, so
	 * a resize or free of a half waits for every writer inside it.
	 */
	preempt_disable_notrace();
	if (cpu < 0 && unlikely(!READ_ONCE(buf->record_on) ||
				atomic_read(&buf->record_disabled))) {
		preempt_enable_notrace();
		return ERR_PTR(-EBUSY);
	}
	r = st_live_ring_on(buf, cpu);
	st_hook(buf, ST_STEP_WRITE_LOOKUP, st_ring_cpu(cpu));
	st_start_commit(r);
	h = atomic_long_read(&r->head);
	if (unlikely(h & ST_FLAGS))
		return st_reserve_slow(buf, len, type, res, cpu, r, h, base,
				       0, false);
	ts = st_clock();
	end = h + st_p(base);
	/* I2, as in st_reserve_slow() */
	if (unlikely(!st_plan_fast(r, h, base, ts, &delta) ||
		     end - local_read(&r->commit) > st_p(r->size) ||
		     (READ_ONCE(buf->mode) == SNAPTRACE_STOP_WHEN_FULL &&
		      end - st_pos(atomic_long_read(&r->tail)) > st_p(r->size))))
		return st_reserve_slow(buf, len, type, res, cpu, r, h, base,
				       ts, true);
	st_hook(buf, ST_STEP_WRITE_RESERVE, st_ring_cpu(cpu));
	/* R1: fails, with no side effect, if the ring was sealed. */
	if (unlikely(!atomic_long_try_cmpxchg(&r->head, (long *)&h, end)))
		return st_reserve_slow(buf, len, type, res, cpu, r, h, base,
				       0, false);
	st_hook(buf, ST_STEP_WRITE_RESERVED, st_ring_cpu(cpu));

	/*
	 * Tail past the one record at tail, if that is enough (overwrite).
	 * Each read of tail that finds it past min is acquire: a consumer
	 * (or a snapshot) that moved it read the bytes we now write over,
	 * and our stores must come after its reads (tail-lb; in stop-when-full
	 * mode too, whose room check read tail first). A plain load on x86.
	 */
	min = end - st_p(r->size);
	t = atomic_long_read_acquire(&r->tail);
	if ((long)(min - st_pos(t)) > 0) {
		off = st_off(r, st_pos(t));
		rl = st_rec_len_fast(r, off);
		if (rl && atomic_long_try_cmpxchg(&r->tail, (long *)&t,
						  (st_pos(t) + st_p(rl)) | (t & ST_SEAL)))
			st_count_local(r, &r->overrun, st_pos(t));
		if ((long)(min - st_pos(atomic_long_read_acquire(&r->tail))) > 0)
			snaptrace_ring_push_tail(r, min, &r->overrun);
		st_hook(buf, ST_STEP_WRITE_PUSHED, st_ring_cpu(cpu));
	}

	w = (u32 *)(r->data + st_off(r, h));
	if (st_short_hdr(type, len)) {
		*w++ = len / ST_C_DATA_UNIT | (u32)delta << ST_CODE_BITS;
	} else {
		*w++ = ST_C_LONG | (u32)delta << ST_CODE_BITS;
		*w++ = len | (u32)type << 16;
	}
	res->ring = r;
	res->pos = h;
	return w;
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
 * Return: pointer to the payload, or NULL if @len is 0 or too large,
 * recording is off, or there is no room (stop-when-full mode, or the ring
 * is filled by records still being written): that last case is counted in
 * &snaptrace_stats.dropped. The payload is 4-byte aligned, as ftrace's;
 * 8-byte aligned where 64-bit accesses must be
 * (CONFIG_HAVE_64BIT_ALIGNED_ACCESS), as ftrace's there, or in a module
 * built with ``make SNAPTRACE_ALIGN8=1``.
 */
void *snaptrace_reserve(struct snaptrace_buffer *buf, size_t len,
			struct snaptrace_reservation *res)
{
	void *p = st_reserve(buf, len, SNAPTRACE_REC_DATA, res, -1);

	return IS_ERR(p) ? NULL : p;
}
EXPORT_SYMBOL_GPL(snaptrace_reserve);

/**
 * snaptrace_reserve_type() - reserve room for one record of a given type
 * @buf: the buffer
 * @type: an &enum snaptrace_rec_type
 * @len: payload length in bytes, 1..%SNAPTRACE_MAX_PAYLOAD
 * @res: filled in; pass it to snaptrace_commit()
 *
 * snaptrace_reserve() for the module's own record types (the text of a
 * remote's trace captured at a crash); snaptrace_reserve() is this with
 * %SNAPTRACE_REC_DATA.
 *
 * Context: any, NMI included. Never sleeps, never allocates.
 * Return: as snaptrace_reserve(), the payload aligned alike (4 bytes; 8
 * with CONFIG_HAVE_64BIT_ALIGNED_ACCESS or ``make SNAPTRACE_ALIGN8=1``).
 */
void *snaptrace_reserve_type(struct snaptrace_buffer *buf, u16 type,
			     size_t len, struct snaptrace_reservation *res)
{
	void *p = st_reserve(buf, len, type, res, -1);

	return IS_ERR(p) ? NULL : p;
}

/**
 * snaptrace_reserve_on() - reserve room for one record in a given CPU's ring
 * @buf: the buffer
 * @cpu: the ring's CPU (any possible CPU; the caller may run elsewhere)
 * @type: an &enum snaptrace_rec_type
 * @len: payload length in bytes, 1..%SNAPTRACE_MAX_PAYLOAD
 * @res: filled in; pass it to snaptrace_commit()
 *
 * snaptrace_reserve() into @cpu's ring of the live half instead of this
 * CPU's, for a buffer written by one writer at a time from whichever CPU
 * it runs on: a remote's crash capture into a buffer of
 * snaptrace_buffer_alloc_cpu() with @cpu its home CPU. It ignores
 * recording's switches (snaptrace_record_on()/_off() and
 * snaptrace_record_disable()): the caller keeps every other writer out
 * with snaptrace_record_disable(), a count users cannot change. A snapshot
 * may be taken from any CPU meanwhile, as for any writer; commit with
 * snaptrace_commit() on the calling CPU. Why this is safe:
 * Documentation/ring-buffer.rst, "Writing another CPU's ring". No
 * upstream twin (ftrace writes only the running CPU's buffer).
 *
 * Context: any, NMI included. Never sleeps, never allocates, takes no
 * lock. The caller guarantees that it is the only writer of @cpu's ring
 * from reservation to commit (all writers of @buf serialized, e.g. under
 * one lock), but for interrupts of the calling CPU that reserve and
 * commit there in full (nesting, as for snaptrace_reserve()).
 * Preemption stays disabled until the commit.
 * Return: pointer to the payload (aligned as snaptrace_reserve()'s), or
 * NULL if @cpu is not possible, @len is 0 or too large, or there is no room
 * (counted in &snaptrace_stats.dropped of @cpu, as for snaptrace_reserve()).
 */
void *snaptrace_reserve_on(struct snaptrace_buffer *buf, int cpu, u16 type,
			   size_t len, struct snaptrace_reservation *res)
{
	void *p;

	if (!st_cpu_valid(cpu))
		return NULL;
	p = st_reserve(buf, len, type, res, cpu);
	return IS_ERR(p) ? NULL : p;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_reserve_on);

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
 * Context: the context that called snaptrace_reserve() (or
 * snaptrace_reserve_on()), on the same CPU. Never sleeps.
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
	void *p;

	p = st_reserve(buf, len, type, &res, -1);
	if (IS_ERR(p))
		return PTR_ERR(p);
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
