/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace: a per-CPU snapshot ring buffer and a remoteproc-style trace
 * resource handler, as one loadable module.
 *
 * This is the public header for other kernel code. Every exported symbol
 * carries the snaptrace_ prefix. The design of the ring buffer is in
 * Documentation/ring-buffer.rst; the kernel-doc of each function is in the
 * .c file that defines it.
 */
#ifndef _SNAPTRACE_SNAPTRACE_H
#define _SNAPTRACE_SNAPTRACE_H

#include <linux/types.h>

/* Module version, as shown in debugfs "version" and modinfo. */
#define SNAPTRACE_VERSION "0.1.0"

/* Name of the module's debugfs directory, under the debugfs mount. */
#define SNAPTRACE_DEBUGFS_NAME "snaptrace"

/* "Every CPU" for readers and iterators: merge CPUs in timestamp order. */
#define SNAPTRACE_ALL_CPUS (-1)

/* Largest payload of one record, in bytes. */
#define SNAPTRACE_MAX_PAYLOAD 2048

/* Longest line of text one record is shown as (hex payload), in bytes. */
#define SNAPTRACE_LINE_MAX (64 + 3 * SNAPTRACE_MAX_PAYLOAD)

/* Longest name of an instance (instances/NAME/), in bytes. */
#define SNAPTRACE_INSTANCE_NAME_MAX 32

/*
 * The error_log: entries kept (the oldest is dropped beyond), and the
 * longest location, message and command kept, in bytes with the NUL.
 */
#define SNAPTRACE_ERR_LOG_MAX 16
#define SNAPTRACE_ERR_LOC_MAX 128
#define SNAPTRACE_ERR_MSG_MAX 128
#define SNAPTRACE_ERR_CMD_MAX 256

/* Most return addresses snaptrace_dump_stack() records. */
#define SNAPTRACE_STACK_MAX_DEPTH 32

/* Smallest per-CPU buffer, in bytes (one record of the largest size fits). */
#define SNAPTRACE_MIN_SIZE (2 * PAGE_SIZE)

/* Largest per-CPU buffer, in bytes. */
#define SNAPTRACE_MAX_SIZE (256UL << 20)

/**
 * enum snaptrace_mode - what a writer does when the buffer is full
 * @SNAPTRACE_OVERWRITE: flight recorder: the oldest records are overwritten
 *	and counted in &snaptrace_stats.overrun.
 * @SNAPTRACE_STOP_WHEN_FULL: new records are refused and counted in
 *	&snaptrace_stats.dropped until a reader makes room.
 */
enum snaptrace_mode {
	SNAPTRACE_OVERWRITE,
	SNAPTRACE_STOP_WHEN_FULL,
};

/**
 * enum snaptrace_which - which of a buffer's two halves to read
 * @SNAPTRACE_LIVE: the buffer being recorded into.
 * @SNAPTRACE_SNAPSHOT: the spare buffer, holding the last snapshot.
 */
enum snaptrace_which {
	SNAPTRACE_LIVE,
	SNAPTRACE_SNAPSHOT,
};

/**
 * enum snaptrace_rec_type - kind of a record
 * @SNAPTRACE_REC_DATA: written by snaptrace_reserve()/snaptrace_write().
 * @SNAPTRACE_REC_MARKER: written by the buffer itself (text), e.g. when a
 *	snapshot was asked for but no spare buffer was allocated.
 * @SNAPTRACE_REC_STACK: written by snaptrace_dump_stack(): an array of
 *	kernel return addresses (unsigned long), innermost first.
 * @SNAPTRACE_REC_TEXT: a piece of a longer text (a remote's trace captured
 *	at a crash), cut at any byte: the text goes on in the next record of
 *	this type of the same CPU, and ends at its first NUL.
 */
enum snaptrace_rec_type {
	SNAPTRACE_REC_DATA = 1,
	SNAPTRACE_REC_MARKER = 2,
	SNAPTRACE_REC_STACK = 3,
	SNAPTRACE_REC_TEXT = 4,
};

/**
 * struct snaptrace_record - one record, as a reader gets it
 * @ts: timestamp in ns (local_clock()), taken when it was reserved
 * @pos: byte position of the record in its CPU's buffer since the buffer
 *	was last reset; consecutive records of one CPU are contiguous, so a
 *	gap between one record's @pos + its size and the next one's @pos means
 *	records were lost (overwritten) in between
 * @cpu: CPU that wrote it
 * @type: an &enum snaptrace_rec_type
 * @len: payload length in bytes, 1..SNAPTRACE_MAX_PAYLOAD
 * @data: the payload
 */
struct snaptrace_record {
	u64 ts;
	u64 pos;
	unsigned int cpu;
	u16 type;
	u16 len;
	u8 data[SNAPTRACE_MAX_PAYLOAD];
};

/**
 * struct snaptrace_stats - one CPU's counters, in records unless stated
 * @entries: records in the buffer now (written and not yet read or
 *	overwritten)
 * @written: records offered to the buffer: committed + dropped. At any
 *	quiescent point, written == read + entries + overrun + dropped.
 * @overrun: committed records overwritten before being read (overwrite mode)
 * @dropped: records refused: buffer full in stop-when-full mode, or a
 *	reservation that would overwrite a record still being written
 * @read: records consumed by consuming reads
 * @bytes: bytes the records in the buffer take, headers included
 * @oldest_ts: timestamp (ns) of the oldest record in the buffer, 0 if none
 * @snapshot_misses: snapshot() calls that found no spare buffer, or another
 *	snapshot in progress (buffer-wide, reported on every CPU)
 */
struct snaptrace_stats {
	u64 entries;
	u64 written;
	u64 overrun;
	u64 dropped;
	u64 read;
	u64 bytes;
	u64 oldest_ts;
	u64 snapshot_misses;
};

/**
 * struct snaptrace_reservation - a record being written
 *
 * Filled by snaptrace_reserve(), handed back to snaptrace_commit(). Lives on
 * the writer's stack; its fields are private to the ring buffer.
 */
struct snaptrace_reservation {
	/* private: */
	void *ring;
	u64 pos;
};

struct snaptrace_buffer;
struct snaptrace_iter;
struct file;
struct poll_table_struct;

struct snaptrace_buffer *snaptrace_buffer_alloc(size_t size_per_cpu,
						enum snaptrace_mode mode);
void snaptrace_buffer_free(struct snaptrace_buffer *buf);

void *snaptrace_reserve(struct snaptrace_buffer *buf, size_t len,
			struct snaptrace_reservation *res);
void snaptrace_commit(struct snaptrace_buffer *buf,
		      struct snaptrace_reservation *res);
int snaptrace_write(struct snaptrace_buffer *buf, const void *data,
		    size_t len);

void snaptrace_set_mode(struct snaptrace_buffer *buf, enum snaptrace_mode mode);
enum snaptrace_mode snaptrace_get_mode(struct snaptrace_buffer *buf);
void snaptrace_record_on(struct snaptrace_buffer *buf);
void snaptrace_record_off(struct snaptrace_buffer *buf);
bool snaptrace_record_is_on(struct snaptrace_buffer *buf);
void snaptrace_set_stop_on_miss(struct snaptrace_buffer *buf, bool stop);

int snaptrace_resize(struct snaptrace_buffer *buf, size_t size_per_cpu);
size_t snaptrace_size_per_cpu(struct snaptrace_buffer *buf);
void snaptrace_reset(struct snaptrace_buffer *buf);

int snaptrace_consume(struct snaptrace_buffer *buf, enum snaptrace_which which,
		      int cpu, struct snaptrace_record *rec);
int snaptrace_consume_batch(struct snaptrace_buffer *buf,
			    enum snaptrace_which which, int cpu,
			    struct snaptrace_record *recs, unsigned int n);

struct snaptrace_iter *snaptrace_iter_start(struct snaptrace_buffer *buf,
					    enum snaptrace_which which,
					    int cpu);
int snaptrace_iter_next(struct snaptrace_iter *iter,
			struct snaptrace_record *rec);
void snaptrace_iter_stop(struct snaptrace_iter *iter);

int snaptrace_wait(struct snaptrace_buffer *buf, enum snaptrace_which which,
		   int cpu, bool until_off);
__poll_t snaptrace_poll(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu, struct file *filp, struct poll_table_struct *pt);

int snaptrace_alloc_snapshot(struct snaptrace_buffer *buf);
int snaptrace_snapshot(struct snaptrace_buffer *buf);
int snaptrace_snapshot_alloc(struct snaptrace_buffer *buf);
void snaptrace_free_snapshot(struct snaptrace_buffer *buf);
int snaptrace_clear_snapshot(struct snaptrace_buffer *buf);
bool snaptrace_snapshot_is_allocated(struct snaptrace_buffer *buf);

int snaptrace_cpu_stats(struct snaptrace_buffer *buf, enum snaptrace_which which,
			int cpu, struct snaptrace_stats *stats);

/* Instances and recording control (src/instance.c). */
struct snaptrace_buffer *snaptrace_get_by_name(const char *name,
					       size_t size_per_cpu);
void snaptrace_put(struct snaptrace_buffer *buf);
void snaptrace_on(void);
void snaptrace_off(void);
bool snaptrace_is_on(void);
void snaptrace_stop(void);
void snaptrace_start(void);

/* Stack dumps (src/stack.c). */
int snaptrace_dump_stack(struct snaptrace_buffer *buf, unsigned int skip);

/* The error log (src/error_log.c). */
void snaptrace_log_err(const char *loc, const char *cmd, unsigned int err_pos,
		       const char *msg);

#endif /* _SNAPTRACE_SNAPTRACE_H */
