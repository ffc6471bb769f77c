// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the snaptrace snapshot: the spare buffer is allocated
 * only when asked for, snapshot() swaps the halves from any context
 * (softirq, hardirq, irqs off, NMI) without sleeping, misses are counted
 * (and with stop-on-miss leave a marker and stop recording), clear, free
 * and resize keep both halves consistent, iterators see -ESTALE, and
 * alloc/free/clear/resize race safely with snapshots from a timer.
 *
 * Written from the API contract in <snaptrace/snaptrace.h>. The helpers
 * below mirror those of ring_kunit.c (each suite stands alone).
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <kunit/resource.h>
#include <kunit/test.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/irq_vectors.h>
#include <asm/nmi.h>
#endif

#include <snaptrace/snaptrace.h>
#include "st_kunit.h"

/* Bytes of the record header in the per-CPU buffer (the spec's layout). */
#define ST_HDR_BYTES		16
/* Payload magics: records written by tasks, and by interrupt handlers. */
#define ST_MAGIC		0x53545231U
#define ST_MAGIC_IRQ		0x53544931U
/* Bounded waits for an interrupt we raised: sleeping, and spinning. */
#define ST_WAIT_LOOPS		1000
#define ST_SPIN_LOOPS		1000000UL
/* Name of our NMI handler; one per suite so the two never collide. */
#define ST_NMI_NAME		"snaptrace_kunit_snap"

/* Race run: rounds of alloc/free/clear/resize, and the timer's bounds. */
#define ST_RACE_ROUNDS		100
#define ST_RACE_TICKS		20000
#define ST_RACE_PERIOD_NS	(100 * NSEC_PER_USEC)
/* Rounds of two threads allocating the spare at once. */
#define ST_ALLOC_RACE_ROUNDS	10

/* Bytes a record of @len payload bytes takes in the per-CPU buffer. */
static u64 st_rec_bytes(size_t len)
{
	return ST_HDR_BYTES + ALIGN(len, 8);
}

/* ---- self-checking payloads ---- */

/* Head of every self-checking payload; the rest is a pattern. */
struct st_hdr {
	u32 magic;
	u32 cpu;
	u32 seq;
	u32 len;
	u32 csum;
};

#define ST_PAYLOAD_MIN		sizeof(struct st_hdr)

static u32 st_fnv(u32 h, const u8 *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 16777619U;
	return h;
}

/* Checksum of a payload: its header up to csum, then the bytes after it. */
static u32 st_payload_csum(const u8 *p, size_t len)
{
	u32 h = st_fnv(2166136261U, p, offsetof(struct st_hdr, csum));

	return st_fnv(h, p + sizeof(struct st_hdr), len - sizeof(struct st_hdr));
}

/* Fills @p with a self-checking payload of @len >= ST_PAYLOAD_MIN bytes. */
static void st_payload_fill(u8 *p, size_t len, u32 magic, u32 cpu, u32 seq)
{
	struct st_hdr h = { .magic = magic, .cpu = cpu, .seq = seq, .len = len };
	size_t i;

	for (i = sizeof(h); i < len; i++)
		p[i] = (u8)(seq * 7 + i * 13 + cpu);
	memcpy(p, &h, sizeof(h));
	h.csum = st_payload_csum(p, len);
	memcpy(p + offsetof(struct st_hdr, csum), &h.csum, sizeof(h.csum));
}

/* True if @rec is a DATA record holding an intact payload from rec->cpu. */
static bool st_payload_ok(const struct snaptrace_record *rec, struct st_hdr *h)
{
	if (rec->type != SNAPTRACE_REC_DATA || rec->len < sizeof(*h) ||
	    rec->len > SNAPTRACE_MAX_PAYLOAD)
		return false;
	memcpy(h, rec->data, sizeof(*h));
	return (h->magic == ST_MAGIC || h->magic == ST_MAGIC_IRQ) &&
	       h->cpu == rec->cpu && h->len == rec->len &&
	       h->csum == st_payload_csum(rec->data, rec->len);
}

/* ---- checking a stream of records (iterator or consumer) ---- */

struct st_check {
	u64 *next;		/* per CPU and magic: last seq + 1, 0: none yet */
	int cpu;		/* the only CPU allowed, or SNAPTRACE_ALL_CPUS */
	u64 stride;		/* if not 0, pos must be seq * stride */
	unsigned int count;	/* records seen */
	unsigned int bad;	/* torn, foreign, or from the wrong CPU */
	unsigned int order;	/* a sequence number went backwards on a CPU */
	unsigned int gaps;	/* a sequence number was skipped (records lost) */
	unsigned int misplaced;	/* pos does not match seq * stride */
	unsigned int ts_back;	/* timestamp lower than the previous record's */
	unsigned int markers;	/* SNAPTRACE_REC_MARKER records */
	u32 first_seq;
	u32 last_seq;
	u64 first_ts;
	u64 last_ts;
};

static void st_check_init(struct st_check *c, u64 *next, int cpu, u64 stride)
{
	memset(c, 0, sizeof(*c));
	memset(next, 0, 2 * nr_cpu_ids * sizeof(*next));
	c->next = next;
	c->cpu = cpu;
	c->stride = stride;
}

static void st_check_one(struct st_check *c, const struct snaptrace_record *rec)
{
	struct st_hdr h;
	u64 *slot;

	if (c->count && rec->ts < c->last_ts)
		c->ts_back++;
	if (!c->count)
		c->first_ts = rec->ts;
	c->last_ts = rec->ts;
	c->count++;
	if (rec->cpu >= nr_cpu_ids ||
	    (c->cpu != SNAPTRACE_ALL_CPUS && rec->cpu != c->cpu)) {
		c->bad++;
		return;
	}
	if (rec->type == SNAPTRACE_REC_MARKER) {
		c->markers++;
		return;
	}
	if (!st_payload_ok(rec, &h)) {
		c->bad++;
		return;
	}
	slot = &c->next[2 * rec->cpu + (h.magic == ST_MAGIC_IRQ)];
	if (*slot && h.seq < *slot)
		c->order++;
	else if (*slot && h.seq != *slot)
		c->gaps++;
	*slot = (u64)h.seq + 1;
	if (c->stride && rec->pos != (u64)h.seq * c->stride)
		c->misplaced++;
	if (c->count == 1)
		c->first_seq = h.seq;
	c->last_seq = h.seq;
}

/*
 * Iterates one half of @buf (one CPU or all) to the end, checking every
 * record. Returns what ended the iteration (-ENODATA at the end).
 */
static int st_scan(struct kunit *test, struct snaptrace_buffer *buf,
		   enum snaptrace_which which, int cpu, u64 stride,
		   struct st_check *c)
{
	struct snaptrace_record *rec;
	struct snaptrace_iter *it;
	u64 *next;
	int rc;

	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	next = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*next), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_ASSERT_NOT_NULL(test, next);
	st_check_init(c, next, cpu, stride);

	it = snaptrace_iter_start(buf, which, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	for (;;) {
		rc = snaptrace_iter_next(it, rec);
		if (rc)
			break;
		st_check_one(c, rec);
	}
	snaptrace_iter_stop(it);
	kunit_kfree(test, rec);
	kunit_kfree(test, next);
	return rc;
}

/*
 * Reads up to @max records of one half into @recs with an iterator; returns
 * how many, and in @end what ended it (0 if @max was reached).
 */
static unsigned int st_collect(struct kunit *test, struct snaptrace_buffer *buf,
			       enum snaptrace_which which, int cpu,
			       struct snaptrace_record *recs, unsigned int max,
			       int *end)
{
	struct snaptrace_iter *it;
	unsigned int n;
	int rc = 0;

	it = snaptrace_iter_start(buf, which, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	for (n = 0; n < max; n++) {
		rc = snaptrace_iter_next(it, &recs[n]);
		if (rc)
			break;
	}
	snaptrace_iter_stop(it);
	*end = rc;
	return n;
}

/* ---- buffers, stats, and writing on a chosen CPU ---- */

KUNIT_DEFINE_ACTION_WRAPPER(st_buffer_free_action, snaptrace_buffer_free,
			    struct snaptrace_buffer *);

/* A buffer freed when the test ends, however it ends. */
static struct snaptrace_buffer *st_buf_new(struct kunit *test, size_t size,
					   enum snaptrace_mode mode)
{
	struct snaptrace_buffer *buf = snaptrace_buffer_alloc(size, mode);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_buffer_free_action, buf), 0);
	return buf;
}

static struct snaptrace_record *st_rec_new(struct kunit *test)
{
	struct snaptrace_record *rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rec);
	return rec;
}

static struct snaptrace_stats st_stats(struct kunit *test,
				       struct snaptrace_buffer *buf,
				       enum snaptrace_which which, int cpu)
{
	struct snaptrace_stats st = {};

	KUNIT_ASSERT_EQ_MSG(test, snaptrace_cpu_stats(buf, which, cpu, &st), 0,
			    "stats of cpu %d", cpu);
	return st;
}

/* written == read + entries + overrun + dropped, at a quiescent point. */
static void st_expect_balanced(struct kunit *test,
			       const struct snaptrace_stats *st, int cpu)
{
	KUNIT_EXPECT_EQ_MSG(test, st->written,
			    st->read + st->entries + st->overrun + st->dropped,
			    "cpu %d: written %llu read %llu entries %llu overrun %llu dropped %llu",
			    cpu, st->written, st->read, st->entries, st->overrun,
			    st->dropped);
}

/* Every counter of one CPU is 0 (snapshot_misses aside: buffer-wide). */
static void st_expect_empty(struct kunit *test, struct snaptrace_buffer *buf,
			    enum snaptrace_which which, int cpu)
{
	struct snaptrace_stats st = st_stats(test, buf, which, cpu);

	KUNIT_EXPECT_EQ_MSG(test, st.entries, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.written, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.overrun, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.dropped, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.read, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.bytes, 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.oldest_ts, 0, "cpu %d", cpu);
}

struct st_wcount {
	unsigned int ok;
	unsigned int nospc;
	unsigned int other;
};

struct st_write_args {
	struct snaptrace_buffer *buf;
	u8 *scratch;
	unsigned int n;
	size_t len;
	u32 seq0;
	int cpu;
	bool wrong_cpu;
	struct st_wcount wc;
};

static long st_write_fn(void *data)
{
	struct st_write_args *a = data;
	unsigned int i;
	int rc;

	preempt_disable();
	a->wrong_cpu = smp_processor_id() != a->cpu;
	for (i = 0; i < a->n; i++) {
		st_payload_fill(a->scratch, a->len, ST_MAGIC, a->cpu, a->seq0 + i);
		rc = snaptrace_write(a->buf, a->scratch, a->len);
		if (!rc)
			a->wc.ok++;
		else if (rc == -ENOSPC)
			a->wc.nospc++;
		else
			a->wc.other++;
	}
	preempt_enable();
	return 0;
}

/*
 * Writes @n self-checking records of @len bytes, sequence numbers from
 * @seq0, all on @cpu (a kworker bound to it, preemption off throughout).
 */
static struct st_wcount st_write_n(struct kunit *test,
				   struct snaptrace_buffer *buf, int cpu,
				   unsigned int n, size_t len, u32 seq0)
{
	struct st_write_args a = {
		.buf = buf, .n = n, .len = len, .seq0 = seq0, .cpu = cpu,
	};

	KUNIT_ASSERT_GE(test, len, ST_PAYLOAD_MIN);
	a.scratch = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a.scratch);
	work_on_cpu(cpu, st_write_fn, &a);
	KUNIT_ASSERT_FALSE_MSG(test, a.wrong_cpu, "writer not on cpu %d", cpu);
	kunit_kfree(test, a.scratch);
	return a.wc;
}

/* The CPU single-CPU tests write on. */
static int st_cpu(void)
{
	return cpumask_first(cpu_online_mask);
}

/* ---- running a function in a chosen context ---- */

enum st_ctx {
	ST_CTX_IRQS_OFF,	/* task context, local_irq_save() */
	ST_CTX_SOFTIRQ,		/* a tasklet */
	ST_CTX_HARDIRQ,		/* an hrtimer, HRTIMER_MODE_REL_HARD */
	ST_CTX_IRQ_WORK,	/* a hard irq_work on this CPU */
	ST_CTX_NMI,		/* a self-NMI (x86 local APIC) */
};

struct st_job {
	struct snaptrace_buffer *buf;
	void (*fn)(struct st_job *job);
	enum st_ctx ctx;
	bool in_ctx;		/* it ran in the context asked for */
	int cpu;		/* where it ran */
	int rc[2];		/* what fn saw */
	atomic_t done;
	struct hrtimer timer;
	struct irq_work work;
	struct tasklet_struct tasklet;
};

static void st_job_run(struct st_job *job)
{
	switch (job->ctx) {
	case ST_CTX_IRQS_OFF:
		job->in_ctx = in_task() && irqs_disabled();
		break;
	case ST_CTX_SOFTIRQ:
		job->in_ctx = in_serving_softirq() && !in_hardirq() && !in_nmi();
		break;
	case ST_CTX_HARDIRQ:
	case ST_CTX_IRQ_WORK:
		job->in_ctx = in_hardirq() && !in_nmi();
		break;
	case ST_CTX_NMI:
		job->in_ctx = in_nmi();
		break;
	}
	job->cpu = smp_processor_id();
	job->fn(job);
	atomic_set_release(&job->done, 1);
}

static enum hrtimer_restart st_job_timer(struct hrtimer *t)
{
	st_job_run(container_of(t, struct st_job, timer));
	return HRTIMER_NORESTART;
}

static void st_job_irq_work(struct irq_work *w)
{
	st_job_run(container_of(w, struct st_job, work));
}

static void st_job_tasklet(struct tasklet_struct *t)
{
	struct st_job *job = from_tasklet(job, t, tasklet);

	st_job_run(job);
}

#ifdef CONFIG_X86_LOCAL_APIC
/* CPU + 1 of the NMI we raised and nobody took yet; 0 if none. */
static atomic_t st_nmi_armed = ATOMIC_INIT(0);
static struct st_job *st_nmi_job;

/* Claims only the NMI this suite raised on this CPU. */
static int st_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	int cpu = smp_processor_id();

	if (atomic_cmpxchg(&st_nmi_armed, cpu + 1, 0) != cpu + 1)
		return NMI_DONE;
	st_job_run(READ_ONCE(st_nmi_job));
	return NMI_HANDLED;
}

static void st_nmi_unregister(void *unused)
{
	unregister_nmi_handler(NMI_LOCAL, ST_NMI_NAME);
}

static void st_nmi_register(struct kunit *test)
{
	int rc = register_nmi_handler(NMI_LOCAL, st_nmi_handler, 0, ST_NMI_NAME);

	KUNIT_ASSERT_EQ(test, rc, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_nmi_unregister, NULL), 0);
}

/*
 * Raises an NMI on this CPU; preemption must be off. apic->send_IPI() goes
 * through the ICR with NMI delivery on xAPIC and x2APIC alike (x2APIC's
 * send_IPI_self() writes the SELF_IPI register, which has no NMI mode).
 */
static void st_nmi_raise(struct st_job *job)
{
	int cpu = smp_processor_id();

	WRITE_ONCE(st_nmi_job, job);
	atomic_set_release(&st_nmi_armed, cpu + 1);
	apic->send_IPI(cpu, NMI_VECTOR);
}

/* Withdraws a raised NMI; false if the handler took it meanwhile. */
static bool st_nmi_disarm(void)
{
	return atomic_xchg(&st_nmi_armed, 0) != 0;
}
#else
static void st_nmi_register(struct kunit *test)
{
	kunit_skip(test, "no self-NMI on this architecture");
}

static void st_nmi_raise(struct st_job *job)
{
}

static bool st_nmi_disarm(void)
{
	return true;
}
#endif

/* Makes sure nothing of @data runs once the test ends. */
static void st_job_quiesce(void *data)
{
	struct st_job *job = data;

	switch (job->ctx) {
	case ST_CTX_HARDIRQ:
		hrtimer_cancel(&job->timer);
		break;
	case ST_CTX_SOFTIRQ:
		tasklet_kill(&job->tasklet);
		break;
	case ST_CTX_IRQ_WORK:
		irq_work_sync(&job->work);
		break;
	default:
		break;
	}
}

static struct st_job *st_job_new(struct kunit *test, struct snaptrace_buffer *buf,
				 enum st_ctx ctx, void (*fn)(struct st_job *job))
{
	struct st_job *job = kunit_kzalloc(test, sizeof(*job), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, job);
	job->buf = buf;
	job->ctx = ctx;
	job->fn = fn;
	job->cpu = -1;
	job->rc[0] = -EINPROGRESS;
	job->rc[1] = -EINPROGRESS;
	atomic_set(&job->done, 0);
	hrtimer_init(&job->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	job->timer.function = st_job_timer;
	job->work = IRQ_WORK_INIT_HARD(st_job_irq_work);
	tasklet_setup(&job->tasklet, st_job_tasklet);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, st_job_quiesce, job), 0);
	if (ctx == ST_CTX_NMI)
		st_nmi_register(test);
	return job;
}

/* Raises an irq_work or NMI job on this CPU; preemption must be off. */
static void st_job_raise(struct st_job *job)
{
	if (job->ctx == ST_CTX_NMI)
		st_nmi_raise(job);
	else
		irq_work_queue(&job->work);
}

static bool st_job_wait(struct st_job *job)
{
	unsigned int i;

	for (i = 0; i < ST_WAIT_LOOPS && !atomic_read_acquire(&job->done); i++)
		usleep_range(1000, 2000);
	return atomic_read_acquire(&job->done);
}

/* Waits without sleeping: for use inside an open reservation. */
static bool st_job_spin(struct st_job *job)
{
	unsigned long i;

	for (i = 0; i < ST_SPIN_LOOPS && !atomic_read_acquire(&job->done); i++)
		udelay(1);
	return atomic_read_acquire(&job->done);
}

/* Runs @job in its context and waits for it; skips if an NMI never came. */
static void st_job_go(struct kunit *test, struct st_job *job)
{
	unsigned long flags;

	switch (job->ctx) {
	case ST_CTX_IRQS_OFF:
		local_irq_save(flags);
		st_job_run(job);
		local_irq_restore(flags);
		break;
	case ST_CTX_SOFTIRQ:
		tasklet_schedule(&job->tasklet);
		break;
	case ST_CTX_HARDIRQ:
		hrtimer_start(&job->timer, ns_to_ktime(NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
		break;
	case ST_CTX_IRQ_WORK:
	case ST_CTX_NMI:
		preempt_disable();
		st_job_raise(job);
		preempt_enable();
		break;
	}
	if (st_job_wait(job))
		return;
	if (job->ctx == ST_CTX_NMI && st_nmi_disarm())
		kunit_skip(test, "the self-NMI never arrived");
	KUNIT_ASSERT_TRUE_MSG(test, st_job_wait(job), "context %d never ran", job->ctx);
}

/* ---- helpers shared by the tests below ---- */

/* Creates a stopped kthread bound to @cpu, holding a reference to it. */
static struct task_struct *st_kthread(int (*fn)(void *data), void *data, int cpu)
{
	struct task_struct *t = kthread_create_on_cpu(fn, data, cpu, "st_snap_%u");

	if (!IS_ERR(t))
		get_task_struct(t);
	return t;
}

/* Checks one half at rest: balanced counters, entries == records iterated. */
static void st_expect_half_sane(struct kunit *test, struct snaptrace_buffer *buf,
				enum snaptrace_which which)
{
	struct snaptrace_stats st;
	struct st_check c;
	int cpu;

	for_each_possible_cpu(cpu) {
		st = st_stats(test, buf, which, cpu);
		st_expect_balanced(test, &st, cpu);
		KUNIT_EXPECT_EQ(test, st_scan(test, buf, which, cpu, 0, &c), -ENODATA);
		KUNIT_EXPECT_EQ_MSG(test, c.count, st.entries, "half %d cpu %d", which, cpu);
		KUNIT_EXPECT_EQ_MSG(test, c.bad, 0, "half %d cpu %d", which, cpu);
		KUNIT_EXPECT_EQ_MSG(test, c.order, 0, "half %d cpu %d", which, cpu);
		KUNIT_EXPECT_EQ(test, c.markers, 0);
	}
}

/* Job: write one 40-byte self-checking record (seq 0), then snapshot(). */
static void st_job_write_snap(struct st_job *job)
{
	u8 p[40];

	st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, job->cpu, 0);
	job->rc[0] = snaptrace_write(job->buf, p, sizeof(p));
	job->rc[1] = snaptrace_snapshot(job->buf);
}

static long st_snapshot_fn(void *data)
{
	return snaptrace_snapshot(data);
}

/* snapshot() called from a kworker on @cpu, so a marker lands there. */
static int st_snapshot_on(struct snaptrace_buffer *buf, int cpu)
{
	return work_on_cpu(cpu, st_snapshot_fn, buf);
}

/* The buffer-wide miss count, as reported on every possible CPU. */
static void st_expect_misses(struct kunit *test, struct snaptrace_buffer *buf, u64 misses)
{
	int cpu;

	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ_MSG(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).snapshot_misses,
				    misses, "cpu %d", cpu);
}

/* Every CPU of @which is empty, all counters 0. */
static void st_expect_half_empty(struct kunit *test, struct snaptrace_buffer *buf,
				 enum snaptrace_which which)
{
	struct snaptrace_record *rec = st_rec_new(test);
	int cpu;

	for_each_possible_cpu(cpu)
		st_expect_empty(test, buf, which, cpu);
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, which, SNAPTRACE_ALL_CPUS, rec), -ENODATA);
}

/*
 * The live half of an empty overwrite-mode buffer holds exactly
 * @size / 64 records of 64 bytes: @cap + 3 written leave @cap, 3 overrun.
 */
static void st_expect_live_capacity(struct kunit *test, struct snaptrace_buffer *buf,
				    size_t size)
{
	unsigned int cap = size / st_rec_bytes(48);
	struct snaptrace_stats st;
	int cpu = st_cpu();

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, cap + 3, 48, 0).ok, cap + 3);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.entries, cap, "size %zu", size);
	KUNIT_EXPECT_EQ_MSG(test, st.overrun, 3, "size %zu", size);
	st_expect_balanced(test, &st, cpu);
}

/* ---- the spare, lazily ---- */

/*
 * A new buffer has no spare: the snapshot half is -ENOENT for stats,
 * consume, iterators and clear; freeing the absent spare is harmless.
 */
static void snap_spare_is_lazy(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_iter *it;
	struct snaptrace_stats st;
	int cpu;

	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	for_each_possible_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, snaptrace_cpu_stats(buf, SNAPTRACE_SNAPSHOT, cpu, &st),
				-ENOENT);
		KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, cpu, rec),
				-ENOENT);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, rec),
			-ENOENT);
	it = snaptrace_iter_start(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(it), -ENOENT);
	if (!IS_ERR_OR_NULL(it))
		snaptrace_iter_stop(it);
	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), -ENOENT);
	snaptrace_free_snapshot(buf);
	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	st_expect_misses(test, buf, 0);
}

/*
 * snapshot() without a spare returns -ENOENT and counts a miss (on every
 * CPU's stats), and changes nothing: contents, counters, recording.
 */
static void snap_without_spare_misses(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct snaptrace_stats st;
	struct st_check c;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 32, 0).ok, 5);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), -ENOENT);
	st_expect_misses(test, buf, 1);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), -ENOENT);
	st_expect_misses(test, buf, 2);

	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 5);
	KUNIT_EXPECT_EQ(test, st.written, 5);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 5);
	KUNIT_EXPECT_EQ(test, c.markers + c.bad + c.gaps + c.order, 0);
}

/*
 * With stop-on-miss, a miss writes one MARKER record into the live half
 * (after the records already there) and turns recording off; turned back
 * off, a miss only counts.
 */
static void snap_stop_on_miss_marks_and_stops(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *recs;
	struct snaptrace_stats st;
	int cpu = st_cpu(), end, other;
	unsigned int got, i;
	struct st_check c;
	u8 p[32] = {};

	recs = kunit_kcalloc(test, 6, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	snaptrace_set_stop_on_miss(buf, true);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 3, 32, 0).ok, 3);
	KUNIT_EXPECT_EQ(test, st_snapshot_on(buf, cpu), -ENOENT);
	st_expect_misses(test, buf, 1);
	KUNIT_EXPECT_FALSE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_write(buf, p, sizeof(p)), -EBUSY);

	got = st_collect(test, buf, SNAPTRACE_LIVE, cpu, recs, 6, &end);
	KUNIT_ASSERT_EQ(test, got, 4);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	for (i = 0; i < 3; i++) {
		struct st_hdr h;

		KUNIT_EXPECT_TRUE(test, st_payload_ok(&recs[i], &h));
		KUNIT_EXPECT_EQ(test, h.seq, i);
	}
	KUNIT_EXPECT_EQ(test, recs[3].type, SNAPTRACE_REC_MARKER);
	KUNIT_EXPECT_GE(test, recs[3].len, 1);
	KUNIT_EXPECT_LE(test, recs[3].len, SNAPTRACE_MAX_PAYLOAD);
	KUNIT_EXPECT_EQ(test, recs[3].cpu, cpu);
	KUNIT_EXPECT_GE(test, recs[3].ts, recs[2].ts);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 4);
	st_expect_balanced(test, &st, cpu);
	for_each_possible_cpu(other) {
		if (other == cpu)
			continue;
		st = st_stats(test, buf, SNAPTRACE_LIVE, other);
		KUNIT_EXPECT_EQ(test, st.entries, 0);
	}

	snaptrace_set_stop_on_miss(buf, false);
	snaptrace_record_on(buf);
	KUNIT_EXPECT_EQ(test, st_snapshot_on(buf, cpu), -ENOENT);
	st_expect_misses(test, buf, 2);
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.markers, 1);
	KUNIT_EXPECT_EQ(test, c.count, 4);
}

/*
 * alloc_snapshot() allocates an empty spare and takes no snapshot; called
 * again it returns 0 and changes nothing.
 */
static void snap_alloc_is_idempotent_and_takes_none(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu(), i;
	struct st_check c;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 32, 0).ok, 4);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
		KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
		st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
		KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0,
					      &c), -ENODATA);
		KUNIT_EXPECT_EQ(test, c.count, 0);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 4);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).written, 4);
	}
	st_expect_misses(test, buf, 0);
}

/* ---- taking snapshots ---- */

/*
 * Records A, snapshot, records B: the snapshot half holds exactly A with
 * A's counters, the new live half started empty and holds exactly B.
 */
static void snap_swaps_halves(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_stats st;
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 6, 40, 0).ok, 6);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 40, 100).ok, 4);

	st = st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 6);
	KUNIT_EXPECT_EQ(test, st.written, 6);
	KUNIT_EXPECT_EQ(test, st.bytes, 6 * st_rec_bytes(40));
	st_expect_balanced(test, &st, cpu);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 6);
	KUNIT_EXPECT_EQ(test, c.first_seq, 0);
	KUNIT_EXPECT_EQ(test, c.last_seq, 5);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.markers, 0);
	KUNIT_EXPECT_EQ(test, st.oldest_ts, c.first_ts);

	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 4);
	KUNIT_EXPECT_EQ(test, st.written, 4);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 4);
	KUNIT_EXPECT_EQ(test, c.first_seq, 100);
	KUNIT_EXPECT_EQ(test, c.last_seq, 103);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.markers, 0);
	st_expect_misses(test, buf, 0);
}

/* A second snapshot replaces the first: A is gone, B is kept, live empty. */
static void snap_second_replaces_first(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 40, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 3, 40, 50).ok, 3);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);

	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries, 3);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 3);
	KUNIT_EXPECT_EQ(test, c.first_seq, 50);
	KUNIT_EXPECT_EQ(test, c.last_seq, 52);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad, 0);
}

/*
 * consume(SNAPSHOT) pops the snapshot's records in order and counts them
 * in the snapshot half's read; the live half is untouched.
 */
static void snap_consume_reads_snapshot(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_stats st;
	int cpu = st_cpu(), rc;
	struct st_hdr h;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 40, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 40, 10).ok, 2);

	for (i = 0; i < 5; i++) {
		rc = snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, i & 1 ? SNAPTRACE_ALL_CPUS : cpu,
				       rec);
		KUNIT_ASSERT_EQ(test, rc, 0);
		KUNIT_EXPECT_TRUE(test, st_payload_ok(rec, &h));
		KUNIT_EXPECT_EQ(test, h.seq, i);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, cpu, rec), -ENODATA);
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, rec),
			-ENODATA);
	st = st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu);
	KUNIT_EXPECT_EQ(test, st.read, 5);
	KUNIT_EXPECT_EQ(test, st.entries, 0);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	KUNIT_EXPECT_EQ(test, st.oldest_ts, 0);
	st_expect_balanced(test, &st, cpu);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 2);
	KUNIT_EXPECT_EQ(test, st.read, 0);
}

/* Iterating the snapshot half twice consumes nothing. */
static void snap_iter_is_non_consuming(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu(), i, rc;
	struct st_check c;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 7, 40, 0).ok, 7);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	for (i = 0; i < 2; i++) {
		rc = st_scan(test, buf, SNAPTRACE_SNAPSHOT, cpu, 0, &c);
		KUNIT_EXPECT_EQ(test, rc, -ENODATA);
		KUNIT_EXPECT_EQ(test, c.count, 7);
		KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad, 0);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries, 7);
		KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).read, 0);
	}
}

/* ---- snapshots from every context ---- */

/* Records A in a task, then a job in @ctx writes one and snapshots. */
static void st_snap_in(struct kunit *test, enum st_ctx ctx)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ctx, st_job_write_snap);
	u64 entries = 0;
	struct st_check c;
	int cpu;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 3, 40, 0).ok, 3);
	st_job_go(test, job);
	KUNIT_EXPECT_TRUE_MSG(test, job->in_ctx, "not run in context %d", ctx);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->rc[1], 0);

	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	for_each_possible_cpu(cpu)
		entries += st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries;
	KUNIT_EXPECT_EQ(test, entries, 4);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 4);
	KUNIT_EXPECT_EQ(test, c.gaps + c.order + c.bad + c.markers, 0);
	st_expect_misses(test, buf, 0);
}

/* snapshot() works from a tasklet (softirq). */
static void snap_in_softirq(struct kunit *test)
{
	st_snap_in(test, ST_CTX_SOFTIRQ);
}

/* snapshot() works from a hard hrtimer callback (hardirq). */
static void snap_in_hardirq_timer(struct kunit *test)
{
	st_snap_in(test, ST_CTX_HARDIRQ);
}

/* snapshot() works from a hard irq_work (hardirq). */
static void snap_in_irq_work(struct kunit *test)
{
	st_snap_in(test, ST_CTX_IRQ_WORK);
}

/* snapshot() works with interrupts disabled. */
static void snap_in_irqs_off(struct kunit *test)
{
	st_snap_in(test, ST_CTX_IRQS_OFF);
}

/* snapshot() works from an NMI handler that also writes a record. */
static void snap_in_nmi(struct kunit *test)
{
	st_snap_in(test, ST_CTX_NMI);
}

/*
 * From an NMI, with no spare and stop-on-miss set: -ENOENT, one miss, a
 * marker after the NMI's own record, and recording off.
 */
static void snap_miss_with_stop_in_nmi(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ST_CTX_NMI, st_job_write_snap);
	struct snaptrace_record *recs;
	unsigned int got;
	struct st_hdr h;
	int end;

	recs = kunit_kcalloc(test, 3, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	snaptrace_set_stop_on_miss(buf, true);
	st_job_go(test, job);
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->rc[1], -ENOENT);
	KUNIT_EXPECT_FALSE(test, snaptrace_record_is_on(buf));
	st_expect_misses(test, buf, 1);

	got = st_collect(test, buf, SNAPTRACE_LIVE, job->cpu, recs, 3, &end);
	KUNIT_ASSERT_EQ(test, got, 2);
	KUNIT_EXPECT_EQ(test, end, -ENODATA);
	KUNIT_EXPECT_TRUE(test, st_payload_ok(&recs[0], &h));
	KUNIT_EXPECT_EQ(test, recs[1].type, SNAPTRACE_REC_MARKER);
	KUNIT_EXPECT_EQ(test, recs[1].cpu, job->cpu);
}

/*
 * A task reserves and fills half a record; on the same CPU an interrupt
 * writes a record and snapshots; the task then commits. Every record
 * committed before the swap (A and the interrupt's) is in the snapshot,
 * nothing read anywhere is torn, the outer record shows up at most once,
 * and both halves balance.
 */
static void st_snap_in_reservation(struct kunit *test, enum st_ctx ctx)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_job *job = st_job_new(test, buf, ctx, st_job_write_snap);
	bool irqs_off = false, taken = false, missed = false;
	unsigned int got, i, outer_seen = 0, a_seen = 0, inner_seen = 0, bad = 0;
	static const enum snaptrace_which halves[] = { SNAPTRACE_SNAPSHOT, SNAPTRACE_LIVE };
	struct snaptrace_reservation res;
	struct snaptrace_record *recs;
	struct snaptrace_stats st;
	unsigned int h_i;
	int cpu = -1, end, other;
	u8 outer[64];
	u8 *p;

	recs = kunit_kcalloc(test, 8, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 3, 40, 0).ok, 3);

	p = snaptrace_reserve(buf, sizeof(outer), &res);
	if (p) {
		cpu = smp_processor_id();
		irqs_off = irqs_disabled();
		st_payload_fill(outer, sizeof(outer), ST_MAGIC, cpu, 1000);
		memcpy(p, outer, sizeof(outer) / 2);
		if (!irqs_off || ctx == ST_CTX_NMI) {
			st_job_raise(job);
			taken = st_job_spin(job);
			if (!taken && ctx == ST_CTX_NMI) {
				missed = st_nmi_disarm();
				if (!missed)
					taken = st_job_spin(job);
			}
		}
		memcpy(p + sizeof(outer) / 2, outer + sizeof(outer) / 2, sizeof(outer) / 2);
		snaptrace_commit(buf, &res);
	}

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_FALSE_MSG(test, irqs_off, "reserve left interrupts disabled");
	if (missed)
		kunit_skip(test, "the self-NMI never arrived");
	KUNIT_ASSERT_TRUE_MSG(test, taken, "the interrupt never ran");
	KUNIT_EXPECT_TRUE(test, job->in_ctx);
	KUNIT_EXPECT_EQ(test, job->cpu, cpu);
	KUNIT_EXPECT_EQ(test, job->rc[0], 0);
	KUNIT_EXPECT_EQ(test, job->rc[1], 0);

	for (h_i = 0; h_i < ARRAY_SIZE(halves); h_i++) {
		got = st_collect(test, buf, halves[h_i], SNAPTRACE_ALL_CPUS, recs, 8, &end);
		KUNIT_EXPECT_EQ(test, end, -ENODATA);
		for (i = 0; i < got; i++) {
			struct st_hdr h;

			if (!st_payload_ok(&recs[i], &h)) {
				bad++;
				continue;
			}
			if (h.magic == ST_MAGIC_IRQ)
				inner_seen += halves[h_i] == SNAPTRACE_SNAPSHOT;
			else if (h.seq == 1000)
				outer_seen++;
			else
				a_seen += halves[h_i] == SNAPTRACE_SNAPSHOT;
		}
		for_each_possible_cpu(other) {
			st = st_stats(test, buf, halves[h_i], other);
			st_expect_balanced(test, &st, other);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ_MSG(test, a_seen, 3, "records committed before the swap");
	KUNIT_EXPECT_EQ_MSG(test, inner_seen, 1, "the interrupt's record, committed before it");
	KUNIT_EXPECT_LE(test, outer_seen, 1);
}

/* A hardirq snapshot inside an open reservation keeps every record whole. */
static void snap_irq_work_in_reservation(struct kunit *test)
{
	st_snap_in_reservation(test, ST_CTX_IRQ_WORK);
}

/* An NMI snapshot inside an open reservation keeps every record whole. */
static void snap_nmi_in_reservation(struct kunit *test)
{
	st_snap_in_reservation(test, ST_CTX_NMI);
}

/* ---- clear, free, snapshot_alloc ---- */

/*
 * clear_snapshot() empties the spare and keeps it; the live half is
 * untouched, and the next snapshot works.
 */
static void snap_clear_empties_spare(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 40, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 40, 20).ok, 2);

	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), 0);
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
	st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), 0);

	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 2);
	KUNIT_EXPECT_EQ(test, c.first_seq, 20);
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
}

/*
 * free_snapshot() drops the spare (twice is harmless): the snapshot half
 * is -ENOENT again, snapshot() misses, the live half is untouched.
 */
static void snap_free_then_snapshot_misses(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_stats st;
	int cpu = st_cpu();

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 40, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 40, 20).ok, 2);

	snaptrace_free_snapshot(buf);
	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	snaptrace_free_snapshot(buf);
	KUNIT_EXPECT_FALSE(test, snaptrace_snapshot_is_allocated(buf));
	KUNIT_EXPECT_EQ(test, snaptrace_cpu_stats(buf, SNAPTRACE_SNAPSHOT, cpu, &st), -ENOENT);
	KUNIT_EXPECT_EQ(test, snaptrace_consume(buf, SNAPTRACE_SNAPSHOT, cpu, rec), -ENOENT);
	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), -ENOENT);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), -ENOENT);
	st_expect_misses(test, buf, 1);
	st = st_stats(test, buf, SNAPTRACE_LIVE, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, 2);
	KUNIT_EXPECT_EQ(test, st.written, 2);

	KUNIT_EXPECT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
}

/*
 * snapshot_alloc() allocates the spare when missing and snapshots; with a
 * spare already there it just snapshots.
 */
static void snap_snapshot_alloc_allocates_and_swaps(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	int cpu = st_cpu();
	struct st_check c;

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 40, 0).ok, 4);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot_alloc(buf), 0);
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 4);
	KUNIT_EXPECT_EQ(test, c.first_seq, 0);

	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 40, 30).ok, 2);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot_alloc(buf), 0);
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	KUNIT_EXPECT_EQ(test, st_scan(test, buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS, 0, &c),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, c.count, 2);
	KUNIT_EXPECT_EQ(test, c.first_seq, 30);
	st_expect_misses(test, buf, 0);
}

struct st_allocer {
	struct snaptrace_buffer *buf;
	struct completion *go;
	struct completion done;
	struct task_struct *task;
	int rc;
};

static int st_allocer_fn(void *data)
{
	struct st_allocer *a = data;

	wait_for_completion(a->go);
	a->rc = snaptrace_alloc_snapshot(a->buf);
	complete(&a->done);
	return 0;
}

/*
 * Two threads (on two CPUs when there are two) released together both get
 * 0 from alloc_snapshot(), and there is one spare of the live half's size.
 */
static void snap_concurrent_alloc_single_spare(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct st_allocer a[2] = { { .buf = buf }, { .buf = buf } };
	struct completion go;
	unsigned int round, i;
	int cpus[2];

	cpus[0] = cpumask_first(cpu_online_mask);
	cpus[1] = cpumask_next(cpus[0], cpu_online_mask);
	if (cpus[1] >= nr_cpu_ids)
		cpus[1] = cpus[0];

	for (round = 0; round < ST_ALLOC_RACE_ROUNDS; round++) {
		init_completion(&go);
		for (i = 0; i < 2; i++) {
			a[i].go = &go;
			a[i].rc = -EINPROGRESS;
			init_completion(&a[i].done);
			a[i].task = st_kthread(st_allocer_fn, &a[i], cpus[i]);
			if (IS_ERR(a[i].task))
				break;
		}
		if (i < 2) {
			if (i == 1)
				kthread_stop_put(a[0].task);
			KUNIT_FAIL_AND_ABORT(test, "cannot create the threads");
		}
		wake_up_process(a[0].task);
		wake_up_process(a[1].task);
		complete_all(&go);
		/* A kthread stopped before it ran never runs: wait for it first. */
		for (i = 0; i < 2; i++) {
			wait_for_completion(&a[i].done);
			kthread_stop_put(a[i].task);
		}

		KUNIT_EXPECT_EQ_MSG(test, a[0].rc, 0, "round %u", round);
		KUNIT_EXPECT_EQ_MSG(test, a[1].rc, 0, "round %u", round);
		KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
		st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
		if (round + 1 < ST_ALLOC_RACE_ROUNDS)
			snaptrace_free_snapshot(buf);
	}

	/* Swap the spare in and check it holds what the live half held. */
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	st_expect_live_capacity(test, buf, SNAPTRACE_MIN_SIZE);
}

/* ---- resize with a spare ---- */

/*
 * With a spare, a bad resize changes nothing, and a good one resizes both
 * halves, empties both, and zeroes their counters: each half then holds
 * exactly size / 64 records of 64 bytes.
 */
static void snap_resize_resizes_both_halves(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	const size_t size = 2 * SNAPTRACE_MIN_SIZE;
	unsigned int cap = size / st_rec_bytes(48);
	struct snaptrace_stats st;
	int cpu = st_cpu();

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 5, 48, 0).ok, 5);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 2, 48, 0).ok, 2);

	KUNIT_EXPECT_EQ(test, snaptrace_resize(buf, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_resize(buf, SNAPTRACE_MAX_SIZE + 1), -EINVAL);
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu).entries, 5);
	KUNIT_EXPECT_EQ(test, st_stats(test, buf, SNAPTRACE_LIVE, cpu).entries, 2);

	KUNIT_ASSERT_EQ(test, snaptrace_resize(buf, size), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_size_per_cpu(buf), size);
	KUNIT_EXPECT_TRUE(test, snaptrace_snapshot_is_allocated(buf));
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));

	st_expect_live_capacity(test, buf, size);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	st = st_stats(test, buf, SNAPTRACE_SNAPSHOT, cpu);
	KUNIT_EXPECT_EQ(test, st.entries, cap);
	KUNIT_EXPECT_EQ(test, st.overrun, 3);
	st_expect_half_empty(test, buf, SNAPTRACE_LIVE);
	st_expect_live_capacity(test, buf, size);
}

/* ---- iterators and replaced halves ---- */

/*
 * A snapshot while iterating the snapshot half, or the live half, makes
 * the iterator report -ESTALE.
 */
static void snap_iter_stale_after_snapshot(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	static const enum snaptrace_which halves[] = { SNAPTRACE_SNAPSHOT, SNAPTRACE_LIVE };
	struct snaptrace_record *rec = st_rec_new(test);
	struct snaptrace_iter *it;
	int cpu = st_cpu(), rc[3];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 40, 0).ok, 4);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	for (i = 0; i < ARRAY_SIZE(halves); i++) {
		KUNIT_ASSERT_EQ(test, st_write_n(test, buf, cpu, 4, 40, 10).ok, 4);
		it = snaptrace_iter_start(buf, halves[i], SNAPTRACE_ALL_CPUS);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
		rc[0] = snaptrace_iter_next(it, rec);
		rc[1] = snaptrace_snapshot(buf);
		rc[2] = snaptrace_iter_next(it, rec);
		snaptrace_iter_stop(it);
		KUNIT_EXPECT_EQ_MSG(test, rc[0], 0, "half %d", halves[i]);
		KUNIT_EXPECT_EQ_MSG(test, rc[1], 0, "half %d", halves[i]);
		KUNIT_EXPECT_EQ_MSG(test, rc[2], -ESTALE, "half %d", halves[i]);
	}
}

struct st_async {
	struct snaptrace_buffer *buf;
	int (*fn)(struct snaptrace_buffer *buf);
	int rc;
	struct completion done;
};

static int st_async_fn(void *data)
{
	struct st_async *as = data;

	as->rc = as->fn(as->buf);
	complete(&as->done);
	return 0;
}

/*
 * Runs @as->fn in a helper thread while the test holds @it, so a wrong
 * wait for the reader cannot hang the suite. True if it finished within
 * the bound; otherwise @it is stopped, the helper awaited, the test fails.
 */
static bool st_async_run(struct kunit *test, struct st_async *as,
			 struct snaptrace_iter *it)
{
	struct task_struct *t;
	unsigned int i;

	init_completion(&as->done);
	t = kthread_run(st_async_fn, as, "st_snap_async");
	if (IS_ERR(t)) {
		snaptrace_iter_stop(it);
		KUNIT_FAIL(test, "kthread_run: %pe", t);
		return false;
	}
	for (i = 0; i < ST_WAIT_LOOPS && !completion_done(&as->done); i++)
		usleep_range(1000, 2000);
	if (completion_done(&as->done))
		return true;
	snaptrace_iter_stop(it);
	wait_for_completion(&as->done);
	KUNIT_FAIL(test, "the operation waited for the open iterator");
	return false;
}

/* clear_snapshot() while iterating the snapshot half: -ESTALE. */
static void snap_iter_stale_after_clear(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct st_async as = { .buf = buf, .fn = snaptrace_clear_snapshot };
	struct snaptrace_iter *it;
	int rc;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	KUNIT_ASSERT_EQ(test, st_write_n(test, buf, st_cpu(), 4, 40, 0).ok, 4);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	it = snaptrace_iter_start(buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	rc = snaptrace_iter_next(it, rec);
	if (!st_async_run(test, &as, it))
		return;
	KUNIT_EXPECT_EQ(test, rc, 0);
	KUNIT_EXPECT_EQ(test, as.rc, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_iter_next(it, rec), -ESTALE);
	snaptrace_iter_stop(it);
	st_expect_half_empty(test, buf, SNAPTRACE_SNAPSHOT);
}

/* ---- racing the spare's life cycle against snapshots from a timer ---- */

struct st_race {
	struct snaptrace_buffer *buf;
	struct hrtimer timer;
	u32 irq_seq;		/* the timer's own sequence, pinned to one CPU */
	atomic_t ticks;
	atomic_t snap_ok;
	atomic_t snap_noent;
	atomic_t snap_busy;
	atomic_t unexpected;	/* an rc the spec does not allow, in the timer */
	/* the operations thread's findings */
	unsigned int op_errors;
	unsigned int first_round;
	int first_op;
	int first_rc;
	unsigned int records;
	unsigned int records_bad;
	unsigned int stale;
	u32 seq;
	struct completion done;
};

static enum hrtimer_restart st_race_tick(struct hrtimer *t)
{
	struct st_race *r = container_of(t, struct st_race, timer);
	u8 p[ST_PAYLOAD_MIN + 12];
	int rc;

	st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, smp_processor_id(), r->irq_seq++);
	rc = snaptrace_write(r->buf, p, sizeof(p));
	if (rc && rc != -ENOSPC && rc != -EBUSY)
		atomic_inc(&r->unexpected);
	rc = snaptrace_snapshot(r->buf);
	if (!rc)
		atomic_inc(&r->snap_ok);
	else if (rc == -ENOENT)
		atomic_inc(&r->snap_noent);
	else if (rc == -EBUSY)
		atomic_inc(&r->snap_busy);
	else
		atomic_inc(&r->unexpected);
	if (atomic_inc_return(&r->ticks) >= ST_RACE_TICKS)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(ST_RACE_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* Notes an operation result outside @ok1/@ok2 (the allowed ones). */
static void st_race_rc(struct st_race *r, unsigned int round, int op, int rc,
		       int ok1, int ok2)
{
	if (rc == ok1 || rc == ok2)
		return;
	if (!r->op_errors++) {
		r->first_round = round;
		r->first_op = op;
		r->first_rc = rc;
	}
}

/* Iterates a half: records intact, ended by -ENODATA or -ESTALE only. */
static int st_race_read(struct st_race *r, struct snaptrace_record *rec,
			enum snaptrace_which which)
{
	struct snaptrace_iter *it = snaptrace_iter_start(r->buf, which, SNAPTRACE_ALL_CPUS);
	struct st_hdr h;
	int rc;

	if (IS_ERR(it))
		return PTR_ERR(it);
	for (;;) {
		rc = snaptrace_iter_next(it, rec);
		if (rc)
			break;
		r->records++;
		if (!st_payload_ok(rec, &h))
			r->records_bad++;
	}
	snaptrace_iter_stop(it);
	if (rc == -ESTALE)
		r->stale++;
	return rc == -ESTALE ? -ENODATA : rc;
}

static int st_race_ops(void *data)
{
	struct st_race *r = data;
	struct snaptrace_buffer *buf = r->buf;
	struct snaptrace_record *rec = kmalloc(sizeof(*rec), GFP_KERNEL);
	u8 p[ST_PAYLOAD_MIN + 20];
	unsigned int round, i;
	struct st_hdr h;
	int rc;

	if (!rec) {
		st_race_rc(r, 0, 0, -ENOMEM, 0, 0);
		complete(&r->done);
		return 0;
	}
	for (round = 0; round < ST_RACE_ROUNDS; round++) {
		st_race_rc(r, round, 1, snaptrace_alloc_snapshot(buf), 0, 0);
		st_race_rc(r, round, 2, snaptrace_snapshot_is_allocated(buf), 1, 1);
		for (i = 0; i < 4; i++) {
			preempt_disable();
			st_payload_fill(p, sizeof(p), ST_MAGIC, smp_processor_id(), r->seq++);
			rc = snaptrace_write(buf, p, sizeof(p));
			preempt_enable();
			st_race_rc(r, round, 3, rc, 0, -ENOSPC);
		}
		st_race_rc(r, round, 4, snaptrace_snapshot(buf), 0, -EBUSY);
		st_race_rc(r, round, 5, st_race_read(r, rec, SNAPTRACE_SNAPSHOT), -ENODATA,
			   -ENODATA);
		st_race_rc(r, round, 6, snaptrace_clear_snapshot(buf), 0, 0);
		switch (round % 4) {
		case 0:
			rc = snaptrace_resize(buf, round & 4 ? SNAPTRACE_MIN_SIZE
						     : 2 * SNAPTRACE_MIN_SIZE);
			st_race_rc(r, round, 7, rc, 0, 0);
			break;
		case 1:
			snaptrace_free_snapshot(buf);
			snaptrace_free_snapshot(buf);
			st_race_rc(r, round, 8, snaptrace_snapshot_is_allocated(buf), 0, 0);
			st_race_rc(r, round, 9, snaptrace_snapshot(buf), -ENOENT, -EBUSY);
			break;
		case 2:
			st_race_rc(r, round, 10, snaptrace_snapshot_alloc(buf), 0, -EBUSY);
			break;
		default:
			snaptrace_reset(buf);
			break;
		}
		st_race_rc(r, round, 11, st_race_read(r, rec, SNAPTRACE_LIVE), -ENODATA,
			   -ENODATA);
		for (i = 0; i < 4; i++) {
			rc = snaptrace_consume(buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec);
			st_race_rc(r, round, 12, rc, 0, -ENODATA);
			if (rc)
				break;
			r->records++;
			if (!st_payload_ok(rec, &h))
				r->records_bad++;
		}
		cond_resched();
	}
	kfree(rec);
	complete(&r->done);
	return 0;
}

/*
 * alloc, snapshot, clear, free, snapshot_alloc, resize, reset, iterators
 * and consume, in rounds on one CPU, while an hrtimer on another writes
 * and snapshots: every result is one the spec allows, nothing read is
 * torn, and at rest the buffer is consistent and still records.
 */
static void snap_race_lifecycle_vs_timer(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, SNAPTRACE_MIN_SIZE,
						  SNAPTRACE_OVERWRITE);
	struct task_struct *ops;
	struct st_race *r;
	int tcpu, ocpu;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->buf = buf;
	init_completion(&r->done);
	hrtimer_init(&r->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	r->timer.function = st_race_tick;

	preempt_disable();
	tcpu = smp_processor_id();
	preempt_enable();
	ocpu = cpumask_any_but(cpu_online_mask, tcpu);
	if (ocpu >= nr_cpu_ids)
		ocpu = tcpu;
	ops = st_kthread(st_race_ops, r, ocpu);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ops), "kthread: %pe", ops);

	preempt_disable();
	hrtimer_start(&r->timer, ns_to_ktime(ST_RACE_PERIOD_NS), HRTIMER_MODE_REL_PINNED_HARD);
	preempt_enable();
	wake_up_process(ops);
	/* A kthread stopped before it ran never runs: wait for the work first. */
	wait_for_completion(&r->done);
	kthread_stop_put(ops);
	hrtimer_cancel(&r->timer);

	KUNIT_EXPECT_EQ_MSG(test, r->op_errors, 0, "first: round %u op %d rc %d",
			    r->first_round, r->first_op, r->first_rc);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->unexpected), 0);
	KUNIT_EXPECT_EQ(test, r->records_bad, 0);
	kunit_info(test, "timer: %d snapshots, %d -ENOENT, %d -EBUSY; %u records read, %u stale\n",
		   atomic_read(&r->snap_ok), atomic_read(&r->snap_noent),
		   atomic_read(&r->snap_busy), r->records, r->stale);

	KUNIT_EXPECT_TRUE(test, snaptrace_record_is_on(buf));
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
	st_expect_half_sane(test, buf, SNAPTRACE_SNAPSHOT);
	KUNIT_EXPECT_EQ(test, st_write_n(test, buf, st_cpu(), 3, 40, 0).ok, 3);
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), 0);
}

static struct kunit_case snaptrace_snapshot_cases[] = {
	KUNIT_CASE(snap_spare_is_lazy),
	KUNIT_CASE(snap_without_spare_misses),
	KUNIT_CASE(snap_stop_on_miss_marks_and_stops),
	KUNIT_CASE(snap_alloc_is_idempotent_and_takes_none),
	KUNIT_CASE(snap_swaps_halves),
	KUNIT_CASE(snap_second_replaces_first),
	KUNIT_CASE(snap_consume_reads_snapshot),
	KUNIT_CASE(snap_iter_is_non_consuming),
	KUNIT_CASE(snap_in_softirq),
	KUNIT_CASE(snap_in_hardirq_timer),
	KUNIT_CASE(snap_in_irq_work),
	KUNIT_CASE(snap_in_irqs_off),
	KUNIT_CASE(snap_in_nmi),
	KUNIT_CASE(snap_miss_with_stop_in_nmi),
	KUNIT_CASE(snap_irq_work_in_reservation),
	KUNIT_CASE(snap_nmi_in_reservation),
	KUNIT_CASE(snap_clear_empties_spare),
	KUNIT_CASE(snap_free_then_snapshot_misses),
	KUNIT_CASE(snap_snapshot_alloc_allocates_and_swaps),
	KUNIT_CASE(snap_concurrent_alloc_single_spare),
	KUNIT_CASE(snap_resize_resizes_both_halves),
	KUNIT_CASE(snap_iter_stale_after_snapshot),
	KUNIT_CASE(snap_iter_stale_after_clear),
	KUNIT_CASE_SLOW(snap_race_lifecycle_vs_timer),
	{}
};

static struct kunit_suite snaptrace_snapshot_suite = {
	.name = "snaptrace_snapshot",
	.test_cases = snaptrace_snapshot_cases,
};

kunit_test_suites(&snaptrace_snapshot_suite);
