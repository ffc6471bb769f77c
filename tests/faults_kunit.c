// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the module's sleepable entry points under allocation
 * failure, as tests/scenarios/faults.sh does for the debugfs files: for
 * N = 1, 2, ... the Nth allocation of one call fails, through the test
 * thread's fail_nth (the counter /proc/self/fail-nth writes; failslab and
 * fail_page_alloc consult it, lib/fault-inject.c should_fail_ex()). A call
 * that fails must return -ENOMEM and leave everything as it was; one that
 * succeeds is undone. The walk ends when a call succeeds with the counter
 * not yet spent: no allocation was left to fail.
 *
 * failslab and fail_page_alloc ignore GFP_KERNEL (ignore-gfp-wait) and
 * fail_page_alloc order-0 pages (min-order) by default: tests/scenarios/
 * kunit.sh arms them before loading snaptrace_kunit.ko (probability stays
 * 0, so nothing fails but what fail_nth asks for). Without
 * CONFIG_FAILSLAB, or unarmed, every case skips, saying why.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <kunit/test.h>

#include <snaptrace/rproc.h>
#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "../src/rproc.h"
#include "st_kunit.h"

/* Most allocations one call may make before the walk gives up. */
#define FI_MAX_NTH	1000U
/* The remote these tests create (others' suites use 100..135). */
#define FI_RPROC_INDEX	150
#define FI_RPROC_DIR	"snaptrace-kunit-faults"
/* Its trace instances: "<remote name>-traceN" (src/rproc_trace.c). */
#define FI_TRACE_INST	SNAPTRACE_DEBUGFS_NAME "/instances/snaptrace-rproc" \
			__stringify(FI_RPROC_INDEX) "-trace"
#define FI_FW		"snaptrace/example64.elf"
/* The example image's fixed carveout, "shared" (0x4000 bytes). */
#define FI_SHARED_DA	0x20000000U
#define FI_SHARED_LEN	0x8000U
#define FI_INST		"kunit-faults"
/* Records in the live half and in the spare when a case starts. */
#define FI_LIVE_RECS	5
#define FI_SPARE_RECS	3

/* ---- the task's fail_nth ---- */

#ifdef CONFIG_FAULT_INJECTION
static void fi_set_nth(unsigned int n)
{
	WRITE_ONCE(current->fail_nth, n);
}

static unsigned int fi_nth(void)
{
	return READ_ONCE(current->fail_nth);
}
#else
static void fi_set_nth(unsigned int n)
{
}

static unsigned int fi_nth(void)
{
	return 0;
}
#endif

/*
 * Skip unless the first allocation of this task can be made to fail: the
 * kernel has failslab, and GFP_KERNEL is not ignored.
 */
static void fi_require_armed(struct kunit *test)
{
	void *p;

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test, "this kernel has no CONFIG_FAILSLAB (fail-nth)");
	fi_set_nth(1);
	p = kmalloc(64, GFP_KERNEL);
	fi_set_nth(0);
	kfree(p);
	if (p)
		kunit_skip(test, "%s",
			   "failslab ignores GFP_KERNEL (ignore-gfp-wait): tests/scenarios/kunit.sh arms it");
}

/*
 * The two walks of a remote's boot fail each of its 320-odd allocations in
 * turn, a boot and a shutdown each: nine tenths of this suite's time.
 * make check walks them on one debug kernel (6.12) and turns them off on
 * the other (snaptrace_kunit.remote_walks=0 on its command line, a skip
 * scripts/check.sh allows by this reason), where the module's unwinding is
 * the same code and only the kernel's own allocations differ.
 */
static bool remote_walks = true;
module_param(remote_walks, bool, 0444);
MODULE_PARM_DESC(remote_walks,
		 "walk every allocation of a remote's boot (snaptrace_faults; default on)");

static void fi_require_remote_walks(struct kunit *test)
{
	if (!remote_walks)
		kunit_skip(test, "%s",
			   "remote boot walks off (snaptrace_kunit.remote_walks=0): another kernel walks them");
}

/* ---- the walk ---- */

struct fi_walk;

/**
 * struct fi_op - an entry point to walk
 * @name: for messages
 * @call: the entry point, with the Nth allocation failing: 0 or -errno
 * @unchanged: true if the state is as before the first call (after a
 *	failure, and after an undo); reports what differs
 * @undo: gives back what a successful call did; false if it could not
 * @made: optional: true if what a call with no fault made is there (the
 *	positive control of @unchanged, whose "gone" checks would pass on a
 *	wrong name); reports what is missing
 */
struct fi_op {
	const char *name;
	int (*call)(struct fi_walk *w);
	bool (*unchanged)(struct fi_walk *w);
	bool (*undo)(struct fi_walk *w);
	bool (*made)(struct fi_walk *w);
};

/**
 * struct fi_walk - a walk in progress
 * @test: the running test
 * @op: what is walked
 * @ctx: for @op
 * @n: the allocation failed in this step
 * @failed: steps where a fault was injected and the call failed
 * @coped: steps where a fault was injected and the call succeeded
 */
struct fi_walk {
	struct kunit *test;
	const struct fi_op *op;
	void *ctx;
	unsigned int n;
	unsigned int failed;
	unsigned int coped;
};

/* Fail the test: at step @w->n, @what@arg does not hold. Returns false. */
static bool fi_report(struct fi_walk *w, const char *what, const char *arg)
{
	if (w->n)
		KUNIT_FAIL(w->test, "%s, N=%u: expected %s%s", w->op->name, w->n, what, arg);
	else
		KUNIT_FAIL(w->test, "%s, before the walk: expected %s%s", w->op->name, what, arg);
	return false;
}

/* Fail the test with @what unless @ok; returns @ok. */
static bool fi_check(struct fi_walk *w, bool ok, const char *what)
{
	return ok || fi_report(w, what, "");
}

#define FI_CHECK(w, cond)	fi_check((w), (cond), #cond)

/*
 * Walk @op: N = 1, 2, ... until a call succeeds with fail_nth unspent.
 * Stops at the first step that goes wrong (its state is unknown from then
 * on). Expects at least one injected failure.
 */
static void fi_walk(struct kunit *test, const struct fi_op *op, void *ctx)
{
	struct fi_walk w = { .test = test, .op = op, .ctx = ctx };
	unsigned int left = 0;
	bool ok;
	int ret = 0;

	KUNIT_ASSERT_TRUE(test, op->unchanged(&w));
	for (w.n = 1; w.n <= FI_MAX_NTH; w.n++) {
		fi_set_nth(w.n);
		ret = op->call(&w);
		left = fi_nth();
		fi_set_nth(0);
		if (ret) {
			w.failed++;
			ok = true;
			if (ret != -ENOMEM) {
				KUNIT_FAIL(test, "%s, N=%u: returned %pe, not -ENOMEM",
					   op->name, w.n, ERR_PTR(ret));
				ok = false;
			}
			if (left) {
				KUNIT_FAIL(test, "%s, N=%u: returned %pe, no fault injected",
					   op->name, w.n, ERR_PTR(ret));
				ok = false;
			}
			ok = op->unchanged(&w) && ok;
		} else {
			if (!left)
				w.coped++;
			ok = !left || !op->made || op->made(&w);
			ok = op->undo(&w) && op->unchanged(&w) && ok;
		}
		/* Done when nothing was left to fail; stop at a bad step. */
		if (!ret && left)
			break;
		if (!ok)
			break;
	}
	kunit_info(test, "%s: %u faults injected: %u failed with -ENOMEM, %u coped with; %s at N=%u\n",
		   op->name, w.failed + w.coped, w.failed, w.coped,
		   !ret && left ? "no allocation left to fail" : "stopped",
		   min(w.n, FI_MAX_NTH));
	KUNIT_EXPECT_LE_MSG(test, w.n, FI_MAX_NTH, "%s: still failing after %u allocations",
			    op->name, FI_MAX_NTH);
	KUNIT_EXPECT_GT_MSG(test, w.failed, 0, "%s: no call failed", op->name);
}

/* ---- debugfs ---- */

/* Fail the test unless debugfs @path is absent; returns whether it is. */
static bool fi_gone(struct fi_walk *w, const char *path)
{
	return !st_debugfs_has(path) || fi_report(w, "no debugfs ", path);
}

/* ---- ring buffers ---- */

/* Records in one half of @buf, on every CPU; U64_MAX if it has no such half. */
static u64 fi_entries(struct snaptrace_buffer *buf, enum snaptrace_which which)
{
	struct snaptrace_stats st;
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (snaptrace_cpu_stats(buf, which, cpu, &st))
			return U64_MAX;
		sum += st.entries;
	}
	return sum;
}

static int fi_write_recs(struct snaptrace_buffer *buf, unsigned int n)
{
	static const char rec[] = "kunit-faults";
	int ret = 0;

	while (n-- && !ret)
		ret = snaptrace_write(buf, rec, sizeof(rec));
	return ret;
}

/**
 * struct fi_ring - a buffer and what it should hold
 * @buf: the buffer
 * @size: its bytes per CPU
 * @spare: it should have a spare, holding %FI_SPARE_RECS records
 * @resize_to: the size the resize walk asks for
 */
struct fi_ring {
	struct snaptrace_buffer *buf;
	size_t size;
	bool spare;
	size_t resize_to;
};

/* Empty @r's halves, then fill them as the case starts: true if done. */
static bool fi_ring_fill(struct fi_ring *r)
{
	snaptrace_reset(r->buf);
	if (r->spare) {
		if (snaptrace_alloc_snapshot(r->buf) ||
		    fi_write_recs(r->buf, FI_SPARE_RECS) ||
		    snaptrace_snapshot(r->buf))
			return false;
		snaptrace_reset(r->buf);
	}
	return !fi_write_recs(r->buf, FI_LIVE_RECS);
}

static bool fi_ring_unchanged(struct fi_walk *w)
{
	struct fi_ring *r = w->ctx;
	bool ok = true;

	ok &= FI_CHECK(w, snaptrace_size_per_cpu(r->buf) == r->size);
	ok &= FI_CHECK(w, snaptrace_snapshot_is_allocated(r->buf) == r->spare);
	ok &= FI_CHECK(w, fi_entries(r->buf, SNAPTRACE_LIVE) == FI_LIVE_RECS);
	if (r->spare)
		ok &= FI_CHECK(w, fi_entries(r->buf, SNAPTRACE_SNAPSHOT) == FI_SPARE_RECS);
	return ok;
}

static struct fi_ring *fi_ring_new(struct kunit *test, bool spare)
{
	struct fi_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->size = 2 * SNAPTRACE_MIN_SIZE;
	r->resize_to = 2 * r->size;
	r->spare = spare;
	r->buf = st_buf_new(test, r->size, SNAPTRACE_OVERWRITE);
	KUNIT_ASSERT_TRUE(test, fi_ring_fill(r));
	return r;
}

/* snaptrace_buffer_alloc(): nothing to see but what kmemleak sees. */
static int fi_buffer_alloc_call(struct fi_walk *w)
{
	struct snaptrace_buffer **bufp = w->ctx;

	*bufp = snaptrace_buffer_alloc(4 * SNAPTRACE_MIN_SIZE, SNAPTRACE_OVERWRITE);
	return PTR_ERR_OR_ZERO(*bufp);
}

static bool fi_buffer_alloc_unchanged(struct fi_walk *w)
{
	struct snaptrace_buffer **bufp = w->ctx;

	return FI_CHECK(w, IS_ERR_OR_NULL(*bufp));
}

static bool fi_buffer_alloc_undo(struct fi_walk *w)
{
	struct snaptrace_buffer **bufp = w->ctx;

	snaptrace_buffer_free(*bufp);
	*bufp = NULL;
	return true;
}

static const struct fi_op fi_buffer_alloc_op = {
	.name = "snaptrace_buffer_alloc()",
	.call = fi_buffer_alloc_call,
	.unchanged = fi_buffer_alloc_unchanged,
	.undo = fi_buffer_alloc_undo,
};

static void buffer_alloc(struct kunit *test)
{
	struct snaptrace_buffer *buf = NULL;

	fi_require_armed(test);
	fi_walk(test, &fi_buffer_alloc_op, &buf);
}

/*
 * snaptrace_buffer_alloc_cpu() and its spare: the rings of size 0 on the
 * other CPUs are in both halves' failure paths.
 */
static int fi_buffer_alloc_cpu_call(struct fi_walk *w)
{
	struct snaptrace_buffer **bufp = w->ctx;
	int ret;

	*bufp = snaptrace_buffer_alloc_cpu(4 * SNAPTRACE_MIN_SIZE,
					   SNAPTRACE_OVERWRITE,
					   cpumask_last(cpu_online_mask));
	if (IS_ERR(*bufp))
		return PTR_ERR(*bufp);
	ret = snaptrace_alloc_snapshot(*bufp);
	if (ret) {
		snaptrace_buffer_free(*bufp);
		*bufp = NULL;
	}
	return ret;
}

static const struct fi_op fi_buffer_alloc_cpu_op = {
	.name = "snaptrace_buffer_alloc_cpu()",
	.call = fi_buffer_alloc_cpu_call,
	.unchanged = fi_buffer_alloc_unchanged,
	.undo = fi_buffer_alloc_undo,
};

static void buffer_alloc_cpu(struct kunit *test)
{
	struct snaptrace_buffer *buf = NULL;

	fi_require_armed(test);
	fi_walk(test, &fi_buffer_alloc_cpu_op, &buf);
}

/* snaptrace_alloc_snapshot(): the spare only. */
static int fi_alloc_snapshot_call(struct fi_walk *w)
{
	struct fi_ring *r = w->ctx;

	return snaptrace_alloc_snapshot(r->buf);
}

static bool fi_free_snapshot_undo(struct fi_walk *w)
{
	struct fi_ring *r = w->ctx;

	snaptrace_free_snapshot(r->buf);
	return FI_CHECK(w, fi_ring_fill(r));
}

static const struct fi_op fi_alloc_snapshot_op = {
	.name = "snaptrace_alloc_snapshot()",
	.call = fi_alloc_snapshot_call,
	.unchanged = fi_ring_unchanged,
	.undo = fi_free_snapshot_undo,
};

static void alloc_snapshot(struct kunit *test)
{
	fi_require_armed(test);
	fi_walk(test, &fi_alloc_snapshot_op, fi_ring_new(test, false));
}

/* snaptrace_snapshot_alloc(): the spare, then a swap. */
static int fi_snapshot_alloc_call(struct fi_walk *w)
{
	struct fi_ring *r = w->ctx;

	return snaptrace_snapshot_alloc(r->buf);
}

static const struct fi_op fi_snapshot_alloc_op = {
	.name = "snaptrace_snapshot_alloc()",
	.call = fi_snapshot_alloc_call,
	.unchanged = fi_ring_unchanged,
	.undo = fi_free_snapshot_undo,
};

static void snapshot_alloc(struct kunit *test)
{
	fi_require_armed(test);
	fi_walk(test, &fi_snapshot_alloc_op, fi_ring_new(test, false));
}

/* snaptrace_resize() of a buffer with a spare: both halves are replaced. */
static int fi_resize_call(struct fi_walk *w)
{
	struct fi_ring *r = w->ctx;

	return snaptrace_resize(r->buf, r->resize_to);
}

static bool fi_resize_undo(struct fi_walk *w)
{
	struct fi_ring *r = w->ctx;

	if (!FI_CHECK(w, snaptrace_size_per_cpu(r->buf) == r->resize_to) ||
	    !FI_CHECK(w, snaptrace_snapshot_is_allocated(r->buf)))
		return false;
	return FI_CHECK(w, !snaptrace_resize(r->buf, r->size)) &&
	       FI_CHECK(w, fi_ring_fill(r));
}

static const struct fi_op fi_resize_op = {
	.name = "snaptrace_resize() with a spare",
	.call = fi_resize_call,
	.unchanged = fi_ring_unchanged,
	.undo = fi_resize_undo,
};

static void resize_with_spare(struct kunit *test)
{
	fi_require_armed(test);
	fi_walk(test, &fi_resize_op, fi_ring_new(test, true));
}

/* ---- instances ---- */

/* snaptrace_get_by_name() of a new name: instance, buffer, directory. */
static int fi_get_by_name_call(struct fi_walk *w)
{
	struct snaptrace_buffer **bufp = w->ctx;

	*bufp = snaptrace_get_by_name(FI_INST, SNAPTRACE_MIN_SIZE);
	return PTR_ERR_OR_ZERO(*bufp);
}

static bool fi_get_by_name_unchanged(struct fi_walk *w)
{
	struct snaptrace_buffer **bufp = w->ctx;

	return FI_CHECK(w, IS_ERR_OR_NULL(*bufp)) &&
	       fi_gone(w, SNAPTRACE_DEBUGFS_NAME "/instances/" FI_INST);
}

static bool fi_get_by_name_undo(struct fi_walk *w)
{
	struct snaptrace_buffer **bufp = w->ctx;

	/* The last reference: the instance and its directory go. */
	snaptrace_put(*bufp);
	*bufp = NULL;
	return true;
}

static bool fi_get_by_name_made(struct fi_walk *w)
{
	return fi_check(w, st_debugfs_has(SNAPTRACE_DEBUGFS_NAME "/instances/" FI_INST),
			"instances/" FI_INST " made");
}

static const struct fi_op fi_get_by_name_op = {
	.name = "snaptrace_get_by_name() of a new instance",
	.call = fi_get_by_name_call,
	.unchanged = fi_get_by_name_unchanged,
	.undo = fi_get_by_name_undo,
	.made = fi_get_by_name_made,
};

static void instance_get_by_name(struct kunit *test)
{
	struct snaptrace_buffer *buf = NULL;

	fi_require_armed(test);
	KUNIT_ASSERT_TRUE_MSG(test, st_debugfs_has(SNAPTRACE_DEBUGFS_NAME "/instances"),
			      "snaptrace.ko is not loaded");
	fi_walk(test, &fi_get_by_name_op, &buf);
}

/* ---- remote processors ---- */

/**
 * struct fi_rproc - a remote of the test's own
 * @test: the running test
 * @rproc: the remote; its debugfs directory is FI_RPROC_DIR, for its
 *	trace files
 * @mem: the carveout registered by the case, or NULL
 * @held: memory @mem's alloc hook handed out and its release hook did not
 *	take back
 * @hook_failed: @mem's alloc hook found no memory
 * @fail_hook: make the alloc hook's own allocation fail (fail_nth 1)
 */
struct fi_rproc {
	struct kunit *test;
	struct snaptrace_rproc *rproc;
	struct snaptrace_rproc_mem *mem;
	int held;
	unsigned int hook_failed;
	bool fail_hook;
};

/* The platform's memory for "shared", allocated at each boot. */
static int fi_cv_alloc(struct snaptrace_rproc *rproc, struct snaptrace_rproc_mem *mem)
{
	struct fi_rproc *r = mem->priv;

	if (r->fail_hook)
		fi_set_nth(1);
	mem->va = kzalloc(mem->len, GFP_KERNEL);
	if (r->fail_hook)
		fi_set_nth(0);
	if (!mem->va) {
		r->hook_failed++;
		return -ENOMEM;
	}
	r->held++;
	return 0;
}

static int fi_cv_release(struct snaptrace_rproc *rproc, struct snaptrace_rproc_mem *mem)
{
	struct fi_rproc *r = mem->priv;

	kfree(mem->va);
	mem->va = NULL;
	r->held--;
	return 0;
}

static void fi_rproc_destroy(void *data)
{
	struct fi_rproc *r = data;

	snaptrace_rproc_destroy(r->rproc);
	r->rproc = NULL;
}

/* A new offline remote in @r, with its debugfs directory for trace files. */
static bool fi_rproc_create(struct fi_rproc *r)
{
	struct dentry *dir;

	r->rproc = st_rproc_create(FI_RPROC_INDEX, "default");
	if (!r->rproc)
		return false;
	/* As the module's remotes have remoteprocN; destroy removes it. */
	dir = debugfs_create_dir(FI_RPROC_DIR, NULL);
	if (!IS_ERR(dir))
		r->rproc->dir = dir;
	return true;
}

static struct fi_rproc *fi_rproc_new(struct kunit *test)
{
	struct fi_rproc *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->test = test;
	KUNIT_ASSERT_TRUE(test, fi_rproc_create(r));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fi_rproc_destroy, r), 0);
	KUNIT_ASSERT_NOT_NULL_MSG(test, r->rproc->dir, "debugfs " FI_RPROC_DIR);
	st_rproc_need_fw(test, r->rproc, FI_FW);
	return r;
}

static struct snaptrace_rproc_mem *fi_cv_entry(struct fi_rproc *r)
{
	struct snaptrace_rproc_mem *mem;

	mem = snaptrace_rproc_mem_entry_init(NULL, NULL, FI_SHARED_LEN, FI_SHARED_DA,
					     fi_cv_alloc, fi_cv_release, "shared");
	if (mem)
		mem->priv = r;
	return mem;
}

/* Offline, nothing of a firmware held: no traces, carveouts, table, files. */
static bool fi_rproc_unchanged(struct fi_walk *w)
{
	struct fi_rproc *r = w->ctx;
	struct snaptrace_rproc *rproc = r->rproc;
	bool ok = true;

	ok &= FI_CHECK(w, snaptrace_rproc_get_state(rproc) == SNAPTRACE_RPROC_OFFLINE);
	ok &= FI_CHECK(w, rproc->power == 0);
	ok &= FI_CHECK(w, list_empty(&rproc->traces));
	ok &= FI_CHECK(w, rproc->num_traces == 0);
	ok &= FI_CHECK(w, rproc->traces_len == 0);
	ok &= FI_CHECK(w, list_empty(&rproc->mems));
	ok &= FI_CHECK(w, rproc->nr_mems == 0);
	ok &= FI_CHECK(w, list_empty(&rproc->vdev_list));
	ok &= FI_CHECK(w, list_empty(&rproc->subdevs));
	ok &= FI_CHECK(w, !rproc->subdevs_prepared && !rproc->subdevs_started);
	ok &= FI_CHECK(w, !rproc->table && !rproc->table_sz);
	ok &= fi_gone(w, FI_RPROC_DIR "/trace0");
	ok &= fi_gone(w, FI_RPROC_DIR "/trace0_last");
	ok &= fi_gone(w, FI_RPROC_DIR "/trace1");
	ok &= fi_gone(w, FI_TRACE_INST "0");
	ok &= fi_gone(w, FI_TRACE_INST "1");
	/* The default layout's region is registered platform memory too. */
	if (r->mem) {
		ok &= FI_CHECK(w, list_count_nodes(&rproc->carveouts) == 2);
		ok &= FI_CHECK(w, r->held == 0);
		ok &= FI_CHECK(w, !r->mem->va);
		ok &= FI_CHECK(w, r->mem->rsc_offset == -1);
	} else {
		ok &= FI_CHECK(w, list_is_singular(&rproc->carveouts));
	}
	return ok;
}

/* snaptrace_rproc_boot(): firmware, table, carveouts, traces, core. */
static int fi_boot_call(struct fi_walk *w)
{
	struct fi_rproc *r = w->ctx;

	return snaptrace_rproc_boot(r->rproc);
}

static bool fi_boot_undo(struct fi_walk *w)
{
	struct fi_rproc *r = w->ctx;
	bool ok = true;

	ok &= FI_CHECK(w, snaptrace_rproc_get_state(r->rproc) == SNAPTRACE_RPROC_RUNNING);
	ok &= FI_CHECK(w, r->rproc->num_traces == 2);
	ok &= FI_CHECK(w, !r->mem || r->held == 1);
	return FI_CHECK(w, snaptrace_rproc_shutdown(r->rproc) == 0) && ok;
}

static bool fi_boot_made(struct fi_walk *w)
{
	bool ok = true;

	ok &= fi_check(w, st_debugfs_has(FI_RPROC_DIR "/trace0"), "trace0 made");
	ok &= fi_check(w, st_debugfs_has(FI_RPROC_DIR "/trace0_last"), "trace0_last made");
	ok &= fi_check(w, st_debugfs_has(FI_TRACE_INST "0"), "trace0's instance made");
	return ok;
}

static const struct fi_op fi_boot_op = {
	.name = "snaptrace_rproc_boot()",
	.call = fi_boot_call,
	.unchanged = fi_rproc_unchanged,
	.undo = fi_boot_undo,
	.made = fi_boot_made,
};

static void rproc_boot(struct kunit *test)
{
	fi_require_armed(test);
	fi_require_remote_walks(test);
	fi_walk(test, &fi_boot_op, fi_rproc_new(test));
}

/*
 * snaptrace_rproc_mem_entry_init() then _add_carveout(): nothing
 * registered after a failure; a registration is undone by making the
 * remote anew (nothing unregisters).
 */
static int fi_add_carveout_call(struct fi_walk *w)
{
	struct fi_rproc *r = w->ctx;
	struct snaptrace_rproc_mem *mem = fi_cv_entry(r);
	int ret;

	if (!mem)
		return -ENOMEM;
	ret = snaptrace_rproc_add_carveout(r->rproc, mem);
	if (ret)
		kfree(mem);
	return ret;
}

static bool fi_add_carveout_undo(struct fi_walk *w)
{
	struct fi_rproc *r = w->ctx;

	if (!FI_CHECK(w, list_count_nodes(&r->rproc->carveouts) == 2))
		return false;
	fi_rproc_destroy(r);
	return FI_CHECK(w, fi_rproc_create(r)) &&
	       FI_CHECK(w, !snaptrace_rproc_set_firmware(r->rproc, FI_FW));
}

static const struct fi_op fi_add_carveout_op = {
	.name = "snaptrace_rproc_mem_entry_init() + add_carveout()",
	.call = fi_add_carveout_call,
	.unchanged = fi_rproc_unchanged,
	.undo = fi_add_carveout_undo,
};

static void rproc_add_carveout(struct kunit *test)
{
	fi_require_armed(test);
	fi_walk(test, &fi_add_carveout_op, fi_rproc_new(test));
}

/*
 * snaptrace_rproc_boot() with a registered carveout for the firmware's
 * "shared", whose alloc hook allocates too: what it handed out is taken
 * back whenever the boot fails after it.
 */
static void rproc_boot_registered_carveout(struct kunit *test)
{
	struct fi_walk w = { .test = test, .op = &fi_boot_op };
	struct snaptrace_rproc_mem *mem;
	struct fi_rproc *r;
	int ret;

	fi_require_armed(test);
	fi_require_remote_walks(test);
	r = fi_rproc_new(test);
	w.ctx = r;
	mem = fi_cv_entry(r);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_add_carveout(r->rproc, mem), 0);
	r->mem = mem;
	fi_walk(test, &fi_boot_op, r);

	/*
	 * Where the hook's allocation falls among the walk's steps varies
	 * (slab refills, KASAN's stack depot and kmemleak spend fail_nth
	 * too), so fail it on purpose as well: a 32 KiB kzalloc() comes from
	 * the page allocator, which the kunit scenario arms for fail_nth.
	 */
	r->hook_failed = 0;
	r->fail_hook = true;
	ret = snaptrace_rproc_boot(r->rproc);
	r->fail_hook = false;
	KUNIT_EXPECT_EQ_MSG(test, r->hook_failed, 1U, "the alloc hook did not fail");
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	if (!ret)
		snaptrace_rproc_shutdown(r->rproc);
	else
		KUNIT_EXPECT_TRUE(test, fi_rproc_unchanged(&w));
}

static struct kunit_case snaptrace_faults_cases[] = {
	KUNIT_CASE(buffer_alloc),
	KUNIT_CASE(buffer_alloc_cpu),
	KUNIT_CASE(alloc_snapshot),
	KUNIT_CASE(snapshot_alloc),
	KUNIT_CASE_SLOW(resize_with_spare),
	KUNIT_CASE_SLOW(instance_get_by_name),
	KUNIT_CASE_SLOW(rproc_boot),
	KUNIT_CASE(rproc_add_carveout),
	KUNIT_CASE_SLOW(rproc_boot_registered_carveout),
	{}
};

static struct kunit_suite snaptrace_faults_suite = {
	.name = "snaptrace_faults",
	.test_cases = snaptrace_faults_cases,
};

kunit_test_suites(&snaptrace_faults_suite);
