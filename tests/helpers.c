// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the snaptrace KUnit suites, and the test module's
 * metadata.
 */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "st_kunit.h"

/**
 * st_read_file() - read a file the way user space does
 * @test: the running test; owns the user buffer
 * @path: absolute path of the file
 * @buf: kernel buffer for the contents, NUL-terminated
 * @len: size of @buf in bytes; at most @len - 1 bytes are read
 *
 * Reads through the file's ->read() into a user-space mapping made for the
 * test, so copy_to_user(), seq_file and the debugfs proxy all take part as
 * they do for cat(1). (kernel_read() refuses debugfs files: they have
 * ->read, not ->read_iter.)
 *
 * Context: process context (the KUnit test thread), may sleep.
 * Return: bytes read, or a negative errno.
 */
ssize_t st_read_file(struct kunit *test, const char *path, char *buf,
		     size_t len)
{
	unsigned long ubuf;
	struct file *f;
	loff_t pos = 0;
	ssize_t n, total = 0;

	if (len == 0)
		return -EINVAL;
	ubuf = kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (!ubuf)
		return -ENOMEM;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (!f->f_op->read) {
		fput(f);
		return -EINVAL;
	}
	do {
		n = f->f_op->read(f, (char __user *)ubuf + total,
				  len - 1 - total, &pos);
		if (n > 0)
			total += n;
	} while (n > 0 && total < len - 1);
	fput(f);
	if (n < 0)
		return n;

	if (copy_from_user(buf, (char __user *)ubuf, total))
		return -EFAULT;
	buf[total] = '\0';
	return total;
}

/**
 * st_skip_unless_debugfs_mounted() - skip a test that needs debugfs by path
 * @test: the running test
 *
 * Context: process context, may sleep.
 */
void st_skip_unless_debugfs_mounted(struct kunit *test)
{
	struct file *f = filp_open(ST_DEBUGFS "/kunit", O_RDONLY | O_DIRECTORY, 0);

	if (IS_ERR(f))
		kunit_skip(test, "debugfs is not mounted at " ST_DEBUGFS);
	fput(f);
}

MODULE_DESCRIPTION("KUnit tests for snaptrace");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
