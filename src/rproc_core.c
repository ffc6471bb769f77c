// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: the core, a remoteproc-style life cycle on
 * kernels without CONFIG_REMOTEPROC (upstream's remoteproc_core.c). It
 * knows no platform: each one (rproc_sim.c, the simulated remote;
 * rproc_attach.c, a remote that boots on its own) is behind
 * &struct snaptrace_rproc_ops, as upstream's platform drivers are behind
 * struct rproc_ops.
 *
 * Booting a remote maps its platform memory, has the platform find the
 * resource table, handles the resources through tables of handlers
 * indexed by type (rproc_mem.c: carveouts and devmems; rproc_trace.c:
 * traces; rproc_vdev.c: vdevs), has the platform load the image, and
 * starts the sub-devices around the platform's start. A crash, reported
 * from any context, marks the remote crashed and captures every trace
 * (rproc_trace.c, or the platform's coredump op); recovery, like
 * upstream's, keeps the resources and reloads the image, or attaches
 * again to a remote its platform restarted. Detach lets the remote run on
 * without the host; boot attaches to it again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/firmware.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <snaptrace/rproc.h>
#include "fw.h"
#include "rproc.h"

/* Every remote, for snaptrace_rproc_get_by_index(). */
static DEFINE_MUTEX(st_rproc_list_lock);
static LIST_HEAD(st_rproc_list);

/* Give back everything the firmware's resources took. Lock held, offline. */
static void st_resources_free(struct snaptrace_rproc *rproc)
{
	snaptrace_rproc_trace_free(rproc);
	snaptrace_rproc_vdev_free(rproc);
	snaptrace_rproc_mem_free(rproc);
	kfree(rproc->table);
	rproc->table = NULL;
	rproc->table_sz = 0;
	if (rproc->ops->release)
		rproc->ops->release(rproc);
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
	int ret = snaptrace_rproc_subdevs_prepare(rproc);

	if (ret)
		return ret;
	rproc->ops->start(rproc);
	ret = snaptrace_rproc_subdevs_start(rproc);
	if (ret) {
		st_halt(rproc, fail_state);
		snaptrace_rproc_subdevs_unprepare(rproc);
	}
	return ret;
}

/**
 * snaptrace_rproc_table_check() - the checks every parse_fw makes of a table
 * @rproc: the remote
 * @ret: what the ELF parser returned when it looked for the table
 * @sz: the table's size in bytes, if @ret is 0
 *
 * Says, on the remote's device, why an image's resource table is refused:
 * there is none (the parser returns -ENOENT without a word, as upstream's
 * find_table(); rproc_elf_load_rsc_table() then says "no resource table
 * found"), or it is larger than %SNAPTRACE_RSC_TABLE_MAX. A platform that
 * boots without a table checks -ENOENT before it calls this.
 *
 * Context: process context.
 * Return: 0 if the table may be used; @ret if the parser failed; -EINVAL
 * if it is too large.
 */
int snaptrace_rproc_table_check(struct snaptrace_rproc *rproc, int ret,
				size_t sz)
{
	if (ret) {
		if (ret == -ENOENT)
			snaptrace_dev_err(rproc->dev, "firmware %s has no .resource_table section\n",
					  rproc->firmware);
		return ret;
	}
	if (sz > SNAPTRACE_RSC_TABLE_MAX) {
		snaptrace_dev_err(rproc->dev, "resource table of %zu bytes: more than %u\n",
				  sz, SNAPTRACE_RSC_TABLE_MAX);
		return -EINVAL;
	}
	return 0;
}

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

/*
 * Walk the table with @handlers, as rproc_handle_resources(); an image
 * without a table (its platform allowed that) has no resources.
 */
static int st_handle_resources(struct snaptrace_rproc *rproc,
			       const st_rsc_handler_t *handlers, bool warn)
{
	struct st_rsc_walk w = {
		.rproc = rproc,
		.handlers = handlers,
		.warn = warn,
	};

	if (!rproc->table)
		return 0;
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
		ret = snaptrace_rproc_mem_add_layout(rproc);
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
		snaptrace_dev_err(rproc->dev, "no firmware set: write a file name to 'firmware'\n");
		return -EINVAL;
	}
	/* No user-helper fallback: a missing file fails at once. */
	ret = request_firmware_direct(&fw, rproc->firmware, rproc->dev);
	if (ret) {
		snaptrace_dev_err(rproc->dev, "cannot load firmware %s: %d\n",
				  rproc->firmware, ret);
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
	ret = snaptrace_rproc_subdevs_prepare(rproc);
	if (ret)
		return ret;
	if (ops->attach)
		ops->attach(rproc);
	ret = snaptrace_rproc_subdevs_start(rproc);
	if (ret) {
		if (ops->attach)
			st_halt(rproc, SNAPTRACE_RPROC_DETACHED);
		snaptrace_rproc_subdevs_unprepare(rproc);
		return ret;
	}
	snaptrace_rproc_trace_files_add(rproc);
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
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_boot_image);

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
 * resource table (on a platform that requires one); -ENOMEM (also a
 * carveout that does not fit its registered region, as upstream); a
 * sub-device hook's error.
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
	snaptrace_rproc_subdevs_stop(rproc, READ_ONCE(rproc->state) == SNAPTRACE_RPROC_CRASHED);
	st_halt(rproc, SNAPTRACE_RPROC_OFFLINE);
	snaptrace_rproc_subdevs_unprepare(rproc);
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
		snaptrace_dev_err(rproc->dev, "shutdown: the remote is %s\n",
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
	unsigned long flags;
	int state, ret = 0;

	mutex_lock(&rproc->lock);
	state = READ_ONCE(rproc->state);
	if (state != SNAPTRACE_RPROC_RUNNING && state != SNAPTRACE_RPROC_ATTACHED) {
		snaptrace_dev_err(rproc->dev, "detach: the remote is %s, not running or attached\n",
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
		snaptrace_dev_err(rproc->dev, "detach: the remote crashed\n");
		goto unlock;
	}
	if (rproc->ops->detach)
		rproc->ops->detach(rproc);
	rproc->power = 0;
	snaptrace_rproc_subdevs_stop(rproc, false);
	snaptrace_rproc_subdevs_unprepare(rproc);
	snaptrace_rproc_trace_files_remove(rproc);
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
		snaptrace_rproc_capture_traces(rproc);
	if (READ_ONCE(rproc->recovery))
		schedule_work(&rproc->recovery_work);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);

	dev_err(rproc->dev, "crash #%u detected: type %s; %s\n", cnt,
		snaptrace_rproc_crash_name(type),
		queued ? "capturing the traces" : "traces captured");
}
EXPORT_SYMBOL_GPL(snaptrace_rproc_report_crash);

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
	snaptrace_rproc_subdevs_stop(rproc, true);
	snaptrace_rproc_subdevs_unprepare(rproc);
	ret = request_firmware_direct(&fw, rproc->firmware, rproc->dev);
	if (ret) {
		snaptrace_dev_err(rproc->dev, "recovery: cannot load firmware %s: %d\n",
				  rproc->firmware, ret);
		return ret;
	}
	/* Its resources were set up for the image started: reload only that. */
	if (fw->size != rproc->fw_size ||
	    crc32_le(~0, fw->data, fw->size) != rproc->fw_crc) {
		snaptrace_dev_err(rproc->dev, "recovery: %s changed since the remote started; stop and start it\n",
				  rproc->firmware);
		release_firmware(fw);
		return -EINVAL;
	}
	ret = rproc->ops->load ? rproc->ops->load(rproc, fw->data, fw->size) : 0;
	release_firmware(fw);
	if (ret) {
		snaptrace_dev_err(rproc->dev, "recovery: cannot load segments: %d\n", ret);
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
	snaptrace_rproc_subdevs_stop(rproc, true);
	snaptrace_rproc_subdevs_unprepare(rproc);
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
		snaptrace_dev_err(rproc->dev, "recovery: the remote is %s, not crashed\n",
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

	if (!len || len == SNAPTRACE_RPROC_FW_NAME_MAX) {
		snaptrace_dev_err(rproc->dev, "bad firmware name: want 1..%d bytes\n",
				  SNAPTRACE_RPROC_FW_NAME_MAX - 1);
		return -EINVAL;
	}
	if (name[0] == '/' || strstr(name, "..")) {
		snaptrace_dev_err(rproc->dev, "bad firmware name: absolute or with \"..\": name a file under /lib/firmware\n");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (name[i] <= ' ' || name[i] > '~') {
			snaptrace_dev_err(rproc->dev, "bad firmware name: byte %zu is a space or not printable\n",
					  i);
			return -EINVAL;
		}
	}
	mutex_lock(&rproc->lock);
	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_OFFLINE) {
		snaptrace_dev_err(rproc->dev, "can't change firmware while %s\n",
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
 * Return: the remote, or NULL if out of memory or if @ops lacks one of
 * the ops the core calls unconditionally (a platform's bug: warns).
 */
struct snaptrace_rproc *snaptrace_rproc_alloc(int index,
					      const struct snaptrace_rproc_ops *ops)
{
	struct snaptrace_rproc *rproc;

	if (WARN_ON(!ops || !ops->parse_fw || !ops->start || !ops->stop ||
		    !ops->booted || !ops->free))
		return NULL;

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
	snaptrace_rproc_keepers_free(rproc);
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
