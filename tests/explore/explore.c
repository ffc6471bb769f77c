// SPDX-License-Identifier: GPL-2.0
/*
 * An interleaving explorer for the snaptrace ring buffer: the real
 * src/ring.c, ring_write.c, ring_epoch.c, ring_snapshot.c, ring_read.c and
 * ring_wait.c, built in user space against shim/ (ex_shim.h), run on 2-3
 * simulated CPUs as coroutines. Every shared access of the ring is a
 * scheduling point (ex_access()): there the schedule may switch to another CPU, or
 * interrupt the running context with an IRQ (if IRQs are on) or an NMI,
 * nesting up to three deep. After each run everything is drained and the
 * contract checked exactly (check_run()). Documentation/testing.rst,
 * "The interleaving explorer", says how to run it.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <time.h>
#include <ucontext.h>

#include "ex_shim.h"
#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "ring.h"

#define EX_MAX_CPUS	3
#define EX_MAX_OPS	10
#define EX_MAX_POOL	4
#define EX_MAX_CTX	(EX_MAX_CPUS * (1 + 2 * EX_MAX_POOL))
#define EX_STACK	(256 * 1024)
#define EX_MAX_RECS	1024
#define EX_MAX_EVENTS	8192
#define EX_MAX_SCHED	8192
#define EX_MAX_DEPTH	3
#define EX_MAGIC	0x5eedc0deu

/* ------------------------------------------------------------------ */
/* Scenarios: what each simulated CPU runs */

enum ex_op_kind {
	OP_END,
	OP_WRITE,	/* snaptrace_reserve_type() + commit: len, type, jump */
	OP_WRITE_ON,	/* snaptrace_reserve_on(cpu) + commit */
	OP_SNAP,	/* snaptrace_snapshot() */
	OP_HOLD,	/* snaptrace_snapshot_hold(), walk every CPU, unhold */
	OP_CONSUME,	/* snaptrace_consume_batch(which, cpu, n) */
	OP_ITER,	/* an iterator over which, cpu */
	OP_RESET,	/* snaptrace_reset() */
	OP_CLEAR,	/* snaptrace_clear_snapshot() */
	OP_WALK,	/* snaptrace_snapshot_walk(cpu) */
	OP_MODE,	/* snaptrace_set_mode(n) */
	OP_STATS,	/* snaptrace_cpu_stats() of both halves (identity only) */
};

struct ex_op {
	u8 kind;
	u8 which;	/* SNAPTRACE_LIVE or SNAPTRACE_SNAPSHOT */
	s8 cpu;		/* a CPU or SNAPTRACE_ALL_CPUS */
	u8 n;		/* records (consume), mode */
	u16 len;
	u16 type;
	u64 jump;	/* the test clock jumps by this before a write */
};

#define W(l)		{ .kind = OP_WRITE, .len = (l), .type = SNAPTRACE_REC_DATA }
#define WT(l, t)	{ .kind = OP_WRITE, .len = (l), .type = (t) }
#define WJ(l, j)	{ .kind = OP_WRITE, .len = (l), .type = SNAPTRACE_REC_DATA, .jump = (j) }
#define WON(c, l)	{ .kind = OP_WRITE_ON, .cpu = (c), .len = (l), .type = SNAPTRACE_REC_TEXT }
#define SNAP		{ .kind = OP_SNAP }
#define HOLD		{ .kind = OP_HOLD }
#define RESET		{ .kind = OP_RESET }
#define CLEAR		{ .kind = OP_CLEAR }
#define CONS(w, c, k)	{ .kind = OP_CONSUME, .which = (w), .cpu = (c), .n = (k) }
#define ITER(w, c)	{ .kind = OP_ITER, .which = (w), .cpu = (c) }
#define WALK(c)		{ .kind = OP_WALK, .cpu = (c) }
#define MODE(m)		{ .kind = OP_MODE, .n = (m) }
#define STATS		{ .kind = OP_STATS }
#define LIVE		SNAPTRACE_LIVE
#define SNAPS		SNAPTRACE_SNAPSHOT
#define ALL		SNAPTRACE_ALL_CPUS
#define EXT_JUMP	(BIT_ULL(27) + 5)
#define ABS_JUMP	BIT_ULL(55)

struct ex_scen {
	const char *name;
	const char *about;
	int ncpu;
	int home;		/* -1, or a one-CPU buffer's home CPU */
	int mode;
	bool nospare;
	int bound;		/* systematic: non-default choices per schedule */
	int focus;		/* 1 + the op of CPU 0's task during which alone
				 * choices are offered; 0: always */
	bool inject_only;	/* no switches of CPU, injections only */
	long max_runs;		/* systematic: 0, or a cap on the schedules */
	struct ex_op task[EX_MAX_CPUS][EX_MAX_OPS];
	struct ex_op irq[EX_MAX_CPUS][EX_MAX_POOL];
	struct ex_op nmi[EX_MAX_CPUS][EX_MAX_POOL];
};

#include "scenarios.h"

/* ------------------------------------------------------------------ */
/* Contexts and CPUs */

enum { EX_TASK, EX_IRQ, EX_NMI };
static const char *const ex_kind_name[] = { "task", "irq", "nmi" };

struct ex_ctx {
	ucontext_t uc;
	char *stack;
	int id, cpu, kind;
	const struct ex_op *ops;
	int nops, pc;
	int preempt, rcu;
	bool irqs_were_on;
	u64 last_ts;		/* the test clock's last value it read */
	long resv_seq;		/* its last reservation (head cmpxchg) */
	int resv_ring;
	unsigned long resv_pos;	/* where it begins */
	bool resv_open;		/* reserved, its record not written yet */
	bool drop_mark;		/* ST_STEP_WRITE_FULL seen: next access */
	long drop_seq;
};

struct ex_cpu {
	struct ex_ctx *stk[EX_MAX_DEPTH];
	int depth;
	bool irqs_on;
	bool online;
	int nirq, nnmi;		/* pool entries injected so far */
};

/* A record written: what the checker expects of it. */
struct ex_rec {
	int cpu;		/* its ring's CPU */
	int ctx;
	u16 len, type;
	u64 ts;
	long resv_seq;
	const void *ring;	/* its ring (struct st_ring) and position */
	unsigned long pos;
	bool written;		/* its payload written: snaptrace_commit() next */
	bool committed;
	int consumed;		/* times a consuming read returned it */
	long cons_t0;		/* that read's first access */
	int cons_which;
	bool drained;
};

struct ex_drop {
	int cpu;
	long seq;
};

/* A successful cmpxchg of a ring's head, or of the buffer's state word. */
struct ex_event {
	long seq;
	int ring;		/* index in ex_rings[], or -1: the state word */
	long old, new;
	int ctx;
};

struct ex_ring_id {
	const void *head;
	const void *tail;
	int half, cpu;
};

enum ex_sched_mode { EX_REPLAY, EX_RANDOM, EX_DFS };

struct ex_choice {
	long point;
	char code;	/* 'c' switch to CPU arg, 'i' IRQ, 'n' NMI */
	int arg;
};

static struct {
	const struct ex_scen *sc;
	struct snaptrace_buffer *buf;
	struct ex_cpu cpus[EX_MAX_CPUS];
	struct ex_ctx ctxs[EX_MAX_CTX];
	int nctx;
	struct ex_ctx *cur;
	ucontext_t main_uc;
	long points, seq, max_points;
	u64 clk;
	struct ex_rec recs[EX_MAX_RECS];
	int nrecs;
	struct ex_drop drops[EX_MAX_RECS];
	int ndrops;
	struct ex_event ev[EX_MAX_EVENTS];
	int nev;
	struct ex_ring_id rings[4 * EX_MAX_CPUS];
	long head0[4 * EX_MAX_CPUS];	/* each ring's head when registered */
	int nrings;
	const void *state_addr;
	/* schedule */
	enum ex_sched_mode mode;
	struct ex_choice sched[EX_MAX_SCHED];	/* taken (non-default) */
	int nsched;
	const struct ex_choice *want;		/* replay */
	int nwant, iwant;
	u64 rng;
	int p_sw, p_irq, p_nmi;			/* random: 1 in p */
	int *dfs_pick, *dfs_nopt;		/* systematic */
	long dfs_prefix, dfs_len, dfs_cap;
	/* outcome */
	char fail[4096];
	int failn;
	bool aborted;
	/*
	 * The drain after a run (ex_check_run(), in main's context): its
	 * accesses, bounded too, so that a reader that loops (a ring left
	 * broken: a tail below start) fails the run instead of hanging it.
	 */
	bool checking;
	long check_points;
	jmp_buf check_jb;
	bool trace;
	bool lenient;		/* replay: skip a choice not possible */
} ex;

static char *ex_stacks[EX_MAX_CTX];

static void ex_failf(const char *fmt, ...)
{
	size_t n = strlen(ex.fail);
	va_list ap;

	ex.failn++;
	if (n > sizeof(ex.fail) - 200)
		return;
	va_start(ap, fmt);
	vsnprintf(ex.fail + n, sizeof(ex.fail) - n, fmt, ap);
	va_end(ap);
	n = strlen(ex.fail);
	snprintf(ex.fail + n, sizeof(ex.fail) - n, "\n");
}

static void ex_tracef(const char *fmt, ...)
{
	va_list ap;

	if (!ex.trace)
		return;
	printf("  %6ld ", ex.points);
	if (ex.cur)
		printf("cpu%d/%s#%d: ", ex.cur->cpu, ex_kind_name[ex.cur->kind],
		       ex.cur->id);
	else
		printf("driver: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static const char *ex_flags(long w)
{
	static const char *const n[8] = {
		"open", "SEAL", "PENDING(next)", "SEAL|PENDING(live-pending)",
		"SPARE?", "SEAL|SPARE(snapshot)", "SPARE|PENDING?",
		"SEAL|SPARE|PENDING(empty spare)",
	};

	return n[w & ST_FLAGS];
}

/* ------------------------------------------------------------------ */
/* The scheduler */

static u64 ex_rand(void)
{
	ex.rng ^= ex.rng >> 12;
	ex.rng ^= ex.rng << 25;
	ex.rng ^= ex.rng >> 27;
	return ex.rng * 0x2545F4914F6CDD1DULL;
}

static struct ex_ctx *ex_top(int cpu)
{
	struct ex_cpu *c = &ex.cpus[cpu];

	return c->depth ? c->stk[c->depth - 1] : NULL;
}

static bool ex_runnable(int cpu)
{
	return cpu < ex.sc->ncpu && ex.cpus[cpu].online && ex.cpus[cpu].depth;
}

static int ex_pool_len(const struct ex_op *pool)
{
	int n = 0;

	while (n < EX_MAX_POOL && pool[n].kind != OP_END)
		n++;
	return n;
}

static bool ex_can_irq(int cpu)
{
	struct ex_cpu *c = &ex.cpus[cpu];

	return c->irqs_on && ex_top(cpu)->kind == EX_TASK &&
	       c->depth < EX_MAX_DEPTH && c->nirq < ex_pool_len(ex.sc->irq[cpu]);
}

static bool ex_can_nmi(int cpu)
{
	struct ex_cpu *c = &ex.cpus[cpu];
	int i;

	for (i = 0; i < c->depth; i++)
		if (c->stk[i]->kind == EX_NMI)
			return false;
	return c->depth < EX_MAX_DEPTH && c->nnmi < ex_pool_len(ex.sc->nmi[cpu]);
}

static void ex_switch_to(struct ex_ctx *t)
{
	struct ex_ctx *from = ex.cur;

	if (t == from)
		return;
	ex.cur = t;
	swapcontext(&from->uc, &t->uc);
}

static void ex_entry(void);

static struct ex_ctx *ex_new_ctx(int cpu, int kind, const struct ex_op *ops,
				 int nops)
{
	struct ex_ctx *x = &ex.ctxs[ex.nctx];
	struct ex_cpu *c = &ex.cpus[cpu];

	if (!ex_stacks[ex.nctx])
		ex_stacks[ex.nctx] = malloc(EX_STACK);
	memset(x, 0, sizeof(*x));
	x->stack = ex_stacks[ex.nctx];
	x->id = ex.nctx++;
	x->cpu = cpu;
	x->kind = kind;
	x->ops = ops;
	x->nops = nops;
	x->resv_seq = -1;
	x->resv_open = false;
	x->drop_seq = -1;
	getcontext(&x->uc);
	x->uc.uc_stack.ss_sp = x->stack;
	x->uc.uc_stack.ss_size = EX_STACK;
	x->uc.uc_link = NULL;
	makecontext(&x->uc, ex_entry, 0);
	x->irqs_were_on = c->irqs_on;
	if (kind == EX_IRQ)
		c->irqs_on = false;	/* hardirqs run with IRQs off */
	c->stk[c->depth++] = x;
	return x;
}

static void ex_abort(void)
{
	ex.aborted = true;
	ex.cur = NULL;
	setcontext(&ex.main_uc);
}

static void ex_record(char code, int arg)
{
	if (ex.nsched < EX_MAX_SCHED)
		ex.sched[ex.nsched++] = (struct ex_choice){ ex.points, code, arg };
}

/*
 * One choice at a scheduling point of the running context: returns false
 * to go on with its access, true after it ran something else in between
 * (then the point offers its choices again: another NMI may come at once).
 */
static bool ex_choose(void)
{
	struct ex_choice opt[EX_MAX_CPUS + 2];
	int n = 0, k = 0, me = ex.cur->cpu, j;

	if (++ex.points > ex.max_points) {
		ex_failf("livelock: no end within %ld scheduling points", ex.max_points);
		ex_abort();
	}
	opt[n++] = (struct ex_choice){ ex.points, 0, 0 };
	if (ex.sc->focus && (!ex.cpus[0].depth || ex.cpus[0].stk[0]->kind != EX_TASK ||
			     ex.cpus[0].stk[0]->pc != ex.sc->focus - 1))
		goto decide;
	for (j = 0; j < ex.sc->ncpu && !ex.sc->inject_only; j++)
		if (j != me && ex_runnable(j))
			opt[n++] = (struct ex_choice){ ex.points, 'c', j };
	if (ex_can_irq(me))
		opt[n++] = (struct ex_choice){ ex.points, 'i', 0 };
	if (ex_can_nmi(me))
		opt[n++] = (struct ex_choice){ ex.points, 'n', 0 };
decide:
	switch (ex.mode) {
	case EX_REPLAY:
		if (ex.iwant < ex.nwant && ex.want[ex.iwant].point == ex.points) {
			const struct ex_choice *w = &ex.want[ex.iwant++];

			for (k = 1; k < n; k++)
				if (opt[k].code == w->code && opt[k].arg == w->arg)
					break;
			if (k == n && ex.lenient) {
				k = 0;
			} else if (k == n) {
				ex_failf("replay: choice %c%d not possible at point %ld",
					 w->code, w->arg, ex.points);
				ex_abort();
			}
		}
		break;
	case EX_RANDOM:
		if (n > 1) {
			u64 r = ex_rand();

			int nsw = 0;

			while (nsw + 1 < n && opt[nsw + 1].code == 'c')
				nsw++;
			if (opt[n - 1].code == 'n' && r % ex.p_nmi == 0)
				k = n - 1;
			else if (nsw + 1 < n && opt[nsw + 1].code == 'i' &&
				 (r >> 16) % ex.p_irq == 0)
				k = nsw + 1;
			else if (nsw && (r >> 32) % ex.p_sw == 0)
				k = 1 + (r >> 48) % nsw;
		}
		break;
	case EX_DFS:
		if (ex.points - 1 < ex.dfs_cap) {
			long d = ex.points - 1;

			k = d < ex.dfs_prefix ? ex.dfs_pick[d] : 0;
			if (k >= n)
				k = 0;	/* cannot happen: runs are deterministic */
			ex.dfs_pick[d] = k;
			ex.dfs_nopt[d] = n;
			ex.dfs_len = d + 1;
		}
		break;
	}
	if (!k)
		return false;
	ex_record(opt[k].code, opt[k].arg);
	switch (opt[k].code) {
	case 'c':
		ex_tracef("switch to cpu%d", opt[k].arg);
		ex_switch_to(ex_top(opt[k].arg));
		break;
	case 'i':
	case 'n': {
		struct ex_cpu *c = &ex.cpus[me];
		bool irq = opt[k].code == 'i';
		const struct ex_op *op = irq ? &ex.sc->irq[me][c->nirq++] :
					       &ex.sc->nmi[me][c->nnmi++];
		struct ex_ctx *x = ex_new_ctx(me, irq ? EX_IRQ : EX_NMI, op, 1);

		ex_tracef("interrupted by %s#%d", ex_kind_name[x->kind], x->id);
		ex_switch_to(x);
		break;
	}
	}
	return true;
}

/* A scheduling point of the running context (before its access). */
static void ex_step(void)
{
	while (ex_choose())
		;
}

/* The next CPU that can run, after @cpu in turn; -1 if none. */
static int ex_next_cpu(int cpu)
{
	int j;

	for (j = 1; j <= ex.sc->ncpu; j++) {
		int c = (cpu + j) % ex.sc->ncpu;

		if (c != cpu && ex_runnable(c))
			return c;
	}
	return -1;
}

void ex_access(const volatile void *p)
{
	struct ex_ctx *x = ex.cur;

	if (!x && ex.checking && ++ex.check_points > 10 * ex.max_points) {
		ex_failf("no end: the drain after the run took over %ld accesses (a reader loops)",
			 10 * ex.max_points);
		longjmp(ex.check_jb, 1);
	}
	if (!x || p == (void *)&snaptrace_test_hook ||
	    p == (void *)&snaptrace_test_clock)
		return;
	ex_step();
	ex.seq++;
	if (x->drop_mark) {
		x->drop_mark = false;
		x->drop_seq = ex.seq;
	}
}

void ex_relax(void)
{
	int c;

	if (!ex.cur)
		return;
	c = ex_next_cpu(ex.cur->cpu);
	if (c >= 0)
		ex_switch_to(ex_top(c));
}

/*
 * The invariants ring-buffer.rst names that one change of a head can
 * break, checked at that change (the contract checks the rest after the
 * run):
 * - R1: no value of a ring's head repeats (this run's earlier values);
 * - R2: at most one ring of a CPU is open;
 * - I2: a reservation ends at most one ring above commit.
 */
static void ex_check_head(int ring, const struct ex_event *e, long old, long new)
{
	const struct ex_ring_id *id = &ex.rings[ring];
	struct st_ring *r = container_of((atomic_long_t *)id->head, struct st_ring, head);
	int i, open = 0;

	for (i = 0; i < ex.nev - 1; i++)
		if (ex.ev[i].ring == ring && ex.ev[i].new == new) {
			ex_failf("R1: half%d/cpu%d's head took %#lx again (events %d and %d)",
				 id->half, id->cpu, new, i, ex.nev - 1);
			return;
		}
	if (new == ex.head0[ring]) {
		ex_failf("R1: half%d/cpu%d's head took its first value %#lx again",
			 id->half, id->cpu, new);
		return;
	}
	for (i = 0; i < ex.nrings; i++) {
		long h = ((const atomic_long_t *)ex.rings[i].head)->counter;

		if (ex.rings[i].cpu == id->cpu && !(h & ST_FLAGS))
			open++;
	}
	if (open > 1)
		ex_failf("R2: two rings of cpu%d open", id->cpu);
	if (!(old & ST_FLAGS) && !(new & ST_FLAGS) && r->size &&
	    (long)(st_pos(new) - r->commit.a.counter) > (long)st_p(r->size))
		ex_failf("I2: half%d/cpu%d reserved up to %#lx, commit %#lx",
			 id->half, id->cpu, st_pos(new), r->commit.a.counter);
	(void)e;
}

/*
 * Commit says every record below it is complete: at each change, no
 * record of that ring still being written may lie below it (an opening
 * that raised commit over a record a writer it interrupted still holds
 * would let the new epoch's writers reach that record's bytes, I2).
 */
static void ex_check_commit(const volatile void *p, long c)
{
	int i;

	/* Reservations made, their records not registered yet. */
	for (i = 0; i < ex.nctx; i++) {
		const struct ex_ctx *x = &ex.ctxs[i];
		const struct st_ring *r;

		if (!x->resv_open)
			continue;
		r = container_of(ex.rings[x->resv_ring].head, struct st_ring, head);
		if ((const volatile void *)&r->commit == p &&
		    (long)(c - x->resv_pos) > 0)
			ex_failf("commit of half%d/cpu%d %#lx passed %s#%d's reservation at %#lx, still being written",
				 ex.rings[x->resv_ring].half, ex.rings[x->resv_ring].cpu,
				 c, ex_kind_name[x->kind], x->id, x->resv_pos);
	}

	for (i = 0; i < ex.nrecs; i++) {
		const struct ex_rec *r = &ex.recs[i];

		if (r->written || !r->ring ||
		    (const volatile void *)&((struct st_ring *)r->ring)->commit != p)
			continue;
		if ((long)(c - r->pos) > 0)
			ex_failf("commit of cpu%d's ring %#lx passed record #%d at %#lx, still being written",
				 r->cpu, c, i, r->pos);
	}
}

/* A plain store (atomic_long_set(), local_set()) of @v at @p. */
void ex_store(const volatile void *p, long v)
{
	ex_check_commit(p, v);
}

void ex_cas_ok(const volatile void *p, long old, long new)
{
	struct ex_event *e;
	int i, ring = -2;

	ex_check_commit(p, new);

	if (p == ex.state_addr)
		ring = -1;
	for (i = 0; i < ex.nrings && ring == -2; i++) {
		if (ex.rings[i].head == p)
			ring = i;
		/* Tails only in the trace: a replay shows every move. */
		if (ex.rings[i].tail == p) {
			ex_tracef("tail of half%d/cpu%d: %#lx%s -> %#lx%s",
				  ex.rings[i].half, ex.rings[i].cpu,
				  st_pos(old), old & ST_SEAL ? " sealed" : "",
				  st_pos(new), new & ST_SEAL ? " sealed" : "");
			return;
		}
	}
	if (ring == -2)
		return;
	if (ex.nev == EX_MAX_EVENTS) {
		ex_failf("explorer: event log full");
		return;
	}
	e = &ex.ev[ex.nev++];
	e->seq = ex.seq;
	e->ring = ring;
	e->old = old;
	e->new = new;
	e->ctx = ex.cur ? ex.cur->id : -1;
	if (ring >= 0 && !(old & ST_FLAGS) && !(new & ST_FLAGS) && ex.cur) {
		ex.cur->resv_seq = ex.seq;
		ex.cur->resv_ring = ring;
		ex.cur->resv_pos = st_pos(old);
		ex.cur->resv_open = true;
	}
	if (ring >= 0)
		ex_tracef("head of half%d/cpu%d: %#lx %s -> %#lx %s",
			  ex.rings[ring].half, ex.rings[ring].cpu,
			  st_pos(old), ex_flags(old), st_pos(new), ex_flags(new));
	if (ring >= 0)
		ex_check_head(ring, e, old, new);
	else
		ex_tracef("state word %#lx -> %#lx (snapshot %ld published)",
			  old, new, new >> 1);
}

int ex_cpu(void)
{
	return ex.cur ? ex.cur->cpu : 0;
}

unsigned long ex_irq_save(void)
{
	struct ex_cpu *c;
	unsigned long f;

	if (!ex.cur)
		return 0;
	c = &ex.cpus[ex.cur->cpu];
	f = c->irqs_on;
	c->irqs_on = false;
	return f;
}

void ex_irq_restore(unsigned long flags)
{
	if (ex.cur)
		ex.cpus[ex.cur->cpu].irqs_on = flags;
	ex_tracef("irqs %s", flags ? "on" : "off");
}

void ex_preempt(int d)
{
	if (ex.cur)
		ex.cur->preempt += d;
}

void ex_rcu(int d)
{
	if (ex.cur)
		ex.cur->rcu += d;
}

bool ex_cpu_online(int cpu)
{
	return cpu >= 0 && cpu < (int)nr_cpu_ids && ex.cpus[cpu].online;
}

/* Wait until no context of another CPU is in an RCU(-sched) read side. */
void ex_synchronize_rcu(void)
{
	bool busy;
	int c, i;

	if (!ex.cur)
		return;
	do {
		busy = false;
		for (c = 0; c < ex.sc->ncpu; c++)
			for (i = 0; i < ex.cpus[c].depth; i++)
				if (c != ex.cur->cpu && (ex.cpus[c].stk[i]->preempt ||
							 ex.cpus[c].stk[i]->rcu))
					busy = true;
		if (busy)
			ex_relax();
	} while (busy);
}

void ex_warn(const char *file, int line, const char *what)
{
	ex_failf("WARN at %s:%d: %s", file, line, what);
}

void mutex_lock(struct mutex *m)
{
	ex_access(m);
	while (m->owner) {
		ex_relax();
		ex_access(m);
	}
	m->owner = ex.cur ? ex.cur->id + 1 : -1;
}

void mutex_unlock(struct mutex *m)
{
	ex_access(m);
	m->owner = 0;
}

unsigned int nr_cpu_ids = 2;

static u64 ex_clock(void)
{
	u64 t = ++ex.clk;

	if (ex.cur)
		ex.cur->last_ts = t;
	return t;
}

static const char *const ex_step_name[] = {
	[ST_STEP_WRITE_LOOKUP] = "WRITE_LOOKUP",
	[ST_STEP_WRITE_RESERVE] = "WRITE_RESERVE",
	[ST_STEP_WRITE_RESERVED] = "WRITE_RESERVED",
	[ST_STEP_WRITE_PUSHED] = "WRITE_PUSHED",
	[ST_STEP_WRITE_COMMIT] = "WRITE_COMMIT",
	[ST_STEP_WRITE_FULL] = "WRITE_FULL",
	[ST_STEP_OPEN] = "OPEN",
	[ST_STEP_SNAP_PENDED] = "SNAP_PENDED",
	[ST_STEP_SNAP_MARKED] = "SNAP_MARKED",
	[ST_STEP_SNAP_PUBLISHED] = "SNAP_PUBLISHED",
	[ST_STEP_SNAP_SEALED] = "SNAP_SEALED",
	[ST_STEP_CONSUME] = "CONSUME",
	[ST_STEP_OPEN_LAST] = "OPEN_LAST",
	[ST_STEP_COUNT_DROPPED] = "COUNT_DROPPED",
	[ST_STEP_SNAP_SETTLED] = "SNAP_SETTLED",
	[ST_STEP_CONSUMED] = "CONSUMED",
	[ST_STEP_WRITE_ANCHOR] = "WRITE_ANCHOR",
	[ST_STEP_LOCK_WAIT] = "LOCK_WAIT",
	[ST_STEP_PANIC_LOCK] = "PANIC_LOCK",
	[ST_STEP_OPEN_BEGIN] = "OPEN_BEGIN",
	[ST_STEP_SNAP_CLOSE] = "SNAP_CLOSE",
	[ST_STEP_ITER_NEXT] = "ITER_NEXT",
};

static void ex_hook(struct snaptrace_buffer *buf, enum snaptrace_test_step step,
		    int cpu)
{
	if (step == ST_STEP_WRITE_FULL && ex.cur)
		ex.cur->drop_mark = true;
	ex_tracef("hook %s (cpu %d)", ex_step_name[step], cpu);
}

/* ------------------------------------------------------------------ */
/* The operations */

struct ex_payload {
	u32 magic;
	u32 id;
	u64 ts;
};

static u8 ex_fill(u32 id, unsigned int i)
{
	return (u8)(id * 31 + i * 7 + 1);
}

/* Check a record a reader returned against what was written. Its id or -1. */
static int ex_check_rec(const struct snaptrace_record *rec, const char *who)
{
	struct ex_payload pl;
	struct ex_rec *r;
	unsigned int i;

	if (rec->len < sizeof(pl)) {
		ex_failf("%s: invented record: cpu %u len %u type %u ts %llu",
			 who, rec->cpu, rec->len, rec->type,
			 (unsigned long long)rec->ts);
		return -1;
	}
	memcpy(&pl, rec->data, sizeof(pl));
	if (pl.magic != EX_MAGIC || pl.id >= (u32)ex.nrecs) {
		ex_failf("%s: invented record: cpu %u len %u ts %llu (no id)",
			 who, rec->cpu, rec->len, (unsigned long long)rec->ts);
		return -1;
	}
	r = &ex.recs[pl.id];
	/*
	 * Its position since the epoch began (a reader that took a record of
	 * an epoch gone, below the new start, gives one "before" it).
	 */
	if (rec->pos > (u64)EX_MAX_RECS * 4096) {
		ex_failf("%s: record #%u at position %#llx: outside its epoch",
			 who, pl.id, (unsigned long long)rec->pos);
		return -1;
	}
	if (rec->cpu != (unsigned int)r->cpu || rec->len != r->len ||
	    rec->type != r->type || rec->ts != r->ts || pl.ts != r->ts) {
		ex_failf("%s: record #%u wrong: cpu %u/%d len %u/%u type %u/%u ts %llu/%llu",
			 who, pl.id, rec->cpu, r->cpu, rec->len, r->len,
			 rec->type, r->type, (unsigned long long)rec->ts,
			 (unsigned long long)r->ts);
		return -1;
	}
	for (i = sizeof(pl); i < rec->len; i++)
		if (rec->data[i] != ex_fill(pl.id, i)) {
			ex_failf("%s: record #%u payload byte %u wrong", who, pl.id, i);
			return -1;
		}
	return pl.id;
}

static void ex_op_write(const struct ex_op *op)
{
	struct snaptrace_reservation res;
	struct ex_ctx *x = ex.cur;
	struct ex_payload pl;
	struct ex_rec *r;
	int cpu = op->kind == OP_WRITE_ON ? op->cpu : x->cpu;
	unsigned int i;
	u8 *p;

	ex.clk += op->jump;
	x->resv_seq = -1;
	x->drop_seq = -1;
	if (op->kind == OP_WRITE_ON)
		p = snaptrace_reserve_on(ex.buf, cpu, op->type, op->len, &res);
	else
		p = snaptrace_reserve_type(ex.buf, op->type, op->len, &res);
	if (!p) {
		if (ex.ndrops < EX_MAX_RECS)
			ex.drops[ex.ndrops++] = (struct ex_drop){ cpu, x->drop_seq };
		if (x->drop_seq < 0)
			ex_failf("write of %u bytes refused, but not as full", op->len);
		ex_tracef("write of %u bytes dropped", op->len);
		return;
	}
	if (ex.nrecs == EX_MAX_RECS) {
		ex_failf("explorer: too many records");
		ex_abort();
	}
	r = &ex.recs[ex.nrecs];
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->ctx = x->id;
	r->len = op->len;
	r->type = op->type;
	r->ts = x->last_ts;
	r->resv_seq = x->resv_seq;
	if (x->resv_seq < 0)
		ex_failf("record #%d: no reservation seen", ex.nrecs);
	pl = (struct ex_payload){ EX_MAGIC, ex.nrecs, r->ts };
	memcpy(p, &pl, sizeof(pl));
	for (i = sizeof(pl); i < op->len; i++)
		p[i] = ex_fill(ex.nrecs, i);
	ex_tracef("record #%d reserved (%u bytes, ts %llu, seq %ld)", ex.nrecs,
		  op->len, (unsigned long long)r->ts, r->resv_seq);
	r->ring = res.ring;
	r->pos = res.pos;
	ex.nrecs++;
	r->written = true;
	x->resv_open = false;
	snaptrace_commit(ex.buf, &res);
	r->committed = true;
}

/* Records for the readers, one set per context (they nest). */
static struct snaptrace_record ex_recbufs[EX_MAX_CTX + 1][8];
#define ex_recbuf (ex_recbufs[ex.cur ? ex.cur->id : EX_MAX_CTX])

static int ex_walk_fn(void *arg, const struct snaptrace_record *rec)
{
	int *seen = arg, id = ex_check_rec(rec, "walk");

	if (id >= 0) {
		if (seen[id]++)
			ex_failf("walk: record #%d twice", id);
	}
	return 0;
}

static void ex_walk_all(long state)
{
	int *seen = calloc(EX_MAX_RECS, sizeof(int));
	struct snaptrace_walk_pin pin;
	bool open;
	int c, ret;

	for (c = 0; c < ex.sc->ncpu; c++) {
		memset(seen, 0, EX_MAX_RECS * sizeof(int));
		memset(&pin, 0, sizeof(pin));
		pin.state = state;
		ret = snaptrace_snapshot_walk(ex.buf, c, &ex_recbuf[0],
					      ex_walk_fn, seen, &open, &pin);
		/*
		 * Complete (not -ESTALE): the snapshot it pinned is still
		 * there when it returns (no value of head repeats, R1).
		 */
		if (ret >= 0 && pin.set &&
		    (pin.head & (ST_SPARE | ST_PENDING)) == ST_SPARE) {
			long h = per_cpu_ptr(pin.half->rings, c)->head.counter;

			if (h != (long)pin.head)
				ex_failf("walk of cpu %d: %d records, complete, but its ring's head went %#lx -> %#lx",
					 c, ret, pin.head, h);
		}
	}
	free(seen);
}

static void ex_op_consume(const struct ex_op *op)
{
	long t0 = ex.seq;
	int n, i, id;

	n = snaptrace_consume_batch(ex.buf, op->which, op->cpu, ex_recbuf,
				    op->n ? op->n : 1);
	for (i = 0; i < n; i++) {
		id = ex_check_rec(&ex_recbuf[i], "consume");
		if (id < 0)
			continue;
		if (ex.recs[id].consumed++)
			ex_failf("consume: record #%d returned twice", id);
		ex.recs[id].cons_t0 = t0;
		ex.recs[id].cons_which = op->which;
		ex_tracef("consumed record #%d from %s", id,
			  op->which == LIVE ? "live" : "snapshot");
	}
}

static void ex_op_iter(const struct ex_op *op)
{
	struct snaptrace_iter *it;
	int i, id, *seen;

	it = snaptrace_iter_start(ex.buf, op->which, op->cpu);
	if (IS_ERR(it))
		return;
	seen = calloc(EX_MAX_RECS, sizeof(int));
	for (i = 0; i < 64; i++) {
		if (snaptrace_iter_next(it, &ex_recbuf[0]))
			break;
		id = ex_check_rec(&ex_recbuf[0], "iterator");
		if (id >= 0 && seen[id]++)
			ex_failf("iterator: record #%d twice", id);
	}
	free(seen);
	snaptrace_iter_stop(it);
}

static void ex_op_stats(void)
{
	struct snaptrace_stats st;
	int c, w;

	for (w = 0; w < 2; w++)
		for (c = 0; c < ex.sc->ncpu; c++) {
			if (snaptrace_cpu_stats(ex.buf, w, c, &st))
				continue;
			/*
			 * Mid-run: only what holds at any time. No term is
			 * negative (snaptrace_cpu_stats(): "entries never
			 * comes out negative"), nor above what was written:
			 * the sum is taken in u64, where a negative term
			 * wraps and keeps it unchanged.
			 */
			if ((s64)st.entries < 0 || (s64)st.read < 0 || (s64)st.overrun < 0 ||
			    (s64)st.dropped < 0 || st.entries > st.written ||
			    st.read > st.written || st.overrun > st.written ||
			    st.dropped > st.written ||
			    st.read + st.entries + st.overrun > st.written - st.dropped)
				ex_failf("stats mid-run: cpu %d %s: written %lld read %lld entries %lld overrun %lld dropped %lld",
					 c, w ? "snapshot" : "live",
					 (long long)st.written, (long long)st.read,
					 (long long)st.entries, (long long)st.overrun,
					 (long long)st.dropped);
		}
}

/*
 * st_close()'s promise: when a snapshot returns, each CPU's sealed
 * snapshot ring has its tail pushed past every record that a reservation
 * before its cut overwrote (tail at least the cut less the ring), so that
 * its records and counters are final then, not when the last such writer
 * runs again. Checked at the return, while no change runs (one on another
 * CPU may hold the lock), reading with no scheduling point.
 */
static void ex_check_snapshot_final(void)
{
	struct ex_ctx *x = ex.cur;
	struct st_half *spare;
	struct st_ring *r;
	long h, t;
	int c;

	ex.cur = NULL;	/* ex_access(): not a scheduling point */
	spare = st_half_in(ex.buf, atomic_long_read(&ex.buf->state), SNAPTRACE_SNAPSHOT);
	for (c = 0; spare && !atomic_read(&ex.buf->busy) && c < ex.sc->ncpu; c++) {
		r = per_cpu_ptr(spare->rings, c);
		h = atomic_long_read(&r->head);
		t = atomic_long_read(&r->tail);
		if (!r->size || (h & ST_PENDING) || !(h & ST_SPARE))
			continue;
		if ((long)(st_pos(t) - (st_pos(h) - st_p(r->size))) < 0)
			ex_failf("snapshot returned: cpu %d's snapshot tail %#lx is below its cut %#lx less the ring",
				 c, st_pos(t), st_pos(h));
	}
	ex.cur = x;
}

static void ex_run_op(const struct ex_op *op)
{
	struct snaptrace_snap_hold hold;
	int ret;

	switch (op->kind) {
	case OP_WRITE:
	case OP_WRITE_ON:
		ex_op_write(op);
		break;
	case OP_SNAP:
		ex_tracef("snapshot");
		ret = snaptrace_snapshot(ex.buf);
		if (ret && !(ret == -ENOENT && ex.sc->nospare) && ret != -EBUSY)
			ex_failf("snapshot: %d", ret);
		if (!ret)
			ex_check_snapshot_final();
		ex_tracef("snapshot: %d", ret);
		break;
	case OP_HOLD:
		ex_tracef("snapshot_hold");
		ret = snaptrace_snapshot_hold(ex.buf, &hold);
		if (!ret)
			ex_walk_all(hold.state);
		snaptrace_snapshot_unhold(ex.buf, &hold);
		ex_tracef("snapshot_hold: %d", ret);
		break;
	case OP_CONSUME:
		ex_op_consume(op);
		break;
	case OP_ITER:
		ex_op_iter(op);
		break;
	case OP_RESET:
		ex_tracef("reset");
		snaptrace_reset(ex.buf);
		break;
	case OP_CLEAR:
		ex_tracef("clear");
		snaptrace_clear_snapshot(ex.buf);
		break;
	case OP_WALK:
		ex_walk_all(0);
		break;
	case OP_MODE:
		snaptrace_set_mode(ex.buf, op->n);
		break;
	case OP_STATS:
		ex_op_stats();
		break;
	}
}

static void ex_entry(void)
{
	struct ex_ctx *x = ex.cur;
	struct ex_cpu *c = &ex.cpus[x->cpu];
	int i, n;

	for (i = 0; i < x->nops && x->ops[i].kind != OP_END; i++) {
		x->pc = i;
		ex_tracef("op %d begins", i);
		ex_run_op(&x->ops[i]);
	}
	if (x->preempt || x->rcu)
		ex_failf("%s#%d ended with preempt %d rcu %d", ex_kind_name[x->kind],
			 x->id, x->preempt, x->rcu);
	ex_tracef("done");
	/* Back to what it interrupted, else to another CPU, else the end. */
	c->depth--;
	if (x->kind == EX_IRQ)
		c->irqs_on = x->irqs_were_on;
	if (c->depth) {
		ex.cur = ex_top(x->cpu);
		setcontext(&ex.cur->uc);
	}
	n = ex_next_cpu(x->cpu);
	if (n >= 0) {
		ex.cur = ex_top(n);
		setcontext(&ex.cur->uc);
	}
	ex.cur = NULL;
	setcontext(&ex.main_uc);
}

/* ------------------------------------------------------------------ */
/* The contract, checked after each run */

/* The ring whose head is event @e's, as (half, cpu). */
static bool ex_ev_on(const struct ex_event *e, int half, int cpu)
{
	return e->ring >= 0 && ex.rings[e->ring].half == half &&
	       ex.rings[e->ring].cpu == cpu;
}

static bool ex_ev_cut(const struct ex_event *e)
{
	return !(e->old & ST_SPARE) && (e->new & ST_SPARE);
}

static bool ex_ev_reset(const struct ex_event *e)
{
	return !(e->old & ST_FLAGS) && (e->new & ST_FLAGS) == (ST_SEAL | ST_PENDING);
}

static bool ex_ev_clear(const struct ex_event *e)
{
	return (e->old & ST_FLAGS) == (ST_SEAL | ST_SPARE) &&
	       (e->new & ST_FLAGS) == ST_FLAGS;
}

/* The seq of the cut of @cpu for published state @n (after @pub); -1 if none. */
static long ex_cut_of(long n, long pub, int cpu)
{
	int i;

	for (i = 0; i < ex.nev; i++) {
		const struct ex_event *e = &ex.ev[i];

		if (e->seq > pub && ex_ev_on(e, (n & 1) ^ 1, cpu) && ex_ev_cut(e))
			return e->seq;
	}
	return -1;
}

/* Whether @cpu has a cut or a reset in (@from, @to). */
static bool ex_boundary_in(int cpu, long from, long to)
{
	int i;

	for (i = 0; i < ex.nev; i++) {
		const struct ex_event *e = &ex.ev[i];

		if (e->ring < 0 || ex.rings[e->ring].cpu != cpu)
			continue;
		if (e->seq > from && e->seq < to && (ex_ev_cut(e) || ex_ev_reset(e)))
			return true;
	}
	return false;
}

struct ex_half_want {
	long lo, hi;		/* reservations in (lo, hi] */
	bool cleared;
};

struct ex_acc {
	int *ids;
	int n;
};

static int ex_acc_fn(void *arg, const struct snaptrace_record *rec)
{
	struct ex_acc *acc = arg;
	int k = ex_check_rec(rec, "drain walk");

	if (k >= 0 && acc->n < EX_MAX_RECS)
		acc->ids[acc->n++] = k;
	return 0;
}

/* Drain @which of @cpu: stats, walk, iterator, consume; check them. */
static void ex_check_half(int which, int cpu, const struct ex_half_want *hw)
{
	static int want[EX_MAX_RECS], iter[EX_MAX_RECS], walk[EX_MAX_RECS];
	static int drained[EX_MAX_RECS];
	const char *hn = which == LIVE ? "live" : "snapshot";
	int nwant = 0, niter = 0, nwalk = 0, ndr = 0, ndrops = 0;
	unsigned long nmid = 0, nlost = 0;
	struct snaptrace_stats st;
	struct snaptrace_iter *it;
	struct snaptrace_walk_pin pin = { 0 };
	bool open, suffix_ok = true;
	int i, id, ret, first;

	for (i = 0; i < ex.nrecs; i++) {
		const struct ex_rec *r = &ex.recs[i];

		if (r->cpu == cpu && r->committed && !hw->cleared &&
		    r->resv_seq > hw->lo && r->resv_seq <= hw->hi)
			want[nwant++] = i;
	}
	for (i = 0; i < ex.ndrops; i++)
		if (ex.drops[i].cpu == cpu && !hw->cleared &&
		    ex.drops[i].seq > hw->lo && ex.drops[i].seq <= hw->hi)
			ndrops++;
	/* in reservation order: ids are in order of return, not of reservation */
	for (i = 1; i < nwant; i++) {
		int v = want[i], j = i;

		while (j > 0 && ex.recs[want[j - 1]].resv_seq > ex.recs[v].resv_seq) {
			want[j] = want[j - 1];
			j--;
		}
		want[j] = v;
	}

	ret = snaptrace_cpu_stats(ex.buf, which, cpu, &st);
	if (ret) {
		if (!(which == SNAPS && ex.sc->nospare))
			ex_failf("stats %s cpu %d: %d", hn, cpu, ret);
		return;
	}
	it = snaptrace_iter_start(ex.buf, which, cpu);
	if (!IS_ERR(it)) {
		while (niter < EX_MAX_RECS && !snaptrace_iter_next(it, &ex_recbuf[0])) {
			id = ex_check_rec(&ex_recbuf[0], "drain iterator");
			if (id >= 0)
				iter[niter++] = id;
		}
		snaptrace_iter_stop(it);
	}
	if (which == SNAPS) {
		struct ex_acc acc = { walk, 0 };

		snaptrace_snapshot_walk(ex.buf, cpu, &ex_recbuf[0], ex_acc_fn,
					&acc, &open, &pin);
		nwalk = acc.n;
		if (open)
			ex_failf("snapshot cpu %d: walk finds a reservation open", cpu);
	}
	while (ndr < EX_MAX_RECS) {
		ret = snaptrace_consume(ex.buf, which, cpu, &ex_recbuf[0]);
		if (ret)
			break;
		id = ex_check_rec(&ex_recbuf[0], "drain consume");
		if (id < 0)
			continue;
		if (ex.recs[id].consumed++ || ex.recs[id].drained)
			ex_failf("%s cpu %d: record #%d returned again by the drain",
				 hn, cpu, id);
		ex.recs[id].drained = true;
		drained[ndr++] = id;
	}

	/* What was found is the newest part of what belongs here, in order. */
	for (i = 0; i < ndr; i++) {
		const struct ex_rec *r = &ex.recs[drained[i]];

		if (r->cpu != cpu || r->resv_seq <= hw->lo || r->resv_seq > hw->hi ||
		    hw->cleared)
			ex_failf("%s cpu %d: record #%d (reserved at %ld) does not belong (window %ld..%ld%s)",
				 hn, cpu, drained[i], r->resv_seq, hw->lo, hw->hi,
				 hw->cleared ? ", cleared" : "");
	}
	first = nwant - ndr;
	if (first < 0)
		suffix_ok = false;
	for (i = 0; suffix_ok && i < ndr; i++)
		if (want[first + i] != drained[i])
			suffix_ok = false;
	for (i = 0; i < nwant && i < (first > 0 ? first : 0); i++) {
		if (ex.recs[want[i]].consumed && !ex.recs[want[i]].drained)
			nmid++;
		else
			nlost++;
	}
	if (!suffix_ok) {
		char got[256] = "", exp[256] = "";
		size_t gl = 0, el = 0;

		for (i = 0; i < ndr && gl < 200; i++)
			gl += snprintf(got + gl, sizeof(got) - gl, " #%d", drained[i]);
		for (i = 0; i < nwant && el < 200; i++)
			el += snprintf(exp + el, sizeof(exp) - el, " #%d%s", want[i],
				       ex.recs[want[i]].consumed &&
				       !ex.recs[want[i]].drained ? "(read)" : "");
		ex_failf("%s cpu %d: records found [%s ] are not the newest of [%s ]",
			 hn, cpu, got, exp);
	}
	if (niter != ndr || memcmp(iter, drained, ndr * sizeof(int)))
		ex_failf("%s cpu %d: iterator found %d records, consumers %d",
			 hn, cpu, niter, ndr);
	if (which == SNAPS && (nwalk != ndr || memcmp(walk, drained, ndr * sizeof(int))))
		ex_failf("snapshot cpu %d: walk found %d records, consumers %d",
			 cpu, nwalk, ndr);
	/* Counters, exactly. */
	if (st.written != st.read + st.entries + st.overrun + st.dropped ||
	    st.entries != (u64)ndr || st.read != nmid ||
	    st.overrun != nlost || st.written - st.dropped != (u64)nwant ||
	    st.dropped != (u64)ndrops)
		ex_failf("%s cpu %d counters: written %llu read %llu entries %llu overrun %llu dropped %llu; want written %d read %lu entries %d overrun %lu dropped %d",
			 hn, cpu, (unsigned long long)st.written,
			 (unsigned long long)st.read, (unsigned long long)st.entries,
			 (unsigned long long)st.overrun, (unsigned long long)st.dropped,
			 nwant + ndrops, nmid, ndr, nlost, ndrops);
}

static void ex_check_run(void)
{
	long state = atomic_long_read(&ex.buf->state), pub = 0, prev_pub = -1;
	long prev_state = -1;
	int c, i;

	/* The publication of the final state, and of the one before. */
	for (i = 0; i < ex.nev; i++)
		if (ex.ev[i].ring == -1 && ex.ev[i].new == state) {
			prev_state = ex.ev[i].old;
			pub = ex.ev[i].seq;
		}
	for (i = 0; i < ex.nev; i++)
		if (ex.ev[i].ring == -1 && ex.ev[i].new == prev_state)
			prev_pub = ex.ev[i].seq;

	/* Records consumed mid-run: from the role they had when the read began. */
	for (i = 0; i < ex.nrecs; i++) {
		const struct ex_rec *r = &ex.recs[i];

		if (!r->consumed)
			continue;
		if (r->cons_which == LIVE &&
		    ex_boundary_in(r->cpu, r->resv_seq, r->cons_t0))
			ex_failf("live consumer got record #%d, cut or reset before the read began",
				 i);
	}

	for (c = 0; c < ex.sc->ncpu; c++) {
		struct ex_half_want snap = { -1, -1, false }, live = { 0, LONG_MAX, false };
		long cut = -1, lo = 0;

		if (state >= 2) {
			cut = ex_cut_of(state, pub, c);
			if (cut < 0)
				ex_failf("cpu %d: no cut for snapshot %ld", c, state >> 1);
			if (prev_state >= 2)
				lo = ex_cut_of(prev_state, prev_pub, c);
			if (lo < 0)
				lo = 0;
		}
		for (i = 0; i < ex.nev; i++) {
			const struct ex_event *e = &ex.ev[i];

			if (e->ring < 0 || ex.rings[e->ring].cpu != c)
				continue;
			if (ex_ev_reset(e) && e->seq < cut && e->seq > lo)
				lo = e->seq;
			if (ex_ev_clear(e) && e->seq > cut && cut >= 0)
				snap.cleared = true;
		}
		if (cut >= 0) {
			snap.lo = lo;
			snap.hi = cut;
			live.lo = cut;
		}
		for (i = 0; i < ex.nev; i++) {
			const struct ex_event *e = &ex.ev[i];

			if (e->ring >= 0 && ex.rings[e->ring].cpu == c &&
			    ex_ev_reset(e) && e->seq > live.lo)
				live.lo = e->seq;
		}
		if (!ex.sc->nospare)
			ex_check_half(SNAPS, c, &snap);
		ex_check_half(LIVE, c, &live);
	}
	/* No record lost: each one belongs to a half drained, or is gone with cause. */
}

/* ------------------------------------------------------------------ */
/* One run */

static void ex_register_rings(void)
{
	int h, c;

	ex.nrings = 0;
	for (h = 0; h < 2; h++) {
		struct st_half *half = ex.buf->half[h];

		if (!half)
			continue;
		for (c = 0; c < ex.sc->ncpu; c++) {
			ex.head0[ex.nrings] = per_cpu_ptr(half->rings, c)->head.counter;
			ex.rings[ex.nrings++] = (struct ex_ring_id){
				&per_cpu_ptr(half->rings, c)->head,
				&per_cpu_ptr(half->rings, c)->tail, h, c };
		}
	}
	ex.state_addr = &ex.buf->state;
}

static int ex_prog_len(const struct ex_op *ops, int max)
{
	int n = 0;

	while (n < max && ops[n].kind != OP_END)
		n++;
	return n;
}

/* Run @sc once under the schedule the mode gives; returns the failures. */
static int ex_run(const struct ex_scen *sc)
{
	int c, first = -1;

	ex.sc = sc;
	nr_cpu_ids = sc->ncpu;
	ex.cur = NULL;
	ex.points = 0;
	ex.seq = 0;
	ex.clk = 1000;
	ex.nrecs = 0;
	ex.ndrops = 0;
	ex.nev = 0;
	ex.nctx = 0;
	ex.nsched = 0;
	ex.iwant = 0;
	ex.fail[0] = 0;
	ex.failn = 0;
	ex.aborted = false;
	if (!ex.max_points)
		ex.max_points = 200000;
	memset(ex.cpus, 0, sizeof(ex.cpus));

	snaptrace_test_clock = ex_clock;
	snaptrace_test_hook = ex_hook;
	if (sc->home >= 0)
		ex.buf = snaptrace_buffer_alloc_cpu(SNAPTRACE_MIN_SIZE, sc->mode,
						    sc->home);
	else
		ex.buf = snaptrace_buffer_alloc(SNAPTRACE_MIN_SIZE, sc->mode);
	if (IS_ERR(ex.buf)) {
		ex_failf("alloc: %ld", PTR_ERR(ex.buf));
		return 1;
	}
	if (!sc->nospare)
		snaptrace_alloc_snapshot(ex.buf);
	ex_register_rings();

	for (c = 0; c < sc->ncpu; c++) {
		ex.cpus[c].online = true;
		ex.cpus[c].irqs_on = true;
		if (ex_prog_len(sc->task[c], EX_MAX_OPS)) {
			ex_new_ctx(c, EX_TASK, sc->task[c],
				   ex_prog_len(sc->task[c], EX_MAX_OPS));
			if (first < 0)
				first = c;
		}
	}
	if (first >= 0) {
		ex.cur = ex_top(first);
		swapcontext(&ex.main_uc, &ex.cur->uc);
	}
	ex.cur = NULL;
	if (!ex.aborted) {
		ex.check_points = 0;
		ex.checking = true;
		if (setjmp(ex.check_jb)) {
			/*
			 * Left inside a reader, its mutex held: the
			 * buffer cannot be freed, and is left (one a
			 * failing run).
			 */
			ex.checking = false;
			ex.buf = NULL;
			return ex.failn;
		}
		ex_check_run();
		ex.checking = false;
	}
	snaptrace_buffer_free(ex.buf);
	ex.buf = NULL;
	return ex.failn;
}

/* ------------------------------------------------------------------ */
/* Schedules as text: "12n.40c1.55i" (point, then choice), "-" for none */

static void ex_sched_str(char *s, size_t n)
{
	size_t l = 0;
	int i;

	if (!ex.nsched) {
		snprintf(s, n, "-");
		return;
	}
	s[0] = 0;
	for (i = 0; i < ex.nsched && l < n - 32; i++) {
		const struct ex_choice *e = &ex.sched[i];

		if (e->code == 'c')
			l += snprintf(s + l, n - l, "%s%ldc%d", i ? "." : "", e->point, e->arg);
		else
			l += snprintf(s + l, n - l, "%s%ld%c", i ? "." : "", e->point, e->code);
	}
}

static int ex_sched_parse(const char *s, struct ex_choice *out, int max)
{
	int n = 0;

	if (!strcmp(s, "-") || !*s)
		return 0;
	while (*s && n < max) {
		char *end;

		out[n].point = strtol(s, &end, 10);
		out[n].code = *end;
		out[n].arg = 0;
		if (*end != 'c' && *end != 'i' && *end != 'n')
			return -1;
		s = end + 1;
		if (out[n].code == 'c') {
			out[n].arg = strtol(s, &end, 10);
			s = end;
		}
		n++;
		if (*s == '.')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Random scenarios: drawn from a seed */

static struct ex_scen ex_gen_scen;
static char ex_gen_name[64];

static struct ex_op ex_gen_op(u64 *r, int ctx)
{
	static const u16 lens[] = { 16, 20, 24, 104, 108, 17, 112, 500, 2048 };
	u64 x;

	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	x = *r;
	switch (x % (ctx == EX_TASK ? 20 : 12)) {
	case 0 ... 6: {
		struct ex_op o = W(lens[(x >> 8) % 9]);

		if ((x >> 20) % 8 == 0)
			o.jump = EXT_JUMP;
		else if ((x >> 20) % 16 == 1)
			o.jump = ABS_JUMP;
		if ((x >> 24) % 8 == 0)
			o.type = SNAPTRACE_REC_MARKER;
		return o;
	}
	case 7 ... 8:
		return (struct ex_op)SNAP;
	case 9:
		return (struct ex_op)HOLD;
	case 10:
		return (x >> 8) % 2 ? (struct ex_op)RESET : (struct ex_op)CLEAR;
	case 11:
		return (struct ex_op)MODE((x >> 8) % 4 == 0);
	case 12 ... 13:
		return (struct ex_op)CONS((x >> 8) % 2, (x >> 9) % 2 ? ALL : 0, 1 + (x >> 10) % 3);
	case 14:
		return (struct ex_op)ITER((x >> 8) % 2, (x >> 9) % 2 ? ALL : 1);
	case 15:
		return (struct ex_op)WALK(0);
	case 16:
		return (struct ex_op)STATS;
	default:
		return (struct ex_op)W(lens[(x >> 8) % 9]);
	}
}

static const struct ex_scen *ex_gen(u64 seed)
{
	struct ex_scen *sc = &ex_gen_scen;
	u64 r = seed * 0x9E3779B97F4A7C15ULL + 1;
	int c, i, n;

	memset(sc, 0, sizeof(*sc));
	snprintf(ex_gen_name, sizeof(ex_gen_name), "mix-%llu", (unsigned long long)seed);
	sc->name = ex_gen_name;
	sc->about = "random operations drawn from the seed";
	sc->home = -1;
	sc->ncpu = 2 + seed % 2;
	sc->mode = (seed >> 3) % 4 == 0 ? SNAPTRACE_STOP_WHEN_FULL : SNAPTRACE_OVERWRITE;
	for (c = 0; c < sc->ncpu; c++) {
		n = 2 + (seed >> (4 + c)) % 6;
		for (i = 0; i < n; i++)
			sc->task[c][i] = ex_gen_op(&r, EX_TASK);
		for (i = 0; i < 1 + (int)((seed >> (8 + c)) % 3); i++)
			sc->irq[c][i] = ex_gen_op(&r, EX_IRQ);
		for (i = 0; i < 1 + (int)((seed >> (12 + c)) % 3); i++)
			sc->nmi[c][i] = ex_gen_op(&r, EX_NMI);
	}
	return sc;
}

static const struct ex_scen *ex_find(const char *name)
{
	size_t i;

	if (!strncmp(name, "mix-", 4))
		return ex_gen(strtoull(name + 4, NULL, 10));
	for (i = 0; i < sizeof(ex_scens) / sizeof(ex_scens[0]); i++)
		if (!strcmp(ex_scens[i].name, name))
			return &ex_scens[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Modes */

static const char *ex_prog;
static long ex_failures, ex_runs;
static int ex_max_reports = 3;
static bool ex_first;	/* --first: stop at the first failing run */

/*
 * Make the failing schedule just taken shorter: drop each choice in turn
 * while the run still fails (replayed leniently: a choice no longer
 * possible is skipped), then take the result strictly once more.
 */
static void ex_minimise(const struct ex_scen *sc)
{
	static struct ex_choice cur[EX_MAX_SCHED], try[EX_MAX_SCHED];
	static struct ex_choice orig[EX_MAX_SCHED];
	static char fail[sizeof(ex.fail)];
	int n = ex.nsched, i, j, m, norig = ex.nsched;
	enum ex_sched_mode mode = ex.mode;

	memcpy(cur, ex.sched, n * sizeof(cur[0]));
	memcpy(orig, ex.sched, n * sizeof(cur[0]));
	memcpy(fail, ex.fail, sizeof(fail));
	ex.mode = EX_REPLAY;
	ex.lenient = true;
	for (i = n - 1; i >= 0; i--) {
		for (j = 0, m = 0; j < n; j++)
			if (j != i)
				try[m++] = cur[j];
		ex.want = try;
		ex.nwant = m;
		if (ex_run(sc)) {
			memcpy(cur, ex.sched, ex.nsched * sizeof(cur[0]));
			n = ex.nsched;
			if (i > n)
				i = n;
		}
	}
	ex.lenient = false;
	ex.want = cur;
	ex.nwant = n;
	if (!ex_run(sc)) {
		/* Not reproducible strictly: keep the original. */
		memcpy(ex.fail, fail, sizeof(fail));
		memcpy(ex.sched, orig, norig * sizeof(orig[0]));
		ex.nsched = norig;
	}
	ex.mode = mode;
}

static void ex_report(const struct ex_scen *sc)
{
	static char s[EX_MAX_SCHED * 16];

	ex_failures++;
	if (ex_failures > ex_max_reports)
		return;
	if (ex.mode == EX_RANDOM)
		ex_minimise(sc);
	ex_sched_str(s, sizeof(s));
	printf("FAIL %s (%s)\n", sc->name, sc->about);
	printf("%s", ex.fail);
	printf("  replay: %s --replay %s:%s\n", ex_prog, sc->name, s);
	fflush(stdout);
}

static int ex_replay(const char *arg)
{
	static struct ex_choice want[EX_MAX_SCHED];
	const char *colon = strchr(arg, ':');
	const struct ex_scen *sc;
	char name[128];
	int n;

	/* The name only: a schedule is far longer than any name. */
	snprintf(name, sizeof(name), "%.*s",
		 colon ? (int)(colon - arg) : (int)strlen(arg), arg);
	if (colon)
		colon++;
	sc = ex_find(name);
	if (!sc) {
		fprintf(stderr, "no scenario %s\n", name);
		return 2;
	}
	n = ex_sched_parse(colon ? colon : "-", want, EX_MAX_SCHED);
	if (n < 0) {
		fprintf(stderr, "bad schedule %s\n", colon);
		return 2;
	}
	ex.mode = EX_REPLAY;
	ex.want = want;
	ex.nwant = n;
	ex.trace = true;
	printf("replay %s (%s)\n", sc->name, sc->about);
	ex_run(sc);
	ex.trace = false;
	if (ex.failn) {
		printf("FAIL\n%s", ex.fail);
		return 1;
	}
	printf("ok\n");
	return 0;
}

/* Every schedule of @sc with at most @bound non-default choices. */
static long ex_systematic(const struct ex_scen *sc, int bound, long cap)
{
	static int pick[1 << 20], nopt[1 << 20];
	long runs = 0, fails0 = ex_failures;
	long d;
	int used;

	ex.mode = EX_DFS;
	ex.dfs_pick = pick;
	ex.dfs_nopt = nopt;
	ex.dfs_cap = 1 << 20;
	ex.dfs_prefix = 0;
	for (;;) {
		ex.dfs_len = 0;
		ex_run(sc);
		runs++;
		ex_runs++;
		if (ex.failn)
			ex_report(sc);
		if ((cap && runs >= cap) || (ex_first && ex_failures))
			break;
		/* Backtrack: the deepest choice that may still go one further. */
		used = 0;
		for (d = 0; d < ex.dfs_len; d++)
			used += pick[d] != 0;
		for (d = ex.dfs_len - 1; d >= 0; d--) {
			used -= pick[d] != 0;
			if (pick[d] + 1 < nopt[d] && used + 1 <= bound)
				break;
		}
		if (d < 0)
			break;
		pick[d]++;
		ex.dfs_prefix = d + 1;
	}
	printf("systematic %s: bound %d, %ld schedules, %ld failing\n", sc->name,
	       bound, runs, ex_failures - fails0);
	fflush(stdout);
	return runs;
}

static void ex_random_one(const struct ex_scen *sc, u64 seed)
{
	static const int psw[] = { 2, 4, 16, 64, 256 };
	static const int pint[] = { 8, 32, 128, 512 };

	ex.mode = EX_RANDOM;
	ex.rng = seed * 0xD1342543DE82EF95ULL + 7;
	ex.p_sw = psw[seed % 5];
	ex.p_irq = pint[(seed >> 3) % 4];
	ex.p_nmi = pint[(seed >> 5) % 4];
	ex_run(sc);
	ex_runs++;
	if (ex.failn)
		ex_report(sc);
}

static void ex_usage(void)
{
	size_t i;

	printf("usage: %s [--list] [--systematic [NAME...]] [--bound N]\n"
	       "       [--random RUNS] [--seed S] [--replay NAME:SCHEDULE] [--reports N]\n"
	       "       [--first]   (stop at the first failing run)\n"
	       "scenarios:\n", ex_prog);
	for (i = 0; i < sizeof(ex_scens) / sizeof(ex_scens[0]); i++)
		printf("  %-32s %s\n", ex_scens[i].name, ex_scens[i].about);
	printf("  mix-SEED                         random operations drawn from SEED\n");
}

int main(int argc, char **argv)
{
	long random_runs = 0, i;
	u64 seed = 1;
	int bound = -1, a, nnames = 0;
	const char *names[64];
	bool systematic = false;
	size_t k;

	ex_prog = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--replay") && a + 1 < argc)
			return ex_replay(argv[++a]);
		else if (!strcmp(argv[a], "--list")) {
			ex_usage();
			return 0;
		} else if (!strcmp(argv[a], "--systematic"))
			systematic = true;
		else if (!strcmp(argv[a], "--bound") && a + 1 < argc)
			bound = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--random") && a + 1 < argc)
			random_runs = atol(argv[++a]);
		else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			seed = strtoull(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--reports") && a + 1 < argc)
			ex_max_reports = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--first"))
			ex_first = true;
		else if (argv[a][0] != '-' && nnames < 64)
			names[nnames++] = argv[a];
		else {
			ex_usage();
			return 2;
		}
	}
	if (systematic) {
		if (!nnames)
			for (k = 0; k < sizeof(ex_scens) / sizeof(ex_scens[0]); k++)
				names[nnames++] = ex_scens[k].name;
		for (a = 0; a < nnames; a++) {
			const struct ex_scen *sc = ex_find(names[a]);

			if (!sc) {
				fprintf(stderr, "no scenario %s\n", names[a]);
				return 2;
			}
			ex_systematic(sc, bound >= 0 ? bound : sc->bound, sc->max_runs);
			if (ex_first && ex_failures)
				break;
		}
	}
	if (random_runs) {
		long f0 = ex_failures;

		for (i = 0; i < random_runs && !(ex_first && ex_failures); i++) {
			u64 s = seed + i;

			/* Named scenarios given: random schedules of those. */
			ex_random_one(nnames && !systematic ?
				      ex_find(names[i % nnames]) : ex_gen(s), s);
		}
		printf("random: %ld runs from seed %llu, %ld failing\n", i,
		       (unsigned long long)seed, ex_failures - f0);
	}
	printf("explore: %ld runs, %ld failing\n", ex_runs, ex_failures);
	return ex_failures ? 1 : 0;
}
