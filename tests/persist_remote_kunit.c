// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the persistent capture (Documentation/persist.rst):
 * the remotes' last traces a capture keeps (the sources of
 * src/persist_capture.c, their texts rebuilt by src/persist_parse.c and
 * shown by src/persist_show.c): kept whole in their share of the region or
 * left out whole, removed or replaced during the capture, the registry
 * full, a corrupt entry dropped.
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
#include "../src/trace_keeper.h"
#include "persist_kunit.h"

/* ---- the remotes' last traces ---- */

#define PR_RP_DA	0x10000
#define PR_RP_LEN	(3 * SNAPTRACE_MAX_PAYLOAD)
/* The trace's text: two whole pieces and a part of a third. */
#define PR_RP_TEXT	(2 * SNAPTRACE_MAX_PAYLOAD + 300)

struct pr_remote {
	struct snaptrace_rproc *rproc;
	struct snaptrace_rproc_trace *t;
	char *text;	/* traceN_last, as snaptrace_keeper_read_last() gives it */
	ssize_t len;
};

/*
 * @text bytes of text in @r's trace, NULs after them, then a crash of the
 * remote: its trace0_last, read back whole, holds them.
 */
static void pr_remote_crash(struct kunit *test, struct pr_remote *r, u32 text)
{
	unsigned long flags;
	char *va;
	u32 i;

	va = snaptrace_rproc_da_to_va(r->rproc, PR_RP_DA, PR_RP_LEN, NULL);
	KUNIT_ASSERT_NOT_NULL(test, va);
	memset(va, 0, PR_RP_LEN);
	for (i = 0; i < text; i++)
		va[i] = i % 32 == 31 ? '\n' : 'a' + i % 26;
	local_irq_save(flags);
	snaptrace_rproc_capture_traces(r->rproc);
	local_irq_restore(flags);
	KUNIT_ASSERT_TRUE(test, r->t->keeper->has_last);
	/* The whole trace, NULs after the text; last_boot/ keeps the text. */
	KUNIT_ASSERT_EQ(test, snaptrace_keeper_read_last(r->t->keeper, r->text,
							 PR_RP_LEN),
			(ssize_t)PR_RP_LEN);
	r->len = strnlen(r->text, PR_RP_LEN);
	KUNIT_ASSERT_EQ(test, r->len, (ssize_t)text);
}

/*
 * A simulated remote with one trace, as the rproc suites make one, its
 * trace registered with the persistent capture; with @crash, a crash of
 * it captured (IRQs off, as from a crash), so that trace0_last holds the
 * text.
 */
static struct pr_remote *pr_remote_new(struct kunit *test, bool crash)
{
	struct pr_remote *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct snaptrace_fw_rsc_trace rsc = { .da = PR_RP_DA, .len = PR_RP_LEN };
	struct snaptrace_rproc_mem *m;
	char *va;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rproc = kunit_kzalloc(test, sizeof(*r->rproc), GFP_KERNEL);
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, r->rproc && m);
	r->rproc->ops = &st_rproc_nop_ops;
	INIT_LIST_HEAD(&r->rproc->mems);
	INIT_LIST_HEAD(&r->rproc->traces);
	mutex_init(&r->rproc->lock);
	strscpy(r->rproc->name, "sim", sizeof(r->rproc->name));
	r->rproc->crash_cnt = 1;
	r->rproc->crash_type = SNAPTRACE_RPROC_WATCHDOG;
	m->va = kunit_kzalloc(test, PR_RP_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->va);
	m->da = PR_RP_DA;
	m->len = PR_RP_LEN;
	m->kind = "region";
	list_add_tail(&m->node, &r->rproc->mems);
	mutex_lock(&r->rproc->lock);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_handle_trace(r->rproc, &rsc, 0,
							   sizeof(rsc)), 0);
	mutex_unlock(&r->rproc->lock);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_rproc_traces_free,
							r->rproc), 0);
	r->t = list_first_entry(&r->rproc->traces, struct snaptrace_rproc_trace,
				node);
	KUNIT_ASSERT_GE(test, r->t->keeper->pr_src.slot, 0);
	KUNIT_EXPECT_STREQ(test, r->t->keeper->pr_src.name, "remoteproc0/trace0_last");
	va = m->va;
	for (i = 0; i < PR_RP_TEXT; i++)
		va[i] = i % 32 == 31 ? '\n' : 'a' + i % 26;
	r->text = kunit_kzalloc(test, PR_RP_LEN + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->text);
	if (crash)
		pr_remote_crash(test, r, PR_RP_TEXT);
	return r;
}

/* last_boot/info's lines on the remotes, for @last. */
static char *pr_remotes_info(struct kunit *test,
			     const struct snaptrace_persist_last *last)
{
	struct seq_file *m = st_pr_seq(test);

	snaptrace_persist_remotes_show(m, last);
	return st_pr_seq_take(test, m);
}

/* A capture of st_pr_write()'s records with the remotes' last traces. */
static struct snaptrace_persist_last *pr_capture_remotes(struct kunit *test,
							 struct pr_ctx *x)
{
	st_pr_write(test, x);
	x->p.remotes = true;
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	st_pr_expect_snapshot(test, x);
	return st_pr_parse(test, x);
}

/*
 * A remote's trace0_last, captured before the host's capture, comes back
 * at the next load exactly as trace0_last showed it, named as its debugfs
 * file; the CPUs' records are all there too, and untouched; its entries
 * are not among the CPUs'.
 */
static void persist_remote_last_trace_kept(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	unsigned int i;

	last = pr_capture_remotes(test, x);
	st_pr_expect_cap(test, x, last, last->cap.cpu);
	st_pr_expect_same(test, x, last, -1, -1);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	for (i = 0; i < ST_PR_SRCS; i++)
		KUNIT_EXPECT_EQ_MSG(test, last->remotes[i], i == s, "row %u", i);
	KUNIT_EXPECT_STREQ(test, last->srcs[s].name, "remoteproc0/trace0_last");
	KUNIT_EXPECT_EQ(test, last->srcs[s].flags, 0);
	/* The head and three pieces of text: all written, all kept. */
	KUNIT_EXPECT_EQ(test, last->srcs[s].entries, 4);
	KUNIT_EXPECT_EQ(test, last->remote_kept[s], 4);
	KUNIT_ASSERT_NOT_NULL(test, last->remote_text[s]);
	KUNIT_ASSERT_EQ(test, last->remote_len[s], (size_t)r->len);
	KUNIT_EXPECT_MEMEQ(test, last->remote_text[s], r->text, r->len);
	KUNIT_EXPECT_STREQ(test, pr_remotes_info(test, last),
			   "remote traces: 1 captured (remoteproc0/trace0_last)\n");
}

/*
 * The CPUs' budget stays the newest-records rule, exactly, in the room the
 * remote's entries leave: a region too small for every record keeps the
 * remote's text whole, and each CPU what st_pr_newest() says of the rest.
 */
static void persist_remote_budget_exact(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, false);
	struct pr_ctx *x = st_pr_setup(test, 16384);
	u64 *first = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	struct snaptrace_record *recs;
	struct snaptrace_persist_last *last;
	u64 remote_bytes = 0;
	unsigned int n, i;
	int s = r->t->keeper->pr_src.slot, end;

	KUNIT_ASSERT_NOT_NULL(test, first);
	/* Text to the trace's last byte: the head and three whole pieces. */
	pr_remote_crash(test, r, PR_RP_LEN);
	recs = kunit_kcalloc(test, 8, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	n = st_collect(test, r->t->keeper->last, SNAPTRACE_SNAPSHOT, r->t->keeper->last_cpu,
		       recs, 8, &end);
	KUNIT_ASSERT_EQ(test, n, 4);
	for (i = 0; i < n; i++)
		remote_bytes += snaptrace_persist_ent_size(recs[i].len);
	last = pr_capture_remotes(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_FULL);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	/* The remote's share: at most half the room; here all it needs. */
	KUNIT_ASSERT_LE(test, remote_bytes, (16384 - x->p.data_off) / ST_PR_SRC_SHARE);
	st_pr_newest(test, x, 16384 - x->p.data_off - remote_bytes, first);
	st_pr_expect_kept(test, x, last, first);
	KUNIT_EXPECT_EQ(test, last->srcs[s].flags, 0);
	KUNIT_ASSERT_EQ(test, last->remote_len[s], (size_t)r->len);
	KUNIT_EXPECT_MEMEQ(test, last->remote_text[s], r->text, r->len);
}

/*
 * A remote's text larger than its share (half the region's data bytes) is
 * left out whole, said in info; the CPUs then have the whole region, by
 * the newest-records rule, exactly.
 */
static void persist_remote_left_out_whole(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, 8192);
	u64 *first = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;

	KUNIT_ASSERT_NOT_NULL(test, first);
	last = pr_capture_remotes(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_FULL);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	KUNIT_EXPECT_TRUE(test, last->remotes[s]);
	KUNIT_EXPECT_EQ(test, last->srcs[s].flags, ST_PR_SRC_F_FULL);
	KUNIT_EXPECT_EQ(test, last->srcs[s].entries, 0);
	KUNIT_EXPECT_NULL(test, last->remote_text[s]);
	st_pr_newest(test, x, 8192 - x->p.data_off, first);
	st_pr_expect_kept(test, x, last, first);
	KUNIT_EXPECT_STREQ(test, pr_remotes_info(test, last),
			   "remote traces: 0 captured\nremote remoteproc0/trace0_last: left out (more than its share of the region)\n");
}

/*
 * @last holds every CPU's record and no remote's: no row, no text, no
 * corrupt entry, and info says none held a record.
 */
static void pr_expect_no_remote(struct kunit *test, struct pr_ctx *x,
				const struct snaptrace_persist_last *last)
{
	unsigned int i;

	st_pr_expect_same(test, x, last, -1, -1);
	for (i = 0; i < ST_PR_SRCS; i++) {
		KUNIT_EXPECT_FALSE_MSG(test, last->remotes[i], "row %u", i);
		KUNIT_EXPECT_NULL_MSG(test, last->remote_text[i], "row %u", i);
	}
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	KUNIT_EXPECT_STREQ(test, pr_remotes_info(test, last),
			   "remote traces: none (no remote's last trace held a record at the capture)\n");
}

/*
 * No remote had a last trace (one has a trace, never crashed): nothing
 * kept, and info says none had one.
 */
static void persist_remote_none(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, false);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);

	KUNIT_EXPECT_FALSE(test, r->t->keeper->has_last);
	pr_expect_no_remote(test, x, pr_capture_remotes(test, x));
}

/*
 * A remote that had a last trace whose copy holds no record when the host
 * captures (its snapshot cleared): no row, nothing kept, and info does not
 * say that none had a last trace (it used to).
 */
static void persist_remote_last_trace_empty(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);

	KUNIT_ASSERT_EQ(test, snaptrace_clear_snapshot(r->t->keeper->last), 0);
	KUNIT_EXPECT_TRUE(test, r->t->keeper->has_last);
	pr_expect_no_remote(test, x, pr_capture_remotes(test, x));
}

/*
 * A remote destroyed before the capture (its traces and their keepers
 * freed, the last copy's buffer dropped) is out of the registry: the capture does not read it
 * (KASAN would say if it read freed memory), and nothing of it is kept.
 */
static void persist_remote_removed_not_read(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);

	st_rproc_traces_free(r->rproc);
	KUNIT_EXPECT_TRUE(test, list_empty(&r->rproc->traces));
	pr_expect_no_remote(test, x, pr_capture_remotes(test, x));
}

/*
 * The remote crashes again between the capture's two walks of its last
 * trace (a new capture: its copy reset and snapshotted anew, the same
 * text at the same positions, in the other half). The second walk is
 * pinned to the copy the first one measured: the trace is said replaced
 * and not kept, as it is when replaced during a walk (it used to walk
 * the new copy: kept, no flag). The CPUs' records are all kept.
 */
static struct snaptrace_rproc *pr_recrash_rproc;

static void pr_recrash(struct snaptrace_persist *p)
{
	unsigned long flags;

	local_irq_save(flags);
	snaptrace_rproc_capture_traces(pr_recrash_rproc);
	local_irq_restore(flags);
}

static void persist_remote_replaced_between_walks(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;

	pr_recrash_rproc = r->rproc;
	x->p.measured = pr_recrash;
	last = pr_capture_remotes(test, x);
	x->p.measured = NULL;
	st_pr_expect_same(test, x, last, -1, -1);
	KUNIT_EXPECT_TRUE(test, last->remotes[s]);
	KUNIT_EXPECT_EQ(test, last->srcs[s].flags, ST_PR_SRC_F_STALE);
	KUNIT_EXPECT_EQ(test, last->srcs[s].entries, 0);
	KUNIT_EXPECT_NULL(test, last->remote_text[s]);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	KUNIT_EXPECT_STREQ(test, pr_remotes_info(test, last),
			   "remote traces: 0 captured\nremote remoteproc0/trace0_last: replaced by a new crash during the capture: not kept\n");
}

/*
 * The registry has ST_PR_SRCS rows for every remote together: when they
 * are taken, one more source gets -ENOSPC and slot -1 (its trace works,
 * a panic does not keep it), and removing it is harmless; a row given
 * back is taken again. Cleared, a source says whether a grace period is
 * needed before its buffer is freed, once. The test takes exactly the
 * rows free at its start (another suite's remote may hold some): counted
 * first, not guessed. Its sources hold no last trace (has_last points to
 * false): a capture that reads the registry meanwhile (a panic) skips
 * them, and never walks their NULL buffer.
 */
static const bool pr_no_last;

static void pr_srcs_remove(void *arg)
{
	struct snaptrace_persist_source *srcs = arg;
	unsigned int s;

	for (s = 0; s <= ST_PR_SRCS; s++)
		snaptrace_persist_source_remove(&srcs[s]);
}

static void persist_remote_registry_full(struct kunit *test)
{
	struct snaptrace_persist_source *srcs;
	unsigned int s, added = 0, free;
	int slot;

	srcs = kunit_kcalloc(test, ST_PR_SRCS + 1, sizeof(*srcs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, srcs);
	for (s = 0; s <= ST_PR_SRCS; s++) {
		srcs[s].slot = -1;
		srcs[s].has_last = &pr_no_last;
		snprintf(srcs[s].name, sizeof(srcs[s].name),
			 "remoteproc9/trace%u_last", s);
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_srcs_remove,
							srcs), 0);
	free = snaptrace_persist_sources_free();
	KUNIT_ASSERT_GT(test, free, 0);
	/* Every free row, and no more. */
	while (added <= ST_PR_SRCS && !snaptrace_persist_source_add(&srcs[added]))
		added++;
	KUNIT_ASSERT_EQ(test, added, free);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_sources_free(), 0);
	s = added;
	KUNIT_EXPECT_EQ(test, srcs[s].slot, -1);
	KUNIT_EXPECT_FALSE(test, snaptrace_persist_source_clear(&srcs[s]));
	snaptrace_persist_source_remove(&srcs[s]);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_source_add(&srcs[s]), -ENOSPC);

	slot = srcs[0].slot;
	KUNIT_EXPECT_TRUE(test, snaptrace_persist_source_clear(&srcs[0]));
	KUNIT_EXPECT_EQ(test, srcs[0].slot, -1);
	KUNIT_EXPECT_FALSE(test, snaptrace_persist_source_clear(&srcs[0]));
	KUNIT_EXPECT_EQ(test, snaptrace_persist_sources_free(), 1);
	synchronize_rcu();
	KUNIT_EXPECT_EQ(test, snaptrace_persist_source_add(&srcs[s]), 0);
	KUNIT_EXPECT_EQ(test, srcs[s].slot, slot);
}

/*
 * A byte flipped in the remote's first piece of text: that entry alone is
 * dropped and counted corrupt, like a CPU's; the text is the rest, and
 * info says so; the CPUs' records are all kept.
 */
static void persist_remote_corrupt_entry_dropped(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	char want[128];
	size_t off;
	u8 *b;

	last = pr_capture_remotes(test, x);
	KUNIT_ASSERT_EQ(test, last->remote_len[s], (size_t)r->len);
	off = st_pr_ent_off(test, x, ST_PR_ENT_SRC | s, 1);
	KUNIT_ASSERT_EQ(test, ((struct st_pr_ent *)(x->p.base + off))->type,
			SNAPTRACE_REC_TEXT);
	b = x->p.base + off + sizeof(struct st_pr_ent) + 9;
	*b ^= 0x40;
	last = st_pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->corrupt, 1);
	st_pr_expect_same(test, x, last, -1, -1);
	KUNIT_EXPECT_TRUE(test, last->remotes[s]);
	KUNIT_EXPECT_EQ(test, last->srcs[s].entries, 4);
	KUNIT_EXPECT_EQ(test, last->remote_kept[s], 3);
	KUNIT_ASSERT_EQ(test, last->remote_len[s],
			(size_t)r->len - SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_MEMEQ(test, last->remote_text[s],
			   r->text + SNAPTRACE_MAX_PAYLOAD,
			   r->len - SNAPTRACE_MAX_PAYLOAD);
	snprintf(want, sizeof(want),
		 "remote traces: 1 captured (remoteproc0/trace0_last)\nremote remoteproc0/trace0_last: dropped corrupt: 1\n");
	KUNIT_EXPECT_STREQ(test, pr_remotes_info(test, last), want);
}

static struct kunit_case snaptrace_persist_remote_cases[] = {
	KUNIT_CASE(persist_remote_last_trace_kept),
	KUNIT_CASE(persist_remote_budget_exact),
	KUNIT_CASE(persist_remote_left_out_whole),
	KUNIT_CASE(persist_remote_none),
	KUNIT_CASE(persist_remote_last_trace_empty),
	KUNIT_CASE(persist_remote_removed_not_read),
	KUNIT_CASE(persist_remote_replaced_between_walks),
	KUNIT_CASE(persist_remote_registry_full),
	KUNIT_CASE(persist_remote_corrupt_entry_dropped),
	{}
};

static struct kunit_suite snaptrace_persist_remote_suite = {
	.name = "snaptrace_persist_remote",
	.test_cases = snaptrace_persist_remote_cases,
};

kunit_test_suites(&snaptrace_persist_remote_suite);
