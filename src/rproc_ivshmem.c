// SPDX-License-Identifier: GPL-2.0
/*
 * A real remote processor beside the host: a PCI driver for QEMU's
 * ivshmem-plain device (1af4:1110), whose BAR2 is memory a remote core
 * shares with the host. In scripts/remote-demo.sh, BAR2 is the RAM of a
 * qemu-system-arm virt machine running fw/arm-remote/ (RAM at 0x40000000,
 * which is BAR2's device address, ivshmem_da).
 *
 * The remote boots on its own; the host attaches to it (upstream's
 * RPROC_DETACHED remotes): the image named by ivshmem_firmware (or the
 * remote's debugfs "firmware") is read through the firmware loader only to
 * find the resource table, which is then found loaded in BAR2; no segment
 * is loaded. A heartbeat word the firmware bumps (in its control block at
 * ivshmem_ctl) is sampled by an hrtimer watchdog in rproc_attach.c; a stuck
 * heartbeat is reported as a crash from the timer (hardirq), which only
 * marks the remote crashed: traceN_last is captured from BAR2 in process
 * context (a work item), the hung remote no longer writing it; once the
 * heartbeat moves again (the
 * platform, here the script, restarted the remote) the remote is attached
 * again (state "attached" once more). "start", "stop" and "detach" are
 * the lifecycle API's (rproc_attach.c, snaptrace_rproc_create_attached()).
 *
 * Only an ivshmem device whose BAR2 holds the firmware's control block
 * (its magic word, written as the firmware boots) is taken: ivshmem is
 * generic shared memory, which other devices use for other things.
 *
 * BAR2 is mapped write-combining as I/O memory by default (ivshmem_map=wc:
 * ioremap_wc(), every read through memcpy_fromio()/readl()), or write-back
 * as normal memory (ivshmem_map=wb: memremap(MEMREMAP_WB)) for memory the
 * host and remote share coherently. Everything in BAR2 is written by the
 * remote and untrusted: every device address and length taken from it is
 * checked against the BAR's size (rproc_attach.c, rproc_mem.c), without overflow.
 *
 * debugfs, in the remote's remoteprocN directory beside upstream's files:
 * "heartbeat" (the word, read now), "command" (write "hang" or "reset"
 * into the firmware's command word: the firmware hangs on the first; the
 * second is for the platform, which restarts the remote) and "watchdog_ms"
 * (the watchdog's timeout, ivshmem_watchdog_ms at first, changed at once).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <snaptrace/ivshmem.h>

#include "cmd.h"
#include "internal.h"
#include "rproc.h"
#include "rproc_attach.h"

/* The firmware's control block: include/snaptrace/ivshmem.h. */
#define ST_IVSHMEM_BAR		SNAPTRACE_IVSHMEM_BAR
#define ST_CTL_MAGIC		SNAPTRACE_IVSHMEM_CTL_MAGIC
#define ST_CTL_MAGIC_VALUE	SNAPTRACE_IVSHMEM_MAGIC
#define ST_CTL_HEARTBEAT	SNAPTRACE_IVSHMEM_CTL_HEARTBEAT
#define ST_CTL_COMMAND		SNAPTRACE_IVSHMEM_CTL_COMMAND
#define ST_CTL_SIZE		SNAPTRACE_IVSHMEM_CTL_SIZE
#define ST_CMD_HANG		SNAPTRACE_IVSHMEM_CMD_HANG
#define ST_CMD_RESET		SNAPTRACE_IVSHMEM_CMD_RESET

static char *ivshmem_firmware = "snaptrace/arm-remote.elf";
module_param(ivshmem_firmware, charp, 0444);
MODULE_PARM_DESC(ivshmem_firmware,
		 "Image the ivshmem remote runs, under /lib/firmware: its resource table is found in it, then in the shared memory (default snaptrace/arm-remote.elf)");

static unsigned int ivshmem_da = SNAPTRACE_IVSHMEM_RAM_DA;
module_param(ivshmem_da, uint, 0444);
MODULE_PARM_DESC(ivshmem_da,
		 "Device address of the start of the ivshmem BAR2 as the remote sees it (default 0x40000000, QEMU virt's RAM)");

static unsigned int ivshmem_ctl = SNAPTRACE_IVSHMEM_CTL_DA;
module_param(ivshmem_ctl, uint, 0444);
MODULE_PARM_DESC(ivshmem_ctl,
		 "Device address of the firmware's control block, laid out in include/snaptrace/ivshmem.h: a device without its magic is not taken (default 0x40108000)");

static unsigned int ivshmem_watchdog_ms = 2000;
module_param(ivshmem_watchdog_ms, uint, 0444);
MODULE_PARM_DESC(ivshmem_watchdog_ms,
		 "A heartbeat unchanged this long is a crash (100..600000 ms, default 2000)");

static char *ivshmem_map = "wc";
module_param(ivshmem_map, charp, 0444);
MODULE_PARM_DESC(ivshmem_map,
		 "How BAR2 is mapped: wc (ioremap_wc, I/O memory, default) or wb (memremap write-back)");

static bool ivshmem_attach = true;
module_param(ivshmem_attach, bool, 0444);
MODULE_PARM_DESC(ivshmem_attach,
		 "Attach to the remote when the device is found (default 1); else write start to its state");

/**
 * struct st_ivshmem - one ivshmem device and its remote
 * @pdev: the PCI device
 * @rproc: its remote
 * @va: BAR2 mapped write-back (ivshmem_map=wb), else NULL
 * @io: BAR2 mapped write-combining as I/O memory (ivshmem_map=wc), else NULL
 * @len: BAR2's size in bytes
 * @is_iomem: BAR2 is mapped at @io
 * @ctl: offset of the control block in BAR2
 * @index: N of remoteprocN
 */
struct st_ivshmem {
	struct pci_dev *pdev;
	struct snaptrace_rproc *rproc;
	void *va;
	void __iomem *io;
	u32 len;
	bool is_iomem;
	u32 ctl;
	int index;
};

static struct dentry *st_ivshmem_dir;
static int st_ivshmem_first;
static DEFINE_IDA(st_ivshmem_ida);

static u32 st_ctl_read(struct st_ivshmem *ivs, u32 off)
{
	if (ivs->is_iomem)
		return readl(ivs->io + ivs->ctl + off);
	return le32_to_cpu(READ_ONCE(*(__le32 *)(ivs->va + ivs->ctl + off)));
}

static void st_ctl_write(struct st_ivshmem *ivs, u32 off, u32 v)
{
	if (ivs->is_iomem)
		writel(v, ivs->io + ivs->ctl + off);
	else
		WRITE_ONCE(*(__le32 *)(ivs->va + ivs->ctl + off), cpu_to_le32(v));
}

/* The watchdog's sample: hardirq context. */
static u32 st_ivshmem_heartbeat(void *priv)
{
	return st_ctl_read(priv, ST_CTL_HEARTBEAT);
}

static const struct snaptrace_rproc_attach_ops st_ivshmem_ops = {
	.heartbeat = st_ivshmem_heartbeat,
};

static ssize_t st_heartbeat_read(struct file *filp, char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	struct st_ivshmem *ivs = filp->private_data;
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n",
			    st_ctl_read(ivs, ST_CTL_HEARTBEAT));

	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

static const struct file_operations st_heartbeat_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = st_heartbeat_read,
	.llseek = default_llseek,
};

/* The watchdog's timeout in ms: 100..600000, taking effect at once. */
static ssize_t st_watchdog_read(struct file *filp, char __user *ubuf,
				size_t cnt, loff_t *ppos)
{
	struct st_ivshmem *ivs = filp->private_data;
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n",
			    READ_ONCE(snaptrace_rproc_attached(ivs->rproc)->timeout_ms));

	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

static ssize_t st_watchdog_write(struct file *filp, const char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	struct st_ivshmem *ivs = filp->private_data;
	struct snaptrace_cmd cmd;
	unsigned long long ms;
	int ret;

	ret = snaptrace_cmd_get(&cmd, filp, ubuf, cnt, *ppos, 15);
	if (ret) {
		dev_err(&ivs->pdev->dev, "watchdog_ms: write a number of ms, at once\n");
		return ret;
	}
	ret = snaptrace_cmd_number(&cmd, 0, UINT_MAX, "not a number of ms", &ms);
	if (ret == -ERANGE) {
		dev_err(&ivs->pdev->dev, "watchdog_ms: number too large\n");
		return ret;
	}
	if (ret) {
		dev_err(&ivs->pdev->dev, "watchdog_ms: want a number of ms\n");
		return ret;
	}
	ret = snaptrace_rproc_set_watchdog(ivs->rproc, (unsigned int)ms);
	if (ret)
		snaptrace_cmd_err(&cmd, 0, "want 100..600000 ms");
	return ret ? ret : cnt;
}

static const struct file_operations st_watchdog_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = st_watchdog_read,
	.write = st_watchdog_write,
	.llseek = default_llseek,
};

/* "hang" or "reset", as a word: anything else is -EINVAL. */
static ssize_t st_command_write(struct file *filp, const char __user *ubuf,
				size_t cnt, loff_t *ppos)
{
	struct st_ivshmem *ivs = filp->private_data;
	struct snaptrace_cmd cmd;
	u32 word;
	int ret;

	ret = snaptrace_cmd_get(&cmd, filp, ubuf, cnt, *ppos, 7);
	if (!ret)
		ret = snaptrace_cmd_words(&cmd, 1);
	if (ret < 0) {
		dev_err(&ivs->pdev->dev, "command: want hang or reset, written at once\n");
		return ret;
	}
	if (!strcmp(cmd.argv[0], "hang")) {
		word = ST_CMD_HANG;
	} else if (!strcmp(cmd.argv[0], "reset")) {
		word = ST_CMD_RESET;
	} else {
		dev_err(&ivs->pdev->dev, "command: want hang or reset\n");
		snaptrace_cmd_err(&cmd, 0, "want hang or reset");
		return -EINVAL;
	}
	st_ctl_write(ivs, ST_CTL_COMMAND, word);
	return cnt;
}

static const struct file_operations st_command_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = st_command_write,
	.llseek = default_llseek,
};

/* Map BAR2 as ivshmem_map says. */
static int st_ivshmem_map(struct st_ivshmem *ivs)
{
	resource_size_t start = pci_resource_start(ivs->pdev, ST_IVSHMEM_BAR);

	if (!strcmp(ivshmem_map, "wb")) {
		ivs->va = memremap(start, ivs->len, MEMREMAP_WB);
		if (!ivs->va)
			return -ENOMEM;
		ivs->is_iomem = false;
		return 0;
	}
	ivs->io = ioremap_wc(start, ivs->len);
	if (!ivs->io)
		return -ENOMEM;
	ivs->is_iomem = true;
	return 0;
}

static void st_ivshmem_unmap(struct st_ivshmem *ivs)
{
	if (ivs->is_iomem)
		iounmap(ivs->io);
	else
		memunmap(ivs->va);
}

/*
 * ivshmem is generic shared memory that other users (other guests, DPDK,
 * a frame buffer) use for other things: take only a device whose BAR2
 * holds the firmware's control block, its magic word at ivshmem_ctl,
 * which the firmware writes as it boots. Looked at through a small
 * temporary mapping, before the BAR is requested: a foreign device is left
 * as it was found (but for memory decoding, which reading the BAR needs).
 */
static int st_ivshmem_is_ours(struct pci_dev *pdev, u32 ctl)
{
	void __iomem *p = pci_iomap_range(pdev, ST_IVSHMEM_BAR, ctl, ST_CTL_SIZE);
	u32 magic;

	if (!p) {
		dev_err(&pdev->dev, "cannot map the control block in BAR%d\n",
			ST_IVSHMEM_BAR);
		return -ENOMEM;
	}
	magic = readl(p + ST_CTL_MAGIC);
	pci_iounmap(pdev, p);
	if (magic != ST_CTL_MAGIC_VALUE) {
		dev_info(&pdev->dev, "no snaptrace remote here: 0x%08x at da 0x%x, not the magic 0x%08x; left alone\n",
			 magic, ivshmem_ctl, ST_CTL_MAGIC_VALUE);
		return -ENODEV;
	}
	return 0;
}

/*
 * PCI resources are handled by hand, not with pcim_*()/devm_*(): the remote
 * (its watchdog, its readers) must be gone before BAR2 is unmapped, the
 * region released and the device disabled, in that order, which remove()
 * does explicitly; probe's error path unwinds the same way.
 */
static int st_ivshmem_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct snaptrace_rproc_mem shared = { };
	resource_size_t len = pci_resource_len(pdev, ST_IVSHMEM_BAR);
	struct st_ivshmem *ivs;
	char name[32];
	u32 end;
	int ret;

	if (!(pci_resource_flags(pdev, ST_IVSHMEM_BAR) & IORESOURCE_MEM) || !len) {
		dev_err(dev, "BAR%d is not memory\n", ST_IVSHMEM_BAR);
		return -ENODEV;
	}
	/* The remote's addresses are 32-bit: the BAR must fit above ivshmem_da. */
	if (len > U32_MAX || check_add_overflow(ivshmem_da, (u32)len - 1, &end)) {
		dev_err(dev, "BAR%d of %pa bytes at da 0x%x passes 4 GiB\n",
			ST_IVSHMEM_BAR, &len, ivshmem_da);
		return -EINVAL;
	}
	if (len < ST_CTL_SIZE || ivshmem_ctl < ivshmem_da ||
	    ivshmem_ctl - ivshmem_da > len - ST_CTL_SIZE || !IS_ALIGNED(ivshmem_ctl, 4)) {
		dev_err(dev, "ivshmem_ctl=0x%x: the %d-byte control block must lie 4-byte aligned in 0x%x..0x%x\n",
			ivshmem_ctl, ST_CTL_SIZE, ivshmem_da, end);
		return -EINVAL;
	}

	ret = pci_enable_device_mem(pdev);
	if (ret) {
		dev_err(dev, "cannot enable the device's memory: %d\n", ret);
		return ret;
	}
	ret = st_ivshmem_is_ours(pdev, ivshmem_ctl - ivshmem_da);
	if (ret)
		goto disable;
	ret = pci_request_region(pdev, ST_IVSHMEM_BAR, KBUILD_MODNAME);
	if (ret) {
		dev_err(dev, "cannot request BAR%d: %d\n", ST_IVSHMEM_BAR, ret);
		goto disable;
	}
	ivs = kzalloc(sizeof(*ivs), GFP_KERNEL);
	if (!ivs) {
		ret = -ENOMEM;
		goto release;
	}
	ivs->pdev = pdev;
	ivs->len = len;
	ivs->ctl = ivshmem_ctl - ivshmem_da;
	ret = st_ivshmem_map(ivs);
	if (ret) {
		dev_err(dev, "cannot map BAR%d (%s): %d\n", ST_IVSHMEM_BAR,
			ivshmem_map, ret);
		goto free;
	}
	ret = ida_alloc_min(&st_ivshmem_ida, st_ivshmem_first, GFP_KERNEL);
	if (ret < 0)
		goto unmap;
	ivs->index = ret;

	strscpy(shared.name, "ivshmem", sizeof(shared.name));
	shared.da = ivshmem_da;
	shared.len = ivs->len;
	shared.va = ivs->va;
	shared.io = ivs->io;
	shared.is_iomem = ivs->is_iomem;
	snprintf(name, sizeof(name), "ivshmem-%s", pci_name(pdev));
	ivs->rproc = snaptrace_rproc_create_attached(ivs->index, name, dev, &shared,
						     &st_ivshmem_ops, ivs,
						     ivshmem_watchdog_ms);
	if (IS_ERR(ivs->rproc)) {
		ret = PTR_ERR(ivs->rproc);
		goto free_index;
	}
	ret = snaptrace_rproc_debugfs_create(ivs->rproc, st_ivshmem_dir);
	if (ret)
		goto destroy;
	debugfs_create_file("heartbeat", 0400, ivs->rproc->dir, ivs,
			    &st_heartbeat_fops);
	debugfs_create_file("command", 0200, ivs->rproc->dir, ivs,
			    &st_command_fops);
	debugfs_create_file("watchdog_ms", 0600, ivs->rproc->dir, ivs,
			    &st_watchdog_fops);
	ret = snaptrace_rproc_set_firmware(ivs->rproc, ivshmem_firmware);
	if (ret)
		goto destroy;
	pci_set_drvdata(pdev, ivs);
	dev_info(dev, "remoteproc%d: BAR%d, %u KiB at da 0x%x, mapped %s\n",
		 ivs->index, ST_IVSHMEM_BAR, ivs->len >> 10, ivshmem_da,
		 ivs->is_iomem ? "write-combining (I/O memory)" : "write-back");
	/* As upstream attaches at registration to a remote found running. */
	if (ivshmem_attach) {
		ret = snaptrace_rproc_start(ivs->rproc);
		if (ret)
			dev_warn(dev, "remoteproc%d: cannot attach (%d), it stays offline: set its firmware to the image it runs, then write start to its state\n",
				 ivs->index, ret);
	}
	return 0;

destroy:
	snaptrace_rproc_destroy(ivs->rproc);
free_index:
	ida_free(&st_ivshmem_ida, ivs->index);
unmap:
	st_ivshmem_unmap(ivs);
free:
	kfree(ivs);
release:
	pci_release_region(pdev, ST_IVSHMEM_BAR);
disable:
	pci_disable_device(pdev);
	return ret;
}

/* Probe's steps undone in reverse: the remote first, while BAR2 is mapped. */
static void st_ivshmem_remove(struct pci_dev *pdev)
{
	struct st_ivshmem *ivs = pci_get_drvdata(pdev);

	snaptrace_rproc_destroy(ivs->rproc);
	ida_free(&st_ivshmem_ida, ivs->index);
	st_ivshmem_unmap(ivs);
	kfree(ivs);
	pci_release_region(pdev, ST_IVSHMEM_BAR);
	pci_disable_device(pdev);
}

/*
 * No MODULE_DEVICE_TABLE: ivshmem is generic shared memory, so an ivshmem
 * device must not load snaptrace by itself; once loaded, snaptrace takes
 * the ivshmem-plain devices whose BAR2 holds its remote's control block
 * (st_ivshmem_is_ours()).
 */
static const struct pci_device_id st_ivshmem_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },	/* ivshmem */
	{ }
};

static struct pci_driver st_ivshmem_driver = {
	.name = "snaptrace-ivshmem",
	.id_table = st_ivshmem_ids,
	.probe = st_ivshmem_probe,
	.remove = st_ivshmem_remove,
};

/**
 * snaptrace_ivshmem_init() - register the ivshmem remote driver
 * @rproc_dir: snaptrace's debugfs remoteproc directory
 * @first_index: the lowest N of remoteprocN to give (after the simulated
 *	remotes)
 *
 * Each ivshmem device found whose BAR2 holds the firmware's control block
 * (its magic at ivshmem_ctl) becomes a remote, attached at once unless
 * ivshmem_attach=0; a failed attach leaves it offline, not the probe
 * failed. Other ivshmem devices are left alone (-ENODEV from the probe).
 *
 * Context: process context, may sleep (probes run synchronously).
 * Return: 0; -EINVAL for a bad ivshmem_map or an ivshmem_watchdog_ms out
 * of range; the PCI core's registration error.
 */
int snaptrace_ivshmem_init(struct dentry *rproc_dir, int first_index)
{
	if (strcmp(ivshmem_map, "wc") && strcmp(ivshmem_map, "wb")) {
		pr_err("ivshmem_map=%s: want wc or wb\n", ivshmem_map);
		return -EINVAL;
	}
	if (ivshmem_watchdog_ms < SNAPTRACE_RPROC_WATCHDOG_MIN_MS ||
	    ivshmem_watchdog_ms > SNAPTRACE_RPROC_WATCHDOG_MAX_MS) {
		pr_err("ivshmem_watchdog_ms=%u: want %u..%u\n", ivshmem_watchdog_ms,
		       SNAPTRACE_RPROC_WATCHDOG_MIN_MS, SNAPTRACE_RPROC_WATCHDOG_MAX_MS);
		return -EINVAL;
	}
	st_ivshmem_dir = rproc_dir;
	st_ivshmem_first = first_index;
	return pci_register_driver(&st_ivshmem_driver);
}

/**
 * snaptrace_ivshmem_exit() - unregister the ivshmem remote driver
 *
 * Removes every ivshmem remote (detaching from it: the remote itself runs
 * on).
 *
 * Context: process context, may sleep.
 */
void snaptrace_ivshmem_exit(void)
{
	pci_unregister_driver(&st_ivshmem_driver);
	ida_destroy(&st_ivshmem_ida);
}
