/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Freestanding shim of <linux/compiler_attributes.h> for fw/: the kernel's
 * attribute names, so the firmware reads (and checkpatches) like kernel C.
 */
#ifndef _SNAPTRACE_FW_COMPILER_ATTRIBUTES_H
#define _SNAPTRACE_FW_COMPILER_ATTRIBUTES_H

#define __aligned(x)	__attribute__((__aligned__(x)))
#define __noreturn	__attribute__((__noreturn__))
#define __packed	__attribute__((__packed__))
#define __section(s)	__attribute__((__section__(s)))
#define __used		__attribute__((__used__))

#endif
