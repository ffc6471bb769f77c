/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace ARM remote: the memory map it shares with the host. The host
 * driver (src/rproc_ivshmem.c) knows these addresses through its module
 * parameters, whose defaults are these values; keep the two in step.
 *
 * RAM of QEMU's virt machine starts at 0x40000000 (the host sees it as the
 * ivshmem BAR2, offset = da - 0x40000000). QEMU puts the device tree of a
 * bare-metal image at the start of RAM, so the firmware keeps off the first
 * MiB:
 *
 *   0x40100000  code, read-only data, .resource_table, data, bss
 *   0x40108000  the control block (struct remote_ctl), not in the ELF image
 *   0x40110000  trace0: the log, TRACE0_LEN bytes, not in the ELF image
 *   0x40120000  stack, 64 KiB, growing down from 0x40130000
 *
 * The carveout of the resource table covers 0x40100000..0x40140000.
 */
#ifndef _ARM_REMOTE_H
#define _ARM_REMOTE_H

#define FW_BASE		0x40100000u
#define FW_LEN		0x40000u
#define CTL_DA		0x40108000u
#define TRACE0_DA	0x40110000u
#define TRACE0_LEN	0x1000u
#define STACK_TOP	0x40130000u

/*
 * The control block at CTL_DA, 32-bit little-endian words:
 *   +0  magic      CTL_MAGIC once the firmware has booted
 *   +4  heartbeat  +1 every TICK_MS while the firmware runs; frozen when hung
 *   +8  command    written by the host: CMD_HANG makes the firmware log one
 *                  last line and stop (heartbeat frozen, as a hung core);
 *                  CMD_RESET is for the platform (the script that runs the
 *                  emulator restarts it, then clears the word); the firmware
 *                  clears the word when it boots
 *   +12 boots      boots since the memory was created (kept across restarts)
 *   +16 lines      log lines written in this boot
 *   +20 status     STATUS_RUNNING or STATUS_HUNG
 */
#define CTL_MAGIC	0x4d524e53u	/* "SNRM" */
#define CMD_NONE	0u
#define CMD_HANG	1u
#define CMD_RESET	2u
#define STATUS_RUNNING	1u
#define STATUS_HUNG	2u

#define TICK_MS		10u	/* heartbeat period */
#define LINE_TICKS	20u	/* a log line every LINE_TICKS ticks: 200 ms */
/* Hang by itself after this many lines (0: only on CMD_HANG). */
#ifndef HANG_AFTER_LINES
#define HANG_AFTER_LINES 0u
#endif

#endif /* _ARM_REMOTE_H */
