// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the snaptrace_persist* KUnit suites (persist_kunit.h):
 * a region armed on vmalloc'd memory, the records written and expected,
 * the capture parsed and checked, what a full region keeps, a seq_file.
 */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "st_kunit.h"
#include "persist_kunit.h"

/* Records written on each online CPU have these lengths, cycled. */
const size_t st_pr_lens[PR_NR_LENS] = { 20, 41, 64, 108, 200, 23 };

KUNIT_DEFINE_ACTION_WRAPPER(pr_vfree, vfree, const void *);

/* snaptrace_persist_last_free() as a KUnit action. */
void st_pr_last_free(void *last)
{
	snaptrace_persist_last_free(last);
}

void *st_pr_vzalloc(struct kunit *test, size_t size)
{
	void *p = vzalloc(size ? size : 1);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_vfree, p), 0);
	return p;
}

/* A region of @size bytes, armed, and a buffer with its spare allocated. */
struct pr_ctx *st_pr_setup(struct kunit *test, size_t size)
{
	struct pr_ctx *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->p.base = st_pr_vzalloc(test, size);
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
void st_pr_write(struct kunit *test, struct pr_ctx *x)
{
	unsigned int i;
	int cpu;

	for_each_online_cpu(cpu) {
		for (i = 0; i < PR_PER_CPU; i++) {
			struct st_wcount wc = st_write_n(test, x->buf, cpu, 1,
							 st_pr_lens[i % ARRAY_SIZE(st_pr_lens)], i);

			KUNIT_ASSERT_EQ(test, wc.ok, 1);
		}
	}
}

/* Every record of the snapshot, CPU by CPU, as an iterator reads them. */
void st_pr_expect_snapshot(struct kunit *test, struct pr_ctx *x)
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

struct snaptrace_persist_last *st_pr_parse(struct kunit *test,
					   struct pr_ctx *x)
{
	struct snaptrace_persist_last *last;

	last = snaptrace_persist_parse(x->p.base, x->p.size, PR_PHYS, PR_BOOT + 1,
				       PR_NOW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_pr_last_free, last), 0);
	return last;
}

/* The entry of @cpu with capture seq @seq in @last, or NULL. */
const struct st_pr_ent *st_pr_find(const struct snaptrace_persist_last *last,
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
void st_pr_expect_same(struct kunit *test, struct pr_ctx *x,
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
		e = st_pr_find(last, r->cpu, seq);
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

/* What every capture of st_pr_write()'s records says about itself. */
void st_pr_expect_cap(struct kunit *test, struct pr_ctx *x,
		      const struct snaptrace_persist_last *last, int cpu)
{
	KUNIT_EXPECT_EQ(test, last->hdr.boot_id, PR_BOOT);
	KUNIT_EXPECT_EQ(test, last->hdr.phys, PR_PHYS);
	KUNIT_EXPECT_EQ(test, last->hdr.armed_real_ns, PR_ARMED_NS);
	KUNIT_EXPECT_EQ(test, last->cap.reason, (u32)ST_PR_TEST);
	KUNIT_EXPECT_EQ(test, last->cap.cpu, cpu);
	KUNIT_EXPECT_EQ(test, last->cap.flags, 0);
	KUNIT_EXPECT_STREQ(test, last->cap.msg, "test capture");
	KUNIT_EXPECT_EQ(test, last->cap.kernel_anchor, snaptrace_persist_kernel_anchor());
	KUNIT_EXPECT_EQ(test, last->cap.nr_mods, 1);
	KUNIT_EXPECT_STREQ(test, last->cap.mods[0].name, "snaptrace");
	KUNIT_EXPECT_EQ(test, last->cap.mods[0].base, x->p.mods[0].base);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
}

/* A region holding a capture of st_pr_write()'s records. */
struct pr_ctx *st_pr_captured(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);

	st_pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	x->copy = st_pr_vzalloc(test, PR_SIZE);
	return x;
}

/* A seq_file of 1 KiB, for the lines of info's show functions. */
struct seq_file *st_pr_seq(struct kunit *test)
{
	struct seq_file *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->size = 1024;
	m->buf = kunit_kzalloc(test, m->size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	return m;
}

/* What was shown into @m (it must have fit); @m emptied for the next. */
char *st_pr_seq_take(struct kunit *test, struct seq_file *m)
{
	char *text = kunit_kzalloc(test, m->count + 1, GFP_KERNEL);

	KUNIT_ASSERT_LT(test, m->count, m->size);
	KUNIT_ASSERT_NOT_NULL(test, text);
	memcpy(text, m->buf, m->count);
	m->count = 0;
	return text;
}

/* The offset in the region of @cpu's entry of capture seq @seq. */
size_t st_pr_ent_off(struct kunit *test, struct pr_ctx *x, unsigned int cpu,
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

/*
 * What a region of @room data bytes keeps of the snapshot in @x->recs
 * (CPU by CPU, oldest first), computed here the way persist.rst says:
 * a fair share per CPU, filled in rounds (a CPU needing less than the
 * share keeps all and leaves the rest to the others), what a CPU leaves
 * of its share going to the CPUs after it; each CPU keeps the newest run
 * of its records that fits. Sets @first[cpu], its first record kept.
 */
void st_pr_newest(struct kunit *test, struct pr_ctx *x, u64 room, u64 *first)
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
void st_pr_expect_kept(struct kunit *test, struct pr_ctx *x,
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
		e = st_pr_find(last, r->cpu, seq);
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
