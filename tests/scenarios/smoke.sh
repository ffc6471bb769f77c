#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# smoke: what a developer does first on a stock kernel: load the module,
# read its version, unload it, and see that nothing is left behind.
. ./lib.sh
st_begin smoke

# Without the kernel's remote processor framework (Debian's stock kernels)
# the module says so once at load; with it (the test kernels), never.
st_msg="snaptrace: no remote processor framework (CONFIG_REMOTEPROC) in this kernel: no remotes to follow"
st_before=$(dmesg | grep -cF "$st_msg")
st_check "insmod snaptrace.ko" insmod $ST_MOD/snaptrace.ko
if [ -d /sys/class/remoteproc ]; then st_want=0; else st_want=1; fi
st_expect_eq "no remotes to follow: said $st_want time(s) at load" \
	"$st_want" "$(($(dmesg | grep -cF "$st_msg") - st_before))"
st_check "debugfs directory exists" test -d $ST_DIR
st_expect_eq "version file reads the module version" \
	"$(cat /sys/module/snaptrace/version)" "$(cat $ST_DIR/version)"
st_expect_eq "version file is root-only (0400)" \
	"-r--------" "$(ls -l $ST_DIR/version | cut -c1-10)"
st_check_fails "version file is read-only" sh -c "echo 1 > $ST_DIR/version"
st_check_fails "a second insmod is refused" insmod $ST_MOD/snaptrace.ko
st_check "module still works after the refused insmod" cat $ST_DIR/version
st_check "rmmod snaptrace" rmmod snaptrace
st_check_fails "debugfs directory is gone" test -e $ST_DIR
st_check_fails "module is gone" test -e /sys/module/snaptrace
st_check "insmod again after rmmod" insmod $ST_MOD/snaptrace.ko
st_check "rmmod again" rmmod snaptrace

st_end
