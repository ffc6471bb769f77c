/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the files of snaptrace.ko, and with its KUnit
 * tests (exported only when CONFIG_KUNIT is set, into the
 * EXPORTED_FOR_KUNIT_TESTING namespace).
 */
#ifndef _SNAPTRACE_INTERNAL_H
#define _SNAPTRACE_INTERNAL_H

#include <linux/types.h>

#include <snaptrace/snaptrace.h>

struct dentry;
struct file;
struct seq_buf;
struct snaptrace_buffer;
struct snaptrace_instance;
struct snaptrace_record;
struct snaptrace_trace_fs;

/* Most names the instances= module parameter takes. */
#define SNAPTRACE_INSTANCES_PARAM_MAX 8

/* debugfs.c */
struct dentry *snaptrace_debugfs_create(const char *name);
void snaptrace_debugfs_destroy(struct dentry *root);

/* format.c */
int snaptrace_format_record(const struct snaptrace_record *rec,
			    struct seq_buf *s);

/* error_log.c */
void snaptrace_log_file_err(const struct file *filp, const char *cmd,
			    unsigned int err_pos, const char *msg);
unsigned int snaptrace_err_pos(const char *cmd, const char *str);
void snaptrace_error_log_clear(void);
int snaptrace_error_log_create(struct dentry *parent);

/* instance.c */
bool snaptrace_instance_tryget(struct snaptrace_instance *inst);
void snaptrace_instance_put(struct snaptrace_instance *inst);
int snaptrace_instances_init(struct dentry *root, size_t size_per_cpu,
			     enum snaptrace_mode mode);
void snaptrace_instances_exit(void);
struct snaptrace_buffer *snaptrace_default_buffer(void);

/* ring.c */
int snaptrace_write_type(struct snaptrace_buffer *buf, u16 type,
			 const void *data, size_t len);
void snaptrace_record_disable(struct snaptrace_buffer *buf);
void snaptrace_record_enable(struct snaptrace_buffer *buf);

/* trace_fs.c */
struct snaptrace_trace_fs *snaptrace_trace_fs_create(struct dentry *parent,
						     struct snaptrace_buffer *buf,
						     struct snaptrace_instance *inst);
void snaptrace_trace_fs_destroy(struct snaptrace_trace_fs *fs);

#endif /* _SNAPTRACE_INTERNAL_H */
