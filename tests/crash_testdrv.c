// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace_crash.ko: a test-only module that writes a known workload into
 * snaptrace's default buffer and then makes the machine die in a chosen
 * way, for the persist_reboot scenario (tests/scenarios/persist_reboot.sh,
 * Documentation/persist.rst), which checks at the next boot that the
 * capture holds exactly what was written. It is built for every kernel by
 * scripts/build-module.sh (CONFIG_SNAPTRACE_CRASH_TEST=m, see Kbuild) and
 * never by ``make``, ``make install`` or DKMS: nothing of it is shipped.
 * Its NMI context needs an x86 local APIC (NMIs raised with
 * apic->send_IPI()); elsewhere (arm64, 32-bit ARM) it has no NMI part: the
 * workload writes no NMI record and there is no nmi_panic file.
 *
 * Files under /sys/kernel/debug/snaptrace_crash/ (root only):
 *
 * workload (rw)
 *	Write N (1..100000): N rounds on each online CPU, one CPU after the
 *	other; each round writes one record from task context (a kworker
 *	bound to the CPU), then one from softirq (a tasklet), one from
 *	hardirq (an irq_work, hard on PREEMPT_RT too) and one from NMI (a
 *	self-NMI through the local APIC, on x86 only), each waited for
 *	before the next,
 *	so the order is known. A record's payload is the text
 *	``st_crash cpuC CTX SEQ``: C the CPU it runs on, CTX one of task,
 *	softirq, hardirq, nmi, SEQ the round (0..N-1). A record is written
 *	only if it runs on C in context CTX; otherwise, or if the write fails,
 *	it is counted failed. Read: one line per CPU of the last workload,
 *	``cpuC task N softirq N hardirq N nmi N failed N``, the records
 *	written in each context and those that were not.
 * torn (w)
 *	Write a CPU number: a kernel thread bound to that CPU disables
 *	interrupts (on x86, whose panic stops other CPUs by NMI; preemption
 *	elsewhere, where the stop is an interrupt), reserves a record
 *	(``st_crash cpuC torn``) and never commits it, spinning until the
 *	panic stops its CPU: at the panic,
 *	that CPU has exactly one record open. The write returns once it is
 *	reserved. The caller must run on another CPU, and stay there
 *	(taskset): nothing else runs on that CPU any more. The module cannot
 *	be unloaded afterwards. -EBUSY if called on that CPU.
 * nmi_panic (w)
 *	Write ``CPU MESSAGE``: an NMI raised on that CPU calls
 *	nmi_panic() with MESSAGE, from the NMI handler (x86 only).
 * oops (w)
 *	Write 1: a NULL pointer dereference in task context (the writer's),
 *	not instrumented by KASAN, so the kernel reports the page fault
 *	itself (an oops; a panic with panic_on_oops).
 * panic (w)
 *	Write MESSAGE: panic("%s", MESSAGE) in task context.
 * scribble (w), verify (w)
 *	Write ``ADDR SIZE SEED`` (ADDR and SIZE in hex with 0x or decimal,
 *	SEED decimal): scribble fills the physical range with the 64-bit
 *	words of an xorshift64 stream from SEED (0: zeros); verify succeeds
 *	if the range holds exactly that, else fails with -EILSEQ. The range
 *	must be reserved memory nobody has claimed (not System RAM, not
 *	snaptrace's while it is loaded): it is claimed for the time of the
 *	access, mapped with memremap(MEMREMAP_WB), unmapped. Or write
 *	``NAME SEED``: the same over the reserve_mem= region NAME (Linux
 *	6.11 on), RAM the kernel set aside at boot, which nobody claims.
 *
 * Everything runs under one mutex, one action at a time.
 */
#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/panic.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/irq_vectors.h>
#include <asm/nmi.h>
#endif

#include <snaptrace/snaptrace.h>

#define ST_CR_NAME		"snaptrace_crash"
#define ST_CR_ROUNDS_MAX	100000
#define ST_CR_MSG_MAX		128
/* How long a raised NMI, a tasklet or an irq_work is waited for. */
#define ST_CR_NMI_WAIT_US	(10 * USEC_PER_SEC)
#define ST_CR_WAIT_MS		10000

enum st_cr_ctx {
	ST_CR_TASK,
	ST_CR_SOFTIRQ,
	ST_CR_HARDIRQ,
	ST_CR_NMI,
	ST_CR_NCTX,
};

static const char * const st_cr_ctx_name[ST_CR_NCTX] = {
	[ST_CR_TASK] = "task",
	[ST_CR_SOFTIRQ] = "softirq",
	[ST_CR_HARDIRQ] = "hardirq",
	[ST_CR_NMI] = "nmi",
};

/**
 * struct st_cr_cpu - one CPU's part of the workload
 * @cpu: the CPU
 * @seq: the round being written
 * @written: records written, per &enum st_cr_ctx
 * @failed: records not written: a write that failed, or a callback that
 *	ran on another CPU or in another context than asked
 * @tasklet: the softirq's record
 * @work: the hardirq's record
 * @done: the tasklet's or the irq_work's, done
 */
struct st_cr_cpu {
	int cpu;
	unsigned int seq;
	unsigned int written[ST_CR_NCTX];
	unsigned int failed;
	struct tasklet_struct tasklet;
	struct irq_work work;
	struct completion done;
};

static DEFINE_MUTEX(st_cr_lock);
static struct snaptrace_buffer *st_cr_buf;
static struct st_cr_cpu *st_cr_cpus;
static struct dentry *st_cr_dir;
static unsigned int st_cr_rounds;

#ifdef CONFIG_X86_LOCAL_APIC
static char st_cr_msg[ST_CR_MSG_MAX];

/* What an NMI we raise does: CPU + 1 it is raised on, 0 when none is. */
static atomic_t st_cr_nmi_armed = ATOMIC_INIT(0);
static atomic_t st_cr_nmi_done = ATOMIC_INIT(0);
static struct st_cr_cpu *st_cr_nmi_job;	/* NULL: panic with st_cr_msg */
#endif

static struct completion st_cr_torn_ready;
static int st_cr_torn_rc;
static char st_cr_torn_text[32];

/* The record of round c->seq in context @ctx, if this is where it runs. */
static void st_cr_record(struct st_cr_cpu *c, enum st_cr_ctx ctx, bool in_ctx)
{
	char text[48];
	int len;

	if (!in_ctx || smp_processor_id() != c->cpu) {
		c->failed++;
		return;
	}
	len = scnprintf(text, sizeof(text), "st_crash cpu%d %s %u", c->cpu,
			st_cr_ctx_name[ctx], c->seq);
	if (snaptrace_write(st_cr_buf, text, len))
		c->failed++;
	else
		c->written[ctx]++;
}

static void st_cr_tasklet(struct tasklet_struct *t)
{
	struct st_cr_cpu *c = from_tasklet(c, t, tasklet);

	st_cr_record(c, ST_CR_SOFTIRQ, in_serving_softirq() && !in_hardirq());
	complete(&c->done);
}

static void st_cr_irq_work(struct irq_work *w)
{
	struct st_cr_cpu *c = container_of(w, struct st_cr_cpu, work);

	st_cr_record(c, ST_CR_HARDIRQ, in_hardirq() && !in_nmi());
	complete(&c->done);
}

#ifdef CONFIG_X86_LOCAL_APIC
/* Takes only the NMI raised on this CPU by st_cr_nmi_raise(). */
static int st_cr_nmi(unsigned int type, struct pt_regs *regs)
{
	int cpu = smp_processor_id();
	struct st_cr_cpu *c;

	if (atomic_cmpxchg(&st_cr_nmi_armed, cpu + 1, 0) != cpu + 1)
		return NMI_DONE;
	c = READ_ONCE(st_cr_nmi_job);
	if (!c)
		nmi_panic(regs, st_cr_msg);
	else
		st_cr_record(c, ST_CR_NMI, in_nmi());
	atomic_set_release(&st_cr_nmi_done, 1);
	return NMI_HANDLED;
}

/*
 * Raises an NMI on @cpu for @job (NULL: panic) and waits until its handler
 * ran. apic->send_IPI() goes through the ICR with NMI delivery on xAPIC
 * and x2APIC alike (x2APIC's send_IPI_self() has no NMI mode).
 */
static int st_cr_nmi_raise(int cpu, struct st_cr_cpu *job)
{
	unsigned long i;

	WRITE_ONCE(st_cr_nmi_job, job);
	atomic_set(&st_cr_nmi_done, 0);
	atomic_set_release(&st_cr_nmi_armed, cpu + 1);
	apic->send_IPI(cpu, NMI_VECTOR);
	for (i = 0; i < ST_CR_NMI_WAIT_US && !atomic_read_acquire(&st_cr_nmi_done); i++)
		udelay(1);
	if (atomic_read_acquire(&st_cr_nmi_done))
		return 0;
	/* Withdrawn; or the handler took it meanwhile: let it finish. */
	if (atomic_xchg(&st_cr_nmi_armed, 0))
		return -ETIMEDOUT;
	while (!atomic_read_acquire(&st_cr_nmi_done))
		cpu_relax();
	return 0;
}

static int st_cr_nmi_init(void)
{
	return register_nmi_handler(NMI_LOCAL, st_cr_nmi, 0, ST_CR_NAME);
}

static void st_cr_nmi_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, ST_CR_NAME);
}
#else
/* No NMI to raise: the workload writes no NMI record. */
static int st_cr_nmi_raise(int cpu, struct st_cr_cpu *job)
{
	return 0;
}

static int st_cr_nmi_init(void)
{
	return 0;
}

static void st_cr_nmi_exit(void)
{
}
#endif

/* Runs in a kworker bound to c->cpu (work_on_cpu()). */
static long st_cr_workload_cpu(void *arg)
{
	struct st_cr_cpu *c = arg;
	unsigned int i;
	int ret;

	for (i = 0; i < st_cr_rounds; i++) {
		c->seq = i;
		st_cr_record(c, ST_CR_TASK, in_task());

		reinit_completion(&c->done);
		tasklet_schedule(&c->tasklet);
		if (!wait_for_completion_timeout(&c->done,
						 msecs_to_jiffies(ST_CR_WAIT_MS)))
			return -ETIMEDOUT;

		reinit_completion(&c->done);
		irq_work_queue(&c->work);
		if (!wait_for_completion_timeout(&c->done,
						 msecs_to_jiffies(ST_CR_WAIT_MS)))
			return -ETIMEDOUT;

		ret = st_cr_nmi_raise(c->cpu, c);
		if (ret)
			return ret;
	}
	return 0;
}

static int st_cr_workload(unsigned int rounds)
{
	struct st_cr_cpu *c;
	long ret = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = &st_cr_cpus[cpu];
		c->seq = 0;
		c->failed = 0;
		memset(c->written, 0, sizeof(c->written));
	}
	st_cr_rounds = rounds;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ret = work_on_cpu(cpu, st_cr_workload_cpu, &st_cr_cpus[cpu]);
		if (ret)
			break;
	}
	cpus_read_unlock();
	return ret;
}

static int st_cr_workload_show(struct seq_file *m, void *unused)
{
	struct st_cr_cpu *c;
	int cpu;

	mutex_lock(&st_cr_lock);
	for_each_online_cpu(cpu) {
		c = &st_cr_cpus[cpu];
		seq_printf(m, "cpu%d task %u softirq %u hardirq %u nmi %u failed %u\n",
			   cpu, c->written[ST_CR_TASK], c->written[ST_CR_SOFTIRQ],
			   c->written[ST_CR_HARDIRQ], c->written[ST_CR_NMI],
			   c->failed);
	}
	mutex_unlock(&st_cr_lock);
	return 0;
}

static int st_cr_workload_open(struct inode *inode, struct file *filp)
{
	return single_open(filp, st_cr_workload_show, NULL);
}

/* Copies a write of at most @size - 1 bytes, NUL-terminated, trimmed. */
static int st_cr_get(const char __user *ubuf, size_t cnt, char *buf,
		     size_t size, char **s)
{
	if (!cnt || cnt >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	*s = strim(buf);
	return 0;
}

static ssize_t st_cr_workload_write(struct file *filp, const char __user *ubuf,
				    size_t cnt, loff_t *ppos)
{
	unsigned int rounds;
	int ret;

	ret = kstrtouint_from_user(ubuf, cnt, 0, &rounds);
	if (ret)
		return ret;
	if (!rounds || rounds > ST_CR_ROUNDS_MAX)
		return -EINVAL;
	mutex_lock(&st_cr_lock);
	ret = st_cr_workload(rounds);
	mutex_unlock(&st_cr_lock);
	return ret ? ret : cnt;
}

static const struct file_operations st_cr_workload_fops = {
	.owner = THIS_MODULE,
	.open = st_cr_workload_open,
	.read = seq_read,
	.write = st_cr_workload_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * What the torn writer holds off while its record is open: interrupts on
 * x86, whose panic stops the other CPUs by NMI; preemption elsewhere,
 * where the stop is an interrupt (IPI_CPU_STOP) it must take.
 */
static void st_cr_torn_off(void)
{
	if (IS_ENABLED(CONFIG_X86))
		local_irq_disable();
	else
		preempt_disable();
}

static void st_cr_torn_on(void)
{
	if (IS_ENABLED(CONFIG_X86))
		local_irq_enable();
	else
		preempt_enable();
}

/* The torn writer: never returns once its record is reserved. */
static int st_cr_torn_fn(void *unused)
{
	struct snaptrace_reservation res;
	size_t len = strlen(st_cr_torn_text);
	void *p;

	st_cr_torn_off();
	p = snaptrace_reserve(st_cr_buf, len, &res);
	if (p) {
		memcpy(p, st_cr_torn_text, len);
		st_cr_torn_rc = 0;
		complete(&st_cr_torn_ready);
		/* Open until the panic's NMI stops this CPU. */
		for (;;)
			cpu_relax();
	}
	st_cr_torn_on();
	st_cr_torn_rc = -ENOSPC;
	complete(&st_cr_torn_ready);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int st_cr_torn(unsigned int cpu)
{
	struct task_struct *t;
	int ret;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	if (cpu == raw_smp_processor_id())
		return -EBUSY;
	scnprintf(st_cr_torn_text, sizeof(st_cr_torn_text), "st_crash cpu%u torn", cpu);
	init_completion(&st_cr_torn_ready);
	t = kthread_create(st_cr_torn_fn, NULL, "st_crash_torn/%u", cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	/* It never ends: keep the module's text. */
	__module_get(THIS_MODULE);
	get_task_struct(t);
	wake_up_process(t);
	wait_for_completion(&st_cr_torn_ready);
	ret = st_cr_torn_rc;
	if (ret) {
		kthread_stop(t);
		module_put(THIS_MODULE);
	}
	put_task_struct(t);
	return ret;
}

static ssize_t st_cr_torn_write(struct file *filp, const char __user *ubuf,
				size_t cnt, loff_t *ppos)
{
	unsigned int cpu;
	int ret;

	ret = kstrtouint_from_user(ubuf, cnt, 0, &cpu);
	if (ret)
		return ret;
	mutex_lock(&st_cr_lock);
	ret = st_cr_torn(cpu);
	mutex_unlock(&st_cr_lock);
	return ret ? ret : cnt;
}

static const struct file_operations st_cr_torn_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = st_cr_torn_write,
	.llseek = noop_llseek,
};

#ifdef CONFIG_X86_LOCAL_APIC
static ssize_t st_cr_nmi_panic_write(struct file *filp, const char __user *ubuf,
				     size_t cnt, loff_t *ppos)
{
	char buf[ST_CR_MSG_MAX + 16], *s, *msg;
	unsigned int cpu;
	int ret;

	ret = st_cr_get(ubuf, cnt, buf, sizeof(buf), &s);
	if (ret)
		return ret;
	msg = strchr(s, ' ');
	if (!msg)
		return -EINVAL;
	*msg++ = '\0';
	msg = skip_spaces(msg);
	ret = kstrtouint(s, 0, &cpu);
	if (ret)
		return ret;
	if (!*msg || strlen(msg) >= ST_CR_MSG_MAX || cpu >= nr_cpu_ids ||
	    !cpu_online(cpu))
		return -EINVAL;
	mutex_lock(&st_cr_lock);
	strscpy(st_cr_msg, msg, sizeof(st_cr_msg));
	ret = st_cr_nmi_raise(cpu, NULL);
	mutex_unlock(&st_cr_lock);
	/* Only if the NMI never came. */
	return ret ? ret : cnt;
}

static const struct file_operations st_cr_nmi_panic_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = st_cr_nmi_panic_write,
	.llseek = noop_llseek,
};

static void st_cr_nmi_files(void)
{
	debugfs_create_file("nmi_panic", 0200, st_cr_dir, NULL, &st_cr_nmi_panic_fops);
}
#else
static void st_cr_nmi_files(void)
{
}
#endif

/* Never set: read once, so that the compiler cannot see it is NULL. */
static int *st_cr_null;

/* Not instrumented: the fault is the kernel's own report, not KASAN's. */
static noinline __no_sanitize_address void st_cr_oops(void)
{
	int *p = READ_ONCE(st_cr_null);

	WRITE_ONCE(*p, 1);
}

static ssize_t st_cr_oops_write(struct file *filp, const char __user *ubuf,
				size_t cnt, loff_t *ppos)
{
	unsigned int v;
	int ret;

	ret = kstrtouint_from_user(ubuf, cnt, 0, &v);
	if (ret)
		return ret;
	if (v != 1)
		return -EINVAL;
	st_cr_oops();
	return cnt;
}

static const struct file_operations st_cr_oops_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = st_cr_oops_write,
	.llseek = noop_llseek,
};

static ssize_t st_cr_panic_write(struct file *filp, const char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	char buf[ST_CR_MSG_MAX], *s;
	int ret;

	ret = st_cr_get(ubuf, cnt, buf, sizeof(buf), &s);
	if (ret)
		return ret;
	if (!*s)
		return -EINVAL;
	panic("%s", s);
}

static const struct file_operations st_cr_panic_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = st_cr_panic_write,
	.llseek = noop_llseek,
};

/* The next word of the xorshift64 stream (Marsaglia); 0 stays 0. */
static u64 st_cr_next(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Fills (@check false) or compares the range with the stream of @seed. A
 * reserve_mem= region (@named) is RAM set aside at boot that nobody
 * claims: it is neither refused as RAM nor claimed.
 */
static int st_cr_range(u64 addr, u64 size, u64 seed, bool check, bool named)
{
	u64 *p, x = seed, i;
	int ret = 0;

	if (!size || size % sizeof(u64) || addr % PAGE_SIZE || addr + size < addr)
		return -EINVAL;
	if (!named && region_intersects(addr, size, IORESOURCE_SYSTEM_RAM,
					IORES_DESC_NONE) != REGION_DISJOINT)
		return -EPERM;
	if (!named && !request_mem_region(addr, size, ST_CR_NAME))
		return -EBUSY;
	p = memremap(addr, size, MEMREMAP_WB);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < size / sizeof(u64); i++) {
		u64 w = st_cr_next(&x);

		if (!check) {
			p[i] = w;
		} else if (p[i] != w) {
			ret = -EILSEQ;
			break;
		}
	}
	memunmap(p);
out:
	if (!named)
		release_mem_region(addr, size);
	return ret;
}

/* The reserve_mem= region @name: 0, or -ENOENT. */
static int st_cr_resmem(const char *name, u64 *addr, u64 *size)
{
#ifdef SNAPTRACE_HAVE_RESERVE_MEM
	phys_addr_t start, len;

	if (!reserve_mem_find_by_name(name, &start, &len))
		return -ENOENT;
	*addr = start;
	*size = len;
	return 0;
#else
	return -ENOENT;
#endif
}

static ssize_t st_cr_range_write(struct file *filp, const char __user *ubuf,
				 size_t cnt, loff_t *ppos, bool check)
{
	char buf[80], *s, *tok[3];
	bool named = false;
	u64 v[3];
	int i, ret;

	ret = st_cr_get(ubuf, cnt, buf, sizeof(buf), &s);
	if (ret)
		return ret;
	/* NAME SEED: a reserve_mem= region's address and size. */
	if (*s && !isdigit(*s)) {
		tok[0] = strsep(&s, " ");
		ret = st_cr_resmem(tok[0], &v[0], &v[1]);
		if (ret)
			return ret;
		named = true;
		s = s ? skip_spaces(s) : NULL;
		if (!s || !*s)
			return -EINVAL;
		i = 2;
	} else {
		i = 0;
	}
	for (; i < 3; i++) {
		tok[i] = strsep(&s, " ");
		if (!tok[i])
			return -EINVAL;
		ret = kstrtou64(tok[i], 0, &v[i]);
		if (ret)
			return ret;
		s = s ? skip_spaces(s) : NULL;
	}
	if (s && *s)
		return -EINVAL;
	mutex_lock(&st_cr_lock);
	ret = st_cr_range(v[0], v[1], v[2], check, named);
	mutex_unlock(&st_cr_lock);
	return ret ? ret : cnt;
}

static ssize_t st_cr_scribble_write(struct file *filp, const char __user *ubuf,
				    size_t cnt, loff_t *ppos)
{
	return st_cr_range_write(filp, ubuf, cnt, ppos, false);
}

static ssize_t st_cr_verify_write(struct file *filp, const char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	return st_cr_range_write(filp, ubuf, cnt, ppos, true);
}

static const struct file_operations st_cr_scribble_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = st_cr_scribble_write,
	.llseek = noop_llseek,
};

static const struct file_operations st_cr_verify_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = st_cr_verify_write,
	.llseek = noop_llseek,
};

static int __init st_cr_init(void)
{
	struct st_cr_cpu *c;
	int cpu, ret;

	st_cr_cpus = kcalloc(nr_cpu_ids, sizeof(*st_cr_cpus), GFP_KERNEL);
	if (!st_cr_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		c = &st_cr_cpus[cpu];
		c->cpu = cpu;
		tasklet_setup(&c->tasklet, st_cr_tasklet);
		c->work = IRQ_WORK_INIT_HARD(st_cr_irq_work);
		init_completion(&c->done);
	}
	st_cr_buf = snaptrace_get_by_name(NULL, 0);
	if (IS_ERR(st_cr_buf)) {
		ret = PTR_ERR(st_cr_buf);
		goto free;
	}
	ret = st_cr_nmi_init();
	if (ret)
		goto put;
	st_cr_dir = debugfs_create_dir(ST_CR_NAME, NULL);
	if (IS_ERR(st_cr_dir)) {
		ret = PTR_ERR(st_cr_dir);
		goto nmi;
	}
	debugfs_create_file("workload", 0600, st_cr_dir, NULL, &st_cr_workload_fops);
	debugfs_create_file("torn", 0200, st_cr_dir, NULL, &st_cr_torn_fops);
	st_cr_nmi_files();
	debugfs_create_file("oops", 0200, st_cr_dir, NULL, &st_cr_oops_fops);
	debugfs_create_file("panic", 0200, st_cr_dir, NULL, &st_cr_panic_fops);
	debugfs_create_file("scribble", 0200, st_cr_dir, NULL, &st_cr_scribble_fops);
	debugfs_create_file("verify", 0200, st_cr_dir, NULL, &st_cr_verify_fops);
	return 0;
nmi:
	st_cr_nmi_exit();
put:
	snaptrace_put(st_cr_buf);
free:
	kfree(st_cr_cpus);
	return ret;
}

static void __exit st_cr_exit(void)
{
	int cpu;

	debugfs_remove(st_cr_dir);
	st_cr_nmi_exit();
	for_each_possible_cpu(cpu) {
		tasklet_kill(&st_cr_cpus[cpu].tasklet);
		irq_work_sync(&st_cr_cpus[cpu].work);
	}
	snaptrace_put(st_cr_buf);
	kfree(st_cr_cpus);
}

module_init(st_cr_init);
module_exit(st_cr_exit);

MODULE_DESCRIPTION("snaptrace tests: a known workload, then a crash of a chosen kind");
MODULE_LICENSE("GPL");
