// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace instances: named ring buffers, each with the top level's files
 * under instances/NAME/, and the recording switches of the default
 * instance (the top-level buffer). Mirrors trace_array_get_by_name(),
 * trace_array_put(), tracing_on()/_off()/_is_on() and
 * tracing_start()/_stop() of kernel/trace/trace.c.
 *
 * An instance lives while anyone holds a reference: each user of
 * snaptrace_get_by_name(), and each open file in its directory (so a
 * reader of instances/NAME/trace_pipe never sees its buffer freed). The
 * last reference removes the directory and frees the buffer. References go
 * to 0 only under st_inst_lock, so a listed instance is always alive.
 *
 * debugfs, unlike tracefs, has no mkdir/rmdir hooks: instances are made by
 * kernel code, and by the module parameter instances= (as ftrace's
 * trace_instance= boot parameter), not by mkdir in instances/.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"

/**
 * struct snaptrace_instance - a ring buffer with its debugfs files
 * @list: in st_insts (named instances only)
 * @ref: users of snaptrace_get_by_name() plus open files
 * @name: instances/@name/; "" for the default instance
 * @buf: the ring buffer
 * @dir: its directory (the module's root for the default instance)
 * @fs: its files
 * @stop_count: snaptrace_stop() calls not yet matched by snaptrace_start()
 */
struct snaptrace_instance {
	struct list_head list;
	refcount_t ref;
	char name[SNAPTRACE_INSTANCE_NAME_MAX + 1];
	struct snaptrace_buffer *buf;
	struct dentry *dir;
	struct snaptrace_trace_fs *fs;
	atomic_t stop_count;
};

static DEFINE_MUTEX(st_inst_lock);	/* st_insts; a ref going to 0 */
static LIST_HEAD(st_insts);
static struct dentry *st_inst_dir;	/* instances/ */
static size_t st_inst_size;		/* default bytes per CPU */
static struct snaptrace_instance st_default_inst;
/* &st_default_inst once set up, NULL before and after. */
static struct snaptrace_instance *st_default;

static struct snaptrace_instance *st_default_get(void)
{
	return READ_ONCE(st_default);
}

/**
 * snaptrace_default_buffer() - the default instance's buffer, no reference
 *
 * Context: any, NMI included.
 * Return: the top-level buffer, or NULL before the module is set up.
 */
struct snaptrace_buffer *snaptrace_default_buffer(void)
{
	struct snaptrace_instance *inst = st_default_get();

	return inst ? inst->buf : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_default_buffer);

static void st_instance_free(struct snaptrace_instance *inst)
{
	snaptrace_trace_fs_destroy(inst->fs);
	snaptrace_buffer_free(inst->buf);
	kfree(inst);
}

/**
 * snaptrace_instance_tryget() - take a reference for an open file
 * @inst: the instance; NULL (files of a bare buffer) always succeeds
 *
 * Context: any. Never sleeps.
 * Return: true, or false if @inst is being freed (the open must fail).
 */
bool snaptrace_instance_tryget(struct snaptrace_instance *inst)
{
	return !inst || refcount_inc_not_zero(&inst->ref);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_instance_tryget);

/**
 * snaptrace_instance_put() - drop a reference
 * @inst: the instance; NULL is ignored
 *
 * The last reference of a named instance removes instances/NAME/ (waiting
 * for file operations inside it) and frees its buffer.
 *
 * Context: process context, may sleep (only when it drops the last
 * reference). Takes st_inst_lock then.
 */
void snaptrace_instance_put(struct snaptrace_instance *inst)
{
	if (!inst)
		return;
	if (inst == &st_default_inst) {
		/* The module holds a reference until unload: never 0 here. */
		if (refcount_read(&inst->ref) > 1)
			refcount_dec(&inst->ref);
		else
			pr_err("unbalanced put of the default instance, ignored\n");
		return;
	}
	if (!refcount_dec_and_mutex_lock(&inst->ref, &st_inst_lock))
		return;
	list_del(&inst->list);
	/* Under the lock: a new instance of that name must not meet this dir. */
	debugfs_remove(inst->dir);
	mutex_unlock(&st_inst_lock);
	st_instance_free(inst);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_instance_put);

/*
 * A name is 1..SNAPTRACE_INSTANCE_NAME_MAX bytes of letters, digits, '_',
 * '-' and '.', not starting with '.': one path component, never "." or "..".
 */
static int st_name_check(const char *name)
{
	size_t len = strnlen(name, SNAPTRACE_INSTANCE_NAME_MAX + 1), i;

	if (len == 0) {
		pr_err("instance name is empty\n");
		return -EINVAL;
	}
	if (len > SNAPTRACE_INSTANCE_NAME_MAX) {
		pr_err("instance name %.*s...: longer than %d bytes\n",
		       SNAPTRACE_INSTANCE_NAME_MAX, name,
		       SNAPTRACE_INSTANCE_NAME_MAX);
		return -EINVAL;
	}
	if (name[0] == '.') {
		pr_err("instance name %s: must not start with '.'\n", name);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (!isalnum(name[i]) && name[i] != '_' && name[i] != '-' &&
		    name[i] != '.') {
			pr_err("instance name %s: byte %zu (0x%02x) is not a letter, digit, '_', '-' or '.'\n",
			       name, i, (u8)name[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static struct snaptrace_instance *st_lookup(const char *name)
{
	struct snaptrace_instance *inst;

	list_for_each_entry(inst, &st_insts, list)
		if (!strcmp(inst->name, name))
			return inst;
	return NULL;
}

/* Make instance @name, with room on @cpu only unless -1; st_inst_lock held. */
static struct snaptrace_instance *st_instance_create(const char *name,
						     size_t size_per_cpu,
						     int cpu)
{
	struct snaptrace_instance *inst;
	int ret;

	inst = kzalloc(sizeof(*inst), GFP_KERNEL);
	if (!inst)
		return ERR_PTR(-ENOMEM);
	strscpy(inst->name, name, sizeof(inst->name));
	refcount_set(&inst->ref, 1);
	atomic_set(&inst->stop_count, 0);
	if (cpu < 0)
		inst->buf = snaptrace_buffer_alloc(size_per_cpu,
						   SNAPTRACE_OVERWRITE);
	else
		inst->buf = snaptrace_buffer_alloc_cpu(size_per_cpu,
						       SNAPTRACE_OVERWRITE, cpu);
	if (IS_ERR(inst->buf)) {
		ret = PTR_ERR(inst->buf);
		pr_err("instance %s: cannot allocate its buffer (%zu bytes per CPU): %d\n",
		       name, size_per_cpu, ret);
		kfree(inst);
		return ERR_PTR(ret);
	}
	inst->dir = debugfs_create_dir(name, st_inst_dir);
	if (IS_ERR(inst->dir)) {
		ret = PTR_ERR(inst->dir);
		pr_err("instance %s: cannot create its directory: %d\n", name, ret);
		goto free_buf;
	}
	inst->fs = snaptrace_trace_fs_create(inst->dir, inst->buf, inst);
	if (IS_ERR(inst->fs)) {
		ret = PTR_ERR(inst->fs);
		debugfs_remove(inst->dir);
		goto free_buf;
	}
	list_add_tail(&inst->list, &st_insts);
	return inst;

free_buf:
	snaptrace_buffer_free(inst->buf);
	kfree(inst);
	return ERR_PTR(ret);
}

static struct snaptrace_buffer *st_get_by_name(const char *name,
					       size_t size_per_cpu, int cpu)
{
	struct snaptrace_instance *inst;
	int ret;

	might_sleep();
	if (!name) {
		inst = st_default_get();
		if (!inst || !refcount_inc_not_zero(&inst->ref))
			return ERR_PTR(-ENODEV);
		return inst->buf;
	}
	ret = st_name_check(name);
	if (ret)
		return ERR_PTR(ret);

	mutex_lock(&st_inst_lock);
	if (!st_inst_dir) {
		inst = ERR_PTR(-ENODEV);
		goto out;
	}
	inst = st_lookup(name);
	if (inst) {
		refcount_inc(&inst->ref);
		goto out;
	}
	inst = st_instance_create(name, size_per_cpu ?: st_inst_size, cpu);
out:
	mutex_unlock(&st_inst_lock);
	return IS_ERR(inst) ? ERR_CAST(inst) : inst->buf;
}

/**
 * snaptrace_get_by_name() - look up or create a named instance
 * @name: the instance: 1..%SNAPTRACE_INSTANCE_NAME_MAX letters, digits,
 *	``_``, ``-`` or ``.``, not starting with ``.``; NULL for the default
 *	instance (the top-level buffer)
 * @size_per_cpu: bytes per CPU of a new instance's buffer, rounded as by
 *	snaptrace_buffer_alloc(); 0 for the module's buffer_size_kb. Ignored
 *	when the instance exists (snaptrace_resize() changes it).
 *
 * Returns the instance's buffer with a reference taken. A new instance
 * gets a buffer in overwrite mode, recording on, and the top level's files
 * under ``/sys/kernel/debug/snaptrace/instances/NAME/``. Drop the reference
 * with snaptrace_put(). Mirrors trace_array_get_by_name(), which returns
 * NULL on failure and leaves freeing to trace_array_destroy() or rmdir.
 *
 * Context: process context, may sleep (GFP_KERNEL, vmalloc, debugfs).
 * Takes st_inst_lock.
 * Return: the buffer; ERR_PTR(-EINVAL) for a bad name (with a pr_err());
 * -ENODEV if the module is not set up (or is being unloaded); -ENOMEM, or
 * the -E* of debugfs.
 */
struct snaptrace_buffer *snaptrace_get_by_name(const char *name,
					       size_t size_per_cpu)
{
	return st_get_by_name(name, size_per_cpu, -1);
}
EXPORT_SYMBOL_GPL(snaptrace_get_by_name);

/**
 * snaptrace_get_by_name_cpu() - look up or create a named one-CPU instance
 * @name: the instance, as for snaptrace_get_by_name(); not NULL
 * @size: bytes of @cpu's ring of a new instance's buffer, rounded as by
 *	snaptrace_buffer_alloc(); 0 for the module's buffer_size_kb. Ignored
 *	when the instance exists.
 * @cpu: the home CPU of a new instance's buffer (a possible CPU)
 *
 * snaptrace_get_by_name() with a buffer of snaptrace_buffer_alloc_cpu():
 * a ring of @size on @cpu and none elsewhere, for a buffer that one
 * serialized writer fills from any CPU with snaptrace_reserve_on() (a
 * remote's crash capture). An existing instance is returned as it is,
 * whatever its geometry: snaptrace_buffer_home_cpu() says where it has
 * room (-1: on every CPU) and snaptrace_size_per_cpu() how much. The
 * caller keeps other writers out with snaptrace_record_disable() (and
 * undoes it with snaptrace_record_enable() before snaptrace_put()). Drop
 * the reference with snaptrace_put(). No upstream twin.
 *
 * Context: process context, may sleep (GFP_KERNEL, vmalloc, debugfs).
 * Takes st_inst_lock.
 * Return: the buffer; ERR_PTR(-EINVAL) for a bad name, size or @cpu;
 * -ENODEV if the module is not set up; -ENOMEM, or the -E* of debugfs.
 */
struct snaptrace_buffer *snaptrace_get_by_name_cpu(const char *name,
						   size_t size, int cpu)
{
	if (!name || cpu < 0)
		return ERR_PTR(-EINVAL);
	return st_get_by_name(name, size, cpu);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_get_by_name_cpu);

/**
 * snaptrace_resize_alone() - resize a named instance no one else holds
 * @buf: a named instance's buffer, from snaptrace_get_by_name_cpu() or
 *	snaptrace_get_by_name(), whose reference the caller holds
 * @size: bytes per CPU (of the home CPU's ring for a one-CPU buffer), as
 *	for snaptrace_resize()
 *
 * snaptrace_resize() of @buf, contents dropped, but only while the
 * caller's reference is the instance's only one: a user of its files, or
 * another getter, keeps it as it is (snaptrace_get_by_name_cpu() does not
 * resize an instance it finds either). A file opened during the resize
 * sees it as it would see buffer_size_kb's. For the owner of a buffer
 * that must grow without letting go of it (a remote's trace keeper). No
 * upstream twin.
 *
 * Context: process context, may sleep. Takes st_inst_lock, then the
 * buffer's own lock.
 * Return: 0; -EBUSY if anyone else holds the instance; -EINVAL if @buf is
 * no named instance's; or the error of snaptrace_resize(). On failure
 * nothing changed.
 */
int snaptrace_resize_alone(struct snaptrace_buffer *buf, size_t size)
{
	struct snaptrace_instance *inst;
	int ret = -EINVAL;

	mutex_lock(&st_inst_lock);
	list_for_each_entry(inst, &st_insts, list) {
		if (inst->buf != buf)
			continue;
		ret = refcount_read(&inst->ref) == 1 ? snaptrace_resize(buf, size) :
						       -EBUSY;
		break;
	}
	mutex_unlock(&st_inst_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_resize_alone);

/**
 * snaptrace_put() - drop a reference from snaptrace_get_by_name()
 * @buf: the buffer it returned; NULL or an ERR_PTR() is ignored
 *
 * The last reference to a named instance removes its directory and frees
 * its buffer; while one of its files is open, that file holds a reference
 * and the free waits for its close. The default instance is never freed.
 * A buffer that is no instance's is refused with a pr_err(). Mirrors
 * trace_array_put() (upstream's last put does not free: rmdir or
 * trace_array_destroy() does).
 *
 * Context: process context, may sleep (debugfs_remove(),
 * synchronize_rcu()). Takes st_inst_lock.
 */
void snaptrace_put(struct snaptrace_buffer *buf)
{
	struct snaptrace_instance *inst, *found = NULL;

	might_sleep();
	if (IS_ERR_OR_NULL(buf))
		return;
	inst = st_default_get();
	if (inst && inst->buf == buf) {
		snaptrace_instance_put(inst);
		return;
	}
	mutex_lock(&st_inst_lock);
	list_for_each_entry(inst, &st_insts, list) {
		if (inst->buf == buf) {
			found = inst;
			break;
		}
	}
	mutex_unlock(&st_inst_lock);
	/* Our caller's reference keeps @found alive until we drop it. */
	if (found)
		snaptrace_instance_put(found);
	else
		pr_err("%s(): %p is not an instance's buffer, ignored\n",
		       __func__, buf);
}
EXPORT_SYMBOL_GPL(snaptrace_put);

/* ------------------------------------------------------------------ */
/* Recording control of the default instance */

/**
 * snaptrace_on() - turn recording on in the default instance
 *
 * Sets the switch ``tracing_on`` shows. Writers record again unless
 * snaptrace_stop() calls are outstanding. Mirrors tracing_on().
 *
 * Context: any, NMI included. Never sleeps. Does nothing before the
 * module is set up.
 */
void snaptrace_on(void)
{
	struct snaptrace_instance *inst = st_default_get();

	if (inst)
		snaptrace_record_on(inst->buf);
}
EXPORT_SYMBOL_GPL(snaptrace_on);

/**
 * snaptrace_off() - turn recording off in the default instance
 *
 * Writers fail with -EBUSY from now on; what is recorded is kept and
 * stays readable; reservations already open still commit. Mirrors
 * tracing_off().
 *
 * Context: any, NMI included. Never sleeps.
 */
void snaptrace_off(void)
{
	struct snaptrace_instance *inst = st_default_get();

	if (inst)
		snaptrace_record_off(inst->buf);
}
EXPORT_SYMBOL_GPL(snaptrace_off);

/**
 * snaptrace_is_on() - whether the default instance's switch is on
 *
 * The switch of snaptrace_on()/_off() and ``tracing_on`` only: as
 * upstream's tracing_is_on(), it stays true while snaptrace_stop() holds
 * recording.
 *
 * Context: any, NMI included. Never sleeps.
 * Return: true if on; false if off or the module is not set up.
 */
bool snaptrace_is_on(void)
{
	struct snaptrace_instance *inst = st_default_get();

	return inst && snaptrace_record_is_on(inst->buf);
}
EXPORT_SYMBOL_GPL(snaptrace_is_on);

/**
 * snaptrace_stop() - hold recording in the default instance, nesting
 *
 * Writers are refused (-EBUSY) until every snaptrace_stop() is matched by
 * a snaptrace_start(). Independent of snaptrace_on()/_off(): recording
 * happens when the switch is on and no stop is outstanding. Contents are
 * kept. Mirrors tracing_stop().
 *
 * Context: any, NMI included (upstream's takes a raw spinlock; this one
 * is two atomic operations). Never sleeps.
 */
void snaptrace_stop(void)
{
	struct snaptrace_instance *inst = st_default_get();

	if (!inst)
		return;
	/* Disable first: a racing start can only undo a stop once counted. */
	snaptrace_record_disable(inst->buf);
	atomic_inc(&inst->stop_count);
}
EXPORT_SYMBOL_GPL(snaptrace_stop);

/**
 * snaptrace_start() - undo one snaptrace_stop()
 *
 * Recording resumes when the last outstanding stop is matched (and the
 * switch is on). A start without an outstanding stop is refused with a
 * pr_err() once and changes nothing: it does not bank a later stop.
 * Mirrors tracing_start(), which warns in that case.
 *
 * Context: any, NMI included. Never sleeps.
 */
void snaptrace_start(void)
{
	struct snaptrace_instance *inst = st_default_get();

	if (!inst)
		return;
	if (atomic_dec_if_positive(&inst->stop_count) < 0) {
		pr_err_once("%s() without a snaptrace_stop(), ignored\n", __func__);
		return;
	}
	snaptrace_record_enable(inst->buf);
}
EXPORT_SYMBOL_GPL(snaptrace_start);

/* ------------------------------------------------------------------ */
/* Setup */

/**
 * snaptrace_instances_init() - the default instance and instances/
 * @root: the module's debugfs directory; the default instance's files go
 *	there
 * @size_per_cpu: bytes per CPU of the default buffer, and of instances
 *	created without a size
 * @mode: the default buffer's mode
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOMEM, -EINVAL for a bad size, or the -E* of debugfs. On
 * failure too, call snaptrace_instances_exit() once @root is removed.
 */
int snaptrace_instances_init(struct dentry *root, size_t size_per_cpu,
			     enum snaptrace_mode mode)
{
	struct snaptrace_instance *inst = &st_default_inst;
	struct snaptrace_buffer *buf;
	int ret;

	buf = snaptrace_buffer_alloc(size_per_cpu, mode);
	if (IS_ERR(buf)) {
		pr_err("cannot allocate the ring buffer (%zu bytes per CPU): %pe\n",
		       size_per_cpu, buf);
		return PTR_ERR(buf);
	}
	inst->buf = buf;
	refcount_set(&inst->ref, 1);
	atomic_set(&inst->stop_count, 0);
	inst->dir = root;
	inst->fs = snaptrace_trace_fs_create(root, inst->buf, inst);
	if (IS_ERR(inst->fs))
		return PTR_ERR(inst->fs);
	mutex_lock(&st_inst_lock);
	st_inst_dir = debugfs_create_dir("instances", root);
	ret = PTR_ERR_OR_ZERO(st_inst_dir);
	if (ret) {
		st_inst_dir = NULL;
		pr_err("cannot create instances/: %pe\n", ERR_PTR(ret));
	}
	st_inst_size = size_per_cpu;
	mutex_unlock(&st_inst_lock);
	if (!ret)
		WRITE_ONCE(st_default, inst);
	return ret;
}

/**
 * snaptrace_instances_exit() - free every instance and the default one
 *
 * Call after the module's debugfs directory was removed (which removed
 * instances/ and waited for its files' operations); no file can be open
 * (each holds a module reference) and no other module holds an instance
 * (it would depend on this one). Instances the module made itself
 * (instances=) are freed here.
 *
 * Context: process context, may sleep.
 */
void snaptrace_instances_exit(void)
{
	struct snaptrace_instance *inst, *next;

	WRITE_ONCE(st_default, NULL);
	mutex_lock(&st_inst_lock);
	st_inst_dir = NULL;
	list_for_each_entry_safe(inst, next, &st_insts, list) {
		list_del(&inst->list);
		st_instance_free(inst);
	}
	mutex_unlock(&st_inst_lock);
	snaptrace_trace_fs_destroy(st_default_inst.fs);	/* NULL or ERR_PTR ok */
	snaptrace_buffer_free(st_default_inst.buf);
	st_default_inst.buf = NULL;
	st_default_inst.fs = NULL;
}
