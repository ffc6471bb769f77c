// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the snaptrace ring buffer: allocation and sizing, the
 * record layout, both full-buffer modes with exact counts, the readers
 * (consume and iterators), reset and resize, writing from every context
 * (softirq, hardirq, irqs off, NMI), nesting inside an open reservation
 * (an interrupt filling the ring around it: I2), a stress run with a
 * writer on every online CPU, reset() under running writers, and
 * snaptrace_wait().
 *
 * Written from the API contract in <snaptrace/snaptrace.h>: every number
 * asserted here is derived from it (16-byte record header, payload rounded
 * up to 8 bytes, per-CPU size a power-of-two number of pages).
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/poll.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <kunit/resource.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

/* Stress run: records per writer, snapshots taken, period of the timer. */
#define ST_STRESS_RECORDS	20000
#define ST_STRESS_SNAPSHOTS	2000
#define ST_STRESS_PERIOD_NS	(500 * NSEC_PER_USEC)
#define ST_STRESS_SIZE		(4 * SNAPTRACE_MIN_SIZE)

/* ---- payloads too short for a self-checking header ---- */

/* A plain pattern for payloads too short for a header (1..7 bytes). */
static void st_pattern(u8 *p, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 31);
}

static bool st_pattern_ok(const u8 *p, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (u8)(seed + i * 31))
			return false;
	return true;
}

/* Job: one snaptrace_write() and one reserve/commit, self-checking. */
static void st_job_write_two(struct st_job *job)
{
	struct snaptrace_reservation res;
	u8 p[ST_PAYLOAD_MIN + 20];
	u8 *q;

	st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, job->cpu, 0);
	job->rc[0] = snaptrace_write(job->buf, p, sizeof(p));
	q = snaptrace_reserve(job->buf, ST_PAYLOAD_MIN + 4, &res);
	job->rc[1] = q ? 0 : -ENOSPC;
	if (q) {
		st_payload_fill(q, ST_PAYLOAD_MIN + 4, ST_MAGIC_IRQ, job->cpu, 1);
		snaptrace_commit(job->buf, &res);
	}
}

/* Job: one snaptrace_write() of a 40-byte self-checking record, seq 0. */
static void st_job_write_one(struct st_job *job)
{
	u8 p[40];

	st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, job->cpu, 0);
	job->rc[0] = snaptrace_write(job->buf, p, sizeof(p));
}

/* ---- allocation and sizing ---- */

/* Expects buffer_alloc(@size, @mode) to fail with -EINVAL. */
static void st_expect_alloc_einval(struct kunit *test, size_t size,
				   enum snaptrace_mode mode)
{
	struct snaptrace_buffer *buf = snaptrace_buffer_alloc(size, mode);

	KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(buf), -EINVAL,
			    "size %zu mode %d", size, mode);
	if (!IS_ERR_OR_NULL(buf))
		snaptrace_buffer_free(buf);
}

/* Size 0, a size over the maximum and an unknown mode fail with -EINVAL. */
static void ring_alloc_rejects_bad_args(struct kunit *test)
{
	st_expect_alloc_einval(test, 0, SNAPTRACE_OVERWRITE);
	st_expect_alloc_einval(test, SNAPTRACE_MAX_SIZE + 1, SNAPTRACE_OVERWRITE);
	st_expect_alloc_einval(test, SIZE_MAX, SNAPTRACE_STOP_WHEN_FULL);
	st_expect_alloc_einval(test, SNAPTRACE_MIN_SIZE, (enum snaptrace_mode)2);
	st_expect_alloc_einval(test, SNAPTRACE_MIN_SIZE, (enum snaptrace_mode)-1);
}

/* The size is rounded up to a power-of-two number of pages, >= the minimum. */
static void ring_alloc_rounds_size_up(struct kunit *test)
{
	static const struct {
		size_t ask;
		size_t want;
	} cases[] = {
		{ 1, SNAPTRACE_MIN_SIZE },
		{ PAGE_SIZE, SNAPTRACE_MIN_SIZE },
		{ SNAPTRACE_MIN_SIZE, SNAPTRACE_MIN_SIZE },
		{ SNAPTRACE_MIN_SIZE + 1, 4 * PAGE_SIZE },
		{ 3 * PAGE_SIZE, 4 * PAGE_SIZE },
		{ 5 * PAGE_SIZE - 7, 8 * PAGE_SIZE },
		{ 8 * PAGE_SIZE, 8 * PAGE_SIZE },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct snaptrace_buffer *buf = st_buf_new(test, cases[i].ask,
							  SNAPTRACE_OVERWRITE);

		KUNIT_EXPECT_EQ_MSG(test, snaptrace_size_per_cpu(buf), cases[i].want,
				    "asked for %zu", cases[i].ask);
	}
}

/* A new buffer records, has the mode asked for, and is empty on all CPUs. */
static void ring_new_buffer_is_empty_and_on(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_STOP_WHEN_FULL);
	struct snaptrace_record *rec = st_rec_new(test);
	struct st_check c;
	int cpu;

	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_get_mode(buf), SNAPTRACE_STOP_WHEN_FULL);
	for_each_possible_cpu(cpu) {
		st_expect_empty(test, buf, SNAPTRACE_LIVE, cpu);
		KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), -ENODATA);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 0);
}

/* ---- writing and record layout ---- */

/* Length 0 and MAX+1 are refused by write and reserve, and counted nowhere. */
static void ring_bad_len_is_rejected_uncounted(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	u8 *p = kunit_kzalloc(test, SNAPTRACE_MAX_PAYLOAD + 1, GFP_KERNEL);
	struct snaptrace_reservation res;
	int pc0, pc1, pc2, cpu;
	void *r0, *r1;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, p, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, p, SNAPTRACE_MAX_PAYLOAD + 1), -EINVAL);

	pc0 = preempt_count();
	r0 = snaptrace_reserve(buf, 0, &res);
	pc1 = preempt_count();
	r1 = snaptrace_reserve(buf, SNAPTRACE_MAX_PAYLOAD + 1, &res);
	pc2 = preempt_count();
	KUNIT_EXPECT_NULL(test, r0);
	KUNIT_EXPECT_NULL(test, r1);
	KUNIT_EXPECT_EQ_MSG(test, pc1, pc0, "a refused reserve left preemption off");
	KUNIT_EXPECT_EQ_MSG(test, pc2, pc0, "a refused reserve left preemption off");

	for_each_possible_cpu(cpu)
		st_expect_empty(test, buf, SNAPTRACE_LIVE, cpu);
}

/* reserve() keeps preemption off until commit(), and commit() publishes it. */
static void ring_reserve_holds_preemption_until_commit(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_reservation res;
	int before, inside, after, cpu = -1;
	struct st_hdr h;
	u8 *p;

	before = preempt_count();
	p = snaptrace_reserve(buf, 32, &res);
	inside = preempt_count();
	if (p) {
		cpu = smp_processor_id();
		st_payload_fill(p, 32, ST_MAGIC, cpu, 5);
		snaptrace_commit(buf, &res);
	}
	after = preempt_count();

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_GT(test, inside, before);
	KUNIT_EXPECT_EQ(test, after, before);
	KUNIT_ASSERT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), 0);
	KUNIT_EXPECT_TRUE(test, st_payload_ok(rec, &h));
	KUNIT_EXPECT_EQ(test, h.seq, 5);
	KUNIT_EXPECT_EQ(test, rec->cpu, cpu);
	KUNIT_EXPECT_EQ(test, rec->len, 32);
	KUNIT_EXPECT_EQ(test, rec->pos, 0);
}

struct st_sizes_args {
	struct snaptrace_buffer *buf;
	u8 *scratch;
	int cpu;
	int rc[8];
	bool wrong_cpu;
};

static const size_t st_sizes[8] = { 1, 7, 8, 9, 63, 64, 1024, SNAPTRACE_MAX_PAYLOAD };

static long st_sizes_fn(void *data)
{
	struct st_sizes_args *a = data;
	struct snaptrace_reservation res;
	unsigned int i;
	u8 *p;

	preempt_disable();
	a->wrong_cpu = smp_processor_id() != a->cpu;
	for (i = 0; i < ARRAY_SIZE(st_sizes); i++) {
		if (i & 1) {
			p = snaptrace_reserve(a->buf, st_sizes[i], &res);
			a->rc[i] = p ? 0 : -ENOSPC;
			if (p) {
				st_pattern(p, st_sizes[i], i);
				snaptrace_commit(a->buf, &res);
			}
		} else {
			st_pattern(a->scratch, st_sizes[i], i);
			a->rc[i] = snaptrace_write(a->buf, a->scratch, st_sizes[i]);
		}
	}
	preempt_enable();
	return 0;
}

/*
 * Records of 1, 7, 8, 9, 63, 64, 1024 and MAX bytes (write and reserve in
 * turn) come back intact and in order, each 16 + ALIGN(len, 8) bytes after
 * the one before, from both the iterator and consume; bytes, oldest_ts and
 * read follow.
 */
static void ring_every_size_class_roundtrips(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *recs, *rec = st_rec_new(test);
	struct st_sizes_args a = { .buf = buf, .cpu = st_cpu() };
	const unsigned int n = ARRAY_SIZE(st_sizes);
	struct snaptrace_stats st;
	u64 pos = 0, bytes = 0;
	unsigned int i, got;
	int end;

	a.scratch = kunit_kzalloc(test, SNAPTRACE_MAX_PAYLOAD, GFP_KERNEL);
	recs = kunit_kcalloc(test, n + 1, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a.scratch);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	work_on_cpu(a.cpu, st_sizes_fn, &a);
	KUNIT_ASSERT_FALSE(test, a.wrong_cpu);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, a.rc[i], 0, "len %zu", st_sizes[i]);
		bytes += st_rec_bytes(st_sizes[i]);
	}

	st = st_stats(test, buf, SNAPTRACE_LIVE, a.cpu);
	KUNIT_EXPECT_EQ(test, st.entries, n);
	KUNIT_EXPECT_EQ(test, st.written, n);
	KUNIT_EXPECT_EQ(test, st.bytes, bytes);
	KUNIT_EXPECT_NE(test, st.oldest_ts, 0);

	got = st_collect(test, buf, SNAPTRACE_LIVE, a.cpu, recs, n + 1, &end);
	KUNIT_ASSERT_EQ(test, got, n);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	KUNIT_EXPECT_EQ(test, recs[0].ts, st.oldest_ts);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, recs[i].len, st_sizes[i], "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, recs[i].type, SNAPTRACE_REC_DATA, "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, recs[i].cpu, a.cpu, "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, recs[i].pos, pos, "record %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, st_pattern_ok(recs[i].data, st_sizes[i], i),
				      "record %u torn", i);
		if (i)
			KUNIT_EXPECT_GE(test, recs[i].ts, recs[i - 1].ts);
		pos += st_rec_bytes(st_sizes[i]);
	}

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, a.cpu, rec), 0);
		KUNIT_EXPECT_EQ(test, rec->len, st_sizes[i]);
		KUNIT_EXPECT_EQ(test, rec->pos, recs[i].pos);
		KUNIT_EXPECT_EQ(test, rec->ts, recs[i].ts);
		KUNIT_EXPECT_TRUE(test, st_pattern_ok(rec->data, st_sizes[i], i));
		bytes -= st_rec_bytes(st_sizes[i]);
		st = st_stats(test, buf, SNAPTRACE_LIVE, a.cpu);
		KUNIT_EXPECT_EQ(test, st.read, i + 1);
		KUNIT_EXPECT_EQ(test, st.entries, n - i - 1);
		KUNIT_EXPECT_EQ(test, st.bytes, bytes);
		KUNIT_EXPECT_EQ(test, st.oldest_ts, i + 1 < n ? recs[i + 1].ts : 0);
		st_expect_counted(test, buf, SNAPTRACE_LIVE, a.cpu, &st);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, a.cpu, rec), -ENODATA);
}

/* Recording off refuses writes with -EBUSY, uncounted, and keeps contents. */
static void ring_record_off_refuses_and_keeps(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_reservation res;
	int cpu = st_cpu(), pc0, pc1;
	struct snaptrace_stats st;
	struct st_wcount wc;
	struct st_check c;
	u8 p[32] = {};
	void *r;

	wc = st_write_n(test, buf, cpu, 3, 32, 0);
	KUNIT_ASSERT_EQ(test, wc.ok, 3);

	snaptrace_record_off(buf);
	KUNIT_EXPECT_FALSE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, p, sizeof(p)), -EBUSY);
	pc0 = preempt_count();
	r = snaptrace_reserve(buf, sizeof(p), &res);
	pc1 = preempt_count();
	KUNIT_EXPECT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, pc1, pc0);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 3);
	KUNIT_EXPECT_EQ(test, st.written, 3);
	KUNIT_EXPECT_EQ(test, st.dropped, 0);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, cpu, 0, &c), -ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 3);
	KUNIT_EXPECT_EQ(test, c.bad, 0);

	snaptrace_record_on(buf);
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	wc = st_write_n(test, buf, cpu, 1, 32, 3);
	KUNIT_EXPECT_EQ(test, wc.ok, 1);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, cpu, st_rec_bytes(32), &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 4);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.misplaced, 0);
}

/* set_mode/get_mode switch both ways at any time and keep the contents. */
static void ring_mode_switch_keeps_contents(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct st_wcount wc;
	struct st_check c;

	KUNIT_EXPECT_EQ(test, snaptrace_get_mode(buf), SNAPTRACE_OVERWRITE);
	wc = st_write_n(test, buf, cpu, 5, 48, 0);
	KUNIT_ASSERT_EQ(test, wc.ok, 5);
	snaptrace_set_mode(buf, SNAPTRACE_STOP_WHEN_FULL);
	KUNIT_EXPECT_EQ(test, snaptrace_get_mode(buf), SNAPTRACE_STOP_WHEN_FULL);
	wc = st_write_n(test, buf, cpu, 5, 48, 5);
	KUNIT_ASSERT_EQ(test, wc.ok, 5);
	snaptrace_set_mode(buf, SNAPTRACE_OVERWRITE);
	KUNIT_EXPECT_EQ(test, snaptrace_get_mode(buf), SNAPTRACE_OVERWRITE);

	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, cpu, st_rec_bytes(48), &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 10);
	KUNIT_EXPECT_EQ(test, c.first_seq, 0);
	KUNIT_EXPECT_EQ(test, c.last_seq, 9);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.misplaced, 0);
}

/* ---- full buffers ---- */

/*
 * Overwrite mode, 64-byte records dividing the buffer (no padding), three
 * laps and a bit: exactly the newest size/64 survive, every older one is
 * counted in overrun, and positions keep counting across laps.
 */
static void ring_overwrite_wraps_exact_overrun(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	const u64 rb = st_rec_bytes(ST_LEN_REC64);
	int cpu = st_cpu(), other;
	struct snaptrace_stats st;
	unsigned int cap, n;
	struct st_wcount wc;
	struct st_check c;

	KUNIT_ASSERT_EQ(test, rb, 64);
	KUNIT_ASSERT_EQ(test, snaptrace_size_per_cpu(buf), SNAPTRACE_MIN_SIZE);
	cap = SNAPTRACE_MIN_SIZE / rb;
	n = 3 * cap + 5;

	wc = st_write_n(test, buf, cpu, n, ST_LEN_REC64, 0);
	KUNIT_EXPECT_EQ(test, wc.ok, n);
	KUNIT_EXPECT_EQ(test, wc.nospc + wc.other, 0);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, cap);
	KUNIT_EXPECT_EQ(test, st.overrun, n - cap);
	KUNIT_EXPECT_EQ(test, st.dropped, 0);
	KUNIT_EXPECT_EQ(test, st.written, n);
	KUNIT_EXPECT_EQ(test, st.read, 0);
	KUNIT_EXPECT_EQ(test, st.bytes, SNAPTRACE_MIN_SIZE);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);

	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, cpu, rb, &c), -ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, cap);
	KUNIT_EXPECT_EQ(test, c.first_seq, n - cap);
	KUNIT_EXPECT_EQ(test, c.last_seq, n - 1);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.misplaced + c.ts_back, 0);
	KUNIT_EXPECT_EQ(test, st.oldest_ts, c.first_ts);

	for_each_possible_cpu(other)
		if (other != cpu)
			st_expect_empty(test, buf, SNAPTRACE_LIVE, other);
}

/*
 * Stop-when-full, 64-byte records: the first size/64 fit, every later one
 * is refused with -ENOSPC and counted in dropped; consuming one record
 * makes room for exactly one more.
 */
static void ring_stop_when_full_exact_dropped(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_STOP_WHEN_FULL);
	struct snaptrace_record *rec = st_rec_new(test);
	const u64 rb = st_rec_bytes(48);
	struct snaptrace_stats st;
	unsigned int cap, k = 7;
	struct st_wcount wc;
	struct st_check c;
	int cpu = st_cpu();
	struct st_hdr h;

	cap = SNAPTRACE_MIN_SIZE / rb;
	wc = st_write_n(test, buf, cpu, cap + k, 48, 0);
	KUNIT_EXPECT_EQ(test, wc.ok, cap);
	KUNIT_EXPECT_EQ(test, wc.nospc, k);
	KUNIT_EXPECT_EQ(test, wc.other, 0);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, cap);
	KUNIT_EXPECT_EQ(test, st.dropped, k);
	KUNIT_EXPECT_EQ(test, st.overrun, 0);
	KUNIT_EXPECT_EQ(test, st.written, cap + k);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);

	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, cpu, rb, &c), -ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, cap);
	KUNIT_EXPECT_EQ(test, c.first_seq, 0);
	KUNIT_EXPECT_EQ(test, c.last_seq, cap - 1);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.misplaced, 0);

	KUNIT_ASSERT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), 0);
	KUNIT_EXPECT_TRUE(test, st_payload_ok(rec, &h));
	KUNIT_EXPECT_EQ(test, h.seq, 0);
	wc = st_write_n(test, buf, cpu, 2, 48, 1000);
	KUNIT_EXPECT_EQ(test, wc.ok, 1);
	KUNIT_EXPECT_EQ(test, wc.nospc, 1);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, cap);
	KUNIT_EXPECT_EQ(test, st.read, 1);
	KUNIT_EXPECT_EQ(test, st.dropped, k + 1);
	KUNIT_EXPECT_EQ(test, st.written, cap + k + 2);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
}

/*
 * Records that do not divide the buffer never straddle its end: the tail
 * becomes padding and the next record starts at the next multiple of the
 * size. Overwrite mode still loses exactly one record per record written;
 * stop-when-full refuses the first one that does not fit before the end.
 */
static void ring_wrap_pads_tail(struct kunit *test)
{
	const size_t len = 1000;
	const u64 rb = st_rec_bytes(len), size = SNAPTRACE_MIN_SIZE;
	const unsigned int per_lap = size / rb, n = 2 * per_lap + 3;
	struct snaptrace_buffer *buf;
	struct snaptrace_record *recs;
	struct snaptrace_stats st;
	unsigned int i, got;
	struct st_wcount wc;
	int cpu = st_cpu(), end;

	KUNIT_ASSERT_NE(test, size % rb, 0);
	recs = kunit_kcalloc(test, per_lap + 1, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);

	buf = st_buf_new(test, size, SNAPTRACE_OVERWRITE);
	wc = st_write_n(test, buf, cpu, n, len, 0);
	KUNIT_EXPECT_EQ(test, wc.ok, n);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, per_lap);
	KUNIT_EXPECT_EQ(test, st.overrun, n - per_lap);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
	got = st_collect(test, buf, SNAPTRACE_LIVE, cpu, recs, per_lap + 1, &end);
	KUNIT_EXPECT_EQ(test, got, per_lap);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	for (i = 0; i < got; i++) {
		unsigned int seq = n - per_lap + i;
		struct st_hdr h;

		KUNIT_EXPECT_TRUE_MSG(test, st_payload_ok(&recs[i], &h), "record %u", i);
		KUNIT_EXPECT_EQ(test, h.seq, seq);
		KUNIT_EXPECT_EQ_MSG(test, recs[i].pos,
				    (seq / per_lap) * size + (seq % per_lap) * rb, "seq %u", seq);
	}

	buf = st_buf_new(test, size, SNAPTRACE_STOP_WHEN_FULL);
	wc = st_write_n(test, buf, cpu, per_lap + 2, len, 0);
	KUNIT_EXPECT_EQ(test, wc.ok, per_lap);
	KUNIT_EXPECT_EQ(test, wc.nospc, 2);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, per_lap);
	KUNIT_EXPECT_EQ(test, st.dropped, 2);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
}

/* ---- readers ---- */

/* A negative, too large or impossible CPU is -EINVAL for stats and readers. */
static void ring_bad_cpu_is_rejected(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	int bad[4] = { -1, -2, nr_cpu_ids, INT_MAX };
	struct snaptrace_iter *it;
	struct snaptrace_stats st;
	unsigned int i;
	int cpu;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_cpu_stats(buf, SNAPTRACE_LIVE, bad[i], &st),
				    -EINVAL, "cpu %d", bad[i]);
	/* -1 is SNAPTRACE_ALL_CPUS for the readers. */
	for (i = 1; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_consume(buf, SNAPTRACE_LIVE, bad[i], rec),
				    -EINVAL, "cpu %d", bad[i]);
		it = snaptrace_iter_start(buf, SNAPTRACE_LIVE, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(it), -EINVAL, "cpu %d", bad[i]);
		if (!IS_ERR_OR_NULL(it))
			snaptrace_iter_stop(it);
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (cpu_possible(cpu))
			continue;
		KUNIT_EXPECT_EQ(test, snaptrace_cpu_stats(buf, SNAPTRACE_LIVE, cpu, &st), -EINVAL);
		KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), -EINVAL);
	}
}

struct st_ipi_args {
	struct snaptrace_buffer *buf;
	u32 seq;
	int rc;
};

static void st_ipi_write(void *data)
{
	struct st_ipi_args *a = data;
	u8 p[ST_PAYLOAD_MIN + 8];

	st_payload_fill(p, sizeof(p), ST_MAGIC, smp_processor_id(), a->seq);
	a->rc = snaptrace_write(a->buf, p, sizeof(p));
}

/*
 * Records written alternately on two CPUs (from their IPI handlers) come
 * out of consume(ALL_CPUS) all, once each, in nondecreasing timestamp
 * order, each CPU's in its own order; iterating ALL_CPUS agrees.
 */
static void ring_consume_all_cpus_in_ts_order(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct st_ipi_args a = { .buf = buf };
	const unsigned int per_cpu = 40;
	unsigned int i, seen[2] = {};
	int cpus[2], rc = 0;
	struct st_check c;
	u64 *next;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	cpus[0] = cpumask_first(cpu_online_mask);
	cpus[1] = cpumask_next(cpus[0], cpu_online_mask);
	for (i = 0; i < 2 * per_cpu; i++) {
		a.seq = i / 2;
		a.rc = -EINPROGRESS;
		rc = smp_call_function_single(cpus[i & 1], st_ipi_write, &a, 1);
		KUNIT_ASSERT_EQ(test, rc, 0);
		KUNIT_ASSERT_EQ(test, a.rc, 0);
	}

	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 2 * per_cpu);
	KUNIT_EXPECT_EQ(test, c.ts_back + c.order + c.gaps + c.bad, 0);

	next = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*next), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, next);
	st_check_init(&c, next, SNAPTRACE_ALL_CPUS, 0);
	for (i = 0; i <= 2 * per_cpu; i++) {
		rc = snaptrace_consume(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec);
		if (rc)
			break;
		st_check_one(&c, rec);
		seen[rec->cpu == cpus[1]]++;
	}
	KUNIT_EXPECT_EQ(test, rc, -ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 2 * per_cpu);
	KUNIT_EXPECT_EQ(test, seen[0], per_cpu);
	KUNIT_EXPECT_EQ(test, seen[1], per_cpu);
	KUNIT_EXPECT_EQ(test, c.ts_back + c.order + c.gaps + c.bad, 0);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpus[0]).read, per_cpu);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpus[1]).read, per_cpu);
}

/* Iterating (one CPU or all) consumes nothing: entries stay, consume agrees. */
static void ring_iterator_is_non_consuming(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	const u64 rb = st_rec_bytes(24);
	unsigned int i, n = 20;
	int cpu = st_cpu(), rc;
	struct st_check c;
	struct st_hdr h;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, n, 24, 0).ok, n);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, cpu, rb, &c), -ENODATA);
		KUNIT_EXPECT_EQ(test, c.count, n);
		rc = st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rb, &c);
		KUNIT_EXPECT_EQ(test, rc, -ENODATA);
		KUNIT_EXPECT_EQ(test, c.count, n);
		KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.misplaced + c.ts_back, 0);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, n);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).read, 0);
	}
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), 0);
		KUNIT_EXPECT_TRUE(test, st_payload_ok(rec, &h));
		KUNIT_EXPECT_EQ(test, h.seq, i);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), -ENODATA);
}

/* ---- operations run by a helper thread while an iterator is open ---- */

static int st_do_reset(struct snaptrace_buffer *buf, size_t unused)
{
	snaptrace_reset(buf);
	return 0;
}

static int st_do_resize(struct snaptrace_buffer *buf, size_t size)
{
	return snaptrace_resize(buf, size);
}

/* After reset, an iterator started before it reports -ESTALE. */
static void ring_iterator_stale_after_reset(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct st_async as = { .buf = buf, .fn = st_do_reset };
	struct snaptrace_iter *it;
	int cpu = st_cpu(), rc;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 24, 0).ok, 4);
	it = snaptrace_iter_start(buf, SNAPTRACE_LIVE, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	rc = snaptrace_iter_next(it, rec);
	if (!st_async_run(test, &as, it))
		return;
	KUNIT_EXPECT_EQ(test, rc, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_iter_next(it, rec), -ESTALE);
	snaptrace_iter_stop(it);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 0);
}

/* After resize, an iterator started before it reports -ESTALE. */
static void ring_iterator_stale_after_resize(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct st_async as = {
		.buf = buf, .fn = st_do_resize, .arg = 2 * SNAPTRACE_MIN_SIZE,
	};
	struct snaptrace_iter *it;
	int cpu = st_cpu(), rc;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 24, 0).ok, 4);
	it = snaptrace_iter_start(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	rc = snaptrace_iter_next(it, rec);
	if (!st_async_run(test, &as, it))
		return;
	KUNIT_EXPECT_EQ(test, rc, 0);
	KUNIT_EXPECT_EQ(test, as.rc, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_iter_next(it, rec), -ESTALE);
	snaptrace_iter_stop(it);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), 2 * SNAPTRACE_MIN_SIZE);
}

/* ---- reset and resize ---- */

/* Reset empties every CPU and zeroes its counters; positions restart at 0. */
static void ring_reset_empties_all_cpus(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_STOP_WHEN_FULL);
	struct snaptrace_record *rec = st_rec_new(test);
	unsigned int cap = SNAPTRACE_MIN_SIZE / st_rec_bytes(48);
	int cpu;

	for_each_online_cpu(cpu)
		st_write_n(test, buf, cpu, cap + 3, 48, 0);
	cpu = st_cpu();
	KUNIT_ASSERT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), 0);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).dropped, 3);

	snaptrace_reset(buf);
	for_each_possible_cpu(cpu) {
		st_expect_empty(test, buf, SNAPTRACE_LIVE, cpu);
		KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), -ENODATA);
	}
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_get_mode(buf), SNAPTRACE_STOP_WHEN_FULL);

	cpu = st_cpu();
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 1, 48, 0).ok, 1);
	KUNIT_ASSERT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu, rec), 0);
	KUNIT_EXPECT_EQ(test, rec->pos, 0);
}

/* A bad size is -EINVAL and leaves size, contents and counters intact. */
static void ring_resize_rejects_bad_size(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 6, 40, 0).ok, 6);
	KUNIT_EXPECT_EQ(test, snaptrace_resize(buf, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_resize(buf, SNAPTRACE_MAX_SIZE + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), SNAPTRACE_MIN_SIZE);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).written, 6);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, cpu, st_rec_bytes(40), &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 6);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.misplaced, 0);
}

/*
 * Resize rounds like alloc, discards everything, zeroes the counters, and
 * the new capacity is what overwrite mode then keeps: size / 64 records of
 * 64 bytes, growing and shrinking.
 */
static void ring_resize_discards_and_changes_capacity(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	static const size_t asks[] = { 3 * PAGE_SIZE, 1, 8 * PAGE_SIZE };
	static const size_t wants[] = { 4 * PAGE_SIZE, SNAPTRACE_MIN_SIZE, 8 * PAGE_SIZE };
	const u64 rb = st_rec_bytes(48);
	struct snaptrace_stats st;
	int cpu = st_cpu(), other;
	unsigned int i, cap;
	struct st_check c;

	for (i = 0; i < ARRAY_SIZE(asks); i++) {
		KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 10, 48, 0).ok, 10);
		KUNIT_ASSERT_EQ(test, snaptrace_resize(buf, asks[i]), 0);
		KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), wants[i]);
		for_each_possible_cpu(other)
			st_expect_empty(test, buf, SNAPTRACE_LIVE, other);

		cap = wants[i] / (size_t)rb;
		KUNIT_EXPECT_EQ(test, st_write_n(test, buf, cpu, cap + 9, 48, 0).ok, cap + 9);
		st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
		KUNIT_EXPECT_EQ_MSG(test, st.entries, cap, "size %zu", wants[i]);
		KUNIT_EXPECT_EQ_MSG(test, st.overrun, 9, "size %zu", wants[i]);
		st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
		KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, cpu, 0, &c), -ENODATA);
		KUNIT_EXPECT_EQ(test, c.count, cap);
		KUNIT_EXPECT_EQ(test, c.first_seq, 9);
		KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad, 0);
	}
}

/* ---- writing from every context ---- */

/* Runs st_job_write_two in @ctx and checks both records arrived intact. */
static void st_write_in(struct kunit *test, enum st_ctx ctx)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ctx, st_job_write_two);
	struct snaptrace_stats st;
	struct st_check c;

	st_job_go(test, job);
	KUNIT_EXPECT_TRUE_MSG(test, job->in_ctx, "not run in context %d", ctx);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->rc[1], 0);
	KUNIT_ASSERT_GE(test, job->cpu, 0);

	st = st_stats(test, buf, SNAPTRACE_LIVE, job->cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 2);
	KUNIT_EXPECT_EQ(test, st.written, 2);
	KUNIT_EXPECT_EQ(test, st.bytes, st_rec_bytes(ST_PAYLOAD_MIN + 20) +
			st_rec_bytes(ST_PAYLOAD_MIN + 4));
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, job->cpu, 0, &c), -ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 2);
	KUNIT_EXPECT_EQ(test, c.first_seq, 0);
	KUNIT_EXPECT_EQ(test, c.last_seq, 1);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad, 0);
}

static const enum st_ctx ring_write_ctxs[] = {
	ST_CTX_SOFTIRQ,
	ST_CTX_HARDIRQ,
	ST_CTX_IRQ_WORK,
	ST_CTX_IRQS_OFF,
	ST_CTX_NMI,
};

KUNIT_ARRAY_PARAM(ring_write_ctx, ring_write_ctxs, st_ctx_desc);

/*
 * write and reserve/commit work in each context: from a tasklet
 * (softirq), a hard hrtimer callback and a hard irq_work (hardirq), with
 * interrupts disabled, and from an NMI handler.
 */
static void ring_write_in_context(struct kunit *test)
{
	st_write_in(test, st_param_ctx(test));
}

/*
 * Task reserves 64 bytes and fills half; an interrupt on the same CPU
 * (waited for by spinning, the reservation open) writes its own record;
 * the task finishes and commits. Both records are intact and adjacent,
 * and the outer one, reserved first, comes first in position.
 */
static void st_nested(struct kunit *test, enum st_ctx ctx)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ctx, st_job_write_one);
	const size_t olen = 64;
	struct snaptrace_record *recs;
	struct st_hdr ho, hi;
	unsigned int got;
	int cpu, end;

	recs = kunit_kcalloc(test, 3, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);

	cpu = st_job_in_reservation(test, job, olen, 0);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_EQ(test, job->cpu, cpu);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);

	got = st_collect(test, buf, SNAPTRACE_LIVE, cpu, recs, 3, &end);
	KUNIT_ASSERT_EQ(test, got, 2);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	KUNIT_ASSERT_TRUE_MSG(test, st_payload_ok(&recs[0], &ho), "first record torn");
	KUNIT_ASSERT_TRUE_MSG(test, st_payload_ok(&recs[1], &hi), "second record torn");
	KUNIT_EXPECT_EQ_MSG(test, ho.magic, ST_MAGIC, "outer record is not first by position");
	KUNIT_EXPECT_EQ(test, hi.magic, ST_MAGIC_IRQ);
	KUNIT_EXPECT_EQ(test, recs[0].len, olen);
	KUNIT_EXPECT_EQ(test, recs[1].len, 40);
	KUNIT_EXPECT_EQ(test, recs[1].pos, recs[0].pos + st_rec_bytes(recs[0].len));
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 2);
}

static const enum st_ctx ring_nested_ctxs[] = {
	ST_CTX_IRQ_WORK,
	ST_CTX_NMI,
};

KUNIT_ARRAY_PARAM(ring_nested_ctx, ring_nested_ctxs, st_ctx_desc);

/* A hardirq or NMI record written inside an open reservation: both intact. */
static void ring_nested_in_reservation(struct kunit *test)
{
	st_nested(test, st_param_ctx(test));
}

/* ---- stress ---- */

struct st_stress {
	struct snaptrace_buffer *buf;
	struct hrtimer timer;
	u32 irq_seq;		/* the timer's own sequence, pinned to one CPU */
	atomic_t snap_started;	/* snapshot() calls begun (before the call) */
	atomic_t ticks;		/* ... and returned (after it) */
	atomic_t snap_ok;
	atomic_t snap_busy;
	atomic_t unexpected;	/* an rc the spec does not allow */
	atomic_t write_refused;	/* the timer's own writes refused */
	atomic_t write_rc;	/* the last refusal's rc */
	/* the consumer's findings */
	struct st_check check;
	unsigned long consume_errors;
};

struct st_writer {
	struct st_stress *s;
	struct task_struct *task;
	struct completion done;
	int cpu;
	unsigned int ok;
	unsigned int refused;
	unsigned int unexpected;
	unsigned int straddled;	/* writes with two snapshots inside them */
};

static enum hrtimer_restart st_stress_tick(struct hrtimer *t)
{
	struct st_stress *s = container_of(t, struct st_stress, timer);
	u8 p[ST_PAYLOAD_MIN + 12];
	int rc;

	st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, smp_processor_id(), s->irq_seq++);
	/* Overwrite mode, recording on: nothing may refuse this record. */
	rc = snaptrace_write(s->buf, p, sizeof(p));
	if (rc) {
		atomic_inc(&s->write_refused);
		atomic_set(&s->write_rc, rc);
	}
	atomic_inc(&s->snap_started);
	smp_mb__after_atomic(); /* counted before the swap (st_stress_writer) */
	rc = snaptrace_snapshot(s->buf);
	if (!rc)
		atomic_inc(&s->snap_ok);
	else if (rc == -EBUSY)
		atomic_inc(&s->snap_busy);
	else
		atomic_inc(&s->unexpected);
	if (atomic_inc_return(&s->ticks) >= ST_STRESS_SNAPSHOTS)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(ST_STRESS_PERIOD_NS));
	return HRTIMER_RESTART;
}

static int st_stress_writer(void *data)
{
	struct st_writer *w = data;
	struct snaptrace_buffer *buf = w->s->buf;
	struct snaptrace_reservation res;
	u8 scratch[ST_PAYLOAD_MIN + 107];
	u32 seq;
	int rc;

	for (seq = 0; seq < ST_STRESS_RECORDS; seq++) {
		size_t len = ST_PAYLOAD_MIN + seq % 107;
		int returned;
		u8 *p;

		/* Snapshots returned before this write: their swaps are behind it. */
		returned = atomic_read_acquire(&w->s->ticks);
		if (seq & 1) {
			p = snaptrace_reserve(buf, len, &res);
			if (p) {
				if (smp_processor_id() != w->cpu)
					w->unexpected++;
				st_payload_fill(p, len, ST_MAGIC, w->cpu, seq);
				snaptrace_commit(buf, &res);
				w->ok++;
			} else {
				w->refused++;
			}
		} else {
			st_payload_fill(scratch, len, ST_MAGIC, w->cpu, seq);
			rc = snaptrace_write(buf, scratch, len);
			if (!rc)
				w->ok++;
			else if (rc == -ENOSPC)
				w->refused++;
			else
				w->unexpected++;
		}
		/*
		 * A write that two snapshots swapped the halves around (the
		 * first took its half out of service, the second emptied that
		 * half and put it back): both began before this point, neither
		 * had returned before the write. Counted for the log only: the
		 * counters must be exact for these too (issue 15), the case the
		 * old protocol allowed one record of slack for. Ordered after
		 * the commit (pairs with the barrier in st_stress_tick()).
		 */
		smp_mb();
		if (atomic_read(&w->s->snap_started) - returned >= 2)
			w->straddled++;
		if (!(seq % 64))
			cond_resched();
	}
	complete(&w->done);
	return 0;
}

static int st_stress_consumer(void *data)
{
	struct st_stress *s = data;
	struct snaptrace_record *rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	int rc;

	while (!kthread_should_stop()) {
		rc = rec ? snaptrace_consume(s->buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec)
			 : -ENOMEM;
		if (!rc) {
			st_check_one(&s->check, rec);
			continue;
		}
		if (rc != -ENODATA)
			s->consume_errors++;
		usleep_range(100, 200);
	}
	kfree(rec);
	return 0;
}

/* On the timer's CPU (an IPI): start it, pinned there. */
static void st_stress_arm(void *data)
{
	struct st_stress *s = data;

	hrtimer_start(&s->timer, ns_to_ktime(ST_STRESS_PERIOD_NS), HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * A writer kthread per online CPU but the first (20000 self-checking
 * records each, by write and reserve/commit), an hrtimer on the first
 * writing and taking snapshots, and a consumer popping ALL_CPUS: every
 * record read is intact and in its CPU's order; every snapshot returns 0
 * (no writer or reader refuses one), no write is refused (overwrite mode,
 * and no writer nests in another: on the timer's CPU a writer held in a
 * record across the timer's snapshots may rightly be refused, I2); at
 * rest, on every CPU of both halves, entries is exactly what an iterator
 * finds, no slack.
 */
static void ring_stress_all_cpus(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, ST_STRESS_SIZE, SNAPTRACE_OVERWRITE);
	struct st_writer *w;
	struct st_stress *s;
	struct task_struct *consumer;
	unsigned int n = 0, i, straddled = 0;
	bool failed = false;
	u64 *next;
	int cpu, tcpu;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	w = kunit_kcalloc(test, nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	next = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*next), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, next);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	s->buf = buf;
	st_check_init(&s->check, next, SNAPTRACE_ALL_CPUS, 0);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs (the guest has -smp 2)");
	tcpu = cpumask_first(cpu_online_mask);

	for_each_online_cpu(cpu) {
		if (cpu == tcpu)
			continue;
		w[n].s = s;
		w[n].cpu = cpu;
		init_completion(&w[n].done);
		w[n].task = st_kthread(st_stress_writer, &w[n], cpu, NULL);
		if (IS_ERR(w[n].task)) {
			failed = true;
			break;
		}
		n++;
	}
	consumer = failed ? ERR_PTR(-EINTR) :
		   st_kthread(st_stress_consumer, s, -1, "st_ring_consumer");
	if (IS_ERR(consumer)) {
		for (i = 0; i < n; i++)
			kthread_stop_put(w[i].task);
		KUNIT_FAIL_AND_ABORT(test, "cannot create the stress threads");
	}

	hrtimer_setup(&s->timer, st_stress_tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	KUNIT_EXPECT_EQ(test, smp_call_function_single(tcpu, st_stress_arm, s, 1), 0);
	wake_up_process(consumer);
	for (i = 0; i < n; i++)
		wake_up_process(w[i].task);

	/* A kthread stopped before it ran never runs: wait for the work first. */
	for (i = 0; i < n; i++) {
		wait_for_completion(&w[i].done);
		kthread_stop_put(w[i].task);
	}
	hrtimer_cancel(&s->timer);
	kthread_stop_put(consumer);

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, w[i].ok + w[i].refused, ST_STRESS_RECORDS,
				    "cpu %d", w[i].cpu);
		KUNIT_EXPECT_EQ_MSG(test, w[i].unexpected, 0, "cpu %d", w[i].cpu);
		/* Overwrite mode, recording on, no nesting: no refusal. */
		KUNIT_EXPECT_EQ_MSG(test, w[i].refused, 0, "cpu %d", w[i].cpu);
		straddled += w[i].straddled;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&s->unexpected), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->write_refused), 0,
			    "the hrtimer's writes refused (last rc %d)", atomic_read(&s->write_rc));
	/* Writers and a consumer never make a snapshot fail. */
	KUNIT_EXPECT_EQ(test, atomic_read(&s->snap_busy), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->snap_ok), atomic_read(&s->ticks));
	KUNIT_EXPECT_EQ(test, s->consume_errors, 0);
	KUNIT_EXPECT_EQ(test, s->check.bad, 0);
	KUNIT_EXPECT_EQ(test, s->check.order, 0);
	KUNIT_EXPECT_EQ(test, s->check.markers, 0);
	kunit_info(test, "consumed %u, snapshots %d taken %d busy, %u writes across two\n",
		   s->check.count, atomic_read(&s->snap_ok), atomic_read(&s->snap_busy),
		   straddled);

	/* Exact, writers held up across two snapshots included. */
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
	st_expect_half_sane(test, buf, SNAPTRACE_SNAPSHOT);
}

/* ---- I2: an interrupt never reuses the bytes of an open record ---- */

/* What a job filling the ring is asked to write, and what it got. */
struct st_fill {
	u8 *scratch;
	size_t len;
	unsigned int n;
	unsigned int ok;
	unsigned int nospc;
	unsigned int other;
};

/* Job: @n self-checking writes of @len bytes (magic IRQ, seq 0, 1, ...). */
static void st_job_fill(struct st_job *job)
{
	struct st_fill *f = job->data;
	unsigned int i;
	int rc;

	for (i = 0; i < f->n; i++) {
		st_payload_fill(f->scratch, f->len, ST_MAGIC_IRQ, job->cpu, i);
		rc = snaptrace_write(job->buf, f->scratch, f->len);
		if (!rc)
			f->ok++;
		else if (rc == -ENOSPC)
			f->nospc++;
		else
			f->other++;
	}
}

/*
 * A task opens a 64-byte record at position 0 of an empty ring (overwrite
 * mode); on the same CPU an interrupt then writes two rings' worth of
 * 216-byte records. commit stays at 0 while the task's record is open, and
 * by I2 no reservation may end beyond commit + size: exactly
 * (size - 64) / 216 fit (the next one needs padding up to the end of the
 * ring, so it ends beyond too), every later one fails with -ENOSPC and is
 * counted in dropped, and nothing is overwritten. Committed, the task's
 * record is intact and first, the interrupt's follow it back to back, and
 * the ring then records on, wrapping, as usual.
 */
static void st_fill_in_reservation(struct kunit *test, enum st_ctx ctx)
{
	const size_t size = SNAPTRACE_MIN_SIZE, olen = 48, len = 200;
	const u64 orb = st_rec_bytes(olen), rb = st_rec_bytes(len);
	const unsigned int fit = (size - orb) / rb, n = 2 * (size / rb);
	struct snaptrace_buffer *buf = st_buf_new(test, size, SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ctx, st_job_fill);
	struct snaptrace_record *recs;
	struct snaptrace_stats st;
	unsigned int i, got;
	struct st_fill *f;
	struct st_hdr h;
	int cpu, end;
	bool ok;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	recs = kunit_kcalloc(test, fit + 2, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	f->scratch = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->scratch);
	f->len = len;
	f->n = n;
	job->data = f;
	KUNIT_ASSERT_EQ(test, snaptrace_size_per_cpu(buf), size);
	KUNIT_ASSERT_GT(test, n * rb, size);
	/* The first refused record would have needed padding. */
	KUNIT_ASSERT_NE(test, (size - orb) % rb, 0);

	cpu = st_job_in_reservation(test, job, olen, 1000);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_ASSERT_EQ(test, job->cpu, cpu);
	KUNIT_EXPECT_EQ(test, f->ok, fit);
	KUNIT_EXPECT_EQ(test, f->nospc, n - fit);
	KUNIT_EXPECT_EQ(test, f->other, 0);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.written, 1 + n);
	KUNIT_EXPECT_EQ(test, st.dropped, n - fit);
	KUNIT_EXPECT_EQ(test, st.overrun, 0);
	KUNIT_EXPECT_EQ(test, st.read, 0);
	KUNIT_EXPECT_EQ(test, st.entries, 1 + fit);
	KUNIT_EXPECT_EQ(test, st.bytes, orb + fit * rb);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);

	got = st_collect(test, buf, SNAPTRACE_LIVE, cpu, recs, fit + 2, &end);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	KUNIT_ASSERT_EQ(test, got, fit + 1);
	ok = st_payload_ok(&recs[0], &h);
	KUNIT_EXPECT_TRUE_MSG(test, ok, "the open record was torn");
	if (ok) {
		KUNIT_EXPECT_EQ(test, h.magic, ST_MAGIC);
		KUNIT_EXPECT_EQ(test, h.seq, 1000);
	}
	KUNIT_EXPECT_EQ(test, recs[0].pos, 0);
	for (i = 1; i < got; i++) {
		ok = st_payload_ok(&recs[i], &h);
		KUNIT_EXPECT_TRUE_MSG(test, ok, "record %u torn", i);
		if (ok) {
			KUNIT_EXPECT_EQ_MSG(test, h.magic, ST_MAGIC_IRQ, "record %u", i);
			KUNIT_EXPECT_EQ_MSG(test, h.seq, i - 1, "record %u", i);
		}
		KUNIT_EXPECT_EQ_MSG(test, recs[i].pos, orb + (i - 1) * rb, "record %u", i);
	}

	/* Nothing was left half reserved: the ring wraps and records on. */
	KUNIT_EXPECT_EQ(test, st_write_n(test, buf, cpu, fit, len, 2000).ok, fit);
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
}

static const enum st_ctx ring_fill_ctxs[] = {
	ST_CTX_NMI,
	ST_CTX_IRQ_WORK,
};

KUNIT_ARRAY_PARAM(ring_fill_ctx, ring_fill_ctxs, st_ctx_desc);

/*
 * An NMI or a hardirq filling the ring inside an open reservation is
 * refused, exactly.
 */
static void ring_fill_in_reservation_drops_exactly(struct kunit *test)
{
	st_fill_in_reservation(test, st_param_ctx(test));
}

/* ---- reset while writers run ---- */

/* Records per writer; resets, each once every writer made another STEP. */
#define ST_RESET_RECORDS	20000
#define ST_RESET_ROUNDS		16
#define ST_RESET_STEP		1000
/* Records held open that much longer, for the resets to meet some. */
#define ST_RESET_HOLD_US	20
/* Bound, in polls of 10 ms, on the writers' time to finish afterwards. */
#define ST_RESET_POLLS		2000

/*
 * A writer on every online CPU keeps writing (overwrite mode, small rings:
 * records are overwritten too; some records held open a while) while
 * reset() empties the buffer 16 times, and then to the end of its 20000
 * records. reset() waits for the writers inside, so its baselines are
 * exact: after each reset (the writers then paused between two records)
 * and at the end, on every CPU entries is the number of records an
 * iterator finds (no wrap below zero), the counters balance, nothing is
 * torn or out of order; and recording is on again.
 */
static void ring_reset_under_writers_keeps_counts_exact(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	unsigned int i, resets = 0, overlapped = 0;
	struct snaptrace_stats st;
	struct st_writers *ws;

	ws = st_writers_start(test, buf, ST_RESET_RECORDS, 0, ST_RESET_HOLD_US);
	/* reset() may refuse writers while it runs (-EBUSY). */
	ws->may_be_off = true;
	for (i = 0; i < ST_RESET_ROUNDS; i++) {
		if (!st_writers_reached(ws, (i + 1) * ST_RESET_STEP))
			break;
		snaptrace_reset(buf);
		resets++;
		overlapped += st_writers_active(ws);
		/* An error in a reset's baselines lasts until the next reset. */
		KUNIT_ASSERT_TRUE_MSG(test, st_writers_pause(ws), "the writers did not pause");
		st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
		st_writers_resume(ws);
	}
	/* Let them go on after the last reset, so there is more to count. */
	st_writers_finish(ws, ST_RESET_POLLS);

	KUNIT_EXPECT_EQ(test, resets, ST_RESET_ROUNDS);
	KUNIT_EXPECT_GE_MSG(test, overlapped, 1, "the writers were done before any reset");
	st_writers_expect_sane(test, ws);
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
	for (i = 0; i < ws->n; i++) {
		st = st_stats(test, buf, SNAPTRACE_LIVE, ws->w[i].cpu);
		KUNIT_EXPECT_LE_MSG(test, st.written, ws->w[i].tried, "cpu %d", ws->w[i].cpu);
		kunit_info(test, "cpu %d: %u tried, %u refused; after the last reset %llu written, %llu overrun\n",
			   ws->w[i].cpu, ws->w[i].tried, ws->w[i].refused, st.written,
			   st.overrun);
	}
}

/* ---- waiting for data ---- */

/* Liveness bound for a waiter that must return: polls of 10 ms. */
#define ST_WAITER_POLLS		500
/* How long a waiter that must not return is watched (> the 100 ms recheck). */
#define ST_WAITER_QUIET_MS	150

struct st_waiter {
	struct snaptrace_buffer *buf;
	enum snaptrace_which which;
	int cpu;
	bool until_off;
	bool reaped;
	int rc;
	struct completion done;
	struct task_struct *task;
};

static int st_waiter_fn(void *data)
{
	struct st_waiter *w = data;

	/* Only for the clean-up of a waiter that never returns. */
	allow_signal(SIGKILL);
	w->rc = snaptrace_wait(w->buf, w->which, w->cpu, w->until_off);
	complete(&w->done);
	return 0;
}

/* Ends a waiter; one still in snaptrace_wait() is interrupted by SIGKILL. */
static void st_waiter_reap(void *data)
{
	struct st_waiter *w = data;

	if (w->reaped)
		return;
	while (!wait_for_completion_timeout(&w->done, HZ / 10))
		send_sig(SIGKILL, w->task, 1);
	kthread_stop_put(w->task);
	w->reaped = true;
}

/* A kthread calling snaptrace_wait(@buf, @which, @cpu, @until_off). */
static struct st_waiter *st_waiter_start(struct kunit *test,
					 struct snaptrace_buffer *buf,
					 enum snaptrace_which which, int cpu,
					 bool until_off)
{
	struct st_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->buf = buf;
	w->which = which;
	w->cpu = cpu;
	w->until_off = until_off;
	w->rc = -EINPROGRESS;
	init_completion(&w->done);
	w->task = st_kthread(st_waiter_fn, w, -1, "st_kunit_waiter");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(w->task), "kthread: %pe", w->task);
	wake_up_process(w->task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_waiter_reap, w), 0);
	return w;
}

/* Whether the waiter returned within the liveness bound. */
static bool st_waiter_returned(struct st_waiter *w)
{
	unsigned int i;

	for (i = 0; i < ST_WAITER_POLLS && !completion_done(&w->done); i++)
		usleep_range(10000, 20000);
	return completion_done(&w->done);
}

/*
 * snaptrace_wait() sleeps while there is nothing to read and returns 0
 * once a record is written; a waiter for one CPU is not woken by another
 * CPU's record; with until_off it returns -ENODATA when recording is
 * turned off, and at once if it is off already. "Returns" means within
 * 500 polls of 10 ms: liveness, not timing.
 */
static void ring_wait_wakes_on_data_and_off(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_waiter *w;
	int cpus[2];

	w = st_waiter_start(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, false);
	msleep(ST_WAITER_QUIET_MS);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&w->done),
			       "returned %d on an empty buffer", w->rc);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 1, 40, 0).ok, 1);
	KUNIT_EXPECT_TRUE_MSG(test, st_waiter_returned(w), "not woken by a record");
	KUNIT_EXPECT_EQ(test, w->rc, 0);
	st_waiter_reap(w);

	snaptrace_reset(buf);
	w = st_waiter_start(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, true);
	msleep(ST_WAITER_QUIET_MS);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&w->done),
			       "returned %d on an empty buffer, recording on", w->rc);
	snaptrace_record_off(buf);
	KUNIT_EXPECT_TRUE_MSG(test, st_waiter_returned(w), "not woken by record_off()");
	KUNIT_EXPECT_EQ(test, w->rc, -ENODATA);
	st_waiter_reap(w);

	w = st_waiter_start(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, true);
	KUNIT_EXPECT_TRUE_MSG(test, st_waiter_returned(w), "recording off: did not return");
	KUNIT_EXPECT_EQ(test, w->rc, -ENODATA);
	st_waiter_reap(w);
	snaptrace_record_on(buf);

	if (num_online_cpus() < 2)
		return;
	cpus[0] = cpumask_first(cpu_online_mask);
	cpus[1] = cpumask_next(cpus[0], cpu_online_mask);
	w = st_waiter_start(test, buf, SNAPTRACE_LIVE, cpus[0], false);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpus[1], 1, 40, 0).ok, 1);
	msleep(ST_WAITER_QUIET_MS);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&w->done),
			       "woken (%d) by another CPU's record", w->rc);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpus[0], 1, 40, 1).ok, 1);
	KUNIT_EXPECT_TRUE_MSG(test, st_waiter_returned(w), "not woken by its CPU's record");
	KUNIT_EXPECT_EQ(test, w->rc, 0);
}

struct reset_work {
	struct work_struct work;
	struct snaptrace_buffer *buf;
};

static void reset_many(struct work_struct *work)
{
	struct reset_work *rw = container_of(work, struct reset_work, work);
	int i;

	for (i = 0; i < 20; i++)
		snaptrace_reset(rw->buf);
}

/*
 * A lost wake-up delays a waiter, it does not strand it: with the write
 * path's look at the waiters flag made to miss (as when it is reordered
 * before the waiter's store), the waiter still returns on its own recheck.
 * The flag is taken only once the waiter sleeps with it raised, so the
 * record cannot be found by a waiter that had not yet looked. Without the
 * recheck it sleeps until the liveness bound fails.
 */
static void ring_wait_survives_a_lost_wakeup(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_waiter *w;
	bool raised = false;
	unsigned int i;

	w = st_waiter_start(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, false);
	msleep(ST_WAITER_QUIET_MS);
	KUNIT_ASSERT_FALSE_MSG(test, completion_done(&w->done),
			       "returned %d on an empty buffer", w->rc);
	for (i = 0; i < ST_WAITER_POLLS && !raised; i++) {
		if (task_is_running(w->task))
			usleep_range(10000, 20000);
		else
			raised = snaptrace_test_lose_wakeup(buf);
	}
	KUNIT_ASSERT_TRUE_MSG(test, raised, "the waiter never slept with the flag raised");
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 1, 40, 0).ok, 1);
	KUNIT_EXPECT_TRUE(test, st_waiter_returned(w));
	KUNIT_EXPECT_EQ(test, w->rc, 0);
}

/* A poller: its own entry on the poll queue, which counts its wake-ups. */
struct st_poller {
	poll_table pt;
	struct wait_queue_entry entry;
	wait_queue_head_t *head;
	struct completion woken;
};

static int st_poller_wake(struct wait_queue_entry *entry, unsigned int mode,
			  int sync, void *key)
{
	struct st_poller *p = container_of(entry, struct st_poller, entry);

	complete(&p->woken);
	return 0;
}

static void st_poller_queue(struct file *filp, wait_queue_head_t *head,
			    poll_table *pt)
{
	struct st_poller *p = container_of(pt, struct st_poller, pt);

	p->head = head;
	add_wait_queue(head, &p->entry);
}

static void st_poller_remove(void *data)
{
	struct st_poller *p = data;

	if (p->head)
		remove_wait_queue(p->head, &p->entry);
}

/*
 * The same for poll(): a poller that found nothing is woken again, on its
 * own, after a lost wake-up, and then finds the record. The poller here
 * does what the kernel's poll loop does: poll once with its table (which
 * queues its entry), sleep until woken, poll again. Woken within the
 * liveness bound (500 polls of 10 ms), not timed.
 */
static void ring_poll_survives_a_lost_wakeup(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_poller *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	__poll_t mask = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	init_completion(&p->woken);
	init_waitqueue_func_entry(&p->entry, st_poller_wake);
	init_poll_funcptr(&p->pt, st_poller_queue);
	/* Before the entry is queued: it must not outlive p (nor buf). */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_poller_remove, p), 0);
	mask = snaptrace_poll(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, NULL, &p->pt);
	KUNIT_ASSERT_FALSE_MSG(test, mask, "readable with nothing written");
	KUNIT_ASSERT_NOT_NULL(test, p->head);

	KUNIT_ASSERT_TRUE(test, snaptrace_test_lose_wakeup(buf));
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 1, 40, 0).ok, 1);
	for (i = 0; i < ST_WAITER_POLLS && !(mask & EPOLLIN); i++) {
		if (!wait_for_completion_timeout(&p->woken, msecs_to_jiffies(10)))
			continue;
		reinit_completion(&p->woken);
		mask = snaptrace_poll(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, NULL, NULL);
	}
	KUNIT_EXPECT_TRUE_MSG(test, mask & EPOLLIN,
			      "the poller was never woken to find the record");
}

/*
 * Resets quiesce writers without touching the user's switch: two resets at
 * once leave recording on, and a reset never turns it back on.
 */
static void ring_concurrent_resets_keep_the_switch(struct kunit *test)
{
	struct snaptrace_buffer *buf = snaptrace_buffer_alloc(SNAPTRACE_MIN_SIZE,
							      SNAPTRACE_OVERWRITE);
	struct reset_work a = { .buf = buf }, b = { .buf = buf };

	KUNIT_ASSERT_FALSE(test, IS_ERR(buf));
	INIT_WORK_ONSTACK(&a.work, reset_many);
	INIT_WORK_ONSTACK(&b.work, reset_many);
	queue_work(system_unbound_wq, &a.work);
	queue_work(system_unbound_wq, &b.work);
	flush_work(&a.work);
	flush_work(&b.work);
	destroy_work_on_stack(&a.work);
	destroy_work_on_stack(&b.work);
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), 0);

	snaptrace_record_off(buf);
	snaptrace_reset(buf);
	KUNIT_EXPECT_FALSE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), -EBUSY);
	snaptrace_buffer_free(buf);
}

static struct kunit_case snaptrace_ring_cases[] = {
	KUNIT_CASE(ring_alloc_rejects_bad_args),
	KUNIT_CASE(ring_alloc_rounds_size_up),
	KUNIT_CASE(ring_new_buffer_is_empty_and_on),
	KUNIT_CASE(ring_bad_len_is_rejected_uncounted),
	KUNIT_CASE(ring_reserve_holds_preemption_until_commit),
	KUNIT_CASE(ring_every_size_class_roundtrips),
	KUNIT_CASE(ring_record_off_refuses_and_keeps),
	KUNIT_CASE(ring_mode_switch_keeps_contents),
	KUNIT_CASE(ring_overwrite_wraps_exact_overrun),
	KUNIT_CASE(ring_stop_when_full_exact_dropped),
	KUNIT_CASE(ring_wrap_pads_tail),
	KUNIT_CASE(ring_bad_cpu_is_rejected),
	KUNIT_CASE(ring_consume_all_cpus_in_ts_order),
	KUNIT_CASE(ring_iterator_is_non_consuming),
	KUNIT_CASE(ring_iterator_stale_after_reset),
	KUNIT_CASE(ring_iterator_stale_after_resize),
	KUNIT_CASE(ring_reset_empties_all_cpus),
	KUNIT_CASE(ring_resize_rejects_bad_size),
	KUNIT_CASE(ring_resize_discards_and_changes_capacity),
	KUNIT_CASE_PARAM(ring_write_in_context, ring_write_ctx_gen_params),
	KUNIT_CASE_PARAM(ring_nested_in_reservation, ring_nested_ctx_gen_params),
	KUNIT_CASE_SLOW(ring_stress_all_cpus),
	KUNIT_CASE_PARAM(ring_fill_in_reservation_drops_exactly, ring_fill_ctx_gen_params),
	KUNIT_CASE_SLOW(ring_reset_under_writers_keeps_counts_exact),
	KUNIT_CASE_SLOW(ring_wait_wakes_on_data_and_off),
	KUNIT_CASE_SLOW(ring_wait_survives_a_lost_wakeup),
	KUNIT_CASE_SLOW(ring_poll_survives_a_lost_wakeup),
	KUNIT_CASE(ring_concurrent_resets_keep_the_switch),
	{}
};

static struct kunit_suite snaptrace_ring_suite = {
	.name = "snaptrace_ring",
	.test_cases = snaptrace_ring_cases,
};

kunit_test_suites(&snaptrace_ring_suite);
