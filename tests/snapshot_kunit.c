// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the snaptrace snapshot: the spare buffer is allocated
 * only when asked for, snapshot() swaps the halves from any context
 * (softirq, hardirq, irqs off, NMI) without sleeping, misses are counted
 * (and with stop-on-miss leave a marker and stop recording), clear, free
 * and resize keep both halves consistent, iterators see -ESTALE, and
 * alloc/free/clear/resize race safely with snapshots from a timer, as do
 * iterating and consuming either half while writers run, and resizing
 * while every CPU takes snapshots from interrupts.
 *
 * Written from the API contract in <snaptrace/snaptrace.h>; the helpers
 * both suites share are in helpers.c.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/preempt.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <kunit/resource.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "st_kunit.h"

/* Race run: rounds of alloc/free/clear/resize, and the timer's bounds. */
#define ST_RACE_ROUNDS		100
#define ST_RACE_TICKS		20000
#define ST_RACE_PERIOD_NS	(100 * NSEC_PER_USEC)
/* Rounds of two threads allocating the spare at once. */
#define ST_ALLOC_RACE_ROUNDS	10

/* Job: write one 40-byte self-checking record (seq 0), then snapshot(). */
static void st_job_write_snap(struct st_job *job)
{
	u8 p[40];

	st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, job->cpu, 0);
	job->rc[0] = snaptrace_write(job->buf, p, sizeof(p));
	job->rc[1] = snaptrace_snapshot(job->buf);
}

static long st_snapshot_fn(void *data)
{
	return snaptrace_snapshot(data);
}

/* snapshot() called from a kworker on @cpu, so a marker lands there. */
static int st_snapshot_on(struct snaptrace_buffer *buf, int cpu)
{
	return work_on_cpu(cpu, st_snapshot_fn, buf);
}

/* The buffer-wide miss count, as reported on every possible CPU. */
static void st_expect_misses(struct kunit *test, struct snaptrace_buffer *buf, u64 misses)
{
	int cpu;

	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ_MSG(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).snapshot_misses,
				    misses, "cpu %d", cpu);
}

/* Every CPU of @which is empty, all counters 0. */
static void st_expect_half_empty(struct kunit *test, struct snaptrace_buffer *buf,
				 enum snaptrace_which which)
{
	struct snaptrace_record *rec = st_rec_new(test);
	int cpu;

	for_each_possible_cpu(cpu)
		st_expect_empty(test, buf, which, cpu);
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, which, SNAPTRACE_ALL_CPUS, rec), -ENODATA);
}

/*
 * The live half of an empty overwrite-mode buffer holds exactly
 * @size / 64 records of 64 bytes: @cap + 3 written leave @cap, 3 overrun.
 */
static void st_expect_live_capacity(struct kunit *test, struct snaptrace_buffer *buf,
				    size_t size)
{
	unsigned int cap = size / (size_t)st_rec_bytes(48);
	struct snaptrace_stats st;
	int cpu = st_cpu();

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, cap + 3, 48, 0).ok, cap + 3);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.entries, cap, "size %zu", size);
	KUNIT_EXPECT_EQ_MSG(test, st.overrun, 3, "size %zu", size);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
}

/* ---- the spare, lazily ---- */

/*
 * A new buffer has no spare: the snapshot half is -ENOENT for stats,
 * consume, iterators and clear; freeing the absent spare is harmless.
 */
static void snap_spare_is_lazy(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_iter *it;
	struct snaptrace_stats st;
	int cpu;

	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	for_each_possible_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, snaptrace_cpu_stats(buf, SNAPTRACE_SNAPSHOT, cpu, &st),
				-ENOENT);
		KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, cpu, rec),
				-ENOENT);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, rec),
			-ENOENT);
	it = snaptrace_iter_start(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(it), -ENOENT);
	if (!IS_ERR_OR_NULL(it))
		snaptrace_iter_stop(it);
	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), -ENOENT);
	snaptrace_free_snapshot(buf);
	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	st_expect_misses(test, buf, 0);
}

/*
 * snapshot() without a spare returns -ENOENT and counts a miss (on every
 * CPU's stats), and changes nothing: contents, counters, recording.
 */
static void snap_without_spare_misses(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct snaptrace_stats st;
	struct st_check c;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 32, 0).ok, 5);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), -ENOENT);
	st_expect_misses(test, buf, 1);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), -ENOENT);
	st_expect_misses(test, buf, 2);

	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 5);
	KUNIT_EXPECT_EQ(test, st.written, 5);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 5);
	KUNIT_EXPECT_EQ(test, c.markers + c.bad + c.gaps + c.order, 0);
}

/*
 * With stop-on-miss, a miss writes one MARKER record into the live half
 * (after the records already there) and turns recording off; turned back
 * off, a miss only counts.
 */
static void snap_stop_on_miss_marks_and_stops(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *recs;
	struct snaptrace_stats st;
	int cpu = st_cpu(), end, other;
	unsigned int got, i;
	struct st_check c;
	u8 p[32] = {};

	recs = kunit_kcalloc(test, 6, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	snaptrace_set_stop_on_miss(buf, true);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 3, 32, 0).ok, 3);
	KUNIT_EXPECT_EQ(test, st_snapshot_on(buf, cpu), -ENOENT);
	st_expect_misses(test, buf, 1);
	KUNIT_EXPECT_FALSE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, p, sizeof(p)), -EBUSY);

	got = st_collect(test, buf, SNAPTRACE_LIVE, cpu, recs, 6, &end);
	KUNIT_ASSERT_EQ(test, got, 4);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	for (i = 0; i < 3; i++) {
		struct st_hdr h;

		KUNIT_EXPECT_TRUE(test, st_payload_ok(&recs[i], &h));
		KUNIT_EXPECT_EQ(test, h.seq, i);
	}
	KUNIT_EXPECT_EQ(test, recs[3].type, SNAPTRACE_REC_MARKER);
	KUNIT_EXPECT_GE(test, recs[3].len, 1);
	KUNIT_EXPECT_LE(test, recs[3].len, SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_EQ(test, recs[3].cpu, cpu);
	KUNIT_EXPECT_GE(test, recs[3].ts, recs[2].ts);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 4);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
	for_each_possible_cpu(other) {
		if (other == cpu)
			continue;
		st = st_stats(test, buf, SNAPTRACE_LIVE, other);
		KUNIT_EXPECT_EQ(test, st.entries, 0);
	}

	snaptrace_set_stop_on_miss(buf, false);
	snaptrace_record_on(buf);
	KUNIT_EXPECT_EQ(test, st_snapshot_on(buf, cpu), -ENOENT);
	st_expect_misses(test, buf, 2);
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.markers, 1);
	KUNIT_EXPECT_EQ(test, c.count, 4);
}

/*
 * alloc_snapshot() allocates an empty spare and takes no snapshot; called
 * again it returns 0 and changes nothing.
 */
static void snap_alloc_is_idempotent_and_takes_none(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu(), i;
	struct st_check c;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 32, 0).ok, 4);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
		KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
		st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
		KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0,
					      &c), -ENODATA);
		KUNIT_EXPECT_EQ(test, c.count, 0);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 4);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).written, 4);
	}
	st_expect_misses(test, buf, 0);
}

/* ---- taking snapshots ---- */

/*
 * Records A, snapshot, records B: the snapshot half holds exactly A with
 * A's counters, the new live half started empty and holds exactly B.
 */
static void snap_swaps_halves(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_stats st;
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 6, 40, 0).ok, 6);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 40, 100).ok, 4);

	st = st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 6);
	KUNIT_EXPECT_EQ(test, st.written, 6);
	KUNIT_EXPECT_EQ(test, st.bytes, 6 * st_rec_bytes(40));
	st_expect_counted(test, buf, SNAPTRACE_SNAPSHOT, cpu, &st);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 6);
	KUNIT_EXPECT_EQ(test, c.first_seq, 0);
	KUNIT_EXPECT_EQ(test, c.last_seq, 5);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.markers, 0);
	KUNIT_EXPECT_EQ(test, st.oldest_ts, c.first_ts);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 4);
	KUNIT_EXPECT_EQ(test, st.written, 4);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 4);
	KUNIT_EXPECT_EQ(test, c.first_seq, 100);
	KUNIT_EXPECT_EQ(test, c.last_seq, 103);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.markers, 0);
	st_expect_misses(test, buf, 0);
}

/* A second snapshot replaces the first: A is gone, B is kept, live empty. */
static void snap_second_replaces_first(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 40, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 3, 40, 50).ok, 3);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);

	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries, 3);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 3);
	KUNIT_EXPECT_EQ(test, c.first_seq, 50);
	KUNIT_EXPECT_EQ(test, c.last_seq, 52);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad, 0);
}

/*
 * consume(SNAPSHOT) pops the snapshot's records in order and counts them
 * in the snapshot half's read; the live half is untouched.
 */
static void snap_consume_reads_snapshot(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_stats st;
	int cpu = st_cpu(), rc;
	struct st_hdr h;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 40, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 40, 10).ok, 2);

	for (i = 0; i < 5; i++) {
		rc = snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, i & 1 ? SNAPTRACE_ALL_CPUS : cpu,
				       rec);
		KUNIT_ASSERT_EQ(test, rc, 0);
		KUNIT_EXPECT_TRUE(test, st_payload_ok(rec, &h));
		KUNIT_EXPECT_EQ(test, h.seq, i);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, cpu, rec), -ENODATA);
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, rec),
			-ENODATA);
	st = st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu);
	KUNIT_EXPECT_EQ(test, st.read, 5);
	KUNIT_EXPECT_EQ(test, st.entries, 0);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	KUNIT_EXPECT_EQ(test, st.oldest_ts, 0);
	st_expect_counted(test, buf, SNAPTRACE_SNAPSHOT, cpu, &st);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 2);
	KUNIT_EXPECT_EQ(test, st.read, 0);
}

/* Iterating the snapshot half twice consumes nothing. */
static void snap_iter_is_non_consuming(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu(), i, rc;
	struct st_check c;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 7, 40, 0).ok, 7);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	for (i = 0; i < 2; i++) {
		rc = st_scan(test, buf, SNAPTRACE_SNAPSHOT, cpu, 0, &c);
		KUNIT_EXPECT_EQ(test, rc, -ENODATA);
		KUNIT_EXPECT_EQ(test, c.count, 7);
		KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad, 0);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries, 7);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).read, 0);
	}
}

/* ---- snapshots from every context ---- */

/* Records A in a task, then a job in @ctx writes one and snapshots. */
static void st_snap_in(struct kunit *test, enum st_ctx ctx)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ctx, st_job_write_snap);
	u64 entries = 0;
	struct st_check c;
	int cpu;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 3, 40, 0).ok, 3);
	st_job_go(test, job);
	KUNIT_EXPECT_TRUE_MSG(test, job->in_ctx, "not run in context %d", ctx);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->rc[1], 0);

	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	for_each_possible_cpu(cpu)
		entries += st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries;
	KUNIT_EXPECT_EQ(test, entries, 4);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 4);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.markers, 0);
	st_expect_misses(test, buf, 0);
}

static const enum st_ctx snap_ctxs[] = {
	ST_CTX_SOFTIRQ,
	ST_CTX_HARDIRQ,
	ST_CTX_IRQ_WORK,
	ST_CTX_IRQS_OFF,
	ST_CTX_NMI,
};

KUNIT_ARRAY_PARAM(snap_ctx, snap_ctxs, st_ctx_desc);

/*
 * snapshot() works in each context: from a tasklet (softirq), a hard
 * hrtimer callback and a hard irq_work (hardirq), with interrupts disabled,
 * and from an NMI handler that also writes a record.
 */
static void snap_in_context(struct kunit *test)
{
	st_snap_in(test, st_param_ctx(test));
}

/*
 * From an NMI, with no spare and stop-on-miss set: -ENOENT, one miss, a
 * marker after the NMI's own record, and recording off.
 */
static void snap_miss_with_stop_in_nmi(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ST_CTX_NMI, st_job_write_snap);
	struct snaptrace_record *recs;
	unsigned int got;
	struct st_hdr h;
	int end;

	recs = kunit_kcalloc(test, 3, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	snaptrace_set_stop_on_miss(buf, true);
	st_job_go(test, job);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->rc[1], -ENOENT);
	KUNIT_EXPECT_FALSE(test, snaptrace_record_is_on(buf));
	st_expect_misses(test, buf, 1);

	got = st_collect(test, buf, SNAPTRACE_LIVE, job->cpu, recs, 3, &end);
	KUNIT_ASSERT_EQ(test, got, 2);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	KUNIT_EXPECT_TRUE(test, st_payload_ok(&recs[0], &h));
	KUNIT_EXPECT_EQ(test, recs[1].type, SNAPTRACE_REC_MARKER);
	KUNIT_EXPECT_EQ(test, recs[1].cpu, job->cpu);
}

/*
 * A task reserves and fills half a record; on the same CPU an interrupt
 * writes a record and snapshots; the task then commits. Every record
 * committed before the swap (A and the interrupt's) is in the snapshot,
 * nothing read anywhere is torn, the outer record shows up at most once,
 * and both halves balance.
 */
static void st_snap_in_reservation(struct kunit *test, enum st_ctx ctx)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ctx, st_job_write_snap);
	unsigned int got, i, outer_seen = 0, outer_live = 0, a_seen = 0, inner_seen = 0, bad = 0;
	static const enum snaptrace_which halves[] = { SNAPTRACE_SNAPSHOT, SNAPTRACE_LIVE };
	struct snaptrace_record *recs;
	struct snaptrace_stats st;
	unsigned int h_i;
	int cpu, end, other;

	recs = kunit_kcalloc(test, 8, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 3, 40, 0).ok, 3);

	cpu = st_job_in_reservation(test, job, 64, 1000);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_EQ(test, job->cpu, cpu);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->rc[1], 0);

	for (h_i = 0; h_i < ARRAY_SIZE(halves); h_i++) {
		got = st_collect(test, buf, halves[h_i], SNAPTRACE_ALL_CPUS, recs, 8, &end);
		KUNIT_EXPECT_EQ(test, end, -ENODATA);
		for (i = 0; i < got; i++) {
			struct st_hdr h;

			if (!st_payload_ok(&recs[i], &h)) {
				bad++;
				continue;
			}
			if (h.magic == ST_MAGIC_IRQ)
				inner_seen += halves[h_i] == SNAPTRACE_SNAPSHOT;
			else if (h.seq == 1000 && halves[h_i] == SNAPTRACE_SNAPSHOT)
				outer_seen++;
			else if (h.seq == 1000)
				outer_live++;
			else
				a_seen += halves[h_i] == SNAPTRACE_SNAPSHOT;
		}
		for_each_possible_cpu(other) {
			st = st_stats(test, buf, halves[h_i], other);
			st_expect_counted(test, buf, halves[h_i], other, &st);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ_MSG(test, a_seen, 3, "records committed before the swap");
	KUNIT_EXPECT_EQ_MSG(test, inner_seen, 1, "the interrupt's record, committed before it");
	/* Reserved before the interrupt's snapshot: in it, once, on commit. */
	KUNIT_EXPECT_EQ_MSG(test, outer_seen, 1, "the open record, in the snapshot");
	KUNIT_EXPECT_EQ_MSG(test, outer_live, 0, "the open record, in live");
}

static const enum st_ctx snap_res_ctxs[] = {
	ST_CTX_IRQ_WORK,
	ST_CTX_NMI,
};

KUNIT_ARRAY_PARAM(snap_res_ctx, snap_res_ctxs, st_ctx_desc);

/*
 * A hardirq or NMI snapshot inside an open reservation keeps every record
 * whole.
 */
static void snap_in_reservation(struct kunit *test)
{
	st_snap_in_reservation(test, st_param_ctx(test));
}

/* ---- clear, free, snapshot_alloc ---- */

/*
 * clear_snapshot() empties the spare and keeps it; the live half is
 * untouched, and the next snapshot works.
 */
static void snap_clear_empties_spare(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 40, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 40, 20).ok, 2);

	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), 0);
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
	st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), 0);

	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 2);
	KUNIT_EXPECT_EQ(test, c.first_seq, 20);
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
}

/*
 * free_snapshot() drops the spare (twice is harmless): the snapshot half
 * is -ENOENT again, snapshot() misses, the live half is untouched.
 */
static void snap_free_then_snapshot_misses(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_stats st;
	int cpu = st_cpu();

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 40, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 40, 20).ok, 2);

	snaptrace_free_snapshot(buf);
	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	snaptrace_free_snapshot(buf);
	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_cpu_stats(buf, SNAPTRACE_SNAPSHOT, cpu, &st), -ENOENT);
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, cpu, rec), -ENOENT);
	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), -ENOENT);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), -ENOENT);
	st_expect_misses(test, buf, 1);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 2);
	KUNIT_EXPECT_EQ(test, st.written, 2);

	KUNIT_EXPECT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
}

/*
 * snapshot_alloc() allocates the spare when missing and snapshots; with a
 * spare already there it just snapshots.
 */
static void snap_snapshot_alloc_allocates_and_swaps(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 40, 0).ok, 4);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot_alloc(buf), 0);
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 4);
	KUNIT_EXPECT_EQ(test, c.first_seq, 0);

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 40, 30).ok, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot_alloc(buf), 0);
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 2);
	KUNIT_EXPECT_EQ(test, c.first_seq, 30);
	st_expect_misses(test, buf, 0);
}

struct st_allocer {
	struct snaptrace_buffer *buf;
	struct completion *go;
	struct completion done;
	struct task_struct *task;
	int rc;
};

static int st_allocer_fn(void *data)
{
	struct st_allocer *a = data;

	wait_for_completion(a->go);
	a->rc = snaptrace_alloc_snapshot(a->buf);
	complete(&a->done);
	return 0;
}

/*
 * Two threads (on two CPUs when there are two) released together both get
 * 0 from alloc_snapshot(), and there is one spare of the live half's size.
 */
static void snap_concurrent_alloc_single_spare(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_allocer a[2] = { { .buf = buf }, { .buf = buf } };
	struct completion go;
	unsigned int round, i;
	int cpus[2];

	cpus[0] = cpumask_first(cpu_online_mask);
	cpus[1] = cpumask_next(cpus[0], cpu_online_mask);
	if (cpus[1] >= nr_cpu_ids)
		cpus[1] = cpus[0];

	for (round = 0; round < ST_ALLOC_RACE_ROUNDS; round++) {
		init_completion(&go);
		for (i = 0; i < 2; i++) {
			a[i].go = &go;
			a[i].rc = -EINPROGRESS;
			init_completion(&a[i].done);
			a[i].task = st_kthread(st_allocer_fn, &a[i], cpus[i], NULL);
			if (IS_ERR(a[i].task))
				break;
		}
		if (i < 2) {
			if (i == 1)
				kthread_stop_put(a[0].task);
			KUNIT_FAIL_AND_ABORT(test, "cannot create the threads");
		}
		wake_up_process(a[0].task);
		wake_up_process(a[1].task);
		complete_all(&go);
		/* A kthread stopped before it ran never runs: wait for it first. */
		for (i = 0; i < 2; i++) {
			wait_for_completion(&a[i].done);
			kthread_stop_put(a[i].task);
		}

		KUNIT_EXPECT_EQ_MSG(test, a[0].rc, 0, "round %u", round);
		KUNIT_EXPECT_EQ_MSG(test, a[1].rc, 0, "round %u", round);
		KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
		st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
		if (round + 1 < ST_ALLOC_RACE_ROUNDS)
			snaptrace_free_snapshot(buf);
	}

	/* Swap the spare in and check it holds what the live half held. */
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	st_expect_live_capacity(test, buf, SNAPTRACE_MIN_SIZE);
}

/* ---- resize with a spare ---- */

/*
 * With a spare, a bad resize changes nothing, and a good one resizes both
 * halves, empties both, and zeroes their counters: each half then holds
 * exactly size / 64 records of 64 bytes.
 */
static void snap_resize_resizes_both_halves(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	const size_t size = 2 * SNAPTRACE_MIN_SIZE;
	unsigned int cap = size / (size_t)st_rec_bytes(48);
	struct snaptrace_stats st;
	int cpu = st_cpu();

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 48, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 48, 0).ok, 2);

	KUNIT_EXPECT_EQ(test, snaptrace_resize(buf, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_resize(buf, SNAPTRACE_MAX_SIZE + 1), -EINVAL);
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries, 5);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 2);

	KUNIT_ASSERT_EQ(test, snaptrace_resize(buf, size), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), size);
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));

	st_expect_live_capacity(test, buf, size);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	st = st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, cap);
	KUNIT_EXPECT_EQ(test, st.overrun, 3);
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	st_expect_live_capacity(test, buf, size);
}

/* ---- iterators and replaced halves ---- */

/*
 * A snapshot while iterating the snapshot half, or the live half, makes
 * the iterator report -ESTALE.
 */
static void snap_iter_stale_after_snapshot(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	static const enum snaptrace_which halves[] = { SNAPTRACE_SNAPSHOT, SNAPTRACE_LIVE };
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_iter *it;
	int cpu = st_cpu(), rc[3];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 40, 0).ok, 4);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	for (i = 0; i < ARRAY_SIZE(halves); i++) {
		KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 40, 10).ok, 4);
		it = snaptrace_iter_start(buf, halves[i], SNAPTRACE_ALL_CPUS);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
		rc[0] = snaptrace_iter_next(it, rec);
		rc[1] = snaptrace_snapshot(buf);
		rc[2] = snaptrace_iter_next(it, rec);
		snaptrace_iter_stop(it);
		KUNIT_EXPECT_EQ_MSG(test, rc[0], 0, "half %d", halves[i]);
		KUNIT_EXPECT_EQ_MSG(test, rc[1], 0, "half %d", halves[i]);
		KUNIT_EXPECT_EQ_MSG(test, rc[2], -ESTALE, "half %d", halves[i]);
	}
}

static int st_do_clear_snapshot(struct snaptrace_buffer *buf, size_t unused)
{
	return snaptrace_clear_snapshot(buf);
}

/* clear_snapshot() while iterating the snapshot half: -ESTALE. */
static void snap_iter_stale_after_clear(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct st_async as = { .buf = buf, .fn = st_do_clear_snapshot };
	struct snaptrace_iter *it;
	int rc;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 4, 40, 0).ok, 4);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	it = snaptrace_iter_start(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	rc = snaptrace_iter_next(it, rec);
	if (!st_async_run(test, &as, it))
		return;
	KUNIT_EXPECT_EQ(test, rc, 0);
	KUNIT_EXPECT_EQ(test, as.rc, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_iter_next(it, rec), -ESTALE);
	snaptrace_iter_stop(it);
	st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
}

/* ---- racing the spare's life cycle against snapshots from a timer ---- */

struct st_race {
	struct snaptrace_buffer *buf;
	struct hrtimer timer;
	u32 irq_seq;		/* the timer's own sequence, pinned to one CPU */
	atomic_t ticks;
	atomic_t snap_ok;
	atomic_t snap_noent;
	atomic_t snap_busy;
	atomic_t unexpected;	/* an rc the spec does not allow, in the timer */
	/*
	 * Odd while the operations thread resizes or frees the spare (the
	 * only times a snapshot may say -EBUSY), and while it resets (the
	 * only time a write may be refused): a refusal seen with both even
	 * and unchanged around the call has no excuse.
	 */
	atomic_t swapping;
	atomic_t resetting;
	atomic_t busy_unexplained;
	atomic_t refused_unexplained;
	atomic_t write_bad;	/* a write refused but by a reset (-EBUSY) */
	atomic_t write_rc;	/* its rc */
	/*
	 * The timer's CPU, and its ticks elsewhere: the writes never nest
	 * only while the operations thread runs on another CPU.
	 */
	int tcpu;
	atomic_t elsewhere;
	/* the operations thread's findings */
	unsigned int op_errors;
	unsigned int first_round;
	int first_op;
	int first_rc;
	unsigned int records;
	unsigned int records_bad;
	unsigned int stale;
	u32 seq;
	struct completion done;
};

static enum hrtimer_restart st_race_tick(struct hrtimer *t)
{
	struct st_race *r = container_of(t, struct st_race, timer);
	u8 p[ST_PAYLOAD_MIN + 12];
	int rc, g0, g1;

	if (smp_processor_id() != r->tcpu)
		atomic_inc(&r->elsewhere);
	st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, smp_processor_id(), r->irq_seq++);
	g0 = atomic_read(&r->resetting);
	smp_mb(); /* the window's count before the call */
	rc = snaptrace_write(r->buf, p, sizeof(p));
	smp_mb(); /* the call before the window's count */
	g1 = atomic_read(&r->resetting);
	if (rc && rc != -EBUSY) {
		atomic_inc(&r->write_bad);	/* overwrite mode: never -ENOSPC */
		atomic_set(&r->write_rc, rc);
	} else if (rc && !(g0 & 1) && g0 == g1) {
		atomic_inc(&r->refused_unexplained);
	}
	g0 = atomic_read(&r->swapping);
	smp_mb(); /* the window's count before the call */
	rc = snaptrace_snapshot(r->buf);
	smp_mb(); /* the call before the window's count */
	g1 = atomic_read(&r->swapping);
	if (!rc) {
		atomic_inc(&r->snap_ok);
	} else if (rc == -ENOENT) {
		atomic_inc(&r->snap_noent);
	} else if (rc == -EBUSY) {
		atomic_inc(&r->snap_busy);
		if (!(g0 & 1) && g0 == g1)
			atomic_inc(&r->busy_unexplained);
	} else {
		atomic_inc(&r->unexpected);
	}
	if (atomic_inc_return(&r->ticks) >= ST_RACE_TICKS)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(ST_RACE_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* On the timer's CPU (an IPI): start it, pinned there. */
static void st_race_arm(void *data)
{
	struct st_race *r = data;

	hrtimer_start(&r->timer, ns_to_ktime(ST_RACE_PERIOD_NS), HRTIMER_MODE_REL_PINNED_HARD);
}

/* Notes an operation result outside @ok1/@ok2 (the allowed ones). */
static void st_race_rc(struct st_race *r, unsigned int round, int op, int rc,
		       int ok1, int ok2)
{
	if (rc == ok1 || rc == ok2)
		return;
	if (!r->op_errors++) {
		r->first_round = round;
		r->first_op = op;
		r->first_rc = rc;
	}
}

/* Opens or closes a window (see struct st_race), ordered around the call. */
static void st_race_window(atomic_t *gen)
{
	smp_mb__before_atomic(); /* the calls before, before the count */
	atomic_inc(gen);
	smp_mb__after_atomic(); /* the count before the calls after */
}

/* Iterates a half: records intact, ended by -ENODATA or -ESTALE only. */
static int st_race_read(struct st_race *r, struct snaptrace_record *rec,
			enum snaptrace_which which)
{
	struct snaptrace_iter *it = snaptrace_iter_start(r->buf, which, SNAPTRACE_ALL_CPUS);
	struct st_hdr h;
	int rc;

	if (IS_ERR(it))
		return PTR_ERR(it);
	for (;;) {
		rc = snaptrace_iter_next(it, rec);
		if (rc)
			break;
		r->records++;
		if (!st_payload_ok(rec, &h))
			r->records_bad++;
	}
	snaptrace_iter_stop(it);
	if (rc == -ESTALE)
		r->stale++;
	return rc == -ESTALE ? -ENODATA : rc;
}

static int st_race_ops(void *data)
{
	struct st_race *r = data;
	struct snaptrace_buffer *buf = r->buf;
	struct snaptrace_record *rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	u8 p[ST_PAYLOAD_MIN + 20];
	unsigned int round, i;
	struct st_hdr h;
	int rc;

	if (!rec) {
		st_race_rc(r, 0, 0, -ENOMEM, 0, 0);
		complete(&r->done);
		return 0;
	}
	for (round = 0; round < ST_RACE_ROUNDS; round++) {
		st_race_rc(r, round, 1, snaptrace_alloc_snapshot(buf), 0, 0);
		st_race_rc(r, round, 2, snaptrace_snapshot_is_allocated(buf), 1, 1);
		for (i = 0; i < 4; i++) {
			preempt_disable();
			st_payload_fill(p, sizeof(p), ST_MAGIC, smp_processor_id(), r->seq++);
			rc = snaptrace_write(buf, p, sizeof(p));
			preempt_enable();
			st_race_rc(r, round, 3, rc, 0, 0);
		}
		/* Nothing of ours swaps the halves now: no excuse for -EBUSY. */
		st_race_rc(r, round, 4, snaptrace_snapshot(buf), 0, 0);
		st_race_rc(r, round, 5, st_race_read(r, rec, SNAPTRACE_SNAPSHOT), -ENODATA,
			   -ENODATA);
		st_race_rc(r, round, 6, snaptrace_clear_snapshot(buf), 0, 0);
		switch (round % 4) {
		case 0:
			st_race_window(&r->swapping);
			rc = snaptrace_resize(buf, round & 4 ? SNAPTRACE_MIN_SIZE
						     : 2 * SNAPTRACE_MIN_SIZE);
			st_race_window(&r->swapping);
			st_race_rc(r, round, 7, rc, 0, 0);
			break;
		case 1:
			st_race_window(&r->swapping);
			snaptrace_free_snapshot(buf);
			snaptrace_free_snapshot(buf);
			st_race_window(&r->swapping);
			st_race_rc(r, round, 8, snaptrace_snapshot_is_allocated(buf), 0, 0);
			st_race_rc(r, round, 9, snaptrace_snapshot(buf), -ENOENT, -ENOENT);
			break;
		case 2:
			st_race_rc(r, round, 10, snaptrace_snapshot_alloc(buf), 0, 0);
			break;
		default:
			st_race_window(&r->resetting);
			snaptrace_reset(buf);
			st_race_window(&r->resetting);
			break;
		}
		st_race_rc(r, round, 11, st_race_read(r, rec, SNAPTRACE_LIVE), -ENODATA,
			   -ENODATA);
		for (i = 0; i < 4; i++) {
			rc = snaptrace_consume(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec);
			st_race_rc(r, round, 12, rc, 0, -ENODATA);
			if (rc)
				break;
			r->records++;
			if (!st_payload_ok(rec, &h))
				r->records_bad++;
		}
		cond_resched();
	}
	kfree(rec);
	complete(&r->done);
	return 0;
}

/*
 * alloc, snapshot, clear, free, snapshot_alloc, resize, reset, iterators
 * and consume, in rounds on one CPU, while an hrtimer on another writes
 * and snapshots: every result is one the spec allows, and every refusal
 * has its excuse (a snapshot's -EBUSY only while a resize or free runs,
 * never beside another snapshot, a writer or a reader; a write refused
 * only while a reset runs), nothing read is torn, and at rest the buffer
 * is consistent, exactly, and still records.
 */
static void snap_race_lifecycle_vs_timer(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct task_struct *ops;
	struct st_race *r;
	int tcpu, ocpu;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->buf = buf;
	init_completion(&r->done);
	hrtimer_setup(&r->timer, st_race_tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);

	/*
	 * The timer on one CPU, the operations thread on the other: on the
	 * thread's CPU the timer would nest in its writes, and a write held
	 * open across snapshots may rightly be refused (I2). A pinned timer
	 * runs where it was started: start it there, by IPI, once the thread
	 * exists, so that the two overlap from the start.
	 */
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs (the guest has -smp 2)");
	tcpu = cpumask_first(cpu_online_mask);
	ocpu = cpumask_any_but(cpu_online_mask, tcpu);
	r->tcpu = tcpu;
	ops = st_kthread(st_race_ops, r, ocpu, NULL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ops), "kthread: %pe", ops);
	KUNIT_EXPECT_EQ(test, smp_call_function_single(tcpu, st_race_arm, r, 1), 0);
	wake_up_process(ops);
	/* A kthread stopped before it ran never runs: wait for the work first. */
	wait_for_completion(&r->done);
	kthread_stop_put(ops);
	hrtimer_cancel(&r->timer);

	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->elsewhere), 0,
			    "timer ticks off CPU %d", tcpu);
	KUNIT_EXPECT_EQ_MSG(test, r->op_errors, 0, "first: round %u op %d rc %d",
			    r->first_round, r->first_op, r->first_rc);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->unexpected), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->busy_unexplained), 0,
			    "snapshots refused with no resize or free running");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->refused_unexplained), 0,
			    "writes refused with no reset running");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->write_bad), 0,
			    "the hrtimer's writes refused with rc %d", atomic_read(&r->write_rc));
	KUNIT_EXPECT_EQ(test, r->records_bad, 0);
	kunit_info(test, "timer: %d snapshots, %d -ENOENT, %d -EBUSY; %u records read, %u stale\n",
		   atomic_read(&r->snap_ok), atomic_read(&r->snap_noent),
		   atomic_read(&r->snap_busy), r->records, r->stale);

	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
	st_expect_half_sane(test, buf, SNAPTRACE_SNAPSHOT);
	KUNIT_EXPECT_EQ(test, st_write_n(test, buf, st_cpu(), 3, 40, 0).ok, 3);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), 0);
}

/* ---- reading while an hrtimer takes snapshots under writers ---- */

/* Records per writer and their pace, timer bounds, ring size, rounds. */
#define ST_SNAPREAD_RECORDS	20000
#define ST_SNAPREAD_PACE_US	100
/* Records held open that much longer, for snapshots to land inside. */
#define ST_SNAPREAD_HOLD_US	20
#define ST_SNAPREAD_TICKS	10000
#define ST_SNAPREAD_PERIOD_NS	(500 * NSEC_PER_USEC)
#define ST_SNAPREAD_SIZE	(2 * SNAPTRACE_MIN_SIZE)
#define ST_SNAPREAD_ROUNDS	20000
/* Rounds of iterating per round of consuming. */
#define ST_SNAPREAD_CONSUME_EVERY	4
/* Records one iteration, and one round of consume, read at most. */
#define ST_SNAPREAD_BATCH	4096
/* What the reading thread found. */
struct st_snapread {
	unsigned int iterations;
	unsigned int iterated;
	unsigned int ended;		/* iterations ended by -ENODATA */
	unsigned int stale;		/* iterations ended by -ESTALE */
	unsigned int bad_rc;		/* any other result */
	unsigned int must_stale;	/* not -ESTALE after a swap since iter_start */
	unsigned int spurious_stale;	/* -ESTALE although no snapshot() ran */
	unsigned int short_end;		/* -ENODATA short of what the half held */
	unsigned int short_end_swap;	/* ... with a snapshot begun meanwhile */
	unsigned int long_end;		/* -ENODATA past what a frozen half held */
	unsigned int checked;		/* CPUs whose count was checked */
	unsigned int in_flight;		/* ... not: a write begun before the cut not ended */
	unsigned int torn;
	unsigned int order;		/* a CPU's seq went backwards */
	unsigned int pos_back;		/* a CPU's pos went backwards */
	unsigned int consume_bad_rc;
	struct st_check consumed;	/* across all rounds */
	/* Per CPU, for one iteration: */
	u64 *held;			/* entries the stats counted */
	u64 *found;			/* records the iterator found */
	bool *settled;			/* every write begun before the cut ended */
};

/*
 * Iterates the snapshot half once while the timer swaps halves. Sound
 * checks only (see the calls' numbers in struct st_snap_timer):
 * - a call made after a swap that began after iter_start() returned must
 *   give -ESTALE (the half read is no longer the snapshot, or was reset),
 *   when no snapshot() call was running during iter_start(): one that was
 *   may have just emptied the half iter_start() picked and be about to
 *   make it live; the next swap then makes that same half the snapshot
 *   again, unchanged since the reset iter_start() waited for, and reading
 *   it from its start is right (calls between the two swaps get -ESTALE);
 * - -ESTALE needs a snapshot() call running at some point since before
 *   iter_start();
 * - -ENODATA, when no snapshot() call ran from the stats to the end of
 *   iter_start(), means the iterator passed every record of the half it
 *   started on, so on each CPU whose snapshot ring was quiescent at the
 *   stats (every reservation made before its cut had committed: the
 *   writer's finished count reached its begun count read after the cut) it
 *   must find exactly what the stats counted: no slack (the
 *   snapshot is frozen once taken: nothing removes its records, its
 *   counters do not move). A commit in progress counts its record before
 *   readers see it (at a quiescent point only entries == found holds):
 *   such a CPU is not checked that time. A swap that comes during the
 *   iteration changes nothing to that: an iteration over before it
 *   found every record; one it cut short must end in -ESTALE, not in an
 *   -ENODATA short of the count (counted apart, to tell the two cases).
 *   Nor can it find more: no late commit is due on a settled CPU.
 * Within one iteration each CPU's records come in the order written, at
 * growing positions, intact.
 */
static void st_snapread_iterate(struct st_snap_timer *tm, struct st_writers *ws,
				struct snaptrace_buffer *buf,
				struct snaptrace_record *rec, u64 *next, u64 *last,
				struct st_snapread *sr)
{
	int ended0, started1, started2, last_ok, cpu, rc = 0;
	struct snaptrace_stats st;
	struct snaptrace_iter *it;
	struct st_check c;
	unsigned long begun;
	unsigned int i;
	bool quiet;

	smp_mb(); /* what came before, before the count */
	ended0 = atomic_read(&tm->ended);
	smp_mb(); /* the count (after the cut) before begun */
	for_each_possible_cpu(cpu) {
		sr->settled[cpu] = true;
		sr->held[cpu] = 0;
		sr->found[cpu] = 0;
	}
	for (i = 0; i < ws->n; i++) {
		begun = READ_ONCE(ws->w[i].begun);
		smp_mb(); /* begun before finished */
		sr->settled[ws->w[i].cpu] = smp_load_acquire(&ws->w[i].finished) >= begun;
	}
	smp_mb(); /* finished before the stats */
	for_each_possible_cpu(cpu)
		if (!snaptrace_cpu_stats(buf, SNAPTRACE_SNAPSHOT, cpu, &st))
			sr->held[cpu] = st.entries;
	it = snaptrace_iter_start(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS);
	if (IS_ERR(it)) {
		sr->bad_rc++;
		return;
	}
	smp_mb(); /* iter_start() before the count */
	started1 = atomic_read(&tm->started);
	quiet = started1 == ended0;

	st_check_init(&c, next, SNAPTRACE_ALL_CPUS, 0);
	memset(last, 0, nr_cpu_ids * sizeof(*last));
	for (i = 0; i < ST_SNAPREAD_BATCH; i++) {
		smp_mb(); /* the previous call before the count */
		last_ok = atomic_read(&tm->last_ok);
		smp_mb(); /* the count before this call looks at the halves */
		rc = snaptrace_iter_next(it, rec);
		if (rc != -ESTALE && quiet && last_ok - started1 > 0)
			sr->must_stale++;
		if (rc)
			break;
		st_check_one(&c, rec);
		if (rec->cpu < nr_cpu_ids) {
			if (last[rec->cpu] && rec->pos < last[rec->cpu])
				sr->pos_back++;
			last[rec->cpu] = rec->pos + 1;
			sr->found[rec->cpu]++;
		}
	}
	snaptrace_iter_stop(it);
	smp_mb(); /* the last call before the count */
	started2 = atomic_read(&tm->started);

	if (rc == -ESTALE) {
		sr->stale++;
		if (started2 == ended0)
			sr->spurious_stale++;
	} else if (rc == -ENODATA) {
		sr->ended++;
		/*
		 * Fewer than held: with no snapshot begun at all, records were
		 * missed; with one begun during the iteration, the end of
		 * data was not checked against it (-ESTALE was due).
		 */
		for_each_possible_cpu(cpu) {
			if (!quiet)
				break;
			if (!sr->settled[cpu]) {
				sr->in_flight++;
				continue;
			}
			sr->checked++;
			if (sr->found[cpu] == sr->held[cpu])
				continue;
			if (sr->found[cpu] > sr->held[cpu]) {
				sr->long_end++;
				continue;
			}
			if (started2 == ended0)
				sr->short_end++;
			else
				sr->short_end_swap++;
		}
	} else if (rc) {
		sr->bad_rc++;
	}
	sr->iterations++;
	sr->iterated += c.count;
	sr->torn += c.bad + c.markers;
	sr->order += c.order;
}

/* Consumes the snapshot half until it is empty (or a batch is read). */
static void st_snapread_consume(struct snaptrace_buffer *buf,
				struct snaptrace_record *rec, struct st_snapread *sr)
{
	unsigned int i;
	int rc;

	for (i = 0; i < ST_SNAPREAD_BATCH; i++) {
		rc = snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, rec);
		if (rc == -ENODATA)
			return;
		if (rc) {
			sr->consume_bad_rc++;
			return;
		}
		st_check_one(&sr->consumed, rec);
	}
}

/*
 * A writer on every online CPU, an hrtimer taking snapshots every 500 us,
 * and the test thread iterating the snapshot half (checks in
 * st_snapread_iterate()) and, every fourth time, consuming it:
 * iter_next() gives only 0, -ESTALE or -ENODATA, each when it may; every
 * record consumed is intact and comes in its CPU's order (a snapshot
 * holds records written before those of the next one); at rest no
 * counter of either half wrapped below zero and each agrees with what an
 * iterator finds.
 */
static void snap_read_snapshot_vs_timer_snapshots(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, ST_SNAPREAD_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct st_snap_timer *tm;
	struct st_writers *ws;
	struct st_snapread *sr;
	u64 *next, *cnext, *last;
	unsigned int round;

	sr = kunit_kzalloc(test, sizeof(*sr), GFP_KERNEL);
	next = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*next), GFP_KERNEL);
	cnext = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*cnext), GFP_KERNEL);
	last = kunit_kcalloc(test, nr_cpu_ids, sizeof(*last), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sr);
	KUNIT_ASSERT_NOT_NULL(test, next);
	KUNIT_ASSERT_NOT_NULL(test, cnext);
	KUNIT_ASSERT_NOT_NULL(test, last);
	sr->held = kunit_kcalloc(test, nr_cpu_ids, sizeof(*sr->held), GFP_KERNEL);
	sr->found = kunit_kcalloc(test, nr_cpu_ids, sizeof(*sr->found), GFP_KERNEL);
	sr->settled = kunit_kcalloc(test, nr_cpu_ids, sizeof(*sr->settled), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sr->held);
	KUNIT_ASSERT_NOT_NULL(test, sr->found);
	KUNIT_ASSERT_NOT_NULL(test, sr->settled);
	st_check_init(&sr->consumed, cnext, SNAPTRACE_ALL_CPUS, 0);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);

	ws = st_writers_start(test, buf, ST_SNAPREAD_RECORDS, ST_SNAPREAD_PACE_US,
			      ST_SNAPREAD_HOLD_US);
	tm = st_snap_timer_start(test, buf, ST_SNAPREAD_PERIOD_NS, ST_SNAPREAD_TICKS);
	for (round = 0; round < ST_SNAPREAD_ROUNDS && st_writers_active(ws); round++) {
		st_snapread_iterate(tm, ws, buf, rec, next, last, sr);
		/* Not every round: iterations then find fuller snapshots. */
		if (!(round % ST_SNAPREAD_CONSUME_EVERY))
			st_snapread_consume(buf, rec, sr);
		cond_resched();
	}
	st_writers_stop(ws);
	st_snap_timer_stop(tm);

	st_writers_expect_sane(test, ws);
	KUNIT_EXPECT_EQ(test, atomic_read(&tm->unexpected), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&tm->ok), 0);
	/* Iterators, consumers and writers never make a snapshot fail. */
	KUNIT_EXPECT_EQ(test, atomic_read(&tm->busy), 0);
	KUNIT_EXPECT_EQ(test, sr->bad_rc, 0);
	KUNIT_EXPECT_EQ(test, sr->must_stale, 0);
	KUNIT_EXPECT_EQ(test, sr->spurious_stale, 0);
	KUNIT_EXPECT_EQ_MSG(test, sr->short_end, 0, "-ENODATA short, no snapshot begun");
	KUNIT_EXPECT_EQ_MSG(test, sr->short_end_swap, 0,
			    "-ENODATA short, a snapshot begun during the iteration");
	KUNIT_EXPECT_EQ_MSG(test, sr->long_end, 0, "-ENODATA past what a frozen snapshot held");
	/* The exact check above ran, not only its exceptions. */
	KUNIT_EXPECT_GT(test, sr->checked, 0U);
	KUNIT_EXPECT_EQ(test, sr->torn, 0);
	KUNIT_EXPECT_EQ(test, sr->order, 0);
	KUNIT_EXPECT_EQ(test, sr->pos_back, 0);
	KUNIT_EXPECT_EQ(test, sr->consume_bad_rc, 0);
	KUNIT_EXPECT_EQ(test, sr->consumed.bad, 0);
	KUNIT_EXPECT_EQ(test, sr->consumed.markers, 0);
	KUNIT_EXPECT_EQ(test, sr->consumed.order, 0);
	kunit_info(test, "%d snapshots (%d busy); %u iterations (%u ended, %u stale) of %u records; %u consumed; %u CPU counts checked, %u with a commit in flight\n",
		   atomic_read(&tm->ok), atomic_read(&tm->busy), sr->iterations, sr->ended,
		   sr->stale, sr->iterated, sr->consumed.count, sr->checked, sr->in_flight);

	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
	st_expect_half_sane(test, buf, SNAPTRACE_SNAPSHOT);
}

/* ---- consuming the live half while an hrtimer takes snapshots ---- */

/* Records per writer and their pace, timer bounds, bound on the run. */
#define ST_LIVEREAD_RECORDS	10000
#define ST_LIVEREAD_PACE_US	100
#define ST_LIVEREAD_TICKS	10000
#define ST_LIVEREAD_PERIOD_NS	(150 * NSEC_PER_USEC)
#define ST_LIVEREAD_POLLS	2000

struct st_live_consumer {
	struct snaptrace_buffer *buf;
	struct task_struct *task;
	bool stopped;
	struct st_check check;
	unsigned int errors;
	int first_error;
};

static int st_live_consumer_fn(void *data)
{
	struct st_live_consumer *lc = data;
	struct snaptrace_record *rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	int cpu = -1, which, rc;
	unsigned int i = 0;

	while (!kthread_should_stop()) {
		/* By turns every CPU merged, and one CPU at a time. */
		if (i++ & 1) {
			which = SNAPTRACE_ALL_CPUS;
		} else {
			cpu = cpumask_next(cpu, cpu_online_mask);
			if (cpu >= nr_cpu_ids)
				cpu = cpumask_first(cpu_online_mask);
			which = cpu;
		}
		rc = rec ? snaptrace_consume(lc->buf, SNAPTRACE_LIVE, which, rec) : -ENOMEM;
		if (!rc) {
			st_check_one(&lc->check, rec);
			continue;
		}
		if (rc != -ENODATA && !lc->errors++)
			lc->first_error = rc;
		if (which == SNAPTRACE_ALL_CPUS)
			usleep_range(50, 100);
	}
	kfree(rec);
	return 0;
}

static void st_live_consumer_stop(void *data)
{
	struct st_live_consumer *lc = data;

	if (lc->stopped)
		return;
	kthread_stop_put(lc->task);
	lc->stopped = true;
}

/*
 * Stop-when-full: a writer on every online CPU, an hrtimer taking
 * snapshots every 150 us, and a consumer thread emptying the live half
 * (merged and per CPU by turns), which both makes room for the writers
 * and races each swap. Every record consumed is intact and in its CPU's
 * order, consume() gives only 0 or -ENODATA, and at rest no counter of
 * either half wrapped below zero and each agrees with an iterator.
 */
static void snap_timer_snapshots_vs_live_consumer(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, ST_SNAPREAD_SIZE,
						  SNAPTRACE_STOP_WHEN_FULL);
	struct st_live_consumer *lc;
	struct st_snap_timer *tm;
	struct st_writers *ws;
	u64 *next;

	lc = kunit_kzalloc(test, sizeof(*lc), GFP_KERNEL);
	next = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*next), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lc);
	KUNIT_ASSERT_NOT_NULL(test, next);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	lc->buf = buf;
	st_check_init(&lc->check, next, SNAPTRACE_ALL_CPUS, 0);
	lc->task = st_kthread(st_live_consumer_fn, lc, -1, "st_kunit_consumer");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(lc->task), "kthread: %pe", lc->task);
	wake_up_process(lc->task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_live_consumer_stop, lc), 0);

	ws = st_writers_start(test, buf, ST_LIVEREAD_RECORDS, ST_LIVEREAD_PACE_US,
			      ST_SNAPREAD_HOLD_US);
	tm = st_snap_timer_start(test, buf, ST_LIVEREAD_PERIOD_NS, ST_LIVEREAD_TICKS);
	st_writers_finish(ws, ST_LIVEREAD_POLLS);
	st_snap_timer_stop(tm);
	st_live_consumer_stop(lc);

	st_writers_expect_sane(test, ws);
	KUNIT_EXPECT_EQ(test, atomic_read(&tm->unexpected), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&tm->ok), 0);
	/* A consumer never makes a snapshot fail. */
	KUNIT_EXPECT_EQ(test, atomic_read(&tm->busy), 0);
	KUNIT_EXPECT_EQ_MSG(test, lc->errors, 0, "first: %d", lc->first_error);
	KUNIT_EXPECT_EQ(test, lc->check.bad, 0);
	KUNIT_EXPECT_EQ(test, lc->check.markers, 0);
	KUNIT_EXPECT_EQ(test, lc->check.order, 0);
	KUNIT_EXPECT_GT(test, lc->check.count, 0);
	kunit_info(test, "%d snapshots (%d busy); %u consumed\n", atomic_read(&tm->ok),
		   atomic_read(&tm->busy), lc->check.count);

	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
	st_expect_half_sane(test, buf, SNAPTRACE_SNAPSHOT);
}

/* ---- resizing the live buffer while every CPU takes snapshots ---- */

/*
 * Rounds (one resize each), the snapshot triggers each CPU fires per
 * round and their period, the writers' pace and hold, and the sizes asked
 * for in turn (3 pages rounds up to 4: the size reported must be the
 * rounded one).
 */
#define ST_RSZ_ROUNDS		24
#define ST_RSZ_TICKS		150
#define ST_RSZ_PERIOD_NS	(40 * NSEC_PER_USEC)
#define ST_RSZ_PACE_US		50
#define ST_RSZ_HOLD_US		10
/* Each round's wait for its triggers: 1 ms (to 2) steps, at most this many. */
#define ST_RSZ_WAIT_LOOPS	10000

static const size_t st_rsz_sizes[] = {
	2 * SNAPTRACE_MIN_SIZE, 3 * PAGE_SIZE, SNAPTRACE_MIN_SIZE, 8 * PAGE_SIZE,
};

struct st_rsz;

/* One CPU's trigger: a pinned hard hrtimer, and a hard irq_work it raises. */
struct st_rsz_trig {
	struct st_rsz *rz;
	struct hrtimer timer;
	struct irq_work work;
	int cpu;
	unsigned int ticks;	/* written by the timer only, on its CPU */
};

struct st_rsz {
	struct snaptrace_buffer *buf;
	struct st_rsz_trig *trig;
	unsigned int ntrig;
	atomic_t hard;		/* snapshot() calls from the hrtimer */
	atomic_t work;		/* from the irq_work */
	atomic_t ok;
	atomic_t busy;
	atomic_t unexpected;	/* an rc the spec does not allow */
	atomic_t misplaced;	/* a trigger ran off its CPU, or not in hardirq */
	/* the reader's findings */
	struct task_struct *reader;
	bool reader_stopped;
	unsigned int iterations;
	unsigned int stale;
	unsigned int read_bad_rc;
	unsigned int read_torn;
	unsigned int read_order;
};

static void st_rsz_snap(struct st_rsz_trig *tg, atomic_t *calls)
{
	struct st_rsz *rz = tg->rz;
	int rc;

	if (smp_processor_id() != tg->cpu || !in_hardirq())
		atomic_inc(&rz->misplaced);
	atomic_inc(calls);
	rc = snaptrace_snapshot(rz->buf);
	if (!rc)
		atomic_inc(&rz->ok);
	else if (rc == -EBUSY)
		atomic_inc(&rz->busy);
	else
		atomic_inc(&rz->unexpected);
}

static void st_rsz_work_fn(struct irq_work *w)
{
	struct st_rsz_trig *tg = container_of(w, struct st_rsz_trig, work);

	st_rsz_snap(tg, &tg->rz->work);
}

/* Odd ticks snapshot from the hrtimer, even ones from the irq_work. */
static enum hrtimer_restart st_rsz_tick(struct hrtimer *t)
{
	struct st_rsz_trig *tg = container_of(t, struct st_rsz_trig, timer);
	unsigned int n = tg->ticks + 1;

	if (n & 1)
		st_rsz_snap(tg, &tg->rz->hard);
	else
		irq_work_queue(&tg->work);
	WRITE_ONCE(tg->ticks, n);
	if (n >= ST_RSZ_TICKS)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(ST_RSZ_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* On the trigger's CPU (an IPI): start its timer, pinned there. */
static void st_rsz_arm_one(void *data)
{
	struct st_rsz_trig *tg = data;

	tg->ticks = 0;
	hrtimer_start(&tg->timer, ns_to_ktime(ST_RSZ_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void st_rsz_arm(struct st_rsz *rz)
{
	unsigned int i;

	for (i = 0; i < rz->ntrig; i++)
		smp_call_function_single(rz->trig[i].cpu, st_rsz_arm_one, &rz->trig[i], 1);
}

/* Whether some trigger has not yet fired @ticks times. */
static bool st_rsz_below(struct st_rsz *rz, unsigned int ticks)
{
	unsigned int i;

	for (i = 0; i < rz->ntrig; i++)
		if (READ_ONCE(rz->trig[i].ticks) < ticks)
			return true;
	return false;
}

/* Waits (bounded) for every trigger to fire @ticks times. */
static bool st_rsz_wait(struct st_rsz *rz, unsigned int ticks)
{
	unsigned int loop;

	for (loop = 0; loop < ST_RSZ_WAIT_LOOPS && st_rsz_below(rz, ticks); loop++)
		usleep_range(1000, 2000);
	return !st_rsz_below(rz, ticks);
}

/* Nothing of the triggers runs afterwards; idempotent. */
static void st_rsz_disarm(struct st_rsz *rz)
{
	unsigned int i;

	for (i = 0; i < rz->ntrig; i++) {
		hrtimer_cancel(&rz->trig[i].timer);
		irq_work_sync(&rz->trig[i].work);
	}
}

static void st_rsz_stop_action(void *data)
{
	struct st_rsz *rz = data;

	if (rz->reader && !rz->reader_stopped) {
		kthread_stop_put(rz->reader);
		rz->reader_stopped = true;
	}
	st_rsz_disarm(rz);
}

/*
 * The reader: iterates both halves by turns while halves are resized and
 * swapped under it. Each iteration ends in -ENODATA or -ESTALE only, and
 * what it returned before is intact and in each CPU's order.
 */
static int st_rsz_reader_fn(void *data)
{
	struct st_rsz *rz = data;
	struct snaptrace_record *rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	u64 *next = kcalloc(2 * nr_cpu_ids, sizeof(*next), GFP_KERNEL);
	struct snaptrace_iter *it;
	struct st_check c;
	unsigned int i = 0;
	int rc;

	while (!kthread_should_stop()) {
		if (!rec || !next) {
			rz->read_bad_rc++;
			usleep_range(1000, 2000);
			continue;
		}
		it = snaptrace_iter_start(rz->buf, i++ & 1 ? SNAPTRACE_LIVE : SNAPTRACE_SNAPSHOT,
					  SNAPTRACE_ALL_CPUS);
		if (IS_ERR(it)) {
			rz->read_bad_rc++;
			continue;
		}
		st_check_init(&c, next, SNAPTRACE_ALL_CPUS, 0);
		while (!(rc = snaptrace_iter_next(it, rec)))
			st_check_one(&c, rec);
		snaptrace_iter_stop(it);
		rz->iterations++;
		if (rc == -ESTALE)
			rz->stale++;
		else if (rc != -ENODATA)
			rz->read_bad_rc++;
		rz->read_torn += c.bad + c.markers;
		rz->read_order += c.order;
		usleep_range(50, 100);
	}
	kfree(next);
	kfree(rec);
	return 0;
}

/*
 * At rest (triggers stopped, writers paused): @size is what both halves
 * are reported to have; each CPU's records in each half are intact and
 * consecutive (the writers are never refused in overwrite mode, so a
 * skipped sequence number is a lost record), the counters balance and
 * agree with an iterator, no half holds more bytes than @size.
 */
static void st_rsz_expect_rest(struct kunit *test, struct snaptrace_buffer *buf,
			       size_t size, unsigned int round)
{
	static const enum snaptrace_which halves[] = { SNAPTRACE_LIVE, SNAPTRACE_SNAPSHOT };
	struct snaptrace_stats st;
	struct st_check c;
	unsigned int i;
	int cpu;

	KUNIT_EXPECT_EQ_MSG(test, snaptrace_size_per_cpu(buf), size, "round %u", round);
	KUNIT_EXPECT_TRUE_MSG(test, snaptrace_snapshot_is_allocated(buf), "round %u", round);
	for (i = 0; i < ARRAY_SIZE(halves); i++) {
		st_expect_half_sane(test, buf, halves[i]);
		for_each_possible_cpu(cpu) {
			st = st_stats(test, buf, halves[i], cpu);
			KUNIT_EXPECT_LE_MSG(test, st.bytes, size, "round %u half %d cpu %d",
					    round, halves[i], cpu);
			KUNIT_EXPECT_EQ_MSG(test, st.dropped, 0, "round %u half %d cpu %d",
					    round, halves[i], cpu);
			st_scan(test, buf, halves[i], cpu, 0, &c);
			KUNIT_EXPECT_EQ_MSG(test, c.gaps, 0, "round %u half %d cpu %d",
					    round, halves[i], cpu);
		}
	}
}

/*
 * How many records of 64 bytes the emptied live half holds on st_cpu():
 * @size / 64, or one less when the reset left the ring's start off a
 * 64-byte boundary (the wrap then pads). A half of another geometry holds
 * twice or half as many.
 */
static u64 st_rsz_expect_capacity(struct kunit *test, struct snaptrace_buffer *buf,
				  size_t size, unsigned int round)
{
	unsigned int cap = size / (size_t)st_rec_bytes(48);
	struct snaptrace_stats st;
	int cpu = st_cpu();

	KUNIT_EXPECT_EQ(test, st_write_n(test, buf, cpu, cap + 3, 48, 0).ok, cap + 3);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_LE_MSG(test, st.entries, cap, "round %u size %zu", round, size);
	KUNIT_EXPECT_GE_MSG(test, st.entries, cap - 1, "round %u size %zu", round, size);
	KUNIT_EXPECT_EQ_MSG(test, st.entries + st.overrun, cap + 3, "round %u", round);
	st_expect_counted(test, buf, SNAPTRACE_LIVE, cpu, &st);
	return st.entries;
}

/*
 * The real geometry of both halves, at rest: emptied, each holds @size /
 * 64 records of 64 bytes on st_cpu() (see above); a snapshot swaps them
 * (the new live half is empty and the snapshot holds what the live half
 * held, so the halves are two), and both are emptied again before the
 * writers go on.
 */
static void st_rsz_expect_geometry(struct kunit *test, struct snaptrace_buffer *buf,
				   size_t size, unsigned int round)
{
	int cpu = st_cpu();
	u64 held;

	snaptrace_reset(buf);
	held = st_rsz_expect_capacity(test, buf, size, round);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_EXPECT_EQ_MSG(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 0,
			    "round %u", round);
	KUNIT_EXPECT_EQ_MSG(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries, held,
			    "round %u", round);
	st_rsz_expect_capacity(test, buf, size, round);
	snaptrace_reset(buf);
	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), 0);
}

/*
 * Resize of the live buffer while snapshots are triggered from interrupts
 * on every CPU (a pinned hard hrtimer each, which also raises a hard
 * irq_work that snapshots), a writer per CPU holds records open for the
 * triggers to land in, and a reader iterates both halves. In each of 24
 * rounds: the triggers fire 150 times per CPU and the test thread resizes
 * meanwhile (sizes in turn, one not a power of two). Every call gives a
 * result the spec allows; at rest after each round the reported size is
 * the rounded one and both halves really have it, every record is intact
 * and in sequence with none lost, and the counters balance.
 */
static void snap_resize_vs_irq_snapshots_all_cpus(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	unsigned int round, i;
	struct st_writers *ws;
	struct st_rsz *rz;
	size_t size;
	int cpu;

	rz = kunit_kzalloc(test, sizeof(*rz), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rz);
	rz->trig = kunit_kcalloc(test, nr_cpu_ids, sizeof(*rz->trig), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rz->trig);
	rz->buf = buf;
	for_each_online_cpu(cpu) {
		struct st_rsz_trig *tg = &rz->trig[rz->ntrig++];

		tg->rz = rz;
		tg->cpu = cpu;
		hrtimer_setup(&tg->timer, st_rsz_tick, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		tg->work = IRQ_WORK_INIT_HARD(st_rsz_work_fn);
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_rsz_stop_action, rz), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	rz->reader = st_kthread(st_rsz_reader_fn, rz, -1, "st_kunit_rsz_reader");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(rz->reader), "kthread: %pe", rz->reader);
	wake_up_process(rz->reader);

	ws = st_writers_start(test, buf, U32_MAX, ST_RSZ_PACE_US, ST_RSZ_HOLD_US);
	for (round = 0; round < ST_RSZ_ROUNDS; round++) {
		size = st_rsz_sizes[round % ARRAY_SIZE(st_rsz_sizes)];
		st_rsz_arm(rz);
		/* Resize once the triggers are firing on every CPU. */
		KUNIT_EXPECT_TRUE(test, st_rsz_wait(rz, 1));
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_resize(buf, size), 0, "round %u", round);
		KUNIT_EXPECT_TRUE_MSG(test, st_rsz_wait(rz, ST_RSZ_TICKS),
				      "round %u: triggers did not finish", round);
		st_rsz_disarm(rz);
		KUNIT_ASSERT_TRUE(test, st_writers_pause(ws));

		size = roundup_pow_of_two(size);
		st_rsz_expect_rest(test, buf, size, round);
		st_rsz_expect_geometry(test, buf, size, round);
		st_writers_resume(ws);
		if (READ_ONCE(test->status) == KUNIT_FAILURE)
			break;
	}
	st_writers_stop(ws);
	st_rsz_stop_action(rz);

	st_writers_expect_sane(test, ws);
	for (i = 0; i < ws->n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ws->w[i].refused, 0, "cpu %d", ws->w[i].cpu);
	KUNIT_EXPECT_EQ(test, atomic_read(&rz->unexpected), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rz->misplaced), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&rz->hard), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&rz->work), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&rz->ok), 0);
	KUNIT_EXPECT_EQ(test, rz->read_bad_rc, 0);
	KUNIT_EXPECT_EQ(test, rz->read_torn, 0);
	KUNIT_EXPECT_EQ(test, rz->read_order, 0);
	kunit_info(test, "%u rounds: %d snapshots from hrtimers, %d from irq_work (%d taken, %d busy); %u iterations (%u stale)\n",
		   round, atomic_read(&rz->hard), atomic_read(&rz->work), atomic_read(&rz->ok),
		   atomic_read(&rz->busy), rz->iterations, rz->stale);
}

static struct kunit_case snaptrace_snapshot_cases[] = {
	KUNIT_CASE(snap_spare_is_lazy),
	KUNIT_CASE(snap_without_spare_misses),
	KUNIT_CASE(snap_stop_on_miss_marks_and_stops),
	KUNIT_CASE(snap_alloc_is_idempotent_and_takes_none),
	KUNIT_CASE(snap_swaps_halves),
	KUNIT_CASE(snap_second_replaces_first),
	KUNIT_CASE(snap_consume_reads_snapshot),
	KUNIT_CASE(snap_iter_is_non_consuming),
	KUNIT_CASE_PARAM(snap_in_context, snap_ctx_gen_params),
	KUNIT_CASE(snap_miss_with_stop_in_nmi),
	KUNIT_CASE_PARAM(snap_in_reservation, snap_res_ctx_gen_params),
	KUNIT_CASE(snap_clear_empties_spare),
	KUNIT_CASE(snap_free_then_snapshot_misses),
	KUNIT_CASE(snap_snapshot_alloc_allocates_and_swaps),
	KUNIT_CASE(snap_concurrent_alloc_single_spare),
	KUNIT_CASE(snap_resize_resizes_both_halves),
	KUNIT_CASE(snap_iter_stale_after_snapshot),
	KUNIT_CASE(snap_iter_stale_after_clear),
	KUNIT_CASE_SLOW(snap_race_lifecycle_vs_timer),
	KUNIT_CASE_SLOW(snap_read_snapshot_vs_timer_snapshots),
	KUNIT_CASE_SLOW(snap_timer_snapshots_vs_live_consumer),
	KUNIT_CASE_SLOW(snap_resize_vs_irq_snapshots_all_cpus),
	{}
};

static struct kunit_suite snaptrace_snapshot_suite = {
	.name = "snaptrace_snapshot",
	.test_cases = snaptrace_snapshot_cases,
};

kunit_test_suites(&snaptrace_snapshot_suite);
