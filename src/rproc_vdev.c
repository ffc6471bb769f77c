// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors: sub-devices and vdevs. Sub-devices are
 * prepared, started, stopped and unprepared with their remote, those a
 * platform added first, then one per vdev resource entry; a vdev records
 * its vrings and notify ids, without a virtio transport. Upstream's twins:
 * rproc_{add,remove}_subdev() and rproc_*_subdevices() in
 * remoteproc_core.c, rproc_handle_vdev() and remoteproc_virtio.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include <snaptrace/rproc.h>
#include "fw.h"
#include "rproc.h"

/* At most this many vdevs per remote. */
#define ST_RPROC_MAX_VDEVS	8

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
		snaptrace_dev_err(rproc->dev, "vdev at offset %d: too many vrings: %u, at most %d\n",
				  offset, rsc->num_of_vrings, SNAPTRACE_RPROC_MAX_VRINGS);
		return -EINVAL;
	}
	for (i = 0; i < rsc->num_of_vrings; i++) {
		if (!rsc->vring[i].num || !rsc->vring[i].align) {
			snaptrace_dev_err(rproc->dev, "vdev at offset %d: vring%d: invalid qsz (%u) or alignment (%u)\n",
					  offset, i, rsc->vring[i].num, rsc->vring[i].align);
			return -EINVAL;
		}
	}
	if (rproc->vdevs == ST_RPROC_MAX_VDEVS) {
		snaptrace_dev_err(rproc->dev, "vdev at offset %d: more than %d vdevs\n",
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

/**
 * snaptrace_rproc_subdevs_prepare() - prepare the sub-devices
 * @rproc: the remote, about to start
 *
 * Runs the prepare hooks in list order; when one fails, unprepares those
 * that ran, in reverse. Mirrors rproc_prepare_subdevices().
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0, or the failing hook's error.
 */
int snaptrace_rproc_subdevs_prepare(struct snaptrace_rproc *rproc)
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
	snaptrace_dev_err(rproc->dev, "failed to prepare sub-device %s: %d\n",
			  subdev->name ?: "?", ret);
	list_for_each_entry_continue_reverse(subdev, &rproc->subdevs, node)
		if (subdev->unprepare)
			subdev->unprepare(subdev);
	return ret;
}

/**
 * snaptrace_rproc_subdevs_start() - start the sub-devices
 * @rproc: the remote, just started
 *
 * Runs the start hooks in list order; when one fails, stops those that
 * ran, in reverse, with crashed set. Mirrors rproc_start_subdevices().
 *
 * Context: process context, may sleep; the remote's lock is held.
 * Return: 0, or the failing hook's error.
 */
int snaptrace_rproc_subdevs_start(struct snaptrace_rproc *rproc)
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
	snaptrace_dev_err(rproc->dev, "failed to start sub-device %s: %d\n",
			  subdev->name ?: "?", ret);
	list_for_each_entry_continue_reverse(subdev, &rproc->subdevs, node)
		if (subdev->stop)
			subdev->stop(subdev, true);
	return ret;
}

/**
 * snaptrace_rproc_subdevs_stop() - stop the sub-devices
 * @rproc: the remote, about to stop (or detach, or recover)
 * @crashed: the remote crashed
 *
 * Runs the stop hooks in reverse, if the start hooks ran. Mirrors
 * rproc_stop_subdevices().
 *
 * Context: process context, may sleep; the remote's lock is held.
 */
void snaptrace_rproc_subdevs_stop(struct snaptrace_rproc *rproc, bool crashed)
{
	struct snaptrace_rproc_subdev *subdev;

	if (!rproc->subdevs_started)
		return;
	list_for_each_entry_reverse(subdev, &rproc->subdevs, node)
		if (subdev->stop)
			subdev->stop(subdev, crashed);
	rproc->subdevs_started = false;
}

/**
 * snaptrace_rproc_subdevs_unprepare() - unprepare the sub-devices
 * @rproc: the remote, stopped
 *
 * Runs the unprepare hooks in reverse, if the prepare hooks ran. Mirrors
 * rproc_unprepare_subdevices().
 *
 * Context: process context, may sleep; the remote's lock is held.
 */
void snaptrace_rproc_subdevs_unprepare(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_subdev *subdev;

	if (!rproc->subdevs_prepared)
		return;
	list_for_each_entry_reverse(subdev, &rproc->subdevs, node)
		if (subdev->unprepare)
			subdev->unprepare(subdev);
	rproc->subdevs_prepared = false;
}

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
		snaptrace_dev_err(rproc->dev, "add_subdev %s: the remote is %s, not offline\n",
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
		snaptrace_dev_err(rproc->dev, "remove_subdev %s: the remote is %s, not offline\n",
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

/**
 * snaptrace_rproc_vdev_free() - give back the vdevs of the firmware
 * @rproc: the remote, stopped, its sub-devices unprepared
 *
 * Context: process context, may sleep; the remote's lock is held.
 */
void snaptrace_rproc_vdev_free(struct snaptrace_rproc *rproc)
{
	struct snaptrace_rproc_vdev *v, *vn;

	list_for_each_entry_safe(v, vn, &rproc->vdev_list, node) {
		list_del(&v->node);
		list_del(&v->subdev.node);
		kfree(v);
	}
	rproc->vdevs = 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_vdev_free);
