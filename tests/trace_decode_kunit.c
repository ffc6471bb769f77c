// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the decoder of remote trace buffers (src/trace_decode.c).
 *
 * The buffers are written by models of the firmware writers, each a line
 * for line transcription of the upstream code it names: Zephyr's
 * ram_console_out(), the Xilinx OpenAMP applications' rsc_trace_logger()
 * and rsc_trace_putchar(), STM32Cube's log_buff(). Every expected span,
 * count and text is worked out by hand in the comments (stream offsets,
 * then buffer offsets), not taken from the decoder.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/test.h>

#include "../src/trace_decode.h"

/* ---- the writers ---- */

/*
 * Zephyr's RAM console: a buffer of SIZE + 1 bytes (the last one stays
 * NUL), pos = (pos + 1) % SIZE.
 */
struct td_zcon {
	u8 *buf;
	u32 size;	/* CONFIG_RAM_CONSOLE_BUFFER_SIZE */
	u32 pos;
};

static void td_zputs(struct td_zcon *z, const char *s)
{
	for (; *s; s++) {
		z->buf[z->pos] = *s;
		z->pos = (z->pos + 1) % z->size;
	}
}

/* Zephyr log lines of 29 bytes: "[00:00:00.iii,000] line iii\r\n". */
#define TD_ZLINE 29

static void td_zline(struct td_zcon *z, unsigned int i)
{
	char line[40];

	snprintf(line, sizeof(line), "[00:00:00.%03u,000] line %03u\r\n", i, i);
	td_zputs(z, line);
}

static u8 *td_zcon_init(struct kunit *test, struct td_zcon *z, u32 size)
{
	z->buf = kunit_kzalloc(test, size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, z->buf);
	z->size = size;
	z->pos = 0;
	return z->buf;
}

/* libmetal's circular log (rsc_trace_putchar(), rsc_trace_logger()). */
struct td_lm {
	u8 *buf;
	u32 len, pos, cnt;
	bool ticks;	/* the FreeRTOS variant: "ts cnt L%u " */
	u32 tick;
};

static void td_lm_putchar(struct td_lm *l, char c)
{
	if (l->pos >= l->len)
		l->pos = 0;
	l->buf[l->pos++] = c;
}

static void td_lm_log(struct td_lm *l, unsigned int level, const char *msg)
{
	char rec[128];
	int len;

	if (l->ticks)
		len = snprintf(rec, sizeof(rec), "%u %u L%u ", l->tick, l->cnt,
			       level);
	else
		len = snprintf(rec, sizeof(rec), "%u L%u ", l->cnt, level);
	l->cnt++;
	snprintf(rec + len, sizeof(rec) - len, "%s", msg);
	for (len = 0; rec[len] && len < sizeof(rec); len++)
		td_lm_putchar(l, rec[len]);
}

static u8 *td_lm_init(struct kunit *test, struct td_lm *l, u32 len)
{
	memset(l, 0, sizeof(*l));
	l->buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l->buf);
	l->len = len;
	return l->buf;
}

/* STM32Cube's log_buff(): a NUL after each character. */
struct td_st {
	u8 *buf;
	u32 sz;		/* SYSTEM_TRACE_BUF_SZ */
	u32 offset;
};

static void td_st_puts(struct td_st *s, const char *str)
{
	for (; *str; str++) {
		if (s->offset + 1 >= s->sz)
			s->offset = 0;
		s->buf[s->offset] = *str;
		s->buf[s->offset++ + 1] = '\0';
	}
}

/* Lines of 7 bytes: "line-N\n", N one digit; more digits make them longer. */
static void td_st_lines(struct td_st *s, unsigned int from, unsigned int to)
{
	char line[16];

	for (; from < to; from++) {
		snprintf(line, sizeof(line), "line-%u\n", from % 10);
		td_st_puts(s, line);
	}
}

static u8 *td_st_init(struct kunit *test, struct td_st *s, u32 sz)
{
	s->buf = kunit_kzalloc(test, sz, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->buf);
	s->sz = sz;
	s->offset = 0;
	return s->buf;
}

/*
 * CONFIG_RAM_CONSOLE_HEADER: "RAM_CONSOLE", buf_addr, buf_size (SIZE - 65),
 * pos (every character ever written) in a 64-byte header; the text after
 * it, buf_addr[pos % buf_size]. Little-endian, a 32-bit remote's layout
 * (fields at 12, 16, 20) or a 64-bit one's (16, 24, 32).
 */
struct td_rcon {
	u8 *buf;
	u32 bs, pos;
	unsigned int pos_at;
};

static void td_put32(u8 *b, u32 v)
{
	b[0] = v;
	b[1] = v >> 8;
	b[2] = v >> 16;
	b[3] = v >> 24;
}

static u8 *td_rcon_init(struct kunit *test, struct td_rcon *r, u32 size,
			bool lp64)
{
	r->buf = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->buf);
	strscpy(r->buf, "RAM_CONSOLE", 12);
	r->bs = size - 1 - 64;
	r->pos = 0;
	if (lp64) {
		td_put32(r->buf + 16, 0x80000040);	/* buf_addr, low half */
		td_put32(r->buf + 20, 0x1);
		td_put32(r->buf + 24, r->bs);
		r->pos_at = 32;
	} else {
		td_put32(r->buf + 12, 0x10000040);
		td_put32(r->buf + 16, r->bs);
		r->pos_at = 20;
	}
	return r->buf;
}

static void td_rcon_puts(struct td_rcon *r, const char *s)
{
	for (; *s; s++) {
		r->buf[64 + r->pos % r->bs] = *s;
		r->pos++;
		/* ram_console_out(): "in case of overflow". */
		if (!r->pos)
			r->pos = (U32_MAX % r->bs) + 1;
	}
	td_put32(r->buf + r->pos_at, r->pos);
}

static void td_rcon_lines(struct td_rcon *r, unsigned int from, unsigned int to)
{
	char line[40];

	for (; from < to; from++) {
		snprintf(line, sizeof(line), "[00:00:00.%03u,000] line %03u\r\n",
			 from, from);
		td_rcon_puts(r, line);
	}
}

/* ---- decoding and showing ---- */

struct td_res {
	struct snaptrace_tdec dec;
	const u8 *copy;
	char *out;
};

/* Every span inside [0, size), the two apart, a result never AUTO. */
static void td_expect_sane(struct kunit *test, const struct snaptrace_tdec *d,
			   size_t size)
{
	u64 e0 = (u64)d->span[0].off + d->span[0].len;
	u64 e1 = (u64)d->span[1].off + d->span[1].len;

	KUNIT_EXPECT_NE(test, d->fmt, SNAPTRACE_TFMT_AUTO);
	KUNIT_EXPECT_LT(test, (unsigned int)d->fmt, (unsigned int)SNAPTRACE_TFMT_NR);
	KUNIT_EXPECT_EQ(test, (size_t)d->size, size);
	KUNIT_EXPECT_LE(test, e0, (u64)size);
	KUNIT_EXPECT_LE(test, e1, (u64)size);
	if (d->span[1].len) {
		KUNIT_EXPECT_GT(test, d->span[0].len, 0U);
		KUNIT_EXPECT_TRUE(test, e1 <= d->span[0].off ||
				  d->span[1].off >= e0);
	}
	if (!d->wrapped)
		KUNIT_EXPECT_EQ(test, d->span[1].len, 0U);
}

/* What snaptrace_trace_show() prints, NUL-terminated. */
static char *td_show(struct kunit *test, const void *buf,
		     const struct snaptrace_tdec *dec)
{
	struct seq_file *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	size_t cap = 4 * (size_t)dec->size + 128;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->buf = kunit_kzalloc(test, cap + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	m->size = cap;
	snaptrace_trace_show(m, buf, dec);
	KUNIT_EXPECT_FALSE(test, seq_has_overflowed(m));
	KUNIT_EXPECT_LE(test, m->count, cap);
	m->buf[min(m->count, cap)] = '\0';
	return m->buf;
}

/*
 * Decode @size bytes of @buf with @fmt, from a copy of exactly @size bytes
 * (KASAN sees any read past it), and show the result.
 */
static void td_run(struct kunit *test, struct td_res *r, const void *buf,
		   size_t size, enum snaptrace_tfmt fmt)
{
	u8 *copy = kunit_kmalloc(test, size ?: 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	if (size)
		memcpy(copy, buf, size);
	KUNIT_ASSERT_EQ(test, snaptrace_trace_decode(copy, size, fmt, &r->dec), 0);
	td_expect_sane(test, &r->dec, size);
	if (fmt != SNAPTRACE_TFMT_AUTO)
		KUNIT_EXPECT_EQ(test, r->dec.fmt, fmt);
	r->copy = copy;
	r->out = td_show(test, copy, &r->dec);
}

/* The spans, exactly. */
static void td_expect_spans(struct kunit *test, const struct snaptrace_tdec *d,
			    u32 o0, u32 l0, u32 o1, u32 l1)
{
	KUNIT_EXPECT_EQ(test, d->span[0].off, o0);
	KUNIT_EXPECT_EQ(test, d->span[0].len, l0);
	KUNIT_EXPECT_EQ(test, d->span[1].off, o1);
	KUNIT_EXPECT_EQ(test, d->span[1].len, l1);
}

/* The lost lines, exactly. */
static void td_expect_lost(struct kunit *test, const struct snaptrace_tdec *d,
			   bool known, u64 n)
{
	KUNIT_EXPECT_EQ(test, d->lost_known, known);
	KUNIT_EXPECT_EQ(test, d->lost_lines, n);
}

#define TD_UNKNOWN "[snaptrace: wrapped, lines lost unknown]\n"

/* Zephyr lines @from to @to - 1 as shown ("\r\n" printed as "\n"). */
static char *td_zlines(struct kunit *test, unsigned int from, unsigned int to)
{
	char *s = kunit_kzalloc(test, (to - from) * TD_ZLINE + 1, GFP_KERNEL);
	size_t n = 0;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (; from < to; from++)
		n += sprintf(s + n, "[00:00:00.%03u,000] line %03u\n", from, from);
	return s;
}

/* libmetal records @from to @to - 1 ("%u L7 ping\r\n") as shown. */
static char *td_lmlines(struct kunit *test, const char *head, unsigned int from,
			unsigned int to, bool ticks)
{
	char *s = kunit_kzalloc(test, strlen(head) + (to - from) * 24 + 1,
				GFP_KERNEL);
	size_t n;

	KUNIT_ASSERT_NOT_NULL(test, s);
	n = sprintf(s, "%s", head);
	for (; from < to; from++) {
		if (ticks)
			n += sprintf(s + n, "%u ", 1000 + 10 * from);
		n += sprintf(s + n, "%u L7 ping\n", from);
		cond_resched();
	}
	return s;
}

/* @a then @b, in one string freed with the test. */
static char *td_cat(struct kunit *test, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = kunit_kzalloc(test, la + lb + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	return s;
}

/* ---- a writer's buffer, decoded: one table ---- */

/* How a case writes its buffer. */
enum td_writer {
	TD_W_BYTES,	/* @text in @size bytes, zeroes after it */
	TD_W_ZLINES,	/* Zephyr, td_zline() lines */
	TD_W_ZTICKS,	/* Zephyr, "[%08u] ttN\r\n", 16 bytes */
	TD_W_ZSECS,	/* Zephyr, "[%5u.%06u] sN\n", 18 bytes */
	TD_W_ZHELLO,	/* Zephyr, "Hello World! N\r\n", 16 bytes */
	TD_W_ZTEXT,	/* Zephyr, td_zputs(@text) */
	TD_W_RCON32,	/* Zephyr's RAM console header, a 32-bit remote's */
	TD_W_RCON64,	/* the same, a 64-bit remote's */
	TD_W_LM,	/* libmetal, "N L7 ping\r\n" records */
	TD_W_LM_TICKS,	/* libmetal's FreeRTOS variant, ticks 1000 + 10 N */
	TD_W_LM_CNTS,	/* libmetal, records counting @cnts, the last @text */
	TD_W_ST,	/* STM32Cube, td_st_lines() */
	TD_W_STTEXT,	/* STM32Cube, td_st_puts(@text) */
};

/*
 * One buffer written by @writer, decoded once: the writer's SIZE (len,
 * SYSTEM_TRACE_BUF_SZ) @size, lines or records 0 to @lines - 1 (or @text,
 * or @lines records counting @cnts),
 * where it is after them, @pos; @tlen bytes decoded as @fmt. What the
 * decoder must say: everything, exactly. What show() prints: @out, or
 * when NULL @head then the writer's lines @from to @lines - 1.
 */
struct td_case {
	const char *desc;
	enum td_writer writer;
	u32 size;
	unsigned int lines;
	const char *text;
	const u32 *cnts;
	u32 rc_pos;	/* a RAM console's pos before the lines */
	u32 rc_bs;	/* if not 0, the buf_size its header says */
	u32 pos;
	u32 tlen;
	enum snaptrace_tfmt fmt, want;
	bool wrapped;
	u32 span[4];	/* span[0].off, .len, span[1].off, .len */
	bool lost_known;
	u64 lost;
	const char *out;
	const char *head;
	unsigned int from;
};

/* Counters of libmetal records: some skipped, or going round. */
static const u32 td_cnt_gaps[] = { 0, 1, 5, 6 };
static const u32 td_cnt_gaps_wrapped[] = { 0, 1, 2, 3, 6, 7, 8 };
static const u32 td_cnt_cut[] = { 10, 11, 12, 13, 14 };
static const u32 td_cnt_wrap[] = {
	U32_MAX - 4, U32_MAX - 3, U32_MAX - 2, U32_MAX - 1, U32_MAX, 0, 1, 2,
};

static const struct td_case td_cases[] = {
	/* ---- plain, full ---- */
	{
		.desc = "plain text",
		.writer = TD_W_BYTES, .size = 16, .text = "hello\nworld\n",
		.pos = 12, .tlen = 16,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 12, 0, 0 }, .lost_known = true,
		.out = "hello\nworld\n",
	},
	/* No convention recognised: upstream's reading, the whole buffer. */
	{
		.desc = "full without a NUL",
		.writer = TD_W_BYTES, .size = 16, .text = "0123456789abcdef",
		.pos = 16, .tlen = 16,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 16, 0, 0 }, .lost_known = true,
		.out = "0123456789abcdef\n",
	},
	/* The same with a trailing NUL (a Zephyr console's extra byte). */
	{
		.desc = "full, then a NUL",
		.writer = TD_W_BYTES, .size = 17, .text = "0123456789abcdef",
		.pos = 16, .tlen = 17,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 16, 0, 0 }, .lost_known = true,
		.out = "0123456789abcdef\n",
	},
	/* One byte. */
	{
		.desc = "full, one byte",
		.writer = TD_W_BYTES, .size = 1, .text = "x",
		.pos = 1, .tlen = 1,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 1, 0, 0 }, .lost_known = true,
		.out = "x\n",
	},

	/* ---- Zephyr ---- */

	/* Three lines, 87 bytes, then the zeroes of .bss. */
	{
		.desc = "zephyr, unwrapped",
		.writer = TD_W_ZLINES, .size = 128, .lines = 3,
		.pos = 87, .tlen = 129,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.span = { 0, 87, 0, 0 }, .lost_known = true,
		.head = "", .from = 0,
	},
	/* printk() only, no timestamps: the banner tells it is Zephyr. */
	{
		.desc = "zephyr, unwrapped, a banner",
		.writer = TD_W_ZTEXT, .size = 128,
		.text = "*** Booting Zephyr OS build v3.6.0 ***\r\n"
			"Hello World! stm32mp157c_dk2\r\n",
		.pos = 70, .tlen = 129,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.span = { 0, 70, 0, 0 }, .lost_known = true,
		.out = "*** Booting Zephyr OS build v3.6.0 ***\nHello World! stm32mp157c_dk2\n",
	},
	/*
	 * Wrapped once, inside a line; trace len SIZE (Zephyr's own resource
	 * table). SIZE 128, lines 0-5 (stream 0-174): pos 46. Buffer [0, 46) =
	 * stream [128, 174): the tail of line 4 (from its byte 12), line 5 at
	 * 17. [46, 128) = stream [46, 128): the tail of line 1 (from its byte
	 * 17, at 46-57), lines 2 and 3 at 58 and 87, the head of line 4 at
	 * 116. Oldest: line 2 (the smallest timestamp, after line 5's); the
	 * tail of line 1 before it has no timestamp: dropped. Spans [58, 128)
	 * and [0, 46).
	 */
	{
		.desc = "zephyr, wrapped in a line",
		.writer = TD_W_ZLINES, .size = 128, .lines = 6,
		.pos = 46, .tlen = 128,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 58, 70, 0, 46 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 2,
	},
	/*
	 * Wrapped at a line boundary, trace len SIZE + 1 (as the
	 * stm32mp157c-dk2 image's len 0x401, a 1 KiB console and its NUL).
	 * SIZE 116 (4 lines), lines 0-5 (174 bytes): pos 58. [0, 58) = lines
	 * 4, 5; [58, 116) = lines 2, 3; byte 116 NUL. Oldest: line 2; the line
	 * before it (5) has a timestamp.
	 */
	{
		.desc = "zephyr, wrapped at a line boundary",
		.writer = TD_W_ZLINES, .size = 116, .lines = 6,
		.pos = 58, .tlen = 117,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 58, 58, 0, 58 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 2,
	},
	/* Lines 0-7 (232 bytes) into 116: pos 0, the oldest line at 0. */
	{
		.desc = "zephyr, wrapped at the buffer's start",
		.writer = TD_W_ZLINES, .size = 116, .lines = 8,
		.pos = 0, .tlen = 117,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 0, 116, 0, 0 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 4,
	},
	/*
	 * Wrapped many times: SIZE 128, lines 0-99 (2900 bytes): pos 2900 %
	 * 128 = 84; the buffer holds stream [2772, 2900), stream s at (s -
	 * 2772 + 84) % 128. Line k starts at 29k: line 95 (2755) is cut, its
	 * tail [2772, 2784) at 84-95; line 96 (2784) at 96; line 97 (2813) at
	 * 125, across the end; lines 98, 99 at 26, 55, up to 84.
	 */
	{
		.desc = "zephyr, wrapped many times",
		.writer = TD_W_ZLINES, .size = 128, .lines = 100,
		.pos = 84, .tlen = 129,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 96, 32, 0, 84 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 96,
	},
	/*
	 * Zephyr's other timestamps: "[%08lu] " ticks, "[%5lu.%06d] " seconds.
	 * SIZE 64, lines of 16 bytes ("[00000100] tt0\r\n"): lines 0-5 (96),
	 * pos 32: [0, 32) lines 4, 5, [32, 64) lines 2, 3.
	 */
	{
		.desc = "zephyr, ticks timestamps",
		.writer = TD_W_ZTICKS, .size = 64, .lines = 6,
		.pos = 32, .tlen = 64,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 32, 32, 0, 32 }, .lost_known = false,
		.out = TD_UNKNOWN
		       "[00000102] tt2\n[00000103] tt3\n[00000104] tt4\n[00000105] tt5\n",
	},
	/*
	 * SIZE 72, lines of 18 bytes ("[    0.000000] s0\n"): lines 0-5 (108),
	 * pos 36: [0, 36) lines 4, 5, [36, 72) lines 2, 3.
	 */
	{
		.desc = "zephyr, seconds timestamps",
		.writer = TD_W_ZSECS, .size = 72, .lines = 6,
		.pos = 36, .tlen = 73,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 36, 36, 0, 36 }, .lost_known = false,
		.out = TD_UNKNOWN
		       "[    2.000000] s2\n[    3.000000] s3\n"
		       "[    4.000000] s4\n[    5.000000] s5\n",
	},
	/*
	 * No timestamps: nothing finds the oldest line. "Hello World! 0\r\n"
	 * is 16 bytes: 5 of them, pos 16. Detected: PLAIN, the whole region
	 * as upstream shows it.
	 */
	{
		.desc = "zephyr without timestamps, detected",
		.writer = TD_W_ZHELLO, .size = 32, .lines = 5,
		.pos = 16, .tlen = 33,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 32, 0, 0 }, .lost_known = true,
		.out = "Hello World! 4\nHello World! 3\n",
	},
	/* Forced: wrapped, from offset 0, lost unknown. */
	{
		.desc = "zephyr without timestamps, forced",
		.writer = TD_W_ZHELLO, .size = 32, .lines = 5,
		.pos = 16, .tlen = 33,
		.fmt = SNAPTRACE_TFMT_ZEPHYR, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 0, 32, 0, 0 }, .lost_known = false,
		.out = TD_UNKNOWN "Hello World! 4\nHello World! 3\n",
	},

	/*
	 * A RAM console header (td_rcon_init()): SIZE 152: buf_size 87 (3
	 * lines). Lines 0, 1: [64, 122), not wrapped.
	 */
	{
		.desc = "zephyr header, unwrapped",
		.writer = TD_W_RCON32, .size = 152, .lines = 2,
		.pos = 58, .tlen = 152,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.span = { 64, 58, 0, 0 }, .lost_known = true,
		.head = "", .from = 0,
	},
	{
		.desc = "zephyr header lp64, unwrapped",
		.writer = TD_W_RCON64, .size = 152, .lines = 2,
		.pos = 58, .tlen = 152,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.span = { 64, 58, 0, 0 }, .lost_known = true,
		.head = "", .from = 0,
	},
	/*
	 * Lines 0-4 (145): pos % 87 = 58, at a line boundary: line 2 at 64 +
	 * 58, lines 3, 4 at 64, 93.
	 */
	{
		.desc = "zephyr header, wrapped at a line boundary",
		.writer = TD_W_RCON32, .size = 152, .lines = 5,
		.pos = 145, .tlen = 152,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 122, 29, 64, 58 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 2,
	},
	{
		.desc = "zephyr header lp64, wrapped at a line boundary",
		.writer = TD_W_RCON64, .size = 152, .lines = 5,
		.pos = 145, .tlen = 152,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 122, 29, 64, 58 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 2,
	},
	/*
	 * SIZE 165: buf_size 100; lines 0-4: pos % 100 = 45, inside line 1
	 * ("0] line 001\r\n", dropped): line 2 at 64 + 58.
	 */
	{
		.desc = "zephyr header, wrapped in a line",
		.writer = TD_W_RCON32, .size = 165, .lines = 5,
		.pos = 145, .tlen = 165,
		.fmt = SNAPTRACE_TFMT_ZEPHYR, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 122, 42, 64, 45 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 2,
	},
	{
		.desc = "zephyr header lp64, wrapped in a line",
		.writer = TD_W_RCON64, .size = 165, .lines = 5,
		.pos = 145, .tlen = 165,
		.fmt = SNAPTRACE_TFMT_ZEPHYR, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 122, 42, 64, 45 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 2,
	},
	/* Another convention forced: the flag, up to its NUL. */
	{
		.desc = "zephyr header, forced plain",
		.writer = TD_W_RCON32, .size = 165, .lines = 5,
		.pos = 145, .tlen = 165,
		.fmt = SNAPTRACE_TFMT_PLAIN, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 11, 0, 0 }, .lost_known = true,
		.out = "RAM_CONSOLE\n",
	},
	{
		.desc = "zephyr header lp64, forced plain",
		.writer = TD_W_RCON64, .size = 165, .lines = 5,
		.pos = 145, .tlen = 165,
		.fmt = SNAPTRACE_TFMT_PLAIN, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 11, 0, 0 }, .lost_known = true,
		.out = "RAM_CONSOLE\n",
	},
	/* A buf_size larger than the buffer: no header, plain. */
	{
		.desc = "zephyr header, buf_size too large",
		.writer = TD_W_RCON32, .size = 152, .rc_bs = 152 - 64 + 1,
		.pos = 0, .tlen = 152,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 11, 0, 0 }, .lost_known = true,
		.out = "RAM_CONSOLE\n",
	},
	/*
	 * The header's pos after 2^32 characters: upstream's ram_console_out()
	 * sets it to (0xFFFFFFFF % buf_size) + 1 when it wraps to 0, so it is
	 * no longer above buf_size though the text went round (NXP's first
	 * version of the header kept pos % buf_size all along: the same
	 * bytes). SIZE 152, buf_size 87, U32_MAX % 87 = 15: from pos
	 * 0xFFFFFFFF - 15 - 87 (a multiple of 87, index 0), lines 0-4 (145
	 * characters) lay the buffer out as in "zephyr header, wrapped at a
	 * line boundary"; 103 characters reach the overflow, 42 more: pos 58.
	 */
	{
		.desc = "zephyr header, pos past 2^32",
		.writer = TD_W_RCON32, .size = 152, .lines = 5,
		.rc_pos = U32_MAX - 15 - 87,
		.pos = 58, .tlen = 152,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_ZEPHYR,
		.wrapped = true, .span = { 122, 29, 64, 58 }, .lost_known = false,
		.head = TD_UNKNOWN, .from = 2,
	},

	/* ---- libmetal ---- */

	/* Records 0-4, "N L7 ping\r\n": 11 bytes each, 55 in all. */
	{
		.desc = "libmetal, unwrapped",
		.writer = TD_W_LM, .size = 128, .lines = 5,
		.pos = 55, .tlen = 128,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.span = { 0, 55, 0, 0 }, .lost_known = true,
		.head = "", .from = 0,
	},
	/*
	 * Wrapped once, inside a record: len 64, records 0-6 (77 bytes), pos
	 * 13. [0, 13) = stream [64, 77): the end of record 5 ("\r\n"), record
	 * 6 at 2. [13, 64) = stream [13, 64): record 1 from its byte 2 ("L7
	 * ping\r\n", no header), records 2, 3, 4 at 22, 33, 44, record 5's
	 * head at 55. Newest: 6 at 2, ending at 13; oldest: 2 at 22. Records
	 * 0 and 1 lost.
	 */
	{
		.desc = "libmetal, wrapped in a record",
		.writer = TD_W_LM, .size = 64, .lines = 7,
		.pos = 13, .tlen = 64,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true, .span = { 22, 42, 0, 13 },
		.lost_known = true, .lost = 2,
		.head = "[snaptrace: wrapped, 2 lines lost]\n", .from = 2,
	},
	/*
	 * At a record boundary: len 55 (5 records), records 0-6 (77 bytes):
	 * pos 22. [0, 22) = records 5, 6; [22, 55) = records 2, 3, 4.
	 */
	{
		.desc = "libmetal, wrapped at a record boundary",
		.writer = TD_W_LM, .size = 55, .lines = 7,
		.pos = 22, .tlen = 55,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true, .span = { 22, 33, 0, 22 },
		.lost_known = true, .lost = 2,
		.head = "[snaptrace: wrapped, 2 lines lost]\n", .from = 2,
	},
	/*
	 * Wrapped many times: len 100, records 0-199: 0-9 take 11 bytes
	 * (110), 10-99 12 (1080, up to 1190), 100-199 13 (up to 2490). pos
	 * 2490 % 100 = 90; the buffer holds stream [2390, 2490) at (s - 2390
	 * + 90) % 100. Record 192 (2386) is cut; 193 (2399) at 99, its header
	 * across the end; 199 ends at 2490, offset 90. Records 0-192 lost.
	 */
	{
		.desc = "libmetal, wrapped many times",
		.writer = TD_W_LM, .size = 100, .lines = 200,
		.pos = 90, .tlen = 100,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true, .span = { 99, 1, 0, 90 },
		.lost_known = true, .lost = 193,
		.head = "[snaptrace: wrapped, 193 lines lost]\n", .from = 193,
	},
	/*
	 * The FreeRTOS variant, "%u %u L%u " (ticks first): records of 16
	 * bytes ("1000 0 L7 ping\r\n", ticks 1000 + 10 N). len 64, records
	 * 0-5 (96): pos 32, at a boundary: [0, 32) records 4, 5, [32, 64)
	 * records 2, 3.
	 */
	{
		.desc = "libmetal ticks, wrapped at a record boundary",
		.writer = TD_W_LM_TICKS, .size = 64, .lines = 6,
		.pos = 32, .tlen = 64,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true, .span = { 32, 32, 0, 32 },
		.lost_known = true, .lost = 2,
		.head = "[snaptrace: wrapped, 2 lines lost]\n", .from = 2,
	},
	/*
	 * len 60, records 0-6 (112): pos 52: [0, 4) the end of record 3,
	 * records 4, 5, 6 at 4, 20, 36; [52, 60) record 3's bytes 4-11, " 3 L7
	 * pi": its header without the ticks, counting 3, and 4 follows: record
	 * 3 is shown from there.
	 */
	{
		.desc = "libmetal ticks, wrapped in the ticks",
		.writer = TD_W_LM_TICKS, .size = 60, .lines = 7,
		.pos = 52, .tlen = 60,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true, .span = { 53, 7, 0, 52 },
		.lost_known = true, .lost = 3,
		.head = "[snaptrace: wrapped, 3 lines lost]\n3 L7 ping\n", .from = 4,
	},
	/* Unwrapped. */
	{
		.desc = "libmetal ticks, unwrapped",
		.writer = TD_W_LM_TICKS, .size = 64, .lines = 2,
		.pos = 32, .tlen = 64,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.span = { 0, 32, 0, 0 }, .lost_known = true,
		.head = "", .from = 0,
	},

	/*
	 * Counters the records shown skip: unwrapped, records 0, 1, then 5, 6
	 * (three counted but never written).
	 */
	{
		.desc = "libmetal, counters skipped",
		.writer = TD_W_LM_CNTS, .size = 128,
		.cnts = td_cnt_gaps, .lines = ARRAY_SIZE(td_cnt_gaps),
		.pos = 44, .tlen = 128,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.span = { 0, 44, 0, 0 }, .lost_known = true, .lost = 3,
		.out = "0 L7 ping\n1 L7 ping\n5 L7 ping\n6 L7 ping\n",
	},
	/*
	 * Wrapped, as the row "libmetal, wrapped in a record" but with
	 * counters 0-3 then 6-8: shown 2, 3, 6, 7, 8: lost 0, 1, 4, 5.
	 */
	{
		.desc = "libmetal, counters skipped, wrapped",
		.writer = TD_W_LM_CNTS, .size = 64,
		.cnts = td_cnt_gaps_wrapped, .lines = ARRAY_SIZE(td_cnt_gaps_wrapped),
		.pos = 13, .tlen = 64,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true, .span = { 22, 42, 0, 13 },
		.lost_known = true, .lost = 4,
		.out = "[snaptrace: wrapped, 4 lines lost]\n"
		       "2 L7 ping\n3 L7 ping\n6 L7 ping\n7 L7 ping\n8 L7 ping\n",
	},
	/*
	 * c_cnt is a uint32_t: "%u" goes from 4294967295 to 0. len 100;
	 * records 4294967291-4294967295 ("429496729N L7 ping\r\n", 20 bytes)
	 * fill it, records 0-2 (11 bytes) overwrite [0, 33): [33, 40) is what
	 * is left of 4294967292, 4294967293 at 40 is the oldest, 2 the newest.
	 * Lost: the oldest counter, nothing skipped (4294967295 to 0 is one
	 * step).
	 */
	{
		.desc = "libmetal, the counter goes round",
		.writer = TD_W_LM_CNTS, .size = 100,
		.cnts = td_cnt_wrap, .lines = ARRAY_SIZE(td_cnt_wrap),
		.pos = 33, .tlen = 100,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true, .span = { 40, 60, 0, 33 },
		.lost_known = true, .lost = 4294967293ULL,
		.out = "[snaptrace: wrapped, 4294967293 lines lost]\n"
		       "4294967293 L7 ping\n4294967294 L7 ping\n"
		       "4294967295 L7 ping\n0 L7 ping\n1 L7 ping\n"
		       "2 L7 ping\n",
	},
	/*
	 * The writer stopped inside an old header's digits. len 48, records
	 * 10-13 ("1N L7 ping\r\n", 12 bytes) fill it; record 14, "14 L7
	 * pingg\r\n" (13 bytes), overwrites [0, 13): [13, 24) is "1 L7
	 * ping\r\n", what is left of record 11, a header counting 1. The
	 * header after it counts 12, not 2: it is a cut record, and 12 (at 24)
	 * is the oldest. 0-11 lost.
	 */
	{
		.desc = "libmetal, stopped in a header",
		.writer = TD_W_LM_CNTS, .size = 48,
		.cnts = td_cnt_cut, .lines = ARRAY_SIZE(td_cnt_cut),
		.text = "pingg\r\n",
		.pos = 13, .tlen = 48,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true, .span = { 24, 24, 0, 13 },
		.lost_known = true, .lost = 12,
		.out = "[snaptrace: wrapped, 12 lines lost]\n"
		       "12 L7 ping\n13 L7 ping\n14 L7 pingg\n",
	},

	/* ---- STM32Cube ---- */

	/* Read as plain text: nothing tells the two apart, nor needs to. */
	{
		.desc = "stm32cube, unwrapped, detected",
		.writer = TD_W_ST, .size = 64, .lines = 2,
		.pos = 14, .tlen = 64,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 14, 0, 0 }, .lost_known = true,
		.out = "line-0\nline-1\n",
	},
	{
		.desc = "stm32cube, unwrapped, forced",
		.writer = TD_W_ST, .size = 64, .lines = 2,
		.pos = 14, .tlen = 64,
		.fmt = SNAPTRACE_TFMT_STM32CUBE, .want = SNAPTRACE_TFMT_STM32CUBE,
		.span = { 0, 14, 0, 0 }, .lost_known = true,
		.out = "line-0\nline-1\n",
	},
	/*
	 * Wrapped once inside a line: SYSTEM_TRACE_BUF_SZ 32, 31 characters a
	 * lap (the last byte stays NUL). Lines 0-5 (42 characters): stream [0,
	 * 31) at 0-30, then [31, 42) at 0-10 ("e-4\n" then line 5), NUL at 11.
	 * [12, 31) = stream [12, 31): "1\n" (line 1's end, dropped), lines 2, 3
	 * at 14, 21, the head of line 4 at 28.
	 */
	{
		.desc = "stm32cube, wrapped in a line",
		.writer = TD_W_ST, .size = 32, .lines = 6,
		.pos = 11, .tlen = 32,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_STM32CUBE,
		.wrapped = true, .span = { 14, 17, 0, 11 }, .lost_known = false,
		.out = TD_UNKNOWN "line-2\nline-3\nline-4\nline-5\n",
	},
	/* Upstream's reading, forced: the newest text only. */
	{
		.desc = "stm32cube, wrapped in a line, forced plain",
		.writer = TD_W_ST, .size = 32, .lines = 6,
		.pos = 11, .tlen = 32,
		.fmt = SNAPTRACE_TFMT_PLAIN, .want = SNAPTRACE_TFMT_PLAIN,
		.span = { 0, 11, 0, 0 }, .lost_known = true,
		.out = "e-4\nline-5\n",
	},
	/*
	 * Wrapped at a line boundary: SZ 29, 28 characters a lap = lines 0-3.
	 * Lines 0-5: lines 4, 5 at 0-13, NUL at 14; [15, 28) = "ine-2\n"
	 * (cut, dropped) and line 3 at 21, which ends at the end of the text.
	 */
	{
		.desc = "stm32cube, wrapped at a line boundary",
		.writer = TD_W_ST, .size = 29, .lines = 6,
		.pos = 14, .tlen = 29,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_STM32CUBE,
		.wrapped = true, .span = { 21, 7, 0, 14 }, .lost_known = false,
		.out = TD_UNKNOWN "line-3\nline-4\nline-5\n",
	},
	/*
	 * Many times: SZ 29, lines 0-29 (210 characters = 7 laps of 28, then
	 * 14): lines 28, 29 at 0-13, NUL at 14, the end of line 26 at 15-20
	 * (dropped), line 27 at 21.
	 */
	{
		.desc = "stm32cube, wrapped many times",
		.writer = TD_W_ST, .size = 29, .lines = 30,
		.pos = 14, .tlen = 29,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_STM32CUBE,
		.wrapped = true, .span = { 21, 7, 0, 14 }, .lost_known = false,
		.out = TD_UNKNOWN "line-7\nline-8\nline-9\n",
	},
	/*
	 * The cut line runs on into the newest text: SZ 16, 15 characters a
	 * lap. "abcdefghijklmnopq\nrs": "abcdefghijklmno" at 0-14, then
	 * "pq\nrs" at 0-4, NUL at 5 ('f' lost), "ghijklmno" at 6-14. The first
	 * newline is in the newest text: only "rs", at 3, is whole.
	 */
	{
		.desc = "stm32cube, the cut line runs into the newest",
		.writer = TD_W_STTEXT, .size = 16, .text = "abcdefghijklmnopq\nrs",
		.pos = 5, .tlen = 16,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_STM32CUBE,
		.wrapped = true, .span = { 3, 2, 0, 0 }, .lost_known = false,
		.out = TD_UNKNOWN "rs\n",
	},
	/*
	 * No newline at all: all of it, oldest first. "abcdefghijklmnopqrs":
	 * "abcdefghijklmno" at 0-14, then "pqrs" at 0-3, NUL at 4.
	 */
	{
		.desc = "stm32cube, wrapped without a newline",
		.writer = TD_W_STTEXT, .size = 16, .text = "abcdefghijklmnopqrs",
		.pos = 4, .tlen = 16,
		.fmt = SNAPTRACE_TFMT_AUTO, .want = SNAPTRACE_TFMT_STM32CUBE,
		.wrapped = true, .span = { 5, 10, 0, 4 }, .lost_known = false,
		.out = TD_UNKNOWN "fghijklmnopqrs\n",
	},
};

static void td_case_desc(const struct td_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(td_case, td_cases, td_case_desc);

/* Zephyr line @i of @c's writer, "\r\n" (or "\n") included. */
static void td_zline_of(const struct td_case *c, unsigned int i, char *line,
			size_t n)
{
	switch (c->writer) {
	case TD_W_ZTICKS:
		snprintf(line, n, "[%08u] tt%u\r\n", 100 + i, i);
		break;
	case TD_W_ZSECS:
		snprintf(line, n, "[%5u.%06u] s%u\n", i, 0, i);
		break;
	case TD_W_ZHELLO:
		snprintf(line, n, "Hello World! %u\r\n", i);
		break;
	default:
		snprintf(line, n, "[00:00:00.%03u,000] line %03u\r\n", i, i);
		break;
	}
}

/* Writes @c's buffer (at least @c->tlen bytes); *@pos: where its writer is. */
static u8 *td_write(struct kunit *test, const struct td_case *c, u32 *pos)
{
	struct td_rcon rc;
	struct td_zcon z;
	struct td_lm l;
	struct td_st s;
	char line[64];
	unsigned int i;
	u8 *buf;

	switch (c->writer) {
	case TD_W_BYTES:
		buf = kunit_kzalloc(test, c->size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		*pos = min_t(size_t, strlen(c->text), c->size);
		memcpy(buf, c->text, *pos);
		return buf;
	case TD_W_ZLINES:
	case TD_W_ZTICKS:
	case TD_W_ZSECS:
	case TD_W_ZHELLO:
	case TD_W_ZTEXT:
		buf = td_zcon_init(test, &z, c->size);
		if (c->writer == TD_W_ZTEXT)
			td_zputs(&z, c->text);
		for (i = 0; i < c->lines; i++) {
			td_zline_of(c, i, line, sizeof(line));
			td_zputs(&z, line);
		}
		*pos = z.pos;
		return buf;
	case TD_W_RCON32:
	case TD_W_RCON64:
		buf = td_rcon_init(test, &rc, c->size, c->writer == TD_W_RCON64);
		if (c->rc_bs)
			td_put32(buf + (c->writer == TD_W_RCON64 ? 24 : 16), c->rc_bs);
		rc.pos = c->rc_pos;
		/* From index 0 of the text. */
		KUNIT_ASSERT_EQ(test, rc.pos % rc.bs, 0U);
		td_rcon_lines(&rc, 0, c->lines);
		*pos = rc.pos;
		return buf;
	case TD_W_LM:
	case TD_W_LM_TICKS:
		buf = td_lm_init(test, &l, c->size);
		l.ticks = c->writer == TD_W_LM_TICKS;
		for (l.tick = 1000; l.cnt < c->lines; l.tick += 10)
			td_lm_log(&l, 7, "ping\r\n");
		*pos = l.pos;
		return buf;
	case TD_W_LM_CNTS:
		buf = td_lm_init(test, &l, c->size);
		for (i = 0; i < c->lines; i++) {
			l.cnt = c->cnts[i];
			td_lm_log(&l, 7, i == c->lines - 1 && c->text ?
				  c->text : "ping\r\n");
		}
		*pos = l.pos;
		return buf;
	case TD_W_ST:
	case TD_W_STTEXT:
		buf = td_st_init(test, &s, c->size);
		if (c->writer == TD_W_STTEXT)
			td_st_puts(&s, c->text);
		td_st_lines(&s, 0, c->lines);
		*pos = s.offset;
		return buf;
	}
	KUNIT_FAIL_AND_ABORT(test, "writer %d", c->writer);
	return NULL;
}

/* What show() must print of @c. */
static const char *td_case_out(struct kunit *test, const struct td_case *c)
{
	if (c->out)
		return c->out;
	switch (c->writer) {
	case TD_W_LM:
	case TD_W_LM_TICKS:
		return td_lmlines(test, c->head, c->from, c->lines,
				  c->writer == TD_W_LM_TICKS);
	default:
		return td_cat(test, c->head, td_zlines(test, c->from, c->lines));
	}
}

static void decode(struct kunit *test)
{
	const struct td_case *c = test->param_value;
	struct td_res r;
	u32 pos;
	u8 *buf = td_write(test, c, &pos);

	KUNIT_ASSERT_EQ(test, pos, c->pos);
	td_run(test, &r, buf, c->tlen, c->fmt);
	KUNIT_EXPECT_EQ(test, r.dec.fmt, c->want);
	KUNIT_EXPECT_EQ(test, r.dec.wrapped, c->wrapped);
	td_expect_spans(test, &r.dec, c->span[0], c->span[1], c->span[2],
			c->span[3]);
	td_expect_lost(test, &r.dec, c->lost_known, c->lost);
	KUNIT_EXPECT_STREQ(test, r.out, td_case_out(test, c));
}

/* ---- empty ---- */

static void empty_buffers(struct kunit *test)
{
	static const u8 zeros[16];
	struct snaptrace_tdec dec;
	struct td_res r;

	/* No buffer at all. */
	KUNIT_ASSERT_EQ(test, snaptrace_trace_decode(NULL, 0, SNAPTRACE_TFMT_AUTO,
						     &dec), 0);
	KUNIT_EXPECT_EQ(test, dec.fmt, SNAPTRACE_TFMT_PLAIN);
	KUNIT_EXPECT_FALSE(test, dec.wrapped);
	td_expect_spans(test, &dec, 0, 0, 0, 0);
	KUNIT_EXPECT_STREQ(test, td_show(test, NULL, &dec), "");
	KUNIT_ASSERT_EQ(test, snaptrace_trace_decode(NULL, 0, SNAPTRACE_TFMT_ZEPHYR,
						     &dec), 0);
	KUNIT_EXPECT_EQ(test, dec.fmt, SNAPTRACE_TFMT_ZEPHYR);
	KUNIT_EXPECT_FALSE(test, dec.wrapped);
	td_expect_spans(test, &dec, 0, 0, 0, 0);

	/* All NUL: every convention reads nothing, none wrapped. */
	for (dec.fmt = SNAPTRACE_TFMT_AUTO; dec.fmt < SNAPTRACE_TFMT_NR; dec.fmt++) {
		td_run(test, &r, zeros, sizeof(zeros), dec.fmt);
		KUNIT_EXPECT_FALSE(test, r.dec.wrapped);
		td_expect_spans(test, &r.dec, 0, 0, 0, 0);
		KUNIT_EXPECT_STREQ(test, r.out, "");
	}
	td_run(test, &r, zeros, sizeof(zeros), SNAPTRACE_TFMT_AUTO);
	KUNIT_EXPECT_EQ(test, r.dec.fmt, SNAPTRACE_TFMT_PLAIN);

	/* One byte, NUL. */
	td_run(test, &r, zeros, 1, SNAPTRACE_TFMT_AUTO);
	td_expect_spans(test, &r.dec, 0, 0, 0, 0);
	KUNIT_EXPECT_STREQ(test, r.out, "");
}

/* ---- the largest trace a remote may declare ---- */

/* The spans of the text from stream offset @from to @total, in @len bytes. */
static void td_expect_tail(struct kunit *test, const struct snaptrace_tdec *d,
			   u32 len, u64 from, u64 total)
{
	u32 o, e;

	div_u64_rem(from, len, &o);
	div_u64_rem(total, len, &e);
	if (o < e)
		td_expect_spans(test, d, o, e - o, 0, 0);
	else
		td_expect_spans(test, d, o, len - o, 0, e);
}

/*
 * SNAPTRACE_RPROC_TRACE_MAX (256 KiB) written round several times: a Zephyr
 * console since 2024 (pos % (SIZE - 1), 29-byte lines), and a libmetal log
 * (records of 11 to 14 bytes). The oldest whole line is the first one that
 * starts in the last lap; the text runs from it to the end of the stream.
 */
/* Lines for large buffers, 31 bytes: "[00:mm:ss.mmm,000] line nnnnn\r\n". */
#define TD_ZBIG 31

static void td_zbig(char *line, size_t n, u32 i, const char *eol)
{
	snprintf(line, n, "[00:%02u:%02u.%03u,000] line %05u%s", i / 60000,
		 i / 1000 % 60, i % 1000, i, eol);
}

static void largest_traces(struct kunit *test)
{
	const u32 len = SZ_256K, lines = 3 * SZ_256K / TD_ZBIG;
	u64 total, first, start;
	struct td_zcon z;
	struct td_lm l;
	struct td_res r;
	char rec[40], *want;
	size_t n;
	u32 i;
	u8 *buf;

	buf = td_zcon_init(test, &z, len - 1);
	/*
	 * Hundreds of thousands of formatted lines: slow under KCSAN and
	 * TCG, so the loops let others run (no soft lockup on a kernel
	 * without preemption).
	 */
	for (i = 0; i < lines; i++) {
		td_zbig(rec, sizeof(rec), i, "\r\n");
		td_zputs(&z, rec);
		cond_resched();
	}
	total = (u64)lines * TD_ZBIG;
	first = DIV_ROUND_UP_ULL(total - (len - 1), TD_ZBIG);
	td_run(test, &r, buf, len, SNAPTRACE_TFMT_AUTO);
	KUNIT_EXPECT_EQ(test, r.dec.fmt, SNAPTRACE_TFMT_ZEPHYR);
	KUNIT_EXPECT_TRUE(test, r.dec.wrapped);
	td_expect_tail(test, &r.dec, len - 1, first * TD_ZBIG, total);
	want = kunit_kzalloc(test, sizeof(TD_UNKNOWN) + (lines - first) * TD_ZBIG,
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	n = sprintf(want, "%s", TD_UNKNOWN);
	for (i = first; i < lines; i++) {
		td_zbig(want + n, TD_ZBIG, i, "\n");
		n += TD_ZBIG - 1;
		cond_resched();
	}
	KUNIT_EXPECT_STREQ(test, r.out, want);

	buf = td_lm_init(test, &l, len);
	total = 0;
	for (i = 0; total < 3ULL * len; i++) {
		td_lm_log(&l, 7, "ping\r\n");
		total += snprintf(rec, sizeof(rec), "%u L7 ping\r\n", i);
		cond_resched();
	}
	/* The first record starting at or after total - len. */
	for (start = 0, first = 0; start < total - len; first++) {
		start += snprintf(rec, sizeof(rec), "%llu L7 ping\r\n", first);
		cond_resched();
	}
	td_run(test, &r, buf, len, SNAPTRACE_TFMT_AUTO);
	KUNIT_EXPECT_EQ(test, r.dec.fmt, SNAPTRACE_TFMT_LIBMETAL);
	KUNIT_EXPECT_TRUE(test, r.dec.wrapped);
	td_expect_tail(test, &r.dec, len, start, total);
	td_expect_lost(test, &r.dec, true, first);
	snprintf(rec, sizeof(rec), "[snaptrace: wrapped, %llu lines lost]\n", first);
	KUNIT_EXPECT_STREQ(test, r.out,
			   td_lmlines(test, rec, first, i, false));
}

/* ---- a convention forced on a buffer it did not write ---- */

static void forced_mismatch(struct kunit *test)
{
	static const char text[16] = "hello\nworld\n";
	struct td_zcon z;
	struct td_lm l;
	struct td_st s;
	struct td_res r;
	unsigned int i;
	u8 *buf;

	/* Linear text: every convention reads [0, first NUL), not wrapped. */
	for (i = SNAPTRACE_TFMT_PLAIN; i < SNAPTRACE_TFMT_NR; i++) {
		td_run(test, &r, text, sizeof(text), i);
		KUNIT_EXPECT_FALSE(test, r.dec.wrapped);
		td_expect_spans(test, &r.dec, 0, 12, 0, 0);
		td_expect_lost(test, &r.dec, true, 0);
		KUNIT_EXPECT_STREQ(test, r.out, "hello\nworld\n");
	}

	/* LIBMETAL on a wrapped Zephyr console: no header, from offset 0. */
	buf = td_zcon_init(test, &z, 128);
	for (i = 0; i < 6; i++)
		td_zline(&z, i);
	td_run(test, &r, buf, 128, SNAPTRACE_TFMT_LIBMETAL);
	KUNIT_EXPECT_TRUE(test, r.dec.wrapped);
	td_expect_spans(test, &r.dec, 0, 128, 0, 0);
	td_expect_lost(test, &r.dec, false, 0);
	/* STM32CUBE on it: its writer leaves a NUL, so linear, all of it. */
	td_run(test, &r, buf, 128, SNAPTRACE_TFMT_STM32CUBE);
	KUNIT_EXPECT_FALSE(test, r.dec.wrapped);
	td_expect_spans(test, &r.dec, 0, 128, 0, 0);
	/* PLAIN: upstream's reading. */
	td_run(test, &r, buf, 128, SNAPTRACE_TFMT_PLAIN);
	KUNIT_EXPECT_FALSE(test, r.dec.wrapped);
	td_expect_spans(test, &r.dec, 0, 128, 0, 0);

	/* ZEPHYR on a wrapped libmetal log: no timestamp, from offset 0. */
	buf = td_lm_init(test, &l, 64);
	for (i = 0; i < 7; i++)
		td_lm_log(&l, 7, "ping\r\n");
	td_run(test, &r, buf, 64, SNAPTRACE_TFMT_ZEPHYR);
	KUNIT_EXPECT_TRUE(test, r.dec.wrapped);
	td_expect_spans(test, &r.dec, 0, 64, 0, 0);
	td_expect_lost(test, &r.dec, false, 0);

	/* ZEPHYR and LIBMETAL on a wrapped STM32Cube log: linear. */
	buf = td_st_init(test, &s, 32);
	td_st_lines(&s, 0, 6);
	td_run(test, &r, buf, 32, SNAPTRACE_TFMT_ZEPHYR);
	KUNIT_EXPECT_FALSE(test, r.dec.wrapped);
	td_expect_spans(test, &r.dec, 0, 11, 0, 0);
	td_run(test, &r, buf, 32, SNAPTRACE_TFMT_LIBMETAL);
	KUNIT_EXPECT_FALSE(test, r.dec.wrapped);
	td_expect_spans(test, &r.dec, 0, 11, 0, 0);
	td_expect_lost(test, &r.dec, true, 0);
}

/* ---- detection ---- */

struct td_detect_case {
	const char *desc;
	/* Writes the buffer; returns the trace's len. */
	u32 (*write)(struct kunit *test, u8 **buf);
	enum snaptrace_tfmt want;
	bool wrapped;
};

static u32 td_w_plain(struct kunit *test, u8 **buf)
{
	*buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *buf);
	strscpy(*buf, "boot ok\nrunning\n", 64);
	return 64;
}

static u32 td_w_zephyr(struct kunit *test, u8 **buf)
{
	struct td_zcon z;
	unsigned int i;

	*buf = td_zcon_init(test, &z, 1024);
	td_zputs(&z, "*** Booting Zephyr OS build v3.6.0 ***\r\n");
	for (i = 0; i < 100; i++)
		td_zline(&z, i);
	return 1025;	/* as the stm32mp157c-dk2 image's 0x401 */
}

static u32 td_w_zephyr_linear(struct kunit *test, u8 **buf)
{
	struct td_zcon z;

	*buf = td_zcon_init(test, &z, 1024);
	td_zline(&z, 0);
	return 1025;
}

/* The simulated remotes' own lines: "[%08u]" alone does not say Zephyr. */
static u32 td_w_ticks_linear(struct kunit *test, u8 **buf)
{
	*buf = kunit_kzalloc(test, 128, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *buf);
	strscpy(*buf, "[00000000] 12.345678 snaptrace-rproc0: hello from the remote\n",
		128);
	return 128;
}

/* Zephyr since 2024: pos % (SIZE - 1) in SIZE bytes, trace len SIZE. */
static u32 td_w_zephyr_new(struct kunit *test, u8 **buf)
{
	struct td_zcon z;
	unsigned int i;

	*buf = td_zcon_init(test, &z, 255);
	for (i = 0; i < 50; i++)
		td_zline(&z, i);
	return 256;
}

static u32 td_w_libmetal(struct kunit *test, u8 **buf)
{
	struct td_lm l;
	unsigned int i;

	*buf = td_lm_init(test, &l, 1024);
	for (i = 0; i < 500; i++)
		td_lm_log(&l, i % 8, "remote: message\r\n");
	return 1024;
}

static u32 td_w_libmetal_linear(struct kunit *test, u8 **buf)
{
	struct td_lm l;

	*buf = td_lm_init(test, &l, 1024);
	td_lm_log(&l, 6, "c_buf,c_len = 0x3ed20000,16384\r\n");
	return 1024;
}

static u32 td_w_stm32(struct kunit *test, u8 **buf)
{
	struct td_st s;

	*buf = td_st_init(test, &s, 2048);
	td_st_lines(&s, 0, 400);
	return 2048;
}

static const struct td_detect_case td_detect_cases[] = {
	{ "plain text", td_w_plain, SNAPTRACE_TFMT_PLAIN, false },
	{ "zephyr, wrapped", td_w_zephyr, SNAPTRACE_TFMT_ZEPHYR, true },
	{ "zephyr, one line", td_w_zephyr_linear, SNAPTRACE_TFMT_ZEPHYR, false },
	{ "zephyr since 2024, wrapped", td_w_zephyr_new, SNAPTRACE_TFMT_ZEPHYR,
	  true },
	{ "ticks timestamps, one line", td_w_ticks_linear, SNAPTRACE_TFMT_PLAIN,
	  false },
	{ "libmetal, wrapped", td_w_libmetal, SNAPTRACE_TFMT_LIBMETAL, true },
	{ "libmetal, one record", td_w_libmetal_linear, SNAPTRACE_TFMT_LIBMETAL,
	  false },
	{ "stm32cube, wrapped", td_w_stm32, SNAPTRACE_TFMT_STM32CUBE, true },
};

static void td_detect_desc(const struct td_detect_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(td_detect, td_detect_cases, td_detect_desc);

static void detection(struct kunit *test)
{
	const struct td_detect_case *c = test->param_value;
	struct td_res r;
	u8 *buf;
	u32 len = c->write(test, &buf);

	td_run(test, &r, buf, len, SNAPTRACE_TFMT_AUTO);
	KUNIT_EXPECT_EQ(test, r.dec.fmt, c->want);
	KUNIT_EXPECT_EQ(test, r.dec.wrapped, c->wrapped);
	/* Forcing the convention detected gives the same. */
	td_run(test, &r, buf, len, c->want);
	KUNIT_EXPECT_EQ(test, r.dec.wrapped, c->wrapped);
}

/* ---- show() ---- */

static void show_escapes(struct kunit *test)
{
	static const char text[] = "a\x1b[31mred\x1b[0m\tb\r\nc\rd\x9b\\\x01\n";
	struct td_res r;

	/*
	 * ESC, tab, a lone CR, C1 CSI (0x9b) and ^A escaped as %pE would;
	 * "\r\n" printed as a newline; a backslash (printable) as is.
	 */
	td_run(test, &r, text, sizeof(text), SNAPTRACE_TFMT_PLAIN);
	KUNIT_EXPECT_STREQ(test, r.out,
			   "a\\e[31mred\\e[0m\\tb\nc\\rd\\233\\\\001\n");
}

static void show_headers(struct kunit *test)
{
	static const char text[] = "abc\r\ndef";
	struct snaptrace_tdec dec = {
		.fmt = SNAPTRACE_TFMT_LIBMETAL,
		.wrapped = true,
		.size = sizeof(text) - 1,
		.lost_known = true,
	};

	/* The newer text first in memory: span[0] is after span[1]. */
	dec.span[0].off = 5;
	dec.span[0].len = 3;
	dec.span[1].off = 0;
	dec.span[1].len = 5;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec),
			   "[snaptrace: wrapped, 0 lines lost]\ndefabc\n");
	dec.lost_lines = 1;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec),
			   "[snaptrace: wrapped, 1 line lost]\ndefabc\n");
	dec.lost_lines = 12;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec),
			   "[snaptrace: wrapped, 12 lines lost]\ndefabc\n");
	dec.lost_known = false;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec),
			   TD_UNKNOWN "defabc\n");

	/* "\r" ending span[0], "\n" starting span[1]. */
	dec.span[0].off = 0;
	dec.span[0].len = 4;
	dec.span[1].off = 4;
	dec.span[1].len = 4;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec),
			   TD_UNKNOWN "abc\ndef\n");

	/* Not wrapped, text ending in a newline: nothing added. */
	dec.wrapped = false;
	dec.span[0].len = 5;
	dec.span[1].len = 0;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec), "abc\n");

	/* Spans past the buffer are clipped to it (KASAN checks the reads). */
	dec.wrapped = true;
	dec.span[0].off = 6;
	dec.span[0].len = U32_MAX;
	dec.span[1].off = U32_MAX;
	dec.span[1].len = U32_MAX;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec), TD_UNKNOWN "ef\n");
	dec.span[0].off = 0;
	dec.span[0].len = 0;
	dec.span[1].off = 0;
	dec.span[1].len = 0;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec), TD_UNKNOWN);
}

/*
 * The remote's text cannot pass for the decoder's own header line: a line
 * that starts with "[snaptrace:" has its '[' escaped (octal, as %pE), at
 * the start of the text, after a newline, and across the two spans.
 */
static void show_no_fake_header(struct kunit *test)
{
	static const char fake[] = "[snaptrace: wrapped, 0 lines lost]\nok\n"
				   "x [snaptrace: no\n[snaptrace: wrapped\n";
	static const char text[] = "ace: b\n[snaptr";
	struct snaptrace_tdec dec = {
		.fmt = SNAPTRACE_TFMT_PLAIN,
		.wrapped = true,
		.size = sizeof(text) - 1,
	};
	struct td_res r;

	td_run(test, &r, fake, sizeof(fake), SNAPTRACE_TFMT_PLAIN);
	KUNIT_EXPECT_FALSE(test, r.dec.wrapped);
	KUNIT_EXPECT_STREQ(test, r.out,
			   "\\133snaptrace: wrapped, 0 lines lost]\nok\n"
			   "x [snaptrace: no\n\\133snaptrace: wrapped\n");

	/* "[snaptr" ends span[0], "ace: b\n" starts span[1]. */
	dec.span[0].off = 7;
	dec.span[0].len = 7;
	dec.span[1].off = 0;
	dec.span[1].len = 7;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec),
			   TD_UNKNOWN "\\133snaptrace: b\n");
	/* Not at a line start: as is. */
	dec.span[0].off = 8;
	dec.span[0].len = 6;
	KUNIT_EXPECT_STREQ(test, td_show(test, text, &dec),
			   TD_UNKNOWN "snaptrace: b\n");
}

/* ---- names, errors ---- */

static void names(struct kunit *test)
{
	static const char *const want[] = {
		"auto", "plain", "zephyr", "libmetal", "stm32cube",
	};
	static const char *const bad[] = {
		"", "auto\n", "Zephyr", "plain ", " plain", "stm32", "libmetal0",
		"none",
	};
	enum snaptrace_tfmt fmt;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(want), (size_t)SNAPTRACE_TFMT_NR);
	for (i = 0; i < SNAPTRACE_TFMT_NR; i++) {
		KUNIT_EXPECT_STREQ(test, snaptrace_tfmt_name(i), want[i]);
		fmt = SNAPTRACE_TFMT_NR;
		KUNIT_EXPECT_EQ(test, snaptrace_tfmt_parse(want[i], &fmt), 0);
		KUNIT_EXPECT_EQ(test, fmt, (enum snaptrace_tfmt)i);
	}
	KUNIT_EXPECT_STREQ(test, snaptrace_tfmt_name(SNAPTRACE_TFMT_NR), "unknown");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		fmt = SNAPTRACE_TFMT_ZEPHYR;
		KUNIT_EXPECT_EQ(test, snaptrace_tfmt_parse(bad[i], &fmt), -EINVAL);
		KUNIT_EXPECT_EQ(test, fmt, SNAPTRACE_TFMT_ZEPHYR);
	}
	KUNIT_EXPECT_EQ(test, snaptrace_tfmt_parse(NULL, &fmt), -EINVAL);
}

static void bad_arguments(struct kunit *test)
{
	static const char text[] = "abc";
	struct snaptrace_tdec dec;

	KUNIT_EXPECT_EQ(test, snaptrace_trace_decode(text, 4, SNAPTRACE_TFMT_NR,
						     &dec), -EINVAL);
	KUNIT_EXPECT_EQ(test, dec.fmt, SNAPTRACE_TFMT_PLAIN);
	KUNIT_EXPECT_FALSE(test, dec.wrapped);
	td_expect_spans(test, &dec, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, snaptrace_trace_decode(NULL, 4, SNAPTRACE_TFMT_AUTO,
						     &dec), -EINVAL);
	KUNIT_EXPECT_EQ(test, snaptrace_trace_decode(text, 4, SNAPTRACE_TFMT_AUTO,
						     NULL), -EINVAL);
#if BITS_PER_LONG == 64
	KUNIT_EXPECT_EQ(test, snaptrace_trace_decode(text, (size_t)U32_MAX + 1,
						     SNAPTRACE_TFMT_AUTO, &dec),
			-EINVAL);
#endif
}

/* ---- garbage ---- */

/* xorshift32: the same bytes on every kernel and every run. */
static u32 td_rand(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

#define TD_FUZZ_ROUNDS	600
#define TD_FUZZ_MAX	300

/*
 * Random buffers from an alphabet the parsers look for (digits, " L",
 * brackets, separators, newlines, NUL) and any byte, some behind a RAM
 * console header; then real logs with bytes flipped. Every convention, and
 * detection: the spans lie in the buffer, apart, and show() fills no more
 * than its bound.
 */
static void garbage(struct kunit *test)
{
	static const char alpha[] = "0123456789 L7[]:.,\n\r\0\0xyz";
	u32 seed = 0x5eed1234, size, i, k, len;
	struct td_res r;
	u8 *buf, *src;
	unsigned int f;

	buf = kunit_kzalloc(test, TD_FUZZ_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < TD_FUZZ_ROUNDS; i++) {
		size = td_rand(&seed) % TD_FUZZ_MAX;
		for (k = 0; k < size; k++) {
			u32 x = td_rand(&seed);

			buf[k] = x & 0x100 ? (u8)x :
				 alpha[(x >> 9) % (sizeof(alpha) - 1)];
		}
		/* Sometimes a NUL at the end, or none at all. */
		if (size && (i & 3) == 1)
			buf[size - 1] = 0;
		if ((i & 3) == 2)
			for (k = 0; k < size; k++)
				if (!buf[k])
					buf[k] = '\n';
		/* A RAM console header with a buf_size that fits, any pos. */
		if ((i & 7) == 3 && size > 64) {
			memcpy(buf, "RAM_CONSOLE", 12);
			td_put32(buf + 16, 1 + td_rand(&seed) % (size - 64));
			td_put32(buf + 20, td_rand(&seed));
		}
		for (f = SNAPTRACE_TFMT_AUTO; f < SNAPTRACE_TFMT_NR; f++)
			td_run(test, &r, buf, size, f);
	}

	/* Real logs, mutated. */
	for (i = 0; i < 60; i++) {
		switch (i % 3) {
		case 0:
			len = td_w_zephyr(test, &src);
			break;
		case 1:
			len = td_w_libmetal(test, &src);
			break;
		default:
			len = td_w_stm32(test, &src);
			break;
		}
		for (k = 0; k < 1 + i; k++) {
			u32 x = td_rand(&seed);

			src[x % len] = alpha[(x >> 16) % (sizeof(alpha) - 1)];
		}
		for (f = SNAPTRACE_TFMT_AUTO; f < SNAPTRACE_TFMT_NR; f++)
			td_run(test, &r, src, len, f);
	}
}

static struct kunit_case snaptrace_trace_decode_cases[] = {
	KUNIT_CASE_PARAM(decode, td_case_gen_params),
	KUNIT_CASE(empty_buffers),
	KUNIT_CASE_SLOW(largest_traces),
	KUNIT_CASE(forced_mismatch),
	KUNIT_CASE_PARAM(detection, td_detect_gen_params),
	KUNIT_CASE(show_escapes),
	KUNIT_CASE(show_headers),
	KUNIT_CASE(show_no_fake_header),
	KUNIT_CASE(names),
	KUNIT_CASE(bad_arguments),
	KUNIT_CASE_SLOW(garbage),
	{}
};

static struct kunit_suite snaptrace_trace_decode_suite = {
	.name = "snaptrace_trace_decode",
	.test_cases = snaptrace_trace_decode_cases,
};

kunit_test_suites(&snaptrace_trace_decode_suite);
