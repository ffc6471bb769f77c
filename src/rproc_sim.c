// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: the simulated platform. A remote with no
 * hardware behind it: its memory is a layout of named regions in host
 * memory (as a device tree's reserved-memory or TCM nodes give), its image
 * is loaded by the host, and its "core" is an hrtimer that writes log lines
 * into the trace buffers as firmware does, until the remote stops or
 * crashes. A platform driver of the core behind &struct snaptrace_rproc_ops,
 * as upstream's stm32_rproc.c is one of remoteproc_core.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include <snaptrace/rproc.h>
#include "fw.h"
#include "rproc.h"

/* The simulated core writes a log line this often. */
#define ST_SIM_TICK_NS	(50 * NSEC_PER_MSEC)

/**
 * struct st_sim_pdata - what a layout tells its remote's platform device,
 *	as an upstream driver's of_device_id data tells it about its SoC
 * @table_optional: an image without a .resource_table section boots, with
 *	a warning and no resources, as the layout's upstream driver allows;
 *	false: it is refused with -ENOENT, as the core's default parse_fw,
 *	rproc_elf_load_rsc_table(), refuses it
 */
struct st_sim_pdata {
	bool table_optional;
};

/**
 * struct st_sim - the simulated platform's private data
 *	(&snaptrace_rproc.priv), as an upstream driver's struct is its rproc's
 * @pdev: its platform device
 * @core: the simulated core: an hrtimer (hardirq mode) that writes a log
 *	line into each trace buffer every %ST_SIM_TICK_NS while it runs
 * @seq: log line counter (runs on across restarts); the core lock
 * @cursor: where the core writes its next log line in trace N (offset);
 *	the core lock
 * @region: the host memory of each layout region, registered with the
 *	core as platform memory (snaptrace_rproc_add_carveout())
 * @nr_regions: entries in @region
 * @rproc: the remote
 */
struct st_sim {
	struct platform_device *pdev;
	struct hrtimer core;
	u32 seq;
	u32 cursor[SNAPTRACE_RPROC_MAX_TRACES];
	void *region[SNAPTRACE_RPROC_MAX_REGIONS];
	int nr_regions;
	struct snaptrace_rproc *rproc;
};

/*
 * Platform memory layouts, as name:da:size regions joined by '+', and
 * whether an image needs a resource table there (Documentation/remoteproc.rst).
 * A layout given as regions needs one, as "default" does.
 */
static const struct {
	const char *name;
	const char *regions;
	struct st_sim_pdata pdata;
} st_layouts[] = {
	{ "default", "sram:0x10000000:0x40000" },
	/* STM32MP157 Cortex-M4: RETRAM and MCUSRAM; stm32_rproc_parse_fw() */
	{ "stm32mp157", "retram:0x0:0x10000+mcusram:0x10000000:0x60000",
	  { .table_optional = true } },
	/* ZynqMP Cortex-R5: ATCM and BTCM; zynqmp_r5_parse_fw() */
	{ "zynqmp-r5", "atcm:0x0:0x10000+btcm:0x20000:0x10000",
	  { .table_optional = true } },
};

/* A layout region starts every boot zeroed, as the core found it. */
static int st_sim_region_zero(struct snaptrace_rproc *rproc,
			      struct snaptrace_rproc_mem *m)
{
	memset(m->va, 0, m->len);
	return 0;
}

/*
 * The layout's regions, each in host memory, registered with the core as
 * the platform's memory, as a platform driver registers its device tree's
 * reserved-memory or TCM regions with rproc_add_carveout().
 */
static int st_sim_parse_layout(struct snaptrace_rproc *rproc, const char *layout)
{
	struct st_sim *sim = rproc->priv;
	struct snaptrace_rproc_mem *m;
	char *s, *p, *region;
	int ret = 0;

	s = kstrdup(layout, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	p = s;
	while ((region = strsep(&p, "+")) && !ret) {
		char *name = strsep(&region, ":");
		char *da = strsep(&region, ":");
		u32 addr, len;
		void *va;

		if (sim->nr_regions == SNAPTRACE_RPROC_MAX_REGIONS || !name ||
		    !*name || !da || !region || kstrtou32(da, 0, &addr) ||
		    kstrtou32(region, 0, &len) || !len ||
		    len > SNAPTRACE_RPROC_MEM_MAX || (u64)addr + len > BIT_ULL(32)) {
			pr_err("remoteproc%d: bad memory layout \"%s\": want name:da:size[+...], size 1..%u, within 32 bits\n",
			       rproc->index, layout, SNAPTRACE_RPROC_MEM_MAX);
			ret = -EINVAL;
			break;
		}
		va = vzalloc(len);
		if (!va) {
			ret = -ENOMEM;
			break;
		}
		sim->region[sim->nr_regions++] = va;
		m = snaptrace_rproc_mem_entry_init(NULL, va, len, addr,
						   st_sim_region_zero, NULL,
						   "%s", name);
		if (!m) {
			ret = -ENOMEM;
			break;
		}
		m->kind = "region";
		ret = snaptrace_rproc_add_carveout(rproc, m);
		if (ret) {
			pr_err("remoteproc%d: layout region %s overlaps another\n",
			       rproc->index, m->name);
			kfree(m);
		}
	}
	kfree(s);
	return ret;
}

/* What the layout made: the registered regions and their memory. */
static void st_sim_free_layout(struct snaptrace_rproc *rproc)
{
	struct st_sim *sim = rproc->priv;

	while (sim->nr_regions--)
		vfree(sim->region[sim->nr_regions]);
}

/*
 * Append one log line to a trace buffer, as the firmware would: the buffer
 * is written from the start; a line that does not fit before the last byte
 * starts the buffer over from offset 0; a NUL always follows the last line,
 * so a reader sees the lines since the last wrap.
 */
static void st_sim_log(struct snaptrace_rproc *rproc,
		       struct snaptrace_rproc_trace *trace, u32 *cursor)
{
	struct st_sim *sim = rproc->priv;
	char line[96];
	u64 ns = ktime_get_mono_fast_ns();
	u32 rem;
	u64 s = div_u64_rem(ns, NSEC_PER_SEC, &rem);
	char *va = snaptrace_rproc_da_to_va(rproc, trace->da, trace->len, NULL);
	int n = scnprintf(line, sizeof(line), "[%08u] %llu.%06u %s: hello from the remote\n",
			  sim->seq, s, rem / (u32)NSEC_PER_USEC, rproc->name);

	if (!va || trace->len < 2)
		return;
	n = min_t(int, n, trace->len - 1);
	if (*cursor + n + 1 > trace->len)
		*cursor = 0;
	memcpy(va + *cursor, line, n);
	*cursor += n;
	va[*cursor] = '\0';
}

/*
 * The core runs from start until it crashes or stops; detached, it runs
 * on. Core lock held.
 */
static bool st_sim_running(struct snaptrace_rproc *rproc)
{
	return rproc->state != SNAPTRACE_RPROC_OFFLINE &&
	       rproc->state != SNAPTRACE_RPROC_CRASHED;
}

static enum hrtimer_restart st_sim_tick(struct hrtimer *t)
{
	struct st_sim *sim = container_of(t, struct st_sim, core);
	struct snaptrace_rproc *rproc = sim->rproc;
	struct snaptrace_rproc_trace *trace;
	bool running;

	raw_spin_lock(&rproc->core_lock);
	running = st_sim_running(rproc);
	if (running) {
		list_for_each_entry(trace, &rproc->traces, node)
			st_sim_log(rproc, trace, &sim->cursor[trace->index]);
		sim->seq++;
	}
	raw_spin_unlock(&rproc->core_lock);
	if (!running)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(ST_SIM_TICK_NS));
	return HRTIMER_RESTART;
}

static void st_sim_start(struct snaptrace_rproc *rproc)
{
	struct st_sim *sim = rproc->priv;
	struct snaptrace_rproc_trace *trace;
	unsigned long flags;

	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	/*
	 * The firmware logs as it boots, before it can crash: a crash right
	 * after a (re)start captures that line rather than an empty buffer
	 * over the last crash's copy.
	 */
	list_for_each_entry(trace, &rproc->traces, node) {
		sim->cursor[trace->index] = 0;
		st_sim_log(rproc, trace, &sim->cursor[trace->index]);
	}
	sim->seq++;
	WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_RUNNING);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	hrtimer_start(&sim->core, 0, HRTIMER_MODE_REL_HARD);
}

/* The state says the core no longer runs: wait for its last tick. */
static void st_sim_stop(struct snaptrace_rproc *rproc)
{
	struct st_sim *sim = rproc->priv;

	hrtimer_cancel(&sim->core);
}

/*
 * The image's resource table, copied. An image without one boots with no
 * resources where the layout allows it, as stm32_rproc_parse_fw() and
 * zynqmp_r5_parse_fw() let it; a table that is there but bad never boots.
 */
static int st_sim_parse_fw(struct snaptrace_rproc *rproc, const u8 *elf,
			   size_t size)
{
	const struct st_sim_pdata *pdata = dev_get_platdata(rproc->dev);
	size_t off, sz;
	int ret;

	ret = snaptrace_elf_find_rsc_table(rproc->dev, elf, size, &off, &sz);
	if (ret == -ENOENT && pdata && pdata->table_optional) {
		dev_warn(rproc->dev, "%s: no resource table found, booting without resources\n",
			 rproc->firmware);
		return 0;
	}
	ret = snaptrace_rproc_table_check(rproc, ret, sz);
	if (ret)
		return ret;
	rproc->table = kmemdup(elf + off, sz, GFP_KERNEL);
	if (!rproc->table)
		return -ENOMEM;
	rproc->table_sz = sz;
	return 0;
}

static int st_sim_check_segment(void *priv, u64 da, const u8 *data, u64 filesz,
				u64 memsz)
{
	struct snaptrace_rproc *rproc = priv;

	if (memsz > SIZE_MAX || !snaptrace_rproc_da_to_va(rproc, da, memsz, NULL)) {
		snaptrace_dev_err(rproc->dev, "segment at da 0x%llx, memsz 0x%llx is outside the remote's memory\n",
				  da, memsz);
		return -EINVAL;
	}
	return 0;
}

static int st_sim_load_segment(void *priv, u64 da, const u8 *data, u64 filesz,
			       u64 memsz)
{
	struct snaptrace_rproc *rproc = priv;
	void *va = snaptrace_rproc_da_to_va(rproc, da, memsz, NULL);

	memcpy(va, data, filesz);
	memset(va + filesz, 0, memsz - filesz);
	return 0;
}

/* Every segment is checked before any is copied: no half-loaded remote. */
static int st_sim_load(struct snaptrace_rproc *rproc, const u8 *elf, size_t size)
{
	int ret = snaptrace_elf_walk_segments(rproc->dev, elf, size,
					      st_sim_check_segment, rproc);

	return ret ? ret : snaptrace_elf_walk_segments(rproc->dev, elf, size,
						       st_sim_load_segment,
						       rproc);
}

static void st_sim_booted(struct snaptrace_rproc *rproc)
{
	dev_info(rproc->dev, "started %s: %d trace(s), %d vdev(s)\n",
		 rproc->firmware, rproc->num_traces, rproc->vdevs);
}

static void st_sim_free(struct snaptrace_rproc *rproc)
{
	struct st_sim *sim = rproc->priv;

	platform_device_unregister(sim->pdev);
	st_sim_free_layout(rproc);
	kfree(sim);
}

static const struct snaptrace_rproc_ops st_sim_ops = {
	.parse_fw = st_sim_parse_fw,
	.load = st_sim_load,
	.start = st_sim_start,
	.stop = st_sim_stop,
	.booted = st_sim_booted,
	.free = st_sim_free,
};

/**
 * snaptrace_rproc_create() - create a simulated remote processor
 * @index: N of remoteprocN
 * @layout: its platform memory: "default", "stm32mp157", "zynqmp-r5", or
 *	regions as name:da:size joined by '+'
 *
 * Registers a platform device "snaptrace-rproc.N" for it and allocates its
 * platform memory. The caller creates its debugfs files. As a platform
 * driver's probe calls rproc_alloc() and rproc_add(). On "stm32mp157" and
 * "zynqmp-r5", as with their upstream drivers, an image without a
 * resource table boots with a warning and no resources; elsewhere it is
 * refused (-ENOENT).
 *
 * Context: process context, may sleep.
 * Return: the remote, or ERR_PTR(-EINVAL) for a bad layout, -ENOMEM, or
 * the platform device's registration error.
 */
struct snaptrace_rproc *snaptrace_rproc_create(int index, const char *layout)
{
	struct st_sim_pdata pdata = { .table_optional = false };
	struct platform_device *pdev;
	struct snaptrace_rproc_mem *m, *mn;
	struct snaptrace_rproc *rproc;
	struct st_sim *sim;
	int i, ret;

	sim = kzalloc(sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return ERR_PTR(-ENOMEM);
	rproc = snaptrace_rproc_alloc(index, &st_sim_ops);
	if (!rproc) {
		kfree(sim);
		return ERR_PTR(-ENOMEM);
	}
	sim->rproc = rproc;
	rproc->priv = sim;
	hrtimer_setup(&sim->core, st_sim_tick, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);

	for (i = 0; i < ARRAY_SIZE(st_layouts); i++) {
		if (!strcmp(layout, st_layouts[i].name)) {
			layout = st_layouts[i].regions;
			pdata = st_layouts[i].pdata;
			break;
		}
	}
	ret = st_sim_parse_layout(rproc, layout);
	if (ret)
		goto free;

	pdev = platform_device_register_data(NULL, "snaptrace-rproc", index,
					     &pdata, sizeof(pdata));
	if (IS_ERR(pdev)) {
		ret = PTR_ERR(pdev);
		goto free;
	}
	sim->pdev = pdev;
	rproc->dev = &pdev->dev;
	snaptrace_rproc_add(rproc);
	return rproc;

free:
	/* Registered regions are the remote's: freed with it, as destroy does. */
	list_for_each_entry_safe(m, mn, &rproc->carveouts, reg_node)
		kfree(m);
	st_sim_free_layout(rproc);
	snaptrace_rproc_free(rproc);
	kfree(sim);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_create);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * snaptrace_rproc_sim_seq() - the simulated core's log line counter
 * @rproc: a remote of snaptrace_rproc_create(), no other
 *
 * For KUnit, which tells from it whether the core runs. No upstream twin.
 *
 * Context: any.
 * Return: lines the core has written, across restarts.
 */
u32 snaptrace_rproc_sim_seq(struct snaptrace_rproc *rproc)
{
	struct st_sim *sim = rproc->priv;

	return READ_ONCE(sim->seq);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_sim_seq);
#endif
