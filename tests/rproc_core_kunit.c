// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the remote processors' kernel API (include/snaptrace/
 * rproc.h, src/rproc_core.c): boot references, firmware changes, crash
 * reports from hardirq and with IRQs off, recovery, detach and attach,
 * sub-device hooks and their unwinding. Carveouts are tested in
 * rproc_mem_kunit.c, vdevs in rproc_vdev_kunit.c.
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
#include "st_kunit.h"

#define API_FW		"snaptrace/example64.elf"

static struct snaptrace_rproc *api_booted(struct kunit *test, int index)
{
	struct snaptrace_rproc *rproc = st_rproc_new(test, index, "default");

	st_rproc_need_fw(test, rproc, API_FW);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_get_state(rproc), SNAPTRACE_RPROC_RUNNING);
	return rproc;
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
	st_rproc_expect_offline_empty(test, rproc);
	/* A redundant shutdown is refused and changes nothing. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), -EINVAL);
	st_rproc_expect_offline_empty(test, rproc);
	/* And it boots again. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, rproc->power, 1);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	st_rproc_expect_offline_empty(test, rproc);
}

/* A boot that fails takes no reference and leaves nothing. */
static void boot_errors_take_no_reference(struct kunit *test)
{
	struct snaptrace_rproc *rproc = st_rproc_new(test, 121, "default");

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EINVAL);	/* no name */
	st_rproc_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "snaptrace/none.elf"), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -ENOENT);
	st_rproc_expect_offline_empty(test, rproc);
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
	st_rproc_expect_offline_empty(test, rproc);
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
	st_rproc_expect_offline_empty(test, rproc);
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
	st_rproc_expect_offline_empty(test, rproc);
}

/* trigger_recovery(): only when crashed; restarts and keeps references. */
static void trigger_recovery_states(struct kunit *test)
{
	struct snaptrace_rproc *rproc = st_rproc_new(test, 126, "default");
	u32 seq;

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_trigger_recovery(rproc), -EINVAL);
	st_rproc_need_fw(test, rproc, API_FW);
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
	struct snaptrace_rproc *rproc = st_rproc_new(test, 127, "default");
	struct test_subdev *a, *b;
	char *log = two_subdevs(test, rproc, &a, &b);

	st_rproc_need_fw(test, rproc, API_FW);
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
	struct snaptrace_rproc *rproc = st_rproc_new(test, 128, "default");
	struct test_subdev *a, *b;
	char *log = two_subdevs(test, rproc, &a, &b);

	st_rproc_need_fw(test, rproc, API_FW);
	b->fail = "prepare";
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EIO);
	KUNIT_EXPECT_STREQ(test, log, "A.prepare B.prepare A.unprepare");
	st_rproc_expect_offline_empty(test, rproc);

	log[0] = '\0';
	b->fail = "start";
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EIO);
	KUNIT_EXPECT_STREQ(test, log,
			   "A.prepare B.prepare A.start B.start A.stop(crashed) B.unprepare A.unprepare");
	st_rproc_expect_offline_empty(test, rproc);

	log[0] = '\0';
	a->fail = "start";
	b->fail = NULL;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EIO);
	KUNIT_EXPECT_STREQ(test, log, "A.prepare B.prepare A.start B.unprepare A.unprepare");
	st_rproc_expect_offline_empty(test, rproc);

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
	st_rproc_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &a->subdev), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &b->subdev), 0);
}

/* ------------------------------------------------------------------ */
/* detach and attach */

static void detach_and_attach(struct kunit *test)
{
	struct snaptrace_rproc *rproc = st_rproc_new(test, 129, "default");
	struct test_subdev *a, *b;
	char *log = two_subdevs(test, rproc, &a, &b);
	u32 seq;

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), -EINVAL);	/* offline */
	st_rproc_need_fw(test, rproc, API_FW);
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
	st_rproc_release(test, rproc);
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_get_by_index(129));
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
	KUNIT_CASE(get_by_index),
	{}
};

static struct kunit_suite snaptrace_rproc_api_suite = {
	.name = "snaptrace_rproc_api",
	.test_cases = snaptrace_rproc_api_cases,
};

kunit_test_suites(&snaptrace_rproc_api_suite);
