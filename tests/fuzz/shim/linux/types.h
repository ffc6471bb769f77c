/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: just enough of the kernel for src/fw_*.c (fuzzing). */
#ifndef _SNAPTRACE_FUZZ_TYPES_H
#define _SNAPTRACE_FUZZ_TYPES_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int8_t __s8;
typedef int16_t __s16;
typedef int32_t __s32;
typedef int64_t __s64;

#define __packed __attribute__((packed))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define U32_MAX UINT32_MAX
#define U64_MAX UINT64_MAX

#endif
