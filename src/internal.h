/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the files of snaptrace.ko, and with its KUnit
 * tests (exported only when CONFIG_KUNIT is set, into the
 * EXPORTED_FOR_KUNIT_TESTING namespace).
 */
#ifndef _SNAPTRACE_INTERNAL_H
#define _SNAPTRACE_INTERNAL_H

#include <linux/types.h>

struct dentry;
struct file;
struct seq_buf;
struct snaptrace_buffer;
struct snaptrace_record;
struct snaptrace_trace_fs;

/* debugfs.c */
struct dentry *snaptrace_debugfs_create(const char *name);
void snaptrace_debugfs_destroy(struct dentry *root);

/* error_log.c */
void snaptrace_log_file_err(const struct file *filp, const char *cmd,
			    unsigned int err_pos, const char *msg);
unsigned int snaptrace_err_pos(const char *cmd, const char *str);
void snaptrace_error_log_clear(void);
int snaptrace_error_log_create(struct dentry *parent);

/* format.c */
int snaptrace_format_record(const struct snaptrace_record *rec,
			    struct seq_buf *s);

/* trace_fs.c */
struct snaptrace_trace_fs *snaptrace_trace_fs_create(struct dentry *parent,
						     struct snaptrace_buffer *buf);
void snaptrace_trace_fs_destroy(struct snaptrace_trace_fs *fs);

#endif /* _SNAPTRACE_INTERNAL_H */
