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

# --- insmod under fault injection ------------------------------------
# fail-nth cannot reach module init: a forked child starts with no count,
# and an exec'd insmod spends it in exec first. So the task filter: the
# shell marks itself (make-it-fail, kept across exec) and execs insmod;
# with probability 100 and a budget of bytes (failslab's space) that only
# marked tasks spend, the first allocation of
# that task to find the budget spent fails. And the next one (times 2):
# busybox's insmod, when finit_module() fails for any reason, tries again
# with init_module(), which must fail too for the insmod to be refused.
# Any budget up to L, the last allocation whose failure refuses the
# insmod, fails insmod somewhere (load_module(), init); beyond L only
# allocations that cope are hit.
# Init's allocations are the last fatal ones, so the budget is found for
# L by bisection and then stepped down from it across a window, failing
# init's allocations one after another.

# fi_arm TYPE: only TYPE injects, only into marked tasks.
fi_arm() {
	local d
	for d in failslab fail_page_alloc; do
		echo 0 >$F/$d/probability
		echo 0 >$F/$d/times
	done
	echo Y >$F/$1/task-filter
	echo 1 >$F/$1/interval
	echo 100 >$F/$1/probability
}
fi_disarm() {
	local d
	for d in failslab fail_page_alloc; do
		echo 0 >$F/$d/probability
		echo 0 >$F/$d/times
		echo N >$F/$d/task-filter
		echo 0 >$F/$d/space
	done
}
# fi_insmod TYPE SPACE [PARAMS]: insmod in a marked task; sets FI_RC,
# FI_HIT (1 if a failure was injected) and FI_LEFT (budget left over:
# what the first failed allocation found).
fi_insmod() {
	local t=$1 s=$2
	shift 2
	echo $s >$F/$t/space
	echo 2 >$F/$t/times
	sh -c "echo 1 >/proc/self/make-it-fail && exec insmod $ST_MOD/snaptrace.ko $*" \
		>/tmp/fi_out 2>&1
	FI_RC=$?
	FI_HIT=0
	[ "$(cat $F/$t/times)" = 2 ] || FI_HIT=1
	FI_LEFT=$(cat $F/$t/space)
	echo 0 >$F/$t/times
}
loaded() {
	grep -q '^snaptrace ' /proc/modules
}
FI_BIG=1000000000
# Small ring: its pages are allocated in few calls.
FI_PARAMS="buffer_size_kb=8"

# fi_walk TYPE WINDOW STEP: find L, then budgets L, L - STEP, ... down
# to L - WINDOW.
fi_walk() {
	local t=$1 win=$2 step=$3 lo=0 hi mid s n=0 hits=0 refused=0 loadedok=0 seen=""
	: >/tmp/bad
	fi_arm $t
	# What a whole insmod spends: the bisection's upper end.
	fi_insmod $t $FI_BIG $FI_PARAMS
	hi=$((FI_BIG - FI_LEFT))
	if [ $FI_RC -ne 0 ] || ! loaded; then
		echo "plain insmod under the filter failed: $(cat /tmp/fi_out)" >>/tmp/bad
	fi
	loaded && rmmod snaptrace
	# L: refused at lo, loaded at hi.
	while [ $((hi - lo)) -gt 1 ]; do
		mid=$(((lo + hi) / 2))
		fi_insmod $t $mid $FI_PARAMS
		if [ $FI_RC -ne 0 ]; then
			lo=$mid
		else
			hi=$mid
			rmmod snaptrace
		fi
	done
	echo "# $t: the last fatal allocation at $lo (of $hi)"
	s=$lo
	while [ $s -ge 0 ] && [ $s -ge $((lo - win)) ]; do
		fi_insmod $t $s $FI_PARAMS
		n=$((n + 1))
		if [ $FI_HIT = 1 ]; then
			hits=$((hits + 1))
			case " $seen " in *" $((s - FI_LEFT)) "*) ;; *) seen="$seen $((s - FI_LEFT))" ;; esac
		fi
		if [ $FI_RC -ne 0 ]; then
			[ $FI_HIT = 1 ] ||
				echo "space=$s: insmod failed with no fault: $(cat /tmp/fi_out)" >>/tmp/bad
			refused=$((refused + 1))
			grep -q 'insmod' /tmp/fi_out ||
				echo "space=$s: no error message: $(cat /tmp/fi_out)" >>/tmp/bad
			loaded && echo "space=$s: failed but loaded" >>/tmp/bad
			test -e $D && echo "space=$s: failed but $D is left" >>/tmp/bad
			loaded && rmmod snaptrace
		else
			# The fault hit something that copes: the module must be whole.
			loadedok=$((loadedok + 1))
			cat $D/version >/dev/null 2>&1 && test -e $R/state ||
				echo "space=$s: loaded but incomplete" >>/tmp/bad
			rmmod snaptrace || echo "space=$s: rmmod failed" >>/tmp/bad
		fi
		s=$((s - step))
	done
	fi_disarm
	echo "# $t: $n insmods, $hits faults at $(echo $seen | wc -w) points, $refused refused, $loadedok loaded"
	# Where init failed (its messages), for the log.
	dmesg | grep 'snaptrace: ' | sed 's/^\[[^]]*\] //' | grep -v 'loaded\|unloaded' |
		sort | uniq -c | sed 's/^/# /'
	head -n 5 /tmp/bad >/tmp/bad5
	st_result "$(wc -l </tmp/bad)" "insmod, $t failing in init: refused cleanly, nothing left" /tmp/bad5
	st_check "insmod, $t: some insmods were refused ($refused)" test $refused -gt 0
	st_check "insmod after $t: a plain insmod works" sh -c "insmod $ST_MOD/snaptrace.ko && cat $D/version && rmmod snaptrace"
}
# (fail_page_alloc is not walked here: the few page allocations it counts
# for insmod (vmalloc's come in bulk, user pages are ignored) do not
# reach init deterministically; init's ring pages fail under fail-nth
# with resize below.)
fi_walk failslab ${FI_SLAB_WINDOW:-32768} ${FI_SLAB_STEP:-512}

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
