/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace commands written to files: one parser for every file that
 * takes a value or a command (src/cmd.c).
 */
#ifndef _SNAPTRACE_CMD_H
#define _SNAPTRACE_CMD_H

#include <linux/compiler.h>
#include <linux/types.h>

struct file;
struct snaptrace_why;

/* Most bytes a command may have (a firmware name's), without its NUL. */
#define SNAPTRACE_CMD_MAX	128
/* Most words a command is split into. */
#define SNAPTRACE_CMD_WORDS_MAX	4

/**
 * struct snaptrace_cmd - a command written to a file, and its words
 * @filp: the file written to: its path is the error_log location
 * @cnt: bytes written
 * @argc: the words found by snaptrace_cmd_words(), or 1 after a number
 *	was parsed (the whole command)
 * @argv: the words, NUL-terminated, in @words
 * @pos: each word's byte offset in @buf, where error_log puts its caret
 * @buf: what was written, at most the limit of snaptrace_cmd_get(),
 *	NUL-terminated; shown as is in error_log
 * @words: a copy of @buf cut into @argv
 *
 * On the caller's stack: parsing a command never allocates.
 */
struct snaptrace_cmd {
	const struct file *filp;
	size_t cnt;
	unsigned int argc;
	char *argv[SNAPTRACE_CMD_WORDS_MAX];
	unsigned int pos[SNAPTRACE_CMD_WORDS_MAX];
	char buf[SNAPTRACE_CMD_MAX + 1];
	char words[SNAPTRACE_CMD_MAX + 1];
};

int snaptrace_cmd_get(struct snaptrace_cmd *cmd, const struct file *filp,
		      const char __user *ubuf, size_t cnt, loff_t pos,
		      size_t max);
int snaptrace_cmd_set(struct snaptrace_cmd *cmd, const struct file *filp,
		      const char *text, size_t cnt, loff_t pos, size_t max);
int snaptrace_cmd_words(struct snaptrace_cmd *cmd, unsigned int max);
int snaptrace_cmd_number(struct snaptrace_cmd *cmd, unsigned int base,
			 unsigned long long max, const char *bad,
			 unsigned long long *val);
int snaptrace_cmd_no_nul(struct snaptrace_cmd *cmd, const char *msg);
void snaptrace_cmd_err_at(const struct snaptrace_cmd *cmd, unsigned int pos,
			  const char *msg);
void snaptrace_cmd_err(const struct snaptrace_cmd *cmd, unsigned int word,
		       const char *msg);
void snaptrace_cmd_failed(const struct snaptrace_cmd *cmd,
			  const struct snaptrace_why *why, const char *what,
			  int err);

#endif /* _SNAPTRACE_CMD_H */
