/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The persistent capture (Documentation/persist.rst): the layout of the
 * region that keeps a snapshot across a panic and a warm reboot, and the
 * functions that arm it, fill it at a panic and read it back at the next
 * load. Shared by src/persist_*.c and their KUnit suite.
 *
 * Every field is native-endian (x86-64 writes and reads it back); every
 * size and offset is checked against the region's size before it is used.
 */
#ifndef _SNAPTRACE_PERSIST_H
#define _SNAPTRACE_PERSIST_H

#include <linux/align.h>
#include <linux/types.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "trace_decode.h"

struct dentry;
struct mutex;
struct seq_file;
struct snaptrace_buffer;

#define ST_PR_MAGIC		0x5350524154504e53ULL	/* "SNPTARPS" */
#define ST_PR_VERSION		5
#define ST_PR_ENT_MAGIC		0x544e4552U	/* "RENT": an entry's commit marker */
#define ST_PR_ARMED		0x444d5241U	/* "ARMD" */
/* "\0\0CP" with the capturing CPU in the low 16 bits (at most 8191). */
#define ST_PR_CAPTURING		0x50430000U
#define ST_PR_CAPTURING_MASK	0xffff0000U
#define ST_PR_CAPTURING_CPU(s)	((s) & ~ST_PR_CAPTURING_MASK)
#define ST_PR_CAPTURED		0x454e4f44U	/* "DONE" */
#define ST_PR_MSG_MAX		128
#define ST_PR_MODS		4
#define ST_PR_MOD_NAME		48
/* Most CPUs a region describes (NR_CPUS is at most 8192). */
#define ST_PR_CPUS_MAX		8192
#define ST_PR_ALIGN		8
/* Rows of the sources' table: the remotes' last traces a capture keeps. */
#define ST_PR_SRCS		8
#define ST_PR_SRC_NAME		48
/* st_pr_ent.cpu of a source's entry: this bit and the source's row. */
#define ST_PR_ENT_SRC		0x80000000U
/* The sources together take at most this share of the data area (1/n). */
#define ST_PR_SRC_SHARE		2

/*
 * The region's start: a multiple of this. Every field of the layout is
 * at a multiple of its size from the start (64-bit ones at a multiple of
 * ST_PR_ALIGN), and the state word is claimed by a cmpxchg: a misaligned
 * start makes it a split lock on x86, an alignment fault on arm64.
 */
#define ST_PR_ADDR_ALIGN	ST_PR_ALIGN

/* Who else the command line gives a reserve_mem= region to. */
enum st_pr_user {
	ST_PR_USER_NONE,
	ST_PR_USER_FTRACE,	/* trace_instance=NAME@RESNAME */
	ST_PR_USER_RAMOOPS,	/* ramoops.mem_name=RESNAME */
};

/* Why a capture was taken. */
enum st_pr_reason {
	ST_PR_PANIC = 1,
	ST_PR_OOPS,
	ST_PR_TEST,
};

/* What went wrong while capturing (st_pr_cap.flags). */
#define ST_PR_F_NO_SNAPSHOT	BIT(0)	/* the snapshot failed: no records */
#define ST_PR_F_LOCKED		BIT(1)	/* a CPU the panic stopped or
					 * interrupted held the buffer's lock:
					 * the snapshot ran past it (maybe
					 * completing one under way), or (with
					 * NO_SNAPSHOT) was not taken
					 */
#define ST_PR_F_FULL		BIT(2)	/* the region was full: records left out */
#define ST_PR_F_REPLACED	BIT(3)	/* the snapshot was replaced during the
					 * capture (by a snapshot nested in it,
					 * an NMI's): CPUs not kept, or kept in
					 * part (ST_PR_CPU_F_REPLACED)
					 */

/*
 * At the region's start: written when the region is armed, at load. Every
 * format version keeps this header and, right after it, the capture's
 * state word (ST_PR_ARMED when armed), so that a region armed by another
 * version and never captured is known to hold nothing.
 */
struct st_pr_hdr {
	u64 magic;
	u32 version;
	u32 hdr_crc;		/* snaptrace_persist_crc() of this, hdr_crc 0 */
	u64 size;		/* the region's bytes */
	u64 phys;		/* its physical address when armed */
	u64 boot_id;		/* the arming load's random id */
	u64 armed_real_ns;	/* wall-clock time of the arming */
	u32 nr_cpus;		/* entries in the per-CPU table */
	u32 cap_off;		/* offset of struct st_pr_cap */
	u64 table_off;		/* offset of the per-CPU table */
	u64 data_off;		/* offset of the first entry */
};

/* A module's core text, to symbolise stack records after KASLR. */
struct st_pr_mod {
	u64 base;
	u64 size;
	char name[ST_PR_MOD_NAME];
};

/* The capture's header: written at the panic, its CRC last, then @state. */
struct st_pr_cap {
	u32 state;		/* ST_PR_ARMED, _CAPTURING | cpu, _CAPTURED */
	u32 cap_crc;		/* of this struct (state, cap_crc 0) and the table;
				 * while capturing, of this struct alone, its
				 * counts (flags to torn) still 0
				 */
	u64 boot_id;		/* the header's, again */
	u32 reason;		/* enum st_pr_reason */
	s32 cpu;		/* the capturing CPU */
	u64 real_ns;		/* ktime_get_real_fast_ns() at the capture */
	u64 clock_ns;		/* local_clock(): the records' clock */
	u64 kernel_anchor;	/* the run-time address of _printk() */
	u32 nr_mods;
	u32 flags;		/* ST_PR_F_* */
	struct st_pr_mod mods[ST_PR_MODS];
	char msg[ST_PR_MSG_MAX];	/* the panic message, cut, NUL-terminated */
	u64 data_bytes;		/* bytes of entries from data_off */
	u64 entries;		/* entries written */
	u64 torn;		/* CPUs' records open at the capture, left out */
};

/* A CPU's state (st_pr_cpu.flags). */
#define ST_PR_CPU_F_REPLACED	BIT(0)	/* the snapshot was replaced before
					 * this CPU's records were written:
					 * none, or (on the CPU where it was
					 * seen) the older part of its run
					 */

/* Per CPU, in the table after the capture header. */
struct st_pr_cpu {
	u64 entries;		/* written for this CPU */
	u64 torn;		/* 1 if a record was open (reserved, not committed) */
	u64 left_out;		/* the oldest records, not in the CPU's share */
	u64 flags;		/* ST_PR_CPU_F_* */
};

/* A source's state (st_pr_src.flags). */
#define ST_PR_SRC_F_FULL	BIT(0)	/* did not fit: left out, whole */
#define ST_PR_SRC_F_TORN	BIT(1)	/* a record open in its snapshot */
#define ST_PR_SRC_F_STALE	BIT(2)	/* its snapshot was replaced during
					 * the walk (a new crash of the
					 * remote): the entries written until
					 * then, a part of the old one
					 */

/*
 * Per source (a remote's last trace), in the table after the per-CPU
 * table: the name, how its text is read back (@len, @fmt) and their own
 * CRC are written before the source's entries, so that an unfinished
 * capture still names and decodes them; the counts and flags at the end,
 * under the capture's CRC. An unused row is zero.
 */
struct st_pr_src {
	u32 name_crc;		/* of the boot id, the row's index, @name,
				 * @len and @fmt
				 */
	u32 flags;		/* ST_PR_SRC_F_* */
	u64 entries;		/* written for this source */
	char name[ST_PR_SRC_NAME];	/* "<remote's dir>/trace<N>_last", NUL-ended */
	u32 len;		/* the trace's bytes at its capture, what its
				 * traceN_last decodes: the text kept in the
				 * entries, then NULs (not kept) up to @len;
				 * at most SNAPTRACE_RPROC_TRACE_MAX
				 */
	u32 fmt;		/* the &enum snaptrace_tfmt its traceN_last
				 * decoded with at the capture
				 */
};

/* One record: self-contained, its marker written last. */
struct st_pr_ent {
	u32 marker;		/* ST_PR_ENT_MAGIC */
	u32 crc;		/* of the boot id, the entry (marker, crc 0)
				 * and its payload
				 */
	u32 cpu;		/* the CPU; or ST_PR_ENT_SRC | a source's row */
	u16 type;
	u16 len;		/* payload bytes, 1..SNAPTRACE_MAX_PAYLOAD */
	u64 seq;		/* its index in its CPU's (source's) snapshot
				 * (gaps: left out)
				 */
	u64 ts;			/* ns, the record's whole time stamp */
	u64 pos;		/* byte position in its CPU's ring (gaps: lost) */
	u8 data[];		/* @len bytes, padded to ST_PR_ALIGN */
};

/**
 * snaptrace_persist_ent_size() - bytes an entry of @len payload bytes takes
 * @len: payload bytes
 *
 * Inline: the capture's walks take it for every record, at a panic.
 *
 * Context: any.
 * Return: the entry's header and its payload, padded to ST_PR_ALIGN.
 */
static inline size_t snaptrace_persist_ent_size(size_t len)
{
	return sizeof(struct st_pr_ent) + ALIGN(len, ST_PR_ALIGN);
}

/**
 * struct st_pr_need - one CPU's snapshot, as the capture's first walk saw it
 * @bytes: the bytes its records take as entries
 * @last: the position of its last record (if @nr)
 * @nr: its records
 * @open: a record was still open after them (torn)
 * @pin: the snapshot it walked: the second walk is of the same one, or
 *	of none
 * @seq: a source's only: its &snaptrace_persist_source.seq before the
 *	first walk
 *
 * The second walk stops after @last: a record committed late, after the
 * first walk, is not in @bytes, and would not fit the CPU's share.
 */
struct st_pr_need {
	u64 bytes;
	u64 last;
	u64 nr;
	bool open;
	struct snaptrace_walk_pin pin;
	u32 seq;
};

/**
 * struct snaptrace_persist - a region being recorded into
 * @base: the region, mapped
 * @size: its bytes
 * @phys: its physical address (checked at the next load)
 * @boot_id: this load's random id, in the header
 * @stop_after: KUnit builds: the capture stops after this many entries,
 *	unfinished, as if its CPU had been stopped there (0: never); this
 *	and the three hooks below are read by st_pr_hook() alone, the
 *	capture's test seam
 * @rec: room for one record, for the capture (an NMI's stack is small)
 * @need: per CPU (nr_cpu_ids), the capture's scratch: what its first
 *	walk found of the CPU's snapshot (struct st_pr_need)
 * @measured: KUnit builds: called between the capture's two walks
 * @snapped: KUnit builds: called between the capture's snapshot and its
 *	first walk
 * @cleaned: KUnit builds: called with the bytes from the region's start
 *	that were just cleaned to the point of coherency (st_pr_clean()):
 *	after the arming's last store, the capture's, or at a capture
 *	refused over an unfinished one
 * @remotes: the capture keeps the remotes' last traces registered with
 *	snaptrace_persist_source_add() (the module's region: true)
 * @src_need: the capture's scratch, per source row: its entries' bytes
 * @nr_mods: modules in @mods
 * @mods: their core text, copied into each capture
 * @nr_cpus: CPUs of the per-CPU table, as armed
 * @table_off: the per-CPU table's offset in the region, as armed
 * @data_off: the entries' offset in the region, as armed
 * @found_state: the capture's state word as snaptrace_persist_take() found
 *	it, before the region was armed (for the log: the CPU of an
 *	unfinished capture); 0 if the region is too small to hold one
 *
 * The capture takes the geometry from @nr_cpus, @table_off and
 * @data_off, never from the region's header: the region is memory that
 * anything may have scribbled on by then (a panic may be that), and a
 * header read back could send the capture's writes outside the region.
 */
struct snaptrace_persist {
	void *base;
	size_t size;
	u64 phys;
	u64 boot_id;
#if IS_ENABLED(CONFIG_KUNIT)
	u64 stop_after;
	void (*measured)(struct snaptrace_persist *p);
	void (*snapped)(struct snaptrace_persist *p);
	void (*cleaned)(struct snaptrace_persist *p, size_t len);
#endif
	struct snaptrace_record *rec;
	struct st_pr_need *need;
	bool remotes;
	struct st_pr_need src_need[ST_PR_SRCS];
	unsigned int nr_mods;
	struct st_pr_mod mods[ST_PR_MODS];
	unsigned int nr_cpus;
	u64 table_off;
	u64 data_off;
	u32 found_state;
};

/**
 * enum st_pr_step - where the capture and the arming call their test seam
 * @ST_PR_STEP_SNAPPED: the capture's snapshot is taken, its first walk
 *	not begun (the region's snapped())
 * @ST_PR_STEP_MEASURED: between the capture's two walks (measured())
 * @ST_PR_STEP_PLACE: the capture's second walk begins: the seam returns
 *	after how many entries it stops, unfinished (stop_after; 0: never)
 * @ST_PR_STEP_CLEANED: the region's first bytes, as many as the seam's
 *	argument, were just cleaned to the point of coherency (cleaned())
 */
enum st_pr_step {
	ST_PR_STEP_SNAPPED,
	ST_PR_STEP_MEASURED,
	ST_PR_STEP_PLACE,
	ST_PR_STEP_CLEANED,
};

/*
 * The capture's one test seam, as the ring's st_hook() is: in KUnit builds
 * it calls what the test set in @p (struct snaptrace_persist's KUnit
 * fields) at @step; without KUnit it is empty and returns 0, and nothing
 * of it is left in the capture.
 */
#if IS_ENABLED(CONFIG_KUNIT)
static __always_inline u64 st_pr_hook(struct snaptrace_persist *p,
				      enum st_pr_step step, u64 arg)
{
	switch (step) {
	case ST_PR_STEP_SNAPPED:
		if (p->snapped)
			p->snapped(p);
		break;
	case ST_PR_STEP_MEASURED:
		if (p->measured)
			p->measured(p);
		break;
	case ST_PR_STEP_PLACE:
		return p->stop_after;
	case ST_PR_STEP_CLEANED:
		if (p->cleaned)
			p->cleaned(p, arg);
		break;
	}
	return 0;
}
#else
static __always_inline u64 st_pr_hook(struct snaptrace_persist *p,
				      enum st_pr_step step, u64 arg)
{
	return 0;
}
#endif

/**
 * struct snaptrace_persist_last - a previous boot's capture, validated
 * @hdr: the region's header, as found
 * @cap: the capture's header, as found
 * @unfinished: the capture did not finish (the machine stopped while
 *	CPU @cap.cpu was capturing): @cap's reason, times and message are
 *	right (their CRC), its counts are not known; @ents are the entries
 *	found intact in the whole data area, @per_cpu counts them
 * @time_doubtful: the capture's wall-clock time is not between its
 *	arming and the load that took it (a wall clock that went back in
 *	the previous boot, or across the reboot: no battery-backed clock);
 *	the capture is shown all the same, its time said to be doubtful
 * @nr_cpus: CPUs of @per_cpu
 * @per_cpu: the per-CPU table, as found (or counted, if @unfinished)
 * @kept: records kept (in @ents)
 * @torn: records open at the capture, left out (the capture's count)
 * @corrupt: records written but dropped here (bad marker, CRC or field)
 * @ents: the kept records, ordered by time stamp, then CPU, then seq
 * @data: a copy of the entries, which @ents point into
 * @srcs: the sources' table, as found (finished: under the capture's CRC;
 *	unfinished: rows whose name CRC is right, their entries counted)
 * @remotes: per row of @srcs, whether it names a source (its name checked)
 * @remote_text: per row, the source's trace as its traceN_last decoded it
 *	(its kept entries' text, from its last head, then NULs up to the
 *	row's len; one NUL more); or NULL: nothing kept, or refused
 * @remote_len: per row, bytes of @remote_text decoded (the row's len);
 *	raw (@remote_raw): its bytes, the text kept, NULs left out
 * @remote_raw: per row, why @remote_text is raw, not decoded (its pieces
 *	cannot be placed as the trace was: one dropped as corrupt, or the
 *	row replaced or torn); or NULL
 * @remote_kept: per row, entries kept
 * @remote_err: per row, why a row that names a source is not shown, its
 *	fields under their CRC all the same: -EPROTONOSUPPORT (a format
 *	trace_decode.c does not know), -EFBIG (a length beyond the largest
 *	trace), -EMSGSIZE (its text runs past its length); or 0
 */
struct snaptrace_persist_last {
	struct st_pr_hdr hdr;
	struct st_pr_cap cap;
	bool unfinished;
	bool time_doubtful;
	unsigned int nr_cpus;
	struct st_pr_cpu *per_cpu;
	u64 kept;
	u64 torn;
	u64 corrupt;
	const struct st_pr_ent **ents;
	u8 *data;
	struct st_pr_src srcs[ST_PR_SRCS];
	bool remotes[ST_PR_SRCS];
	char *remote_text[ST_PR_SRCS];
	size_t remote_len[ST_PR_SRCS];
	u64 remote_kept[ST_PR_SRCS];
	const char *remote_raw[ST_PR_SRCS];
	int remote_err[ST_PR_SRCS];
};

/**
 * struct snaptrace_persist_source - a remote's last trace, for the capture
 * @buf: the last copy's buffer: its snapshot holds the capture
 * @cpu: the CPU of @buf whose ring holds it
 * @has_last: true once @buf's snapshot holds a capture (written with
 *	smp_store_release() after @len: read with smp_load_acquire())
 * @len: the trace's bytes at that capture, which its traceN_last decodes
 *	(read with READ_ONCE()); mandatory
 * @seq: the captures' count: odd from before @buf's copy changes until
 *	after @len is written, even otherwise; sampled before and after the
 *	capture's walks of @buf, a count that changed or was odd marks the
 *	row torn (%ST_PR_SRC_F_TORN: its text and @len may not belong
 *	together); mandatory
 * @format: the convention its traceN_last decodes with now; called by the
 *	capture, in any context, NMI included: no lock, no sleep; mandatory
 * @name: as its debugfs file is named: "<remote's dir>/trace<N>_last"
 * @slot: its row in the registry, -1 if not registered
 */
struct snaptrace_persist_source {
	struct snaptrace_buffer *buf;
	int cpu;
	const bool *has_last;
	const u32 *len;
	const u32 *seq;
	enum snaptrace_tfmt (*format)(struct snaptrace_persist_source *src);
	char name[ST_PR_SRC_NAME];
	int slot;
};

/* persist_layout.c: the layout and checksums */
u32 snaptrace_persist_crc(u32 crc, const u8 *p, size_t len);
u32 snaptrace_persist_hdr_crc(const struct st_pr_hdr *h);
u32 snaptrace_persist_cap_crc(const struct st_pr_cap *cap,
			      const struct st_pr_cpu *table, unsigned int nr_cpus);
u32 snaptrace_persist_src_crc(const struct st_pr_src *src, u32 row, u64 boot_id);
u32 snaptrace_persist_ent_crc(const struct st_pr_ent *e, u64 boot_id);
int snaptrace_persist_geometry(u64 size, u64 nr_cpus, u64 *table_off,
			       u64 *data_off);
bool snaptrace_persist_geometry_ok(const struct st_pr_hdr *h, size_t size);

/* persist_capture.c: the sources' registry, the arming and the capture */
int snaptrace_persist_source_add(struct snaptrace_persist_source *src);
bool snaptrace_persist_source_clear(struct snaptrace_persist_source *src);
void snaptrace_persist_source_remove(struct snaptrace_persist_source *src);
#if IS_ENABLED(CONFIG_KUNIT)
unsigned int snaptrace_persist_sources_free(void);
#endif
u64 snaptrace_persist_kernel_anchor(void);
int snaptrace_persist_arm(struct snaptrace_persist *p, u64 real_ns);
int snaptrace_persist_capture(struct snaptrace_persist *p,
			      struct snaptrace_buffer *buf, u32 reason,
			      const char *msg, bool others_stopped);

/* persist_parse.c: a previous capture, validated and taken */
struct snaptrace_persist_last *
snaptrace_persist_parse(const void *base, size_t size, u64 phys, u64 boot_id,
			u64 now_real_ns);
void snaptrace_persist_last_free(struct snaptrace_persist_last *last);
bool snaptrace_persist_keeps(int err);
int snaptrace_persist_take(struct snaptrace_persist *p, u64 now_real_ns,
			   bool discard, struct snaptrace_persist_last **last,
			   int *err_out);

/* persist_show.c: last_boot/ */
void snaptrace_persist_snapshot_show(struct seq_file *m,
				     const struct snaptrace_persist_last *l);
void snaptrace_persist_times_show(struct seq_file *m,
				  const struct snaptrace_persist_last *l,
				  u64 boot_real_ns);
void snaptrace_persist_remotes_show(struct seq_file *m,
				    const struct snaptrace_persist_last *l);
void snaptrace_persist_remote_show(struct seq_file *m,
				   const struct snaptrace_persist_last *l,
				   unsigned int row);
void snaptrace_persist_ent_record(const struct st_pr_ent *e,
				  struct snaptrace_record *rec);
const char *snaptrace_persist_reason(u32 reason);
const char *snaptrace_persist_why(int err);
int snaptrace_persist_debugfs(struct dentry *root);

/*
 * persist_load.c: the load path (parameters, mapping, notifiers, the
 * arming, last_boot/release), and what its last_boot/ shows: the previous
 * boot's capture taken out of the region, or the error of a region kept
 * as found, not armed, until released, under snaptrace_persist_lock;
 * whether captures may run (snaptrace_persist_armed, set and cleared under
 * kernel_param_lock(THIS_MODULE) too); last_boot/ itself.
 */
extern struct mutex snaptrace_persist_lock;
extern struct snaptrace_persist_last *snaptrace_persist_last_boot;
extern int snaptrace_persist_kept;
extern bool snaptrace_persist_kept_past_end;
extern bool snaptrace_persist_armed;
extern struct dentry *snaptrace_persist_dir;
extern const struct file_operations snaptrace_persist_release_fops;
int snaptrace_persist_check_align(u64 start, const char *name);
int snaptrace_persist_name_user(const char *cmdline, const char *name,
				char *arg, size_t len);

#endif /* _SNAPTRACE_PERSIST_H */
