/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Freestanding shim: just enough of <linux/types.h> for the firmware in fw/
 * to build its resource table from include/snaptrace/rsc_table.h, the header
 * the host parses it with (host gcc for x86-64, arm-none-eabi-gcc for ARM),
 * and the ARM remote its control block from include/snaptrace/ivshmem.h.
 */
#ifndef _SNAPTRACE_FW_TYPES_H
#define _SNAPTRACE_FW_TYPES_H

#include <linux/compiler_attributes.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
/* Shared-memory words (snaptrace/ivshmem.h): every fw/ target is little-endian. */
typedef u32 __le32;

#endif
