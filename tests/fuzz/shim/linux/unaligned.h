/* SPDX-License-Identifier: GPL-2.0 */
/* <linux/unaligned.h>'s user-space side: unaligned little-endian reads. */
#ifndef _SNAPTRACE_FUZZ_LINUX_UNALIGNED_H
#define _SNAPTRACE_FUZZ_LINUX_UNALIGNED_H
#include <linux/types.h>
static inline u16 get_unaligned_le16(const void *p) { u16 v; memcpy(&v, p, 2); return v; }
static inline u32 get_unaligned_le32(const void *p) { u32 v; memcpy(&v, p, 4); return v; }
static inline u64 get_unaligned_le64(const void *p) { u64 v; memcpy(&v, p, 8); return v; }
#endif
