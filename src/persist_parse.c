// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace: a previous boot's capture, validated and taken
 * (Documentation/persist.rst, "At the next load"): the region's headers
 * checked before anything in it is trusted, its entries copied out into
 * ordinary memory and kept if whole and intact, counted as corrupt if
 * not, a capture that did not finish told from garbage, the remotes'
 * texts rebuilt; and which refusals keep the region as evidence. Reads
 * nothing outside the region, writes nothing to it. No upstream twin
 * (the nearest: persistent_ram_post_init() in fs/pstore/ram_core.c, which
 * checks a console buffer's signature and bounds before it keeps it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "persist.h"
#include "rproc.h"

/* Whether the entry at @off of @data (@bytes long) is whole and intact. */
static bool st_pr_ent_ok(const u8 *data, u64 bytes, u64 off,
			 unsigned int nr_cpus, u64 boot_id, u64 *size)
{
	const struct st_pr_ent *e = (const void *)(data + off);
	u64 sz;

	if (bytes - off < sizeof(*e))
		return false;
	if (e->marker != ST_PR_ENT_MAGIC || !e->len ||
	    e->len > SNAPTRACE_MAX_PAYLOAD ||
	    e->type < SNAPTRACE_REC_DATA || e->type > SNAPTRACE_REC_TEXT)
		return false;
	/* A source's entry: its row, and a head or a piece of its text. */
	if (e->cpu & ST_PR_ENT_SRC) {
		if ((e->cpu & ~ST_PR_ENT_SRC) >= ST_PR_SRCS ||
		    (e->type != SNAPTRACE_REC_MARKER &&
		     e->type != SNAPTRACE_REC_TEXT))
			return false;
	} else if (e->cpu >= nr_cpus) {
		return false;
	}
	sz = snaptrace_persist_ent_size(e->len);
	if (bytes - off < sz || snaptrace_persist_ent_crc(e, boot_id) != e->crc)
		return false;
	*size = sz;
	return true;
}

/* A source's entries: by row, then in the order of its snapshot. */
static int st_pr_src_ent_cmp(const void *a, const void *b)
{
	const struct st_pr_ent *x = *(const struct st_pr_ent * const *)a;
	const struct st_pr_ent *y = *(const struct st_pr_ent * const *)b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/* By time stamp, then as st_pr_src_ent_cmp(): CPU (or row), then sequence. */
static int st_pr_ent_cmp(const void *a, const void *b)
{
	const struct st_pr_ent *x = *(const struct st_pr_ent * const *)a;
	const struct st_pr_ent *y = *(const struct st_pr_ent * const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return st_pr_src_ent_cmp(a, b);
}

/*
 * A source's name as snaptrace writes it, "<dir>/<file>": NUL-ended, two
 * non-empty components of letters, digits, '_', '-' and '.', neither
 * starting with '.', so that it names a debugfs file at the next load and
 * nothing else.
 */
static bool st_pr_src_name_ok(const char *name)
{
	size_t len = strnlen(name, ST_PR_SRC_NAME), i, slash = 0, at = 0;

	if (len == ST_PR_SRC_NAME || !len)
		return false;
	for (i = 0; i < len; i++) {
		if (name[i] == '/') {
			if (slash++ || i == at)
				return false;
			at = i + 1;
			continue;
		}
		if (i == at && name[i] == '.')
			return false;
		if (!isalnum(name[i]) && name[i] != '_' && name[i] != '-' &&
		    name[i] != '.')
			return false;
	}
	return slash == 1 && at < len;
}

/*
 * A row that names a source, checked before its text is rebuilt: the
 * format and length its traceN_last decoded with, under the row's own
 * CRC, must be ones a keeper writes. A row refused is not shown (no
 * text, no file), and the rest of the capture is: 0 or why, said in the
 * log (and by info, snaptrace_persist_remotes_show()).
 */
static int st_pr_src_check(const struct st_pr_src *r)
{
	if (r->fmt >= SNAPTRACE_TFMT_NR) {
		pr_warn("the previous boot's %s: refused: trace format %u unknown (this module knows 0 to %u): not shown\n",
			r->name, r->fmt, SNAPTRACE_TFMT_NR - 1);
		return -EPROTONOSUPPORT;
	}
	if (r->len > SNAPTRACE_RPROC_TRACE_MAX) {
		pr_warn("the previous boot's %s: refused: its length, %u bytes, is beyond the largest trace (%u): not shown\n",
			r->name, r->len, SNAPTRACE_RPROC_TRACE_MAX);
		return -EFBIG;
	}
	return 0;
}

/*
 * A source's trace, from its kept entries @e (@n, sorted by seq), as the
 * keeper's snaptrace_keeper_read_last() gives its traceN_last to the
 * decoder: the text pieces after the last head, then NULs up to the row's
 * len (the NULs that ended the trace were not copied). The keeper ends a
 * text that fills the trace with one NUL piece more: a text longer than
 * that, or one byte longer but not ending with that piece, runs past the
 * trace, and the row is refused (-EMSGSIZE).
 */
static int st_pr_src_text(struct snaptrace_persist_last *last, unsigned int s,
			  const struct st_pr_ent **e, u64 n)
{
	const struct st_pr_ent *piece = NULL;
	u32 len = last->srcs[s].len;
	size_t text = 0, k;
	u64 i;

	for (i = 0; i < n; i++) {
		if (e[i]->type == SNAPTRACE_REC_MARKER) {
			text = 0;	/* a capture's head: only the last counts */
			continue;
		}
		text += e[i]->len;
		piece = e[i];
	}
	/* One byte past: only the keeper's one-byte NUL piece. */
	if (text > (size_t)len + 1 ||
	    (text == (size_t)len + 1 && (piece->len != 1 || piece->data[0]))) {
		pr_warn("the previous boot's %s: refused: its text, %zu bytes, runs past its length, %u: not shown\n",
			last->srcs[s].name, text, len);
		return -EMSGSIZE;
	}
	last->remote_text[s] = kvzalloc((size_t)len + 1, GFP_KERNEL);
	if (!last->remote_text[s])
		return -ENOMEM;
	text = 0;
	for (i = 0; i < n; i++) {
		if (e[i]->type == SNAPTRACE_REC_MARKER) {
			memset(last->remote_text[s], 0, text);
			text = 0;
			continue;
		}
		k = min_t(size_t, e[i]->len, len - min_t(size_t, len, text));
		memcpy(last->remote_text[s] + text, e[i]->data, k);
		text += k;
	}
	last->remote_len[s] = len;
	return 0;
}

/*
 * Why a source's kept entries @e (@n, sorted by seq) cannot be placed as
 * its trace was: a piece dropped (a gap in their seq, which the capture
 * numbers from 0 without gaps per source; or, finished, fewer kept than
 * written), or its row replaced or torn (text and length may be of two
 * captures). NULL: they can.
 */
static const char *st_pr_src_raw(const struct snaptrace_persist_last *last,
				 unsigned int s, const struct st_pr_ent **e,
				 u64 n)
{
	const struct st_pr_src *r = &last->srcs[s];
	u64 i;

	for (i = 0; i < n; i++)
		if (e[i]->seq != i)
			return "a piece dropped as corrupt";
	if (last->unfinished)
		return NULL;	/* its flags and count unknown */
	if (r->entries > n)
		return "a piece dropped as corrupt";
	if (r->flags & ST_PR_SRC_F_STALE)
		return "replaced by a new crash during the capture";
	if (r->flags & ST_PR_SRC_F_TORN)
		return "being captured at the panic";
	return NULL;
}

/*
 * A source's text, raw, from its kept entries @e (@n): the text pieces
 * after the last head, one after another, the NULs left out; not decoded
 * (why: st_pr_src_raw()), its row's length not used.
 */
static int st_pr_src_text_raw(struct snaptrace_persist_last *last,
			      unsigned int s, const struct st_pr_ent **e, u64 n)
{
	size_t text = 0, k;
	u64 i;

	for (i = 0; i < n; i++) {
		if (e[i]->type == SNAPTRACE_REC_MARKER)
			text = 0;	/* a capture's head: only the last counts */
		else
			text += e[i]->len;
	}
	last->remote_text[s] = kvzalloc(text + 1, GFP_KERNEL);
	if (!last->remote_text[s])
		return -ENOMEM;
	text = 0;
	for (i = 0; i < n; i++) {
		if (e[i]->type == SNAPTRACE_REC_MARKER) {
			text = 0;
			continue;
		}
		for (k = 0; k < e[i]->len; k++)
			if (e[i]->data[k])
				last->remote_text[s][text++] = e[i]->data[k];
	}
	last->remote_len[s] = text;
	return 0;
}

/*
 * The sources' traces, from their kept entries @rents (@nr, sorted by row
 * and seq), each rebuilt by st_pr_src_text() unless its row was refused,
 * or raw by st_pr_src_text_raw() if its pieces cannot be placed.
 */
static int st_pr_src_texts(struct snaptrace_persist_last *last,
			   const struct st_pr_ent **rents, u64 nr)
{
	u64 first, end;
	unsigned int s;
	int ret;

	for (first = 0; first < nr; first = end) {
		s = rents[first]->cpu & ~ST_PR_ENT_SRC;
		for (end = first; end < nr && rents[end]->cpu == rents[first]->cpu; end++)
			;
		last->remote_kept[s] = end - first;
		if (last->remote_err[s])
			continue;
		last->remote_raw[s] = st_pr_src_raw(last, s, rents + first,
						    end - first);
		if (last->remote_raw[s])
			ret = st_pr_src_text_raw(last, s, rents + first,
						 end - first);
		else
			ret = st_pr_src_text(last, s, rents + first, end - first);
		if (ret == -ENOMEM)
			return ret;
		last->remote_err[s] = ret;
	}
	return 0;
}

/*
 * A capture's preamble, as sealed before its first record: the capture's
 * header under its own CRC (the state word left out), its CPU one of the
 * table's, its counts still 0. A finished capture's CRC covers the tables
 * too, and is not this one.
 */
static bool st_pr_preamble_sealed(const struct st_pr_hdr *h,
				  const struct st_pr_cap *cap)
{
	return cap->cpu >= 0 && (u32)cap->cpu < h->nr_cpus &&
	       snaptrace_persist_cap_crc(cap, NULL, 0) == cap->cap_crc &&
	       cap->boot_id == h->boot_id &&
	       !cap->flags && !cap->data_bytes && !cap->entries && !cap->torn;
}

/* An unfinished capture's preamble: sealed, and the state names its CPU. */
static bool st_pr_preamble_ok(const struct st_pr_hdr *h,
			      const struct st_pr_cap *cap)
{
	return cap->cpu == ST_PR_CAPTURING_CPU(cap->state) &&
	       st_pr_preamble_sealed(h, cap);
}

/*
 * Check the headers of the region at @base; 0 or why it is refused. A
 * capture whose wall-clock time is not between its arming and @now_real_ns
 * is not refused: *@doubtful says so.
 */
static int st_pr_check(const void *base, size_t size, u64 phys, u64 boot_id,
		       u64 now_real_ns, struct st_pr_hdr *h, struct st_pr_cap *cap,
		       bool *unfinished, bool *doubtful)
{
	u64 table_off, data_off, end;
	const struct st_pr_cpu *table;

	if (size < sizeof(*h) + sizeof(*cap))
		return -ENOSPC;
	memcpy(h, base, sizeof(*h));
	if (h->magic != ST_PR_MAGIC)
		return -ENOMSG;
	/*
	 * Armed and never captured: nothing to keep, whatever the size or
	 * the format version it was armed with. Every version keeps the
	 * header and the capture's state word right after it.
	 */
	memcpy(cap, base + sizeof(*h), sizeof(*cap));
	if (snaptrace_persist_hdr_crc(h) == h->hdr_crc && cap->state == ST_PR_ARMED)
		return -ENODATA;
	if (h->version != ST_PR_VERSION)
		return -EPROTONOSUPPORT;
	if (snaptrace_persist_hdr_crc(h) != h->hdr_crc)
		return -EBADMSG;
	if (!snaptrace_persist_geometry_ok(h, size))
		return -ERANGE;
	table_off = h->table_off;
	data_off = h->data_off;
	if (h->phys != phys)
		return -EXDEV;
	memcpy(cap, base + h->cap_off, sizeof(*cap));
	*unfinished = (cap->state & ST_PR_CAPTURING_MASK) == ST_PR_CAPTURING;
	if (*unfinished && !st_pr_preamble_ok(h, cap))
		return -EINPROGRESS;
	if (!*unfinished) {
		table = base + table_off;
		if (snaptrace_persist_cap_crc(cap, table, h->nr_cpus) != cap->cap_crc ||
		    cap->boot_id != h->boot_id) {
			if (cap->state == ST_PR_CAPTURED)
				return -EBADMSG;
			/*
			 * An unknown state word over a preamble sealed by its
			 * own CRC: a capture that began and never finished
			 * (its CRC is the preamble's, not the finished one's),
			 * whose state word alone was damaged. Kept, as
			 * damaged; not armed over. Else nothing tells it
			 * from garbage, or from an armed region whose state
			 * word was damaged (its capture header is all 0).
			 */
			return st_pr_preamble_sealed(h, cap) ? -EBADMSG :
							       -ENODATA;
		}
		/*
		 * An unknown state word on a capture whose CRC (which leaves
		 * the state out, and covers the whole table only once the
		 * capture finished) is right: a finished capture whose state
		 * word alone was damaged. Kept, as damaged; not armed over.
		 */
		if (cap->state != ST_PR_CAPTURED)
			return -EBADMSG;
		if (check_add_overflow(data_off, cap->data_bytes, &end) ||
		    end > size)
			return -ERANGE;
	}
	if (h->boot_id == boot_id)
		return -EALREADY;
	/*
	 * A capture from two boots ago is not told by its time (the region
	 * is armed again at each load, and its boot id is checked above): a
	 * time out of order says that a wall clock went back, in the
	 * previous boot or across the reboot (no battery-backed clock, set
	 * by NTP later), which happens at every boot of some machines. The
	 * capture is shown, its time said to be doubtful.
	 */
	*doubtful = cap->real_ns < h->armed_real_ns ||
		    cap->real_ns > now_real_ns;
	return 0;
}

/* kvmemdup(), which Linux 6.1 does not have. */
static void *st_pr_dup(const void *src, size_t len)
{
	void *p = kvmalloc(len, GFP_KERNEL);

	if (p)
		memcpy(p, src, len);
	return p;
}

/**
 * snaptrace_persist_parse() - validate a region and take its capture
 * @base: the region, as found at load, before it is armed again
 * @size: its bytes
 * @phys: its physical address now
 * @boot_id: this load's boot id
 * @now_real_ns: the wall-clock time now
 *
 * Refuses, changing nothing and reading nothing outside @base..@size, a
 * region that is not ours, of another version, whose geometry does not
 * fit @size, whose header or capture CRC is wrong, that was armed at
 * another physical address, that holds no finished capture, or that this
 * load armed itself. A capture that did not finish (state capturing) is
 * taken if its preamble (reason, times, message, under a CRC of its own)
 * is intact, with the entries found intact in the whole data area (their
 * CRCs start with the boot id: an older capture's are not taken), and
 * flagged unfinished; refused otherwise. Otherwise copies the capture's
 * entries out and keeps those whose marker, CRC and fields are right,
 * counting the others as corrupt: the capture's per-CPU counts, under its
 * CRC, say how many were written. A capture whose wall-clock time is not
 * between its arming and @now_real_ns (a clock that went back) is taken
 * all the same, flagged time_doubtful. Each remote's last trace is
 * rebuilt as its traceN_last decoded it (its text, then NULs up to the
 * trace's length, with the format its row names); a row whose format is
 * unknown (-EPROTONOSUPPORT), whose length is beyond the largest trace
 * (-EFBIG) or shorter than its text (-EMSGSIZE) is refused, said in the
 * log and in its remote_err, and not shown; the rest of the capture is.
 *
 * Context: process context, may sleep (allocates).
 * Return: the capture, for snaptrace_persist_last_free(); ERR_PTR() of
 * -ENOSPC (region smaller than the headers), -ENOMSG (not ours),
 * -EPROTONOSUPPORT (version), -EBADMSG (header or capture CRC), -ERANGE
 * (geometry), -EXDEV (another address), -ENODATA (no capture, or an
 * unknown state word on a capture whose CRCs are wrong; with the
 * capture's CRC right, a finished capture whose state word alone is
 * damaged, or with its preamble's CRC right, an unfinished one: -EBADMSG),
 * -EINPROGRESS (an unfinished capture whose preamble is not intact),
 * -EALREADY (this load's own), -ENOMEM.
 */
struct snaptrace_persist_last *
snaptrace_persist_parse(const void *base, size_t size, u64 phys, u64 boot_id,
			u64 now_real_ns)
{
	const struct st_pr_ent **rents = NULL;
	struct snaptrace_persist_last *last;
	u64 off, sz, written = 0, n = 0, nr = 0, bytes;
	const struct st_pr_ent *e;
	unsigned int c, s;
	int ret;

	last = kzalloc(sizeof(*last), GFP_KERNEL);
	if (!last)
		return ERR_PTR(-ENOMEM);
	ret = st_pr_check(base, size, phys, boot_id, now_real_ns, &last->hdr,
			  &last->cap, &last->unfinished, &last->time_doubtful);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	last->nr_cpus = last->hdr.nr_cpus;
	if (last->unfinished)
		last->per_cpu = kvcalloc(last->nr_cpus, sizeof(*last->per_cpu),
					 GFP_KERNEL);
	else
		last->per_cpu = st_pr_dup(base + last->hdr.table_off,
					  last->nr_cpus * sizeof(*last->per_cpu));
	if (!last->per_cpu)
		goto fail;
	/*
	 * The sources' table: a row names a source if its name is right
	 * and sealed by its own CRC (written before the source's entries);
	 * an unfinished capture's counts are those of the entries found.
	 */
	memcpy(last->srcs, base + last->hdr.table_off +
	       (u64)last->nr_cpus * sizeof(struct st_pr_cpu), sizeof(last->srcs));
	for (s = 0; s < ST_PR_SRCS; s++) {
		struct st_pr_src *r = &last->srcs[s];

		if (last->unfinished)
			r->entries = 0;
		else
			written += r->entries;
		last->remotes[s] = r->name[0] && st_pr_src_name_ok(r->name) &&
			snaptrace_persist_src_crc(r, s, last->hdr.boot_id) == r->name_crc;
		if (last->remotes[s])
			last->remote_err[s] = st_pr_src_check(r);
	}
	/* Unfinished: how far it wrote is not known; the whole data area. */
	bytes = last->unfinished ? size - last->hdr.data_off :
				   last->cap.data_bytes;
	if (bytes) {
		last->data = st_pr_dup(base + last->hdr.data_off, bytes);
		if (!last->data)
			goto fail;
	}
	/* At most one entry per smallest entry's bytes. */
	last->ents = kvcalloc(div_u64(bytes, snaptrace_persist_ent_size(1)) + 1,
			      sizeof(*last->ents), GFP_KERNEL);
	rents = kvcalloc(div_u64(bytes, snaptrace_persist_ent_size(1)) + 1,
			 sizeof(*rents), GFP_KERNEL);
	if (!last->ents || !rents)
		goto fail;
	off = 0;
	while (off < bytes) {
		if (st_pr_ent_ok(last->data, bytes, off, last->nr_cpus,
				 last->hdr.boot_id, &sz)) {
			e = (const void *)(last->data + off);
			off += sz;
			if (!(e->cpu & ST_PR_ENT_SRC)) {
				last->ents[n++] = e;
				if (last->unfinished)
					last->per_cpu[e->cpu].entries++;
				continue;
			}
			/* A source's: kept if its row names it. */
			s = e->cpu & ~ST_PR_ENT_SRC;
			if (!last->remotes[s])
				continue;
			rents[nr++] = e;
			if (last->unfinished)
				last->srcs[s].entries++;
		} else {
			/* Resynchronise on the next intact entry. */
			off += ST_PR_ALIGN;
		}
		cond_resched();
	}
	for (c = 0; c < last->nr_cpus; c++)
		written += last->per_cpu[c].entries;
	last->kept = n;
	last->torn = last->cap.torn;
	last->corrupt = written > n + nr ? written - n - nr : 0;
	sort(last->ents, n, sizeof(*last->ents), st_pr_ent_cmp, NULL);
	sort(rents, nr, sizeof(*rents), st_pr_src_ent_cmp, NULL);
	if (st_pr_src_texts(last, rents, nr))
		goto fail;
	kvfree(rents);
	return last;
fail:
	kvfree(rents);
	snaptrace_persist_last_free(last);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_parse);

/**
 * snaptrace_persist_keeps() - whether a refusal leaves the region as found
 * @err: an error of snaptrace_persist_parse()
 *
 * A region that holds what may be a capture this load cannot show is
 * evidence, and is not armed over until the user releases it: another
 * version's capture (-EPROTONOSUPPORT: that version reads it), one armed
 * with another size or layout (-ERANGE: load with that size), a damaged
 * one (-EBADMSG), an unfinished one whose preamble is damaged
 * (-EINPROGRESS). A capture whose time is doubtful is not refused (see
 * snaptrace_persist_parse()). A region with nothing to lose is armed over:
 * not ours (-ENOMSG), armed and never captured (-ENODATA), armed for
 * another address (-EXDEV), this load's own (-EALREADY), too small
 * (-ENOSPC).
 *
 * Context: any.
 * Return: true if the region is to be kept as it is.
 */
bool snaptrace_persist_keeps(int err)
{
	switch (err) {
	case -EPROTONOSUPPORT:
	case -ERANGE:
	case -EBADMSG:
	case -EINPROGRESS:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_keeps);

/**
 * snaptrace_persist_take() - take a region's previous capture, not arming it
 * @p: the region, mapped, with this load's boot id
 * @now_real_ns: the wall-clock time now
 * @discard: arm even over a capture that snaptrace_persist_keeps() keeps
 * @last: set to the previous capture, or NULL if there is none
 * @err_out: if not NULL, set to the refusal's error (0 if none), for the
 *	log, whether the region is to be armed over it or kept
 *
 * Sets @p->found_state to the capture's state word as found: the log of a
 * refusal armed over reads it there, not in the region, which says armed
 * once it is.
 *
 * snaptrace_persist_parse() of the region, whose capture is copied out
 * into *@last; then the check that the region can be armed for
 * nr_cpu_ids CPUs. Writes nothing: the caller arms the region with
 * snaptrace_persist_arm() once nothing that follows can fail, so that a
 * load that fails after this leaves the capture in the region, for the
 * next load. Until then a capture gets -EBUSY: the region's boot id
 * is not this load's. Not to be armed if the region was refused for a
 * reason that keeps it (snaptrace_persist_keeps()) and not @discard: it is
 * left as found. A capture whose time is doubtful (its time_doubtful set)
 * is taken, and the region to be armed, as any other.
 *
 * Context: process context, may sleep (allocates).
 * Return: 0 (to be armed: snaptrace_persist_arm() will not fail; *@last
 * the capture, or NULL); the refusal's error if the region is kept, not to
 * be armed; -ENOMEM; -ENOSPC if the region is too small for the headers.
 */
int snaptrace_persist_take(struct snaptrace_persist *p, u64 now_real_ns,
			   bool discard, struct snaptrace_persist_last **last,
			   int *err_out)
{
	struct snaptrace_persist_last *l;
	u64 table_off, data_off;
	int err = 0;

	*last = NULL;
	p->found_state = 0;
	if (p->size >= sizeof(struct st_pr_hdr) + sizeof(p->found_state))
		p->found_state = READ_ONCE(*(u32 *)(p->base +
						   sizeof(struct st_pr_hdr)));
	l = snaptrace_persist_parse(p->base, p->size, p->phys, p->boot_id,
				    now_real_ns);
	if (IS_ERR(l)) {
		err = PTR_ERR(l);
		if (err == -ENOMEM)
			return err;
		l = NULL;
	}
	if (err_out)
		*err_out = err;
	if (snaptrace_persist_keeps(err) && !discard)
		return err;
	/* What snaptrace_persist_arm() checks: it then cannot fail. */
	if (p->size < sizeof(struct st_pr_hdr) ||
	    snaptrace_persist_geometry(p->size, nr_cpu_ids, &table_off, &data_off)) {
		snaptrace_persist_last_free(l);
		return -ENOSPC;
	}
	*last = l;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_take);

/**
 * snaptrace_persist_last_free() - free a capture from snaptrace_persist_parse()
 * @last: the capture; NULL is ignored
 *
 * Context: process context.
 */
void snaptrace_persist_last_free(struct snaptrace_persist_last *last)
{
	unsigned int s;

	if (!last)
		return;
	for (s = 0; s < ST_PR_SRCS; s++)
		kvfree(last->remote_text[s]);
	kvfree(last->ents);
	kvfree(last->data);
	kvfree(last->per_cpu);
	kfree(last);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_last_free);
