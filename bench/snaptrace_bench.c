// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace_bench: snaptrace's ring buffer and snapshot against the
 * kernel's (ftrace's), in the same boot, the same loop and the same context.
 *
 * Loading the module runs one test, chosen with test=, and prints one line
 * per measurement:
 *
 *	BENCH {"t":"write","impl":"ours",...}
 *
 * a JSON object the host collects from the console (scripts/bench.sh). The
 * module only measures and prints: medians, ratios and goals are worked
 * out on the host, and nothing here judges a number. It stays loaded after
 * its test (rmmod it); test=clock runs nothing and only offers now_ns, a
 * clock for timing things from user space.
 *
 * Tests (the parameters they read in brackets):
 *
 *	info	the clock: overhead of a local_clock() pair, resolution
 *	write	ns per record of reserve + copy of the payload + commit, ours
 *		(snaptrace_reserve/commit) against ring_buffer_lock_reserve/
 *		unlock_commit on a ring_buffer_alloc() buffer of the same size,
 *		both in overwrite mode and wrapping (filled before timing), in
 *		each context of contexts= (payloads, runs, records, buf_kb,
 *		cpu, contexts); with buffer=default, ours is snaptrace's
 *		default buffer as loaded (its size and persistence are the
 *		caller's: the persistence row), each line then tagged with
 *		tag= (buffer, tag)
 *	read	MB/s of a consuming read of a full buffer:
 *		snaptrace_consume_batch() (64 records a call) against
 *		ring_buffer_consume(), payloads copied out by both
 *		(payloads, runs, buf_kb, cpu)
 *	space	bytes a record takes and records a buffer holds: ours and
 *		a ring_buffer_alloc() buffer of the same size, both in
 *		stop-when-full mode, are filled on cpu= until a reservation
 *		fails, and the entries counted; for each payload size, then
 *		(mix=1) for a fixed mix of sizes (bench_mix[]); with the
 *		memory ftrace's buffer takes (payloads, buf_kb, cpu, mix)
 *	snap	one run: time and memory of snaptrace_buffer_alloc() and
 *		snaptrace_alloc_snapshot() at size_kb per CPU, then the time
 *		snaptrace_snapshot() takes with IRQs off around it; then the
 *		same for tracing_alloc_snapshot() and tracing_snapshot() on the
 *		global trace buffer, which the caller has resized to ft_kb and
 *		whose snapshot it frees after (size_kb, ft_kb, ftrace, calls,
 *		run_id)
 *	clock	nothing: read /sys/module/snaptrace_bench/parameters/now_ns
 *
 * The contexts of the write test:
 *
 *	task	a kthread bound to cpu=, preemption and IRQs on
 *	all	one bound kthread per online CPU, released together
 *	irqoff	the kthread of task, the whole loop with IRQs off
 *	hardirq	the loop in an IPI handler on cpu= (smp_call_function_single()
 *		from a kthread on another CPU)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/preempt.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <linux/vmstat.h>

#include <snaptrace/snaptrace.h>
#include "snaptrace_bench.h"

#define BENCH_MAX_PAYLOADS	8
#define BENCH_MAX_LEN		2048
#define BENCH_SNAP_WARM		2
#define BENCH_MAX_CALLS		256
/* Memory left free for the rest of the guest when allocating buffers. */
#define BENCH_MARGIN_KIB	(96UL << 10)

/*
 * The kernel's ring buffer API as Debian 12's stock 6.1 has it (make bench
 * BENCH_ARCH=arm64): ring_buffer_unlock_commit() took the event too, and
 * a sub-buffer was one page, before its size could be set
 * (ring_buffer_subbuf_size_get()). Probed in the headers (Kbuild).
 */
static __always_inline void bench_rb_commit(struct trace_buffer *b,
					    struct ring_buffer_event *ev)
{
#ifdef BENCH_HAVE_RB_COMMIT_BUFFER
	ring_buffer_unlock_commit(b);
#else
	ring_buffer_unlock_commit(b, ev);
#endif
}

static int bench_rb_subbuf_size(struct trace_buffer *b)
{
#ifdef BENCH_HAVE_RB_SUBBUF_SIZE
	return ring_buffer_subbuf_size_get(b);
#else
	return PAGE_SIZE;
#endif
}

static char *test = "info";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "What to run: info, write, read, space, snap or clock (default info)");

static unsigned int payloads[BENCH_MAX_PAYLOADS] = { 8, 64, 512 };
static int nr_payloads = 3;
module_param_array(payloads, uint, &nr_payloads, 0444);
MODULE_PARM_DESC(payloads, "Payload sizes in bytes, 1..2048 (default 8,64,512)");

static bool mix = true;
module_param(mix, bool, 0444);
MODULE_PARM_DESC(mix, "space: also fill with the fixed mix of payload sizes (default 1)");

static unsigned int runs = 7;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "Timed runs of each write and read measurement (default 7)");

static unsigned long records = 200000;
module_param(records, ulong, 0444);
MODULE_PARM_DESC(records, "Records written per timed write run, per CPU (default 200000)");

static unsigned int buf_kb = 1024;
module_param(buf_kb, uint, 0444);
MODULE_PARM_DESC(buf_kb, "Per-CPU size in KiB of the buffers of the write, read and space tests (default 1024)");

static unsigned int cpu = 1;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "CPU of the one-CPU contexts (default 1; the first online CPU if offline)");

static char *contexts = "task,all,irqoff,hardirq";
module_param(contexts, charp, 0444);
MODULE_PARM_DESC(contexts, "Contexts of the write test, comma-separated (default task,all,irqoff,hardirq)");

static char *buffer = "own";
module_param(buffer, charp, 0444);
MODULE_PARM_DESC(buffer, "write: own (a buffer of buf_kb per CPU) or default (snaptrace's default buffer, as loaded)");

static char *tag = "";
module_param(tag, charp, 0444);
MODULE_PARM_DESC(tag, "write: a label copied into each line (the persistence row: plain or armed)");

static unsigned int size_kb = 64;
module_param(size_kb, uint, 0444);
MODULE_PARM_DESC(size_kb, "snap: per-CPU size in KiB of our buffer (default 64)");

static unsigned int ft_kb;
module_param(ft_kb, uint, 0444);
MODULE_PARM_DESC(ft_kb, "snap: per-CPU size in KiB of the global trace buffer, as resized by the caller (default: size_kb)");

static bool ftrace = true;
module_param(ftrace, bool, 0444);
MODULE_PARM_DESC(ftrace, "snap: also measure tracing_alloc_snapshot() and tracing_snapshot() (default 1)");

static unsigned int calls = 16;
module_param(calls, uint, 0444);
MODULE_PARM_DESC(calls, "snap: timed snapshot calls per run (default 16, max 256)");

static unsigned int run_id;
module_param(run_id, uint, 0444);
MODULE_PARM_DESC(run_id, "snap: run number, printed with the results");

static int bench_now_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%llu\n", local_clock());
}

static const struct kernel_param_ops bench_now_ops = {
	.get = bench_now_get,
};

module_param_cb(now_ns, &bench_now_ops, NULL, 0444);
MODULE_PARM_DESC(now_ns, "Reading it gives local_clock() in ns");

enum bench_impl {
	IMPL_OURS,
	IMPL_FTRACE,
};

static const char * const bench_impl_name[] = { "ours", "ftrace" };

enum bench_ctx {
	CTX_TASK,
	CTX_ALL,
	CTX_IRQOFF,
	CTX_HARDIRQ,
	CTX_NR,
};

static const char * const bench_ctx_name[] = { "task", "all", "irqoff", "hardirq" };

/* The buffers of the write and read tests, allocated once per load. */
static struct snaptrace_buffer *bench_ours;
/* Is ours snaptrace's default buffer (buffer=default, write test only)? */
static bool bench_default;
static struct trace_buffer *bench_ft;
static u8 bench_src[BENCH_MAX_LEN] __aligned(8);

/* ------------------------------------------------------------------ */
/* Helpers */

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v in place; returns its median. */
static u64 bench_median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), bench_cmp_u64, NULL);
	return n ? v[n / 2] : 0;
}

/*
 * Free memory in KiB: the free pages of every zone, with the pages on the
 * per-CPU free lists (which si_meminfo() and MemFree leave out, and which
 * hold tens of MiB after a large free) and the per-CPU counter deltas.
 */
static unsigned long bench_free_kib(void)
{
	unsigned long pages = 0;
	struct zone *zone;
	int nid, z, c;

	for_each_online_node(nid) {
		for (z = 0; z < MAX_NR_ZONES; z++) {
			zone = &NODE_DATA(nid)->node_zones[z];
			if (!populated_zone(zone))
				continue;
			pages += zone_page_state_snapshot(zone, NR_FREE_PAGES);
			for_each_online_cpu(c)
				pages += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset, c)->count);
		}
	}
	return pages << (PAGE_SHIFT - 10);
}

/*
 * Record size in our ring, the smallest it can be (compact records: a
 * 4-byte header for data payloads of 4-byte multiples up to 108 bytes, 8
 * otherwise; payload padded to 4): used to size warm-ups and reads to at
 * least the records a ring holds.
 */
static size_t bench_rec_ours(size_t len)
{
	return (len % 4 || len > 108 ? 8 : 4) + ALIGN(len, 4);
}

/* ------------------------------------------------------------------ */
/* Running a function on a CPU, in a kthread */

struct bench_job {
	void (*fn)(void *arg);
	void *arg;
	struct task_struct *task;
	struct completion done;
};

static int bench_thread(void *data)
{
	struct bench_job *job = data;

	job->fn(job->arg);
	complete(&job->done);
	return 0;
}

/* Creates the kthread bound to @where, not started yet. */
static int bench_job_create(struct bench_job *job, unsigned int where,
			    void (*fn)(void *arg), void *arg)
{
	job->fn = fn;
	job->arg = arg;
	init_completion(&job->done);
	job->task = kthread_create_on_cpu(bench_thread, job, where, "stbench/%u");
	if (IS_ERR(job->task))
		return PTR_ERR(job->task);
	return 0;
}

static int bench_run_on(unsigned int where, void (*fn)(void *arg), void *arg)
{
	struct bench_job job;
	int ret;

	ret = bench_job_create(&job, where, fn, arg);
	if (ret)
		return ret;
	wake_up_process(job.task);
	wait_for_completion(&job.done);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The write loop: the same for both, in every context */

struct bench_w {
	enum bench_impl impl;
	size_t len;
	unsigned long n;
	/* results */
	u64 ns;
	unsigned long fail;
	bool hardirq;
	int cpu;
	/* CTX_ALL: released together */
	atomic_t *ready;
	unsigned int nready;
};

static noinline void bench_loop(struct bench_w *w)
{
	unsigned long i, fail = 0;
	size_t len = w->len;
	u64 t0, t1;

	t0 = local_clock();
	if (w->impl == IMPL_OURS) {
		struct snaptrace_buffer *b = bench_ours;
		struct snaptrace_reservation res;
		void *p;

		for (i = 0; i < w->n; i++) {
			p = snaptrace_reserve(b, len, &res);
			if (unlikely(!p)) {
				fail++;
				continue;
			}
			memcpy(p, bench_src, len);
			snaptrace_commit(b, &res);
		}
	} else {
		struct trace_buffer *b = bench_ft;
		struct ring_buffer_event *ev;

		for (i = 0; i < w->n; i++) {
			ev = ring_buffer_lock_reserve(b, len);
			if (unlikely(!ev)) {
				fail++;
				continue;
			}
			memcpy(ring_buffer_event_data(ev), bench_src, len);
			bench_rb_commit(b, ev);
		}
	}
	t1 = local_clock();
	w->ns = t1 - t0;
	w->fail = fail;
	w->hardirq = in_hardirq();
	w->cpu = raw_smp_processor_id();
}

static void bench_loop_task(void *arg)
{
	bench_loop(arg);
}

static void bench_loop_irqoff(void *arg)
{
	unsigned long flags;

	local_irq_save(flags);
	bench_loop(arg);
	local_irq_restore(flags);
}

struct bench_ipi {
	struct bench_w *w;
	unsigned int target;
	struct completion done;
	int ret;
};

/* Runs in the IPI handler (hardirq) of the target CPU. */
static void bench_loop_ipi(void *arg)
{
	struct bench_ipi *ipi = arg;

	bench_loop(ipi->w);
	complete(&ipi->done);
}

/*
 * Sends the IPI without waiting in smp_call_function_single() (which would
 * spin, and a spinning vCPU takes a host CPU from the one measured): the
 * sender sleeps until the handler is done.
 */
static void bench_send_ipi(void *arg)
{
	struct bench_ipi *ipi = arg;

	init_completion(&ipi->done);
	ipi->ret = smp_call_function_single(ipi->target, bench_loop_ipi, ipi, 0);
	if (!ipi->ret)
		wait_for_completion(&ipi->done);
}

static void bench_loop_all(void *arg)
{
	struct bench_w *w = arg;

	atomic_inc(w->ready);
	while (atomic_read(w->ready) < w->nready)
		cpu_relax();
	bench_loop(w);
}

/* Another online CPU than @c, or nr_cpu_ids. */
static unsigned int bench_other_cpu(unsigned int c)
{
	return cpumask_any_but(cpu_online_mask, c);
}

/*
 * Runs the loop of @proto in @ctx; fills @w (one per online CPU for
 * CTX_ALL, indexed by CPU) and returns how many were filled, or -errno.
 */
static int bench_write_ctx(enum bench_ctx ctx, const struct bench_w *proto,
			   struct bench_w *w)
{
	struct bench_job *jobs;
	struct bench_ipi ipi;
	atomic_t ready;
	unsigned int c, n = 0;
	int ret = 0;

	switch (ctx) {
	case CTX_TASK:
	case CTX_IRQOFF:
		w[0] = *proto;
		ret = bench_run_on(cpu, ctx == CTX_TASK ? bench_loop_task :
				   bench_loop_irqoff, &w[0]);
		return ret ? ret : 1;
	case CTX_HARDIRQ:
		w[0] = *proto;
		ipi.w = &w[0];
		ipi.target = cpu;
		c = bench_other_cpu(cpu);
		if (c >= nr_cpu_ids)
			return -ENODEV;
		ret = bench_run_on(c, bench_send_ipi, &ipi);
		if (!ret)
			ret = ipi.ret;
		return ret ? ret : 1;
	case CTX_ALL:
		break;
	default:
		return -EINVAL;
	}

	jobs = kcalloc(nr_cpu_ids, sizeof(*jobs), GFP_KERNEL);
	if (!jobs)
		return -ENOMEM;
	atomic_set(&ready, 0);
	for_each_online_cpu(c) {
		w[c] = *proto;
		w[c].ready = &ready;
		w[c].nready = num_online_cpus();
		ret = bench_job_create(&jobs[c], c, bench_loop_all, &w[c]);
		if (ret)
			break;
		n++;
	}
	for_each_online_cpu(c) {
		if (IS_ERR_OR_NULL(jobs[c].task))
			continue;
		if (ret)
			kthread_stop(jobs[c].task);	/* never ran: fn not called */
		else
			wake_up_process(jobs[c].task);
	}
	if (!ret) {
		for_each_online_cpu(c)
			wait_for_completion(&jobs[c].done);
	}
	kfree(jobs);
	return ret ? ret : nr_cpu_ids;
}

static bool bench_ctx_wanted(enum bench_ctx ctx)
{
	const char *p = contexts, *name = bench_ctx_name[ctx];
	size_t l = strlen(name);

	while (p && *p) {
		if (!strncmp(p, name, l) && (p[l] == ',' || !p[l]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

static void bench_print_w(const struct bench_w *w, enum bench_ctx ctx,
			  unsigned int run)
{
	pr_info("BENCH {\"t\":\"write\",\"impl\":\"%s\",\"ctx\":\"%s\",\"len\":%zu,\"run\":%u,\"cpu\":%d,\"n\":%lu,\"ns\":%llu,\"fail\":%lu,\"hardirq\":%d,\"tag\":\"%s\"}\n",
		bench_impl_name[w->impl], bench_ctx_name[ctx], w->len, run,
		w->cpu, w->n, w->ns, w->fail, w->hardirq, tag);
}

static int bench_write_one(enum bench_ctx ctx, enum bench_impl impl,
			   size_t len, unsigned long n, int run,
			   struct bench_w *w)
{
	struct bench_w proto = { .impl = impl, .len = len, .n = n };
	unsigned int c;
	int ret;

	if (bench_default && impl == IMPL_FTRACE)	/* ours only */
		return 0;

	memset(w, 0, nr_cpu_ids * sizeof(*w));
	ret = bench_write_ctx(ctx, &proto, w);
	if (ret < 0) {
		pr_info("BENCH {\"t\":\"write\",\"impl\":\"%s\",\"ctx\":\"%s\",\"len\":%zu,\"run\":%d,\"error\":%d}\n",
			bench_impl_name[impl], bench_ctx_name[ctx], len, run, ret);
		return ret;
	}
	if (run < 0)	/* warm-up */
		return 0;
	for (c = 0; c < ret; c++)
		if (w[c].n)
			bench_print_w(&w[c], ctx, run);
	return 0;
}

static int bench_write(void)
{
	unsigned long cap = (unsigned long)buf_kb << 10, warm;
	struct bench_w *w;
	unsigned int i, r;
	enum bench_ctx ctx;
	int k, ret = 0;

	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	for (i = 0; i < nr_payloads; i++) {
		size_t len = payloads[i];

		/* Fill both buffers so that every timed run wraps. */
		warm = 2 * cap / bench_rec_ours(len) + 64;
		for (ctx = 0; ctx < CTX_NR; ctx++) {
			if (!bench_ctx_wanted(ctx))
				continue;
			for (k = 0; k < 2; k++)
				bench_write_one(ctx, k, len, warm, -1, w);
			cond_resched();
		}
		for (r = 0; r < runs; r++) {
			for (ctx = 0; ctx < CTX_NR; ctx++) {
				if (!bench_ctx_wanted(ctx))
					continue;
				/* Alternate who goes first, run by run. */
				for (k = 0; k < 2; k++)
					bench_write_one(ctx, (k + r) & 1, len,
							records, r, w);
				cond_resched();
			}
		}
	}
	kfree(w);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Consuming read of a full buffer */

/* Records our side of the read benchmark takes per snaptrace_consume_batch(). */
#define BENCH_READ_BATCH	64

struct bench_rd {
	enum bench_impl impl;
	size_t len;
	unsigned int run;
	struct snaptrace_record *rec;	/* BENCH_READ_BATCH of them */
	/* results */
	unsigned long n;
	u64 bytes;
	u64 ns;
};

static void bench_read_job(void *arg)
{
	struct bench_rd *rd = arg;
	struct bench_w w = {
		.impl = rd->impl,
		.len = rd->len,
		.n = 2 * ((unsigned long)buf_kb << 10) / bench_rec_ours(rd->len) + 64,
	};
	struct ring_buffer_event *ev;
	int c = raw_smp_processor_id();
	u64 t0, t1, ts, bytes = 0;
	unsigned long n = 0, lost;
	unsigned int l;
	int i, k;

	bench_loop(&w);		/* fill: wraps, so the buffer is full */
	t0 = local_clock();
	if (rd->impl == IMPL_OURS) {
		while ((k = snaptrace_consume_batch(bench_ours, SNAPTRACE_LIVE, c,
						    rd->rec, BENCH_READ_BATCH)) > 0) {
			for (i = 0; i < k; i++)
				bytes += rd->rec[i].len;
			n += k;
		}
	} else {
		while ((ev = ring_buffer_consume(bench_ft, c, &ts, &lost))) {
			l = min_t(unsigned int, ring_buffer_event_length(ev),
				  SNAPTRACE_MAX_PAYLOAD);
			memcpy(rd->rec->data, ring_buffer_event_data(ev), l);
			n++;
			bytes += rd->len;	/* l is padded: count the payload */
		}
	}
	t1 = local_clock();
	rd->n = n;
	rd->bytes = bytes;
	rd->ns = t1 - t0;
}

static int bench_read(void)
{
	struct bench_rd rd = { };
	unsigned int i, r;
	int k, ret = 0;

	rd.rec = kvmalloc_array(BENCH_READ_BATCH, sizeof(*rd.rec), GFP_KERNEL);
	if (!rd.rec)
		return -ENOMEM;
	for (i = 0; i < nr_payloads && !ret; i++) {
		for (r = 0; r < runs && !ret; r++) {
			for (k = 0; k < 2 && !ret; k++) {
				rd.impl = (k + r) & 1;
				rd.len = payloads[i];
				ret = bench_run_on(cpu, bench_read_job, &rd);
				if (ret)
					break;
				pr_info("BENCH {\"t\":\"read\",\"impl\":\"%s\",\"len\":%zu,\"run\":%u,\"n\":%lu,\"bytes\":%llu,\"ns\":%llu}\n",
					bench_impl_name[rd.impl], rd.len, r, rd.n,
					rd.bytes, rd.ns);
			}
			cond_resched();
		}
	}
	kvfree(rd.rec);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Space per record: fill until full, count */

/*
 * The mix of the space test: payload sizes, written in this order over
 * and over, the same sequence into both buffers. Weighted toward small
 * records as a trace is (event fields of a few words, function entries
 * of two pointers, short trace_marker strings of any length, an odd
 * large one): 5 of 16 are 8 bytes, 9 of 16 at most 16, 2 not a multiple
 * of 4; 574 bytes per 16 records, 35.9 on average.
 */
static const u16 bench_mix[] = {
	8, 16, 8, 24, 8, 16, 13, 64, 8, 16, 32, 8, 20, 37, 96, 200,
};

/*
 * Bytes at the start of each of ftrace's sub-buffers before its data:
 * offsetof(struct buffer_data_page, data) in kernel/trace/ring_buffer.c
 * (u64 time_stamp, local_t commit), which no header exports. A sub-buffer
 * holds bench_rb_subbuf_size() minus this of records.
 */
#define BENCH_RB_PAGE_HDR	16

struct bench_sp {
	size_t len;		/* 0: the mix */
	unsigned long written;
	u64 payload;		/* bytes of payload written */
	unsigned int ev_len;
	int cpu;
};

static size_t bench_sp_len(const struct bench_sp *sp, unsigned long i)
{
	return sp->len ? sp->len : bench_mix[i % ARRAY_SIZE(bench_mix)];
}

/* More records than fit: each takes more than 4 bytes in either. */
static unsigned long bench_sp_limit(void)
{
	return ((unsigned long)buf_kb << 10) / 4 + 16;
}

static void bench_space_ours(void *arg)
{
	struct bench_sp *sp = arg;
	struct snaptrace_reservation res;
	unsigned long limit = bench_sp_limit();
	size_t len;
	void *p;

	sp->cpu = raw_smp_processor_id();
	for (sp->written = 0; sp->written < limit; sp->written++) {
		len = bench_sp_len(sp, sp->written);
		p = snaptrace_reserve(bench_ours, len, &res);
		if (!p)
			break;
		memcpy(p, bench_src, len);
		snaptrace_commit(bench_ours, &res);
		sp->payload += len;
	}
}

static void bench_space_ft(void *arg)
{
	struct bench_sp *sp = arg;
	unsigned long limit = bench_sp_limit();
	struct ring_buffer_event *ev;
	size_t len;

	sp->cpu = raw_smp_processor_id();
	for (sp->written = 0; sp->written < limit; sp->written++) {
		len = bench_sp_len(sp, sp->written);
		ev = ring_buffer_lock_reserve(bench_ft, len);
		if (!ev)
			break;
		if (!sp->written)
			sp->ev_len = ring_buffer_event_length(ev);
		memcpy(ring_buffer_event_data(ev), bench_src, len);
		bench_rb_commit(bench_ft, ev);
		sp->payload += len;
	}
}

/*
 * What ftrace's buffer takes: per CPU that has one, its ring's sub-buffers
 * (ring_buffer_size() / what each holds) and the reader's one more, each
 * bench_rb_subbuf_size() bytes. Their struct buffer_page (a cache
 * line each) and the per-CPU structures are left out, as ours are.
 */
static void bench_ft_memory(struct trace_buffer *b, int c,
			    unsigned long *pages, unsigned long *mem_cpu,
			    unsigned long *mem_total, unsigned int *cpus)
{
	unsigned long sub = bench_rb_subbuf_size(b);
	unsigned long cap = sub - BENCH_RB_PAGE_HDR;
	unsigned long n;
	int i;

	*pages = ring_buffer_size(b, c) / cap;
	*mem_cpu = (*pages + 1) * sub;
	*mem_total = 0;
	*cpus = 0;
	for_each_possible_cpu(i) {
		n = ring_buffer_size(b, i) / cap;
		if (!n)
			continue;
		*mem_total += (n + 1) * sub;
		(*cpus)++;
	}
}

static int bench_space_one(size_t len)
{
	size_t size = (size_t)buf_kb << 10;
	unsigned long pages, mem_cpu, mem_total;
	struct snaptrace_stats st;
	struct bench_sp sp;
	unsigned int cpus;
	int ret;

	memset(&sp, 0, sizeof(sp));
	sp.len = len;
	bench_ours = snaptrace_buffer_alloc(size, SNAPTRACE_STOP_WHEN_FULL);
	if (IS_ERR(bench_ours)) {
		ret = PTR_ERR(bench_ours);
		bench_ours = NULL;
		return ret;
	}
	ret = bench_run_on(cpu, bench_space_ours, &sp);
	if (!ret)
		ret = snaptrace_cpu_stats(bench_ours, SNAPTRACE_LIVE, sp.cpu,
					  &st);
	if (!ret)
		pr_info("BENCH {\"t\":\"space\",\"impl\":\"ours\",\"len\":%zu,\"size\":%zu,\"written\":%lu,\"entries\":%llu,\"bytes\":%llu,\"payload\":%llu}\n",
			sp.len, snaptrace_size_per_cpu(bench_ours), sp.written,
			st.entries, st.bytes, sp.payload);
	snaptrace_buffer_free(bench_ours);
	bench_ours = NULL;
	if (ret)
		return ret;

	memset(&sp, 0, sizeof(sp));
	sp.len = len;
	bench_ft = ring_buffer_alloc(size, 0);
	if (!bench_ft)
		return -ENOMEM;
	ret = bench_run_on(cpu, bench_space_ft, &sp);
	if (!ret) {
		bench_ft_memory(bench_ft, sp.cpu, &pages, &mem_cpu, &mem_total,
				&cpus);
		pr_info("BENCH {\"t\":\"space\",\"impl\":\"ftrace\",\"len\":%zu,\"size\":%zu,\"rb_size\":%lu,\"written\":%lu,\"entries\":%lu,\"payload\":%llu,\"ev_len\":%u,\"subbuf\":%d,\"pages\":%lu,\"mem_cpu\":%lu,\"mem_total\":%lu,\"cpus\":%u}\n",
			sp.len, size, ring_buffer_size(bench_ft, sp.cpu),
			sp.written, ring_buffer_entries_cpu(bench_ft, sp.cpu),
			sp.payload, sp.ev_len,
			bench_rb_subbuf_size(bench_ft), pages, mem_cpu,
			mem_total, cpus);
	}
	ring_buffer_free(bench_ft);
	bench_ft = NULL;
	return ret;
}

/* Each payload size of payloads=, then the mix (len 0) when mix=1. */
static int bench_space(void)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < nr_payloads && !ret; i++)
		ret = bench_space_one(payloads[i]);
	if (!ret && mix)
		ret = bench_space_one(0);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Snapshot: allocation, memory, latency */

struct bench_lat {
	u64 min, med, max;
	int err;
};

/*
 * Times @calls snapshots, each one alone with IRQs off around it (the time
 * it keeps IRQs off, as seen by this CPU), after a few untimed ones.
 */
static void bench_time_snapshots(struct snaptrace_buffer *b, u64 *lat,
				 struct bench_lat *res)
{
	unsigned long flags;
	unsigned int i, n = min(calls, BENCH_MAX_CALLS);
	u64 t0, t1;
	int ret = 0;

	for (i = 0; i < BENCH_SNAP_WARM + n; i++) {
		local_irq_save(flags);
		t0 = local_clock();
		if (b)
			ret = snaptrace_snapshot(b);
		else
			tracing_snapshot();
		t1 = local_clock();
		local_irq_restore(flags);
		if (ret && !res->err)
			res->err = ret;
		if (i >= BENCH_SNAP_WARM)
			lat[i - BENCH_SNAP_WARM] = t1 - t0;
	}
	res->med = bench_median(lat, n);
	res->min = lat[0];
	res->max = lat[n - 1];
}

static void bench_print_snap(const char *impl, unsigned int kb,
			     const struct bench_lat *l)
{
	pr_info("BENCH {\"t\":\"snap\",\"impl\":\"%s\",\"size_kb\":%u,\"run\":%u,\"calls\":%u,\"min\":%llu,\"med\":%llu,\"max\":%llu,\"err\":%d}\n",
		impl, kb, run_id, min(calls, BENCH_MAX_CALLS), l->min, l->med,
		l->max, l->err);
}

static void bench_print_skip(const char *t, const char *impl, unsigned int kb,
			     unsigned long need_kib, unsigned long free_kib)
{
	pr_info("BENCH {\"t\":\"%s\",\"impl\":\"%s\",\"size_kb\":%u,\"run\":%u,\"skip\":\"memory\",\"need_kib\":%lu,\"free_kib\":%lu}\n",
		t, impl, kb, run_id, need_kib, free_kib);
}

static int bench_snap_ours(u64 *lat)
{
	unsigned long ncpu = num_possible_cpus(), need, m0, m1, m2, m3;
	size_t size = (size_t)size_kb << 10;
	struct snaptrace_buffer *b;
	struct bench_lat l = { };
	u64 t0, t1, t2, t3;
	unsigned int i;
	int ret;

	need = 2 * ncpu * size_kb + BENCH_MARGIN_KIB;
	m0 = bench_free_kib();
	if (m0 < need) {
		bench_print_skip("alloc", "ours", size_kb, need, m0);
		bench_print_skip("snap", "ours", size_kb, need, m0);
		return 0;
	}
	t0 = local_clock();
	b = snaptrace_buffer_alloc(size, SNAPTRACE_OVERWRITE);
	t1 = local_clock();
	if (IS_ERR(b))
		return PTR_ERR(b);
	m1 = bench_free_kib();
	for (i = 0; i < 1000; i++)	/* something to snapshot */
		snaptrace_write(b, bench_src, 64);
	t2 = local_clock();
	ret = snaptrace_alloc_snapshot(b);
	t3 = local_clock();
	m2 = bench_free_kib();
	if (!ret)
		bench_time_snapshots(b, lat, &l);
	snaptrace_buffer_free(b);
	m3 = bench_free_kib();
	if (ret)
		return ret;
	pr_info("BENCH {\"t\":\"alloc\",\"impl\":\"ours\",\"size_kb\":%u,\"run\":%u,\"cpus\":%lu,\"buf_ns\":%llu,\"buf_kib\":%ld,\"spare_ns\":%llu,\"spare_kib\":%ld,\"freed_kib\":%ld}\n",
		size_kb, run_id, ncpu, t1 - t0, (long)(m0 - m1), t3 - t2,
		(long)(m1 - m2), (long)(m3 - m2));
	bench_print_snap("ours", size_kb, &l);
	return 0;
}

static int bench_snap_ftrace(u64 *lat)
{
	unsigned long ncpu = num_possible_cpus(), need, m0, m1;
	unsigned int kb = ft_kb ? ft_kb : size_kb;
	struct bench_lat l = { };
	u64 t0, t1;
	int ret;

	need = ncpu * kb + BENCH_MARGIN_KIB;
	m0 = bench_free_kib();
	if (m0 < need) {
		/* tracing_alloc_snapshot() WARNs when it runs out of memory. */
		bench_print_skip("alloc", "ftrace", kb, need, m0);
		bench_print_skip("snap", "ftrace", kb, need, m0);
		return 0;
	}
	t0 = local_clock();
	ret = tracing_alloc_snapshot();
	t1 = local_clock();
	m1 = bench_free_kib();
	if (ret)
		return ret;
	bench_time_snapshots(NULL, lat, &l);
	pr_info("BENCH {\"t\":\"alloc\",\"impl\":\"ftrace\",\"size_kb\":%u,\"run\":%u,\"cpus\":%lu,\"spare_ns\":%llu,\"spare_kib\":%ld}\n",
		kb, run_id, ncpu, t1 - t0, (long)(m0 - m1));
	bench_print_snap("ftrace", kb, &l);
	return 0;
}

static int bench_snap(void)
{
	u64 *lat;
	int ret;

	if (!calls || size_kb == 0)
		return -EINVAL;
	lat = kcalloc(BENCH_MAX_CALLS, sizeof(*lat), GFP_KERNEL);
	if (!lat)
		return -ENOMEM;
	ret = bench_snap_ours(lat);
	if (!ret && ftrace)
		ret = bench_snap_ftrace(lat);
	kfree(lat);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The clock */

static int bench_info(void)
{
	u64 d[129], t0, t1, res = U64_MAX;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		t0 = local_clock();
		t1 = local_clock();
		d[i] = t1 - t0;
		if (d[i] && d[i] < res)
			res = d[i];
	}
	pr_info("BENCH {\"t\":\"info\",\"kernel\":\"%s\",\"online\":%u,\"possible\":%u,\"hz\":%d,\"page\":%lu,\"clock_pair_ns\":%llu,\"clock_res_ns\":%llu}\n",
		init_utsname()->release, num_online_cpus(), num_possible_cpus(),
		HZ, PAGE_SIZE, bench_median(d, ARRAY_SIZE(d)), res);
	return 0;
}

/* ------------------------------------------------------------------ */

static int bench_alloc_buffers(void)
{
	size_t size = (size_t)buf_kb << 10;

	if (bench_default) {
		/* A reference on the default instance: put in bench_free_buffers(). */
		bench_ours = snaptrace_get_by_name(NULL, 0);
		if (!IS_ERR(bench_ours))
			size = snaptrace_size_per_cpu(bench_ours);
	} else {
		bench_ours = snaptrace_buffer_alloc(size, SNAPTRACE_OVERWRITE);
	}
	if (IS_ERR(bench_ours)) {
		int ret = PTR_ERR(bench_ours);

		bench_ours = NULL;
		return ret;
	}
	if (bench_default)
		return 0;
	bench_ft = ring_buffer_alloc(size, RB_FL_OVERWRITE);
	if (!bench_ft) {
		if (bench_default)
			snaptrace_put(bench_ours);
		else
			snaptrace_buffer_free(bench_ours);
		bench_ours = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void bench_free_buffers(void)
{
	if (bench_ft)
		ring_buffer_free(bench_ft);
	if (bench_default && bench_ours)
		snaptrace_put(bench_ours);
	else if (!bench_default)
		snaptrace_buffer_free(bench_ours);
	bench_ft = NULL;
	bench_ours = NULL;
}

static int bench_write_or_read(bool write)
{
	int ret = bench_alloc_buffers();

	if (!ret)
		ret = write ? bench_write() : bench_read();
	bench_free_buffers();
	return ret;
}

static int __init bench_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < nr_payloads; i++)
		if (payloads[i] == 0 || payloads[i] > BENCH_MAX_LEN)
			return -EINVAL;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < sizeof(bench_src); i++)
		bench_src[i] = 'a' + i % 26;
	if (!strcmp(buffer, "default"))
		bench_default = true;
	else if (strcmp(buffer, "own"))
		return -EINVAL;
	if (bench_default && strcmp(test, "write"))
		return -EINVAL;

	if (!strcmp(test, "info"))
		ret = bench_info();
	else if (!strcmp(test, "clock"))
		ret = 0;
	else if (!strcmp(test, "snap"))
		ret = bench_snap();
	else if (!strcmp(test, "space"))
		ret = bench_space();
	else if (!strcmp(test, "write") || !strcmp(test, "read"))
		ret = bench_write_or_read(test[0] == 'w');
	else
		ret = -EINVAL;
	if (ret == -EINVAL)
		pr_err("test=%s: want info, write, read, space, snap or clock; or a bad parameter\n",
		       test);
	pr_info("BENCH {\"t\":\"done\",\"test\":\"%s\",\"ret\":%d}\n", test, ret);
	return ret;
}

static void __exit bench_exit(void)
{
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("Benchmark of snaptrace against the kernel's ring buffer and snapshot");
MODULE_AUTHOR("The snaptrace developers");
MODULE_LICENSE("GPL");
