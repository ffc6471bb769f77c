// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace: the persistent capture (Documentation/persist.rst, "At the
 * panic"). A region of memory that survives a warm reboot is armed at
 * load; at a panic (or an oops) a snapshot of the buffer is taken and its
 * records are copied into the region as self-contained entries, each with
 * a CRC and a commit marker, in steps: claim, snap, measure, place, seal.
 * Also the sources it keeps besides the CPUs (the remotes' last traces,
 * registered here) and the arming. The layout is persist_layout.c's; the
 * next load reads the capture back with persist_parse.c. No upstream
 * twin: pstore/ramoops keeps the console's text, ftrace's boot-mapped
 * instances a live buffer with no snapshot.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>
#include <asm/cacheflush.h>
#ifdef CONFIG_ARM64
#include <asm/barrier.h>
#include <asm/cputype.h>
#endif

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "persist.h"
#include "ring.h"

/*
 * The sources a capture keeps besides the instance's CPUs: the remotes'
 * last traces (traceN_last). Filled and emptied in process context under
 * st_pr_src_lock; read by the capture, which may run in NMI with a stopped
 * CPU holding any lock, under rcu_read_lock() alone. A source's buffer is
 * freed only after its slot is cleared and synchronize_rcu() returned: a
 * capture that saw the pointer has finished with it by then.
 */
static struct snaptrace_persist_source __rcu *st_pr_sources[ST_PR_SRCS];
static DEFINE_MUTEX(st_pr_src_lock);

/**
 * snaptrace_persist_source_add() - keep a remote's last trace at a panic
 * @src: the source: its buffer (whose snapshot holds the capture), CPU,
 *	has_last flag, length, format and name filled in (see
 *	&struct snaptrace_persist_source); it stays registered until
 *	snaptrace_persist_source_remove(), which must come before the
 *	buffer is freed
 *
 * Takes a free row of the registry, which the persistent capture reads
 * (snaptrace_persist_capture() with @remotes set). No upstream twin.
 *
 * Context: process context, may sleep (a mutex).
 * Return: 0; -EINVAL if @src lacks its has_last, len, seq or format (the
 * panic reads them all, unchecked: said in the log, not registered);
 * -ENOSPC if %ST_PR_SRCS sources are registered already (@src->slot is
 * then -1 either way, and the source is not captured).
 */
int snaptrace_persist_source_add(struct snaptrace_persist_source *src)
{
	unsigned int s;

	if (!src->has_last || !src->len || !src->seq || !src->format) {
		pr_err(KBUILD_MODNAME ": %s: not kept at a host panic: its has_last, len, seq and format are all needed\n",
		       src->name);
		src->slot = -1;
		return -EINVAL;
	}

	mutex_lock(&st_pr_src_lock);
	for (s = 0; s < ST_PR_SRCS; s++) {
		if (rcu_access_pointer(st_pr_sources[s]))
			continue;
		src->slot = s;
		rcu_assign_pointer(st_pr_sources[s], src);
		mutex_unlock(&st_pr_src_lock);
		return 0;
	}
	mutex_unlock(&st_pr_src_lock);
	src->slot = -1;
	return -ENOSPC;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_source_add);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * snaptrace_persist_sources_free() - the registry's free rows
 *
 * KUnit builds only: how many sources snaptrace_persist_source_add() would
 * take now, for a test that takes them all. No upstream twin.
 *
 * Context: process context, may sleep (a mutex).
 * Return: the rows free, 0..%ST_PR_SRCS.
 */
unsigned int snaptrace_persist_sources_free(void)
{
	unsigned int s, n = 0;

	mutex_lock(&st_pr_src_lock);
	for (s = 0; s < ST_PR_SRCS; s++)
		n += !rcu_access_pointer(st_pr_sources[s]);
	mutex_unlock(&st_pr_src_lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_sources_free);
#endif

/**
 * snaptrace_persist_source_clear() - take a source out of the registry
 * @src: a source given to snaptrace_persist_source_add(), registered or
 *	not (-1 slot)
 *
 * Clears its row. A capture that read the row before (under
 * rcu_read_lock()) may still read the source's buffer until a grace
 * period has passed: the caller waits for one (synchronize_rcu()) before
 * it frees the buffer, once for every source it cleared.
 *
 * Context: process context, may sleep (a mutex).
 * Return: true if @src was registered (a grace period is then needed).
 */
bool snaptrace_persist_source_clear(struct snaptrace_persist_source *src)
{
	bool was = false;

	if (src->slot < 0 || src->slot >= ST_PR_SRCS)
		return false;
	mutex_lock(&st_pr_src_lock);
	if (rcu_access_pointer(st_pr_sources[src->slot]) == src) {
		RCU_INIT_POINTER(st_pr_sources[src->slot], NULL);
		was = true;
	}
	mutex_unlock(&st_pr_src_lock);
	src->slot = -1;
	return was;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_source_clear);

/**
 * snaptrace_persist_source_remove() - stop keeping a source at a panic
 * @src: a source given to snaptrace_persist_source_add(), registered or
 *	not (-1 slot)
 *
 * snaptrace_persist_source_clear(), then a grace period if it was
 * registered: a capture that read the row has finished with the source's
 * buffer when this returns, and the caller may free it.
 *
 * Context: process context, sleeps (synchronize_rcu()).
 */
void snaptrace_persist_source_remove(struct snaptrace_persist_source *src)
{
	if (snaptrace_persist_source_clear(src))
		synchronize_rcu();
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_source_remove);

/*
 * Clean the data cache over the region's first @len bytes to the point of
 * coherency, after the last store to them: a warm reset may drop what a
 * cache holds dirty, and the next boot would read the region as it was
 * before (upstream's persistent ring buffer cleans its range at a panic
 * on arm64 for that: arch_ring_buffer_flush_range()). Never sleeps, takes
 * no lock but an outer cache's on 32-bit ARM: a panic, in NMI too.
 *
 * The kernel's helper for it is not exported on arm64 (dcache_clean_poc(),
 * and arch_wb_cache_pmem() only with CONFIG_ARM64_PMEM): its loop is
 * here, DC CIVAC by the smallest D-cache line (CTR_EL0.DminLine, in
 * words), clean and invalidate as the kernel's own clean is on the CPUs
 * whose errata need it. 32-bit ARM: the inner caches by virtual address,
 * then the outer cache (an L2C-310) by physical one, as its DMA does.
 * Elsewhere flush_kernel_vmap_range(), for the caches whose kernel
 * mappings need it: a no-op on x86, whose caches a warm reset keeps
 * coherent (Documentation/persist.rst, "What is not done yet").
 */
static void st_pr_clean(struct snaptrace_persist *p, size_t len)
{
	len = min(len, p->size);
#if defined(CONFIG_ARM64)
	{
		unsigned long line = 4UL << ((read_cpuid_cachetype() >> 16) & 0xf);
		unsigned long a = ALIGN_DOWN((unsigned long)p->base, line);
		unsigned long end = (unsigned long)p->base + len;

		for (; a < end; a += line)
			asm volatile("dc civac, %0" : : "r" (a) : "memory");
		dsb(sy);
	}
#elif defined(CONFIG_ARM)
	__cpuc_flush_dcache_area(p->base, len);
	outer_clean_range(p->phys, p->phys + len);
#else
	{
		size_t off, n;

		for (off = 0; off < len; off += n) {
			n = min_t(size_t, len - off, SZ_1G);
			flush_kernel_vmap_range(p->base + off, n);
		}
	}
#endif
	st_pr_hook(p, ST_PR_STEP_CLEANED, len);
}

/**
 * snaptrace_persist_kernel_anchor() - the run-time address of _printk()
 *
 * What a capture keeps to tell the next boot where this kernel's text
 * was (KASLR moves it on every boot; _text is not exported to modules).
 * On a Thumb-2 kernel (CONFIG_THUMB2_KERNEL, 32-bit ARM) a function's
 * address carries the instruction set in bit 0; the anchor is the
 * symbol's address, as System.map and kallsyms give it, without it.
 *
 * Context: any, NMI included; no locks.
 * Return: the address of _printk() in this boot.
 */
u64 snaptrace_persist_kernel_anchor(void)
{
	unsigned long addr = (unsigned long)&_printk;

	if (IS_ENABLED(CONFIG_THUMB2_KERNEL))
		addr &= ~1UL;
	return addr;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_kernel_anchor);

/**
 * snaptrace_persist_arm() - make a region ready for a capture
 * @p: the region, its physical address, and this load's boot id
 * @real_ns: the wall-clock time of the arming
 *
 * Writes the header (its CRC last) and an empty capture in state armed,
 * for nr_cpu_ids CPUs, then cleans what it wrote out of the data cache
 * to the point of coherency (on arm64 and 32-bit ARM; a no-op on x86).
 * The records' area is not cleared: each entry carries its own marker
 * and CRC.
 *
 * Context: process context (the region is large: no NMI runs a capture
 * while it is armed, the caller has not registered its notifiers yet or
 * has unregistered them).
 * Return: 0, or -ENOSPC if the region is too small for the headers.
 */
int snaptrace_persist_arm(struct snaptrace_persist *p, u64 real_ns)
{
	struct st_pr_hdr *h = p->base;
	struct st_pr_cap *cap;
	u64 table_off, data_off;

	if (p->size < sizeof(*h) ||
	    snaptrace_persist_geometry(p->size, nr_cpu_ids, &table_off, &data_off))
		return -ENOSPC;
	cap = p->base + sizeof(*h);
	memset(p->base, 0, data_off);
	h->magic = ST_PR_MAGIC;
	h->version = ST_PR_VERSION;
	h->size = p->size;
	h->phys = p->phys;
	h->boot_id = p->boot_id;
	h->armed_real_ns = real_ns;
	h->nr_cpus = nr_cpu_ids;
	h->cap_off = sizeof(*h);
	h->table_off = table_off;
	h->data_off = data_off;
	h->hdr_crc = snaptrace_persist_hdr_crc(h);
	p->nr_cpus = nr_cpu_ids;
	p->table_off = table_off;
	p->data_off = data_off;
	cap->boot_id = p->boot_id;
	/* The state last: a capture checks it first. */
	smp_store_release(&cap->state, ST_PR_ARMED);
	/* In memory, not only in a cache: a panic may come before a capture. */
	st_pr_clean(p, data_off);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_arm);

/* snaptrace_snapshot_walk()'s callback for the first pass: sizes only. */
static int st_pr_measure(void *arg, const struct snaptrace_record *rec)
{
	struct st_pr_need *need = arg;

	need->bytes += snaptrace_persist_ent_size(rec->len);
	need->last = rec->pos;
	need->nr++;
	return 0;
}

/*
 * The fair share of @room among CPUs needing @need bytes each: the
 * largest level such that every CPU filled up to it, or up to its need if
 * smaller, fits in @room. A CPU needing less leaves the rest to the
 * others. A binary search: no allocation, no sort, O(nr_cpus) a step.
 */
static u64 st_pr_level(const struct st_pr_need *need, unsigned int nr_cpus,
		       u64 room)
{
	u64 lo = 0, hi = 0, mid, sum;
	unsigned int c;

	for (c = 0; c < nr_cpus; c++)
		hi = max(hi, need[c].bytes);
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		sum = 0;
		for (c = 0; c < nr_cpus && sum <= room; c++)
			sum += min(need[c].bytes, mid);
		if (sum <= room)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Where st_pr_put() writes a CPU's entries. */
struct st_pr_cursor {
	u8 *data;
	u64 off;
	u64 room;
	struct st_pr_cpu *cpu;
	const struct st_pr_need *need;	/* the CPU's, from the first walk */
	unsigned int c;
	u64 seq;	/* the next record's index in the CPU's snapshot */
	u64 rest;	/* entry bytes of this record and the newer ones */
	u64 budget;	/* bytes this CPU may fill */
	bool full;	/* a record did not fit: none after it is kept */
	u64 boot_id;
	u64 written;	/* entries, every CPU's */
	u64 stop_after;	/* KUnit: end the walk after so many entries */
};

/* st_pr_put(): past the first walk's last record, the CPU is done. */
#define ST_PR_WALKED	1

/*
 * Whether the record at byte position @a (snaptrace_record.pos) comes
 * after the one at @b, of the same CPU's snapshot (less than a ring
 * apart). Positions are unsigned long half-bytes, so record positions
 * wrap at 2^63 bytes on 64-bit kernels, and at 2^31 on 32-bit ones:
 * there the difference is taken in the positions' own 32 bits.
 */
static inline bool st_pr_pos_after(u64 a, u64 b)
{
	if (BITS_PER_LONG == 32)
		return (s32)((u32)(a - b) << ST_POS_SHIFT) > 0;
	return (s64)(a - b) > 0;
}

/*
 * snaptrace_snapshot_walk()'s callback: one record into the region, if it
 * is in the newest run of the CPU's records that fits its budget. The walk
 * goes oldest first: the records are skipped (left out) until the bytes of
 * those left, as the first pass measured them, fit.
 */
static int st_pr_put(void *arg, const struct snaptrace_record *rec)
{
	struct st_pr_cursor *cur = arg;
	size_t sz = snaptrace_persist_ent_size(rec->len);
	bool keep = cur->rest <= cur->budget;
	u64 seq = cur->seq++;
	struct st_pr_ent *e;

	/* Committed after the first walk, which saw it open: torn. */
	if (!cur->need->nr || st_pr_pos_after(rec->pos, cur->need->last))
		return ST_PR_WALKED;
	cur->rest -= min_t(u64, cur->rest, sz);
	if (keep && !cur->full && sz > cur->room - cur->off)
		cur->full = true;
	if (!keep || cur->full) {
		cur->cpu->left_out++;
		return 0;
	}
	e = (struct st_pr_ent *)(cur->data + cur->off);
	WRITE_ONCE(e->marker, 0);
	e->cpu = cur->c;
	e->type = rec->type;
	e->len = rec->len;
	e->seq = seq;
	e->ts = rec->ts;
	e->pos = rec->pos;
	memcpy(e->data, rec->data, rec->len);
	memset(e->data + rec->len, 0, ALIGN(rec->len, ST_PR_ALIGN) - rec->len);
	e->crc = snaptrace_persist_ent_crc(e, cur->boot_id);
	smp_wmb(); /* the entry before its marker */
	WRITE_ONCE(e->marker, ST_PR_ENT_MAGIC);
	cur->off += sz;
	cur->cpu->entries++;
	if (++cur->written == cur->stop_after)
		return -EINTR;
	return 0;
}

/*
 * The sources registered now, read under the caller's rcu_read_lock()
 * (NMI-safe: no lock a stopped CPU could hold): each whose last copy
 * holds a capture is measured, as the CPUs are, into @p->src_need, and
 * kept whole, in row order, while the sources together fit in 1 /
 * %ST_PR_SRC_SHARE of @room; one that does not is left out whole (its
 * row says so). Return: the bytes the kept ones take, the CPUs' room is
 * what remains.
 */
static u64 st_pr_src_measure(struct snaptrace_persist *p,
			     struct snaptrace_persist_source **srcs,
			     u32 *src_flags, u64 room)
{
	u64 cap = room / ST_PR_SRC_SHARE, used = 0;
	struct snaptrace_persist_source *src;
	unsigned int s;
	int ret;

	for (s = 0; s < ST_PR_SRCS; s++) {
		memset(&p->src_need[s], 0, sizeof(p->src_need[s]));
		src_flags[s] = 0;
		srcs[s] = NULL;
		src = p->remotes ? rcu_dereference(st_pr_sources[s]) : NULL;
		/* pairs with the keeper's release: its length is written */
		if (!src || !smp_load_acquire(src->has_last))
			continue;
		/* Before the walks and the length: its captures' count. */
		p->src_need[s].seq = READ_ONCE(*src->seq);
		smp_rmb(); /* the count before the copy */
		ret = snaptrace_snapshot_walk(src->buf, src->cpu, p->rec,
					      st_pr_measure, &p->src_need[s],
					      &p->src_need[s].open,
					      &p->src_need[s].pin);
		if (ret == 0 || ret == -ENOENT)
			continue;	/* nothing sealed to keep */
		srcs[s] = src;
		if (ret < 0)
			src_flags[s] = ST_PR_SRC_F_STALE;	/* -ESTALE */
		else if (p->src_need[s].bytes > cap - used)
			src_flags[s] = ST_PR_SRC_F_FULL;
		else
			used += p->src_need[s].bytes;
	}
	return used;
}

/*
 * Whether @src's keeper was capturing at the first walk, or captured
 * since (its count odd then, or changed): its copy's text and the length
 * read meanwhile may be of different captures.
 */
static bool st_pr_src_recaptured(struct snaptrace_persist_source *src,
				 const struct st_pr_need *need)
{
	smp_rmb(); /* the walks and the length before the count */
	return (need->seq & 1) || READ_ONCE(*src->seq) != need->seq;
}

/*
 * Write the sources measured by st_pr_src_measure(), after the CPUs'
 * entries: each row's name, the trace's length and the format its
 * traceN_last decodes with, under the row's own CRC, first (an unfinished
 * capture still names and decodes it), then its entries, each of them, as
 * a CPU's, with the row in its cpu field (ST_PR_ENT_SRC). Each fits:
 * @cur->room was kept for them. Return: 0, or -EINTR (KUnit: stopped);
 * @entries counts them.
 */
static int st_pr_src_put(struct snaptrace_persist *p,
			 struct snaptrace_persist_source **srcs,
			 const u32 *src_flags, struct st_pr_src *rows,
			 struct st_pr_cursor *cur, u64 *entries)
{
	struct st_pr_cpu count;
	unsigned int s;
	bool open;
	int ret;

	for (s = 0; s < ST_PR_SRCS; s++) {
		if (!srcs[s])
			continue;
		strscpy(rows[s].name, srcs[s]->name, sizeof(rows[s].name));
		/* How its traceN_last decodes it: length, and format now. */
		rows[s].len = READ_ONCE(*srcs[s]->len);
		rows[s].fmt = srcs[s]->format(srcs[s]);
		rows[s].name_crc = snaptrace_persist_src_crc(&rows[s], s, p->boot_id);
		rows[s].flags = src_flags[s];
		smp_wmb(); /* the row before its entries */
		if (src_flags[s])
			continue;	/* left out, whole */
		memset(&count, 0, sizeof(count));
		cur->cpu = &count;
		cur->c = ST_PR_ENT_SRC | s;
		cur->seq = 0;
		cur->need = &p->src_need[s];
		cur->rest = p->src_need[s].bytes;
		cur->budget = p->src_need[s].bytes;
		cur->full = false;
		ret = snaptrace_snapshot_walk(srcs[s]->buf, srcs[s]->cpu, p->rec,
					      st_pr_put, cur, &open,
					      &p->src_need[s].pin);
		rows[s].entries = count.entries;
		*entries += count.entries;
		if (ret == -EINTR)
			return ret;
		/* Replaced during or since the first walk (a new crash). */
		if (ret < 0)
			rows[s].flags |= ST_PR_SRC_F_STALE;
		/*
		 * open at either walk (the second stops at the first's end),
		 * or, not replaced, the keeper capturing meanwhile: its text
		 * and length may not belong together.
		 */
		if (open || p->src_need[s].open ||
		    (ret >= 0 && st_pr_src_recaptured(srcs[s], &p->src_need[s])))
			rows[s].flags |= ST_PR_SRC_F_TORN;
	}
	return 0;
}

/*
 * One capture, from its claim to its seal: what its steps (claim, snap,
 * measure, place, seal) hand on to the next, on the capturing CPU's stack.
 */
struct st_pr_run {
	struct snaptrace_persist *p;
	struct snaptrace_buffer *buf;
	struct st_pr_cap *cap;
	struct st_pr_cpu *table;	/* the per-CPU table, as armed */
	struct st_pr_src *rows;		/* the sources' table, right after it */
	unsigned int nr_cpus;		/* as armed */
	unsigned int end;	/* the CPUs from here on: replaced, not kept */
	u32 flags;		/* ST_PR_F_* */
	u64 room;		/* the CPUs' bytes of the data area */
	u64 src_room;		/* the sources' bytes, kept for them */
	u64 level;		/* each CPU's fair share of @room */
	u64 entries;		/* written, every CPU's and source's */
	u64 torn;		/* CPUs whose last record was open */
	struct snaptrace_snap_hold hold;	/* the crash's snapshot */
	struct snaptrace_persist_source *srcs[ST_PR_SRCS];	/* measured */
	u32 src_flags[ST_PR_SRCS];	/* ST_PR_SRC_F_*, as measured */
	struct st_pr_cursor cur;	/* where the entries go */
};

/*
 * Claim: the region becomes this CPU's capture, by one cmpxchg of its
 * state from armed (the first capture wins), then why and when are
 * written and sealed before any record. -EBUSY if the region is not
 * armed by this load, or holds a capture already.
 */
static int st_pr_capture_claim(struct st_pr_run *run,
			       struct snaptrace_persist *p, u32 reason,
			       const char *msg)
{
	struct st_pr_hdr *h = p->base;
	struct st_pr_cap *cap = p->base + sizeof(*h);
	unsigned int cpu;
	u32 state;

	/*
	 * The state names the CPU, in the same cmpxchg that claims the
	 * region: a capture that never finishes still says whose it was.
	 */
	cpu = raw_smp_processor_id();
	if (READ_ONCE(h->magic) != ST_PR_MAGIC ||
	    READ_ONCE(h->boot_id) != p->boot_id)
		return -EBUSY;
	state = cmpxchg(&cap->state, ST_PR_ARMED, ST_PR_CAPTURING | cpu);
	if (state != ST_PR_ARMED) {
		/*
		 * This load's capture that did not finish (an oops's, its CPU
		 * stopped by this panic): what it wrote, out of the caches,
		 * wherever it got to in the region.
		 */
		if ((state & ST_PR_CAPTURING_MASK) == ST_PR_CAPTURING)
			st_pr_clean(p, p->size);
		return -EBUSY;
	}

	/* The geometry as armed, not as the region now says (M3). */
	run->p = p;
	run->cap = cap;
	run->nr_cpus = p->nr_cpus;
	run->table = p->base + p->table_off;
	run->rows = (struct st_pr_src *)(run->table + run->nr_cpus);
	run->flags = 0;
	run->entries = 0;
	run->torn = 0;
	cap->reason = reason;
	cap->cpu = cpu;
	cap->real_ns = ktime_get_real_fast_ns();
	cap->clock_ns = local_clock();
	cap->kernel_anchor = snaptrace_persist_kernel_anchor();
	cap->nr_mods = min_t(unsigned int, p->nr_mods, ST_PR_MODS);
	memcpy(cap->mods, p->mods, sizeof(cap->mods));
	if (msg)
		strscpy(cap->msg, msg, sizeof(cap->msg));
	/*
	 * Why and when, sealed before any record: a capture that does not
	 * finish (an oops's, when a panic stops its CPU) is still told at
	 * the next load, with the entries it wrote. The counts stay 0 until
	 * the end.
	 */
	cap->cap_crc = snaptrace_persist_cap_crc(cap, run->table, 0);
	smp_wmb(); /* the preamble before the entries */
	return 0;
}

/*
 * Snap: the snapshot of the crash, its state word said, and the lock kept
 * until both walks are done where it could be taken: no snapshot, clear
 * or reset on another CPU (an oops: they run) replaces or empties it
 * meanwhile; one nested on this CPU (an NMI) changes the state word,
 * which every walk is pinned to.
 */
static void st_pr_capture_snap(struct st_pr_run *run,
			       struct snaptrace_buffer *buf,
			       bool others_stopped)
{
	bool past = false;
	int ret;

	run->buf = buf;
	run->hold.state = 0;
	if (others_stopped) {
		/* Never waits for a lock a stopped CPU holds. */
		ret = snaptrace_snapshot_panic(buf, &past, &run->hold);
		if (past || ret == -EBUSY || ret == -EDEADLK)
			run->flags |= ST_PR_F_LOCKED;
	} else {
		ret = snaptrace_snapshot_hold(buf, &run->hold);
	}
	if (ret)
		run->flags |= ST_PR_F_NO_SNAPSHOT;
	st_pr_hook(run->p, ST_PR_STEP_SNAPPED, 0);
}

/*
 * Measure, the first pass: each CPU's entry bytes, and its last record.
 * The snapshot is sealed: a second walk sees the same records, or fewer
 * of the oldest if a reader of the snapshot consumed some meanwhile (an
 * oops: the other CPUs run; readers do not take the lock held here), and
 * then the CPU keeps fewer than its share would hold
 * (Documentation/persist.rst, "What is not done yet"); or more at the
 * newest end, if a record open at the cut (its writer on another CPU) was
 * committed meanwhile: the second walk stops at the first one's last
 * record, and the rest stay torn. Each walk of a CPU is pinned to the
 * snapshot this capture took: if one nested in it (an NMI) replaced it,
 * the CPUs from there on are not kept, and the capture says so; never
 * records of another snapshot. Under the caller's rcu_read_lock().
 */
static void st_pr_capture_measure(struct st_pr_run *run)
{
	struct snaptrace_persist *p = run->p;
	unsigned int c;
	int ret;

	run->room = p->size - p->data_off;
	/*
	 * The remotes' last traces are kept whole or not at all, and are
	 * budgeted first, out of at most 1 / ST_PR_SRC_SHARE of the room:
	 * the CPUs share what remains, newest records first, as if the
	 * region were that much smaller.
	 */
	run->src_room = st_pr_src_measure(p, run->srcs, run->src_flags,
					  run->room);
	run->room -= run->src_room;
	memset(p->need, 0, run->nr_cpus * sizeof(*p->need));
	run->end = run->nr_cpus;
	for (c = 0; c < run->end && !(run->flags & ST_PR_F_NO_SNAPSHOT); c++) {
		if (!cpu_possible(c))
			continue;
		p->need[c].pin.state = run->hold.state;
		ret = snaptrace_snapshot_walk(run->buf, c, p->rec, st_pr_measure,
					      &p->need[c], &p->need[c].open,
					      &p->need[c].pin);
		if (ret == -ESTALE) {
			memset(&p->need[c], 0, sizeof(p->need[c]));
			run->end = c;	/* replaced: not this CPU, nor the next */
		} else if (ret < 0) {
			run->flags |= ST_PR_F_NO_SNAPSHOT;
		}
	}
	run->level = st_pr_level(p->need, run->nr_cpus, run->room);
	st_pr_hook(p, ST_PR_STEP_MEASURED, 0);
}

/*
 * Place, the second pass: each CPU keeps its newest records, a run ending
 * at its last, in its share and what the CPUs before it left unused; then
 * the sources, in the room kept for them (and what the CPUs left). Under
 * the caller's rcu_read_lock(). Return: 0, or -EINTR (KUnit: stopped,
 * unfinished).
 */
static int st_pr_capture_place(struct st_pr_run *run)
{
	struct snaptrace_persist *p = run->p;
	struct st_pr_cpu *table = run->table;
	struct st_pr_cursor *cur = &run->cur;
	u64 start, carry = 0;
	unsigned int c;
	bool open;
	int ret;

	cur->data = p->base + p->data_off;
	cur->off = 0;
	cur->room = run->room;
	cur->boot_id = p->boot_id;
	cur->written = 0;
	cur->stop_after = st_pr_hook(p, ST_PR_STEP_PLACE, 0);
	for (c = 0; c < run->end && !(run->flags & ST_PR_F_NO_SNAPSHOT); c++) {
		if (!cpu_possible(c))
			continue;
		cur->cpu = &table[c];
		cur->need = &p->need[c];
		cur->c = c;
		cur->seq = 0;
		cur->rest = p->need[c].bytes;
		cur->budget = min(p->need[c].bytes, run->level) + carry;
		cur->full = false;
		start = cur->off;
		ret = snaptrace_snapshot_walk(run->buf, c, p->rec, st_pr_put, cur,
					      &open, &p->need[c].pin);
		carry = cur->budget - min(cur->budget, cur->off - start);
		run->entries += table[c].entries;
		if (ret == -EINTR)
			return ret; /* KUnit: stopped, unfinished */
		if (ret < 0) {
			/*
			 * -ESTALE: replaced since the first walk, or during
			 * this one (what it wrote is of the first snapshot).
			 */
			run->end = c;
			break;
		}
		/* The first walk's: a record it saw open is torn (st_pr_put()). */
		table[c].torn = p->need[c].open;
		run->torn += p->need[c].open;
		if (table[c].left_out)
			run->flags |= ST_PR_F_FULL;
	}
	for (c = run->end;
	     c < run->nr_cpus && !(run->flags & ST_PR_F_NO_SNAPSHOT); c++) {
		if (!cpu_possible(c))
			continue;
		table[c].flags |= ST_PR_CPU_F_REPLACED;
		run->flags |= ST_PR_F_REPLACED;
	}
	cur->room = run->room + run->src_room;
	return st_pr_src_put(p, run->srcs, run->src_flags, run->rows, cur,
			     &run->entries);
}

/*
 * Seal: the capture's counts, its CRC over the header and the tables, and
 * last its state, captured; then all it wrote, out of the data cache.
 */
static void st_pr_capture_seal(struct st_pr_run *run)
{
	struct st_pr_cap *cap = run->cap;

	cap->flags = run->flags;
	cap->entries = run->entries;
	cap->torn = run->torn;
	cap->data_bytes = run->cur.off;
	cap->cap_crc = snaptrace_persist_cap_crc(cap, run->table, run->nr_cpus);
	smp_wmb(); /* the capture before its state */
	WRITE_ONCE(cap->state, ST_PR_CAPTURED);
	/* The last store is done: all of it to memory (the headers too). */
	st_pr_clean(run->p, run->p->data_off + run->cur.off);
}

/**
 * snaptrace_persist_capture() - snapshot @buf into an armed region
 * @p: the region, armed by snaptrace_persist_arm() in this load
 * @buf: the buffer, its spare allocated
 * @reason: an &enum st_pr_reason
 * @msg: why (the panic's message), cut to ST_PR_MSG_MAX - 1 bytes; or NULL
 * @others_stopped: the other CPUs are stopped (a panic): a lock one of them
 *	holds is never waited for; the snapshot runs past it if its CPU is
 *	stopped (snaptrace_snapshot_panic()), or is not taken
 *
 * Takes a snapshot (snaptrace_snapshot()) and copies its records, CPU by
 * CPU, oldest first, into the region as entries (struct st_pr_ent), each
 * with its CRC and then its marker; then the capture's header with the
 * per-CPU table and the CRC over both, and last the state, captured;
 * then what it wrote is cleaned out of the data cache to the point of
 * coherency (on arm64 and 32-bit ARM; a no-op on x86), as is the whole
 * region when the capture is refused over an unfinished one of this load
 * (its CPU stopped by this panic). When
 * the region cannot hold every record, each CPU keeps its newest ones, a
 * run ending at its last record, within a fair share of the region (a
 * first walk measures each CPU's records; what a CPU does not use goes
 * to the others); the older ones are counted left out, per CPU. A
 * record still open in a CPU's snapshot (its writer interrupted inside it,
 * or stopped by the panic) is left out and counted as torn. The first
 * capture wins: the state goes from armed to capturing (with this CPU's
 * number) by one cmpxchg, so a second panic or oops, on this CPU (NMI) or
 * another, gets -EBUSY and changes nothing. The reason, times and message
 * are sealed by a CRC of their own before the first record: a capture
 * that never finishes (an oops's, its CPU stopped by a panic) is still
 * told, with its records, at the next load.
 *
 * In steps, each its own function: claim the region (the cmpxchg, then
 * the preamble sealed), snap (the snapshot), measure (the first walk),
 * place (the second walk: the entries) and seal (the counts, the CRC,
 * the state, the clean).
 *
 * The walks are of the snapshot this call took: it keeps the buffer's
 * lock until they are done (snaptrace_snapshot_hold(), or
 * snaptrace_snapshot_panic() when the lock was free), and each walk is
 * pinned to the state word that snapshot published: a snapshot nested
 * in the capture (an NMI) replaces it, and is said (%ST_PR_F_REPLACED),
 * never read as the crash's.
 *
 * Context: any, NMI included: a panic or die notifier. Never sleeps,
 * allocates nothing; takes the buffer's lock (at an oops waiting,
 * bounded, for a snapshot, clear or reset running on another CPU; at a
 * panic never waiting) and holds it, IRQs off, until its walks are done.
 * Return: 0 (the capture is in the region, maybe without records: its
 * flags say why); -EBUSY if the region was not armed by this load or
 * already holds a capture; KUnit builds: -EINTR if @p->stop_after
 * stopped it, unfinished.
 */
int snaptrace_persist_capture(struct snaptrace_persist *p,
			      struct snaptrace_buffer *buf, u32 reason,
			      const char *msg, bool others_stopped)
{
	struct st_pr_run run;
	int ret;

	ret = st_pr_capture_claim(&run, p, reason, msg);
	if (ret)
		return ret;
	st_pr_capture_snap(&run, buf, others_stopped);
	/*
	 * rcu_read_lock() (NMI-safe) from the sources' measure until they
	 * are written: a source removed meanwhile is freed after.
	 */
	rcu_read_lock();
	st_pr_capture_measure(&run);
	ret = st_pr_capture_place(&run);
	rcu_read_unlock();
	snaptrace_snapshot_unhold(buf, &run.hold);
	if (ret == -EINTR)
		return ret; /* KUnit: stopped, unfinished */
	st_pr_capture_seal(&run);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_capture);
