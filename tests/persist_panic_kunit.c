// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the persistent capture (Documentation/persist.rst):
 * the capture at a panic (src/persist_capture.c, snaptrace_snapshot_panic()):
 * a CPU stopped while it held the buffer's lock, a snapshot it was taking
 * completed, one nested in the capture (an NMI) said, never read as the
 * crash's; a record committed between the two walks left torn; each walk
 * pinned to the first one's snapshot; info's line on the snapshot.
 *
 * On an ordinary vmalloc'd "region"; the CRCs are recomputed here from the
 * layout in src/persist.h, as a reader of the format would. What the
 * snaptrace_persist* suites share is in persist_helpers.c.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/crc32.h>
#include <linux/err.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "st_kunit.h"
#include "../src/persist.h"
#include "../src/ring.h"
#include "../src/rproc.h"
#include "persist_kunit.h"

/* ---- a panic while a stopped CPU holds the buffer's lock ---- */

static void pr_add_cpu(void *cpu)
{
	add_cpu((unsigned long)cpu);
}

/*
 * The highest online CPU goes offline, as a panic's stop leaves it (its
 * records written), until the test ends. Returns it.
 */
static int pr_stop_cpu(struct kunit *test)
{
	int cpu = cpumask_last(cpu_online_mask);

	KUNIT_ASSERT_EQ(test, remove_cpu(cpu), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_add_cpu,
							(void *)(unsigned long)cpu),
			0);
	return cpu;
}

/* @n regions, armed, each with a buffer holding st_pr_write()'s records. */
static void pr_setup_written(struct kunit *test, struct pr_ctx **x,
			     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		x[i] = st_pr_setup(test, PR_SIZE);
		st_pr_write(test, x[i]);
	}
}

/*
 * A panic capture of @x with the buffer's lock held by @holder (-1: an
 * online CPU other than the capturing one), as @kind.
 */
static struct snaptrace_persist_last *pr_capture_held(struct kunit *test,
						      struct pr_ctx *x,
						      int holder, int kind)
{
	int ret, me;

	me = get_cpu();
	if (holder < 0)
		holder = cpumask_any_but(cpu_online_mask, me);
	atomic_set(&x->buf->lock_cpu, (holder + 1) | kind << ST_LOCK_KIND_SHIFT);
	ret = snaptrace_persist_capture(&x->p, x->buf, ST_PR_PANIC,
					"test capture", true);
	atomic_set(&x->buf->lock_cpu, 0);
	put_cpu();
	KUNIT_EXPECT_EQ(test, ret, 0);
	return st_pr_parse(test, x);
}

/*
 * The lock held by a CPU still online (a stop that failed): never waited
 * for, no snapshot, said so. The lock held by a CPU the panic stopped
 * (offline, as stop_this_cpu() leaves it) in a round, clear or reset:
 * the round runs past it, and every record is captured (it used to be
 * skipped: no records). Held by a stopped CPU swapping the halves: no
 * snapshot.
 */
static void persist_panic_past_stopped_holder(struct kunit *test)
{
	static const int kinds[] = { ST_LOCK_ROUND, ST_LOCK_CLEAR, ST_LOCK_RESET };
	struct pr_ctx *x[ARRAY_SIZE(kinds)], *live, *halves;
	struct snaptrace_persist_last *last;
	unsigned int i;
	int other;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2);
	pr_setup_written(test, x, ARRAY_SIZE(kinds));
	live = st_pr_setup(test, PR_SIZE);
	st_pr_write(test, live);
	halves = st_pr_setup(test, PR_SIZE);
	st_pr_write(test, halves);

	last = pr_capture_held(test, live, -1, ST_LOCK_ROUND);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_LOCKED | ST_PR_F_NO_SNAPSHOT);
	KUNIT_EXPECT_EQ(test, last->kept, 0);

	other = pr_stop_cpu(test);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		last = pr_capture_held(test, x[i], other, kinds[i]);
		KUNIT_EXPECT_EQ_MSG(test, last->cap.flags, ST_PR_F_LOCKED, "kind %d",
				    kinds[i]);
		st_pr_expect_snapshot(test, x[i]);
		KUNIT_EXPECT_EQ(test, x[i]->nr, (num_online_cpus() + 1) * PR_PER_CPU);
		KUNIT_EXPECT_EQ(test, last->torn, 0);
		st_pr_expect_same(test, x[i], last, -1, -1);
	}
	last = pr_capture_held(test, halves, other, ST_LOCK_HALVES);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_LOCKED | ST_PR_F_NO_SNAPSHOT);
	KUNIT_EXPECT_EQ(test, last->kept, 0);
}

/*
 * A panic while the lock's holder is a snapshot stopped at one of its
 * steps: by a panic that stopped its CPU (offline, as stop_this_cpu()
 * leaves it), or by a panic in an NMI on its own CPU (the capture runs in
 * the test hook, inside the holder). Held after the roles were published,
 * the snapshot is completed, not replaced: a new round would empty the
 * half it was cutting, and every CPU not cut yet would lose its records.
 * A completed snapshot is not all the panic's: the capture says so
 * (ST_PR_F_LOCKED), also when the panic is nested in the holder.
 */
struct pr_hold_case {
	const char *name;
	enum snaptrace_test_step step;
	int seal;		/* ST_STEP_SNAP_SEALED: 0 first CPU, 1 last */
	bool nested;		/* a panic in an NMI on the holder's CPU */
};

static const struct pr_hold_case pr_hold_cases[] = {
	{ "stopped before the switch", ST_STEP_SNAP_PENDED, -1, false },
	{ "stopped after the switch", ST_STEP_SNAP_PUBLISHED, -1, false },
	{ "stopped between seals", ST_STEP_SNAP_SEALED, 0, false },
	{ "stopped after the last seal", ST_STEP_SNAP_SEALED, 1, false },
	{ "NMI before the switch", ST_STEP_SNAP_PENDED, -1, true },
	{ "NMI after the switch", ST_STEP_SNAP_PUBLISHED, -1, true },
	{ "NMI between seals", ST_STEP_SNAP_SEALED, 0, true },
	{ "NMI after the last seal", ST_STEP_SNAP_SEALED, 1, true },
};

static struct {
	struct pr_ctx *x;
	const struct pr_hold_case *c;
	int seal_cpu;		/* ST_STEP_SNAP_SEALED: the CPU just cut */
	int other;		/* the stopped holder's CPU */
	bool done;
	int ret;
} pr_hold;

static void pr_hold_hook(struct snaptrace_buffer *buf,
			 enum snaptrace_test_step step, int cpu)
{
	const struct pr_hold_case *c = pr_hold.c;
	int o;

	if (!pr_hold.x || buf != pr_hold.x->buf || pr_hold.done ||
	    step != c->step || (c->seal >= 0 && cpu != pr_hold.seal_cpu))
		return;
	pr_hold.done = true;
	o = atomic_read(&buf->lock_cpu);
	if (!c->nested)
		atomic_set(&buf->lock_cpu, (pr_hold.other + 1) |
			   ST_LOCK_ROUND << ST_LOCK_KIND_SHIFT);
	pr_hold.ret = snaptrace_persist_capture(&pr_hold.x->p, buf, ST_PR_PANIC,
						"test capture", true);
	atomic_set(&buf->lock_cpu, o);
}

static void persist_panic_completes_stopped_snapshot(struct kunit *test)
{
	struct pr_ctx *x[ARRAY_SIZE(pr_hold_cases)];
	struct snaptrace_persist_last *last;
	const struct st_pr_ent *e;
	unsigned int i, c, seq;
	struct st_hdr hdr;
	bool had;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2);
	pr_setup_written(test, x, ARRAY_SIZE(pr_hold_cases));
	pr_hold.other = pr_stop_cpu(test);
	st_hook_install(test, pr_hold_hook);
	for (i = 0; i < ARRAY_SIZE(pr_hold_cases); i++) {
		pr_hold.c = &pr_hold_cases[i];
		pr_hold.seal_cpu = pr_hold.c->seal ? cpumask_last(cpu_possible_mask) :
				   cpumask_first(cpu_possible_mask);
		pr_hold.done = false;
		pr_hold.ret = 1;
		WRITE_ONCE(pr_hold.x, x[i]);
		KUNIT_EXPECT_EQ(test, snaptrace_snapshot(x[i]->buf), 0);
		WRITE_ONCE(pr_hold.x, NULL);
		KUNIT_EXPECT_TRUE_MSG(test, pr_hold.done, "%s", pr_hold.c->name);
		KUNIT_EXPECT_EQ_MSG(test, pr_hold.ret, 0, "%s", pr_hold.c->name);
		last = st_pr_parse(test, x[i]);
		/* Nested before the switch: a nested round, all the panic's. */
		KUNIT_EXPECT_EQ_MSG(test, last->cap.flags,
				    pr_hold.c->nested &&
				    pr_hold.c->step == ST_STEP_SNAP_PENDED ?
				    0 : ST_PR_F_LOCKED, "%s", pr_hold.c->name);
		KUNIT_EXPECT_EQ_MSG(test, last->kept,
				    (u64)(num_online_cpus() + 1) * PR_PER_CPU,
				    "%s", pr_hold.c->name);
		KUNIT_EXPECT_EQ(test, last->torn, 0);
		/* Each CPU that wrote keeps all its records, seq 0 on, in order. */
		for (c = 0; c < last->nr_cpus; c++) {
			had = cpu_online(c) || c == pr_hold.other;
			KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].entries,
					    had ? PR_PER_CPU : 0, "%s: cpu %u",
					    pr_hold.c->name, c);
			KUNIT_EXPECT_EQ(test, last->per_cpu[c].left_out, 0);
			for (seq = 0; had && seq < PR_PER_CPU; seq++) {
				e = st_pr_find(last, c, seq);
				KUNIT_ASSERT_NOT_NULL_MSG(test, e, "%s: cpu %u seq %u",
							  pr_hold.c->name, c, seq);
				KUNIT_ASSERT_GE(test, e->len, sizeof(hdr));
				memcpy(&hdr, e->data, sizeof(hdr));
				KUNIT_EXPECT_EQ(test, hdr.cpu, c);
				KUNIT_EXPECT_EQ(test, hdr.seq, seq);
			}
		}
		/* The snapshot the holder returned is the one captured. */
		st_pr_expect_snapshot(test, x[i]);
		st_pr_expect_same(test, x[i], last, -1, -1);
	}
}

/*
 * A panic in an NMI's snapshot nested in another, in the nested round's
 * first step (the spare emptied, its own roles not published yet): the
 * outer round's marker must not send the panic to complete the outer
 * round over the emptied rings. A new round is made: it keeps the records
 * written after the outer cut (PR_NEST_LATE of them on this CPU, written
 * from the outer round's hook once it has cut this CPU), and nothing of
 * the half the nested round emptied.
 */
#define PR_NEST_LATE	5

static struct {
	struct pr_ctx *x;
	int stage;	/* 0: outer cutting; 1: nested pended; 2: done */
	int cpu;
	int wrote, nested, ret;
} pr_nest;

static void pr_nest_hook(struct snaptrace_buffer *buf,
			 enum snaptrace_test_step step, int cpu)
{
	char rec[16];
	int i;

	if (!pr_nest.x || buf != pr_nest.x->buf)
		return;
	/* The outer round has cut this CPU: its next records are after the cut. */
	if (pr_nest.stage == 0 && step == ST_STEP_SNAP_SEALED &&
	    cpu == raw_smp_processor_id()) {
		pr_nest.stage = 1;
		pr_nest.cpu = raw_smp_processor_id();
		for (i = 0; i < PR_NEST_LATE; i++) {
			memset(rec, 0, sizeof(rec));
			snprintf(rec, sizeof(rec), "late %d", i);
			pr_nest.wrote += !snaptrace_write(buf, rec, sizeof(rec));
		}
		pr_nest.nested = snaptrace_snapshot(buf);
	} else if (pr_nest.stage == 1 && step == ST_STEP_SNAP_PENDED) {
		pr_nest.stage = 2;
		pr_nest.ret = snaptrace_persist_capture(&pr_nest.x->p, buf,
							ST_PR_PANIC,
							"test capture", true);
	}
}

static void persist_panic_in_nested_round(struct kunit *test)
{
	struct snaptrace_persist_last *last;
	const struct st_pr_ent *e;
	struct pr_ctx *x;
	char want[16];
	unsigned int c;
	int i;

	x = st_pr_setup(test, PR_SIZE);
	st_pr_write(test, x);
	pr_nest.stage = 0;
	pr_nest.wrote = 0;
	pr_nest.nested = 1;
	pr_nest.ret = 1;
	st_hook_install(test, pr_nest_hook);
	WRITE_ONCE(pr_nest.x, x);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(x->buf), 0);
	WRITE_ONCE(pr_nest.x, NULL);
	KUNIT_ASSERT_EQ(test, pr_nest.stage, 2);
	KUNIT_EXPECT_EQ(test, pr_nest.wrote, PR_NEST_LATE);
	KUNIT_EXPECT_EQ(test, pr_nest.nested, 0);
	KUNIT_EXPECT_EQ(test, pr_nest.ret, 0);

	last = st_pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, 0);
	KUNIT_EXPECT_EQ(test, last->kept, PR_NEST_LATE);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	for (c = 0; c < last->nr_cpus; c++)
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].entries,
				    c == pr_nest.cpu ? PR_NEST_LATE : 0, "cpu %u", c);
	for (i = 0; i < PR_NEST_LATE; i++) {
		memset(want, 0, sizeof(want));
		snprintf(want, sizeof(want), "late %d", i);
		e = st_pr_find(last, pr_nest.cpu, i);
		KUNIT_ASSERT_NOT_NULL_MSG(test, e, "seq %d", i);
		KUNIT_ASSERT_EQ(test, e->len, sizeof(want));
		KUNIT_EXPECT_MEMEQ(test, e->data, want, sizeof(want));
	}
}

/* ---- the panic's snapshot: what it completes, what it says ---- */

#define PR_AFTER	4	/* records written after a nested snapshot */

/* PR_AFTER records "after N" on this CPU; how many were written. */
static int pr_write_after(struct snaptrace_buffer *buf)
{
	char rec[16];
	int i, wrote = 0;

	for (i = 0; i < PR_AFTER; i++) {
		memset(rec, 0, sizeof(rec));
		snprintf(rec, sizeof(rec), "after %d", i);
		wrote += !snaptrace_write(buf, rec, sizeof(rec));
	}
	return wrote;
}

/* The snapshot of @x holds exactly pr_write_after()'s records, of @cpu. */
static void pr_expect_after(struct kunit *test, struct pr_ctx *x, int cpu,
			    const char *name)
{
	char want[16];
	unsigned int i;

	st_pr_expect_snapshot(test, x);
	KUNIT_EXPECT_EQ_MSG(test, x->nr, PR_AFTER, "%s", name);
	for (i = 0; i < x->nr && i < PR_AFTER; i++) {
		memset(want, 0, sizeof(want));
		snprintf(want, sizeof(want), "after %u", i);
		KUNIT_EXPECT_EQ_MSG(test, x->recs[i].cpu, cpu, "%s: %u", name, i);
		KUNIT_EXPECT_EQ_MSG(test, x->recs[i].len, sizeof(want), "%s: %u",
				    name, i);
		if (x->recs[i].len == sizeof(want))
			KUNIT_EXPECT_MEMEQ_MSG(test, x->recs[i].data, want,
					       sizeof(want), "%s: %u", name, i);
	}
}

/*
 * A snapshot nested in the lock's holder (an NMI's: the holder a clear, a
 * reset or a round on the same CPU) completed; records were written
 * after it; then a panic, in an NMI on that CPU or with that CPU stopped.
 * Nothing is being cut any more: the panic makes a new round, which holds
 * the records written after the nested snapshot (a panic that "completed"
 * the nested snapshot again left them out). Also when the nested snapshot
 * was itself interrupted by another, before it published its roles (its
 * stale marker named the roles the other published), and when the holder
 * is a round whose step 1 the nested snapshot interrupted.
 */
enum pr_done_how {
	PR_DONE_NESTED,		/* one nested snapshot */
	PR_DONE_TWICE,		/* the nested one interrupted before its step 2 */
	PR_DONE_IN_ROUND,	/* the holder a round, in its step 1 */
};

struct pr_done_case {
	const char *name;
	int kind;		/* the holder's */
	enum pr_done_how how;
	bool stopped;		/* the holder's CPU stopped, else the panic nests */
};

static const struct pr_done_case pr_done_cases[] = {
	{ "reset, panic nested", ST_LOCK_RESET, PR_DONE_NESTED, false },
	{ "reset, holder stopped", ST_LOCK_RESET, PR_DONE_NESTED, true },
	{ "clear, panic nested", ST_LOCK_CLEAR, PR_DONE_NESTED, false },
	{ "clear, holder stopped", ST_LOCK_CLEAR, PR_DONE_NESTED, true },
	{ "reset, twice, panic nested", ST_LOCK_RESET, PR_DONE_TWICE, false },
	{ "reset, twice, holder stopped", ST_LOCK_RESET, PR_DONE_TWICE, true },
	{ "round, panic nested", ST_LOCK_ROUND, PR_DONE_IN_ROUND, false },
	{ "round, holder stopped", ST_LOCK_ROUND, PR_DONE_IN_ROUND, true },
};

static struct {
	struct pr_ctx *x;
	const struct pr_done_case *c;
	int other;		/* an offline CPU */
	bool fired;
	int nested, wrote, ret;
	bool past;
} pr_done;

/* The panic, on this CPU: nested in the holder, or past its stopped CPU. */
static void pr_done_panic(struct snaptrace_buffer *buf)
{
	int o = atomic_read(&buf->lock_cpu);

	if (pr_done.c->stopped)
		atomic_set(&buf->lock_cpu, (pr_done.other + 1) |
			   pr_done.c->kind << ST_LOCK_KIND_SHIFT);
	pr_done.ret = snaptrace_snapshot_panic(buf, &pr_done.past, NULL);
	atomic_set(&buf->lock_cpu, o);
}

static void pr_done_hook(struct snaptrace_buffer *buf,
			 enum snaptrace_test_step step, int cpu)
{
	const struct pr_done_case *c = pr_done.c;

	if (!pr_done.x || buf != pr_done.x->buf || pr_done.fired)
		return;
	if (c->how == PR_DONE_TWICE && step == ST_STEP_SNAP_PENDED) {
		pr_done.fired = true;
		pr_done.nested += snaptrace_snapshot(buf) + 1;
	} else if (c->how == PR_DONE_IN_ROUND && step == ST_STEP_SNAP_SETTLED) {
		pr_done.fired = true;
		pr_done.nested = snaptrace_snapshot(buf);
		pr_done.wrote = pr_write_after(buf);
		pr_done_panic(buf);
	}
}

static void persist_panic_after_completed_nested_snapshot(struct kunit *test)
{
	struct pr_ctx *x[ARRAY_SIZE(pr_done_cases)];
	const struct pr_done_case *c;
	unsigned int i;
	int me;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2);
	pr_setup_written(test, x, ARRAY_SIZE(pr_done_cases));
	pr_done.other = pr_stop_cpu(test);
	st_hook_install(test, pr_done_hook);
	for (i = 0; i < ARRAY_SIZE(pr_done_cases); i++) {
		c = &pr_done_cases[i];
		pr_done.c = c;
		pr_done.fired = false;
		pr_done.nested = 0;
		pr_done.wrote = 0;
		pr_done.ret = 1;
		pr_done.past = !c->stopped;
		me = get_cpu();
		WRITE_ONCE(pr_done.x, x[i]);
		if (c->how == PR_DONE_IN_ROUND) {
			KUNIT_EXPECT_EQ(test, snaptrace_snapshot(x[i]->buf), 0);
		} else {
			/* The holder, a clear or a reset, is this CPU's. */
			atomic_set(&x[i]->buf->lock_cpu,
				   (me + 1) | c->kind << ST_LOCK_KIND_SHIFT);
			pr_done.nested += snaptrace_snapshot(x[i]->buf);
			pr_done.wrote = pr_write_after(x[i]->buf);
			pr_done_panic(x[i]->buf);
			atomic_set(&x[i]->buf->lock_cpu, 0);
		}
		WRITE_ONCE(pr_done.x, NULL);
		put_cpu();
		KUNIT_EXPECT_EQ_MSG(test, pr_done.fired, c->how != PR_DONE_NESTED,
				    "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, pr_done.nested,
				    c->how == PR_DONE_TWICE ? 1 : 0, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, pr_done.wrote, PR_AFTER, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, pr_done.ret, 0, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, pr_done.past, c->stopped, "%s", c->name);
		pr_expect_after(test, x[i], me, c->name);
	}
}

/*
 * A snapshot nested in a reset (an NMI's), stopped or interrupted by the
 * panic after it published its roles, between its seals: it is under
 * way, and completed, whatever the lock's holder is: a new round would
 * empty the half it is cutting, and the CPUs it had not sealed would lose
 * their records. The panic says that the snapshot is not all its own
 * (*past): the CPUs sealed before it were cut before it.
 */
static struct {
	struct pr_ctx *x;
	bool stopped;
	int other;
	int seal_cpu;
	bool fired;
	int ret;
	bool past;
} pr_mid;

static void pr_mid_hook(struct snaptrace_buffer *buf,
			enum snaptrace_test_step step, int cpu)
{
	int o;

	if (!pr_mid.x || buf != pr_mid.x->buf || pr_mid.fired ||
	    step != ST_STEP_SNAP_SEALED || cpu != pr_mid.seal_cpu)
		return;
	pr_mid.fired = true;
	o = atomic_read(&buf->lock_cpu);
	if (pr_mid.stopped)
		atomic_set(&buf->lock_cpu, (pr_mid.other + 1) |
			   ST_LOCK_RESET << ST_LOCK_KIND_SHIFT);
	pr_mid.ret = snaptrace_snapshot_panic(buf, &pr_mid.past, NULL);
	atomic_set(&buf->lock_cpu, o);
}

static void persist_panic_completes_snapshot_nested_in_reset(struct kunit *test)
{
	struct pr_ctx *x[2];
	unsigned int i;
	int me;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2);
	pr_setup_written(test, x, ARRAY_SIZE(x));
	pr_mid.other = pr_stop_cpu(test);
	pr_mid.seal_cpu = cpumask_first(cpu_possible_mask);
	st_hook_install(test, pr_mid_hook);
	for (i = 0; i < ARRAY_SIZE(x); i++) {
		pr_mid.stopped = i;
		pr_mid.fired = false;
		pr_mid.ret = 1;
		pr_mid.past = false;
		me = get_cpu();
		atomic_set(&x[i]->buf->lock_cpu,
			   (me + 1) | ST_LOCK_RESET << ST_LOCK_KIND_SHIFT);
		WRITE_ONCE(pr_mid.x, x[i]);
		KUNIT_EXPECT_EQ(test, snaptrace_snapshot(x[i]->buf), 0);
		WRITE_ONCE(pr_mid.x, NULL);
		atomic_set(&x[i]->buf->lock_cpu, 0);
		put_cpu();
		KUNIT_EXPECT_TRUE_MSG(test, pr_mid.fired, "stopped %d", i);
		KUNIT_EXPECT_EQ_MSG(test, pr_mid.ret, 0, "stopped %d", i);
		KUNIT_EXPECT_TRUE_MSG(test, pr_mid.past, "stopped %d", i);
		/* Every CPU that wrote keeps all its records. */
		st_pr_expect_snapshot(test, x[i]);
		KUNIT_EXPECT_EQ_MSG(test, x[i]->nr,
				    (num_online_cpus() + 1) * PR_PER_CPU,
				    "stopped %d", i);
	}
}

/*
 * A panic in an NMI on the CPU of a snapshot that has cut that CPU, after
 * records were written there (the NMI's own caller chain): the snapshot
 * is completed, so those records are not in it; the panic says so
 * (*past), as when the holder's CPU was stopped.
 */
static struct {
	struct pr_ctx *x;
	bool fired;
	int wrote, ret;
	bool past;
} pr_own;

static void pr_own_hook(struct snaptrace_buffer *buf,
			enum snaptrace_test_step step, int cpu)
{
	if (!pr_own.x || buf != pr_own.x->buf || pr_own.fired ||
	    step != ST_STEP_SNAP_SEALED || cpu != raw_smp_processor_id())
		return;
	pr_own.fired = true;
	pr_own.wrote = pr_write_after(buf);
	pr_own.ret = snaptrace_snapshot_panic(buf, &pr_own.past, NULL);
}

static void persist_panic_completing_own_holder_says_so(struct kunit *test)
{
	struct pr_ctx *x;
	unsigned int i;

	x = st_pr_setup(test, PR_SIZE);
	st_pr_write(test, x);
	pr_own.fired = false;
	pr_own.wrote = 0;
	pr_own.ret = 1;
	pr_own.past = false;
	st_hook_install(test, pr_own_hook);
	WRITE_ONCE(pr_own.x, x);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(x->buf), 0);
	WRITE_ONCE(pr_own.x, NULL);
	KUNIT_ASSERT_TRUE(test, pr_own.fired);
	KUNIT_EXPECT_EQ(test, pr_own.wrote, PR_AFTER);
	KUNIT_EXPECT_EQ(test, pr_own.ret, 0);
	KUNIT_EXPECT_TRUE(test, pr_own.past);
	/* The holder's snapshot: st_pr_write()'s records, none written after. */
	st_pr_expect_snapshot(test, x);
	KUNIT_EXPECT_EQ(test, x->nr, num_online_cpus() * PR_PER_CPU);
	for (i = 0; i < x->nr; i++)
		KUNIT_EXPECT_NE_MSG(test, x->recs[i].len, 16, "record %u", i);
}

/*
 * The lock taken after the panic read it free (a CPU stopped since, or
 * one still running) or after it read the holder: the panic never waits
 * for it. Held by a stopped CPU's clear: the round runs past it (*past).
 * Swapping the halves: no snapshot. By a CPU still online: no snapshot.
 */
struct pr_grab_case {
	const char *name;
	int kind;
	bool stopped;
	int ret;
	bool past;
	bool records;
};

static const struct pr_grab_case pr_grab_cases[] = {
	{ "online", ST_LOCK_ROUND, false, -EDEADLK, false, false },
	{ "stopped clear", ST_LOCK_CLEAR, true, 0, true, true },
	{ "stopped reset", ST_LOCK_RESET, true, 0, true, true },
	{ "stopped round", ST_LOCK_ROUND, true, 0, true, true },
	{ "stopped halves", ST_LOCK_HALVES, true, -EBUSY, false, false },
};

static struct {
	struct pr_ctx *x;
	const struct pr_grab_case *c;
	int other;
	int waited;
} pr_grab;

static void pr_grab_hook(struct snaptrace_buffer *buf,
			 enum snaptrace_test_step step, int cpu)
{
	if (!pr_grab.x || buf != pr_grab.x->buf)
		return;
	if (step == ST_STEP_PANIC_LOCK && cpu < 0) {
		atomic_set(&buf->lock_cpu, (pr_grab.other + 1) |
			   pr_grab.c->kind << ST_LOCK_KIND_SHIFT);
	} else if (step == ST_STEP_LOCK_WAIT) {
		/* It waits: count it, and let it go rather than hang. */
		pr_grab.waited++;
		atomic_set(&buf->lock_cpu, 0);
	}
}

static void persist_panic_never_waits_for_lock_taken_late(struct kunit *test)
{
	struct pr_ctx *x[ARRAY_SIZE(pr_grab_cases)];
	const struct pr_grab_case *c;
	bool past, removed = false;
	int ret, me, other = -1;
	unsigned int i;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2);
	pr_setup_written(test, x, ARRAY_SIZE(pr_grab_cases));
	st_hook_install(test, pr_grab_hook);
	for (i = 0; i < ARRAY_SIZE(pr_grab_cases); i++) {
		c = &pr_grab_cases[i];
		if (c->stopped && !removed) {
			removed = true;
			other = pr_stop_cpu(test);
		}
		pr_grab.c = c;
		pr_grab.waited = 0;
		past = !c->past;
		me = get_cpu();
		pr_grab.other = c->stopped ? other :
				cpumask_any_but(cpu_online_mask, me);
		WRITE_ONCE(pr_grab.x, x[i]);
		ret = snaptrace_snapshot_panic(x[i]->buf, &past, NULL);
		WRITE_ONCE(pr_grab.x, NULL);
		atomic_set(&x[i]->buf->lock_cpu, 0);
		put_cpu();
		KUNIT_EXPECT_EQ_MSG(test, pr_grab.waited, 0, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, past, c->past, "%s", c->name);
		st_pr_expect_snapshot(test, x[i]);
		KUNIT_EXPECT_EQ_MSG(test, x[i]->nr, c->records ?
				    (num_online_cpus() + 1) * PR_PER_CPU : 0,
				    "%s", c->name);
	}
}

/*
 * A stale marker: a snapshot nested in a round (an NMI at the round's
 * PENDED step) publishes the roles the round meant to and finishes; the
 * round then writes its marker, naming those very roles, and a panic
 * comes there (before its cmpxchg fails and it clears it). The marker's
 * round is older than the finished one: nothing is being cut, and the
 * panic takes a new snapshot, with the PR_AFTER records written after
 * the nested one (it used to "complete" the nested one: *past set, the
 * records after it missing).
 */
static struct {
	struct pr_ctx *x;
	int stage, nested, wrote, ret, me;
	bool past;
} pr_stale;

static void pr_stale_hook(struct snaptrace_buffer *buf,
			  enum snaptrace_test_step step, int cpu)
{
	if (!pr_stale.x || buf != pr_stale.x->buf)
		return;
	if (pr_stale.stage == 0 && step == ST_STEP_SNAP_PENDED) {
		pr_stale.stage = 1;
		pr_stale.nested = snaptrace_snapshot(buf);
		pr_stale.me = raw_smp_processor_id();
		pr_stale.wrote = pr_write_after(buf);
		pr_stale.stage = 2;
	} else if (pr_stale.stage == 2 && step == ST_STEP_SNAP_MARKED) {
		pr_stale.stage = 3;
		pr_stale.ret = snaptrace_snapshot_panic(buf, &pr_stale.past,
							NULL);
	}
}

static void persist_panic_after_stale_marker(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);

	st_pr_write(test, x);
	pr_stale.stage = 0;
	pr_stale.ret = 1;
	pr_stale.past = true;
	st_hook_install(test, pr_stale_hook);
	WRITE_ONCE(pr_stale.x, x);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(x->buf), 0);
	WRITE_ONCE(pr_stale.x, NULL);
	KUNIT_ASSERT_EQ(test, pr_stale.stage, 3);
	KUNIT_EXPECT_EQ(test, pr_stale.nested, 0);
	KUNIT_EXPECT_EQ(test, pr_stale.wrote, PR_AFTER);
	KUNIT_EXPECT_EQ(test, pr_stale.ret, 0);
	KUNIT_EXPECT_FALSE(test, pr_stale.past);
	pr_expect_after(test, x, pr_stale.me, "stale marker");
}

/*
 * A record open at the cut and committed between the capture's two walks
 * (its writer on another CPU, in an oops): the second walk sees it and the
 * ones after it, which the first did not measure. They are torn, as the
 * first walk saw them, and not kept past the CPU's share: in a region
 * that holds exactly what the first walk measured, the CPU walked next
 * keeps all its records (it kept none once the late ones had taken its
 * room). The late commit is made by hand: the ring's commit is set back
 * before the capture and forward again between the walks.
 */
#define PR_LATE		5	/* records of the first CPU committed late */

static struct {
	struct st_ring *r;
	long commit;
} pr_late;

static void pr_late_commit(struct snaptrace_persist *p)
{
	local_set(&pr_late.r->commit, pr_late.commit);
}

static void persist_late_commit_not_kept(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	const struct st_pr_ent *e;
	unsigned int i, c, seq, n;
	long early = 0;
	struct st_hdr hdr;
	u64 bytes = 0;
	int cpu, first;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2);
	first = cpumask_first(cpu_online_mask);
	pr_late.r = per_cpu_ptr(st_half_in(x->buf, st_state(x->buf),
					   SNAPTRACE_LIVE)->rings, first);
	for_each_online_cpu(cpu) {
		for (i = 0; i < PR_PER_CPU; i++) {
			size_t len = st_pr_lens[i % ARRAY_SIZE(st_pr_lens)];

			if (cpu == first && i == PR_PER_CPU - PR_LATE)
				early = local_read(&pr_late.r->commit);
			if (cpu != first || i < PR_PER_CPU - PR_LATE)
				bytes += snaptrace_persist_ent_size(len);
			KUNIT_ASSERT_EQ(test, st_write_n(test, x->buf, cpu, 1, len, i).ok, 1);
		}
	}
	/* Exactly the room of what the first walk will measure. */
	x->p.size = x->p.data_off + bytes;
	KUNIT_ASSERT_EQ(test, snaptrace_persist_arm(&x->p, PR_ARMED_NS), 0);
	pr_late.commit = local_read(&pr_late.r->commit);
	local_set(&pr_late.r->commit, early);
	x->p.measured = pr_late_commit;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	x->p.measured = NULL;
	local_set(&pr_late.r->commit, pr_late.commit);

	last = st_pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, 0);
	KUNIT_EXPECT_EQ(test, last->torn, 1);
	KUNIT_EXPECT_EQ(test, last->kept,
			(u64)num_online_cpus() * PR_PER_CPU - PR_LATE);
	for (c = 0; c < last->nr_cpus; c++) {
		n = !cpu_online(c) ? 0 : c == first ? PR_PER_CPU - PR_LATE : PR_PER_CPU;
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].entries, n, "cpu %u", c);
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].torn, c == first, "cpu %u", c);
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].left_out, 0, "cpu %u", c);
		for (seq = 0; seq < n; seq++) {
			e = st_pr_find(last, c, seq);
			KUNIT_ASSERT_NOT_NULL_MSG(test, e, "cpu %u seq %u", c, seq);
			KUNIT_ASSERT_GE(test, e->len, sizeof(hdr));
			memcpy(&hdr, e->data, sizeof(hdr));
			KUNIT_EXPECT_EQ(test, hdr.cpu, c);
			KUNIT_EXPECT_EQ(test, hdr.seq, seq);
		}
	}
}

/*
 * A snapshot or a clear while the capture runs: after its own snapshot
 * and before its first walk, or between its two walks, both at an oops
 * and at a panic. The capture holds the buffer's lock from its snapshot
 * until its walks are done, so that only a context nested on its CPU (an
 * NMI; here the hook) can try: a clear is refused (-EBUSY) and every
 * record is kept; a snapshot runs, and the walks, pinned to the state
 * word the capture's snapshot published, never read another snapshot's
 * records as the crash's: every CPU is said replaced, none keeps a
 * record, and info says so. The hook writes PR_REPL_NEW records on its
 * CPU first: they are in the new snapshot, at positions below the old
 * one's last (an unpinned second walk kept 3, no flag; a first walk
 * after the capture's snapshot, unchecked, kept them too).
 */
#define PR_REPL_NEW	3

enum pr_repl {
	PR_REPL_SNAPSHOT,	/* one snapshot: the pinned ring is live */
	PR_REPL_TWICE,		/* two: the pinned half is the spare again */
	PR_REPL_CLEAR,		/* a clear of the snapshot */
};

struct pr_repl_case {
	enum pr_repl how;
	bool early;		/* before the first walk, not between them */
	bool stopped;		/* a panic's capture, not an oops' */
};

static const struct pr_repl_case pr_repl_cases[] = {
	{ PR_REPL_SNAPSHOT, false, false }, { PR_REPL_TWICE, false, false },
	{ PR_REPL_CLEAR, false, false }, { PR_REPL_SNAPSHOT, true, false },
	{ PR_REPL_TWICE, true, false }, { PR_REPL_CLEAR, true, false },
	{ PR_REPL_SNAPSHOT, false, true }, { PR_REPL_TWICE, false, true },
	{ PR_REPL_CLEAR, false, true }, { PR_REPL_SNAPSHOT, true, true },
	{ PR_REPL_TWICE, true, true }, { PR_REPL_CLEAR, true, true },
};

static void pr_repl_desc(const struct pr_repl_case *c, char *desc)
{
	static const char * const names[] = {
		[PR_REPL_SNAPSHOT] = "snapshot",
		[PR_REPL_TWICE] = "two snapshots",
		[PR_REPL_CLEAR] = "clear",
	};

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s, %s", names[c->how],
		 c->early ? "before the first walk" : "between the walks",
		 c->stopped ? "panic" : "oops");
}

KUNIT_ARRAY_PARAM(pr_repl, pr_repl_cases, pr_repl_desc);

static struct {
	struct snaptrace_buffer *buf;
	enum pr_repl how;
	int err;
} pr_repl;

static void pr_replace(struct snaptrace_persist *p)
{
	u8 data[16];
	int i, err = 0;

	for (i = 0; i < PR_REPL_NEW && !err; i++) {
		memset(data, 'n', sizeof(data));
		err = snaptrace_write(pr_repl.buf, data, sizeof(data));
	}
	if (!err && pr_repl.how == PR_REPL_CLEAR)
		err = snaptrace_clear_snapshot(pr_repl.buf);
	if (!err && pr_repl.how != PR_REPL_CLEAR)
		err = snaptrace_snapshot(pr_repl.buf);
	if (!err && pr_repl.how == PR_REPL_TWICE)
		err = snaptrace_snapshot(pr_repl.buf);
	pr_repl.err = err;
}

static void persist_snapshot_replaced_in_capture(struct kunit *test)
{
	const struct pr_repl_case *rc = test->param_value;
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	bool clear = rc->how == PR_REPL_CLEAR;
	struct seq_file *m = st_pr_seq(test);
	unsigned int c;
	int ret;

	st_pr_write(test, x);
	pr_repl.buf = x->buf;
	pr_repl.how = rc->how;
	pr_repl.err = -EINVAL;
	if (rc->early)
		x->p.snapped = pr_replace;
	else
		x->p.measured = pr_replace;
	ret = snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
					"test capture", rc->stopped);
	x->p.snapped = NULL;
	x->p.measured = NULL;
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, pr_repl.err, clear ? -EBUSY : 0);

	last = st_pr_parse(test, x);
	if (clear) {
		/* Refused: the snapshot is the crash's, whole. */
		st_pr_expect_snapshot(test, x);
		st_pr_expect_cap(test, x, last, last->cap.cpu);
		st_pr_expect_same(test, x, last, -1, -1);
		return;
	}
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_REPLACED);
	KUNIT_EXPECT_EQ(test, last->kept, 0);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	for (c = 0; c < last->nr_cpus; c++) {
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].flags,
				    cpu_possible(c) ? ST_PR_CPU_F_REPLACED : 0,
				    "cpu %u", c);
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].entries, 0, "cpu %u", c);
	}
	snaptrace_persist_snapshot_show(m, last);
	KUNIT_EXPECT_STREQ(test, st_pr_seq_take(test, m),
			   "snapshot: taken; replaced during the capture (by a snapshot nested in it, an NMI's): the CPUs said replaced in stats kept none, or the older part of their records\n");
}

/* info's snapshot line says what each flag of the capture means. */
static void persist_snapshot_line(struct kunit *test)
{
	static const struct {
		u32 flags;
		const char *line;
	} cases[] = {
		{ 0, "snapshot: taken\n" },
		{ ST_PR_F_NO_SNAPSHOT, "snapshot: failed (no spare)\n" },
		{ ST_PR_F_LOCKED,
		  "snapshot: taken, past the buffer's lock, which a CPU the panic stopped or interrupted held (a snapshot it was taking was completed: the CPUs it had cut hold their records until then)\n"
		},
		{ ST_PR_F_LOCKED | ST_PR_F_NO_SNAPSHOT,
		  "snapshot: not taken: another CPU held the buffer's lock (still running, or stopped while it swapped the halves)\n"
		},
		{ ST_PR_F_REPLACED,
		  "snapshot: taken; replaced during the capture (by a snapshot nested in it, an NMI's): the CPUs said replaced in stats kept none, or the older part of their records\n"
		},
		{ ST_PR_F_FULL, "snapshot: taken\n" },
	};
	struct snaptrace_persist_last *last;
	struct seq_file *m = st_pr_seq(test);
	unsigned int i;

	last = kunit_kzalloc(test, sizeof(*last), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, last);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		last->cap.flags = cases[i].flags;
		snaptrace_persist_snapshot_show(m, last);
		KUNIT_EXPECT_STREQ_MSG(test, st_pr_seq_take(test, m), cases[i].line,
				       "flags %#x", cases[i].flags);
	}
}

/*
 * A walk pinned by an earlier one walks that snapshot or none: after a
 * snapshot, two, a clear, or the spare freed and allocated anew, it ends
 * with -ESTALE before any record; with nothing between, or a reset (of
 * the live half: the snapshot stays), it walks the same records again.
 */
#define PR_PIN_RECS	3

enum pr_pin {
	PR_PIN_NONE,
	PR_PIN_SNAPSHOT,
	PR_PIN_TWICE,
	PR_PIN_CLEAR,
	PR_PIN_RESET,
	PR_PIN_REALLOC,
};

static const enum pr_pin pr_pin_cases[] = {
	PR_PIN_NONE, PR_PIN_SNAPSHOT, PR_PIN_TWICE, PR_PIN_CLEAR, PR_PIN_RESET,
	PR_PIN_REALLOC,
};

static void pr_pin_desc(const enum pr_pin *e, char *desc)
{
	static const char * const names[] = {
		[PR_PIN_NONE] = "nothing between",
		[PR_PIN_SNAPSHOT] = "snapshot",
		[PR_PIN_TWICE] = "two snapshots",
		[PR_PIN_CLEAR] = "clear",
		[PR_PIN_RESET] = "reset",
		[PR_PIN_REALLOC] = "spare freed and allocated",
	};

	strscpy(desc, names[*e], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pr_pin, pr_pin_cases, pr_pin_desc);

static int pr_pin_count(void *arg, const struct snaptrace_record *rec)
{
	(*(unsigned int *)arg)++;
	return 0;
}

static void persist_walk_pinned(struct kunit *test)
{
	const enum pr_pin *how = test->param_value;
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_walk_pin pin = {};
	struct snaptrace_buffer *buf;
	unsigned int n = 0, i;
	bool open, same;
	u8 data[16];
	int cpu;

	buf = st_buf_new(test, SNAPTRACE_MIN_SIZE, SNAPTRACE_OVERWRITE);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	memset(data, 's', sizeof(data));
	cpu = get_cpu();
	for (i = 0; i < PR_PIN_RECS; i++)
		KUNIT_EXPECT_EQ(test, snaptrace_write(buf, data, sizeof(data)), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot_walk(buf, cpu, rec, pr_pin_count,
						      &n, &open, &pin), PR_PIN_RECS);
	/* Records in the live half: a snapshot would bring them in. */
	for (i = 0; i < PR_PIN_RECS; i++)
		KUNIT_EXPECT_EQ(test, snaptrace_write(buf, data, sizeof(data)), 0);
	put_cpu();
	KUNIT_EXPECT_TRUE(test, pin.set);
	switch (*how) {
	case PR_PIN_NONE:
		break;
	case PR_PIN_TWICE:
		KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), 0);
		fallthrough;
	case PR_PIN_SNAPSHOT:
		KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), 0);
		break;
	case PR_PIN_CLEAR:
		KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), 0);
		break;
	case PR_PIN_RESET:
		snaptrace_reset(buf);
		break;
	case PR_PIN_REALLOC:
		snaptrace_free_snapshot(buf);
		KUNIT_EXPECT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
		break;
	}
	n = 0;
	same = *how == PR_PIN_NONE || *how == PR_PIN_RESET;
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot_walk(buf, cpu, rec, pr_pin_count,
						      &n, &open, &pin),
			same ? PR_PIN_RECS : -ESTALE);
	KUNIT_EXPECT_EQ(test, n, same ? PR_PIN_RECS : 0);
}

static struct kunit_case snaptrace_persist_panic_cases[] = {
	KUNIT_CASE(persist_panic_past_stopped_holder),
	KUNIT_CASE(persist_panic_completes_stopped_snapshot),
	KUNIT_CASE(persist_panic_in_nested_round),
	KUNIT_CASE(persist_panic_after_completed_nested_snapshot),
	KUNIT_CASE(persist_panic_completes_snapshot_nested_in_reset),
	KUNIT_CASE(persist_panic_completing_own_holder_says_so),
	KUNIT_CASE(persist_panic_never_waits_for_lock_taken_late),
	KUNIT_CASE(persist_panic_after_stale_marker),
	KUNIT_CASE(persist_late_commit_not_kept),
	KUNIT_CASE_PARAM(persist_snapshot_replaced_in_capture, pr_repl_gen_params),
	KUNIT_CASE_PARAM(persist_walk_pinned, pr_pin_gen_params),
	KUNIT_CASE(persist_snapshot_line),
	{}
};

static struct kunit_suite snaptrace_persist_panic_suite = {
	.name = "snaptrace_persist_panic",
	.test_cases = snaptrace_persist_panic_cases,
};

kunit_test_suites(&snaptrace_persist_panic_suite);
