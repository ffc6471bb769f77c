// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the snapshot's cut, seen from another CPU while a writer is held
 * at one step of its path (the ring buffer's test hook). The writer, a
 * kthread on one CPU, writes records 0, 1, 2, ... of 64 bytes (a 48-byte
 * payload and the 16-byte header) into a 16 KiB ring: 256 records fill it
 * exactly, with no padding. At record K the hook holds it; the test, on
 * the other CPU, takes a snapshot and reads it, then lets the writer go.
 *
 * What the contract (Documentation/ring-buffer.rst, "Why the cut is
 * exact") gives, record by record:
 * - held before its reservation (lookup, reserve; or a stop-when-full
 *   writer that found the ring full): record K is not in the snapshot,
 *   which holds the 256 records before it (K - 256 .. K - 1 in overwrite
 *   mode, 0 .. 255 in stop-when-full mode), final at once; K then goes to
 *   the live buffer, not refused;
 * - held after it (reserved, pushed): K is in the snapshot, visible once
 *   its writer commits; the records its reservation overwrites
 *   (K - 256) are gone from the snapshot already when snapshot() returns,
 *   counted in its overrun, and nothing else changes after the cut.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "../src/ring.h"
#include "st_kunit.h"

#define CUT_RING	16384
/* Records of 64 bytes in either layout. */
#define CUT_REC		64
#define CUT_PAYLOAD	ST_LEN_REC64
#define CUT_FIT		(CUT_RING / CUT_REC)
#define CUT_MAGIC	0x43555431U
#define CUT_HOLD_NS	(10ULL * NSEC_PER_SEC)

static_assert(CUT_RING % CUT_REC == 0);

struct cut_ctl {
	struct snaptrace_buffer *buf;
	enum snaptrace_test_step step;
	int cpu;
	u32 k;			/* hold the writer at record k */
	u32 n;			/* records to write */
	u32 cur;		/* the record being written (WRITE_ONCE) */
	atomic_t held;
	atomic_t release;
	bool timed_out;
	u32 refused;		/* writes that failed */
	struct completion done;
};

static struct cut_ctl *cut_ctl;

struct cut_payload {
	u32 magic;
	u32 seq;
	u8 fill[CUT_PAYLOAD - 8];
};

/*
 * Hold the caller (in the ring's hook) until @release, at most
 * CUT_HOLD_NS: the test on the other CPU acts meanwhile.
 */
static void cut_hold(atomic_t *held, atomic_t *release, bool *timed_out)
{
	u64 end = ktime_get_ns() + CUT_HOLD_NS;

	atomic_set(held, 1);
	while (!atomic_read(release)) {
		if (ktime_get_ns() > end) {
			*timed_out = true;
			break;
		}
		cpu_relax();
	}
}

static void cut_hook(struct snaptrace_buffer *buf, enum snaptrace_test_step step,
		     int cpu)
{
	struct cut_ctl *c = READ_ONCE(cut_ctl);

	if (!c || buf != c->buf || step != c->step || cpu != c->cpu ||
	    READ_ONCE(c->cur) != c->k || atomic_read(&c->held))
		return;
	cut_hold(&c->held, &c->release, &c->timed_out);
}

/* Wait (sleeping, at most 10 s) until the hook holds its caller. */
static bool cut_wait_held(atomic_t *held)
{
	unsigned int i;

	for (i = 0; i < 10000 && !atomic_read(held); i++)
		usleep_range(500, 1000);
	return atomic_read(held);
}

static int cut_writer(void *data)
{
	struct cut_ctl *c = data;
	struct cut_payload p;
	u32 i;

	for (i = 0; i < c->n; i++) {
		memset(&p, 0, sizeof(p));
		p.magic = CUT_MAGIC;
		p.seq = i;
		WRITE_ONCE(c->cur, i);
		if (snaptrace_write(c->buf, &p, sizeof(p)))
			c->refused++;
	}
	complete(&c->done);
	return 0;
}

static void cut_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(cut_ctl, NULL);
	synchronize_rcu();
}

/* Release the held writer thread @t and wait for it to end. */
static void cut_writer_release(struct cut_ctl *c, struct task_struct *t)
{
	atomic_set(&c->release, 1);
	wait_for_completion(&c->done);
	put_task_struct(t);
}

/*
 * Install the hook, start cut_writer() on c->cpu and wait until the hook
 * holds it at c->step. Returns the thread, or NULL (the test failed) if
 * the writer never got there.
 */
static struct task_struct *cut_writer_start_held(struct kunit *test, struct cut_ctl *c,
						 const char *name)
{
	struct task_struct *t;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_unhook, NULL), 0);
	WRITE_ONCE(cut_ctl, c);
	WRITE_ONCE(snaptrace_test_hook, cut_hook);
	t = st_kthread(cut_writer, c, c->cpu, name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wake_up_process(t);
	if (!cut_wait_held(&c->held)) {
		cut_writer_release(c, t);
		KUNIT_FAIL(test, "the writer never reached the step");
		return NULL;
	}
	return t;
}

/* The records of @which on @cpu must be exactly seq @first .. @last. */
static void cut_expect(struct kunit *test, struct snaptrace_buffer *buf,
		       enum snaptrace_which which, int cpu, u32 first, u32 last,
		       const char *when)
{
	const char *half = which == SNAPTRACE_LIVE ? "live" : "snapshot";
	struct snaptrace_record *recs;
	struct snaptrace_stats st;
	u32 want = last + 1 - first, i;
	const struct cut_payload *p;
	unsigned int n;
	int end;

	recs = kunit_kcalloc(test, CUT_FIT + 1, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	n = st_collect(test, buf, which, cpu, recs, CUT_FIT + 1, &end);
	KUNIT_EXPECT_EQ_MSG(test, end, -ENODATA, "%s, %s", half, when);
	KUNIT_EXPECT_EQ_MSG(test, n, want, "%s, %s: records", half, when);
	for (i = 0; i < n && i < want; i++) {
		p = (const struct cut_payload *)recs[i].data;
		KUNIT_EXPECT_EQ_MSG(test, recs[i].len, CUT_PAYLOAD, "%s, %s", half, when);
		KUNIT_EXPECT_EQ_MSG(test, p->magic, CUT_MAGIC, "%s, %s", half, when);
		KUNIT_EXPECT_EQ_MSG(test, p->seq, first + i, "%s, %s: record %u",
				    half, when, i);
	}
	KUNIT_ASSERT_EQ(test, snaptrace_cpu_stats(buf, which, cpu, &st), 0);
	KUNIT_EXPECT_EQ_MSG(test, st.entries, (u64)n, "%s, %s: entries", half, when);
	KUNIT_EXPECT_EQ_MSG(test, st.written, st.read + st.entries + st.overrun + st.dropped,
			    "%s, %s: balance", half, when);
}

static void cut_expect_stats(struct kunit *test, struct snaptrace_buffer *buf,
			     enum snaptrace_which which, int cpu, u64 written,
			     u64 overrun, u64 dropped, const char *when)
{
	const char *half = which == SNAPTRACE_LIVE ? "live" : "snapshot";
	struct snaptrace_stats st;

	KUNIT_ASSERT_EQ(test, snaptrace_cpu_stats(buf, which, cpu, &st), 0);
	KUNIT_EXPECT_EQ_MSG(test, st.written, written, "%s, %s: written", half, when);
	KUNIT_EXPECT_EQ_MSG(test, st.overrun, overrun, "%s, %s: overrun", half, when);
	KUNIT_EXPECT_EQ_MSG(test, st.dropped, dropped, "%s, %s: dropped", half, when);
	KUNIT_EXPECT_EQ_MSG(test, st.read, 0ULL, "%s, %s: read", half, when);
}

/*
 * Consume @which on @cpu one record at a time: exactly seq @first ..
 * @last, then nothing; its counters then show them read.
 */
static void cut_consume_expect(struct kunit *test, struct snaptrace_buffer *buf,
			       enum snaptrace_which which, int cpu, u32 first,
			       u32 last, u64 overrun)
{
	const char *half = which == SNAPTRACE_LIVE ? "live" : "snapshot";
	struct snaptrace_record *rec = st_rec_new(test);
	const struct cut_payload *p;
	struct snaptrace_stats st;
	u32 want = last + 1 - first, i;
	int rc;

	for (i = 0; i < want; i++) {
		rc = snaptrace_consume(buf, which, cpu, rec);
		KUNIT_EXPECT_EQ_MSG(test, rc, 0, "%s: consuming read of record %u of %u",
				    half, i, want);
		if (rc)
			break;
		p = (const struct cut_payload *)rec->data;
		KUNIT_EXPECT_EQ_MSG(test, rec->len, CUT_PAYLOAD, "%s: consumed %u", half, i);
		KUNIT_EXPECT_EQ_MSG(test, p->magic, CUT_MAGIC, "%s: consumed %u", half, i);
		KUNIT_EXPECT_EQ_MSG(test, p->seq, first + i, "%s: consumed %u", half, i);
	}
	KUNIT_EXPECT_EQ_MSG(test, snaptrace_consume(buf, which, cpu, rec), -ENODATA,
			    "%s: consuming read after the last", half);
	KUNIT_ASSERT_EQ(test, snaptrace_cpu_stats(buf, which, cpu, &st), 0);
	KUNIT_EXPECT_EQ_MSG(test, st.read, (u64)i, "%s, consumed: read", half);
	KUNIT_EXPECT_EQ_MSG(test, st.entries, 0ULL, "%s, consumed: entries", half);
	KUNIT_EXPECT_EQ_MSG(test, st.overrun, overrun, "%s, consumed: overrun", half);
	KUNIT_EXPECT_EQ_MSG(test, st.written, st.read + st.entries + st.overrun + st.dropped,
			    "%s, consumed: balance", half);
}

static void cut_unpin(void *unused)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/*
 * A writer's control block for a @mode buffer of @size bytes per CPU with a
 * spare, to hold at @step of record @k of @n, on the last CPU. This thread
 * waits and snapshots on the first CPU, never on the writer's: once held,
 * the writer keeps its CPU with preemption off, and on PREEMPT_RT the
 * timers of a sleep on that CPU would expire in its timer thread, which
 * cannot run meanwhile. With fewer than two CPUs the test is skipped
 * (kunit_skip() ends it: this does not return).
 */
static struct cut_ctl *cut_ctl_new_size(struct kunit *test, size_t size,
					enum snaptrace_mode mode,
					enum snaptrace_test_step step, u32 k, u32 n)
{
	struct cut_ctl *c;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs (the guest has -smp 2)");
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->buf = st_buf_new(test, size, mode);
	KUNIT_ASSERT_EQ(test, snaptrace_size_per_cpu(c->buf), size);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(c->buf), 0);
	c->k = k;
	c->n = n;
	c->step = step;
	c->cpu = cpumask_last(cpu_online_mask);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_unpin, NULL), 0);
	KUNIT_ASSERT_EQ(test,
			set_cpus_allowed_ptr(current, cpumask_of(cpumask_first(cpu_online_mask))),
			0);
	KUNIT_ASSERT_NE(test, raw_smp_processor_id(), c->cpu);
	init_completion(&c->done);
	return c;
}

/* cut_ctl_new_size() of a CUT_RING ring. */
static struct cut_ctl *cut_ctl_new(struct kunit *test, enum snaptrace_mode mode,
				   enum snaptrace_test_step step, u32 k, u32 n)
{
	return cut_ctl_new_size(test, CUT_RING, mode, step, k, n);
}

struct cut_param {
	const char *name;
	enum snaptrace_test_step step;
	enum snaptrace_mode mode;
	bool in_snapshot;	/* record K is reserved before the cut */
};

static const struct cut_param cut_params[] = {
	{ "overwrite, held at lookup", ST_STEP_WRITE_LOOKUP, SNAPTRACE_OVERWRITE, false },
	{ "overwrite, held before the reservation", ST_STEP_WRITE_RESERVE,
	  SNAPTRACE_OVERWRITE, false },
	{ "overwrite, held after the reservation", ST_STEP_WRITE_RESERVED,
	  SNAPTRACE_OVERWRITE, true },
	{ "overwrite, held after the tail push", ST_STEP_WRITE_PUSHED,
	  SNAPTRACE_OVERWRITE, true },
	{ "stop-when-full, held at lookup", ST_STEP_WRITE_LOOKUP,
	  SNAPTRACE_STOP_WHEN_FULL, false },
	{ "stop-when-full, held finding the ring full", ST_STEP_WRITE_FULL,
	  SNAPTRACE_STOP_WHEN_FULL, false },
};

static void cut_param_desc(const struct cut_param *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cut, cut_params, cut_param_desc);

static void cut_held_writer(struct kunit *test)
{
	const struct cut_param *prm = test->param_value;
	bool stop = prm->mode == SNAPTRACE_STOP_WHEN_FULL;
	struct task_struct *t;
	struct cut_ctl *c;
	u32 k, first, last;

	/* Stop-when-full: the ring is full at record 256, which must not fail. */
	k = stop ? CUT_FIT : CUT_FIT + 44;
	c = cut_ctl_new(test, prm->mode, prm->step, k, k + 60);

	t = cut_writer_start_held(test, c, "st_cut");
	if (!t)
		return;

	/* The cut, from this CPU, while the writer is held on the other. */
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);

	first = stop ? 0 : k - CUT_FIT + (prm->in_snapshot ? 1 : 0);
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, first, k - 1,
		   "at the cut");
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, k, first, 0,
			 "at the cut");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 1, 0, "at the cut");

	cut_writer_release(c, t);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ_MSG(test, c->refused, 0U, "writes refused");

	/* Only the late commit of record K, if it was reserved before. */
	if (prm->in_snapshot) {
		cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, first, k,
			   "after the late commit");
		cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, k + 1,
				 first, 0, "after the late commit");
		cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, k + 1, c->n - 1,
			   "after the late commit");
		cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu,
				 c->n - k - 1, 0, 0, "after the late commit");
	} else {
		cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, first, k - 1,
			   "after the writer went on");
		cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, k, first,
				 0, "after the writer went on");
		cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, k, c->n - 1,
			   "after the writer went on");
		cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, c->n - k,
				 0, 0, "after the writer went on");
	}

	/*
	 * Consuming reads too, which see tail's seal bit: held after its
	 * reservation, record K left the snapshot's push to pass K - 256,
	 * which must keep the bit (the iterators above ignore it).
	 */
	last = prm->in_snapshot ? k : k - 1;
	cut_consume_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, first, last,
			   first);
	cut_consume_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, last + 1, c->n - 1,
			   0);
}

/*
 * The other way round: a snapshot held at one of its own steps on one CPU
 * while a writer on the other CPU writes record 10. Until the writer's CPU
 * is cut (its ring sealed), its records go to the former live ring and so
 * into the snapshot, even once the roles are published (R2: the new ring
 * is not opened while its twin still records); after the cut, to the new
 * live ring.
 */
struct cut_snap {
	struct snaptrace_buffer *buf;
	enum snaptrace_test_step step;
	int cpu;		/* for ST_STEP_SNAP_SEALED: hold after this CPU's cut */
	atomic_t held;
	atomic_t release;
	bool timed_out;
	int ret;
	struct completion done;
};

static struct cut_snap *cut_snap;

static void cut_snap_hook(struct snaptrace_buffer *buf,
			  enum snaptrace_test_step step, int cpu)
{
	struct cut_snap *c = READ_ONCE(cut_snap);

	if (!c || buf != c->buf || step != c->step ||
	    (step == ST_STEP_SNAP_SEALED && cpu != c->cpu) ||
	    atomic_read(&c->held))
		return;
	cut_hold(&c->held, &c->release, &c->timed_out);
}

static int cut_snapper(void *data)
{
	struct cut_snap *c = data;

	c->ret = snaptrace_snapshot(c->buf);
	complete(&c->done);
	return 0;
}

static void cut_snap_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(cut_snap, NULL);
	synchronize_rcu();
}

/* Write record @seq from this thread, pinned to the writer's CPU. */
static void cut_write_here(struct kunit *test, struct snaptrace_buffer *buf,
			   u32 seq)
{
	struct cut_payload p = { .magic = CUT_MAGIC, .seq = seq };

	KUNIT_EXPECT_EQ_MSG(test, snaptrace_write(buf, &p, sizeof(p)), 0,
			    "record %u", seq);
}

struct cut_snap_param {
	const char *name;
	enum snaptrace_test_step step;
	bool writer_cut;	/* held after the writer's CPU was cut */
};

static const struct cut_snap_param cut_snap_params[] = {
	{ "held with the spare emptied", ST_STEP_SNAP_PENDED, false },
	{ "held with the roles published", ST_STEP_SNAP_PUBLISHED, false },
	{ "held after the other CPU's cut", ST_STEP_SNAP_SEALED, false },
	{ "held after the writer's CPU's cut", ST_STEP_SNAP_SEALED, true },
};

static void cut_snap_param_desc(const struct cut_snap_param *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cut_snap, cut_snap_params, cut_snap_param_desc);

static void cut_held_snapshot(struct kunit *test)
{
	const struct cut_snap_param *prm = test->param_value;
	struct task_struct *t;
	struct cut_snap *c;
	int snap_cpu, cpu;
	u32 i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs (the guest has -smp 2)");
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->buf = st_buf_new(test, CUT_RING, SNAPTRACE_OVERWRITE);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(c->buf), 0);
	/*
	 * This thread writes, on the last CPU; the snapshot runs on the
	 * first, with IRQs off while it is held: nothing here may need that
	 * CPU meanwhile (no timer of ours there, no thread to create).
	 */
	cpu = cpumask_last(cpu_online_mask);
	snap_cpu = cpumask_first(cpu_online_mask);
	/* Snapshots cut CPUs in order: the other CPU's cut comes first. */
	KUNIT_ASSERT_LT(test, snap_cpu, cpu);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_unpin, NULL), 0);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), cpu);
	init_completion(&c->done);
	c->step = prm->step;
	c->cpu = prm->writer_cut ? cpu : snap_cpu;

	for (i = 0; i < 10; i++)
		cut_write_here(test, c->buf, i);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_snap_unhook, NULL), 0);
	WRITE_ONCE(cut_snap, c);
	WRITE_ONCE(snaptrace_test_hook, cut_snap_hook);
	t = st_kthread(cut_snapper, c, snap_cpu, "st_cut_snap");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wake_up_process(t);
	if (!cut_wait_held(&c->held)) {
		atomic_set(&c->release, 1);
		wait_for_completion(&c->done);
		put_task_struct(t);
		KUNIT_FAIL(test, "the snapshot never reached the step");
		return;
	}

	/* Record 10, while the snapshot is held. */
	cut_write_here(test, c->buf, 10);
	atomic_set(&c->release, 1);
	wait_for_completion(&c->done);
	put_task_struct(t);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ(test, c->ret, 0);
	cut_write_here(test, c->buf, 11);

	if (prm->writer_cut) {
		cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, cpu, 0, 9, "after");
		cut_expect(test, c->buf, SNAPTRACE_LIVE, cpu, 10, 11, "after");
	} else {
		cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, cpu, 0, 10, "after");
		cut_expect(test, c->buf, SNAPTRACE_LIVE, cpu, 11, 11, "after");
	}
}

/*
 * A writer opening its ring (record 0, the first after a snapshot) is
 * held after it raised the ring's commit to the new epoch's start,
 * before the cmpxchg that opens it; a snapshot from the other CPU then
 * seals that ring empty, so the cmpxchg fails and record 0 goes to the
 * other ring. The first ring keeps a commit above its head's position,
 * and its tail at the failed opening's start, sealed again by the close:
 * when a third snapshot makes it live again, its next opening must
 * still see it settled (no record being written), not start 8 bytes
 * above head's position, below that commit, where every reservation
 * would be refused; and must start above that tail, so that it rewrites
 * it unsealed: a sealed tail hides the live ring from consuming reads.
 */
static void cut_open_interrupted_by_a_snapshot(struct kunit *test)
{
	struct snaptrace_record *rec;
	struct snaptrace_stats st;
	struct task_struct *t;
	struct cut_ctl *c;

	c = cut_ctl_new(test, SNAPTRACE_OVERWRITE, ST_STEP_OPEN_LAST, 0, 10);
	/* Record 0 then opens the writer's CPU's new ring. */
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(c->buf), 0);

	t = cut_writer_start_held(test, c, "st_cut_open");
	if (!t)
		return;
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	cut_writer_release(c, t);
	cut_unhook(NULL);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ_MSG(test, c->refused, 0U, "writes refused");
	/* Record 0 was reserved after the cut. */
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 1, 0, "after the first");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 0, 9, "after the first");

	/* That ring is live again: records 10 and 11 open it. */
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(c->cpu)), 0);
	cut_write_here(test, c->buf, 10);
	cut_write_here(test, c->buf, 11);
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 0, 9, "after the second");
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 10, 0, 0,
			 "after the second");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 10, 11, "after the second");
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, 2, 0, 0,
			 "after the second");
	/*
	 * A consuming read finds them too: the failed opening left tail at
	 * its start, sealed again by the snapshot's close; the reopening
	 * must start above it and unseal it.
	 */
	rec = st_rec_new(test);
	KUNIT_EXPECT_EQ_MSG(test, snaptrace_consume(c->buf, SNAPTRACE_LIVE, c->cpu, rec), 0,
			    "consuming read of the reopened ring");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 11, 11, "after a consuming read");
	KUNIT_ASSERT_EQ(test, snaptrace_cpu_stats(c->buf, SNAPTRACE_LIVE, c->cpu, &st), 0);
	KUNIT_EXPECT_EQ(test, st.written, 2ULL);
	KUNIT_EXPECT_EQ(test, st.read, 1ULL);
	KUNIT_EXPECT_EQ(test, st.entries, 1ULL);
}

/*
 * A record still open across two snapshots pins its bytes in the ring it
 * was reserved in (I2) until its writer commits, while that ring is live
 * again. Record 0 is reserved at the start of a new ring; an "interrupt"
 * (the hook, inside its window) takes two snapshots and writes records
 * 1, 2, ...: the reopened ring starts just above record 0 (its epoch's last
 * position), so it takes a whole ring less record 0 and an 8-byte gap,
 * here 254 records, and refuses the 255th (it would reach record 0's
 * bytes), counted as dropped. Once record 0 commits, the ring takes
 * records again. Starting the epoch at the next multiple of the ring size
 * instead would refuse record 1 already.
 */
struct cut_pin {
	struct snaptrace_buffer *buf;
	int cpu;
	bool hit;
	int snap[2];
	u32 ok, refused;
	int last_rc;
};

static struct cut_pin *cut_pin;

static void cut_pin_hook(struct snaptrace_buffer *buf, enum snaptrace_test_step step,
			 int cpu)
{
	struct cut_pin *c = READ_ONCE(cut_pin);
	struct cut_payload p = { .magic = CUT_MAGIC };
	u32 i;
	int rc;

	if (!c || buf != c->buf || step != ST_STEP_WRITE_RESERVED || c->hit)
		return;
	c->hit = true;
	c->cpu = cpu;
	c->snap[0] = snaptrace_snapshot(buf);
	c->snap[1] = snaptrace_snapshot(buf);
	for (i = 1; i < CUT_FIT; i++) {
		p.seq = i;
		rc = snaptrace_write(buf, &p, sizeof(p));
		if (rc) {
			c->refused++;
			c->last_rc = rc;
		} else {
			c->ok++;
		}
	}
}

static void cut_pin_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(cut_pin, NULL);
	synchronize_rcu();
}

static void cut_open_record_across_two_snapshots(struct kunit *test)
{
	struct cut_payload p = { .magic = CUT_MAGIC, .seq = 0 };
	struct cut_pin *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->buf = st_buf_new(test, CUT_RING, SNAPTRACE_OVERWRITE);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(c->buf), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_pin_unhook, NULL), 0);
	WRITE_ONCE(cut_pin, c);
	WRITE_ONCE(snaptrace_test_hook, cut_pin_hook);

	/* Record 0: the hook runs inside its window, on its CPU. */
	KUNIT_EXPECT_EQ(test, snaptrace_write(c->buf, &p, sizeof(p)), 0);
	cut_pin_unhook(NULL);
	KUNIT_ASSERT_TRUE(test, c->hit);
	KUNIT_EXPECT_EQ(test, c->snap[0], 0);
	KUNIT_EXPECT_EQ(test, c->snap[1], 0);
	KUNIT_EXPECT_EQ(test, c->ok, CUT_FIT - 2);
	KUNIT_EXPECT_EQ(test, c->refused, 1U);
	KUNIT_EXPECT_EQ(test, c->last_rc, -ENOSPC);

	/* Record 0 went with the first snapshot, which the second replaced. */
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 1, 0, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 0, 0, 0, "after");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 1, CUT_FIT - 2, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, CUT_FIT - 1, 0, 1,
			 "after");

	/* Committed, record 0 frees its bytes: the ring takes one more. */
	p.seq = CUT_FIT - 1;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_unpin, NULL), 0);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(c->cpu)), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_write(c->buf, &p, sizeof(p)), 0);
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 1, CUT_FIT - 1,
		   "after record 0's commit");
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, CUT_FIT, 0, 1,
			 "after record 0's commit");
}

/* On the held writer's CPU (an IPI, hardirq): record @seq, nested in it. */
struct cut_ipi_write {
	struct snaptrace_buffer *buf;
	u32 seq;
	int cpu;
	int rc;
};

static void cut_ipi_write_fn(void *data)
{
	struct cut_ipi_write *w = data;
	struct cut_payload p = { .magic = CUT_MAGIC, .seq = w->seq };

	w->cpu = smp_processor_id();
	w->rc = snaptrace_write(w->buf, &p, sizeof(p));
}

/*
 * A drop decided in an epoch that is gone by the time it is counted: the
 * writer of record 256 (stop-when-full) found its ring full, checked that
 * the ring's epoch is still the record's, and is held before the cmpxchg
 * that counts the drop. Meanwhile two snapshots empty that ring and make it
 * live again, and an interrupt on the writer's CPU opens it with a record
 * of its own. The opening's marker on the counter makes the held cmpxchg
 * fail, so the drop is counted in no epoch: the live ring holds the
 * interrupt's record and the writer's later ones, with nothing dropped.
 * Without the markers, the new epoch would count a drop it never saw.
 */
static void cut_drop_counted_in_a_gone_epoch(struct kunit *test)
{
	struct cut_ipi_write w = { .seq = 1000, .cpu = -1, .rc = -EINPROGRESS };
	struct snaptrace_record *recs;
	const struct cut_payload *p;
	struct task_struct *t;
	struct cut_ctl *c;
	unsigned int n, i;
	int end;

	c = cut_ctl_new(test, SNAPTRACE_STOP_WHEN_FULL, ST_STEP_COUNT_DROPPED,
			CUT_FIT, CUT_FIT + 60);

	t = cut_writer_start_held(test, c, "st_cut_drop");
	if (!t)
		return;
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	w.buf = c->buf;
	KUNIT_EXPECT_EQ(test, smp_call_function_single(c->cpu, cut_ipi_write_fn, &w, 1), 0);
	KUNIT_EXPECT_EQ(test, w.cpu, c->cpu);
	KUNIT_EXPECT_EQ(test, w.rc, 0);
	cut_writer_release(c, t);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	/* Record 256 was refused: the ring was full when it looked. */
	KUNIT_EXPECT_EQ(test, c->refused, 1U);

	/* The snapshot: the empty ring the second snapshot cut. */
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 1, 0, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 0, 0, 0, "after");
	/* Live: the interrupt's record, then 257 .. 315; nothing dropped. */
	recs = kunit_kcalloc(test, CUT_FIT + 1, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	n = st_collect(test, c->buf, SNAPTRACE_LIVE, c->cpu, recs, CUT_FIT + 1, &end);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	KUNIT_ASSERT_EQ(test, n, c->n - c->k);
	for (i = 0; i < n; i++) {
		p = (const struct cut_payload *)recs[i].data;
		KUNIT_EXPECT_EQ(test, p->magic, CUT_MAGIC);
		KUNIT_EXPECT_EQ_MSG(test, p->seq, i ? c->k + i : w.seq, "record %u", i);
	}
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, n, 0, 0, "after");
}

/*
 * A snapshot nested in one that published the roles but had not yet cut
 * the writer's CPU (as an NMI's would be) first settles the new live ring:
 * for that instant both rings of the CPU are live-pending, alike. A writer
 * that looked up its ring before the roles were published, and reserves
 * in that instant, must open the live one, which the nested snapshot then
 * cuts (its record is in the snapshot), not the one it looked up, which the
 * nested snapshot seals and empties (its record would be in neither half).
 */
struct cut_alike {
	struct cut_ctl *c;	/* the writer, held after its lookup */
	bool nested;		/* the nested snapshot was taken */
	bool released;
	bool timed_out;
	int nested_rc;
};

static struct cut_alike *cut_alike;

static void cut_alike_hook(struct snaptrace_buffer *buf,
			   enum snaptrace_test_step step, int cpu)
{
	struct cut_alike *a = READ_ONCE(cut_alike);
	u64 end;

	cut_hook(buf, step, cpu);
	if (!a || buf != a->c->buf)
		return;
	if (step == ST_STEP_SNAP_PUBLISHED && !a->nested) {
		a->nested = true;
		a->nested_rc = snaptrace_snapshot(buf);
	} else if (step == ST_STEP_SNAP_SETTLED && a->nested && !a->released) {
		/* The nested one: let the writer reserve now, and wait. */
		a->released = true;
		atomic_set(&a->c->release, 1);
		end = ktime_get_ns() + CUT_HOLD_NS;
		while (!completion_done(&a->c->done)) {
			if (ktime_get_ns() > end) {
				a->timed_out = true;
				break;
			}
			cpu_relax();
		}
	}
}

static void cut_alike_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(cut_alike, NULL);
	synchronize_rcu();
}

static void cut_write_while_both_rings_alike(struct kunit *test)
{
	struct cut_alike *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct task_struct *t;
	struct cut_ctl *c;

	KUNIT_ASSERT_NOT_NULL(test, a);
	c = cut_ctl_new(test, SNAPTRACE_OVERWRITE, ST_STEP_WRITE_LOOKUP, 0, 1);
	a->c = c;
	/* The writer's live ring is then next: the snapshot settles it. */
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(c->buf), 0);
	t = cut_writer_start_held(test, c, "st_cut_alike");
	if (!t)
		return;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_alike_unhook, NULL), 0);
	WRITE_ONCE(cut_alike, a);
	WRITE_ONCE(snaptrace_test_hook, cut_alike_hook);

	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	cut_writer_release(c, t);
	KUNIT_EXPECT_TRUE(test, a->nested);
	KUNIT_EXPECT_EQ(test, a->nested_rc, 0);
	KUNIT_EXPECT_TRUE(test, a->released);
	KUNIT_EXPECT_FALSE(test, a->timed_out);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ_MSG(test, c->refused, 0U, "writes refused");

	/* Record 0 was reserved before the nested snapshot cut its CPU. */
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 0, 0, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 1, 0, 0, "after");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 1, 0, "after");
}

/*
 * A writer's tail push between a snapshot's seal and its own push. The
 * snapshot seals the ring's tail, then its head (the cut), then pushes
 * tail past what the reservations before the cut overwrite. A writer
 * reserved before the cut that pushes tail in between finds the seal bit
 * there, and must keep it in the value it writes: a consumer of the
 * snapshot expects the bit set, and reads a ring without it as empty (a
 * ring changing roles). The snapshot's own push then has nothing left to
 * do, and nothing else would set the bit again. Iterators and statistics
 * ignore the bit: only a consuming read of the snapshot sees it.
 *
 * A ring of SNAPTRACE_MIN_SIZE bytes (one frame), overwrite mode, full:
 * the writer is held after the reservation of record K; this thread's
 * snapshot is held after the cut of the writer's CPU (one hook serves
 * both), lets the writer go on, waits for it to write all its records,
 * then goes on. Record K is in the snapshot, with the 127 before it;
 * the writer's own push counted the one it overwrote; the records after
 * K are in the live half only. Each case takes one of the writer's two
 * pushes:
 * - K mid-frame (a record of the writer's fast path), the record at tail
 *   one of 64 bytes with no time prefix: the inline push of st_reserve()
 *   passes it with one cmpxchg;
 * - K at the ring's start, so at a frame's first position: the frame's
 *   owner, reserved in st_reserve_slow(), pushes with
 *   snaptrace_ring_push_tail().
 */
#define CUT_SEAL_RING	SNAPTRACE_MIN_SIZE
#define CUT_SEAL_FIT	(CUT_SEAL_RING / CUT_REC)
/* Records the writer writes after K, into the live half. */
#define CUT_SEAL_AFTER	9

static_assert(CUT_SEAL_RING % CUT_REC == 0 && CUT_SEAL_FIT > 44);

struct cut_seal {
	struct cut_ctl *c;	/* the writer, held after the reservation of K */
	bool released;		/* by the snapshot, after the writer's CPU's cut */
	bool timed_out;
};

static struct cut_seal *cut_seal;

static void cut_seal_hook(struct snaptrace_buffer *buf,
			  enum snaptrace_test_step step, int cpu)
{
	struct cut_seal *s = READ_ONCE(cut_seal);
	u64 end;

	cut_hook(buf, step, cpu);
	if (!s || buf != s->c->buf || step != ST_STEP_SNAP_SEALED ||
	    cpu != s->c->cpu || s->released)
		return;
	/* The cut of the writer's CPU, before the snapshot's own push. */
	s->released = true;
	atomic_set(&s->c->release, 1);
	end = ktime_get_ns() + CUT_HOLD_NS;
	while (!completion_done(&s->c->done)) {
		if (ktime_get_ns() > end) {
			s->timed_out = true;
			break;
		}
		cpu_relax();
	}
}

static void cut_seal_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(cut_seal, NULL);
	synchronize_rcu();
}

struct cut_seal_param {
	const char *name;
	u32 k;			/* the record held after its reservation */
};

static const struct cut_seal_param cut_seal_params[] = {
	{ "mid-frame: the fast path's inline push", CUT_SEAL_FIT + 44 },
	{ "a frame's owner: the slow path's push", 2 * CUT_SEAL_FIT },
};

static void cut_seal_param_desc(const struct cut_seal_param *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cut_seal, cut_seal_params, cut_seal_param_desc);

static void cut_push_keeps_the_seal(struct kunit *test)
{
	const struct cut_seal_param *prm = test->param_value;
	struct cut_seal *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u32 k = prm->k, first = k - CUT_SEAL_FIT + 1;
	struct task_struct *t;
	struct cut_ctl *c;

	KUNIT_ASSERT_NOT_NULL(test, s);
	c = cut_ctl_new_size(test, CUT_SEAL_RING, SNAPTRACE_OVERWRITE,
			     ST_STEP_WRITE_RESERVED, k, k + 1 + CUT_SEAL_AFTER);
	s->c = c;
	t = cut_writer_start_held(test, c, "st_cut_seal");
	if (!t)
		return;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_seal_unhook, NULL), 0);
	WRITE_ONCE(cut_seal, s);
	WRITE_ONCE(snaptrace_test_hook, cut_seal_hook);

	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	cut_writer_release(c, t);
	KUNIT_EXPECT_TRUE(test, s->released);
	KUNIT_EXPECT_FALSE(test, s->timed_out);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ_MSG(test, c->refused, 0U, "writes refused");

	/* Records 0 .. first - 1 overwritten, by the writers' own pushes. */
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, first, k, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, k + 1, first, 0,
			 "after");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, k + 1, c->n - 1, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, c->n - k - 1, 0, 0,
			 "after");

	/* Tail still sealed: the snapshot's consumer finds every record. */
	cut_consume_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, first, k, first);
	cut_consume_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, k + 1, c->n - 1, 0);
}

/*
 * An interrupt opens the ring first. Record 0 is the first write on its
 * CPU after a snapshot: its writer found its ring pending (next) and is
 * held before it reads what the new epoch's start is made of. An
 * interrupt on that CPU (an IPI) writes record 1000: it opens the ring
 * and commits. The held opening must then leave that epoch alone: had it
 * read tail after the interrupt, it would find a settled ring with tail
 * above head's position and move start and tail a whole ring up, hiding
 * record 1000 and every record after it from readers, iterators and the
 * next snapshot.
 */
static void cut_open_interrupted_by_an_opener(struct kunit *test)
{
	struct cut_ipi_write w = { .seq = 1000, .cpu = -1, .rc = -EINPROGRESS };
	struct snaptrace_record *recs;
	const struct cut_payload *p;
	struct snaptrace_stats st;
	struct task_struct *t;
	struct cut_ctl *c;
	unsigned int n, i;
	int end;

	c = cut_ctl_new(test, SNAPTRACE_OVERWRITE, ST_STEP_OPEN_BEGIN, 0, 10);
	/* Record 0 then opens the writer's CPU's new ring. */
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(c->buf), 0);
	t = cut_writer_start_held(test, c, "st_cut_opener");
	if (!t)
		return;
	w.buf = c->buf;
	KUNIT_EXPECT_EQ(test, smp_call_function_single(c->cpu, cut_ipi_write_fn, &w, 1), 0);
	KUNIT_EXPECT_EQ(test, w.cpu, c->cpu);
	KUNIT_EXPECT_EQ(test, w.rc, 0);
	cut_writer_release(c, t);
	cut_unhook(NULL);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ_MSG(test, c->refused, 0U, "writes refused");

	/* Live: the interrupt's record, then 0 .. 9. */
	recs = kunit_kcalloc(test, CUT_FIT + 1, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	n = st_collect(test, c->buf, SNAPTRACE_LIVE, c->cpu, recs, CUT_FIT + 1, &end);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	KUNIT_ASSERT_EQ(test, n, c->n + 1);
	for (i = 0; i < n; i++) {
		p = (const struct cut_payload *)recs[i].data;
		KUNIT_EXPECT_EQ(test, p->magic, CUT_MAGIC);
		KUNIT_EXPECT_EQ_MSG(test, p->seq, i ? i - 1 : w.seq, "record %u", i);
	}
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, n, 0, 0, "after");
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 1, 0, "after");

	/* The next snapshot takes all of them, and a consumer finds them. */
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	n = st_collect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, recs, CUT_FIT + 1, &end);
	KUNIT_EXPECT_EQ(test, n, c->n + 1);
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, c->n + 1, 0, 0,
			 "snapshot after");
	for (i = 0; i <= c->n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_consume(c->buf, SNAPTRACE_SNAPSHOT,
							    c->cpu, &recs[0]), 0,
				    "consuming read %u", i);
		p = (const struct cut_payload *)recs[0].data;
		KUNIT_EXPECT_EQ_MSG(test, p->seq, i ? i - 1 : w.seq, "consumed %u", i);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume(c->buf, SNAPTRACE_SNAPSHOT, c->cpu,
						&recs[0]), -ENODATA);
	KUNIT_ASSERT_EQ(test, snaptrace_cpu_stats(c->buf, SNAPTRACE_SNAPSHOT, c->cpu, &st), 0);
	KUNIT_EXPECT_EQ(test, st.read, (u64)c->n + 1);
	KUNIT_EXPECT_EQ(test, st.entries, 0ULL);
}

/*
 * An opening stalled across two snapshots. Record 0's writer opens its
 * CPU's new ring (next) and is held before its last step, the cmpxchg of
 * head from the pending value it read. Meanwhile two snapshots seal that
 * ring empty (its tail sealed too), empty it and make it next again. Its
 * head must not hold the value the opening read: else that cmpxchg
 * succeeds, and the ring is open with a sealed tail: consuming reads
 * find nothing (-ENODATA) while statistics count the records, and the
 * next snapshot takes them from under the consumers.
 */
static void cut_open_stalled_across_two_snapshots(struct kunit *test)
{
	struct cut_ctl *c;
	struct task_struct *t;

	c = cut_ctl_new(test, SNAPTRACE_OVERWRITE, ST_STEP_OPEN_LAST, 0, 10);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(c->buf), 0);
	t = cut_writer_start_held(test, c, "st_cut_stall");
	if (!t)
		return;
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	cut_writer_release(c, t);
	cut_unhook(NULL);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ_MSG(test, c->refused, 0U, "writes refused");

	/* Record 0 was reserved after the last cut. */
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 1, 0, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 0, 0, 0, "after");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 0, c->n - 1, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, c->n, 0, 0, "after");
	cut_consume_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, 0, c->n - 1, 0);
}

/*
 * The room a record still open across two snapshots leaves its ring once
 * live again, exactly, in stop-when-full mode. The writer commits records
 * 0 .. K - 1 (K = CUT_ROOM_K), from the ring's start, and is held after
 * the reservation of record K, at byte K * 64 of the ring: commit stays
 * there (I2) until it commits. Two snapshots from the other CPU take that
 * ring, then empty it (st_unspare(): ST_ALIGN bytes up) and make it live
 * again; an interrupt on the writer's CPU (an IPI) opens it and writes
 * records K + 1, K + 2, ... until one is refused.
 *
 * With record K still being written (not settled: st_ring_settled()), the
 * epoch starts g = 2 * ST_ALIGN bytes above record K's end (the emptying's
 * ST_ALIGN and the opening's), at byte (K + 1) * 64 + g of the ring, with
 * the room up to commit + CUT_RING (I2): a whole ring less record K and g.
 * As 0 < g < 64, that is:
 * - from there to the ring's end, (CUT_RING - (K + 1) * 64 - g) / 64
 *   rounded down, CUT_FIT - K - 2 records, then 64 - g bytes of padding
 *   (I1);
 * - from the ring's start to record K, K records;
 * so CUT_FIT - 2 records, and the next is refused, counted as dropped.
 * Starting at the ring's next multiple of its size, as a settled ring
 * does, would leave the epoch only the K records before record K (none
 * for record 0: cut_open_record_across_two_snapshots, in overwrite mode
 * and from the writer's own context).
 *
 * Once record K commits, commit is at head, and only tail (the epoch's
 * start, 64 + g bytes above commit's old place) bounds the reservations:
 * one more record fits, ending g bytes below tail + CUT_RING, and the
 * next is dropped.
 */
#define CUT_ROOM_K	100

static_assert(CUT_ROOM_K > 0 && CUT_ROOM_K < CUT_FIT - 2 && 2 * ST_ALIGN < CUT_REC);

/* On the held writer's CPU: records @seq, @seq + 1, ... until one is refused. */
struct cut_ipi_fill {
	struct snaptrace_buffer *buf;
	u32 seq;
	u32 fit;		/* records written before the first refusal */
	int cpu;
	int rc;			/* that refusal's */
};

static void cut_ipi_fill_fn(void *data)
{
	struct cut_ipi_fill *w = data;
	struct cut_payload p = { .magic = CUT_MAGIC };

	w->cpu = smp_processor_id();
	for (w->fit = 0; w->fit <= CUT_FIT; w->fit++) {
		p.seq = w->seq + w->fit;
		w->rc = snaptrace_write(w->buf, &p, sizeof(p));
		if (w->rc)
			break;
	}
}

static void cut_open_record_keeps_the_room(struct kunit *test)
{
	struct cut_ipi_fill w = { .seq = CUT_ROOM_K + 1, .cpu = -1 };
	struct cut_payload p = { .magic = CUT_MAGIC };
	const u32 k = CUT_ROOM_K, last = k + CUT_FIT - 2;
	struct task_struct *t;
	struct cut_ctl *c;

	c = cut_ctl_new(test, SNAPTRACE_STOP_WHEN_FULL, ST_STEP_WRITE_RESERVED,
			k, k + 1);
	t = cut_writer_start_held(test, c, "st_cut_room");
	if (!t)
		return;
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(c->buf), 0);
	w.buf = c->buf;
	KUNIT_EXPECT_EQ(test, smp_call_function_single(c->cpu, cut_ipi_fill_fn, &w, 1), 0);
	cut_writer_release(c, t);
	cut_unhook(NULL);
	KUNIT_EXPECT_FALSE(test, c->timed_out);
	KUNIT_EXPECT_EQ_MSG(test, c->refused, 0U, "writes refused");
	KUNIT_EXPECT_EQ(test, w.cpu, c->cpu);
	KUNIT_EXPECT_EQ_MSG(test, w.fit, CUT_FIT - 2,
			    "records that fit before record %u's bytes", k);
	KUNIT_EXPECT_EQ(test, w.rc, -ENOSPC);

	/* Records 0 .. K went with the first snapshot, which the second replaced. */
	cut_expect(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 1, 0, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_SNAPSHOT, c->cpu, 0, 0, 0, "after");
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, k + 1, last, "after");
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, CUT_FIT - 1, 0, 1,
			 "after");

	/* Committed, record K frees its bytes: one more record, no other. */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(c->cpu)), 0);
	cut_write_here(test, c->buf, last + 1);
	p.seq = last + 2;
	KUNIT_EXPECT_EQ_MSG(test, snaptrace_write(c->buf, &p, sizeof(p)), -ENOSPC,
			    "record %u", p.seq);
	cut_expect(test, c->buf, SNAPTRACE_LIVE, c->cpu, k + 1, last + 1,
		   "after record K's commit");
	cut_expect_stats(test, c->buf, SNAPTRACE_LIVE, c->cpu, CUT_FIT + 1, 0, 2,
			 "after record K's commit");
}

/*
 * A round stalled between its check of the roles and its seal. Snapshot
 * R0 has emptied the spare's rings (next) and not yet published; a
 * snapshot nested in it (R1, as an NMI's) completes it: its step 1 seals
 * those rings, and is held on the first CPU's after its check, while
 * three more rounds nested in it (R2 .. R4) run to their end: they seal
 * that ring, empty it, make it live, cut it, and make it next again, live.
 * R1's seal, expecting the value it read, must then fail: else it seals
 * the live next ring as an empty spare, both rings of that CPU are
 * spares, and its next writer bounces between them for ever (a lockup in
 * NMI). Afterwards each ring of each CPU has its role, and writes on the
 * first CPU land in the live half, then in the next snapshot.
 */
struct cut_stale {
	struct snaptrace_buffer *buf;
	int cpu;		/* the first CPU: whose ring R1 is held at */
	bool r1, held;
	int rc[4];
};

static struct cut_stale *cut_stale;

static void cut_stale_hook(struct snaptrace_buffer *buf,
			   enum snaptrace_test_step step, int cpu)
{
	struct cut_stale *x = READ_ONCE(cut_stale);
	int i;

	if (!x || buf != x->buf)
		return;
	if (step == ST_STEP_SNAP_PENDED && !x->r1) {
		x->r1 = true;
		x->rc[0] = snaptrace_snapshot(buf);
	} else if (step == ST_STEP_SNAP_CLOSE && x->r1 && !x->held &&
		   cpu == x->cpu) {
		x->held = true;
		for (i = 1; i < ARRAY_SIZE(x->rc); i++)
			x->rc[i] = snaptrace_snapshot(buf);
	}
}

static void cut_stale_unhook(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	WRITE_ONCE(cut_stale, NULL);
	synchronize_rcu();
}

static void cut_round_stalled_before_its_seal(struct kunit *test)
{
	struct cut_stale *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct st_half *h[2];
	struct st_ring *r[2];
	long state, a, b;
	unsigned int i;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->buf = st_buf_new(test, CUT_RING, SNAPTRACE_OVERWRITE);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(x->buf), 0);
	x->cpu = cpumask_first(cpu_possible_mask);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_stale_unhook, NULL), 0);
	WRITE_ONCE(cut_stale, x);
	WRITE_ONCE(snaptrace_test_hook, cut_stale_hook);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(x->buf), 0);
	cut_stale_unhook(NULL);
	KUNIT_ASSERT_TRUE(test, x->held);
	for (i = 0; i < ARRAY_SIZE(x->rc); i++)
		KUNIT_EXPECT_EQ_MSG(test, x->rc[i], 0, "nested round %u", i + 1);

	/* Each CPU: one ring a snapshot (spare half), the other not. */
	state = st_state(x->buf);
	h[0] = st_half_in(x->buf, state, SNAPTRACE_LIVE);
	h[1] = st_half_in(x->buf, state, SNAPTRACE_SNAPSHOT);
	for_each_possible_cpu(cpu) {
		r[0] = per_cpu_ptr(h[0]->rings, cpu);
		r[1] = per_cpu_ptr(h[1]->rings, cpu);
		a = atomic_long_read(&r[0]->head);
		b = atomic_long_read(&r[1]->head);
		KUNIT_EXPECT_EQ_MSG(test, a & ST_SPARE, 0L,
				    "CPU %d: live ring's state %#lx", cpu, a & ST_FLAGS);
		KUNIT_EXPECT_EQ_MSG(test, b & ST_SPARE, (long)ST_SPARE,
				    "CPU %d: spare ring's state %#lx", cpu, b & ST_FLAGS);
		if ((a & ST_SPARE) || !(b & ST_SPARE))
			return;	/* a write could bounce between them for ever */
	}

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cut_unpin, NULL), 0);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(x->cpu)), 0);
	for (i = 0; i < 3; i++)
		cut_write_here(test, x->buf, i);
	cut_expect(test, x->buf, SNAPTRACE_LIVE, x->cpu, 0, 2, "after");
	cut_expect_stats(test, x->buf, SNAPTRACE_LIVE, x->cpu, 3, 0, 0, "after");
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(x->buf), 0);
	cut_expect(test, x->buf, SNAPTRACE_SNAPSHOT, x->cpu, 0, 2, "snapshot after");
	cut_expect(test, x->buf, SNAPTRACE_LIVE, x->cpu, 1, 0, "snapshot after");
}

static struct kunit_case cut_cases[] = {
	KUNIT_CASE_PARAM(cut_held_writer, cut_gen_params),
	KUNIT_CASE_PARAM(cut_held_snapshot, cut_snap_gen_params),
	KUNIT_CASE(cut_open_record_across_two_snapshots),
	KUNIT_CASE(cut_open_interrupted_by_a_snapshot),
	KUNIT_CASE(cut_drop_counted_in_a_gone_epoch),
	KUNIT_CASE(cut_write_while_both_rings_alike),
	KUNIT_CASE_PARAM(cut_push_keeps_the_seal, cut_seal_gen_params),
	KUNIT_CASE(cut_open_interrupted_by_an_opener),
	KUNIT_CASE(cut_open_stalled_across_two_snapshots),
	KUNIT_CASE(cut_open_record_keeps_the_room),
	KUNIT_CASE(cut_round_stalled_before_its_seal),
	{}
};

static struct kunit_suite cut_suite = {
	.name = "snaptrace_cut",
	.test_cases = cut_cases,
};

kunit_test_suite(cut_suite);
