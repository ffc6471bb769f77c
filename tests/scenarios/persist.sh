#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# persist: the persistent capture's load path, in one boot (no reboot):
# a load without the parameters says nothing and shows nothing; the
# region of memmap=1M$0x30000000 (given by the runner's --append) is
# found empty at first, armed, found armed and not captured at the next
# load; memory the kernel uses, more than the reservation, MMIO, a
# reserved hole that keeps nothing (with memmap=64K$0x50000000 on the
# command line too), a misaligned address, a reserve_mem= name the
# kernel was not given, and (when the command line gives it to ftrace
# too) a reserve_mem= region of ftrace's, are refused with a clear
# message. KUnit builds: a test capture read back, with a simulated
# remote crashed before it, whose two last traces are under
# last_boot/remotes/, by a load whose wall clock is a day behind it
# (shown, its time said to be doubtful, the region armed); a capture of
# another size kept, not armed, until released (a release that failed
# part way, retried) or persist_discard=1. The capture itself and its
# validation are the snaptrace_persist KUnit suite's; a panic and the
# reboot after it are not run here (Documentation/persist.rst).
# Where there is no memmap= (arm64, 32-bit ARM), the region is the
# reserve_mem= region st_persist (reserve_mem=1M:4096:st_persist on the
# command line, persist_name=st_persist): RAM the kernel set aside, at an
# address learned from the load's "armed" line, never claimed in
# /proc/iomem; what only memmap= can make (another size at the same
# address, a reservation too small, a reserved hole) is skipped there,
# saying so.
. ./lib.sh
st_begin persist

# A guest with no RTC (the ARM test kernels) starts in 1970, a day after
# which a clock set a day back below has nowhere to go: such a clock is
# set to 2026-01-01 first, as a boot script with no RTC would.
if [ "$(date +%s)" -lt 1000000000 ]; then
	st_check "no RTC: the clock set to 2026-01-01" \
		sh -c "date -s @1767225600 >/dev/null"
fi

st_addr=0x30000000
st_size=1048576
# st_params: the parameters that name the region; st_named=1 for a
# reserve_mem= region.
st_named=0
if grep -qF "memmap=1M\$$st_addr" /proc/cmdline; then
	st_params="persist_address=$st_addr persist_size=$st_size"
elif grep -qF "reserve_mem=1M:4096:st_persist" /proc/cmdline; then
	st_params="persist_name=st_persist"
	st_named=1
else
	st_params=
fi
# The load's line when it arms the region (its address, for a named
# region, once the first load said it).
st_armed_msg() {
	if [ "$st_named" = 1 ] && [ -z "${st_addr_named:-}" ]; then
		echo "snaptrace: persist: armed: 0x"
	elif [ "$st_named" = 1 ]; then
		echo "snaptrace: persist: armed: $st_addr_named"
	else
		echo "snaptrace: persist: armed: $st_addr"
	fi
}
st_count() { dmesg | grep -cF "$1"; }
# st_insmod_refused WHAT ERRNO MSG ARGS...: insmod with ARGS fails with
# ERRNO (insmod's status is the errno init_module() failed with), dmesg
# gains MSG, and nothing is left loaded or claimed.
st_insmod_refused() {
	st_what=$1 st_errno=$2 st_msg=$3
	shift 3
	st_before=$(st_count "$st_msg")
	st_rc=0
	insmod $ST_MOD/snaptrace.ko "$@" 2>/dev/null || st_rc=$?
	st_expect_eq "$st_what" "$st_errno" $st_rc
	st_check "and says why" test $(($(st_count "$st_msg") - st_before)) -ge 1
	st_check_fails "not loaded" test -e /sys/module/snaptrace
	st_check_fails "nothing claimed" grep -qF snaptrace /proc/iomem
}

st_before=$(st_count "snaptrace: persist:")
st_check "insmod without the parameters" insmod $ST_MOD/snaptrace.ko
st_expect_eq "nothing said about persistence" 0 \
	$(($(st_count "snaptrace: persist:") - st_before))
st_check_fails "no last_boot/" test -e $ST_DIR/last_boot
st_check "rmmod" rmmod snaptrace

if [ -n "$st_params" ]; then
	st_before=$(st_count "not ours yet")
	st_armed=$(st_count "$(st_armed_msg)")
	st_check "insmod with the region" insmod $ST_MOD/snaptrace.ko $st_params
	st_expect_eq "first use: no previous capture, said once" 1 \
		$(($(st_count "not ours yet") - st_before))
	st_expect_eq "armed, said once" 1 \
		$(($(st_count "$(st_armed_msg)") - st_armed))
	st_check_fails "no last_boot/ without a capture" test -e $ST_DIR/last_boot
	st_check "the spare is allocated at load" \
		test "$(cat $ST_DIR/snapshot_alloc)" = 1
	if [ "$st_named" = 1 ]; then
		st_addr_named=$(dmesg | sed -n 's/.*snaptrace: persist: armed: \(0x[0-9a-f]*\), 1048576 bytes.*/\1/p' | tail -n 1)
		st_check "the reserve_mem= region armed: 1 MiB at $st_addr_named" \
			test -n "$st_addr_named"
		st_check_fails "RAM set aside is not claimed in /proc/iomem" \
			grep -qF snaptrace /proc/iomem
	else
		st_expect_eq "the region is claimed" "30000000-300fffff : snaptrace" \
			"$(grep -o '30000000-300fffff : snaptrace' /proc/iomem)"
	fi
	st_check "rmmod" rmmod snaptrace
	st_before=$(st_count "armed by an earlier load (of this boot, or of a boot that did not panic), never captured")
	st_check "insmod again, with a remote" insmod $ST_MOD/snaptrace.ko \
		$st_params remotes=1
	st_expect_eq "armed, not captured: no previous capture" 1 \
		$(($(st_count "armed by an earlier load (of this boot, or of a boot that did not panic), never captured") - st_before))
	st_check_fails "no last_boot/" test -e $ST_DIR/last_boot
	st_hook=/sys/module/snaptrace/parameters/persist_test_capture
	if [ -e $st_hook ]; then
		# KUnit builds: a capture as a panic takes it, read back by
		# the next load (a new boot id), as the next boot would.
		st_check "record one" sh -c "echo persist one > $ST_DIR/trace_marker"
		st_check "record two" sh -c "echo persist two > $ST_DIR/trace_marker"
		# A remote crashed before the host's capture: its last traces
		# (the example firmware has two) go with it.
		st_r0=$ST_DIR/remoteproc/remoteproc0
		echo snaptrace/example64.elf >$st_r0/firmware
		echo disabled >$st_r0/recovery
		st_check "start the remote" sh -c "echo start >$st_r0/state"
		st_check "crash the remote" sh -c "echo watchdog >$st_r0/crash"
		cat $st_r0/trace0_last >/tmp/persist-r0-last0
		cat $st_r0/trace1_last >/tmp/persist-r0-last1
		st_check "its trace0_last is not empty" test -s /tmp/persist-r0-last0
		st_check "capture" sh -c "echo 1 > $st_hook"
		st_check_fails "a second capture is refused" sh -c "echo 1 > $st_hook"
		st_check "rmmod" rmmod snaptrace
		# A load that fails after it took the capture out (its die
		# notifier's registration made to fail; a later step of module
		# init: a remote's bad layout) has not armed the region: the
		# capture is still there, and the next load below shows it.
		st_msg="cannot register the die notifier (persist_on_oops=1): "
		st_before=$(st_count "$st_msg")
		st_armed=$(st_count "$(st_armed_msg)")
		st_check_fails "a load whose die notifier fails" \
			insmod $ST_MOD/snaptrace.ko $st_params \
			persist_on_oops=1 persist_test_fail_die=1
		st_check "says so" test $(($(st_count "$st_msg") - st_before)) -ge 1
		st_check_fails "not loaded" test -e /sys/module/snaptrace
		st_check_fails "a load whose remote fails" \
			insmod $ST_MOD/snaptrace.ko $st_params layout=sram:0x0
		st_check_fails "not loaded" test -e /sys/module/snaptrace
		st_expect_eq "neither armed the region" 0 \
			$(($(st_count "$(st_armed_msg)") - st_armed))
		# This load's wall clock a day behind the capture's, as on a
		# machine with no battery-backed clock: the capture is shown,
		# its time said to be doubtful, and the region armed.
		st_doubt="its wall-clock time is doubtful: not between its arming and now"
		st_before=$(st_count "$st_doubt")
		st_armed=$(st_count "$(st_armed_msg)")
		st_check "the clock a day back" \
			sh -c "date -s @$(($(date +%s) - 86400)) >/dev/null"
		st_check "insmod after the capture" insmod $ST_MOD/snaptrace.ko \
			$st_params
		st_check "the clock a day on again" \
			sh -c "date -s @$(($(date +%s) + 86400)) >/dev/null"
		st_expect_eq "the capture shown, its time doubtful, said once" 1 \
			$(($(st_count "$st_doubt") - st_before))
		st_expect_eq "and armed, said once" 1 \
			$(($(st_count "$(st_armed_msg)") - st_armed))
		st_lb=$ST_DIR/last_boot
		st_want="time: doubtful: the capture's wall-clock time is after this load's"
		st_want="$st_want (this boot's clock is behind the previous boot's:"
		st_want="$st_want no battery-backed clock, or not set yet)"
		st_expect_eq "info: the time is doubtful, after this load's" \
			"$st_want" "$(grep '^time:' $st_lb/info)"
		# The clock a day back: the capture reads as taken after this
		# boot began, which info says too, before the doubt.
		st_expect_eq "info: the time lines after the captured line" \
			"captured:|captured after this boot began|time:" \
			"$(grep -A2 '^captured:' $st_lb/info | cut -d' ' -f1-5 |
				sed 's/^captured: .*/captured:/; s/^time: .*/time:/' |
				tr '\n' '|' | sed 's/|$//')"
		st_expect_eq "info: reason" "reason: test" "$(grep '^reason:' $st_lb/info)"
		st_expect_eq "info: message" "message: test capture" \
			"$(grep '^message:' $st_lb/info)"
		st_expect_eq "info: records kept" "records kept: 2" \
			"$(grep '^records kept:' $st_lb/info)"
		st_expect_eq "info: torn" "dropped torn: 0" "$(grep '^dropped torn:' $st_lb/info)"
		st_expect_eq "info: corrupt" "dropped corrupt: 0" \
			"$(grep '^dropped corrupt:' $st_lb/info)"
		st_expect_eq "info: snapshot taken" "snapshot: taken" \
			"$(grep '^snapshot:' $st_lb/info)"
		st_expect_eq "info: the remote's last trace kept" \
			"remote traces: 2 captured (remoteproc0/trace0_last, remoteproc0/trace1_last)" \
			"$(grep '^remote traces:' $st_lb/info)"
		st_check "remotes/remoteproc0/trace0_last: its text at the crash" \
			cmp -s $st_lb/remotes/remoteproc0/trace0_last /tmp/persist-r0-last0
		st_check "remotes/remoteproc0/trace1_last: its text at the crash" \
			cmp -s $st_lb/remotes/remoteproc0/trace1_last /tmp/persist-r0-last1
		st_expect_eq "trace: the two records, in order" "persist one|persist two" \
			"$(grep -v '^#' $st_lb/trace | sed 's/.*: //' | tr '\n' '|' | sed 's/|$//')"
		# The two writes may land on two CPUs: each CPU's file has its own.
		st_bad=0
		for st_d in $st_lb/per_cpu/cpu*; do
			st_n=${st_d##*cpu}
			[ "$(grep "^\[0*$st_n\]" $st_lb/trace)" = \
				"$(grep -v '^#' $st_d/trace)" ] || st_bad=1
		done
		st_expect_eq "per_cpu/cpuN/trace: each CPU's records" 0 $st_bad
		# Each CPU's file counts its own records.
		st_bad=0
		for st_d in $st_lb/per_cpu/cpu*; do
			st_n=${st_d##*cpu}
			st_k=$(grep -c "^\[0*$st_n\]" $st_lb/trace)
			grep -qx "# cpu$st_n: records kept: $st_k, dropped torn: 0, dropped corrupt: 0 (all CPUs: 2 kept)" \
				$st_d/trace || st_bad=1
		done
		st_expect_eq "per_cpu/cpuN/trace: its own counts" 0 $st_bad
		st_expect_eq "stats: 2 written, none torn or left out" "2 0 0" \
			"$(awk '{ w += $3; t += $5; l += $8 } END { print w, t, l }' $st_lb/stats)"
		st_check "the live buffer is empty again" test -z "$(grep -v '^#' $ST_DIR/trace)"
		st_check_fails "release takes 0 only" sh -c "echo 1 > $st_lb/release"
		st_expect_eq "release's refusal in error_log, the caret under it" \
			"snaptrace/last_boot/release: error: only 0 releases the kept capture|  Command: 1|           ^" \
			"$(tail -n 3 $ST_DIR/error_log | sed 's/^\[[^]]*\] //' | tr '\n' '|' | sed 's/|$//')"
		st_check "release" sh -c "echo 0 > $st_lb/release"
		st_expect_eq "released" "released" "$(cat $st_lb/info)"
		st_expect_eq "trace released" "# released" "$(grep -F '# released' $st_lb/trace)"
		st_expect_eq "stats released" "released" "$(cat $st_lb/stats)"
		st_expect_eq "remotes/remoteproc0/trace0_last released" "released" \
			"$(cat $st_lb/remotes/remoteproc0/trace0_last)"
	fi
	if [ -e $st_hook ] && [ "$st_named" = 1 ]; then
		st_skip "a capture of another size kept, released part way, discarded" \
			"a reserve_mem= region has one size (the memmap= runs check it)"
		st_check "rmmod" rmmod snaptrace
	elif [ -e $st_hook ]; then
		# A capture the load cannot show (here: armed with another
		# size) is evidence: kept as found, not armed, until released.
		st_half=$((st_size / 2))
		st_check "rmmod" rmmod snaptrace
		st_before=$(st_count "armed by an earlier load (of this boot, or of a boot that did not panic), never captured")
		st_check "insmod with half the region" insmod $ST_MOD/snaptrace.ko \
			persist_address=$st_addr persist_size=$st_half
		st_expect_eq "armed with another size, not captured: armed over" 1 \
			$(($(st_count "armed by an earlier load (of this boot, or of a boot that did not panic), never captured") - st_before))
		st_check "record three" sh -c "echo persist three > $ST_DIR/trace_marker"
		st_check "capture in half the region" sh -c "echo 1 > $st_hook"
		st_check "rmmod" rmmod snaptrace
		st_before=$(st_count "kept as found, not armed")
		st_armed=$(st_count "snaptrace: persist: armed: $st_addr")
		st_check "insmod with the whole region" insmod $ST_MOD/snaptrace.ko \
			persist_address=$st_addr persist_size=$st_size persist_on_oops=1
		st_expect_eq "a capture of another size: kept, said once" 1 \
			$(($(st_count "kept as found, not armed") - st_before))
		st_expect_eq "and not armed" 0 \
			$(($(st_count "snaptrace: persist: armed: $st_addr") - st_armed))
		st_check "the log says the size it was armed with" \
			test "$(st_count "it was armed with persist_size=$st_half for ")" -ge 1
		st_expect_eq "stats: kept, not shown" \
			"kept as found, not shown: info says why" "$(cat $st_lb/stats)"
		st_check "info: kept, and why" \
			grep -q '^kept: .*armed with another size or layout' $st_lb/info
		st_expect_eq "info: not armed" 1 "$(grep -c '^armed: no' $st_lb/info)"
		st_expect_eq "trace: kept, not shown" \
			"# kept as found, not shown: info says why" \
			"$(grep -F '# kept' $st_lb/trace)"
		st_expect_eq "release: something to release" 1 "$(cat $st_lb/release)"
		st_check_fails "not armed: no capture" sh -c "echo 1 > $st_hook"
		# A release that fails part way (here the die notifier's
		# registration, made to fail) is retried: what it armed and
		# registered is not again (a notifier registered twice makes
		# the kernel warn: a splat fails the run).
		st_check "the die notifier's registration will fail once" sh -c \
			"echo 1 > /sys/module/snaptrace/parameters/persist_test_fail_die"
		st_check_fails "release fails part way" sh -c "echo 0 > $st_lb/release"
		st_want="released part way: armed, a notifier not registered"
		st_expect_eq "info: released part way" \
			"$st_want (echo 0 > release again)" "$(cat $st_lb/info)"
		# Armed by then: a capture taken before the retry is not
		# armed over by it.
		st_check "record four" sh -c "echo persist four > $ST_DIR/trace_marker"
		st_check "armed: a capture is taken" sh -c "echo 1 > $st_hook"
		st_before=$(st_count "the kept region is released: armed: $st_addr")
		st_check "release" sh -c "echo 0 > $st_lb/release"
		st_expect_eq "released and armed, said once" 1 \
			$(($(st_count "the kept region is released: armed: $st_addr") - st_before))
		st_expect_eq "release: nothing left" 0 "$(cat $st_lb/release)"
		st_expect_eq "info: released" "released" "$(cat $st_lb/info)"
		st_check_fails "not armed again: a second capture is refused" \
			sh -c "echo 1 > $st_hook"
		st_check "rmmod" rmmod snaptrace
		st_check "insmod after the capture before the retry" \
			insmod $ST_MOD/snaptrace.ko persist_address=$st_addr \
			persist_size=$st_size
		st_expect_eq "info: reason" "reason: test" "$(grep '^reason:' $st_lb/info)"
		st_expect_eq "info: records kept" "records kept: 1" \
			"$(grep '^records kept:' $st_lb/info)"
		st_expect_eq "trace: the record written before it" "persist four" \
			"$(grep -v '^#' $st_lb/trace | sed 's/.*: //')"
		# A capture of the whole region again, for the load below.
		st_check "capture" sh -c "echo 1 > $st_hook"
		st_check "rmmod" rmmod snaptrace
		# persist_discard=1 arms over a kept capture at load.
		st_before=$(st_count "previous capture is refused: ")
		st_msg="snaptrace: persist: armed: $st_addr, $st_half bytes"
		st_armed=$(st_count "$st_msg")
		st_check "insmod with half the region, discarding" \
			insmod $ST_MOD/snaptrace.ko persist_address=$st_addr \
			persist_size=$st_half persist_discard=1
		st_expect_eq "refused, said once" 1 \
			$(($(st_count "previous capture is refused: ") - st_before))
		st_expect_eq "and armed over" 1 \
			$(($(st_count "$st_msg") - st_armed))
		st_check_fails "no last_boot/" test -e $st_lb
		st_check "rmmod" rmmod snaptrace
	else
		st_check "rmmod" rmmod snaptrace
	fi
fi
if [ -n "$st_params" ] && [ "$st_named" = 1 ]; then
	st_skip "insmod with twice the region is refused" \
		"a reserve_mem= region has one size (the memmap= runs check it)"
elif [ -n "$st_params" ]; then
	# More than the reservation: refused, with the size that fits.
	st_msg="0x30000000..0x301fffff goes past the reserved range 0x30000000..0x300fffff: persist_size=1048576 at most"
	st_before=$(st_count "$st_msg")
	st_check_fails "insmod with twice the region is refused" \
		insmod $ST_MOD/snaptrace.ko persist_address=$st_addr \
		persist_size=$((2 * st_size))
	st_check "and says the size that fits" \
		test $(($(st_count "$st_msg") - st_before)) -ge 1
	st_check_fails "nothing claimed" grep -qF snaptrace /proc/iomem
else
	st_skip "insmod with the region" "no memmap=1M\$$st_addr nor reserve_mem=1M:4096:st_persist on the command line"
fi

# memmap= reserved a hole beyond the guest's 1 GiB of RAM (the runner's
# --append): the range is reserved, but keeps nothing written there.
if grep -qF 'memmap=64K$0x50000000' /proc/cmdline; then
	st_insmod_refused "insmod with a reserved hole is refused with -EIO" 5 \
		"0x50000000..0x5000ffff does not keep what is written: no memory there" \
		persist_address=0x50000000 persist_size=65536
elif [ "$(uname -m)" != x86_64 ]; then
	st_skip "insmod with a reserved hole is refused with -EIO" \
		"memmap= is x86 only: no reserved hole here"
fi

# The kernel's own code, where /proc/iomem says it is.
st_kaddr=0x$(sed -n 's/^ *\([0-9a-f]*\)-[0-9a-f]* : Kernel code$/\1/p' /proc/iomem | head -n 1)
st_before=$(st_count "is the kernel's memory")
st_check_fails "insmod with the kernel's own memory ($st_kaddr) is refused" \
	insmod $ST_MOD/snaptrace.ko persist_address=$st_kaddr persist_size=$st_size
# busybox's insmod tries a second way to load when the first fails: the
# message comes once per try.
st_check "and says why" test $(($(st_count "is the kernel's memory") - st_before)) -ge 1
# MMIO (the HPET's on x86, the PL011 UART's on QEMU's ARM virt machine)
# is neither RAM nor reserved memory: refused, with -EINVAL, said why,
# and nothing claimed or left loaded.
if [ "$(uname -m)" = x86_64 ]; then
	st_mmio=0xfed00000 st_mmio_name=HPET
else
	st_mmio=0x$(sed -n 's/^\([0-9a-f]*\)-[0-9a-f]* : .*pl011.*/\1/p' /proc/iomem |
		head -n 1 | sed 's/^0*//')
	st_mmio_name=PL011
fi
st_insmod_refused "insmod with $st_mmio_name MMIO is refused with -EINVAL" 22 \
	"$st_mmio..$(printf '0x%x' $((st_mmio + 65535))) is neither RAM nor reserved memory" \
	persist_address=$st_mmio persist_size=65536
# A range past the end of the address space: refused, -EINVAL, said why.
st_insmod_refused "insmod with a range that wraps is refused with -EINVAL" 22 \
	"persist_address=0xfffffffffffff000 persist_size=65536: past the end of the address space" \
	persist_address=0xfffffffffffff000 persist_size=65536
st_msg="persist_address=$st_addr persist_size=0: both are needed, a size of 0 bytes is none"
st_before=$(st_count "$st_msg")
st_check_fails "insmod with persist_address alone is refused" \
	insmod $ST_MOD/snaptrace.ko persist_address=$st_addr
st_check "and says a size is needed" test $(($(st_count "$st_msg") - st_before)) -ge 1
st_before=$(st_count "$st_msg")
st_check_fails "insmod with persist_size=0 is refused" \
	insmod $ST_MOD/snaptrace.ko persist_address=$st_addr persist_size=0
st_check "and says a size is needed" test $(($(st_count "$st_msg") - st_before)) -ge 1
st_check_fails "insmod with an unknown reserve_mem= name is refused" \
	insmod $ST_MOD/snaptrace.ko persist_name=nosuchregion
st_check_fails "nothing left loaded" test -e /sys/module/snaptrace
# A misaligned start: refused with -EINVAL before anything is claimed or
# mapped, whatever is there (its cmpxchg would be a split lock on x86, an
# alignment fault on arm64).
st_insmod_refused "insmod with a misaligned persist_address is refused with -EINVAL" 22 \
	"persist_address=0x30000004 is not a multiple of 8" \
	persist_address=0x30000004 persist_size=65536
# A reserve_mem= region that the command line also gives to ftrace (the
# 6.12 debug kernel's row in scripts/check.sh boots with
# 'reserve_mem=1M:4096:st_ftrace trace_instance=st_bm@st_ftrace'):
# refused with -EBUSY, saying whose.
if grep -qF "trace_instance=st_bm@st_ftrace" /proc/cmdline; then
	st_insmod_refused "insmod with ftrace's reserve_mem= region is refused with -EBUSY" 16 \
		"reserve_mem region st_ftrace is also ftrace's: \"trace_instance=st_bm@st_ftrace\"" \
		persist_name=st_ftrace
fi

st_end
