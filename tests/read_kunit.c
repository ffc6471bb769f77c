// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the batched consuming read, snaptrace_consume_batch()
 * (src/ring_read.c; Documentation/ring-buffer.rst, "Batched consuming
 * reads"): exact results for every batch size against rings holding
 * fewer, as many and more records, runs across padding and ending at the
 * ring's end, and the lockless guards, each with the test hook inside the
 * batch's window: records overwritten between the copy and the removal, a
 * snapshot there, and a reset and reopening between the removal and the
 * count. Counts are checked exact after each.
 */
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <kunit/resource.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

/* Payload of the records written (a 52-byte record: short header). */
#define RD_LEN		48
/* The largest batch tried by read_batch_every_size. */
#define RD_MAXN		16
/* Records the test arrays hold. */
#define RD_RECS		256

/* ---- the hook ---- */

struct rd_hook {
	struct kunit *test;
	struct snaptrace_buffer *buf;
	enum snaptrace_test_step step;
	int cpu;		/* the CPU whose step fires it */
	atomic_t armed;
	atomic_t fired;
	/* What it does: */
	unsigned int write;	/* records to write on @cpu, from @seq */
	u32 seq;
	bool snapshot;		/* take a snapshot first */
	bool reset;		/* reset the buffer first */
	int snap_rc;
	struct st_wcount wc;
};

static struct rd_hook *rd_cur;

static void rd_hook_fn(struct snaptrace_buffer *buf, enum snaptrace_test_step step,
		       int cpu)
{
	struct rd_hook *h = READ_ONCE(rd_cur);

	if (!h || buf != h->buf || step != h->step || cpu != h->cpu)
		return;
	if (atomic_cmpxchg(&h->armed, 1, 0) != 1)
		return;
	atomic_inc(&h->fired);
	/* The reader's steps run in process context: the hook may sleep. */
	if (h->snapshot)
		h->snap_rc = snaptrace_snapshot(buf);
	if (h->reset)
		snaptrace_reset(buf);
	if (h->write)
		h->wc = st_write_n(h->test, buf, h->cpu, h->write, RD_LEN, h->seq);
}

static void rd_hook_remove(void *unused)
{
	WRITE_ONCE(rd_cur, NULL);
	WRITE_ONCE(snaptrace_test_hook, NULL);
	synchronize_rcu();
}

static struct rd_hook *rd_hook_new(struct kunit *test, struct snaptrace_buffer *buf,
				   enum snaptrace_test_step step, int cpu)
{
	struct rd_hook *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NULL_MSG(test, READ_ONCE(snaptrace_test_hook),
			      "another test left its hook");
	h->test = test;
	h->buf = buf;
	h->step = step;
	h->cpu = cpu;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rd_hook_remove, NULL), 0);
	WRITE_ONCE(rd_cur, h);
	WRITE_ONCE(snaptrace_test_hook, rd_hook_fn);
	return h;
}

static void rd_arm(struct rd_hook *h)
{
	atomic_set(&h->armed, 1);
}

/* ---- checks ---- */

KUNIT_DEFINE_ACTION_WRAPPER(rd_kvfree, kvfree, const void *);

/* RD_RECS records (half a MiB), freed with the test. */
static struct snaptrace_record *rd_recs(struct kunit *test)
{
	struct snaptrace_record *r = kvcalloc(RD_RECS, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rd_kvfree, r), 0);
	return r;
}

/* @got is @want, field by field and byte by byte. */
static void rd_expect_same(struct kunit *test, const struct snaptrace_record *got,
			   const struct snaptrace_record *want, unsigned int i)
{
	KUNIT_EXPECT_EQ_MSG(test, got->ts, want->ts, "record %u", i);
	KUNIT_EXPECT_EQ_MSG(test, got->pos, want->pos, "record %u", i);
	KUNIT_EXPECT_EQ_MSG(test, got->cpu, want->cpu, "record %u", i);
	KUNIT_EXPECT_EQ_MSG(test, got->type, want->type, "record %u", i);
	KUNIT_ASSERT_EQ_MSG(test, got->len, want->len, "record %u", i);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(got->data, want->data, got->len), 0, "record %u", i);
}

/* @n records, intact, sequence numbers @seq0 on, all of @cpu. */
static void rd_expect_seqs(struct kunit *test, const struct snaptrace_record *recs,
			   unsigned int n, u32 seq0, int cpu)
{
	struct st_hdr h;
	unsigned int i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, st_payload_ok(&recs[i], &h), "record %u torn", i);
		KUNIT_EXPECT_EQ_MSG(test, h.seq, seq0 + i, "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, recs[i].cpu, cpu, "record %u", i);
	}
}

/* The counters of @cpu in @which are these, and agree with the records there. */
static void rd_expect_stats(struct kunit *test, struct snaptrace_buffer *buf,
			    enum snaptrace_which which, int cpu, u64 written,
			    u64 read, u64 entries, u64 overrun)
{
	struct snaptrace_stats st = st_stats(test, buf, which, cpu);

	KUNIT_EXPECT_EQ_MSG(test, st.written, written, "half %d", which);
	KUNIT_EXPECT_EQ_MSG(test, st.read, read, "half %d", which);
	KUNIT_EXPECT_EQ_MSG(test, st.entries, entries, "half %d", which);
	KUNIT_EXPECT_EQ_MSG(test, st.overrun, overrun, "half %d", which);
	KUNIT_EXPECT_EQ_MSG(test, st.dropped, 0, "half %d", which);
	st_expect_counted(test, buf, which, cpu, &st);
}

/*
 * Consume everything of @cpu (or all CPUs) @n records at a time: each
 * call returns min(@n, what is left) records, equal to @want (what an
 * iterator found), then -ENODATA.
 */
static void rd_drain(struct kunit *test, struct snaptrace_buffer *buf, int cpu,
		     unsigned int n, const struct snaptrace_record *want,
		     unsigned int k, struct snaptrace_record *recs)
{
	unsigned int total = 0, calls = 0, i;
	int rc;

	for (;;) {
		rc = snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, n);
		if (rc == -ENODATA || total >= k || ++calls > k + 1)
			break;
		KUNIT_ASSERT_EQ_MSG(test, rc, (int)min(n, k - total),
				    "batch of %u, %u of %u taken", n, total, k);
		for (i = 0; i < rc; i++)
			rd_expect_same(test, &recs[i], &want[total + i], total + i);
		total += rc;
	}
	KUNIT_EXPECT_EQ_MSG(test, rc, -ENODATA, "batch of %u after %u of %u", n, total, k);
	KUNIT_EXPECT_EQ_MSG(test, total, k, "batch of %u", n);
}

/* ---- cases ---- */

/*
 * Batches of every size 1..RD_MAXN over a ring holding exactly k records,
 * k < n, k == n and k > n, on one CPU and on all: each batch returns the
 * next min(n, left) records, exactly as an iterator finds them (time
 * stamps, positions, bytes), then -ENODATA; the counts stay exact. The
 * ring wraps several times on the way: runs cross padding and frames.
 */
static void read_batch_every_size(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *want = rd_recs(test), *recs = rd_recs(test);
	unsigned int n, j, k, got;
	int cpu = st_cpu(), end;
	struct st_wcount wc;
	u32 seq = 0;

	for (n = 1; n <= RD_MAXN; n++) {
		unsigned int ks[3] = { n - 1, n, 2 * n + 3 };
		int who = n & 1 ? cpu : SNAPTRACE_ALL_CPUS;

		for (j = 0; j < ARRAY_SIZE(ks); j++) {
			k = ks[j];
			wc = st_write_n(test, buf, cpu, k, RD_LEN, seq);
			KUNIT_ASSERT_EQ(test, wc.ok, k);
			got = st_collect(test, buf, SNAPTRACE_LIVE, cpu, want, RD_RECS, &end);
			KUNIT_ASSERT_EQ(test, got, k);
			KUNIT_ASSERT_EQ(test, end, -ENODATA);
			rd_expect_seqs(test, want, k, seq, cpu);
			rd_drain(test, buf, who, n, want, k, recs);
			seq += k;
			rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, seq, seq, 0, 0);
		}
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, 0), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_consume_batch(buf, SNAPTRACE_LIVE, -2, recs, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_consume_batch(buf, SNAPTRACE_SNAPSHOT, cpu, recs, 1),
			-ENOENT);
}

/* The index of the first of @want[0..@k) in the next lap of the ring. */
static unsigned int rd_lap_end(const struct snaptrace_record *want, unsigned int k)
{
	u64 lap = want[0].pos / SNAPTRACE_MIN_SIZE;
	unsigned int i;

	for (i = 0; i < k && want[i].pos / SNAPTRACE_MIN_SIZE == lap; i++)
		;
	return i;
}

/*
 * Runs and the ring's end: a batch whose run ends at the last record
 * before the end (the next one starts with the padding), then one across
 * the padding in the middle of its run; each exactly the records an
 * iterator found, the counts exact after each.
 */
static void read_batch_runs_at_the_ring_end(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *want = rd_recs(test), *recs = rd_recs(test);
	const unsigned int first = 120, k = 60;
	unsigned int b, got;
	int cpu = st_cpu(), end, rc;
	u32 seq = 0;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, first, RD_LEN, seq).ok, first);
	KUNIT_ASSERT_EQ(test, snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, RD_RECS),
			first);
	rd_expect_seqs(test, recs, first, seq, cpu);
	seq += first;

	/* A run that ends at the ring's end, then one that starts at the padding. */
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, k, RD_LEN, seq).ok, k);
	got = st_collect(test, buf, SNAPTRACE_LIVE, cpu, want, RD_RECS, &end);
	KUNIT_ASSERT_EQ(test, got, k);
	b = rd_lap_end(want, k);
	KUNIT_ASSERT_GT(test, b, 0);
	KUNIT_ASSERT_LT(test, b, k);
	rc = snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, b);
	KUNIT_ASSERT_EQ(test, rc, b);
	for (got = 0; got < b; got++)
		rd_expect_same(test, &recs[got], &want[got], got);
	rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, seq + k, seq + b, k - b, 0);
	rd_drain(test, buf, cpu, 3, want + b, k - b, recs);
	seq += k;
	rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, seq, seq, 0, 0);

	/* One run across the padding: everything at once. */
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, k, RD_LEN, seq).ok, k);
	KUNIT_ASSERT_EQ(test, snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, RD_RECS),
			k);
	rd_expect_seqs(test, recs, k, seq, cpu);
	seq += k;
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2 * k, RD_LEN, seq).ok, 2 * k);
	got = st_collect(test, buf, SNAPTRACE_LIVE, cpu, want, RD_RECS, &end);
	KUNIT_ASSERT_EQ(test, got, 2 * k);
	b = rd_lap_end(want, 2 * k);
	KUNIT_ASSERT_GT(test, b, 0);
	KUNIT_ASSERT_LT(test, b, 2 * k);
	rd_drain(test, buf, cpu, RD_RECS, want, 2 * k, recs);
	seq += 2 * k;
	rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, seq, seq, 0, 0);
}

/*
 * Records overwritten between a batch's copy and its removal (the writer
 * wraps the ring at ST_STEP_CONSUME): the batch's cmpxchg of tail fails,
 * none of its copies is returned, and it takes the records that are there
 * now: every record not overwritten, intact, once, in order; read counts
 * exactly those, overrun the others.
 */
static void read_batch_overwritten_while_copied(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *recs = rd_recs(test);
	const unsigned int n0 = 300, m = 40;
	struct snaptrace_stats st;
	int cpu = st_cpu(), rc;
	struct rd_hook *h;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, n0, RD_LEN, 0).ok, n0);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_ASSERT_GT(test, st.overrun, 0);
	KUNIT_ASSERT_LT(test, st.entries, RD_RECS);

	h = rd_hook_new(test, buf, ST_STEP_CONSUME, cpu);
	h->write = m;
	h->seq = n0;
	rd_arm(h);
	rc = snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, RD_RECS);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->fired), 1);
	KUNIT_EXPECT_EQ(test, h->wc.ok, m);
	KUNIT_ASSERT_GT(test, rc, 0);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.read, rc);
	KUNIT_EXPECT_EQ(test, st.entries, 0);
	KUNIT_EXPECT_EQ(test, st.overrun, n0 + m - rc);
	rd_expect_seqs(test, recs, rc, n0 + m - rc, cpu);
	rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, n0 + m, rc, 0, n0 + m - rc);
	KUNIT_EXPECT_EQ(test, snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, 1),
			-ENODATA);
}

/*
 * A snapshot between a batch's copy and its removal (at ST_STEP_CONSUME),
 * with two records written after it: the batch of the live half takes
 * none of the snapshot's records (the seal bit makes its cmpxchg fail)
 * and loses none of the live ones; one CPU, then all CPUs.
 */
static void read_batch_snapshot_between_copy_and_remove(struct kunit *test)
{
	struct snaptrace_record *recs = rd_recs(test);
	const unsigned int k = 30, before = 3;
	int cpu = st_cpu(), who, rc, pass;
	struct snaptrace_buffer *buf;
	struct rd_hook *h;

	for (pass = 0; pass < 2; pass++) {
		who = pass ? SNAPTRACE_ALL_CPUS : cpu;
		buf = st_buf_new(test, SNAPTRACE_MIN_SIZE, SNAPTRACE_OVERWRITE);
		KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
		KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, k, RD_LEN, 0).ok, k);
		rc = snaptrace_consume_batch(buf, SNAPTRACE_LIVE, who, recs, before);
		KUNIT_ASSERT_EQ(test, rc, before);
		rd_expect_seqs(test, recs, before, 0, cpu);

		h = rd_hook_new(test, buf, ST_STEP_CONSUME, cpu);
		h->snapshot = true;
		h->write = 2;
		h->seq = 100;
		rd_arm(h);
		rc = snaptrace_consume_batch(buf, SNAPTRACE_LIVE, who, recs, RD_RECS);
		rd_hook_remove(NULL);
		KUNIT_EXPECT_EQ(test, atomic_read(&h->fired), 1);
		KUNIT_EXPECT_EQ(test, h->snap_rc, 0);
		KUNIT_EXPECT_EQ(test, h->wc.ok, 2);
		KUNIT_ASSERT_EQ_MSG(test, rc, 2, "pass %d", pass);
		rd_expect_seqs(test, recs, 2, 100, cpu);
		rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, 2, 2, 0, 0);

		rd_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu, k, before, k - before, 0);
		rc = snaptrace_consume_batch(buf, SNAPTRACE_SNAPSHOT, who, recs, RD_RECS);
		KUNIT_ASSERT_EQ(test, rc, k - before);
		rd_expect_seqs(test, recs, k - before, before, cpu);
		rd_expect_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu, k, k, 0, 0);
	}
}

/*
 * A reset, and a record that opens the ring again, between a batch's
 * removal and its count (at ST_STEP_CONSUMED): the batch's records belong
 * to the epoch that is gone and are not counted in the new one, which
 * counts its one record written and none read.
 */
static void read_batch_counts_in_its_epoch(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *recs = rd_recs(test);
	const unsigned int k = 10;
	int cpu = st_cpu(), rc;
	struct rd_hook *h;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, k, RD_LEN, 0).ok, k);
	h = rd_hook_new(test, buf, ST_STEP_CONSUMED, cpu);
	h->reset = true;
	h->write = 1;
	h->seq = 50;
	rd_arm(h);
	rc = snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, RD_RECS);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->fired), 1);
	KUNIT_EXPECT_EQ(test, h->wc.ok, 1);
	KUNIT_ASSERT_EQ(test, rc, k);
	rd_expect_seqs(test, recs, k, 0, cpu);
	rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, 1, 0, 1, 0);

	rc = snaptrace_consume_batch(buf, SNAPTRACE_LIVE, cpu, recs, RD_RECS);
	KUNIT_ASSERT_EQ(test, rc, 1);
	rd_expect_seqs(test, recs, 1, 50, cpu);
	rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpu, 1, 1, 0, 0);
}

struct rd_ipi {
	struct snaptrace_buffer *buf;
	u32 seq;
	int rc;
};

static void rd_ipi_write(void *data)
{
	struct rd_ipi *a = data;
	u8 p[RD_LEN];

	st_payload_fill(p, sizeof(p), ST_MAGIC, smp_processor_id(), a->seq);
	a->rc = snaptrace_write(a->buf, p, sizeof(p));
}

/*
 * All CPUs: records written on two CPUs in an irregular interleave (runs
 * of 1, 2, 3... on each) come out of batches of every size from 1 to
 * RD_MAXN exactly as an iterator of all CPUs merges them.
 */
static void read_batch_all_cpus_merge(struct kunit *test)
{
	struct snaptrace_record *want = rd_recs(test), *recs = rd_recs(test);
	struct snaptrace_buffer *buf;
	unsigned int n, i, k, got;
	struct rd_ipi a = { };
	int cpus[2], end, rc;
	u32 seq[2];

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	cpus[0] = cpumask_first(cpu_online_mask);
	cpus[1] = cpumask_next(cpus[0], cpu_online_mask);
	for (n = 1; n <= RD_MAXN; n++) {
		buf = st_buf_new(test, SNAPTRACE_MIN_SIZE, SNAPTRACE_OVERWRITE);
		a.buf = buf;
		seq[0] = 0;
		seq[1] = 0;
		k = 0;
		for (i = 0; k < 3 * n + 5; i++) {
			unsigned int j, run = 1 + (i * 7 + n) % 4, w = i & 1;

			for (j = 0; j < run; j++, k++) {
				a.seq = seq[w]++;
				a.rc = -EINPROGRESS;
				rc = smp_call_function_single(cpus[w], rd_ipi_write, &a, 1);
				KUNIT_ASSERT_EQ(test, rc, 0);
				KUNIT_ASSERT_EQ(test, a.rc, 0);
			}
		}
		got = st_collect(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, want, RD_RECS,
				 &end);
		KUNIT_ASSERT_EQ(test, got, k);
		for (i = 1; i < k; i++)
			KUNIT_ASSERT_LT(test, want[i - 1].ts, want[i].ts);
		rd_drain(test, buf, SNAPTRACE_ALL_CPUS, n, want, k, recs);
		rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpus[0], seq[0], seq[0], 0, 0);
		rd_expect_stats(test, buf, SNAPTRACE_LIVE, cpus[1], seq[1], seq[1], 0, 0);
	}
}

static struct kunit_case snaptrace_read_cases[] = {
	KUNIT_CASE(read_batch_every_size),
	KUNIT_CASE(read_batch_runs_at_the_ring_end),
	KUNIT_CASE(read_batch_overwritten_while_copied),
	KUNIT_CASE(read_batch_snapshot_between_copy_and_remove),
	KUNIT_CASE(read_batch_counts_in_its_epoch),
	KUNIT_CASE(read_batch_all_cpus_merge),
	{}
};

static struct kunit_suite snaptrace_read_suite = {
	.name = "snaptrace_read",
	.test_cases = snaptrace_read_cases,
};

kunit_test_suites(&snaptrace_read_suite);
