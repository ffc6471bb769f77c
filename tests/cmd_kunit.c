// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the command parser (src/cmd.c): words, numbers, the
 * limits, empty writes, the trailing newline, overflow, NUL bytes, and
 * for each class of bad input its exact outcome: the error, and the one
 * error_log entry with its message, the command shown and the caret.
 *
 * The commands are "written" to the loaded snaptrace.ko's version file
 * (opened read-only: only its path is used, as error_log's location).
 */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/cmd.h"
#include "../src/fw.h"
#include "../src/internal.h"
#include "st_kunit.h"

#define CK_FILE		ST_ROOT "/version"
#define CK_LOC		"snaptrace/version"

static void ck_fput(void *filp)
{
	fput(filp);
}

/* A file to write commands to, and error_log emptied. */
static struct file *ck_file(struct kunit *test)
{
	struct file *f;

	st_errlog_fresh(test);
	scoped_with_init_fs()
		f = filp_open(CK_FILE, O_RDONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%pe", f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ck_fput, f), 0);
	return f;
}

/* error_log holds exactly one entry: @msg, the command @shown, caret at @pos. */
static void ck_expect_log(struct kunit *test, const char *msg, const char *shown,
			  unsigned int pos)
{
	char *text = st_slurp(test, ST_ERRLOG);
	char *want = st_fmt(test, "] " CK_LOC ": error: %s\n  Command: %s%s", msg,
			    shown, st_caret(test, pos));

	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, want), "want:\n%s\ngot:\n%s",
				  want, text);
	KUNIT_EXPECT_EQ_MSG(test, st_count(text, ": error: "), 1, "%s", text);
	snaptrace_error_log_clear();
}

static void ck_expect_no_log(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_ERRLOG), "");
}

/* Words: split on whitespace, each with its offset; the last takes the rest. */
static void cmd_words(struct kunit *test)
{
	static const char text[] = "  set \tkey  the value\t\n";
	struct file *f = ck_file(test);
	struct snaptrace_cmd cmd;

	KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, text, sizeof(text) - 1, 0, 64), 0);
	KUNIT_EXPECT_STREQ(test, cmd.buf, text);
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_words(&cmd, 4), 4);
	KUNIT_EXPECT_STREQ(test, cmd.argv[0], "set");
	KUNIT_EXPECT_STREQ(test, cmd.argv[1], "key");
	KUNIT_EXPECT_STREQ(test, cmd.argv[2], "the");
	KUNIT_EXPECT_STREQ(test, cmd.argv[3], "value");
	KUNIT_EXPECT_EQ(test, cmd.pos[0], 2);
	KUNIT_EXPECT_EQ(test, cmd.pos[1], 7);
	KUNIT_EXPECT_EQ(test, cmd.pos[2], 12);
	KUNIT_EXPECT_EQ(test, cmd.pos[3], 16);
	/* the buffer shown in error_log is left whole */
	KUNIT_EXPECT_STREQ(test, cmd.buf, text);

	/* at most two: the second is the rest of the line, trimmed */
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_words(&cmd, 2), 2);
	KUNIT_EXPECT_STREQ(test, cmd.argv[0], "set");
	KUNIT_EXPECT_STREQ(test, cmd.argv[1], "key  the value");
	KUNIT_EXPECT_EQ(test, cmd.pos[1], 7);

	/* one: the whole write trimmed, as strim() leaves it */
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_words(&cmd, 1), 1);
	KUNIT_EXPECT_STREQ(test, cmd.argv[0], "set \tkey  the value");
	KUNIT_EXPECT_EQ(test, cmd.pos[0], 2);

	/* fewer words than asked for */
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, "start\n", 6, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_words(&cmd, 3), 1);
	KUNIT_EXPECT_STREQ(test, cmd.argv[0], "start");
	KUNIT_EXPECT_EQ(test, cmd.pos[0], 0);
	ck_expect_no_log(test);
}

/* Numbers as kstrtoull() reads them: one trailing newline, base 10 or 0. */
static void cmd_numbers(struct kunit *test)
{
	static const struct {
		const char *text;
		unsigned int base;
		unsigned long long max, val;
	} cases[] = {
		{ "64\n", 10, ULONG_MAX, 64 },
		{ "0", 10, ULONG_MAX, 0 },
		{ "+5", 10, ULONG_MAX, 5 },
		{ "010", 10, ULONG_MAX, 10 },
		{ "010", 0, UINT_MAX, 8 },
		{ "0x64\n", 0, UINT_MAX, 100 },
		{ "4294967295", 10, UINT_MAX, 4294967295ULL },
		{ "18446744073709551615", 10, ULLONG_MAX, ULLONG_MAX },
	};
	struct file *f = ck_file(test);
	struct snaptrace_cmd cmd;
	unsigned long long val;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, cases[i].text,
							strlen(cases[i].text), 0, 63), 0);
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_cmd_number(&cmd, cases[i].base,
							       cases[i].max, NULL, &val),
				    0, "'%s'", cases[i].text);
		KUNIT_EXPECT_EQ_MSG(test, val, cases[i].val, "'%s'", cases[i].text);
		KUNIT_EXPECT_EQ(test, cmd.argc, 1);
		KUNIT_EXPECT_EQ(test, cmd.pos[0], 0);
	}
	ck_expect_no_log(test);
}

/* The limit: @max bytes are taken, one more is too long. */
static void cmd_limits(struct kunit *test)
{
	char text[SNAPTRACE_CMD_MAX + 2];
	struct file *f = ck_file(test);
	struct snaptrace_cmd cmd;

	memset(text, 'a', sizeof(text));
	KUNIT_EXPECT_EQ(test, snaptrace_cmd_set(&cmd, f, text, 16, 0, 16), 0);
	KUNIT_EXPECT_EQ(test, strlen(cmd.buf), 16);
	KUNIT_EXPECT_EQ(test, snaptrace_cmd_set(&cmd, f, text, SNAPTRACE_CMD_MAX, 0,
						SNAPTRACE_CMD_MAX), 0);
	KUNIT_EXPECT_EQ(test, strlen(cmd.buf), SNAPTRACE_CMD_MAX);
	KUNIT_EXPECT_EQ(test, snaptrace_cmd_words(&cmd, 1), 1);
	KUNIT_EXPECT_EQ(test, strlen(cmd.argv[0]), SNAPTRACE_CMD_MAX);
	ck_expect_no_log(test);

	/* too long: the first @max bytes shown, the caret just after them */
	KUNIT_EXPECT_EQ(test, snaptrace_cmd_set(&cmd, f, "0123456789abcdefg", 17, 0, 16),
			-EINVAL);
	ck_expect_log(test, "too long", "0123456789abcdef", 16);
	KUNIT_EXPECT_EQ(test, snaptrace_cmd_set(&cmd, f, text, SNAPTRACE_CMD_MAX + 1, 0,
						SNAPTRACE_CMD_MAX), -EINVAL);
	text[SNAPTRACE_CMD_MAX] = '\0';
	ck_expect_log(test, "too long", text, SNAPTRACE_CMD_MAX);
}

enum ck_how { CK_WORDS, CK_DEC, CK_UINT0, CK_NO_NUL };

/*
 * Every class of bad input, its exact outcome: the error, the message, the
 * command error_log shows (trailing whitespace dropped) and the caret.
 */
static void cmd_bad_input(struct kunit *test)
{
	static const struct {
		const char *text;
		size_t len;
		loff_t pos;
		size_t max;
		enum ck_how how;
		int err;
		const char *msg, *shown;
		unsigned int caret;
	} cases[] = {
		/* the copy's checks */
		{ "64", 2, 1, 63, CK_DEC, -EINVAL,
		  "write at an offset: write the whole value at once", "64", 0 },
		{ "", 0, 0, 63, CK_DEC, -EINVAL, "empty write", "", 0 },
		{ "12345678", 8, 0, 7, CK_WORDS, -EINVAL, "too long", "1234567", 7 },
		/* words */
		{ " \t\n", 3, 0, 16, CK_WORDS, -EINVAL, "empty write", "", 0 },
		{ "\n", 1, 0, 16, CK_WORDS, -EINVAL, "empty write", "", 0 },
		/* decimal numbers */
		{ "12x4\n", 5, 0, 63, CK_DEC, -EINVAL, "not a decimal number", "12x4", 2 },
		{ "abc", 3, 0, 63, CK_DEC, -EINVAL, "not a decimal number", "abc", 0 },
		{ "-1", 2, 0, 63, CK_DEC, -EINVAL, "not a decimal number", "-1", 0 },
		{ " ", 1, 0, 63, CK_DEC, -EINVAL, "not a decimal number", "", 0 },
		{ " 1", 2, 0, 63, CK_DEC, -EINVAL, "not a decimal number", " 1", 0 },
		{ "1 2", 3, 0, 63, CK_DEC, -EINVAL, "not a decimal number", "1 2", 1 },
		{ "1 ", 2, 0, 63, CK_DEC, -EINVAL, "not a decimal number", "1", 1 },
		{ "1\n\n", 3, 0, 63, CK_DEC, -EINVAL, "not a decimal number", "1", 1 },
		{ "0x10", 4, 0, 63, CK_DEC, -EINVAL, "not a decimal number", "0x10", 1 },
		{ "18446744073709551616", 20, 0, 63, CK_DEC, -ERANGE,
		  "number too large", "18446744073709551616", 0 },
		/* a uint, any base, the file's own message */
		{ "4294967296\n", 11, 0, 15, CK_UINT0, -ERANGE, "number too large",
		  "4294967296", 0 },
		{ "soon", 4, 0, 15, CK_UINT0, -EINVAL, "not a number of ms", "soon", 0 },
		{ "08", 2, 0, 15, CK_UINT0, -EINVAL, "not a number of ms", "08", 2 },
		/* a NUL byte, where a file refuses it */
		{ "zephyr\0junk\n", 12, 0, 31, CK_NO_NUL, -EINVAL, "a NUL byte in the name",
		  "zephyr", 6 },
		{ "\0", 1, 0, 31, CK_NO_NUL, -EINVAL, "a NUL byte in the name", "", 0 },
	};
	struct file *f = ck_file(test);
	struct snaptrace_cmd cmd;
	unsigned long long val;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ret = snaptrace_cmd_set(&cmd, f, cases[i].text, cases[i].len, cases[i].pos,
					cases[i].max);
		if (!ret) {
			switch (cases[i].how) {
			case CK_WORDS:
				ret = snaptrace_cmd_words(&cmd, 1);
				break;
			case CK_DEC:
				ret = snaptrace_cmd_number(&cmd, 10, ULONG_MAX, NULL, &val);
				break;
			case CK_UINT0:
				ret = snaptrace_cmd_number(&cmd, 0, UINT_MAX,
							   "not a number of ms", &val);
				break;
			case CK_NO_NUL:
				ret = snaptrace_cmd_no_nul(&cmd, "a NUL byte in the name");
				break;
			}
		}
		KUNIT_EXPECT_EQ_MSG(test, ret, cases[i].err, "case %d", i);
		ck_expect_log(test, cases[i].msg, cases[i].shown, cases[i].caret);
	}
}

/* A NUL ends the command for the parser, unless the file refuses it. */
static void cmd_nul_ends_command(struct kunit *test)
{
	struct file *f = ck_file(test);
	struct snaptrace_cmd cmd;
	unsigned long long val;

	KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, "start\0junk", 10, 0, 16), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_cmd_words(&cmd, 2), 1);
	KUNIT_EXPECT_STREQ(test, cmd.argv[0], "start");
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, "1\0junk", 6, 0, 63), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_cmd_number(&cmd, 10, ULONG_MAX, NULL, &val), 0);
	KUNIT_EXPECT_EQ(test, val, 1);
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, "zephyr\n", 7, 0, 31), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_cmd_no_nul(&cmd, "nul"), 0);
	ck_expect_no_log(test);
}

/* The caret under a word, past the last word, and at an offset. */
static void cmd_caret(struct kunit *test)
{
	struct file *f = ck_file(test);
	struct snaptrace_cmd cmd;
	unsigned long long val;

	KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, "  set  bogus\n", 13, 0, 63), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_words(&cmd, 2), 2);
	snaptrace_cmd_err(&cmd, 0, "first");
	ck_expect_log(test, "first", "  set  bogus", 2);
	snaptrace_cmd_err(&cmd, 1, "second");
	ck_expect_log(test, "second", "  set  bogus", 7);
	/* past the last word: the end of what was written, a word is missing */
	snaptrace_cmd_err(&cmd, 2, "missing");
	ck_expect_log(test, "missing", "  set  bogus", 12);
	snaptrace_cmd_err_at(&cmd, 4, "at four");
	ck_expect_log(test, "at four", "  set  bogus", 4);

	KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, "3\n", 2, 0, 63), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_number(&cmd, 10, ULONG_MAX, NULL, &val), 0);
	snaptrace_cmd_err(&cmd, 0, "out of range");
	ck_expect_log(test, "out of range", "3", 0);
}

/*
 * A command understood but failed: what the catch kept, or else WHAT
 * failed: -EXXX; the caret under the first word.
 */
static void cmd_failed(struct kunit *test)
{
	struct file *f = ck_file(test);
	struct snaptrace_cmd cmd;
	struct snaptrace_why why;

	KUNIT_ASSERT_EQ(test, snaptrace_cmd_set(&cmd, f, " start\n", 7, 0, 16), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_cmd_words(&cmd, 1), 1);
	snaptrace_cmd_failed(&cmd, NULL, "start", -ENOMEM);
	ck_expect_log(test, "start failed: -ENOMEM", " start", 1);

	snaptrace_why_start(&why);
	snaptrace_why_stop(&why);
	snaptrace_cmd_failed(&cmd, &why, "start", -ENODEV);
	ck_expect_log(test, "start failed: -ENODEV", " start", 1);

	snaptrace_why_start(&why);
	snaptrace_dev_err(NULL, "the reason below\n");
	snaptrace_why_stop(&why);
	snaptrace_cmd_failed(&cmd, &why, "start", -EINVAL);
	ck_expect_log(test, "the reason below", " start", 1);
}

/* A user buffer that cannot be read: -EFAULT, nothing logged. */
static void cmd_fault(struct kunit *test)
{
	struct file *f = ck_file(test);
	struct snaptrace_cmd cmd;

	KUNIT_EXPECT_EQ(test, snaptrace_cmd_get(&cmd, f, (const char __user *)16, 4, 0, 16),
			-EFAULT);
	ck_expect_no_log(test);
}

static struct kunit_case snaptrace_cmd_cases[] = {
	KUNIT_CASE(cmd_words),
	KUNIT_CASE(cmd_numbers),
	KUNIT_CASE(cmd_limits),
	KUNIT_CASE(cmd_bad_input),
	KUNIT_CASE(cmd_nul_ends_command),
	KUNIT_CASE(cmd_caret),
	KUNIT_CASE(cmd_failed),
	KUNIT_CASE(cmd_fault),
	{}
};

static struct kunit_suite snaptrace_cmd_suite = {
	.name = "snaptrace_cmd",
	.test_cases = snaptrace_cmd_cases,
};

kunit_test_suites(&snaptrace_cmd_suite);
