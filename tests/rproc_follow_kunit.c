// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of following upstream's remote processors: a test platform
 * driver registers real struct rprocs (rproc_alloc(), rproc_add(), no auto
 * boot) whose ops are upstream's ELF loader and vmalloc'ed memory for
 * da_to_va, so that upstream's core parses, loads, boots, crashes and
 * recovers our example images, the fixture images and images built here.
 *
 * The remotes' "firmware" is an hrtimer that ops->start starts: each tick
 * writes a line into every trace buffer the loaded resource table
 * (rproc->table_ptr) declares, in one of the conventions real firmware
 * uses (plain NUL-terminated text, Zephyr's RAM console, libmetal's R5
 * logger, STM32Cube's log); at the end of a run it may report a crash
 * (rproc_report_crash()) from that tick, in hard interrupt context (a
 * timer's, on PREEMPT_RT a threaded one, as a driver's watchdog IRQ).
 * Completions signalled from ops->start, ops->stop and the last tick, and
 * flush_work() of upstream's crash handler, are what the tests wait for; a
 * bounded wait only guards against a hang, and fails the test.
 *
 * snaptrace follows these remotes as any (src/rproc_follow.c): each case
 * sets what upstream's own debugfs shows (the new run after a recovery)
 * against snaptrace's traceN_last (the crash-time log, decoded, byte for
 * byte, oldest line first) and its crashes file. The driver lives in the
 * KUnit module, which needs snaptrace.ko: letting go of running remotes is
 * tested through snaptrace_follow_stop() and _start(), what rmmod and
 * insmod do, not by an rmmod of snaptrace.
 */
#include <linux/completion.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/firmware.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/preempt.h>
#include <linux/remoteproc.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/test.h>

#include "../src/rproc_follow.h"
#include "st_kunit.h"

#define RF_DRV			"snaptrace-rf"
/* Upstream's own debugfs directory of the remotes. */
#define RF_UPSTREAM		ST_DEBUGFS "/remoteproc"
/* snaptrace's, of the remotes it follows. */
#define RF_ST			ST_ROOT "/remoteproc"
/* Where the images built here are written for request_firmware(). */
#define RF_FW_DIR		"/lib/firmware/"
#define RF_FIXTURES		"snaptrace-fixtures/"
/* Hang guard of every wait: reaching it fails the test. */
#define RF_GUARD_MS		120000
/* Time between two lines of the firmware. */
#define RF_PERIOD_NS		(200 * NSEC_PER_USEC)
#define RF_MAX_TRACES		2
#define RF_MAX_RUNS		4
#define RF_MAX_REGIONS		16
/* The built images: one segment, table first, trace buffers in its .bss. */
#define RF_SEG_DA		0x10000000U
#define RF_SEG_MEMSZ		0x4000U
#define RF_TRACE_DA(i)		(RF_SEG_DA + 0x1000U * ((i) + 1))
#define RF_LINE_MAX		96

/* How the firmware writes a trace (the conventions of issue 18). */
enum rf_fmt {
	RF_PLAIN,	/* NUL-terminated text from offset 0, never wraps */
	RF_ZEPHYR,	/* circular over len - 1, no NUL written */
	RF_LIBMETAL,	/* "cnt L<level> msg" lines, circular over len, no NUL */
	RF_STM32CUBE,	/* a NUL after each character, wrapping before the last byte */
};

/* What the firmware does in one run (from one ops->start). */
struct rf_run {
	unsigned int lines;	/* lines per trace, one per tick */
	bool crash;		/* report a crash after the last line */
};

/* Platform data of a test remote. */
struct rf_pdata {
	const char *name;	/* rproc->name */
	const char *fw;		/* firmware name under /lib/firmware */
	bool no_recovery;
};

/* A range of the remote's memory, backed by vmalloc. */
struct rf_region {
	u64 da;
	size_t len;
	u8 *va;
};

/* Where the firmware writes next in one trace. */
struct rf_wstate {
	u32 pos;
	u32 cnt;		/* plain: full */
};

/* A test remote: the rproc's priv. */
struct rf_remote {
	struct rproc *rproc;
	struct platform_device *pdev;
	const char *tag;		/* what its lines start with */
	const char *st_name;		/* its directory under snaptrace/remoteproc */
	struct rf_region region[RF_MAX_REGIONS];
	unsigned int nr_regions;
	int (*elf_parse_fw)(struct rproc *rproc, const struct firmware *fw);
	/* The "firmware" */
	struct hrtimer timer;
	u8 *table;			/* its loaded table (as the firmware knows it) */
	size_t table_sz;
	enum rf_fmt fmt[RF_MAX_TRACES];
	u32 fill_da[RF_MAX_TRACES];	/* if not 0: written into the table at run time */
	struct rf_run run[RF_MAX_RUNS];
	struct rf_wstate w[RF_MAX_TRACES];
	unsigned int line;		/* lines written in this run */
	bool not_hardirq;		/* a tick ran outside hard irq (not on RT) */
	bool iomem;			/* da_to_va says it is I/O memory */
	/* Counted by ops->start / ops->stop, under rproc->lock */
	unsigned int starts;
	unsigned int stops;
	struct completion started;
	struct completion stopped;
	struct completion done;		/* a run wrote its last line */
};

/* ---- memory: da_to_va over vmalloc'ed regions ---- */

static void *rf_va(struct rf_remote *r, u64 da, size_t len)
{
	unsigned int i;

	for (i = 0; i < r->nr_regions; i++) {
		struct rf_region *g = &r->region[i];

		if (da >= g->da && len <= g->len && da - g->da <= g->len - len)
			return g->va + (da - g->da);
	}
	return NULL;
}

static void *rf_da_to_va(struct rproc *rproc, u64 da, size_t len, bool *is_iomem)
{
	struct rf_remote *r = rproc->priv;

	/* x86 reads I/O memory with plain loads: RAM stands in for it */
	if (is_iomem)
		*is_iomem = r->iomem;
	return rf_va(r, da, len);
}

static void rf_unmap(struct rf_remote *r)
{
	while (r->nr_regions)
		vfree(r->region[--r->nr_regions].va);
}

static int rf_range_cmp(const void *a, const void *b)
{
	const struct rf_region *x = a, *y = b;

	return x->da < y->da ? -1 : x->da > y->da;
}

static int rf_add_range(struct rf_region *rg, unsigned int *n, u64 da, u64 len)
{
	if (!len)
		return 0;
	if (*n == RF_MAX_REGIONS || len > SZ_16M)
		return -E2BIG;
	rg[*n].da = da;
	rg[*n].len = len;
	(*n)++;
	return 0;
}

/*
 * The image's PT_LOAD ranges (by p_paddr, as rproc_elf_load_segments()
 * loads them) and its trace buffers outside them, merged, each backed by
 * zeroed vmalloc memory. A trace da of 0 is the firmware's to fill in at
 * run time: not mapped.
 */
static int rf_map(struct rf_remote *r, const struct firmware *fw)
{
	struct rf_region rg[RF_MAX_REGIONS];
	const u8 *d = fw->data;
	bool is64 = d[EI_CLASS] == ELFCLASS64;
	unsigned int i, n = 0, m;
	u64 phoff, da, memsz;
	u16 phnum, phsz;
	int ret;

	if (is64) {
		const struct elf64_hdr *eh = (const void *)d;

		phoff = eh->e_phoff;
		phnum = eh->e_phnum;
		phsz = sizeof(struct elf64_phdr);
	} else {
		const struct elf32_hdr *eh = (const void *)d;

		phoff = eh->e_phoff;
		phnum = eh->e_phnum;
		phsz = sizeof(struct elf32_phdr);
	}
	if (phoff > fw->size || (u64)phnum * phsz > fw->size - phoff)
		return -EINVAL;
	for (i = 0; i < phnum; i++) {
		const u8 *p = d + phoff + (u64)i * phsz;
		u32 type;

		if (is64) {
			const struct elf64_phdr *ph = (const void *)p;

			type = ph->p_type;
			da = ph->p_paddr;
			memsz = ph->p_memsz;
		} else {
			const struct elf32_phdr *ph = (const void *)p;

			type = ph->p_type;
			da = ph->p_paddr;
			memsz = ph->p_memsz;
		}
		if (type != PT_LOAD)
			continue;
		ret = rf_add_range(rg, &n, da, memsz);
		if (ret)
			return ret;
	}
	if (r->rproc->table_ptr) {
		const struct resource_table *t = (const void *)r->rproc->table_ptr;
		size_t sz = r->rproc->table_sz;

		for (i = 0; i < t->num; i++) {
			u32 off = t->offset[i];
			const struct fw_rsc_hdr *h;
			const struct fw_rsc_trace *tr;

			if (off > sz || sz - off < sizeof(*h) + sizeof(*tr))
				continue;
			h = (const void *)((const u8 *)t + off);
			tr = (const void *)h->data;
			if (h->type != RSC_TRACE || !tr->da)
				continue;
			ret = rf_add_range(rg, &n, tr->da, tr->len);
			if (ret)
				return ret;
		}
	}
	sort(rg, n, sizeof(rg[0]), rf_range_cmp, NULL);
	for (i = 0, m = 0; i < n; i++) {
		if (m && rg[i].da <= rg[m - 1].da + rg[m - 1].len) {
			u64 end = max(rg[m - 1].da + rg[m - 1].len, rg[i].da + rg[i].len);

			rg[m - 1].len = end - rg[m - 1].da;
		} else {
			rg[m++] = rg[i];
		}
	}
	for (i = 0; i < m; i++) {
		r->region[i] = rg[i];
		r->region[i].va = vzalloc(rg[i].len);
		if (!r->region[i].va) {
			r->nr_regions = i;
			rf_unmap(r);
			return -ENOMEM;
		}
	}
	r->nr_regions = m;
	return 0;
}

/* ---- the ops ---- */

/*
 * Upstream's ELF loader (rproc_elf_load_rsc_table()) finds the table; an
 * image without one boots with no resources, as stm32_rproc_parse_fw()
 * lets it. Then the memory.
 */
static int rf_parse_fw(struct rproc *rproc, const struct firmware *fw)
{
	struct rf_remote *r = rproc->priv;

	if (r->elf_parse_fw(rproc, fw))
		dev_info(&rproc->dev, "no resource table in the image\n");
	rf_unmap(r);
	return rf_map(r, fw);
}

static int rf_unprepare(struct rproc *rproc)
{
	rf_unmap(rproc->priv);
	return 0;
}

/* The @i-th RSC_TRACE entry of the firmware's loaded table, or NULL. */
static struct fw_rsc_trace *rf_fw_trace(struct rf_remote *r, unsigned int i)
{
	struct resource_table *t = (void *)r->table;
	unsigned int e, seen = 0;

	if (!t || r->table_sz < sizeof(*t))
		return NULL;
	for (e = 0; e < t->num && sizeof(*t) + (e + 1) * 4 <= r->table_sz; e++) {
		u32 off = t->offset[e];
		struct fw_rsc_hdr *h;

		if (off > r->table_sz ||
		    r->table_sz - off < sizeof(*h) + sizeof(struct fw_rsc_trace))
			continue;
		h = (void *)(r->table + off);
		if (h->type != RSC_TRACE)
			continue;
		if (seen++ == i)
			return (void *)h->data;
	}
	return NULL;
}

/*
 * Line @line of run @run in trace @t: libmetal's records start "cnt L<level> "
 * (counters from 0), Zephyr's with a tick timestamp "[%08u] ".
 */
static int rf_line(char *out, size_t size, const char *tag, enum rf_fmt fmt,
		   unsigned int run, unsigned int t, unsigned int line)
{
	if (fmt == RF_LIBMETAL)
		return scnprintf(out, size, "%u L3 %s run%u trace%u line%u\n",
				 line, tag, run, t, line);
	if (fmt == RF_ZEPHYR)
		return scnprintf(out, size, "[%08u] %s run%u trace%u line%u\n",
				 line, tag, run, t, line);
	return scnprintf(out, size, "%s run%u trace%u line%u\n", tag, run, t, line);
}

/*
 * Writes @s into a trace buffer of @len bytes, as firmware of @fmt does:
 * Zephyr's ram_console_out() (circular over len - 1, the last byte stays
 * NUL), libmetal's rsc_trace_putchar() (circular over len, no NUL),
 * STM32Cube's log_buff() (a NUL after each character, wrapping when the
 * next would be the last byte). Plain text stops when full.
 */
static void rf_put(u8 *buf, u32 len, struct rf_wstate *w, enum rf_fmt fmt,
		   const char *s, size_t n)
{
	size_t k;

	if (fmt == RF_PLAIN) {
		if (w->cnt || w->pos + n > len - 1) {
			w->cnt = 1;
			return;
		}
		memcpy(buf + w->pos, s, n);
		w->pos += n;
		buf[w->pos] = '\0';
		return;
	}
	for (k = 0; k < n; k++) {
		switch (fmt) {
		case RF_ZEPHYR:
			buf[w->pos] = s[k];
			w->pos = (w->pos + 1) % (len - 1);
			break;
		case RF_STM32CUBE:
			if (w->pos + 1 >= len)
				w->pos = 0;
			buf[w->pos] = s[k];
			buf[w->pos + 1] = '\0';
			w->pos++;
			break;
		default:
			buf[w->pos] = s[k];
			w->pos = (w->pos + 1) % len;
			break;
		}
	}
}

static enum hrtimer_restart rf_tick(struct hrtimer *timer)
{
	struct rf_remote *r = container_of(timer, struct rf_remote, timer);
	const struct rf_run *run = &r->run[min(r->starts, RF_MAX_RUNS) - 1];
	char line[RF_LINE_MAX];
	unsigned int t;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT) && !in_hardirq())
		r->not_hardirq = true;
	for (t = 0; t < RF_MAX_TRACES; t++) {
		struct fw_rsc_trace *tr = rf_fw_trace(r, t);
		u8 *buf;
		int n;

		if (!tr)
			break;
		if (r->line == 0 && r->fill_da[t])
			WRITE_ONCE(tr->da, r->fill_da[t]);
		buf = tr->len >= 2 ? rf_va(r, tr->da, tr->len) : NULL;
		if (!buf)
			continue;
		if (r->line == 0) {
			/* crt0 clears the buffer, wherever the image put it */
			memset(buf, 0, tr->len);
			r->w[t] = (struct rf_wstate){};
		}
		n = rf_line(line, sizeof(line), r->tag, r->fmt[t], r->starts, t, r->line);
		rf_put(buf, tr->len, &r->w[t], r->fmt[t], line, n);
	}
	if (++r->line < run->lines) {
		hrtimer_forward_now(timer, ns_to_ktime(RF_PERIOD_NS));
		return HRTIMER_RESTART;
	}
	if (run->crash)
		rproc_report_crash(r->rproc, RPROC_WATCHDOG);
	complete(&r->done);
	return HRTIMER_NORESTART;
}

static int rf_start(struct rproc *rproc)
{
	struct rf_remote *r = rproc->priv;
	const struct rf_run *run;

	r->starts++;
	run = &r->run[min(r->starts, RF_MAX_RUNS) - 1];
	/* The firmware knows where its table is: the loaded one. */
	r->table = (u8 *)rproc->table_ptr;
	r->table_sz = rproc->table_ptr ? rproc->table_sz : 0;
	r->line = 0;
	if (run->lines)
		hrtimer_start(&r->timer, ns_to_ktime(RF_PERIOD_NS), HRTIMER_MODE_REL);
	else
		complete(&r->done);
	complete(&r->started);
	return 0;
}

static int rf_stop(struct rproc *rproc)
{
	struct rf_remote *r = rproc->priv;

	hrtimer_cancel(&r->timer);
	r->table = NULL;
	r->stops++;
	complete(&r->stopped);
	return 0;
}

static const struct rproc_ops rf_ops = {
	.unprepare = rf_unprepare,
	.start = rf_start,
	.stop = rf_stop,
	.da_to_va = rf_da_to_va,
	/*
	 * No .load: rproc_alloc() then fills in upstream's ELF loader
	 * (rproc_elf_sanity_check, _load_rsc_table, _find_loaded_rsc_table,
	 * _load_segments, _get_boot_addr), declared only in its private
	 * remoteproc_internal.h; rf_probe() wraps its parse_fw.
	 */
};

/* ---- the platform driver ---- */

static int rf_probe(struct platform_device *pdev)
{
	const struct rf_pdata *pd = dev_get_platdata(&pdev->dev);
	struct rf_remote *r;
	struct rproc *rproc;
	int ret;

	if (!pd)
		return -EINVAL;
	rproc = rproc_alloc(&pdev->dev, pd->name, &rf_ops, pd->fw, sizeof(*r));
	if (!rproc)
		return -ENOMEM;
	rproc->auto_boot = false;
	rproc->recovery_disabled = pd->no_recovery;
	r = rproc->priv;
	/* upstream's ELF loader, as rproc_alloc() filled it in */
	r->elf_parse_fw = rproc->ops->parse_fw;
	rproc->ops->parse_fw = rf_parse_fw;
	r->rproc = rproc;
	r->pdev = pdev;
	r->tag = rproc->name;
	r->st_name = rproc->name;
	hrtimer_setup(&r->timer, rf_tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	init_completion(&r->started);
	init_completion(&r->stopped);
	init_completion(&r->done);
	platform_set_drvdata(pdev, rproc);
	ret = rproc_add(rproc);
	if (ret) {
		rproc_free(rproc);
		return ret;
	}
	return 0;
}

static void rf_remove(struct platform_device *pdev)
{
	struct rproc *rproc = platform_get_drvdata(pdev);

	rproc_del(rproc);
	rf_unmap(rproc->priv);
	rproc_free(rproc);
}

static struct platform_driver rf_driver = {
	.probe = rf_probe,
	.remove = rf_remove,
	.driver = {
		.name = RF_DRV,
	},
};

static void rf_unregister(void *pdev)
{
	platform_device_unregister(pdev);
}

/*
 * A registered remote, named @name, of firmware @fw; unregistered when the
 * test ends unless rf_unbind() did. Its runs: none until the test says.
 */
static struct rf_remote *rf_new(struct kunit *test, const char *name,
				const char *fw, bool no_recovery)
{
	struct rf_pdata pd = { .name = name, .fw = fw, .no_recovery = no_recovery };
	struct platform_device *pdev;
	struct rproc *rproc;

	pdev = platform_device_register_data(NULL, RF_DRV, PLATFORM_DEVID_AUTO,
					     &pd, sizeof(pd));
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pdev), "register: %pe", pdev);
	rproc = platform_get_drvdata(pdev);
	if (!rproc)
		platform_device_unregister(pdev);
	KUNIT_ASSERT_NOT_NULL_MSG(test, rproc, "the test driver did not bind");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rf_unregister, pdev), 0);
	return rproc->priv;
}

/* Unbinds the driver from @r (rproc_del() while whatever runs). */
static void rf_unbind(struct kunit *test, struct rf_remote *r)
{
	kunit_release_action(test, rf_unregister, r->pdev);
}

/* ---- waiting, reading ---- */

static void rf_wait(struct kunit *test, struct completion *c, const char *what,
		    struct rf_remote *r)
{
	KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(c, msecs_to_jiffies(RF_GUARD_MS)),
			    0, "%s: no %s within the hang guard", r->rproc->name, what);
}

/*
 * Waits for upstream's crash handler of @r to be done: the firmware
 * queued it (rproc_report_crash()) before completing ->done, and with
 * recovery enabled the whole recovery runs inside it.
 */
static void rf_settle(struct rf_remote *r)
{
	flush_work(&r->rproc->crash_handler);
}

static char *rf_upstream(struct kunit *test, struct rf_remote *r, const char *file)
{
	return st_fmt(test, RF_UPSTREAM "/%s/%s", dev_name(&r->rproc->dev), file);
}

static bool rf_upstream_has(struct kunit *test, struct rf_remote *r, const char *file)
{
	return st_debugfs_has(st_fmt(test, "remoteproc/%s/%s",
				     dev_name(&r->rproc->dev), file));
}

/* A run's text in one trace, and what of it a reader can see. */
struct rf_text {
	char *all;		/* every line the firmware wrote */
	const char *kept;	/* the lines left whole, oldest first */
	bool wrapped;		/* the writer went round */
	unsigned int lost;	/* lines before the first kept one */
};

/*
 * What the firmware of @r wrote in trace @t (@len bytes) during run @run,
 * and the lines of it still whole in the buffer: for a circular buffer
 * that went round, those after the line the writer cut (a line starting
 * right where the window starts is whole, except for STM32Cube's, whose
 * NUL hides whether it is).
 */
static struct rf_text rf_text(struct kunit *test, struct rf_remote *r,
			      unsigned int t, unsigned int run, u32 len)
{
	const struct rf_run *rn = &r->run[min(run, RF_MAX_RUNS) - 1];
	enum rf_fmt fmt = r->fmt[t];
	size_t cap, n, total = 0, size = (size_t)rn->lines * RF_LINE_MAX + 1;
	struct rf_text x = {};
	const char *p;
	unsigned int i;

	x.all = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x.all);
	for (i = 0; i < rn->lines; i++) {
		n = rf_line(x.all + total, size - total, r->tag, fmt, run, t, i);
		if (fmt == RF_PLAIN && total + n > len - 1) {
			x.all[total] = '\0';
			break;
		}
		total += n;
	}
	x.kept = x.all;
	cap = fmt == RF_LIBMETAL ? len : fmt == RF_STM32CUBE ? len - 2 : len - 1;
	if (fmt == RF_PLAIN || total <= (fmt == RF_STM32CUBE ? len - 1 : cap))
		return x;
	x.wrapped = true;
	/* STM32Cube's NUL on the last byte: no mark of where it writes */
	KUNIT_ASSERT_TRUE(test, fmt != RF_STM32CUBE || total % (len - 1));
	p = x.all + total - cap;
	if (fmt == RF_STM32CUBE || p[-1] != '\n')
		p = strchr(p, '\n') + 1;
	x.kept = p;
	for (p = x.all; p < x.kept; p++)
		x.lost += *p == '\n';
	return x;
}

/* Upstream's traceN shows run @run of the firmware, as it reads (to a NUL). */
static void rf_expect_upstream_run(struct kunit *test, struct rf_remote *r,
				   unsigned int t, unsigned int run, u32 len)
{
	char *file = rf_upstream(test, r, st_fmt(test, "trace%u", t));
	struct rf_text x = rf_text(test, r, t, run, len);

	KUNIT_ASSERT_FALSE_MSG(test, x.wrapped, "a test of upstream's view wraps");
	KUNIT_EXPECT_STREQ_MSG(test, st_slurp(test, file), x.kept, "%s", file);
}

/* ---- images ---- */

/* Installs @len bytes as /lib/firmware/@name, closed before it returns. */
static void rf_install(struct kunit *test, const char *name, const void *img,
		       size_t len)
{
	const char *path = st_fmt(test, RF_FW_DIR "%s", name);
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	scoped_with_init_fs()
		f = filp_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%s: %pe", path, f);
	n = kernel_write(f, img, len, &pos);
	fput(f);
	/* request_firmware() refuses a file still open for writing */
	flush_delayed_fput();
	KUNIT_ASSERT_EQ_MSG(test, n, (ssize_t)len, "%s", path);
}

/* The resource table of the built images. */
struct rf_table {
	u32 ver;
	u32 num;
	u32 reserved[2];
	u32 offset[RF_MAX_TRACES];
	struct {
		u32 type;
		struct fw_rsc_trace t;
	} __packed trace[RF_MAX_TRACES];
} __packed;

/* A trace of a built image: its da (0: filled in at run time) and length. */
struct rf_trace_cfg {
	u32 da;
	u32 len;
};

/*
 * The built image: ELF32 header, one program header, the segment's file
 * part (the table) at RF_IMG_SEG, section names, then the sections NULL,
 * .resource_table, .shstrtab. The segment is RF_SEG_MEMSZ in memory: the
 * trace buffers are in its .bss, which the loader zeroes.
 */
#define RF_IMG_SEG	0x100
#define RF_IMG_STR	0x200
#define RF_IMG_SH	0x240
#define RF_IMG_SIZE	(RF_IMG_SH + 3 * sizeof(struct elf32_shdr))

static const char rf_strtab[] = "\0.resource_table\0.shstrtab";

static void rf_build(struct kunit *test, const char *name,
		     const struct rf_trace_cfg *tc, unsigned int ntraces)
{
	u8 *img = kunit_kzalloc(test, RF_IMG_SIZE, GFP_KERNEL);
	struct elf32_hdr *eh = (void *)img;
	struct elf32_phdr *ph = (void *)(img + sizeof(*eh));
	struct elf32_shdr *sh = (void *)(img + RF_IMG_SH);
	struct rf_table *t = (void *)(img + RF_IMG_SEG);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, img);
	KUNIT_ASSERT_LE(test, ntraces, RF_MAX_TRACES);
	st_elf32_hdr_init(eh, RF_IMG_SH, 3);
	eh->e_entry = RF_SEG_DA;
	ph->p_type = PT_LOAD;
	ph->p_offset = RF_IMG_SEG;
	ph->p_vaddr = RF_SEG_DA;
	ph->p_paddr = RF_SEG_DA;
	ph->p_filesz = sizeof(*t);
	ph->p_memsz = RF_SEG_MEMSZ;
	ph->p_flags = PF_R | PF_W;

	t->ver = 1;
	t->num = ntraces;
	for (i = 0; i < ntraces; i++) {
		t->offset[i] = offsetof(struct rf_table, trace[i]);
		t->trace[i].type = RSC_TRACE;
		t->trace[i].t.da = tc[i].da;
		t->trace[i].t.len = tc[i].len;
		snprintf(t->trace[i].t.name, sizeof(t->trace[i].t.name), "log%u", i);
	}
	memcpy(img + RF_IMG_STR, rf_strtab, sizeof(rf_strtab));
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_flags = SHF_ALLOC | SHF_WRITE;
	sh[1].sh_addr = RF_SEG_DA;
	sh[1].sh_offset = RF_IMG_SEG;
	sh[1].sh_size = sizeof(*t);
	sh[2].sh_name = 17;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = RF_IMG_STR;
	sh[2].sh_size = sizeof(rf_strtab);
	rf_install(test, name, img, RF_IMG_SIZE);
}

/* A built image of one trace of @len bytes at the first trace da. */
static const char *rf_build1(struct kunit *test, const char *name, u32 len)
{
	const struct rf_trace_cfg tc = { RF_TRACE_DA(0), len };

	rf_build(test, name, &tc, 1);
	return name;
}

/* ---- a remote's life ---- */

/* Boots @r (rproc_boot()) and waits for its first run to write its lines. */
static void rf_boot(struct kunit *test, struct rf_remote *r)
{
	unsigned int starts = r->starts;

	KUNIT_ASSERT_EQ(test, rproc_boot(r->rproc), 0);
	KUNIT_ASSERT_EQ(test, r->starts, starts + 1);
	/* not its state: the firmware may have crashed already */
	rf_wait(test, &r->started, "start", r);
	rf_wait(test, &r->done, "end of run", r);
}

/*
 * Waits for a crash reported by the firmware at the end of its run to be
 * recovered: ops->stop, ops->start, the new run's lines, and upstream's
 * core done with it.
 */
static void rf_wait_recovered(struct kunit *test, struct rf_remote *r)
{
	rf_wait(test, &r->stopped, "stop (recovery)", r);
	rf_wait(test, &r->started, "start (recovery)", r);
	rf_wait(test, &r->done, "end of the new run", r);
	rf_settle(r);
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_RUNNING);
}

/* Waits for a crash reported with recovery disabled to be handled. */
static void rf_wait_crashed(struct kunit *test, struct rf_remote *r)
{
	rf_settle(r);
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_CRASHED);
}

static void rf_set_recovery(struct kunit *test, struct rf_remote *r, const char *how)
{
	const char *file = rf_upstream(test, r, "recovery");

	KUNIT_ASSERT_EQ_MSG(test, st_write_file(test, file, how, 0), (ssize_t)strlen(how),
			    "%s < %s", file, how);
}

/* ---- snaptrace's side ---- */

static char *rf_st(struct kunit *test, struct rf_remote *r, const char *file)
{
	return st_fmt(test, RF_ST "/%s/%s", r->st_name, file);
}

/* Whether snaptrace's directory of @r (@file "") or a file of it exists. */
static bool rf_st_has(struct kunit *test, struct rf_remote *r, const char *file)
{
	return st_debugfs_has(st_fmt(test, SNAPTRACE_DEBUGFS_NAME "/remoteproc/%s%s%s",
				     r->st_name, *file ? "/" : "", file));
}

/*
 * What snaptrace's decoder shows of run @run in trace @t (@len bytes),
 * exactly (src/trace_decode.c): the lines left whole, oldest first, after
 * a first line saying what wrapping lost when the writer went round.
 */
static char *rf_decoded(struct kunit *test, struct rf_remote *r, unsigned int t,
			unsigned int run, u32 len)
{
	struct rf_text x = rf_text(test, r, t, run, len);
	size_t size = strlen(x.kept) + 64;
	char *out;

	if (!x.wrapped)
		return (char *)x.kept;
	out = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	if (r->fmt[t] == RF_LIBMETAL)
		scnprintf(out, size, "[snaptrace: wrapped, %u line%s lost]\n%s", x.lost,
			  x.lost == 1 ? "" : "s", x.kept);
	else
		scnprintf(out, size, "[snaptrace: wrapped, lines lost unknown]\n%s", x.kept);
	return out;
}

static void rf_expect_st(struct kunit *test, struct rf_remote *r, const char *file,
			 const char *want)
{
	KUNIT_EXPECT_STREQ_MSG(test, st_slurp(test, rf_st(test, r, file)), want,
			       "%s", rf_st(test, r, file));
}

/* snaptrace's trace@t_last holds run @run, as the crash left it. */
static void rf_expect_last(struct kunit *test, struct rf_remote *r, unsigned int t,
			   unsigned int run, u32 len)
{
	rf_expect_st(test, r, st_fmt(test, "trace%u_last", t), rf_decoded(test, r, t, run, len));
}

/* snaptrace's live trace@t shows run @run. */
static void rf_expect_live(struct kunit *test, struct rf_remote *r, unsigned int t,
			   unsigned int run, u32 len)
{
	rf_expect_st(test, r, st_fmt(test, "trace%u", t), rf_decoded(test, r, t, run, len));
}

/*
 * snaptrace's crashes file, byte for byte; the capture's time between
 * @t_lo (taken before the crash) and now.
 */
static void rf_expect_crashes(struct kunit *test, struct rf_remote *r, unsigned int n,
			      const char *after, unsigned int traces, u64 bytes, u64 t_lo)
{
	char *text = st_slurp(test, rf_st(test, r, "crashes"));
	const char *p = strstr(text, "\nlast_time_ns: ");
	u64 t_hi = ktime_get_boottime_ns();
	unsigned long long ts = 0;

	if (p && sscanf(p + strlen("\nlast_time_ns: "), "%llu", &ts) != 1)
		ts = 0;
	KUNIT_EXPECT_STREQ(test, text,
			   st_fmt(test, "crashes: %u\nlast_time_ns: %llu\nlast_after: %s\n"
				  "last_traces: %u\nlast_bytes: %llu\n",
				  n, ts, after, traces, bytes));
	if (!n) {
		KUNIT_EXPECT_EQ(test, ts, 0);
		return;
	}
	KUNIT_EXPECT_GE(test, ts, t_lo);
	KUNIT_EXPECT_LE(test, ts, t_hi);
}

static void rf_follow_again(void *unused)
{
	/* -EBUSY: the test left it following, as it should */
	snaptrace_follow_start("all");
}

/* Lets the test stop following; follows all again when it ends. */
static void rf_follow_restored(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rf_follow_again, NULL), 0);
}

/* ---- the suite ---- */

static int rf_init(struct kunit *test)
{
	st_skip_unless_debugfs_mounted(test);
	return 0;
}

/*
 * Boot: upstream loads the image, the firmware writes its lines; upstream's
 * trace0 and snaptrace's show them, nothing was captured yet; after a
 * shutdown upstream has no trace file and snaptrace's live one is empty.
 */
static void rf_boot_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-boot", rf_build1(test, "snaptrace-rf-boot.elf",
							      0x400), false);

	r->run[0] = (struct rf_run){ .lines = 5 };
	rf_boot(test, r);
	KUNIT_EXPECT_FALSE(test, r->not_hardirq);
	rf_expect_upstream_run(test, r, 0, 1, 0x400);
	rf_expect_live(test, r, 0, 1, 0x400);
	rf_expect_st(test, r, "trace0_last", "");
	rf_expect_crashes(test, r, 0, "none", 0, 0, 0);
	rf_expect_st(test, r, "trace_format", "[auto] plain zephyr libmetal stm32cube\n");

	KUNIT_EXPECT_EQ(test, rproc_shutdown(r->rproc), 0);
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	KUNIT_EXPECT_FALSE(test, rf_upstream_has(test, r, "trace0"));
	rf_expect_st(test, r, "trace0", "");
	rf_expect_st(test, r, "trace0_last", "");
	rf_expect_crashes(test, r, 0, "none", 0, 0, 0);
}

/*
 * The .resource_table section of an ELF image (32 or 64 bits) that
 * upstream's sanity check accepted: its offset and size in the file.
 */
static bool rf_find_table(const u8 *d, size_t size, u64 *off, u64 *sz)
{
	bool is64 = d[EI_CLASS] == ELFCLASS64;
	const struct elf64_hdr *e64 = (const void *)d;
	const struct elf32_hdr *e32 = (const void *)d;
	u64 shoff = is64 ? e64->e_shoff : e32->e_shoff;
	u16 shnum = is64 ? e64->e_shnum : e32->e_shnum;
	u16 stri = is64 ? e64->e_shstrndx : e32->e_shstrndx;
	size_t shsz = is64 ? sizeof(struct elf64_shdr) : sizeof(struct elf32_shdr);
	u64 stroff, o, z;
	u32 name;
	u16 i;

	if (stri >= shnum || shoff > size || (u64)shnum * shsz > size - shoff)
		return false;
	if (is64) {
		const struct elf64_shdr *sh = (const void *)(d + shoff);

		stroff = sh[stri].sh_offset;
	} else {
		const struct elf32_shdr *sh = (const void *)(d + shoff);

		stroff = sh[stri].sh_offset;
	}
	for (i = 0; i < shnum; i++) {
		if (is64) {
			const struct elf64_shdr *sh = (const void *)(d + shoff);

			name = sh[i].sh_name;
			o = sh[i].sh_offset;
			z = sh[i].sh_size;
		} else {
			const struct elf32_shdr *sh = (const void *)(d + shoff);

			name = sh[i].sh_name;
			o = sh[i].sh_offset;
			z = sh[i].sh_size;
		}
		if (stroff > size || name >= size - stroff ||
		    strncmp(d + stroff + name, ".resource_table", size - stroff - name))
			continue;
		if (o > size || z > size - o)
			return false;
		*off = o;
		*sz = z;
		return true;
	}
	return false;
}

/*
 * Installs a copy of image @fw_name as @name, its resource table without
 * its RSC_DEVMEM entries (upstream refuses a devmem on a remote with no
 * IOMMU domain, as x86 platform devices are).
 */
static void rf_install_without_devmem(struct kunit *test, struct device *dev,
				      const char *fw_name, const char *name)
{
	const struct firmware *fw;
	struct resource_table *t;
	u64 off, sz;
	u32 i, n = 0;
	size_t len;
	u8 *img;

	KUNIT_ASSERT_EQ_MSG(test, firmware_request_nowarn(&fw, fw_name, dev), 0,
			    "no /lib/firmware/%s (scripts/firmware.sh builds it)", fw_name);
	img = kunit_kmalloc(test, fw->size, GFP_KERNEL);
	if (img)
		memcpy(img, fw->data, fw->size);
	len = fw->size;
	release_firmware(fw);
	KUNIT_ASSERT_NOT_NULL(test, img);
	KUNIT_ASSERT_TRUE(test, rf_find_table(img, len, &off, &sz));
	KUNIT_ASSERT_GE(test, sz, sizeof(*t));
	t = (void *)(img + off);
	KUNIT_ASSERT_LE(test, sizeof(*t) + (u64)t->num * 4, sz);
	for (i = 0; i < t->num; i++) {
		u32 o = t->offset[i];

		KUNIT_ASSERT_LE(test, (u64)o + sizeof(struct fw_rsc_hdr), sz);
		if (((struct fw_rsc_hdr *)((u8 *)t + o))->type != RSC_DEVMEM)
			t->offset[n++] = o;
	}
	KUNIT_ASSERT_LT(test, n, t->num);
	t->num = n;
	rf_install(test, name, img, len);
}

/* Images upstream's core boots here: the project's, and the fixtures. */
struct rf_image {
	const char *fw;
	const char *desc;
	bool no_devmem;		/* boot a copy without its devmem entries */
	int boot;		/* what rproc_boot() returns */
	unsigned int ntraces;
	u32 len[RF_MAX_TRACES];
	enum rf_fmt fmt;
};

static const struct rf_image rf_images[] = {
	/* rproc_handle_devmem(): -EINVAL without an IOMMU domain */
	{ "snaptrace/example32.elf", "example32", false, -EINVAL },
	{ "snaptrace/example64.elf", "example64", false, -EINVAL },
	{ "snaptrace/example32.elf", "example32-no-devmem", true, 0, 2,
	  { 0x800, 0x400 }, RF_PLAIN },
	{ "snaptrace/example64.elf", "example64-no-devmem", true, 0, 2,
	  { 0x800, 0x400 }, RF_STM32CUBE },
	{ RF_FIXTURES "stm32mp157c-dk2_zephyr-hello.elf", "stm32mp157-zephyr", false, 0,
	  1, { 0x401 }, RF_ZEPHYR },
	/* no resource table: boots with nothing to trace */
	{ RF_FIXTURES "kv260_r5_zephyr-hello.elf", "kv260-zephyr", false, 0 },
};

static void rf_image_desc(const struct rf_image *img, char *desc)
{
	strscpy(desc, img->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rf_image, rf_images, rf_image_desc);

/*
 * The project's example images and the fixture images: upstream's core
 * parses, loads and boots them (or refuses them, as it does on a remote
 * without an IOMMU), the firmware writes each declared trace, wrapping the
 * circular ones, it crashes from its timer, and recovery starts a new run:
 * upstream's traces show the new run, snaptrace's traceN_last the old.
 */
static void rf_image_test(struct kunit *test)
{
	const struct rf_image *img = test->param_value;
	const char *fw_name = img->fw;
	const struct firmware *fw;
	struct rf_remote *r;
	unsigned int t;
	u64 t0, bytes = 0;

	r = rf_new(test, "rf-image", img->fw, false);
	if (firmware_request_nowarn(&fw, img->fw, &r->pdev->dev)) {
		if (str_has_prefix(img->fw, RF_FIXTURES))
			kunit_skip(test, "fixtures not present: no /lib/firmware/%s", img->fw);
		KUNIT_FAIL(test, "no /lib/firmware/%s (scripts/firmware.sh builds it)", img->fw);
		return;
	}
	release_firmware(fw);
	if (img->no_devmem) {
		fw_name = st_fmt(test, "snaptrace-rf-%s.elf", img->desc);
		rf_install_without_devmem(test, &r->pdev->dev, img->fw, fw_name);
		KUNIT_ASSERT_EQ(test, rproc_set_firmware(r->rproc, fw_name), 0);
	}
	for (t = 0; t < RF_MAX_TRACES; t++)
		r->fmt[t] = img->fmt;
	r->run[0] = (struct rf_run){ .lines = 40, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 3 };
	if (img->boot) {
		KUNIT_EXPECT_EQ(test, rproc_boot(r->rproc), img->boot);
		KUNIT_EXPECT_EQ(test, r->starts, 0);
		KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_OFFLINE);
		KUNIT_EXPECT_FALSE(test, rf_upstream_has(test, r, "trace0"));
		KUNIT_EXPECT_EQ(test, r->nr_regions, 0);
		KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, "trace0"));
		rf_expect_crashes(test, r, 0, "none", 0, 0, 0);
		return;
	}
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 1);
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	for (t = 0; t < img->ntraces; t++) {
		rf_expect_upstream_run(test, r, t, 2, img->len[t]);
		rf_expect_live(test, r, t, 2, img->len[t]);
		rf_expect_last(test, r, t, 1, img->len[t]);
		bytes += img->len[t];
	}
	rf_expect_crashes(test, r, 1, "recovery", img->ntraces, bytes, t0);
	KUNIT_EXPECT_FALSE(test, rf_upstream_has(test, r,
						 st_fmt(test, "trace%u", img->ntraces)));
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, st_fmt(test, "trace%u", img->ntraces)));
}

/* A crash case: the convention, and lines enough to wrap or not. */
struct rf_crash_case {
	enum rf_fmt fmt;
	unsigned int lines;
	const char *desc;
};

static const struct rf_crash_case rf_crash_cases[] = {
	{ RF_PLAIN, 12, "plain" },
	{ RF_PLAIN, 40, "plain-full" },
	{ RF_ZEPHYR, 12, "zephyr" },
	{ RF_ZEPHYR, 40, "zephyr-wrapped" },
	{ RF_LIBMETAL, 12, "libmetal" },
	{ RF_LIBMETAL, 40, "libmetal-wrapped" },
	{ RF_STM32CUBE, 12, "stm32cube" },
	{ RF_STM32CUBE, 40, "stm32cube-wrapped" },
};

static void rf_crash_case_desc(const struct rf_crash_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rf_crash, rf_crash_cases, rf_crash_case_desc);

/*
 * A crash reported from the firmware's timer (hard irq), recovery
 * enabled: upstream stops, reloads (zeroing the trace) and restarts the
 * remote; its trace0 shows the new run, snaptrace's trace0_last the
 * crash-time log, decoded, oldest line first.
 */
static void rf_crash_recovery_test(struct kunit *test)
{
	const struct rf_crash_case *c = test->param_value;
	struct rf_remote *r;
	u64 t0;

	r = rf_new(test, st_fmt(test, "rf-crash-%s", c->desc),
		   rf_build1(test, st_fmt(test, "snaptrace-rf-crash-%s.elf", c->desc), 0x400),
		   false);
	r->fmt[0] = c->fmt;
	r->run[0] = (struct rf_run){ .lines = c->lines, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 4 };
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	KUNIT_EXPECT_FALSE(test, r->not_hardirq);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 1);
	KUNIT_EXPECT_EQ(test, r->starts, 2);
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	rf_expect_upstream_run(test, r, 0, 2, 0x400);
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
}

/*
 * Recovery disabled: the remote stays CRASHED, not stopped, its trace as
 * the crash left it, and nothing is captured yet; then "recover" through
 * upstream's debugfs captures it and starts a new run.
 */
static void rf_crash_no_recovery_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-norecovery",
				     rf_build1(test, "snaptrace-rf-norecovery.elf", 0x400),
				     true);
	u64 t0;

	r->fmt[0] = RF_ZEPHYR;
	r->run[0] = (struct rf_run){ .lines = 30, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 2 };
	rf_boot(test, r);
	rf_wait_crashed(test, r);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 1);
	KUNIT_EXPECT_EQ(test, r->stops, 0);
	rf_expect_st(test, r, "trace0_last", "");
	rf_expect_crashes(test, r, 0, "none", 0, 0, 0);
	/* not running: no live trace */
	rf_expect_st(test, r, "trace0", "");

	t0 = ktime_get_boottime_ns();
	rf_set_recovery(test, r, "recover");
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	KUNIT_EXPECT_EQ(test, r->starts, 2);
	rf_wait(test, &r->stopped, "stop (recover)", r);
	rf_wait(test, &r->started, "start (recover)", r);
	rf_wait(test, &r->done, "end of the new run", r);
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_RUNNING);
	rf_expect_upstream_run(test, r, 0, 2, 0x400);
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
}

/*
 * Stop while crashed: a shutdown of a CRASHED remote (recovery disabled)
 * captures its trace and removes upstream's trace files; trace0_last is
 * kept across the stop and the next boot, which upstream's trace0 shows.
 */
static void rf_stop_crashed_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-stopcrashed",
				     rf_build1(test, "snaptrace-rf-stopcrashed.elf", 0x400),
				     true);
	u64 t0;

	r->fmt[0] = RF_LIBMETAL;
	r->run[0] = (struct rf_run){ .lines = 35, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 3 };
	rf_boot(test, r);
	rf_wait_crashed(test, r);
	t0 = ktime_get_boottime_ns();
	KUNIT_EXPECT_EQ(test, rproc_shutdown(r->rproc), 0);
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_OFFLINE);
	KUNIT_EXPECT_FALSE(test, rf_upstream_has(test, r, "trace0"));
	rf_wait(test, &r->stopped, "stop", r);
	rf_expect_st(test, r, "trace0", "");
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "shutdown", 1, 0x400, t0);

	rf_boot(test, r);
	rf_expect_upstream_run(test, r, 0, 2, 0x400);
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "shutdown", 1, 0x400, t0);
}

/*
 * A trace whose da the firmware fills in at run time (da 0 in the image):
 * upstream took the da when it handled the table, so its trace0 never
 * finds the buffer; snaptrace reads the loaded table at capture (and read)
 * time, and finds it.
 */
static void rf_runtime_da_test(struct kunit *test)
{
	const struct rf_trace_cfg tc = { 0, 0x400 };
	struct rf_remote *r;
	struct fw_rsc_trace *tr;
	u64 t0;

	rf_build(test, "snaptrace-rf-runtime-da.elf", &tc, 1);
	r = rf_new(test, "rf-runtime-da", "snaptrace-rf-runtime-da.elf", false);
	r->fill_da[0] = RF_TRACE_DA(0);
	r->fmt[0] = RF_PLAIN;
	r->run[0] = (struct rf_run){ .lines = 6, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 2 };
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	tr = rf_fw_trace(r, 0);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	KUNIT_EXPECT_EQ(test, tr->da, RF_TRACE_DA(0));
	/* rproc_handle_trace() never names its rproc_mem_entry: "" */
	KUNIT_EXPECT_STREQ(test, st_slurp(test, rf_upstream(test, r, "trace0")),
			   "Trace  not available\n");
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
}

/*
 * A trace never mapped (da 0, never filled in) beside one that is, in
 * memory da_to_va says is I/O: upstream cannot show the first; snaptrace
 * captures the other (memcpy_fromio()), counts one trace, and keeps an
 * empty trace1_last.
 */
static void rf_unmapped_trace_test(struct kunit *test)
{
	const struct rf_trace_cfg tc[] = { { RF_TRACE_DA(0), 0x400 }, { 0, 0x100 } };
	struct rf_remote *r;
	u64 t0;

	rf_build(test, "snaptrace-rf-unmapped.elf", tc, 2);
	r = rf_new(test, "rf-unmapped", "snaptrace-rf-unmapped.elf", false);
	r->iomem = true;
	r->fmt[0] = RF_LIBMETAL;
	r->run[0] = (struct rf_run){ .lines = 33, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 2 };
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	rf_expect_upstream_run(test, r, 0, 2, 0x400);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, rf_upstream(test, r, "trace1")),
			   "Trace  not available\n");
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_last(test, r, 0, 1, 0x400);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, r, "trace1"));
	rf_expect_st(test, r, "trace1_last", "");
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
}

/*
 * A table that changes between boots: image A (one plain trace), crashed
 * and shut down; rproc_set_firmware() to image B (two traces elsewhere,
 * other lengths and conventions), which boots, crashes and recovers:
 * the capture follows B's table, and A's trace0_last is kept until then.
 */
static void rf_table_change_test(struct kunit *test)
{
	const struct rf_trace_cfg b[] = {
		{ RF_TRACE_DA(1), 0x200 }, { RF_TRACE_DA(0) + 0x800, 0x300 },
	};
	struct rf_remote *r;
	u64 t0;

	rf_build(test, "snaptrace-rf-change-b.elf", b, 2);
	r = rf_new(test, "rf-change", rf_build1(test, "snaptrace-rf-change-a.elf", 0x400),
		   true);
	r->fmt[0] = RF_PLAIN;
	r->run[0] = (struct rf_run){ .lines = 4, .crash = true };
	rf_boot(test, r);
	rf_wait_crashed(test, r);
	t0 = ktime_get_boottime_ns();
	KUNIT_EXPECT_EQ(test, rproc_shutdown(r->rproc), 0);
	rf_wait(test, &r->stopped, "stop", r);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "shutdown", 1, 0x400, t0);
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, "trace1"));

	KUNIT_ASSERT_EQ(test, rproc_set_firmware(r->rproc, "snaptrace-rf-change-b.elf"), 0);
	r->fmt[0] = RF_ZEPHYR;
	r->fmt[1] = RF_LIBMETAL;
	r->run[1] = (struct rf_run){ .lines = 20, .crash = true };
	r->run[2] = (struct rf_run){ .lines = 3 };
	rf_set_recovery(test, r, "enabled");
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	rf_expect_upstream_run(test, r, 0, 3, 0x200);
	rf_expect_upstream_run(test, r, 1, 3, 0x300);
	rf_expect_live(test, r, 0, 3, 0x200);
	rf_expect_live(test, r, 1, 3, 0x300);
	rf_expect_last(test, r, 0, 2, 0x200);
	rf_expect_last(test, r, 1, 2, 0x300);
	rf_expect_crashes(test, r, 2, "recovery", 2, 0x500, t0);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 2);
}

/* Reports a crash of each of @n remotes, from one interrupt. */
struct rf_crasher {
	struct hrtimer timer;
	struct rf_remote *r[2];
	unsigned int n;
	bool not_hardirq;
	struct completion done;
};

static enum hrtimer_restart rf_crash_tick(struct hrtimer *timer)
{
	struct rf_crasher *k = container_of(timer, struct rf_crasher, timer);
	unsigned int i;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT) && !in_hardirq())
		k->not_hardirq = true;
	for (i = 0; i < k->n; i++)
		rproc_report_crash(k->r[i]->rproc, RPROC_FATAL_ERROR);
	complete(&k->done);
	return HRTIMER_NORESTART;
}

static void rf_crash_now(struct kunit *test, struct rf_remote **r, unsigned int n)
{
	struct rf_crasher *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, k);
	for (i = 0; i < n; i++)
		k->r[i] = r[i];
	k->n = n;
	init_completion(&k->done);
	hrtimer_setup(&k->timer, rf_crash_tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	hrtimer_start(&k->timer, ns_to_ktime(RF_PERIOD_NS), HRTIMER_MODE_REL);
	if (!wait_for_completion_timeout(&k->done, msecs_to_jiffies(RF_GUARD_MS))) {
		hrtimer_cancel(&k->timer);
		KUNIT_FAIL_AND_ABORT(test, "the crash timer never fired");
	}
	hrtimer_cancel(&k->timer);
	KUNIT_EXPECT_FALSE(test, k->not_hardirq);
}

/*
 * snaptrace letting go while remotes run (snaptrace_follow_stop(), what
 * rmmod does) and following them again (snaptrace_follow_start(), what
 * insmod does): the remote runs on and recovers unfollowed; followed
 * again, it starts from nothing captured, and the next crash is captured.
 */
static void rf_follow_stop_start_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-letgo",
				     rf_build1(test, "snaptrace-rf-letgo.elf", 0x400), false);
	u64 t0;

	r->fmt[0] = RF_LIBMETAL;
	r->run[0] = (struct rf_run){ .lines = 4 };
	r->run[1] = (struct rf_run){ .lines = 3 };
	r->run[2] = (struct rf_run){ .lines = 2 };
	rf_boot(test, r);
	rf_expect_live(test, r, 0, 1, 0x400);
	rf_follow_restored(test);

	snaptrace_follow_stop();
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, ""));
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_RUNNING);
	rf_expect_upstream_run(test, r, 0, 1, 0x400);
	rf_crash_now(test, &r, 1);
	rf_wait_recovered(test, r);
	rf_expect_upstream_run(test, r, 0, 2, 0x400);
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, ""));

	KUNIT_ASSERT_EQ(test, snaptrace_follow_start("all"), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_follow_start("all"), -EBUSY);
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_st(test, r, "trace0_last", "");
	rf_expect_crashes(test, r, 0, "none", 0, 0, 0);

	t0 = ktime_get_boottime_ns();
	rf_crash_now(test, &r, 1);
	rf_wait_recovered(test, r);
	rf_expect_upstream_run(test, r, 0, 3, 0x400);
	rf_expect_live(test, r, 0, 3, 0x400);
	rf_expect_last(test, r, 0, 2, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 2);
}

/*
 * The driver unbound (rproc_del()) while followed: a running remote that
 * crashed and recovered, and a CRASHED one (recovery disabled), whose
 * shutdown is a capture; snaptrace lets both go, and a trace0_last opened
 * before reads as a removed debugfs file does.
 */
static void rf_unbind_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-unbind",
				     rf_build1(test, "snaptrace-rf-unbind.elf", 0x400), false);
	struct rf_remote *c = rf_new(test, "rf-unbind-crashed",
				     rf_build1(test, "snaptrace-rf-unbind-c.elf", 0x400), true);
	const char *rdir, *updir, *cdir;
	unsigned long ubuf;
	struct file *f;
	loff_t pos = 0;
	u64 t0;

	r->run[0] = (struct rf_run){ .lines = 3, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 3 };
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
	c->run[0] = (struct rf_run){ .lines = 3, .crash = true };
	rf_boot(test, c);
	rf_wait_crashed(test, c);

	ubuf = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ubuf, 0);
	scoped_with_init_fs()
		f = filp_open(rf_st(test, r, "trace0_last"), O_RDONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%pe", f);

	/* r and c are freed with their rprocs: their paths first */
	rdir = st_fmt(test, SNAPTRACE_DEBUGFS_NAME "/remoteproc/%s", r->st_name);
	updir = st_fmt(test, "remoteproc/%s", dev_name(&r->rproc->dev));
	cdir = st_fmt(test, SNAPTRACE_DEBUGFS_NAME "/remoteproc/%s", c->st_name);
	rf_unbind(test, r);
	KUNIT_EXPECT_FALSE(test, st_debugfs_has(rdir));
	KUNIT_EXPECT_FALSE(test, st_debugfs_has(updir));
	KUNIT_EXPECT_EQ(test, f->f_op->read(f, (char __user *)ubuf, PAGE_SIZE, &pos), -EIO);
	fput(f);

	rf_unbind(test, c);
	KUNIT_EXPECT_FALSE(test, st_debugfs_has(cdir));
}

/*
 * Two remotes of the same name crashing at once (reported from the same
 * interrupt): the second is followed as name@remoteprocN; both recover,
 * each trace0_last holding its own crash-time log.
 */
static void rf_two_crash_test(struct kunit *test)
{
	struct rf_remote *r[2];
	unsigned int i;
	u64 t0;

	for (i = 0; i < 2; i++) {
		r[i] = rf_new(test, "rf-twin",
			      rf_build1(test, st_fmt(test, "snaptrace-rf-twin%u.elf", i),
					0x300 + 0x100 * i), false);
		r[i]->tag = i ? "rf-twin-b" : "rf-twin-a";
		r[i]->fmt[0] = i ? RF_STM32CUBE : RF_ZEPHYR;
		r[i]->run[0] = (struct rf_run){ .lines = 25 + i };
		r[i]->run[1] = (struct rf_run){ .lines = 2 + i };
		rf_boot(test, r[i]);
	}
	r[1]->st_name = st_fmt(test, "rf-twin@%s", dev_name(&r[1]->rproc->dev));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, r[0], "crashes"));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, r[1], "crashes"));
	t0 = ktime_get_boottime_ns();
	rf_crash_now(test, r, 2);
	for (i = 0; i < 2; i++) {
		u32 len = 0x300 + 0x100 * i;

		rf_wait_recovered(test, r[i]);
		KUNIT_EXPECT_EQ(test, r[i]->rproc->crash_cnt, 1);
		rf_expect_upstream_run(test, r[i], 0, 2, len);
		rf_expect_live(test, r[i], 0, 2, len);
		rf_expect_last(test, r[i], 0, 1, len);
		rf_expect_crashes(test, r[i], 1, "recovery", 1, len, t0);
	}
}

/*
 * follow=: only the remotes named (by rproc->name or remoteprocN) are
 * followed; "none" follows none; "all" all.
 */
static void rf_follow_param_test(struct kunit *test)
{
	struct rf_remote *a = rf_new(test, "rf-param-a",
				     rf_build1(test, "snaptrace-rf-param.elf", 0x400), false);
	struct rf_remote *b = rf_new(test, "rf-param-b", "snaptrace-rf-param.elf", false);
	const char *bdev = dev_name(&b->rproc->dev);

	rf_follow_restored(test);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start("rf-param-a"), 0);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, b, ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start(bdev), 0);
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start(st_fmt(test, "rf-param-a,%s", bdev)), 0);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start("none"), 0);
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, b, ""));
	/* a remote registered later, not named: not followed either */
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, rf_new(test, "rf-param-c",
							"snaptrace-rf-param.elf", false), ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start("all"), 0);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));
}

/*
 * trace_format: auto-detection of a wrapped Zephyr console; forcing plain
 * reads it as upstream does (up to the first NUL); a bad name is -EINVAL
 * and changes nothing; auto again.
 */
static void rf_trace_format_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-format",
				     rf_build1(test, "snaptrace-rf-format.elf", 0x200), false);
	const char *file = rf_st(test, r, "trace_format");
	char *upstream, *plain;

	r->fmt[0] = RF_ZEPHYR;
	r->run[0] = (struct rf_run){ .lines = 20 };
	rf_boot(test, r);
	rf_expect_st(test, r, "trace_format", "[auto] plain zephyr libmetal stm32cube\n");
	rf_expect_live(test, r, 0, 1, 0x200);

	KUNIT_EXPECT_EQ(test, st_write_file(test, file, "plain\n", 0), 6);
	rf_expect_st(test, r, "trace_format", "auto [plain] zephyr libmetal stm32cube\n");
	upstream = st_slurp(test, rf_upstream(test, r, "trace0"));
	KUNIT_ASSERT_EQ(test, strlen(upstream), 0x200 - 1);
	/* show() ends the text with a newline */
	plain = kunit_kzalloc(test, strlen(upstream) + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plain);
	scnprintf(plain, strlen(upstream) + 2, "%s%s", upstream,
		  upstream[strlen(upstream) - 1] == '\n' ? "" : "\n");
	rf_expect_st(test, r, "trace0", plain);

	KUNIT_EXPECT_EQ(test, st_write_file(test, file, "zephyr2\n", 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, st_write_file(test, file, "", 0), -EINVAL);
	rf_expect_st(test, r, "trace_format", "auto [plain] zephyr libmetal stm32cube\n");
	rf_expect_st(test, r, "trace0", plain);

	KUNIT_EXPECT_EQ(test, st_write_file(test, file, "zephyr", 0), 6);
	rf_expect_st(test, r, "trace_format", "auto plain [zephyr] libmetal stm32cube\n");
	rf_expect_live(test, r, 0, 1, 0x200);
	KUNIT_EXPECT_EQ(test, st_write_file(test, file, "auto\n", 0), 5);
	rf_expect_st(test, r, "trace_format", "[auto] plain zephyr libmetal stm32cube\n");
	rf_expect_live(test, r, 0, 1, 0x200);
}

static int rf_suite_init(struct kunit_suite *suite)
{
	return platform_driver_register(&rf_driver);
}

static void rf_suite_exit(struct kunit_suite *suite)
{
	platform_driver_unregister(&rf_driver);
}

static struct kunit_case rf_cases[] = {
	KUNIT_CASE(rf_boot_test),
	KUNIT_CASE_PARAM(rf_image_test, rf_image_gen_params),
	KUNIT_CASE_PARAM(rf_crash_recovery_test, rf_crash_gen_params),
	KUNIT_CASE(rf_crash_no_recovery_test),
	KUNIT_CASE(rf_stop_crashed_test),
	KUNIT_CASE(rf_runtime_da_test),
	KUNIT_CASE(rf_unmapped_trace_test),
	KUNIT_CASE(rf_table_change_test),
	KUNIT_CASE(rf_follow_stop_start_test),
	KUNIT_CASE(rf_unbind_test),
	KUNIT_CASE(rf_two_crash_test),
	KUNIT_CASE(rf_follow_param_test),
	KUNIT_CASE(rf_trace_format_test),
	{}
};

static struct kunit_suite rf_suite = {
	.name = "snaptrace_rproc_follow",
	.init = rf_init,
	.suite_init = rf_suite_init,
	.suite_exit = rf_suite_exit,
	.test_cases = rf_cases,
};

kunit_test_suites(&rf_suite);
