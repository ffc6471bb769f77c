#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# persist_reboot: the persistent capture across real panics and warm
# reboots (Documentation/persist.rst), in one QEMU run of seven boots
# (qemu-run.sh --reboots 6 --append 'memmap=1M$0x30000000': QEMU and
# SeaBIOS keep RAM across the reset). /init runs this script at every
# boot; the stage is decided by what the guest finds: the region's content
# (through snaptrace_crash.ko, before snaptrace claims it), then what
# snaptrace's load says and last_boot/info shows.
#
#  1  the region is all zeros (fresh RAM): the load finds no capture.
#     A workload (tests/crash_testdrv.c) from task, softirq, hardirq and
#     NMI context on each CPU; a record reserved and never committed on
#     CPU 1, which then spins with interrupts off; this boot's _printk
#     (/proc/kallsyms) into trace_marker; echo c (sysrq panic, panic=1;
#     on a kernel without sysrq, the test module's panic).
#  2  the sysrq capture, record by record: every record committed before
#     the panic, in order, the torn one dropped and counted on CPU 1, info
#     (reason, message, CPU, kernel anchor = the previous boot's _printk);
#     release. The workload again, then a panic from an NMI on CPU 1.
#  3  that capture likewise; then panic_on_oops and an oops (a NULL
#     pointer dereference in task context), captured by the die notifier
#     (persist_on_oops=1).
#  4  that capture likewise; then snaptrace unloaded (the region
#     unclaimed), garbage over the whole region, reboot -f.
#  5  the garbage is still there; the load refuses it with a clear
#     message, shows no last_boot/ and arms the region again. The
#     workload, then a plain panic with a message of ours.
#  6  that capture is shown (and so the region was armed again); not
#     released; reboot -f.
#     (The short run, persist_reboot.stages=4, ends in stage 4 once
#     the oops's capture is read back: below.)
#  7  "two boots ago": the load says the region was armed and never
#     captured (the previous boot did not panic) and
#     shows nothing; a load without the parameters says nothing about
#     persistence. Ends normally (st_end).
#
# Every shell command runs on CPU 0 (taskset): CPU 1 is the one that spins
# in stage 1 and takes the NMI panic in stage 2. Stages 1 to 6 end their
# KTAP document with st_reboot_expected (lib.sh) before they crash or
# reboot; each is named persist_reboot-N, the last one persist_reboot.
# Kernels with KASLR (the stock ones) place _printk anew at each boot:
# each stage says in its document whether this boot's differs from the
# previous one's, which the capture must name.
#
# On arm64 and 32-bit ARM (QEMU's virt machine keeps RAM across a reset
# too): the region is the reserve_mem= region st_persist (qemu-run.sh
# --append 'reserve_mem=1M:4096:st_persist'; persist_name=), which the
# kernel sets aside at the same address at every boot of the same kernel
# and command line; there is no NMI (the workload writes task, softirq
# and hardirq records; stage 2's panic is a plain one on CPU 1), and the
# torn writer holds preemption off rather than interrupts (the panic
# stops the other CPUs with an interrupt there: tests/crash_testdrv.c).
. ./lib.sh

st_addr=0x30000000
st_size=1048576
# The region: memmap='s at st_addr, or the reserve_mem= region st_persist;
# st_where names it to the test module's verify and scribble.
if grep -qF "reserve_mem=1M:4096:st_persist" /proc/cmdline; then
	st_params="persist_name=st_persist"
	st_where=st_persist
	st_armed_msg="snaptrace: persist: armed: 0x"
else
	st_params="persist_address=$st_addr persist_size=$st_size"
	st_where="$st_addr $st_size"
	st_armed_msg="snaptrace: persist: armed: $st_addr"
fi
# The contexts the workload writes from, and the records of a round.
if [ "$(uname -m)" = x86_64 ]; then
	st_ctxs="task softirq hardirq nmi"
else
	st_ctxs="task softirq hardirq"
fi
st_per=$(echo $st_ctxs | wc -w)
# Rounds of the workload: 4 records a round on each CPU, 64 bytes each in
# the region, well inside 1 MiB: every record comes back (what a full
# region keeps, each CPU's newest, is the snaptrace_persist KUnit suite's).
st_rounds=64
st_garbage=20261202
# The kernels of tests/qemu/kernel-kunit.sh have no CONFIG_MAGIC_SYSRQ:
# there the first panic is the test module's, in task context too.
if [ -e /proc/sysrq-trigger ]; then
	st_msg_1="sysrq triggered crash"
else
	st_msg_1="persist_reboot stage 1: panic (no sysrq on this kernel)"
fi
if [ "$(uname -m)" = x86_64 ]; then
	st_msg_2="persist_reboot stage 2: panic from NMI"
else
	st_msg_2="persist_reboot stage 2: panic on CPU 1"
fi
st_msg_plain="persist_reboot stage 5: plain panic"
st_cr=$ST_DEBUGFS/snaptrace_crash
st_lb=$ST_DIR/last_boot
st_ncpu=$(grep -c ^processor /proc/cpuinfo)

st_count() { dmesg | grep -cF "$1"; }
st_field() { grep "^$1:" "$st_lb/info"; }
# st_note TEXT: a diagnostic line in the document and on the console.
st_note() { echo "# $*" | tee -a "$ST_FILE"; }
st_kallsyms_printk() {
	awk '$3 == "_printk" && ($2 == "T" || $2 == "t") { print $1; exit }' /proc/kallsyms
}

# Everything here on CPU 0, whatever it forks.
taskset -p 1 $$ >/dev/null

# st_workload_and_marker: the workload on every CPU, checked, and this
# boot's _printk written into the trace (on CPU 0).
st_workload_and_marker() {
	local want="" c
	st_check "workload: $st_rounds rounds on each CPU" \
		sh -c "echo $st_rounds > $st_cr/workload"
	for c in $(seq 0 $((st_ncpu - 1))); do
		x=0
		[ "$st_per" = 4 ] && x=$st_rounds
		want="${want}cpu$c task $st_rounds softirq $st_rounds hardirq $st_rounds nmi $x failed 0|"
	done
	st_expect_eq "workload: every record written in its context" "$want" \
		"$(tr '\n' '|' <$st_cr/workload)"
	st_printk=$(st_kallsyms_printk)
	st_check "this boot's _printk is known" test -n "$st_printk"
	st_check "_printk into the trace" \
		sh -c "echo 'persist_reboot: _printk $st_printk' > $ST_DIR/trace_marker"
}

# st_check_capture REASON MESSAGE CPU TORN_CPU: last_boot/ holds exactly
# what the previous boot's stage wrote before it died: the workload of
# every CPU and the _printk record (CPU 0), nothing else; TORN_CPU (or
# -1) with its one record reserved and never committed.
st_check_capture() {
	local reason=$1 msg=$2 cpu=$3 torn=$4 kept prev c x t want got
	kept=$((st_per * st_rounds * st_ncpu + 1))
	st_check "last_boot/ is shown" test -d "$st_lb"
	# What info shows, for the record; not its message, checked below
	# (stage 4's, "Oops", would read as a splat on the console).
	grep -v '^message:' $st_lb/info | sed 's/^/# info: /' | tee -a "$ST_FILE"
	st_expect_eq "info: reason" "reason: $reason" "$(st_field reason)"
	st_expect_eq "info: message" "message: $msg" "$(st_field message)"
	st_expect_eq "info: cpu" "cpu: $cpu" "$(st_field cpu)"
	st_expect_eq "info: snapshot taken" "snapshot: taken" "$(st_field snapshot)"
	st_expect_eq "info: records kept" "records kept: $kept" "$(st_field 'records kept')"
	t=0
	[ "$torn" -ge 0 ] && t=1
	st_expect_eq "info: dropped torn" "dropped torn: $t" "$(st_field 'dropped torn')"
	st_expect_eq "info: dropped corrupt" "dropped corrupt: 0" \
		"$(st_field 'dropped corrupt')"
	st_expect_eq "info: left out" "left out (region full): 0" \
		"$(st_field 'left out (region full)')"
	want=""
	for c in $(seq 0 $((st_ncpu - 1))); do
		x=$((st_per * st_rounds))
		[ "$c" = 0 ] && x=$((x + 1))
		t=0
		[ "$c" = "$torn" ] && t=1
		want="${want}cpu$c: written $x torn $t left out 0|"
	done
	st_expect_eq "stats: each CPU's records, the torn one on CPU $torn only" \
		"$want" "$(tr '\n' '|' <$st_lb/stats)"

	# The kernel anchor is what the previous boot's /proc/kallsyms said.
	prev=$(grep -v '^#' $st_lb/trace | sed -n 's/.*: persist_reboot: _printk \([0-9a-f]*\)$/\1/p')
	st_check "the previous boot's _printk is in the trace" test -n "$prev"
	st_expect_eq "info: kernel anchor is the previous boot's _printk" \
		"kernel: _printk at 0x$prev" "$(st_field kernel)"
	if [ "$(st_kallsyms_printk)" = "$prev" ]; then
		st_note "this boot's _printk is where the previous boot's was (0x$prev): no KASLR, or the same offset"
	else
		st_note "this boot's _printk 0x$(st_kallsyms_printk) differs from the previous boot's 0x$prev (KASLR)"
	fi

	# Record by record: per CPU and context, every round, in order.
	for c in $(seq 0 $((st_ncpu - 1))); do
		for x in $st_ctxs; do
			got=$(awk -v w="cpu$c" -v x=$x \
				'$3 == "st_crash" && $4 == w && $5 == x { printf "%s%s", s, $6; s = " " }' \
				$st_lb/per_cpu/cpu$c/trace)
			st_expect_eq "cpu$c $x: records 0..$((st_rounds - 1)), in order" \
				"$(seq -s ' ' 0 $((st_rounds - 1)))" "$got"
		done
		x=$((st_per * st_rounds))
		[ "$c" = 0 ] && x=$((x + 1))
		st_expect_eq "cpu$c: nothing else in its file" "$x" \
			"$(grep -vc '^#' $st_lb/per_cpu/cpu$c/trace)"
		st_expect_eq "cpu$c: its file agrees with trace" \
			"$(grep "^\[0*$c\]" $st_lb/trace)" "$(grep -v '^#' $st_lb/per_cpu/cpu$c/trace)"
	done
	st_expect_eq "each record on the CPU its payload names" 0 \
		"$(awk '$3 == "st_crash" && $1 != sprintf("[%03d]", substr($4, 4)) { n++ } END { print n + 0 }' $st_lb/trace)"
	st_expect_eq "the torn record is not shown" 0 "$(grep -c 'st_crash cpu[0-9]* torn' $st_lb/trace)"
	st_expect_eq "trace: every record, nothing else" "$kept" "$(grep -vc '^#' $st_lb/trace)"
}

# st_load: snaptrace with the region; what it said is in st_said_*.
st_load() {
	local none=$(st_count "no previous capture: the region is not ours yet")
	local nopanic=$(st_count "no previous capture: armed by an earlier load (of this boot, or of a boot that did not panic), never captured")
	local shown=$(st_count "snaptrace: persist: the previous boot's capture")
	local refused=$(st_count "previous capture is refused")
	local armed=$(st_count "$st_armed_msg")
	insmod $ST_MOD/snaptrace.ko $st_params persist_on_oops=1
	st_load_rc=$?
	st_said_none=$(($(st_count "no previous capture: the region is not ours yet") - none))
	st_said_nopanic=$(($(st_count "no previous capture: armed by an earlier load (of this boot, or of a boot that did not panic), never captured") - nopanic))
	st_said_shown=$(($(st_count "snaptrace: persist: the previous boot's capture") - shown))
	st_said_refused=$(($(st_count "previous capture is refused") - refused))
	st_said_armed=$(($(st_count "$st_armed_msg") - armed))
}

# st_load_checks NONE NOPANIC SHOWN: the load's messages, one each at most.
st_load_checks() {
	st_expect_eq "insmod with the region" 0 "$st_load_rc"
	st_expect_eq "said: not ours yet (first use, or garbage)" "$1" "$st_said_none"
	st_expect_eq "said: armed by an earlier load, never captured" "$2" "$st_said_nopanic"
	st_expect_eq "said: the previous boot's capture, see last_boot/" "$3" "$st_said_shown"
	st_expect_eq "said: nothing refused otherwise" 0 "$st_said_refused"
	st_expect_eq "said: armed, once" 1 "$st_said_armed"
}

st_crash_load() {
	st_check "insmod snaptrace_crash" insmod $ST_MOD/snaptrace_crash.ko
}

# What is in the region, before snaptrace claims it: zeros at the first
# boot, the garbage of stage 4 at the fifth.
st_region=other
if insmod $ST_MOD/snaptrace.ko && insmod $ST_MOD/snaptrace_crash.ko; then
	if echo "$st_where 0" >$st_cr/verify 2>/dev/null; then
		st_region=zero
	elif echo "$st_where $st_garbage" >$st_cr/verify 2>/dev/null; then
		st_region=garbage
	fi
	rmmod snaptrace_crash
fi
rmmod snaptrace 2>/dev/null

# persist_reboot.stages=4 on the command line (qemu-run.sh --reboots 3;
# the kernel ignores a dotted word no module claims): the short run, the
# test kernels' rows in scripts/check.sh. Stages 1 to 3 and stage 4's reading of
# the oops's capture: what the architecture's panic, its stop of the other
# CPUs, its oops and its cache cleaning decide, on the test kernels with
# their checkers (KASAN, lockdep). Stages 4 to 7 (garbage refused, armed
# again, a reboot without a panic, a load without the parameters) are the
# module's own logic, the same on every architecture and kernel: the
# stock x86 kernels (6.1, 7.3) run them.
st_stages=7
! grep -qw "persist_reboot.stages=4" /proc/cmdline || st_stages=4
st_stage=
case $st_region in
zero) st_stage=1 ;;
garbage) st_stage=5 ;;
*)
	st_load
	if [ "$st_said_nopanic" = 1 ]; then
		st_stage=7
	elif [ -d "$st_lb" ]; then
		case "$(st_field message)|$(st_field reason)" in
		"message: $st_msg_1|reason: panic") st_stage=2 ;;
		"message: $st_msg_2|reason: panic") st_stage=3 ;;
		*"|reason: oops") st_stage=4 ;;
		"message: $st_msg_plain|reason: panic") st_stage=6 ;;
		esac
	fi ;;
esac

case $st_stage in
1)
	st_begin persist_reboot-1
	st_expect_eq "the machine has two CPUs" 2 "$st_ncpu"
	st_note "the region is all zeros: the first boot"
	st_load
	st_load_checks 1 0 0
	st_check_fails "no last_boot/" test -e "$st_lb"
	st_crash_load
	st_workload_and_marker
	[ -e /proc/sysrq-trigger ] ||
		st_note "no /proc/sysrq-trigger (CONFIG_MAGIC_SYSRQ): the module panics instead"
	st_reboot_expected panic
	# CPU 1 holds a record open with interrupts off, then the panic.
	echo 1 >$st_cr/torn
	if [ -e /proc/sysrq-trigger ]; then
		echo c >/proc/sysrq-trigger
	else
		echo "$st_msg_1" >$st_cr/panic
	fi
	;;
2)
	st_begin persist_reboot-2
	st_load_checks 0 0 1
	st_check_capture panic "$st_msg_1" 0 1
	st_check "release" sh -c "echo 0 > $st_lb/release"
	st_expect_eq "released" "released" "$(cat $st_lb/info)"
	st_crash_load
	st_workload_and_marker
	st_reboot_expected panic
	if [ -e $st_cr/nmi_panic ]; then
		echo "1 $st_msg_2" >$st_cr/nmi_panic
	else
		taskset 2 sh -c "echo '$st_msg_2' > $st_cr/panic"
	fi
	;;
3)
	st_begin persist_reboot-3
	st_load_checks 0 0 1
	st_check_capture panic "$st_msg_2" 1 -1
	st_crash_load
	st_workload_and_marker
	st_check "panic_on_oops" sh -c "echo 1 > /proc/sys/kernel/panic_on_oops"
	st_reboot_expected oops
	echo 1 >$st_cr/oops
	;;
4)
	if [ "$st_stages" = 4 ]; then
		# The short run ends here, with the oops's capture read back.
		st_begin persist_reboot
		st_load_checks 0 0 1
		st_check_capture oops Oops 0 -1
		st_check "rmmod" rmmod snaptrace
		st_end
		exit 0
	fi
	st_begin persist_reboot-4
	st_load_checks 0 0 1
	st_check_capture oops Oops 0 -1
	st_check "rmmod snaptrace: the region is unclaimed" rmmod snaptrace
	st_check "insmod snaptrace without the region" insmod $ST_MOD/snaptrace.ko
	st_crash_load
	st_check "garbage over the region" \
		sh -c "echo '$st_where $st_garbage' > $st_cr/scribble"
	st_check "the garbage is there" \
		sh -c "echo '$st_where $st_garbage' > $st_cr/verify"
	st_reboot_expected reboot
	reboot -f
	;;
5)
	st_begin persist_reboot-5
	st_note "the region holds the garbage the previous boot wrote"
	st_load
	st_load_checks 1 0 0
	st_check_fails "no last_boot/" test -e "$st_lb"
	st_crash_load
	st_workload_and_marker
	st_reboot_expected panic
	echo "$st_msg_plain" >$st_cr/panic
	;;
6)
	st_begin persist_reboot-6
	st_load_checks 0 0 1
	st_check_capture panic "$st_msg_plain" 0 -1
	st_reboot_expected reboot
	reboot -f
	;;
7)
	st_begin persist_reboot
	st_load_checks 0 1 0
	st_check_fails "no last_boot/: the capture was of two boots ago" test -e "$st_lb"
	st_check "rmmod" rmmod snaptrace
	st_before=$(st_count "snaptrace: persist:")
	st_check "insmod without the parameters" insmod $ST_MOD/snaptrace.ko
	st_expect_eq "nothing said about persistence" 0 \
		$(($(st_count "snaptrace: persist:") - st_before))
	st_check_fails "no last_boot/" test -e "$st_lb"
	st_check "rmmod" rmmod snaptrace
	st_end
	;;
*)
	# Not a stage of ours: fail, and end the run.
	st_begin persist_reboot
	st_expect_eq "the stage is known (region, load, last_boot/info)" known \
		"$st_region|$(dmesg | grep 'snaptrace: persist:' | tail -n 2 | tr '\n' '|')"
	rmmod snaptrace 2>/dev/null
	st_end
	;;
esac
