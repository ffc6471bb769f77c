// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the simulated remote processors (src/rproc.c): da_to_va,
 * the trace handler's contract, start/stop error paths, and the crash
 * capture from hardirq context.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/test.h>

#include <snaptrace/rsc_table.h>
#include <snaptrace/snaptrace.h>
#include "../src/fw.h"
#include "../src/rproc.h"
#include "st_kunit.h"

#define EXAMPLE_FW "snaptrace/example64.elf"

/* A bare remote with hand-made memory: enough for da_to_va and traces. */
static struct snaptrace_rproc *bare_rproc(struct kunit *test)
{
	struct snaptrace_rproc *rproc = kunit_kzalloc(test, sizeof(*rproc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rproc);
	INIT_LIST_HEAD(&rproc->mems);
	INIT_LIST_HEAD(&rproc->traces);
	mutex_init(&rproc->lock);
	return rproc;
}

static void add_mem(struct kunit *test, struct snaptrace_rproc *rproc, u32 da,
		    u32 len)
{
	struct snaptrace_rproc_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->va = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->va);
	m->da = da;
	m->len = len;
	m->kind = "region";
	list_add_tail(&m->node, &rproc->mems);
}

static void free_traces(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *t, *tn;

	list_for_each_entry_safe(t, tn, &rproc->traces, node) {
		list_del(&t->node);
		snaptrace_buffer_free(t->last);
		kfree(t);
	}
	rproc->num_traces = 0;
}

/* The whole range must lie in one mapping; no arithmetic may wrap. */
static void da_to_va_bounds(struct kunit *test)
{
	struct snaptrace_rproc *rproc = bare_rproc(test);
	struct snaptrace_rproc_mem *m;
	u8 *va;

	add_mem(test, rproc, 0x1000, 0x1000);
	add_mem(test, rproc, 0x2000, 0x1000);	/* adjacent */
	add_mem(test, rproc, 0xfffff000, 0x1000);	/* at the top of 32 bits */
	m = list_first_entry(&rproc->mems, struct snaptrace_rproc_mem, node);
	va = m->va;

	KUNIT_EXPECT_PTR_EQ(test, snaptrace_rproc_da_to_va(rproc, 0x1000, 0x1000, NULL), va);
	KUNIT_EXPECT_PTR_EQ(test, snaptrace_rproc_da_to_va(rproc, 0x1fff, 1, NULL), va + 0xfff);
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1fff, 2, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0xfff, 2, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1000, 0, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1000, 0x1001, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1800, 0x1000, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1000, SIZE_MAX, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, U64_MAX, 1, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x3000, 1, NULL));
	KUNIT_EXPECT_NOT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0xffffffff, 1, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0xffffffff, 2, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x100000000ULL, 1, NULL));
}

struct trace_case {
	const char *desc;
	u32 da, len, reserved;
	int avail_delta;	/* added to sizeof(struct snaptrace_fw_rsc_trace) */
	int want;
};

static const struct trace_case trace_cases[] = {
	{ "good, at the start of a region", 0x1000, 0x100, 0, 0, 0 },
	{ "good, ending exactly at the region's end", 0x1f00, 0x100, 0, 0, 0 },
	{ "good, with room to spare in the table", 0x1000, 0x100, 0, 64, 0 },
	{ "truncated entry", 0x1000, 0x100, 0, -1, -EINVAL },
	{ "reserved not zero", 0x1000, 0x100, 1, 0, -EINVAL },
	{ "len 0", 0x1000, 0, 0, 0, -EINVAL },
	{ "da + len overflows 32 bits", 0xffffff00, 0x200, 0, 0, -EINVAL },
	{ "da outside every mapping", 0x8000, 0x10, 0, 0, -EINVAL },
	{ "da exactly at a region's end", 0x2000, 0x10, 0, 0, -EINVAL },
	{ "runs past the region's end", 0x1f00, 0x101, 0, 0, -EINVAL },
	{ "len larger than the trace maximum", 0x1000, SNAPTRACE_RPROC_TRACE_MAX + 1,
	  0, 0, -EINVAL },
};

static void trace_case_desc(const struct trace_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(trace, trace_cases, trace_case_desc);

/*
 * rproc_handle_trace()'s contract, with the stronger checks: 0 and a trace
 * with its last copy ready, or -EINVAL and nothing allocated.
 */
static void handle_trace_contract(struct kunit *test)
{
	const struct trace_case *c = test->param_value;
	struct snaptrace_rproc *rproc = bare_rproc(test);
	struct snaptrace_fw_rsc_trace *rsc;
	struct snaptrace_rproc_trace *t;
	int ret;

	add_mem(test, rproc, 0x1000, 0x1000);
	rsc = kunit_kzalloc(test, sizeof(*rsc) + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsc);
	rsc->da = c->da;
	rsc->len = c->len;
	rsc->reserved = c->reserved;
	memcpy(rsc->name, "log", 3);

	ret = snaptrace_rproc_handle_trace(rproc, rsc, 0x40,
					   (int)sizeof(*rsc) + c->avail_delta);
	KUNIT_EXPECT_EQ(test, ret, c->want);
	if (c->want) {
		KUNIT_EXPECT_EQ(test, rproc->num_traces, 0);
		KUNIT_EXPECT_TRUE(test, list_empty(&rproc->traces));
		return;
	}
	KUNIT_ASSERT_EQ(test, rproc->num_traces, 1);
	t = list_first_entry(&rproc->traces, struct snaptrace_rproc_trace, node);
	KUNIT_EXPECT_EQ(test, t->index, 0);
	KUNIT_EXPECT_EQ(test, t->da, c->da);
	KUNIT_EXPECT_EQ(test, t->len, c->len);
	KUNIT_EXPECT_STREQ(test, t->name, "log");
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(t->last));
	KUNIT_EXPECT_FALSE(test, t->has_last);
	free_traces(rproc);
}

/* traceN counts from 0 per remote; a 32-byte name without NUL is bounded. */
static void handle_trace_numbering_and_name(struct kunit *test)
{
	struct snaptrace_rproc *rproc = bare_rproc(test);
	struct snaptrace_fw_rsc_trace rsc = { .da = 0x1000, .len = 0x80 };
	struct snaptrace_rproc_trace *t;

	add_mem(test, rproc, 0x1000, 0x1000);
	memcpy(rsc.name, "%s%n%s%n%s%n%s%n%s%n%s%n%s%n%s%n", 32);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_handle_trace(rproc, &rsc, 0, sizeof(rsc)), 0);
	rsc.da = 0x1800;
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_handle_trace(rproc, &rsc, 0, sizeof(rsc)), 0);
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 2);
	t = list_last_entry(&rproc->traces, struct snaptrace_rproc_trace, node);
	KUNIT_EXPECT_EQ(test, t->index, 1);
	KUNIT_EXPECT_EQ(test, strlen(t->name), SNAPTRACE_RSC_NAME_LEN);
	free_traces(rproc);
}

/* Firmware cannot make us allocate without bound: traces are capped. */
static void trace_limits(struct kunit *test)
{
	struct snaptrace_rproc *rproc = bare_rproc(test);
	struct snaptrace_fw_rsc_trace rsc = { .len = 0x80 };
	int i;

	add_mem(test, rproc, 0x1000, 0x1000);
	for (i = 0; i < SNAPTRACE_RPROC_MAX_TRACES; i++) {
		rsc.da = 0x1000 + i * 0x80;
		KUNIT_ASSERT_EQ(test, snaptrace_rproc_handle_trace(rproc, &rsc, 0, sizeof(rsc)), 0);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_trace(rproc, &rsc, 0, sizeof(rsc)), -EINVAL);
	KUNIT_EXPECT_EQ(test, rproc->num_traces, SNAPTRACE_RPROC_MAX_TRACES);
	free_traces(rproc);
	rproc->traces_len = SNAPTRACE_RPROC_TRACES_TOTAL - 0x40;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_trace(rproc, &rsc, 0, sizeof(rsc)), -EINVAL);
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 0);
}

/* Tables with too many entries, or too large, are refused before any work. */
static void table_limits(struct kunit *test)
{
	size_t sz = SNAPTRACE_RSC_TABLE_MAX + 4;
	u32 *t = kunit_kzalloc(test, sz, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t[0] = 1;					/* ver */
	t[1] = SNAPTRACE_RSC_MAX_ENTRIES + 1;		/* num */
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_table_check(NULL, t, 4096), -EINVAL);
	t[1] = 0;
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_table_check(NULL, t, 4096), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rsc_table_check(NULL, t, sz), -EINVAL);
}

static struct snaptrace_rproc *real_rproc(struct kunit *test, int index)
{
	struct snaptrace_rproc *rproc = snaptrace_rproc_create(index, "default");

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(rproc), "create: %pe", rproc);
	return rproc;
}

/* Bad names and a missing file fail, and a failed start leaves nothing. */
static void start_errors_leave_nothing(struct kunit *test)
{
	struct snaptrace_rproc *rproc = real_rproc(test, 106);

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_start(rproc), -EINVAL);	/* no name */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, ""), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "../x"), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "/abs"), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "a b"), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "snaptrace/none.elf"), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_start(rproc), -ENOENT);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_OFFLINE);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->mems));
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->traces));
	KUNIT_EXPECT_NULL(test, rproc->table);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), -EINVAL);
	snaptrace_rproc_destroy(rproc);
}

struct crash_ctx {
	struct hrtimer timer;
	struct snaptrace_rproc *rproc;
	bool in_hardirq;
	struct completion done;
};

static enum hrtimer_restart crash_from_timer(struct hrtimer *t)
{
	struct crash_ctx *ctx = container_of(t, struct crash_ctx, timer);

	ctx->in_hardirq = in_hardirq();
	snaptrace_rproc_report_crash(ctx->rproc, SNAPTRACE_RPROC_WATCHDOG);
	complete(&ctx->done);
	return HRTIMER_NORESTART;
}

/*
 * A crash reported from a hardirq timer, as a watchdog interrupt would,
 * captures each trace into traceN_last without sleeping (KASAN, lockdep
 * and DEBUG_ATOMIC_SLEEP watch); after recovery the last trace stays.
 */
static void crash_capture_from_hardirq(struct kunit *test)
{
	struct snaptrace_rproc *rproc = real_rproc(test, 107);
	struct snaptrace_rproc_trace *t;
	struct crash_ctx ctx = { .rproc = rproc };
	char *at_crash, *last;
	const char *va;
	int ret;

	snaptrace_rproc_set_firmware(rproc, EXAMPLE_FW);
	ret = snaptrace_rproc_start(rproc);
	if (ret == -ENOENT) {
		snaptrace_rproc_destroy(rproc);
		kunit_skip(test, EXAMPLE_FW " is not in /lib/firmware");
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	WRITE_ONCE(rproc->recovery, false);
	msleep(200);	/* let the core log a few lines */

	init_completion(&ctx.done);
	hrtimer_init(&ctx.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ctx.timer.function = crash_from_timer;
	hrtimer_start(&ctx.timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	wait_for_completion(&ctx.done);
	hrtimer_cancel(&ctx.timer);

	KUNIT_EXPECT_TRUE(test, ctx.in_hardirq);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);
	KUNIT_ASSERT_EQ(test, rproc->num_traces, 2);
	list_for_each_entry(t, &rproc->traces, node) {
		at_crash = kunit_kzalloc(test, t->len + 1, GFP_KERNEL);
		last = kunit_kzalloc(test, t->len + 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, at_crash);
		KUNIT_ASSERT_NOT_NULL(test, last);
		va = snaptrace_rproc_da_to_va(rproc, t->da, t->len, NULL);
		KUNIT_ASSERT_NOT_NULL(test, va);
		strscpy(at_crash, va, t->len + 1);	/* the core is stopped */
		KUNIT_EXPECT_TRUE(test, t->has_last);
		KUNIT_EXPECT_GT(test, strlen(at_crash), 0);
		KUNIT_EXPECT_EQ(test, snaptrace_rproc_read_last(t, last, t->len),
				(ssize_t)strlen(at_crash));
		KUNIT_EXPECT_STREQ(test, last, at_crash);
	}

	/* Recovery restarts the log; the last trace is kept. */
	t = list_first_entry(&rproc->traces, struct snaptrace_rproc_trace, node);
	va = snaptrace_rproc_da_to_va(rproc, t->da, t->len, NULL);
	at_crash = kunit_kzalloc(test, t->len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, at_crash);
	strscpy(at_crash, va, t->len + 1);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_recover(rproc), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_RUNNING);
	msleep(120);
	last = kunit_kzalloc(test, t->len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, last);
	snaptrace_rproc_read_last(t, last, t->len);
	KUNIT_EXPECT_STREQ(test, last, at_crash);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, EXAMPLE_FW), -EBUSY);

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->traces));
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->mems));
	snaptrace_rproc_destroy(rproc);
}

/* A crash reported while the remote is not running changes nothing. */
static void crash_when_offline_ignored(struct kunit *test)
{
	struct snaptrace_rproc *rproc = real_rproc(test, 105);

	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_FATAL_ERROR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_OFFLINE);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_recover(rproc), -EINVAL);
	snaptrace_rproc_destroy(rproc);
}

/* Layouts: presets, explicit regions, and bad ones refused. */
static void layouts(struct kunit *test)
{
	static const char * const bad[] = {
		"", "sram", "sram:0x0", "sram:0x0:0", "sram:x:0x1000",
		"a:0x0:0x1000+b:0x800:0x1000", "top:0xfffff000:0x2000",
	};
	struct snaptrace_rproc *rproc;
	int i;

	rproc = snaptrace_rproc_create(104, "stm32mp157");
	KUNIT_ASSERT_FALSE(test, IS_ERR(rproc));
	KUNIT_EXPECT_EQ(test, rproc->nr_layout, 2);
	KUNIT_EXPECT_EQ(test, rproc->layout[1].da, 0x10000000);
	snaptrace_rproc_destroy(rproc);

	rproc = snaptrace_rproc_create(104, "a:0x0:0x1000+b:0x1000:0x2000");
	KUNIT_ASSERT_FALSE(test, IS_ERR(rproc));
	KUNIT_EXPECT_EQ(test, rproc->nr_layout, 2);
	KUNIT_EXPECT_EQ(test, rproc->layout[1].len, 0x2000);
	snaptrace_rproc_destroy(rproc);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(snaptrace_rproc_create(104, bad[i])),
				    -EINVAL, "layout \"%s\"", bad[i]);
}

static struct kunit_case snaptrace_rproc_cases[] = {
	KUNIT_CASE(da_to_va_bounds),
	KUNIT_CASE_PARAM(handle_trace_contract, trace_gen_params),
	KUNIT_CASE(handle_trace_numbering_and_name),
	KUNIT_CASE(trace_limits),
	KUNIT_CASE(table_limits),
	KUNIT_CASE(start_errors_leave_nothing),
	KUNIT_CASE(crash_capture_from_hardirq),
	KUNIT_CASE(crash_when_offline_ignored),
	KUNIT_CASE(layouts),
	{}
};

static struct kunit_suite snaptrace_rproc_suite = {
	.name = "snaptrace_rproc",
	.test_cases = snaptrace_rproc_cases,
};

kunit_test_suites(&snaptrace_rproc_suite);
