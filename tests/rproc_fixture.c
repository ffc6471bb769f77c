// SPDX-License-Identifier: GPL-2.0
/*
 * The remote fixture of the snaptrace KUnit suites (see st_kunit.h): a
 * remote processor of the test's own, simulated or attached, destroyed
 * when the test ends; a bare one with hand-made memory; firmware set or
 * the test skipped; and the checks of a remote that holds nothing. Every
 * suite that builds remotes of ours builds them here.
 */
#include <linux/err.h>
#include <linux/firmware.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <kunit/test.h>

#include <snaptrace/rproc.h>
#include "../src/rproc.h"
#include "st_kunit.h"

static void st_rproc_destroy(void *rproc)
{
	snaptrace_rproc_destroy(rproc);
}

/**
 * st_rproc_create() - a simulated remote, offline, without recovery
 * @index: its number (remoteproc@index); each case uses its own
 * @layout: its memory layout (snaptrace_rproc_create())
 *
 * Without KUnit's assertions, for the faults suite, which creates remotes
 * under fault injection and checks the failure itself. The caller
 * destroys it.
 *
 * Context: process context, may sleep.
 * Return: the remote, or NULL if it could not be created.
 */
struct snaptrace_rproc *st_rproc_create(int index, const char *layout)
{
	struct snaptrace_rproc *rproc = snaptrace_rproc_create(index, layout);

	if (IS_ERR(rproc))
		return NULL;
	WRITE_ONCE(rproc->recovery, false);
	return rproc;
}

/**
 * st_rproc_new() - a simulated remote of the test's own
 * @test: the running test
 * @index: its number (remoteproc@index); each case uses its own
 * @layout: its memory layout (snaptrace_rproc_create())
 *
 * Offline, recovery off, destroyed when the test ends.
 *
 * Context: process context, may sleep.
 * Return: the remote (the test fails if it cannot be created).
 */
struct snaptrace_rproc *st_rproc_new(struct kunit *test, int index,
				     const char *layout)
{
	struct snaptrace_rproc *rproc = snaptrace_rproc_create(index, layout);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(rproc), "create: %pe", rproc);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_rproc_destroy, rproc), 0);
	WRITE_ONCE(rproc->recovery, false);
	return rproc;
}

/**
 * st_rproc_release() - destroy a remote of st_rproc_new() now
 * @test: the running test
 * @rproc: from st_rproc_new() or st_rproc_attached_new()
 *
 * Context: process context, may sleep.
 */
void st_rproc_release(struct kunit *test, struct snaptrace_rproc *rproc)
{
	kunit_release_action(test, st_rproc_destroy, rproc);
}

/**
 * st_rproc_attached_new() - an attach-platform remote of the test's own
 * @test: the running test
 * @index: its number (remoteproc@index)
 * @name: its name
 * @shared: the memory it shares with the host
 * @ops: the platform's hooks (the heartbeat)
 * @priv: passed to @ops
 * @watchdog_ms: its watchdog period
 *
 * As snaptrace_rproc_create_attached() (no device), destroyed when the
 * test ends.
 *
 * Context: process context, may sleep.
 * Return: the remote (the test fails if it cannot be created).
 */
struct snaptrace_rproc *
st_rproc_attached_new(struct kunit *test, int index, const char *name,
		      const struct snaptrace_rproc_mem *shared,
		      const struct snaptrace_rproc_attach_ops *ops, void *priv,
		      unsigned int watchdog_ms)
{
	struct snaptrace_rproc *rproc;

	rproc = snaptrace_rproc_create_attached(index, name, NULL, shared, ops,
						priv, watchdog_ms);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rproc));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_rproc_destroy, rproc), 0);
	return rproc;
}

/**
 * st_rproc_need_fw() - set a remote's firmware, or skip the test
 * @test: the running test
 * @rproc: the remote
 * @name: the firmware, under /lib/firmware
 *
 * Skips the test unless @name is there.
 *
 * Context: process context, may sleep.
 */
void st_rproc_need_fw(struct kunit *test, struct snaptrace_rproc *rproc,
		      const char *name)
{
	const struct firmware *fw;

	if (request_firmware_direct(&fw, name, rproc->dev))
		kunit_skip(test, "%s is not in /lib/firmware", name);
	release_firmware(fw);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_set_firmware(rproc, name), 0);
}

/**
 * st_rproc_bare() - a bare remote with hand-made memory
 * @test: the running test
 *
 * No platform and no device: enough for da_to_va() and the trace
 * handler. Its memory comes from st_rproc_add_mem(); freed with the test.
 *
 * Context: process context, may sleep.
 * Return: the remote (the test fails without memory).
 */
struct snaptrace_rproc *st_rproc_bare(struct kunit *test)
{
	struct snaptrace_rproc *rproc = kunit_kzalloc(test, sizeof(*rproc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rproc);
	rproc->ops = &st_rproc_nop_ops;
	INIT_LIST_HEAD(&rproc->mems);
	INIT_LIST_HEAD(&rproc->traces);
	mutex_init(&rproc->lock);
	return rproc;
}

/**
 * st_rproc_add_mem() - give a bare remote a region of memory
 * @test: the running test
 * @rproc: from st_rproc_bare()
 * @da: the region's device address
 * @len: its length, zeroed; freed with the test
 *
 * Context: process context, may sleep.
 */
void st_rproc_add_mem(struct kunit *test, struct snaptrace_rproc *rproc, u32 da,
		      u32 len)
{
	struct snaptrace_rproc_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->va = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->va);
	m->da = da;
	m->len = len;
	m->kind = "region";
	list_add_tail(&m->node, &rproc->mems);
}

/**
 * st_rproc_expect_nothing_held() - expect a remote offline, holding nothing
 * @test: the running test
 * @rproc: the remote
 *
 * Offline, with no trace, memory or resource table of its last firmware.
 *
 * Context: any.
 */
void st_rproc_expect_nothing_held(struct kunit *test, struct snaptrace_rproc *rproc)
{
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_OFFLINE);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->traces));
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->mems));
	KUNIT_EXPECT_NULL(test, rproc->table);
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 0);
	KUNIT_EXPECT_EQ(test, rproc->nr_mems, 0);
}

/**
 * st_rproc_expect_offline_empty() - expect a remote shut down, all undone
 * @test: the running test
 * @rproc: the remote
 *
 * Offline, powered down, with no trace, memory, vdev or resource table,
 * and its sub-devices neither prepared nor started.
 *
 * Context: any.
 */
void st_rproc_expect_offline_empty(struct kunit *test, struct snaptrace_rproc *rproc)
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
