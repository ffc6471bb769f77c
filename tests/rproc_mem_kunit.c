// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the remotes' memory (src/rproc_mem.c): da_to_va() over
 * the regions, without overflow; rproc_check_carveout_da()'s answers;
 * carveouts a platform registers, refused when bad, placed at each boot
 * by their hooks and released at each shutdown, and a boot failing
 * cleanly when one cannot hold the firmware's carveout.
 */
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/test.h>

#include <snaptrace/rproc.h>
#include <snaptrace/rsc_table.h>
#include "../src/rproc.h"
#include "st_kunit.h"

#define API_FW		"snaptrace/example64.elf"
/* The example image's fixed carveout. */
#define SHARED_DA	0x20000000U

/* The whole range must lie in one mapping; no arithmetic may wrap. */
static void da_to_va_bounds(struct kunit *test)
{
	struct snaptrace_rproc *rproc = st_rproc_bare(test);
	struct snaptrace_rproc_mem *m;
	u8 *va;

	st_rproc_add_mem(test, rproc, 0x1000, 0x1000);
	st_rproc_add_mem(test, rproc, 0x2000, 0x1000);	/* adjacent */
	st_rproc_add_mem(test, rproc, 0xfffff000, 0x1000);	/* at the top of 32 bits */
	m = list_first_entry(&rproc->mems, struct snaptrace_rproc_mem, node);
	va = m->va;

	KUNIT_EXPECT_PTR_EQ(test, snaptrace_rproc_da_to_va(rproc, 0x1000, 0x1000, NULL), va);
	KUNIT_EXPECT_PTR_EQ(test, snaptrace_rproc_da_to_va(rproc, 0x1fff, 1, NULL), va + 0xfff);
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1fff, 2, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0xfff, 2, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1000, 0, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1000, 0x1001, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1800, 0x1000, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x1000, SIZE_MAX, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, U64_MAX, 1, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x3000, 1, NULL));
	KUNIT_EXPECT_NOT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0xffffffff, 1, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0xffffffff, 2, NULL));
	KUNIT_EXPECT_NULL(test, snaptrace_rproc_da_to_va(rproc, 0x100000000ULL, 1, NULL));
}

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
	struct snaptrace_rproc *rproc = st_rproc_new(test, 130, "default");
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
	struct snaptrace_rproc *rproc = st_rproc_new(test, 131, "default");
	struct cv_hooks h = { .va = kunit_kzalloc(test, 0x8000, GFP_KERNEL) };
	struct snaptrace_rproc_mem *mem, *m;
	bool iomem = true;
	int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, h.va);
	mem = cv_entry(test, &h, SHARED_DA, 0x8000, "shared");
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), 0);
	st_rproc_need_fw(test, rproc, API_FW);
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
	struct snaptrace_rproc *rproc = st_rproc_new(test, 132, "default");
	struct cv_hooks h = { .va = kunit_kzalloc(test, 0x8000, GFP_KERNEL) };
	struct snaptrace_rproc_mem *mem;

	KUNIT_ASSERT_NOT_NULL(test, h.va);
	/* The firmware wants "shared" at SHARED_DA: ours starts 4 KiB above. */
	mem = cv_entry(test, &h, SHARED_DA + 0x1000, 0x8000, "shared");
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_add_carveout(rproc, mem), 0);
	st_rproc_need_fw(test, rproc, API_FW);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -ENOMEM);
	st_rproc_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, h.allocs, 1);
	KUNIT_EXPECT_EQ(test, h.releases, 1);

	h.fail = -ENOSPC;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -ENOMEM);
	st_rproc_expect_offline_empty(test, rproc);
	KUNIT_EXPECT_EQ(test, h.allocs, 2);
	KUNIT_EXPECT_EQ(test, h.releases, 1);	/* its alloc failed: no release */
}

static struct kunit_case snaptrace_rproc_mem_cases[] = {
	KUNIT_CASE(da_to_va_bounds),
	KUNIT_CASE_PARAM(check_carveout_da_cases, cv_gen_params),
	KUNIT_CASE(add_carveout_errors),
	KUNIT_CASE(registered_carveout_used_by_boot),
	KUNIT_CASE(registered_carveout_mismatch_fails_boot),
	{}
};

static struct kunit_suite snaptrace_rproc_mem_suite = {
	.name = "snaptrace_rproc_mem",
	.test_cases = snaptrace_rproc_mem_cases,
};

kunit_test_suites(&snaptrace_rproc_mem_suite);
