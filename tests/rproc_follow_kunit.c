// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of following upstream's remote processors (src/rproc_follow.c)
 * with real struct rprocs: those of the test driver (rproc_testdrv.c,
 * module snaptrace_rproc_test), which upstream's core parses, loads, boots,
 * crashes and recovers, from our example images, the fixture images and
 * images built here, and whose timer "firmware" writes each trace
 * convention real firmware uses.
 *
 * Completions signalled from ops->start, ops->stop and the firmware's last
 * tick, and flush_work() of upstream's crash handler, are what the tests
 * wait for; a bounded wait only guards against a hang, and fails the test.
 *
 * Each case sets what upstream's own debugfs shows (the new run after a
 * recovery) against snaptrace's traceN_last (the crash-time log, decoded,
 * byte for byte, oldest line first) and its crashes file. Letting go of
 * running remotes is tested here through snaptrace_follow_stop() and
 * _start() (what rmmod and insmod do), and by rmmod itself in the
 * rproc_follow scenario: the driver is a module of its own for that.
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/firmware.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mman.h>
#include <linux/platform_device.h>
#include <linux/preempt.h>
#include <linux/remoteproc.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <kunit/test.h>

#include "../src/rproc.h"
#include "../src/rproc_follow.h"
#include "rproc_testdrv.h"
#include "st_kunit.h"

/* Upstream's own debugfs directory of the remotes. */
#define RF_UPSTREAM		ST_DEBUGFS "/remoteproc"
/* snaptrace's, of the remotes it follows. */
#define RF_ST			ST_ROOT "/remoteproc"
#define RF_FIXTURES		"snaptrace-fixtures/"
/* Hang guard of every wait: reaching it fails the test. */
#define RF_GUARD_MS		120000

/* ---- the test driver's remotes (rproc_testdrv.c) ---- */

static void rf_unregister(void *r)
{
	st_rf_unregister(r);
}

/*
 * A registered remote, named @name, of firmware @fw; unregistered when the
 * test ends unless rf_unbind() did. Its runs: none until the test says.
 */
static struct rf_remote *rf_new(struct kunit *test, const char *name,
				const char *fw, bool no_recovery)
{
	struct rf_remote *r = st_rf_register(name, fw, no_recovery);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(r), "register %s: %pe", name, r);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rf_unregister, r), 0);
	return r;
}

/* Unbinds the driver from @r (rproc_del() while whatever runs). */
static void rf_unbind(struct kunit *test, struct rf_remote *r)
{
	kunit_release_action(test, rf_unregister, r);
}

/* ---- waiting, reading ---- */

static void rf_wait(struct kunit *test, struct completion *c, const char *what,
		    struct rf_remote *r)
{
	KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(c, msecs_to_jiffies(RF_GUARD_MS)),
			    0, "%s: no %s within the hang guard", r->rproc->name, what);
}

/*
 * Waits for upstream's crash handler of @r to be done: the firmware
 * queued it (rproc_report_crash()) before completing ->done, and with
 * recovery enabled the whole recovery runs inside it.
 */
static void rf_settle(struct rf_remote *r)
{
	flush_work(&r->rproc->crash_handler);
}

static char *rf_upstream(struct kunit *test, struct rf_remote *r, const char *file)
{
	return st_fmt(test, RF_UPSTREAM "/%s/%s", dev_name(&r->rproc->dev), file);
}

static bool rf_upstream_has(struct kunit *test, struct rf_remote *r, const char *file)
{
	return st_debugfs_has(st_fmt(test, "remoteproc/%s/%s",
				     dev_name(&r->rproc->dev), file));
}

/* A run's text in one trace, and what of it a reader can see. */
struct rf_text {
	char *all;		/* every line the firmware wrote */
	const char *kept;	/* the lines left whole, oldest first */
	bool wrapped;		/* the writer went round */
	unsigned int lost;	/* lines before the first kept one */
};

/*
 * What the firmware of @r wrote in trace @t (@len bytes) during run @run,
 * and the lines of it still whole in the buffer: for a circular buffer
 * that went round, those after the line the writer cut (a line starting
 * right where the window starts is whole, except for STM32Cube's, whose
 * NUL hides whether it is).
 */
static struct rf_text rf_text(struct kunit *test, struct rf_remote *r,
			      unsigned int t, unsigned int run, u32 len)
{
	const struct rf_run *rn = &r->run[min(run, RF_MAX_RUNS) - 1];
	enum rf_fmt fmt = r->fmt[t];
	size_t cap, n, total = 0, size = (size_t)rn->lines * RF_LINE_MAX + 1;
	struct rf_text x = {};
	const char *p;
	unsigned int i;

	x.all = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x.all);
	for (i = 0; i < rn->lines; i++) {
		n = st_rf_line(x.all + total, size - total, r->tag, fmt, run, t, i);
		if (fmt == RF_PLAIN && total + n > len - 1) {
			x.all[total] = '\0';
			break;
		}
		total += n;
	}
	x.kept = x.all;
	cap = fmt == RF_LIBMETAL ? len : fmt == RF_STM32CUBE ? len - 2 : len - 1;
	if (fmt == RF_PLAIN || total <= (fmt == RF_STM32CUBE ? len - 1 : cap))
		return x;
	x.wrapped = true;
	/* STM32Cube's NUL on the last byte: no mark of where it writes */
	KUNIT_ASSERT_TRUE(test, fmt != RF_STM32CUBE || total % (len - 1));
	p = x.all + total - cap;
	if (fmt == RF_STM32CUBE || p[-1] != '\n')
		p = strchr(p, '\n') + 1;
	x.kept = p;
	for (p = x.all; p < x.kept; p++)
		x.lost += *p == '\n';
	return x;
}

/* Upstream's traceN shows run @run of the firmware, as it reads (to a NUL). */
static void rf_expect_upstream_run(struct kunit *test, struct rf_remote *r,
				   unsigned int t, unsigned int run, u32 len)
{
	char *file = rf_upstream(test, r, st_fmt(test, "trace%u", t));
	struct rf_text x = rf_text(test, r, t, run, len);

	KUNIT_ASSERT_FALSE_MSG(test, x.wrapped, "a test of upstream's view wraps");
	KUNIT_EXPECT_STREQ_MSG(test, st_slurp(test, file), x.kept, "%s", file);
}

/* ---- images ---- */

/* Installs @len bytes as /lib/firmware/@name. */
static void rf_install(struct kunit *test, const char *name, const void *img,
		       size_t len)
{
	KUNIT_ASSERT_EQ_MSG(test, st_rf_install(name, img, len), 0, "%s", name);
}

/* Builds an image of @ntraces trace entries as /lib/firmware/@name. */
static void rf_build(struct kunit *test, const char *name,
		     const struct rf_trace_cfg *tc, unsigned int ntraces)
{
	KUNIT_ASSERT_EQ_MSG(test, st_rf_build(name, tc, ntraces), 0, "%s", name);
}

/* A built image of one trace of @len bytes at the first trace da. */
static const char *rf_build1(struct kunit *test, const char *name, u32 len)
{
	const struct rf_trace_cfg tc = { RF_TRACE_DA(0), len };

	rf_build(test, name, &tc, 1);
	return name;
}

/*
 * A registered remote of one trace of 0x400 bytes, firmware
 * snaptrace-@name.elf, convention @fmt: its first run writes @crash_lines
 * lines and crashes, the next one writes @next_lines.
 */
static struct rf_remote *rf_new_crashing(struct kunit *test, const char *name,
					 bool no_recovery, enum rf_fmt fmt,
					 unsigned int crash_lines,
					 unsigned int next_lines)
{
	struct rf_remote *r;

	r = rf_new(test, name,
		   rf_build1(test, st_fmt(test, "snaptrace-%s.elf", name), 0x400),
		   no_recovery);
	r->fmt[0] = fmt;
	r->run[0] = (struct rf_run){ .lines = crash_lines, .crash = true };
	r->run[1] = (struct rf_run){ .lines = next_lines };
	return r;
}

/* ---- a remote's life ---- */

/* Boots @r (rproc_boot()) and waits for its first run to write its lines. */
static void rf_boot(struct kunit *test, struct rf_remote *r)
{
	unsigned int starts = r->booter_starts;
	int ret;

	/*
	 * rproc_boot() starts it once, itself: count the starts made from
	 * this task. A firmware that crashes at the end of a short run may
	 * be recovered, and started again by the recovery's worker, before
	 * this task runs again (seen on PREEMPT_RT under load).
	 */
	WRITE_ONCE(r->booter, current);
	ret = rproc_boot(r->rproc);
	WRITE_ONCE(r->booter, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, r->booter_starts, starts + 1);
	/* not its state: the firmware may have crashed already */
	rf_wait(test, &r->started, "start", r);
	rf_wait(test, &r->done, "end of run", r);
}

/*
 * Waits for a crash reported by the firmware at the end of its run to be
 * recovered: ops->stop, ops->start, the new run's lines, and upstream's
 * core done with it.
 */
static void rf_wait_recovered(struct kunit *test, struct rf_remote *r)
{
	rf_wait(test, &r->stopped, "stop (recovery)", r);
	rf_wait(test, &r->started, "start (recovery)", r);
	rf_wait(test, &r->done, "end of the new run", r);
	rf_settle(r);
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_RUNNING);
}

/* Waits for a crash reported with recovery disabled to be handled. */
static void rf_wait_crashed(struct kunit *test, struct rf_remote *r)
{
	rf_settle(r);
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_CRASHED);
}

static void rf_set_recovery(struct kunit *test, struct rf_remote *r, const char *how)
{
	const char *file = rf_upstream(test, r, "recovery");

	KUNIT_ASSERT_EQ_MSG(test, st_write_file(test, file, how, 0), (ssize_t)strlen(how),
			    "%s < %s", file, how);
}

/* ---- snaptrace's side ---- */

static char *rf_st(struct kunit *test, struct rf_remote *r, const char *file)
{
	return st_fmt(test, RF_ST "/%s/%s", r->st_name, file);
}

/* Whether snaptrace's directory of @r (@file "") or a file of it exists. */
static bool rf_st_has(struct kunit *test, struct rf_remote *r, const char *file)
{
	return st_debugfs_has(st_fmt(test, SNAPTRACE_DEBUGFS_NAME "/remoteproc/%s%s%s",
				     r->st_name, *file ? "/" : "", file));
}

/*
 * What snaptrace's decoder shows of run @run in trace @t (@len bytes),
 * exactly (src/trace_decode.c): the lines left whole, oldest first, after
 * a first line saying what wrapping lost when the writer went round.
 */
static char *rf_decoded(struct kunit *test, struct rf_remote *r, unsigned int t,
			unsigned int run, u32 len)
{
	struct rf_text x = rf_text(test, r, t, run, len);
	size_t size = strlen(x.kept) + 64;
	char *out;

	if (!x.wrapped)
		return (char *)x.kept;
	out = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	if (r->fmt[t] == RF_LIBMETAL)
		scnprintf(out, size, "[snaptrace: wrapped, %u line%s lost]\n%s", x.lost,
			  x.lost == 1 ? "" : "s", x.kept);
	else
		scnprintf(out, size, "[snaptrace: wrapped, lines lost unknown]\n%s", x.kept);
	return out;
}

static void rf_expect_st(struct kunit *test, struct rf_remote *r, const char *file,
			 const char *want)
{
	KUNIT_EXPECT_STREQ_MSG(test, st_slurp(test, rf_st(test, r, file)), want,
			       "%s", rf_st(test, r, file));
}

/* snaptrace's trace@t_last holds run @run, as the crash left it. */
static void rf_expect_last(struct kunit *test, struct rf_remote *r, unsigned int t,
			   unsigned int run, u32 len)
{
	rf_expect_st(test, r, st_fmt(test, "trace%u_last", t), rf_decoded(test, r, t, run, len));
}

/* snaptrace's live trace@t shows run @run. */
static void rf_expect_live(struct kunit *test, struct rf_remote *r, unsigned int t,
			   unsigned int run, u32 len)
{
	rf_expect_st(test, r, st_fmt(test, "trace%u", t), rf_decoded(test, r, t, run, len));
}

/*
 * snaptrace's crashes file, byte for byte; the capture's time between
 * @t_lo (taken before the crash) and now.
 */
static void rf_expect_crashes(struct kunit *test, struct rf_remote *r, unsigned int n,
			      const char *after, unsigned int traces, u64 bytes, u64 t_lo)
{
	char *text = st_slurp(test, rf_st(test, r, "crashes"));
	const char *p = strstr(text, "\nlast_time_ns: ");
	u64 t_hi = ktime_get_boottime_ns();
	unsigned long long ts = 0;

	if (p && sscanf(p + strlen("\nlast_time_ns: "), "%llu", &ts) != 1)
		ts = 0;
	KUNIT_EXPECT_STREQ(test, text,
			   st_fmt(test, "crashes: %u\nlast_time_ns: %llu\nlast_after: %s\n"
				  "last_traces: %u\nlast_bytes: %llu\n",
				  n, ts, after, traces, bytes));
	if (!n) {
		KUNIT_EXPECT_EQ(test, ts, 0);
		return;
	}
	KUNIT_EXPECT_GE(test, ts, t_lo);
	KUNIT_EXPECT_LE(test, ts, t_hi);
}

/*
 * After one crash of @r, captured @after (the crashes file's word): trace
 * 0 (@len bytes) of upstream and snaptrace's live one show the new run,
 * trace0_last the crash-time one, and the crashes file the one capture.
 */
static void rf_expect_after_crash(struct kunit *test, struct rf_remote *r, u32 len,
				  const char *after, u64 t_lo)
{
	rf_expect_upstream_run(test, r, 0, 2, len);
	rf_expect_live(test, r, 0, 2, len);
	rf_expect_last(test, r, 0, 1, len);
	rf_expect_crashes(test, r, 1, after, 1, len, t_lo);
}

static void rf_follow_again(void *unused)
{
	/* -EBUSY: the test left it following, as it should */
	snaptrace_follow_start("all");
}

/* Lets the test stop following; follows all again when it ends. */
static void rf_follow_restored(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rf_follow_again, NULL), 0);
}

/* ---- the suite ---- */

static int rf_init(struct kunit *test)
{
	st_skip_unless_debugfs_mounted(test);
	return 0;
}

/*
 * Boot: upstream loads the image, the firmware writes its lines; upstream's
 * trace0 and snaptrace's show them, nothing was captured yet; after a
 * shutdown upstream has no trace file and snaptrace's live one is empty.
 */
static void rf_boot_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-boot", rf_build1(test, "snaptrace-rf-boot.elf",
							      0x400), false);

	r->run[0] = (struct rf_run){ .lines = 5 };
	rf_boot(test, r);
	KUNIT_EXPECT_FALSE(test, r->not_hardirq);
	rf_expect_upstream_run(test, r, 0, 1, 0x400);
	rf_expect_live(test, r, 0, 1, 0x400);
	rf_expect_st(test, r, "trace0_last", "");
	rf_expect_crashes(test, r, 0, "none", 0, 0, 0);
	rf_expect_st(test, r, "trace_format", "[auto] plain zephyr libmetal stm32cube\n");

	KUNIT_EXPECT_EQ(test, rproc_shutdown(r->rproc), 0);
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	KUNIT_EXPECT_FALSE(test, rf_upstream_has(test, r, "trace0"));
	rf_expect_st(test, r, "trace0", "");
	rf_expect_st(test, r, "trace0_last", "");
	rf_expect_crashes(test, r, 0, "none", 0, 0, 0);
}

/*
 * The .resource_table section of an ELF image (32 or 64 bits) that
 * upstream's sanity check accepted: its offset and size in the file.
 */
static bool rf_find_table(const u8 *d, size_t size, u64 *off, u64 *sz)
{
	bool is64 = d[EI_CLASS] == ELFCLASS64;
	const struct elf64_hdr *e64 = (const void *)d;
	const struct elf32_hdr *e32 = (const void *)d;
	u64 shoff = is64 ? e64->e_shoff : e32->e_shoff;
	u16 shnum = is64 ? e64->e_shnum : e32->e_shnum;
	u16 stri = is64 ? e64->e_shstrndx : e32->e_shstrndx;
	size_t shsz = is64 ? sizeof(struct elf64_shdr) : sizeof(struct elf32_shdr);
	u64 stroff, o, z;
	u32 name;
	u16 i;

	if (stri >= shnum || shoff > size || (u64)shnum * shsz > size - shoff)
		return false;
	if (is64) {
		const struct elf64_shdr *sh = (const void *)(d + shoff);

		stroff = sh[stri].sh_offset;
	} else {
		const struct elf32_shdr *sh = (const void *)(d + shoff);

		stroff = sh[stri].sh_offset;
	}
	for (i = 0; i < shnum; i++) {
		if (is64) {
			const struct elf64_shdr *sh = (const void *)(d + shoff);

			name = sh[i].sh_name;
			o = sh[i].sh_offset;
			z = sh[i].sh_size;
		} else {
			const struct elf32_shdr *sh = (const void *)(d + shoff);

			name = sh[i].sh_name;
			o = sh[i].sh_offset;
			z = sh[i].sh_size;
		}
		if (stroff > size || name >= size - stroff ||
		    strncmp(d + stroff + name, ".resource_table", size - stroff - name))
			continue;
		if (o > size || z > size - o)
			return false;
		*off = o;
		*sz = z;
		return true;
	}
	return false;
}

/*
 * Installs a copy of image @fw_name as @name, its resource table without
 * its RSC_DEVMEM entries (upstream refuses a devmem on a remote with no
 * IOMMU domain, as x86 platform devices are).
 */
static void rf_install_without_devmem(struct kunit *test, struct device *dev,
				      const char *fw_name, const char *name)
{
	const struct firmware *fw;
	struct resource_table *t;
	u64 off, sz;
	u32 i, n = 0;
	size_t len;
	u8 *img;

	KUNIT_ASSERT_EQ_MSG(test, firmware_request_nowarn(&fw, fw_name, dev), 0,
			    "no /lib/firmware/%s (scripts/firmware.sh builds it)", fw_name);
	img = kunit_kmalloc(test, fw->size, GFP_KERNEL);
	if (img)
		memcpy(img, fw->data, fw->size);
	len = fw->size;
	release_firmware(fw);
	KUNIT_ASSERT_NOT_NULL(test, img);
	KUNIT_ASSERT_TRUE(test, rf_find_table(img, len, &off, &sz));
	KUNIT_ASSERT_GE(test, sz, sizeof(*t));
	t = (void *)(img + off);
	KUNIT_ASSERT_LE(test, sizeof(*t) + (u64)t->num * 4, sz);
	for (i = 0; i < t->num; i++) {
		u32 o = t->offset[i];

		KUNIT_ASSERT_LE(test, (u64)o + sizeof(struct fw_rsc_hdr), sz);
		if (((struct fw_rsc_hdr *)((u8 *)t + o))->type != RSC_DEVMEM)
			t->offset[n++] = o;
	}
	KUNIT_ASSERT_LT(test, n, t->num);
	t->num = n;
	rf_install(test, name, img, len);
}

/* Images upstream's core boots here: the project's, and the fixtures. */
struct rf_image {
	const char *fw;
	const char *desc;
	bool no_devmem;		/* boot a copy without its devmem entries */
	int boot;		/* what rproc_boot() returns */
	unsigned int ntraces;
	u32 len[RF_MAX_TRACES];
	enum rf_fmt fmt;
};

static const struct rf_image rf_images[] = {
	/* rproc_handle_devmem(): -EINVAL without an IOMMU domain */
	{ "snaptrace/example32.elf", "example32", false, -EINVAL },
	{ "snaptrace/example64.elf", "example64", false, -EINVAL },
	{ "snaptrace/example32.elf", "example32-no-devmem", true, 0, 2,
	  { 0x800, 0x400 }, RF_PLAIN },
	{ "snaptrace/example64.elf", "example64-no-devmem", true, 0, 2,
	  { 0x800, 0x400 }, RF_STM32CUBE },
	{ RF_FIXTURES "stm32mp157c-dk2_zephyr-hello.elf", "stm32mp157-zephyr", false, 0,
	  1, { 0x401 }, RF_ZEPHYR },
	/* no resource table: boots with nothing to trace */
	{ RF_FIXTURES "kv260_r5_zephyr-hello.elf", "kv260-zephyr", false, 0 },
};

static void rf_image_desc(const struct rf_image *img, char *desc)
{
	strscpy(desc, img->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rf_image, rf_images, rf_image_desc);

/*
 * The project's example images and the fixture images: upstream's core
 * parses, loads and boots them (or refuses them, as it does on a remote
 * without an IOMMU), the firmware writes each declared trace, wrapping the
 * circular ones, it crashes from its timer, and recovery starts a new run:
 * upstream's traces show the new run, snaptrace's traceN_last the old.
 */
static void rf_image_test(struct kunit *test)
{
	const struct rf_image *img = test->param_value;
	const char *fw_name = img->fw;
	const struct firmware *fw;
	struct rf_remote *r;
	unsigned int t;
	u64 t0, bytes = 0;

	r = rf_new(test, "rf-image", img->fw, false);
	if (firmware_request_nowarn(&fw, img->fw, &r->pdev->dev)) {
		if (str_has_prefix(img->fw, RF_FIXTURES))
			kunit_skip(test, "fixtures not present: no /lib/firmware/%s", img->fw);
		KUNIT_FAIL(test, "no /lib/firmware/%s (scripts/firmware.sh builds it)", img->fw);
		return;
	}
	release_firmware(fw);
	if (img->no_devmem) {
		fw_name = st_fmt(test, "snaptrace-rf-%s.elf", img->desc);
		rf_install_without_devmem(test, &r->pdev->dev, img->fw, fw_name);
		KUNIT_ASSERT_EQ(test, rproc_set_firmware(r->rproc, fw_name), 0);
	}
	for (t = 0; t < RF_MAX_TRACES; t++)
		r->fmt[t] = img->fmt;
	r->run[0] = (struct rf_run){ .lines = 40, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 3 };
	if (img->boot) {
		KUNIT_EXPECT_EQ(test, rproc_boot(r->rproc), img->boot);
		KUNIT_EXPECT_EQ(test, r->starts, 0);
		KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_OFFLINE);
		KUNIT_EXPECT_FALSE(test, rf_upstream_has(test, r, "trace0"));
		KUNIT_EXPECT_EQ(test, r->nr_regions, 0);
		KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, "trace0"));
		rf_expect_crashes(test, r, 0, "none", 0, 0, 0);
		return;
	}
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 1);
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	for (t = 0; t < img->ntraces; t++) {
		rf_expect_upstream_run(test, r, t, 2, img->len[t]);
		rf_expect_live(test, r, t, 2, img->len[t]);
		rf_expect_last(test, r, t, 1, img->len[t]);
		bytes += img->len[t];
	}
	rf_expect_crashes(test, r, 1, "recovery", img->ntraces, bytes, t0);
	KUNIT_EXPECT_FALSE(test, rf_upstream_has(test, r,
						 st_fmt(test, "trace%u", img->ntraces)));
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, st_fmt(test, "trace%u", img->ntraces)));
}

/* A crash case: the convention, and lines enough to wrap or not. */
struct rf_crash_case {
	enum rf_fmt fmt;
	unsigned int lines;
	const char *desc;
};

static const struct rf_crash_case rf_crash_cases[] = {
	{ RF_PLAIN, 12, "plain" },
	{ RF_PLAIN, 40, "plain-full" },
	{ RF_ZEPHYR, 12, "zephyr" },
	{ RF_ZEPHYR, 40, "zephyr-wrapped" },
	{ RF_LIBMETAL, 12, "libmetal" },
	{ RF_LIBMETAL, 40, "libmetal-wrapped" },
	{ RF_STM32CUBE, 12, "stm32cube" },
	{ RF_STM32CUBE, 40, "stm32cube-wrapped" },
};

static void rf_crash_case_desc(const struct rf_crash_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rf_crash, rf_crash_cases, rf_crash_case_desc);

/*
 * A crash reported from the firmware's timer (hard irq), recovery
 * enabled: upstream stops, reloads (zeroing the trace) and restarts the
 * remote; its trace0 shows the new run, snaptrace's trace0_last the
 * crash-time log, decoded, oldest line first.
 */
static void rf_crash_recovery_test(struct kunit *test)
{
	const struct rf_crash_case *c = test->param_value;
	struct rf_remote *r;
	u64 t0;

	r = rf_new_crashing(test, st_fmt(test, "rf-crash-%s", c->desc), false,
			    c->fmt, c->lines, 4);
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	KUNIT_EXPECT_FALSE(test, r->not_hardirq);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 1);
	KUNIT_EXPECT_EQ(test, r->starts, 2);
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	rf_expect_after_crash(test, r, 0x400, "recovery", t0);
}

/*
 * Recovery disabled: the remote stays CRASHED, not stopped, its trace as
 * the crash left it, and nothing is captured yet; then "recover" through
 * upstream's debugfs captures it and starts a new run.
 */
static void rf_crash_no_recovery_test(struct kunit *test)
{
	struct rf_remote *r = rf_new_crashing(test, "rf-norecovery", true,
					      RF_ZEPHYR, 30, 2);
	u64 t0;

	rf_boot(test, r);
	rf_wait_crashed(test, r);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 1);
	KUNIT_EXPECT_EQ(test, r->stops, 0);
	rf_expect_st(test, r, "trace0_last", "");
	rf_expect_crashes(test, r, 0, "none", 0, 0, 0);
	/* not running: no live trace */
	rf_expect_st(test, r, "trace0", "");

	t0 = ktime_get_boottime_ns();
	rf_set_recovery(test, r, "recover");
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	KUNIT_EXPECT_EQ(test, r->starts, 2);
	rf_wait(test, &r->stopped, "stop (recover)", r);
	rf_wait(test, &r->started, "start (recover)", r);
	rf_wait(test, &r->done, "end of the new run", r);
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_RUNNING);
	rf_expect_after_crash(test, r, 0x400, "recovery", t0);
}

/*
 * Stop while crashed: a shutdown of a CRASHED remote (recovery disabled)
 * captures its trace and removes upstream's trace files; trace0_last is
 * kept across the stop and the next boot, which upstream's trace0 shows.
 */
static void rf_stop_crashed_test(struct kunit *test)
{
	struct rf_remote *r = rf_new_crashing(test, "rf-stopcrashed", true,
					      RF_LIBMETAL, 35, 3);
	u64 t0;

	rf_boot(test, r);
	rf_wait_crashed(test, r);
	t0 = ktime_get_boottime_ns();
	KUNIT_EXPECT_EQ(test, rproc_shutdown(r->rproc), 0);
	KUNIT_EXPECT_EQ(test, r->stops, 1);
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_OFFLINE);
	KUNIT_EXPECT_FALSE(test, rf_upstream_has(test, r, "trace0"));
	rf_wait(test, &r->stopped, "stop", r);
	rf_expect_st(test, r, "trace0", "");
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "shutdown", 1, 0x400, t0);

	rf_boot(test, r);
	rf_expect_after_crash(test, r, 0x400, "shutdown", t0);
}

/* A shutdown of @r in a worker, while the test looks on. */
struct rf_shutdown {
	struct work_struct work;
	struct rf_remote *r;
	int ret;
};

static void rf_shutdown_fn(struct work_struct *work)
{
	struct rf_shutdown *sd = container_of(work, struct rf_shutdown, work);

	sd->ret = rproc_shutdown(sd->r->rproc);
}

/* Lets a held da_to_va() go, and waits for the shutdown. */
static void rf_shutdown_end(void *arg)
{
	struct rf_shutdown *sd = arg;

	atomic_set(&sd->r->hold_da, 0);
	complete_all(&sd->r->da_release);
	flush_work(&sd->work);
}

/*
 * A capture does not keep its readers waiting: while the shutdown of a
 * crashed remote captures it, held inside the remote's memory (its
 * da_to_va(), with the remote's lock held), trace0_last and crashes answer
 * at once with what the previous crash left, byte for byte; once let go,
 * they show the new capture whole.
 */
static void rf_capture_readers_no_wait_test(struct kunit *test)
{
	struct rf_remote *r = rf_new_crashing(test, "rf-nowait", true, RF_PLAIN, 6, 0);
	struct rf_shutdown *sd = kunit_kzalloc(test, sizeof(*sd), GFP_KERNEL);
	u64 t0, t1;

	KUNIT_ASSERT_NOT_NULL(test, sd);
	r->run[1] = (struct rf_run){ .lines = 9, .crash = true };
	rf_boot(test, r);
	rf_wait_crashed(test, r);
	t0 = ktime_get_boottime_ns();
	KUNIT_ASSERT_EQ(test, rproc_shutdown(r->rproc), 0);
	rf_wait(test, &r->stopped, "stop", r);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "shutdown", 1, 0x400, t0);

	rf_boot(test, r);
	rf_wait_crashed(test, r);
	sd->r = r;
	INIT_WORK(&sd->work, rf_shutdown_fn);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rf_shutdown_end, sd), 0);
	atomic_set(&r->hold_da, 1);
	t1 = ktime_get_boottime_ns();
	queue_work(system_unbound_wq, &sd->work);
	rf_wait(test, &r->da_held, "capture held in da_to_va", r);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "shutdown", 1, 0x400, t0);
	KUNIT_EXPECT_FALSE(test, r->da_hold_expired);

	kunit_release_action(test, rf_shutdown_end, sd);
	KUNIT_EXPECT_FALSE_MSG(test, r->da_hold_expired,
			       "the readers waited for the capture");
	KUNIT_EXPECT_EQ(test, sd->ret, 0);
	rf_wait(test, &r->stopped, "stop", r);
	rf_expect_last(test, r, 0, 2, 0x400);
	rf_expect_crashes(test, r, 2, "shutdown", 1, 0x400, t1);
}

/*
 * A trace whose da the firmware fills in at run time (da 0 in the image):
 * upstream took the da when it handled the table, so its trace0 never
 * finds the buffer; snaptrace reads the loaded table at capture (and read)
 * time, and finds it.
 */
static void rf_runtime_da_test(struct kunit *test)
{
	const struct rf_trace_cfg tc = { 0, 0x400 };
	struct rf_remote *r;
	struct fw_rsc_trace *tr;
	u64 t0;

	rf_build(test, "snaptrace-rf-runtime-da.elf", &tc, 1);
	r = rf_new(test, "rf-runtime-da", "snaptrace-rf-runtime-da.elf", false);
	r->fill_da[0] = RF_TRACE_DA(0);
	r->fmt[0] = RF_PLAIN;
	r->run[0] = (struct rf_run){ .lines = 6, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 2 };
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	tr = st_rf_fw_trace(r, 0);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	KUNIT_EXPECT_EQ(test, tr->da, RF_TRACE_DA(0));
	/* rproc_handle_trace() never names its rproc_mem_entry: "" */
	KUNIT_EXPECT_STREQ(test, st_slurp(test, rf_upstream(test, r, "trace0")),
			   "Trace  not available\n");
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
}

/*
 * A trace never mapped (da 0, never filled in) beside one that is, in
 * memory da_to_va says is I/O: upstream cannot show the first; snaptrace
 * captures the other (memcpy_fromio()), counts one trace, and keeps an
 * empty trace1_last.
 */
static void rf_unmapped_trace_test(struct kunit *test)
{
	const struct rf_trace_cfg tc[] = { { RF_TRACE_DA(0), 0x400 }, { 0, 0x100 } };
	struct rf_remote *r;
	u64 t0;

	rf_build(test, "snaptrace-rf-unmapped.elf", tc, 2);
	r = rf_new(test, "rf-unmapped", "snaptrace-rf-unmapped.elf", false);
	r->iomem = true;
	r->fmt[0] = RF_LIBMETAL;
	r->run[0] = (struct rf_run){ .lines = 33, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 2 };
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	rf_expect_upstream_run(test, r, 0, 2, 0x400);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, rf_upstream(test, r, "trace1")),
			   "Trace  not available\n");
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_last(test, r, 0, 1, 0x400);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, r, "trace1"));
	rf_expect_st(test, r, "trace1_last", "");
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
}

/* Lines of each run of rf_readers_test(): reads have time to interleave. */
#define RF_READERS_LINES	300

/*
 * Readers during a crash and its recovery: the test reads trace0,
 * trace0_last and crashes over and over while the remote crashes (from
 * its timer) and upstream recovers it (on its workqueue). Every read
 * succeeds; trace0_last is empty or the whole crash-time log, crashes
 * says no capture or the whole of the one, and neither goes back once
 * the capture is seen.
 */
static void rf_readers_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-readers",
				     rf_build1(test, "snaptrace-rf-readers.elf", 0x400), false);
	const char *none = "crashes: 0\nlast_time_ns: 0\nlast_after: none\n"
			   "last_traces: 0\nlast_bytes: 0\n";
	const char *tail = "\nlast_after: recovery\nlast_traces: 1\nlast_bytes: 1024\n";
	const char *f_live = rf_st(test, r, "trace0");
	const char *f_last = rf_st(test, r, "trace0_last");
	const char *f_crashes = rf_st(test, r, "crashes");
	char *buf = kunit_kzalloc(test, ST_TEXT_MAX, GFP_KERNEL);
	unsigned int i, reads = 0, bad = 0, back = 0;
	bool seen = false;
	unsigned long ubuf;
	char *want;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	ubuf = kunit_vm_mmap(test, NULL, 0, ST_TEXT_MAX, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ubuf, 0);
	r->fmt[0] = RF_LIBMETAL;
	r->run[0] = (struct rf_run){ .lines = RF_READERS_LINES, .crash = true };
	r->run[1] = (struct rf_run){ .lines = RF_READERS_LINES };
	want = rf_decoded(test, r, 0, 1, 0x400);
	t0 = ktime_get_boottime_ns();
	KUNIT_ASSERT_EQ(test, rproc_boot(r->rproc), 0);
	/* until the new run wrote its last line; bounded: a hang guard */
	for (i = 0; i < 100000; i++) {
		if (READ_ONCE(r->starts) == 2 && completion_done(&r->stopped) &&
		    READ_ONCE(r->line) == RF_READERS_LINES)
			break;
		if (st_read_user(f_live, ubuf, buf, ST_TEXT_MAX) < 0)
			bad++;
		if (st_read_user(f_last, ubuf, buf, ST_TEXT_MAX) < 0 ||
		    (strcmp(buf, "") && strcmp(buf, want)))
			bad++;
		else if (!strcmp(buf, ""))
			back += seen;
		else
			seen = true;
		if (st_read_user(f_crashes, ubuf, buf, ST_TEXT_MAX) < 0)
			bad++;
		else if (!strcmp(buf, none))
			back += seen;
		else if (!str_has_prefix(buf, "crashes: 1\nlast_time_ns: ") ||
			 !strstr(buf, tail) || strcmp(strstr(buf, tail), tail))
			bad++;
		reads++;
	}
	KUNIT_EXPECT_LT_MSG(test, i, 100000, "the remote never recovered");
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, back, 0);
	kunit_info(test, "%u rounds of reads", reads);
	rf_wait(test, &r->started, "start", r);
	rf_wait(test, &r->done, "end of run", r);
	rf_wait_recovered(test, r);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
}

/*
 * A table that changes between boots: image A (one plain trace), crashed
 * and shut down; rproc_set_firmware() to image B (two traces elsewhere,
 * other lengths and conventions), which boots, crashes and recovers:
 * the capture follows B's table, and A's trace0_last is kept until then.
 */
static void rf_table_change_test(struct kunit *test)
{
	const struct rf_trace_cfg b[] = {
		{ RF_TRACE_DA(1), 0x200 }, { RF_TRACE_DA(0) + 0x800, 0x300 },
	};
	struct rf_remote *r;
	u64 t0;

	rf_build(test, "snaptrace-rf-change-b.elf", b, 2);
	r = rf_new(test, "rf-change", rf_build1(test, "snaptrace-rf-change-a.elf", 0x400),
		   true);
	r->fmt[0] = RF_PLAIN;
	r->run[0] = (struct rf_run){ .lines = 4, .crash = true };
	rf_boot(test, r);
	rf_wait_crashed(test, r);
	t0 = ktime_get_boottime_ns();
	KUNIT_EXPECT_EQ(test, rproc_shutdown(r->rproc), 0);
	rf_wait(test, &r->stopped, "stop", r);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "shutdown", 1, 0x400, t0);
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, "trace1"));

	KUNIT_ASSERT_EQ(test, rproc_set_firmware(r->rproc, "snaptrace-rf-change-b.elf"), 0);
	r->fmt[0] = RF_ZEPHYR;
	r->fmt[1] = RF_LIBMETAL;
	r->run[1] = (struct rf_run){ .lines = 20, .crash = true };
	r->run[2] = (struct rf_run){ .lines = 3 };
	rf_set_recovery(test, r, "enabled");
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	rf_expect_upstream_run(test, r, 0, 3, 0x200);
	rf_expect_upstream_run(test, r, 1, 3, 0x300);
	rf_expect_live(test, r, 0, 3, 0x200);
	rf_expect_live(test, r, 1, 3, 0x300);
	rf_expect_last(test, r, 0, 2, 0x200);
	rf_expect_last(test, r, 1, 2, 0x300);
	rf_expect_crashes(test, r, 2, "recovery", 2, 0x500, t0);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 2);
}

/* Reports a crash of each of @n remotes, from one interrupt. */
struct rf_crasher {
	struct hrtimer timer;
	struct rf_remote *r[2];
	unsigned int n;
	bool not_hardirq;
	struct completion done;
};

static enum hrtimer_restart rf_crash_tick(struct hrtimer *timer)
{
	struct rf_crasher *k = container_of(timer, struct rf_crasher, timer);
	unsigned int i;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT) && !in_hardirq())
		k->not_hardirq = true;
	for (i = 0; i < k->n; i++)
		rproc_report_crash(k->r[i]->rproc, RPROC_FATAL_ERROR);
	complete(&k->done);
	return HRTIMER_NORESTART;
}

static void rf_crash_now(struct kunit *test, struct rf_remote **r, unsigned int n)
{
	struct rf_crasher *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, k);
	for (i = 0; i < n; i++)
		k->r[i] = r[i];
	k->n = n;
	init_completion(&k->done);
	hrtimer_setup(&k->timer, rf_crash_tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	hrtimer_start(&k->timer, ns_to_ktime(RF_PERIOD_NS), HRTIMER_MODE_REL);
	if (!wait_for_completion_timeout(&k->done, msecs_to_jiffies(RF_GUARD_MS))) {
		hrtimer_cancel(&k->timer);
		KUNIT_FAIL_AND_ABORT(test, "the crash timer never fired");
	}
	hrtimer_cancel(&k->timer);
	KUNIT_EXPECT_FALSE(test, k->not_hardirq);
}

/*
 * snaptrace letting go while remotes run (snaptrace_follow_stop(), what
 * rmmod does) and following them again (snaptrace_follow_start(), what
 * insmod does): the remote runs on and recovers unfollowed; followed
 * again, it starts from nothing captured, and the next crash is captured.
 */
static void rf_follow_stop_start_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-letgo",
				     rf_build1(test, "snaptrace-rf-letgo.elf", 0x400), false);
	u64 t0;

	r->fmt[0] = RF_LIBMETAL;
	r->run[0] = (struct rf_run){ .lines = 4 };
	r->run[1] = (struct rf_run){ .lines = 3 };
	r->run[2] = (struct rf_run){ .lines = 2 };
	rf_boot(test, r);
	rf_expect_live(test, r, 0, 1, 0x400);
	rf_follow_restored(test);

	snaptrace_follow_stop();
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, ""));
	KUNIT_EXPECT_EQ(test, r->rproc->state, RPROC_RUNNING);
	rf_expect_upstream_run(test, r, 0, 1, 0x400);
	rf_crash_now(test, &r, 1);
	rf_wait_recovered(test, r);
	rf_expect_upstream_run(test, r, 0, 2, 0x400);
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, r, ""));

	KUNIT_ASSERT_EQ(test, snaptrace_follow_start("all"), 0);
	KUNIT_EXPECT_EQ(test, snaptrace_follow_start("all"), -EBUSY);
	rf_expect_live(test, r, 0, 2, 0x400);
	rf_expect_st(test, r, "trace0_last", "");
	rf_expect_crashes(test, r, 0, "none", 0, 0, 0);

	t0 = ktime_get_boottime_ns();
	rf_crash_now(test, &r, 1);
	rf_wait_recovered(test, r);
	rf_expect_upstream_run(test, r, 0, 3, 0x400);
	rf_expect_live(test, r, 0, 3, 0x400);
	rf_expect_last(test, r, 0, 2, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
	KUNIT_EXPECT_EQ(test, r->rproc->crash_cnt, 2);
}

/*
 * The driver unbound (rproc_del()) while followed: a running remote that
 * crashed and recovered, and a CRASHED one (recovery disabled), whose
 * shutdown is a capture; snaptrace lets both go, and a trace0_last opened
 * before reads as a removed debugfs file does.
 */
static void rf_unbind_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-unbind",
				     rf_build1(test, "snaptrace-rf-unbind.elf", 0x400), false);
	struct rf_remote *c = rf_new(test, "rf-unbind-crashed",
				     rf_build1(test, "snaptrace-rf-unbind-c.elf", 0x400), true);
	const char *rdir, *updir, *cdir;
	unsigned long ubuf;
	struct file *f;
	loff_t pos = 0;
	u64 t0;

	r->run[0] = (struct rf_run){ .lines = 3, .crash = true };
	r->run[1] = (struct rf_run){ .lines = 3 };
	t0 = ktime_get_boottime_ns();
	rf_boot(test, r);
	rf_wait_recovered(test, r);
	rf_expect_last(test, r, 0, 1, 0x400);
	rf_expect_crashes(test, r, 1, "recovery", 1, 0x400, t0);
	c->run[0] = (struct rf_run){ .lines = 3, .crash = true };
	rf_boot(test, c);
	rf_wait_crashed(test, c);

	ubuf = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ubuf, 0);
	scoped_with_init_fs()
		f = filp_open(rf_st(test, r, "trace0_last"), O_RDONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "%pe", f);

	/* r and c are freed with their rprocs: their paths first */
	rdir = st_fmt(test, SNAPTRACE_DEBUGFS_NAME "/remoteproc/%s", r->st_name);
	updir = st_fmt(test, "remoteproc/%s", dev_name(&r->rproc->dev));
	cdir = st_fmt(test, SNAPTRACE_DEBUGFS_NAME "/remoteproc/%s", c->st_name);
	rf_unbind(test, r);
	KUNIT_EXPECT_FALSE(test, st_debugfs_has(rdir));
	KUNIT_EXPECT_FALSE(test, st_debugfs_has(updir));
	KUNIT_EXPECT_EQ(test, f->f_op->read(f, (char __user *)ubuf, PAGE_SIZE, &pos), -EIO);
	fput(f);

	rf_unbind(test, c);
	KUNIT_EXPECT_FALSE(test, st_debugfs_has(cdir));
}

/*
 * Two remotes of the same name crashing at once (reported from the same
 * interrupt): the second is followed as name@remoteprocN; both recover,
 * each trace0_last holding its own crash-time log.
 */
static void rf_two_crash_test(struct kunit *test)
{
	struct rf_remote *r[2];
	unsigned int i;
	u64 t0;

	for (i = 0; i < 2; i++) {
		r[i] = rf_new(test, "rf-twin",
			      rf_build1(test, st_fmt(test, "snaptrace-rf-twin%u.elf", i),
					0x300 + 0x100 * i), false);
		r[i]->tag = i ? "rf-twin-b" : "rf-twin-a";
		r[i]->fmt[0] = i ? RF_STM32CUBE : RF_ZEPHYR;
		r[i]->run[0] = (struct rf_run){ .lines = 25 + i };
		r[i]->run[1] = (struct rf_run){ .lines = 2 + i };
		rf_boot(test, r[i]);
	}
	r[1]->st_name = st_fmt(test, "rf-twin@%s", dev_name(&r[1]->rproc->dev));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, r[0], "crashes"));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, r[1], "crashes"));
	t0 = ktime_get_boottime_ns();
	rf_crash_now(test, r, 2);
	for (i = 0; i < 2; i++) {
		u32 len = 0x300 + 0x100 * i;

		rf_wait_recovered(test, r[i]);
		KUNIT_EXPECT_EQ(test, r[i]->rproc->crash_cnt, 1);
		rf_expect_after_crash(test, r[i], len, "recovery", t0);
	}
}

/*
 * follow=: only the remotes named (by rproc->name or remoteprocN) are
 * followed, spaces around a name and empty entries ignored; "none"
 * follows none; "all" all.
 */
static void rf_follow_param_test(struct kunit *test)
{
	struct rf_remote *a = rf_new(test, "rf-param-a",
				     rf_build1(test, "snaptrace-rf-param.elf", 0x400), false);
	struct rf_remote *b = rf_new(test, "rf-param-b", "snaptrace-rf-param.elf", false);
	const char *bdev = dev_name(&b->rproc->dev);

	rf_follow_restored(test);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start("rf-param-a"), 0);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, b, ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start(bdev), 0);
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start(st_fmt(test, "rf-param-a,%s", bdev)), 0);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));

	/* spaces around a name, an empty entry: as "rf-param-a,remoteprocN" */
	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start(st_fmt(test, " rf-param-a ,, %s ", bdev)),
			0);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start("none"), 0);
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, b, ""));
	/* a remote registered later, not named: not followed either */
	KUNIT_EXPECT_FALSE(test, rf_st_has(test, rf_new(test, "rf-param-c",
							"snaptrace-rf-param.elf", false), ""));

	snaptrace_follow_stop();
	KUNIT_ASSERT_EQ(test, snaptrace_follow_start("all"), 0);
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, a, ""));
	KUNIT_EXPECT_TRUE(test, rf_st_has(test, b, ""));
}

/*
 * Write @len bytes of @cmd to trace_format: -EINVAL, and error_log holds
 * one entry: the file, @msg, the command @shown and the caret at @pos.
 */
static void rf_format_refused(struct kunit *test, const char *file, const char *cmd,
			      size_t len, const char *msg, const char *shown,
			      unsigned int pos)
{
	char *text, *want;

	snaptrace_error_log_clear();
	KUNIT_EXPECT_EQ(test, st_write_bytes(test, file, cmd, len, 0), -EINVAL);
	text = st_slurp(test, ST_ERRLOG);
	want = st_fmt(test, "] %s: error: %s\n  Command: %s%s",
		      file + strlen(ST_DEBUGFS "/"), msg, shown, st_caret(test, pos));
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, want), "want:\n%s\ngot:\n%s", want, text);
	KUNIT_EXPECT_EQ_MSG(test, st_count(text, ": error: "), 1, "%s", text);
}

/*
 * trace_format: auto-detection of a wrapped Zephyr console; forcing plain
 * reads it as upstream does (up to the first NUL); a bad name (a name
 * followed by a NUL and more included, blanks only, a write at an offset)
 * is -EINVAL, changes nothing and is logged in error_log with why; auto
 * again.
 */
static void rf_trace_format_test(struct kunit *test)
{
	struct rf_remote *r = rf_new(test, "rf-format",
				     rf_build1(test, "snaptrace-rf-format.elf", 0x200), false);
	const char *file = rf_st(test, r, "trace_format");
	char *upstream, *plain, *text;

	r->fmt[0] = RF_ZEPHYR;
	r->run[0] = (struct rf_run){ .lines = 20 };
	rf_boot(test, r);
	rf_expect_st(test, r, "trace_format", "[auto] plain zephyr libmetal stm32cube\n");
	rf_expect_live(test, r, 0, 1, 0x200);

	KUNIT_EXPECT_EQ(test, st_write_file(test, file, "plain\n", 0), 6);
	rf_expect_st(test, r, "trace_format", "auto [plain] zephyr libmetal stm32cube\n");
	upstream = st_slurp(test, rf_upstream(test, r, "trace0"));
	KUNIT_ASSERT_EQ(test, strlen(upstream), 0x200 - 1);
	/* show() ends the text with a newline */
	plain = kunit_kzalloc(test, strlen(upstream) + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plain);
	scnprintf(plain, strlen(upstream) + 2, "%s%s", upstream,
		  upstream[strlen(upstream) - 1] == '\n' ? "" : "\n");
	rf_expect_st(test, r, "trace0", plain);

	st_errlog_fresh(test);
	rf_format_refused(test, file, "zephyr2\n", 8,
			  "unknown format: want auto, plain, zephyr, libmetal or stm32cube",
			  "zephyr2", 0);
	rf_format_refused(test, file, "", 0, "empty write", "", 0);
	/* a name, then a NUL and more: not one of the names either */
	rf_format_refused(test, file, "zephyr\0junk\n", 12, "a NUL byte in the name",
			  "zephyr", 6);
	rf_format_refused(test, file, "0123456789012345678901234567890123456789", 40,
			  "too long", "0123456789012345678901234567890", 31);
	/* blanks only, as on every file that takes a word */
	rf_format_refused(test, file, "\t\n", 2, "empty write", "", 0);
	/* the command as written, the caret under the word */
	rf_format_refused(test, file, "  zephyr2\n", 10,
			  "unknown format: want auto, plain, zephyr, libmetal or stm32cube",
			  "  zephyr2", 2);
	/* a write at an offset, as every file that takes a command */
	snaptrace_error_log_clear();
	KUNIT_EXPECT_EQ(test, st_write_bytes(test, file, "zephyr", 6, 1), -EINVAL);
	text = st_slurp(test, ST_ERRLOG);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "write the whole value at once\n"));
	rf_expect_st(test, r, "trace_format", "auto [plain] zephyr libmetal stm32cube\n");
	rf_expect_st(test, r, "trace0", plain);

	KUNIT_EXPECT_EQ(test, st_write_file(test, file, "zephyr", 0), 6);
	rf_expect_st(test, r, "trace_format", "auto plain [zephyr] libmetal stm32cube\n");
	rf_expect_live(test, r, 0, 1, 0x200);
	KUNIT_EXPECT_EQ(test, st_write_file(test, file, "auto\n", 0), 5);
	rf_expect_st(test, r, "trace_format", "[auto] plain zephyr libmetal stm32cube\n");
	rf_expect_live(test, r, 0, 1, 0x200);
}

static void rf_debugfs_remove(void *d)
{
	debugfs_remove(d);
}

static void rf_sim_destroy(void *rproc)
{
	snaptrace_rproc_destroy(rproc);
}

/*
 * One image booted both ways, each trace convention: by upstream's core
 * (the test driver's remote, followed) and by snaptrace's own simulated
 * remote (its default layout holds the image's segment and trace). The
 * trace as the followed remote's firmware left it at the crash is put in
 * the simulated remote's trace when it crashes, and captured by our
 * remotes' crash path: both trace0_last show it the same, decoded, oldest
 * line first, exactly as the firmware wrote it.
 */
static void rf_both_ways_test(struct kunit *test)
{
	const struct rf_crash_case *c = test->param_value;
	const char *name = st_fmt(test, "rf-both-%s", c->desc);
	struct snaptrace_rproc *sim;
	struct rf_remote *r;
	struct dentry *dir;
	unsigned long flags;
	char *followed;
	bool is_iomem;
	void *va;
	u8 *at_crash;
	int ret;

	at_crash = kunit_kzalloc(test, 0x400, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, at_crash);
	r = rf_new_crashing(test, name, true, c->fmt, c->lines, 2);
	rf_boot(test, r);
	rf_wait_crashed(test, r);
	va = rproc_da_to_va(r->rproc, RF_TRACE_DA(0), 0x400, &is_iomem);
	KUNIT_ASSERT_NOT_NULL(test, va);
	KUNIT_ASSERT_FALSE(test, is_iomem);
	memcpy(at_crash, va, 0x400);
	KUNIT_EXPECT_EQ(test, rproc_shutdown(r->rproc), 0);
	rf_wait(test, &r->stopped, "stop", r);
	followed = st_slurp(test, rf_st(test, r, "trace0_last"));
	KUNIT_EXPECT_STREQ(test, followed, rf_decoded(test, r, 0, 1, 0x400));

	dir = debugfs_create_dir("st_rf_both", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dir));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rf_debugfs_remove, dir), 0);
	sim = snaptrace_rproc_create(140, "default");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(sim), "create: %pe", sim);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rf_sim_destroy, sim), 0);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_debugfs_create(sim, dir), 0);
	WRITE_ONCE(sim->recovery, false);
	KUNIT_ASSERT_EQ(test, snaptrace_rproc_set_firmware(sim, r->rproc->firmware), 0);
	ret = snaptrace_rproc_start(sim);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "our remote boots %s", r->rproc->firmware);
	KUNIT_ASSERT_EQ(test, sim->num_traces, 1);
	snaptrace_rproc_report_crash(sim, SNAPTRACE_RPROC_WATCHDOG);
	KUNIT_ASSERT_EQ(test, READ_ONCE(sim->state), SNAPTRACE_RPROC_CRASHED);
	/* Crashed, the core writes no more: the firmware's bytes, captured. */
	va = snaptrace_rproc_da_to_va(sim, RF_TRACE_DA(0), 0x400, NULL);
	KUNIT_ASSERT_NOT_NULL(test, va);
	memcpy(va, at_crash, 0x400);
	raw_spin_lock_irqsave(&sim->core_lock, flags);
	snaptrace_rproc_capture_traces(sim);
	raw_spin_unlock_irqrestore(&sim->core_lock, flags);
	KUNIT_EXPECT_STREQ(test, st_slurp(test, ST_DEBUGFS "/st_rf_both/remoteproc140/trace0_last"),
			   followed);
}

static struct kunit_case rf_cases[] = {
	KUNIT_CASE(rf_boot_test),
	KUNIT_CASE_PARAM(rf_image_test, rf_image_gen_params),
	KUNIT_CASE_PARAM(rf_crash_recovery_test, rf_crash_gen_params),
	KUNIT_CASE(rf_crash_no_recovery_test),
	KUNIT_CASE(rf_stop_crashed_test),
	KUNIT_CASE(rf_capture_readers_no_wait_test),
	KUNIT_CASE(rf_runtime_da_test),
	KUNIT_CASE(rf_unmapped_trace_test),
	KUNIT_CASE(rf_readers_test),
	KUNIT_CASE(rf_table_change_test),
	KUNIT_CASE(rf_follow_stop_start_test),
	KUNIT_CASE(rf_unbind_test),
	KUNIT_CASE(rf_two_crash_test),
	KUNIT_CASE(rf_follow_param_test),
	KUNIT_CASE(rf_trace_format_test),
	KUNIT_CASE_PARAM(rf_both_ways_test, rf_crash_gen_params),
	{}
};

static struct kunit_suite rf_suite = {
	.name = "snaptrace_rproc_follow",
	.init = rf_init,
	.test_cases = rf_cases,
};

kunit_test_suites(&rf_suite);

