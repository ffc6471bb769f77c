// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the records' time stamps (issue 19): with the records'
 * clock replaced by one the test sets (st_clock_install()), every
 * record's time stamp is known, and each one read back is compared
 * exactly, by consuming reads and iterators, of the live half and of the
 * snapshot:
 *
 * - back-to-back records (deltas of 0, 1 and a few ns), every size class;
 * - records 2^27 - 1, 2^27, 2^27 + 1, 2^54 - 1, 2^54, 2^54 + 1 ns apart,
 *   and jumps of the size of a u64, wrapping past U64_MAX;
 * - time going backwards: a nested writer, inside a writer that read its
 *   clock already, writes a record with a later time that lands first;
 * - a nested writer at each writer step (WRITE_LOOKUP .. WRITE_COMMIT),
 *   its time later or earlier, near and far;
 * - wraps of the ring in the middle of a record with an absolute time, a
 *   record ending exactly at the ring's end, the largest record there,
 *   several laps of the smallest ring, with an exact count of the records
 *   overwritten, derived from the positions the records were written at;
 * - the first records after a snapshot, a clear of the snapshot, a reset
 *   and a resize;
 * - how many records fit in a ring, from the compact record format's
 *   sizes (format-specific: see time_fit_cases);
 * - every reservation's payload aligned (4 bytes, 8 in the 8-byte layout),
 *   for every length class, after EXT and ABS prefixes and padding, at the
 *   place the format's model says (format-specific: time_payload_aligned);
 * - a consumer whose copy is overwritten (laps of the ring, and their
 *   anchors) before it removes it, and readers racing a writer that
 *   overwrites: never a wrong time or payload.
 *
 * Every case but the racing one writes on one CPU, in a kworker bound to
 * it. Apart from time_compact_records_fit and time_payload_aligned,
 * nothing here depends on the record format: where a case means to put a
 * record at a particular place of the compact format (the end of the ring,
 * padding before an absolute time), it plans the records with a model of
 * that format (struct time_model, in the layout the module is built in),
 * but it asserts only what holds in any format.
 */
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <kunit/resource.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

/* Deltas at the edges of the compact format's fields (ring-buffer.rst, "Compact records"). */
#define TIME_D_BITS	27	/* a header's delta */
#define TIME_X_BITS	54	/* a header's delta with an EXT prefix */
#define TIME_T0		1000000ULL	/* a time to start from */
#define TIME_MAXW	4096	/* records one case plans at most */

/* ---- records planned: time, length, type; payload from the sequence ---- */

struct time_w {
	u64 ts;
	u16 len;
	u16 type;
};

/* Byte @i of the payload of record @seq: its first four bytes give @seq. */
static u8 time_byte(u32 seq, size_t i)
{
	return (u8)(seq >> (8 * (i & 3))) ^ (u8)(i * 29 + 7);
}

static void time_fill(u8 *p, size_t len, u32 seq)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = time_byte(seq, i);
}

static bool time_payload_ok(const u8 *p, size_t len, u32 seq)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != time_byte(seq, i))
			return false;
	return true;
}

/* The sequence number a payload of 4 bytes or more says; U32_MAX if shorter. */
static u32 time_seq_of(const struct snaptrace_record *rec)
{
	u32 seq = 0;
	size_t i;

	if (rec->len < 4)
		return U32_MAX;
	for (i = 0; i < 4; i++)
		seq |= (u32)(rec->data[i] ^ (u8)(i * 29 + 7)) << (8 * i);
	return seq;
}

static struct time_w *time_w_new(struct kunit *test)
{
	struct time_w *w = kunit_kcalloc(test, TIME_MAXW, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	return w;
}

/*
 * Writes record @seq of @w on this CPU with the clock at its time: DATA
 * through snaptrace_write(), other types through snaptrace_reserve_on()
 * on this CPU (snaptrace_write_type() is not exported to the tests).
 * Preemption off, or a kworker bound to this CPU.
 */
static int time_put(struct snaptrace_buffer *buf, const struct time_w *w,
		    u32 seq, u8 *scratch)
{
	struct snaptrace_reservation res;
	u8 *p;

	st_clock_set(w[seq].ts);
	time_fill(scratch, w[seq].len, seq);
	if (w[seq].type == SNAPTRACE_REC_DATA)
		return snaptrace_write(buf, scratch, w[seq].len);
	p = snaptrace_reserve_on(buf, raw_smp_processor_id(), w[seq].type,
				 w[seq].len, &res);
	if (!p)
		return -ENOSPC;
	memcpy(p, scratch, w[seq].len);
	snaptrace_commit(buf, &res);
	return 0;
}

/* Whether @rec is record @seq of @w written on @cpu, exactly; fails the test if not. */
static bool time_expect_rec(struct kunit *test, const struct snaptrace_record *rec,
			    const struct time_w *w, u32 seq, int cpu,
			    const char *what)
{
	bool ok = rec->ts == w[seq].ts && rec->len == w[seq].len &&
		  rec->type == w[seq].type && rec->cpu == cpu &&
		  time_payload_ok(rec->data, rec->len, seq);

	KUNIT_EXPECT_EQ_MSG(test, rec->ts, w[seq].ts, "%s: record %u", what, seq);
	KUNIT_EXPECT_EQ_MSG(test, rec->len, w[seq].len, "%s: record %u", what, seq);
	KUNIT_EXPECT_EQ_MSG(test, rec->type, w[seq].type, "%s: record %u", what, seq);
	KUNIT_EXPECT_EQ_MSG(test, rec->cpu, cpu, "%s: record %u", what, seq);
	KUNIT_EXPECT_TRUE_MSG(test, time_payload_ok(rec->data, rec->len, seq),
			      "%s: record %u: payload of another record, or torn", what, seq);
	return ok;
}

/* ---- writing on one CPU ---- */

struct time_wr {
	struct snaptrace_buffer *buf;
	const struct time_w *w;
	u32 first;
	u32 n;
	int cpu;
	bool stop_at_nospc;	/* stop at the first -ENOSPC */
	/* Optional: an iterator following the writer, and what it found. */
	struct snaptrace_iter *follow;
	u64 *pos;		/* by sequence number */
	u32 follow_bad;		/* records it did not find as written */
	u32 follow_first_bad;
	/* Results. */
	u8 *scratch;
	bool wrong_cpu;
	u32 ok;
	u32 nospc;
	u32 other;
};

static long time_wr_fn(void *data)
{
	struct time_wr *a = data;
	struct snaptrace_record *rec = NULL;
	u32 i, seq;
	int rc;

	if (a->follow) {
		rec = kzalloc(sizeof(*rec), GFP_KERNEL);
		if (!rec) {
			a->other++;
			return 0;
		}
	}
	for (i = 0; i < a->n; i++) {
		seq = a->first + i;
		if (raw_smp_processor_id() != a->cpu)
			a->wrong_cpu = true;
		rc = time_put(a->buf, a->w, seq, a->scratch);
		if (rc == -ENOSPC) {
			a->nospc++;
			if (a->stop_at_nospc)
				break;
			continue;
		}
		if (rc) {
			a->other++;
			continue;
		}
		a->ok++;
		if (!a->follow)
			continue;
		/* The record just written, read right away. */
		rc = snaptrace_iter_next(a->follow, rec);
		if (rc || rec->ts != a->w[seq].ts || rec->len != a->w[seq].len ||
		    rec->type != a->w[seq].type || rec->cpu != a->cpu ||
		    !time_payload_ok(rec->data, rec->len, seq)) {
			if (!a->follow_bad++)
				a->follow_first_bad = seq;
			continue;
		}
		a->pos[seq] = rec->pos;
	}
	kfree(rec);
	return 0;
}

static void time_wr_run(struct kunit *test, struct time_wr *a)
{
	a->scratch = kunit_kzalloc(test, SNAPTRACE_MAX_PAYLOAD, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a->scratch);
	work_on_cpu(a->cpu, time_wr_fn, a);
	KUNIT_ASSERT_FALSE_MSG(test, a->wrong_cpu, "writer not on cpu %d", a->cpu);
	KUNIT_ASSERT_EQ(test, a->other, 0);
	kunit_kfree(test, a->scratch);
}

/* Writes records @first.. @first + @n - 1 of @w on @cpu; each must be taken. */
static void time_write(struct kunit *test, struct snaptrace_buffer *buf, int cpu,
		       const struct time_w *w, u32 first, u32 n)
{
	struct time_wr a = { .buf = buf, .w = w, .first = first, .n = n, .cpu = cpu };

	time_wr_run(test, &a);
	KUNIT_ASSERT_EQ_MSG(test, a.ok, n, "records %u.. taken", first);
}

/* ---- reading back, exactly ---- */

enum time_how {
	TIME_ITER,		/* an iterator of the CPU */
	TIME_ITER_ALL,		/* an iterator of every CPU */
	TIME_CONSUME,		/* consuming reads of the CPU */
	TIME_CONSUME_ALL,	/* consuming reads of every CPU */
};

static const char *const time_how_name[] = {
	[TIME_ITER] = "iterator",
	[TIME_ITER_ALL] = "iterator of all CPUs",
	[TIME_CONSUME] = "consume",
	[TIME_CONSUME_ALL] = "consume of all CPUs",
};

struct time_reader {
	struct snaptrace_buffer *buf;
	struct snaptrace_iter *it;
	enum snaptrace_which which;
	enum time_how how;
	int cpu;
};

static void time_reader_start(struct kunit *test, struct time_reader *r,
			      struct snaptrace_buffer *buf,
			      enum snaptrace_which which, int cpu,
			      enum time_how how)
{
	r->buf = buf;
	r->which = which;
	r->how = how;
	r->cpu = cpu;
	r->it = NULL;
	if (how == TIME_ITER || how == TIME_ITER_ALL) {
		r->it = snaptrace_iter_start(buf, which,
					     how == TIME_ITER ? cpu : SNAPTRACE_ALL_CPUS);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r->it);
	}
}

static int time_reader_next(struct time_reader *r, struct snaptrace_record *rec)
{
	if (r->it)
		return snaptrace_iter_next(r->it, rec);
	return snaptrace_consume(r->buf, r->which,
				 r->how == TIME_CONSUME ? r->cpu : SNAPTRACE_ALL_CPUS,
				 rec);
}

static void time_reader_stop(struct time_reader *r)
{
	snaptrace_iter_stop(r->it);
	r->it = NULL;
}

/*
 * Reads @which of @buf (records of @cpu only) with @how and expects
 * exactly records @first .. @end - 1 of @w, in that order, then the end.
 */
static void time_expect_read(struct kunit *test, struct snaptrace_buffer *buf,
			     enum snaptrace_which which, int cpu, enum time_how how,
			     const struct time_w *w, u32 first, u32 end)
{
	struct snaptrace_record *rec = st_rec_new(test);
	struct time_reader r;
	const char *what = st_fmt(test, "%s of %s", time_how_name[how],
				  which == SNAPTRACE_LIVE ? "live" : "the snapshot");
	u32 seq;
	int rc;

	time_reader_start(test, &r, buf, which, cpu, how);
	for (seq = first; seq < end; seq++) {
		rc = time_reader_next(&r, rec);
		KUNIT_EXPECT_EQ_MSG(test, rc, 0, "%s: record %u of %u..%u", what, seq,
				    first, end - 1);
		if (rc || !time_expect_rec(test, rec, w, seq, cpu, what))
			break;
	}
	if (seq == end)
		KUNIT_EXPECT_EQ_MSG(test, time_reader_next(&r, rec), -ENODATA,
				    "%s: more than records %u..%u", what, first, end - 1);
	time_reader_stop(&r);
	kunit_kfree(test, rec);
}

/* Every way of reading: records @first .. @end - 1, exactly (consumes them last). */
static void time_expect_all_ways(struct kunit *test, struct snaptrace_buffer *buf,
				 enum snaptrace_which which, int cpu,
				 const struct time_w *w, u32 first, u32 end,
				 enum time_how consume)
{
	time_expect_read(test, buf, which, cpu, TIME_ITER, w, first, end);
	time_expect_read(test, buf, which, cpu, TIME_ITER_ALL, w, first, end);
	time_expect_read(test, buf, which, cpu, consume, w, first, end);
	time_expect_read(test, buf, which, cpu, TIME_ITER, w, end, end);
}

/*
 * Reads @which of @buf with @how where the oldest records may have been
 * overwritten: expects the records it finds to be the last ones written,
 * @first .. @end - 1 for some @first, each exact. Returns @first (@end if
 * it found none; U32_MAX after a failure).
 */
static u32 time_expect_suffix(struct kunit *test, struct snaptrace_buffer *buf,
			      enum snaptrace_which which, int cpu, enum time_how how,
			      const struct time_w *w, u32 end)
{
	struct snaptrace_record *rec = st_rec_new(test);
	const char *what = st_fmt(test, "%s of %s", time_how_name[how],
				  which == SNAPTRACE_LIVE ? "live" : "the snapshot");
	struct time_reader r;
	u32 first, seq;
	int rc;

	time_reader_start(test, &r, buf, which, cpu, how);
	rc = time_reader_next(&r, rec);
	if (rc) {
		KUNIT_EXPECT_EQ_MSG(test, rc, -ENODATA, "%s", what);
		time_reader_stop(&r);
		return rc == -ENODATA ? end : U32_MAX;
	}
	first = time_seq_of(rec);
	if (first >= end) {
		KUNIT_FAIL(test, "%s: the first record says %u, of %u written", what, first, end);
		time_reader_stop(&r);
		return U32_MAX;
	}
	for (seq = first; seq < end; seq++) {
		if (seq != first)
			rc = time_reader_next(&r, rec);
		KUNIT_EXPECT_EQ_MSG(test, rc, 0, "%s: record %u of %u..%u", what, seq,
				    first, end - 1);
		if (rc || !time_expect_rec(test, rec, w, seq, cpu, what)) {
			first = U32_MAX;
			break;
		}
	}
	if (first != U32_MAX)
		KUNIT_EXPECT_EQ_MSG(test, time_reader_next(&r, rec), -ENODATA,
				    "%s: more than records %u..%u", what, first, end - 1);
	time_reader_stop(&r);
	kunit_kfree(test, rec);
	return first;
}

static struct snaptrace_buffer *time_buf(struct kunit *test, size_t size,
					 enum snaptrace_mode mode, bool spare)
{
	struct snaptrace_buffer *buf = st_buf_new(test, size, mode);

	KUNIT_ASSERT_EQ(test, snaptrace_size_per_cpu(buf), size);
	if (spare)
		KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	return buf;
}

/* ---- a model of the compact record format (ring-buffer.rst, "Compact records") ---- */

/*
 * Format: compact records. Where the compact format puts each record of a
 * ring written from its start by one writer: the bytes of a record (its
 * EXT or ABS prefix, header and payload), padding at the ring's end, and
 * the anchor of each 8 KiB frame of positions, which the record whose
 * reservation (padding included) covers the frame's first byte installs
 * with its own time: that record, when it starts in the frame, has delta 0
 * and no prefix. A record's delta counts from the anchor of the frame its
 * first byte lies in, modulo 2^64. Used to plan records at particular
 * places, and to count how many fit (time_compact_records_fit).
 */
#define TIME_FRAME	8192
#define TIME_ABS	ST_ABS_BYTES
#define TIME_EXT	ST_EXT_BYTES
/* The largest record: ABS prefix, long header, the largest payload. */
#define TIME_REC_MAX	(TIME_ABS + ST_HDR_LONG_BYTES + SNAPTRACE_MAX_PAYLOAD)

struct time_model {
	u64 size;	/* the ring's bytes */
	u64 pos;	/* where the next record's first byte goes */
	u64 frame;	/* the frame whose anchor is installed; U64_MAX: none */
	u64 t;		/* its time */
};

static void time_model_init(struct time_model *m, u64 size)
{
	m->size = size;
	m->pos = 0;
	m->frame = U64_MAX;
	m->t = 0;
}

/* Header and payload bytes of @x, in this build's layout (st_kunit.h). */
static u32 time_body(const struct time_w *x)
{
	if (x->type != SNAPTRACE_REC_DATA)
		return ST_HDR_LONG_BYTES + ALIGN(x->len, ST_REC_ALIGN);
	return st_rec_bytes(x->len);
}

/* The prefix @x needs if its first byte is at @start. */
static u32 time_prefix(const struct time_model *m, const struct time_w *x, u64 start)
{
	u64 d = x->ts - m->t;

	if (start / TIME_FRAME != m->frame || d >= BIT_ULL(TIME_X_BITS))
		return TIME_ABS;
	return d >= BIT_ULL(TIME_D_BITS) ? TIME_EXT : 0;
}

/*
 * The offset of @p in the model's ring: its size is a power of two, so a
 * mask, and no 64-bit division on 32-bit kernels.
 */
static u64 time_off(const struct time_model *m, u64 p)
{
	return p & (m->size - 1);
}

/* Places @x: returns where its first byte goes, *@bytes its size. */
static u64 time_model_add(struct time_model *m, const struct time_w *x, u32 *bytes)
{
	u64 from = m->pos, start = from, owned;
	u32 total = time_prefix(m, x, start) + time_body(x);

	if (time_off(m, start) + total > m->size) {
		start += m->size - time_off(m, start);	/* padding */
		total = time_prefix(m, x, start) + time_body(x);
	}
	owned = (start + total - 1) / TIME_FRAME;
	if (!from || (from - 1) / TIME_FRAME != owned) {
		/* The owner of frame @owned: its anchor is x->ts. */
		if (start / TIME_FRAME == owned)
			total = time_body(x);
		m->frame = owned;
		m->t = x->ts;
	}
	m->pos = start + total;
	if (bytes)
		*bytes = total;
	return start;
}

/* Appends @x to the plan @w (*@n records) and to the model. */
static void time_plan(struct time_model *m, struct time_w *w, u32 *n,
		      u64 ts, u16 len, u16 type)
{
	if (WARN_ON(*n >= TIME_MAXW))
		return;
	w[*n] = (struct time_w){ .ts = ts, .len = len, .type = type };
	time_model_add(m, &w[*n], NULL);
	(*n)++;
}

/*
 * Appends DATA records, each 1 ns after the one before, until the model's
 * next record starts at @target, in the same lap: the last of them ends
 * exactly there (the compact format's sizes are multiples of ST_REC_ALIGN,
 * as @target must be). @target must be at least 200 bytes ahead.
 */
static void time_plan_fill(struct kunit *test, struct time_model *m,
			   struct time_w *w, u32 *n, u64 target)
{
	KUNIT_ASSERT_GE(test, *n, 1);
	KUNIT_ASSERT_GE(test, target, m->pos + 200);
	KUNIT_ASSERT_EQ(test, target % ST_REC_ALIGN, 0);
	KUNIT_ASSERT_LE(test, target, m->pos - time_off(m, m->pos) + m->size);
	while (m->pos < target && *n < TIME_MAXW) {
		struct time_w x = { .ts = w[*n - 1].ts + 1, .type = SNAPTRACE_REC_DATA };
		u64 left = target - m->pos;
		u32 body;

		if (left > 400) {
			x.len = 64;
		} else {
			x.len = 4;	/* for its prefix */
			body = left - time_prefix(m, &x, m->pos);
			/*
			 * The short header up to its largest payload, else
			 * LONG, of an odd length (none in the 8-byte layout)
			 */
			x.len = body <= ST_HDR_BYTES + ST_SHORT_MAX ?
				body - ST_HDR_BYTES : body - ST_HDR_LONG_BYTES - 1;
		}
		time_plan(m, w, n, x.ts, x.len, x.type);
	}
	KUNIT_ASSERT_EQ(test, m->pos, target);
}

/* ---- 1: back-to-back records ---- */

/*
 * Records 0, 1 and a few ns apart, of every size class (1..2048 bytes,
 * lengths not a multiple of 4, DATA and other types), come back with
 * their exact times: through the iterator (of the CPU and of all), the
 * consuming reads, in live and in the snapshot.
 */
static void time_back_to_back_exact(struct kunit *test)
{
	static const u64 deltas[] = { 0, 1, 0, 0, 2, 1, 3, 0, 7, 1, 100, 0, 1 };
	static const u16 lens[] = { 4, 8, 1, 12, 20, 3, 64, 100, 108, 112, 5,
				    SNAPTRACE_MAX_PAYLOAD, 2047, 40 };
	struct snaptrace_buffer *buf = time_buf(test, 4 * SNAPTRACE_MIN_SIZE,
						SNAPTRACE_OVERWRITE, true);
	struct time_w *w = time_w_new(test);
	int cpu = st_cpu();
	const u32 n = 40;
	u64 ts = TIME_T0;
	u32 i;

	for (i = 0; i < 2 * n; i++) {
		ts += deltas[i % ARRAY_SIZE(deltas)];
		w[i].ts = ts;
		w[i].len = lens[i % ARRAY_SIZE(lens)];
		w[i].type = i % 9 == 4 ? SNAPTRACE_REC_MARKER :
			    i % 11 == 6 ? SNAPTRACE_REC_TEXT : SNAPTRACE_REC_DATA;
	}
	st_clock_install(test, 0);

	time_write(test, buf, cpu, w, 0, n);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, 0, n);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER_ALL, w, 0, n);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	time_expect_all_ways(test, buf, SNAPTRACE_SNAPSHOT, cpu, w, 0, n, TIME_CONSUME);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, n, n);

	time_write(test, buf, cpu, w, n, n);
	time_expect_all_ways(test, buf, SNAPTRACE_LIVE, cpu, w, n, 2 * n, TIME_CONSUME_ALL);
}

/* ---- 2: deltas that overflow a header, and jumps of the size of a u64 ---- */

static const u64 time_start_cases[] = {
	1,
	U64_MAX / 2,
	U64_MAX - BIT_ULL(56),	/* the deltas wrap past U64_MAX */
};

static void time_start_desc(const u64 *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "from %llu", *t);
}

KUNIT_ARRAY_PARAM(time_start, time_start_cases, time_start_desc);

/*
 * Consecutive records 2^27 - 1, 2^27, 2^27 + 1, 2^54 - 1, 2^54, 2^54 + 1
 * ns apart (and back-to-back between them), over several 8 KiB frames of
 * a ring that holds them all; then jumps of a u64's size: to U64_MAX / 2
 * and on, back down by 2^63, to U64_MAX, and past it (wrapping to small
 * times). Every time exact, by every reader, live and snapshot.
 */
static void time_across_delta_overflow(struct kunit *test)
{
	static const u64 deltas[] = {
		BIT_ULL(TIME_D_BITS) - 1, BIT_ULL(TIME_D_BITS), BIT_ULL(TIME_D_BITS) + 1,
		0, 1,
		BIT_ULL(TIME_X_BITS) - 1, BIT_ULL(TIME_X_BITS), BIT_ULL(TIME_X_BITS) + 1,
		2, BIT_ULL(TIME_D_BITS) - 1, 0,
		2 * BIT_ULL(TIME_D_BITS) + 3, BIT_ULL(32) - 1, BIT_ULL(32),
		BIT_ULL(TIME_X_BITS) - BIT_ULL(TIME_D_BITS), 3,
	};
	static const u64 jumps[] = {
		U64_MAX / 2, U64_MAX / 4, BIT_ULL(63), 5, U64_MAX - 6, 1,
		BIT_ULL(TIME_X_BITS) + 1, U64_MAX, 0, 12345,
	};
	struct snaptrace_buffer *buf = time_buf(test, 8 * SNAPTRACE_MIN_SIZE,
						SNAPTRACE_OVERWRITE, true);
	const u64 *start = test->param_value;
	struct time_w *w = time_w_new(test);
	int cpu = st_cpu();
	u32 i, n = 0;
	u64 ts = *start;

	/* About 40 KiB in today's format: it holds them all, over 4 frames. */
	for (i = 0; i < 320; i++, n++) {
		if (i)
			ts += deltas[i % ARRAY_SIZE(deltas)];
		w[n].ts = ts;
		w[n].len = i % 37 == 36 ? SNAPTRACE_MAX_PAYLOAD : 4 + (i * 12) % 108;
		w[n].type = SNAPTRACE_REC_DATA;
	}
	for (i = 0; i < ARRAY_SIZE(jumps); i++, n++) {
		ts += jumps[i];
		w[n].ts = ts;
		w[n].len = 8 + 4 * i;
		w[n].type = SNAPTRACE_REC_DATA;
	}
	st_clock_install(test, 0);

	time_write(test, buf, cpu, w, 0, n);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, 0, n);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	time_expect_read(test, buf, SNAPTRACE_SNAPSHOT, cpu, TIME_ITER, w, 0, n);
	time_expect_read(test, buf, SNAPTRACE_SNAPSHOT, cpu, TIME_CONSUME, w, 0, n);
	time_write(test, buf, cpu, w, 0, n);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_CONSUME, w, 0, n);
}

/* ---- a nested writer, from the hook ---- */

struct time_hook {
	struct snaptrace_buffer *buf;
	enum snaptrace_test_step step;
	int cpu;
	bool fired;
	/* Records it writes, each at its time; then the clock is set back. */
	const struct time_w *w;
	u32 first;
	u32 n;
	u32 ok;
	u8 *scratch;
};

static struct time_hook *time_hook_cur;

static void time_hook_fn(struct snaptrace_buffer *buf,
			 enum snaptrace_test_step step, int cpu)
{
	struct time_hook *h = READ_ONCE(time_hook_cur);
	u64 now;
	u32 i;

	/* Its own writes call it again: fired is set by then. */
	if (!h || buf != h->buf || step != h->step || cpu != h->cpu || h->fired)
		return;
	h->fired = true;
	now = st_clock_get();
	for (i = 0; i < h->n; i++)
		if (!time_put(buf, h->w, h->first + i, h->scratch))
			h->ok++;
	st_clock_set(now);
}

static void time_hook_clear(void *unused)
{
	WRITE_ONCE(time_hook_cur, NULL);
}

/* Arms @h (records @first.. of @w at @step of @cpu's writers of @buf). */
static struct time_hook *time_hook_arm(struct kunit *test, struct snaptrace_buffer *buf,
				       enum snaptrace_test_step step, int cpu,
				       const struct time_w *w, u32 first, u32 n)
{
	struct time_hook *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->scratch = kunit_kzalloc(test, SNAPTRACE_MAX_PAYLOAD, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h->scratch);
	h->buf = buf;
	h->step = step;
	h->cpu = cpu;
	h->w = w;
	h->first = first;
	h->n = n;
	st_hook_install(test, time_hook_fn);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, time_hook_clear, NULL), 0);
	WRITE_ONCE(time_hook_cur, h);
	return h;
}

static const char *const time_step_name[] = {
	[ST_STEP_WRITE_LOOKUP] = "LOOKUP",
	[ST_STEP_WRITE_RESERVE] = "RESERVE",
	[ST_STEP_WRITE_RESERVED] = "RESERVED",
	[ST_STEP_WRITE_PUSHED] = "PUSHED",
	[ST_STEP_WRITE_COMMIT] = "COMMIT",
	[ST_STEP_CONSUME] = "CONSUME",
	[ST_STEP_WRITE_ANCHOR] = "ANCHOR",
};

/* ---- 3: time going backwards ---- */

enum time_where {
	TIME_FRESH,		/* the ring's first records */
	TIME_MID,		/* after others in the same 8 KiB frame */
	TIME_FRAME_START,	/* the first of a frame (compact format) */
};

static const char *const time_where_name[] = {
	[TIME_FRESH] = "fresh ring",
	[TIME_MID] = "mid-frame",
	[TIME_FRAME_START] = "frame start",
};

struct time_back_case {
	enum time_where where;
	u64 later;
};

static const struct time_back_case time_back_cases[] = {
	{ TIME_FRESH, 1 },
	{ TIME_FRESH, BIT_ULL(TIME_D_BITS) },
	{ TIME_FRESH, BIT_ULL(TIME_X_BITS) + 1 },
	{ TIME_MID, 1 },
	{ TIME_MID, BIT_ULL(TIME_D_BITS) },
	{ TIME_MID, BIT_ULL(TIME_X_BITS) + 1 },
	{ TIME_FRAME_START, 1 },
	{ TIME_FRAME_START, BIT_ULL(TIME_D_BITS) },
	{ TIME_FRAME_START, BIT_ULL(TIME_X_BITS) + 1 },
};

static void time_back_desc(const struct time_back_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, nested %llu ns later",
		 time_where_name[c->where], c->later);
}

KUNIT_ARRAY_PARAM(time_back, time_back_cases, time_back_desc);

/*
 * A writer reads its clock (time T), and before its reservation takes
 * effect (the hook at WRITE_RESERVE) a nested writer writes a record of a
 * later time: the nested record lands first, the outer one after it with
 * the earlier time T (its retry reads the clock again: T still), and a
 * record after both at T + 1. All exact: the ring's first records, after
 * others in the same frame, or (planned with the compact model) the first
 * records of the ring's second 8 KiB frame.
 */
static void time_backwards_in_nested_writer(struct kunit *test)
{
	const struct time_back_case *c = test->param_value;
	struct snaptrace_buffer *buf = time_buf(test, 2 * SNAPTRACE_MIN_SIZE,
						SNAPTRACE_OVERWRITE, true);
	struct time_w *w = time_w_new(test);
	struct time_model m;
	struct time_hook *h;
	int cpu = st_cpu();
	u32 n = 0, p;
	u64 t;

	time_model_init(&m, 2 * SNAPTRACE_MIN_SIZE);
	if (c->where != TIME_FRESH) {
		time_plan(&m, w, &n, TIME_T0, 40, SNAPTRACE_REC_DATA);
		time_plan(&m, w, &n, TIME_T0 + 1, 8, SNAPTRACE_REC_DATA);
	}
	if (c->where == TIME_FRAME_START)
		time_plan_fill(test, &m, w, &n, TIME_FRAME);
	p = n;
	t = n ? w[n - 1].ts + 1 : TIME_T0;
	/* In ring order: the nested record (p), the outer one (p + 1), one more. */
	w[p] = (struct time_w){ .ts = t + c->later, .len = 24, .type = SNAPTRACE_REC_DATA };
	w[p + 1] = (struct time_w){ .ts = t, .len = 32, .type = SNAPTRACE_REC_DATA };
	w[p + 2] = (struct time_w){ .ts = t + 1, .len = 16, .type = SNAPTRACE_REC_DATA };
	n = p + 3;
	st_clock_install(test, 0);

	if (p)
		time_write(test, buf, cpu, w, 0, p);
	h = time_hook_arm(test, buf, ST_STEP_WRITE_RESERVE, cpu, w, p, 1);
	time_write(test, buf, cpu, w, p + 1, 1);
	KUNIT_EXPECT_TRUE_MSG(test, h->fired, "the hook never ran");
	KUNIT_EXPECT_EQ(test, h->ok, 1);
	time_write(test, buf, cpu, w, p + 2, 1);

	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, 0, n);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER_ALL, w, 0, n);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	time_expect_all_ways(test, buf, SNAPTRACE_SNAPSHOT, cpu, w, 0, n, TIME_CONSUME);
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
}

/* ---- 4: a nested writer at each writer step ---- */

struct time_nest_case {
	enum snaptrace_test_step step;
	bool full;	/* overwrite mode, ring full: each record pushes tail */
	u64 off;	/* the nested record's time: the outer one's + off (mod 2^64) */
};

/* Nested records 2^27 + 1 ns later, and 2^54 + 1 ns earlier (mod 2^64). */
#define TIME_NEST_LATE	(BIT_ULL(TIME_D_BITS) + 1)
#define TIME_NEST_EARLY	(-(BIT_ULL(TIME_X_BITS) + 1))
/* The times of the records before the outer one: far from 0. */
#define TIME_NEST_T0	BIT_ULL(60)

static const struct time_nest_case time_nest_cases[] = {
	{ ST_STEP_WRITE_LOOKUP, false, 1 },
	{ ST_STEP_WRITE_LOOKUP, false, (u64)-1 },
	{ ST_STEP_WRITE_LOOKUP, false, TIME_NEST_LATE },
	{ ST_STEP_WRITE_LOOKUP, false, TIME_NEST_EARLY },
	{ ST_STEP_WRITE_RESERVE, false, 1 },
	{ ST_STEP_WRITE_RESERVE, false, (u64)-1 },
	{ ST_STEP_WRITE_RESERVE, false, TIME_NEST_LATE },
	{ ST_STEP_WRITE_RESERVE, false, TIME_NEST_EARLY },
	{ ST_STEP_WRITE_RESERVED, false, 1 },
	{ ST_STEP_WRITE_RESERVED, false, (u64)-1 },
	{ ST_STEP_WRITE_RESERVED, false, TIME_NEST_LATE },
	{ ST_STEP_WRITE_RESERVED, false, TIME_NEST_EARLY },
	{ ST_STEP_WRITE_COMMIT, false, 1 },
	{ ST_STEP_WRITE_COMMIT, false, (u64)-1 },
	{ ST_STEP_WRITE_COMMIT, false, TIME_NEST_LATE },
	{ ST_STEP_WRITE_COMMIT, false, TIME_NEST_EARLY },
	{ ST_STEP_WRITE_LOOKUP, true, 1 },
	{ ST_STEP_WRITE_LOOKUP, true, (u64)-1 },
	{ ST_STEP_WRITE_LOOKUP, true, TIME_NEST_LATE },
	{ ST_STEP_WRITE_LOOKUP, true, TIME_NEST_EARLY },
	{ ST_STEP_WRITE_RESERVE, true, 1 },
	{ ST_STEP_WRITE_RESERVE, true, (u64)-1 },
	{ ST_STEP_WRITE_RESERVE, true, TIME_NEST_LATE },
	{ ST_STEP_WRITE_RESERVE, true, TIME_NEST_EARLY },
	{ ST_STEP_WRITE_RESERVED, true, 1 },
	{ ST_STEP_WRITE_RESERVED, true, (u64)-1 },
	{ ST_STEP_WRITE_RESERVED, true, TIME_NEST_LATE },
	{ ST_STEP_WRITE_RESERVED, true, TIME_NEST_EARLY },
	{ ST_STEP_WRITE_PUSHED, true, 1 },
	{ ST_STEP_WRITE_PUSHED, true, (u64)-1 },
	{ ST_STEP_WRITE_PUSHED, true, TIME_NEST_LATE },
	{ ST_STEP_WRITE_PUSHED, true, TIME_NEST_EARLY },
	{ ST_STEP_WRITE_COMMIT, true, 1 },
	{ ST_STEP_WRITE_COMMIT, true, (u64)-1 },
	{ ST_STEP_WRITE_COMMIT, true, TIME_NEST_LATE },
	{ ST_STEP_WRITE_COMMIT, true, TIME_NEST_EARLY },
};

static void time_nest_desc(const struct time_nest_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, %s, nested at %+lld ns",
		 time_step_name[c->step], c->full ? "full ring" : "fresh ring",
		 (s64)c->off);
}

KUNIT_ARRAY_PARAM(time_nest, time_nest_cases, time_nest_desc);

/*
 * A nested writer at each writer step writes a record whose time is the
 * outer record's + 1 ns, - 1 ns, + 2^27 + 1 ns or - (2^54 + 1) ns (the
 * clock set back to the outer one's time after it). It comes before the
 * outer record when it ran before the outer reservation took effect
 * (LOOKUP, RESERVE), after it otherwise; a record after both follows. In
 * a fresh ring and in a full one (overwrite mode, two laps and more
 * written: PUSHED). Every time exact, live and in the snapshot.
 */
static void time_nested_writer_at_each_step(struct kunit *test)
{
	const struct time_nest_case *c = test->param_value;
	const size_t size = SNAPTRACE_MIN_SIZE;
	struct snaptrace_buffer *buf = time_buf(test, size, SNAPTRACE_OVERWRITE, true);
	bool before = c->step == ST_STEP_WRITE_LOOKUP || c->step == ST_STEP_WRITE_RESERVE;
	struct time_w *w = time_w_new(test);
	u32 i, p, outer, nested, first;
	struct snaptrace_stats st;
	struct time_hook *h;
	int cpu = st_cpu();
	u64 t;

	/* Two laps and more of 48-byte payloads in any format of 4-byte headers or more. */
	p = c->full ? 2 * size / 52 + 7 : 3;
	for (i = 0; i < p; i++)
		w[i] = (struct time_w){ .ts = TIME_NEST_T0 + 3 * i, .len = 48,
					.type = SNAPTRACE_REC_DATA };
	t = w[p - 1].ts + 5;
	outer = before ? p + 1 : p;
	nested = before ? p : p + 1;
	w[outer] = (struct time_w){ .ts = t, .len = 36, .type = SNAPTRACE_REC_DATA };
	w[nested] = (struct time_w){ .ts = t + c->off, .len = 20, .type = SNAPTRACE_REC_DATA };
	w[p + 2] = (struct time_w){ .ts = t + 2, .len = 28, .type = SNAPTRACE_REC_DATA };
	st_clock_install(test, 0);

	time_write(test, buf, cpu, w, 0, p);
	h = time_hook_arm(test, buf, c->step, cpu, w, nested, 1);
	time_write(test, buf, cpu, w, outer, 1);
	KUNIT_EXPECT_TRUE_MSG(test, h->fired, "the hook never ran at %s",
			      time_step_name[c->step]);
	KUNIT_EXPECT_EQ(test, h->ok, 1);
	time_write(test, buf, cpu, w, p + 2, 1);

	first = time_expect_suffix(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, p + 3);
	if (c->full)
		KUNIT_EXPECT_GT(test, first, 0);
	else
		KUNIT_EXPECT_EQ(test, first, 0);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, p + 3);
	KUNIT_EXPECT_EQ(test, st.entries, p + 3 - first);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_EXPECT_EQ(test, time_expect_suffix(test, buf, SNAPTRACE_SNAPSHOT, cpu,
						 TIME_ITER_ALL, w, p + 3), first);
	KUNIT_EXPECT_EQ(test, time_expect_suffix(test, buf, SNAPTRACE_SNAPSHOT, cpu,
						 TIME_CONSUME, w, p + 3), first);
}

/* ---- 4b: a nested writer in the window of a frame's owner ---- */

struct time_owner_case {
	bool second;	/* the owner of the ring's second frame, not its first */
	u64 off;	/* the nested records' times: the owner's + off (mod 2^64) */
};

static const struct time_owner_case time_owner_cases[] = {
	{ false, 1 }, { false, (u64)-1 }, { false, TIME_NEST_LATE },
	{ true, 1 }, { true, (u64)-1 }, { true, TIME_NEST_LATE },
};

static void time_owner_desc(const struct time_owner_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "owner of frame %d, nested at %+lld ns",
		 c->second, (s64)c->off);
}

KUNIT_ARRAY_PARAM(time_owner, time_owner_cases, time_owner_desc);

/*
 * Format: compact records. The writer whose reservation covers a frame's
 * first byte (its owner) is interrupted after its reservation, before it
 * installs the frame's anchor (ST_STEP_WRITE_ANCHOR): two nested records of
 * that frame find no anchor, and carry their whole time (ABS, 12 bytes
 * more each; 16 in the 8-byte layout), whatever their times; the owner's record (delta 0 from its
 * own anchor) and one after all three (from the anchor) take none. Every
 * time exact, and the bytes exactly those, live and in the snapshot.
 */
static void time_nested_in_owner_window(struct kunit *test)
{
	const struct time_owner_case *c = test->param_value;
	const size_t size = 2 * SNAPTRACE_MIN_SIZE;
	struct snaptrace_buffer *buf = time_buf(test, size, SNAPTRACE_OVERWRITE, true);
	struct time_w *w = time_w_new(test);
	struct snaptrace_stats st;
	struct time_model m;
	struct time_hook *h;
	int cpu = st_cpu();
	u32 n = 0, p;
	u64 t, bytes;

	time_model_init(&m, size);
	if (c->second) {
		time_plan(&m, w, &n, TIME_T0, 40, SNAPTRACE_REC_DATA);
		time_plan_fill(test, &m, w, &n, TIME_FRAME);
	}
	bytes = m.pos;
	p = n;
	t = n ? w[n - 1].ts + 1 : TIME_T0;
	/* In ring order: the owner (p), the two nested records, one more. */
	w[p] = (struct time_w){ .ts = t, .len = 32, .type = SNAPTRACE_REC_DATA };
	w[p + 1] = (struct time_w){ .ts = t + c->off, .len = 24, .type = SNAPTRACE_REC_DATA };
	w[p + 2] = (struct time_w){ .ts = t + c->off + 1, .len = 10, .type = SNAPTRACE_REC_DATA };
	w[p + 3] = (struct time_w){ .ts = t + 2, .len = 16, .type = SNAPTRACE_REC_DATA };
	n = p + 4;
	/* 4 + 32 + (12 + 4 + 24) + (12 + 8 + 12) + 4 + 16 in the 4-byte layout */
	bytes += st_rec_bytes(32) + (ST_ABS_BYTES + st_rec_bytes(24)) +
		 (ST_ABS_BYTES + st_rec_bytes(10)) + st_rec_bytes(16);
	st_clock_install(test, 0);

	if (p)
		time_write(test, buf, cpu, w, 0, p);
	h = time_hook_arm(test, buf, ST_STEP_WRITE_ANCHOR, cpu, w, p + 1, 2);
	time_write(test, buf, cpu, w, p, 1);
	KUNIT_EXPECT_TRUE_MSG(test, h->fired, "the owner's window never came");
	KUNIT_EXPECT_EQ(test, h->ok, 2);
	time_write(test, buf, cpu, w, p + 3, 1);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.bytes, bytes);
	KUNIT_EXPECT_EQ(test, st.entries, n);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, 0, n);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	time_expect_all_ways(test, buf, SNAPTRACE_SNAPSHOT, cpu, w, 0, n, TIME_CONSUME);
}

/* ---- 5: wraps at the ring's end ---- */

/*
 * Plans laps of the smallest ring so that, in the compact format: the
 * largest record (2048 bytes, LONG header, ABS prefix: 2068 bytes, 2072
 * in the 8-byte layout) ends exactly at the ring's end; padding comes
 * before a record that would need an absolute time (its ABS prefix would
 * straddle the end; at the next lap's start it owns the frame and needs
 * none); a record with an EXT prefix ends exactly there; the smallest
 * padding (4 bytes; 8 in the 8-byte layout); padding before a record that
 * a jump of more than 2^54 ns gives an ABS prefix; a record with a DATA
 * header (the short one, but in the 8-byte layout) ends exactly there.
 * Returns the number of records.
 */
static u32 time_plan_laps(struct kunit *test, struct time_w *w, u64 size)
{
	struct time_model m;
	u32 n = 0;
	u64 lap;

	time_model_init(&m, size);
	time_plan(&m, w, &n, TIME_T0, 32, SNAPTRACE_REC_DATA);
	/* Lap 1: the largest record, ABS by a jump, ends at the end. */
	time_plan_fill(test, &m, w, &n, size - TIME_REC_MAX);
	time_plan(&m, w, &n, w[n - 1].ts + BIT_ULL(TIME_X_BITS) + 1,
		  SNAPTRACE_MAX_PAYLOAD, SNAPTRACE_REC_DATA);
	KUNIT_ASSERT_EQ(test, m.pos, size);
	/*
	 * Lap 2: 8 bytes left, a record that would need ABS (2^40 ns back):
	 * padding; at the next lap's start it owns the frame, delta 0.
	 */
	lap = size;
	time_plan(&m, w, &n, w[n - 1].ts + 1, 8, SNAPTRACE_REC_DATA);
	time_plan_fill(test, &m, w, &n, lap + size - 8);
	time_plan(&m, w, &n, w[n - 1].ts - BIT_ULL(40), 4, SNAPTRACE_REC_DATA);
	KUNIT_ASSERT_EQ(test, m.pos, 2 * size + st_rec_bytes(4));
	/* Lap 3: an EXT record (2^27 ns after the frame's anchor) ends at the end. */
	lap += size;
	time_plan(&m, w, &n, w[n - 1].ts + 1, 8, SNAPTRACE_REC_DATA);
	time_plan_fill(test, &m, w, &n, lap + size - (ST_EXT_BYTES + st_rec_bytes(4)));
	time_plan(&m, w, &n, m.t + BIT_ULL(TIME_D_BITS) + 5, 4, SNAPTRACE_REC_DATA);
	KUNIT_ASSERT_EQ(test, m.pos, 3 * size);
	/* Lap 4: the smallest padding (4 bytes, or 8). */
	lap += size;
	time_plan(&m, w, &n, w[n - 1].ts + 1, 8, SNAPTRACE_REC_DATA);
	time_plan_fill(test, &m, w, &n, lap + size - ST_REC_ALIGN);
	time_plan(&m, w, &n, w[n - 1].ts + 1, 8, SNAPTRACE_REC_DATA);
	/*
	 * Lap 5: 16 bytes left, a record of 24 bytes with ABS (a jump; 32 in
	 * the 8-byte layout): padding; then 12 (or 16).
	 */
	lap += size;
	time_plan_fill(test, &m, w, &n, lap + size - 16);
	time_plan(&m, w, &n, w[n - 1].ts + BIT_ULL(TIME_X_BITS) + 7, 8, SNAPTRACE_REC_DATA);
	KUNIT_ASSERT_EQ(test, m.pos, 5 * size + st_rec_bytes(8));
	/* Lap 6: a DATA record of 108 bytes ends at the end; a few more. */
	lap += size;
	time_plan_fill(test, &m, w, &n, lap + size - st_rec_bytes(108));
	time_plan(&m, w, &n, w[n - 1].ts + 1, 108, SNAPTRACE_REC_DATA);
	KUNIT_ASSERT_EQ(test, m.pos, 6 * size);
	time_plan(&m, w, &n, w[n - 1].ts + 1, 8, SNAPTRACE_REC_DATA);
	time_plan(&m, w, &n, w[n - 1].ts + 1, 2000, SNAPTRACE_REC_DATA);
	time_plan(&m, w, &n, w[n - 1].ts + 1, 12, SNAPTRACE_REC_DATA);
	return n;
}

/*
 * The smallest ring, overwrite mode, six laps planned as above. An
 * iterator follows the writer and finds each record, exact, right after
 * it was written: that gives every record's position. At the end, in
 * live and then in the snapshot, the records found are the last ones
 * written, each exact; and they are exactly those that fit in the ring's
 * last size bytes: the first of them is the first record whose position
 * is at or above end - size, where end (the position after the last
 * record) is found by consuming records up to one that is not followed by
 * padding (its successor's position is not a multiple of the size), after
 * which the stats' bytes say how far end is from it. overrun counts every
 * record before it.
 */
static void time_wraps_at_ring_end(struct kunit *test)
{
	const u64 size = SNAPTRACE_MIN_SIZE;
	struct snaptrace_buffer *buf = time_buf(test, size, SNAPTRACE_OVERWRITE, true);
	struct snaptrace_record *rec = st_rec_new(test);
	struct time_w *w = time_w_new(test);
	struct snaptrace_stats st;
	struct time_wr a = {};
	u32 n, f, j, k;
	int cpu = st_cpu();
	u64 end;

	n = time_plan_laps(test, w, size);
	a.pos = kunit_kcalloc(test, n, sizeof(*a.pos), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a.pos);
	st_clock_install(test, 0);

	a.buf = buf;
	a.w = w;
	a.n = n;
	a.cpu = cpu;
	a.follow = snaptrace_iter_start(buf, SNAPTRACE_LIVE, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a.follow);
	time_wr_run(test, &a);
	snaptrace_iter_stop(a.follow);
	KUNIT_EXPECT_EQ(test, a.ok, n);
	KUNIT_ASSERT_EQ_MSG(test, a.follow_bad, 0,
			    "records not found as written right after, the first %u",
			    a.follow_first_bad);
	for (k = 1; k < n; k++)
		KUNIT_ASSERT_GT_MSG(test, a.pos[k], a.pos[k - 1], "record %u", k);
	KUNIT_ASSERT_GE(test, a.pos[n - 1], 5 * size);

	f = time_expect_suffix(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, n);
	KUNIT_ASSERT_LT(test, f, n);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, n);
	KUNIT_EXPECT_EQ(test, st.entries, n - f);
	KUNIT_EXPECT_EQ(test, st.overrun, f);
	KUNIT_EXPECT_EQ(test, st.oldest_ts, w[f].ts);

	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_EXPECT_EQ(test, time_expect_suffix(test, buf, SNAPTRACE_SNAPSHOT, cpu,
						 TIME_ITER_ALL, w, n), f);
	st = st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, n - f);
	KUNIT_EXPECT_EQ(test, st.overrun, f);

	/* Consume up to a record not followed by padding: then end = its successor + bytes. */
	for (j = f; j + 1 < n; j++) {
		KUNIT_ASSERT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, cpu, rec), 0);
		KUNIT_ASSERT_TRUE(test, time_expect_rec(test, rec, w, j, cpu, "consume"));
		KUNIT_ASSERT_EQ(test, rec->pos, a.pos[j]);
		if (a.pos[j + 1] % size)
			break;
	}
	KUNIT_ASSERT_LT(test, j + 1, n);
	st = st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu);
	end = a.pos[j + 1] + st.bytes;
	KUNIT_EXPECT_GE(test, end, a.pos[n - 1] + 1);
	KUNIT_EXPECT_LE(test, end, a.pos[n - 1] + TIME_REC_MAX);
	for (k = 0; k < n && a.pos[k] < end - size; k++)
		;
	KUNIT_EXPECT_EQ_MSG(test, f, k, "survivors from record %u, end %llu: want from %u",
			    f, end, k);
	KUNIT_EXPECT_EQ(test, st.read, j - f + 1);
	KUNIT_EXPECT_EQ(test, st.overrun, f);
	time_expect_read(test, buf, SNAPTRACE_SNAPSHOT, cpu, TIME_CONSUME, w, j + 1, n);
}

/* ---- 6: after a snapshot, a clear, a reset and a resize ---- */

/*
 * The first records after each change that empties a half come back with
 * their exact times, whatever the times before: a snapshot (twice), a
 * clear of the snapshot, a reset, a resize up and one down. The times go
 * far forward and far back from one change to the next, so that an anchor
 * or a previous time kept across the change would show.
 */
static void time_after_snapshot_clear_reset_resize(struct kunit *test)
{
	static const struct {
		u64 ts;
		u32 n;
	} groups[] = {
		{ TIME_T0, 5 },			/* 0: before the first snapshot */
		{ TIME_T0 + BIT_ULL(40), 3 },	/* 1: after it */
		{ 7000, 3 },			/* 2: after a second snapshot */
		{ BIT_ULL(60), 2 },		/* 3: after clear_snapshot() */
		{ BIT_ULL(60) - BIT_ULL(50), 2 },	/* 4: after reset() */
		{ 3, 3 },			/* 5: after a resize up */
		{ U64_MAX - 10, 3 },		/* 6: after a resize down */
	};
	struct snaptrace_buffer *buf = time_buf(test, 2 * SNAPTRACE_MIN_SIZE,
						SNAPTRACE_OVERWRITE, true);
	struct time_w *w = time_w_new(test);
	u32 g, i, n = 0, s[ARRAY_SIZE(groups) + 1];
	int cpu = st_cpu();

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		s[g] = n;
		for (i = 0; i < groups[g].n; i++, n++)
			w[n] = (struct time_w){ .ts = groups[g].ts + i, .len = 16 + 8 * i,
						.type = SNAPTRACE_REC_DATA };
	}
	s[g] = n;
	st_clock_install(test, 0);

	time_write(test, buf, cpu, w, s[0], s[1] - s[0]);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	time_write(test, buf, cpu, w, s[1], s[2] - s[1]);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, s[1], s[2]);
	time_expect_read(test, buf, SNAPTRACE_SNAPSHOT, cpu, TIME_ITER, w, s[0], s[1]);

	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	time_write(test, buf, cpu, w, s[2], s[3] - s[2]);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER_ALL, w, s[2], s[3]);
	time_expect_read(test, buf, SNAPTRACE_SNAPSHOT, cpu, TIME_ITER, w, s[1], s[2]);

	KUNIT_ASSERT_EQ(test, snaptrace_clear_snapshot(buf), 0);
	time_expect_read(test, buf, SNAPTRACE_SNAPSHOT, cpu, TIME_ITER, w, 0, 0);
	time_write(test, buf, cpu, w, s[3], s[4] - s[3]);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, s[2], s[4]);
	/* The snapshot of those, then the live half consumed. */
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	time_expect_read(test, buf, SNAPTRACE_SNAPSHOT, cpu, TIME_CONSUME, w, s[2], s[4]);

	snaptrace_reset(buf);
	time_write(test, buf, cpu, w, s[4], s[5] - s[4]);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, s[4], s[5]);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_CONSUME, w, s[4], s[5]);

	KUNIT_ASSERT_EQ(test, snaptrace_resize(buf, 4 * SNAPTRACE_MIN_SIZE), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_size_per_cpu(buf), 4 * SNAPTRACE_MIN_SIZE);
	time_write(test, buf, cpu, w, s[5], s[6] - s[5]);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, s[5], s[6]);

	KUNIT_ASSERT_EQ(test, snaptrace_resize(buf, SNAPTRACE_MIN_SIZE), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_size_per_cpu(buf), SNAPTRACE_MIN_SIZE);
	time_write(test, buf, cpu, w, s[6], s[7] - s[6]);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER_ALL, w, s[6], s[7]);
	if (snaptrace_snapshot_is_allocated(buf)) {
		KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
		time_expect_read(test, buf, SNAPTRACE_SNAPSHOT, cpu, TIME_CONSUME, w,
				 s[6], s[7]);
	}
}

/* ---- 7: how many records fit (format: compact records) ---- */

struct time_fit_case {
	size_t size;
	u16 len;
	u16 type;
};

/*
 * Format: compact records. These cases count records in the compact
 * format's sizes: they fail on the format of 16-byte headers by design.
 */
static const struct time_fit_case time_fit_cases[] = {
	{ SNAPTRACE_MIN_SIZE, 8, SNAPTRACE_REC_DATA },
	{ SNAPTRACE_MIN_SIZE, 64, SNAPTRACE_REC_DATA },
	{ SNAPTRACE_MIN_SIZE, 100, SNAPTRACE_REC_DATA },
	{ SNAPTRACE_MIN_SIZE, 101, SNAPTRACE_REC_DATA },
	{ SNAPTRACE_MIN_SIZE, 108, SNAPTRACE_REC_DATA },
	{ SNAPTRACE_MIN_SIZE, 112, SNAPTRACE_REC_DATA },
	{ SNAPTRACE_MIN_SIZE, SNAPTRACE_MAX_PAYLOAD, SNAPTRACE_REC_DATA },
	{ SNAPTRACE_MIN_SIZE, 8, SNAPTRACE_REC_MARKER },
	{ SNAPTRACE_MIN_SIZE, 100, SNAPTRACE_REC_MARKER },
	{ 4 * SNAPTRACE_MIN_SIZE, 8, SNAPTRACE_REC_DATA },
	{ 4 * SNAPTRACE_MIN_SIZE, 64, SNAPTRACE_REC_DATA },
	{ 4 * SNAPTRACE_MIN_SIZE, 100, SNAPTRACE_REC_DATA },
	{ 4 * SNAPTRACE_MIN_SIZE, 108, SNAPTRACE_REC_DATA },
	{ 4 * SNAPTRACE_MIN_SIZE, 112, SNAPTRACE_REC_DATA },
	{ 4 * SNAPTRACE_MIN_SIZE, SNAPTRACE_MAX_PAYLOAD, SNAPTRACE_REC_DATA },
	{ 4 * SNAPTRACE_MIN_SIZE, 12, SNAPTRACE_REC_STACK },
};

static void time_fit_desc(const struct time_fit_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%zu-byte ring, %u-byte %s",
		 c->size, c->len, c->type == SNAPTRACE_REC_DATA ? "DATA" : "other type");
}

KUNIT_ARRAY_PARAM(time_fit, time_fit_cases, time_fit_desc);

/*
 * How many records of @c fit in an empty ring in stop-when-full mode, the
 * clock 1 ns further at each: from the format's sizes (time_body(): a
 * 4-byte header for DATA of len % 4 == 0 and len <= 108, else 8, payload
 * rounded up to 4; in the 8-byte layout an 8-byte header, payload rounded
 * up to 8; no prefix, each frame's owner installing its anchor:
 * time_model_add()), the first record that does not fit before the
 * ring's end (it would pad to the end and wrap) is refused.
 */
static u32 time_fit_model(const struct time_fit_case *c, u64 ts0)
{
	struct time_w x = { .len = c->len, .type = c->type };
	struct time_model m;
	u32 n;

	time_model_init(&m, c->size);
	for (n = 0;; n++) {
		x.ts = ts0 + n;
		if (m.pos + time_prefix(&m, &x, m.pos) + time_body(&x) > c->size)
			return n;
		time_model_add(&m, &x, NULL);
	}
}

static void time_buf_free(void *buf)
{
	snaptrace_buffer_free(buf);
}

/*
 * Format: compact records. A buffer of one CPU in stop-when-full mode
 * takes exactly the number of records the compact format's sizes say
 * (time_fit_model()), then refuses the next two, counted as dropped; each
 * record taken is read back with its exact time.
 */
static void time_compact_records_fit(struct kunit *test)
{
	const struct time_fit_case *c = test->param_value;
	u32 want = time_fit_model(c, TIME_T0);
	struct snaptrace_buffer *buf;
	struct snaptrace_stats st;
	struct time_wr a = {};
	struct time_w *w;
	int cpu = st_cpu();
	u32 i;

	KUNIT_ASSERT_LE(test, want + 2, TIME_MAXW);
	w = time_w_new(test);
	for (i = 0; i < want + 2; i++)
		w[i] = (struct time_w){ .ts = TIME_T0 + i, .len = c->len, .type = c->type };
	buf = snaptrace_buffer_alloc_cpu(c->size, SNAPTRACE_STOP_WHEN_FULL, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, time_buf_free, buf), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_size_per_cpu(buf), c->size);
	st_clock_install(test, 0);

	a.buf = buf;
	a.w = w;
	a.n = want + 2;
	a.cpu = cpu;
	time_wr_run(test, &a);
	kunit_info(test, "%u records taken, the format's sizes say %u\n", a.ok, want);
	KUNIT_EXPECT_EQ(test, a.ok, want);
	KUNIT_EXPECT_EQ(test, a.nospc, a.n - a.ok);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, a.ok);
	KUNIT_EXPECT_EQ(test, st.dropped, a.nospc);
	time_expect_read(test, buf, SNAPTRACE_LIVE, cpu, TIME_ITER, w, 0, a.ok);
}

/* ---- 7b: every payload aligned ---- */

/* Payload lengths: around the short header's limit, and the largest ones. */
static const struct {
	u16 from;
	u16 to;
} time_align_lens[] = {
	{ 1, 136 }, { 1017, 1032 }, { SNAPTRACE_MAX_PAYLOAD - 15, SNAPTRACE_MAX_PAYLOAD },
};

struct time_align {
	struct snaptrace_buffer *buf;
	const struct time_w *w;
	u32 n;
	int cpu;
	unsigned long *p;	/* by sequence number: the payload's address */
	bool wrong_cpu;
	u32 refused;
};

/*
 * Reserves each record of @a->w on this CPU with the clock at its time
 * (DATA through snaptrace_reserve(), other types through
 * snaptrace_reserve_on()), notes where its payload is, fills it (a u64
 * store first, where it fits and is aligned) and commits it.
 */
static long time_align_fn(void *data)
{
	struct time_align *a = data;
	struct snaptrace_reservation res;
	const struct time_w *x;
	u8 *p;
	u32 i;

	for (i = 0; i < a->n; i++) {
		x = &a->w[i];
		if (raw_smp_processor_id() != a->cpu)
			a->wrong_cpu = true;
		st_clock_set(x->ts);
		if (x->type == SNAPTRACE_REC_DATA)
			p = snaptrace_reserve(a->buf, x->len, &res);
		else
			p = snaptrace_reserve_on(a->buf, raw_smp_processor_id(),
						 x->type, x->len, &res);
		if (!p) {
			a->refused++;
			continue;
		}
		a->p[i] = (unsigned long)p;
		if (x->len >= sizeof(u64) && IS_ALIGNED(a->p[i], sizeof(u64)))
			WRITE_ONCE(*(u64 *)p, 0);
		time_fill(p, x->len, i);
		snaptrace_commit(a->buf, &res);
	}
	return 0;
}

/*
 * The payload of every reservation is ST_REC_ALIGN-aligned (4 bytes, as
 * ftrace's; 8 in the 8-byte layout, where a caller's u64 store must not
 * trap), for every payload length from 1 to 136 (each residue around the
 * short header's limit, 108), around 1024 and up to SNAPTRACE_MAX_PAYLOAD,
 * DATA and other types, each length with no time prefix, an EXT prefix
 * (2^27 ns after its frame's anchor) and an ABS prefix (before the anchor),
 * over laps of a ring of two frames, so that records follow padding at
 * the ring's end and straddle frames. Each payload lies exactly where the
 * model of the format (struct time_model) puts it, relative to the first;
 * the records left in the ring read back exact.
 */
static void time_payload_aligned(struct kunit *test)
{
	const u64 size = 2 * SNAPTRACE_MIN_SIZE;
	struct snaptrace_buffer *buf = time_buf(test, size, SNAPTRACE_OVERWRITE, false);
	struct time_align a = { .buf = buf, .cpu = st_cpu() };
	struct time_w *w = time_w_new(test);
	u32 n = 0, i, k, pre, total, ext = 0, abs = 0, padded = 0;
	u64 *off, from, start;
	struct time_model m;
	u16 len;

	off = kunit_kcalloc(test, TIME_MAXW, sizeof(*off), GFP_KERNEL);
	a.p = kunit_kcalloc(test, TIME_MAXW, sizeof(*a.p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, off);
	KUNIT_ASSERT_NOT_NULL(test, a.p);
	time_model_init(&m, size);
	m.t = TIME_T0;
	for (i = 0; i < ARRAY_SIZE(time_align_lens); i++) {
		for (len = time_align_lens[i].from; len <= time_align_lens[i].to; len++) {
			for (k = 0; k < 3; k++, n++) {
				struct time_w *x = &w[n];

				KUNIT_ASSERT_LT(test, n, TIME_MAXW);
				/* From the anchor: near; 2^27 ns on (EXT); before it (ABS). */
				x->ts = k == 0 ? m.t + 1 + n :
					k == 1 ? m.t + BIT_ULL(TIME_D_BITS) + n : m.t - 1 - n;
				x->len = len;
				x->type = n % 5 == 4 ? SNAPTRACE_REC_TEXT : SNAPTRACE_REC_DATA;
				from = m.pos;
				start = time_model_add(&m, x, &total);
				pre = total - time_body(x);
				ext += pre == TIME_EXT;
				abs += pre == TIME_ABS;
				padded += start != from;
				/* The payload: after the prefix and the header. */
				off[n] = start % size + total - ALIGN(len, ST_REC_ALIGN);
			}
		}
	}
	kunit_info(test, "%u records: %u with EXT, %u with ABS, %u after padding\n",
		   n, ext, abs, padded);
	/* What the plan must cover, whatever the layout. */
	KUNIT_ASSERT_GE(test, ext, 100);
	KUNIT_ASSERT_GE(test, abs, 100);
	KUNIT_ASSERT_GE(test, padded, 5);
	st_clock_install(test, 0);

	a.w = w;
	a.n = n;
	work_on_cpu(a.cpu, time_align_fn, &a);
	KUNIT_ASSERT_FALSE_MSG(test, a.wrong_cpu, "writer not on cpu %d", a.cpu);
	KUNIT_ASSERT_EQ(test, a.refused, 0);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(a.p[i], ST_REC_ALIGN),
				      "record %u (%u bytes): payload at %#lx", i, w[i].len,
				      a.p[i]);
		if (ST_LAYOUT8)
			KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(a.p[i], sizeof(u64)),
					      "record %u (%u bytes): payload at %#lx", i,
					      w[i].len, a.p[i]);
		KUNIT_EXPECT_EQ_MSG(test, a.p[i] - a.p[0], off[i] - off[0],
				    "record %u (%u bytes)", i, w[i].len);
	}
	time_expect_suffix(test, buf, SNAPTRACE_LIVE, a.cpu, TIME_ITER, w, n);
}

/* ---- 8: torn records ---- */

/* A schedule of records: lengths 4..112 and 2048, times with jumps both ways. */
static struct time_w time_sched(u32 s)
{
	struct time_w x = { .type = SNAPTRACE_REC_DATA };

	x.len = s % 23 == 22 ? SNAPTRACE_MAX_PAYLOAD : 4 + (s * 7) % 109;
	x.ts = TIME_T0 + 3ULL * s + (u64)(s / 5) * (BIT_ULL(TIME_D_BITS) + 1) +
	       (u64)(s / 11) * (BIT_ULL(TIME_X_BITS) + 3);
	if (s % 13 == 12)
		x.ts -= BIT_ULL(40);
	return x;
}

struct time_consume_args {
	struct snaptrace_buffer *buf;
	struct snaptrace_record *rec;
	int cpu;
	int rc;
	bool wrong_cpu;
};

static long time_consume_fn(void *data)
{
	struct time_consume_args *a = data;

	a->rc = snaptrace_consume(a->buf, SNAPTRACE_LIVE, a->cpu, a->rec);
	a->wrong_cpu = raw_smp_processor_id() != a->cpu;
	return 0;
}

/*
 * A consumer copied the oldest record of a full ring (CONSUME, before it
 * removes it) when, on the ring's CPU, three laps of records and more are
 * written (so the anchors of the copy's frames are written again too): it
 * must not return its copy, nor a record with a wrong time, but the oldest
 * record now there, exact; the rest follow, exact, to the last one.
 */
static void time_consume_overwritten_copy(struct kunit *test)
{
	const u64 size = SNAPTRACE_MIN_SIZE;
	struct snaptrace_buffer *buf = time_buf(test, size, SNAPTRACE_OVERWRITE, false);
	struct time_consume_args a = { .buf = buf, .cpu = st_cpu() };
	struct time_w *w = time_w_new(test);
	u32 n1 = 0, n, s, f;
	struct time_hook *h;
	u64 bytes = 0;

	/* Two laps and more, then three laps and more, counting 4 bytes a record. */
	for (n = 0; n < TIME_MAXW; n++) {
		w[n] = time_sched(n);
		bytes += w[n].len + 4;
		if (!n1 && bytes >= 2 * size + 64)
			n1 = n + 1;
		if (n1 && bytes >= 5 * size + 128)
			break;
	}
	KUNIT_ASSERT_LT(test, n, TIME_MAXW);
	n++;
	a.rec = st_rec_new(test);
	st_clock_install(test, 0);

	time_write(test, buf, a.cpu, w, 0, n1);
	f = time_expect_suffix(test, buf, SNAPTRACE_LIVE, a.cpu, TIME_ITER, w, n1);
	KUNIT_ASSERT_GT(test, f, 0);
	KUNIT_ASSERT_LT(test, f, n1);

	h = time_hook_arm(test, buf, ST_STEP_CONSUME, a.cpu, w, n1, n - n1);
	work_on_cpu(a.cpu, time_consume_fn, &a);
	KUNIT_ASSERT_FALSE(test, a.wrong_cpu);
	KUNIT_EXPECT_TRUE_MSG(test, h->fired, "the hook never ran");
	KUNIT_EXPECT_EQ(test, h->ok, n - n1);
	KUNIT_ASSERT_EQ(test, a.rc, 0);
	s = time_seq_of(a.rec);
	KUNIT_ASSERT_LT_MSG(test, s, n, "consumed a record that says %u", s);
	KUNIT_EXPECT_GE_MSG(test, s, n1, "consumed record %u, overwritten", s);
	time_expect_rec(test, a.rec, w, s, a.cpu, "consume");
	/* What is left: the records after it, exactly. */
	time_expect_read(test, buf, SNAPTRACE_LIVE, a.cpu, TIME_ITER, w, s + 1, n);
	time_expect_read(test, buf, SNAPTRACE_LIVE, a.cpu, TIME_CONSUME, w, s + 1, n);
}

/* Records the racing writer writes, and records the reader reads at a time. */
#define TIME_RACE_RECORDS	50000
#define TIME_RACE_BATCH		32

struct time_race {
	struct snaptrace_buffer *buf;
	int wcpu;
	bool done;		/* the writer is done (smp_store_release) */
	struct completion wdone;
	struct completion rdone;
	u32 written;
	u32 failed;
	/* The reader. */
	u64 checked;
	u64 bad;		/* a record with a wrong time, length or payload */
	u64 order;		/* a sequence number not above the one before */
	u64 errors;		/* an unexpected return code */
	u32 max_seen;		/* the highest sequence number consumed */
	u32 first_bad;
	u64 first_bad_ts;
	bool batch;		/* consume with snaptrace_consume_batch() */
};

static int time_race_writer(void *data)
{
	struct time_race *r = data;
	struct time_w x;
	u8 *scratch = kmalloc(SNAPTRACE_MAX_PAYLOAD, GFP_KERNEL);
	u32 s;

	for (s = 0; scratch && s < TIME_RACE_RECORDS; s++) {
		x = time_sched(s);
		/* time_put() for a plan of one record: this one, as seq s. */
		st_clock_set(x.ts);
		time_fill(scratch, x.len, s);
		if (snaptrace_write(r->buf, scratch, x.len))
			r->failed++;
		else
			r->written++;
		if (!(s % 256))
			cond_resched();
	}
	kfree(scratch);
	/* Every record before done (pairs with the reader's acquire). */
	smp_store_release(&r->done, true);
	complete(&r->wdone);
	return 0;
}

/* Checks one record read; @last: the sequence number read before. */
static void time_race_check(struct time_race *r, const struct snaptrace_record *rec,
			    u32 *last)
{
	u32 s = time_seq_of(rec);
	struct time_w x;

	r->checked++;
	if (s >= TIME_RACE_RECORDS) {
		if (!r->bad++)
			r->first_bad = s;
		return;
	}
	x = time_sched(s);
	if (rec->ts != x.ts || rec->len != x.len || rec->type != x.type ||
	    rec->cpu != r->wcpu || !time_payload_ok(rec->data, rec->len, s)) {
		if (!r->bad++) {
			r->first_bad = s;
			r->first_bad_ts = rec->ts;
		}
	}
	if (*last != U32_MAX && s <= *last)
		r->order++;
	*last = s;
}

static int time_race_reader(void *data)
{
	struct time_race *r = data;
	struct snaptrace_record *rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	struct snaptrace_record *recs = kvcalloc(TIME_RACE_BATCH, sizeof(*recs), GFP_KERNEL);
	struct snaptrace_iter *it;
	bool last_round = false;
	u32 i, last;
	int rc;

	while (rec && !last_round) {
		/* Done: every record is in (pairs with the writer's release). */
		last_round = smp_load_acquire(&r->done);
		/* Consuming reads of the writer's CPU. */
		last = U32_MAX;
		while (r->batch && recs) {
			rc = snaptrace_consume_batch(r->buf, SNAPTRACE_LIVE, r->wcpu,
						     recs, TIME_RACE_BATCH);
			if (rc < 0) {
				r->errors += rc != -ENODATA;
				break;
			}
			for (i = 0; i < rc; i++) {
				time_race_check(r, &recs[i], &last);
				if (last != U32_MAX && last > r->max_seen)
					r->max_seen = last;
			}
			if (!last_round)
				break;
		}
		for (i = 0; !r->batch && (i < TIME_RACE_BATCH || last_round); i++) {
			rc = snaptrace_consume(r->buf, SNAPTRACE_LIVE, r->wcpu, rec);
			if (rc) {
				r->errors += rc != -ENODATA;
				break;
			}
			time_race_check(r, rec, &last);
			if (last != U32_MAX && last > r->max_seen)
				r->max_seen = last;
		}
		if (last_round)
			break;
		/* An iterator of every CPU. */
		it = snaptrace_iter_start(r->buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS);
		if (IS_ERR(it)) {
			r->errors++;
			break;
		}
		last = U32_MAX;
		for (i = 0; i < TIME_RACE_BATCH; i++) {
			rc = snaptrace_iter_next(it, rec);
			if (rc) {
				r->errors += rc != -ENODATA;
				break;
			}
			time_race_check(r, rec, &last);
		}
		snaptrace_iter_stop(it);
		cond_resched();
	}
	if (r->batch && !recs)
		r->errors++;
	kvfree(recs);
	kfree(rec);
	complete(&r->rdone);
	return 0;
}

/*
 * A writer on one CPU writes 50,000 records of the schedule (lengths up to
 * 2048 bytes, times jumping by 2^27 and 2^54 ns and back by 2^40 ns) into
 * the smallest ring, overwriting all along, while a reader on another CPU
 * alternates consuming reads and iterators: every record it gets has the
 * exact time, length and payload of the record its payload names, in
 * order. Then the reader drains the ring: the last record is the last
 * written. Needs two online CPUs.
 */
static void time_racing(struct kunit *test, bool batch)
{
	struct snaptrace_buffer *buf = time_buf(test, SNAPTRACE_MIN_SIZE,
						SNAPTRACE_OVERWRITE, false);
	struct time_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct task_struct *wt, *rt;
	int rcpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs (the guest has -smp 2)");
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->buf = buf;
	r->batch = batch;
	r->wcpu = st_cpu();
	rcpu = cpumask_next(r->wcpu, cpu_online_mask);
	init_completion(&r->wdone);
	init_completion(&r->rdone);
	st_clock_install(test, 0);

	wt = st_kthread(time_race_writer, r, r->wcpu, NULL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(wt), "kthread: %pe", wt);
	rt = st_kthread(time_race_reader, r, rcpu, NULL);
	if (IS_ERR(rt)) {
		kthread_stop_put(wt);
		KUNIT_FAIL(test, "kthread: %pe", rt);
		return;
	}
	wake_up_process(rt);
	wake_up_process(wt);
	wait_for_completion(&r->wdone);
	wait_for_completion(&r->rdone);
	kthread_stop_put(wt);
	kthread_stop_put(rt);

	kunit_info(test, "%llu records checked\n", r->checked);
	KUNIT_EXPECT_EQ(test, r->written, TIME_RACE_RECORDS);
	KUNIT_EXPECT_EQ(test, r->failed, 0);
	KUNIT_EXPECT_EQ_MSG(test, r->bad, 0, "first: record %u with time %llu",
			    r->first_bad, r->first_bad_ts);
	KUNIT_EXPECT_EQ(test, r->order, 0);
	KUNIT_EXPECT_EQ(test, r->errors, 0);
	KUNIT_EXPECT_GT(test, r->checked, 0);
	KUNIT_EXPECT_EQ(test, r->max_seen, TIME_RACE_RECORDS - 1);
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
}

static void time_racing_reader_never_torn(struct kunit *test)
{
	time_racing(test, false);
}

/* The same, consuming in batches of 32 (snaptrace_consume_batch()). */
static void time_racing_batch_reader_never_torn(struct kunit *test)
{
	time_racing(test, true);
}

static struct kunit_case snaptrace_time_cases[] = {
	KUNIT_CASE(time_back_to_back_exact),
	KUNIT_CASE_PARAM(time_across_delta_overflow, time_start_gen_params),
	KUNIT_CASE_PARAM(time_backwards_in_nested_writer, time_back_gen_params),
	KUNIT_CASE_PARAM(time_nested_writer_at_each_step, time_nest_gen_params),
	KUNIT_CASE_PARAM(time_nested_in_owner_window, time_owner_gen_params),
	KUNIT_CASE(time_wraps_at_ring_end),
	KUNIT_CASE(time_after_snapshot_clear_reset_resize),
	KUNIT_CASE_PARAM(time_compact_records_fit, time_fit_gen_params),
	KUNIT_CASE(time_payload_aligned),
	KUNIT_CASE(time_consume_overwritten_copy),
	KUNIT_CASE_SLOW(time_racing_reader_never_torn),
	KUNIT_CASE_SLOW(time_racing_batch_reader_never_torn),
	{}
};

static struct kunit_suite snaptrace_time_suite = {
	.name = "snaptrace_time",
	.test_cases = snaptrace_time_cases,
};

kunit_test_suites(&snaptrace_time_suite);
