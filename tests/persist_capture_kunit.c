// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the persistent capture (Documentation/persist.rst):
 * the capture itself (src/persist_capture.c): a capture called directly and
 * from IRQs off, a hardirq and an NMI gives back at validation exactly the
 * records the snapshot holds (time stamps, positions, CPUs, payloads), and
 * leaves out a record open at the capture, counted as torn; a second
 * capture is refused; a corrupt entry is dropped and counted, and only
 * that one; a full region keeps each CPU's newest records and says so;
 * the region is cleaned out of the data cache after the last store; the
 * load's checks of the region's address and name (src/persist_load.c).
 *
 * On an ordinary vmalloc'd "region"; the CRCs are recomputed here from the
 * layout in src/persist.h, as a reader of the format would. What the
 * snaptrace_persist* suites share is in persist_helpers.c.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/crc32.h>
#include <linux/err.h>
#include <linux/kallsyms.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "st_kunit.h"
#include "../src/persist.h"
#include "../src/ring.h"
#include "../src/rproc.h"
#include "persist_kunit.h"

/* Direct call: every record of every CPU comes back, exactly. */
static void persist_capture_gives_back_every_record(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	int cpu;

	st_pr_write(test, x);
	cpu = get_cpu();
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	put_cpu();
	st_pr_expect_snapshot(test, x);
	KUNIT_EXPECT_EQ(test, x->nr, num_online_cpus() * PR_PER_CPU);
	last = st_pr_parse(test, x);
	st_pr_expect_cap(test, x, last, cpu);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	KUNIT_EXPECT_EQ(test, last->cap.entries, (u64)x->nr);
	st_pr_expect_same(test, x, last, -1, -1);
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
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	struct st_job *job;

	st_pr_write(test, x);
	job = st_job_new(test, x->buf, ctx, pr_job_capture);
	job->data = &x->p;
	st_job_go(test, job);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	st_pr_expect_snapshot(test, x);
	KUNIT_EXPECT_EQ(test, x->nr, num_online_cpus() * PR_PER_CPU);
	last = st_pr_parse(test, x);
	st_pr_expect_cap(test, x, last, job->cpu);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	st_pr_expect_same(test, x, last, -1, -1);
}

static const enum st_ctx pr_capture_ctxs[] = {
	ST_CTX_IRQS_OFF,
	ST_CTX_HARDIRQ,
	ST_CTX_NMI,
};

KUNIT_ARRAY_PARAM(pr_capture_ctx, pr_capture_ctxs, st_ctx_desc);

/* The capture with IRQs off, in a hardirq and in an NMI. */
static void persist_capture_in_context(struct kunit *test)
{
	pr_capture_in(test, st_param_ctx(test));
}

/*
 * A capture from an interrupt while this task holds a record open: the
 * open record is not in the region, counted torn on its CPU; every record
 * committed before it is.
 */
static void persist_open_record_is_torn(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;
	struct st_job *job;
	unsigned int i, c;
	int cpu;

	st_pr_write(test, x);
	job = st_job_new(test, x->buf, ST_CTX_IRQ_WORK, pr_job_capture);
	job->data = &x->p;
	cpu = st_job_in_reservation(test, job, 48, PR_PER_CPU);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->cpu, cpu);
	/* The open record was committed late, into the snapshot. */
	st_pr_expect_snapshot(test, x);
	KUNIT_EXPECT_EQ(test, x->nr, num_online_cpus() * PR_PER_CPU + 1);
	last = st_pr_parse(test, x);
	st_pr_expect_cap(test, x, last, cpu);
	KUNIT_EXPECT_EQ(test, last->torn, 1);
	KUNIT_EXPECT_EQ(test, last->cap.torn, 1);
	KUNIT_EXPECT_EQ(test, last->kept, (u64)num_online_cpus() * PR_PER_CPU);
	for (c = 0; c < last->nr_cpus; c++)
		KUNIT_EXPECT_EQ_MSG(test, last->per_cpu[c].torn, c == cpu, "cpu %u", c);
	st_pr_expect_same(test, x, last, cpu, PR_PER_CPU);
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
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	u8 *copy = st_pr_vzalloc(test, PR_SIZE);

	st_pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	memcpy(copy, x->p.base, PR_SIZE);
	KUNIT_EXPECT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_OOPS,
							"again", false), -EBUSY);
	/* memcmp(): KUnit's hexdump of a 1 MiB mismatch takes minutes. */
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, copy, PR_SIZE),
			      "the region changed");
}

/* ---- corrupt entries ---- */

/* A byte flipped in one entry's payload: that record only is dropped. */
static void persist_corrupt_payload_dropped(struct kunit *test)
{
	struct pr_ctx *x = st_pr_captured(test);
	struct snaptrace_persist_last *last;
	unsigned int cpu = st_cpu();
	size_t off = st_pr_ent_off(test, x, cpu, 7);
	u8 *b = x->p.base + off + sizeof(struct st_pr_ent) + 5;

	*b ^= 0x40;
	st_pr_expect_snapshot(test, x);
	last = st_pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->corrupt, 1);
	KUNIT_EXPECT_EQ(test, last->torn, 0);
	st_pr_expect_same(test, x, last, cpu, 7);
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
		struct pr_ctx *x = st_pr_captured(test);
		struct snaptrace_persist_last *last;
		size_t off = st_pr_ent_off(test, x, cpu, 3 + i);
		u8 *b = x->p.base + off + fields[i];

		*b ^= 0x81;
		st_pr_expect_snapshot(test, x);
		last = st_pr_parse(test, x);
		KUNIT_EXPECT_EQ_MSG(test, last->corrupt, 1, "field %u", i);
		st_pr_expect_same(test, x, last, cpu, 3 + i);
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
	struct pr_ctx *x = st_pr_setup(test, 8192);
	u64 *first = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	struct snaptrace_persist_last *last;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, first);
	st_pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	st_pr_expect_snapshot(test, x);
	last = st_pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->cap.flags, ST_PR_F_FULL);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	st_pr_newest(test, x, 8192 - x->p.data_off, first);
	for_each_online_cpu(cpu) {
		/* Every CPU keeps its newest, none keeps its oldest. */
		KUNIT_EXPECT_GT_MSG(test, first[cpu], 0, "cpu %d", cpu);
		KUNIT_EXPECT_LT_MSG(test, first[cpu], PR_PER_CPU - 1, "cpu %d", cpu);
	}
	st_pr_expect_kept(test, x, last, first);
}

/*
 * A CPU with few records keeps them all, and the share it does not use
 * goes to the others, which keep their newest.
 */
static void persist_full_region_shares_what_is_unused(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, 4096);
	u64 *first = kunit_kcalloc(test, nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	struct snaptrace_persist_last *last;
	unsigned int i, n;
	int cpu, few = cpumask_first(cpu_online_mask);

	KUNIT_ASSERT_NOT_NULL(test, first);
	for_each_online_cpu(cpu) {
		n = cpu == few ? 3 : PR_PER_CPU;
		for (i = 0; i < n; i++) {
			struct st_wcount wc = st_write_n(test, x->buf, cpu, 1,
							 st_pr_lens[i % ARRAY_SIZE(st_pr_lens)], i);

			KUNIT_ASSERT_EQ(test, wc.ok, 1);
		}
	}
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	st_pr_expect_snapshot(test, x);
	last = st_pr_parse(test, x);
	KUNIT_EXPECT_EQ(test, last->corrupt, 0);
	st_pr_newest(test, x, 4096 - x->p.data_off, first);
	KUNIT_EXPECT_EQ(test, first[few], 0);
	KUNIT_EXPECT_EQ(test, last->per_cpu[few].entries, 3);
	for_each_online_cpu(cpu)
		if (cpu != few)
			KUNIT_EXPECT_GT_MSG(test, first[cpu], 0, "cpu %d", cpu);
	st_pr_expect_kept(test, x, last, first);
}

/* Without a spare the capture says so, with no records. */
static void persist_no_spare_no_records(struct kunit *test)
{
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct snaptrace_persist_last *last;

	snaptrace_free_snapshot(x->buf);
	st_pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_PANIC,
							"no spare", false), 0);
	last = st_pr_parse(test, x);
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
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	struct st_pr_hdr *h = x->p.base, saved = *h;
	struct snaptrace_persist_last *last;
	int cpu;

	st_pr_write(test, x);
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
	st_pr_expect_snapshot(test, x);
	last = st_pr_parse(test, x);
	st_pr_expect_cap(test, x, last, cpu);
	KUNIT_EXPECT_EQ(test, last->kept, (u64)num_online_cpus() * PR_PER_CPU);
	st_pr_expect_same(test, x, last, -1, -1);
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
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	const struct st_pr_cap *cap = x->p.base + sizeof(struct st_pr_hdr);
	struct snaptrace_persist_last *last;
	struct st_pr_hdr hc;

	x->at_clean = st_pr_vzalloc(test, PR_SIZE);
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

	st_pr_write(test, x);
	KUNIT_ASSERT_EQ(test, snaptrace_persist_capture(&x->p, x->buf, ST_PR_TEST,
							"test capture", false), 0);
	KUNIT_EXPECT_EQ(test, x->cleans, 2);
	KUNIT_EXPECT_EQ(test, x->clean_state, ST_PR_CAPTURED);
	KUNIT_EXPECT_GT(test, cap->data_bytes, 0);
	KUNIT_EXPECT_EQ(test, x->clean_len, (size_t)(x->p.data_off + cap->data_bytes));
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(x->p.base, x->at_clean, PR_SIZE),
			      "the capture stored to the region after its clean");
	st_pr_expect_snapshot(test, x);
	last = snaptrace_persist_parse(x->at_clean, PR_SIZE, PR_PHYS, PR_BOOT + 1,
				       PR_NOW);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_pr_last_free, last), 0);
	KUNIT_EXPECT_FALSE(test, last->unfinished);
	st_pr_expect_same(test, x, last, -1, -1);

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
	struct pr_ctx *x = st_pr_setup(test, PR_SIZE);
	u8 *copy = st_pr_vzalloc(test, PR_SIZE);
	int cpu;

	x->at_clean = st_pr_vzalloc(test, PR_SIZE);
	x->p.cleaned = pr_cleaned;
	st_pr_write(test, x);
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

/*
 * The anchor is _printk()'s address as kallsyms knows the symbol: on a
 * Thumb-2 kernel, without the instruction-set bit a function pointer
 * carries ("_printk+0x1/" otherwise).
 */
static void persist_kernel_anchor_is_the_symbol(struct kunit *test)
{
	char sym[KSYM_SYMBOL_LEN];

	snprintf(sym, sizeof(sym), "%pS",
		 (void *)(unsigned long)snaptrace_persist_kernel_anchor());
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(sym, "_printk+0x0/"), "%s", sym);
}

static struct kunit_case snaptrace_persist_cases[] = {
	KUNIT_CASE(persist_capture_gives_back_every_record),
	KUNIT_CASE_PARAM(persist_capture_in_context, pr_capture_ctx_gen_params),
	KUNIT_CASE(persist_open_record_is_torn),
	KUNIT_CASE(persist_second_capture_refused),
	KUNIT_CASE(persist_corrupt_payload_dropped),
	KUNIT_CASE(persist_corrupt_header_dropped),
	KUNIT_CASE(persist_full_region_says_so),
	KUNIT_CASE(persist_full_region_shares_what_is_unused),
	KUNIT_CASE(persist_no_spare_no_records),
	KUNIT_CASE(persist_capture_ignores_scribbled_header),
	KUNIT_CASE(persist_clean_after_last_store),
	KUNIT_CASE(persist_unfinished_cleaned_by_refused),
	KUNIT_CASE(persist_misaligned_address_refused),
	KUNIT_CASE(persist_name_user_found),
	KUNIT_CASE(persist_kernel_anchor_is_the_symbol),
	{}
};

static struct kunit_suite snaptrace_persist_suite = {
	.name = "snaptrace_persist",
	.test_cases = snaptrace_persist_cases,
};

kunit_test_suites(&snaptrace_persist_suite);
