// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the persistent capture (Documentation/persist.rst):
 * a previous capture, validated (src/persist_parse.c): each class of region
 * that is not a previous boot's capture is refused with its own error and
 * left as it was; an unfinished capture is shown or kept; info's lines on
 * the times (src/persist_show.c); which refusals keep the region as found
 * and which are armed over (snaptrace_persist_take()).
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

/* ---- refusals: each class, its error, nothing changed ---- */

static u32 pr_crc_skip8(const void *p, size_t len)
{
	u32 z = 0, crc = crc32_le(~0, (const u8 *)&z, 4);

	crc = crc32_le(crc, (const u8 *)&z, 4);
	return crc32_le(crc, (const u8 *)p + 8, len - 8);
}

/* Recompute the header's CRC after a test changed it. */
static void pr_reseal_hdr(struct st_pr_hdr *h)
{
	h->hdr_crc = 0;
	h->hdr_crc = crc32_le(~0, (const u8 *)h, sizeof(*h));
}

/* Recompute the capture's CRC after a test changed it. */
static void pr_reseal_cap(void *base)
{
	struct st_pr_hdr *h = base;
	struct st_pr_cap *cap = base + sizeof(*h);
	u32 crc = pr_crc_skip8(cap, sizeof(*cap));

	/* The per-CPU table, then the sources' table after it. */
	cap->cap_crc = crc32_le(crc, (const u8 *)base + h->table_off,
				(size_t)h->nr_cpus * sizeof(struct st_pr_cpu) +
				ST_PR_SRCS * sizeof(struct st_pr_src));
}

/* Parse @x's region as at the next boot; expect @err and no change. */
static void pr_expect_refused(struct kunit *test, struct pr_ctx *x, size_t size,
			      u64 phys, u64 boot_id, u64 now, int err)
{
	struct snaptrace_persist_last *last;

	memcpy(x->copy, x->p.base, PR_SIZE);
	last = snaptrace_persist_parse(x->p.base, size, phys, boot_id, now);
	KUNIT_EXPECT_TRUE(test, IS_ERR(last));
	if (IS_ERR(last))
		KUNIT_EXPECT_EQ(test, PTR_ERR(last), err);
	else
		snaptrace_persist_last_free(last);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, x->copy, PR_SIZE),
			      "the refused region changed");
}

static void persist_refuses_bad_magic(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);
	struct st_pr_hdr *h = x->p.base;

	h->magic ^= 1;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ENOMSG);
}

/* Version 4's row of the sources' table: no len, no fmt; 64 bytes. */
struct pr_src_v4 {
	u32 name_crc;
	u32 flags;
	u64 entries;
	char name[ST_PR_SRC_NAME];
};

static_assert(sizeof(struct pr_src_v4) == 64);

/*
 * @x's capture rewritten as version 4 wrote it: its sources' rows 64
 * bytes (their CRC of the boot id, the row, the name), the entries moved
 * to version 4's data_off, every CRC right for that layout.
 */
static void pr_make_v4(struct kunit *test, struct pr_ctx *x)
{
	struct st_pr_hdr *h = x->p.base;
	struct st_pr_cap *cap = x->p.base + sizeof(*h);
	struct st_pr_src *rows = x->p.base + h->table_off +
				 (size_t)h->nr_cpus * sizeof(struct st_pr_cpu);
	struct pr_src_v4 v4[ST_PR_SRCS] = {};
	u64 data_off;
	u32 s, crc;

	for (s = 0; s < ST_PR_SRCS; s++) {
		v4[s].flags = rows[s].flags;
		v4[s].entries = rows[s].entries;
		memcpy(v4[s].name, rows[s].name, sizeof(v4[s].name));
		crc = crc32_le(~0, (const u8 *)&h->boot_id, sizeof(h->boot_id));
		crc = crc32_le(crc, (const u8 *)&s, sizeof(s));
		v4[s].name_crc = rows[s].name[0] ?
			crc32_le(crc, (const u8 *)v4[s].name, sizeof(v4[s].name)) : 0;
	}
	data_off = ALIGN((u64)((u8 *)rows - (u8 *)x->p.base) + sizeof(v4), 64);
	KUNIT_ASSERT_LT(test, data_off, h->data_off);
	memmove(x->p.base + data_off, x->p.base + h->data_off, cap->data_bytes);
	memset(x->p.base + data_off + cap->data_bytes, 0,
	       h->data_off - data_off);
	memset(rows, 0, data_off - h->table_off -
	       (size_t)h->nr_cpus * sizeof(struct st_pr_cpu));
	memcpy(rows, v4, sizeof(v4));
	h->data_off = data_off;
	h->version = 4;
	pr_reseal_hdr(h);
	cap->cap_crc = crc32_le(pr_crc_skip8(cap, sizeof(*cap)),
				(const u8 *)x->p.base + h->table_off,
				(size_t)h->nr_cpus * sizeof(struct st_pr_cpu) +
				sizeof(v4));
}

/*
 * A capture of another format version, newer or older (version 4's rows
 * had no length nor format for the remotes' traces: its layout, made
 * here, is not this one's), is refused, and not changed.
 */
static void persist_refuses_other_version(struct kunit *test)
{
	struct pr_ctx *x;
	struct st_pr_hdr *h;

	x = st_pr_captured(test);
	h = x->p.base;
	h->version = ST_PR_VERSION + 1;
	pr_reseal_hdr(h);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW,
			  -EPROTONOSUPPORT);

	x = st_pr_captured(test);
	pr_make_v4(test, x);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW,
			  -EPROTONOSUPPORT);
}

static void persist_refuses_bad_header_crc(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);
	struct st_pr_hdr *h = x->p.base;

	h->armed_real_ns++;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -EBADMSG);
}

/*
 * Geometries that overflow or do not fit, each with a right CRC; and a
 * capture's length past the region's end, its geometry right: the load
 * tells them apart (snaptrace_persist_geometry_ok(): it used to say "armed
 * with persist_size=" of the region's own size for the latter).
 */
static void persist_refuses_bad_geometry(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);
	struct st_pr_hdr *h = x->p.base, saved = *h;
	struct st_pr_cap *cap = x->p.base + sizeof(*h);
	u64 bytes = cap->data_bytes;

	KUNIT_EXPECT_TRUE(test, snaptrace_persist_geometry_ok(h, PR_SIZE));
	h->nr_cpus = U32_MAX;
	pr_reseal_hdr(h);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ERANGE);
	KUNIT_EXPECT_FALSE(test, snaptrace_persist_geometry_ok(h, PR_SIZE));
	*h = saved;
	h->table_off += ST_PR_ALIGN;
	pr_reseal_hdr(h);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ERANGE);
	KUNIT_EXPECT_FALSE(test, snaptrace_persist_geometry_ok(h, PR_SIZE));
	*h = saved;
	h->data_off = U64_MAX - 7;
	pr_reseal_hdr(h);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ERANGE);
	KUNIT_EXPECT_FALSE(test, snaptrace_persist_geometry_ok(h, PR_SIZE));
	*h = saved;
	h->size = U64_MAX;
	pr_reseal_hdr(h);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ERANGE);
	KUNIT_EXPECT_FALSE(test, snaptrace_persist_geometry_ok(h, PR_SIZE));
	*h = saved;
	cap->data_bytes = U64_MAX - h->data_off + 1;
	pr_reseal_cap(x->p.base);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ERANGE);
	KUNIT_EXPECT_TRUE(test, snaptrace_persist_geometry_ok(h, PR_SIZE));
	cap->data_bytes = PR_SIZE - h->data_off + 8;
	pr_reseal_cap(x->p.base);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ERANGE);
	KUNIT_EXPECT_TRUE(test, snaptrace_persist_geometry_ok(h, PR_SIZE));
	cap->data_bytes = bytes;
	pr_reseal_cap(x->p.base);
	KUNIT_EXPECT_FALSE(test, IS_ERR(st_pr_parse(test, x)));
}

/* A region cut short: its header's size is not the region's. */
static void persist_refuses_truncated_region(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);
	struct st_pr_hdr *h = x->p.base;
	struct st_pr_cap *cap = x->p.base + sizeof(*h);

	pr_expect_refused(test, x, PR_SIZE - 8, PR_PHYS, PR_BOOT + 1, PR_NOW, -ERANGE);
	KUNIT_EXPECT_FALSE(test, snaptrace_persist_geometry_ok(h, PR_SIZE - 8));
	pr_expect_refused(test, x, h->data_off + cap->data_bytes - 1, PR_PHYS,
			  PR_BOOT + 1, PR_NOW, -ERANGE);
	pr_expect_refused(test, x, sizeof(*h), PR_PHYS, PR_BOOT + 1, PR_NOW, -ENOSPC);
}

static void persist_refuses_other_address(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);

	pr_expect_refused(test, x, PR_SIZE, PR_PHYS + PAGE_SIZE, PR_BOOT + 1,
			  PR_NOW, -EXDEV);
}

static void persist_refuses_same_boot(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);

	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT, PR_NOW, -EALREADY);
}

/* A capture's wall-clock time, for the doubtful-time cases: 5 s. */
#define PR_CAP_NS	5000000000ULL

/* Parse @x's region as at the next boot, at wall-clock time @now. */
static struct snaptrace_persist_last *pr_parse_at(struct kunit *test,
						  struct pr_ctx *x, u64 now)
{
	struct snaptrace_persist_last *last;

	last = snaptrace_persist_parse(x->p.base, x->p.size, PR_PHYS, PR_BOOT + 1,
				       now);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_pr_last_free, last), 0);
	return last;
}

/* last_boot/info's lines on the wall clock, for @last. */
static char *pr_times_info(struct kunit *test,
			   const struct snaptrace_persist_last *last)
{
	struct seq_file *m = st_pr_seq(test);

	snaptrace_persist_times_show(m, last, 0);
	return st_pr_seq_take(test, m);
}

/*
 * info says how long before this boot began the capture was taken (a
 * region from two boots ago, when the boot between did not load the
 * module, passes every check: this line tells), or that this boot took
 * it, by an earlier load.
 */
static void persist_times_since_boot(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last;
	struct seq_file *m = st_pr_seq(test);

	cap->real_ns = PR_CAP_NS;
	pr_reseal_cap(x->p.base);
	last = pr_parse_at(test, x, PR_CAP_NS + 100ULL * NSEC_PER_SEC);
	snaptrace_persist_times_show(m, last, PR_CAP_NS + 37ULL * NSEC_PER_SEC + 1);
	KUNIT_EXPECT_STREQ(test, st_pr_seq_take(test, m),
			   "armed: 1970-01-01 00:00:00 UTC (0.000001000)\ncaptured: 1970-01-01 00:00:05 UTC (5.000000000)\ncaptured before this boot began: 37 s\n");
	snaptrace_persist_times_show(m, last, PR_CAP_NS - 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_STREQ(test, st_pr_seq_take(test, m),
			   "armed: 1970-01-01 00:00:00 UTC (0.000001000)\ncaptured: 1970-01-01 00:00:05 UTC (5.000000000)\ncaptured after this boot began (2 s after): by an earlier load of this boot, or the clocks disagree\n");
	/* The times as dates (UTC), the seconds since the epoch kept. */
	last->hdr.armed_real_ns = 1796241581956795362ULL;
	last->cap.real_ns = 1796241585137924958ULL;
	KUNIT_EXPECT_STREQ(test, pr_times_info(test, last),
			   "armed: 2026-12-02 19:59:41 UTC (1796241581.956795362)\ncaptured: 2026-12-02 19:59:45 UTC (1796241585.137924958)\n");
}

/*
 * A capture whose wall-clock time is not between its arming and this
 * load's (a clock that went back: no battery-backed clock) is shown all
 * the same, every record of it, its time said to be doubtful, and on which
 * side; at either end of the range it is not doubtful (it used to be
 * refused, -ESTALE, and kept unarmed: on such a machine, every boot).
 */
static void persist_doubtful_time_shown(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last;

	st_pr_expect_snapshot(test, x);
	cap->real_ns = PR_CAP_NS;
	pr_reseal_cap(x->p.base);
	last = pr_parse_at(test, x, PR_CAP_NS);
	KUNIT_EXPECT_FALSE(test, last->time_doubtful);
	KUNIT_EXPECT_STREQ(test, pr_times_info(test, last),
			   "armed: 1970-01-01 00:00:00 UTC (0.000001000)\ncaptured: 1970-01-01 00:00:05 UTC (5.000000000)\n");

	/* Captured after this load's time: this boot's clock is behind. */
	last = pr_parse_at(test, x, PR_CAP_NS - 1);
	KUNIT_EXPECT_TRUE(test, last->time_doubtful);
	KUNIT_EXPECT_FALSE(test, last->unfinished);
	st_pr_expect_cap(test, x, last, last->cap.cpu);
	KUNIT_EXPECT_EQ(test, last->cap.real_ns, PR_CAP_NS);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	st_pr_expect_same(test, x, last, -1, -1);
	KUNIT_EXPECT_STREQ(test, pr_times_info(test, last),
			   "armed: 1970-01-01 00:00:00 UTC (0.000001000)\ncaptured: 1970-01-01 00:00:05 UTC (5.000000000)\ntime: doubtful: the capture's wall-clock time is after this load's (this boot's clock is behind the previous boot's: no battery-backed clock, or not set yet)\n");

	/* Captured at its arming's time: not doubtful. */
	cap->real_ns = PR_ARMED_NS;
	pr_reseal_cap(x->p.base);
	last = pr_parse_at(test, x, PR_NOW);
	KUNIT_EXPECT_FALSE(test, last->time_doubtful);

	/* Captured before its arming: the previous boot's clock went back. */
	cap->real_ns = PR_ARMED_NS - 1;
	pr_reseal_cap(x->p.base);
	last = pr_parse_at(test, x, PR_NOW);
	KUNIT_EXPECT_TRUE(test, last->time_doubtful);
	st_pr_expect_cap(test, x, last, last->cap.cpu);
	st_pr_expect_same(test, x, last, -1, -1);
	KUNIT_EXPECT_STREQ(test, pr_times_info(test, last),
			   "armed: 1970-01-01 00:00:00 UTC (0.000001000)\ncaptured: 1970-01-01 00:00:00 UTC (0.000000999)\ntime: doubtful: the capture's wall-clock time is before its arming (the previous boot's clock went back)\n");
}

/* Armed and never captured, or a capture that did not finish. */
static void persist_refuses_no_capture(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);

	x->copy = st_pr_vzalloc(test, PR_SIZE);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ENODATA);
	/*
	 * Not a state (version 1's capturing) on a finished capture: its
	 * CRC is right, only the state word is damaged: kept as damaged (it
	 * used to be armed over as "no capture"). With the CRC wrong too,
	 * nothing tells it from garbage: no capture.
	 */
	x = st_pr_captured(test);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	cap->state = 0x50414343;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -EBADMSG);
	cap->entries++;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ENODATA);
}

/*
 * A capture that stops midway (its CPU stopped by a panic: here after 5
 * entries), in a region whose data area still holds an older capture's
 * entries: the state names the capturing CPU, and the next load shows it
 * as unfinished, with its reason and message and exactly the 5 records
 * it wrote, none of the older capture's (it used to say "no capture").
 */
static void persist_unfinished_capture_shown(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last;
	const struct st_pr_ent *e;
	unsigned int i;
	int cpu;

	st_pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"older", false), 0);
	x->p.boot_id = PR_BOOT + 2;
	KUNIT_ASSERT_EQ(test, snaptrace_persist_arm(&x->p, PR_ARMED_NS), 0);
	st_pr_write(test, x);
	x->p.stop_after = 5;
	cpu = get_cpu();
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), -EINTR);
	put_cpu();
	KUNIT_EXPECT_EQ(test, cap->state, ST_PR_CAPTURING | cpu);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_OOPS,
							"again", false), -EBUSY);
	st_pr_expect_snapshot(test, x);
	KUNIT_ASSERT_GE(test, x->nr, 5);
	last = st_pr_parse(test, x);
	KUNIT_EXPECT_TRUE(test, last->unfinished);
	KUNIT_EXPECT_EQ(test, last->hdr.boot_id, PR_BOOT + 2);
	KUNIT_EXPECT_EQ(test, last->cap.cpu, cpu);
	KUNIT_EXPECT_EQ(test, last->cap.reason, (u32)ST_PR_TEST);
	KUNIT_EXPECT_STREQ(test, last->cap.msg, "test capture");
	KUNIT_EXPECT_EQ(test, last->kept, 5);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	KUNIT_EXPECT_EQ(test, last->per_cpu[x->recs[0].cpu].entries, 5);
	for (i = 0; i < 5; i++) {
		const struct snaptrace_record *r = &x->recs[i];

		KUNIT_ASSERT_EQ(test, r->cpu, x->recs[0].cpu);
		e = st_pr_find(last, r->cpu, i);
		KUNIT_ASSERT_NOT_NULL_MSG(test, e, "seq %u missing", i);
		KUNIT_EXPECT_EQ(test, e->ts, r->ts);
		KUNIT_EXPECT_EQ(test, e->pos, r->pos);
		KUNIT_ASSERT_EQ(test, e->len, r->len);
		KUNIT_EXPECT_MEMEQ(test, e->data, r->data, r->len);
	}
}

/* An unfinished capture whose preamble is damaged: refused, its own error. */
static void persist_unfinished_damaged_refused(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);

	x->copy = st_pr_vzalloc(test, PR_SIZE);
	st_pr_write(test, x);
	x->p.stop_after = 5;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), -EINTR);
	cap->msg[0] ^= 1;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -EINPROGRESS);
	cap->msg[0] ^= 1;
	cap->state = ST_PR_CAPTURING | x->p.nr_cpus;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -EINPROGRESS);
}

static void persist_refuses_bad_capture_crc(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);
	struct st_pr_hdr *h = x->p.base;
	struct st_pr_cpu *table = x->p.base + h->table_off;
	struct st_pr_cap *cap = x->p.base + sizeof(*h);

	table[0].entries++;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -EBADMSG);
	table[0].entries--;
	cap->msg[0] ^= 1;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -EBADMSG);
}

/*
 * Random bytes of every length up to past the headers: refused as too
 * small or not ours; with our magic and version, for a bad header CRC.
 * Never a crash, never a read outside the region (KASAN watches).
 */
static void persist_refuses_garbage(struct kunit *test)
{
	size_t min = sizeof(struct st_pr_hdr) + sizeof(struct st_pr_cap);
	struct snaptrace_persist_last *last;
	size_t len;
	u8 *g;

	for (len = 0; len <= min + 512; len++) {
		g = kmalloc(len ? len : 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, g);
		get_random_bytes(g, len);
		last = snaptrace_persist_parse(g, len, PR_PHYS, PR_BOOT, PR_NOW);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(last),
				    len < min ? -ENOSPC : -ENOMSG, "length %zu", len);
		if (len >= min) {
			struct st_pr_hdr *h = (void *)g;

			h->magic = ST_PR_MAGIC;
			h->version = ST_PR_VERSION;
			last = snaptrace_persist_parse(g, len, PR_PHYS, PR_BOOT, PR_NOW);
			KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(last), -EBADMSG,
					    "length %zu", len);
		}
		kfree(g);
	}
}

/* ---- what a load does with a refused region ---- */

/*
 * As the next load: take @x's region (boot id PR_BOOT + 1). Kept: the
 * refusal @err is returned, nothing changed, not armed (a capture is
 * refused); unless @discard, or @err does not keep it: armed over it,
 * and a capture is taken.
 */
static void pr_expect_take(struct kunit *test, struct pr_ctx *x, int err,
			   bool keeps)
{
	struct snaptrace_persist_last *last = ERR_PTR(-EFAULT);
	int found = 1;

	x->p.boot_id = PR_BOOT + 1;
	if (!x->copy)
		x->copy = st_pr_vzalloc(test, PR_SIZE);
	memcpy(x->copy, x->p.base, PR_SIZE);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_keeps(err), keeps);
	if (keeps) {
		KUNIT_EXPECT_EQ(test, snaptrace_persist_take(&x->p, PR_NOW, false,
							     &last, &found), err);
		KUNIT_EXPECT_EQ(test, found, err);
		KUNIT_EXPECT_NULL(test, last);
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, x->copy, PR_SIZE),
				      "the region changed");
		KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf,
								ST_PR_TEST, "x", false),
				-EBUSY);
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, x->copy, PR_SIZE),
				      "the region changed");
	}
	found = 1;
	last = ERR_PTR(-EFAULT);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_take(&x->p, PR_NOW, keeps, &last,
						     &found), 0);
	KUNIT_EXPECT_EQ(test, found, err);
	KUNIT_EXPECT_NULL(test, last);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_arm(&x->p, PR_NOW), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"x", false), 0);
}

/*
 * A region that may hold evidence is kept as found, not armed, until
 * released (persist_discard or last_boot/release): another version's
 * capture, a damaged one, one armed with another size, an unfinished one
 * whose preamble is damaged (every refusal used to be armed over).
 */
static void persist_kept_refusals_not_armed(struct kunit *test)
{
	struct pr_ctx *x;
	struct st_pr_hdr *h;
	struct st_pr_cap *cap;
	struct st_pr_cpu *table;

	x = st_pr_captured(test);
	h = x->p.base;
	h->version = ST_PR_VERSION + 1;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -EPROTONOSUPPORT, true);

	/* Version 4's real layout: the version that wrote it reads it. */
	x = st_pr_captured(test);
	pr_make_v4(test, x);
	pr_expect_take(test, x, -EPROTONOSUPPORT, true);

	x = st_pr_captured(test);
	h = x->p.base;
	table = x->p.base + h->table_off;
	table[0].entries++;
	pr_expect_take(test, x, -EBADMSG, true);

	x = st_pr_captured(test);
	h = x->p.base;
	h->size = PR_SIZE * 2;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -ERANGE, true);

	/* A finished capture whose state word alone is damaged. */
	x = st_pr_captured(test);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	cap->state ^= BIT(20);
	pr_expect_take(test, x, -EBADMSG, true);
	/* Its CRC wrong too: nothing to tell it from garbage, armed over. */
	x = st_pr_captured(test);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	cap->state ^= BIT(20);
	cap->entries++;
	pr_expect_take(test, x, -ENODATA, false);

	x = st_pr_setup(test, PR_SIZE);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	st_pr_write(test, x);
	x->p.stop_after = 5;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), -EINTR);
	x->p.stop_after = 0;
	cap->msg[0] ^= 1;
	pr_expect_take(test, x, -EINPROGRESS, true);
}

/*
 * An unfinished capture whose state word alone is damaged (no longer
 * capturing, nor any state): its preamble, sealed by its own CRC, says a
 * capture began; refused as damaged, and kept (it used to be armed over as
 * "no capture"). With its preamble damaged too, or on a region armed and
 * never captured, nothing tells it from garbage: no capture, armed over.
 */
static void persist_unfinished_state_damaged_kept(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);

	x->copy = st_pr_vzalloc(test, PR_SIZE);
	st_pr_write(test, x);
	x->p.stop_after = 5;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), -EINTR);
	x->p.stop_after = 0;
	cap->state ^= BIT(20);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -EBADMSG);
	cap->state = 0;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -EBADMSG);
	pr_expect_take(test, x, -EBADMSG, true);

	/* Its preamble damaged too: no capture. */
	x = st_pr_setup(test, PR_SIZE);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	x->copy = st_pr_vzalloc(test, PR_SIZE);
	st_pr_write(test, x);
	x->p.stop_after = 5;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), -EINTR);
	x->p.stop_after = 0;
	cap->state ^= BIT(20);
	cap->msg[0] ^= 1;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ENODATA);
	pr_expect_take(test, x, -ENODATA, false);

	/* Armed, never captured, its state word damaged: no capture. */
	x = st_pr_setup(test, PR_SIZE);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	cap->state ^= BIT(20);
	pr_expect_take(test, x, -ENODATA, false);
}

/*
 * A capture whose time is doubtful, on either side of the range, is taken
 * out and shown, and the region armed for this load, as after any capture
 * (it used to be refused, -ESTALE, and kept unarmed until released).
 */
static void persist_doubtful_time_armed(struct kunit *test)
{
	struct snaptrace_persist_last *last;
	struct st_pr_hdr *h;
	struct st_pr_cap *cap;
	struct pr_ctx *x;
	int side, found;
	u64 now;

	for (side = 0; side < 2; side++) {
		x = st_pr_captured(test);
		h = x->p.base;
		cap = x->p.base + sizeof(*h);
		if (side) {
			/* Captured before its arming. */
			cap->real_ns = PR_ARMED_NS - 1;
			pr_reseal_cap(x->p.base);
			now = PR_NOW;
		} else {
			/* Captured after this load's time. */
			now = cap->real_ns - 1;
		}
		x->p.boot_id = PR_BOOT + 1;
		last = ERR_PTR(-EFAULT);
		found = 1;
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_persist_take(&x->p, now, false,
								 &last, &found),
				    0, "side %d", side);
		KUNIT_EXPECT_EQ_MSG(test, found, 0, "side %d", side);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_pr_last_free,
								last), 0);
		KUNIT_EXPECT_TRUE_MSG(test, last->time_doubtful, "side %d", side);
		KUNIT_EXPECT_FALSE(test, last->unfinished);
		KUNIT_EXPECT_EQ(test, last->hdr.boot_id, PR_BOOT);
		KUNIT_EXPECT_EQ(test, last->kept, (u64)num_online_cpus() * PR_PER_CPU);
		KUNIT_EXPECT_EQ(test, last->corrupt, 0);
		/* Armed for this load, and a capture is taken. */
		KUNIT_EXPECT_EQ(test, snaptrace_persist_arm(&x->p, now), 0);
		KUNIT_EXPECT_EQ(test, h->boot_id, PR_BOOT + 1);
		KUNIT_EXPECT_EQ(test, h->armed_real_ns, now);
		KUNIT_EXPECT_EQ(test, cap->state, ST_PR_ARMED);
		KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf,
								ST_PR_TEST, "x", false),
				0);
		KUNIT_EXPECT_EQ(test, cap->state, ST_PR_CAPTURED);
	}
}

/*
 * An unfinished capture whose preamble is damaged, on CPU @cpu, discarded
 * (persist_discard=1): the state word as found, which the log names the
 * capturing CPU from, is kept before the region is armed over; the
 * region's own says armed by then (the log used to read it there, and
 * named CPU 21057, ST_PR_ARMED's low bits).
 */
static void persist_discard_keeps_found_state(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last = ERR_PTR(-EFAULT);
	int cpu, found = 1;

	st_pr_write(test, x);
	x->p.stop_after = 5;
	cpu = get_cpu();
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), -EINTR);
	put_cpu();
	x->p.stop_after = 0;
	cap->msg[0] ^= 1;
	x->p.boot_id = PR_BOOT + 1;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_take(&x->p, PR_NOW, false, &last,
						     &found), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, x->p.found_state, ST_PR_CAPTURING | cpu);
	KUNIT_EXPECT_EQ(test, cap->state, ST_PR_CAPTURING | cpu);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_take(&x->p, PR_NOW, true, &last,
						     &found), 0);
	KUNIT_EXPECT_EQ(test, found, -EINPROGRESS);
	KUNIT_EXPECT_NULL(test, last);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_arm(&x->p, PR_NOW), 0);
	KUNIT_EXPECT_EQ(test, cap->state, ST_PR_ARMED);
	KUNIT_EXPECT_EQ(test, x->p.found_state, ST_PR_CAPTURING | cpu);
	KUNIT_EXPECT_EQ(test, ST_PR_CAPTURING_CPU(x->p.found_state), (u32)cpu);
}

/*
 * A region with nothing to lose is armed over at once: not ours, armed
 * and never captured, armed for another address, this load's own. A
 * capture is taken out, then the region armed.
 */
static void persist_other_refusals_armed_over(struct kunit *test)
{
	struct snaptrace_persist_last *last = NULL;
	struct pr_ctx *x;
	struct st_pr_hdr *h;
	int found = 1;

	x = st_pr_captured(test);
	h = x->p.base;
	h->magic ^= 1;
	pr_expect_take(test, x, -ENOMSG, false);

	x = st_pr_setup(test, PR_SIZE);
	pr_expect_take(test, x, -ENODATA, false);

	/* Armed by another version, never captured: nothing to keep. */
	x = st_pr_setup(test, PR_SIZE);
	h = x->p.base;
	h->version = ST_PR_VERSION - 1;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -ENODATA, false);

	/* Armed with another size, never captured: nothing to keep. */
	x = st_pr_setup(test, PR_SIZE);
	h = x->p.base;
	h->size = PR_SIZE * 2;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -ENODATA, false);

	x = st_pr_captured(test);
	h = x->p.base;
	h->phys += PAGE_SIZE;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -EXDEV, false);

	x = st_pr_captured(test);
	h = x->p.base;
	h->boot_id = PR_BOOT + 1;
	pr_reseal_hdr(h);
	((struct st_pr_cap *)(x->p.base + sizeof(*h)))->boot_id = PR_BOOT + 1;
	pr_reseal_cap(x->p.base);
	pr_expect_take(test, x, -EALREADY, false);

	x = st_pr_captured(test);
	x->p.boot_id = PR_BOOT + 1;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_take(&x->p, PR_NOW, false, &last,
						     &found), 0);
	KUNIT_EXPECT_EQ(test, found, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
	KUNIT_EXPECT_EQ(test, last->hdr.boot_id, PR_BOOT);
	KUNIT_EXPECT_EQ(test, last->kept, (u64)num_online_cpus() * PR_PER_CPU);
	snaptrace_persist_last_free(last);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_arm(&x->p, PR_NOW), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"x", false), 0);
}

/*
 * Taking a capture out writes nothing: the load arms the region last,
 * once nothing that follows can fail. A load that fails after the take
 * (its die notifier not registered, a later step of module init) leaves
 * the capture in the region, and the next load takes it again (take()
 * used to arm at once: the next load found the region armed, never
 * captured, and the capture was lost). Before the arming a capture is
 * refused, the region unchanged: its boot id is not this load's.
 */
static void persist_take_writes_nothing(struct kunit *test)
{
	struct snaptrace_persist_last *last = NULL;
	struct pr_ctx *x = st_pr_captured(test);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	int found = 1, load;

	memcpy(x->copy, x->p.base, PR_SIZE);
	for (load = 1; load <= 2; load++) {
		x->p.boot_id = PR_BOOT + load;
		KUNIT_EXPECT_EQ(test, snaptrace_persist_take(&x->p, PR_NOW, false,
							     &last, &found), 0);
		KUNIT_EXPECT_EQ(test, found, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
		KUNIT_EXPECT_EQ(test, last->hdr.boot_id, PR_BOOT);
		KUNIT_EXPECT_EQ(test, last->kept,
				(u64)num_online_cpus() * PR_PER_CPU);
		snaptrace_persist_last_free(last);
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, x->copy, PR_SIZE),
				      "load %d: the region changed", load);
		KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf,
								ST_PR_TEST, "x",
								false),
				-EBUSY);
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, x->copy, PR_SIZE),
				      "load %d: the region changed", load);
	}
	/* The load that does not fail arms it: a capture is taken. */
	KUNIT_EXPECT_EQ(test, snaptrace_persist_arm(&x->p, PR_NOW), 0);
	KUNIT_EXPECT_EQ(test, cap->state, ST_PR_ARMED);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"x", false), 0);
	KUNIT_EXPECT_EQ(test, cap->state, ST_PR_CAPTURED);
}

static struct kunit_case snaptrace_persist_parse_cases[] = {
	KUNIT_CASE(persist_refuses_bad_magic),
	KUNIT_CASE(persist_refuses_other_version),
	KUNIT_CASE(persist_refuses_bad_header_crc),
	KUNIT_CASE(persist_refuses_bad_geometry),
	KUNIT_CASE(persist_refuses_truncated_region),
	KUNIT_CASE(persist_refuses_other_address),
	KUNIT_CASE(persist_refuses_same_boot),
	KUNIT_CASE(persist_times_since_boot),
	KUNIT_CASE(persist_doubtful_time_shown),
	KUNIT_CASE(persist_refuses_no_capture),
	KUNIT_CASE(persist_unfinished_capture_shown),
	KUNIT_CASE(persist_unfinished_damaged_refused),
	KUNIT_CASE(persist_unfinished_state_damaged_kept),
	KUNIT_CASE(persist_kept_refusals_not_armed),
	KUNIT_CASE(persist_doubtful_time_armed),
	KUNIT_CASE(persist_discard_keeps_found_state),
	KUNIT_CASE(persist_other_refusals_armed_over),
	KUNIT_CASE(persist_take_writes_nothing),
	KUNIT_CASE(persist_refuses_bad_capture_crc),
	KUNIT_CASE(persist_refuses_garbage),
	{}
};

static struct kunit_suite snaptrace_persist_parse_suite = {
	.name = "snaptrace_persist_parse",
	.test_cases = snaptrace_persist_parse_cases,
};

kunit_test_suites(&snaptrace_persist_parse_suite);
