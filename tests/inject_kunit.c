// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests that put a snapshot, a clear, a reset or a nested writer
 * *inside* a writer's window, deterministically, through the ring
 * buffer's test hook (snaptrace_test_hook, KUnit builds only), and check
 * the exact contents of both halves record by record and their exact
 * counters against a model of the contract (issue 15):
 *
 * - exact cut, per CPU: a record whose reservation took effect before the
 *   cut (hook at WRITE_RESERVED, WRITE_PUSHED, WRITE_COMMIT) is in the
 *   snapshot once committed, and not in live; a record reserved after it
 *   (hook at WRITE_LOOKUP, WRITE_RESERVE) is in live, not in the
 *   snapshot; records overwritten by the ring's own wrap before the cut
 *   are counted in the snapshot's overrun, nothing else is lost;
 * - stop-when-full: a writer whose full ring was emptied by a snapshot
 *   before its reservation succeeds, and nothing is counted as dropped in
 *   the snapshot for it; a refusal already decided (WRITE_FULL) is
 *   counted in the half where it was decided;
 * - a nested writer before WRITE_RESERVED comes first in the CPU's order,
 *   after it comes second; both intact, no gap;
 * - snapshot(), clear_snapshot() and reset() from inside a writer (any
 *   context: the hook's own, softirq, hardirq, NMI) never fail and never
 *   sleep; a record open across a clear leaves no counter off by one;
 * - a snapshot inside a snapshot (SNAP_PENDED/PUBLISHED/SEALED): both
 *   return 0, the result is one consistent cut;
 * - a snapshot inside a consumer (CONSUME): returns 0, the consumer does
 *   not remove a record from the snapshot.
 *
 * Every case writes 48-byte payloads (64-byte records) on one CPU, in a
 * kworker bound to it. Nothing is assumed about where an epoch of a ring
 * starts (a snapshot or clear may start the next one off a 64-byte
 * boundary): a full overwrite ring is written two laps and more, so it
 * holds exactly size / 64 records, each new one overwriting exactly one;
 * a full stop-when-full ring is filled up to its first refusal, and the
 * model takes the capacity it found (size / 64, or one less). Padding at
 * the ring's end is the only gap in positions allowed.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <kunit/resource.h>
#include <kunit/test.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

/* Records of 64 bytes in either layout. */
#define INJ_REC		64
#define INJ_LEN		ST_LEN_REC64
#define INJ_SIZE	SNAPTRACE_MIN_SIZE
#define INJ_CAP		(INJ_SIZE / INJ_REC)
static_assert(INJ_LEN % ST_REC_ALIGN == 0 && (ST_LAYOUT8 || INJ_LEN <= ST_SHORT_MAX));
/* Records in the snapshot before each case, and written after the one hit. */
#define INJ_OLD		5
#define INJ_AFTER	3
/* Records before the hit one when the ring is not full. */
#define INJ_FEW		10
/*
 * Overwrite mode, full: records before the hit one, two laps and this
 * many: an epoch need not start at a multiple of 64 bytes, but its first
 * wrap pads to the ring's end, and from the second lap on the ring holds
 * exactly INJ_CAP records, each new one overwriting exactly one.
 */
#define INJ_WRAPPED	3
#define INJ_FULL_OW	(2 * INJ_CAP + INJ_WRAPPED)
/* Sequence numbers of the records the first snapshot holds. */
#define INJ_OLD_SEQ	900
/* Ids: a sequence number, with this bit for records of nested writers. */
#define INJ_NESTED	0x80000000U
#define INJ_MAXR	512

static const char *const inj_step_name[] = {
	[ST_STEP_WRITE_LOOKUP] = "LOOKUP",
	[ST_STEP_WRITE_RESERVE] = "RESERVE",
	[ST_STEP_WRITE_RESERVED] = "RESERVED",
	[ST_STEP_WRITE_PUSHED] = "PUSHED",
	[ST_STEP_WRITE_COMMIT] = "COMMIT",
	[ST_STEP_WRITE_FULL] = "FULL",
	[ST_STEP_OPEN] = "OPEN",
	[ST_STEP_OPEN_LAST] = "OPEN_LAST",
	[ST_STEP_SNAP_PENDED] = "SNAP_PENDED",
	[ST_STEP_SNAP_PUBLISHED] = "SNAP_PUBLISHED",
	[ST_STEP_SNAP_SEALED] = "SNAP_SEALED",
	[ST_STEP_CONSUME] = "CONSUME",
	[ST_STEP_COUNT_DROPPED] = "COUNT_DROPPED",
	[ST_STEP_SNAP_SETTLED] = "SNAP_SETTLED",
	[ST_STEP_CONSUMED] = "CONSUMED",
};

/* ---- the hook: installed for one test, removed however it ends ---- */

static void inj_hook_remove(void *unused)
{
	WRITE_ONCE(snaptrace_test_hook, NULL);
	synchronize_rcu();
}

static void inj_hook_install(struct kunit *test,
			     void (*hook)(struct snaptrace_buffer *buf,
					  enum snaptrace_test_step step, int cpu))
{
	KUNIT_ASSERT_NULL_MSG(test, READ_ONCE(snaptrace_test_hook),
			      "another test left its hook");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, inj_hook_remove, NULL), 0);
	WRITE_ONCE(snaptrace_test_hook, hook);
}

/* ---- a model of one CPU's two halves, from the contract ---- */

struct inj_half {
	u32 id[INJ_MAXR];
	unsigned int first;
	unsigned int n;
	unsigned int cap;	/* records it holds; 0: INJ_CAP */
	u64 written;
	u64 overrun;
	u64 dropped;
	u64 read;
};

struct inj_model {
	struct inj_half live;
	struct inj_half snap;
	enum snaptrace_mode mode;
};

static void inj_half_clear(struct inj_half *h)
{
	memset(h, 0, sizeof(*h));
}

/* One record offered to @h; true if it is kept. */
static bool inj_half_write(struct inj_half *h, enum snaptrace_mode mode, u32 id)
{
	h->written++;
	if (h->n == (h->cap ? h->cap : INJ_CAP)) {
		if (mode == SNAPTRACE_STOP_WHEN_FULL) {
			h->dropped++;
			return false;
		}
		h->first++;
		h->n--;
		h->overrun++;
	}
	if (WARN_ON(h->first + h->n >= INJ_MAXR))
		return false;
	h->id[h->first + h->n++] = id;
	return true;
}

/* The hit record alone in an emptied half: kept, or its refusal counted. */
static void inj_half_hit(struct inj_half *h, enum snaptrace_mode mode, u32 id, bool kept)
{
	if (kept) {
		inj_half_write(h, mode, id);
	} else {
		h->written++;
		h->dropped++;
	}
}

static bool inj_write(struct inj_model *m, u32 id)
{
	return inj_half_write(&m->live, m->mode, id);
}

static void inj_snapshot(struct inj_model *m)
{
	m->snap = m->live;
	inj_half_clear(&m->live);
}

/* ---- what a half holds, read back ---- */

struct inj_found {
	u32 id[INJ_MAXR];
	u64 pos[INJ_MAXR];
	unsigned int n;
	unsigned int torn;	/* not an intact DATA record of our CPU */
	unsigned int gaps;	/* pos not right after the previous record */
	u64 pad;		/* bytes skipped at the ring's end between two */
	int end;		/* what ended the iteration */
	u64 first_ts;
	struct snaptrace_stats st;
};

static u32 inj_id(const struct st_hdr *h)
{
	return h->seq | (h->magic == ST_MAGIC_IRQ ? INJ_NESTED : 0);
}

static void inj_read_half(struct kunit *test, struct snaptrace_buffer *buf,
			  enum snaptrace_which which, int cpu, struct snaptrace_record *rec,
			  struct inj_found *f)
{
	struct snaptrace_iter *it;
	struct st_hdr h;
	int rc;

	memset(f, 0, sizeof(*f));
	KUNIT_ASSERT_EQ(test, snaptrace_cpu_stats(buf, which, cpu, &f->st), 0);
	it = snaptrace_iter_start(buf, which, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	for (;;) {
		rc = snaptrace_iter_next(it, rec);
		if (rc)
			break;
		if (f->n == INJ_MAXR) {
			rc = -E2BIG;
			break;
		}
		if (rec->cpu != cpu || !st_payload_ok(rec, &h) || rec->len != INJ_LEN) {
			f->torn++;
			continue;
		}
		if (!f->n) {
			f->first_ts = rec->ts;
		} else if (rec->pos != f->pos[f->n - 1] + INJ_REC) {
			u64 end = f->pos[f->n - 1] + INJ_REC;

			/* The ring's own wrap: padding to its end, < one record. */
			if (rec->pos > end && rec->pos - end < INJ_REC &&
			    !(rec->pos & (INJ_SIZE - 1)))
				f->pad += rec->pos - end;
			else
				f->gaps++;
		}
		f->id[f->n] = inj_id(&h);
		f->pos[f->n] = rec->pos;
		f->n++;
	}
	snaptrace_iter_stop(it);
	f->end = rc;
}

/*
 * The bytes the records take, with the padding between them; a padding
 * before the oldest one (tail on it) may add less than a record.
 */
static bool inj_bytes_ok(const struct inj_found *f)
{
	u64 min = (u64)f->n * INJ_REC + f->pad;

	return f->st.bytes >= min && f->st.bytes < min + (f->n ? INJ_REC : 1);
}

static bool inj_matches(const struct inj_found *f, const struct inj_half *w)
{
	unsigned int i;

	if (f->end != -ENODATA || f->torn || f->gaps || f->n != w->n)
		return false;
	for (i = 0; i < w->n; i++)
		if (f->id[i] != w->id[w->first + i])
			return false;
	return f->st.entries == w->n && f->st.written == w->written &&
	       f->st.overrun == w->overrun && f->st.dropped == w->dropped &&
	       f->st.read == w->read && inj_bytes_ok(f) &&
	       f->st.oldest_ts == (w->n ? f->first_ts : 0);
}

static void inj_ids_str(char *s, size_t len, const u32 *id, unsigned int n)
{
	size_t o = 0;
	unsigned int i;

	s[0] = '\0';
	for (i = 0; i < n && o + 16 < len; i++) {
		/* Runs of consecutive ids as a-b. */
		unsigned int j = i;

		while (j + 1 < n && id[j + 1] == id[j] + 1)
			j++;
		o += scnprintf(s + o, len - o, "%s%s%u", i ? "," : "",
			       id[i] & INJ_NESTED ? "N" : "", id[i] & ~INJ_NESTED);
		if (j > i)
			o += scnprintf(s + o, len - o, "-%u", id[j] & ~INJ_NESTED);
		i = j;
	}
}

/* Reports every difference between what @f found and the model @w. */
static void inj_expect(struct kunit *test, const char *what,
		       const struct inj_found *f, const struct inj_half *w)
{
	char *a = kunit_kzalloc(test, 512, GFP_KERNEL);
	char *b = kunit_kzalloc(test, 512, GFP_KERNEL);
	unsigned int i;
	bool same;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	same = f->n == w->n;
	for (i = 0; same && i < w->n; i++)
		same = f->id[i] == w->id[w->first + i];
	if (!same) {
		inj_ids_str(a, 512, f->id, f->n);
		inj_ids_str(b, 512, w->id + w->first, w->n);
	}
	KUNIT_EXPECT_TRUE_MSG(test, same, "%s: records found [%s], expected [%s]",
			      what, a, b);
	KUNIT_EXPECT_EQ_MSG(test, f->end, -ENODATA, "%s: iteration end", what);
	KUNIT_EXPECT_EQ_MSG(test, f->torn, 0, "%s: torn or foreign records", what);
	KUNIT_EXPECT_EQ_MSG(test, f->gaps, 0, "%s: gaps in positions", what);
	KUNIT_EXPECT_EQ_MSG(test, f->st.entries, (u64)w->n, "%s: entries", what);
	KUNIT_EXPECT_EQ_MSG(test, f->st.entries, (u64)f->n, "%s: entries vs found", what);
	KUNIT_EXPECT_EQ_MSG(test, f->st.written, w->written, "%s: written", what);
	KUNIT_EXPECT_EQ_MSG(test, f->st.overrun, w->overrun, "%s: overrun", what);
	KUNIT_EXPECT_EQ_MSG(test, f->st.dropped, w->dropped, "%s: dropped", what);
	KUNIT_EXPECT_EQ_MSG(test, f->st.read, w->read, "%s: read", what);
	KUNIT_EXPECT_TRUE_MSG(test, inj_bytes_ok(f), "%s: bytes %llu for %u records, %llu padding",
			      what, f->st.bytes, f->n, f->pad);
	KUNIT_EXPECT_EQ_MSG(test, f->st.oldest_ts, f->n ? f->first_ts : 0,
			    "%s: oldest_ts", what);
	kunit_kfree(test, a);
	kunit_kfree(test, b);
}

/* Checks a half against the model, or against @alt when that matches. */
static void inj_check_half(struct kunit *test, struct snaptrace_buffer *buf,
			   enum snaptrace_which which, int cpu,
			   const struct inj_half *w, const struct inj_half *alt)
{
	const char *what = which == SNAPTRACE_LIVE ? "live" : "snapshot";
	struct snaptrace_record *rec = st_rec_new(test);
	struct inj_found *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	inj_read_half(test, buf, which, cpu, rec, f);
	if (alt && !inj_matches(f, w) && inj_matches(f, alt))
		w = alt;
	inj_expect(test, what, f, w);
	kunit_kfree(test, f);
	kunit_kfree(test, rec);
}

/* Every other CPU: both halves empty, every counter 0. */
static void inj_check_others(struct kunit *test, struct snaptrace_buffer *buf, int cpu)
{
	int other;

	for_each_possible_cpu(other) {
		if (other == cpu)
			continue;
		st_expect_empty(test, buf, SNAPTRACE_LIVE, other);
		st_expect_empty(test, buf, SNAPTRACE_SNAPSHOT, other);
	}
}

/* ---- deterministic injection into one writer ---- */

enum inj_action {
	INJ_SNAP,		/* snaptrace_snapshot() */
	INJ_CLEAR,		/* snaptrace_clear_snapshot() */
	INJ_NEST,		/* a nested snaptrace_write() */
	INJ_SNAP_CLEAR,		/* snapshot(), then clear_snapshot() */
	INJ_RESET,		/* snaptrace_reset() */
};

static const char *const inj_action_name[] = {
	[INJ_SNAP] = "snapshot",
	[INJ_CLEAR] = "clear",
	[INJ_NEST] = "nested-write",
	[INJ_SNAP_CLEAR] = "snapshot+clear",
	[INJ_RESET] = "reset",
};

/* Where the action runs: in the hook, or in a context raised from it. */
enum inj_where {
	INJ_IN_HOOK,
	INJ_IN_SOFTIRQ,		/* a tasklet run by local_bh_enable() */
	INJ_IN_HARDIRQ,		/* a hard irq_work, raised and waited for */
	INJ_IN_NMI,		/* a self-NMI */
};

static const char *const inj_where_name[] = {
	[INJ_IN_HOOK] = "hook",
	[INJ_IN_SOFTIRQ] = "softirq",
	[INJ_IN_HARDIRQ] = "hardirq",
	[INJ_IN_NMI] = "nmi",
};

struct inj_case {
	enum snaptrace_mode mode;
	bool full;
	bool empty;		/* the hit record is the first since the snapshot */
	enum snaptrace_test_step step;
	enum inj_action action;
	enum inj_where where;
};

struct inj_ctx {
	struct snaptrace_buffer *buf;
	const struct inj_case *c;
	int cpu;
	atomic_t armed;
	atomic_t fired;
	atomic_t seen[ST_STEP_NR];
	struct st_job *job;
	bool job_ran;		/* the raised context ran (and was the one asked) */
	bool job_in_ctx;
	int rc[2];		/* what the action's calls returned */
	u32 nested_seq;
	/* The writer's side. */
	u8 scratch[INJ_LEN];
	unsigned int prefill;
	unsigned int fit;	/* stop-when-full: records the ring took */
	int old_rc[INJ_OLD + 1];
	int pre_bad;		/* prefill writes that failed */
	int hit_rc;
	int after_rc[INJ_AFTER];
	bool wrong_cpu;
};

static struct inj_ctx *inj_cur;

static void inj_do(struct inj_ctx *x)
{
	u8 p[INJ_LEN];

	switch (x->c->action) {
	case INJ_SNAP:
		x->rc[0] = snaptrace_snapshot(x->buf);
		break;
	case INJ_CLEAR:
		x->rc[0] = snaptrace_clear_snapshot(x->buf);
		break;
	case INJ_NEST:
		st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, x->cpu, x->nested_seq);
		x->rc[0] = snaptrace_write(x->buf, p, sizeof(p));
		break;
	case INJ_SNAP_CLEAR:
		x->rc[0] = snaptrace_snapshot(x->buf);
		x->rc[1] = snaptrace_clear_snapshot(x->buf);
		break;
	case INJ_RESET:
		snaptrace_reset(x->buf);
		x->rc[0] = 0;
		break;
	}
}

static void inj_job_fn(struct st_job *job)
{
	inj_do(job->data);
}

/* Runs the action where the case says; preemption is off (a writer step). */
static void inj_act(struct inj_ctx *x)
{
	struct st_job *job = x->job;

	switch (x->c->where) {
	case INJ_IN_HOOK:
		inj_do(x);
		return;
	case INJ_IN_SOFTIRQ:
		/* In task context, local_bh_enable() runs the pending tasklet. */
		local_bh_disable();
		tasklet_schedule(&job->tasklet);
		local_bh_enable();
		break;
	case INJ_IN_HARDIRQ:
	case INJ_IN_NMI:
		preempt_disable();
		st_job_raise(job);
		preempt_enable();
		break;
	}
	x->job_ran = st_job_spin(job);
	if (!x->job_ran && x->c->where == INJ_IN_NMI)
		st_nmi_disarm();
	x->job_in_ctx = job->in_ctx;
}

static void inj_hook(struct snaptrace_buffer *buf, enum snaptrace_test_step step, int cpu)
{
	struct inj_ctx *x = READ_ONCE(inj_cur);

	if (!x || buf != x->buf || step >= ST_STEP_NR)
		return;
	atomic_inc(&x->seen[step]);
	if (step != x->c->step || cpu != x->cpu)
		return;
	if (atomic_cmpxchg(&x->armed, 1, 0) != 1)
		return;
	atomic_inc(&x->fired);
	inj_act(x);
}

static int inj_write_one(struct inj_ctx *x, u32 seq)
{
	st_payload_fill(x->scratch, INJ_LEN, ST_MAGIC, x->cpu, seq);
	return snaptrace_write(x->buf, x->scratch, INJ_LEN);
}

/*
 * The writer, on x->cpu: INJ_OLD records then a snapshot (so the snapshot
 * holds something to lose), the prefill, the record hit by the hook, and
 * INJ_AFTER more.
 */
static long inj_writer(void *data)
{
	struct inj_ctx *x = data;
	unsigned int i;
	int rc;

	preempt_disable();
	x->wrong_cpu = smp_processor_id() != x->cpu;
	for (i = 0; i < INJ_OLD; i++)
		x->old_rc[i] = inj_write_one(x, INJ_OLD_SEQ + i);
	x->old_rc[INJ_OLD] = snaptrace_snapshot(x->buf);
	if (x->c->mode == SNAPTRACE_STOP_WHEN_FULL && x->c->full) {
		/* Fill it: up to the first refusal, which the model counts. */
		for (i = 0; i <= INJ_CAP; i++) {
			rc = inj_write_one(x, i);
			if (rc == -ENOSPC)
				break;
			if (rc)
				x->pre_bad++;
		}
		x->fit = i;
		x->prefill = i + 1;
	} else {
		for (i = 0; i < x->prefill; i++)
			if (inj_write_one(x, i))
				x->pre_bad++;
	}
	atomic_set(&x->armed, 1);
	x->hit_rc = inj_write_one(x, x->prefill);
	atomic_set(&x->armed, 0);
	for (i = 0; i < INJ_AFTER; i++)
		x->after_rc[i] = inj_write_one(x, x->prefill + 1 + i);
	preempt_enable();
	return 0;
}

static bool inj_before_reserved(enum snaptrace_test_step step)
{
	return step == ST_STEP_WRITE_LOOKUP || step == ST_STEP_WRITE_RESERVE ||
	       step == ST_STEP_OPEN;
}

#define INJ_MAX_CASES 256
static struct inj_case inj_cases[INJ_MAX_CASES];
static unsigned int inj_ncases;

static void inj_cases_build(void)
{
	static const enum snaptrace_test_step steps[] = {
		ST_STEP_WRITE_LOOKUP, ST_STEP_WRITE_RESERVE, ST_STEP_WRITE_RESERVED,
		ST_STEP_WRITE_PUSHED, ST_STEP_WRITE_COMMIT, ST_STEP_WRITE_FULL,
	};
	const unsigned int nsteps = ARRAY_SIZE(steps);
	unsigned int i, s, full, m, a, where;

	inj_ncases = 0;
	/* where x action x mode x full x step, the step varying fastest */
	for (i = 0; i < (INJ_IN_NMI + 1) * (INJ_RESET + 1) * 2 * 2 * nsteps; i++) {
		enum snaptrace_mode mode;
		bool stop_full, at_full;

		s = i % nsteps;
		full = i / nsteps % 2;
		m = i / nsteps / 2 % 2;
		a = i / nsteps / 4 % (INJ_RESET + 1);
		where = i / nsteps / 4 / (INJ_RESET + 1);
		mode = m ? SNAPTRACE_STOP_WHEN_FULL : SNAPTRACE_OVERWRITE;
		stop_full = mode == SNAPTRACE_STOP_WHEN_FULL && full;

		/* Other contexts: the snapshot and the nested writer. */
		if (where != INJ_IN_HOOK && a != INJ_SNAP && a != INJ_NEST)
			continue;
		/* A full stop-when-full ring: the lookup, then the refusal. */
		at_full = steps[s] == ST_STEP_WRITE_FULL;
		if (stop_full != at_full && !(stop_full && steps[s] == ST_STEP_WRITE_LOOKUP))
			continue;
		/* PUSHED needs a push: only a wrapping overwrite is sure to. */
		if (steps[s] == ST_STEP_WRITE_PUSHED && (m || !full))
			continue;
		if (WARN_ON(inj_ncases == INJ_MAX_CASES))
			return;
		inj_cases[inj_ncases++] = (struct inj_case){
			.mode = mode, .full = full, .step = steps[s],
			.action = a, .where = where,
		};
	}
	/*
	 * OPEN: the hit record is the first on its CPU since the snapshot,
	 * so its writer opens the ring (new epoch, baselines) and is hit
	 * there, before its reservation.
	 */
	for (i = 0; i < (INJ_IN_NMI + 1) * (INJ_RESET + 1) * 2; i++) {
		m = i % 2;
		a = i / 2 % (INJ_RESET + 1);
		where = i / 2 / (INJ_RESET + 1);
		if (where != INJ_IN_HOOK && a != INJ_SNAP && a != INJ_NEST)
			continue;
		if (WARN_ON(inj_ncases == INJ_MAX_CASES))
			return;
		inj_cases[inj_ncases++] = (struct inj_case){
			.mode = m ? SNAPTRACE_STOP_WHEN_FULL : SNAPTRACE_OVERWRITE,
			.empty = true, .step = ST_STEP_OPEN, .action = a, .where = where,
		};
	}
}

static const void *inj_gen_(const void *prev, char *desc)
{
	const struct inj_case *c = prev;

	if (!c) {
		inj_cases_build();
		c = inj_cases;
	} else {
		c++;
	}
	if (c >= inj_cases + inj_ncases)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s-%s %s %s in %s",
		 c->mode == SNAPTRACE_OVERWRITE ? "overwrite" : "stop",
		 c->empty ? "empty" : c->full ? "full" : "room", inj_step_name[c->step],
		 inj_action_name[c->action], inj_where_name[c->where]);
	return c;
}

static void inj_skip_unsupported(struct kunit *test, enum inj_where where)
{
	if (where == INJ_IN_SOFTIRQ && IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: softirqs run in threads, never inside a writer");
}

static struct st_job *inj_job_new(struct kunit *test, struct snaptrace_buffer *buf,
				  enum inj_where where, void (*fn)(struct st_job *job))
{
	static const enum st_ctx ctx[] = {
		[INJ_IN_SOFTIRQ] = ST_CTX_SOFTIRQ,
		[INJ_IN_HARDIRQ] = ST_CTX_IRQ_WORK,
		[INJ_IN_NMI] = ST_CTX_NMI,
	};

	if (where == INJ_IN_HOOK)
		return NULL;
	return st_job_new(test, buf, ctx[where], fn);
}

static void inj_clear_cur(void *unused)
{
	WRITE_ONCE(inj_cur, NULL);
}

/*
 * One writer on one CPU; at the record hit, at the case's step, the case's
 * action: then both halves hold exactly what the model says, record by
 * record, with exact counters, and every other CPU is untouched.
 */
static void inject_writer_step(struct kunit *test)
{
	const struct inj_case *c = test->param_value;
	struct inj_model *m, *alt_m;
	const struct inj_half *alt_live = NULL, *alt_snap = NULL;
	struct snaptrace_buffer *buf;
	struct inj_ctx *x;
	bool before = inj_before_reserved(c->step), kept;
	unsigned int i;
	u32 hit;
	int cpu = st_cpu(), want;

	inj_skip_unsupported(test, c->where);
	x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	alt_m = kunit_kzalloc(test, sizeof(*alt_m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, alt_m);
	buf = st_buf_new(test, INJ_SIZE, c->mode);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	x->buf = buf;
	x->c = c;
	x->cpu = cpu;
	x->rc[0] = -EINPROGRESS;
	x->rc[1] = -EINPROGRESS;
	/* Stop-when-full and full: the writer fills it and sets this. */
	x->prefill = c->empty ? 0 : !c->full ? INJ_FEW : INJ_FULL_OW;
	x->job = inj_job_new(test, buf, c->where, inj_job_fn);
	if (x->job)
		x->job->data = x;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, inj_clear_cur, NULL), 0);
	WRITE_ONCE(inj_cur, x);
	inj_hook_install(test, inj_hook);
	work_on_cpu(cpu, inj_writer, x);
	inj_hook_remove(NULL);
	WRITE_ONCE(inj_cur, NULL);

	KUNIT_ASSERT_FALSE_MSG(test, x->wrong_cpu, "writer not on cpu %d", cpu);
	for (i = 0; i <= INJ_OLD; i++)
		KUNIT_ASSERT_EQ_MSG(test, x->old_rc[i], 0, "setup call %u", i);
	KUNIT_ASSERT_EQ(test, x->pre_bad, 0);
	if (c->mode == SNAPTRACE_STOP_WHEN_FULL && c->full) {
		/* An epoch may start off a record boundary: one less fits. */
		KUNIT_ASSERT_GE_MSG(test, x->fit, INJ_CAP - 1, "stop-when-full took %u", x->fit);
		KUNIT_ASSERT_LE_MSG(test, x->fit, INJ_CAP, "stop-when-full took %u", x->fit);
	}
	if (!atomic_read(&x->fired)) {
		KUNIT_FAIL(test,
			   "the hook never reached %s (steps seen: lookup %d reserve %d reserved %d pushed %d commit %d full %d open %d)",
			   inj_step_name[c->step],
			   atomic_read(&x->seen[ST_STEP_WRITE_LOOKUP]),
			   atomic_read(&x->seen[ST_STEP_WRITE_RESERVE]),
			   atomic_read(&x->seen[ST_STEP_WRITE_RESERVED]),
			   atomic_read(&x->seen[ST_STEP_WRITE_PUSHED]),
			   atomic_read(&x->seen[ST_STEP_WRITE_COMMIT]),
			   atomic_read(&x->seen[ST_STEP_WRITE_FULL]),
			   atomic_read(&x->seen[ST_STEP_OPEN]));
		return;
	}
	if (c->where != INJ_IN_HOOK) {
		if (!x->job_ran && c->where == INJ_IN_NMI)
			kunit_skip(test, "the self-NMI never arrived");
		KUNIT_ASSERT_TRUE_MSG(test, x->job_ran, "%s never ran", inj_where_name[c->where]);
		KUNIT_EXPECT_TRUE_MSG(test, x->job_in_ctx, "not in %s", inj_where_name[c->where]);
	}

	/*
	 * WRITE_FULL is before the writer's last look at its ring: a
	 * snapshot or reset there empties the live half, and the writer,
	 * finding its ring no longer open at that position, looks again and
	 * records: all must be as if the action came before the reservation.
	 * A clear or a nested writer leaves the live ring full: refused.
	 */
	if (c->step == ST_STEP_WRITE_FULL &&
	    (c->action == INJ_SNAP || c->action == INJ_SNAP_CLEAR ||
	     c->action == INJ_RESET)) {
		KUNIT_EXPECT_EQ_MSG(test, x->hit_rc, 0, "a refusal after the live half emptied");
		before = true;
	}

	/* The model: the first snapshot, the prefill, then the hit record. */
	m->mode = c->mode;
	for (i = 0; i < INJ_OLD; i++)
		inj_write(m, INJ_OLD_SEQ + i);
	inj_snapshot(m);
	if (c->mode == SNAPTRACE_STOP_WHEN_FULL && c->full)
		m->live.cap = x->fit;
	for (i = 0; i < x->prefill; i++)
		inj_write(m, i);
	hit = x->prefill;
	switch (c->action) {
	case INJ_SNAP:
		if (before)
			inj_snapshot(m);
		kept = inj_write(m, hit);
		if (!before)
			inj_snapshot(m);
		break;
	case INJ_CLEAR:
		inj_half_clear(&m->snap);
		kept = inj_write(m, hit);
		break;
	case INJ_NEST:
		if (before)
			inj_write(m, INJ_NESTED | 0);
		kept = inj_write(m, hit);
		if (!before)
			inj_write(m, INJ_NESTED | 0);
		break;
	case INJ_SNAP_CLEAR:
		if (before) {
			inj_snapshot(m);
			inj_half_clear(&m->snap);
			kept = inj_write(m, hit);
		} else {
			/*
			 * The hit record was reserved before the cut, so it
			 * belongs to the snapshot, open across the clear: the
			 * cleared snapshot may hold it once committed (then
			 * counted exactly once), or not at all.
			 */
			*alt_m = *m;
			kept = inj_write(m, hit);
			inj_snapshot(m);
			inj_half_clear(&m->snap);
			inj_snapshot(alt_m);
			inj_half_clear(&alt_m->snap);
			inj_half_hit(&alt_m->snap, c->mode, hit, kept);
			alt_snap = &alt_m->snap;
		}
		break;
	case INJ_RESET:
		if (before) {
			inj_half_clear(&m->live);
			kept = inj_write(m, hit);
		} else {
			/* Open across the reset: in the new live, or gone. */
			*alt_m = *m;
			kept = inj_write(m, hit);
			inj_half_clear(&m->live);
			inj_half_clear(&alt_m->live);
			inj_half_hit(&alt_m->live, c->mode, hit, kept);
			alt_live = &alt_m->live;
		}
		break;
	}
	for (i = 0; i < INJ_AFTER; i++) {
		want = inj_write(m, hit + 1 + i) ? 0 : -ENOSPC;
		if (alt_live || alt_snap)
			inj_write(alt_m, hit + 1 + i);
		KUNIT_EXPECT_EQ_MSG(test, x->after_rc[i], want, "write of record %u", hit + 1 + i);
	}

	/* The calls made by the action. */
	switch (c->action) {
	case INJ_SNAP:
	case INJ_CLEAR:
	case INJ_RESET:
		KUNIT_EXPECT_EQ_MSG(test, x->rc[0], 0, "%s", inj_action_name[c->action]);
		break;
	case INJ_SNAP_CLEAR:
		KUNIT_EXPECT_EQ_MSG(test, x->rc[0], 0, "snapshot");
		KUNIT_EXPECT_EQ_MSG(test, x->rc[1], 0, "clear_snapshot");
		break;
	case INJ_NEST:
		/* The nested record's fate is in the model: in the halves. */
		KUNIT_EXPECT_TRUE_MSG(test, x->rc[0] == 0 || x->rc[0] == -ENOSPC,
				      "nested write %d", x->rc[0]);
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, x->hit_rc, kept ? 0 : -ENOSPC,
			    "the write of record %u, hit at %s", hit, inj_step_name[c->step]);

	inj_check_half(test, buf, SNAPTRACE_SNAPSHOT, cpu, &m->snap, alt_snap);
	inj_check_half(test, buf, SNAPTRACE_LIVE, cpu, &m->live, alt_live);
	inj_check_others(test, buf, cpu);

	/* After a clear, the snapshot is exactly empty: no counter left over. */
	KUNIT_EXPECT_EQ(test, snaptrace_clear_snapshot(buf), 0);
	inj_half_clear(&m->snap);
	inj_check_half(test, buf, SNAPTRACE_SNAPSHOT, cpu, &m->snap, NULL);
	/* And a snapshot now takes live exactly as it is. */
	KUNIT_EXPECT_EQ(test, snaptrace_snapshot(buf), 0);
	inj_snapshot(m);
	if (alt_live)
		inj_snapshot(alt_m);
	inj_check_half(test, buf, SNAPTRACE_SNAPSHOT, cpu, &m->snap,
		       alt_live ? &alt_m->snap : NULL);
	inj_check_half(test, buf, SNAPTRACE_LIVE, cpu, &m->live, NULL);
}

/* ---- a chain: task -> softirq -> hardirq -> NMI on one CPU ---- */

struct inj_chain_case {
	enum snaptrace_mode mode;
	bool full;
	enum snaptrace_test_step s[3];	/* where each level raises the next */
};

struct inj_chain {
	struct snaptrace_buffer *buf;
	const struct inj_chain_case *c;
	int cpu;
	atomic_t armed;
	atomic_t stage;			/* levels raised so far */
	struct st_job *job[3];		/* softirq writer, hardirq writer, NMI snapshot */
	bool ran[3];
	bool in_ctx[3];
	int rc[3];			/* two nested writes, the snapshot */
	u8 scratch[INJ_LEN];
	unsigned int prefill;
	int pre_bad;
	int old_rc[INJ_OLD + 1];
	int hit_rc;
	int after_rc[INJ_AFTER];
	bool wrong_cpu;
};

static struct inj_chain *inj_chain_cur;

static void inj_chain_write_fn(struct st_job *job)
{
	struct inj_chain *x = job->data;
	int level = job == x->job[0] ? 0 : 1;
	u8 p[INJ_LEN];

	st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, x->cpu, level + 1);
	x->rc[level] = snaptrace_write(x->buf, p, sizeof(p));
}

static void inj_chain_snap_fn(struct st_job *job)
{
	struct inj_chain *x = job->data;

	x->rc[2] = snaptrace_snapshot(x->buf);
}

static void inj_chain_hook(struct snaptrace_buffer *buf, enum snaptrace_test_step step,
			   int cpu)
{
	struct inj_chain *x = READ_ONCE(inj_chain_cur);
	struct st_job *job;
	int stage;
	bool here;

	if (!x || buf != x->buf || cpu != x->cpu || !atomic_read(&x->armed))
		return;
	stage = atomic_read(&x->stage);
	if (stage >= 3 || step != x->c->s[stage])
		return;
	/* Each level raises the next from its own context only. */
	switch (stage) {
	case 0:
		here = in_task();
		break;
	case 1:
		here = in_serving_softirq() && !in_hardirq() && !in_nmi();
		break;
	default:
		here = in_hardirq() && !in_nmi();
		break;
	}
	if (!here || atomic_cmpxchg(&x->stage, stage, stage + 1) != stage)
		return;
	job = x->job[stage];
	if (stage == 0) {
		local_bh_disable();
		tasklet_schedule(&job->tasklet);
		local_bh_enable();
	} else {
		st_job_raise(job);
	}
	x->ran[stage] = st_job_spin(job);
	if (!x->ran[stage] && stage == 2)
		st_nmi_disarm();
	x->in_ctx[stage] = job->in_ctx;
}

static int inj_chain_write_one(struct inj_chain *x, u32 seq)
{
	st_payload_fill(x->scratch, INJ_LEN, ST_MAGIC, x->cpu, seq);
	return snaptrace_write(x->buf, x->scratch, INJ_LEN);
}

static long inj_chain_writer(void *data)
{
	struct inj_chain *x = data;
	unsigned int i;

	preempt_disable();
	x->wrong_cpu = smp_processor_id() != x->cpu;
	for (i = 0; i < INJ_OLD; i++)
		x->old_rc[i] = inj_chain_write_one(x, INJ_OLD_SEQ + i);
	x->old_rc[INJ_OLD] = snaptrace_snapshot(x->buf);
	for (i = 0; i < x->prefill; i++)
		if (inj_chain_write_one(x, i))
			x->pre_bad++;
	atomic_set(&x->armed, 1);
	x->hit_rc = inj_chain_write_one(x, x->prefill);
	atomic_set(&x->armed, 0);
	for (i = 0; i < INJ_AFTER; i++)
		x->after_rc[i] = inj_chain_write_one(x, x->prefill + 1 + i);
	preempt_enable();
	return 0;
}

/*
 * The model of the chain: each level's record is reserved before or after
 * the level it raises, by the step it raises it at; the innermost level
 * takes the snapshot. Records kept go to @kept[level].
 */
static void inj_chain_model(struct inj_model *m, const struct inj_chain_case *c,
			    unsigned int level, u32 hit, bool *kept)
{
	u32 id = level ? INJ_NESTED | level : hit;
	bool before;

	if (level == 3) {
		inj_snapshot(m);
		return;
	}
	before = inj_before_reserved(c->s[level]);
	if (before)
		inj_chain_model(m, c, level + 1, hit, kept);
	kept[level] = inj_write(m, id);
	if (!before)
		inj_chain_model(m, c, level + 1, hit, kept);
}

#define INJ_CHAIN_MAX 64
static struct inj_chain_case inj_chain_cases[INJ_CHAIN_MAX];
static unsigned int inj_chain_ncases;

static const void *inj_chain_gen_(const void *prev, char *desc)
{
	static const enum snaptrace_test_step steps[] = {
		ST_STEP_WRITE_RESERVE, ST_STEP_WRITE_RESERVED, ST_STEP_WRITE_COMMIT,
	};
	const struct inj_chain_case *c = prev;
	unsigned int i;

	if (!c) {
		/* state x task step x softirq step x hardirq step */
		for (i = 0; i < 2 * 27; i++)
			inj_chain_cases[i] = (struct inj_chain_case){
				.mode = i / 27 ? SNAPTRACE_STOP_WHEN_FULL : SNAPTRACE_OVERWRITE,
				.full = !(i / 27),
				.s = { steps[i / 9 % 3], steps[i / 3 % 3], steps[i % 3] },
			};
		inj_chain_ncases = 2 * 27;
		c = inj_chain_cases;
	} else {
		c++;
	}
	if (c >= inj_chain_cases + inj_chain_ncases)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s task@%s softirq@%s hardirq@%s nmi-snapshot",
		 c->mode == SNAPTRACE_OVERWRITE ? "overwrite-full" : "stop-room",
		 inj_step_name[c->s[0]], inj_step_name[c->s[1]], inj_step_name[c->s[2]]);
	return c;
}

static void inj_chain_clear_cur(void *unused)
{
	WRITE_ONCE(inj_chain_cur, NULL);
}

/*
 * A task writer raises a softirq writer at one of its steps, which raises
 * a hardirq writer at one of its steps, which takes a snapshot from an NMI
 * at one of its steps: the three records come in the order their
 * reservations took effect, each in the half the cut puts it in, exactly.
 */
static void inject_chain_task_softirq_hardirq_nmi(struct kunit *test)
{
	const struct inj_chain_case *c = test->param_value;
	struct snaptrace_buffer *buf;
	struct inj_chain *x;
	struct inj_model *m;
	bool kept[3] = {};
	unsigned int i;
	int cpu = st_cpu();
	u32 hit;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: softirqs run in threads, never inside a writer");
	x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_NOT_NULL(test, m);
	buf = st_buf_new(test, INJ_SIZE, c->mode);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	x->buf = buf;
	x->c = c;
	x->cpu = cpu;
	for (i = 0; i < 3; i++)
		x->rc[i] = -EINPROGRESS;
	x->prefill = c->full ? INJ_FULL_OW : INJ_FEW;
	x->job[0] = st_job_new(test, buf, ST_CTX_SOFTIRQ, inj_chain_write_fn);
	x->job[1] = st_job_new(test, buf, ST_CTX_IRQ_WORK, inj_chain_write_fn);
	x->job[2] = st_job_new(test, buf, ST_CTX_NMI, inj_chain_snap_fn);
	for (i = 0; i < 3; i++)
		x->job[i]->data = x;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, inj_chain_clear_cur, NULL), 0);
	WRITE_ONCE(inj_chain_cur, x);
	inj_hook_install(test, inj_chain_hook);
	work_on_cpu(cpu, inj_chain_writer, x);
	inj_hook_remove(NULL);
	WRITE_ONCE(inj_chain_cur, NULL);

	KUNIT_ASSERT_FALSE(test, x->wrong_cpu);
	for (i = 0; i <= INJ_OLD; i++)
		KUNIT_ASSERT_EQ_MSG(test, x->old_rc[i], 0, "setup call %u", i);
	KUNIT_ASSERT_EQ(test, x->pre_bad, 0);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&x->stage), 3, "the chain stopped at level %d",
			    atomic_read(&x->stage));
	if (x->ran[0] && x->ran[1] && !x->ran[2])
		kunit_skip(test, "the self-NMI never arrived");
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_TRUE_MSG(test, x->ran[i], "level %u never ran", i + 1);
		KUNIT_EXPECT_TRUE_MSG(test, x->in_ctx[i], "level %u not in its context", i + 1);
	}

	m->mode = c->mode;
	for (i = 0; i < INJ_OLD; i++)
		inj_write(m, INJ_OLD_SEQ + i);
	inj_snapshot(m);
	for (i = 0; i < x->prefill; i++)
		inj_write(m, i);
	hit = x->prefill;
	inj_chain_model(m, c, 0, hit, kept);
	for (i = 0; i < INJ_AFTER; i++)
		KUNIT_EXPECT_EQ_MSG(test, x->after_rc[i], inj_write(m, hit + 1 + i) ? 0 : -ENOSPC,
				    "write of record %u", hit + 1 + i);

	KUNIT_EXPECT_EQ_MSG(test, x->hit_rc, kept[0] ? 0 : -ENOSPC, "task write");
	KUNIT_EXPECT_EQ_MSG(test, x->rc[0], kept[1] ? 0 : -ENOSPC, "softirq write");
	KUNIT_EXPECT_EQ_MSG(test, x->rc[1], kept[2] ? 0 : -ENOSPC, "hardirq write");
	KUNIT_EXPECT_EQ_MSG(test, x->rc[2], 0, "NMI snapshot");
	inj_check_half(test, buf, SNAPTRACE_SNAPSHOT, cpu, &m->snap, NULL);
	inj_check_half(test, buf, SNAPTRACE_LIVE, cpu, &m->live, NULL);
	inj_check_others(test, buf, cpu);
}

/* ---- a snapshot inside a snapshot ---- */

struct inj_snap_case {
	enum snaptrace_test_step step;
	enum inj_where where;
};

static const struct inj_snap_case inj_snap_cases[] = {
	{ ST_STEP_SNAP_PENDED, INJ_IN_HOOK },
	{ ST_STEP_SNAP_PUBLISHED, INJ_IN_HOOK },
	{ ST_STEP_SNAP_SEALED, INJ_IN_HOOK },
	{ ST_STEP_SNAP_PENDED, INJ_IN_NMI },
	{ ST_STEP_SNAP_PUBLISHED, INJ_IN_NMI },
	{ ST_STEP_SNAP_SEALED, INJ_IN_NMI },
};

static void inj_snap_desc(const struct inj_snap_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s snapshot in %s",
		 inj_step_name[c->step], inj_where_name[c->where]);
}

KUNIT_ARRAY_PARAM(inj_snap, inj_snap_cases, inj_snap_desc);

/* A hook that runs one snapshot() at its step, in the hook or an NMI. */
struct inj_simple {
	struct snaptrace_buffer *buf;
	enum snaptrace_test_step step;
	enum inj_where where;
	int cpu;		/* only at this CPU's step, or -1 */
	atomic_t armed;
	atomic_t fired;
	struct st_job *job;
	bool job_ran;
	bool job_in_ctx;
	int rc;
	bool write;		/* write one record before the snapshot */
	u32 write_seq;
	int write_cpu;
	int write_rc;
};

static struct inj_simple *inj_simple_cur;

static void inj_simple_do(struct inj_simple *x)
{
	u8 p[INJ_LEN];

	if (x->write) {
		x->write_cpu = smp_processor_id();
		st_payload_fill(p, sizeof(p), ST_MAGIC_IRQ, x->write_cpu, x->write_seq);
		x->write_rc = snaptrace_write(x->buf, p, sizeof(p));
	}
	x->rc = snaptrace_snapshot(x->buf);
}

static void inj_simple_fn(struct st_job *job)
{
	inj_simple_do(job->data);
}

static void inj_simple_hook(struct snaptrace_buffer *buf, enum snaptrace_test_step step,
			    int cpu)
{
	struct inj_simple *x = READ_ONCE(inj_simple_cur);

	if (!x || buf != x->buf || step != x->step || (x->cpu >= 0 && cpu != x->cpu))
		return;
	if (atomic_cmpxchg(&x->armed, 1, 0) != 1)
		return;
	atomic_inc(&x->fired);
	if (x->where == INJ_IN_HOOK) {
		inj_simple_do(x);
		return;
	}
	preempt_disable();
	st_job_raise(x->job);
	preempt_enable();
	x->job_ran = st_job_spin(x->job);
	if (!x->job_ran)
		st_nmi_disarm();
	x->job_in_ctx = x->job->in_ctx;
}

static void inj_simple_clear_cur(void *unused)
{
	WRITE_ONCE(inj_simple_cur, NULL);
}

static struct inj_simple *inj_simple_new(struct kunit *test, struct snaptrace_buffer *buf,
					 enum snaptrace_test_step step, enum inj_where where,
					 int cpu)
{
	struct inj_simple *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->buf = buf;
	x->step = step;
	x->where = where;
	x->cpu = cpu;
	x->rc = -EINPROGRESS;
	atomic_set(&x->armed, 1);
	if (where == INJ_IN_NMI) {
		x->job = st_job_new(test, buf, ST_CTX_NMI, inj_simple_fn);
		x->job->data = x;
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, inj_simple_clear_cur, NULL), 0);
	WRITE_ONCE(inj_simple_cur, x);
	inj_hook_install(test, inj_simple_hook);
	return x;
}

static void inj_simple_done(struct kunit *test, struct inj_simple *x)
{
	inj_hook_remove(NULL);
	WRITE_ONCE(inj_simple_cur, NULL);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&x->fired), 1, "the hook never reached %s",
			    inj_step_name[x->step]);
	if (x->where == INJ_IN_NMI) {
		if (!x->job_ran)
			kunit_skip(test, "the self-NMI never arrived");
		KUNIT_EXPECT_TRUE(test, x->job_in_ctx);
	}
}

/* Writes @n records seq 0.. of INJ_LEN bytes on @cpu; the model's @h too. */
static void inj_fill(struct kunit *test, struct snaptrace_buffer *buf, int cpu,
		     unsigned int n, u32 seq0, struct inj_half *h)
{
	struct st_wcount wc = st_write_n(test, buf, cpu, n, INJ_LEN, seq0);
	unsigned int i;

	KUNIT_ASSERT_EQ(test, wc.ok, n);
	for (i = 0; i < n; i++)
		inj_half_write(h, SNAPTRACE_OVERWRITE, seq0 + i);
}

/*
 * A snapshot taken inside another one, at each of its steps: both return
 * 0, no miss is counted, and on every CPU the result is one cut. Before
 * the outer one published the roles (SNAP_PENDED) the inner one completes
 * it: the snapshot holds exactly what was written. After (PUBLISHED, or a
 * first CPU SEALED) the inner one completes the outer one's cuts, empties
 * that snapshot as its own first step and cuts the new live rings, where
 * nothing was written: the snapshot is empty. Live is empty.
 */
static void inject_snapshot_in_snapshot(struct kunit *test)
{
	const struct inj_snap_case *c = test->param_value;
	struct snaptrace_buffer *buf = st_buf_new(test, INJ_SIZE, SNAPTRACE_OVERWRITE);
	struct inj_half *w, *empty;
	struct snaptrace_stats st;
	struct inj_simple *x;
	int cpu, n = 0, outer;

	w = kunit_kcalloc(test, nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	empty = kunit_kzalloc(test, sizeof(*empty), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, empty);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	for_each_online_cpu(cpu)
		inj_fill(test, buf, cpu, 10 + 3 * n++, 0, &w[cpu]);

	x = inj_simple_new(test, buf, c->step, c->where, -1);
	outer = snaptrace_snapshot(buf);
	inj_simple_done(test, x);
	KUNIT_EXPECT_EQ_MSG(test, outer, 0, "the outer snapshot");
	KUNIT_EXPECT_EQ_MSG(test, x->rc, 0, "the snapshot inside it");
	st = st_stats(test, buf, SNAPTRACE_LIVE, st_cpu());
	KUNIT_EXPECT_EQ(test, st.snapshot_misses, 0);
	for_each_possible_cpu(cpu) {
		inj_check_half(test, buf, SNAPTRACE_SNAPSHOT, cpu,
			       c->step == ST_STEP_SNAP_PENDED ? &w[cpu] : empty, NULL);
		inj_check_half(test, buf, SNAPTRACE_LIVE, cpu, empty, NULL);
	}
}

/*
 * A record written, then a snapshot taken, inside another snapshot at
 * each of its steps, on a CPU whose live ring holds nothing since the
 * snapshot before (so the writer finds it live-pending, its twin next).
 * The record was reserved before the inner snapshot's cut, so that
 * snapshot holds exactly it, on that CPU; every other half is empty.
 * Before the roles are published the writer must record in the
 * live-pending ring: the next one is still in the spare half, which the
 * inner snapshot seals and empties (a ring its interrupted snapshot left
 * open).
 */
static void inject_write_and_snapshot_in_snapshot(struct kunit *test)
{
	const struct inj_snap_case *c = test->param_value;
	struct snaptrace_buffer *buf = st_buf_new(test, INJ_SIZE, SNAPTRACE_OVERWRITE);
	struct inj_half *w, *empty, *rec;
	struct inj_simple *x;
	int cpu, n = 0, outer;

	w = kunit_kcalloc(test, nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	empty = kunit_kzalloc(test, sizeof(*empty), GFP_KERNEL);
	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, empty);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	for_each_online_cpu(cpu)
		inj_fill(test, buf, cpu, 10 + 3 * n++, 0, &w[cpu]);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);

	x = inj_simple_new(test, buf, c->step, c->where, -1);
	x->write = true;
	x->write_seq = 77;
	x->write_cpu = -1;
	x->write_rc = -EINPROGRESS;
	outer = snaptrace_snapshot(buf);
	inj_simple_done(test, x);
	KUNIT_EXPECT_EQ_MSG(test, outer, 0, "the outer snapshot");
	KUNIT_EXPECT_EQ_MSG(test, x->write_rc, 0, "the write inside it");
	KUNIT_EXPECT_EQ_MSG(test, x->rc, 0, "the snapshot inside it");
	KUNIT_ASSERT_GE(test, x->write_cpu, 0);
	inj_half_write(rec, SNAPTRACE_OVERWRITE, INJ_NESTED | 77);
	for_each_possible_cpu(cpu) {
		inj_check_half(test, buf, SNAPTRACE_SNAPSHOT, cpu,
			       cpu == x->write_cpu ? rec : empty, NULL);
		inj_check_half(test, buf, SNAPTRACE_LIVE, cpu, empty, NULL);
	}
}

/* ---- a snapshot inside a consuming read ---- */

struct inj_consume_case {
	enum snaptrace_which which;
	enum inj_where where;
};

static const struct inj_consume_case inj_consume_cases[] = {
	{ SNAPTRACE_LIVE, INJ_IN_HOOK },
	{ SNAPTRACE_SNAPSHOT, INJ_IN_HOOK },
	{ SNAPTRACE_LIVE, INJ_IN_NMI },
	{ SNAPTRACE_SNAPSHOT, INJ_IN_NMI },
};

static void inj_consume_desc(const struct inj_consume_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "consume %s, snapshot in %s",
		 c->which == SNAPTRACE_LIVE ? "live" : "snapshot", inj_where_name[c->where]);
}

KUNIT_ARRAY_PARAM(inj_consume, inj_consume_cases, inj_consume_desc);

/*
 * A consumer copied the oldest record of one half (CONSUME) when a
 * snapshot comes: it returns 0; the consumer does not remove a record from
 * the new snapshot with its stale copy. The new snapshot holds exactly
 * what live held (records 10..14): all of it when the consumer read live;
 * when it read the snapshot it may instead have consumed, properly, the
 * new snapshot's oldest record (then it returns that one, and read is 1).
 */
static void inject_snapshot_in_consume(struct kunit *test)
{
	const struct inj_consume_case *c = test->param_value;
	struct snaptrace_buffer *buf = st_buf_new(test, INJ_SIZE, SNAPTRACE_OVERWRITE);
	struct snaptrace_record *rec = st_rec_new(test);
	struct inj_half *snap, *alt, *empty;
	struct inj_simple *x;
	struct st_hdr h;
	int cpu = st_cpu(), rc;
	u32 got = U32_MAX;

	snap = kunit_kzalloc(test, sizeof(*snap), GFP_KERNEL);
	alt = kunit_kzalloc(test, sizeof(*alt), GFP_KERNEL);
	empty = kunit_kzalloc(test, sizeof(*empty), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_ASSERT_NOT_NULL(test, alt);
	KUNIT_ASSERT_NOT_NULL(test, empty);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	inj_fill(test, buf, cpu, 10, 0, alt);
	KUNIT_ASSERT_EQ(test, snaptrace_snapshot(buf), 0);
	inj_half_clear(alt);
	inj_fill(test, buf, cpu, 5, 10, snap);

	x = inj_simple_new(test, buf, ST_STEP_CONSUME, c->where, cpu);
	rc = snaptrace_consume(buf, c->which, cpu, rec);
	inj_simple_done(test, x);
	KUNIT_EXPECT_EQ_MSG(test, x->rc, 0, "the snapshot inside the consumer");
	if (!rc) {
		KUNIT_EXPECT_TRUE_MSG(test, st_payload_ok(rec, &h), "consumed a torn record");
		got = inj_id(&h);
	}
	kunit_info(test, "consume returned %d (record %d)\n", rc, rc ? -1 : (int)got);

	/* The new snapshot: live's 10..14, or 11..14 after a proper consume. */
	*alt = *snap;
	alt->first++;
	alt->n--;
	alt->read++;
	if (c->which == SNAPTRACE_LIVE) {
		KUNIT_EXPECT_TRUE_MSG(test, rc == -ENODATA || (rc == 0 && got == 10),
				      "consume of live: %d, record %u", rc, got);
		inj_check_half(test, buf, SNAPTRACE_SNAPSHOT, cpu, snap, NULL);
	} else {
		KUNIT_EXPECT_EQ(test, rc, 0);
		KUNIT_EXPECT_TRUE_MSG(test, got == 0 || got == 10,
				      "consume of the snapshot: record %u", got);
		inj_check_half(test, buf, SNAPTRACE_SNAPSHOT, cpu, got == 10 ? alt : snap, NULL);
	}
	inj_check_half(test, buf, SNAPTRACE_LIVE, cpu, empty, NULL);
}

/* ---- consumers in a tight loop against 10,000 snapshots ---- */

#define INJ_RS_SNAPS		5000	/* from the hrtimer, and as many from NMIs */
#define INJ_RS_PERIOD_NS	(50 * NSEC_PER_USEC)
#define INJ_RS_RECORDS		1000000
#define INJ_RS_SIZE		(2 * SNAPTRACE_MIN_SIZE)
/* Bound on the run: 100 ms steps. */
#define INJ_RS_POLLS		1200

struct inj_rs {
	struct snaptrace_buffer *buf;
	int reader_cpu;
	int snap_cpu;
	bool stop;
	/* The consumer. */
	struct completion reader_done;
	struct st_check live;
	struct st_check snap;
	unsigned int bad_rc;
	unsigned int loops;
	/* The snapshots. */
	struct hrtimer timer;
	atomic_t timer_calls;
	atomic_t timer_refused;
	atomic_t last_rc;
	struct st_job *nmi;
	struct completion nmi_done;
	unsigned int nmi_calls;
	unsigned int nmi_refused;
	unsigned int nmi_lost;
	int nmi_rc;
};

static int inj_rs_reader(void *data)
{
	struct inj_rs *rs = data;
	struct snaptrace_record *rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	unsigned int i;
	int rc = 0;

	while (rec && !READ_ONCE(rs->stop)) {
		/*
		 * Both halves by turns, up to 64 records each: the snapshot
		 * half is where the records are (every snapshot moves a
		 * ring's worth there, and empties live).
		 */
		for (i = 0; i < 64; i++) {
			rc = snaptrace_consume(rs->buf, SNAPTRACE_SNAPSHOT, SNAPTRACE_ALL_CPUS,
					       rec);
			if (rc)
				break;
			st_check_one(&rs->snap, rec);
		}
		if (rc && rc != -ENODATA)
			rs->bad_rc++;
		for (i = 0; i < 64; i++) {
			rc = snaptrace_consume(rs->buf, SNAPTRACE_LIVE, SNAPTRACE_ALL_CPUS, rec);
			if (rc)
				break;
			st_check_one(&rs->live, rec);
		}
		if (rc && rc != -ENODATA)
			rs->bad_rc++;
		if (!(++rs->loops % 16))
			cond_resched();
	}
	if (!rec)
		rs->bad_rc++;
	kfree(rec);
	complete(&rs->reader_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static enum hrtimer_restart inj_rs_tick(struct hrtimer *t)
{
	struct inj_rs *rs = container_of(t, struct inj_rs, timer);
	int rc = snaptrace_snapshot(rs->buf);

	if (rc) {
		atomic_inc(&rs->timer_refused);
		atomic_set(&rs->last_rc, rc);
	}
	if (atomic_inc_return(&rs->timer_calls) >= INJ_RS_SNAPS)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(INJ_RS_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void inj_rs_nmi_fn(struct st_job *job)
{
	struct inj_rs *rs = job->data;
	int rc = snaptrace_snapshot(rs->buf);

	if (rc) {
		rs->nmi_refused++;
		rs->nmi_rc = rc;
	}
}

/* On the snapshot CPU: start the pinned timer, then NMIs one after another. */
static int inj_rs_snapper(void *data)
{
	struct inj_rs *rs = data;
	unsigned int i;

	hrtimer_start(&rs->timer, ns_to_ktime(INJ_RS_PERIOD_NS), HRTIMER_MODE_REL_PINNED_HARD);
	for (i = 0; i < INJ_RS_SNAPS && !READ_ONCE(rs->stop); i++) {
		atomic_set(&rs->nmi->done, 0);
		preempt_disable();
		st_job_raise(rs->nmi);
		if (!st_job_spin(rs->nmi) && st_nmi_disarm())
			rs->nmi_lost++;
		else
			rs->nmi_calls++;
		preempt_enable();
		if (!(i % 16))
			cond_resched();
	}
	complete(&rs->nmi_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void inj_rs_stop(void *data)
{
	struct inj_rs *rs = data;

	WRITE_ONCE(rs->stop, true);
	hrtimer_cancel(&rs->timer);
}

/*
 * One CPU consumes live and the snapshot in a tight loop while another
 * takes 10,000 snapshots, half from a pinned hard hrtimer, half from
 * NMIs (which also interrupt the timer's snapshots), and writers run on
 * every CPU: every snapshot() returns 0, no miss is counted, every record
 * consumed is intact and in its CPU's order; at rest both halves hold
 * exactly the records their counters say.
 */
static void inject_consumer_vs_10000_snapshots(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, INJ_RS_SIZE, SNAPTRACE_OVERWRITE);
	struct task_struct *reader, *snapper;
	struct snaptrace_stats st;
	struct st_writers *ws;
	struct inj_rs *rs;
	u64 *lnext, *snext;
	unsigned int i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	rs = kunit_kzalloc(test, sizeof(*rs), GFP_KERNEL);
	lnext = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*lnext), GFP_KERNEL);
	snext = kunit_kcalloc(test, 2 * nr_cpu_ids, sizeof(*snext), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rs);
	KUNIT_ASSERT_NOT_NULL(test, lnext);
	KUNIT_ASSERT_NOT_NULL(test, snext);
	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	rs->buf = buf;
	rs->reader_cpu = cpumask_first(cpu_online_mask);
	rs->snap_cpu = cpumask_next(rs->reader_cpu, cpu_online_mask);
	st_check_init(&rs->live, lnext, SNAPTRACE_ALL_CPUS, 0);
	st_check_init(&rs->snap, snext, SNAPTRACE_ALL_CPUS, 0);
	init_completion(&rs->reader_done);
	init_completion(&rs->nmi_done);
	hrtimer_setup(&rs->timer, inj_rs_tick, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
	rs->nmi = st_job_new(test, buf, ST_CTX_NMI, inj_rs_nmi_fn);
	rs->nmi->data = rs;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, inj_rs_stop, rs), 0);

	ws = st_writers_start(test, buf, INJ_RS_RECORDS, 0, 0);
	reader = st_kthread(inj_rs_reader, rs, rs->reader_cpu, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(reader));
	snapper = st_kthread(inj_rs_snapper, rs, rs->snap_cpu, NULL);
	if (IS_ERR(snapper)) {
		WRITE_ONCE(rs->stop, true);
		wake_up_process(reader);
		wait_for_completion(&rs->reader_done);
		kthread_stop_put(reader);
		KUNIT_ASSERT_FALSE(test, IS_ERR(snapper));
	}
	wake_up_process(reader);
	wake_up_process(snapper);
	for (i = 0; i < INJ_RS_POLLS; i++) {
		if (completion_done(&rs->nmi_done) &&
		    atomic_read(&rs->timer_calls) >= INJ_RS_SNAPS)
			break;
		msleep(100);
	}
	WRITE_ONCE(rs->stop, true);
	hrtimer_cancel(&rs->timer);
	wait_for_completion(&rs->nmi_done);
	wait_for_completion(&rs->reader_done);
	kthread_stop_put(snapper);
	kthread_stop_put(reader);
	st_writers_stop(ws);

	kunit_info(test, "%d timer and %u NMI snapshots (%u NMIs lost); consumed %u live, %u snapshot records in %u loops\n",
		   atomic_read(&rs->timer_calls), rs->nmi_calls, rs->nmi_lost,
		   rs->live.count, rs->snap.count, rs->loops);
	KUNIT_EXPECT_EQ(test, atomic_read(&rs->timer_calls), INJ_RS_SNAPS);
	KUNIT_EXPECT_EQ(test, rs->nmi_calls + rs->nmi_lost, INJ_RS_SNAPS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&rs->timer_refused), 0,
			    "hrtimer snapshots refused (last rc %d)", atomic_read(&rs->last_rc));
	KUNIT_EXPECT_EQ_MSG(test, rs->nmi_refused, 0, "NMI snapshots refused (last rc %d)",
			    rs->nmi_rc);
	st = st_stats(test, buf, SNAPTRACE_LIVE, rs->reader_cpu);
	KUNIT_EXPECT_EQ(test, st.snapshot_misses, 0);
	KUNIT_EXPECT_EQ(test, rs->bad_rc, 0);
	KUNIT_EXPECT_EQ(test, rs->live.bad + rs->live.markers, 0);
	KUNIT_EXPECT_EQ(test, rs->snap.bad + rs->snap.markers, 0);
	KUNIT_EXPECT_EQ(test, rs->live.order, 0);
	KUNIT_EXPECT_EQ(test, rs->snap.order, 0);
	KUNIT_EXPECT_GT(test, rs->live.count + rs->snap.count, 0);
	st_writers_expect_sane(test, ws);
	for (i = 0; i < ws->n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ws->w[i].refused, 0, "cpu %d", ws->w[i].cpu);
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
	st_expect_half_sane(test, buf, SNAPTRACE_SNAPSHOT);
}

/* ---- counters read while clears and snapshots meet writers ---- */

#define INJ_WRAP_ROUNDS		20000
#define INJ_WRAP_TICKS		5000
#define INJ_WRAP_PERIOD_NS	(40 * NSEC_PER_USEC)

/* 0: plausible; 1: a counter wrapped below zero; 2: more than a ring holds. */
static int inj_reading(const struct snaptrace_stats *st)
{
	if (st->entries >= ST_COUNT_WRAPPED || st->written >= ST_COUNT_WRAPPED ||
	    st->overrun >= ST_COUNT_WRAPPED || st->read >= ST_COUNT_WRAPPED ||
	    st->dropped >= ST_COUNT_WRAPPED || st->bytes >= ST_COUNT_WRAPPED)
		return 1;
	if (st->entries > INJ_SIZE / ST_HDR_BYTES || st->bytes > INJ_SIZE)
		return 2;
	return 0;
}

static void inj_reading_log(struct kunit *test, enum snaptrace_which which, int cpu,
			    const struct snaptrace_stats *st)
{
	kunit_info(test, "half %d cpu %d: entries %llu written %llu overrun %llu read %llu dropped %llu bytes %llu\n",
		   which, cpu, st->entries, st->written, st->overrun, st->read, st->dropped,
		   st->bytes);
}

/*
 * Overwrite mode, small rings kept full by a writer on every CPU (each
 * record pushes tail), an hrtimer taking snapshots, and the test thread
 * clearing the snapshot and reading every CPU's counters of both halves in
 * a loop: no reading ever has a counter at or above 2^62 (wrapped below
 * zero), more entries than the ring can hold, or more bytes than its size;
 * every snapshot and clear returns 0; at rest both halves are exact.
 */
static void inject_counters_never_wrap(struct kunit *test)
{
	struct snaptrace_buffer *buf = st_buf_new(test, INJ_SIZE, SNAPTRACE_OVERWRITE);
	unsigned int round, wrapped = 0, too_many = 0, clear_bad = 0, readings = 0;
	enum snaptrace_which which;
	struct snaptrace_stats st;
	struct st_snap_timer *tm;
	struct st_writers *ws;
	int cpu;

	KUNIT_ASSERT_EQ(test, snaptrace_alloc_snapshot(buf), 0);
	ws = st_writers_start(test, buf, U32_MAX, 0, 1);
	tm = st_snap_timer_start(test, buf, INJ_WRAP_PERIOD_NS, INJ_WRAP_TICKS);
	for (round = 0; round < INJ_WRAP_ROUNDS && atomic_read(&tm->ended) < INJ_WRAP_TICKS;
	     round++) {
		if (snaptrace_clear_snapshot(buf))
			clear_bad++;
		for_each_online_cpu(cpu) {
			for (which = SNAPTRACE_LIVE; which <= SNAPTRACE_SNAPSHOT; which++) {
				if (snaptrace_cpu_stats(buf, which, cpu, &st)) {
					clear_bad++;
					continue;
				}
				readings++;
				switch (inj_reading(&st)) {
				case 1:
					if (!wrapped++)
						inj_reading_log(test, which, cpu, &st);
					break;
				case 2:
					if (!too_many++)
						inj_reading_log(test, which, cpu, &st);
					break;
				}
			}
		}
		if (!(round % 16))
			cond_resched();
	}
	st_snap_timer_stop(tm);
	st_writers_stop(ws);

	kunit_info(test, "%u rounds, %u readings, %d snapshots\n", round, readings,
		   atomic_read(&tm->ok));
	KUNIT_EXPECT_EQ_MSG(test, wrapped, 0, "readings with a counter wrapped below zero");
	KUNIT_EXPECT_EQ_MSG(test, too_many, 0, "readings with more than a ring holds");
	KUNIT_EXPECT_EQ(test, clear_bad, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tm->busy), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tm->unexpected), 0);
	st_writers_expect_sane(test, ws);
	st_expect_half_sane(test, buf, SNAPTRACE_LIVE);
	st_expect_half_sane(test, buf, SNAPTRACE_SNAPSHOT);
}

/*
 * The cases are built at run time, not from an array: a generator of our
 * own, with the signature of this kernel's KUnit (6.18 added @test).
 */
#ifdef SNAPTRACE_HAVE_KUNIT_GEN_TEST
static const void *inj_gen(struct kunit *test, const void *prev, char *desc)
{
	return inj_gen_(prev, desc);
}

static const void *inj_chain_gen(struct kunit *test, const void *prev,
				 char *desc)
{
	return inj_chain_gen_(prev, desc);
}
#else
static const void *inj_gen(const void *prev, char *desc)
{
	return inj_gen_(prev, desc);
}

static const void *inj_chain_gen(const void *prev, char *desc)
{
	return inj_chain_gen_(prev, desc);
}
#endif

static struct kunit_case inject_cases[] = {
	KUNIT_CASE_PARAM(inject_writer_step, inj_gen),
	KUNIT_CASE_PARAM(inject_chain_task_softirq_hardirq_nmi, inj_chain_gen),
	KUNIT_CASE_PARAM(inject_snapshot_in_snapshot, inj_snap_gen_params),
	KUNIT_CASE_PARAM(inject_write_and_snapshot_in_snapshot, inj_snap_gen_params),
	KUNIT_CASE_PARAM(inject_snapshot_in_consume, inj_consume_gen_params),
	KUNIT_CASE_SLOW(inject_consumer_vs_10000_snapshots),
	KUNIT_CASE_SLOW(inject_counters_never_wrap),
	{}
};

static struct kunit_suite inject_suite = {
	.name = "snaptrace_inject",
	.test_cases = inject_cases,
};

kunit_test_suite(inject_suite);
