/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the files of snaptrace.ko, and with its KUnit
 * tests (exported only when CONFIG_KUNIT is set, into the
 * EXPORTED_FOR_KUNIT_TESTING namespace).
 */
#ifndef _SNAPTRACE_INTERNAL_H
#define _SNAPTRACE_INTERNAL_H

#include <linux/types.h>

#include <snaptrace/snaptrace.h>

struct dentry;
struct file;
struct seq_buf;
struct seq_file;
struct snaptrace_buffer;
struct snaptrace_instance;
struct snaptrace_record;
struct snaptrace_trace_fs;
struct task_struct;

/* Most names the instances= module parameter takes. */
#define SNAPTRACE_INSTANCES_PARAM_MAX 8

/* debugfs.c */
struct dentry *snaptrace_debugfs_create(const char *name);
void snaptrace_debugfs_destroy(struct dentry *root);

/* format.c */
int snaptrace_format_record(const struct snaptrace_record *rec,
			    struct seq_buf *s);
void snaptrace_seq_record(struct seq_file *m, const struct snaptrace_record *rec);

/* error_log.c */
/**
 * struct snaptrace_why - why a command failed, caught as it was printed
 * @node: in the list of catches open
 * @task: the task running the command
 * @msg: the first message snaptrace_dev_err() printed in @task while the
 *	catch was open, without its newline; empty if none
 *
 * See snaptrace_why_start().
 */
struct snaptrace_why {
	struct list_head node;
	struct task_struct *task;
	char msg[SNAPTRACE_ERR_MSG_MAX];
};

void snaptrace_log_file_err(const struct file *filp, const char *cmd,
			    unsigned int err_pos, const char *msg);
void snaptrace_log_file_why(const struct file *filp, const char *cmd,
			    unsigned int err_pos, const struct snaptrace_why *why,
			    const char *what, int err);
void snaptrace_why_start(struct snaptrace_why *why);
void snaptrace_why_stop(struct snaptrace_why *why);
unsigned int snaptrace_err_pos(const char *cmd, const char *str);
void snaptrace_error_log_clear(void);
int snaptrace_error_log_create(struct dentry *parent);

/* instance.c */
bool snaptrace_instance_tryget(struct snaptrace_instance *inst);
void snaptrace_instance_put(struct snaptrace_instance *inst);
int snaptrace_instances_init(struct dentry *root, size_t size_per_cpu,
			     enum snaptrace_mode mode);
void snaptrace_instances_exit(void);
struct snaptrace_buffer *snaptrace_default_buffer(void);
struct snaptrace_buffer *snaptrace_get_by_name_cpu(const char *name,
						   size_t size, int cpu);
int snaptrace_resize_alone(struct snaptrace_buffer *buf, size_t size);

/* ring_write.c, ring.c */
void *snaptrace_reserve_type(struct snaptrace_buffer *buf, u16 type,
			     size_t len, struct snaptrace_reservation *res);
int snaptrace_write_type(struct snaptrace_buffer *buf, u16 type,
			 const void *data, size_t len);
void snaptrace_record_disable(struct snaptrace_buffer *buf);
void snaptrace_record_enable(struct snaptrace_buffer *buf);
void *snaptrace_reserve_on(struct snaptrace_buffer *buf, int cpu, u16 type,
			   size_t len, struct snaptrace_reservation *res);
struct snaptrace_buffer *snaptrace_buffer_alloc_cpu(size_t size,
						    enum snaptrace_mode mode,
						    int cpu);
int snaptrace_buffer_home_cpu(struct snaptrace_buffer *buf);
size_t snaptrace_size_total(struct snaptrace_buffer *buf);
ssize_t snaptrace_ring_bytes(struct snaptrace_buffer *buf,
			     enum snaptrace_which which, int cpu);

/* persist_load.c */
int snaptrace_persist_init(struct dentry *root);
void snaptrace_persist_start(void);
void snaptrace_persist_exit(void);

/* ring_snapshot.c */
/**
 * struct snaptrace_snap_hold - a snapshot taken and kept from being replaced
 * @state: the buffer's state word once the snapshot was taken: its spare
 *	half is the snapshot (a later snapshot changes it)
 * @held: the caller holds the buffer's lock, IRQs off, until
 *	snaptrace_snapshot_unhold(): no snapshot, clear, reset or change of
 *	halves runs on another CPU meanwhile, and one nested on this CPU (an
 *	NMI) finds the lock its own (a snapshot still runs: @state tells)
 * @flags: the IRQ state to restore then
 */
struct snaptrace_snap_hold {
	long state;
	bool held;
	unsigned long flags;
};

int snaptrace_snapshot_panic(struct snaptrace_buffer *buf, bool *past,
			     struct snaptrace_snap_hold *hold);
int snaptrace_snapshot_hold(struct snaptrace_buffer *buf,
			    struct snaptrace_snap_hold *hold);
void snaptrace_snapshot_unhold(struct snaptrace_buffer *buf,
			       struct snaptrace_snap_hold *hold);

/* ring_read.c */
struct st_half;

/**
 * struct snaptrace_walk_pin - the snapshot one walk found, for the next
 * @half: the snapshot half
 * @state: the buffer's state word (snapshots taken, the live half)
 * @head: the CPU's snapshot ring's reservation word
 * @set: filled in by a walk
 *
 * Zeroed (or with @state only: the snapshot the caller took), then passed
 * to snaptrace_snapshot_walk(), which fills it in; passed again, it makes
 * a walk of another snapshot fail with -ESTALE.
 */
struct snaptrace_walk_pin {
	const struct st_half *half;
	long state;
	unsigned long head;
	bool set;
};

int snaptrace_snapshot_walk(struct snaptrace_buffer *buf, int cpu,
			    struct snaptrace_record *rec,
			    int (*fn)(void *arg, const struct snaptrace_record *rec),
			    void *arg, bool *open, struct snaptrace_walk_pin *pin);

/* ring.c, ring.h: the test hook (KUnit builds only; see Documentation/ring-buffer.rst) */
/**
 * enum snaptrace_test_step - the points where the ring buffer calls the test hook
 * @ST_STEP_WRITE_LOOKUP: a writer looked up the live half, before it reads its
 *	ring's reservation word
 * @ST_STEP_WRITE_RESERVE: a writer read the reservation word and found room,
 *	before its cmpxchg
 * @ST_STEP_WRITE_RESERVED: the reservation took effect, before the tail push
 * @ST_STEP_WRITE_PUSHED: tail pushed (overwrite mode), before the header is
 *	written
 * @ST_STEP_WRITE_COMMIT: the payload is written, before the commit
 *	(snaptrace_write() and the module's own records only)
 * @ST_STEP_WRITE_FULL: a writer found no room, before it checks that its ring
 *	is still open at the same position (if not, it looks again: a snapshot
 *	there emptied the live half) and counts the drop
 * @ST_STEP_OPEN: a writer is opening a pending ring (the first record after a
 *	snapshot, clear or reset on this CPU), before its reset
 * @ST_STEP_SNAP_SETTLED: snapshot(): the live half's next rings are
 *	live-pending (st_settle()), before the spare's rings are sealed and
 *	emptied
 * @ST_STEP_SNAP_PENDED: snapshot(): the spare's rings are pending (emptied),
 *	before the halves' roles are published
 * @ST_STEP_SNAP_MARKED: snapshot(): the cutting marker written, before the
 *	publishing cmpxchg
 * @ST_STEP_SNAP_PUBLISHED: snapshot(): roles published, before the first seal
 * @ST_STEP_SNAP_SEALED: snapshot(): one CPU's ring sealed (@cpu), before its
 *	tail push
 * @ST_STEP_CONSUME: a consuming read copied a run of records (@cpu) and
 *	re-checked tail, before the cmpxchg of tail that removes them
 * @ST_STEP_OPEN_LAST: a writer opening a pending ring set its start, tail,
 *	counters' baselines and commit, before the cmpxchg on head that opens
 *	it (which fails if the ring's state changed meanwhile)
 * @ST_STEP_COUNT_DROPPED: a writer that found no room checked that the
 *	record's epoch is still the ring's (its start), before the cmpxchg that
 *	counts the drop (which an opening's marker makes fail)
 * @ST_STEP_CONSUMED: a consuming read removed a run of records (@cpu), before
 *	it counts them read (which it does only if their epoch is still the
 *	ring's: its start)
 * @ST_STEP_WRITE_ANCHOR: the owner of a frame (Documentation/ring-buffer.rst,
 *	"Compact records") reserved, and is about to install the frame's
 *	anchor; a writer nested here finds none
 * @ST_STEP_LOCK_WAIT: a snapshot, clear, reset or change of halves found the
 *	buffer's lock held by another CPU (@cpu), before it tries again (each
 *	turn of its wait)
 * @ST_STEP_PANIC_LOCK: snaptrace_snapshot_panic() read the buffer's lock
 *	word, before it acts on what it read (@cpu: the holder it read, or -1)
 * @ST_STEP_OPEN_BEGIN: a writer read its ring's reservation word and found
 *	it pending, before it reads what the new epoch's start is made of
 *	(tail, commit): the window of an interrupt that opens the ring first
 * @ST_STEP_SNAP_CLOSE: a snapshot, reset or clear checked the roles before
 *	closing @cpu's ring, before its cmpxchgs of tail and head (which fail
 *	if the ring changed meanwhile)
 * @ST_STEP_ITER_NEXT: snaptrace_iter_next() is called, before it takes the
 *	reader mutex and checks that the half it reads still plays its part
 *	(process context, @cpu -1): the window of a snapshot that makes the
 *	read stale
 * @ST_STEP_NR: number of steps
 *
 * Writer steps run on the writer's CPU with preemption disabled (@cpu is
 * that CPU); the hook may call snaptrace_snapshot(), snaptrace_clear_snapshot(),
 * snaptrace_reset() or write a nested record, but must not sleep.
 */
enum snaptrace_test_step {
	ST_STEP_WRITE_LOOKUP,
	ST_STEP_WRITE_RESERVE,
	ST_STEP_WRITE_RESERVED,
	ST_STEP_WRITE_PUSHED,
	ST_STEP_WRITE_COMMIT,
	ST_STEP_WRITE_FULL,
	ST_STEP_OPEN,
	ST_STEP_SNAP_PENDED,
	ST_STEP_SNAP_MARKED,
	ST_STEP_SNAP_PUBLISHED,
	ST_STEP_SNAP_SEALED,
	ST_STEP_CONSUME,
	ST_STEP_OPEN_LAST,
	ST_STEP_COUNT_DROPPED,
	ST_STEP_SNAP_SETTLED,
	ST_STEP_CONSUMED,
	ST_STEP_WRITE_ANCHOR,
	ST_STEP_LOCK_WAIT,
	ST_STEP_PANIC_LOCK,
	ST_STEP_OPEN_BEGIN,
	ST_STEP_SNAP_CLOSE,
	ST_STEP_ITER_NEXT,
	ST_STEP_NR
};

/*
 * Called, when set, at each step above for every buffer; a test compares
 * @buf with its own. Set and cleared by the test with WRITE_ONCE(), and
 * cleared (followed by synchronize_rcu()) before the test returns.
 */
typedef void (*snaptrace_test_hook_fn)(struct snaptrace_buffer *buf,
				       enum snaptrace_test_step step, int cpu);
/*
 * The clock records are stamped with, when set: local_clock() otherwise.
 * A test sets it with WRITE_ONCE() to make time exact (a counting clock,
 * a jump of its choice), and clears it (then synchronize_rcu()) before it
 * returns. Readers never call it.
 */
typedef u64 (*snaptrace_test_clock_fn)(void);
#if IS_ENABLED(CONFIG_KUNIT)
extern snaptrace_test_hook_fn snaptrace_test_hook;
extern snaptrace_test_clock_fn snaptrace_test_clock;
bool snaptrace_test_lose_wakeup(struct snaptrace_buffer *buf);
#endif

/* trace_fs.c */
struct snaptrace_trace_fs *snaptrace_trace_fs_create(struct dentry *parent,
						     struct snaptrace_buffer *buf,
						     struct snaptrace_instance *inst);
void snaptrace_trace_fs_destroy(struct snaptrace_trace_fs *fs);

#endif /* _SNAPTRACE_INTERNAL_H */
