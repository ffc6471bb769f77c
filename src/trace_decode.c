// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding a remote's trace buffer. Upstream's remoteproc_debugfs.c prints a
 * trace up to its first NUL, which is right for text written once from
 * offset 0 and wrong for the circular buffers real firmware keeps: after a
 * wrap it shows the newest text first, then the oldest, with the line cut
 * by the writer in the middle (or nothing at all, when the writer leaves a
 * NUL behind it). This file finds where the text lies, oldest line first,
 * and how many lines wrapping lost, for the conventions below. It works on
 * a private copy, never on memory a remote can still write; it neither
 * sleeps nor allocates, and every index it forms is checked against the
 * buffer's size: the bytes are the remote's, garbage included.
 *
 * The conventions, as their writers do it
 * ---------------------------------------
 * ZEPHYR: Zephyr's RAM console (drivers/console/ram_console.c,
 *	ram_console_out()): "ram_console[pos] = c; pos = (pos + 1) % SIZE"
 *	into a buffer of SIZE + 1 bytes (before 2024), or "% (SIZE - 1)" into
 *	one of SIZE bytes (since): either way the last byte stays NUL.
 *	Zephyr's OpenAMP resource table (lib/open-amp/resource_table.c)
 *	gives the trace entry len SIZE; ST's and the openamp samples'
 *	tables give SIZE + 1. The stm32mp157c-dk2 image among the project's
 *	fixtures (Zephyr v3.6.0, "Zephyr_log" at da 0x10000371 in .bss) says
 *	len 0x401: 1 KiB and its NUL. The buffer is in .bss: zero until
 *	written, then no NUL anywhere but that last byte (when len covers it)
 *	once the writer has gone round. The write position is not in the
 *	buffer. Log lines (subsys/logging/log_output.c, timestamp_print())
 *	may start with a timestamp "[hh:mm:ss.mmm,uuu]", "[%08lu]" (ticks) or
 *	"[%5lu.%06d]".
 *	With CONFIG_RAM_CONSOLE_HEADER (include/zephyr/drivers/console/
 *	ram_console.h), the buffer starts with a 64-byte header: "RAM_CONSOLE"
 *	and its NUL, buf_addr, buf_size (SIZE - 65), and pos, the number of
 *	characters ever written (a u32), each at buf_addr[pos % buf_size]:
 *	there the write position is known. When pos wraps to 0 the writer
 *	sets it to (0xFFFFFFFF % buf_size) + 1, at most buf_size again; NXP's
 *	first version of the header kept pos % buf_size. The buffer is zeroed
 *	before the first character.
 * LIBMETAL: the libmetal log handler of Xilinx's OpenAMP R5 applications
 *	(embeddedsw, lib/sw_apps/openamp_echo_test/src/system/generic/machine/
 *	zynqmp_r5/helper.c and its siblings: rsc_trace_logger() and
 *	rsc_trace_putchar()): each record is sprintf("%u L%u ", c_cnt++,
 *	level) then the message, at most 127 bytes in all, copied byte by
 *	byte, wrapping at the trace's len; no NUL is ever written. The
 *	FreeRTOS variant (system/freertos/machine/zynqmp_r5/helper.c) prefixes
 *	the tick count: "%u %u L%u ". Messages usually end in "\r\n", but
 *	need not.
 * STM32CUBE: STM32Cube's OpenAMP log (openamp_log.c, log_buff()):
 *	"if (offset + 1 >= SYSTEM_TRACE_BUF_SZ) offset = 0; buf[offset] = ch;
 *	buf[offset++ + 1] = '\0'": a NUL after each character marks the write
 *	position, and once the writer has reached the end the last byte
 *	stays NUL. The trace entry's len is the buffer's size (rsc_table.c).
 * PLAIN: text from offset 0 up to the first NUL, upstream's reading.
 *
 * The region and its layout
 * -------------------------
 * The text region is [0, end): the whole buffer, less its last byte when
 * that is NUL (Zephyr's extra byte, STM32Cube's last NUL). Let z be the
 * first NUL in the region.
 *	full: no NUL in the region: a writer that never writes NUL went round
 *		(or filled it exactly);
 *	stm32: one NUL at z, text after it up to end, and the buffer's last
 *		byte NUL: STM32Cube's writer past its first lap;
 *	linear: anything else: the text is [0, z), as upstream reads it.
 *
 * Detection (SNAPTRACE_TFMT_AUTO), in this order, deterministic
 * -------------------------------------------------------------
 * 0. a Zephyr RAM console header (the flag, then a buf_size that fits in
 *    the buffer, read as a 32-bit remote's little-endian fields, else as a
 *    64-bit one's): ZEPHYR, wrapped when pos > buf_size, or pos < buf_size
 *    with a byte other than NUL after it.
 * 1. full, and at least two libmetal record headers ("<cnt> L<0-7> ", or
 *    "<ticks> <cnt> L<0-7> "), at least half of them followed (in
 *    circular order) by the header counting one more: LIBMETAL, wrapped.
 * 2. full, and Zephyr timestamps at the start of two lines or more, the
 *    smallest of which follows (circularly) a greater one: ZEPHYR, wrapped.
 * 3. full otherwise: PLAIN (the whole region; nothing tells where the
 *    writer was).
 * 4. stm32: STM32CUBE, wrapped.
 * 5. linear, starting with a libmetal record header: LIBMETAL.
 * 6. linear, with a line starting with a "[hh:mm:ss.mmm,uuu]" timestamp
 *    (the other two kinds are common elsewhere, this project's own
 *    simulated remotes among them), or Zephyr's "Booting Zephyr OS"
 *    banner: ZEPHYR.
 * 7. otherwise PLAIN. An unwrapped STM32Cube log is plain text: reported
 *    as PLAIN, read the same.
 *
 * Reading (detected or forced)
 * ----------------------------
 * ZEPHYR with its header: the characters [0, pos) of the text after the
 *	header, or once wrapped (rule 0) all of it from pos % buf_size, less
 *	the first line up to its newline unless it starts with a timestamp
 *	(the character before it was overwritten); lines lost unknown.
 *	Another convention forced on it reads it as any other buffer.
 * A linear layout is read as [0, z) whatever the convention, not wrapped,
 * nothing lost (libmetal's counters still count missing records). A
 * convention forced on a layout it cannot write is read linearly too
 * (STM32CUBE on a full region: [0, end)), except for the circular readings:
 * ZEPHYR, full region: wrapped; the oldest line is the line whose
 *	timestamp is the smallest, first in memory on a tie, when it follows a
 *	greater one; without such a line, the text from offset 0. The line
 *	just before the oldest one is dropped when it does not start with a
 *	timestamp: it is the tail of a line the writer overwrote (or, rarely,
 *	a line printed without one when the wrap fell on a line boundary).
 *	The write position is unknown, and so are the lines lost.
 * LIBMETAL, full region: wrapped; the newest record is the header with the
 *	latest counter, compared modulo 2^32 (c_cnt is a uint32_t: it goes
 *	from 4294967295 to 0), last in memory on a tie, and ends after its first
 *	newline, before the next header, or after 127 bytes; the oldest is the
 *	first header after that, unless the header after it does not count
 *	one more, in which case it is the digits left of a header the writer
 *	cut, and the next one is the oldest. The bytes between the newest
 *	record's end and the oldest's start (the record cut by the wrap) are
 *	not shown. Lost lines: the oldest counter (counters start at 0 in
 *	init_system()), plus every counter skipped between records shown
 *	(modulo 2^32 too: from 4294967295 to 0 skips none).
 *	Without any header: the region from offset 0, lost lines unknown.
 * STM32CUBE, stm32 layout: wrapped; the oldest text is after the NUL, the
 *	newest before it; the first line of the oldest text is dropped up to
 *	its first newline (the NUL overwrote the byte before it, so it cannot
 *	be told whole), unless that newline is the last byte of text. Lost
 *	lines unknown.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <kunit/visibility.h>

#include "trace_decode.h"

/* A libmetal record: sizeof(msg) in rsc_trace_logger(), its NUL excluded. */
#define TD_LM_REC_MAX		127
/* Bytes a Zephyr timestamp takes at most, brackets included. */
#define TD_ZTS_MAX		48
/* Digits of a timestamp field at most: 19 never overflow a u64. */
#define TD_ZTS_DIGITS		19

static const char *const td_names[SNAPTRACE_TFMT_NR] = {
	[SNAPTRACE_TFMT_AUTO] = "auto",
	[SNAPTRACE_TFMT_PLAIN] = "plain",
	[SNAPTRACE_TFMT_ZEPHYR] = "zephyr",
	[SNAPTRACE_TFMT_LIBMETAL] = "libmetal",
	[SNAPTRACE_TFMT_STM32CUBE] = "stm32cube",
};

/*
 * The text region [0, end) of a buffer; with @circ, reads past its end
 * continue at 0 (a full region, which the writer went round).
 */
struct td_text {
	const u8 *b;
	u32 end;
	bool circ;
};

/* The byte @k after position @p (p < end), or -1 outside the text. */
static int td_at(const struct td_text *t, u32 p, u32 k)
{
	u64 i = (u64)p + k;

	if (p >= t->end || k >= t->end)
		return -1;
	if (i >= t->end) {
		if (!t->circ)
			return -1;
		i -= t->end;
	}
	return t->b[i];
}

/* Position @k after @p (both inside the text, k < end), circularly. */
static u32 td_fwd(const struct td_text *t, u32 p, u32 k)
{
	u64 i = (u64)p + k;

	return i >= t->end ? (u32)(i - t->end) : (u32)i;
}

/* The position @n bytes before @p, or U32_MAX before a linear text. */
static u32 td_back(const struct td_text *t, u32 p, u32 n)
{
	if (n <= p)
		return p - n;
	if (!t->circ || n >= t->end)
		return U32_MAX;
	return t->end - (n - p);
}

/* The byte just before @p, or -1 at the start of a linear text. */
static int td_prev(const struct td_text *t, u32 p)
{
	if (p >= t->end)
		return -1;
	if (p)
		return t->b[p - 1];
	return t->circ ? t->b[t->end - 1] : -1;
}

static bool td_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Bytes from @from forward to @to, circularly (0 when they are equal). */
static u32 td_dist(const struct td_text *t, u32 from, u32 to)
{
	return to >= from ? to - from : t->end - from + to;
}

/* ---- Zephyr's log timestamps ---- */

enum td_zts {
	TD_ZTS_NONE,
	TD_ZTS_HMS,	/* "[%02u:%02u:%02u.%03u,%03u]" */
	TD_ZTS_TICKS,	/* "[%08lu]", "[%016llu]" */
	TD_ZTS_SECS,	/* "[%5lu.%06d]" (LOG_OUTPUT_FORMAT_LINUX_TIMESTAMP) */
};

/*
 * The timestamp at @p, as log_output.c's timestamp_print() writes it: its
 * kind, and in @key a value that grows with time (microseconds, or ticks).
 */
static enum td_zts td_zts_parse(const struct td_text *t, u32 p, u64 *key)
{
	u64 g[5] = { 0 }, v;
	char sep[4] = { 0 };
	unsigned int ng = 0, nd = 0, k = 1;
	bool closed = false;
	int c;

	if (td_at(t, p, 0) != '[')
		return TD_ZTS_NONE;
	while (k < 8 && td_at(t, p, k) == ' ')
		k++;
	for (; k < TD_ZTS_MAX; k++) {
		c = td_at(t, p, k);
		if (td_digit(c)) {
			if (++nd > TD_ZTS_DIGITS)
				return TD_ZTS_NONE;
			g[ng] = g[ng] * 10 + (c - '0');
			continue;
		}
		if (!nd)
			return TD_ZTS_NONE;
		if (c == ']') {
			ng++;
			closed = true;
			break;
		}
		if ((c != ':' && c != '.' && c != ',') || ng >= 4)
			return TD_ZTS_NONE;
		sep[ng++] = c;
		nd = 0;
	}
	if (!closed)
		return TD_ZTS_NONE;
	if (ng == 1) {
		*key = g[0];
		return TD_ZTS_TICKS;
	}
	if (ng == 2 && sep[0] == '.' && g[1] < 1000000) {
		if (check_mul_overflow(g[0], 1000000ULL, &v) ||
		    check_add_overflow(v, g[1], key))
			return TD_ZTS_NONE;
		return TD_ZTS_SECS;
	}
	if (ng == 5 && sep[0] == ':' && sep[1] == ':' && sep[2] == '.' &&
	    sep[3] == ',' && g[1] < 60 && g[2] < 60 && g[3] < 1000 &&
	    g[4] < 1000) {
		if (check_mul_overflow(g[0], 3600ULL, &v) ||
		    check_add_overflow(v, g[1] * 60 + g[2], &v) ||
		    check_mul_overflow(v, 1000000ULL, &v) ||
		    check_add_overflow(v, g[3] * 1000 + g[4], key))
			return TD_ZTS_NONE;
		return TD_ZTS_HMS;
	}
	return TD_ZTS_NONE;
}

/* Whether a line starts at @p: after a newline (or at 0 of a linear text). */
static bool td_line_start(const struct td_text *t, u32 p)
{
	int c = td_prev(t, p);

	return c == '\n' || (c < 0 && p == 0);
}

/*
 * In a full region: the oldest line of a wrapped Zephyr console, the line
 * with the smallest timestamp (of the kind of the first one found), first
 * in memory on a tie, if the timestamped line before it (circularly) is
 * greater.
 */
static bool td_zephyr_oldest(const struct td_text *t, u32 *oldest,
			     enum td_zts *kindp)
{
	enum td_zts kind = TD_ZTS_NONE, k;
	u64 key, min = 0, prev = 0, min_pred = 0;
	bool min_first = false;
	u32 p, n = 0, min_at = 0;

	for (p = 0; p < t->end; p++) {
		if (!td_line_start(t, p))
			continue;
		k = td_zts_parse(t, p, &key);
		if (k == TD_ZTS_NONE || (kind != TD_ZTS_NONE && k != kind))
			continue;
		kind = k;
		if (!n) {
			min = key;
			min_at = p;
			min_first = true;
		} else if (key < min) {
			min = key;
			min_at = p;
			min_pred = prev;
			min_first = false;
		}
		prev = key;
		n++;
	}
	if (n < 2)
		return false;
	if (min_first)
		min_pred = prev;	/* the last one, circularly before */
	if (min_pred <= min)
		return false;
	*oldest = min_at;
	*kindp = kind;
	return true;
}

/* Whether @t holds @s (bounded; no NUL needed). */
static bool td_contains(const struct td_text *t, const char *s)
{
	size_t n = strlen(s);
	u32 p;

	if (n > t->end)
		return false;
	for (p = 0; p <= t->end - n; p++)
		if (!memcmp(t->b + p, s, n))
			return true;
	return false;
}

/* A linear text that a Zephyr console wrote (its timestamps, its banner). */
static bool td_zephyr_linear(const struct td_text *t)
{
	u64 key;
	u32 p;

	for (p = 0; p < t->end; p++)
		if (td_line_start(t, p) &&
		    td_zts_parse(t, p, &key) == TD_ZTS_HMS)
			return true;
	return td_contains(t, "Booting Zephyr OS");
}

/* Zephyr's struct ram_console_header: the flag, and where the text starts. */
#define TD_RC_FLAG		"RAM_CONSOLE"
#define TD_RC_HEAD_SIZE		64

static u32 td_le32(const u8 *b)
{
	return b[0] | b[1] << 8 | b[2] << 16 | (u32)b[3] << 24;
}

/*
 * The header of a RAM console with CONFIG_RAM_CONSOLE_HEADER: its buf_size
 * and pos, as a 32-bit remote lays them out (buf_addr at 12, buf_size at
 * 16, pos at 20) or, failing that, a 64-bit one (16, 24, 32).
 */
static bool td_rc_header(const u8 *b, u32 size, u32 *bs, u32 *pos)
{
	u32 avail, hi;

	if (size <= TD_RC_HEAD_SIZE || memcmp(b, TD_RC_FLAG, sizeof(TD_RC_FLAG)))
		return false;
	avail = size - TD_RC_HEAD_SIZE;
	*bs = td_le32(b + 16);
	if (*bs && *bs <= avail) {
		*pos = td_le32(b + 20);
		return true;
	}
	*bs = td_le32(b + 24);
	hi = td_le32(b + 28);
	if (!hi && *bs && *bs <= avail) {
		*pos = td_le32(b + 32);
		return true;
	}
	return false;
}

/* ---- libmetal's records ---- */

/* A decimal u32 at @p + *@k, advancing *@k past it. */
static bool td_lm_num(const struct td_text *t, u32 p, u32 *k, u32 *val)
{
	unsigned int nd = 0;
	u64 v = 0;
	int c;

	while (td_digit(c = td_at(t, p, *k))) {
		v = v * 10 + (c - '0');
		if (++nd > 10 || v > U32_MAX)
			return false;
		(*k)++;
	}
	*val = v;
	return nd > 0;
}

/*
 * The header "%u L%u " (or, with *@ts, "%u %u L%u ") at @p: its length, or
 * 0. Levels are enum metal_log_level, 0 to 7.
 */
static u32 td_lm_header_at(const struct td_text *t, u32 p, u32 *cnt, bool *ts)
{
	u32 k = 0, a;
	int lvl;

	if (!td_lm_num(t, p, &k, &a) || td_at(t, p, k++) != ' ')
		return 0;
	*ts = false;
	if (td_at(t, p, k) != 'L') {
		if (!td_lm_num(t, p, &k, &a) || td_at(t, p, k++) != ' ')
			return 0;
		*ts = true;
	}
	if (td_at(t, p, k++) != 'L')
		return 0;
	lvl = td_at(t, p, k++);
	if (lvl < '0' || lvl > '7' || td_at(t, p, k++) != ' ')
		return 0;
	*cnt = a;
	return k;
}

/*
 * A record header starting at @p: not in the middle of a number, nor the
 * "%u L%u " part of a FreeRTOS-variant header that starts before it.
 */
static u32 td_lm_header(const struct td_text *t, u32 p, u32 *cnt)
{
	u32 hl, q, d, c2;
	bool ts, ts2;
	int c;

	c = td_prev(t, p);
	if (td_digit(c))
		return 0;
	hl = td_lm_header_at(t, p, cnt, &ts);
	if (!hl || ts || c != ' ')
		return hl;
	/* Back over "<ticks> " to its first digit: a header there covers p. */
	for (d = 2; d <= 11; d++) {
		q = td_back(t, p, d);
		if (q == U32_MAX || !td_digit(t->b[q]))
			break;
	}
	if (d == 2)
		return hl;
	q = td_back(t, p, d - 1);
	if (td_lm_header_at(t, q, &c2, &ts2) && ts2)
		return 0;
	return hl;
}

/*
 * The first record header in the @limit bytes from @from (circularly in a
 * full region): its position in *@at, its length returned (0: none).
 */
static u32 td_lm_next(const struct td_text *t, u32 from, u32 limit, u32 *at,
		      u32 *cnt)
{
	u32 k, p, hl;

	if (from >= t->end)
		return 0;
	limit = min(limit, t->end);
	for (k = 0; k < limit; k++) {
		if (!t->circ && (u64)from + k >= t->end)
			return 0;
		p = td_fwd(t, from, k);
		hl = td_lm_header(t, p, cnt);
		if (hl) {
			*at = p;
			return hl;
		}
	}
	return 0;
}

/*
 * Whether counter @a was written after @b: c_cnt is a uint32_t that goes
 * from 4294967295 to 0, and a buffer of at most 4 GiB holds fewer than
 * 2^31 records, so the difference modulo 2^32 tells (RFC 1982).
 */
static bool td_lm_after(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/* Counters missing from the records in [@from, @from + @len). */
static u64 td_lm_lost(const struct td_text *t, u32 from, u32 len)
{
	u32 at, cnt, prev = 0, k = 0;
	bool first = true;
	u64 lost = 0;

	while (k < len && td_lm_next(t, td_fwd(t, from, k), len - k, &at, &cnt)) {
		if (first)
			lost = cnt;
		else if (td_lm_after(cnt, prev))
			lost += cnt - prev - 1;
		first = false;
		prev = cnt;
		k = td_dist(t, from, at) + 1;
	}
	return lost;
}

/* Rule 1: enough headers, at least half of them followed by the next count. */
static bool td_lm_detect_full(const struct td_text *t)
{
	u32 p, cnt, n = 0, steps = 0, first = 0, prev = 0;

	for (p = 0; p < t->end; p++) {
		if (!td_lm_header(t, p, &cnt))
			continue;
		if (!n)
			first = cnt;
		else if (cnt == prev + 1)
			steps++;
		prev = cnt;
		n++;
	}
	if (n >= 2 && first == prev + 1)
		steps++;
	return n >= 2 && 2 * (u64)steps >= n;
}

/* ---- results ---- */

static void td_linear(struct snaptrace_tdec *dec, u32 len)
{
	dec->span[0].off = 0;
	dec->span[0].len = len;
	dec->wrapped = false;
	dec->lost_lines = 0;
	dec->lost_known = true;
}

/* Text from @o forward to @e (a whole lap when they are equal), wrapped. */
static void td_circular(struct snaptrace_tdec *dec, u32 end, u32 o, u32 e)
{
	if (o < e) {
		dec->span[0].off = o;
		dec->span[0].len = e - o;
	} else {
		dec->span[0].off = o;
		dec->span[0].len = end - o;
		dec->span[1].off = 0;
		dec->span[1].len = e;
	}
	if (!dec->span[0].len) {
		dec->span[0] = dec->span[1];
		dec->span[1].off = 0;
		dec->span[1].len = 0;
	}
	dec->wrapped = true;
	dec->lost_lines = 0;
	dec->lost_known = false;
}

static void td_zephyr_full(const struct td_text *t, struct snaptrace_tdec *dec)
{
	enum td_zts kind;
	u32 o, e, k, q;
	u64 key;

	if (!td_zephyr_oldest(t, &o, &kind)) {
		td_circular(dec, t->end, 0, 0);
		return;
	}
	/*
	 * The line before the oldest one (which starts after a newline): the
	 * tail of a line the writer overwrote unless it has a timestamp.
	 */
	e = o;
	for (k = 2; k < t->end; k++) {
		q = td_back(t, o, k);
		if (q == U32_MAX)
			break;
		if (t->b[q] == '\n') {
			q = td_fwd(t, q, 1);
			if (q != o && td_zts_parse(t, q, &key) != kind)
				e = q;
			break;
		}
	}
	td_circular(dec, t->end, o, e);
}

static void td_zephyr_header(const u8 *b, u32 bs, u32 pos,
			     struct snaptrace_tdec *dec)
{
	struct td_text t = { .b = b + TD_RC_HEAD_SIZE, .end = bs, .circ = true };
	u32 o, k;
	u64 key;

	/*
	 * pos at most buf_size and the bytes after it still zero (the writer
	 * clears the buffer first): not wrapped. After 2^32 characters the
	 * writer sets pos to (0xFFFFFFFF % buf_size) + 1, and NXP's first
	 * version of the header kept pos % buf_size: either way a pos below
	 * buf_size with text after it is the write position of a full buffer.
	 */
	if (pos == bs || (pos < bs && !memchr_inv(t.b + pos, 0, bs - pos))) {
		dec->span[0].off = TD_RC_HEAD_SIZE;
		dec->span[0].len = pos;
		return;
	}
	o = pos % bs;
	if (td_zts_parse(&t, o, &key) == TD_ZTS_NONE) {
		for (k = 0; k + 1 < bs; k++) {
			if (t.b[td_fwd(&t, o, k)] == '\n') {
				o = td_fwd(&t, o, k + 1);
				break;
			}
		}
	}
	td_circular(dec, bs, o, pos % bs);
	dec->span[0].off += TD_RC_HEAD_SIZE;
	if (dec->span[1].len)
		dec->span[1].off += TD_RC_HEAD_SIZE;
}

static void td_lm_full(const struct td_text *t, struct snaptrace_tdec *dec)
{
	u32 p, hl, cnt, nhl = 0, newest = 0, ncnt = 0, k, e, lim;
	u32 o, ocnt, at2, cnt2;
	bool any = false;

	for (p = 0; p < t->end; p++) {
		hl = td_lm_header(t, p, &cnt);
		if (hl && (!any || td_lm_after(cnt, ncnt) || cnt == ncnt)) {
			newest = p;
			ncnt = cnt;
			nhl = hl;
			any = true;
		}
	}
	if (!any) {
		td_circular(dec, t->end, 0, 0);
		return;
	}
	/* The newest record's end: its newline, the next header, 127 bytes. */
	lim = min_t(u32, TD_LM_REC_MAX, t->end);
	for (k = nhl; k < lim; k++) {
		p = td_fwd(t, newest, k);
		if (td_lm_header(t, p, &cnt))
			break;
		if (t->b[p] == '\n') {
			k++;
			break;
		}
	}
	e = k >= t->end ? newest : td_fwd(t, newest, k);
	/* The oldest: the first header from there on, unless it is cut. */
	o = newest;
	ocnt = ncnt;
	lim = td_dist(t, e, newest);
	if (e != newest && td_lm_next(t, e, lim, &o, &ocnt)) {
		lim = td_dist(t, o, newest);
		if (lim && td_lm_next(t, td_fwd(t, o, 1), lim, &at2, &cnt2) &&
		    cnt2 != ocnt + 1) {
			o = at2;
			ocnt = cnt2;
		}
	} else {
		o = newest;
	}
	td_circular(dec, t->end, o, e);
	lim = td_dist(t, o, newest) + 1;
	dec->lost_lines = td_lm_lost(t, o, lim);
	dec->lost_known = true;
}

static void td_stm32(const struct td_text *t, u32 z, struct snaptrace_tdec *dec)
{
	u32 old = t->end - z - 1, total = old + z, i, p, start = 0;

	/*
	 * The text, oldest first, is [z + 1, end) then [0, z): skip its first
	 * line, which the writer cut, unless its newline ends the text.
	 */
	for (i = 0; i < total; i++) {
		p = i < old ? z + 1 + i : i - old;
		if (t->b[p] == '\n') {
			if (i + 1 < total)
				start = i + 1;
			break;
		}
	}
	if (start < old) {
		td_circular(dec, t->end, z + 1 + start, z);
		return;
	}
	dec->span[0].off = start - old;
	dec->span[0].len = z - (start - old);
	dec->wrapped = true;
	dec->lost_lines = 0;
	dec->lost_known = false;
}

/**
 * snaptrace_trace_decode() - find a trace's text, oldest line first
 * @buf: a private copy of the trace buffer (never memory the remote writes)
 * @size: its bytes: the trace entry's len
 * @fmt: the convention, or SNAPTRACE_TFMT_AUTO to detect it
 * @dec: the result
 *
 * Reads the buffer as the firmware convention @fmt writes it, or as the one
 * detected (rules at the top of this file), where upstream's
 * remoteproc_debugfs.c (rproc_trace_read()) prints up to the first NUL.
 * The spans in @dec always lie inside [0, @size), whatever the bytes.
 *
 * Context: any; never sleeps, allocates nothing, takes no lock; linear in
 * @size: a few passes over the buffer, each reading a bounded number of
 * bytes at each position (a timestamp's 48 at most, or a few libmetal
 * headers).
 * Return: 0, or -EINVAL (and @dec empty, PLAIN) for @fmt out of range, a
 * NULL @buf with a nonzero @size, or @size above U32_MAX; -EINVAL for a
 * NULL @dec, nothing written.
 */
int snaptrace_trace_decode(const void *buf, size_t size,
			   enum snaptrace_tfmt fmt, struct snaptrace_tdec *dec)
{
	struct td_text t = { .b = buf };
	enum td_zts zkind;
	u32 p, z, lm_cnt, rc_bs, rc_pos;
	bool full, stm32, rc;

	if (!dec)
		return -EINVAL;
	memset(dec, 0, sizeof(*dec));
	dec->fmt = SNAPTRACE_TFMT_PLAIN;
	dec->lost_known = true;
	if ((unsigned int)fmt >= SNAPTRACE_TFMT_NR || (!buf && size) ||
	    size > U32_MAX)
		return -EINVAL;
	dec->size = size;
	if (fmt != SNAPTRACE_TFMT_AUTO)
		dec->fmt = fmt;
	if (!size)
		return 0;

	rc = td_rc_header(t.b, size, &rc_bs, &rc_pos);
	if (rc && (fmt == SNAPTRACE_TFMT_AUTO || fmt == SNAPTRACE_TFMT_ZEPHYR)) {
		dec->fmt = SNAPTRACE_TFMT_ZEPHYR;
		td_zephyr_header(t.b, rc_bs, rc_pos, dec);
		return 0;
	}

	t.end = size;
	if (!t.b[size - 1])
		t.end = size - 1;
	z = t.end;
	for (p = 0; p < t.end; p++) {
		if (!t.b[p]) {
			z = p;
			break;
		}
	}
	full = z == t.end && t.end > 0;
	stm32 = false;
	if (z < t.end && t.end == size - 1 && z + 1 < t.end) {
		stm32 = true;
		for (p = z + 1; p < t.end; p++) {
			if (!t.b[p]) {
				stm32 = false;
				break;
			}
		}
	}

	t.circ = full;
	if (fmt == SNAPTRACE_TFMT_AUTO) {
		struct td_text lin = { .b = t.b, .end = z };

		if (full && td_lm_detect_full(&t))
			fmt = SNAPTRACE_TFMT_LIBMETAL;
		else if (full && td_zephyr_oldest(&t, &p, &zkind))
			fmt = SNAPTRACE_TFMT_ZEPHYR;
		else if (full)
			fmt = SNAPTRACE_TFMT_PLAIN;
		else if (stm32)
			fmt = SNAPTRACE_TFMT_STM32CUBE;
		else if (td_lm_header(&lin, 0, &lm_cnt))
			fmt = SNAPTRACE_TFMT_LIBMETAL;
		else if (td_zephyr_linear(&lin))
			fmt = SNAPTRACE_TFMT_ZEPHYR;
		else
			fmt = SNAPTRACE_TFMT_PLAIN;
	}
	dec->fmt = fmt;

	if (full && fmt == SNAPTRACE_TFMT_ZEPHYR) {
		td_zephyr_full(&t, dec);
	} else if (full && fmt == SNAPTRACE_TFMT_LIBMETAL) {
		td_lm_full(&t, dec);
	} else if (stm32 && fmt == SNAPTRACE_TFMT_STM32CUBE) {
		td_stm32(&t, z, dec);
	} else {
		td_linear(dec, z);
		if (fmt == SNAPTRACE_TFMT_LIBMETAL) {
			t.end = z;
			t.circ = false;
			dec->lost_lines = td_lm_lost(&t, 0, z);
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_trace_decode);

/* The start of the line snaptrace_trace_show() prints first when wrapped. */
#define TD_SELF			"[snaptrace:"

/* Byte @i of the text shown (span 0's bytes, then span 1's), or -1. */
static int td_show_at(const u8 *b, const u32 *off, const u32 *len, u64 i)
{
	if (i < len[0])
		return b[off[0] + i];
	i -= len[0];
	return i < len[1] ? b[off[1] + i] : -1;
}

/* Whether the text shown has TD_SELF at @i. */
static bool td_show_self(const u8 *b, const u32 *off, const u32 *len, u64 i)
{
	unsigned int k;

	for (k = 0; k < sizeof(TD_SELF) - 1; k++)
		if (td_show_at(b, off, len, i + k) != TD_SELF[k])
			return false;
	return true;
}

/* One span's bytes [@from, @to) of the text, escaped as %pE would. */
static void td_show_run(struct seq_file *m, const u8 *b, u32 from, u32 to)
{
	if (to > from)
		seq_escape_mem(m, (const char *)b + from, to - from,
			       ESCAPE_ANY_NP, NULL);
}

/**
 * snaptrace_trace_show() - print a decoded trace, oldest line first
 * @m: the seq_file
 * @buf: the buffer decoded (the same private copy)
 * @dec: what snaptrace_trace_decode() found in it
 *
 * When @dec->wrapped, first a line "[snaptrace: wrapped, N lines lost]"
 * ("1 line lost" for one), or "[snaptrace: wrapped, lines lost unknown]";
 * then the bytes of span[0], then of span[1]. A newline is printed as one,
 * a carriage return just before a newline is dropped (firmware writes
 * "\r\n" for a terminal), and any other byte that is not printable is
 * escaped as %pE (ESCAPE_ANY_NP) escapes it: "\e", "\r", octal, so that a
 * remote cannot send escape sequences to the reader's terminal; the '[' of
 * a line that starts with "[snaptrace:" is escaped too ("\133"), so that
 * the remote's text cannot pass for that first line. The output
 * ends with a newline when there is text and its last byte is not one.
 * The spans are clipped to @dec->size: never a byte outside the buffer.
 * Upstream's rproc_trace_read() (remoteproc_debugfs.c) hands the reader the
 * raw bytes up to the first NUL, escape sequences included.
 *
 * A NULL @buf prints the header line only; @dec must not be NULL.
 *
 * Context: process (seq_file show); does not sleep itself.
 */
void snaptrace_trace_show(struct seq_file *m, const void *buf,
			  const struct snaptrace_tdec *dec)
{
	const u8 *b = buf;
	u32 off[2], len[2], i, s, at;
	int last = -1, c;
	bool bol = true;
	u64 total;

	if (dec->wrapped) {
		if (!dec->lost_known)
			seq_puts(m, "[snaptrace: wrapped, lines lost unknown]\n");
		else
			seq_printf(m, "[snaptrace: wrapped, %llu line%s lost]\n",
				   dec->lost_lines,
				   dec->lost_lines == 1 ? "" : "s");
	}
	if (!b)
		return;
	for (i = 0; i < 2; i++) {
		off[i] = min(dec->span[i].off, dec->size);
		len[i] = min(dec->span[i].len, dec->size - off[i]);
	}
	total = (u64)len[0] + len[1];
	for (i = 0; i < 2; i++) {
		s = 0;
		for (at = 0; at < len[i]; at++) {
			c = b[off[i] + at];
			last = c;
			if (bol && c == '[' &&
			    td_show_self(b, off, len, (i ? len[0] : 0) + (u64)at)) {
				td_show_run(m, b, off[i] + s, off[i] + at);
				seq_puts(m, "\\133");
				s = at + 1;
			}
			bol = c == '\n';
			if (c == '\r') {
				int nx;

				if (at + 1 < len[i])
					nx = b[off[i] + at + 1];
				else if (!i && len[1])
					nx = b[off[1]];
				else
					nx = -1;
				if (nx == '\n') {
					td_show_run(m, b, off[i] + s, off[i] + at);
					s = at + 1;
				}
				continue;
			}
			if (c != '\n')
				continue;
			td_show_run(m, b, off[i] + s, off[i] + at);
			seq_putc(m, '\n');
			s = at + 1;
		}
		td_show_run(m, b, off[i] + s, off[i] + len[i]);
	}
	if (total && last != '\n')
		seq_putc(m, '\n');
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_trace_show);

/**
 * snaptrace_tfmt_name() - a convention's name
 * @fmt: the convention
 *
 * No upstream twin: upstream has one way to read a trace.
 *
 * Context: any.
 * Return: "auto", "plain", "zephyr", "libmetal" or "stm32cube"; "unknown"
 * for a value out of range.
 */
const char *snaptrace_tfmt_name(enum snaptrace_tfmt fmt)
{
	if ((unsigned int)fmt >= SNAPTRACE_TFMT_NR)
		return "unknown";
	return td_names[fmt];
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_tfmt_name);

/**
 * snaptrace_tfmt_parse() - a convention by its name
 * @name: exactly one of the names snaptrace_tfmt_name() gives (the caller
 *	strips a trailing newline)
 * @fmt: where to store it
 *
 * No upstream twin, as snaptrace_tfmt_name().
 *
 * Context: any.
 * Return: 0, or -EINVAL for any other string (and @fmt untouched).
 */
int snaptrace_tfmt_parse(const char *name, enum snaptrace_tfmt *fmt)
{
	unsigned int i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < SNAPTRACE_TFMT_NR; i++) {
		if (!strcmp(name, td_names[i])) {
			*fmt = i;
			return 0;
		}
	}
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_tfmt_parse);
