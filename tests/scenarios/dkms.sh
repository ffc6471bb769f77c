#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# dkms: the module as DKMS built and installed it (tests/drivers/dkms-check.sh)
# works on the kernel it was built for: it loads, reports its version and
# parameters, records a marker, runs a remote and shows its trace, loads a
# module DKMS built against it, unloads.
. ./lib.sh
st_begin dkms

M=/sys/module/snaptrace
R0=$ST_DIR/remoteproc/remoteproc0
FW=snaptrace/example64.elf

st_check "insmod the DKMS-built snaptrace.ko" insmod $ST_MOD/snaptrace.ko
st_check "version is major.minor.patch" sh -c \
	"grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' $M/version"
st_expect_eq "debugfs version matches the module's" \
	"$(cat $M/version)" "$(cat $ST_DIR/version)"
st_check "srcversion recorded" test -s $M/srcversion
st_check "tainted out-of-tree (O), as a DKMS module is" grep -q O $M/taint
st_expect_eq "parameter buffer_size_kb defaults to 1024" "1024" \
	"$(cat $M/parameters/buffer_size_kb)"
st_expect_eq "parameter overwrite defaults to Y" "Y" "$(cat $M/parameters/overwrite)"
st_expect_eq "parameter remotes defaults to 1" "1" "$(cat $M/parameters/remotes)"
st_check "parameter layout exists" test -f $M/parameters/layout

st_check "write a marker" sh -c "echo hi >$ST_DIR/trace_marker"
st_check "the marker reads back from trace" sh -c \
	"grep -Eq '^\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: hi$' $ST_DIR/trace"

st_check "firmware $FW staged" test -f /lib/firmware/$FW
st_check "remote 0: load $FW" sh -c "echo $FW >$R0/firmware"
st_check "remote 0: start" sh -c "echo start >$R0/state"
st_expect_eq "remote 0 running" "running" "$(cat $R0/state)"
sleep 0.3
st_check "trace0 can be read and shows the remote's log" \
	grep -q 'hello from the remote' $R0/trace0
st_check "remote 0: stop" sh -c "echo stop >$R0/state"
st_expect_eq "remote 0 offline" "offline" "$(cat $R0/state)"

# A module DKMS built against it (examples/, tests/drivers/dkms-check.sh): its
# named instance holds the two lines recorded before its snapshot.
st_check "insmod the DKMS-built snaptrace_example.ko" insmod $ST_MOD/snaptrace_example.ko
st_expect_eq "its instance's snapshot holds its two records" "2" \
	"$(grep -c ': example: before the snapshot, [12]$' $ST_DIR/instances/example/snapshot)"
st_check "rmmod snaptrace_example" rmmod snaptrace_example

st_check "rmmod snaptrace" rmmod snaptrace
st_check_fails "module is gone" test -e $M

st_end
