// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace text formats: one line per record, as the debugfs files show
 * them, and the parsers of the words users write.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"

/*
 * A payload is shown as text if every byte is printable ASCII, a tab or a
 * newline. (The kernel's isprint() also accepts Latin-1 0xa0..0xff.)
 */
static bool st_is_text(const u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((p[i] < 0x20 || p[i] > 0x7e) && p[i] != '\t' && p[i] != '\n')
			return false;
	return true;
}

/*
 * A stack record (%SNAPTRACE_REC_STACK) as ftrace shows a kernel stack
 * trace: "<stack trace>", then " => symbol+off/len [module]" per address.
 * The whole stays within SNAPTRACE_LINE_MAX bytes: addresses that would not
 * fit become one " => ..." line.
 */
static void st_format_stack(const struct snaptrace_record *rec,
			    struct seq_buf *s, unsigned int start)
{
	static const char more[] = " => ...\n";
	const unsigned long *addr = (const unsigned long *)rec->data;
	size_t n = rec->len / sizeof(*addr), i;
	char sym[KSYM_SYMBOL_LEN];
	int len;

	seq_buf_printf(s, "<stack trace>\n");
	for (i = 0; i < n; i++) {
		len = snprintf(sym, sizeof(sym), "%pS", (void *)addr[i]);
		if (seq_buf_used(s) - start + sizeof(" => ") + len +
		    sizeof(more) - 1 > SNAPTRACE_LINE_MAX) {
			seq_buf_printf(s, "%s", more);
			return;
		}
		seq_buf_printf(s, " => %s\n", sym);
	}
}

/*
 * A piece of a longer text (%SNAPTRACE_REC_TEXT) as the text itself, up to
 * its first NUL, bytes other than printable ASCII, tabs and newlines shown
 * as '.', one byte for one: the pieces of a text read as the text. Where
 * the text ends (a NUL) without a newline, one is added, so that the next
 * record starts a line.
 */
static void st_format_text(const struct snaptrace_record *rec,
			   struct seq_buf *s)
{
	const u8 *nul = memchr(rec->data, 0, rec->len);
	size_t len = nul ? nul - rec->data : rec->len, i, n = 0;
	char chunk[64];
	u8 c;

	/* seq_buf_printf() only: Linux 6.1 exports no other seq_buf writer. */
	for (i = 0; i < len; i++) {
		c = rec->data[i];
		if ((c < 0x20 || c > 0x7e) && c != '\t' && c != '\n')
			c = '.';
		chunk[n++] = c;
		if (n == sizeof(chunk) || i + 1 == len) {
			seq_buf_printf(s, "%.*s", (int)n, chunk);
			n = 0;
		}
	}
	if (nul && (!len || rec->data[len - 1] != '\n'))
		seq_buf_printf(s, "\n");
}

/**
 * snaptrace_format_record() - one record as text
 * @rec: the record
 * @s: where the line goes; %SNAPTRACE_LINE_MAX bytes always suffice
 *
 * The line is ``[CPU] SECONDS.MICROSECONDS: PAYLOAD\n``, CPU in three
 * digits, as ftrace's ``trace`` file shows it. A text payload (printable
 * bytes, tabs, newlines) is shown as text, one trailing newline dropped and
 * the others shown as ``\n``, so such a record is one line; any other
 * payload as ``hex:`` and the bytes in hex. Two kinds are not one line. A
 * stack record (%SNAPTRACE_REC_STACK, from snaptrace_dump_stack()):
 * ``<stack trace>`` and then one `` => function+off/len`` line per return
 * address, as ftrace's trace file shows a kernel stack. A piece of text
 * (%SNAPTRACE_REC_TEXT, a remote's trace captured at a crash) is shown as
 * the text itself, without the line's head, so that its pieces read as the
 * trace did: lines that span two pieces, and a piece without a newline,
 * are shown as they are, and a newline is added where the text ends
 * (its first NUL) without one.
 *
 * Context: any. Never sleeps.
 * Return: 0, or -EOVERFLOW if @s was too small (it then holds a cut line).
 */
int snaptrace_format_record(const struct snaptrace_record *rec,
			    struct seq_buf *s)
{
	unsigned int start = seq_buf_used(s);
	u32 ns;
	u64 secs = div_u64_rem(rec->ts, NSEC_PER_SEC, &ns);
	size_t len = rec->len, i;

	if (rec->type == SNAPTRACE_REC_TEXT) {
		st_format_text(rec, s);
		return seq_buf_has_overflowed(s) ? -EOVERFLOW : 0;
	}
	seq_buf_printf(s, "[%03u] %5llu.%06u: ", rec->cpu, secs,
		       (u32)(ns / NSEC_PER_USEC));
	if (rec->type == SNAPTRACE_REC_STACK && len &&
	    len % sizeof(unsigned long) == 0) {
		st_format_stack(rec, s, start);
	} else if (st_is_text(rec->data, len)) {
		const char *p = rec->data, *nl;

		if (len && p[len - 1] == '\n')
			len--;
		/* seq_buf_printf() only: Linux 6.1 exports no other seq_buf writer. */
		while ((nl = memchr(p, '\n', len))) {
			seq_buf_printf(s, "%.*s\\n", (int)(nl - p), p);
			len -= nl + 1 - p;
			p = nl + 1;
		}
		seq_buf_printf(s, "%.*s\n", (int)len, p);
	} else {
		seq_buf_printf(s, "hex:");
		for (i = 0; i < len; i++)
			seq_buf_printf(s, " %02x", rec->data[i]);
		seq_buf_printf(s, "\n");
	}
	return seq_buf_has_overflowed(s) ? -EOVERFLOW : 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_format_record);

/**
 * snaptrace_seq_record() - one record as text, into a seq_file
 * @m: the seq_file of a ->show() call
 * @rec: the record
 *
 * snaptrace_format_record() into @m's buffer; if it does not fit, the
 * line is thrown away and seq_file calls ->show() again with a larger
 * buffer, as it does for any show that overflows.
 *
 * Context: process, from a seq_file ->show(). Never sleeps.
 */
void snaptrace_seq_record(struct seq_file *m, const struct snaptrace_record *rec)
{
	struct seq_buf s;
	size_t len;
	char *p;

	len = seq_get_buf(m, &p);
	seq_buf_init(&s, p, len);
	if (snaptrace_format_record(rec, &s) || !len)
		seq_commit(m, -1);	/* seq_file retries with a larger buffer */
	else
		seq_commit(m, seq_buf_used(&s));
}
