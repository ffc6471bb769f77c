// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of instances (src/instance.c), the tracing_*()/
 * trace_array_*() family: named instances (snaptrace_get_by_name(),
 * snaptrace_put() and instances/NAME/), and the recording switches of the
 * default instance (snaptrace_on/off/is_on, snaptrace_stop/start), each in
 * its own suite.
 *
 * They use the loaded snaptrace.ko's default instance and debugfs files
 * (debugfs mounted at ST_DEBUGFS); each test puts back what it changed.
 */
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/string.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

/* instances/, relative to the debugfs root (as st_debugfs_has() takes it). */
#define ST_INSTANCES	SNAPTRACE_DEBUGFS_NAME "/instances/"
#define ST_INST		"kunit-inst"
/* Its directory, relative to the debugfs root, and its path. */
#define ST_INST_DIR	SNAPTRACE_DEBUGFS_NAME "/instances/" ST_INST
#define ST_INST_PATH	ST_DEBUGFS "/" ST_INST_DIR

/*
 * Whether @path (relative to the debugfs root) is gone once the files this
 * test opened are closed: a kthread's fput() is deferred to a worker, so
 * wait for it, bounded.
 */
static bool st_debugfs_gone(const char *path)
{
	int i;

	for (i = 0; i < ST_WAIT_LOOPS && st_debugfs_has(path); i++)
		usleep_range(1000, 2000);
	return !st_debugfs_has(path);
}

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
	KUNIT_ASSERT_FALSE(test, st_debugfs_has(ST_INST_DIR));
	buf = st_inst_get(test, ST_INST, SNAPTRACE_MIN_SIZE);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		path = st_fmt(test, ST_INST_DIR "/%s", files[i]);
		KUNIT_EXPECT_TRUE_MSG(test, st_debugfs_has(path), "%s", path);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), SNAPTRACE_MIN_SIZE);
	text = st_slurp(test, ST_INST_PATH "/buffer_size_kb");
	KUNIT_EXPECT_STREQ(test, text, st_fmt(test, "%lu\n", SNAPTRACE_MIN_SIZE >> 10));

	/* Its files show its buffer, not the top level's. */
	KUNIT_ASSERT_EQ(test, snaptrace_write(buf, "kunit-in-instance", 17), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_slurp(test, ST_INST_PATH "/trace"),
					   ": kunit-in-instance\n"));
	KUNIT_EXPECT_NULL(test, strstr(st_slurp(test, ST_ROOT "/trace"), "kunit-in-instance"));
	KUNIT_EXPECT_EQ(test, st_write_file(test, ST_INST_PATH "/trace_marker", "kunit-marker\n",
					    0), 13);
	KUNIT_EXPECT_NOT_NULL(test, strstr(st_slurp(test, ST_INST_PATH "/trace"),
					   ": kunit-marker\n"));

	snaptrace_put(buf);
	KUNIT_EXPECT_TRUE(test, st_debugfs_gone(ST_INST_DIR));
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
	KUNIT_EXPECT_TRUE(test, st_debugfs_has(ST_INST_DIR));
	KUNIT_EXPECT_EQ(test, snaptrace_write(b, "still", 5), 0);
	snaptrace_put(b);
	KUNIT_EXPECT_FALSE(test, st_debugfs_has(ST_INST_DIR));

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
	KUNIT_EXPECT_TRUE(test, st_debugfs_has(ST_INSTANCES "Az09_-.1234567890123456789012345"));
	snaptrace_put(buf);
	KUNIT_EXPECT_FALSE(test, st_debugfs_has(ST_INSTANCES "Az09_-.1234567890123456789012345"));
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
		f = filp_open(ST_INST_PATH "/trace_pipe", O_RDONLY | O_NONBLOCK, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%pe", f);
	snaptrace_put(buf);
	KUNIT_EXPECT_TRUE(test, st_debugfs_has(ST_INST_DIR));
	again = st_inst_get(test, ST_INST, 0);
	KUNIT_EXPECT_PTR_EQ(test, again, buf);
	snaptrace_put(again);
	KUNIT_EXPECT_TRUE(test, st_debugfs_has(ST_INST_DIR));
	fput(f);
	KUNIT_EXPECT_TRUE(test, st_debugfs_gone(ST_INST_DIR));
}

/* An instance's bad writes are logged under its own path. */
static void instance_errors_logged_with_path(struct kunit *test)
{
	struct snaptrace_buffer *buf;
	char *text;

	st_errlog_fresh(test);
	buf = st_inst_get(test, ST_INST, SNAPTRACE_MIN_SIZE);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_put_action, buf), 0);
	KUNIT_EXPECT_EQ(test, st_write_file(test, ST_INST_PATH "/buffer_size_kb", "8k", 0),
			-EINVAL);
	text = st_slurp(test, ST_ERRLOG);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, "] snaptrace/instances/" ST_INST
					       "/buffer_size_kb: error: not a decimal number\n"
					       "  Command: 8k\n"), "%s", text);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, st_caret(test, 1)));
	/* Its tracing_on is its own. */
	KUNIT_EXPECT_EQ(test, st_write_file(test, ST_INST_PATH "/tracing_on", "0", 0), 1);
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

kunit_test_suites(&snaptrace_instance_suite, &snaptrace_recording_suite);
