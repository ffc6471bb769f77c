#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kunit: load snaptrace.ko, then snaptrace_kunit.ko (its suites run at load),
# save the suites' results for the host to parse, and unload both.
. ./lib.sh
st_begin kunit

st_check "insmod snaptrace.ko" insmod $ST_MOD/snaptrace.ko
# The snaptrace_faults suite fails the Nth allocation of a call through its
# thread's fail_nth, which failslab and fail_page_alloc only count for the
# allocations they do not ignore: by default GFP_KERNEL ones (ignore-gfp-
# wait) and order-0 pages (min-order). The probability stays 0: nothing
# fails but what fail_nth asks for, so the other suites are unaffected.
# Kernels without failslab skip that suite.
if [ -d $ST_DEBUGFS/failslab ]; then
	st_check "fault injection armed for fail_nth" st_fault_arm
fi
# Kernels with upstream's remote processor framework: the test driver of
# real remotes that snaptrace_rproc_follow uses.
if [ -e $ST_MOD/snaptrace_rproc_test.ko ]; then
	st_check "insmod snaptrace_rproc_test.ko" insmod $ST_MOD/snaptrace_rproc_test.ko
fi
# Its parameters from the kernel's command line, as modprobe takes them
# ("snaptrace_kunit.NAME=VALUE"; busybox's insmod does not): the row's
# --append in scripts/check.sh (e.g. remote_walks=0).
kargs=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^snaptrace_kunit\.//p')
# shellcheck disable=SC2086 # one word a parameter
st_check "insmod snaptrace_kunit.ko${kargs:+ $kargs} (runs the suites)" \
	insmod $ST_MOD/snaptrace_kunit.ko $kargs
st_kunit_collect
# What each suite cost, from the kernel log's stamps (a diagnostic for
# Documentation/kernels.rst's costs, never judged).
dmesg | sed -n 's/^\[ *\([0-9.]*\)\] \(.*\)$/\1 \2/p' | awk '
	$2 == "#" && $3 == "Subtest:" && $4 ~ /^snaptrace_/ { start[$4] = $1 }
	$2 == "ok" || ($2 == "not" && $3 == "ok") {
		name = $2 == "ok" ? $4 : $5
		if (name in start) {
			printf "# suite time: %s %.1f s\n", name, $1 - start[name]
			delete start[name]
		}
	}' | tee -a "$ST_FILE"
st_check "KUnit results were saved" sh -c 'ls /tmp/ktap/kunit-*.ktap'
st_check "rmmod snaptrace_kunit" rmmod snaptrace_kunit
if [ -e $ST_MOD/snaptrace_rproc_test.ko ]; then
	st_check "rmmod snaptrace_rproc_test" rmmod snaptrace_rproc_test
fi
st_check "rmmod snaptrace" rmmod snaptrace
st_check_fails "nothing left in debugfs" test -e $ST_DIR

st_end
