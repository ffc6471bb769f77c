/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace remote processors: the attach platform's private data
 * (rproc_attach.c), for what builds on that platform: its bus glue
 * (rproc_ivshmem.c) and KUnit. The core never sees it: it is the remote's
 * &snaptrace_rproc.priv, as an upstream driver's struct is its rproc's.
 */
#ifndef _SNAPTRACE_RPROC_ATTACH_H
#define _SNAPTRACE_RPROC_ATTACH_H

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "rproc.h"

/**
 * struct snaptrace_rproc_attached - the attach platform's private data
 *	(rproc_attach.c; &snaptrace_rproc.priv)
 * @ops: what its platform provides
 * @priv: for @ops
 * @shared: the memory it shares with the host, at its device address:
 *	one of the remote's registered carveouts (&snaptrace_rproc.carveouts)
 * @table_da: where its resource table lies (in @shared), found at attach
 * @table_off: its offset in the image, found at attach
 * @table_sz: its size, found at attach
 * @loaded: the table as the remote has it loaded, copied at attach (the
 *	host's copy, &snaptrace_rproc.table, gets the vdevs' notify ids);
 *	recovery checks that it is still what is loaded
 * @timeout_ms: how long an unchanged heartbeat means a hung remote, in ms;
 *	the watchdog samples the heartbeat eight times per timeout, and at
 *	least every 250 ms. Read by the watchdog, changed under the remote's
 *	lock with the timer stopped (snaptrace_rproc_set_watchdog())
 * @hb: heartbeat at the last change the watchdog saw (watchdog only)
 * @at: when it saw that change (watchdog only)
 * @seen: the state at the watchdog's last sample (watchdog only)
 * @resumed: the heartbeat moved since the watchdog saw the crash: the
 *	remote was restarted (by its platform) and may be attached again
 * @capture: a crash was reported and its traces are not captured yet; set
 *	and cleared under &snaptrace_rproc.core_lock
 * @capture_work: captures the traces after a crash, in process context
 *	(the shared memory may be slow I/O memory, too much to copy with
 *	interrupts off); takes no lock but the core lock, so a reader of
 *	traceN_last or a stop may wait for it
 * @capture_wq: KUnit only, ignored otherwise: the workqueue
 *	@capture_work is queued on instead of the system one, which a test
 *	holds back to find the capture pending; NULL for the system one
 * @watchdog: the watchdog's hrtimer, in hardirq mode: samples the
 *	heartbeat, reports a crash from there
 * @rproc: the remote
 */
struct snaptrace_rproc_attached {
	const struct snaptrace_rproc_attach_ops *ops;
	void *priv;
	struct snaptrace_rproc_mem *shared;
	u32 table_da;
	size_t table_off;
	size_t table_sz;
	void *loaded;
	u32 timeout_ms;
	u32 hb;
	ktime_t at;
	int seen;
	bool resumed;
	bool capture;
	struct work_struct capture_work;
	struct workqueue_struct *capture_wq;
	struct hrtimer watchdog;
	struct snaptrace_rproc *rproc;
};

/**
 * snaptrace_rproc_attached() - an attached remote's platform data
 * @rproc: a remote of snaptrace_rproc_create_attached(), no other
 *
 * Context: any.
 * Return: its &struct snaptrace_rproc_attached (&snaptrace_rproc.priv).
 */
static inline struct snaptrace_rproc_attached *
snaptrace_rproc_attached(struct snaptrace_rproc *rproc)
{
	return rproc->priv;
}

#endif /* _SNAPTRACE_RPROC_ATTACH_H */
