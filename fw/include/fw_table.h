/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resource table entries as a firmware lays them out: the entry's type
 * word (struct snaptrace_fw_rsc_hdr), then its body from the header the
 * host parses the table with. A firmware's table is its own struct: the
 * fields of struct snaptrace_rsc_table with the offsets spelled out, then
 * these entries.
 */
#ifndef _SNAPTRACE_FW_TABLE_H
#define _SNAPTRACE_FW_TABLE_H

#include <snaptrace/rsc_table.h>

struct fw_carveout {
	u32 type;
	struct snaptrace_fw_rsc_carveout c;
} __packed;

struct fw_devmem {
	u32 type;
	struct snaptrace_fw_rsc_devmem d;
} __packed;

struct fw_trace {
	u32 type;
	struct snaptrace_fw_rsc_trace t;
} __packed;

#endif
