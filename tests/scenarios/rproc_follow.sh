#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rproc_follow: snaptrace and real upstream remotes (the test driver
# snaptrace_rproc_test.ko, built for kernels with CONFIG_REMOTEPROC), as a
# board user meets them: the remotes run before snaptrace is loaded, one
# crashes and recovers, another crashes with recovery disabled, and
# snaptrace is unloaded (rmmod) while both are there, loaded again, and the
# driver is unbound (rmmod) while snaptrace follows its remotes. Crashes
# come through upstream's own debugfs "crash" file.
#
# The remotes' firmware writes 8 lines per run, "rftestN runR trace0
# lineL", one every 200 us; the waits below are bounded polls of what
# upstream shows (a hang guard: reaching the bound fails the step).
. ./lib.sh
st_begin rproc_follow

RC=/sys/class/remoteproc
UP=$ST_DEBUGFS/remoteproc
FD=$ST_DIR/remoteproc

if [ ! -e $ST_MOD/snaptrace_rproc_test.ko ]; then
	st_skip "real upstream remotes" "no CONFIG_REMOTEPROC: no snaptrace_rproc_test.ko"
	st_end
	exit 0
fi

# rp NAME: the remoteprocN of the remote named NAME
rp() {
	for d in $RC/remoteproc*; do
		[ "$(cat $d/name)" = "$1" ] && basename $d
	done
}

# run_text NAME RUN: the 8 lines of that run, as the firmware writes them
run_text() {
	for l in 0 1 2 3 4 5 6 7; do
		echo "$1 run$2 trace0 line$l"
	done
}

# wait_for CMD...: until CMD succeeds, at most 30 s
wait_for() {
	i=0
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -ge 300 ] && return 1
		sleep 0.1
	done
}

# shows FILE TEXT: FILE holds exactly TEXT
shows() {
	[ "$(cat "$1")" = "$2" ]
}

# ran REMOTE RUN: upstream's trace0 of REMOTE shows all of run RUN and
# upstream's core has it running
ran() {
	shows "$UP/$(rp "$1")/trace0" "$(run_text "$1" "$2")" &&
		[ "$(cat "$RC/$(rp "$1")/state")" = running ]
}

# first line of snaptrace's crashes file of REMOTE
crashes() {
	head -1 $FD/$1/crashes
}

st_check "insmod snaptrace_rproc_test.ko remotes=2" \
	insmod $ST_MOD/snaptrace_rproc_test.ko remotes=2
R0=$(rp rftest0)
R1=$(rp rftest1)
st_check "rftest0 runs its first run" wait_for ran rftest0 1
st_check "rftest1 runs its first run" wait_for ran rftest1 1

st_check "insmod snaptrace.ko: follows the running remotes" insmod $ST_MOD/snaptrace.ko
st_expect_eq "snaptrace's trace0 of rftest0" "$(run_text rftest0 1)" "$(cat $FD/rftest0/trace0)"
st_expect_eq "nothing captured yet" "crashes: 0" "$(crashes rftest0)"

echo 2 >$UP/$R0/crash
st_check "rftest0 crashed and recovered: a new run" wait_for ran rftest0 2
st_expect_eq "trace0_last holds the crash-time log" "$(run_text rftest0 1)" \
	"$(cat $FD/rftest0/trace0_last)"
st_expect_eq "one crash, recovered" "crashes: 1 recovery" \
	"$(crashes rftest0) $(sed -n 's/^last_after: //p' $FD/rftest0/crashes)"

echo disabled >$UP/$R1/recovery
echo 2 >$UP/$R1/crash
st_check "rftest1 crashed, recovery disabled" wait_for shows $RC/$R1/state crashed

st_check "rmmod snaptrace with a remote running and one crashed" rmmod snaptrace
st_check_fails "snaptrace's files are gone" test -e $ST_DIR
st_expect_eq "rftest0 still runs" running "$(cat $RC/$R0/state)"
st_expect_eq "rftest1 still crashed" crashed "$(cat $RC/$R1/state)"
st_expect_eq "upstream's trace0 of rftest0 unchanged" "$(run_text rftest0 2)" \
	"$(cat $UP/$R0/trace0)"

echo 2 >$UP/$R0/crash
st_check "rftest0 crashes and recovers without snaptrace" wait_for ran rftest0 3
echo recover >$UP/$R1/recovery
st_check "rftest1 recovered by hand" wait_for ran rftest1 2

st_check "insmod snaptrace.ko again" insmod $ST_MOD/snaptrace.ko
st_expect_eq "followed afresh: nothing captured" "crashes: 0" "$(crashes rftest0)"
st_expect_eq "snaptrace's trace0 of rftest0, its third run" "$(run_text rftest0 3)" \
	"$(cat $FD/rftest0/trace0)"
echo 2 >$UP/$R0/crash
st_check "rftest0 crashes again" wait_for ran rftest0 4
st_expect_eq "trace0_last holds the third run" "$(run_text rftest0 3)" \
	"$(cat $FD/rftest0/trace0_last)"

st_check "rmmod snaptrace_rproc_test while followed" rmmod snaptrace_rproc_test
st_check_fails "snaptrace let rftest0 go" test -e $FD/rftest0
st_check_fails "snaptrace let rftest1 go" test -e $FD/rftest1
st_check "rmmod snaptrace" rmmod snaptrace
st_check_fails "nothing left in debugfs" test -e $ST_DIR

st_end
