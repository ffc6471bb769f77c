// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the simulated platform (src/rproc_sim.c): its memory
 * layouts (presets, explicit regions, bad ones refused), and images
 * without a resource table, which boot where the layout's upstream driver
 * lets them and are refused elsewhere.
 */
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/string.h>
#include <kunit/test.h>

#include <snaptrace/rproc.h>
#include "../src/rproc.h"
#include "st_kunit.h"

/* Layouts: presets, explicit regions, and bad ones refused. */
static void layouts(struct kunit *test)
{
	static const char * const bad[] = {
		"", "sram", "sram:0x0", "sram:0x0:0", "sram:x:0x1000",
		"a:0x0:0x1000+b:0x800:0x1000", "top:0xfffff000:0x2000",
	};
	struct snaptrace_rproc_mem *m;
	struct snaptrace_rproc *rproc;
	int i;

	/* The regions are the platform's registered memory, in order. */
	rproc = snaptrace_rproc_create(104, "stm32mp157");
	KUNIT_ASSERT_FALSE(test, IS_ERR(rproc));
	KUNIT_EXPECT_EQ(test, list_count_nodes(&rproc->carveouts), 2);
	m = list_last_entry(&rproc->carveouts, struct snaptrace_rproc_mem, reg_node);
	KUNIT_EXPECT_STREQ(test, m->name, "mcusram");
	KUNIT_EXPECT_EQ(test, m->da, 0x10000000);
	KUNIT_EXPECT_STREQ(test, m->kind, "region");
	KUNIT_EXPECT_TRUE(test, m->registered);
	snaptrace_rproc_destroy(rproc);

	rproc = snaptrace_rproc_create(104, "a:0x0:0x1000+b:0x1000:0x2000");
	KUNIT_ASSERT_FALSE(test, IS_ERR(rproc));
	KUNIT_EXPECT_EQ(test, list_count_nodes(&rproc->carveouts), 2);
	m = list_last_entry(&rproc->carveouts, struct snaptrace_rproc_mem, reg_node);
	KUNIT_EXPECT_EQ(test, m->len, 0x2000);
	snaptrace_rproc_destroy(rproc);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(snaptrace_rproc_create(104, bad[i])),
				    -EINVAL, "layout \"%s\"", bad[i]);
}

/*
 * An image without a resource table, by layout: it boots where the
 * layout's upstream driver lets it (stm32_rproc_parse_fw(),
 * zynqmp_r5_parse_fw()), with no resources, and crashes and stops as any;
 * elsewhere it is refused with -ENOENT and leaves nothing. A table that is
 * there but smaller than its header is refused everywhere.
 */
struct no_table_case {
	const char *layout;
	u32 da;		/* where its one segment goes, in the layout */
	bool bad_table;	/* a .resource_table of 8 bytes */
	int ret;
};

static const struct no_table_case no_table_cases[] = {
	{ "stm32mp157", 0x10000000, false, 0 },
	{ "zynqmp-r5", 0x0, false, 0 },
	{ "default", 0x10000000, false, -ENOENT },
	{ "ram:0x0:0x1000", 0x0, false, -ENOENT },
	{ "stm32mp157", 0x10000000, true, -EINVAL },
	{ "zynqmp-r5", 0x0, true, -EINVAL },
};

static void no_table_case_desc(const struct no_table_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%s: %d", c->layout,
		 c->bad_table ? ", 8-byte table" : "", c->ret);
}

KUNIT_ARRAY_PARAM(no_table, no_table_cases, no_table_case_desc);

/*
 * The ELF32 image: header, one program header, 32 bytes of segment at
 * 0x60, the section names at 0x80, then NULL, .text, .shstrtab and, for
 * a bad table, .resource_table (the segment's first 8 bytes).
 */
#define NT_SEG_OFF	0x60
#define NT_SEG_SZ	32
#define NT_STR_OFF	0x80
#define NT_SH_OFF	0xc0
#define NT_SIZE		(NT_SH_OFF + 4 * sizeof(struct elf32_shdr))

static const char nt_names[] = "\0.text\0.shstrtab\0.resource_table";

static u8 *no_table_image(struct kunit *test, const struct no_table_case *c)
{
	u8 *img = kunit_kzalloc(test, NT_SIZE, GFP_KERNEL);
	struct elf32_hdr *eh = (void *)img;
	struct elf32_phdr *ph = (void *)(img + sizeof(*eh));
	struct elf32_shdr *sh = (void *)(img + NT_SH_OFF);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, img);
	st_elf32_hdr_init(eh, NT_SH_OFF, c->bad_table ? 4 : 3);
	eh->e_entry = c->da;

	ph->p_type = PT_LOAD;
	ph->p_offset = NT_SEG_OFF;
	ph->p_vaddr = c->da;
	ph->p_paddr = c->da;
	ph->p_filesz = NT_SEG_SZ;
	ph->p_memsz = NT_SEG_SZ;
	for (i = 0; i < NT_SEG_SZ; i++)
		img[NT_SEG_OFF + i] = 0xa0 + i;
	memcpy(img + NT_STR_OFF, nt_names, sizeof(nt_names));

	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_addr = c->da;
	sh[1].sh_offset = NT_SEG_OFF;
	sh[1].sh_size = NT_SEG_SZ;
	sh[2].sh_name = 7;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = NT_STR_OFF;
	sh[2].sh_size = sizeof(nt_names);
	sh[3].sh_name = 17;
	sh[3].sh_type = SHT_PROGBITS;
	sh[3].sh_offset = NT_SEG_OFF;
	sh[3].sh_size = 8;
	return img;
}

static void boot_without_resource_table(struct kunit *test)
{
	const struct no_table_case *c = test->param_value;
	struct snaptrace_rproc *rproc = snaptrace_rproc_create(114, c->layout);
	const u8 *img = no_table_image(test, c);
	const u8 *va;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(rproc), "create: %pe", rproc);
	WRITE_ONCE(rproc->recovery, false);
	/* Named in the warning; the image itself is given in memory. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_set_firmware(rproc, "snaptrace/no-table.elf"), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot_image(rproc, img, NT_SIZE), c->ret);
	if (c->ret) {
		st_rproc_expect_nothing_held(test, rproc);
		KUNIT_EXPECT_EQ(test, rproc->power, 0);
		KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), -EINVAL);
		snaptrace_rproc_destroy(rproc);
		return;
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_RUNNING);
	KUNIT_EXPECT_EQ(test, rproc->power, 1);
	KUNIT_EXPECT_NULL(test, rproc->table);
	KUNIT_EXPECT_EQ(test, rproc->table_sz, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->traces));
	KUNIT_EXPECT_EQ(test, rproc->num_traces, 0);
	KUNIT_EXPECT_EQ(test, rproc->nr_mems, 0);
	KUNIT_EXPECT_EQ(test, rproc->vdevs, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&rproc->vdev_list));
	/* The segment was loaded all the same. */
	va = snaptrace_rproc_da_to_va(rproc, c->da, NT_SEG_SZ, NULL);
	KUNIT_ASSERT_NOT_NULL(test, va);
	KUNIT_EXPECT_EQ(test, memcmp(va, img + NT_SEG_OFF, NT_SEG_SZ), 0);

	msleep(60);	/* a tick or more of the core, with no trace to write */
	snaptrace_rproc_report_crash(rproc, SNAPTRACE_RPROC_WATCHDOG);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_CRASHED);
	KUNIT_EXPECT_EQ(test, rproc->crash_cnt, 1);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), 0);
	st_rproc_expect_nothing_held(test, rproc);
	KUNIT_EXPECT_EQ(test, rproc->power, 0);
	/* And it boots again from scratch. */
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_boot_image(rproc, img, NT_SIZE), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rproc->state), SNAPTRACE_RPROC_RUNNING);
	KUNIT_EXPECT_EQ(test, snaptrace_rproc_stop(rproc), 0);
	st_rproc_expect_nothing_held(test, rproc);
	snaptrace_rproc_destroy(rproc);
}

static struct kunit_case snaptrace_rproc_sim_cases[] = {
	KUNIT_CASE(layouts),
	KUNIT_CASE_PARAM(boot_without_resource_table, no_table_gen_params),
	{}
};

static struct kunit_suite snaptrace_rproc_sim_suite = {
	.name = "snaptrace_rproc_sim",
	.test_cases = snaptrace_rproc_sim_cases,
};

kunit_test_suites(&snaptrace_rproc_sim_suite);
