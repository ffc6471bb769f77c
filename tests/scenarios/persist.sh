#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# persist: the persistent capture's load path, in one boot (no reboot):
# a load without the parameters says nothing and shows nothing; the
# region of memmap=1M$0x30000000 (given by the runner's --append) is
# found empty at first, armed, found armed and not captured at the next
# load; memory the kernel uses, and a reserve_mem= name the kernel was not
# given, are refused with a clear message. The capture itself and its
# validation are the snaptrace_persist KUnit suite's; a panic and the
# reboot after it are not run here (Documentation/persist.rst).
. ./lib.sh
st_begin persist

st_addr=0x30000000
st_size=1048576
st_count() { dmesg | grep -cF "$1"; }

st_before=$(st_count "snaptrace: persist:")
st_check "insmod without the parameters" insmod $ST_MOD/snaptrace.ko
st_expect_eq "nothing said about persistence" 0 \
	$(($(st_count "snaptrace: persist:") - st_before))
st_check_fails "no last_boot/" test -e $ST_DIR/last_boot
st_check "rmmod" rmmod snaptrace

if grep -qF "memmap=1M\$$st_addr" /proc/cmdline; then
	st_before=$(st_count "not ours yet")
	st_armed=$(st_count "snaptrace: persist: armed: $st_addr")
	st_check "insmod with the region" insmod $ST_MOD/snaptrace.ko \
		persist_address=$st_addr persist_size=$st_size
	st_expect_eq "first use: no previous capture, said once" 1 \
		$(($(st_count "not ours yet") - st_before))
	st_expect_eq "armed, said once" 1 \
		$(($(st_count "snaptrace: persist: armed: $st_addr") - st_armed))
	st_check_fails "no last_boot/ without a capture" test -e $ST_DIR/last_boot
	st_check "the spare is allocated at load" \
		test "$(cat $ST_DIR/snapshot_alloc)" = 1
	st_check "rmmod" rmmod snaptrace
	st_before=$(st_count "the previous boot did not panic")
	st_check "insmod again" insmod $ST_MOD/snaptrace.ko \
		persist_address=$st_addr persist_size=$st_size
	st_expect_eq "armed, not captured: no previous capture" 1 \
		$(($(st_count "the previous boot did not panic") - st_before))
	st_check_fails "no last_boot/" test -e $ST_DIR/last_boot
	st_check "rmmod" rmmod snaptrace
else
	st_skip "insmod with the region" "no memmap=1M\$$st_addr on the command line"
fi

st_before=$(st_count "is the kernel's memory")
st_check_fails "insmod with the kernel's own memory is refused" \
	insmod $ST_MOD/snaptrace.ko persist_address=0x1000000 persist_size=$st_size
# busybox's insmod tries a second way to load when the first fails: the
# message comes once per try.
st_check "and says why" test $(($(st_count "is the kernel's memory") - st_before)) -ge 1
st_check_fails "insmod with persist_address alone is refused" \
	insmod $ST_MOD/snaptrace.ko persist_address=$st_addr
st_check_fails "insmod with an unknown reserve_mem= name is refused" \
	insmod $ST_MOD/snaptrace.ko persist_name=nosuchregion
st_check_fails "nothing left loaded" test -e /sys/module/snaptrace

st_end
