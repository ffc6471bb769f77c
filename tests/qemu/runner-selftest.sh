#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The runner's console judgement on made-up consoles: what --faults drops
# (drop_fault_reports in judge.sh) and what it must keep; and which skips
# fail a run (unexpected_skips); whether /init ran (init_started) and
# what of the console is judged (split_at_init). One line per case;
# exit status 1 if any case fails. Run by check.sh, on the host.
set -euo pipefail
# The cases read their console from a pipe: run the last command of a
# pipeline in this shell, or what a case adds to $fails is lost with its
# subshell.
shopt -s lastpipe
. "$(dirname "$0")/../../scripts/lib.sh"
. "$(dirname "$0")/judge.sh"

fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# vmalloc_report [FRAMES]: the head of a warn_alloc() report and FRAMES
# stack lines, without its closing </TASK>.
vmalloc_report() {
	local i
	echo '[ 1.000000] insmod: vmalloc error: size 8192, vm_struct allocation failed'
	echo '[ 1.000001] CPU: 0 UID: 0 PID: 9 Comm: insmod Tainted: G O'
	echo '[ 1.000002] Call Trace:'
	echo '[ 1.000003]  <TASK>'
	for ((i = 0; i < ${1:-20}; i++)); do
		echo "[ 1.000004]  frame$i+0x1/0x2"
	done
}

# case_splat NAME WANT: WANT is "clean" or "splat", for the console on stdin.
case_splat() {
	local name=$1 want=$2 got=clean
	drop_fault_reports >"$tmp/out"
	grep -Eq "$SPLAT_RE" "$tmp/out" && got=splat
	if [ "$got" = "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want $want, got $got"
		sed 's/^/    | /' "$tmp/out" | tail -n 5
		fails=$((fails + 1))
	fi
}

{ vmalloc_report; echo '[ 1.1]  </TASK>'; echo '[ 1.2] Mem-Info:'; } |
	case_splat "a vmalloc report is dropped whole" clean
{ vmalloc_report 5; echo '[ 1.1] WARNING: CPU: 1 PID: 3 at foo.c:1 bar'; echo '[ 1.2]  </TASK>'; } |
	case_splat "a splat inside a vmalloc report's stack is kept" splat
{ vmalloc_report 150; echo '[ 2.0] Call Trace:'; } |
	case_splat "a report with no end is dropped for 100 lines only" splat
{ echo '[ 1.0] insmod: page allocation failure: order:0'; echo '[ 1.1] Call Trace:'; } |
	case_splat "a page allocation failure is not dropped" splat
{ vmalloc_report; echo '[ 1.1]  </TASK>'; echo '[ 1.2] Call Trace:'; } |
	case_splat "a stack after the report's end is kept" splat
# case_skips NAME ALLOW WANT: WANT unexpected skips in the KTAP on stdin.
case_skips() {
	local name=$1 allow=$2 want=$3 got
	cat >"$tmp/doc.ktap"
	got=$(unexpected_skips "$allow" "$tmp/doc.ktap" | wc -l)
	if [ "$got" -eq "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want $want unexpected skips, got $got"
		fails=$((fails + 1))
	fi
}

# What 7.3 did before its test thread borrowed PID 1's root.
kunit_doc() {
	echo 'KTAP version 1'
	echo '1..2'
	echo '    ok 1 api_read_trace # SKIP debugfs is not mounted at /sys/kernel/debug'
	echo '        ok 1 kv260-hello # SKIP no /lib/firmware/snaptrace-fixtures/kv260_r5_zephyr-hello.elf'
	echo '    ok 2 mutate_fixture'
	echo 'ok 1 snaptrace_api'
	echo 'ok 2 snaptrace_faults # SKIP this kernel has no CONFIG_FAILSLAB (fail-nth)'
}
kunit_doc | case_skips "every skip fails unless allowed" "" 3
kunit_doc | case_skips "an allowed skip does not fail, the others do" \
	"snaptrace-fixtures|no CONFIG_FAILSLAB" 1
echo 'ok 4 - real firmware images # SKIP ../shared/fixtures/firmware not staged' |
	case_skips "a scenario step's skip counts too" "" 1
echo 'ok 4 - trace_marker written' |
	case_skips "a passed step is no skip" "" 0
# case_init NAME WANT: WANT is "ran" or "died", for the console on stdin.
case_init() {
	local name=$1 want=$2 got=died
	cat >"$tmp/console"
	init_started "$tmp/console" && got=ran
	if [ "$got" = "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want $want, got $got"
		fails=$((fails + 1))
	fi
}

printf '[ 1.0] Run /init as init process\n@@SNAPTRACE-BOOTED 7.3.4 cpus=2@@\n' |
	case_init "the boot marker says /init ran" ran
printf '@@SNAPTRA[ 2.1] clocksource: Switched to tsc\nCE-BOOTED 7.3.4 cpus=2@@\n# scenario smoke\n' |
	case_init "a boot marker cut by a kernel message still counts" ran
printf '@@SNAPTRA[ 2.1] random: crng init done\n# scenario kunit\nok 1 - insmod\n' |
	case_init "a scenario's start line counts" ran
printf '[ 1.0] Kernel panic - not syncing: VFS: Unable to mount root fs\n' |
	case_init "a kernel that died before /init" died
# case_boot NAME WANT: WANT is "clean" or "splat": what is judged of the
# console on stdin (from /init on).
case_boot() {
	local name=$1 want=$2 got=clean
	cat >"$tmp/console"
	split_at_init "$tmp/console" "$tmp/boot" "$tmp/from"
	grep -Eq "$SPLAT_RE" "$tmp/from" && got=splat
	if [ "$got" = "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want $want, got $got"
		fails=$((fails + 1))
	fi
}

printf '[ 3.2] BUG: KASAN: wild-memory-access in do_raw_spin_lock\n[ 3.3] Call Trace:\n@@SNAPTRACE-BOOTED 7.3.4 cpus=2@@\n# scenario kunit\nok 1 - insmod\n' |
	case_boot "a report in the kernel's own boot is not judged" clean
printf '@@SNAPTRACE-BOOTED 7.3.4 cpus=2@@\n# scenario kunit\n[ 9.1] BUG: KASAN: slab-out-of-bounds in snaptrace_write\n' |
	case_boot "a report once /init ran is" splat
printf '@@SNAPTRA[ 2.1] clocksource: Switched to tsc\nCE-BOOTED 7.3.4 cpus=2@@\n[ 9.1] WARNING: CPU: 1 PID: 9 at foo.c:1\n' |
	case_boot "a report after a cut boot marker is judged" splat
[ $fails -eq 0 ]
