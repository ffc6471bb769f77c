// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace error_log: the last errors of commands written to snaptrace's
 * debugfs files, in the format of ftrace's tracing/error_log
 * (tracing_log_err() in kernel/trace/trace.c):
 *
 *   [   12.345678] snaptrace/buffer_size_kb: error: not a decimal number
 *     Command: 12x4
 *                ^
 *
 * The log keeps the last %ST_ERR_LOG_MAX errors in static memory, so
 * logging never allocates and works in any context but NMI. Opening
 * error_log for writing with O_TRUNC (``echo > error_log``) empties it.
 * Unlike ftrace, which keeps one log per trace instance, there is one log
 * for the module; the location names the file, instances/NAME/ included.
 *
 * A command that a file hands on to the rest of the module (a remote's
 * start: the firmware loader, the ELF and resource table parsers, the
 * memory and trace handlers) fails for reasons only the code far below
 * knows, which it prints with snaptrace_dev_err(). The file opens a catch
 * around the call (snaptrace_why_start(), snaptrace_why_stop()), which keeps
 * the first such message the task printed meanwhile, and logs it as the
 * command's error with snaptrace_log_file_why(): error_log says why in the
 * words of the kernel log, not only the errno.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "fw.h"
#include "internal.h"

/* As tracing/error_log's CMD_PREFIX: the caret line is indented as much. */
#define ST_CMD_PREFIX	"  Command: "

/* One logged error; the strings are copies, cut to fit. */
struct st_err {
	u64 ts;				/* local_clock(), ns */
	unsigned int pos;		/* caret position in @cmd */
	char loc[SNAPTRACE_ERR_LOC_MAX];
	char msg[SNAPTRACE_ERR_MSG_MAX];
	char cmd[SNAPTRACE_ERR_CMD_MAX];
};

/*
 * The log: a ring of the last SNAPTRACE_ERR_LOG_MAX errors. A raw spinlock
 * so that hardirq handlers may log, PREEMPT_RT included; it only guards
 * copies of a few hundred bytes.
 */
static DEFINE_RAW_SPINLOCK(st_log_lock);
static unsigned int st_log_first;	/* index of the oldest entry */
static unsigned int st_log_count;
static struct st_err st_log[SNAPTRACE_ERR_LOG_MAX];

/* Copy @cmd for showing: one line, printable, no trailing whitespace. */
static void st_err_copy_cmd(char *dst, const char *cmd)
{
	size_t len = strnlen(cmd, SNAPTRACE_ERR_CMD_MAX - 1), i;

	while (len && (cmd[len - 1] == '\n' || cmd[len - 1] == ' ' ||
		       cmd[len - 1] == '\t'))
		len--;
	for (i = 0; i < len; i++)
		dst[i] = cmd[i] >= 0x20 && cmd[i] < 0x7f ? cmd[i] : '.';
	dst[len] = '\0';
}

/* Append an entry, dropping the oldest when full. Not in NMI. */
static void st_log_add(const char *loc, const char *cmd, unsigned int err_pos,
		       const char *msg)
{
	unsigned long flags;
	struct st_err *e;

	if (!cmd)
		cmd = "";
	raw_spin_lock_irqsave(&st_log_lock, flags);
	if (st_log_count < SNAPTRACE_ERR_LOG_MAX) {
		e = &st_log[(st_log_first + st_log_count) % SNAPTRACE_ERR_LOG_MAX];
		st_log_count++;
	} else {
		e = &st_log[st_log_first];
		st_log_first = (st_log_first + 1) % SNAPTRACE_ERR_LOG_MAX;
	}
	e->ts = local_clock();
	strscpy(e->loc, loc, sizeof(e->loc));
	strscpy(e->msg, msg, sizeof(e->msg));
	st_err_copy_cmd(e->cmd, cmd);
	e->pos = min_t(unsigned int, err_pos, strlen(e->cmd));
	raw_spin_unlock_irqrestore(&st_log_lock, flags);
}

/**
 * snaptrace_log_err() - add an error to the error_log debugfs file
 * @loc: where the error is, e.g. the file's path under debugfs
 *	(``snaptrace/buffer_size_kb``); cut to %SNAPTRACE_ERR_LOC_MAX - 1 bytes
 * @cmd: the command that failed, as the user wrote it (NULL: none); cut to
 *	%SNAPTRACE_ERR_CMD_MAX - 1 bytes, trailing whitespace dropped, other
 *	bytes that are not printable ASCII shown as ``.``
 * @err_pos: byte offset in @cmd the caret points at; clamped to the end of
 *	the (cut) command, where it means "something is missing"
 * @msg: what is wrong, without the location; cut to
 *	%SNAPTRACE_ERR_MSG_MAX - 1 bytes
 *
 * Appends ``[seconds.micros] LOC: error: MSG``, ``  Command: CMD`` and a
 * caret line to the log, dropping the oldest of %SNAPTRACE_ERR_LOG_MAX
 * entries when full, and prints the error once to the kernel log
 * (ratelimited), so callers need no pr_err() of their own. Mirrors
 * tracing_log_err(), which takes a trace instance, an error table and an
 * index; this one takes the message itself and keeps one log for the
 * module.
 *
 * Context: any but NMI (in NMI it does nothing): task, softirq, hardirq,
 * IRQs disabled. Never sleeps, never allocates; takes a raw spinlock with
 * IRQs saved.
 */
void snaptrace_log_err(const char *loc, const char *cmd, unsigned int err_pos,
		       const char *msg)
{
	if (in_nmi())
		return;
	if (!loc)
		loc = "";
	if (!msg)
		msg = "";
	st_log_add(loc, cmd, err_pos, msg);
	pr_err_ratelimited("%s: error: %s\n", loc, msg);
}
EXPORT_SYMBOL_GPL(snaptrace_log_err);

/* @filp's path under debugfs, in @path (%SNAPTRACE_ERR_LOC_MAX bytes). */
static const char *st_file_loc(const struct file *filp, char *path)
{
	char *p = dentry_path_raw(filp->f_path.dentry, path, SNAPTRACE_ERR_LOC_MAX);

	if (IS_ERR(p))
		return "snaptrace";
	return *p == '/' ? p + 1 : p;
}

/**
 * snaptrace_log_file_err() - snaptrace_log_err() for a write to a file
 * @filp: the debugfs file written to; its path under debugfs is the location
 * @cmd: the text written (NUL-terminated; NULL: none)
 * @err_pos: byte offset of the bad part in @cmd
 * @msg: what is wrong
 *
 * Context: process context (a file operation). Never sleeps.
 */
void snaptrace_log_file_err(const struct file *filp, const char *cmd,
			    unsigned int err_pos, const char *msg)
{
	char path[SNAPTRACE_ERR_LOC_MAX];

	snaptrace_log_err(st_file_loc(filp, path), cmd, err_pos, msg);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_log_file_err);

/**
 * snaptrace_log_file_why() - log why a command written to a file failed
 * @filp: the debugfs file written to; its path under debugfs is the location
 * @cmd: the text written (NUL-terminated; NULL: none)
 * @err_pos: byte offset of the bad part in @cmd
 * @why: the catch the command ran in (snaptrace_why_start()), or NULL
 * @what: names the command for the fallback message
 * @err: the command's error, for the fallback message
 *
 * Logs the message @why caught, which snaptrace_dev_err() already printed
 * to the kernel log, so it is not printed again; if it caught none, logs
 * ``WHAT failed: -EXXX`` as snaptrace_log_file_err() does.
 *
 * Context: process context (a file operation). Never sleeps.
 */
void snaptrace_log_file_why(const struct file *filp, const char *cmd,
			    unsigned int err_pos, const struct snaptrace_why *why,
			    const char *what, int err)
{
	char path[SNAPTRACE_ERR_LOC_MAX];
	char msg[64];

	if (why && why->msg[0]) {
		st_log_add(st_file_loc(filp, path), cmd, err_pos, why->msg);
		return;
	}
	snprintf(msg, sizeof(msg), "%s failed: %pe", what, ERR_PTR(err));
	snaptrace_log_err(st_file_loc(filp, path), cmd, err_pos, msg);
}

/*
 * The catches open: each is a task's, on its stack, and only that task
 * writes its message or takes it off the list. A raw spinlock, as
 * snaptrace_dev_err() may be called under raw spinlocks, IRQs off.
 */
static DEFINE_RAW_SPINLOCK(st_why_lock);
static LIST_HEAD(st_whys);

/**
 * snaptrace_why_start() - catch why the command this task runs fails
 * @why: the catch, on the caller's stack until snaptrace_why_stop()
 *
 * Until snaptrace_why_stop(), the first message snaptrace_dev_err() prints
 * in this task (not from an interrupt, nor from another task: a work item
 * the command waits for) is kept in @why->msg. Catches nest: the innermost
 * one of the task catches.
 *
 * Context: process context. Never sleeps.
 */
void snaptrace_why_start(struct snaptrace_why *why)
{
	unsigned long flags;

	why->task = current;
	why->msg[0] = '\0';
	raw_spin_lock_irqsave(&st_why_lock, flags);
	list_add(&why->node, &st_whys);
	raw_spin_unlock_irqrestore(&st_why_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_why_start);

/**
 * snaptrace_why_stop() - stop catching; @why->msg keeps what was caught
 * @why: a catch of this task's, started
 *
 * Context: process context, the task that started @why. Never sleeps.
 */
void snaptrace_why_stop(struct snaptrace_why *why)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&st_why_lock, flags);
	list_del(&why->node);
	raw_spin_unlock_irqrestore(&st_why_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_why_stop);

/* The innermost catch the current task has open, or NULL. */
static struct snaptrace_why *st_why_current(void)
{
	struct snaptrace_why *why, *found = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&st_why_lock, flags);
	list_for_each_entry(why, &st_whys, node) {
		if (why->task == current) {
			found = why;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&st_why_lock, flags);
	return found;
}

/**
 * snaptrace_dev_err() - dev_err(), which a command's catch keeps
 * @dev: the device the message is about (may be NULL, as for dev_err())
 * @fmt: printf format, ending with a newline as dev_err()'s
 *
 * Prints as dev_err() does; in a task with a catch open
 * (snaptrace_why_start()) that has caught nothing yet, also keeps the
 * message there, without its newline, cut to %SNAPTRACE_ERR_MSG_MAX - 1
 * bytes. The code below a command reports every refusal with it, so that
 * error_log can say why the command failed.
 *
 * Context: any but NMI (as dev_err()); only in process context is the
 * message caught. Never sleeps, never allocates.
 */
void snaptrace_dev_err(const struct device *dev, const char *fmt, ...)
{
	struct snaptrace_why *why;
	struct va_format vaf;
	va_list args;
	size_t len;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	dev_err(dev, "%pV", &vaf);
	va_end(args);

	if (!in_task())
		return;
	/* Only this task writes its catch's message, or frees the catch. */
	why = st_why_current();
	if (!why || why->msg[0])
		return;
	va_start(args, fmt);
	vsnprintf(why->msg, sizeof(why->msg), fmt, args);
	va_end(args);
	len = strlen(why->msg);
	while (len && why->msg[len - 1] == '\n')
		why->msg[--len] = '\0';
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_dev_err);

/**
 * snaptrace_err_pos() - where a string is in a command, for the caret
 * @cmd: the command
 * @str: the part to point at
 *
 * Mirrors err_pos() of kernel/trace/trace.c (without its warning for an
 * empty @cmd).
 *
 * Context: any.
 * Return: the offset of the first @str in @cmd, or 0 if it is not there.
 */
unsigned int snaptrace_err_pos(const char *cmd, const char *str)
{
	const char *found = strstr(cmd, str);

	return found ? found - cmd : 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_err_pos);

/**
 * snaptrace_error_log_clear() - empty the error log
 *
 * Context: any but NMI. Never sleeps.
 */
void snaptrace_error_log_clear(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&st_log_lock, flags);
	st_log_first = 0;
	st_log_count = 0;
	raw_spin_unlock_irqrestore(&st_log_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_error_log_clear);

/* ------------------------------------------------------------------ */
/* The file: a copy of the log taken at open, shown with seq_file. */

struct st_err_snap {
	unsigned int count;
	struct st_err errs[SNAPTRACE_ERR_LOG_MAX];
};

static void *st_err_start(struct seq_file *m, loff_t *pos)
{
	struct st_err_snap *snap = m->private;

	return *pos < snap->count ? &snap->errs[*pos] : NULL;
}

static void *st_err_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return st_err_start(m, pos);
}

static void st_err_stop(struct seq_file *m, void *v)
{
}

static int st_err_show(struct seq_file *m, void *v)
{
	const struct st_err *e = v;
	unsigned int i;
	u32 rem;
	u64 s = div_u64_rem(e->ts, NSEC_PER_SEC, &rem);

	seq_printf(m, "[%5llu.%06u] %s: error: %s\n", s, rem / 1000,
		   e->loc, e->msg);
	seq_printf(m, ST_CMD_PREFIX "%s\n", e->cmd);
	for (i = 0; i < sizeof(ST_CMD_PREFIX) - 1 + e->pos; i++)
		seq_putc(m, ' ');
	seq_puts(m, "^\n");
	return 0;
}

static const struct seq_operations st_err_ops = {
	.start = st_err_start,
	.next = st_err_next,
	.stop = st_err_stop,
	.show = st_err_show,
};

/* As tracing_err_log_open(): O_TRUNC for writing clears the log. */
static int st_err_open(struct inode *inode, struct file *filp)
{
	struct st_err_snap *snap;
	unsigned long flags;
	unsigned int i;

	if ((filp->f_mode & FMODE_WRITE) && (filp->f_flags & O_TRUNC))
		snaptrace_error_log_clear();
	if (!(filp->f_mode & FMODE_READ))
		return 0;
	snap = __seq_open_private(filp, &st_err_ops, sizeof(*snap));
	if (!snap)
		return -ENOMEM;
	raw_spin_lock_irqsave(&st_log_lock, flags);
	for (i = 0; i < st_log_count; i++)
		snap->errs[i] = st_log[(st_log_first + i) % SNAPTRACE_ERR_LOG_MAX];
	snap->count = st_log_count;
	raw_spin_unlock_irqrestore(&st_log_lock, flags);
	return 0;
}

static ssize_t st_err_read(struct file *filp, char __user *ubuf, size_t cnt,
			   loff_t *ppos)
{
	if (!(filp->f_mode & FMODE_READ))
		return -EINVAL;
	return seq_read(filp, ubuf, cnt, ppos);
}

/* As tracing_err_log_write(): what is written is ignored. */
static ssize_t st_err_write(struct file *filp, const char __user *ubuf,
			    size_t cnt, loff_t *ppos)
{
	return cnt;
}

static loff_t st_err_lseek(struct file *filp, loff_t off, int whence)
{
	if (!(filp->f_mode & FMODE_READ))
		return 0;
	return seq_lseek(filp, off, whence);
}

static int st_err_release(struct inode *inode, struct file *filp)
{
	if (!(filp->f_mode & FMODE_READ))
		return 0;
	return seq_release_private(inode, filp);
}

static const struct file_operations st_err_fops = {
	.owner = THIS_MODULE,
	.open = st_err_open,
	.read = st_err_read,
	.write = st_err_write,
	.llseek = st_err_lseek,
	.release = st_err_release,
};

/**
 * snaptrace_error_log_create() - the error_log file
 * @parent: the directory to put it in (snaptrace's debugfs root)
 *
 * Context: process context, may sleep.
 * Return: 0, or the -E* debugfs gave.
 */
int snaptrace_error_log_create(struct dentry *parent)
{
	struct dentry *d;

	d = debugfs_create_file("error_log", 0600, parent, NULL, &st_err_fops);
	if (IS_ERR(d)) {
		pr_err("cannot create error_log: %pe\n", d);
		return PTR_ERR(d);
	}
	return 0;
}
