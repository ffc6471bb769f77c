// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace debugfs files of a ring buffer, in ftrace's conventions
 * (Documentation/trace/ftrace.rst): trace, trace_pipe, snapshot,
 * snapshot_alloc, buffer_size_kb, buffer_total_size_kb, tracing_on,
 * options/overwrite, trace_marker and per_cpu/cpuN/{trace,trace_pipe,
 * snapshot,stats}.
 *
 * Reads stream through seq_file or a one-line buffer per open file, so no
 * read needs a large allocation; every write is parsed by src/cmd.c (a
 * number, as kstrtoul_from_user() reads it) and changes nothing unless it
 * is valid; a bad one is logged in error_log, with a caret under the bad
 * part, and returns its -E* code.
 *
 * The same files serve the top level and each instance (instances/NAME/):
 * every open file holds a reference on its instance, so an instance's
 * buffer outlives the files open in its directory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/clock.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <snaptrace/snaptrace.h>
#include "cmd.h"
#include "internal.h"

struct st_switch;

/*
 * What a file is about: a buffer, one CPU or all, the instance that owns
 * it, and for a 0/1 switch file which switch.
 */
struct st_target {
	struct snaptrace_buffer *buf;
	struct snaptrace_instance *inst;
	const struct st_switch *sw;
	int cpu;
};

static struct st_target *st_target(struct file *filp)
{
	return filp->f_inode->i_private;
}

/* Every open takes a reference on the instance; release drops it. */
static int st_get(struct inode *inode)
{
	struct st_target *t = inode->i_private;

	return snaptrace_instance_tryget(t->inst) ? 0 : -ENODEV;
}

static void st_put(struct inode *inode)
{
	struct st_target *t = inode->i_private;

	snaptrace_instance_put(t->inst);
}

static int st_open_generic(struct inode *inode, struct file *filp)
{
	int ret = st_get(inode);

	if (ret)
		return ret;
	filp->private_data = inode->i_private;
	return 0;
}

static int st_release_generic(struct inode *inode, struct file *filp)
{
	st_put(inode);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Parsing what is written (src/cmd.c) */

/* Longest command a control file takes, in bytes. */
#define ST_CMD_MAX	63

/*
 * A decimal number written to a control file, as kstrtoul_from_user()
 * reads it (one trailing newline allowed); refusals are logged by the
 * parser, the caret at the first byte that is not a digit.
 */
static int st_parse_ulong(struct snaptrace_cmd *cmd, struct file *filp,
			  const char __user *ubuf, size_t cnt, loff_t *ppos,
			  unsigned long *val)
{
	unsigned long long v;
	int ret;

	ret = snaptrace_cmd_get(cmd, filp, ubuf, cnt, *ppos, ST_CMD_MAX);
	if (ret)
		return ret;
	ret = snaptrace_cmd_number(cmd, 10, ULONG_MAX, NULL, &v);
	if (!ret)
		*val = v;
	return ret;
}

/* ------------------------------------------------------------------ */
/* trace, snapshot, per_cpu/cpuN/{trace,snapshot}: non-consuming dumps */

struct st_dump {
	struct st_target *t;
	enum snaptrace_which which;
	struct snaptrace_iter *iter;
	int err;			/* of snaptrace_iter_start() */
	loff_t idx;			/* index of @rec; 0 is the header */
	bool have;			/* @rec holds record @idx */
	bool stale;			/* the half changed under us */
	struct snaptrace_record rec;
};

#define ST_STALE_TOKEN ((void *)2)

static void st_dump_restart(struct st_dump *d)
{
	snaptrace_iter_stop(d->iter);
	d->iter = snaptrace_iter_start(d->t->buf, d->which, d->t->cpu);
	d->err = PTR_ERR_OR_ZERO(d->iter);
	if (d->err)
		d->iter = NULL;
	d->idx = 0;
	d->have = false;
	d->stale = false;
}

/* Fetch record idx + 1. */
static void *st_dump_fetch(struct st_dump *d)
{
	int ret;

	d->have = false;
	d->idx++;
	if (!d->iter || d->stale)
		return NULL;
	ret = snaptrace_iter_next(d->iter, &d->rec);
	if (ret == -ESTALE) {
		d->stale = true;
		return ST_STALE_TOKEN;
	}
	if (ret)
		return NULL;
	d->have = true;
	return &d->rec;
}

static void *st_dump_start(struct seq_file *m, loff_t *pos)
{
	struct st_dump *d = m->private;

	if (*pos == 0) {
		st_dump_restart(d);
		return SEQ_START_TOKEN;
	}
	if (*pos == d->idx && d->have)
		return &d->rec;
	if (*pos < d->idx || (*pos == d->idx && !d->have))
		st_dump_restart(d);
	/* A seek: walk up to *pos. */
	while (d->idx < *pos) {
		void *v = st_dump_fetch(d);

		if (!v || v == ST_STALE_TOKEN)
			return d->idx == *pos ? v : NULL;
	}
	return d->have ? &d->rec : NULL;
}

static void *st_dump_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct st_dump *d = m->private;

	if (v == ST_STALE_TOKEN) {
		++*pos;
		return NULL;
	}
	v = st_dump_fetch(d);
	*pos = d->idx;
	return v;
}

static void st_dump_stop(struct seq_file *m, void *v)
{
}

static void st_dump_header(struct seq_file *m, struct st_dump *d)
{
	struct snaptrace_stats st;
	u64 entries = 0, written = 0;
	int cpu;

	seq_puts(m, "# snaptrace\n#\n");
	if (d->err == -ENOENT) {
		seq_puts(m, "#\n# * Snapshot is not allocated *\n#\n"
			 "# Snapshot commands:\n"
			 "# echo 0 > snapshot : Clears and frees the snapshot buffer\n"
			 "# echo 1 > snapshot : Allocates the snapshot buffer, if not already allocated.\n"
			 "#                     Takes a snapshot of the main buffer.\n"
			 "# echo 2 > snapshot : Clears the snapshot buffer (but does not allocate or free)\n"
			 "# echo 1 > snapshot_alloc : Allocates the snapshot buffer only\n");
		return;
	}
	for_each_possible_cpu(cpu) {
		if (d->t->cpu != SNAPTRACE_ALL_CPUS && cpu != d->t->cpu)
			continue;
		if (snaptrace_cpu_stats(d->t->buf, d->which, cpu, &st))
			continue;
		entries += st.entries;
		written += st.written;
	}
	seq_printf(m, "# entries-in-buffer/entries-written: %llu/%llu   #P:%u\n#\n",
		   entries, written, num_online_cpus());
	seq_puts(m, "# CPU   TIMESTAMP  PAYLOAD\n#  |        |         |\n");
}

static int st_dump_show(struct seq_file *m, void *v)
{
	struct st_dump *d = m->private;

	if (v == SEQ_START_TOKEN) {
		st_dump_header(m, d);
		return 0;
	}
	if (v == ST_STALE_TOKEN) {
		seq_puts(m, "# the buffer was reset or swapped while being read: output ends here\n");
		return 0;
	}
	snaptrace_seq_record(m, &d->rec);
	return 0;
}

static const struct seq_operations st_dump_ops = {
	.start = st_dump_start,
	.next = st_dump_next,
	.stop = st_dump_stop,
	.show = st_dump_show,
};

static int st_dump_open(struct inode *inode, struct file *filp,
			enum snaptrace_which which)
{
	struct st_dump *d;

	if (!(filp->f_mode & FMODE_READ))
		return 0;
	d = __seq_open_private(filp, &st_dump_ops, sizeof(*d));
	if (!d) {
		st_put(inode);
		return -ENOMEM;
	}
	d->t = inode->i_private;
	d->which = which;
	return 0;
}

static int st_dump_release(struct inode *inode, struct file *filp)
{
	struct seq_file *m;
	struct st_dump *d;

	if (filp->f_mode & FMODE_READ) {
		m = filp->private_data;
		d = m->private;
		snaptrace_iter_stop(d->iter);
		seq_release_private(inode, filp);
	}
	st_put(inode);
	return 0;
}

static ssize_t st_read_or_einval(struct file *filp, char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	if (!(filp->f_mode & FMODE_READ))
		return -EINVAL;
	return seq_read(filp, ubuf, cnt, ppos);
}

static loff_t st_lseek(struct file *filp, loff_t off, int whence)
{
	if (!(filp->f_mode & FMODE_READ))
		return 0;
	return seq_lseek(filp, off, whence);
}

/* trace: opening it for writing with O_TRUNC empties the live half. */
static int st_trace_open(struct inode *inode, struct file *filp)
{
	struct st_target *t = inode->i_private;
	int ret = st_get(inode);

	if (ret)
		return ret;
	if ((filp->f_mode & FMODE_WRITE) && (filp->f_flags & O_TRUNC))
		snaptrace_reset(t->buf);
	return st_dump_open(inode, filp, SNAPTRACE_LIVE);
}

/* Like ftrace's tracing_write_stub(): what is written is ignored. */
static ssize_t st_trace_write(struct file *filp, const char __user *ubuf,
			      size_t cnt, loff_t *ppos)
{
	return cnt;
}

static const struct file_operations st_trace_fops = {
	.owner = THIS_MODULE,
	.open = st_trace_open,
	.read = st_read_or_einval,
	.write = st_trace_write,
	.llseek = st_lseek,
	.release = st_dump_release,
};

static int st_snapshot_open(struct inode *inode, struct file *filp)
{
	int ret = st_get(inode);

	if (ret)
		return ret;
	return st_dump_open(inode, filp, SNAPTRACE_SNAPSHOT);
}

/* snapshot: 0 frees, 1 allocates if needed and snapshots, 2 clears. */
static ssize_t st_snapshot_write(struct file *filp, const char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	struct snaptrace_buffer *buf = st_target(filp)->buf;
	struct snaptrace_cmd cmd;
	unsigned long val;
	int ret;

	ret = st_parse_ulong(&cmd, filp, ubuf, cnt, ppos, &val);
	if (ret)
		return ret;
	switch (val) {
	case 0:
		snaptrace_free_snapshot(buf);
		break;
	case 1:
		ret = snaptrace_snapshot_alloc(buf);
		break;
	case 2:
		ret = snaptrace_clear_snapshot(buf);
		if (ret == -ENOENT)	/* nothing to clear: not an error */
			ret = 0;
		break;
	default:
		snaptrace_cmd_err(&cmd, 0,
				  "unknown command: want 0 (free), 1 (snapshot) or 2 (clear)");
		return -EINVAL;
	}
	if (ret)
		snaptrace_cmd_failed(&cmd, NULL, val == 1 ? "snapshot" : "clear", ret);
	return ret ? ret : cnt;
}

static const struct file_operations st_snapshot_fops = {
	.owner = THIS_MODULE,
	.open = st_snapshot_open,
	.read = st_read_or_einval,
	.write = st_snapshot_write,
	.llseek = st_lseek,
	.release = st_dump_release,
};

/* ------------------------------------------------------------------ */
/* trace_pipe: consuming, blocking read */

/* Records trace_pipe consumes at a time (snaptrace_consume_batch()). */
#define ST_PIPE_BATCH	32

struct st_pipe {
	struct st_target *t;
	struct mutex lock;		/* one reader of this open file at a time */
	bool has_read;			/* something was returned already */
	size_t len, off;		/* of the pending line in @line */
	unsigned int nrec, irec;	/* records in @recs, the next to format */
	char line[SNAPTRACE_LINE_MAX];
	struct snaptrace_record recs[ST_PIPE_BATCH];
};

static int st_pipe_open(struct inode *inode, struct file *filp)
{
	struct st_pipe *p;
	int ret = st_get(inode);

	if (ret)
		return ret;
	p = kvzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		st_put(inode);
		return -ENOMEM;
	}
	p->t = inode->i_private;
	mutex_init(&p->lock);
	filp->private_data = p;
	return nonseekable_open(inode, filp);
}

static int st_pipe_release(struct inode *inode, struct file *filp)
{
	struct st_pipe *p = filp->private_data;

	mutex_destroy(&p->lock);
	kvfree(p);
	st_put(inode);
	return 0;
}

/*
 * Like ftrace's trace_pipe: blocks while empty; once something was read,
 * recording being turned off ends the read with EOF. Records are consumed
 * in batches (snaptrace_consume_batch()) of as many as surely fit in what
 * the caller still has room for (a line is at most SNAPTRACE_LINE_MAX
 * bytes), and at least one, formatted one at a time. As with ftrace's
 * trace_pipe, only the rest of a line a read could not return in full is
 * left for the next read on the file (lost if the file is closed first).
 */
static ssize_t st_pipe_read(struct file *filp, char __user *ubuf, size_t cnt,
			    loff_t *ppos)
{
	struct st_pipe *p = filp->private_data;
	struct snaptrace_buffer *buf = p->t->buf;
	struct seq_buf s;
	ssize_t copied = 0;
	size_t n;
	int ret = 0;

	if (cnt == 0)
		return 0;
	mutex_lock(&p->lock);
	while (copied < cnt) {
		if (p->off < p->len) {
			n = min(cnt - copied, p->len - p->off);
			if (copy_to_user(ubuf + copied, p->line + p->off, n)) {
				ret = -EFAULT;
				break;
			}
			p->off += n;
			copied += n;
			continue;
		}
		if (p->irec < p->nrec) {
			seq_buf_init(&s, p->line, sizeof(p->line));
			snaptrace_format_record(&p->recs[p->irec++], &s);
			p->len = seq_buf_used(&s);
			p->off = 0;
			continue;
		}
		ret = snaptrace_consume_batch(buf, SNAPTRACE_LIVE, p->t->cpu, p->recs,
					      clamp_t(size_t, (cnt - copied) / SNAPTRACE_LINE_MAX,
						      1, ST_PIPE_BATCH));
		if (ret > 0) {
			p->nrec = ret;
			p->irec = 0;
			p->has_read = true;
			ret = 0;
			continue;
		}
		if (ret != -ENODATA || copied)
			break;
		if (filp->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		ret = snaptrace_wait(buf, SNAPTRACE_LIVE, p->t->cpu, p->has_read);
		if (ret)
			break;
	}
	mutex_unlock(&p->lock);
	if (copied)
		return copied;
	/* Recording was turned off after something was read: EOF. */
	return ret == -ENODATA ? 0 : ret;
}

static __poll_t st_pipe_poll(struct file *filp, poll_table *pt)
{
	struct st_pipe *p = filp->private_data;

	if (p->off < p->len || p->irec < p->nrec)
		return EPOLLIN | EPOLLRDNORM;
	return snaptrace_poll(p->t->buf, SNAPTRACE_LIVE, p->t->cpu, filp, pt);
}

static const struct file_operations st_pipe_fops = {
	.owner = THIS_MODULE,
	.open = st_pipe_open,
	.read = st_pipe_read,
	.poll = st_pipe_poll,
	.release = st_pipe_release,
};

/* ------------------------------------------------------------------ */
/* Control files */

static ssize_t st_read_ulong(struct file *filp, char __user *ubuf, size_t cnt,
			     loff_t *ppos, unsigned long val)
{
	char tmp[24];
	int len = scnprintf(tmp, sizeof(tmp), "%lu\n", val);

	return simple_read_from_buffer(ubuf, cnt, ppos, tmp, len);
}

static ssize_t st_size_read(struct file *filp, char __user *ubuf, size_t cnt,
			    loff_t *ppos)
{
	return st_read_ulong(filp, ubuf, cnt, ppos,
			     snaptrace_size_per_cpu(st_target(filp)->buf) >> 10);
}

static ssize_t st_size_write(struct file *filp, const char __user *ubuf,
			     size_t cnt, loff_t *ppos)
{
	struct snaptrace_cmd cmd;
	unsigned long kb;
	int ret;

	ret = st_parse_ulong(&cmd, filp, ubuf, cnt, ppos, &kb);
	if (ret)
		return ret;
	if (kb == 0 || kb > SNAPTRACE_MAX_SIZE >> 10) {
		char msg[48];

		snprintf(msg, sizeof(msg), "size must be 1..%lu KiB",
			 SNAPTRACE_MAX_SIZE >> 10);
		snaptrace_cmd_err(&cmd, 0, msg);
		return kb ? -ERANGE : -EINVAL;
	}
	ret = snaptrace_resize(st_target(filp)->buf, kb << 10);
	if (ret)
		snaptrace_cmd_failed(&cmd, NULL, "resize", ret);
	return ret ? ret : cnt;
}

static const struct file_operations st_size_fops = {
	.owner = THIS_MODULE,
	.open = st_open_generic,
	.read = st_size_read,
	.write = st_size_write,
	.llseek = default_llseek,
	.release = st_release_generic,
};

/* KiB, rounded up: the rings' time anchors are a fraction of a KiB. */
static ssize_t st_total_size_read(struct file *filp, char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	return st_read_ulong(filp, ubuf, cnt, ppos,
			     DIV_ROUND_UP(snaptrace_size_total(st_target(filp)->buf),
					  1024));
}

static const struct file_operations st_total_size_fops = {
	.owner = THIS_MODULE,
	.open = st_open_generic,
	.read = st_total_size_read,
	.llseek = default_llseek,
	.release = st_release_generic,
};

/* A 0/1 switch: read it, or write 0 or 1. */
struct st_switch {
	bool (*get)(struct snaptrace_buffer *buf);
	void (*set)(struct snaptrace_buffer *buf, bool on);
};

static bool st_tracing_on_get(struct snaptrace_buffer *buf)
{
	return snaptrace_record_is_on(buf);
}

static void st_tracing_on_set(struct snaptrace_buffer *buf, bool on)
{
	if (on)
		snaptrace_record_on(buf);
	else
		snaptrace_record_off(buf);
}

static bool st_overwrite_get(struct snaptrace_buffer *buf)
{
	return snaptrace_get_mode(buf) == SNAPTRACE_OVERWRITE;
}

static void st_overwrite_set(struct snaptrace_buffer *buf, bool on)
{
	snaptrace_set_mode(buf, on ? SNAPTRACE_OVERWRITE : SNAPTRACE_STOP_WHEN_FULL);
}

static bool st_snapshot_alloc_get(struct snaptrace_buffer *buf)
{
	return snaptrace_snapshot_is_allocated(buf);
}

static const struct st_switch st_tracing_on = { st_tracing_on_get, st_tracing_on_set };
static const struct st_switch st_overwrite = { st_overwrite_get, st_overwrite_set };

static ssize_t st_switch_read(struct file *filp, char __user *ubuf, size_t cnt,
			      loff_t *ppos)
{
	struct st_target *t = st_target(filp);

	return st_read_ulong(filp, ubuf, cnt, ppos, t->sw->get(t->buf));
}

static ssize_t st_switch_write(struct file *filp, const char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	struct st_target *t = st_target(filp);
	struct snaptrace_cmd cmd;
	unsigned long val;
	int ret;

	ret = st_parse_ulong(&cmd, filp, ubuf, cnt, ppos, &val);
	if (ret)
		return ret;
	if (val > 1) {
		snaptrace_cmd_err(&cmd, 0, "want 0 (off) or 1 (on)");
		return -EINVAL;
	}
	t->sw->set(t->buf, val);
	return cnt;
}

static const struct file_operations st_switch_fops = {
	.owner = THIS_MODULE,
	.open = st_open_generic,
	.read = st_switch_read,
	.write = st_switch_write,
	.llseek = default_llseek,
	.release = st_release_generic,
};

/* snapshot_alloc: write 1 to allocate the spare only; reads 0 or 1. */
static ssize_t st_snapshot_alloc_read(struct file *filp, char __user *ubuf,
				      size_t cnt, loff_t *ppos)
{
	return st_read_ulong(filp, ubuf, cnt, ppos,
			     st_snapshot_alloc_get(st_target(filp)->buf));
}

static ssize_t st_snapshot_alloc_write(struct file *filp,
				       const char __user *ubuf, size_t cnt,
				       loff_t *ppos)
{
	struct snaptrace_cmd cmd;
	unsigned long val;
	int ret;

	ret = st_parse_ulong(&cmd, filp, ubuf, cnt, ppos, &val);
	if (ret)
		return ret;
	if (val != 1) {
		snaptrace_cmd_err(&cmd, 0, "want 1 (allocate the snapshot buffer)");
		return -EINVAL;
	}
	ret = snaptrace_alloc_snapshot(st_target(filp)->buf);
	if (ret)
		snaptrace_cmd_failed(&cmd, NULL, "alloc", ret);
	return ret ? ret : cnt;
}

static const struct file_operations st_snapshot_alloc_fops = {
	.owner = THIS_MODULE,
	.open = st_open_generic,
	.read = st_snapshot_alloc_read,
	.write = st_snapshot_alloc_write,
	.llseek = default_llseek,
	.release = st_release_generic,
};

/*
 * trace_marker: one write, one text record. Longer writes are cut to
 * SNAPTRACE_MAX_PAYLOAD bytes and the short count returned, as ftrace's
 * tracing_mark_write() does.
 */
static ssize_t st_marker_write(struct file *filp, const char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	void *data;
	int ret;

	if (cnt == 0) {
		snaptrace_log_file_err(filp, "", 0, "empty write");
		return -EINVAL;
	}
	cnt = min_t(size_t, cnt, SNAPTRACE_MAX_PAYLOAD);
	data = memdup_user(ubuf, cnt);
	if (IS_ERR(data))
		return PTR_ERR(data);
	ret = snaptrace_write(st_target(filp)->buf, data, cnt);
	kfree(data);
	return ret ? ret : cnt;
}

static const struct file_operations st_marker_fops = {
	.owner = THIS_MODULE,
	.open = st_open_generic,
	.write = st_marker_write,
	.release = st_release_generic,
};

/* per_cpu/cpuN/stats, in the order and words of ftrace's. */
static int st_stats_show(struct seq_file *m, void *unused)
{
	struct st_target *t = m->private;
	struct snaptrace_stats st;
	u32 rem;
	u64 s;
	int ret;

	ret = snaptrace_cpu_stats(t->buf, SNAPTRACE_LIVE, t->cpu, &st);
	if (ret)
		return ret;
	seq_printf(m, "entries: %llu\n", st.entries);
	seq_printf(m, "overrun: %llu\n", st.overrun);
	seq_printf(m, "bytes: %llu\n", st.bytes);
	s = div_u64_rem(st.oldest_ts, NSEC_PER_SEC, &rem);
	seq_printf(m, "oldest event ts: %5llu.%06u\n", s, (u32)(rem / NSEC_PER_USEC));
	s = div_u64_rem(local_clock(), NSEC_PER_SEC, &rem);
	seq_printf(m, "now ts: %5llu.%06u\n", s, (u32)(rem / NSEC_PER_USEC));
	seq_printf(m, "dropped events: %llu\n", st.dropped);
	seq_printf(m, "read events: %llu\n", st.read);
	seq_printf(m, "written events: %llu\n", st.written);
	seq_printf(m, "snapshot misses: %llu\n", st.snapshot_misses);
	return 0;
}

static int st_stats_open(struct inode *inode, struct file *filp)
{
	int ret = st_get(inode);

	if (ret)
		return ret;
	ret = single_open(filp, st_stats_show, inode->i_private);
	if (ret)
		st_put(inode);
	return ret;
}

static int st_stats_release(struct inode *inode, struct file *filp)
{
	single_release(inode, filp);
	st_put(inode);
	return 0;
}

static const struct file_operations st_stats_fops = {
	.owner = THIS_MODULE,
	.open = st_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = st_stats_release,
};

/* ------------------------------------------------------------------ */
/* The tree */

/**
 * struct snaptrace_trace_fs - the debugfs files of one ring buffer
 * @targets: [0] all CPUs, [1 + cpu] one CPU; i_private of the files
 * @tracing_on: i_private of tracing_on
 * @overwrite: i_private of options/overwrite
 */
struct snaptrace_trace_fs {
	struct st_target *targets;
	struct st_target tracing_on;
	struct st_target overwrite;
};

/**
 * snaptrace_trace_fs_create() - the ring buffer's files under a directory
 * @parent: the directory (snaptrace's debugfs root, or instances/NAME/)
 * @buf: the buffer they show
 * @inst: the instance that owns @buf: each open file holds a reference on
 *	it (snaptrace_instance_tryget()); NULL for none
 *
 * Context: process context, may sleep.
 * Return: the file set, to give to snaptrace_trace_fs_destroy() after the
 * directory was removed; ERR_PTR(-ENOMEM). Files debugfs fails to create
 * are left out (debugfs's own convention: it reports them itself).
 */
struct snaptrace_trace_fs *snaptrace_trace_fs_create(struct dentry *parent,
						     struct snaptrace_buffer *buf,
						     struct snaptrace_instance *inst)
{
	struct snaptrace_trace_fs *fs;
	struct dentry *dir, *cpudir;
	struct st_target *all;
	char name[16];
	int cpu;

	fs = kzalloc(sizeof(*fs), GFP_KERNEL);
	if (!fs)
		return ERR_PTR(-ENOMEM);
	fs->targets = kcalloc(nr_cpu_ids + 1, sizeof(*fs->targets), GFP_KERNEL);
	if (!fs->targets) {
		kfree(fs);
		return ERR_PTR(-ENOMEM);
	}
	all = &fs->targets[0];
	all->buf = buf;
	all->inst = inst;
	all->cpu = SNAPTRACE_ALL_CPUS;
	fs->tracing_on = *all;
	fs->tracing_on.sw = &st_tracing_on;
	fs->overwrite = *all;
	fs->overwrite.sw = &st_overwrite;

	debugfs_create_file("trace", 0600, parent, all, &st_trace_fops);
	debugfs_create_file("trace_pipe", 0400, parent, all, &st_pipe_fops);
	debugfs_create_file("snapshot", 0600, parent, all, &st_snapshot_fops);
	debugfs_create_file("snapshot_alloc", 0600, parent, all,
			    &st_snapshot_alloc_fops);
	debugfs_create_file("buffer_size_kb", 0600, parent, all, &st_size_fops);
	debugfs_create_file("buffer_total_size_kb", 0400, parent, all,
			    &st_total_size_fops);
	debugfs_create_file("tracing_on", 0600, parent, &fs->tracing_on,
			    &st_switch_fops);
	debugfs_create_file("trace_marker", 0200, parent, all, &st_marker_fops);
	dir = debugfs_create_dir("options", parent);
	debugfs_create_file("overwrite", 0600, dir, &fs->overwrite,
			    &st_switch_fops);

	dir = debugfs_create_dir("per_cpu", parent);
	for_each_possible_cpu(cpu) {
		struct st_target *t = &fs->targets[1 + cpu];

		t->buf = buf;
		t->inst = inst;
		t->cpu = cpu;
		snprintf(name, sizeof(name), "cpu%d", cpu);
		cpudir = debugfs_create_dir(name, dir);
		debugfs_create_file("trace", 0400, cpudir, t, &st_trace_fops);
		debugfs_create_file("trace_pipe", 0400, cpudir, t, &st_pipe_fops);
		debugfs_create_file("snapshot", 0400, cpudir, t,
				    &st_snapshot_fops);
		debugfs_create_file("stats", 0400, cpudir, t, &st_stats_fops);
	}
	return fs;
}

/**
 * snaptrace_trace_fs_destroy() - free what snaptrace_trace_fs_create() made
 * @fs: the file set; NULL or an ERR_PTR() is ignored
 *
 * Call after the files were removed (debugfs_remove() of their directory,
 * which waits for readers and writers inside them).
 *
 * Context: any context that may call kfree().
 */
void snaptrace_trace_fs_destroy(struct snaptrace_trace_fs *fs)
{
	if (IS_ERR_OR_NULL(fs))
		return;
	kfree(fs->targets);
	kfree(fs);
}
