#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cycle: load and unload the module, with readers and open files in
# between, twice for each file of FILES (16 cycles). Each cycle: insmod, a trace_pipe reader blocked in the background,
# one more debugfs file held open (a different one each cycle, a remote's
# trace buffer among them), a record for the reader. While any file is open
# rmmod must fail: every file's fops name the module as owner, so debugfs
# holds a module reference for each open file ("Resource temporarily
# unavailable", EWOULDBLOCK, from delete_module()), and the module keeps
# working. Once the reader is gone and the file closed, rmmod must succeed
# and leave nothing behind. The harness then scans for leaks (kmemleak).
#
# Each cycle does the same with its file every time it comes round, and
# its checks are exact: one round shows each file's case, the second that a
# module loaded after such an unload goes through it again (what 50 cycles,
# six rounds, showed four more times; kmemleak sees the leaks of any).
. ./lib.sh
st_begin cycle

D=$ST_DIR
R=$D/remoteproc/remoteproc0
# Held open in turn across the failed rmmod.
FILES="buffer_size_kb trace snapshot per_cpu/cpu0/trace_pipe tracing_on version remoteproc/remoteproc0/state remoteproc/remoteproc0/trace0"
CYCLES=${CYCLES:-$((2 * $(echo $FILES | wc -w)))}

loaded() {
	grep -q '^snaptrace ' /proc/modules
}

# wait_for CMD...: until CMD succeeds, 5 s at most.
wait_for() {
	local i=0
	until "$@" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.05
	done
}

# nth_file N: the file cycle N holds open.
nth_file() {
	set -- $FILES
	shift $(($1 % $#))
	echo "$1"
}

: >/tmp/bad
n=0 busy=0 read_ok=0
while [ $n -lt $CYCLES ]; do
	n=$((n + 1))
	f=$(nth_file $n)
	if ! insmod $ST_MOD/snaptrace.ko buffer_size_kb=64 >/tmp/cyc 2>&1; then
		echo "cycle $n: insmod failed: $(cat /tmp/cyc)" >>/tmp/bad
		break
	fi
	case $f in
	*/trace0)
		# A running remote, unloaded with its trace buffer open.
		echo snaptrace/example64.elf >$R/firmware
		echo start >$R/state ;;
	esac
	cat $D/trace_pipe >/tmp/pipe.out 2>&1 &
	reader=$!
	# (A failed redirection on exec ends the shell: look first.)
	if ! wait_for test -r $D/$f; then
		echo "cycle $n: no $f" >>/tmp/bad
		kill $reader
		wait $reader
		rmmod snaptrace
		continue
	fi
	exec 3<$D/$f
	wait_for sh -c "ls -l /proc/$reader/fd | grep -q trace_pipe" ||
		echo "cycle $n: the reader did not open trace_pipe" >>/tmp/bad
	echo "cycle-$n" >$D/trace_marker

	# Busy: the reader and fd 3 hold the module.
	if rmmod snaptrace >/tmp/cyc 2>&1; then
		echo "cycle $n: rmmod succeeded with $f and trace_pipe open" >>/tmp/bad
	else
		grep -q 'Resource temporarily unavailable' /tmp/cyc && busy=$((busy + 1)) ||
			echo "cycle $n: rmmod failed otherwise: $(cat /tmp/cyc)" >>/tmp/bad
	fi
	loaded && cat $D/version >/dev/null ||
		echo "cycle $n: module not working after the refused rmmod" >>/tmp/bad

	# Close fd 3 alone: the reader still holds it.
	exec 3<&-
	rmmod snaptrace >/dev/null 2>&1 &&
		echo "cycle $n: rmmod succeeded with trace_pipe blocked in read" >>/tmp/bad

	kill $reader
	wait $reader 2>/dev/null
	grep -q "cycle-$n" /tmp/pipe.out && read_ok=$((read_ok + 1))
	if ! rmmod snaptrace >/tmp/cyc 2>&1; then
		echo "cycle $n: rmmod failed with nothing open: $(cat /tmp/cyc)" >>/tmp/bad
		break
	fi
	if loaded || test -e $D; then
		echo "cycle $n: something left after rmmod" >>/tmp/bad
		break
	fi
done

head -n 5 /tmp/bad >/tmp/bad5
st_result "$(wc -l </tmp/bad)" "$n load/unload cycles with files open: rmmod refused while open, clean once closed" /tmp/bad5
st_expect_eq "all $CYCLES cycles ran" "$CYCLES" "$n"
st_expect_eq "rmmod said busy in every cycle" "$CYCLES" "$busy"
st_expect_eq "the blocked trace_pipe reader got its cycle's record every time" "$CYCLES" "$read_ok"
st_check "a plain load and unload afterwards" sh -c "insmod $ST_MOD/snaptrace.ko && cat $D/version && rmmod snaptrace"
st_check_fails "nothing left" test -e $D

st_end
