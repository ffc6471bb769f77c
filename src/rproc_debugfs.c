// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace remote processors in debugfs, with upstream's file names
 * (drivers/remoteproc/remoteproc_debugfs.c, and its sysfs files):
 * remoteproc/remoteprocN/{name, firmware, state, crash, recovery,
 * resource_table, carveout_memories, subdevs} (traceN and traceN_last are
 * rproc_trace.c's). Every command goes through the core's API; a bad
 * write, or a command that failed, is also logged in error_log: for a
 * command the core refused, with the reason it printed (a catch around the
 * call, snaptrace_why_start()), so that error_log says what dmesg says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include <snaptrace/rsc_table.h>
#include "cmd.h"
#include "internal.h"
#include "rproc.h"

/*
 * A short word written by the user (src/cmd.c): no offset, 1..@max bytes,
 * trimmed, in @cmd->argv[0]. Each refusal is also logged in error_log,
 * with what was written and a caret under the bad part.
 */
static int st_get_word(struct snaptrace_cmd *cmd, struct file *filp,
		       const char __user *ubuf, size_t cnt, loff_t *ppos,
		       size_t max)
{
	int ret = snaptrace_cmd_get(cmd, filp, ubuf, cnt, *ppos, max);

	if (!ret)
		ret = snaptrace_cmd_words(cmd, 1);
	return ret < 0 ? ret : 0;
}

static ssize_t st_name_read(struct file *filp, char __user *ubuf, size_t cnt,
			    loff_t *ppos)
{
	struct snaptrace_rproc *rproc = filp->private_data;
	char buf[48];
	int len = scnprintf(buf, sizeof(buf), "%s\n", rproc->name);

	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

static const struct file_operations st_name_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = st_name_read,
	.llseek = default_llseek,
};

static ssize_t st_firmware_read(struct file *filp, char __user *ubuf,
				size_t cnt, loff_t *ppos)
{
	struct snaptrace_rproc *rproc = filp->private_data;
	char buf[SNAPTRACE_RPROC_FW_NAME_MAX + 1];
	int len;

	mutex_lock(&rproc->lock);
	len = scnprintf(buf, sizeof(buf), "%s\n", rproc->firmware);
	mutex_unlock(&rproc->lock);
	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

static ssize_t st_firmware_write(struct file *filp, const char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	struct snaptrace_rproc *rproc = filp->private_data;
	struct snaptrace_why why;
	struct snaptrace_cmd cmd;
	int ret;

	ret = st_get_word(&cmd, filp, ubuf, cnt, ppos, SNAPTRACE_RPROC_FW_NAME_MAX);
	if (ret)
		return ret;
	snaptrace_why_start(&why);
	ret = snaptrace_rproc_set_firmware(rproc, cmd.argv[0]);
	snaptrace_why_stop(&why);
	if (ret)
		snaptrace_cmd_failed(&cmd, &why, "set_firmware", ret);
	return ret ? ret : cnt;
}

static const struct file_operations st_firmware_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = st_firmware_read,
	.write = st_firmware_write,
	.llseek = default_llseek,
};

static ssize_t st_state_read(struct file *filp, char __user *ubuf, size_t cnt,
			     loff_t *ppos)
{
	struct snaptrace_rproc *rproc = filp->private_data;
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%s\n",
			    snaptrace_rproc_state_name(READ_ONCE(rproc->state)));

	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

/*
 * As upstream's sysfs "state" (6.12): "start" is rproc_boot() (a second
 * start takes another reference), "stop" rproc_shutdown() (the last
 * reference stops), "detach" rproc_detach().
 */
static ssize_t st_state_write(struct file *filp, const char __user *ubuf,
			      size_t cnt, loff_t *ppos)
{
	static const char * const words[] = { "start", "stop", "detach" };
	struct snaptrace_rproc *rproc = filp->private_data;
	struct snaptrace_why why;
	struct snaptrace_cmd cmd;
	int ret;

	ret = st_get_word(&cmd, filp, ubuf, cnt, ppos, 16);
	if (ret)
		return ret;
	switch (match_string(words, ARRAY_SIZE(words), cmd.argv[0])) {
	case 0:
		snaptrace_why_start(&why);
		ret = snaptrace_rproc_boot(rproc);
		snaptrace_why_stop(&why);
		if (ret)
			dev_err(rproc->dev, "Boot failed: %d\n", ret);
		break;
	case 1:
		snaptrace_why_start(&why);
		ret = snaptrace_rproc_shutdown(rproc);
		snaptrace_why_stop(&why);
		break;
	case 2:
		snaptrace_why_start(&why);
		ret = snaptrace_rproc_detach(rproc);
		snaptrace_why_stop(&why);
		break;
	default:
		dev_err(rproc->dev, "state: unrecognised option \"%s\": want start, stop or detach\n",
			cmd.argv[0]);
		snaptrace_cmd_err(&cmd, 0, "unrecognised option: want start, stop or detach");
		return -EINVAL;
	}
	if (ret)
		snaptrace_cmd_failed(&cmd, &why, cmd.argv[0], ret);
	return ret ? ret : cnt;
}

static const struct file_operations st_state_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = st_state_read,
	.write = st_state_write,
	.llseek = default_llseek,
};

/* A crash written to "crash", reported from hardirq context. */
struct st_crash_irq {
	struct irq_work work;
	struct snaptrace_rproc *rproc;
	enum snaptrace_rproc_crash_type type;
};

static void st_crash_irq(struct irq_work *work)
{
	struct st_crash_irq *c = container_of(work, struct st_crash_irq, work);

	snaptrace_rproc_report_crash(c->rproc, c->type);
}

/*
 * "crash": upstream's integer codes (0 mmu fault, 1 watchdog, 2 fatal
 * error) or their words. The report runs from a hardirq irq_work, as a
 * watchdog interrupt would; the write returns once it ran.
 */
static ssize_t st_crash_write(struct file *filp, const char __user *ubuf,
			      size_t cnt, loff_t *ppos)
{
	static const char * const words[] = { "mmufault", "watchdog", "fatal" };
	struct snaptrace_rproc *rproc = filp->private_data;
	struct snaptrace_cmd cmd;
	struct st_crash_irq crash = {
		.work = IRQ_WORK_INIT_HARD(st_crash_irq),
		.rproc = rproc,
	};
	unsigned int type;
	int ret, state;

	ret = st_get_word(&cmd, filp, ubuf, cnt, ppos, 16);
	if (ret)
		return ret;
	ret = match_string(words, ARRAY_SIZE(words), cmd.argv[0]);
	if (ret >= 0) {
		type = ret;
		ret = 0;
	} else {
		ret = kstrtouint(cmd.argv[0], 0, &type);
		if (!ret && type > SNAPTRACE_RPROC_FATAL_ERROR)
			ret = -EINVAL;
	}
	if (ret) {
		dev_err(rproc->dev, "crash: unrecognised type \"%s\"\n", cmd.argv[0]);
		snaptrace_cmd_err(&cmd, 0, "want mmufault, watchdog, fatal or 0..2");
		return -EINVAL;
	}
	state = READ_ONCE(rproc->state);
	if (state != SNAPTRACE_RPROC_RUNNING && state != SNAPTRACE_RPROC_ATTACHED) {
		dev_err(rproc->dev, "crash: the remote is not running\n");
		snaptrace_cmd_err(&cmd, 0, "the remote is not running or attached");
		return -EINVAL;
	}
	crash.type = type;
	irq_work_queue(&crash.work);
	irq_work_sync(&crash.work);
	return cnt;
}

static const struct file_operations st_crash_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = st_crash_write,
	.llseek = default_llseek,
};

static ssize_t st_recovery_read(struct file *filp, char __user *ubuf,
				size_t cnt, loff_t *ppos)
{
	struct snaptrace_rproc *rproc = filp->private_data;
	const char *s = READ_ONCE(rproc->recovery) ? "enabled\n" : "disabled\n";

	return simple_read_from_buffer(ubuf, cnt, ppos, s, strlen(s));
}

/*
 * Upstream's words: "enabled" (and recover now if crashed), "disabled",
 * "recover" (now, -EINVAL unless crashed).
 */
static ssize_t st_recovery_write(struct file *filp, const char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	struct snaptrace_rproc *rproc = filp->private_data;
	struct snaptrace_why why;
	struct snaptrace_cmd cmd;
	const char *word;
	int ret;

	ret = st_get_word(&cmd, filp, ubuf, cnt, ppos, 16);
	if (ret)
		return ret;
	word = cmd.argv[0];
	if (!strcmp(word, "enabled")) {
		WRITE_ONCE(rproc->recovery, true);
		/* Its error is in the log; the setting holds either way. */
		if (READ_ONCE(rproc->state) == SNAPTRACE_RPROC_CRASHED)
			snaptrace_rproc_trigger_recovery(rproc);
	} else if (!strcmp(word, "disabled")) {
		WRITE_ONCE(rproc->recovery, false);
	} else if (!strcmp(word, "recover")) {
		snaptrace_why_start(&why);
		ret = snaptrace_rproc_trigger_recovery(rproc);
		snaptrace_why_stop(&why);
		if (ret)
			snaptrace_cmd_failed(&cmd, &why, "recovery", ret);
	} else {
		dev_err(rproc->dev, "recovery: unrecognised option \"%s\"\n", word);
		snaptrace_cmd_err(&cmd, 0, "want enabled, disabled or recover");
		ret = -EINVAL;
	}
	return ret ? ret : cnt;
}

static const struct file_operations st_recovery_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = st_recovery_read,
	.write = st_recovery_write,
	.llseek = default_llseek,
};

/* The firmware's resource table, decoded as upstream's resource_table. */
static void st_show_name(struct seq_file *m, const u8 *name)
{
	seq_printf(m, "  Name %*pE\n",
		   (int)strnlen(name, SNAPTRACE_RSC_NAME_LEN), name);
}

static int st_rsc_table_show(struct seq_file *m, void *unused)
{
	struct snaptrace_rproc *rproc = m->private;
	struct snaptrace_rsc_table *table;
	u32 i, j;

	mutex_lock(&rproc->lock);
	table = rproc->table;
	if (!table) {
		seq_puts(m, "No resource table found\n");
		goto out;
	}
	/* The table was checked when the remote started. */
	for (i = 0; i < table->num; i++) {
		struct snaptrace_fw_rsc_hdr *hdr = (void *)table + table->offset[i];
		struct snaptrace_fw_rsc_carveout *c = (void *)hdr->data;
		struct snaptrace_fw_rsc_trace *t = (void *)hdr->data;
		struct snaptrace_fw_rsc_vdev *v = (void *)hdr->data;

		switch (hdr->type) {
		case SNAPTRACE_RSC_CARVEOUT:
		case SNAPTRACE_RSC_DEVMEM:
			seq_printf(m, "Entry %u is of type %s\n", i,
				   hdr->type == SNAPTRACE_RSC_CARVEOUT ? "carveout" : "devmem");
			seq_printf(m, "  Device Address 0x%x\n", c->da);
			seq_printf(m, "  Physical Address 0x%x\n", c->pa);
			seq_printf(m, "  Length 0x%x Bytes\n", c->len);
			seq_printf(m, "  Flags 0x%x\n", c->flags);
			seq_printf(m, "  Reserved (should be zero) [%u]\n", c->reserved);
			st_show_name(m, c->name);
			break;
		case SNAPTRACE_RSC_TRACE:
			seq_printf(m, "Entry %u is of type trace\n", i);
			seq_printf(m, "  Device Address 0x%x\n", t->da);
			seq_printf(m, "  Length 0x%x Bytes\n", t->len);
			seq_printf(m, "  Reserved (should be zero) [%u]\n", t->reserved);
			st_show_name(m, t->name);
			break;
		case SNAPTRACE_RSC_VDEV:
			seq_printf(m, "Entry %u is of type vdev\n", i);
			seq_printf(m, "  ID %u\n", v->id);
			seq_printf(m, "  Notify ID %u\n", v->notifyid);
			seq_printf(m, "  Device features 0x%x\n", v->dfeatures);
			seq_printf(m, "  Guest features 0x%x\n", v->gfeatures);
			seq_printf(m, "  Config length 0x%x\n", v->config_len);
			seq_printf(m, "  Status 0x%x\n", v->status);
			seq_printf(m, "  Number of vrings %u\n", v->num_of_vrings);
			for (j = 0; j < v->num_of_vrings; j++) {
				seq_printf(m, "  Vring %u\n", j);
				seq_printf(m, "    Device Address 0x%x\n", v->vring[j].da);
				seq_printf(m, "    Alignment %u\n", v->vring[j].align);
				seq_printf(m, "    Number of buffers %u\n", v->vring[j].num);
				seq_printf(m, "    Notify ID %u\n", v->vring[j].notifyid);
			}
			break;
		default:
			seq_printf(m, "Entry %u is of unknown type %u (skipped)\n",
				   i, hdr->type);
			break;
		}
	}
out:
	mutex_unlock(&rproc->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(st_rsc_table);

static int st_carveout_show(struct seq_file *m, void *unused)
{
	struct snaptrace_rproc *rproc = m->private;
	struct snaptrace_rproc_mem *mem;

	mutex_lock(&rproc->lock);
	list_for_each_entry(mem, &rproc->mems, node) {
		seq_puts(m, "Carveout memory entry:\n");
		seq_printf(m, "\tName: %*pE\n", (int)strlen(mem->name), mem->name);
		seq_printf(m, "\tKind: %s%s\n", mem->kind,
			   mem->registered ? " (registered)" : "");
		if (mem->is_iomem)
			seq_printf(m, "\tVirtual address: %pK (I/O memory)\n",
				   mem->io);
		else
			seq_printf(m, "\tVirtual address: %pK\n", mem->va);
		seq_printf(m, "\tDevice address: 0x%x\n", mem->da);
		seq_printf(m, "\tLength: 0x%x Bytes\n\n", mem->len);
	}
	mutex_unlock(&rproc->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(st_carveout);

/* The sub-devices in start order; a vdev with its vrings and its step. */
static int st_subdevs_show(struct seq_file *m, void *unused)
{
	struct snaptrace_rproc *rproc = m->private;
	struct snaptrace_rproc_subdev *subdev;
	struct snaptrace_rproc_vdev *v;
	int i;

	mutex_lock(&rproc->lock);
	list_for_each_entry(subdev, &rproc->subdevs, node) {
		bool is_vdev = false;

		list_for_each_entry(v, &rproc->vdev_list, node)
			if (&v->subdev == subdev)
				is_vdev = true;
		if (!is_vdev) {
			seq_printf(m, "%s\n", subdev->name ?: "(unnamed)");
			continue;
		}
		v = container_of(subdev, struct snaptrace_rproc_vdev, subdev);
		seq_printf(m, "%s: id %u, entry at offset %d, %s\n", v->name,
			   v->id, v->offset, v->status);
		for (i = 0; i < v->num_vrings; i++)
			seq_printf(m, "  vring%d: da 0x%x, align %u, num %u, notifyid %u\n",
				   i, v->vring[i].da, v->vring[i].align,
				   v->vring[i].num, v->vring[i].notifyid);
	}
	mutex_unlock(&rproc->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(st_subdevs);

/**
 * snaptrace_rproc_debugfs_create() - a remote's debugfs directory
 * @rproc: the remote
 * @parent: snaptrace's remoteproc directory
 *
 * Context: process context, may sleep.
 * Return: 0, or the error creating the directory.
 */
int snaptrace_rproc_debugfs_create(struct snaptrace_rproc *rproc,
				   struct dentry *parent)
{
	char name[24];

	snprintf(name, sizeof(name), "remoteproc%d", rproc->index);
	rproc->dir = debugfs_create_dir(name, parent);
	if (IS_ERR(rproc->dir)) {
		int ret = PTR_ERR(rproc->dir);

		rproc->dir = NULL;
		return ret;
	}
	debugfs_create_file("name", 0400, rproc->dir, rproc, &st_name_fops);
	debugfs_create_file("firmware", 0600, rproc->dir, rproc, &st_firmware_fops);
	debugfs_create_file("state", 0600, rproc->dir, rproc, &st_state_fops);
	debugfs_create_file("crash", 0200, rproc->dir, rproc, &st_crash_fops);
	debugfs_create_file("recovery", 0600, rproc->dir, rproc, &st_recovery_fops);
	debugfs_create_file("resource_table", 0400, rproc->dir, rproc,
			    &st_rsc_table_fops);
	debugfs_create_file("carveout_memories", 0400, rproc->dir, rproc,
			    &st_carveout_fops);
	debugfs_create_file("subdevs", 0400, rproc->dir, rproc, &st_subdevs_fops);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_debugfs_create);
