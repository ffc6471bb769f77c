// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the remotes' vdevs (src/rproc_vdev.c): a vdev entry's
 * checks and the notify ids given (rproc_handle_vdev(),
 * rproc_parse_vring()), and a real image's vdev as a sub-device, started
 * and stopped with its remote, through recovery, detach and boot.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <kunit/test.h>

#include <snaptrace/rproc.h>
#include <snaptrace/rsc_table.h>
#include "../src/rproc.h"
#include "st_kunit.h"

#define API_VDEV_FW	"snaptrace-fixtures/kv260_r5_rpmsg_multi_services.elf"
#define ANY ((u32)SNAPTRACE_FW_RSC_ADDR_ANY)

/* A table-less vdev entry with @n vrings, room for 3. */
static struct snaptrace_fw_rsc_vdev *vdev_entry(struct kunit *test, u8 n)
{
	struct snaptrace_fw_rsc_vdev *v;
	int i;

	v = kunit_kzalloc(test, struct_size(v, vring, 3), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, v);
	v->id = 7;
	v->num_of_vrings = n;
	for (i = 0; i < 3; i++) {
		v->vring[i].da = ANY;
		v->vring[i].align = 16;
		v->vring[i].num = 8;
		v->vring[i].notifyid = ANY;
	}
	return v;
}

/* rproc_handle_vdev() and rproc_parse_vring()'s checks; notify ids given. */
static void handle_vdev_contract(struct kunit *test)
{
	struct snaptrace_rproc *rproc = st_rproc_new(test, 133, "default");
	struct snaptrace_fw_rsc_vdev *v = vdev_entry(test, 2);
	int sz = struct_size(v, vring, 2);
	struct snaptrace_rproc_vdev *rv;

	mutex_lock(&rproc->lock);	/* as during a boot */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_vdev(rproc, v, 0x40, sz - 1), -EINVAL);
	v->reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_vdev(rproc, v, 0x40, sz), -EINVAL);
	v->reserved[1] = 0;
	v->num_of_vrings = 3;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_vdev(rproc, v, 0x40,
							  struct_size(v, vring, 3)), -EINVAL);
	v->num_of_vrings = 2;
	v->vring[1].num = 0;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_vdev(rproc, v, 0x40, sz), -EINVAL);
	v->vring[1].num = 8;
	v->vring[0].align = 0;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_vdev(rproc, v, 0x40, sz), -EINVAL);
	v->vring[0].align = 16;
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->vdev_list));
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->subdevs));

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_vdev(rproc, v, 0x40, sz), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_handle_vdev(rproc, v, 0x80, sz), 0);
	KUNIT_EXPECT_EQ(test, rproc->vdevs, 2);
	rv = list_last_entry(&rproc->vdev_list, struct snaptrace_rproc_vdev, node);
	KUNIT_EXPECT_EQ(test, rv->index, 1);
	KUNIT_EXPECT_EQ(test, rv->id, 7);
	KUNIT_EXPECT_EQ(test, rv->offset, 0x80);
	KUNIT_EXPECT_EQ(test, rv->num_vrings, 2);
	KUNIT_EXPECT_EQ(test, rv->vring[0].num, 8);
	KUNIT_EXPECT_EQ(test, rv->vring[0].align, 16);
	KUNIT_EXPECT_EQ(test, rv->vring[0].da, ANY);
	KUNIT_EXPECT_EQ(test, rv->vring[0].notifyid, 2);
	KUNIT_EXPECT_EQ(test, rv->vring[1].notifyid, 3);
	KUNIT_EXPECT_EQ(test, v->vring[1].notifyid, 3);	/* written back */
	KUNIT_EXPECT_STREQ(test, rv->subdev.name, "vdev1");
	KUNIT_EXPECT_STREQ(test, rv->status, "handled");
	KUNIT_EXPECT_PTR_EQ(test, list_last_entry(&rproc->subdevs,
						  struct snaptrace_rproc_subdev, node),
			    &rv->subdev);
	snaptrace_rproc_vdev_free(rproc);
	mutex_unlock(&rproc->lock);
}

/* A real image's vdev is started and stopped with the remote. */
static void vdev_subdev_lifecycle(struct kunit *test)
{
	struct snaptrace_rproc *rproc = st_rproc_new(test, 134, "zynqmp-r5");
	struct snaptrace_rproc_vdev *rv;

	st_rproc_need_fw(test, rproc, API_VDEV_FW);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_ASSERT_EQ(test, rproc->vdevs, 1);
	rv = list_first_entry(&rproc->vdev_list, struct snaptrace_rproc_vdev, node);
	KUNIT_EXPECT_EQ(test, rv->id, 7);
	KUNIT_EXPECT_EQ(test, rv->num_vrings, 2);
	KUNIT_EXPECT_EQ(test, rv->vring[0].notifyid, 0);
	KUNIT_EXPECT_EQ(test, rv->vring[1].notifyid, 1);
	KUNIT_EXPECT_STREQ(test, rv->status, "started");
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), 0);
	KUNIT_EXPECT_STREQ(test, rv->status, "started");
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), 0);
	KUNIT_EXPECT_STREQ(test, rv->status, "unprepared");
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_STREQ(test, rv->status, "started");
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	st_rproc_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->subdevs));
}

static struct kunit_case snaptrace_rproc_vdev_cases[] = {
	KUNIT_CASE(handle_vdev_contract),
	KUNIT_CASE(vdev_subdev_lifecycle),
	{}
};

static struct kunit_suite snaptrace_rproc_vdev_suite = {
	.name = "snaptrace_rproc_vdev",
	.test_cases = snaptrace_rproc_vdev_cases,
};

kunit_test_suites(&snaptrace_rproc_vdev_suite);
