/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace remote processors: the kernel API other modules use, mirroring
 * include/linux/remoteproc.h (rproc_boot(), rproc_shutdown(),
 * rproc_report_crash(), rproc_add_carveout(), rproc_add_subdev(), ...).
 * The kernel-doc of each function is in src/rproc_core.c (life cycle),
 * src/rproc_mem.c (memory) and src/rproc_vdev.c (sub-devices).
 *
 * A remote is found with snaptrace_rproc_get_by_index(); it lives as long
 * as snaptrace.ko, which a module calling these functions keeps loaded.
 */
#ifndef _SNAPTRACE_RPROC_API_H
#define _SNAPTRACE_RPROC_API_H

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/types.h>

#include <snaptrace/rsc_table.h>

struct device;
struct snaptrace_rproc;

/**
 * enum snaptrace_rproc_state - what a remote is doing
 * @SNAPTRACE_RPROC_OFFLINE: stopped, no firmware resources held
 * @SNAPTRACE_RPROC_RUNNING: running the firmware the host booted it with
 * @SNAPTRACE_RPROC_CRASHED: crashed; resources held until recovery or stop
 * @SNAPTRACE_RPROC_ATTACHED: running, started without the host (a remote
 *	that boots on its own, such as the ivshmem one, or one reattached
 *	after a detach); the host uses it as if it had booted it
 * @SNAPTRACE_RPROC_DETACHED: running without the host: the host gave up
 *	its trace files and sub-devices, the remote keeps its memory and runs on
 *
 * Mirrors enum rproc_state (no RPROC_SUSPENDED: nothing suspends a remote).
 */
enum snaptrace_rproc_state {
	SNAPTRACE_RPROC_OFFLINE,
	SNAPTRACE_RPROC_RUNNING,
	SNAPTRACE_RPROC_CRASHED,
	SNAPTRACE_RPROC_ATTACHED,
	SNAPTRACE_RPROC_DETACHED,
};

/**
 * enum snaptrace_rproc_crash_type - upstream's crash codes
 * @SNAPTRACE_RPROC_MMUFAULT: iommu fault
 * @SNAPTRACE_RPROC_WATCHDOG: watchdog bite
 * @SNAPTRACE_RPROC_FATAL_ERROR: fatal error
 *
 * Mirrors enum rproc_crash_type.
 */
enum snaptrace_rproc_crash_type {
	SNAPTRACE_RPROC_MMUFAULT,
	SNAPTRACE_RPROC_WATCHDOG,
	SNAPTRACE_RPROC_FATAL_ERROR,
};

struct snaptrace_rproc_mem;

/* Hooks of a registered carveout, called at each boot and shutdown. */
typedef int (*snaptrace_rproc_mem_fn)(struct snaptrace_rproc *rproc,
				      struct snaptrace_rproc_mem *mem);

/**
 * struct snaptrace_rproc_mem - memory the remote sees at a device address
 * @node: in the remote's list of mappings, as da_to_va() searches them
 * @reg_node: in the remote's registered carveouts (snaptrace_rproc_add_carveout())
 * @name: region, carveout or devmem name (NUL-terminated)
 * @da: device address
 * @len: length in bytes
 * @va: host address of the memory; NULL when @is_iomem
 * @io: its I/O mapping when @is_iomem, else NULL; da_to_va() does not
 *	hand it out: read it with snaptrace_rproc_read_da()
 * @kind: "region" (platform layout), "carveout" or "devmem"
 * @is_iomem: the memory is I/O memory, mapped at @io
 * @registered: registered by the platform (snaptrace_rproc_add_carveout()):
 *	kept across boots, freed with the remote
 * @rsc_offset: offset of the firmware's carveout entry matched to this one
 *	by name, or -1
 * @flags: that entry's flags
 * @alloc: called at each boot before the memory is used, may set @va
 *	(or @io and @is_iomem)
 * @release: called at each shutdown when @alloc succeeded at boot
 * @priv: for @alloc and @release
 *
 * Mirrors struct rproc_mem_entry (no dma, no of_resm_idx: the simulated
 * remote's memory is host memory), whose va is an __iomem address cast
 * away when is_iomem: here I/O memory keeps its address space in @io.
 */
struct snaptrace_rproc_mem {
	struct list_head node;
	struct list_head reg_node;
	char name[SNAPTRACE_RSC_NAME_LEN + 1];
	u32 da;
	u32 len;
	void *va;
	void __iomem *io;
	const char *kind;
	bool is_iomem;
	bool registered;
	int rsc_offset;
	u32 flags;
	snaptrace_rproc_mem_fn alloc;
	snaptrace_rproc_mem_fn release;
	void *priv;
};

/**
 * struct snaptrace_rproc_subdev - a sub-device started and stopped with its remote
 * @node: in the remote's list of sub-devices
 * @name: shown in debugfs "subdevs" (may be NULL)
 * @prepare: before the remote starts (may be NULL); an error fails the boot
 * @start: after the remote started (may be NULL); an error fails the boot
 * @stop: before the remote stops, @crashed if it crashed (may be NULL)
 * @unprepare: after the remote stopped (may be NULL)
 *
 * Hooks run in process context with the remote's lock held: they may sleep
 * but must not call back into the remote's API. Prepare and start run in
 * list order, stop and unprepare in reverse; when a hook fails, the hooks
 * that ran are undone in reverse (stop with @crashed true, as upstream).
 *
 * Mirrors struct rproc_subdev.
 */
struct snaptrace_rproc_subdev {
	struct list_head node;
	const char *name;
	int (*prepare)(struct snaptrace_rproc_subdev *subdev);
	int (*start)(struct snaptrace_rproc_subdev *subdev);
	void (*stop)(struct snaptrace_rproc_subdev *subdev, bool crashed);
	void (*unprepare)(struct snaptrace_rproc_subdev *subdev);
};

struct snaptrace_rproc *snaptrace_rproc_get_by_index(int index);
int snaptrace_rproc_boot(struct snaptrace_rproc *rproc);
int snaptrace_rproc_shutdown(struct snaptrace_rproc *rproc);
int snaptrace_rproc_detach(struct snaptrace_rproc *rproc);
int snaptrace_rproc_set_firmware(struct snaptrace_rproc *rproc, const char *name);
void snaptrace_rproc_report_crash(struct snaptrace_rproc *rproc,
				  enum snaptrace_rproc_crash_type type);
int snaptrace_rproc_trigger_recovery(struct snaptrace_rproc *rproc);
int snaptrace_rproc_get_state(struct snaptrace_rproc *rproc);
void *snaptrace_rproc_da_to_va(struct snaptrace_rproc *rproc, u64 da,
			       size_t len, bool *is_iomem);
int snaptrace_rproc_read_da(struct snaptrace_rproc *rproc, u64 da, void *dst,
			    size_t len);

__printf(7, 8)
struct snaptrace_rproc_mem *
snaptrace_rproc_mem_entry_init(struct device *dev, void *va, size_t len, u32 da,
			       snaptrace_rproc_mem_fn alloc,
			       snaptrace_rproc_mem_fn release,
			       const char *name, ...);
int snaptrace_rproc_add_carveout(struct snaptrace_rproc *rproc,
				 struct snaptrace_rproc_mem *mem);
int snaptrace_rproc_check_carveout_da(struct snaptrace_rproc *rproc,
				      const struct snaptrace_rproc_mem *mem,
				      u32 da, u32 len);

int snaptrace_rproc_add_subdev(struct snaptrace_rproc *rproc,
			       struct snaptrace_rproc_subdev *subdev);
int snaptrace_rproc_remove_subdev(struct snaptrace_rproc *rproc,
				  struct snaptrace_rproc_subdev *subdev);

#endif /* _SNAPTRACE_RPROC_API_H */
