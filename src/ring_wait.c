// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace ring buffer, waiting for data: the wake-up of readers that
 * writers and snapshots queue (an irq_work: they may be in NMI), sleeping
 * until there is something to read, and poll(). A wake-up lost to
 * store/load reordering delays a reader by 100 ms at most. Upstream twin:
 * ring_buffer_wait(), ring_buffer_poll_wait() and rb_wakeups() in
 * kernel/trace/ring_buffer.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/local.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "ring.h"

static void st_wake_work(struct irq_work *work)
{
	struct snaptrace_buffer *buf = container_of(work, struct snaptrace_buffer,
						    wake_work);

	WRITE_ONCE(buf->waiters, false);
	wake_up_all(&buf->waitq);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * snaptrace_test_lose_wakeup() - forget that a reader waits
 * @buf: the buffer
 *
 * For KUnit: clears the flag that snaptrace_wait() and snaptrace_poll()
 * raise and that the write path (and every other caller of the wake-up:
 * snapshots, recording turned off) looks at before it wakes them, as a
 * writer sees it when its look is reordered before the reader's store: the
 * lost wake-up that their 100 ms recheck bounds. Until a reader raises the
 * flag again (its next recheck), nothing wakes it.
 *
 * Context: any. Never sleeps.
 * Return: the flag as it was: true if a reader had raised it.
 */
bool snaptrace_test_lose_wakeup(struct snaptrace_buffer *buf)
{
	return xchg(&buf->waiters, false);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_test_lose_wakeup);
#endif

static void st_poll_work(struct work_struct *work)
{
	struct snaptrace_buffer *buf = container_of(to_delayed_work(work),
						    struct snaptrace_buffer,
						    poll_work);

	wake_up_all(&buf->waitq);
}

/**
 * snaptrace_ring_wait_init() - set up the wake-up of @buf's readers
 * @buf: a buffer being allocated
 *
 * The irq_work that writers queue (they may be in NMI), the delayed work
 * that bounds a lost wake-up of poll(), and the wait queue.
 *
 * Context: process context, before @buf is reachable. Never sleeps.
 */
void snaptrace_ring_wait_init(struct snaptrace_buffer *buf)
{
	init_irq_work(&buf->wake_work, st_wake_work);
	INIT_DELAYED_WORK(&buf->poll_work, st_poll_work);
	init_waitqueue_head(&buf->waitq);
}

/**
 * snaptrace_ring_wait_sync() - wait for the wake-ups of @buf to finish
 * @buf: a buffer being freed, no longer reachable by writers or readers
 *
 * Context: process context, may sleep (irq_work_sync(),
 * cancel_delayed_work_sync()).
 */
void snaptrace_ring_wait_sync(struct snaptrace_buffer *buf)
{
	irq_work_sync(&buf->wake_work);
	cancel_delayed_work_sync(&buf->poll_work);
}

/*
 * Whether @which has a record for @cpu (or any CPU); lockless. Reads no
 * record: a ring not pending with committed bytes at tail has one (padding
 * is written with the record after it). A header read here, without the
 * reader mutex that orders a consumer's tail move before the copies of
 * others (tests/litmus/tail-wrc.litmus), could be torn by a writer that
 * found tail moved and did not push.
 */
static bool st_has_data(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu)
{
	struct st_half *half;
	struct st_ring *r;
	unsigned long c;
	bool ret = false;
	int i;

	rcu_read_lock(); /* halves are freed after synchronize_rcu() */
	half = st_half_in(buf, st_state(buf), which);
	for_each_possible_cpu(i) {
		if (!half || ret)
			break;
		if (cpu != SNAPTRACE_ALL_CPUS && i != cpu)
			continue;
		r = per_cpu_ptr(half->rings, i);
		if (atomic_long_read(&r->head) & ST_PENDING)
			continue;
		smp_rmb(); /* head before commit and tail (st_open()) */
		c = local_read(&r->commit);
		ret = (long)(c - st_pos(atomic_long_read(&r->tail))) > 0;
	}
	rcu_read_unlock();
	return ret;
}

/* A waiter's condition: raise the flag writers look at, then look. */
static bool st_wait_cond(struct snaptrace_buffer *buf, enum snaptrace_which which,
			 int cpu, bool until_off)
{
	WRITE_ONCE(buf->waiters, true);
	smp_mb(); /* the flag before the look at the data */
	return st_has_data(buf, which, cpu) ||
	       (until_off && !READ_ONCE(buf->record_on));
}

/* The longest a wake-up lost to store/load reordering can delay a reader. */
#define ST_WAIT_RECHECK (HZ / 10)

/**
 * snaptrace_wait() - sleep until there is something to read
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a CPU, or %SNAPTRACE_ALL_CPUS
 * @until_off: also return when recording is (or is turned) off
 *
 * Writers wake readers through an irq_work (they may be in NMI, where
 * wake_up() is not allowed), and so does a snapshot. Like ftrace's
 * rb_wakeups(), the write path has no full barrier between its commit and
 * its look at whether anyone waits (store then load: reordered even on
 * x86), so a wake-up can be missed; the reader then notices the data
 * within 100 ms by itself. Mirrors ring_buffer_wait().
 *
 * Context: process context, sleeps (interruptibly). No locks held.
 * Return: 0 when there is data; -ENODATA if @until_off and recording is
 * off; -ERESTARTSYS on a signal.
 */
int snaptrace_wait(struct snaptrace_buffer *buf, enum snaptrace_which which,
		   int cpu, bool until_off)
{
	long ret;

	for (;;) {
		ret = wait_event_interruptible_timeout(buf->waitq,
						       st_wait_cond(buf, which, cpu,
								    until_off),
						       ST_WAIT_RECHECK);
		if (ret < 0)
			return ret;
		if (st_has_data(buf, which, cpu))
			return 0;
		if (until_off && !READ_ONCE(buf->record_on))
			return -ENODATA;
		/* Timed out, or another reader took the data: wait on. */
	}
}
EXPORT_SYMBOL_GPL(snaptrace_wait);

/**
 * snaptrace_poll() - poll support for a file that reads the buffer
 * @buf: the buffer
 * @which: %SNAPTRACE_LIVE or %SNAPTRACE_SNAPSHOT
 * @cpu: a CPU, or %SNAPTRACE_ALL_CPUS
 * @filp: the file being polled
 * @pt: the poll table
 *
 * When there is nothing to read, a wake-up of the poll queue is scheduled
 * in 100 ms, so that a wake-up lost as described for snaptrace_wait()
 * delays the poller by at most that long, as it does a waiter.
 *
 * Context: process context (a file's ->poll()).
 * Return: EPOLLIN | EPOLLRDNORM if there is data, else 0.
 */
__poll_t snaptrace_poll(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu, struct file *filp, poll_table *pt)
{
	poll_wait(filp, &buf->waitq, pt);
	if (st_wait_cond(buf, which, cpu, false))
		return EPOLLIN | EPOLLRDNORM;
	/* Not mod_: pollers more often than that must not push it back. */
	queue_delayed_work(system_wq, &buf->poll_work, ST_WAIT_RECHECK);
	return 0;
}
EXPORT_SYMBOL_GPL(snaptrace_poll);
