// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the persistent capture (Documentation/persist.rst):
 * snaptrace_snapshot_walk() (src/ring_read.c), the capture's read of the
 * snapshot, against live writers and snapshots taken during the walk; and
 * the region's CRC, the same function as crc32_le() (src/persist_layout.c).
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

/* ---- snaptrace_snapshot_walk() ---- */

#define PR_W_SNAP	3	/* records in the snapshot walked */
#define PR_W_LEN	32
#define PR_W_LIVE	100	/* seq of the first record a callback writes */
#define PR_W_GUARD	64	/* calls after which a callback ends the walk */

enum pr_walk_mode {
	PR_W_QUIET,		/* the callback writes nothing */
	PR_W_WRITE,		/* one live record per call */
	PR_W_SNAP_THEN_5,	/* a snapshot at the first call, then 5 records */
	PR_W_SNAP_EACH,		/* a snapshot at the first call, a record per call */
};

struct pr_walk {
	struct snaptrace_buffer *buf;
	enum pr_walk_mode mode;
	u8 scratch[PR_W_LEN];
	u32 live;		/* seq of the next live record */
	int write_err;		/* the first write or snapshot that failed */
	unsigned int calls;
	u32 seq[PR_W_GUARD];
	bool bad;		/* a record that is not self-checking */
};

static void pr_walk_write(struct pr_walk *w, int cpu)
{
	int rc;

	st_payload_fill(w->scratch, PR_W_LEN, ST_MAGIC, cpu, w->live++);
	rc = snaptrace_write(w->buf, w->scratch, PR_W_LEN);
	if (rc && !w->write_err)
		w->write_err = rc;
}

static int pr_walk_fn(void *arg, const struct snaptrace_record *rec)
{
	struct pr_walk *w = arg;
	int cpu = smp_processor_id(), i, rc;
	struct st_hdr h;

	if (w->calls == PR_W_GUARD)
		return -E2BIG;
	if (st_payload_ok(rec, &h) && h.cpu == cpu)
		w->seq[w->calls] = h.seq;
	else
		w->bad = true;
	if (!w->calls++ && (w->mode == PR_W_SNAP_THEN_5 ||
			    w->mode == PR_W_SNAP_EACH)) {
		rc = snaptrace_snapshot(w->buf);
		if (rc && !w->write_err)
			w->write_err = rc;
		for (i = 0; w->mode == PR_W_SNAP_THEN_5 && i < 5; i++)
			pr_walk_write(w, cpu);
	}
	if (w->mode == PR_W_WRITE || w->mode == PR_W_SNAP_EACH)
		pr_walk_write(w, cpu);
	return 0;
}

/*
 * On one CPU, preemption off throughout: PR_W_SNAP records (seq 0..),
 * @snap snapshots, then a walk of that CPU's snapshot with @mode's
 * callback. Returns the walk's return.
 */
static int pr_walk_run(struct kunit *test, struct pr_walk *w,
		       enum pr_walk_mode mode, unsigned int snap, bool clear,
		       bool *open)
{
	struct snaptrace_record *rec = st_rec_new(test);
	int cpu, ret, i;

	w->buf = st_buf_new(test, SNAPTRACE_MIN_SIZE, SNAPTRACE_OVERWRITE);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(w->buf), 0);
	w->mode = mode;
	w->live = PR_W_LIVE;
	cpu = get_cpu();
	for (i = 0; i < PR_W_SNAP; i++) {
		st_payload_fill(w->scratch, PR_W_LEN, ST_MAGIC, cpu, i);
		if (snaptrace_write(w->buf, w->scratch, PR_W_LEN) && !w->write_err)
			w->write_err = -EIO;
	}
	for (i = 0; i < snap; i++)
		if (snaptrace_snapshot(w->buf) && !w->write_err)
			w->write_err = -EIO;
	if (clear && snaptrace_clear_snapshot(w->buf) && !w->write_err)
		w->write_err = -EIO;
	ret = snaptrace_snapshot_walk(w->buf, cpu, rec, pr_walk_fn, w, open,
				      NULL);
	put_cpu();
	KUNIT_ASSERT_EQ(test, w->write_err, 0);
	KUNIT_EXPECT_FALSE(test, w->bad);
	return ret;
}

/* A walk gives exactly the snapshot's records, whatever is written live. */
static void persist_walk_ignores_live_writes(struct kunit *test)
{
	struct pr_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned int i;
	bool open;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, pr_walk_run(test, w, PR_W_WRITE, 1, false, &open),
			PR_W_SNAP);
	KUNIT_EXPECT_FALSE(test, open);
	KUNIT_ASSERT_EQ(test, w->calls, PR_W_SNAP);
	for (i = 0; i < PR_W_SNAP; i++)
		KUNIT_EXPECT_EQ_MSG(test, w->seq[i], i, "record %u", i);
	KUNIT_EXPECT_EQ(test, w->live, PR_W_LIVE + PR_W_SNAP);
}

/*
 * A snapshot taken during the walk (here by its callback, on the CPU
 * walked) makes the ring walked live, and a writer opens it: the walk
 * stops with -ESTALE after the one record it had, never reading the live
 * records (it used to give them: 6 records, 5 live).
 */
static void persist_walk_stops_when_snapshot_taken(struct kunit *test)
{
	struct pr_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	bool open;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, pr_walk_run(test, w, PR_W_SNAP_THEN_5, 1, false,
					  &open), -ESTALE);
	KUNIT_EXPECT_EQ(test, w->calls, 1);
	KUNIT_EXPECT_EQ(test, w->seq[0], 0);
	KUNIT_EXPECT_EQ(test, w->live, PR_W_LIVE + 5);
}

/*
 * The same with a writer that keeps pace with the walk (a record per
 * record walked): the walk ends, with -ESTALE after one record (it used
 * to never end: the guard's -E2BIG).
 */
static void persist_walk_ends_with_writer_keeping_pace(struct kunit *test)
{
	struct pr_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	bool open;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, pr_walk_run(test, w, PR_W_SNAP_EACH, 1, false,
					  &open), -ESTALE);
	KUNIT_EXPECT_EQ(test, w->calls, 1);
	KUNIT_EXPECT_EQ(test, w->seq[0], 0);
	KUNIT_EXPECT_EQ(test, w->live, PR_W_LIVE + 1);
}

/* No snapshot taken, or a cleared one: nothing is walked. */
static void persist_walk_no_snapshot_nothing(struct kunit *test)
{
	struct pr_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	bool open = true;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, pr_walk_run(test, w, PR_W_WRITE, 0, false, &open), 0);
	KUNIT_EXPECT_FALSE(test, open);
	KUNIT_EXPECT_EQ(test, w->calls, 0);
	memset(w, 0, sizeof(*w));
	open = true;
	KUNIT_EXPECT_EQ(test, pr_walk_run(test, w, PR_W_WRITE, 1, true, &open), 0);
	KUNIT_EXPECT_FALSE(test, open);
	KUNIT_EXPECT_EQ(test, w->calls, 0);
}

/*
 * The region's own CRC (NMI-safe on every kernel) is crc32_le(): the
 * check value of CRC-32, then every length of a patterned buffer from
 * three seeds, against the kernel's.
 */
static void persist_crc_is_crc32_le(struct kunit *test)
{
	static const u32 seeds[] = { ~0U, 0, 0x12345678 };
	u8 buf[300];
	unsigned int i, s;
	size_t len;

	KUNIT_EXPECT_EQ(test, ~snaptrace_persist_crc(~0U, (const u8 *)"123456789", 9),
			0xcbf43926U);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i * 167 + 13;
	for (s = 0; s < ARRAY_SIZE(seeds); s++)
		for (len = 0; len <= sizeof(buf); len++)
			KUNIT_ASSERT_EQ_MSG(test, snaptrace_persist_crc(seeds[s], buf, len),
					    crc32_le(seeds[s], buf, len),
					    "seed %#x, %zu bytes", seeds[s], len);
}

static struct kunit_case snaptrace_persist_walk_cases[] = {
	KUNIT_CASE(persist_crc_is_crc32_le),
	KUNIT_CASE(persist_walk_ignores_live_writes),
	KUNIT_CASE(persist_walk_stops_when_snapshot_taken),
	KUNIT_CASE(persist_walk_ends_with_writer_keeping_pace),
	KUNIT_CASE(persist_walk_no_snapshot_nothing),
	{}
};

static struct kunit_suite snaptrace_persist_walk_suite = {
	.name = "snaptrace_persist_walk",
	.test_cases = snaptrace_persist_walk_cases,
};

kunit_test_suites(&snaptrace_persist_walk_suite);
