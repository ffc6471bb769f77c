// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the persistent capture (src/persist_*.c,
 * Documentation/persist.rst), on an ordinary vmalloc'd "region": a
 * capture, called directly and from IRQs off, a hardirq and an NMI, gives
 * back at validation exactly the records the snapshot holds (time stamps,
 * positions, CPUs, payloads), and leaves out a record open at the capture,
 * counted as torn; each class of region that is not a previous boot's
 * capture is refused with its own error and left as it was; a corrupt
 * entry is dropped and counted, and only that one; a second capture is
 * refused; a full region says so.
 *
 * The CRCs are recomputed here from the layout in src/persist.h, as a
 * reader of the format would.
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

#define PR_SIZE		(256 * 1024)
#define PR_PHYS		0x7f000000ULL
#define PR_BOOT		0x0123456789abcdefULL
#define PR_ARMED_NS	1000ULL
/* "Now" at the next load, unless a test says otherwise. */
#define PR_NOW		U64_MAX
/* Records written on each online CPU, and their lengths (cycled). */
#define PR_PER_CPU	40
static const size_t pr_lens[] = { 20, 41, 64, 108, 200, 23 };

struct pr_ctx {
	struct snaptrace_persist p;
	struct snaptrace_buffer *buf;
	struct snaptrace_record *recs;	/* the snapshot, as an iterator reads it */
	unsigned int nr;
	u8 *copy;			/* the region before a refused parse */
	/* pr_cleaned(): the cleans seen, the last one's bytes and state */
	unsigned int cleans;
	size_t clean_len;
	u32 clean_state;
	u8 *at_clean;			/* the whole region at the last clean */
};

KUNIT_DEFINE_ACTION_WRAPPER(pr_vfree, vfree, const void *);
KUNIT_DEFINE_ACTION_WRAPPER(pr_last_free, snaptrace_persist_last_free,
			    struct snaptrace_persist_last *);

static void *pr_vzalloc(struct kunit *test, size_t size)
{
	void *p = vzalloc(size ? size : 1);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_vfree, p), 0);
	return p;
}

/* A region of @size bytes, armed, and a buffer with its spare allocated. */
static struct pr_ctx *pr_setup(struct kunit *test, size_t size)
{
	struct pr_ctx *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->p.base = pr_vzalloc(test, size);
	x->p.size = size;
	x->p.phys = PR_PHYS;
	x->p.boot_id = PR_BOOT;
	x->p.rec = st_rec_new(test);
	x->p.need = kunit_kcalloc(test, nr_cpu_ids, sizeof(*x->p.need), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x->p.need);
	x->p.nr_mods = 1;
	x->p.mods[0].base = 0xffffffffc0000000ULL;
	x->p.mods[0].size = 0x10000;
	strscpy(x->p.mods[0].name, "snaptrace", sizeof(x->p.mods[0].name));
	KUNIT_ASSERT_EQ(test, snaptrace_persist_arm(&x->p, PR_ARMED_NS), 0);
	x->buf = st_buf_new(test, SNAPTRACE_MIN_SIZE * 4, SNAPTRACE_OVERWRITE);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(x->buf), 0);
	return x;
}

/* PR_PER_CPU self-checking records on every online CPU, seq from 0. */
static void pr_write(struct kunit *test, struct pr_ctx *x)
{
	unsigned int i;
	int cpu;

	for_each_online_cpu(cpu) {
		for (i = 0; i < PR_PER_CPU; i++) {
			struct st_wcount wc = st_write_n(test, x->buf, cpu, 1,
							 pr_lens[i % ARRAY_SIZE(pr_lens)], i);

			KUNIT_ASSERT_EQ(test, wc.ok, 1);
		}
	}
}

/* Every record of the snapshot, CPU by CPU, as an iterator reads them. */
static void pr_expect_snapshot(struct kunit *test, struct pr_ctx *x)
{
	unsigned int max = num_possible_cpus() * (PR_PER_CPU + 2);
	int cpu, end;

	x->recs = kunit_kcalloc(test, max, sizeof(*x->recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x->recs);
	x->nr = 0;
	for_each_possible_cpu(cpu) {
		x->nr += st_collect(test, x->buf, SNAPTRACE_SNAPSHOT, cpu,
				    x->recs + x->nr, max - x->nr, &end);
		KUNIT_ASSERT_EQ(test, end, -ENODATA);
	}
}

static struct snaptrace_persist_last *pr_parse(struct kunit *test,
					       struct pr_ctx *x)
{
	struct snaptrace_persist_last *last;

	last = snaptrace_persist_parse(x->p.base, x->p.size, PR_PHYS, PR_BOOT + 1,
				       PR_NOW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_last_free, last), 0);
	return last;
}

/* The entry of @cpu with capture seq @seq in @last, or NULL. */
static const struct st_pr_ent *pr_find(const struct snaptrace_persist_last *last,
				       unsigned int cpu, u64 seq)
{
	u64 i;

	for (i = 0; i < last->kept; i++)
		if (last->ents[i]->cpu == cpu && last->ents[i]->seq == seq)
			return last->ents[i];
	return NULL;
}

/*
 * @last holds exactly the snapshot's records but @skip_cpu's capture seq
 * @skip_seq (-1: none), each with its time stamp, position, CPU, type and
 * payload, in time order.
 */
static void pr_expect_same(struct kunit *test, struct pr_ctx *x,
			   const struct snaptrace_persist_last *last,
			   int skip_cpu, s64 skip_seq)
{
	unsigned int i, seq = 0, prev_cpu = UINT_MAX;
	const struct st_pr_ent *e;
	u64 i2;

	KUNIT_EXPECT_EQ(test, last->kept + (skip_seq >= 0), (u64)x->nr);
	for (i = 0; i < x->nr; i++) {
		const struct snaptrace_record *r = &x->recs[i];

		if (r->cpu != prev_cpu)
			seq = 0;
		prev_cpu = r->cpu;
		e = pr_find(last, r->cpu, seq);
		if (r->cpu == skip_cpu && seq == skip_seq) {
			KUNIT_EXPECT_NULL_MSG(test, e, "cpu %u seq %u kept", r->cpu, seq);
			seq++;
			continue;
		}
		seq++;
		KUNIT_ASSERT_NOT_NULL_MSG(test, e, "cpu %u seq %u missing", r->cpu, seq - 1);
		KUNIT_EXPECT_EQ(test, e->ts, r->ts);
		KUNIT_EXPECT_EQ(test, e->pos, r->pos);
		KUNIT_EXPECT_EQ(test, e->type, r->type);
		KUNIT_ASSERT_EQ(test, e->len, r->len);
		KUNIT_EXPECT_MEMEQ(test, e->data, r->data, r->len);
	}
	for (i2 = 1; i2 < last->kept; i2++)
		KUNIT_EXPECT_LE(test, last->ents[i2 - 1]->ts, last->ents[i2]->ts);
}

/* What every capture of pr_write()'s records says about itself. */
static void pr_expect_cap(struct kunit *test, struct pr_ctx *x,
			  const struct snaptrace_persist_last *last, int cpu)
{
	KUNIT_EXPECT_EQ(test, last->hdr.boot_id, PR_BOOT);
	KUNIT_EXPECT_EQ(test, last->hdr.phys, PR_PHYS);
	KUNIT_EXPECT_EQ(test, last->hdr.armed_real_ns, PR_ARMED_NS);
	KUNIT_EXPECT_EQ(test, last->cap.reason, (u32)ST_PR_TEST);
	KUNIT_EXPECT_EQ(test, last->cap.cpu, cpu);
	KUNIT_EXPECT_EQ(test, last->cap.flags, 0);
	KUNIT_EXPECT_STREQ(test, last->cap.msg, "test capture");
	KUNIT_EXPECT_EQ(test, last->cap.kernel_anchor, (u64)(unsigned long)&_printk);
	KUNIT_EXPECT_EQ(test, last->cap.nr_mods, 1);
	KUNIT_EXPECT_STREQ(test, last->cap.mods[0].name, "snaptrace");
	KUNIT_EXPECT_EQ(test, last->cap.mods[0].base, x->p.mods[0].base);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
}

/* Direct call: every record of every CPU comes back, exactly. */
static void persist_capture_gives_back_every_record(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int cpu;

	pr_write(test, x);
	cpu = get_cpu();
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	put_cpu();
	pr_expect_snapshot(test, x);
	KUNIT_EXPECT_EQ(test, x->nr, num_online_cpus() * PR_PER_CPU);
	last = pr_parse(test, x);
	pr_expect_cap(test, x, last, cpu);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	KUNIT_EXPECT_EQ(test, last->cap.entries, (u64)x->nr);
	pr_expect_same(test, x, last, -1, -1);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ(test, last->per_cpu[cpu].entries, PR_PER_CPU);
}

static void pr_job_capture(struct st_job *job)
{
	struct snaptrace_persist *p = job->data;

	job->rc[0] = snaptrace_persist_capture(p, job->buf, ST_PR_TEST,
					       "test capture", false);
}

static void pr_capture_in(struct kunit *test, enum st_ctx ctx)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	struct st_job *job;

	pr_write(test, x);
	job = st_job_new(test, x->buf, ctx, pr_job_capture);
	job->data = &x->p;
	st_job_go(test, job);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	pr_expect_snapshot(test, x);
	KUNIT_EXPECT_EQ(test, x->nr, num_online_cpus() * PR_PER_CPU);
	last = pr_parse(test, x);
	pr_expect_cap(test, x, last, job->cpu);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	pr_expect_same(test, x, last, -1, -1);
}

static void persist_capture_with_irqs_off(struct kunit *test)
{
	pr_capture_in(test, ST_CTX_IRQS_OFF);
}

static void persist_capture_in_hardirq(struct kunit *test)
{
	pr_capture_in(test, ST_CTX_HARDIRQ);
}

static void persist_capture_in_nmi(struct kunit *test)
{
	pr_capture_in(test, ST_CTX_NMI);
}

/*
 * A capture from an interrupt while this task holds a record open: the
 * open record is not in the region, counted torn on its CPU; every record
 * committed before it is.
 */
static void persist_open_record_is_torn(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	struct st_job *job;
	unsigned int i, c;
	int cpu;

	pr_write(test, x);
	job = st_job_new(test, x->buf, ST_CTX_IRQ_WORK, pr_job_capture);
	job->data = &x->p;
	cpu = st_job_in_reservation(test, job, 48, PR_PER_CPU);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->cpu, cpu);
	/* The open record was committed late, into the snapshot. */
	pr_expect_snapshot(test, x);
	KUNIT_EXPECT_EQ(test, x->nr, num_online_cpus() * PR_PER_CPU + 1);
	last = pr_parse(test, x);
	pr_expect_cap(test, x, last, cpu);
	KUNIT_EXPECT_EQ(test, last->torn, 1);
	KUNIT_EXPECT_EQ(test, last->cap.torn, 1);
	KUNIT_EXPECT_EQ(test, last->kept, (u64)num_online_cpus() * PR_PER_CPU);
	for (c = 0; c < last->nr_cpus; c++)
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].torn, c == cpu, "cpu %u", c);
	pr_expect_same(test, x, last, cpu, PR_PER_CPU);
	for (i = 0; i < last->kept; i++) {
		struct snaptrace_record *r = x->p.rec;
		struct st_hdr h;

		snaptrace_persist_ent_record(last->ents[i], r);
		KUNIT_ASSERT_TRUE(test, st_payload_ok(r, &h));
		KUNIT_EXPECT_LT(test, h.seq, PR_PER_CPU);
	}
}

/* A second capture, from anywhere, is refused and changes nothing. */
static void persist_second_capture_refused(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	u8 *copy = pr_vzalloc(test, PR_SIZE);

	pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	memcpy(copy, x->p.base, PR_SIZE);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_OOPS,
							"again", false), -EBUSY);
	/* memcmp(): KUnit's hexdump of a 1 MiB mismatch takes minutes. */
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, copy, PR_SIZE),
			      "the region changed");
}

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

/* A region holding a capture of pr_write()'s records. */
static struct pr_ctx *pr_captured(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);

	pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	x->copy = pr_vzalloc(test, PR_SIZE);
	return x;
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
	struct pr_ctx *x = pr_captured(test);
	struct st_pr_hdr *h = x->p.base;

	h->magic ^= 1;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ENOMSG);
}

static void persist_refuses_other_version(struct kunit *test)
{
	struct pr_ctx *x = pr_captured(test);
	struct st_pr_hdr *h = x->p.base;

	h->version = ST_PR_VERSION + 1;
	pr_reseal_hdr(h);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW,
			  -EPROTONOSUPPORT);
}

static void persist_refuses_bad_header_crc(struct kunit *test)
{
	struct pr_ctx *x = pr_captured(test);
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
	struct pr_ctx *x = pr_captured(test);
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
	KUNIT_EXPECT_FALSE(test, IS_ERR(pr_parse(test, x)));
}

/* A region cut short: its header's size is not the region's. */
static void persist_refuses_truncated_region(struct kunit *test)
{
	struct pr_ctx *x = pr_captured(test);
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
	struct pr_ctx *x = pr_captured(test);

	pr_expect_refused(test, x, PR_SIZE, PR_PHYS + PAGE_SIZE, PR_BOOT + 1,
			  PR_NOW, -EXDEV);
}

static void persist_refuses_same_boot(struct kunit *test)
{
	struct pr_ctx *x = pr_captured(test);

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
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_last_free, last), 0);
	return last;
}

/* A seq_file of 1 KiB, for the lines of info's show functions. */
static struct seq_file *pr_seq(struct kunit *test)
{
	struct seq_file *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->size = 1024;
	m->buf = kunit_kzalloc(test, m->size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	return m;
}

/* What was shown into @m (it must have fit); @m emptied for the next. */
static char *pr_seq_take(struct kunit *test, struct seq_file *m)
{
	char *text = kunit_kzalloc(test, m->count + 1, GFP_KERNEL);

	KUNIT_ASSERT_LT(test, m->count, m->size);
	KUNIT_ASSERT_NOT_NULL(test, text);
	memcpy(text, m->buf, m->count);
	m->count = 0;
	return text;
}

/* last_boot/info's lines on the wall clock, for @last. */
static char *pr_times_info(struct kunit *test,
			   const struct snaptrace_persist_last *last)
{
	struct seq_file *m = pr_seq(test);

	snaptrace_persist_times_show(m, last, 0);
	return pr_seq_take(test, m);
}

/*
 * info says how long before this boot began the capture was taken (a
 * region from two boots ago, when the boot between did not load the
 * module, passes every check: this line tells), or that this boot took
 * it, by an earlier load.
 */
static void persist_times_since_boot(struct kunit *test)
{
	struct pr_ctx *x = pr_captured(test);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last;
	struct seq_file *m = pr_seq(test);

	cap->real_ns = PR_CAP_NS;
	pr_reseal_cap(x->p.base);
	last = pr_parse_at(test, x, PR_CAP_NS + 100ULL * NSEC_PER_SEC);
	snaptrace_persist_times_show(m, last, PR_CAP_NS + 37ULL * NSEC_PER_SEC + 1);
	KUNIT_EXPECT_STREQ(test, pr_seq_take(test, m),
			   "armed: 1970-01-01 00:00:00 UTC (0.000001000)\ncaptured: 1970-01-01 00:00:05 UTC (5.000000000)\ncaptured before this boot began: 37 s\n");
	snaptrace_persist_times_show(m, last, PR_CAP_NS - 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_STREQ(test, pr_seq_take(test, m),
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
	struct pr_ctx *x = pr_captured(test);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last;

	pr_expect_snapshot(test, x);
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
	pr_expect_cap(test, x, last, last->cap.cpu);
	KUNIT_EXPECT_EQ(test, last->cap.real_ns, PR_CAP_NS);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	pr_expect_same(test, x, last, -1, -1);
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
	pr_expect_cap(test, x, last, last->cap.cpu);
	pr_expect_same(test, x, last, -1, -1);
	KUNIT_EXPECT_STREQ(test, pr_times_info(test, last),
			   "armed: 1970-01-01 00:00:00 UTC (0.000001000)\ncaptured: 1970-01-01 00:00:00 UTC (0.000000999)\ntime: doubtful: the capture's wall-clock time is before its arming (the previous boot's clock went back)\n");
}

/* Armed and never captured, or a capture that did not finish. */
static void persist_refuses_no_capture(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);

	x->copy = pr_vzalloc(test, PR_SIZE);
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ENODATA);
	/*
	 * Not a state (version 1's capturing) on a finished capture: its
	 * CRC is right, only the state word is damaged: kept as damaged (it
	 * used to be armed over as "no capture"). With the CRC wrong too,
	 * nothing tells it from garbage: no capture.
	 */
	x = pr_captured(test);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last;
	const struct st_pr_ent *e;
	unsigned int i;
	int cpu;

	pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"older", false), 0);
	x->p.boot_id = PR_BOOT + 2;
	KUNIT_ASSERT_EQ(test, snaptrace_persist_arm(&x->p, PR_ARMED_NS), 0);
	pr_write(test, x);
	x->p.stop_after = 5;
	cpu = get_cpu();
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), -EINTR);
	put_cpu();
	KUNIT_EXPECT_EQ(test, cap->state, ST_PR_CAPTURING | cpu);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_OOPS,
							"again", false), -EBUSY);
	pr_expect_snapshot(test, x);
	KUNIT_ASSERT_GE(test, x->nr, 5);
	last = pr_parse(test, x);
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
		e = pr_find(last, r->cpu, i);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);

	x->copy = pr_vzalloc(test, PR_SIZE);
	pr_write(test, x);
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
	struct pr_ctx *x = pr_captured(test);
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
		x->copy = pr_vzalloc(test, PR_SIZE);
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

	x = pr_captured(test);
	h = x->p.base;
	h->version = ST_PR_VERSION + 1;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -EPROTONOSUPPORT, true);

	x = pr_captured(test);
	h = x->p.base;
	table = x->p.base + h->table_off;
	table[0].entries++;
	pr_expect_take(test, x, -EBADMSG, true);

	x = pr_captured(test);
	h = x->p.base;
	h->size = PR_SIZE * 2;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -ERANGE, true);

	/* A finished capture whose state word alone is damaged. */
	x = pr_captured(test);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	cap->state ^= BIT(20);
	pr_expect_take(test, x, -EBADMSG, true);
	/* Its CRC wrong too: nothing to tell it from garbage, armed over. */
	x = pr_captured(test);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	cap->state ^= BIT(20);
	cap->entries++;
	pr_expect_take(test, x, -ENODATA, false);

	x = pr_setup(test, PR_SIZE);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	pr_write(test, x);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);

	x->copy = pr_vzalloc(test, PR_SIZE);
	pr_write(test, x);
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
	x = pr_setup(test, PR_SIZE);
	cap = x->p.base + sizeof(struct st_pr_hdr);
	x->copy = pr_vzalloc(test, PR_SIZE);
	pr_write(test, x);
	x->p.stop_after = 5;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), -EINTR);
	x->p.stop_after = 0;
	cap->state ^= BIT(20);
	cap->msg[0] ^= 1;
	pr_expect_refused(test, x, PR_SIZE, PR_PHYS, PR_BOOT + 1, PR_NOW, -ENODATA);
	pr_expect_take(test, x, -ENODATA, false);

	/* Armed, never captured, its state word damaged: no capture. */
	x = pr_setup(test, PR_SIZE);
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
		x = pr_captured(test);
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
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_last_free,
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last = ERR_PTR(-EFAULT);
	int cpu, found = 1;

	pr_write(test, x);
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

	x = pr_captured(test);
	h = x->p.base;
	h->magic ^= 1;
	pr_expect_take(test, x, -ENOMSG, false);

	x = pr_setup(test, PR_SIZE);
	pr_expect_take(test, x, -ENODATA, false);

	/* Armed by another version, never captured: nothing to keep. */
	x = pr_setup(test, PR_SIZE);
	h = x->p.base;
	h->version = ST_PR_VERSION - 1;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -ENODATA, false);

	/* Armed with another size, never captured: nothing to keep. */
	x = pr_setup(test, PR_SIZE);
	h = x->p.base;
	h->size = PR_SIZE * 2;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -ENODATA, false);

	x = pr_captured(test);
	h = x->p.base;
	h->phys += PAGE_SIZE;
	pr_reseal_hdr(h);
	pr_expect_take(test, x, -EXDEV, false);

	x = pr_captured(test);
	h = x->p.base;
	h->boot_id = PR_BOOT + 1;
	pr_reseal_hdr(h);
	((struct st_pr_cap *)(x->p.base + sizeof(*h)))->boot_id = PR_BOOT + 1;
	pr_reseal_cap(x->p.base);
	pr_expect_take(test, x, -EALREADY, false);

	x = pr_captured(test);
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
	struct pr_ctx *x = pr_captured(test);
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

/* ---- corrupt entries ---- */

/* The offset in the region of @cpu's entry of capture seq @seq. */
static size_t pr_ent_off(struct kunit *test, struct pr_ctx *x, unsigned int cpu,
			 u64 seq)
{
	struct st_pr_hdr *h = x->p.base;
	struct st_pr_cap *cap = x->p.base + sizeof(*h);
	size_t off = h->data_off;

	while (off < h->data_off + cap->data_bytes) {
		struct st_pr_ent *e = x->p.base + off;

		if (e->cpu == cpu && e->seq == seq)
			return off;
		off += snaptrace_persist_ent_size(e->len);
	}
	KUNIT_FAIL(test, "no entry cpu %u seq %llu", cpu, seq);
	return 0;
}

/* A byte flipped in one entry's payload: that record only is dropped. */
static void persist_corrupt_payload_dropped(struct kunit *test)
{
	struct pr_ctx *x = pr_captured(test);
	struct snaptrace_persist_last *last;
	unsigned int cpu = st_cpu();
	size_t off = pr_ent_off(test, x, cpu, 7);
	u8 *b = x->p.base + off + sizeof(struct st_pr_ent) + 5;

	*b ^= 0x40;
	pr_expect_snapshot(test, x);
	last = pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->corrupt, 1);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	pr_expect_same(test, x, last, cpu, 7);
}

/* An entry's length, marker or CPU broken: that record only is dropped. */
static void persist_corrupt_header_dropped(struct kunit *test)
{
	static const size_t fields[] = {
		offsetof(struct st_pr_ent, len),
		offsetof(struct st_pr_ent, marker),
		offsetof(struct st_pr_ent, cpu) + 3,
		offsetof(struct st_pr_ent, ts),
	};
	unsigned int cpu = st_cpu(), i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		struct pr_ctx *x = pr_captured(test);
		struct snaptrace_persist_last *last;
		size_t off = pr_ent_off(test, x, cpu, 3 + i);
		u8 *b = x->p.base + off + fields[i];

		*b ^= 0x81;
		pr_expect_snapshot(test, x);
		last = pr_parse(test, x);
		KUNIT_EXPECT_EQ_MSG(test, last->corrupt, 1, "field %u", i);
		pr_expect_same(test, x, last, cpu, 3 + i);
	}
}

/*
 * What a region of @room data bytes keeps of the snapshot in @x->recs
 * (CPU by CPU, oldest first), computed here the way persist.rst says:
 * a fair share per CPU, filled in rounds (a CPU needing less than the
 * share keeps all and leaves the rest to the others), what a CPU leaves
 * of its share going to the CPUs after it; each CPU keeps the newest run
 * of its records that fits. Sets @first[cpu], its first record kept.
 */
static void pr_newest(struct kunit *test, struct pr_ctx *x, u64 room, u64 *first)
{
	u64 *need = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	u64 *grant = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	bool *done = kunit_kcalloc(test, nr_cpu_ids, sizeof(bool), GFP_KERNEL);
	u64 left = room, share, carry = 0, budget, sum;
	unsigned int i, j, k, start, n;
	bool more;
	int cpu;

	KUNIT_ASSERT_TRUE(test, need && grant && done);
	for (i = 0; i < x->nr; i++)
		need[x->recs[i].cpu] += snaptrace_persist_ent_size(x->recs[i].len);
	do {
		more = false;
		k = 0;
		for_each_possible_cpu(cpu)
			k += !done[cpu];
		if (!k)
			break;
		share = div_u64(left, k);
		for_each_possible_cpu(cpu) {
			if (!done[cpu] && need[cpu] <= share) {
				grant[cpu] = need[cpu];
				left -= need[cpu];
				done[cpu] = true;
				more = true;
			}
		}
		if (!more)
			for_each_possible_cpu(cpu)
				if (!done[cpu])
					grant[cpu] = share;
	} while (more);
	i = 0;
	for_each_possible_cpu(cpu) {
		start = i;
		while (i < x->nr && x->recs[i].cpu == cpu)
			i++;
		n = i - start;
		budget = grant[cpu] + carry;
		sum = 0;
		for (j = n; j > 0; j--) {
			u64 sz = snaptrace_persist_ent_size(x->recs[start + j - 1].len);

			if (sum + sz > budget)
				break;
			sum += sz;
		}
		first[cpu] = j;
		carry = budget - sum;
	}
}

/*
 * @last holds exactly, of each CPU's snapshot records, those from
 * @first[cpu] on (capture seq = the record's index), with their time
 * stamps, positions and payloads; the older ones are counted left out.
 */
static void pr_expect_kept(struct kunit *test, struct pr_ctx *x,
			   const struct snaptrace_persist_last *last,
			   const u64 *first)
{
	unsigned int i, seq = 0, prev_cpu = UINT_MAX;
	u64 *n = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	const struct st_pr_ent *e;
	u64 kept = 0;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, n);
	for (i = 0; i < x->nr; i++) {
		const struct snaptrace_record *r = &x->recs[i];

		if (r->cpu != prev_cpu)
			seq = 0;
		prev_cpu = r->cpu;
		n[r->cpu]++;
		e = pr_find(last, r->cpu, seq);
		if (seq < first[r->cpu]) {
			KUNIT_EXPECT_NULL_MSG(test, e, "cpu %u seq %u kept", r->cpu, seq);
			seq++;
			continue;
		}
		kept++;
		KUNIT_ASSERT_NOT_NULL_MSG(test, e, "cpu %u seq %u missing", r->cpu, seq);
		seq++;
		KUNIT_EXPECT_EQ(test, e->ts, r->ts);
		KUNIT_EXPECT_EQ(test, e->pos, r->pos);
		KUNIT_ASSERT_EQ(test, e->len, r->len);
		KUNIT_EXPECT_MEMEQ(test, e->data, r->data, r->len);
	}
	KUNIT_EXPECT_EQ(test, last->kept, kept);
	for_each_possible_cpu(cpu) {
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[cpu].left_out, first[cpu],
				    "cpu %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[cpu].entries,
				    n[cpu] - first[cpu], "cpu %d", cpu);
	}
}

/*
 * A region too small for every record: each CPU keeps its newest records,
 * a run ending at its last one, in an even share of the region; the older
 * ones are counted left out on their CPU (the capture used to keep the
 * first CPU's oldest records and leave the newest out).
 */
static void persist_full_region_says_so(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, 8192);
	u64 *first = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	struct snaptrace_persist_last *last;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, first);
	pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	pr_expect_snapshot(test, x);
	last = pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_FULL);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	pr_newest(test, x, 8192 - x->p.data_off, first);
	for_each_online_cpu(cpu) {
		/* Every CPU keeps its newest, none keeps its oldest. */
		KUNIT_EXPECT_GT_MSG(test, first[cpu], 0, "cpu %d", cpu);
		KUNIT_EXPECT_LT_MSG(test, first[cpu], PR_PER_CPU - 1, "cpu %d", cpu);
	}
	pr_expect_kept(test, x, last, first);
}

/*
 * A CPU with few records keeps them all, and the share it does not use
 * goes to the others, which keep their newest.
 */
static void persist_full_region_shares_what_is_unused(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, 4096);
	u64 *first = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	struct snaptrace_persist_last *last;
	unsigned int i, n;
	int cpu, few = cpumask_first(cpu_online_mask);

	KUNIT_ASSERT_NOT_NULL(test, first);
	for_each_online_cpu(cpu) {
		n = cpu == few ? 3 : PR_PER_CPU;
		for (i = 0; i < n; i++) {
			struct st_wcount wc = st_write_n(test, x->buf, cpu, 1,
							 pr_lens[i % ARRAY_SIZE(pr_lens)], i);

			KUNIT_ASSERT_EQ(test, wc.ok, 1);
		}
	}
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	pr_expect_snapshot(test, x);
	last = pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	pr_newest(test, x, 4096 - x->p.data_off, first);
	KUNIT_EXPECT_EQ(test, first[few], 0);
	KUNIT_EXPECT_EQ(test, last->per_cpu[few].entries, 3);
	for_each_online_cpu(cpu)
		if (cpu != few)
			KUNIT_EXPECT_GT_MSG(test, first[cpu], 0, "cpu %d", cpu);
	pr_expect_kept(test, x, last, first);
}

/* Without a spare the capture says so, with no records. */
static void persist_no_spare_no_records(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;

	snaptrace_free_snapshot(x->buf);
	pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_PANIC,
							"no spare", false), 0);
	last = pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_NO_SNAPSHOT);
	KUNIT_EXPECT_EQ(test, last->kept, 0);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	KUNIT_EXPECT_EQ(test, last->cap.reason, (u32)ST_PR_PANIC);
}

/*
 * The capture writes where the region was armed to hold it, whatever its
 * header says by then: a header scribbled on before the panic (no CPUs, no
 * room) does not change what is captured, nor where.
 */
static void persist_capture_ignores_scribbled_header(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct st_pr_hdr *h = x->p.base, saved = *h;
	struct snaptrace_persist_last *last;
	int cpu;

	pr_write(test, x);
	h->nr_cpus = 0;
	h->table_off = 0;
	h->data_off = PR_SIZE;
	cpu = get_cpu();
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	put_cpu();
	KUNIT_EXPECT_EQ(test, h->nr_cpus, 0);
	KUNIT_EXPECT_EQ(test, h->table_off, 0);
	KUNIT_EXPECT_EQ(test, h->data_off, PR_SIZE);
	*h = saved;
	pr_expect_snapshot(test, x);
	last = pr_parse(test, x);
	pr_expect_cap(test, x, last, cpu);
	KUNIT_EXPECT_EQ(test, last->kept, (u64)num_online_cpus() * PR_PER_CPU);
	pr_expect_same(test, x, last, -1, -1);
}

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

/* @n regions, armed, each with a buffer holding pr_write()'s records. */
static void pr_setup_written(struct kunit *test, struct pr_ctx **x,
			     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		x[i] = pr_setup(test, PR_SIZE);
		pr_write(test, x[i]);
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
	return pr_parse(test, x);
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
	live = pr_setup(test, PR_SIZE);
	pr_write(test, live);
	halves = pr_setup(test, PR_SIZE);
	pr_write(test, halves);

	last = pr_capture_held(test, live, -1, ST_LOCK_ROUND);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_LOCKED | ST_PR_F_NO_SNAPSHOT);
	KUNIT_EXPECT_EQ(test, last->kept, 0);

	other = pr_stop_cpu(test);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		last = pr_capture_held(test, x[i], other, kinds[i]);
		KUNIT_EXPECT_EQ_MSG(test, last->cap.flags, ST_PR_F_LOCKED, "kind %d",
				    kinds[i]);
		pr_expect_snapshot(test, x[i]);
		KUNIT_EXPECT_EQ(test, x[i]->nr, (num_online_cpus() + 1) * PR_PER_CPU);
		KUNIT_EXPECT_EQ(test, last->torn, 0);
		pr_expect_same(test, x[i], last, -1, -1);
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
		last = pr_parse(test, x[i]);
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
				e = pr_find(last, c, seq);
				KUNIT_ASSERT_NOT_NULL_MSG(test, e, "%s: cpu %u seq %u",
							  pr_hold.c->name, c, seq);
				KUNIT_ASSERT_GE(test, e->len, sizeof(hdr));
				memcpy(&hdr, e->data, sizeof(hdr));
				KUNIT_EXPECT_EQ(test, hdr.cpu, c);
				KUNIT_EXPECT_EQ(test, hdr.seq, seq);
			}
		}
		/* The snapshot the holder returned is the one captured. */
		pr_expect_snapshot(test, x[i]);
		pr_expect_same(test, x[i], last, -1, -1);
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

	x = pr_setup(test, PR_SIZE);
	pr_write(test, x);
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

	last = pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, 0);
	KUNIT_EXPECT_EQ(test, last->kept, PR_NEST_LATE);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	for (c = 0; c < last->nr_cpus; c++)
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].entries,
				    c == pr_nest.cpu ? PR_NEST_LATE : 0, "cpu %u", c);
	for (i = 0; i < PR_NEST_LATE; i++) {
		memset(want, 0, sizeof(want));
		snprintf(want, sizeof(want), "late %d", i);
		e = pr_find(last, pr_nest.cpu, i);
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

	pr_expect_snapshot(test, x);
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
		pr_expect_snapshot(test, x[i]);
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

	x = pr_setup(test, PR_SIZE);
	pr_write(test, x);
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
	/* The holder's snapshot: pr_write()'s records, none written after. */
	pr_expect_snapshot(test, x);
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
		pr_expect_snapshot(test, x[i]);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);

	pr_write(test, x);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
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
			size_t len = pr_lens[i % ARRAY_SIZE(pr_lens)];

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

	last = pr_parse(test, x);
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
			e = pr_find(last, c, seq);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	bool clear = rc->how == PR_REPL_CLEAR;
	struct seq_file *m = pr_seq(test);
	unsigned int c;
	int ret;

	pr_write(test, x);
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

	last = pr_parse(test, x);
	if (clear) {
		/* Refused: the snapshot is the crash's, whole. */
		pr_expect_snapshot(test, x);
		pr_expect_cap(test, x, last, last->cap.cpu);
		pr_expect_same(test, x, last, -1, -1);
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
	KUNIT_EXPECT_STREQ(test, pr_seq_take(test, m),
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
	struct seq_file *m = pr_seq(test);
	unsigned int i;

	last = kunit_kzalloc(test, sizeof(*last), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, last);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		last->cap.flags = cases[i].flags;
		snaptrace_persist_snapshot_show(m, last);
		KUNIT_EXPECT_STREQ_MSG(test, pr_seq_take(test, m), cases[i].line,
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

/* ---- the remotes' last traces ---- */

#define PR_RP_DA	0x10000
#define PR_RP_LEN	(3 * SNAPTRACE_MAX_PAYLOAD)
/* The trace's text: two whole pieces and a part of a third. */
#define PR_RP_TEXT	(2 * SNAPTRACE_MAX_PAYLOAD + 300)

struct pr_remote {
	struct snaptrace_rproc *rproc;
	struct snaptrace_rproc_trace *t;
	char *text;	/* traceN_last, as snaptrace_rproc_read_last() gives it */
	ssize_t len;
};

static void pr_remote_free(void *arg)
{
	struct snaptrace_rproc *rproc = arg;

	mutex_lock(&rproc->lock);
	snaptrace_rproc_trace_free(rproc);
	mutex_unlock(&rproc->lock);
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
	unsigned long flags;
	char *va;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rproc = kunit_kzalloc(test, sizeof(*r->rproc), GFP_KERNEL);
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, r->rproc && m);
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
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_remote_free,
							r->rproc), 0);
	r->t = list_first_entry(&r->rproc->traces, struct snaptrace_rproc_trace,
				node);
	KUNIT_ASSERT_GE(test, r->t->pr_src.slot, 0);
	KUNIT_EXPECT_STREQ(test, r->t->pr_src.name, "remoteproc0/trace0_last");
	va = m->va;
	for (i = 0; i < PR_RP_TEXT; i++)
		va[i] = i % 32 == 31 ? '\n' : 'a' + i % 26;
	r->text = kunit_kzalloc(test, PR_RP_LEN + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->text);
	if (!crash)
		return r;
	local_irq_save(flags);
	snaptrace_rproc_capture_traces(r->rproc);
	local_irq_restore(flags);
	KUNIT_ASSERT_TRUE(test, r->t->has_last);
	r->len = snaptrace_rproc_read_last(r->t, r->text, PR_RP_LEN);
	KUNIT_ASSERT_EQ(test, r->len, (ssize_t)PR_RP_TEXT);
	return r;
}

/* last_boot/info's lines on the remotes, for @last. */
static char *pr_remotes_info(struct kunit *test,
			     const struct snaptrace_persist_last *last)
{
	struct seq_file *m = pr_seq(test);

	snaptrace_persist_remotes_show(m, last);
	return pr_seq_take(test, m);
}

/* A capture of pr_write()'s records with the remotes' last traces. */
static struct snaptrace_persist_last *pr_capture_remotes(struct kunit *test,
							 struct pr_ctx *x)
{
	pr_write(test, x);
	x->p.remotes = true;
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	pr_expect_snapshot(test, x);
	return pr_parse(test, x);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->pr_src.slot;
	unsigned int i;

	last = pr_capture_remotes(test, x);
	pr_expect_cap(test, x, last, last->cap.cpu);
	pr_expect_same(test, x, last, -1, -1);
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
 * remote's text whole, and each CPU what pr_newest() says of the rest.
 */
static void persist_remote_budget_exact(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = pr_setup(test, 16384);
	u64 *first = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	struct snaptrace_record *recs;
	struct snaptrace_persist_last *last;
	u64 remote_bytes = 0;
	unsigned int n, i;
	int s = r->t->pr_src.slot, end;

	KUNIT_ASSERT_NOT_NULL(test, first);
	recs = kunit_kcalloc(test, 8, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	n = st_collect(test, r->t->last, SNAPTRACE_SNAPSHOT, r->t->last_cpu,
		       recs, 8, &end);
	KUNIT_ASSERT_EQ(test, n, 4);
	for (i = 0; i < n; i++)
		remote_bytes += snaptrace_persist_ent_size(recs[i].len);
	last = pr_capture_remotes(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_FULL);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	/* The remote's share: at most half the room; here all it needs. */
	KUNIT_ASSERT_LE(test, remote_bytes, (16384 - x->p.data_off) / ST_PR_SRC_SHARE);
	pr_newest(test, x, 16384 - x->p.data_off - remote_bytes, first);
	pr_expect_kept(test, x, last, first);
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
	struct pr_ctx *x = pr_setup(test, 8192);
	u64 *first = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	struct snaptrace_persist_last *last;
	int s = r->t->pr_src.slot;

	KUNIT_ASSERT_NOT_NULL(test, first);
	last = pr_capture_remotes(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_FULL);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	KUNIT_EXPECT_TRUE(test, last->remotes[s]);
	KUNIT_EXPECT_EQ(test, last->srcs[s].flags, ST_PR_SRC_F_FULL);
	KUNIT_EXPECT_EQ(test, last->srcs[s].entries, 0);
	KUNIT_EXPECT_NULL(test, last->remote_text[s]);
	pr_newest(test, x, 8192 - x->p.data_off, first);
	pr_expect_kept(test, x, last, first);
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

	pr_expect_same(test, x, last, -1, -1);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);

	KUNIT_EXPECT_FALSE(test, r->t->has_last);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);

	KUNIT_ASSERT_EQ(test, snaptrace_clear_snapshot(r->t->last), 0);
	KUNIT_EXPECT_TRUE(test, r->t->has_last);
	pr_expect_no_remote(test, x, pr_capture_remotes(test, x));
}

/*
 * A remote stopped before the capture (its traces freed, the last copy's
 * buffer dropped) is out of the registry: the capture does not read it
 * (KASAN would say if it read freed memory), and nothing of it is kept.
 */
static void persist_remote_removed_not_read(struct kunit *test)
{
	struct pr_remote *r = pr_remote_new(test, true);
	struct pr_ctx *x = pr_setup(test, PR_SIZE);

	pr_remote_free(r->rproc);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->pr_src.slot;

	pr_recrash_rproc = r->rproc;
	x->p.measured = pr_recrash;
	last = pr_capture_remotes(test, x);
	x->p.measured = NULL;
	pr_expect_same(test, x, last, -1, -1);
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
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int s = r->t->pr_src.slot;
	char want[128];
	size_t off;
	u8 *b;

	last = pr_capture_remotes(test, x);
	KUNIT_ASSERT_EQ(test, last->remote_len[s], (size_t)r->len);
	off = pr_ent_off(test, x, ST_PR_ENT_SRC | s, 1);
	KUNIT_ASSERT_EQ(test, ((struct st_pr_ent *)(x->p.base + off))->type,
			SNAPTRACE_REC_TEXT);
	b = x->p.base + off + sizeof(struct st_pr_ent) + 9;
	*b ^= 0x40;
	last = pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->corrupt, 1);
	pr_expect_same(test, x, last, -1, -1);
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

/* ---- the data cache, the region's address and name (ARM) ---- */

/*
 * p->cleaned: called by the region's clean to the point of coherency,
 * right after it: what the region held then, whole, and its state word.
 */
static void pr_cleaned(struct snaptrace_persist *p, size_t len)
{
	struct pr_ctx *x = container_of(p, struct pr_ctx, p);
	const struct st_pr_cap *cap = p->base + sizeof(struct st_pr_hdr);

	x->cleans++;
	x->clean_len = len;
	x->clean_state = READ_ONCE(cap->state);
	memcpy(x->at_clean, p->base, p->size);
}

/*
 * The arming and the capture each clean what they wrote out of the data
 * cache (arm64, 32-bit ARM; the hook runs on every architecture) once,
 * after their last store: the region is then exactly as it was at the
 * clean (nothing stored after it), which is the whole of it (the header
 * sealed, the state armed; the capture finished, its every record, the
 * clean's length up to its last entry). A capture refused over a finished
 * one cleans nothing.
 */
static void persist_clean_after_last_store(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	const struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last;
	struct st_pr_hdr hc;

	x->at_clean = pr_vzalloc(test, PR_SIZE);
	x->p.cleaned = pr_cleaned;
	memset(x->p.base, 0x5a, PR_SIZE);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_arm(&x->p, PR_ARMED_NS), 0);
	KUNIT_EXPECT_EQ(test, x->cleans, 1);
	KUNIT_EXPECT_EQ(test, x->clean_len, (size_t)x->p.data_off);
	KUNIT_EXPECT_EQ(test, x->clean_state, ST_PR_ARMED);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, x->at_clean, PR_SIZE),
			      "the arming stored to the region after its clean");
	memcpy(&hc, x->at_clean, sizeof(hc));
	KUNIT_EXPECT_EQ(test, hc.magic, ST_PR_MAGIC);
	KUNIT_EXPECT_EQ(test, hc.boot_id, PR_BOOT);
	hc.hdr_crc = 0;
	KUNIT_EXPECT_EQ(test, ((struct st_pr_hdr *)x->at_clean)->hdr_crc,
			crc32_le(~0, (const u8 *)&hc, sizeof(hc)));

	pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	KUNIT_EXPECT_EQ(test, x->cleans, 2);
	KUNIT_EXPECT_EQ(test, x->clean_state, ST_PR_CAPTURED);
	KUNIT_EXPECT_GT(test, cap->data_bytes, 0);
	KUNIT_EXPECT_EQ(test, x->clean_len, (size_t)(x->p.data_off + cap->data_bytes));
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, x->at_clean, PR_SIZE),
			      "the capture stored to the region after its clean");
	pr_expect_snapshot(test, x);
	last = snaptrace_persist_parse(x->at_clean, PR_SIZE, PR_PHYS, PR_BOOT + 1,
				       PR_NOW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_last_free, last), 0);
	KUNIT_EXPECT_FALSE(test, last->unfinished);
	pr_expect_same(test, x, last, -1, -1);

	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_OOPS,
							"again", false), -EBUSY);
	KUNIT_EXPECT_EQ(test, x->cleans, 2);
}

/*
 * A capture that did not finish (its CPU stopped part way) cleaned
 * nothing; the panic's capture, refused over it, cleans the whole region
 * (wherever it got to) and changes nothing in it.
 */
static void persist_unfinished_cleaned_by_refused(struct kunit *test)
{
	struct pr_ctx *x = pr_setup(test, PR_SIZE);
	u8 *copy = pr_vzalloc(test, PR_SIZE);
	int cpu;

	x->at_clean = pr_vzalloc(test, PR_SIZE);
	x->p.cleaned = pr_cleaned;
	pr_write(test, x);
	x->p.stop_after = 5;
	cpu = get_cpu();
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_OOPS,
							"oops", false), -EINTR);
	put_cpu();
	x->p.stop_after = 0;
	KUNIT_EXPECT_EQ(test, x->cleans, 0);
	memcpy(copy, x->p.base, PR_SIZE);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_PANIC,
							"panic", false), -EBUSY);
	KUNIT_EXPECT_EQ(test, x->cleans, 1);
	KUNIT_EXPECT_EQ(test, x->clean_len, (size_t)PR_SIZE);
	KUNIT_EXPECT_EQ(test, x->clean_state, ST_PR_CAPTURING | cpu);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, copy, PR_SIZE),
			      "the region changed");
	/* Another load's region (its boot id): not ours to clean. */
	x->p.boot_id = PR_BOOT + 2;
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_PANIC,
							"panic", false), -EBUSY);
	KUNIT_EXPECT_EQ(test, x->cleans, 1);
}

/*
 * A region's start must be a multiple of ST_PR_ADDR_ALIGN (8): refused
 * otherwise, as persist_address= and as a reserve_mem= region's start,
 * with -EINVAL, before the load claims, maps or writes anything. The
 * layout needs it: the state word (cmpxchg'd), and every 64-bit field,
 * at a multiple of its size from the start.
 */
static void persist_misaligned_address_refused(struct kunit *test)
{
	const u64 base = 0x30000000ULL;
	unsigned int off;

	KUNIT_EXPECT_GE(test, ST_PR_ADDR_ALIGN, (int)sizeof(u64));
	KUNIT_EXPECT_EQ(test, sizeof(struct st_pr_hdr) % sizeof(u32), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct st_pr_hdr, boot_id) % sizeof(u64), 0);
	for (off = 0; off <= 2 * ST_PR_ADDR_ALIGN; off++) {
		int want = off % ST_PR_ADDR_ALIGN ? -EINVAL : 0;

		KUNIT_EXPECT_EQ_MSG(test, snaptrace_persist_check_align(base + off, NULL),
				    want, "persist_address=0x%llx", base + off);
		KUNIT_EXPECT_EQ_MSG(test,
				    snaptrace_persist_check_align(base + off, "snaptrace"),
				    want, "reserve_mem= at 0x%llx", base + off);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_persist_check_align(0xfffffffffffff001ULL, NULL),
			-EINVAL);
}

struct pr_user_case {
	const char *cmdline;
	int user;
	const char *arg;	/* what the refusal quotes */
};

/*
 * persist_name= refused when the command line gives the same reserve_mem=
 * region to ftrace (trace_instance=NAME[^FLAGS]@RESNAME[=BACKUP][,EVENTS])
 * or to ramoops (ramoops.mem_name=RESNAME): the parser, on command lines
 * as /proc/cmdline shows them, finds the user and the argument that says
 * so, and nothing else (another region's name, an instance named so, an
 * address, init's arguments after "--"); the line is left as it was.
 */
static void persist_name_user_found(struct kunit *test)
{
	static const struct pr_user_case cases[] = {
		{ "console=ttyS0 trace_instance=boot_map@snaprgn\n",
		  ST_PR_USER_FTRACE, "trace_instance=boot_map@snaprgn" },
		{ "trace_instance=boot_map^traceoff^traceprintk@snaprgn,sched:sched_switch quiet",
		  ST_PR_USER_FTRACE,
		  "trace_instance=boot_map^traceoff^traceprintk@snaprgn,sched:sched_switch" },
		{ "trace_instance=boot_map@snaprgn^traceoff",
		  ST_PR_USER_FTRACE, "trace_instance=boot_map@snaprgn^traceoff" },
		{ "trace_instance=bk@snaprgn=boot_map",
		  ST_PR_USER_FTRACE, "trace_instance=bk@snaprgn=boot_map" },
		{ "quiet \"trace_instance=boot_map@snaprgn\" splash",
		  ST_PR_USER_FTRACE, "trace_instance=boot_map@snaprgn" },
		{ "trace_instance=\"boot_map@snaprgn\"",
		  ST_PR_USER_FTRACE, "trace_instance=boot_map@snaprgn" },
		{ "trace-instance=a@other trace_instance=b@snaprgn",
		  ST_PR_USER_FTRACE, "trace_instance=b@snaprgn" },
		{ "ramoops.mem_name=snaprgn ramoops.mem_size=1048576",
		  ST_PR_USER_RAMOOPS, "ramoops.mem_name=snaprgn" },
		{ "  ramoops.mem-name=snaprgn",
		  ST_PR_USER_RAMOOPS, "ramoops.mem-name=snaprgn" },
		{ "reserve_mem=1M:4096:snaprgn trace_instance=boot_map@snaprgn2",
		  ST_PR_USER_NONE, "" },
		{ "ramoops.mem_name=snaprg ramoops.mem_name=snaprgnx", ST_PR_USER_NONE, "" },
		{ "trace_instance=snaprgn trace_instance=a,snaprgn", ST_PR_USER_NONE, "" },
		{ "trace_instance=boot_map@0x30000000:1M", ST_PR_USER_NONE, "" },
		{ "xtrace_instance=a@snaprgn myramoops.mem_name=snaprgn mem_name=snaprgn",
		  ST_PR_USER_NONE, "" },
		{ "quiet -- trace_instance=a@snaprgn ramoops.mem_name=snaprgn",
		  ST_PR_USER_NONE, "" },
		{ "", ST_PR_USER_NONE, "" },
		{ "\n", ST_PR_USER_NONE, "" },
	};
	char line[160], arg[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		strscpy(line, cases[i].cmdline, sizeof(line));
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_persist_name_user(line, "snaprgn",
								      arg, sizeof(arg)),
				    cases[i].user, "%s", cases[i].cmdline);
		KUNIT_EXPECT_STREQ_MSG(test, arg, cases[i].arg, "%s", cases[i].cmdline);
		KUNIT_EXPECT_STREQ(test, line, cases[i].cmdline);
	}
	/* The argument quoted is cut to the room given. */
	KUNIT_EXPECT_EQ(test, snaptrace_persist_name_user("ramoops.mem_name=snaprgn",
							  "snaprgn", arg, 8),
			ST_PR_USER_RAMOOPS);
	KUNIT_EXPECT_STREQ(test, arg, "ramoops");
}

static struct kunit_case snaptrace_persist_cases[] = {
	KUNIT_CASE(persist_crc_is_crc32_le),
	KUNIT_CASE(persist_capture_gives_back_every_record),
	KUNIT_CASE(persist_capture_with_irqs_off),
	KUNIT_CASE(persist_capture_in_hardirq),
	KUNIT_CASE(persist_capture_in_nmi),
	KUNIT_CASE(persist_open_record_is_torn),
	KUNIT_CASE(persist_second_capture_refused),
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
	KUNIT_CASE(persist_corrupt_payload_dropped),
	KUNIT_CASE(persist_corrupt_header_dropped),
	KUNIT_CASE(persist_full_region_says_so),
	KUNIT_CASE(persist_full_region_shares_what_is_unused),
	KUNIT_CASE(persist_no_spare_no_records),
	KUNIT_CASE(persist_capture_ignores_scribbled_header),
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
	KUNIT_CASE(persist_remote_last_trace_kept),
	KUNIT_CASE(persist_remote_budget_exact),
	KUNIT_CASE(persist_remote_left_out_whole),
	KUNIT_CASE(persist_remote_none),
	KUNIT_CASE(persist_remote_last_trace_empty),
	KUNIT_CASE(persist_remote_removed_not_read),
	KUNIT_CASE(persist_remote_replaced_between_walks),
	KUNIT_CASE(persist_remote_registry_full),
	KUNIT_CASE(persist_remote_corrupt_entry_dropped),
	KUNIT_CASE(persist_walk_ignores_live_writes),
	KUNIT_CASE(persist_walk_stops_when_snapshot_taken),
	KUNIT_CASE(persist_walk_ends_with_writer_keeping_pace),
	KUNIT_CASE(persist_walk_no_snapshot_nothing),
	KUNIT_CASE(persist_clean_after_last_store),
	KUNIT_CASE(persist_unfinished_cleaned_by_refused),
	KUNIT_CASE(persist_misaligned_address_refused),
	KUNIT_CASE(persist_name_user_found),
	{}
};

static struct kunit_suite snaptrace_persist_suite = {
	.name = "snaptrace_persist",
	.test_cases = snaptrace_persist_cases,
};

kunit_test_suites(&snaptrace_persist_suite);
