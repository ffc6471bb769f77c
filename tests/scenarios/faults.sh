#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faults: the module's sleepable entry points under allocation failure. For N = 1,
# 2, ... the Nth allocation of the command fails (/proc/self/fail-nth:
# failslab and fail_page_alloc, GFP_KERNEL included), up to the first N
# past the command's last allocation; a command that fails must say
# "Cannot allocate memory" (or its own error) and leave everything as it
# was; one that succeeds is undone. The harness scans for leaks at the end
# (kmemleak), and the module must work once faults stop.
. ./lib.sh
st_begin faults

D=$ST_DIR
R=$D/remoteproc/remoteproc0
F=/sys/kernel/debug
# The walk of each command ends FI_PAST (3) Ns in a row after its last
# allocation, or at MAXN (80), as far as every walk went before: a remote
# start allocates more than that.
MAXN=${MAXN:-80}
FI_PAST=${FI_PAST:-3}

if [ ! -e /proc/self/fail-nth ] || [ ! -d $F/failslab ]; then
	st_skip "fault injection" "this kernel has no FAILSLAB / fail-nth"
	st_end
	exit 0
fi
st_fault_arm

# faulty N CMD: run CMD (shell code) in a task whose Nth allocation fails;
# prints CMD's output, then "rc=STATUS left=LEFT" (the output comes back
# through the caller's pipe, made before the fault was armed). LEFT is what
# the task's fail-nth holds after CMD: 0 once the fault was injected, the
# allocations still to go when CMD made fewer than N (no fault). Reading it
# opens a file, which allocates too: a count that ran out there reads 0 or
# nothing, and counts as a fault in CMD, which only makes the walk longer.
# (read is the shell's own: a child would have a fail-nth of its own.)
faulty() {
	sh -c "echo $1 >/proc/self/fail-nth && { $2; } 2>&1; rc=\$?; read l </proc/self/fail-nth; echo rc=\$rc left=\$l" 2>&1
}

# --- insmod under fault injection ------------------------------------
# fail-nth cannot reach module init: a forked child starts with no count,
# and an exec'd insmod spends it in exec first. So the task filter: the
# shell marks itself (make-it-fail, kept across exec) and execs insmod;
# with probability 100 and a budget (the type's space) that only marked
# tasks spend, the first allocation of that task to find the budget spent
# fails. And the next one (times 2): busybox's insmod, when
# finit_module() fails for any reason, tries again with init_module().

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
	echo Y >$F/fail_page_alloc/ignore-gfp-highmem
}
# fi_insmod TYPE SPACE [PARAMS]: insmod in a marked task; sets FI_RC,
# FI_HIT (1 if a failure was injected) and FI_LEFT (budget left over:
# what the first failed allocation found). FI_KO: what to insmod;
# FI_TIMES: how many allocations fail once the budget is spent (2).
fi_insmod() {
	local t=$1 s=$2
	shift 2
	echo $s >$F/$t/space
	echo ${FI_TIMES:-2} >$F/$t/times
	sh -c "echo 1 >/proc/self/make-it-fail && exec insmod ${FI_KO:-$ST_MOD/snaptrace.ko} $*" \
		>/tmp/fi_out 2>&1
	FI_RC=$?
	FI_HIT=0
	[ "$(cat $F/$t/times)" = ${FI_TIMES:-2} ] || FI_HIT=1
	FI_LEFT=$(cat $F/$t/space)
	echo 0 >$F/$t/times
}
loaded() {
	grep -q '^snaptrace ' /proc/modules
}
FI_BIG=1000000000
# What a whole load makes in debugfs.
insmod $ST_MOD/snaptrace.ko
FI_FILES=$(find $D | wc -l)
rmmod snaptrace

# fi_begin TYPE: arm TYPE, zero the counts of fi_try.
fi_begin() {
	: >/tmp/bad
	: >/tmp/fi_dmesg
	FI_N=0 FI_HITS=0 FI_REFUSED=0 FI_LOADED=0 FI_INIT=0 FI_SEEN="" FI_WALK=""
	FI_PARTIAL=0
	dmesg -c >/dev/null
	fi_arm $1
}
# fi_try TYPE SPACE [PARAMS]: one insmod at budget SPACE, judged: refused
# with a message and nothing left, or loaded whole (and unloaded again).
# Appends to FI_WALK: R refused; I init failed, said so and undid itself
# (the second try loaded); L a fault, then loaded; P the same with a
# debugfs file left out; . no fault.
fi_try() {
	local t=$1 s=$2 c
	fi_insmod "$@"
	FI_N=$((FI_N + 1))
	if [ $FI_HIT = 1 ]; then
		FI_HITS=$((FI_HITS + 1))
		case " $FI_SEEN " in
		*" $((s - FI_LEFT)) "*) ;;
		*) FI_SEEN="$FI_SEEN $((s - FI_LEFT))" ;;
		esac
	fi
	if [ $FI_RC -ne 0 ]; then
		c=R
		[ $FI_HIT = 1 ] ||
			echo "space=$s: insmod failed with no fault: $(cat /tmp/fi_out)" >>/tmp/bad
		FI_REFUSED=$((FI_REFUSED + 1))
		# ENOMEM, or EINVAL: device_add() refuses a device whose name
		# could not be allocated (platform_device_add() ignores that
		# failure). A budget spent inside exec kills insmod (rc >= 128)
		# before it can say anything: refused all the same.
		[ $FI_RC -ge 128 ] ||
			grep -q 'Cannot allocate memory\|Invalid argument' /tmp/fi_out ||
			echo "space=$s: not ENOMEM (rc=$FI_RC): $(cat /tmp/fi_out)" >>/tmp/bad
		loaded && echo "space=$s: failed but loaded" >>/tmp/bad
		test -e $D && echo "space=$s: failed but $D is left" >>/tmp/bad
		loaded && rmmod snaptrace
	else
		# The fault hit something that copes: the module must work. A
		# debugfs file whose creation failed is left out, as debugfs
		# does for every user (its return value is not to be checked);
		# init checks its directories and version, so those are here.
		c=.
		[ $FI_HIT = 0 ] || c=L
		FI_LOADED=$((FI_LOADED + 1))
		cat $D/version >/dev/null 2>&1 && test -d $R ||
			echo "space=$s: loaded without its version file or remote" >>/tmp/bad
		if [ "$(find $D | wc -l)" -ne $FI_FILES ]; then
			FI_PARTIAL=$((FI_PARTIAL + 1))
			c=P
		fi
		rmmod snaptrace || echo "space=$s: rmmod failed" >>/tmp/bad
	fi
	# Init's own messages: it failed (and undid itself) on the way.
	dmesg -c >/tmp/fi_msgs
	cat /tmp/fi_msgs >>/tmp/fi_dmesg
	if grep 'snaptrace: ' /tmp/fi_msgs | grep -qv 'version .* loaded\|unloaded\|taints'; then
		FI_INIT=$((FI_INIT + 1))
		[ $c = R ] || c=I
	fi
	FI_WALK=$FI_WALK$c
}
# fi_end TYPE: disarm, report the counts and judge the walk.
fi_end() {
	local t=$1
	fi_disarm
	echo "# $t: budgets high to low: $FI_WALK"
	echo "# $t: $FI_N insmods, $FI_HITS faults at $(echo $FI_SEEN | wc -w) points, $FI_REFUSED refused, $FI_LOADED loaded ($FI_PARTIAL with debugfs files left out), $FI_INIT failed in init"
	# Where init failed (its messages), for the log.
	dmesg -c >>/tmp/fi_dmesg
	grep 'snaptrace: ' /tmp/fi_dmesg | sed 's/^\[[^]]*\] //' | grep -v 'version .* loaded\|unloaded\|taints' |
		sort | uniq -c | sed 's/^/# /'
	head -n 5 /tmp/bad >/tmp/bad5
	st_result "$(wc -l </tmp/bad)" "insmod, $t failing in init: refused cleanly, nothing left" /tmp/bad5
	st_check "insmod after $t: a plain insmod works" sh -c "insmod $ST_MOD/snaptrace.ko && cat $D/version && rmmod snaptrace"
}

# fi_filter_on TYPE: TYPE counts only allocations made with the module's
# code on the stack (the stack-trace filter: require-start/-end span the
# module area, from the kernel's _end to MODULES_END). fi_filter_off
# undoes it.
fi_filter_on() {
	echo 0x$(awk '$3 == "_end" { print $1 }' /proc/kallsyms) >$F/$1/require-start
	echo 0xffffffffff000000 >$F/$1/require-end
	# Unset (kallsyms hiding addresses), the filter would span the kernel.
	[ "$(cat $F/$1/require-start)" != 0 ] ||
		echo "require-start not set: kallsyms gave no _end" >>/tmp/bad
}
fi_filter_off() {
	echo 0 >$F/$1/require-start
	echo 0xffffffffffffffff >$F/$1/require-end
}

# failslab: only allocations made with the module's code on the stack
# count (the stack-trace filter: require-start/-end span the module area,
# from the kernel's _end to MODULES_END), so the budget spends itself on
# init's own allocations, in order, whatever exec, busybox and
# load_module() allocate. T, what a quiet insmod spends there, is measured;
# budgets T - 1 down to 0, by T / FI_SLAB_STEPS bytes, fail init's
# allocations one after another: ours (init fails, says so and undoes
# itself) and those debugfs makes for us (a file it cannot make is left
# out, as debugfs does for everyone, and the module loads).
fi_walk_slab() {
	local t=failslab steps=$1 s top step p="buffer_size_kb=8"
	fi_begin $t
	fi_filter_on $t
	fi_insmod $t $FI_BIG $p
	top=$((FI_BIG - FI_LEFT))
	if [ $FI_RC -ne 0 ] || ! loaded; then
		echo "plain insmod under the filter failed: $(cat /tmp/fi_out)" >>/tmp/bad
	fi
	loaded && rmmod snaptrace
	step=$((top / steps))
	[ $step -gt 0 ] || step=1
	echo "# $t: init allocates $top bytes: budgets $((top - 1)) to 0 by $step"
	s=$((top - 1))
	while [ $s -ge 0 ]; do
		fi_try $t $s $p
		s=$((s - step))
	done
	fi_filter_off $t
	fi_end $t
	st_check "insmod, $t: init itself failed and said so ($FI_INIT insmods)" \
		test $FI_INIT -gt 0
}
if [ -e $F/failslab/require-start ]; then
	# 40 budgets: each an insmod and its checks, about 6 s on the debug
	# kernel under TCG; 80 found the same kinds of failure in init
	# (Documentation/kernels.rst, "What each kernel costs").
	fi_walk_slab ${FI_SLAB_STEPS:-40}
else
	st_skip "insmod, failslab" "no CONFIG_FAULT_INJECTION_STACKTRACE_FILTER"
fi

# fail_page_alloc: init allocates its rings with vzalloc_node(). What
# counts (mm/fail_page_alloc.c, mm/page_alloc.c, mm/vmalloc.c):
# - vmalloc's pages are __GFP_HIGHMEM, which fail_page_alloc ignores by
#   default: ignore-gfp-highmem is turned off for the walk.
# - the budget (space) is spent 1 << order per check: on 6.12 the bulk
#   allocator asks once a call for up to 100 pages (order 0); since 7.x
#   vmalloc first tries pages of the highest order that fits (a 4 MiB ring
#   is one order-10 try, 1024 of the budget), then lower ones, then the
#   bulk allocator and single pages. A failed try of a high order is not a
#   failure of vmalloc: it goes on with a lower one.
# - exec and busybox spend far more than module init (on 7.x user memory
#   comes in large folios), and not the same each time.
# So the stack-trace filter, as for failslab: only allocations with the
# module's code on the stack spend the budget; and once it is spent every
# later allocation of the insmod fails (FI_TIMES), so a vmalloc fails
# whatever order it tries next. T, what a quiet insmod spends there, is
# measured. The two rings (4 MiB a CPU) are most of T, and come early in
# init: every budget below their end fails the same way, refused with
# "cannot allocate the ring buffer" (a walk by T / 40 showed it: 40 of
# its 41 budgets did on 7.3, 28 of 30 on 6.12). Before the rings only a
# slab refill of debugfs's allocations spends a page, now and then (2 of
# those 30 loads' second tries failed there: "cannot create debugfs
# directory", "instances/"), failures of the same calls the failslab walk
# fails in order. What can differ is above the rings, where init's later
# allocations are (the remotes' memory and files, ivshmem), close
# together near T. So the budgets are T - 1, T - 2, T - 4, ..., T - 2^k,
# down to the first whose load fails first in the rings (asserted:
# reached), and then 0 (a budget that injects nothing starts the count
# down again from what that load spent): init's first page allocation, whatever it is,
# fails and init undoes itself. A budget names no fixed allocation (slab
# refills and KASAN's stack depot spend it too), so no count is asserted
# beyond that.
fi_walk_pages() {
	local t=fail_page_alloc s top d=1 ring=0 later=0 first p="buffer_size_kb=4096"
	local FI_TIMES=100000
	fi_begin $t
	echo N >$F/$t/ignore-gfp-highmem
	fi_filter_on $t
	fi_insmod $t $FI_BIG $p
	top=$((FI_BIG - FI_LEFT))
	if [ $FI_RC -ne 0 ] || ! loaded; then
		echo "plain insmod under the filter failed: $(cat /tmp/fi_out)" >>/tmp/bad
	fi
	loaded && rmmod snaptrace
	echo "# $t: init spends T = $top of the budget: budgets T - 1, T - 2, T - 4, ... down into the rings, then 0"
	s=$((top - 1))
	while [ $s -ge 0 ]; do
		fi_try $t $s $p
		# Where this load failed first (busybox's second try, with the
		# budget spent, fails at once: in the rings).
		first=$(grep -o 'snaptrace: cannot [^:]*' /tmp/fi_msgs | head -n 1)
		echo "# $t: budget $s (T - $((top - s))): ${FI_WALK#"${FI_WALK%?}"} $first"
		case $first in
		*"cannot allocate the ring buffer (4194304 "*) ring=$((ring + 1)) ;;
		*"cannot "*) later=$((later + 1)) ;;
		esac
		[ $s -gt 0 ] || break
		if [ $ring -gt 0 ]; then
			s=0
		elif [ $FI_HIT = 0 ]; then
			# No fault: this load spent less than the first (on
			# 6.12 once 45, the ones after it 28 at most): what it
			# spent is the T to count down from.
			top=$((s - FI_LEFT))
			echo "# $t: that load spent T = $top"
			d=1
			s=$((top - 1))
		else
			d=$((d * 2))
			s=$((top - d))
			[ $s -ge 0 ] || s=0
		fi
	done
	fi_filter_off $t
	echo "# $t: $ring loads failed first in the rings, $later above them"
	fi_end $t
	st_check "insmod, $t: init's page allocations were failed ($FI_INIT insmods)" \
		test $FI_INIT -gt 0
	st_check "insmod, $t: the walk reached the rings" test $ring -gt 0
}
fi_walk_pages

st_check "insmod with faults off" insmod $ST_MOD/snaptrace.ko

# op_step: one N of op's walk (op's variables).
op_step() {
	out=$(faulty $n "$cmd")
	case "$out" in
	*" left="[1-9]*) past=$((past + 1)) c=. ;;
	*) past=0 c=c ;;
	esac
	case "$out" in
	*rc=0" left="*)
		sh -c "$undo" >/dev/null 2>&1 || echo "N=$n: undo failed" >>/tmp/bad ;;
	*)
		failed=$((failed + 1)) c=F
		echo "$out" | grep -q 'Cannot allocate memory' ||
			echo "N=$n: not ENOMEM: $(echo "$out" | tr '\n' ' ')" >>/tmp/bad
		sh -c "$check" >/dev/null 2>&1 ||
			{ echo "N=$n: state changed: $(echo "$out" | tr '\n' ' ')" >>/tmp/bad
			  sh -c "$undo" >/dev/null 2>&1; } ;;
	esac
	walk=$walk$c
}

# op NAME CMD CHECK UNDO [ENOUGH]: CMD under fail-nth N = 1, 2, ..., MAXN,
# or until FI_PAST Ns in a row inject nothing (CMD made fewer than N
# allocations: every one of them has been failed once, and a larger N
# changes nothing), or until ENOUGH (shell code, given the kernel's
# messages of the walk so far in /tmp/op_dmesg) holds after a failure.
# After a failure CHECK (state as before) must hold and the message must
# be ENOMEM's; after a success UNDO restores the state. Bad cases are
# listed as diagnostics; the log shows each N's outcome (F failed, c a
# fault coped with, . no fault).
op() {
	local name=$1 cmd=$2 check=$3 undo=$4 enough=$5 n=1 failed=0 out past=0 walk="" c done=""
	: >/tmp/bad
	dmesg -c >/dev/null
	: >/tmp/op_dmesg
	while [ $past -lt $FI_PAST ] && [ $n -le $MAXN ]; do
		op_step
		n=$((n + 1))
		if [ $c = F ] && [ -n "$enough" ]; then
			dmesg -c >>/tmp/op_dmesg
			if eval "$enough"; then
				done=1
				break
			fi
		fi
	done
	dmesg -c >>/tmp/op_dmesg
	if [ -n "$done" ]; then
		echo "# $name: N = 1 to $((n - 1)), enough ($enough); $failed failed"
	elif [ $past -lt $FI_PAST ]; then
		echo "# $name: N = 1 to $MAXN (MAXN; it allocates more), $failed failed"
	else
		echo "# $name: N = 1 to $((n - 1)), all its allocations; $failed failed"
	fi
	echo "# $name: $walk"
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
# A start makes over 300 allocations (firmware load, table, carveouts,
# trace instances, core): KUnit's snaptrace_faults fails each of them in
# turn through snaptrace_rproc_boot(), the function the write calls
# (rproc_boot, and again with a registered carveout), and checks that
# everything is given back. What is left to show here is what a user
# sees: the write fails with ENOMEM and the remote is as it was, whatever
# part of the start failed: the shell's open and the write (the first
# Ns), the firmware loader ("cannot load firmware", then "Boot failed"),
# the boot after it ("Boot failed" alone). So the walk ends once the boot
# after the loader has failed twice; reaching MAXN (80) before that, as
# far as the walk went when it did not end there, fails.
start_enough() {
	fw=$(grep -c 'cannot load firmware' /tmp/op_dmesg)
	boot=$(grep -c 'Boot failed' /tmp/op_dmesg)
	[ $fw -gt 0 ] && [ $((boot - fw)) -ge 2 ]
}
op "remote start (firmware load, carveouts, traces)" "echo start >$R/state" \
	"[ \$(cat $R/state) = offline ] && ! test -e $R/trace0 && ! grep -q Carveout $R/carveout_memories" \
	"echo stop >$R/state" start_enough
start_enough
echo "# remote start: $fw failed in the firmware loader, $((boot - fw)) after it"
st_check "remote start: failures in the firmware loader and after it" start_enough
op "trace_marker" "echo hello >$D/trace_marker" "true" "true"

# --- after the faults: everything works
st_check "a marker is recorded" sh -c "echo after-faults >$D/trace_marker && grep -q after-faults $D/trace"
st_check "a snapshot is taken" sh -c "echo 1 >$D/snapshot && grep -q after-faults $D/snapshot"
st_check "a remote starts" sh -c "echo start >$R/state && sleep 0.2 && grep -q 'hello from the remote' $R/trace0"
st_check "rmmod" rmmod snaptrace
st_check_fails "nothing left" test -e $D

st_end
