#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kunit: load snaptrace.ko, then snaptrace_kunit.ko (its suites run at load),
# save the suites' results for the host to parse, and unload both.
. ./lib.sh
st_begin kunit

st_check "insmod snaptrace.ko" insmod $ST_MOD/snaptrace.ko
st_check "insmod snaptrace_kunit.ko (runs the suites)" \
	insmod $ST_MOD/snaptrace_kunit.ko
st_kunit_collect
st_check "KUnit results were saved" sh -c 'ls /tmp/ktap/kunit-*.ktap'
st_check "rmmod snaptrace_kunit" rmmod snaptrace_kunit
st_check "rmmod snaptrace" rmmod snaptrace
st_check_fails "nothing left in debugfs" test -e $ST_DIR

st_end
