// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for remotes that boot on their own (src/rproc_attach.c, the attach
 * path that rproc_ivshmem.c drives): a fake shared memory stands for the
 * ivshmem BAR, an ELF32 image built here for the firmware, and the test
 * plays the remote: it "loads itself" by copying the table into the fake
 * memory and bumps (or not) the heartbeat the watchdog samples.
 *
 * Everything the remote wrote is untrusted: each class of bad table, entry
 * or image location must be refused with -EINVAL, leaving the remote
 * offline and holding nothing, and a good image attaching afterwards.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <kunit/test.h>

#include <snaptrace/rsc_table.h>
#include <snaptrace/snaptrace.h>
#include "../src/rproc.h"
#include "../src/rproc_attach.h"
#include "../src/trace_keeper.h"
#include "st_kunit.h"

/* The fake shared memory, as the remote sees it. */
#define MEM_DA		0x40000000U
#define MEM_LEN		0x10000U
/* Where the remote loaded its table, the carveout and the trace. */
#define SEG_DA		0x40001000U
#define CO_DA		0x40000000U
#define CO_LEN		0x8000U
#define TR_DA		0x40004000U
#define TR_LEN		0x400U
/* The heartbeat word, at this offset in the fake memory. */
#define HB_OFF		0x3000U

/* Polls of a state: 20 ms apart, a bound far above what it needs. */
#define POLLS		500

/* The resource table: a carveout and a trace, upstream's layout. */
struct att_table {
	u32 ver, num, reserved[2];
	u32 offset[2];
	u32 c_type;
	struct snaptrace_fw_rsc_carveout c;
	u32 t_type;
	struct snaptrace_fw_rsc_trace t;
} __packed;

/* The ELF32 image: header, one program header, three sections, table. */
#define IMG_PHOFF	sizeof(struct elf32_hdr)
#define IMG_SHOFF	(IMG_PHOFF + sizeof(struct elf32_phdr))
#define IMG_STROFF	(IMG_SHOFF + 3 * sizeof(struct elf32_shdr))
#define IMG_TBLOFF	0x100
#define IMG_SIZE	(IMG_TBLOFF + sizeof(struct att_table))

static const char att_strtab[] = "\0.resource_table\0.shstrtab";

struct att {
	struct kunit *test;
	struct snaptrace_rproc *rproc;
	u8 *mem;
	u8 img[IMG_SIZE];
	struct att_table tbl;
	u32 sh_da;		/* sh_addr of .resource_table */
	u32 seg_da;		/* p_paddr of the segment holding it */
	u32 seg_type;		/* its p_type */
	bool no_load;		/* the remote did not load the table (at SEG_DA) */
	bool alive;		/* the remote runs: each sample sees a new beat */
	bool in_hardirq;	/* the watchdog sampled from hardirq */
	bool outside_hardirq;	/* ... or from anywhere else */
	atomic_t samples;
};

static u32 att_heartbeat(void *priv)
{
	struct att *a = priv;

	if (in_hardirq())
		WRITE_ONCE(a->in_hardirq, true);
	else
		WRITE_ONCE(a->outside_hardirq, true);
	atomic_inc(&a->samples);
	if (READ_ONCE(a->alive))
		WRITE_ONCE(*(u32 *)(a->mem + HB_OFF),
			   READ_ONCE(*(u32 *)(a->mem + HB_OFF)) + 1);
	return READ_ONCE(*(u32 *)(a->mem + HB_OFF));
}

static const struct snaptrace_rproc_attach_ops att_ops = {
	.heartbeat = att_heartbeat,
};

static void att_good_table(struct att *a)
{
	struct att_table *t = &a->tbl;

	memset(t, 0, sizeof(*t));
	t->ver = 1;
	t->num = 2;
	t->offset[0] = offsetof(struct att_table, c_type);
	t->offset[1] = offsetof(struct att_table, t_type);
	t->c_type = SNAPTRACE_RSC_CARVEOUT;
	t->c.da = CO_DA;
	t->c.pa = CO_DA;
	t->c.len = CO_LEN;
	memcpy(t->c.name, "fw", 2);
	t->t_type = SNAPTRACE_RSC_TRACE;
	t->t.da = TR_DA;
	t->t.len = TR_LEN;
	memcpy(t->t.name, "log", 3);
	a->sh_da = SEG_DA;
	a->seg_da = SEG_DA;
	a->seg_type = PT_LOAD;
	a->no_load = false;
}

/* Build the image from a->tbl and have the remote load its table. */
static void att_build(struct att *a)
{
	struct elf32_hdr *eh = (void *)a->img;
	struct elf32_phdr *ph = (void *)(a->img + IMG_PHOFF);
	struct elf32_shdr *sh = (void *)(a->img + IMG_SHOFF);

	memset(a->img, 0, sizeof(a->img));
	st_elf32_hdr_init(eh, IMG_SHOFF, 3);

	ph->p_type = a->seg_type;
	ph->p_offset = IMG_TBLOFF;
	ph->p_vaddr = a->seg_da;
	ph->p_paddr = a->seg_da;
	ph->p_filesz = sizeof(a->tbl);
	ph->p_memsz = sizeof(a->tbl);

	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_addr = a->sh_da;
	sh[1].sh_offset = IMG_TBLOFF;
	sh[1].sh_size = sizeof(a->tbl);
	sh[2].sh_name = 17;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = IMG_STROFF;
	sh[2].sh_size = sizeof(att_strtab);
	memcpy(a->img + IMG_STROFF, att_strtab, sizeof(att_strtab));
	memcpy(a->img + IMG_TBLOFF, &a->tbl, sizeof(a->tbl));

	memset(a->mem + (SEG_DA - MEM_DA), 0, sizeof(a->tbl));
	if (!a->no_load)
		memcpy(a->mem + (SEG_DA - MEM_DA), &a->tbl, sizeof(a->tbl));
}

static struct att *att_new(struct kunit *test, bool is_iomem,
			   unsigned int watchdog_ms)
{
	struct snaptrace_rproc_mem shared = { .da = MEM_DA, .len = MEM_LEN };
	struct att *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->test = test;
	a->mem = kunit_kzalloc(test, MEM_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a->mem);
	strscpy(shared.name, "fake", sizeof(shared.name));
	/* x86 reads I/O memory with plain loads: RAM stands in for a BAR. */
	if (is_iomem)
		shared.io = (void __iomem __force *)a->mem;
	else
		shared.va = a->mem;
	shared.is_iomem = is_iomem;
	a->rproc = st_rproc_attached_new(test, 7, "attach-test", &shared,
					 &att_ops, a, watchdog_ms);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_set_firmware(a->rproc, "fake.elf"), 0);
	att_good_table(a);
	att_build(a);
	return a;
}

static int att_attach(struct att *a)
{
	return snaptrace_rproc_attach_image(a->rproc, a->img, sizeof(a->img));
}

static void expect_offline_holding_nothing(struct kunit *test,
					   struct snaptrace_rproc *rproc)
{
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_OFFLINE);
	KUNIT_EXPECT_NULL(test, rproc->table);
	KUNIT_EXPECT_EQ(test, rproc->table_sz, 0);
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 0);
	KUNIT_EXPECT_EQ(test, rproc->nr_mems, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->mems));
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->traces));
}

static bool wait_state(struct snaptrace_rproc *rproc, int state)
{
	int i;

	for (i = 0; i < POLLS && READ_ONCE(rproc->state) != state; i++)
		msleep(20);
	return READ_ONCE(rproc->state) == state;
}

static void att_case_desc(const bool *p, char *desc)
{
	strscpy(desc, *p ? "I/O memory" : "normal memory", KUNIT_PARAM_DESC_SIZE);
}

static const bool att_iomem[] = { false, true };
KUNIT_ARRAY_PARAM(att_iomem, att_iomem, att_case_desc);

/* A good image: the loaded table found, resources as views, nothing loaded. */
static void attach_good(struct kunit *test)
{
	struct att *a = att_new(test, *(const bool *)test->param_value, 60000);
	struct snaptrace_rproc *rproc = a->rproc;
	bool iomem = *(const bool *)test->param_value;
	struct snaptrace_rproc_trace *t;
	struct snaptrace_rproc_mem *m;
	bool is_iomem = !iomem;
	void *live = NULL;
	u32 live_len = 0;
	char buf[8];
	int carveouts = 0;

	/* Code the image has but the remote did not load stays unloaded. */
	a->mem[0x7000] = 0xa5;
	KUNIT_ASSERT_EQ(test, att_attach(a), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_ATTACHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_attached(rproc)->table_da, SEG_DA);
	KUNIT_ASSERT_NOT_NULL(test, rproc->table);
	KUNIT_EXPECT_EQ(test, rproc->table_sz, sizeof(a->tbl));
	KUNIT_EXPECT_EQ(test, memcmp(rproc->table, &a->tbl, sizeof(a->tbl)), 0);
	KUNIT_EXPECT_EQ(test, a->mem[0x7000], 0xa5);

	KUNIT_ASSERT_EQ(test, rproc->num_traces, 1);
	t = list_first_entry(&rproc->traces, struct snaptrace_rproc_trace, node);
	KUNIT_EXPECT_EQ(test, t->da, TR_DA);
	KUNIT_EXPECT_EQ(test, t->len, TR_LEN);
	/* I/O memory has no plain address: it is read with read_da(). */
	KUNIT_EXPECT_PTR_EQ(test, snaptrace_rproc_da_to_va(rproc, TR_DA, TR_LEN, &is_iomem),
			    iomem ? NULL : (void *)(a->mem + (TR_DA - MEM_DA)));
	KUNIT_EXPECT_EQ(test, is_iomem, iomem);
	memcpy(a->mem + (TR_DA - MEM_DA) + TR_LEN - sizeof(buf), "abcdefg", sizeof(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_read_da(rproc, TR_DA + TR_LEN - sizeof(buf), buf,
						      sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "abcdefg");
	/* traceN shows the live trace from either kind of memory. */
	KUNIT_ASSERT_EQ(test, t->keeper->ops->read_live(t->keeper, &live, &live_len), 0);
	KUNIT_ASSERT_NOT_NULL(test, live);
	KUNIT_EXPECT_EQ(test, live_len, TR_LEN);
	KUNIT_EXPECT_MEMEQ(test, live + TR_LEN - sizeof(buf), "abcdefg", sizeof(buf));
	kvfree(live);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_read_da(rproc, MEM_DA + MEM_LEN - 4, buf,
						      sizeof(buf)), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_read_da(rproc, TR_DA, buf, 0), -EINVAL);

	list_for_each_entry(m, &rproc->mems, node) {
		if (strcmp(m->kind, "carveout"))
			continue;
		carveouts++;
		/* A view: freed at stop, its memory (kunit's) not vfree()d. */
		KUNIT_EXPECT_FALSE(test, m->registered);
		KUNIT_EXPECT_EQ(test, m->is_iomem, iomem);
		if (iomem) {
			KUNIT_EXPECT_NULL(test, m->va);
			KUNIT_EXPECT_PTR_EQ(test, (void __force *)m->io,
					    (void *)(a->mem + (CO_DA - MEM_DA)));
		} else {
			KUNIT_EXPECT_NULL(test, (void __force *)m->io);
			KUNIT_EXPECT_PTR_EQ(test, m->va, (void *)(a->mem + (CO_DA - MEM_DA)));
		}
	}
	KUNIT_EXPECT_EQ(test, carveouts, 1);

	KUNIT_EXPECT_EQ(test, att_attach(a), -EBUSY);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), 0);
	expect_offline_holding_nothing(test, rproc);
	/* Detaching gives back nothing of the remote's own memory. */
	KUNIT_EXPECT_EQ(test, a->mem[0x7000], 0xa5);
	KUNIT_EXPECT_EQ(test, memcmp(a->mem + (SEG_DA - MEM_DA), &a->tbl, sizeof(a->tbl)), 0);
	KUNIT_EXPECT_EQ(test, att_attach(a), 0);
}

struct bad_case {
	const char *desc;
	void (*mutate)(struct att *a);
	bool corrupt_loaded;	/* the remote changed its table after loading */
};

static void trace_at_end(struct att *a)
{
	a->tbl.t.da = MEM_DA + MEM_LEN;
}

static void trace_past_end(struct att *a)
{
	a->tbl.t.da = MEM_DA + MEM_LEN - 0x100;
	a->tbl.t.len = 0x200;
}

static void trace_wraps(struct att *a)
{
	a->tbl.t.da = 0xffffff00;
	a->tbl.t.len = 0x200;
}

static void trace_below(struct att *a)
{
	a->tbl.t.da = MEM_DA - 0x200;
	a->tbl.t.len = 0x400;
}

static void trace_len_zero(struct att *a)
{
	a->tbl.t.len = 0;
}

static void trace_len_huge(struct att *a)
{
	a->tbl.t.len = 0xffffffff;
}

static void carveout_outside(struct att *a)
{
	a->tbl.c.da = 0x10000000;
}

static void carveout_too_long(struct att *a)
{
	a->tbl.c.len = MEM_LEN + 0x1000;
}

static void carveout_any(struct att *a)
{
	a->tbl.c.da = (u32)SNAPTRACE_FW_RSC_ADDR_ANY;
}

static void entry_past_table(struct att *a)
{
	a->tbl.offset[1] = 0x1000;
}

static void too_many_entries(struct att *a)
{
	a->tbl.num = 0x10000000;
}

static void not_loaded(struct att *a)
{
	a->no_load = true;
}

static void section_outside(struct att *a)
{
	a->sh_da = 0x10000000;
}

static void section_at_top(struct att *a)
{
	a->sh_da = 0xffffff80;
}

static void section_elsewhere(struct att *a)
{
	a->sh_da = SEG_DA + 0x100;
}

static void no_change(struct att *a)
{
}

static const struct bad_case bad_cases[] = {
	{ "trace starting at the end of shared memory", trace_at_end },
	{ "trace running past the end of shared memory", trace_past_end },
	{ "trace whose da + len wraps 32 bits", trace_wraps },
	{ "trace starting below shared memory", trace_below },
	{ "trace of length 0", trace_len_zero },
	{ "trace of length 0xffffffff", trace_len_huge },
	{ "carveout outside shared memory", carveout_outside },
	{ "carveout longer than shared memory", carveout_too_long },
	{ "carveout at FW_RSC_ADDR_ANY (a running remote has placed it)", carveout_any },
	{ "entry offset past the end of the table", entry_past_table },
	{ "more entries than the table holds", too_many_entries },
	{ "table not loaded: the remote's memory holds zeros", not_loaded },
	{ "loaded table differs from the image's", no_change, true },
	{ "table's sh_addr outside shared memory", section_outside },
	{ "table's sh_addr at the top of 32 bits", section_at_top },
	{ "table's sh_addr not where the remote loaded it", section_elsewhere },
};

static void bad_case_desc(const struct bad_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad, bad_cases, bad_case_desc);

/* Untrusted shared memory: each class refused, nothing held, state kept. */
static void attach_refuses(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct att *a = att_new(test, true, 60000);

	c->mutate(a);
	att_build(a);
	if (c->corrupt_loaded)	/* the remote wrote its trace length */
		a->mem[SEG_DA - MEM_DA + offsetof(struct att_table, t.len)] ^= 0x10;
	KUNIT_EXPECT_EQ(test, att_attach(a), -EINVAL);
	expect_offline_holding_nothing(test, a->rproc);

	/* Fixed, the same remote attaches: nothing was left half done. */
	att_good_table(a);
	att_build(a);
	KUNIT_EXPECT_EQ(test, att_attach(a), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(a->rproc->state), SNAPTRACE_RPROC_ATTACHED);
}

/*
 * The loaded table is looked for at the section's sh_addr, as upstream's
 * rproc_elf_find_loaded_rsc_table(), whatever the segments say (their
 * p_paddr is a load address, which may differ from where it runs).
 */
static void attach_at_section_address(struct kunit *test)
{
	struct att *a = att_new(test, false, 60000);

	a->seg_da = 0x10000000;
	a->seg_type = PT_NOTE;
	att_build(a);
	KUNIT_ASSERT_EQ(test, att_attach(a), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_attached(a->rproc)->table_da, SEG_DA);
}

static void attach_contract(struct kunit *test)
{
	struct snaptrace_rproc_mem shared = { .da = MEM_DA, .len = MEM_LEN };
	struct snaptrace_rproc_attach_ops no_hb = { };
	struct snaptrace_rproc *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	struct snaptrace_rproc *r;
	u8 img[4] = { };

	KUNIT_ASSERT_NOT_NULL(test, sim);
	/* A simulated remote is booted, not attached to. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_attach_image(sim, img, sizeof(img)), -ENODEV);

	shared.va = img;
	r = snaptrace_rproc_create_attached(7, "t", NULL, &shared, &no_hb, NULL, 100);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(r), -EINVAL);
	r = snaptrace_rproc_create_attached(7, "t", NULL, &shared, &att_ops, NULL, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(r), -EINVAL);
	/* Below the floor: sampled every few ms, a busy host looks hung. */
	r = snaptrace_rproc_create_attached(7, "t", NULL, &shared, &att_ops, NULL,
					    SNAPTRACE_RPROC_WATCHDOG_MIN_MS - 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(r), -EINVAL);
	r = snaptrace_rproc_create_attached(7, "t", NULL, &shared, &att_ops, NULL, 600001);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(r), -EINVAL);
	/* I/O memory without its mapping. */
	shared.is_iomem = true;
	r = snaptrace_rproc_create_attached(7, "t", NULL, &shared, &att_ops, NULL, 100);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(r), -EINVAL);
	shared.is_iomem = false;
	shared.len = 0;
	r = snaptrace_rproc_create_attached(7, "t", NULL, &shared, &att_ops, NULL, 100);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(r), -EINVAL);
	shared.da = 0xfffff000;
	shared.len = 0x2000;
	r = snaptrace_rproc_create_attached(7, "t", NULL, &shared, &att_ops, NULL, 100);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(r), -EINVAL);
}

/* What the remote logged, and what traceN_last must hold after a crash. */
static const char att_log1[] = "[00000000] 1.000000 log: one\n[00000001] 1.200000 log: two\n";
static const char att_log2[] = "[00000000] 0.100000 log: after the restart\n";

static void expect_last(struct kunit *test, struct snaptrace_rproc *rproc,
			const char *want)
{
	struct snaptrace_rproc_trace *t;
	char *buf = kunit_kzalloc(test, TR_LEN, GFP_KERNEL);
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	t = list_first_entry(&rproc->traces, struct snaptrace_rproc_trace, node);
	n = snaptrace_keeper_read_last(t->keeper, buf, TR_LEN);
	KUNIT_EXPECT_EQ(test, n, (ssize_t)min_t(size_t, t->len, TR_LEN));
	KUNIT_EXPECT_STREQ(test, buf, want);
}

/*
 * The watchdog: a stuck heartbeat is a crash reported from the hrtimer
 * (hardirq), which captures the trace; while stuck it stays crashed; once
 * the heartbeat moves it is attached again, or on "recover" when recovery
 * is disabled; a changed table blocks recovery.
 */
static void watchdog_crash_and_recovery(struct kunit *test)
{
	struct att *a = att_new(test, true, 100);
	struct snaptrace_rproc *rproc = a->rproc;
	u8 *trace = a->mem + (TR_DA - MEM_DA);
	u8 *tlen = a->mem + SEG_DA - MEM_DA + offsetof(struct att_table, t.len);

	int i;

	memcpy(trace, att_log1, sizeof(att_log1));
	KUNIT_ASSERT_EQ(test, att_attach(a), 0);

	/* Hung from the start: the heartbeat never moves. */
	KUNIT_ASSERT_TRUE(test, wait_state(rproc, SNAPTRACE_RPROC_CRASHED));
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->crash_type), SNAPTRACE_RPROC_WATCHDOG);
	KUNIT_EXPECT_GT(test, atomic_read(&a->samples), 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(a->in_hardirq));
	KUNIT_EXPECT_FALSE(test, READ_ONCE(a->outside_hardirq));
	expect_last(test, rproc, att_log1);

	/* Stuck: recovery (enabled) waits for the heartbeat; "recover" too. */
	msleep(300);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_recover(rproc), -EAGAIN);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);

	/* Restarted by its platform: logs anew, the heartbeat moves. */
	memcpy(trace, att_log2, sizeof(att_log2));
	WRITE_ONCE(a->alive, true);
	KUNIT_ASSERT_TRUE(test, wait_state(rproc, SNAPTRACE_RPROC_ATTACHED));
	expect_last(test, rproc, att_log1);

	/* Recovery disabled: hung again, then back only on "recover". */
	WRITE_ONCE(rproc->recovery, false);
	WRITE_ONCE(a->alive, false);
	KUNIT_ASSERT_TRUE(test, wait_state(rproc, SNAPTRACE_RPROC_CRASHED));
	expect_last(test, rproc, att_log2);
	WRITE_ONCE(a->alive, true);
	for (i = 0; i < POLLS && !READ_ONCE(snaptrace_rproc_attached(rproc)->resumed); i++)
		msleep(20);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(snaptrace_rproc_attached(rproc)->resumed));
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);

	/* The remote now has another table loaded: no recovery. */
	*tlen ^= 0x10;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_recover(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);
	*tlen ^= 0x10;
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_recover(rproc), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_ATTACHED);

	KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), 0);
	expect_offline_holding_nothing(test, rproc);
}

/* A sub-device of an attached remote: it logs its hooks. */
struct att_subdev {
	struct snaptrace_rproc_subdev subdev;
	char log[128];
};

static void att_log(struct snaptrace_rproc_subdev *subdev, const char *hook)
{
	struct att_subdev *sd = container_of(subdev, struct att_subdev, subdev);
	size_t len = strlen(sd->log);

	snprintf(sd->log + len, sizeof(sd->log) - len, "%s%s", len ? " " : "", hook);
}

static int att_sd_prepare(struct snaptrace_rproc_subdev *subdev)
{
	att_log(subdev, "prepare");
	return 0;
}

static int att_sd_start(struct snaptrace_rproc_subdev *subdev)
{
	att_log(subdev, "start");
	return 0;
}

static void att_sd_stop(struct snaptrace_rproc_subdev *subdev, bool crashed)
{
	att_log(subdev, crashed ? "stop(crashed)" : "stop");
}

static void att_sd_unprepare(struct snaptrace_rproc_subdev *subdev)
{
	att_log(subdev, "unprepare");
}

/*
 * The lifecycle API on a remote that boots on its own: its shared memory
 * is its registered carveout; boot() references; detach() stops watching
 * and gives up the sub-devices but keeps the resources; boot() attaches
 * again if the same table is loaded, else lets go (offline); shutdown()
 * lets go without touching the remote's memory.
 */
static void attach_lifecycle(struct kunit *test)
{
	struct att *a = att_new(test, false, 60000);
	struct snaptrace_rproc *rproc = a->rproc;
	struct att_subdev *sd = kunit_kzalloc(test, sizeof(*sd), GFP_KERNEL);
	u8 *tlen = a->mem + SEG_DA - MEM_DA + offsetof(struct att_table, t.len);
	struct snaptrace_rproc_mem *shared;

	KUNIT_ASSERT_NOT_NULL(test, sd);
	sd->subdev.name = "sd";
	sd->subdev.prepare = att_sd_prepare;
	sd->subdev.start = att_sd_start;
	sd->subdev.stop = att_sd_stop;
	sd->subdev.unprepare = att_sd_unprepare;
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_add_subdev(rproc, &sd->subdev), 0);

	KUNIT_ASSERT_FALSE(test, list_empty(&rproc->carveouts));
	shared = list_first_entry(&rproc->carveouts, struct snaptrace_rproc_mem,
				  reg_node);
	KUNIT_EXPECT_STREQ(test, shared->name, "fake");
	KUNIT_EXPECT_TRUE(test, shared->registered);
	KUNIT_EXPECT_PTR_EQ(test, shared->va, (void *)a->mem);

	KUNIT_ASSERT_EQ(test, att_attach(a), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_ATTACHED);
	KUNIT_EXPECT_STREQ(test, sd->log, "prepare start");
	KUNIT_EXPECT_TRUE(test, hrtimer_active(&snaptrace_rproc_attached(rproc)->watchdog));

	/* A second boot() only takes a reference; a shutdown() drops it. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_ATTACHED);
	KUNIT_EXPECT_STREQ(test, sd->log, "prepare start");

	/* detach(): unwatched, sub-device stopped, resources kept. */
	sd->log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_DETACHED);
	KUNIT_EXPECT_STREQ(test, sd->log, "stop unprepare");
	KUNIT_EXPECT_FALSE(test, hrtimer_active(&snaptrace_rproc_attached(rproc)->watchdog));
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 1);
	KUNIT_EXPECT_NOT_NULL(test, rproc->table);
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_FATAL_ERROR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_DETACHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "x.elf"), -EBUSY);
	KUNIT_EXPECT_EQ(test, att_attach(a), -EBUSY);

	/* boot() attaches again: the same table is loaded. */
	sd->log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_ATTACHED);
	KUNIT_EXPECT_STREQ(test, sd->log, "prepare start");
	KUNIT_EXPECT_TRUE(test, hrtimer_active(&snaptrace_rproc_attached(rproc)->watchdog));

	/* Another table loaded while detached: boot() lets go, offline. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_detach(rproc), 0);
	*tlen ^= 0x10;
	sd->log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EINVAL);
	KUNIT_EXPECT_STREQ(test, sd->log, "");
	expect_offline_holding_nothing(test, rproc);
	KUNIT_EXPECT_FALSE(test, list_empty(&rproc->carveouts));
	*tlen ^= 0x10;

	/* shutdown(): unwatched, offline; the remote's memory untouched. */
	KUNIT_ASSERT_EQ(test, att_attach(a), 0);
	sd->log[0] = '\0';
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
	KUNIT_EXPECT_STREQ(test, sd->log, "stop unprepare");
	KUNIT_EXPECT_FALSE(test, hrtimer_active(&snaptrace_rproc_attached(rproc)->watchdog));
	expect_offline_holding_nothing(test, rproc);
	KUNIT_EXPECT_EQ(test, memcmp(a->mem + (SEG_DA - MEM_DA), &a->tbl, sizeof(a->tbl)), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_remove_subdev(rproc, &sd->subdev), 0);
}

/*
 * A resumed heartbeat is news about one crash only. Recovered by hand
 * (recovery disabled) and crashed again before the watchdog sampled the
 * running remote: the heartbeat seen moving after the first crash must not
 * let a remote that is stuck now be attached again. The watchdog is at its
 * longest, so it reports no crash by itself: the test reports them, and
 * stands for the sample that saw the heartbeat move.
 */
static void stale_resume_is_forgotten(struct kunit *test)
{
	struct att *a = att_new(test, true, SNAPTRACE_RPROC_WATCHDOG_MAX_MS);
	struct snaptrace_rproc *rproc = a->rproc;
	u8 *trace = a->mem + (TR_DA - MEM_DA);

	WRITE_ONCE(rproc->recovery, false);
	memcpy(trace, att_log1, sizeof(att_log1));
	KUNIT_ASSERT_EQ(test, att_attach(a), 0);
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_FATAL_ERROR);
	KUNIT_ASSERT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);
	/* Reported from a task: traceN_last waits for the queued capture. */
	expect_last(test, rproc, att_log1);

	/* Restarted: the watchdog saw its heartbeat move. */
	WRITE_ONCE(snaptrace_rproc_attached(rproc)->resumed, true);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_recover(rproc), 0);
	KUNIT_ASSERT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_ATTACHED);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(snaptrace_rproc_attached(rproc)->resumed));

	/* Crashed again at once, and stuck: nothing says it was restarted. */
	memcpy(trace, att_log2, sizeof(att_log2));
	WRITE_ONCE(snaptrace_rproc_attached(rproc)->resumed, true);	/* as if left over */
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_FATAL_ERROR);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(snaptrace_rproc_attached(rproc)->resumed));
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_recover(rproc), -EAGAIN);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);
	expect_last(test, rproc, att_log2);
}

/*
 * An ordered workqueue held back by its first work, which waits for @go:
 * a capture queued on it after that work stays pending until released (an
 * ordered workqueue runs one work at a time, in order: no timing). While
 * it is held, anything that waits for the capture (st_attach_capture_wait():
 * a traceN_last read, recovery) would wait for the release: the remotes of
 * these cases have no debugfs files and recovery off, so nothing does.
 */
struct att_hold {
	struct workqueue_struct *wq;
	struct work_struct blocker;
	struct completion go;
	struct snaptrace_rproc_attached *attached;	/* NULL once freed */
};

static void att_hold_block(struct work_struct *work)
{
	struct att_hold *h = container_of(work, struct att_hold, blocker);

	wait_for_completion(&h->go);
}

/* Give the remote the system workqueue back, then run what was held. */
static void att_hold_release(void *data)
{
	struct att_hold *h = data;

	if (h->attached)
		WRITE_ONCE(h->attached->capture_wq, NULL);
	complete(&h->go);
	destroy_workqueue(h->wq);	/* drains: a capture still queued runs */
}

static struct att_hold *att_hold_new(struct kunit *test,
				     struct snaptrace_rproc_attached *attached)
{
	struct att_hold *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->wq = alloc_ordered_workqueue("snaptrace-att-hold", 0);
	KUNIT_ASSERT_NOT_NULL(test, h->wq);
	init_completion(&h->go);
	INIT_WORK(&h->blocker, att_hold_block);
	h->attached = attached;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, att_hold_release, h), 0);
	queue_work(h->wq, &h->blocker);
	WRITE_ONCE(attached->capture_wq, h->wq);
	return h;
}

/* Nothing left queued: no capture to run on what was stopped or freed. */
static void expect_no_capture_queued(struct kunit *test,
				     struct snaptrace_rproc_attached *at)
{
	bool queued = work_pending(&at->capture_work);

	KUNIT_EXPECT_FALSE_MSG(test, queued, "the capture is still queued");
}

/* A sub-device during whose start the remote crashes, which fails it. */
struct att_crash_sd {
	struct snaptrace_rproc_subdev subdev;
	struct snaptrace_rproc *rproc;
	bool armed;
};

static int att_crash_sd_start(struct snaptrace_rproc_subdev *subdev)
{
	struct att_crash_sd *sd = container_of(subdev, struct att_crash_sd, subdev);

	if (!sd->armed)
		return 0;
	snaptrace_rproc_report_crash(sd->rproc, SNAPTRACE_RPROC_FATAL_ERROR);
	return -EIO;
}

enum att_end { END_SHUTDOWN, END_DETACHED, END_REMOVAL };

struct pending_case {
	const char *desc;
	enum att_end end;
};

static const struct pending_case pending_cases[] = {
	{ "shutdown of the crashed remote", END_SHUTDOWN },
	{ "attach failing after a crash: detached again", END_DETACHED },
	{ "removal of the crashed remote", END_REMOVAL },
};

static void pending_case_desc(const struct pending_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pending, pending_cases, pending_case_desc);

/*
 * A crash of an attached remote queues the capture of its traces; stopping
 * watching it (shutdown, an attach that fails: detached, removal) before
 * the capture ran cancels it: nothing is left queued to walk traces that
 * stop freed, or a remote that removal freed (KASAN would report the
 * capture running on freed memory when the queue is let go).
 */
static void capture_pending_is_cancelled(struct kunit *test)
{
	const struct pending_case *c = test->param_value;
	/* Before the remote: kunit frees it after destroying the remote. */
	struct att_crash_sd *sd = kunit_kzalloc(test, sizeof(*sd), GFP_KERNEL);
	struct att *a = att_new(test, true, SNAPTRACE_RPROC_WATCHDOG_MAX_MS);
	struct snaptrace_rproc *rproc = a->rproc;
	struct snaptrace_rproc_attached *at = snaptrace_rproc_attached(rproc);
	struct snaptrace_rproc_trace *t;
	struct att_hold *h;

	KUNIT_ASSERT_NOT_NULL(test, sd);
	sd->subdev.name = "crashing";
	sd->subdev.start = att_crash_sd_start;
	sd->rproc = rproc;
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_add_subdev(rproc, &sd->subdev), 0);
	WRITE_ONCE(rproc->recovery, false);	/* no recovery work queued */
	memcpy(a->mem + (TR_DA - MEM_DA), att_log1, sizeof(att_log1));
	KUNIT_ASSERT_EQ(test, att_attach(a), 0);
	h = att_hold_new(test, at);

	if (c->end == END_DETACHED) {
		/* Re-attached, it crashes and a sub-device fails: detached. */
		KUNIT_ASSERT_EQ(test, snaptrace_rproc_detach(rproc), 0);
		sd->armed = true;
		KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot(rproc), -EIO);
		KUNIT_EXPECT_EQ(test, rproc->crash_cnt, 1U);
		KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_DETACHED);
		expect_no_capture_queued(test, at);
		/* Its traces are kept, not captured: it was not watched. */
		KUNIT_ASSERT_EQ(test, rproc->num_traces, 1);
	} else {
		snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_FATAL_ERROR);
		KUNIT_ASSERT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);
		KUNIT_ASSERT_TRUE(test, work_pending(&at->capture_work));
	}
	if (c->end == END_SHUTDOWN) {
		KUNIT_EXPECT_EQ(test, snaptrace_rproc_shutdown(rproc), 0);
		expect_no_capture_queued(test, at);
		expect_offline_holding_nothing(test, rproc);
	} else if (c->end == END_REMOVAL) {
		h->attached = NULL;
		st_rproc_release(test, rproc);
	}

	/* Let the queue go: a capture left queued would run now. */
	kunit_release_action(test, att_hold_release, h);
	if (c->end == END_DETACHED) {
		t = list_first_entry(&rproc->traces, struct snaptrace_rproc_trace, node);
		KUNIT_EXPECT_FALSE(test, READ_ONCE(t->keeper->has_last));
	}
}

/*
 * The watchdog's timeout changes at once: from the longest (10 minutes) to
 * the shortest, a stuck heartbeat is a crash within the bound of
 * wait_state(). Out of range, or for a simulated remote, nothing changes.
 */
#define MIN_MS	SNAPTRACE_RPROC_WATCHDOG_MIN_MS
#define MAX_MS	SNAPTRACE_RPROC_WATCHDOG_MAX_MS

static void watchdog_set(struct kunit *test)
{
	struct att *a = att_new(test, true, MAX_MS);
	struct snaptrace_rproc *rproc = a->rproc;
	struct snaptrace_rproc *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sim);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_watchdog(sim, 1000), -ENODEV);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_watchdog(rproc, MIN_MS - 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_watchdog(rproc, MAX_MS + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_watchdog(rproc, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(snaptrace_rproc_attached(rproc)->timeout_ms), MAX_MS);

	/* Offline: only remembered. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_watchdog(rproc, 5000), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(snaptrace_rproc_attached(rproc)->timeout_ms), 5000);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_watchdog(rproc, MAX_MS), 0);

	/* Attached and stuck: no crash for minutes, until shortened. */
	KUNIT_ASSERT_EQ(test, att_attach(a), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_ATTACHED);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_watchdog(rproc, MIN_MS), 0);
	KUNIT_EXPECT_TRUE(test, wait_state(rproc, SNAPTRACE_RPROC_CRASHED));
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->crash_type), SNAPTRACE_RPROC_WATCHDOG);
}

static struct kunit_case snaptrace_attach_cases[] = {
	KUNIT_CASE_PARAM(attach_good, att_iomem_gen_params),
	KUNIT_CASE_PARAM(attach_refuses, bad_gen_params),
	KUNIT_CASE(attach_at_section_address),
	KUNIT_CASE(attach_contract),
	KUNIT_CASE(attach_lifecycle),
	KUNIT_CASE_SLOW(watchdog_crash_and_recovery),
	KUNIT_CASE(stale_resume_is_forgotten),
	KUNIT_CASE_PARAM(capture_pending_is_cancelled, pending_gen_params),
	KUNIT_CASE_SLOW(watchdog_set),
	{}
};

static struct kunit_suite snaptrace_attach_suite = {
	.name = "snaptrace_attach",
	.test_cases = snaptrace_attach_cases,
};

kunit_test_suites(&snaptrace_attach_suite);
