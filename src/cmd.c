// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace commands written to files: the one parser of every debugfs
 * file that takes a value or a command (trace_fs.c's control files, a
 * remote's firmware, state, crash and recovery, a followed remote's
 * trace_format, the ivshmem remote's watchdog_ms and command).
 *
 * A write is copied whole, at most a limit of bytes, into a struct
 * snaptrace_cmd on the caller's stack (never allocating, as
 * kstrtoul_from_user() does not); a write at an offset, an empty one or a
 * longer one is refused. What was written is then read one of two ways:
 *
 * - a number, as kstrto*() reads it (the whole write, one trailing newline
 *   allowed, no other whitespace), as ftrace's control files read theirs
 *   with kstrtoul_from_user();
 * - words, separated by whitespace, as trace_parse_run_command() and
 *   argv_split() cut ftrace's commands; the last word a file asks for
 *   takes the rest of the line, so a file of one word takes the whole
 *   write trimmed (strim()).
 *
 * Every refusal goes to error_log with the whole write as the command and
 * the caret under the part that is wrong (a word's offset, as ftrace's
 * err_pos()); a command understood but failed is logged by
 * snaptrace_cmd_failed(), with the reason the code below printed when it
 * printed one (snaptrace_why_start()).
 */
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "cmd.h"
#include "internal.h"

/* The checks of a write copied in @cmd->buf: @cnt bytes at offset @pos. */
static int st_cmd_check(struct snaptrace_cmd *cmd, loff_t pos, size_t max)
{
	if (pos != 0) {
		snaptrace_cmd_err_at(cmd, 0,
				     "write at an offset: write the whole value at once");
		return -EINVAL;
	}
	if (cmd->cnt == 0) {
		snaptrace_cmd_err_at(cmd, 0, "empty write");
		return -EINVAL;
	}
	if (cmd->cnt > max) {
		snaptrace_cmd_err_at(cmd, max, "too long");
		return -EINVAL;
	}
	return 0;
}

static void st_cmd_init(struct snaptrace_cmd *cmd, const struct file *filp,
			size_t cnt)
{
	cmd->filp = filp;
	cmd->cnt = cnt;
	cmd->argc = 0;
	cmd->buf[0] = '\0';
}

/**
 * snaptrace_cmd_get() - copy a command written to a file
 * @cmd: where it goes (on the caller's stack)
 * @filp: the file written to, for error_log's location
 * @ubuf: the user's buffer, as the file's ->write() got it
 * @cnt: its length
 * @pos: the offset written at (*ppos)
 * @max: most bytes taken, 1..%SNAPTRACE_CMD_MAX
 *
 * Copies at most @max bytes of @ubuf, NUL-terminated, and refuses a write
 * at an offset, an empty one and one longer than @max, logging each in
 * error_log with what was copied (the caret at the first byte, or, for a
 * write too long, just past the @max bytes shown). The file does not move
 * *ppos: each write() on an open file is a command of its own. Mirrors the
 * copy of kstrtoul_from_user() and of trace_parse_run_command() (which
 * takes a longer command in pieces, where ours are all short).
 *
 * Context: process context (a file's ->write()); may sleep (it faults the
 * user's pages in). Never allocates.
 * Return: 0; -EFAULT if @ubuf could not be read (not logged); -EINVAL,
 * logged, for a write at an offset, an empty one or one too long.
 */
int snaptrace_cmd_get(struct snaptrace_cmd *cmd, const struct file *filp,
		      const char __user *ubuf, size_t cnt, loff_t pos,
		      size_t max)
{
	size_t n;

	if (WARN_ON_ONCE(!max || max > SNAPTRACE_CMD_MAX))
		max = SNAPTRACE_CMD_MAX;
	st_cmd_init(cmd, filp, cnt);
	n = min(cnt, max);
	if (copy_from_user(cmd->buf, ubuf, n))
		return -EFAULT;
	cmd->buf[n] = '\0';
	return st_cmd_check(cmd, pos, max);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_cmd_get);

/**
 * snaptrace_cmd_set() - snaptrace_cmd_get() of a command in kernel memory
 * @cmd: where it goes
 * @filp: the file written to, for error_log's location
 * @text: the bytes written (@cnt of them; NULs included)
 * @cnt: how many
 * @pos: the offset written at
 * @max: most bytes taken, 1..%SNAPTRACE_CMD_MAX
 *
 * What snaptrace_cmd_get() does but the copy from user space: for callers
 * that hold the bytes already, and the KUnit tests.
 *
 * Context: any but NMI (an error is logged in error_log). Never sleeps.
 * Return: 0, or -EINVAL (logged) as snaptrace_cmd_get().
 */
int snaptrace_cmd_set(struct snaptrace_cmd *cmd, const struct file *filp,
		      const char *text, size_t cnt, loff_t pos, size_t max)
{
	size_t n;

	if (WARN_ON_ONCE(!max || max > SNAPTRACE_CMD_MAX))
		max = SNAPTRACE_CMD_MAX;
	st_cmd_init(cmd, filp, cnt);
	n = min(cnt, max);
	memcpy(cmd->buf, text, n);
	cmd->buf[n] = '\0';
	return st_cmd_check(cmd, pos, max);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_cmd_set);

/**
 * snaptrace_cmd_words() - cut a command into words
 * @cmd: a command snaptrace_cmd_get() took
 * @max: most words, 1..%SNAPTRACE_CMD_WORDS_MAX; the last takes the rest
 *	of the line, trimmed, whitespace inside included
 *
 * Words are separated by whitespace (isspace(): blanks, tabs, newlines);
 * whitespace before the first and after the last is dropped. With @max 1
 * the one word is the whole write trimmed, as strim() leaves it. The
 * command ends at its first NUL byte, as a C string does. Mirrors
 * argv_split() as trace_run_command() uses it, but in place, into
 * @cmd->argv (each word's offset in @cmd->pos, for error_log's caret).
 *
 * Context: any. Never sleeps, never allocates.
 * Return: the number of words, 1..@max; -EINVAL (logged: ``empty write``)
 * if there is none.
 */
int snaptrace_cmd_words(struct snaptrace_cmd *cmd, unsigned int max)
{
	char *p = cmd->words, *end;

	if (WARN_ON_ONCE(!max || max > SNAPTRACE_CMD_WORDS_MAX))
		max = SNAPTRACE_CMD_WORDS_MAX;
	strscpy(cmd->words, cmd->buf, sizeof(cmd->words));
	cmd->argc = 0;
	while (cmd->argc < max) {
		p = skip_spaces(p);
		if (!*p)
			break;
		cmd->argv[cmd->argc] = p;
		cmd->pos[cmd->argc] = p - cmd->words;
		cmd->argc++;
		if (cmd->argc == max) {
			strim(p);
			break;
		}
		for (end = p; *end && !isspace(*end); end++)
			;
		if (!*end)
			break;
		*end = '\0';
		p = end + 1;
	}
	if (!cmd->argc) {
		snaptrace_cmd_err_at(cmd, 0, "empty write");
		return -EINVAL;
	}
	return cmd->argc;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_cmd_words);

/**
 * snaptrace_cmd_number() - a command that is one number
 * @cmd: a command snaptrace_cmd_get() took
 * @base: as kstrtoull()'s: 10, or 0 to take 0x... and 0... too
 * @max: the largest value the file's type holds (UINT_MAX, ULONG_MAX)
 * @bad: error_log's message for a write that is not a number (NULL:
 *	``not a decimal number``)
 * @val: the number
 *
 * The whole write is the number, as kstrtoull() reads it: an optional
 * ``+``, digits, one trailing newline; nothing else, whitespace included.
 * A number that does not fit in @max is ``number too large`` (the caret
 * at its first byte); anything else is @bad, the caret at the first byte
 * that is not a decimal digit. On success the number is @cmd's one word,
 * so that snaptrace_cmd_err() points at it. Mirrors kstrtoul_from_user()
 * (and kstrtouint_from_user(), with @max UINT_MAX).
 *
 * Context: any but NMI. Never sleeps.
 * Return: 0; -EINVAL or -ERANGE, logged.
 */
int snaptrace_cmd_number(struct snaptrace_cmd *cmd, unsigned int base,
			 unsigned long long max, const char *bad,
			 unsigned long long *val)
{
	int ret = kstrtoull(cmd->buf, base, val);

	if (!ret && *val > max)
		ret = -ERANGE;
	if (ret == -ERANGE) {
		snaptrace_cmd_err_at(cmd, 0, "number too large");
		return ret;
	}
	if (ret) {
		snaptrace_cmd_err_at(cmd, strspn(cmd->buf, "0123456789"),
				     bad ?: "not a decimal number");
		return ret;
	}
	strscpy(cmd->words, cmd->buf, sizeof(cmd->words));
	cmd->argv[0] = cmd->words;
	cmd->pos[0] = 0;
	cmd->argc = 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_cmd_number);

/**
 * snaptrace_cmd_no_nul() - refuse a command with a NUL byte in it
 * @cmd: a command snaptrace_cmd_get() took
 * @msg: error_log's message
 *
 * The parser reads a command up to its first NUL, as kstrto*() and
 * strim() do; a file that must not take ``name\0junk`` as ``name`` calls
 * this first.
 *
 * Context: any but NMI. Never sleeps.
 * Return: 0, or -EINVAL (logged, the caret at the NUL).
 */
int snaptrace_cmd_no_nul(struct snaptrace_cmd *cmd, const char *msg)
{
	size_t n = strlen(cmd->buf);

	if (n == min_t(size_t, cmd->cnt, SNAPTRACE_CMD_MAX))
		return 0;
	snaptrace_cmd_err_at(cmd, n, msg);
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_cmd_no_nul);

/**
 * snaptrace_cmd_err_at() - log what is wrong with a command, at an offset
 * @cmd: the command
 * @pos: the byte of @cmd->buf the caret points at
 * @msg: what is wrong
 *
 * Logs @cmd->buf, all of what was written (up to the limit), as the
 * command. Mirrors tracing_log_err() with err_pos().
 *
 * Context: any but NMI. Never sleeps.
 */
void snaptrace_cmd_err_at(const struct snaptrace_cmd *cmd, unsigned int pos,
			  const char *msg)
{
	snaptrace_log_file_err(cmd->filp, cmd->buf, pos, msg);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_cmd_err_at);

/**
 * snaptrace_cmd_err() - log what is wrong with a word of a command
 * @cmd: the command, after snaptrace_cmd_words() or snaptrace_cmd_number()
 * @word: the word's index; past the last word the caret goes to the end
 *	(a word is missing)
 * @msg: what is wrong
 *
 * As snaptrace_cmd_err_at(), the caret under the word.
 *
 * Context: any but NMI. Never sleeps.
 */
void snaptrace_cmd_err(const struct snaptrace_cmd *cmd, unsigned int word,
		       const char *msg)
{
	unsigned int pos = word < cmd->argc ? cmd->pos[word] : strlen(cmd->buf);

	snaptrace_cmd_err_at(cmd, pos, msg);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_cmd_err);

/**
 * snaptrace_cmd_failed() - log a command that was understood but failed
 * @cmd: the command
 * @why: the catch it ran in (snaptrace_why_start()), or NULL
 * @what: names the command, for the fallback message
 * @err: the command's error
 *
 * Logs, the caret under the first word, the message @why caught (already
 * in the kernel log, so not printed again), or else ``WHAT failed:
 * -EXXX``. The one way every file logs a command that failed.
 *
 * Context: process context (a file's ->write()). Never sleeps.
 */
void snaptrace_cmd_failed(const struct snaptrace_cmd *cmd,
			  const struct snaptrace_why *why, const char *what,
			  int err)
{
	snaptrace_log_file_why(cmd->filp, cmd->buf, cmd->argc ? cmd->pos[0] : 0,
			       why, what, err);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_cmd_failed);
