/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the snaptrace KUnit suites, each defined once (in
 * helpers.c): reading and writing files the way user space does, the
 * loaded module's default instance and error_log, self-checking payloads,
 * record stream checks, buffers freed with the test, running a function in
 * a chosen context (softirq, hardirq, irqs off, NMI, or inside an open
 * reservation), an operation in a helper thread while the test holds an
 * iterator, and background load (a writer kthread per online CPU, an
 * hrtimer taking snapshots); and the remote fixture (in rproc_fixture.c):
 * remotes of the test's own, for every suite that builds remotes.
 *
 * Written from the API contract in <snaptrace/snaptrace.h>: every number
 * the suites assert is derived from it (16-byte record header, payload
 * rounded up to 8 bytes, per-CPU size a power-of-two number of pages).
 */
#ifndef _SNAPTRACE_ST_KUNIT_H
#define _SNAPTRACE_ST_KUNIT_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/elf.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/string.h>
#include <linux/types.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"

/* Where the guest mounts debugfs (tests/qemu/guest/init). */
#define ST_DEBUGFS "/sys/kernel/debug"
/* The loaded module's directory, and its error_log. */
#define ST_ROOT			ST_DEBUGFS "/" SNAPTRACE_DEBUGFS_NAME
#define ST_ERRLOG		ST_ROOT "/error_log"
/* Bytes st_slurp() reads at most, its NUL included. */
#define ST_TEXT_MAX		16384

/* ---- files, the way user space uses them ---- */

ssize_t st_read_file(struct kunit *test, const char *path, char *buf,
		     size_t len);
ssize_t st_read_user(const char *path, unsigned long ubuf, char *buf,
		     size_t len);
void st_skip_unless_debugfs_mounted(struct kunit *test);
struct dentry *st_debugfs_dir(struct kunit *test, const char *name);
ssize_t st_read_once(struct kunit *test, const char *path, int flags, char *out);
ssize_t st_write_bytes(struct kunit *test, const char *path, const void *buf,
		       size_t len, loff_t pos);
ssize_t st_write_file(struct kunit *test, const char *path, const char *text,
		      loff_t pos);
char *st_slurp(struct kunit *test, const char *path);
bool st_debugfs_has(const char *path);

/* ---- strings ---- */

__printf(2, 3) char *st_fmt(struct kunit *test, const char *fmt, ...);
unsigned int st_count(const char *s, const char *what);

/* ---- remotes ---- */

struct snaptrace_rproc_ops;
/* The do-nothing platform of the suites' bare remotes (helpers.c). */
extern const struct snaptrace_rproc_ops st_rproc_nop_ops;
void st_rproc_traces_free(void *arg);

/* ---- the loaded module's default instance and error_log ---- */

void st_errlog_fresh(struct kunit *test);
char *st_caret(struct kunit *test, unsigned int pos);
struct snaptrace_buffer *st_default_fresh(struct kunit *test);

/*
 * The record layout (Documentation/ring-buffer.rst, "Record layout"):
 * ST_LAYOUT8, the 8-byte layout, where 64-bit accesses must be aligned
 * (CONFIG_HAVE_64BIT_ALIGNED_ACCESS) or in a module built with make
 * SNAPTRACE_ALIGN8=1; else the default, 4-byte one. Written from the
 * documentation, not from src/ring.h: the byte counts the suites assert
 * check the two against each other.
 *
 * ST_REC_ALIGN      what records, and payloads, are aligned to; a payload
 *                   is padded to a multiple of it
 * ST_HDR_BYTES      the header of a DATA record whose payload is a multiple
 *                   of 4 bytes up to ST_SHORT_MAX (the short one); 8 in the
 *                   8-byte layout, which has no short header
 * ST_HDR_LONG_BYTES the header of every other record
 * ST_EXT_BYTES      the EXT prefix (a delta of 2^27 ns or more)
 * ST_ABS_BYTES      the ABS prefix (the whole time stamp)
 */
#if defined(CONFIG_HAVE_64BIT_ALIGNED_ACCESS) || defined(SNAPTRACE_FORCE_ALIGN8)
#define ST_LAYOUT8		1
#define ST_REC_ALIGN		8
#define ST_HDR_BYTES		8
#define ST_SHORT_MAX		0
#define ST_EXT_BYTES		8
#define ST_ABS_BYTES		16
#else
#define ST_LAYOUT8		0
#define ST_REC_ALIGN		4
#define ST_HDR_BYTES		4
#define ST_SHORT_MAX		108
#define ST_EXT_BYTES		4
#define ST_ABS_BYTES		12
#endif
#define ST_HDR_LONG_BYTES	8
/* The payload of a 64-byte DATA record: 60 bytes, or 56 in the 8-byte layout. */
#define ST_LEN_REC64		(64 - ST_HDR_BYTES)
/* Payload magics: records written by tasks, and by interrupt handlers. */
#define ST_MAGIC		0x53545231U
#define ST_MAGIC_IRQ		0x53544931U
/* Bounded waits for an interrupt we raised: sleeping, and spinning. */
#define ST_WAIT_LOOPS		1000
#define ST_SPIN_LOOPS		1000000UL
/* A counter at or above this has wrapped below zero. */
#define ST_COUNT_WRAPPED	BIT_ULL(62)

/*
 * Bytes a DATA record of @len payload bytes takes in the per-CPU buffer
 * when its delta from its frame's anchor fits its header (st_clock_count()).
 */
static inline u64 st_rec_bytes(size_t len)
{
	bool short_hdr = !(len % 4) && len <= ST_SHORT_MAX;

	return (short_hdr ? ST_HDR_BYTES : ST_HDR_LONG_BYTES) +
	       ALIGN(len, ST_REC_ALIGN);
}

/*
 * Bytes a ring of @size bytes takes with its time anchors: 16 bytes for
 * each of two laps of 8 KiB frames, and for at least four frames.
 */
static inline size_t st_ring_total(size_t size)
{
	return size + 16 * max_t(size_t, 2 * size / 8192, 4);
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

void st_payload_fill(u8 *p, size_t len, u32 magic, u32 cpu, u32 seq);
bool st_payload_ok(const struct snaptrace_record *rec, struct st_hdr *h);

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

void st_check_init(struct st_check *c, u64 *next, int cpu, u64 stride);
void st_check_one(struct st_check *c, const struct snaptrace_record *rec);
int st_scan(struct kunit *test, struct snaptrace_buffer *buf,
	    enum snaptrace_which which, int cpu, u64 stride, struct st_check *c);
unsigned int st_collect(struct kunit *test, struct snaptrace_buffer *buf,
			enum snaptrace_which which, int cpu,
			struct snaptrace_record *recs, unsigned int max, int *end);

/* ---- buffers, stats, and writing on a chosen CPU ---- */

struct st_wcount {
	unsigned int ok;
	unsigned int nospc;
	unsigned int other;
};

void st_clock_count(struct kunit *test);
struct snaptrace_buffer *st_buf_new(struct kunit *test, size_t size,
				    enum snaptrace_mode mode);
struct snaptrace_record *st_rec_new(struct kunit *test);
struct snaptrace_stats st_stats(struct kunit *test, struct snaptrace_buffer *buf,
				enum snaptrace_which which, int cpu);
void st_expect_counted(struct kunit *test, struct snaptrace_buffer *buf,
		       enum snaptrace_which which, int cpu,
		       const struct snaptrace_stats *st);
void st_expect_empty(struct kunit *test, struct snaptrace_buffer *buf,
		     enum snaptrace_which which, int cpu);
void st_expect_half_sane(struct kunit *test, struct snaptrace_buffer *buf,
			 enum snaptrace_which which);
struct st_wcount st_write_n(struct kunit *test, struct snaptrace_buffer *buf,
			    int cpu, unsigned int n, size_t len, u32 seq0);
int st_cpu(void);
struct task_struct *st_kthread(int (*fn)(void *data), void *data, int cpu,
			       const char *name);

/* ---- the ring buffer's test hook and test clock ---- */

void st_hook_install(struct kunit *test,
		     void (*hook)(struct snaptrace_buffer *buf,
				  enum snaptrace_test_step step, int cpu));
void st_clock_install(struct kunit *test, u64 ns);
void st_clock_set(u64 ns);
u64 st_clock_get(void);

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
	void *data;		/* for fn */
	enum st_ctx ctx;
	bool in_ctx;		/* it ran in the context asked for */
	int cpu;		/* where it ran */
	int rc[2];		/* what fn saw */
	atomic_t done;
	struct hrtimer timer;
	struct irq_work work;
	struct tasklet_struct tasklet;
};

/*
 * A case that only differs by the context it runs in is one case,
 * parameterised by it: KUNIT_ARRAY_PARAM(name, an array of enum st_ctx,
 * st_ctx_desc), and the case reads st_param_ctx(test).
 */
void st_ctx_desc(const enum st_ctx *ctx, char *desc);

static inline enum st_ctx st_param_ctx(struct kunit *test)
{
	return *(const enum st_ctx *)test->param_value;
}

struct st_job *st_job_new(struct kunit *test, struct snaptrace_buffer *buf,
			  enum st_ctx ctx, void (*fn)(struct st_job *job));
void st_job_raise(struct st_job *job);
bool st_job_wait(struct st_job *job);
bool st_job_spin(struct st_job *job);
void st_job_go(struct kunit *test, struct st_job *job);
bool st_nmi_disarm(void);
int st_job_in_reservation(struct kunit *test, struct st_job *job, size_t len,
			  u32 seq);

/* ---- an operation in a helper thread, while the test holds an iterator ---- */

/**
 * struct st_async - an operation for st_async_run()
 * @buf: the buffer it works on
 * @fn: the operation, e.g. a wrapper of snaptrace_reset() or
 *	snaptrace_resize(); returns 0 or a negative errno
 * @arg: its second argument (a size, or unused)
 * @rc: what @fn returned, once done
 * @done: completed when @fn has returned
 */
struct st_async {
	struct snaptrace_buffer *buf;
	int (*fn)(struct snaptrace_buffer *buf, size_t arg);
	size_t arg;
	int rc;
	struct completion done;
};

bool st_async_run(struct kunit *test, struct st_async *as,
		  struct snaptrace_iter *it);

/* ---- background load ---- */

struct st_writers;

/* One writer kthread, bound to its CPU. */
struct st_bg_writer {
	struct st_writers *ws;
	struct task_struct *task;
	struct completion done;
	int cpu;
	unsigned int tried;	/* records attempted so far (READ_ONCE) */
	/*
	 * Records begun (before the reservation, then a full barrier) and
	 * finished (after the write returned, a release): finished >=
	 * a reading of begun says every reservation before it ended.
	 */
	unsigned long begun;
	unsigned long finished;
	unsigned int ok;
	unsigned int refused;	/* no room, or recording off: nospc + off */
	unsigned int nospc;	/* -ENOSPC */
	unsigned int off;	/* -EBUSY */
	unsigned int unexpected;	/* any other result, or on the wrong CPU */
};

/* A writer per online CPU, each writing up to @max self-checking records. */
struct st_writers {
	struct snaptrace_buffer *buf;
	unsigned int max;
	unsigned int pace_us;
	unsigned int hold_us;
	bool may_be_off;	/* the test turns recording off or resets: -EBUSY allowed */
	bool pause;
	atomic_t paused;	/* writers waiting in a pause */
	bool stop;
	bool stopped;
	unsigned int n;
	struct st_bg_writer *w;
};

struct st_writers *st_writers_start(struct kunit *test,
				    struct snaptrace_buffer *buf,
				    unsigned int max, unsigned int pace_us,
				    unsigned int hold_us);
bool st_writers_reached(struct st_writers *ws, unsigned int tried);
bool st_writers_active(struct st_writers *ws);
bool st_writers_pause(struct st_writers *ws);
void st_writers_resume(struct st_writers *ws);
void st_writers_finish(struct st_writers *ws, unsigned int polls);
void st_writers_stop(struct st_writers *ws);
void st_writers_expect_sane(struct kunit *test, struct st_writers *ws);

/*
 * An hrtimer calling snaptrace_snapshot() every @period_ns, at most @max
 * times. Calls are numbered from 1: @started is the number of the latest
 * call begun, @ended counts calls returned, @last_ok is the number of the
 * latest call that returned 0 (set after the swap).
 */
struct st_snap_timer {
	struct snaptrace_buffer *buf;
	struct hrtimer timer;
	u64 period_ns;
	unsigned int max;
	atomic_t started;
	atomic_t ended;
	atomic_t last_ok;
	atomic_t ok;
	atomic_t busy;
	atomic_t unexpected;
};

struct st_snap_timer *st_snap_timer_start(struct kunit *test,
					  struct snaptrace_buffer *buf,
					  u64 period_ns, unsigned int max);
void st_snap_timer_stop(struct st_snap_timer *tm);

/* ---- remotes of the test's own (rproc_fixture.c) ---- */

struct snaptrace_rproc;
struct snaptrace_rproc_attach_ops;
struct snaptrace_rproc_mem;

struct snaptrace_rproc *st_rproc_create(int index, const char *layout);
struct snaptrace_rproc *st_rproc_new(struct kunit *test, int index,
				     const char *layout);
void st_rproc_release(struct kunit *test, struct snaptrace_rproc *rproc);
struct snaptrace_rproc *
st_rproc_attached_new(struct kunit *test, int index, const char *name,
		      const struct snaptrace_rproc_mem *shared,
		      const struct snaptrace_rproc_attach_ops *ops, void *priv,
		      unsigned int watchdog_ms);
void st_rproc_need_fw(struct kunit *test, struct snaptrace_rproc *rproc,
		      const char *name);
struct snaptrace_rproc *st_rproc_bare(struct kunit *test);
void st_rproc_add_mem(struct kunit *test, struct snaptrace_rproc *rproc, u32 da,
		      u32 len);
void st_rproc_expect_nothing_held(struct kunit *test, struct snaptrace_rproc *rproc);
void st_rproc_expect_offline_empty(struct kunit *test, struct snaptrace_rproc *rproc);

/**
 * st_elf32_hdr_init() - the ELF header of a test's little ARM image
 * @eh: the header, at the image's start, zeroed
 * @shoff: where the section headers are (bytes from the start)
 * @shnum: how many; the section names are section 2
 *
 * An ELF32 little-endian ARM executable with one program header, right
 * after this header, as the firmware images the tests build have.
 *
 * Context: any. Inline: the test driver module (tests/rproc_testdrv.c)
 * builds its images with it too, without the KUnit module.
 */
static inline void st_elf32_hdr_init(struct elf32_hdr *eh, u32 shoff, u16 shnum)
{
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_ARM;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(struct elf32_phdr);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(struct elf32_shdr);
	eh->e_shnum = shnum;
	eh->e_shstrndx = 2;
}

#endif /* _SNAPTRACE_ST_KUNIT_H */
