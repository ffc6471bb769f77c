#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faults: the module's sleepable entry points under allocation failure. For N = 1,
# 2, ... the Nth allocation of the command fails (/proc/self/fail-nth:
# failslab and fail_page_alloc, GFP_KERNEL included); a command that fails
# must say "Cannot allocate memory" (or its own error) and leave everything
# as it was; one that succeeds is undone. The harness scans for leaks at the
# end (kmemleak), and the module must work once faults stop.
. ./lib.sh
st_begin faults

D=$ST_DIR
R=$D/remoteproc/remoteproc0
F=/sys/kernel/debug
MAXN=${MAXN:-80}

if [ ! -e /proc/self/fail-nth ] || [ ! -d $F/failslab ]; then
	st_skip "fault injection" "this kernel has no FAILSLAB / fail-nth"
	st_end
	exit 0
fi
# Fail GFP_KERNEL allocations of any order too, quietly (a stack dump per
# injected fault would read as a splat).
for d in failslab fail_page_alloc; do
	echo N >$F/$d/ignore-gfp-wait
	echo 0 >$F/$d/verbose
done
echo 0 >$F/fail_page_alloc/min-order

# faulty N CMD: run CMD (shell code) in a task whose Nth allocation fails;
# prints CMD's output, then "rc=STATUS" (the output comes back through the
# caller's pipe, made before the fault was armed).
faulty() {
	sh -c "echo $1 >/proc/self/fail-nth && { $2; } 2>&1; echo rc=\$?" 2>&1
}

# insmod itself is not driven here: the allocations of exec and of the
# shell use up the fail-nth count before init_module() runs (seen on 6.12),
# so no N reaches the module's own; its unwinding is tested by refused
# parameters (tracefs, remoteproc) and a taken debugfs name (KUnit).
st_check "insmod with faults off" insmod $ST_MOD/snaptrace.ko

# op NAME CMD CHECK UNDO: CMD under fail-nth N = 1..MAXN; after a failure
# CHECK (state as before) must hold and the message must be ENOMEM's; after
# a success UNDO restores the state. Bad cases are listed as diagnostics.
op() {
	local name=$1 cmd=$2 check=$3 undo=$4 n=1 failed=0 out
	: >/tmp/bad
	while [ $n -le $MAXN ]; do
		out=$(faulty $n "$cmd")
		case "$out" in
		*rc=0)
			sh -c "$undo" >/dev/null 2>&1 || echo "N=$n: undo failed" >>/tmp/bad ;;
		*)
			failed=$((failed + 1))
			echo "$out" | grep -q 'Cannot allocate memory' ||
				echo "N=$n: not ENOMEM: $(echo "$out" | tr '\n' ' ')" >>/tmp/bad
			sh -c "$check" >/dev/null 2>&1 ||
				{ echo "N=$n: state changed: $(echo "$out" | tr '\n' ' ')" >>/tmp/bad
				  sh -c "$undo" >/dev/null 2>&1; } ;;
		esac
		n=$((n + 1))
	done
	head -n 5 /tmp/bad >/tmp/bad5
	st_result "$(wc -l </tmp/bad)" "$name: every failure is -ENOMEM with nothing changed" /tmp/bad5
	st_check "$name: some allocations were failed ($failed)" test $failed -gt 0
}

op "snapshot_alloc" "echo 1 >$D/snapshot_alloc" \
	"[ \$(cat $D/snapshot_alloc) = 0 ]" "echo 0 >$D/snapshot"
op "snapshot (allocate and swap)" "echo 1 >$D/snapshot" \
	"[ \$(cat $D/snapshot_alloc) = 0 ]" "echo 0 >$D/snapshot"
echo 1 >$D/snapshot_alloc
op "buffer_size_kb resize, with a spare" "echo 64 >$D/buffer_size_kb" \
	"[ \$(cat $D/buffer_size_kb) = 1024 ] && [ \$(cat $D/snapshot_alloc) = 1 ]" \
	"echo 1024 >$D/buffer_size_kb"
echo 0 >$D/snapshot
echo snaptrace/example64.elf >$R/firmware
op "remote start (firmware load, carveouts, traces)" "echo start >$R/state" \
	"[ \$(cat $R/state) = offline ] && ! test -e $R/trace0 && ! grep -q Carveout $R/carveout_memories" \
	"echo stop >$R/state"
op "trace_marker" "echo hello >$D/trace_marker" "true" "true"

# --- after the faults: everything works
st_check "a marker is recorded" sh -c "echo after-faults >$D/trace_marker && grep -q after-faults $D/trace"
st_check "a snapshot is taken" sh -c "echo 1 >$D/snapshot && grep -q after-faults $D/snapshot"
st_check "a remote starts" sh -c "echo start >$R/state && sleep 0.2 && grep -q 'hello from the remote' $R/trace0"
st_check "rmmod" rmmod snaptrace
st_check_fails "nothing left" test -e $D

st_end
