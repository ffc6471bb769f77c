/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace remote processors: the internal header of the rproc_*.c files
 * (upstream's remoteproc_internal.h): the remote, the platforms' ops and
 * what each file offers the others.
 */
#ifndef _SNAPTRACE_RPROC_H
#define _SNAPTRACE_RPROC_H

#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <snaptrace/rproc.h>
#include <snaptrace/rsc_table.h>

#include "persist.h"

struct dentry;
struct device;
struct platform_device;
struct snaptrace_buffer;
struct snaptrace_keeper;

#define SNAPTRACE_RPROC_MAX		8
#define SNAPTRACE_RPROC_FW_NAME_MAX	128
#define SNAPTRACE_RPROC_MAX_REGIONS	8
/*
 * Largest trace buffer we keep a last copy of, in bytes. A capture in
 * atomic context holds one reservation, so one level of preempt_count
 * (8 bits), per 2 KiB piece until its snapshot: 128 pieces at most.
 */
#define SNAPTRACE_RPROC_TRACE_MAX	SZ_256K
/* At most this many traces, of at most this many bytes in all. */
#define SNAPTRACE_RPROC_MAX_TRACES	8
#define SNAPTRACE_RPROC_TRACES_TOTAL	SZ_1M
/* Largest carveout, devmem or layout region backed with host memory. */
#define SNAPTRACE_RPROC_MEM_MAX		SZ_16M
/* At most this many carveouts and devmems. */
#define SNAPTRACE_RPROC_MAX_MEMS	32

/* Bounds of an attached remote's watchdog timeout, in ms. */
#define SNAPTRACE_RPROC_WATCHDOG_MIN_MS	100U
#define SNAPTRACE_RPROC_WATCHDOG_MAX_MS	600000U

struct snaptrace_rproc;

/**
 * struct snaptrace_rproc_ops - what a platform does for the core
 * @parse_fw: find the image's resource table and make rproc->table a
 *	private copy of it, or note where the remote has it loaded
 *	(@get_loaded_rsc_table copies it then); mirrors ops->parse_fw. A
 *	platform that boots an image without a table returns 0 and leaves
 *	rproc->table NULL: no resources are handled
 * @get_loaded_rsc_table: once the platform memory is mapped, copy the
 *	table the remote has loaded into rproc->table (may be NULL: the
 *	image's table is the one used); mirrors ops->get_loaded_rsc_table
 * @add_mem: place a firmware carveout or devmem that no platform region
 *	holds; NULL allocates host memory for it (snaptrace_rproc_mem_alloc())
 * @load: load the image into the remote's memory (may be NULL: the remote
 *	loaded itself); mirrors ops->load
 * @start: start the remote and publish its state (running, or attached
 *	for one that boots on its own); lock held; mirrors ops->start
 * @stop: stop what @start started, after the core published the new state
 *	(offline, crashed or detached); lock held; mirrors ops->stop
 * @prepare: before the host attaches again to a remote that ran without
 *	it (detached, or crashed and restarted by its platform): check it runs
 *	what it ran (may be NULL); lock held. Unlike upstream's ops->prepare,
 *	not called before a boot from an image
 * @attach: start watching a detached remote again (may be NULL); lock
 *	held; mirrors ops->attach
 * @detach: stop watching a remote that runs on without the host (may be
 *	NULL: nothing to do); lock held; mirrors ops->detach
 * @coredump: capture the traces after a crash (may be NULL: the core
 *	copies them at once, snaptrace_rproc_capture_traces()); called with
 *	the core lock held, IRQs off, so it must not sleep: it may only queue
 *	the capture to process context, and returns true if it did. Unlike
 *	upstream's ops->coredump, which runs in process context at recovery
 * @coredump_wait: wait for a capture @coredump queued (may be NULL);
 *	process context
 * @booted: say that the remote booted (or was attached to) from its image
 *
 * @parse_fw, @start, @stop, @booted and @free are required
 * (snaptrace_rproc_alloc() refuses ops without them).
 * @release: the firmware's resources were given back: drop what the
 *	platform kept of them (may be NULL); lock held
 * @free: the remote is being freed: give back the platform's part
 * @attach_on_recovery: recovery attaches again (its platform restarts the
 *	remote) instead of reloading the image; as RPROC_FEAT_ATTACH_ON_RECOVERY
 *
 * Mirrors struct rproc_ops, without da_to_va (a platform registers all
 * its memory, as layout regions or carveouts: snaptrace_rproc_da_to_va()
 * finds it there, for remotes of any platform, even KUnit's bare ones)
 * and kick (no virtio transport to notify a vring).
 */
struct snaptrace_rproc_ops {
	int (*parse_fw)(struct snaptrace_rproc *rproc, const u8 *elf, size_t size);
	int (*get_loaded_rsc_table)(struct snaptrace_rproc *rproc, const u8 *elf,
				    size_t size);
	int (*add_mem)(struct snaptrace_rproc *rproc, const char *kind, u32 da,
		       u32 len, const u8 *name, int offset);
	int (*load)(struct snaptrace_rproc *rproc, const u8 *elf, size_t size);
	void (*start)(struct snaptrace_rproc *rproc);
	void (*stop)(struct snaptrace_rproc *rproc);
	int (*prepare)(struct snaptrace_rproc *rproc);
	void (*attach)(struct snaptrace_rproc *rproc);
	void (*detach)(struct snaptrace_rproc *rproc);
	bool (*coredump)(struct snaptrace_rproc *rproc);
	void (*coredump_wait)(struct snaptrace_rproc *rproc);
	void (*booted)(struct snaptrace_rproc *rproc);
	void (*release)(struct snaptrace_rproc *rproc);
	void (*free)(struct snaptrace_rproc *rproc);
	bool attach_on_recovery;
};

/**
 * struct snaptrace_rproc_attach_ops - what a platform provides for a remote
 *	that boots on its own and is attached to (upstream's RPROC_DETACHED)
 * @heartbeat: the remote's heartbeat counter: any value, as long as it
 *	changes while the remote runs. Context: hardirq (the watchdog's
 *	hrtimer); must not sleep.
 */
struct snaptrace_rproc_attach_ops {
	u32 (*heartbeat)(void *priv);
};

/**
 * struct snaptrace_rproc_trace - a trace buffer of the running firmware
 * @node: in &snaptrace_rproc.traces
 * @rproc: owner
 * @index: N of traceN
 * @da: device address of the buffer
 * @len: length in bytes
 * @name: the firmware's name for it, bounded
 * @keeper: its keeper (trace_keeper.h): its files, its last copy;
 *	&snaptrace_rproc.keepers owns it
 */
struct snaptrace_rproc_trace {
	struct list_head node;
	struct snaptrace_rproc *rproc;
	int index;
	u32 da;
	u32 len;
	char name[SNAPTRACE_RSC_NAME_LEN + 1];
	struct snaptrace_keeper *keeper;
};

/* At most this many vrings per vdev, as upstream's struct rproc_vdev. */
#define SNAPTRACE_RPROC_MAX_VRINGS	2

/**
 * struct snaptrace_rproc_vring - a vring of a vdev sub-device
 * @da: device address from the entry (or %SNAPTRACE_FW_RSC_ADDR_ANY)
 * @align: alignment in bytes
 * @num: number of buffers
 * @notifyid: notification id the host gave it (written back into the
 *	resource table, as rproc_alloc_vring() does)
 */
struct snaptrace_rproc_vring {
	u32 da;
	u32 align;
	u32 num;
	u32 notifyid;
};

/**
 * struct snaptrace_rproc_vdev - a vdev resource entry, as a sub-device
 * @subdev: its hooks, in &snaptrace_rproc.subdevs
 * @node: in &snaptrace_rproc.vdev_list
 * @rproc: owner
 * @index: N of vdevN, in table order
 * @id: virtio device id
 * @offset: offset of the entry in the resource table
 * @num_vrings: entries used in @vring
 * @vring: its vrings
 * @status: "handled", "prepared", "started", "stopped", "crashed"
 * @name: "vdevN", the sub-device's name
 *
 * Mirrors struct rproc_vdev, without a virtio transport: the hooks only
 * record where the lifecycle is.
 */
struct snaptrace_rproc_vdev {
	struct snaptrace_rproc_subdev subdev;
	struct list_head node;
	struct snaptrace_rproc *rproc;
	int index;
	u32 id;
	int offset;
	int num_vrings;
	struct snaptrace_rproc_vring vring[SNAPTRACE_RPROC_MAX_VRINGS];
	const char *status;
	char name[16];
};

/**
 * struct snaptrace_rproc - one remote processor, of any platform
 * @ops: its platform's
 * @priv: its platform's private data
 * @dev: its device (messages, the firmware loader): the platform's
 * @index: N of remoteprocN
 * @name: its name
 * @lock: serialises start, stop, recovery and firmware changes
 * @state: an &enum snaptrace_rproc_state; read locklessly
 * @firmware: firmware file name, under /lib/firmware
 * @mems: regions, carveouts and devmems, as da_to_va() searches them
 * @traces: the firmware's trace buffers
 * @num_traces: entries in @traces
 * @keepers: the keeper of each trace number the remote has had, with its
 *	last copy: kept across stops, freed with the remote
 * @vdevs: vdev entries seen, recorded as sub-devices
 * @vdev_list: those sub-devices (&struct snaptrace_rproc_vdev)
 * @subdevs: sub-devices started and stopped with the remote: those the
 *	platform added, then the vdevs (&struct snaptrace_rproc_subdev)
 * @subdevs_prepared: the prepare hooks ran and unprepare has not
 * @subdevs_started: the start hooks ran and stop has not
 * @carveouts: carveouts the platform registered (snaptrace_rproc_add_carveout())
 * @power: boot references (snaptrace_rproc_boot()); lock held
 * @crash_cnt: crashes reported
 * @node: in the list of every remote (snaptrace_rproc_get_by_index())
 * @table: copy of the firmware's resource table; @table_sz bytes
 * @table_sz: size of @table
 * @recovery: recover automatically after a crash
 * @crash_type: type of the last crash
 * @recovery_work: stops and restarts the remote after a crash
 * @core_lock: state changes against the crash capture and the platform's
 *	timer (the simulated core's log writes, the attached remote's
 *	watchdog), which its platform keeps in @priv
 * @nr_mems: carveouts and devmems in @mems
 * @traces_len: bytes of all traces
 * @fw_size: size of the image started, so recovery reloads the same one
 * @fw_crc: its CRC32
 * @deleting: being destroyed: no start or recovery any more
 * @dir: debugfs remoteprocN
 */
struct snaptrace_rproc {
	const struct snaptrace_rproc_ops *ops;
	void *priv;
	struct device *dev;
	int index;
	char name[32];
	struct mutex lock;		/* start, stop, recovery, firmware */
	int state;
	char firmware[SNAPTRACE_RPROC_FW_NAME_MAX];
	struct list_head mems;
	struct list_head traces;
	int num_traces;
	struct snaptrace_keeper *keepers[SNAPTRACE_RPROC_MAX_TRACES];
	int vdevs;
	struct list_head vdev_list;
	struct list_head subdevs;
	bool subdevs_prepared;
	bool subdevs_started;
	struct list_head carveouts;
	int power;
	unsigned int crash_cnt;
	struct list_head node;
	void *table;
	size_t table_sz;
	bool recovery;
	int crash_type;
	struct work_struct recovery_work;
	raw_spinlock_t core_lock;
	int nr_mems;
	size_t traces_len;
	size_t fw_size;
	u32 fw_crc;
	bool deleting;
	struct dentry *dir;
};

/**
 * snaptrace_rproc_state_name() - a state as debugfs "state" shows it
 * @state: an &enum snaptrace_rproc_state
 *
 * Context: any.
 * Return: "offline", "running", "crashed", "attached" or "detached", as
 * upstream's sysfs "state" names them.
 */
static inline const char *snaptrace_rproc_state_name(int state)
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

/**
 * snaptrace_rproc_rsc_name() - a resource entry's name as a string
 * @dst: %SNAPTRACE_RSC_NAME_LEN + 1 bytes
 * @name: the entry's %SNAPTRACE_RSC_NAME_LEN bytes, maybe not NUL-terminated
 *
 * Context: any.
 */
static inline void snaptrace_rproc_rsc_name(char *dst, const u8 *name)
{
	memcpy(dst, name, SNAPTRACE_RSC_NAME_LEN);
	dst[SNAPTRACE_RSC_NAME_LEN] = '\0';
}

/*
 * The files, in layers: the platforms (rproc_sim.c, rproc_attach.c, and
 * rproc_ivshmem.c, the PCI driver of the attach platform) and debugfs call
 * the core; the core calls memory, traces and vdevs; nothing calls upward
 * but through &struct snaptrace_rproc_ops.
 */

/* rproc_core.c: the life cycle (and, for platforms, alloc/add/free) */
struct snaptrace_rproc *snaptrace_rproc_alloc(int index,
					      const struct snaptrace_rproc_ops *ops);
void snaptrace_rproc_add(struct snaptrace_rproc *rproc);
void snaptrace_rproc_free(struct snaptrace_rproc *rproc);
int snaptrace_rproc_table_check(struct snaptrace_rproc *rproc, int ret,
				size_t sz);
int snaptrace_rproc_boot_image(struct snaptrace_rproc *rproc, const u8 *elf,
			       size_t size);
void snaptrace_rproc_resumed(struct snaptrace_rproc *rproc);
void snaptrace_rproc_destroy(struct snaptrace_rproc *rproc);
int snaptrace_rproc_start(struct snaptrace_rproc *rproc);
int snaptrace_rproc_stop(struct snaptrace_rproc *rproc);
int snaptrace_rproc_recover(struct snaptrace_rproc *rproc);

/* rproc_mem.c: the remote's memory */
struct snaptrace_rproc_mem *snaptrace_rproc_find_mem(struct snaptrace_rproc *rproc,
						     u64 da, size_t len, u32 *off);
bool snaptrace_rproc_mem_overlaps(struct snaptrace_rproc *rproc, u32 da, u32 len);
int snaptrace_rproc_mem_view(struct snaptrace_rproc *rproc, const char *kind,
			     u32 da, u32 len, const u8 *name, int offset);
int snaptrace_rproc_mem_add_layout(struct snaptrace_rproc *rproc);
void snaptrace_rproc_mem_free(struct snaptrace_rproc *rproc);
int snaptrace_rproc_handle_carveout(struct snaptrace_rproc *rproc, void *ptr,
				    int offset, int avail);
int snaptrace_rproc_handle_devmem(struct snaptrace_rproc *rproc, void *ptr,
				  int offset, int avail);

/* rproc_trace.c: traces, their files and the crash capture */
int snaptrace_rproc_handle_trace(struct snaptrace_rproc *rproc, void *ptr,
				 int offset, int avail);
const char *snaptrace_rproc_crash_name(unsigned int type);
void snaptrace_rproc_capture_traces(struct snaptrace_rproc *rproc);
void snaptrace_rproc_capture_trace_slow(struct snaptrace_rproc *rproc,
					struct snaptrace_rproc_trace *trace);
void snaptrace_rproc_trace_files_add(struct snaptrace_rproc *rproc);
void snaptrace_rproc_trace_files_remove(struct snaptrace_rproc *rproc);
void snaptrace_rproc_trace_free(struct snaptrace_rproc *rproc);
void snaptrace_rproc_keepers_free(struct snaptrace_rproc *rproc);

/* rproc_vdev.c: sub-devices and vdevs */
int snaptrace_rproc_handle_vdev(struct snaptrace_rproc *rproc, void *ptr,
				int offset, int avail);
int snaptrace_rproc_subdevs_prepare(struct snaptrace_rproc *rproc);
int snaptrace_rproc_subdevs_start(struct snaptrace_rproc *rproc);
void snaptrace_rproc_subdevs_stop(struct snaptrace_rproc *rproc, bool crashed);
void snaptrace_rproc_subdevs_unprepare(struct snaptrace_rproc *rproc);
void snaptrace_rproc_vdev_free(struct snaptrace_rproc *rproc);

/* rproc_sim.c: the simulated platform */
struct snaptrace_rproc *snaptrace_rproc_create(int index, const char *layout);
#if IS_ENABLED(CONFIG_KUNIT)
u32 snaptrace_rproc_sim_seq(struct snaptrace_rproc *rproc);
#endif

/* rproc_attach.c: the attach platform */
struct snaptrace_rproc *
snaptrace_rproc_create_attached(int index, const char *name, struct device *dev,
				const struct snaptrace_rproc_mem *shared,
				const struct snaptrace_rproc_attach_ops *ops,
				void *priv, unsigned int watchdog_ms);
int snaptrace_rproc_attach_image(struct snaptrace_rproc *rproc, const u8 *elf,
				 size_t size);
int snaptrace_rproc_set_watchdog(struct snaptrace_rproc *rproc,
				 unsigned int watchdog_ms);

/* main.c */
struct dentry *snaptrace_rproc_debugfs_dir(void);

/* rproc_debugfs.c */
int snaptrace_rproc_debugfs_create(struct snaptrace_rproc *rproc,
				   struct dentry *parent);

/* rproc_ivshmem.c */
#if IS_ENABLED(CONFIG_PCI)
int snaptrace_ivshmem_init(struct dentry *rproc_dir, int first_index);
void snaptrace_ivshmem_exit(void);
#else
static inline int snaptrace_ivshmem_init(struct dentry *rproc_dir, int first_index)
{
	return 0;
}

static inline void snaptrace_ivshmem_exit(void)
{
}
#endif

#endif /* _SNAPTRACE_RPROC_H */
