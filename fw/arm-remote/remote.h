/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace ARM remote: its memory map. What it shares with the host (where
 * RAM and the control block are, the block's words) is in
 * include/snaptrace/ivshmem.h, which the host driver (src/rproc_ivshmem.c)
 * and scripts/remote-demo.sh use too; the host finds the rest (the trace)
 * in the resource table.
 *
 * RAM of QEMU's virt machine starts at 0x40000000 (the host sees it as the
 * ivshmem BAR2, offset = da - 0x40000000). QEMU puts the device tree of a
 * bare-metal image at the start of RAM, so the firmware keeps off the first
 * MiB:
 *
 *   0x40100000  code, read-only data, .resource_table, data, bss
 *   0x40108000  the control block (struct snaptrace_ivshmem_ctl at
 *               SNAPTRACE_IVSHMEM_CTL_DA), not in the ELF image
 *   0x40110000  trace0: the log, TRACE0_LEN bytes, not in the ELF image
 *   0x40120000  stack, 64 KiB, growing down from 0x40130000
 *
 * The carveout of the resource table covers 0x40100000..0x40140000.
 */
#ifndef _ARM_REMOTE_H
#define _ARM_REMOTE_H

#define FW_BASE		0x40100000u
#define FW_LEN		0x40000u
#define TRACE0_DA	0x40110000u
#define TRACE0_LEN	0x1000u
#define STACK_TOP	0x40130000u

#define TICK_MS		10u	/* heartbeat period (snaptrace/ivshmem.h says 10 ms) */
#define LINE_TICKS	20u	/* a log line every LINE_TICKS ticks: 200 ms */
/* Hang by itself after this many lines (0: only on the host's command). */
#ifndef HANG_AFTER_LINES
#define HANG_AFTER_LINES 0u
#endif

#endif /* _ARM_REMOTE_H */
