/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding a remote's trace buffer: the circular conventions real firmware
 * writes, shown oldest line first with a count of what wrapping lost, where
 * upstream's remoteproc_debugfs.c prints up to the first NUL.
 *
 * The decoder works on a private copy of the buffer (never memory the
 * remote can still write): it neither sleeps nor allocates; any context.
 */
#ifndef _SNAPTRACE_TRACE_DECODE_H
#define _SNAPTRACE_TRACE_DECODE_H

#include <linux/types.h>

struct seq_file;

/**
 * enum snaptrace_tfmt - a trace buffer's convention
 * @SNAPTRACE_TFMT_AUTO: detect it (only as a request; never a result)
 * @SNAPTRACE_TFMT_PLAIN: NUL-terminated text from offset 0, no wrap
 *	(upstream's reading)
 * @SNAPTRACE_TFMT_ZEPHYR: Zephyr's RAM console: circular, no NUL written
 *	after a wrap
 * @SNAPTRACE_TFMT_LIBMETAL: OpenAMP/libmetal's R5 logger, lines
 *	"cnt L<level> msg": circular, no NUL
 * @SNAPTRACE_TFMT_STM32CUBE: STM32Cube's OpenAMP log: circular, a NUL
 *	written after each character (the NUL marks the write position)
 * @SNAPTRACE_TFMT_NR: number of conventions
 */
enum snaptrace_tfmt {
	SNAPTRACE_TFMT_AUTO,
	SNAPTRACE_TFMT_PLAIN,
	SNAPTRACE_TFMT_ZEPHYR,
	SNAPTRACE_TFMT_LIBMETAL,
	SNAPTRACE_TFMT_STM32CUBE,
	SNAPTRACE_TFMT_NR,
};

/**
 * struct snaptrace_tdec - where a trace's text lies, oldest first
 * @fmt: the convention detected (or forced); never SNAPTRACE_TFMT_AUTO
 * @wrapped: the writer went round the buffer at least once
 * @span: the text, oldest first: bytes [off, off + len) of @span[0], then
 *	of @span[1] (len 0 when unused, and @span[0] used first); the NULs
 *	that end or mark the text and a line cut by the wrap are outside the
 *	spans. Always inside the buffer, whatever its bytes
 * @lost_lines: lines lost to wrapping, when @lost_known: 0 for a text that
 *	did not wrap; for libmetal, every record count missing from those
 *	shown (wrapped or not)
 * @lost_known: the convention tells how many lines were lost (libmetal's
 *	counters do; a wrapped Zephyr or STM32Cube console does not); true
 *	when the text did not wrap
 * @size: bytes of the buffer decoded: snaptrace_trace_show() clips the
 *	spans to it, so that it never reads outside the buffer
 */
struct snaptrace_tdec {
	enum snaptrace_tfmt fmt;
	bool wrapped;
	struct {
		u32 off;
		u32 len;
	} span[2];
	u64 lost_lines;
	bool lost_known;
	u32 size;
};

int snaptrace_trace_decode(const void *buf, size_t size,
			   enum snaptrace_tfmt fmt, struct snaptrace_tdec *dec);
void snaptrace_trace_show(struct seq_file *m, const void *buf,
			  const struct snaptrace_tdec *dec);
const char *snaptrace_tfmt_name(enum snaptrace_tfmt fmt);
int snaptrace_tfmt_parse(const char *name, enum snaptrace_tfmt *fmt);

#endif /* _SNAPTRACE_TRACE_DECODE_H */
