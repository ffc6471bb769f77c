#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# demo: what `make demo` shows: load the module on the stock Debian kernel,
# record and snapshot through its debugfs files, then boot a simulated
# remote, read its trace, crash it and read its last trace, as a user at a
# root shell would.
. ./lib.sh
st_begin demo

D=$ST_DIR
R=$D/remoteproc/remoteproc0
run() { echo "# $*"; sh -c "$*"; }

st_check "insmod snaptrace.ko" insmod $ST_MOD/snaptrace.ko
cd $D || exit 1
run 'ls -l /sys/kernel/debug/snaptrace/'
run 'cat version buffer_size_kb tracing_on'
st_check "version, buffer_size_kb, tracing_on as README.md shows them" sh -c \
	'test "$(cat version buffer_size_kb tracing_on | tr "\n" " ")" = "0.1.0 1024 1 "'
run 'echo hello > trace_marker'
run 'echo world > trace_marker'
run 'cat trace'
run 'echo 1 > snapshot'
run 'echo after > trace_marker'
run 'cat snapshot | tail -2'
run 'cat trace | tail -1'
st_check "the snapshot holds what came before it" grep -q ': world$' $D/snapshot
run 'ls remoteproc/remoteproc0'
run 'echo snaptrace/example64.elf > remoteproc/remoteproc0/firmware'
run 'echo start > remoteproc/remoteproc0/state'
run 'cat remoteproc/remoteproc0/state'
run 'head -12 remoteproc/remoteproc0/resource_table'
run 'sleep 0.3; cat remoteproc/remoteproc0/trace0'
run 'echo disabled > remoteproc/remoteproc0/recovery'
run 'echo watchdog > remoteproc/remoteproc0/crash'
run 'cat remoteproc/remoteproc0/state'
run 'cat remoteproc/remoteproc0/trace0_last'
cat $R/trace0 >/tmp/trace0
st_check "trace0_last holds the trace at the crash" sh -c \
	"test -s /tmp/trace0 && cat $R/trace0_last | cmp -s - /tmp/trace0"
run 'echo recover > remoteproc/remoteproc0/recovery'
run 'sleep 0.2; cat remoteproc/remoteproc0/state; cat remoteproc/remoteproc0/trace0'
run 'echo stop > remoteproc/remoteproc0/state'
cd /
st_check "rmmod snaptrace" rmmod snaptrace

st_end
