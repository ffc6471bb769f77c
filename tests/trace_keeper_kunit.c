// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the keeper of a remote's trace (src/trace_keeper.c): a
 * capture and what traceN_last shows of it, byte for byte; the capture in
 * atomic context and the one in process context alike; the last trace kept
 * across a stop and restart of our own remotes; and a circular trace of
 * each convention trace_decode.c knows shown the same whichever feeder
 * captured it: our remotes' (rproc_trace.c, a trace in memory the CPU
 * reads, captured with interrupts off) or the followed remotes' (a buffer
 * of the keeper's own, captured through a read callback, as
 * rproc_follow.c does).
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/fw.h"
#include "../src/internal.h"
#include "../src/ring.h"
#include "../src/rproc.h"
#include "../src/trace_keeper.h"
#include "st_kunit.h"

/* ---- a feeder of the keeper's own: a buffer, and nothing live ---- */

struct tk_src {
	u8 *bytes;
	u32 len;
};

static int tk_read_live(struct snaptrace_keeper *k, void **buf, u32 *len)
{
	struct tk_src *s = k->priv;

	*buf = NULL;
	if (!s->bytes)
		return 0;
	*buf = kvmalloc(s->len, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	memcpy(*buf, s->bytes, s->len);
	*len = s->len;
	return 0;
}

static const struct snaptrace_keeper_ops tk_ops = {
	.read_live = tk_read_live,
};

static int tk_read(void *ctx, u32 off, void *dst, u32 n)
{
	struct tk_src *s = ctx;

	memcpy(dst, s->bytes + off, n);
	return 0;
}

static void tk_keeper_free(void *k)
{
	snaptrace_keeper_free(k);
}

static struct snaptrace_keeper *tk_new(struct kunit *test, u32 size,
				       struct tk_src *s)
{
	struct snaptrace_keeper *k;

	k = snaptrace_keeper_create(NULL, 0, size, NULL, NULL, &tk_ops, s);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(k), "create: %pe", k);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tk_keeper_free, k), 0);
	return k;
}

/* The records of @k's snapshot: how many, with @recs filled. */
static unsigned int tk_records(struct kunit *test, struct snaptrace_keeper *k,
			       struct snaptrace_record *recs, unsigned int max)
{
	int end;

	return st_collect(test, k->last, SNAPTRACE_SNAPSHOT, k->last_cpu, recs,
			  max, &end);
}

/*
 * A capture, then what the keeper holds: the head, the text and the NUL
 * that ends it (the NULs after it not copied), given back whole by
 * snaptrace_keeper_read_last() and shown decoded by traceN_last; a second
 * capture replaces the first whole.
 */
static void keeper_capture_then_read(struct kunit *test)
{
	static const char text[] = "hello\nworld\n";
	struct tk_src s = { .len = 64 };
	struct snaptrace_record *recs;
	struct snaptrace_keeper *k;
	struct dentry *dir;
	u8 *out;

	s.bytes = kunit_kzalloc(test, s.len, GFP_KERNEL);
	out = kunit_kzalloc(test, s.len, GFP_KERNEL);
	recs = kunit_kcalloc(test, 4, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, s.bytes && out && recs);
	memcpy(s.bytes, text, strlen(text));
	dir = st_debugfs_dir(test, "st_keeper_read");
	k = tk_new(test, s.len, &s);
	snaptrace_keeper_files_add(k, dir);
	KUNIT_EXPECT_FALSE(test, k->has_last);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, s.len), 0);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_read/trace0_last"), "");
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_read/trace0"), text);

	KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture(k, "r trace0: crash #1", s.bytes,
							 s.len));
	KUNIT_EXPECT_TRUE(test, k->has_last);
	KUNIT_EXPECT_EQ(test, k->last_len, 64);
	KUNIT_ASSERT_EQ(test, tk_records(test, k, recs, 4), 2);
	KUNIT_EXPECT_EQ(test, recs[0].type, SNAPTRACE_REC_MARKER);
	KUNIT_EXPECT_EQ(test, recs[0].len, 18);
	KUNIT_EXPECT_MEMEQ(test, recs[0].data, "r trace0: crash #1", 18);
	KUNIT_EXPECT_EQ(test, recs[1].type, SNAPTRACE_REC_TEXT);
	KUNIT_EXPECT_EQ(test, recs[1].len, strlen(text) + 1);
	KUNIT_EXPECT_MEMEQ(test, recs[1].data, text, strlen(text) + 1);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, s.len), 64);
	KUNIT_EXPECT_MEMEQ(test, out, s.bytes, s.len);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_read/trace0_last"),
			   text);

	/* The remote writes on; the next crash replaces the copy whole. */
	memcpy(s.bytes + strlen(text), "again", 5);
	KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture(k, "r trace0: crash #2", s.bytes,
							 s.len));
	KUNIT_ASSERT_EQ(test, tk_records(test, k, recs, 4), 2);
	KUNIT_EXPECT_MEMEQ(test, recs[0].data, "r trace0: crash #2", 18);
	KUNIT_EXPECT_EQ(test, recs[1].len, strlen(text) + 6);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_read/trace0_last"),
			   "hello\nworld\nagain\n");

	/* A crash that could not capture this trace: nothing shown. */
	snaptrace_keeper_forget(k);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, s.len), 0);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_read/trace0_last"), "");
	snaptrace_keeper_files_remove(k);
	KUNIT_EXPECT_FALSE(test, st_debugfs_has("st_keeper_read/trace0_last"));
}

/* What a capture keeps of a trace: @text bytes of @len, its ends. */
struct tk_ends_case {
	const char *desc;
	u32 len, text;
	char end;		/* the text's last byte */
	unsigned int pieces;	/* text records */
	u32 last_piece;		/* bytes of the last one */
};

static const struct tk_ends_case tk_ends_cases[] = {
	{ "empty", 4096, 0, 0, 0, 0 },
	{ "a line, then NULs", 4096, 12, '\n', 1, 13 },
	{ "no newline, then NULs", 4096, 11, 'd', 1, 12 },
	{ "a full piece, then NULs", 4096, SNAPTRACE_MAX_PAYLOAD, '\n', 1,
	  SNAPTRACE_MAX_PAYLOAD },
	{ "a full piece without a newline", 4096, SNAPTRACE_MAX_PAYLOAD, 'x', 2, 1 },
	{ "full, no NUL (circular)", 4096, 4096, '\n', 2, SNAPTRACE_MAX_PAYLOAD },
	{ "full, no NUL, no newline", 4096, 4096, 'x', 3, 1 },
	{ "a NUL inside, text after it", 4096, 3000, '\n', 2, 3001 - SNAPTRACE_MAX_PAYLOAD },
};

static void tk_ends_desc(const struct tk_ends_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tk_ends, tk_ends_cases, tk_ends_desc);

/*
 * Both captures, the atomic one (our remotes') and the one through a read
 * callback (I/O memory, followed remotes), keep the same records of the
 * same trace: the bytes up to the last one that is not a NUL, the NUL
 * after it where it fits in the last piece, or else a NUL piece of its
 * own after a text that does not end with a newline; and both give the
 * trace back the same, NULs and all.
 */
static void keeper_capture_ends(struct kunit *test)
{
	const struct tk_ends_case *c = test->param_value;
	struct snaptrace_keeper *k[2];
	struct snaptrace_record *recs;
	struct tk_src s = { .len = c->len };
	unsigned int n, i, w;
	u8 *out;

	s.bytes = kunit_kzalloc(test, s.len, GFP_KERNEL);
	out = kunit_kzalloc(test, s.len, GFP_KERNEL);
	recs = kunit_kcalloc(test, 8, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, s.bytes && out && recs);
	for (i = 0; i < c->text; i++)
		s.bytes[i] = i % 16 == 15 ? '\n' : 'a' + i % 26;
	if (c->text)
		s.bytes[c->text - 1] = c->end;
	if (c->text == 3000)
		s.bytes[1000] = 0;	/* text on both sides of a NUL */
	for (w = 0; w < 2; w++) {
		k[w] = tk_new(test, s.len, &s);
		if (w) {
			KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture_slow(k[w], "h", tk_read,
									      &s, s.len));
		} else {
			unsigned long flags;

			local_irq_save(flags);
			KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture(k[w], "h", s.bytes,
									 s.len));
			local_irq_restore(flags);
		}
		n = tk_records(test, k[w], recs, 8);
		KUNIT_ASSERT_EQ_MSG(test, n, 1 + c->pieces, "writer %u", w);
		KUNIT_EXPECT_EQ(test, recs[0].type, SNAPTRACE_REC_MARKER);
		for (i = 1; i < n; i++)
			KUNIT_EXPECT_EQ(test, recs[i].type, SNAPTRACE_REC_TEXT);
		if (c->pieces)
			KUNIT_EXPECT_EQ_MSG(test, recs[n - 1].len, c->last_piece,
					    "writer %u", w);
		memset(out, 0xff, s.len);
		KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k[w], out, s.len),
				(ssize_t)s.len);
		KUNIT_EXPECT_MEMEQ_MSG(test, out, s.bytes, s.len, "writer %u", w);
	}
}

/* Bad sizes and missing ops are refused; a trace above the size is cut. */
static void keeper_bounds(struct kunit *test)
{
	struct tk_src s = { .len = 256 };
	struct snaptrace_keeper *k;
	u8 *out;

	KUNIT_EXPECT_EQ(test, PTR_ERR(snaptrace_keeper_create(NULL, 0, 0, NULL, NULL,
							      &tk_ops, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(snaptrace_keeper_create(NULL, 0,
							      SNAPTRACE_RPROC_TRACE_MAX + 1,
							      NULL, NULL, &tk_ops, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(snaptrace_keeper_create(NULL, 0, 64, NULL, NULL,
							      NULL, NULL)), -EINVAL);
	s.bytes = kunit_kzalloc(test, s.len, GFP_KERNEL);
	out = kunit_kzalloc(test, s.len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, s.bytes && out);
	memset(s.bytes, 'z', s.len);
	k = tk_new(test, 100, &s);
	KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture(k, "h", s.bytes, s.len));
	KUNIT_EXPECT_EQ(test, k->last_len, 100);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, s.len), 100);
	KUNIT_EXPECT_MEMEQ(test, out, s.bytes, 100);
	/* The NUL piece that ends the text is not the trace's. */
	KUNIT_EXPECT_NULL(test, memchr_inv(out + 100, 0, s.len - 100));
	/* A buffer smaller than the trace: what fits. */
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, 10), 10);
}

/* Records in @k's snapshot, on every CPU. */
static unsigned int tk_count(struct kunit *test, struct snaptrace_keeper *k)
{
	struct snaptrace_record *rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	struct snaptrace_iter *iter;
	unsigned int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, rec);
	iter = snaptrace_iter_start(k->last, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS);
	KUNIT_ASSERT_FALSE(test, IS_ERR(iter));
	while (!snaptrace_iter_next(iter, rec))
		n++;
	snaptrace_iter_stop(iter);
	return n;
}

/*
 * snaptrace_keeper_resize() of a keeper of its own buffer: nothing for a
 * size no larger, -EINVAL above the largest trace, both with nothing
 * changed; a larger one: a new buffer, the last capture dropped, and the
 * persistent capture's source put back with the new buffer (one row of
 * the registry taken, as before); the larger trace is then kept whole.
 */
static void keeper_resize_puts_persist_back(struct kunit *test)
{
	struct tk_src s = { .len = 0x800 };
	struct snaptrace_buffer *old;
	struct snaptrace_keeper *k;
	unsigned int free0;
	u8 *out;

	s.bytes = kunit_kzalloc(test, s.len, GFP_KERNEL);
	out = kunit_kzalloc(test, s.len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, s.bytes && out);
	free0 = snaptrace_persist_sources_free();
	KUNIT_ASSERT_GT(test, free0, 0);
	k = snaptrace_keeper_create(NULL, 0, 0x400, NULL, "kunit-keeper/trace0_last",
				    &tk_ops, &s);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(k), "create: %pe", k);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tk_keeper_free, k), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_sources_free(), free0 - 1);
	KUNIT_EXPECT_GE(test, k->pr_src.slot, 0);
	memset(s.bytes, 'r', 0x400);
	KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture(k, "h", s.bytes, 0x400));
	old = k->last;

	KUNIT_EXPECT_EQ(test, snaptrace_keeper_resize(k, 0x400), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_resize(k, SNAPTRACE_RPROC_TRACE_MAX + 1), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, k->last, old);
	KUNIT_EXPECT_EQ(test, k->size, 0x400);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, 0x400), 0x400);
	KUNIT_EXPECT_MEMEQ(test, out, s.bytes, 0x400);

	KUNIT_EXPECT_EQ(test, snaptrace_keeper_resize(k, 0x800), 0);
	KUNIT_EXPECT_EQ(test, k->size, 0x800);
	KUNIT_EXPECT_PTR_NE(test, k->last, old);
	KUNIT_EXPECT_FALSE(test, k->has_last);
	KUNIT_EXPECT_NULL(test, k->grown);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, 0x800), 0);
	KUNIT_EXPECT_GE(test, k->pr_src.slot, 0);
	KUNIT_EXPECT_PTR_EQ(test, k->pr_src.buf, k->last);
	KUNIT_EXPECT_EQ(test, k->pr_src.cpu, k->last_cpu);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_sources_free(), free0 - 1);
	memset(s.bytes, 's', 0x800);
	KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture(k, "h", s.bytes, 0x800));
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, 0x800), 0x800);
	KUNIT_EXPECT_MEMEQ(test, out, s.bytes, 0x800);

	kunit_release_action(test, tk_keeper_free, k);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_sources_free(), free0);
}

KUNIT_DEFINE_ACTION_WRAPPER(tk_put, snaptrace_put, struct snaptrace_buffer *);

/*
 * An instance that exists with less room than the trace needs is refused
 * (-EBUSY), left as it was, its writers let in; one with room enough is
 * taken, its writers kept out (snaptrace_record_disable()) while the
 * keeper holds it, let in again once it is freed.
 */
static void keeper_instance_too_small(struct kunit *test)
{
	static const char name[] = "kunit-keeper-small";
	struct snaptrace_buffer *inst;
	struct snaptrace_keeper *k;
	size_t sz;

	inst = snaptrace_get_by_name_cpu(name, 4 * SNAPTRACE_MIN_SIZE,
					 cpumask_first(cpu_possible_mask));
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_OR_NULL(inst), "%pe", inst);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tk_put, inst), 0);
	sz = snaptrace_size_per_cpu(inst);

	k = snaptrace_keeper_create(NULL, 0, sz, name, NULL, &tk_ops, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(k), -EBUSY);
	if (!IS_ERR(k))
		snaptrace_keeper_free(k);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(inst), sz);
	KUNIT_EXPECT_EQ(test, atomic_read(&inst->record_disabled), 0);

	k = snaptrace_keeper_create(NULL, 0, SNAPTRACE_MIN_SIZE, name, NULL, &tk_ops, NULL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(k), "create: %pe", k);
	KUNIT_EXPECT_PTR_EQ(test, k->last, inst);
	KUNIT_EXPECT_TRUE(test, k->named);
	KUNIT_EXPECT_EQ(test, atomic_read(&inst->record_disabled), 1);
	snaptrace_keeper_free(k);
	KUNIT_EXPECT_EQ(test, atomic_read(&inst->record_disabled), 0);
}

/* A read op that fails for the reads that touch [@lo, @hi). */
struct tk_fail_src {
	struct tk_src s;
	u32 lo, hi;
	unsigned int calls, fails;
};

static int tk_read_failing(void *ctx, u32 off, void *dst, u32 n)
{
	struct tk_fail_src *f = ctx;

	f->calls++;
	if (off < f->hi && off + n > f->lo) {
		f->fails++;
		memset(dst, 0x5a, n);	/* what the keeper must not keep */
		return -EIO;
	}
	memcpy(dst, f->s.bytes + off, n);
	return 0;
}

/*
 * A read op that fails: its bytes are taken as NULs, by the scan for the
 * trace's end as by the copy. A full trace of 4096 bytes whose last 64
 * fail: the scan (two reads, the first failing) ends it at 4032 and keeps
 * a NUL; the copy reads [0, 2048) and [2048, 4033), which fails: the
 * capture is the first piece, then NULs, and traceN_last gives back the
 * first 2048 bytes and NULs.
 */
static void keeper_read_fails(struct kunit *test)
{
	struct tk_fail_src f = { .s.len = 4096, .lo = 4032, .hi = 4096 };
	struct snaptrace_record *recs;
	struct snaptrace_keeper *k;
	u8 *out, *want;
	unsigned int i;

	f.s.bytes = kunit_kzalloc(test, f.s.len, GFP_KERNEL);
	out = kunit_kzalloc(test, f.s.len, GFP_KERNEL);
	want = kunit_kzalloc(test, f.s.len, GFP_KERNEL);
	recs = kunit_kcalloc(test, 4, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, f.s.bytes && out && want && recs);
	for (i = 0; i < f.s.len; i++)
		f.s.bytes[i] = i % 16 == 15 ? '\n' : 'a' + i % 26;
	memcpy(want, f.s.bytes, SNAPTRACE_MAX_PAYLOAD);
	k = tk_new(test, f.s.len, &f.s);
	KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture_slow(k, "h", tk_read_failing, &f,
							      f.s.len));
	KUNIT_EXPECT_EQ(test, f.calls, 4);
	KUNIT_EXPECT_EQ(test, f.fails, 2);
	KUNIT_ASSERT_EQ(test, tk_records(test, k, recs, 4), 3);
	KUNIT_EXPECT_EQ(test, recs[1].len, SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_MEMEQ(test, recs[1].data, f.s.bytes, SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_EQ(test, recs[2].len, 4033 - SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_NULL(test, memchr_inv(recs[2].data, 0, recs[2].len));
	memset(out, 0xff, f.s.len);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, f.s.len), 4096);
	KUNIT_EXPECT_MEMEQ(test, out, want, f.s.len);
}

/*
 * A capture out of room (a buffer shrunk below the trace behind the
 * keeper's back: the keeper never makes one that small) fails and keeps
 * the previous capture: its records, its length, its bytes.
 */
static void keeper_out_of_room_keeps_last(struct kunit *test)
{
	static const char text[] = "first\n";
	struct tk_src s = { .len = 0x4000 };
	struct snaptrace_record *recs;
	struct snaptrace_keeper *k;
	unsigned long flags;
	u8 *out, *want;
	bool ok;

	s.bytes = kunit_kzalloc(test, s.len, GFP_KERNEL);
	out = kunit_kzalloc(test, s.len, GFP_KERNEL);
	want = kunit_kzalloc(test, s.len, GFP_KERNEL);
	recs = kunit_kcalloc(test, 4, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, s.bytes && out && want && recs);
	k = tk_new(test, s.len, &s);
	KUNIT_ASSERT_EQ(test, snaptrace_resize(k->last, SNAPTRACE_MIN_SIZE), 0);
	memcpy(s.bytes, text, strlen(text));
	memcpy(want, s.bytes, s.len);
	KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture(k, "h1", s.bytes, s.len));

	memset(s.bytes, 'x', s.len);
	local_irq_save(flags);
	ok = snaptrace_keeper_capture(k, "h2", s.bytes, s.len);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, ok);
	KUNIT_EXPECT_TRUE(test, k->has_last);
	KUNIT_EXPECT_EQ(test, k->last_len, 0x4000);
	KUNIT_ASSERT_EQ(test, tk_records(test, k, recs, 4), 2);
	KUNIT_EXPECT_MEMEQ(test, recs[0].data, "h1", 2);
	KUNIT_EXPECT_EQ(test, recs[1].len, strlen(text) + 1);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, s.len), 0x4000);
	KUNIT_EXPECT_MEMEQ(test, out, want, s.len);
}

static void tk_vfree(void *p)
{
	vfree(p);
}

/*
 * The largest trace a keeper takes, %SNAPTRACE_RPROC_TRACE_MAX bytes of
 * lines, full: both captures keep it whole, the atomic one with its 129
 * records reserved at once, with interrupts off; one byte more is refused.
 */
static void keeper_largest_trace(struct kunit *test)
{
	struct tk_src s = { .len = SNAPTRACE_RPROC_TRACE_MAX };
	struct snaptrace_keeper *k;
	unsigned long flags;
	unsigned int i, w;
	u8 *out;
	bool ok;

	KUNIT_EXPECT_EQ(test, PTR_ERR(snaptrace_keeper_create(NULL, 0, s.len + 1, NULL, NULL,
							      &tk_ops, NULL)), -EINVAL);
	s.bytes = vmalloc(s.len);
	KUNIT_ASSERT_NOT_NULL(test, s.bytes);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tk_vfree, s.bytes), 0);
	out = vmalloc(s.len);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tk_vfree, out), 0);
	for (i = 0; i < s.len; i++)
		s.bytes[i] = i % 64 == 63 ? '\n' : '0' + (i / 64) % 10;
	for (w = 0; w < 2; w++) {
		k = tk_new(test, s.len, &s);
		if (w) {
			ok = snaptrace_keeper_capture_slow(k, "h", tk_read, &s, s.len);
		} else {
			local_irq_save(flags);
			ok = snaptrace_keeper_capture(k, "h", s.bytes, s.len);
			local_irq_restore(flags);
		}
		KUNIT_EXPECT_TRUE_MSG(test, ok, "writer %u", w);
		KUNIT_EXPECT_EQ_MSG(test, tk_count(test, k),
				    1 + SNAPTRACE_RPROC_TRACE_MAX / SNAPTRACE_MAX_PAYLOAD,
				    "writer %u", w);
		memset(out, 0xff, s.len);
		KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, s.len), (ssize_t)s.len);
		KUNIT_EXPECT_MEMEQ_MSG(test, out, s.bytes, s.len, "writer %u", w);
	}
}

/*
 * A followed remote's keeper that grows while traceN_last opens: its
 * feeder's last_lock op grows it and captures a larger trace, between the
 * open's allocation (of the size it read once) and its read, as a crash
 * may. The open reads what fits the size it read, the first lines of the
 * new capture, exactly; the next open reads it all.
 */
struct tk_grow {
	struct tk_src s;
	u32 to;
	unsigned int locks;
};

static int tk_grow_last_lock(struct snaptrace_keeper *k)
{
	struct tk_grow *g = container_of(k->priv, struct tk_grow, s);

	if (g->locks++)
		return 0;
	if (snaptrace_keeper_stage_grow(k, g->to) ||
	    snaptrace_keeper_stage_slow(k, "grown", tk_read, &g->s, g->to))
		return -EIO;
	snaptrace_keeper_publish(k);
	snaptrace_keeper_settle(k);
	return 0;
}

static const struct snaptrace_keeper_ops tk_grow_ops = {
	.read_live = tk_read_live,
	.last_lock = tk_grow_last_lock,
};

static void keeper_last_open_while_grows(struct kunit *test)
{
	struct dentry *dir = st_debugfs_dir(test, "st_keeper_grows");
	struct tk_grow g = { .s.len = 128, .to = 128 };
	struct snaptrace_keeper *k;
	char line[17];
	unsigned int i;

	g.s.bytes = kunit_kzalloc(test, g.s.len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g.s.bytes);
	for (i = 0; i < 8; i++) {
		snprintf(line, sizeof(line), "new line %06u\n", i);
		memcpy(g.s.bytes + 16 * i, line, 16);
	}
	k = snaptrace_keeper_create(NULL, 0, 64, NULL, NULL, &tk_grow_ops, &g.s);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(k), "create: %pe", k);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tk_keeper_free, k), 0);
	snaptrace_keeper_files_add(k, dir);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_grows/trace0_last"),
			   "new line 000000\nnew line 000001\nnew line 000002\nnew line 000003\n");
	KUNIT_EXPECT_EQ(test, k->size, 128);
	KUNIT_EXPECT_EQ(test, k->last_len, 128);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_grows/trace0_last"),
			   "new line 000000\nnew line 000001\nnew line 000002\nnew line 000003\n"
			   "new line 000004\nnew line 000005\nnew line 000006\nnew line 000007\n");
	KUNIT_EXPECT_EQ(test, g.locks, 2);
	snaptrace_keeper_files_remove(k);
}

/* ---- a crash while traceN_last is read ---- */

struct tk_stale {
	struct snaptrace_keeper *k;
	struct tk_src *s;
	unsigned int nexts;	/* snaptrace_iter_next() calls on @k's buffer */
	unsigned int captures;	/* captures the hook made */
};

static struct tk_stale *tk_stale_cur;

/* At the second record of the first pass, a crash replaces the capture. */
static void tk_stale_hook(struct snaptrace_buffer *buf, enum snaptrace_test_step step,
			  int cpu)
{
	struct tk_stale *x = READ_ONCE(tk_stale_cur);

	if (!x || step != ST_STEP_ITER_NEXT || buf != x->k->last)
		return;
	if (x->nexts++ == 1 &&
	    snaptrace_keeper_capture(x->k, "r trace0: crash #2", x->s->bytes, x->s->len))
		x->captures++;
}

static void tk_stale_remove(void *unused)
{
	WRITE_ONCE(tk_stale_cur, NULL);
	WRITE_ONCE(snaptrace_test_hook, NULL);
	synchronize_rcu();
}

/*
 * A crash that replaces the capture while snaptrace_keeper_read_last()
 * reads it (the iterator goes stale, -ESTALE): the read starts again and
 * gives back the new capture whole, nothing of the old one. Its first pass
 * read the head and stopped at the second record; the second pass reads
 * the head, the text and the end.
 */
static void keeper_read_last_stale(struct kunit *test)
{
	static const char one[] = "first crash\n", two[] = "second crash, longer\n";
	struct tk_src s = { .len = 64 };
	struct tk_stale x = { .s = &s };
	u8 *out, *want;

	s.bytes = kunit_kzalloc(test, s.len, GFP_KERNEL);
	out = kunit_kzalloc(test, s.len, GFP_KERNEL);
	want = kunit_kzalloc(test, s.len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, s.bytes && out && want);
	x.k = tk_new(test, s.len, &s);
	memcpy(s.bytes, one, strlen(one));
	KUNIT_ASSERT_TRUE(test, snaptrace_keeper_capture(x.k, "r trace0: crash #1", s.bytes,
							 s.len));
	memset(s.bytes, 0, s.len);
	memcpy(s.bytes, two, strlen(two));
	memcpy(want, s.bytes, s.len);

	KUNIT_ASSERT_NULL_MSG(test, READ_ONCE(snaptrace_test_hook), "another test left its hook");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tk_stale_remove, NULL), 0);
	WRITE_ONCE(tk_stale_cur, &x);
	WRITE_ONCE(snaptrace_test_hook, tk_stale_hook);
	memset(out, 0xff, s.len);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(x.k, out, s.len), 64);
	kunit_release_action(test, tk_stale_remove, NULL);
	KUNIT_EXPECT_EQ(test, x.captures, 1);
	KUNIT_EXPECT_EQ(test, x.nexts, 2 + 3);
	KUNIT_EXPECT_MEMEQ(test, out, want, s.len);
}

/* ---- our remotes' feeder, rproc_trace.c ---- */

/* A bare remote with @len bytes of memory at 0x10000, its files in @dir. */
static struct snaptrace_rproc *tk_rproc(struct kunit *test, u32 len,
					struct dentry *dir, u8 **va)
{
	struct snaptrace_rproc *rproc = kunit_kzalloc(test, sizeof(*rproc), GFP_KERNEL);
	struct snaptrace_rproc_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, rproc && m);
	rproc->ops = &st_rproc_nop_ops;
	INIT_LIST_HEAD(&rproc->mems);
	INIT_LIST_HEAD(&rproc->traces);
	mutex_init(&rproc->lock);
	rproc->index = 7;
	rproc->dir = dir;
	strscpy(rproc->name, "keeper-kunit", sizeof(rproc->name));
	m->va = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->va);
	m->da = 0x10000;
	m->len = len;
	m->kind = "region";
	list_add_tail(&m->node, &rproc->mems);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_rproc_traces_free, rproc), 0);
	*va = m->va;
	return rproc;
}

static int tk_handle(struct snaptrace_rproc *rproc, u32 len)
{
	struct snaptrace_fw_rsc_trace rsc = { .da = 0x10000, .len = len };
	int ret;

	mutex_lock(&rproc->lock);
	ret = snaptrace_rproc_handle_trace(rproc, &rsc, 0, sizeof(rsc));
	mutex_unlock(&rproc->lock);
	return ret;
}

static void tk_crash(struct snaptrace_rproc *rproc)
{
	unsigned long flags;

	rproc->crash_cnt++;
	local_irq_save(flags);
	snaptrace_rproc_capture_traces(rproc);
	local_irq_restore(flags);
}

/*
 * Our remotes: the keeper of trace N outlives a stop (the trace freed,
 * the files gone) and a restart shows the last trace again, from the same
 * keeper, in the same instance; persist still has it meanwhile. A restart
 * with a trace too large for it makes a new keeper, the last trace
 * dropped.
 */
static void keeper_stop_restart_keeps_last(struct kunit *test)
{
	static const char text[] = "boot\ncrashing now\n";
	struct dentry *dir = st_debugfs_dir(test, "st_keeper_rp");
	struct snaptrace_rproc *rproc;
	struct snaptrace_keeper *k;
	struct snaptrace_buffer *buf;
	u8 *va, *out;

	rproc = tk_rproc(test, 0x2000, dir, &va);
	out = kunit_kzalloc(test, 0x2000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, tk_handle(rproc, 0x1000), 0);
	k = rproc->keepers[0];
	KUNIT_ASSERT_NOT_NULL(test, k);
	buf = k->last;
	KUNIT_EXPECT_STREQ(test, k->pr_src.name, "remoteproc7/trace0_last");
	KUNIT_EXPECT_GE(test, k->pr_src.slot, 0);
	memcpy(va, text, strlen(text));
	tk_crash(rproc);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_rp/trace0_last"), text);

	/* Stop: the trace and its files go, the keeper stays. */
	mutex_lock(&rproc->lock);
	snaptrace_rproc_trace_free(rproc);
	mutex_unlock(&rproc->lock);
	KUNIT_EXPECT_FALSE(test, st_debugfs_has("st_keeper_rp/trace0_last"));
	KUNIT_EXPECT_PTR_EQ(test, rproc->keepers[0], k);
	KUNIT_EXPECT_NULL(test, k->priv);
	KUNIT_EXPECT_GE(test, k->pr_src.slot, 0);
	KUNIT_EXPECT_TRUE(test, k->has_last);

	/* Restart: the new run's memory is fresh; traceN_last is the crash's. */
	memset(va, 0, 0x2000);
	KUNIT_ASSERT_EQ(test, tk_handle(rproc, 0x800), 0);
	KUNIT_EXPECT_PTR_EQ(test, rproc->keepers[0], k);
	KUNIT_EXPECT_PTR_EQ(test, k->last, buf);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_rp/trace0_last"), text);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_rp/trace0"), "");
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, 0x1000), 0x1000);
	KUNIT_EXPECT_STREQ(test, (char *)out, text);

	/* A larger trace after a stop: a new keeper, nothing last. */
	mutex_lock(&rproc->lock);
	snaptrace_rproc_trace_free(rproc);
	mutex_unlock(&rproc->lock);
	KUNIT_ASSERT_EQ(test, tk_handle(rproc, 0x2000), 0);
	KUNIT_ASSERT_NOT_NULL(test, rproc->keepers[0]);
	KUNIT_EXPECT_EQ(test, rproc->keepers[0]->size, 0x2000);
	KUNIT_EXPECT_FALSE(test, rproc->keepers[0]->has_last);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_rp/trace0_last"), "");
}

static void tk_stop(struct snaptrace_rproc *rproc)
{
	mutex_lock(&rproc->lock);
	snaptrace_rproc_trace_free(rproc);
	mutex_unlock(&rproc->lock);
}

/*
 * Our remotes: a trace larger than its keeper holds grows the keeper in
 * place (the same keeper, the same instance). A trace the instance has
 * room for already (sizes round up to a power of two) needs no resize:
 * it is taken even while a reader holds the instance open, and the last
 * trace stays. A grow that must resize and cannot, here because a reader
 * holds the keeper's instance open (-EBUSY), refuses the trace and leaves
 * the keeper as it was: its last trace, byte for byte, its buffer, its
 * place in the persistent capture, shown again by the next start. Without
 * a reader the resize is made, and the last trace dropped.
 */
static void keeper_grow_fails_keeps_last(struct kunit *test)
{
	static const char text[] = "boot\nlast words\n";
	const char *held = ST_ROOT "/instances/keeper-kunit-trace0/trace";
	struct dentry *dir = st_debugfs_dir(test, "st_keeper_grow");
	struct snaptrace_rproc *rproc;
	struct snaptrace_keeper *k;
	struct snaptrace_buffer *buf;
	u8 *va, *out, *want;
	struct file *f;
	size_t per;
	u32 fits, big;
	int ret;

	rproc = tk_rproc(test, SNAPTRACE_RPROC_TRACE_MAX, dir, &va);
	out = kunit_kzalloc(test, SNAPTRACE_RPROC_TRACE_MAX, GFP_KERNEL);
	want = kunit_kzalloc(test, 0x1000, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, out && want);
	KUNIT_ASSERT_EQ(test, tk_handle(rproc, 0x1000), 0);
	k = rproc->keepers[0];
	KUNIT_ASSERT_NOT_NULL(test, k);
	buf = k->last;
	/*
	 * Each CPU's room, rounded up: the largest trace that fits in it with
	 * its record headers and the keeper's margin (st_keep_room(): a
	 * trace, 1/64 of it, %SNAPTRACE_MIN_SIZE), and one of all of it,
	 * which does not.
	 */
	per = snaptrace_size_per_cpu(buf);
	fits = (per - SNAPTRACE_MIN_SIZE) / 65 * 64;
	big = per;
	KUNIT_ASSERT_GT(test, fits, 0x1000);
	KUNIT_ASSERT_LE(test, big, SNAPTRACE_RPROC_TRACE_MAX);
	memcpy(va, text, strlen(text));
	memcpy(want, va, 0x1000);
	tk_crash(rproc);
	tk_stop(rproc);

	scoped_with_init_fs()
		f = filp_open(held, O_RDONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%s: %pe", held, f);
	/* Room enough: taken, reader or not, nothing resized, last kept. */
	ret = tk_handle(rproc, fits);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), per);
	KUNIT_EXPECT_EQ(test, k->size, fits);
	KUNIT_EXPECT_TRUE(test, k->has_last);
	if (!ret)
		tk_stop(rproc);
	/* A resize needed, the instance held: refused, nothing changed. */
	ret = tk_handle(rproc, big);
	__fput_sync(f);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 0);
	KUNIT_ASSERT_PTR_EQ(test, rproc->keepers[0], k);
	KUNIT_EXPECT_PTR_EQ(test, k->last, buf);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), per);
	KUNIT_EXPECT_EQ(test, k->size, fits);
	KUNIT_EXPECT_TRUE(test, k->has_last);
	KUNIT_EXPECT_GE(test, k->pr_src.slot, 0);
	KUNIT_EXPECT_PTR_EQ(test, k->pr_src.buf, buf);
	memset(out, 0xff, 0x1000);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, 0x1000), 0x1000);
	KUNIT_EXPECT_MEMEQ(test, out, want, 0x1000);

	/* The next start, of the old size: traceN_last is the crash's. */
	memset(va, 0, SNAPTRACE_RPROC_TRACE_MAX);
	KUNIT_ASSERT_EQ(test, tk_handle(rproc, 0x1000), 0);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_grow/trace0_last"), text);

	/* No reader: the same keeper and instance grow, the last trace dropped. */
	tk_stop(rproc);
	KUNIT_ASSERT_EQ(test, tk_handle(rproc, big), 0);
	KUNIT_EXPECT_PTR_EQ(test, rproc->keepers[0], k);
	KUNIT_EXPECT_PTR_EQ(test, k->last, buf);
	KUNIT_EXPECT_GT(test, snaptrace_size_per_cpu(buf), per);
	KUNIT_EXPECT_EQ(test, k->size, big);
	KUNIT_EXPECT_FALSE(test, k->has_last);
	KUNIT_EXPECT_GE(test, k->pr_src.slot, 0);
	KUNIT_EXPECT_PTR_EQ(test, k->pr_src.buf, buf);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_grow/trace0_last"), "");
	/* and a crash of the larger trace is kept whole */
	memset(va, 'g', big);
	tk_crash(rproc);
	KUNIT_EXPECT_EQ(test, snaptrace_keeper_read_last(k, out, big), big);
	KUNIT_EXPECT_MEMEQ(test, out, va, big);
}

/* ---- one circular trace, both feeders ---- */

struct tk_circ_case {
	const char *desc;
	u32 len;
	void (*write)(u8 *buf, u32 len);
	const char *out;
};

/*
 * Zephyr's RAM console, 64 bytes, six lines "[%08u] ttN\r\n" of 16 bytes:
 * lines 4, 5 at 0, lines 2, 3 at 32, no NUL.
 */
static void tk_zephyr(u8 *buf, u32 len)
{
	char line[17];
	unsigned int i;

	for (i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "[%08u] tt%u\r\n", 100 + i, i);
		memcpy(buf + (i * 16) % len, line, 16);
	}
}

/*
 * libmetal's logger, 55 bytes, seven records "N L7 ping\r\n" of 11 bytes:
 * records 5, 6 at 0, 2, 3, 4 at 22, no NUL.
 */
static void tk_libmetal(u8 *buf, u32 len)
{
	char rec[12];
	unsigned int i;

	for (i = 0; i < 7; i++) {
		snprintf(rec, sizeof(rec), "%u L7 ping\r\n", i);
		memcpy(buf + (i * 11) % len, rec, 11);
	}
}

/*
 * STM32Cube's log, 32 bytes: each character followed by a NUL, round the
 * first 31 bytes (the last stays NUL), lines "line-N\n", 0 to 5.
 */
static void tk_stm32(u8 *buf, u32 len)
{
	char line[8];
	unsigned int i, j, at = 0;

	for (i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "line-%u\n", i);
		for (j = 0; j < 7; j++) {
			buf[at] = line[j];
			at = (at + 1) % (len - 1);
			buf[at] = 0;
		}
	}
}

static const struct tk_circ_case tk_circ_cases[] = {
	{ "zephyr", 64, tk_zephyr,
	  "[snaptrace: wrapped, lines lost unknown]\n"
	  "[00000102] tt2\n[00000103] tt3\n[00000104] tt4\n[00000105] tt5\n" },
	{ "libmetal", 55, tk_libmetal,
	  "[snaptrace: wrapped, 2 lines lost]\n"
	  "2 L7 ping\n3 L7 ping\n4 L7 ping\n5 L7 ping\n6 L7 ping\n" },
	{ "stm32cube", 32, tk_stm32,
	  "[snaptrace: wrapped, lines lost unknown]\n"
	  "line-2\nline-3\nline-4\nline-5\n" },
};

static void tk_circ_desc(const struct tk_circ_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tk_circ, tk_circ_cases, tk_circ_desc);

/*
 * The same circular trace, captured by our remotes' feeder (a trace entry
 * of a remote, captured at its crash with interrupts off) and by a keeper
 * fed as rproc_follow.c feeds one (its own buffer, the capture through a
 * read callback): traceN and traceN_last show it the same, decoded, oldest
 * line first, exactly.
 */
static void keeper_circular_both_feeders(struct kunit *test)
{
	const struct tk_circ_case *c = test->param_value;
	struct dentry *dir = st_debugfs_dir(test, "st_keeper_ours");
	struct dentry *fdir = st_debugfs_dir(test, "st_keeper_followed");
	struct snaptrace_rproc *rproc;
	struct snaptrace_keeper *k;
	struct tk_src s = { .len = c->len };
	u8 *va;

	rproc = tk_rproc(test, 0x1000, dir, &va);
	KUNIT_ASSERT_EQ(test, tk_handle(rproc, c->len), 0);
	c->write(va, c->len);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_ours/trace0"), c->out);
	tk_crash(rproc);
	memset(va, 0, c->len);	/* the next run */
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_ours/trace0_last"),
			   c->out);

	s.bytes = kunit_kzalloc(test, c->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s.bytes);
	c->write(s.bytes, c->len);
	k = tk_new(test, SZ_4K, &s);
	snaptrace_keeper_files_add(k, fdir);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_followed/trace0"),
			   c->out);
	KUNIT_EXPECT_TRUE(test, snaptrace_keeper_capture_slow(k, "h", tk_read, &s, c->len));
	memset(s.bytes, 0, c->len);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_keeper_followed/trace0_last"),
			   c->out);
	snaptrace_keeper_files_remove(k);
}

static struct kunit_case snaptrace_trace_keeper_cases[] = {
	KUNIT_CASE(keeper_capture_then_read),
	KUNIT_CASE_PARAM(keeper_capture_ends, tk_ends_gen_params),
	KUNIT_CASE(keeper_bounds),
	KUNIT_CASE(keeper_resize_puts_persist_back),
	KUNIT_CASE(keeper_instance_too_small),
	KUNIT_CASE(keeper_read_fails),
	KUNIT_CASE(keeper_out_of_room_keeps_last),
	KUNIT_CASE(keeper_largest_trace),
	KUNIT_CASE(keeper_last_open_while_grows),
	KUNIT_CASE(keeper_read_last_stale),
	KUNIT_CASE(keeper_stop_restart_keeps_last),
	KUNIT_CASE(keeper_grow_fails_keeps_last),
	KUNIT_CASE_PARAM(keeper_circular_both_feeders, tk_circ_gen_params),
	{}
};

static struct kunit_suite snaptrace_trace_keeper_suite = {
	.name = "snaptrace_trace_keeper",
	.test_cases = snaptrace_trace_keeper_cases,
};

kunit_test_suites(&snaptrace_trace_keeper_suite);
