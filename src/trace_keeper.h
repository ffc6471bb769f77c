/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keeper of a remote's trace (trace_keeper.c): one object per trace
 * buffer of a remote, whoever booted it (our own remotes, rproc_trace.c,
 * or upstream's followed ones, rproc_follow.c), owning its debugfs traceN
 * and traceN_last, the buffer its crash captures go to, the decoding of
 * both files (trace_decode.h) and its registration with the persistent
 * capture.
 */
#ifndef _SNAPTRACE_TRACE_KEEPER_H
#define _SNAPTRACE_TRACE_KEEPER_H

#include <linux/types.h>

#include "persist.h"
#include "trace_decode.h"

struct dentry;
struct device;
struct snaptrace_buffer;
struct snaptrace_keeper;
struct snaptrace_reservation;

/**
 * struct snaptrace_keeper_ops - what a keeper's feeder provides
 * @read_live: copy the live trace, for traceN: set *@buf to a kvmalloc()ed
 *	copy and *@len to its size, and return 0; or return 0 with *@buf
 *	NULL when there is nothing to show (the remote does not run), or a
 *	-errno. Process context, may sleep. Required
 * @last_lock: before traceN_last reads the last capture: wait for a
 *	capture in progress, or take the feeder's lock (may be NULL);
 *	process context; return 0 or -errno (-EINTR)
 * @last_unlock: undo @last_lock (may be NULL)
 * @format: the convention to decode with (&enum snaptrace_tfmt); NULL:
 *	%SNAPTRACE_TFMT_AUTO. Also called by a host panic's capture, which
 *	keeps traceN_last (&snaptrace_persist_source.format): any context,
 *	NMI included; no lock, no sleep (a READ_ONCE()); and it may not
 *	rely on &snaptrace_keeper.priv, which a feeder may clear while the
 *	keeper is registered (rproc_trace.c sets it NULL when its trace
 *	goes, the keeper kept): with NULL it must still return a format
 */
struct snaptrace_keeper_ops {
	int (*read_live)(struct snaptrace_keeper *k, void **buf, u32 *len);
	int (*last_lock)(struct snaptrace_keeper *k);
	void (*last_unlock)(struct snaptrace_keeper *k);
	enum snaptrace_tfmt (*format)(struct snaptrace_keeper *k);
};

/**
 * typedef snaptrace_keeper_read_t - read a trace's bytes, for a capture
 *	from memory that needs care (I/O memory)
 * @ctx: the feeder's
 * @off: offset in the trace
 * @dst: where to copy
 * @n: bytes
 *
 * Context: process context, may sleep.
 * Return: 0, or -errno (the bytes are then taken as NULs).
 */
typedef int (*snaptrace_keeper_read_t)(void *ctx, u32 off, void *dst, u32 n);

/**
 * struct snaptrace_keeper - the keeper of one trace of a remote
 * @ops: its feeder's
 * @priv: for @ops; changed by the feeder while the files are away, or
 *	under its own lock
 * @dev: where messages go
 * @index: N of traceN
 * @size: the largest trace a capture holds, in bytes (its capacity)
 * @last: the capture buffer: its snapshot half holds the last capture,
 *	allocated with the keeper so that a capture allocates nothing
 * @named: @last is a named instance's (snaptrace_put()), not the
 *	keeper's own (snaptrace_buffer_free())
 * @res: a capture's reservations, one per record, held open across its
 *	snapshot
 * @last_cpu: the CPU whose ring of @last the captures write
 * @has_last: @last holds a capture (smp_store_release() after its
 *	snapshot and @last_len; smp_load_acquire() to read @last_len)
 * @last_len: bytes of the trace at the last capture (what traceN_last
 *	decodes; the bytes after those captured were NULs)
 * @last_seq: the captures' count: odd while one runs (from before @last
 *	changes until after @last_len is written), even otherwise; a host
 *	panic's capture that saw it change or odd across its walks of @last
 *	marks the trace torn (persist_capture.c)
 * @pr_src: @last as a source of the persistent capture, registered with
 *	the keeper
 * @pr_out: @pr_src is out of the registry for a grow:
 *	snaptrace_keeper_settle() puts it back
 * @grown: a larger buffer of the keeper's own, made by
 *	snaptrace_keeper_stage_grow() (a staged capture is made in it),
 *	with @grown_res for @grown_size bytes; snaptrace_keeper_publish()
 *	swaps it with @last, @res and @size (@grown_old: it then holds the
 *	old ones), snaptrace_keeper_settle() frees it
 * @grown_res: its reservations
 * @grown_size: its capacity
 * @grown_old: @grown is the buffer publish replaced
 * @staged: a capture is staged (snaptrace_keeper_stage_slow()), not yet
 *	published, of a trace of @staged_len bytes
 * @staged_len: see @staged
 * @file: debugfs traceN, or NULL
 * @last_file: debugfs traceN_last, or NULL
 */
struct snaptrace_keeper {
	const struct snaptrace_keeper_ops *ops;
	void *priv;
	struct device *dev;
	int index;
	u32 size;
	struct snaptrace_buffer *last;
	bool named;
	struct snaptrace_reservation *res;
	int last_cpu;
	bool has_last;
	u32 last_len;
	u32 last_seq;
	struct snaptrace_persist_source pr_src;
	bool pr_out;
	struct snaptrace_buffer *grown;
	struct snaptrace_reservation *grown_res;
	u32 grown_size;
	bool grown_old;
	bool staged;
	u32 staged_len;
	struct dentry *file;
	struct dentry *last_file;
};

struct snaptrace_keeper *
snaptrace_keeper_create(struct device *dev, int index, u32 size,
			const char *instance, const char *persist_name,
			const struct snaptrace_keeper_ops *ops, void *priv);
void snaptrace_keeper_free(struct snaptrace_keeper *k);
int snaptrace_keeper_resize(struct snaptrace_keeper *k, u32 size);
void snaptrace_keeper_files_add(struct snaptrace_keeper *k,
				struct dentry *dir);
void snaptrace_keeper_files_remove(struct snaptrace_keeper *k);
bool snaptrace_keeper_capture(struct snaptrace_keeper *k, const char *head,
			      const void *va, u32 len);
bool snaptrace_keeper_capture_slow(struct snaptrace_keeper *k,
				   const char *head,
				   snaptrace_keeper_read_t read, void *ctx,
				   u32 len);
int snaptrace_keeper_stage_grow(struct snaptrace_keeper *k, u32 size);
int snaptrace_keeper_stage_slow(struct snaptrace_keeper *k, const char *head,
				snaptrace_keeper_read_t read, void *ctx, u32 len);
bool snaptrace_keeper_publish(struct snaptrace_keeper *k);
void snaptrace_keeper_settle(struct snaptrace_keeper *k);
void snaptrace_keeper_forget(struct snaptrace_keeper *k);
ssize_t snaptrace_keeper_read_last(struct snaptrace_keeper *k, void *buf,
				   size_t size);

#endif /* _SNAPTRACE_TRACE_KEEPER_H */
