/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ivshmem remote's shared-memory ABI: where the ARM remote
 * (fw/arm-remote/) keeps its control block, and the block's words, as the
 * firmware writes them and the host driver (src/rproc_ivshmem.c) reads
 * them. The one place they are written: the firmware builds this header
 * freestanding (fw/include/linux/ shims), the kernel with its own headers,
 * and scripts/remote-demo.sh, which plays the remote's platform, reads the
 * SNAPTRACE_IVSHMEM_* values it needs from here (so each stays a plain
 * number on a "#define" line of its own).
 *
 * Addresses are device addresses, as the remote sees them: the RAM of
 * QEMU's virt machine, which the host sees as the ivshmem device's BAR,
 * at offset da - SNAPTRACE_IVSHMEM_RAM_DA. Every word is 32-bit and
 * little-endian.
 */
#ifndef _SNAPTRACE_IVSHMEM_H
#define _SNAPTRACE_IVSHMEM_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* The BAR of QEMU's ivshmem-plain device (1af4:1110) that is the memory. */
#define SNAPTRACE_IVSHMEM_BAR		2
/* The device address of the BAR's start (ivshmem_da's default). */
#define SNAPTRACE_IVSHMEM_RAM_DA	0x40000000u
/* The control block's device address (ivshmem_ctl's default). */
#define SNAPTRACE_IVSHMEM_CTL_DA	0x40108000u

/**
 * struct snaptrace_ivshmem_ctl - the remote's control block
 * @magic: %SNAPTRACE_IVSHMEM_MAGIC once the firmware has booted (the host
 *	takes a device only when it finds it)
 * @heartbeat: +1 every 10 ms while the firmware runs; frozen when it hangs
 * @command: written by the host: %SNAPTRACE_IVSHMEM_CMD_HANG makes the
 *	firmware log one last line and stop (heartbeat frozen, as a hung
 *	core); %SNAPTRACE_IVSHMEM_CMD_RESET is for the platform, which
 *	restarts the remote, then clears the word; the firmware clears it
 *	when it boots
 * @boots: boots since the memory was created (kept across restarts)
 * @lines: log lines written in this boot
 * @status: %SNAPTRACE_IVSHMEM_STATUS_RUNNING or
 *	%SNAPTRACE_IVSHMEM_STATUS_HUNG
 *
 * The host reads and writes single words at the offsets below
 * (readl()/writel() on the BAR).
 */
struct snaptrace_ivshmem_ctl {
	__le32 magic;
	__le32 heartbeat;
	__le32 command;
	__le32 boots;
	__le32 lines;
	__le32 status;
};

/* Offsets of the words the host uses, and the block's size, in bytes. */
#define SNAPTRACE_IVSHMEM_CTL_MAGIC	0
#define SNAPTRACE_IVSHMEM_CTL_HEARTBEAT	4
#define SNAPTRACE_IVSHMEM_CTL_COMMAND	8
#define SNAPTRACE_IVSHMEM_CTL_SIZE	24

#define SNAPTRACE_IVSHMEM_MAGIC		0x4d524e53u	/* "SNRM" */
#define SNAPTRACE_IVSHMEM_CMD_NONE	0
#define SNAPTRACE_IVSHMEM_CMD_HANG	1
#define SNAPTRACE_IVSHMEM_CMD_RESET	2
#define SNAPTRACE_IVSHMEM_STATUS_RUNNING	1
#define SNAPTRACE_IVSHMEM_STATUS_HUNG	2

static_assert(offsetof(struct snaptrace_ivshmem_ctl, magic) ==
	      SNAPTRACE_IVSHMEM_CTL_MAGIC);
static_assert(offsetof(struct snaptrace_ivshmem_ctl, heartbeat) ==
	      SNAPTRACE_IVSHMEM_CTL_HEARTBEAT);
static_assert(offsetof(struct snaptrace_ivshmem_ctl, command) ==
	      SNAPTRACE_IVSHMEM_CTL_COMMAND);
static_assert(sizeof(struct snaptrace_ivshmem_ctl) == SNAPTRACE_IVSHMEM_CTL_SIZE);

#endif /* _SNAPTRACE_IVSHMEM_H */
