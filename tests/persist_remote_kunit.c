// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the persistent capture (Documentation/persist.rst):
 * the remotes' last traces a capture keeps (the sources of
 * src/persist_capture.c, their texts rebuilt by src/persist_parse.c and
 * shown by src/persist_show.c): kept whole in their share of the region or
 * left out whole, removed or replaced during the capture, the registry
 * full, a corrupt entry dropped; shown at the next load exactly as the
 * live traceN_last showed them, decoded (a circular trace, the format the
 * keeper used at the panic); rows whose format or length no keeper writes
 * refused.
 *
 * On an ordinary vmalloc'd "region"; the CRCs are recomputed here from the
 * layout in src/persist.h, as a reader of the format would. What the
 * snaptrace_persist* suites share is in persist_helpers.c.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/crc32.h>
#include <linux/debugfs.h>
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
	ssize_t len;	/* its text's bytes, up to the first NUL */
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
 * trace registered with the persistent capture, its files in @dir (none
 * if NULL); with @crash, a crash of it captured (IRQs off, as from a
 * crash), so that trace0_last holds the text.
 */
static struct pr_remote *pr_remote_new_in(struct kunit *test,
					  struct dentry *dir, bool crash)
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
	r->rproc->dir = dir;
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

static struct pr_remote *pr_remote_new(struct kunit *test, bool crash)
{
	return pr_remote_new_in(test, NULL, crash);
}

/*
 * last_boot/@l's trace @s is @r's trace0_last whole: the text, then NULs
 * up to the trace's length (PR_RP_LEN), which the row says, with the
 * format the keeper decodes with (ours: auto).
 */
static void pr_expect_trace(struct kunit *test, struct pr_remote *r,
			    const struct snaptrace_persist_last *l, int s)
{
	KUNIT_EXPECT_EQ(test, l->srcs[s].len, PR_RP_LEN);
	KUNIT_EXPECT_EQ(test, l->srcs[s].fmt, SNAPTRACE_TFMT_AUTO);
	KUNIT_EXPECT_EQ(test, l->remote_err[s], 0);
	KUNIT_ASSERT_NOT_NULL(test, l->remote_text[s]);
	KUNIT_ASSERT_EQ(test, l->remote_len[s], (size_t)PR_RP_LEN);
	KUNIT_EXPECT_MEMEQ(test, l->remote_text[s], r->text, PR_RP_LEN);
}

static char *pr_last_boot_trace(struct kunit *test,
				const struct snaptrace_persist_last *l, int s);

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
	pr_expect_trace(test, r, last, s);
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
	pr_expect_trace(test, r, last, s);
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
 * The keeper captured (or was capturing) between the panic's two walks:
 * its copy's text and the length read may be of different captures, the
 * count of its captures (odd during one) says so: the row is marked torn,
 * whichever way the count moved, and info says so.
 */
static struct snaptrace_keeper *pr_recapture_keeper;
static u32 pr_recapture_by;

static void pr_recapture(struct snaptrace_persist *p)
{
	WRITE_ONCE(pr_recapture_keeper->last_seq,
		   pr_recapture_keeper->last_seq + pr_recapture_by);
}

static void persist_remote_capturing_torn(struct kunit *test)
{
	static const u32 by[] = { 1, 2 };	/* one begun; one done */
	struct pr_remote *r = pr_remote_new(test, true);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	struct pr_ctx *x;
	unsigned int i;
	u32 seq;

	for (i = 0; i < ARRAY_SIZE(by); i++) {
		x = st_pr_setup(test, PR_SIZE);
		seq = r->t->keeper->last_seq;
		KUNIT_EXPECT_EQ(test, seq & 1, 0);
		pr_recapture_keeper = r->t->keeper;
		pr_recapture_by = by[i];
		x->p.measured = pr_recapture;
		last = pr_capture_remotes(test, x);
		x->p.measured = NULL;
		r->t->keeper->last_seq = seq;
		st_pr_expect_same(test, x, last, -1, -1);
		KUNIT_EXPECT_TRUE(test, last->remotes[s]);
		KUNIT_EXPECT_EQ(test, last->srcs[s].flags, ST_PR_SRC_F_TORN);
		KUNIT_EXPECT_EQ(test, last->srcs[s].entries, 4);
		KUNIT_EXPECT_STREQ(test, pr_remotes_info(test, last),
				   "remote traces: 1 captured (remoteproc0/trace0_last)\nremote remoteproc0/trace0_last: being captured at the panic: its open pieces left out\n");
		KUNIT_EXPECT_STREQ(test, last->remote_raw[s],
				   "being captured at the panic");
	}
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
static const u32 pr_no_len, pr_no_seq;

static enum snaptrace_tfmt pr_no_format(struct snaptrace_persist_source *src)
{
	return SNAPTRACE_TFMT_AUTO;
}

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
		srcs[s].len = &pr_no_len;
		srcs[s].seq = &pr_no_seq;
		srcs[s].format = pr_no_format;
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
 * A source without its has_last, len, seq or format (each read at the
 * panic, unchecked) is not registered: -EINVAL, slot -1, no row taken.
 */
static void persist_remote_source_incomplete(struct kunit *test)
{
	struct snaptrace_persist_source src;
	unsigned int i, free = snaptrace_persist_sources_free();

	for (i = 0; i < 4; i++) {
		memset(&src, 0, sizeof(src));
		src.slot = 7;
		src.has_last = i == 0 ? NULL : &pr_no_last;
		src.len = i == 1 ? NULL : &pr_no_len;
		src.seq = i == 2 ? NULL : &pr_no_seq;
		src.format = i == 3 ? NULL : pr_no_format;
		strscpy(src.name, "remoteproc9/trace0_last", sizeof(src.name));
		KUNIT_EXPECT_EQ(test, snaptrace_persist_source_add(&src), -EINVAL);
		KUNIT_EXPECT_EQ(test, src.slot, -1);
		KUNIT_EXPECT_EQ(test, snaptrace_persist_sources_free(), free);
	}
}

/*
 * A byte flipped in the remote's first piece of text: that entry alone is
 * dropped and counted corrupt, like a CPU's, and info says so; the CPUs'
 * records are all kept. The rest cannot be placed where the trace had it
 * (the pieces after the hole would move up): not decoded, last_boot's
 * trace0_last says why, then the rest of the text as kept.
 */
static void persist_remote_corrupt_entry_dropped(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	char want[128], *shown;
	size_t off;
	u8 *b;

	last = pr_capture_remotes(test, x);
	pr_expect_trace(test, r, last, s);
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
	/* The rest of the text, raw: its closing NUL left out. */
	KUNIT_EXPECT_STREQ(test, last->remote_raw[s], "a piece dropped as corrupt");
	KUNIT_ASSERT_NOT_NULL(test, last->remote_text[s]);
	KUNIT_ASSERT_EQ(test, last->remote_len[s],
			(size_t)r->len - SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_MEMEQ(test, last->remote_text[s],
			   r->text + SNAPTRACE_MAX_PAYLOAD,
			   r->len - SNAPTRACE_MAX_PAYLOAD);
	snprintf(want, sizeof(want),
		 "remote traces: 1 captured (remoteproc0/trace0_last)\nremote remoteproc0/trace0_last: dropped corrupt: 1\n");
	KUNIT_EXPECT_STREQ(test, pr_remotes_info(test, last), want);
	shown = kunit_kzalloc(test, ST_TEXT_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, shown);
	snprintf(shown, ST_TEXT_MAX,
		 "[snaptrace: not decoded: a piece dropped as corrupt: the text kept, NULs left out]\n%.*s",
		 (int)(r->len - SNAPTRACE_MAX_PAYLOAD),
		 r->text + SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_STREQ(test, pr_last_boot_trace(test, last, s), shown);
}

/* ---- the traces shown as the live traceN_last showed them ---- */

/* last_boot/remotes/<dir>/traceN_last of @l's row @s, as a reader gets it. */
static char *pr_last_boot_trace(struct kunit *test,
				const struct snaptrace_persist_last *l, int s)
{
	struct seq_file *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	char *text;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->size = ST_TEXT_MAX;
	m->buf = kunit_kzalloc(test, m->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	snaptrace_persist_remote_show(m, l, s);
	KUNIT_ASSERT_LT(test, m->count, m->size);	/* it fit */
	text = kunit_kzalloc(test, m->count + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, text);
	memcpy(text, m->buf, m->count);
	return text;
}

/*
 * A capture of st_pr_write()'s records with the remotes' last traces, as
 * at a panic: IRQs off, the other CPUs taken as stopped.
 */
static struct snaptrace_persist_last *pr_panic_remotes(struct kunit *test,
						       struct pr_ctx *x)
{
	unsigned long flags;
	int ret;

	st_pr_write(test, x);
	x->p.remotes = true;
	local_irq_save(flags);
	ret = snaptrace_persist_capture(&x->p, x->buf, ST_PR_PANIC,
					"simulated panic", true);
	local_irq_restore(flags);
	KUNIT_ASSERT_EQ(test, ret, 0);
	st_pr_expect_snapshot(test, x);
	return st_pr_parse(test, x);
}

/*
 * STM32Cube's log over the whole trace: each character followed by a
 * NUL, round its first @len - 1 bytes (the last stays NUL), lines
 * "line-NNNN\n" until it has wrapped: one NUL inside, at the write
 * position.
 */
static void pr_stm32(char *va, u32 len)
{
	char line[16];
	u32 i, j, at = 0;

	memset(va, 0, len);
	for (i = 0; i < 2 * len / 10; i++) {
		snprintf(line, sizeof(line), "line-%04u\n", i);
		for (j = 0; j < 10; j++) {
			va[at] = line[j];
			at = (at + 1) % (len - 1);
			va[at] = 0;
		}
	}
}

/*
 * A remote's trace in a circular convention (STM32Cube's: wrapped, a NUL
 * inside at the write position), captured at its crash, then the host's
 * capture at a simulated panic, parsed as the next boot would: last_boot's
 * trace0_last is the live trace0_last's text before the panic, byte for
 * byte, decoded (it used to be the raw bytes up to the first NUL: the
 * newest lines only, the wrap not said).
 */
static void persist_remote_circular_as_live(struct kunit *test)
{
	struct dentry *dir = st_debugfs_dir(test, "st_pr_remote_circ");
	struct pr_remote *r = pr_remote_new_in(test, dir, false);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	struct pr_ctx *x;
	unsigned long flags;
	char *va, *live;

	va = snaptrace_rproc_da_to_va(r->rproc, PR_RP_DA, PR_RP_LEN, NULL);
	KUNIT_ASSERT_NOT_NULL(test, va);
	pr_stm32(va, PR_RP_LEN);
	local_irq_save(flags);
	snaptrace_rproc_capture_traces(r->rproc);
	local_irq_restore(flags);
	memset(va, 0, PR_RP_LEN);	/* the next run */
	live = st_slurp(test, ST_DEBUGFS "/st_pr_remote_circ/trace0_last");
	KUNIT_ASSERT_TRUE(test, strstarts(live, "[snaptrace: wrapped, lines lost unknown]\nline-"));

	x = st_pr_setup(test, PR_SIZE);
	last = pr_panic_remotes(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.reason, ST_PR_PANIC);
	KUNIT_EXPECT_EQ(test, last->srcs[s].flags, 0);
	KUNIT_EXPECT_EQ(test, last->srcs[s].len, PR_RP_LEN);
	KUNIT_EXPECT_EQ(test, last->srcs[s].fmt, SNAPTRACE_TFMT_AUTO);
	KUNIT_ASSERT_NOT_NULL(test, last->remote_text[s]);
	/* The NUL inside: the bytes up to it are not the trace. */
	KUNIT_EXPECT_LT(test, strnlen(last->remote_text[s], PR_RP_LEN),
			(size_t)PR_RP_LEN - 1);
	KUNIT_EXPECT_STREQ(test, pr_last_boot_trace(test, last, s), live);
}

/* A feeder as rproc_follow.c's: its own buffer, its format its own. */
struct pr_fmt_src {
	u8 bytes[64];
	enum snaptrace_tfmt fmt;
};

static int pr_fmt_read_live(struct snaptrace_keeper *k, void **buf, u32 *len)
{
	*buf = NULL;	/* the remote does not run */
	return 0;
}

static enum snaptrace_tfmt pr_fmt_format(struct snaptrace_keeper *k)
{
	struct pr_fmt_src *f = k->priv;

	return READ_ONCE(f->fmt);
}

static int pr_fmt_read(void *ctx, u32 off, void *dst, u32 n)
{
	struct pr_fmt_src *f = ctx;

	memcpy(dst, f->bytes + off, n);
	return 0;
}

static const struct snaptrace_keeper_ops pr_fmt_ops = {
	.read_live = pr_fmt_read_live,
	.format = pr_fmt_format,
};

static void pr_keeper_free(void *k)
{
	snaptrace_keeper_free(k);
}

/*
 * The format is the one traceN_last decodes with when the host dies: a
 * followed remote's trace_format changed after its crash (auto, then
 * plain) is the one its row keeps, and last_boot's trace0_last is the
 * live one's text, plain (a Zephyr console of 64 bytes, wrapped, which
 * auto would decode as Zephyr's).
 */
static void persist_remote_format_at_panic(struct kunit *test)
{
	struct dentry *dir = st_debugfs_dir(test, "st_pr_remote_fmt");
	struct pr_fmt_src *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct snaptrace_persist_last *last;
	struct snaptrace_keeper *k;
	struct pr_ctx *x;
	char line[17], *live;
	unsigned int i;
	int s;

	KUNIT_ASSERT_NOT_NULL(test, f);
	for (i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "[%08u] tt%u\r\n", 100 + i, i);
		memcpy(f->bytes + (i * 16) % sizeof(f->bytes), line, 16);
	}
	k = snaptrace_keeper_create(NULL, 0, SZ_4K, NULL, "remoteproc9/trace0_last",
				    &pr_fmt_ops, f);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(k), "create: %pe", k);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_keeper_free, k), 0);
	s = k->pr_src.slot;
	KUNIT_ASSERT_GE(test, s, 0);
	snaptrace_keeper_files_add(k, dir);
	KUNIT_ASSERT_TRUE(test, snaptrace_keeper_capture_slow(k, "h", pr_fmt_read, f,
							      sizeof(f->bytes)));
	live = st_slurp(test, ST_DEBUGFS "/st_pr_remote_fmt/trace0_last");
	KUNIT_EXPECT_TRUE(test, strstarts(live, "[snaptrace: wrapped"));
	WRITE_ONCE(f->fmt, SNAPTRACE_TFMT_PLAIN);
	live = st_slurp(test, ST_DEBUGFS "/st_pr_remote_fmt/trace0_last");
	KUNIT_ASSERT_TRUE(test, strstarts(live,
					  "[00000104] tt4\n[00000105] tt5\n[00000102] tt2\n"));

	x = st_pr_setup(test, PR_SIZE);
	last = pr_panic_remotes(test, x);
	KUNIT_EXPECT_STREQ(test, last->srcs[s].name, "remoteproc9/trace0_last");
	KUNIT_EXPECT_EQ(test, last->srcs[s].fmt, SNAPTRACE_TFMT_PLAIN);
	KUNIT_EXPECT_EQ(test, last->srcs[s].len, sizeof(f->bytes));
	KUNIT_EXPECT_STREQ(test, pr_last_boot_trace(test, last, s), live);
}

/* ---- rows refused: a format or a length no keeper writes ---- */

/* The region's source row @s. */
static struct st_pr_src *pr_row(struct pr_ctx *x, int s)
{
	struct st_pr_hdr *h = x->p.base;

	return x->p.base + h->table_off +
	       (size_t)h->nr_cpus * sizeof(struct st_pr_cpu) +
	       s * sizeof(struct st_pr_src);
}

/*
 * Seal row @s again, then the capture, after a test changed the row: its
 * own CRC (boot id, row, then name, len, fmt), then the capture's (its
 * header but state and CRC, the per-CPU table, the sources' table).
 */
static void pr_reseal_cap(struct pr_ctx *x);

static void pr_reseal_row(struct pr_ctx *x, int s)
{
	struct st_pr_hdr *h = x->p.base;
	struct st_pr_src *r = pr_row(x, s);
	u32 row = s, crc;

	crc = crc32_le(~0, (const u8 *)&h->boot_id, sizeof(h->boot_id));
	crc = crc32_le(crc, (const u8 *)&row, sizeof(row));
	r->name_crc = crc32_le(crc, (const u8 *)r->name,
			       sizeof(r->name) + sizeof(r->len) + sizeof(r->fmt));
	pr_reseal_cap(x);
}

/* Seal @x's capture again: its CRC alone (a row's own CRC as it is). */
static void pr_reseal_cap(struct pr_ctx *x)
{
	struct st_pr_hdr *h = x->p.base;
	struct st_pr_cap *cap = x->p.base + sizeof(*h);
	u32 z = 0, crc;

	crc = crc32_le(~0, (const u8 *)&z, sizeof(z));
	crc = crc32_le(crc, (const u8 *)&z, sizeof(z));
	crc = crc32_le(crc, (const u8 *)cap + 8, sizeof(*cap) - 8);
	cap->cap_crc = crc32_le(crc, x->p.base + h->table_off,
				(size_t)h->nr_cpus * sizeof(struct st_pr_cpu) +
				ST_PR_SRCS * sizeof(struct st_pr_src));
}

/*
 * Row @s of @x's capture of @r, changed by the test and sealed again,
 * parsed: refused with @err (no text, no file), its entries counted kept,
 * not corrupt; every CPU's record shown; info says why, as @info; the
 * region unchanged.
 */
static void pr_expect_row_refused(struct kunit *test, struct pr_ctx *x, int s,
				  int err, const char *info)
{
	u8 *copy = st_pr_vzalloc(test, PR_SIZE);
	struct snaptrace_persist_last *last;

	pr_reseal_row(x, s);
	memcpy(copy, x->p.base, PR_SIZE);
	last = st_pr_parse(test, x);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, copy, PR_SIZE),
			      "the region changed");
	st_pr_expect_same(test, x, last, -1, -1);
	KUNIT_EXPECT_TRUE(test, last->remotes[s]);
	KUNIT_EXPECT_EQ(test, last->remote_err[s], err);
	KUNIT_EXPECT_NULL(test, last->remote_text[s]);
	KUNIT_EXPECT_EQ(test, last->remote_len[s], 0);
	KUNIT_EXPECT_EQ(test, last->remote_kept[s], 4);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	KUNIT_EXPECT_STREQ(test, pr_remotes_info(test, last), info);
}

/*
 * A row whose format is one trace_decode.c does not know, under a right
 * CRC, is refused: -EPROTONOSUPPORT, said in info, the rest shown.
 */
static void persist_remote_unknown_format_refused(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	char want[160];

	last = pr_capture_remotes(test, x);
	pr_expect_trace(test, r, last, s);
	pr_row(x, s)->fmt = SNAPTRACE_TFMT_NR;
	snprintf(want, sizeof(want),
		 "remote traces: 0 captured\nremote remoteproc0/trace0_last: refused: trace format %u unknown: not shown\n",
		 SNAPTRACE_TFMT_NR);
	pr_expect_row_refused(test, x, s, -EPROTONOSUPPORT, want);
	pr_row(x, s)->fmt = U32_MAX;
	snprintf(want, sizeof(want),
		 "remote traces: 0 captured\nremote remoteproc0/trace0_last: refused: trace format %u unknown: not shown\n",
		 U32_MAX);
	pr_expect_row_refused(test, x, s, -EPROTONOSUPPORT, want);
}

/*
 * A row's length, under a right CRC: beyond the largest trace, refused
 * (-EFBIG); shorter than its text (the keeper's closing NUL aside),
 * refused (-EMSGSIZE); the text's own length, the closing NUL past it,
 * shown: the text, decoded over that length.
 */
static void persist_remote_bad_length_refused(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	char want[200];

	last = pr_capture_remotes(test, x);
	pr_expect_trace(test, r, last, s);

	pr_row(x, s)->len = SNAPTRACE_RPROC_TRACE_MAX + 1;
	snprintf(want, sizeof(want),
		 "remote traces: 0 captured\nremote remoteproc0/trace0_last: refused: length %u beyond the largest trace (%u): not shown\n",
		 SNAPTRACE_RPROC_TRACE_MAX + 1, SNAPTRACE_RPROC_TRACE_MAX);
	pr_expect_row_refused(test, x, s, -EFBIG, want);

	/* The text and its closing NUL run two bytes past r->len - 1. */
	pr_row(x, s)->len = r->len - 1;
	snprintf(want, sizeof(want),
		 "remote traces: 0 captured\nremote remoteproc0/trace0_last: refused: its text runs past its length (%zd): not shown\n",
		 r->len - 1);
	pr_expect_row_refused(test, x, s, -EMSGSIZE, want);

	/*
	 * The NUL alone past it, but in the text's last piece, not the
	 * keeper's one-byte NUL piece (which a keeper writes only after a
	 * text filling the trace): refused too.
	 */
	pr_row(x, s)->len = r->len;
	snprintf(want, sizeof(want),
		 "remote traces: 0 captured\nremote remoteproc0/trace0_last: refused: its text runs past its length (%zd): not shown\n",
		 r->len);
	pr_expect_row_refused(test, x, s, -EMSGSIZE, want);
}

/*
 * A row's length of exactly the largest trace (SNAPTRACE_RPROC_TRACE_MAX)
 * is one a keeper writes: shown, its text then NULs up to it.
 */
static void persist_remote_largest_length_shown(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;

	last = pr_capture_remotes(test, x);
	pr_expect_trace(test, r, last, s);
	pr_row(x, s)->len = SNAPTRACE_RPROC_TRACE_MAX;
	pr_reseal_row(x, s);
	last = st_pr_parse(test, x);
	KUNIT_EXPECT_TRUE(test, last->remotes[s]);
	KUNIT_EXPECT_EQ(test, last->remote_err[s], 0);
	KUNIT_ASSERT_NOT_NULL(test, last->remote_text[s]);
	KUNIT_ASSERT_EQ(test, last->remote_len[s],
			(size_t)SNAPTRACE_RPROC_TRACE_MAX);
	KUNIT_EXPECT_MEMEQ(test, last->remote_text[s], r->text, r->len);
	KUNIT_EXPECT_NULL(test, memchr_inv(last->remote_text[s] + r->len, 0,
					   SNAPTRACE_RPROC_TRACE_MAX + 1 -
					   r->len));
}

/*
 * The row's len and fmt are under its own CRC: either changed and the
 * capture sealed again, but not the row, and the row names no source (no
 * text, no file, not refused: not read at all).
 */
static void persist_remote_row_crc_covers_len_fmt(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	struct st_pr_src saved;
	unsigned int i;

	last = pr_capture_remotes(test, x);
	pr_expect_trace(test, r, last, s);
	saved = *pr_row(x, s);
	for (i = 0; i < 2; i++) {
		*pr_row(x, s) = saved;
		if (i)
			pr_row(x, s)->fmt ^= 1;
		else
			pr_row(x, s)->len--;
		pr_reseal_cap(x);
		last = st_pr_parse(test, x);
		st_pr_expect_same(test, x, last, -1, -1);
		KUNIT_EXPECT_FALSE(test, last->remotes[s]);
		KUNIT_EXPECT_NULL(test, last->remote_text[s]);
		KUNIT_EXPECT_EQ(test, last->remote_err[s], 0);
		/* its entries, written, not kept */
		KUNIT_EXPECT_EQ(test, last->corrupt, saved.entries);
	}
}

/*
 * A text filling the whole trace, its last byte neither a NUL nor a
 * newline: the keeper ends it with a one-byte NUL piece, one byte past the
 * row's length; shown, over the trace's length, as traceN_last shows it.
 */
static void persist_remote_full_trace_shown(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, false);
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->keeper->pr_src.slot;
	unsigned long flags;
	char *va, *shown;
	u32 i;

	va = snaptrace_rproc_da_to_va(r->rproc, PR_RP_DA, PR_RP_LEN, NULL);
	KUNIT_ASSERT_NOT_NULL(test, va);
	for (i = 0; i < PR_RP_LEN; i++)
		va[i] = i % 32 == 30 ? '\n' : 'a' + i % 26;
	local_irq_save(flags);
	snaptrace_rproc_capture_traces(r->rproc);
	local_irq_restore(flags);
	KUNIT_ASSERT_EQ(test, snaptrace_keeper_read_last(r->t->keeper, r->text,
							 PR_RP_LEN),
			(ssize_t)PR_RP_LEN);
	last = pr_capture_remotes(test, x);
	/* head, three whole pieces, the NUL piece */
	KUNIT_EXPECT_EQ(test, last->srcs[s].entries, 5);
	KUNIT_EXPECT_EQ(test, last->remote_err[s], 0);
	KUNIT_EXPECT_NULL(test, last->remote_raw[s]);
	KUNIT_ASSERT_NOT_NULL(test, last->remote_text[s]);
	KUNIT_ASSERT_EQ(test, last->remote_len[s], (size_t)PR_RP_LEN);
	KUNIT_EXPECT_MEMEQ(test, last->remote_text[s], va, PR_RP_LEN);
	/* Plain text filling the trace, a newline after its last line. */
	shown = kunit_kzalloc(test, PR_RP_LEN + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, shown);
	memcpy(shown, va, PR_RP_LEN);
	shown[PR_RP_LEN] = '\n';
	KUNIT_EXPECT_STREQ(test, pr_last_boot_trace(test, last, s), shown);
}

static struct kunit_case snaptrace_persist_remote_cases[] = {
	KUNIT_CASE(persist_remote_last_trace_kept),
	KUNIT_CASE(persist_remote_budget_exact),
	KUNIT_CASE(persist_remote_left_out_whole),
	KUNIT_CASE(persist_remote_none),
	KUNIT_CASE(persist_remote_last_trace_empty),
	KUNIT_CASE(persist_remote_removed_not_read),
	KUNIT_CASE(persist_remote_replaced_between_walks),
	KUNIT_CASE(persist_remote_capturing_torn),
	KUNIT_CASE(persist_remote_registry_full),
	KUNIT_CASE(persist_remote_source_incomplete),
	KUNIT_CASE(persist_remote_corrupt_entry_dropped),
	KUNIT_CASE(persist_remote_circular_as_live),
	KUNIT_CASE(persist_remote_format_at_panic),
	KUNIT_CASE(persist_remote_unknown_format_refused),
	KUNIT_CASE(persist_remote_bad_length_refused),
	KUNIT_CASE(persist_remote_full_trace_shown),
	KUNIT_CASE(persist_remote_largest_length_shown),
	KUNIT_CASE(persist_remote_row_crc_covers_len_fmt),
	{}
};

static struct kunit_suite snaptrace_persist_remote_suite = {
	.name = "snaptrace_persist_remote",
	.test_cases = snaptrace_persist_remote_cases,
};

kunit_test_suites(&snaptrace_persist_remote_suite);
