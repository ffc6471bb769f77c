// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the snaptrace KUnit suites (see st_kunit.h), and the
 * test module's metadata.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/stdarg.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <kunit/resource.h>
#include <kunit/test.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/irq_vectors.h>
#include <asm/nmi.h>
#endif

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "../src/rproc.h"
#include "st_kunit.h"

/* Name of the suites' NMI handler (one test at a time registers it). */
#define ST_NMI_NAME		"snaptrace_kunit"

/* ---- remotes ---- */

static int st_nop_parse_fw(struct snaptrace_rproc *rproc, const u8 *elf,
			   size_t size)
{
	return 0;
}

static void st_nop(struct snaptrace_rproc *rproc)
{
}

/*
 * The platform of a bare remote, one a suite builds by hand (its memory,
 * its traces) without a platform behind it: every op the core requires,
 * doing nothing, and none of the optional ones, so that the core calls
 * through rproc->ops as for any remote and needs no NULL check.
 */
const struct snaptrace_rproc_ops st_rproc_nop_ops = {
	.parse_fw = st_nop_parse_fw,
	.start = st_nop,
	.stop = st_nop,
	.booted = st_nop,
	.free = st_nop,
};

/**
 * st_rproc_traces_free() - a bare remote's traces and keepers, as its
 * teardown frees them
 * @arg: the &struct snaptrace_rproc (a KUnit action's argument)
 *
 * Context: process context, may sleep; takes the remote's lock.
 */
void st_rproc_traces_free(void *arg)
{
	struct snaptrace_rproc *rproc = arg;

	mutex_lock(&rproc->lock);
	snaptrace_rproc_trace_free(rproc);
	snaptrace_rproc_keepers_free(rproc);
	mutex_unlock(&rproc->lock);
}

/**
 * st_read_user() - read a file the way user space does, into a given mapping
 * @path: absolute path of the file
 * @ubuf: user-space address of at least @len bytes the caller mapped
 * @buf: kernel buffer for the contents, NUL-terminated
 * @len: size of @buf (and of @ubuf) in bytes; at most @len - 1 are read
 *
 * What st_read_file() does, through a mapping the caller made once: a
 * test that reads thousands of times does not map a buffer for each read.
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: bytes read, or a negative errno.
 */
ssize_t st_read_user(const char *path, unsigned long ubuf, char *buf,
		     size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n, total = 0;

	if (len == 0 || !ubuf)
		return -EINVAL;
	scoped_with_init_fs()
		f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (!f->f_op->read) {
		fput(f);
		return -EINVAL;
	}
	do {
		n = f->f_op->read(f, (char __user *)ubuf + total,
				  len - 1 - total, &pos);
		if (n > 0)
			total += n;
	} while (n > 0 && total < len - 1);
	fput(f);
	if (n < 0)
		return n;

	if (copy_from_user(buf, (char __user *)ubuf, total))
		return -EFAULT;
	buf[total] = '\0';
	return total;
}

/**
 * st_read_file() - read a file the way user space does
 * @test: the running test; owns the user buffer
 * @path: absolute path of the file
 * @buf: kernel buffer for the contents, NUL-terminated
 * @len: size of @buf in bytes; at most @len - 1 bytes are read
 *
 * Reads through the file's ->read() into a user-space mapping made for the
 * test, so copy_to_user(), seq_file and the debugfs proxy all take part as
 * they do for cat(1). (kernel_read() refuses debugfs files: they have
 * ->read, not ->read_iter.)
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: bytes read, or a negative errno.
 */
ssize_t st_read_file(struct kunit *test, const char *path, char *buf,
		     size_t len)
{
	unsigned long ubuf;

	if (len == 0)
		return -EINVAL;
	ubuf = kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (!ubuf)
		return -ENOMEM;
	return st_read_user(path, ubuf, buf, len);
}

/**
 * st_skip_unless_debugfs_mounted() - skip a test that needs debugfs by path
 * @test: the running test
 *
 * Context: process context, may sleep.
 */
void st_skip_unless_debugfs_mounted(struct kunit *test)
{
	struct file *f;

	scoped_with_init_fs()
		f = filp_open(ST_DEBUGFS "/kunit", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(f))
		kunit_skip(test, "debugfs is not mounted at " ST_DEBUGFS);
	fput(f);
}

static void st_debugfs_dir_remove(void *d)
{
	debugfs_remove(d);
}

/**
 * st_debugfs_dir() - a debugfs directory of the test's own
 * @test: the running test
 * @name: its name, at debugfs' top ("<debugfs>/@name")
 *
 * Skips the test if debugfs is not mounted (its files are read by path);
 * the directory and what is in it are removed when the test ends,
 * however it ends.
 *
 * Context: process context, may sleep.
 * Return: the directory (the test fails if it cannot be made).
 */
struct dentry *st_debugfs_dir(struct kunit *test, const char *name)
{
	struct dentry *d;

	st_skip_unless_debugfs_mounted(test);
	d = debugfs_create_dir(name, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(d));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_debugfs_dir_remove, d), 0);
	return d;
}

/* A user-space page for one read or write, unmapped with the test. */
static unsigned long st_user_page(struct kunit *test)
{
	unsigned long ubuf;

	ubuf = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ubuf, 0);
	return ubuf;
}

/**
 * st_read_once() - one read(2) of a file opened with chosen flags
 * @test: the running test; owns the user buffer
 * @path: absolute path of the file
 * @flags: open(2) flags, e.g. O_RDONLY | O_NONBLOCK
 * @out: a page for the bytes read, or NULL to drop them
 *
 * Opens @path with @flags and calls its ->read() once, for up to a page,
 * into a user-space mapping made for the test, as st_read_file() does,
 * then closes it. For what only one read shows: -EAGAIN on an empty
 * trace_pipe opened O_NONBLOCK, what a consuming read leaves.
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: what ->read() returned, or the error of the open.
 */
ssize_t st_read_once(struct kunit *test, const char *path, int flags, char *out)
{
	unsigned long ubuf = st_user_page(test);
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	scoped_with_init_fs()
		f = filp_open(path, flags, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = f->f_op->read(f, (char __user *)ubuf, PAGE_SIZE, &pos);
	fput(f);
	if (out && n > 0 && copy_from_user(out, (char __user *)ubuf, n))
		return -EFAULT;
	return n;
}

/**
 * st_write_bytes() - one write(2) of bytes, the way user space does
 * @test: the running test; owns the user buffer
 * @path: absolute path of the file, opened O_WRONLY
 * @buf: what to write, NULs included
 * @len: bytes of @buf to write, less than a page (0 writes nothing)
 * @pos: the file offset to write at
 *
 * Copies @buf into a user-space mapping made for the test and calls the
 * file's ->write() once, so copy_from_user() and the debugfs proxy take
 * part as they do for echo(1). Fails the test if @path cannot be opened.
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: what ->write() returned: bytes written, or a negative errno.
 */
ssize_t st_write_bytes(struct kunit *test, const char *path, const void *buf,
		       size_t len, loff_t pos)
{
	unsigned long ubuf = st_user_page(test);
	struct file *f;
	ssize_t n;

	KUNIT_ASSERT_LT(test, len, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user((char __user *)ubuf, buf, len), 0);
	scoped_with_init_fs()
		f = filp_open(path, O_WRONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%s: %pe", path, f);
	n = f->f_op->write(f, (const char __user *)ubuf, len, &pos);
	fput(f);
	return n;
}

/**
 * st_write_file() - one write(2) of a string, the way user space does
 * @test: the running test; owns the user buffer
 * @path: absolute path of the file, opened O_WRONLY
 * @text: what to write (strlen(@text) bytes, less than a page; "" writes
 *	zero bytes)
 * @pos: the file offset to write at
 *
 * st_write_bytes() of strlen(@text) bytes.
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: what ->write() returned: bytes written, or a negative errno.
 */
ssize_t st_write_file(struct kunit *test, const char *path, const char *text,
		      loff_t pos)
{
	return st_write_bytes(test, path, text, strlen(text), pos);
}

/**
 * st_slurp() - the whole of a file, as a string
 * @test: the running test; owns the string
 * @path: absolute path of the file
 *
 * Reads @path with st_read_file(), up to %ST_TEXT_MAX - 1 bytes. Fails the
 * test if the read fails.
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: the contents, NUL-terminated, freed with the test.
 */
char *st_slurp(struct kunit *test, const char *path)
{
	char *text = kunit_kzalloc(test, ST_TEXT_MAX, GFP_KERNEL);
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, text);
	n = st_read_file(test, path, text, ST_TEXT_MAX);
	KUNIT_ASSERT_GE_MSG(test, n, 0, "%s: %pe", path, ERR_PTR(n));
	return text;
}

/**
 * st_debugfs_has() - whether a path exists in debugfs
 * @path: relative to the debugfs root, e.g. "snaptrace/instances/x";
 *	shorter than 128 bytes (a longer one is a bug of the test: it warns)
 *
 * Looks each component up with debugfs_lookup(), so it works whether or
 * not debugfs is mounted, and allocates nothing (safe while the test
 * thread's fail_nth is armed).
 *
 * Context: process context, may sleep.
 * Return: true if every component of @path exists.
 */
bool st_debugfs_has(const char *path)
{
	struct dentry *d = NULL, *next;
	char copy[128], *p = copy, *name;

	if (WARN(strscpy(copy, path, sizeof(copy)) < 0, "%s: path too long\n", path))
		return false;
	while ((name = strsep(&p, "/"))) {
		next = debugfs_lookup(name, d);
		dput(d);
		d = next;
		if (IS_ERR_OR_NULL(d))
			return false;
	}
	dput(d);
	return true;
}

/* ---- strings ---- */

/**
 * st_fmt() - a formatted string
 * @test: the running test; owns the string
 * @fmt: printf() format
 *
 * Return: the string, at most 511 characters (cut beyond), freed with the
 * test. Fails the test if it cannot be allocated.
 */
char *st_fmt(struct kunit *test, const char *fmt, ...)
{
	char *p = kunit_kzalloc(test, 512, GFP_KERNEL);
	va_list ap;

	KUNIT_ASSERT_NOT_NULL(test, p);
	va_start(ap, fmt);
	vsnprintf(p, 512, fmt, ap);
	va_end(ap);
	return p;
}

/**
 * st_count() - how many times a string occurs in another
 * @s: the string searched
 * @what: the string counted; occurrences do not overlap
 *
 * Return: the number of occurrences of @what in @s.
 */
unsigned int st_count(const char *s, const char *what)
{
	unsigned int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* ---- the loaded module's default instance and error_log ---- */

static void st_errlog_clear_action(void *unused)
{
	snaptrace_error_log_clear();
}

/**
 * st_errlog_fresh() - start a test from an empty error_log, and end it so
 * @test: the running test
 *
 * Skips the test unless debugfs is mounted at %ST_DEBUGFS (it reads
 * %ST_ERRLOG), empties the loaded module's error_log, and empties it again
 * when the test ends.
 *
 * Context: process context (the KUnit test thread), may sleep.
 */
void st_errlog_fresh(struct kunit *test)
{
	st_skip_unless_debugfs_mounted(test);
	snaptrace_error_log_clear();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_errlog_clear_action,
							NULL), 0);
}

/**
 * st_caret() - the caret line error_log shows under a command
 * @test: the running test; owns the string
 * @pos: the offset in the command the caret points at
 *
 * Return: "\n", the width of "  Command: " and @pos spaces, "^\n", as
 * tracing_log_err()'s format has it; freed with the test.
 */
char *st_caret(struct kunit *test, unsigned int pos)
{
	return st_fmt(test, "\n%*s^\n", (int)(sizeof("  Command: ") - 1 + pos), "");
}

static void st_rec_restore(void *unused)
{
	snaptrace_on();
}

/**
 * st_default_fresh() - the default instance's buffer, emptied and on
 * @test: the running test
 *
 * Switches recording on (snaptrace_on()), empties the loaded module's
 * top-level buffer with snaptrace_reset(), and switches recording on again
 * when the test ends, whatever the test did to it.
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: the default instance's buffer.
 */
struct snaptrace_buffer *st_default_fresh(struct kunit *test)
{
	struct snaptrace_buffer *buf = snaptrace_default_buffer();

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_rec_restore, NULL), 0);
	snaptrace_on();
	snaptrace_reset(buf);
	return buf;
}

/* ---- self-checking payloads ---- */

static u32 st_fnv(u32 h, const u8 *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 16777619U;
	return h;
}

/* Checksum of a payload: its header up to csum, then the bytes after it. */
static u32 st_payload_csum(const u8 *p, size_t len)
{
	u32 h = st_fnv(2166136261U, p, offsetof(struct st_hdr, csum));

	return st_fnv(h, p + sizeof(struct st_hdr), len - sizeof(struct st_hdr));
}

/* Fills @p with a self-checking payload of @len >= ST_PAYLOAD_MIN bytes. */
void st_payload_fill(u8 *p, size_t len, u32 magic, u32 cpu, u32 seq)
{
	struct st_hdr h = { .magic = magic, .cpu = cpu, .seq = seq, .len = len };
	size_t i;

	for (i = sizeof(h); i < len; i++)
		p[i] = (u8)(seq * 7 + i * 13 + cpu);
	memcpy(p, &h, sizeof(h));
	h.csum = st_payload_csum(p, len);
	memcpy(p + offsetof(struct st_hdr, csum), &h.csum, sizeof(h.csum));
}

/* True if @rec is a DATA record holding an intact payload from rec->cpu. */
bool st_payload_ok(const struct snaptrace_record *rec, struct st_hdr *h)
{
	if (rec->type != SNAPTRACE_REC_DATA || rec->len < sizeof(*h) ||
	    rec->len > SNAPTRACE_MAX_PAYLOAD)
		return false;
	memcpy(h, rec->data, sizeof(*h));
	return (h->magic == ST_MAGIC || h->magic == ST_MAGIC_IRQ) &&
	       h->cpu == rec->cpu && h->len == rec->len &&
	       h->csum == st_payload_csum(rec->data, rec->len);
}

/* ---- checking a stream of records (iterator or consumer) ---- */

void st_check_init(struct st_check *c, u64 *next, int cpu, u64 stride)
{
	memset(c, 0, sizeof(*c));
	memset(next, 0, 2 * nr_cpu_ids * sizeof(*next));
	c->next = next;
	c->cpu = cpu;
	c->stride = stride;
}

void st_check_one(struct st_check *c, const struct snaptrace_record *rec)
{
	struct st_hdr h;
	u64 *slot;

	if (c->count && rec->ts < c->last_ts)
		c->ts_back++;
	if (!c->count)
		c->first_ts = rec->ts;
	c->last_ts = rec->ts;
	c->count++;
	if (rec->cpu >= nr_cpu_ids ||
	    (c->cpu != SNAPTRACE_ALL_CPUS && rec->cpu != c->cpu)) {
		c->bad++;
		return;
	}
	if (rec->type == SNAPTRACE_REC_MARKER) {
		c->markers++;
		return;
	}
	if (!st_payload_ok(rec, &h)) {
		c->bad++;
		return;
	}
	slot = &c->next[2 * rec->cpu + (h.magic == ST_MAGIC_IRQ)];
	if (*slot && h.seq < *slot)
		c->order++;
	else if (*slot && h.seq != *slot)
		c->gaps++;
	*slot = (u64)h.seq + 1;
	if (c->stride && rec->pos != (u64)h.seq * c->stride)
		c->misplaced++;
	if (c->count == 1)
		c->first_seq = h.seq;
	c->last_seq = h.seq;
}

/*
 * Iterates one half of @buf (one CPU or all) to the end, checking every
 * record. Returns what ended the iteration (-ENODATA at the end).
 */
int st_scan(struct kunit *test, struct snaptrace_buffer *buf,
	    enum snaptrace_which which, int cpu, u64 stride,
	    struct st_check *c)
{
	struct snaptrace_record *rec;
	struct snaptrace_iter *it;
	u64 *next;
	int rc;

	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	next = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*next), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_ASSERT_NOT_NULL(test, next);
	st_check_init(c, next, cpu, stride);

	it = snaptrace_iter_start(buf, which, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	for (;;) {
		rc = snaptrace_iter_next(it, rec);
		if (rc)
			break;
		st_check_one(c, rec);
	}
	snaptrace_iter_stop(it);
	kunit_kfree(test, rec);
	kunit_kfree(test, next);
	return rc;
}

/*
 * Reads up to @max records of one half into @recs with an iterator; returns
 * how many, and in @end what ended it (0 if @max was reached).
 */
unsigned int st_collect(struct kunit *test, struct snaptrace_buffer *buf,
			enum snaptrace_which which, int cpu,
			struct snaptrace_record *recs, unsigned int max,
			int *end)
{
	struct snaptrace_iter *it;
	unsigned int n;
	int rc = 0;

	it = snaptrace_iter_start(buf, which, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	for (n = 0; n < max; n++) {
		rc = snaptrace_iter_next(it, &recs[n]);
		if (rc)
			break;
	}
	snaptrace_iter_stop(it);
	*end = rc;
	return n;
}

/* ---- buffers, stats, and writing on a chosen CPU ---- */

KUNIT_DEFINE_ACTION_WRAPPER(st_buffer_free_action, snaptrace_buffer_free,
			    struct snaptrace_buffer *);

static atomic64_t st_clock_counter;

/* The counting clock: every call one ns later, on every CPU. */
static u64 st_clock_counting(void)
{
	return atomic64_inc_return(&st_clock_counter);
}

static void st_clock_restore(void *unused)
{
	WRITE_ONCE(snaptrace_test_clock, NULL);
	synchronize_rcu(); /* writers read it with preemption off */
}

/**
 * st_clock_count() - stamp records with a counting clock until the test ends
 * @test: the running test
 *
 * Each reading of the clock is one ns after the one before, on any CPU,
 * starting from local_clock() now: time stamps stay in order and near the
 * real time, but no vCPU stall of the host can make the delta between two
 * records large enough to need a longer time form, so that how many
 * bytes each record takes is exact (st_rec_bytes()).
 */
void st_clock_count(struct kunit *test)
{
	atomic64_set(&st_clock_counter, local_clock());
	WRITE_ONCE(snaptrace_test_clock, st_clock_counting);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_clock_restore, NULL), 0);
}

/*
 * A buffer freed when the test ends, however it ends; its records are
 * stamped by the counting clock (st_clock_count()), unless the test set a
 * clock of its own (st_clock_install()).
 */
struct snaptrace_buffer *st_buf_new(struct kunit *test, size_t size,
				    enum snaptrace_mode mode)
{
	struct snaptrace_buffer *buf;

	if (!READ_ONCE(snaptrace_test_clock))
		st_clock_count(test);
	buf = snaptrace_buffer_alloc(size, mode);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_buffer_free_action, buf), 0);
	return buf;
}

struct snaptrace_record *st_rec_new(struct kunit *test)
{
	struct snaptrace_record *rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rec);
	return rec;
}

struct snaptrace_stats st_stats(struct kunit *test,
				struct snaptrace_buffer *buf,
				enum snaptrace_which which, int cpu)
{
	struct snaptrace_stats st = {};

	KUNIT_ASSERT_EQ_MSG(test, snaptrace_cpu_stats(buf, which, cpu, &st), 0,
			    "stats of cpu %d", cpu);
	return st;
}

/**
 * st_expect_counted() - check one CPU's counters against what is really there
 * @test: the running test
 * @buf: the buffer, at rest (no writer, reader or snapshot running)
 * @which: the half @st was read from
 * @cpu: the CPU
 * @st: its counters, as the test read them
 *
 * The identity written == read + entries + overrun + dropped follows from
 * how the counters are defined, so it proves little alone: what gives it
 * meaning is that @st->entries is the number of records an iterator
 * actually finds, that none of them wrapped below zero, and that
 * oldest_ts is the first record's timestamp.
 */
void st_expect_counted(struct kunit *test, struct snaptrace_buffer *buf,
		       enum snaptrace_which which, int cpu,
		       const struct snaptrace_stats *st)
{
	struct st_check c;

	KUNIT_EXPECT_LT_MSG(test, st->entries, ST_COUNT_WRAPPED, "half %d cpu %d", which, cpu);
	KUNIT_EXPECT_LT_MSG(test, st->written, ST_COUNT_WRAPPED, "half %d cpu %d", which, cpu);
	KUNIT_EXPECT_LT_MSG(test, st->overrun, ST_COUNT_WRAPPED, "half %d cpu %d", which, cpu);
	KUNIT_EXPECT_LT_MSG(test, st->dropped, ST_COUNT_WRAPPED, "half %d cpu %d", which, cpu);
	KUNIT_EXPECT_LT_MSG(test, st->read, ST_COUNT_WRAPPED, "half %d cpu %d", which, cpu);
	KUNIT_EXPECT_EQ_MSG(test, st->written,
			    st->read + st->entries + st->overrun + st->dropped,
			    "half %d cpu %d: written %llu read %llu entries %llu overrun %llu dropped %llu",
			    which, cpu, st->written, st->read, st->entries, st->overrun,
			    st->dropped);
	KUNIT_EXPECT_EQ_MSG(test, st_scan(test, buf, which, cpu, 0, &c), -ENODATA,
			    "half %d cpu %d", which, cpu);
	KUNIT_EXPECT_EQ_MSG(test, st->entries, (u64)c.count,
			    "half %d cpu %d: entries vs records an iterator finds", which, cpu);
	KUNIT_EXPECT_EQ_MSG(test, st->oldest_ts, c.count ? c.first_ts : 0,
			    "half %d cpu %d", which, cpu);
}

/* Every counter of one CPU is 0 (snapshot_misses aside: buffer-wide). */
void st_expect_empty(struct kunit *test, struct snaptrace_buffer *buf,
		     enum snaptrace_which which, int cpu)
{
	struct snaptrace_stats st = st_stats(test, buf, which, cpu);

	KUNIT_EXPECT_EQ_MSG(test, st.entries, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.written, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.overrun, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.dropped, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.read, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.bytes, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.oldest_ts, 0, "cpu %d", cpu);
}

struct st_write_args {
	struct snaptrace_buffer *buf;
	u8 *scratch;
	unsigned int n;
	size_t len;
	u32 seq0;
	int cpu;
	bool wrong_cpu;
	struct st_wcount wc;
};

static long st_write_fn(void *data)
{
	struct st_write_args *a = data;
	unsigned int i;
	int rc;

	preempt_disable();
	a->wrong_cpu = smp_processor_id() != a->cpu;
	for (i = 0; i < a->n; i++) {
		st_payload_fill(a->scratch, a->len, ST_MAGIC, a->cpu, a->seq0 + i);
		rc = snaptrace_write(a->buf, a->scratch, a->len);
		if (!rc)
			a->wc.ok++;
		else if (rc == -ENOSPC)
			a->wc.nospc++;
		else
			a->wc.other++;
	}
	preempt_enable();
	return 0;
}

/*
 * Writes @n self-checking records of @len bytes, sequence numbers from
 * @seq0, all on @cpu (a kworker bound to it, preemption off throughout).
 */
struct st_wcount st_write_n(struct kunit *test,
			    struct snaptrace_buffer *buf, int cpu,
			    unsigned int n, size_t len, u32 seq0)
{
	struct st_write_args a = {
		.buf = buf, .n = n, .len = len, .seq0 = seq0, .cpu = cpu,
	};

	KUNIT_ASSERT_GE(test, len, ST_PAYLOAD_MIN);
	a.scratch = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a.scratch);
	work_on_cpu(cpu, st_write_fn, &a);
	KUNIT_ASSERT_FALSE_MSG(test, a.wrong_cpu, "writer not on cpu %d", cpu);
	kunit_kfree(test, a.scratch);
	return a.wc;
}

/* The CPU single-CPU tests write on. */
int st_cpu(void)
{
	return cpumask_first(cpu_online_mask);
}

/* ---- the ring buffer's test hook and test clock ---- */

static void st_hook_remove(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	synchronize_rcu();
}

/**
 * st_hook_install() - set the ring buffer's test hook for this test
 * @test: the running test
 * @hook: called at every step of every buffer (it compares the buffer
 *	with its own)
 *
 * Fails the test if another test left its hook. The hook is cleared,
 * followed by synchronize_rcu(), when the test ends, however it ends.
 *
 * Context: process context (the KUnit test thread), may sleep.
 */
void st_hook_install(struct kunit *test,
		     void (*hook)(struct snaptrace_buffer *buf,
				  enum snaptrace_test_step step, int cpu))
{
	KUNIT_ASSERT_NULL_MSG(test, READ_ONCE(snaptrace_test_hook),
			      "another test left its hook");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_hook_remove, NULL), 0);
	WRITE_ONCE(snaptrace_test_hook, hook);
}

/* The time the test clock shows, in ns: what the test set last. */
static u64 st_clock_now;

static u64 st_clock_read(void)
{
	return READ_ONCE(st_clock_now);
}

static void st_clock_remove(void *unused)
{
	WRITE_ONCE(snaptrace_test_clock, NULL);
	synchronize_rcu();
}

/**
 * st_clock_install() - stamp records with a time the test sets
 * @test: the running test
 * @ns: the time the clock shows until st_clock_set()
 *
 * Replaces the records' clock (snaptrace_test_clock) with one that
 * returns the last value given to st_clock_set(), so that every record's
 * time stamp is known exactly. Every writer of every buffer reads it
 * meanwhile. It replaces the counting clock this test's buffers set
 * (st_buf_new()); fails the test if another test left its clock. The
 * clock is cleared, followed by synchronize_rcu(), when the test ends,
 * however it ends.
 *
 * Context: process context (the KUnit test thread), may sleep.
 */
void st_clock_install(struct kunit *test, u64 ns)
{
	snaptrace_test_clock_fn fn = READ_ONCE(snaptrace_test_clock);

	KUNIT_ASSERT_TRUE_MSG(test, !fn || fn == st_clock_counting,
			      "another test left its clock");
	st_clock_set(ns);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_clock_remove, NULL), 0);
	WRITE_ONCE(snaptrace_test_clock, st_clock_read);
}

/* Sets the time the test clock shows (any context, NMI included). */
void st_clock_set(u64 ns)
{
	WRITE_ONCE(st_clock_now, ns);
}

/* The time the test clock shows (any context, NMI included). */
u64 st_clock_get(void)
{
	return READ_ONCE(st_clock_now);
}

/* ---- running a function in a chosen context ---- */

static void st_job_run(struct st_job *job)
{
	switch (job->ctx) {
	case ST_CTX_IRQS_OFF:
		job->in_ctx = in_task() && irqs_disabled();
		break;
	case ST_CTX_SOFTIRQ:
		job->in_ctx = in_serving_softirq() && !in_hardirq() && !in_nmi();
		break;
	case ST_CTX_HARDIRQ:
	case ST_CTX_IRQ_WORK:
		job->in_ctx = in_hardirq() && !in_nmi();
		break;
	case ST_CTX_NMI:
		job->in_ctx = in_nmi();
		break;
	}
	job->cpu = smp_processor_id();
	job->fn(job);
	atomic_set_release(&job->done, 1);
}

static enum hrtimer_restart st_job_timer(struct hrtimer *t)
{
	st_job_run(container_of(t, struct st_job, timer));
	return HRTIMER_NORESTART;
}

static void st_job_irq_work(struct irq_work *w)
{
	st_job_run(container_of(w, struct st_job, work));
}

static void st_job_tasklet(struct tasklet_struct *t)
{
	struct st_job *job = from_tasklet(job, t, tasklet);

	st_job_run(job);
}

#ifdef CONFIG_X86_LOCAL_APIC
/* CPU + 1 of the NMI we raised and nobody took yet; 0 if none. */
static atomic_t st_nmi_armed = ATOMIC_INIT(0);
static struct st_job *st_nmi_job;

/* Claims only the NMI a test raised on this CPU. */
static int st_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	int cpu = smp_processor_id();

	if (atomic_cmpxchg(&st_nmi_armed, cpu + 1, 0) != cpu + 1)
		return NMI_DONE;
	st_job_run(READ_ONCE(st_nmi_job));
	return NMI_HANDLED;
}

static void st_nmi_unregister(void *unused)
{
	unregister_nmi_handler(NMI_LOCAL, ST_NMI_NAME);
}

static void st_nmi_register(struct kunit *test)
{
	int rc = register_nmi_handler(NMI_LOCAL, st_nmi_handler, 0, ST_NMI_NAME);

	KUNIT_ASSERT_EQ(test, rc, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_nmi_unregister, NULL), 0);
}

/*
 * Raises an NMI on this CPU; preemption must be off. apic->send_IPI() goes
 * through the ICR with NMI delivery on xAPIC and x2APIC alike (x2APIC's
 * send_IPI_self() writes the SELF_IPI register, which has no NMI mode).
 */
static void st_nmi_raise(struct st_job *job)
{
	int cpu = smp_processor_id();

	WRITE_ONCE(st_nmi_job, job);
	atomic_set_release(&st_nmi_armed, cpu + 1);
	apic->send_IPI(cpu, NMI_VECTOR);
}

/* Withdraws a raised NMI; false if the handler took it meanwhile. */
bool st_nmi_disarm(void)
{
	return atomic_xchg(&st_nmi_armed, 0) != 0;
}
#else
static void st_nmi_register(struct kunit *test)
{
	kunit_skip(test, "no self-NMI on this architecture");
}

static void st_nmi_raise(struct st_job *job)
{
}

bool st_nmi_disarm(void)
{
	return true;
}
#endif

/**
 * st_ctx_desc() - name a context, for a case parameterised by it
 * @ctx: the context
 * @desc: the parameter's description, KUNIT_PARAM_DESC_SIZE bytes
 *
 * The get_desc of KUNIT_ARRAY_PARAM() over an array of &enum st_ctx: a
 * case that only differs by the context it runs in is one case, run once
 * in each.
 *
 * Context: any.
 */
void st_ctx_desc(const enum st_ctx *ctx, char *desc)
{
	static const char * const names[] = {
		[ST_CTX_IRQS_OFF] = "irqs off",
		[ST_CTX_SOFTIRQ] = "softirq",
		[ST_CTX_HARDIRQ] = "hardirq timer",
		[ST_CTX_IRQ_WORK] = "irq_work",
		[ST_CTX_NMI] = "nmi",
	};

	/* Every context named: the last one is ST_CTX_NMI. */
	static_assert(ARRAY_SIZE(names) == ST_CTX_NMI + 1);
	strscpy(desc, *ctx < ARRAY_SIZE(names) && names[*ctx] ? names[*ctx] : "?",
		KUNIT_PARAM_DESC_SIZE);
}

/* Makes sure nothing of @data runs once the test ends. */
static void st_job_quiesce(void *data)
{
	struct st_job *job = data;

	switch (job->ctx) {
	case ST_CTX_HARDIRQ:
		hrtimer_cancel(&job->timer);
		break;
	case ST_CTX_SOFTIRQ:
		tasklet_kill(&job->tasklet);
		break;
	case ST_CTX_IRQ_WORK:
		irq_work_sync(&job->work);
		break;
	default:
		break;
	}
}

struct st_job *st_job_new(struct kunit *test, struct snaptrace_buffer *buf,
			  enum st_ctx ctx, void (*fn)(struct st_job *job))
{
	struct st_job *job = kunit_kzalloc(test, sizeof(*job), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, job);
	job->buf = buf;
	job->ctx = ctx;
	job->fn = fn;
	job->cpu = -1;
	job->rc[0] = -EINPROGRESS;
	job->rc[1] = -EINPROGRESS;
	atomic_set(&job->done, 0);
	hrtimer_setup(&job->timer, st_job_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	job->work = IRQ_WORK_INIT_HARD(st_job_irq_work);
	tasklet_setup(&job->tasklet, st_job_tasklet);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_job_quiesce, job), 0);
	if (ctx == ST_CTX_NMI)
		st_nmi_register(test);
	return job;
}

/* Raises an irq_work or NMI job on this CPU; preemption must be off. */
void st_job_raise(struct st_job *job)
{
	if (job->ctx == ST_CTX_NMI)
		st_nmi_raise(job);
	else
		irq_work_queue(&job->work);
}

bool st_job_wait(struct st_job *job)
{
	unsigned int i;

	for (i = 0; i < ST_WAIT_LOOPS && !atomic_read_acquire(&job->done); i++)
		usleep_range(1000, 2000);
	return atomic_read_acquire(&job->done);
}

/* Waits without sleeping: for use inside an open reservation. */
bool st_job_spin(struct st_job *job)
{
	unsigned long i;

	for (i = 0; i < ST_SPIN_LOOPS && !atomic_read_acquire(&job->done); i++)
		udelay(1);
	return atomic_read_acquire(&job->done);
}

/* Runs @job in its context and waits for it; skips if an NMI never came. */
void st_job_go(struct kunit *test, struct st_job *job)
{
	unsigned long flags;

	switch (job->ctx) {
	case ST_CTX_IRQS_OFF:
		local_irq_save(flags);
		st_job_run(job);
		local_irq_restore(flags);
		break;
	case ST_CTX_SOFTIRQ:
		tasklet_schedule(&job->tasklet);
		break;
	case ST_CTX_HARDIRQ:
		hrtimer_start(&job->timer, ns_to_ktime(NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
		break;
	case ST_CTX_IRQ_WORK:
	case ST_CTX_NMI:
		preempt_disable();
		st_job_raise(job);
		preempt_enable();
		break;
	}
	if (st_job_wait(job))
		return;
	if (job->ctx == ST_CTX_NMI && st_nmi_disarm())
		kunit_skip(test, "the self-NMI never arrived");
	KUNIT_ASSERT_TRUE_MSG(test, st_job_wait(job), "context %d never ran", job->ctx);
}

/**
 * st_job_in_reservation() - run a job inside a record this task holds open
 * @test: the running test
 * @job: an %ST_CTX_IRQ_WORK or %ST_CTX_NMI job, raised on this CPU while
 *	the record is open; it writes to @job->buf as a nested writer
 * @len: payload bytes of the open record, 48 to 64
 * @seq: sequence number of its self-checking payload (magic %ST_MAGIC)
 *
 * Reserves @len bytes in @job->buf, fills the first half of the payload,
 * raises @job and spins until it ran (st_job_spin()), then fills the
 * second half and commits. So the job runs, on the record's CPU, while
 * the record is reserved but not committed. If reserving left interrupts
 * disabled the job is not raised (it could not run before the commit),
 * but an NMI job still is.
 *
 * Fails the test if the reservation failed, left interrupts disabled, or
 * the job never ran; skips it if the self-NMI never arrived.
 *
 * Context: process context (the KUnit test thread), may sleep before and
 * after the reservation, not inside it.
 * Return: the CPU the open record went to.
 */
int st_job_in_reservation(struct kunit *test, struct st_job *job, size_t len, u32 seq)
{
	bool irqs_off = false, taken = false, missed = false;
	struct snaptrace_reservation res;
	int cpu = -1;
	u8 outer[64];
	u8 *p;

	KUNIT_ASSERT_GE(test, len, ST_PAYLOAD_MIN);
	KUNIT_ASSERT_LE(test, len, sizeof(outer));
	p = snaptrace_reserve(job->buf, len, &res);
	if (p) {
		cpu = smp_processor_id();
		irqs_off = irqs_disabled();
		st_payload_fill(outer, len, ST_MAGIC, cpu, seq);
		memcpy(p, outer, len / 2);
		if (!irqs_off || job->ctx == ST_CTX_NMI) {
			st_job_raise(job);
			taken = st_job_spin(job);
			if (!taken && job->ctx == ST_CTX_NMI) {
				missed = st_nmi_disarm();
				if (!missed)
					taken = st_job_spin(job);
			}
		}
		memcpy(p + len / 2, outer + len / 2, len - len / 2);
		snaptrace_commit(job->buf, &res);
	}

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_FALSE_MSG(test, irqs_off, "reserve left interrupts disabled");
	if (missed)
		kunit_skip(test, "the self-NMI never arrived");
	KUNIT_ASSERT_TRUE_MSG(test, taken, "the interrupt never ran");
	return cpu;
}

/* ---- threads and checks at rest ---- */

/**
 * st_kthread() - create a stopped kthread, holding a reference to it
 * @fn: thread function
 * @data: its argument
 * @cpu: CPU to bind it to, or -1 for none
 * @name: its name when not bound
 *
 * Wake it with wake_up_process(); end it with kthread_stop_put() once @fn
 * has finished its work (a kthread stopped before it ran never runs @fn).
 *
 * Return: the task, or an ERR_PTR().
 */
struct task_struct *st_kthread(int (*fn)(void *data), void *data, int cpu,
			       const char *name)
{
	struct task_struct *t;

	if (cpu >= 0)
		t = kthread_create_on_cpu(fn, data, cpu, "st_kunit_%u");
	else
		t = kthread_create(fn, data, "%s", name);
	if (!IS_ERR(t))
		get_task_struct(t);
	return t;
}

static int st_async_fn(void *data)
{
	struct st_async *as = data;

	as->rc = as->fn(as->buf, as->arg);
	complete(&as->done);
	return 0;
}

/**
 * st_async_run() - run an operation in a helper thread while the test reads
 * @test: the running test
 * @as: the operation: @as->fn(@as->buf, @as->arg); its result goes to
 *	@as->rc
 * @it: the iterator the test holds open on @as->buf
 *
 * So that an implementation that wrongly waits for the reader cannot hang
 * the suite, the operation runs in a kthread and is waited for, bounded
 * (%ST_WAIT_LOOPS sleeps of 1-2 ms). If it did not finish by then, @it is
 * stopped (which lets a waiting operation go on), the thread is awaited,
 * and the test fails.
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: true if the operation finished with @it still open; false if
 * the test failed (@it is then stopped).
 */
bool st_async_run(struct kunit *test, struct st_async *as,
		  struct snaptrace_iter *it)
{
	struct task_struct *t;
	unsigned int i;

	init_completion(&as->done);
	t = kthread_run(st_async_fn, as, "st_async");
	if (IS_ERR(t)) {
		snaptrace_iter_stop(it);
		KUNIT_FAIL(test, "kthread_run: %pe", t);
		return false;
	}
	for (i = 0; i < ST_WAIT_LOOPS && !completion_done(&as->done); i++)
		usleep_range(1000, 2000);
	if (completion_done(&as->done))
		return true;
	snaptrace_iter_stop(it);
	wait_for_completion(&as->done);
	KUNIT_FAIL(test, "the operation waited for the open iterator");
	return false;
}

/**
 * st_expect_half_sane() - check one half at rest against its counters, exactly
 * @test: the running test
 * @buf: the buffer, with no writer, reader or snapshot running
 * @which: the half
 *
 * On every possible CPU: no counter wrapped below zero, the counters
 * balance, the iterator ends with -ENODATA and finds exactly entries
 * records, none torn, none a marker, none out of its CPU's order. No
 * slack: a record counted but not there, or there but not counted, fails.
 */
void st_expect_half_sane(struct kunit *test, struct snaptrace_buffer *buf,
			 enum snaptrace_which which)
{
	struct snaptrace_stats st;
	struct st_check c;
	int cpu;

	for_each_possible_cpu(cpu) {
		st = st_stats(test, buf, which, cpu);
		st_expect_counted(test, buf, which, cpu, &st);
		KUNIT_EXPECT_EQ(test, st_scan(test, buf, which, cpu, 0, &c), -ENODATA);
		KUNIT_EXPECT_EQ_MSG(test, c.bad, 0, "half %d cpu %d", which, cpu);
		KUNIT_EXPECT_EQ_MSG(test, c.order, 0, "half %d cpu %d", which, cpu);
		KUNIT_EXPECT_EQ_MSG(test, c.markers, 0, "half %d cpu %d", which, cpu);
	}
}

/* ---- background writers ---- */

/* Longest self-checking payload the background writers write. */
#define ST_BG_LEN_SPAN		107

static int st_bg_writer_fn(void *data)
{
	struct st_bg_writer *w = data;
	struct snaptrace_buffer *buf = w->ws->buf;
	u8 scratch[ST_PAYLOAD_MIN + ST_BG_LEN_SPAN];
	struct snaptrace_reservation res;
	u32 seq;
	int rc;

	for (seq = 0; seq < w->ws->max && !READ_ONCE(w->ws->stop); seq++) {
		size_t len = ST_PAYLOAD_MIN + seq % ST_BG_LEN_SPAN;
		u8 *p;

		if (READ_ONCE(w->ws->pause)) {
			atomic_inc(&w->ws->paused);
			while (READ_ONCE(w->ws->pause) && !READ_ONCE(w->ws->stop))
				usleep_range(100, 200);
			atomic_dec(&w->ws->paused);
		}

		WRITE_ONCE(w->begun, w->begun + 1);
		smp_mb(); /* begun before the reservation (see struct st_bg_writer) */
		/* Odd: fill the payload inside the reservation, for interrupts to hit. */
		if (seq & 1) {
			p = snaptrace_reserve(buf, len, &res);
			/*
			 * NULL says no room or recording off, not which: when
			 * the test switches recording off (or resets), count it
			 * as off; otherwise as no room.
			 */
			rc = p ? 0 : READ_ONCE(w->ws->may_be_off) ? -EBUSY : -ENOSPC;
			if (p) {
				if (smp_processor_id() != w->cpu)
					w->unexpected++;
				st_payload_fill(p, len, ST_MAGIC, w->cpu, seq);
				if (w->ws->hold_us && seq % 4 == 1)
					udelay(w->ws->hold_us);
				snaptrace_commit(buf, &res);
			}
		} else {
			st_payload_fill(scratch, len, ST_MAGIC, w->cpu, seq);
			rc = snaptrace_write(buf, scratch, len);
		}
		/* The write before its count (see struct st_bg_writer). */
		smp_store_release(&w->finished, w->finished + 1);
		if (!rc) {
			w->ok++;
		} else if (rc == -ENOSPC) {
			w->refused++;
			w->nospc++;
		} else if (rc == -EBUSY) {
			w->refused++;
			w->off++;
		} else {
			w->unexpected++;
		}
		WRITE_ONCE(w->tried, seq + 1);
		/* Refused (recording off, or a reset): do not burn the budget. */
		if (rc == -EBUSY)
			usleep_range(20, 50);
		else if (w->ws->pace_us && !(seq % 16))
			usleep_range(w->ws->pace_us, 2 * w->ws->pace_us);
		else if (!(seq % 32))
			cond_resched();
	}
	complete(&w->done);
	return 0;
}

static void st_writers_stop_action(void *data)
{
	st_writers_stop(data);
}

/**
 * st_writers_start() - start a writer kthread on every online CPU
 * @test: the running test; the writers are stopped when it ends
 * @buf: the buffer to write to
 * @max: records each writer attempts at most
 * @pace_us: if not 0, each writer sleeps that long (to twice) every 16
 *	records, to stretch the run over more snapshots and reads
 * @hold_us: if not 0, every fourth record stays open that long more (a
 *	busy wait between reserve and commit), for resets, snapshots and
 *	readers to meet open records more often
 *
 * Writer i writes self-checking records (magic %ST_MAGIC, its CPU, seq
 * 0, 1, ...; payloads of 20..126 bytes), by snaptrace_write() and by
 * reserve/commit in turn, until it made @max attempts or is stopped.
 *
 * Return: the writers (the test aborts if they cannot be created).
 */
struct st_writers *st_writers_start(struct kunit *test,
				    struct snaptrace_buffer *buf,
				    unsigned int max, unsigned int pace_us,
				    unsigned int hold_us)
{
	struct st_writers *ws = kunit_kzalloc(test, sizeof(*ws), GFP_KERNEL);
	struct st_bg_writer *w;
	unsigned int i;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, ws);
	ws->w = kunit_kcalloc(test, nr_cpu_ids, sizeof(*ws->w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ws->w);
	ws->buf = buf;
	ws->max = max;
	ws->pace_us = pace_us;
	ws->hold_us = hold_us;
	for_each_online_cpu(cpu) {
		w = &ws->w[ws->n];
		w->ws = ws;
		w->cpu = cpu;
		init_completion(&w->done);
		w->task = st_kthread(st_bg_writer_fn, w, cpu, NULL);
		if (IS_ERR(w->task))
			break;
		ws->n++;
	}
	if (ws->n < num_online_cpus())
		WRITE_ONCE(ws->stop, true);
	/* Stopped writers still run, to completion: they see @stop at once. */
	for (i = 0; i < ws->n; i++)
		wake_up_process(ws->w[i].task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_writers_stop_action, ws), 0);
	KUNIT_ASSERT_FALSE_MSG(test, READ_ONCE(ws->stop), "cannot create the writers");
	return ws;
}

/**
 * st_writers_reached() - wait until every writer attempted @tried records
 * @ws: the writers
 * @tried: the count to reach
 *
 * Sleeps in steps of 1 ms, at most %ST_WAIT_LOOPS of them.
 *
 * Return: true if every writer got there in time.
 */
bool st_writers_reached(struct st_writers *ws, unsigned int tried)
{
	unsigned int i, loop;

	for (loop = 0; loop < ST_WAIT_LOOPS; loop++) {
		for (i = 0; i < ws->n; i++)
			if (READ_ONCE(ws->w[i].tried) < tried)
				break;
		if (i == ws->n)
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

/**
 * st_writers_finish() - wait for the writers to make all their attempts
 * @ws: the writers
 * @polls: how many times to sleep 10 ms (to 20) at most
 *
 * Then stops them (at once if the bound was reached).
 */
void st_writers_finish(struct st_writers *ws, unsigned int polls)
{
	unsigned int i;

	for (i = 0; i < polls && st_writers_active(ws); i++)
		usleep_range(10000, 20000);
	st_writers_stop(ws);
}

/**
 * st_writers_pause() - have every writer wait between two records
 * @ws: the writers
 *
 * Waits, by steps of 1 ms and at most %ST_WAIT_LOOPS of them, until each
 * writer is waiting or done: then no record is open, and the counters are
 * at rest. st_writers_resume() lets them go on.
 *
 * Return: true if they all got there in time.
 */
bool st_writers_pause(struct st_writers *ws)
{
	unsigned int i, loop, done;

	WRITE_ONCE(ws->pause, true);
	for (loop = 0; loop < ST_WAIT_LOOPS; loop++) {
		for (i = 0, done = 0; i < ws->n; i++)
			done += completion_done(&ws->w[i].done);
		/* Read after the done count: a writer ending meanwhile is in it. */
		smp_mb();
		if (done + atomic_read(&ws->paused) >= ws->n)
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

/* Lets paused writers go on. */
void st_writers_resume(struct st_writers *ws)
{
	WRITE_ONCE(ws->pause, false);
}

/* Whether some writer is still writing. */
bool st_writers_active(struct st_writers *ws)
{
	unsigned int i;

	for (i = 0; i < ws->n; i++)
		if (!completion_done(&ws->w[i].done))
			return true;
	return false;
}

/**
 * st_writers_stop() - stop the writers and wait for them
 * @ws: the writers
 *
 * Idempotent; afterwards their counts are stable.
 */
void st_writers_stop(struct st_writers *ws)
{
	unsigned int i;

	if (ws->stopped)
		return;
	WRITE_ONCE(ws->stop, true);
	for (i = 0; i < ws->n; i++) {
		wait_for_completion(&ws->w[i].done);
		kthread_stop_put(ws->w[i].task);
	}
	ws->stopped = true;
}

/*
 * After st_writers_stop(): every attempt ended in a result the API allows,
 * and every refusal has its reason: -ENOSPC only in stop-when-full mode
 * (the writers never nest, so an overwriting writer has nothing to refuse
 * it), -EBUSY only when the test turned recording off or reset the buffer
 * meanwhile (@ws->may_be_off).
 */
void st_writers_expect_sane(struct kunit *test, struct st_writers *ws)
{
	bool stop = snaptrace_get_mode(ws->buf) == SNAPTRACE_STOP_WHEN_FULL;
	struct st_bg_writer *w;
	unsigned int i;

	for (i = 0; i < ws->n; i++) {
		w = &ws->w[i];
		KUNIT_EXPECT_EQ_MSG(test, w->ok + w->refused + w->unexpected, w->tried,
				    "cpu %d", w->cpu);
		KUNIT_EXPECT_EQ_MSG(test, w->unexpected, 0, "cpu %d", w->cpu);
		if (!stop)
			KUNIT_EXPECT_EQ_MSG(test, w->nospc, 0,
					    "cpu %d: -ENOSPC in overwrite mode", w->cpu);
		if (!ws->may_be_off)
			KUNIT_EXPECT_EQ_MSG(test, w->off, 0,
					    "cpu %d: -EBUSY with recording on", w->cpu);
	}
}

/* ---- snapshots from an hrtimer ---- */

static enum hrtimer_restart st_snap_tick(struct hrtimer *t)
{
	struct st_snap_timer *tm = container_of(t, struct st_snap_timer, timer);
	int n, rc;

	n = atomic_inc_return(&tm->started);	/* ordered before the swap */
	rc = snaptrace_snapshot(tm->buf);
	if (!rc) {
		atomic_inc(&tm->ok);
		smp_mb(); /* the swap before its number */
		atomic_set(&tm->last_ok, n);
	} else if (rc == -EBUSY) {
		atomic_inc(&tm->busy);
	} else {
		atomic_inc(&tm->unexpected);
	}
	atomic_inc_return(&tm->ended);		/* ordered after the swap */
	if (n >= tm->max)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(tm->period_ns));
	return HRTIMER_RESTART;
}

static void st_snap_timer_stop_action(void *data)
{
	st_snap_timer_stop(data);
}

/**
 * st_snap_timer_start() - take snapshots from a hard hrtimer
 * @test: the running test; the timer is cancelled when it ends
 * @buf: the buffer
 * @period_ns: time between two snapshot() calls
 * @max: calls at most
 *
 * The timer is pinned to the CPU this runs on, so it interrupts whatever
 * runs there (a background writer in the middle of a record, say).
 *
 * Return: the timer's state and counts.
 */
struct st_snap_timer *st_snap_timer_start(struct kunit *test,
					  struct snaptrace_buffer *buf,
					  u64 period_ns, unsigned int max)
{
	struct st_snap_timer *tm = kunit_kzalloc(test, sizeof(*tm), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tm);
	tm->buf = buf;
	tm->period_ns = period_ns;
	tm->max = max;
	hrtimer_setup(&tm->timer, st_snap_tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_snap_timer_stop_action, tm), 0);
	preempt_disable();
	hrtimer_start(&tm->timer, ns_to_ktime(period_ns), HRTIMER_MODE_REL_PINNED_HARD);
	preempt_enable();
	return tm;
}

/* Cancels the timer and waits for a running callback; idempotent. */
void st_snap_timer_stop(struct st_snap_timer *tm)
{
	hrtimer_cancel(&tm->timer);
}

MODULE_DESCRIPTION("KUnit tests for snaptrace");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
