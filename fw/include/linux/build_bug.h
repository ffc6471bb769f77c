/* SPDX-License-Identifier: GPL-2.0 */
/* Freestanding shim of <linux/build_bug.h> for fw/ (see linux/types.h). */
#ifndef _SNAPTRACE_FW_BUILD_BUG_H
#define _SNAPTRACE_FW_BUILD_BUG_H

#define static_assert(expr, ...) _Static_assert(expr, #expr)

#endif
