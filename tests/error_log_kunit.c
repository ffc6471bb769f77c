// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the error_log (src/error_log.c): what an entry shows (the
 * location, the message, the command and a caret under the bad part), the
 * bound on entries, clearing by O_TRUNC, logging from atomic contexts, the
 * errors the control files log on bad writes, the catch of why a command
 * failed (snaptrace_why_start(), snaptrace_dev_err()) and the reasons a
 * remote's files log when its core refuses a command.
 *
 * They use the loaded snaptrace.ko's error_log (debugfs mounted at
 * ST_DEBUGFS) and empty it before and after each test.
 */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/firmware.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/fw.h"
#include "../src/internal.h"
#include "../src/rproc.h"
#include "st_kunit.h"

/* One error: timestamp, location, message, the command and a caret. */
static void errlog_shows_entry_with_caret(struct kunit *test)
{
	char *text;

	st_errlog_fresh(test);
	snaptrace_log_err("kunit/loc", "keys=foo bar\n", 9, "bad word");
	text = st_slurp(test, ST_ERRLOG);
	KUNIT_EXPECT_EQ(test, text[0], '[');
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "] kunit/loc: error: bad word\n"
					   "  Command: keys=foo bar\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, st_caret(test, 9)));
	KUNIT_EXPECT_EQ(test, st_count(text, "\n"), 3);
}

/* At most SNAPTRACE_ERR_LOG_MAX entries: the oldest are dropped. */
static void errlog_bounded_oldest_dropped(struct kunit *test)
{
	unsigned int i, n = SNAPTRACE_ERR_LOG_MAX + 4;
	char msg[16], *text;

	st_errlog_fresh(test);
	for (i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "msg-%02u", i);
		snaptrace_log_err("kunit", "cmd", 0, msg);
	}
	text = st_slurp(test, ST_ERRLOG);
	KUNIT_EXPECT_EQ(test, st_count(text, ": error: "), SNAPTRACE_ERR_LOG_MAX);
	KUNIT_EXPECT_NULL(test, strstr(text, "msg-03"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "msg-04"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "msg-19"));
	/* In order, oldest first. */
	KUNIT_EXPECT_PTR_EQ(test, strstr(text, ": error: "),
			    strstr(text, ": error: msg-04"));
}

/* Opening it for writing with O_TRUNC (echo > error_log) empties it. */
static void errlog_trunc_clears(struct kunit *test)
{
	struct file *f;

	st_errlog_fresh(test);
	snaptrace_log_err("kunit", "cmd", 0, "to be cleared");
	KUNIT_ASSERT_NOT_NULL(test, strstr(st_slurp(test, ST_ERRLOG), "to be cleared"));
	/* A plain write changes nothing (ftrace's is a stub too). */
	KUNIT_EXPECT_EQ(test, st_write_file(test, ST_ERRLOG, "x", 0), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_slurp(test, ST_ERRLOG), "to be cleared"));
	scoped_with_init_fs()
		f = filp_open(ST_ERRLOG, O_WRONLY | O_TRUNC, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%pe", f);
	fput(f);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_ERRLOG), "");
}

/* Commands are one printable line; the caret stays inside or just after. */
static void errlog_cmd_sanitized_pos_clamped(struct kunit *test)
{
	char *text, *longcmd, *want;

	st_errlog_fresh(test);
	snaptrace_log_err("kunit", "a\tb\001c\n\n", 99, "clamped");
	text = st_slurp(test, ST_ERRLOG);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "  Command: a.b.c\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, st_caret(test, 5)));

	snaptrace_error_log_clear();
	snaptrace_log_err(NULL, NULL, 3, NULL);
	text = st_slurp(test, ST_ERRLOG);
	want = st_fmt(test, "] : error: %s\n  Command: %s\n", "", "");
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, want));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, st_caret(test, 0)));

	snaptrace_error_log_clear();
	longcmd = kunit_kzalloc(test, 2 * SNAPTRACE_ERR_CMD_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, longcmd);
	memset(longcmd, 'y', 2 * SNAPTRACE_ERR_CMD_MAX - 1);
	snaptrace_log_err("kunit", longcmd, 1000, "long");
	text = st_slurp(test, ST_ERRLOG);
	KUNIT_EXPECT_EQ(test, st_count(text, "y"), SNAPTRACE_ERR_CMD_MAX - 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, st_caret(test, SNAPTRACE_ERR_CMD_MAX - 1)));
}

/* err_pos(), as ftrace's: the offset of a part, 0 when it is not there. */
static void errlog_err_pos(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, snaptrace_err_pos("keys=foo:vals=bar", "vals"), 9);
	KUNIT_EXPECT_EQ(test, snaptrace_err_pos("keys=foo", "nothere"), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_err_pos("", "x"), 0);
}

static void st_log_fn(struct st_job *job)
{
	snaptrace_log_err("kunit-ctx", "cmd", 0, job->data);
}

/* Logging works with IRQs off and in hardirq; in NMI it does nothing. */
static void errlog_atomic_contexts(struct kunit *test)
{
	static const struct { enum st_ctx ctx; const char *msg; } cases[] = {
		{ ST_CTX_IRQS_OFF, "from-irqs-off" },
		{ ST_CTX_IRQ_WORK, "from-hardirq" },
		{ ST_CTX_HARDIRQ, "from-hrtimer" },
	};
	struct st_job *job;
	char *text;
	int i;

	st_errlog_fresh(test);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		job = st_job_new(test, NULL, cases[i].ctx, st_log_fn);
		job->data = (void *)cases[i].msg;
		st_job_go(test, job);
		KUNIT_EXPECT_TRUE(test, job->in_ctx);
	}
	text = st_slurp(test, ST_ERRLOG);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, cases[i].msg), "%s",
					  cases[i].msg);

	snaptrace_error_log_clear();
	job = st_job_new(test, NULL, ST_CTX_NMI, st_log_fn);
	job->data = "from-nmi";
	st_job_go(test, job);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_ERRLOG), "");
}

/* Bad writes to the control files are logged where they are wrong. */
static void errlog_bad_writes_logged(struct kunit *test)
{
	static const struct {
		const char *file, *cmd, *msg;
		unsigned int pos;
		int err;
	} cases[] = {
		{ "buffer_size_kb", "12x4\n", "not a decimal number", 2, -EINVAL },
		{ "buffer_size_kb", "0", "size must be 1..262144 KiB", 0, -EINVAL },
		{ "buffer_size_kb", "999999999", "size must be 1..262144 KiB", 0, -ERANGE },
		{ "buffer_size_kb", "99999999999999999999", "number too large", 0, -ERANGE },
		{ "tracing_on", "2", "want 0 (off) or 1 (on)", 0, -EINVAL },
		{ "options/overwrite", "1 2", "not a decimal number", 1, -EINVAL },
		{ "snapshot", "3", "unknown command", 0, -EINVAL },
		{ "snapshot_alloc", "0", "want 1 (allocate the snapshot buffer)", 0, -EINVAL },
	};
	char *path, *text, *want, *before;
	int i;

	st_errlog_fresh(test);
	before = kunit_kstrdup(test, st_slurp(test, ST_ROOT "/buffer_size_kb"), GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snaptrace_error_log_clear();
		path = st_fmt(test, ST_ROOT "/%s", cases[i].file);
		KUNIT_EXPECT_EQ_MSG(test, st_write_file(test, path, cases[i].cmd, 0),
				    cases[i].err, "%s '%s'", cases[i].file, cases[i].cmd);
		text = st_slurp(test, ST_ERRLOG);
		want = st_fmt(test, "] snaptrace/%s: error: %s", cases[i].file,
			      cases[i].msg);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, want), "%s", text);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, st_caret(test, cases[i].pos)),
					  "%s", text);
		KUNIT_EXPECT_EQ(test, st_count(text, ": error: "), 1);
	}
	/* A write at an offset is refused and logged too. */
	snaptrace_error_log_clear();
	KUNIT_EXPECT_EQ(test, st_write_file(test, ST_ROOT "/buffer_size_kb", "64", 1),
			-EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_slurp(test, ST_ERRLOG), "write at an offset"));
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_ROOT "/buffer_size_kb"), before);
}

static void st_why_fn(struct st_job *job)
{
	snaptrace_dev_err(NULL, "from-irq-work\n");
}

/*
 * A catch keeps the first message snaptrace_dev_err() prints in its task,
 * without the newline and cut to fit; not one printed in hardirq context,
 * nor after it stopped; of nested catches, the innermost keeps it.
 */
static void errlog_why_catches_first_message(struct kunit *test)
{
	struct snaptrace_why outer, inner;
	char *longmsg;
	struct st_job *job;

	snaptrace_why_start(&outer);
	KUNIT_EXPECT_STREQ(test, outer.msg, "");
	job = st_job_new(test, NULL, ST_CTX_IRQ_WORK, st_why_fn);
	st_job_go(test, job);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_STREQ(test, outer.msg, "");

	snaptrace_why_start(&inner);
	snaptrace_dev_err(NULL, "inner %d: %s\n", 1, "first");
	snaptrace_dev_err(NULL, "inner 2\n");
	snaptrace_why_stop(&inner);
	KUNIT_EXPECT_STREQ(test, inner.msg, "inner 1: first");
	KUNIT_EXPECT_STREQ(test, outer.msg, "");

	snaptrace_dev_err(NULL, "outer\n");
	snaptrace_why_stop(&outer);
	KUNIT_EXPECT_STREQ(test, outer.msg, "outer");
	snaptrace_dev_err(NULL, "after the catch\n");
	KUNIT_EXPECT_STREQ(test, outer.msg, "outer");

	longmsg = kunit_kzalloc(test, 2 * SNAPTRACE_ERR_MSG_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, longmsg);
	memset(longmsg, 'z', 2 * SNAPTRACE_ERR_MSG_MAX - 1);
	snaptrace_why_start(&outer);
	snaptrace_dev_err(NULL, "%s\n", longmsg);
	snaptrace_why_stop(&outer);
	KUNIT_EXPECT_EQ(test, strlen(outer.msg), SNAPTRACE_ERR_MSG_MAX - 1);
	KUNIT_EXPECT_EQ(test, st_count(outer.msg, "z"), SNAPTRACE_ERR_MSG_MAX - 1);
}

/* A remote of the test's own, remoteproc151, with its debugfs files. */
#define EL_RPROC	151
#define EL_DIR		ST_ROOT "/remoteproc/remoteproc151/"
#define EL_LOC		"snaptrace/remoteproc/remoteproc151/"
#define EL_FW		"snaptrace/example64.elf"

static struct snaptrace_rproc *el_rproc(struct kunit *test)
{
	struct snaptrace_rproc *rproc;

	st_errlog_fresh(test);
	KUNIT_ASSERT_NOT_NULL(test, snaptrace_rproc_debugfs_dir());
	rproc = st_rproc_new(test, EL_RPROC, "default");
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_debugfs_create(rproc,
							     snaptrace_rproc_debugfs_dir()), 0);
	return rproc;
}

/*
 * Write @cmd to the remote's @file, expect @err, and error_log to hold one
 * entry: the file, @msg, the command (@cmd less its newline) and the caret
 * at its first byte.
 */
static void el_expect(struct kunit *test, const char *file, const char *cmd,
		      int err, const char *msg)
{
	char *text, *want;

	snaptrace_error_log_clear();
	KUNIT_EXPECT_EQ_MSG(test, st_write_file(test, st_fmt(test, EL_DIR "%s", file), cmd, 0),
			    err, "%s '%s'", file, cmd);
	text = st_slurp(test, ST_ERRLOG);
	want = st_fmt(test, "] " EL_LOC "%s: error: %s\n  Command: %.*s%s", file, msg,
		      (int)strcspn(cmd, "\n"), cmd, st_caret(test, 0));
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, want), "want:\n%s\ngot:\n%s", want, text);
	KUNIT_EXPECT_EQ_MSG(test, st_count(text, ": error: "), 1, "%s", text);
}

/*
 * What the core refuses on an offline remote is logged with the reason it
 * printed, not only the errno: state start, stop and detach, recovery's
 * recover, and a bad name written to firmware. A refusal the core does not
 * explain is logged with the errno.
 */
static void errlog_remote_refusals_say_why(struct kunit *test)
{
	struct snaptrace_rproc *rproc = el_rproc(test);
	char *want;

	el_expect(test, "state", "start\n", -EINVAL,
		  "no firmware set: write a file name to 'firmware'");
	el_expect(test, "state", "stop\n", -EINVAL, "shutdown: the remote is offline");
	el_expect(test, "state", "detach\n", -EINVAL,
		  "detach: the remote is offline, not running or attached");
	el_expect(test, "recovery", "recover\n", -EINVAL,
		  "recovery: the remote is offline, not crashed");
	el_expect(test, "firmware", "../x.elf\n", -EINVAL,
		  "bad firmware name: absolute or with \"..\": name a file under /lib/firmware");
	el_expect(test, "firmware", "a b\n", -EINVAL,
		  "bad firmware name: byte 1 is a space or not printable");
	/* the command as written, the caret under the word */
	snaptrace_error_log_clear();
	KUNIT_EXPECT_EQ(test, st_write_file(test, EL_DIR "state", "  restart\n", 0), -EINVAL);
	want = st_fmt(test, "] " EL_LOC "state: error: %s\n  Command:   restart%s",
		      "unrecognised option: want start, stop or detach", st_caret(test, 2));
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_slurp(test, ST_ERRLOG), want));
	/* too long: the limit's bytes shown, the caret just past them */
	snaptrace_error_log_clear();
	KUNIT_EXPECT_EQ(test, st_write_file(test, EL_DIR "recovery", "0123456789abcdefXY", 0),
			-EINVAL);
	want = st_fmt(test, "] " EL_LOC "recovery: error: too long\n  Command: %s%s",
		      "0123456789abcdef", st_caret(test, 16));
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_slurp(test, ST_ERRLOG), want));
	KUNIT_EXPECT_EQ(test, st_write_file(test, EL_DIR "firmware", "snaptrace/none.elf\n", 0),
			19);
	el_expect(test, "state", "start\n", -ENOENT,
		  "cannot load firmware snaptrace/none.elf: -2");
	KUNIT_EXPECT_STREQ(test, st_slurp(test, EL_DIR "state"), "offline\n");

	/* Nothing printed: the errno. */
	mutex_lock(&rproc->lock);
	rproc->deleting = true;
	mutex_unlock(&rproc->lock);
	el_expect(test, "state", "start\n", -ENODEV, "start failed: -ENODEV");
	mutex_lock(&rproc->lock);
	rproc->deleting = false;
	mutex_unlock(&rproc->lock);
}

/* Skip unless @name is in /lib/firmware. */
static void el_need_fw(struct kunit *test, struct snaptrace_rproc *rproc,
		       const char *name)
{
	const struct firmware *fw;

	if (request_firmware_direct(&fw, name, rproc->dev))
		kunit_skip(test, "%s is not in /lib/firmware (scripts/firmware.sh stages it)",
			   name);
	release_firmware(fw);
}

/*
 * A start refused deep below the file, by the ELF parser, the resource
 * table's checks or a resource handler (scripts/badfw.py's broken images),
 * is logged with what that code printed; so are the refusals of a running
 * remote.
 */
static void errlog_remote_image_refusals_say_why(struct kunit *test)
{
	static const struct {
		const char *image, *msg;
		int err;
	} cases[] = {
		{ "wrong-class", "unsupported ELF class 3", -EINVAL },
		{ "version-2", "unsupported rsc table version 2", -EINVAL },
		{ "no-table",
		  "firmware snaptrace/bad64/no-table.elf has no .resource_table section",
		  -ENOENT },
		{ "trace-len-0", "trace rsc \"log\" at offset 208 has length 0", -EINVAL },
	};
	struct snaptrace_rproc *rproc = el_rproc(test);
	const char *name;
	int i;

	el_need_fw(test, rproc, "snaptrace/bad64/version-2.elf");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		name = st_fmt(test, "snaptrace/bad64/%s.elf\n", cases[i].image);
		KUNIT_EXPECT_EQ(test, st_write_file(test, EL_DIR "firmware", name, 0),
				(ssize_t)strlen(name));
		el_expect(test, "state", "start\n", cases[i].err, cases[i].msg);
	}

	el_need_fw(test, rproc, EL_FW);
	KUNIT_EXPECT_EQ(test, st_write_file(test, EL_DIR "firmware", EL_FW "\n", 0),
			(ssize_t)strlen(EL_FW "\n"));
	KUNIT_ASSERT_EQ(test, st_write_file(test, EL_DIR "state", "start\n", 0), 6);
	el_expect(test, "firmware", "other.elf\n", -EBUSY,
		  "can't change firmware while running");
	el_expect(test, "recovery", "recover\n", -EINVAL,
		  "recovery: the remote is running, not crashed");
	KUNIT_EXPECT_EQ(test, st_write_file(test, EL_DIR "state", "stop\n", 0), 5);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, EL_DIR "state"), "offline\n");
}

static struct kunit_case snaptrace_error_log_cases[] = {
	KUNIT_CASE(errlog_shows_entry_with_caret),
	KUNIT_CASE(errlog_bounded_oldest_dropped),
	KUNIT_CASE(errlog_trunc_clears),
	KUNIT_CASE(errlog_cmd_sanitized_pos_clamped),
	KUNIT_CASE(errlog_err_pos),
	KUNIT_CASE(errlog_atomic_contexts),
	KUNIT_CASE(errlog_bad_writes_logged),
	KUNIT_CASE(errlog_why_catches_first_message),
	KUNIT_CASE(errlog_remote_refusals_say_why),
	KUNIT_CASE(errlog_remote_image_refusals_say_why),
	{}
};

static struct kunit_suite snaptrace_error_log_suite = {
	.name = "snaptrace_error_log",
	.test_cases = snaptrace_error_log_cases,
};

kunit_test_suites(&snaptrace_error_log_suite);
