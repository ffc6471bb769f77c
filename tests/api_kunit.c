// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the tracing_*()/trace_array_*() family: named instances
 * (snaptrace_get_by_name()/snaptrace_put() and instances/NAME/), recording
 * control (snaptrace_on/off/is_on, snaptrace_stop/start), stack dumps
 * (snaptrace_dump_stack() and how trace shows them) and the error_log.
 *
 * They use the loaded snaptrace.ko's default instance and debugfs files
 * (debugfs mounted at ST_DEBUGFS); each test puts back what it changed.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kallsyms.h>
#include <linux/mman.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/stdarg.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

#define ST_ROOT		ST_DEBUGFS "/" SNAPTRACE_DEBUGFS_NAME
#define ST_ERRLOG	ST_ROOT "/error_log"
#define ST_INST		"kunit-inst"
#define ST_TEXT_MAX	16384

/* ---- helpers ---- */

/* A formatted string freed with the test. */
static __printf(2, 3) char *st_fmt(struct kunit *test, const char *fmt, ...)
{
	char *p = kunit_kzalloc(test, 512, GFP_KERNEL);
	va_list ap;

	KUNIT_ASSERT_NOT_NULL(test, p);
	va_start(ap, fmt);
	vsnprintf(p, 512, fmt, ap);
	va_end(ap);
	return p;
}

/*
 * Write @text in one write(2) at offset @pos to the file at @path, the way
 * user space does. Returns what ->write() returned.
 */
static ssize_t st_write_file(struct kunit *test, const char *path,
			     const char *text, loff_t pos)
{
	size_t len = strlen(text);
	unsigned long ubuf;
	struct file *f;
	ssize_t n;

	ubuf = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ubuf, 0);
	KUNIT_ASSERT_LT(test, len, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user((char __user *)ubuf, text, len), 0);
	scoped_with_init_fs()
		f = filp_open(path, O_WRONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%s: %pe", path, f);
	n = f->f_op->write(f, (const char __user *)ubuf, len, &pos);
	fput(f);
	return n;
}

/* The whole of a debugfs file, as a string freed with the test. */
static char *st_slurp(struct kunit *test, const char *path)
{
	char *text = kunit_kzalloc(test, ST_TEXT_MAX, GFP_KERNEL);
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, text);
	n = st_read_file(test, path, text, ST_TEXT_MAX);
	KUNIT_ASSERT_GE_MSG(test, n, 0, "%s: %pe", path, ERR_PTR(n));
	return text;
}

static unsigned int st_count(const char *s, const char *what)
{
	unsigned int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static void st_errlog_clear_action(void *unused)
{
	snaptrace_error_log_clear();
}

/* Start from an empty error_log, and leave it empty. */
static void st_errlog_fresh(struct kunit *test)
{
	st_skip_unless_debugfs_mounted(test);
	snaptrace_error_log_clear();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_errlog_clear_action,
							NULL), 0);
}

/* The caret line for @pos: the command prefix's width, then @pos spaces. */
static char *st_caret(struct kunit *test, unsigned int pos)
{
	return st_fmt(test, "\n%*s^\n", (int)(sizeof("  Command: ") - 1 + pos), "");
}

static bool st_dentry_exists(const char *path)
{
	struct dentry *root, *d;
	char *p, *name, *copy = kstrdup(path, GFP_KERNEL);
	bool found;

	if (!copy)
		return false;
	root = debugfs_lookup(SNAPTRACE_DEBUGFS_NAME, NULL);
	p = copy;
	while (root && (name = strsep(&p, "/"))) {
		d = debugfs_lookup(name, root);
		dput(root);
		root = d;
	}
	kfree(copy);
	found = root;
	dput(root);
	return found;
}

/*
 * Whether @path is gone once the files this test opened are closed: a
 * kthread's fput() is deferred to a worker, so wait for it, bounded.
 */
static bool st_dentry_gone(const char *path)
{
	int i;

	for (i = 0; i < ST_WAIT_LOOPS && st_dentry_exists(path); i++)
		usleep_range(1000, 2000);
	return !st_dentry_exists(path);
}

static void st_rec_restore(void *unused)
{
	snaptrace_on();
}

/* The default buffer, emptied, with recording switched back on at the end. */
static struct snaptrace_buffer *st_default_fresh(struct kunit *test)
{
	struct snaptrace_buffer *buf = snaptrace_default_buffer();

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_rec_restore, NULL), 0);
	snaptrace_on();
	snaptrace_reset(buf);
	return buf;
}

/* ---- error_log ---- */

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

static struct kunit_case snaptrace_error_log_cases[] = {
	KUNIT_CASE(errlog_shows_entry_with_caret),
	KUNIT_CASE(errlog_bounded_oldest_dropped),
	KUNIT_CASE(errlog_trunc_clears),
	KUNIT_CASE(errlog_cmd_sanitized_pos_clamped),
	KUNIT_CASE(errlog_err_pos),
	KUNIT_CASE(errlog_atomic_contexts),
	KUNIT_CASE(errlog_bad_writes_logged),
	{}
};

static struct kunit_suite snaptrace_error_log_suite = {
	.name = "snaptrace_error_log",
	.test_cases = snaptrace_error_log_cases,
};

/* ---- instances ---- */

KUNIT_DEFINE_ACTION_WRAPPER(st_put_action, snaptrace_put, struct snaptrace_buffer *);

static struct snaptrace_buffer *st_inst_get(struct kunit *test, const char *name,
					    size_t size)
{
	struct snaptrace_buffer *buf = snaptrace_get_by_name(name, size);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	return buf;
}

/* A new instance has its directory with the top level's files. */
static void instance_get_creates_files(struct kunit *test)
{
	static const char * const files[] = {
		"trace", "trace_pipe", "trace_marker", "snapshot", "snapshot_alloc",
		"buffer_size_kb", "buffer_total_size_kb", "tracing_on",
		"options/overwrite", "per_cpu/cpu0/trace", "per_cpu/cpu0/trace_pipe",
		"per_cpu/cpu0/snapshot", "per_cpu/cpu0/stats",
	};
	struct snaptrace_buffer *buf;
	char *path, *text;
	int i;

	st_skip_unless_debugfs_mounted(test);
	KUNIT_ASSERT_FALSE(test, st_dentry_exists("instances/" ST_INST));
	buf = st_inst_get(test, ST_INST, SNAPTRACE_MIN_SIZE);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		path = st_fmt(test, "instances/" ST_INST "/%s", files[i]);
		KUNIT_EXPECT_TRUE_MSG(test, st_dentry_exists(path), "%s", path);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), SNAPTRACE_MIN_SIZE);
	text = st_slurp(test, ST_ROOT "/instances/" ST_INST "/buffer_size_kb");
	KUNIT_EXPECT_STREQ(test, text, st_fmt(test, "%lu\n", SNAPTRACE_MIN_SIZE >> 10));

	/* Its files show its buffer, not the top level's. */
	KUNIT_ASSERT_EQ(test, snaptrace_write(buf, "kunit-in-instance", 17), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_slurp(test, ST_ROOT "/instances/" ST_INST "/trace"),
					   ": kunit-in-instance\n"));
	KUNIT_EXPECT_NULL(test, strstr(st_slurp(test, ST_ROOT "/trace"), "kunit-in-instance"));
	KUNIT_EXPECT_EQ(test, st_write_file(test, ST_ROOT "/instances/" ST_INST "/trace_marker",
					    "kunit-marker\n", 0), 13);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_slurp(test, ST_ROOT "/instances/" ST_INST "/trace"),
					   ": kunit-marker\n"));

	snaptrace_put(buf);
	KUNIT_EXPECT_TRUE(test, st_dentry_gone("instances/" ST_INST));
}

/* References count: a second get returns the same buffer; last put frees. */
static void instance_refcounted(struct kunit *test)
{
	struct snaptrace_buffer *a, *b;

	st_skip_unless_debugfs_mounted(test);
	a = st_inst_get(test, ST_INST, SNAPTRACE_MIN_SIZE);
	b = st_inst_get(test, ST_INST, 4 * SNAPTRACE_MIN_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(b), SNAPTRACE_MIN_SIZE);
	snaptrace_put(a);
	KUNIT_EXPECT_TRUE(test, st_dentry_exists("instances/" ST_INST));
	KUNIT_EXPECT_EQ(test, snaptrace_write(b, "still", 5), 0);
	snaptrace_put(b);
	KUNIT_EXPECT_FALSE(test, st_dentry_exists("instances/" ST_INST));

	/* Two names, two buffers. */
	a = st_inst_get(test, ST_INST "-a", 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_put_action, a), 0);
	b = st_inst_get(test, ST_INST "-b", 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_put_action, b), 0);
	KUNIT_EXPECT_PTR_NE(test, a, b);
	/* Size 0: the module's buffer_size_kb, as the default instance has. */
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(a),
			snaptrace_size_per_cpu(snaptrace_default_buffer()));
}

/* Bad names are refused with -EINVAL and create nothing. */
static void instance_bad_names(struct kunit *test)
{
	static const char * const bad[] = {
		"", ".", "..", ".hidden", "a/b", "/abs", "a b", "tab\t", "nl\n",
		"star*", "\xc3\xa4", "123456789012345678901234567890123",
	};
	struct snaptrace_buffer *buf;
	int i;

	st_skip_unless_debugfs_mounted(test);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		buf = snaptrace_get_by_name(bad[i], 0);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(buf), -EINVAL, "'%s'", bad[i]);
		if (!IS_ERR(buf))
			snaptrace_put(buf);
	}
	/* 32 bytes and every allowed kind of byte is fine. */
	buf = st_inst_get(test, "Az09_-.1234567890123456789012345", 0);
	KUNIT_EXPECT_TRUE(test, st_dentry_exists("instances/Az09_-.1234567890123456789012345"));
	snaptrace_put(buf);
	KUNIT_EXPECT_FALSE(test, st_dentry_exists("instances/Az09_-.1234567890123456789012345"));
}

/* NULL names the default instance, which a put never frees. */
static void instance_default(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_inst_get(test, NULL, 0);

	KUNIT_EXPECT_PTR_EQ(test, buf, snaptrace_default_buffer());
	snaptrace_put(buf);
	KUNIT_EXPECT_PTR_EQ(test, snaptrace_default_buffer(), buf);
	/* One put too many is refused; the buffer lives on. */
	snaptrace_put(buf);
	KUNIT_EXPECT_PTR_EQ(test, st_default_fresh(test), buf);
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "default-ok", 10), 0);
}

/* A buffer that is no instance's, NULL or an error: ignored. */
static void instance_put_foreign(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);

	snaptrace_put(buf);
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "alive", 5), 0);
	snaptrace_put(NULL);
	snaptrace_put(ERR_PTR(-ENOMEM));
}

/*
 * An open file holds the instance: after the last put, the directory and
 * buffer stay while the file is open, a get meanwhile revives it, and the
 * close frees it.
 */
static void instance_open_file_holds_it(struct kunit *test)
{
	struct snaptrace_buffer *buf, *again;
	struct file *f;

	st_skip_unless_debugfs_mounted(test);
	buf = st_inst_get(test, ST_INST, SNAPTRACE_MIN_SIZE);
	scoped_with_init_fs()
		f = filp_open(ST_ROOT "/instances/" ST_INST "/trace_pipe",
			      O_RDONLY | O_NONBLOCK, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%pe", f);
	snaptrace_put(buf);
	KUNIT_EXPECT_TRUE(test, st_dentry_exists("instances/" ST_INST));
	again = st_inst_get(test, ST_INST, 0);
	KUNIT_EXPECT_PTR_EQ(test, again, buf);
	snaptrace_put(again);
	KUNIT_EXPECT_TRUE(test, st_dentry_exists("instances/" ST_INST));
	fput(f);
	KUNIT_EXPECT_TRUE(test, st_dentry_gone("instances/" ST_INST));
}

/* An instance's bad writes are logged under its own path. */
static void instance_errors_logged_with_path(struct kunit *test)
{
	struct snaptrace_buffer *buf;
	char *text;

	st_errlog_fresh(test);
	buf = st_inst_get(test, ST_INST, SNAPTRACE_MIN_SIZE);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_put_action, buf), 0);
	KUNIT_EXPECT_EQ(test, st_write_file(test, ST_ROOT "/instances/" ST_INST "/buffer_size_kb",
					    "8k", 0), -EINVAL);
	text = st_slurp(test, ST_ERRLOG);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, "] snaptrace/instances/" ST_INST
					       "/buffer_size_kb: error: not a decimal number\n"
					       "  Command: 8k\n"), "%s", text);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, st_caret(test, 1)));
	/* Its tracing_on is its own. */
	KUNIT_EXPECT_EQ(test, st_write_file(test, ST_ROOT "/instances/" ST_INST "/tracing_on",
					    "0", 0), 1);
	KUNIT_EXPECT_FALSE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), -EBUSY);
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(snaptrace_default_buffer()));
}

static struct kunit_case snaptrace_instance_cases[] = {
	KUNIT_CASE(instance_get_creates_files),
	KUNIT_CASE(instance_refcounted),
	KUNIT_CASE(instance_bad_names),
	KUNIT_CASE(instance_default),
	KUNIT_CASE(instance_put_foreign),
	KUNIT_CASE(instance_open_file_holds_it),
	KUNIT_CASE(instance_errors_logged_with_path),
	{}
};

static struct kunit_suite snaptrace_instance_suite = {
	.name = "snaptrace_instance",
	.test_cases = snaptrace_instance_cases,
};

/* ---- recording control ---- */

/* Off refuses writers and keeps the data; on records again. */
static void record_off_keeps_data(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_default_fresh(test);
	struct snaptrace_record *rec = st_rec_new(test);

	KUNIT_EXPECT_TRUE(test, snaptrace_is_on());
	KUNIT_ASSERT_EQ(test, snaptrace_write(buf, "kept", 4), 0);
	snaptrace_off();
	KUNIT_EXPECT_FALSE(test, snaptrace_is_on());
	KUNIT_EXPECT_FALSE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "lost", 4), -EBUSY);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_ROOT "/tracing_on"), "0\n");
	KUNIT_ASSERT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec), 0);
	KUNIT_EXPECT_EQ(test, rec->len, 4);
	KUNIT_EXPECT_EQ(test, memcmp(rec->data, "kept", 4), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec),
			-ENODATA);
	snaptrace_on();
	KUNIT_EXPECT_TRUE(test, snaptrace_is_on());
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "again", 5), 0);
}

static void st_off_on_fn(struct st_job *job)
{
	snaptrace_off();
	job->rc[0] = snaptrace_is_on();
	snaptrace_on();
	job->rc[1] = snaptrace_is_on();
}

/* on/off/is_on from IRQs off, hardirq and NMI. */
static void record_on_off_atomic(struct kunit *test)
{
	static const enum st_ctx ctxs[] = {
		ST_CTX_IRQS_OFF, ST_CTX_SOFTIRQ, ST_CTX_IRQ_WORK, ST_CTX_NMI,
	};
	struct st_job *job;
	int i;

	st_default_fresh(test);
	for (i = 0; i < ARRAY_SIZE(ctxs); i++) {
		job = st_job_new(test, NULL, ctxs[i], st_off_on_fn);
		st_job_go(test, job);
		KUNIT_EXPECT_TRUE_MSG(test, job->in_ctx, "ctx %d", ctxs[i]);
		KUNIT_EXPECT_EQ_MSG(test, job->rc[0], 0, "ctx %d", ctxs[i]);
		KUNIT_EXPECT_EQ_MSG(test, job->rc[1], 1, "ctx %d", ctxs[i]);
	}
}

/* Stops nest: recording resumes when every stop is matched. */
static void record_stop_start_nest(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_default_fresh(test);

	snaptrace_stop();
	snaptrace_stop();
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), -EBUSY);
	/* As tracing_is_on(): the switch, not the stops. */
	KUNIT_EXPECT_TRUE(test, snaptrace_is_on());
	snaptrace_start();
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), -EBUSY);
	snaptrace_start();
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), 0);

	/* Stop and off are independent. */
	snaptrace_stop();
	snaptrace_off();
	snaptrace_start();
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), -EBUSY);
	snaptrace_on();
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), 0);
}

/* A start without a stop is refused: it does not cancel a later stop. */
static void record_unbalanced_start_ignored(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_default_fresh(test);

	snaptrace_start();
	snaptrace_start();
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), 0);
	snaptrace_stop();
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), -EBUSY);
	snaptrace_start();
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), 0);
}

static void st_stop_fn(struct st_job *job)
{
	snaptrace_stop();
	job->rc[0] = snaptrace_write(job->buf, "s", 1);
	snaptrace_start();
	job->rc[1] = snaptrace_write(job->buf, "s", 1);
}

/* stop/start from hardirq and NMI. */
static void record_stop_start_atomic(struct kunit *test)
{
	static const enum st_ctx ctxs[] = {
		ST_CTX_IRQS_OFF, ST_CTX_IRQ_WORK, ST_CTX_HARDIRQ, ST_CTX_NMI,
	};
	struct snaptrace_buffer *buf = st_default_fresh(test);
	struct st_job *job;
	int i;

	for (i = 0; i < ARRAY_SIZE(ctxs); i++) {
		job = st_job_new(test, buf, ctxs[i], st_stop_fn);
		st_job_go(test, job);
		KUNIT_EXPECT_TRUE_MSG(test, job->in_ctx, "ctx %d", ctxs[i]);
		KUNIT_EXPECT_EQ_MSG(test, job->rc[0], -EBUSY, "ctx %d", ctxs[i]);
		KUNIT_EXPECT_EQ_MSG(test, job->rc[1], 0, "ctx %d", ctxs[i]);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, "x", 1), 0);
}

static struct kunit_case snaptrace_recording_cases[] = {
	KUNIT_CASE(record_off_keeps_data),
	KUNIT_CASE(record_on_off_atomic),
	KUNIT_CASE(record_stop_start_nest),
	KUNIT_CASE(record_unbalanced_start_ignored),
	KUNIT_CASE(record_stop_start_atomic),
	{}
};

static struct kunit_suite snaptrace_recording_suite = {
	.name = "snaptrace_recording",
	.test_cases = snaptrace_recording_cases,
};

/* ---- stack dumps ---- */

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

kunit_test_suites(&snaptrace_error_log_suite, &snaptrace_instance_suite,
		  &snaptrace_recording_suite, &snaptrace_stack_suite);
