// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: a remoteproc-style core, on kernels without
 * CONFIG_REMOTEPROC. It knows no platform: each one (rproc_sim.c, the
 * simulated remote; rproc_attach.c, a remote that boots on its own) is
 * behind &struct snaptrace_rproc_ops, as upstream's platform drivers are
 * behind struct rproc_ops.
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
 * core runs, and a heartbeat watchdog reports its crashes; their traces
 * are captured in process context, as the shared memory may be slow I/O
 * memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/crc32.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/firmware.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include <snaptrace/rproc.h>
#include <snaptrace/snaptrace.h>
#include "fw.h"
#include "rproc.h"

/* Where carveouts with SNAPTRACE_FW_RSC_ADDR_ANY are placed. */
#define ST_RPROC_ANY_BASE	0xc0000000U
/* At most this many vdevs per remote. */
#define ST_RPROC_MAX_VDEVS	8

/* Every remote, for snaptrace_rproc_get_by_index(). */
static DEFINE_MUTEX(st_rproc_list_lock);
static LIST_HEAD(st_rproc_list);

/**
 * snaptrace_rproc_state_name() - a state as debugfs "state" shows it
 * @state: an &enum snaptrace_rproc_state
 *
 * Context: any.
 * Return: "offline", "running", "crashed", "attached" or "detached", as
 * upstream's sysfs "state" names them.
 */
const char *snaptrace_rproc_state_name(int state)
{
	switch (state) {
	case SNAPTRACE_RPROC_RUNNING:
		return "running";
	case SNAPTRACE_RPROC_CRASHED:
		return "crashed";
	case SNAPTRACE_RPROC_ATTACHED:
		return "attached";
	case SNAPTRACE_RPROC_DETACHED:
		return "detached";
	default:
		return "offline";
	}
}

/* ------------------------------------------------------------------ */
/* Memory */

/* The one mapping that wholly holds [@da, @da + @len), and @da's offset in it. */
static struct snaptrace_rproc_mem *st_find_mem(struct snaptrace_rproc *rproc,
					       u64 da, size_t len, u32 *off)
{
	struct snaptrace_rproc_mem *m;

	if (!len)
		return NULL;
	list_for_each_entry(m, &rproc->mems, node) {
		if (da < m->da || len > m->len || da - m->da > m->len - len)
			continue;
		*off = da - m->da;
		return m;
	}
	return NULL;
}

/**
 * snaptrace_rproc_da_to_va() - translate a device address to a host address
 * @rproc: the remote
 * @da: device address
 * @len: length in bytes of the range that must be mapped
 * @is_iomem: set to whether the memory is I/O memory (may be NULL)
 *
 * Looks for the platform region, registered carveout, carveout or devmem
 * that wholly contains [@da, @da + @len), without overflow for any @da and
 * @len. Mirrors rproc_da_to_va(), whose arithmetic is int-based; unlike
 * it, I/O memory is not handed out as a plain pointer (upstream returns
 * the __iomem address cast to void *): NULL is returned and *@is_iomem
 * set; read it with snaptrace_rproc_read_da().
 *
 * Context: any; never sleeps. The memory list only changes while the
 * remote is offline (or being booted), under its lock: call it while the
 * remote is running, or with its lock held.
 * Return: the host address, or NULL if no single mapping holds the range
 * (or @len is 0, or the remote is offline), or if it is I/O memory (then
 * *@is_iomem is true).
 */
void *snaptrace_rproc_da_to_va(struct snaptrace_rproc *rproc, u64 da,
			       size_t len, bool *is_iomem)
{
	struct snaptrace_rproc_mem *m;
	u32 off;

	m = st_find_mem(rproc, da, len, &off);
	if (!m)
		return NULL;
	if (is_iomem)
		*is_iomem = m->is_iomem;
	return m->is_iomem ? NULL : m->va + off;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_da_to_va);

/**
 * snaptrace_rproc_read_da() - copy memory of the remote, I/O memory or not
 * @rproc: the remote
 * @da: device address
 * @dst: where to copy, @len bytes of normal memory
 * @len: bytes to copy
 *
 * Copies [@da, @da + @len), which one mapping must wholly hold, with
 * memcpy_fromio() from I/O memory and memcpy() otherwise. The remote may
 * be writing it: the copy is of no single instant. No upstream function:
 * upstream's callers test rproc_da_to_va()'s is_iomem and pick
 * memcpy_fromio() themselves (as rproc_copy_segment() does); since
 * snaptrace_rproc_da_to_va() returns NULL for I/O memory, this is how
 * snaptrace's callers read it.
 *
 * Context: any; never sleeps, but takes time in proportion to @len (keep
 * it short with interrupts off). As snaptrace_rproc_da_to_va() for the
 * memory list.
 * Return: 0; -EINVAL if no single mapping holds the range (or @len is 0).
 */
int snaptrace_rproc_read_da(struct snaptrace_rproc *rproc, u64 da, void *dst,
			    size_t len)
{
	struct snaptrace_rproc_mem *m;
	u32 off;

	m = st_find_mem(rproc, da, len, &off);
	if (!m)
		return -EINVAL;
	if (m->is_iomem)
		memcpy_fromio(dst, m->io + off, len);
	else
		memcpy(dst, m->va + off, len);
	return 0;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_read_da);

/**
 * snaptrace_rproc_mem_overlaps() - is a range already mapped?
 * @rproc: the remote
 * @da: device address
 * @len: length in bytes
 *
 * Context: any; the remote's lock held, or the remote not yet shared.
 * Return: true if [@da, @da + @len) overlaps any mapping of the remote.
 */
bool snaptrace_rproc_mem_overlaps(struct snaptrace_rproc *rproc, u32 da, u32 len)
{
	struct snaptrace_rproc_mem *m;

	list_for_each_entry(m, &rproc->mems, node)
		if ((u64)da < (u64)m->da + m->len && (u64)m->da < (u64)da + len)
			return true;
	return false;
}

/**
 * snaptrace_rproc_mem_entry_init() - allocate and fill in a memory entry
 * @dev: the device the memory belongs to, for messages (may be NULL)
 * @va: host address of the memory, or NULL if @alloc provides it at boot
 * @len: length in bytes
 * @da: device address the remote sees it at
 * @alloc: called at each boot before the memory is used (may be NULL); it
 *	may set &snaptrace_rproc_mem.va (or .io and .is_iomem), and returns
 *	0 or -E*
 * @release: called at each shutdown after @alloc succeeded (may be NULL)
 * @name: printf format of its name; a firmware carveout of the same name
 *	is placed in it (at most %SNAPTRACE_RSC_NAME_LEN bytes are kept)
 * @...: arguments for @name
 *
 * The entry is for snaptrace_rproc_add_carveout(); until it is added, the
 * caller frees it with kfree(). Mirrors rproc_mem_entry_init() (no dma
 * address: the simulated remote's memory is host memory).
 *
 * Context: process context, may sleep (GFP_KERNEL).
 * Return: the entry, or NULL if out of memory.
 */
struct snaptrace_rproc_mem *
snaptrace_rproc_mem_entry_init(struct device *dev, void *va, size_t len, u32 da,
			       snaptrace_rproc_mem_fn alloc,
			       snaptrace_rproc_mem_fn release,
			       const char *name, ...)
{
	struct snaptrace_rproc_mem *mem;
	va_list args;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return NULL;
	INIT_LIST_HEAD(&mem->node);
	INIT_LIST_HEAD(&mem->reg_node);
	mem->va = va;
	/* A length past 32 bits is refused by snaptrace_rproc_add_carveout(). */
	mem->len = len > U32_MAX ? 0 : len;
	mem->da = da;
	mem->alloc = alloc;
	mem->release = release;
	mem->rsc_offset = -1;
	mem->kind = "carveout";
	va_start(args, name);
	vsnprintf(mem->name, sizeof(mem->name), name, args);
	va_end(args);
	return mem;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_mem_entry_init);

/**
 * snaptrace_rproc_check_carveout_da() - does a request fit a carveout?
 * @rproc: the remote (for messages)
 * @mem: a registered carveout
 * @da: device address asked for, or %SNAPTRACE_FW_RSC_ADDR_ANY
 * @len: length in bytes asked for
 *
 * The request fits if @len is at most the carveout's length and, when
 * both @da and the carveout's address are fixed, [@da, @da + @len) lies
 * inside the carveout. A fixed @da against a carveout placed anywhere does
 * not fit. Mirrors rproc_check_carveout_da(), which computes the distance
 * from the carveout as an int; here it is 64-bit, with the same answers
 * for every carveout under 2 GiB.
 *
 * Context: any; never sleeps.
 * Return: 0 if it fits; -EINVAL if not (rproc_handle_carveout() turns that
 * into -ENOMEM, as snaptrace's boot does).
 */
int snaptrace_rproc_check_carveout_da(struct snaptrace_rproc *rproc,
				      const struct snaptrace_rproc_mem *mem,
				      u32 da, u32 len)
{
	struct device *dev = rproc ? rproc->dev : NULL;

	if (len > mem->len) {
		dev_err(dev, "registered carveout %s (len 0x%x) doesn't fit len request 0x%x\n",
			mem->name, mem->len, len);
		return -EINVAL;
	}
	if (da == (u32)SNAPTRACE_FW_RSC_ADDR_ANY)
		return 0;
	if (mem->da == (u32)SNAPTRACE_FW_RSC_ADDR_ANY) {
		dev_err(dev, "registered carveout %s has no fixed address: da 0x%x cannot match\n",
			mem->name, da);
		return -EINVAL;
	}
	if (da < mem->da) {
		dev_err(dev, "registered carveout %s at 0x%x doesn't fit da request 0x%x\n",
			mem->name, mem->da, da);
		return -EINVAL;
	}
	if ((u64)(da - mem->da) + len > mem->len) {
		dev_err(dev, "registered carveout %s (da 0x%x len 0x%x) doesn't fit len request 0x%x at 0x%x\n",
			mem->name, mem->da, mem->len, len, da);
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_check_carveout_da);

static bool st_ranges_overlap(u32 a, u32 alen, u32 b, u32 blen)
{
	return (u64)a < (u64)b + blen && (u64)b < (u64)a + alen;
}

/*
 * A platform region (layout or registered carveout) named @name, or NULL.
 * Lock held, or the remote not yet shared.
 */
static struct snaptrace_rproc_mem *
st_find_platform_mem(struct snaptrace_rproc *rproc, const char *name)
{
	struct snaptrace_rproc_mem *m;
	int i;

	for (i = 0; i < rproc->nr_layout; i++)
		if (!strcmp(rproc->layout[i].name, name))
			return &rproc->layout[i];
	list_for_each_entry(m, &rproc->carveouts, reg_node)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/**
 * snaptrace_rproc_add_carveout() - register platform memory of a remote
 * @rproc: the remote
 * @mem: from snaptrace_rproc_mem_entry_init(), with a fixed da and either
 *	a va or an alloc hook
 *
 * Registers memory the remote has whatever its firmware, as a platform
 * driver registers its device tree's reserved-memory or TCM regions. From
 * the next boot on, da_to_va() finds it, and a firmware carveout entry of
 * the same name is placed in it (checked with
 * snaptrace_rproc_check_carveout_da(); a mismatch fails the boot with
 * -ENOMEM, as upstream) instead of being allocated. @mem->alloc runs at
 * every boot and @mem->release at every shutdown. The remote owns @mem
 * from now on and kfree()s it when destroyed; memory @mem->va points to
 * stays the caller's, and must stay valid as long as the remote.
 *
 * Mirrors rproc_add_carveout(), which returns nothing and whose entries
 * are freed at every shutdown (drivers register them again from their
 * prepare op); snaptrace's stay registered, like the layout's regions.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EBUSY unless the remote is offline; -EINVAL (and @mem is
 * still the caller's) for a NULL @mem, length 0, an address of
 * %SNAPTRACE_FW_RSC_ADDR_ANY or a range past 32 bits, neither va nor
 * alloc, an empty name, a name already registered, more than
 * %SNAPTRACE_RPROC_MAX_MEMS entries, or a range overlapping a platform
 * region; -ENODEV if the remote is being destroyed.
 */
int snaptrace_rproc_add_carveout(struct snaptrace_rproc *rproc,
				 struct snaptrace_rproc_mem *mem)
{
	struct snaptrace_rproc_mem *m;
	int i, n = 0, ret = 0;

	if (!mem || !mem->len || mem->da == (u32)SNAPTRACE_FW_RSC_ADDR_ANY ||
	    (u64)mem->da + mem->len > BIT_ULL(32) ||
	    (!(mem->is_iomem ? !!mem->io : !!mem->va) && !mem->alloc) ||
	    !mem->name[0]) {
		dev_err(rproc->dev, "add_carveout %s: want a name, a fixed da, 0 < len within 32 bits, and a va or an alloc hook\n",
			mem ? mem->name : "(null)");
		return -EINVAL;
	}
	mutex_lock(&rproc->lock);
	if (rproc->deleting) {
		ret = -ENODEV;
		goto unlock;
	}
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE) {
		dev_err(rproc->dev, "add_carveout %s: the remote is not offline\n",
			mem->name);
		ret = -EBUSY;
		goto unlock;
	}
	if (st_find_platform_mem(rproc, mem->name)) {
		dev_err(rproc->dev, "add_carveout %s: the name is already registered\n",
			mem->name);
		ret = -EINVAL;
		goto unlock;
	}
	for (i = 0; i < rproc->nr_layout; i++)
		if (st_ranges_overlap(mem->da, mem->len, rproc->layout[i].da,
				      rproc->layout[i].len))
			ret = -EINVAL;
	list_for_each_entry(m, &rproc->carveouts, reg_node) {
		n++;
		if (st_ranges_overlap(mem->da, mem->len, m->da, m->len))
			ret = -EINVAL;
	}
	if (ret || n == SNAPTRACE_RPROC_MAX_MEMS) {
		dev_err(rproc->dev, "add_carveout %s: da 0x%x len 0x%x overlaps a platform region, or more than %d carveouts\n",
			mem->name, mem->da, mem->len, SNAPTRACE_RPROC_MAX_MEMS);
		ret = -EINVAL;
		goto unlock;
	}
	mem->registered = true;
	mem->rsc_offset = -1;
	list_add_tail(&mem->reg_node, &rproc->carveouts);
unlock:
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_add_carveout);

/* ------------------------------------------------------------------ */
/* Resources */

static void st_print_name(char *dst, const u8 *name)
{
	memcpy(dst, name, SNAPTRACE_RSC_NAME_LEN);
	dst[SNAPTRACE_RSC_NAME_LEN] = '\0';
}

/**
 * snaptrace_rproc_mem_view() - place a carveout or devmem in mapped memory
 * @rproc: the remote
 * @kind: "carveout" or "devmem", for messages and debugfs
 * @da: the entry's device address
 * @len: its length in bytes
 * @name: its name, %SNAPTRACE_RSC_NAME_LEN bytes, maybe not NUL-terminated
 * @offset: its offset in the resource table, for messages
 *
 * For a remote that already runs from its memory (&snaptrace_rproc_ops.add_mem
 * of the attach platform): the entry must lie wholly in memory the remote
 * has mapped (the memory it shares with the host), where it is recorded as
 * a view; nothing is allocated (as upstream matches such an entry with a
 * carveout the platform registered).
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0; -EINVAL if not inside the remote's memory or more than
 * %SNAPTRACE_RPROC_MAX_MEMS entries; -ENOMEM.
 */
int snaptrace_rproc_mem_view(struct snaptrace_rproc *rproc, const char *kind,
			     u32 da, u32 len, const u8 *name, int offset)
{
	struct snaptrace_rproc_mem *m, *in;
	u32 off;

	in = st_find_mem(rproc, da, len, &off);
	if (!in) {
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
	if (in->is_iomem)
		m->io = in->io + off;
	else
		m->va = in->va + off;
	m->kind = kind;
	m->is_iomem = in->is_iomem;
	list_add_tail(&m->node, &rproc->mems);
	rproc->nr_mems++;
	return 0;
}

static int st_mem_free_va(struct snaptrace_rproc *rproc,
			  struct snaptrace_rproc_mem *mem)
{
	vfree(mem->va);
	return 0;
}

/* Host memory for a carveout or devmem no platform region holds. */
static int st_mem_alloc(struct snaptrace_rproc *rproc, const char *kind, u32 da,
			u32 len, const u8 *name, int offset)
{
	struct snaptrace_rproc_mem *m;

	if (!len || len > SNAPTRACE_RPROC_MEM_MAX) {
		dev_err(rproc->dev, "%s at offset %d: len 0x%x not in 1..0x%x\n",
			kind, offset, len, SNAPTRACE_RPROC_MEM_MAX);
		return -EINVAL;
	}
	if (rproc->nr_mems == SNAPTRACE_RPROC_MAX_MEMS) {
		dev_err(rproc->dev, "%s at offset %d: more than %d carveouts and devmems\n",
			kind, offset, SNAPTRACE_RPROC_MAX_MEMS);
		return -EINVAL;
	}
	if (da == (u32)SNAPTRACE_FW_RSC_ADDR_ANY) {
		da = ST_RPROC_ANY_BASE;
		while (snaptrace_rproc_mem_overlaps(rproc, da, len) &&
		       (u64)da + 2 * (u64)len < BIT_ULL(32))
			da += ALIGN(len, PAGE_SIZE);
	}
	if ((u64)da + len > BIT_ULL(32) || snaptrace_rproc_mem_overlaps(rproc, da, len)) {
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
	m->release = st_mem_free_va;
	list_add_tail(&m->node, &rproc->mems);
	rproc->nr_mems++;
	return 0;
}

static int st_add_mem(struct snaptrace_rproc *rproc, const char *kind, u32 da,
		      u32 len, const u8 *name, int offset)
{
	if (rproc->ops->add_mem)
		return rproc->ops->add_mem(rproc, kind, da, len, name, offset);
	return st_mem_alloc(rproc, kind, da, len, name, offset);
}

/*
 * The instance a trace's crash captures go to: "<remote>-trace<N>", with
 * what an instance name may not hold (the ivshmem remote's PCI name has
 * ':') made '_', so the captures can also be read, and the capture buffer
 * sized, under instances/. An instance of that name that already exists
 * (one a reader kept open across a stop, or instances=) is taken if it is
 * large enough. Process context; the remote's lock is held.
 */
static struct snaptrace_buffer *st_trace_instance_get(struct snaptrace_rproc *rproc,
						      int index, size_t size)
{
	char name[SNAPTRACE_INSTANCE_NAME_MAX + 1];
	struct snaptrace_buffer *buf;
	int n, i;

	/* Keep "-traceN" whole: cut the remote's name if need be. */
	n = snprintf(name, sizeof(name), "-trace%d", index);
	n = sizeof(name) - 1 - n;
	snprintf(name, sizeof(name), "%.*s-trace%d", n, rproc->name, index);
	for (i = 0; name[i]; i++)
		if (!isalnum(name[i]) && name[i] != '-' && name[i] != '_' &&
		    name[i] != '.')
			name[i] = '_';
	if (name[0] == '.')
		name[0] = '_';
	buf = snaptrace_get_by_name(name, size);
	if (IS_ERR(buf)) {
		dev_err(rproc->dev, "trace%d: cannot create instance %s: %d\n",
			index, name, (int)PTR_ERR(buf));
		return buf;
	}
	if (snaptrace_size_per_cpu(buf) < size) {
		dev_err(rproc->dev, "trace%d: instance %s exists with %zu bytes per CPU, %zu needed\n",
			index, name, snaptrace_size_per_cpu(buf), size);
		snaptrace_put(buf);
		return ERR_PTR(-EBUSY);
	}
	return buf;
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
 * last copy is allocated now, so that a crash needs none: a named instance
 * of its own, "<remote>-trace<N>" (snaptrace_get_by_name()), with its
 * snapshot spare, dropped with snaptrace_put() when the remote stops.
 * Creates debugfs traceN and traceN_last.
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0; -EINVAL if truncated (sizeof(*rsc) > @avail), reserved not
 * zero, len 0 or too large, da + len past 32 bits, or outside the remote's
 * memory; -EBUSY if the instance's name is taken by a smaller buffer;
 * -ENOMEM.
 */
int snaptrace_rproc_handle_trace(struct snaptrace_rproc *rproc, void *ptr,
				 int offset, int avail)
{
	struct snaptrace_fw_rsc_trace *rsc = ptr;
	struct snaptrace_rproc_trace *trace;
	size_t size;
	u32 off;
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
	if (!st_find_mem(rproc, rsc->da, rsc->len, &off)) {
		dev_err(rproc->dev, "trace at offset %d: da 0x%x len 0x%x is not inside the remote's memory\n",
			offset, rsc->da, rsc->len);
		return -EINVAL;
	}

	trace = kzalloc(sizeof(*trace), GFP_KERNEL);
	if (!trace)
		return -ENOMEM;
	/* The capture holds a reservation per record until its snapshot. */
	trace->res = kcalloc(DIV_ROUND_UP(rsc->len, SNAPTRACE_MAX_PAYLOAD),
			     sizeof(*trace->res), GFP_KERNEL);
	if (!trace->res) {
		kfree(trace);
		return -ENOMEM;
	}
	/*
	 * Room for the whole trace as records in one CPU's ring: payload,
	 * a 16-byte header per 2 KiB, and padding at the wrap.
	 */
	size = (size_t)rsc->len + rsc->len / 64 + SNAPTRACE_MIN_SIZE;
	trace->last = st_trace_instance_get(rproc, rproc->num_traces, size);
	if (IS_ERR(trace->last)) {
		ret = PTR_ERR(trace->last);
		kfree(trace->res);
		kfree(trace);
		return ret;
	}
	ret = snaptrace_alloc_snapshot(trace->last);
	if (ret) {
		snaptrace_put(trace->last);
		kfree(trace->res);
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

/* The vdev sub-device's hooks: no virtio transport, they record the step. */
static int st_vdev_prepare(struct snaptrace_rproc_subdev *subdev)
{
	struct snaptrace_rproc_vdev *v = container_of(subdev, struct snaptrace_rproc_vdev,
						      subdev);

	v->status = "prepared";
	return 0;
}

static int st_vdev_start(struct snaptrace_rproc_subdev *subdev)
{
	struct snaptrace_rproc_vdev *v = container_of(subdev, struct snaptrace_rproc_vdev,
						      subdev);

	v->status = "started";
	return 0;
}

static void st_vdev_stop(struct snaptrace_rproc_subdev *subdev, bool crashed)
{
	struct snaptrace_rproc_vdev *v = container_of(subdev, struct snaptrace_rproc_vdev,
						      subdev);

	v->status = crashed ? "stopped (crashed)" : "stopped";
}

static void st_vdev_unprepare(struct snaptrace_rproc_subdev *subdev)
{
	struct snaptrace_rproc_vdev *v = container_of(subdev, struct snaptrace_rproc_vdev,
						      subdev);

	v->status = "unprepared";
}

/**
 * snaptrace_rproc_handle_vdev() - handle a vdev resource entry
 * @rproc: the remote
 * @ptr: the entry's body (a &struct snaptrace_fw_rsc_vdev), in the
 *	remote's copy of the table: the vrings' notify ids are written back
 * @offset: its offset in the resource table, for messages
 * @avail: bytes left in the table from @ptr
 *
 * Records the vdev as a sub-device with its vrings (da, align, num and a
 * notify id given in table order from 0, as rproc_alloc_vring() gives
 * them from its idr), after the platform's sub-devices: it is prepared,
 * started, stopped and unprepared with the remote. There is no virtio
 * transport: the hooks only record the step, shown in debugfs "subdevs".
 * Mirrors rproc_handle_vdev() with rproc_parse_vring()'s checks.
 *
 * Context: process context, may sleep; the remote's lock is held (or the
 * remote is private to the caller).
 * Return: 0; -EINVAL if truncated or reserved bytes set
 * (snaptrace_rsc_check_vdev()), more than %SNAPTRACE_RPROC_MAX_VRINGS
 * vrings, a vring with num or align 0, or more than 8 vdevs; -ENOMEM.
 */
int snaptrace_rproc_handle_vdev(struct snaptrace_rproc *rproc, void *ptr,
				int offset, int avail)
{
	struct snaptrace_fw_rsc_vdev *rsc = ptr;
	struct snaptrace_rproc_vdev *v, *prev;
	u32 notifyid = 0;
	int i, ret;

	ret = snaptrace_rsc_check_vdev(rproc->dev, rsc, offset, avail);
	if (ret)
		return ret;
	if (rsc->num_of_vrings > SNAPTRACE_RPROC_MAX_VRINGS) {
		dev_err(rproc->dev, "vdev at offset %d: too many vrings: %u, at most %d\n",
			offset, rsc->num_of_vrings, SNAPTRACE_RPROC_MAX_VRINGS);
		return -EINVAL;
	}
	for (i = 0; i < rsc->num_of_vrings; i++) {
		if (!rsc->vring[i].num || !rsc->vring[i].align) {
			dev_err(rproc->dev, "vdev at offset %d: vring%d: invalid qsz (%u) or alignment (%u)\n",
				offset, i, rsc->vring[i].num, rsc->vring[i].align);
			return -EINVAL;
		}
	}
	if (rproc->vdevs == ST_RPROC_MAX_VDEVS) {
		dev_err(rproc->dev, "vdev at offset %d: more than %d vdevs\n",
			offset, ST_RPROC_MAX_VDEVS);
		return -EINVAL;
	}
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	list_for_each_entry(prev, &rproc->vdev_list, node)
		notifyid += prev->num_vrings;
	v->rproc = rproc;
	v->index = rproc->vdevs++;
	v->id = rsc->id;
	v->offset = offset;
	v->num_vrings = rsc->num_of_vrings;
	for (i = 0; i < v->num_vrings; i++) {
		v->vring[i].da = rsc->vring[i].da;
		v->vring[i].align = rsc->vring[i].align;
		v->vring[i].num = rsc->vring[i].num;
		v->vring[i].notifyid = notifyid++;
		rsc->vring[i].notifyid = v->vring[i].notifyid;
	}
	v->status = "handled";
	snprintf(v->name, sizeof(v->name), "vdev%d", v->index);
	v->subdev.name = v->name;
	v->subdev.prepare = st_vdev_prepare;
	v->subdev.start = st_vdev_start;
	v->subdev.stop = st_vdev_stop;
	v->subdev.unprepare = st_vdev_unprepare;
	list_add_tail(&v->node, &rproc->vdev_list);
	list_add_tail(&v->subdev.node, &rproc->subdevs);
	dev_dbg(rproc->dev, "vdev%d: id %u, %d vrings\n", v->index, v->id,
		v->num_vrings);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_handle_vdev);

/*
 * A firmware carveout named like a platform region is placed in it, as
 * rproc_handle_carveout() does with registered carveouts: 0 if it was,
 * 1 if no region has its name, -ENOMEM if the region is taken or does not
 * fit the request.
 */
static int st_match_carveout(struct snaptrace_rproc *rproc,
			     const struct snaptrace_fw_rsc_carveout *c, int offset)
{
	char name[SNAPTRACE_RSC_NAME_LEN + 1];
	struct snaptrace_rproc_mem *m;

	st_print_name(name, c->name);
	m = st_find_platform_mem(rproc, name);
	if (!m)
		return 1;
	if (m->rsc_offset != -1) {
		dev_err(rproc->dev, "carveout at offset %d: %s already associated to resource table\n",
			offset, name);
		return -ENOMEM;
	}
	if (snaptrace_rproc_check_carveout_da(rproc, m, c->da, c->len))
		return -ENOMEM;
	m->rsc_offset = offset;
	m->flags = c->flags;
	return 0;
}

/**
 * snaptrace_rproc_handle_carveout() - handle a carveout resource entry
 * @rproc: the remote
 * @ptr: the entry's body (a &struct snaptrace_fw_rsc_carveout)
 * @offset: its offset in the resource table, for messages
 * @avail: bytes left in the table from @ptr
 *
 * A carveout named like a platform region is placed in it; any other is
 * placed by the platform (&snaptrace_rproc_ops.add_mem) or given host
 * memory. Mirrors rproc_handle_carveout().
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0; -EINVAL for a bad entry or one that does not fit the
 * remote's memory; -ENOMEM (also a registered region that does not fit).
 */
int snaptrace_rproc_handle_carveout(struct snaptrace_rproc *rproc, void *ptr,
				    int offset, int avail)
{
	struct snaptrace_fw_rsc_carveout *c = ptr;
	int ret;

	ret = snaptrace_rsc_check_carveout(rproc->dev, c, offset, avail);
	if (ret)
		return ret;
	ret = st_match_carveout(rproc, c, offset);
	if (ret <= 0)
		return ret;
	return st_add_mem(rproc, "carveout", c->da, c->len, c->name, offset);
}

/**
 * snaptrace_rproc_handle_devmem() - handle a devmem resource entry
 * @rproc: the remote
 * @ptr: the entry's body (a &struct snaptrace_fw_rsc_devmem)
 * @offset: its offset in the resource table, for messages
 * @avail: bytes left in the table from @ptr
 *
 * Placed by the platform (&snaptrace_rproc_ops.add_mem) or given host
 * memory: the simulation has no device memory to map. Mirrors
 * rproc_handle_devmem().
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0; -EINVAL for a bad entry or one that does not fit the
 * remote's memory; -ENOMEM.
 */
int snaptrace_rproc_handle_devmem(struct snaptrace_rproc *rproc, void *ptr,
				  int offset, int avail)
{
	struct snaptrace_fw_rsc_devmem *d = ptr;
	int ret;

	ret = snaptrace_rsc_check_devmem(rproc->dev, d, offset, avail);
	return ret ? ret : st_add_mem(rproc, "devmem", d->da, d->len, d->name,
				      offset);
}

/* Give back everything the firmware's resources took. Lock held, offline. */
static void st_resources_free(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace, *tn;
	struct snaptrace_rproc_vdev *v, *vn;
	struct snaptrace_rproc_mem *m, *mn;

	list_for_each_entry_safe(trace, tn, &rproc->traces, node) {
		/* debugfs_remove() waits for readers inside the files. */
		debugfs_remove(trace->file);
		debugfs_remove(trace->last_file);
		list_del(&trace->node);
		snaptrace_put(trace->last);
		kfree(trace->res);
		kfree(trace);
	}
	list_for_each_entry_safe(v, vn, &rproc->vdev_list, node) {
		list_del(&v->node);
		list_del(&v->subdev.node);
		kfree(v);
	}
	list_for_each_entry_safe(m, mn, &rproc->mems, node) {
		list_del(&m->node);
		m->rsc_offset = -1;
		if (m->registered) {
			if (m->alloc && m->release)
				m->release(rproc, m);
		} else if (m < rproc->layout ||
			   m >= rproc->layout + SNAPTRACE_RPROC_MAX_REGIONS) {
			/* Views of the remote's memory have no release. */
			if (m->release)
				m->release(rproc, m);
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
	if (rproc->ops->release)
		rproc->ops->release(rproc);
}

/*
 * The platform's memory joins the remote's mappings: the layout's regions,
 * zeroed, then the registered carveouts, each allocated by its hook.
 */
static int st_mems_add_layout(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_mem *m;
	int i, ret;

	for (i = 0; i < rproc->nr_layout; i++) {
		memset(rproc->layout[i].va, 0, rproc->layout[i].len);
		list_add_tail(&rproc->layout[i].node, &rproc->mems);
	}
	list_for_each_entry(m, &rproc->carveouts, reg_node) {
		if (m->alloc) {
			ret = m->alloc(rproc, m);
			if (ret) {
				dev_err(rproc->dev, "unable to allocate carveout %s: %d\n",
					m->name, ret);
				return -ENOMEM;
			}
		}
		/* Released by st_resources_free() from here on. */
		list_add_tail(&m->node, &rproc->mems);
		if (m->is_iomem ? !m->io : !m->va) {
			dev_err(rproc->dev, "carveout %s: its alloc hook gave no memory\n",
				m->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sub-devices, as rproc_{prepare,start,stop,unprepare}_subdevices() */

static int st_subdevs_prepare(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_subdev *subdev;
	int ret;

	list_for_each_entry(subdev, &rproc->subdevs, node) {
		if (subdev->prepare) {
			ret = subdev->prepare(subdev);
			if (ret)
				goto unroll;
		}
	}
	rproc->subdevs_prepared = true;
	return 0;

unroll:
	dev_err(rproc->dev, "failed to prepare sub-device %s: %d\n",
		subdev->name ?: "?", ret);
	list_for_each_entry_continue_reverse(subdev, &rproc->subdevs, node)
		if (subdev->unprepare)
			subdev->unprepare(subdev);
	return ret;
}

static int st_subdevs_start(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_subdev *subdev;
	int ret;

	list_for_each_entry(subdev, &rproc->subdevs, node) {
		if (subdev->start) {
			ret = subdev->start(subdev);
			if (ret)
				goto unroll;
		}
	}
	rproc->subdevs_started = true;
	return 0;

unroll:
	dev_err(rproc->dev, "failed to start sub-device %s: %d\n",
		subdev->name ?: "?", ret);
	list_for_each_entry_continue_reverse(subdev, &rproc->subdevs, node)
		if (subdev->stop)
			subdev->stop(subdev, true);
	return ret;
}

static void st_subdevs_stop(struct snaptrace_rproc *rproc, bool crashed)
{
	struct snaptrace_rproc_subdev *subdev;

	if (!rproc->subdevs_started)
		return;
	list_for_each_entry_reverse(subdev, &rproc->subdevs, node)
		if (subdev->stop)
			subdev->stop(subdev, crashed);
	rproc->subdevs_started = false;
}

static void st_subdevs_unprepare(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_subdev *subdev;

	if (!rproc->subdevs_prepared)
		return;
	list_for_each_entry_reverse(subdev, &rproc->subdevs, node)
		if (subdev->unprepare)
			subdev->unprepare(subdev);
	rproc->subdevs_prepared = false;
}

/* Publish a new state to lockless readers and to crash reports. */
static void st_set_state(struct snaptrace_rproc *rproc, int state)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	WRITE_ONCE(rproc->state, state);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
}

/* Publish @state, then stop the remote's platform part. Lock held. */
static void st_halt(struct snaptrace_rproc *rproc, int state)
{
	st_set_state(rproc, state);
	rproc->ops->stop(rproc);
}

/*
 * Prepare the sub-devices, start the core, start the sub-devices, as
 * rproc_start(). On failure the core is stopped with @fail_state and the
 * sub-devices are unprepared. Lock held.
 */
static int st_go(struct snaptrace_rproc *rproc, int fail_state)
{
	int ret = st_subdevs_prepare(rproc);

	if (ret)
		return ret;
	rproc->ops->start(rproc);
	ret = st_subdevs_start(rproc);
	if (ret) {
		st_halt(rproc, fail_state);
		st_subdevs_unprepare(rproc);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Life cycle */

/*
 * Resource handlers by type, as upstream's rproc_loading_handlers[]: the
 * memory first, in a walk of its own, so that a trace is checked against
 * carveouts wherever they are in the table, then the rest.
 */
typedef int (*st_rsc_handler_t)(struct snaptrace_rproc *rproc, void *rsc,
				int offset, int avail);

static const st_rsc_handler_t st_mem_handlers[SNAPTRACE_RSC_LAST] = {
	[SNAPTRACE_RSC_CARVEOUT] = snaptrace_rproc_handle_carveout,
	[SNAPTRACE_RSC_DEVMEM] = snaptrace_rproc_handle_devmem,
};

static const st_rsc_handler_t st_loading_handlers[SNAPTRACE_RSC_LAST] = {
	[SNAPTRACE_RSC_TRACE] = snaptrace_rproc_handle_trace,
	[SNAPTRACE_RSC_VDEV] = snaptrace_rproc_handle_vdev,
};

struct st_rsc_walk {
	struct snaptrace_rproc *rproc;
	const st_rsc_handler_t *handlers;
	bool warn;	/* say what is skipped (in one of the walks) */
};

static int st_handle_rsc(void *priv, u32 type, void *rsc, int offset, int avail)
{
	const struct st_rsc_walk *w = priv;

	if (type < SNAPTRACE_RSC_LAST)
		return w->handlers[type] ?
		       w->handlers[type](w->rproc, rsc, offset, avail) : 0;
	if (!w->warn)
		return 0;
	if (type >= SNAPTRACE_RSC_VENDOR_START && type <= SNAPTRACE_RSC_VENDOR_END)
		dev_warn(w->rproc->dev, "vendor resource type %u at offset %d skipped\n",
			 type, offset);
	else
		dev_warn(w->rproc->dev, "unsupported resource type %u at offset %d skipped\n",
			 type, offset);
	return 0;
}

/* Walk the table with @handlers, as rproc_handle_resources(). */
static int st_handle_resources(struct snaptrace_rproc *rproc,
			       const st_rsc_handler_t *handlers, bool warn)
{
	struct st_rsc_walk w = {
		.rproc = rproc,
		.handlers = handlers,
		.warn = warn,
	};

	return snaptrace_rsc_walk(rproc->dev, rproc->table, rproc->table_sz,
				  st_handle_rsc, &w);
}

/*
 * Boot an offline remote from an image, as rproc_fw_boot(): the platform
 * finds the resource table, the platform memory is mapped, the resources
 * are handled (memory first), the platform loads the image and the remote
 * starts. On any error everything is given back. Lock held.
 */
static int st_boot_image(struct snaptrace_rproc *rproc, const u8 *elf,
			 size_t size)
{
	const struct snaptrace_rproc_ops *ops = rproc->ops;
	int ret;

	ret = ops->parse_fw(rproc, elf, size);
	if (!ret)
		ret = st_mems_add_layout(rproc);
	if (!ret && ops->get_loaded_rsc_table)
		ret = ops->get_loaded_rsc_table(rproc, elf, size);
	if (!ret)
		ret = st_handle_resources(rproc, st_mem_handlers, false);
	if (!ret)
		ret = st_handle_resources(rproc, st_loading_handlers, true);
	if (!ret && ops->load)
		ret = ops->load(rproc, elf, size);
	if (!ret) {
		rproc->fw_size = size;
		rproc->fw_crc = crc32_le(~0, elf, size);
		ret = st_go(rproc, SNAPTRACE_RPROC_OFFLINE);
	}
	if (ret) {
		st_resources_free(rproc);
		return ret;
	}
	rproc->ops->booted(rproc);
	return 0;
}

/* Boot an offline remote with its firmware file. Lock held. */
static int st_fw_boot(struct snaptrace_rproc *rproc)
{
	const struct firmware *fw;
	int ret;

	if (!rproc->firmware[0]) {
		dev_err(rproc->dev, "no firmware set: write a file name to 'firmware'\n");
		return -EINVAL;
	}
	/* No user-helper fallback: a missing file fails at once. */
	ret = request_firmware_direct(&fw, rproc->firmware, rproc->dev);
	if (ret) {
		dev_err(rproc->dev, "cannot load firmware %s: %d\n", rproc->firmware, ret);
		return ret;
	}
	ret = st_boot_image(rproc, fw->data, fw->size);
	release_firmware(fw);
	return ret;
}

/*
 * Attach to a detached remote, as rproc_attach(): it kept its memory,
 * resources and core; the platform checks it runs what it ran (if not,
 * everything is given back: offline), the host starts its sub-devices
 * again (and the platform its watch of it) and exports its traces. Lock
 * held.
 */
static int st_attach(struct snaptrace_rproc *rproc)
{
	const struct snaptrace_rproc_ops *ops = rproc->ops;
	struct snaptrace_rproc_trace *trace;
	unsigned long flags;
	int ret;

	if (ops->prepare) {
		ret = ops->prepare(rproc);
		if (ret) {
			st_resources_free(rproc);
			st_set_state(rproc, SNAPTRACE_RPROC_OFFLINE);
			return ret;
		}
	}
	ret = st_subdevs_prepare(rproc);
	if (ret)
		return ret;
	if (ops->attach)
		ops->attach(rproc);
	ret = st_subdevs_start(rproc);
	if (ret) {
		if (ops->attach)
			st_halt(rproc, SNAPTRACE_RPROC_DETACHED);
		st_subdevs_unprepare(rproc);
		return ret;
	}
	list_for_each_entry(trace, &rproc->traces, node)
		snaptrace_rproc_debugfs_trace(trace);
	/* Unless the platform's watch saw a crash since. */
	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	if (rproc->state == SNAPTRACE_RPROC_DETACHED)
		WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_ATTACHED);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	dev_info(rproc->dev, "attached\n");
	return 0;
}

/* Boot or attach, taking the first reference. Lock held. */
static int st_boot_locked(struct snaptrace_rproc *rproc)
{
	int ret;

	if (rproc->deleting)
		return -ENODEV;
	if (READ_ONCE(rproc->state) == SNAPTRACE_RPROC_DETACHED)
		ret = st_attach(rproc);
	else
		ret = st_fw_boot(rproc);
	if (!ret)
		rproc->power = 1;
	return ret;
}

/**
 * snaptrace_rproc_boot_image() - boot an offline remote from an image in memory
 * @rproc: the remote
 * @elf: the image (ELF32 or ELF64)
 * @size: its size in bytes
 *
 * As snaptrace_rproc_boot() with an image the caller has rather than the
 * firmware file: the first boot reference. For platforms that are given
 * the image another way (snaptrace_rproc_attach_image()).
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EBUSY unless offline; -ENODEV while destroyed; otherwise as
 * snaptrace_rproc_boot().
 */
int snaptrace_rproc_boot_image(struct snaptrace_rproc *rproc, const u8 *elf,
			       size_t size)
{
	int ret;

	mutex_lock(&rproc->lock);
	if (rproc->deleting)
		ret = -ENODEV;
	else if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE)
		ret = -EBUSY;
	else
		ret = st_boot_image(rproc, elf, size);
	if (!ret)
		rproc->power = 1;	/* the first boot reference, as boot() */
	mutex_unlock(&rproc->lock);
	return ret;
}

/**
 * snaptrace_rproc_boot() - boot a remote, or take a reference on it
 * @rproc: the remote
 *
 * The first call boots the remote: loads its firmware through the
 * firmware loader, finds and copies its resource table, maps the
 * platform's memory (layout regions, registered carveouts), handles the
 * resources (memory first, then traces and vdevs), loads the segments,
 * prepares the sub-devices, starts the simulated core and starts the
 * sub-devices; on any error everything is given back and the remote stays
 * offline. A remote made by snaptrace_rproc_create_attached() boots on its
 * own: it is attached to instead, as snaptrace_rproc_attach_image()
 * describes, with no segment loaded and its heartbeat watchdog as its
 * core. A detached remote is attached instead (state "attached"). Once
 * it is booted, each further call only takes a reference, whatever the
 * state (running, attached or crashed), and returns 0: every successful
 * call must be matched by snaptrace_rproc_shutdown() (or, for an attached
 * remote, snaptrace_rproc_detach()). Mirrors rproc_boot().
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -ENODEV if the remote is being destroyed; -EINVAL for no
 * firmware name or a bad image; -ENOENT for a missing file or no
 * resource table; -ENOMEM (also a carveout that does not fit its
 * registered region, as upstream); a sub-device hook's error.
 */
int snaptrace_rproc_boot(struct snaptrace_rproc *rproc)
{
	int ret = 0;

	mutex_lock(&rproc->lock);
	if (rproc->deleting)
		ret = -ENODEV;
	else if (rproc->power > 0)
		rproc->power++;
	else
		ret = st_boot_locked(rproc);
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_boot);

/**
 * snaptrace_rproc_start() - boot an offline remote
 * @rproc: the remote
 *
 * snaptrace_rproc_boot() for a remote that must be offline: it takes the
 * first reference, never a further one.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EBUSY if not offline; otherwise as snaptrace_rproc_boot().
 */
int snaptrace_rproc_start(struct snaptrace_rproc *rproc)
{
	int ret;

	mutex_lock(&rproc->lock);
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE && !rproc->deleting)
		ret = -EBUSY;
	else
		ret = st_boot_locked(rproc);
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_start);

/*
 * Stop sub-devices, core, then unprepare, and give back every resource:
 * the remote is offline afterwards, with no reference. Lock held.
 */
static void st_stop_locked(struct snaptrace_rproc *rproc)
{
	st_subdevs_stop(rproc, READ_ONCE(rproc->state) == SNAPTRACE_RPROC_CRASHED);
	st_halt(rproc, SNAPTRACE_RPROC_OFFLINE);
	st_subdevs_unprepare(rproc);
	st_resources_free(rproc);
	rproc->power = 0;
}

/**
 * snaptrace_rproc_shutdown() - drop a boot reference; the last stops the remote
 * @rproc: the remote, running, attached or crashed
 *
 * While other boot references remain, only drops this one. The last one
 * stops the sub-devices (told whether the remote crashed), stops the core,
 * unprepares the sub-devices and frees every resource of the firmware, the
 * trace files and their last copies included; registered carveouts stay
 * registered (their release hooks run). Mirrors rproc_shutdown().
 * A remote made by snaptrace_rproc_create_attached() is not stopped (the
 * host cannot): its watchdog stops and the host lets go of it, offline;
 * upstream would call the platform's stop op.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EINVAL if the remote is offline or detached (a redundant
 * call, which upstream calls a bug).
 */
int snaptrace_rproc_shutdown(struct snaptrace_rproc *rproc)
{
	int ret = 0;

	mutex_lock(&rproc->lock);
	switch (READ_ONCE(rproc->state)) {
	case SNAPTRACE_RPROC_RUNNING:
	case SNAPTRACE_RPROC_ATTACHED:
	case SNAPTRACE_RPROC_CRASHED:
		if (rproc->power > 1) {
			rproc->power--;
			break;
		}
		st_stop_locked(rproc);
		dev_info(rproc->dev, "stopped\n");
		break;
	default:
		dev_err(rproc->dev, "shutdown: the remote is %s\n",
			snaptrace_rproc_state_name(READ_ONCE(rproc->state)));
		ret = -EINVAL;
		break;
	}
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_shutdown);

/**
 * snaptrace_rproc_stop() - shut a remote down
 * @rproc: the remote
 *
 * The same as snaptrace_rproc_shutdown(), kept for the callers of its
 * earlier name.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: as snaptrace_rproc_shutdown().
 */
int snaptrace_rproc_stop(struct snaptrace_rproc *rproc)
{
	return snaptrace_rproc_shutdown(rproc);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_stop);

/**
 * snaptrace_rproc_detach() - let a remote run on without the host
 * @rproc: the remote, running or attached
 *
 * While other boot references remain, only drops this one. The last one
 * stops and unprepares the sub-devices and removes the trace files: the
 * host stops using the remote, whose core runs on, writing its log into
 * its own memory (kept, as a remote's memory stays its own). The state is
 * then "detached": snaptrace_rproc_boot() attaches to it again (state
 * "attached": its log went on meanwhile, the last traces are kept),
 * snaptrace_rproc_shutdown() refuses it, and it is stopped only when the
 * remote is destroyed. A crash report while detached is ignored: nobody
 * is watching.
 *
 * Mirrors rproc_detach(), which only detaches a remote the host attached
 * to (state attached) and whose platform driver has a detach op; the
 * simulated core can always run on, so a remote the host booted (running)
 * may detach too.
 *
 * A remote made by snaptrace_rproc_create_attached() (which boots on its
 * own, state "attached") detaches the same way, and its heartbeat watchdog
 * stops too (its crashes go unseen); its resource table and resources are
 * kept, and boot() attaches again if it finds the same table still loaded
 * (else it gives them back: offline). Upstream would also call the
 * platform's detach op; the ivshmem remote has nothing to tell.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EINVAL unless running or attached (it crashed, or is
 * offline or already detached).
 */
int snaptrace_rproc_detach(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_trace *trace;
	unsigned long flags;
	int state, ret = 0;

	mutex_lock(&rproc->lock);
	state = READ_ONCE(rproc->state);
	if (state != SNAPTRACE_RPROC_RUNNING && state != SNAPTRACE_RPROC_ATTACHED) {
		dev_err(rproc->dev, "detach: the remote is %s, not running or attached\n",
			snaptrace_rproc_state_name(state));
		ret = -EINVAL;
		goto unlock;
	}
	if (rproc->power > 1) {
		rproc->power--;
		goto unlock;
	}
	/* A crash reported since we looked wins: it is handled as a crash. */
	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	if (READ_ONCE(rproc->state) == SNAPTRACE_RPROC_CRASHED)
		ret = -EINVAL;
	else
		WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_DETACHED);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	if (ret) {
		dev_err(rproc->dev, "detach: the remote crashed\n");
		goto unlock;
	}
	if (rproc->ops->detach)
		rproc->ops->detach(rproc);
	rproc->power = 0;
	st_subdevs_stop(rproc, false);
	st_subdevs_unprepare(rproc);
	list_for_each_entry(trace, &rproc->traces, node) {
		/* debugfs_remove() waits for readers inside the files. */
		debugfs_remove(trace->file);
		debugfs_remove(trace->last_file);
		trace->file = NULL;
		trace->last_file = NULL;
	}
	dev_info(rproc->dev, "detached; the remote runs on\n");
unlock:
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_detach);

/**
 * snaptrace_rproc_get_state() - a remote's state
 * @rproc: the remote
 *
 * Context: any; a lockless read, which may be stale by the time it is used.
 * Return: an &enum snaptrace_rproc_state.
 */
int snaptrace_rproc_get_state(struct snaptrace_rproc *rproc)
{
	return READ_ONCE(rproc->state);
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_get_state);

/*
 * Copy one trace buffer into its last copy: the capture, atomic context.
 * Every record is reserved and filled before the snapshot and committed
 * after it: the snapshot's cut puts them all in the snapshot (records
 * reserved before the cut), and none is ever visible in the live half, so
 * a reader of the instance's trace_pipe cannot take part of the capture.
 */
static void st_capture(struct snaptrace_rproc *rproc,
		       struct snaptrace_rproc_trace *trace)
{
	const u8 *va = snaptrace_rproc_da_to_va(rproc, trace->da, trace->len, NULL);
	unsigned int i, nr = 0;
	u32 off, n;
	void *p;
	int ret;

	if (!va)
		return;
	for (off = 0; off < trace->len; off += n) {
		n = min_t(u32, trace->len - off, SNAPTRACE_MAX_PAYLOAD);
		p = snaptrace_reserve(trace->last, n, &trace->res[nr]);
		if (!p)
			break;
		nr++;
		memcpy(p, va + off, n);
	}
	/* The spare was allocated when the trace was handled: no -ENOENT. */
	ret = off < trace->len ? -ENOSPC : snaptrace_snapshot(trace->last);
	for (i = nr; i-- > 0; )
		snaptrace_commit(trace->last, &trace->res[i]);
	if (!ret)
		WRITE_ONCE(trace->has_last, true);
}

/**
 * snaptrace_rproc_capture_trace_slow() - capture a trace in process context
 * @rproc: the remote, crashed
 * @trace: one of its traces
 *
 * Copies the trace into its last copy, as the crash path does, but from
 * what may be I/O memory: up to %SNAPTRACE_RPROC_TRACE_MAX bytes, a record
 * at a time with a chance to reschedule in between, on one CPU (the last
 * copy's ring is sized for the whole trace on one CPU). For a platform
 * whose &snaptrace_rproc_ops.coredump queues the capture.
 *
 * Context: process context, may sleep; the traces must not go meanwhile
 * (stop waits for the caller).
 */
void snaptrace_rproc_capture_trace_slow(struct snaptrace_rproc *rproc,
					struct snaptrace_rproc_trace *trace)
{
	struct snaptrace_reservation res;
	u32 off, n;
	void *p;

	migrate_disable();
	for (off = 0; off < trace->len; off += n) {
		n = min_t(u32, trace->len - off, SNAPTRACE_MAX_PAYLOAD);
		p = snaptrace_reserve(trace->last, n, &res);
		if (!p)
			break;
		/* In the mapping since the trace was handled: cannot fail. */
		if (snaptrace_rproc_read_da(rproc, (u64)trace->da + off, p, n))
			memset(p, 0, n);
		snaptrace_commit(trace->last, &res);
		cond_resched();
	}
	migrate_enable();
	if (off >= trace->len && !snaptrace_snapshot(trace->last))
		WRITE_ONCE(trace->has_last, true);
}

static const char *st_crash_name(unsigned int type)
{
	static const char * const names[] = {
		[SNAPTRACE_RPROC_MMUFAULT] = "mmufault",
		[SNAPTRACE_RPROC_WATCHDOG] = "watchdog",
		[SNAPTRACE_RPROC_FATAL_ERROR] = "fatal error",
	};

	return type < ARRAY_SIZE(names) ? names[type] : "unknown";
}

/**
 * snaptrace_rproc_report_crash() - report that a remote crashed
 * @rproc: the remote
 * @type: what happened (a value outside the enum is reported as "unknown")
 *
 * Only the first report counts: it stops the simulated core, marks the
 * remote crashed and captures every trace buffer into its traceN_last
 * copy, then queues recovery on the system workqueue if it is enabled
 * (the part rproc_crash_handler_work() does upstream: the sub-devices are
 * stopped with crashed set, the segments reloaded and everything started
 * again). The capture uses memory allocated when the trace was handled:
 * nothing is allocated and nothing sleeps. A report for a remote that is
 * not running or attached (offline, detached, already crashed) is
 * ignored. Mirrors rproc_report_crash(), which only queues work and sets
 * the state from that work. For a remote made by
 * snaptrace_rproc_create_attached(), whose traces lie in shared memory that
 * may be slow I/O memory, only the state changes here: the capture is
 * queued to process context (traceN_last and recovery wait for it), as the
 * hung remote no longer writes them.
 *
 * The caller must not report for a remote being destroyed: stop the
 * source of reports first (free the IRQ), as upstream.
 *
 * Context: any but NMI: hardirq (a watchdog interrupt), softirq, task,
 * IRQs off, under raw spinlocks; the core lock is a raw spinlock.
 */
void snaptrace_rproc_report_crash(struct snaptrace_rproc *rproc,
				  enum snaptrace_rproc_crash_type type)
{
	struct snaptrace_rproc_trace *trace;
	unsigned long flags;
	bool queued = false;
	unsigned int cnt;

	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	if (rproc->state != SNAPTRACE_RPROC_RUNNING &&
	    rproc->state != SNAPTRACE_RPROC_ATTACHED) {
		raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
		return;
	}
	WRITE_ONCE(rproc->crash_type, type);	/* read unlocked */
	cnt = ++rproc->crash_cnt;
	/* The platform's timer sees it: the simulated core writes no more. */
	WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_CRASHED);
	/* Queued under the lock: stop, which takes it, then cancels them. */
	if (rproc->ops->coredump)
		queued = rproc->ops->coredump(rproc);
	else
		list_for_each_entry(trace, &rproc->traces, node)
			st_capture(rproc, trace);
	if (READ_ONCE(rproc->recovery))
		schedule_work(&rproc->recovery_work);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);

	dev_err(rproc->dev, "crash #%u detected: type %s; %s\n", cnt,
		st_crash_name(type),
		queued ? "capturing the traces" : "traces captured");
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_report_crash);

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

	if (trace->rproc->ops->coredump_wait)
		trace->rproc->ops->coredump_wait(trace->rproc);
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

/*
 * Recovery, as rproc_boot_recovery(): stop the sub-devices (crashed) and
 * unprepare them, keep the resources, reload the segments of the same
 * image, start everything again. Lock held, crashed.
 */
static int st_boot_recovery(struct snaptrace_rproc *rproc)
{
	const struct firmware *fw;
	int ret;

	dev_err(rproc->dev, "recovering\n");
	rproc->ops->stop(rproc);
	st_subdevs_stop(rproc, true);
	st_subdevs_unprepare(rproc);
	ret = request_firmware_direct(&fw, rproc->firmware, rproc->dev);
	if (ret) {
		dev_err(rproc->dev, "recovery: cannot load firmware %s: %d\n",
			rproc->firmware, ret);
		return ret;
	}
	/* Its resources were set up for the image started: reload only that. */
	if (fw->size != rproc->fw_size ||
	    crc32_le(~0, fw->data, fw->size) != rproc->fw_crc) {
		dev_err(rproc->dev, "recovery: %s changed since the remote started; stop and start it\n",
			rproc->firmware);
		release_firmware(fw);
		return -EINVAL;
	}
	ret = rproc->ops->load ? rproc->ops->load(rproc, fw->data, fw->size) : 0;
	release_firmware(fw);
	if (ret) {
		dev_err(rproc->dev, "recovery: cannot load segments: %d\n", ret);
		return ret;
	}
	ret = st_go(rproc, SNAPTRACE_RPROC_CRASHED);
	if (ret)
		return ret;
	dev_info(rproc->dev, "recovered\n");
	return 0;
}

/*
 * Recovery of a remote its platform restarts, as rproc_attach_recovery():
 * once the platform finds it running what it ran, attach again keeping the
 * resources, with the sub-devices stopped (crashed) and started again.
 * Until then it stays crashed. Lock held, crashed.
 */
static int st_attach_recovery(struct snaptrace_rproc *rproc)
{
	int ret;

	if (rproc->ops->prepare) {
		ret = rproc->ops->prepare(rproc);
		if (ret)
			return ret;
	}
	rproc->ops->stop(rproc);
	st_subdevs_stop(rproc, true);
	st_subdevs_unprepare(rproc);
	ret = st_go(rproc, SNAPTRACE_RPROC_CRASHED);
	if (ret)
		return ret;	/* still crashed: a trigger_recovery() tries again */
	dev_info(rproc->dev, "recovered: attached again\n");
	return 0;
}

static int st_recover_locked(struct snaptrace_rproc *rproc)
{
	if (rproc->deleting)
		return -ENODEV;
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_CRASHED) {
		dev_err(rproc->dev, "recovery: the remote is %s, not crashed\n",
			snaptrace_rproc_state_name(READ_ONCE(rproc->state)));
		return -EINVAL;
	}
	if (rproc->ops->attach_on_recovery)
		return st_attach_recovery(rproc);
	return st_boot_recovery(rproc);
}

/* The crash handler's second half, as rproc_crash_handler_work(). */
static void st_recovery_work(struct work_struct *work)
{
	struct snaptrace_rproc *rproc = container_of(work, struct snaptrace_rproc,
						     recovery_work);

	mutex_lock(&rproc->lock);
	/* Stopped, or recovered by hand, since the crash queued us: nothing to do. */
	if (READ_ONCE(rproc->state) == SNAPTRACE_RPROC_CRASHED)
		st_recover_locked(rproc);
	mutex_unlock(&rproc->lock);
}

/**
 * snaptrace_rproc_trigger_recovery() - recover a crashed remote now
 * @rproc: the remote
 *
 * Stops and unprepares the sub-devices (crashed), reloads the segments of
 * the image it was booted with (refused if the file changed since), and
 * starts the core and the sub-devices again; resources, boot references
 * and the last traces are kept. Whether recovery is enabled does not
 * matter. On failure the remote stays crashed. Mirrors
 * rproc_trigger_recovery(), which returns 0 when the remote has not
 * crashed; here that is an error, as the debugfs "recover" reports.
 *
 * A remote made by snaptrace_rproc_create_attached() is not restarted by
 * the host (its platform does that): it is attached again, keeping its
 * resources, once its heartbeat has moved since the crash and the same
 * resource table is loaded.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EINVAL if the remote has not crashed or its firmware file
 * changed (an attached remote: another resource table is loaded); -EAGAIN
 * for an attached remote whose heartbeat has not moved since the crash
 * (still stuck); -ENODEV if it is being destroyed; the firmware loader's
 * error; a sub-device hook's error.
 */
int snaptrace_rproc_trigger_recovery(struct snaptrace_rproc *rproc)
{
	int ret;

	mutex_lock(&rproc->lock);
	ret = st_recover_locked(rproc);
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_trigger_recovery);

/**
 * snaptrace_rproc_recover() - recover a crashed remote now
 * @rproc: the remote
 *
 * The same as snaptrace_rproc_trigger_recovery(), kept for the callers of
 * its earlier name.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: as snaptrace_rproc_trigger_recovery().
 */
int snaptrace_rproc_recover(struct snaptrace_rproc *rproc)
{
	return snaptrace_rproc_trigger_recovery(rproc);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_recover);

/**
 * snaptrace_rproc_resumed() - a crashed remote runs again
 * @rproc: the remote, restarted by its platform after a crash
 *
 * Queues recovery if it is enabled, as a crash report does: for a platform
 * that restarts its remote on its own (&snaptrace_rproc_ops.attach_on_recovery).
 *
 * Context: any but NMI.
 */
void snaptrace_rproc_resumed(struct snaptrace_rproc *rproc)
{
	if (READ_ONCE(rproc->recovery))
		schedule_work(&rproc->recovery_work);
}

/**
 * snaptrace_rproc_set_firmware() - choose the firmware file
 * @rproc: the remote
 * @name: file name under /lib/firmware: 1..127 printable bytes without
 *	spaces, no "..", not absolute
 *
 * The name is used from the next boot on. Mirrors rproc_set_firmware(),
 * which only refuses an empty name (and cuts it at a newline).
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EBUSY unless offline (running, crashed, attached or
 * detached); -EINVAL for a bad name. Either error leaves the name as it
 * was.
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
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE) {
		dev_err(rproc->dev, "can't change firmware while %s\n",
			snaptrace_rproc_state_name(READ_ONCE(rproc->state)));
		ret = -EBUSY;
	} else {
		strscpy(rproc->firmware, name, sizeof(rproc->firmware));
	}
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_set_firmware);

/**
 * snaptrace_rproc_alloc() - a remote with nothing yet
 * @index: N of remoteprocN
 * @ops: its platform's
 *
 * Its locks, lists and works; the platform sets its device, private data
 * and timer, then snaptrace_rproc_add()s it. Mirrors rproc_alloc().
 *
 * Context: process context, may sleep.
 * Return: the remote, or NULL if out of memory.
 */
struct snaptrace_rproc *snaptrace_rproc_alloc(int index,
					      const struct snaptrace_rproc_ops *ops)
{
	struct snaptrace_rproc *rproc;

	rproc = kzalloc(sizeof(*rproc), GFP_KERNEL);
	if (!rproc)
		return NULL;
	rproc->ops = ops;
	rproc->index = index;
	snprintf(rproc->name, sizeof(rproc->name), "snaptrace-rproc%d", index);
	mutex_init(&rproc->lock);
	raw_spin_lock_init(&rproc->core_lock);
	INIT_LIST_HEAD(&rproc->mems);
	INIT_LIST_HEAD(&rproc->traces);
	INIT_LIST_HEAD(&rproc->vdev_list);
	INIT_LIST_HEAD(&rproc->subdevs);
	INIT_LIST_HEAD(&rproc->carveouts);
	INIT_LIST_HEAD(&rproc->node);
	rproc->recovery = true;
	INIT_WORK(&rproc->recovery_work, st_recovery_work);
	return rproc;
}

/**
 * snaptrace_rproc_add() - make a remote findable
 * @rproc: from snaptrace_rproc_alloc(), set up by its platform
 *
 * Mirrors rproc_add() (the caller creates its debugfs files).
 *
 * Context: process context, may sleep.
 */
void snaptrace_rproc_add(struct snaptrace_rproc *rproc)
{
	mutex_lock(&st_rproc_list_lock);
	list_add_tail(&rproc->node, &st_rproc_list);
	mutex_unlock(&st_rproc_list_lock);
}

/**
 * snaptrace_rproc_free() - free a remote that was never added
 * @rproc: from snaptrace_rproc_alloc()
 *
 * For a platform's error path; mirrors rproc_free().
 *
 * Context: process context, may sleep.
 */
void snaptrace_rproc_free(struct snaptrace_rproc *rproc)
{
	mutex_destroy(&rproc->lock);
	kfree(rproc);
}

/**
 * snaptrace_rproc_destroy() - stop and free a remote
 * @rproc: the remote; NULL or an ERR_PTR() is ignored
 *
 * Stops it, whatever its state and boot references (removing its trace
 * files), removes its debugfs directory (waiting for readers inside), then
 * frees it with its registered carveouts. Sub-devices the platform added
 * must be removed by their owner afterwards, or never used again.
 *
 * Context: process context, may sleep.
 */
void snaptrace_rproc_destroy(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_mem *m, *mn;

	if (IS_ERR_OR_NULL(rproc))
		return;
	mutex_lock(&st_rproc_list_lock);
	list_del_init(&rproc->node);
	mutex_unlock(&st_rproc_list_lock);
	mutex_lock(&rproc->lock);
	rproc->deleting = true;	/* no start or recovery from now on */
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE)
		st_stop_locked(rproc);
	mutex_unlock(&rproc->lock);
	cancel_work_sync(&rproc->recovery_work);
	debugfs_remove(rproc->dir);
	rproc->ops->free(rproc);
	list_for_each_entry_safe(m, mn, &rproc->carveouts, reg_node)
		kfree(m);
	snaptrace_rproc_free(rproc);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_destroy);

/**
 * snaptrace_rproc_get_by_index() - find a remote by its number
 * @index: N of remoteprocN
 *
 * The remote stays valid while snaptrace.ko is loaded, which a module
 * calling this function keeps it (no reference is taken, unlike
 * rproc_get_by_phandle(), which this mirrors).
 *
 * Context: process context, may sleep.
 * Return: the remote, or NULL if there is none with that number.
 */
struct snaptrace_rproc *snaptrace_rproc_get_by_index(int index)
{
	struct snaptrace_rproc *rproc, *found = NULL;

	mutex_lock(&st_rproc_list_lock);
	list_for_each_entry(rproc, &st_rproc_list, node) {
		if (rproc->index == index) {
			found = rproc;
			break;
		}
	}
	mutex_unlock(&st_rproc_list_lock);
	return found;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_get_by_index);

/**
 * snaptrace_rproc_add_subdev() - add a sub-device to a remote
 * @rproc: the remote, offline
 * @subdev: its hooks filled in (each may be NULL); @subdev->node is ours
 *	until snaptrace_rproc_remove_subdev()
 *
 * From the next boot on, @subdev is prepared before the remote's core
 * starts, started after it, stopped before it stops and unprepared after
 * (see &struct snaptrace_rproc_subdev for order and unwinding), and the
 * same around recovery (stopped with crashed set) and detach/attach. Added
 * sub-devices come before the vdevs of the firmware. Mirrors
 * rproc_add_subdev(), which also takes sub-devices of a running remote
 * (and would stop one it never started).
 *
 * Context: process context, may sleep. Takes the remote's lock: not from
 * a sub-device hook.
 * Return: 0; -EBUSY unless the remote is offline; -EINVAL for a NULL
 * @subdev.
 */
int snaptrace_rproc_add_subdev(struct snaptrace_rproc *rproc,
			       struct snaptrace_rproc_subdev *subdev)
{
	struct snaptrace_rproc_vdev *v;
	int ret = 0;

	if (!subdev)
		return -EINVAL;
	mutex_lock(&rproc->lock);
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE) {
		dev_err(rproc->dev, "add_subdev %s: the remote is %s, not offline\n",
			subdev->name ?: "?",
			snaptrace_rproc_state_name(READ_ONCE(rproc->state)));
		ret = -EBUSY;
	} else if (list_empty(&rproc->vdev_list)) {
		list_add_tail(&subdev->node, &rproc->subdevs);
	} else {	/* before the vdevs (none while offline, but keep it so) */
		v = list_first_entry(&rproc->vdev_list, struct snaptrace_rproc_vdev, node);
		list_add_tail(&subdev->node, &v->subdev.node);
	}
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_add_subdev);

/**
 * snaptrace_rproc_remove_subdev() - remove a sub-device from a remote
 * @rproc: the remote, offline
 * @subdev: added with snaptrace_rproc_add_subdev()
 *
 * Mirrors rproc_remove_subdev().
 *
 * Context: process context, may sleep. Takes the remote's lock: not from
 * a sub-device hook.
 * Return: 0; -EBUSY unless the remote is offline (its hooks may still be
 * due); -EINVAL for a NULL @subdev.
 */
int snaptrace_rproc_remove_subdev(struct snaptrace_rproc *rproc,
				  struct snaptrace_rproc_subdev *subdev)
{
	int ret = 0;

	if (!subdev)
		return -EINVAL;
	mutex_lock(&rproc->lock);
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE) {
		dev_err(rproc->dev, "remove_subdev %s: the remote is %s, not offline\n",
			subdev->name ?: "?",
			snaptrace_rproc_state_name(READ_ONCE(rproc->state)));
		ret = -EBUSY;
	} else {
		list_del_init(&subdev->node);
	}
	mutex_unlock(&rproc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_remove_subdev);
