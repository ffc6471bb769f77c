// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: a remoteproc-style core for simulated
 * remotes, on kernels without CONFIG_REMOTEPROC.
 *
 * A remote has platform memory (named regions, as a device tree's
 * reserved-memory or TCM nodes give), a firmware image loaded through the
 * firmware loader, and the resources its table asks for: carveouts, devmems,
 * traces, vdevs. Starting it handles the resources, loads the PT_LOAD
 * segments at their p_paddr and starts the simulated core, which writes log
 * lines into the trace buffers as firmware does. A crash, reported from any
 * context, captures every trace into memory allocated when the trace was
 * handled (a snaptrace ring buffer's snapshot), so traceN_last survives
 * recovery. Recovery, like upstream's, keeps the resources and reloads the
 * segments.
 *
 * A remote that boots on its own (a real core sharing memory with the host,
 * as rproc_ivshmem.c drives) is attached to instead: its resource table is
 * found loaded in the shared memory, no segment is loaded, no simulated
 * core runs, and a heartbeat watchdog reports its crashes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/crc32.h>
#include <linux/err.h>
#include <linux/firmware.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "fw.h"
#include "rproc.h"

/* Largest carveout or devmem the simulation backs with host memory. */
#define ST_RPROC_MEM_MAX	SZ_16M
/* Where carveouts with SNAPTRACE_FW_RSC_ADDR_ANY are placed. */
#define ST_RPROC_ANY_BASE	0xc0000000U
/* The simulated core writes a log line this often. */
#define ST_RPROC_TICK_NS	(50 * NSEC_PER_MSEC)

/* Platform memory layouts, as name:da:size regions joined by '+'. */
static const struct {
	const char *name;
	const char *regions;
} st_layouts[] = {
	{ "default", "sram:0x10000000:0x40000" },
	/* STM32MP157 Cortex-M4: RETRAM and MCUSRAM */
	{ "stm32mp157", "retram:0x0:0x10000+mcusram:0x10000000:0x60000" },
	/* ZynqMP Cortex-R5: ATCM and BTCM */
	{ "zynqmp-r5", "atcm:0x0:0x10000+btcm:0x20000:0x10000" },
};

/**
 * snaptrace_rproc_state_name() - a state as debugfs "state" shows it
 * @state: an &enum snaptrace_rproc_state
 *
 * Context: any.
 * Return: "offline", "running" or "crashed".
 */
const char *snaptrace_rproc_state_name(int state)
{
	switch (state) {
	case SNAPTRACE_RPROC_RUNNING:
		return "running";
	case SNAPTRACE_RPROC_CRASHED:
		return "crashed";
	default:
		return "offline";
	}
}

/* ------------------------------------------------------------------ */
/* Memory */

/**
 * snaptrace_rproc_da_to_va() - translate a device address to a host address
 * @rproc: the remote
 * @da: device address
 * @len: length in bytes of the range that must be mapped
 * @is_iomem: set to whether the memory is I/O memory (may be NULL)
 *
 * Looks for the platform region, carveout or devmem that wholly contains
 * [@da, @da + @len), without overflow for any @da and @len. Mirrors
 * rproc_da_to_va(), whose arithmetic is int-based.
 *
 * Context: any; never sleeps. The memory list only changes while the
 * remote is offline, under its lock.
 * Return: the host address, or NULL if no single mapping holds the range
 * (or @len is 0).
 */
void *snaptrace_rproc_da_to_va(struct snaptrace_rproc *rproc, u64 da,
			       size_t len, bool *is_iomem)
{
	struct snaptrace_rproc_mem *m;

	if (!len)
		return NULL;
	list_for_each_entry(m, &rproc->mems, node) {
		if (da < m->da || len > m->len || da - m->da > m->len - len)
			continue;
		if (is_iomem)
			*is_iomem = m->is_iomem;
		return m->va + (da - m->da);
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_da_to_va);

static bool st_overlaps(struct snaptrace_rproc *rproc, u32 da, u32 len)
{
	struct snaptrace_rproc_mem *m;

	list_for_each_entry(m, &rproc->mems, node)
		if ((u64)da < (u64)m->da + m->len && (u64)m->da < (u64)da + len)
			return true;
	return false;
}

static int st_parse_layout(struct snaptrace_rproc *rproc, const char *layout)
{
	char *s, *p, *region;
	int i, ret = 0;

	for (i = 0; i < ARRAY_SIZE(st_layouts); i++)
		if (!strcmp(layout, st_layouts[i].name))
			layout = st_layouts[i].regions;

	s = kstrdup(layout, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	p = s;
	while ((region = strsep(&p, "+")) && !ret) {
		struct snaptrace_rproc_mem *m = &rproc->layout[rproc->nr_layout];
		char *name = strsep(&region, ":");
		char *da = strsep(&region, ":");
		u32 len;

		if (rproc->nr_layout == SNAPTRACE_RPROC_MAX_REGIONS || !name ||
		    !*name || !da || !region || kstrtou32(da, 0, &m->da) ||
		    kstrtou32(region, 0, &len) || !len || len > ST_RPROC_MEM_MAX ||
		    (u64)m->da + len > BIT_ULL(32)) {
			pr_err("remoteproc%d: bad memory layout \"%s\": want name:da:size[+...], size 1..%u, within 32 bits\n",
			       rproc->index, layout, ST_RPROC_MEM_MAX);
			ret = -EINVAL;
			break;
		}
		strscpy(m->name, name, sizeof(m->name));
		m->len = len;
		m->kind = "region";
		m->va = vzalloc(len);
		if (!m->va) {
			ret = -ENOMEM;
			break;
		}
		rproc->nr_layout++;
		if (st_overlaps(rproc, m->da, m->len)) {
			pr_err("remoteproc%d: layout region %s overlaps another\n",
			       rproc->index, m->name);
			ret = -EINVAL;
		}
		list_add_tail(&m->node, &rproc->mems);
	}
	kfree(s);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Resources */

static void st_print_name(char *dst, const u8 *name)
{
	memcpy(dst, name, SNAPTRACE_RSC_NAME_LEN);
	dst[SNAPTRACE_RSC_NAME_LEN] = '\0';
}

static int st_add_view(struct snaptrace_rproc *rproc, const char *kind, u32 da,
		       u32 len, const u8 *name, int offset);

static int st_add_mem(struct snaptrace_rproc *rproc, const char *kind, u32 da,
		      u32 len, const u8 *name, int offset)
{
	struct snaptrace_rproc_mem *m;

	if (rproc->attached)	/* it is in the memory the remote runs from */
		return st_add_view(rproc, kind, da, len, name, offset);
	if (!len || len > ST_RPROC_MEM_MAX) {
		dev_err(rproc->dev, "%s at offset %d: len 0x%x not in 1..0x%x\n",
			kind, offset, len, ST_RPROC_MEM_MAX);
		return -EINVAL;
	}
	if (rproc->nr_mems == SNAPTRACE_RPROC_MAX_MEMS) {
		dev_err(rproc->dev, "%s at offset %d: more than %d carveouts and devmems\n",
			kind, offset, SNAPTRACE_RPROC_MAX_MEMS);
		return -EINVAL;
	}
	if (da == (u32)SNAPTRACE_FW_RSC_ADDR_ANY) {
		da = ST_RPROC_ANY_BASE;
		while (st_overlaps(rproc, da, len) && (u64)da + 2 * (u64)len < BIT_ULL(32))
			da += ALIGN(len, PAGE_SIZE);
	}
	if ((u64)da + len > BIT_ULL(32) || st_overlaps(rproc, da, len)) {
		dev_err(rproc->dev, "%s at offset %d: da 0x%x len 0x%x overlaps the remote's memory or passes 4 GiB\n",
			kind, offset, da, len);
		return -EINVAL;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->va = vzalloc(len);
	if (!m->va) {
		kfree(m);
		return -ENOMEM;
	}
	st_print_name(m->name, name);
	m->da = da;
	m->len = len;
	m->kind = kind;
	list_add_tail(&m->node, &rproc->mems);
	rproc->nr_mems++;
	return 0;
}

/**
 * snaptrace_rproc_handle_trace() - handle a trace resource entry
 * @rproc: the remote
 * @ptr: the entry's body (a &struct snaptrace_fw_rsc_trace)
 * @offset: its offset in the resource table, for messages
 * @avail: bytes left in the table from @ptr
 *
 * Same contract as upstream's rproc_handle_trace(), with stronger checks:
 * the trace must lie wholly inside the remote's memory (a region, a
 * carveout or a devmem) and have a non-zero length, and the memory for its
 * last copy is allocated now, so that a crash needs none. Creates debugfs
 * traceN and traceN_last.
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0; -EINVAL if truncated (sizeof(*rsc) > @avail), reserved not
 * zero, len 0 or too large, da + len past 32 bits, or outside the remote's
 * memory; -ENOMEM.
 */
int snaptrace_rproc_handle_trace(struct snaptrace_rproc *rproc, void *ptr,
				 int offset, int avail)
{
	struct snaptrace_fw_rsc_trace *rsc = ptr;
	struct snaptrace_rproc_trace *trace;
	int ret;

	ret = snaptrace_rsc_check_trace(rproc->dev, rsc, offset, avail);
	if (ret)
		return ret;
	if (rsc->len > SNAPTRACE_RPROC_TRACE_MAX ||
	    rproc->traces_len + rsc->len > SNAPTRACE_RPROC_TRACES_TOTAL ||
	    rproc->num_traces == SNAPTRACE_RPROC_MAX_TRACES) {
		dev_err(rproc->dev, "trace at offset %d: len 0x%x: more than %d traces or 0x%x bytes of traces\n",
			offset, rsc->len, SNAPTRACE_RPROC_MAX_TRACES,
			SNAPTRACE_RPROC_TRACES_TOTAL);
		return -EINVAL;
	}
	if (!snaptrace_rproc_da_to_va(rproc, rsc->da, rsc->len, NULL)) {
		dev_err(rproc->dev, "trace at offset %d: da 0x%x len 0x%x is not inside the remote's memory\n",
			offset, rsc->da, rsc->len);
		return -EINVAL;
	}

	trace = kzalloc(sizeof(*trace), GFP_KERNEL);
	if (!trace)
		return -ENOMEM;
	/*
	 * Room for the whole trace as records in one CPU's ring: payload,
	 * a 16-byte header per 2 KiB, and padding at the wrap.
	 */
	trace->last = snaptrace_buffer_alloc((size_t)rsc->len + rsc->len / 64 +
					     SNAPTRACE_MIN_SIZE, SNAPTRACE_OVERWRITE);
	if (IS_ERR(trace->last)) {
		ret = PTR_ERR(trace->last);
		kfree(trace);
		return ret;
	}
	ret = snaptrace_alloc_snapshot(trace->last);
	if (ret) {
		snaptrace_buffer_free(trace->last);
		kfree(trace);
		return ret;
	}
	trace->rproc = rproc;
	rproc->traces_len += rsc->len;
	trace->index = rproc->num_traces++;
	trace->da = rsc->da;
	trace->len = rsc->len;
	st_print_name(trace->name, rsc->name);
	list_add_tail(&trace->node, &rproc->traces);
	snaptrace_rproc_debugfs_trace(trace);
	dev_dbg(rproc->dev, "trace%d added: da 0x%x, len 0x%x\n", trace->index,
		trace->da, trace->len);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_handle_trace);

/* Memory first: a trace is checked against carveouts wherever they are. */
static int st_handle_mem(void *priv, u32 type, void *rsc, int offset, int avail)
{
	struct snaptrace_rproc *rproc = priv;
	struct snaptrace_fw_rsc_carveout *c = rsc;
	struct snaptrace_fw_rsc_devmem *d = rsc;
	int ret;

	switch (type) {
	case SNAPTRACE_RSC_CARVEOUT:
		ret = snaptrace_rsc_check_carveout(rproc->dev, c, offset, avail);
		return ret ? ret : st_add_mem(rproc, "carveout", c->da, c->len,
					      c->name, offset);
	case SNAPTRACE_RSC_DEVMEM:
		ret = snaptrace_rsc_check_devmem(rproc->dev, d, offset, avail);
		return ret ? ret : st_add_mem(rproc, "devmem", d->da, d->len,
					      d->name, offset);
	default:
		return 0;
	}
}

static int st_handle_other(void *priv, u32 type, void *rsc, int offset, int avail)
{
	struct snaptrace_rproc *rproc = priv;
	int ret;

	switch (type) {
	case SNAPTRACE_RSC_CARVEOUT:
	case SNAPTRACE_RSC_DEVMEM:
		return 0;
	case SNAPTRACE_RSC_TRACE:
		return snaptrace_rproc_handle_trace(rproc, rsc, offset, avail);
	case SNAPTRACE_RSC_VDEV:
		ret = snaptrace_rsc_check_vdev(rproc->dev, rsc, offset, avail);
		if (!ret)
			rproc->vdevs++;	/* recorded: shown in resource_table */
		return ret;
	default:
		if (type >= SNAPTRACE_RSC_VENDOR_START && type <= SNAPTRACE_RSC_VENDOR_END)
			dev_warn(rproc->dev, "vendor resource type %u at offset %d skipped\n",
				 type, offset);
		else
			dev_warn(rproc->dev, "unsupported resource type %u at offset %d skipped\n",
				 type, offset);
		return 0;
	}
}

static int st_check_segment(void *priv, u64 da, const u8 *data, u64 filesz,
			    u64 memsz)
{
	struct snaptrace_rproc *rproc = priv;

	if (memsz > SIZE_MAX || !snaptrace_rproc_da_to_va(rproc, da, memsz, NULL)) {
		dev_err(rproc->dev, "segment at da 0x%llx, memsz 0x%llx is outside the remote's memory\n",
			da, memsz);
		return -EINVAL;
	}
	return 0;
}

static int st_load_segment(void *priv, u64 da, const u8 *data, u64 filesz,
			   u64 memsz)
{
	struct snaptrace_rproc *rproc = priv;
	void *va = snaptrace_rproc_da_to_va(rproc, da, memsz, NULL);

	memcpy(va, data, filesz);
	memset(va + filesz, 0, memsz - filesz);
	return 0;
}

/* Give back everything the firmware's resources took. Lock held, offline. */
static void st_resources_free(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace, *tn;
	struct snaptrace_rproc_mem *m, *mn;

	list_for_each_entry_safe(trace, tn, &rproc->traces, node) {
		/* debugfs_remove() waits for readers inside the files. */
		debugfs_remove(trace->file);
		debugfs_remove(trace->last_file);
		list_del(&trace->node);
		snaptrace_buffer_free(trace->last);
		kfree(trace);
	}
	list_for_each_entry_safe(m, mn, &rproc->mems, node) {
		list_del(&m->node);
		if (rproc->attached && m == &rproc->attached->shared)
			continue;
		if (m < rproc->layout || m >= rproc->layout + SNAPTRACE_RPROC_MAX_REGIONS) {
			if (!m->borrowed)
				vfree(m->va);
			kfree(m);
		}
	}
	INIT_LIST_HEAD(&rproc->mems);
	rproc->nr_mems = 0;
	rproc->num_traces = 0;
	rproc->traces_len = 0;
	rproc->vdevs = 0;
	kfree(rproc->table);
	rproc->table = NULL;
	rproc->table_sz = 0;
}

static void st_mems_add_layout(struct snaptrace_rproc *rproc)
{
	int i;

	for (i = 0; i < rproc->nr_layout; i++) {
		memset(rproc->layout[i].va, 0, rproc->layout[i].len);
		list_add_tail(&rproc->layout[i].node, &rproc->mems);
	}
}

/* Every segment is checked before any is copied: no half-loaded remote. */
static int st_load(struct snaptrace_rproc *rproc, const struct firmware *fw)
{
	int ret = snaptrace_elf_walk_segments(rproc->dev, fw->data, fw->size,
					      st_check_segment, rproc);

	return ret ? ret : snaptrace_elf_walk_segments(rproc->dev, fw->data,
						       fw->size, st_load_segment,
						       rproc);
}

/* ------------------------------------------------------------------ */
/* The simulated core */

/*
 * Append one log line to a trace buffer, as the firmware would: the buffer
 * is written from the start; a line that does not fit before the last byte
 * starts the buffer over from offset 0; a NUL always follows the last line,
 * so a reader sees the lines since the last wrap.
 */
static void st_core_log(struct snaptrace_rproc *rproc,
			struct snaptrace_rproc_trace *trace, u32 *cursor)
{
	char line[96];
	u64 ns = ktime_get_mono_fast_ns();
	u32 rem;
	u64 s = div_u64_rem(ns, NSEC_PER_SEC, &rem);
	char *va = snaptrace_rproc_da_to_va(rproc, trace->da, trace->len, NULL);
	int n = scnprintf(line, sizeof(line), "[%08u] %llu.%06u %s: hello from the remote\n",
			  rproc->seq, s, rem / (u32)NSEC_PER_USEC, rproc->name);

	if (!va || trace->len < 2)
		return;
	n = min_t(int, n, trace->len - 1);
	if (*cursor + n + 1 > trace->len)
		*cursor = 0;
	memcpy(va + *cursor, line, n);
	*cursor += n;
	va[*cursor] = '\0';
}

static enum hrtimer_restart st_core_tick(struct hrtimer *t)
{
	struct snaptrace_rproc *rproc = container_of(t, struct snaptrace_rproc, core);
	struct snaptrace_rproc_trace *trace;
	bool running;

	raw_spin_lock(&rproc->core_lock);
	running = rproc->core_running;
	if (running) {
		list_for_each_entry(trace, &rproc->traces, node)
			st_core_log(rproc, trace, &trace->cursor);
		rproc->seq++;
	}
	raw_spin_unlock(&rproc->core_lock);
	if (!running)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(ST_RPROC_TICK_NS));
	return HRTIMER_RESTART;
}

static void st_core_start(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace;
	unsigned long flags;

	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	/*
	 * The firmware logs as it boots, before it can crash: a crash right
	 * after a (re)start captures that line rather than an empty buffer
	 * over the last crash's copy.
	 */
	list_for_each_entry(trace, &rproc->traces, node) {
		trace->cursor = 0;
		st_core_log(rproc, trace, &trace->cursor);
	}
	rproc->seq++;
	rproc->core_running = true;
	WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_RUNNING);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	hrtimer_start(&rproc->core, 0, HRTIMER_MODE_REL_HARD);
}

/* ------------------------------------------------------------------ */
/* Life cycle */

static int st_attach(struct snaptrace_rproc *rproc);

/**
 * snaptrace_rproc_start() - boot a remote with its firmware
 * @rproc: the remote
 *
 * Loads the firmware through the firmware loader, finds and copies its
 * resource table, handles its resources (memory first, then traces and
 * vdevs), loads its segments and starts the simulated core. On any error
 * everything is given back. Mirrors rproc_boot()/rproc_fw_boot().
 * A remote made by snaptrace_rproc_create_attached() is attached to
 * instead, as snaptrace_rproc_attach_image() describes, and its segments
 * are not loaded.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EBUSY if not offline; -EINVAL for no firmware name or a bad
 * image; -ENOENT for a missing file or no resource table; -ENOMEM.
 */
int snaptrace_rproc_start(struct snaptrace_rproc *rproc)
{
	const struct firmware *fw;
	size_t off, sz;
	int ret;

	if (rproc->attached)
		return st_attach(rproc);
	mutex_lock(&rproc->lock);
	if (rproc->deleting) {
		ret = -ENODEV;
		goto unlock;
	}
	if (rproc->state != SNAPTRACE_RPROC_OFFLINE) {
		ret = -EBUSY;
		goto unlock;
	}
	if (!rproc->firmware[0]) {
		dev_err(rproc->dev, "no firmware set: write a file name to 'firmware'\n");
		ret = -EINVAL;
		goto unlock;
	}
	/* No user-helper fallback: a missing file fails at once. */
	ret = request_firmware_direct(&fw, rproc->firmware, rproc->dev);
	if (ret) {
		dev_err(rproc->dev, "cannot load firmware %s: %d\n", rproc->firmware, ret);
		goto unlock;
	}
	ret = snaptrace_elf_find_rsc_table(rproc->dev, fw->data, fw->size, &off, &sz);
	if (ret) {
		if (ret == -ENOENT)
			dev_err(rproc->dev, "firmware %s has no .resource_table section\n",
				rproc->firmware);
		goto release;
	}
	if (sz > SNAPTRACE_RSC_TABLE_MAX) {
		dev_err(rproc->dev, "resource table of %zu bytes: more than %u\n",
			sz, SNAPTRACE_RSC_TABLE_MAX);
		ret = -EINVAL;
		goto release;
	}
	rproc->table = kmemdup(fw->data + off, sz, GFP_KERNEL);
	if (!rproc->table) {
		ret = -ENOMEM;
		goto release;
	}
	rproc->table_sz = sz;

	st_mems_add_layout(rproc);
	ret = snaptrace_rsc_walk(rproc->dev, rproc->table, sz,
				 st_handle_mem, rproc);
	if (!ret)
		ret = snaptrace_rsc_walk(rproc->dev, rproc->table, sz,
					 st_handle_other, rproc);
	if (!ret)
		ret = st_load(rproc, fw);
	if (ret)
		goto free;
	rproc->fw_size = fw->size;
	rproc->fw_crc = crc32_le(~0, fw->data, fw->size);
	release_firmware(fw);
	st_core_start(rproc);
	dev_info(rproc->dev, "started %s: %d trace(s)\n", rproc->firmware,
		 rproc->num_traces);
	mutex_unlock(&rproc->lock);
	return 0;

free:
	st_resources_free(rproc);
release:
	release_firmware(fw);
unlock:
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_start);

/* Stop the core; the remote is offline afterwards. Lock held. */
static void st_stop_locked(struct snaptrace_rproc *rproc)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	rproc->core_running = false;
	WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_OFFLINE);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	hrtimer_cancel(&rproc->core);
	irq_work_sync(&rproc->crash_work);
	st_resources_free(rproc);
}

/**
 * snaptrace_rproc_stop() - shut a remote down
 * @rproc: the remote
 *
 * Stops the core and frees every resource of the firmware, the trace files
 * and their last copies included. Mirrors rproc_shutdown().
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EINVAL if it is already offline.
 */
int snaptrace_rproc_stop(struct snaptrace_rproc *rproc)
{
	int ret = 0;

	mutex_lock(&rproc->lock);
	if (rproc->state == SNAPTRACE_RPROC_OFFLINE)
		ret = -EINVAL;
	else
		st_stop_locked(rproc);
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_stop);

/* Copy one trace buffer into its last copy: the capture, atomic context. */
static void st_capture(struct snaptrace_rproc *rproc,
		       struct snaptrace_rproc_trace *trace)
{
	struct snaptrace_reservation res;
	bool is_iomem = false;
	const u8 *va = snaptrace_rproc_da_to_va(rproc, trace->da, trace->len,
						&is_iomem);
	u32 off, n;
	void *p;

	if (!va)
		return;
	for (off = 0; off < trace->len; off += n) {
		n = min_t(u32, trace->len - off, SNAPTRACE_MAX_PAYLOAD);
		p = snaptrace_reserve(trace->last, n, &res);
		if (!p)
			return;
		if (is_iomem)
			memcpy_fromio(p, (const void __iomem __force *)va + off, n);
		else
			memcpy(p, va + off, n);
		snaptrace_commit(trace->last, &res);
	}
	/* The spare was allocated when the trace was handled: no -ENOENT. */
	if (!snaptrace_snapshot(trace->last))
		WRITE_ONCE(trace->has_last, true);
}

/**
 * snaptrace_rproc_report_crash() - report that a remote crashed
 * @rproc: the remote
 * @type: what happened
 *
 * Stops the simulated core and captures every trace buffer into its
 * traceN_last copy, then queues recovery if it is enabled. Captures use
 * memory allocated when the trace was handled: nothing is allocated and
 * nothing sleeps. A report for a remote that is not running is ignored.
 * Mirrors rproc_report_crash(), which only queues work.
 *
 * Context: any: hardirq (a watchdog interrupt), softirq, task, IRQs off.
 * Not NMI (the core lock is a raw spinlock).
 */
void snaptrace_rproc_report_crash(struct snaptrace_rproc *rproc,
				  enum snaptrace_rproc_crash_type type)
{
	struct snaptrace_rproc_trace *trace;
	unsigned long flags;

	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	if (rproc->state != SNAPTRACE_RPROC_RUNNING) {
		raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
		return;
	}
	rproc->core_running = false;
	rproc->crash_type = type;
	WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_CRASHED);
	list_for_each_entry(trace, &rproc->traces, node)
		st_capture(rproc, trace);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);

	dev_err(rproc->dev, "crashed (type %d); traces captured\n", type);
	if (READ_ONCE(rproc->recovery))
		schedule_work(&rproc->recovery_work);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_report_crash);

/**
 * snaptrace_rproc_read_last() - the last trace captured, as text
 * @trace: the trace
 * @buf: where to copy it
 * @size: size of @buf in bytes
 *
 * Context: process context, may sleep.
 * Return: bytes copied up to the first NUL (as traceN shows the live
 * trace), 0 if nothing was captured.
 */
ssize_t snaptrace_rproc_read_last(struct snaptrace_rproc_trace *trace,
				  char *buf, size_t size)
{
	struct snaptrace_record *rec;
	struct snaptrace_iter *iter;
	size_t len, n;
	int ret;

	if (!READ_ONCE(trace->has_last))
		return 0;
	rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	do {	/* a crash replaced the copy while we read it: read the new one */
		iter = snaptrace_iter_start(trace->last, SNAPTRACE_SNAPSHOT,
					    SNAPTRACE_ALL_CPUS);
		if (IS_ERR(iter)) {
			kfree(rec);
			return PTR_ERR(iter);
		}
		len = 0;
		while (len < size && !(ret = snaptrace_iter_next(iter, rec))) {
			n = min_t(size_t, rec->len, size - len);
			memcpy(buf + len, rec->data, n);
			len += n;
		}
		snaptrace_iter_stop(iter);
	} while (len < size && ret == -ESTALE);
	kfree(rec);
	return strnlen(buf, len);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_read_last);

static void st_crash_work(struct irq_work *work)
{
	struct snaptrace_rproc *rproc = container_of(work, struct snaptrace_rproc,
						     crash_work);

	snaptrace_rproc_report_crash(rproc, READ_ONCE(rproc->crash_type));
}

static void st_attach_recovery(struct snaptrace_rproc *rproc);

/* Recovery: keep the resources, reload the segments, restart the core. */
static void st_recovery_work(struct work_struct *work)
{
	struct snaptrace_rproc *rproc = container_of(work, struct snaptrace_rproc,
						     recovery_work);
	const struct firmware *fw;
	int ret;

	if (rproc->attached) {
		st_attach_recovery(rproc);
		return;
	}
	mutex_lock(&rproc->lock);
	if (rproc->state != SNAPTRACE_RPROC_CRASHED || rproc->deleting)
		goto unlock;
	hrtimer_cancel(&rproc->core);
	ret = request_firmware_direct(&fw, rproc->firmware, rproc->dev);
	if (ret) {
		dev_err(rproc->dev, "recovery: cannot load firmware %s: %d\n",
			rproc->firmware, ret);
		goto unlock;
	}
	/* Its resources were set up for the image started: reload only that. */
	if (fw->size != rproc->fw_size ||
	    crc32_le(~0, fw->data, fw->size) != rproc->fw_crc) {
		dev_err(rproc->dev, "recovery: %s changed since the remote started; stop and start it\n",
			rproc->firmware);
		release_firmware(fw);
		goto unlock;
	}
	ret = st_load(rproc, fw);
	release_firmware(fw);
	if (ret) {
		dev_err(rproc->dev, "recovery: cannot load segments: %d\n", ret);
		goto unlock;
	}
	st_core_start(rproc);
	dev_info(rproc->dev, "recovered\n");
unlock:
	mutex_unlock(&rproc->lock);
}

/**
 * snaptrace_rproc_recover() - recover a crashed remote now
 * @rproc: the remote
 *
 * Mirrors rproc_trigger_recovery().
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if it has not crashed.
 */
int snaptrace_rproc_recover(struct snaptrace_rproc *rproc)
{
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_CRASHED)
		return -EINVAL;
	schedule_work(&rproc->recovery_work);
	flush_work(&rproc->recovery_work);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_recover);

/**
 * snaptrace_rproc_set_firmware() - choose the firmware file
 * @rproc: the remote
 * @name: file name under /lib/firmware: printable, no "..", not absolute
 *
 * Mirrors rproc_set_firmware().
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EBUSY unless offline; -EINVAL for a bad name.
 */
int snaptrace_rproc_set_firmware(struct snaptrace_rproc *rproc, const char *name)
{
	size_t len = strnlen(name, SNAPTRACE_RPROC_FW_NAME_MAX);
	size_t i;
	int ret = 0;

	if (!len || len == SNAPTRACE_RPROC_FW_NAME_MAX || name[0] == '/' ||
	    strstr(name, "..")) {
		pr_err("remoteproc%d: bad firmware name (empty, too long, absolute or with \"..\")\n",
		       rproc->index);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (name[i] <= ' ' || name[i] > '~') {
			pr_err("remoteproc%d: bad firmware name: byte %zu is not printable\n",
			       rproc->index, i);
			return -EINVAL;
		}
	}
	mutex_lock(&rproc->lock);
	if (rproc->state != SNAPTRACE_RPROC_OFFLINE)
		ret = -EBUSY;
	else
		strscpy(rproc->firmware, name, sizeof(rproc->firmware));
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_set_firmware);

/* A remote with nothing yet: its locks, lists, works and timer. */
static struct snaptrace_rproc *st_rproc_alloc(int index)
{
	struct snaptrace_rproc *rproc;

	rproc = kzalloc(sizeof(*rproc), GFP_KERNEL);
	if (!rproc)
		return NULL;
	rproc->index = index;
	snprintf(rproc->name, sizeof(rproc->name), "snaptrace-rproc%d", index);
	mutex_init(&rproc->lock);
	raw_spin_lock_init(&rproc->core_lock);
	INIT_LIST_HEAD(&rproc->mems);
	INIT_LIST_HEAD(&rproc->traces);
	rproc->recovery = true;
	rproc->crash_work = IRQ_WORK_INIT_HARD(st_crash_work);
	INIT_WORK(&rproc->recovery_work, st_recovery_work);
	hrtimer_init(&rproc->core, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	rproc->core.function = st_core_tick;
	return rproc;
}

/**
 * snaptrace_rproc_create() - create a simulated remote processor
 * @index: N of remoteprocN
 * @layout: its platform memory: "default", "stm32mp157", "zynqmp-r5", or
 *	regions as name:da:size joined by '+'
 *
 * Registers a platform device "snaptrace-rproc.N" for it and allocates its
 * platform memory. The caller creates its debugfs files.
 *
 * Context: process context, may sleep.
 * Return: the remote, or ERR_PTR(-EINVAL) for a bad layout, -ENOMEM, or
 * the platform device's registration error.
 */
struct snaptrace_rproc *snaptrace_rproc_create(int index, const char *layout)
{
	struct snaptrace_rproc *rproc;
	int ret;

	rproc = st_rproc_alloc(index);
	if (!rproc)
		return ERR_PTR(-ENOMEM);

	ret = st_parse_layout(rproc, layout);
	/* The layout regions only join the memory list while running. */
	INIT_LIST_HEAD(&rproc->mems);
	if (ret)
		goto free;

	rproc->pdev = platform_device_register_simple("snaptrace-rproc", index,
						      NULL, 0);
	if (IS_ERR(rproc->pdev)) {
		ret = PTR_ERR(rproc->pdev);
		goto free;
	}
	rproc->dev = &rproc->pdev->dev;
	return rproc;

free:
	while (rproc->nr_layout--)
		vfree(rproc->layout[rproc->nr_layout].va);
	kfree(rproc);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_create);

/**
 * snaptrace_rproc_destroy() - stop and free a remote
 * @rproc: the remote; NULL or an ERR_PTR() is ignored
 *
 * Stops it (removing its trace files), removes its debugfs directory
 * (waiting for readers inside), then frees it.
 *
 * Context: process context, may sleep.
 */
void snaptrace_rproc_destroy(struct snaptrace_rproc *rproc)
{
	int i;

	if (IS_ERR_OR_NULL(rproc))
		return;
	mutex_lock(&rproc->lock);
	rproc->deleting = true;	/* no start or recovery from now on */
	if (rproc->state != SNAPTRACE_RPROC_OFFLINE)
		st_stop_locked(rproc);
	mutex_unlock(&rproc->lock);
	cancel_work_sync(&rproc->recovery_work);
	irq_work_sync(&rproc->crash_work);
	debugfs_remove(rproc->dir);
	platform_device_unregister(rproc->pdev);
	for (i = 0; i < rproc->nr_layout; i++)
		vfree(rproc->layout[i].va);
	mutex_destroy(&rproc->lock);
	kfree(rproc->attached);
	kfree(rproc);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_destroy);

/* ------------------------------------------------------------------ */
/* Remotes that boot on their own: the attach path */

/*
 * A carveout or devmem of an attached remote: the remote already runs from
 * it, so it must lie wholly in the memory it shares with the host, where it
 * is recorded as a view; nothing is allocated (as upstream matches such an
 * entry with a carveout the platform registered).
 */
static int st_add_view(struct snaptrace_rproc *rproc, const char *kind, u32 da,
		       u32 len, const u8 *name, int offset)
{
	struct snaptrace_rproc_mem *m;
	bool is_iomem = false;
	void *va = snaptrace_rproc_da_to_va(rproc, da, len, &is_iomem);

	if (!va) {
		dev_err(rproc->dev, "%s at offset %d: da 0x%x len 0x%x is not inside the memory shared with the remote\n",
			kind, offset, da, len);
		return -EINVAL;
	}
	if (rproc->nr_mems == SNAPTRACE_RPROC_MAX_MEMS) {
		dev_err(rproc->dev, "%s at offset %d: more than %d carveouts and devmems\n",
			kind, offset, SNAPTRACE_RPROC_MAX_MEMS);
		return -EINVAL;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	st_print_name(m->name, name);
	m->da = da;
	m->len = len;
	m->va = va;
	m->kind = kind;
	m->is_iomem = is_iomem;
	m->borrowed = true;
	list_add_tail(&m->node, &rproc->mems);
	rproc->nr_mems++;
	return 0;
}

/* Copy @len bytes at @da, which the remote may be writing, into @dst. */
static int st_read_remote(struct snaptrace_rproc *rproc, u64 da, void *dst,
			  size_t len)
{
	bool is_iomem = false;
	const void *va = snaptrace_rproc_da_to_va(rproc, da, len, &is_iomem);

	if (!va)
		return -EINVAL;
	if (is_iomem)
		memcpy_fromio(dst, (const void __iomem __force *)va, len);
	else
		memcpy(dst, va, len);
	return 0;
}

/* Which loadable segment holds the image's resource table, and so its da. */
struct st_table_find {
	const u8 *table;
	size_t sz;
	u64 da;
	bool found;
};

static int st_find_table_segment(void *priv, u64 da, const u8 *data,
				 u64 filesz, u64 memsz)
{
	struct st_table_find *f = priv;
	u64 off;

	if (f->found || f->table < data)
		return 0;
	off = f->table - data;
	if (off > filesz || f->sz > filesz - off ||
	    check_add_overflow(da, off, &f->da))
		return 0;
	f->found = true;
	return 0;
}

/* Is the table at the remote's table_da still @want (@sz bytes)? */
static int st_loaded_table_is(struct snaptrace_rproc *rproc, const void *want,
			      size_t sz)
{
	u32 da = rproc->attached->table_da;
	void *live = kmalloc(sz, GFP_KERNEL);
	int ret;

	if (!live)
		return -ENOMEM;
	ret = st_read_remote(rproc, da, live, sz);
	if (ret)
		dev_err(rproc->dev, "resource table at da 0x%x (%zu bytes) is not inside the memory shared with the remote\n",
			da, sz);
	else if (memcmp(live, want, sz))
		ret = -EINVAL;
	kfree(live);
	return ret;
}

static void st_watchdog_start(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->attached;
	unsigned long flags;

	/* The timer is not running: the remote was offline. */
	a->seen = SNAPTRACE_RPROC_OFFLINE;
	WRITE_ONCE(a->resumed, false);
	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	rproc->core_running = true;
	WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_RUNNING);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	hrtimer_start(&rproc->core, a->period, HRTIMER_MODE_REL_HARD);
}

static int st_attach_locked(struct snaptrace_rproc *rproc, const u8 *elf,
			    size_t size)
{
	struct snaptrace_rproc_attached *a = rproc->attached;
	struct st_table_find f = { };
	size_t off, sz;
	int ret;

	ret = snaptrace_elf_find_rsc_table(rproc->dev, elf, size, &off, &sz);
	if (ret) {
		if (ret == -ENOENT)
			dev_err(rproc->dev, "firmware %s has no .resource_table section\n",
				rproc->firmware);
		return ret;
	}
	if (sz > SNAPTRACE_RSC_TABLE_MAX) {
		dev_err(rproc->dev, "resource table of %zu bytes: more than %u\n",
			sz, SNAPTRACE_RSC_TABLE_MAX);
		return -EINVAL;
	}
	/* Where the remote has it: the da of its place in a PT_LOAD. */
	f.table = elf + off;
	f.sz = sz;
	ret = snaptrace_elf_walk_segments(rproc->dev, elf, size,
					  st_find_table_segment, &f);
	if (ret)
		return ret;
	if (!f.found || f.da > U32_MAX) {
		dev_err(rproc->dev, "the resource table of %s is in no loadable segment below 4 GiB: the remote cannot have it in memory\n",
			rproc->firmware);
		return -EINVAL;
	}
	a->table_da = f.da;

	list_add_tail(&a->shared.node, &rproc->mems);
	/* The cached table: a private copy of the loaded one, checked. */
	rproc->table = kmalloc(sz, GFP_KERNEL);
	if (!rproc->table) {
		ret = -ENOMEM;
		goto free;
	}
	rproc->table_sz = sz;
	ret = st_read_remote(rproc, a->table_da, rproc->table, sz);
	if (ret) {
		dev_err(rproc->dev, "resource table at da 0x%x (%zu bytes) is not inside the memory shared with the remote\n",
			a->table_da, sz);
		goto free;
	}
	if (memcmp(rproc->table, elf + off, sz)) {
		dev_err(rproc->dev, "the resource table at da 0x%x is not the one of %s: is another image running?\n",
			a->table_da, rproc->firmware);
		ret = -EINVAL;
		goto free;
	}
	ret = snaptrace_rsc_walk(rproc->dev, rproc->table, sz, st_handle_mem, rproc);
	if (!ret)
		ret = snaptrace_rsc_walk(rproc->dev, rproc->table, sz,
					 st_handle_other, rproc);
	if (ret)
		goto free;
	st_watchdog_start(rproc);
	dev_info(rproc->dev, "attached to %s: resource table at da 0x%x, %d trace(s)\n",
		 rproc->firmware, a->table_da, rproc->num_traces);
	return 0;

free:
	st_resources_free(rproc);
	return ret;
}

/**
 * snaptrace_rproc_attach_image() - attach to a remote that booted this image
 * @rproc: a remote made by snaptrace_rproc_create_attached(), offline
 * @elf: the image the remote runs (ELF32 or ELF64), as the firmware loader
 *	gives it
 * @size: its size in bytes
 *
 * Finds the image's resource table and the device address where the
 * remote has it loaded (from the PT_LOAD segment holding it, as upstream's
 * rproc_elf_find_loaded_rsc_table()), copies the loaded table out of the
 * shared memory, refuses it unless it is the image's, checks it and handles
 * its resources: carveouts and devmems must lie inside the shared memory
 * (views, nothing allocated), traces too. No segment is loaded: the remote
 * loaded itself. Then the remote is running and the heartbeat watchdog
 * starts. Every device address and length read from the image or the
 * shared memory is checked against the shared memory, without overflow.
 * Mirrors rproc_attach() with get_loaded_rsc_table().
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EBUSY unless offline; -ENODEV while destroyed or for a
 * simulated remote; -ENOENT for no resource table; -EINVAL for a bad
 * image or table, a table not loaded in the shared memory or not the
 * image's, or a resource outside the shared memory; -ENOMEM.
 */
int snaptrace_rproc_attach_image(struct snaptrace_rproc *rproc, const u8 *elf,
				 size_t size)
{
	int ret;

	if (!rproc->attached)
		return -ENODEV;
	mutex_lock(&rproc->lock);
	if (rproc->deleting)
		ret = -ENODEV;
	else if (rproc->state != SNAPTRACE_RPROC_OFFLINE)
		ret = -EBUSY;
	else
		ret = st_attach_locked(rproc, elf, size);
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_attach_image);

/* "start" of an attached remote: attach, with the image its firmware names. */
static int st_attach(struct snaptrace_rproc *rproc)
{
	const struct firmware *fw;
	int ret;

	mutex_lock(&rproc->lock);
	if (rproc->deleting) {
		ret = -ENODEV;
		goto unlock;
	}
	if (rproc->state != SNAPTRACE_RPROC_OFFLINE) {
		ret = -EBUSY;
		goto unlock;
	}
	if (!rproc->firmware[0]) {
		dev_err(rproc->dev, "no firmware set: write the running image's file name to 'firmware'\n");
		ret = -EINVAL;
		goto unlock;
	}
	ret = request_firmware_direct(&fw, rproc->firmware, rproc->dev);
	if (ret) {
		dev_err(rproc->dev, "cannot load firmware %s: %d\n", rproc->firmware, ret);
		goto unlock;
	}
	ret = st_attach_locked(rproc, fw->data, fw->size);
	release_firmware(fw);
unlock:
	mutex_unlock(&rproc->lock);
	return ret;
}

/*
 * The heartbeat watchdog of an attached remote, in hardirq context (a
 * watchdog interrupt on real hardware). Running: a heartbeat unchanged for
 * the timeout is a hung remote: report the crash here, which captures the
 * traces without sleeping. Crashed: once the heartbeat moves again, its
 * platform restarted it: queue recovery (re-attach). Offline: stop.
 */
static enum hrtimer_restart st_watchdog_tick(struct hrtimer *t)
{
	struct snaptrace_rproc *rproc = container_of(t, struct snaptrace_rproc, core);
	struct snaptrace_rproc_attached *a = rproc->attached;
	int state = READ_ONCE(rproc->state);
	int seen = a->seen;
	ktime_t now;
	u32 hb;

	if (state == SNAPTRACE_RPROC_OFFLINE)
		return HRTIMER_NORESTART;
	hb = a->ops->heartbeat(a->priv);
	now = ktime_get();
	a->seen = state;
	if (state == SNAPTRACE_RPROC_RUNNING) {
		if (seen != state || hb != a->hb) {
			a->hb = hb;
			a->at = now;
			WRITE_ONCE(a->resumed, false);
		} else if (ktime_sub(now, a->at) >= a->timeout) {
			dev_err(rproc->dev, "watchdog: heartbeat stuck at %u for %lld ms\n",
				hb, ktime_ms_delta(now, a->at));
			snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
		}
	} else if (seen != state) {
		a->hb = hb;	/* crashed: wait for it to move */
	} else if (hb != a->hb && !READ_ONCE(a->resumed)) {
		WRITE_ONCE(a->resumed, true);
		dev_info(rproc->dev, "watchdog: heartbeat resumed\n");
		if (READ_ONCE(rproc->recovery))
			schedule_work(&rproc->recovery_work);
	}
	hrtimer_forward_now(t, a->period);
	return HRTIMER_RESTART;
}

/*
 * Recovery of an attached remote: the host cannot restart it, its platform
 * does; once the heartbeat has resumed, check that the same table is
 * loaded and attach again (keeping the resources, as upstream's attach
 * recovery). Until then it stays crashed.
 */
static void st_attach_recovery(struct snaptrace_rproc *rproc)
{
	unsigned long flags;
	int ret;

	mutex_lock(&rproc->lock);
	if (rproc->state != SNAPTRACE_RPROC_CRASHED || rproc->deleting)
		goto unlock;
	if (!READ_ONCE(rproc->attached->resumed)) {
		dev_info(rproc->dev, "recovery: waiting for the heartbeat to resume (the platform restarts the remote)\n");
		goto unlock;
	}
	ret = st_loaded_table_is(rproc, rproc->table, rproc->table_sz);
	if (ret) {
		dev_err(rproc->dev, "recovery: the remote's resource table changed (%d): stop and start it\n",
			ret);
		goto unlock;
	}
	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	rproc->core_running = true;
	WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_RUNNING);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	dev_info(rproc->dev, "recovered: attached again\n");
unlock:
	mutex_unlock(&rproc->lock);
}

/* The watchdog samples the heartbeat this many times per timeout. */
#define ST_WATCHDOG_SAMPLES	8
#define ST_WATCHDOG_MAX_MS	600000U

/**
 * snaptrace_rproc_create_attached() - a remote that boots on its own
 * @index: N of remoteprocN
 * @name: its name (debugfs "name"), cut to 31 bytes
 * @dev: its device (messages, the firmware loader): the platform's, such
 *	as the ivshmem PCI device; it must outlive the remote
 * @shared: the memory it shares with the host: @shared->da, ->len, ->va
 *	(mapped by the caller for the remote's whole life), ->is_iomem and
 *	->name; copied
 * @ops: what the platform provides: the heartbeat
 * @priv: passed to @ops
 * @watchdog_ms: a heartbeat unchanged this long (1..600000 ms) is a crash
 *
 * Such a remote is attached to rather than booted (upstream's
 * RPROC_DETACHED at registration): "start" reads the image its firmware
 * names only to find the resource table, loads no segment, and finds the
 * table loaded in @shared (snaptrace_rproc_attach_image()). Its states:
 * offline (not attached, the remote may run all the same), running
 * (attached, heartbeat moving), crashed (the watchdog found the heartbeat
 * stuck, or a crash was reported; the traces were captured); crashed goes
 * back to running once the heartbeat moves again and the same table is
 * loaded, with recovery enabled or on "recover". "stop" only detaches:
 * the host cannot stop this remote. The caller creates its debugfs files.
 *
 * Context: process context, may sleep.
 * Return: the remote, or ERR_PTR(-EINVAL) for empty shared memory or
 * memory past 4 GiB, no heartbeat or a watchdog_ms out of range;
 * ERR_PTR(-ENOMEM).
 */
struct snaptrace_rproc *
snaptrace_rproc_create_attached(int index, const char *name, struct device *dev,
				const struct snaptrace_rproc_mem *shared,
				const struct snaptrace_rproc_attach_ops *ops,
				void *priv, unsigned int watchdog_ms)
{
	struct snaptrace_rproc_attached *a;
	struct snaptrace_rproc *rproc;

	if (!shared->len || !shared->va || (u64)shared->da + shared->len > BIT_ULL(32) ||
	    !ops || !ops->heartbeat || !watchdog_ms || watchdog_ms > ST_WATCHDOG_MAX_MS) {
		dev_err(dev, "attached remote: shared memory da 0x%x len 0x%x must be mapped, non-empty and below 4 GiB; watchdog %u ms must be 1..%u, with a heartbeat\n",
			shared->da, shared->len, watchdog_ms, ST_WATCHDOG_MAX_MS);
		return ERR_PTR(-EINVAL);
	}
	rproc = st_rproc_alloc(index);
	if (!rproc)
		return ERR_PTR(-ENOMEM);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		mutex_destroy(&rproc->lock);
		kfree(rproc);
		return ERR_PTR(-ENOMEM);
	}
	a->ops = ops;
	a->priv = priv;
	a->shared = *shared;
	a->shared.kind = "region";
	a->shared.borrowed = true;
	a->timeout = ms_to_ktime(watchdog_ms);
	a->period = ms_to_ktime(DIV_ROUND_UP(watchdog_ms, ST_WATCHDOG_SAMPLES));
	strscpy(rproc->name, name, sizeof(rproc->name));
	rproc->dev = dev;
	rproc->attached = a;
	rproc->core.function = st_watchdog_tick;
	return rproc;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_create_attached);
