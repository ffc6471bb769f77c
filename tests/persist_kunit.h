/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the snaptrace_persist* KUnit suites (tests/persist_*_kunit.c) share,
 * defined once in persist_helpers.c: a region of ordinary vmalloc'd memory,
 * armed, with a buffer whose spare is allocated (struct pr_ctx); the
 * self-checking records they capture; the capture parsed as the next load
 * would, and checked against the snapshot record by record; a seq_file for
 * info's lines.
 */
#ifndef _SNAPTRACE_PERSIST_KUNIT_H
#define _SNAPTRACE_PERSIST_KUNIT_H

#include <linux/types.h>
#include <kunit/test.h>

#include "../src/persist.h"

struct seq_file;

#define PR_SIZE		(256 * 1024)
#define PR_PHYS		0x7f000000ULL
#define PR_BOOT		0x0123456789abcdefULL
#define PR_ARMED_NS	1000ULL
/* "Now" at the next load, unless a test says otherwise. */
#define PR_NOW		U64_MAX
/* Records written on each online CPU, and their lengths (cycled). */
#define PR_PER_CPU	40
#define PR_NR_LENS	6
extern const size_t st_pr_lens[PR_NR_LENS];

struct pr_ctx {
	struct snaptrace_persist p;
	struct snaptrace_buffer *buf;
	struct snaptrace_record *recs;	/* the snapshot, as an iterator reads it */
	unsigned int nr;
	u8 *copy;			/* the region before a refused parse */
	/* pr_cleaned(): the cleans seen, the last one's bytes and state */
	unsigned int cleans;
	size_t clean_len;
	u32 clean_state;
	u8 *at_clean;			/* the whole region at the last clean */
};

void st_pr_last_free(void *last);
void *st_pr_vzalloc(struct kunit *test, size_t size);
struct pr_ctx *st_pr_setup(struct kunit *test, size_t size);
void st_pr_write(struct kunit *test, struct pr_ctx *x);
void st_pr_expect_snapshot(struct kunit *test, struct pr_ctx *x);
struct snaptrace_persist_last *st_pr_parse(struct kunit *test,
					   struct pr_ctx *x);
const struct st_pr_ent *st_pr_find(const struct snaptrace_persist_last *last,
				   unsigned int cpu, u64 seq);
void st_pr_expect_same(struct kunit *test, struct pr_ctx *x,
		       const struct snaptrace_persist_last *last,
		       int skip_cpu, s64 skip_seq);
void st_pr_expect_cap(struct kunit *test, struct pr_ctx *x,
		      const struct snaptrace_persist_last *last, int cpu);
struct pr_ctx *st_pr_captured(struct kunit *test);
struct seq_file *st_pr_seq(struct kunit *test);
char *st_pr_seq_take(struct kunit *test, struct seq_file *m);
size_t st_pr_ent_off(struct kunit *test, struct pr_ctx *x, unsigned int cpu,
		     u64 seq);
void st_pr_newest(struct kunit *test, struct pr_ctx *x, u64 room, u64 *first);
void st_pr_expect_kept(struct kunit *test, struct pr_ctx *x,
		       const struct snaptrace_persist_last *last,
		       const u64 *first);

#endif /* _SNAPTRACE_PERSIST_KUNIT_H */
