/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows <linux/hrtimer.h>: backfills hrtimer_setup() (Linux 6.13) and
 * hrtimer_update_function() (6.15, backported to Debian's 6.12), so the .c
 * files use the newest API everywhere. Kbuild probes the kernel's header
 * for each, as Debian's kernels carry backports that version numbers hide.
 */
#ifndef _SNAPTRACE_COMPAT_LINUX_HRTIMER_H
#define _SNAPTRACE_COMPAT_LINUX_HRTIMER_H

#include_next <linux/hrtimer.h>

#ifndef SNAPTRACE_HAVE_HRTIMER_SETUP
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#ifndef SNAPTRACE_HAVE_HRTIMER_UPDATE_FUNCTION
/* Only while the timer is not enqueued, as upstream's. */
static inline void
hrtimer_update_function(struct hrtimer *timer,
			enum hrtimer_restart (*function)(struct hrtimer *))
{
	timer->function = function;
}
#endif

#endif /* _SNAPTRACE_COMPAT_LINUX_HRTIMER_H */
