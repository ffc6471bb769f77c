// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace: last_boot/, the previous boot's capture as files
 * (Documentation/persist.rst, "Using it"): info (when and why it was
 * taken, what was kept and what was not, the remotes' traces), stats per
 * CPU, trace and per_cpu/cpuN/trace in the live trace's format, and
 * remotes/<dir>/traceN_last. What they show is the copy that the load
 * (persist_load.c) took out of the region, or why the region was kept as
 * found; release, which arms the region, is the load's. No upstream twin
 * (pstore's files, fs/pstore/inode.c, are the nearest).
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "persist.h"
#include "rproc.h"
#include "trace_decode.h"

/*
 * "@what: 2026-12-02 19:59:41 UTC (1796241581.956795362)": the date for
 * people, the seconds since the epoch for scripts.
 */
static void st_pr_show_wall(struct seq_file *m, const char *what, u64 real_ns)
{
	time64_t s;
	u32 ns;

	s = div_u64_rem(real_ns, NSEC_PER_SEC, &ns);
	/* %ptTs: vsprintf's time64_t as "YYYY-mm-dd HH:MM:SS", UTC */
	seq_printf(m, "%s: %ptTs UTC (%lld.%09u)\n", what, &s, (long long)s, ns);
}

/**
 * snaptrace_persist_times_show() - last_boot/info's lines on the wall clock
 * @m: the seq_file
 * @l: a capture from snaptrace_persist_parse()
 * @boot_real_ns: this boot's start on the wall clock (ns), or 0: unknown
 *
 * When the region was armed and when the capture was taken, by the
 * previous boot's wall clock, as a UTC date and seconds since the epoch
 * ("armed: 2026-12-02 19:59:41 UTC (1796241581.956795362)", "captured:
 * ..."); then, if the capture's time is not between its
 * arming and this load's (time_doubtful), a line that says so and which
 * side it is on: "time: doubtful: ...". With @boot_real_ns, how long
 * before this boot began the capture was taken ("captured before this
 * boot began: 37 s"), or that it was taken in this boot, by an earlier
 * load: a region from two boots ago, when the boot between did not load
 * the module, or this boot's own, is told by that, not by its checks.
 *
 * Context: process context; the caller keeps @l alive.
 */
void snaptrace_persist_times_show(struct seq_file *m,
				  const struct snaptrace_persist_last *l,
				  u64 boot_real_ns)
{
	st_pr_show_wall(m, "armed", l->hdr.armed_real_ns);
	st_pr_show_wall(m, "captured", l->cap.real_ns);
	if (boot_real_ns && l->cap.real_ns <= boot_real_ns)
		seq_printf(m, "captured before this boot began: %llu s\n",
			   div_u64(boot_real_ns - l->cap.real_ns, NSEC_PER_SEC));
	else if (boot_real_ns)
		seq_printf(m, "captured after this boot began (%llu s after): by an earlier load of this boot, or the clocks disagree\n",
			   div_u64(l->cap.real_ns - boot_real_ns, NSEC_PER_SEC));
	if (!l->time_doubtful)
		return;
	if (l->cap.real_ns < l->hdr.armed_real_ns)
		seq_puts(m, "time: doubtful: the capture's wall-clock time is before its arming (the previous boot's clock went back)\n");
	else
		seq_puts(m, "time: doubtful: the capture's wall-clock time is after this load's (this boot's clock is behind the previous boot's: no battery-backed clock, or not set yet)\n");
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_times_show);

/**
 * snaptrace_persist_remotes_show() - last_boot/info's lines on the remotes
 * @m: the seq_file
 * @l: a capture from snaptrace_persist_parse()
 *
 * Whether the remotes' last traces were kept (last_boot/remotes/), and
 * what became of those that were not, or only in part: "remote traces: 1
 * captured (remoteproc0/trace0_last)", "remote traces: none (no remote's
 * last trace held a record at the capture)" when the capture wrote no row
 * (no remote had a last trace, or the one a remote had held no record:
 * the capture keeps a row for a trace with records only), or "remote
 * traces: 0 captured" when some had records and none was kept; then a
 * line per remote left out, replaced during the capture, torn, with
 * entries dropped as corrupt, or refused (its row's format or length
 * not one a keeper writes: not shown).
 *
 * Context: process context; the caller keeps @l alive.
 */
void snaptrace_persist_remotes_show(struct seq_file *m,
				    const struct snaptrace_persist_last *l)
{
	unsigned int s, n = 0, rows = 0;
	const char *sep = "";

	for (s = 0; s < ST_PR_SRCS; s++) {
		n += l->remotes[s] && l->remote_text[s];
		rows += l->remotes[s];
	}
	if (!rows) {
		/*
		 * No row: no remote had a last trace, or its last copy held
		 * no sealed record when captured (st_pr_src_measure()).
		 */
		seq_puts(m, "remote traces: none (no remote's last trace held a record at the capture)\n");
	} else if (!n) {
		seq_puts(m, "remote traces: 0 captured\n");
	} else {
		seq_printf(m, "remote traces: %u captured (", n);
		for (s = 0; s < ST_PR_SRCS; s++) {
			if (!l->remotes[s] || !l->remote_text[s])
				continue;
			seq_printf(m, "%s%s", sep, l->srcs[s].name);
			sep = ", ";
		}
		seq_puts(m, ")\n");
	}
	for (s = 0; s < ST_PR_SRCS; s++) {
		const struct st_pr_src *r = &l->srcs[s];

		if (!l->remotes[s])
			continue;
		if (!l->unfinished && (r->flags & ST_PR_SRC_F_FULL))
			seq_printf(m, "remote %s: left out (more than its share of the region)\n",
				   r->name);
		if (!l->unfinished && (r->flags & ST_PR_SRC_F_STALE))
			seq_printf(m, "remote %s: replaced by a new crash during the capture: %s\n",
				   r->name, l->remote_text[s] ? "a part kept" : "not kept");
		if (!l->unfinished && (r->flags & ST_PR_SRC_F_TORN))
			seq_printf(m, "remote %s: being captured at the panic: its open pieces left out\n",
				   r->name);
		if (r->entries > l->remote_kept[s])
			seq_printf(m, "remote %s: dropped corrupt: %llu\n", r->name,
				   r->entries - l->remote_kept[s]);
		if (l->remote_err[s] == -EPROTONOSUPPORT)
			seq_printf(m, "remote %s: refused: trace format %u unknown: not shown\n",
				   r->name, r->fmt);
		else if (l->remote_err[s] == -EFBIG)
			seq_printf(m, "remote %s: refused: length %u beyond the largest trace (%u): not shown\n",
				   r->name, r->len, SNAPTRACE_RPROC_TRACE_MAX);
		else if (l->remote_err[s])
			seq_printf(m, "remote %s: refused: its text runs past its length (%u): not shown\n",
				   r->name, r->len);
	}
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_remotes_show);

/**
 * snaptrace_persist_remote_show() - last_boot/remotes/<dir>/traceN_last
 * @m: the seq_file
 * @l: a capture from snaptrace_persist_parse()
 * @row: the source's row
 *
 * The remote's last trace as its traceN_last showed it when the host
 * died: its bytes (the text kept, NULs up to the trace's length) decoded
 * by trace_decode.c with the format the keeper decoded with then, and
 * printed by snaptrace_trace_show(), as the keeper's traceN_last does
 * (trace_keeper.c). Nothing for a row with no trace kept, or refused. A
 * row whose pieces cannot be placed as the trace was (one dropped as
 * corrupt, the row replaced or torn) is not decoded: a line saying why,
 * then its text as kept, NULs left out.
 * No upstream twin.
 *
 * Context: process context; the caller keeps @l alive.
 */
void snaptrace_persist_remote_show(struct seq_file *m,
				   const struct snaptrace_persist_last *l,
				   unsigned int row)
{
	struct snaptrace_tdec dec;

	if (row >= ST_PR_SRCS || !l->remote_text[row])
		return;
	if (l->remote_raw[row]) {
		seq_printf(m, "[snaptrace: not decoded: %s: the text kept, NULs left out]\n",
			   l->remote_raw[row]);
		seq_write(m, l->remote_text[row], l->remote_len[row]);
		return;
	}
	if (!l->remote_len[row])
		return;
	if (!snaptrace_trace_decode(l->remote_text[row], l->remote_len[row],
				    l->srcs[row].fmt, &dec))
		snaptrace_trace_show(m, l->remote_text[row], &dec);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_remote_show);

/**
 * snaptrace_persist_snapshot_show() - last_boot/info's line on the snapshot
 * @m: the seq_file
 * @l: the previous boot's capture
 *
 * Whether the capture's snapshot was taken, past a stopped CPU's lock or
 * not at all, and whether it was replaced while it was being captured.
 *
 * Context: process context; the caller keeps @l alive.
 */
void snaptrace_persist_snapshot_show(struct seq_file *m,
				     const struct snaptrace_persist_last *l)
{
	if ((l->cap.flags & ST_PR_F_LOCKED) && (l->cap.flags & ST_PR_F_NO_SNAPSHOT))
		seq_puts(m, "snapshot: not taken: another CPU held the buffer's lock (still running, or stopped while it swapped the halves)");
	else if (l->cap.flags & ST_PR_F_LOCKED)
		seq_puts(m, "snapshot: taken, past the buffer's lock, which a CPU the panic stopped or interrupted held (a snapshot it was taking was completed: the CPUs it had cut hold their records until then)");
	else if (l->cap.flags & ST_PR_F_NO_SNAPSHOT)
		seq_puts(m, "snapshot: failed (no spare)");
	else
		seq_puts(m, "snapshot: taken");
	if (l->cap.flags & ST_PR_F_REPLACED)
		seq_puts(m, "; replaced during the capture (by a snapshot nested in it, an NMI's): the CPUs said replaced in stats kept none, or the older part of their records");
	seq_putc(m, '\n');
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_snapshot_show);

/**
 * snaptrace_persist_ent_record() - an entry as a record, for the formatter
 * @e: a kept entry of a &struct snaptrace_persist_last
 * @rec: filled in
 *
 * Context: any.
 */
void snaptrace_persist_ent_record(const struct st_pr_ent *e,
				  struct snaptrace_record *rec)
{
	rec->ts = e->ts;
	rec->pos = e->pos;
	rec->cpu = e->cpu;
	rec->type = e->type;
	rec->len = e->len;
	memcpy(rec->data, e->data, e->len);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_ent_record);

/**
 * snaptrace_persist_reason() - a capture's reason, as info and the log say it
 * @reason: the capture's &enum st_pr_reason, as found
 *
 * No upstream twin.
 *
 * Context: any.
 * Return: "panic", "oops", "test", or "unknown".
 */
const char *snaptrace_persist_reason(u32 reason)
{
	switch (reason) {
	case ST_PR_PANIC:
		return "panic";
	case ST_PR_OOPS:
		return "oops";
	case ST_PR_TEST:
		return "test";
	default:
		return "unknown";
	}
}

/**
 * snaptrace_persist_why() - why a region is kept, for info and the log
 * @err: the refusal that keeps it (snaptrace_persist_keeps())
 *
 * For -ERANGE, whether its geometry was right (snaptrace_persist_kept_past_end):
 * then its length runs past the region's end. No upstream twin.
 *
 * Context: any; the caller holds snaptrace_persist_lock, or is the load
 * that set the kept region.
 * Return: the words, a constant string.
 */
const char *snaptrace_persist_why(int err)
{
	switch (err) {
	case -EPROTONOSUPPORT:
		return "another version of snaptrace's region: that version can read it";
	case -ERANGE:
		if (snaptrace_persist_kept_past_end)
			return "a capture whose length runs past the region's end: damaged";
		return "armed with another size or layout: load with the size it was armed with";
	case -EBADMSG:
		return "a capture whose header or per-CPU table is damaged";
	case -EINPROGRESS:
		return "an unfinished capture whose header is damaged";
	default:
		return "refused";
	}
}

static int st_pr_info_show(struct seq_file *m, void *unused)
{
	struct snaptrace_persist_last *l;
	u64 left = 0;
	unsigned int i;
	u32 ns;
	u64 s;

	mutex_lock(&snaptrace_persist_lock);
	l = snaptrace_persist_last_boot;
	if (!l && snaptrace_persist_kept && snaptrace_persist_armed) {
		seq_puts(m, "released part way: armed, a notifier not registered (echo 0 > release again)\n");
		goto out;
	}
	if (!l && snaptrace_persist_kept) {
		seq_printf(m, "kept: %pe: %s\n", ERR_PTR(snaptrace_persist_kept),
			   snaptrace_persist_why(snaptrace_persist_kept));
		seq_puts(m, "armed: no (this boot is not captured until the region is released: echo 0 > release)\n");
		goto out;
	}
	if (!l) {
		seq_puts(m, "released\n");
		goto out;
	}
	for (i = 0; i < l->nr_cpus; i++)
		left += l->per_cpu[i].left_out;
	seq_printf(m, "boot id: %016llx\n", l->hdr.boot_id);
	/* This boot's start on the wall clock, as this boot's clock says. */
	snaptrace_persist_times_show(m, l, ktime_get_real_ns() -
					   ktime_get_boottime_ns());
	s = div_u64_rem(l->cap.clock_ns, NSEC_PER_SEC, &ns);
	seq_printf(m, "captured at trace clock: %llu.%06u\n", s, ns / 1000);
	seq_printf(m, "reason: %s\n", snaptrace_persist_reason(l->cap.reason));
	seq_printf(m, "cpu: %d\n", l->cap.cpu);
	if (l->unfinished)
		seq_printf(m, "capture: unfinished: the machine stopped while CPU %d was capturing; the records are those it had written, found intact\n",
			   l->cap.cpu);
	else
		seq_puts(m, "capture: finished\n");
	seq_printf(m, "message: %.*s\n", (int)strnlen(l->cap.msg, sizeof(l->cap.msg)),
		   l->cap.msg);
	seq_printf(m, "kernel: _printk at 0x%llx\n", l->cap.kernel_anchor);
	for (i = 0; i < min_t(u32, l->cap.nr_mods, ST_PR_MODS); i++)
		seq_printf(m, "module: %.*s text at 0x%llx size 0x%llx\n",
			   (int)strnlen(l->cap.mods[i].name, ST_PR_MOD_NAME),
			   l->cap.mods[i].name, l->cap.mods[i].base,
			   l->cap.mods[i].size);
	snaptrace_persist_snapshot_show(m, l);
	seq_printf(m, "records kept: %llu\n", l->kept);
	seq_printf(m, "dropped torn: %llu\n", l->torn);
	seq_printf(m, "dropped corrupt: %llu\n", l->corrupt);
	seq_printf(m, "left out (region full): %llu\n", left);
	snaptrace_persist_remotes_show(m, l);
out:
	mutex_unlock(&snaptrace_persist_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(st_pr_info);

static int st_pr_stats_show(struct seq_file *m, void *unused)
{
	struct snaptrace_persist_last *l;
	unsigned int c;

	mutex_lock(&snaptrace_persist_lock);
	l = snaptrace_persist_last_boot;
	if (!l)
		seq_puts(m, snaptrace_persist_kept ? "kept as found, not shown: info says why\n" :
					 "released\n");
	for (c = 0; l && c < l->nr_cpus; c++) {
		const struct st_pr_cpu *t = &l->per_cpu[c];

		if (t->entries || t->torn || t->left_out || t->flags)
			seq_printf(m, "cpu%u: written %llu torn %llu left out %llu%s\n",
				   c, t->entries, t->torn, t->left_out,
				   t->flags & ST_PR_CPU_F_REPLACED ?
				   " replaced" : "");
	}
	mutex_unlock(&snaptrace_persist_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(st_pr_stats);

/* trace and per_cpu/cpuN/trace: i_private is the CPU + 1, 0 for all. */
struct st_pr_dump {
	int cpu;
	struct snaptrace_record rec;
};

/* The first kept entry at or after @i of the dump's CPU. */
static loff_t st_pr_seek(struct st_pr_dump *d, loff_t i)
{
	struct snaptrace_persist_last *l = snaptrace_persist_last_boot;

	while (l && i < l->kept && d->cpu >= 0 && l->ents[i]->cpu != d->cpu)
		i++;
	return i;
}

static void *st_pr_start(struct seq_file *m, loff_t *pos)
{
	struct st_pr_dump *d = m->private;
	loff_t i;

	mutex_lock(&snaptrace_persist_lock);
	if (*pos == 0)
		return SEQ_START_TOKEN;
	i = st_pr_seek(d, *pos - 1);
	if (!snaptrace_persist_last_boot || i >= snaptrace_persist_last_boot->kept)
		return NULL;
	*pos = i + 1;
	return (void *)snaptrace_persist_last_boot->ents[i];
}

static void *st_pr_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct st_pr_dump *d = m->private;
	loff_t i = st_pr_seek(d, *pos);

	if (!snaptrace_persist_last_boot || i >= snaptrace_persist_last_boot->kept) {
		*pos = i + 1;
		return NULL;
	}
	*pos = i + 1;
	return (void *)snaptrace_persist_last_boot->ents[i];
}

static void st_pr_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&snaptrace_persist_lock);
}

/* per_cpu/cpuN/trace's counts: that CPU's. */
static void st_pr_cpu_header(struct seq_file *m,
			     const struct snaptrace_persist_last *l, int cpu)
{
	const struct st_pr_cpu *t = &l->per_cpu[cpu];
	u64 i, n = 0;

	for (i = 0; i < l->kept; i++)
		n += l->ents[i]->cpu == cpu;
	seq_printf(m, "# cpu%d: records kept: %llu, dropped torn: %llu, dropped corrupt: %llu (all CPUs: %llu kept)\n#\n",
		   cpu, n, t->torn, t->entries > n ? t->entries - n : 0,
		   l->kept);
}

static int st_pr_show(struct seq_file *m, void *v)
{
	struct st_pr_dump *d = m->private;
	unsigned int i;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "# snaptrace: the previous boot's capture (info says when and why)\n#\n");
		if (!snaptrace_persist_last_boot && snaptrace_persist_kept)
			seq_puts(m, "# kept as found, not shown: info says why\n");
		else if (!snaptrace_persist_last_boot)
			seq_puts(m, "# released\n");
		else if (d->cpu < 0)
			seq_printf(m, "# records kept: %llu, dropped torn: %llu, dropped corrupt: %llu\n#\n",
				   snaptrace_persist_last_boot->kept,
				   snaptrace_persist_last_boot->torn,
				   snaptrace_persist_last_boot->corrupt);
		else
			st_pr_cpu_header(m, snaptrace_persist_last_boot, d->cpu);
		seq_puts(m, "# CPU   TIMESTAMP  PAYLOAD\n#  |        |         |\n");
		return 0;
	}
	snaptrace_persist_ent_record(v, &d->rec);
	/*
	 * A stack's addresses are the previous boot's: symbolising them
	 * with this boot's symbols would lie. Shown raw; info has the
	 * bases to symbolise them with.
	 */
	if (d->rec.type == SNAPTRACE_REC_STACK) {
		unsigned long a;
		u32 ns;
		u64 secs = div_u64_rem(d->rec.ts, NSEC_PER_SEC, &ns);

		seq_printf(m, "[%03u] %5llu.%06u: <stack trace>\n", d->rec.cpu,
			   secs, ns / (u32)NSEC_PER_USEC);
		for (i = 0; i + sizeof(a) <= d->rec.len; i += sizeof(a)) {
			memcpy(&a, d->rec.data + i, sizeof(a));
			seq_printf(m, " => 0x%lx\n", a);
		}
		return 0;
	}
	snaptrace_seq_record(m, &d->rec);
	return 0;
}

static const struct seq_operations st_pr_dump_ops = {
	.start = st_pr_start,
	.next = st_pr_next,
	.stop = st_pr_stop,
	.show = st_pr_show,
};

static int st_pr_dump_open(struct inode *inode, struct file *filp)
{
	struct st_pr_dump *d;

	d = __seq_open_private(filp, &st_pr_dump_ops, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->cpu = (int)(uintptr_t)inode->i_private - 1;
	return 0;
}

static const struct file_operations st_pr_dump_fops = {
	.owner = THIS_MODULE,
	.open = st_pr_dump_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

/* remotes/<dir>/traceN_last: i_private is the source's row + 1. */
static int st_pr_remote_seq_show(struct seq_file *m, void *unused)
{
	mutex_lock(&snaptrace_persist_lock);
	if (snaptrace_persist_last_boot)
		snaptrace_persist_remote_show(m, snaptrace_persist_last_boot,
					      (uintptr_t)m->private - 1);
	else	/* as stats reads */
		seq_puts(m, snaptrace_persist_kept ? "kept as found, not shown: info says why\n" :
					 "released\n");
	mutex_unlock(&snaptrace_persist_lock);
	return 0;
}

/* Room for the trace's bytes and a page, as the keeper's traceN_last. */
static int st_pr_remote_open(struct inode *inode, struct file *filp)
{
	unsigned int s = (uintptr_t)inode->i_private - 1;
	size_t size = PAGE_SIZE;

	mutex_lock(&snaptrace_persist_lock);
	if (snaptrace_persist_last_boot && s < ST_PR_SRCS)
		size += snaptrace_persist_last_boot->remote_len[s];
	mutex_unlock(&snaptrace_persist_lock);
	return single_open_size(filp, st_pr_remote_seq_show, inode->i_private,
				size);
}

static const struct file_operations st_pr_remote_fops = {
	.owner = THIS_MODULE,
	.open = st_pr_remote_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * last_boot/remotes/<dir>/<file>: each remote's last trace kept, named as
 * its traceN_last was (the parser checked the name: two components).
 */
static void st_pr_debugfs_remotes(struct dentry *dir)
{
	struct dentry *rd = NULL, *dirs[ST_PR_SRCS];
	const struct snaptrace_persist_last *l = snaptrace_persist_last_boot;
	char name[ST_PR_SRC_NAME];
	unsigned int s, t;
	char *file;

	for (s = 0; s < ST_PR_SRCS; s++) {
		dirs[s] = NULL;
		if (!l->remotes[s] || !l->remote_text[s])
			continue;
		if (!rd)
			rd = debugfs_create_dir("remotes", dir);
		strscpy(name, l->srcs[s].name, sizeof(name));
		file = strchr(name, '/');
		*file++ = 0;
		/* A remote's traces share its directory. */
		for (t = 0; t < s; t++)
			if (dirs[t] && !strncmp(l->srcs[t].name, name, strlen(name)) &&
			    l->srcs[t].name[strlen(name)] == '/')
				break;
		dirs[s] = t < s ? dirs[t] : debugfs_create_dir(name, rd);
		debugfs_create_file(file, 0400, dirs[s], (void *)(uintptr_t)(s + 1),
				    &st_pr_remote_fops);
	}
}

/**
 * snaptrace_persist_debugfs() - create last_boot/ under snaptrace's directory
 * @root: snaptrace's debugfs directory
 *
 * info, stats, trace and release; with a capture to show, also its
 * remotes' last traces (remotes/) and a per_cpu/cpuN/trace for each CPU
 * that has entries. The directory is snaptrace_persist_dir, removed by
 * snaptrace_persist_exit(). No upstream twin.
 *
 * Context: module init (snaptrace_persist_init()), after the capture or
 * the kept region's error is set. Sleeps.
 * Return: 0, or the error of the directory's creation.
 */
int snaptrace_persist_debugfs(struct dentry *root)
{
	struct dentry *dir, *pc, *cd;
	char name[16];
	unsigned int c;

	dir = debugfs_create_dir("last_boot", root);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	snaptrace_persist_dir = dir;
	debugfs_create_file("info", 0400, dir, NULL, &st_pr_info_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &st_pr_stats_fops);
	debugfs_create_file("trace", 0400, dir, NULL, &st_pr_dump_fops);
	debugfs_create_file("release", 0600, dir, NULL, &snaptrace_persist_release_fops);
	if (!snaptrace_persist_last_boot)
		return 0;
	st_pr_debugfs_remotes(dir);
	pc = debugfs_create_dir("per_cpu", dir);
	for (c = 0; c < snaptrace_persist_last_boot->nr_cpus; c++) {
		if (!snaptrace_persist_last_boot->per_cpu[c].entries)
			continue;
		snprintf(name, sizeof(name), "cpu%u", c);
		cd = debugfs_create_dir(name, pc);
		debugfs_create_file("trace", 0400, cd, (void *)(uintptr_t)(c + 1),
				    &st_pr_dump_fops);
	}
	return 0;
}
