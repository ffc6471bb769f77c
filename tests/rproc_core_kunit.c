// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the remote processors' kernel API (include/snaptrace/
 * rproc.h, src/rproc_core.c, rproc_vdev.c): boot references, firmware changes, crash reports
 * from hardirq and with IRQs off, recovery, detach and attach, registered
 * carveouts and check_carveout_da(), sub-device hooks and their unwinding,
 * vdev entries as sub-devices.
 */
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/firmware.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/test.h>

#include <snaptrace/rproc.h>
#include <snaptrace/rsc_table.h>
#include "../src/rproc.h"
#include "../src/trace_keeper.h"

#define API_FW		"snaptrace/example64.elf"
#define API_VDEV_FW	"snaptrace-fixtures/kv260_r5_rpmsg_multi_services.elf"
/* The example image's fixed carveout. */
#define SHARED_DA	0x20000000U
#define SHARED_LEN	0x4000U

/* An offline remote of our own, destroyed at the end of the test. */
static void api_destroy(void *rproc)
{
	snaptrace_rproc_destroy(rproc);
}

static struct snaptrace_rproc *api_rproc(struct kunit *test, int index,
					 const char *layout)
{
	struct snaptrace_rproc *rproc = snaptrace_rproc_create(index, layout);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(rproc), "create: %pe", rproc);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, api_destroy, rproc), 0);
	WRITE_ONCE(rproc->recovery, false);
	return rproc;
}

/* Skip unless @name is in /lib/firmware. */
static void api_need_fw(struct kunit *test, struct snaptrace_rproc *rproc,
			const char *name)
{
	const struct firmware *fw;

	if (request_firmware_direct(&fw, name, rproc->dev))
		kunit_skip(test, "%s is not in /lib/firmware", name);
	release_firmware(fw);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_set_firmware(rproc, name), 0);
}

static struct snaptrace_rproc *api_booted(struct kunit *test, int index)
{
	struct snaptrace_rproc *rproc = api_rproc(test, index, "default");

	api_need_fw(test, rproc, API_FW);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_RUNNING);
	return rproc;
}

static void api_expect_offline_empty(struct kunit *test, struct snaptrace_rproc *rproc)
{
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_OFFLINE);
	KUNIT_EXPECT_EQ(test, rproc->power, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->traces));
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->mems));
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->vdev_list));
	KUNIT_EXPECT_NULL(test, rproc->table);
	KUNIT_EXPECT_FALSE(test, rproc->subdevs_prepared);
	KUNIT_EXPECT_FALSE(test, rproc->subdevs_started);
}

/* ------------------------------------------------------------------ */
/* boot / shutdown references */

/* A second boot only takes a reference; the last shutdown stops. */
static void boot_shutdown_refcount(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_booted(test, 120);

	KUNIT_EXPECT_EQ(test, rproc->power, 1);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, rproc->power, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_start(rproc), -EBUSY);	/* offline only */
	KUNIT_EXPECT_EQ(test, rproc->power, 2);

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_RUNNING);
	KUNIT_EXPECT_EQ(test, rproc->power, 1);
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	api_expect_offline_empty(test, rproc);
	/* A redundant shutdown is refused and changes nothing. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), -EINVAL);
	api_expect_offline_empty(test, rproc);
	/* And it boots again. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, rproc->power, 1);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	api_expect_offline_empty(test, rproc);
}

/* A boot that fails takes no reference and leaves nothing. */
static void boot_errors_take_no_reference(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_rproc(test, 121, "default");

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EINVAL);	/* no name */
	api_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "snaptrace/none.elf"), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -ENOENT);
	api_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), -EINVAL);
}

/* A crashed remote takes references too; the last shutdown stops it. */
static void boot_refcount_while_crashed(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_booted(test, 122);

	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_FATAL_ERROR);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_CRASHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, rproc->power, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_CRASHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_CRASHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	api_expect_offline_empty(test, rproc);
}

/* ------------------------------------------------------------------ */
/* set_firmware */

static void set_firmware_busy_and_names(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_booted(test, 123);
	char *name = kunit_kzalloc(test, SNAPTRACE_RPROC_FW_NAME_MAX + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, name);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "other.elf"), -EBUSY);
	KUNIT_EXPECT_STREQ(test, rproc->firmware, API_FW);
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "other.elf"), -EBUSY);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);

	/* Offline: bad names refused, the name unchanged; 127 bytes taken. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, ""), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "a\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "x/../y"), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "/lib/x"), -EINVAL);
	memset(name, 'a', SNAPTRACE_RPROC_FW_NAME_MAX);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, name), -EINVAL);
	KUNIT_EXPECT_STREQ(test, rproc->firmware, API_FW);
	name[SNAPTRACE_RPROC_FW_NAME_MAX - 1] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, name), 0);
	KUNIT_EXPECT_STREQ(test, rproc->firmware, name);
}

/* ------------------------------------------------------------------ */
/* report_crash from atomic context, recovery */

struct crash_irq_work {
	struct irq_work work;
	struct snaptrace_rproc *rproc;
	bool in_hardirq;
	bool irqs_disabled;
};

static void crash_irq_work_fn(struct irq_work *work)
{
	struct crash_irq_work *c = container_of(work, struct crash_irq_work, work);

	c->in_hardirq = in_hardirq();
	c->irqs_disabled = irqs_disabled();
	snaptrace_rproc_report_crash(c->rproc, SNAPTRACE_RPROC_MMUFAULT);
}

/*
 * From a hard irq_work (hardirq on every kernel, PREEMPT_RT included): the
 * remote is crashed when the report returns, every trace captured; a
 * second report is ignored.
 */
static void report_crash_from_irq_work(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_booted(test, 124);
	struct crash_irq_work c = { .rproc = rproc };
	struct snaptrace_rproc_trace *t;

	msleep(60);
	c.work = IRQ_WORK_INIT_HARD(crash_irq_work_fn);
	KUNIT_ASSERT_TRUE(test, irq_work_queue(&c.work));
	irq_work_sync(&c.work);
	KUNIT_EXPECT_TRUE(test, c.in_hardirq);
	KUNIT_EXPECT_TRUE(test, c.irqs_disabled);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_CRASHED);
	KUNIT_EXPECT_EQ(test, rproc->crash_type, SNAPTRACE_RPROC_MMUFAULT);
	KUNIT_EXPECT_EQ(test, rproc->crash_cnt, 1);
	list_for_each_entry(t, &rproc->traces, node)
		KUNIT_EXPECT_TRUE(test, READ_ONCE(t->keeper->has_last));

	/* Only the first report counts. */
	KUNIT_ASSERT_TRUE(test, irq_work_queue(&c.work));
	irq_work_sync(&c.work);
	KUNIT_EXPECT_EQ(test, rproc->crash_cnt, 1);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	/* Nor does one for an offline remote. */
	KUNIT_ASSERT_TRUE(test, irq_work_queue(&c.work));
	irq_work_sync(&c.work);
	KUNIT_EXPECT_EQ(test, rproc->crash_cnt, 1);
	api_expect_offline_empty(test, rproc);
}

/*
 * With IRQs off in task context, and recovery enabled: the report only
 * queues recovery, which a work runs later, keeping references.
 */
static void report_crash_irqs_off_then_recovery_work(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_booted(test, 125);
	unsigned long flags;
	int n;

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);	/* power 2 */
	WRITE_ONCE(rproc->recovery, true);
	local_irq_save(flags);
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	/* Still IRQs off: crashed now, recovery not run yet (it sleeps). */
	n = READ_ONCE(rproc->state);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, n, SNAPTRACE_RPROC_CRASHED);
	flush_work(&rproc->recovery_work);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_RUNNING);
	KUNIT_EXPECT_EQ(test, rproc->power, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	api_expect_offline_empty(test, rproc);
}

/* trigger_recovery(): only when crashed; restarts and keeps references. */
static void trigger_recovery_states(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_rproc(test, 126, "default");
	u32 seq;

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), -EINVAL);
	api_need_fw(test, rproc, API_FW);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_RUNNING);
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_FATAL_ERROR);
	seq = snaptrace_rproc_sim_seq(rproc);
	msleep(120);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_sim_seq(rproc), seq);	/* the core stopped */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_RUNNING);
	KUNIT_EXPECT_EQ(test, rproc->power, 1);
	msleep(120);
	KUNIT_EXPECT_GT(test, snaptrace_rproc_sim_seq(rproc), seq);	/* and runs again */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), -EINVAL);
}

/* ------------------------------------------------------------------ */
/* Sub-devices: hook order, unwinding */

#define LOG_MAX 512

struct test_subdev {
	struct snaptrace_rproc_subdev subdev;
	char *log;		/* shared by the test's sub-devices */
	const char *fail;	/* "prepare" or "start": that hook fails */
};

static void log_hook(struct snaptrace_rproc_subdev *subdev, const char *hook)
{
	struct test_subdev *t = container_of(subdev, struct test_subdev, subdev);
	size_t len = strlen(t->log);

	snprintf(t->log + len, LOG_MAX - len, "%s%s.%s", len ? " " : "",
		 subdev->name, hook);
}

static int ts_prepare(struct snaptrace_rproc_subdev *subdev)
{
	struct test_subdev *t = container_of(subdev, struct test_subdev, subdev);

	log_hook(subdev, "prepare");
	return t->fail && !strcmp(t->fail, "prepare") ? -EIO : 0;
}

static int ts_start(struct snaptrace_rproc_subdev *subdev)
{
	struct test_subdev *t = container_of(subdev, struct test_subdev, subdev);

	log_hook(subdev, "start");
	return t->fail && !strcmp(t->fail, "start") ? -EIO : 0;
}

static void ts_stop(struct snaptrace_rproc_subdev *subdev, bool crashed)
{
	log_hook(subdev, crashed ? "stop(crashed)" : "stop");
}

static void ts_unprepare(struct snaptrace_rproc_subdev *subdev)
{
	log_hook(subdev, "unprepare");
}

/* Sub-devices A and B on a new remote; the log they write in. */
static char *two_subdevs(struct kunit *test, struct snaptrace_rproc *rproc,
			 struct test_subdev **a, struct test_subdev **b)
{
	char *log = kunit_kzalloc(test, LOG_MAX, GFP_KERNEL);
	struct test_subdev *s = kunit_kcalloc(test, 2, sizeof(*s), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, log);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < 2; i++) {
		s[i].log = log;
		s[i].subdev.name = i ? "B" : "A";
		s[i].subdev.prepare = ts_prepare;
		s[i].subdev.start = ts_start;
		s[i].subdev.stop = ts_stop;
		s[i].subdev.unprepare = ts_unprepare;
		KUNIT_ASSERT_EQ(test, snaptrace_rproc_add_subdev(rproc, &s[i].subdev), 0);
	}
	*a = &s[0];
	*b = &s[1];
	return log;
}

/* Boot, crash and recovery, shutdown: hooks in upstream's order. */
static void subdev_hook_order(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_rproc(test, 127, "default");
	struct test_subdev *a, *b;
	char *log = two_subdevs(test, rproc, &a, &b);

	api_need_fw(test, rproc, API_FW);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_STREQ(test, log, "A.prepare B.prepare A.start B.start");
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_add_subdev(rproc, &a->subdev), -EBUSY);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &a->subdev), -EBUSY);

	log[0] = '\0';
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	KUNIT_EXPECT_STREQ(test, log, "");	/* hooks sleep: not at report time */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), 0);
	KUNIT_EXPECT_STREQ(test, log,
			   "B.stop(crashed) A.stop(crashed) B.unprepare A.unprepare A.prepare B.prepare A.start B.start");

	log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_STREQ(test, log, "B.stop A.stop B.unprepare A.unprepare");

	/* A crashed remote's sub-devices are told so at shutdown. */
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_STREQ(test, log,
			   "B.stop(crashed) A.stop(crashed) B.unprepare A.unprepare");

	/* Removed: no more hooks. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &a->subdev), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &b->subdev), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_add_subdev(rproc, NULL), -EINVAL);
	log[0] = '\0';
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_STREQ(test, log, "");
}

/* A failing hook undoes the hooks before it, in reverse; boot fails. */
static void subdev_unwind_on_failure(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_rproc(test, 128, "default");
	struct test_subdev *a, *b;
	char *log = two_subdevs(test, rproc, &a, &b);

	api_need_fw(test, rproc, API_FW);
	b->fail = "prepare";
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EIO);
	KUNIT_EXPECT_STREQ(test, log, "A.prepare B.prepare A.unprepare");
	api_expect_offline_empty(test, rproc);

	log[0] = '\0';
	b->fail = "start";
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EIO);
	KUNIT_EXPECT_STREQ(test, log,
			   "A.prepare B.prepare A.start B.start A.stop(crashed) B.unprepare A.unprepare");
	api_expect_offline_empty(test, rproc);

	log[0] = '\0';
	a->fail = "start";
	b->fail = NULL;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EIO);
	KUNIT_EXPECT_STREQ(test, log, "A.prepare B.prepare A.start B.unprepare A.unprepare");
	api_expect_offline_empty(test, rproc);

	/* Recovery whose start fails leaves the remote crashed. */
	a->fail = NULL;
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	b->fail = "start";
	log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), -EIO);
	KUNIT_EXPECT_STREQ(test, log,
			   "B.stop(crashed) A.stop(crashed) B.unprepare A.unprepare A.prepare B.prepare A.start B.start A.stop(crashed) B.unprepare A.unprepare");
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_CRASHED);
	log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_STREQ(test, log, "");	/* nothing left to undo */
	api_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &a->subdev), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &b->subdev), 0);
}

/* ------------------------------------------------------------------ */
/* detach and attach */

static void detach_and_attach(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_rproc(test, 129, "default");
	struct test_subdev *a, *b;
	char *log = two_subdevs(test, rproc, &a, &b);
	u32 seq;

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), -EINVAL);	/* offline */
	api_need_fw(test, rproc, API_FW);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	/* Another user still holds it: only a reference goes. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_RUNNING);
	KUNIT_EXPECT_EQ(test, rproc->power, 1);

	log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_DETACHED);
	KUNIT_EXPECT_EQ(test, rproc->power, 0);
	KUNIT_EXPECT_STREQ(test, log, "B.stop A.stop B.unprepare A.unprepare");
	/* It runs on without us: its core still logs into its memory. */
	seq = snaptrace_rproc_sim_seq(rproc);
	msleep(120);
	KUNIT_EXPECT_GT(test, snaptrace_rproc_sim_seq(rproc), seq);
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 2);

	/* What a detached remote refuses, leaving it detached. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, API_FW), -EBUSY);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_start(rproc), -EBUSY);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), -EINVAL);
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_DETACHED);
	KUNIT_EXPECT_EQ(test, rproc->crash_cnt, 0);

	/* boot attaches: no reload, the log runs on. */
	log[0] = '\0';
	seq = snaptrace_rproc_sim_seq(rproc);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_ATTACHED);
	KUNIT_EXPECT_EQ(test, rproc->power, 1);
	KUNIT_EXPECT_GE(test, snaptrace_rproc_sim_seq(rproc), seq);
	KUNIT_EXPECT_STREQ(test, log, "A.prepare B.prepare A.start B.start");

	/* Attached: crashes and recovers (to running) as a booted remote. */
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_CRASHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_RUNNING);

	/* Detached again, then destroyed (by the test's cleanup) as it is. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_DETACHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &a->subdev), -EBUSY);
	kunit_release_action(test, api_destroy, rproc);
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_get_by_index(129));
}

/* ------------------------------------------------------------------ */
/* Carveouts */

struct cv_case {
	const char *desc;
	u32 mem_da, mem_len, da, len;
	int want;
};

#define ANY ((u32)SNAPTRACE_FW_RSC_ADDR_ANY)

static const struct cv_case cv_cases[] = {
	{ "any da, len fits", 0x1000, 0x1000, ANY, 0x1000, 0 },
	{ "any da, len too long", 0x1000, 0x1000, ANY, 0x1001, -EINVAL },
	{ "exact match", 0x1000, 0x1000, 0x1000, 0x1000, 0 },
	{ "inside, to the end", 0x1000, 0x1000, 0x1800, 0x800, 0 },
	{ "inside, one past the end", 0x1000, 0x1000, 0x1800, 0x801, -EINVAL },
	{ "below the carveout", 0x1000, 0x1000, 0xfff, 1, -EINVAL },
	{ "at the end, len 0", 0x1000, 0x1000, 0x2000, 0, 0 },
	{ "2 GiB above", 0x1000, 0x1000, 0x80001000, 1, -EINVAL },
	{ "fixed da, carveout anywhere", ANY, 0x1000, 0x1000, 1, -EINVAL },
	{ "any da, carveout anywhere", ANY, 0x1000, ANY, 0x1000, 0 },
	{ "top of 32 bits, no wrap", 0, 0xffffffff, 0xfffffff0, 0x10, -EINVAL },
	{ "top of 32 bits, fits", 0xfffff000, 0x1000, 0xfffff800, 0x800, 0 },
};

static void cv_case_desc(const struct cv_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cv, cv_cases, cv_case_desc);

/* rproc_check_carveout_da()'s answers; with IRQs off too (never sleeps). */
static void check_carveout_da_cases(struct kunit *test)
{
	const struct cv_case *c = test->param_value;
	struct snaptrace_rproc_mem mem = { .da = c->mem_da, .len = c->mem_len };
	unsigned long flags;
	int ret;

	strscpy(mem.name, "cv", sizeof(mem.name));
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_check_carveout_da(NULL, &mem, c->da, c->len),
			c->want);
	local_irq_save(flags);
	ret = snaptrace_rproc_check_carveout_da(NULL, &mem, c->da, c->len);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, c->want);
}

struct cv_hooks {
	int allocs, releases;
	int fail;
	void *va;
};

static int cv_alloc(struct snaptrace_rproc *rproc, struct snaptrace_rproc_mem *mem)
{
	struct cv_hooks *h = mem->priv;

	h->allocs++;
	if (h->fail)
		return h->fail;
	mem->va = h->va;
	return 0;
}

static int cv_release(struct snaptrace_rproc *rproc, struct snaptrace_rproc_mem *mem)
{
	struct cv_hooks *h = mem->priv;

	h->releases++;
	mem->va = NULL;
	return 0;
}

static struct snaptrace_rproc_mem *cv_entry(struct kunit *test, struct cv_hooks *h,
					    u32 da, u32 len, const char *name)
{
	struct snaptrace_rproc_mem *mem;

	mem = snaptrace_rproc_mem_entry_init(NULL, NULL, len, da, cv_alloc,
					     cv_release, "%s", name);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	mem->priv = h;
	return mem;
}

/* Bad registrations are refused and the entry stays the caller's. */
static void add_carveout_errors(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_rproc(test, 130, "default");
	struct cv_hooks h = {};
	struct snaptrace_rproc_mem *mem;
	static const struct { u32 da, len; const char *name; } bad[] = {
		{ 0x20000000, 0, "zero" },
		{ ANY, 0x1000, "anywhere" },
		{ 0xfffff000, 0x2000, "past-4g" },
		{ 0x1003f000, 0x2000, "overlaps-sram" },	/* layout 0x10000000+256K */
		{ 0x30000000, 0x1000, "" },
		{ 0x30000000, 0x1000, "sram" },		/* the layout's name */
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		mem = cv_entry(test, &h, bad[i].da, bad[i].len, bad[i].name);
		KUNIT_EXPECT_EQ_MSG(test, snaptrace_rproc_add_carveout(rproc, mem), -EINVAL,
				    "case %d", i);
		kfree(mem);
	}
	mem = snaptrace_rproc_mem_entry_init(NULL, NULL, 0x1000, 0x30000000, NULL,
					     NULL, "no-memory");
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), -EINVAL);
	kfree(mem);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_add_carveout(rproc, NULL), -EINVAL);
	/* Only the default layout's region, which its platform registered. */
	KUNIT_EXPECT_TRUE(test, list_is_singular(&rproc->carveouts));

	/* A good one; then the same name, and an overlap, are refused. */
	mem = cv_entry(test, &h, 0x30000000, 0x1000, "good");
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), 0);
	mem = cv_entry(test, &h, 0x40000000, 0x1000, "good");
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), -EINVAL);
	kfree(mem);
	mem = cv_entry(test, &h, 0x30000800, 0x1000, "other");
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), -EINVAL);
	kfree(mem);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&rproc->carveouts), 2);
	KUNIT_EXPECT_EQ(test, h.allocs, 0);	/* nothing runs before a boot */
}

/*
 * A registered carveout named like the firmware's fixed one takes its
 * place: allocated by its hook at each boot, found by da_to_va() (with
 * is_iomem false), released at each shutdown, kept registered.
 */
static void registered_carveout_used_by_boot(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_rproc(test, 131, "default");
	struct cv_hooks h = { .va = kunit_kzalloc(test, 0x8000, GFP_KERNEL) };
	struct snaptrace_rproc_mem *mem, *m;
	bool iomem = true;
	int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, h.va);
	mem = cv_entry(test, &h, SHARED_DA, 0x8000, "shared");
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), 0);
	api_need_fw(test, rproc, API_FW);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, h.allocs, 1);
	KUNIT_EXPECT_NE(test, mem->rsc_offset, -1);
	list_for_each_entry(m, &rproc->mems, node)
		if (!strcmp(m->name, "shared"))
			n++;
	KUNIT_EXPECT_EQ(test, n, 1);	/* placed, not allocated again */
	KUNIT_EXPECT_PTR_EQ(test, snaptrace_rproc_da_to_va(rproc, SHARED_DA + 0x10, 4, &iomem),
			    h.va + 0x10);
	/* I/O memory would give NULL (rproc_attach_kunit's iomem cases cover it). */
	KUNIT_EXPECT_FALSE(test, iomem);
	/* The whole registered region is mapped, not only the entry's length. */
	KUNIT_EXPECT_NOT_NULL(test, snaptrace_rproc_da_to_va(rproc, SHARED_DA + 0x7000, 4, NULL));
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), -EBUSY);

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_EQ(test, h.releases, 1);
	KUNIT_EXPECT_EQ(test, mem->rsc_offset, -1);
	/* The default layout's region and this one stay registered. */
	KUNIT_EXPECT_EQ(test, list_count_nodes(&rproc->carveouts), 2);
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, SHARED_DA, 4, NULL));

	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, h.allocs, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_EQ(test, h.releases, 2);
}

/*
 * A firmware carveout its registered region cannot hold fails the boot
 * with -ENOMEM (as upstream), and so does a failing alloc hook; whatever
 * was allocated is released, nothing is held.
 */
static void registered_carveout_mismatch_fails_boot(struct kunit *test)
{
	struct snaptrace_rproc *rproc = api_rproc(test, 132, "default");
	struct cv_hooks h = { .va = kunit_kzalloc(test, 0x8000, GFP_KERNEL) };
	struct snaptrace_rproc_mem *mem;

	KUNIT_ASSERT_NOT_NULL(test, h.va);
	/* The firmware wants "shared" at SHARED_DA: ours starts 4 KiB above. */
	mem = cv_entry(test, &h, SHARED_DA + 0x1000, 0x8000, "shared");
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), 0);
	api_need_fw(test, rproc, API_FW);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -ENOMEM);
	api_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, h.allocs, 1);
	KUNIT_EXPECT_EQ(test, h.releases, 1);

	h.fail = -ENOSPC;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -ENOMEM);
	api_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, h.allocs, 2);
	KUNIT_EXPECT_EQ(test, h.releases, 1);	/* its alloc failed: no release */
}

/* ------------------------------------------------------------------ */
/* vdevs */

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
	struct snaptrace_rproc *rproc = api_rproc(test, 133, "default");
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
	struct snaptrace_rproc *rproc = api_rproc(test, 134, "zynqmp-r5");
	struct snaptrace_rproc_vdev *rv;

	api_need_fw(test, rproc, API_VDEV_FW);
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
	api_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->subdevs));
}

/* ------------------------------------------------------------------ */

static void get_by_index(struct kunit *test)
{
	struct snaptrace_rproc *rproc = snaptrace_rproc_create(135, "default");

	KUNIT_ASSERT_FALSE(test, IS_ERR(rproc));
	KUNIT_EXPECT_PTR_EQ(test, snaptrace_rproc_get_by_index(135), rproc);
	snaptrace_rproc_destroy(rproc);
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_get_by_index(135));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_get_by_index(-1));
}

static struct kunit_case snaptrace_rproc_api_cases[] = {
	KUNIT_CASE(boot_shutdown_refcount),
	KUNIT_CASE(boot_errors_take_no_reference),
	KUNIT_CASE(boot_refcount_while_crashed),
	KUNIT_CASE(set_firmware_busy_and_names),
	KUNIT_CASE(report_crash_from_irq_work),
	KUNIT_CASE(report_crash_irqs_off_then_recovery_work),
	KUNIT_CASE(trigger_recovery_states),
	KUNIT_CASE(subdev_hook_order),
	KUNIT_CASE(subdev_unwind_on_failure),
	KUNIT_CASE(detach_and_attach),
	KUNIT_CASE_PARAM(check_carveout_da_cases, cv_gen_params),
	KUNIT_CASE(add_carveout_errors),
	KUNIT_CASE(registered_carveout_used_by_boot),
	KUNIT_CASE(registered_carveout_mismatch_fails_boot),
	KUNIT_CASE(handle_vdev_contract),
	KUNIT_CASE(vdev_subdev_lifecycle),
	KUNIT_CASE(get_by_index),
	{}
};

static struct kunit_suite snaptrace_rproc_api_suite = {
	.name = "snaptrace_rproc_api",
	.test_cases = snaptrace_rproc_api_cases,
};

kunit_test_suites(&snaptrace_rproc_api_suite);
