/* SPDX-License-Identifier: GPL-2.0 */
/* Freestanding shim of <linux/stddef.h> for fw/ (see linux/types.h). */
#ifndef _SNAPTRACE_FW_STDDEF_H
#define _SNAPTRACE_FW_STDDEF_H

#define offsetof(type, member) __builtin_offsetof(type, member)

#endif
