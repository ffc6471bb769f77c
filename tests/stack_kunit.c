// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of stack dumps (src/stack.c): snaptrace_dump_stack() records
 * the caller's stack as one record, from any context, and the trace file
 * shows it symbolised, bounded to one line's worth.
 */
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

static noinline int st_stack_inner(struct snaptrace_buffer *buf, unsigned int skip)
{
	int ret = snaptrace_dump_stack(buf, skip);

	barrier();	/* no tail call: keep this frame on the stack */
	return ret;
}

static noinline int st_stack_outer(struct snaptrace_buffer *buf, unsigned int skip)
{
	int ret = st_stack_inner(buf, skip);

	barrier();
	return ret;
}

/* Consume the one stack record in @buf; NULL if there is none. */
static struct snaptrace_record *st_stack_rec(struct kunit *test,
					     struct snaptrace_buffer *buf)
{
	struct snaptrace_record *rec = st_rec_new(test);

	while (!snaptrace_consume(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec))
		if (rec->type == SNAPTRACE_REC_STACK)
			return rec;
	return NULL;
}

static char *st_sym(struct kunit *test, const struct snaptrace_record *rec,
		    unsigned int i)
{
	unsigned long addr;

	char *sym;

	memcpy(&addr, rec->data + i * sizeof(addr), sizeof(addr));
	sym = st_fmt(test, "%ps", (void *)addr);
	/* The function's name, without " [module]". */
	sym[strcspn(sym, " ")] = '\0';
	return sym;
}

/* One record of return addresses, innermost first, starting at the caller. */
static void stack_records_caller(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec;

	KUNIT_ASSERT_EQ(test, st_stack_outer(buf, 0), 0);
	rec = st_stack_rec(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, rec->len % sizeof(long), 0);
	KUNIT_EXPECT_GE(test, rec->len / sizeof(long), 2);
	KUNIT_EXPECT_LE(test, rec->len / sizeof(long), SNAPTRACE_STACK_MAX_DEPTH);
	KUNIT_EXPECT_STREQ(test, st_sym(test, rec, 0), "st_stack_inner");
	KUNIT_EXPECT_STREQ(test, st_sym(test, rec, 1), "st_stack_outer");

	/* skip leaves out that many callers. */
	KUNIT_ASSERT_EQ(test, st_stack_outer(buf, 1), 0);
	rec = st_stack_rec(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_STREQ(test, st_sym(test, rec, 0), "st_stack_outer");

	/* Skipping past the whole stack records nothing. */
	KUNIT_EXPECT_EQ(test, st_stack_outer(buf, 1000), -ENODATA);
	KUNIT_EXPECT_NULL(test, st_stack_rec(test, buf));
}

/* The trace file shows it symbolised, one " => " line per address. */
static void stack_shown_in_trace(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_default_fresh(test);
	char *text, *at;

	st_skip_unless_debugfs_mounted(test);
	KUNIT_ASSERT_EQ(test, st_stack_outer(NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "after-the-stack", 15), 0);
	text = st_slurp(test, ST_ROOT "/trace");
	at = strstr(text, ": <stack trace>\n => st_stack_inner+0x");
	KUNIT_ASSERT_NOT_NULL_MSG(test, at, "%s", text);
	KUNIT_EXPECT_NOT_NULL(test, strstr(at, "\n => st_stack_outer+0x"));
	/* The record counts once in the header. */
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "entries-in-buffer/entries-written: 2/2"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(at, ": after-the-stack\n"));
}

/* Off or stopped: refused. */
static void stack_refused_when_off(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);

	snaptrace_record_off(buf);
	KUNIT_EXPECT_EQ(test, snaptrace_dump_stack(buf, 0), -EBUSY);
	snaptrace_record_on(buf);
	KUNIT_EXPECT_EQ(test, snaptrace_dump_stack(buf, 0), 0);
}

static void st_stack_fn(struct st_job *job)
{
	job->rc[0] = st_stack_outer(job->buf, 0);
}

/* From IRQs off, softirq, hardirq and NMI, the stack goes through there. */
static void stack_atomic_contexts(struct kunit *test)
{
	static const enum st_ctx ctxs[] = {
		ST_CTX_IRQS_OFF, ST_CTX_SOFTIRQ, ST_CTX_IRQ_WORK, ST_CTX_HARDIRQ,
		ST_CTX_NMI,
	};
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec;
	struct st_job *job;
	int i;

	for (i = 0; i < ARRAY_SIZE(ctxs); i++) {
		job = st_job_new(test, buf, ctxs[i], st_stack_fn);
		st_job_go(test, job);
		KUNIT_EXPECT_TRUE_MSG(test, job->in_ctx, "ctx %d", ctxs[i]);
		KUNIT_EXPECT_EQ_MSG(test, job->rc[0], 0, "ctx %d", ctxs[i]);
		rec = st_stack_rec(test, buf);
		KUNIT_ASSERT_NOT_NULL_MSG(test, rec, "ctx %d", ctxs[i]);
		KUNIT_EXPECT_STREQ_MSG(test, st_sym(test, rec, 0), "st_stack_inner",
				       "ctx %d", ctxs[i]);
		KUNIT_EXPECT_STREQ_MSG(test, st_sym(test, rec, 2), "st_stack_fn",
				       "ctx %d", ctxs[i]);
	}
}

/* A full record fits SNAPTRACE_LINE_MAX: what does not becomes " => ...". */
static void stack_format_bounded(struct kunit *test)
{
	struct snaptrace_record *rec = st_rec_new(test);
	unsigned long addr = (unsigned long)snaptrace_format_record;
	char *line = kunit_kzalloc(test, SNAPTRACE_LINE_MAX, GFP_KERNEL);
	struct seq_buf s;
	size_t i, used;

	KUNIT_ASSERT_NOT_NULL(test, line);
	rec->type = SNAPTRACE_REC_STACK;
	rec->len = SNAPTRACE_MAX_PAYLOAD;
	for (i = 0; i < SNAPTRACE_MAX_PAYLOAD / sizeof(addr); i++)
		memcpy(rec->data + i * sizeof(addr), &addr, sizeof(addr));
	seq_buf_init(&s, line, SNAPTRACE_LINE_MAX);
	KUNIT_EXPECT_EQ(test, snaptrace_format_record(rec, &s), 0);
	used = seq_buf_used(&s);
	KUNIT_EXPECT_LE(test, used, SNAPTRACE_LINE_MAX);
	KUNIT_ASSERT_GT(test, used, sizeof(" => ...\n"));
	KUNIT_EXPECT_EQ(test, memcmp(line + used - 8, " => ...\n", 8), 0);
	KUNIT_EXPECT_GT(test, st_count(line, " => snaptrace_format_record+0x"), 10);

	/* A stack record whose length is no multiple of a word: hex. */
	rec->len = 5;
	seq_buf_init(&s, line, SNAPTRACE_LINE_MAX);
	KUNIT_EXPECT_EQ(test, snaptrace_format_record(rec, &s), 0);
	KUNIT_EXPECT_NOT_NULL(test, strnstr(line, ": hex: ", seq_buf_used(&s)));
}

static struct kunit_case snaptrace_stack_cases[] = {
	KUNIT_CASE(stack_records_caller),
	KUNIT_CASE(stack_shown_in_trace),
	KUNIT_CASE(stack_refused_when_off),
	KUNIT_CASE(stack_atomic_contexts),
	KUNIT_CASE(stack_format_bounded),
	{}
};

static struct kunit_suite snaptrace_stack_suite = {
	.name = "snaptrace_stack",
	.test_cases = snaptrace_stack_cases,
};

kunit_test_suites(&snaptrace_stack_suite);
