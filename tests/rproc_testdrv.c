// SPDX-License-Identifier: GPL-2.0
/*
 * A test driver of real upstream remotes, module snaptrace_rproc_test (see
 * rproc_testdrv.h): a platform driver registering struct rprocs with
 * rproc_alloc()/rproc_add() (no auto boot), whose ops are upstream's ELF
 * loader (rproc_alloc() fills it in when ops->load is NULL; its
 * declarations are private to drivers/remoteproc) and vmalloc'ed memory
 * covering each PT_LOAD and trace buffer for da_to_va.
 *
 * Its "firmware" is an hrtimer that ops->start starts: each tick writes a
 * line into every trace buffer the loaded resource table (rproc->table_ptr)
 * declares, in one of the conventions real firmware uses (plain
 * NUL-terminated text, Zephyr's RAM console, libmetal's R5 logger,
 * STM32Cube's log); at the end of a run it may report a crash
 * (rproc_report_crash()) from that tick, in hard interrupt context (a
 * timer's; on PREEMPT_RT a threaded one, as a driver's watchdog IRQ).
 * ops->start, ops->stop and the last tick signal completions.
 *
 * It depends on upstream's framework only: with remotes=N it registers and
 * boots N remotes of its own at load (the rproc_follow scenario loads and
 * unloads snaptrace around them); the KUnit suite registers its own.
 */
#include <linux/completion.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/firmware.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/preempt.h>
#include <linux/remoteproc.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "rproc_testdrv.h"
#include "st_kunit.h"

#define RF_DRV			"snaptrace-rf"
/* Where the built images are written for request_firmware(). */
#define RF_FW_DIR		"/lib/firmware/"
/* The module's own remotes (remotes=N), at most. */
#define RF_MOD_MAX		4

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

	if (atomic_cmpxchg(&r->hold_da, 1, 0) == 1) {
		complete(&r->da_held);
		r->da_hold_expired =
			!wait_for_completion_timeout(&r->da_release,
						     msecs_to_jiffies(RF_HOLD_GUARD_MS));
	}
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
/**
 * st_rf_fw_trace() - a trace entry of a remote's loaded resource table
 * @r: the remote
 * @i: which RSC_TRACE entry, counted from 0
 *
 * The table the firmware knows (rproc->table_ptr at its last start), as
 * the firmware finds its entries. Mirrors nothing upstream: a firmware's
 * view of its own table.
 *
 * Context: any; the remote started (or stopped since).
 * Return: the entry in the loaded table, or NULL (no table, no such entry).
 */
struct fw_rsc_trace *st_rf_fw_trace(struct rf_remote *r, unsigned int i)
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
EXPORT_SYMBOL_GPL(st_rf_fw_trace);

/**
 * st_rf_line() - a line the firmware writes
 * @out: where to print it
 * @size: bytes of @out
 * @tag: what the line names (the remote's)
 * @fmt: the convention: libmetal's records start "cnt L<level> " (counters
 *	from 0), Zephyr's with a tick timestamp "[%08u] "
 * @run: the run (1 for the first start)
 * @t: the trace
 * @line: the line, from 0
 *
 * Context: any.
 * Return: the bytes printed (scnprintf()).
 */
int st_rf_line(char *out, size_t size, const char *tag, enum rf_fmt fmt,
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
EXPORT_SYMBOL_GPL(st_rf_line);

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
		struct fw_rsc_trace *tr = st_rf_fw_trace(r, t);
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
		n = st_rf_line(line, sizeof(line), r->tag, r->fmt[t], r->starts, t, r->line);
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
	if (READ_ONCE(r->booter) == current)
		r->booter_starts++;
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
	init_completion(&r->da_held);
	init_completion(&r->da_release);
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

/**
 * st_rf_register() - register a test remote
 * @name: its rproc->name
 * @fw: its firmware, under /lib/firmware
 * @no_recovery: rproc->recovery_disabled
 *
 * Registers a platform device the driver binds at once: rproc_alloc(),
 * no auto boot, rproc_add(). Its runs write nothing until the caller
 * fills in @run, @fmt and the rest (before rproc_boot()).
 *
 * Context: process context, may sleep.
 * Return: the remote, or an ERR_PTR().
 */
struct rf_remote *st_rf_register(const char *name, const char *fw, bool no_recovery)
{
	struct rf_pdata pd = { .name = name, .fw = fw, .no_recovery = no_recovery };
	struct platform_device *pdev;
	struct rproc *rproc;

	pdev = platform_device_register_data(NULL, RF_DRV, PLATFORM_DEVID_AUTO,
					     &pd, sizeof(pd));
	if (IS_ERR(pdev))
		return ERR_CAST(pdev);
	rproc = platform_get_drvdata(pdev);
	if (!rproc) {
		platform_device_unregister(pdev);
		return ERR_PTR(-ENODEV);
	}
	return rproc->priv;
}
EXPORT_SYMBOL_GPL(st_rf_register);

/**
 * st_rf_unregister() - unbind and remove a test remote
 * @r: the remote, freed on return
 *
 * platform_device_unregister(): the driver's remove runs rproc_del()
 * (which shuts the remote down, running or crashed) and rproc_free().
 *
 * Context: process context, may sleep.
 */
void st_rf_unregister(struct rf_remote *r)
{
	platform_device_unregister(r->pdev);
}
EXPORT_SYMBOL_GPL(st_rf_unregister);

/* ---- images ---- */

/**
 * st_rf_install() - install an image for request_firmware()
 * @name: its name under /lib/firmware
 * @img: its bytes
 * @len: how many
 *
 * Writes the file and closes it before returning: request_firmware()
 * refuses a file still open for writing, and fput() defers the close (to
 * a task's return to user space, or a kthread's delayed work).
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno.
 */
int st_rf_install(const char *name, const void *img, size_t len)
{
	char *path __free(kfree) = kasprintf(GFP_KERNEL, RF_FW_DIR "%s", name);
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	if (!path)
		return -ENOMEM;
	scoped_with_init_fs()
		f = filp_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, img, len, &pos);
	/* closed now: fput() waits for a task's return to user space */
	__fput_sync(f);
	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}
EXPORT_SYMBOL_GPL(st_rf_install);

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
/**
 * st_rf_build() - build an image of trace entries and install it
 * @name: its name under /lib/firmware
 * @tc: its trace entries
 * @ntraces: how many, at most %RF_MAX_TRACES
 *
 * An ELF32 image upstream's ELF loader boots: one segment of
 * %RF_SEG_MEMSZ bytes at %RF_SEG_DA, its resource table first, the rest
 * .bss; the table holds @ntraces RSC_TRACE entries.
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno.
 */
int st_rf_build(const char *name, const struct rf_trace_cfg *tc, unsigned int ntraces)
{
	u8 *img __free(kfree) = kzalloc(RF_IMG_SIZE, GFP_KERNEL);
	struct elf32_hdr *eh = (void *)img;
	struct elf32_phdr *ph = (void *)(img + sizeof(*eh));
	struct elf32_shdr *sh = (void *)(img + RF_IMG_SH);
	struct rf_table *t = (void *)(img + RF_IMG_SEG);
	unsigned int i;

	if (!img)
		return -ENOMEM;
	if (ntraces > RF_MAX_TRACES)
		return -E2BIG;
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
	return st_rf_install(name, img, RF_IMG_SIZE);
}
EXPORT_SYMBOL_GPL(st_rf_build);

/* A built image of one trace of @len bytes at the first trace da. */

/* ---- the module's own remotes ---- */

static unsigned int remotes;
module_param(remotes, uint, 0444);
MODULE_PARM_DESC(remotes, "remotes to register and boot at load, named rftestN (0-4)");

#define RF_MOD_FW		"snaptrace-rftest.elf"
#define RF_MOD_LINES		8

static struct rf_remote *rf_mod[RF_MOD_MAX];
static char rf_mod_names[RF_MOD_MAX][24];

static void rf_mod_remove(void)
{
	unsigned int i;

	for (i = 0; i < RF_MOD_MAX; i++) {
		if (rf_mod[i])
			st_rf_unregister(rf_mod[i]);
		rf_mod[i] = NULL;
	}
}

/*
 * remotes=N: N remotes of one plain trace, each run writing RF_MOD_LINES
 * lines and then running on: crashes come from upstream's debugfs crash.
 */
static int rf_mod_add(void)
{
	const struct rf_trace_cfg tc = { RF_TRACE_DA(0), 0x400 };
	struct rf_remote *r;
	unsigned int i, k;
	int ret;

	if (remotes > RF_MOD_MAX)
		return -EINVAL;
	if (!remotes)
		return 0;
	ret = st_rf_build(RF_MOD_FW, &tc, 1);
	if (ret)
		return ret;
	for (i = 0; i < remotes; i++) {
		snprintf(rf_mod_names[i], sizeof(rf_mod_names[i]), "rftest%u", i);
		r = st_rf_register(rf_mod_names[i], RF_MOD_FW, false);
		if (IS_ERR(r)) {
			ret = PTR_ERR(r);
			goto fail;
		}
		rf_mod[i] = r;
		for (k = 0; k < RF_MAX_RUNS; k++)
			r->run[k].lines = RF_MOD_LINES;
		ret = rproc_boot(r->rproc);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	rf_mod_remove();
	return ret;
}

static int __init rf_mod_init(void)
{
	int ret = platform_driver_register(&rf_driver);

	if (ret)
		return ret;
	ret = rf_mod_add();
	if (ret)
		platform_driver_unregister(&rf_driver);
	return ret;
}

static void __exit rf_mod_exit(void)
{
	rf_mod_remove();
	platform_driver_unregister(&rf_driver);
}

module_init(rf_mod_init);
module_exit(rf_mod_exit);

MODULE_DESCRIPTION("snaptrace tests: real upstream remote processors");
MODULE_LICENSE("GPL");
