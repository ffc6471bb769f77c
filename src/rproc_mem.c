// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: memory. What the remote sees at its device
 * addresses: the platform's regions (carveouts the platform registered:
 * the simulated platform's layout, the attach platform's shared memory),
 * and the carveouts and devmems its resource table asks for,
 * placed in a platform region of their name, by the platform, or in host
 * memory; da_to_va() and read_da() over them, without overflow. Upstream
 * has this in remoteproc_core.c (rproc_da_to_va(), rproc_add_carveout(),
 * rproc_handle_carveout(), rproc_handle_devmem(), rproc_alloc_registered_carveouts()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <snaptrace/rproc.h>
#include "fw.h"
#include "rproc.h"

/* Where carveouts with SNAPTRACE_FW_RSC_ADDR_ANY are placed. */
#define ST_RPROC_ANY_BASE	0xc0000000U

/**
 * snaptrace_rproc_find_mem() - the mapping that holds a range
 * @rproc: the remote
 * @da: device address
 * @len: length in bytes
 * @off: set to @da's offset in the mapping found
 *
 * Context: any; never sleeps. As snaptrace_rproc_da_to_va() for the
 * memory list.
 * Return: the one mapping that wholly holds [@da, @da + @len), or NULL
 * (also for @len 0).
 */
struct snaptrace_rproc_mem *snaptrace_rproc_find_mem(struct snaptrace_rproc *rproc,
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

	m = snaptrace_rproc_find_mem(rproc, da, len, &off);
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

	m = snaptrace_rproc_find_mem(rproc, da, len, &off);
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
		snaptrace_dev_err(dev, "registered carveout %s (len 0x%x) doesn't fit len request 0x%x\n",
				  mem->name, mem->len, len);
		return -EINVAL;
	}
	if (da == (u32)SNAPTRACE_FW_RSC_ADDR_ANY)
		return 0;
	if (mem->da == (u32)SNAPTRACE_FW_RSC_ADDR_ANY) {
		snaptrace_dev_err(dev, "registered carveout %s has no fixed address: da 0x%x cannot match\n",
				  mem->name, da);
		return -EINVAL;
	}
	if (da < mem->da) {
		snaptrace_dev_err(dev, "registered carveout %s at 0x%x doesn't fit da request 0x%x\n",
				  mem->name, mem->da, da);
		return -EINVAL;
	}
	if ((u64)(da - mem->da) + len > mem->len) {
		snaptrace_dev_err(dev, "registered carveout %s (da 0x%x len 0x%x) doesn't fit len request 0x%x at 0x%x\n",
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
 * A platform region (a registered carveout: the simulated platform's
 * layout regions are too) named @name, or NULL. Lock held, or the remote
 * not yet shared.
 */
static struct snaptrace_rproc_mem *
st_find_platform_mem(struct snaptrace_rproc *rproc, const char *name)
{
	struct snaptrace_rproc_mem *m;

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
	int n = 0, ret = 0;

	if (!mem || !mem->len || mem->da == (u32)SNAPTRACE_FW_RSC_ADDR_ANY ||
	    (u64)mem->da + mem->len > BIT_ULL(32) ||
	    (!(mem->is_iomem ? !!mem->io : !!mem->va) && !mem->alloc) ||
	    !mem->name[0]) {
		snaptrace_dev_err(rproc->dev, "add_carveout %s: want a name, a fixed da, 0 < len within 32 bits, and a va or an alloc hook\n",
				  mem ? mem->name : "(null)");
		return -EINVAL;
	}
	mutex_lock(&rproc->lock);
	if (rproc->deleting) {
		ret = -ENODEV;
		goto unlock;
	}
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE) {
		snaptrace_dev_err(rproc->dev, "add_carveout %s: the remote is not offline\n",
				  mem->name);
		ret = -EBUSY;
		goto unlock;
	}
	if (st_find_platform_mem(rproc, mem->name)) {
		snaptrace_dev_err(rproc->dev, "add_carveout %s: the name is already registered\n",
				  mem->name);
		ret = -EINVAL;
		goto unlock;
	}
	list_for_each_entry(m, &rproc->carveouts, reg_node) {
		n++;
		if (st_ranges_overlap(mem->da, mem->len, m->da, m->len))
			ret = -EINVAL;
	}
	if (ret || n == SNAPTRACE_RPROC_MAX_MEMS) {
		snaptrace_dev_err(rproc->dev, "add_carveout %s: da 0x%x len 0x%x overlaps a platform region, or more than %d carveouts\n",
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

	in = snaptrace_rproc_find_mem(rproc, da, len, &off);
	if (!in) {
		snaptrace_dev_err(rproc->dev, "%s at offset %d: da 0x%x len 0x%x is not inside the memory shared with the remote\n",
				  kind, offset, da, len);
		return -EINVAL;
	}
	if (rproc->nr_mems == SNAPTRACE_RPROC_MAX_MEMS) {
		snaptrace_dev_err(rproc->dev, "%s at offset %d: more than %d carveouts and devmems\n",
				  kind, offset, SNAPTRACE_RPROC_MAX_MEMS);
		return -EINVAL;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	snaptrace_rproc_rsc_name(m->name, name);
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
		snaptrace_dev_err(rproc->dev, "%s at offset %d: len 0x%x not in 1..0x%x\n",
				  kind, offset, len, SNAPTRACE_RPROC_MEM_MAX);
		return -EINVAL;
	}
	if (rproc->nr_mems == SNAPTRACE_RPROC_MAX_MEMS) {
		snaptrace_dev_err(rproc->dev, "%s at offset %d: more than %d carveouts and devmems\n",
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
		snaptrace_dev_err(rproc->dev, "%s at offset %d: da 0x%x len 0x%x overlaps the remote's memory or passes 4 GiB\n",
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
	snaptrace_rproc_rsc_name(m->name, name);
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

	snaptrace_rproc_rsc_name(name, c->name);
	m = st_find_platform_mem(rproc, name);
	if (!m)
		return 1;
	if (m->rsc_offset != -1) {
		snaptrace_dev_err(rproc->dev, "carveout at offset %d: %s already associated to resource table\n",
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

/**
 * snaptrace_rproc_mem_add_layout() - map the platform's memory at boot
 * @rproc: the remote, offline, its memory list empty
 *
 * The platform's memory joins the remote's mappings: the registered
 * carveouts (the simulated platform's layout regions among them), each
 * allocated by its hook, as rproc_alloc_registered_carveouts().
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0; -ENOMEM if an alloc hook failed; -EINVAL if it gave no
 * memory. Either way what was mapped is given back by
 * snaptrace_rproc_mem_free().
 */
int snaptrace_rproc_mem_add_layout(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_mem *m;
	int ret;

	list_for_each_entry(m, &rproc->carveouts, reg_node) {
		if (m->alloc) {
			ret = m->alloc(rproc, m);
			if (ret) {
				snaptrace_dev_err(rproc->dev, "unable to allocate carveout %s: %d\n",
						  m->name, ret);
				return -ENOMEM;
			}
		}
		/* Released by snaptrace_rproc_mem_free() from here on. */
		list_add_tail(&m->node, &rproc->mems);
		if (m->is_iomem ? !m->io : !m->va) {
			snaptrace_dev_err(rproc->dev, "carveout %s: its alloc hook gave no memory\n",
					  m->name);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * snaptrace_rproc_mem_free() - give back the memory of the firmware's resources
 * @rproc: the remote, stopped
 *
 * Frees the carveouts and devmems allocated for it, releases the
 * registered carveouts (their release hook) and empties the memory list:
 * the registered carveouts stay the platform's.
 *
 * Context: process context, may sleep; the remote's lock is held.
 */
void snaptrace_rproc_mem_free(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_mem *m, *mn;

	list_for_each_entry_safe(m, mn, &rproc->mems, node) {
		list_del(&m->node);
		m->rsc_offset = -1;
		if (m->registered) {
			if (m->alloc && m->release)
				m->release(rproc, m);
		} else {
			/* Views of the remote's memory have no release. */
			if (m->release)
				m->release(rproc, m);
			kfree(m);
		}
	}
	INIT_LIST_HEAD(&rproc->mems);
	rproc->nr_mems = 0;
}
