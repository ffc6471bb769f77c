// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the module's debugfs directory (src/debugfs.c): the
 * "version" file, creation and removal, and clean failure. The suite keeps
 * its first name, snaptrace_version.
 *
 * Runs when snaptrace_kunit.ko is loaded after snaptrace.ko, with debugfs
 * mounted at ST_DEBUGFS.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <kunit/test.h>

#include <snaptrace/snaptrace.h>
#include "../src/internal.h"
#include "st_kunit.h"

/* The loaded module's version file shows the version and nothing else. */
static void version_file_shows_version(struct kunit *test)
{
	char buf[64];
	ssize_t n;

	st_skip_unless_debugfs_mounted(test);
	n = st_read_file(test, ST_DEBUGFS "/" SNAPTRACE_DEBUGFS_NAME "/version",
			 buf, sizeof(buf));
	KUNIT_ASSERT_GE_MSG(test, n, 0, "read: %pe", ERR_PTR(n));
	KUNIT_EXPECT_STREQ(test, buf, SNAPTRACE_VERSION "\n");
}

/* Only root may read the version file; nobody may write it. */
static void version_file_is_root_only(struct kunit *test)
{
	struct dentry *dir, *file;

	dir = debugfs_lookup(SNAPTRACE_DEBUGFS_NAME, NULL);
	KUNIT_ASSERT_NOT_NULL(test, dir);
	file = debugfs_lookup("version", dir);
	dput(dir);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_EXPECT_EQ(test, d_inode(file)->i_mode & 07777, 0400);
	KUNIT_EXPECT_TRUE(test, S_ISREG(d_inode(file)->i_mode));
	dput(file);
}

/* Create puts the directory and its files in place; destroy removes all. */
static void create_then_destroy_leaves_nothing(struct kunit *test)
{
	struct dentry *root, *d;

	root = snaptrace_debugfs_create("snaptrace-kunit");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(root), "create: %pe", root);

	d = debugfs_lookup("version", root);
	KUNIT_EXPECT_NOT_NULL(test, d);
	dput(d);

	snaptrace_debugfs_destroy(root);
	d = debugfs_lookup("snaptrace-kunit", NULL);
	KUNIT_EXPECT_NULL(test, d);
	dput(d);
}

/*
 * A name that is taken fails with -EEXIST and changes nothing: the existing
 * directory gains no files, and the loaded module's directory still works.
 */
static void create_on_taken_name_fails_cleanly(struct kunit *test)
{
	struct dentry *busy, *root, *d;

	busy = debugfs_create_dir("snaptrace-kunit-busy", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(busy));

	root = snaptrace_debugfs_create("snaptrace-kunit-busy");
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(root), -EEXIST);
	d = debugfs_lookup("version", busy);
	KUNIT_EXPECT_NULL(test, d);
	dput(d);
	debugfs_remove(busy);

	root = snaptrace_debugfs_create(SNAPTRACE_DEBUGFS_NAME);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(root), -EEXIST);
	d = debugfs_lookup(SNAPTRACE_DEBUGFS_NAME, NULL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	busy = debugfs_lookup("version", d);
	dput(d);
	KUNIT_EXPECT_NOT_NULL(test, busy);
	dput(busy);
}

static struct kunit_case snaptrace_version_cases[] = {
	KUNIT_CASE(version_file_shows_version),
	KUNIT_CASE(version_file_is_root_only),
	KUNIT_CASE(create_then_destroy_leaves_nothing),
	KUNIT_CASE(create_on_taken_name_fails_cleanly),
	{}
};

static struct kunit_suite snaptrace_version_suite = {
	.name = "snaptrace_version",
	.test_cases = snaptrace_version_cases,
};

kunit_test_suites(&snaptrace_version_suite);
