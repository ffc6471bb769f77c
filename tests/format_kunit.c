// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for how records are shown as text (src/format.c), and for the
 * debugfs files where a read through the VFS is the only way to see the
 * behaviour (O_NONBLOCK on trace_pipe).
 */
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

static struct snaptrace_record *make_rec(struct kunit *test, unsigned int cpu,
					 u64 ts, const void *data, size_t len)
{
	struct snaptrace_record *rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rec);
	rec->cpu = cpu;
	rec->ts = ts;
	rec->type = SNAPTRACE_REC_DATA;
	rec->len = len;
	memcpy(rec->data, data, len);
	return rec;
}

static char *format(struct kunit *test, const struct snaptrace_record *rec,
		    size_t size, int *ret)
{
	char *buf = kunit_kzalloc(test, size + 1, GFP_KERNEL);
	struct seq_buf s;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	seq_buf_init(&s, buf, size);
	*ret = snaptrace_format_record(rec, &s);
	buf[seq_buf_used(&s)] = '\0';
	return buf;
}

/* Text: CPU in three digits, seconds.microseconds, the text, one newline. */
static void format_text_line(struct kunit *test)
{
	struct snaptrace_record *rec = make_rec(test, 1, 1234567890123ULL, "hello\n", 6);
	int ret;
	char *line = format(test, rec, SNAPTRACE_LINE_MAX, &ret);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_STREQ(test, line, "[001]  1234.567890: hello\n");
}

/* A record is always one line: inner newlines are shown as \n. */
static void format_inner_newline_escaped(struct kunit *test)
{
	struct snaptrace_record *rec = make_rec(test, 0, 5ULL * NSEC_PER_SEC, "a\nb", 3);
	int ret;
	char *line = format(test, rec, SNAPTRACE_LINE_MAX, &ret);

	KUNIT_EXPECT_STREQ(test, line, "[000]     5.000000: a\\nb\n");
}

/* Anything not printable makes the payload hex. */
static void format_binary_as_hex(struct kunit *test)
{
	static const u8 bin[] = { 'b', 0x00, 0xff, 0x7f };
	struct snaptrace_record *rec = make_rec(test, 12, 999, bin, sizeof(bin));
	int ret;
	char *line = format(test, rec, SNAPTRACE_LINE_MAX, &ret);

	KUNIT_EXPECT_STREQ(test, line, "[012]     0.000000: hex: 62 00 ff 7f\n");
}

/*
 * A piece of text (a remote's trace captured at a crash) is shown as the
 * text itself: no line head, inner newlines as they are, what is not
 * printable as '.', one for one; a piece cut in the middle of a line gets
 * no newline, and the text's end (its first NUL) gets one where it has
 * none. Each case: the payload, and the exact text shown.
 */
static void format_text_piece_as_text(struct kunit *test)
{
	static const struct {
		const char *data;
		size_t len;
		const char *want;
	} cases[] = {
		{ "boot\ntick 1\n", 12, "boot\ntick 1\n" },	/* whole lines */
		{ "boot\ntic", 8, "boot\ntic" },		/* cut in a line */
		{ "k 1\n\0\0old", 9, "k 1\n" },		/* ends with a newline */
		{ "k 1\0old", 7, "k 1\n" },			/* ends without one */
		{ "\0", 1, "\n" },				/* an empty text's end */
		{ "a\tb\x01\xff\x7f\n", 7, "a\tb...\n" },	/* not printable */
	};
	struct snaptrace_record *rec;
	unsigned int i;
	char *line;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rec = make_rec(test, 3, 5ULL * NSEC_PER_SEC, cases[i].data,
			       cases[i].len);
		rec->type = SNAPTRACE_REC_TEXT;
		line = format(test, rec, SNAPTRACE_LINE_MAX, &ret);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "case %u", i);
		KUNIT_EXPECT_STREQ_MSG(test, line, cases[i].want, "case %u", i);
	}
}

/* A full piece of text, every byte shown, fits in SNAPTRACE_LINE_MAX. */
static void format_text_piece_max_fits(struct kunit *test)
{
	struct snaptrace_record *rec;
	u8 *text = kunit_kzalloc(test, SNAPTRACE_MAX_PAYLOAD, GFP_KERNEL);
	char *line;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, text);
	memset(text, 'x', SNAPTRACE_MAX_PAYLOAD);
	rec = make_rec(test, 0, 0, text, SNAPTRACE_MAX_PAYLOAD);
	rec->type = SNAPTRACE_REC_TEXT;
	line = format(test, rec, SNAPTRACE_LINE_MAX, &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, strlen(line), SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_EQ(test, memcmp(line, text, SNAPTRACE_MAX_PAYLOAD), 0);
}

/* The longest line, a full binary payload, fits in SNAPTRACE_LINE_MAX. */
static void format_line_max_suffices(struct kunit *test)
{
	struct snaptrace_record *rec;
	u8 *bin = kunit_kzalloc(test, SNAPTRACE_MAX_PAYLOAD, GFP_KERNEL);
	char *line;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, bin);
	memset(bin, 0xab, SNAPTRACE_MAX_PAYLOAD);
	rec = make_rec(test, 999, U64_MAX, bin, SNAPTRACE_MAX_PAYLOAD);
	line = format(test, rec, SNAPTRACE_LINE_MAX, &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, line[strlen(line) - 1], '\n');
	KUNIT_EXPECT_EQ(test, strlen(line),
			strlen("[999] 18446744073.709551: hex:") + 3 * SNAPTRACE_MAX_PAYLOAD + 1);
}

/* Too small a buffer is reported, not overrun. */
static void format_overflow_reported(struct kunit *test)
{
	struct snaptrace_record *rec = make_rec(test, 0, 0, "hello", 5);
	int ret;
	char *line = format(test, rec, 10, &ret);

	KUNIT_EXPECT_EQ(test, ret, -EOVERFLOW);
	KUNIT_EXPECT_LE(test, strlen(line), 10);
}

/* An empty trace_pipe opened O_NONBLOCK says -EAGAIN instead of blocking. */
static void trace_pipe_nonblock_eagain(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	ssize_t n;

	st_skip_unless_debugfs_mounted(test);
	/* Empty it: consume what is there. */
	do {
		n = st_read_once(test, ST_ROOT "/trace_pipe", O_RDONLY | O_NONBLOCK, NULL);
	} while (n > 0);
	KUNIT_EXPECT_EQ(test, n, -EAGAIN);
	KUNIT_ASSERT_GE(test, st_read_file(test, ST_ROOT "/trace", buf, 256), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "entries-in-buffer/entries-written: 0/"));
}

/*
 * One read(2) of a page from trace_pipe, then close: it consumes exactly
 * the records whose lines it returned, whole or in part (as ftrace's
 * trace_pipe, which consumes only what it formatted into its page-sized
 * seq). Records of 200 payload bytes take some 660 bytes a line, so a page
 * holds a few of the 40 written; the rest stay in the buffer.
 */
static void trace_pipe_read_consumes_only_what_it_returns(struct kunit *test)
{
	char *text = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned long read = 0, entries = 0, lines = 0;
	struct snaptrace_buffer *buf;
	struct snaptrace_stats st;
	struct st_wcount wc;
	int cpu = st_cpu(), c;
	ssize_t n, i;

	KUNIT_ASSERT_NOT_NULL(test, text);
	st_skip_unless_debugfs_mounted(test);
	buf = st_default_fresh(test);
	wc = st_write_n(test, buf, cpu, 40, 200, 0);
	KUNIT_ASSERT_EQ(test, wc.ok, 40);
	n = st_read_once(test, ST_ROOT "/trace_pipe", O_RDONLY | O_NONBLOCK, text);
	KUNIT_ASSERT_EQ(test, n, (ssize_t)PAGE_SIZE);
	for (i = 0; i < n; i++)
		lines += text[i] == '\n';
	lines += text[n - 1] != '\n';	/* the line cut off */
	for_each_possible_cpu(c) {
		st = st_stats(test, buf, SNAPTRACE_LIVE, c);
		read += st.read;
		entries += st.entries;
	}
	KUNIT_EXPECT_GT(test, lines, 1UL);
	KUNIT_EXPECT_LT(test, lines, 40UL);
	KUNIT_EXPECT_EQ(test, read, lines);
	KUNIT_EXPECT_EQ(test, read + entries, 40);
}

/* A zero-byte write(2) to any file that parses input is -EINVAL. */
static void empty_writes_refused(struct kunit *test)
{
	static const char * const files[] = {
		"buffer_size_kb", "tracing_on", "options/overwrite", "snapshot",
		"snapshot_alloc", "trace_marker", "remoteproc/remoteproc0/firmware",
		"remoteproc/remoteproc0/state", "remoteproc/remoteproc0/crash",
		"remoteproc/remoteproc0/recovery",
	};
	char *before = kunit_kzalloc(test, 64, GFP_KERNEL);
	char *after = kunit_kzalloc(test, 64, GFP_KERNEL);
	char *path;
	int i;

	st_skip_unless_debugfs_mounted(test);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	KUNIT_ASSERT_GE(test, st_read_file(test, ST_ROOT "/buffer_size_kb", before, 64), 0);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		path = st_fmt(test, ST_ROOT "/%s", files[i]);
		KUNIT_EXPECT_EQ_MSG(test, st_write_file(test, path, "", 0), -EINVAL, "%s", path);
	}
	KUNIT_ASSERT_GE(test, st_read_file(test, ST_ROOT "/buffer_size_kb", after, 64), 0);
	KUNIT_EXPECT_STREQ(test, after, before);
}

static struct kunit_case snaptrace_format_cases[] = {
	KUNIT_CASE(format_text_line),
	KUNIT_CASE(format_inner_newline_escaped),
	KUNIT_CASE(format_binary_as_hex),
	KUNIT_CASE(format_line_max_suffices),
	KUNIT_CASE(format_text_piece_as_text),
	KUNIT_CASE(format_text_piece_max_fits),
	KUNIT_CASE(format_overflow_reported),
	KUNIT_CASE(trace_pipe_nonblock_eagain),
	KUNIT_CASE(trace_pipe_read_consumes_only_what_it_returns),
	KUNIT_CASE(empty_writes_refused),
	{}
};

static struct kunit_suite snaptrace_format_suite = {
	.name = "snaptrace_format",
	.test_cases = snaptrace_format_cases,
};

kunit_test_suites(&snaptrace_format_suite);
