// SPDX-License-Identifier: GPL-2.0
/*
 * Example remote processor firmware for snaptrace: no code worth running
 * (the simulated core writes the log), but a real ELF image with the
 * resource table a remoteproc host parses: a carveout the host places, a
 * fixed carveout, a devmem and two trace buffers. Built as ELF64 with the
 * host's gcc and as ELF32 ARM with arm-none-eabi-gcc; fw.ld places the
 * sections at the device addresses of snaptrace's "default" layout (SRAM at
 * 0x10000000, 256 KiB).
 */
/*
 * Freestanding: fw/include holds the entry layouts (fw_table.h) and the
 * few kernel header definitions (attributes, types) they need.
 */
#include <fw_table.h>

/* Where fw.ld puts the trace buffers, and their sizes. */
#define TRACE0_DA	0x10030000u
#define TRACE0_LEN	0x800u
#define TRACE1_DA	0x10031000u
#define TRACE1_LEN	0x400u

/* struct snaptrace_rsc_table, with its offsets spelled out (fw_table.h). */
struct table {
	u32 ver, num, reserved[2];
	u32 offset[5];
	struct fw_carveout heap;
	struct fw_carveout shared;
	struct fw_devmem regs;
	struct fw_trace log;
	struct fw_trace stats;
} __packed __aligned(4);

__section(".resource_table") __used
const struct table resource_table = {
	.ver = 1,
	.num = 5,
	.offset = {
		__builtin_offsetof(struct table, heap),
		__builtin_offsetof(struct table, shared),
		__builtin_offsetof(struct table, regs),
		__builtin_offsetof(struct table, log),
		__builtin_offsetof(struct table, stats),
	},
	.heap = { SNAPTRACE_RSC_CARVEOUT,
		  { SNAPTRACE_FW_RSC_ADDR_ANY, SNAPTRACE_FW_RSC_ADDR_ANY, 0x10000,
		    0, 0, "heap" } },
	.shared = { SNAPTRACE_RSC_CARVEOUT,
		    { 0x20000000u, SNAPTRACE_FW_RSC_ADDR_ANY, 0x4000, 0, 0,
		      "shared" } },
	.regs = { SNAPTRACE_RSC_DEVMEM,
		  { 0x30000000u, 0x30000000u, 0x1000, 0, 0, "regs" } },
	.log = { SNAPTRACE_RSC_TRACE, { TRACE0_DA, TRACE0_LEN, 0, "log" } },
	.stats = { SNAPTRACE_RSC_TRACE, { TRACE1_DA, TRACE1_LEN, 0, "stats" } },
};

__section(".trace0") __used char trace0[TRACE0_LEN];
__section(".trace1") __used char trace1[TRACE1_LEN];

/* The simulated core does the logging: the code only has to exist. */
void _start(void)
{
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}
