// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace: the persistent capture at load (Documentation/persist.rst):
 * the module parameters naming the region, its mapping, the previous
 * boot's capture taken out of it (shown under last_boot/ in debugfs by
 * persist_show.c), the arming (and last_boot/release, which arms a region
 * kept as found), and the panic and die notifiers that capture into it.
 * Without the parameters nothing here runs and nothing is printed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": persist: " fmt

#include <linux/debugfs.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kdebug.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/panic_notifier.h>
#include <linux/random.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "cmd.h"
#include "internal.h"
#include "persist.h"

static unsigned long long persist_address;
module_param(persist_address, ullong, 0444);
MODULE_PARM_DESC(persist_address,
		 "Physical address of a memmap=SIZE$ADDR region that keeps the snapshot taken at a panic across a warm reboot (with persist_size)");

static unsigned long persist_size;
module_param(persist_size, ulong, 0444);
MODULE_PARM_DESC(persist_size, "Bytes of the persist_address region");

static char *persist_name;
module_param(persist_name, charp, 0444);
MODULE_PARM_DESC(persist_name,
		 "Name of a reserve_mem=SIZE:ALIGN:NAME region to use instead (Linux 6.11 on)");

static char *persist_instance;
module_param(persist_instance, charp, 0444);
MODULE_PARM_DESC(persist_instance,
		 "Instance whose snapshot is captured at a panic (default: the default instance)");

static bool persist_on_oops;
module_param(persist_on_oops, bool, 0444);
MODULE_PARM_DESC(persist_on_oops, "Also capture at an oops (the first capture wins)");

static bool persist_discard;
module_param(persist_discard, bool, 0444);
MODULE_PARM_DESC(persist_discard,
		 "Arm the region even over a previous capture that is kept because it cannot be shown (another version's, another size's, damaged), destroying it");

static struct snaptrace_persist st_pr;
static struct snaptrace_buffer *st_pr_buf;
/* last_boot/ (persist_show.c), removed here. */
struct dentry *snaptrace_persist_dir;
/* Captures may run: under kernel_param_lock(THIS_MODULE); info reads it. */
bool snaptrace_persist_armed;
/* snaptrace_persist_init() took the region: to be armed at the end. */
static bool st_pr_to_arm;
static bool st_pr_panic_registered;
static bool st_pr_die_registered;
static bool st_pr_mapped;
static bool st_pr_claimed;

/*
 * The previous boot's capture, until released; or the error of a refused
 * region kept as found, not armed, until released. Under
 * snaptrace_persist_lock. Shown by last_boot/ (persist_show.c).
 */
DEFINE_MUTEX(snaptrace_persist_lock);
struct snaptrace_persist_last *snaptrace_persist_last_boot;
int snaptrace_persist_kept;
/* Kept for -ERANGE, its geometry right: its length runs past the end. */
bool snaptrace_persist_kept_past_end;

static int st_pr_panic(struct notifier_block *nb, unsigned long ev, void *data)
{
	snaptrace_persist_capture(&st_pr, st_pr_buf, ST_PR_PANIC, data, true);
	return NOTIFY_DONE;
}

static struct notifier_block st_pr_panic_nb = {
	.notifier_call = st_pr_panic,
	/* Before ftrace's dump (150), which may take long. */
	.priority = 200,
};

static int st_pr_die(struct notifier_block *nb, unsigned long ev, void *data)
{
	struct die_args *args = data;

	if (ev == DIE_OOPS)
		snaptrace_persist_capture(&st_pr, st_pr_buf, ST_PR_OOPS,
					  args->str, false);
	return NOTIFY_DONE;
}

static struct notifier_block st_pr_die_nb = {
	.notifier_call = st_pr_die,
	.priority = 200,
};

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * KUnit builds only: "echo 1 > /sys/module/snaptrace/parameters/
 * persist_test_capture" captures into the armed region as a panic would
 * (reason "test"), so that the persist scenario can read it back at the
 * next load of the same boot: a new load has a new boot id.
 */
static int st_pr_test_capture_set(const char *val, const struct kernel_param *kp)
{
	bool v;
	int ret = kstrtobool(val, &v);

	if (ret || !v)
		return ret ? ret : -EINVAL;
	/*
	 * The sysfs store holds kernel_param_lock(THIS_MODULE) around this
	 * call; snaptrace_persist_exit() clears snaptrace_persist_armed under
	 * it before it frees what a capture uses, so it is armed until this
	 * returns.
	 */
	if (!snaptrace_persist_armed)
		return -ENODEV;
	return snaptrace_persist_capture(&st_pr, st_pr_buf, ST_PR_TEST,
					 "test capture", false);
}

static const struct kernel_param_ops st_pr_test_capture_ops = {
	.set = st_pr_test_capture_set,
};
module_param_cb(persist_test_capture, &st_pr_test_capture_ops, NULL, 0200);
MODULE_PARM_DESC(persist_test_capture,
		 "KUnit builds: 1 captures into the armed region now, as a panic would");

/*
 * KUnit builds only: "echo 1 > /sys/module/snaptrace/parameters/
 * persist_test_fail_die" makes the next registration of the die notifier
 * fail, once, as register_die_notifier() may: the persist scenario's
 * release that fails part way, then is retried.
 */
static bool persist_test_fail_die;
module_param(persist_test_fail_die, bool, 0600);
MODULE_PARM_DESC(persist_test_fail_die,
		 "KUnit builds: 1 makes the next registration of the die notifier fail");
#endif

/* register_die_notifier(); KUnit builds: fails once if asked. */
static int st_pr_register_die(void)
{
#if IS_ENABLED(CONFIG_KUNIT)
	bool fail;

	kernel_param_lock(THIS_MODULE);
	fail = persist_test_fail_die;
	persist_test_fail_die = false;
	kernel_param_unlock(THIS_MODULE);
	if (fail)
		return -EIO;
#endif
	return register_die_notifier(&st_pr_die_nb);
}

/*
 * Captures may run from now on (the test hook's check, the notifiers):
 * into the region once this load armed it; until then (at load, before
 * snaptrace_persist_start()) they get -EBUSY. Under snaptrace_persist_lock
 * when called from release.
 * Idempotent: a release retried after a failure here registers only what
 * is not registered yet (a notifier registered twice would be called
 * twice, and the kernel warns).
 */
static int st_pr_arm_notifiers(void)
{
	int ret;

	kernel_param_lock(THIS_MODULE); /* against persist_test_capture */
	snaptrace_persist_armed = true;
	kernel_param_unlock(THIS_MODULE);
	if (!st_pr_panic_registered) {
		atomic_notifier_chain_register(&panic_notifier_list,
					       &st_pr_panic_nb);
		st_pr_panic_registered = true;
	}
	if (persist_on_oops && !st_pr_die_registered) {
		ret = st_pr_register_die();
		if (ret)
			return ret;
		st_pr_die_registered = true;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The previous capture: what the log says of it, last_boot/release */

/*
 * The log's word on a capture kept for -ERANGE: the size and CPUs it was
 * armed with if its geometry is not this region's, and they are not this
 * load's; else what is out of range. The header's CRC is right by then:
 * its fields are as the region was armed.
 */
static void st_pr_say_range(int err, const struct st_pr_hdr *hdr, size_t size)
{
	const struct st_pr_cap *cap = (const void *)(hdr + 1);

	if (err != -ERANGE)
		return;
	if (snaptrace_persist_kept_past_end)
		pr_warn("its capture's length is out of range: %llu bytes of records from offset %llu, past the region's %zu bytes\n",
			cap->data_bytes, hdr->data_off, size);
	else if (hdr->size != size || hdr->nr_cpus != nr_cpu_ids)
		pr_warn("it was armed with persist_size=%llu for %u CPUs (this load: %zu bytes, %u CPUs)\n",
			hdr->size, hdr->nr_cpus, size, nr_cpu_ids);
	else
		pr_warn("its header's offsets are not those of its size and CPUs (another layout)\n");
}

/* For the log line of a capture shown: whether its time is doubtful. */
static const char *st_pr_doubtful(const struct snaptrace_persist_last *l)
{
	if (!l->time_doubtful)
		return "";
	return "; its wall-clock time is doubtful: not between its arming and now";
}

static ssize_t st_pr_release_write(struct file *filp, const char __user *ubuf,
				   size_t cnt, loff_t *ppos)
{
	struct snaptrace_cmd cmd;
	unsigned long long v;
	int ret;

	ret = snaptrace_cmd_get(&cmd, filp, ubuf, cnt, *ppos, SNAPTRACE_CMD_MAX);
	if (ret)
		return ret;
	ret = snaptrace_cmd_number(&cmd, 10, UINT_MAX, NULL, &v);
	if (ret)
		return ret;
	if (v) {
		snaptrace_cmd_err(&cmd, 0, "only 0 releases the kept capture");
		return -EINVAL;
	}
	mutex_lock(&snaptrace_persist_lock);
	snaptrace_persist_last_free(snaptrace_persist_last_boot);
	snaptrace_persist_last_boot = NULL;
	ret = 0;
	if (snaptrace_persist_kept) {
		/*
		 * The region was kept as found: armed over now, at last. A
		 * release retried after a notifier failed does not arm again
		 * (a capture may be in it by then), and registers the rest.
		 */
		if (!snaptrace_persist_armed)
			ret = snaptrace_persist_arm(&st_pr, ktime_get_real_ns());
		if (!ret)
			ret = st_pr_arm_notifiers();
		if (ret && snaptrace_persist_armed)
			pr_warn("the kept region's release failed part way: %pe: armed, a notifier not registered: echo 0 > last_boot/release again\n",
				ERR_PTR(ret));
		else if (ret)
			pr_warn("the kept region's release failed: %pe\n", ERR_PTR(ret));
		if (!ret) {
			pr_info("the kept region is released: armed: 0x%llx, %zu bytes, boot id %016llx\n",
				st_pr.phys, st_pr.size, st_pr.boot_id);
			snaptrace_persist_kept = 0;
		}
	}
	mutex_unlock(&snaptrace_persist_lock);
	return ret ? ret : cnt;
}

static ssize_t st_pr_release_read(struct file *filp, char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	char s[4];
	int n;

	mutex_lock(&snaptrace_persist_lock);
	n = scnprintf(s, sizeof(s), "%d\n",
		      snaptrace_persist_last_boot || snaptrace_persist_kept);
	mutex_unlock(&snaptrace_persist_lock);
	return simple_read_from_buffer(ubuf, cnt, ppos, s, n);
}

/* last_boot/release, which persist_show.c creates with the others. */
const struct file_operations snaptrace_persist_release_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = st_pr_release_read,
	.write = st_pr_release_write,
	.llseek = default_llseek,
};

/* ------------------------------------------------------------------ */
/* Load and unload */

/* st_pr_refuse_region(): the reserved range holding @addr, if any. */
struct st_pr_rsv {
	u64 addr;
	u64 start;
	u64 end;
	bool found;
};

static int st_pr_rsv_find(struct resource *res, void *arg)
{
	struct st_pr_rsv *r = arg;

	if (res->start > r->addr || res->end < r->addr)
		return 0;
	r->start = res->start;
	r->end = res->end;
	r->found = true;
	return 1;
}

/*
 * How to set a range aside, where this architecture has a way: memmap=
 * is x86's (SIZE$ADDR reserves RAM in the e820 map); elsewhere the
 * kernel's reserve_mem= (Linux 6.11 on) does, by name.
 */
static const char *st_pr_how(void)
{
	if (IS_ENABLED(CONFIG_X86))
		return NULL;
	return "reserve_mem=SIZE:4096:NAME and persist_name=NAME (memmap= is x86's)";
}

/*
 * Why persist_address/persist_size were refused, and what to do: @ram is
 * how the range meets System RAM (region_intersects()).
 */
static void st_pr_refuse_region(int ram)
{
	u64 end = persist_address + persist_size - 1;
	struct st_pr_rsv r = { .addr = persist_address };
	const char *how = st_pr_how();

	walk_iomem_res_desc(IORES_DESC_RESERVED, IORESOURCE_MEM, 0, U64_MAX,
			    &r, st_pr_rsv_find);
	if (how && ram == REGION_INTERSECTS)
		pr_err("0x%llx..0x%llx is the kernel's memory: set a region aside with %s\n",
		       persist_address, end, how);
	else if (ram == REGION_INTERSECTS)
		pr_err("0x%llx..0x%llx is the kernel's memory: reserve it with memmap=%lu$0x%llx on the kernel's command line\n",
		       persist_address, end, persist_size, persist_address);
	else if (r.found && end > r.end)
		pr_err("0x%llx..0x%llx goes past the reserved range 0x%llx..0x%llx: persist_size=%llu at most at this address, or reserve more (%s)\n",
		       persist_address, end, r.start, r.end,
		       r.end - persist_address + 1, how ? how : "memmap=SIZE$ADDR");
	else if (how && ram == REGION_MIXED)
		pr_err("0x%llx..0x%llx is partly the kernel's memory: set a region aside with %s\n",
		       persist_address, end, how);
	else if (ram == REGION_MIXED)
		pr_err("0x%llx..0x%llx is partly the kernel's memory: reserve it with memmap=%lu$0x%llx on the kernel's command line\n",
		       persist_address, end, persist_size, persist_address);
	else if (how)
		pr_err("0x%llx..0x%llx is neither RAM nor reserved memory (a device's, or a hole: see /proc/iomem): set a region of RAM aside with %s\n",
		       persist_address, end, how);
	else
		pr_err("0x%llx..0x%llx is neither RAM nor reserved memory (a device's, or a hole: see /proc/iomem): memmap=SIZE$ADDR keeps RAM the machine has, inside a \"System RAM\" range\n",
		       persist_address, end);
}

/**
 * snaptrace_persist_check_align() - refuse a region that starts misaligned
 * @start: the region's physical address (memremap() keeps its offset in
 *	the page: the mapping is as aligned)
 * @name: its reserve_mem= name (persist_name=), or NULL (persist_address=)
 *
 * Every field of the region is at a multiple of its size from its start,
 * and its state word is claimed by a cmpxchg at the panic: from a start
 * that is not a multiple of %ST_PR_ADDR_ALIGN, that is a split lock on
 * x86 and an alignment fault on arm64, in the panic notifier. Refused at
 * load instead, before anything is claimed, mapped or written.
 *
 * Context: any.
 * Return: 0, or -EINVAL (said in the log).
 */
int snaptrace_persist_check_align(u64 start, const char *name)
{
	if (IS_ALIGNED(start, ST_PR_ADDR_ALIGN))
		return 0;
	if (name)
		pr_err("persist_name=%s: the reserve_mem= region starts at 0x%llx, not a multiple of %d: its 64-bit fields and the cmpxchg that claims it at a panic would be misaligned (a split lock on x86, an alignment fault on arm64): give it an alignment of %d or more (reserve_mem=SIZE:4096:%s)\n",
		       name, start, ST_PR_ADDR_ALIGN, ST_PR_ADDR_ALIGN, name);
	else
		pr_err("persist_address=0x%llx is not a multiple of %d: the region's 64-bit fields and the cmpxchg that claims it at a panic would be misaligned (a split lock on x86, an alignment fault on arm64): reserve a range that starts at a multiple of %d (%s)\n",
		       start, ST_PR_ADDR_ALIGN, ST_PR_ADDR_ALIGN,
		       st_pr_how() ?: "memmap=SIZE$ADDR");
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_check_align);

/* A parameter's name as the kernel matches it: '-' and '_' alike. */
static bool st_pr_param_is(const char *param, const char *want)
{
	for (; *param && *want; param++, want++) {
		char a = *param == '-' ? '_' : *param;
		char b = *want == '-' ? '_' : *want;

		if (a != b)
			return false;
	}
	return *param == *want;
}

/*
 * The reserve_mem= name in the value of a trace_instance= (ftrace's
 * enable_instances()): NAME[^FLAGS][@RESNAME][=BACKUP][,EVENTS], RESNAME
 * up to a '^'; NULL if none, or an ADDR:SIZE (a leading digit). @v is
 * cut in place.
 */
static char *st_pr_trace_instance_res(char *v)
{
	char *res;

	v[strcspn(v, ",=")] = 0;
	res = strchr(v, '@');
	if (!res)
		return NULL;
	res++;
	res[strcspn(res, "^")] = 0;
	if (!*res || isdigit(*res))
		return NULL;
	return res;
}

/**
 * snaptrace_persist_name_user() - who else the command line gives a region to
 * @cmdline: the kernel's command line, as /proc/cmdline shows it
 * @name: the name of a reserve_mem= region (persist_name=)
 * @arg: set to the argument that gives it away ("param=value", cut to
 *	@len bytes, NUL-terminated) if another user has it; "" otherwise
 * @len: bytes at @arg (at least 1)
 *
 * A reserve_mem= region is the memory of whoever names it, with nothing
 * to claim it by (it is System RAM): ftrace maps a trace instance's
 * persistent ring buffer into it with trace_instance=NAME@RESNAME (flags
 * after a '^', events after a ','), ramoops its records with
 * ramoops.mem_name=RESNAME; both write into it at boot, and a capture
 * would overwrite theirs, or they ours. The arguments are split as the
 * kernel splits them (next_arg(): quotes, '-' and '_' alike in a name),
 * up to a "--" (what follows is init's).
 *
 * Context: process context (allocates). Sleeps.
 * Return: an &enum st_pr_user, or -ENOMEM.
 */
int snaptrace_persist_name_user(const char *cmdline, const char *name,
				char *arg, size_t len)
{
	char *copy, *args, *param, *val, *res;
	int user = ST_PR_USER_NONE;

	arg[0] = 0;
	copy = kstrdup(cmdline, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	args = skip_spaces(copy);
	while (*args && user == ST_PR_USER_NONE) {
		args = next_arg(args, &param, &val);
		if (!val && !strcmp(param, "--"))
			break;
		if (!val)
			continue;
		scnprintf(arg, len, "%s=%s", param, val);
		if (st_pr_param_is(param, "ramoops.mem_name")) {
			if (!strcmp(val, name))
				user = ST_PR_USER_RAMOOPS;
		} else if (st_pr_param_is(param, "trace_instance")) {
			res = st_pr_trace_instance_res(val);
			if (res && !strcmp(res, name))
				user = ST_PR_USER_FTRACE;
		}
	}
	if (user == ST_PR_USER_NONE)
		arg[0] = 0;
	kfree(copy);
	return user;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_persist_name_user);

#ifdef SNAPTRACE_HAVE_RESERVE_MEM
/* Most of /proc/cmdline read (bootconfig's arguments make it long). */
#define ST_PR_CMDLINE_MAX	SZ_64K

/*
 * The kernel's command line: saved_command_line, which a module cannot
 * reach (not exported): /proc/cmdline shows it.
 */
static char *st_pr_cmdline(void)
{
#ifdef MODULE
	size_t len = 0;
	struct file *f;
	loff_t pos = 0;
	ssize_t n = 0;
	char *buf;

	f = filp_open("/proc/cmdline", O_RDONLY, 0);
	if (IS_ERR(f))
		return ERR_CAST(f);
	buf = kvmalloc(ST_PR_CMDLINE_MAX, GFP_KERNEL);
	while (buf && len < ST_PR_CMDLINE_MAX - 1) {
		n = kernel_read(f, buf + len, ST_PR_CMDLINE_MAX - 1 - len, &pos);
		if (n <= 0)
			break;
		len += n;
	}
	filp_close(f, NULL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (n < 0) {
		kvfree(buf);
		return ERR_PTR(n);
	}
	buf[len] = 0;
	return buf;
#else
	return kstrdup(saved_command_line, GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
#endif
}

/*
 * persist_name= is not snaptrace's alone if the command line gives the
 * region to ftrace or ramoops too: refused, saying whose it is, before
 * anything reads or writes it. A command line that cannot be read is
 * said, and not checked.
 */
static int st_pr_name_free(const char *name)
{
	char arg[128];
	char *cmdline;
	int user;

	cmdline = st_pr_cmdline();
	if (IS_ERR(cmdline)) {
		pr_warn("persist_name=%s: cannot read the kernel's command line (/proc/cmdline: %pe): not checked whether ftrace or ramoops also uses the region\n",
			name, cmdline);
		return 0;
	}
	user = snaptrace_persist_name_user(cmdline, name, arg, sizeof(arg));
	kvfree(cmdline);
	switch (user) {
	case ST_PR_USER_FTRACE:
		pr_err("persist_name=%s: reserve_mem region %s is also ftrace's: \"%s\" on the kernel's command line keeps a trace instance's persistent ring buffer in it: give snaptrace a reserve_mem= region of its own\n",
		       name, name, arg);
		return -EBUSY;
	case ST_PR_USER_RAMOOPS:
		pr_err("persist_name=%s: reserve_mem region %s is also ramoops's: \"%s\" on the kernel's command line keeps pstore's records in it: give snaptrace a reserve_mem= region of its own\n",
		       name, name, arg);
		return -EBUSY;
	default:
		return user;	/* 0, or -ENOMEM */
	}
}
#endif

/* The region the parameters name: its physical address and size. */
static int st_pr_region(phys_addr_t *start, phys_addr_t *size)
{
	u64 end;
	int ram, ret;

	if (persist_name) {
#ifdef SNAPTRACE_HAVE_RESERVE_MEM
		if (!reserve_mem_find_by_name(persist_name, start, size)) {
			pr_err("persist_name=%s: no reserve_mem= region of that name on the kernel's command line\n",
			       persist_name);
			return -ENOENT;
		}
		ret = st_pr_name_free(persist_name);
		if (ret)
			return ret;
		return snaptrace_persist_check_align(*start, persist_name);
#else
		if (IS_ENABLED(CONFIG_X86))
			pr_err("persist_name=%s: this kernel has no reserve_mem= (Linux 6.11 on): use memmap=SIZE$ADDR and persist_address=, persist_size=\n",
			       persist_name);
		else
			pr_err("persist_name=%s: this kernel has no reserve_mem= (Linux 6.11 on), and memmap= is x86's: no region can be kept on this kernel\n",
			       persist_name);
		return -EOPNOTSUPP;
#endif
	}
	if (!persist_size) {
		pr_err("persist_address=0x%llx persist_size=0: both are needed, a size of 0 bytes is none\n",
		       persist_address);
		return -EINVAL;
	}
	if (!persist_address) {
		pr_err("persist_address=0 persist_size=%lu: both are needed, and 0 is no address\n",
		       persist_size);
		return -EINVAL;
	}
	*start = persist_address;
	*size = persist_size;
	if (check_add_overflow(persist_address, (u64)persist_size - 1, &end)) {
		pr_err("persist_address=0x%llx persist_size=%lu: past the end of the address space\n",
		       persist_address, persist_size);
		return -EINVAL;
	}
	ret = snaptrace_persist_check_align(persist_address, NULL);
	if (ret)
		return ret;
	/*
	 * Memory the kernel uses is not ours (memmap=SIZE$ADDR keeps it
	 * out); nor is MMIO, ACPI's tables or NVS, a hole, or a range the
	 * firmware did not reserve: only a range reserved in the memory map,
	 * as memmap=SIZE$ADDR makes, all of it.
	 */
	ram = region_intersects(*start, *size, IORESOURCE_SYSTEM_RAM,
				IORES_DESC_NONE);
	if (ram == REGION_DISJOINT &&
	    region_intersects(*start, *size, IORESOURCE_MEM,
			      IORES_DESC_RESERVED) == REGION_INTERSECTS)
		return 0;
	st_pr_refuse_region(ram);
	return ram == REGION_DISJOINT ? -EINVAL : -EBUSY;
}

static void st_pr_say(int err)
{
	switch (err) {
	case -ENOMSG:
		pr_info("no previous capture: the region is not ours yet (first use, or garbage)\n");
		break;
	case -ENODATA:
		pr_info("no previous capture: armed by an earlier load (of this boot, or of a boot that did not panic), never captured\n");
		break;
	case -EINPROGRESS:
		/*
		 * Only with persist_discard=1 (else kept): the region is armed
		 * by now, the CPU is the state word's as found before.
		 */
		pr_warn("the previous boot's capture did not finish (the machine stopped while CPU %u was capturing) and its header is damaged: nothing to show; armed over it (persist_discard=1)\n",
			ST_PR_CAPTURING_CPU(st_pr.found_state));
		break;
	default:
		pr_warn("the region's previous capture is refused: %pe: armed over it (Documentation/persist.rst)\n",
			ERR_PTR(err));
		break;
	}
}

static void st_pr_add_module(struct module *mod)
{
	struct st_pr_mod *m = &st_pr.mods[st_pr.nr_mods++];

#ifdef SNAPTRACE_HAVE_MODULE_MEMORY
	m->base = (unsigned long)mod->mem[MOD_TEXT].base;
	m->size = mod->mem[MOD_TEXT].size;
#else
	m->base = (unsigned long)mod->core_layout.base;
	m->size = mod->core_layout.text_size;
#endif
	strscpy(m->name, module_name(mod), sizeof(m->name));
}

/*
 * Whether the region keeps what is written: a hole beyond the machine's
 * RAM that memmap= reserved all the same does not. The header's first
 * word is written inverted, read back and restored, before anything else
 * reads or writes the region and before a notifier could capture into it:
 * the region is left as found, a capture in it too.
 */
static bool st_pr_keeps_writes(void *base, size_t size)
{
	u64 *w = base, v;
	bool ok;

	if (size < sizeof(*w))
		return true;	/* too small for the headers: said later */
	v = READ_ONCE(*w);
	WRITE_ONCE(*w, ~v);
	ok = READ_ONCE(*w) == ~v;
	WRITE_ONCE(*w, v);
	return ok;
}

/**
 * snaptrace_persist_init() - take the previous capture, get ready to arm
 * @root: snaptrace's debugfs directory, for last_boot/
 *
 * Without persist_address/persist_size or persist_name, does nothing and
 * says nothing. Otherwise maps the region, checks that it keeps what is
 * written, allocates the spare of the instance recorded, validates the
 * region and copies its capture out (last_boot/), and registers the panic
 * notifier (and the die notifier with persist_on_oops). It does not arm
 * the region: snaptrace_persist_start() does, at the very end of module
 * init, when nothing can fail any more. A load that fails before (here,
 * or later in module init, which then calls snaptrace_persist_exit())
 * has written nothing to the region: the previous boot's capture is still
 * there for the next load, which shows it. Until armed, a capture gets
 * -EBUSY (the region's boot id is not this load's): a panic during module
 * init is not captured. A region refused but kept
 * (snaptrace_persist_keeps(): another version's capture, a damaged one)
 * is left as found and not armed, until "echo 0 > last_boot/release";
 * persist_discard=1 arms over it at snaptrace_persist_start().
 *
 * Context: module init, after snaptrace_instances_init(). Sleeps.
 * Return: 0, or a negative errno (said in the log), nothing left behind
 * and the region as found.
 */
int snaptrace_persist_init(struct dentry *root)
{
	struct snaptrace_persist_last *last;
	const struct st_pr_hdr *hdr;
	phys_addr_t start, size;
	int ret, err;

	if (!persist_size && !persist_address && !persist_name)
		return 0;
	ret = st_pr_region(&start, &size);
	if (ret)
		return ret;
	/*
	 * A reserved range, ours alone: another driver's (ramoops, a second
	 * user) is refused. A reserve_mem= region is System RAM, kept by its
	 * name: it cannot be claimed as I/O memory, and needs not be.
	 */
	if (!persist_name) {
		if (!request_mem_region(start, size, "snaptrace")) {
			pr_err("0x%llx..0x%llx is in use by another driver (see /proc/iomem)\n",
			       (u64)start, (u64)(start + size - 1));
			return -EBUSY;
		}
		st_pr_claimed = true;
	}
	st_pr.size = size;
	st_pr.phys = start;
	st_pr.base = memremap(start, size, MEMREMAP_WB);
	if (!st_pr.base) {
		pr_err("cannot map 0x%llx (%llu bytes)\n", (u64)start, (u64)size);
		ret = -ENOMEM;
		goto fail;
	}
	st_pr_mapped = true;
	/*
	 * A range that does not keep what is written is no memory: a hole
	 * beyond the machine's RAM that memmap= reserved all the same.
	 */
	if (!st_pr_keeps_writes(st_pr.base, size)) {
		pr_err("0x%llx..0x%llx does not keep what is written: no memory there (is the machine's RAM that large? see \"System RAM\" in /proc/iomem)\n",
		       (u64)start, (u64)(start + size - 1));
		ret = -EIO;
		goto fail;
	}
	hdr = st_pr.base;
	st_pr.boot_id = get_random_u64();
	st_pr.remotes = true;	/* the remotes' last traces too */
	ret = -ENOMEM;
	st_pr.rec = kmalloc(sizeof(*st_pr.rec), GFP_KERNEL);
	st_pr.need = kcalloc(nr_cpu_ids, sizeof(*st_pr.need), GFP_KERNEL);
	if (!st_pr.rec || !st_pr.need)
		goto fail;
	st_pr_add_module(THIS_MODULE);

	st_pr_buf = snaptrace_get_by_name(persist_instance, 0);
	if (IS_ERR(st_pr_buf)) {
		ret = PTR_ERR(st_pr_buf);
		st_pr_buf = NULL;
		pr_err("persist_instance=%s: %pe\n", persist_instance, ERR_PTR(ret));
		goto fail;
	}
	ret = snaptrace_alloc_snapshot(st_pr_buf);
	if (ret)
		goto fail;

	/* Copied out; the region is not written until it is armed. */
	ret = snaptrace_persist_take(&st_pr, ktime_get_real_ns(), persist_discard,
				     &last, &err);
	if (ret == -ENOMEM)
		goto fail;
	if (ret == -ENOSPC) {
		pr_err("%llu bytes is too small for the headers\n", (u64)size);
		goto fail;
	}
	if (ret) {
		/* Evidence: kept as found, not armed, until released. */
		snaptrace_persist_kept = ret;
		snaptrace_persist_kept_past_end = ret == -ERANGE &&
				      snaptrace_persist_geometry_ok(hdr, st_pr.size);
		pr_warn("the region's previous capture cannot be shown (%pe: %s): kept as found, not armed: this boot is not captured until it is released (echo 0 > last_boot/release, or load with persist_discard=1)\n",
			ERR_PTR(ret), snaptrace_persist_why(ret));
		st_pr_say_range(ret, hdr, st_pr.size);
		ret = snaptrace_persist_debugfs(root);
		if (ret)
			goto fail;
		return 0;
	}
	if (err)
		st_pr_say(err);
	if (last) {
		snaptrace_persist_last_boot = last;
		if (last->unfinished)
			pr_warn("the previous boot's capture (%s) did not finish: the machine stopped while CPU %d was capturing; %llu records found intact%s: see last_boot/\n",
				snaptrace_persist_reason(last->cap.reason), last->cap.cpu,
				last->kept, st_pr_doubtful(last));
		else
			pr_info("the previous boot's capture (%s): %llu record%s, %llu torn, %llu corrupt%s: see last_boot/\n",
				snaptrace_persist_reason(last->cap.reason), last->kept,
				last->kept == 1 ? "" : "s", last->torn,
				last->corrupt, st_pr_doubtful(last));
		ret = snaptrace_persist_debugfs(root);
		if (ret)
			goto fail;
	}
	ret = st_pr_arm_notifiers();
	if (ret) {
		pr_err("cannot register the die notifier (persist_on_oops=1): %pe: not loaded, the region left as found\n",
		       ERR_PTR(ret));
		goto fail;
	}
	st_pr_to_arm = true;	/* by snaptrace_persist_start() */
	return 0;
fail:
	snaptrace_persist_exit();
	return ret;
}

/**
 * snaptrace_persist_start() - arm the region, at the end of module init
 *
 * Arms the region that snaptrace_persist_init() took the previous capture
 * out of (snaptrace_persist_arm(), which cannot fail by then: the size was
 * checked), and says so in the log; from now on a panic (or an oops, with
 * persist_on_oops) captures into it. Does nothing if
 * snaptrace_persist_init() did nothing, or kept the region as found
 * (last_boot/release arms that one). Called last, when module init cannot
 * fail any more: a load that fails leaves the previous capture in the
 * region, for the next load. No upstream twin.
 *
 * Context: module init, after every step that may fail. Sleeps (takes
 * snaptrace_persist_lock, against last_boot/release).
 */
void snaptrace_persist_start(void)
{
	mutex_lock(&snaptrace_persist_lock);
	if (st_pr_to_arm &&
	    !WARN_ON_ONCE(snaptrace_persist_arm(&st_pr, ktime_get_real_ns())))
		pr_info("armed: 0x%llx, %zu bytes, boot id %016llx\n", st_pr.phys,
			st_pr.size, st_pr.boot_id);
	st_pr_to_arm = false;
	mutex_unlock(&snaptrace_persist_lock);
}

/**
 * snaptrace_persist_exit() - undo snaptrace_persist_init()
 *
 * Removes last_boot/ (first: a release under way, which may arm, ends
 * before), unregisters the notifiers (the region stays armed: a capture
 * of a later load of this boot finds its boot id differ and is shown),
 * frees the capture, unmaps the region and drops the instance. Safe to
 * call when snaptrace_persist_init() did nothing or failed halfway, or
 * succeeded and module init failed after it: snaptrace_persist_start()
 * has not armed the region then, which holds the previous capture still,
 * for the next load.
 *
 * Context: module exit, or init failing. Sleeps.
 */
void snaptrace_persist_exit(void)
{
	/* First: a release under way (which may arm) ends before this goes on. */
	debugfs_remove(snaptrace_persist_dir);
	snaptrace_persist_dir = NULL;
	if (st_pr_die_registered)
		unregister_die_notifier(&st_pr_die_nb);
	st_pr_die_registered = false;
	/*
	 * persist_test_capture's store runs under the module's parameter
	 * lock until the module's sysfs files are gone, which is after this
	 * returns: a capture under way ends before the region is unmapped,
	 * and none begins after.
	 */
	kernel_param_lock(THIS_MODULE);
	snaptrace_persist_armed = false;
	kernel_param_unlock(THIS_MODULE);
	if (st_pr_panic_registered)
		atomic_notifier_chain_unregister(&panic_notifier_list,
						 &st_pr_panic_nb);
	st_pr_panic_registered = false;
	mutex_lock(&snaptrace_persist_lock);
	snaptrace_persist_last_free(snaptrace_persist_last_boot);
	snaptrace_persist_last_boot = NULL;
	snaptrace_persist_kept = 0;
	snaptrace_persist_kept_past_end = false;
	st_pr_to_arm = false;
	mutex_unlock(&snaptrace_persist_lock);
	if (st_pr_buf)
		snaptrace_put(st_pr_buf);
	st_pr_buf = NULL;
	if (st_pr_mapped)
		memunmap(st_pr.base);
	st_pr_mapped = false;
	kfree(st_pr.rec);
	kfree(st_pr.need);
	if (st_pr_claimed)
		release_mem_region(st_pr.phys, st_pr.size);
	st_pr_claimed = false;
	memset(&st_pr, 0, sizeof(st_pr));
}
