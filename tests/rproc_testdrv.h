/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test driver of real upstream remotes (tests/rproc_testdrv.c, module
 * snaptrace_rproc_test): struct rprocs registered with upstream's remote
 * processor framework, loaded by its ELF loader into vmalloc'ed memory,
 * whose "firmware" is an hrtimer writing trace lines in the conventions of
 * real firmware. It depends on upstream's framework only, not on
 * snaptrace.ko: the KUnit suite snaptrace_rproc_follow drives it through
 * the functions below, and the rproc_follow scenario through its module
 * parameter, with snaptrace loaded and unloaded around running remotes.
 */
#ifndef _SNAPTRACE_RPROC_TESTDRV_H
#define _SNAPTRACE_RPROC_TESTDRV_H

#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/remoteproc.h>
#include <linux/types.h>

struct task_struct;

struct firmware;
struct platform_device;

/* Time between two lines of the firmware. */
#define RF_PERIOD_NS		(200 * NSEC_PER_USEC)
#define RF_MAX_TRACES		2
#define RF_MAX_RUNS		4
#define RF_MAX_REGIONS		16
/* The built images: one segment, table first, trace buffers in its .bss. */
#define RF_SEG_DA		0x10000000U
#define RF_SEG_MEMSZ		0x4000U
#define RF_TRACE_DA(i)		(RF_SEG_DA + 0x1000U * ((i) + 1))
#define RF_LINE_MAX		96
/* How the firmware writes a trace (the conventions of issue 18). */
enum rf_fmt {
	RF_PLAIN,	/* NUL-terminated text from offset 0, never wraps */
	RF_ZEPHYR,	/* circular over len - 1, no NUL written */
	RF_LIBMETAL,	/* "cnt L<level> msg" lines, circular over len, no NUL */
	RF_STM32CUBE,	/* a NUL after each character, wrapping before the last byte */
};

/* What the firmware does in one run (from one ops->start). */
struct rf_run {
	unsigned int lines;	/* lines per trace, one per tick */
	bool crash;		/* report a crash after the last line */
};

/* Platform data of a test remote. */
struct rf_pdata {
	const char *name;	/* rproc->name */
	const char *fw;		/* firmware name under /lib/firmware */
	bool no_recovery;
};

/* A range of the remote's memory, backed by vmalloc. */
struct rf_region {
	u64 da;
	size_t len;
	u8 *va;
};

/* Where the firmware writes next in one trace. */
struct rf_wstate {
	u32 pos;
	u32 cnt;		/* plain: full */
};

/* A test remote: the rproc's priv. */
struct rf_remote {
	struct rproc *rproc;
	struct platform_device *pdev;
	const char *tag;		/* what its lines start with */
	const char *st_name;		/* its directory under snaptrace/remoteproc */
	struct rf_region region[RF_MAX_REGIONS];
	unsigned int nr_regions;
	int (*elf_parse_fw)(struct rproc *rproc, const struct firmware *fw);
	/* The "firmware" */
	struct hrtimer timer;
	u8 *table;			/* its loaded table (as the firmware knows it) */
	size_t table_sz;
	enum rf_fmt fmt[RF_MAX_TRACES];
	u32 fill_da[RF_MAX_TRACES];	/* if not 0: written into the table at run time */
	struct rf_run run[RF_MAX_RUNS];
	struct rf_wstate w[RF_MAX_TRACES];
	unsigned int line;		/* lines written in this run */
	bool not_hardirq;		/* a tick ran outside hard irq (not on RT) */
	bool iomem;			/* da_to_va says it is I/O memory */
	/* Counted by ops->start / ops->stop, under rproc->lock */
	unsigned int starts;
	unsigned int stops;
	/*
	 * Starts made by @booter's own call (rproc_boot() from the test),
	 * not by a recovery's worker, which may start the remote again
	 * before the test looks.
	 */
	struct task_struct *booter;
	unsigned int booter_starts;
	struct completion started;
	struct completion stopped;
	struct completion done;		/* a run wrote its last line */
	/*
	 * Set to 1 by a test: the next da_to_va() completes @da_held, then
	 * waits for @da_release (at most %RF_HOLD_GUARD_MS, a hang guard:
	 * @da_hold_expired then), with whatever lock its caller holds.
	 */
	atomic_t hold_da;
	struct completion da_held;
	struct completion da_release;
	bool da_hold_expired;
};

/* The longest a held da_to_va() waits for its release. */
#define RF_HOLD_GUARD_MS	120000

/* A trace of a built image: its da (0: filled in at run time) and length. */
struct rf_trace_cfg {
	u32 da;
	u32 len;
};

struct rf_remote *st_rf_register(const char *name, const char *fw, bool no_recovery);
void st_rf_unregister(struct rf_remote *r);
struct fw_rsc_trace *st_rf_fw_trace(struct rf_remote *r, unsigned int i);
int st_rf_line(char *out, size_t size, const char *tag, enum rf_fmt fmt,
	       unsigned int run, unsigned int t, unsigned int line);
int st_rf_install(const char *name, const void *img, size_t len);
int st_rf_build(const char *name, const struct rf_trace_cfg *tc, unsigned int ntraces);

#endif /* _SNAPTRACE_RPROC_TESTDRV_H */
