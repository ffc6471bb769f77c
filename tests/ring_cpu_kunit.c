// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for one-CPU buffers and writes into another CPU's ring
 * (src/ring.c: snaptrace_buffer_alloc_cpu(); src/ring_write.c:
 * snaptrace_reserve_on(); src/instance.c: snaptrace_get_by_name_cpu()):
 * the memory of the rings (the home CPU's size, 0 elsewhere, in both
 * halves and after a resize), writes refused and counted on the CPUs
 * without room, a serialized writer on every other online CPU landing in
 * order in the home ring, a snapshot from another CPU cutting exactly the
 * reservations made before it, the recording switches, reset, clear,
 * resize, and the readers and statistics over rings of size 0.
 *
 * The geometry is checked in the rings themselves (snaptrace_ring_bytes());
 * every other number follows from the API contract (16-byte record header,
 * payload rounded up to 8 bytes).
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

#define ST_CPU_SIZE	(2 * SNAPTRACE_MIN_SIZE)
#define ST_CPU_LEN	40	/* payload bytes of each record */
#define ST_CPU_RECS	4	/* records a writer reserves before a snapshot */
#define ST_CPU_INST	"st_kunit_one_cpu"

static void st_cpu_buf_free(void *buf)
{
	snaptrace_buffer_free(buf);
}

/*
 * A one-CPU buffer freed when the test ends; its records are stamped by
 * the counting clock, as st_buf_new()'s, so that the bytes a record takes
 * are exact (st_rec_bytes()): with local_clock(), a record written more
 * than 134 ms after its frame's anchor (a snapshot held on a loaded host)
 * takes an EXT prefix.
 */
static struct snaptrace_buffer *st_cpu_buf_new(struct kunit *test, size_t size,
					       enum snaptrace_mode mode, int cpu)
{
	struct snaptrace_buffer *buf;

	if (!READ_ONCE(snaptrace_test_clock))
		st_clock_count(test);
	buf = snaptrace_buffer_alloc_cpu(size, mode, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_cpu_buf_free,
							buf), 0);
	return buf;
}

/* The home CPU of these tests, and another online CPU than @not. */
static int st_cpu_other(int not)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu != not)
			return cpu;
	return -1;
}

/* Each ring of @which has @size bytes of data on @home, none elsewhere. */
static void st_expect_geometry(struct kunit *test, struct snaptrace_buffer *buf,
			       enum snaptrace_which which, int home,
			       unsigned long size)
{
	int cpu;

	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_ring_bytes(buf, which, cpu),
				    cpu == home ? (ssize_t)size : 0,
				    "cpu %d", cpu);
}

/* One CPU's counters are exactly these (and no record is left over). */
static void st_expect_stats(struct kunit *test, struct snaptrace_buffer *buf,
			    enum snaptrace_which which, int cpu, u64 entries,
			    u64 written, u64 dropped)
{
	struct snaptrace_stats st = st_stats(test, buf, which, cpu);

	KUNIT_EXPECT_EQ_MSG(test, st.entries, entries, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.written, written, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.dropped, dropped, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.overrun, 0ULL, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.read, 0ULL, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.bytes, entries * st_rec_bytes(ST_CPU_LEN),
			    "cpu %d", cpu);
	if (!entries)
		KUNIT_EXPECT_EQ_MSG(test, st.oldest_ts, 0ULL, "cpu %d", cpu);
}

/* Exactly @n records, on @home, sequence numbers @seq0.. in order. */
static void st_expect_records(struct kunit *test, struct snaptrace_buffer *buf,
			      enum snaptrace_which which, int home,
			      unsigned int n, u32 seq0)
{
	struct st_check c;

	KUNIT_EXPECT_EQ(test, st_scan(test, buf, which, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, n);
	KUNIT_EXPECT_EQ(test, c.bad, 0U);
	KUNIT_EXPECT_EQ(test, c.order, 0U);
	KUNIT_EXPECT_EQ(test, c.gaps, 0U);
	KUNIT_EXPECT_EQ(test, c.ts_back, 0U);
	if (n) {
		KUNIT_EXPECT_EQ(test, c.first_seq, seq0);
		KUNIT_EXPECT_EQ(test, c.last_seq, seq0 + n - 1);
	}
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, which, home, 0, &c), -ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, n);
	KUNIT_EXPECT_EQ(test, c.bad, 0U);
}

/* ---- writing into the home ring from a chosen CPU ---- */

struct st_on_args {
	struct snaptrace_buffer *buf;
	int home;		/* the ring written */
	int snap_cpu;		/* -1: no snapshot; else taken there, mid-way */
	unsigned int n;		/* records reserved before the snapshot */
	u32 seq0;
	int ran_on;
	unsigned int ok;
	int snap_rc;
	u8 *scratch;
};

static void st_on_snapshot(void *data)
{
	struct st_on_args *a = data;

	a->snap_rc = snaptrace_snapshot(a->buf);
}

/*
 * As a crash capture: reserve @n records in the home ring, fill them, take
 * a snapshot on another CPU (while they are all still open), then commit.
 */
static long st_on_fn(void *data)
{
	struct snaptrace_reservation res[ST_CPU_RECS];
	struct st_on_args *a = data;
	unsigned int i;
	u8 *p;

	preempt_disable();
	a->ran_on = smp_processor_id();
	for (i = 0; i < a->n; i++) {
		p = snaptrace_reserve_on(a->buf, a->home, SNAPTRACE_REC_DATA,
					 ST_CPU_LEN, &res[i]);
		if (!p)
			break;
		st_payload_fill(p, ST_CPU_LEN, ST_MAGIC, a->home, a->seq0 + i);
	}
	a->ok = i;
	if (a->snap_cpu >= 0)
		smp_call_function_single(a->snap_cpu, st_on_snapshot, a, 1);
	while (i--)
		snaptrace_commit(a->buf, &res[i]);
	preempt_enable();
	return 0;
}

/* Reserve @n records (at most ST_CPU_RECS) on @home's ring from @cpu. */
static unsigned int st_write_on(struct kunit *test, struct snaptrace_buffer *buf,
				int cpu, int home, unsigned int n, u32 seq0,
				int snap_cpu)
{
	struct st_on_args a = {
		.buf = buf, .home = home, .n = n, .seq0 = seq0,
		.snap_cpu = snap_cpu, .snap_rc = 1,
	};

	KUNIT_ASSERT_LE(test, n, ST_CPU_RECS);
	work_on_cpu(cpu, st_on_fn, &a);
	KUNIT_ASSERT_EQ_MSG(test, a.ran_on, cpu, "writer not on cpu %d", cpu);
	if (snap_cpu >= 0)
		KUNIT_EXPECT_EQ(test, a.snap_rc, 0);
	return a.ok;
}

/* ---- tests ---- */

/* PTR_ERR() of a one-CPU buffer alloc that must fail (freed if it did not). */
static long st_cpu_alloc_err(size_t size, enum snaptrace_mode mode, int cpu)
{
	struct snaptrace_buffer *buf = snaptrace_buffer_alloc_cpu(size, mode, cpu);

	if (!IS_ERR(buf)) {
		snaptrace_buffer_free(buf);
		return 0;
	}
	return PTR_ERR(buf);
}

static void ring_cpu_alloc_rejects_bad_args(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, st_cpu_alloc_err(ST_CPU_SIZE, SNAPTRACE_OVERWRITE,
					       -1), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, st_cpu_alloc_err(ST_CPU_SIZE, SNAPTRACE_OVERWRITE,
					       nr_cpu_ids), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, st_cpu_alloc_err(0, SNAPTRACE_OVERWRITE, st_cpu()),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, st_cpu_alloc_err(ST_CPU_SIZE, 3, st_cpu()),
			(long)-EINVAL);
}

/* The memory: the home ring only, in both halves, kept by a resize. */
static void ring_cpu_memory_on_home_only(struct kunit *test)
{
	int home = st_cpu();
	struct snaptrace_buffer *buf, *all;

	/* 20 KiB rounds up to 32 KiB (a power-of-two number of pages). */
	buf = st_cpu_buf_new(test, 20 << 10, SNAPTRACE_OVERWRITE, home);
	KUNIT_EXPECT_EQ(test, snaptrace_buffer_home_cpu(buf), home);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), (size_t)32 << 10);
	KUNIT_EXPECT_EQ(test, snaptrace_size_total(buf), st_ring_total(32 << 10));
	st_expect_geometry(test, buf, SNAPTRACE_LIVE, home, 32 << 10);
	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_ring_bytes(buf, SNAPTRACE_SNAPSHOT, home),
			(ssize_t)-ENOENT);
	KUNIT_EXPECT_EQ(test, snaptrace_ring_bytes(buf, SNAPTRACE_LIVE, -1),
			(ssize_t)-EINVAL);

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	st_expect_geometry(test, buf, SNAPTRACE_LIVE, home, 32 << 10);
	st_expect_geometry(test, buf, SNAPTRACE_SNAPSHOT, home, 32 << 10);
	/* A snapshot swaps the halves: each keeps its geometry. */
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	st_expect_geometry(test, buf, SNAPTRACE_LIVE, home, 32 << 10);
	st_expect_geometry(test, buf, SNAPTRACE_SNAPSHOT, home, 32 << 10);

	KUNIT_ASSERT_EQ(test, snaptrace_resize(buf, 64 << 10), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), (size_t)64 << 10);
	KUNIT_EXPECT_EQ(test, snaptrace_size_total(buf), st_ring_total(64 << 10));
	st_expect_geometry(test, buf, SNAPTRACE_LIVE, home, 64 << 10);
	st_expect_geometry(test, buf, SNAPTRACE_SNAPSHOT, home, 64 << 10);

	snaptrace_free_snapshot(buf);
	KUNIT_ASSERT_EQ(test, snaptrace_resize(buf, 16 << 10), 0);
	st_expect_geometry(test, buf, SNAPTRACE_LIVE, home, 16 << 10);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	st_expect_geometry(test, buf, SNAPTRACE_SNAPSHOT, home, 16 << 10);

	/* A buffer of every CPU is unchanged: its size on each. */
	all = st_buf_new(test, 32 << 10, SNAPTRACE_OVERWRITE);
	KUNIT_EXPECT_EQ(test, snaptrace_buffer_home_cpu(all), -1);
	KUNIT_EXPECT_EQ(test, snaptrace_size_total(all),
			st_ring_total(32 << 10) * num_possible_cpus());
}

/* Normal writes on a CPU without room are refused and counted dropped. */
static void ring_cpu_other_cpus_refuse_and_count(struct kunit *test)
{
	int home = st_cpu(), cpu, n = 0;
	struct snaptrace_buffer *buf;
	struct st_wcount wc;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_OVERWRITE, home);
	for_each_online_cpu(cpu) {
		if (cpu == home)
			continue;
		wc = st_write_n(test, buf, cpu, 3, ST_CPU_LEN, 0);
		KUNIT_EXPECT_EQ(test, wc.ok, 0U);
		KUNIT_EXPECT_EQ(test, wc.nospc, 3U);
		KUNIT_EXPECT_EQ(test, wc.other, 0U);
		st_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, 0, 3, 3);
		n++;
	}
	KUNIT_EXPECT_GE(test, n, 1);
	wc = st_write_n(test, buf, home, 5, ST_CPU_LEN, 0);
	KUNIT_EXPECT_EQ(test, wc.ok, 5U);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 5, 5, 0);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, 5, 0);

	/* Stop-when-full refuses there just the same. */
	buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_STOP_WHEN_FULL, home);
	cpu = st_cpu_other(home);
	wc = st_write_n(test, buf, cpu, 2, ST_CPU_LEN, 0);
	KUNIT_EXPECT_EQ(test, wc.nospc, 2U);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, 0, 2, 2);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, 0, 0);
}

static int st_hook_cpu = -2;
static struct snaptrace_buffer *st_hook_buf;

static void st_cpu_hook(struct snaptrace_buffer *buf,
			enum snaptrace_test_step step, int cpu)
{
	if (buf == READ_ONCE(st_hook_buf) && step == ST_STEP_WRITE_RESERVED)
		WRITE_ONCE(st_hook_cpu, cpu);
}

static void st_cpu_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(st_hook_buf, NULL);
	synchronize_rcu();
}

/*
 * A writer on each other online CPU in turn lands in the home ring, in
 * order; the hook reports the ring's CPU, not the writer's.
 */
static void ring_cpu_reserve_on_lands_in_home_ring(struct kunit *test)
{
	int home = st_cpu(), cpu;
	struct snaptrace_buffer *buf;
	u32 seq = 0;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_OVERWRITE, home);
	snaptrace_record_disable(buf);
	WRITE_ONCE(st_hook_buf, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_cpu_unhook,
							NULL), 0);
	WRITE_ONCE(snaptrace_test_hook, st_cpu_hook);
	for_each_online_cpu(cpu) {
		if (cpu == home)
			continue;
		WRITE_ONCE(st_hook_cpu, -2);
		KUNIT_EXPECT_EQ(test, st_write_on(test, buf, cpu, home,
						  ST_CPU_RECS, seq, -1),
				(unsigned int)ST_CPU_RECS);
		KUNIT_EXPECT_EQ(test, READ_ONCE(st_hook_cpu), home);
		seq += ST_CPU_RECS;
		st_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, 0, 0, 0);
	}
	/* And from the home CPU itself. */
	KUNIT_EXPECT_EQ(test, st_write_on(test, buf, home, home, 2, seq, -1), 2U);
	seq += 2;
	st_expect_stats(test, buf, SNAPTRACE_LIVE, home, seq, seq, 0);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, seq, 0);

	/* A bad CPU or length is refused, uncounted. */
	KUNIT_EXPECT_NULL(test, snaptrace_reserve_on(buf, -1, SNAPTRACE_REC_DATA,
						     ST_CPU_LEN, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_reserve_on(buf, nr_cpu_ids,
						     SNAPTRACE_REC_DATA,
						     ST_CPU_LEN, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_reserve_on(buf, home, SNAPTRACE_REC_DATA,
						     0, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_reserve_on(buf, home, SNAPTRACE_REC_DATA,
						     SNAPTRACE_MAX_PAYLOAD + 1,
						     NULL));
	st_expect_stats(test, buf, SNAPTRACE_LIVE, home, seq, seq, 0);
	snaptrace_record_enable(buf);
}

/*
 * As a crash capture: records reserved on another CPU, a snapshot from a
 * third (or the home CPU) before their commits: all in the snapshot, none
 * in the live half; what is reserved after the snapshot is live.
 */
static void ring_cpu_snapshot_cuts_open_reservations(struct kunit *test)
{
	int home = st_cpu(), cpu, snap_cpu, c;
	struct snaptrace_buffer *buf;
	u32 seq = 0;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_OVERWRITE, home);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	snaptrace_record_disable(buf);
	for_each_online_cpu(cpu) {
		if (cpu == home)
			continue;
		/* Another CPU than the writer's: a third if there is one. */
		snap_cpu = home;
		for_each_online_cpu(c)
			if (c != home && c != cpu)
				snap_cpu = c;
		KUNIT_EXPECT_EQ(test, st_write_on(test, buf, cpu, home,
						  ST_CPU_RECS, seq, snap_cpu),
				(unsigned int)ST_CPU_RECS);
		st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, home, ST_CPU_RECS,
				ST_CPU_RECS, 0);
		st_expect_records(test, buf, SNAPTRACE_SNAPSHOT, home,
				  ST_CPU_RECS, seq);
		st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 0, 0, 0);
		st_expect_records(test, buf, SNAPTRACE_LIVE, home, 0, 0);

		/* After the snapshot: in the live half (opening its ring). */
		KUNIT_EXPECT_EQ(test, st_write_on(test, buf, cpu, home, 2,
						  seq + ST_CPU_RECS, -1), 2U);
		st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 2, 2, 0);
		st_expect_records(test, buf, SNAPTRACE_LIVE, home, 2,
				  seq + ST_CPU_RECS);
		st_expect_records(test, buf, SNAPTRACE_SNAPSHOT, home,
				  ST_CPU_RECS, seq);
		for_each_possible_cpu(c) {
			if (c == home)
				continue;
			st_expect_stats(test, buf, SNAPTRACE_LIVE, c, 0, 0, 0);
			st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, c, 0, 0, 0);
		}
		seq += ST_CPU_RECS + 2;
		/* The next round's snapshot takes these two along. */
		snaptrace_reset(buf);
	}
	snaptrace_record_enable(buf);
}

/* Recording's switches stop normal writers, not snaptrace_reserve_on(). */
static void ring_cpu_switches_refuse_writers_not_reserve_on(struct kunit *test)
{
	int home = st_cpu(), other;
	struct snaptrace_buffer *buf;
	struct st_wcount wc;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	other = st_cpu_other(home);
	buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_OVERWRITE, home);
	snaptrace_record_disable(buf);
	wc = st_write_n(test, buf, home, 3, ST_CPU_LEN, 0);
	KUNIT_EXPECT_EQ(test, wc.ok, 0U);
	KUNIT_EXPECT_EQ(test, wc.other, 3U);	/* -EBUSY, not counted */
	KUNIT_EXPECT_EQ(test, st_write_on(test, buf, other, home, 2, 0, -1), 2U);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 2, 2, 0);

	/* The user's switch too. */
	snaptrace_record_off(buf);
	KUNIT_EXPECT_EQ(test, st_write_on(test, buf, other, home, 1, 2, -1), 1U);
	snaptrace_record_on(buf);
	wc = st_write_n(test, buf, home, 1, ST_CPU_LEN, 3);
	KUNIT_EXPECT_EQ(test, wc.other, 1U);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 3, 3, 0);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, 3, 0);

	snaptrace_record_enable(buf);
	wc = st_write_n(test, buf, home, 1, ST_CPU_LEN, 3);
	KUNIT_EXPECT_EQ(test, wc.ok, 1U);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, 4, 0);
}

/*
 * Reset, clear and resize of a one-CPU buffer, and the pending rings of
 * size 0 they leave, opened by a write that is then refused.
 */
static void ring_cpu_reset_clear_resize(struct kunit *test)
{
	int home = st_cpu(), other;
	struct snaptrace_buffer *buf;
	struct st_wcount wc;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	other = st_cpu_other(home);
	buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_OVERWRITE, home);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_EXPECT_EQ(test, st_write_on(test, buf, other, home, 3, 0, -1), 3U);
	wc = st_write_n(test, buf, other, 1, ST_CPU_LEN, 0);
	KUNIT_EXPECT_EQ(test, wc.nospc, 1U);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, home, 3, 3, 0);
	st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, other, 0, 1, 1);

	/* The new live ring of @other is next: opened, then refused. */
	wc = st_write_n(test, buf, other, 2, ST_CPU_LEN, 0);
	KUNIT_EXPECT_EQ(test, wc.nospc, 2U);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, other, 0, 2, 2);
	KUNIT_EXPECT_EQ(test, st_write_on(test, buf, other, home, 2, 3, -1), 2U);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 2, 2, 0);

	/* Reset: live-pending rings, the snapshot kept. */
	snaptrace_reset(buf);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 0, 0, 0);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, other, 0, 0, 0);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, 0, 0);
	st_expect_records(test, buf, SNAPTRACE_SNAPSHOT, home, 3, 0);
	wc = st_write_n(test, buf, other, 1, ST_CPU_LEN, 0);
	KUNIT_EXPECT_EQ(test, wc.nospc, 1U);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, other, 0, 1, 1);
	KUNIT_EXPECT_EQ(test, st_write_on(test, buf, other, home, 1, 5, -1), 1U);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, 1, 5);

	/* Clear: the snapshot empty, on every CPU. */
	KUNIT_ASSERT_EQ(test, snaptrace_clear_snapshot(buf), 0);
	st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, home, 0, 0, 0);
	st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, other, 0, 0, 0);
	st_expect_records(test, buf, SNAPTRACE_SNAPSHOT, home, 0, 0);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, 1, 5);

	/* Resize: the geometry kept, both halves empty and working. */
	KUNIT_ASSERT_EQ(test, snaptrace_resize(buf, 4 * SNAPTRACE_MIN_SIZE), 0);
	st_expect_geometry(test, buf, SNAPTRACE_LIVE, home, 4 * SNAPTRACE_MIN_SIZE);
	st_expect_geometry(test, buf, SNAPTRACE_SNAPSHOT, home,
			   4 * SNAPTRACE_MIN_SIZE);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 0, 0, 0);
	st_expect_stats(test, buf, SNAPTRACE_LIVE, other, 0, 0, 0);
	wc = st_write_n(test, buf, other, 1, ST_CPU_LEN, 0);
	KUNIT_EXPECT_EQ(test, wc.nospc, 1U);
	KUNIT_EXPECT_EQ(test, st_write_on(test, buf, other, home, 4, 0, home),
			4U);
	st_expect_records(test, buf, SNAPTRACE_SNAPSHOT, home, 4, 0);
	st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, other, 0, 1, 1);
	st_expect_records(test, buf, SNAPTRACE_LIVE, home, 0, 0);
}

/* Overwrite in the home ring from another CPU: exact overrun, the newest kept. */
static void ring_cpu_reserve_on_wraps_exactly(struct kunit *test)
{
	int home = st_cpu(), other;
	struct snaptrace_buffer *buf;
	unsigned int per_ring = SNAPTRACE_MIN_SIZE / st_rec_bytes(ST_CPU_LEN);
	unsigned int i, n = per_ring + 10;
	struct snaptrace_stats st;
	struct st_check c;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	/* 56-byte records: 4096 is not a multiple, so the ring pads. */
	KUNIT_ASSERT_NE(test, SNAPTRACE_MIN_SIZE % st_rec_bytes(ST_CPU_LEN), 0UL);
	other = st_cpu_other(home);
	buf = st_cpu_buf_new(test, SNAPTRACE_MIN_SIZE, SNAPTRACE_OVERWRITE, home);
	for (i = 0; i < n; i += ST_CPU_RECS)
		KUNIT_ASSERT_EQ(test, st_write_on(test, buf, other, home,
						  min_t(unsigned int, ST_CPU_RECS,
							n - i), i, -1),
				min_t(unsigned int, ST_CPU_RECS, n - i));
	st = st_stats(test, buf, SNAPTRACE_LIVE, home);
	KUNIT_EXPECT_EQ(test, st.written, (u64)n);
	KUNIT_EXPECT_EQ(test, st.dropped, 0ULL);
	KUNIT_EXPECT_EQ(test, st.entries + st.overrun, (u64)n);
	KUNIT_EXPECT_GT(test, st.overrun, 0ULL);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, home, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, (u64)c.count, st.entries);
	KUNIT_EXPECT_EQ(test, c.bad, 0U);
	KUNIT_EXPECT_EQ(test, c.gaps, 0U);
	KUNIT_EXPECT_EQ(test, c.last_seq, n - 1);
	KUNIT_EXPECT_EQ(test, c.first_seq, (u32)st.overrun);
}

/* Readers over the rings of size 0: empty, and the consumer takes all. */
static void ring_cpu_readers_over_empty_rings(struct kunit *test)
{
	int home = st_cpu(), cpu;
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_buffer *buf;
	struct snaptrace_iter *it;
	struct snaptrace_stats st;
	unsigned int n = 0;
	struct st_hdr h;
	int rc;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_OVERWRITE, home);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_EXPECT_EQ(test, st_write_on(test, buf, st_cpu_other(home), home,
					  3, 0, -1), 3U);
	for_each_possible_cpu(cpu) {
		if (cpu == home)
			continue;
		KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, cpu,
							rec), -ENODATA);
		KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT,
							cpu, rec), -ENODATA);
		it = snaptrace_iter_start(buf, SNAPTRACE_LIVE, cpu);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
		KUNIT_EXPECT_EQ(test, snaptrace_iter_next(it, rec), -ENODATA);
		snaptrace_iter_stop(it);
		st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
		KUNIT_EXPECT_EQ(test, st.entries, 0ULL);
		KUNIT_EXPECT_EQ(test, st.bytes, 0ULL);
		KUNIT_EXPECT_EQ(test, st.oldest_ts, 0ULL);
	}
	st = st_stats(test, buf, SNAPTRACE_LIVE, home);
	KUNIT_EXPECT_NE(test, st.oldest_ts, 0ULL);
	for (;;) {
		rc = snaptrace_consume(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec);
		if (rc)
			break;
		KUNIT_EXPECT_EQ(test, rec->cpu, (unsigned int)home);
		KUNIT_EXPECT_TRUE(test, st_payload_ok(rec, &h));
		KUNIT_EXPECT_EQ(test, h.seq, n);
		n++;
	}
	KUNIT_EXPECT_EQ(test, rc, -ENODATA);
	KUNIT_EXPECT_EQ(test, n, 3U);
	st = st_stats(test, buf, SNAPTRACE_LIVE, home);
	KUNIT_EXPECT_EQ(test, st.read, 3ULL);
	KUNIT_EXPECT_EQ(test, st.entries, 0ULL);
	KUNIT_EXPECT_EQ(test, st.written, 3ULL);
}

/* A named one-CPU instance: its files report the memory it has. */
static void ring_cpu_instance_reports_its_memory(struct kunit *test)
{
	char text[32];
	struct snaptrace_buffer *buf, *again;
	int home = st_cpu();

	st_skip_unless_debugfs_mounted(test);
	buf = snaptrace_get_by_name_cpu(ST_CPU_INST, ST_CPU_SIZE, -1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(buf), (long)-EINVAL);
	buf = snaptrace_get_by_name_cpu(NULL, ST_CPU_SIZE, home);
	KUNIT_EXPECT_EQ(test, PTR_ERR(buf), (long)-EINVAL);
	buf = snaptrace_get_by_name_cpu(ST_CPU_INST, 20 << 10, home);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, snaptrace_buffer_home_cpu(buf), home);
	st_expect_geometry(test, buf, SNAPTRACE_LIVE, home, 32 << 10);

	/* An existing instance is returned as it is. */
	again = snaptrace_get_by_name_cpu(ST_CPU_INST, 64 << 10, home);
	KUNIT_EXPECT_PTR_EQ(test, again, buf);
	if (!IS_ERR(again))
		snaptrace_put(again);

	KUNIT_EXPECT_EQ(test, st_read_file(test, ST_ROOT "/instances/" ST_CPU_INST
					   "/buffer_size_kb", text, sizeof(text)),
			3L);
	KUNIT_EXPECT_STREQ(test, text, "32\n");
	KUNIT_EXPECT_EQ(test, st_read_file(test, ST_ROOT "/instances/" ST_CPU_INST
					   "/buffer_total_size_kb", text,
					   sizeof(text)), 3L);
	/* 32 KiB and its anchors (128 bytes), in KiB rounded up. */
	KUNIT_EXPECT_STREQ(test, text, "33\n");
	snaptrace_put(buf);
}

/* ---- a snapshot under way while another CPU writes the home ring ---- */

#define ST_HOLD_NS	(10ULL * NSEC_PER_SEC)

/* Spin (the caller is in a hook) until @release, at most ST_HOLD_NS. */
static void st_cpu_hold(atomic_t *held, atomic_t *release, bool *timed_out)
{
	u64 end = ktime_get_ns() + ST_HOLD_NS;

	atomic_set(held, 1);
	while (!atomic_read(release)) {
		if (ktime_get_ns() > end) {
			*timed_out = true;
			break;
		}
		cpu_relax();
	}
}

/* Wait (sleeping, at most 10 s) until a hook holds its caller. */
static bool st_cpu_wait_held(atomic_t *held)
{
	unsigned int i;

	for (i = 0; i < 10000 && !atomic_read(held); i++)
		usleep_range(500, 1000);
	return atomic_read(held);
}

static void st_cpu_unpin(void *unused)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/* Pin this thread to @cpu until the test ends. */
static void st_cpu_pin(struct kunit *test, int cpu)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_cpu_unpin,
							NULL), 0);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), cpu);
}

/* Record @seq into @home's ring from this CPU; true if it was reserved. */
static bool st_put_on(struct snaptrace_buffer *buf, int home, u32 seq)
{
	struct snaptrace_reservation res;
	u8 *p;

	p = snaptrace_reserve_on(buf, home, SNAPTRACE_REC_DATA, ST_CPU_LEN, &res);
	if (!p)
		return false;
	st_payload_fill(p, ST_CPU_LEN, ST_MAGIC, home, seq);
	snaptrace_commit(buf, &res);
	return true;
}

/* No CPU but @home has anything in either half: not the writer's CPU either. */
static void st_expect_only_home(struct kunit *test, struct snaptrace_buffer *buf,
				int home)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (cpu == home)
			continue;
		st_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, 0, 0, 0);
		st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu, 0, 0, 0);
	}
}

/*
 * A snapshot on the home CPU held at one of its steps (a kthread, with
 * IRQs off there while held), while this thread, on another CPU, writes
 * into the home ring with snaptrace_reserve_on().
 */
struct st_held_snap {
	struct snaptrace_buffer *buf;
	enum snaptrace_test_step step;
	int home;		/* for ST_STEP_SNAP_SEALED: after this CPU's cut */
	atomic_t held;
	atomic_t release;
	bool timed_out;
	int ret;
	struct completion done;
};

static struct st_held_snap *st_held_snap;

static void st_held_snap_hook(struct snaptrace_buffer *buf,
			      enum snaptrace_test_step step, int cpu)
{
	struct st_held_snap *c = READ_ONCE(st_held_snap);

	if (!c || buf != c->buf || step != c->step ||
	    (step == ST_STEP_SNAP_SEALED && cpu != c->home) ||
	    atomic_read(&c->held))
		return;
	st_cpu_hold(&c->held, &c->release, &c->timed_out);
}

static void st_held_snap_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(st_held_snap, NULL);
	synchronize_rcu();
}

static int st_held_snapper(void *data)
{
	struct st_held_snap *c = data;

	c->ret = snaptrace_snapshot(c->buf);
	complete(&c->done);
	return 0;
}

/* How the home CPU's live ring is when the held snapshot begins. */
enum st_prep {
	ST_PREP_OPEN,		/* open, records 0..9 in it */
	ST_PREP_NEXT,		/* next: 0..9 went to a snapshot before */
	ST_PREP_RESET,		/* live-pending: 0..9 reset away */
};

struct st_held_snap_param {
	const char *name;
	enum st_prep prep;
	enum snaptrace_test_step step;
	bool in_snapshot;	/* record 10 is reserved before the home cut */
};

static const struct st_held_snap_param st_held_snap_params[] = {
	/* Fast path, then the former live ring before its cut (R2). */
	{ "open ring, spare emptied", ST_PREP_OPEN, ST_STEP_SNAP_PENDED, true },
	{ "open ring, roles published", ST_PREP_OPEN, ST_STEP_SNAP_PUBLISHED,
	  true },
	{ "open ring, home cut", ST_PREP_OPEN, ST_STEP_SNAP_SEALED, false },
	/* Live-pending and next: opens the live-pending one, still live. */
	{ "next ring, spare emptied", ST_PREP_NEXT, ST_STEP_SNAP_PENDED, true },
	{ "reset ring, spare emptied", ST_PREP_RESET, ST_STEP_SNAP_PENDED, true },
	/* Roles published: the writer takes the home cut, opens the new. */
	{ "next ring, roles published", ST_PREP_NEXT, ST_STEP_SNAP_PUBLISHED,
	  false },
	{ "reset ring, roles published", ST_PREP_RESET, ST_STEP_SNAP_PUBLISHED,
	  false },
	{ "next ring, home cut", ST_PREP_NEXT, ST_STEP_SNAP_SEALED, false },
};

static void st_held_snap_param_desc(const struct st_held_snap_param *p,
				    char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(st_held_snap, st_held_snap_params, st_held_snap_param_desc);

/*
 * A snapshot from the home CPU held at one of its steps; record 10 reserved
 * meanwhile from another CPU with snaptrace_reserve_on(), record 11 after
 * it. Record 10 lands in the snapshot if it was reserved before the home
 * CPU's cut, else in the new live half; nothing lands anywhere else, the
 * writer's CPU's rings included. A live ring that is not open (next after
 * an earlier snapshot, live-pending after a reset) takes the writer
 * through R2, which must decide on the home CPU's pair of rings.
 */
static void ring_cpu_reserve_on_while_snapshot_held(struct kunit *test)
{
	const struct st_held_snap_param *prm = test->param_value;
	int home = st_cpu(), other;
	struct snaptrace_buffer *buf;
	struct st_held_snap *c;
	struct task_struct *t;
	unsigned int n_snap;
	u32 i, first;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	other = st_cpu_other(home);
	KUNIT_ASSERT_GE(test, other, 0);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_OVERWRITE, home);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	snaptrace_record_disable(buf);
	st_cpu_pin(test, other);

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_TRUE_MSG(test, st_put_on(buf, home, i), "record %u", i);
	if (prm->prep == ST_PREP_NEXT) {
		KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
		st_expect_records(test, buf, SNAPTRACE_SNAPSHOT, home, 10, 0);
	} else if (prm->prep == ST_PREP_RESET) {
		snaptrace_reset(buf);
	}
	if (prm->prep != ST_PREP_OPEN)
		st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 0, 0, 0);

	c->buf = buf;
	c->step = prm->step;
	c->home = home;
	init_completion(&c->done);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_held_snap_unhook,
							NULL), 0);
	WRITE_ONCE(st_held_snap, c);
	WRITE_ONCE(snaptrace_test_hook, st_held_snap_hook);
	t = st_kthread(st_held_snapper, c, home, "st_cpu_snap");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wake_up_process(t);
	if (!st_cpu_wait_held(&c->held)) {
		atomic_set(&c->release, 1);
		wait_for_completion(&c->done);
		put_task_struct(t);
		KUNIT_FAIL(test, "the snapshot never reached the step");
		return;
	}

	/* Record 10, from this CPU, while the snapshot is held. */
	KUNIT_EXPECT_TRUE(test, st_put_on(buf, home, 10));
	atomic_set(&c->release, 1);
	wait_for_completion(&c->done);
	put_task_struct(t);
	st_held_snap_unhook(NULL);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ(test, c->ret, 0);
	KUNIT_EXPECT_TRUE(test, st_put_on(buf, home, 11));

	first = prm->prep == ST_PREP_OPEN ? 0 : 10;
	n_snap = (prm->in_snapshot ? 11 : 10) - first;
	st_expect_records(test, buf, SNAPTRACE_SNAPSHOT, home, n_snap, first);
	st_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, home, n_snap, n_snap, 0);
	if (prm->in_snapshot) {
		st_expect_records(test, buf, SNAPTRACE_LIVE, home, 1, 11);
		st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 1, 1, 0);
	} else {
		st_expect_records(test, buf, SNAPTRACE_LIVE, home, 2, 10);
		st_expect_stats(test, buf, SNAPTRACE_LIVE, home, 2, 2, 0);
	}
	st_expect_only_home(test, buf, home);
	snaptrace_record_enable(buf);
}

/*
 * A writer on another CPU (a kthread, snaptrace_reserve_on()) held after
 * it looked up the home CPU's live ring; the test, on the home CPU, takes
 * snapshots, and at one step of one of them (a hook, IRQs off there) lets
 * the writer reserve record 0 and waits for its commit. The ring it
 * looked up is then no longer the one to write: R2 must find the right
 * one among the home CPU's pair of rings, never the writer's CPU's.
 */
struct st_held_wr {
	struct snaptrace_buffer *buf;
	int home;
	atomic_t held;
	atomic_t release;
	bool timed_out;
	bool reserved;
	struct completion done;
	/* the snapshots' steps, counted from the hook's installation */
	unsigned int rounds;		/* ST_STEP_SNAP_SETTLED seen */
	enum snaptrace_test_step act_step;
	unsigned int act_round;		/* release the writer there; 0: after */
	unsigned int nest_round;	/* nest a snapshot at its PUBLISHED */
	bool acted;
	bool nested;
	int nested_rc;
	bool act_timed_out;
};

static struct st_held_wr *st_held_wr;

static void st_held_wr_hook(struct snaptrace_buffer *buf,
			    enum snaptrace_test_step step, int cpu)
{
	struct st_held_wr *w = READ_ONCE(st_held_wr);
	u64 end;

	if (!w || buf != w->buf)
		return;
	if (step == ST_STEP_WRITE_LOOKUP && cpu == w->home &&
	    !atomic_read(&w->held)) {
		st_cpu_hold(&w->held, &w->release, &w->timed_out);
		return;
	}
	if (step == ST_STEP_SNAP_SETTLED)
		w->rounds++;
	if (step == ST_STEP_SNAP_PUBLISHED && w->rounds == w->nest_round &&
	    !w->nested) {
		w->nested = true;
		w->nested_rc = snaptrace_snapshot(buf);
		return;
	}
	if (step == w->act_step && w->rounds == w->act_round && !w->acted) {
		w->acted = true;
		atomic_set(&w->release, 1);
		end = ktime_get_ns() + ST_HOLD_NS;
		while (!completion_done(&w->done)) {
			if (ktime_get_ns() > end) {
				w->act_timed_out = true;
				break;
			}
			cpu_relax();
		}
	}
}

static void st_held_wr_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(st_held_wr, NULL);
	synchronize_rcu();
}

static int st_held_writer(void *data)
{
	struct st_held_wr *w = data;

	w->reserved = st_put_on(w->buf, w->home, 0);
	complete(&w->done);
	return 0;
}

struct st_held_wr_param {
	const char *name;
	unsigned int snaps_before;	/* before the writer looks up */
	unsigned int snaps_held;	/* taken while it is held */
	enum snaptrace_test_step act_step;
	unsigned int act_round;
	unsigned int nest_round;
	unsigned int rounds;		/* ST_STEP_SNAP_SETTLED in all */
	bool in_snapshot;		/* record 0 ends in the snapshot */
};

static const struct st_held_wr_param st_held_wr_params[] = {
	/* Its ring is a snapshot: the twin, next, is opened (R2). */
	{ "looked up before a snapshot, reserving after it",
	  0, 1, ST_STEP_NR, 0, 0, 1, false },
	/*
	 * Its ring is next, the twin live-pending and still live: that one
	 * is opened, and cut by the snapshot.
	 */
	{ "looked up two snapshots back, reserving with the spare emptied",
	  0, 2, ST_STEP_SNAP_PENDED, 2, 0, 2, true },
	/* Its ring live-pending, roles published: it takes the cut itself. */
	{ "looked up when next, reserving with the roles published",
	  1, 1, ST_STEP_SNAP_PUBLISHED, 1, 0, 1, false },
	/*
	 * A snapshot nested in one that published the roles settled the new
	 * live ring: both alike; the live one is opened, and cut by the
	 * nested snapshot.
	 */
	{ "looked up when next, reserving with both rings alike",
	  1, 1, ST_STEP_SNAP_SETTLED, 2, 1, 2, true },
};

static void st_held_wr_param_desc(const struct st_held_wr_param *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(st_held_wr, st_held_wr_params, st_held_wr_param_desc);

static void ring_cpu_reserve_on_looked_up_before_snapshot(struct kunit *test)
{
	const struct st_held_wr_param *prm = test->param_value;
	int home = st_cpu(), other;
	struct st_held_wr *w;
	struct task_struct *t;
	unsigned int i;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	other = st_cpu_other(home);
	KUNIT_ASSERT_GE(test, other, 0);
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->buf = st_cpu_buf_new(test, ST_CPU_SIZE, SNAPTRACE_OVERWRITE, home);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(w->buf), 0);
	snaptrace_record_disable(w->buf);
	w->home = home;
	w->act_step = prm->act_step;
	w->act_round = prm->act_round;
	w->nest_round = prm->nest_round;
	init_completion(&w->done);
	/* The snapshots run here, on the home CPU; the writer on the other. */
	st_cpu_pin(test, home);
	for (i = 0; i < prm->snaps_before; i++)
		KUNIT_ASSERT_EQ(test, snaptrace_snapshot(w->buf), 0);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_held_wr_unhook,
							NULL), 0);
	WRITE_ONCE(st_held_wr, w);
	WRITE_ONCE(snaptrace_test_hook, st_held_wr_hook);
	t = st_kthread(st_held_writer, w, other, "st_cpu_writer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wake_up_process(t);
	if (!st_cpu_wait_held(&w->held)) {
		atomic_set(&w->release, 1);
		wait_for_completion(&w->done);
		put_task_struct(t);
		KUNIT_FAIL(test, "the writer never reached its lookup");
		return;
	}
	for (i = 0; i < prm->snaps_held; i++)
		KUNIT_EXPECT_EQ(test, snaptrace_snapshot(w->buf), 0);
	atomic_set(&w->release, 1);
	wait_for_completion(&w->done);
	put_task_struct(t);
	st_held_wr_unhook(NULL);

	KUNIT_EXPECT_FALSE(test, w->timed_out);
	KUNIT_EXPECT_FALSE(test, w->act_timed_out);
	KUNIT_EXPECT_EQ(test, w->acted, prm->act_round != 0);
	KUNIT_EXPECT_EQ(test, w->nested, prm->nest_round != 0);
	KUNIT_EXPECT_EQ(test, w->nested_rc, 0);
	KUNIT_EXPECT_EQ(test, w->rounds, prm->rounds);
	KUNIT_EXPECT_TRUE_MSG(test, w->reserved, "record 0 refused");

	if (prm->in_snapshot) {
		st_expect_records(test, w->buf, SNAPTRACE_SNAPSHOT, home, 1, 0);
		st_expect_stats(test, w->buf, SNAPTRACE_SNAPSHOT, home, 1, 1, 0);
		st_expect_records(test, w->buf, SNAPTRACE_LIVE, home, 0, 0);
		st_expect_stats(test, w->buf, SNAPTRACE_LIVE, home, 0, 0, 0);
	} else {
		st_expect_records(test, w->buf, SNAPTRACE_SNAPSHOT, home, 0, 0);
		st_expect_stats(test, w->buf, SNAPTRACE_SNAPSHOT, home, 0, 0, 0);
		st_expect_records(test, w->buf, SNAPTRACE_LIVE, home, 1, 0);
		st_expect_stats(test, w->buf, SNAPTRACE_LIVE, home, 1, 1, 0);
	}
	st_expect_only_home(test, w->buf, home);
	snaptrace_record_enable(w->buf);
}

static struct kunit_case snaptrace_ring_cpu_cases[] = {
	KUNIT_CASE(ring_cpu_alloc_rejects_bad_args),
	KUNIT_CASE(ring_cpu_memory_on_home_only),
	KUNIT_CASE(ring_cpu_other_cpus_refuse_and_count),
	KUNIT_CASE(ring_cpu_reserve_on_lands_in_home_ring),
	KUNIT_CASE(ring_cpu_snapshot_cuts_open_reservations),
	KUNIT_CASE(ring_cpu_switches_refuse_writers_not_reserve_on),
	KUNIT_CASE(ring_cpu_reset_clear_resize),
	KUNIT_CASE(ring_cpu_reserve_on_wraps_exactly),
	KUNIT_CASE(ring_cpu_readers_over_empty_rings),
	KUNIT_CASE(ring_cpu_instance_reports_its_memory),
	KUNIT_CASE_PARAM(ring_cpu_reserve_on_while_snapshot_held,
			 st_held_snap_gen_params),
	KUNIT_CASE_PARAM(ring_cpu_reserve_on_looked_up_before_snapshot,
			 st_held_wr_gen_params),
	{}
};

static struct kunit_suite snaptrace_ring_cpu_suite = {
	.name = "snaptrace_ring_cpu",
	.test_cases = snaptrace_ring_cpu_cases,
};

kunit_test_suites(&snaptrace_ring_cpu_suite);
