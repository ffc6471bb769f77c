// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: the attach platform. A remote that boots
 * on its own (a real core sharing memory with the host, as rproc_ivshmem.c
 * drives) is attached to rather than booted: its resource table is found
 * loaded in the shared memory, no segment is loaded, and a heartbeat
 * watchdog (an hrtimer, as a watchdog interrupt would be) reports its
 * crashes; their traces are captured in process context, as the shared
 * memory may be slow I/O memory. Built without PCI: KUnit drives it with
 * plain memory. A platform driver of the core behind
 * &struct snaptrace_rproc_ops, as upstream's xlnx_r5_remoteproc.c attaches
 * to a detached R5.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <snaptrace/rproc.h>
#include "fw.h"
#include "rproc.h"
#include "rproc_attach.h"

/*
 * The watchdog samples the heartbeat this many times per timeout, and at
 * least this often: with a long timeout, the restart of a crashed remote
 * is still seen within a fraction of a second.
 */
#define ST_WATCHDOG_SAMPLES	8
#define ST_WATCHDOG_PERIOD_MAX_MS	250U

static const struct snaptrace_rproc_ops st_attach_ops;

/* Is the table at the remote's table_da still @want (@sz bytes)? */
static int st_loaded_table_is(struct snaptrace_rproc *rproc, const void *want,
			      size_t sz)
{
	struct snaptrace_rproc_attached *a = rproc->priv;
	void *live = kmalloc(sz, GFP_KERNEL);
	int ret;

	if (!live)
		return -ENOMEM;
	ret = snaptrace_rproc_read_da(rproc, a->table_da, live, sz);
	if (ret)
		snaptrace_dev_err(rproc->dev, "resource table at da 0x%x (%zu bytes) is not inside the memory shared with the remote\n",
				  a->table_da, sz);
	else if (memcmp(live, want, sz))
		ret = -EINVAL;
	kfree(live);
	return ret;
}

static ktime_t st_watchdog_period(struct snaptrace_rproc_attached *a)
{
	return ms_to_ktime(min(DIV_ROUND_UP(READ_ONCE(a->timeout_ms),
					    ST_WATCHDOG_SAMPLES),
			       ST_WATCHDOG_PERIOD_MAX_MS));
}

/* Its core runs on its own: watch it. State attached from here on. */
static void st_watchdog_start(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;
	unsigned long flags;

	/* The timer is not running: offline, detached, or in recovery. */
	a->seen = SNAPTRACE_RPROC_OFFLINE;
	WRITE_ONCE(a->resumed, false);
	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	WRITE_ONCE(rproc->state, SNAPTRACE_RPROC_ATTACHED);
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	hrtimer_start(&a->watchdog, st_watchdog_period(a), HRTIMER_MODE_REL_HARD);
}

/*
 * The heartbeat watchdog of an attached remote, in hardirq context (a
 * watchdog interrupt on real hardware). Running: a heartbeat unchanged for
 * the timeout is a hung remote: report the crash here, which only marks it
 * crashed and queues the capture of its traces. Crashed: once the heartbeat
 * moves again, its platform restarted it: queue recovery (re-attach).
 * Offline or detached: stop.
 */
static enum hrtimer_restart st_watchdog_tick(struct hrtimer *t)
{
	struct snaptrace_rproc_attached *a =
		container_of(t, struct snaptrace_rproc_attached, watchdog);
	struct snaptrace_rproc *rproc = a->rproc;
	int state = READ_ONCE(rproc->state);
	int seen = a->seen;
	ktime_t now;
	u32 hb;

	if (state != SNAPTRACE_RPROC_ATTACHED && state != SNAPTRACE_RPROC_CRASHED)
		return HRTIMER_NORESTART;
	hb = a->ops->heartbeat(a->priv);
	now = ktime_get();
	a->seen = state;
	if (state == SNAPTRACE_RPROC_ATTACHED) {
		if (seen != state || hb != a->hb) {
			a->hb = hb;
			a->at = now;
			WRITE_ONCE(a->resumed, false);
		} else if (ktime_sub(now, a->at) >=
			   ms_to_ktime(READ_ONCE(a->timeout_ms))) {
			dev_err(rproc->dev, "watchdog: heartbeat stuck at %u for %lld ms\n",
				hb, ktime_ms_delta(now, a->at));
			snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
		}
	} else if (seen != state) {
		a->hb = hb;	/* crashed: wait for it to move */
	} else if (hb != a->hb && !READ_ONCE(a->resumed)) {
		WRITE_ONCE(a->resumed, true);
		dev_info(rproc->dev, "watchdog: heartbeat resumed\n");
		snaptrace_rproc_resumed(rproc);
	}
	hrtimer_forward_now(t, st_watchdog_period(a));
	return HRTIMER_RESTART;
}

/*
 * Queue the capture of an attached remote's traces: on the system
 * workqueue, or on a KUnit test's, which it holds back to find the work
 * pending (&snaptrace_rproc_attached.capture_wq). Any context but NMI.
 */
static void st_attach_capture_queue(struct snaptrace_rproc_attached *a)
{
	struct workqueue_struct *wq = NULL;

	if (IS_ENABLED(CONFIG_KUNIT))
		wq = READ_ONCE(a->capture_wq);	/* set by a test's thread */
	queue_work(wq ?: system_wq, &a->capture_work);
}

/*
 * The capture after a crash of an attached remote. The remote is hung (or
 * was reported crashed), so the traces are stable. Takes no lock but the
 * core lock: the traces cannot go meanwhile, as stopping waits for this
 * work (cancel_work_sync()) before it frees them, and recovery waits for it
 * before the remote runs again.
 */
static void st_attach_capture_work(struct work_struct *work)
{
	struct snaptrace_rproc_attached *a =
		container_of(work, struct snaptrace_rproc_attached, capture_work);
	struct snaptrace_rproc *rproc = a->rproc;
	struct snaptrace_rproc_trace *trace;
	unsigned long flags;
	bool capture;

	raw_spin_lock_irqsave(&rproc->core_lock, flags);
	capture = a->capture && rproc->state == SNAPTRACE_RPROC_CRASHED;
	WRITE_ONCE(a->capture, false);	/* read unlocked by st_attach_coredump_wait() */
	raw_spin_unlock_irqrestore(&rproc->core_lock, flags);
	if (!capture)
		return;
	list_for_each_entry(trace, &rproc->traces, node)
		snaptrace_rproc_capture_trace_slow(rproc, trace);
	dev_info(rproc->dev, "traces captured\n");
}

/*
 * A crash was reported (core lock held, IRQs off): the shared memory may be
 * slow I/O memory, so the capture is queued to process context.
 */
static bool st_attach_coredump(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;

	WRITE_ONCE(a->capture, true);
	/* Only a heartbeat seen moving after this crash resumes it. */
	WRITE_ONCE(a->resumed, false);
	st_attach_capture_queue(a);
	return true;
}

/*
 * Wait until the capture of the last crash reported is done: queue the
 * work if the report has not yet (it queues after dropping the core lock),
 * then flush it. Process context; the remote's lock may be held or not
 * (the work does not take it).
 */
static void st_attach_coredump_wait(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;

	if (READ_ONCE(a->capture))
		st_attach_capture_queue(a);
	flush_work(&a->capture_work);
}

/*
 * The core published offline, crashed or detached: the watchdog stops, and
 * the capture, which walks the traces that stop frees and detach hides, is
 * done (or cancelled, as the state is no longer crashed) first. Left
 * crashed (a recovery that failed to start again), the remote may be
 * attached again by the next trigger_recovery(): its heartbeat was seen
 * moving.
 */
static void st_attach_stop(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;

	hrtimer_cancel(&a->watchdog);
	cancel_work_sync(&a->capture_work);
	if (READ_ONCE(rproc->state) == SNAPTRACE_RPROC_CRASHED)
		WRITE_ONCE(a->resumed, true);
}

/* Nobody watches it now: its crashes go unseen. */
static void st_attach_detach(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;

	hrtimer_cancel(&a->watchdog);
}

/*
 * Before attaching again. Detached: is the table it had still loaded? If
 * not, another image runs there (the core gives everything back, offline,
 * so that boot() attaches afresh). Crashed: the host cannot restart it, its
 * platform does; once the heartbeat has resumed, check that the same table
 * is loaded, and keep the traces of the crash before the remote writes
 * anew. -EAGAIN while the heartbeat has not moved since the crash (still
 * stuck); -EINVAL if another table is loaded; -ENOMEM. Lock held.
 */
static int st_attach_prepare(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;
	int ret;

	if (READ_ONCE(rproc->state) != SNAPTRACE_RPROC_CRASHED) {
		ret = st_loaded_table_is(rproc, a->loaded, rproc->table_sz);
		if (ret)
			snaptrace_dev_err(rproc->dev, "attach: the remote's resource table changed while detached (%d): offline now, start attaches afresh\n",
					  ret);
		return ret;
	}
	if (!READ_ONCE(a->resumed)) {
		dev_info(rproc->dev, "recovery: waiting for the heartbeat to resume (the platform restarts the remote)\n");
		return -EAGAIN;
	}
	ret = st_loaded_table_is(rproc, a->loaded, rproc->table_sz);
	if (ret) {
		snaptrace_dev_err(rproc->dev, "recovery: the remote's resource table changed (%d): stop and start it\n",
				  ret);
		return ret;
	}
	st_attach_coredump_wait(rproc);
	return 0;
}

/* Where the remote has the table: the section's address, as upstream. */
static int st_attach_parse_fw(struct snaptrace_rproc *rproc, const u8 *elf,
			      size_t size)
{
	struct snaptrace_rproc_attached *a = rproc->priv;
	size_t off, sz;
	u64 da;
	int ret;

	ret = snaptrace_elf_find_loaded_rsc_table(rproc->dev, elf, size, &off,
						  &sz, &da);
	ret = snaptrace_rproc_table_check(rproc, ret, sz);
	if (ret)
		return ret;
	if (da > U32_MAX) {
		snaptrace_dev_err(rproc->dev, "the .resource_table of %s is at 0x%llx, past 4 GiB: the remote cannot have it there\n",
				  rproc->firmware, da);
		return -EINVAL;
	}
	a->table_da = da;
	a->table_off = off;
	a->table_sz = sz;
	return 0;
}

/* The cached table: a private copy of the loaded one, checked. */
static int st_attach_get_loaded_rsc_table(struct snaptrace_rproc *rproc,
					  const u8 *elf, size_t size)
{
	struct snaptrace_rproc_attached *a = rproc->priv;
	size_t sz = a->table_sz;
	int ret;

	rproc->table = kmalloc(sz, GFP_KERNEL);
	if (!rproc->table)
		return -ENOMEM;
	rproc->table_sz = sz;
	ret = snaptrace_rproc_read_da(rproc, a->table_da, rproc->table, sz);
	if (ret) {
		snaptrace_dev_err(rproc->dev, "resource table at da 0x%x (%zu bytes) is not inside the memory shared with the remote\n",
				  a->table_da, sz);
		return ret;
	}
	if (memcmp(rproc->table, elf + a->table_off, sz)) {
		snaptrace_dev_err(rproc->dev, "the resource table at da 0x%x is not the one of %s: is another image running?\n",
				  a->table_da, rproc->firmware);
		return -EINVAL;
	}
	/* As loaded: the vdevs' notify ids only go into rproc->table. */
	a->loaded = kmemdup(rproc->table, sz, GFP_KERNEL);
	return a->loaded ? 0 : -ENOMEM;
}

static void st_attach_booted(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;

	dev_info(rproc->dev, "attached to %s: resource table at da 0x%x, %d trace(s), %d vdev(s)\n",
		 rproc->firmware, a->table_da, rproc->num_traces, rproc->vdevs);
}

static void st_attach_release(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;

	kfree(a->loaded);
	a->loaded = NULL;
}

static void st_attach_free(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_attached *a = rproc->priv;

	cancel_work_sync(&a->capture_work);
	kfree(a);
}

static const struct snaptrace_rproc_ops st_attach_ops = {
	.parse_fw = st_attach_parse_fw,
	.get_loaded_rsc_table = st_attach_get_loaded_rsc_table,
	/* It runs from its memory: a carveout must lie in it, as a view. */
	.add_mem = snaptrace_rproc_mem_view,
	.start = st_watchdog_start,
	.stop = st_attach_stop,
	.prepare = st_attach_prepare,
	.attach = st_watchdog_start,
	.detach = st_attach_detach,
	.coredump = st_attach_coredump,
	.coredump_wait = st_attach_coredump_wait,
	.booted = st_attach_booted,
	.release = st_attach_release,
	.free = st_attach_free,
	.attach_on_recovery = true,
};

/**
 * snaptrace_rproc_attach_image() - attach to a remote that booted this image
 * @rproc: a remote made by snaptrace_rproc_create_attached(), offline
 * @elf: the image the remote runs (ELF32 or ELF64), as the firmware loader
 *	gives it
 * @size: its size in bytes
 *
 * Finds the image's resource table and the device address where the
 * remote has it loaded (the section's sh_addr, as upstream's
 * rproc_elf_find_loaded_rsc_table()), copies the loaded table out of the
 * shared memory, refuses it unless it is the image's, checks it and handles
 * its resources: carveouts and devmems must lie inside the shared memory
 * (views, nothing allocated), traces too. No segment is loaded: the remote
 * loaded itself. Then the sub-devices are prepared, the heartbeat watchdog
 * starts (state "attached") and the sub-devices start; this takes the
 * first boot reference, as snaptrace_rproc_boot(). Every device address
 * and length read from the image or the shared memory is checked against
 * the shared memory, without overflow.
 * Mirrors rproc_attach() with get_loaded_rsc_table().
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -EBUSY unless offline; -ENODEV while destroyed or for a
 * simulated remote; -ENOENT for no resource table; -EINVAL for a bad
 * image or table, a table not loaded in the shared memory or not the
 * image's, or a resource outside the shared memory; -ENOMEM; a
 * sub-device hook's error.
 */
int snaptrace_rproc_attach_image(struct snaptrace_rproc *rproc, const u8 *elf,
				 size_t size)
{
	if (rproc->ops != &st_attach_ops)
		return -ENODEV;
	return snaptrace_rproc_boot_image(rproc, elf, size);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_attach_image);

/**
 * snaptrace_rproc_create_attached() - a remote that boots on its own
 * @index: N of remoteprocN
 * @name: its name (debugfs "name"), cut to 31 bytes
 * @dev: its device (messages, the firmware loader): the platform's, such
 *	as the ivshmem PCI device; it must outlive the remote
 * @shared: the memory it shares with the host: @shared->da, ->len, ->name
 *	(not empty), ->is_iomem and the mapping, ->io if it is I/O memory,
 *	else ->va (mapped by the caller for the remote's whole life);
 *	registered as a platform carveout of the remote
 *	(snaptrace_rproc_add_carveout()), so a firmware carveout of its name
 *	is placed in it
 * @ops: what the platform provides: the heartbeat
 * @priv: passed to @ops
 * @watchdog_ms: a heartbeat unchanged this long is a crash, in ms:
 *	%SNAPTRACE_RPROC_WATCHDOG_MIN_MS..%SNAPTRACE_RPROC_WATCHDOG_MAX_MS
 *
 * Such a remote is attached to rather than booted (upstream's
 * RPROC_DETACHED at registration): snaptrace_rproc_boot() ("start") reads
 * the image its firmware names only to find the resource table, loads no
 * segment, and finds the table loaded in @shared
 * (snaptrace_rproc_attach_image()). Its states: offline (the host holds
 * nothing; the remote may run all the same), attached (heartbeat moving,
 * watched), crashed (the watchdog found the heartbeat stuck, or a crash
 * was reported; the traces are captured in process context, traceN_last
 * waits for it), detached (snaptrace_rproc_detach():
 * the host keeps its resources but neither watches it nor shows its
 * traces); crashed goes back to attached once the heartbeat moves again
 * and the same table is loaded, with recovery enabled or on "recover".
 * boot() and shutdown() count references as for any remote; the last
 * shutdown() ("stop") only lets go of it (offline): the host cannot stop
 * this remote. The caller creates its debugfs files.
 *
 * Context: process context, may sleep.
 * Return: the remote, or ERR_PTR(-EINVAL) for unmapped or empty shared
 * memory, memory past 4 GiB or without a name, no heartbeat or a watchdog_ms out of
 * range; ERR_PTR(-ENOMEM).
 */
struct snaptrace_rproc *
snaptrace_rproc_create_attached(int index, const char *name, struct device *dev,
				const struct snaptrace_rproc_mem *shared,
				const struct snaptrace_rproc_attach_ops *ops,
				void *priv, unsigned int watchdog_ms)
{
	struct snaptrace_rproc_attached *a;
	struct snaptrace_rproc_mem *mem;
	struct snaptrace_rproc *rproc;
	int ret;

	if (!shared->len || !(shared->is_iomem ? !!shared->io : !!shared->va) ||
	    (u64)shared->da + shared->len > BIT_ULL(32)) {
		dev_err(dev, "attached remote: shared memory at da 0x%x, 0x%x bytes: must be mapped, non-empty and below 4 GiB\n",
			shared->da, shared->len);
		return ERR_PTR(-EINVAL);
	}
	if (!ops || !ops->heartbeat) {
		dev_err(dev, "attached remote: no heartbeat to watch\n");
		return ERR_PTR(-EINVAL);
	}
	if (watchdog_ms < SNAPTRACE_RPROC_WATCHDOG_MIN_MS ||
	    watchdog_ms > SNAPTRACE_RPROC_WATCHDOG_MAX_MS) {
		dev_err(dev, "attached remote: watchdog of %u ms: want %u..%u\n",
			watchdog_ms, SNAPTRACE_RPROC_WATCHDOG_MIN_MS,
			SNAPTRACE_RPROC_WATCHDOG_MAX_MS);
		return ERR_PTR(-EINVAL);
	}
	rproc = snaptrace_rproc_alloc(index, &st_attach_ops);
	if (!rproc)
		return ERR_PTR(-ENOMEM);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		snaptrace_rproc_free(rproc);
		return ERR_PTR(-ENOMEM);
	}
	a->ops = ops;
	a->priv = priv;
	a->rproc = rproc;
	INIT_WORK(&a->capture_work, st_attach_capture_work);
	a->timeout_ms = watchdog_ms;
	strscpy(rproc->name, name, sizeof(rproc->name));
	rproc->dev = dev;
	rproc->priv = a;
	hrtimer_setup(&a->watchdog, st_watchdog_tick, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
	/* Its platform's memory, registered as a driver registers its own. */
	mem = snaptrace_rproc_mem_entry_init(dev, shared->va, shared->len,
					     shared->da, NULL, NULL, "%s",
					     shared->name);
	if (!mem) {
		ret = -ENOMEM;
		goto free;
	}
	mem->kind = "region";
	mem->io = shared->io;
	mem->is_iomem = shared->is_iomem;
	ret = snaptrace_rproc_add_carveout(rproc, mem);
	if (ret) {
		kfree(mem);
		goto free;
	}
	a->shared = mem;
	snaptrace_rproc_add(rproc);
	return rproc;

free:
	kfree(a);
	snaptrace_rproc_free(rproc);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_create_attached);

/**
 * snaptrace_rproc_set_watchdog() - change an attached remote's watchdog
 * @rproc: a remote made by snaptrace_rproc_create_attached()
 * @watchdog_ms: a heartbeat unchanged this long is a crash, in ms:
 *	%SNAPTRACE_RPROC_WATCHDOG_MIN_MS..%SNAPTRACE_RPROC_WATCHDOG_MAX_MS
 *
 * Takes effect at once: a watching timer (attached or crashed) is stopped
 * and started again at the new pace, and the heartbeat is timed from its
 * next sample, so neither the old period nor the time already spent counts.
 * What the heartbeat must do to mean a crash does not change.
 *
 * Context: process context, may sleep. Takes the remote's lock.
 * Return: 0; -ENODEV for a simulated remote; -EINVAL for @watchdog_ms out
 * of range (the watchdog unchanged).
 */
int snaptrace_rproc_set_watchdog(struct snaptrace_rproc *rproc,
				 unsigned int watchdog_ms)
{
	struct snaptrace_rproc_attached *a;

	if (rproc->ops != &st_attach_ops)
		return -ENODEV;
	a = rproc->priv;
	if (watchdog_ms < SNAPTRACE_RPROC_WATCHDOG_MIN_MS ||
	    watchdog_ms > SNAPTRACE_RPROC_WATCHDOG_MAX_MS) {
		snaptrace_dev_err(rproc->dev, "watchdog of %u ms: want %u..%u\n", watchdog_ms,
				  SNAPTRACE_RPROC_WATCHDOG_MIN_MS,
				  SNAPTRACE_RPROC_WATCHDOG_MAX_MS);
		return -EINVAL;
	}
	mutex_lock(&rproc->lock);
	/*
	 * Not hrtimer_start() alone: the callback forwards the timer. Only a
	 * watching timer (attached or crashed) starts again; offline or
	 * detached, the new timeout is used from the next attach.
	 */
	if (hrtimer_cancel(&a->watchdog)) {
		WRITE_ONCE(a->timeout_ms, watchdog_ms);
		a->seen = SNAPTRACE_RPROC_OFFLINE;	/* sample afresh */
		hrtimer_start(&a->watchdog, st_watchdog_period(a),
			      HRTIMER_MODE_REL_HARD);
	} else {
		WRITE_ONCE(a->timeout_ms, watchdog_ms);
	}
	mutex_unlock(&rproc->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_set_watchdog);
